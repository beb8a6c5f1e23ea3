/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Words of normalised text, as the aligner compares sentences and the
 * index keys them: English words folded to their first SIM_WORDS_STEM
 * letters with stop words skipped, CJK text as character bigrams, each a
 * 64-bit token (a CJK bigram keeps its two code points, so it reads back).
 *
 * Sentence keys find a sentence reworded past every shared window: each
 * pair of its few rarest words, hashed. Rarity is a property of the word
 * alone (a longer English word, a CJK bigram of uncommon characters), so
 * the keys of a text do not depend on the corpus it joins, and an article's
 * sentence that keeps two of a stored sentence's rarest words among its
 * own rarest finds it.
 *
 * Pure functions: any thread.
 */
#pragma once

#include <glib.h>

#include "sim-fingerprint.h"
#include "sim-text.h"

G_BEGIN_DECLS

#define SIM_WORDS_STEM          5   /* an English word folds to its first five letters */
#define SIM_WORDS_CJK_BIT       G_GUINT64_CONSTANT (0x8000000000000000)
/* A stored sentence is keyed by the pairs of its 3 rarest words (3 keys),
 * when it has at most SIM_WORDS_KEYED_MAX of them: a longer sentence
 * reworded keeps windows of its own. */
#define SIM_WORDS_KEYED_RAREST  3
#define SIM_WORDS_KEYED_MAX     20
#define SIM_WORDS_MAX_WORDS     64  /* the most any caller may ask keys of */

/* The words of units [@from, @to), appended to @out (guint64 tokens) and
 * their spans of units to @out_units (two guint32 a word) when not NULL. */
void  sim_words_tokenize  (const SimUnits *units,
                           guint32         from,
                           guint32         to,
                           GArray         *out,
                           GArray         *out_units);

/* The keys of the sentence in units [@from, @to): every pair of its
 * @n_rarest rarest distinct words, appended to @out (guint64); none when
 * it has fewer than two distinct words or more than @max_words words
 * (repeats counted; at most SIM_WORDS_MAX_WORDS). Returns how many were
 * appended. */
guint sim_words_pair_keys (const SimUnits *units,
                           guint32         from,
                           guint32         to,
                           guint           n_rarest,
                           guint           max_words,
                           GArray         *out);

/* The keys a store keeps of @text (valid UTF-8, @len bytes, normalised
 * into @units from offset 0): those of each of its sentences and lines,
 * cut at a line break, ! ? ; 。！？； and a full stop before a space (a
 * list, or a file of one sentence a line written without full stops, is
 * a sentence a line), appended to @out as SimAnchors spanning their
 * piece. */
void  sim_words_text_keys (const char     *text,
                           gsize           len,
                           const SimUnits *units,
                           GArray         *out);

G_END_DECLS
