/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Text alignment on constructed cases: a copied paragraph comes out as one
 * passage however its lines are wrapped; reordered and reworded copies and
 * summaries are found whole; a repeated source sentence is aligned where its
 * neighbours are; a shared name alone is no passage.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>

#include "sim-align.h"
#include "sim-align-private.h"

/* A source about glaciers, one sentence per line of the array. */
static const char *const source[] = {
  "Glaciers form where the accumulation of snow exceeds its ablation over many years.",
  "The weight of the overlying snow compresses the lower layers into dense glacial ice.",
  "Under its own weight the ice begins to flow slowly downhill like a very thick river.",
  "Crevasses open where the ice moves faster at the centre than along the valley walls.",
  "Meltwater running beneath the glacier lubricates its bed and speeds up the sliding.",
  "Rocks frozen into the base scrape the bedrock and carve deep U-shaped valleys.",
  "When the glacier retreats it leaves behind moraines of sand, gravel and boulders.",
  "Many lakes in northern Europe and America fill basins that were scoured by ice.",
  "Scientists drill ice cores to read the history of the atmosphere trapped in bubbles.",
  "The oldest cores from Antarctica hold air that is eight hundred thousand years old.",
};

static const char *const own[] = {
  "My grandmother kept bees in the orchard behind her farmhouse for forty summers.",
  "Every autumn she sold jars of dark heather honey at the market in the square.",
  "The bees swarmed once, settling on the weathervane of the old parish church.",
  "Nobody in the village dared to climb up and fetch them until the sexton did.",
  "She said that a quiet hive in winter is a sign of a strong colony in spring.",
};

typedef struct {
  GString *text;
} Builder;

static guint32
cp_len (const GString *s)
{
  return g_utf8_strlen (s->str, s->len);
}

static GArray *
align_texts (const char *a,
             const char *b)
{
  SimUnits ua, ub;
  g_autoptr(GArray) sa = g_array_new (FALSE, FALSE, sizeof (SimSegment));
  g_autoptr(GArray) sb = g_array_new (FALSE, FALSE, sizeof (SimSegment));
  GArray *out = g_array_new (FALSE, FALSE, sizeof (SimAlignment));
  SimAlignText ta, tb;

  sim_units_init (&ua);
  sim_units_init (&ub);
  sim_text_normalize (a, -1, 0, SIM_NORMALIZE_DEFAULT, &ua);
  sim_text_normalize (b, -1, 0, SIM_NORMALIZE_DEFAULT, &ub);
  sim_segment_split (a, strlen (a), &ua, SIM_SEGMENT_SENTENCE, 0, sa);
  sim_segment_split (b, strlen (b), &ub, SIM_SEGMENT_SENTENCE, 0, sb);
  ta = (SimAlignText) { &ua, (const SimSegment *) sa->data, sa->len, TRUE };
  tb = (SimAlignText) { &ub, (const SimSegment *) sb->data, sb->len, TRUE };
  sim_align (&ta, &tb, out);
  sim_units_clear (&ua);
  sim_units_clear (&ub);
  return out;
}

/* The source text with sentence @i starting where *@starts[i] says. */
static char *
source_text (guint32 *starts,
             guint32 *ends)
{
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (source); i++)
    {
      if (i > 0)
        g_string_append_c (s, ' ');
      if (starts)
        starts[i] = cp_len (s);
      g_string_append (s, source[i]);
      if (ends)
        ends[i] = cp_len (s);
    }
  return g_string_free (s, FALSE);
}

/* Hard-wraps @text at every @width-th space, or at irregular places when
 * @width is 0 (a line of one or two words now and then). */
static void
append_wrapped (GString    *out,
                const char *text,
                guint       width)
{
  guint n = 0, spaces = 0;

  for (const char *p = text; *p; p++)
    {
      if (*p == ' ' && ((width && ++n % width == 0) || (!width && (++spaces % 7 == 2 || spaces % 7 == 3))))
        g_string_append_c (out, '\n');
      else
        g_string_append_c (out, *p);
    }
}

static void
test_align_copied_paragraph_with_hard_wrapped_lines_is_one_passage (void **state)
{
  guint32 starts[G_N_ELEMENTS (source)], ends[G_N_ELEMENTS (source)];
  g_autofree char *b = source_text (starts, ends);
  g_autoptr(GString) a = g_string_new (NULL);
  g_autoptr(GArray) found = NULL;
  guint32 a_start, a_end;
  const SimAlignment *al;

  g_string_append_printf (a, "%s %s\n\n", own[0], own[1]);
  a_start = cp_len (a);
  for (guint i = 2; i <= 6; i++)
    {
      append_wrapped (a, source[i], 0);
      g_string_append_c (a, i == 6 ? '\n' : ' ');
    }
  a_end = cp_len (a) - 1;
  g_string_append_printf (a, "\n%s %s\n", own[2], own[3]);

  found = align_texts (a->str, b);
  assert_int_equal (found->len, 1);
  al = &g_array_index (found, SimAlignment, 0);
  assert_int_equal (al->a_start, a_start);
  assert_int_equal (al->a_end, a_end);
  assert_int_equal (al->b_start, starts[2]);
  assert_int_equal (al->b_end, ends[6]);
  assert_true (al->similarity > 0.95f);
  assert_int_equal (al->n_seeds, 5);
}

/* A sentence between copied ones that shares almost none of its words with
 * the stretch of the source they come from splits the passage, even when
 * its words are found elsewhere in the source (here in its last sentence,
 * not copied): two passages, and that sentence in neither. */
static void
test_align_foreign_sentence_between_copies_splits_the_passage (void **state)
{
  g_autofree char *b = source_text (NULL, NULL);
  g_autoptr(GString) a = g_string_new (NULL);
  g_autoptr(GArray) found = NULL;
  guint32 own_start, own_end;

  for (guint i = 1; i <= 4; i++)
    g_string_append_printf (a, "%s ", source[i]);
  own_start = cp_len (a);
  g_string_append (a, "Ablation and accumulation matter to penguins near Antarctica, where eight hundred seals nap.");
  own_end = cp_len (a);
  for (guint i = 5; i <= 8; i++)
    g_string_append_printf (a, " %s", source[i]);

  found = align_texts (a->str, b);
  assert_int_equal (found->len, 2);
  for (guint k = 0; k < found->len; k++)
    {
      const SimAlignment *al = &g_array_index (found, SimAlignment, k);

      assert_false (al->a_start < own_end && own_start < al->a_end);
    }
}

static void
test_align_reordered_and_reworded_passage_is_found_whole (void **state)
{
  guint32 starts[G_N_ELEMENTS (source)], ends[G_N_ELEMENTS (source)];
  g_autofree char *b = source_text (starts, ends);
  /* Sentences 1-5 with words shuffled, inflected, dropped and swapped for synonyms. */
  const char *a =
    "My grandmother kept bees in the orchard behind her farmhouse for forty summers. "
    "The overlying snow's weight compressed lower layers into dense ice of glaciers. "
    "The ice under its own weight starts flowing slowly down the hill like a thick river. "
    "Where ice is moving faster in the centre than along valley walls, crevasses are opening. "
    "Meltwater runs beneath glaciers, lubricating their beds and speeding the slide. "
    "Frozen rocks in the base scraped bedrock and carved deep valleys with a U shape. "
    "Nobody in the village dared to climb up and fetch them until the sexton did.";
  g_autoptr(GArray) found = align_texts (a, b);
  const SimAlignment *al;

  assert_int_equal (found->len, 1);
  al = &g_array_index (found, SimAlignment, 0);
  assert_int_equal (al->b_start, starts[1]);
  assert_int_equal (al->b_end, ends[5]);
  assert_true (al->a_start > strlen (own[0]));
  assert_true (al->a_end < strlen (a) - strlen (own[3]));
  assert_true (al->similarity > 0.4f);
}

static void
test_align_summary_is_one_passage_against_the_stretch_it_condenses (void **state)
{
  guint32 starts[G_N_ELEMENTS (source)], ends[G_N_ELEMENTS (source)];
  g_autofree char *b = source_text (starts, ends);
  /* Four sentences condensing source sentences 0, 3, 6 and 9 in order. */
  const char *a =
    "She said that a quiet hive in winter is a sign of a strong colony in spring.\n\n"
    "Glaciers form where snow accumulation exceeds ablation for years. "
    "Crevasses open because the centre ice moves faster than the valley walls. "
    "Retreating glaciers leave moraines of gravel and boulders. "
    "Antarctica's oldest cores hold air eight hundred thousand years old.";
  g_autoptr(GArray) found = align_texts (a, b);
  const SimAlignment *al;

  assert_int_equal (found->len, 1);
  al = &g_array_index (found, SimAlignment, 0);
  assert_int_equal (al->b_start, starts[0]);
  assert_int_equal (al->b_end, ends[9]);
  assert_int_equal (al->a_start, strlen (own[4]) + 2);
  assert_int_equal (al->n_seeds, 4);
}

/* A summary whose sentences pair with source sentences far apart, only
 * two of them closely enough to seed, one of those closely: one passage
 * over it. The same with both pairs loose is a topic echoed, no passage. */
static void
test_align_two_seed_summary_is_one_passage (void **state)
{
  guint32 starts[G_N_ELEMENTS (source)], ends[G_N_ELEMENTS (source)];
  g_autofree char *b = source_text (starts, ends);
  const char *a =
    "She said that a quiet hive in winter is a sign of a strong colony in spring.\n\n"
    "Glaciers form where the accumulation of snow exceeds melting for many winters. "
    "Then it flows downhill, crevasses open, meltwater speeds the sliding and rocks carve valleys. "
    "Across the north, many lakes now fill basins that the ice once scoured.\n\n"
    "Nobody in the village dared to climb up and fetch them until the sexton did.";
  const char *echo =
    "She said that a quiet hive in winter is a sign of a strong colony in spring.\n\n"
    "Glaciers form where snow keeps piling up for years. "
    "Then it flows downhill, crevasses open, meltwater speeds the sliding and rocks carve valleys. "
    "Some lakes in the north sit in basins.\n\n"
    "Nobody in the village dared to climb up and fetch them until the sexton did.";
  g_autoptr(GArray) found = align_texts (a, b);
  g_autoptr(GArray) echoed = align_texts (echo, b);
  const SimAlignment *al;

  assert_int_equal (found->len, 1);
  al = &g_array_index (found, SimAlignment, 0);
  assert_int_equal (al->n_seeds, 2);
  assert_int_equal (al->a_start, strlen (own[4]) + 2);
  assert_int_equal (al->a_end, strstr (a, "scoured.") + strlen ("scoured.") - a);
  assert_int_equal (al->b_start, starts[0]);
  assert_true (al->b_end >= ends[7]);
  for (guint i = 0; i < echoed->len; i++)
    {
      assert_false (sim_alignment_stands_alone (&g_array_index (echoed, SimAlignment, i), FALSE));
      assert_false (sim_alignment_stands_alone (&g_array_index (echoed, SimAlignment, i), TRUE));
    }
}

static void
test_align_repeated_source_sentence_follows_its_neighbours (void **state)
{
  g_autoptr(GString) b = g_string_new (NULL);
  g_autoptr(GString) a = g_string_new (NULL);
  g_autoptr(GArray) found = NULL;
  guint32 second, end;
  const SimAlignment *al;

  /* The source says sentence 4 early, then far later among 3 and 5. */
  g_string_append_printf (b, "%s %s ", source[4], source[0]);
  for (guint i = 0; i < 5; i++)
    g_string_append_printf (b, "%s ", own[i]);
  second = cp_len (b);
  g_string_append_printf (b, "%s %s %s", source[3], source[4], source[5]);
  end = cp_len (b);
  g_string_append_printf (a, "%s %s %s", source[3], source[4], source[5]);

  found = align_texts (a->str, b->str);
  assert_int_equal (found->len, 1);
  al = &g_array_index (found, SimAlignment, 0);
  assert_int_equal (al->b_start, second);
  assert_int_equal (al->b_end, end);
  assert_int_equal (al->a_start, 0);
  assert_int_equal (al->a_end, cp_len (a));
}

static void
test_align_shared_name_alone_is_no_passage (void **state)
{
  const char *a = "The International Union Against Tuberculosis met in Paris in 1920. "
                  "Its delegates argued about sanatoria and vaccination for a week. "
                  "The International Union Against Tuberculosis published a bulletin.";
  const char *b = "A grant from the International Union Against Tuberculosis paid for the new wing. "
                  "The architect chose red brick and tall windows to let in the sun. "
                  "Patients said the International Union Against Tuberculosis had saved the town.";
  g_autoptr(GArray) found = align_texts (a, b);

  /* At most a single sentence pair, never a passage of several. */
  for (guint i = 0; i < found->len; i++)
    assert_int_equal (g_array_index (found, SimAlignment, i).n_seeds, 1);
}

static void
test_align_unrelated_texts_give_nothing (void **state)
{
  g_autoptr(GString) a = g_string_new (NULL);
  g_autofree char *b = source_text (NULL, NULL);
  g_autoptr(GArray) found = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (own); i++)
    g_string_append_printf (a, "%s ", own[i]);
  found = align_texts (a->str, b);
  assert_int_equal (found->len, 0);
  g_array_unref (g_steal_pointer (&found));
  found = align_texts ("", b);
  assert_int_equal (found->len, 0);
}

static void
test_align_chinese_by_character_bigrams (void **state)
{
  const char *b = "老城区的石板路在雨后显得格外明亮。街角那家茶馆已经开了六十多年，每天清晨都有老人带着鸟笼来喝茶。"
                  "茶馆的主人说，他最喜欢听客人们讲过去的故事。如今新的商场建起来了，可是这里依然热闹。";
  /* Reworded: words swapped for synonyms, clauses reordered. */
  const char *a = "我自己觉得这个故事写得很好。每天清晨都有老人提着鸟笼来喝茶，街角这家茶馆已开了六十多年。"
                  "茶馆老板说，他最爱听客人们讲从前的故事。如今新商场建起来了，但这里仍然热闹。";
  g_autoptr(GArray) found = align_texts (a, b);
  const SimAlignment *al;

  assert_int_equal (found->len, 1);
  al = &g_array_index (found, SimAlignment, 0);
  assert_int_equal (al->a_start, g_utf8_strlen ("我自己觉得这个故事写得很好。", -1));
  assert_int_equal (al->a_end, g_utf8_strlen (a, -1));
  assert_int_equal (al->b_start, g_utf8_strlen ("老城区的石板路在雨后显得格外明亮。", -1));
}

/* A long text's side, its sentences counted a piece at a time on two
 * threads, is the side counted on one: the same entries, words, postings
 * and copies. */
static void
test_align_side_in_pieces_is_the_whole (void **state)
{
  static const char *const vocabulary[] = { "glacier", "valley", "moraine", "ice", "river", "stone", "the", "of",
                                            "冰川", "山谷", "河流", "石头", "moves", "slowly", "carves", "a" };
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GRand) rand = g_rand_new_with_seed (3);
  g_autoptr(GArray) sentences = g_array_new (FALSE, FALSE, sizeof (SimSegment));
  SimAlignSide *one, *two;
  SimAlignText t;
  SimUnits units;

  while (text->len < 600000)
    {
      /* Some sentences again, word for word. */
      if (text->len > 1000 && g_rand_int_range (rand, 0, 5) == 0)
        {
          const gsize at = g_rand_int_range (rand, 0, (gint32) text->len / 2);
          const char *start = strstr (text->str + at, ". ");
          const char *end = start ? strstr (start + 2, ". ") : NULL;

          if (end != NULL)
            {
              g_autofree char *again = g_strndup (start + 2, end - start);

              g_string_append_printf (text, "%s ", again);
              continue;
            }
        }
      for (guint w = 0, n = g_rand_int_range (rand, 3, 25); w < n; w++)
        g_string_append_printf (text, "%s%s", w ? " " : "", vocabulary[g_rand_int_range (rand, 0, G_N_ELEMENTS (vocabulary))]);
      g_string_append (text, ". ");
    }
  sim_units_init (&units);
  sim_text_normalize (text->str, text->len, 0, SIM_NORMALIZE_DEFAULT, &units);
  sim_segment_split (text->str, text->len, &units, SIM_SEGMENT_SENTENCE, 0, sentences);
  t = (SimAlignText) { &units, (const SimSegment *) sentences->data, sentences->len, TRUE };
  g_setenv ("SIMHOUND_THREADS", "1", TRUE);
  one = sim_align_side_new (&t);
  g_setenv ("SIMHOUND_THREADS", "2", TRUE);
  two = sim_align_side_new (&t);
  g_unsetenv ("SIMHOUND_THREADS");

  assert_true (units.n > 4 * 65536);
  assert_int_equal (one->entries->len, two->entries->len);
  /* Field by field: an Entry's last four bytes are padding. */
  for (guint i = 0; i < one->entries->len; i++)
    {
      const Entry *x = &g_array_index (one->entries, Entry, i), *y = &g_array_index (two->entries, Entry, i);

      assert_true (x->token == y->token && x->tf == y->tf && x->sentence == y->sentence && x->word == y->word);
    }
  assert_memory_equal (one->vectors->data, two->vectors->data, sentences->len * sizeof (Vector));
  assert_int_equal (one->n_words, two->n_words);
  assert_memory_equal (one->words, two->words, one->n_words * sizeof (guint64));
  assert_memory_equal (one->df, two->df, one->n_words * sizeof (guint));
  assert_memory_equal (one->post_first, two->post_first, (one->n_words + 1) * sizeof (guint));
  assert_memory_equal (one->postings, two->postings, one->entries->len * sizeof (guint));
  assert_memory_equal (one->post_sentence, two->post_sentence, one->entries->len * sizeof (guint));
  assert_memory_equal (one->seed_first, two->seed_first, (one->n_words + 1) * sizeof (guint));
  assert_memory_equal (one->seed_postings, two->seed_postings, one->seed_first[one->n_words] * sizeof (guint));
  assert_memory_equal (one->next_copy, two->next_copy, sentences->len * sizeof (guint));
  /* Not vacuous: sentences repeat, and words are shared. */
  assert_true (one->seed_first[one->n_words] < one->entries->len);
  sim_align_side_free (one);
  sim_align_side_free (two);
  sim_units_clear (&units);
}

/* A side made from a range of a prepared text's sentences aligns as the
 * side of those sentences made afresh, for every range. */
static void
test_align_range_side_is_the_side_of_its_sentences (void **state)
{
  g_autofree char *b = source_text (NULL, NULL);
  g_autoptr(GString) a = g_string_new (NULL);
  SimUnits ua, ub;
  g_autoptr(GArray) sa = g_array_new (FALSE, FALSE, sizeof (SimSegment));
  g_autoptr(GArray) sb = g_array_new (FALSE, FALSE, sizeof (SimSegment));
  SimAlignText ta, tb;
  SimAlignSide *whole, *side_b;
  guint n_found = 0;

  /* Own sentences, copied ones, one reworded and one Chinese pair. */
  g_string_append_printf (a, "%s %s %s %s ", own[0], source[1], source[2], own[1]);
  g_string_append (a, "Crevasses open where ice moves faster in the centre than at the walls of the valley. ");
  g_string_append_printf (a, "%s %s %s 冰川在山谷中缓慢移动。 %s %s", source[5], own[2], source[8], source[9], own[3]);
  sim_units_init (&ua);
  sim_units_init (&ub);
  sim_text_normalize (a->str, a->len, 0, SIM_NORMALIZE_DEFAULT, &ua);
  sim_text_normalize (b, -1, 0, SIM_NORMALIZE_DEFAULT, &ub);
  sim_segment_split (a->str, a->len, &ua, SIM_SEGMENT_SENTENCE, 0, sa);
  sim_segment_split (b, strlen (b), &ub, SIM_SEGMENT_SENTENCE, 0, sb);
  assert_true (sa->len >= 10);
  ta = (SimAlignText) { &ua, (const SimSegment *) sa->data, sa->len, TRUE };
  tb = (SimAlignText) { &ub, (const SimSegment *) sb->data, sb->len, TRUE };
  whole = sim_align_side_new (&ta);
  side_b = sim_align_side_new (&tb);
  for (guint first = 0; first <= sa->len; first++)
    for (guint last = first; last <= sa->len; last++)
      {
        const SimAlignText part = { &ua, ta.sentences + first, last - first, first == 0 && last == sa->len };
        g_autoptr(GArray) fresh = g_array_new (FALSE, FALSE, sizeof (SimAlignment));
        g_autoptr(GArray) ranged = g_array_new (FALSE, FALSE, sizeof (SimAlignment));
        SimAlignSide *range = sim_align_side_new_range (whole, first, last);

        sim_align (&part, &tb, fresh);
        sim_align_sides (range, side_b, ranged);
        assert_int_equal (ranged->len, fresh->len);
        if (fresh->len > 0)
          assert_memory_equal (ranged->data, fresh->data, fresh->len * sizeof (SimAlignment));
        n_found += fresh->len;
        /* And as the other side of the pair. */
        g_array_set_size (fresh, 0);
        g_array_set_size (ranged, 0);
        sim_align (&tb, &part, fresh);
        sim_align_sides (side_b, range, ranged);
        sim_align_side_free (range);
        assert_int_equal (ranged->len, fresh->len);
        if (fresh->len > 0)
          assert_memory_equal (ranged->data, fresh->data, fresh->len * sizeof (SimAlignment));
      }
  /* Ranges that hold copied sentences find them. */
  assert_true (n_found > 0);
  sim_align_side_free (whole);
  sim_align_side_free (side_b);
  sim_units_clear (&ua);
  sim_units_clear (&ub);
}

/* Sentences that share only their function words share nothing. */
static void
test_align_stop_words_alone_are_no_passage (void **state)
{
  const char *a = "It was not what they had been doing there, and so it would have been the same for all of us. "
                  "We were there with them when it was over, but we could not do more than that for them. "
                  "If they are here again, it will be because of what we have done, not what they said.";
  const char *b = "It was not what they had been planting there, and so it would have been the same for all of "
                  "the farmers. We were there with them when the harvest was over, but we could not pay more than "
                  "that for them. If they are here again, it will be because of what the rain has done, not what "
                  "they sowed.";
  g_autoptr(GArray) found = align_texts (a, b);

  assert_int_equal (found->len, 0);
  /* The same sentences with their content words kept are one passage. */
  g_array_unref (g_steal_pointer (&found));
  found = align_texts (b, b);
  assert_int_equal (found->len, 1);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_align_copied_paragraph_with_hard_wrapped_lines_is_one_passage),
    cmocka_unit_test (test_align_reordered_and_reworded_passage_is_found_whole),
    cmocka_unit_test (test_align_foreign_sentence_between_copies_splits_the_passage),
    cmocka_unit_test (test_align_summary_is_one_passage_against_the_stretch_it_condenses),
    cmocka_unit_test (test_align_two_seed_summary_is_one_passage),
    cmocka_unit_test (test_align_repeated_source_sentence_follows_its_neighbours),
    cmocka_unit_test (test_align_shared_name_alone_is_no_passage),
    cmocka_unit_test (test_align_unrelated_texts_give_nothing),
    cmocka_unit_test (test_align_chinese_by_character_bigrams),
    cmocka_unit_test (test_align_range_side_is_the_side_of_its_sentences),
    cmocka_unit_test (test_align_side_in_pieces_is_the_whole),
    cmocka_unit_test (test_align_stop_words_alone_are_no_passage),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
