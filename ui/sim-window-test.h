/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the window shows, read back for tests, screenshots and benchmarks:
 * not part of the window's interface.
 */
#pragma once

#include "sim-window.h"

G_BEGIN_DECLS

/* What the user sees, for tests, screenshots and benchmarks (borrowed). */
GtkTextBuffer *sim_window_get_buffer       (SimWindow  *self);
GtkWidget     *sim_window_get_editor       (SimWindow  *self);  /* a SimArticleView */
GtkWidget     *sim_window_get_check_button (SimWindow  *self);
struct _SimComparison *sim_window_get_comparison (SimWindow *self);
const char    *sim_window_get_summary      (SimWindow  *self);
/* The line of counts and ratios under the headline. */
const char    *sim_window_get_counts       (SimWindow  *self);
/* The sources list's rows as their screen readers read them ("Source 1:
 * lighthouse, 42.0% of the article"), one a line. (transfer full) */
char          *sim_window_dup_sources_said (SimWindow  *self);
const char    *sim_window_get_source_path  (SimWindow  *self);
GtkWidget     *sim_window_get_chart        (SimWindow  *self);
const char    *sim_window_get_page         (SimWindow  *self);
double      sim_window_get_progress   (SimWindow *self);
const char    *sim_window_get_progress_text (SimWindow *self);
/* The notice shown when the store may only be read, or NULL. */
const char    *sim_window_get_read_only_message (SimWindow *self);
GtkWidget     *sim_window_get_corpus_window (SimWindow *self); /* NULL unless open */

/* How many rows of controls the toolbar takes at its width. */
guint       sim_window_count_toolbar_rows (SimWindow *self);
/* Whether the text and the results share one view (a narrow window), and
 * which is shown: "text" or "results". */
gboolean    sim_window_is_folded      (SimWindow *self);
const char *sim_window_get_visible_view (SimWindow *self);

G_END_DECLS
