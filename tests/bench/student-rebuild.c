/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * How much of a stored essay a student account can rebuild by chaining
 * lookups (issue 32: measured, and said in the README's "What a student
 * account can learn").
 *
 * The attack: a student knows how an essay begins (its first
 * --seed-chars characters; the seed's windows name the essay's document)
 * and guesses on from there, a step of six letters (two CJK characters)
 * or more at a time: winnowing stores a window ending inside any six
 * letters, so the right guess always has a window stored. At each step
 * the student fingerprints --guesses continuations, as a check does, and
 * looks up the windows that end in them; a guess scores by how far past
 * the known text its deepest window found in the document reaches, then
 * by how many are found. A wrong guess can score too: a window mostly of
 * known text may have the same key (a SimHash moves little when one
 * feature changes).
 *
 * The guesser is an oracle: the right continuation is always among its
 * guesses, the others drawn from --vocabulary. It stands for the best a
 * student could do with a language model that narrows the next words to
 * K; the figure is what the lookups then give away, and the keys are
 * what simhound.lookup() counts against student_keys_per_day. Case and
 * punctuation are not in the fingerprints: the attack rebuilds words.
 *
 *   student-rebuild --store URI --essay FILE --vocabulary FILE [--seed-chars N] [--guesses K]
 */
#include "config.h"

#include <locale.h>
#include <string.h>

#include "sim-corpus.h"
#include "sim-fingerprint.h"
#include "sim-server.h"


/* The words of @text, lower case; a CJK character is a word of its own:
 * the attack extends Chinese a character at a time. */
static char **
words_of (const char *text)
{
  GPtrArray *words = g_ptr_array_new ();
  GString *word = g_string_new (NULL);

  for (const char *p = text;; p = g_utf8_next_char (p))
    {
      const gunichar c = g_utf8_get_char_validated (p, -1);
      const gboolean han = c != (gunichar) -1 && c != (gunichar) -2 &&
                           g_unichar_get_script (c) == G_UNICODE_SCRIPT_HAN;
      const gboolean letter = c != (gunichar) -1 && c != (gunichar) -2 && *p && !han &&
                              (g_unichar_isalnum (c) || (word->len > 0 && (c == '\'' || c == 0x2019 || c == '-')));

      if (letter)
        g_string_append_unichar (word, g_unichar_tolower (c));
      else if (word->len > 0)
        {
          g_ptr_array_add (words, g_strdup (word->str));
          g_string_truncate (word, 0);
        }
      if (han)
        g_ptr_array_add (words, g_ucs4_to_utf8 (&c, 1, NULL, NULL, NULL));
      if (*p == 0 || c == (gunichar) -1 || c == (gunichar) -2)
        break;
    }
  g_string_free (word, TRUE);
  g_ptr_array_add (words, NULL);
  return (char **) g_ptr_array_free (words, FALSE);
}

/* The windows of @text that end past @from units, as a check makes them
 * (every one, unthinned), each with how far past @from it ends. */
static void
new_windows (SimFingerprinter *fp,
             const char       *text,
             gsize             from,
             GArray           *keys,
             GArray           *depth)
{
  g_autoptr(GArray) windows = g_array_new (FALSE, FALSE, sizeof (SimAnchor));

  sim_fingerprinter_load (fp, text, -1);
  sim_fingerprinter_windows (fp, 0, windows);
  for (guint i = 0; i < windows->len; i++)
    if (g_array_index (windows, SimAnchor, i).unit_end > from)
      {
        const guint past = g_array_index (windows, SimAnchor, i).unit_end - from;

        g_array_append_val (keys, g_array_index (windows, SimAnchor, i).simhash);
        if (depth != NULL)
          g_array_append_val (depth, past);
      }
}

/* Looks @keys up and scores each candidate (@owner) into @found by its
 * windows found in document @target: the deepest one's @depth, then how
 * many. */
static gboolean
confirm (SimCorpusSnapshot *snapshot,
         guint              target,
         GArray            *keys,
         GArray            *owner,
         GArray            *depth,
         guint             *found,
         guint             *lookups,
         GError           **error)
{
  const gsize batch = MAX (sim_corpus_snapshot_get_lookup_size (snapshot), 1);

  for (gsize at = 0; at < keys->len; at += batch)
    {
      const gsize n = MIN (batch, keys->len - at);
      g_autoptr(GArray) places = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_autofree guint32 *ends = g_new (guint32, n);

      if (!sim_corpus_snapshot_lookup (snapshot, &g_array_index (keys, guint64, at), n, 0, places, ends, error))
        return FALSE;
      (*lookups)++;
      for (gsize k = 0, p = 0; k < n; k++)
        {
          gboolean hit = FALSE;

          for (; p < ends[k]; p++)
            {
              guint32 doc, start;

              sim_corpus_snapshot_get_places (snapshot, &g_array_index (places, guint32, p), 1, &doc, &start);
              hit |= doc == target;
            }
          /* depth * 1000 + windows found */
          if (hit)
            {
              guint *score = &found[g_array_index (owner, guint, at + k)];

              *score = MAX (*score / 1000, g_array_index (depth, guint, at + k)) * 1000 + *score % 1000 + 1;
            }
        }
    }
  return TRUE;
}

/* The attack: at each step the next words of the essay, as many as make
 * six letters (two CJK characters) or more, among @k guesses (the others
 * as many random words of the vocabulary). */
static int
guess (SimCorpusSnapshot  *snapshot,
                   SimFingerprinter   *fp,
                   guint               target,
                   char              **essay_words,
                   guint               n_seed,
                   const char *const  *vocab,
                   guint               n_vocab,
                   guint               k,
                   const char         *seed)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);
  g_autoptr(GString) known = g_string_new (seed);
  g_autoptr(GError) error = NULL;
  guint at = n_seed, steps = 0, alone = 0, not_alone = 0, missed = 0, words_alone = 0, lookups = 0;
  guint64 keys_sent = 0;
  const guint n_words = g_strv_length (essay_words);

  while (at < n_words)
    {
      g_autoptr(GArray) keys = g_array_new (FALSE, FALSE, sizeof (guint64));
      g_autoptr(GArray) owner = g_array_new (FALSE, FALSE, sizeof (guint));
      g_autoptr(GArray) depth = g_array_new (FALSE, FALSE, sizeof (guint));
      g_autofree guint *found = g_new0 (guint, k);
      const char *tail = known->len > 120 ? strchr (known->str + known->len - 120, ' ') + 1 : known->str;
      const gsize from = sim_fingerprinter_load (fp, tail, -1)->n;
      g_autoptr(GString) chunk = g_string_new (NULL);
      guint n = 0, weight = 0;
      guint decoys_found = 0;

      for (; at + n < n_words && weight < 6; n++)
        {
          const char *w = essay_words[at + n];

          g_string_append_printf (chunk, "%s%s", n ? " " : "", w);
          weight += g_unichar_get_script (g_utf8_get_char (w)) == G_UNICODE_SCRIPT_HAN ? 3 : g_utf8_strlen (w, -1);
        }
      for (guint c = 0; c < k; c++)
        {
          g_autoptr(GString) candidate = g_string_new (tail);
          const guint before = keys->len;

          if (c == 0)
            g_string_append_printf (candidate, " %s", chunk->str);
          else for (guint i = 0; i < n; i++)
            g_string_append_printf (candidate, " %s", vocab[g_rand_int_range (rand, 0, n_vocab)]);
          new_windows (fp, candidate->str, from, keys, depth);
          for (guint i = before; i < keys->len; i++)
            g_array_append_val (owner, c);
        }
      if (!confirm (snapshot, target, keys, owner, depth, found, &lookups, &error))
        {
          g_printerr ("%s\n", error->message);
          return 2;
        }
      keys_sent += keys->len;
      /* A wrong guess that scores as well as the right one. */
      for (guint c = 1; c < k; c++)
        decoys_found += found[c] > 0 && found[c] >= found[0];
      if (found[0] == 0)
        missed++;
      else if (decoys_found == 0)
        alone++, words_alone += n;
      else
        not_alone++;
      g_string_append_printf (known, " %s", chunk->str);
      at += n;
      steps++;
    }
  g_print ("essay: %u words after a seed of %u; %u steps of six letters or more, each the right words among %u "
           "guesses: the right ones ranked first alone in %u steps (%.1f%% of the essay's words), tied or behind a wrong one in %u, "
           "not confirmed in %u; %u lookups carrying %" G_GUINT64_FORMAT " keys (%.0f a step)\n",
           n_words - n_seed, n_seed, steps, k, alone, 100.0 * words_alone / MAX (n_words - n_seed, 1), not_alone,
           missed, lookups, keys_sent, (double) keys_sent / MAX (steps, 1));
  return 0;
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *store = NULL, *essay_path = NULL, *vocab_path = NULL;
  gint seed_chars = 60, guesses = 100, status;
  GOptionEntry entries[] = {
    { "store", 0, 0, G_OPTION_ARG_STRING, &store, "The corpus server, as a student", "URI" },
    { "essay", 0, 0, G_OPTION_ARG_FILENAME, &essay_path, "The stored essay (its start is the seed; the rest scores)", "FILE" },
    { "vocabulary", 0, 0, G_OPTION_ARG_FILENAME, &vocab_path, "The words the student tries", "FILE" },
    { "seed-chars", 0, 0, G_OPTION_ARG_INT, &seed_chars, "Characters of the essay the student knows (60)", "N" },
    { "guesses", 0, 0, G_OPTION_ARG_INT, &guesses, "Guesses at each step, the right one among them (100)", "K" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("— rebuild a stored essay by chaining lookups");
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCorpusSnapshot) snapshot = NULL;
  g_autofree char *essay = NULL, *vocab_text = NULL;
  g_auto(GStrv) essay_words = NULL, vocab_words = NULL;
  g_autoptr(GPtrArray) vocab = g_ptr_array_new ();
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GString) known = g_string_new (NULL);
  SimFingerprinter *fp;
  guint n_known = 0, target = G_MAXUINT;

  setlocale (LC_ALL, "");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || store == NULL || essay_path == NULL ||
      vocab_path == NULL)
    {
      g_printerr ("%s\n", error ? error->message : "--store, --essay and --vocabulary are needed");
      return 2;
    }
  if (!g_file_get_contents (essay_path, &essay, NULL, &error) ||
      !g_file_get_contents (vocab_path, &vocab_text, NULL, &error) ||
      (snapshot = sim_server_snapshot_new (store, &error)) == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }
  essay_words = words_of (essay);
  vocab_words = words_of (vocab_text);
  for (guint i = 0; vocab_words[i] != NULL; i++)
    if (g_hash_table_add (seen, vocab_words[i]))
      g_ptr_array_add (vocab, vocab_words[i]);
  fp = sim_fingerprinter_new (sim_corpus_snapshot_get_flags (snapshot));

  /* The seed: the essay's first words up to seed_chars, and the document
   * most of its windows are found in. */
  for (; essay_words[n_known] != NULL && known->len < (gsize) seed_chars; n_known++)
    g_string_append_printf (known, "%s%s", known->len ? " " : "", essay_words[n_known]);
  {
    g_autoptr(GArray) keys = g_array_new (FALSE, FALSE, sizeof (guint64));
    g_autoptr(GArray) places = g_array_new (FALSE, FALSE, sizeof (guint32));
    g_autoptr(GHashTable) votes = g_hash_table_new (NULL, NULL);
    g_autofree guint32 *ends = NULL;
    guint best = 0;

    new_windows (fp, known->str, 0, keys, NULL);
    ends = g_new (guint32, MAX (keys->len, 1));
    if (!sim_corpus_snapshot_lookup (snapshot, (guint64 *) keys->data, keys->len, 0, places, ends, &error))
      {
        g_printerr ("%s\n", error->message);
        return 2;
      }
    for (guint i = 0; i < places->len; i++)
      {
        guint32 doc, start;
        guint n;

        sim_corpus_snapshot_get_places (snapshot, &g_array_index (places, guint32, i), 1, &doc, &start);
        n = GPOINTER_TO_UINT (g_hash_table_lookup (votes, GUINT_TO_POINTER (doc + 1))) + 1;
        g_hash_table_insert (votes, GUINT_TO_POINTER (doc + 1), GUINT_TO_POINTER (n));
        if (n > best && doc != G_MAXUINT32)
          best = n, target = doc;
      }
  }
  if (target == G_MAXUINT)
    {
      g_print ("the seed is found in no document: nothing to extend\n");
      return 1;
    }

  status = guess (snapshot, fp, target, essay_words, n_known, (const char *const *) vocab->pdata, vocab->len,
                  (guint) guesses, known->str);
  sim_fingerprinter_free (fp);
  return status;
}
