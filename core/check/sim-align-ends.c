/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The aligner's last stage: a passage's ends narrowed to where the copy
 * ends (uses sim-align.h alone; sim-align.c calls it). Its first and last
 * sentences lose a run of words the other side lacks, and a copy near word
 * for word ends on both sides at its first and last runs of three words
 * the other side shares: a copy that stops inside a sentence, or a source
 * sentence that goes on past the copy.
 */
#include "config.h"

#include "sim-align-private.h"
#include "sim-words.h"

#define TRIM_MIN_WORDS    4      /* own words, net of shared ones (TRIM_OWN each), that end a passage's first or last sentence */
#define TRIM_OWN          4      /* own words a shared word outweighs at a passage's ends */
#define SNAP_SHARE        0.5f   /* of A's runs of three words B has too: a copy near word for word */
#define SNAP_LENGTHS      1.3f   /* the longer side of a copy snapped at most this many times the shorter */
#define SNAP_NEIGHBOUR    500    /* code points of A between passages whose facing ends are not snapped */
#define SNAP_MIN_WORDS    8      /* words an end snapped leaves out at least */

/* How many words at the head (or tail) of @tokens are the writer's own:
 * the run whose words the other side lacks outnumber, TRIM_OWN to one,
 * those it has (a stray common word does not hold a sentence of one's own
 * in the passage), when that margin is TRIM_MIN_WORDS or more; else 0. */
static guint
foreign_run (const GArray *tokens,
             GHashTable   *other,
             gboolean      head)
{
  const guint n = tokens->len;
  gint score = 0, best = 0;
  guint best_len = 0;

  for (guint k = 0; k < n; k++)
    {
      const guint64 t = g_array_index (tokens, guint64, head ? k : n - 1 - k);

      score += g_hash_table_contains (other, GSIZE_TO_POINTER ((gsize) t)) ? -TRIM_OWN : 1;
      if (score > best)
        {
          best = score;
          best_len = k + 1;
        }
    }
  return best >= TRIM_MIN_WORDS ? best_len : 0;
}

/* Narrows [*start, *end) (code points of @text, from its sentences first and
 * last) to leave out the writer's own words at either end (foreign_run()):
 * a sentence the splitter ran into the next one ("...the last copied words
 * The writer's own sentence"). */
void
_sim_align_trim_ends (const SimAlignText *text,
                      guint               first,
                      guint               last,
                      GHashTable         *other,
                      guint32            *start,
                      guint32            *end)
{
  g_autoptr(GArray) tokens = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) spans = g_array_new (FALSE, FALSE, sizeof (guint32));
  const SimSegment *s;
  guint n, k;

  s = &text->sentences[first];
  sim_words_tokenize (text->units, s->unit_start, s->unit_end, tokens, spans);
  k = foreign_run (tokens, other, TRUE);
  if (k > 0 && k < tokens->len)
    *start = text->units->src_start[g_array_index (spans, guint32, 2 * k)];

  g_array_set_size (tokens, 0);
  g_array_set_size (spans, 0);
  s = &text->sentences[last];
  sim_words_tokenize (text->units, s->unit_start, s->unit_end, tokens, spans);
  n = tokens->len;
  k = foreign_run (tokens, other, FALSE);
  if (k > 0 && k < n)
    {
      const guint32 last_unit = g_array_index (spans, guint32, 2 * (n - k - 1) + 1) - 1;

      *end = sim_units_get_end (text->units, last_unit);
    }
  *end = MAX (*end, *start + 1);
}

/* Tokens of @text in code points [@start, @end), with each one's first
 * and last code point. */
static void
tokens_between (const SimAlignText *text,
                guint32             start,
                guint32             end,
                GArray             *tokens,
                GArray             *from,
                GArray             *to)
{
  g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) spans = g_array_new (FALSE, FALSE, sizeof (guint32));
  const gsize u0 = sim_units_find (text->units, start), u1 = sim_units_find (text->units, end);
  const guint base = tokens->len;

  sim_words_tokenize (text->units, u0, u1, all, spans);
  /* Written in place (three appends a token were a call and a copy each). */
  g_array_set_size (tokens, base + all->len);
  g_array_set_size (from, base + all->len);
  g_array_set_size (to, base + all->len);
  for (guint k = 0; k < all->len; k++)
    {
      g_array_index (tokens, guint64, base + k) = g_array_index (all, guint64, k);
      g_array_index (from, guint32, base + k) = text->units->src_start[g_array_index (spans, guint32, 2 * k)];
      g_array_index (to, guint32, base + k) =
        sim_units_get_end (text->units, g_array_index (spans, guint32, 2 * k + 1) - 1);
    }
}

static inline guint64
trigram (const GArray *tokens,
         guint         k)
{
  const guint64 *t = (const guint64 *) tokens->data + k;

  return t[0] * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15) ^ (t[1] * G_GUINT64_CONSTANT (0xC2B2AE3D27D4EB4F)) ^ t[2];
}

/* A copy near word for word (SNAP_SHARE of A's runs of three words are
 * B's too) ends on both sides where such runs end: its ends are exact,
 * and what the sentences around them add is the writer's own, or the
 * source's next words. Not when the two sides then differ in length by
 * more than SNAP_LENGTHS: a summary quotes phrases of a longer stretch. */
static void
snap_ends (const SimAlignText *a,
           const SimAlignText *b,
           SimAlignment       *al)
{
  g_autoptr(GArray) ta = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) fa = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) ea = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) tb = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) fb = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) eb = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GHashTable) in_b = g_hash_table_new (NULL, NULL);
  guint shared = 0, first, last;
  SimAlignment before;

  tokens_between (a, al->a_start, al->a_end, ta, fa, ea);
  tokens_between (b, al->b_start, al->b_end, tb, fb, eb);
  if (ta->len < 3 || tb->len < 3)
    return;
  for (guint k = 0; k + 2 < tb->len; k++)
    g_hash_table_add (in_b, GSIZE_TO_POINTER ((gsize) trigram (tb, k)));
  for (guint k = 0; k + 2 < ta->len; k++)
    shared += g_hash_table_contains (in_b, GSIZE_TO_POINTER ((gsize) trigram (ta, k)));
  if (shared < SNAP_SHARE * (ta->len - 2))
    return;
  before = *al;
  /* A: from its first run B has to its last. */
  for (first = 0; first + 2 < ta->len && !g_hash_table_contains (in_b, GSIZE_TO_POINTER ((gsize) trigram (ta, first)));
       first++)
    ;
  for (last = ta->len - 2; last-- > 0 && !g_hash_table_contains (in_b, GSIZE_TO_POINTER ((gsize) trigram (ta, last)));)
    ;
  if (first + 2 >= ta->len || last == G_MAXUINT)
    return;
  /* B: from where A's first run is to where its last is, the two as far
   * apart as they are in A (a source that repeats itself has them more
   * than once). */
  {
    const gsize g_first = (gsize) trigram (ta, first), g_last = (gsize) trigram (ta, last);
    const gint64 length = (gint64) g_array_index (ea, guint32, last + 2) - g_array_index (fa, guint32, first);
    g_autoptr(GArray) ends = g_array_new (FALSE, FALSE, sizeof (guint));
    guint s = G_MAXUINT, e = G_MAXUINT;
    gint64 off = G_MAXINT64;

    for (guint j = 0; j + 2 < tb->len; j++)
      if ((gsize) trigram (tb, j) == g_last)
        g_array_append_val (ends, j);
    for (guint i = 0; i + 2 < tb->len; i++)
      if ((gsize) trigram (tb, i) == g_first)
        {
          /* The ends in order: the first that ends at or past the length
           * wanted, and the one before it. */
          const gint64 want = (gint64) g_array_index (fb, guint32, i) + length;
          guint lo = 0, hi = ends->len;

          while (lo < hi)
            {
              const guint mid = (lo + hi) / 2;

              if ((gint64) g_array_index (eb, guint32, g_array_index (ends, guint, mid) + 2) < want)
                lo = mid + 1;
              else
                hi = mid;
            }
          for (guint k = lo > 0 ? lo - 1 : 0; k <= lo && k < ends->len; k++)
            {
              const guint j = g_array_index (ends, guint, k);
              const gint64 d = ABS ((gint64) g_array_index (eb, guint32, j + 2) - want);

              if (j >= i && d < off)
                {
                  off = d;
                  s = i;
                  e = j;
                }
            }
        }
    if (s == G_MAXUINT)
      return;
    if (first >= SNAP_MIN_WORDS)
      al->a_start = g_array_index (fa, guint32, first);
    if (ta->len - (last + 3) >= SNAP_MIN_WORDS)
      al->a_end = g_array_index (ea, guint32, last + 2);
    if (s >= SNAP_MIN_WORDS)
      al->b_start = g_array_index (fb, guint32, s);
    if (tb->len - (e + 3) >= SNAP_MIN_WORDS)
      al->b_end = g_array_index (eb, guint32, e + 2);
  }
  if (MAX (al->a_end - al->a_start, al->b_end - al->b_start) >
      SNAP_LENGTHS * MIN (al->a_end - al->a_start, al->b_end - al->b_start))
    *al = before;
}

void
_sim_align_snap_ends (const SimAlignText *a,
                      const SimAlignText *b,
                      GArray             *alignments)
{
  guint32 prev_end = 0;

  for (guint m = 0; m < alignments->len; m++)
    {
      SimAlignment *al = &g_array_index (alignments, SimAlignment, m);
      const SimAlignment was = *al;
      const gboolean near_prev = m > 0 && prev_end + SNAP_NEIGHBOUR >= was.a_start;
      const gboolean near_next = m + 1 < alignments->len && was.a_end + SNAP_NEIGHBOUR >= (al + 1)->a_start;

      snap_ends (a, b, al);
      if (near_prev)
        {
          al->a_start = was.a_start;
          al->b_start = was.b_start;
        }
      if (near_next)
        {
          al->a_end = was.a_end;
          al->b_end = was.b_end;
        }
      prev_end = was.a_end;
    }
}
