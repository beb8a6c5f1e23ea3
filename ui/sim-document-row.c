/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "sim-document-row.h"

struct _SimDocumentRow {
  GObject           parent_instance;
  SimStoreDocument *doc; /* owned */
};

G_DEFINE_FINAL_TYPE (SimDocumentRow, sim_document_row, G_TYPE_OBJECT)

static void
sim_document_row_finalize (GObject *object)
{
  sim_store_document_free (SIM_DOCUMENT_ROW (object)->doc);
  G_OBJECT_CLASS (sim_document_row_parent_class)->finalize (object);
}

static void
sim_document_row_class_init (SimDocumentRowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sim_document_row_finalize;
}

static void
sim_document_row_init (SimDocumentRow *self)
{
}

SimDocumentRow *
sim_document_row_new (SimStoreDocument *doc)
{
  SimDocumentRow *self = g_object_new (SIM_TYPE_DOCUMENT_ROW, NULL);

  self->doc = doc;
  return self;
}

const SimStoreDocument *
sim_document_row_get_doc (SimDocumentRow *self)
{
  return self->doc;
}
