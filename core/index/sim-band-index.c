/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Layout (Manku et al.'s permuted tables): one table per block, each holding
 * every fingerprint (8 bytes) grouped by that block's value, with 2^width + 1
 * bucket offsets. A lookup scans the query's bucket in every table
 * sequentially: no random access per candidate, which is what keeps 10M
 * fingerprints fast. Table 0 is sorted by (block 0, value) and defines the
 * ids: a hit found in another table is mapped back by a binary search in its
 * table-0 bucket. For k <= 3 that is 4 x 8 = 32 bytes per fingerprint; an
 * index that must keep the caller's ids adds a 4-byte permutation. An exact
 * index (k = 0) is table 0 alone, and any k = 0 lookup reads table 0 alone.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#include "sim-band-index-private.h"
#include "sim-parallel.h"
#include "sim-sort.h"

#define PIPELINE    6 /* queries in flight in a batched lookup */
#define BUCKET_LEAD 2 /* how many queries ahead buckets are fetched */

static inline guint64
record_at (const guint8 *records,
           gsize         i)
{
  guint32 v = 0;

  memcpy (&v, records + i * RECORD_BYTES, RECORD_BYTES);
  return GUINT32_FROM_LE (v);
}


/* popcount (x) <= k without a popcount instruction (not in the x86-64
 * baseline): clear the lowest set bit k times. Most candidates differ in
 * about 32 bits, so the loop leaves early. */
static inline gboolean
within (guint64 x,
        guint   k)
{
  for (guint i = 0; i < k && x != 0; i++)
    x &= x - 1;
  return x == 0;
}

static guint32
next_within (const guint64 *table,
             guint32        j,
             guint32        end,
             guint64        fp,
             guint          k)
{
  for (; j < end; j++)
    if (within (table[j] ^ fp, k))
      break;
  return j;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* The same with the POPCNT instruction, chosen at run time where the CPU has it. */
__attribute__ ((target ("popcnt"))) static guint32
next_within_popcnt (const guint64 *table,
                    guint32        j,
                    guint32        end,
                    guint64        fp,
                    guint          k)
{
  for (; j < end; j++)
    if ((guint) __builtin_popcountll (table[j] ^ fp) <= k)
      break;
  return j;
}
#define cpu_has_popcnt() (__builtin_cpu_supports ("popcnt"))
#else
#define next_within_popcnt next_within
#define cpu_has_popcnt() FALSE
#endif

/* Tables of millions of fingerprints are read at random: ask for huge pages
 * so a lookup costs cache misses but not also page walks. Free with g_free. */
gpointer
_sim_band_index_alloc (gsize bytes)
{
  gpointer p = NULL;

  if (bytes >= (4u << 20) && posix_memalign (&p, 2u << 20, bytes) == 0)
    {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
      madvise (p, bytes, MADV_HUGEPAGE);
#endif
      return p;
    }
  return g_malloc (MAX (bytes, 1));
}


SimBandIndex *
_sim_band_index_new_empty (gsize n_fps,
                           guint max_distance)
{
  SimBandIndex *index = g_new0 (SimBandIndex, 1);
  guint shift = 0;

  index->fd = -1;
  index->n_fps = n_fps;
  index->max_distance = max_distance;
  index->has_popcnt = cpu_has_popcnt ();
  index->n_blocks = MAX (4, max_distance + 1);
  index->n_tables = max_distance == 0 ? 1 : index->n_blocks;
  index->key_mask = G_MAXUINT64;
  index->top_shift = 56;
  for (guint b = 0; b < index->n_blocks; b++)
    {
      const guint width = 64 / index->n_blocks + (b < 64 % index->n_blocks ? 1 : 0);

      index->shift[b] = shift;
      index->mask[b] = ((guint64) 1 << width) - 1;
      shift += width;
    }
  return index;
}

void
sim_band_index_free (SimBandIndex *index)
{
  if (index == NULL)
    return;
  if (index->fd >= 0)
    close (index->fd);
  for (guint b = 0; b < index->n_tables && !index->mapped; b++)
    {
      g_free (index->offsets[b]);
      g_free (index->tables[b]);
    }
  g_free (index->perm);
  g_free (index);
}

guint
sim_band_index_get_max_distance (const SimBandIndex *index)
{
  return index->max_distance;
}

guint
sim_band_index_get_n_blocks (const SimBandIndex *index)
{
  return index->n_blocks;
}

gsize
sim_band_index_get_size (const SimBandIndex *index)
{
  return index->n_fps;
}

const guint64 *
sim_band_index_get_fps (const SimBandIndex *index)
{
  return index->perm ? NULL : index->tables[0];
}

static void expand_records (guint64 *fps, const guint8 *records, gsize n, guint64 key);

guint64 *
sim_band_index_dup_fps (const SimBandIndex *index)
{
  guint64 *fps = g_new (guint64, MAX (index->n_fps, 1));

  if (index->perm != NULL && index->tables[0] != NULL)
    for (gsize p = 0; p < index->n_fps; p++)
      fps[index->perm[p]] = index->tables[0][p];
  else
    sim_band_index_read_fps (index, 0, index->n_fps, fps);
  return fps;
}

void
sim_band_index_read_fps (const SimBandIndex *index,
                         gsize               from,
                         gsize               n,
                         guint64            *out)
{
  g_return_if_fail (from <= index->n_fps && n <= index->n_fps - from);
  if (index->fd >= 0 || index->packed != NULL)
    {
      /* Bucket by bucket, records read a piece at a time from a file. */
      enum { CHUNK = 1 << 16 };
      g_autofree guint8 *buf = index->fd >= 0 ? g_new (guint8, CHUNK * RECORD_BYTES + 8) : NULL;
      const guint32 *offsets = index->offsets[0];
      guint k = 0, hi = MAPPED_BUCKETS;

      /* The bucket holding position @from: the last that starts at or before it. */
      while (hi - k > 1)
        {
          const guint mid = k + (hi - k) / 2;

          if (offsets[mid] <= from)
            k = mid;
          else
            hi = mid;
        }
      for (gsize done = 0; done < n;)
        {
          const gsize m = MIN (CHUNK, n - done);
          const guint8 *records;

          if (index->packed != NULL)
            records = index->packed + (from + done) * RECORD_BYTES;
          else
            {
              sim_pread_full (index->fd, buf, m * RECORD_BYTES, index->tables_at + (goffset) (from + done) * RECORD_BYTES, 0);
              records = buf;
            }
          for (gsize i = 0; i < m;)
            {
              const gsize p = from + done + i;
              gsize c;

              while (k + 1 < MAPPED_BUCKETS && offsets[k + 1] <= p)
                k++;
              c = MIN (offsets[k + 1] - p, m - i);
              expand_records (out + done + i, records + i * RECORD_BYTES, c, k);
              i += c;
            }
          done += m;
        }
    }
  else if (index->perm != NULL)
    {
      /* In the caller's order, in memory: every one made, for a slice. */
      g_autofree guint64 *all = sim_band_index_dup_fps (index);

      memcpy (out, all + from, n * sizeof (guint64));
    }
  else if (n > 0)
    memcpy (out, index->tables[0] + from, n * sizeof (guint64));
}

gsize
sim_band_index_get_memory (const SimBandIndex *index)
{
  gsize bytes = sizeof *index;

  for (guint b = 0; b < index->n_tables; b++)
    bytes += (index->mask[b] + 2) * sizeof (guint32) + (index->tables[b] ? index->n_fps * sizeof (guint64) : 0);
  if (index->perm)
    bytes += index->n_fps * sizeof (guint32);
  return bytes;
}

/* @n fingerprints of bucket @key from their records. */
static void
expand_records (guint64      *fps,
                const guint8 *records,
                gsize         n,
                guint64       key)
{
  for (gsize i = 0; i < n; i++)
    fps[i] = record_at (records, i) << 16 | key;
}

/* The first of the @n sorted fingerprints of @bucket that is not below @fp. */
/* Appends the id of every stored copy of @fp. */
static gsize
append_ids (const SimBandIndex *index,
            guint64             fp,
            GArray             *out)
{
  const guint64 key = block_key (index, 0, fp);
  const guint64 *table = index->tables[0];
  const guint32 start = index->offsets[0][key], end = index->offsets[0][key + 1];
  gsize n = 0;

  for (guint32 p = start + (guint32) sim_lower_bound (table + start, end - start, fp); p < end && table[p] == fp; p++)
    {
      const guint32 id = index->perm ? index->perm[p] : p;

      g_array_append_val (out, id);
      n++;
    }
  return n;
}

/* Appends the ids (from @base) of the run of records equal to @top among
 * the @n sorted records of a bucket of table 0 as a file keeps it, the
 * first @limit at most. */
static gsize
append_record_ids (const guint8 *records,
                   guint32       n,
                   guint64       top,
                   guint32       base,
                   guint         limit,
                   GArray       *out)
{
  guint32 lo = 0, hi = n;
  gsize found = 0;

  while (lo < hi)
    {
      const guint32 mid = lo + (hi - lo) / 2;

      if (record_at (records, mid) < top)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (; lo < n && found < limit && record_at (records, lo) == top; lo++, found++)
    {
      const guint32 id = base + lo;

      g_array_append_val (out, id);
    }
  return found;
}

/* An index read from a file (only an exact one is): the bucket a lookup
 * needs is read into a buffer as the file keeps it, so a lookup touches no
 * mapped page and the process holds only the bucket offsets and its
 * buffer, whatever the size of the file. */
typedef struct {
  guint8 *data;
  gsize   size;
} Buffer;

/* Buckets of more records than this are read around the place their keys
 * put the query (below), or their fence's part; smaller ones whole. */
#define READ_WHOLE_BELOW SIM_BAND_INDEX_READ_WHOLE_BELOW

/* Whether @m records read from @lo of a bucket of @n bracket the run of
 * @top: the first below it (or the bucket's start) and the last above it
 * (or its end). */
static inline gboolean
brackets (const guint8 *records,
          guint32       lo,
          guint32       m,
          guint32       n,
          guint64       top)
{
  return m > 0 && (lo == 0 || record_at (records, 0) < top) && (lo + m == n || record_at (records, m - 1) > top);
}

/* Times a lookup guesses again before it reads the whole bucket. */
#define SEEK_STEPS 3

/* The next records to read for the run of @top in a bucket of @n, when
 * [*@lo, *@hi) missed it, holding keys @first to @last: its place guessed
 * again from them, between them and the bucket's end the run lies beyond,
 * and as many records read around it. FALSE when no guess is left: inside
 * a run longer than what was read, all of which is wanted. The keys' bits
 * are not evenly spread (a SimHash's bits lean): at 10 GB, where a bucket
 * holds 36,000 records, a guess from an even spread missed two lookups in
 * three, and each read the bucket's 108 KB whole. */
static gboolean
seek_again (guint32  n,
            guint64  top,
            guint64  first,
            guint64  last,
            guint32 *lo,
            guint32 *hi)
{
  const guint32 half = MAX ((*hi - *lo) / 2, 1);
  const guint64 span = G_GUINT64_CONSTANT (1) << (SIM_BAND_INDEX_FILE_BITS - 16);
  guint64 guess;

  if (*hi <= *lo || (first == top && last == top))
    return FALSE;
  if (first >= top && *lo > 0)
    guess = first > 0 ? (guint64) *lo * top / first : 0;
  else if (last <= top && *hi < n)
    guess = *hi + (guint64) (n - *hi) * (top - last) / MAX (span - last, 1);
  else
    return FALSE;
  *lo = guess > half ? (guint32) MIN (guess - half, (guint64) n - 1) : 0;
  *hi = (guint32) MIN ((guint64) n, (guint64) *lo + 2 * half);
  return TRUE;
}

/* Finds in the @n fingerprints of table @b's bucket @bucket (the table's
 * positions from @base) those within @max_distance of @fp, and appends the
 * ids of each from the first block it agrees on (of copies of @fp, the
 * first @limit at most). */
static gsize
scan_bucket (const SimBandIndex *index,
             guint               b,
             const guint64      *bucket,
             guint32             n,
             guint32             base,
             guint64             fp,
             guint               max_distance,
             guint               limit,
             GArray             *out)
{
  gsize found = 0;
  guint32 j = 0;

  if (max_distance == 0)
    {
      /* Only table 0 is scanned, and its bucket is sorted: the copies of
       * @fp are one run in it. */
      for (guint32 p = (guint32) sim_lower_bound (bucket, n, fp); p < n && found < limit && bucket[p] == fp; p++)
        {
          const guint32 id = index->perm ? index->perm[base + p] : base + p;

          g_array_append_val (out, id);
          found++;
        }
      return found;
    }
  /* Most of the time goes here: find the next entry within the distance. */
  while ((j = index->has_popcnt ? next_within_popcnt (bucket, j, n, fp, max_distance)
                                : next_within (bucket, j, n, fp, max_distance)) < n)
    {
      const guint64 diff = bucket[j] ^ fp;
      gboolean seen = FALSE;

      /* Copies are neighbours: the first one reports them all. */
      if (!(j > 0 && bucket[j - 1] == bucket[j]))
        {
          for (guint e = 0; e < b && !seen; e++)
            seen = ((diff >> index->shift[e]) & index->mask[e]) == 0;
          if (!seen && b == 0)
            /* Table 0's bucket is the one in hand. */
            for (guint32 p = j; p < n && bucket[p] == bucket[j]; p++)
              {
                const guint32 id = index->perm ? index->perm[base + p] : base + p;

                g_array_append_val (out, id);
                found++;
              }
          else if (!seen)
            found += append_ids (index, bucket[j], out);
        }
      j++;
    }
  return found;
}

/* The tables a lookup scans: one that asks for equal fingerprints needs table 0 alone. */
static inline guint
tables_for (const SimBandIndex *index,
            guint               max_distance)
{
  return max_distance == 0 ? 1 : index->n_tables;
}

/* Work on one query, split in the three steps of its memory accesses so a
 * batch can overlap the cache misses of consecutive queries. */
typedef struct {
  guint64 fp;
  guint32 start[MAX_BLOCKS];
  guint32 end[MAX_BLOCKS];
} Probe;

static inline void
probe_prefetch_offsets (const SimBandIndex *index,
                        guint               n_tables,
                        Probe              *probe)
{
  for (guint b = 0; b < n_tables; b++)
    __builtin_prefetch (&index->offsets[b][block_key (index, b, probe->fp)]);
}

static inline void
probe_prefetch_buckets (const SimBandIndex *index,
                        guint               n_tables,
                        Probe              *probe)
{
  for (guint b = 0; b < n_tables; b++)
    {
      const guint64 key = block_key (index, b, probe->fp);

      probe->start[b] = index->offsets[b][key];
      probe->end[b] = index->offsets[b][key + 1];
      /* The whole bucket: at 10M fingerprints it spans some twenty cache lines. */
      if (index->packed != NULL)
        for (gsize j = (gsize) probe->start[b] * RECORD_BYTES; j < (gsize) probe->end[b] * RECORD_BYTES; j += 64)
          __builtin_prefetch (index->packed + j);
      else
        for (guint32 j = probe->start[b]; j < probe->end[b]; j += 8)
          __builtin_prefetch (&index->tables[b][j]);
    }
}

/* Appends the ids @probe finds, @limit at most. */
static gsize
probe_scan (const SimBandIndex *index,
            const Probe        *probe,
            guint               max_distance,
            guint               limit,
            GArray             *out)
{
  const guint before = out->len;

  if (index->packed != NULL)
    /* A mapped exact index: the run of @fp's copies in its records. */
    return append_record_ids (index->packed + (gsize) probe->start[0] * RECORD_BYTES,
                              probe->end[0] - probe->start[0], probe->fp >> 16, probe->start[0], limit, out);
  for (guint b = 0; b < tables_for (index, max_distance); b++)
    scan_bucket (index, b, index->tables[b] + probe->start[b], probe->end[b] - probe->start[b],
                 probe->start[b], probe->fp, max_distance, limit, out);
  if (out->len - before > limit)
    g_array_set_size (out, before + limit);
  return out->len - before;
}

static void lookup_many_read (const SimBandIndex *index,
                              const guint64      *fps,
                              gsize               n_fps,
                              guint               limit,
                              GArray             *out,
                              guint32            *out_ends);

gsize
sim_band_index_lookup (const SimBandIndex *index,
                       guint64             fp,
                       guint               max_distance,
                       GArray             *out)
{
  Probe probe;

  g_return_val_if_fail (max_distance <= index->max_distance, 0);

  fp &= index->key_mask;
  if (index->fd >= 0)
    {
      const guint before = out->len;
      guint32 end;

      lookup_many_read (index, &fp, 1, G_MAXUINT, out, &end);
      return out->len - before;
    }
  probe.fp = fp;
  probe_prefetch_offsets (index, tables_for (index, max_distance), &probe);
  probe_prefetch_buckets (index, tables_for (index, max_distance), &probe);
  return probe_scan (index, &probe, max_distance, G_MAXUINT, out);
}

/* Queries read from a file a batch at a time, each round of reads of a
 * batch handed to the kernel at once (sim_pread_many()): one at a time,
 * each was a wait for the disk when the file is cold. A bucket of fewer
 * than READ_WHOLE_BELOW records is read whole. In a larger one, the part
 * its fence gives is read, all of it and nothing else: the fence's two
 * entries in a first round, then the records (some 430 bytes at 2.4
 * billion windows, where buckets hold 36,000 records).
 *
 * A file without a fence (written before them) is read as it was: a
 * bucket's records are hash bits, spread over 24 bits, so the run of a
 * query's key starts near n * key / 2^24, off by about sqrt (n) / 2 were
 * they spread evenly. A lookup first reads 4 sqrt (n) records either side
 * of that place, and keeps them when they bracket the run (brackets());
 * those that missed their run are sought again together (seek_again()),
 * and then read whole together. The bits lean: at 10 GB half the first
 * reads missed, and a batch of 128 lookups read 1.4 MB in five rounds. */
#define READ_BATCH 128

typedef struct {
  guint32 start;   /* the bucket's first record */
  guint32 n;       /* its records */
  guint32 lo, hi;  /* the records read, from start */
  gsize   at;      /* where they are in their round's buffer */
  guint   round;   /* the round that found the run, or G_MAXUINT */
  gboolean exact;  /* [lo, hi) holds the run, if there is one */
  guint64 first;   /* the keys read, while it is sought */
  guint64 last;
} Planned;

/* The parts of their buckets the fence of @index gives @n lookups of
 * @plan: each bucket large enough to be read in part has its fence's two
 * entries read, at once; one that does not lie in its bucket (a damaged
 * file) has the bucket read whole. */
static void
read_fences (const SimBandIndex *index,
             const guint64      *fps,
             Planned            *plan,
             guint               n,
             SimRead            *reads)
{
  guint32 fence[READ_BATCH][2];
  guint m = 0;

  for (guint i = 0; i < n; i++)
    if (plan[i].n >= READ_WHOLE_BELOW)
      {
        const guint64 fp = fps[i] & index->key_mask, key = block_key (index, 0, fp);
        const guint64 part = (key << index->fence_bits) + ((fp >> 16) >> (RECORD_BITS - index->fence_bits));

        reads[m++] = (SimRead) { fence[i], sizeof fence[i], index->fence_at + (goffset) (part * sizeof (guint32)) };
      }
  sim_pread_many (index->fd, reads, m, 0);
  for (guint i = 0; i < n; i++)
    {
      Planned *p = &plan[i];

      if (p->n < READ_WHOLE_BELOW)
        continue;
      p->exact = TRUE;
      if (p->start <= fence[i][0] && fence[i][0] <= fence[i][1] && fence[i][1] - p->start <= p->n)
        {
          p->lo = fence[i][0] - p->start;
          p->hi = fence[i][1] - p->start;
        }
    }
}

static void
lookup_many_read (const SimBandIndex *index,
                  const guint64      *fps,
                  gsize               n_fps,
                  guint               limit,
                  GArray             *out,
                  guint32            *out_ends)
{
  enum { ROUNDS = SEEK_STEPS + 2 };  /* the first reads, the seeks, the whole buckets */
  Planned plan[READ_BATCH];
  SimRead reads[READ_BATCH];
  Buffer bufs[ROUNDS] = { { NULL, 0 } };

  for (gsize b0 = 0; b0 < n_fps; b0 += READ_BATCH)
    {
      const guint n = MIN (READ_BATCH, n_fps - b0);

      for (guint i = 0; i < n; i++)
        {
          const guint64 fp = fps[b0 + i] & index->key_mask, key = block_key (index, 0, fp), top = fp >> 16;
          Planned *p = &plan[i];

          p->start = index->offsets[0][key];
          p->n = index->offsets[0][key + 1] - p->start;
          p->lo = 0;
          p->hi = p->n;
          p->round = G_MAXUINT;
          p->exact = FALSE;
          if (p->n >= READ_WHOLE_BELOW && index->fence_bits == 0)
            {
              const guint32 guess = (guint32) (((guint64) p->n * top) >> (SIM_BAND_INDEX_FILE_BITS - 16));
              const guint32 half = 4 * (guint32) sqrt ((double) p->n) + 16;

              p->lo = guess > half ? guess - half : 0;
              p->hi = MIN ((guint64) p->n, (guint64) guess + half);
            }
        }
      if (index->fence_bits > 0)
        read_fences (index, fps + b0, plan, n, reads);
      for (guint round = 0; round < ROUNDS; round++)
        {
          gsize total = 0;
          guint m = 0;

          for (guint i = 0; i < n; i++)
            {
              Planned *p = &plan[i];
              const guint64 top = (fps[b0 + i] & index->key_mask) >> 16;

              if (p->round != G_MAXUINT)
                continue;
              if (round > 0 && (round == ROUNDS - 1 || !seek_again (p->n, top, p->first, p->last, &p->lo, &p->hi)))
                {
                  p->lo = 0;
                  p->hi = p->n;
                }
              p->at = total;
              total += (gsize) (p->hi - p->lo) * RECORD_BYTES;
              reads[m++] = (SimRead) { NULL, (gsize) (p->hi - p->lo) * RECORD_BYTES,
                                       index->tables_at + ((goffset) p->start + p->lo) * RECORD_BYTES };
            }
          if (m == 0)
            break;
          if (total > bufs[round].size)
            {
              bufs[round].size = total;
              bufs[round].data = g_realloc (bufs[round].data, bufs[round].size);
            }
          for (guint i = 0, r = 0; i < n; i++)
            if (plan[i].round == G_MAXUINT)
              reads[r++].buf = bufs[round].data + plan[i].at;
          sim_pread_many (index->fd, reads, m, 0);
          /* The part read brackets the run of @top, or it is sought again. */
          for (guint i = 0; i < n; i++)
            {
              Planned *p = &plan[i];
              const guint64 top = (fps[b0 + i] & index->key_mask) >> 16;
              const guint8 *records = bufs[round].data + p->at;
              const guint32 k = p->hi - p->lo;

              if (p->round != G_MAXUINT)
                continue;
              if (p->exact || k == p->n || brackets (records, p->lo, k, p->n, top))
                p->round = round;
              else
                {
                  p->first = record_at (records, 0);
                  p->last = record_at (records, k - 1);
                }
            }
        }
      for (guint i = 0; i < n; i++)
        {
          const Planned *p = &plan[i];

          append_record_ids (bufs[p->round].data + p->at, p->hi - p->lo, (fps[b0 + i] & index->key_mask) >> 16,
                             p->start + p->lo, limit, out);
          out_ends[b0 + i] = out->len;
        }
    }
  for (guint round = 0; round < ROUNDS; round++)
    g_free (bufs[round].data);
}

void
sim_band_index_lookup_many (const SimBandIndex *index,
                            const guint64      *fps,
                            gsize               n_fps,
                            guint               max_distance,
                            guint               max_hits,
                            GArray             *out,
                            guint32            *out_ends)
{
  const guint limit = max_hits > 0 ? max_hits + 1 : G_MAXUINT;
  Probe ring[PIPELINE];

  g_return_if_fail (max_distance <= index->max_distance);

  if (index->fd >= 0)
    {
      lookup_many_read (index, fps, n_fps, limit, out, out_ends);
      return;
    }
  /* A software pipeline: the offsets of query i + PIPELINE - 1 and the
   * buckets of query i + BUCKET_LEAD are on their way while query i is scanned. */
  for (gsize i = 0; i < n_fps + PIPELINE - 1; i++)
    {
      if (i < n_fps)
        {
          ring[i % PIPELINE].fp = fps[i] & index->key_mask;
          probe_prefetch_offsets (index, tables_for (index, max_distance), &ring[i % PIPELINE]);
        }
      if (i >= PIPELINE - 1 - BUCKET_LEAD && i - (PIPELINE - 1 - BUCKET_LEAD) < n_fps)
        probe_prefetch_buckets (index, tables_for (index, max_distance), &ring[(i - (PIPELINE - 1 - BUCKET_LEAD)) % PIPELINE]);
      if (i >= PIPELINE - 1)
        {
          const gsize q = i - (PIPELINE - 1);

          probe_scan (index, &ring[q % PIPELINE], max_distance, limit, out);
          out_ends[q] = out->len;
        }
    }
}

gsize
sim_band_index_scan (const guint64 *fps,
                     gsize          n_fps,
                     guint64        fp,
                     guint          max_distance,
                     GArray        *out)
{
  gsize n = 0;

  for (gsize i = 0; i < n_fps; i++)
    if (within (fps[i] ^ fp, max_distance))
      {
        guint32 id = i;

        g_array_append_val (out, id);
        n++;
      }
  return n;
}
