/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Building the band index: fingerprints sorted into a table per block on
 * every core (radix sorts, in place where the caller gives up its array).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sim-band-index-private.h"
#include "sim-parallel.h"

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
      guint64 *table = _sim_band_index_alloc (n_fps * sizeof (guint64));
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
  guint64       *records;  /* bucket lo's first */
  const guint32 *offsets;
  guint          lo, hi;
  guint          top_shift; /* of the top byte of a record's bits */
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
 * - 16 of them above its caller's @pos_bits). */
#define RECORD_TOP_SHIFT(pos_bits) ((pos_bits) + SIM_BAND_INDEX_FILE_BITS - 16 - 8)

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

  while ((g = g_atomic_int_add (&job->next, 1)) < (gint) ((job->hi - job->lo + 255) / 256))
    for (guint k = job->lo + 256 * g; k < MIN (job->lo + 256 * (g + 1), job->hi); k++)
      {
        guint64 *r = job->records + (job->offsets[k] - job->offsets[job->lo]);
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
          at[(r[i] >> job->top_shift) & 0xff]++;
        for (gsize d = 0, sum = 0; d < 256; d++)
          {
            const gsize c = at[d];

            at[d] = sum;
            sum += c;
          }
        for (gsize i = 0; i < m; i++)
          scratch[at[(r[i] >> job->top_shift) & 0xff]++] = r[i];
        memcpy (r, scratch, m * sizeof *r);
        /* at[d] is now where digit d's run ends. */
        for (gsize d = 0, from = 0; d < 256; from = at[d++])
          sort_run (r + from, at[d] - from);
      }
}

void
sim_band_index_sort_records (guint64       *records,
                             const guint32 *offsets,
                             guint          pos_bits)
{
  sim_band_index_sort_records_range (records, offsets, 0, MAPPED_BUCKETS, pos_bits, sim_parallel_default_threads ());
}

void
sim_band_index_sort_records_range (guint64       *records,
                                   const guint32 *offsets,
                                   guint          lo,
                                   guint          hi,
                                   guint          pos_bits,
                                   guint          n_threads)
{
  RecordsJob job = { records, offsets, lo, hi, RECORD_TOP_SHIFT (pos_bits), 0 };

  g_return_if_fail (lo <= hi && hi <= MAPPED_BUCKETS);
  g_return_if_fail (pos_bits + SIM_BAND_INDEX_FILE_BITS - 16 <= 64);
  sim_parallel_run (MIN (n_threads, MAX ((hi - lo) / 256, 1)), records_worker, &job);
}

/* Entries of a bucket (masked to FILE_MASK, all of one bucket) in the
 * order of entry_before(): an insertion sort, or qsort() for a long run
 * (sort_run() with entries). */
static int
compare_entries (gconstpointer a,
                 gconstpointer b)
{
  return entry_before (a, b) ? -1 : entry_before (b, a);
}

static void
sort_entries (Entry *r,
              gsize  n)
{
  if (n > 64)
    {
      qsort (r, n, sizeof *r, compare_entries);
      return;
    }
  for (gsize i = 1; i < n; i++)
    {
      const Entry x = r[i];
      gsize j = i;

      for (; j > 0 && entry_before (&x, &r[j - 1]); j--)
        r[j] = r[j - 1];
      r[j] = x;
    }
}

typedef struct {
  Entry         *e;        /* bucket lo's first entry */
  const guint32 *offsets;
  guint          lo, hi;
  gint           next;     /* the next group of 64 buckets */
} RangeJob;

/* Each bucket: by the top byte of the bits kept through a scratch array
 * and back, then each run of one top byte sorted (records_worker() with
 * entries). */
static void
range_worker (gpointer data)
{
  RangeJob *job = data;
  g_autofree Entry *scratch = NULL;
  gsize scratch_len = 0;
  gint g;

  while ((g = g_atomic_int_add (&job->next, 1)) < (gint) ((job->hi - job->lo + 63) / 64))
    for (guint k = job->lo + 64 * g; k < MIN (job->lo + 64 * (g + 1), job->hi); k++)
      {
        Entry *r = job->e + (job->offsets[k] - job->offsets[job->lo]);
        const gsize m = job->offsets[k + 1] - job->offsets[k];
        gsize at[256] = { 0 };

        if (m < 32)
          {
            sort_entries (r, m);
            continue;
          }
        if (m > scratch_len)
          {
            scratch_len = MAX (m, 2 * scratch_len);
            g_free (scratch);
            scratch = g_new (Entry, scratch_len);
          }
        for (gsize i = 0; i < m; i++)
          at[(r[i].fp >> (SIM_BAND_INDEX_FILE_BITS - 8)) & 0xff]++;
        for (gsize d = 0, sum = 0; d < 256; d++)
          {
            const gsize c = at[d];

            at[d] = sum;
            sum += c;
          }
        for (gsize i = 0; i < m; i++)
          scratch[at[(r[i].fp >> (SIM_BAND_INDEX_FILE_BITS - 8)) & 0xff]++] = r[i];
        memcpy (r, scratch, m * sizeof *r);
        for (gsize d = 0, from = 0; d < 256; from = at[d++])
          sort_entries (r + from, at[d] - from);
      }
}

void
sim_band_index_sort_pairs_range (guint64       *pairs,
                                 const guint32 *offsets,
                                 guint          lo,
                                 guint          hi,
                                 guint          n_threads)
{
  RangeJob job = { (Entry *) pairs, offsets, lo, hi, 0 };

  g_return_if_fail (lo <= hi && hi <= MAPPED_BUCKETS);
  sim_parallel_run (MIN (n_threads, MAX ((hi - lo) / 64, 1)), range_worker, &job);
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

  index = _sim_band_index_new_empty (n_fps, 0);
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

  index = _sim_band_index_new_empty (n_fps, max_distance);
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
      guint64 *table = _sim_band_index_alloc (n_fps * sizeof (guint64));

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
