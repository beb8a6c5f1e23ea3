/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The one export dialog of every window: HTML or PDF, the file type chosen
 * in the dialog decides the format and gives the name its extension (a name
 * typed with the other type's extension keeps it, and that type). The file
 * is written in a task thread (a PDF of a long article takes seconds); a
 * toast on @toasts says it is saved, with Open and Show in Folder, or a
 * dialog says why it is not.
 */
#pragma once

#include <adwaita.h>

#include "sim-report-view.h"

G_BEGIN_DECLS

void      sim_export_dialog_show     (GtkWindow           *parent,
                                      AdwToastOverlay     *toasts,
                                      const char          *title,
                                      const char          *suggested_name,
                                      SimReportView       *view);

/* What the dialog does once a file is chosen: writes @view to @path in a
 * task thread, then the toast or the error; a written report's folder is
 * the one offered next time. */
void      sim_export_dialog_write    (GtkWindow           *parent,
                                      AdwToastOverlay     *toasts,
                                      SimReportView       *view,
                                      const char          *path,
                                      gboolean             pdf);

/* The name offered for a report of @essay (a file name, or NULL for
 * pasted text) without its extension: "essay-similarity", else
 * @fallback. (transfer full) */
char     *sim_export_dialog_suggest_name (const char       *essay,
                                          const char       *fallback);
/* The folder offered: the last one a report was written to (the
 * export-folder setting), else the documents folder. (transfer full) */
GFile    *sim_export_dialog_suggest_folder (void);

/* The toast for a report saved at @path: its name, "Open", and "Show in
 * Folder". (transfer full) */
AdwToast *sim_export_dialog_new_toast (GtkWindow          *parent,
                                       const char         *path);

/* The path to write for @chosen under the dialog's type (@pdf or HTML), and
 * in *@out_pdf the format it will be written in. (transfer full) */
char     *sim_export_dialog_path_for (const char          *chosen,
                                      gboolean             pdf,
                                      gboolean            *out_pdf);

G_END_DECLS
