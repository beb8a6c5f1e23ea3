/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Preferences: a non-modal window over the app's GSettings, in plain words
 * (the engine's terms are in tooltips). The level thresholds are written
 * only while medium < high; otherwise the settings keep their last valid
 * values and the window says why. Escape and Ctrl+W close.
 *
 * The reference corpus is this computer's store or a server: its
 * connection string goes to the "store" setting (any password in it taken
 * out), its password to the keyring (sim-keyring.h), never to GSettings.
 * Test Connection connects on a thread as a check would and says what it
 * found in words.
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
/* Chooses "A server" with @conninfo and @password (or NULL) as a user
 * would type and apply them. */
void       sim_preferences_use_server     (SimPreferences *self,
                                           const char     *conninfo,
                                           const char     *password);
/* Clicks Test Connection. */
void       sim_preferences_test_connection (SimPreferences *self);
/* What the last test said, or NULL while one runs or none has. */
const char *sim_preferences_get_test_result (SimPreferences *self);

G_END_DECLS
