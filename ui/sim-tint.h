/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Level colours behind text, from core's one colour table (sim-level.h), as
 * GDK colours for text tags: translucent, so they read in light and dark
 * styles alike.
 */
#pragma once

#include <gtk/gtk.h>

#include "sim-level.h"

G_BEGIN_DECLS

/* @level's tint at @scale of its usual opacity. */
void sim_tint_get_rgba (SimLevel  level,
                        double    scale,
                        GdkRGBA  *out);

/* The app's fonts as a CSS font-family (sim-fonts.h): the face the
 * desktop's font stands for in Latin text, then the CJK family of the
 * user's language. */
char *sim_tint_dup_font_families (void);

/* Gives the display the app's CSS: the .legend-high and .legend-medium
 * style classes in the same colours, .source-badge with .source-1 …
 * .source-8 in the source palette, windows' fonts
 * (sim_tint_dup_font_families()), and style.css (once; later calls do
 * nothing). */
void sim_tint_install_css (void);

G_END_DECLS
