/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Documents: the text of a file in any format we read, recognised by its
 * content (magic bytes, zip members) before its name. Plain text is decoded
 * as sim_text_decode() does; HTML through libxml2's HTML parser (visible
 * text, block elements as line breaks, script/style/nav dropped, entities
 * and <meta charset> honoured); DOCX and ODT through libarchive and libxml2
 * (paragraphs, headings, tables, text boxes and footnotes in reading order;
 * tracked deletions, field codes and comments left out); PDF through
 * poppler-glib (reading order, hyphenation undone, lines repeated at the top
 * or bottom of most pages dropped); Markdown with its markup dropped; legacy
 * .doc through catdoc when it is installed. HTML, DOCX, ODT and Markdown
 * are read by the markup module (sim-markup.h) and PDF by the PDF module
 * (sim-pdf.h), each loaded the first time such a file is met.
 *
 * Every offset of a report refers to the text returned here, which is what
 * the store keeps and `simhound-cli text FILE` prints. Thread-safe.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum {
  SIM_FORMAT_TEXT,
  SIM_FORMAT_MARKDOWN,
  SIM_FORMAT_HTML,
  SIM_FORMAT_DOCX,
  SIM_FORMAT_ODT,
  SIM_FORMAT_PDF,
  SIM_FORMAT_DOC,
} SimFormat;

/* "text", "markdown", "html", "docx", "odt", "pdf", "doc": as in the JSON. */
const char *sim_format_to_string (SimFormat format);

/* The format of @data (@name's extension decides only between text,
 * Markdown and HTML, which have no magic bytes). */
SimFormat   sim_document_detect  (const char  *data,
                                  gsize        len,
                                  const char  *name);

/* What reading a document repaired or left out, for the reader to be told. */
typedef struct {
  guint   n_repaired;    /* invalid UTF-8 sequences replaced with U+FFFD */
  guint   n_nuls;        /* NUL bytes replaced with U+FFFD */
  guint   n_hidden;      /* characters of hidden text left out (DOCX, ODT, PDF) */
  guint32 hidden_start;  /* code points of the text returned: where the first */
  guint32 hidden_end;    /* and the last hidden text were left out */
} SimDocumentNotes;

/* The text of a document held in @data: what a reader sees (text hidden in
 * the file is left out and counted in @out_notes). Fails with
 * SIM_ERROR_NOT_TEXT (binary, a zip that is no document, a PDF without a
 * text layer, an encrypted file, an office file with a document type
 * declaration), SIM_ERROR_BAD_ENCODING or SIM_ERROR_INVALID_ARGUMENT (a
 * member that unpacks beyond the size limit, more text than
 * SIM_TEXT_MAX_TEXT_BYTES); @name is in every message. (transfer full) */
char       *sim_document_extract (const char       *data,
                                  gsize             len,
                                  const char       *name,
                                  SimFormat        *out_format,
                                  gsize            *out_len,
                                  SimDocumentNotes *out_notes,
                                  GError          **error);

/* Reads @path (within SIM_TEXT_MAX_FILE_BYTES) and extracts its text. */
char       *sim_document_load    (const char       *path,
                                  SimFormat        *out_format,
                                  gsize            *out_len,
                                  SimDocumentNotes *out_notes,
                                  GError          **error);

G_END_DECLS
