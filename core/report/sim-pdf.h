/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The PDF module, built apart from the core (sim-pdf-text.c reads,
 * sim-pdf-report.c writes) and loaded the first time a PDF is read or
 * written (sim_module_symbol()): poppler,
 * cairo and pango, and the fifty libraries they bring, were a good half of
 * every start of simhound-cli (30 -> 13 ms), which most commands never use.
 * The core reaches it through these two functions only.
 */
#pragma once

#include <glib.h>

#include "sim-document.h"
#include "sim-export.h"

G_BEGIN_DECLS

#define SIM_PDF_MODULE "simhound-pdf"

/* The text of a PDF (sim_document_extract()'s PDF reader): running headers,
 * footers and page numbers left out, words broken at line ends joined. */
char     *sim_pdf_extract_text (const char       *data,
                                gsize             len,
                                const char       *name,
                                gsize            *out_len,
                                SimDocumentNotes *notes,
                                GError          **error);
/* sim_export_pdf_file_on(). */
gboolean  sim_pdf_write_report (const SimReportView *view,
                                const char          *path,
                                SimPaper             paper,
                                GError             **error);

typedef char *   (*SimPdfExtractFunc) (const char *, gsize, const char *, gsize *, SimDocumentNotes *, GError **);
typedef gboolean (*SimPdfWriteFunc)   (const SimReportView *, const char *, SimPaper, GError **);

G_END_DECLS
