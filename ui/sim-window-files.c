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
#include "sim-compare-window.h"
#include "sim-corpus-window.h"
#include "sim-tint.h"
#include "sim-window.h"
#include "sim-window-test.h"
#include "sim-window-private.h"


/* ---------------------------------------------------------------- input */

/* The file's name, where it is, and whether the text was edited since it
 * was opened; "Untitled Text" for pasted text. */
void
_sim_window_update_title (SimWindow *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->editor);
  GFile *file = self->loading ? self->loading : sim_session_get_file (self->session);
  const gboolean edited = self->loading == NULL && file != NULL && gtk_text_buffer_get_modified (buffer);
  g_autofree char *name = NULL;
  g_autofree char *where = NULL;
  g_autofree char *subtitle = NULL;
  g_autofree char *title = NULL;

  if (file != NULL)
    {
      g_autoptr(GFile) parent = g_file_get_parent (file);
      g_autoptr(GFile) home = g_file_new_for_path (g_get_home_dir ());
      g_autofree char *relative = parent ? g_file_get_relative_path (home, parent) : NULL;

      name = g_file_get_basename (file);
      where = relative ? g_build_filename ("~", relative, NULL)
              : parent && g_file_equal (parent, home) ? g_strdup ("~")
              : parent ? g_file_get_parse_name (parent) : g_strdup ("");
    }
  else if (gtk_text_buffer_get_char_count (buffer) > 0)
    name = g_strdup (_("Untitled Text"));
  else
    name = g_strdup (_("Simhound"));
  subtitle = edited ? g_strdup_printf (_("%s — edited since opened"), where) : g_strdup (where ? where : "");
  adw_window_title_set_title (self->window_title, name);
  adw_window_title_set_subtitle (self->window_title, subtitle);
  /* The window list and the screen reader get the mark too. */
  title = g_str_equal (name, _("Simhound")) ? g_strdup (name)
          : g_strdup_printf (edited ? _("*%s — Simhound") : _("%s — Simhound"), name);
  gtk_window_set_title (GTK_WINDOW (self), title);
}

void
sim_window_set_text (SimWindow  *self,
                     const char *text)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->editor);

  gtk_text_buffer_set_text (buffer, text, -1);
  gtk_text_buffer_set_modified (buffer, FALSE);
  sim_session_open_text (self->session, NULL, NULL, NULL);
  _sim_window_update_title (self);
}

/* ------------------------------------------------------------- files */

void
_sim_window_update_recent (SimWindow *self)
{
  sim_open_fill_recent (self->recent_section, "win.open-recent");
}

GMenuModel *
sim_window_get_recent_menu (SimWindow *self)
{
  return G_MENU_MODEL (self->recent_section);
}

/* The file is in the buffer: name it, remember it, and for a saved report
 * show its result without a check. */
static void
finish_open (SimWindow              *self,
             GFile                  *file,
             SimReport              *report,
             const SimDocumentNotes *notes)
{
  /* Hidden text the file held: said in the report of every check of it.
   * The report of another text goes with it. */
  gtk_text_buffer_set_modified (gtk_text_view_get_buffer (self->editor), FALSE);
  sim_session_open_text (self->session, file, notes, report);
  _sim_window_update_title (self);
  sim_open_remember (file);
}

gboolean
sim_window_save_report (SimWindow   *self,
                        const char  *path,
                        GError     **error)
{
  g_autofree char *json = NULL;

  g_return_val_if_fail (sim_session_get_view (self->session) != NULL, FALSE);
  json = sim_report_to_saved_json (REPORT (self));
  return g_file_set_contents (path, json, -1, error);
}

static void
on_save_report_response (GtkNativeDialog *dialog,
                         int              response,
                         SimWindow       *self)
{
  g_autoptr(GFile) file = response == GTK_RESPONSE_ACCEPT ? gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog)) : NULL;
  g_autofree char *chosen = file ? g_file_get_path (file) : NULL;
  g_autofree char *path = chosen && !g_str_has_suffix (chosen, ".json") ? g_strconcat (chosen, ".json", NULL)
                                                                         : g_strdup (chosen);
  g_autoptr(GError) error = NULL;

  g_object_unref (dialog);
  if (path == NULL || sim_session_get_view (self->session) == NULL)
    return;
  if (!sim_window_save_report (self, path, &error))
    _sim_window_show_error (self, _("The report could not be saved"), error);
  else
    adw_toast_overlay_add_toast (self->toast_overlay, sim_export_dialog_new_toast (GTK_WINDOW (self), path));
}

void
_sim_window_save_report_action (GtkWidget  *widget,
                                const char *action_name,
                                GVariant   *parameter)
{
  SimWindow *self = SIM_WINDOW (widget);
  GtkFileChooserNative *dialog;
  GtkFileFilter *filter;
  g_autofree char *name = NULL;

  if (sim_session_get_view (self->session) == NULL)
    return;
  dialog = gtk_file_chooser_native_new (_("Save the Report"), GTK_WINDOW (self), GTK_FILE_CHOOSER_ACTION_SAVE,
                                        _("_Save"), _("_Cancel"));
  filter = gtk_file_filter_new ();
  gtk_file_filter_set_name (filter, _("Simhound report (JSON, opens again in Simhound)"));
  gtk_file_filter_add_suffix (filter, "json");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), filter);
  g_object_unref (filter);
  if (sim_session_get_file (self->session) != NULL)
    {
      g_autofree char *base = g_file_get_basename (sim_session_get_file (self->session));
      char *dot = strrchr (base, '.');

      if (dot != NULL && dot != base)
        *dot = '\0';
      name = g_strdup_printf (_("%s-report.json"), base);
    }
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), name ? name : _("similarity-report.json"));
  g_signal_connect (dialog, "response", G_CALLBACK (on_save_report_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

void
_sim_window_open_recent_action (GtkWidget  *widget,
                                const char *action_name,
                                GVariant   *parameter)
{
  g_autoptr(GFile) file = g_file_new_for_uri (g_variant_get_string (parameter, NULL));

  sim_window_open_file (SIM_WINDOW (widget), file);
}

static void
on_load_progress (double   fraction,
                  gpointer user_data)
{
  gtk_progress_bar_set_fraction (SIM_WINDOW (user_data)->progress_bar, fraction);
}

static void
on_loaded (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(SimWindow) self = user_data;
  g_autoptr(SimReport) report = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = g_steal_pointer (&self->loading);
  SimDocumentNotes notes = { 0 };
  const gboolean ok = sim_open_load_finish (result, &report, &notes, &error);

  if (gtk_widget_in_destruction (GTK_WIDGET (self)) || self->settings == NULL)
    return;
  gtk_text_view_set_editable (self->editor, TRUE);
  _sim_window_set_busy (self, FALSE, NULL);
  _sim_window_update_title (self);
  if (ok)
    finish_open (self, file, report, &notes);
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    _sim_window_show_error (self, _("The file could not be opened"), error);
}

void
sim_window_open_file (SimWindow *self,
                      GFile     *file)
{
  g_autofree char *path = g_file_get_path (file);
  g_autoptr(GError) error = NULL;
  g_autoptr(GFileInfo) info = path ? g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_SIZE, G_FILE_QUERY_INFO_NONE,
                                                        NULL, NULL) : NULL;
  g_autofree char *text = NULL;
  g_autoptr(SimReport) report = NULL;
  SimDocumentNotes notes = { 0 };

  if (self->busy)
    return;
  /* A large file is read in a thread and put in the buffer a slice per
   * main-loop turn, with progress and Cancel: the window never freezes. */
  if (info != NULL && g_file_info_get_size (info) > SIM_OPEN_IN_BACKGROUND)
    {
      g_autofree char *name = g_file_get_basename (file);
      g_autofree char *what = g_strdup_printf (_("Opening %s…"), name);

      g_clear_object (&self->cancellable);
      self->cancellable = g_cancellable_new ();
      _sim_window_set_busy (self, TRUE, what);
      gtk_text_view_set_editable (self->editor, FALSE);
      g_set_object (&self->loading, file);
      _sim_window_update_title (self);
      sim_open_load_async (file, gtk_text_view_get_buffer (self->editor), self->cancellable, on_load_progress,
                           on_loaded, g_object_ref (self));
      return;
    }
  if (!sim_open_read_file (path, &text, &report, &notes, &error))
    {
      _sim_window_show_error (self, path && g_str_has_suffix (path, ".json") ? _("The report could not be opened")
                                                                 : _("The file could not be opened"), error);
      return;
    }
  sim_window_set_text (self, report ? sim_report_get_text (report) : text);
  finish_open (self, file, report, &notes);
}

gboolean
_sim_window_on_drop (GtkDropTarget *target,
                     const GValue  *value,
                     double         x,
                     double         y,
                     SimWindow     *self)
{
  GSList *files = g_value_get_boxed (value);

  if (files == NULL)
    return FALSE;
  sim_window_open_file (self, files->data);
  return TRUE;
}

void
_sim_window_on_text_changed (GtkTextBuffer *buffer,
                             SimWindow     *self)
{
  if (sim_session_get_file (self->session) == NULL || self->loading != NULL)
    _sim_window_update_title (self);   /* "Untitled Text" once there is text */
  self->previews_valid = FALSE;
  /* The report no longer holds: the session drops its view, and with it
   * every highlight, figure and comparison of the old text. */
  sim_session_text_edited (self->session);
  _sim_window_update_actions (self);
}

void
_sim_window_on_mark_set (GtkTextBuffer     *buffer,
                         const GtkTextIter *location,
                         GtkTextMark       *mark,
                         SimWindow         *self)
{
  gint index;

  if (mark != gtk_text_buffer_get_insert (buffer) || sim_session_get_view (self->session) == NULL)
    return;
  index = sim_report_find_segment (REPORT (self), gtk_text_iter_get_offset (location));
  if (index >= 0 && index != self->selected &&
      sim_report_get_segment (REPORT (self), index)->level != SIM_LEVEL_LOW)
    {
      self->selected = index;
      sim_chart_set_selected (self->chart, index);
      _sim_window_show_source (self, index);
    }
}

void
_sim_window_on_editor_click (GtkGestureClick *gesture,
                             int              n_press,
                             double           x,
                             double           y,
                             SimWindow       *self)
{
  GtkTextIter iter;
  int bx, by;
  gint index;

  if (sim_session_get_view (self->session) == NULL)
    return;
  gtk_text_view_window_to_buffer_coords (self->editor, GTK_TEXT_WINDOW_WIDGET, x, y, &bx, &by);
  gtk_text_view_get_iter_at_location (self->editor, &iter, bx, by);
  index = sim_report_find_segment (REPORT (self), gtk_text_iter_get_offset (&iter));
  if (index >= 0 && sim_report_get_segment (REPORT (self), index)->level != SIM_LEVEL_LOW)
    sim_window_select_segment (self, index);
}

/* Choosing a source shows only its flags and selects the first; choosing
 * it again, or Show All, shows every source's flags again. */
void
_sim_window_on_source_activated (GtkListBox    *list,
                                 GtkListBoxRow *row,
                                 SimWindow     *self)
{
  const gint source = gtk_list_box_row_get_index (row);  /* rows are sources 0.. in rank order */
  SimReportView *view = sim_session_get_view (self->session);

  if (view == NULL)
    return;
  self->filter = self->filter == source ? -1 : source;
  _sim_window_apply_highlights (self);
  if (self->filter < 0)
    {
      gtk_list_box_unselect_all (self->sources_list);
      return;
    }
  for (guint r = 0; r < sim_report_view_get_n_runs (view); r++)
    if (sim_report_view_get_run (view, r)->source == (guint) source)
      {
        sim_window_select_segment (self, sim_report_view_get_run (view, r)->first_segment);
        break;
      }
}

void
_sim_window_show_all_sources_action (GtkWidget  *widget,
                                     const char *action_name,
                                     GVariant   *parameter)
{
  SimWindow *self = SIM_WINDOW (widget);

  self->filter = -1;
  gtk_list_box_unselect_all (self->sources_list);
  if (sim_session_get_view (self->session) != NULL)
    _sim_window_apply_highlights (self);
}

/* Shows only the flags of source @index (0-based, by rank), or all for -1. */
void
sim_window_filter_source (SimWindow *self,
                          gint       index)
{
  GtkListBoxRow *row = index >= 0 ? gtk_list_box_get_row_at_index (self->sources_list, index) : NULL;

  if (row == NULL)
    {
      _sim_window_show_all_sources_action (GTK_WIDGET (self), NULL, NULL);
      return;
    }
  self->filter = -1;
  gtk_list_box_select_row (self->sources_list, row);
  _sim_window_on_source_activated (self->sources_list, row, self);
}

