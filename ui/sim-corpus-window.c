/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "sim-corpus.h"
#include "sim-document-row.h"
#include "sim-backend.h"
#include "sim-corpus-window.h"
#include "sim-keyring.h"

/* Documents hidden behind one Undo toast, until they are removed for good or
 * brought back. Shared by the window, the toast's handlers and the removal
 * task, so reference counted (g_rc_box). */
typedef struct {
  GWeakRef         window;      /* SimCorpusWindow */
  GWeakRef         parent;      /* its main window, told to reload */
  GApplication    *app;         /* held while the removal runs */
  char            *store_path;
  GStrv            ids;         /* document ids, as text */
  AdwToast        *toast;       /* owned; NULL once dismissed */
  gint64           toast_added; /* monotonic µs */
  gboolean         undone;
  gboolean         committed;
} RemovalBatch;

struct _SimCorpusWindow {
  GtkWindow          parent_instance;

  /* template children */
  AdwToastOverlay   *toast_overlay;
  GtkSearchEntry    *search_entry;
  GtkColumnView     *column_view;
  GtkLabel          *summary_label;
  GtkButton         *add_button;
  GtkButton         *add_files_button;
  GtkButton         *rescan_button;
  GtkButton         *remove_button;

  /* owned */
  char              *store_path;  /* a path or a corpus server's connection string */
  char              *shown_name;  /* what may be shown of it: no password */
  gboolean           read_only;  /* list only: the store may not be changed */
  guint              listing;    /* the latest reload of a server's list */
  gboolean           loading;    /* and it is being read */
  char              *error;      /* why the store cannot be read, or NULL */
  GPtrArray         *documents;  /* SimDocumentRow: every document of the store */
  GPtrArray         *keys;       /* casefolded "title\npath" of each, for the search */
  char              *search;     /* casefolded, or NULL */
  GHashTable        *pending;    /* ids (gint64 *) hidden behind an Undo toast */
  GPtrArray         *batches;    /* RemovalBatch, oldest first, not yet finished */
  GListStore        *folders;    /* SimFolderRow: what is shown */
  GtkTreeListModel  *tree;
  GtkMultiSelection *selection;
  GtkWidget         *confirmation;  /* weak */
  guint              n_shown;
  guint              n_removing;
};

G_DEFINE_FINAL_TYPE (SimCorpusWindow, sim_corpus_window, GTK_TYPE_WINDOW)

enum {
  ADD_PATHS,
  RESCAN_FOLDER,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

typedef enum {
  COLUMN_NAME,
  COLUMN_FILE,
  COLUMN_SIZE,
  COLUMN_ANCHORS,
  COLUMN_UPDATED,
} Column;

/* ---------------------------------------------------------------- cells */

static char *
format_date (gint64 unix_time)
{
  g_autoptr(GDateTime) dt = unix_time > 0 ? g_date_time_new_from_unix_local (unix_time) : NULL;

  return dt ? g_date_time_format (dt, "%x %H:%M") : g_strdup ("");
}

static char *
cell_text (GObject *item,
           Column   column)
{
  if (SIM_IS_FOLDER_ROW (item))
    {
      SimFolderRow *folder = SIM_FOLDER_ROW (item);
      const guint n = g_list_model_get_n_items (sim_folder_row_get_documents (folder));

      switch (column)
        {
        case COLUMN_NAME:
          return g_filename_display_name (sim_folder_row_get_path (folder));
        case COLUMN_FILE:
          return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u document", "%u documents", n), n);
        case COLUMN_SIZE:
          return g_format_size (sim_folder_row_get_n_bytes (folder));
        case COLUMN_ANCHORS:
          return g_strdup_printf ("%" G_GINT64_FORMAT, sim_folder_row_get_n_anchors (folder));
        case COLUMN_UPDATED:
        default:
          return format_date (sim_folder_row_get_updated_at (folder));
        }
    }
  else
    {
      const SimStoreDocument *doc = sim_document_row_get_doc (SIM_DOCUMENT_ROW (item));

      switch (column)
        {
        case COLUMN_NAME:
          return g_strdup (doc->title);
        case COLUMN_FILE:
          return g_filename_display_basename (doc->path);
        case COLUMN_SIZE:
          return g_format_size (doc->n_bytes);
        case COLUMN_ANCHORS:
          return g_strdup_printf ("%" G_GINT64_FORMAT, doc->n_anchors);
        case COLUMN_UPDATED:
        default:
          return format_date (doc->updated_at);
        }
    }
}

static const char *
item_path (GObject *item)
{
  return SIM_IS_FOLDER_ROW (item) ? sim_folder_row_get_path (SIM_FOLDER_ROW (item))
                                  : sim_document_row_get_doc (SIM_DOCUMENT_ROW (item))->path;
}

static void
setup_cell (GtkSignalListItemFactory *factory,
            GtkListItem              *item,
            gpointer                  user_data)
{
  const Column column = GPOINTER_TO_INT (user_data);
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), column == COLUMN_ANCHORS || column == COLUMN_SIZE ? 1 : 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  if (column == COLUMN_NAME)
    {
      GtkWidget *expander = gtk_tree_expander_new ();
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);

      gtk_box_append (GTK_BOX (box), gtk_image_new ());
      gtk_box_append (GTK_BOX (box), label);
      gtk_tree_expander_set_child (GTK_TREE_EXPANDER (expander), box);
      gtk_list_item_set_child (item, expander);
    }
  else
    gtk_list_item_set_child (item, label);
}

static void
bind_cell (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           gpointer                  user_data)
{
  const Column column = GPOINTER_TO_INT (user_data);
  GtkTreeListRow *row = gtk_list_item_get_item (item);
  GObject *object = gtk_tree_list_row_get_item (row);
  g_autofree char *text = cell_text (object, column);
  g_autofree char *tooltip = g_filename_display_name (item_path (object));
  GtkWidget *child = gtk_list_item_get_child (item);
  GtkWidget *label = child;

  if (column == COLUMN_NAME)
    {
      GtkWidget *box = gtk_tree_expander_get_child (GTK_TREE_EXPANDER (child));
      const gboolean folder = SIM_IS_FOLDER_ROW (object);

      gtk_tree_expander_set_list_row (GTK_TREE_EXPANDER (child), row);
      gtk_image_set_from_icon_name (GTK_IMAGE (gtk_widget_get_first_child (box)),
                                    folder ? "folder-symbolic" : "text-x-generic-symbolic");
      label = gtk_widget_get_last_child (box);
      /* A folder's path is told apart by its end. */
      gtk_label_set_ellipsize (GTK_LABEL (label), folder ? PANGO_ELLIPSIZE_START : PANGO_ELLIPSIZE_END);
    }
  gtk_label_set_text (GTK_LABEL (label), text);
  gtk_widget_set_tooltip_text (child, tooltip);
  g_object_unref (object);
}

/* ---------------------------------------------------------------- sorting */

static int
compare_items (gconstpointer a,
               gconstpointer b,
               gpointer      user_data)
{
  const Column column = GPOINTER_TO_INT (user_data);
  GObject *x = (GObject *) a, *y = (GObject *) b;
  gint64 u = 0, v = 0;

  if (column == COLUMN_NAME || column == COLUMN_FILE)
    {
      g_autofree char *s = cell_text (x, column);
      g_autofree char *t = cell_text (y, column);
      g_autofree char *ks = g_utf8_collate_key_for_filename (s, -1);
      g_autofree char *kt = g_utf8_collate_key_for_filename (t, -1);

      return strcmp (ks, kt);
    }
  if (SIM_IS_FOLDER_ROW (x) && SIM_IS_FOLDER_ROW (y))
    {
      SimFolderRow *f = SIM_FOLDER_ROW (x), *g = SIM_FOLDER_ROW (y);

      u = column == COLUMN_SIZE ? sim_folder_row_get_n_bytes (f)
          : column == COLUMN_ANCHORS ? sim_folder_row_get_n_anchors (f) : sim_folder_row_get_updated_at (f);
      v = column == COLUMN_SIZE ? sim_folder_row_get_n_bytes (g)
          : column == COLUMN_ANCHORS ? sim_folder_row_get_n_anchors (g) : sim_folder_row_get_updated_at (g);
    }
  else if (SIM_IS_DOCUMENT_ROW (x) && SIM_IS_DOCUMENT_ROW (y))
    {
      const SimStoreDocument *d = sim_document_row_get_doc (SIM_DOCUMENT_ROW (x));
      const SimStoreDocument *e = sim_document_row_get_doc (SIM_DOCUMENT_ROW (y));

      u = column == COLUMN_SIZE ? d->n_bytes : column == COLUMN_ANCHORS ? d->n_anchors : d->updated_at;
      v = column == COLUMN_SIZE ? e->n_bytes : column == COLUMN_ANCHORS ? e->n_anchors : e->updated_at;
    }
  return (u > v) - (u < v);
}

static GtkColumnViewColumn *
add_column (SimCorpusWindow *self,
            const char      *title,
            Column           column,
            gboolean         expand)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  GtkColumnViewColumn *col;
  GtkSorter *sorter = GTK_SORTER (gtk_custom_sorter_new (compare_items, GINT_TO_POINTER (column), NULL));

  g_signal_connect (factory, "setup", G_CALLBACK (setup_cell), GINT_TO_POINTER (column));
  g_signal_connect (factory, "bind", G_CALLBACK (bind_cell), GINT_TO_POINTER (column));
  col = gtk_column_view_column_new (title, factory);
  gtk_column_view_column_set_expand (col, expand);
  gtk_column_view_column_set_resizable (col, TRUE);
  gtk_column_view_column_set_sorter (col, sorter);
  g_object_unref (sorter);
  gtk_column_view_append_column (self->column_view, col);
  g_object_unref (col);
  return col;
}

/* ------------------------------------------------------------ the listing */

static GListModel *
create_children (gpointer item,
                 gpointer user_data)
{
  return SIM_IS_FOLDER_ROW (item) ? g_object_ref (sim_folder_row_get_documents (SIM_FOLDER_ROW (item))) : NULL;
}

static void
update_actions (SimCorpusWindow *self)
{
  g_autoptr(GtkBitset) selected = gtk_selection_model_get_selection (GTK_SELECTION_MODEL (self->selection));
  gboolean can_undo = FALSE;

  for (guint i = 0; i < self->batches->len; i++)
    {
      const RemovalBatch *batch = g_ptr_array_index (self->batches, i);

      can_undo |= !batch->committed && !batch->undone;
    }
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "corpus.remove", !self->read_only && !gtk_bitset_is_empty (selected));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "corpus.rescan", !self->read_only && !gtk_bitset_is_empty (selected));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "corpus.undo", can_undo);
}

static void
update_summary (SimCorpusWindow *self)
{
  gint64 n_bytes = 0, n_anchors = 0;
  g_autofree char *size = NULL;
  g_autofree char *counts = NULL;
  g_autofree char *summary = NULL;
  const guint n_folders = g_list_model_get_n_items (G_LIST_MODEL (self->folders));

  for (guint i = 0; i < n_folders; i++)
    {
      g_autoptr(SimFolderRow) folder = g_list_model_get_item (G_LIST_MODEL (self->folders), i);

      n_bytes += sim_folder_row_get_n_bytes (folder);
      n_anchors += sim_folder_row_get_n_anchors (folder);
    }
  size = g_format_size (n_bytes);
  {
    g_autofree char *docs = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u document", "%u documents",
                                                          self->n_shown), self->n_shown);
    g_autofree char *folders = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u folder", "%u folders", n_folders),
                                                n_folders);

    /* TRANSLATORS: "12 documents in 3 folders, 1.2 MB, 3400 anchors" */
    counts = g_strdup_printf (_("%s in %s, %s, %lld anchors"), docs, folders, size, (long long) n_anchors);
  }
  if (self->error != NULL)
    summary = g_strdup_printf (_("The store %s cannot be read: %s"), self->shown_name, self->error);
  else if (self->search != NULL)
    summary = g_strdup_printf (_("%s match the search — stored in %s"), counts, self->shown_name);
  else if (self->read_only && sim_store_location_is_server (self->store_path))
    summary = g_strdup_printf (_("%s — on the corpus server %s; this account may check against them, not add or "
                                 "remove documents"), counts, self->shown_name);
  else if (self->read_only)
    summary = g_strdup_printf (_("%s — stored in %s, which is read-only: documents cannot be added or removed"),
                               counts, self->shown_name);
  else
    summary = g_strdup_printf (_("%s — stored in %s"), counts, self->shown_name);
  gtk_label_set_text (self->summary_label, summary);
}

/* Groups the documents that match the search and are not waiting to be
 * removed by folder, keeping expanded folders expanded. */
static void
rebuild (SimCorpusWindow *self)
{
  g_autoptr(GHashTable) by_path = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_object_unref);
  g_autoptr(GHashTable) expanded = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GPtrArray) folders = g_ptr_array_new ();
  const guint n_rows = g_list_model_get_n_items (G_LIST_MODEL (self->tree));

  for (guint i = 0; i < n_rows; i++)
    {
      g_autoptr(GtkTreeListRow) row = gtk_tree_list_model_get_row (self->tree, i);
      g_autoptr(GObject) item = gtk_tree_list_row_get_item (row);

      if (SIM_IS_FOLDER_ROW (item) && gtk_tree_list_row_get_expanded (row))
        g_hash_table_add (expanded, g_strdup (sim_folder_row_get_path (SIM_FOLDER_ROW (item))));
    }
  self->n_shown = 0;
  for (guint i = 0; i < self->documents->len; i++)
    {
      SimDocumentRow *row = g_ptr_array_index (self->documents, i);
      const SimStoreDocument *doc = sim_document_row_get_doc (row);
      g_autofree char *dir = NULL;
      SimFolderRow *folder;

      if (g_hash_table_contains (self->pending, &doc->id) ||
          (self->search != NULL && strstr (g_ptr_array_index (self->keys, i), self->search) == NULL))
        continue;
      dir = g_path_get_dirname (doc->path);
      folder = g_hash_table_lookup (by_path, dir);
      if (folder == NULL)
        {
          folder = sim_folder_row_new (dir);
          g_hash_table_insert (by_path, g_strdup (dir), folder);
          g_ptr_array_add (folders, folder);
        }
      sim_folder_row_add (folder, row);
      self->n_shown++;
    }
  /* One folder, or a search, opens what it shows. */
  gtk_tree_list_model_set_autoexpand (self->tree, self->search != NULL || folders->len == 1);
  g_list_store_splice (self->folders, 0, g_list_model_get_n_items (G_LIST_MODEL (self->folders)),
                       folders->pdata, folders->len);
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (self->tree)); i++)
    {
      g_autoptr(GtkTreeListRow) row = gtk_tree_list_model_get_row (self->tree, i);
      g_autoptr(GObject) item = gtk_tree_list_row_get_item (row);

      if (SIM_IS_FOLDER_ROW (item) && g_hash_table_contains (expanded, sim_folder_row_get_path (SIM_FOLDER_ROW (item))))
        gtk_tree_list_row_set_expanded (row, TRUE);
    }
  update_summary (self);
  update_actions (self);
}

/* Shows @docs (or @error) as the store's documents. */
static void
populate (SimCorpusWindow *self,
          GPtrArray       *docs,
          const GError    *error)
{
  g_ptr_array_set_size (self->documents, 0);
  g_ptr_array_set_size (self->keys, 0);
  for (guint i = 0; docs != NULL && i < docs->len; i++)
    {
      SimStoreDocument *doc = g_ptr_array_index (docs, i);
      g_autofree char *key = g_strconcat (doc->title, "\n", doc->path, NULL);

      g_ptr_array_add (self->keys, g_utf8_casefold (key, -1));
      g_ptr_array_index (docs, i) = NULL;
      g_ptr_array_add (self->documents, sim_document_row_new (doc));
    }
  g_clear_pointer (&self->error, g_free);
  if (error != NULL)
    self->error = g_strdup (error->message);
  rebuild (self);
}

/* A corpus server's list, read on a thread (sim_backend_list()). */
static void
list_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  GError *error = NULL;
  g_autoptr(SimBackend) backend = sim_keyring_open_backend (task_data, TRUE, &error);
  GPtrArray *docs = backend ? sim_backend_list (backend, &error) : NULL;

  if (docs == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  /* The server as a message names it: host:port/database. */
  g_object_set_data_full (G_OBJECT (task), "name", g_strdup (sim_backend_get_name (backend)), g_free);
  g_task_return_pointer (task, docs, (GDestroyNotify) g_ptr_array_unref);
}

static void
on_listed (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  SimCorpusWindow *self = SIM_CORPUS_WINDOW (source);
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) docs = g_task_propagate_pointer (G_TASK (result), &error);

  /* A later reload's answer is the one to show. */
  if (gtk_widget_in_destruction (GTK_WIDGET (self)) ||
      GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (result), "listing")) != self->listing)
    return;
  self->loading = FALSE;
  if (g_object_get_data (G_OBJECT (result), "name") != NULL)
    {
      g_free (self->shown_name);
      self->shown_name = g_strdup (g_object_get_data (G_OBJECT (result), "name"));
    }
  populate (self, docs, error);
}

void
sim_corpus_window_reload (SimCorpusWindow *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimStore) store = NULL;
  g_autoptr(GPtrArray) docs = NULL;

  if (sim_store_location_is_server (self->store_path))
    {
      g_autoptr(GTask) task = g_task_new (self, NULL, on_listed, NULL);

      g_task_set_task_data (task, g_strdup (self->store_path), g_free);
      g_object_set_data (G_OBJECT (task), "listing", GUINT_TO_POINTER (++self->listing));
      self->loading = TRUE;
      g_task_run_in_thread (task, list_thread);
      return;
    }
  /* A local store's list, read here: it is quick, and opening the store
   * read-only makes none where there is none. */
  if (g_file_test (self->store_path, G_FILE_TEST_EXISTS))
    store = sim_store_open (self->store_path, TRUE, &error);
  if (store != NULL)
    docs = sim_store_list (store, &error);
  populate (self, docs, error);
}

/* Whether a server's list is still being read. */
gboolean
sim_corpus_window_is_loading (SimCorpusWindow *self)
{
  return self->loading;
}

guint
sim_corpus_window_get_n_documents (SimCorpusWindow *self)
{
  return self->n_shown;
}

guint
sim_corpus_window_get_n_folders (SimCorpusWindow *self)
{
  return g_list_model_get_n_items (G_LIST_MODEL (self->folders));
}

static void
apply_search (SimCorpusWindow *self,
              const char      *text)
{
  g_autofree char *stripped = g_strstrip (g_strdup (text ? text : ""));
  g_autofree char *search = *stripped ? g_utf8_casefold (stripped, -1) : NULL;

  /* The entry reports a search set by code again, later: same search,
   * same list, and the selection stays. */
  if (g_strcmp0 (search, self->search) == 0)
    return;
  g_free (self->search);
  self->search = g_steal_pointer (&search);
  rebuild (self);
}

void
sim_corpus_window_set_search (SimCorpusWindow *self,
                              const char      *text)
{
  gtk_editable_set_text (GTK_EDITABLE (self->search_entry), text);
  apply_search (self, text);
}

static void
on_search_changed (GtkSearchEntry  *entry,
                   SimCorpusWindow *self)
{
  apply_search (self, gtk_editable_get_text (GTK_EDITABLE (entry)));
}

GtkSelectionModel *
sim_corpus_window_get_selection (SimCorpusWindow *self)
{
  return GTK_SELECTION_MODEL (self->selection);
}

GtkWidget *
sim_corpus_window_get_confirmation (SimCorpusWindow *self)
{
  return self->confirmation;
}

gboolean
sim_corpus_window_is_removing (SimCorpusWindow *self)
{
  return self->n_removing > 0;
}

static void
on_selection_changed (GtkSelectionModel *model,
                      guint              position,
                      guint              n_items,
                      SimCorpusWindow   *self)
{
  update_actions (self);
}

/* The selected documents, a folder standing for the documents it shows;
 * each once. (element-type gint64) */
static GArray *
selected_ids (SimCorpusWindow *self)
{
  g_autoptr(GtkBitset) selected = gtk_selection_model_get_selection (GTK_SELECTION_MODEL (self->selection));
  g_autoptr(GHashTable) seen = g_hash_table_new (g_int64_hash, g_int64_equal);
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  GtkBitsetIter iter;
  guint position;

  for (gboolean ok = gtk_bitset_iter_init_first (&iter, selected, &position); ok;
       ok = gtk_bitset_iter_next (&iter, &position))
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (self->selection), position);
      g_autoptr(GObject) item = gtk_tree_list_row_get_item (row);
      GListModel *docs = SIM_IS_FOLDER_ROW (item) ? sim_folder_row_get_documents (SIM_FOLDER_ROW (item)) : NULL;
      const guint n = docs ? g_list_model_get_n_items (docs) : 1;

      for (guint i = 0; i < n; i++)
        {
          g_autoptr(SimDocumentRow) doc = docs ? g_list_model_get_item (docs, i) : g_object_ref (SIM_DOCUMENT_ROW (item));
          const SimStoreDocument *d = sim_document_row_get_doc (doc);

          /* Keys point into the rows, which self->documents keeps alive. */
          if (g_hash_table_add (seen, (gpointer) &d->id))
            g_array_append_val (ids, d->id);
        }
    }
  return ids;
}

/* ---------------------------------------------------------------- removal */

static void
removal_batch_clear (gpointer data)
{
  RemovalBatch *batch = data;

  g_clear_object (&batch->toast);
  g_weak_ref_clear (&batch->window);
  g_weak_ref_clear (&batch->parent);
  g_free (batch->store_path);
  g_strfreev (batch->ids);
}

static void
removal_batch_unref (gpointer batch)
{
  g_rc_box_release_full (batch, removal_batch_clear);
}

static void
removal_batch_closure_unref (gpointer  batch,
                             GClosure *closure)
{
  removal_batch_unref (batch);
}

/* The batch is done with (removed or brought back): its documents are no
 * longer pending. */
static void
finish_batch (SimCorpusWindow *self,
              RemovalBatch    *batch)
{
  for (guint i = 0; batch->ids[i] != NULL; i++)
    {
      const gint64 id = g_ascii_strtoll (batch->ids[i], NULL, 10);

      g_hash_table_remove (self->pending, &id);
    }
  g_ptr_array_remove (self->batches, batch);
}

static void
removal_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  RemovalBatch *batch = task_data;
  GError *error = NULL;
  g_autoptr(SimBackend) backend = sim_keyring_open_backend (batch->store_path, FALSE, &error);
  guint n_removed = 0;

  if (backend == NULL || !sim_backend_remove (backend, (const char *const *) batch->ids, &n_removed, &error))
    g_task_return_error (task, error);
  else
    g_task_return_int (task, n_removed);
}

static void
on_batch_removed (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  RemovalBatch *batch = g_task_get_task_data (G_TASK (result));
  g_autoptr(SimCorpusWindow) self = g_weak_ref_get (&batch->window);
  g_autoptr(GtkWidget) parent = g_weak_ref_get (&batch->parent);
  g_autoptr(GError) error = NULL;

  g_task_propagate_int (G_TASK (result), &error);
  if (self != NULL && !gtk_widget_in_destruction (GTK_WIDGET (self)))
    {
      self->n_removing--;
      finish_batch (self, batch);
      sim_corpus_window_reload (self);
      if (error != NULL)
        {
          GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), _("The documents could not be removed"),
                                                      error->message);

          adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
          gtk_window_present (GTK_WINDOW (dialog));
        }
    }
  else if (error != NULL)
    g_warning ("The documents could not be removed: %s", error->message);
  /* The main window's snapshot must follow. */
  if (parent != NULL && !gtk_widget_in_destruction (parent))
    gtk_widget_activate_action (parent, "win.reload-corpus", NULL);
  if (batch->app != NULL)
    g_application_release (batch->app);
}

static void
commit_batch (RemovalBatch *batch)
{
  g_autoptr(SimCorpusWindow) self = g_weak_ref_get (&batch->window);
  g_autoptr(GTask) task = NULL;

  if (batch->committed || batch->undone)
    return;
  batch->committed = TRUE;
  if (self != NULL)
    {
      self->n_removing++;
      update_actions (self);
    }
  /* The removal outlives the window; the application stays until it is done. */
  if (batch->app != NULL)
    g_application_hold (batch->app);
  task = g_task_new (NULL, NULL, on_batch_removed, NULL);
  g_task_set_task_data (task, g_rc_box_acquire (batch), removal_batch_unref);
  g_task_run_in_thread (task, removal_thread);
}

/* libadwaita 1.2 frees a toast dismissed during its entrance animation
 * while the animation still refers to it (a crash when the window then
 * unmaps): a toast is dismissed by code only once it is fully in. */
#define TOAST_SETTLED_US (600 * G_TIME_SPAN_MILLISECOND)

static gboolean
dismiss_toast_cb (gpointer data)
{
  RemovalBatch *batch = data;

  if (batch->toast != NULL)
    adw_toast_dismiss (batch->toast);
  return G_SOURCE_REMOVE;
}

static void
dismiss_toast (RemovalBatch *batch)
{
  const gint64 wait = batch->toast_added + TOAST_SETTLED_US - g_get_monotonic_time ();

  if (batch->toast == NULL)
    return;
  if (wait <= 0)
    adw_toast_dismiss (batch->toast);
  else
    g_timeout_add_full (G_PRIORITY_DEFAULT, wait / 1000 + 1, dismiss_toast_cb,
                        g_rc_box_acquire (batch), removal_batch_unref);
}

static void
undo_batch (RemovalBatch *batch)
{
  g_autoptr(SimCorpusWindow) self = g_weak_ref_get (&batch->window);

  if (batch->committed || batch->undone)
    return;
  batch->undone = TRUE;
  dismiss_toast (batch);
  if (self != NULL)
    {
      finish_batch (self, batch);
      rebuild (self);
    }
}

static void
on_toast_undo (AdwToast *toast,
               gpointer  batch)
{
  undo_batch (batch);
}

static void
on_toast_dismissed (AdwToast *toast,
                    gpointer  data)
{
  RemovalBatch *batch = data;

  g_clear_object (&batch->toast);
  commit_batch (batch);
}

/* Hides @ids behind an Undo toast; they are removed when it goes away. */
static void
remove_with_undo (SimCorpusWindow *self,
                  GArray          *ids)
{
  RemovalBatch *batch = g_rc_box_new0 (RemovalBatch);
  GtkWindow *parent = gtk_window_get_transient_for (GTK_WINDOW (self));
  GtkApplication *app = parent ? gtk_window_get_application (parent) : gtk_window_get_application (GTK_WINDOW (self));
  GStrvBuilder *builder = g_strv_builder_new ();
  g_autofree char *title = NULL;
  AdwToast *toast;

  g_weak_ref_init (&batch->window, self);
  g_weak_ref_init (&batch->parent, parent);
  batch->app = app ? G_APPLICATION (app) : NULL;
  batch->store_path = g_strdup (self->store_path);
  for (guint i = 0; i < ids->len; i++)
    {
      g_autofree char *id = g_strdup_printf ("%" G_GINT64_FORMAT, g_array_index (ids, gint64, i));
      gint64 *key = g_new (gint64, 1);

      *key = g_array_index (ids, gint64, i);
      g_hash_table_add (self->pending, key);
      g_strv_builder_add (builder, id);
    }
  batch->ids = g_strv_builder_end (builder);
  g_strv_builder_unref (builder);
  g_ptr_array_add (self->batches, batch);
  gtk_selection_model_unselect_all (GTK_SELECTION_MODEL (self->selection));
  rebuild (self);

  title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u document removed from the corpus",
                                        "%u documents removed from the corpus", ids->len), ids->len);
  toast = adw_toast_new (title);
  adw_toast_set_button_label (toast, _("_Undo"));
  adw_toast_set_timeout (toast, 10);
  adw_toast_set_priority (toast, ADW_TOAST_PRIORITY_HIGH);
  g_signal_connect_data (toast, "button-clicked", G_CALLBACK (on_toast_undo),
                         g_rc_box_acquire (batch), removal_batch_closure_unref, 0);
  g_signal_connect_data (toast, "dismissed", G_CALLBACK (on_toast_dismissed),
                         g_rc_box_acquire (batch), removal_batch_closure_unref, 0);
  batch->toast = g_object_ref (toast);
  batch->toast_added = g_get_monotonic_time ();
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
}

typedef struct {
  SimCorpusWindow *self;
  GArray          *ids;
} Confirm;

static void
on_confirm_response (AdwMessageDialog *dialog,
                     const char       *response,
                     gpointer          data)
{
  Confirm *confirm = data;
  SimCorpusWindow *self = confirm->self;

  /* The question is answered: the dialog closes after this. */
  if (self->confirmation != NULL)
    {
      g_object_remove_weak_pointer (G_OBJECT (self->confirmation), (gpointer *) &self->confirmation);
      self->confirmation = NULL;
    }
  if (g_str_equal (response, "remove") && !gtk_widget_in_destruction (GTK_WIDGET (self)))
    remove_with_undo (self, confirm->ids);
}

static void
confirm_free (gpointer  data,
              GClosure *closure)
{
  Confirm *confirm = data;

  g_array_unref (confirm->ids);
  g_free (confirm);
}

static void
remove_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  SimCorpusWindow *self = SIM_CORPUS_WINDOW (widget);
  g_autoptr(GArray) ids = selected_ids (self);
  g_autofree char *heading = NULL;
  Confirm *confirm;
  GtkWidget *dialog;

  if (self->read_only || ids->len == 0 || self->confirmation != NULL)
    return;
  if (ids->len < SIM_CORPUS_WINDOW_CONFIRM_AT)
    {
      remove_with_undo (self, ids);
      return;
    }
  heading = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Remove %u document from the corpus?",
                                          "Remove %u documents from the corpus?", ids->len), ids->len);
  dialog = adw_message_dialog_new (GTK_WINDOW (self), heading,
                                   _("Their text leaves the corpus; the files themselves are not touched. "
                                     "Until the notice at the bottom goes away, Undo brings them back."));
  adw_message_dialog_add_responses (ADW_MESSAGE_DIALOG (dialog), "cancel", _("_Cancel"), "remove", _("_Remove"), NULL);
  adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "remove", ADW_RESPONSE_DESTRUCTIVE);
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  adw_message_dialog_set_close_response (ADW_MESSAGE_DIALOG (dialog), "cancel");
  confirm = g_new0 (Confirm, 1);
  confirm->self = self;
  confirm->ids = g_array_ref (ids);
  g_signal_connect_data (dialog, "response", G_CALLBACK (on_confirm_response), confirm, confirm_free, 0);
  self->confirmation = dialog;
  g_object_add_weak_pointer (G_OBJECT (dialog), (gpointer *) &self->confirmation);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
undo_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  SimCorpusWindow *self = SIM_CORPUS_WINDOW (widget);

  for (guint i = self->batches->len; i-- > 0;)
    {
      RemovalBatch *batch = g_ptr_array_index (self->batches, i);

      if (!batch->committed && !batch->undone)
        {
          undo_batch (batch);
          return;
        }
    }
}

void
sim_corpus_window_commit_removals (SimCorpusWindow *self)
{
  g_autoptr(GPtrArray) batches = g_ptr_array_new_with_free_func (removal_batch_unref);

  /* Committing finishes batches, which takes them out of self->batches. */
  for (guint i = 0; i < self->batches->len; i++)
    g_ptr_array_add (batches, g_rc_box_acquire (g_ptr_array_index (self->batches, i)));
  for (guint i = 0; i < batches->len; i++)
    {
      RemovalBatch *batch = g_ptr_array_index (batches, i);

      commit_batch (batch);
      dismiss_toast (batch);
    }
}

/* Re-scans the folders of the selection through whoever runs imports. */
static void
rescan_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  SimCorpusWindow *self = SIM_CORPUS_WINDOW (widget);
  g_autoptr(GtkBitset) selected = gtk_selection_model_get_selection (GTK_SELECTION_MODEL (self->selection));
  g_autoptr(GHashTable) folders = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GtkBitsetIter iter;
  guint position;

  for (gboolean ok = gtk_bitset_iter_init_first (&iter, selected, &position); ok;
       ok = gtk_bitset_iter_next (&iter, &position))
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (self->selection), position);
      g_autoptr(GObject) item = gtk_tree_list_row_get_item (row);

      g_hash_table_add (folders, SIM_IS_FOLDER_ROW (item) ? g_strdup (item_path (item)) : g_path_get_dirname (item_path (item)));
    }
  /* One import at a time: the main window takes the first, the others
   * wait for a new click. */
  if (g_hash_table_size (folders) > 0)
    {
      g_autofree char **paths = (char **) g_hash_table_get_keys_as_array (folders, NULL);

      g_signal_emit (self, signals[RESCAN_FOLDER], 0, paths[0]);
    }
}

/* Imports belong to the main window: one at a time, with its progress bar. */
static void
on_add_clicked (SimCorpusWindow *self)
{
  GtkWindow *parent = gtk_window_get_transient_for (GTK_WINDOW (self));

  if (parent)
    gtk_widget_activate_action (GTK_WIDGET (parent), "win.add-documents", NULL);
}

static void
on_add_files_clicked (SimCorpusWindow *self)
{
  GtkWindow *parent = gtk_window_get_transient_for (GTK_WINDOW (self));

  if (parent)
    gtk_widget_activate_action (GTK_WIDGET (parent), "win.add-files", NULL);
}

static gboolean
on_drop (GtkDropTarget   *target,
         const GValue    *value,
         double           x,
         double           y,
         SimCorpusWindow *self)
{
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);

  if (self->read_only)
    return FALSE;
  for (GSList *l = g_value_get_boxed (value); l; l = l->next)
    {
      char *path = g_file_get_path (l->data);

      if (path)
        g_ptr_array_add (paths, path);
    }
  if (paths->len == 0)
    return FALSE;
  g_ptr_array_add (paths, NULL);
  g_signal_emit (self, signals[ADD_PATHS], 0, (const char *const *) paths->pdata);
  return TRUE;
}

static void
sim_corpus_window_dispose (GObject *object)
{
  SimCorpusWindow *self = SIM_CORPUS_WINDOW (object);

  /* Closing the window is not an undo: what was removed goes. */
  if (self->batches != NULL)
    sim_corpus_window_commit_removals (self);
  if (self->confirmation != NULL)
    gtk_window_destroy (GTK_WINDOW (self->confirmation));
  g_clear_object (&self->selection);
  g_clear_object (&self->tree);
  g_clear_object (&self->folders);
  g_clear_pointer (&self->documents, g_ptr_array_unref);
  g_clear_pointer (&self->keys, g_ptr_array_unref);
  g_clear_pointer (&self->batches, g_ptr_array_unref);
  G_OBJECT_CLASS (sim_corpus_window_parent_class)->dispose (object);
}

static void
sim_corpus_window_finalize (GObject *object)
{
  SimCorpusWindow *self = SIM_CORPUS_WINDOW (object);

  g_free (self->store_path);
  g_free (self->shown_name);
  g_free (self->error);
  g_free (self->search);
  g_hash_table_unref (self->pending);
  G_OBJECT_CLASS (sim_corpus_window_parent_class)->finalize (object);
}

static void
sim_corpus_window_class_init (SimCorpusWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sim_corpus_window_dispose;
  object_class->finalize = sim_corpus_window_finalize;
  /* Files dropped on the window: whoever runs imports adds them. */
  signals[ADD_PATHS] = g_signal_new ("add-paths", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                     NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRV);
  /* A folder to bring in step with the store (sim_corpus_rescan). */
  signals[RESCAN_FOLDER] = g_signal_new ("rescan-folder", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                         NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  g_type_ensure (ADW_TYPE_TOAST_OVERLAY);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/simhound/Simhound/ui/sim-corpus-window.ui");
  gtk_widget_class_bind_template_child (widget_class, SimCorpusWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, SimCorpusWindow, search_entry);
  gtk_widget_class_bind_template_child (widget_class, SimCorpusWindow, column_view);
  gtk_widget_class_bind_template_child (widget_class, SimCorpusWindow, summary_label);
  gtk_widget_class_bind_template_child (widget_class, SimCorpusWindow, add_button);
  gtk_widget_class_bind_template_child (widget_class, SimCorpusWindow, add_files_button);
  gtk_widget_class_bind_template_child (widget_class, SimCorpusWindow, rescan_button);
  gtk_widget_class_bind_template_child (widget_class, SimCorpusWindow, remove_button);
  gtk_widget_class_bind_template_callback (widget_class, on_add_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_add_files_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_search_changed);
  gtk_widget_class_install_action (widget_class, "corpus.remove", NULL, remove_action);
  gtk_widget_class_install_action (widget_class, "corpus.undo", NULL, undo_action);
  gtk_widget_class_install_action (widget_class, "corpus.rescan", NULL, rescan_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Delete, 0, "corpus.remove", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_z, GDK_CONTROL_MASK, "corpus.undo", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "window.close", NULL);
}

static void
sim_corpus_window_init (SimCorpusWindow *self)
{
  GtkColumnViewColumn *name;
  GtkSorter *sorter;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->documents = g_ptr_array_new_with_free_func (g_object_unref);
  self->keys = g_ptr_array_new_with_free_func (g_free);
  self->pending = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->batches = g_ptr_array_new_with_free_func (removal_batch_unref);
  self->folders = g_list_store_new (SIM_TYPE_FOLDER_ROW);
  self->tree = gtk_tree_list_model_new (G_LIST_MODEL (g_object_ref (self->folders)), FALSE, FALSE,
                                        create_children, NULL, NULL);
  name = add_column (self, _("Name"), COLUMN_NAME, TRUE);
  add_column (self, _("File"), COLUMN_FILE, TRUE);
  add_column (self, _("Size"), COLUMN_SIZE, FALSE);
  add_column (self, _("Anchors"), COLUMN_ANCHORS, FALSE);
  add_column (self, _("Updated"), COLUMN_UPDATED, FALSE);
  /* Sorting orders the folders, and the documents within each folder. */
  sorter = GTK_SORTER (gtk_tree_list_row_sorter_new (g_object_ref (gtk_column_view_get_sorter (self->column_view))));
  self->selection = gtk_multi_selection_new (G_LIST_MODEL (gtk_sort_list_model_new (G_LIST_MODEL (g_object_ref (self->tree)),
                                                                                     sorter)));
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->selection));
  gtk_column_view_sort_by_column (self->column_view, name, GTK_SORT_ASCENDING);
  g_signal_connect (self->selection, "selection-changed", G_CALLBACK (on_selection_changed), self);
  gtk_search_entry_set_key_capture_widget (self->search_entry, GTK_WIDGET (self));
  {
    GtkDropTarget *drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);

    g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
    gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));
  }
}

GtkWidget *
sim_corpus_window_new (GtkWindow  *parent,
                       const char *store_path,
                       gboolean    read_only)
{
  SimCorpusWindow *self = g_object_new (SIM_TYPE_CORPUS_WINDOW, "transient-for", parent, NULL);

  self->store_path = g_strdup (store_path);
  self->shown_name = sim_store_location_redact (store_path);
  self->read_only = read_only;
  /* An account or a store that may not change the corpus sees no Add,
   * Re-scan or Remove. */
  gtk_widget_set_visible (GTK_WIDGET (self->add_button), !read_only);
  gtk_widget_set_visible (GTK_WIDGET (self->add_files_button), !read_only);
  gtk_widget_set_visible (GTK_WIDGET (self->rescan_button), !read_only);
  gtk_widget_set_visible (GTK_WIDGET (self->remove_button), !read_only);
  sim_corpus_window_reload (self);
  return GTK_WIDGET (self);
}
