/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Sentence and window segmentation, Chinese and English.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>

#include "sim-segment.h"

/* Segments of @text as a "|"-joined list of their texts. */
static char *
split (const char     *text,
       SimSegmentMode  mode,
       guint           window)
{
  SimUnits units;
  g_autoptr(GArray) segs = g_array_new (FALSE, FALSE, sizeof (SimSegment));
  GString *out = g_string_new (NULL);

  sim_units_init (&units);
  sim_text_normalize (text, -1, 0, SIM_NORMALIZE_DEFAULT, &units);
  sim_segment_split (text, strlen (text), &units, mode, window, segs);
  for (guint i = 0; i < segs->len; i++)
    {
      const SimSegment *seg = &g_array_index (segs, SimSegment, i);
      const char *from = g_utf8_offset_to_pointer (text, seg->start);
      const char *to = g_utf8_offset_to_pointer (text, seg->end);

      /* Unit ranges agree with code-point ranges. */
      assert_true (seg->unit_start < seg->unit_end);
      assert_true (units.src_start[seg->unit_start] >= seg->start);
      assert_true (sim_units_get_end (&units, seg->unit_end - 1) <= seg->end);
      if (i > 0)
        g_string_append_c (out, '|');
      g_string_append_len (out, from, to - from);
    }
  sim_units_clear (&units);
  return g_string_free (out, FALSE);
}

static void
test_sentences_chinese_terminators (void **state)
{
  g_autofree char *s = split ("今天天气很好。我们去公园吧！你来吗？“好的。”他说；然后……走了", SIM_SEGMENT_SENTENCE, 0);

  assert_string_equal (s, "今天天气很好。|我们去公园吧！|你来吗？|“好的。”|他说；|然后……|走了");
}

static void
test_sentences_english_abbreviations_and_decimals (void **state)
{
  g_autofree char *s = split ("Dr. Smith paid 3.50 dollars at example.com, e.g. for tea. "
                              "It was J. R. R. Tolkien's! Was it? Yes... it was. The U.S. team won.",
                              SIM_SEGMENT_SENTENCE, 0);

  assert_string_equal (s, "Dr. Smith paid 3.50 dollars at example.com, e.g. for tea.|"
                          "It was J. R. R. Tolkien's!|Was it?|Yes... it was.|The U.S. team won.");
}

/* Text pasted from web pages runs sentences together without a space
 * ("adults.Our goal"): they are two sentences; a token with a dot inside
 * (a file name, a domain, an initialism, Mr.Smith) is not cut. */
static void
test_sentences_run_together_without_a_space (void **state)
{
  g_autofree char *s = split ("We teach adults.Our goal is to help. Mass notification for the community.REACH "
                              "responds fast. Open index.html or node.js at example.Com with Mr.Smith in the U.S.A. today.",
                              SIM_SEGMENT_SENTENCE, 0);

  assert_string_equal (s, "We teach adults.|Our goal is to help.|Mass notification for the community.|"
                          "REACH responds fast.|"
                          "Open index.html or node.js at example.Com with Mr.Smith in the U.S.A. today.");
}

static void
test_sentences_headings_paragraphs_and_wrapped_lines (void **state)
{
  g_autofree char *s = split ("Chapter One\n"
                              "This paragraph is wrapped by a text editor at a fixed width so\n"
                              "its lines end without punctuation and must stay one sentence\n"
                              "\n"
                              "New paragraph without a full stop\n"
                              "- a bullet item\n"
                              "- another item\n"
                              "15.2. 构建您的第一个软件包\n",
                              SIM_SEGMENT_SENTENCE, 0);

  assert_string_equal (s, "Chapter One|"
                          "This paragraph is wrapped by a text editor at a fixed width so\n"
                          "its lines end without punctuation and must stay one sentence|"
                          "New paragraph without a full stop|- a bullet item|- another item|"
                          "15.2. 构建您的第一个软件包");
}

static void
test_sentences_do_not_end_at_short_hard_wrapped_lines (void **state)
{
  /* Lines cut at random widths, as in the PAN corpus: short lines that go on
   * in lower case, or that continue a sentence begun on an earlier line,
   * do not end it. A title line still does. */
  g_autofree char *s = split ("Graduate Study\n"
                              "Students choose a field\n"
                              "of study.\n"
                              "Also, graduate\n"
                              "students with the pharaoh of ancient\n"
                              "Egypt and the famous\n"
                              "Cairo museum\n"
                              "work together.\n"
                              "我们今天一起去公园散步然后在湖边的小饭馆里\n"
                              "吃了午饭\n"
                              "才回家。\n",
                              SIM_SEGMENT_SENTENCE, 0);

  assert_string_equal (s, "Graduate Study|"
                          "Students choose a field\nof study.|"
                          "Also, graduate\nstudents with the pharaoh of ancient\nEgypt and the famous\n"
                          "Cairo museum\nwork together.|"
                          "我们今天一起去公园散步然后在湖边的小饭馆里\n吃了午饭\n才回家。");
}

static void
test_sentences_split_over_long_ones_at_a_clause (void **state)
{
  g_autoptr(GString) text = g_string_new (NULL);
  g_autofree char *s = NULL;
  g_auto(GStrv) parts = NULL;

  for (int i = 0; i < 40; i++)
    g_string_append (text, "这是一个很长的从句，");
  s = split (text->str, SIM_SEGMENT_SENTENCE, 0);
  parts = g_strsplit (s, "|", -1);
  assert_true (g_strv_length (parts) >= 2);
  for (guint i = 0; parts[i]; i++)
    {
      assert_true (g_utf8_strlen (parts[i], -1) <= SIM_SEGMENT_MAX_CHARS);
      assert_true (g_str_has_suffix (parts[i], "，") || parts[i + 1] == NULL);
    }
}

static void
test_windows_count_characters_and_keep_words_whole (void **state)
{
  g_autofree char *zh = split ("一二三四五六七八九十一二三四五六七八九十一二三", SIM_SEGMENT_WINDOW, 10);
  g_autofree char *en = split ("alpha beta gamma delta epsilon zeta", SIM_SEGMENT_WINDOW, 8);

  /* The last three characters are less than a third of a window: they join the last one. */
  assert_string_equal (zh, "一二三四五六七八九十|一二三四五六七八九十一二三");
  assert_string_equal (en, "alpha beta|gamma delta|epsilon zeta");
}

/* A window ends at a paragraph break (a blank line) and the next paragraph
 * starts a new one; a single line break is no paragraph. */
static void
test_windows_stop_at_paragraph_breaks (void **state)
{
  g_autofree char *en = split ("alpha beta gamma\n\ndelta epsilon zeta eta", SIM_SEGMENT_WINDOW, 12);
  g_autofree char *zh = split ("一二三四五六\n  \n七八九十一二三四五六", SIM_SEGMENT_WINDOW, 8);
  g_autofree char *line = split ("alpha beta\ngamma delta", SIM_SEGMENT_WINDOW, 40);

  assert_string_equal (en, "alpha beta gamma|delta epsilon|zeta eta");
  assert_string_equal (zh, "一二三四五六|七八九十一二三四五六");
  assert_string_equal (line, "alpha beta\ngamma delta");
}

static void
test_no_segments_without_content (void **state)
{
  g_autofree char *s = split (" \n ***** \n\n。。。 ", SIM_SEGMENT_SENTENCE, 0);

  assert_string_equal (s, "");
}

/* A long text of paragraphs, English and Chinese (traditional too),
 * headings, short and hard-wrapped lines, abbreviations, combining marks;
 * mostly apart by blank lines, some not; one of them longer than the
 * pieces sim_segment_prepare() cuts. */
static char *
long_text (void)
{
  static const char *const parts[] = {
    "Mr. Smith went to Washington", "the U.S. economy grew 3.5 percent", "It rained",
    "she said \u201cno\u201d", "caf\u00e9 na\u0308ive r\u00e9sum\u00e9", "see e.g. page 12",
    "\u4eca\u5929\u5929\u6c23\u5f88\u597d", "\u6211\u5011\u53bb\u516c\u5712\u6563\u6b65",
    "\u7d93\u6fdf\u767c\u5c55\u5f88\u5feb", "- a bullet item", "Chapter 3",
  };
  static const char *const ends[] = { ". ", "! ", "? ", "\u3002", "\uff01", ".\n", "\n", "; " };
  static const char *const breaks[] = { "\n\n", "\n\n", "\n\n\n", "\n \n", "\n" };
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  GString *s = g_string_new (NULL);

  while (s->len < (3u << 20))
    {
      const guint n = s->len > (1u << 20) && s->len < (1u << 20) + 4096 ? 20000 : g_rand_int_range (rand, 1, 12);

      for (guint i = 0; i < n; i++)
        {
          g_string_append (s, parts[g_rand_int_range (rand, 0, G_N_ELEMENTS (parts))]);
          g_string_append (s, ends[g_rand_int_range (rand, 0, G_N_ELEMENTS (ends))]);
        }
      g_string_append (s, breaks[g_rand_int_range (rand, 0, G_N_ELEMENTS (breaks))]);
    }
  return g_string_free (s, FALSE);
}

/* A long text prepared in pieces on every core has the units and segments
 * of the whole prepared at once, in either mode, folded or not. */
static void
test_prepare_in_pieces_is_the_whole (void **state)
{
  g_autofree char *text = long_text ();
  const gsize len = strlen (text);

  g_setenv ("SIMHOUND_THREADS", "4", TRUE);
  for (guint mode = 0; mode < 2; mode++)
    for (guint fold = 0; fold < 2; fold++)
      {
        const SimNormalizeFlags flags = fold ? SIM_NORMALIZE_FOLD_T2S : SIM_NORMALIZE_DEFAULT;
        SimUnits whole, pieces;
        g_autoptr(GArray) want = g_array_new (FALSE, FALSE, sizeof (SimSegment));
        g_autoptr(GArray) got = g_array_new (FALSE, FALSE, sizeof (SimSegment));

        sim_units_init (&whole);
        sim_units_init (&pieces);
        sim_text_normalize (text, len, 0, flags, &whole);
        sim_segment_split (text, len, &whole, mode, SIM_SEGMENT_DEFAULT_WINDOW, want);
        sim_segment_prepare (text, len, flags, mode, SIM_SEGMENT_DEFAULT_WINDOW, &pieces, got);
        assert_true (want->len > 1000);
        assert_int_equal (pieces.n, whole.n);
        assert_memory_equal (pieces.cps, whole.cps, whole.n * sizeof (guint32));
        assert_memory_equal (pieces.src_start, whole.src_start, whole.n * sizeof (guint32));
        assert_memory_equal (pieces.flags, whole.flags, whole.n);
        assert_int_equal (got->len, want->len);
        assert_memory_equal (got->data, want->data, want->len * sizeof (SimSegment));
        sim_units_clear (&whole);
        sim_units_clear (&pieces);
      }
  g_unsetenv ("SIMHOUND_THREADS");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_sentences_chinese_terminators),
    cmocka_unit_test (test_sentences_english_abbreviations_and_decimals),
    cmocka_unit_test (test_sentences_run_together_without_a_space),
    cmocka_unit_test (test_sentences_headings_paragraphs_and_wrapped_lines),
    cmocka_unit_test (test_sentences_do_not_end_at_short_hard_wrapped_lines),
    cmocka_unit_test (test_sentences_split_over_long_ones_at_a_clause),
    cmocka_unit_test (test_windows_count_characters_and_keep_words_whole),
    cmocka_unit_test (test_windows_stop_at_paragraph_breaks),
    cmocka_unit_test (test_no_segments_without_content),
    cmocka_unit_test (test_prepare_in_pieces_is_the_whole),
  };

  return cmocka_run_group_tests_name ("segment", tests, NULL, NULL);
}
