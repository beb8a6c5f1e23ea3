/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The one export dialog of every window: HTML or PDF, the file type chosen
 * in the dialog decides the format and gives the name its extension (a name
 * typed with the other type's extension keeps it, and that type).
 */
#pragma once

#include <gtk/gtk.h>

#include "sim-report.h"

G_BEGIN_DECLS

/* Called when the export failed (never on success or cancel). */
typedef void (*SimExportFailedFunc) (GError   *error,
                                     gpointer  user_data);

void     sim_export_dialog_show     (GtkWindow           *parent,
                                     const char          *title,
                                     const char          *suggested_name,
                                     SimReport           *report,
                                     SimExportFailedFunc  failed,
                                     gpointer             user_data);

/* The path to write for @chosen under the dialog's type (@pdf or HTML), and
 * in *@out_pdf the format it will be written in. (transfer full) */
char    *sim_export_dialog_path_for (const char          *chosen,
                                     gboolean             pdf,
                                     gboolean            *out_pdf);

G_END_DECLS
