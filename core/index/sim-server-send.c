/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A batch of an add sent (sim-server-corpus.c reads and fingerprints
 * it): its documents as staging rows copied in and inserted (one already
 * there left alone), their texts cut into parts, their postings kept
 * beside the add, and the feature statistics, all in one transaction.
 */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "sim-error.h"
#include "sim-server-private.h"
#include "sim-window-codec.h"

/* @s for COPY's text format. */
static void
copy_escape (GString    *out,
             const char *s)
{
  for (; *s; s++)
    switch (*s)
      {
      case '\\': g_string_append (out, "\\\\"); break;
      case '\n': g_string_append (out, "\\n"); break;
      case '\r': g_string_append (out, "\\r"); break;
      case '\t': g_string_append (out, "\\t"); break;
      default: g_string_append_c (out, *s); break;
      }
}

/* Adds @delta (1 or -1) times the changes (@wide, or @narrow: a batch
 * of fewer files than 16 bits count) to the df counts: the chunks with a
 * change are read locked, in chunk order (two batches at once take their
 * locks in one order), added to and written back in one statement, each
 * chunk packed as the local store packs its statistics
 * (sim_store_pack_df(): a quarter of the bytes or less), one at a time. */
static inline guint32
change_at (const guint32 *wide,
           const guint16 *narrow,
           gsize          i)
{
  return wide != NULL ? wide[i] : narrow[i];
}

gboolean
_sim_server_add_df (SimServer     *server,
                    const guint32 *wide,
                    const guint16 *narrow,
                    gint           delta,
                    GError       **error)
{
  g_autoptr(GString) chunks = g_string_new ("{");
  g_autoptr(GString) rows = g_string_new (NULL);
  g_autoptr(GArray) touched = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autofree guint32 *counts = g_new (guint32, SIM_SERVER_DF_CHUNK);
  const char *params[1];
  PGresult *result;
  int r = 0;

  for (guint32 chunk = 0; chunk < SIM_DF_BUCKETS / SIM_SERVER_DF_CHUNK; chunk++)
    for (guint k = 0; k < SIM_SERVER_DF_CHUNK; k++)
      if (change_at (wide, narrow, (gsize) chunk * SIM_SERVER_DF_CHUNK + k) != 0)
        {
          g_array_append_val (touched, chunk);
          g_string_append_printf (chunks, "%s%u", chunks->len > 1 ? "," : "", chunk);
          break;
        }
  if (touched->len == 0)
    return TRUE;
  g_string_append_c (chunks, '}');
  params[0] = chunks->str;
  result = _sim_server_run_as (server,
                               "SELECT chunk, counts FROM simhound.df WHERE chunk = ANY ($1::integer[])"
                               " ORDER BY chunk FOR UPDATE", 1, params, 1, error);
  if (result == NULL)
    return FALSE;
  /* The stored rows and the touched chunks both in chunk order. */
  for (guint t = 0; t < touched->len; t++)
    {
      const guint32 chunk = g_array_index (touched, guint32, t);
      const gsize base = (gsize) chunk * SIM_SERVER_DF_CHUNK;
      g_autofree guint32 *stored = NULL;
      g_autoptr(GBytes) packed = NULL;
      const guint8 *p;
      gsize len;

      for (; r < PQntuples (result); r++)
        {
          guint32 at;

          memcpy (&at, PQgetvalue (result, r, 0), 4);
          at = GUINT32_FROM_BE (at);
          if (at == chunk)
            stored = sim_store_unpack_df (PQgetvalue (result, r, 1), PQgetlength (result, r, 1), SIM_SERVER_DF_CHUNK);
          if (at >= chunk)
            break;
        }
      if (stored != NULL)
        memcpy (counts, stored, SIM_SERVER_DF_CHUNK * sizeof (guint32));
      else
        memset (counts, 0, SIM_SERVER_DF_CHUNK * sizeof (guint32));
      for (guint k = 0; k < SIM_SERVER_DF_CHUNK; k++)
        {
          const guint32 change = change_at (wide, narrow, base + k);

          counts[k] = delta > 0 ? counts[k] + change : (counts[k] > change ? counts[k] - change : 0);
        }
      packed = sim_store_pack_df (counts, SIM_SERVER_DF_CHUNK);
      p = g_bytes_get_data (packed, &len);
      g_string_append_printf (rows, "%u\t", chunk);
      _sim_server_append_bytea (rows, p, len);
      g_string_append_c (rows, '\n');
    }
  PQclear (result);
  /* Made here: a removal on a connection of its own meets none. */
  if (!_sim_server_run_command (server,
                                "CREATE TEMP TABLE IF NOT EXISTS simhound_df_staging (chunk integer, counts bytea)"
                                " ON COMMIT DELETE ROWS", error) ||
      !_sim_server_copy (server, "COPY pg_temp.simhound_df_staging FROM STDIN", rows, error))
    return FALSE;
  result = _sim_server_run (server,
                            "INSERT INTO simhound.df (chunk, counts)"
                            " SELECT chunk, counts FROM pg_temp.simhound_df_staging ORDER BY chunk"
                            " ON CONFLICT (chunk) DO UPDATE SET counts = EXCLUDED.counts", 0, NULL, error);
  if (result == NULL)
    return FALSE;
  PQclear (result);
  return TRUE;
}

/* The entries of @job whose id is not 0 in @ids, as sources of postings. */
static SimPostingSource *
sources_of (const AddBatch *job,
            const gint64     *ids)
{
  SimPostingSource *docs = g_new0 (SimPostingSource, job->n);

  for (guint i = 0; i < job->n; i++)
    if (ids[i] != 0)
      {
        docs[i].split = job->entries[i].split;
        docs[i].slices = job->entries[i].split != NULL ? job->entries[i].slices : NULL;
        docs[i].n_windows = job->entries[i].n_windows;
        docs[i].id = ids[i];
        docs[i].n_chars = job->entries[i].file.doc->n_chars;
      }
  return docs;
}

void
_sim_server_make_rows (AddBatch *job)
{
  job->rows = g_string_new (NULL);
  for (guint i = 0; i < job->n; i++)
    {
      const AddEntry *e = &job->entries[i];
      const SimStoreDocument *doc = e->file.doc;

      if (e->state != SIM_PREPARED_NEW)
        continue;
      job->n_sent++;
      g_string_append_printf (job->rows, "%u\t%" G_GINT64_FORMAT "\t%s\t", i, job->ids[i], doc->content_hash);
      copy_escape (job->rows, e->name);
      g_string_append_c (job->rows, '\t');
      copy_escape (job->rows, doc->title);
      g_string_append_printf (job->rows, "\t%" G_GINT64_FORMAT "\t%" G_GINT64_FORMAT "\t%" G_GINT64_FORMAT "\t%" G_GINT64_FORMAT "\n",
                              doc->n_chars, doc->n_bytes, doc->n_anchors, doc->modified_at);
    }
}

/* The end of the first @n_chars code points of @text (@len bytes, valid
 * UTF-8), or of the text if it has fewer. */
static gsize
part_end (const char *text,
          gsize       len,
          guint       n_chars)
{
  gsize at = 0;

  for (; n_chars > 0 && at < len; n_chars--)
    for (at++; at < len && ((guchar) text[at] & 0xc0) == 0x80; at++)
      ;
  return at;
}

/* The texts of the entries of @job given ids (@ids, 0 for none) into
 * simhound.texts, cut into parts (sim-server-private.h), a statement for
 * each TEXTS_PIECE bytes or so: three arrays as binary parameters,
 * unnested. Through a staging table joined with the new documents they
 * were written twice and sorted (with the documents, 1.30 s of the
 * statements of an add of ../shared/corpora, now 0.99 s); COPY straight
 * into the table is refused where row security applies. In pieces,
 * because libpq keeps room for the largest statement it sent for as long
 * as the connection lasts, and the batch's texts were held twice. */
#define TEXTS_PIECE (2u << 20)

static gboolean
put_texts (SimServer    *server,
           AddBatch   *job,
           const gint64 *ids,
           GError      **error)
{
  for (guint first = 0; first < job->n;)
    {
      GString *arrays[3];
      gsize bytes = 0;
      guint n = 0, end = first;
      const char *values[3];
      int lengths[3];
      static const int formats[3] = { 1, 1, 1 };
      static const guint32 types[3] = { 20 /* int8 */, 23 /* int4 */, 25 /* text */ };
      PGresult *result;

      for (; end < job->n && (bytes == 0 || bytes < TEXTS_PIECE); end++)
        if (ids[end] != 0)
          {
            n += job->entries[end].file.doc->n_chars / SIM_SERVER_TEXT_PART + 1;
            bytes += job->entries[end].file.text_len + 4;
          }
      if (n == 0)
        break;
      /* Arrays in binary: dimensions, no nulls, the element type, the
       * length and lower bound, then each element's length and bytes. */
      for (guint a = 0; a < 3; a++)
        {
          arrays[a] = g_string_sized_new (a == 2 ? bytes + 4 * n + 20 : 12 * n + 20);
          _sim_server_append_be (arrays[a], 1, 4);
          _sim_server_append_be (arrays[a], 0, 4);
          _sim_server_append_be (arrays[a], types[a], 4);
          _sim_server_append_be (arrays[a], 0, 4);  /* the parts' count, below */
          _sim_server_append_be (arrays[a], 1, 4);
        }
      n = 0;
      for (guint i = first; i < end; i++)
        {
          const char *text = job->entries[i].file.text;
          const gsize len = job->entries[i].file.text_len;
          gsize at = 0;

          if (ids[i] == 0)
            continue;
          for (guint32 part = 0; part == 0 || at < len; part++, n++)
            {
              const gsize part_len = part_end (text + at, len - at, SIM_SERVER_TEXT_PART);

              _sim_server_append_be (arrays[0], 8, 4);
              _sim_server_append_be (arrays[0], (guint64) ids[i], 8);
              _sim_server_append_be (arrays[1], 4, 4);
              _sim_server_append_be (arrays[1], part, 4);
              _sim_server_append_be (arrays[2], part_len, 4);
              g_string_append_len (arrays[2], text + at, part_len);
              at += part_len;
            }
          g_clear_pointer (&job->entries[i].file.text, g_free);  /* sent: not needed again */
        }
      for (guint a = 0; a < 3; a++)
        {
          const guint32 be = GUINT32_TO_BE (n);

          memcpy (arrays[a]->str + 12, &be, 4);
          values[a] = arrays[a]->str;
          lengths[a] = (int) arrays[a]->len;
        }
      result = _sim_server_run_binary (server, "INSERT INTO simhound.texts (doc_id, part, body)"
                                               " SELECT * FROM unnest ($1::bigint[], $2::integer[], $3::text[])",
                                       3, values, lengths, formats, error);
      for (guint a = 0; a < 3; a++)
        g_string_free (arrays[a], TRUE);
      if (result == NULL)
        return FALSE;
      PQclear (result);
      first = end;
    }
  return TRUE;
}

gboolean
_sim_server_send_batch (SimServer       *server,
                        const char      *collection_id,
                        gint64           owner,
                        SimPostingSpill *spill,
                        AddBatch        *job,
                        SimImportResult *result,
                        GError         **error)
{
  g_autofree gint64 *ids = NULL;
  g_autofree guint16 *df = NULL;
  g_autofree char *s_owner = g_strdup_printf ("%" G_GINT64_FORMAT, owner);
  const char *params[2] = { collection_id, s_owner };
  const guint n_runs = spill->runs->len;
  PGresult *added;
  guint n_added = 0;
  guint64 bytes = 0;

  if (job->n_sent == 0)
    return TRUE;

  if (!_sim_server_run_command (server, "BEGIN", error) ||
      !_sim_server_copy (server, "COPY pg_temp.simhound_staging FROM STDIN", job->rows, error))
    goto fail;
  g_string_free (g_steal_pointer (&job->rows), TRUE);
  added = _sim_server_run (server,
                           "WITH new AS ("
                           "  INSERT INTO simhound.documents"
                           "    (id, content_hash, name, title, collection_id, n_chars, n_bytes, n_windows, modified_at,"
                           "     owner)"
                           "  SELECT first.id, content_hash, name, title,"
                           "    $1::integer, n_chars, n_bytes, n_windows,"
                           "    modified_at, $2"
                           "  FROM (SELECT DISTINCT ON (content_hash, name) * FROM pg_temp.simhound_staging"
                           "        ORDER BY content_hash, name, seq) first"
                           "  ORDER BY first.id"
                           "  ON CONFLICT (content_hash, name) DO NOTHING"
                           "  RETURNING id, n_windows, added_at),"
                           " tally AS ("
                           "  INSERT INTO simhound.tallies SELECT count(*), coalesce (sum (n_windows), 0), max (added_at)"
                           "  FROM new HAVING count(*) > 0)"
                           " SELECT id FROM new ORDER BY id",
                           2, params, error);
  if (added == NULL)
    goto fail;

  /* The documents added, by their reserved ids (both rising); 0 for an
   * entry already there or not sent. */
  ids = g_new0 (gint64, job->n);
  for (int r = 0, i = 0; r < PQntuples (added); r++)
    {
      const gint64 id = g_ascii_strtoll (PQgetvalue (added, r, 0), NULL, 10);
      const AddEntry *e;

      while (i < (int) job->n && job->ids[i] < id)
        i++;
      if (i == (int) job->n || job->ids[i] != id || job->entries[i].state != SIM_PREPARED_NEW)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_STORE, _("The corpus server %s answered with a file it was not sent"),
                       sim_server_get_name (server));
          PQclear (added);
          goto fail;
        }
      e = &job->entries[i];
      ids[i] = id;
      n_added++;
      bytes += e->file.text_len;
    }
  PQclear (added);
  /* Some were there already (or twice in the batch): the statistics of
   * those added, counted again from their texts. */
  if (n_added < job->n_sent)
    {
      g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (job->flags);

      df = g_new0 (guint16, SIM_DF_BUCKETS);
      for (guint i = 0; i < job->n; i++)
        if (ids[i] != 0)
          {
            const SimPreparedFile *file = &job->entries[i].file;
            const SimUnits *units = sim_fingerprinter_load (fp, file->text, file->text_len);
            g_autoptr(GArray) buckets = _sim_distinct_buckets (fp, units->n);

            for (guint b = 0; b < buckets->len; b++)
              df[g_array_index (buckets, guint32, b)]++;
          }
    }
  /* The postings of those added, made in parts on every core (the batch
   * after is read meanwhile) and kept beside the add, then the texts,
   * each part let go once sent. */
  {
    g_autofree SimPostingSource *docs = sources_of (job, ids);

    if (!_sim_posting_spill_put_docs (spill, docs, job->n, error))
      goto fail;
  }
  for (guint i = 0; i < job->n; i++)
    g_clear_pointer (&job->entries[i].split, g_bytes_unref);
  if (!put_texts (server, job, ids, error) ||
      (n_added > 0 && !_sim_server_add_df (server, NULL, df != NULL ? df : job->df, 1, error)))
    goto fail;
  if (!_sim_server_run_command (server, "COMMIT", error))
    goto fail;
  result->n_added += n_added;
  result->n_unchanged += job->n_sent - n_added;
  result->n_bytes += bytes;
  return TRUE;

fail:
  _sim_posting_spill_truncate (spill, n_runs);
  if (PQstatus (server->conn) == CONNECTION_OK)
    _sim_server_run_command (server, "ROLLBACK", NULL);
  return FALSE;
}
