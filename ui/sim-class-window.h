/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * "Check a Class…": every pair of the documents in a folder that shares
 * passages (sim_cross_run in a task thread, nothing added to the store),
 * largest first, with both shares; each pair opens side by side in a
 * compare window. Files that cannot be read are listed with their reason.
 * Escape and Ctrl+W close; closing cancels.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SIM_TYPE_CLASS_WINDOW (sim_class_window_get_type ())
G_DECLARE_FINAL_TYPE (SimClassWindow, sim_class_window, SIM, CLASS_WINDOW, GtkWindow)

typedef enum {
  SIM_CLASS_SORT_CHARACTERS,  /* most shared text first (the default) */
  SIM_CLASS_SORT_SHARE,       /* the largest share of either document first */
  SIM_CLASS_SORT_NAME,
} SimClassSort;

/* Checks the documents of @folder against each other in a thread; what
 * they repeat of @template_text (the assignment's, or NULL) and what more
 * than a tenth of them share (sim_cross_max_holders()) is no match. */
GtkWidget  *sim_class_window_new         (GtkWindow      *parent,
                                          const char     *folder,
                                          const char     *template_text);
gboolean    sim_class_window_is_busy     (SimClassWindow *self);
/* Orders the pairs as the Sort by list does. */
void        sim_class_window_sort        (SimClassWindow *self,
                                          SimClassSort    sort);
/* Writes the pairs as Export… does: CSV for a name ending in .csv, else
 * the HTML page of `cross --html` (matrix and passages). */
gboolean    sim_class_window_export      (SimClassWindow *self,
                                          const char     *path,
                                          GError        **error);
guint       sim_class_window_get_n_pairs (SimClassWindow *self);
/* The row of pair @index as shown ("83% of a.docx ↔ 80% of b.txt …"). */
const char *sim_class_window_get_pair_text (SimClassWindow *self,
                                            guint           index);
/* Opens pair @index side by side, as its row's Compare button does. */
GtkWidget  *sim_class_window_compare_pair (SimClassWindow *self,
                                           guint           index);
const char *sim_class_window_get_summary (SimClassWindow *self);

G_END_DECLS
