/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A class checked against itself: the pairs that share a passage are found
 * with their spans on both sides, largest first, and no other pair is
 * reported; a commonplace held by many essays proposes nothing and is no
 * passage of its own (next to a copy, it may stay inside the copy's).
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>

#include "sim-cross.h"
#include "sim-report-json.h"

#define COPY_EN "The lighthouse keeper climbed the spiral stairs every evening before sunset, trimmed the wick and polished the great lens until it shone."
#define COPY_ZH "街角那家茶馆已经开了六十多年，每天清晨都有老人带着鸟笼来喝茶，茶馆的主人最喜欢听客人们讲过去的故事。"
#define COMMON "In this essay I will discuss the topic that was given to us in class this week."

static const char *const own[] = {
  "My grandmother grew tomatoes behind the house and sold them at the Saturday market in town.",
  "The river froze early that year, and the children skated from the mill down to the old bridge.",
  "Our school band practised every Thursday evening in the gymnasium, and the drummer was always late.",
  "老城区的石板路在雨后显得格外明亮，孩子们踩着水坑一路跑回家去吃晚饭。",
  "The train to the coast left at seven, and we ate sandwiches while the fields went past the window.",
  "Every spring the swallows returned to the barn and built their nests under the same wooden beam.",
};

static const char *const names[6] = { "a.txt", "b.txt", "c.txt", "d.txt", "e.txt", "f.txt" };

/* a and c share the English passage, b and d the Chinese one (c's copy is
 * longer, so it comes first); every essay opens with the same commonplace. */
static void
make_class (char  *texts[6],
            gsize  lens[6])
{
  texts[0] = g_strjoin (" ", COMMON, own[0], COPY_EN, own[1], NULL);
  texts[1] = g_strjoin ("", COMMON, " ", own[3], COPY_ZH, NULL);
  texts[2] = g_strjoin (" ", COMMON, own[2], COPY_EN, COPY_EN, NULL);
  texts[3] = g_strjoin ("", COMMON, " ", COPY_ZH, own[4], NULL);
  texts[4] = g_strjoin (" ", COMMON, own[5], NULL);
  texts[5] = g_strdup ("");  /* no text: in no pair */
  for (guint i = 0; i < 6; i++)
    lens[i] = strlen (texts[i]);
}

static void
test_pairs_that_share_passages_and_only_those (void **state)
{
  char *texts[6];
  gsize lens[6];
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autoptr(GArray) pairs = NULL;
  g_autoptr(GError) error = NULL;

  make_class (texts, lens);
  pairs = sim_cross_run ((const char *const *) texts, lens, names, 6, NULL, &options, SIM_NORMALIZE_FOLD_T2S, NULL, &error);
  assert_non_null (pairs);
  assert_int_equal (pairs->len, 2);
  {
    const SimCrossPair *first = &g_array_index (pairs, SimCrossPair, 0);
    const SimCrossPair *second = &g_array_index (pairs, SimCrossPair, 1);
    const SimPassage *p;
    g_autofree char *span = NULL;

    assert_int_equal (first->a, 0);
    assert_int_equal (first->b, 2);
    assert_int_equal (second->a, 1);
    assert_int_equal (second->b, 3);
    assert_true (first->share_a > 0.4 && first->share_a < 0.8);
    assert_true (first->shared_a + first->shared_b >= second->shared_a + second->shared_b);
    /* The commonplace alone is no passage (nor a pair); the copy is. */
    assert_int_equal (second->passages->len, 1);
    assert_int_equal (first->passages->len, 1);
    p = &g_array_index (second->passages, SimPassage, 0);
    span = sim_report_dup_text (second->report, p->start, p->end);
    assert_non_null (strstr (span, "茶馆已经开了六十多年"));
    /* The span in B is the copy in B. */
    {
      g_autofree char *in_b = g_utf8_substring (texts[3], p->source_start, p->source_end);

      assert_non_null (strstr (in_b, "茶馆已经开了六十多年"));
    }
  }
  {
    g_autofree char *json = sim_cross_to_json (pairs, names, (const char *const[]) { "text", "text", "text", "text", "text", "text" },
                                               (const guint32[]) { 1, 2, 3, 4, 5, 0 }, NULL, 6);

    assert_non_null (strstr (json, "\"shared_characters\""));
    assert_non_null (strstr (json, "\"source_start\""));
  }
  for (guint i = 0; i < 6; i++)
    g_free (texts[i]);
}

/* The windows are sorted in one part per thread and merged: any number of
 * threads finds the same pairs with the same spans. */
static void
test_same_pairs_on_any_number_of_threads (void **state)
{
  char *texts[6];
  gsize lens[6];
  g_autoptr(GArray) one = NULL;

  make_class (texts, lens);
  for (guint n_threads = 1; n_threads <= 7; n_threads++)
    {
      SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
      g_autoptr(GArray) pairs = NULL;

      options.n_threads = n_threads;
      pairs = sim_cross_run ((const char *const *) texts, lens, names, 6, NULL, &options, SIM_NORMALIZE_FOLD_T2S, NULL, NULL);
      assert_non_null (pairs);
      assert_int_equal (pairs->len, 2);
      if (one == NULL)
        {
          one = g_steal_pointer (&pairs);
          continue;
        }
      for (guint i = 0; i < pairs->len; i++)
        {
          const SimCrossPair *p = &g_array_index (pairs, SimCrossPair, i), *q = &g_array_index (one, SimCrossPair, i);

          assert_int_equal (p->a, q->a);
          assert_int_equal (p->b, q->b);
          assert_int_equal (p->shared_a, q->shared_a);
          assert_int_equal (p->shared_b, q->shared_b);
          assert_int_equal (p->passages->len, q->passages->len);
        }
    }
  for (guint i = 0; i < 6; i++)
    g_free (texts[i]);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_pairs_that_share_passages_and_only_those),
    cmocka_unit_test (test_same_pairs_on_any_number_of_threads),
  };

  return cmocka_run_group_tests_name ("cross", tests, NULL, NULL);
}
