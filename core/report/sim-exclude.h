/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Exclusions and the ratios schools use, on a finished report: quoted text
 * (“…”, "…", 「…」, 『…』, ‘…’), the reference section (the last heading
 * such as References, Bibliography, Works Cited, 参考文献, 参考资料, to the
 * end or to an appendix), passages shorter than N words (2N CJK
 * characters), sources left out (the student's own earlier work) and the
 * assignment's own text (a template every student may repeat). A view of a
 * report (sim-report-view.h) applies them; the template is aligned once.
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
  gboolean               quotes;          /* the headline leaves quoted text out */
  gboolean               references;      /* ... and the reference section */
  guint                  small_words;     /* passages of fewer words are not flagged; 0: all are */
  const gint64          *source_ids;      /* documents whose passages are not flagged */
  guint                  n_source_ids;
  const SimExcludedSpan *template_spans;  /* the assignment's text in the article */
  guint                  n_template_spans;
} SimExclusions;

#define SIM_EXCLUSIONS_INIT { FALSE, FALSE, 0, NULL, 0, NULL, 0 }

/* Appends [@start, @end) left out for @reason to @out (SimExcludedSpan);
 * an empty span is not appended. */
void     sim_exclude_add_span        (GArray            *out,
                                      guint32            start,
                                      guint32            end,
                                      SimExcludedReason  reason);
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

/* The stretches of @report's article that repeat the assignment's text
 * (@template_text), aligned as `compare` aligns, appended to @out as
 * SIM_EXCLUDED_TEMPLATE spans: found once per report and template, then
 * given to every view (SimExclusions.template_spans). Fails only on bad
 * options; a template without text leaves nothing out. */
gboolean sim_exclude_find_template   (const SimReport     *report,
                                      const char          *template_text,
                                      gssize               template_len,
                                      SimNormalizeFlags    flags,
                                      GArray              *out,
                                      GError             **error);

G_END_DECLS
