/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Comparing two documents side by side, without a corpus: both texts with
 * the aligned passages highlighted in both, a list of the passages with
 * their similarity, and the same HTML/PDF export as a check. Clicking a
 * passage on one side scrolls the other side to it. The comparison runs in
 * a task thread (sim_compare_run()); the window never waits for it.
 */
#pragma once

#include <gtk/gtk.h>

#include "sim-report.h"

G_BEGIN_DECLS

#define SIM_TYPE_COMPARE_WINDOW (sim_compare_window_get_type ())
G_DECLARE_FINAL_TYPE (SimCompareWindow, sim_compare_window, SIM, COMPARE_WINDOW, GtkWindow)

typedef enum {
  SIM_COMPARE_SIDE_A,
  SIM_COMPARE_SIDE_B,
} SimCompareSide;

/* Reads and compares @a_path with @b_path in the background. */
SimCompareWindow *sim_compare_window_new            (GtkWindow        *parent,
                                                     const char       *a_path,
                                                     const char       *b_path);
/* Shows the comparison a class check already made of one of its pairs:
 * @report (A with B) and the @passages it counts (SimPassage: its
 * commonplaces left out), so the figure is the class list's. */
SimCompareWindow *sim_compare_window_new_for_pair   (GtkWindow        *parent,
                                                     const char       *a_path,
                                                     const char       *b_path,
                                                     SimReport        *report,
                                                     GArray           *passages,
                                                     const char       *b_text);
gboolean          sim_compare_window_is_busy        (SimCompareWindow *self);
/* The comparison (A the article, B its one source), or NULL (borrowed). */
SimReport        *sim_compare_window_get_report     (SimCompareWindow *self);
/* What a click at code point @offset of @side does: selects the passage
 * there and scrolls the other side to it. FALSE when no passage is there. */
gboolean          sim_compare_window_select_at      (SimCompareWindow *self,
                                                     SimCompareSide    side,
                                                     guint32           offset);
/* Selects passage @index and scrolls both sides to it. */
void              sim_compare_window_select_passage (SimCompareWindow *self,
                                                     guint             index);
GtkTextView      *sim_compare_window_get_view       (SimCompareWindow *self,
                                                     SimCompareSide    side);
const char       *sim_compare_window_get_summary    (SimCompareWindow *self);
guint             sim_compare_window_get_n_rows     (SimCompareWindow *self);

G_END_DECLS
