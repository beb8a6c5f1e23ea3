/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Where the program finds its translations and the demo texts: the
 * environment first, then what is installed, then the build tree.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>

#include "sim-paths.h"

static void
test_environment_then_the_folder_run_sh_writes (void **state)
{
  g_autofree char *from_env = NULL, *from_build = NULL;
  g_autofree char *run_sh = g_build_filename (g_getenv ("SIMHOUND_TEST_DATA"), "..", "..", "run.sh", NULL);
  g_autofree char *script = NULL;

  g_setenv ("SIMHOUND_DEMO_TEXTS", "/some/where", TRUE);
  from_env = sim_paths_demo_texts ();
  assert_string_equal (from_env, "/some/where");
  g_unsetenv ("SIMHOUND_DEMO_TEXTS");
  from_build = sim_paths_demo_texts ();
  /* Made or not, the folder named is the one ./run.sh writes (the missing
   * demo's message named a cache folder nothing wrote). */
  assert_string_equal (from_build, BUILD_DEMO_TEXTS);
  assert_true (g_str_has_suffix (from_build, "/build/demo/texts") || g_str_has_suffix (from_build, "/demo/texts"));
  assert_true (g_file_get_contents (run_sh, &script, NULL, NULL));
  assert_non_null (strstr (script, "texts=build/demo/texts"));

  g_setenv ("SIMHOUND_LOCALEDIR", "/my/locale", TRUE);
  assert_string_equal (sim_paths_locale_dir (), "/my/locale");
  g_unsetenv ("SIMHOUND_LOCALEDIR");
  /* Not installed here: the build tree's translations, which the build made. */
  {
    g_autofree char *installed = g_build_filename (LOCALEDIR, "zh_CN", "LC_MESSAGES", "simhound.mo", NULL);

    if (!g_file_test (installed, G_FILE_TEST_EXISTS) && g_file_test (BUILD_LOCALEDIR, G_FILE_TEST_IS_DIR))
      assert_string_equal (sim_paths_locale_dir (), BUILD_LOCALEDIR);
    else
      assert_string_equal (sim_paths_locale_dir (), LOCALEDIR);
  }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_environment_then_the_folder_run_sh_writes),
  };

  return cmocka_run_group_tests_name ("paths", tests, NULL, NULL);
}
