/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The corpus server's lookup table: where each window's fingerprint is.
 *
 * A row per window took 17 times the text (a tuple and an index entry for
 * 8 bytes of data), a GIN index 9.6 times. So postings are packed: a batch
 * writes its postings as one run, cut into rows of about ROW_POSTINGS by
 * the high bits of the fingerprint (the run's bits: a larger run has more
 * rows), each row its postings sorted and delta-coded (some 7 bytes a
 * posting). A check asks every run for the rows of the article's keys
 * (sim-server-lookup.c). Runs are merged by sim-server-merge.c.
 *
 * Rows are keyed (bucket, run) (before schema version 7, on one server,
 * (run, bucket)) and the table is hash-partitioned on the bucket, so its
 * partitions can live on other servers.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "sim-band-index.h"
#include "sim-error.h"
#include "sim-parallel.h"
#include "sim-server-private.h"
#include "sim-window-codec.h"

#define ROW_POSTINGS    64           /* postings a row holds, about */

gboolean
_sim_server_ids_fit (SimServer *server,
                     gint64     id,
                     GError   **error)
{
  if (id > 0 && id <= SIM_SERVER_MAX_DOC_ID)
    return TRUE;
  {
    g_autofree char *s_id = g_strdup_printf ("%" G_GINT64_FORMAT, id);

    g_set_error (error, SIM_ERROR, SIM_ERROR_STORE,
                 _("The corpus server %s gives document ids beyond those its lookup table can hold (%s)"),
                 sim_server_get_name (server), s_id);
  }
  return FALSE;
}

int
_sim_posting_compare (gconstpointer a,
                  gconstpointer b)
{
  const SimPosting *x = a, *y = b;

  return _sim_posting_less (x, y) ? -1 : _sim_posting_less (y, x);
}

/* Sorts @postings, whose keys share their high @known bits, by key,
 * document and start: by the key's next bits first (a counting sort into
 * about a bucket for every four postings, or a bucket a key when the bits
 * left are fewer), then each bucket not in order already, a small one by
 * insertion. One qsort of millions of postings took a sixth of an add's
 * time. */
static gboolean
in_order (const SimPosting *p,
          gsize             n)
{
  for (gsize i = 1; i < n; i++)
    if (_sim_posting_less (&p[i], &p[i - 1]))
      return FALSE;
  return TRUE;
}

void
_sim_posting_sort_below (GArray *postings,
                         guint   known)
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
  while (bits + known < SIM_POSTING_KEY_BITS && bits < 24 && (n >> (bits + 2)) > 0)
    bits++;
  g_assert (bits + known <= SIM_POSTING_KEY_BITS);
  n_buckets = (gsize) 1 << bits;
  sorted = g_new (SimPosting, n);
  at = g_new0 (gsize, n_buckets + 1);
#define BUCKET(key) (((key) >> (SIM_POSTING_KEY_BITS - known - bits)) & (n_buckets - 1))
  for (gsize i = 0; i < n; i++)
    at[BUCKET (p[i].key) + 1]++;
  for (gsize b = 0; b < n_buckets; b++)
    at[b + 1] += at[b];
  fill = g_memdup2 (at, (n_buckets + 1) * sizeof *at);
  for (gsize i = 0; i < n; i++)
    sorted[fill[BUCKET (p[i].key)]++] = p[i];
#undef BUCKET
  for (gsize b = 0; b < n_buckets; b++)
    if (in_order (sorted + at[b], at[b + 1] - at[b]))
      continue;
    else if (at[b + 1] - at[b] > 16)
      /* A key many documents share (a line of boilerplate). */
      qsort (sorted + at[b], at[b + 1] - at[b], sizeof (SimPosting), _sim_posting_compare);
    else for (gsize i = at[b] + 1; i < at[b + 1]; i++)
      {
        const SimPosting x = sorted[i];
        gsize j = i;

        for (; j > at[b] && _sim_posting_less (&x, &sorted[j - 1]); j--)
          sorted[j] = sorted[j - 1];
        sorted[j] = x;
      }
  memcpy (p, sorted, n * sizeof (SimPosting));
}

void
_sim_posting_sort (GArray *postings)
{
  _sim_posting_sort_below (postings, 0);
}

/* Bits of the bucket a run of @n postings cuts its rows by. */
guint
_sim_posting_run_bits (guint64 n)
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
  return bits ? (guint32) (key >> (SIM_POSTING_KEY_BITS - bits)) : 0;
}

/* Appends the postings of a row of a run of @bits whose document @live
 * holds; FALSE for a damaged row (what came before it is appended). Into
 * the array's room directly: a posting is 3 bytes of the row at least,
 * and a call a posting (a callback, then g_array_append_val()) was a
 * tenth of an add's merge. */
gboolean
_sim_posting_decode_row (const guint8 *data,
                         gsize         len,
                         guint32       bucket,
                         guint         bits,
                         const guint8 *live,
                         gint64        n_ids,
                         GArray       *out)
{
  const guint8 *p = data, *end = data + len;
  const guint64 high = _sim_posting_bucket_first (bucket, bits);
  const guint base = out->len;
  guint64 rest = 0;
  SimPosting *to;
  guint n = 0;
  gboolean ok = TRUE;

  g_array_set_size (out, base + len / 3);
  to = (SimPosting *) out->data + base;
  while (p < end)
    {
      guint64 delta, doc, start;

      if (!_sim_posting_get_varint (&p, end, &delta) || !_sim_posting_get_varint (&p, end, &doc) || !_sim_posting_get_varint (&p, end, &start) ||
          doc > SIM_SERVER_MAX_DOC_ID)
        {
          ok = FALSE;
          break;
        }
      rest += delta;
      if ((gint64) doc >= n_ids || !((live[doc >> 3] >> (doc & 7)) & 1))
        continue;
      to[n].key = (high | rest) & SIM_BAND_INDEX_FILE_MASK;
      to[n].doc = (guint32) doc;
      to[n].start = (guint32) MIN (start, G_MAXUINT32);
      n++;
    }
  g_array_set_size (out, base + n);
  return ok;
}

void
_sim_server_append_be (GString *out,
                       guint64  v,
                       guint    bytes)
{
  for (guint i = bytes; i-- > 0;)
    g_string_append_c (out, (char) ((v >> (8 * i)) & 0xff));
}

/* COPY's binary format: a header, rows, a trailer. */

void
_sim_posting_copy_header (GString *rows)
{
  g_string_append_len (rows, "PGCOPY\n\377\r\n\0", 11);
  _sim_server_append_be (rows, 0, 4);
  _sim_server_append_be (rows, 0, 4);
}

void
_sim_posting_copy_trailer (GString *rows)
{
  _sim_server_append_be (rows, 0xffff, 2);
}

/* @postings (sorted) as rows of run @run of @bits, in COPY's binary
 * format (hex text was twice the bytes, and a fifth of an add's time on
 * the server). */
static inline guint8 *
write_varint (guint8  *out,
              guint64  v)
{
  while (v >= 0x80)
    {
      *out++ = (v & 0x7f) | 0x80;
      v >>= 7;
    }
  *out++ = (guint8) v;
  return out;
}

static inline guint8 *
write_be (guint8  *out,
          guint64  v,
          guint    bytes)
{
  for (guint i = bytes; i-- > 0;)
    *out++ = (guint8) ((v >> (8 * i)) & 0xff);
  return out;
}

void
_sim_posting_encode_rows (const SimPosting *postings,
             gsize             n,
             gint64            run,
             guint             bits,
             GString          *rows)
{
  const guint64 rest_mask = (G_GUINT64_CONSTANT (1) << (SIM_POSTING_KEY_BITS - bits)) - 1;
  /* A row's fields up to its data (26 bytes), and at most 6 + 5 + 5
   * bytes a posting (a 40-bit key's delta, a 32-bit document and start). */
  enum { ROW_HEAD = 26, MAX_POSTING = 16 };

  for (gsize i = 0; i < n;)
    {
      const guint32 bucket = bucket_of (postings[i].key, bits);
      const gsize at = rows->len;
      gsize end = i;
      guint8 *start, *out;
      guint64 prev = 0;

      while (end < n && bucket_of (postings[end].key, bits) == bucket)
        end++;
      g_string_set_size (rows, at + ROW_HEAD + (end - i) * MAX_POSTING);
      start = (guint8 *) rows->str + at;
      out = start + ROW_HEAD;
      for (; i < end; i++)
        {
          const guint64 rest = postings[i].key & rest_mask;

          out = write_varint (out, rest - prev);
          out = write_varint (out, (guint64) postings[i].doc);
          out = write_varint (out, postings[i].start);
          prev = rest;
        }
      write_be (start, 3, 2);
      write_be (start + 2, 8, 4);
      write_be (start + 6, (guint64) run, 8);
      write_be (start + 14, 4, 4);
      write_be (start + 18, bucket, 4);
      write_be (start + 22, out - (start + ROW_HEAD), 4);
      g_string_set_size (rows, out - (guint8 *) rows->str);
    }
}

static inline guint
slice_of (guint64 key)
{
  return (guint) ((key & SIM_BAND_INDEX_FILE_MASK) >> (SIM_POSTING_KEY_BITS - SIM_POSTING_SLICE_BITS));
}

GBytes *
_sim_posting_split (GBytes  *packed,
                    guint32 *slices,
                    gsize   *n_windows)
{
  const gsize n = _sim_count_windows (packed);
  const guint8 *data = g_bytes_get_data (packed, NULL), *p;
  gint64 last[SIM_POSTING_SLICES] = { 0 }, start = 0;
  guint64 at[SIM_POSTING_SLICES + 1] = { 0 };
  guint8 *out;

  if (n == G_MAXSIZE)
    return NULL;
  /* Each slice's bytes... (decoded twice: kept decoded, the windows of a
   * large document took twice its packed windows again) */
  p = data;
  for (gsize i = 0; i < n; i++)
    {
      const guint s = slice_of (_sim_next_window (&p, &start));

      at[s + 1] += 5 + _sim_start_len (start - last[s]);
      last[s] = start;
    }
  for (guint s = 0; s < SIM_POSTING_SLICES; s++)
    at[s + 1] += at[s];
  if (at[SIM_POSTING_SLICES] > G_MAXUINT32)
    return NULL;
  for (guint s = 0; s <= SIM_POSTING_SLICES; s++)
    slices[s] = (guint32) at[s];
  /* ... then each window put in its slice. */
  out = g_malloc (MAX (at[SIM_POSTING_SLICES], 1));
  memset (last, 0, sizeof last);
  p = data;
  start = 0;
  for (gsize i = 0; i < n; i++)
    {
      const guint64 key = _sim_next_window (&p, &start) & SIM_BAND_INDEX_FILE_MASK;
      const guint s = slice_of (key);
      guint8 *o = out + at[s];

      for (guint b = 0; b < 5; b++)
        *o++ = (guint8) (key >> (8 * b));
      at[s] = _sim_put_start (o, start - last[s]) - out;
      last[s] = start;
    }
  *n_windows = n;
  return g_bytes_new_take (out, slices[SIM_POSTING_SLICES]);
}

SimPostingSpill *
_sim_posting_spill_new (GError **error)
{
  g_autoptr(GError) local = NULL;
  g_autofree char *path = NULL;
  SimPostingSpill *spill;
  const int fd = g_file_open_tmp ("simhound-add-XXXXXX", &path, &local);

  if (fd < 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE, _("Cannot make room for the add's postings: %s"), local->message);
      return NULL;
    }
  /* Gone when the add is, however it ends. */
  g_unlink (path);
  spill = g_new0 (SimPostingSpill, 1);
  spill->fd = fd;
  spill->runs = g_array_new (FALSE, FALSE, sizeof (SimSpillRun));
  return spill;
}

void
_sim_posting_spill_free (SimPostingSpill *spill)
{
  if (spill == NULL)
    return;
  close (spill->fd);
  g_array_unref (spill->runs);
  g_free (spill);
}

void
_sim_posting_spill_truncate (SimPostingSpill *spill,
                             guint            n_runs)
{
  g_return_if_fail (n_runs <= spill->runs->len);
  g_array_set_size (spill->runs, n_runs);
  spill->end = n_runs > 0 ? g_array_index (spill->runs, SimSpillRun, n_runs - 1).offset +
                            g_array_index (spill->runs, SimSpillRun, n_runs - 1).length : 0;
  spill->failed = 0;
  /* The space back; should that fail, what is past the end is never read. */
  if (ftruncate (spill->fd, (off_t) spill->end) != 0)
    g_debug ("ftruncate: %s", g_strerror (errno));
}

/* @data at the end of @spill (one writer at a time); a failure is kept
 * in spill->failed. */
static void
spill_write (SimPostingSpill *spill,
             const char      *data,
             gsize            len)
{
  while (len > 0 && spill->failed == 0)
    {
      const gssize n = pwrite (spill->fd, data, MIN (len, (gsize) 1 << 30), (off_t) spill->end);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          spill->failed = n < 0 ? errno : ENOSPC;
          return;
        }
      data += n;
      len -= n;
      spill->end += n;
    }
}

typedef struct {
  const SimPostingSource *docs;
  guint           n_docs;
  guint64         n;          /* windows of all of them */
  gint64          run;
  guint           bits;       /* of the run */
  guint           part_bits;  /* the parts' keys share their high part_bits */
  gint            next;       /* the next part to make */
  GMutex          lock;
  GCond           turn;
  guint           appended;   /* parts sent so far, under @lock */
  SimServer      *server;     /* sent to, under @lock: into @copy, or… */
  SimServerCopy  *copy;
  SimPostingSpill *spill;     /* … written at the end of @spill */
} RowsJob;

/* Makes parts in order, until none is left: each part's postings taken
 * from its slices of every document, sorted, encoded, and sent after the
 * part before. Only the parts being made are held: all at once, and a
 * batch's rows made whole before they were sent, were half an add's
 * memory. */
static void
rows_worker (gpointer data)
{
  RowsJob *job = data;
  const guint n_parts = 1u << job->part_bits;
  const guint per_part = SIM_POSTING_SLICES >> job->part_bits;

  for (;;)
    {
      const gint k = g_atomic_int_add (&job->next, 1);
      g_autoptr(GArray) postings = NULL;
      g_autoptr(GString) rows = NULL;

      if (k >= (gint) n_parts)
        return;
      postings = g_array_sized_new (FALSE, FALSE, sizeof (SimPosting),
                                    (guint) MIN (job->n / n_parts + job->n / (16 * n_parts) + 1024, G_MAXUINT32));
      for (guint d = 0; d < job->n_docs; d++)
        {
          const SimPostingSource *doc = &job->docs[d];
          const guint8 *split;

          if (doc->id == 0 || doc->slices == NULL)
            continue;
          split = g_bytes_get_data (doc->split, NULL);
          for (guint s = k * per_part; s < (k + 1) * per_part; s++)
            {
              const guint8 *p = split + doc->slices[s], *end = split + doc->slices[s + 1];
              /* Written in place: a window takes 6 bytes of a slice at
               * least (a call a posting was most of this loop). */
              const guint base = postings->len, room = (end - p) / 6;
              gint64 start = 0;
              SimPosting *to;
              guint n = 0;

              g_array_set_size (postings, base + room);
              to = (SimPosting *) postings->data + base;
              while (p < end && n < room)
                {
                  to[n].key = _sim_posting_next_split (&p, &start);
                  to[n].doc = (guint32) doc->id;
                  to[n].start = (guint32) CLAMP (start, 0, MAX (doc->n_chars, 0));
                  n++;
                }
              g_array_set_size (postings, base + n);
            }
        }
      _sim_posting_sort_below (postings, job->part_bits);
      rows = g_string_sized_new ((gsize) postings->len * 8 + 64);
      _sim_posting_encode_rows ((const SimPosting *) postings->data, postings->len, job->run, job->bits, rows);
      g_clear_pointer (&postings, g_array_unref);
      g_mutex_lock (&job->lock);
      while (job->appended != (guint) k)
        g_cond_wait (&job->turn, &job->lock);
      if (job->spill != NULL)
        spill_write (job->spill, rows->str, rows->len);
      else
        _sim_server_copy_put (job->server, job->copy, rows->str, rows->len);
      job->appended++;
      g_cond_broadcast (&job->turn);
      g_mutex_unlock (&job->lock);
    }
}

gint64
_sim_posting_next_run (SimServer *server,
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

gboolean
_sim_posting_write_run (SimServer *server,
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

int
_sim_posting_spread (SimServer *server,
                     GError   **error)
{
  if (server->spread < 0)
    {
      PGresult *result = _sim_server_run (server, "SELECT EXISTS (SELECT FROM simhound.meta"
                                                  "  WHERE key = 'layout' AND value LIKE 'postgres_fdw%')",
                                          0, NULL, error);

      if (result == NULL)
        return -1;
      server->spread = g_str_equal (PQgetvalue (result, 0, 0), "t");
      PQclear (result);
    }
  return server->spread;
}

gboolean
_sim_posting_rows_begin (SimServer     *server,
                         SimServerCopy *copy,
                         GError       **error)
{
  if (_sim_posting_spread (server, error) < 0)
    return FALSE;
  /* One server needs no staging copy: COPY straight in. */
  if (!server->spread)
    return _sim_server_copy_begin (server, copy, "COPY simhound.postings (run, bucket, data) FROM STDIN (FORMAT binary)",
                                   error);
  return _sim_server_run_command (server,
                                  "CREATE TEMP TABLE IF NOT EXISTS simhound_postings_staging"
                                  " (run bigint, bucket integer, data bytea) ON COMMIT DELETE ROWS", error) &&
         _sim_server_copy_begin (server, copy, "COPY pg_temp.simhound_postings_staging FROM STDIN (FORMAT binary)",
                                 error);
}

gboolean
_sim_posting_rows_end (SimServer     *server,
                       SimServerCopy *copy,
                       GError       **error)
{
  return _sim_server_copy_end (server, copy, error) &&
         (!server->spread ||
          (_sim_server_run_command (server, "INSERT INTO simhound.postings (run, bucket, data)"
                                            " SELECT run, bucket, data FROM pg_temp.simhound_postings_staging", error) &&
           _sim_server_run_command (server, "TRUNCATE pg_temp.simhound_postings_staging", error)));
}

/* @job's postings counted and its run's bits set: FALSE when it has none. */
static gboolean
rows_job_init (RowsJob *job)
{
  for (guint d = 0; d < job->n_docs; d++)
    if (job->docs[d].id != 0 && job->docs[d].slices != NULL)
      job->n += job->docs[d].n_windows;
  job->bits = _sim_posting_run_bits (job->n);
  /* Parts of whole rows (the run's bits are at least the parts'), of
   * whole slices. */
  job->part_bits = MIN (job->bits, SIM_POSTING_SLICE_BITS);
  return job->n > 0;
}

/* @job's rows made on as many threads as there are, and put in order. */
static void
rows_job_run (RowsJob *job)
{
  g_mutex_init (&job->lock);
  g_cond_init (&job->turn);
  sim_parallel_run (MIN (sim_parallel_default_threads (), 1u << job->part_bits), rows_worker, job);
  g_mutex_clear (&job->lock);
  g_cond_clear (&job->turn);
}

gboolean
_sim_server_put_docs (SimServer              *server,
                      const SimPostingSource *docs,
                      guint                   n_docs,
                      GError                **error)
{
  g_autoptr(GString) edge = g_string_new (NULL);
  RowsJob job = { docs, n_docs };
  SimServerCopy copy;

  if (!rows_job_init (&job))
    return TRUE;
  if ((job.run = _sim_posting_next_run (server, error)) < 0)
    return FALSE;
  job.server = server;
  job.copy = &copy;
  if (!_sim_posting_rows_begin (server, &copy, error))
    return FALSE;
  _sim_posting_copy_header (edge);
  _sim_server_copy_put (server, &copy, edge->str, edge->len);
  rows_job_run (&job);
  g_string_truncate (edge, 0);
  _sim_posting_copy_trailer (edge);
  _sim_server_copy_put (server, &copy, edge->str, edge->len);
  return _sim_posting_rows_end (server, &copy, error) &&
         _sim_posting_write_run (server, job.run, job.bits, job.n, error);
}

gboolean
_sim_posting_spill_put_docs (SimPostingSpill        *spill,
                             const SimPostingSource *docs,
                             guint                   n_docs,
                             GError                **error)
{
  RowsJob job = { docs, n_docs, 0, 0 };
  const guint n_runs = spill->runs->len;
  SimSpillRun run = { spill->end };

  if (!rows_job_init (&job))
    return TRUE;
  job.spill = spill;
  rows_job_run (&job);
  if (spill->failed != 0)
    {
      g_set_error (error, SIM_ERROR, spill->failed == ENOSPC ? SIM_ERROR_STORE_FULL : SIM_ERROR_STORE,
                   _("Cannot keep the add's postings beside it: %s"), g_strerror (spill->failed));
      _sim_posting_spill_truncate (spill, n_runs);
      return FALSE;
    }
  run.length = spill->end - run.offset;
  run.bits = job.bits;
  run.n = job.n;
  run.first_doc = G_MAXINT64;
  run.last_doc = 0;
  for (guint d = 0; d < n_docs; d++)
    if (docs[d].id != 0 && docs[d].slices != NULL)
      {
        run.first_doc = MIN (run.first_doc, docs[d].id);
        run.last_doc = MAX (run.last_doc, docs[d].id);
      }
  g_array_append_val (spill->runs, run);
  return TRUE;
}
