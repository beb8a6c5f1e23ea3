/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Helpers shared by the tests: temporary folders and files, and the path of
 * ../shared when it exists.
 */
#pragma once

#include <glib.h>

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
/* The shared/ folder beside the project, or NULL when absent. */
const char *sim_test_shared_dir     (void);

G_END_DECLS
