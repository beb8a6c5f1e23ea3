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

/* The app's fonts as a CSS font-family: the face the desktop's font
 * stands for, then the CJK family of the user's language
 * (sim_export_cjk_family()). Left to fontconfig's fallback, Chinese was
 * set in the Japanese variant in an English desktop, and a Chinese comma
 * after a Latin word in a Chinese one. */
char *sim_tint_dup_font_families (void);

/* Gives the display the app's CSS: the .legend-high and .legend-medium
 * style classes in the same colours, .source-badge with .source-1 …
 * .source-8 in the source palette, windows' fonts
 * (sim_tint_dup_font_families()), and style.css (once; later calls do
 * nothing). */
void sim_tint_install_css (void);

G_END_DECLS
