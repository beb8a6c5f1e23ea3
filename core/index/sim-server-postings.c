/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The corpus server's lookup table: where each window's fingerprint is.
 *
 * A row per window took 17 times the text (a tuple and an index entry for
 * 8 bytes of data), a GIN index 9.6 times. So postings are packed: a batch
 * writes its postings as one run, cut into rows of about ROW_POSTINGS by
 * the high bits of the fingerprint (the run's bits: a larger run has more
 * rows), each row its postings sorted and delta-coded (some 7 bytes a
 * posting). A lookup asks every run for the rows of the article's keys in
 * one statement. Runs of a like size are merged (tiers of MERGE_FANIN), so
 * a corpus of N postings has O(log N) runs and each posting is written
 * O(log N) times; a merge drops the postings of removed documents.
 *
 * Rows are keyed (run, bucket) and the table is hash-partitioned on the
 * bucket, so its partitions can live on other servers.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "sim-band-index.h"
#include "sim-error.h"
#include "sim-server-private.h"
#include "sim-window-codec.h"

#define KEY_BITS        SIM_BAND_INDEX_FILE_BITS
#define ROW_POSTINGS    64           /* postings a row holds, about */
#define MERGE_BASE      (1u << 16)   /* postings of the smallest tier */
#define MERGE_FANIN     4            /* runs of a tier that are merged into one */
#define MERGE_CHUNK     (4u << 20)   /* postings a merge holds at once, about */
#define MERGE_LOCK      "7437357121"

void
_sim_server_postings_of (GBytes *packed,
                         gint64  doc,
                         gint64  n_chars,
                         GArray *postings)
{
  const gsize n = _sim_count_windows (packed);
  const guint8 *p = g_bytes_get_data (packed, NULL);
  gint64 start = 0;

  if (n == G_MAXSIZE)
    return;
  for (gsize i = 0; i < n; i++)
    {
      SimPosting posting;

      posting.key = _sim_next_window (&p, &start) & SIM_BAND_INDEX_FILE_MASK;
      posting.doc = doc;
      posting.start = (guint32) CLAMP (start, 0, MAX (n_chars, 0));
      g_array_append_val (postings, posting);
    }
}

static inline gboolean
posting_less (const SimPosting *x,
              const SimPosting *y)
{
  return x->key != y->key ? x->key < y->key : x->doc != y->doc ? x->doc < y->doc : x->start < y->start;
}

static int
compare_postings (gconstpointer a,
                  gconstpointer b)
{
  const SimPosting *x = a, *y = b;

  return posting_less (x, y) ? -1 : posting_less (y, x);
}

/* Sorts @postings by key, document and start: by the key's high bits
 * first (a counting sort into about a bucket for every four postings),
 * then each small bucket by insertion. One qsort of millions of postings
 * took a sixth of an add's time. */
static void
sort_postings (GArray *postings)
{
  const gsize n = postings->len;
  SimPosting *p = (SimPosting *) postings->data;
  g_autofree SimPosting *sorted = NULL;
  g_autofree gsize *at = NULL;
  g_autofree gsize *fill = NULL;
  guint bits = 1;
  gsize n_buckets;

  if (n < 2)
    return;
  while (bits < 24 && (n >> (bits + 2)) > 0)
    bits++;
  n_buckets = (gsize) 1 << bits;
  sorted = g_new (SimPosting, n);
  at = g_new0 (gsize, n_buckets + 1);
  for (gsize i = 0; i < n; i++)
    at[(p[i].key >> (KEY_BITS - bits)) + 1]++;
  for (gsize b = 0; b < n_buckets; b++)
    at[b + 1] += at[b];
  fill = g_memdup2 (at, (n_buckets + 1) * sizeof *at);
  for (gsize i = 0; i < n; i++)
    sorted[fill[p[i].key >> (KEY_BITS - bits)]++] = p[i];
  for (gsize b = 0; b < n_buckets; b++)
    if (at[b + 1] - at[b] > 16)
      /* A key many documents share (a line of boilerplate). */
      qsort (sorted + at[b], at[b + 1] - at[b], sizeof (SimPosting), compare_postings);
    else for (gsize i = at[b] + 1; i < at[b + 1]; i++)
      {
        const SimPosting x = sorted[i];
        gsize j = i;

        for (; j > at[b] && posting_less (&x, &sorted[j - 1]); j--)
          sorted[j] = sorted[j - 1];
        sorted[j] = x;
      }
  memcpy (p, sorted, n * sizeof (SimPosting));
}

/* Bits of the bucket a run of @n postings cuts its rows by. */
static guint
run_bits (guint64 n)
{
  guint bits = 0;

  while (bits < 30 && (n >> bits) > ROW_POSTINGS)
    bits++;
  return bits;
}

static inline guint32
bucket_of (guint64 key,
           guint   bits)
{
  return bits ? (guint32) (key >> (KEY_BITS - bits)) : 0;
}

static void
put_varint (GByteArray *out,
            guint64     v)
{
  guint8 b[10];
  guint n = 0;

  do
    {
      b[n] = (v & 0x7f) | (v >= 0x80 ? 0x80 : 0);
      v >>= 7;
      n++;
    }
  while (v != 0);
  g_byte_array_append (out, b, n);
}

static gboolean
get_varint (const guint8 **p,
            const guint8  *end,
            guint64       *out)
{
  guint64 v = 0;
  guint shift = 0;

  while (*p < end && shift < 64)
    {
      const guint8 b = *(*p)++;

      v |= (guint64) (b & 0x7f) << shift;
      if (!(b & 0x80))
        {
          *out = v;
          return TRUE;
        }
      shift += 7;
    }
  return FALSE;
}

/* Calls @func on each posting of a row of a run of @bits; FALSE for a
 * damaged row (what came before it was given). */
static gboolean
decode_row (const guint8 *data,
            gsize         len,
            guint32       bucket,
            guint         bits,
            void        (*func) (const SimPosting *posting, gpointer user_data),
            gpointer      user_data)
{
  const guint8 *p = data, *end = data + len;
  const guint64 high = bits ? (guint64) bucket << (KEY_BITS - bits) : 0;
  guint64 rest = 0;

  while (p < end)
    {
      guint64 delta, doc, start;
      SimPosting posting;

      if (!get_varint (&p, end, &delta) || !get_varint (&p, end, &doc) || !get_varint (&p, end, &start))
        return FALSE;
      rest += delta;
      posting.key = (high | rest) & SIM_BAND_INDEX_FILE_MASK;
      posting.doc = (gint64) doc;
      posting.start = (guint32) MIN (start, G_MAXUINT32);
      func (&posting, user_data);
    }
  return TRUE;
}

static void
append_be (GString *out,
           guint64  v,
           guint    bytes)
{
  for (guint i = bytes; i-- > 0;)
    g_string_append_c (out, (char) ((v >> (8 * i)) & 0xff));
}

/* COPY's binary format: a header, rows, a trailer. */
#define COPY_SQL     "COPY simhound.postings (run, bucket, data) FROM STDIN (FORMAT binary)"

static void
copy_header (GString *rows)
{
  g_string_append_len (rows, "PGCOPY\n\377\r\n\0", 11);
  append_be (rows, 0, 4);
  append_be (rows, 0, 4);
}

static void
copy_trailer (GString *rows)
{
  append_be (rows, 0xffff, 2);
}

/* @postings (sorted) as rows of run @run of @bits, in COPY's binary
 * format (hex text was twice the bytes, and a fifth of an add's time on
 * the server). */
static void
encode_rows (const SimPosting *postings,
             gsize             n,
             gint64            run,
             guint             bits,
             GString          *rows)
{
  g_autoptr(GByteArray) data = g_byte_array_new ();
  const guint64 rest_mask = (G_GUINT64_CONSTANT (1) << (KEY_BITS - bits)) - 1;

  for (gsize i = 0; i < n;)
    {
      const guint32 bucket = bucket_of (postings[i].key, bits);
      guint64 prev = 0;

      g_byte_array_set_size (data, 0);
      for (; i < n && bucket_of (postings[i].key, bits) == bucket; i++)
        {
          const guint64 rest = postings[i].key & rest_mask;

          put_varint (data, rest - prev);
          put_varint (data, (guint64) postings[i].doc);
          put_varint (data, postings[i].start);
          prev = rest;
        }
      append_be (rows, 3, 2);
      append_be (rows, 8, 4);
      append_be (rows, (guint64) run, 8);
      append_be (rows, 4, 4);
      append_be (rows, bucket, 4);
      append_be (rows, data->len, 4);
      g_string_append_len (rows, (const char *) data->data, data->len);
    }
}

static gint64
next_run (SimServer *server,
          GError   **error)
{
  PGresult *result = _sim_server_run (server, "SELECT nextval('simhound.run_ids')", 0, NULL, error);
  gint64 run;

  if (result == NULL)
    return -1;
  run = g_ascii_strtoll (PQgetvalue (result, 0, 0), NULL, 10);
  PQclear (result);
  return run;
}

static gboolean
write_run_row (SimServer *server,
               gint64     run,
               guint      bits,
               guint64    n,
               GError   **error)
{
  g_autofree char *s_run = g_strdup_printf ("%" G_GINT64_FORMAT, run);
  g_autofree char *s_bits = g_strdup_printf ("%u", bits);
  g_autofree char *s_n = g_strdup_printf ("%" G_GUINT64_FORMAT, n);
  const char *params[] = { s_run, s_bits, s_n };
  PGresult *result = _sim_server_run (server, "INSERT INTO simhound.runs (run, bits, n_postings) VALUES ($1, $2, $3)",
                                      3, params, error);

  PQclear (result);
  return result != NULL;
}

gboolean
_sim_server_postings_put (SimServer *server,
                          GArray    *postings,
                          GError   **error)
{
  g_autoptr(GString) rows = g_string_new (NULL);
  const guint bits = run_bits (postings->len);
  gint64 run;

  if (postings->len == 0)
    return TRUE;
  sort_postings (postings);
  if ((run = next_run (server, error)) < 0)
    return FALSE;
  copy_header (rows);
  encode_rows ((const SimPosting *) postings->data, postings->len, run, bits, rows);
  copy_trailer (rows);
  return _sim_server_copy (server, COPY_SQL, rows, error) &&
         write_run_row (server, run, bits, postings->len, error);
}

static guint32
be32 (const char *p)
{
  guint32 v;

  memcpy (&v, p, 4);
  return GUINT32_FROM_BE (v);
}

static gint64
be64 (const char *p)
{
  guint64 v;

  memcpy (&v, p, 8);
  return (gint64) GUINT64_FROM_BE (v);
}

static guint
be16 (const char *p)
{
  guint16 v;

  memcpy (&v, p, 2);
  return GUINT16_FROM_BE (v);
}

typedef struct {
  const guint64 *keys;
  gsize          n;
  GArray        *out;
  gsize          at;       /* the first key not below the row's postings so far */
  gboolean       row_start;
} Match;

/* A row's postings come in key order: the first is found by bisection,
 * the rest by stepping on from it. */
static void
match_posting (const SimPosting *posting,
               gpointer          user_data)
{
  Match *m = user_data;

  if (m->row_start)
    {
      gsize lo = 0, hi = m->n;

      while (lo < hi)
        {
          const gsize mid = (lo + hi) / 2;

          if (m->keys[mid] < posting->key)
            lo = mid + 1;
          else
            hi = mid;
        }
      m->at = lo;
      m->row_start = FALSE;
    }
  while (m->at < m->n && m->keys[m->at] < posting->key)
    m->at++;
  if (m->at < m->n && m->keys[m->at] == posting->key)
    {
      SimPosting found = { m->at, posting->doc, posting->start };

      g_array_append_val (m->out, found);
    }
}

/* The keys as a bigint[] literal. */
static char *
keys_literal (const guint64 *keys,
              gsize          n)
{
  GString *s = g_string_sized_new (n * 14 + 2);

  g_string_append_c (s, '{');
  for (gsize i = 0; i < n; i++)
    g_string_append_printf (s, i ? ",%" G_GUINT64_FORMAT : "%" G_GUINT64_FORMAT, keys[i]);
  g_string_append_c (s, '}');
  return g_string_free (s, FALSE);
}

gboolean
_sim_server_postings_lookup (SimServer     *server,
                             const guint64 *keys,
                             gsize          n,
                             GArray        *out,
                             GError       **error)
{
  g_autofree char *literal = NULL;
  const char *params[1];
  Match m = { keys, n, out, 0, TRUE };
  PGresult *result;

  if (n == 0)
    return TRUE;
  params[0] = literal = keys_literal (keys, n);
  /* Each run is asked for the buckets of the keys by its own bits: the
   * rows come by their primary key, (run, bucket), asked for in its order
   * (a seventh faster than in any order at 1 GB). */
  result = _sim_server_run_as (server,
                               "SELECT q.bits, p.bucket, p.data FROM"
                               " (SELECT DISTINCT r.run, r.bits,"
                               "    CASE WHEN r.bits = 0 THEN 0 ELSE (k >> (40 - r.bits))::integer END AS b"
                               "  FROM simhound.runs r, unnest ($1::bigint[]) k ORDER BY 1, 3) q"
                               " JOIN simhound.postings p ON p.run = q.run AND p.bucket = q.b",
                               1, params, 1, error);
  if (result == NULL)
    return FALSE;
  for (int r = 0; r < PQntuples (result); r++)
    if ((m.row_start = TRUE, !decode_row ((const guint8 *) PQgetvalue (result, r, 2), PQgetlength (result, r, 2),
                                          be32 (PQgetvalue (result, r, 1)), be16 (PQgetvalue (result, r, 0)),
                                          match_posting, &m)))
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT,
                     _("The corpus server %s holds a damaged row of its lookup table"), sim_server_get_name (server));
        PQclear (result);
        return FALSE;
      }
  PQclear (result);
  sort_postings (out);
  return TRUE;
}

/* ---------------------------------------------------------------- merges */

typedef struct {
  gint64  run;
  guint   bits;
  guint64 n;
} Run;

static guint
tier_of (guint64 n)
{
  guint tier = 0;

  for (n /= MERGE_BASE; n >= MERGE_FANIN; n /= MERGE_FANIN)
    tier++;
  return tier;
}

typedef struct {
  const guint8 *live;    /* a bit per document id: still there */
  gint64        n_ids;
  GArray       *out;
} Keep;

static void
keep_posting (const SimPosting *posting,
              gpointer          user_data)
{
  Keep *k = user_data;

  if (posting->doc >= 0 && posting->doc < k->n_ids && (k->live[posting->doc >> 3] >> (posting->doc & 7)) & 1)
    g_array_append_val (k->out, *posting);
}

static char *
runs_literal (const GArray *runs)
{
  GString *s = g_string_new ("{");

  for (guint i = 0; i < runs->len; i++)
    g_string_append_printf (s, i ? ",%" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, g_array_index (runs, Run, i).run);
  g_string_append_c (s, '}');
  return g_string_free (s, FALSE);
}

/* Sorts @postings made of sorted stretches ending at @ends (each end the
 * next one's start) by merging them two by two. */
static void
merge_sorted (GArray *postings,
              GArray *ends)
{
  const guint n = postings->len;
  g_autofree SimPosting *other = g_new (SimPosting, MAX (n, 1));
  SimPosting *from = (SimPosting *) postings->data, *to = other;

  while (ends->len > 1)
    {
      guint k = 0, out = 0;

      for (guint e = 0; e < ends->len; e += 2)
        {
          const guint a0 = e ? g_array_index (ends, guint, e - 1) : 0, a1 = g_array_index (ends, guint, e);
          const guint b1 = e + 1 < ends->len ? g_array_index (ends, guint, e + 1) : a1;
          guint i = a0, j = a1;

          while (i < a1 && j < b1)
            to[out++] = posting_less (&from[j], &from[i]) ? from[j++] : from[i++];
          while (i < a1)
            to[out++] = from[i++];
          while (j < b1)
            to[out++] = from[j++];
          g_array_index (ends, guint, k++) = out;
        }
      g_array_set_size (ends, k);
      { SimPosting *t = from; from = to; to = t; }
    }
  if (from != (SimPosting *) postings->data)
    memcpy (postings->data, from, n * sizeof (SimPosting));
}

/* Merges @runs into one, in the caller's transaction: chunk by chunk of
 * the key space, each run's rows of it read, the postings of documents
 * still there kept, written as rows of the new run. */
static gboolean
merge_runs (SimServer    *server,
            const GArray *runs,
            GError      **error)
{
  g_autofree char *literal = runs_literal (runs);
  g_autofree guint8 *live = NULL;
  gint64 n_ids = 0;
  g_autoptr(GArray) postings = g_array_new (FALSE, FALSE, sizeof (SimPosting));
  g_autoptr(GArray) ends = g_array_new (FALSE, FALSE, sizeof (guint));
  guint64 total = 0, written = 0;
  guint min_bits = 30, chunk_bits = 0, bits;
  gint64 run;
  PGresult *result;

  for (guint i = 0; i < runs->len; i++)
    {
      total += g_array_index (runs, Run, i).n;
      min_bits = MIN (min_bits, g_array_index (runs, Run, i).bits);
    }
  bits = run_bits (total);
  while (chunk_bits < min_bits && (total >> chunk_bits) > MERGE_CHUNK)
    chunk_bits++;
  result = _sim_server_run_as (server, "SELECT id FROM simhound.documents ORDER BY id", 0, NULL, 1, error);
  if (result == NULL)
    return FALSE;
  n_ids = PQntuples (result) > 0 ? be64 (PQgetvalue (result, PQntuples (result) - 1, 0)) + 1 : 0;
  live = g_new0 (guint8, n_ids / 8 + 1);
  for (int r = 0; r < PQntuples (result); r++)
    {
      const gint64 id = be64 (PQgetvalue (result, r, 0));

      live[id >> 3] |= 1 << (id & 7);
    }
  PQclear (result);
  if ((run = next_run (server, error)) < 0)
    return FALSE;

  for (guint64 c = 0; c < (G_GUINT64_CONSTANT (1) << chunk_bits); c++)
    {
      g_autofree char *s_chunk = g_strdup_printf ("%" G_GUINT64_FORMAT, c);
      g_autofree char *s_bits = g_strdup_printf ("%u", chunk_bits);
      g_autoptr(GString) rows = g_string_new (NULL);
      const char *params[] = { literal, s_chunk, s_bits };
      Keep keep = { live, n_ids, postings };

      g_array_set_size (postings, 0);
      /* Each run's postings come sorted, one run after another. */
      result = _sim_server_run_as (server,
                                   "SELECT r.bits, p.bucket, p.data, r.run FROM simhound.runs r"
                                   " JOIN simhound.postings p ON p.run = r.run"
                                   " WHERE r.run = ANY ($1::bigint[])"
                                   "   AND p.bucket >= ($2::bigint << (r.bits - $3::integer))"
                                   "   AND p.bucket < (($2::bigint + 1) << (r.bits - $3::integer))"
                                   " ORDER BY r.run, p.bucket",
                                   3, params, 1, error);
      if (result == NULL)
        return FALSE;
      g_array_set_size (ends, 0);
      for (int r = 0; r < PQntuples (result); r++)
        if ((r > 0 && memcmp (PQgetvalue (result, r, 3), PQgetvalue (result, r - 1, 3), 8) != 0 &&
             (g_array_append_val (ends, postings->len), FALSE)) ||
            !decode_row ((const guint8 *) PQgetvalue (result, r, 2), PQgetlength (result, r, 2),
                         be32 (PQgetvalue (result, r, 1)), be16 (PQgetvalue (result, r, 0)), keep_posting, &keep))
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT,
                         _("The corpus server %s holds a damaged row of its lookup table"),
                         sim_server_get_name (server));
            PQclear (result);
            return FALSE;
          }
      PQclear (result);
      if (postings->len == 0)
        continue;
      g_array_append_val (ends, postings->len);
      merge_sorted (postings, ends);
      copy_header (rows);
      encode_rows ((const SimPosting *) postings->data, postings->len, run, bits, rows);
      copy_trailer (rows);
      if (!_sim_server_copy (server, COPY_SQL, rows, error))
        return FALSE;
      written += postings->len;
    }
  {
    const char *params[] = { literal };

    result = _sim_server_run (server, "DELETE FROM simhound.postings WHERE run = ANY ($1::bigint[])", 1, params, error);
    if (result == NULL)
      return FALSE;
    PQclear (result);
    result = _sim_server_run (server, "DELETE FROM simhound.runs WHERE run = ANY ($1::bigint[])", 1, params, error);
    if (result == NULL)
      return FALSE;
    PQclear (result);
  }
  return written == 0 || write_run_row (server, run, bits, written, error);
}

/* The runs of the lowest tier that holds MERGE_FANIN or more, or with
 * @every every run when there are two or more, into @out. */
static gboolean
runs_to_merge (SimServer *server,
               gboolean   every,
               GArray    *out,
               GError   **error)
{
  PGresult *result = _sim_server_run (server, "SELECT run, bits, n_postings FROM simhound.runs ORDER BY run",
                                      0, NULL, error);
  g_autoptr(GArray) all = NULL;
  guint best = G_MAXUINT;
  guint64 merged = 0;

  if (result == NULL)
    return FALSE;
  all = g_array_new (FALSE, FALSE, sizeof (Run));
  for (int r = 0; r < PQntuples (result); r++)
    {
      Run run = { g_ascii_strtoll (PQgetvalue (result, r, 0), NULL, 10),
                  (guint) g_ascii_strtoull (PQgetvalue (result, r, 1), NULL, 10),
                  g_ascii_strtoull (PQgetvalue (result, r, 2), NULL, 10) };

      g_array_append_val (all, run);
    }
  PQclear (result);
  for (guint i = 0; i < all->len; i++)
    {
      const guint tier = tier_of (g_array_index (all, Run, i).n);
      guint count = 0;

      for (guint j = 0; j < all->len; j++)
        count += tier_of (g_array_index (all, Run, j).n) == tier;
      if (count >= MERGE_FANIN && tier < best)
        best = tier;
    }
  g_array_set_size (out, 0);
  if (every && all->len > 1)
    {
      g_array_append_vals (out, all->data, all->len);
      return TRUE;
    }
  for (guint i = 0; best != G_MAXUINT && i < all->len; i++)
    if (tier_of (g_array_index (all, Run, i).n) == best)
      {
        g_array_append_val (out, g_array_index (all, Run, i));
        merged += g_array_index (all, Run, i).n;
      }
  /* With them every other run no larger than what they make, which the
   * next merge would take: one writing instead of two (an add of 24 MB
   * merged twice, 3.5 s of its 8.4). */
  for (guint i = 0; best != G_MAXUINT && i < all->len; i++)
    if (tier_of (g_array_index (all, Run, i).n) != best && g_array_index (all, Run, i).n <= merged)
      g_array_append_val (out, g_array_index (all, Run, i));
  return TRUE;
}

static gboolean
merge (SimServer *server,
       gboolean   all,
       GError   **error);

gboolean
_sim_server_postings_merge (SimServer *server,
                            GError   **error)
{
  return merge (server, FALSE, error);
}

gboolean
sim_server_compact (SimServer *server,
                    GError   **error)
{
  return sim_server_check_schema (server, error) && merge (server, TRUE, error);
}

static gboolean
merge (SimServer *server,
       gboolean   all,
       GError   **error)
{
  g_autoptr(GArray) runs = g_array_new (FALSE, FALSE, sizeof (Run));

  for (;;)
    {
      PGresult *result;
      gboolean locked;

      if (!_sim_server_run_command (server, "BEGIN", error))
        return FALSE;
      /* One client merges at a time; the others leave it to it. */
      result = _sim_server_run (server, "SELECT pg_try_advisory_xact_lock(" MERGE_LOCK ")", 0, NULL, error);
      if (result == NULL)
        goto fail;
      locked = g_str_equal (PQgetvalue (result, 0, 0), "t");
      PQclear (result);
      if (!locked || !runs_to_merge (server, all, runs, error))
        {
          if (!locked)
            return _sim_server_run_command (server, "COMMIT", error);
          goto fail;
        }
      if (runs->len == 0)
        return _sim_server_run_command (server, "COMMIT", error);
      if (!merge_runs (server, runs, error) || !_sim_server_run_command (server, "COMMIT", error))
        goto fail;
    }

fail:
  if (PQstatus (server->conn) == CONNECTION_OK)
    _sim_server_run_command (server, "ROLLBACK", NULL);
  return FALSE;
}
