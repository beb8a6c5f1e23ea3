/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What differs between a passage of the article and its source, for a
 * reader: both texts are cut into words (a CJK character is a word of its
 * own) as normalisation sees them (sim-text.h: case, width and traditional
 * forms do not count as changes; punctuation and space are not words), and
 * the longest common subsequence of words says which are the same. Spans
 * are code points into the texts given. Pure functions: any thread.
 */
#pragma once

#include <glib.h>

#include "sim-text.h"

G_BEGIN_DECLS

typedef enum {
  SIM_DIFF_SAME,      /* in both */
  SIM_DIFF_CHANGED,   /* words in the article where the source has others */
  SIM_DIFF_ADDED,     /* only in the article */
  SIM_DIFF_LEFT_OUT,  /* only in the source */
} SimDiffKind;

typedef struct {
  SimDiffKind kind;
  guint32     a_start;  /* the article's words (empty for LEFT_OUT) */
  guint32     a_end;
  guint32     b_start;  /* the source's words (empty for ADDED) */
  guint32     b_end;
} SimDiffOp;

typedef struct {
  guint    n_a;       /* words in the article's passage */
  guint    n_b;       /* and in the source's */
  guint    same;
  guint    changed;   /* pairs of words replaced */
  guint    added;
  guint    left_out;
  gboolean cjk;       /* most words are CJK characters: counted as characters */
} SimDiffStats;

/* Beyond this many words on a side, what lies between the common start and
 * end is one change (the quadratic table would grow past 8 MB). */
#define SIM_DIFF_MAX_WORDS 2000

/* The differences of @a and @b (valid UTF-8, NUL-terminated), in text
 * order; @stats may be NULL. (element-type SimDiffOp) (transfer full) */
GArray  *sim_diff_texts    (const char        *a,
                            const char        *b,
                            SimNormalizeFlags  flags,
                            SimDiffStats      *stats);
/* "91% similar to the source; 3 changed, 1 added, 2 left out",
 * translated: @similarity is the one figure every view gives the passage
 * (its run's, sim-report-view.h), the counts are the words (CJK:
 * characters) of the differences. (transfer full) */
char    *sim_diff_describe (const SimDiffStats *stats,
                            float               similarity);
/* The span around [@start, @end) of @text (@n_chars code points) that adds
 * about @around characters on each side, ending at sentence or paragraph
 * ends where there are some: the context a reader needs to judge a passage. */
void     sim_diff_context  (const char        *text,
                            guint32            n_chars,
                            guint32            start,
                            guint32            end,
                            guint              around,
                            guint32           *out_start,
                            guint32           *out_end);

G_END_DECLS
