/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>
#include <gmodule.h>

#include "sim-paths.h"

const char *
sim_paths_locale_dir (void)
{
  const char *env = g_getenv ("SIMHOUND_LOCALEDIR");
  g_autofree char *installed = g_build_filename (LOCALEDIR, "zh_CN", "LC_MESSAGES", GETTEXT_PACKAGE ".mo", NULL);

  if (env && *env)
    return env;
  if (!g_file_test (installed, G_FILE_TEST_EXISTS) && g_file_test (BUILD_LOCALEDIR, G_FILE_TEST_IS_DIR))
    return BUILD_LOCALEDIR;
  return LOCALEDIR;
}

char *
sim_paths_demo_texts (void)
{
  const char *env = g_getenv ("SIMHOUND_DEMO_TEXTS");

  if (env && *env)
    return g_strdup (env);
  /* Where ./run.sh writes it, whether it has yet or not: the one place a
   * message can send the user to. */
  return g_strdup (BUILD_DEMO_TEXTS);
}

const char *
sim_paths_module_dir (void)
{
  const char *env = g_getenv ("SIMHOUND_MODULEDIR");
  /* Every module is installed together: one tells. */
  g_autofree char *installed = g_build_filename (MODULEDIR, "libsimhound-pdf." G_MODULE_SUFFIX, NULL);

  if (env && *env)
    return env;
  if (!g_file_test (installed, G_FILE_TEST_EXISTS) && g_file_test (BUILD_MODULEDIR, G_FILE_TEST_IS_DIR))
    return BUILD_MODULEDIR;
  return MODULEDIR;
}

gboolean
sim_store_location_is_server (const char *location)
{
  if (location == NULL)
    return FALSE;
  return g_str_has_prefix (location, "postgresql://") || g_str_has_prefix (location, "postgres://") ||
         g_str_has_prefix (location, "service=") || strstr (location, "dbname=") != NULL ||
         strstr (location, "host=") != NULL;
}
