/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A report as JSON, one module for both ways: the document of
 * `simhound-cli check --json` (schema in the README), written from a view
 * so that it says what the window and the exports show, and the saved
 * report, which is read back whole.
 */
#pragma once

#include <glib.h>

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

G_END_DECLS
