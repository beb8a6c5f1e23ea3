/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One corpus, wherever it is (sim-backend.h): each call goes to the local
 * store's SimCorpus or to the server's SimServer.
 */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "sim-backend.h"
#include "sim-corpus-private.h"
#include "sim-error.h"
#include "sim-server.h"
#include "sim-server-private.h"

struct _SimBackend {
  SimCorpus *corpus;     /* or */
  SimServer *server;
  char      *conninfo;   /* the server's, for snapshots */
  char      *password;
  gboolean   may_write;
};

SimBackend *
sim_backend_open (const char  *location,
                  const char  *password,
                  gboolean     read_only,
                  GError     **error)
{
  g_autoptr(SimBackend) backend = g_new0 (SimBackend, 1);

  if (sim_store_location_is_server (location))
    {
      g_autoptr(GError) refused = NULL;

      /* The schema and whether this account may write: not the status's
       * counts and sizes, which grow with the corpus. */
      if ((backend->server = sim_server_connect_with_password (location, password, error)) == NULL ||
          !sim_server_check_schema (backend->server, error))
        return NULL;
      backend->conninfo = g_strdup (location);
      backend->password = g_strdup (password);
      backend->may_write = !read_only && _sim_server_may_write (backend->server, &refused);
      if (refused != NULL && !g_error_matches (refused, SIM_ERROR, SIM_ERROR_NOT_ALLOWED))
        {
          g_propagate_error (error, g_steal_pointer (&refused));
          return NULL;
        }
    }
  else
    {
      if ((backend->corpus = sim_corpus_open (location, read_only, error)) == NULL)
        return NULL;
      backend->may_write = !read_only;
    }
  return g_steal_pointer (&backend);
}

void
sim_backend_free (SimBackend *backend)
{
  if (backend == NULL)
    return;
  g_clear_pointer (&backend->corpus, sim_corpus_free);
  g_clear_pointer (&backend->server, sim_server_free);
  if (backend->password != NULL)
    memset (backend->password, 0, strlen (backend->password));
  g_free (backend->password);
  g_free (backend->conninfo);
  g_free (backend);
}

const char *
sim_backend_get_name (SimBackend *backend)
{
  return backend->server ? sim_server_get_name (backend->server) : sim_corpus_get_path (backend->corpus);
}

gboolean
sim_backend_is_server (SimBackend *backend)
{
  return backend->server != NULL;
}

gboolean
sim_backend_may_write (SimBackend *backend)
{
  return backend->may_write;
}

SimCorpus *
sim_backend_get_corpus (SimBackend *backend)
{
  return backend->corpus;
}

GPtrArray *
sim_backend_list (SimBackend  *backend,
                  GError     **error)
{
  return backend->server ? sim_server_list (backend->server, error) : sim_corpus_list (backend->corpus, error);
}

static gboolean
no_collection (SimBackend  *backend,
               const char  *collection,
               GError     **error)
{
  if (collection == NULL || backend->server != NULL)
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT, _("Collections are a corpus server’s, not a local store’s"));
  return FALSE;
}

SimImportResult *
sim_backend_add (SimBackend         *backend,
                 const char *const  *paths,
                 const char         *collection,
                 SimProgressFunc     progress,
                 gpointer            user_data,
                 GCancellable       *cancellable,
                 GError            **error)
{
  if (!no_collection (backend, collection, error))
    return NULL;
  return backend->server ? sim_server_add (backend->server, paths, collection, progress, user_data, cancellable, error)
                         : sim_corpus_add (backend->corpus, paths, progress, user_data, cancellable, error);
}

SimImportResult *
sim_backend_rescan (SimBackend         *backend,
                    const char         *folder,
                    const char         *collection,
                    SimProgressFunc     progress,
                    gpointer            user_data,
                    GCancellable       *cancellable,
                    GError            **error)
{
  if (!no_collection (backend, collection, error))
    return NULL;
  return backend->server ? sim_server_rescan (backend->server, folder, collection, progress, user_data, cancellable, error)
                         : sim_corpus_rescan (backend->corpus, folder, progress, user_data, cancellable, error);
}

GArray *
sim_backend_find_documents (SimBackend         *backend,
                            const char *const  *ids_or_paths,
                            GError            **error)
{
  g_autoptr(GArray) ids = NULL;
  g_autoptr(SimCorpusSnapshot) snapshot = NULL;

  if (backend->server != NULL)
    return sim_server_find_documents (backend->server, ids_or_paths, error);
  ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  snapshot = sim_corpus_ref_snapshot (backend->corpus);
  for (guint i = 0; ids_or_paths[i] != NULL; i++)
    {
      const char *arg = ids_or_paths[i];
      g_autofree char *abs = g_canonicalize_filename (arg, NULL);
      const gboolean is_id = sim_store_is_document_id (arg);
      const gint64 id = is_id ? g_ascii_strtoll (arg, NULL, 10) : 0;
      const guint before = ids->len;

      guint index;
      gint64 found;

      /* By id in the snapshot; by path in the store (which indexes paths:
       * the snapshot reads a document's path from its index file when
       * asked, and a scan of 1.37 million would read them all). */
      if (is_id && sim_corpus_snapshot_find_doc (snapshot, id, &index))
        g_array_append_val (ids, id);
      else if (sim_store_find_path (sim_corpus_get_store (backend->corpus), abs, &found, NULL, error))
        g_array_append_val (ids, found);
      else if (error != NULL && *error != NULL)
        return NULL;
      if (ids->len == before)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                       _("%s: no such document in the corpus %s (“simhound-cli corpus list” shows ids and paths)"), arg,
                       sim_corpus_get_path (backend->corpus));
          return NULL;
        }
    }
  return g_steal_pointer (&ids);
}

gboolean
sim_backend_remove (SimBackend         *backend,
                    const char *const  *ids,
                    guint              *out_n_removed,
                    GError            **error)
{
  return backend->server ? sim_server_remove (backend->server, ids, out_n_removed, error)
                         : sim_corpus_remove (backend->corpus, ids, out_n_removed, error);
}

SimCorpusSnapshot *
sim_backend_snapshot (SimBackend  *backend,
                      GError     **error)
{
  if (backend->server != NULL)
    return sim_server_snapshot_new_with_password (backend->conninfo, backend->password, error);
  /* As the store is now, another writer's changes too: as a server's is. */
  if (!_sim_corpus_reload_snapshot (backend->corpus, error))
    return NULL;
  return sim_corpus_ref_snapshot (backend->corpus);
}
