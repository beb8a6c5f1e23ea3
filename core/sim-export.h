/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The highlighted report as a file: self-contained HTML (inline CSS and SVG,
 * readable with scripts off, every string escaped) and PDF drawn with cairo
 * and pango (CJK glyphs come from the system's fonts) by the PDF module
 * (sim-pdf.h), loaded the first time a PDF is written. One implementation
 * for the app and simhound-cli.
 */
#pragma once

#include <glib.h>

#include "sim-report.h"

G_BEGIN_DECLS

#define SIM_CHART_BINS 10
/* A PDF is written to its name with this suffix, then renamed when whole. */
#define SIM_EXPORT_PARTIAL_SUFFIX ".part"

/* Segments per similarity band [i/10, (i+1)/10), the last band closed, and
 * the level colour of each band under the report's thresholds. */
void      sim_report_histogram   (const SimReport *report,
                                  guint            counts[SIM_CHART_BINS]);
/* The level a similarity falls in under the report's thresholds. */
SimLevel  sim_report_level_of    (const SimReport *report,
                                  float            similarity);

char     *sim_export_html        (const SimReport *report);   /* (transfer full) */
gboolean  sim_export_html_file   (const SimReport *report,
                                  const char      *path,
                                  GError         **error);
typedef enum {
  SIM_PAPER_A4,
  SIM_PAPER_LETTER,
} SimPaper;

/* The locale's paper size (LC_PAPER): Letter where it is, else A4. */
SimPaper  sim_export_default_paper (void);
/* A PDF on the locale's paper. */
gboolean  sim_export_pdf_file    (const SimReport *report,
                                  const char      *path,
                                  GError         **error);
gboolean  sim_export_pdf_file_on (const SimReport *report,
                                  const char      *path,
                                  SimPaper         paper,
                                  GError         **error);

G_END_DECLS
