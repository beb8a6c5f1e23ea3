/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <pango/pangocairo.h>

#include "sim-fonts.h"
#include "sim-tint.h"

void
sim_tint_get_rgba (SimLevel  level,
                   double    scale,
                   GdkRGBA  *out)
{
  gdk_rgba_parse (out, sim_level_color (level));
  out->alpha = sim_level_tint_alpha (level) * scale;
}

char *
sim_tint_dup_font_families (void)
{
  g_autofree char *name = NULL;
  g_autofree char *family = NULL;

  g_object_get (gtk_settings_get_default (), "gtk-font-name", &name, NULL);
  family = sim_fonts_latin_family (pango_cairo_font_map_get_default (), name != NULL ? name : "Sans 10");
  return g_strdup_printf ("\"%s\", \"%s\"", family != NULL ? family : "Sans",
                          sim_export_cjk_family (pango_language_to_string (pango_language_get_default ())));
}

void
sim_tint_install_css (void)
{
  static gboolean installed;
  g_autoptr(GtkCssProvider) css = NULL;
  g_autofree char *rules = NULL;
  GdkRGBA high, medium;
  g_autofree char *high_s = NULL, *medium_s = NULL;

  if (installed)
    return;
  installed = TRUE;
  sim_tint_get_rgba (SIM_LEVEL_HIGH, 1.0, &high);
  sim_tint_get_rgba (SIM_LEVEL_MEDIUM, 1.0, &medium);
  high_s = gdk_rgba_to_string (&high);
  medium_s = gdk_rgba_to_string (&medium);
  rules = g_strdup_printf (".legend-high { background-color: %s; border-radius: 4px; padding: 0 6px; }\n"
                           ".legend-medium { background-color: %s; border-radius: 4px; padding: 0 6px; }\n",
                           high_s, medium_s);
  /* Source numbers in their palette colours, as in the article's gutter. */
  {
    GString *more = g_string_new (rules);

    g_string_append (more, ".source-badge { border-radius: 4px; padding: 0 5px; color: rgba(0,0,0,0.87); "
                           "font-weight: bold; font-size: smaller; }\n");
    for (guint c = 1; c <= SIM_SOURCE_N_COLORS; c++)
      g_string_append_printf (more, ".source-%u { background-color: %s; }\n", c, sim_source_color (c));
    {
      g_autofree char *families = sim_tint_dup_font_families ();

      g_string_append_printf (more, "window { font-family: %s; }\n", families);
    }
    g_free (rules);
    rules = g_string_free (more, FALSE);
  }
  css = gtk_css_provider_new ();
  gtk_css_provider_load_from_data (css, rules, -1);
  gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
  g_clear_object (&css);
  /* The rest of the app's style. */
  css = gtk_css_provider_new ();
  gtk_css_provider_load_from_resource (css, "/org/simhound/Simhound/style.css");
  gtk_style_context_add_provider_for_display (gdk_display_get_default (), GTK_STYLE_PROVIDER (css),
                                              GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
}
