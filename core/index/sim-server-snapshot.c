/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A check against a corpus server: a snapshot whose lookups, documents
 * and texts come from the server (sim-snapshot-private.h's
 * SnapshotRemote), so that the check runs as against a local store.
 *
 * What a check costs the server, in round trips: opening (the schema,
 * the settings, the counts, the feature statistics and the documents
 * removed), then one round trip for each lookup, the postings of all its
 * keys (sim-server-postings.c; with them those the check said it expects,
 * sim_corpus_snapshot_expect(); many keys in two halves at once, on two
 * connections), and one for each group of texts the check reads, with
 * what a report says of each document (sim-server-snapshot-texts.c: of a
 * long text, the part the check asks for and a margin).
 *
 * The snapshot knows the documents its lookups found: every one the
 * server has not said was removed is there (the removed are few, until a
 * merge of every run drops their postings; when there are too many, a
 * lookup asks which of its documents are there). A document's index is
 * its server id less one, so the check orders documents (its ties) as it
 * would a local store's, whose documents are in id order; indices between
 * go to documents not found (get_doc() gives NULL). A document removed
 * since the snapshot was taken has no text, and proposes nothing.
 * Connections are kept for the snapshot's readers, one thread each. The
 * places a lookup finds are kept with the snapshot for get_places(): a
 * snapshot is meant for a check, or a few (the app takes one a check).
 */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>
#include <xxhash.h>

#include "sim-error.h"
#include "sim-server-snapshot-private.h"

#define MAX_IDLE      8
#define MAX_REMOVED   4096       /* documents removed a snapshot keeps, else it asks which are there */

Remote *
_sim_server_remote_of (const SimCorpusSnapshot *snapshot)
{
  return snapshot->remote_data;
}

static void
remote_free (gpointer data)
{
  Remote *r = data;

  g_ptr_array_unref (r->idle);
  g_string_chunk_free (r->strings);
  g_clear_pointer (&r->expected, g_array_unref);
  g_clear_pointer (&r->removed, g_array_unref);
  g_hash_table_unref (r->kept);
  for (guint i = 0; i < DOC_CHUNKS; i++)
    g_free (r->docs[i]);
  for (guint i = 0; i < PLACE_CHUNKS && r->places[i] != NULL; i++)
    g_free (r->places[i]);
  g_mutex_clear (&r->lock);
  if (r->password != NULL)
    memset (r->password, 0, strlen (r->password));
  g_free (r->password);
  g_free (r->conninfo);
  g_free (r->name);
  g_free (r);
}

/* A connection for a check's statements: each finds a few rows by their
 * keys, so the planner is kept to index probes (on a small corpus it
 * chose to read the whole lookup table in key order, 2x slower there and
 * worse as it grows), and JIT is off (40 ms of compiling a lookup). */
static SimServer *
connect_for_reading (const char *conninfo,
                     const char *password,
                     GError    **error)
{
  return _sim_server_connect_with_options (conninfo, password,
                                          "-c jit=off -c enable_mergejoin=off -c enable_hashjoin=off", error);
}

SimServer *
_sim_server_remote_take (Remote  *r,
             GError **error)
{
  SimServer *server = NULL;

  g_mutex_lock (&r->lock);
  if (r->idle->len > 0)
    server = g_ptr_array_steal_index_fast (r->idle, r->idle->len - 1);
  g_mutex_unlock (&r->lock);
  return server != NULL ? server : connect_for_reading (r->conninfo, r->password, error);
}

/* A connection that failed is not given back: it may be broken. */
void
_sim_server_remote_give_back (Remote    *r,
           SimServer *server,
           gboolean   ok)
{
  if (ok && PQstatus (server->conn) == CONNECTION_OK && PQtransactionStatus (server->conn) == PQTRANS_IDLE)
    {
      g_mutex_lock (&r->lock);
      if (r->idle->len < MAX_IDLE)
        g_ptr_array_add (r->idle, g_steal_pointer (&server));
      g_mutex_unlock (&r->lock);
    }
  sim_server_free (server);
}

static guint
remote_n_docs (const SimCorpusSnapshot *snapshot)
{
  return (guint) g_atomic_int_get (&_sim_server_remote_of (snapshot)->n_docs);
}

const SimCorpusDoc *
_sim_server_remote_get_doc (const SimCorpusSnapshot *snapshot,
                guint                    index)
{
  Remote *r = _sim_server_remote_of (snapshot);
  const SimCorpusDoc *chunk;

  if (index >= (guint) g_atomic_int_get (&r->n_docs) ||
      (chunk = g_atomic_pointer_get (&r->docs[index / DOC_CHUNK])) == NULL ||
      chunk[index % DOC_CHUNK].id == 0)
    return NULL;
  return &chunk[index % DOC_CHUNK];
}

/* Under the lock. */
gboolean
_sim_server_remote_is_known (Remote *r,
          gint64  id)
{
  return id > 0 && id <= MAX_DOC_ID && r->docs[(id - 1) / DOC_CHUNK] != NULL &&
         r->docs[(id - 1) / DOC_CHUNK][(id - 1) % DOC_CHUNK].id == id;
}

static void
remote_get_places (const SimCorpusSnapshot *snapshot,
                   const guint32           *ids,
                   gsize                    n,
                   guint32                 *docs,
                   guint32                 *starts)
{
  Remote *r = _sim_server_remote_of (snapshot);
  gint64 n_places;

  g_mutex_lock (&r->lock);
  n_places = r->n_places;
  g_mutex_unlock (&r->lock);
  for (gsize i = 0; i < n; i++)
    {
      const guint64 place = ids[i] < n_places ? r->places[ids[i] / PLACE_CHUNK][ids[i] % PLACE_CHUNK] : G_MAXUINT64;

      docs[i] = place >> 32;
      starts[i] = (guint32) place;
    }
}

static int
compare_ids (gconstpointer a,
             gconstpointer b)
{
  const gint64 x = *(const gint64 *) a, y = *(const gint64 *) b;

  return x < y ? -1 : x > y;
}

/* A document a lookup found, not read yet: its name, title and whether
 * its text is kept from this account come with its text (read_texts()). */
const char _sim_server_undescribed[] = "";

/* Under the lock: document @id is there, @n_chars long (G_MAXINT64 until
 * its text is read). */
static void
know (Remote *r,
      gint64  id,
      gint64  n_chars)
{
  const guint index = (guint) (id - 1);
  SimCorpusDoc *doc;

  if (id <= 0 || id > MAX_DOC_ID || _sim_server_remote_is_known (r, id))
    return;
  if (r->docs[index / DOC_CHUNK] == NULL)
    g_atomic_pointer_set (&r->docs[index / DOC_CHUNK], g_new0 (SimCorpusDoc, DOC_CHUNK));
  doc = &r->docs[index / DOC_CHUNK][index % DOC_CHUNK];
  doc->path = _sim_server_undescribed;
  doc->title = _sim_server_undescribed;
  doc->n_chars = n_chars;
  doc->id = id;
  if ((gint) index >= r->n_docs)
    g_atomic_int_set (&r->n_docs, (gint) index + 1);
}

/* Gives the documents of @postings the snapshot does not know yet their
 * indices and lengths, in id order; those gone from the server get none.
 * A key's postings beyond SIM_CORPUS_LOOKUP_MAX_HITS are boilerplate to a
 * check: their documents are not asked for (at 1 GB they were 19,000
 * documents of a 10,000-character article, most of a check's wait). The
 * rest of what a report says of a document comes with its text: asked
 * here for the 8,000-10,000 documents a check of 10,000 characters finds
 * at 1 GB, names and titles were 45-68 ms of the server's time, and a
 * check reads a few hundred of them. */
static gboolean
learn_documents (Remote       *r,
                 SimServer    *server,
                 const GArray *postings,
                 GError      **error)
{
  g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autofree char *literal = NULL;
  const char *params[1];
  PGresult *result;

  g_mutex_lock (&r->lock);
  for (guint i = 0, j; i < postings->len; i = j)
    {
      const guint64 key = g_array_index (postings, SimPosting, i).key;

      for (j = i; j < postings->len && g_array_index (postings, SimPosting, j).key == key; j++)
        ;
      for (guint k = i; j - i <= SIM_CORPUS_LOOKUP_MAX_HITS && k < j; k++)
        {
          const gint64 id = g_array_index (postings, SimPosting, k).doc;

          if (!_sim_server_remote_is_known (r, id) && id > 0 && id <= MAX_DOC_ID &&
              (ids->len == 0 || g_array_index (ids, gint64, ids->len - 1) != id))
            g_array_append_val (ids, id);
        }
    }
  g_mutex_unlock (&r->lock);
  if (ids->len == 0)
    return TRUE;
  g_array_sort (ids, compare_ids);
  /* Knowing which documents were removed, every other one is there (its
   * length comes with its text). */
  if (r->removed != NULL)
    {
      g_mutex_lock (&r->lock);
      for (guint i = 0; i < ids->len; i++)
        {
          const gint64 id = g_array_index (ids, gint64, i);

          if (r->removed->len == 0 ||
              bsearch (&id, r->removed->data, r->removed->len, sizeof (gint64), compare_ids) == NULL)
            know (r, id, G_MAXINT64);
        }
      g_mutex_unlock (&r->lock);
      return TRUE;
    }
  params[0] = literal = _sim_server_array_literal ((const gint64 *) ids->data, ids->len);
  result = _sim_server_run_as (server, "SELECT id, n_chars FROM simhound.documents WHERE id = ANY ($1::bigint[])",
                               1, params, 1, error);
  if (result == NULL)
    return FALSE;
  g_mutex_lock (&r->lock);
  for (int row = 0; row < PQntuples (result); row++)
    know (r, _sim_be64 (PQgetvalue (result, row, 0)), _sim_be64 (PQgetvalue (result, row, 1)));
  g_mutex_unlock (&r->lock);
  PQclear (result);
  return TRUE;
}

static int
compare_u64 (gconstpointer a,
             gconstpointer b)
{
  const guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

/* @fps's keys as the server compares them (the low bits), sorted and
 * distinct, into @keys. */
static void
distinct_keys (const guint64 *fps,
               gsize          n_fps,
               GArray        *keys)
{
  guint j = 0;

  for (gsize i = 0; i < n_fps; i++)
    {
      const guint64 key = fps[i] & SIM_BAND_INDEX_FILE_MASK;

      g_array_append_val (keys, key);
    }
  g_array_sort (keys, compare_u64);
  for (guint i = 0; i < keys->len; i++)
    if (j == 0 || g_array_index (keys, guint64, i) != g_array_index (keys, guint64, j - 1))
      g_array_index (keys, guint64, j++) = g_array_index (keys, guint64, i);
  g_array_set_size (keys, j);
}

static void
remote_expect (SimCorpusSnapshot *snapshot,
               const guint64     *fps,
               gsize              n_fps)
{
  Remote *r = _sim_server_remote_of (snapshot);

  g_mutex_lock (&r->lock);
  if (r->expected == NULL)
    r->expected = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (gsize i = 0; i < n_fps; i++)
    {
      const guint64 key = fps[i] & SIM_BAND_INDEX_FILE_MASK;

      g_array_append_val (r->expected, key);
    }
  g_mutex_unlock (&r->lock);
}

/* Keys a lookup asks on one connection: more are asked in two halves at
 * once, on two. The server probes every key in every run, one backend a
 * connection (at 1 GB, about 14 us a key): two halves take two of its
 * cores, for a second backend's start (fork, catalog, planning; some
 * 7 ms of the server's CPU). That is worth it for a long lookup, not for
 * an essay's: eight clients checking essays of 10,000 characters (5,400
 * keys) at 1 GB made 9.6-9.7 checks/s on one connection each against
 * 8.6-9.7 on two, alternated three times, for 200 rather than 160 ms of a
 * check's wall time alone. */
#define SPLIT_KEYS 8192

typedef struct {
  Remote        *r;
  SimServer     *server;  /* NULL: the second half's, connected beside the first half's statement */
  const guint64 *keys;
  gsize          n;
  GArray        *out;
  GError        *error;
  gboolean       ok;
} Half;

static gpointer
ask_half (gpointer data)
{
  Half *half = data;

  /* Connecting goes on beside the first half's statement too (over TLS,
   * round trips of its own). */
  if (half->server == NULL && (half->server = _sim_server_remote_take (half->r, NULL)) != NULL)
    half->server->beside = TRUE;
  if (half->server != NULL)
    half->ok = _sim_server_postings_lookup (half->server, half->keys, half->n, half->r->direct, half->out,
                                            &half->error);
  return NULL;
}

/* The postings of @n sorted distinct @keys into @postings (their key the
 * index of the key), and the documents they name known. */
static gboolean
ask_keys (Remote         *r,
          const guint64  *keys,
          gsize           n,
          GArray         *postings,
          GError        **error)
{
  Half halves[2] = { { r, NULL, keys, n, postings, NULL, FALSE }, { r, NULL, keys + n / 2, n - n / 2, NULL, NULL, TRUE } };
  GThread *beside = NULL;
  gboolean ok;

  if ((halves[0].server = _sim_server_remote_take (r, error)) == NULL)
    return FALSE;
  if (n >= SPLIT_KEYS)
    {
      halves[0].n = n / 2;
      halves[1].ok = FALSE;
      halves[1].out = g_array_new (FALSE, FALSE, sizeof (SimPosting));
      beside = g_thread_try_new ("simhound-lookup", ask_half, &halves[1], NULL);
    }
  ask_half (&halves[0]);
  if (beside != NULL)
    g_thread_join (beside);
  /* No second connection: the second half after the first, on its
   * connection (a round trip more). */
  if (halves[1].out != NULL && halves[1].server == NULL && halves[0].ok)
    halves[1].ok = _sim_server_postings_lookup (halves[0].server, halves[1].keys, halves[1].n, r->direct, halves[1].out,
                                                &halves[1].error);
  if (halves[1].server != NULL)
    {
      halves[1].server->beside = FALSE;
      _sim_server_remote_give_back (r, halves[1].server, halves[1].ok);
    }
  ok = halves[0].ok && halves[1].ok;
  if (ok && halves[1].out != NULL)
    {
      /* The second half's keys follow the first's. */
      for (guint i = 0; i < halves[1].out->len; i++)
        {
          SimPosting p = g_array_index (halves[1].out, SimPosting, i);

          p.key += halves[0].n;
          g_array_append_val (postings, p);
        }
    }
  g_clear_pointer (&halves[1].out, g_array_unref);
  if (halves[0].error != NULL)
    g_propagate_error (error, g_steal_pointer (&halves[0].error));
  else if (halves[1].error != NULL)
    g_propagate_error (error, g_steal_pointer (&halves[1].error));
  g_clear_error (&halves[0].error);
  g_clear_error (&halves[1].error);
  ok = ok && learn_documents (r, halves[0].server, postings, error);
  _sim_server_remote_give_back (r, halves[0].server, ok);
  return ok;
}

static gboolean
remote_lookup (SimCorpusSnapshot *snapshot,
               const guint64     *fps,
               gsize              n_fps,
               GArray            *out,
               guint32           *out_ends,
               GError           **error)
{
  Remote *r = _sim_server_remote_of (snapshot);
  g_autoptr(GArray) wanted = g_array_sized_new (FALSE, FALSE, sizeof (guint64), n_fps);
  g_autoptr(GArray) asked = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) expected = NULL;
  g_autoptr(GArray) postings = g_array_new (FALSE, FALSE, sizeof (SimPosting));
  g_autoptr(GArray) places = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autofree guint32 *first = NULL;   /* per asked key: its postings' start, and asked->len + 1 */

  /* What the server is asked: the keys, and those expected since, in one
   * statement, but for those kept from an expectation. */
  g_array_append_vals (wanted, fps, n_fps);
  g_mutex_lock (&r->lock);
  expected = g_steal_pointer (&r->expected);
  if (expected != NULL)
    g_array_append_vals (wanted, expected->data, expected->len);
  distinct_keys ((const guint64 *) wanted->data, wanted->len, asked);
  {
    guint n = 0;

    for (guint i = 0; i < asked->len; i++)
      if (!g_hash_table_contains (r->kept, &g_array_index (asked, guint64, i)))
        g_array_index (asked, guint64, n++) = g_array_index (asked, guint64, i);
    g_array_set_size (asked, n);
  }
  g_mutex_unlock (&r->lock);

  if (asked->len > 0 && !ask_keys (r, (const guint64 *) asked->data, asked->len, postings, error))
    return FALSE;
  first = g_new0 (guint32, asked->len + 1);
  for (guint i = 0; i < postings->len; i++)
    first[g_array_index (postings, SimPosting, i).key + 1]++;
  for (guint k = 0; k < asked->len; k++)
    first[k + 1] += first[k];

  g_mutex_lock (&r->lock);
  /* An expected key's postings are kept for the lookup that asks for it. */
  for (guint i = 0; expected != NULL && i < expected->len; i++)
    {
      const guint64 key = g_array_index (expected, guint64, i);
      const guint64 *found = asked->len > 0 ? bsearch (&key, asked->data, asked->len, sizeof (guint64), compare_u64)
                                            : NULL;

      if (found != NULL && !g_hash_table_contains (r->kept, &key))
        {
          const guint k = found - (const guint64 *) asked->data;
          GArray *list = g_array_sized_new (FALSE, FALSE, sizeof (SimPosting), first[k + 1] - first[k]);

          g_array_append_vals (list, &g_array_index (postings, SimPosting, first[k]), first[k + 1] - first[k]);
          g_hash_table_insert (r->kept, g_memdup2 (&key, sizeof key), list);
        }
    }
  for (gsize i = 0; i < n_fps; i++)
    {
      const guint64 key = fps[i] & SIM_BAND_INDEX_FILE_MASK;
      const guint64 *found = asked->len > 0 ? bsearch (&key, asked->data, asked->len, sizeof (guint64), compare_u64)
                                            : NULL;
      const GArray *list = found == NULL ? g_hash_table_lookup (r->kept, &key) : NULL;
      const SimPosting *from = found != NULL ? &g_array_index (postings, SimPosting, first[found - (const guint64 *) asked->data])
                               : list != NULL ? (const SimPosting *) list->data : NULL;
      const guint32 n = found != NULL ? first[found - (const guint64 *) asked->data + 1] - first[found - (const guint64 *) asked->data]
                        : list != NULL ? list->len : 0;
      /* Boilerplate's places are counted, their documents left unresolved. */
      const gboolean boilerplate = n > SIM_CORPUS_LOOKUP_MAX_HITS;

      /* A key's places in the order a local store gives them: by
       * document, then start. */
      g_array_set_size (places, 0);
      for (guint32 p = 0; p < n; p++)
        {
          const guint64 place = boilerplate ? G_MAXUINT64 : (guint64) (from[p].doc - 1) << 32 | from[p].start;

          if (boilerplate || _sim_server_remote_is_known (r, from[p].doc))
            g_array_append_val (places, place);
        }
      g_array_sort (places, compare_u64);
      for (guint p = 0; p < places->len && r->n_places < (gint64) PLACE_CHUNK * PLACE_CHUNKS; p++)
        {
          const guint32 id = (guint32) r->n_places++;

          if (r->places[id / PLACE_CHUNK] == NULL)
            r->places[id / PLACE_CHUNK] = g_new (guint64, PLACE_CHUNK);
          r->places[id / PLACE_CHUNK][id % PLACE_CHUNK] = g_array_index (places, guint64, p);
          g_array_append_val (out, id);
        }
      out_ends[i] = out->len;
    }
  g_mutex_unlock (&r->lock);
  return TRUE;
}

static const SnapshotRemote server_remote = {
  remote_n_docs,
  _sim_server_remote_get_doc,
  remote_lookup,
  remote_expect,
  remote_get_places,
  _sim_server_remote_read_texts,
  remote_free,
};

/* A one-dimensional bigint array in binary (@len bytes at @p), as ids,
 * or an empty array when it is not one. */
static GArray *
ids_of (const char *p,
        gsize       len)
{
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint32 n;

  /* Dimensions, a null flag, the element type; then the length and lower
   * bound; then each element's length (8) and bytes. */
  if (len < 20 || _sim_be32 (p) != 1)
    return ids;
  n = _sim_be32 (p + 12);
  for (guint32 i = 0; i < n && 20 + 12 * (gsize) (i + 1) <= len; i++)
    {
      const gint64 id = _sim_be64 (p + 20 + 12 * (gsize) i + 4);

      g_array_append_val (ids, id);
    }
  return ids;
}

/* The feature statistics, whole (SIM_DF_BUCKETS counts), from columns
 * @col (chunk) and @col + 1 (counts) of @result's rows, in binary; rows
 * without a chunk hold none. */
static guint32 *
df_of (SimServer      *server,
       const PGresult *result,
       int             col,
       GError        **error)
{
  g_autofree guint32 *counts = g_new0 (guint32, SIM_DF_BUCKETS);

  for (int row = 0; row < PQntuples (result); row++)
    {
      guint32 chunk;
      g_autofree guint32 *stored = NULL;

      if (PQgetisnull (result, row, col))
        continue;
      chunk = _sim_be32 (PQgetvalue (result, row, col));
      stored = sim_store_unpack_df (PQgetvalue (result, row, col + 1), PQgetlength (result, row, col + 1),
                                    SIM_SERVER_DF_CHUNK);
      if (stored == NULL || chunk >= SIM_DF_BUCKETS / SIM_SERVER_DF_CHUNK)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT,
                       _("The corpus server %s holds damaged feature statistics"), server->name);
          return NULL;
        }
      memcpy (counts + (gsize) chunk * SIM_SERVER_DF_CHUNK, stored, SIM_SERVER_DF_CHUNK * sizeof (guint32));
    }
  return g_steal_pointer (&counts);
}

SimCorpusSnapshot *
sim_server_snapshot_new (const char  *conninfo,
                         GError     **error)
{
  return sim_server_snapshot_new_with_password (conninfo, NULL, error);
}

gboolean
sim_server_test_connection (const char  *conninfo,
                            const char  *password,
                            char       **out_summary,
                            GError     **error)
{
  g_autoptr(SimServer) server = connect_for_reading (conninfo, password, error);
  g_autoptr(SimServerStatus) status = NULL;
  g_autofree char *count = NULL;
  const char *may;

  if (server == NULL || !_sim_server_same_features (server, error) ||
      (status = sim_server_get_status (server, error)) == NULL)
    return FALSE;
  count = g_strdup_printf ("%'" G_GINT64_FORMAT, status->n_documents);
  may = g_str_equal (status->role, "owner") || g_str_equal (status->role, "writer")
        ? _("this account may check and add documents")
        : g_str_equal (status->role, "reader") ? _("this account may check, with the sources' text")
        : g_str_equal (status->role, "student") ? _("this account may check an own essay")
        : _("this account has none of the Simhound roles");
  *out_summary = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s: %s document; %s", "%s: %s documents; %s",
                                               (gulong) MIN (status->n_documents, G_MAXULONG)),
                                  sim_server_get_name (server), count, may);
  return TRUE;
}

SimCorpusSnapshot *
sim_server_snapshot_new_with_password (const char  *conninfo,
                                       const char  *password,
                                       GError     **error)
{
  g_autoptr(SimServer) server = connect_for_reading (conninfo, password, error);
  SimCorpusSnapshot *snapshot;
  SimNormalizeFlags flags = SIM_NORMALIZE_FOLD_T2S;
  guint32 *counts;
  PGresult *result;
  Remote *r;
  guint n_documents;
  gsize n_windows;
  gint64 updated_at;
  g_autoptr(GArray) removed = NULL;
  g_autofree guint32 *kept = NULL;
  g_autofree char *kept_stamp = NULL;
  gboolean direct;

  if (server == NULL)
    return NULL;
  /* The versions, the settings, the counts, whether the account may read
   * the lookup table (SIM_SERVER_LOOKUP_DIRECT), and the feature statistics in
   * one round trip (in binary: the statistics are packed), each row one
   * chunk of the statistics; a server without the schema fails it, and is
   * then told apart. The statistics come only when those kept beside
   * the client are not current (sim-server-df-cache.c): the stamp, the
   * counts and the time of the last add to the microsecond, changes with
   * every add (the last add's time only grows) and every removal (which
   * lowers the count of documents), in the statement that reads them. */
  kept = _sim_server_df_cache_read (sim_server_get_name (server), &kept_stamp);
  {
    g_autoptr(GError) local_error = NULL;
    const char *params[] = { kept_stamp };

    result = _sim_server_run_as (server,
                                 "SELECT m.*, d.chunk, d.counts FROM (SELECT"
                                 "  (SELECT value FROM simhound.meta WHERE key = 'schema_version'),"
                                 "  (SELECT value FROM simhound.meta WHERE key = 'feature_version'),"
                                 "  (SELECT value FROM simhound.meta WHERE key = 'normalize'),"
                                 "  coalesce(sum(n_documents), 0)::bigint, coalesce(sum(n_windows), 0)::bigint,"
                                 "  coalesce(extract(epoch FROM max(added_at))::bigint, 0),"
                                 "  (SELECT CASE WHEN count(*) <= " G_STRINGIFY (MAX_REMOVED)
                                 "     THEN coalesce (array_agg (id ORDER BY id), '{}') END FROM simhound.removed),"
                                 "  coalesce(sum(n_documents), 0) || ':' || coalesce(sum(n_windows), 0) || ':'"
                                 "    || coalesce(to_char(max(added_at) AT TIME ZONE 'UTC', 'YYYYMMDDHH24MISSUS'), '-') AS stamp,"
                                 "  NOT EXISTS (SELECT FROM simhound.meta WHERE key = 'layout')"
                                 "    AND has_table_privilege ('simhound.postings', 'SELECT')"
                                 "    AND has_table_privilege ('simhound.runs', 'SELECT') AS direct"
                                 "  FROM simhound.tallies) m LEFT JOIN simhound.df d ON m.stamp IS DISTINCT FROM $1::text",
                                 1, params, 1, &local_error);
    if (result == NULL)
      {
        if (!g_error_matches (local_error, SIM_ERROR, SIM_ERROR_SERVER) && !sim_server_check_schema (server, error))
          return NULL;
        g_propagate_error (error, g_steal_pointer (&local_error));
        return NULL;
      }
  }
  if (PQntuples (result) == 0 ||
      !_sim_server_usable_schema (server, (guint) g_ascii_strtoull (PQgetvalue (result, 0, 0), NULL, 10), error) ||
      !_sim_server_usable_features (server, (guint) g_ascii_strtoull (PQgetvalue (result, 0, 1), NULL, 10), error))
    {
      PQclear (result);
      return NULL;
    }
  if (kept != NULL && g_str_equal (PQgetvalue (result, 0, 7), kept_stamp))
    counts = g_steal_pointer (&kept);
  else if ((counts = df_of (server, result, 9, error)) != NULL)
    _sim_server_df_cache_write (sim_server_get_name (server), PQgetvalue (result, 0, 7), counts);
  else
    {
      PQclear (result);
      return NULL;
    }
  if (g_str_equal (PQgetvalue (result, 0, 2), "none"))
    flags = 0;
  n_documents = (guint) _sim_be64 (PQgetvalue (result, 0, 3));
  n_windows = (gsize) _sim_be64 (PQgetvalue (result, 0, 4));
  updated_at = _sim_be64 (PQgetvalue (result, 0, 5));
  removed = PQgetisnull (result, 0, 6) ? NULL : ids_of (PQgetvalue (result, 0, 6), PQgetlength (result, 0, 6));
  direct = PQgetvalue (result, 0, 8)[0] != 0;
  PQclear (result);

  snapshot = _sim_snapshot_new (sim_server_get_name (server), flags);
  snapshot->weights = sim_weights_new (counts, n_documents);
  snapshot->n_documents = n_documents;
  snapshot->n_windows = n_windows;
  snapshot->updated_at = updated_at;
  r = g_new0 (Remote, 1);
  r->conninfo = g_strdup (conninfo);
  r->password = g_strdup (password);
  r->name = g_strdup (sim_server_get_name (server));
  g_mutex_init (&r->lock);
  r->idle = g_ptr_array_new_with_free_func ((GDestroyNotify) sim_server_free);
  r->strings = g_string_chunk_new (4096);
  r->kept = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, (GDestroyNotify) g_array_unref);
  r->removed = g_steal_pointer (&removed);
  r->direct = direct;
  g_ptr_array_add (r->idle, g_steal_pointer (&server));
  snapshot->remote = &server_remote;
  snapshot->remote_data = r;
  return snapshot;
}
