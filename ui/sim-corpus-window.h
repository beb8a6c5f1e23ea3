/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The corpus manager: the documents of the store grouped by the folder their
 * files lie in, with search, sortable columns (name, file, size, segments,
 * date) and full paths in tooltips; a count of documents and text.
 *
 * Adding and re-scanning go through the parent window (one import at a time,
 * with its progress and cancel): the actions "win.add-documents" and
 * "win.add-files", and the signals "add-paths" (a NULL-terminated array of
 * dropped paths) and "rescan-folder" (a path). It never calls its parent
 * directly.
 *
 * Removing never loses a corpus by accident: Remove is enabled only with a
 * selection, asks first from SIM_CORPUS_WINDOW_CONFIRM_AT documents on, and
 * then only hides the documents behind an Undo toast; they leave the store
 * (in a task thread) when the toast goes away or the window closes. The
 * application is held until that removal is committed.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SIM_TYPE_CORPUS_WINDOW (sim_corpus_window_get_type ())
G_DECLARE_FINAL_TYPE (SimCorpusWindow, sim_corpus_window, SIM, CORPUS_WINDOW, GtkWindow)

#define SIM_CORPUS_WINDOW_CONFIRM_AT 10

/* @read_only: list the documents, offer no edits. */
GtkWidget *sim_corpus_window_new     (GtkWindow  *parent,
                                      const char *store_path,
                                      gboolean    read_only);
/* Reads the document list again (after an import). */
void       sim_corpus_window_reload  (SimCorpusWindow *self);
/* Whether a corpus server's list is still being read (on a thread). */
gboolean   sim_corpus_window_is_loading      (SimCorpusWindow *self);
/* Documents listed (matching the search, not waiting to be removed). */
guint      sim_corpus_window_get_n_documents (SimCorpusWindow *self);
guint      sim_corpus_window_get_n_folders   (SimCorpusWindow *self);
/* Shows only documents whose title or path contains @text (any case). */
void       sim_corpus_window_set_search      (SimCorpusWindow *self,
                                              const char      *text);
GtkSelectionModel *sim_corpus_window_get_selection (SimCorpusWindow *self);
/* The "Remove N documents?" question while it is open, else NULL. */
GtkWidget *sim_corpus_window_get_confirmation (SimCorpusWindow *self);
/* Removes now what waits behind Undo toasts. */
void       sim_corpus_window_commit_removals (SimCorpusWindow *self);
gboolean   sim_corpus_window_is_removing     (SimCorpusWindow *self);

G_END_DECLS
