/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "sim-export.h"
#include "sim-export-dialog.h"

typedef struct {
  GWeakRef   parent;
  GWeakRef   toasts;
  SimReportView *view;
  char      *path;
  gboolean   pdf;
} Export;

static void
export_free (Export *export)
{
  g_weak_ref_clear (&export->parent);
  g_weak_ref_clear (&export->toasts);
  sim_report_view_unref (export->view);
  g_free (export->path);
  g_free (export);
}

char *
sim_export_dialog_suggest_name (const char *essay,
                                const char *fallback)
{
  g_autofree char *base = NULL;
  char *dot;

  if (essay == NULL || *essay == '\0')
    return g_strdup (fallback);
  base = g_path_get_basename (essay);
  dot = strrchr (base, '.');
  if (dot != NULL && dot != base)
    *dot = '\0';
  /* TRANSLATORS: the file name offered for the report of essay %s */
  return g_strdup_printf (_("%s-similarity"), base);
}

GFile *
sim_export_dialog_suggest_folder (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.simhound.Simhound");
  g_autofree char *last = g_settings_get_string (settings, "export-folder");
  const char *documents = g_get_user_special_dir (G_USER_DIRECTORY_DOCUMENTS);

  if (last[0] != '\0' && g_file_test (last, G_FILE_TEST_IS_DIR))
    return g_file_new_for_path (last);
  return g_file_new_for_path (documents && g_file_test (documents, G_FILE_TEST_IS_DIR) ? documents : g_get_home_dir ());
}

char *
sim_export_dialog_path_for (const char *chosen,
                            gboolean    pdf,
                            gboolean   *out_pdf)
{
  g_autofree char *lower = g_ascii_strdown (chosen, -1);

  /* A name typed with the other type's extension says what is wanted. */
  if (g_str_has_suffix (lower, pdf ? ".html" : ".pdf") || (pdf && g_str_has_suffix (lower, ".htm")))
    pdf = !pdf;
  *out_pdf = pdf;
  if (g_str_has_suffix (lower, pdf ? ".pdf" : ".html") || (!pdf && g_str_has_suffix (lower, ".htm")))
    return g_strdup (chosen);
  return g_strconcat (chosen, pdf ? ".pdf" : ".html", NULL);
}

/* ------------------------------------------------------------ the toast */

static void
unref_data (gpointer  data,
            GClosure *closure)
{
  g_object_unref (data);
}

static void
on_open_clicked (AdwToast *toast,
                 GFile    *file)
{
  GtkWindow *parent = g_object_get_data (G_OBJECT (toast), "sim-parent");
  g_autofree char *uri = g_file_get_uri (file);

  gtk_show_uri (parent, uri, GDK_CURRENT_TIME);
}

/* The file manager shows the file selected in its folder; without one
 * (no session bus), the folder opens in its default application. */
static void
on_show_in_folder_clicked (GtkButton *button,
                           GFile     *file)
{
  g_autoptr(GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
  g_autofree char *uri = g_file_get_uri (file);
  g_autoptr(GVariant) result = NULL;

  if (bus != NULL)
    {
      const char *uris[] = { uri, NULL };

      result = g_dbus_connection_call_sync (bus, "org.freedesktop.FileManager1", "/org/freedesktop/FileManager1",
                                            "org.freedesktop.FileManager1", "ShowItems",
                                            g_variant_new ("(^ass)", uris, ""), NULL,
                                            G_DBUS_CALL_FLAGS_NONE, 2000, NULL, NULL);
    }
  if (result == NULL)
    {
      g_autoptr(GFile) folder = g_file_get_parent (file);
      g_autofree char *folder_uri = g_file_get_uri (folder);
      GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (button));

      gtk_show_uri (GTK_IS_WINDOW (root) ? GTK_WINDOW (root) : NULL, folder_uri, GDK_CURRENT_TIME);
    }
}

AdwToast *
sim_export_dialog_new_toast (GtkWindow  *parent,
                             const char *path)
{
  g_autofree char *name = g_filename_display_basename (path);
  g_autofree char *title = g_strdup_printf (_("Saved %s"), name);
  GFile *file = g_file_new_for_path (path);
  AdwToast *toast = adw_toast_new (title);
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *label = gtk_label_new (title);
  GtkWidget *folder = gtk_button_new_with_mnemonic (_("Show in _Folder"));

  /* The title and a second button; the toast's own button opens the file. */
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_add_css_class (label, "heading");
  gtk_widget_add_css_class (folder, "flat");
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), folder);
  g_signal_connect_data (folder, "clicked", G_CALLBACK (on_show_in_folder_clicked), g_object_ref (file),
                         unref_data, 0);
  adw_toast_set_custom_title (toast, box);
  adw_toast_set_button_label (toast, _("_Open"));
  adw_toast_set_timeout (toast, 8);
  g_object_set_data (G_OBJECT (toast), "sim-parent", parent);
  g_signal_connect_data (toast, "button-clicked", G_CALLBACK (on_open_clicked), file,
                         unref_data, 0);
  return toast;
}

/* ------------------------------------------------------------ writing */

static void
write_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  Export *export = task_data;
  GError *error = NULL;
  const gboolean ok = export->pdf ? sim_export_pdf_file (export->view, export->path, &error)
                                  : sim_export_html_file (export->view, export->path, &error);

  if (ok)
    g_task_return_boolean (task, TRUE);
  else
    g_task_return_error (task, error);
}

static void
on_written (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Export *export = g_task_get_task_data (G_TASK (result));
  g_autoptr(GtkWindow) parent = g_weak_ref_get (&export->parent);
  g_autoptr(AdwToastOverlay) toasts = g_weak_ref_get (&export->toasts);
  g_autoptr(GError) error = NULL;

  if (g_task_propagate_boolean (G_TASK (result), &error))
    {
      g_autoptr(GSettings) settings = g_settings_new ("org.simhound.Simhound");
      g_autofree char *folder = g_path_get_dirname (export->path);

      g_settings_set_string (settings, "export-folder", folder);
    }
  if (error != NULL)
    {
      GtkWidget *dialog = adw_message_dialog_new (parent, _("The report could not be saved"), error->message);

      adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
      gtk_window_present (GTK_WINDOW (dialog));
    }
  else if (toasts != NULL && !gtk_widget_in_destruction (GTK_WIDGET (toasts)))
    adw_toast_overlay_add_toast (toasts, sim_export_dialog_new_toast (parent, export->path));
}

void
sim_export_dialog_write (GtkWindow       *parent,
                         AdwToastOverlay *toasts,
                         SimReportView   *view,
                         const char      *path,
                         gboolean         pdf)
{
  g_autoptr(GTask) task = g_task_new (NULL, NULL, on_written, NULL);
  Export *export = g_new0 (Export, 1);

  g_weak_ref_init (&export->parent, parent);
  g_weak_ref_init (&export->toasts, toasts);
  export->view = sim_report_view_ref (view);
  export->path = g_strdup (path);
  export->pdf = pdf;
  g_task_set_task_data (task, export, (GDestroyNotify) export_free);
  g_task_run_in_thread (task, write_thread);
}

/* ------------------------------------------------------------ the dialog */

static void
on_response (GtkNativeDialog *dialog,
             int              response,
             Export          *export)
{
  g_autoptr(GtkWindow) parent = g_weak_ref_get (&export->parent);
  g_autoptr(AdwToastOverlay) toasts = g_weak_ref_get (&export->toasts);

  if (response == GTK_RESPONSE_ACCEPT && parent != NULL)
    {
      GtkFileFilter *filter = gtk_file_chooser_get_filter (GTK_FILE_CHOOSER (dialog));
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *chosen = file ? g_file_get_path (file) : NULL;
      gboolean pdf = filter != NULL && g_strcmp0 (g_object_get_data (G_OBJECT (filter), "suffix"), "pdf") == 0;

      if (chosen == NULL)
        {
          GtkWidget *error = adw_message_dialog_new (parent, _("The report could not be saved"),
                                                     _("Only local files can be written"));

          adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (error), "close", _("_Close"));
          gtk_window_present (GTK_WINDOW (error));
        }
      else
        {
          g_autofree char *path = sim_export_dialog_path_for (chosen, pdf, &pdf);

          sim_export_dialog_write (parent, toasts, export->view, path, pdf);
        }
    }
  export_free (export);
  g_object_unref (dialog);
}

void
sim_export_dialog_show (GtkWindow       *parent,
                        AdwToastOverlay *toasts,
                        const char      *title,
                        const char      *suggested_name,
                        SimReportView   *view)
{
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (title, parent, GTK_FILE_CHOOSER_ACTION_SAVE,
                                                              _("_Export"), _("_Cancel"));
  GtkFileFilter *html = gtk_file_filter_new (), *pdf = gtk_file_filter_new ();
  Export *export = g_new0 (Export, 1);

  g_weak_ref_init (&export->parent, parent);
  g_weak_ref_init (&export->toasts, toasts);
  export->view = sim_report_view_ref (view);
  gtk_file_filter_set_name (html, _("Web page (HTML)"));
  gtk_file_filter_add_suffix (html, "html");
  g_object_set_data (G_OBJECT (html), "suffix", (gpointer) "html");
  gtk_file_filter_set_name (pdf, _("PDF document"));
  gtk_file_filter_add_suffix (pdf, "pdf");
  g_object_set_data (G_OBJECT (pdf), "suffix", (gpointer) "pdf");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), html);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), pdf);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), suggested_name);
  {
    g_autoptr(GFile) folder = sim_export_dialog_suggest_folder ();

    gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (dialog), folder, NULL);
  }
  g_object_unref (html);
  g_object_unref (pdf);
  g_signal_connect (dialog, "response", G_CALLBACK (on_response), export);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}
