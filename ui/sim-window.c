/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>
#include <adwaita.h>
#include <glib/gi18n.h>

#include "sim-article-view.h"
#include "sim-check.h"
#include "sim-corpus.h"
#include "sim-error.h"
#include "sim-exclude.h"
#include "sim-paths.h"
#include "sim-session.h"
#include "sim-report-json.h"
#include "sim-export-dialog.h"
#include "sim-chart.h"
#include "sim-class-window.h"
#include "sim-open.h"
#include "sim-comparison.h"
#include "sim-comparison-test.h"
#include "sim-compare-window.h"
#include "sim-corpus-window.h"
#include "sim-tint.h"
#include "sim-window.h"
#include "sim-window-test.h"
#include "sim-window-private.h"

G_DEFINE_FINAL_TYPE (SimWindow, sim_window, GTK_TYPE_APPLICATION_WINDOW)


/* ---------------------------------------------------------------- check */

typedef struct {
  SimWindow *self; /* a reference: a closed window is never freed under a running check */
} CheckData;

static void
on_check_progress (guint64     done,
                   guint64     total,
                   const char *what,
                   gpointer    user_data)
{
  SimWindow *self = user_data;

  gtk_progress_bar_set_fraction (self->progress_bar, total ? (double) done / total : 0);
}

static void
on_check_preview (const SimCheckPreview *previews,
                  guint                  n,
                  gpointer               user_data)
{
  SimWindow *self = user_data;

  /* Offsets hold only while the text is the one being checked. */
  if (!self->previews_valid)
    return;
  for (guint i = 0; i < n; i++)
    sim_article_view_preview (SIM_ARTICLE_VIEW (self->editor), previews[i].start, previews[i].end, previews[i].level);
}

static void
on_check_done (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(SimWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  const gboolean ok = sim_session_check_finish (SIM_SESSION (source), result, &error);

  if (gtk_widget_in_destruction (GTK_WIDGET (self)) || self->settings == NULL)
    return;
  _sim_window_set_busy (self, FALSE, NULL);
  /* A good check was drawn when the session's view changed. */
  if (!ok && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _sim_window_show_error (self, _("The text could not be checked"), error);
  else if (ok && sim_session_is_stale (self->session))
    _sim_window_show_no_view (self);  /* the previews go: the text changed under the check */
}

void
sim_window_check (SimWindow *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->editor);
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autofree char *text = NULL;
  GtkTextIter start, end;

  g_return_if_fail (SIM_IS_WINDOW (self));
  if (!self->busy && !self->server_fresh && sim_store_location_is_server (self->store_path))
    {
      /* Each check against a server takes a snapshot of its own: the
       * server's counts as they are now (others add), and the documents
       * and places its lookups learn go with it. Unreachable, this says so. */
      _sim_window_open_server (self, TRUE);
      return;
    }
  self->server_fresh = FALSE;
  if (self->busy || SNAPSHOT (self) == NULL)
    return;
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);

  options.mode = g_settings_get_enum (self->settings, "segmentation") ? SIM_SEGMENT_WINDOW : SIM_SEGMENT_SENTENCE;
  options.window = g_settings_get_uint (self->settings, "window-size");
  options.max_distance = g_settings_get_uint (self->settings, "max-distance");
  options.fast = g_settings_get_boolean (self->settings, "fast");
  options.high_threshold = g_settings_get_double (self->settings, "high-threshold");
  options.medium_threshold = MIN (g_settings_get_double (self->settings, "medium-threshold"), options.high_threshold);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  _sim_window_set_busy (self, TRUE, _("Checking…"));
  /* Results of the previous check go; previews of this one come in as verified. */
  sim_article_view_show (SIM_ARTICLE_VIEW (self->editor), NULL, SIM_ARTICLE_BY_SOURCE, -1);
  self->previews_valid = TRUE;
  sim_session_check_async (self->session, text, &options, on_check_progress, on_check_preview, self,
                           self->cancellable, on_check_done, g_object_ref (self));
}

SimReport *
sim_window_get_report (SimWindow *self)
{
  return sim_session_get_report (self->session);
}

SimReportView *
sim_window_get_view (SimWindow *self)
{
  return sim_session_get_view (self->session);
}

struct _SimSession *
sim_window_get_session (SimWindow *self)
{
  return self->session;
}

gboolean
sim_window_is_busy (SimWindow *self)
{
  return self->busy;
}

/* ------------------------------------------------------------- actions */

static void
on_open_response (GtkNativeDialog *dialog,
                  int              response,
                  SimWindow       *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      sim_window_open_file (self, file);
    }
  g_object_unref (dialog);
}

static void
on_compare_b_response (GtkNativeDialog *dialog,
                       int              response,
                       SimWindow       *self)
{
  const char *a_path = g_object_get_data (G_OBJECT (dialog), "a-path");

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *b_path = g_file_get_path (file);

      if (b_path != NULL)
        sim_window_compare (self, a_path, b_path);
    }
  g_object_unref (dialog);
}

static void
on_compare_a_response (GtkNativeDialog *dialog,
                       int              response,
                       SimWindow       *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      char *a_path = g_file_get_path (file);
      GtkFileChooserNative *next;

      next = gtk_file_chooser_native_new (_("Compare It With Document B"), GTK_WINDOW (self),
                                          GTK_FILE_CHOOSER_ACTION_OPEN, _("_Compare"), _("_Cancel"));
      g_object_set_data_full (G_OBJECT (next), "a-path", a_path, g_free);
      g_signal_connect (next, "response", G_CALLBACK (on_compare_b_response), self);
      gtk_native_dialog_show (GTK_NATIVE_DIALOG (next));
    }
  g_object_unref (dialog);
}

/* ------------------------------------------------------------ template */

void
sim_window_set_template (SimWindow  *self,
                         const char *name,
                         const char *text)
{
  sim_session_set_template (self->session, text);
  gtk_label_set_text (self->template_label, text ? name : _("none"));
}

static void
on_template_response (GtkNativeDialog *dialog,
                      int              response,
                      SimWindow       *self)
{
  g_autoptr(GFile) file = response == GTK_RESPONSE_ACCEPT ? gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog)) : NULL;
  g_autofree char *path = file ? g_file_get_path (file) : NULL;
  g_autofree char *text = NULL;
  g_autoptr(SimReport) report = NULL;
  g_autoptr(GError) error = NULL;

  g_object_unref (dialog);
  if (path == NULL)
    return;
  if (!sim_open_read_file (path, &text, &report, NULL, &error) || text == NULL)
    {
      if (error == NULL)
        error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("A saved report is no assignment text"));
      _sim_window_show_error (self, _("The assignment text could not be read"), error);
      return;
    }
  {
    g_autofree char *name = g_file_get_basename (file);

    sim_window_set_template (self, name, text);
  }
}

static void
choose_template_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (_("Choose the Assignment's Own Text"), GTK_WINDOW (widget),
                                                              GTK_FILE_CHOOSER_ACTION_OPEN, _("_Choose"), _("_Cancel"));

  g_signal_connect (dialog, "response", G_CALLBACK (on_template_response), widget);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
clear_template_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  sim_window_set_template (SIM_WINDOW (widget), NULL, NULL);
}

static void
on_class_folder_response (GtkNativeDialog *dialog,
                          int              response,
                          SimWindow       *self)
{
  g_autoptr(GFile) folder = response == GTK_RESPONSE_ACCEPT ? gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog)) : NULL;
  g_autofree char *path = folder ? g_file_get_path (folder) : NULL;

  g_object_unref (dialog);
  if (path != NULL)
    /* The assignment's text chosen here is left out of the class too. */
    gtk_window_present (GTK_WINDOW (sim_class_window_new (GTK_WINDOW (self), path,
                                                          sim_session_get_template (self->session))));
}

/* Check a Class…: every pair of a folder's documents that shares passages. */
static void
check_class_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (_("Choose the Class's Folder"), GTK_WINDOW (widget),
                                                              GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                                              _("_Check"), _("_Cancel"));

  g_signal_connect (dialog, "response", G_CALLBACK (on_class_folder_response), widget);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
compare_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  SimWindow *self = SIM_WINDOW (widget);
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (_("Choose Document A"), GTK_WINDOW (self),
                                                              GTK_FILE_CHOOSER_ACTION_OPEN, _("_Next"), _("_Cancel"));

  g_signal_connect (dialog, "response", G_CALLBACK (on_compare_a_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

GtkWidget *
sim_window_compare (SimWindow  *self,
                    const char *a_path,
                    const char *b_path)
{
  SimCompareWindow *compare = sim_compare_window_new (GTK_WINDOW (self), a_path, b_path);

  gtk_window_present (GTK_WINDOW (compare));
  return GTK_WIDGET (compare);
}

static void
open_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  SimWindow *self = SIM_WINDOW (widget);
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (_("Open a Text"), GTK_WINDOW (self),
                                                              GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));

  g_signal_connect (dialog, "response", G_CALLBACK (on_open_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
on_add_response (GtkNativeDialog *dialog,
                 int              response,
                 SimWindow       *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GListModel) files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (dialog));
      g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);

      for (guint i = 0; i < g_list_model_get_n_items (files); i++)
        {
          g_autoptr(GFile) file = g_list_model_get_item (files, i);

          g_ptr_array_add (paths, g_file_get_path (file));
        }
      g_ptr_array_add (paths, NULL);
      sim_window_add_documents (self, (const char *const *) paths->pdata);
    }
  g_object_unref (dialog);
}

static void
add_documents_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  SimWindow *self = SIM_WINDOW (widget);
  const gboolean files = g_str_equal (action_name, "win.add-files");
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (files ? _("Add Documents") : _("Add a Folder of Documents"),
                                                              GTK_WINDOW (self),
                                                              files ? GTK_FILE_CHOOSER_ACTION_OPEN
                                                                    : GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                                              _("_Add"), _("_Cancel"));

  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (dialog), TRUE);
  g_signal_connect (dialog, "response", G_CALLBACK (on_add_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
use_demo_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  SimWindow *self = SIM_WINDOW (widget);
  g_autofree char *demo = sim_paths_demo_texts ();
  const char *paths[] = { demo, NULL };

  if (!g_file_test (paths[0], G_FILE_TEST_IS_DIR))
    {
      g_autoptr(GError) error = g_error_new (G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                                             _("Build it first: “./run.sh” in Simhound's source folder extracts "
                                               "Debian's text packages into %s. Or point SIMHOUND_DEMO_TEXTS at a "
                                               "folder of texts, or add your own documents."),
                                             paths[0]);

      _sim_window_show_error (self, _("The demo corpus is not on this computer"), error);
      return;
    }
  sim_window_add_documents (self, paths);
}

/* The preference names another corpus (this computer's or a server):
 * checks go there from now on. */
static void
on_store_changed (GSettings  *settings,
                  const char *key,
                  SimWindow  *self)
{
  g_autofree char *store = g_settings_get_string (settings, key);
  g_autofree char *path = *store ? g_steal_pointer (&store) : sim_corpus_dup_default_path ();

  if (g_str_equal (path, self->store_path) || self->busy)
    return;
  g_free (self->store_path);
  self->store_path = g_steal_pointer (&path);
  gtk_widget_set_visible (GTK_WIDGET (self->read_only_label), FALSE);
  _sim_window_load_corpus (self);
}

static void
manage_corpus_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  SimWindow *self = SIM_WINDOW (widget);

  if (self->corpus_window == NULL)
    {
      self->corpus_window = sim_corpus_window_new (GTK_WINDOW (self), self->store_path, self->read_only);
      g_object_add_weak_pointer (G_OBJECT (self->corpus_window), (gpointer *) &self->corpus_window);
      g_signal_connect_object (self->corpus_window, "add-paths", G_CALLBACK (sim_window_add_documents),
                               self, G_CONNECT_SWAPPED);
      g_signal_connect_object (self->corpus_window, "rescan-folder", G_CALLBACK (sim_window_rescan_folder),
                               self, G_CONNECT_SWAPPED);
    }
  gtk_window_present (GTK_WINDOW (self->corpus_window));
}

static void
reload_corpus_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  _sim_window_load_corpus (SIM_WINDOW (widget));
}

static void
check_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  sim_window_check (SIM_WINDOW (widget));
}

static void
cancel_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  g_cancellable_cancel (SIM_WINDOW (widget)->cancellable);
}

static void
step_segment (SimWindow *self,
              gint       direction)
{
  SimReportView *view = sim_session_get_view (self->session);
  const gint n = view ? (gint) sim_report_get_n_segments (REPORT (self)) : 0;

  for (gint i = self->selected + direction; i >= 0 && i < n; i += direction)
    if (sim_report_view_find_run (view, i) >= 0 &&
        (self->filter < 0 ||
         sim_report_view_get_run (view, sim_report_view_find_run (view, i))->source == (guint) self->filter))
      {
        sim_window_select_segment (self, i);
        return;
      }
  gtk_widget_error_bell (GTK_WIDGET (self));
}

static void
next_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  step_segment (SIM_WINDOW (widget), g_str_equal (action_name, "win.next-segment") ? 1 : -1);
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  SimWindow *self = SIM_WINDOW (widget);

  g_autofree char *name = sim_export_dialog_suggest_name (sim_session_get_name (self->session),
                                                          _("similarity-report"));

  /* Thirty reports of a class told apart by name: "daniel-similarity". */
  if (sim_session_get_view (self->session) != NULL)
    sim_export_dialog_show (GTK_WINDOW (self), self->toast_overlay, _("Export the Report"), name,
                            sim_session_get_view (self->session));
}

/* ------------------------------------------------------------- narrow */

/* Below about 900 px the text and the results fold into one view: the
 * results take the text's place, with a button to go back. */
static void
on_folded_changed (SimWindow *self)
{
  const gboolean folded = adw_leaflet_get_folded (self->leaflet);
  const gboolean results = g_strcmp0 (adw_leaflet_get_visible_child_name (self->leaflet), "results") == 0;

  gtk_widget_set_visible (self->results_button, folded);
  gtk_widget_set_visible (self->back_button, folded);
  /* Folded, the results have the screen: the chart (of the text) goes. */
  gtk_widget_set_visible (GTK_WIDGET (self->chart), !(folded && results));
}

static void
on_results_clicked (SimWindow *self)
{
  adw_leaflet_set_visible_child_name (self->leaflet, "results");
}

static void
on_back_clicked (SimWindow *self)
{
  adw_leaflet_set_visible_child_name (self->leaflet, "text");
}

gboolean
sim_window_is_folded (SimWindow *self)
{
  return adw_leaflet_get_folded (self->leaflet);
}

const char *
sim_window_get_visible_view (SimWindow *self)
{
  return adw_leaflet_get_visible_child_name (self->leaflet);
}

static void
on_chart_segment (SimChart  *chart,
                  guint      index,
                  SimWindow *self)
{
  sim_window_select_segment (self, index);
}

/* ------------------------------------------------------------- settings */

/* The toolbar's choices, kept in GSettings from one start to the next. */
static const char *const toolbar_keys[] = {
  "segmentation", "window-size", "fast", "exclude-quotes", "exclude-references", "exclude-small", "highlight",
};

static gboolean
toolbar_is_default (SimWindow *self)
{
  for (guint i = 0; i < G_N_ELEMENTS (toolbar_keys); i++)
    {
      g_autoptr(GVariant) value = g_settings_get_value (self->settings, toolbar_keys[i]);
      g_autoptr(GVariant) def = g_settings_get_default_value (self->settings, toolbar_keys[i]);

      if (!g_variant_equal (value, def))
        return FALSE;
    }
  return TRUE;
}

/* The toolbar says whether its choices are the defaults, and offers to put
 * them back when they are not. */
static void
update_defaults (SimWindow *self)
{
  const gboolean is_default = toolbar_is_default (self);

  gtk_widget_set_visible (self->defaults_label, is_default);
  gtk_widget_set_visible (self->reset_button, !is_default);
}

static void
reset_choices_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  SimWindow *self = SIM_WINDOW (widget);

  g_settings_delay (self->settings);
  for (guint i = 0; i < G_N_ELEMENTS (toolbar_keys); i++)
    g_settings_reset (self->settings, toolbar_keys[i]);
  g_settings_apply (self->settings);
}

gboolean
sim_window_choices_are_default (SimWindow *self)
{
  return gtk_widget_get_visible (self->defaults_label) && !gtk_widget_get_visible (self->reset_button);
}

/* A two-valued GSettings enum shown in a drop-down: @user_data is the
 * NULL-terminated list of its nicks in the drop-down's order. */
static gboolean
nick_to_position (GValue   *value,
                  GVariant *variant,
                  gpointer  user_data)
{
  const char *const *nicks = user_data;
  const char *nick = g_variant_get_string (variant, NULL);

  for (guint i = 0; nicks[i]; i++)
    if (g_str_equal (nick, nicks[i]))
      {
        g_value_set_uint (value, i);
        return TRUE;
      }
  return FALSE;
}

static GVariant *
position_to_nick (const GValue       *value,
                  const GVariantType *type,
                  gpointer            user_data)
{
  const char *const *nicks = user_data;
  const guint position = g_value_get_uint (value);

  return position < g_strv_length ((char **) nicks) ? g_variant_new_string (nicks[position]) : NULL;
}

static const char *const segmentation_nicks[] = { "sentence", "window", NULL };
static const char *const highlight_nicks[] = { "source", "level", NULL };

/* --------------------------------------------------------------- object */

static void
sim_window_dispose (GObject *object)
{
  SimWindow *self = SIM_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  g_clear_object (&self->settings);
  if (self->corpus_window)
    {
      g_object_remove_weak_pointer (G_OBJECT (self->corpus_window), (gpointer *) &self->corpus_window);
      gtk_window_destroy (GTK_WINDOW (self->corpus_window));
      self->corpus_window = NULL;
    }
  g_clear_handle_id (&self->sources_idle, g_source_remove);
  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);
  G_OBJECT_CLASS (sim_window_parent_class)->dispose (object);
}

static void
sim_window_finalize (GObject *object)
{
  SimWindow *self = SIM_WINDOW (object);

  g_free (self->store_path);
  g_clear_object (&self->loading);
  G_OBJECT_CLASS (sim_window_parent_class)->finalize (object);
}

static void
sim_window_class_init (SimWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sim_window_dispose;
  object_class->finalize = sim_window_finalize;

  g_type_ensure (SIM_TYPE_CHART);
  g_type_ensure (SIM_TYPE_ARTICLE_VIEW);
  g_type_ensure (SIM_TYPE_COMPARISON);
  g_type_ensure (ADW_TYPE_TOAST_OVERLAY);
  g_type_ensure (ADW_TYPE_WINDOW_TITLE);
  g_type_ensure (ADW_TYPE_LEAFLET);
  g_type_ensure (ADW_TYPE_BUTTON_CONTENT);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/simhound/Simhound/ui/sim-window.ui");
  gtk_widget_class_bind_template_child (widget_class, SimWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, template_label);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, exclude_small_spin);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, recent_section);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, leaflet);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, results_button);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, toolbar);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, options_button);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, back_button);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, results_scroll);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, defaults_label);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, reset_button);
  gtk_widget_class_bind_template_callback (widget_class, on_results_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_back_clicked);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, read_only_label);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, editor);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, mode_dropdown);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, window_spin);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, fast_check);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, exclude_quotes_check);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, exclude_references_check);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, highlight_dropdown);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, level_legend);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, show_all_button);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, check_button);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, summary_label);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, warning_label);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, counts_label);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, sources_list);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, comparison);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, chart);

  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.repair-corpus", NULL, _sim_window_repair_corpus_action);
  gtk_widget_class_install_action (widget_class, "win.check", NULL, check_action);
  gtk_widget_class_install_action (widget_class, "win.cancel-check", NULL, cancel_action);
  gtk_widget_class_install_action (widget_class, "win.export", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.save-report", NULL, _sim_window_save_report_action);
  gtk_widget_class_install_action (widget_class, "win.check-class", NULL, check_class_action);
  gtk_widget_class_install_action (widget_class, "win.choose-template", NULL, choose_template_action);
  gtk_widget_class_install_action (widget_class, "win.clear-template", NULL, clear_template_action);
  gtk_widget_class_install_action (widget_class, "win.open-recent", "s", _sim_window_open_recent_action);
  gtk_widget_class_install_action (widget_class, "win.reset-choices", NULL, reset_choices_action);
  gtk_widget_class_install_action (widget_class, "win.add-documents", NULL, add_documents_action);
  gtk_widget_class_install_action (widget_class, "win.add-files", NULL, add_documents_action);
  gtk_widget_class_install_action (widget_class, "win.use-demo", NULL, use_demo_action);
  gtk_widget_class_install_action (widget_class, "win.manage-corpus", NULL, manage_corpus_action);
  gtk_widget_class_install_action (widget_class, "win.compare", NULL, compare_action);
  gtk_widget_class_install_action (widget_class, "win.reload-corpus", NULL, reload_corpus_action);
  gtk_widget_class_install_action (widget_class, "win.next-segment", NULL, next_action);
  gtk_widget_class_install_action (widget_class, "win.show-all-sources", NULL, _sim_window_show_all_sources_action);
  gtk_widget_class_install_action (widget_class, "win.previous-segment", NULL, next_action);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_o, GDK_CONTROL_MASK, "win.open", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Return, GDK_CONTROL_MASK, "win.check", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "win.cancel-check", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK, "win.export", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK, "win.save-report", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F3, 0, "win.next-segment", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F3, GDK_SHIFT_MASK, "win.previous-segment", NULL);
}

static void
sim_window_init (SimWindow *self)
{
  GtkTextBuffer *buffer;
  GtkGesture *click;
  GtkDropTarget *drop;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->selected = -1;
  self->filter = -1;
  self->session = sim_session_new ();
  self->settings = g_settings_new ("org.simhound.Simhound");
  /* The choices kept from the last start apply from the first check. */
  _sim_window_on_exclusions_changed (self->settings, NULL, self);
  g_signal_connect (self->session, "notify::view", G_CALLBACK (_sim_window_on_view_changed), self);
  g_settings_bind_with_mapping (self->settings, "highlight", self->highlight_dropdown, "selected",
                                G_SETTINGS_BIND_DEFAULT, nick_to_position, position_to_nick,
                                (gpointer) highlight_nicks, NULL);
  g_signal_connect (self->settings, "changed::highlight", G_CALLBACK (_sim_window_on_highlight_changed), self);
  g_settings_bind_with_mapping (self->settings, "segmentation", self->mode_dropdown, "selected",
                                G_SETTINGS_BIND_DEFAULT, nick_to_position, position_to_nick,
                                (gpointer) segmentation_nicks, NULL);
  g_settings_bind (self->settings, "window-size", self->window_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "fast", self->fast_check, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "exclude-quotes", self->exclude_quotes_check, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "exclude-references", self->exclude_references_check, "active",
                   G_SETTINGS_BIND_DEFAULT);
  g_signal_connect (self->settings, "changed::exclude-quotes", G_CALLBACK (_sim_window_on_exclusions_changed), self);
  g_signal_connect (self->settings, "changed::exclude-references", G_CALLBACK (_sim_window_on_exclusions_changed), self);
  g_settings_bind (self->settings, "exclude-small", self->exclude_small_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_signal_connect (self->settings, "changed::exclude-small", G_CALLBACK (_sim_window_on_exclusions_changed), self);
  g_signal_connect (self->settings, "changed::fold-traditional", G_CALLBACK (_sim_window_on_fold_changed), self);
  g_signal_connect (self->settings, "changed::store", G_CALLBACK (on_store_changed), self);

  buffer = gtk_text_view_get_buffer (self->editor);
  g_signal_connect (buffer, "changed", G_CALLBACK (_sim_window_on_text_changed), self);
  g_signal_connect_swapped (buffer, "modified-changed", G_CALLBACK (_sim_window_update_title), self);
  g_signal_connect (buffer, "mark-set", G_CALLBACK (_sim_window_on_mark_set), self);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->editor), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Article: copied passages are highlighted in their source's colour and numbered like it in the list of sources, or red for high and yellow for medium similarity"), -1);

  click = gtk_gesture_click_new ();
  g_signal_connect (click, "released", G_CALLBACK (_sim_window_on_editor_click), self);
  gtk_widget_add_controller (GTK_WIDGET (self->editor), GTK_EVENT_CONTROLLER (click));
  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (_sim_window_on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));
  g_signal_connect (self->sources_list, "row-activated", G_CALLBACK (_sim_window_on_source_activated), self);
  g_signal_connect (self->chart, "segment-activated", G_CALLBACK (on_chart_segment), self);
  g_signal_connect_swapped (self->leaflet, "notify::folded", G_CALLBACK (on_folded_changed), self);
  g_signal_connect_swapped (self->leaflet, "notify::visible-child-name", G_CALLBACK (on_folded_changed), self);
  for (guint i = 0; i < G_N_ELEMENTS (toolbar_keys); i++)
    {
      g_autofree char *signal = g_strconcat ("changed::", toolbar_keys[i], NULL);

      g_signal_connect_swapped (self->settings, signal, G_CALLBACK (update_defaults), self);
    }
  update_defaults (self);
  g_signal_connect_object (gtk_recent_manager_get_default (), "changed", G_CALLBACK (_sim_window_update_recent), self,
                           G_CONNECT_SWAPPED);
  _sim_window_update_recent (self);
  on_folded_changed (self);
}

SimWindow *
sim_window_new (GtkApplication *app,
                const char     *store_path)
{
  SimWindow *self = g_object_new (SIM_TYPE_WINDOW, "application", app, NULL);

  self->store_path = store_path ? g_strdup (store_path) : sim_corpus_dup_default_path ();
  _sim_window_load_corpus (self);
  return self;
}

GtkTextBuffer *
sim_window_get_buffer (SimWindow *self)
{
  return gtk_text_view_get_buffer (self->editor);
}

SimComparison *
sim_window_get_comparison (SimWindow *self)
{
  return self->comparison;
}

GtkWidget *
sim_window_get_check_button (SimWindow *self)
{
  return GTK_WIDGET (self->check_button);
}

GtkWidget *
sim_window_get_editor (SimWindow *self)
{
  return GTK_WIDGET (self->editor);
}

const char *
sim_window_get_summary (SimWindow *self)
{
  return gtk_label_get_text (self->summary_label);
}

guint
sim_window_count_toolbar_rows (SimWindow *self)
{
  int toolbar_h, control_h;

  gtk_widget_measure (self->toolbar, GTK_ORIENTATION_VERTICAL, gtk_widget_get_width (self->toolbar), NULL, &toolbar_h,
                      NULL, NULL);
  gtk_widget_measure (self->options_button, GTK_ORIENTATION_VERTICAL, -1, NULL, &control_h, NULL, NULL);
  return control_h > 0 ? (guint) ((toolbar_h + control_h / 2) / control_h) : 0;
}

const char *
sim_window_get_counts (SimWindow *self)
{
  return gtk_label_get_text (self->counts_label);
}

char *
sim_window_dup_sources_said (SimWindow *self)
{
  GString *said = g_string_new (NULL);

  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (self->sources_list)); row;
       row = gtk_widget_get_next_sibling (row))
    {
      GtkWidget *box = gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (row));

      /* The label the row gives screen readers, kept beside it. */
      if (box != NULL && g_object_get_data (G_OBJECT (box), "sim-said") != NULL)
        g_string_append_printf (said, "%s\n", (const char *) g_object_get_data (G_OBJECT (box), "sim-said"));
    }
  return g_string_free (said, FALSE);
}

const char *
sim_window_get_read_only_message (SimWindow *self)
{
  return gtk_widget_get_visible (GTK_WIDGET (self->read_only_label)) ? gtk_label_get_text (self->read_only_label) : NULL;
}

double
sim_window_get_progress (SimWindow *self)
{
  return gtk_progress_bar_get_fraction (self->progress_bar);
}

const char *
sim_window_get_progress_text (SimWindow *self)
{
  return gtk_progress_bar_get_text (self->progress_bar);
}

const char *
sim_window_get_source_path (SimWindow *self)
{
  return sim_comparison_get_path (self->comparison);
}

GtkWidget *
sim_window_get_chart (SimWindow *self)
{
  return GTK_WIDGET (self->chart);
}

GtkWidget *
sim_window_get_corpus_window (SimWindow *self)
{
  return self->corpus_window;
}

const char *
sim_window_get_page (SimWindow *self)
{
  return gtk_stack_get_visible_child_name (self->stack);
}
