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
  GtkTextTag        *tag_high;
  GtkTextTag        *tag_medium;
  GtkTextTag        *tag_excluded;
  GtkTextTag        *tag_source[SIM_SOURCE_N_COLORS];
  GtkWidget         *corpus_window; /* weak: the corpus manager while it is open */
  GFile             *loading;     /* a large file being opened, or NULL */
  GtkLabel          *template_label;
  GtkSpinButton     *exclude_small_spin;
  GMenu             *recent_section; /* template: Open Recent's items */
  gint               selected;    /* segment shown in the source pane, or -1 */
  gint               filter;      /* the only source whose flags are shown, or -1 */
  gboolean           previews_valid; /* the text is still the one being checked */
  gboolean           busy;
  gboolean           read_only;   /* the store may be read, not changed */
};

G_DEFINE_FINAL_TYPE (SimWindow, sim_window, GTK_TYPE_APPLICATION_WINDOW)

/* The report of the text, even when stale, or NULL. */
#define REPORT(self) sim_session_get_report ((self)->session)
/* The corpus as of the last open or import, or NULL. */
#define SNAPSHOT(self) sim_session_get_snapshot ((self)->session)

static void update_actions (SimWindow *self);
static gboolean scroll_to_comparison (GtkWidget     *widget,
                                      GdkFrameClock *clock,
                                      gpointer       data);

/* ------------------------------------------------------------- corpus */

static void on_fold_changed (GSettings  *settings,
                             const char *key,
                             SimWindow  *self);

static void
on_error_response (AdwMessageDialog *dialog,
                   const char       *response,
                   SimWindow        *self)
{
  if (g_str_equal (response, "repair"))
    sim_window_repair_corpus (self);
}

static void
show_error (SimWindow  *self,
            const char *primary,
            GError     *error)
{
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), primary, error->message);

  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  /* Damage is never a dead end: the same repair as `corpus rebuild`. */
  if (g_error_matches (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT) && !self->read_only)
    {
      adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "repair", _("_Repair"));
      adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "repair", ADW_RESPONSE_SUGGESTED);
      adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "repair");
      g_signal_connect_object (dialog, "response", G_CALLBACK (on_error_response), self, 0);
    }
  gtk_window_present (GTK_WINDOW (dialog));
}

/* Opens the store (creating it if needed) and shows the main page or the
 * empty state. Opening maps the index files: fast. */
static void
load_corpus (SimWindow *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCorpus) corpus = NULL;

  /* A store this user may not write (a teacher's shared corpus, a
   * read-only disk) is still checked against; only its edits are off. */
  self->read_only = sim_store_path_is_read_only (self->store_path);
  corpus = sim_corpus_open (self->store_path, self->read_only, &error);
  if (self->read_only)
    {
      g_autofree char *name = g_filename_display_name (self->store_path);
      g_autofree char *text = g_strdup_printf (_("The reference corpus %s is read-only: you can check against it, "
                                                 "but not add or remove documents."), name);

      gtk_label_set_text (self->read_only_label, text);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->read_only_label), self->read_only);
  sim_session_set_snapshot (self->session, NULL);
  if (corpus == NULL)
    {
      gtk_stack_set_visible_child_name (self->stack, "main");
      show_error (self, _("The reference corpus cannot be opened"), error);
    }
  else
    {
      g_autoptr(SimCorpusSnapshot) snapshot = sim_corpus_ref_snapshot (corpus);

      sim_session_set_snapshot (self->session, snapshot);
      /* The preference mirrors the store's own setting. */
      g_signal_handlers_block_by_func (self->settings, on_fold_changed, self);
      g_settings_set_boolean (self->settings, "fold-traditional",
                              (sim_corpus_get_flags (corpus) & SIM_NORMALIZE_FOLD_T2S) != 0);
      g_signal_handlers_unblock_by_func (self->settings, on_fold_changed, self);
      gtk_stack_set_visible_child_name (self->stack,
                                        sim_corpus_snapshot_get_n_docs (SNAPSHOT (self)) > 0 ? "main" : "empty");
    }
  update_actions (self);
}

/* --------------------------------------------------------------- report */

static void
clear_source_pane (SimWindow *self)
{
  sim_comparison_clear (self->comparison, _("Click a highlighted segment to compare it with its source."));
}

static void
show_source (SimWindow *self,
             guint      index)
{
  sim_comparison_show (self->comparison, sim_session_get_view (self->session), SNAPSHOT (self), index, 0);
}

void
sim_window_select_segment (SimWindow *self,
                           guint      index)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->editor);
  const SimReportSegment *seg;
  GtkTextIter start;

  g_return_if_fail (SIM_IS_WINDOW (self));
  /* A stale report claims nothing in the text as it is now. */
  if (sim_session_get_view (self->session) == NULL || index >= sim_report_get_n_segments (REPORT (self)))
    return;
  seg = sim_report_get_segment (REPORT (self), index);
  self->selected = index;
  sim_chart_set_selected (self->chart, index);
  sim_article_view_set_outline (SIM_ARTICLE_VIEW (self->editor), -1, -1);
  if (seg->n_matches > 0)
    {
      const SimMatch *m = sim_report_get_match (REPORT (self), seg->first_match);
      g_autofree char *said = g_strdup_printf (seg->level == SIM_LEVEL_HIGH
                                                 ? _("High similarity, %.0f%%, with %s")
                                                 : seg->level == SIM_LEVEL_MEDIUM
                                                   ? _("Medium similarity, %.0f%%, with %s")
                                                   : _("Low similarity, %.0f%%, with %s"),
                                               100 * m->similarity,
                                               sim_report_get_source (REPORT (self), m->source)->title);

      /* What a screen reader says for the segment under the cursor. */
      gtk_accessible_update_property (GTK_ACCESSIBLE (self->editor), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, said, -1);
    }
  gtk_text_buffer_get_iter_at_offset (buffer, &start, seg->start);
  sim_article_view_set_outline (SIM_ARTICLE_VIEW (self->editor), seg->start, seg->end);
  gtk_text_view_scroll_to_iter (self->editor, &start, 0.1, FALSE, 0, 0);
  show_source (self, index);
  /* A flag chosen on a narrow window: its comparison takes the screen. */
  if (adw_leaflet_get_folded (self->leaflet))
    {
      adw_leaflet_set_visible_child_name (self->leaflet, "results");
      gtk_widget_add_tick_callback (GTK_WIDGET (self), scroll_to_comparison, NULL, NULL);
    }
}

void
sim_window_set_source_counted (SimWindow *self,
                               guint      index,
                               gboolean   counted)
{
  g_return_if_fail (REPORT (self) != NULL && index < sim_report_get_n_sources (REPORT (self)));
  /* A new view of the report shown: no new lookup. */
  sim_session_set_source_counted (self->session, sim_report_get_source (REPORT (self), index)->doc_id, counted);
}

static void
on_counted_toggled (GtkCheckButton *check,
                    SimWindow      *self)
{
  sim_window_set_source_counted (self, GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (check), "sim-source")),
                                 gtk_check_button_get_active (check));
}

static GtkWidget *
make_source_row (SimWindow             *self,
                 const SimReportSource *src,
                 const SimSourceShare  *shown,
                 guint                  number)
{
  GtkWidget *counted = gtk_check_button_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
  g_autofree char *digits = g_strdup_printf ("%u", number);
  g_autofree char *swatch_class = g_strdup_printf ("source-%u", (number - 1) % SIM_SOURCE_N_COLORS + 1);
  g_autofree char *share = g_strdup_printf ("%.1f%%", 100 * shown->share);
  g_autofree char *count = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u segment", "%u segments", shown->n_segments),
                                            shown->n_segments);
  g_autofree char *said = g_strdup_printf (_("Source %u: %s, %.1f%% of the article"), number, src->title,
                                           100 * shown->share);
  GtkWidget *badge = gtk_label_new (digits);
  GtkWidget *title = gtk_label_new (src->title);

  gtk_widget_add_css_class (badge, "source-badge");
  gtk_widget_add_css_class (badge, swatch_class);
  gtk_label_set_ellipsize (GTK_LABEL (title), PANGO_ELLIPSIZE_END);
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_widget_set_hexpand (title, TRUE);
  gtk_widget_set_tooltip_text (box, src->display_path);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (counted), sim_session_is_source_counted (self->session, src->doc_id));
  gtk_widget_set_tooltip_text (counted, _("Count this source; untick it to leave it out (the student's own earlier work)"));
  g_object_set_data (G_OBJECT (counted), "sim-source", GUINT_TO_POINTER (number - 1));
  g_signal_connect (counted, "toggled", G_CALLBACK (on_counted_toggled), self);
  gtk_box_append (GTK_BOX (box), counted);
  gtk_box_append (GTK_BOX (box), badge);
  gtk_box_append (GTK_BOX (box), gtk_label_new (share));
  gtk_box_append (GTK_BOX (box), title);
  gtk_box_append (GTK_BOX (box), gtk_label_new (count));
  gtk_accessible_update_property (GTK_ACCESSIBLE (box), GTK_ACCESSIBLE_PROPERTY_LABEL, said, -1);
  g_object_set_data_full (G_OBJECT (box), "sim-said", g_steal_pointer (&said), g_free);
  return box;
}

/* Colours the flagged runs of the view shown, by source or by level as
 * chosen, only those of the filtered source when there is one; what the
 * chosen exclusions leave out is greyed, not hidden. The article view
 * numbers each run. */
static void
apply_highlights (SimWindow *self)
{
  SimReportView *view = sim_session_get_view (self->session);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->editor);
  const gboolean by_source = g_settings_get_enum (self->settings, "highlight") == 0;
  g_autoptr(GArray) numbered = g_array_new (FALSE, FALSE, sizeof (SimArticleRun));
  gint64 stretch_start = -1;
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_text_buffer_remove_all_tags (buffer, &start, &end);
  gtk_widget_set_visible (self->level_legend, !by_source);
  gtk_widget_set_visible (GTK_WIDGET (self->show_all_button), self->filter >= 0);
  for (guint r = 0; r < sim_report_view_get_n_runs (view); r++)
    {
      const SimFlaggedRun *run = sim_report_view_get_run (view, r);
      GtkTextTag *tag;

      if (self->filter >= 0 && run->source != (guint) self->filter)
        continue;
      if (run->excluded)
        tag = self->tag_excluded;
      else if (by_source)
        tag = self->tag_source[run->source % SIM_SOURCE_N_COLORS];
      else
        tag = run->level == SIM_LEVEL_HIGH ? self->tag_high : self->tag_medium;
      gtk_text_iter_set_offset (&start, run->start);
      end = start;
      gtk_text_iter_set_offset (&end, run->end);
      gtk_text_buffer_apply_tag (buffer, tag, &start, &end);
      /* Numbered once a stretch, as in the exports. */
      if (stretch_start < 0)
        stretch_start = run->start;
      if (run->numbered)
        {
          g_array_append_val (numbered, ((SimArticleRun) { stretch_start, run->end, run->source + 1 }));
          stretch_start = -1;
        }
    }
  sim_article_view_set_runs (SIM_ARTICLE_VIEW (self->editor), (SimArticleRun *) numbered->data, numbered->len);
}

static void
on_highlight_changed (GSettings  *settings,
                      const char *key,
                      SimWindow  *self)
{
  if (sim_session_get_view (self->session) != NULL && !self->busy)
    apply_highlights (self);
}

/* The toolbar's choices of what not to count, given to the session: a new
 * view of the same report, no new lookup. */
static void
on_exclusions_changed (GSettings  *settings,
                       const char *key,
                       SimWindow  *self)
{
  sim_session_set_exclusions (self->session, g_settings_get_boolean (self->settings, "exclude-quotes"),
                              g_settings_get_boolean (self->settings, "exclude-references"),
                              g_settings_get_uint (self->settings, "exclude-small"));
}

/* Nothing of a report is shown: none yet, or the text changed since (then
 * the summary says so). */
static void
show_no_view (SimWindow *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->editor);
  GtkWidget *child;
  GtkTextIter start, end;
  const gboolean stale = sim_session_is_stale (self->session);

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_text_buffer_remove_all_tags (buffer, &start, &end);
  sim_article_view_set_runs (SIM_ARTICLE_VIEW (self->editor), NULL, 0);
  sim_article_view_set_outline (SIM_ARTICLE_VIEW (self->editor), -1, -1);
  self->selected = -1;
  self->filter = -1;
  gtk_widget_set_visible (GTK_WIDGET (self->show_all_button), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->warning_label), FALSE);
  if (stale)
    {
      gtk_widget_add_css_class (GTK_WIDGET (self->summary_label), "stale");
      gtk_label_set_text (self->counts_label, _("The text has changed since the check: check again to update."));
    }
  else
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->summary_label), "stale");
      gtk_label_set_text (self->summary_label, "");
      gtk_label_set_text (self->counts_label, "");
    }
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->sources_list))) != NULL)
    gtk_list_box_remove (self->sources_list, child);
  sim_chart_set_view (self->chart, NULL);
  clear_source_pane (self);
  update_actions (self);
}

/* Draws the session's view: highlights, figures, warnings, sources, chart. */
static void
on_view_changed (SimSession *session,
                 GParamSpec *pspec,
                 SimWindow  *self)
{
  SimReportView *view = sim_session_get_view (session);
  SimReport *report;
  g_autofree char *summary = NULL, *counts = NULL;
  GtkWidget *child;

  if (view == NULL)
    {
      show_no_view (self);
      return;
    }
  report = sim_report_view_get_report (view);
  gtk_widget_remove_css_class (GTK_WIDGET (self->summary_label), "stale");
  self->selected = -1;

  self->filter = -1;
  sim_article_view_set_outline (SIM_ARTICLE_VIEW (self->editor), -1, -1);
  apply_highlights (self);

  summary = g_strdup_printf (_("%.1f%% similar"), 100 * sim_report_view_get_similarity (view));
  gtk_label_set_text (self->summary_label, summary);
  {
    const SimRatios *r = sim_report_view_get_ratios (view);

    counts = g_strdup_printf (_("%u high, %u medium and %u low segments, against %u documents\n"
                                "Total %.1f%% · without quotes %.1f%% · without references %.1f%% · "
                                "largest source %.1f%%"),
                              sim_report_view_count_level (view, SIM_LEVEL_HIGH),
                              sim_report_view_count_level (view, SIM_LEVEL_MEDIUM),
                              sim_report_view_count_level (view, SIM_LEVEL_LOW),
                              sim_report_get_settings (report)->n_documents,
                              100 * r->total, 100 * r->excluding_quotes, 100 * r->excluding_references,
                              100 * r->largest_source);
  }
  gtk_label_set_text (self->counts_label, counts);
  {
    g_autoptr(GString) warnings = g_string_new (NULL);

    for (guint i = 0; i < sim_report_get_n_suspicious (report); i++)
      {
        g_autofree char *what = sim_suspicious_dup_description (sim_report_get_suspicious (report, i));

        if (warnings->len > 0)
          g_string_append_c (warnings, '\n');
        /* TRANSLATORS: %s is what was found, e.g. "3 invisible characters inside words" */
        g_string_append_printf (warnings, _("Warning: %s"), what);
      }
    gtk_label_set_text (self->warning_label, warnings->str);
    gtk_widget_set_visible (GTK_WIDGET (self->warning_label), warnings->len > 0);
  }

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->sources_list))) != NULL)
    gtk_list_box_remove (self->sources_list, child);
  /* Every source with flags, ranked and numbered as in the exports. */
  for (guint i = 0; i < sim_report_get_n_sources (report); i++)
    {
      const SimReportSource *src = sim_report_get_source (report, i);

      if (src->n_segments == 0)
        break;
      gtk_list_box_append (self->sources_list,
                           make_source_row (self, src, sim_report_view_get_share (view, i), i + 1));
    }
  sim_chart_set_view (self->chart, view);
  clear_source_pane (self);
  update_actions (self);
}

/* ---------------------------------------------------------------- check */

typedef struct {
  SimWindow *self; /* a reference: a closed window is never freed under a running check */
} CheckData;

static void
on_check_progress (guint64     done,
                   guint64     total,
                   const char *what,
                   gpointer    user_data)
{
  SimWindow *self = user_data;

  gtk_progress_bar_set_fraction (self->progress_bar, total ? (double) done / total : 0);
}

static void
on_check_preview (const SimCheckPreview *previews,
                  guint                  n,
                  gpointer               user_data)
{
  SimWindow *self = user_data;
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->editor);

  /* Offsets hold only while the text is the one being checked. */
  if (!self->previews_valid)
    return;
  for (guint i = 0; i < n; i++)
    {
      GtkTextIter start, end;

      gtk_text_buffer_get_iter_at_offset (buffer, &start, previews[i].start);
      gtk_text_buffer_get_iter_at_offset (buffer, &end, previews[i].end);
      gtk_text_buffer_apply_tag (buffer, previews[i].level == SIM_LEVEL_HIGH ? self->tag_high : self->tag_medium,
                                 &start, &end);
    }
}

static void
set_busy (SimWindow  *self,
          gboolean    busy,
          const char *what)
{
  self->busy = busy;
  gtk_widget_set_visible (GTK_WIDGET (self->progress_bar), busy);
  gtk_widget_set_visible (GTK_WIDGET (self->cancel_button), busy);
  gtk_widget_set_visible (GTK_WIDGET (self->check_button), !busy);
  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  gtk_progress_bar_set_text (self->progress_bar, what);
  update_actions (self);
}

static void
on_check_done (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  g_autoptr(SimWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  const gboolean ok = sim_session_check_finish (SIM_SESSION (source), result, &error);

  if (gtk_widget_in_destruction (GTK_WIDGET (self)) || self->settings == NULL)
    return;
  set_busy (self, FALSE, NULL);
  /* A good check was drawn when the session's view changed. */
  if (!ok && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    show_error (self, _("The text could not be checked"), error);
  else if (ok && sim_session_is_stale (self->session))
    show_no_view (self);  /* the previews go: the text changed under the check */
}

void
sim_window_check (SimWindow *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (self->editor);
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autofree char *text = NULL;
  GtkTextIter start, end;

  g_return_if_fail (SIM_IS_WINDOW (self));
  if (self->busy || SNAPSHOT (self) == NULL)
    return;
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);

  options.mode = g_settings_get_enum (self->settings, "segmentation") ? SIM_SEGMENT_WINDOW : SIM_SEGMENT_SENTENCE;
  options.window = g_settings_get_uint (self->settings, "window-size");
  options.max_distance = g_settings_get_uint (self->settings, "max-distance");
  options.fast = g_settings_get_boolean (self->settings, "fast");
  options.high_threshold = g_settings_get_double (self->settings, "high-threshold");
  options.medium_threshold = MIN (g_settings_get_double (self->settings, "medium-threshold"), options.high_threshold);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  set_busy (self, TRUE, _("Checking…"));
  /* Results of the previous check go; previews of this one come in as verified. */
  gtk_text_buffer_remove_all_tags (buffer, &start, &end);
  sim_article_view_set_runs (SIM_ARTICLE_VIEW (self->editor), NULL, 0);
  sim_article_view_set_outline (SIM_ARTICLE_VIEW (self->editor), -1, -1);
  self->previews_valid = TRUE;
  sim_session_check_async (self->session, text, &options, on_check_progress, on_check_preview, self,
                           self->cancellable, on_check_done, g_object_ref (self));
}

SimReport *
sim_window_get_report (SimWindow *self)
{
  return sim_session_get_report (self->session);
}

SimReportView *
sim_window_get_view (SimWindow *self)
{
  return sim_session_get_view (self->session);
}

struct _SimSession *
sim_window_get_session (SimWindow *self)
{
  return self->session;
}

gboolean
sim_window_is_busy (SimWindow *self)
{
  return self->busy;
}

/* --------------------------------------------------------------- import */

typedef struct {
  char         *store_path;
  GStrv         paths;
  gboolean      rescan;   /* paths[0] is a folder to bring in step */
  gint          done;     /* atomics: latest progress */
  gint          total;
  gint          waiting;  /* another writer holds the store */
  GCancellable *cancellable;  /* borrowed from the task, for the import thread */
} ImportJob;

static void
import_job_free (ImportJob *job)
{
  g_free (job->store_path);
  g_strfreev (job->paths);
  g_free (job);
}

static void
import_progress (guint64     done,
                 guint64     total,
                 const char *what,
                 gpointer    user_data)
{
  ImportJob *job = user_data;

  g_atomic_int_set (&job->waiting, 0);
  g_atomic_int_set (&job->done, done);
  g_atomic_int_set (&job->total, total);
}

/* The import thread waits for another writer (the CLI, another window)
 * for as long as it takes, unless cancelled; the window says so. */
static gboolean
import_busy (int      n_tries,
             gpointer user_data)
{
  ImportJob *job = user_data;

  g_atomic_int_set (&job->waiting, 1);
  return !g_cancellable_is_cancelled (job->cancellable);
}

static void
import_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  ImportJob *job = task_data;
  GError *error = NULL;
  /* This thread's own corpus and connection. */
  g_autoptr(SimCorpus) corpus = sim_corpus_open (job->store_path, FALSE, &error);
  SimImportResult *result = NULL;

  job->cancellable = cancellable;
  if (corpus != NULL)
    {
      sim_store_set_busy_func (sim_corpus_get_store (corpus), import_busy, job);
      result = job->rescan
        ? sim_corpus_rescan (corpus, job->paths[0], import_progress, job, cancellable, &error)
        : sim_corpus_add (corpus, (const char *const *) job->paths, import_progress, job, cancellable, &error);
    }
  if (result == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, result, (GDestroyNotify) sim_import_result_free);
}

static gboolean
poll_import (gpointer user_data)
{
  GTask *task = user_data;
  SimWindow *self = g_task_get_source_object (task);
  ImportJob *job = g_task_get_task_data (task);
  const gint total = g_atomic_int_get (&job->total);
  g_autofree char *text = NULL;

  if (g_task_get_completed (task))
    return G_SOURCE_REMOVE;
  text = g_atomic_int_get (&job->waiting)
           ? g_strdup (_("Waiting for another import or removal on this store to finish…"))
           : g_strdup_printf (_("Adding %d of %d"), g_atomic_int_get (&job->done), total);
  gtk_progress_bar_set_text (self->progress_bar, text);
  gtk_progress_bar_set_fraction (self->progress_bar, total ? (double) job->done / total : 0);
  return G_SOURCE_CONTINUE;
}

/* An import or a repair has finished with the store: the window and the
 * corpus manager show it as it is now. */
static void
store_work_done (SimWindow *self)
{
  set_busy (self, FALSE, NULL);
  load_corpus (self);
  if (self->corpus_window)
    sim_corpus_window_reload (SIM_CORPUS_WINDOW (self->corpus_window));
}

static void
on_import_done (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  SimWindow *self = SIM_WINDOW (source);
  const ImportJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  g_autoptr(SimImportResult) imported = g_task_propagate_pointer (G_TASK (result), &error);
  g_autofree char *said = NULL;
  AdwToast *toast;

  if (gtk_widget_in_destruction (GTK_WIDGET (self)) || self->settings == NULL)
    return;
  store_work_done (self);
  if (imported == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        show_error (self, _("The documents could not be added"), error);
      return;
    }
  /* What the import did, with the corpus one click away. */
  if (job->rescan)
    {
      g_autofree char *name = g_filename_display_basename (job->paths[0]);

      said = g_strdup_printf (_("Re-scanned %s: %u added, %u updated, %u removed, %u unchanged"), name,
                              imported->n_added, imported->n_updated, imported->n_removed, imported->n_unchanged);
    }
  else
    said = g_strdup_printf (_("Corpus: %u added, %u updated, %u unchanged"),
                            imported->n_added, imported->n_updated, imported->n_unchanged);
  toast = adw_toast_new (said);
  adw_toast_set_button_label (toast, _("_Show"));
  adw_toast_set_action_name (toast, "win.manage-corpus");
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
  if (imported->failures->len > 0)
    {
      g_autoptr(GString) list = g_string_new (NULL);
      g_autoptr(GError) failed = NULL;

      for (guint i = 0; i < MIN (imported->failures->len, 20); i++)
        g_string_append_printf (list, "%s\n", (const char *) g_ptr_array_index (imported->failures, i));
      failed = g_error_new_literal (SIM_ERROR, SIM_ERROR_NOT_TEXT, list->str);
      show_error (self, _("Some files could not be added; the others were"), failed);
    }
}

static void
start_import (SimWindow         *self,
              const char *const *paths,
              gboolean           rescan)
{
  g_autoptr(GTask) task = NULL;
  ImportJob *job;

  if (self->busy || self->read_only)
    return;
  /* Cancel (the button or Escape) stops the import after its current batch. */
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  task = g_task_new (self, self->cancellable, on_import_done, NULL);
  job = g_new0 (ImportJob, 1);
  job->store_path = g_strdup (self->store_path);
  job->paths = g_strdupv ((char **) paths);
  job->rescan = rescan;
  g_task_set_task_data (task, job, (GDestroyNotify) import_job_free);
  g_task_set_return_on_cancel (task, FALSE);
  set_busy (self, TRUE, rescan ? _("Re-scanning the folder…") : _("Adding documents…"));
  g_timeout_add_full (G_PRIORITY_DEFAULT, 100, poll_import, g_object_ref (task), g_object_unref);
  g_task_run_in_thread (task, import_thread);
}

void
sim_window_add_documents (SimWindow         *self,
                          const char *const *paths)
{
  start_import (self, paths, FALSE);
}

void
sim_window_rescan_folder (SimWindow  *self,
                          const char *folder)
{
  const char *paths[] = { folder, NULL };

  start_import (self, paths, TRUE);
}

/* -------------------------------------------------------------- rebuild */

static void
rebuild_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  const char *store_path = task_data;
  const gboolean fold = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (task), "fold"));
  GError *error = NULL;
  g_autoptr(SimCorpus) corpus = sim_corpus_open (store_path, FALSE, &error);

  if (corpus == NULL ||
      !sim_corpus_set_flags (corpus, fold ? SIM_NORMALIZE_FOLD_T2S : SIM_NORMALIZE_DEFAULT, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
on_rebuilt (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  SimWindow *self = SIM_WINDOW (source);
  g_autoptr(GError) error = NULL;

  g_task_propagate_boolean (G_TASK (result), &error);
  if (gtk_widget_in_destruction (GTK_WIDGET (self)) || self->settings == NULL)
    return;
  set_busy (self, FALSE, NULL);
  load_corpus (self);
  if (error != NULL)
    show_error (self, _("The corpus could not be rebuilt"), error);
}

static void
on_fold_changed (GSettings  *settings,
                 const char *key,
                 SimWindow  *self)
{
  g_autoptr(GTask) task = NULL;

  if (self->read_only && !self->busy)
    {
      /* The store keeps its own setting: show it again. */
      load_corpus (self);
      return;
    }
  if (self->busy || SNAPSHOT (self) == NULL)
    return;
  task = g_task_new (self, NULL, on_rebuilt, NULL);
  g_task_set_task_data (task, g_strdup (self->store_path), g_free);
  g_object_set_data (G_OBJECT (task), "fold", GINT_TO_POINTER (g_settings_get_boolean (settings, key)));
  set_busy (self, TRUE, _("Rebuilding the corpus…"));
  gtk_progress_bar_pulse (self->progress_bar);
  g_task_run_in_thread (task, rebuild_thread);
}

/* --------------------------------------------------------------- repair */

static void
repair_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  GError *error = NULL;
  SimRepairResult *result = sim_corpus_rebuild (task_data, &error);

  if (result == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, result, (GDestroyNotify) sim_repair_result_free);
}

static void
on_repaired (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  SimWindow *self = SIM_WINDOW (source);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimRepairResult) repaired = g_task_propagate_pointer (G_TASK (result), &error);
  g_autoptr(GString) said = g_string_new (NULL);
  GtkWidget *dialog;

  if (gtk_widget_in_destruction (GTK_WIDGET (self)) || self->settings == NULL)
    return;
  store_work_done (self);
  if (repaired == NULL)
    {
      show_error (self, _("The reference corpus could not be repaired"), error);
      return;
    }
  for (guint i = 0; i < repaired->healed->len; i++)
    g_string_append_printf (said, _("Read again from its unchanged file: %s\n"),
                            (const char *) g_ptr_array_index (repaired->healed, i));
  for (guint i = 0; i < repaired->set_aside->len; i++)
    g_string_append_printf (said, _("Set aside (add the file again to restore it): %s\n"),
                            (const char *) g_ptr_array_index (repaired->set_aside, i));
  for (guint i = 0; repaired->salvaged && i < repaired->salvaged->len; i++)
    g_string_append_printf (said, _("The database was damaged and copied anew: %s\n"),
                            (const char *) g_ptr_array_index (repaired->salvaged, i));
  if (said->len == 0)
    g_string_append (said, _("Nothing was damaged in the stored texts; every fingerprint was made again."));
  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("The reference corpus is repaired"), said->str);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

void
sim_window_repair_corpus (SimWindow *self)
{
  g_autoptr(GTask) task = NULL;

  if (self->busy || self->read_only)
    return;
  /* The window lets go of the store: a repair may put a new file in its place. */
  sim_session_set_snapshot (self->session, NULL);
  task = g_task_new (self, NULL, on_repaired, NULL);
  g_task_set_task_data (task, g_strdup (self->store_path), g_free);
  set_busy (self, TRUE, _("Repairing the reference corpus…"));
  gtk_progress_bar_pulse (self->progress_bar);
  g_task_run_in_thread (task, repair_thread);
}

static void
repair_corpus_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  sim_window_repair_corpus (SIM_WINDOW (widget));
}

/* ------------------------------------------------------------- actions */

static void
on_open_response (GtkNativeDialog *dialog,
                  int              response,
                  SimWindow       *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));

      sim_window_open_file (self, file);
    }
  g_object_unref (dialog);
}

static void
on_compare_b_response (GtkNativeDialog *dialog,
                       int              response,
                       SimWindow       *self)
{
  const char *a_path = g_object_get_data (G_OBJECT (dialog), "a-path");

  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      g_autofree char *b_path = g_file_get_path (file);

      if (b_path != NULL)
        sim_window_compare (self, a_path, b_path);
    }
  g_object_unref (dialog);
}

static void
on_compare_a_response (GtkNativeDialog *dialog,
                       int              response,
                       SimWindow       *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog));
      char *a_path = g_file_get_path (file);
      GtkFileChooserNative *next;

      next = gtk_file_chooser_native_new (_("Compare It With Document B"), GTK_WINDOW (self),
                                          GTK_FILE_CHOOSER_ACTION_OPEN, _("_Compare"), _("_Cancel"));
      g_object_set_data_full (G_OBJECT (next), "a-path", a_path, g_free);
      g_signal_connect (next, "response", G_CALLBACK (on_compare_b_response), self);
      gtk_native_dialog_show (GTK_NATIVE_DIALOG (next));
    }
  g_object_unref (dialog);
}

/* ------------------------------------------------------------ template */

void
sim_window_set_template (SimWindow  *self,
                         const char *name,
                         const char *text)
{
  sim_session_set_template (self->session, text);
  gtk_label_set_text (self->template_label, text ? name : _("none"));
}

static void
on_template_response (GtkNativeDialog *dialog,
                      int              response,
                      SimWindow       *self)
{
  g_autoptr(GFile) file = response == GTK_RESPONSE_ACCEPT ? gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog)) : NULL;
  g_autofree char *path = file ? g_file_get_path (file) : NULL;
  g_autofree char *text = NULL;
  g_autoptr(SimReport) report = NULL;
  g_autoptr(GError) error = NULL;

  g_object_unref (dialog);
  if (path == NULL)
    return;
  if (!sim_open_read_file (path, &text, &report, NULL, &error) || text == NULL)
    {
      if (error == NULL)
        error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("A saved report is no assignment text"));
      show_error (self, _("The assignment text could not be read"), error);
      return;
    }
  {
    g_autofree char *name = g_file_get_basename (file);

    sim_window_set_template (self, name, text);
  }
}

static void
choose_template_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *parameter)
{
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (_("Choose the Assignment's Own Text"), GTK_WINDOW (widget),
                                                              GTK_FILE_CHOOSER_ACTION_OPEN, _("_Choose"), _("_Cancel"));

  g_signal_connect (dialog, "response", G_CALLBACK (on_template_response), widget);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
clear_template_action (GtkWidget  *widget,
                       const char *action_name,
                       GVariant   *parameter)
{
  sim_window_set_template (SIM_WINDOW (widget), NULL, NULL);
}

static void
on_class_folder_response (GtkNativeDialog *dialog,
                          int              response,
                          SimWindow       *self)
{
  g_autoptr(GFile) folder = response == GTK_RESPONSE_ACCEPT ? gtk_file_chooser_get_file (GTK_FILE_CHOOSER (dialog)) : NULL;
  g_autofree char *path = folder ? g_file_get_path (folder) : NULL;

  g_object_unref (dialog);
  if (path != NULL)
    /* The assignment's text chosen here is left out of the class too. */
    gtk_window_present (GTK_WINDOW (sim_class_window_new (GTK_WINDOW (self), path,
                                                          sim_session_get_template (self->session))));
}

/* Check a Class…: every pair of a folder's documents that shares passages. */
static void
check_class_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (_("Choose the Class's Folder"), GTK_WINDOW (widget),
                                                              GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                                              _("_Check"), _("_Cancel"));

  g_signal_connect (dialog, "response", G_CALLBACK (on_class_folder_response), widget);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
compare_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  SimWindow *self = SIM_WINDOW (widget);
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (_("Choose Document A"), GTK_WINDOW (self),
                                                              GTK_FILE_CHOOSER_ACTION_OPEN, _("_Next"), _("_Cancel"));

  g_signal_connect (dialog, "response", G_CALLBACK (on_compare_a_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

GtkWidget *
sim_window_compare (SimWindow  *self,
                    const char *a_path,
                    const char *b_path)
{
  SimCompareWindow *compare = sim_compare_window_new (GTK_WINDOW (self), a_path, b_path);

  gtk_window_present (GTK_WINDOW (compare));
  return GTK_WIDGET (compare);
}

static void
open_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  SimWindow *self = SIM_WINDOW (widget);
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (_("Open a Text"), GTK_WINDOW (self),
                                                              GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));

  g_signal_connect (dialog, "response", G_CALLBACK (on_open_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
on_add_response (GtkNativeDialog *dialog,
                 int              response,
                 SimWindow       *self)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GListModel) files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (dialog));
      g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);

      for (guint i = 0; i < g_list_model_get_n_items (files); i++)
        {
          g_autoptr(GFile) file = g_list_model_get_item (files, i);

          g_ptr_array_add (paths, g_file_get_path (file));
        }
      g_ptr_array_add (paths, NULL);
      sim_window_add_documents (self, (const char *const *) paths->pdata);
    }
  g_object_unref (dialog);
}

static void
add_documents_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  SimWindow *self = SIM_WINDOW (widget);
  const gboolean files = g_str_equal (action_name, "win.add-files");
  GtkFileChooserNative *dialog = gtk_file_chooser_native_new (files ? _("Add Documents") : _("Add a Folder of Documents"),
                                                              GTK_WINDOW (self),
                                                              files ? GTK_FILE_CHOOSER_ACTION_OPEN
                                                                    : GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                                              _("_Add"), _("_Cancel"));

  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (dialog), TRUE);
  g_signal_connect (dialog, "response", G_CALLBACK (on_add_response), self);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (dialog));
}

static void
use_demo_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *parameter)
{
  SimWindow *self = SIM_WINDOW (widget);
  g_autofree char *demo = sim_paths_demo_texts ();
  const char *paths[] = { demo, NULL };

  if (!g_file_test (paths[0], G_FILE_TEST_IS_DIR))
    {
      g_autoptr(GError) error = g_error_new (G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                                             _("Build it first: “./run.sh” in Simhound's source folder extracts "
                                               "Debian's text packages into %s. Or point SIMHOUND_DEMO_TEXTS at a "
                                               "folder of texts, or add your own documents."),
                                             paths[0]);

      show_error (self, _("The demo corpus is not on this computer"), error);
      return;
    }
  sim_window_add_documents (self, paths);
}

static void
manage_corpus_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  SimWindow *self = SIM_WINDOW (widget);

  if (self->corpus_window == NULL)
    {
      self->corpus_window = sim_corpus_window_new (GTK_WINDOW (self), self->store_path, self->read_only);
      g_object_add_weak_pointer (G_OBJECT (self->corpus_window), (gpointer *) &self->corpus_window);
      g_signal_connect_object (self->corpus_window, "add-paths", G_CALLBACK (sim_window_add_documents),
                               self, G_CONNECT_SWAPPED);
      g_signal_connect_object (self->corpus_window, "rescan-folder", G_CALLBACK (sim_window_rescan_folder),
                               self, G_CONNECT_SWAPPED);
    }
  gtk_window_present (GTK_WINDOW (self->corpus_window));
}

static void
reload_corpus_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  load_corpus (SIM_WINDOW (widget));
}

static void
check_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  sim_window_check (SIM_WINDOW (widget));
}

static void
cancel_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  g_cancellable_cancel (SIM_WINDOW (widget)->cancellable);
}

static void
step_segment (SimWindow *self,
              gint       direction)
{
  SimReportView *view = sim_session_get_view (self->session);
  const gint n = view ? (gint) sim_report_get_n_segments (REPORT (self)) : 0;

  for (gint i = self->selected + direction; i >= 0 && i < n; i += direction)
    if (sim_report_view_find_run (view, i) >= 0 &&
        (self->filter < 0 ||
         sim_report_view_get_run (view, sim_report_view_find_run (view, i))->source == (guint) self->filter))
      {
        sim_window_select_segment (self, i);
        return;
      }
  gtk_widget_error_bell (GTK_WIDGET (self));
}

static void
next_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  step_segment (SIM_WINDOW (widget), g_str_equal (action_name, "win.next-segment") ? 1 : -1);
}

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  SimWindow *self = SIM_WINDOW (widget);

  g_autofree char *name = sim_export_dialog_suggest_name (sim_session_get_name (self->session),
                                                          _("similarity-report"));

  /* Thirty reports of a class told apart by name: "daniel-similarity". */
  if (sim_session_get_view (self->session) != NULL)
    sim_export_dialog_show (GTK_WINDOW (self), self->toast_overlay, _("Export the Report"), name,
                            sim_session_get_view (self->session));
}

static void
update_actions (SimWindow *self)
{
  const gboolean has_corpus = SNAPSHOT (self) != NULL && sim_corpus_snapshot_get_n_docs (SNAPSHOT (self)) > 0;
  const gboolean has_text = gtk_text_buffer_get_char_count (gtk_text_view_get_buffer (self->editor)) > 0;

  /* Check says why it cannot run. */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.check", has_corpus && has_text && !self->busy);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->check_button),
                               !has_corpus ? _("Add documents to the reference corpus first")
                               : !has_text ? _("Paste or open a text to check first")
                                           : _("Check the text against the corpus (Ctrl+Return)"));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.cancel-check", self->busy);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export",
                                 sim_session_get_view (self->session) != NULL && !self->busy);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.save-report",
                                 sim_session_get_view (self->session) != NULL && !self->busy);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.add-documents", !self->busy && !self->read_only);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.repair-corpus",
                                 !self->busy && !self->read_only && g_file_test (self->store_path, G_FILE_TEST_EXISTS));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.add-files", !self->busy && !self->read_only);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.use-demo", !self->busy && !self->read_only);
}

/* ---------------------------------------------------------------- input */

/* The file's name, where it is, and whether the text was edited since it
 * was opened; "Untitled Text" for pasted text. */
static void
update_title (SimWindow *self)
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
  update_title (self);
}

/* ------------------------------------------------------------- files */

static void
update_recent (SimWindow *self)
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
  update_title (self);
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
    show_error (self, _("The report could not be saved"), error);
  else
    adw_toast_overlay_add_toast (self->toast_overlay, sim_export_dialog_new_toast (GTK_WINDOW (self), path));
}

static void
save_report_action (GtkWidget  *widget,
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

static void
open_recent_action (GtkWidget  *widget,
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
  set_busy (self, FALSE, NULL);
  update_title (self);
  if (ok)
    finish_open (self, file, report, &notes);
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    show_error (self, _("The file could not be opened"), error);
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
      set_busy (self, TRUE, what);
      gtk_text_view_set_editable (self->editor, FALSE);
      g_set_object (&self->loading, file);
      update_title (self);
      sim_open_load_async (file, gtk_text_view_get_buffer (self->editor), self->cancellable, on_load_progress,
                           on_loaded, g_object_ref (self));
      return;
    }
  if (!sim_open_read_file (path, &text, &report, &notes, &error))
    {
      show_error (self, path && g_str_has_suffix (path, ".json") ? _("The report could not be opened")
                                                                 : _("The file could not be opened"), error);
      return;
    }
  sim_window_set_text (self, report ? sim_report_get_text (report) : text);
  finish_open (self, file, report, &notes);
}

static gboolean
on_drop (GtkDropTarget *target,
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

static void
on_text_changed (GtkTextBuffer *buffer,
                 SimWindow     *self)
{
  if (sim_session_get_file (self->session) == NULL || self->loading != NULL)
    update_title (self);   /* "Untitled Text" once there is text */
  self->previews_valid = FALSE;
  /* The report no longer holds: the session drops its view, and with it
   * every highlight, figure and comparison of the old text. */
  sim_session_text_edited (self->session);
  update_actions (self);
}

static void
on_mark_set (GtkTextBuffer     *buffer,
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
      show_source (self, index);
    }
}

static void
on_editor_click (GtkGestureClick *gesture,
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
static void
on_source_activated (GtkListBox    *list,
                     GtkListBoxRow *row,
                     SimWindow     *self)
{
  const gint source = gtk_list_box_row_get_index (row);  /* rows are sources 0.. in rank order */
  SimReportView *view = sim_session_get_view (self->session);

  if (view == NULL)
    return;
  self->filter = self->filter == source ? -1 : source;
  apply_highlights (self);
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

static void
show_all_sources_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *parameter)
{
  SimWindow *self = SIM_WINDOW (widget);

  self->filter = -1;
  gtk_list_box_unselect_all (self->sources_list);
  if (sim_session_get_view (self->session) != NULL)
    apply_highlights (self);
}

/* Shows only the flags of source @index (0-based, by rank), or all for -1. */
void
sim_window_filter_source (SimWindow *self,
                          gint       index)
{
  GtkListBoxRow *row = index >= 0 ? gtk_list_box_get_row_at_index (self->sources_list, index) : NULL;

  if (row == NULL)
    {
      show_all_sources_action (GTK_WIDGET (self), NULL, NULL);
      return;
    }
  self->filter = -1;
  gtk_list_box_select_row (self->sources_list, row);
  on_source_activated (self->sources_list, row, self);
}

/* ------------------------------------------------------------- narrow */

/* Below about 900 px the text and the results fold into one view: the
 * results take the text's place, with a button to go back. */
static void
on_folded_changed (SimWindow *self)
{
  const gboolean folded = adw_leaflet_get_folded (self->leaflet);
  const gboolean results = g_strcmp0 (adw_leaflet_get_visible_child_name (self->leaflet), "results") == 0;

  gtk_widget_set_visible (self->results_button, folded);
  gtk_widget_set_visible (self->back_button, folded);
  /* Folded, the results have the screen: the chart (of the text) goes. */
  gtk_widget_set_visible (GTK_WIDGET (self->chart), !(folded && results));
}

/* Folded, a chosen flag shows its comparison at the top of the results,
 * once they are laid out. */
static gboolean
scroll_to_comparison (GtkWidget     *widget,
                      GdkFrameClock *clock,
                      gpointer       data)
{
  SimWindow *self = SIM_WINDOW (widget);
  GtkWidget *content = gtk_scrolled_window_get_child (self->results_scroll);
  double x, y;

  if (gtk_widget_translate_coordinates (GTK_WIDGET (self->comparison), content, 0, 0, &x, &y))
    gtk_adjustment_set_value (gtk_scrolled_window_get_vadjustment (self->results_scroll), y);
  return G_SOURCE_REMOVE;
}

static void
on_results_clicked (SimWindow *self)
{
  adw_leaflet_set_visible_child_name (self->leaflet, "results");
}

static void
on_back_clicked (SimWindow *self)
{
  adw_leaflet_set_visible_child_name (self->leaflet, "text");
}

gboolean
sim_window_is_folded (SimWindow *self)
{
  return adw_leaflet_get_folded (self->leaflet);
}

const char *
sim_window_get_visible_view (SimWindow *self)
{
  return adw_leaflet_get_visible_child_name (self->leaflet);
}

static void
on_chart_segment (SimChart  *chart,
                  guint      index,
                  SimWindow *self)
{
  sim_window_select_segment (self, index);
}

/* ------------------------------------------------------------- settings */

/* The toolbar's choices, kept in GSettings from one start to the next. */
static const char *const toolbar_keys[] = {
  "segmentation", "window-size", "fast", "exclude-quotes", "exclude-references", "exclude-small", "highlight",
};

static gboolean
toolbar_is_default (SimWindow *self)
{
  for (guint i = 0; i < G_N_ELEMENTS (toolbar_keys); i++)
    {
      g_autoptr(GVariant) value = g_settings_get_value (self->settings, toolbar_keys[i]);
      g_autoptr(GVariant) def = g_settings_get_default_value (self->settings, toolbar_keys[i]);

      if (!g_variant_equal (value, def))
        return FALSE;
    }
  return TRUE;
}

/* The toolbar says whether its choices are the defaults, and offers to put
 * them back when they are not. */
static void
update_defaults (SimWindow *self)
{
  const gboolean is_default = toolbar_is_default (self);

  gtk_widget_set_visible (self->defaults_label, is_default);
  gtk_widget_set_visible (self->reset_button, !is_default);
}

static void
reset_choices_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *parameter)
{
  SimWindow *self = SIM_WINDOW (widget);

  g_settings_delay (self->settings);
  for (guint i = 0; i < G_N_ELEMENTS (toolbar_keys); i++)
    g_settings_reset (self->settings, toolbar_keys[i]);
  g_settings_apply (self->settings);
}

gboolean
sim_window_choices_are_default (SimWindow *self)
{
  return gtk_widget_get_visible (self->defaults_label) && !gtk_widget_get_visible (self->reset_button);
}

/* A two-valued GSettings enum shown in a drop-down: @user_data is the
 * NULL-terminated list of its nicks in the drop-down's order. */
static gboolean
nick_to_position (GValue   *value,
                  GVariant *variant,
                  gpointer  user_data)
{
  const char *const *nicks = user_data;
  const char *nick = g_variant_get_string (variant, NULL);

  for (guint i = 0; nicks[i]; i++)
    if (g_str_equal (nick, nicks[i]))
      {
        g_value_set_uint (value, i);
        return TRUE;
      }
  return FALSE;
}

static GVariant *
position_to_nick (const GValue       *value,
                  const GVariantType *type,
                  gpointer            user_data)
{
  const char *const *nicks = user_data;
  const guint position = g_value_get_uint (value);

  return position < g_strv_length ((char **) nicks) ? g_variant_new_string (nicks[position]) : NULL;
}

static const char *const segmentation_nicks[] = { "sentence", "window", NULL };
static const char *const highlight_nicks[] = { "source", "level", NULL };

/* --------------------------------------------------------------- object */

static void
sim_window_dispose (GObject *object)
{
  SimWindow *self = SIM_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  g_clear_object (&self->settings);
  if (self->corpus_window)
    {
      g_object_remove_weak_pointer (G_OBJECT (self->corpus_window), (gpointer *) &self->corpus_window);
      gtk_window_destroy (GTK_WINDOW (self->corpus_window));
      self->corpus_window = NULL;
    }
  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);
  G_OBJECT_CLASS (sim_window_parent_class)->dispose (object);
}

static void
sim_window_finalize (GObject *object)
{
  SimWindow *self = SIM_WINDOW (object);

  g_free (self->store_path);
  g_clear_object (&self->loading);
  G_OBJECT_CLASS (sim_window_parent_class)->finalize (object);
}

static void
sim_window_class_init (SimWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sim_window_dispose;
  object_class->finalize = sim_window_finalize;

  g_type_ensure (SIM_TYPE_CHART);
  g_type_ensure (SIM_TYPE_ARTICLE_VIEW);
  g_type_ensure (SIM_TYPE_COMPARISON);
  g_type_ensure (ADW_TYPE_TOAST_OVERLAY);
  g_type_ensure (ADW_TYPE_WINDOW_TITLE);
  g_type_ensure (ADW_TYPE_LEAFLET);
  g_type_ensure (ADW_TYPE_BUTTON_CONTENT);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/simhound/Simhound/ui/sim-window.ui");
  gtk_widget_class_bind_template_child (widget_class, SimWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, template_label);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, exclude_small_spin);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, recent_section);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, leaflet);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, results_button);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, toolbar);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, options_button);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, back_button);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, results_scroll);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, defaults_label);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, reset_button);
  gtk_widget_class_bind_template_callback (widget_class, on_results_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_back_clicked);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, read_only_label);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, editor);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, mode_dropdown);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, window_spin);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, fast_check);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, exclude_quotes_check);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, exclude_references_check);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, highlight_dropdown);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, level_legend);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, show_all_button);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, check_button);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, cancel_button);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, progress_bar);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, summary_label);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, warning_label);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, counts_label);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, sources_list);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, comparison);
  gtk_widget_class_bind_template_child (widget_class, SimWindow, chart);

  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.repair-corpus", NULL, repair_corpus_action);
  gtk_widget_class_install_action (widget_class, "win.check", NULL, check_action);
  gtk_widget_class_install_action (widget_class, "win.cancel-check", NULL, cancel_action);
  gtk_widget_class_install_action (widget_class, "win.export", NULL, export_action);
  gtk_widget_class_install_action (widget_class, "win.save-report", NULL, save_report_action);
  gtk_widget_class_install_action (widget_class, "win.check-class", NULL, check_class_action);
  gtk_widget_class_install_action (widget_class, "win.choose-template", NULL, choose_template_action);
  gtk_widget_class_install_action (widget_class, "win.clear-template", NULL, clear_template_action);
  gtk_widget_class_install_action (widget_class, "win.open-recent", "s", open_recent_action);
  gtk_widget_class_install_action (widget_class, "win.reset-choices", NULL, reset_choices_action);
  gtk_widget_class_install_action (widget_class, "win.add-documents", NULL, add_documents_action);
  gtk_widget_class_install_action (widget_class, "win.add-files", NULL, add_documents_action);
  gtk_widget_class_install_action (widget_class, "win.use-demo", NULL, use_demo_action);
  gtk_widget_class_install_action (widget_class, "win.manage-corpus", NULL, manage_corpus_action);
  gtk_widget_class_install_action (widget_class, "win.compare", NULL, compare_action);
  gtk_widget_class_install_action (widget_class, "win.reload-corpus", NULL, reload_corpus_action);
  gtk_widget_class_install_action (widget_class, "win.next-segment", NULL, next_action);
  gtk_widget_class_install_action (widget_class, "win.show-all-sources", NULL, show_all_sources_action);
  gtk_widget_class_install_action (widget_class, "win.previous-segment", NULL, next_action);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_o, GDK_CONTROL_MASK, "win.open", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Return, GDK_CONTROL_MASK, "win.check", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "win.cancel-check", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK, "win.export", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, GDK_CONTROL_MASK, "win.save-report", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F3, 0, "win.next-segment", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F3, GDK_SHIFT_MASK, "win.previous-segment", NULL);
}

static void
sim_window_init (SimWindow *self)
{
  GtkTextBuffer *buffer;
  GtkGesture *click;
  GtkDropTarget *drop;
  GdkRGBA tint;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->selected = -1;
  self->filter = -1;
  self->session = sim_session_new ();
  g_signal_connect (self->session, "notify::view", G_CALLBACK (on_view_changed), self);
  self->settings = g_settings_new ("org.simhound.Simhound");
  g_settings_bind_with_mapping (self->settings, "highlight", self->highlight_dropdown, "selected",
                                G_SETTINGS_BIND_DEFAULT, nick_to_position, position_to_nick,
                                (gpointer) highlight_nicks, NULL);
  g_signal_connect (self->settings, "changed::highlight", G_CALLBACK (on_highlight_changed), self);
  g_settings_bind_with_mapping (self->settings, "segmentation", self->mode_dropdown, "selected",
                                G_SETTINGS_BIND_DEFAULT, nick_to_position, position_to_nick,
                                (gpointer) segmentation_nicks, NULL);
  g_settings_bind (self->settings, "window-size", self->window_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "fast", self->fast_check, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "exclude-quotes", self->exclude_quotes_check, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "exclude-references", self->exclude_references_check, "active",
                   G_SETTINGS_BIND_DEFAULT);
  g_signal_connect (self->settings, "changed::exclude-quotes", G_CALLBACK (on_exclusions_changed), self);
  g_signal_connect (self->settings, "changed::exclude-references", G_CALLBACK (on_exclusions_changed), self);
  g_settings_bind (self->settings, "exclude-small", self->exclude_small_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_signal_connect (self->settings, "changed::exclude-small", G_CALLBACK (on_exclusions_changed), self);
  g_signal_connect (self->settings, "changed::fold-traditional", G_CALLBACK (on_fold_changed), self);

  /* Colours that read in light and dark styles: translucent level colours. */
  buffer = gtk_text_view_get_buffer (self->editor);
  sim_tint_get_rgba (SIM_LEVEL_HIGH, 1.0, &tint);
  self->tag_high = gtk_text_buffer_create_tag (buffer, "sim-high", "background-rgba", &tint, NULL);
  sim_tint_get_rgba (SIM_LEVEL_MEDIUM, 1.0, &tint);
  self->tag_medium = gtk_text_buffer_create_tag (buffer, "sim-medium", "background-rgba", &tint, NULL);
  {
    GdkRGBA grey;

    gdk_rgba_parse (&grey, sim_level_excluded_tint ());
    self->tag_excluded = gtk_text_buffer_create_tag (buffer, "sim-excluded", "background-rgba", &grey,
                                                     "foreground", "#5e5c64", NULL);
  }
  /* Source colours, translucent for the same reason. */
  for (guint c = 0; c < SIM_SOURCE_N_COLORS; c++)
    {
      g_autofree char *name = g_strdup_printf ("sim-source-%u", c + 1);

      gdk_rgba_parse (&tint, sim_source_color (c + 1));
      tint.alpha = sim_source_tint_alpha ();
      self->tag_source[c] = gtk_text_buffer_create_tag (buffer, name, "background-rgba", &tint, NULL);
    }
  g_signal_connect (buffer, "changed", G_CALLBACK (on_text_changed), self);
  g_signal_connect_swapped (buffer, "modified-changed", G_CALLBACK (update_title), self);
  g_signal_connect (buffer, "mark-set", G_CALLBACK (on_mark_set), self);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->editor), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Article: copied passages are highlighted in their source's colour and numbered like it in the list of sources, or red for high and yellow for medium similarity"), -1);

  click = gtk_gesture_click_new ();
  g_signal_connect (click, "released", G_CALLBACK (on_editor_click), self);
  gtk_widget_add_controller (GTK_WIDGET (self->editor), GTK_EVENT_CONTROLLER (click));
  drop = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect (drop, "drop", G_CALLBACK (on_drop), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (drop));
  g_signal_connect (self->sources_list, "row-activated", G_CALLBACK (on_source_activated), self);
  g_signal_connect (self->chart, "segment-activated", G_CALLBACK (on_chart_segment), self);
  g_signal_connect_swapped (self->leaflet, "notify::folded", G_CALLBACK (on_folded_changed), self);
  g_signal_connect_swapped (self->leaflet, "notify::visible-child-name", G_CALLBACK (on_folded_changed), self);
  for (guint i = 0; i < G_N_ELEMENTS (toolbar_keys); i++)
    {
      g_autofree char *signal = g_strconcat ("changed::", toolbar_keys[i], NULL);

      g_signal_connect_swapped (self->settings, signal, G_CALLBACK (update_defaults), self);
    }
  update_defaults (self);
  g_signal_connect_object (gtk_recent_manager_get_default (), "changed", G_CALLBACK (update_recent), self,
                           G_CONNECT_SWAPPED);
  update_recent (self);
  on_folded_changed (self);
}

SimWindow *
sim_window_new (GtkApplication *app,
                const char     *store_path)
{
  SimWindow *self = g_object_new (SIM_TYPE_WINDOW, "application", app, NULL);

  self->store_path = store_path ? g_strdup (store_path) : sim_corpus_dup_default_path ();
  load_corpus (self);
  return self;
}

GtkTextBuffer *
sim_window_get_buffer (SimWindow *self)
{
  return gtk_text_view_get_buffer (self->editor);
}

SimComparison *
sim_window_get_comparison (SimWindow *self)
{
  return self->comparison;
}

GtkWidget *
sim_window_get_check_button (SimWindow *self)
{
  return GTK_WIDGET (self->check_button);
}

GtkWidget *
sim_window_get_editor (SimWindow *self)
{
  return GTK_WIDGET (self->editor);
}

const char *
sim_window_get_summary (SimWindow *self)
{
  return gtk_label_get_text (self->summary_label);
}

guint
sim_window_count_toolbar_rows (SimWindow *self)
{
  int toolbar_h, control_h;

  gtk_widget_measure (self->toolbar, GTK_ORIENTATION_VERTICAL, gtk_widget_get_width (self->toolbar), NULL, &toolbar_h,
                      NULL, NULL);
  gtk_widget_measure (self->options_button, GTK_ORIENTATION_VERTICAL, -1, NULL, &control_h, NULL, NULL);
  return control_h > 0 ? (guint) ((toolbar_h + control_h / 2) / control_h) : 0;
}

const char *
sim_window_get_counts (SimWindow *self)
{
  return gtk_label_get_text (self->counts_label);
}

char *
sim_window_dup_sources_said (SimWindow *self)
{
  GString *said = g_string_new (NULL);

  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (self->sources_list)); row;
       row = gtk_widget_get_next_sibling (row))
    {
      GtkWidget *box = gtk_list_box_row_get_child (GTK_LIST_BOX_ROW (row));

      /* The label the row gives screen readers, kept beside it. */
      if (box != NULL && g_object_get_data (G_OBJECT (box), "sim-said") != NULL)
        g_string_append_printf (said, "%s\n", (const char *) g_object_get_data (G_OBJECT (box), "sim-said"));
    }
  return g_string_free (said, FALSE);
}

const char *
sim_window_get_read_only_message (SimWindow *self)
{
  return gtk_widget_get_visible (GTK_WIDGET (self->read_only_label)) ? gtk_label_get_text (self->read_only_label) : NULL;
}

double
sim_window_get_progress (SimWindow *self)
{
  return gtk_progress_bar_get_fraction (self->progress_bar);
}

const char *
sim_window_get_progress_text (SimWindow *self)
{
  return gtk_progress_bar_get_text (self->progress_bar);
}

const char *
sim_window_get_source_path (SimWindow *self)
{
  return sim_comparison_get_path (self->comparison);
}

GtkWidget *
sim_window_get_chart (SimWindow *self)
{
  return GTK_WIDGET (self->chart);
}

GtkWidget *
sim_window_get_corpus_window (SimWindow *self)
{
  return self->corpus_window;
}

const char *
sim_window_get_page (SimWindow *self)
{
  return gtk_stack_get_visible_child_name (self->stack);
}
