/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Where the program's own files are: installed under the prefix, or, for a
 * program run from its build tree (./run.sh), in the build tree, which the
 * build records. Environment variables override both (tests, screenshots).
 * Any thread.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The translations: $SIMHOUND_LOCALEDIR, else the installed ones when they
 * are there, else the build tree's. */
const char *sim_paths_locale_dir (void);
/* The demo corpus's texts: $SIMHOUND_DEMO_TEXTS, else the build tree's,
 * where ./run.sh extracts them (build/demo/texts), made or not. (transfer full) */
char       *sim_paths_demo_texts (void);
/* Simhound's modules (sim-module.h): $SIMHOUND_MODULEDIR, else the
 * installed ones when they are there, else the build tree's. */
const char *sim_paths_module_dir (void);
/* Whether a corpus location (--store, $SIMHOUND_STORE, the app's
 * preference) names a corpus server, a libpq connection string
 * ("postgresql://…", "postgres://…", "service=…", "host=… dbname=…"),
 * rather than a local store's path (sim-server.h). Here, with the paths,
 * so that simhound-cli's launcher tells them apart by the same rule. */
gboolean    sim_store_location_is_server (const char *location);

G_END_DECLS
