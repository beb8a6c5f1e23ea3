/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Opening a file into the editor: what a file gives (its text, or for a
 * report saved by "Save Report" the report, text included), loading a large
 * one without freezing the window, and the recent files. Used by the window;
 * it never calls the window.
 */
#pragma once

#include <gtk/gtk.h>

#include "sim-document.h"
#include "sim-report.h"

G_BEGIN_DECLS

/* Files larger than this are loaded with sim_open_load_async. */
#define SIM_OPEN_IN_BACKGROUND (1 << 20)
#define SIM_OPEN_N_RECENT      8

/* The text of @path, or with a .json name the saved report in it (one of
 * the two is set on success), and what reading a document left out (may
 * be NULL). Safe in any thread. */
gboolean sim_open_read_file    (const char        *path,
                                char             **out_text,
                                SimReport        **out_report,
                                SimDocumentNotes  *out_notes,
                                GError           **error);

typedef void (*SimOpenProgress) (double   fraction,
                                 gpointer user_data);

/* Reads @file in a thread, then replaces @buffer's text with it one slice
 * per main-loop turn, reporting the share done. Cancelled, it empties the
 * buffer and finishes with G_IO_ERROR_CANCELLED. */
void     sim_open_load_async   (GFile               *file,
                                GtkTextBuffer       *buffer,
                                GCancellable        *cancellable,
                                SimOpenProgress      progress,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data);
/* *@out_report: the saved report the file held, or NULL for a document;
 * *@out_notes (may be NULL) what reading a document left out. */
gboolean sim_open_load_finish  (GAsyncResult        *result,
                                SimReport          **out_report,
                                SimDocumentNotes    *out_notes,
                                GError             **error);

/* Registers @file as opened by this application. */
void     sim_open_remember     (GFile               *file);
/* Fills @section with the last SIM_OPEN_N_RECENT files this application
 * opened that are still there, newest first, each activating @action with
 * its URI. */
void     sim_open_fill_recent  (GMenu               *section,
                                const char          *action);

G_END_DECLS
