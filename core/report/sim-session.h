/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One article being checked, without widgets: the corpus it is checked
 * against, the file it came from, the report of its last check and the view
 * of that report under the chosen exclusions. The window is a view of a
 * session; tests drive one without a display.
 *
 * The rule it keeps: a report belongs to one text. Opening another text
 * (or a saved report) replaces the report or clears it; editing the text
 * makes the report stale, and a stale session has no view: nothing of the
 * old report may claim a match in the new text. A check started on a text
 * that is edited before it finishes comes back stale.
 *
 * Thread rule: a session belongs to the thread that made it (the main
 * thread in the app); the check runs in a task thread on a copy of the
 * text, and its report and views are immutable, so they may be handed to
 * export threads. Every change of what is shown is one notify::view.
 */
#pragma once

#include <gio/gio.h>

#include "sim-check.h"
#include "sim-corpus.h"
#include "sim-document.h"
#include "sim-report-view.h"

G_BEGIN_DECLS

#define SIM_TYPE_SESSION (sim_session_get_type ())
G_DECLARE_FINAL_TYPE (SimSession, sim_session, SIM, SESSION, GObject)

SimSession        *sim_session_new              (void);

/* The corpus checks run against (NULL: none yet). */
void               sim_session_set_snapshot     (SimSession        *self,
                                                 SimCorpusSnapshot *snapshot);
SimCorpusSnapshot *sim_session_get_snapshot     (SimSession        *self);

/* A new text: from @file (NULL: pasted or typed), with what reading it
 * left out (@notes, may be NULL). The report goes, unless @saved is the
 * saved report the file was (its text is the text). */
void               sim_session_open_text        (SimSession             *self,
                                                 GFile                  *file,
                                                 const SimDocumentNotes *notes,
                                                 SimReport              *saved);
/* The text was edited: the report, if any, no longer holds. */
void               sim_session_text_edited      (SimSession        *self);

GFile             *sim_session_get_file         (SimSession        *self);
/* The file's name for headers and exports ("essay.docx"), or NULL. */
const char        *sim_session_get_name         (SimSession        *self);
/* The report of the last check of the text, even when stale, or NULL. */
SimReport         *sim_session_get_report       (SimSession        *self);
/* The report as shown under the chosen exclusions; NULL without a report
 * or when it is stale. */
SimReportView     *sim_session_get_view         (SimSession        *self);
gboolean           sim_session_is_stale         (SimSession        *self);

/* Checks @text (the session's text as it is now) in a task thread. On
 * success the report is the session's, named after the file and with the
 * file's hidden text recorded, and the view follows; a text edited in the
 * meantime leaves it stale. Progress and previews come on the main
 * context, as sim_check_run_async() gives them. */
void               sim_session_check_async      (SimSession            *self,
                                                 const char            *text,
                                                 const SimCheckOptions *options,
                                                 SimProgressFunc        progress,
                                                 SimCheckPreviewFunc    preview,
                                                 gpointer               progress_data,
                                                 GCancellable          *cancellable,
                                                 GAsyncReadyCallback    callback,
                                                 gpointer               user_data);
gboolean           sim_session_check_finish     (SimSession            *self,
                                                 GAsyncResult          *result,
                                                 GError               **error);

/* The choices of what not to count; each makes a new view, no lookup. */
void               sim_session_set_exclusions   (SimSession        *self,
                                                 gboolean           quotes,
                                                 gboolean           references,
                                                 guint              small_words);
void               sim_session_set_source_counted (SimSession      *self,
                                                   gint64           doc_id,
                                                   gboolean         counted);
gboolean           sim_session_is_source_counted  (SimSession      *self,
                                                   gint64           doc_id);
/* The assignment's own text (NULL: none), aligned once per report. */
void               sim_session_set_template     (SimSession        *self,
                                                 const char        *text);
const char        *sim_session_get_template     (SimSession        *self);

G_END_DECLS
