/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Comparing two documents without a corpus: an editor's "is this article a
 * copy of that one?". Text A is aligned with text B (sim-align.c) and the
 * result is a SimReport whose one source is B, so the JSON, HTML and PDF
 * exports and the app's views work on it as on a check; its passages carry
 * spans in both texts.
 */
#pragma once

#include <gio/gio.h>

#include "sim-check.h"
#include "sim-report.h"

G_BEGIN_DECLS

/* Compares @a (@a_len bytes of UTF-8, or -1) named @a_name with @b named
 * @b_name. Uses the options' thresholds and @flags for normalisation. Fails
 * with SIM_ERROR_EMPTY when A has no text, SIM_ERROR_INVALID_ARGUMENT for
 * bad options, or G_IO_ERROR_CANCELLED. Any thread. (transfer full) */
SimReport *sim_compare_run     (const char            *a,
                                gssize                 a_len,
                                const char            *a_name,
                                const char            *b,
                                gssize                 b_len,
                                const char            *b_name,
                                const SimCheckOptions *options,
                                SimNormalizeFlags      flags,
                                GCancellable          *cancellable,
                                GError               **error);

/* A text prepared once (normalised, split into sentences, indexed) for
 * comparing with many others, as `cross` does. Immutable: any thread. */
typedef struct _SimCompareText SimCompareText;

/* Fails with SIM_ERROR_EMPTY when @text has no letters, digits or CJK. */
SimCompareText *sim_compare_text_new  (const char            *text,
                                       gssize                 len,
                                       const char            *name,
                                       SimNormalizeFlags      flags,
                                       GError               **error);
void            sim_compare_text_free (SimCompareText        *text);
/* Its normalised units (sim_text_normalize() with its flags). */
const SimUnits *sim_compare_text_get_units (const SimCompareText *text);
/* sim_compare_run() on prepared texts (normalised with A's flags). */
SimReport      *sim_compare_run_texts (const SimCompareText  *a,
                                       const SimCompareText  *b,
                                       const SimCheckOptions *options,
                                       GCancellable          *cancellable,
                                       GError               **error);

/* sim_compare_run_texts(), or NULL when A and B share no passage: most
 * pairs of a class, which need no report. @options already validated. */
SimReport      *sim_compare_shared    (const SimCompareText  *a,
                                       const SimCompareText  *b,
                                       const SimCheckOptions *options);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimCompareText, sim_compare_text_free)



G_END_DECLS
