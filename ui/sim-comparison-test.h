/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the comparison shows, read back for tests and screenshots: not part
 * of its interface.
 */
#pragma once

#include "sim-comparison.h"

G_BEGIN_DECLS

/* What the user sees (borrowed). */
const char *sim_comparison_get_title      (SimComparison *self);
const char *sim_comparison_get_path       (SimComparison *self);
const char *sim_comparison_get_summary    (SimComparison *self);
GtkTextBuffer *sim_comparison_get_article (SimComparison *self);
GtkTextBuffer *sim_comparison_get_source  (SimComparison *self);
guint       sim_comparison_get_match      (SimComparison *self);

G_END_DECLS
