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
 * text), in one statement; with @keys (@n_keys of them, each a part's
 * doc_id * SIM_SERVER_TEXT_PART_KEY + part), those parts, else every
 * part. A row a part, in id and part order; a document with no part
 * asked for, or none this account may read, has one row with neither.
 * Columns: id, name, title, withheld, its length, the part (-1: the text
 * stored whole), the part's text. The parts come by the texts' key (`=
 * ANY` of a constant array is a hash lookup), a row each: an aggregate
 * joining them took the server half as long again as sending whole texts
 * (PostgreSQL 15 sorts an ordered aggregate's rows a group at a time).
 * The texts' row security leaves out a text kept from this account, as
 * documents_of() says it does. The texts are asked by document on their
 * own side of the join, for Citus (sim-server-private.h). */
static PGresult *
run_read_texts (Remote        *r,
                const gint64  *ids,
                guint          n,
                const gint64  *keys,
                guint          n_keys,
                GError       **error)
{
  g_autofree char *id_list = _sim_server_array_literal (ids, n);
  g_autofree char *key_list = keys != NULL ? _sim_server_array_literal (keys, n_keys) : NULL;
  const char *params[2] = { id_list, key_list };
  SimServer *server;
  PGresult *result;

  if ((server = _sim_server_remote_take (r, error)) == NULL)
    return NULL;
  result = _sim_server_run (server,
                            "SELECT d.id, d.name, d.title, d.text_withheld, d.n_chars, t.part, t.body"
                            " FROM simhound.documents_of ($1::bigint[]) d"
                            " LEFT JOIN (SELECT doc_id, part, body FROM simhound.texts WHERE doc_id = ANY ($1::bigint[])"
                            "              AND ($2::bigint[] IS NULL OR part < 0"
                            "                   OR doc_id * " G_STRINGIFY (SIM_SERVER_TEXT_PART_KEY) " + part = ANY ($2::bigint[]))) t"
                            "   ON t.doc_id = d.id"
                            " ORDER BY d.id, t.part",
                            2, params, error);
  _sim_server_remote_give_back (r, server, result != NULL);
  g_mutex_lock (&text_bytes_lock);
  for (int row = 0; result != NULL && row < PQntuples (result); row++)
    n_text_bytes += PQgetlength (result, row, 6);
  g_mutex_unlock (&text_bytes_lock);
  return result;
}

/* Appends to @out the parts of rows [@row, @end) of @result (one
 * document's, in part order) numbered [@from, @to] (@to -1: to the last);
 * the number of the first appended (0 for a text stored whole), -1 for
 * none, -2 with @error when a part is missing between two (a damaged
 * text). */
static gint64
append_parts (PGresult   *result,
              int         row,
              int         end,
              gint64      from,
              gint64      to,
              GString    *out,
              const char *where,
              GError    **error)
{
  gint64 first = -1, next = -1;

  for (; row < end; row++)
    {
      gint64 part;

      if (PQgetisnull (result, row, 5))
        continue;
      part = g_ascii_strtoll (PQgetvalue (result, row, 5), NULL, 10);
      if (part >= 0 && (part < from || (to >= 0 && part > to)))
        continue;
      if (next >= 0 && part != next)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT,
                       _("The text of document %lld on the corpus server %s is damaged: part %lld is missing"),
                       (long long) g_ascii_strtoll (PQgetvalue (result, row, 0), NULL, 10), where, (long long) next);
          return -2;
        }
      if (first < 0)
        first = MAX (part, 0);
      next = part + 1;
      g_string_append_len (out, PQgetvalue (result, row, 6), PQgetlength (result, row, 6));
    }
  return first;
}

/* The whole text of document @id: sim_store_text_new_part()'s fetch. */
static char *
fetch_whole (gpointer  data,
             gint64    id,
             gsize    *out_len,
             GError  **error)
{
  const SimCorpusSnapshot *snapshot = data;
  PGresult *result = run_read_texts (_sim_server_remote_of (snapshot), &id, 1, NULL, 0, error);
  GString *text;

  if (result == NULL)
    return NULL;
  text = g_string_new (NULL);
  switch (append_parts (result, 0, PQntuples (result), 0, -1, text, _sim_server_remote_of (snapshot)->name, error))
    {
    case -1:
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE, _("Document %lld is no longer on the corpus server %s"),
                   (long long) id, _sim_server_remote_of (snapshot)->name);
      G_GNUC_FALLTHROUGH;
    case -2:
      g_string_free (text, TRUE);
      PQclear (result);
      return NULL;
    default:
      break;
    }
  PQclear (result);
  *out_len = text->len;
  return g_string_free (text, FALSE);
}

typedef struct {
  gint64   id;
  guint    slot;
  gboolean before;  /* read before, held in part: extended */
  gint64   p0, p1;  /* the parts wanted: [p0, p1]; p1 -1: the whole text */
  gint64   h0, h1;  /* of a text read before, the parts held: [h0, h1] */
  int      row, end;  /* its rows in the answer; end 0: none to read */
  gint64   n_chars;
} Wanted;

/* The parts of the text of @w: around [@lo, @hi) (the margin), [@lo, @hi)
 * clamped to what @w's text holds before, and the hull of that and what
 * it holds. */
static void
want_parts (Wanted       *w,
            SimStoreText *before,
            guint32       lo,
            guint32       hi)
{
  w->p0 = (lo > PART_MARGIN ? lo - PART_MARGIN : 0) / SIM_SERVER_TEXT_PART;
  w->p1 = ((gint64) MAX (hi, lo + 1) + PART_MARGIN - 1) / SIM_SERVER_TEXT_PART;
  if (before != NULL)
    {
      guint32 first, end;

      sim_store_text_get_held (before, &first, &end);
      w->h0 = first / SIM_SERVER_TEXT_PART;
      w->h1 = ((gint64) MAX (end, first + 1) - 1) / SIM_SERVER_TEXT_PART;
      w->p0 = MIN (w->p0, w->h0);
      w->p1 = MAX (w->p1, w->h1);
    }
}

/* The texts of documents @indices (the parts around [@los[i], @his[i]),
 * or whole), with what a report says of each, in one statement; texts
 * read before, held in part, are extended in the same statement by the
 * parts they lack (what they hold, what is wanted, and all between). A
 * document removed since is not found, and then proposes nothing. */
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
  g_autofree Wanted *wanted = g_new0 (Wanted, n);
  g_autofree gint64 *ids = g_new (gint64, n);
  g_autoptr(GArray) keys = los != NULL ? g_array_new (FALSE, FALSE, sizeof (gint64)) : NULL;
  g_autoptr(GHashTable) by_id = g_hash_table_new (g_int64_hash, g_int64_equal);
  PGresult *result;
  gboolean ok = TRUE;
  guint m = 0;

  for (guint i = 0; i < n; i++)
    {
      const SimCorpusDoc *doc = _sim_server_remote_get_doc (snapshot, indices[i]);
      Wanted *w = &wanted[m];

      w->before = texts[i] != NULL;
      if (w->before)
        {
          guint32 first, end;
          const guint32 hi = los != NULL ? MIN (MAX (his[i], los[i]), sim_store_text_get_n_chars (texts[i])) : 0;

          /* Whole, or holding what is wanted: not asked for. */
          sim_store_text_get_held (texts[i], &first, &end);
          if (los == NULL || (first <= MIN (los[i], hi) && hi <= end))
            continue;
        }
      w->id = doc != NULL ? doc->id : 0;
      w->slot = i;
      w->p1 = -1;
      if (los != NULL)
        {
          want_parts (w, w->before ? texts[i] : NULL, los[i], MAX (his[i], los[i]));
          for (gint64 part = w->p0; part <= w->p1; part++)
            if (!w->before || part < w->h0 || part > w->h1)
              {
                const gint64 key = w->id * SIM_SERVER_TEXT_PART_KEY + part;

                g_array_append_val (keys, key);
              }
        }
      ids[m] = w->id;
      g_hash_table_insert (by_id, &w->id, w);
      m++;
    }
  if (m == 0)
    return TRUE;
  result = run_read_texts (r, ids, m, keys != NULL ? (const gint64 *) keys->data : NULL, keys != NULL ? keys->len : 0,
                           error);
  if (result == NULL)
    return FALSE;
  g_mutex_lock (&r->lock);
  for (int row = 0, end; row < PQntuples (result); row = end)
    {
      const gint64 id = g_ascii_strtoll (PQgetvalue (result, row, 0), NULL, 10);
      const gboolean withheld = g_str_equal (PQgetvalue (result, row, 3), "t");
      const gint64 n_chars = g_ascii_strtoll (PQgetvalue (result, row, 4), NULL, 10);
      Wanted *w = g_hash_table_lookup (by_id, &id);
      SimCorpusDoc *doc;

      for (end = row + 1; end < PQntuples (result) && g_ascii_strtoll (PQgetvalue (result, end, 0), NULL, 10) == id; end++)
        ;
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
      if (w != NULL && !withheld && (w->before || texts[w->slot] == NULL))
        {
          w->row = row;
          w->end = end;
          w->n_chars = n_chars;
        }
    }
  g_mutex_unlock (&r->lock);
  /* The texts made once the lock is let go: a text's own lock is taken
   * before this one when it fetches. */
  for (guint k = 0; k < m && ok; k++)
    {
      Wanted *w = &wanted[k];
      g_autoptr(GString) text = NULL;
      gint64 first;

      if (w->end == 0)
        continue;
      text = g_string_new (NULL);
      if (w->before)
        {
          /* The parts it lacks before and after what it holds. */
          guint32 held_first, held_end, at;
          gsize len;
          g_autofree char *held = NULL;

          sim_store_text_get_held (texts[w->slot], &held_first, &held_end);
          if (w->p0 < w->h0 && (first = append_parts (result, w->row, w->end, w->p0, w->h0 - 1, text, r->name, error)) != w->p0)
            {
              /* Parts before the first it holds, all there: or damaged. */
              if (first != -2)
                g_set_error (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT,
                             _("The text of document %lld on the corpus server %s is damaged: part %lld is missing"),
                             (long long) w->id, r->name, (long long) w->p0);
              ok = FALSE;
              break;
            }
          if ((held = sim_store_text_dup_range (texts[w->slot], held_first, held_end, &at, &len, error)) == NULL)
            {
              ok = FALSE;
              break;
            }
          g_string_append_len (text, held, len);
          if (append_parts (result, w->row, w->end, w->h1 + 1, w->p1, text, r->name, error) == -2)
            {
              ok = FALSE;
              break;
            }
          len = text->len;
          sim_store_text_hold (texts[w->slot], (guint32) (w->p0 * SIM_SERVER_TEXT_PART),
                               g_string_free (g_steal_pointer (&text), FALSE), len);
          continue;
        }
      first = append_parts (result, w->row, w->end, w->p0, w->p1, text, r->name, error);
      if (first == -2)
        {
          ok = FALSE;
          break;
        }
      if (first < 0)
        continue;  /* no part: gone since */
      if (los == NULL)
        {
          const gsize len = text->len;

          texts[w->slot] = sim_store_text_new_plain (r->name, w->id, g_string_free (g_steal_pointer (&text), FALSE), len);
        }
      else
        {
          const gsize len = text->len;

          texts[w->slot] = sim_store_text_new_part (r->name, w->id, (guint32) CLAMP (w->n_chars, 0, G_MAXUINT32),
                                                    (guint32) MIN (first * SIM_SERVER_TEXT_PART, w->n_chars),
                                                    g_string_free (g_steal_pointer (&text), FALSE), len, fetch_whole,
                                                    sim_corpus_snapshot_ref ((SimCorpusSnapshot *) snapshot),
                                                    (GDestroyNotify) sim_corpus_snapshot_unref);
        }
    }
  PQclear (result);
  /* Failed: no text set, as a local store's read (those read before stay). */
  for (guint k = 0; k < m && !ok; k++)
    if (!wanted[k].before)
      g_clear_pointer (&texts[wanted[k].slot], sim_store_text_free);
  return ok;
}
