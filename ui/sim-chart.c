/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "sim-export.h"
#include "sim-chart.h"

#define LEFT_SHARE 0.65 /* the along-the-article part; the rest is the histogram */
#define PAD 8.0
#define AXIS_W 54.0     /* room for an upright title and "100%" left of each plot */

struct _SimChart {
  GtkWidget  parent_instance;

  SimReportView *view;  /* owned, may be NULL */
  SimReport     *report; /* the view's */
  gint       selected; /* segment marked, or -1 */
};

G_DEFINE_FINAL_TYPE (SimChart, sim_chart, GTK_TYPE_WIDGET)

enum {
  SEGMENT_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* Where things are: the two plots, each with its axis labels left of it and
 * its tick labels and title under it. Drawing, hit testing and tooltips
 * share it. */
typedef struct {
  double line_h;                 /* one line of text */
  double plot_y, plot_h;
  double left_x, left_w;         /* similarity along the article */
  double hist_x, hist_w;         /* segments per similarity band */
} Geometry;

static Geometry
geometry (SimChart *self)
{
  GtkWidget *widget = GTK_WIDGET (self);
  const double w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  PangoLayout *layout = gtk_widget_create_pango_layout (widget, "0%");
  int line_h;
  Geometry g;

  pango_layout_get_pixel_size (layout, NULL, &line_h);
  g_object_unref (layout);
  g.line_h = line_h;
  g.plot_y = PAD + line_h / 2.0;
  g.plot_h = MAX (10.0, h - g.plot_y - line_h - 4);
  g.left_x = PAD + AXIS_W;
  g.left_w = MAX (10.0, (w - 2 * AXIS_W - 3 * PAD) * LEFT_SHARE);
  g.hist_x = g.left_x + g.left_w + PAD + AXIS_W;
  g.hist_w = MAX (10.0, w - PAD - g.hist_x);
  return g;
}

static void
set_color (cairo_t    *cr,
           const char *hex,
           double      alpha)
{
  GdkRGBA rgba;

  gdk_rgba_parse (&rgba, hex);
  cairo_set_source_rgba (cr, rgba.red, rgba.green, rgba.blue, alpha);
}

/* @text with its anchor point at (@x, @y): @xalign 0 left, 0.5 centred, 1
 * right; @yalign alike. */
static void
show_text (cairo_t     *cr,
           PangoLayout *layout,
           const char  *text,
           double       x,
           double       y,
           double       xalign,
           double       yalign)
{
  int tw, th;

  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, &tw, &th);
  cairo_move_to (cr, x - xalign * tw, y - yalign * th);
  pango_cairo_show_layout (cr, layout);
}

static void
sim_chart_snapshot (GtkWidget   *widget,
                    GtkSnapshot *snapshot)
{
  SimChart *self = SIM_CHART (widget);
  const double w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  const Geometry g = geometry (self);
  const double bottom = g.plot_y + g.plot_h;
  PangoLayout *layout = gtk_widget_create_pango_layout (widget, NULL);
  guint max_count = 1;
  cairo_t *cr;
  GdkRGBA fg;

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.25);
  cairo_set_line_width (cr, 1);
  cairo_rectangle (cr, g.left_x + 0.5, g.plot_y + 0.5, g.left_w - 1, g.plot_h - 1);
  cairo_rectangle (cr, g.hist_x + 0.5, g.plot_y + 0.5, g.hist_w - 1, g.plot_h - 1);
  cairo_stroke (cr);

  if (self->report != NULL)
    {
      const guint32 n_chars = MAX (sim_report_get_n_chars (self->report), 1);
      const SimReportSettings *settings = sim_report_get_settings (self->report);
      const float thresholds[2] = { settings->medium_threshold, settings->high_threshold };
      const SimLevel levels[2] = { SIM_LEVEL_MEDIUM, SIM_LEVEL_HIGH };
      const guint *counts = sim_report_view_get_histogram (self->view);
      const double bin_w = g.hist_w / SIM_CHART_BINS;

      for (guint i = 0; i < sim_report_get_n_segments (self->report); i++)
        {
          const SimReportSegment *seg = sim_report_get_segment (self->report, i);
          const double x = g.left_x + g.left_w * seg->start / n_chars;
          const double bw = MAX (1.0, g.left_w * (seg->end - seg->start) / n_chars);
          const double bh = MAX (1.0, g.plot_h * seg->similarity);

          /* What the exclusions leave out is greyed, as in the article; a
           * piece too short to count, however similar, is an outline only:
           * no grey bar stands above the thresholds as if it counted. */
          if (sim_report_view_is_segment_excluded (self->view, i))
            set_color (cr, sim_level_excluded_tint (), 1.0);
          else
            set_color (cr, sim_level_color (seg->level), seg->level == SIM_LEVEL_LOW ? 0.6 : 1.0);
          if (sim_report_segment_is_too_short (self->report, seg))
            {
              cairo_set_line_width (cr, 1);
              cairo_rectangle (cr, x + 0.5, bottom - bh + 0.5, MAX (bw - 1, 0.5), bh - 1);
              cairo_stroke (cr);
            }
          else
            {
              cairo_rectangle (cr, x, bottom - bh, bw, bh);
              cairo_fill (cr);
            }
        }
      /* The level thresholds, dashed in their colours. */
      cairo_save (cr);
      cairo_set_dash (cr, (double[]) { 4, 3 }, 2, 0);
      for (guint t = 0; t < 2; t++)
        {
          const double y = bottom - g.plot_h * thresholds[t] + 0.5;

          set_color (cr, sim_level_color (levels[t]), 0.9);
          cairo_move_to (cr, g.left_x, y);
          cairo_line_to (cr, g.left_x + g.left_w, y);
          cairo_stroke (cr);
        }
      cairo_restore (cr);
      /* The selected segment: a line through it and a mark above. */
      if (self->selected >= 0 && (guint) self->selected < sim_report_get_n_segments (self->report))
        {
          const SimReportSegment *seg = sim_report_get_segment (self->report, self->selected);
          const double x = g.left_x + g.left_w * (seg->start + seg->end) / 2.0 / n_chars;

          cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.9);
          cairo_move_to (cr, x - 5, g.plot_y - 4);
          cairo_line_to (cr, x + 5, g.plot_y - 4);
          cairo_line_to (cr, x, g.plot_y + 3);
          cairo_close_path (cr);
          cairo_fill (cr);
          cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.5);
          cairo_move_to (cr, floor (x) + 0.5, g.plot_y);
          cairo_line_to (cr, floor (x) + 0.5, bottom);
          cairo_stroke (cr);
        }
      for (guint b = 0; b < SIM_CHART_BINS; b++)
        max_count = MAX (max_count, counts[b]);
      for (guint b = 0; b < SIM_CHART_BINS; b++)
        {
          const double bh = g.plot_h * counts[b] / max_count;

          set_color (cr, sim_level_color (sim_report_view_level_of (self->view, (b + 0.5f) / SIM_CHART_BINS)), 1.0);
          cairo_rectangle (cr, g.hist_x + b * bin_w + 2, bottom - bh, bin_w - 4, bh);
          cairo_fill (cr);
        }
    }

  /* Axes: similarity 0-100% up the left plot, the position in the article
   * along it; segments up the histogram, similarity along it. Each x axis
   * is one line: its ends and its title between them. */
  cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.7);
  {
    const double tick_y = bottom + 2;
    g_autofree char *max_label = g_strdup_printf ("%u", max_count);
    const struct { double x; const char *title; } y_titles[] = {
      { g.left_x - AXIS_W + 2, _("Similarity") },
      { g.hist_x - AXIS_W + 2, _("Segments") },
    };

    show_text (cr, layout, "100%", g.left_x - 4, g.plot_y, 1, 0.5);
    show_text (cr, layout, "50%", g.left_x - 4, bottom - g.plot_h / 2, 1, 0.5);
    show_text (cr, layout, "0%", g.left_x - 4, bottom, 1, 0.5);
    show_text (cr, layout, max_label, g.hist_x - 4, g.plot_y, 1, 0.5);
    show_text (cr, layout, "0", g.hist_x - 4, bottom, 1, 0.5);
    show_text (cr, layout, "0%", g.left_x, tick_y, 0, 0);
    show_text (cr, layout, "100%", g.left_x + g.left_w, tick_y, 1, 0);
    show_text (cr, layout, _("Position in the article"), g.left_x + g.left_w / 2, tick_y, 0.5, 0);
    show_text (cr, layout, "0%", g.hist_x, tick_y, 0, 0);
    show_text (cr, layout, "100%", g.hist_x + g.hist_w, tick_y, 1, 0);
    show_text (cr, layout, _("Similarity"), g.hist_x + g.hist_w / 2, tick_y, 0.5, 0);
    for (guint i = 0; i < G_N_ELEMENTS (y_titles); i++)
      {
        int tw, th;

        pango_layout_set_text (layout, y_titles[i].title, -1);
        pango_layout_get_pixel_size (layout, &tw, &th);
        cairo_save (cr);
        cairo_move_to (cr, y_titles[i].x, g.plot_y + g.plot_h / 2 + tw / 2.0);
        cairo_rotate (cr, -G_PI / 2);
        pango_cairo_update_layout (cr, layout);
        pango_cairo_show_layout (cr, layout);
        cairo_restore (cr);
      }
  }
  g_object_unref (layout);
  cairo_destroy (cr);
}

gint
sim_chart_segment_at (SimChart *self,
                      double    x,
                      double    y)
{
  const Geometry g = geometry (self);

  if (self->report == NULL || sim_report_get_n_segments (self->report) == 0)
    return -1;
  if (x >= g.left_x && x < g.left_x + g.left_w)
    {
      const guint32 offset = (guint32) ((x - g.left_x) / g.left_w * sim_report_get_n_chars (self->report));
      gint index = sim_report_find_segment (self->report, offset);

      /* Between segments: the next one. */
      for (guint32 o = offset; index < 0 && o < sim_report_get_n_chars (self->report); o++)
        index = sim_report_find_segment (self->report, o);
      return index;
    }
  if (x >= g.hist_x && x < g.hist_x + g.hist_w)
    {
      const guint bin = MIN ((guint) ((x - g.hist_x) / g.hist_w * SIM_CHART_BINS), SIM_CHART_BINS - 1);

      /* A band: its first segment. */
      for (guint i = 0; i < sim_report_get_n_segments (self->report); i++)
        {
          const SimReportSegment *seg = sim_report_get_segment (self->report, i);

          if (MIN ((guint) (seg->similarity * SIM_CHART_BINS), SIM_CHART_BINS - 1) == bin &&
              !sim_report_view_is_segment_excluded (self->view, i))
            return i;
        }
    }
  return -1;
}

char *
sim_chart_describe_at (SimChart *self,
                       double    x,
                       double    y)
{
  const Geometry g = geometry (self);
  gint index;

  if (self->report == NULL)
    return NULL;
  if (x >= g.hist_x && x < g.hist_x + g.hist_w)
    {
      const guint bin = MIN ((guint) ((x - g.hist_x) / g.hist_w * SIM_CHART_BINS), SIM_CHART_BINS - 1);
      const guint *counts = sim_report_view_get_histogram (self->view);

      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u segment from %u%% to %u%% similar",
                                           "%u segments from %u%% to %u%% similar", counts[bin]),
                              counts[bin], 100 * bin / SIM_CHART_BINS, 100 * (bin + 1) / SIM_CHART_BINS);
    }
  index = sim_chart_segment_at (self, x, y);
  if (index < 0)
    return NULL;
  {
    const SimReportSegment *seg = sim_report_get_segment (self->report, index);
    const SimMatch *m = seg->n_matches > 0 ? sim_report_get_match (self->report, seg->first_match) : NULL;
    const SimReportSource *src = m ? sim_report_get_source (self->report, m->source) : NULL;

    if (src == NULL)
      return g_strdup_printf (_("Segment %d: no similar source"), index + 1);
    if (sim_report_segment_is_too_short (self->report, seg))
      return g_strdup_printf (_("Segment %d: %.0f%% similar to source %u, %s, but too little text to count"),
                              index + 1, 100 * seg->similarity, m->source + 1, src->title);
    if (seg->level == SIM_LEVEL_LOW)
      return g_strdup_printf (_("Segment %d: %.0f%% similar, below the medium level; best candidate: source %u, %s"),
                              index + 1, 100 * seg->similarity, m->source + 1, src->title);
    return g_strdup_printf (_("Segment %d: %.0f%% similar to source %u, %s"),
                            index + 1, 100 * seg->similarity, m->source + 1, src->title);
  }
}

static gboolean
on_query_tooltip (GtkWidget  *widget,
                  int         x,
                  int         y,
                  gboolean    keyboard,
                  GtkTooltip *tooltip)
{
  g_autofree char *text = sim_chart_describe_at (SIM_CHART (widget), x, y);

  if (text == NULL)
    return FALSE;
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

void
sim_chart_set_selected (SimChart *self,
                        gint      index)
{
  g_return_if_fail (SIM_IS_CHART (self));
  if (self->selected == index)
    return;
  self->selected = index;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gint
sim_chart_get_selected (SimChart *self)
{
  return self->selected;
}

static void
on_click (GtkGestureClick *gesture,
          int              n_press,
          double           x,
          double           y,
          SimChart        *self)
{
  const gint index = sim_chart_segment_at (self, x, y);

  if (index >= 0)
    g_signal_emit (self, signals[SEGMENT_ACTIVATED], 0, (guint) index);
}

static void
sim_chart_dispose (GObject *object)
{
  SimChart *self = SIM_CHART (object);

  g_clear_pointer (&self->view, sim_report_view_unref);
  self->report = NULL;
  G_OBJECT_CLASS (sim_chart_parent_class)->dispose (object);
}

static void
sim_chart_class_init (SimChartClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sim_chart_dispose;
  widget_class->snapshot = sim_chart_snapshot;
  gtk_widget_class_set_css_name (widget_class, "simchart");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_IMG);

  /**
   * SimChart::segment-activated:
   * @index: the segment under the click
   */
  signals[SEGMENT_ACTIVATED] = g_signal_new ("segment-activated", G_TYPE_FROM_CLASS (klass),
                                             G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                                             G_TYPE_NONE, 1, G_TYPE_UINT);
}

static void
sim_chart_init (SimChart *self)
{
  GtkGesture *click = gtk_gesture_click_new ();

  self->selected = -1;
  g_signal_connect (click, "pressed", G_CALLBACK (on_click), self);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  g_signal_connect (self, "query-tooltip", G_CALLBACK (on_query_tooltip), NULL);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (click));
  gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  _("Similarity chart: no check yet"), -1);
}

GtkWidget *
sim_chart_new (void)
{
  return g_object_new (SIM_TYPE_CHART, NULL);
}

void
sim_chart_set_view (SimChart      *self,
                    SimReportView *view)
{
  g_autofree char *label = NULL;

  g_return_if_fail (SIM_IS_CHART (self));

  g_clear_pointer (&self->view, sim_report_view_unref);
  self->report = NULL;
  self->selected = -1;
  if (view)
    {
      self->view = sim_report_view_ref (view);
      self->report = sim_report_view_get_report (view);
      label = g_strdup_printf (_("Similarity chart: %u segments, %u high and %u medium; %.0f%% of the article is similar"),
                               sim_report_get_n_segments (self->report),
                               sim_report_view_count_level (view, SIM_LEVEL_HIGH),
                               sim_report_view_count_level (view, SIM_LEVEL_MEDIUM),
                               100 * sim_report_view_get_similarity (view));
      gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}
