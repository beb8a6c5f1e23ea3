/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The chunks a merge of the lookup table's runs is made of
 * (sim-server-merge.c decides which runs are merged, and when): each chunk
 * of the key space read from every run (the server's rows, or a spill's
 * file), its postings of documents still there merged a group of buckets
 * at a time, encoded as rows of the new run and sent in one COPY, the next
 * chunk read on a second thread meanwhile.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib/gi18n-lib.h>

#include "sim-error.h"
#include "sim-server-private.h"

typedef struct {
  const guint8 *live;    /* a bit per document id: still there */
  gint64        n_ids;
  GArray       *out;
} Keep;

/* Sorts @n postings at @p made of @k sorted stretches ending at @ends
 * (each end the next one's start) by merging them two by two through
 * @other (room for @n). @by_key: each stretch's documents come before the
 * next one's, so that postings of one key are in order as they stand and
 * only keys are compared (a spill's runs, a batch after another: the
 * comparison of whole postings spilled the loop's registers, and the
 * merge was a tenth of an add of 1 GB). */
static inline void
merge_sorted_by (SimPosting     *p,
                 gsize           n,
                 guint          *ends,
                 guint           k,
                 SimPosting     *other,
                 const gboolean  by_key)
{
  SimPosting *from = p, *to = other;

  while (k > 1)
    {
      guint out = 0, m = 0;

      for (guint e = 0; e < k; e += 2)
        {
          const guint a0 = e ? ends[e - 1] : 0, a1 = ends[e];
          const guint b1 = e + 1 < k ? ends[e + 1] : a1;
          guint i = a0, j = a1;

          /* The one taken chosen without a branch: which it is cannot
           * be foreseen, and mispredicted it was most of a merge. */
          while (i < a1 && j < b1)
            {
              const guint right = by_key ? from[j].key < from[i].key : _sim_posting_less (&from[j], &from[i]);

              to[out++] = from[i ^ ((i ^ j) & -right)];
              j += right;
              i += right ^ 1;
            }
          while (i < a1)
            to[out++] = from[i++];
          while (j < b1)
            to[out++] = from[j++];
          ends[m++] = out;
        }
      k = m;
      { SimPosting *t = from; from = to; to = t; }
    }
  if (from != p)
    memcpy (p, from, n * sizeof (SimPosting));
}

static void
merge_sorted (SimPosting *p,
              gsize       n,
              guint      *ends,
              guint       k,
              SimPosting *other,
              gboolean    by_key)
{
  if (by_key)
    merge_sorted_by (p, n, ends, k, other, TRUE);
  else
    merge_sorted_by (p, n, ends, k, other, FALSE);
}

/* Postings of a merge sorted at a time: a group of buckets. */
#define MERGE_GROUP (1u << 16)
/* Rows a merge makes before they are sent. */
#define MERGE_SEND  (256u << 10)

/* @postings made of sorted stretches ending at @ends (each end the next
 * one's start) as rows of run @run of @bits (_sim_posting_encode_rows()),
 * merged a group of the new run's buckets at a time: each stretch's
 * postings of the group copied out and merged (merge_sorted()), then
 * encoded, and sent into @copy as they come. Merged whole, the chunk took
 * a second array of its size (9 MB at 1 GB, a tenth of the add's memory,
 * held while the next batch was made). */
static void
encode_merged (const GArray  *postings,
               const GArray  *ends,
               gboolean       by_key,
               gint64         run,
               guint          bits,
               GString       *rows,
               SimServer     *server,
               SimServerCopy *copy)
{
  const SimPosting *all = (const SimPosting *) postings->data;
  const guint k = ends->len;
  const guint shift = SIM_POSTING_KEY_BITS - bits;
  g_autofree guint *at = g_new (guint, k);
  g_autofree guint *group_ends = g_new (guint, k);
  g_autofree SimPosting *group = NULL, *other = NULL;
  gsize room = MERGE_GROUP;
  guint64 lo, hi, width;

  if (postings->len == 0)
    return;
  for (guint r = 0; r < k; r++)
    at[r] = r ? g_array_index (ends, guint, r - 1) : 0;
  /* The buckets the chunk spans, cut into groups of about MERGE_GROUP postings. */
  lo = G_MAXUINT64;
  hi = 0;
  for (guint r = 0; r < k; r++)
    if (at[r] < g_array_index (ends, guint, r))
      {
        lo = MIN (lo, bits ? all[at[r]].key >> shift : 0);
        hi = MAX (hi, (bits ? all[g_array_index (ends, guint, r) - 1].key >> shift : 0) + 1);
      }
  width = MAX ((hi - lo) * MERGE_GROUP / postings->len, 1);
  group = g_new (SimPosting, room);
  other = g_new (SimPosting, room);
  for (guint64 g = lo; g < hi; g += width)
    {
      gsize n = 0;
      guint m = 0;

      for (guint r = 0; r < k; r++)
        {
          const guint end = g_array_index (ends, guint, r);
          guint stop = at[r];

          while (stop < end && (bits ? all[stop].key >> shift : 0) < g + width)
            stop++;
          if (stop == at[r])
            continue;
          if (n + (stop - at[r]) > room)
            {
              room = MAX (2 * room, n + (stop - at[r]));
              group = g_renew (SimPosting, group, room);
              other = g_renew (SimPosting, other, room);
            }
          memcpy (group + n, all + at[r], (stop - at[r]) * sizeof (SimPosting));
          n += stop - at[r];
          group_ends[m++] = n;
          at[r] = stop;
        }
      if (n == 0)
        continue;
      merge_sorted (group, n, group_ends, m, other, by_key);
      _sim_posting_encode_rows (group, n, run, bits, rows);
      if (rows->len >= MERGE_SEND)
        {
          _sim_server_copy_put (server, copy, rows->str, rows->len);
          g_string_truncate (rows, 0);
        }
    }
}

#define CURSOR_READ (64u << 10)

/* A chunk of the key space as read: the postings of documents still
 * there, a run's after another's, each run's sorted (@in_order) and
 * ending at @ends. */
typedef struct {
  GArray   *postings;
  GArray   *ends;
  gboolean  in_order;
  gboolean  docs_apart; /* each stretch's documents before the next one's */
  gboolean  last;     /* the reader's end: nothing more comes (@error if it failed) */
  GError   *error;
} Chunk;

/* What read_chunk() gives each run's rows to. */
typedef struct {
  const SimMergeReading *reading;
  Chunk         *chunk;
  Keep           keep;
  gboolean       any;      /* a run before had rows */
  const char    *name;
} ChunkRead;

/* The rows of run @i in bucket order: its postings kept, after an end
 * for the run before that had rows. */
static gboolean
read_run_rows (guint            i,
               const PGresult  *result,
               gpointer         data,
               GError         **error)
{
  ChunkRead *cr = data;
  const guint bits = cr->reading->runs[i].bits;

  if (PQntuples (result) > 0 && cr->any)
    g_array_append_val (cr->chunk->ends, cr->chunk->postings->len);
  cr->any |= PQntuples (result) > 0;
  for (int r = 0; r < PQntuples (result); r++)
    if (!_sim_posting_decode_row ((const guint8 *) PQgetvalue (result, r, 1), PQgetlength (result, r, 1),
                                  _sim_be32 (PQgetvalue (result, r, 0)), bits, cr->keep.live, cr->keep.n_ids,
                                  cr->keep.out))
      {
        g_set_error (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT,
                     _("The corpus server %s holds a damaged row of its lookup table"), cr->name);
        return FALSE;
      }
  return TRUE;
}

/* Reads chunk @c of the runs into @chunk: each run's rows of the chunk by
 * a range of its buckets (the run checked on the index's entries, (bucket,
 * run)), a statement a run, all sent at once (one round trip). With the
 * runs joined to the table instead, the planner scanned the whole table
 * for each chunk (1.5 s a chunk at 1 GB, against 66 ms). The runs as a
 * lateral subquery of an unnest() of them, one result a chunk, made a
 * compaction of 1 GB take 37-50 s where this takes 24-31 (the reader
 * decodes a run while the server reads the next), and Citus refuses a
 * lateral subquery on a distributed table that is not joined by its
 * distribution column (sim-server-private.h). */
static gboolean
read_chunk (SimServer     *server,
            const SimMergeReading *reading,
            guint64        c,
            Chunk         *chunk,
            GError       **error)
{
  g_autoptr(GPtrArray) params = g_ptr_array_new_with_free_func (g_free);
  ChunkRead cr = { reading, chunk, { reading->live, reading->n_ids, chunk->postings }, FALSE,
                   sim_server_get_name (server) };

  g_array_set_size (chunk->postings, 0);
  g_array_set_size (chunk->ends, 0);
  /* Each statement's rows come in bucket order. */
  chunk->in_order = TRUE;
  chunk->docs_apart = reading->docs_apart;
  for (guint i = 0; i < reading->n_runs; i++)
    {
      const guint shift = reading->runs[i].bits - reading->chunk_bits;

      g_ptr_array_add (params, g_strdup_printf ("{%" G_GINT64_FORMAT ",%" G_GUINT64_FORMAT ",%" G_GUINT64_FORMAT "}",
                                                reading->runs[i].run, c << shift, (c + 1) << shift));
    }
  if (!_sim_server_run_each (server,
                             "SELECT p.bucket, p.data FROM simhound.postings p"
                             " WHERE p.run = ($1::bigint[])[1] AND p.bucket >= ($1::bigint[])[2]"
                             "   AND p.bucket < ($1::bigint[])[3]"
                             " ORDER BY p.bucket",
                             reading->n_runs, (const char *const *) params->pdata, read_run_rows, &cr, error))
    return FALSE;
  if (chunk->postings->len > 0)
    g_array_append_val (chunk->ends, chunk->postings->len);
  return TRUE;
}

/* The head of the next row of @cursor (COPY's binary format: 26 bytes,
 * then its data) with its data, buffered: NULL at the run's end, or with
 * @error set for a short or damaged spill. */
static const guint8 *
cursor_row (SimSpillCursor                *cursor,
            const SimPostingSpill *spill,
            GError               **error)
{
  enum { HEAD = 26 };
  gsize need = HEAD;

  for (;;)
    {
      const gsize have = cursor->len - cursor->pos;

      if (have >= HEAD && need == HEAD)
        {
          need = HEAD + _sim_be32 ((const char *) cursor->buf + cursor->pos + 22);
          if (need > have + (cursor->end - cursor->at))
            break;
        }
      if (have >= need)
        return cursor->buf + cursor->pos;
      if (have == 0 && cursor->at == cursor->end)
        return NULL;
      if (cursor->at == cursor->end)
        break;
      /* Room for @need from the row's start, the rest read on. */
      if (have > 0)
        memmove (cursor->buf, cursor->buf + cursor->pos, have);
      cursor->len = have;
      cursor->pos = 0;
      {
        const gsize room = MAX (need, CURSOR_READ);
        gssize n;

        cursor->buf = g_realloc (cursor->buf, room);
        do
          n = pread (spill->fd, cursor->buf + cursor->len, MIN (room - cursor->len, cursor->end - cursor->at),
                     (off_t) cursor->at);
        while (n < 0 && errno == EINTR);
        if (n <= 0)
          {
            g_set_error (error, SIM_ERROR, SIM_ERROR_STORE, _("Cannot read the add's postings back: %s"),
                         n < 0 ? g_strerror (errno) : _("the file is shorter than written"));
            return NULL;
          }
        cursor->len += n;
        cursor->at += n;
      }
    }
  g_set_error (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT, _("The add's postings were damaged beside it"));
  return NULL;
}

/* Reads chunk @c of a spill's runs, as read_chunk() does the server's:
 * each run's rows of the chunk's buckets, from where the chunk before
 * ended. */
static gboolean
read_spill_chunk (const SimMergeReading *reading,
                  guint64        c,
                  Chunk         *chunk,
                  GError       **error)
{
  const SimPostingSpill *spill = reading->spill;
  Keep keep = { reading->live, reading->n_ids, chunk->postings };

  g_array_set_size (chunk->postings, 0);
  g_array_set_size (chunk->ends, 0);
  chunk->in_order = TRUE;
  chunk->docs_apart = reading->docs_apart;
  for (guint r = 0; r < spill->runs->len; r++)
    {
      const SimSpillRun *run = &g_array_index (spill->runs, SimSpillRun, r);
      SimSpillCursor *cursor = &reading->cursors[r];
      /* The chunk's buckets in the run's: below (c + 1) << (bits - chunk_bits). */
      const guint64 limit = (c + 1) << (run->bits - reading->chunk_bits);
      const guint before = chunk->postings->len;
      const guint8 *row;
      GError *local = NULL;

      while ((row = cursor_row (cursor, spill, &local)) != NULL)
        {
          const guint32 bucket = _sim_be32 ((const char *) row + 18);
          const guint32 len = _sim_be32 ((const char *) row + 22);

          if (bucket >= limit)
            break;
          if (!_sim_posting_decode_row (row + 26, len, bucket, run->bits, keep.live, keep.n_ids, keep.out))
            {
              g_set_error (&local, SIM_ERROR, SIM_ERROR_STORE_CORRUPT, _("The add's postings were damaged beside it"));
              break;
            }
          cursor->pos += 26 + len;
        }
      if (local != NULL)
        {
          g_propagate_error (error, local);
          return FALSE;
        }
      if (chunk->postings->len > before)
        g_array_append_val (chunk->ends, chunk->postings->len);
    }
  return TRUE;
}

/* Writes @chunk's postings as rows of run @run of @bits: into @open, a
 * COPY the caller began and ends, or in a statement of their own. */
static gboolean
write_chunk (SimServer     *server,
             Chunk         *chunk,
             gint64         run,
             guint          bits,
             SimServerCopy *open,
             GError       **error)
{
  g_autoptr(GString) rows = g_string_new (NULL);
  SimServerCopy own, *copy = open != NULL ? open : &own;

  if (chunk->postings->len == 0)
    return TRUE;
  if (open == NULL)
    {
      if (!_sim_posting_rows_begin (server, &own, error))
        return FALSE;
      _sim_posting_copy_header (rows);
    }
  if (chunk->in_order)
    encode_merged (chunk->postings, chunk->ends, chunk->docs_apart, run, bits, rows, server, copy);
  else
    {
      _sim_posting_sort (chunk->postings);
      _sim_posting_encode_rows ((const SimPosting *) chunk->postings->data, chunk->postings->len, run, bits, rows);
    }
  if (open == NULL)
    _sim_posting_copy_trailer (rows);
  _sim_server_copy_put (server, copy, rows->str, rows->len);
  return open != NULL || _sim_posting_rows_end (server, &own, error);
}

/* Chunks read on a second connection while the one before is merged and
 * written on the merge's: the merge read, merged and wrote in turn, on
 * one core of two (11 s of an add of 210 MB's 26.5). */
typedef struct {
  SimServer     *server;
  const SimMergeReading *reading;
  guint64        n_chunks;
  GAsyncQueue   *full;   /* Chunk, read */
  GAsyncQueue   *empty;  /* Chunk, to read into */
  gint           stop;   /* the writer failed */
} Reader;

static gpointer
reader_thread (gpointer data)
{
  Reader *reader = data;
  Chunk *chunk;

  for (guint64 c = 0; c < reader->n_chunks && !g_atomic_int_get (&reader->stop); c++)
    {
      chunk = g_async_queue_pop (reader->empty);
      if (!(reader->reading->spill ? read_spill_chunk (reader->reading, c, chunk, &chunk->error)
                                   : read_chunk (reader->server, reader->reading, c, chunk, &chunk->error)))
        {
          chunk->last = TRUE;
          g_async_queue_push (reader->full, chunk);
          return NULL;
        }
      g_async_queue_push (reader->full, chunk);
    }
  chunk = g_async_queue_pop (reader->empty);
  chunk->last = TRUE;
  g_async_queue_push (reader->full, chunk);
  return NULL;
}

gboolean
_sim_merge_copy_chunks (SimServer             *server,
                        SimServer             *second,
                        const SimMergeReading *reading,
                        gint64                 run,
                        guint                  bits,
                        guint64               *written,
                        GError               **error)
{
  const guint64 n_chunks = G_GUINT64_CONSTANT (1) << reading->chunk_bits;
  /* Chunks of at most four fifths of SIM_MERGE_CHUNK (merge_runs()), in
   * arrays of SIM_MERGE_CHUNK: a GArray's room is a power of two, and grown
   * from a chunk's size it held 16 MB for 9 MB of postings. */
  Chunk chunks[2] = { { g_array_sized_new (FALSE, FALSE, sizeof (SimPosting), SIM_MERGE_CHUNK),
                        g_array_new (FALSE, FALSE, sizeof (guint)) },
                      { NULL, NULL } };
  gboolean ok = TRUE;
  SimServerCopy copy, *open = NULL;
  int spread;

  /* On one server, every chunk into one COPY, which the server takes in
   * while the next chunk is read and merged: a COPY a chunk, the client
   * waited for the server to finish each, and the server for the client
   * to begin the next (an add's 36 chunks of 1.7 MB took 1.4 s at two
   * thirds of two cores). Spread over servers, a chunk at a time goes
   * through the staging table. */
  if ((spread = _sim_posting_spread (server, error)) < 0)
    return FALSE;
  /* (Not when the chunks are read on this connection: no statement runs
   * beside a COPY.) */
  if (!spread && n_chunks > 1 && (second != NULL || reading->spill != NULL))
    {
      g_autoptr(GString) header = g_string_new (NULL);

      if (!_sim_posting_rows_begin (server, &copy, error))
        return FALSE;
      _sim_posting_copy_header (header);
      _sim_server_copy_put (server, &copy, header->str, header->len);
      open = &copy;
    }

  if ((second == NULL && reading->spill == NULL) || n_chunks == 1)
    for (guint64 c = 0; ok && c < n_chunks; c++)
      {
        ok = (reading->spill ? read_spill_chunk (reading, c, &chunks[0], error)
                             : read_chunk (server, reading, c, &chunks[0], error)) &&
             write_chunk (server, &chunks[0], run, bits, open, error);
        *written += chunks[0].postings->len;
      }
  else
    {
      Reader reader = { second, reading, n_chunks, g_async_queue_new (), g_async_queue_new (), 0 };
      GThread *thread;

      chunks[1].postings = g_array_sized_new (FALSE, FALSE, sizeof (SimPosting), SIM_MERGE_CHUNK);
      chunks[1].ends = g_array_new (FALSE, FALSE, sizeof (guint));
      g_async_queue_push (reader.empty, &chunks[0]);
      g_async_queue_push (reader.empty, &chunks[1]);
      thread = g_thread_new ("simhound-merge", reader_thread, &reader);
      for (;;)
        {
          Chunk *chunk = g_async_queue_pop (reader.full);

          if (chunk->last)
            {
              if (chunk->error != NULL)
                {
                  if (ok)
                    g_propagate_error (error, g_steal_pointer (&chunk->error));
                  ok = FALSE;
                }
              break;
            }
          if (ok && !write_chunk (server, chunk, run, bits, open, error))
            {
              ok = FALSE;
              g_atomic_int_set (&reader.stop, 1);
            }
          *written += chunk->postings->len;
          g_async_queue_push (reader.empty, chunk);
        }
      g_thread_join (thread);
      g_async_queue_unref (reader.full);
      g_async_queue_unref (reader.empty);
    }
  if (open != NULL)
    {
      g_autoptr(GString) trailer = g_string_new (NULL);

      /* After a failure the transaction is rolled back: what the COPY took is gone. */
      _sim_posting_copy_trailer (trailer);
      _sim_server_copy_put (server, open, trailer->str, trailer->len);
      ok = _sim_posting_rows_end (server, open, ok ? error : NULL) && ok;
    }
  for (guint i = 0; i < G_N_ELEMENTS (chunks); i++)
    if (chunks[i].postings != NULL)
      {
        g_array_unref (chunks[i].postings);
        g_array_unref (chunks[i].ends);
        g_clear_error (&chunks[i].error);
      }
  return ok;
}
