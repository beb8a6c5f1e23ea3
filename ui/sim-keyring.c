/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>
#include <glib/gi18n.h>
#include <libsecret/secret.h>

#include "sim-keyring.h"
#include "sim-store.h"

static const SecretSchema *
server_schema (void)
{
  static const SecretSchema schema = {
    "org.simhound.Simhound.Server", SECRET_SCHEMA_NONE,
    { { "server", SECRET_SCHEMA_ATTRIBUTE_STRING }, { NULL, 0 } },
  };

  return &schema;
}

char *
sim_keyring_lookup (const char *location)
{
  g_autofree char *server = sim_store_location_redact (location);
  g_autoptr(GError) error = NULL;
  char *secret = secret_password_lookup_sync (server_schema (), NULL, &error, "server", server, NULL);
  char *password;

  if (secret == NULL)
    return NULL;
  password = g_strdup (secret);
  secret_password_free (secret);
  return password;
}

gboolean
sim_keyring_store (const char  *location,
                   const char  *password,
                   GError     **error)
{
  g_autofree char *server = sim_store_location_redact (location);
  g_autofree char *label = g_strdup_printf (_("Simhound corpus server %s"), server);
  g_autoptr(GError) local_error = NULL;

  if (password == NULL || *password == '\0')
    {
      secret_password_clear_sync (server_schema (), NULL, &local_error, "server", server, NULL);
      return TRUE;
    }
  if (!secret_password_store_sync (server_schema (), SECRET_COLLECTION_DEFAULT, label, password, NULL, &local_error,
                                   "server", server, NULL))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("The password could not be kept in the keyring: %s"), local_error->message);
      return FALSE;
    }
  return TRUE;
}

SimBackend *
sim_keyring_open_backend (const char  *location,
                          gboolean     read_only,
                          GError     **error)
{
  g_autofree char *password = sim_keyring_lookup (location);
  SimBackend *backend = sim_backend_open (location, password, read_only, error);

  if (password != NULL)
    memset (password, 0, strlen (password));
  return backend;
}
