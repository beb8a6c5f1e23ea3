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
#include "sim-window-private.h"


/* --------------------------------------------------------------- report */

static void
clear_source_pane (SimWindow *self)
{
  sim_comparison_clear (self->comparison, _("Click a highlighted segment to compare it with its source."));
}

void
_sim_window_show_source (SimWindow *self,
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
  _sim_window_show_source (self, index);
  /* A flag chosen on a narrow window: its comparison takes the screen. */
  if (adw_leaflet_get_folded (self->leaflet))
    {
      adw_leaflet_set_visible_child_name (self->leaflet, "results");
      gtk_widget_add_tick_callback (GTK_WIDGET (self), _sim_window_scroll_to_comparison, NULL, NULL);
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

/* The view's flags in the text, by source or by level as chosen, only
 * those of the filtered source when there is one. */
void
_sim_window_apply_highlights (SimWindow *self)
{
  const gboolean by_source = g_settings_get_enum (self->settings, "highlight") == 0;

  gtk_widget_set_visible (self->level_legend, !by_source);
  gtk_widget_set_visible (GTK_WIDGET (self->show_all_button), self->filter >= 0);
  sim_article_view_show (SIM_ARTICLE_VIEW (self->editor), sim_session_get_view (self->session),
                         by_source ? SIM_ARTICLE_BY_SOURCE : SIM_ARTICLE_BY_LEVEL, self->filter);
}

void
_sim_window_on_highlight_changed (GSettings  *settings,
                                  const char *key,
                                  SimWindow  *self)
{
  if (sim_session_get_view (self->session) != NULL && !self->busy)
    _sim_window_apply_highlights (self);
}

/* The toolbar's choices of what not to count, given to the session: a new
 * view of the same report, no new lookup. */
void
_sim_window_on_exclusions_changed (GSettings  *settings,
                                   const char *key,
                                   SimWindow  *self)
{
  sim_session_set_exclusions (self->session, g_settings_get_boolean (self->settings, "exclude-quotes"),
                              g_settings_get_boolean (self->settings, "exclude-references"),
                              g_settings_get_uint (self->settings, "exclude-small"));
}

/* Rows made at once; the rest follow a batch a main-loop turn (a row costs
 * about half a millisecond: forty sources held the result back 20 ms). */
#define SOURCE_ROWS_AT_ONCE 8

/* Appends the next rows of the sources list: every source with flags,
 * ranked and numbered as in the exports. TRUE when the list is whole. */
static gboolean
add_source_rows (SimWindow *self)
{
  SimReportView *view = sim_session_get_view (self->session);
  SimReport *report = view ? sim_report_view_get_report (view) : NULL;
  guint i = 0, added = 0;

  if (report == NULL)
    return TRUE;
  for (GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (self->sources_list)); row;
       row = gtk_widget_get_next_sibling (row))
    i++;
  for (; i < sim_report_get_n_sources (report) && added < SOURCE_ROWS_AT_ONCE; i++, added++)
    {
      const SimReportSource *src = sim_report_get_source (report, i);

      if (src->n_segments == 0)
        return TRUE;
      gtk_list_box_append (self->sources_list,
                           make_source_row (self, src, sim_report_view_get_share (view, i), i + 1));
    }
  return i >= sim_report_get_n_sources (report) || sim_report_get_source (report, i)->n_segments == 0;
}

static gboolean
add_source_rows_later (gpointer data)
{
  SimWindow *self = data;

  if (add_source_rows (self))
    {
      self->sources_idle = 0;
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

/* Nothing of a report is shown: none yet, or the text changed since (then
 * the summary says so). */
void
_sim_window_show_no_view (SimWindow *self)
{
  GtkWidget *child;
  const gboolean stale = sim_session_is_stale (self->session);

  sim_article_view_show (SIM_ARTICLE_VIEW (self->editor), NULL, SIM_ARTICLE_BY_SOURCE, -1);
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
  g_clear_handle_id (&self->sources_idle, g_source_remove);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->sources_list))) != NULL)
    gtk_list_box_remove (self->sources_list, child);
  sim_chart_set_view (self->chart, NULL);
  clear_source_pane (self);
  _sim_window_update_actions (self);
}

/* Draws the session's view: highlights, figures, warnings, sources, chart. */
void
_sim_window_on_view_changed (SimSession *session,
                             GParamSpec *pspec,
                             SimWindow  *self)
{
  SimReportView *view = sim_session_get_view (session);
  SimReport *report;
  g_autofree char *summary = NULL, *counts = NULL;
  GtkWidget *child;

  if (view == NULL)
    {
      _sim_window_show_no_view (self);
      return;
    }
  report = sim_report_view_get_report (view);
  gtk_widget_remove_css_class (GTK_WIDGET (self->summary_label), "stale");
  self->selected = -1;

  self->filter = -1;
  sim_article_view_set_outline (SIM_ARTICLE_VIEW (self->editor), -1, -1);
  _sim_window_apply_highlights (self);

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
  g_clear_handle_id (&self->sources_idle, g_source_remove);
  if (!add_source_rows (self))
    self->sources_idle = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, add_source_rows_later, self, NULL);
  sim_chart_set_view (self->chart, view);
  clear_source_pane (self);
  _sim_window_update_actions (self);
}

