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

#include "sim-report-view.h"

G_BEGIN_DECLS

/* A PDF is written to its name with this suffix, then renamed when whole. */
#define SIM_EXPORT_PARTIAL_SUFFIX ".part"

char     *sim_export_html        (const SimReportView *view);   /* (transfer full) */
gboolean  sim_export_html_file   (const SimReportView *view,
                                  const char          *path,
                                  GError             **error);
typedef enum {
  SIM_PAPER_A4,
  SIM_PAPER_LETTER,
} SimPaper;

/* The Noto CJK family Han text is set in for @language (a Pango language,
 * "zh-tw", or a locale name, "zh_TW.UTF-8"; NULL: the user's): the
 * Traditional, Hong Kong, Japanese or Korean variant where the language
 * asks for it, else Simplified Chinese. Every view names it after its
 * Latin face: fontconfig's fallback would take the Japanese variant. */
const char *sim_export_cjk_family (const char *language);

/* The locale's paper size (LC_PAPER): Letter where it is, else A4. */
SimPaper  sim_export_default_paper (void);
/* A PDF on the locale's paper. */
gboolean  sim_export_pdf_file    (const SimReportView *view,
                                  const char          *path,
                                  GError             **error);
gboolean  sim_export_pdf_file_on (const SimReportView *view,
                                  const char          *path,
                                  SimPaper             paper,
                                  GError             **error);

G_END_DECLS
