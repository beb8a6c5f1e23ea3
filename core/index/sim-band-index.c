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

#include "sim-band-index.h"
#include "sim-parallel.h"

#define MAX_BLOCKS (SIM_BAND_INDEX_MAX_DISTANCE + 1)
#define PIPELINE    6 /* queries in flight in a batched lookup */
#define BUCKET_LEAD 2 /* how many queries ahead buckets are fetched */

struct _SimBandIndex {
  gsize          n_fps;
  guint          max_distance;
  guint          n_blocks;
  guint          n_tables;            /* n_blocks, or 1 for an exact index (k = 0) */
  guint          shift[MAX_BLOCKS];
  guint64        mask[MAX_BLOCKS];
  guint32       *offsets[MAX_BLOCKS]; /* 2^width + 1 bucket starts into tables[b] */
  guint64       *tables[MAX_BLOCKS];  /* all fingerprints grouped by block b */
  guint32       *perm;                /* table-0 position -> caller's id, or NULL */
  gboolean       has_popcnt;
  gboolean       mapped;              /* offsets and tables belong to the caller's memory */
  int            fd;                  /* read from a file: its descriptor (tables NULL), else -1 */
  goffset        tables_at;           /* where table 0 starts in it */
  const guint8  *packed;              /* mapped from a file: table 0's records (tables NULL) */
  guint64        key_mask;            /* the bits of a fingerprint it compares */
  guint          top_shift;           /* where their top byte starts */
};

/* Serialized, table 0 keeps bits 16-39 of each fingerprint (3 bytes, low
 * first): its low 16 are its bucket's key, and an index that can be
 * serialized compares no more than SIM_BAND_INDEX_FILE_BITS. */
#define RECORD_BYTES ((SIM_BAND_INDEX_FILE_BITS - 16) / 8)
#define FILE_MASK    SIM_BAND_INDEX_FILE_MASK

static inline guint64
record_at (const guint8 *records,
           gsize         i)
{
  guint32 v = 0;

  memcpy (&v, records + i * RECORD_BYTES, RECORD_BYTES);
  return GUINT32_FROM_LE (v);
}

static inline guint64
block_key (const SimBandIndex *index,
           guint               b,
           guint64             fp)
{
  return (fp >> index->shift[b]) & index->mask[b];
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
static gpointer
alloc_table (gsize bytes)
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

/* A fingerprint and what travels with it through the sort: its input
 * position, or the caller's 8 bytes (sim_band_index_new_take_pairs()). */
typedef struct {
  guint64 fp;
  guint64 tag;
} Entry;

static SimBandIndex *
index_new (gsize n_fps,
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

#define MAPPED_BUCKETS SIM_BAND_INDEX_FILE_BUCKETS

/* Bytes of table 0's records, padded to a multiple of 8. */
static gsize
records_size (gsize n_fps)
{
  return (n_fps * RECORD_BYTES + 7) / 8 * 8;
}

gsize
sim_band_index_get_serialized_size (gsize n_fps)
{
  return (MAPPED_BUCKETS + 2) * sizeof (guint32) + records_size (n_fps);
}

/* Writes @offsets and then the records of @fps (every @stride words,
 * the bits kept at @shift). */
static gboolean
serialize (const guint32         *offsets,
           const guint64         *fps,
           gsize                  n_fps,
           guint                  stride,
           guint                  shift,
           SimBandIndexWriteFunc  write,
           gpointer               user_data)
{
  static const guint32 pad = 0;
  enum { CHUNK = 1 << 16 };
  g_autofree guint8 *out = g_new0 (guint8, CHUNK * RECORD_BYTES + 8);

  /* MAPPED_BUCKETS + 1 offsets and one word of padding keep the table 8-aligned. */
  if (!write (offsets, (MAPPED_BUCKETS + 1) * sizeof (guint32), user_data) ||
      !write (&pad, sizeof pad, user_data))
    return FALSE;
  for (gsize i0 = 0; i0 < n_fps; i0 += CHUNK)
    {
      const gsize m = MIN (CHUNK, n_fps - i0);
      gsize len = m * RECORD_BYTES;

      for (gsize i = 0; i < m; i++)
        {
          const guint32 v = GUINT32_TO_LE ((guint32) (fps[(i0 + i) * stride] >> shift));

          memcpy (out + i * RECORD_BYTES, &v, RECORD_BYTES);
        }
      if (i0 + m == n_fps)
        {
          memset (out + len, 0, 8);
          len = records_size (n_fps) - i0 * RECORD_BYTES;
        }
      if (!write (out, len, user_data))
        return FALSE;
    }
  return TRUE;
}

gboolean
sim_band_index_serialize (const SimBandIndex    *index,
                          SimBandIndexWriteFunc  write,
                          gpointer               user_data)
{
  g_return_val_if_fail (index->n_tables == 1 && index->mask[0] + 1 == MAPPED_BUCKETS && index->perm == NULL &&
                        index->key_mask == FILE_MASK, FALSE);
  return serialize (index->offsets[0], index->tables[0], index->n_fps, 1, 16, write, user_data);
}

gboolean
sim_band_index_serialize_pairs (const guint64         *pairs,
                                gsize                  n_fps,
                                const guint32         *offsets,
                                SimBandIndexWriteFunc  write,
                                gpointer               user_data)
{
  return serialize (offsets, pairs, n_fps, 2, 16, write, user_data);
}

gboolean
sim_band_index_serialize_records (const guint64         *records,
                                  gsize                  n_fps,
                                  const guint32         *offsets,
                                  SimBandIndexWriteFunc  write,
                                  gpointer               user_data)
{
  return serialize (offsets, records, n_fps, 1, 32, write, user_data);
}

SimBandIndex *
sim_band_index_new_mapped (const guint8 *data,
                           gsize         len,
                           gsize         n_fps)
{
  SimBandIndex *index;

  if (len != sim_band_index_get_serialized_size (n_fps) || n_fps >= G_MAXUINT32 || ((guintptr) data & 7) != 0)
    return NULL;
  index = index_new (n_fps, 0);
  index->key_mask = FILE_MASK;
  index->mapped = TRUE;
  {
    guint32 *offsets = (guint32 *) data;

    index->offsets[0] = offsets;
    index->packed = data + (MAPPED_BUCKETS + 2) * sizeof (guint32);
    /* Buckets that start at 0, never go back and end at n_fps: every read stays inside. */
    if (offsets[0] != 0 || offsets[MAPPED_BUCKETS] != n_fps)
      goto damaged;
    for (guint k = 0; k < MAPPED_BUCKETS; k++)
      if (offsets[k + 1] < offsets[k])
        goto damaged;
  }
  return index;

damaged:
  sim_band_index_free (index);
  return NULL;
}


SimBandIndex *
sim_band_index_new_read (int     fd,
                         goffset offset,
                         gsize   n_fps)
{
  SimBandIndex *index;

  if (fd < 0 || n_fps >= G_MAXUINT32)
    return NULL;
  index = index_new (n_fps, 0);
  index->key_mask = FILE_MASK;
  index->tables_at = offset + (MAPPED_BUCKETS + 2) * sizeof (guint32);
  {
    guint32 *offsets = g_new (guint32, MAPPED_BUCKETS + 2);

    index->offsets[0] = offsets;
    sim_pread_full (fd, offsets, (MAPPED_BUCKETS + 2) * sizeof (guint32), offset, 0);
    /* As for a mapped index: every read stays inside the table. */
    if (offsets[0] != 0 || offsets[MAPPED_BUCKETS] != n_fps)
      goto damaged;
    for (guint k = 0; k < MAPPED_BUCKETS; k++)
      if (offsets[k + 1] < offsets[k])
        goto damaged;
  }
  index->fd = dup (fd);
  if (index->fd < 0)
    goto damaged;
  return index;

damaged:
  sim_band_index_free (index);
  return NULL;
}

typedef struct {
  SimBandIndex *index;
  gint          next;   /* the next table to build */
} TablesJob;

static void
build_tables_worker (gpointer data)
{
  TablesJob *job = data;
  SimBandIndex *index = job->index;
  gint b;

  while ((b = g_atomic_int_add (&job->next, 1)) < (gint) index->n_tables)
    {
      const gsize n_fps = index->n_fps;
      const gsize n_buckets = index->mask[b] + 1;
      const guint64 *src = index->tables[0];
      guint32 *offsets = g_new0 (guint32, n_buckets + 1);
      guint64 *table = alloc_table (n_fps * sizeof (guint64));
      g_autofree guint32 *fill = NULL;

      for (gsize i = 0; i < n_fps; i++)
        offsets[block_key (index, b, src[i]) + 1]++;
      for (gsize k = 0; k < n_buckets; k++)
        offsets[k + 1] += offsets[k];
      fill = g_memdup2 (offsets, n_buckets * sizeof (guint32));
      for (gsize i = 0; i < n_fps; i++)
        table[fill[block_key (index, b, src[i])]++] = src[i];
      index->offsets[b] = offsets;
      index->tables[b] = table;
    }
}

/* One pass of the byte-wide radix sort of table 0, over shares of the
 * entries on several threads. */
#define RADIX_PARTS 16

typedef struct {
  const Entry *from;
  Entry       *to;
  gsize        n;
  guint        shift;
  guint64      mask;
  guint        n_parts;
  gint         next;
  gboolean     scatter;
  gsize        fill[RADIX_PARTS][256];  /* counts, then where each share's bucket starts */
} RadixJob;

/* Counts each share's entries by bucket or, with @scatter, puts them
 * where the counts (made starts) say. */
static void
radix_worker (gpointer data)
{
  RadixJob *job = data;
  gint t;

  while ((t = g_atomic_int_add (&job->next, 1)) < (gint) job->n_parts)
    {
      const gsize lo = job->n * t / job->n_parts, hi = job->n * (t + 1) / job->n_parts;
      gsize *fill = job->fill[t];

      for (gsize i = lo; i < hi; i++)
        {
          const guint k = (job->from[i].fp >> job->shift) & job->mask;

          if (job->scatter)
            job->to[fill[k]++] = job->from[i];
          else
            fill[k]++;
        }
    }
}

/* Sorting pairs in place (sim_band_index_new_take_pairs()): the entries
 * by (bucket, the bits kept, the caller's 8 bytes), which for bytes that grow
 * with the input (places) is the stable sort's order. No second array: on
 * a virtual machine every fresh page costs more than the sort that fills
 * it. */
typedef struct {
  Entry         *e;
  const guint32 *offsets;   /* MAPPED_BUCKETS + 1 */
  gint           next;      /* the next group of 256 buckets (or share, counting) */
  guint          n_shares;
  gsize          n;
  guint32      (*counts)[MAPPED_BUCKETS];
} PairsJob;

static void
count_worker (gpointer data)
{
  PairsJob *job = data;
  gint t;

  while ((t = g_atomic_int_add (&job->next, 1)) < (gint) job->n_shares)
    {
      const gsize lo = job->n * t / job->n_shares, hi = job->n * (t + 1) / job->n_shares;
      guint32 *counts = job->counts[t];

      for (gsize i = lo; i < hi; i++)
        counts[job->e[i].fp & (MAPPED_BUCKETS - 1)]++;
    }
}

/* Permutes @e so that entries of digit d (bits @shift on, @n_digits <= 256
 * of them) lie in [start[d], start[d + 1]): each entry is moved at most
 * once to its place (American flag sort). */
static void
flag_sort (Entry       *e,
           const gsize *start,
           guint        shift,
           guint        n_digits)
{
  const guint mask = n_digits - 1;
  gsize next[256];

  memcpy (next, start, n_digits * sizeof (gsize));
  for (guint d = 0; d < n_digits; d++)
    while (next[d] < start[d + 1])
      {
        Entry x = e[next[d]];
        guint k = (x.fp >> shift) & mask;

        while (k != d)
          {
            const Entry y = e[next[k]];

            e[next[k]++] = x;
            x = y;
            k = (x.fp >> shift) & mask;
          }
        e[next[d]++] = x;
      }
}

static inline gboolean
entry_before (const Entry *a,
              const Entry *b)
{
  return a->fp != b->fp ? a->fp < b->fp : a->tag < b->tag;
}

/* Group g (buckets 256 g .. 256 g + 255): two counting passes through a
 * scratch array of the group's size, by the top byte of the bits kept
 * (bits 40-47) and then by the bucket's low byte, leave only runs that
 * agree on both, which an insertion sort orders. */
static void
group_worker (gpointer data)
{
  PairsJob *job = data;
  g_autofree Entry *scratch = NULL;
  gsize scratch_len = 0;
  gint g;

  while ((g = g_atomic_int_add (&job->next, 1)) < 256)
    {
      const gsize lo = job->offsets[256 * g], m = job->offsets[MIN (256 * (g + 1), MAPPED_BUCKETS)] - lo;
      Entry *e = job->e + lo;
      gsize top[257] = { 0 }, low[257] = { 0 };

      if (m < 2)
        continue;
      if (m > scratch_len)
        {
          scratch_len = MAX (m, 2 * scratch_len);
          g_free (scratch);
          scratch = g_new (Entry, scratch_len);
        }
      for (gsize i = 0; i < m; i++)
        {
          top[((e[i].fp >> 40) & 0xff) + 1]++;
          low[(e[i].fp & 0xff) + 1]++;
        }
      for (guint k = 0; k < 256; k++)
        {
          top[k + 1] += top[k];
          low[k + 1] += low[k];
        }
      for (gsize i = 0; i < m; i++)
        scratch[top[(e[i].fp >> 40) & 0xff]++] = e[i];
      for (gsize i = 0; i < m; i++)
        e[low[scratch[i].fp & 0xff]++] = scratch[i];
      for (gsize i = 1; i < m; i++)
        {
          const Entry x = e[i];
          gsize j = i;

          while (j > 0 && (e[j - 1].fp & 0xff) == (x.fp & 0xff) && ((e[j - 1].fp ^ x.fp) >> 40) == 0 &&
                 entry_before (&x, &e[j - 1]))
            {
              e[j] = e[j - 1];
              j--;
            }
          e[j] = x;
        }
    }
}

static void
half_worker (gpointer data)
{
  PairsJob *job = data;
  gint h;

  while ((h = g_atomic_int_add (&job->next, 1)) < 2)
    {
      gsize start[129];

      for (guint d = 0; d <= 128; d++)
        start[d] = job->offsets[(128 * h + d) * 256];
      flag_sort (job->e, start, 8, 128);
    }
}

/* Sorts @e (fingerprints cut to FILE_MASK) in place and fills @offsets
 * (MAPPED_BUCKETS + 1) with where each bucket starts. */
static void
sort_pairs_in_place (Entry   *e,
                     gsize    n,
                     guint32 *offsets)
{
  const guint n_shares = MIN (sim_parallel_default_threads (), 16);
  PairsJob job = { e, offsets, 0, n_shares, n, g_malloc0 (n_shares * sizeof (guint32[MAPPED_BUCKETS])) };

  sim_parallel_run (n_shares, count_worker, &job);
  offsets[0] = 0;
  for (guint k = 0; k < MAPPED_BUCKETS; k++)
    {
      guint32 c = 0;

      for (guint t = 0; t < n_shares; t++)
        c += job.counts[t][k];
      offsets[k + 1] = offsets[k] + c;
    }
  g_free (job.counts);
  /* The two halves of the buckets apart (entries streamed from both ends),
   * then each half by the rest of the bucket's high byte on a thread of
   * its own, then each group of 256 buckets on its own. */
  {
    const gsize split = offsets[MAPPED_BUCKETS / 2];

    for (gsize i = 0, j = split; i < split; i++)
      if (e[i].fp & (MAPPED_BUCKETS / 2))
        {
          Entry x;

          while (e[j].fp & (MAPPED_BUCKETS / 2))
            j++;
          x = e[i];
          e[i] = e[j];
          e[j++] = x;
        }
  }
  job.next = 0;
  sim_parallel_run (2, half_worker, &job);
  job.next = 0;
  sim_parallel_run (MIN (sim_parallel_default_threads (), 256), group_worker, &job);
}

typedef struct {
  guint64       *records;
  const guint32 *offsets;
  gint           next;     /* the next group of 256 buckets */
} RecordsJob;

static int
compare_words (gconstpointer a,
               gconstpointer b)
{
  const guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

/* Sorts @n words: an insertion sort, or qsort() for a long run (copies
 * of one fingerprint: repeated text). */
static void
sort_run (guint64 *r,
          gsize    n)
{
  if (n > 64)
    {
      qsort (r, n, sizeof *r, compare_words);
      return;
    }
  for (gsize i = 1; i < n; i++)
    {
      const guint64 x = r[i];
      gsize j = i;

      for (; j > 0 && r[j - 1] > x; j--)
        r[j] = r[j - 1];
      r[j] = x;
    }
}

/* The top byte of a record's bits (a record keeps SIM_BAND_INDEX_FILE_BITS
 * - 16 of them above its caller's 32). */
#define RECORD_TOP_SHIFT (32 + SIM_BAND_INDEX_FILE_BITS - 16 - 8)

/* Each bucket: its records by the top byte of their bits through a
 * scratch array and back, then each run of one top byte sorted (a
 * bucket's bits are spread evenly: runs of a few); buckets of a few
 * records sorted whole. */
static void
records_worker (gpointer data)
{
  RecordsJob *job = data;
  g_autofree guint64 *scratch = NULL;
  gsize scratch_len = 0;
  gint g;

  while ((g = g_atomic_int_add (&job->next, 1)) < MAPPED_BUCKETS / 256)
    for (guint k = 256 * g; k < 256 * (guint) (g + 1); k++)
      {
        guint64 *r = job->records + job->offsets[k];
        const gsize m = job->offsets[k + 1] - job->offsets[k];
        gsize at[256] = { 0 };

        if (m < 32)
          {
            sort_run (r, m);
            continue;
          }
        if (m > scratch_len)
          {
            scratch_len = MAX (m, 2 * scratch_len);
            g_free (scratch);
            scratch = g_new (guint64, scratch_len);
          }
        for (gsize i = 0; i < m; i++)
          at[(r[i] >> RECORD_TOP_SHIFT) & 0xff]++;
        for (gsize d = 0, sum = 0; d < 256; d++)
          {
            const gsize c = at[d];

            at[d] = sum;
            sum += c;
          }
        for (gsize i = 0; i < m; i++)
          scratch[at[(r[i] >> RECORD_TOP_SHIFT) & 0xff]++] = r[i];
        memcpy (r, scratch, m * sizeof *r);
        /* at[d] is now where digit d's run ends. */
        for (gsize d = 0, from = 0; d < 256; from = at[d++])
          sort_run (r + from, at[d] - from);
      }
}

void
sim_band_index_sort_records (guint64       *records,
                             const guint32 *offsets)
{
  RecordsJob job = { records, offsets, 0 };

  sim_parallel_run (MIN (sim_parallel_default_threads (), MAPPED_BUCKETS / 256), records_worker, &job);
}

static SimBandIndex *index_build (const guint64 *fps, guint64 *owned, gsize n_fps, guint max_distance,
                                  guint32 **out_order, guint64 key_mask);

SimBandIndex *
sim_band_index_new (const guint64  *fps,
                    gsize           n_fps,
                    guint           max_distance,
                    guint32       **out_order)
{
  return index_build (fps, NULL, n_fps, max_distance, out_order, G_MAXUINT64);
}

SimBandIndex *
sim_band_index_new_take (guint64  *fps,
                         gsize     n_fps,
                         guint32 **out_order)
{
  return index_build (fps, fps, n_fps, 0, out_order, FILE_MASK);
}

void
sim_band_index_sort_pairs (guint64 *pairs,
                           gsize    n_fps,
                           guint32 *offsets)
{
  Entry *e = (Entry *) pairs;

  g_return_if_fail (n_fps < G_MAXUINT32);
  G_STATIC_ASSERT (sizeof (Entry) == 2 * sizeof (guint64));
  for (gsize i = 0; i < n_fps; i++)
    e[i].fp &= FILE_MASK;
  sort_pairs_in_place (e, n_fps, offsets);
}

/* Exact, over FILE_MASK: the pairs sorted where they are, then table 0 in
 * fresh memory and the caller's bytes moved down in place (word i of the
 * payload is read from word 2 i + 1, never written before). */
SimBandIndex *
sim_band_index_new_take_pairs (guint64  *pairs,
                               gsize     n_fps,
                               guint64 **out_payload)
{
  SimBandIndex *index;
  guint64 *table;

  g_return_val_if_fail (pairs != NULL && out_payload != NULL, NULL);
  g_return_val_if_fail (n_fps < G_MAXUINT32, NULL);

  index = index_new (n_fps, 0);
  index->key_mask = FILE_MASK;
  index->top_shift = g_bit_storage (FILE_MASK) - 8;
  index->offsets[0] = g_new (guint32, MAPPED_BUCKETS + 1);
  g_assert (index->mask[0] + 1 == MAPPED_BUCKETS);
  sim_band_index_sort_pairs (pairs, n_fps, index->offsets[0]);
  table = g_new (guint64, MAX (n_fps, 1));
  for (gsize i = 0; i < n_fps; i++)
    table[i] = pairs[2 * i];
  for (gsize i = 0; i < n_fps; i++)
    pairs[i] = pairs[2 * i + 1];
  index->tables[0] = table;
  *out_payload = g_realloc (pairs, MAX (n_fps, 1) * sizeof (guint64));
  return index;
}

/* @owned, when not NULL, is @fps, freed as soon as table 0 holds a copy.
 * The index keeps and compares the bits of @key_mask (the low ones) of
 * each fingerprint. */
static SimBandIndex *
index_build (const guint64  *fps,
             guint64        *owned,
             gsize           n_fps,
             guint           max_distance,
             guint32       **out_order,
             guint64         key_mask)
{
  SimBandIndex *index;
  Entry *entries, *spare;

  g_return_val_if_fail (fps != NULL || n_fps == 0, NULL);
  g_return_val_if_fail (max_distance <= SIM_BAND_INDEX_MAX_DISTANCE, NULL);
  g_return_val_if_fail (n_fps < G_MAXUINT32, NULL);

  index = index_new (n_fps, max_distance);
  index->key_mask = key_mask;
  index->top_shift = g_bit_storage (key_mask) - 8;

  /* Table 0: sorted by (block 0, value), so equal fingerprints are
   * neighbours and a bucket can be binary searched. Stable counting sorts
   * of a byte each (256 buckets stay in the caches; 65,536 did not), by
   * the top 8 bits kept and then by block 0 low byte first, leave only
   * fingerprints agreeing on both in a bucket's runs, which an insertion
   * sort orders (a comparison sort of every bucket took a tenth of an
   * import). */
  {
    const gsize n_buckets = index->mask[0] + 1;
    const guint key_bits = g_bit_storage (index->mask[0]);
    guint32 *offsets = g_new0 (guint32, n_buckets + 1);
    Entry *from = g_new (Entry, MAX (n_fps, 1)), *to;

    G_STATIC_ASSERT (sizeof (Entry) == 2 * sizeof (guint64));
    for (gsize i = 0; i < n_fps; i++)
      {
        from[i].fp = fps[i] & key_mask;
        from[i].tag = i;
        offsets[block_key (index, 0, from[i].fp) + 1]++;
      }
    for (gsize k = 0; k < n_buckets; k++)
      offsets[k + 1] += offsets[k];
    /* The entries hold every fingerprint now: the caller's copy would only
     * add 8 bytes a fingerprint to the peak while the other tables are built. */
    g_free (owned);
    fps = NULL;
    to = g_new (Entry, MAX (n_fps, 1));
    for (guint pass = 0; pass == 0 || (pass - 1) * 8 < key_bits; pass++)
      {
        const guint shift = pass == 0 ? index->top_shift : index->shift[0] + (pass - 1) * 8;
        const guint64 mask = pass == 0 ? 0xff : ((guint64) 1 << MIN (8, key_bits - (pass - 1) * 8)) - 1;
        RadixJob job = { from, to, n_fps, shift, mask, MIN (sim_parallel_default_threads (), RADIX_PARTS), 0, FALSE,
                         { { 0 } } };
        gsize at = 0;
        Entry *swap;

        /* Each thread counts a share of the entries, then puts them where
         * the counts say: a share's entries of a bucket follow those of the
         * shares before it, so the sort stays stable. */
        if (n_fps < (1u << 16))
          job.n_parts = 1;
        sim_parallel_run (job.n_parts, radix_worker, &job);
        for (guint k = 0; k < 256; k++)
          for (guint t = 0; t < job.n_parts; t++)
            {
              const gsize c = job.fill[t][k];

              job.fill[t][k] = at;
              at += c;
            }
        job.next = 0;
        job.scatter = TRUE;
        sim_parallel_run (job.n_parts, radix_worker, &job);
        swap = from;
        from = to;
        to = swap;
      }
    entries = from;
    spare = to;
    for (gsize i = 1; i < n_fps; i++)
      {
        const Entry e = entries[i];
        gsize j = i;

        /* Only neighbours in one bucket with the same top bits can be out
         * of order; equal fingerprints stay in input order (the counting
         * sorts are stable, and so is this one). */
        while (j > 0 && entries[j - 1].fp >> index->top_shift == e.fp >> index->top_shift &&
               block_key (index, 0, entries[j - 1].fp) == block_key (index, 0, e.fp) &&
               entries[j - 1].fp > e.fp)
          {
            entries[j] = entries[j - 1];
            j--;
          }
        entries[j] = e;
      }
    /* Others in memory meant for random lookups. */
    {
      guint64 *table = alloc_table (n_fps * sizeof (guint64));

      for (gsize i = 0; i < n_fps; i++)
        table[i] = entries[i].fp;
      index->tables[0] = table;
      g_clear_pointer (&spare, g_free);
    }
    index->offsets[0] = offsets;
  }

  if (out_order != NULL)
    {
      guint32 *order = g_new (guint32, MAX (n_fps, 1));

      for (gsize i = 0; i < n_fps; i++)
        order[i] = entries[i].tag;
      *out_order = order;
    }
  else if (entries != NULL)
    {
      index->perm = g_new (guint32, MAX (n_fps, 1));
      for (gsize i = 0; i < n_fps; i++)
        index->perm[i] = entries[i].tag;
    }
  /* 16 bytes a fingerprint, not kept while the other tables are built. */
  g_free (entries);
  g_free (spare);

  /* Other tables: stable counting sort of table 0 by their block, which keeps
   * equal fingerprints next to each other; one table per thread. */
  {
    TablesJob job = { index, 1 };

    if (index->n_tables > 1)
      sim_parallel_run (MIN (sim_parallel_default_threads (), index->n_tables - 1), build_tables_worker, &job);
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

  if (index->fd >= 0 || index->packed != NULL)
    {
      /* Bucket by bucket, records read a piece at a time from a file. */
      enum { CHUNK = 1 << 16 };
      g_autofree guint8 *buf = index->fd >= 0 ? g_new (guint8, CHUNK * RECORD_BYTES + 8) : NULL;
      gsize have_from = 0, have_to = 0;  /* records in buf */

      for (gsize k = 0; k < MAPPED_BUCKETS; k++)
        for (guint32 p = index->offsets[0][k]; p < index->offsets[0][k + 1];)
          {
            const guint8 *records;
            gsize m;

            if (index->packed != NULL)
              {
                records = index->packed + (gsize) p * RECORD_BYTES;
                m = index->offsets[0][k + 1] - p;
              }
            else
              {
                if (p < have_from || p >= have_to)
                  {
                    have_from = p;
                    have_to = MIN (index->n_fps, p + CHUNK);
                    sim_pread_full (index->fd, buf, (have_to - have_from) * RECORD_BYTES,
                                    index->tables_at + (goffset) have_from * RECORD_BYTES, 0);
                  }
                records = buf + (p - have_from) * RECORD_BYTES;
                m = MIN (index->offsets[0][k + 1], have_to) - p;
              }
            expand_records (fps + p, records, m, k);
            p += m;
          }
    }
  else if (index->perm != NULL)
    for (gsize p = 0; p < index->n_fps; p++)
      fps[index->perm[p]] = index->tables[0][p];
  else if (index->n_fps > 0)
    memcpy (fps, index->tables[0], index->n_fps * sizeof (guint64));
  return fps;
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
static guint32
lower_bound (const guint64 *bucket,
             guint32        n,
             guint64        fp)
{
  guint32 lo = 0, hi = n;

  while (lo < hi)
    {
      const guint32 mid = lo + (hi - lo) / 2;

      if (bucket[mid] < fp)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

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

  for (guint32 p = start + lower_bound (table + start, end - start, fp); p < end && table[p] == fp; p++)
    {
      const guint32 id = index->perm ? index->perm[p] : p;

      g_array_append_val (out, id);
      n++;
    }
  return n;
}

/* Appends the ids (from @base) of the run of records equal to @top among
 * the @n sorted records of a bucket of table 0 as a file keeps it. */
static gsize
append_record_ids (const guint8 *records,
                   guint32       n,
                   guint64       top,
                   guint32       base,
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
  for (; lo < n && record_at (records, lo) == top; lo++, found++)
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
 * put the query (below); smaller ones whole. */
#define READ_WHOLE_BELOW 256

static void
read_records (const SimBandIndex *index,
              Buffer             *buf,
              guint32             from,
              guint32             n)
{
  if ((gsize) n * RECORD_BYTES > buf->size)
    {
      buf->size = (gsize) n * RECORD_BYTES;
      buf->data = g_realloc (buf->data, buf->size);
    }
  sim_pread_full (index->fd, buf->data, (gsize) n * RECORD_BYTES, index->tables_at + (goffset) from * RECORD_BYTES, 0);
}

/* The whole bucket of @n records from @start. */
static gsize
lookup_read_whole (const SimBandIndex *index,
                   guint32             start,
                   guint32             n,
                   guint64             top,
                   GArray             *out,
                   Buffer             *buf)
{
  read_records (index, buf, start, n);
  return append_record_ids (buf->data, n, top, start, out);
}

/* The records of a bucket are hash bits, spread evenly over 32 bits: in a
 * bucket of n, the run of @top starts near n * top / 2^24, off by about
 * sqrt (n) / 2. A lookup reads 4 sqrt (n) records either side of that place
 * (1.9 KB in a bucket of 3,400 at a billion characters, instead of 13 KB)
 * and keeps them when they bracket the run: the first below @top (or the
 * bucket's start) and the last above it (or its end). Otherwise (keys bunched
 * by repeated text, or a damaged file) it reads the whole bucket. */
static gsize
lookup_read (const SimBandIndex *index,
             guint64             fp,
             GArray             *out,
             Buffer             *buf)
{
  const guint64 key = block_key (index, 0, fp), top = fp >> 16;
  const guint32 start = index->offsets[0][key], n = index->offsets[0][key + 1] - start;

  if (n == 0)
    return 0;
  if (n >= READ_WHOLE_BELOW)
    {
      const guint32 guess = (guint32) (((guint64) n * top) >> (SIM_BAND_INDEX_FILE_BITS - 16));
      const guint32 half = 4 * (guint32) sqrt ((double) n) + 16;
      const guint32 lo = guess > half ? guess - half : 0;
      const guint32 hi = MIN ((guint64) n, (guint64) guess + half);

      read_records (index, buf, start + lo, hi - lo);
      if ((lo == 0 || record_at (buf->data, 0) < top) && (hi == n || record_at (buf->data, hi - lo - 1) > top))
        return append_record_ids (buf->data, hi - lo, top, start + lo, out);
    }
  return lookup_read_whole (index, start, n, top, out, buf);
}

/* Finds in the @n fingerprints of table @b's bucket @bucket (the table's
 * positions from @base) those within @max_distance of @fp, and appends the
 * ids of each from the first block it agrees on. */
static gsize
scan_bucket (const SimBandIndex *index,
             guint               b,
             const guint64      *bucket,
             guint32             n,
             guint32             base,
             guint64             fp,
             guint               max_distance,
             GArray             *out)
{
  gsize found = 0;
  guint32 j = 0;

  if (max_distance == 0)
    {
      /* Only table 0 is scanned, and its bucket is sorted: the copies of
       * @fp are one run in it. */
      for (guint32 p = lower_bound (bucket, n, fp); p < n && bucket[p] == fp; p++)
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

static gsize
probe_scan (const SimBandIndex *index,
            const Probe        *probe,
            guint               max_distance,
            GArray             *out)
{
  gsize n = 0;

  if (index->packed != NULL)
    /* A mapped exact index: the run of @fp's copies in its records. */
    return append_record_ids (index->packed + (gsize) probe->start[0] * RECORD_BYTES,
                              probe->end[0] - probe->start[0], probe->fp >> 16, probe->start[0], out);
  for (guint b = 0; b < tables_for (index, max_distance); b++)
    n += scan_bucket (index, b, index->tables[b] + probe->start[b], probe->end[b] - probe->start[b],
                      probe->start[b], probe->fp, max_distance, out);
  return n;
}

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
      Buffer bucket = { NULL, 0 };
      const gsize found = lookup_read (index, fp, out, &bucket);

      g_free (bucket.data);
      return found;
    }
  probe.fp = fp;
  probe_prefetch_offsets (index, tables_for (index, max_distance), &probe);
  probe_prefetch_buckets (index, tables_for (index, max_distance), &probe);
  return probe_scan (index, &probe, max_distance, out);
}

/* Queries read from a file a batch at a time: the part of each one's
 * bucket its key points to (lookup_read()), a batch's reads at once
 * (sim_pread_many()). */
#define READ_BATCH 128

typedef struct {
  guint32 start;   /* the bucket's first record */
  guint32 n;       /* its records */
  guint32 lo, hi;  /* the records read, from start */
  gsize   at;      /* where they are in the batch's buffer */
} Planned;


static void
lookup_many_read (const SimBandIndex *index,
                  const guint64      *fps,
                  gsize               n_fps,
                  GArray             *out,
                  guint32            *out_ends)
{
  Planned plan[READ_BATCH];
  SimRead reads[READ_BATCH];
  Buffer batch = { NULL, 0 }, bucket = { NULL, 0 };

  for (gsize b0 = 0; b0 < n_fps; b0 += READ_BATCH)
    {
      const guint n = MIN (READ_BATCH, n_fps - b0);
      gsize total = 0;

      for (guint i = 0; i < n; i++)
        {
          const guint64 fp = fps[b0 + i] & index->key_mask, key = block_key (index, 0, fp), top = fp >> 16;
          Planned *p = &plan[i];

          p->start = index->offsets[0][key];
          p->n = index->offsets[0][key + 1] - p->start;
          p->lo = 0;
          p->hi = p->n;
          if (p->n >= READ_WHOLE_BELOW)
            {
              const guint32 guess = (guint32) (((guint64) p->n * top) >> (SIM_BAND_INDEX_FILE_BITS - 16));
              const guint32 half = 4 * (guint32) sqrt ((double) p->n) + 16;

              p->lo = guess > half ? guess - half : 0;
              p->hi = MIN ((guint64) p->n, (guint64) guess + half);
            }
          p->at = total;
          total += (gsize) (p->hi - p->lo) * RECORD_BYTES;
        }
      if (total > batch.size)
        {
          batch.size = total;
          batch.data = g_realloc (batch.data, batch.size);
        }
      for (guint i = 0; i < n; i++)
        reads[i] = (SimRead) { batch.data + plan[i].at, (gsize) (plan[i].hi - plan[i].lo) * RECORD_BYTES,
                               index->tables_at + ((goffset) plan[i].start + plan[i].lo) * RECORD_BYTES };
      sim_pread_many (index->fd, reads, n, 0);
      for (guint i = 0; i < n; i++)
        {
          const Planned *p = &plan[i];
          const guint64 top = (fps[b0 + i] & index->key_mask) >> 16;
          const guint8 *records = batch.data + p->at;
          const guint32 m = p->hi - p->lo;

          /* The part read brackets the run of @top, or the bucket is read whole. */
          if (m == p->n || ((p->lo == 0 || record_at (records, 0) < top) &&
                            (p->hi == p->n || record_at (records, m - 1) > top)))
            append_record_ids (records, m, top, p->start + p->lo, out);
          else
            lookup_read_whole (index, p->start, p->n, top, out, &bucket);
          out_ends[b0 + i] = out->len;
        }
    }
  g_free (batch.data);
  g_free (bucket.data);
}

void
sim_band_index_lookup_many (const SimBandIndex *index,
                            const guint64      *fps,
                            gsize               n_fps,
                            guint               max_distance,
                            GArray             *out,
                            guint32            *out_ends)
{
  Probe ring[PIPELINE];

  g_return_if_fail (max_distance <= index->max_distance);

  if (index->fd >= 0)
    {
      lookup_many_read (index, fps, n_fps, out, out_ends);
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

          probe_scan (index, &ring[q % PIPELINE], max_distance, out);
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
