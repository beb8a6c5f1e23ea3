/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Exclusions and the ratios schools use, on a finished report: quoted text
 * (“…”, "…", 「…」, 『…』, ‘…’), the reference section (the last heading
 * such as References, Bibliography, Works Cited, 参考文献, 参考资料, to the
 * end or to an appendix), passages shorter than N words (2N CJK
 * characters), sources left out (the student's own earlier work) and the
 * assignment's own text (a template every student may repeat). No lookup is
 * repeated: the app recomputes on the same report when a choice changes.
 *
 * Small, source and template decide what is flagged at all; quotes and
 * references are left out of the headline figure only when chosen, and the
 * four ratios show each way (sim-report.h: SimRatios).
 */
#pragma once

#include <gio/gio.h>

#include "sim-report.h"
#include "sim-text.h"

G_BEGIN_DECLS

typedef struct {
  gboolean          quotes;         /* the headline leaves quoted text out */
  gboolean          references;     /* ... and the reference section */
  guint             small_words;    /* passages of fewer words are not flagged; 0: all are */
  const gint64     *source_ids;     /* documents whose passages are not flagged */
  guint             n_source_ids;
  const char       *template_text;  /* the assignment's text, or NULL */
  gssize            template_len;
  SimNormalizeFlags flags;          /* for aligning with the template */
} SimExclusions;

#define SIM_EXCLUSIONS_INIT { FALSE, FALSE, 0, NULL, 0, NULL, -1, SIM_NORMALIZE_DEFAULT }

/* Spans (SimExcludedSpan, code points) of @text inside quotation marks. A
 * quotation ends at its closing mark, within a paragraph and 2,000
 * characters; an opening mark without one quotes nothing. */
void     sim_exclude_find_quotes     (const char *text,
                                      gssize      len,
                                      GArray     *out);
/* The reference section of @text, if it has one, appended to @out. */
void     sim_exclude_find_references (const char *text,
                                      gssize      len,
                                      GArray     *out);

/* Computes the ratios and the excluded spans of @report under @exclusions
 * (NULL: none chosen) and sets them on it, replacing earlier ones. Only the
 * template alignment can fail (G_IO_ERROR_CANCELLED, bad options). Call it
 * before the report is shared between threads. */
gboolean sim_exclude_apply           (SimReport           *report,
                                      const SimExclusions *exclusions,
                                      GError             **error);

G_END_DECLS
