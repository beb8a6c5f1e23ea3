/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "sim-corpus.h"
#include "sim-document-row.h"
#include "sim-corpus-window.h"

struct _SimCorpusWindow {
  GtkWindow          parent_instance;

  /* template children */
  GtkColumnView     *column_view;
  GtkLabel          *summary_label;
  GtkButton         *remove_button;
  GtkButton         *add_button;
  GtkButton         *add_files_button;

  /* owned */
  char              *store_path;
  gboolean           read_only;  /* list only: the store may not be changed */
  GListStore        *documents;  /* SimDocumentRow */
  GtkMultiSelection *selection;
  GCancellable      *cancellable;
};

G_DEFINE_FINAL_TYPE (SimCorpusWindow, sim_corpus_window, GTK_TYPE_WINDOW)

enum {
  ADD_PATHS,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

typedef enum {
  COLUMN_TITLE,
  COLUMN_SIZE,
  COLUMN_SEGMENTS,
  COLUMN_UPDATED,
  COLUMN_PATH,
} Column;

static char *
column_text (const SimStoreDocument *doc,
             Column                  column)
{
  switch (column)
    {
    case COLUMN_TITLE:
      return g_strdup (doc->title);
    case COLUMN_SIZE:
      return g_format_size (doc->n_bytes);
    case COLUMN_SEGMENTS:
      return g_strdup_printf ("%" G_GINT64_FORMAT, doc->n_segments);
    case COLUMN_UPDATED:
      {
        g_autoptr(GDateTime) dt = g_date_time_new_from_unix_local (doc->updated_at);

        return dt ? g_date_time_format (dt, "%x %H:%M") : g_strdup ("");
      }
    case COLUMN_PATH:
    default:
      return g_filename_display_name (doc->path);
    }
}

static void
setup_cell (GtkSignalListItemFactory *factory,
            GtkListItem              *item,
            gpointer                  user_data)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), GPOINTER_TO_INT (user_data) == COLUMN_SEGMENTS ? 1 : 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  gtk_list_item_set_child (item, label);
}

static void
bind_cell (GtkSignalListItemFactory *factory,
           GtkListItem              *item,
           gpointer                  user_data)
{
  SimDocumentRow *row = gtk_list_item_get_item (item);
  g_autofree char *text = column_text (sim_document_row_get_doc (row), GPOINTER_TO_INT (user_data));

  gtk_label_set_text (GTK_LABEL (gtk_list_item_get_child (item)), text);
}

static void
add_column (SimCorpusWindow *self,
            const char      *title,
            Column           column,
            gboolean         expand)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  GtkColumnViewColumn *col;

  g_signal_connect (factory, "setup", G_CALLBACK (setup_cell), GINT_TO_POINTER (column));
  g_signal_connect (factory, "bind", G_CALLBACK (bind_cell), GINT_TO_POINTER (column));
  col = gtk_column_view_column_new (title, factory);
  gtk_column_view_column_set_expand (col, expand);
  gtk_column_view_column_set_resizable (col, TRUE);
  gtk_column_view_append_column (self->column_view, col);
  g_object_unref (col);
}

void
sim_corpus_window_reload (SimCorpusWindow *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimStore) store = NULL;
  g_autoptr(GPtrArray) docs = NULL;
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func (g_object_unref);
  gint64 n_bytes = 0, n_segments = 0;
  g_autofree char *summary = NULL, *size = NULL;

  if (g_file_test (self->store_path, G_FILE_TEST_EXISTS))
    store = sim_store_open (self->store_path, TRUE, &error);
  if (store != NULL)
    docs = sim_store_list (store, &error);
  if (docs != NULL)
    while (docs->len > 0)
      {
        SimStoreDocument *doc = g_ptr_array_steal_index (docs, 0);

        n_bytes += doc->n_bytes;
        n_segments += doc->n_segments;
        g_ptr_array_add (rows, sim_document_row_new (doc));
      }
  g_list_store_splice (self->documents, 0, g_list_model_get_n_items (G_LIST_MODEL (self->documents)),
                       rows->pdata, rows->len);
  size = g_format_size (n_bytes);
  if (error != NULL)
    summary = g_strdup_printf (_("The store %s cannot be read: %s"), self->store_path, error->message);
  else if (self->read_only)
    summary = g_strdup_printf (_("%u documents, %s, %lld segments — stored in %s, which is read-only: "
                                 "documents cannot be added or removed"), rows->len, size,
                               (long long) n_segments, self->store_path);
  else
    summary = g_strdup_printf (_("%u documents, %s, %lld segments — stored in %s"), rows->len, size,
                               (long long) n_segments, self->store_path);
  gtk_label_set_text (self->summary_label, summary);
}

guint
sim_corpus_window_get_n_documents (SimCorpusWindow *self)
{
  return g_list_model_get_n_items (G_LIST_MODEL (self->documents));
}

static void
on_selection_changed (GtkSelectionModel *model,
                      guint              position,
                      guint              n_items,
                      SimCorpusWindow   *self)
{
  g_autoptr(GtkBitset) selected = gtk_selection_model_get_selection (model);

  gtk_widget_set_sensitive (GTK_WIDGET (self->remove_button), !self->read_only && !gtk_bitset_is_empty (selected));
}

static void
remove_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  SimCorpusWindow *self = source_object;
  GError *error = NULL;
  g_autoptr(SimCorpus) corpus = sim_corpus_open (self->store_path, FALSE, &error);
  guint n_removed = 0;

  if (corpus == NULL || !sim_corpus_remove (corpus, (const char *const *) task_data, &n_removed, &error))
    g_task_return_error (task, error);
  else
    g_task_return_int (task, n_removed);
}

static void
on_removed (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  SimCorpusWindow *self = SIM_CORPUS_WINDOW (source);
  GtkWindow *parent = gtk_window_get_transient_for (GTK_WINDOW (self));
  g_autoptr(GError) error = NULL;

  g_task_propagate_int (G_TASK (result), &error);
  if (gtk_widget_in_destruction (GTK_WIDGET (self)))
    return;
  gtk_widget_set_sensitive (GTK_WIDGET (self), TRUE);
  sim_corpus_window_reload (self);
  if (error != NULL)
    {
      GtkWidget *dialog = gtk_message_dialog_new (GTK_WINDOW (self), GTK_DIALOG_MODAL | GTK_DIALOG_DESTROY_WITH_PARENT,
                                                  GTK_MESSAGE_ERROR, GTK_BUTTONS_CLOSE, "%s",
                                                  _("The documents could not be removed"));

      gtk_message_dialog_format_secondary_text (GTK_MESSAGE_DIALOG (dialog), "%s", error->message);
      g_signal_connect (dialog, "response", G_CALLBACK (gtk_window_destroy), NULL);
      gtk_window_present (GTK_WINDOW (dialog));
    }
  /* The main window's snapshot must follow. */
  if (parent)
    gtk_widget_activate_action (GTK_WIDGET (parent), "win.reload-corpus", NULL);
}

static void
on_remove_clicked (SimCorpusWindow *self)
{
  g_autoptr(GtkBitset) selected = gtk_selection_model_get_selection (GTK_SELECTION_MODEL (self->selection));
  g_autoptr(GTask) task = g_task_new (self, self->cancellable, on_removed, NULL);
  GStrvBuilder *builder = g_strv_builder_new ();
  GtkBitsetIter iter;
  guint position;

  for (gboolean ok = gtk_bitset_iter_init_first (&iter, selected, &position); ok;
       ok = gtk_bitset_iter_next (&iter, &position))
    {
      g_autoptr(SimDocumentRow) row = g_list_model_get_item (G_LIST_MODEL (self->documents), position);
      g_autofree char *id = g_strdup_printf ("%" G_GINT64_FORMAT, sim_document_row_get_doc (row)->id);

      g_strv_builder_add (builder, id);
    }
  g_task_set_task_data (task, g_strv_builder_end (builder), (GDestroyNotify) g_strfreev);
  g_strv_builder_unref (builder);
  gtk_widget_set_sensitive (GTK_WIDGET (self), FALSE);
  g_task_run_in_thread (task, remove_thread);
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

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->selection);
  g_clear_object (&self->documents);
  G_OBJECT_CLASS (sim_corpus_window_parent_class)->dispose (object);
}

static void
sim_corpus_window_finalize (GObject *object)
{
  g_free (SIM_CORPUS_WINDOW (object)->store_path);
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
  gtk_widget_class_set_template_from_resource (widget_class, "/org/simhound/Simhound/ui/sim-corpus-window.ui");
  gtk_widget_class_bind_template_child (widget_class, SimCorpusWindow, column_view);
  gtk_widget_class_bind_template_child (widget_class, SimCorpusWindow, summary_label);
  gtk_widget_class_bind_template_child (widget_class, SimCorpusWindow, remove_button);
  gtk_widget_class_bind_template_child (widget_class, SimCorpusWindow, add_button);
  gtk_widget_class_bind_template_child (widget_class, SimCorpusWindow, add_files_button);
  gtk_widget_class_bind_template_callback (widget_class, on_remove_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_add_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_add_files_clicked);
}

static void
sim_corpus_window_init (SimCorpusWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  self->documents = g_list_store_new (SIM_TYPE_DOCUMENT_ROW);
  self->selection = gtk_multi_selection_new (G_LIST_MODEL (g_object_ref (self->documents)));
  gtk_column_view_set_model (self->column_view, GTK_SELECTION_MODEL (self->selection));
  g_signal_connect (self->selection, "selection-changed", G_CALLBACK (on_selection_changed), self);
  {
    GtkDropTarget *drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);

    g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
    gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));
  }
  add_column (self, _("Title"), COLUMN_TITLE, TRUE);
  add_column (self, _("Size"), COLUMN_SIZE, FALSE);
  add_column (self, _("Segments"), COLUMN_SEGMENTS, FALSE);
  add_column (self, _("Updated"), COLUMN_UPDATED, FALSE);
  add_column (self, _("Path"), COLUMN_PATH, TRUE);
}

GtkWidget *
sim_corpus_window_new (GtkWindow  *parent,
                       const char *store_path,
                       gboolean    read_only)
{
  SimCorpusWindow *self = g_object_new (SIM_TYPE_CORPUS_WINDOW, "transient-for", parent, NULL);

  self->store_path = g_strdup (store_path);
  self->read_only = read_only;
  gtk_widget_set_sensitive (GTK_WIDGET (self->add_button), !read_only);
  gtk_widget_set_sensitive (GTK_WIDGET (self->add_files_button), !read_only);
  sim_corpus_window_reload (self);
  return GTK_WIDGET (self);
}
