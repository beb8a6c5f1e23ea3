/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <langinfo.h>

#include <errno.h>
#include <math.h>
#include <string.h>
#include <cairo.h>
#include <cairo-pdf.h>
#include <pango/pangocairo.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "sim-error.h"
#include "sim-export.h"

SimLevel
sim_report_level_of (const SimReport *report,
                     float            similarity)
{
  const SimReportSettings *s = sim_report_get_settings (report);

  return sim_level_of (similarity, s->high_threshold, s->medium_threshold);
}

void
sim_report_histogram (const SimReport *report,
                      guint            counts[SIM_CHART_BINS])
{
  memset (counts, 0, SIM_CHART_BINS * sizeof (guint));
  for (guint i = 0; i < sim_report_get_n_segments (report); i++)
    {
      const SimReportSegment *seg = sim_report_get_segment (report, i);
      gint bin = (gint) floorf (seg->similarity * SIM_CHART_BINS);

      counts[CLAMP (bin, 0, SIM_CHART_BINS - 1)]++;
    }
}

static void
append_escaped (GString    *out,
                const char *text)
{
  g_autofree char *escaped = g_markup_escape_text (text, -1);

  g_string_append (out, escaped);
}

/* The source a flagged segment is coloured and numbered by: its best match's. */
static guint
segment_source (const SimReport        *report,
                const SimReportSegment *seg)
{
  return sim_report_get_match (report, seg->first_match)->source;
}

/* TRUE when flagged segment @index runs on into the next flagged segment
 * from the same source (only space between, the same greying): the run is
 * one passage to the reader and gets its source's number once, at its end. */
static gboolean
run_continues (const SimReport *report,
               guint            index)
{
  const SimReportSegment *seg = sim_report_get_segment (report, index);
  const gboolean excluded = sim_report_is_segment_excluded (report, index);

  for (guint j = index + 1; j < sim_report_get_n_segments (report); j++)
    {
      const SimReportSegment *next = sim_report_get_segment (report, j);
      g_autofree char *between = NULL;

      if (next->level == SIM_LEVEL_LOW || next->n_matches == 0)
        return FALSE;
      if (segment_source (report, next) != segment_source (report, seg) ||
          sim_report_is_segment_excluded (report, j) != excluded)
        return FALSE;
      between = sim_report_dup_text (report, seg->end, next->start);
      g_strstrip (between);
      return between[0] == '\0';
    }
  return FALSE;
}

/* A flagged passage as the reports list it: its text, its source's text
 * as its segments' matches give it (" … " where they skip some), and
 * whether the two are the same word for word (then the text is not
 * repeated in the list: the article shows it). */
#define SOURCE_GAP 8  /* code points between two matches shown as " … " */
typedef struct {
  const SimPassage *passage;
  char             *text;
  char             *source_text;
  gboolean          identical;
  gboolean          excluded;   /* every flagged segment of it is left out */
} Listed;

static void
listed_clear (gpointer data)
{
  Listed *l = data;

  g_free (l->text);
  g_free (l->source_text);
}

/* The letters and digits of @text: spacing, line breaks and punctuation do
 * not make a copy less word for word. */
static GString *
words_of (const char *text)
{
  GString *out = g_string_new (NULL);

  for (const char *p = text; *p; p = g_utf8_next_char (p))
    if (g_unichar_isalnum (g_utf8_get_char (p)))
      g_string_append_len (out, p, g_utf8_next_char (p) - p);
  return out;
}

/* The passages of medium level or higher that hold a segment flagged with
 * their source, in article order. (element-type Listed) */
static GArray *
listed_passages (const SimReport *report)
{
  GArray *listed = g_array_new (FALSE, TRUE, sizeof (Listed));

  g_array_set_clear_func (listed, listed_clear);
  for (guint i = 0; i < sim_report_get_n_passages (report); i++)
    {
      const SimPassage *p = sim_report_get_passage (report, i);
      g_autoptr(GString) source_text = g_string_new (NULL);
      g_autoptr(GString) words = NULL;
      Listed l = { p, NULL, NULL, TRUE, TRUE };
      guint32 last_end = 0;
      guint n_flagged = 0;
      gsize n_source_words = 0;

      if (p->level == SIM_LEVEL_LOW)
        continue;
      l.text = sim_report_dup_text (report, p->start, p->end);
      words = words_of (l.text);
      for (guint k = p->first_segment; k < p->first_segment + p->n_segments; k++)
        {
          const SimReportSegment *seg = sim_report_get_segment (report, k);
          const SimMatch *m = NULL;
          const char *piece;

          if (seg->level == SIM_LEVEL_LOW || seg->n_matches == 0)
            continue;
          /* Listed under the source its flags are coloured by: the same
           * text found in other sources too is theirs in the JSON. */
          if (segment_source (report, seg) != p->source)
            continue;
          n_flagged++;
          l.excluded = l.excluded && sim_report_is_segment_excluded (report, k);
          /* Its best match from the passage's source. */
          for (guint j = seg->first_match; j < seg->first_match + seg->n_matches && m == NULL; j++)
            if (sim_report_get_match (report, j)->source == p->source)
              m = sim_report_get_match (report, j);
          if (m == NULL || m->excerpt == NULL || (source_text->len > 0 && m->end <= last_end))
            continue;
          piece = m->excerpt;
          if (source_text->len > 0 && m->start < last_end)
            piece = g_utf8_offset_to_pointer (m->excerpt, MIN ((glong) (last_end - m->start),
                                                               g_utf8_strlen (m->excerpt, -1)));
          else if (source_text->len > 0)
            /* A few characters apart: the letters a match's shingles do not reach. */
            g_string_append (source_text, m->start > last_end + SOURCE_GAP ? " … " : " ");
          g_string_append (source_text, piece);
          last_end = m->end;
          /* Word for word: each piece of the source is in the passage as it is. */
          {
            g_autoptr(GString) piece_words = words_of (piece);

            n_source_words += piece_words->len;
            l.identical = l.identical && strstr (words->str, piece_words->str) != NULL;
          }
        }
      if (n_flagged == 0)
        {
          g_free (l.text);
          continue;
        }
      /* ... and together they are nearly all of it. */
      l.identical = l.identical && words->len > 0 && n_source_words * 10 >= words->len * 9;
      l.source_text = g_string_free (g_steal_pointer (&source_text), FALSE);
      g_array_append_val (listed, l);
    }
  return listed;
}

static guint
count_identical (GArray *listed)
{
  guint n = 0;

  for (guint i = 0; i < listed->len; i++)
    n += g_array_index (listed, Listed, i).identical;
  return n;
}

static char *
identical_note (guint n_identical)
{
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "%u flagged passage is the text of its source word for word: it is coloured "
                                       "in the article and not repeated here.",
                                       "%u flagged passages are the text of their sources word for word: they are "
                                       "coloured in the article and not repeated here.", n_identical), n_identical);
}

static char *
describe_segment (const SimReport        *report,
                  const SimReportSegment *seg)
{
  const SimMatch *m = sim_report_get_match (report, seg->first_match);
  const SimReportSource *src = sim_report_get_source (report, m->source);

  return g_strdup_printf (_("Source %u, %s: %.0f%% similar to %s"), m->source + 1,
                          seg->level == SIM_LEVEL_HIGH ? _("high") : _("medium"),
                          100 * seg->similarity, src->display_path);
}

/* The chart as SVG: every segment along the article, and the histogram. */
static void
append_svg_chart (GString         *out,
                  const SimReport *report)
{
  const guint n = sim_report_get_n_segments (report);
  const guint32 n_chars = MAX (sim_report_get_n_chars (report), 1);
  guint counts[SIM_CHART_BINS], max_count = 1;

  sim_report_histogram (report, counts);
  for (guint i = 0; i < SIM_CHART_BINS; i++)
    max_count = MAX (max_count, counts[i]);
  g_string_append_printf (out, "<svg class=\"chart\" viewBox=\"0 0 640 180\" role=\"img\" aria-label=\"%s\">\n",
                          _("Similarity of every segment along the article, and segments per similarity band"));
  g_string_append (out, "<rect x=\"0\" y=\"0\" width=\"400\" height=\"150\" fill=\"none\" stroke=\"#ccc\"/>\n");
  for (guint i = 0; i < n; i++)
    {
      const SimReportSegment *seg = sim_report_get_segment (report, i);
      const double x = 400.0 * seg->start / n_chars, w = MAX (1.0, 400.0 * (seg->end - seg->start) / n_chars);
      const double h = 150.0 * seg->similarity;

      g_string_append_printf (out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
                              x, 150 - h, w, h, sim_level_color (seg->level));
    }
  for (guint b = 0; b < SIM_CHART_BINS; b++)
    {
      const double h = 150.0 * counts[b] / max_count;
      const SimLevel level = sim_report_level_of (report, (b + 0.5f) / SIM_CHART_BINS);

      g_string_append_printf (out, "<rect x=\"%d\" y=\"%.1f\" width=\"20\" height=\"%.1f\" fill=\"%s\"/>"
                              "<text x=\"%d\" y=\"170\" font-size=\"9\">%d</text>\n",
                              420 + b * 22, 150 - h, h, sim_level_color (level), 420 + b * 22, b * 10);
    }
  g_string_append_printf (out, "<text x=\"0\" y=\"170\" font-size=\"10\">%s</text>"
                          "<text x=\"420\" y=\"180\" font-size=\"10\">%s</text></svg>\n",
                          _("along the article"), _("segments per similarity band (%)"));
}

/* The number of sources with flagged segments: they come first, numbered 1.. */
static guint
count_flagged_sources (const SimReport *report)
{
  guint n = 0;

  while (n < sim_report_get_n_sources (report) && sim_report_get_source (report, n)->n_segments > 0)
    n++;
  return n;
}

/* "1,288 documents, last updated 2026-11-22" for the header of a report. */
static char *
corpus_phrase (const SimReportSettings *s)
{
  g_autofree char *n = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u document", "%u documents", s->n_documents),
                                        s->n_documents);
  g_autoptr(GDateTime) dt = s->corpus_updated > 0 ? g_date_time_new_from_unix_local (s->corpus_updated) : NULL;
  g_autofree char *date = dt ? g_date_time_format (dt, "%Y-%m-%d") : NULL;

  return date ? g_strdup_printf (_("%s, last updated %s"), n, date) : g_steal_pointer (&n);
}

static void
append_html_row (GString    *out,
                 const char *header,
                 const char *value)
{
  g_string_append (out, "<tr><th>");
  append_escaped (out, header);
  g_string_append (out, "</th><td>");
  append_escaped (out, value);
  g_string_append (out, "</td></tr>\n");
}

char *
sim_export_html (const SimReport *report)
{
  GString *out = g_string_new (NULL);
  const SimReportSettings *s = sim_report_get_settings (report);
  const guint n_flagged_sources = count_flagged_sources (report);
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *date = g_date_time_format (now, "%Y-%m-%d %H:%M");
  g_autoptr(GArray) listed = listed_passages (report);
  g_autofree guint *entry_of = g_new0 (guint, MAX (sim_report_get_n_segments (report), 1));
  const guint n_identical = count_identical (listed);
  guint32 at = 0;
  guint number = 0;

  /* The list's entry (from 1) of each flagged segment's passage; 0: not listed. */
  for (guint i = 0, n = 0; i < listed->len; i++)
    {
      const Listed *l = &g_array_index (listed, Listed, i);

      if (l->identical)
        continue;
      n++;
      for (guint k = l->passage->first_segment; k < l->passage->first_segment + l->passage->n_segments; k++)
        if (sim_report_get_segment (report, k)->n_matches > 0 &&
            segment_source (report, sim_report_get_segment (report, k)) == l->passage->source)
          entry_of[k] = n;
    }
  g_string_append (out, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>");
  if (sim_report_get_name (report))
    {
      append_escaped (out, sim_report_get_name (report));
      g_string_append (out, " — ");
    }
  append_escaped (out, _("Simhound similarity report"));
  g_string_append (out, "</title>\n<style>\n"
                        "body{font-family:'Noto Sans','Noto Sans CJK SC',sans-serif;max-width:60em;margin:2em auto;line-height:1.6;color:#222}\n"
                        ".article{white-space:pre-wrap;border:1px solid #ddd;padding:1em}\n"
                        "table{border-collapse:collapse}td,th{padding:.2em .8em;text-align:left;border-bottom:1px solid #eee}\n"
                        "td.num{text-align:right}.swatch{display:inline-block;width:1.4em;text-align:center;border-radius:3px}\n"
                        "sup.src{font-size:.7em;font-weight:bold;color:#444}\n"
                        ".source{color:#555;font-size:.9em}.excerpt{background:#f6f5f4;padding:.3em .6em}\n"
                        "@media print{mark,.swatch{-webkit-print-color-adjust:exact;print-color-adjust:exact}}\n");
  g_string_append_printf (out, "mark.high{background:%s}mark.medium{background:%s}"
                          "mark.excluded{background:%s;color:#5e5c64}\n",
                          sim_level_tint (SIM_LEVEL_HIGH), sim_level_tint (SIM_LEVEL_MEDIUM),
                          sim_level_excluded_tint ());
  for (guint c = 1; c <= SIM_SOURCE_N_COLORS; c++)
    g_string_append_printf (out, ".c%u{background:%s}", c, sim_source_tint (c));
  g_string_append (out, "\n</style></head><body>\n<h1>");
  append_escaped (out, _("Similarity report"));
  g_string_append (out, "</h1>\n<table class=\"about\">\n");
  if (sim_report_get_name (report))
    append_html_row (out, _("Document"), sim_report_get_name (report));
  append_html_row (out, _("Checked"), date);
  {
    g_autofree char *corpus = corpus_phrase (s);
    g_autofree char *segments = g_str_equal (s->mode, "window")
                                  ? g_strdup_printf (_("windows of %u characters"), s->window)
                                  : g_strdup (_("sentences"));
    g_autofree char *levels = g_strdup_printf (_("high from %.0f%%, medium from %.0f%% similarity to source"),
                                               100 * s->high_threshold, 100 * s->medium_threshold);

    append_html_row (out, _("Reference corpus"), corpus);
    append_html_row (out, _("Compared by"), segments);
    append_html_row (out, _("Search"), s->fast ? _("fast") : _("precise"));
    append_html_row (out, _("Levels"), levels);
  }
  g_string_append (out, "</table>\n");

  g_string_append_printf (out, "<p><strong>%.1f%%</strong> ", 100 * sim_report_get_similarity (report));
  append_escaped (out, _("of the article is similar to the reference corpus."));
  g_string_append_printf (out, " <mark class=\"high\">%s: %u</mark> <mark class=\"medium\">%s: %u</mark> %s: %u</p>\n",
                          _("high"), sim_report_count_level (report, SIM_LEVEL_HIGH),
                          _("medium"), sim_report_count_level (report, SIM_LEVEL_MEDIUM),
                          _("low"), sim_report_count_level (report, SIM_LEVEL_LOW));
  {
    const SimRatios *r = sim_report_get_ratios (report);

    g_string_append_printf (out, "<table class=\"ratios\">\n<tr><th>%s</th><td>%.1f%%</td></tr>\n"
                            "<tr><th>%s</th><td>%.1f%%</td></tr>\n<tr><th>%s</th><td>%.1f%%</td></tr>\n"
                            "<tr><th>%s</th><td>%.1f%%</td></tr>\n<tr><th>%s</th><td>%.1f%%</td></tr>\n</table>\n",
                            _("Total similarity"), 100 * r->total,
                            _("Excluding quotations"), 100 * r->excluding_quotes,
                            _("Excluding the references"), 100 * r->excluding_references,
                            _("Excluding both"), 100 * r->excluding_both,
                            _("Largest single source"), 100 * r->largest_source);
  }

  /* Sources, numbered and coloured as their passages in the text below. */
  g_string_append (out, "<h2>");
  append_escaped (out, _("Sources"));
  g_string_append_printf (out, "</h2>\n<table class=\"sources\">\n<tr><th>%s</th><th>%s</th><th>%s</th>"
                          "<th>%s</th><th>%s</th></tr>\n",
                          _("No."), _("Title"), _("File"), _("Share"), _("Characters"));
  for (guint i = 0; i < n_flagged_sources; i++)
    {
      const SimReportSource *src = sim_report_get_source (report, i);

      g_string_append_printf (out, "<tr id=\"src%u\"><td><span class=\"swatch c%u\">%u</span></td><td>", i + 1,
                              (i % SIM_SOURCE_N_COLORS) + 1, i + 1);
      append_escaped (out, src->title);
      g_string_append (out, "</td><td>");
      append_escaped (out, src->display_path);
      g_string_append_printf (out, "</td><td class=\"num\">%.1f%%</td><td class=\"num\">%u</td></tr>\n",
                              100 * src->share, src->n_chars);
    }
  if (n_flagged_sources == 0)
    {
      g_string_append (out, "<tr><td colspan=\"5\">");
      append_escaped (out, _("No source above the medium level."));
      g_string_append (out, "</td></tr>\n");
    }
  g_string_append (out, "</table>\n");

  g_string_append (out, "<h2>");
  append_escaped (out, _("Distribution"));
  g_string_append (out, "</h2>\n");
  append_svg_chart (out, report);
  g_string_append (out, "<p class=\"legend\">");
  g_string_append_printf (out, "<mark class=\"high\">%s</mark> <mark class=\"medium\">%s</mark> ", _("high"), _("medium"));
  append_escaped (out, _("similarity along the article."));
  g_string_append (out, "</p>\n");

  g_string_append (out, "<h2>");
  append_escaped (out, _("Article"));
  g_string_append (out, "</h2>\n<p class=\"legend\">");
  append_escaped (out, _("Each flagged passage is coloured and numbered like its source in the table above."));
  if (sim_report_get_n_excluded (report) > 0)
    {
      g_string_append (out, " <mark class=\"excluded\">");
      append_escaped (out, _("Greyed"));
      g_string_append (out, "</mark> ");
      append_escaped (out, _("text is left out of the similarity (quotations, references, small matches, "
                             "excluded sources or the assignment's own text)."));
    }
  g_string_append (out, "</p>\n<div class=\"article\">");
  for (guint i = 0; i < sim_report_get_n_segments (report); i++)
    {
      const SimReportSegment *seg = sim_report_get_segment (report, i);
      g_autofree char *before = NULL, *inner = NULL, *title = NULL;
      guint source;

      if (seg->level == SIM_LEVEL_LOW || seg->n_matches == 0)
        continue;
      source = segment_source (report, seg);
      before = sim_report_dup_text (report, at, seg->start);
      inner = sim_report_dup_text (report, seg->start, seg->end);
      title = describe_segment (report, seg);
      append_escaped (out, before);
      if (sim_report_is_segment_excluded (report, i))
        g_string_append_printf (out, "<mark class=\"excluded\" id=\"s%u\" title=\"", ++number);
      else
        g_string_append_printf (out, "<mark class=\"c%u %s\" id=\"s%u\" title=\"", (source % SIM_SOURCE_N_COLORS) + 1,
                                sim_level_to_string (seg->level), ++number);
      append_escaped (out, title);
      g_string_append (out, "\">");
      append_escaped (out, inner);
      g_string_append (out, "</mark>");
      if (!run_continues (report, i) && entry_of[i] > 0)
        g_string_append_printf (out, "<sup class=\"src\"><a href=\"#p%u\">%u</a></sup>", entry_of[i], source + 1);
      else if (!run_continues (report, i))
        g_string_append_printf (out, "<sup class=\"src\"><a href=\"#src%u\">%u</a></sup>", source + 1, source + 1);
      at = seg->end;
    }
  {
    g_autofree char *rest = sim_report_dup_text (report, at, sim_report_get_n_chars (report));

    append_escaped (out, rest);
  }
  g_string_append (out, "</div>\n<h2>");
  append_escaped (out, _("Flagged passages and their sources"));
  g_string_append (out, "</h2>\n");
  if (n_identical > 0)
    {
      g_autofree char *note = identical_note (n_identical);

      g_string_append (out, "<p class=\"legend\">");
      append_escaped (out, note);
      g_string_append (out, "</p>\n");
    }
  g_string_append (out, "<ol>\n");
  for (guint i = 0, n = 0; i < listed->len; i++)
    {
      const Listed *l = &g_array_index (listed, Listed, i);
      const SimReportSource *src = sim_report_get_source (report, l->passage->source);
      g_autofree char *similar = NULL;

      if (l->identical)
        continue;
      if (l->excluded)
        g_string_append_printf (out, "<li id=\"p%u\"><mark class=\"excluded\">", ++n);
      else
        g_string_append_printf (out, "<li id=\"p%u\"><mark class=\"c%u\">", ++n,
                                (l->passage->source % SIM_SOURCE_N_COLORS) + 1);
      append_escaped (out, l->text);
      g_string_append_printf (out, "</mark><div class=\"source\"><a href=\"#src%u\">%s %u</a> · ",
                              l->passage->source + 1, _("Source"), l->passage->source + 1);
      similar = g_strdup_printf (_("%.0f%% similar to the source"), 100 * l->passage->similarity);
      append_escaped (out, similar);
      g_string_append (out, " · ");
      append_escaped (out, src->title);
      g_string_append (out, " — ");
      append_escaped (out, src->display_path);
      g_string_append (out, "</div><div class=\"excerpt\">");
      append_escaped (out, l->source_text);
      g_string_append (out, "</div></li>\n");
    }
  g_string_append (out, "</ol>\n</body></html>\n");
  return g_string_free (out, FALSE);
}

static gboolean
write_file (const char  *path,
            const char  *data,
            GError     **error)
{
  g_autoptr(GError) local_error = NULL;

  if (!g_file_set_contents (path, data, -1, &local_error))
    {
      g_set_error (error, G_FILE_ERROR, local_error->code, _("Cannot write %s: %s"), path, local_error->message);
      return FALSE;
    }
  return TRUE;
}

gboolean
sim_export_html_file (const SimReport *report,
                      const char      *path,
                      GError         **error)
{
  g_autofree char *html = sim_export_html (report);

  return write_file (path, html, error);
}

/* ------------------------------------------------------------------ PDF */

#define MARGIN   50.0

/* Pages are drawn into recording surfaces and put on the PDF at the end,
 * when their number is known, each with its header and "Page N of M". */
typedef struct {
  double        page_w;   /* points: A4 595 x 842, Letter 612 x 792 */
  double        page_h;
  cairo_t      *cr;       /* of the page being drawn */
  PangoContext *context;  /* one for every layout: a context per layout cost seconds */
  GPtrArray    *pages;    /* cairo_surface_t, recording */
  double        y;
} Pdf;

static void
pdf_begin_page (Pdf *pdf)
{
  const cairo_rectangle_t extents = { 0, 0, pdf->page_w, pdf->page_h };
  cairo_surface_t *page = cairo_recording_surface_create (CAIRO_CONTENT_COLOR_ALPHA, &extents);

  g_clear_pointer (&pdf->cr, cairo_destroy);
  pdf->cr = cairo_create (page);
  cairo_set_source_rgb (pdf->cr, 0, 0, 0);
  g_ptr_array_add (pdf->pages, page);
  pdf->y = MARGIN;
}

static void
pdf_new_page_if_needed (Pdf    *pdf,
                        double  height)
{
  if (pdf->y + height > pdf->page_h - MARGIN)
    pdf_begin_page (pdf);
}

/* Puts the recorded pages on @cr, each under a header and over its number. */
static void
pdf_emit_pages (Pdf             *pdf,
                cairo_t         *cr,
                const SimReport *report)
{
  g_autoptr(PangoLayout) layout = pango_layout_new (pdf->context);
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *date = g_date_time_format (now, "%Y-%m-%d %H:%M");
  g_autofree char *header = NULL;
  PangoFontDescription *desc = pango_font_description_from_string ("Sans 7.5");

  header = sim_report_get_name (report)
             ? g_strdup_printf ("%s — %s — %s", sim_report_get_name (report), _("Simhound similarity report"), date)
             : g_strdup_printf ("%s — %s", _("Simhound similarity report"), date);
  pango_layout_set_font_description (layout, desc);
  pango_font_description_free (desc);
  pango_layout_set_width (layout, (pdf->page_w - 2 * MARGIN) * PANGO_SCALE);
  pango_layout_set_ellipsize (layout, PANGO_ELLIPSIZE_MIDDLE);
  for (guint i = 0; i < pdf->pages->len; i++)
    {
      g_autofree char *number = g_strdup_printf (_("Page %u of %u"), i + 1, pdf->pages->len);
      int h;

      cairo_set_source_surface (cr, g_ptr_array_index (pdf->pages, i), 0, 0);
      cairo_paint (cr);
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
    }
}

/* Lays out Pango markup across pages, line by line, then @space points. */
static void
pdf_markup_spaced (Pdf        *pdf,
                   const char *markup,
                   const char *font,
                   double      space)
{
  g_autoptr(PangoLayout) layout = pango_layout_new (pdf->context);
  PangoFontDescription *desc = pango_font_description_from_string (font);
  PangoLayoutIter *iter;

  pango_layout_set_font_description (layout, desc);
  pango_font_description_free (desc);
  pango_layout_set_width (layout, (pdf->page_w - 2 * MARGIN) * PANGO_SCALE);
  pango_layout_set_wrap (layout, PANGO_WRAP_WORD_CHAR);
  pango_layout_set_markup (layout, markup, -1);
  iter = pango_layout_get_iter (layout);
  do
    {
      PangoRectangle logical;
      PangoLayoutLine *line = pango_layout_iter_get_line_readonly (iter);
      const int baseline = pango_layout_iter_get_baseline (iter);
      double height, top;

      pango_layout_iter_get_line_extents (iter, NULL, &logical);
      height = (double) logical.height / PANGO_SCALE;
      top = (double) logical.y / PANGO_SCALE;
      pdf_new_page_if_needed (pdf, height);
      cairo_move_to (pdf->cr, MARGIN + (double) logical.x / PANGO_SCALE,
                     pdf->y + (double) (baseline - logical.y) / PANGO_SCALE);
      pango_cairo_show_layout_line (pdf->cr, line);
      pdf->y += height;
      (void) top;
    }
  while (pango_layout_iter_next_line (iter));
  pango_layout_iter_free (iter);
  pdf->y += space;
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
} Flow;

static void
flow_break (Flow *flow)
{
  if (flow->tint)
    g_string_append (flow->markup, "</span>");
  pdf_markup_spaced (flow->pdf, flow->markup->str, "Sans 10", 0);
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

static void
pdf_chart (Pdf             *pdf,
           const SimReport *report)
{
  const double w = pdf->page_w - 2 * MARGIN, h = 110, left_w = w * 0.62;
  const guint32 n_chars = MAX (sim_report_get_n_chars (report), 1);
  guint counts[SIM_CHART_BINS], max_count = 1;
  cairo_t *cr = pdf->cr;

  pdf_new_page_if_needed (pdf, h + 10);
  sim_report_histogram (report, counts);
  for (guint i = 0; i < SIM_CHART_BINS; i++)
    max_count = MAX (max_count, counts[i]);
  cairo_set_line_width (cr, 0.5);
  cairo_set_source_rgb (cr, 0.8, 0.8, 0.8);
  cairo_rectangle (cr, MARGIN, pdf->y, left_w, h);
  cairo_stroke (cr);
  for (guint i = 0; i < sim_report_get_n_segments (report); i++)
    {
      const SimReportSegment *seg = sim_report_get_segment (report, i);
      const double x = left_w * seg->start / n_chars;
      const double bw = MAX (0.5, left_w * (seg->end - seg->start) / n_chars);
      const double bh = h * seg->similarity;

      set_color (cr, sim_level_color (seg->level));
      cairo_rectangle (cr, MARGIN + x, pdf->y + h - bh, bw, bh);
      cairo_fill (cr);
    }
  for (guint b = 0; b < SIM_CHART_BINS; b++)
    {
      const double bw = (w - left_w - 20) / SIM_CHART_BINS;
      const double bh = h * counts[b] / max_count;

      set_color (cr, sim_level_color (sim_report_level_of (report, (b + 0.5f) / SIM_CHART_BINS)));
      cairo_rectangle (cr, MARGIN + left_w + 20 + b * bw, pdf->y + h - bh, bw * 0.8, bh);
      cairo_fill (cr);
    }
  cairo_set_source_rgb (cr, 0, 0, 0);
  pdf->y += h + 8;
}

SimPaper
sim_export_default_paper (void)
{
#ifdef __GLIBC__
  /* The locale's paper (LC_PAPER, glibc): 279 mm high is Letter. */
  if ((int) (intptr_t) nl_langinfo (_NL_PAPER_HEIGHT) == 279)
    return SIM_PAPER_LETTER;
#endif
  return SIM_PAPER_A4;
}

gboolean
sim_export_pdf_file (const SimReport *report,
                     const char      *path,
                     GError         **error)
{
  return sim_export_pdf_file_on (report, path, sim_export_default_paper (), error);
}

gboolean
sim_export_pdf_file_on (const SimReport *report,
                        const char      *path,
                        SimPaper         paper,
                        GError         **error)
{
  /* Written beside the target and renamed when whole: an interrupted or
   * failed export leaves no half-written PDF under the name asked for. */
  g_autofree char *partial = g_strconcat (path, SIM_EXPORT_PARTIAL_SUFFIX, NULL);
  const double page_w = paper == SIM_PAPER_LETTER ? 612.0 : 595.0;
  const double page_h = paper == SIM_PAPER_LETTER ? 792.0 : 842.0;
  cairo_surface_t *surface = cairo_pdf_surface_create (partial, page_w, page_h);
  const SimReportSettings *s = sim_report_get_settings (report);
  g_autoptr(GString) markup = g_string_new (NULL);
  Pdf pdf = { page_w, page_h, NULL, NULL, g_ptr_array_new_with_free_func ((GDestroyNotify) cairo_surface_destroy), 0 };
  cairo_status_t status;
  guint32 at = 0;

  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_FAILED, _("Cannot write %s: %s"), path,
                   cairo_status_to_string (cairo_surface_status (surface)));
      cairo_surface_destroy (surface);
      g_ptr_array_unref (pdf.pages);
      return FALSE;
    }
  pdf_begin_page (&pdf);
  pdf.context = pango_cairo_create_context (pdf.cr);
  /* The metrics of print, whatever surface the pages are recorded on. */
  {
    cairo_font_options_t *options = cairo_font_options_create ();

    cairo_font_options_set_hint_metrics (options, CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_hint_style (options, CAIRO_HINT_STYLE_NONE);
    pango_cairo_context_set_font_options (pdf.context, options);
    cairo_font_options_destroy (options);
  }
  /* Han characters take the Simplified Chinese forms (Noto Sans CJK SC, not
   * the Japanese variant fontconfig picks by default) unless the reader's
   * language wants other forms. */
  {
    const char *lang = pango_language_to_string (pango_language_get_default ());

    if (!g_str_has_prefix (lang, "ja") && !g_str_has_prefix (lang, "ko") &&
        !g_str_has_prefix (lang, "zh-tw") && !g_str_has_prefix (lang, "zh-hk"))
      pango_context_set_language (pdf.context, pango_language_from_string ("zh-cn"));
  }
  {
    g_autofree char *title = g_markup_printf_escaped ("<b>%s</b>", _("Similarity report"));
    g_autofree char *summary = g_markup_printf_escaped (
      _("<b>%.1f%%</b> of the article is similar to the reference corpus: %u high, %u medium and %u low segments."),
      100 * sim_report_get_similarity (report), sim_report_count_level (report, SIM_LEVEL_HIGH),
      sim_report_count_level (report, SIM_LEVEL_MEDIUM), sim_report_count_level (report, SIM_LEVEL_LOW));
    g_autofree char *settings = NULL;

    const SimRatios *r = sim_report_get_ratios (report);
    g_autofree char *ratios = g_markup_printf_escaped (
      _("Total %.1f%%, excluding quotations %.1f%%, excluding the references %.1f%%, excluding both %.1f%%; "
        "largest single source %.1f%%."),
      100 * r->total, 100 * r->excluding_quotes, 100 * r->excluding_references, 100 * r->excluding_both,
      100 * r->largest_source);
    g_autoptr(GDateTime) now = g_date_time_new_now_local ();
    g_autofree char *date = g_date_time_format (now, "%Y-%m-%d %H:%M");
    g_autofree char *corpus = corpus_phrase (s);
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
    pdf_markup (&pdf, ratios, "Sans 9");
    pdf_markup (&pdf, settings, "Sans 8");
  }

  /* Sources, numbered and coloured as their passages in the text below. */
  {
    const guint n_flagged_sources = count_flagged_sources (report);
    g_autofree char *heading = g_markup_printf_escaped ("<b>%s</b>", _("Sources"));

    pdf_markup (&pdf, heading, "Sans 13");
    for (guint i = 0; i < n_flagged_sources; i++)
      {
        const SimReportSource *src = sim_report_get_source (report, i);
        g_autofree char *characters = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u character",
                                                                    "%u characters", src->n_chars), src->n_chars);
        g_autofree char *row = g_markup_printf_escaped ("<span background=\"%s\"><b> %u </b></span>  "
                                                        "<b>%.1f%%</b>  %s  <span foreground=\"#555\">(%s)</span>\n"
                                                        "<span foreground=\"#555\">%s</span>",
                                                        sim_source_tint (i + 1), i + 1, 100 * src->share,
                                                        src->title, characters, src->display_path);

        pdf_markup_spaced (&pdf, row, "Sans 9", 3);
      }
    if (n_flagged_sources == 0)
      {
        g_autofree char *none = g_markup_escape_text (_("No source above the medium level."), -1);

        pdf_markup (&pdf, none, "Sans 9");
      }
    pdf.y += 6;
  }
  pdf_chart (&pdf, report);

  /* The article, each flagged passage in its source's colour and number. */
  {
    Flow flow = { &pdf, markup, 0, NULL };
    g_autofree char *heading = g_markup_printf_escaped ("<b>%s</b>", _("Article"));
    g_autoptr(GString) legend = g_string_new (NULL);

    pdf_markup (&pdf, heading, "Sans 13");
    g_string_append (legend, _("Each flagged passage is coloured and numbered like its source in the table above."));
    if (sim_report_get_n_excluded (report) > 0)
      {
        g_string_append_c (legend, ' ');
        g_string_append (legend, _("Greyed text is left out of the similarity (quotations, references, small matches, "
                                   "excluded sources or the assignment's own text)."));
      }
    {
      g_autofree char *escaped = g_markup_printf_escaped ("<span foreground=\"#555\">%s</span>", legend->str);

      pdf_markup (&pdf, escaped, "Sans 8");
    }
    for (guint i = 0; i < sim_report_get_n_segments (report); i++)
      {
        const SimReportSegment *seg = sim_report_get_segment (report, i);
        g_autofree char *before = NULL, *inner = NULL;
        guint source;

        if (seg->level == SIM_LEVEL_LOW || seg->n_matches == 0)
          continue;
        source = segment_source (report, seg);
        before = sim_report_dup_text (report, at, seg->start);
        inner = sim_report_dup_text (report, seg->start, seg->end);
        flow_text (&flow, before);
        flow.tint = sim_report_is_segment_excluded (report, i) ? sim_level_excluded_tint () : sim_source_tint (source + 1);
        g_string_append_printf (markup, "<span background=\"%s\">", flow.tint);
        flow_text (&flow, inner);
        g_string_append (markup, "</span>");
        if (!run_continues (report, i))
          g_string_append_printf (markup, "<sup><b>%u</b></sup>", source + 1);
        flow.tint = NULL;
        at = seg->end;
      }
    {
      g_autofree char *rest = sim_report_dup_text (report, at, sim_report_get_n_chars (report));

      flow_text (&flow, rest);
      flow_break (&flow);
      pdf.y += 6;
    }
  }

  /* Every flagged passage that is not its source's text word for word, and that text. */
  {
    g_autoptr(GArray) listed = listed_passages (report);
    const guint n_identical = count_identical (listed);
    g_autofree char *heading = g_markup_printf_escaped ("<b>%s</b>", _("Flagged passages and their sources"));
    guint number = 0;

    pdf_markup (&pdf, heading, "Sans 13");
    if (n_identical > 0)
      {
        g_autofree char *note = identical_note (n_identical);
        g_autofree char *escaped = g_markup_printf_escaped ("<span foreground=\"#555\">%s</span>", note);

        pdf_markup (&pdf, escaped, "Sans 8");
      }
    for (guint i = 0; i < listed->len; i++)
      {
        const Listed *l = &g_array_index (listed, Listed, i);
        const SimReportSource *src = sim_report_get_source (report, l->passage->source);
        g_autofree char *item = NULL, *similar = NULL;

        if (l->identical)
          continue;
        similar = g_strdup_printf (_("%.0f%% similar to the source"), 100 * l->passage->similarity);
        item = g_markup_printf_escaped ("%u. <span background=\"%s\">%s</span>\n"
                                        "<span foreground=\"#555\">%s %u · %s · %s — %s</span>\n"
                                        "<span background=\"#f6f5f4\">%s</span>",
                                        ++number, l->excluded ? sim_level_excluded_tint ()
                                                              : sim_source_tint (l->passage->source + 1),
                                        l->text, _("Source"), l->passage->source + 1, similar,
                                        src->title, src->display_path, l->source_text);
        pdf_markup (&pdf, item, "Sans 9");
      }
  }

  g_clear_pointer (&pdf.cr, cairo_destroy);
  {
    cairo_t *cr = cairo_create (surface);

    pdf_emit_pages (&pdf, cr, report);
    cairo_destroy (cr);
  }
  g_object_unref (pdf.context);
  g_ptr_array_unref (pdf.pages);
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
