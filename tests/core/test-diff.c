/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The differences a reader sees between a passage and its source, written
 * as "=same|~article>source|+added|-left out" (spans cut from the texts).
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>

#include "sim-diff.h"
#include "sim-test-util.h"

static char *
diff (const char   *a,
      const char   *b,
      SimDiffStats *stats)
{
  g_autoptr(GArray) ops = sim_diff_texts (a, b, SIM_NORMALIZE_FOLD_T2S, stats);
  GString *out = g_string_new (NULL);

  for (guint i = 0; i < ops->len; i++)
    {
      const SimDiffOp *op = &g_array_index (ops, SimDiffOp, i);
      g_autofree char *x = sim_test_span_text (a, op->a_start, op->a_end), *y = sim_test_span_text (b, op->b_start, op->b_end);

      if (i > 0)
        g_string_append_c (out, '|');
      switch (op->kind)
        {
        case SIM_DIFF_SAME:     g_string_append_printf (out, "=%s", x); break;
        case SIM_DIFF_CHANGED:  g_string_append_printf (out, "~%s>%s", x, y); break;
        case SIM_DIFF_ADDED:    g_string_append_printf (out, "+%s", x); break;
        case SIM_DIFF_LEFT_OUT: g_string_append_printf (out, "-%s", y); break;
        }
    }
  return g_string_free (out, FALSE);
}

#define assert_diff(a, b, expected) \
  do { g_autofree char *got_ = diff ((a), (b), NULL); assert_string_equal (got_, (expected)); } while (0)

static void
test_words_changed_added_and_left_out (void **state)
{
  SimDiffStats stats;
  g_autofree char *shown = NULL, *said = NULL;

  assert_diff ("The quick brown fox jumps", "The quick red fox jumps", "=The quick|~brown>red|=fox jumps");
  assert_diff ("a big old house by the sea", "a big house by the sea", "=a big|+old|=house by the sea");
  assert_diff ("a big house by the sea", "a big old house by the sea", "=a big|-old|=house by the sea");
  assert_diff ("one two three", "one two three", "=one two three");
  assert_diff ("", "one two", "-one two");
  assert_diff ("one two", "", "+one two");
  /* Case, width and punctuation are not changes; the span keeps the article's own. */
  assert_diff ("Hello, World!", "hello world", "=Hello, World");
  /* A reordering: the most words in common stay the same. */
  assert_diff ("to be or not to be", "not to be or to be", "-not|=to be or|+not|=to be");

  shown = diff ("Ships passing the northern reef relied on his lamp", "Boats passing the north reef relied on the lamp", &stats);
  assert_string_equal (shown, "~Ships>Boats|=passing the|~northern>north|=reef relied on|~his>the|=lamp");
  assert_int_equal (stats.n_a, 9);
  assert_int_equal (stats.same, 6);
  assert_int_equal (stats.changed, 3);
  assert_int_equal (stats.added + stats.left_out, 0);
  assert_false (stats.cjk);
  said = sim_diff_describe (&stats, 0.81f);
  assert_string_equal (said, "81% similar to the source; 3 changed");
}

static void
test_chinese_is_compared_by_character (void **state)
{
  SimDiffStats stats;
  g_autofree char *said = NULL;

  assert_diff ("我们今天去公园", "我们明天去公园", "=我们|~今>明|=天去公园");
  /* Traditional forms are the same characters. */
  assert_diff ("這個解析的流程", "这个解析的流程", "=這個解析的流程");
  g_free (diff ("我们今天去公园散步", "我们明天去公园", &stats));
  assert_true (stats.cjk);
  assert_int_equal (stats.n_a, 9);
  assert_int_equal (stats.same, 6);
  said = sim_diff_describe (&stats, 0.67f);
  assert_string_equal (said, "67% similar to the source; 1 changed, 2 added");
  /* Mixed: a Latin word between characters is one word. */
  assert_diff ("用Linux系统", "用 Linux 系統", "=用Linux系统");
}

/* Past SIM_DIFF_MAX_WORDS the middle is one change: time and memory stay
 * bounded, and the common start and end are still found. */
static void
test_long_passages_stay_bounded (void **state)
{
  g_autoptr(GString) a = g_string_new ("begin here ");
  g_autoptr(GString) b = g_string_new ("begin here ");
  g_autoptr(GArray) ops = NULL;
  SimDiffStats stats;

  for (guint i = 0; i < SIM_DIFF_MAX_WORDS + 500; i++)
    {
      g_string_append_printf (a, "a%u ", i);
      g_string_append_printf (b, "b%u ", i);
    }
  g_string_append (a, "the end");
  g_string_append (b, "the end");
  ops = sim_diff_texts (a->str, b->str, 0, &stats);
  assert_int_equal (ops->len, 3);
  assert_int_equal (g_array_index (ops, SimDiffOp, 1).kind, SIM_DIFF_CHANGED);
  assert_int_equal (stats.same, 4);
  assert_int_equal (stats.changed, SIM_DIFF_MAX_WORDS + 500);
}

static void
test_context_ends_at_sentences (void **state)
{
  const char *text = "One is first. Two comes next. The passage is here. Then three. And four follows it.";
  const char *passage = "The passage is here.";
  const guint32 start = g_utf8_pointer_to_offset (text, strstr (text, passage));
  const guint32 end = start + strlen (passage);
  guint32 cs, ce;
  g_autofree char *shown = NULL, *whole = NULL, *none = NULL;

  sim_diff_context (text, g_utf8_strlen (text, -1), start, end, 20, &cs, &ce);
  shown = sim_test_span_text (text, cs, ce);
  assert_string_equal (shown, "Two comes next. The passage is here. Then three.");
  /* Near the ends of the text: the text's own ends. */
  sim_diff_context (text, g_utf8_strlen (text, -1), start, end, 1000, &cs, &ce);
  whole = sim_test_span_text (text, cs, ce);
  assert_string_equal (whole, text);
  /* No context asked: the passage. */
  sim_diff_context (text, g_utf8_strlen (text, -1), start, end, 0, &cs, &ce);
  none = sim_test_span_text (text, cs, ce);
  assert_string_equal (none, passage);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_words_changed_added_and_left_out),
    cmocka_unit_test (test_chinese_is_compared_by_character),
    cmocka_unit_test (test_long_passages_stay_bounded),
    cmocka_unit_test (test_context_ends_at_sentences),
  };

  return cmocka_run_group_tests_name ("diff", tests, NULL, NULL);
}
