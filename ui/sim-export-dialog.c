/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "sim-export.h"
#include "sim-export-dialog.h"

typedef struct {
  SimReport           *report;
  SimExportFailedFunc  failed;
  gpointer             user_data;
} Export;

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

static void
on_response (GtkNativeDialog *dialog,
             int              response,
             Export          *export)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      GtkFileFilter *filter = gtk_file_chooser_get_filter (GTK_FILE_CHOOSER (dialog));
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *chosen = file ? g_file_get_path (file) : NULL;
      g_autoptr(GError) error = NULL;
      gboolean pdf = filter != NULL && g_strcmp0 (g_object_get_data (G_OBJECT (filter), "suffix"), "pdf") == 0;

      if (chosen == NULL)
        error = g_error_new (G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("Only local files can be written"));
      else
        {
          g_autofree char *path = sim_export_dialog_path_for (chosen, pdf, &pdf);

          if (pdf)
            sim_export_pdf_file (export->report, path, &error);
          else
            sim_export_html_file (export->report, path, &error);
        }
      if (error != NULL && export->failed != NULL)
        export->failed (error, export->user_data);
    }
  sim_report_unref (export->report);
  g_free (export);
  g_object_unref (dialog);
}

void
sim_export_dialog_show (GtkWindow           *parent,
                        const char          *title,
                        const char          *suggested_name,
                        SimReport           *report,
                        SimExportFailedFunc  failed,
                        gpointer             user_data)
{
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (title, parent, GTK_FILE_CHOOSER_ACTION_SAVE,
                                                              _("_Export"), _("_Cancel"));
  GtkFileFilter *html = gtk_file_filter_new (), *pdf = gtk_file_filter_new ();
  Export *export = g_new0 (Export, 1);

  export->report = sim_report_ref (report);
  export->failed = failed;
  export->user_data = user_data;
  gtk_file_filter_set_name (html, _("Web page (HTML)"));
  gtk_file_filter_add_suffix (html, "html");
  g_object_set_data (G_OBJECT (html), "suffix", (gpointer) "html");
  gtk_file_filter_set_name (pdf, _("PDF document"));
  gtk_file_filter_add_suffix (pdf, "pdf");
  g_object_set_data (G_OBJECT (pdf), "suffix", (gpointer) "pdf");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), html);
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (dialog), pdf);
  gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (dialog), suggested_name);
  g_object_unref (html);
  g_object_unref (pdf);
  g_signal_connect (dialog, "response", G_CALLBACK (on_response), export);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}
