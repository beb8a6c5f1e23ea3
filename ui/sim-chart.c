/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "sim-export.h"
#include "sim-chart.h"

#define LEFT_SHARE 0.65 /* the along-the-article part; the rest is the histogram */
#define PAD 8.0

struct _SimChart {
  GtkWidget  parent_instance;

  SimReport *report; /* owned, may be NULL */
};

G_DEFINE_FINAL_TYPE (SimChart, sim_chart, GTK_TYPE_WIDGET)

enum {
  SEGMENT_ACTIVATED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
set_color (cairo_t    *cr,
           const char *hex,
           double      alpha)
{
  GdkRGBA rgba;

  gdk_rgba_parse (&rgba, hex);
  cairo_set_source_rgba (cr, rgba.red, rgba.green, rgba.blue, alpha);
}

static void
sim_chart_snapshot (GtkWidget   *widget,
                    GtkSnapshot *snapshot)
{
  SimChart *self = SIM_CHART (widget);
  const double w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  const double left_w = (w - 3 * PAD) * LEFT_SHARE, plot_h = h - 2 * PAD - 12;
  const double hist_x = 2 * PAD + left_w, hist_w = w - 3 * PAD - left_w;
  cairo_t *cr;
  GdkRGBA fg;

  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, w, h));
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.25);
  cairo_set_line_width (cr, 1);
  cairo_rectangle (cr, PAD + 0.5, PAD + 0.5, left_w - 1, plot_h - 1);
  cairo_rectangle (cr, hist_x + 0.5, PAD + 0.5, hist_w - 1, plot_h - 1);
  cairo_stroke (cr);

  if (self->report != NULL)
    {
      const guint32 n_chars = MAX (sim_report_get_n_chars (self->report), 1);
      guint counts[SIM_CHART_BINS], max_count = 1;
      const double bin_w = hist_w / SIM_CHART_BINS;

      for (guint i = 0; i < sim_report_get_n_segments (self->report); i++)
        {
          const SimReportSegment *seg = sim_report_get_segment (self->report, i);
          const double x = PAD + left_w * seg->start / n_chars;
          const double bw = MAX (1.0, left_w * (seg->end - seg->start) / n_chars);
          const double bh = MAX (1.0, plot_h * seg->similarity);

          set_color (cr, sim_level_color (seg->level), seg->level == SIM_LEVEL_LOW ? 0.6 : 1.0);
          cairo_rectangle (cr, x, PAD + plot_h - bh, bw, bh);
          cairo_fill (cr);
        }
      sim_report_histogram (self->report, counts);
      for (guint b = 0; b < SIM_CHART_BINS; b++)
        max_count = MAX (max_count, counts[b]);
      for (guint b = 0; b < SIM_CHART_BINS; b++)
        {
          const double bh = plot_h * counts[b] / max_count;

          set_color (cr, sim_level_color (sim_report_level_of (self->report, (b + 0.5f) / SIM_CHART_BINS)), 1.0);
          cairo_rectangle (cr, hist_x + b * bin_w + 2, PAD + plot_h - bh, bin_w - 4, bh);
          cairo_fill (cr);
        }
    }

  {
    PangoLayout *layout = gtk_widget_create_pango_layout (widget, _("along the article"));

    cairo_set_source_rgba (cr, fg.red, fg.green, fg.blue, 0.7);
    cairo_move_to (cr, PAD, PAD + plot_h + 1);
    pango_cairo_show_layout (cr, layout);
    pango_layout_set_text (layout, _("segments per similarity band, 0–100%"), -1);
    cairo_move_to (cr, hist_x, PAD + plot_h + 1);
    pango_cairo_show_layout (cr, layout);
    g_object_unref (layout);
  }
  cairo_destroy (cr);
}

gint
sim_chart_segment_at (SimChart *self,
                      double    x,
                      double    y)
{
  const double w = gtk_widget_get_width (GTK_WIDGET (self));
  const double left_w = (w - 3 * PAD) * LEFT_SHARE, hist_x = 2 * PAD + left_w;
  const double hist_w = w - 3 * PAD - left_w;

  if (self->report == NULL || sim_report_get_n_segments (self->report) == 0)
    return -1;
  if (x >= PAD && x < PAD + left_w)
    {
      const guint32 offset = (guint32) ((x - PAD) / left_w * sim_report_get_n_chars (self->report));
      gint index = sim_report_find_segment (self->report, offset);

      /* Between segments: the next one. */
      for (guint32 o = offset; index < 0 && o < sim_report_get_n_chars (self->report); o++)
        index = sim_report_find_segment (self->report, o);
      return index;
    }
  if (x >= hist_x && x < hist_x + hist_w)
    {
      const guint bin = MIN ((guint) ((x - hist_x) / hist_w * SIM_CHART_BINS), SIM_CHART_BINS - 1);

      /* A band: its first segment. */
      for (guint i = 0; i < sim_report_get_n_segments (self->report); i++)
        {
          const SimReportSegment *seg = sim_report_get_segment (self->report, i);

          if (MIN ((guint) (seg->similarity * SIM_CHART_BINS), SIM_CHART_BINS - 1) == bin)
            return i;
        }
    }
  return -1;
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

  g_clear_pointer (&self->report, sim_report_unref);
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

  g_signal_connect (click, "pressed", G_CALLBACK (on_click), self);
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
sim_chart_set_report (SimChart  *self,
                      SimReport *report)
{
  g_autofree char *label = NULL;

  g_return_if_fail (SIM_IS_CHART (self));

  g_clear_pointer (&self->report, sim_report_unref);
  if (report)
    {
      self->report = sim_report_ref (report);
      label = g_strdup_printf (_("Similarity chart: %u segments, %u high and %u medium; %.0f%% of the article is similar"),
                               sim_report_get_n_segments (report),
                               sim_report_count_level (report, SIM_LEVEL_HIGH),
                               sim_report_count_level (report, SIM_LEVEL_MEDIUM),
                               100 * sim_report_get_similarity (report));
      gtk_accessible_update_property (GTK_ACCESSIBLE (self), GTK_ACCESSIBLE_PROPERTY_LABEL, label, -1);
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}
