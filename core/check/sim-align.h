/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Text alignment: which stretches of text A reuse which stretches of text
 * B, each reported once, whole, however the texts are cut into sentences.
 * The method follows the strongest PAN text-alignment systems (Sanchez-Perez,
 * Sidorov and Gelbukh 2014): seeding, extension, filtering.
 *
 * - Seeding: every sentence of A is compared with every sentence of B that
 *   shares a word with it, as bags of words: English words folded to their
 *   first five letters with stop words skipped (so inflections, reordering
 *   and most synonym swaps keep a pair), CJK text as character bigrams, each
 *   weighted by its inverse sentence frequency over both texts. A pair whose
 *   cosine and Dice coefficient both pass SIM_ALIGN_SEED is a seed.
 * - Extension: seeds closer than a gap of sentences on both sides join one
 *   passage; a passage whose two sides are not similar enough as wholes is
 *   split again with a smaller gap. Pairs that run against the order of the
 *   others (beyond a few sentences of local reordering) are topical echoes
 *   and do not stretch a passage. A summary (many source sentences condensed
 *   into few) is joined with a gap measured on the source's scale, from
 *   three seeds, or two when one is a close pair (two loose ones are a
 *   topic echoed); one drawn from most of a whole text is reported against
 *   all of it.
 * - Growth: a sentence just past a passage that pairs loosely with the
 *   source's next one, sharing its words about as much as the passage
 *   shares its source's, joins it (n_pairs counts it).
 * - Ends: a passage's first and last sentences lose a run of words the
 *   other side barely has (a copy that stops mid-sentence, the writer's own
 *   words run on after it); a copy near word for
 *   word ends, on both sides, where its runs of three words shared with
 *   the other side end (a source sentence that goes on past the copy).
 * - Filtering: passages overlapping a better one in A, passages too
 *   dissimilar as wholes, and passages of a few words are dropped. A passage of one seed is one similar
 *   sentence pair: the caller decides whether that is enough.
 *
 * Pure functions of their input: any thread.
 */
#pragma once

#include <glib.h>

#include "sim-segment.h"
#include "sim-text.h"

G_BEGIN_DECLS

#define SIM_ALIGN_SEED        0.33f /* cosine and Dice of a seed pair */
#define SIM_ALIGN_VALIDATE    0.34f /* cosine of a passage's two sides */
#define SIM_ALIGN_MAX_GAP     4     /* sentences of unmatched text a passage bridges */
#define SIM_ALIGN_MIN_WORDS   5     /* distinct words a passage has at least ("U.S." is none) */
#define SIM_ALIGN_ONE_PAIR    0.7f  /* cosine and word share of a single sentence pair that stands alone */

/* One text as the aligner sees it: its units (from sim_text_normalize() at
 * offset 0) and its sentences (from sim_segment_split()). */
typedef struct {
  const SimUnits   *units;
  const SimSegment *sentences;
  guint             n_sentences;
  gboolean          is_whole;   /* the whole document, not a region of it */
} SimAlignText;

typedef struct {
  guint32 a_start;     /* code points into A, end-exclusive */
  guint32 a_end;
  guint32 b_start;     /* code points into B */
  guint32 b_end;
  float   similarity;  /* weighted share of A's words in the passage found in B's */
  float   cosine;      /* of the two sides as bags of words */
  guint   n_seeds;     /* sentence pairs it grew from */
  guint   n_pairs;     /* separate evidence: as many as the fewer distinct sentences of
                        * either side among its seeds, and the sentences that joined it */
} SimAlignment;

/* Whether @al stands as a passage on its own: two seeds or more, or a
 * single sentence pair whose words are nearly all the same ("A black and
 * white cow in a pen with hay." / "a black and white cow in hay."); a pair
 * that shares less is a shared name or phrase, the sentence comparison's
 * to judge. When nothing but the aligner says that A draws on B
 * (@corroborated FALSE: two texts compared alone), its evidence is its
 * pairs of distinct sentences, and the sentences that joined it: one
 * sentence of A paired with two of B ("There are three types: type 1, 2
 * or 3." / "Type 2 ..." "Type 3 ..."), or two of A with one of B, is a
 * topic shared, not a copy, while a reworded copy of which one sentence
 * pairs closely stands with its neighbour. A check's fingerprint matches
 * corroborate the sources they name, and its sentence comparison judges
 * each sentence: there every seed counts, and a sentence that joined does
 * not (it lifted a human-written answer on the same subject, a negative
 * of eval-public, into a passage of two sentences). */
static inline gboolean
sim_alignment_stands_alone (const SimAlignment *al,
                            gboolean            corroborated)
{
  return (corroborated ? al->n_seeds : al->n_pairs) >= 2 ||
         (al->cosine >= SIM_ALIGN_ONE_PAIR && al->similarity >= SIM_ALIGN_ONE_PAIR);
}

/* Appends the passages of A that reuse B to @out (GArray of SimAlignment),
 * in A's order, never overlapping in A. */
void sim_align (const SimAlignText *a,
                const SimAlignText *b,
                GArray             *out);

/* A text made ready to be aligned with many others: its sentences' words
 * counted and indexed once (what sim_align() does for each pair). Points
 * into @text's units and sentences, which must outlive it; read-only once
 * made, so any number of threads may align with it at once. */
typedef struct _SimAlignSide SimAlignSide;

SimAlignSide *sim_align_side_new  (const SimAlignText *text);
void          sim_align_side_free (SimAlignSide       *side);

/* The side of sentences [@first, @last) of @whole's text, as
 * sim_align_side_new() would make it, without reading the words again.
 * Points into @whole's text, not into @whole. */
SimAlignSide *sim_align_side_new_range (const SimAlignSide *whole,
                                        guint               first,
                                        guint               last);

/* sim_align() of two prepared texts: the same passages. */
void          sim_align_sides     (const SimAlignSide *a,
                                   const SimAlignSide *b,
                                   GArray             *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimAlignSide, sim_align_side_free)

G_END_DECLS
