/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "sim-compare-window.h"
#include "sim-cross.h"
#include "sim-export-dialog.h"
#include "sim-level.h"
#include "sim-class-window.h"

struct _SimClassWindow {
  GtkWindow          parent_instance;

  GtkStack          *stack;
  GtkLabel          *progress_label;
  GtkLabel          *summary;
  GtkListBox        *pairs_list;
  GtkLabel          *failures;
  GtkDropDown       *sort_dropdown;
  GtkWidget         *matrix_scroll;  /* who shares with whom */
  GtkWidget         *export_button;

  char              *folder;
  char              *template_text; /* the assignment's, or NULL */
  GCancellable      *cancellable;
  SimCrossDocuments *docs;      /* once read */
  GArray            *pairs;     /* SimCrossPair, once compared */
  gint               done;      /* atomic: documents read so far */
  gint               total;
  gboolean           busy;
};

G_DEFINE_FINAL_TYPE (SimClassWindow, sim_class_window, GTK_TYPE_WINDOW)

typedef struct {
  SimCrossDocuments *docs;
  GArray            *pairs;
} ClassResult;

static void
class_result_free (ClassResult *result)
{
  sim_cross_documents_free (result->docs);
  if (result->pairs)
    g_array_unref (result->pairs);
  g_free (result);
}

static void
on_read_progress (guint64     done,
                  guint64     total,
                  const char *what,
                  gpointer    user_data)
{
  SimClassWindow *self = user_data;

  g_atomic_int_set (&self->done, done);
  g_atomic_int_set (&self->total, total);
}

static void
class_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  SimClassWindow *self = source_object;
  const char *paths[] = { self->folder, NULL };
  ClassResult *result = g_new0 (ClassResult, 1);
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  GError *error = NULL;

  result->docs = sim_cross_documents_load (paths, on_read_progress, self, cancellable, &error);
  if (result->docs != NULL && result->docs->texts->len >= 2)
    result->pairs = sim_cross_run ((const char *const *) result->docs->texts->pdata,
                                   (const gsize *) result->docs->lens->data,
                                   (const char *const *) result->docs->paths->pdata, result->docs->texts->len,
                                   self->template_text, &options, SIM_NORMALIZE_DEFAULT | SIM_NORMALIZE_FOLD_T2S, cancellable, &error);
  if (error != NULL)
    {
      class_result_free (result);
      g_task_return_error (task, error);
    }
  else
    g_task_return_pointer (task, result, (GDestroyNotify) class_result_free);
}

static gboolean
poll_progress (gpointer data)
{
  SimClassWindow *self = data;
  const gint total = g_atomic_int_get (&self->total), done = g_atomic_int_get (&self->done);
  g_autofree char *text = NULL;

  if (!self->busy)
    return G_SOURCE_REMOVE;
  text = done < total || total == 0
           ? g_strdup_printf (_("Reading %d of %d documents…"), done, total)
           : g_strdup_printf (_("Comparing %d documents…"), total);
  gtk_label_set_text (self->progress_label, text);
  return G_SOURCE_CONTINUE;
}

static char *
pair_text (SimClassWindow     *self,
           const SimCrossPair *pair)
{
  g_autofree char *a = g_filename_display_basename (g_ptr_array_index (self->docs->paths, pair->a));
  g_autofree char *b = g_filename_display_basename (g_ptr_array_index (self->docs->paths, pair->b));

  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%.0f%% of %s ↔ %.0f%% of %s — %u characters, %u passage",
                                       "%.0f%% of %s ↔ %.0f%% of %s — %u characters, %u passages",
                                       pair->passages->len),
                          100 * pair->share_a, a, 100 * pair->share_b, b, pair->shared_a, pair->passages->len);
}

GtkWidget *
sim_class_window_compare_pair (SimClassWindow *self,
                               guint           index)
{
  const SimCrossPair *pair;
  SimCompareWindow *compare;

  g_return_val_if_fail (self->pairs != NULL && index < self->pairs->len, NULL);
  pair = &g_array_index (self->pairs, SimCrossPair, index);
  /* The pair as the class check found it: the same passages, the same figure. */
  compare = sim_compare_window_new_for_pair (GTK_WINDOW (self), g_ptr_array_index (self->docs->paths, pair->a),
                                             g_ptr_array_index (self->docs->paths, pair->b), pair->report,
                                             pair->passages, g_ptr_array_index (self->docs->texts, pair->b));
  gtk_window_present (GTK_WINDOW (compare));
  return GTK_WIDGET (compare);
}

static void
on_compare_clicked (GtkButton      *button,
                    SimClassWindow *self)
{
  sim_class_window_compare_pair (self, GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "sim-pair")));
}

static void
fill_pairs (SimClassWindow *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->pairs_list))) != NULL)
    gtk_list_box_remove (self->pairs_list, child);
  for (guint i = 0; self->pairs && i < self->pairs->len; i++)
    {
      g_autofree char *text = pair_text (self, &g_array_index (self->pairs, SimCrossPair, i));
      GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
      GtkWidget *label = gtk_label_new (text);
      GtkWidget *button = gtk_button_new_with_mnemonic (_("_Compare"));

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_widget_set_hexpand (label, TRUE);
      gtk_widget_set_margin_start (row, 6);
      gtk_widget_set_margin_end (row, 6);
      gtk_widget_set_margin_top (row, 4);
      gtk_widget_set_margin_bottom (row, 4);
      gtk_widget_set_tooltip_text (button, _("Open the two documents side by side"));
      g_object_set_data (G_OBJECT (button), "sim-pair", GUINT_TO_POINTER (i));
      g_signal_connect (button, "clicked", G_CALLBACK (on_compare_clicked), self);
      gtk_box_append (GTK_BOX (row), label);
      gtk_box_append (GTK_BOX (row), button);
      gtk_list_box_append (self->pairs_list, row);
    }
}

/* The most documents the matrix shows; beyond, the pairs only. */
#define MATRIX_MAX 40

/* Who shares with whom: a row and a column for each document in a pair,
 * each cell the share of the row's document found in the column's,
 * shaded by level; a cell opens its pair. */
static void
fill_matrix (SimClassWindow *self)
{
  GtkWidget *grid = gtk_grid_new ();
  g_autofree gint *slot = g_new (gint, MAX (self->docs->texts->len, 1));
  g_autoptr(GArray) involved = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; i < self->docs->texts->len; i++)
    slot[i] = -1;
  for (guint i = 0; self->pairs && i < self->pairs->len; i++)
    {
      const SimCrossPair *pair = &g_array_index (self->pairs, SimCrossPair, i);

      slot[pair->a] = slot[pair->b] = 0;
    }
  for (guint i = 0; i < self->docs->texts->len; i++)
    if (slot[i] == 0)
      {
        slot[i] = involved->len;
        g_array_append_val (involved, i);
      }
  gtk_grid_set_row_spacing (GTK_GRID (grid), 2);
  gtk_grid_set_column_spacing (GTK_GRID (grid), 2);
  g_object_set (grid, "margin-start", 6, "margin-end", 6, "margin-top", 6, "margin-bottom", 6, NULL);
  if (involved->len > MATRIX_MAX)
    {
      GtkWidget *note = gtk_label_new (_("Too many documents share passages for a matrix: see the pairs."));

      gtk_grid_attach (GTK_GRID (grid), note, 0, 0, 1, 1);
    }
  else
    {
      for (guint k = 0; k < involved->len; k++)
        {
          g_autofree char *name = g_filename_display_basename (g_ptr_array_index (self->docs->paths,
                                                                                  g_array_index (involved, guint, k)));
          g_autofree char *number = g_strdup_printf ("%u", k + 1);
          g_autofree char *row_name = g_strdup_printf ("%u. %s", k + 1, name);
          GtkWidget *row_label = gtk_label_new (row_name);
          GtkWidget *column_label = gtk_label_new (number);

          gtk_label_set_xalign (GTK_LABEL (row_label), 0);
          gtk_label_set_ellipsize (GTK_LABEL (row_label), PANGO_ELLIPSIZE_MIDDLE);
          gtk_label_set_max_width_chars (GTK_LABEL (row_label), 24);
          gtk_widget_set_tooltip_text (column_label, name);
          gtk_grid_attach (GTK_GRID (grid), row_label, 0, k + 1, 1, 1);
          gtk_grid_attach (GTK_GRID (grid), column_label, k + 1, 0, 1, 1);
        }
      for (guint i = 0; self->pairs && i < self->pairs->len; i++)
        {
          const SimCrossPair *pair = &g_array_index (self->pairs, SimCrossPair, i);

          for (guint side = 0; side < 2; side++)
            {
              const guint row = side ? pair->b : pair->a, column = side ? pair->a : pair->b;
              const float share = side ? pair->share_b : pair->share_a;
              g_autofree char *label = g_strdup_printf ("%.0f%%", 100 * share);
              g_autofree char *css = g_strdup_printf ("legend-%s", sim_level_to_string (sim_level_of (share, 0.5f, 0.2f)));
              GtkWidget *cell = gtk_button_new_with_label (label);

              gtk_widget_add_css_class (cell, "flat");
              gtk_widget_add_css_class (cell, css);
              g_object_set_data (G_OBJECT (cell), "sim-pair", GUINT_TO_POINTER (i));
              g_signal_connect (cell, "clicked", G_CALLBACK (on_compare_clicked), self);
              gtk_grid_attach (GTK_GRID (grid), cell, slot[column] + 1, slot[row] + 1, 1, 1);
            }
        }
    }
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->matrix_scroll), grid);
}

static int
by_name (gconstpointer a,
         gconstpointer b,
         gpointer      data)
{
  SimClassWindow *self = data;
  const SimCrossPair *x = a, *y = b;
  const int first = g_strcmp0 (g_ptr_array_index (self->docs->paths, x->a), g_ptr_array_index (self->docs->paths, y->a));

  return first ? first : g_strcmp0 (g_ptr_array_index (self->docs->paths, x->b),
                                    g_ptr_array_index (self->docs->paths, y->b));
}

static int
by_share (gconstpointer a,
          gconstpointer b,
          gpointer      data)
{
  const SimCrossPair *x = a, *y = b;
  const float sx = MAX (x->share_a, x->share_b), sy = MAX (y->share_a, y->share_b);

  return sx != sy ? (sx > sy ? -1 : 1) : by_name (a, b, data);
}

static int
by_characters (gconstpointer a,
               gconstpointer b,
               gpointer      data)
{
  const SimCrossPair *x = a, *y = b;
  const guint64 sx = (guint64) x->shared_a + x->shared_b, sy = (guint64) y->shared_a + y->shared_b;

  return sx != sy ? (sx > sy ? -1 : 1) : by_name (a, b, data);
}

void
sim_class_window_sort (SimClassWindow *self,
                       SimClassSort    sort)
{
  static const GCompareDataFunc sorts[] = { by_characters, by_share, by_name };

  g_return_if_fail ((guint) sort < G_N_ELEMENTS (sorts));
  if (self->pairs == NULL)
    return;
  g_array_sort_with_data (self->pairs, sorts[sort], self);
  fill_pairs (self);
  fill_matrix (self);
  if (gtk_drop_down_get_selected (self->sort_dropdown) != (guint) sort)
    gtk_drop_down_set_selected (self->sort_dropdown, sort);
}

static void
on_sort_chosen (GtkDropDown    *dropdown,
                GParamSpec     *pspec,
                SimClassWindow *self)
{
  sim_class_window_sort (self, gtk_drop_down_get_selected (dropdown));
}

gboolean
sim_class_window_export (SimClassWindow  *self,
                         const char      *path,
                         GError         **error)
{
  g_autofree char *out = NULL;

  g_return_val_if_fail (self->pairs != NULL, FALSE);
  if (g_str_has_suffix (path, ".csv"))
    out = sim_cross_to_csv (self->pairs, (const char *const *) self->docs->paths->pdata);
  else
    out = sim_cross_to_html (self->pairs, (const char *const *) self->docs->paths->pdata,
                             (const char *const *) self->docs->texts->pdata, (const guint32 *) self->docs->n_chars->data,
                             NULL, self->docs->texts->len);
  return g_file_set_contents (path, out, -1, error);
}

static void
on_export_response (GtkNativeDialog *dialog,
                    int              response,
                    SimClassWindow  *self)
{
  g_autoptr(GFile) file = response == GTK_RESPONSE_ACCEPT ? gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog)) : NULL;
  g_autofree char *chosen = file ? g_file_get_path (file) : NULL;
  GtkFileFilter *filter = gtk_file_chooser_get_filter (GTK_FILE_CHOOSER (dialog));
  const gboolean csv = filter != NULL && g_strcmp0 (g_object_get_data (G_OBJECT (filter), "suffix"), "csv") == 0;
  g_autoptr(GError) error = NULL;

  g_object_unref (dialog);
  if (chosen == NULL)
    return;
  {
    g_autofree char *path = g_str_has_suffix (chosen, csv ? ".csv" : ".html") ? g_strdup (chosen)
                                                                               : g_strconcat (chosen, csv ? ".csv" : ".html", NULL);

    if (!sim_class_window_export (self, path, &error))
      {
        GtkWidget *alert = adw_message_dialog_new (GTK_WINDOW (self), _("The pairs could not be saved"),
                                                   error->message);

        adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (alert), "close", _("_Close"));
        gtk_window_present (GTK_WINDOW (alert));
      }
  }
}

static void
on_export_clicked (GtkButton      *button,
                   SimClassWindow *self)
{
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (_("Export the Pairs"), GTK_WINDOW (self),
                                                              GTK_FILE_CHOOSER_ACTION_SAVE, _("_Export"), _("_Cancel"));
  GtkFileFilter *html = gtk_file_filter_new (), *csv = gtk_file_filter_new ();
  g_autoptr(GFile) folder = sim_export_dialog_suggest_folder ();
  g_autofree char *name = g_filename_display_basename (self->folder);
  g_autofree char *suggested = g_strdup_printf (_("%s-pairs"), name);

  gtk_file_filter_set_name (html, _("Web page (HTML)"));
  gtk_file_filter_add_suffix (html, "html");
  g_object_set_data (G_OBJECT (html), "suffix", (gpointer) "html");
  gtk_file_filter_set_name (csv, _("Spreadsheet (CSV)"));
  gtk_file_filter_add_suffix (csv, "csv");
  g_object_set_data (G_OBJECT (csv), "suffix", (gpointer) "csv");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), html);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), csv);
  g_object_unref (html);
  g_object_unref (csv);
  gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (dialog), folder, NULL);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), suggested);
  g_signal_connect (dialog, "response", G_CALLBACK (on_export_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
on_done (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  SimClassWindow *self = SIM_CLASS_WINDOW (source);
  g_autoptr(GError) error = NULL;
  ClassResult *found = g_task_propagate_pointer (G_TASK (result), &error);
  g_autofree char *summary = NULL;
  GString *failed = g_string_new (NULL);

  if (gtk_widget_in_destruction (GTK_WIDGET (self)))
    {
      if (found)
        class_result_free (found);
      g_string_free (failed, TRUE);
      return;
    }
  self->busy = FALSE;
  if (found == NULL)
    {
      gtk_label_set_text (self->summary, error->message);
      gtk_stack_set_visible_child_name (self->stack, "result");
      g_string_free (failed, TRUE);
      return;
    }
  self->docs = g_steal_pointer (&found->docs);
  self->pairs = g_steal_pointer (&found->pairs);
  class_result_free (found);
  if (self->docs->texts->len < 2)
    summary = g_strdup (_("A class needs at least two readable documents."));
  else
    summary = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u pair of %u documents shares passages",
                                            "%u pairs of %u documents share passages", self->pairs->len),
                               self->pairs->len, self->docs->texts->len);
  gtk_label_set_text (self->summary, summary);
  fill_pairs (self);
  fill_matrix (self);
  gtk_widget_set_sensitive (self->export_button, self->pairs != NULL && self->pairs->len > 0);
  for (guint i = 0; i < self->docs->failures->len; i++)
    g_string_append_printf (failed, "%s%s", i ? "\n" : "", (const char *) g_ptr_array_index (self->docs->failures, i));
  gtk_label_set_text (self->failures, failed->str);
  gtk_widget_set_visible (GTK_WIDGET (self->failures), failed->len > 0);
  g_string_free (failed, TRUE);
  gtk_stack_set_visible_child_name (self->stack, "result");
}

gboolean
sim_class_window_is_busy (SimClassWindow *self)
{
  return self->busy;
}

guint
sim_class_window_get_n_pairs (SimClassWindow *self)
{
  return self->pairs ? self->pairs->len : 0;
}

const char *
sim_class_window_get_pair_text (SimClassWindow *self,
                                guint           index)
{
  GtkListBoxRow *row = gtk_list_box_get_row_at_index (self->pairs_list, index);
  GtkWidget *box = row ? gtk_list_box_row_get_child (row) : NULL;

  return box ? gtk_label_get_text (GTK_LABEL (gtk_widget_get_first_child (box))) : NULL;
}

const char *
sim_class_window_get_summary (SimClassWindow *self)
{
  return gtk_label_get_text (self->summary);
}

static void
sim_class_window_dispose (GObject *object)
{
  SimClassWindow *self = SIM_CLASS_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->busy = FALSE;   /* the progress poll lets go */
  G_OBJECT_CLASS (sim_class_window_parent_class)->dispose (object);
}

static void
sim_class_window_finalize (GObject *object)
{
  SimClassWindow *self = SIM_CLASS_WINDOW (object);

  g_free (self->folder);
  g_free (self->template_text);
  sim_cross_documents_free (self->docs);
  if (self->pairs)
    g_array_unref (self->pairs);
  G_OBJECT_CLASS (sim_class_window_parent_class)->finalize (object);
}

static void
sim_class_window_class_init (SimClassWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sim_class_window_dispose;
  object_class->finalize = sim_class_window_finalize;
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "window.close", NULL);
}

static void
sim_class_window_init (SimClassWindow *self)
{
  GtkWidget *busy = gtk_box_new (GTK_ORIENTATION_VERTICAL, 12);
  GtkWidget *result = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  GtkWidget *spinner = gtk_spinner_new ();
  GtkWidget *scrolled = gtk_scrolled_window_new ();

  self->cancellable = g_cancellable_new ();
  self->stack = GTK_STACK (gtk_stack_new ());
  gtk_window_set_default_size (GTK_WINDOW (self), 760, 520);
  gtk_window_set_title (GTK_WINDOW (self), _("Check a Class"));

  gtk_widget_set_valign (busy, GTK_ALIGN_CENTER);
  gtk_spinner_start (GTK_SPINNER (spinner));
  gtk_widget_set_size_request (spinner, 32, 32);
  self->progress_label = GTK_LABEL (gtk_label_new (_("Reading the documents…")));
  gtk_box_append (GTK_BOX (busy), spinner);
  gtk_box_append (GTK_BOX (busy), GTK_WIDGET (self->progress_label));
  gtk_stack_add_named (self->stack, busy, "busy");

  g_object_set (result, "margin-start", 12, "margin-end", 12, "margin-top", 12, "margin-bottom", 12, NULL);
  self->summary = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->summary, 0);
  gtk_label_set_wrap (self->summary, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->summary), "title-4");
  self->pairs_list = GTK_LIST_BOX (gtk_list_box_new ());
  gtk_list_box_set_selection_mode (self->pairs_list, GTK_SELECTION_NONE);
  gtk_widget_add_css_class (GTK_WIDGET (self->pairs_list), "boxed-list");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->pairs_list), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Pairs of documents that share passages, largest first"), -1);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (self->pairs_list));
  gtk_widget_set_vexpand (scrolled, TRUE);
  self->failures = GTK_LABEL (gtk_label_new (NULL));
  gtk_label_set_xalign (self->failures, 0);
  gtk_label_set_wrap (self->failures, TRUE);
  gtk_label_set_selectable (self->failures, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->failures), "dim-label");
  gtk_widget_set_visible (GTK_WIDGET (self->failures), FALSE);
  {
    GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
    GtkWidget *views = gtk_stack_new ();
    GtkWidget *switcher = gtk_stack_switcher_new ();
    const char *const sorts[] = { N_("Most shared text"), N_("Largest share"), N_("Name"), NULL };
    g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);

    for (guint i = 0; sorts[i]; i++)
      gtk_string_list_append (names, _(sorts[i]));
    self->sort_dropdown = GTK_DROP_DOWN (gtk_drop_down_new (G_LIST_MODEL (g_object_ref (names)), NULL));
    gtk_widget_set_tooltip_text (GTK_WIDGET (self->sort_dropdown), _("Order of the pairs"));
    g_signal_connect (self->sort_dropdown, "notify::selected", G_CALLBACK (on_sort_chosen), self);
    self->export_button = gtk_button_new_with_mnemonic (_("_Export…"));
    gtk_widget_set_tooltip_text (self->export_button, _("Save the pairs as a web page (HTML) or a spreadsheet (CSV)"));
    gtk_widget_set_sensitive (self->export_button, FALSE);
    g_signal_connect (self->export_button, "clicked", G_CALLBACK (on_export_clicked), self);
    self->matrix_scroll = gtk_scrolled_window_new ();
    gtk_stack_add_titled (GTK_STACK (views), scrolled, "pairs", _("Pairs"));
    gtk_stack_add_titled (GTK_STACK (views), self->matrix_scroll, "matrix", _("Matrix"));
    gtk_widget_set_vexpand (views, TRUE);
    gtk_stack_switcher_set_stack (GTK_STACK_SWITCHER (switcher), GTK_STACK (views));
    gtk_widget_set_hexpand (switcher, TRUE);
    gtk_widget_set_halign (switcher, GTK_ALIGN_START);
    gtk_box_append (GTK_BOX (bar), switcher);
    gtk_box_append (GTK_BOX (bar), gtk_label_new (_("Sort by")));
    gtk_box_append (GTK_BOX (bar), GTK_WIDGET (self->sort_dropdown));
    gtk_box_append (GTK_BOX (bar), self->export_button);
    gtk_box_append (GTK_BOX (result), GTK_WIDGET (self->summary));
    gtk_box_append (GTK_BOX (result), bar);
    gtk_box_append (GTK_BOX (result), views);
  }
  gtk_box_append (GTK_BOX (result), GTK_WIDGET (self->failures));
  gtk_stack_add_named (self->stack, result, "result");
  gtk_window_set_child (GTK_WINDOW (self), GTK_WIDGET (self->stack));
}

GtkWidget *
sim_class_window_new (GtkWindow  *parent,
                      const char *folder,
                      const char *template_text)
{
  SimClassWindow *self = g_object_new (SIM_TYPE_CLASS_WINDOW, "transient-for", parent, NULL);
  g_autoptr(GTask) task = g_task_new (self, self->cancellable, on_done, NULL);
  g_autofree char *name = g_filename_display_basename (folder);
  g_autofree char *title = g_strdup_printf (_("Check a Class: %s"), name);

  gtk_window_set_title (GTK_WINDOW (self), title);
  self->folder = g_strdup (folder);
  self->template_text = g_strdup (template_text);
  self->busy = TRUE;
  g_timeout_add_full (G_PRIORITY_DEFAULT, 100, poll_progress, g_object_ref (self), g_object_unref);
  g_task_set_return_on_cancel (task, FALSE);
  g_task_run_in_thread (task, class_thread);
  return GTK_WIDGET (self);
}
