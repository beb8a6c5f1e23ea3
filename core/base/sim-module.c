/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <gio/gio.h>
#include <gmodule.h>
#include <glib/gi18n-lib.h>

#include "sim-module.h"
#include "sim-paths.h"

gpointer
sim_module_symbol (const char  *name,
                   const char  *symbol,
                   GError     **error)
{
  static GMutex lock;
  static GHashTable *modules;  /* name -> GModule, under lock */
  GModule *module;
  gpointer address = NULL;

  g_mutex_lock (&lock);
  if (modules == NULL)
    modules = g_hash_table_new (g_str_hash, g_str_equal);
  module = g_hash_table_lookup (modules, name);
  if (module == NULL)
    {
      g_autofree char *path = g_module_build_path (sim_paths_module_dir (), name);

      /* Local: the module's symbols stay its own. */
      module = g_module_open (path, G_MODULE_BIND_LAZY | G_MODULE_BIND_LOCAL);
      if (module == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                       _("A part of Simhound is missing or damaged (%s): %s"), path, g_module_error ());
          g_mutex_unlock (&lock);
          return NULL;
        }
      g_module_make_resident (module);
      g_hash_table_insert (modules, g_strdup (name), module);
    }
  if (!g_module_symbol (module, symbol, &address) || address == NULL)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                 _("A part of Simhound is missing or damaged (%s): %s"), g_module_name (module), g_module_error ());
  g_mutex_unlock (&lock);
  return address;
}
