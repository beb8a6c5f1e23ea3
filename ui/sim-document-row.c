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

struct _SimFolderRow {
  GObject     parent_instance;
  char       *path;
  GListStore *documents;
  gint64      n_bytes;
  gint64      n_anchors;
  gint64      updated_at;
};

G_DEFINE_FINAL_TYPE (SimFolderRow, sim_folder_row, G_TYPE_OBJECT)

static void
sim_folder_row_finalize (GObject *object)
{
  SimFolderRow *self = SIM_FOLDER_ROW (object);

  g_free (self->path);
  g_clear_object (&self->documents);
  G_OBJECT_CLASS (sim_folder_row_parent_class)->finalize (object);
}

static void
sim_folder_row_class_init (SimFolderRowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sim_folder_row_finalize;
}

static void
sim_folder_row_init (SimFolderRow *self)
{
  self->documents = g_list_store_new (SIM_TYPE_DOCUMENT_ROW);
}

SimFolderRow *
sim_folder_row_new (const char *path)
{
  SimFolderRow *self = g_object_new (SIM_TYPE_FOLDER_ROW, NULL);

  self->path = g_strdup (path);
  return self;
}

const char *
sim_folder_row_get_path (SimFolderRow *self)
{
  return self->path;
}

void
sim_folder_row_add (SimFolderRow   *self,
                    SimDocumentRow *row)
{
  const SimStoreDocument *doc = sim_document_row_get_doc (row);

  g_list_store_append (self->documents, row);
  self->n_bytes += doc->n_bytes;
  self->n_anchors += doc->n_anchors;
  self->updated_at = MAX (self->updated_at, doc->updated_at);
}

GListModel *
sim_folder_row_get_documents (SimFolderRow *self)
{
  return G_LIST_MODEL (self->documents);
}

gint64
sim_folder_row_get_n_bytes (SimFolderRow *self)
{
  return self->n_bytes;
}

gint64
sim_folder_row_get_n_anchors (SimFolderRow *self)
{
  return self->n_anchors;
}

gint64
sim_folder_row_get_updated_at (SimFolderRow *self)
{
  return self->updated_at;
}
