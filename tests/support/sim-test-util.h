/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Helpers shared by the tests: temporary folders and files, and the path of
 * ../shared when it exists.
 */
#pragma once

#include <glib.h>

#include "sim-check.h"
#include "sim-report-view.h"

G_BEGIN_DECLS

/* A new empty folder under the system temp dir. (transfer full) */
char       *sim_test_make_tmp_dir   (void);
/* Removes @path and everything below it. */
void        sim_test_remove_tree    (const char *path);
/* Writes @len bytes (-1: NUL-terminated) to @dir/@name, creating folders. (transfer full) */
/* The code points [@start, @end) of @text (valid UTF-8). (transfer full) */
char       *sim_test_span_text      (const char *text,
                                     guint32     start,
                                     guint32     end);
char       *sim_test_write_file     (const char *dir,
                                     const char *name,
                                     const char *data,
                                     gssize      len);
/* Runs the default main context until @done (@data) or @seconds pass. */
void        sim_test_spin_until     (gboolean  (*done) (gpointer),
                                     gpointer    data,
                                     guint       seconds);
/* Imports @folder into the store at @store (made if needed) and checks
 * @article against it; *@out_n_added (may be NULL) gets how many documents
 * the import added. NULL when the store cannot be opened or the import
 * fails. (transfer full) */
SimReport  *sim_test_check_folder   (const char            *store,
                                     const char            *folder,
                                     const char            *article,
                                     const SimCheckOptions *options,
                                     guint                 *out_n_added);
/* The shared/ folder beside the project, or NULL when absent. */
const char *sim_test_shared_dir     (void);

/* @report's JSON with no exclusion chosen (sim_report_view_to_json()). (transfer full) */
char       *sim_test_report_json    (SimReport  *report,
                                     gboolean    pretty);
/* Segments at @level with no exclusion chosen. */
guint       sim_test_count_level    (SimReport  *report,
                                     SimLevel    level);

G_END_DECLS
