/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Where the program finds its translations and the demo texts: the
 * environment first, then what is installed, then the build tree.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <glib.h>

#include "sim-paths.h"

static void
test_environment_then_build_tree_then_cache (void **state)
{
  g_autofree char *from_env = NULL, *from_build = NULL;
  const gboolean built = g_file_test (BUILD_DEMO_TEXTS, G_FILE_TEST_IS_DIR);

  g_setenv ("SIMHOUND_DEMO_TEXTS", "/some/where", TRUE);
  from_env = sim_paths_demo_texts ();
  assert_string_equal (from_env, "/some/where");
  g_unsetenv ("SIMHOUND_DEMO_TEXTS");
  from_build = sim_paths_demo_texts ();
  if (built)
    assert_string_equal (from_build, BUILD_DEMO_TEXTS);   /* ./run.sh made it: no variable needed */
  else
    assert_true (g_str_has_suffix (from_build, "simhound/demo-texts"));

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
    cmocka_unit_test (test_environment_then_build_tree_then_cache),
  };

  return cmocka_run_group_tests_name ("paths", tests, NULL, NULL);
}
