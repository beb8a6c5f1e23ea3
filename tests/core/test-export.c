/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Exports: the HTML report escapes every string from the article and the
 * corpus, and the PDF holds the flagged segments and their sources.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>

#include "sim-check.h"
#include "sim-exclude.h"
#include "sim-export.h"
#include "sim-export-private.h"
#include "sim-compare.h"
#include "sim-report-json.h"
#include "sim-test-util.h"

#define COPIED "Ships passing the <b>northern</b> reef relied on his lamp to find the safe channel & more."
#define ZH "街角那家茶馆已经开了六十多年，每天清晨都有老人带着鸟笼来喝茶。"

typedef struct {
  char          *dir;
  SimReport     *report;
  SimReportView *view;    /* of the report, no exclusion chosen */
} Fixture;

static int
setup (void **state)
{
  Fixture *f = g_new0 (Fixture, 1);
  g_autofree char *docs = NULL, *store = NULL;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;

  f->dir = sim_test_make_tmp_dir ();
  docs = g_build_filename (f->dir, "docs", NULL);
  store = g_build_filename (f->dir, "store.db", NULL);
  g_free (sim_test_write_file (docs, "<script>alert(1)</script>.txt", "Lighthouse <notes>\n\n" COPIED "\n", -1));
  g_free (sim_test_write_file (docs, "tea.txt", "茶馆\n\n" ZH "\n", -1));
  /* The last sentence's Chinese commas follow Latin words: Pango puts
   * them in Latin runs, where the context's language does not reach. */
  f->report = sim_test_check_folder (store, docs, "My own words come first here, they are not copied. " COPIED " " ZH
                                     "我查了 errno，又看了 EBADF：都对。",
                                     &options, NULL);
  assert_non_null (f->report);
  f->view = sim_report_view_new (f->report, NULL);
  *state = f;
  return 0;
}

static int
teardown (void **state)
{
  Fixture *f = *state;

  sim_report_view_unref (f->view);
  sim_report_unref (f->report);
  sim_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f);
  return 0;
}

static void
test_histogram_counts_every_segment (void **state)
{
  Fixture *f = *state;
  const guint *counts = sim_report_view_get_histogram (f->view);
  guint total = 0;

  for (guint i = 0; i < SIM_CHART_BINS; i++)
    total += counts[i];
  assert_int_equal (total, sim_report_get_n_segments (f->report));
  assert_int_equal (counts[SIM_CHART_BINS - 1], 2); /* both copies are at 100% */
  assert_int_equal (sim_report_view_level_of (f->view, 0.95f), SIM_LEVEL_HIGH);
  assert_int_equal (sim_report_view_level_of (f->view, 0.5f), SIM_LEVEL_MEDIUM);
  assert_int_equal (sim_report_view_level_of (f->view, 0.1f), SIM_LEVEL_LOW);
}

static void
test_html_is_self_contained_and_escaped (void **state)
{
  Fixture *f = *state;
  g_autofree char *html = sim_export_html (f->view);

  assert_non_null (strstr (html, "<style>"));
  assert_null (strstr (html, "<script"));          /* the file name is escaped */
  assert_non_null (strstr (html, "&lt;script&gt;alert(1)&lt;/script&gt;.txt"));
  assert_null (strstr (html, "<b>northern</b>"));  /* the article is escaped */
  assert_non_null (strstr (html, "&lt;b&gt;northern&lt;/b&gt;"));
  assert_non_null (strstr (html, ZH));
  assert_null (strstr (html, "distance"));          /* plain words, not the engine's */
  assert_non_null (strstr (html, "<svg"));
  assert_null (strstr (html, "http"));              /* nothing is loaded from anywhere */
}

/* The HTML of the mark that opens with @text, up to its text. (transfer full) */
static char *
mark_before (const char *html,
             const char *text)
{
  const char *at = strstr (html, text), *open;

  assert_non_null (at);
  open = g_strrstr_len (html, at - html, "<mark ");
  assert_non_null (open);
  return g_strndup (open, at - open);
}

/* Two sources: each has its number and its colour, in the sources table
 * and on its flags in the text, and the two differ. */
static void
test_html_numbers_and_colours_flags_by_source (void **state)
{
  Fixture *f = *state;
  g_autofree char *html = sim_export_html (f->view);
  g_autofree char *lamp = mark_before (html, "Ships passing");
  g_autofree char *tea = mark_before (html, ZH);
  const SimReportSource *first = sim_report_get_source (f->report, 0);
  const SimReportSource *second = sim_report_get_source (f->report, 1);
  const gboolean lamp_first = strstr (first->display_path, "script") != NULL;
  g_autofree char *row1 = NULL, *row2 = NULL;

  assert_true (sim_report_get_n_sources (f->report) >= 2);
  assert_true (first->n_segments > 0 && second->n_segments > 0);
  /* The table: numbered rows with the palette's colours, largest share first. */
  row1 = g_strdup_printf ("<tr id=\"src1\"><td><span class=\"swatch c1\">1</span>");
  row2 = g_strdup_printf ("<tr id=\"src2\"><td><span class=\"swatch c2\">2</span>");
  assert_non_null (strstr (html, row1));
  assert_non_null (strstr (html, row2));
  assert_true (strstr (html, row1) < strstr (html, row2));
  {
    g_autofree char *style1 = g_strdup_printf (".c1{background:%s}", sim_source_tint (1));
    g_autofree char *style2 = g_strdup_printf (".c2{background:%s}", sim_source_tint (2));

    assert_non_null (strstr (html, style1));
    assert_non_null (strstr (html, style2));
    assert_string_not_equal (sim_source_tint (1), sim_source_tint (2));
  }
  /* The flags: in their source's colour, and the two sources' flags differ. */
  assert_non_null (strstr (lamp, lamp_first ? "class=\"c1 " : "class=\"c2 "));
  assert_non_null (strstr (tea, lamp_first ? "class=\"c2 " : "class=\"c1 "));
  assert_non_null (strstr (lamp, "title=\"Source "));
  /* The palette repeats after its last colour; numbers go on. */
  assert_string_equal (sim_source_color (1), sim_source_color (1 + SIM_SOURCE_N_COLORS));
  assert_string_not_equal (sim_source_color (1), sim_source_color (SIM_SOURCE_N_COLORS));
}

/* The text of @pdf as pdftotext reads it (poppler-utils, which ./run.sh
 * installs), on one line; the raw output, pages ended by form feeds, in
 * @out_raw. (transfer full) */
static char *
pdf_text (const char  *pdf,
          char       **out_raw)
{
  g_autofree char *pdftotext = g_find_program_in_path ("pdftotext");
  const char *argv[] = { pdftotext, pdf, "-", NULL };
  g_auto(GStrv) lines = NULL;
  int status = 0;

  assert_non_null (pdftotext);
  assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, out_raw, NULL, &status, NULL));
  assert_true (g_spawn_check_wait_status (status, NULL));
  lines = g_strsplit_set (*out_raw, "\n", -1);
  return g_strjoinv (" ", lines);
}

static void
test_pdf_holds_flagged_segments_and_sources (void **state)
{
  Fixture *f = *state;
  g_autofree char *pdf = g_build_filename (f->dir, "report.pdf", NULL);
  g_autofree char *out = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *flat = NULL;
  int status = 0;

  assert_true (sim_export_pdf_file (f->view, pdf, &error));
  assert_true (g_file_test (pdf, G_FILE_TEST_IS_REGULAR));
  flat = pdf_text (pdf, &out);
  assert_non_null (strstr (flat, "Similarity report"));
  assert_non_null (strstr (flat, "relied on his lamp"));
  assert_non_null (strstr (flat, "街角那家茶馆"));          /* CJK glyphs are in the PDF */
  assert_non_null (strstr (flat, "tea.txt"));               /* and the sources */
  assert_non_null (strstr (flat, "Sources 1 "));            /* the numbered sources table */
  assert_non_null (strstr (flat, "2 "));
  assert_non_null (strstr (flat, "Each flagged passage is coloured and numbered like its source")); /* the legend */
  assert_null (strstr (flat, "distance"));
  /* Issue 31, fault 7: the charts have their axes and labels, as the app's. */
  assert_non_null (strstr (flat, "100%"));
  assert_non_null (strstr (flat, "Similarity of each segment along the article"));
  assert_non_null (strstr (flat, "Segments per similarity band"));
  /* Chinese is set in the Simplified Chinese variant of the CJK font. */
  {
    g_autofree char *pdffonts = g_find_program_in_path ("pdffonts");
    g_autofree char *fonts = NULL;
    const char *argv[] = { pdffonts, pdf, NULL };

    assert_non_null (pdffonts);
    assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &fonts, NULL, &status, &error));
    assert_non_null (strstr (fonts, "CJKsc"));
    assert_null (strstr (fonts, "CJKjp"));
  }
  assert_false (sim_export_html_file (f->view, "/nonexistent/dir/report.html", &error));
  assert_non_null (strstr (error->message, "/nonexistent/dir/report.html"));
}

/* A long article flows paragraph by paragraph (one Pango layout for a whole
 * 1 MB article took seconds): nothing of it is lost, neither the many short
 * paragraphs nor one paragraph longer than a layout's share, on A4 and on
 * Letter paper alike. */
static void
check_long_article_pdf (Fixture  *f,
                        SimPaper  paper);

static void
test_pdf_keeps_every_paragraph_of_a_long_article (void **state)
{
  check_long_article_pdf (*state, SIM_PAPER_A4);
  check_long_article_pdf (*state, SIM_PAPER_LETTER);
}

/* The page size pdfinfo reads in @pdf: "595 x 842". */
static char *
page_size (const char *pdf)
{
  g_autofree char *pdfinfo = g_find_program_in_path ("pdfinfo");
  const char *argv[] = { pdfinfo, pdf, NULL };
  g_autofree char *out = NULL;
  const char *line;
  int status = 0;

  assert_non_null (pdfinfo);
  assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, NULL, &status, NULL));
  line = strstr (out, "Page size:");
  assert_non_null (line);
  line += strlen ("Page size:");
  while (*line == ' ')
    line++;
  return g_strndup (line, strcspn (line, " ") + strlen (" x ") + strcspn (line + strcspn (line, " ") + 3, " "));
}

static void
check_long_article_pdf (Fixture  *f,
                        SimPaper  paper)
{
  g_autofree char *store = g_build_filename (f->dir, "store.db", NULL);
  g_autofree char *pdf = g_build_filename (f->dir, paper == SIM_PAPER_LETTER ? "long-letter.pdf" : "long.pdf", NULL);
  g_autoptr(SimCorpus) corpus = sim_corpus_open (store, TRUE, NULL);
  g_autoptr(SimCorpusSnapshot) snapshot = sim_corpus_ref_snapshot (corpus);
  g_autoptr(GString) article = g_string_new (NULL);
  g_autoptr(SimReport) report = NULL;
  g_autoptr(SimReportView) view = NULL;
  g_autoptr(GError) error = NULL;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autofree char *out = NULL, *flat = NULL;

  for (guint i = 0; i < 300; i++)
    g_string_append_printf (article, "Paragraph %u tells of harbour %u.\n", i, i * 7);
  for (guint i = 0; i < 1500; i++)
    g_string_append_printf (article, "word%u ", i);
  g_string_append (article, "lastword. " COPIED "\n");
  report = sim_check_run (snapshot, article->str, -1, &options, NULL, NULL, NULL, NULL);
  assert_non_null (report);
  sim_report_set_name (report, "long-article.txt");
  view = sim_report_view_new (report, NULL);
  assert_true (sim_export_pdf_file_on (view, pdf, paper, &error));
  {
    g_autofree char *size = page_size (pdf);

    assert_string_equal (size, paper == SIM_PAPER_LETTER ? "612 x 792" : "595 x 842");
  }
  flat = pdf_text (pdf, &out);
  assert_non_null (strstr (flat, "Paragraph 0 tells of harbour 0."));
  assert_non_null (strstr (flat, "Paragraph 299 tells of harbour 2093."));
  for (guint i = 0; i < 1500; i += 97)
    {
      g_autofree char *word = g_strdup_printf (" word%u ", i);

      assert_non_null (strstr (flat, word));
    }
  assert_non_null (strstr (flat, "lastword."));
  assert_non_null (strstr (flat, "relied on his lamp"));
  /* Every page is numbered "Page N of M" (pdftotext ends each page with a form feed). */
  {
    guint n_pages = 0;
    g_autofree char *first = NULL, *last = NULL;

    for (const char *p = out; *p; p++)
      n_pages += *p == '\f';
    assert_true (n_pages >= 3);
    first = g_strdup_printf ("Page 1 of %u", n_pages);
    last = g_strdup_printf ("Page %u of %u", n_pages, n_pages);
    assert_non_null (strstr (flat, first));
    assert_non_null (strstr (flat, last));
    assert_non_null (strstr (flat, "long-article.txt — Simhound similarity report — "));
  }
}

/* The list of flagged passages, in HTML and PDF: a passage copied word for
 * word is coloured in the article and only counted in the list; a reworded
 * one is listed whole, with its source's text beside it, and its number in
 * the article links to it. */
static void
test_list_repeats_only_reworded_passages (void **state)
{
  Fixture *f = *state;
  g_autofree char *docs = g_build_filename (f->dir, "list-docs", NULL);
  g_autofree char *store = g_build_filename (f->dir, "list.db", NULL);
  g_autofree char *pdf = g_build_filename (f->dir, "list.pdf", NULL);
  const char *harbour = "The old harbour master kept a careful record of every storm that crossed the bay, noting the "
                        "wind, the tide and the ships that sought shelter behind the long stone breakwater.";
  const char *reworded = "The old harbour master kept a careful log of every storm that crossed the bay, noting the "
                         "wind, the tides and the boats that sought shelter behind the long stone breakwater.";
  g_autofree char *article = g_strconcat ("My own words come first here, they are not copied. " COPIED "\n\n",
                                          reworded, "\n", NULL);
  g_autoptr(SimReport) report = NULL;
  g_autoptr(SimReportView) view = NULL;
  g_autoptr(GError) error = NULL;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autofree char *html = NULL, *out = NULL, *flat = NULL;
  const char *list;
  guint n_added = 0;

  g_free (sim_test_write_file (docs, "lamp.txt", COPIED "\n", -1));
  g_free (sim_test_write_file (docs, "harbour.txt", harbour, -1));
  report = sim_test_check_folder (store, docs, article, &options, &n_added);
  assert_int_equal (n_added, 2);
  assert_non_null (report);
  assert_int_equal (sim_test_count_level (report, SIM_LEVEL_HIGH) + sim_test_count_level (report, SIM_LEVEL_MEDIUM), 2);

  view = sim_report_view_new (report, NULL);
  html = sim_export_html (view);
  list = strstr (html, "Flagged passages and their sources");
  assert_non_null (list);
  assert_non_null (strstr (list, "1 flagged passage is the text of its source word for word"));
  assert_null (strstr (list, "relied on his lamp"));               /* not repeated */
  assert_non_null (strstr (list, "<li id=\"p1\">"));
  assert_null (strstr (list, "<li id=\"p2\">"));
  assert_non_null (strstr (list, "careful log of every storm"));    /* the article's text */
  assert_non_null (strstr (list, "careful record of every storm")); /* and the source's */
  assert_non_null (strstr (html, "href=\"#p1\""));                 /* the number in the article links to it */
  assert_true (strstr (html, "href=\"#p1\"") < list);

  assert_true (sim_export_pdf_file (view, pdf, &error));
  flat = pdf_text (pdf, &out);
  list = strstr (flat, "Flagged passages and their sources");
  assert_non_null (list);
  assert_non_null (strstr (flat, "relied on his lamp"));            /* in the article */
  assert_null (strstr (list, "relied on his lamp"));
  assert_non_null (strstr (list, "1. The old harbour master kept a careful log"));
  assert_non_null (strstr (list, "careful record of every storm"));
}

/* The report names when the corpus last changed: the JSON in ISO 8601,
 * the HTML and PDF as a date (the fixture's corpus was made today). */
static void
test_report_names_the_corpus_last_update (void **state)
{
  Fixture *f = *state;
  g_autofree char *json = sim_test_report_json (f->report, FALSE);
  g_autofree char *html = sim_export_html (f->view);
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *today = g_date_time_format (now, "last updated %Y-%m-%d");

  assert_true (sim_report_get_settings (f->report)->corpus_updated > 0);
  assert_true (sim_report_get_settings (f->report)->corpus_updated <= g_date_time_to_unix (now));
  assert_non_null (strstr (json, "\"updated\":\""));
  assert_non_null (strstr (html, today));
}

/* A saved report opens again as the same report: the check's JSON of both
 * is the same, text, excerpts and all, and saving it again gives the same
 * file. */
static void
test_saved_report_reopens_identical (void **state)
{
  Fixture *f = *state;
  g_autoptr(GError) error = NULL;
  g_autofree char *saved = sim_report_to_saved_json (f->report);
  g_autoptr(SimReport) loaded = sim_report_from_saved_json (saved, -1, &error);
  g_autofree char *again = NULL, *a = NULL, *b = NULL;

  assert_null (error);
  assert_non_null (loaded);
  a = sim_test_report_json (f->report, TRUE);
  b = sim_test_report_json (loaded, TRUE);
  assert_string_equal (a, b);
  assert_string_equal (sim_report_get_text (loaded), sim_report_get_text (f->report));
  assert_true (sim_report_get_n_passages (loaded) > 0);
  for (guint i = 0; i < sim_report_get_n_segments (loaded); i++)
    {
      const SimReportSegment *seg = sim_report_get_segment (loaded, i);

      for (guint j = 0; j < seg->n_matches; j++)
        assert_string_equal (sim_report_get_match (loaded, seg->first_match + j)->excerpt,
                             sim_report_get_match (f->report, sim_report_get_segment (f->report, i)->first_match + j)->excerpt);
    }
  again = sim_report_to_saved_json (loaded);
  assert_string_equal (again, saved);
  /* One saved before the corpus's count was called its anchors (a
   * segment is a piece of the article) opens as the same report. */
  {
    g_autoptr(GString) older = g_string_new (saved);
    g_autoptr(SimReport) reopened = NULL;
    g_autofree char *c = NULL;

    assert_int_equal (g_string_replace (older, "\"anchors\":", "\"segments\":", 0), 1);
    reopened = sim_report_from_saved_json (older->str, -1, &error);
    assert_non_null (reopened);
    c = sim_test_report_json (reopened, TRUE);
    assert_string_equal (a, c);
  }
}

/* A check's JSON, a cut file, a newer version and bytes changed anywhere
 * are refused with a reason, or read into a report that stays inside its
 * text: never a crash (ASan runs this). */
static void
test_saved_report_refuses_damaged_files (void **state)
{
  Fixture *f = *state;
  g_autofree char *saved = sim_report_to_saved_json (f->report);
  g_autofree char *check = sim_test_report_json (f->report, FALSE);
  const gsize len = strlen (saved);
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  static const char noise[] = "0123456789{}[]\":,-.e\\ax";
  GError *error = NULL;

  assert_null (sim_report_from_saved_json (check, -1, &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA));
  assert_non_null (strstr (error->message, "without its text"));
  g_clear_error (&error);

  assert_null (sim_report_from_saved_json (saved, len / 2, &error));
  assert_non_null (error);
  g_clear_error (&error);

  {
    g_autofree char *newer = g_strdup (saved);
    char *v = strstr (newer, "\"saved_report\":1");

    assert_non_null (v);
    v[strlen ("\"saved_report\":")] = '9';
    assert_null (sim_report_from_saved_json (newer, -1, &error));
    assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED));
    g_clear_error (&error);
  }

  for (guint i = 0; i < 400; i++)
    {
      g_autofree char *bent = g_strdup (saved);
      g_autoptr(SimReport) report = NULL;

      for (guint k = 0; k < 1 + i % 3; k++)
        bent[g_rand_int_range (rand, 0, len)] = noise[g_rand_int_range (rand, 0, sizeof noise - 1)];
      report = sim_report_from_saved_json (bent, len, &error);
      if (report == NULL)
        {
          assert_non_null (error);
          g_clear_error (&error);
          continue;
        }
      for (guint s = 0; s < sim_report_get_n_segments (report); s++)
        {
          const SimReportSegment *seg = sim_report_get_segment (report, s);

          assert_true (seg->start <= seg->end && seg->end <= sim_report_get_n_chars (report));
          for (guint j = 0; j < seg->n_matches; j++)
            assert_true (sim_report_get_match (report, seg->first_match + j)->source < sim_report_get_n_sources (report));
        }
      for (guint p = 0; p < sim_report_get_n_passages (report); p++)
        assert_true (sim_report_get_passage (report, p)->first_segment + sim_report_get_passage (report, p)->n_segments
                     <= sim_report_get_n_segments (report));
      {
        g_autoptr(SimReportView) view = sim_report_view_new (report, NULL);

        g_free (sim_export_html (view));
      }
    }
}

/* Issue 31, fault 4: a source excerpt never cuts a word ("in centr"), in
 * `compare` (spans placed in proportion inside a passage) or in a check. */
static void
assert_whole_words (SimReport  *report,
                    const char *source)
{
  const glong n = g_utf8_strlen (source, -1);
  guint n_checked = 0;

  for (guint i = 0; i < sim_report_get_n_segments (report); i++)
    {
      const SimReportSegment *seg = sim_report_get_segment (report, i);

      for (guint j = 0; j < seg->n_matches; j++)
        {
          const SimMatch *m = sim_report_get_match (report, seg->first_match + j);
          const gunichar before = m->start > 0 ? g_utf8_get_char (g_utf8_offset_to_pointer (source, m->start - 1)) : ' ';
          const gunichar first = g_utf8_get_char (g_utf8_offset_to_pointer (source, m->start));
          const gunichar last = g_utf8_get_char (g_utf8_offset_to_pointer (source, m->end - 1));
          const gunichar after = m->end < n ? g_utf8_get_char (g_utf8_offset_to_pointer (source, m->end)) : ' ';

          if ((g_unichar_isalnum (before) && g_unichar_isalnum (first)) ||
              (g_unichar_isalnum (last) && g_unichar_isalnum (after)))
            fail_msg ("a word is cut: [%s]", m->excerpt);
          n_checked++;
        }
    }
  assert_true (n_checked > 0);
}

/* @article against @source by compare (*@compared) and by a check against
 * a store of @source alone, in @name under the fixture's folder
 * (*@checked). */
static void
compare_and_check (Fixture     *f,
                   const char  *name,
                   const char  *article,
                   const char  *source,
                   SimReport  **compared,
                   SimReport  **checked)
{
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autofree char *docs = g_build_filename (f->dir, name, NULL);
  g_autofree char *store = g_strconcat (docs, ".db", NULL);
  g_autofree char *file = g_strconcat (name, ".txt", NULL);

  *compared = sim_compare_run (article, -1, "article", source, -1, "source", &options, SIM_NORMALIZE_DEFAULT,
                               NULL, NULL);
  g_free (sim_test_write_file (docs, file, source, -1));
  *checked = sim_test_check_folder (store, docs, article, &options, NULL);
  assert_non_null (*compared);
  assert_non_null (*checked);
}

/* The one passage of @report. */
static const SimPassage *
only_passage (const SimReport *report)
{
  assert_int_equal (sim_report_get_n_passages (report), 1);
  return sim_report_get_passage (report, 0);
}

static void
test_excerpts_end_at_words (void **state)
{
  Fixture *f = *state;
  const char *source = "Population density is highest along the coast. It reaches four thousand people per square "
                       "kilometre in central districts of the capital. Inland, villages are small and far apart, "
                       "and roads are often closed by snow in winter. Farmers keep sheep on the high pastures. "
                       "Tourism brings visitors to the lakes every summer.";
  const char *article = "My essay starts with my own words about nothing at all. It reaches four thousand persons per "
                        "square kilometre in central parts of the capital. Inland, hamlets are small and far apart, "
                        "and roads are frequently closed by snow in winter. I liked the trip.";
  g_autoptr(SimReport) compared = NULL;
  g_autoptr(SimReport) checked = NULL;

  compare_and_check (f, "density", article, source, &compared, &checked);
  assert_whole_words (compared, source);
  assert_whole_words (checked, source);
}

/* A source of five sentences that the passage-end tests copy from. */
#define GLACIERS "Glaciers carve deep valleys as they move slowly downhill over many centuries. " \
                 "Meltwater from the ice feeds rivers that carry fine sediment towards the sea. " \
                 "Moraines of loose rock mark the furthest point each glacier reached. " \
                 "Scientists date these ridges by measuring lichen growth on exposed boulders. " \
                 "Old photographs show how far the ice has retreated since the last century."

/* Issue 30: a copy that stops inside a sentence, the writer's own words
 * run on after it without a full stop: the passage ends where the
 * source's words end, in compare and in a check alike, though the
 * sentence around that end is flagged for the passage. */
static void
test_passage_ends_where_the_copy_ends (void **state)
{
  Fixture *f = *state;
  const char *source = GLACIERS;
  static const char own[] = "while grandmother skated across frozen ponds";
  g_autofree char *article = g_strconcat ("This essay is about a trip I took last spring with my class. "
                                          "Glaciers carve deep valleys as they move slowly downhill over many centuries. "
                                          "Meltwater from the ice feeds rivers that carry fine sediment towards the sea. "
                                          "Moraines of loose rock mark the furthest point each glacier reached. "
                                          "Scientists date these ridges by measuring lichen growth on exposed boulders ",
                                          own, ". We went home on Sunday.", NULL);
  const glong own_start = g_utf8_pointer_to_offset (article, strstr (article, own));
  g_autoptr(SimReport) compared = NULL;
  g_autoptr(SimReport) checked = NULL;

  compare_and_check (f, "glaciers", article, source, &compared, &checked);
  for (guint r = 0; r < 2; r++)
    {
      const SimPassage *p = only_passage (r == 0 ? compared : checked);

      /* From the first copied sentence to the last copied word. */
      assert_true (p->start <= g_utf8_pointer_to_offset (article, strstr (article, "Glaciers carve")));
      assert_true (p->end <= own_start);
      assert_true (p->end >= g_utf8_pointer_to_offset (article, strstr (article, "exposed boulders")));
    }
}

/* Issue 30: an edited copy (too edited to end at its runs of three words)
 * whose last sentence runs on into the writer's own words, one of them a
 * word the source has too ("river"): the passage still ends where the
 * copy ends, in compare and in a check alike. */
static void
test_edited_copy_ends_before_own_words_with_a_shared_one (void **state)
{
  Fixture *f = *state;
  const char *source = GLACIERS;
  static const char own[] = " while my grandmother skated happily across frozen ponds beside the quiet village river";
  g_autofree char *article = g_strconcat ("This essay is about a trip I took last spring with my class. "
                                          "Glaciers carve large valleys as they move gently downhill over many centuries. "
                                          "Meltwater from the frozen water feeds rivers that carry tiny sediment towards the sea. "
                                          "Moraines of broken rock mark the farthest point each glacier reached. "
                                          "Scientists date these ridges by checking lichen growth on bare boulders",
                                          own, ". We went home on Sunday.", NULL);
  const glong own_start = g_utf8_pointer_to_offset (article, strstr (article, own));
  g_autoptr(SimReport) compared = NULL;
  g_autoptr(SimReport) checked = NULL;

  compare_and_check (f, "moraines", article, source, &compared, &checked);
  for (guint r = 0; r < 2; r++)
    {
      const SimPassage *p = only_passage (r == 0 ? compared : checked);

      assert_true (p->start <= g_utf8_pointer_to_offset (article, strstr (article, "Glaciers carve")));
      assert_true (p->end <= own_start);
      assert_true (p->end >= g_utf8_pointer_to_offset (article, strstr (article, "bare boulders")));
    }
}

/* Issue 30: a copied paragraph followed by a sentence of the writer's own
 * that shares a few common words with the source's next sentence ("last",
 * "old", "far"): the passage ends at the copy on both sides, in compare and
 * in a check alike. */
static void
test_own_next_sentence_sharing_common_words_is_not_copied (void **state)
{
  Fixture *f = *state;
  const char *source = GLACIERS;
  const char *article = "This essay is about a trip I took last spring with my class. "
                        "Glaciers carve deep valleys as they move slowly downhill over many centuries. "
                        "Meltwater from the ice feeds rivers that carry fine sediment towards the sea. "
                        "Moraines of loose rock mark the furthest point each glacier reached. "
                        "Scientists date these ridges by measuring lichen growth on exposed boulders. "
                        "On the last day our old bus broke down far from the hotel, so we walked.";
  const char *own = strstr (article, "On the last day");
  g_autoptr(SimReport) compared = NULL;
  g_autoptr(SimReport) checked = NULL;

  compare_and_check (f, "ridges", article, source, &compared, &checked);
  for (guint r = 0; r < 2; r++)
    {
      const SimPassage *p = only_passage (r == 0 ? compared : checked);

      /* ASCII: bytes are code points. */
      assert_int_equal (p->start, strstr (article, "Glaciers carve") - article);
      assert_true (p->end <= (guint32) (own - article));
      assert_true (p->end >= (guint32) (strstr (article, "exposed boulders") - article));
      assert_int_equal (p->source_start, 0);
      assert_true (p->source_end <= (guint32) (strstr (source, "Old photographs") - source));
    }
}

/* Issue 30: two sentences reworded from a source's two, only the first
 * close enough to pair on its own, the second following the source's next
 * sentence (its words, fewer of them): compared alone, one passage over
 * both, where a single loose pair would be none. (A check counts no
 * sentence that joined a passage: sim_alignment_stands_alone().) */
static void
test_reworded_pair_of_sentences_is_one_passage (void **state)
{
  const char *source = "Honey bees live in colonies ruled by a single queen who lays all the eggs. "
                       "Worker bees gather nectar and pollen from flowers within a few miles of the hive. "
                       "They tell each other where the flowers are by dancing on the comb. "
                       "Drones do no work at all and exist only to mate with young queens. "
                       "In winter the colony clusters together and shivers to keep the queen warm.";
  const char *article = "I spent the summer at my uncle's farm in the hills. "
                        "Every colony of honey bees is ruled by one queen, and she lays all of the eggs. "
                        "Workers collect sweet nectar from blossoms a few miles around their home. "
                        "We ate bread with honey every morning.";
  const char *second = strstr (article, "Workers collect");
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autoptr(SimReport) compared = sim_compare_run (article, -1, "article", source, -1, "source", &options,
                                                   SIM_NORMALIZE_DEFAULT, NULL, NULL);
  const SimPassage *p;

  (void) state;
  assert_non_null (compared);
  p = only_passage (compared);
  /* ASCII: bytes are code points. */
  assert_int_equal (p->start, strstr (article, "Every colony") - article);
  assert_int_equal (p->end, strstr (second, "home.") + strlen ("home.") - article);
  assert_true (p->level >= SIM_LEVEL_MEDIUM);
}

/* Issue 30: a sentence naming a topic's parts ("three types: one, two and
 * three") is similar to two headings of a source about it ("Type two ...",
 * "Type three ..."); compared alone, one sentence paired with two is a
 * topic shared, no passage. */
static void
test_compare_one_sentence_paired_with_two_is_no_passage (void **state)
{
  const char *article = "My cousin was told last year that she bleeds longer than other people. "
                        "There are three types of von Willebrand disease: type one, type two and type three. "
                        "Her doctor gave her a card to carry in her wallet.";
  const char *source = "Von Willebrand disease is a bleeding disorder. Type two von Willebrand disease. "
                       "In people with this type, something is abnormal about the clotting factor itself. "
                       "Type three von Willebrand disease. "
                       "This is the most severe type, and people with it have almost no factor at all.";
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autoptr(SimReport) compared = sim_compare_run (article, -1, "article", source, -1, "source", &options,
                                                   SIM_NORMALIZE_DEFAULT, NULL, NULL);

  (void) state;
  assert_non_null (compared);
  assert_int_equal (sim_report_get_n_passages (compared), 0);
}

/* Issue 30: a copy word for word that stops inside a sentence of its
 * source: the passage's source span ends where the copied words do, not
 * at the end of the source's sentence, in compare and in a check alike. */
static void
test_source_span_ends_where_the_copy_ends (void **state)
{
  Fixture *f = *state;
  static const char rest[] = "which a later survey of the old stone bridges found had been rebuilt twice after floods";
  g_autofree char *source = g_strconcat ("Bridges over the river were first built of timber by local carpenters. "
                                         "Floods carried most of them away within a few decades of their building. "
                                         "Engineers then chose stone arches resting on deep foundations. "
                                         "The oldest surviving arch stands near the market square, ", rest, ". "
                                         "Visitors still cross it every day on their way to the station.", NULL);
  const char *article = "Our town has a long history that I wanted to learn more about. "
                        "Bridges over the river were first built of timber by local carpenters. "
                        "Floods carried most of them away within a few decades of their building. "
                        "Engineers then chose stone arches resting on deep foundations. "
                        "The oldest surviving arch stands near the market square. "
                        "I walked there with my father on a cold morning in February.";
  const glong rest_start = g_utf8_pointer_to_offset (source, strstr (source, rest));
  g_autoptr(SimReport) compared = NULL;
  g_autoptr(SimReport) checked = NULL;

  compare_and_check (f, "bridges", article, source, &compared, &checked);
  for (guint r = 0; r < 2; r++)
    {
      const SimPassage *p = only_passage (r == 0 ? compared : checked);

      assert_true (p->source_start == 0);
      assert_true (p->source_end <= rest_start);
      assert_true (p->source_end >= rest_start - 10);
    }
}

/* Issue 30: a copied paragraph with one word in ten replaced is one
 * passage over all of it, in compare and in a check alike. */
static void
test_lightly_edited_copy_is_one_passage (void **state)
{
  Fixture *f = *state;
  const char *source = "Coral reefs grow in warm shallow water where sunlight reaches the sea floor. "
                       "Tiny animals called polyps build hard skeletons of calcium carbonate over many years. "
                       "Algae living inside the polyps give the reef its bright colours and most of its food. "
                       "When the water becomes too warm the algae leave and the coral turns white. "
                       "Scientists call this bleaching and fear that many reefs will not recover. "
                       "Protecting reefs means cutting pollution and limiting fishing near the coast.";
  g_auto(GStrv) words = g_strsplit (source, " ", -1);
  g_autoptr(GString) edited = g_string_new ("My holiday diary begins on a rainy Monday morning at home. ");
  const glong copy_start = (glong) edited->len;
  glong copy_end;
  g_autoptr(SimReport) compared = NULL;
  g_autoptr(SimReport) checked = NULL;

  /* Every tenth word replaced by one of the writer's own. */
  for (guint i = 0; words[i] != NULL; i++)
    {
      const char *w = words[i];

      if (i % 10 == 5)
        w = g_str_has_suffix (words[i], ".") ? "indeed." : "quite";
      g_string_append_printf (edited, "%s%s", i ? " " : "", w);
    }
  copy_end = (glong) edited->len;
  g_string_append (edited, " We went home on Sunday and I slept for a long time.");
  compare_and_check (f, "reefs", edited->str, source, &compared, &checked);
  for (guint r = 0; r < 2; r++)
    {
      const SimPassage *p = only_passage (r == 0 ? compared : checked);

      /* ASCII: bytes are code points. */
      assert_true (p->start <= copy_start + 10);
      assert_true (p->end >= copy_end - 10);
      assert_true (p->end <= copy_end + 2);
    }
}

/* Issue 30: two paragraphs copied from far apart in a source, the later
 * one first, are two passages, each with its own stretch of the source:
 * one passage would paint the source's text between them as copied. */
static void
test_copies_from_far_apart_stay_apart (void **state)
{
  Fixture *f = *state;
  static const char first[] =
    "Honey bees live in colonies ruled by a single queen who lays all the eggs. "
    "Worker bees gather nectar and pollen from flowers within a few miles of the hive. "
    "They tell each other where the flowers are by dancing on the comb. "
    "Drones do no work at all and exist only to mate with young queens. "
    "In winter the colony clusters together and shivers to keep the queen warm.";
  static const char middle[] =
    "The history of beekeeping reaches back thousands of years to ancient Egypt. "
    "Farmers there carried their hives along the Nile on rafts to follow the blossoms. "
    "Greek writers argued about whether the leader of the hive was a king. "
    "Medieval monasteries kept bees mainly for the wax their candles needed. "
    "Straw skeps were common across northern Europe until the modern frame hive. "
    "A clergyman in Pennsylvania designed that frame hive in the middle of the nineteenth century.";
  static const char second[] =
    "Pesticides sprayed on crops can confuse the bees and stop them finding home. "
    "Mites that feed on the larvae spread viruses through weakened colonies. "
    "Some farmers now rent hives each spring to pollinate their orchards. "
    "Planting wild flowers along field margins gives bees food after the crops have bloomed. "
    "Cities have started to welcome hives on the roofs of offices and schools.";
  g_autofree char *source = g_strjoin (" ", first, middle, second, NULL);
  g_autofree char *article = g_strjoin (" ", "My project is about why bees matter to all of us.", second, first,
                                        "I hope to keep a hive of my own one day.", NULL);
  const glong middle_start = (glong) strlen (first) + 1;
  const glong middle_end = middle_start + (glong) strlen (middle);
  g_autoptr(SimReport) compared = NULL;
  g_autoptr(SimReport) checked = NULL;

  compare_and_check (f, "bees", article, source, &compared, &checked);
  for (guint r = 0; r < 2; r++)
    {
      const SimReport *report = r == 0 ? compared : checked;

      assert_int_equal (sim_report_get_n_passages (report), 2);
      for (guint i = 0; i < 2; i++)
        {
          const SimPassage *p = sim_report_get_passage (report, i);

          /* Ordered by the article: the second paragraph comes first. */
          if (i == 0)
            assert_true (p->source_start >= middle_end - 10);
          else
            assert_true (p->source_end <= middle_start + 10);
        }
    }
}

/* Issue 31, fault 4: in the list of flagged passages only flagged text is
 * shaded: each shaded piece lies in a run of the passage's source, and no
 * such run reaches into a piece left plain. */
static void
test_list_shades_only_flagged_text (void **state)
{
  Fixture *f = *state;
  g_autoptr(GArray) listed = _sim_export_listed_passages (f->view);
  guint n_pieces = 0;

  for (guint i = 0; i < listed->len; i++)
    {
      const SimListed *l = &g_array_index (listed, SimListed, i);
      guint32 at = l->passage->start;
      g_autoptr(GString) joined = g_string_new (NULL);

      for (guint k = 0; k < l->pieces->len; k++)
        {
          const SimListedPiece *piece = &g_array_index (l->pieces, SimListedPiece, k);
          const guint32 end = at + g_utf8_strlen (piece->text, -1);
          gboolean in_run = FALSE, touches_run = FALSE;

          for (guint r = 0; r < sim_report_view_get_n_runs (f->view); r++)
            {
              const SimFlaggedRun *run = sim_report_view_get_run (f->view, r);

              if (run->source != l->passage->source)
                continue;
              in_run = in_run || (run->start <= at && end <= run->end);
              touches_run = touches_run || (run->start < end && at < run->end);
            }
          assert_true (piece->flagged ? in_run : !touches_run);
          g_string_append (joined, piece->text);
          at = end;
          n_pieces++;
        }
      assert_string_equal (joined->str, l->text);
    }
  assert_true (n_pieces > 0);
}

/* The text of the first 200 points of page @page of @pdf. (transfer full) */
static char *
pdf_page_top (const char *pdf,
              guint       page)
{
  g_autofree char *pdftotext = g_find_program_in_path ("pdftotext");
  g_autofree char *number = g_strdup_printf ("%u", page);
  const char *argv[] = { pdftotext, "-f", number, "-l", number, "-x", "0", "-y", "0", "-W", "612", "-H", "200",
                         pdf, "-", NULL };
  char *top = NULL;
  int status = 0;

  assert_non_null (pdftotext);
  assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &top, NULL, &status, NULL));
  assert_true (g_spawn_check_wait_status (status, NULL));
  return top;
}

/* Sources enough to leave too little of a page for the chart: it goes
 * whole to the top of the next page, its labels with it (they were drawn
 * where it would have been, its bars on the page before's freed
 * context). */
static void
test_pdf_chart_goes_to_the_next_page (void **state)
{
  Fixture *f = *state;
  static const char *const nouns[] = { "lamp", "reef", "harbour", "mill", "orchard", "bridge", "kettle", "anchor",
                                       "lantern", "meadow", "quarry", "ferry" };
  static const char *const verbs[] = { "guarded", "painted", "measured", "carried", "mended", "counted", "traded",
                                       "watched", "followed", "praised" };
  static const char *const whos[] = { "the miller", "a sailor", "the widow", "two brothers", "the mayor",
                                      "a stranger", "the keeper" };
  g_autofree char *docs = g_build_filename (f->dir, "many", NULL);
  g_autofree char *store = g_build_filename (f->dir, "many.db", NULL);
  g_autofree char *pdf = g_build_filename (f->dir, "many.pdf", NULL);
  g_autoptr(GPtrArray) sentences = g_ptr_array_new_with_free_func (g_free);
  gboolean broke = FALSE;

  for (guint i = 0; i < 40; i++)
    {
      g_autofree char *name = g_strdup_printf ("source %02u with a long title to fill its row.txt", i);
      char *text = g_strdup_printf ("In year %u %s %s the %s and the %s beside the %s road, number %u.",
                                    1700 + i * 3, whos[i % 7], verbs[(i * 3) % 10], nouns[i % 12],
                                    nouns[(i * 5 + 3) % 12], nouns[(i * 7 + 5) % 12], i * 13 + 4);

      g_free (sim_test_write_file (docs, name, text, -1));
      g_ptr_array_add (sentences, text);
    }
  /* Each source listed takes a row: one of these counts leaves the chart
   * too little room at the foot of the page. */
  for (guint n = 10; n <= sentences->len && !broke; n++)
    {
      g_autoptr(GString) article = g_string_new (NULL);
      g_autoptr(SimReport) report = NULL;
      g_autoptr(SimReportView) view = NULL;
      g_autoptr(GError) error = NULL;
      SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
      g_autofree char *out = NULL, *flat = NULL;
      const char *chart, *page = NULL, *next;
      guint number = 1;

      for (guint i = 0; i < n; i++)
        g_string_append_printf (article, "%s\n", (const char *) g_ptr_array_index (sentences, i));
      report = sim_test_check_folder (store, docs, article->str, &options, NULL);
      assert_non_null (report);
      view = sim_report_view_new (report, NULL);
      assert_true (sim_export_pdf_file (view, pdf, &error));
      flat = pdf_text (pdf, &out);
      chart = strstr (out, "Segments per similarity band");
      assert_non_null (chart);
      for (page = out; (next = strchr (page, '\f')) != NULL && next < chart; page = next + 1)
        number++;
      assert_non_null (next);
      /* Wherever it is, its labels are on its page. */
      assert_non_null (g_strstr_len (page, next - page, "start of the article"));
      assert_non_null (g_strstr_len (page, next - page, "Similarity of each segment along the article"));
      /* It starts a page only when the rows before it end the page before. */
      if (number > 1 && g_strstr_len (page, chart - page, "characters)") == NULL)
        {
          g_autofree char *top = pdf_page_top (pdf, number);

          assert_non_null (strstr (top, "Segments per similarity band"));
          assert_non_null (strstr (top, "start of the article"));
          broke = TRUE;
        }
    }
  assert_true (broke);
}

/* Han text takes the forms of the reader's language, Simplified Chinese
 * unless it asks for others; the language as Pango or a locale names it. */
static void
test_cjk_family_follows_the_language (void **state)
{
  assert_string_equal (sim_export_cjk_family ("zh-cn"), "Noto Sans CJK SC");
  assert_string_equal (sim_export_cjk_family ("en-us"), "Noto Sans CJK SC");
  assert_string_equal (sim_export_cjk_family ("C"), "Noto Sans CJK SC");
  assert_string_equal (sim_export_cjk_family ("zh_TW.UTF-8"), "Noto Sans CJK TC");
  assert_string_equal (sim_export_cjk_family ("zh-hk"), "Noto Sans CJK HK");
  assert_string_equal (sim_export_cjk_family ("ja_JP.UTF-8"), "Noto Sans CJK JP");
  assert_string_equal (sim_export_cjk_family ("ko"), "Noto Sans CJK KR");
  /* Jamaican Creole is not Japanese. */
  assert_string_equal (sim_export_cjk_family ("jam"), "Noto Sans CJK SC");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_histogram_counts_every_segment),
    cmocka_unit_test (test_cjk_family_follows_the_language),
    cmocka_unit_test (test_excerpts_end_at_words),
    cmocka_unit_test (test_passage_ends_where_the_copy_ends),
    cmocka_unit_test (test_lightly_edited_copy_is_one_passage),
    cmocka_unit_test (test_copies_from_far_apart_stay_apart),
    cmocka_unit_test (test_edited_copy_ends_before_own_words_with_a_shared_one),
    cmocka_unit_test (test_own_next_sentence_sharing_common_words_is_not_copied),
    cmocka_unit_test (test_reworded_pair_of_sentences_is_one_passage),
    cmocka_unit_test (test_compare_one_sentence_paired_with_two_is_no_passage),
    cmocka_unit_test (test_source_span_ends_where_the_copy_ends),
    cmocka_unit_test (test_list_shades_only_flagged_text),
    cmocka_unit_test (test_html_is_self_contained_and_escaped),
    cmocka_unit_test (test_html_numbers_and_colours_flags_by_source),
    cmocka_unit_test (test_pdf_holds_flagged_segments_and_sources),
    cmocka_unit_test (test_pdf_keeps_every_paragraph_of_a_long_article),
    cmocka_unit_test (test_pdf_chart_goes_to_the_next_page),
    cmocka_unit_test (test_list_repeats_only_reworded_passages),
    cmocka_unit_test (test_report_names_the_corpus_last_update),
    cmocka_unit_test (test_saved_report_reopens_identical),
    cmocka_unit_test (test_saved_report_refuses_damaged_files),
  };

  return cmocka_run_group_tests_name ("export", tests, setup, teardown);
}
