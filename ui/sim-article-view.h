/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The article's text view: a GtkTextView that marks where each flagged run
 * starts with its source's number, in a gutter on the left (the text keeps
 * its offsets: nothing is inserted into the buffer), and draws an outline
 * around the selected flag (an outline, unlike bold, does not reflow the
 * text). Colours come from core's palette (sim-level.h). Main thread only.
 */
#pragma once

#include <gtk/gtk.h>

#include "sim-report-view.h"

G_BEGIN_DECLS

#define SIM_TYPE_ARTICLE_VIEW (sim_article_view_get_type ())
G_DECLARE_FINAL_TYPE (SimArticleView, sim_article_view, SIM, ARTICLE_VIEW, GtkTextView)

typedef struct {
  guint32 start;   /* code points into the buffer, end-exclusive */
  guint32 end;
  guint   number;  /* its source's number, 1-based */
} SimArticleRun;

/* How flags are coloured: by their source (numbered as in the list of
 * sources) or by level (red high, yellow medium). */
typedef enum {
  SIM_ARTICLE_BY_SOURCE,
  SIM_ARTICLE_BY_LEVEL,
} SimArticleColouring;

/* Colours the flagged runs of @view (its report's text is the buffer's),
 * only those of source @filter (-1: all), and numbers each stretch of one
 * source once, as the exports do; what the exclusions leave out is greyed,
 * not hidden. NULL clears every flag, number and the outline. The tags are
 * "sim-high", "sim-medium", "sim-excluded" and "sim-source-N". */
void   sim_article_view_show        (SimArticleView      *self,
                                     SimReportView       *view,
                                     SimArticleColouring  colouring,
                                     gint                 filter);
/* A flag found while a check runs, coloured by its level. */
void   sim_article_view_preview     (SimArticleView      *self,
                                     guint32              start,
                                     guint32              end,
                                     SimLevel             level);

/* The runs to number, in text order (copied); none clears them. */
void   sim_article_view_set_runs    (SimArticleView      *self,
                                     const SimArticleRun *runs,
                                     guint                n_runs);
guint  sim_article_view_get_n_runs  (SimArticleView      *self);
const SimArticleRun *sim_article_view_get_run (SimArticleView *self,
                                               guint           index);
/* Outlines [start, end) (code points); start < 0 removes the outline. */
void   sim_article_view_set_outline (SimArticleView      *self,
                                     gint                 start,
                                     gint                 end);
/* The outlined span, or FALSE without one. */
gboolean sim_article_view_get_outline (SimArticleView    *self,
                                       guint32           *start,
                                       guint32           *end);

G_END_DECLS
