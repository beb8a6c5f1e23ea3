/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "sim-article-view.h"
#include "sim-tint.h"
#include "sim-level.h"

#define GUTTER 34   /* pixels left of the text for the numbers */

struct _SimArticleView {
  GtkTextView parent_instance;

  GArray *runs;          /* SimArticleRun, in text order */
  GtkTextTag *tag_high;
  GtkTextTag *tag_medium;
  GtkTextTag *tag_excluded;
  GtkTextTag *tag_source[SIM_SOURCE_N_COLORS];
  gint    outline_start; /* -1 without an outline */
  gint    outline_end;
};

G_DEFINE_FINAL_TYPE (SimArticleView, sim_article_view, GTK_TYPE_TEXT_VIEW)

/* The first run that ends after @offset: runs are in text order. */
static guint
first_run_after (SimArticleView *self,
                 guint32         offset)
{
  guint lo = 0, hi = self->runs->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (self->runs, SimArticleRun, mid).end <= offset)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static void
draw_badge (SimArticleView *self,
            GtkSnapshot    *snapshot,
            PangoLayout    *layout,
            guint           number,
            double          x,
            double          y,
            double          line_height,
            double         *width)
{
  g_autofree char *text = g_strdup_printf ("%u", number);
  GskRoundedRect box;
  GdkRGBA fill, ink = { 0, 0, 0, 0.87 };
  int tw, th;
  double w, h;

  pango_layout_set_text (layout, text, -1);
  pango_layout_get_pixel_size (layout, &tw, &th);
  w = MAX (tw + 6, th + 2);
  h = th + 2;
  y += MAX (0, (line_height - h) / 2);
  gdk_rgba_parse (&fill, sim_source_color (number));
  gsk_rounded_rect_init_from_rect (&box, &GRAPHENE_RECT_INIT (x, y, w, h), 4);
  gtk_snapshot_push_rounded_clip (snapshot, &box);
  gtk_snapshot_append_color (snapshot, &fill, &GRAPHENE_RECT_INIT (x, y, w, h));
  gtk_snapshot_pop (snapshot);
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (x + (w - tw) / 2, y + 1));
  gtk_snapshot_append_layout (snapshot, layout, &ink);
  gtk_snapshot_restore (snapshot);
  *width = w;
}

/* The numbers, in the gutter beside the display line where each run starts. */
static void
snapshot_badges (SimArticleView *self,
                 GtkSnapshot    *snapshot)
{
  GtkTextView *view = GTK_TEXT_VIEW (self);
  g_autoptr(PangoLayout) layout = NULL;
  PangoAttrList *attrs;
  GdkRectangle visible;
  GtkTextIter top, bottom;
  double last_y = -1, next_x = 0;
  guint32 bottom_offset;

  if (self->runs->len == 0)
    return;
  layout = gtk_widget_create_pango_layout (GTK_WIDGET (self), NULL);
  attrs = pango_attr_list_new ();
  pango_attr_list_insert (attrs, pango_attr_scale_new (0.75));
  pango_attr_list_insert (attrs, pango_attr_weight_new (PANGO_WEIGHT_BOLD));
  pango_layout_set_attributes (layout, attrs);
  pango_attr_list_unref (attrs);
  /* Only the runs on screen: a long article has thousands. */
  gtk_text_view_get_visible_rect (view, &visible);
  gtk_text_view_get_iter_at_location (view, &top, visible.x, visible.y);
  gtk_text_view_get_iter_at_location (view, &bottom, visible.x + visible.width, visible.y + visible.height);
  gtk_text_iter_forward_line (&bottom);
  bottom_offset = gtk_text_iter_get_offset (&bottom);
  for (guint i = first_run_after (self, gtk_text_iter_get_offset (&top)); i < self->runs->len; i++)
    {
      const SimArticleRun *run = &g_array_index (self->runs, SimArticleRun, i);
      GtkTextIter at;
      GdkRectangle where;
      double w;

      if (run->start > bottom_offset)
        break;
      gtk_text_buffer_get_iter_at_offset (gtk_text_view_get_buffer (view), &at, run->start);
      gtk_text_view_get_iter_location (view, &at, &where);
      /* Runs starting on one line share the gutter, side by side. */
      if (where.y != last_y)
        next_x = 2;
      else if (next_x >= GUTTER - 8)
        continue;
      draw_badge (self, snapshot, layout, run->number, next_x, where.y, where.height, &w);
      next_x += w + 2;
      last_y = where.y;
    }
}

/* An outline around the selected flag, a rectangle per display line. */
static void
snapshot_outline (SimArticleView *self,
                  GtkSnapshot    *snapshot)
{
  GtkTextView *view = GTK_TEXT_VIEW (self);
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
  GtkTextIter line, end;
  GdkRGBA color;
  int guard = 0;

  if (self->outline_start < 0)
    return;
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (self)), &color);
  gtk_text_buffer_get_iter_at_offset (buffer, &line, self->outline_start);
  gtk_text_buffer_get_iter_at_offset (buffer, &end, self->outline_end);
  while (gtk_text_iter_compare (&line, &end) < 0 && guard++ < 10000)
    {
      GtkTextIter line_end = line;
      GdkRectangle a, b;
      const float widths[4] = { 1.5, 1.5, 1.5, 1.5 };
      GdkRGBA colors[4] = { color, color, color, color };
      GskRoundedRect box;

      gtk_text_view_forward_display_line_end (view, &line_end);
      if (gtk_text_iter_compare (&line_end, &end) > 0 || gtk_text_iter_equal (&line_end, &line))
        line_end = end;
      gtk_text_view_get_iter_location (view, &line, &a);
      gtk_text_view_get_iter_location (view, &line_end, &b);
      if (b.x > a.x)
        {
          gsk_rounded_rect_init_from_rect (&box, &GRAPHENE_RECT_INIT (a.x - 1, a.y, b.x - a.x + 2, a.height), 3);
          gtk_snapshot_append_border (snapshot, &box, widths, colors);
        }
      if (!gtk_text_view_forward_display_line (view, &line))
        break;
      gtk_text_view_backward_display_line_start (view, &line);
    }
}

static void
sim_article_view_snapshot_layer (GtkTextView      *view,
                                 GtkTextViewLayer  layer,
                                 GtkSnapshot      *snapshot)
{
  SimArticleView *self = SIM_ARTICLE_VIEW (view);

  if (layer != GTK_TEXT_VIEW_LAYER_ABOVE_TEXT)
    return;
  snapshot_badges (self, snapshot);
  snapshot_outline (self, snapshot);
}

void
sim_article_view_set_runs (SimArticleView      *self,
                           const SimArticleRun *runs,
                           guint                n_runs)
{
  g_return_if_fail (SIM_IS_ARTICLE_VIEW (self));
  g_array_set_size (self->runs, 0);
  g_array_append_vals (self->runs, runs, n_runs);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

guint
sim_article_view_get_n_runs (SimArticleView *self)
{
  return self->runs->len;
}

const SimArticleRun *
sim_article_view_get_run (SimArticleView *self,
                          guint           index)
{
  g_return_val_if_fail (index < self->runs->len, NULL);
  return &g_array_index (self->runs, SimArticleRun, index);
}

void
sim_article_view_set_outline (SimArticleView *self,
                              gint            start,
                              gint            end)
{
  self->outline_start = start < 0 ? -1 : start;
  self->outline_end = MAX (start, end);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
sim_article_view_get_outline (SimArticleView *self,
                              guint32        *start,
                              guint32        *end)
{
  if (self->outline_start < 0)
    return FALSE;
  *start = self->outline_start;
  *end = self->outline_end;
  return TRUE;
}

static void
sim_article_view_finalize (GObject *object)
{
  SimArticleView *self = SIM_ARTICLE_VIEW (object);

  g_array_unref (self->runs);
  G_OBJECT_CLASS (sim_article_view_parent_class)->finalize (object);
}

static void
sim_article_view_class_init (SimArticleViewClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sim_article_view_finalize;
  GTK_TEXT_VIEW_CLASS (klass)->snapshot_layer = sim_article_view_snapshot_layer;
}

static void
sim_article_view_init (SimArticleView *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self));
  GdkRGBA tint, grey;

  self->runs = g_array_new (FALSE, FALSE, sizeof (SimArticleRun));
  self->outline_start = -1;
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (self), GUTTER + 6);
  /* Colours that read in light and dark styles: translucent level colours. */
  sim_tint_get_rgba (SIM_LEVEL_HIGH, 1.0, &tint);
  self->tag_high = gtk_text_buffer_create_tag (buffer, "sim-high", "background-rgba", &tint, NULL);
  sim_tint_get_rgba (SIM_LEVEL_MEDIUM, 1.0, &tint);
  self->tag_medium = gtk_text_buffer_create_tag (buffer, "sim-medium", "background-rgba", &tint, NULL);
  gdk_rgba_parse (&grey, sim_level_excluded_tint ());
  self->tag_excluded = gtk_text_buffer_create_tag (buffer, "sim-excluded", "background-rgba", &grey,
                                                   "foreground", "#5e5c64", NULL);
  /* Source colours, translucent for the same reason. */
  for (guint c = 0; c < SIM_SOURCE_N_COLORS; c++)
    {
      g_autofree char *name = g_strdup_printf ("sim-source-%u", c + 1);

      gdk_rgba_parse (&tint, sim_source_color (c + 1));
      tint.alpha = sim_source_tint_alpha ();
      self->tag_source[c] = gtk_text_buffer_create_tag (buffer, name, "background-rgba", &tint, NULL);
    }
}

void
sim_article_view_show (SimArticleView      *self,
                       SimReportView       *view,
                       SimArticleColouring  colouring,
                       gint                 filter)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self));
  g_autoptr(GArray) numbered = g_array_new (FALSE, FALSE, sizeof (SimArticleRun));
  gint64 stretch_start = -1;
  GtkTextIter start, end;

  g_return_if_fail (SIM_IS_ARTICLE_VIEW (self));
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  gtk_text_buffer_remove_all_tags (buffer, &start, &end);
  if (view == NULL)
    sim_article_view_set_outline (self, -1, -1);
  for (guint r = 0; view != NULL && r < sim_report_view_get_n_runs (view); r++)
    {
      const SimFlaggedRun *run = sim_report_view_get_run (view, r);
      GtkTextTag *tag;

      if (filter >= 0 && run->source != (guint) filter)
        continue;
      if (run->excluded)
        tag = self->tag_excluded;
      else if (colouring == SIM_ARTICLE_BY_SOURCE)
        tag = self->tag_source[run->source % SIM_SOURCE_N_COLORS];
      else
        tag = run->level == SIM_LEVEL_HIGH ? self->tag_high : self->tag_medium;
      gtk_text_buffer_get_iter_at_offset (buffer, &start, run->start);
      gtk_text_buffer_get_iter_at_offset (buffer, &end, run->end);
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
  sim_article_view_set_runs (self, (SimArticleRun *) numbered->data, numbered->len);
}

void
sim_article_view_preview (SimArticleView *self,
                          guint32         start,
                          guint32         end,
                          SimLevel        level)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self));
  GtkTextIter from, to;

  gtk_text_buffer_get_iter_at_offset (buffer, &from, start);
  gtk_text_buffer_get_iter_at_offset (buffer, &to, end);
  gtk_text_buffer_apply_tag (buffer, level == SIM_LEVEL_HIGH ? self->tag_high : self->tag_medium, &from, &to);
}
