/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One document of the corpus in a list model: an immutable copy of its
 * SimStoreDocument.
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

G_END_DECLS
