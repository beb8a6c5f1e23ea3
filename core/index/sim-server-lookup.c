/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The corpus server's lookup table read by a check: the rows of every run
 * in the buckets of the article's keys, asked in one statement or a few
 * sent at once, and of each row only the postings of the keys asked
 * (the rows as sim-server-postings.c writes them).
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "sim-band-index.h"
#include "sim-error.h"
#include "sim-server-private.h"
#include "sim-sort.h"

/* Steps over a varint; FALSE at @end. */
static inline gboolean
skip_varint (const guint8 **p,
             const guint8  *end)
{
  while (*p < end)
    if (!(*(*p)++ & 0x80))
      return TRUE;
  return FALSE;
}

/* The postings of a row of a run of @bits (as _sim_posting_decode_row()
 * reads it) whose key is one of the @n sorted @keys, into @out (their key
 * the index of the key). A row's postings come in key order: the keys in
 * its bucket are found by bisection, a posting of no key asked is stepped
 * over without reading its document and start, and the row is left once
 * past its last key asked (half the row on average, where reading every
 * posting was a tenth of a check's client time at 1 GB). FALSE for a
 * damaged row. */
static gboolean
match_row (const guint8  *data,
           gsize          len,
           guint32        bucket,
           guint          bits,
           const guint64 *keys,
           gsize          n,
           GArray        *out)
{
  const guint8 *p = data, *end = data + len;
  const guint64 high = _sim_posting_bucket_first (bucket, bits);
  const guint64 past = bits ? high + ((guint64) 1 << (SIM_POSTING_KEY_BITS - bits)) : G_MAXUINT64;
  gsize at, last;
  guint64 rest = 0;

  /* The keys asked that fall in the bucket: [at, last). */
  at = sim_lower_bound (keys, n, high);
  last = at + sim_lower_bound (keys + at, n - at, past);
  while (p < end && at < last)
    {
      guint64 delta, key, doc, start;

      if (!_sim_posting_get_varint (&p, end, &delta))
        return FALSE;
      rest += delta;
      key = (high | rest) & SIM_BAND_INDEX_FILE_MASK;
      while (at < last && keys[at] < key)
        at++;
      if (at < last && keys[at] == key)
        {
          SimPosting found;

          if (!_sim_posting_get_varint (&p, end, &doc) || !_sim_posting_get_varint (&p, end, &start) || doc > SIM_SERVER_MAX_DOC_ID)
            return FALSE;
          found.key = at;
          found.doc = (guint32) doc;
          found.start = (guint32) MIN (start, G_MAXUINT32);
          g_array_append_val (out, found);
        }
      else if (!skip_varint (&p, end) || !skip_varint (&p, end))
        return FALSE;
    }
  return TRUE;
}

/* Keys a direct lookup asks in one statement: more are asked in several,
 * sent at once, each statement's rows read while the server runs those
 * after it (the client read 10,700 rows of 4.8 MB after the server was
 * done with them, a check of 10,000 characters at 1 GB; so only the last
 * statement's are read after). Through the function all go in one: on a
 * spread layout each call asks every shard. */
#define LOOKUP_CHUNK 2048

typedef struct {
  SimServer     *server;
  const guint64 *keys;
  gsize          n;
  gsize          chunk;   /* keys a statement */
  GArray        *out;
} Lookup;

static gboolean
read_lookup (guint           i,
             const PGresult *result,
             gpointer        data,
             GError        **error)
{
  const Lookup *lookup = data;
  const gsize from = (gsize) i * lookup->chunk;
  const guint before = lookup->out->len;

  for (int r = 0; r < PQntuples (result); r++)
    if (!match_row ((const guint8 *) PQgetvalue (result, r, 2), PQgetlength (result, r, 2),
                    _sim_be32 (PQgetvalue (result, r, 1)), _sim_be16 (PQgetvalue (result, r, 0)),
                    lookup->keys + from, MIN (lookup->chunk, lookup->n - from), lookup->out))
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT,
                     _("The corpus server %s holds a damaged row of its lookup table"),
                     sim_server_get_name (lookup->server));
        return FALSE;
      }
  for (guint k = before; k < lookup->out->len; k++)
    g_array_index (lookup->out, SimPosting, k).key += from;
  return TRUE;
}

gboolean
_sim_server_postings_lookup (SimServer     *server,
                             const guint64 *keys,
                             gsize          n,
                             gboolean       direct,
                             GArray        *out,
                             GError       **error)
{
  const gsize chunk = direct ? LOOKUP_CHUNK : MAX (n, 1);
  const Lookup lookup = { server, keys, n, chunk, out };
  g_autoptr(GPtrArray) literals = g_ptr_array_new_with_free_func (g_free);

  if (n == 0)
    return TRUE;
  /* Keys are 40 bits: as bigints they are the same numbers. */
  for (gsize from = 0; from < n; from += chunk)
    g_ptr_array_add (literals, _sim_server_array_literal ((const gint64 *) keys + from, MIN (chunk, n - from)));
  /* Through the schema's function, the one way a student may read the
   * table (sim-server-schema.c, version 3), unless @direct. */
  if (!_sim_server_run_each (server, direct ? SIM_SERVER_LOOKUP_DIRECT
                                            : "SELECT bits, bucket, data FROM simhound.lookup ($1::bigint[])",
                             literals->len, (const char *const *) literals->pdata, read_lookup, (gpointer) &lookup,
                             error))
    return FALSE;
  /* The keys are indices below @n: a bucket a key. A key's rows come in
   * run order, so its postings are most often in order already; sorted
   * by their keys' high bits alone, they fell into one bucket and a
   * qsort, 15 ms of a check of 10,000 characters at 1 GB (109,000
   * postings). */
  _sim_posting_sort_below (out, SIM_POSTING_KEY_BITS - g_bit_storage (n));
  return TRUE;
}
