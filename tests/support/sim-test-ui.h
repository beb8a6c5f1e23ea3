/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What every UI test program shares: the app's start (translations,
 * libadwaita, CSS) and saving a window as it is shown to a PNG for
 * screenshots.sh.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Locale and translations (SIMHOUND_LOCALEDIR or the build's), libadwaita
 * and GTK, the app's CSS. */
void        sim_test_ui_init      (void);
/* Runs the main loop for @ms: the window lays out and draws what changed. */
void        sim_test_ui_settle    (GtkWidget  *widget,
                                   guint       ms);
/* @widget as it is shown now. */
GdkTexture *sim_test_ui_render    (GtkWidget  *widget);
/* Settles @widget and saves it as @out; 0 on success, 2 otherwise (an exit
 * status). */
int         sim_test_ui_save_png  (GtkWidget  *widget,
                                   const char *out);

/* The first widget under @widget (itself included) whose action is @action. */
GtkWidget  *sim_test_ui_find_actionable (GtkWidget  *widget,
                                         const char *action);
/* Whether @widget has a shortcut @trigger ("Escape", "<Control>w") for
 * @action. */
gboolean    sim_test_ui_has_shortcut    (GtkWidget  *widget,
                                         const char *trigger,
                                         const char *action);

G_END_DECLS
