/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The PDF module (sim-pdf.h), its writing half: the report drawn as a PDF
 * with cairo and pango, from the same listing and wording as the HTML
 * report (sim-export-private.h).
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <cairo.h>
#include <cairo-pdf.h>
#include <pango/pangocairo.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "sim-error.h"
#include "sim-export.h"
#include "sim-export-private.h"
#include "sim-fonts.h"
#include "sim-parallel.h"
#include "sim-pdf.h"
#include "sim-text.h"

#define MARGIN   50.0
#define CHART_H  100.0   /* the charts' height, points */
#define CHART_BELOW 24.0 /* room for their labels below */

/* One line of a block as laid out: where it goes from the block's left
 * and how much it takes down the page. */
typedef struct {
  PangoLayoutLine *line;
  double           x;
  double           baseline;  /* below the line's top */
  double           height;
} Line;

/* A piece of the report in reading order: Pango markup, laid out in
 * lines on any thread (pdf_lay_out()), or the chart (@markup NULL); then
 * @space points. */
typedef struct {
  char        *markup;
  const char  *font;
  double       space;
  PangoLayout *layout;
  GArray      *lines;
} Block;

/* The report is gathered as blocks, laid out on every core (shaping took
 * 1.5-2 s of a 631-page report's 4.9), broken into pages and counted, and
 * then drawn straight on the PDF page by page with its header and "Page N
 * of M". Drawn into recording surfaces until their number was known and
 * put on the PDF after, those pages took 1.1 s more. */
typedef struct {
  double               page_w;   /* points: A4 595 x 842, Letter 612 x 792 */
  double               page_h;
  PangoContext        *context;  /* the header's and the chart's */
  GArray              *blocks;   /* Block */
  gint                 next;     /* the next block to lay out */
  const SimReportView *view;
} Pdf;

static void
block_clear (gpointer data)
{
  Block *b = data;

  g_free (b->markup);
  g_clear_pointer (&b->lines, g_array_unref);
  g_clear_object (&b->layout);
}

/* Print metrics, whatever the surface; Han characters in their Simplified
 * Chinese forms (Noto Sans CJK SC, not the Japanese variant fontconfig
 * picks by default) unless the reader's language wants other forms. */
static void
pdf_set_up_context (PangoContext *context)
{
  cairo_font_options_t *options = cairo_font_options_create ();
  const char *lang = pango_language_to_string (pango_language_get_default ());

  cairo_font_options_set_hint_metrics (options, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style (options, CAIRO_HINT_STYLE_NONE);
  pango_cairo_context_set_font_options (context, options);
  cairo_font_options_destroy (options);
  /* Glyphs where the font puts them, not on whole points (a PDF's
   * device unit): rounded, every Latin glyph's advance differed from the
   * font's, and cairo wrote an adjustment for each. */
  pango_context_set_round_glyph_positions (context, FALSE);
  /* Shaped as Chinese too: the font's Japanese forms are one 'locl' away. */
  if (strcmp (sim_export_cjk_family (lang), "Noto Sans CJK SC") == 0)
    pango_context_set_language (context, pango_language_from_string ("zh-cn"));
  lang = pango_language_to_string (pango_context_get_language (context));

  /* pdf_font()'s families (sim-fonts.h): Pango gives a Chinese comma after
   * a Latin word the word's run, with no Chinese language (533 such glyphs
   * of a 639-page report were in the Japanese variant). Digits among
   * Chinese are in the Latin face, as in the HTML report. */
  {
    g_autofree char *latin = sim_fonts_latin_family (pango_context_get_font_map (context), "Sans 10");

    if (latin != NULL)
      g_object_set_data_full (G_OBJECT (context), "simhound-families",
                              g_strconcat (latin, ",", sim_export_cjk_family (lang), NULL), g_free);
  }
}

/* @font ("Sans 10") in the families pdf_set_up_context() chose. */
static PangoFontDescription *
pdf_font (PangoContext *context,
          const char   *font)
{
  PangoFontDescription *desc = pango_font_description_from_string (font);
  const char *families = g_object_get_data (G_OBJECT (context), "simhound-families");

  if (families != NULL)
    pango_font_description_set_family (desc, families);
  return desc;
}

/* Pango markup as the next block, then @space points. */
static void
pdf_markup_spaced (Pdf        *pdf,
                   const char *markup,
                   const char *font,
                   double      space)
{
  Block b = { g_strdup (markup), font, space };

  g_array_append_val (pdf->blocks, b);
}

/* @points more below the last block. */
static void
pdf_space (Pdf    *pdf,
           double  points)
{
  g_array_index (pdf->blocks, Block, pdf->blocks->len - 1).space += points;
}

/* Lays out blocks until none is left, on a font map of its own: Pango's
 * objects are not to be shared between threads. Drawn once every thread
 * is done. */
static void
pdf_lay_out (gpointer data)
{
  Pdf *pdf = data;
  PangoFontMap *map = pango_cairo_font_map_new ();
  PangoContext *context = pango_font_map_create_context (map);

  pdf_set_up_context (context);
  for (;;)
    {
      const gint i = g_atomic_int_add (&pdf->next, 1);
      Block *b;
      PangoFontDescription *desc;
      PangoLayoutIter *iter;

      if (i >= (gint) pdf->blocks->len)
        break;
      b = &g_array_index (pdf->blocks, Block, i);
      if (b->markup == NULL)
        continue;
      b->layout = pango_layout_new (context);
      desc = pdf_font (context, b->font);
      pango_layout_set_font_description (b->layout, desc);
      pango_font_description_free (desc);
      pango_layout_set_width (b->layout, (pdf->page_w - 2 * MARGIN) * PANGO_SCALE);
      pango_layout_set_wrap (b->layout, PANGO_WRAP_WORD_CHAR);
      pango_layout_set_markup (b->layout, b->markup, -1);
      g_clear_pointer (&b->markup, g_free);
      b->lines = g_array_new (FALSE, FALSE, sizeof (Line));
      iter = pango_layout_get_iter (b->layout);
      do
        {
          PangoRectangle logical;
          Line line;

          pango_layout_iter_get_line_extents (iter, NULL, &logical);
          line.line = pango_layout_iter_get_line_readonly (iter);
          line.x = (double) logical.x / PANGO_SCALE;
          line.baseline = (double) (pango_layout_iter_get_baseline (iter) - logical.y) / PANGO_SCALE;
          line.height = (double) logical.height / PANGO_SCALE;
          g_array_append_val (b->lines, line);
        }
      while (pango_layout_iter_next_line (iter));
      pango_layout_iter_free (iter);
    }
  g_object_unref (context);
  g_object_unref (map);
}

static void
pdf_markup (Pdf        *pdf,
            const char *markup,
            const char *font)
{
  pdf_markup_spaced (pdf, markup, font, 6);
}

/* The article flows into the PDF one paragraph at a time: Pango's cost
 * grows with the square of one layout's text (a 1 MB article in one layout
 * took 8 s), so a paragraph is one layout, and a paragraph longer than
 * FLOW_MAX_BYTES is cut after a sentence or a space. */
#define FLOW_MAX_BYTES 4096

typedef struct {
  Pdf        *pdf;
  GString    *markup;
  gsize       n_text;  /* bytes of text in @markup */
  const char *tint;    /* of the open span, or NULL */
  const char *font;
} Flow;

static void
flow_break (Flow *flow)
{
  if (flow->tint)
    g_string_append (flow->markup, "</span>");
  pdf_markup_spaced (flow->pdf, flow->markup->str, flow->font, 0);
  g_string_truncate (flow->markup, 0);
  flow->n_text = 0;
  if (flow->tint)
    g_string_append_printf (flow->markup, "<span background=\"%s\">", flow->tint);
}

static void
flow_piece (Flow       *flow,
            const char *text,
            gsize       len)
{
  g_autofree char *e = g_markup_escape_text (text, len);

  g_string_append (flow->markup, e);
  flow->n_text += len;
}

static void
flow_text (Flow       *flow,
           const char *text)
{
  while (*text)
    {
      const char *nl = strchr (text, '\n');
      gsize len = nl ? (gsize) (nl - text) : strlen (text);

      /* A long paragraph is cut at its last sentence end (or space) before the limit. */
      while (flow->n_text + len > FLOW_MAX_BYTES)
        {
          gsize room = FLOW_MAX_BYTES > flow->n_text ? FLOW_MAX_BYTES - flow->n_text : 0, cut = 0;

          for (gsize i = room; i > 0 && cut == 0; i--)
            if (text[i - 1] == ' ' && i >= 2 && strchr (".!?", text[i - 2]))
              cut = i;
          for (gsize i = room; i > 0 && cut == 0; i--)
            if (text[i - 1] == ' ')
              cut = i;
          if (cut == 0)
            cut = g_utf8_find_prev_char (text, text + MAX (room, 1)) - text;
          if (cut == 0 && flow->n_text == 0)
            cut = g_utf8_next_char (text) - text;
          flow_piece (flow, text, cut);
          flow_break (flow);
          text += cut;
          len -= cut;
        }
      flow_piece (flow, text, len);
      text += len;
      if (*text == '\n')
        {
          flow_break (flow);
          text++;
        }
    }
}

static void
set_color (cairo_t    *cr,
           const char *hex)
{
  guint rgb = (guint) g_ascii_strtoull (hex + 1, NULL, 16);

  cairo_set_source_rgb (cr, ((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0, (rgb & 0xff) / 255.0);
}

/* A small label at (@x, @y): @align 0 left, 0.5 centred, 1 right of @x. */
static void
chart_label (Pdf        *pdf,
             cairo_t    *cr,
             const char *text,
             double      x,
             double      y,
             double      align)
{
  g_autoptr(PangoLayout) layout = pango_layout_new (pdf->context);
  g_autoptr(PangoFontDescription) font = pdf_font (pdf->context, "Sans 6.5");
  int w, h;

  pango_layout_set_font_description (layout, font);
  pango_layout_set_text (layout, text, -1);
  pango_layout_get_size (layout, &w, &h);
  cairo_set_source_rgb (cr, 0.33, 0.33, 0.33);
  cairo_move_to (cr, x - align * w / PANGO_SCALE, y - h / PANGO_SCALE / 2.0);
  pango_cairo_show_layout (cr, layout);
}

/* The charts of the window, drawn alike: every segment's similarity along
 * the article, with its axis in percent and the two thresholds dashed in
 * their colours, and beside it, apart, the segments per similarity band
 * with their counts; below the point @y of @cr. */
static void
pdf_chart (Pdf     *pdf,
           cairo_t *cr,
           double   y)
{
  const SimReportView *view = pdf->view;
  const SimReport *report = sim_report_view_get_report (view);
  const SimReportSettings *s = sim_report_get_settings (report);
  const double w = pdf->page_w - 2 * MARGIN, h = CHART_H, axis = 22;
  const double left_x = MARGIN + axis, left_w = w * 0.58 - axis;
  const double hist_x = MARGIN + w * 0.58 + 16 + axis, hist_w = MARGIN + w - hist_x;
  const double top = y + 8, bottom = top + h;
  const guint32 n_chars = MAX (sim_report_get_n_chars (report), 1);
  const guint *counts = sim_report_view_get_histogram (view);
  const float thresholds[2] = { s->medium_threshold, s->high_threshold };
  const SimLevel levels[2] = { SIM_LEVEL_MEDIUM, SIM_LEVEL_HIGH };
  guint max_count = 1;

  for (guint i = 0; i < SIM_CHART_BINS; i++)
    max_count = MAX (max_count, counts[i]);
  cairo_set_line_width (cr, 0.5);
  cairo_set_source_rgb (cr, 0.8, 0.8, 0.8);
  cairo_rectangle (cr, left_x, top, left_w, h);
  cairo_rectangle (cr, hist_x, top, hist_w, h);
  cairo_stroke (cr);
  for (guint i = 0; i < sim_report_get_n_segments (report); i++)
    {
      const SimReportSegment *seg = sim_report_get_segment (report, i);
      const double x = left_w * seg->start / n_chars;
      const double bw = MAX (0.5, left_w * (seg->end - seg->start) / n_chars);
      const double bh = h * seg->similarity;

      set_color (cr, sim_report_view_is_segment_excluded (view, i) ? sim_level_excluded_tint ()
                                                                   : sim_level_color (seg->level));
      cairo_rectangle (cr, left_x + x, bottom - bh, bw, bh);
      if (sim_report_segment_is_too_short (report, seg))
        {
          cairo_stroke (cr);  /* too little text to count: an outline, as in the app */
          continue;
        }
      cairo_fill (cr);
    }
  /* The thresholds, dashed in their levels' colours. */
  cairo_save (cr);
  cairo_set_dash (cr, (double[]) { 3, 2 }, 2, 0);
  for (guint t = 0; t < 2; t++)
    {
      set_color (cr, sim_level_color (levels[t]));
      cairo_move_to (cr, left_x, bottom - h * thresholds[t]);
      cairo_line_to (cr, left_x + left_w, bottom - h * thresholds[t]);
      cairo_stroke (cr);
    }
  cairo_restore (cr);
  for (guint b = 0; b < SIM_CHART_BINS; b++)
    {
      const double bw = hist_w / SIM_CHART_BINS;
      const double bh = h * counts[b] / max_count;

      set_color (cr, sim_level_color (sim_report_view_level_of (view, (b + 0.5f) / SIM_CHART_BINS)));
      cairo_rectangle (cr, hist_x + b * bw + 1, bottom - bh, bw - 2, bh);
      cairo_fill (cr);
    }
  /* Axes: similarity up the left one, the article along it; segments up
   * the histogram, similarity along it. */
  for (guint p = 0; p <= 100; p += 50)
    {
      g_autofree char *pct = g_strdup_printf ("%u%%", p);
      g_autofree char *n = g_strdup_printf ("%u", p == 0 ? 0 : p == 50 ? max_count / 2 : max_count);

      chart_label (pdf, cr, pct, left_x - 3, bottom - h * p / 100, 1);
      if (p != 50 || max_count >= 2)
        chart_label (pdf, cr, n, hist_x - 3, bottom - h * (p == 50 ? (double) (max_count / 2) / max_count : p / 100.0), 1);
      chart_label (pdf, cr, pct, hist_x + hist_w * p / 100, bottom + 7, p == 0 ? 0 : p == 100 ? 1 : 0.5);
    }
  chart_label (pdf, cr, _("start of the article"), left_x, bottom + 7, 0);
  chart_label (pdf, cr, _("end"), left_x + left_w, bottom + 7, 1);
  chart_label (pdf, cr, _("Similarity of each segment along the article"), left_x + left_w / 2, bottom + 17, 0.5);
  chart_label (pdf, cr, _("Segments per similarity band"), hist_x + hist_w / 2, bottom + 17, 0.5);
  cairo_set_source_rgb (cr, 0, 0, 0);
}

/* The header and number of page @page of @n_pages, and the page put on
 * the PDF. */
static void
pdf_end_page (Pdf             *pdf,
              cairo_t         *cr,
              const char      *header,
              guint            page,
              guint            n_pages)
{
  g_autoptr(PangoLayout) layout = pango_layout_new (pdf->context);
  g_autofree char *number = g_strdup_printf (_("Page %u of %u"), page, n_pages);
  PangoFontDescription *desc = pdf_font (pdf->context, "Sans 7.5");
  int h;

  pango_layout_set_font_description (layout, desc);
  pango_font_description_free (desc);
  pango_layout_set_width (layout, (pdf->page_w - 2 * MARGIN) * PANGO_SCALE);
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_MIDDLE);
  cairo_set_source_rgb (cr, 0.35, 0.35, 0.35);
  pango_layout_set_alignment (layout, PANGO_ALIGN_LEFT);
  pango_layout_set_text (layout, header, -1);
  pango_layout_get_pixel_size (layout, NULL, &h);
  cairo_move_to (cr, MARGIN, MARGIN / 2 - h / 2.0);
  pango_cairo_show_layout (cr, layout);
  pango_layout_set_alignment (layout, PANGO_ALIGN_CENTER);
  pango_layout_set_text (layout, number, -1);
  cairo_move_to (cr, MARGIN, pdf->page_h - MARGIN / 2 - h / 2.0);
  pango_cairo_show_layout (cr, layout);
  cairo_show_page (cr);
  cairo_set_source_rgb (cr, 0, 0, 0);
}

/* The blocks broken into pages: a line goes on the next page when it
 * would reach the bottom margin, the chart when it would with its labels.
 * Drawn on @cr, each page ended (pdf_end_page()) as one of @n_pages, or
 * with @cr NULL only counted. Returns the pages. */
static guint
pdf_pages (Pdf        *pdf,
           cairo_t    *cr,
           const char *header,
           guint       n_pages)
{
  const double bottom = pdf->page_h - MARGIN;
  guint page = 1;
  double y = MARGIN;

  for (guint i = 0; i < pdf->blocks->len; i++)
    {
      const Block *b = &g_array_index (pdf->blocks, Block, i);

      if (b->layout == NULL)
        {
          if (y + CHART_H + CHART_BELOW + 12 > bottom)
            {
              if (cr != NULL)
                pdf_end_page (pdf, cr, header, page, n_pages);
              page++;
              y = MARGIN;
            }
          if (cr != NULL)
            pdf_chart (pdf, cr, y);
          y += 8 + CHART_H + CHART_BELOW;
        }
      else for (guint k = 0; k < b->lines->len; k++)
        {
          const Line *line = &g_array_index (b->lines, Line, k);

          if (y + line->height > bottom)
            {
              if (cr != NULL)
                pdf_end_page (pdf, cr, header, page, n_pages);
              page++;
              y = MARGIN;
            }
          if (cr != NULL)
            {
              cairo_move_to (cr, MARGIN + line->x, y + line->baseline);
              pango_cairo_show_layout_line (cr, line->line);
            }
          y += line->height;
        }
      y += b->space;
    }
  if (cr != NULL)
    pdf_end_page (pdf, cr, header, page, n_pages);
  return page;
}



gboolean
sim_pdf_write_report (const SimReportView *view,
                      const char          *path,
                      SimPaper             paper,
                      GError             **error)
{
  const SimReport *report = sim_report_view_get_report (view);
  /* Written beside the target and renamed when whole: an interrupted or
   * failed export leaves no half-written PDF under the name asked for. */
  g_autofree char *partial = g_strconcat (path, SIM_EXPORT_PARTIAL_SUFFIX, NULL);
  const double page_w = paper == SIM_PAPER_LETTER ? 612.0 : 595.0;
  const double page_h = paper == SIM_PAPER_LETTER ? 792.0 : 842.0;
  cairo_surface_t *surface = cairo_pdf_surface_create (partial, page_w, page_h);
  const SimReportSettings *s = sim_report_get_settings (report);
  g_autoptr(GString) markup = g_string_new (NULL);
  g_autoptr(GArray) blocks = g_array_new (FALSE, TRUE, sizeof (Block));
  Pdf pdf = { page_w, page_h, NULL, blocks, 0, view };
  cairo_status_t status;
  guint32 at = 0;

  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, _("Cannot write %s: %s"), path,
                   cairo_status_to_string (cairo_surface_status (surface)));
      cairo_surface_destroy (surface);
      return FALSE;
    }
  g_array_set_clear_func (blocks, block_clear);
  {
    g_autofree char *title = g_markup_printf_escaped ("<b>%s</b>", _("Similarity report"));
    g_autofree char *summary = g_markup_printf_escaped (
      _("<b>%.1f%%</b> of the article is similar to the reference corpus: %u high, %u medium and %u low segments."),
      100 * sim_report_view_get_similarity (view), sim_report_view_count_level (view, SIM_LEVEL_HIGH),
      sim_report_view_count_level (view, SIM_LEVEL_MEDIUM), sim_report_view_count_level (view, SIM_LEVEL_LOW));
    g_autofree char *settings = NULL;

    const SimRatios *r = sim_report_view_get_ratios (view);
    g_autofree char *ratios = g_markup_printf_escaped (
      _("Total %.1f%%, excluding quotations %.1f%%, excluding the references %.1f%%, excluding both %.1f%%; "
        "largest single source %.1f%%."),
      100 * r->total, 100 * r->excluding_quotes, 100 * r->excluding_references, 100 * r->excluding_both,
      100 * r->largest_source);
    g_autoptr(GDateTime) now = g_date_time_new_now_local ();
    g_autofree char *date = g_date_time_format (now, "%Y-%m-%d %H:%M");
    g_autofree char *corpus = _sim_export_corpus_phrase (s);
    g_autofree char *segments = g_str_equal (s->mode, "window")
                                  ? g_strdup_printf (_("windows of %u characters"), s->window)
                                  : g_strdup (_("sentences"));

    settings = g_markup_printf_escaped (_("Checked %s against a reference corpus of %s (%s); compared by %s, "
                                          "%s search; high from %.0f%%, medium from %.0f%% similarity to source."),
                                        date, corpus, s->store, segments, s->fast ? _("fast") : _("precise"),
                                        100 * s->high_threshold, 100 * s->medium_threshold);
    pdf_markup (&pdf, title, "Sans 18");
    if (sim_report_get_name (report))
      {
        g_autofree char *name = g_markup_printf_escaped ("<b>%s</b>", sim_report_get_name (report));

        pdf_markup (&pdf, name, "Sans 11");
      }
    pdf_markup (&pdf, summary, "Sans 10");
    for (guint i = 0; i < sim_report_get_n_suspicious (report); i++)
      {
        g_autofree char *what = sim_suspicious_dup_description (sim_report_get_suspicious (report, i));
        g_autofree char *line = g_markup_printf_escaped ("<span foreground=\"#a50026\"><b>%s</b> %s</span>",
                                                         _("Warning:"), what);

        pdf_markup (&pdf, line, "Sans 10");
      }
    pdf_markup (&pdf, ratios, "Sans 9");
    pdf_markup (&pdf, settings, "Sans 8");
  }

  /* Sources, numbered and coloured as their passages in the text below. */
  {
    const guint n_flagged_sources = _sim_export_count_flagged_sources (report);
    g_autofree char *heading = g_markup_printf_escaped ("<b>%s</b>", _("Sources"));

    pdf_markup (&pdf, heading, "Sans 13");
    for (guint i = 0; i < n_flagged_sources; i++)
      {
        const SimReportSource *src = sim_report_get_source (report, i);
        const SimSourceShare *share = sim_report_view_get_share (view, i);
        g_autofree char *characters = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u character",
                                                                    "%u characters", share->n_chars), share->n_chars);
        g_autofree char *row = g_markup_printf_escaped ("<span background=\"%s\"><b> %u </b></span>  "
                                                        "<b>%.1f%%</b>  %s  <span foreground=\"#555\">(%s)</span>\n"
                                                        "<span foreground=\"#555\">%s</span>",
                                                        sim_source_tint (i + 1), i + 1, 100 * share->share,
                                                        src->title, characters, src->display_path);

        pdf_markup_spaced (&pdf, row, "Sans 9", 3);
      }
    if (n_flagged_sources == 0)
      {
        g_autofree char *none = g_markup_escape_text (_("No source above the medium level."), -1);

        pdf_markup (&pdf, none, "Sans 9");
      }
    pdf_space (&pdf, 6);
  }
  {
    const Block chart = { NULL };

    g_array_append_val (blocks, chart);
  }

  /* The article, each flagged passage in its source's colour and number. */
  {
    Flow flow = { &pdf, markup, 0, NULL, "Sans 10" };
    g_autofree char *heading = g_markup_printf_escaped ("<b>%s</b>", _("Article"));
    g_autoptr(GString) legend = g_string_new (NULL);

    pdf_markup (&pdf, heading, "Sans 13");
    g_string_append (legend, _("Each flagged passage is coloured and numbered like its source in the table above."));
    if (sim_report_view_get_n_excluded (view) > 0)
      {
        g_string_append_c (legend, ' ');
        g_string_append (legend, _("Greyed text is left out of the similarity (quotations, references, small matches, "
                                   "excluded sources or the assignment's own text)."));
      }
    {
      g_autofree char *escaped = g_markup_printf_escaped ("<span foreground=\"#555\">%s</span>", legend->str);

      pdf_markup (&pdf, escaped, "Sans 8");
    }
    for (guint r = 0; r < sim_report_view_get_n_runs (view); r++)
      {
        const SimFlaggedRun *run = sim_report_view_get_run (view, r);
        g_autofree char *before = sim_report_dup_text (report, at, run->start);
        g_autofree char *inner = sim_report_dup_text (report, run->start, run->end);

        flow_text (&flow, before);
        flow.tint = run->excluded ? sim_level_excluded_tint () : sim_source_tint (run->source + 1);
        g_string_append_printf (markup, "<span background=\"%s\">", flow.tint);
        flow_text (&flow, inner);
        g_string_append (markup, "</span>");
        if (run->numbered)
          g_string_append_printf (markup, "<sup><b>%u</b></sup>", run->source + 1);
        flow.tint = NULL;
        at = run->end;
      }
    {
      g_autofree char *rest = sim_report_dup_text (report, at, sim_report_get_n_chars (report));

      flow_text (&flow, rest);
      flow_break (&flow);
      pdf_space (&pdf, 6);
    }
  }

  /* Every flagged passage that is not its source's text word for word, and that text. */
  {
    g_autoptr(GArray) listed = _sim_export_listed_passages (view);
    const guint n_identical = _sim_export_count_identical (listed);
    g_autofree char *heading = g_markup_printf_escaped ("<b>%s</b>", _("Flagged passages and their sources"));
    guint number = 0;

    pdf_markup (&pdf, heading, "Sans 13");
    if (n_identical > 0)
      {
        g_autofree char *note = _sim_export_identical_note (n_identical);
        g_autofree char *escaped = g_markup_printf_escaped ("<span foreground=\"#555\">%s</span>", note);

        pdf_markup (&pdf, escaped, "Sans 8");
      }
    /* Flowed as the article is: a passage of 300 KB in one layout took
     * seconds. */
    for (guint i = 0; i < listed->len; i++)
      {
        const SimListed *l = &g_array_index (listed, SimListed, i);
        const SimReportSource *src = sim_report_get_source (report, l->passage->source);
        Flow flow = { &pdf, markup, 0, NULL, "Sans 9" };
        g_autofree char *similar = NULL, *about = NULL;

        if (l->identical)
          continue;
        similar = g_strdup_printf (_("%.0f%% similar to the source"), 100 * l->passage->similarity);
        g_string_truncate (markup, 0);
        g_string_append_printf (markup, "%u. ", ++number);
        /* Only the flagged text is shaded, as in the article. */
        for (guint k = 0; k < l->pieces->len; k++)
          {
            const SimListedPiece *piece = &g_array_index (l->pieces, SimListedPiece, k);

            if (piece->flagged)
              {
                flow.tint = piece->excluded ? sim_level_excluded_tint () : sim_source_tint (l->passage->source + 1);
                g_string_append_printf (markup, "<span background=\"%s\">", flow.tint);
              }
            flow_text (&flow, piece->text);
            if (piece->flagged)
              g_string_append (markup, "</span>");
            flow.tint = NULL;
          }
        flow_break (&flow);
        about = g_markup_printf_escaped ("<span foreground=\"#555\">%s %u · %s · %s — %s</span>", _("Source"),
                                         l->passage->source + 1, similar, src->title, src->display_path);
        pdf_markup_spaced (&pdf, about, "Sans 9", 0);
        flow.tint = "#f6f5f4";
        g_string_append_printf (markup, "<span background=\"%s\">", flow.tint);
        flow_text (&flow, l->source_text);
        g_string_append (markup, "</span>");
        flow.tint = NULL;
        flow_break (&flow);
        pdf_space (&pdf, 6);
      }
  }

  sim_parallel_run (MIN (sim_parallel_default_threads (), blocks->len), pdf_lay_out, &pdf);
  {
    cairo_t *cr = cairo_create (surface);
    g_autoptr(GDateTime) now = g_date_time_new_now_local ();
    g_autofree char *date = g_date_time_format (now, "%Y-%m-%d %H:%M");
    g_autofree char *header = sim_report_get_name (report)
      ? g_strdup_printf ("%s — %s — %s", sim_report_get_name (report), _("Simhound similarity report"), date)
      : g_strdup_printf ("%s — %s", _("Simhound similarity report"), date);

    pdf.context = pango_cairo_create_context (cr);
    pdf_set_up_context (pdf.context);
    cairo_set_source_rgb (cr, 0, 0, 0);
    pdf_pages (&pdf, cr, header, pdf_pages (&pdf, NULL, header, 0));
    cairo_destroy (cr);
  }
  g_object_unref (pdf.context);
  g_array_set_size (blocks, 0);
  cairo_surface_finish (surface);
  status = cairo_surface_status (surface);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, _("Cannot write %s: %s"), path,
                   cairo_status_to_string (status));
      g_unlink (partial);
      return FALSE;
    }
  if (g_rename (partial, path) != 0)
    {
      int saved = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), _("Cannot write %s: %s"), path,
                   g_strerror (saved));
      g_unlink (partial);
      return FALSE;
    }
  return TRUE;
}
