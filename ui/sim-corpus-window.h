/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The corpus manager: the documents of the store with their sizes, segments
 * and dates, where the store lives, and buttons to add and remove documents.
 * Adding goes through the parent window's actions (one import at a time,
 * with its progress and cancel) and, for dropped files, the "add-paths"
 * signal (a NULL-terminated array of paths); removing runs in a task thread.
 * It never calls its parent directly.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SIM_TYPE_CORPUS_WINDOW (sim_corpus_window_get_type ())
G_DECLARE_FINAL_TYPE (SimCorpusWindow, sim_corpus_window, SIM, CORPUS_WINDOW, GtkWindow)

/* @read_only: list the documents, offer no edits. */
GtkWidget *sim_corpus_window_new     (GtkWindow  *parent,
                                      const char *store_path,
                                      gboolean    read_only);
/* Reads the document list again (after an import). */
void       sim_corpus_window_reload  (SimCorpusWindow *self);
guint      sim_corpus_window_get_n_documents (SimCorpusWindow *self);

G_END_DECLS
