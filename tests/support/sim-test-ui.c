/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

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
  sim_tint_install_css ();
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

  /* The widget's own drawing, children included, on white. */
  gtk_snapshot_append_color (snapshot, &(GdkRGBA) { 1, 1, 1, 1 }, &GRAPHENE_RECT_INIT (0, 0, w, h));
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
