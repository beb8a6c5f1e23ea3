/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Splitting an article into the segments a report is made of: sentences
 * (Chinese and English rules, headings and paragraphs, a length bound) or
 * windows of N characters that never cut a word in two.
 */
#pragma once

#include <glib.h>

#include "sim-text.h"

G_BEGIN_DECLS

typedef enum {
  SIM_SEGMENT_SENTENCE,
  SIM_SEGMENT_WINDOW,
} SimSegmentMode;

#define SIM_SEGMENT_DEFAULT_WINDOW 30
#define SIM_SEGMENT_PAPER_WINDOW   13
#define SIM_SEGMENT_MAX_CHARS      300 /* sentences longer than this are split at a clause */

typedef struct {
  guint32 start;      /* code-point offset into the text, first non-space character */
  guint32 end;        /* end-exclusive, trailing whitespace excluded */
  guint32 unit_start; /* range of the text's units inside the segment */
  guint32 unit_end;
} SimSegment;

/* Splits @text (valid UTF-8, @len bytes) whose units are @units (as made by
 * sim_text_normalize() from offset 0) into segments appended to @out (a GArray
 * of SimSegment). Segments without a single unit are left out. @window is the
 * window size in units for SIM_SEGMENT_WINDOW and ignored otherwise. */
void sim_segment_split (const char     *text,
                        gsize           len,
                        const SimUnits *units,
                        SimSegmentMode  mode,
                        guint           window,
                        GArray         *out);

/* sim_text_normalize() of @text (from offset 0, into the empty @units)
 * and then sim_segment_split() of it, with the same units and segments;
 * a long text (a book, an archive file of the corpus) cut at blank lines,
 * where a segment always ends, into pieces done on every core. */
void sim_segment_prepare (const char        *text,
                          gsize              len,
                          SimNormalizeFlags  flags,
                          SimSegmentMode     mode,
                          guint              window,
                          SimUnits          *units,
                          GArray            *out);

G_END_DECLS
