/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Preferences: a non-modal window over the app's GSettings, in plain words
 * (the engine's terms are in tooltips). The level thresholds are written
 * only while medium < high; otherwise the settings keep their last valid
 * values and the window says why. Escape and Ctrl+W close.
 */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define SIM_TYPE_PREFERENCES (sim_preferences_get_type ())
G_DECLARE_FINAL_TYPE (SimPreferences, sim_preferences, SIM, PREFERENCES, AdwPreferencesWindow)

GtkWidget *sim_preferences_new (GtkWindow *parent);
/* Sets the thresholds as typed in percent, as a user would. */
void       sim_preferences_set_thresholds (SimPreferences *self,
                                           double          medium_percent,
                                           double          high_percent);
/* Why the thresholds are not saved, or NULL while they are valid. */
const char *sim_preferences_get_problem   (SimPreferences *self);

G_END_DECLS
