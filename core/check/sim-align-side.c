/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A text prepared for alignment, once however many texts it is aligned
 * with: its sentences as sorted word vectors, the postings of each word,
 * and the sentences that repeat one another (sim_align_side_new()).
 */
#include "config.h"

#include <string.h>

#include "sim-align-private.h"
#include "sim-parallel.h"
#include "sim-sort.h"
#include "sim-words.h"

/* Units of a piece of a long text whose sentences are counted on every
 * core (a source of 7.5 million characters took 446 ms on one). */
#define PIECE_UNITS (1u << 16)

/* A sentence's words: a quicksort down to runs of 16, then an insertion
 * sort (a CJK sentence is a bigram a character; qsort's callback was a
 * twentieth of a check). */
static void
sort_tokens (guint64 *t,
             guint    n)
{
  while (n > 16)
    {
      const guint64 a = t[0], b = t[n / 2], c = t[n - 1];
      const guint64 pivot = a < b ? (b < c ? b : MAX (a, c)) : (a < c ? a : MAX (b, c));
      guint i = 0, j = n - 1;

      for (;;)
        {
          while (t[i] < pivot)
            i++;
          while (t[j] > pivot)
            j--;
          if (i >= j)
            break;
          {
            const guint64 x = t[i];

            t[i++] = t[j];
            t[j--] = x;
          }
        }
      /* Hoare's partition: [0, j] <= pivot <= [j + 1, n). The smaller side recurses. */
      if (j + 1 < n - (j + 1))
        {
          sort_tokens (t, j + 1);
          t += j + 1;
          n -= j + 1;
        }
      else
        {
          sort_tokens (t + j + 1, n - (j + 1));
          n = j + 1;
        }
    }
  for (guint i = 1; i < n; i++)
    {
      const guint64 x = t[i];
      guint j = i;

      for (; j > 0 && t[j - 1] > x; j--)
        t[j] = t[j - 1];
      t[j] = x;
    }
}

/* Whether sentences @i and @j of @side have the same words, each as often. */
static gboolean
same_words (const SimAlignSide *side,
            guint               i,
            guint               j)
{
  const Vector *vi = &g_array_index (side->vectors, Vector, i), *vj = &g_array_index (side->vectors, Vector, j);
  const Entry *ei = &g_array_index (side->entries, Entry, vi->first);
  const Entry *ej = &g_array_index (side->entries, Entry, vj->first);

  if (vi->n != vj->n)
    return FALSE;
  for (guint k = 0; k < vi->n; k++)
    if (ei[k].token != ej[k].token || ei[k].tf != ej[k].tf)
      return FALSE;
  return TRUE;
}

/* The seed postings and the chains of identical sentences (see the struct). */
static void
index_copies (SimAlignSide *side)
{
  const guint n_sentences = side->vectors->len, n = side->entries->len;
  g_autoptr(GHashTable) first_of = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autofree guint *last_copy = g_new (guint, MAX (n_sentences, 1));
  g_autofree guint8 *is_copy = g_new0 (guint8, MAX (n_sentences, 1));
  g_autofree guint64 *keys = g_new (guint64, MAX (n_sentences, 1));
  guint k = 0;

  side->next_copy = g_new (guint, MAX (n_sentences, 1));
  for (guint s = 0; s < n_sentences; s++)
    {
      const Vector *v = &g_array_index (side->vectors, Vector, s);
      const Entry *e = &g_array_index (side->entries, Entry, v->first);
      guint64 h = v->n;
      gpointer found;

      for (guint i = 0; i < v->n; i++)
        h = sim_mix64 (h ^ e[i].token ^ ((guint64) e[i].tf << 56));
      keys[s] = h;
      side->next_copy[s] = G_MAXUINT;
      last_copy[s] = s;
      if (v->n > 0 && (found = g_hash_table_lookup (first_of, &keys[s])) != NULL &&
          same_words (side, GPOINTER_TO_UINT (found) - 1, s))
        {
          const guint first = GPOINTER_TO_UINT (found) - 1;

          side->next_copy[last_copy[first]] = s;
          last_copy[first] = s;
          is_copy[s] = 1;
        }
      else if (v->n > 0 && found == NULL)
        g_hash_table_insert (first_of, &keys[s], GUINT_TO_POINTER (s + 1));
    }
  side->seed_first = g_new (guint, side->n_words + 1);
  side->seed_postings = g_new (guint, MAX (n, 1));
  side->seed_sentence = g_new (guint, MAX (n, 1));
  for (guint w = 0; w < side->n_words; w++)
    {
      side->seed_first[w] = k;
      for (guint p = side->post_first[w]; p < side->post_first[w + 1]; p++)
        if (!is_copy[side->post_sentence[p]])
          {
            side->seed_postings[k] = side->postings[p];
            side->seed_sentence[k++] = side->post_sentence[p];
          }
    }
  side->seed_first[side->n_words] = k;
}

/* The words of sentences [@first, @last) of @text, each sentence's
 * sorted with their counts, appended to @entries (sentence numbers whole,
 * each vector's first from @entries' start); @tokens is scratch. */
static void
count_words (const SimAlignText *text,
             guint               first,
             guint               last,
             GArray             *tokens,
             GArray             *entries,
             Vector             *vectors)
{
  for (guint s = first; s < last; s++)
    {
      Vector *v = &vectors[s];
      const guint64 *t;
      Entry *out;

      g_array_set_size (tokens, 0);
      sim_words_tokenize (text->units, text->sentences[s].unit_start, text->sentences[s].unit_end, tokens, NULL);
      t = (const guint64 *) tokens->data;
      sort_tokens ((guint64 *) tokens->data, tokens->len);
      *v = (Vector) { entries->len, 0 };
      /* Into room for every token, then cut to the words (an append a
       * word was a call and a copy). */
      g_array_set_size (entries, v->first + tokens->len);
      out = &g_array_index (entries, Entry, v->first);
      for (guint i = 0; i < tokens->len; i++)
        if (v->n > 0 && t[i] == t[i - 1])
          out[v->n - 1].tf++;
        else
          out[v->n++] = (Entry) { t[i], 1, s, 0 };
      g_array_set_size (entries, v->first + v->n);
    }
}

/* A long text's sentences counted a piece at a time on every core, each
 * piece's entries appended in order as soon as those before are. */
typedef struct {
  const SimAlignText *text;
  const guint        *cut;       /* the pieces' first sentences, and the end */
  guint               n_pieces;
  gint                next;      /* the next piece to count */
  GArray            **counted;   /* a piece's entries, until appended */
  guint               appended;  /* pieces appended */
  GMutex              lock;      /* for @counted, @appended, @entries */
  GArray             *entries;
  Vector             *vectors;
} Pieces;

static void
count_pieces (gpointer data)
{
  Pieces *pieces = data;
  g_autoptr(GArray) tokens = g_array_new (FALSE, FALSE, sizeof (guint64));

  for (;;)
    {
      const gint i = g_atomic_int_add (&pieces->next, 1);
      GArray *entries;

      if (i >= (gint) pieces->n_pieces)
        break;
      entries = g_array_new (FALSE, FALSE, sizeof (Entry));
      count_words (pieces->text, pieces->cut[i], pieces->cut[i + 1], tokens, entries, pieces->vectors);
      g_mutex_lock (&pieces->lock);
      pieces->counted[i] = entries;
      while (pieces->appended < pieces->n_pieces && pieces->counted[pieces->appended] != NULL)
        {
          const guint p = pieces->appended++;
          const guint offset = pieces->entries->len;

          for (guint s = pieces->cut[p]; s < pieces->cut[p + 1]; s++)
            pieces->vectors[s].first += offset;
          g_array_append_vals (pieces->entries, pieces->counted[p]->data, pieces->counted[p]->len);
          g_clear_pointer (&pieces->counted[p], g_array_unref);
        }
      g_mutex_unlock (&pieces->lock);
    }
}

SimAlignSide *
sim_align_side_new (const SimAlignText *text)
{
  SimAlignSide *side = g_new0 (SimAlignSide, 1);
  const guint32 n_units = text->n_sentences > 0
                            ? text->sentences[text->n_sentences - 1].unit_end - text->sentences[0].unit_start : 0;
  const guint n_threads = sim_parallel_default_threads ();
  g_autofree SimKeyed *occ = NULL;
  g_autofree SimKeyed *tmp = NULL;
  Entry *entries;
  guint n;

  side->text = *text;
  side->entries = g_array_sized_new (FALSE, FALSE, sizeof (Entry), n_units / 2 + 16);
  side->vectors = g_array_sized_new (FALSE, TRUE, sizeof (Vector), text->n_sentences);
  g_array_set_size (side->vectors, text->n_sentences);
  /* Each sentence's words, sorted with their counts. */
  if (n_threads > 1 && n_units >= 4 * PIECE_UNITS)
    {
      g_autoptr(GArray) cut = g_array_new (FALSE, FALSE, sizeof (guint));
      Pieces pieces = { text };
      guint32 from = text->sentences[0].unit_start;

      for (guint s = 0; s < text->n_sentences; s++)
        if (s == 0 || text->sentences[s].unit_start - from >= PIECE_UNITS)
          {
            g_array_append_val (cut, s);
            from = text->sentences[s].unit_start;
          }
      g_array_append_val (cut, text->n_sentences);
      pieces.cut = (const guint *) cut->data;
      pieces.n_pieces = cut->len - 1;
      pieces.counted = g_new0 (GArray *, pieces.n_pieces);
      pieces.entries = side->entries;
      pieces.vectors = (Vector *) side->vectors->data;
      g_mutex_init (&pieces.lock);
      sim_parallel_run (MIN (n_threads, pieces.n_pieces), count_pieces, &pieces);
      g_mutex_clear (&pieces.lock);
      g_free (pieces.counted);
    }
  else
    {
      g_autoptr(GArray) tokens = g_array_new (FALSE, FALSE, sizeof (guint64));

      count_words (text, 0, text->n_sentences, tokens, side->entries, (Vector *) side->vectors->data);
    }
  entries = (Entry *) side->entries->data;
  n = side->entries->len;
  /* The distinct words, how many sentences hold each, and where. */
  occ = g_new (SimKeyed, MAX (n, 1));
  tmp = g_new (SimKeyed, MAX (n, 1));
  for (guint k = 0; k < n; k++)
    occ[k] = (SimKeyed) { entries[k].token, k };
  if (n > 0)
    sim_sort_keyed (occ, tmp, n);
  side->words = g_new (guint64, MAX (n, 1));
  side->df = g_new (guint, MAX (n, 1));
  side->post_first = g_new (guint, n + 1);
  side->postings = g_new (guint, MAX (n, 1));
  side->post_sentence = g_new (guint, MAX (n, 1));
  for (guint k = 0; k < n; k++)
    {
      if (k == 0 || occ[k].key != occ[k - 1].key)
        {
          side->post_first[side->n_words] = k;
          side->words[side->n_words] = occ[k].key;
          side->df[side->n_words++] = 0;
        }
      side->df[side->n_words - 1]++;
      side->postings[k] = occ[k].value;
      side->post_sentence[k] = entries[occ[k].value].sentence;
      entries[occ[k].value].word = side->n_words - 1;
    }
  side->post_first[side->n_words] = n;
  index_copies (side);
  return side;
}

SimAlignSide *
sim_align_side_new_range (const SimAlignSide *whole,
                          guint               first,
                          guint               last)
{
  SimAlignSide *side = g_new0 (SimAlignSide, 1);
  const Vector *vectors = (const Vector *) whole->vectors->data;
  const guint e0 = first < last ? vectors[first].first : 0;
  const guint e1 = first < last ? vectors[last - 1].first + vectors[last - 1].n : 0;
  const guint n = e1 - e0;
  Entry *entries;
  guint k = 0;

  g_return_val_if_fail (first <= last && last <= whole->text.n_sentences, side);
  side->text = whole->text;
  side->text.sentences += first;
  side->text.n_sentences = last - first;
  side->text.is_whole = whole->text.is_whole && first == 0 && last == whole->text.n_sentences;
  /* A sentence's entries are contiguous and in sentence order. */
  side->entries = g_array_sized_new (FALSE, FALSE, sizeof (Entry), n);
  side->vectors = g_array_sized_new (FALSE, TRUE, sizeof (Vector), last - first);
  g_array_append_vals (side->entries, &g_array_index (whole->entries, Entry, e0), n);
  g_array_append_vals (side->vectors, vectors + first, last - first);
  entries = (Entry *) side->entries->data;
  for (guint s = 0; s < side->vectors->len; s++)
    g_array_index (side->vectors, Vector, s).first -= e0;
  side->words = g_new (guint64, MAX (n, 1));
  side->df = g_new (guint, MAX (n, 1));
  side->post_first = g_new (guint, n + 1);
  side->postings = g_new (guint, MAX (n, 1));
  side->post_sentence = g_new (guint, MAX (n, 1));
  /* The whole's words are sorted and each one's postings in text order:
   * those inside the range, in the same order, are this side's. */
  for (guint w = 0; w < whole->n_words; w++)
    {
      const guint *p = whole->postings + whole->post_first[w];
      const guint *end = whole->postings + whole->post_first[w + 1];

      while (p < end && *p < e0)
        p++;
      if (p == end || *p >= e1)
        continue;
      side->post_first[side->n_words] = k;
      side->words[side->n_words] = whole->words[w];
      side->df[side->n_words] = 0;
      for (; p < end && *p < e1; p++)
        {
          side->df[side->n_words]++;
          side->postings[k] = *p - e0;
          side->post_sentence[k] = entries[*p - e0].sentence - first;
          entries[*p - e0].word = side->n_words;
          k++;
        }
      side->n_words++;
    }
  side->post_first[side->n_words] = k;
  for (guint i = 0; i < n; i++)
    entries[i].sentence -= first;
  index_copies (side);
  return side;
}

void
sim_align_side_free (SimAlignSide *side)
{
  if (side == NULL)
    return;
  g_array_unref (side->entries);
  g_array_unref (side->vectors);
  g_free (side->words);
  g_free (side->df);
  g_free (side->post_first);
  g_free (side->postings);
  g_free (side->post_sentence);
  g_free (side->seed_first);
  g_free (side->seed_postings);
  g_free (side->seed_sentence);
  g_free (side->next_copy);
  g_free (side);
}
