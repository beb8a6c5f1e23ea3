/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Checking articles end to end through the core: levels, spans, sources,
 * passages, window mode, fast and precise, errors, cancellation, the async
 * wrapper and the JSON document.
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
#include "sim-compare.h"
#include "sim-error.h"
#include "sim-test-util.h"

#define EN_1 "The lighthouse keeper climbed the spiral stairs every evening before sunset."
#define EN_2 "He trimmed the wick, polished the great lens and wrote the weather into a leather book."
#define EN_3 "Ships passing the northern reef relied on his lamp to find the safe channel."
#define EN_4 "In forty years he never once let the light go dark, even during the storm of the hard winter."
#define ZH_1 "老城区的石板路在雨后显得格外明亮。"
#define ZH_2 "街角那家茶馆已经开了六十多年，每天清晨都有老人带着鸟笼来喝茶。"
#define ZH_3 "茶馆的主人说，他最喜欢听客人们讲过去的故事。"
#define ZH_4 "如今新的商场建起来了，可是这里依然热闹。"

#define OWN_1 "My cousin prefers mountains to the sea and has never seen a lighthouse at all."
#define OWN_2 "我自己觉得这个故事写得很好，但是结尾还可以再改一改。"

typedef struct {
  char              *dir;
  char              *en_path;
  char              *zh_path;
  SimCorpus         *corpus;
  SimCorpusSnapshot *snapshot;
} Fixture;

static int
setup (void **state)
{
  Fixture *f = g_new0 (Fixture, 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimImportResult) result = NULL;
  g_autofree char *docs = NULL;
  g_autofree char *store = NULL;
  const char *paths[2] = { NULL, NULL };

  f->dir = sim_test_make_tmp_dir ();
  docs = g_build_filename (f->dir, "docs", NULL);
  store = g_build_filename (f->dir, "store.db", NULL);
  f->en_path = sim_test_write_file (docs, "lighthouse.txt", "The Keeper\n\n" EN_1 " " EN_2 " " EN_3 " " EN_4 "\n", -1);
  f->zh_path = sim_test_write_file (docs, "teahouse.txt", "老城\n\n" ZH_1 ZH_2 ZH_3 ZH_4 "\n", -1);
  g_free (sim_test_write_file (docs, "copy-of-lighthouse.txt", "Notes\n\n" EN_2 " And a line of my own notes.\n", -1));
  g_free (sim_test_write_file (docs, "unrelated.txt", "Bananas grow in bunches called hands; a hand holds ten to twenty fingers.\n", -1));
  paths[0] = docs;
  f->corpus = sim_corpus_open (store, FALSE, &error);
  assert_non_null (f->corpus);
  result = sim_corpus_add (f->corpus, paths, NULL, NULL, NULL, &error);
  assert_non_null (result);
  assert_int_equal (result->n_added, 4);
  f->snapshot = sim_corpus_ref_snapshot (f->corpus);
  *state = f;
  return 0;
}

static int
teardown (void **state)
{
  Fixture *f = *state;

  sim_corpus_snapshot_unref (f->snapshot);
  sim_corpus_free (f->corpus);
  sim_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->en_path);
  g_free (f->zh_path);
  g_free (f);
  return 0;
}

static SimReport *
check (Fixture               *f,
       const char            *text,
       const SimCheckOptions *options)
{
  g_autoptr(GError) error = NULL;
  SimReport *report = sim_check_run (f->snapshot, text, -1, options, NULL, NULL, NULL, &error);

  assert_null (error);
  assert_non_null (report);
  return report;
}

/* The segment whose text starts with @prefix. */
static const SimReportSegment *
find_segment (const SimReport *report,
              const char      *prefix)
{
  const char *p = sim_report_get_text (report);
  guint32 at = 0;

  /* Walk the text once: huge pastes have many segments. */
  for (guint i = 0; i < sim_report_get_n_segments (report); i++)
    {
      const SimReportSegment *seg = sim_report_get_segment (report, i);

      p = g_utf8_offset_to_pointer (p, seg->start - at);
      at = seg->start;
      if (g_str_has_prefix (p, prefix))
        return seg;
    }
  fail_msg ("no segment starts with %s", prefix);
  return NULL;
}

static const SimReportSource *
best_source (const SimReport        *report,
             const SimReportSegment *seg)
{
  assert_true (seg->n_matches > 0);
  return sim_report_get_source (report, sim_report_get_match (report, seg->first_match)->source);
}

static void
test_check_finds_copied_and_edited_sentences (void **state)
{
  Fixture *f = *state;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  const char *text = OWN_1 " " EN_3 " " EN_4 "\n\n" OWN_2
                     "街角那家茶館已經開了六十多年，每天清晨都有老人帶著鳥籠來喝茶。" ZH_3;
  g_autoptr(SimReport) report = check (f, text, &options);
  const SimReportSegment *own1 = find_segment (report, "My cousin");
  const SimReportSegment *en3 = find_segment (report, "Ships passing");
  const SimReportSegment *en4 = find_segment (report, "In forty years");
  const SimReportSegment *own2 = find_segment (report, "我自己");
  const SimReportSegment *zh2 = find_segment (report, "街角");
  const SimMatch *m;
  g_autofree char *excerpt = NULL;

  assert_int_equal (own1->level, SIM_LEVEL_LOW);
  assert_int_equal (own2->level, SIM_LEVEL_LOW);
  assert_int_equal (en3->level, SIM_LEVEL_HIGH);
  assert_int_equal (en4->level, SIM_LEVEL_HIGH);
  assert_true (en3->similarity > 0.95f);
  assert_string_equal (best_source (report, en3)->path, f->en_path);

  /* The source span is the copied sentence in the stored text, exactly. */
  m = sim_report_get_match (report, en3->first_match);
  assert_string_equal (m->excerpt, EN_3);
  assert_int_equal (m->distance, 0);

  /* Traditional characters fold to the simplified source: still high. */
  assert_int_equal (zh2->level, SIM_LEVEL_HIGH);
  assert_string_equal (best_source (report, zh2)->path, f->zh_path);
  excerpt = g_strdup (sim_report_get_match (report, zh2->first_match)->excerpt);
  assert_non_null (strstr (excerpt, "街角那家茶馆"));

  /* Consecutive segments from one source merge into one passage. */
  {
    gboolean merged = FALSE;

    for (guint i = 0; i < sim_report_get_n_passages (report); i++)
      {
        const SimPassage *p = sim_report_get_passage (report, i);

        if (p->start == en3->start)
          {
            assert_int_equal (p->end, en4->end);
            assert_int_equal (p->n_segments, 2);
            merged = TRUE;
          }
      }
    assert_true (merged);
  }

  /* Overall: the share of characters in flagged segments, and sources ranked by it. */
  {
    guint64 total = 0, flagged = 0;

    for (guint i = 0; i < sim_report_get_n_segments (report); i++)
      {
        const SimReportSegment *seg = sim_report_get_segment (report, i);

        total += seg->end - seg->start;
        if (seg->level != SIM_LEVEL_LOW)
          flagged += seg->end - seg->start;
      }
    assert_float_equal (sim_report_get_similarity (report), (double) flagged / total, 1e-4);
    assert_string_equal (sim_report_get_source (report, 0)->path, f->en_path);
    assert_true (sim_report_get_source (report, 0)->share >= sim_report_get_source (report, 1)->share);
  }
}

static void
test_check_reports_a_hard_wrapped_copy_as_one_passage (void **state)
{
  Fixture *f = *state;
  /* The four sentences of lighthouse.txt, hard-wrapped at odd places. */
  const char *copy = "The lighthouse keeper climbed the spiral\nstairs every evening before sunset. He trimmed\n"
                     "the wick,\npolished the great lens and wrote the weather into a leather book.\n"
                     "Ships passing the northern\nreef relied on his lamp to find the safe channel. In forty years\n"
                     "he never once let the light go dark,\neven during the storm of the hard winter.";
  g_autofree char *text = g_strconcat (OWN_1, "\n\n", copy, "\n\n", OWN_1, "\n", NULL);
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autoptr(SimReport) report = check (f, text, &options);
  const SimPassage *p;
  const SimReportSource *src;
  g_autofree char *stored = NULL;
  g_autofree char *source_span = NULL;

  assert_int_equal (sim_report_get_n_passages (report), 1);
  p = sim_report_get_passage (report, 0);
  assert_int_equal (p->start, g_utf8_strlen (OWN_1, -1) + 2);
  assert_int_equal (p->end, g_utf8_strlen (OWN_1, -1) + 2 + g_utf8_strlen (copy, -1));
  assert_int_equal (p->level, SIM_LEVEL_HIGH);
  src = sim_report_get_source (report, p->source);
  assert_string_equal (src->path, f->en_path);
  assert_true (g_file_get_contents (f->en_path, &stored, NULL, NULL));
  source_span = sim_test_span_text (stored, p->source_start, p->source_end);
  assert_string_equal (source_span, EN_1 " " EN_2 " " EN_3 " " EN_4);
  /* Every segment of the copy is flagged, the short wrapped lines too. */
  for (guint i = p->first_segment; i < p->first_segment + p->n_segments; i++)
    assert_int_not_equal (sim_report_get_segment (report, i)->level, SIM_LEVEL_LOW);
}

/* Issue 31, fault 5: a sentence of the writer's own between copied ones,
 * on the same topic and sharing a few of the source's words, and the
 * writer's words before a quote of part of a source sentence, do not take
 * the passage's level; the copies and the quote do. */
static void
test_check_leaves_the_writers_own_sentence_between_copies (void **state)
{
  Fixture *f = *state;
  static const char own[] = "The lighthouse we visited had not had a keeper for forty years.";
  static const char intro[] = "As the old guide put it";
  g_autofree char *text = g_strconcat (OWN_1, "\n\n", EN_1, " ", EN_2, " ", EN_3, " ", own, " ", intro,
                                       ", \"in forty years he never once let the light go dark, even during "
                                       "the storm\".\n\n", OWN_1, "\n", NULL);
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autoptr(SimReport) report = check (f, text, &options);

  assert_true (sim_report_segment_is_flagged (find_segment (report, EN_1)));
  assert_true (sim_report_segment_is_flagged (find_segment (report, EN_2)));
  assert_true (sim_report_segment_is_flagged (find_segment (report, EN_3)));
  assert_false (sim_report_segment_is_flagged (find_segment (report, own)));
  assert_false (sim_report_segment_is_flagged (find_segment (report, intro)));
  assert_true (sim_report_segment_is_flagged (find_segment (report, "in forty years he never")));
  assert_false (sim_report_segment_is_flagged (find_segment (report, OWN_1)));
}

/* Passages of one source next to each other in the article are one
 * passage when their source spans lie near each other, in either order (a
 * writer moved a sentence; random obfuscation shuffles phrases; a summary
 * draws on its whole source); far apart in the source, they stay two. */
static void
test_report_joins_neighbouring_passages_of_one_source (void **state)
{
  static const char text[] = "One two three four five six seven eight nine ten eleven twelve thirteen "
                             "fourteen fifteen sixteen seventeen eighteen nineteen twenty.";
  const SimReportSettings settings = { .mode = "sentence", .store = "store.db" };
  const struct { guint32 start, end, source_start, source_end, n_passages, joined_start, joined_end; } cases[] = {
    { 40, 80, 150, 199, 1, 150, 230 },  /* before the first in the source, next to it */
    { 40, 80, 260, 300, 1, 200, 300 },  /* after it: as before */
    { 40, 80, 1300, 1340, 1, 200, 1340 }, /* further on, within twenty times the article's length: a summary */
    { 40, 80, 5000, 5040, 2, 200, 230 }, /* far away in the source: another passage */
  };

  (void) state;
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(SimReport) report = _sim_report_new (text, sizeof text - 1, &settings);
      const guint source = _sim_report_add_source (report, 1, "/corpus/source.txt", "source", FALSE);
      SimPassage first = { 0, 39, source, 200, 230, 0.6f, SIM_LEVEL_MEDIUM, 0, 0 };
      SimPassage second = { cases[c].start, cases[c].end, source, cases[c].source_start, cases[c].source_end,
                            0.6f, SIM_LEVEL_MEDIUM, 0, 0 };
      const SimPassage *p;

      _sim_report_add_passage (report, &first);
      _sim_report_add_passage (report, &second);
      _sim_report_finish (report);
      assert_int_equal (sim_report_get_n_passages (report), cases[c].n_passages);
      p = sim_report_get_passage (report, 0);
      assert_int_equal (p->start, 0);
      assert_int_equal (p->end, cases[c].n_passages == 1 ? 80 : 39);
      assert_int_equal (p->source_start, cases[c].joined_start);
      assert_int_equal (p->source_end, cases[c].joined_end);
    }
}

/* Only the parts of a source its candidates point into are normalised (a
 * margin around them): a copy from deep inside a long document still comes
 * out with its exact source span, and so does a copy from its start. */
static void
test_check_finds_copies_anywhere_in_a_long_source (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *docs = g_build_filename (dir, "docs", NULL);
  g_autofree char *store = g_build_filename (dir, "store.db", NULL);
  g_autofree char *path = NULL;
  const char *paths[] = { docs, NULL };
  g_autoptr(GString) long_text = g_string_new (NULL);
  g_autoptr(SimCorpus) corpus = NULL;
  g_autoptr(SimCorpusSnapshot) snapshot = NULL;
  g_autoptr(SimImportResult) result = NULL;
  guint32 copy_from[2], seed = 12345;
  const guint32 copy_len = 3;

  (void) state;
  /* 600 sentences of made-up words, about 40,000 characters, none like another. */
  for (guint i = 0; i < 600; i++)
    {
      if (i == 5)
        copy_from[0] = g_utf8_strlen (long_text->str, -1);
      if (i == 560)
        copy_from[1] = g_utf8_strlen (long_text->str, -1);
      for (guint w = 0; w < 10; w++)
        {
          for (guint l = 0; l < 5; l++)
            {
              seed = seed * 1103515245u + 12345u;
              g_string_append_c (long_text, (char) ('a' + (seed >> 16) % 26));
            }
          g_string_append (long_text, w < 9 ? " " : ". ");
        }
    }
  path = sim_test_write_file (docs, "long.txt", long_text->str, -1);
  corpus = sim_corpus_open (store, FALSE, NULL);
  result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL);
  assert_int_equal (result->n_added, 1);
  snapshot = sim_corpus_ref_snapshot (corpus);
  for (guint c = 0; c < 2; c++)
    {
      /* copy_len sentences from copy_from[c], between two of the writer's own. */
      const char *from = g_utf8_offset_to_pointer (long_text->str, copy_from[c]);
      const char *to = from;
      g_autofree char *copy = NULL, *article = NULL, *span = NULL;
      g_autoptr(SimReport) report = NULL;
      SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
      const SimPassage *p;

      for (guint k = 0; k < copy_len; k++)
        to = strstr (to, ". ") + 2;
      copy = g_strndup (from, to - 1 - from);
      article = g_strconcat (OWN_1 " ", copy, " " OWN_1, NULL);
      report = sim_check_run (snapshot, article, -1, &options, NULL, NULL, NULL, NULL);
      assert_non_null (report);
      assert_int_equal (sim_report_get_n_passages (report), 1);
      p = sim_report_get_passage (report, 0);
      assert_int_equal (p->start, g_utf8_strlen (OWN_1, -1) + 1);
      assert_int_equal (p->end, g_utf8_strlen (OWN_1, -1) + 1 + g_utf8_strlen (copy, -1));
      span = sim_test_span_text (long_text->str, p->source_start, p->source_end);
      assert_string_equal (span, copy);
    }
  sim_test_remove_tree (dir);
}

static void
test_check_does_not_flag_a_shared_name (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *docs = g_build_filename (dir, "docs", NULL);
  g_autofree char *store = g_build_filename (dir, "store.db", NULL);
  const char *article = "Delegates of the International Union Against Tuberculosis argued in Paris for weeks. "
                        "My grandmother kept bees in the orchard behind her farmhouse.";
  g_autoptr(SimReport) report = NULL;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  guint n_added = 0;

  g_free (sim_test_write_file (docs, "hospital.txt",
                               "A grant from the International Union Against Tuberculosis paid for the new wing. "
                               "The architect chose red brick and tall windows to let in the sun.\n", -1));
  report = sim_test_check_folder (store, docs, article, &options, &n_added);
  assert_int_equal (n_added, 1);
  assert_non_null (report);
  /* The name is found in the source, but a name is not copied text. */
  assert_true (sim_report_get_n_segments (report) >= 1);
  assert_true (sim_report_get_segment (report, 0)->n_matches >= 1);
  for (guint i = 0; i < sim_report_get_n_segments (report); i++)
    assert_int_equal (sim_report_get_segment (report, i)->level, SIM_LEVEL_LOW);
  assert_int_equal (sim_report_get_n_passages (report), 0);
  sim_test_remove_tree (dir);
}

static void
test_check_splits_a_copy_run_into_own_words (void **state)
{
  Fixture *f = *state;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  /* The full stop was edited away: the copy and the writer's words form one sentence. */
  const char *text = "Ships passing the northern reef relied on his lamp to find the safe channel; "
                     "my grandmother however always said that nobody in our village trusted that lamp.";
  g_autoptr(SimReport) report = check (f, text, &options);
  const SimReportSegment *copy = find_segment (report, "Ships passing");
  g_autofree char *flagged = sim_test_span_text (text, copy->start, copy->end);

  assert_int_equal (copy->level, SIM_LEVEL_HIGH);
  assert_true (g_str_has_prefix (flagged, "Ships passing the northern reef relied on his lamp to find the safe channel"));
  assert_null (strstr (flagged, "grandmother"));
  assert_int_equal (find_segment (report, "my grandmother")->level, SIM_LEVEL_LOW);
}

/* @article checked against a corpus of one document, @source, in a store
 * of its own. */
static SimReport *
check_against (const char *source,
               const char *article)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *docs = g_build_filename (dir, "docs", NULL);
  g_autofree char *store = g_build_filename (dir, "store.db", NULL);
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  guint n_added = 0;
  SimReport *report;

  g_free (sim_test_write_file (docs, "source.txt", source, -1));
  report = sim_test_check_folder (store, docs, article, &options, &n_added);
  sim_test_remove_tree (dir);
  assert_int_equal (n_added, 1);
  assert_non_null (report);
  return report;
}

/* Latin letters swapped for Cyrillic and Greek look-alikes, and zero-width
 * spaces inside words, hide nothing: the disguised copy scores as the
 * plain one, and the report says what was done. */
static void
test_check_sees_through_lookalike_letters (void **state)
{
  const char *source = "The harbour was rebuilt after the storm of the previous winter. "
                       "Fishing boats now moor along a concrete pier that replaced the old wooden jetty. "
                       "Local people complain that the new pier spoils the view across the bay.\n";
  const char *swap[][2] = { { "a", "а" }, { "e", "е" }, { "o", "о" }, { "c", "с" }, { "p", "р" }, { "T", "Т" } };
  g_autofree char *disguised = g_strdup (source);
  g_autoptr(SimReport) plain = check_against (source, source);
  g_autoptr(SimReport) report = NULL;
  g_autoptr(SimReport) hidden = NULL;
  g_autofree char *zw = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (swap); i++)
    {
      g_auto(GStrv) parts = g_strsplit (disguised, swap[i][0], -1);

      g_free (disguised);
      disguised = g_strjoinv (swap[i][1], parts);
    }
  report = check_against (source, disguised);
  assert_true (sim_report_get_similarity (plain) > 0.95f);
  assert_float_equal (sim_report_get_similarity (report), sim_report_get_similarity (plain), 0.001);
  assert_int_equal (sim_report_get_n_suspicious (plain), 0);
  assert_int_equal (sim_report_get_n_suspicious (report), 1);
  assert_int_equal (sim_report_get_suspicious (report, 0)->kind, SIM_SUSPICIOUS_LOOKALIKE);
  assert_true (sim_report_get_suspicious (report, 0)->count > 60);
  {
    g_autofree char *json = sim_test_report_json (report, FALSE);

    assert_non_null (strstr (json, "\"suspicious\":[{\"kind\":\"look-alike-characters\",\"count\":"));
  }

  /* A zero-width space after every third letter. */
  {
    GString *s = g_string_new (NULL);
    guint n = 0;

    for (const char *p = source; *p; p++)
      {
        g_string_append_c (s, *p);
        if (g_ascii_isalpha (p[0]) && g_ascii_isalpha (p[1]) && ++n % 3 == 0)
          g_string_append (s, "\u200b");
      }
    zw = g_string_free (s, FALSE);
  }
  hidden = check_against (source, zw);
  assert_float_equal (sim_report_get_similarity (hidden), sim_report_get_similarity (plain), 0.001);
  assert_int_equal (sim_report_get_n_suspicious (hidden), 1);
  assert_int_equal (sim_report_get_suspicious (hidden, 0)->kind, SIM_SUSPICIOUS_INVISIBLE);
}

/* A sentence copied whole is a copy even when it is short; the same words
 * with more of the writer's own around them are a phrase. */
static void
test_check_flags_a_short_sentence_copied_whole (void **state)
{
  const char *source = "新闻摘要\n\n今天的天气很好，大家都去公园散步。\n中东没有战争。\n市场上的蔬菜价格有所下降。\n";
  const char *whole = "我昨天读了一本很有意思的小说。中东没有战争。后来我们一起去吃了晚饭。";
  const char *phrase = "我昨天读了一本很有意思的小说。中东没有战争与和平。后来我们一起去吃了晚饭。";
  {
    g_autoptr(SimReport) report = check_against (source, whole);
    const SimReportSegment *copy = find_segment (report, "中东没有战争");
    g_autofree char *flagged = sim_test_span_text (whole, copy->start, copy->end);

    assert_true (copy->level >= SIM_LEVEL_MEDIUM);
    assert_string_equal (flagged, "中东没有战争。");
    assert_int_equal (find_segment (report, "我昨天")->level, SIM_LEVEL_LOW);
  }
  {
    g_autoptr(SimReport) report = check_against (source, phrase);
    const SimReportSegment *seg = find_segment (report, "中东没有战争");

    /* Found, and as similar as a medium match, but too little is shared. */
    assert_true (seg->n_matches >= 1);
    assert_true (sim_report_get_match (report, seg->first_match)->similarity >= SIM_CHECK_DEFAULT_MEDIUM);
    assert_int_equal (seg->level, SIM_LEVEL_LOW);
  }
}

/* A short sentence of a source run into the writer's own (the punctuation
 * between them gone) is split off and flagged; the same words inside a
 * longer sentence of the source are not a sentence of it. */
static void
test_check_splits_off_a_whole_source_sentence_run_on (void **state)
{
  const char *article = "Some old tools still help.\n\n"
                        "convert origin codes from FORTRAN 77 to C/C++: f2c(1) Arsenal's captain had earlier "
                        "denied every accusation that he threatened the referee before the defeat.";
  {
    g_autoptr(SimReport) report = check_against ("Compilers\n\nconvert source codes from FORTRAN 77 to C/C++: f2c(1)\n\n"
                                                 "show the manual pages of installed packages: man(1)\n", article);
    const SimReportSegment *copy = find_segment (report, "convert origin");
    g_autofree char *flagged = sim_test_span_text (article, copy->start, copy->end);

    assert_true (copy->level >= SIM_LEVEL_MEDIUM);
    assert_null (strstr (flagged, "Arsenal"));
    assert_int_equal (find_segment (report, "Arsenal")->level, SIM_LEVEL_LOW);
  }
  {
    g_autoptr(SimReport) report = check_against ("Back then we would convert source codes from FORTRAN 77 to C/C++: f2c(1) "
                                                 "did it overnight while the office slept.\n", article);
    const SimReportSegment *seg = find_segment (report, "convert origin");

    assert_true (seg->n_matches >= 1);
    assert_int_equal (seg->level, SIM_LEVEL_LOW);
    assert_true (seg->end - seg->start > 100);
  }
}

/* One sentence pair whose words are nearly all the same is a passage
 * alone, though its letters are too different for the sentence
 * comparison; a pair that shares fewer of its words is not. */
static void
test_check_flags_one_sentence_pair_with_the_same_words (void **state)
{
  const char *source = "A child rides a red bicycle down the street.\n"
                       "a black and white cow in hay.\n"
                       "Two dogs run across a snowy field.\n";
  {
    g_autoptr(SimReport) report = check_against (source, "We drove north for three hours. A black and white cow in "
                                                         "a pen with hay. The radio played old songs all the way.");

    assert_true (find_segment (report, "A black and white cow")->level >= SIM_LEVEL_MEDIUM);
    assert_int_equal (sim_report_get_n_passages (report), 1);
    assert_int_equal (find_segment (report, "We drove")->level, SIM_LEVEL_LOW);
  }
  {
    g_autoptr(SimReport) report = check_against (source, "We drove north for three hours. A black and white cow in "
                                                         "a pen with hay and two goats. The radio played old songs "
                                                         "all the way.");

    assert_int_equal (find_segment (report, "A black and white cow")->level, SIM_LEVEL_LOW);
    assert_int_equal (sim_report_get_n_passages (report), 0);
  }
}

/* A sentence reworded throughout shares no window with its source (no run
 * of 40 letters) and so no source is proposed for it: its sentence keys
 * (pairs of its rarest words) find the stored sentence, and the aligner
 * judges the pair as any other. A sentence that shares the rare words
 * alone is proposed too, and not flagged. */
static void
test_check_finds_a_sentence_reworded_past_every_window (void **state)
{
  const char *source = "The hearing was adjourned until the end of next week.\n"
                       "The council's treasurer, Maria Lopez, declined to comment.\n"
                       "Prosecutors said they would appeal the ruling at once.\n";
  {
    g_autoptr(SimReport) report = check_against (source, "We drove north for three hours. Maria Lopez, the treasurer "
                                                         "of the council, declined to comment. The radio played old "
                                                         "songs all the way.");
    const SimReportSegment *seg = find_segment (report, "Maria Lopez");
    g_autofree char *name = NULL;
    const SimMatch *m;

    assert_true (seg->level >= SIM_LEVEL_MEDIUM);
    name = g_path_get_basename (best_source (report, seg)->path);
    assert_string_equal (name, "source.txt");
    m = sim_report_get_match (report, seg->first_match);
    assert_true (g_str_has_prefix (m->excerpt, "The council's treasurer"));
    assert_int_equal (find_segment (report, "We drove")->level, SIM_LEVEL_LOW);
    assert_int_equal (find_segment (report, "The radio")->level, SIM_LEVEL_LOW);
  }
  {
    g_autoptr(SimReport) report = check_against (source, "We drove north for three hours. Maria Lopez and the "
                                                         "treasurer bought a boat for the summer. The radio played old "
                                                         "songs all the way.");

    assert_int_equal (find_segment (report, "Maria Lopez and")->level, SIM_LEVEL_LOW);
    assert_int_equal (sim_report_get_n_passages (report), 0);
  }
}

/* Issue 30: a source's sentence said over again in the article's own
 * words, in two places apart, is a stock phrase of the subject, not a
 * copy: a copy takes a stretch of its source once. Said once, it is
 * flagged. */
static void
test_check_leaves_a_stock_phrase_said_twice (void **state)
{
  const char *source = "The hearing was adjourned until the end of next week.\n"
                       "The council's treasurer, Maria Lopez, declined to comment.\n"
                       "Prosecutors said they would appeal the ruling at once.\n";
  const char *once = "We drove north for three hours. Even then the council's treasurer, Maria Lopez, refused "
                     "to comment. The radio played old songs all the way. We stopped for lunch at a small farm. "
                     "The soup there was thick and the bread was warm.";
  g_autofree char *twice = g_strconcat (once, " Later that evening the council's treasurer, Maria Lopez, "
                                        "again declined to say anything.", NULL);
  g_autoptr(SimReport) said_once = check_against (source, once);
  g_autoptr(SimReport) said_twice = check_against (source, twice);

  assert_int_equal (find_segment (said_once, "Even then")->level, SIM_LEVEL_MEDIUM);
  assert_int_equal (find_segment (said_twice, "Even then")->level, SIM_LEVEL_LOW);
  assert_int_equal (find_segment (said_twice, "Later that evening")->level, SIM_LEVEL_LOW);
  assert_int_equal (sim_report_get_n_passages (said_twice), 0);
  /* Said twice, the later match ending where the earlier one does or
   * after it: the two still meet, and nothing past them is read. */
  {
    g_autofree char *again = g_strconcat (once, " Later on the council's treasurer, Maria Lopez, still "
                                          "refused to comment.", NULL);
    g_autoptr(SimReport) said_again = check_against (source, again);

    assert_int_equal (find_segment (said_again, "Even then")->level, SIM_LEVEL_LOW);
    assert_int_equal (find_segment (said_again, "Later on")->level, SIM_LEVEL_LOW);
    assert_int_equal (sim_report_get_n_passages (said_again), 0);
  }
}

/* Issue 30: a passage's level is that of its similarity in a check as in
 * compare. Two sentences echoing a source's two in order, a third of
 * their words shared, align as a passage too weak for a level: compare
 * reports none, and a check no longer raises the sentences it covers to
 * medium (it did: a passage was at least medium in a check). */
static void
test_check_and_compare_level_a_passage_alike (void **state)
{
  const char *source = "Our harbour town was founded by fishermen in the twelfth century. "
                       "The river flooded the old market in the spring. The mayor ordered the bridge closed. "
                       "Merchants moved their stalls to the church steps for a month. "
                       "The cathedral choir still sings every Sunday morning.";
  const char *article = "I spent last summer with my aunt in the countryside. "
                        "The river flooded the old farm road in the spring, my aunt recalls, twice. "
                        "The mayor ordered the narrow bridge closed while tractors waited beside hedges. "
                        "We picked apples and made jam in her kitchen every afternoon.";
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autoptr(SimReport) compared = sim_compare_run (article, -1, "article", source, -1, "source", &options,
                                                   SIM_NORMALIZE_DEFAULT, NULL, NULL);
  g_autoptr(SimReport) checked = check_against (source, article);

  assert_non_null (compared);
  assert_int_equal (sim_report_get_n_passages (compared), 0);
  assert_int_equal (find_segment (checked, "The mayor ordered")->level, SIM_LEVEL_LOW);
}

/* Words for made-up sentences. */
static const char *const words[] = {
  "river", "stone", "bridge", "council", "market", "winter", "harvest", "engine", "garden", "window",
  "letter", "doctor", "school", "teacher", "summer", "village", "mountain", "forest", "station", "ticket",
  "museum", "painter", "kitchen", "bakery", "harbor", "sailor", "lantern", "castle", "meadow", "valley",
};

/* A source that repeats itself (an archive of the same pages, a collected
 * edition: its first tenth ten times): an article copying a part of it is
 * found, one passage against one of the copies, with the copied words
 * between its ends. Seeding looks at one of each set of identical
 * sentences; the time is the benchmark's business. */
static void
test_check_finds_a_copy_in_a_source_that_repeats_itself (void **state)
{
  GString *tenth = g_string_new (NULL), *source = g_string_new (NULL);
  g_autofree char *copied = NULL, *article = NULL;
  g_autoptr(SimReport) report = NULL;
  guint seed = 7;

  for (guint s = 0; s < 40; s++)
    {
      for (guint w = 0; w < 12; w++)
        {
          seed = seed * 1103515245 + 12345;
          g_string_append_printf (tenth, "%s%s", w ? " " : (s ? " " : ""), words[(seed >> 8) % G_N_ELEMENTS (words)]);
        }
      g_string_append_printf (tenth, " number %u.", s);
    }
  for (guint r = 0; r < 10; r++)
    g_string_append_printf (source, "%s\n\n", tenth->str);
  /* Sentences 10 to 19 of the tenth. */
  {
    const char *from = strstr (tenth->str, " number 9.") + strlen (" number 9. ");
    const char *to = strstr (tenth->str, " number 19.") + strlen (" number 19.");

    copied = g_strndup (from, to - from);
  }
  article = g_strdup_printf ("My own opening sentence says nothing of any of this at all. %s "
                             "And my own closing sentence is different again.", copied);
  report = check_against (source->str, article);
  assert_true (sim_report_get_n_passages (report) >= 1);
  {
    const SimPassage *p = sim_report_get_passage (report, 0);
    g_autofree char *flagged = sim_test_span_text (article, p->start, p->end);

    assert_int_equal (sim_report_get_n_passages (report), 1);
    assert_non_null (strstr (flagged, "number 10."));
    assert_non_null (strstr (flagged, "number 19."));
    assert_null (strstr (flagged, "opening"));
    assert_null (strstr (flagged, "closing"));
    assert_true (p->similarity > 0.95f);
  }
  g_string_free (tenth, TRUE);
  g_string_free (source, TRUE);
}

/* A text copied in many documents alike (a form, a text passed around)
 * gives its passage against the few sources its segments name, not
 * against every copy (it was 29 of 80 here, then 6, 3 and a run of segments now; and such copies
 * crowded the sources of the rest of an article out of the alignment). */
static void
test_check_aligns_a_text_copied_in_many_documents_with_a_few (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *docs = g_build_filename (dir, "docs", NULL);
  g_autofree char *store = g_build_filename (dir, "store.db", NULL);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);
  g_autoptr(SimReport) report = NULL;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  guint n_added = 0, n_whole = 0;

  for (guint i = 0; i < 12; i++)
    {
      for (guint w = 0; w < 12; w++)
        g_string_append_printf (text, w ? " %s" : "%s", words[g_rand_int_range (rand, 0, G_N_ELEMENTS (words))]);
      g_string_append (text, ". ");
    }
  for (guint i = 0; i < 80; i++)
    {
      g_autofree char *name = g_strdup_printf ("copy-%02u.txt", i);
      g_autofree char *body = g_strdup_printf ("Record %u\n\n%s\n", i, text->str);

      g_free (sim_test_write_file (docs, name, body, -1));
    }
  report = sim_test_check_folder (store, docs, text->str, &options, &n_added);
  assert_int_equal (n_added, 80);
  assert_non_null (report);
  for (guint i = 0; i < sim_report_get_n_segments (report); i++)
    assert_int_equal (sim_report_get_segment (report, i)->level, SIM_LEVEL_HIGH);
  /* The whole text is one passage, aligned with as many sources as a
   * segment names (three of the 80); a run of segments whose best match
   * is another copy may add a shorter one. */
  for (guint i = 0; i < sim_report_get_n_passages (report); i++)
    {
      const SimPassage *p = sim_report_get_passage (report, i);

      assert_int_equal (p->start, 0);
      n_whole += p->end + 2 >= (guint32) g_utf8_strlen (text->str, -1);
    }
  assert_int_equal (n_whole, 3);
  assert_true (sim_report_get_n_passages (report) <= 6);
  sim_test_remove_tree (dir);
}

/* A paragraph whose sentences are each copied word for word in three
 * documents of 36 (each document the paragraph with a word in four
 * replaced but in one sentence) names 36 sources, more than a wave of
 * alignments: the whole paragraph comes out against three of them at most
 * (runs of sentences against the others), and the sentence pair of a 37th
 * document, aligned last, still comes out. */
static void
test_check_aligns_past_a_paragraph_found_in_many_documents (void **state)
{
  /* Only its alignment flags it (test_check_flags_one_sentence_pair_with_the_same_words). */
  const char *last = "A black and white cow in a pen with hay.";
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *docs = g_build_filename (dir, "docs", NULL);
  g_autofree char *store = g_build_filename (dir, "store.db", NULL);
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);
  g_autoptr(SimReport) report = NULL;
  g_autoptr(GString) article = g_string_new (NULL);
  char *sentences[12];
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  const SimReportSegment *seg;
  guint n_added = 0, n_whole = 0, n_last = 0;
  glong paragraph_end;

  for (guint i = 0; i < G_N_ELEMENTS (sentences); i++)
    {
      GString *sentence = g_string_new (NULL);

      for (guint w = 0; w < 12; w++)
        g_string_append_printf (sentence, w ? " %s" : "%s", words[g_rand_int_range (rand, 0, G_N_ELEMENTS (words))]);
      g_string_append (sentence, ".");
      sentence->str[0] = g_ascii_toupper (sentence->str[0]);
      sentences[i] = g_string_free (sentence, FALSE);
      g_string_append_printf (article, "%s ", sentences[i]);
    }
  paragraph_end = g_utf8_strlen (article->str, -1) - 1;
  g_string_append_printf (article, "\n\n%s\n", last);
  for (guint d = 0; d < 36; d++)
    {
      g_autoptr(GString) body = g_string_new ("Notes\n\n");
      g_autofree char *name = g_strdup_printf ("copy-%02u.txt", d);

      for (guint i = 0; i < G_N_ELEMENTS (sentences); i++)
        {
          g_auto(GStrv) w = g_strsplit (sentences[i], " ", -1);

          /* Every fourth word another, but in the document's own sentence. */
          for (guint k = 0; w[k] != NULL; k++)
            g_string_append_printf (body, "%s ", i != d % 12 && k % 4 == 1
                                                   ? words[(i * 7 + d + k) % G_N_ELEMENTS (words)] : w[k]);
        }
      g_free (sim_test_write_file (docs, name, body->str, -1));
    }
  g_free (sim_test_write_file (docs, "farm.txt", "A child rides a red bicycle down the street.\n"
                                                "a black and white cow in hay.\n"
                                                "Two dogs run across a snowy field.\n", -1));
  report = sim_test_check_folder (store, docs, article->str, &options, &n_added);
  assert_int_equal (n_added, 37);
  assert_non_null (report);
  for (guint i = 0; i < sim_report_get_n_passages (report); i++)
    {
      const SimPassage *p = sim_report_get_passage (report, i);
      g_autofree char *name = g_path_get_basename (sim_report_get_source (report, p->source)->path);

      if ((glong) p->end <= paragraph_end + 1)
        n_whole += p->start == 0 && (glong) p->end + 2 >= paragraph_end;
      else
        {
          assert_string_equal (name, "farm.txt");
          n_last++;
        }
    }
  assert_true (n_whole >= 1);
  assert_true (n_whole <= 3);
  assert_int_equal (n_last, 1);
  seg = find_segment (report, "A black and white cow");
  assert_true (seg->level >= SIM_LEVEL_MEDIUM);
  for (guint i = 0; i < G_N_ELEMENTS (sentences); i++)
    g_free (sentences[i]);
  sim_test_remove_tree (dir);
}

/* A segment is verified first against the few candidates with most of its
 * windows; when none of them is a near copy, against the rest. Here four
 * documents share the first two thirds of the sentence word for word
 * (more windows) and one the whole of it but three words (fewer windows,
 * but the better match). */
static void
test_check_finds_a_better_source_with_fewer_windows (void **state)
{
  const char *sentence = "The committee decided after a long debate that the old river bridge would be "
                         "repaired before winter, and that the new ferry would wait another year.";
  const char *edited = "The committee agreed after a long debate that the stone river bridge would be "
                       "repaired before winter, and that the new tunnel would wait another year.";
  const char *own[] = { "the mayor left the meeting early.", "nobody asked about the budget at all.",
                        "a reporter wrote down every word.", "the lights went out twice that night." };
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *docs = g_build_filename (dir, "docs", NULL);
  g_autofree char *store = g_build_filename (dir, "store.db", NULL);
  g_autofree char *prefix = g_strndup (sentence, strstr (sentence, "and that") - sentence);
  g_autoptr(SimReport) report = NULL;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  const SimReportSegment *seg;
  g_autofree char *name = NULL;
  guint n_added = 0;

  for (guint i = 0; i < G_N_ELEMENTS (own); i++)
    {
      g_autofree char *name = g_strdup_printf ("partial-%u.txt", i);
      g_autofree char *body = g_strdup_printf ("Minutes %u\n\n%s%s\n", i, prefix, own[i]);

      g_free (sim_test_write_file (docs, name, body, -1));
    }
  g_free (sim_test_write_file (docs, "whole.txt", edited, -1));
  report = sim_test_check_folder (store, docs, sentence, &options, &n_added);
  assert_int_equal (n_added, G_N_ELEMENTS (own) + 1);
  assert_non_null (report);
  seg = find_segment (report, "The committee");
  assert_int_equal (seg->level, SIM_LEVEL_HIGH);
  name = g_path_get_basename (best_source (report, seg)->path);
  assert_string_equal (name, "whole.txt");
  sim_test_remove_tree (dir);
}

static void
test_check_window_mode_finds_copies_however_windows_fall (void **state)
{
  Fixture *f = *state;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;

  options.mode = SIM_SEGMENT_WINDOW;
  options.window = SIM_SEGMENT_PAPER_WINDOW;
  for (guint shift = 0; shift < 6; shift++)
    {
      g_autofree char *prefix = g_strnfill (shift + 1, 'x');
      g_autofree char *text = g_strconcat (prefix, " 我的开头。", ZH_2, ZH_3, NULL);
      g_autoptr(SimReport) report = check (f, text, &options);
      guint n_high = 0;

      for (guint i = 0; i < sim_report_get_n_segments (report); i++)
        {
          const SimReportSegment *seg = sim_report_get_segment (report, i);

          if (seg->level == SIM_LEVEL_HIGH)
            {
              n_high++;
              assert_string_equal (best_source (report, seg)->path, f->zh_path);
            }
        }
      /* 53 copied characters make at least three 13-character windows. */
      assert_true (n_high >= 3);
    }
}

/* Thirteen letters are two words: windows take the verdict of the copy they
 * lie in, so small windows still work for English. */
static void
test_check_window_mode_works_for_english_papers (void **state)
{
  Fixture *f = *state;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autoptr(SimReport) report = NULL;
  const char *text = OWN_1 " " EN_3 " " EN_4;
  const guint32 copy_start = g_utf8_strlen (OWN_1 " ", -1);
  guint n_high = 0, n_flagged_own = 0;

  options.mode = SIM_SEGMENT_WINDOW;
  options.window = SIM_SEGMENT_PAPER_WINDOW;
  report = check (f, text, &options);
  assert_string_equal (sim_report_get_settings (report)->mode, "window");
  for (guint i = 0; i < sim_report_get_n_segments (report); i++)
    {
      const SimReportSegment *seg = sim_report_get_segment (report, i);

      if (seg->end <= copy_start && seg->level != SIM_LEVEL_LOW)
        n_flagged_own++;
      if (seg->start >= copy_start && seg->level == SIM_LEVEL_HIGH)
        {
          const SimMatch *m = sim_report_get_match (report, seg->first_match);

          n_high++;
          assert_string_equal (best_source (report, seg)->path, f->en_path);
          assert_true (m->start < m->end);
        }
    }
  assert_int_equal (n_flagged_own, 0);
  assert_true (n_high >= 8); /* 150 copied letters in windows of 13 */
}

static void
test_check_fast_keeps_one_source_precise_keeps_the_best (void **state)
{
  Fixture *f = *state;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autoptr(SimReport) precise = NULL;
  g_autoptr(SimReport) fast = NULL;
  const SimReportSegment *seg;

  /* EN_2 is in two documents. */
  precise = check (f, OWN_1 " " EN_2, &options);
  seg = find_segment (precise, "He trimmed");
  assert_int_equal (seg->n_matches, 2);
  assert_int_equal (seg->level, SIM_LEVEL_HIGH);

  options.fast = TRUE;
  fast = check (f, OWN_1 " " EN_2, &options);
  seg = find_segment (fast, "He trimmed");
  assert_int_equal (seg->n_matches, 1);
  assert_int_equal (seg->level, SIM_LEVEL_HIGH);
}

/* A document sharing a few words with a copied sentence is not confirmed
 * beside its source: its region has under half the source's votes. */
static void
test_check_verifies_only_regions_with_half_the_best_votes (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *docs = g_build_filename (dir, "docs", NULL);
  g_autofree char *store = g_build_filename (dir, "store.db", NULL);
  const char *copied = "The harbour master counted every fishing boat that came through the narrow channel "
                       "before the evening storm closed the old northern gate for the whole long winter.";
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autoptr(SimReport) report = NULL;
  const SimReportSegment *seg;
  guint n_added = 0;

  g_free (sim_test_write_file (docs, "source.txt", copied, -1));
  g_free (sim_test_write_file (docs, "echo.txt",
                               "Our village painted every fishing boat that came through the narrow channel "
                               "green, because a law said so.", -1));
  report = sim_test_check_folder (store, docs, copied, &options, &n_added);
  assert_non_null (report);
  assert_int_equal (n_added, 2);
  assert_int_equal (sim_report_get_n_segments (report), 1);
  seg = sim_report_get_segment (report, 0);
  assert_int_equal (seg->level, SIM_LEVEL_HIGH);
  assert_int_equal (seg->n_matches, 1);
  assert_non_null (strstr (sim_report_get_source (report, sim_report_get_match (report, seg->first_match)->source)->path,
                           "source.txt"));
  sim_test_remove_tree (dir);
}

/* A sentence that runs a short copy into a long one from far away in the
 * same source: the long copy's region is what the source cache loads, the
 * short one is found when the sentence is split, and is compared with the
 * source where it really is, however far from what was loaded. */
static void
test_check_verifies_a_split_part_anywhere_in_its_source (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *docs = g_build_filename (dir, "docs", NULL);
  g_autofree char *store = g_build_filename (dir, "store.db", NULL);
  const char *near = "the ferryman carried salt across the brown river every spring";
  const char *far = "The harbour master counted every fishing boat that came through the narrow channel "
                    "before the evening storm closed the old northern gate for the whole long winter";
  g_autoptr(GString) source = g_string_new (NULL);
  g_autofree char *text = g_strdup_printf ("%s, and %s.", far, near);
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autoptr(SimReport) report = NULL;
  const SimReportSegment *seg;
  const SimMatch *m;
  guint n_added = 0;

  /* The short copy first, then 8,000 characters of other text, then the long one. */
  g_string_append_printf (source, "In the old days %s, as the songs say.\n\n", near);
  for (guint i = 0; source->len < 8000; i++)
    g_string_append_printf (source, "Paragraph %u tells of weather, of rope number %u and of gulls over roof %u.\n\n",
                            i, 3 * i + 1, 7 * i + 2);
  g_string_append_printf (source, "%s.\n", far);
  g_free (sim_test_write_file (docs, "source.txt", source->str, -1));
  report = sim_test_check_folder (store, docs, text, &options, &n_added);
  assert_non_null (report);
  assert_int_equal (n_added, 1);
  seg = find_segment (report, "and the ferryman");
  assert_int_equal (seg->level, SIM_LEVEL_HIGH);
  m = sim_report_get_match (report, seg->first_match);
  /* Matched where the short copy is, at the start of the source. */
  assert_true (m->start < 100);
  assert_int_equal (find_segment (report, "The harbour")->level, SIM_LEVEL_HIGH);
  sim_test_remove_tree (dir);
}

static void
test_check_rejects_empty_text_and_bad_options (void **state)
{
  Fixture *f = *state;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autoptr(GError) error = NULL;

  assert_null (sim_check_run (f->snapshot, " \n。，… ", -1, &options, NULL, NULL, NULL, &error));
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_EMPTY));
  g_clear_error (&error);

  /* A text of one letter: a segment without a feature to verify (UBSan
   * once stopped here, on memset of an empty array). */
  {
    g_autoptr(SimReport) one = sim_check_run (f->snapshot, "a", -1, &options, NULL, NULL, NULL, &error);

    assert_non_null (one);
    assert_int_equal (sim_test_count_level (one, SIM_LEVEL_HIGH) + sim_test_count_level (one, SIM_LEVEL_MEDIUM), 0);
  }

  options.high_threshold = 0.3f;
  options.medium_threshold = 0.5f;
  assert_null (sim_check_run (f->snapshot, EN_1, -1, &options, NULL, NULL, NULL, &error));
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT));
}

static void
test_check_handles_broken_utf8_and_huge_pastes (void **state)
{
  Fixture *f = *state;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autoptr(GString) huge = g_string_new (NULL);
  g_autoptr(SimReport) broken = NULL;
  g_autoptr(SimReport) big = NULL;

  broken = check (f, "\xff\xfe " EN_3, &options);
  assert_int_equal (find_segment (broken, "\xef\xbf\xbd")->level, SIM_LEVEL_HIGH);

  while (huge->len < (2 << 20))
    g_string_append (huge, OWN_1 " " OWN_2 " ");
  g_string_append (huge, EN_4);
  big = check (f, huge->str, &options);
  assert_int_equal (find_segment (big, "In forty years")->level, SIM_LEVEL_HIGH);
}

static void
cancel_at_once (guint64     done,
                guint64     total,
                const char *what,
                gpointer    user_data)
{
  g_cancellable_cancel (user_data);
}

static void
test_check_cancels (void **state)
{
  Fixture *f = *state;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GError) error = NULL;

  while (text->len < (1 << 20))
    g_string_append (text, EN_1 " " OWN_1 " ");
  assert_null (sim_check_run (f->snapshot, text->str, -1, &options, cancel_at_once, cancellable,
                              cancellable, &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
}

typedef struct {
  GMainLoop *loop;
  SimReport *report;
  guint      n_progress;
  GThread   *main_thread;
  GArray    *previews;
} AsyncState;

static void
on_async_preview (const SimCheckPreview *previews,
                  guint                  n,
                  gpointer               user_data)
{
  AsyncState *as = user_data;

  assert_true (g_thread_self () == as->main_thread);
  assert_null (as->report); /* never after the result */
  g_array_append_vals (as->previews, previews, n);
}

static void
on_async_progress (guint64     done,
                   guint64     total,
                   const char *what,
                   gpointer    user_data)
{
  AsyncState *as = user_data;

  assert_true (g_thread_self () == as->main_thread);
  assert_true (done <= total);
  as->n_progress++;
}

static void
on_async_done (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  AsyncState *as = user_data;
  g_autoptr(GError) error = NULL;

  as->report = sim_check_run_finish (result, &error);
  assert_null (error);
  g_main_loop_quit (as->loop);
}

static void
test_check_async_reports_on_the_main_thread (void **state)
{
  Fixture *f = *state;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(SimReport) sync = NULL;
  AsyncState as = { g_main_loop_new (NULL, FALSE), NULL, 0, g_thread_self (),
                    g_array_new (FALSE, FALSE, sizeof (SimCheckPreview)) };

  for (int i = 0; i < 3000; i++)
    g_string_append (text, i % 100 == 0 ? EN_3 " " : OWN_1 " ");
  sim_check_run_async (f->snapshot, text->str, -1, &options, on_async_progress, on_async_preview, &as,
                       NULL, on_async_done, &as);
  g_main_loop_run (as.loop);
  assert_non_null (as.report);
  sync = check (f, text->str, &options);
  assert_int_equal (sim_report_get_n_segments (as.report), sim_report_get_n_segments (sync));
  assert_int_equal (sim_test_count_level (as.report, SIM_LEVEL_HIGH), 30);
  assert_float_equal (sim_report_get_similarity (as.report), sim_report_get_similarity (sync), 1e-6);
  /* Results arrived as they were verified: every copied sentence, each a
   * segment of the final report. */
  assert_int_equal (as.previews->len, 30);
  for (guint i = 0; i < as.previews->len; i++)
    {
      const SimCheckPreview *p = &g_array_index (as.previews, SimCheckPreview, i);
      gint index = sim_report_find_segment (as.report, p->start);

      assert_true (index >= 0);
      assert_int_equal (sim_report_get_segment (as.report, index)->end, p->end);
      assert_int_equal (p->level, SIM_LEVEL_HIGH);
    }
  g_array_unref (as.previews);
  sim_report_unref (as.report);
  g_main_loop_unref (as.loop);
}

static void
test_report_json_follows_the_schema (void **state)
{
  Fixture *f = *state;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  const char *text = OWN_2 EN_3;
  g_autoptr(SimReport) report = check (f, text, &options);
  g_autofree char *json = sim_test_report_json (report, TRUE);
  g_autoptr(JsonParser) parser = json_parser_new ();
  g_autoptr(GError) error = NULL;
  JsonObject *root, *seg, *match;
  JsonArray *segments;

  assert_true (json_parser_load_from_data (parser, json, -1, &error));
  root = json_node_get_object (json_parser_get_root (parser));
  assert_true (json_object_has_member (root, "settings"));
  assert_string_equal (json_object_get_string_member (json_object_get_object_member (root, "settings"), "mode"),
                       "sentence");
  assert_int_equal (json_object_get_int_member (json_object_get_object_member (root, "corpus"), "documents"), 4);
  assert_true (json_object_has_member (root, "passages"));
  assert_true (json_object_has_member (root, "sources"));
  segments = json_object_get_array_member (root, "segments");
  assert_int_equal (json_array_get_length (segments), 2);
  seg = json_array_get_object_element (segments, 1);
  /* Offsets are code points into the text as given. */
  assert_int_equal (json_object_get_int_member (seg, "start"), g_utf8_strlen (OWN_2, -1));
  assert_int_equal (json_object_get_int_member (seg, "end"), g_utf8_strlen (text, -1));
  assert_string_equal (json_object_get_string_member (seg, "level"), "high");
  match = json_array_get_object_element (json_object_get_array_member (seg, "matches"), 0);
  assert_string_equal (json_object_get_string_member (match, "document"), f->en_path);
  assert_true (json_object_get_double_member (match, "similarity") > 0.95);
  assert_int_equal (json_object_get_int_member (match, "distance"), 0);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_check_finds_copied_and_edited_sentences, setup, teardown),
    cmocka_unit_test_setup_teardown (test_check_splits_a_copy_run_into_own_words, setup, teardown),
    cmocka_unit_test (test_check_sees_through_lookalike_letters),
    cmocka_unit_test (test_check_leaves_a_stock_phrase_said_twice),
    cmocka_unit_test (test_check_and_compare_level_a_passage_alike),
    cmocka_unit_test (test_check_finds_a_copy_in_a_source_that_repeats_itself),
    cmocka_unit_test (test_check_flags_a_short_sentence_copied_whole),
    cmocka_unit_test (test_check_splits_off_a_whole_source_sentence_run_on),
    cmocka_unit_test (test_check_flags_one_sentence_pair_with_the_same_words),
    cmocka_unit_test (test_check_aligns_a_text_copied_in_many_documents_with_a_few),
    cmocka_unit_test (test_check_finds_a_better_source_with_fewer_windows),
    cmocka_unit_test (test_check_aligns_past_a_paragraph_found_in_many_documents),
    cmocka_unit_test_setup_teardown (test_check_reports_a_hard_wrapped_copy_as_one_passage, setup, teardown),
    cmocka_unit_test_setup_teardown (test_check_leaves_the_writers_own_sentence_between_copies, setup, teardown),
    cmocka_unit_test (test_report_joins_neighbouring_passages_of_one_source),
    cmocka_unit_test (test_check_finds_copies_anywhere_in_a_long_source),
    cmocka_unit_test (test_check_does_not_flag_a_shared_name),
    cmocka_unit_test_setup_teardown (test_check_window_mode_finds_copies_however_windows_fall, setup, teardown),
    cmocka_unit_test_setup_teardown (test_check_window_mode_works_for_english_papers, setup, teardown),
    cmocka_unit_test_setup_teardown (test_check_fast_keeps_one_source_precise_keeps_the_best, setup, teardown),
    cmocka_unit_test (test_check_verifies_only_regions_with_half_the_best_votes),
    cmocka_unit_test (test_check_verifies_a_split_part_anywhere_in_its_source),
    cmocka_unit_test_setup_teardown (test_check_finds_a_sentence_reworded_past_every_window, setup, teardown),
    cmocka_unit_test_setup_teardown (test_check_rejects_empty_text_and_bad_options, setup, teardown),
    cmocka_unit_test_setup_teardown (test_check_handles_broken_utf8_and_huge_pastes, setup, teardown),
    cmocka_unit_test_setup_teardown (test_check_cancels, setup, teardown),
    cmocka_unit_test_setup_teardown (test_check_async_reports_on_the_main_thread, setup, teardown),
    cmocka_unit_test_setup_teardown (test_report_json_follows_the_schema, setup, teardown),
  };

  return cmocka_run_group_tests_name ("check", tests, NULL, NULL);
}
