/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The markup module, built apart from the core (sim-markup.c) and loaded
 * the first time a document with markup is read (sim_module_symbol()):
 * libxml2, libarchive and cmark-gfm, and ICU through libxml2, were some
 * 4.5 ms of every start of simhound-cli, which reads plain text far more
 * often. The core reaches it through these two functions only.
 */
#pragma once

#include <glib.h>

#include "sim-document.h"

G_BEGIN_DECLS

#define SIM_MARKUP_MODULE "simhound-markup"

/* What a zip holds: SIM_FORMAT_DOCX, SIM_FORMAT_ODT, or SIM_FORMAT_TEXT
 * for any other zip. */
SimFormat  sim_markup_detect_zip (const char  *data,
                                  gsize        len);
/* The text of a document of @format (HTML, DOCX, ODT, or Markdown already
 * decoded to UTF-8), as sim_document_extract() gives it. */
char      *sim_markup_extract    (SimFormat         format,
                                  const char       *data,
                                  gsize             len,
                                  const char       *name,
                                  gsize            *out_len,
                                  SimDocumentNotes *notes,
                                  GError          **error);

typedef SimFormat (*SimMarkupDetectFunc)  (const char *, gsize);
typedef char *    (*SimMarkupExtractFunc) (SimFormat, const char *, gsize, const char *, gsize *, SimDocumentNotes *,
                                           GError **);

G_END_DECLS
