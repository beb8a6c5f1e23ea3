/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * simhound: the GTK application. Options, app-wide actions, accelerators and
 * the about window; everything else is the window's.
 */
#include "config.h"

#include <locale.h>
#include <glib/gi18n.h>
#include <gtk/gtk.h>
#include <adwaita.h>

#include "sim-paths.h"
#include "sim-preferences.h"
#include "sim-tint.h"
#include "sim-window.h"

static char *store_path;

static void
quit_action (GSimpleAction *action,
             GVariant      *parameter,
             gpointer       user_data)
{
  g_application_quit (G_APPLICATION (user_data));
}

static void
about_action (GSimpleAction *action,
              GVariant      *parameter,
              gpointer       user_data)
{
  static const char *developers[] = { "The Simhound developers", NULL };

  gtk_show_about_dialog (gtk_application_get_active_window (GTK_APPLICATION (user_data)),
                         "program-name", _("Simhound"),
                         "logo-icon-name", "org.simhound.Simhound",
                         "version", PACKAGE_VERSION,
                         "comments", _("Check a text against your own reference documents, offline, in Chinese and English."),
                         "license-type", GTK_LICENSE_GPL_3_0,
                         "authors", developers,
                         "translator-credits", _("translator-credits"),
                         NULL);
}

/* One preferences window, not modal: the main window stays usable. */
static void
preferences_action (GSimpleAction *action,
                    GVariant      *parameter,
                    gpointer       user_data)
{
  static GtkWidget *preferences;

  if (preferences == NULL)
    {
      preferences = sim_preferences_new (gtk_application_get_active_window (GTK_APPLICATION (user_data)));
      g_object_add_weak_pointer (G_OBJECT (preferences), (gpointer *) &preferences);
    }
  gtk_window_present (GTK_WINDOW (preferences));
}

static const GActionEntry app_actions[] = {
  { "quit", quit_action },
  { "about", about_action },
  { "preferences", preferences_action },
};

static void
on_startup (GApplication *app)
{
  const char *quit_accels[] = { "<Control>q", NULL };
  const char *prefs_accels[] = { "<Control>comma", NULL };

  /* libadwaita's style manager makes the app follow the system's dark style. */
  adw_init ();
  g_action_map_add_action_entries (G_ACTION_MAP (app), app_actions, G_N_ELEMENTS (app_actions), app);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit", quit_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.preferences", prefs_accels);
  /* The legend's colours come from core's one colour table. */
  sim_tint_install_css ();
  /* The icon is in the resources (GtkApplication adds their icons/ to the
   * theme), so windows show it from the build tree too. */
  gtk_window_set_default_icon_name ("org.simhound.Simhound");
}

static SimWindow *
new_window (GApplication *app)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.simhound.Simhound");
  g_autofree char *configured = g_settings_get_string (settings, "store");

  return sim_window_new (GTK_APPLICATION (app), store_path ? store_path : (*configured ? configured : NULL));
}

static void
on_activate (GApplication *app)
{
  gtk_window_present (GTK_WINDOW (new_window (app)));
}

static void
on_open (GApplication  *app,
         GFile        **files,
         int            n_files,
         const char    *hint)
{
  for (int i = 0; i < n_files; i++)
    {
      SimWindow *window = new_window (app);

      sim_window_open_file (window, files[i]);
      gtk_window_present (GTK_WINDOW (window));
    }
}

int
main (int argc, char **argv)
{
  g_autoptr(GtkApplication) app = NULL;
  const GOptionEntry options[] = {
    { "store", 0, 0, G_OPTION_ARG_FILENAME, &store_path, N_("The corpus store to use"), N_("PATH") },
    { NULL }
  };

  setlocale (LC_ALL, "");
  /* Installed translations, or the build tree's (SIMHOUND_LOCALEDIR overrides). */
  bindtextdomain (GETTEXT_PACKAGE, sim_paths_locale_dir ());
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  /* Also the name recent files are registered under. */
  g_set_application_name ("Simhound");
  app = gtk_application_new ("org.simhound.Simhound", G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE);
  g_application_add_main_option_entries (G_APPLICATION (app), options);
  g_signal_connect (app, "startup", G_CALLBACK (on_startup), NULL);
  g_signal_connect (app, "activate", G_CALLBACK (on_activate), NULL);
  g_signal_connect (app, "open", G_CALLBACK (on_open), NULL);
  return g_application_run (G_APPLICATION (app), argc, argv);
}
