/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the markup module's files share (sim-markup.c: text out, HTML and
 * the entry; sim-markup-office.c: DOCX and ODT; sim-markup-markdown.c:
 * Markdown, rendered and read as HTML).
 */
#pragma once

#include <glib.h>

#include "sim-markup.h"
#include "sim-text.h"

/* Deeper than this the walks go on without recursion: a page of 300
 * unclosed <font> tags (old editors write them) is read whole. */
#define MAX_WALK_DEPTH 200

/* Text as it is extracted: runs of spaces collapse, and breaks between
 * blocks are at most one blank line. */
typedef struct {
  GString    *s;
  gboolean    pre;         /* inside <pre>: whitespace kept */
  gboolean    quote;       /* inside a block quotation */
  gboolean    quote_open;  /* its paragraph's opening mark is written */
  GHashTable *quote_styles; /* ODT: style names that are quotations */
  GHashTable *hidden_styles; /* ODT: style names whose text a reader does not see */
  guint       n_hidden;    /* characters of hidden text left out */
  gsize       hidden_first; /* byte offsets in s where the first and last were */
  gsize       hidden_last;
} Out;

#define OUT_INIT { g_string_new (NULL), FALSE, FALSE, FALSE, NULL, NULL, 0, 0, 0 }

/* Past the limit on a document's text the walks stop: what they hold is
 * bounded whatever the file. */
static inline gboolean
_sim_out_is_full (const Out *out)
{
  return out->s->len > SIM_TEXT_MAX_TEXT_BYTES;
}

/* Text a reader does not see, left out and counted. */
void  _sim_out_hidden              (Out               *out,
                                    const char        *text);
/* A block quotation's paragraph opens with its mark. */
void  _sim_out_open_quote          (Out               *out);
/* At most @n_newlines line breaks between blocks. */
void  _sim_out_break               (Out               *out,
                                    guint              n_newlines);
void  _sim_out_text                (Out               *out,
                                    const char        *text,
                                    gssize             len);
/* The text, and what was hidden in @notes. (transfer full) */
char *_sim_out_finish              (Out               *out,
                                    const char        *name,
                                    gsize             *out_len,
                                    SimDocumentNotes  *notes,
                                    GError           **error);

/* One reader a format. (transfer full) */
char *_sim_markup_extract_html     (const char        *data,
                                    gsize              len,
                                    const char        *name,
                                    gsize             *out_len,
                                    SimDocumentNotes  *notes,
                                    GError           **error);
char *_sim_markup_extract_office   (const char        *data,
                                    gsize              len,
                                    const char        *name,
                                    SimFormat          format,
                                    gsize             *out_len,
                                    SimDocumentNotes  *notes,
                                    GError           **error);
char *_sim_markup_extract_markdown (const char        *original,
                                    gsize              original_len,
                                    const char        *name,
                                    gsize             *out_len,
                                    GError           **error);
