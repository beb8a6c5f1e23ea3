/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Parts of Simhound built as modules, loaded the first time they are
 * needed: from $SIMHOUND_MODULEDIR, else the installed ones when they are
 * there, else the build tree's (sim-paths.h). Any thread.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* @symbol of module @name (loaded once, never unloaded), or NULL with
 * @error set when the module or the symbol is missing. */
gpointer sim_module_symbol (const char  *name,
                            const char  *symbol,
                            GError     **error);

G_END_DECLS
