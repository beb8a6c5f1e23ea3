/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One way of showing a report: the report under a choice of exclusions,
 * with everything a view of it draws computed once. The headline and the
 * four ratios, the spans left out, the flagged runs (what the reader sees as
 * one highlighted stretch: flagged segments from one source with only space
 * between, each with its number, level, one similarity figure and whether
 * it is left out), the counts per level, the share of each source and the
 * histogram. The window, the chart, the comparison, the sources list, the
 * HTML, the PDF, the JSON and the command line's text all draw from a view,
 * so they cannot disagree.
 *
 * Thread rule: a view is immutable from sim_report_view_new() on and
 * atomically reference-counted; any thread may read it. A different choice
 * of exclusions makes a new view of the same report: no lookup is repeated
 * (the template's spans come with the exclusions, found once:
 * sim_exclude_find_template()).
 */
#pragma once

#include <glib.h>

#include "sim-exclude.h"
#include "sim-report.h"

G_BEGIN_DECLS

/* Bands of the histogram: [i/10, (i+1)/10), the last one closed. */
#define SIM_CHART_BINS 10

typedef struct {
  guint32  start;          /* article code points: the first segment's start ... */
  guint32  end;            /* ... to the last one's end */
  guint    first_segment;  /* the report's segments [first_segment, last_segment] */
  guint    last_segment;
  guint    source;         /* the report's source index; shown as source + 1 */
  SimLevel level;          /* the highest of its segments */
  float    similarity;     /* the one figure shown for it: see sim_report_view_new() */
  gboolean excluded;       /* the chosen exclusions leave all of it out (shown greyed) */
  gboolean numbered;       /* the source's number follows it: the next run is
                            * of another source, or more than space and
                            * punctuation lie between */
} SimFlaggedRun;

typedef struct {
  guint    n_segments;     /* flagged segments, not left out, whose best match is it */
  guint32  n_chars;        /* the characters of those that count */
  float    share;          /* n_chars / the article's characters in segments */
} SimSourceShare;

typedef struct _SimReportView SimReportView;

/* The view of @report under @exclusions (NULL: none chosen). A run's
 * similarity is that of the aligned passage of its source that holds it
 * (the share of its words found in the source), else the length-weighted
 * mean of its segments'. Quick: no alignment, no I/O. */
SimReportView *sim_report_view_new       (SimReport           *report,
                                          const SimExclusions *exclusions);
SimReportView *sim_report_view_ref       (SimReportView       *view);
void           sim_report_view_unref     (SimReportView       *view);
SimReport     *sim_report_view_get_report (const SimReportView *view);

/* Share of the article's segment characters flagged and not left out: the
 * headline figure. */
float          sim_report_view_get_similarity (const SimReportView *view);
const SimRatios *sim_report_view_get_ratios   (const SimReportView *view);
/* The spans the chosen exclusions leave out, in article order. */
guint          sim_report_view_get_n_excluded (const SimReportView *view);
const SimExcludedSpan *sim_report_view_get_excluded (const SimReportView *view,
                                                     guint                index);
/* TRUE when flagged segment @index is wholly left out (shown greyed). */
gboolean       sim_report_view_is_segment_excluded (const SimReportView *view,
                                                    guint                index);
/* Segments of each level that count (flagged ones left out count under
 * sim_report_view_count_excluded(), not under their level): the four add
 * up to the report's segments. */
guint          sim_report_view_count_level    (const SimReportView *view,
                                               SimLevel             level);
guint          sim_report_view_count_excluded (const SimReportView *view);
/* Segments that count per similarity band (as the counts above). */
const guint   *sim_report_view_get_histogram  (const SimReportView *view);
/* The level a similarity falls in under the report's thresholds. */
SimLevel       sim_report_view_level_of       (const SimReportView *view,
                                               float                similarity);

/* Flagged runs in article order. */
guint          sim_report_view_get_n_runs     (const SimReportView *view);
const SimFlaggedRun *sim_report_view_get_run  (const SimReportView *view,
                                               guint                index);
/* The run holding flagged segment @segment, or -1. */
gint           sim_report_view_find_run       (const SimReportView *view,
                                               guint                segment);
/* Source @index of the report (its ranking and numbers stay those of the
 * report, so colours do not move when a source is left out). */
const SimSourceShare *sim_report_view_get_share (const SimReportView *view,
                                                 guint                index);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimReportView, sim_report_view_unref)

G_END_DECLS
