/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include <locale.h>
#include <adwaita.h>
#include <glib/gi18n.h>

#include "sim-paths.h"
#include "sim-tint.h"
#include "sim-test-ui.h"

void
sim_test_ui_init (void)
{
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, sim_paths_locale_dir ());
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  adw_init ();
  /* SIMHOUND_TEST_STYLE=dark: as a user with the dark style sees it. */
  if (g_strcmp0 (g_getenv ("SIMHOUND_TEST_STYLE"), "dark") == 0)
    adw_style_manager_set_color_scheme (adw_style_manager_get_default (), ADW_COLOR_SCHEME_FORCE_DARK);
  sim_tint_install_css ();
  /* What GtkApplication does for the app from its id. */
  gtk_icon_theme_add_resource_path (gtk_icon_theme_get_for_display (gdk_display_get_default ()),
                                    "/org/simhound/Simhound/icons");
}

static gboolean
quit_loop (gpointer data)
{
  g_main_loop_quit (data);
  return G_SOURCE_REMOVE;
}

void
sim_test_ui_settle (GtkWidget *widget,
                    guint      ms)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);

  gtk_widget_queue_resize (widget);
  g_timeout_add (ms, quit_loop, loop);
  g_main_loop_run (loop);
}

GdkTexture *
sim_test_ui_render (GtkWidget *widget)
{
  const int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;

  GdkRGBA background = { 1, 1, 1, 1 };

  /* The widget's own drawing, children included, on the style's window
   * colour (light or dark); a window without the margin its client-side
   * shadow takes. */
G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_lookup_color (gtk_widget_get_style_context (widget), "window_bg_color", &background);
G_GNUC_END_IGNORE_DEPRECATIONS
  gtk_snapshot_append_color (snapshot, &background, &GRAPHENE_RECT_INIT (0, 0, w, h));
  if (GTK_IS_NATIVE (widget))
    {
      double sx = 0, sy = 0;

      gtk_native_get_surface_transform (GTK_NATIVE (widget), &sx, &sy);
      gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (-sx, -sy));
    }
  GTK_WIDGET_GET_CLASS (widget)->snapshot (widget, snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  return gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (widget)), node,
                                      &GRAPHENE_RECT_INIT (0, 0, w, h));
}

int
sim_test_ui_save_png (GtkWidget  *widget,
                      const char *out)
{
  g_autoptr(GdkTexture) texture = NULL;

  sim_test_ui_settle (widget, 400);
  texture = sim_test_ui_render (widget);
  return gdk_texture_save_to_png (texture, out) ? 0 : 2;
}

GtkWidget *
sim_test_ui_find_actionable (GtkWidget  *widget,
                 const char *action)
{
  if (GTK_IS_ACTIONABLE (widget) && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (widget)), action) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = sim_test_ui_find_actionable (child, action);

      if (found)
        return found;
    }
  return NULL;
}

gboolean
sim_test_ui_has_shortcut (GtkWidget  *widget,
              const char *trigger,
              const char *action)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) controller = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
        continue;
      for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
        {
          g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);
          g_autofree char *t = gtk_shortcut_trigger_to_string (gtk_shortcut_get_trigger (shortcut));
          g_autofree char *a = gtk_shortcut_action_to_string (gtk_shortcut_get_action (shortcut));

          if (g_str_equal (t, trigger) && strstr (a, action) != NULL)
            return TRUE;
        }
    }
  return FALSE;
}
