/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The main window's fields and the functions its files share: sim-window.c
 * (the object, checking, actions and settings), sim-window-corpus.c (opening,
 * importing into, rebuilding and repairing the store),
 * sim-window-report.c (drawing the session's view: figures, sources,
 * highlights, the chart and the comparison) and sim-window-files.c (the text,
 * its file, saved reports and recent files). Nothing else reaches in.
 */
#pragma once

#include <adwaita.h>

#include "sim-chart.h"
#include "sim-comparison.h"
#include "sim-session.h"
#include "sim-window.h"

G_BEGIN_DECLS

struct _SimWindow {
  GtkApplicationWindow parent_instance;

  /* template children */
  GtkStack          *stack;
  AdwToastOverlay   *toast_overlay;
  AdwWindowTitle    *window_title;
  AdwLeaflet        *leaflet;
  GtkWidget         *results_button;
  GtkWidget         *toolbar;
  GtkWidget         *options_button;
  GtkWidget         *back_button;
  GtkScrolledWindow *results_scroll;
  GtkWidget         *defaults_label;
  GtkWidget         *reset_button;
  GtkLabel          *read_only_label;
  GtkTextView       *editor;
  GtkDropDown       *mode_dropdown;
  GtkSpinButton     *window_spin;
  GtkCheckButton    *fast_check;
  GtkCheckButton    *exclude_quotes_check;
  GtkCheckButton    *exclude_references_check;
  GtkDropDown       *highlight_dropdown;
  GtkWidget         *level_legend;
  GtkButton         *show_all_button;
  GtkButton         *check_button;
  GtkButton         *cancel_button;
  GtkProgressBar    *progress_bar;
  GtkLabel          *summary_label;
  GtkLabel          *warning_label;  /* the disguises found, in words */
  GtkLabel          *counts_label;
  GtkListBox        *sources_list;
  SimComparison     *comparison;
  SimChart          *chart;

  /* owned */
  GSettings         *settings;
  char              *store_path;
  SimSession        *session;     /* the text's file, its report and the view shown */
  GCancellable      *cancellable; /* of the running check or import */
  GtkWidget         *corpus_window; /* weak: the corpus manager while it is open */
  GFile             *loading;     /* a large file being opened, or NULL */
  GtkLabel          *template_label;
  GtkSpinButton     *exclude_small_spin;
  GMenu             *recent_section; /* template: Open Recent's items */
  gint               selected;    /* segment shown in the source pane, or -1 */
  gint               filter;      /* the only source whose flags are shown, or -1 */
  guint              sources_idle; /* adds the rest of the sources list, or 0 */
  gboolean           previews_valid; /* the text is still the one being checked */
  gboolean           busy;
  gboolean           read_only;   /* the store may be read, not changed */
  gboolean           server_fresh; /* a server's snapshot just made for the check that follows */
};

/* The report of the text, even when stale, or NULL. */
#define REPORT(self) sim_session_get_report ((self)->session)
/* The corpus as of the last open or import, or NULL. */
#define SNAPSHOT(self) sim_session_get_snapshot ((self)->session)

/* sim-window-status.c: the bottom, calling none of the others. */
void      _sim_window_update_actions (SimWindow *self);
void      _sim_window_set_busy (SimWindow *self,
                                gboolean busy,
                                const char *what);
void      _sim_window_show_error (SimWindow *self,
                                  const char *primary,
                                  GError *error);
gboolean  _sim_window_scroll_to_comparison (GtkWidget *widget,
                                            GdkFrameClock *clock,
                                            gpointer data);

/* sim-window-corpus.c */
void      _sim_window_load_corpus (SimWindow *self);
/* Makes the snapshot of the corpus server at self->store_path on a thread,
 * then checks the text when @check_after. */
void      _sim_window_open_server (SimWindow *self,
                                   gboolean   check_after);
void      _sim_window_repair_corpus_action (GtkWidget *widget,
                                            const char *action_name,
                                            GVariant *parameter);
void      _sim_window_on_fold_changed (GSettings *settings,
                                       const char *key,
                                       SimWindow *self);

/* sim-window-report.c: drawing the session's view. */
void      _sim_window_show_source (SimWindow *self,
                                   guint index);
void      _sim_window_apply_highlights (SimWindow *self);
void      _sim_window_on_view_changed (SimSession *session,
                                       GParamSpec *pspec,
                                       SimWindow *self);
void      _sim_window_on_highlight_changed (GSettings *settings,
                                            const char *key,
                                            SimWindow *self);
void      _sim_window_on_exclusions_changed (GSettings *settings,
                                             const char *key,
                                             SimWindow *self);
void      _sim_window_show_no_view (SimWindow *self);

/* sim-window-files.c: the text and its file (uses sim-window-report.c). */
void      _sim_window_save_report_action (GtkWidget *widget,
                                          const char *action_name,
                                          GVariant *parameter);
void      _sim_window_open_recent_action (GtkWidget *widget,
                                          const char *action_name,
                                          GVariant *parameter);
void      _sim_window_show_all_sources_action (GtkWidget *widget,
                                               const char *action_name,
                                               GVariant *parameter);
void      _sim_window_on_text_changed (GtkTextBuffer *buffer,
                                       SimWindow *self);
void      _sim_window_update_title (SimWindow *self);
void      _sim_window_on_mark_set (GtkTextBuffer *buffer,
                                   const GtkTextIter *location,
                                   GtkTextMark *mark,
                                   SimWindow *self);
void      _sim_window_on_editor_click (GtkGestureClick *gesture,
                                       int n_press,
                                       double x,
                                       double y,
                                       SimWindow *self);
gboolean  _sim_window_on_drop (GtkDropTarget *target,
                               const GValue *value,
                               double x,
                               double y,
                               SimWindow *self);
void      _sim_window_on_source_activated (GtkListBox *list,
                                           GtkListBoxRow *row,
                                           SimWindow *self);
void      _sim_window_update_recent (SimWindow *self);

G_END_DECLS
