/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The source comparison of one flag: the article's passage and the
 * source's, each with a few sentences of context, the words they share in
 * the source's colour and what differs marked (sim-diff.h), the similarity
 * in plain words, the segment's other matches to switch between, and Open
 * Source. Built in code; main thread only.
 */
#pragma once

#include <gtk/gtk.h>

#include "sim-corpus.h"
#include "sim-report-view.h"

G_BEGIN_DECLS

#define SIM_TYPE_COMPARISON (sim_comparison_get_type ())
G_DECLARE_FINAL_TYPE (SimComparison, sim_comparison, SIM, COMPARISON, GtkBox)

/* Characters of context around each passage. */
#define SIM_COMPARISON_CONTEXT 160

GtkWidget  *sim_comparison_new        (void);
/* Shows match @match (0-based, best first) of segment @segment of @view's
 * report, with the figure the view gives its run (another match: that
 * match's own); the source's text comes from @snapshot (or only the matched
 * excerpt when the document is gone). */
void        sim_comparison_show       (SimComparison     *self,
                                       SimReportView     *view,
                                       SimCorpusSnapshot *snapshot,
                                       guint              segment,
                                       guint              match);
/* Opens the source shown, as its Open button does: the file in its
 * default application, else (no file, or nothing opens it) the text the
 * corpus keeps of it in a window of its own. */
void        sim_comparison_open_source (SimComparison    *self);
/* Shows @message instead of a comparison. */
void        sim_comparison_clear      (SimComparison     *self,
                                       const char        *message);

/* Whether the passages sit side by side (the comparison is wide enough for
 * both) rather than one above the other. */
gboolean    sim_comparison_is_side_by_side (SimComparison *self);

G_END_DECLS
