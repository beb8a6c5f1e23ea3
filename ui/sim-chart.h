/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The distribution chart: every segment's similarity along the article (axes
 * in percent, the level thresholds dashed, the selected segment marked), and
 * a histogram of segments per similarity band, in the level colours. A
 * tooltip names the segment, its similarity and its source (or, below the
 * medium level, its best candidate). Clicking a bar or a band emits
 * ::segment-activated.
 */
#pragma once

#include <gtk/gtk.h>

#include "sim-report-view.h"

G_BEGIN_DECLS

#define SIM_TYPE_CHART (sim_chart_get_type ())
G_DECLARE_FINAL_TYPE (SimChart, sim_chart, SIM, CHART, GtkWidget)

GtkWidget *sim_chart_new        (void);
/* Draws @view (NULL: nothing); its report's segments are the bars. */
void       sim_chart_set_view   (SimChart      *self,
                                 SimReportView *view);
/* The segment under @x (widget coordinates), or -1. For tests too. */
gint       sim_chart_segment_at (SimChart  *self,
                                 double     x,
                                 double     y);

/* What the tooltip at (@x, @y) says, or NULL. (transfer full) */
char      *sim_chart_describe_at (SimChart *self,
                                  double    x,
                                  double    y);
/* Marks segment @index (-1: none). */
void       sim_chart_set_selected (SimChart *self,
                                   gint      index);
gint       sim_chart_get_selected (SimChart *self);

G_END_DECLS
