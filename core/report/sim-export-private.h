/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the HTML report (sim-export.c) and the PDF report (sim-pdf-report.c) say
 * alike, in sim-export-common.c: for the reports only.
 */
#pragma once

#include <glib.h>

#include "sim-report-view.h"

G_BEGIN_DECLS

/* A flagged passage as the reports list it: its text, its source's text
 * as its segments' matches give it (" … " where they skip some), and
 * whether the two are the same word for word (then the text is not
 * repeated in the list: the article shows it). */
/* A piece of a listed passage's text: shaded only where flagged. */
typedef struct {
  char     *text;
  gboolean  flagged;    /* part of a run of the passage's source */
  gboolean  excluded;   /* ... that the exclusions leave out (greyed) */
} SimListedPiece;

typedef struct {
  const SimPassage *passage;
  char             *text;
  GArray           *pieces;     /* SimListedPiece: text, cut where the shading changes */
  char             *source_text;
  gboolean          identical;
  gboolean          excluded;   /* every flagged segment of it is left out */
} SimListed;

/* The source a flagged segment is coloured and numbered by: its best match's. */
guint     _sim_export_segment_source        (const SimReport         *report,
                                             const SimReportSegment  *seg);
/* The passages of medium level or higher that hold a segment flagged with
 * their source, in article order. (element-type SimListed) */
GArray   *_sim_export_listed_passages       (const SimReportView     *view);
guint     _sim_export_count_identical       (GArray                  *listed);
/* The note that says how many passages are their sources word for word. */
char     *_sim_export_identical_note        (guint                    n_identical);
/* The number of sources with flagged segments: they come first, numbered 1.. */
guint     _sim_export_count_flagged_sources (const SimReport         *report);
/* "1,288 documents, last updated 2026-11-22" for the header of a report. */
char     *_sim_export_corpus_phrase         (const SimReportSettings *s);

G_END_DECLS
