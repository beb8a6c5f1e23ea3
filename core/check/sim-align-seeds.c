/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The aligner's first stage (sim-align.h): two prepared sides paired,
 * weighed, and their similar sentence pairs found as seeds. Uses the
 * prepared sides alone (sim-align-private.h); sim-align.c calls it.
 */
#include "config.h"

#include <math.h>

#include "sim-align-private.h"

#define MAX_POSTINGS      4000   /* a word in more sentences than this says nothing */
#define MAX_SEEDS_PER_SENTENCE 8 /* partners kept for one sentence of A */

/* Each prepared side's words looked up on the other side, in one merge of
 * the two sorted word lists. */
static void
sides_pair (const SimAlignSide *a,
            const SimAlignSide *b,
            Side               *sa,
            Side               *sb)
{
  guint x = 0, y = 0;

  sa->prepared = a;
  sb->prepared = b;
  sa->other = g_new (guint, MAX (a->n_words, 1));
  sb->other = g_new (guint, MAX (b->n_words, 1));
  /* Without branches on the words: a side's index is written until it
   * moves on, matched or not. */
  while (x < a->n_words && y < b->n_words)
    {
      const guint64 u = a->words[x], v = b->words[y];

      sa->other[x] = u == v ? y : G_MAXUINT;
      sb->other[y] = u == v ? x : G_MAXUINT;
      x += u <= v;
      y += v <= u;
    }
  for (; x < a->n_words; x++)
    sa->other[x] = G_MAXUINT;
  for (; y < b->n_words; y++)
    sb->other[y] = G_MAXUINT;
}

/* The weight of @e, a word of @p, for the pair of @p and @q (@other: @p's
 * words on @q's side): tf times its inverse sentence frequency over both
 * texts (@n_sentences), whose logarithm @idf holds when not NULL (for
 * each frequency up to @n_sentences). */
static inline float
entry_weight (const SimAlignSide *p,
              const guint        *other,
              const SimAlignSide *q,
              const Entry        *e,
              guint               n_sentences,
              const float        *idf)
{
  const guint w = other[e->word];
  const guint f = MAX (p->df[e->word] + (w != G_MAXUINT ? q->df[w] : 0), 1);

  return e->tf * (idf != NULL && f <= n_sentences ? idf[f] : logf ((float) (n_sentences + 1) / f));
}

/* The norm side_weigh() gives sentence @s of @side. */
static float
sentence_norm (const Side         *side,
               const SimAlignSide *q,
               guint               s,
               guint               n_sentences)
{
  const SimAlignSide *p = side->prepared;
  const Vector *v = &g_array_index (p->vectors, Vector, s);
  double norm = 0;

  for (guint i = v->first; i < v->first + v->n; i++)
    {
      const float w = entry_weight (p, side->other, q, &g_array_index (p->entries, Entry, i), n_sentences, NULL);

      norm += (double) w * w;
    }
  return sqrt (norm);
}

/* The first entry of word @w's postings on @p that seeding reads: the
 * last MAX_POSTINGS sentences holding it. */
static inline guint
capped_from (const SimAlignSide *p,
             guint               w)
{
  return p->seed_postings[MAX (p->seed_first[w], (gint64) p->seed_first[w + 1] - MAX_POSTINGS)];
}

/* The words of sentence @i of A that sentence @j of B (one seeding reads:
 * not a copy) holds within their capped postings: how many, and with @dot
 * the sum of their weights' products in A's order, as a walk of the
 * postings would sum them: the pair's weights (side_weigh()) once both
 * sides are weighed, else the same weights worked out for these words
 * alone (may_seed(), before the sides are weighed). */
static guint
shared_words (const Side *a,
              const Side *b,
              guint       i,
              guint       j,
              double     *dot)
{
  const SimAlignSide *pa = a->prepared, *pb = b->prepared;
  const guint n_sentences = pa->vectors->len + pb->vectors->len;
  const Vector *va = &g_array_index (pa->vectors, Vector, i);
  const Vector *vb = &g_array_index (pb->vectors, Vector, j);
  const Entry *eb = &g_array_index (pb->entries, Entry, vb->first);
  guint shared = 0, y = 0;

  for (guint k = va->first; k < va->first + va->n; k++)
    {
      const Entry *e = &g_array_index (pa->entries, Entry, k);
      const guint w = a->other[e->word];

      if (w == G_MAXUINT)
        continue;
      /* Both sentences' words are sorted. */
      while (y < vb->n && eb[y].token < e->token)
        y++;
      if (y == vb->n)
        break;
      if (eb[y].token != e->token || vb->first + y < capped_from (pb, w))
        continue;
      shared++;
      if (dot != NULL && a->weights != NULL)
        *dot += (double) a->weights[k] * b->weights[vb->first + y];
      else if (dot != NULL)
        *dot += (double) entry_weight (pa, a->other, pb, e, n_sentences, NULL) *
                entry_weight (pb, b->other, pa, &eb[y], n_sentences, NULL);
    }
  return shared;
}

/* The sentences of B that share a word with sentence @i of A (through the
 * capped postings of B, as met), into @touched (room for each sentence of
 * B: each is met once), with how many they share in @shared (zero for the
 * others; the caller zeroes those it is given). Returns how many. Put in a
 * GArray, a call each, they were a fifteenth of a class's cross. */
static guint
sentence_partners (const Side *a,
                   const Side *b,
                   guint       i,
                   guint      *shared,
                   guint      *touched)
{
  const SimAlignSide *pa = a->prepared, *pb = b->prepared;
  const Vector *va = &g_array_index (pa->vectors, Vector, i);
  guint n = 0;

  for (guint k = va->first; k < va->first + va->n; k++)
    {
      const guint w = a->other[g_array_index (pa->entries, Entry, k).word];

      if (w == G_MAXUINT)
        continue;
      /* The last MAX_POSTINGS sentences holding the word, last first. */
      for (guint p = pb->seed_first[w + 1]; p > pb->seed_first[w] && pb->seed_first[w + 1] - p < MAX_POSTINGS; p--)
        {
          const guint j = pb->seed_sentence[p - 1];

          if (shared[j]++ == 0)
            touched[n++] = j;
        }
    }
  return n;
}

/* find_seeds()'s cosine of sentence @i of A and @j of B, from the prepared
 * sides: the same sum in the same order, over the same capped postings. */
static double
seed_cosine (const Side *a,
             const Side *b,
             guint       i,
             guint       j)
{
  const guint n_sentences = a->prepared->vectors->len + b->prepared->vectors->len;
  const float na = sentence_norm (a, b->prepared, i, n_sentences), nb = sentence_norm (b, a->prepared, j, n_sentences);
  double dot = 0;

  if (na <= 0 || nb <= 0)
    return 0;
  shared_words (a, b, i, j, &dot);
  return dot / (na * nb);
}

/* Whether find_seeds() will find a seed: its Dice test (which needs no
 * weights) on the same postings, then the cosine of the pairs that pass
 * it, weighed for them alone. Most pairs of texts that share a phrase
 * stop here, before both texts are weighed. */
static gboolean
may_seed (const Side *a,
          const Side *b)
{
  const SimAlignSide *pa = a->prepared, *pb = b->prepared;
  g_autofree guint *shared = g_new0 (guint, MAX (pb->vectors->len, 1));
  g_autofree guint *touched = g_new (guint, MAX (pb->vectors->len, 1));
  gboolean found = FALSE;

  for (guint i = 0; i < pa->vectors->len && !found; i++)
    {
      const Vector *va = &g_array_index (pa->vectors, Vector, i);
      const guint n_touched = sentence_partners (a, b, i, shared, touched);

      for (guint t = 0; t < n_touched; t++)
        {
          const guint j = touched[t];
          const Vector *vb = &g_array_index (pb->vectors, Vector, j);

          if (!found && 2.0 * shared[j] / (va->n + vb->n) > SIM_ALIGN_SEED &&
              seed_cosine (a, b, i, j) > SIM_ALIGN_SEED)
            found = TRUE;
          shared[j] = 0;
        }
    }
  return found;
}

/* Room for the pair's weights and norms of a side. */
static void
side_alloc (Side *side)
{
  side->n_sentences = side->prepared->vectors->len;
  side->weights = g_new (float, MAX (side->prepared->entries->len, 1));
  side->norms = g_new (float, MAX (side->n_sentences, 1));
  side->bag = g_new0 (float, MAX (side->prepared->n_words, 1));
  side->touched = g_new (guint, MAX (side->prepared->n_words, 1));
}

/* Weights each word by its inverse sentence frequency over both texts,
 * the logarithms read from @idf (a logf() an entry of both sides was a
 * tenth of a class's cross). */
static void
side_weigh (Side        *side,
            const Side  *other,
            guint        n_sentences,
            const float *idf)
{
  const SimAlignSide *p = side->prepared, *q = other->prepared;

  for (guint s = 0; s < side->n_sentences; s++)
    {
      const Vector *v = side_vector (side, s);
      double norm = 0;

      for (guint i = v->first; i < v->first + v->n; i++)
        {
          const float w = entry_weight (p, side->other, q, side_entry (side, i), n_sentences, idf);

          side->weights[i] = w;
          norm += (double) w * w;
        }
      side->norms[s] = sqrt (norm);
    }
}

void
_sim_align_side_clear (Side *side)
{
  g_clear_pointer (&side->weights, g_free);
  g_clear_pointer (&side->norms, g_free);
  g_clear_pointer (&side->other, g_free);
  g_clear_pointer (&side->bag, g_free);
  g_clear_pointer (&side->touched, g_free);
}

/* Best partner first: higher cosine, then nearer the expected sentence. */
static int
compare_partners (gconstpointer a,
                  gconstpointer b,
                  gpointer      data)
{
  const Seed *x = a, *y = b;
  const gint expected = *(const guint *) data;
  const guint dx = ABS ((gint) x->j - expected), dy = ABS ((gint) y->j - expected);

  if (x->cosine != y->cosine)
    return x->cosine > y->cosine ? -1 : 1;
  return dx < dy ? -1 : dx > dy;
}

static int
compare_seeds (gconstpointer a,
               gconstpointer b)
{
  const Seed *x = a, *y = b;

  if (x->i != y->i)
    return x->i < y->i ? -1 : 1;
  return x->j < y->j ? -1 : x->j > y->j;
}

/* Sentence pairs similar as bags of words: through B's postings, so only
 * pairs that share a word are ever scored, and only those that pass the
 * Dice test are weighed (their words merged: summed in the walk, the
 * weights of B read at every posting were most of a long source's
 * seeding). */
static GArray *
find_seeds (const Side *a,
            const Side *b)
{
  GArray *seeds = g_array_new (FALSE, FALSE, sizeof (Seed));
  const SimAlignSide *pb = b->prepared;
  const guint nb = b->n_sentences;
  g_autofree guint *shared = g_new0 (guint, MAX (nb, 1));
  g_autofree guint *touched = g_new (guint, MAX (nb, 1));
  g_autoptr(GArray) mine = g_array_new (FALSE, FALSE, sizeof (Seed));
  guint expected = 0;

  for (guint i = 0; i < a->n_sentences; i++)
    {
      const Vector *va = side_vector (a, i);
      guint n_touched;

      if (va->n == 0 || a->norms[i] <= 0)
        continue;
      n_touched = sentence_partners (a, b, i, shared, touched);
      g_array_set_size (mine, 0);
      for (guint t = 0; t < n_touched; t++)
        {
          const guint j = touched[t];
          const Vector *vb = side_vector (b, j);
          const double dice = 2.0 * shared[j] / (va->n + vb->n);
          double dot = 0, cosine;

          shared[j] = 0;
          if (!(dice > SIM_ALIGN_SEED) || b->norms[j] <= 0)
            continue;
          shared_words (a, b, i, j, &dot);
          cosine = dot / (a->norms[i] * b->norms[j]);
          /* The same seed with every copy of the sentence. */
          if (cosine > SIM_ALIGN_SEED)
            for (guint c = j, n_copies = 0; c != G_MAXUINT && n_copies < MAX_POSTINGS; c = pb->next_copy[c], n_copies++)
              {
                Seed s = { i, c, cosine };

                g_array_append_val (mine, s);
              }
        }
      /* A sentence repeated all over B keeps only its best partners, those
       * nearest where the previous sentence's went first: memory and time
       * stay bounded, and a copy still follows its neighbours. */
      if (mine->len > MAX_SEEDS_PER_SENTENCE)
        {
          g_array_sort_with_data (mine, compare_partners, &expected);
          g_array_set_size (mine, MAX_SEEDS_PER_SENTENCE);
        }
      if (mine->len > 0)
        {
          guint best = 0;

          for (guint k = 1; k < mine->len; k++)
            if (g_array_index (mine, Seed, k).cosine > g_array_index (mine, Seed, best).cosine)
              best = k;
          expected = g_array_index (mine, Seed, best).j + 1;
        }
      g_array_append_vals (seeds, mine->data, mine->len);
    }
  g_array_sort (seeds, compare_seeds);
  return seeds;
}

GArray *
_sim_align_seed (const SimAlignSide *pa,
                 const SimAlignSide *pb,
                 Side               *sa,
                 Side               *sb)
{
  const guint n_sentences = pa->text.n_sentences + pb->text.n_sentences;

  sides_pair (pa, pb, sa, sb);
  if (!may_seed (sa, sb))
    {
      _sim_align_side_clear (sa);
      _sim_align_side_clear (sb);
      return NULL;
    }
  side_alloc (sa);
  side_alloc (sb);
  {
    g_autofree float *idf = g_new (float, (gsize) n_sentences + 1);

    for (guint f = 1; f <= n_sentences; f++)
      idf[f] = logf ((float) (n_sentences + 1) / f);
    side_weigh (sa, sb, n_sentences, idf);
    side_weigh (sb, sa, n_sentences, idf);
  }
  return find_seeds (sa, sb);
}
