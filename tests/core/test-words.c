/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Words and sentence keys: what a rewording of a stored sentence keeps of
 * it, and where a store's keys are placed.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>

#include "sim-fingerprint.h"
#include "sim-words.h"

/* Sentence keys of @text taken whole, as a store (@stored) or an article
 * keys them. */
static GArray *
keys_of (const char *text,
         gboolean    stored)
{
  GArray *keys = g_array_new (FALSE, FALSE, sizeof (guint64));
  SimUnits units;

  sim_units_init (&units);
  sim_text_normalize (text, -1, 0, SIM_NORMALIZE_DEFAULT, &units);
  if (stored)
    sim_words_pair_keys (&units, 0, units.n, SIM_WORDS_KEYED_RAREST, SIM_WORDS_KEYED_MAX, keys);
  else
    sim_words_pair_keys (&units, 0, units.n, 6, 40, keys);
  sim_units_clear (&units);
  return keys;
}

static guint
n_shared (GArray *a,
          GArray *b)
{
  guint n = 0;

  for (guint i = 0; i < a->len; i++)
    for (guint j = 0; j < b->len; j++)
      n += g_array_index (a, guint64, i) == g_array_index (b, guint64, j);
  return n;
}

static gboolean
finds (const char *stored,
       const char *article)
{
  g_autoptr(GArray) s = keys_of (stored, TRUE);
  g_autoptr(GArray) a = keys_of (article, FALSE);

  return n_shared (s, a) > 0;
}

/* A stored sentence keeps three keys, the pairs of its three rarest words;
 * a rewording that keeps two of them among its own rarest finds it,
 * whatever else changed and in whatever order. */
static void
test_rewordings_find_their_sentence (void **state)
{
  g_autoptr(GArray) keys = keys_of ("The council's treasurer, Maria Lopez, declined to comment.", TRUE);

  assert_int_equal (keys->len, 3);
  assert_true (finds ("The council's treasurer, Maria Lopez, declined to comment.",
                      "Maria Lopez, the council's new treasurer, said she had no comment."));
  assert_true (finds ("A woman is peeling a potato.", "A woman peels a potato."));
  /* Two of the three rarest are gone: not found (the price of three keys a sentence). */
  assert_false (finds ("The mayor expected the tramway would be available within the next four years.",
                       "Services running on the tramway will be opened within four years, the mayor said."));
  assert_true (finds ("市政府认为新的地铁线路可能在明年通车。", "市政府认为地铁新线明年通车"));
  /* The same words in another order: the same keys. */
  {
    g_autoptr(GArray) a = keys_of ("Green declined comment attorney.", TRUE);
    g_autoptr(GArray) b = keys_of ("Attorney comment: Green declined.", TRUE);

    assert_int_equal (n_shared (a, b), 3);
  }
  assert_false (finds ("The council's treasurer, Maria Lopez, declined to comment.",
                       "The radio played old songs all the way home."));
  (void) state;
}

/* A sentence of one word, or of more words than a short sentence has, is
 * not keyed (a long one keeps windows of its own); stop words are no words. */
static void
test_short_sentences_alone_are_keyed (void **state)
{
  g_autoptr(GString) long_sentence = g_string_new (NULL);
  g_autoptr(GArray) one = keys_of ("Hello.", TRUE);
  g_autoptr(GArray) stops = keys_of ("It is what it was.", TRUE);
  g_autoptr(GArray) two = keys_of ("Vanderpool declined.", TRUE);
  g_autoptr(GArray) many = NULL;

  for (guint i = 0; i < SIM_WORDS_KEYED_MAX + 1; i++)
    g_string_append_printf (long_sentence, "word%c%c ", 'a' + i % 26, 'a' + i / 26);
  many = keys_of (long_sentence->str, TRUE);
  assert_int_equal (one->len, 0);
  assert_int_equal (stops->len, 0);
  assert_int_equal (two->len, 1);
  assert_int_equal (many->len, 0);
  (void) state;
}

/* A store keys each sentence, and each line of one: a file of one
 * sentence a line without full stops is one sentence to the segmenter,
 * and its lines are keyed as the sentences they are. */
static void
test_text_keys_cut_sentences_at_lines (void **state)
{
  const char *text = "Australian among four on plane missing in Indonesia\n"
                     "New World Trade Center declared tallest building in U.S.\n";
  const char *second = strchr (text, '\n') + 1;
  g_autoptr(GArray) anchors = g_array_new (FALSE, FALSE, sizeof (SimAnchor));
  g_autoptr(GArray) alone = keys_of (second, TRUE);
  const glong second_at = g_utf8_pointer_to_offset (text, second);
  guint n_second = 0;
  SimUnits units;

  sim_units_init (&units);
  sim_text_normalize (text, -1, 0, SIM_NORMALIZE_DEFAULT, &units);
  sim_words_text_keys (text, strlen (text), &units, anchors);
  assert_int_equal (anchors->len, 6);
  for (guint i = 0; i < anchors->len; i++)
    {
      const SimAnchor *a = &g_array_index (anchors, SimAnchor, i);

      if (units.src_start[a->unit_start] == second_at)
        {
          assert_int_equal (a->simhash, g_array_index (alone, guint64, n_second));
          n_second++;
        }
      else
        assert_int_equal (units.src_start[a->unit_start], 0);
    }
  assert_int_equal (n_second, 3);
  sim_units_clear (&units);
  (void) state;
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_rewordings_find_their_sentence),
    cmocka_unit_test (test_short_sentences_alone_are_keyed),
    cmocka_unit_test (test_text_keys_cut_sentences_at_lines),
  };

  return cmocka_run_group_tests_name ("words", tests, NULL, NULL);
}
