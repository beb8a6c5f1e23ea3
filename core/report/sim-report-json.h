/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A report as JSON, one module for both ways: the document of
 * `simhound-cli check --json` (schema in the README), written from a view
 * so that it says what the window and the exports show, and the saved
 * report, which is read back whole; and the JSON of `compare` and `cross`,
 * so one module writes every JSON the program gives.
 */
#pragma once

#include <glib.h>

#include "sim-cross.h"
#include "sim-report-view.h"

G_BEGIN_DECLS

/* The JSON document of `simhound-cli check --json`, with a "file" member
 * first when @file is not NULL; on one line unless @pretty. (transfer full) */
char       *sim_report_view_to_json       (const SimReportView *view,
                                           const char          *file,
                                           gboolean             pretty);

/* A saved report: the check's JSON with no exclusion applied, plus
 * "saved_report" (this version), the article's name and text, and each
 * match's source text, so that opening it shows the result again without
 * a check. (transfer full) */
#define SIM_SAVED_REPORT_VERSION 1
char       *sim_report_to_saved_json      (SimReport           *report);
/* Reads one back: every member is checked, and a damaged or foreign file
 * is G_IO_ERROR_INVALID_DATA (a newer version G_IO_ERROR_NOT_SUPPORTED).
 * Exclusions are not part of it: a view applies them. */
SimReport  *sim_report_from_saved_json    (const char          *data,
                                           gssize               len,
                                           GError             **error);

/* `simhound-cli compare --json` and `cross --json` */

/* The JSON of `simhound-cli compare --json`: {"a": {"path", "characters"},
 * "b": {...}, "similarity", "passages": [{"start", "end", "source_start",
 * "source_end", "level", "similarity"}]}: @similarity and @passages are
 * those shown (the report's, or those a template leaves). (transfer full) */
char      *sim_compare_to_json (const SimReport       *report,
                                float                  similarity,
                                const SimPassage      *passages,
                                guint                  n_passages,
                                const char            *a_path,
                                const char            *b_path,
                                guint32                b_chars);

/* {"documents": [{"path", "format", "characters"}], "pairs": [{"a", "b",
 * "shared_characters", "share_a", "share_b", "passages": [{"start", "end",
 * "source_start", "source_end", "level", "similarity"}]}]}. With @corpus
 * (each document's check against the corpus, or NULL), each document also
 * has "corpus": {"similarity", "sources": [{"document", "title",
 * "share"}]}. (transfer full) */
char   *sim_cross_to_json (GArray                 *pairs,
                           const char *const      *paths,
                           const char *const      *formats,
                           const guint32          *n_chars,
                           SimReport *const       *corpus,
                           guint                   n);

G_END_DECLS
