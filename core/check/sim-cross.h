/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A class checked against itself: every pair of documents that shares text,
 * found without comparing every pair. Each document's winnowed anchor
 * windows (sim-fingerprint.h) are hashed once; windows are sorted, and two
 * documents holding the same window are a candidate pair. A window held by
 * more than a quarter of the documents (at least three; always beyond
 * SIM_CROSS_MAX_HOLDERS) is a commonplace of the class, the assignment's
 * wording or a stock phrase: it proposes nothing, and a passage made mostly
 * of commonplaces is not reported. Only candidates sharing
 * SIM_CROSS_MIN_SHARED windows are aligned
 * (sim-compare.h), in parallel, so a class costs one pass over its text plus
 * the pairs that really share something.
 */
#pragma once

#include <gio/gio.h>

#include "sim-compare.h"

G_BEGIN_DECLS

#define SIM_CROSS_MAX_HOLDERS 20
#define SIM_CROSS_MIN_SHARED  2

/* Text found in more documents of a class of @n than this is the
 * assignment's, a heading every essay has or a stock phrase, not a match
 * (MOSS's -m limit): a tenth of the class, at least 3, at most
 * SIM_CROSS_MAX_HOLDERS. */
static inline guint
sim_cross_max_holders (guint n)
{
  return CLAMP (n / 10, 3, SIM_CROSS_MAX_HOLDERS);
}

typedef struct {
  guint      a;              /* indices into the documents, a < b */
  guint      b;
  guint32    shared_a;       /* characters of A in passages found in B */
  guint32    shared_b;       /* characters of B in those passages */
  float      share_a;        /* shared_a / A's characters */
  float      share_b;
  SimReport *report;         /* A compared with B */
  GArray    *passages;       /* SimPassage: the report's, less commonplaces */
} SimCrossPair;

/* Finds the pairs of @texts (@n documents, @lens bytes each, named @names)
 * that share passages, largest shared_a + shared_b first; what a document
 * repeats of @template_text (the assignment's own text, or NULL) counts as
 * a commonplace. Texts without content take part in no pair. Fails only on
 * bad options or G_IO_ERROR_CANCELLED. (element-type SimCrossPair)
 * (transfer full) */
GArray *sim_cross_run     (const char *const      *texts,
                           const gsize            *lens,
                           const char *const      *names,
                           guint                   n,
                           const char             *template_text,
                           const SimCheckOptions  *options,
                           SimNormalizeFlags       flags,
                           GCancellable           *cancellable,
                           GError                **error);

/* Largest sources named per document when the class is checked against the
 * corpus too. */
#define SIM_CROSS_CORPUS_SOURCES 3



/* The pairs as CSV for a spreadsheet (RFC 4180): a header, then one line
 * a pair, largest first: "a","b",share_a,share_b,shared_characters_a,
 * shared_characters_b,passages. (transfer full) */
char   *sim_cross_to_csv  (GArray                 *pairs,
                           const char *const      *paths);

/* A self-contained HTML page: the pairs' documents in a matrix of shares
 * (each cell linking to its pair; up to 60 documents, beyond that the
 * pairs only), each document against the corpus when @corpus is given (as
 * for JSON), then each pair's passages side by side, @texts' extracted
 * text. (transfer full) */
char   *sim_cross_to_html (GArray                 *pairs,
                           const char *const      *paths,
                           const char *const      *texts,
                           const guint32          *n_chars,
                           SimReport *const       *corpus,
                           guint                   n);

/* The documents of a class, read as check reads them. */
typedef struct {
  GPtrArray *paths;     /* (element-type filename) */
  GPtrArray *texts;     /* (element-type utf8) their extracted text */
  GPtrArray *formats;   /* (element-type utf8) sim_format_to_string () */
  GArray    *lens;      /* gsize: bytes of each text */
  GArray    *n_chars;   /* guint32: code points of each text */
  GPtrArray *failures;  /* (element-type utf8) why a file was not read (it names the file) */
} SimCrossDocuments;

/* Reads the files and folders of @paths (folders recursively, hidden
 * entries skipped, in name order). A file that cannot be read is listed in
 * failures and the rest read. @progress is called before each file. NULL
 * only when cancelled. (transfer full) */
SimCrossDocuments *sim_cross_documents_load (const char *const  *paths,
                                             SimProgressFunc     progress,
                                             gpointer            user_data,
                                             GCancellable       *cancellable,
                                             GError            **error);
void    sim_cross_documents_free (SimCrossDocuments *docs);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimCrossDocuments, sim_cross_documents_free)

G_END_DECLS
