/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The corpus server's documents not in its lookup table yet, indexed
 * from their stored texts: those of an add that ended before it wrote
 * their run (killed, its connection lost: its row of simhound.adds
 * there, the advisory lock on it free), and those of a server upgraded
 * from schema version 1 (not indexed). An add does this first
 * (sim-server-corpus.c), as does `server upgrade`.
 */
#include "config.h"

#include <string.h>

#include "sim-error.h"
#include "sim-server-private.h"
#include "sim-window-codec.h"

static void
source_clear (gpointer data)
{
  SimPostingSource *doc = data;

  g_clear_pointer (&doc->split, g_bytes_unref);
  g_free ((guint32 *) doc->slices);
}

/* Indexes up to 256 documents that @where (on documents d, its
 * parameters @params) selects, from their stored texts, in one
 * transaction; how many in *@n. */
static gboolean
index_some (SimServer          *server,
            SimFingerprinter   *fp,
            const char         *where,
            int                 n_params,
            const char *const  *params,
            int                *n,
            GError            **error)
{
  g_autoptr(GArray) docs = g_array_new (FALSE, TRUE, sizeof (SimPostingSource));
  g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) n_chars = g_array_new (FALSE, FALSE, sizeof (gint64));
  /* The documents locked first, their texts read after: Citus locks rows
   * only of reference tables or of one shard (sim-server-private.h). */
  g_autofree char *sql = g_strdup_printf ("SELECT d.id, d.n_chars FROM simhound.documents d"
                                          " WHERE %s ORDER BY d.id LIMIT 256 FOR UPDATE", where);
  g_autofree char *list = NULL;
  const char *id_params[1];
  PGresult *result;

  g_array_set_clear_func (docs, source_clear);
  if (!_sim_server_run_command (server, "BEGIN", error))
    return FALSE;
  if (!_sim_server_run_command (server, SIM_SERVER_SEQUENTIAL, error) ||
      (result = _sim_server_run (server, sql, n_params, params, error)) == NULL)
    goto fail;
  *n = PQntuples (result);
  for (int r = 0; r < *n; r++)
    {
      const gint64 id = g_ascii_strtoll (PQgetvalue (result, r, 0), NULL, 10);
      const gint64 chars = g_ascii_strtoll (PQgetvalue (result, r, 1), NULL, 10);

      if (!_sim_server_ids_fit (server, id, error))
        {
          PQclear (result);
          goto fail;
        }
      g_array_append_val (ids, id);
      g_array_append_val (n_chars, chars);
    }
  PQclear (result);
  if (*n == 0)
    return _sim_server_run_command (server, "COMMIT", error);
  id_params[0] = list = _sim_server_array_literal ((const gint64 *) ids->data, ids->len);
  if ((result = _sim_server_run (server, SIM_SERVER_WHOLE_TEXTS " ORDER BY doc_id", 1, id_params, error)) == NULL)
    goto fail;
  /* Both in id order; a document without its text is marked indexed with
   * nothing to find, as it would never be found. */
  for (int r = 0, i = 0; r < PQntuples (result); r++)
    {
      const gint64 id = g_ascii_strtoll (PQgetvalue (result, r, 0), NULL, 10);

      while (i < *n && g_array_index (ids, gint64, i) < id)
        i++;
      if (i == *n || g_array_index (ids, gint64, i) != id)
        continue;
      {
        SimPostingSource doc = { .id = id, .n_chars = g_array_index (n_chars, gint64, i) };
        g_autoptr(GBytes) packed = _sim_pack_windows (fp, PQgetvalue (result, r, 1), PQgetlength (result, r, 1),
                                                      NULL, NULL);
        guint32 *slices = g_new (guint32, SIM_POSTING_SLICES + 1);

        /* NULL when not whole windows: left out of the run. */
        if ((doc.split = _sim_posting_split (packed, slices, &doc.n_windows)) == NULL)
          g_clear_pointer (&slices, g_free);
        doc.slices = slices;
        g_array_append_val (docs, doc);
      }
    }
  PQclear (result);
  result = _sim_server_run (server, "UPDATE simhound.documents SET indexed = true, owner = NULL"
                                    " WHERE id = ANY ($1::bigint[])", 1, id_params, error);
  if (result == NULL)
    goto fail;
  PQclear (result);
  if (!_sim_server_put_docs (server, (const SimPostingSource *) docs->data, docs->len, error) ||
      !_sim_server_run_command (server, "COMMIT", error))
    goto fail;
  return _sim_server_postings_merge (server, error);

fail:
  if (PQstatus (server->conn) == CONNECTION_OK)
    _sim_server_run_command (server, "ROLLBACK", NULL);
  return FALSE;
}

gboolean
sim_server_index_documents (SimServer *server,
                            guint     *out_n_indexed,
                            GError   **error)
{
  *out_n_indexed = 0;
  return sim_server_check_schema (server, error) && _sim_server_may_write (server, error) &&
         _sim_server_index_waiting (server, out_n_indexed, error);
}

gboolean
_sim_server_index_waiting (SimServer *server,
                           guint     *out_n_indexed,
                           GError   **error)
{
  g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (SIM_NORMALIZE_FOLD_T2S);
  g_autofree char *dead = NULL;
  PGresult *result;
  int n;

  *out_n_indexed = 0;
  /* The adds that ended before they wrote their run: their rows there,
   * their locks free (an add that runs holds its own). */
  result = _sim_server_run (server, "SELECT coalesce (array_agg (owner), '{}') FROM simhound.adds"
                                    " WHERE pg_try_advisory_xact_lock (" SIM_SERVER_OWNER_LOCK ", (owner & 2147483647)::integer)",
                            0, NULL, error);
  if (result == NULL)
    return FALSE;
  dead = g_strdup (PQgetvalue (result, 0, 0));
  PQclear (result);
  if (!g_str_equal (dead, "{}"))
    {
      g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
      const char *params[2] = { NULL, dead };

      /* Their documents' ids first, in one scan (owner has no index: it
       * would cost every add it does not help), then 256 at a time by id. */
      result = _sim_server_run_as (server, "SELECT id FROM simhound.documents WHERE owner = ANY ($1::bigint[]) ORDER BY id",
                                   1, (const char *const *) &dead, 1, error);
      if (result == NULL)
        return FALSE;
      for (int r = 0; r < PQntuples (result); r++)
        {
          const gint64 id = _sim_be64 (PQgetvalue (result, r, 0));

          g_array_append_val (ids, id);
        }
      PQclear (result);
      for (guint at = 0; at < ids->len; at += 256)
        {
          g_autofree char *slice = _sim_server_array_literal (&g_array_index (ids, gint64, at), MIN (256, ids->len - at));

          params[0] = slice;
          /* One that another add indexed meanwhile names no owner now. */
          if (!index_some (server, fp, "d.id = ANY ($1::bigint[]) AND d.owner = ANY ($2::bigint[])", 2, params, &n, error))
            return FALSE;
          *out_n_indexed += n;
        }
      result = _sim_server_run (server, "DELETE FROM simhound.adds WHERE owner = ANY ($1::bigint[])",
                                1, (const char *const *) &dead, error);
      if (result == NULL)
        return FALSE;
      PQclear (result);
    }
  /* Those of a server upgraded from version 1. */
  do
    {
      if (!index_some (server, fp, "NOT d.indexed", 0, NULL, &n, error))
        return FALSE;
      *out_n_indexed += n;
    }
  while (n > 0);
  return TRUE;
}
