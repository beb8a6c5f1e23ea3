/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A view of a report, without GTK: under every choice of exclusions and
 * under other thresholds, its counts, shares, histogram and flagged runs
 * agree with each other, with the characters the headline counts and with
 * the JSON; a view never changes its report, and views of one report live
 * side by side.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include <json-glib/json-glib.h>

#include "sim-check.h"
#include "sim-exclude.h"
#include "sim-report-json.h"
#include "sim-report-view.h"
#include "sim-test-util.h"

#define COPY "The lighthouse keeper climbed the spiral stairs every evening to light the great lamp."
#define COPY2 "Ships passing the northern reef relied on his lamp to find the safe channel into the harbour."
#define TEA "街角那家茶馆已经开了六十多年，每天清晨都有老人带着鸟笼来喝茶。"
#define REF "Smith, J. (2001). A history of lighthouses on the northern coast. Harbour Press, London."

static const char article[] =
  "My own introduction talks about the mountains where I grew up, far from any coast.\n\n"
  "As one historian put it, “" COPY "” " COPY2 " " TEA "\n\n"
  "I think the keepers led lonely lives, and I would not have wanted the job myself.\n\n"
  "References\n\n" REF "\n";

static SimReport *
check (const char *dir,
       float       high,
       float       medium)
{
  g_autofree char *docs = g_build_filename (dir, "docs", NULL);
  g_autofree char *store = g_strdup_printf ("%s/store-%.2f-%.2f.db", dir, high, medium);
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;

  g_free (sim_test_write_file (docs, "lighthouse.txt", COPY " " COPY2 "\n\n" REF "\n", -1));
  g_free (sim_test_write_file (docs, "tea.txt", "茶馆\n\n" TEA "\n", -1));
  options.high_threshold = high;
  options.medium_threshold = medium;
  return sim_test_check_folder (store, docs, article, &options, NULL);
}

static double
member_double (JsonObject *o,
               const char *name)
{
  assert_true (json_object_has_member (o, name));
  return json_object_get_double_member (o, name);
}

/* Everything a view says, checked against itself, its report and its JSON. */
static void
assert_view_agrees (SimReportView *view)
{
  SimReport *report = sim_report_view_get_report (view);
  const guint n_segments = sim_report_get_n_segments (report);
  const guint *histogram = sim_report_view_get_histogram (view);
  g_autofree char *json = sim_report_view_to_json (view, NULL, FALSE);
  g_autoptr(JsonParser) parser = json_parser_new ();
  JsonObject *root, *counts;
  JsonArray *runs, *sources, *histogram_json;
  guint64 total = 0, counted = 0, in_runs = 0;
  guint binned = 0, shared_segments = 0;
  guint32 shared_chars = 0;

  /* Counts: the levels and the left-out add up to the segments; the
   * histogram holds the ones that count. */
  for (guint b = 0; b < SIM_CHART_BINS; b++)
    binned += histogram[b];
  assert_int_equal (sim_report_view_count_level (view, SIM_LEVEL_LOW) + sim_report_view_count_level (view, SIM_LEVEL_MEDIUM) +
                    sim_report_view_count_level (view, SIM_LEVEL_HIGH) + sim_report_view_count_excluded (view),
                    n_segments);
  assert_int_equal (binned, n_segments - sim_report_view_count_excluded (view));

  /* The headline's characters are those the counting runs cover inside
   * flagged segments, and those the sources' shares hold. */
  for (guint i = 0; i < n_segments; i++)
    {
      const SimReportSegment *seg = sim_report_get_segment (report, i);

      total += seg->end - seg->start;
      if (!sim_report_segment_is_flagged (seg))
        {
          assert_int_equal (sim_report_view_find_run (view, i), -1);
          continue;
        }
      assert_true (sim_report_view_find_run (view, i) >= 0);
      for (guint32 c = seg->start; c < seg->end; c++)
        for (guint r = 0; r < sim_report_view_get_n_runs (view); r++)
          {
            const SimFlaggedRun *run = sim_report_view_get_run (view, r);

            if (run->start <= c && c < run->end)
              {
                assert_int_equal (run->source, sim_report_get_match (report, seg->first_match)->source);
                counted += !run->excluded;
                break;
              }
          }
    }
  assert_float_equal (sim_report_view_get_similarity (view), total ? (double) counted / total : 0, 1e-5);
  for (guint i = 0; i < sim_report_get_n_sources (report); i++)
    {
      shared_chars += sim_report_view_get_share (view, i)->n_chars;
      shared_segments += sim_report_view_get_share (view, i)->n_segments;
    }
  assert_int_equal (shared_chars, counted);
  assert_int_equal (shared_segments, sim_report_view_count_level (view, SIM_LEVEL_MEDIUM) +
                                     sim_report_view_count_level (view, SIM_LEVEL_HIGH));

  /* Runs in order, apart, each over flagged segments of its source. */
  for (guint r = 0; r < sim_report_view_get_n_runs (view); r++)
    {
      const SimFlaggedRun *run = sim_report_view_get_run (view, r);

      assert_true (run->start < run->end);
      assert_true (run->first_segment <= run->last_segment);
      assert_true (run->similarity > 0 && run->similarity <= 1);
      if (r > 0)
        assert_true (sim_report_view_get_run (view, r - 1)->end <= run->start);
      in_runs += run->end - run->start;
    }
  assert_true (in_runs >= counted);

  /* The JSON says the same. */
  assert_true (json_parser_load_from_data (parser, json, -1, NULL));
  root = json_node_get_object (json_parser_get_root (parser));
  assert_float_equal (member_double (root, "similarity"), sim_report_view_get_similarity (view), 0.0006);
  assert_float_equal (member_double (json_object_get_object_member (root, "ratios"), "total"),
                      sim_report_view_get_ratios (view)->total, 0.0006);
  counts = json_object_get_object_member (root, "counts");
  assert_int_equal (json_object_get_int_member (counts, "high"), sim_report_view_count_level (view, SIM_LEVEL_HIGH));
  assert_int_equal (json_object_get_int_member (counts, "medium"), sim_report_view_count_level (view, SIM_LEVEL_MEDIUM));
  assert_int_equal (json_object_get_int_member (counts, "low"), sim_report_view_count_level (view, SIM_LEVEL_LOW));
  assert_int_equal (json_object_get_int_member (counts, "excluded"), sim_report_view_count_excluded (view));
  histogram_json = json_object_get_array_member (root, "histogram");
  assert_int_equal (json_array_get_length (histogram_json), SIM_CHART_BINS);
  for (guint b = 0; b < SIM_CHART_BINS; b++)
    assert_int_equal (json_array_get_int_element (histogram_json, b), histogram[b]);
  runs = json_object_get_array_member (root, "runs");
  assert_int_equal (json_array_get_length (runs), sim_report_view_get_n_runs (view));
  for (guint r = 0; r < json_array_get_length (runs); r++)
    {
      JsonObject *o = json_array_get_object_element (runs, r);
      const SimFlaggedRun *run = sim_report_view_get_run (view, r);

      assert_int_equal (json_object_get_int_member (o, "start"), run->start);
      assert_int_equal (json_object_get_int_member (o, "end"), run->end);
      assert_int_equal (json_object_get_int_member (o, "source"), run->source + 1);
      assert_int_equal (json_object_get_boolean_member (o, "excluded"), run->excluded);
      assert_float_equal (member_double (o, "similarity"), run->similarity, 0.0006);
    }
  sources = json_object_get_array_member (root, "sources");
  assert_int_equal (json_array_get_length (sources), sim_report_get_n_sources (report));
  for (guint i = 0; i < json_array_get_length (sources); i++)
    {
      JsonObject *o = json_array_get_object_element (sources, i);

      assert_int_equal (json_object_get_int_member (o, "characters"), sim_report_view_get_share (view, i)->n_chars);
      assert_float_equal (member_double (o, "share"), sim_report_view_get_share (view, i)->share, 0.0006);
    }
}

static void
test_views_agree_under_every_choice (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  const float thresholds[][2] = { { 0.70f, 0.40f }, { 0.95f, 0.60f }, { 0.50f, 0.20f } };

  for (guint t = 0; t < G_N_ELEMENTS (thresholds); t++)
    {
      g_autoptr(SimReport) report = check (dir, thresholds[t][0], thresholds[t][1]);
      g_autofree char *before = NULL, *after = NULL;
      g_autoptr(GArray) template_spans = g_array_new (FALSE, FALSE, sizeof (SimExcludedSpan));
      g_autoptr(GPtrArray) views = g_ptr_array_new_with_free_func ((GDestroyNotify) sim_report_view_unref);
      gint64 lighthouse = -1;

      assert_non_null (report);
      assert_true (sim_report_get_n_sources (report) >= 2);
      for (guint i = 0; i < sim_report_get_n_sources (report); i++)
        if (g_str_has_suffix (sim_report_get_source (report, i)->path, "lighthouse.txt"))
          lighthouse = sim_report_get_source (report, i)->doc_id;
      assert_true (lighthouse >= 0);
      assert_true (sim_exclude_find_template (report, "Write about this: " COPY2, -1, SIM_NORMALIZE_DEFAULT,
                                              template_spans, NULL));
      before = sim_report_to_saved_json (report);
      for (guint choice = 0; choice < 64; choice++)
        {
          SimExclusions ex = SIM_EXCLUSIONS_INIT;
          SimReportView *view;

          ex.quotes = choice & 1;
          ex.references = (choice >> 1) & 1;
          ex.small_words = (choice >> 2) & 1 ? 12 : 0;
          ex.source_ids = &lighthouse;
          ex.n_source_ids = (choice >> 3) & 1;
          if ((choice >> 4) & 1)
            {
              ex.template_spans = (const SimExcludedSpan *) template_spans->data;
              ex.n_template_spans = template_spans->len;
            }
          view = sim_report_view_new (report, (choice >> 5) & 1 ? &ex : NULL);
          assert_view_agrees (view);
          /* No choice is the report's own figure. */
          if (choice == 0 || choice == 32)
            assert_float_equal (sim_report_view_get_similarity (view), sim_report_get_similarity (report), 1e-6);
          /* Every choice counts no more than none. */
          assert_true (sim_report_view_get_similarity (view) <= sim_report_get_similarity (report) + 1e-6);
          g_ptr_array_add (views, view);
        }
      /* No view changed the report (the earlier views are all still alive
       * beside the later ones). */
      after = sim_report_to_saved_json (report);
      assert_string_equal (before, after);
      assert_float_equal (sim_report_view_get_similarity (g_ptr_array_index (views, 0)),
                          sim_report_get_similarity (report), 1e-6);
    }
  sim_test_remove_tree (dir);
}

/* A quotation inside a flagged sentence: the run is cut where the greying
 * changes, so what is greyed is exactly what the headline leaves out, and
 * the source's number follows the whole stretch once. */
static void
test_a_quote_inside_a_sentence_is_greyed_alone (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autoptr(SimReport) report = check (dir, 0.70f, 0.40f);
  SimExclusions ex = SIM_EXCLUSIONS_INIT;
  g_autoptr(SimReportView) view = NULL;
  const glong quote_start = g_utf8_strlen (strstr (article, "“"), -1);
  const glong open_at = g_utf8_strlen (article, -1) - quote_start;
  const glong references = g_utf8_strlen (article, -1) - g_utf8_strlen (strstr (article, "References"), -1);
  guint greyed = 0, numbered_lighthouse = 0;

  assert_non_null (report);
  ex.quotes = TRUE;
  view = sim_report_view_new (report, &ex);
  for (guint r = 0; r < sim_report_view_get_n_runs (view); r++)
    {
      const SimFlaggedRun *run = sim_report_view_get_run (view, r);
      g_autofree char *text = sim_report_dup_text (report, run->start, run->end);

      if (run->excluded)
        {
          greyed++;
          /* The quotation marks are no part of a segment. */
          assert_true (run->start == open_at || run->start == open_at + 1);
          if (!g_str_has_prefix (text, "The lighthouse keeper") && !g_str_has_prefix (text, "“The lighthouse keeper"))
            fail_msg ("greyed: %s", text);
          if (!g_str_has_suffix (text, "lamp.") && !g_str_has_suffix (text, "lamp.”"))
            fail_msg ("greyed: %s", text);
        }
      if (strstr (text, "Ships passing") != NULL)
        assert_false (run->excluded);
      numbered_lighthouse += run->numbered && run->end < references && g_str_has_suffix (sim_report_get_source (report, run->source)->path,
                                                                "lighthouse.txt");
    }
  assert_int_equal (greyed, 1);
  assert_int_equal (numbered_lighthouse, 1);
  sim_test_remove_tree (dir);
}

/* The JSON is written as json-glib's generator writes it, to the byte:
 * parsed and generated again by json-glib, each document (the check's,
 * pretty and on one line, and the saved report, which holds the article's
 * text) comes out the same, quotes, control characters and all. */
static void
test_json_is_json_glib_s (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *docs = g_build_filename (dir, "docs", NULL);
  g_autofree char *store = g_build_filename (dir, "store.db", NULL);
  static const char odd[] = "A \"quoted\" word, a back\\slash, a\ttab, \x01 \x1f \x7f \b\f\r and 😀 é.\n\n";
  g_autofree char *text = g_strconcat (odd, article, NULL);
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autoptr(SimReport) report = NULL;
  g_autoptr(SimReportView) view = NULL;
  char *docs_json[3];

  g_free (sim_test_write_file (docs, "lighthouse \"keeper\".txt", COPY " " COPY2 "\n\n" REF "\n", -1));
  g_free (sim_test_write_file (docs, "tea.txt", "茶馆\n\n" TEA "\n", -1));
  report = sim_test_check_folder (store, docs, text, &options, NULL);
  assert_non_null (report);
  assert_true (sim_report_get_n_sources (report) >= 2);
  view = sim_report_view_new (report, NULL);
  docs_json[0] = sim_report_view_to_json (view, "essay \"1\".txt", TRUE);
  docs_json[1] = sim_report_view_to_json (view, NULL, FALSE);
  docs_json[2] = sim_report_to_saved_json (report);
  for (guint i = 0; i < G_N_ELEMENTS (docs_json); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(JsonNode) node = json_from_string (docs_json[i], &error);
      g_autofree char *again = NULL;

      assert_non_null (node);
      again = json_to_string (node, i == 0);
      assert_string_equal (again, docs_json[i]);
      g_free (docs_json[i]);
    }
  sim_test_remove_tree (dir);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_views_agree_under_every_choice),
    cmocka_unit_test (test_a_quote_inside_a_sentence_is_greyed_alone),
    cmocka_unit_test (test_json_is_json_glib_s),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
