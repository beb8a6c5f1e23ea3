/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <langinfo.h>
#include <stdint.h>

#include <errno.h>
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "sim-error.h"
#include "sim-export.h"
#include "sim-export-private.h"
#include "sim-module.h"
#include "sim-pdf.h"

static void
append_escaped (GString    *out,
                const char *text)
{
  g_autofree char *escaped = g_markup_escape_text (text, -1);

  g_string_append (out, escaped);
}

static char *
describe_run (const SimReport     *report,
              const SimFlaggedRun *run)
{
  const SimReportSource *src = sim_report_get_source (report, run->source);

  return g_strdup_printf (_("Source %u, %s: %.0f%% similar to %s"), run->source + 1,
                          run->level == SIM_LEVEL_HIGH ? _("high") : _("medium"),
                          100 * run->similarity, src->display_path);
}

/* The chart as SVG: every segment along the article, and the histogram. */
static void
append_svg_chart (GString             *out,
                  const SimReportView *view)
{
  const SimReport *report = sim_report_view_get_report (view);
  const guint n = sim_report_get_n_segments (report);
  const guint32 n_chars = MAX (sim_report_get_n_chars (report), 1);
  const guint *counts = sim_report_view_get_histogram (view);
  guint max_count = 1;

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

      const char *colour = sim_report_view_is_segment_excluded (view, i) ? sim_level_excluded_tint ()
                                                                         : sim_level_color (seg->level);

      /* As the app and the PDF draw it: greyed when left out, an outline
       * when too short to count. */
      if (sim_report_segment_is_too_short (report, seg))
        g_string_append_printf (out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
                                "stroke=\"%s\"/>\n", x, 150 - h, w, h, colour);
      else
        g_string_append_printf (out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
                                x, 150 - h, w, h, colour);
    }
  for (guint b = 0; b < SIM_CHART_BINS; b++)
    {
      const double h = 150.0 * counts[b] / max_count;
      const SimLevel level = sim_report_view_level_of (view, (b + 0.5f) / SIM_CHART_BINS);

      g_string_append_printf (out, "<rect x=\"%d\" y=\"%.1f\" width=\"20\" height=\"%.1f\" fill=\"%s\"/>"
                              "<text x=\"%d\" y=\"170\" font-size=\"9\">%d</text>\n",
                              420 + b * 22, 150 - h, h, sim_level_color (level), 420 + b * 22, b * 10);
    }
  g_string_append_printf (out, "<text x=\"0\" y=\"170\" font-size=\"10\">%s</text>"
                          "<text x=\"420\" y=\"180\" font-size=\"10\">%s</text></svg>\n",
                          _("along the article"), _("segments per similarity band (%)"));
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
sim_export_html (const SimReportView *view)
{
  const SimReport *report = sim_report_view_get_report (view);
  GString *out = g_string_new (NULL);
  const SimReportSettings *s = sim_report_get_settings (report);
  const guint n_flagged_sources = _sim_export_count_flagged_sources (report);
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *date = g_date_time_format (now, "%Y-%m-%d %H:%M");
  g_autoptr(GArray) listed = _sim_export_listed_passages (view);
  g_autofree guint *entry_of = g_new0 (guint, MAX (sim_report_get_n_segments (report), 1));
  const guint n_identical = _sim_export_count_identical (listed);
  guint32 at = 0;
  guint number = 0;

  /* The list's entry (from 1) of each flagged segment's passage; 0: not listed. */
  for (guint i = 0, n = 0; i < listed->len; i++)
    {
      const SimListed *l = &g_array_index (listed, SimListed, i);

      if (l->identical)
        continue;
      n++;
      for (guint k = l->passage->first_segment; k < l->passage->first_segment + l->passage->n_segments; k++)
        if (sim_report_get_segment (report, k)->n_matches > 0 &&
            _sim_export_segment_source (report, sim_report_get_segment (report, k)) == l->passage->source)
          entry_of[k] = n;
    }
  g_string_append (out, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>");
  if (sim_report_get_name (report))
    {
      append_escaped (out, sim_report_get_name (report));
      g_string_append (out, " — ");
    }
  append_escaped (out, _("Simhound similarity report"));
  g_string_append_printf (out, "</title>\n<style>\n"
                         "body{font-family:'Noto Sans','%s',sans-serif;max-width:60em;margin:2em auto;line-height:1.6;color:#222}\n",
                         sim_export_cjk_family (NULL));
  g_string_append (out,
                        ".article{white-space:pre-wrap;border:1px solid #ddd;padding:1em}\n"
                        "table{border-collapse:collapse}td,th{padding:.2em .8em;text-align:left;border-bottom:1px solid #eee}\n"
                        "td.num{text-align:right}.swatch{display:inline-block;width:1.4em;text-align:center;border-radius:3px}\n"
                        "sup.src{font-size:.7em;font-weight:bold;color:#444}\n"
                        ".source{color:#555;font-size:.9em}.excerpt{background:#f6f5f4;padding:.3em .6em}\n"
                        ".warning{border-left:4px solid #a50026;padding:.3em .8em;background:#fdf0ef}\n"
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
    g_autofree char *corpus = _sim_export_corpus_phrase (s);
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

  g_string_append_printf (out, "<p><strong>%.1f%%</strong> ", 100 * sim_report_view_get_similarity (view));
  append_escaped (out, _("of the article is similar to the reference corpus."));
  g_string_append_printf (out, " <mark class=\"high\">%s: %u</mark> <mark class=\"medium\">%s: %u</mark> %s: %u</p>\n",
                          _("high"), sim_report_view_count_level (view, SIM_LEVEL_HIGH),
                          _("medium"), sim_report_view_count_level (view, SIM_LEVEL_MEDIUM),
                          _("low"), sim_report_view_count_level (view, SIM_LEVEL_LOW));
  for (guint i = 0; i < sim_report_get_n_suspicious (report); i++)
    {
      g_autofree char *what = sim_suspicious_dup_description (sim_report_get_suspicious (report, i));

      g_string_append (out, "<p class=\"warning\"><strong>");
      append_escaped (out, _("Warning:"));
      g_string_append (out, "</strong> ");
      append_escaped (out, what);
      g_string_append (out, "</p>\n");
    }
  {
    const SimRatios *r = sim_report_view_get_ratios (view);

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
      const SimSourceShare *share = sim_report_view_get_share (view, i);

      g_string_append_printf (out, "<tr id=\"src%u\"><td><span class=\"swatch c%u\">%u</span></td><td>", i + 1,
                              (i % SIM_SOURCE_N_COLORS) + 1, i + 1);
      append_escaped (out, src->title);
      g_string_append (out, "</td><td>");
      append_escaped (out, src->display_path);
      g_string_append_printf (out, "</td><td class=\"num\">%.1f%%</td><td class=\"num\">%u</td></tr>\n",
                              100 * share->share, share->n_chars);
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
  append_svg_chart (out, view);
  g_string_append (out, "<p class=\"legend\">");
  g_string_append_printf (out, "<mark class=\"high\">%s</mark> <mark class=\"medium\">%s</mark> ", _("high"), _("medium"));
  append_escaped (out, _("similarity along the article."));
  g_string_append (out, "</p>\n");

  g_string_append (out, "<h2>");
  append_escaped (out, _("Article"));
  g_string_append (out, "</h2>\n<p class=\"legend\">");
  append_escaped (out, _("Each flagged passage is coloured and numbered like its source in the table above."));
  if (sim_report_view_get_n_excluded (view) > 0)
    {
      g_string_append (out, " <mark class=\"excluded\">");
      append_escaped (out, _("Greyed"));
      g_string_append (out, "</mark> ");
      append_escaped (out, _("text is left out of the similarity (quotations, references, small matches, "
                             "excluded sources or the assignment's own text)."));
    }
  g_string_append (out, "</p>\n<div class=\"article\">");
  for (guint r = 0; r < sim_report_view_get_n_runs (view); r++)
    {
      const SimFlaggedRun *run = sim_report_view_get_run (view, r);
      g_autofree char *before = sim_report_dup_text (report, at, run->start);
      g_autofree char *inner = sim_report_dup_text (report, run->start, run->end);
      g_autofree char *title = describe_run (report, run);

      append_escaped (out, before);
      if (run->excluded)
        g_string_append_printf (out, "<mark class=\"excluded\" id=\"s%u\" title=\"", ++number);
      else
        g_string_append_printf (out, "<mark class=\"c%u %s\" id=\"s%u\" title=\"", (run->source % SIM_SOURCE_N_COLORS) + 1,
                                sim_level_to_string (run->level), ++number);
      append_escaped (out, title);
      g_string_append (out, "\">");
      append_escaped (out, inner);
      g_string_append (out, "</mark>");
      /* The source's number once, where the reader's stretch ends. */
      if (run->numbered && entry_of[run->last_segment] > 0)
        g_string_append_printf (out, "<sup class=\"src\"><a href=\"#p%u\">%u</a></sup>", entry_of[run->last_segment],
                                run->source + 1);
      else if (run->numbered)
        g_string_append_printf (out, "<sup class=\"src\"><a href=\"#src%u\">%u</a></sup>", run->source + 1,
                                run->source + 1);
      at = run->end;
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
      g_autofree char *note = _sim_export_identical_note (n_identical);

      g_string_append (out, "<p class=\"legend\">");
      append_escaped (out, note);
      g_string_append (out, "</p>\n");
    }
  g_string_append (out, "<ol>\n");
  for (guint i = 0, n = 0; i < listed->len; i++)
    {
      const SimListed *l = &g_array_index (listed, SimListed, i);
      const SimReportSource *src = sim_report_get_source (report, l->passage->source);
      g_autofree char *similar = NULL;

      if (l->identical)
        continue;
      /* Only the flagged text is shaded: the writer's own sentences inside
       * the passage are not. */
      g_string_append_printf (out, "<li id=\"p%u\">", ++n);
      for (guint k = 0; k < l->pieces->len; k++)
        {
          const SimListedPiece *piece = &g_array_index (l->pieces, SimListedPiece, k);

          if (piece->excluded)
            g_string_append (out, "<mark class=\"excluded\">");
          else if (piece->flagged)
            g_string_append_printf (out, "<mark class=\"c%u\">", (l->passage->source % SIM_SOURCE_N_COLORS) + 1);
          append_escaped (out, piece->text);
          if (piece->flagged)
            g_string_append (out, "</mark>");
        }
      g_string_append_printf (out, "<div class=\"source\"><a href=\"#src%u\">%s %u</a> · ",
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
sim_export_html_file (const SimReportView *view,
                      const char          *path,
                      GError             **error)
{
  g_autofree char *html = sim_export_html (view);

  return write_file (path, html, error);
}

/* Whether @lang ("zh-tw-x", lower case) is @code or a variety of it. */
static gboolean
language_is (const char *lang,
             const char *code)
{
  const gsize n = strlen (code);

  return strncmp (lang, code, n) == 0 && (lang[n] == '\0' || lang[n] == '-' || lang[n] == '.' || lang[n] == '@');
}

const char *
sim_export_cjk_family (const char *language)
{
  static const char *const variants[][2] = {
    { "zh-tw", "Noto Sans CJK TC" }, { "zh-hant", "Noto Sans CJK TC" }, { "zh-hk", "Noto Sans CJK HK" },
    { "zh-mo", "Noto Sans CJK HK" }, { "ja", "Noto Sans CJK JP" }, { "ko", "Noto Sans CJK KR" },
  };
  g_autofree char *lang = g_ascii_strdown (language != NULL ? language : g_get_language_names ()[0], -1);

  g_strdelimit (lang, "_", '-');
  for (guint i = 0; i < G_N_ELEMENTS (variants); i++)
    if (language_is (lang, variants[i][0]))
      return variants[i][1];
  return "Noto Sans CJK SC";
}

/* ------------------------------------------------------------------ PDF */

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
sim_export_pdf_file (const SimReportView *view,
                     const char          *path,
                     GError             **error)
{
  return sim_export_pdf_file_on (view, path, sim_export_default_paper (), error);
}

gboolean
sim_export_pdf_file_on (const SimReportView *view,
                        const char          *path,
                        SimPaper             paper,
                        GError             **error)
{
  /* Drawn by the PDF module (sim-pdf-report.c), loaded the first time a PDF is written. */
  SimPdfWriteFunc write = (SimPdfWriteFunc) sim_module_symbol (SIM_PDF_MODULE, "sim_pdf_write_report", error);

  return write != NULL && write (view, path, paper, error);
}
