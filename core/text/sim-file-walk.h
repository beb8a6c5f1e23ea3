/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The one walk over files and folders that every command uses (corpus
 * add and rescan, cross, the app's imports): regular files in name order,
 * hidden entries skipped, symlinked folders not followed (no loops), links
 * to files outside the folder being walked refused (a link to /etc/shadow
 * in a class folder is not an essay), named pipes, devices and sockets
 * reported. A file named on its own is taken whatever it is a link to.
 * Thread-safe.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Appends the files under @path (itself if a file) to @files and a line
 * for each entry skipped with its reason to @failures (both of strings). */
void sim_file_walk (const char *path,
                    GPtrArray  *files,
                    GPtrArray  *failures);

G_END_DECLS
