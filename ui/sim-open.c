/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "sim-document.h"
#include "sim-text.h"
#include "sim-open.h"
#include "sim-report-json.h"

#define SLICE (256 << 10)
#define INSERT_PRIORITY (GDK_PRIORITY_REDRAW + 2)

gboolean
sim_open_read_file (const char        *path,
                    char             **out_text,
                    SimReport        **out_report,
                    SimDocumentNotes  *out_notes,
                    GError           **error)
{
  *out_text = NULL;
  *out_report = NULL;
  if (out_notes != NULL)
    memset (out_notes, 0, sizeof *out_notes);
  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("Only local files can be opened"));
      return FALSE;
    }
  if (g_str_has_suffix (path, ".json"))
    {
      gsize len = 0;
      g_autofree char *data = sim_text_read_file (path, &len, NULL, error);

      *out_report = data ? sim_report_from_saved_json (data, len, error) : NULL;
      return *out_report != NULL;
    }
  *out_text = sim_document_load (path, NULL, NULL, out_notes, error);
  return *out_text != NULL;
}

/* ------------------------------------------------------------- loading */

typedef struct {
  GtkTextBuffer   *buffer;
  char            *path;
  char            *text;      /* read: a document's text */
  SimReport       *report;    /* or a saved report, whose text it is */
  SimDocumentNotes notes;     /* what reading the document left out */
  gsize            len;
  gsize            inserted;  /* bytes in the buffer so far */
  SimOpenProgress  progress;
  gpointer         user_data;
} Load;

static void
load_free (Load *load)
{
  g_clear_object (&load->buffer);
  g_free (load->path);
  g_free (load->text);
  g_clear_pointer (&load->report, sim_report_unref);
  g_free (load);
}

static void
read_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  Load *load = task_data;
  GError *error = NULL;

  if (sim_open_read_file (load->path, &load->text, &load->report, &load->notes, &error))
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static gboolean
insert_slice (gpointer data)
{
  GTask *task = data;
  Load *load = g_task_get_task_data (task);
  const char *text = load->report ? sim_report_get_text (load->report) : load->text;
  const char *end = text + MIN (load->len, load->inserted + SLICE);
  GtkTextIter iter;

  if (g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    {
      gtk_text_buffer_set_text (load->buffer, "", 0);
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, _("Opening was cancelled"));
      return G_SOURCE_REMOVE;
    }
  /* Slices end between characters. */
  if (end < text + load->len)
    end = g_utf8_find_prev_char (text, end + 1);
  gtk_text_buffer_get_end_iter (load->buffer, &iter);
  gtk_text_buffer_insert (load->buffer, &iter, text + load->inserted, end - (text + load->inserted));
  load->inserted = end - text;
  if (load->progress)
    load->progress ((double) load->inserted / MAX (load->len, 1), load->user_data);
  if (load->inserted < load->len)
    return G_SOURCE_CONTINUE;
  g_task_return_boolean (task, TRUE);
  return G_SOURCE_REMOVE;
}

static void
on_read (GObject      *source,
         GAsyncResult *result,
         gpointer      data)
{
  g_autoptr(GTask) task = data;
  Load *load = g_task_get_task_data (task);
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_task_return_error (task, error);
      return;
    }
  load->len = strlen (load->report ? sim_report_get_text (load->report) : load->text);
  gtk_text_buffer_set_text (load->buffer, "", 0);
  /* After a redraw (progress shows), before the text view lays the new
   * lines out (GTK_TEXT_VIEW_PRIORITY_VALIDATE, REDRAW + 5): below it,
   * each slice waited for the layout of everything before it, and 10 MB
   * took 13 s to open; above it, the text is in within a second and laid
   * out afterwards, a little at a time, the window answering meanwhile. */
  g_idle_add_full (INSERT_PRIORITY, insert_slice, g_object_ref (task), g_object_unref);
}

void
sim_open_load_async (GFile               *file,
                     GtkTextBuffer       *buffer,
                     GCancellable        *cancellable,
                     SimOpenProgress      progress,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  g_autoptr(GTask) reading = NULL;
  Load *load = g_new0 (Load, 1);

  load->buffer = g_object_ref (buffer);
  load->path = g_file_get_path (file);
  load->progress = progress;
  load->user_data = user_data;
  g_task_set_task_data (task, load, (GDestroyNotify) load_free);
  /* The reading task shares the load; the outer one owns it. */
  reading = g_task_new (NULL, cancellable, on_read, task);
  g_task_set_task_data (reading, load, NULL);
  g_task_run_in_thread (reading, read_thread);
}

gboolean
sim_open_load_finish (GAsyncResult      *result,
                      SimReport        **out_report,
                      SimDocumentNotes  *out_notes,
                      GError           **error)
{
  Load *load = g_task_get_task_data (G_TASK (result));

  *out_report = NULL;
  if (!g_task_propagate_boolean (G_TASK (result), error))
    return FALSE;
  *out_report = load->report ? sim_report_ref (load->report) : NULL;
  if (out_notes != NULL)
    *out_notes = load->notes;
  return TRUE;
}

/* ------------------------------------------------------------- recent */

static const char *
app_name (void)
{
  return g_get_application_name () ? g_get_application_name () : "simhound";
}

void
sim_open_remember (GFile *file)
{
  g_autofree char *uri = g_file_get_uri (file);
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *mime = g_content_type_guess (name, NULL, 0, NULL);
  GtkRecentData data = {
    .mime_type = mime,
    .app_name = (char *) app_name (),
    .app_exec = (char *) "simhound %u",
  };

  /* Registered at once (add_item would first look the type up, later). */
  gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &data);
}

static gint
compare_recent (gconstpointer a,
                gconstpointer b)
{
  GDateTime *x = gtk_recent_info_get_modified (*(GtkRecentInfo **) a);
  GDateTime *y = gtk_recent_info_get_modified (*(GtkRecentInfo **) b);

  return g_date_time_compare (y, x);
}

void
sim_open_fill_recent (GMenu      *section,
                      const char *action)
{
  GList *items = gtk_recent_manager_get_items (gtk_recent_manager_get_default ());
  g_autoptr(GPtrArray) mine = g_ptr_array_new ();

  for (GList *l = items; l; l = l->next)
    if (gtk_recent_info_has_application (l->data, app_name ()) && gtk_recent_info_is_local (l->data) &&
        gtk_recent_info_exists (l->data))
      g_ptr_array_add (mine, l->data);
  g_ptr_array_sort (mine, compare_recent);
  g_menu_remove_all (section);
  for (guint i = 0; i < MIN (mine->len, SIM_OPEN_N_RECENT); i++)
    {
      GtkRecentInfo *info = g_ptr_array_index (mine, i);
      g_autoptr(GMenuItem) item = g_menu_item_new (gtk_recent_info_get_display_name (info), NULL);

      g_menu_item_set_action_and_target_value (item, action, g_variant_new_string (gtk_recent_info_get_uri (info)));
      g_menu_append_item (section, item);
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
}
