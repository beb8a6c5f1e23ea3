/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The texts a check against a corpus server reads (sim-server-snapshot.c's
 * SnapshotRemote read_texts): for each group of documents one statement,
 * with what a report says of each document; of each text, the parts
 * around what the check asks for (a text held in part, which fetches the
 * whole text should a later stage read past it).
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "sim-error.h"
#include "sim-server-snapshot-private.h"

/* Code points read on each side of what a check asks for of a text
 * (sim_corpus_snapshot_read_texts()), in whole parts: what its later
 * stages read around a candidate (a neighbouring sentence, a word's
 * reach) comes with it. A later stage's read beyond (a piece of a split
 * segment verified where its own windows point) fetches the whole text,
 * a round trip more. */
#define PART_MARGIN 2048

static guint64 n_text_bytes;
static GMutex text_bytes_lock;

guint64
_sim_server_n_text_bytes (void)
{
  guint64 n;

  g_mutex_lock (&text_bytes_lock);
  n = n_text_bytes;
  g_mutex_unlock (&text_bytes_lock);
  return n;
}

/* Texts of documents @ids, with what a report says of each document (its
 * name, title, and whether its text is kept from this account: then no
 * text), in one statement; with @p0s and @p1s, parts [p0s[i], p1s[i]] of
 * text i (sim-server-private.h), else whole. Columns: id, name, title,
 * withheld, the text, its length, the code point the text starts at.
 * The parts come by the texts' key, each named in one array (its doc_id
 * and part as one number: `= ANY` of a constant array is a hash
 * lookup); a text stored whole (part -1) comes whole. The texts' row
 * security leaves out a text kept from this account, as documents_of()
 * says it does. The texts are asked by document on their own side of the
 * join, for Citus (sim-server-private.h). */
static PGresult *
run_read_texts (Remote        *r,
                const gint64  *ids,
                const gint64  *p0s,
                const gint64  *p1s,
                guint          n,
                GError       **error)
{
  g_autofree char *id_list = _sim_server_array_literal (ids, n);
  g_autofree char *key_list = NULL;
  const char *params[2];
  SimServer *server;
  PGresult *result;

  if (p0s != NULL)
    {
      g_autoptr(GArray) keys = g_array_new (FALSE, FALSE, sizeof (gint64));

      for (guint i = 0; i < n; i++)
        for (gint64 part = p0s[i]; part <= p1s[i]; part++)
          {
            const gint64 key = ids[i] * SIM_SERVER_TEXT_PART_KEY + part;

            g_array_append_val (keys, key);
          }
      key_list = _sim_server_array_literal ((const gint64 *) keys->data, keys->len);
    }
  params[0] = id_list;
  params[1] = key_list;
  if ((server = _sim_server_remote_take (r, error)) == NULL)
    return NULL;
  result = _sim_server_run (server,
                            "SELECT d.id, d.name, d.title, d.text_withheld, t.body, d.n_chars, t.first"
                            " FROM simhound.documents_of ($1::bigint[]) d"
                            " LEFT JOIN (SELECT doc_id, string_agg (body, '' ORDER BY part) AS body,"
                            "              greatest (min (part), 0) * " G_STRINGIFY (SIM_SERVER_TEXT_PART) " AS first"
                            "            FROM simhound.texts WHERE doc_id = ANY ($1::bigint[])"
                            "              AND ($2::bigint[] IS NULL OR part < 0"
                            "                   OR doc_id * " G_STRINGIFY (SIM_SERVER_TEXT_PART_KEY) " + part = ANY ($2::bigint[]))"
                            "            GROUP BY doc_id) t"
                            "   ON t.doc_id = d.id",
                            2, params, error);
  _sim_server_remote_give_back (r, server, result != NULL);
  g_mutex_lock (&text_bytes_lock);
  for (int row = 0; result != NULL && row < PQntuples (result); row++)
    n_text_bytes += PQgetlength (result, row, 4);
  g_mutex_unlock (&text_bytes_lock);
  return result;
}

/* The whole text of document @id: sim_store_text_new_part()'s fetch. */
static char *
fetch_whole (gpointer  data,
             gint64    id,
             gsize    *out_len,
             GError  **error)
{
  const SimCorpusSnapshot *snapshot = data;
  PGresult *result = run_read_texts (_sim_server_remote_of (snapshot), &id, NULL, NULL, 1, error);
  char *text = NULL;

  if (result == NULL)
    return NULL;
  if (PQntuples (result) == 1 && !PQgetisnull (result, 0, 4))
    {
      *out_len = PQgetlength (result, 0, 4);
      text = g_memdup2 (PQgetvalue (result, 0, 4), *out_len + 1);
    }
  else
    g_set_error (error, SIM_ERROR, SIM_ERROR_STORE, _("Document %lld is no longer on the corpus server %s"),
                 (long long) id, _sim_server_remote_of (snapshot)->name);
  PQclear (result);
  return text;
}

typedef struct {
  guint   slot;
  guint32 first;
  char   *text;
  gsize   len;
} Held;

/* The texts of documents @indices (their parts [@los[i], @his[i]) and a
 * margin, or whole), with what a report says of each, in one statement;
 * texts read before, held in part, are extended in the same statement
 * (what they hold, what is wanted, and all between).  A document removed
 * since is not found, and then proposes nothing. */
gboolean
_sim_server_remote_read_texts (const SimCorpusSnapshot *snapshot,
                   const guint             *indices,
                   guint                    n,
                   const guint32           *los,
                   const guint32           *his,
                   SimStoreText           **texts,
                   GError                 **error)
{
  Remote *r = _sim_server_remote_of (snapshot);
  g_autofree gint64 *ids = g_new (gint64, n);
  g_autofree gint64 *p0s = los != NULL ? g_new (gint64, n) : NULL;
  g_autofree gint64 *p1s = los != NULL ? g_new (gint64, n) : NULL;
  g_autofree guint *slots = g_new (guint, n);
  g_autofree gboolean *before = g_new (gboolean, n);
  g_autoptr(GArray) holds = g_array_new (FALSE, FALSE, sizeof (Held));
  PGresult *result;
  guint m = 0;

  for (guint i = 0; i < n; i++)
    {
      const SimCorpusDoc *doc = _sim_server_remote_get_doc (snapshot, indices[i]);
      guint32 lo = los != NULL ? los[i] : 0, hi = his != NULL ? MAX (his[i], lo) : 0;

      before[i] = texts[i] != NULL;
      if (before[i])
        {
          guint32 first, end;

          /* Whole, or holding what is wanted: not asked for. */
          sim_store_text_get_held (texts[i], &first, &end);
          hi = MIN (hi, sim_store_text_get_n_chars (texts[i]));
          lo = MIN (lo, hi);
          if (los == NULL || (first <= lo && hi <= end))
            continue;
          lo = MIN (lo, first);
          hi = MAX (hi, end);
        }
      ids[m] = doc != NULL ? doc->id : 0;
      if (los != NULL)
        {
          p0s[m] = (lo > PART_MARGIN ? lo - PART_MARGIN : 0) / SIM_SERVER_TEXT_PART;
          p1s[m] = ((gint64) hi + PART_MARGIN - 1) / SIM_SERVER_TEXT_PART;
        }
      slots[m++] = i;
    }
  if (m == 0)
    return TRUE;
  result = run_read_texts (r, ids, p0s, p1s, m, error);
  if (result == NULL)
    return FALSE;
  g_mutex_lock (&r->lock);
  for (int row = 0; row < PQntuples (result); row++)
    {
      const gint64 id = g_ascii_strtoll (PQgetvalue (result, row, 0), NULL, 10);
      const gboolean withheld = g_str_equal (PQgetvalue (result, row, 3), "t");
      const gsize len = PQgetlength (result, row, 4);
      const gint64 n_chars = g_ascii_strtoll (PQgetvalue (result, row, 5), NULL, 10);
      const guint32 first = (guint32) g_ascii_strtoll (PQgetvalue (result, row, 6), NULL, 10);
      SimCorpusDoc *doc;

      if (!_sim_server_remote_is_known (r, id))
        continue;
      doc = &r->docs[(id - 1) / DOC_CHUNK][(id - 1) % DOC_CHUNK];
      if (doc->path == _sim_server_undescribed)
        {
          doc->title = g_string_chunk_insert (r->strings, PQgetvalue (result, row, 2));
          doc->text_withheld = withheld;
          doc->n_chars = n_chars;
          doc->path = g_string_chunk_insert (r->strings, PQgetvalue (result, row, 1));
        }
      for (guint k = 0; k < m && !withheld && !PQgetisnull (result, row, 4); k++)
        {
          const guint i = slots[k];
          char *text;

          if (ids[k] != id || (!before[i] && texts[i] != NULL))
            continue;
          text = g_memdup2 (PQgetvalue (result, row, 4), len + 1);
          if (before[i])
            {
              /* Held once the lock is let go: a text's own lock is taken
               * before this one when it fetches. */
              const Held held = { i, first, text, len };

              g_array_append_val (holds, held);
            }
          else
            texts[i] = los == NULL ? sim_store_text_new_plain (r->name, id, text, len)
                       : sim_store_text_new_part (r->name, id, (guint32) CLAMP (n_chars, 0, G_MAXUINT32), first,
                                                  text, len, fetch_whole,
                                                  sim_corpus_snapshot_ref ((SimCorpusSnapshot *) snapshot),
                                                  (GDestroyNotify) sim_corpus_snapshot_unref);
          break;
        }
    }
  g_mutex_unlock (&r->lock);
  for (guint h = 0; h < holds->len; h++)
    {
      const Held *held = &g_array_index (holds, Held, h);

      sim_store_text_hold (texts[held->slot], held->first, held->text, held->len);
    }
  PQclear (result);
  return TRUE;
}
