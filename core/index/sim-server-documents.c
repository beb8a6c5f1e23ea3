/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The corpus server's documents once added: the collections students may
 * read, removing documents (with what they added to the feature
 * statistics), bringing a folder's documents in step with it, and the
 * list. Adding is sim-server-corpus.c's.
 */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "sim-error.h"
#include "sim-file-walk.h"
#include "sim-server-private.h"
#include "sim-window-codec.h"

gboolean
sim_server_set_students_read (SimServer   *server,
                              const char  *collection,
                              gboolean     readable,
                              GError     **error)
{
  const char *params[] = { collection, readable ? "true" : "false" };
  PGresult *result;
  gboolean found;

  if (!sim_server_check_schema (server, error))
    return FALSE;
  result = _sim_server_run (server, "UPDATE simhound.collections SET students_read = $2 WHERE name = $1",
                            2, params, error);
  if (result == NULL)
    return FALSE;
  found = g_str_equal (PQcmdTuples (result), "1");
  PQclear (result);
  if (!found)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                 _("The corpus server %s has no collection “%s”"), server->name, collection);
  return found;
}

GArray *
sim_server_find_documents (SimServer          *server,
                           const char *const  *ids_or_names,
                           GError            **error)
{
  g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));

  for (guint i = 0; ids_or_names[i] != NULL; i++)
    {
      const char *params[] = { ids_or_names[i] };
      PGresult *result = _sim_server_run (server,
                                          sim_store_is_document_id (ids_or_names[i])
                                          ? "SELECT id FROM simhound.documents WHERE id = $1::bigint"
                                          : "SELECT id FROM simhound.documents WHERE name = $1",
                                          1, params, error);

      if (result == NULL)
        return NULL;
      if (PQntuples (result) == 0)
        {
          PQclear (result);
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                       _("%s: no such document on the corpus server %s (“simhound-cli corpus list” shows ids and names)"),
                       ids_or_names[i], server->name);
          return NULL;
        }
      for (int r = 0; r < PQntuples (result); r++)
        {
          const gint64 id = g_ascii_strtoll (PQgetvalue (result, r, 0), NULL, 10);

          g_array_append_val (ids, id);
        }
      PQclear (result);
    }
  return g_steal_pointer (&ids);
}

gboolean
sim_server_remove (SimServer          *server,
                   const char *const  *ids_or_names,
                   guint              *out_n_removed,
                   GError            **error)
{
  g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (SIM_NORMALIZE_FOLD_T2S);
  g_autoptr(GArray) ids = NULL;
  g_autoptr(GHashTable) gone = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autofree guint32 *changes = g_new0 (guint32, SIM_DF_BUCKETS);
  g_autofree char *list = NULL;
  const char *params[1];
  PGresult *texts = NULL;
  PGresult *result;

  *out_n_removed = 0;
  if (!sim_server_check_schema (server, error) || !_sim_server_may_write (server, error) ||
      !_sim_server_run_command (server, "BEGIN", error))
    return FALSE;
  if (!_sim_server_run_command (server, SIM_SERVER_SEQUENTIAL, error) ||
      (ids = sim_server_find_documents (server, ids_or_names, error)) == NULL)
    goto fail;
  params[0] = list = _sim_server_array_literal ((const gint64 *) ids->data, ids->len);
  /* Their texts read first, then the documents deleted (their texts with
   * them), in two statements: Citus changes a reference table only in a
   * statement that reads no distributed one (sim-server-private.h). A
   * document another removal took meanwhile is not deleted here, and its
   * text not counted. */
  texts = _sim_server_run (server, SIM_SERVER_WHOLE_TEXTS, 1, params, error);
  if (texts == NULL)
    goto fail;
  result = _sim_server_run (server,
                            "WITH gone AS (DELETE FROM simhound.documents WHERE id = ANY ($1::bigint[])"
                            "  RETURNING id, n_windows),"
                            " tally AS (INSERT INTO simhound.tallies"
                            "  SELECT -count(*), -coalesce (sum (n_windows), 0), NULL FROM gone HAVING count(*) > 0),"
                            " marked AS (INSERT INTO simhound.removed SELECT id FROM gone ON CONFLICT DO NOTHING)"
                            " SELECT id FROM gone",
                            1, params, error);
  if (result == NULL)
    goto fail;
  *out_n_removed = PQntuples (result);
  for (int r = 0; r < PQntuples (result); r++)
    {
      gint64 *id = g_new (gint64, 1);

      *id = g_ascii_strtoll (PQgetvalue (result, r, 0), NULL, 10);
      g_hash_table_add (gone, id);
    }
  PQclear (result);
  /* The statistics lose what each document's text added: its text
   * fingerprinted again, as it was when added. */
  for (int r = 0; r < PQntuples (texts); r++)
    {
      const gint64 id = g_ascii_strtoll (PQgetvalue (texts, r, 0), NULL, 10);
      const char *text = PQgetvalue (texts, r, 1);
      const gsize len = PQgetlength (texts, r, 1);
      g_autoptr(GArray) doc_buckets = NULL;

      if (!g_hash_table_contains (gone, &id))
        continue;
      doc_buckets = _sim_distinct_buckets (fp, sim_fingerprinter_load (fp, text, len)->n);
      _sim_df_apply (changes, doc_buckets, 1);
    }
  g_clear_pointer (&texts, PQclear);
  if (*out_n_removed > 0 && !_sim_server_add_df (server, changes, NULL, -1, error))
    goto fail;
  if (!_sim_server_run_command (server, "COMMIT", error))
    goto fail;
  return TRUE;

fail:
  *out_n_removed = 0;
  g_clear_pointer (&texts, PQclear);
  if (PQstatus (server->conn) == CONNECTION_OK)
    _sim_server_run_command (server, "ROLLBACK", NULL);
  return FALSE;
}

SimImportResult *
sim_server_rescan (SimServer     *server,
                   const char    *folder,
                   const char    *collection,
                   SimProgressFunc progress,
                   gpointer       user_data,
                   GCancellable  *cancellable,
                   GError       **error)
{
  const char *paths[] = { folder, NULL };
  g_autoptr(GStringChunk) strings = g_string_chunk_new (1 << 16);
  g_autoptr(GPtrArray) files = g_ptr_array_new ();
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  g_autoptr(GPtrArray) skipped = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GHashTable) current = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GPtrArray) gone = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(SimImportResult) result = NULL;
  g_autofree char *root = g_canonicalize_filename (folder, NULL);
  g_autofree char *base = g_path_get_basename (root);
  g_autofree char *prefix = NULL;
  const char *params[2];
  PGresult *existing;

  if (!g_file_test (folder, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("%s is not a folder"), folder);
      return NULL;
    }
  /* What the folder holds now: each name with its file's content hash. */
  _sim_server_walk (paths, strings, files, names, skipped);
  for (guint i = 0; i < files->len; i++)
    {
      g_autofree char *data = NULL;
      gsize len;

      if (g_file_get_contents (g_ptr_array_index (files, i), &data, &len, NULL))
        g_hash_table_insert (current, g_strdup (g_ptr_array_index (names, i)), sim_corpus_content_hash (data, len));
    }
  result = sim_server_add (server, paths, collection, progress, user_data, cancellable, error);
  if (result == NULL)
    return NULL;
  /* Then what the server holds under the folder's name that the folder no
   * longer does: files gone, and the versions before a change. */
  prefix = g_strconcat (base, "/", NULL);
  params[0] = prefix;
  params[1] = collection ? collection : "default";
  existing = _sim_server_run (server,
                              "SELECT d.id, d.name, d.content_hash FROM simhound.documents d"
                              " JOIN simhound.collections c ON c.id = d.collection_id"
                              " WHERE left(d.name, length($1)) = $1 AND c.name = $2 ORDER BY d.id",
                              2, params, error);
  if (existing == NULL)
    return NULL;
  for (int r = 0; r < PQntuples (existing); r++)
    {
      const char *hash = g_hash_table_lookup (current, PQgetvalue (existing, r, 1));

      if (hash == NULL || !g_str_equal (hash, PQgetvalue (existing, r, 2)))
        {
          g_ptr_array_add (gone, g_strdup (PQgetvalue (existing, r, 0)));
          if (hash != NULL)
            result->n_updated++;
          else
            result->n_removed++;
        }
    }
  PQclear (existing);
  /* A changed file: its new version counted as updated, not added. */
  result->n_added -= MIN (result->n_added, result->n_updated);
  if (gone->len > 0)
    {
      guint n_removed;

      g_ptr_array_add (gone, NULL);
      if (!sim_server_remove (server, (const char *const *) gone->pdata, &n_removed, error))
        return NULL;
    }
  return g_steal_pointer (&result);
}

GPtrArray *
sim_server_list (SimServer  *server,
                 GError    **error)
{
#define LIST(title, from) \
  "SELECT d.id, d.name, " title ", d.content_hash, d.n_bytes, d.n_chars, d.n_windows, d.modified_at," \
  "  extract(epoch FROM d.added_at)::bigint FROM simhound.documents d" from " ORDER BY d.id"
  g_autoptr(GPtrArray) docs = g_ptr_array_new_with_free_func ((GDestroyNotify) sim_store_document_free);
  gboolean titles = FALSE;
  PGresult *result;

  if (!sim_server_check_schema (server, error) ||
      !_sim_server_ask (server, "SELECT has_column_privilege ('simhound.documents', 'title', 'SELECT')", &titles,
                        error))
    return NULL;
  /* A student, who may not read the documents' titles, has them from
   * documents_of(), as a check does: the name a document was added under
   * but for collections it may read. (Through documents_of() for every
   * account, a list of 200,000 documents took 0.8-1.3 s rather than
   * 25-35 ms.) */
  result = _sim_server_run (server,
                            titles ? LIST ("d.title", "")
                                   : LIST ("o.title", " JOIN simhound.documents_of (ARRAY (SELECT id FROM"
                                                      " simhound.documents)) o ON o.id = d.id"),
                            0, NULL, error);
#undef LIST
  if (result == NULL)
    return NULL;
  for (int r = 0; r < PQntuples (result); r++)
    {
      SimStoreDocument *doc = g_new0 (SimStoreDocument, 1);

      doc->id = g_ascii_strtoll (PQgetvalue (result, r, 0), NULL, 10);
      doc->path = g_strdup (PQgetvalue (result, r, 1));
      doc->title = g_strdup (PQgetvalue (result, r, 2));
      doc->content_hash = g_strdup (PQgetvalue (result, r, 3));
      doc->n_bytes = g_ascii_strtoll (PQgetvalue (result, r, 4), NULL, 10);
      doc->n_chars = g_ascii_strtoll (PQgetvalue (result, r, 5), NULL, 10);
      doc->n_anchors = g_ascii_strtoll (PQgetvalue (result, r, 6), NULL, 10);
      doc->modified_at = g_ascii_strtoll (PQgetvalue (result, r, 7), NULL, 10);
      doc->added_at = doc->updated_at = g_ascii_strtoll (PQgetvalue (result, r, 8), NULL, 10);
      g_ptr_array_add (docs, doc);
    }
  PQclear (result);
  return g_steal_pointer (&docs);
}
