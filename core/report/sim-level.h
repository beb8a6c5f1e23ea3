/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Levels: the one rule that turns a similarity into high, medium or low, and
 * the one colour table every view of a result uses (the report, the HTML and
 * PDF exports, the chart and the window). Pure functions: any thread.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  SIM_LEVEL_LOW,
  SIM_LEVEL_MEDIUM,
  SIM_LEVEL_HIGH,
} SimLevel;

/* Too little text to judge: a segment lighter than this (4 CJK or 12 other
 * characters, in SIM_WEIGHT_* units) is never flagged on its own. */
#define SIM_LEVEL_MIN_WEIGHT    12.0f
/* Less shared text than this (8 CJK characters or 24 letters) is never flagged. */
#define SIM_LEVEL_MIN_EVIDENCE  24
/* ...unless the piece is a whole sentence that its source shares (all of
 * it but a quarter at most): 6 CJK characters or 15 letters ("中东没有战争。")
 * copied as a sentence of their own are a copy; in the middle of a sentence
 * they are a phrase. */
#define SIM_LEVEL_MIN_SENTENCE_EVIDENCE 15

/* The level of @similarity under the thresholds. */
SimLevel    sim_level_of           (float    similarity,
                                    float    high_threshold,
                                    float    medium_threshold);
/* The level of a piece of text of @weight whose best source shares
 * @evidence of it at @similarity: sim_level_of(), except that too little
 * text or too little shared text is never flagged. @sentence: the piece
 * is a whole sentence and what its source shares spans nearly all of it. */
SimLevel    sim_level_judge        (float    similarity,
                                    float    weight,
                                    guint    evidence,
                                    gboolean sentence,
                                    float    high_threshold,
                                    float    medium_threshold);
const char *sim_level_to_string    (SimLevel level);
/* Level colours as "#rrggbb": high red, medium yellow, low grey. */
const char *sim_level_color        (SimLevel level);
/* The opacity of a level's colour behind text, which keeps the text
 * readable in light and dark styles. */
double      sim_level_tint_alpha   (SimLevel level);
/* The same tint flattened onto white, as "#rrggbb", for print. */
const char *sim_level_tint         (SimLevel level);
/* The tint of a flagged stretch that the chosen exclusions leave out
 * (a quote, the references): shown greyed, not hidden. */
const char *sim_level_excluded_tint (void);

/* Sources: the source numbered @number (1-based: its row in a report's
 * sources table, ranked by share) is drawn in colour @number of a palette
 * that colour-blind readers tell apart and black or white text reads on
 * (Paul Tol's "light" scheme, made for labelled cells). After
 * SIM_SOURCE_N_COLORS the colours repeat; the number still tells sources
 * apart. */
#define SIM_SOURCE_N_COLORS 8
const char *sim_source_color       (guint    number);
/* The opacity of a source colour behind text on screen. */
double      sim_source_tint_alpha  (void);
/* The same tint flattened onto white, as "#rrggbb", for print. */
const char *sim_source_tint        (guint    number);

G_END_DECLS
