/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Preferences under Xvfb: not modal, Escape and Ctrl+W close, and level
 * thresholds saved only while medium < high, the reason shown otherwise.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "sim-preferences.h"
#include "sim-test-util.h"
#include "sim-test-ui.h"

static void
test_preferences_validate_the_thresholds (void **state)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.simhound.Simhound");
  GtkWidget *parent = gtk_window_new ();
  GtkWidget *prefs = sim_preferences_new (GTK_WINDOW (parent));
  SimPreferences *p = SIM_PREFERENCES (prefs);

  gtk_window_present (GTK_WINDOW (parent));
  gtk_window_present (GTK_WINDOW (prefs));
  assert_false (gtk_window_get_modal (GTK_WINDOW (prefs)));
  assert_null (sim_preferences_get_problem (p));

  /* Medium above high: nothing is saved, and the window says why. */
  sim_preferences_set_thresholds (p, 80, 70);
  assert_non_null (sim_preferences_get_problem (p));
  assert_non_null (strstr (sim_preferences_get_problem (p), "must be below high"));
  assert_float_equal (g_settings_get_double (settings, "medium-threshold"), 0.40, 1e-9);
  assert_float_equal (g_settings_get_double (settings, "high-threshold"), 0.70, 1e-9);

  /* Equal is not below either. */
  sim_preferences_set_thresholds (p, 70, 70);
  assert_non_null (sim_preferences_get_problem (p));

  /* Mended: both are saved at once. */
  sim_preferences_set_thresholds (p, 50, 75);
  assert_null (sim_preferences_get_problem (p));
  assert_float_equal (g_settings_get_double (settings, "medium-threshold"), 0.50, 1e-9);
  assert_float_equal (g_settings_get_double (settings, "high-threshold"), 0.75, 1e-9);
  g_settings_reset (settings, "medium-threshold");
  g_settings_reset (settings, "high-threshold");

  assert_true (sim_test_ui_has_shortcut (prefs, "Escape", "window.close"));
  assert_true (sim_test_ui_has_shortcut (prefs, "<Control>w", "window.close"));
  gtk_window_destroy (GTK_WINDOW (prefs));
  gtk_window_destroy (GTK_WINDOW (parent));
}

/* The row with @title under @widget, or NULL. */
static AdwActionRow *
find_row (GtkWidget  *widget,
          const char *title)
{
  if (ADW_IS_ACTION_ROW (widget) &&
      g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), title) == 0)
    return ADW_ACTION_ROW (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      AdwActionRow *row = find_row (child, title);

      if (row != NULL)
        return row;
    }
  return NULL;
}

/* A default the window names is the schema's (it said 3 beside a default
 * of 0). */
static void
test_preferences_name_the_real_default (void **state)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.simhound.Simhound");
  g_autoptr(GVariant) value = g_settings_get_default_value (settings, "max-distance");
  GtkWidget *prefs = sim_preferences_new (NULL);
  AdwActionRow *row = find_row (prefs, "Search breadth for sources");
  g_autofree char *expected = g_strdup_printf ("(%u by default)", g_variant_get_uint32 (value));

  assert_non_null (row);
  assert_non_null (strstr (adw_action_row_get_subtitle (row), expected));
  gtk_window_destroy (GTK_WINDOW (prefs));
}

int
main (int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_preferences_validate_the_thresholds),
    cmocka_unit_test (test_preferences_name_the_real_default),
  };

  sim_test_ui_init ();
  /* --screenshot OUT.png: the window with an invalid pair typed. */
  if (argc == 3 && g_str_equal (argv[1], "--screenshot"))
    {
      GtkWidget *prefs = sim_preferences_new (NULL);

      gtk_window_present (GTK_WINDOW (prefs));
      sim_preferences_set_thresholds (SIM_PREFERENCES (prefs), 80, 70);
      return sim_test_ui_save_png (prefs, argv[2]);
    }
  return cmocka_run_group_tests_name ("preferences", tests, NULL, NULL);
}
