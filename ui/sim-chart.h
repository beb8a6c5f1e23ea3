/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The distribution chart: every segment's similarity along the article, and
 * a histogram of segments per similarity band, in the level colours.
 * Clicking a bar or a band emits ::segment-activated.
 */
#pragma once

#include <gtk/gtk.h>

#include "sim-report.h"

G_BEGIN_DECLS

#define SIM_TYPE_CHART (sim_chart_get_type ())
G_DECLARE_FINAL_TYPE (SimChart, sim_chart, SIM, CHART, GtkWidget)

GtkWidget *sim_chart_new        (void);
void       sim_chart_set_report (SimChart  *self,
                                 SimReport *report);
/* The segment under @x (widget coordinates), or -1. For tests too. */
gint       sim_chart_segment_at (SimChart  *self,
                                 double     x,
                                 double     y);

G_END_DECLS
