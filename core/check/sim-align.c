/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The aligner (sim-align.h) over two prepared sides (sim-align-side.c):
 * the seeds sim-align-seeds.c finds, their extension into fragments, and
 * the filtering of fragments into passages, whose ends sim-align-ends.c
 * narrows.
 */
#include "config.h"

#include <math.h>

#include "sim-align-private.h"
#include "sim-words.h"

#define SUMMARY_GAP       24     /* source sentences a summary may skip between two of its own */
#define SUMMARY_RATIO     0.5f   /* A this much shorter than B: a summary */
#define SUMMARY_STRONG_SEED 0.5f /* a summary of two seeds has one this similar */
#define MAX_CHAIN         4096   /* seeds of one passage put in order (quadratic) */
#define REORDER           3      /* sentences a reordered pair may stray from the chain */
#define FOREIGN_SHARE     0.2f   /* a sentence sharing less of its weight with the source is foreign */
#define FOREIGN_MIN_WORDS 4      /* shorter sentences are never called foreign */
#define GROW_COSINE       0.2f   /* an edge sentence this similar to the next source sentence joins */
#define GROW_REACH        2      /* source sentences an edge sentence may be matched across */
#define GROW_SHARE        0.3f   /* of the passage's share of words found, an edge sentence's share at least */


/* ------------------------------------------------------------ extension */

static guint
find_root (guint *parent,
           guint  x)
{
  while (parent[x] != x)
    x = parent[x] = parent[parent[x]];
  return x;
}

typedef struct {
  guint a_first, a_last;  /* sentences, inclusive */
  guint b_first, b_last;
  guint n_seeds;
  guint n_pairs;     /* of them, separate evidence (distinct_pairs()) */
  guint n_words;     /* distinct words of A's side */
  gboolean is_summary;
  float cosine;
  float similarity;
  float best_seed;   /* the highest cosine of its seeds */
} Fragment;

/* Sums the sentence vectors [first, last] into @side's bag, by word (a
 * weight is never 0: the log of more sentences than hold its word);
 * returns how many words it holds (listed in @side->touched). */
static guint
bag_of (const Side *side,
        guint       first,
        guint       last)
{
  guint n = 0;

  for (guint s = first; s <= last; s++)
    {
      const Vector *v = side_vector (side, s);

      for (guint k = v->first; k < v->first + v->n; k++)
        {
          const guint w = side_entry (side, k)->word;

          if (side->bag[w] == 0)
            side->touched[n++] = w;
          side->bag[w] += side->weights[k];
        }
    }
  return n;
}

/* Cosine of the two sides, and the share of A's weight found in B. */
static void
score_fragment (const Side *a,
                const Side *b,
                Fragment   *f)
{
  const guint n_a = bag_of (a, f->a_first, f->a_last);
  const guint n_b = bag_of (b, f->b_first, f->b_last);
  double dot = 0, na = 0, nb = 0, total = 0, found = 0;

  for (guint k = 0; k < n_b; k++)
    nb += (double) b->bag[b->touched[k]] * b->bag[b->touched[k]];
  for (guint k = 0; k < n_a; k++)
    {
      const guint w = a->touched[k];
      const float wa = a->bag[w];
      const float wb = a->other[w] != G_MAXUINT ? b->bag[a->other[w]] : 0;

      na += (double) wa * wa;
      total += wa;
      dot += (double) wa * wb;
      found += MIN (wa, wb);
    }
  for (guint k = 0; k < n_a; k++)
    a->bag[a->touched[k]] = 0;
  for (guint k = 0; k < n_b; k++)
    b->bag[b->touched[k]] = 0;
  f->n_words = n_a;
  f->cosine = na > 0 && nb > 0 ? dot / sqrt (na * nb) : 0;
  f->similarity = total > 0 ? found / total : 0;
}

/* Keeps the seeds of @group (sorted by A, then B) that go forward in both
 * texts together, the heaviest such chain (one pair per sentence of A): a reused passage keeps its order
 * (words may be shuffled, sentences are not), so a pair that runs against
 * it is a topical echo that would only stretch the passage. Returns how
 * many are kept, moved to the front. */
static guint
keep_in_order (Seed  *seeds,
               guint  n)
{
  g_autofree float *best = NULL;
  g_autofree guint *prev = NULL;
  guint end = 0, kept = 0;

  if (n < 3 || n > MAX_CHAIN)
    return n;
  /* Already in order (as every part of a group split at foreign text is):
   * the chain is the whole group. The split peels a group a part at a
   * time, so this test keeps a source repeated through an article linear
   * where the chain made it cubic. */
  {
    guint k = 1;

    while (k < n && seeds[k - 1].i < seeds[k].i && seeds[k - 1].j <= seeds[k].j)
      k++;
    if (k == n)
      return n;
  }
  best = g_new (float, n);
  prev = g_new (guint, n);
  for (guint k = 0; k < n; k++)
    {
      best[k] = seeds[k].cosine;
      prev[k] = G_MAXUINT;
      for (guint m = 0; m < k; m++)
        if (seeds[m].i < seeds[k].i && seeds[m].j <= seeds[k].j && best[m] + seeds[k].cosine > best[k])
          {
            best[k] = best[m] + seeds[k].cosine;
            prev[k] = m;
          }
      if (best[k] > best[end])
        end = k;
    }
  {
    g_autofree gboolean *on_chain = g_new0 (gboolean, n);
    g_autofree gboolean *keep = g_new0 (gboolean, n);

    for (guint k = end; k != G_MAXUINT; k = prev[k])
      on_chain[k] = keep[k] = TRUE;
    /* Sentences close together may swap their partners (reordered text). */
    for (guint k = 0; k < n; k++)
      for (guint m = 0; m < n && !keep[k]; m++)
        keep[k] = on_chain[m] && (guint) ABS ((gint) seeds[m].i - (gint) seeds[k].i) <= REORDER &&
                  (guint) ABS ((gint) seeds[m].j - (gint) seeds[k].j) <= REORDER;
    for (guint k = 0; k < n; k++)
      if (keep[k])
        seeds[kept++] = seeds[k];
    return kept;
  }
}

/* Whether word @w of @b's side is in one of its sentences [@first,
 * @last]: the word's postings are in text order. */
static gboolean
word_in_sentences (const Side *b,
                   guint       w,
                   guint       first,
                   guint       last)
{
  const SimAlignSide *p = b->prepared;
  guint lo = p->post_first[w], hi = p->post_first[w + 1];

  while (lo < hi)
    {
      const guint mid = lo + (hi - lo) / 2;

      if (p->post_sentence[mid] < first)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < p->post_first[w + 1] && p->post_sentence[lo] <= last;
}

/* The first sentence of A between two seeds of @group (@n, sorted by A) that has
 * words but shares almost none with B's side of the group: text inserted
 * from elsewhere, not an edited sentence of the source. G_MAXUINT if none.
 * A word is looked up in B's postings, not in a set of the group's words
 * made for it: against a source that repeats itself, groups span much of
 * it, and the sets were a tenth of aligning the two. */
static guint
find_foreign (const Side *a,
              const Side *b,
              const Seed *group,
              guint       n)
{
  guint b_first = G_MAXUINT, b_last = 0;

  if (n < 2)
    return G_MAXUINT;
  for (guint k = 0; k < n; k++)
    {
      b_first = MIN (b_first, group[k].j);
      b_last = MAX (b_last, group[k].j);
    }
  for (guint k = 1; k < n; k++)
    {
      const Seed *prev = &group[k - 1];
      const Seed *s = &group[k];

      for (guint i = prev->i + 1; i < s->i; i++)
        {
          const Vector *v = side_vector (a, i);
          double total = 0, found = 0;

          if (v->n < FOREIGN_MIN_WORDS)
            continue;
          for (guint e = v->first; e < v->first + v->n; e++)
            {
              const guint w = a->other[side_entry (a, e)->word];

              total += a->weights[e];
              if (w != G_MAXUINT && word_in_sentences (b, w, b_first, b_last))
                found += a->weights[e];
            }
          if (total > 0 && found < FOREIGN_SHARE * total)
            return i;
        }
    }
  return G_MAXUINT;
}

/* How many of @n seeds (sorted by A) are separate evidence of a copy: as
 * many as the fewer of their distinct sentences on either side. One
 * sentence of A paired with two of B ("Type 2 of the disease ... Type 3 of
 * the disease"), or two of A with one of B, is one pair. */
static guint
distinct_pairs (const Seed *seeds,
                guint       n)
{
  g_autoptr(GHashTable) b = g_hash_table_new (NULL, NULL);
  guint n_a = 0;

  for (guint k = 0; k < n; k++)
    {
      n_a += k == 0 || seeds[k].i != seeds[k - 1].i;
      g_hash_table_add (b, GUINT_TO_POINTER (seeds[k].j + 1));
    }
  return MIN (n_a, g_hash_table_size (b));
}

/* Joins seeds closer than @gap_a sentences in A and @gap_b in B into
 * fragments; a fragment not similar enough as a whole is split again with
 * smaller gaps. */
/* A run of seeds in one group's array: a group split at foreign text is
 * its parts, none copied (a source repeated through an article split its
 * group thousands of times, each copy the size of the rest). */
typedef struct {
  GArray *seeds;  /* the group's, borrowed */
  guint   off;
  guint   len;
} Part;

static void
cluster (const Side *a,
         const Side *b,
         const Seed *seeds,
         guint       n,
         guint       gap_a,
         guint       gap_b,
         GArray     *out)
{
  g_autofree guint *parent = g_new (guint, MAX (n, 1));
  g_autoptr(GHashTable) roots = g_hash_table_new (NULL, NULL);
  g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autoptr(GArray) parts = g_array_new (FALSE, FALSE, sizeof (Part));

  for (guint k = 0; k < n; k++)
    parent[k] = k;
  /* Seeds are sorted by A's sentence, then B's. */
  for (guint k = 0; k < n; k++)
    for (guint m = k + 1; m < n && seeds[m].i <= seeds[k].i + gap_a + 1; m++)
      if ((guint) ABS ((gint) seeds[m].j - (gint) seeds[k].j) <= gap_b + 1)
        parent[find_root (parent, m)] = find_root (parent, k);
  for (guint k = 0; k < n; k++)
    {
      const guint r = find_root (parent, k);
      GArray *group = g_hash_table_lookup (roots, GUINT_TO_POINTER (r + 1));

      if (group == NULL)
        {
          group = g_array_new (FALSE, FALSE, sizeof (Seed));
          g_ptr_array_add (groups, group);
          g_hash_table_insert (roots, GUINT_TO_POINTER (r + 1), group);
        }
      g_array_append_val (group, seeds[k]);
    }
  for (guint g = 0; g < groups->len; g++)
    {
      const Part whole = { g_ptr_array_index (groups, g), 0, ((GArray *) g_ptr_array_index (groups, g))->len };

      g_array_append_val (parts, whole);
    }
  for (guint g = 0; g < parts->len; g++)
    {
      Part *part = &g_array_index (parts, Part, g);
      Seed *group = (Seed *) part->seeds->data + part->off;
      Fragment f = { G_MAXUINT, 0, G_MAXUINT, 0, 0, 0, 0, FALSE, 0, 0, 0 };
      guint foreign;

      part->len = keep_in_order (group, part->len);
      /* Text foreign to the source is no gap to bridge: split there, and
       * look at both halves again. */
      foreign = find_foreign (a, b, group, part->len);
      if (foreign != G_MAXUINT)
        {
          Part after = *part;
          guint n_before = 0;

          /* Sorted by A: the seeds before the foreign sentence come first. */
          while (n_before < part->len && group[n_before].i < foreign)
            n_before++;
          after.off += n_before;
          after.len -= n_before;
          part->len = n_before;
          g_array_append_val (parts, after);
          g--;
          continue;
        }
      f.n_seeds = part->len;
      f.n_pairs = distinct_pairs (group, part->len);
      for (guint k = 0; k < part->len; k++)
        {
          const Seed *s = &group[k];

          f.a_first = MIN (f.a_first, s->i);
          f.a_last = MAX (f.a_last, s->i);
          f.b_first = MIN (f.b_first, s->j);
          f.b_last = MAX (f.b_last, s->j);
          f.best_seed = MAX (f.best_seed, s->cosine);
        }
      score_fragment (a, b, &f);
      if (f.cosine < SIM_ALIGN_VALIDATE && part->len > 1 && MAX (gap_a, gap_b) > 0)
        cluster (a, b, group, part->len, gap_a ? gap_a - 1 : 0,
                 gap_b > gap_a ? gap_b / 2 : (gap_b ? gap_b - 1 : 0), out);
      else
        g_array_append_val (out, f);
    }
}

/* ------------------------------------------------------------ filtering */

static guint32
a_length (const SimAlignText *a,
          const Fragment     *f)
{
  return a->sentences[f->a_last].end - a->sentences[f->a_first].start;
}

static guint32
b_length (const SimAlignText *b,
          const Fragment     *f)
{
  return b->sentences[f->b_last].end - b->sentences[f->b_first].start;
}

static int
compare_quality (gconstpointer x,
                 gconstpointer y,
                 gpointer      text)
{
  const Fragment *f = x, *g = y;
  const double qf = f->cosine * a_length (text, f), qg = g->cosine * a_length (text, g);

  return qf > qg ? -1 : qf < qg;
}

/* Whether one valid fragment of @fragments covers most of @f's span in A:
 * then @f is that fragment with far source sentences added, not a summary
 * (which joins several fragments, each of a bit of the source). */
static gboolean
explained_by_one (const SimAlignText *a,
                  const GArray       *fragments,
                  const Fragment     *f)
{
  const guint32 f_start = a->sentences[f->a_first].start, f_end = a->sentences[f->a_last].end;
  guint n_overlapping = 0;
  guint32 covered = 0;

  for (guint k = 0; k < fragments->len; k++)
    {
      const Fragment *g = &g_array_index (fragments, Fragment, k);
      const guint32 lo = MAX (f_start, a->sentences[g->a_first].start);
      const guint32 hi = MIN (f_end, a->sentences[g->a_last].end);

      if (hi <= lo || g->cosine < SIM_ALIGN_VALIDATE)
        continue;
      n_overlapping++;
      covered = MAX (covered, hi - lo);
    }
  return n_overlapping <= 1 && covered * 5 >= (f_end - f_start) * 4;
}

/* The words of @side's sentences [first, last]. */
static GHashTable *
word_set (const Side *side,
          guint       first,
          guint       last)
{
  GHashTable *words = g_hash_table_new (NULL, NULL);

  for (guint j = first; j <= last; j++)
    {
      const Vector *w = side_vector (side, j);

      for (guint e = w->first; e < w->first + w->n; e++)
        g_hash_table_add (words, GSIZE_TO_POINTER ((gsize) side_entry (side, e)->token));
    }
  return words;
}

/* Cosine of sentence @i of @a and sentence @j of @b. */
static float
pair_cosine (const Side *a,
             guint       i,
             const Side *b,
             guint       j)
{
  const Vector *va = side_vector (a, i);
  const Vector *vb = side_vector (b, j);
  const Entry *ea = side_entry (a, va->first);
  const Entry *eb = side_entry (b, vb->first);
  const float *wa = a->weights + va->first, *wb = b->weights + vb->first;
  guint x = 0, y = 0;
  double dot = 0;

  if (a->norms[i] <= 0 || b->norms[j] <= 0)
    return 0;
  while (x < va->n && y < vb->n)
    {
      if (ea[x].token < eb[y].token)
        x++;
      else if (ea[x].token > eb[y].token)
        y++;
      else
        dot += (double) wa[x++] * wb[y++];
    }
  return dot / (a->norms[i] * b->norms[j]);
}

/* The weighted share of sentence @i of @x's words that sentence @j of @y has. */
static float
pair_share (const Side *x,
            guint       i,
            const Side *y,
            guint       j)
{
  const Vector *vx = side_vector (x, i), *vy = side_vector (y, j);
  const Entry *ex = side_entry (x, vx->first), *ey = side_entry (y, vy->first);
  const float *wx = x->weights + vx->first;
  double total = 0, found = 0;
  guint p = 0, q = 0;

  /* Both sentences' words are sorted by token. */
  for (; p < vx->n; p++)
    {
      total += wx[p];
      while (q < vy->n && ey[q].token < ex[p].token)
        q++;
      if (q < vy->n && ey[q].token == ex[p].token)
        found += wx[p];
    }
  return total > 0 ? found / total : 0;
}

/* Whether sentence @i of @a joins @f as the copy of sentence @j of @b: weakly
 * similar (the edges of a reused passage are often edited hardest), and
 * holding a share of the source sentence's words not far below the share
 * the passage holds of its source: the writer's own sentence beside a copy
 * shares a topic's words with the source's next sentence, and little else. */
static gboolean
joins (const Side     *a,
       guint           i,
       const Side     *b,
       guint           j,
       const Fragment *f)
{
  return pair_cosine (a, i, b, j) >= GROW_COSINE && pair_share (a, i, b, j) >= GROW_SHARE * f->similarity;
}

/* Extends @f by the sentences just before and after it that join it
 * (joins()) as copies of the source sentences just before and after its
 * source side. */
static void
grow (const Side *a,
      const Side *b,
      Fragment   *f)
{
  gboolean grew = FALSE;

  if (f->is_summary)
    return;
  for (;;)
    {
      gboolean step = FALSE;

      if (f->a_last + 1 < a->n_sentences)
        for (guint d = 1; d <= GROW_REACH && f->b_last + d < b->n_sentences && !step; d++)
          if (joins (a, f->a_last + 1, b, f->b_last + d, f))
            {
              f->a_last++;
              f->b_last += d;
              step = TRUE;
            }
      if (f->a_first > 0)
        for (guint d = 1; d <= GROW_REACH && f->b_first >= d && !step; d++)
          if (joins (a, f->a_first - 1, b, f->b_first - d, f))
            {
              f->a_first--;
              f->b_first -= d;
              step = TRUE;
            }
      if (!step)
        break;
      /* A sentence that joins is one more pair of evidence where nothing
       * else judges the sentences (sim_alignment_stands_alone()): a copy
       * edited so hard that one of its sentences pairs closely enough to
       * seed still stands when its neighbours follow the source's. */
      f->n_pairs++;
      grew = TRUE;
    }
  if (grew)
    score_fragment (a, b, f);
}

static int
compare_alignments (gconstpointer x,
                    gconstpointer y)
{
  const SimAlignment *f = x, *g = y;

  return f->a_start < g->a_start ? -1 : f->a_start > g->a_start;
}

void
sim_align (const SimAlignText *a,
           const SimAlignText *b,
           GArray             *out)
{
  SimAlignSide *pa, *pb;

  if (a->n_sentences == 0 || b->n_sentences == 0)
    return;
  pa = sim_align_side_new (a);
  pb = sim_align_side_new (b);
  sim_align_sides (pa, pb, out);
  sim_align_side_free (pa);
  sim_align_side_free (pb);
}

void
sim_align_sides (const SimAlignSide *pa,
                 const SimAlignSide *pb,
                 GArray             *out)
{
  const SimAlignText *a = &pa->text, *b = &pb->text;
  g_autoptr(GArray) seeds = NULL;
  g_autoptr(GArray) fragments = g_array_new (FALSE, FALSE, sizeof (Fragment));
  g_autoptr(GArray) summaries = g_array_new (FALSE, FALSE, sizeof (Fragment));
  g_autoptr(GArray) kept = g_array_new (FALSE, FALSE, sizeof (SimAlignment));
  Fragment whole_b = { 0 };
  Side sa = { 0 }, sb = { 0 };

  if (a->n_sentences == 0 || b->n_sentences == 0)
    return;
  whole_b.b_first = 0;
  whole_b.b_last = b->n_sentences - 1;
  seeds = _sim_align_seed (pa, pb, &sa, &sb);
  if (seeds == NULL)
    return;

  if (seeds->len > 0)
    {
      cluster (&sa, &sb, (const Seed *) seeds->data, seeds->len, SIM_ALIGN_MAX_GAP, SIM_ALIGN_MAX_GAP,
               fragments);
      /* A summary condenses far-apart source sentences into adjacent ones. */
      cluster (&sa, &sb, (const Seed *) seeds->data, seeds->len, SIM_ALIGN_MAX_GAP, SUMMARY_GAP,
               summaries);
      for (guint k = 0; k < summaries->len; k++)
        {
          const Fragment *f = &g_array_index (summaries, Fragment, k);

          if ((f->n_seeds >= 3 || (f->n_seeds == 2 && f->best_seed >= SUMMARY_STRONG_SEED)) &&
              a_length (a, f) < SUMMARY_RATIO * b_length (b, f) &&
              !explained_by_one (a, fragments, f))
            {
              Fragment summary = *f;

              summary.is_summary = TRUE;
              g_array_append_val (fragments, summary);
            }
        }
    }

  for (guint k = 0; k < fragments->len; k++)
    grow (&sa, &sb, &g_array_index (fragments, Fragment, k));

  /* The best fragments first; one that overlaps a better one in A goes. */
  g_array_sort_with_data (fragments, compare_quality, (gpointer) a);
  for (guint k = 0; k < fragments->len; k++)
    {
      const Fragment *f = &g_array_index (fragments, Fragment, k);
      SimAlignment al;
      gboolean overlaps = FALSE;

      if (f->cosine < SIM_ALIGN_VALIDATE || f->n_words < SIM_ALIGN_MIN_WORDS)
        continue;
      al.a_start = a->sentences[f->a_first].start;
      al.a_end = a->sentences[f->a_last].end;
      al.b_start = b->sentences[f->b_first].start;
      al.b_end = b->sentences[f->b_last].end;
      /* A summary drawn from most of a whole text condenses all of it. */
      if (f->is_summary && b->is_whole && 2 * b_length (b, f) >= b_length (b, &whole_b))
        {
          al.b_start = b->sentences[0].start;
          al.b_end = b->sentences[b->n_sentences - 1].end;
        }
      {
        g_autoptr(GHashTable) b_words = word_set (&sb, f->b_first, f->b_last);
        g_autoptr(GHashTable) a_words = word_set (&sa, f->a_first, f->a_last);

        /* A summary rewrites throughout: words its source lacks at its
         * ends are no sign of the writer's own. */
        if (!f->is_summary)
          _sim_align_trim_ends (a, f->a_first, f->a_last, b_words, &al.a_start, &al.a_end);
        if (!(f->is_summary && b->is_whole && al.b_start == b->sentences[0].start))
          _sim_align_trim_ends (b, f->b_first, f->b_last, a_words, &al.b_start, &al.b_end);
      }
      al.similarity = f->similarity;
      al.cosine = f->cosine;
      al.n_seeds = f->n_seeds;
      al.n_pairs = f->n_pairs;
      for (guint m = 0; m < kept->len && !overlaps; m++)
        {
          const SimAlignment *o = &g_array_index (kept, SimAlignment, m);

          overlaps = al.a_start < o->a_end && o->a_start < al.a_end;
        }
      if (!overlaps)
        g_array_append_val (kept, al);
    }
  g_array_sort (kept, compare_alignments);
  _sim_align_snap_ends (a, b, kept);
  g_array_append_vals (out, kept->data, kept->len);
  _sim_align_side_clear (&sa);
  _sim_align_side_clear (&sb);
}
