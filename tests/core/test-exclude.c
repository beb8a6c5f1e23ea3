/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Exclusions: which spans are quotations and which the reference section,
 * written as "text with [brackets] around what is found"; and the ratios and
 * excluded spans a real check gets for each choice.
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
#include "sim-report-view.h"
#include "sim-test-util.h"

/* @text with [ and ] around every span found by @find. */
static char *
bracket (void      (*find) (const char *, gssize, GArray *),
         const char *text)
{
  g_autoptr(GArray) spans = g_array_new (FALSE, FALSE, sizeof (SimExcludedSpan));
  GString *out = g_string_new (NULL);
  guint32 at = 0;
  guint k = 0;

  find (text, -1, spans);
  for (const char *p = text;; p = g_utf8_next_char (p), at++)
    {
      for (guint i = 0; i < spans->len; i++)
        if (g_array_index (spans, SimExcludedSpan, i).end == at)
          g_string_append_c (out, ']');
      if (k < spans->len && g_array_index (spans, SimExcludedSpan, k).start == at)
        {
          g_string_append_c (out, '[');
          k++;
        }
      if (*p == '\0')
        break;
      g_string_append_unichar (out, g_utf8_get_char (p));
    }
  return g_string_free (out, FALSE);
}

#define assert_brackets(find, text, expected) \
  do { g_autofree char *got = bracket (find, text); assert_string_equal (got, expected); } while (0)

static void
test_quotes_in_every_style (void **state)
{
  assert_brackets (sim_exclude_find_quotes, "He said “the lamp is lit” and left.",
                   "He said [“the lamp is lit”] and left.");
  assert_brackets (sim_exclude_find_quotes, "He said \"the lamp is lit\" and \"so\".",
                   "He said [\"the lamp is lit\"] and [\"so\"].");
  assert_brackets (sim_exclude_find_quotes, "他说「灯亮了」，又说『风大』。", "他说[「灯亮了」]，又说[『风大』]。");
  assert_brackets (sim_exclude_find_quotes, "She wrote ‘keep the light’ twice.", "She wrote [‘keep the light’] twice.");
  /* Apostrophes and inch marks open nothing; a quote never runs across a paragraph. */
  assert_brackets (sim_exclude_find_quotes, "Don’t stop, it’s 5'10\" tall.", "Don’t stop, it’s 5'10\" tall.");
  assert_brackets (sim_exclude_find_quotes, "An “unclosed quote\n\nin the next paragraph” here.",
                   "An “unclosed quote\n\nin the next paragraph” here.");
  assert_brackets (sim_exclude_find_quotes, "‘The keeper’s lamp’ was old.", "[‘The keeper’s lamp’] was old.");
}

static void
test_the_last_reference_heading_to_the_end_or_appendix (void **state)
{
  assert_brackets (sim_exclude_find_references, "Text.\n\nReferences\n\nSmith (2001).\n",
                   "Text.\n\n[References\n\nSmith (2001).\n]");
  assert_brackets (sim_exclude_find_references, "正文。\n\n参考文献：\n[1] 张三. 灯塔史.\n\n附录 A\n表格",
                   "正文。\n\n[参考文献：\n[1] 张三. 灯塔史.\n\n]附录 A\n表格");
  /* A table of contents names the section early: the last heading counts. */
  assert_brackets (sim_exclude_find_references, "Contents\nReferences\n\nBody text.\n\n7. Bibliography\nA. B.",
                   "Contents\nReferences\n\nBody text.\n\n[7. Bibliography\nA. B.]");
  /* A sentence mentioning references is no heading. */
  assert_brackets (sim_exclude_find_references, "See the references below for more.\n",
                   "See the references below for more.\n");
}

#define COPY "The lighthouse keeper climbed the spiral stairs every evening to light the great lamp."
#define COPY2 "Ships passing the northern reef relied on his lamp to find the safe channel into the harbour."
#define REF "Smith, J. (2001). A history of lighthouses on the northern coast. Harbour Press, London."

static void
test_ratios_and_spans_follow_the_choices (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *docs = g_build_filename (dir, "docs", NULL);
  g_autofree char *store = g_build_filename (dir, "store.db", NULL);
  const char *article = "My own introduction talks about the mountains where I grew up, far from any coast.\n\n"
                        "As one historian put it, “" COPY "” " COPY2 "\n\nReferences\n\n" REF "\n";
  g_autoptr(SimReport) report = NULL;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  SimExclusions ex = SIM_EXCLUSIONS_INIT;
  const SimRatios *r;
  float total;

  g_free (sim_test_write_file (docs, "source.txt", COPY " " COPY2 "\n\n" REF "\n", -1));
  report = sim_test_check_folder (store, docs, article, &options, NULL);
  assert_non_null (report);
  total = sim_report_get_similarity (report);

  /* Nothing chosen: the headline is the total, and the ratios each way. */
  {
    g_autoptr(SimReportView) view = sim_report_view_new (report, &ex);

    r = sim_report_view_get_ratios (view);
    assert_float_equal (r->total, total, 1e-6);
    assert_float_equal (sim_report_view_get_similarity (view), total, 1e-6);
    assert_int_equal (sim_report_view_get_n_excluded (view), 0);
    assert_true (r->excluding_quotes < r->total - 0.1);
    assert_true (r->excluding_references < r->total - 0.1);
    assert_true (r->excluding_both < r->excluding_quotes && r->excluding_both < r->excluding_references);
    assert_true (r->excluding_both > 0.05);           /* the unquoted copy still counts */
    assert_float_equal (r->largest_source, r->total, 1e-6);  /* one source */
  }

  /* Quotes and references chosen: the headline follows, the spans are listed. */
  {
    g_autoptr(SimReportView) plain = sim_report_view_new (report, NULL);
    g_autoptr(SimReportView) view = NULL;
    g_autofree char *quoted = NULL;

    ex.quotes = ex.references = TRUE;
    view = sim_report_view_new (report, &ex);
    assert_float_equal (sim_report_view_get_similarity (view), sim_report_view_get_ratios (plain)->excluding_both, 1e-6);
    assert_int_equal (sim_report_view_get_n_excluded (view), 2);
    assert_int_equal (sim_report_view_get_excluded (view, 0)->reason, SIM_EXCLUDED_QUOTE);
    assert_int_equal (sim_report_view_get_excluded (view, 1)->reason, SIM_EXCLUDED_REFERENCES);
    quoted = sim_report_dup_text (report, sim_report_view_get_excluded (view, 0)->start,
                                  sim_report_view_get_excluded (view, 0)->end);
    assert_string_equal (quoted, "“" COPY "”");
    /* The report itself is not changed by a view. */
    assert_float_equal (sim_report_get_similarity (report), total, 1e-6);
  }

  /* The source left out: nothing is flagged; small passages: only short ones go. */
  {
    const gint64 id = sim_report_get_source (report, 0)->doc_id;
    SimExclusions by_source = SIM_EXCLUSIONS_INIT;
    SimExclusions small = SIM_EXCLUSIONS_INIT;
    g_autoptr(SimReportView) without_source = NULL, all_small = NULL, few_small = NULL;

    by_source.source_ids = &id;
    by_source.n_source_ids = 1;
    without_source = sim_report_view_new (report, &by_source);
    assert_float_equal (sim_report_view_get_similarity (without_source), 0, 1e-6);
    assert_int_equal (sim_report_view_get_excluded (without_source, 0)->reason, SIM_EXCLUDED_SOURCE);
    small.small_words = 1000;
    all_small = sim_report_view_new (report, &small);
    assert_float_equal (sim_report_view_get_similarity (all_small), 0, 1e-6);
    small.small_words = 3;
    few_small = sim_report_view_new (report, &small);
    assert_float_equal (sim_report_view_get_similarity (few_small), total, 1e-6);
  }

  /* The template's own sentence is never flagged. */
  {
    SimExclusions with_template = SIM_EXCLUSIONS_INIT;
    g_autoptr(GArray) spans = g_array_new (FALSE, FALSE, sizeof (SimExcludedSpan));
    g_autoptr(SimReportView) view = NULL;

    assert_true (sim_exclude_find_template (report, "Assignment: " COPY2, -1, SIM_NORMALIZE_DEFAULT, spans, NULL));
    assert_true (spans->len > 0);
    with_template.template_spans = (const SimExcludedSpan *) spans->data;
    with_template.n_template_spans = spans->len;
    view = sim_report_view_new (report, &with_template);
    assert_true (sim_report_view_get_similarity (view) < total - 0.1);
    assert_int_equal (sim_report_view_get_excluded (view, 0)->reason, SIM_EXCLUDED_TEMPLATE);
  }
  sim_test_remove_tree (dir);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_quotes_in_every_style),
    cmocka_unit_test (test_the_last_reference_heading_to_the_end_or_appendix),
    cmocka_unit_test (test_ratios_and_spans_follow_the_choices),
  };

  return cmocka_run_group_tests_name ("exclude", tests, NULL, NULL);
}
