/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The main window: the article editor with highlighted segments, the check
 * controls, the summary, the sources, the source of the selected segment and
 * the chart. Long work (checks, imports) runs off the main thread.
 */
#pragma once

#include <gtk/gtk.h>

#include "sim-report-view.h"

G_BEGIN_DECLS

#define SIM_TYPE_WINDOW (sim_window_get_type ())
G_DECLARE_FINAL_TYPE (SimWindow, sim_window, SIM, WINDOW, GtkApplicationWindow)

SimWindow  *sim_window_new            (GtkApplication *app,
                                       const char     *store_path);
void        sim_window_open_file      (SimWindow      *self,
                                       GFile          *file);
void        sim_window_set_text       (SimWindow      *self,
                                       const char     *text);
/* Imports files and folders in the background, with progress and cancel. */
void        sim_window_add_documents  (SimWindow         *self,
                                       const char *const *paths);
/* The same for a folder already in the corpus: new and changed files are
 * imported, documents whose file is gone removed (sim_corpus_rescan). */
void        sim_window_rescan_folder  (SimWindow         *self,
                                       const char        *folder);
/* Opens a window comparing @a_path with @b_path, as "Compare Two
 * Documents…" does once both are chosen (transfer none). */
GtkWidget  *sim_window_compare        (SimWindow      *self,
                                       const char     *a_path,
                                       const char     *b_path);
/* Starts a check, as the Check button does. */
void        sim_window_check          (SimWindow      *self);
/* Mends the reference corpus as `simhound-cli corpus rebuild` does, in a
 * thread, and says what it did; offered wherever damage is reported. */
void        sim_window_repair_corpus  (SimWindow      *self);
/* The session the window shows: its text's file, report and view
 * (borrowed). The window draws whatever view the session has. */
struct _SimSession *sim_window_get_session (SimWindow *self);
/* The session's report and view (borrowed): sim_session_get_report(),
 * sim_session_get_view(). */
SimReport  *sim_window_get_report     (SimWindow      *self);
SimReportView *sim_window_get_view   (SimWindow      *self);
gboolean    sim_window_is_busy        (SimWindow      *self);
/* Shows only the flags of the source ranked @index (0-based; its number
 * less one), or every source's for -1. */
void        sim_window_filter_source  (SimWindow      *self,
                                       gint            index);
void        sim_window_select_segment (SimWindow      *self,
                                       guint           index);


/* Writes the report shown, with its text, where "Save Report" does;
 * opening that file (sim_window_open_file) shows it again without a check. */
gboolean    sim_window_save_report    (SimWindow   *self,
                                       const char  *path,
                                       GError     **error);

/* Open Recent's items: files this app opened, newest first. */
GMenuModel *sim_window_get_recent_menu (SimWindow  *self);

/* Whether the toolbar's choices are the defaults (it says so; otherwise it
 * offers "Reset to Defaults", the action win.reset-choices). */
gboolean    sim_window_choices_are_default (SimWindow *self);

/* Counts source @index of the report shown, or leaves it out (a student's
 * own earlier work), as its tick in the list of sources does; recomputed
 * without a new lookup. */
void        sim_window_set_source_counted (SimWindow *self,
                                           guint      index,
                                           gboolean   counted);
/* The assignment's own text (its passages are never flagged), or NULL. */
void        sim_window_set_template   (SimWindow  *self,
                                       const char *name,
                                       const char *text);

G_END_DECLS
