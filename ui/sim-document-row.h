/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The corpus manager's rows: one document (an immutable copy of its
 * SimStoreDocument) and one folder (the documents whose files lie in it,
 * with their totals). A folder's documents are a list model of document rows,
 * what a GtkTreeListModel expands it into.
 */
#pragma once

#include <gtk/gtk.h>

#include "sim-store.h"

G_BEGIN_DECLS

#define SIM_TYPE_DOCUMENT_ROW (sim_document_row_get_type ())
G_DECLARE_FINAL_TYPE (SimDocumentRow, sim_document_row, SIM, DOCUMENT_ROW, GObject)

/* Takes @doc. */
SimDocumentRow         *sim_document_row_new      (SimStoreDocument *doc);
const SimStoreDocument *sim_document_row_get_doc  (SimDocumentRow   *self);

#define SIM_TYPE_FOLDER_ROW (sim_folder_row_get_type ())
G_DECLARE_FINAL_TYPE (SimFolderRow, sim_folder_row, SIM, FOLDER_ROW, GObject)

SimFolderRow *sim_folder_row_new           (const char     *path);
const char   *sim_folder_row_get_path      (SimFolderRow   *self);
/* Appends @row and adds it to the totals. */
void          sim_folder_row_add           (SimFolderRow   *self,
                                            SimDocumentRow *row);
/* (element-type SimDocumentRow) */
GListModel   *sim_folder_row_get_documents (SimFolderRow   *self);
/* Totals over the folder's documents; updated_at is the latest. */
gint64        sim_folder_row_get_n_bytes   (SimFolderRow   *self);
gint64        sim_folder_row_get_n_anchors  (SimFolderRow  *self);
gint64        sim_folder_row_get_updated_at (SimFolderRow  *self);

G_END_DECLS
