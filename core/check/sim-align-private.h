/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the aligner's files share: a prepared side (a text's sentences as
 * sorted word vectors with their postings; sim-align-side.c makes it), one
 * side of a pair being aligned and its seeds (sim-align-seeds.c finds them,
 * sim-align.c extends and filters them), and the narrowing of a passage's
 * ends (sim-align-ends.c, which uses neither).
 */
#pragma once

#include "sim-align.h"

typedef struct {
  guint64 token;
  guint   tf;
  guint   sentence;
  guint   word;      /* its side's distinct word */
} Entry;

typedef struct {
  guint   first;   /* entries [first, first + n) */
  guint   n;
} Vector;

struct _SimAlignSide {
  SimAlignText text;
  GArray      *entries;     /* Entry, each sentence's words sorted */
  GArray      *vectors;     /* Vector per sentence */
  guint64     *words;       /* distinct words, sorted */
  guint       *df;          /* sentences holding each word */
  guint       *post_first;  /* word w's entries: postings[post_first[w] .. post_first[w + 1]) */
  guint       *postings;    /* entry indices, in text order */
  guint       *post_sentence; /* the sentence of each posting's entry */
  guint        n_words;
  /* Seeding looks at one sentence of each set of identical ones (a source
   * that repeats itself: an archive, a collected edition): the postings of
   * the first of each, and each sentence's next identical one. */
  guint       *seed_first;    /* as post_first, over seed_postings */
  guint       *seed_postings;
  guint       *seed_sentence;
  guint       *next_copy;     /* the next sentence with the same words, or G_MAXUINT */
};

/* One side of the pair being aligned: the prepared side, the weight of
 * each of its entries and the norm of each of its sentences for this pair
 * (kept apart, so that a pair copies no entries: copying them for every
 * source was a tenth of checking a long article), and each word's index on
 * the other side. */
typedef struct {
  const SimAlignSide *prepared;
  float              *weights;  /* per entry */
  float              *norms;    /* per sentence */
  guint               n_sentences;
  guint              *other;    /* per word: the other side's word, or G_MAXUINT */
  float              *bag;      /* per word, zero between uses: score_fragment()'s sums */
  guint              *touched;  /* the words of @bag in use */
} Side;

static inline const Entry *
side_entry (const Side *side,
            guint       k)
{
  return &g_array_index (side->prepared->entries, Entry, k);
}

static inline const Vector *
side_vector (const Side *side,
             guint       s)
{
  return &g_array_index (side->prepared->vectors, Vector, s);
}

/* ----------------------------------------------------- sim-align-seeds.c */

typedef struct {
  guint i;      /* sentence of A */
  guint j;      /* sentence of B */
  float cosine;
} Seed;

/* Pairs @pa (A) with @pb (B) into @sa and @sb, weighs both, and returns
 * the seeds (Seed, sorted by A's sentence, then B's), or NULL, with @sa
 * and @sb cleared, when no sentence pair can seed. */
GArray *_sim_align_seed        (const SimAlignSide *pa,
                                const SimAlignSide *pb,
                                Side               *sa,
                                Side               *sb);
/* Frees what _sim_align_seed() put in @side. */
void    _sim_align_side_clear  (Side               *side);

/* ------------------------------------------------------ sim-align-ends.c */

/* Narrows [*start, *end) (code points of @text, from its sentences @first
 * and @last) to leave out a run of words at either end that @other (the
 * other side's words, as GSIZE_TO_POINTER tokens) mostly lacks: a shared
 * word among many of the writer's own does not hold them in. */
void _sim_align_trim_ends (const SimAlignText *text,
                           guint               first,
                           guint               last,
                           GHashTable         *other,
                           guint32            *start,
                           guint32            *end);
/* Snaps the ends of the copies near word for word among @alignments
 * (SimAlignment of A against B, in A's order), but for the ends facing
 * another passage near them. */
void _sim_align_snap_ends (const SimAlignText *a,
                           const SimAlignText *b,
                           GArray             *alignments);
