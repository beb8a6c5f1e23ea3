/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The password of a corpus server, kept in the user's keyring (the Secret
 * Service: GNOME Keyring, KWallet) through libsecret, never in GSettings,
 * a log or a report. A password is filed under the server's connection
 * string with any password in it taken out (sim_store_location_redact()).
 * Blocking: call from a worker thread, or for a short lookup.
 */
#pragma once

#include <glib.h>

#include "sim-backend.h"

G_BEGIN_DECLS

/* The password kept for @location, or NULL (none, or no keyring). (transfer full) */
char     *sim_keyring_lookup (const char  *location);
/* Keeps @password for @location (an empty one removes what was kept). FALSE
 * with @error when there is no keyring to keep it in. */
gboolean  sim_keyring_store  (const char  *location,
                              const char  *password,
                              GError     **error);

/* sim_backend_open() of @location with the password kept for it, the
 * password wiped from memory once it is used. Blocking. */
SimBackend *sim_keyring_open_backend (const char  *location,
                                      gboolean     read_only,
                                      GError     **error);

G_END_DECLS
