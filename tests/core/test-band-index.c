/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The band index returns exactly what a brute-force popcount scan returns:
 * for random data, for planted neighbours at every distance 0..k with the
 * flipped bits placed in every block (or spread over all), and for
 * duplicate fingerprints.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "sim-band-index.h"
#include "sim-parallel.h"
#include "sim-sort.h"
#include "sim-test-util.h"

static int
compare_u32 (gconstpointer a,
             gconstpointer b)
{
  const guint32 x = *(const guint32 *) a, y = *(const guint32 *) b;

  return x < y ? -1 : x > y;
}

static void
assert_same_answer (const SimBandIndex *index,
                    const guint64      *fps,
                    gsize               n,
                    guint64             query,
                    guint               k)
{
  g_autoptr(GArray) got = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) want = g_array_new (FALSE, FALSE, sizeof (guint32));

  sim_band_index_lookup (index, query, k, got);
  sim_band_index_scan (fps, n, query, k, want);
  g_array_sort (got, compare_u32);
  g_array_sort (want, compare_u32);
  assert_int_equal (got->len, want->len);
  for (guint i = 0; i < got->len; i++)
    assert_int_equal (g_array_index (got, guint32, i), g_array_index (want, guint32, i));
}

/* The same for an index a file keeps: its twin scans the low
 * SIM_BAND_INDEX_FILE_BITS of the fingerprints for those of @query. */
static void
assert_same_answer_low (const SimBandIndex *index,
                        const guint64      *low_fps,
                        gsize               n,
                        guint64             query)
{
  g_autoptr(GArray) got = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) want = g_array_new (FALSE, FALSE, sizeof (guint32));

  sim_band_index_lookup (index, query, 0, got);
  sim_band_index_scan (low_fps, n, query & ((G_GUINT64_CONSTANT (1) << SIM_BAND_INDEX_FILE_BITS) - 1), 0, want);
  g_array_sort (got, compare_u32);
  g_array_sort (want, compare_u32);
  assert_int_equal (got->len, want->len);
  for (guint i = 0; i < got->len; i++)
    assert_int_equal (g_array_index (got, guint32, i), g_array_index (want, guint32, i));
}

/* @index's answers for @queries capped at @max_hits: each the first
 * MIN (n, @max_hits + 1) ids of its whole answer; returns how many were
 * cut. */
static guint
assert_capped (const SimBandIndex *index,
               GArray             *queries,
               guint               k,
               guint               max_hits)
{
  g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) capped = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autofree guint32 *ends = g_new (guint32, queries->len);
  g_autofree guint32 *capped_ends = g_new (guint32, queries->len);
  guint cut = 0;

  sim_band_index_lookup_many (index, (const guint64 *) queries->data, queries->len, k, 0, all, ends);
  sim_band_index_lookup_many (index, (const guint64 *) queries->data, queries->len, k, max_hits, capped, capped_ends);
  for (guint q = 0; q < queries->len; q++)
    {
      const guint32 from = q ? ends[q - 1] : 0, capped_from = q ? capped_ends[q - 1] : 0;
      const guint32 n = ends[q] - from;

      assert_int_equal (capped_ends[q] - capped_from, MIN (n, max_hits + 1));
      assert_memory_equal (&g_array_index (capped, guint32, capped_from), &g_array_index (all, guint32, from),
                           MIN (n, max_hits + 1) * sizeof (guint32));
      cut += n > max_hits + 1;
    }
  return cut;
}

/* Flips @d distinct bits of @fp, chosen inside bits [lo, hi). */
static guint64
flip_bits (GRand   *rand,
           guint64  fp,
           guint    d,
           guint    lo,
           guint    hi)
{
  guint64 mask = 0;

  while ((guint) __builtin_popcountll (mask) < d)
    mask |= G_GUINT64_CONSTANT (1) << g_rand_int_range (rand, lo, hi);
  return fp ^ mask;
}

static gboolean
append_bytes (gconstpointer data,
              gsize         len,
              gpointer      user_data)
{
  g_byte_array_append (user_data, data, len);
  return TRUE;
}

static void
check_distance_bound (guint k)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (1234 + k);
  g_autoptr(GArray) fps = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) queries = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(SimBandIndex) index = NULL;
  guint n_blocks = MAX (4, k + 1);

  for (guint i = 0; i < 20000; i++)
    {
      guint64 fp = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);

      g_array_append_val (fps, fp);
    }
  /* Planted neighbours: for 60 queries, every distance 0..k+1, bits in each
   * block and spread across all blocks, each planted twice (duplicates). */
  for (guint q = 0; q < 60; q++)
    {
      guint64 query = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);

      g_array_append_val (queries, query);
      for (guint d = 0; d <= k + 1; d++)
        {
          for (guint b = 0; b <= n_blocks; b++)
            {
              /* b == n_blocks: anywhere in the 64 bits */
              const guint lo = b < n_blocks ? b * (64 / n_blocks) : 0;
              const guint hi = b < n_blocks ? MIN (64, lo + 64 / n_blocks) : 64;
              guint64 near = flip_bits (rand, query, MIN (d, hi - lo), lo, hi);

              g_array_append_val (fps, near);
              g_array_append_val (fps, near);
            }
        }
    }
  index = sim_band_index_new ((const guint64 *) fps->data, fps->len, k, NULL);
  assert_int_equal (sim_band_index_get_n_blocks (index), n_blocks);
  assert_int_equal (sim_band_index_get_size (index), fps->len);
  for (guint q = 0; q < queries->len; q++)
    for (guint d = 0; d <= k; d++)
      assert_same_answer (index, (const guint64 *) fps->data, fps->len,
                          g_array_index (queries, guint64, q), d);
  /* The same with ids in the index's own order, as the corpus uses it. */
  {
    g_autofree guint32 *order = NULL;
    g_autoptr(SimBandIndex) own = sim_band_index_new ((const guint64 *) fps->data, fps->len, k, &order);
    const guint64 *sorted = sim_band_index_get_fps (own);

    assert_non_null (sorted);
    for (guint i = 0; i < fps->len; i++)
      assert_int_equal (sorted[i], g_array_index (fps, guint64, order[i]));
    for (guint q = 0; q < queries->len; q++)
      assert_same_answer (own, sorted, fps->len, g_array_index (queries, guint64, q), k);
    /* An exact index over the low 40 bits, written out and mapped again
     * (the corpus's index file): the answers of a scan of those bits (the
     * planted neighbours include fingerprints that differ from a query in
     * the top 16 bits alone). */
    if (k == 0)
      {
        const guint64 low_mask = (G_GUINT64_CONSTANT (1) << SIM_BAND_INDEX_FILE_BITS) - 1;
        g_autoptr(GByteArray) bytes = g_byte_array_new ();
        g_autoptr(SimBandIndex) mapped = NULL;
        g_autofree guint32 *low_order = NULL;
        g_autoptr(SimBandIndex) low =
          sim_band_index_new_take (g_memdup2 (fps->data, fps->len * sizeof (guint64)), fps->len, &low_order);
        const guint64 *low_sorted = sim_band_index_get_fps (low);
        guint top_only = 0;

        assert_non_null (low_sorted);
        for (guint i = 0; i < fps->len; i++)
          assert_true (low_sorted[i] == (g_array_index (fps, guint64, low_order[i]) & low_mask));
        for (guint q = 0; q < queries->len; q++)
          {
            const guint64 query = g_array_index (queries, guint64, q);
            g_autoptr(GArray) got = g_array_new (FALSE, FALSE, sizeof (guint32));
            g_autoptr(GArray) exact = g_array_new (FALSE, FALSE, sizeof (guint32));

            assert_same_answer_low (low, low_sorted, fps->len, query);
            sim_band_index_lookup (low, query, 0, got);
            sim_band_index_lookup (own, query, 0, exact);
            top_only += got->len - exact->len;
          }
        /* The planted fingerprints a bit apart in the top 16 are found. */
        assert_true (top_only > 0);
        assert_true (sim_band_index_serialize (low, 0, append_bytes, bytes));
        assert_int_equal (bytes->len, sim_band_index_get_serialized_size (fps->len, 0));
        /* The same with 8 bytes of the caller's carried through the sort
         * instead of an order: they follow their fingerprints. */
        {
          g_autofree guint64 *pairs = g_new (guint64, 2 * fps->len);
          g_autofree guint64 *payload = NULL;
          g_autoptr(SimBandIndex) carried = NULL;
          g_autoptr(GByteArray) carried_bytes = g_byte_array_new ();

          for (guint i = 0; i < fps->len; i++)
            {
              pairs[2 * i] = g_array_index (fps, guint64, i);
              pairs[2 * i + 1] = G_GUINT64_CONSTANT (0x0123456700000000) | i;
            }
          carried = sim_band_index_new_take_pairs (g_steal_pointer (&pairs), fps->len, &payload);
          assert_memory_equal (sim_band_index_get_fps (carried), low_sorted, fps->len * sizeof (guint64));
          assert_true (sim_band_index_serialize (carried, 0, append_bytes, carried_bytes));
          assert_int_equal (carried_bytes->len, bytes->len);
          assert_memory_equal (carried_bytes->data, bytes->data, bytes->len);
          for (guint i = 0; i < fps->len; i++)
            assert_true (payload[i] == (G_GUINT64_CONSTANT (0x0123456700000000) | low_order[i]));
        }
        mapped = sim_band_index_new_mapped (bytes->data, bytes->len, fps->len);
        assert_non_null (mapped);
        assert_capped (mapped, queries, 0, 1);
        for (guint q = 0; q < queries->len; q++)
          assert_same_answer_low (mapped, low_sorted, fps->len, g_array_index (queries, guint64, q));
        /* Its records widen back to the fingerprints' low bits. */
        {
          g_autofree guint64 *widened = sim_band_index_dup_fps (mapped);

          assert_null (sim_band_index_get_fps (mapped));
          assert_memory_equal (widened, low_sorted, fps->len * sizeof (guint64));
        }
        /* Read from a file bucket by bucket (a large corpus's index file):
         * the same answers, one by one and batched, and the same fingerprints. */
        {
          g_autofree char *dir = sim_test_make_tmp_dir ();
          g_autofree char *path = g_build_filename (dir, "index", NULL);
          g_autoptr(GByteArray) file = g_byte_array_new ();
          static const guint8 header[24] = { 0 };
          g_autoptr(SimBandIndex) read = NULL;
          g_autofree guint64 *copy = NULL;
          int fd;

          /* Behind a header, as in the corpus's file. */
          g_byte_array_append (file, header, sizeof header);
          g_byte_array_append (file, bytes->data, bytes->len);
          assert_true (g_file_set_contents (path, (const char *) file->data, file->len, NULL));
          fd = g_open (path, O_RDONLY, 0);
          assert_true (fd >= 0);
          read = sim_band_index_new_read (fd, sizeof header, fps->len);
          close (fd);   /* the index keeps its own descriptor */
          assert_non_null (read);
          assert_null (sim_band_index_get_fps (read));
          copy = sim_band_index_dup_fps (read);
          assert_memory_equal (copy, low_sorted, fps->len * sizeof (guint64));
          for (guint q = 0; q < queries->len; q++)
            assert_same_answer_low (read, low_sorted, fps->len, g_array_index (queries, guint64, q));
          {
            g_autoptr(GArray) batch = g_array_new (FALSE, FALSE, sizeof (guint32));
            g_autoptr(GArray) again = g_array_new (FALSE, FALSE, sizeof (guint32));
            g_autoptr(GArray) built = g_array_new (FALSE, FALSE, sizeof (guint32));
            g_autofree guint32 *ends = g_new (guint32, queries->len);
            g_autofree guint32 *ends_again = g_new (guint32, queries->len);
            g_autofree guint32 *ends_built = g_new (guint32, queries->len);

            sim_band_index_lookup_many (read, (const guint64 *) queries->data, queries->len, k, 0, batch, ends);
            sim_band_index_lookup_many (mapped, (const guint64 *) queries->data, queries->len, k, 0, again, ends_again);
            sim_band_index_lookup_many (low, (const guint64 *) queries->data, queries->len, k, 0, built, ends_built);
            assert_int_equal (batch->len, again->len);
            assert_memory_equal (ends, ends_again, queries->len * sizeof (guint32));
            assert_memory_equal (batch->data, again->data, batch->len * sizeof (guint32));
            assert_int_equal (batch->len, built->len);
            assert_memory_equal (ends, ends_built, queries->len * sizeof (guint32));
            assert_memory_equal (batch->data, built->data, batch->len * sizeof (guint32));
          }
          /* Damaged offsets are refused as when mapped; a file cut short
           * afterwards gives wrong answers, never a read out of bounds. */
          ((guint32 *) (file->data + sizeof header))[500] = G_MAXUINT32;
          assert_true (g_file_set_contents (path, (const char *) file->data, file->len, NULL));
          fd = g_open (path, O_RDONLY, 0);
          assert_null (sim_band_index_new_read (fd, sizeof header, fps->len));
          close (fd);
          assert_int_equal (truncate (path, file->len / 2), 0);
          for (guint q = 0; q < queries->len; q++)
            {
              g_autoptr(GArray) out = g_array_new (FALSE, FALSE, sizeof (guint32));

              sim_band_index_lookup (read, g_array_index (queries, guint64, q), k, out);
              for (guint i = 0; i < out->len; i++)
                assert_true (g_array_index (out, guint32, i) < fps->len);
            }
          sim_test_remove_tree (dir);
        }
        /* Offsets that run backwards or past the end are refused. */
        g_clear_pointer (&mapped, sim_band_index_free);
        ((guint32 *) bytes->data)[500] = G_MAXUINT32;
        assert_null (sim_band_index_new_mapped (bytes->data, bytes->len, fps->len));
        assert_null (sim_band_index_new_mapped (bytes->data, bytes->len - 8, fps->len));
      }
  }
  /* Capped, the first ids of the same answers. */
  assert_capped (index, queries, k, 1);
  /* Batched lookups give the same answers, query by query. */
  {
    g_autoptr(GArray) batch = g_array_new (FALSE, FALSE, sizeof (guint32));
    g_autofree guint32 *ends = g_new (guint32, queries->len);

    sim_band_index_lookup_many (index, (const guint64 *) queries->data, queries->len, k, 0, batch, ends);
    for (guint q = 0, from = 0; q < queries->len; from = ends[q], q++)
      {
        g_autoptr(GArray) one = g_array_new (FALSE, FALSE, sizeof (guint32));

        sim_band_index_lookup (index, g_array_index (queries, guint64, q), k, one);
        assert_int_equal (ends[q] - from, one->len);
        for (guint i = 0; i < one->len; i++)
          assert_int_equal (g_array_index (batch, guint32, from + i), g_array_index (one, guint32, i));
      }
  }
  /* Random queries (mostly empty answers) and stored fingerprints themselves. */
  for (guint i = 0; i < 200; i++)
    {
      guint64 query = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);

      assert_same_answer (index, (const guint64 *) fps->data, fps->len, query, k);
      assert_same_answer (index, (const guint64 *) fps->data, fps->len,
                          g_array_index (fps, guint64, g_rand_int_range (rand, 0, fps->len)), k);
    }
}

static void
test_index_equals_brute_force_k3 (void **state)
{
  check_distance_bound (3);
}

static void
test_index_equals_brute_force_k0 (void **state)
{
  check_distance_bound (0);
}

static void
test_index_equals_brute_force_with_more_blocks (void **state)
{
  check_distance_bound (6);
  check_distance_bound (9);
}

static void
test_index_memory_is_32_bytes_per_fingerprint (void **state)
{
  g_autofree guint64 *fps = g_new0 (guint64, 1 << 20);
  g_autofree guint32 *order = NULL;
  g_autoptr(SimBandIndex) index = sim_band_index_new (fps, 1 << 20, 3, &order);

  /* 4 tables x 8 bytes, plus the fixed 4 x 2^16 offsets. */
  assert_true (sim_band_index_get_memory (index) <= (32u << 20) + 4 * 65537 * 4 + 1024);
  /* An exact index keeps table 0 alone. */
  {
    g_autofree guint32 *exact_order = NULL;
    g_autoptr(SimBandIndex) exact = sim_band_index_new (fps, 1 << 20, 0, &exact_order);

    assert_true (sim_band_index_get_memory (exact) <= (8u << 20) + 65537 * 4 + 1024);
    /* Written out, 3 bytes a fingerprint: the low 16 bits are the bucket's. */
    assert_int_equal (sim_band_index_get_serialized_size (1 << 20, 0), (3u << 20) + 65538 * 4);
    assert_int_equal (sim_band_index_get_serialized_size (3, 0), 16 + 65538 * 4);
    /* A fence of f bits: 2^(16 + f) + 1 words, padded to 8 bytes. */
    assert_int_equal (sim_band_index_get_serialized_size (3, 2), 16 + 65538 * 4 + (1u << 20) + 8);
    /* Writers take one for buckets a lookup reads in part, of ~128 records a part. */
    assert_int_equal (sim_band_index_fence_bits (1 << 20), 0);
    assert_int_equal (sim_band_index_fence_bits ((gsize) 256 << 16), 1);
    assert_int_equal (sim_band_index_fence_bits ((gsize) 3662 << 16), 5);
    assert_int_equal (sim_band_index_fence_bits ((gsize) 36500 << 16), 8);
  }
}

/* The exact index's sort, on enough fingerprints to run on several
 * threads: table 0 in order of (bucket, value), every fingerprint there
 * once, equal ones in their input order. */
static void
test_exact_index_sorts_like_a_stable_sort (void **state)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (77);
  const gsize n = 300000;
  g_autofree guint64 *fps = g_new (guint64, n);
  g_autofree guint64 *pairs = g_new (guint64, 2 * n);
  g_autofree guint64 *payload = NULL;
  g_autoptr(SimBandIndex) index = NULL;
  g_autofree guint64 *table = NULL;

  for (gsize i = 0; i < n; i++)
    {
      /* A third drawn from 500 values: long runs of equal fingerprints. */
      const guint64 v = g_rand_int_range (rand, 0, 3) == 0 ? (guint64) g_rand_int_range (rand, 0, 500) * 0x9e3779b97f4a7c15
                                                             : ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);

      fps[i] = v;
      pairs[2 * i] = v;
      pairs[2 * i + 1] = i;
    }
  index = sim_band_index_new_take_pairs (g_steal_pointer (&pairs), n, &payload);
  table = sim_band_index_dup_fps (index);
  for (gsize i = 0; i < n; i++)
    {
      assert_true (payload[i] < n);
      /* The low 40 bits are what it keeps. */
      assert_true (table[i] == (fps[payload[i]] & ((G_GUINT64_CONSTANT (1) << SIM_BAND_INDEX_FILE_BITS) - 1)));
      if (i > 0)
        {
          const guint64 a = table[i - 1], b = table[i];

          assert_true ((a & 0xffff) < (b & 0xffff) || ((a & 0xffff) == (b & 0xffff) && a <= b));
          if (a == b)
            assert_true (payload[i - 1] < payload[i]);
        }
    }
  /* Every input once. */
  {
    g_autofree guint8 *seen = g_new0 (guint8, n);

    for (gsize i = 0; i < n; i++)
      {
        assert_int_equal (seen[payload[i]], 0);
        seen[payload[i]] = 1;
      }
  }
}

static int
compare_keyed_then_value (const void *a,
                          const void *b)
{
  const SimKeyed *x = a, *y = b;

  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return x->value < y->value ? -1 : x->value > y->value;
}

/* sim_sort_keyed() is a stable sort by key: the same order as sorting by
 * key and then input position. Below and above the size where it first
 * spreads by its highest differing byte and sorts the stretches on every
 * core; keys that differ only in their low bytes, or only in their high
 * ones, or in all; runs of equal keys; all keys equal. */
static void
test_keyed_sort_is_a_stable_sort (void **state)
{
  static const gsize sizes[] = { 0, 1, 2, 1000, 65535, 65536, 300001 };
  static const guint64 masks[] = { G_MAXUINT64, 0xffff, G_GUINT64_CONSTANT (0xffff000000000000), 0xff00ff, 0 };

  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    for (guint m = 0; m < G_N_ELEMENTS (masks); m++)
      {
        g_autoptr(GRand) rand = g_rand_new_with_seed (s * 31 + m);
        const gsize n = sizes[s];
        g_autofree SimKeyed *items = g_new (SimKeyed, MAX (n, 1));
        g_autofree SimKeyed *tmp = g_new (SimKeyed, MAX (n, 1));
        g_autofree SimKeyed *expected = g_new (SimKeyed, MAX (n, 1));

        for (gsize i = 0; i < n; i++)
          {
            /* A third from 300 values: long runs of equal keys. */
            const guint64 v = g_rand_int_range (rand, 0, 3) == 0 ? (guint64) g_rand_int_range (rand, 0, 300) * 0x9e3779b97f4a7c15
                                                                   : ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);

            items[i] = (SimKeyed) { v & masks[m], (guint32) i };
          }
        memcpy (expected, items, n * sizeof (SimKeyed));
        qsort (expected, n, sizeof (SimKeyed), compare_keyed_then_value);
        sim_sort_keyed (items, tmp, n);
        for (gsize i = 0; i < n; i++)
          {
            assert_true (items[i].key == expected[i].key);
            assert_int_equal (items[i].value, expected[i].value);
          }
      }
}

#define DATA_SIZE (1 << 20)

/* A file of DATA_SIZE random bytes (seeded by @seed) in @dir, opened for
 * reading; its bytes in *@out_data. */
static int
open_random_file (const char  *dir,
                  guint        seed,
                  guint8     **out_data)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  g_autofree char *path = g_build_filename (dir, "data", NULL);
  guint8 *data = g_new (guint8, DATA_SIZE);
  int fd;

  for (gsize i = 0; i < DATA_SIZE; i++)
    data[i] = g_rand_int (rand);
  assert_true (g_file_set_contents (path, (const char *) data, DATA_SIZE, NULL));
  fd = g_open (path, O_RDONLY, 0);
  assert_true (fd >= 0);
  *out_data = data;
  return fd;
}

/* sim_pread_many() reads what pread reads: 600 reads of a file of 1 MB
 * (more than a ring holds at once), of every length up to 8 KB, some
 * reaching past its end (read as the fill byte) or wholly beyond it, some
 * empty. Run both with io_uring and without (the -pread test). */
static void
test_pread_many_reads_as_pread_does (void **state)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);
  g_autofree char *dir = sim_test_make_tmp_dir ();
  const gsize size = DATA_SIZE;
  g_autofree guint8 *data = NULL;
  g_autofree SimRead *reads = g_new (SimRead, 600);
  g_autofree guint8 *bufs = g_new (guint8, 600 * 8192);
  const int fd = open_random_file (dir, 4, &data);
  for (guint i = 0; i < 600; i++)
    {
      const gsize len = i % 50 == 0 ? 0 : g_rand_int_range (rand, 1, 8193);
      const goffset offset = i % 7 == 0 ? (goffset) size - g_rand_int_range (rand, 0, 4096)
                                        : g_rand_int_range (rand, 0, size);

      reads[i] = (SimRead) { bufs + i * 8192, len, offset };
    }
  memset (bufs, 0x55, 600 * 8192);
  sim_pread_many (fd, reads, 600, 0xff);
  for (guint i = 0; i < 600; i++)
    for (gsize k = 0; k < reads[i].len; k++)
      {
        const goffset at = reads[i].offset + k;

        assert_int_equal (((guint8 *) reads[i].buf)[k], at < (goffset) size ? data[at] : 0xff);
      }
  close (fd);
  sim_test_remove_tree (dir);
  (void) state;
}

/* After fork(), parent and child read at the same time and each gets its
 * own bytes: the child sets up a ring of its own rather than use the one
 * it inherited (its parent's queues in shared memory). Using the shared
 * one hung here in only 2 runs of 15, so this checks that reads after a
 * fork work, not that the ring is the child's. */
static void
check_reads (int           fd,
             const guint8 *data,
             gsize         size,
             guint         seed)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  g_autofree SimRead *reads = g_new (SimRead, 300);
  g_autofree guint8 *bufs = g_new (guint8, 300 * 512);

  for (guint round = 0; round < 200; round++)
    {
      for (guint i = 0; i < 300; i++)
        reads[i] = (SimRead) { bufs + i * 512, g_rand_int_range (rand, 1, 513), g_rand_int_range (rand, 0, size - 512) };
      sim_pread_many (fd, reads, 300, 0);
      for (guint i = 0; i < 300; i++)
        if (memcmp (reads[i].buf, data + reads[i].offset, reads[i].len) != 0)
          exit (3);
    }
}

static void
test_pread_many_after_fork (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  const gsize size = DATA_SIZE;
  g_autofree guint8 *data = NULL;
  const int fd = open_random_file (dir, 6, &data);
  int status = 0;
  pid_t child;

  check_reads (fd, data, size, 1);   /* the parent's ring, set up before the fork */
  child = fork ();
  assert_true (child >= 0);
  if (child == 0)
    {
      check_reads (fd, data, size, 2);
      _exit (0);
    }
  check_reads (fd, data, size, 3);
  assert_int_equal (waitpid (child, &status, 0), child);
  assert_true (WIFEXITED (status));
  assert_int_equal (WEXITSTATUS (status), 0);
  close (fd);
  sim_test_remove_tree (dir);
  (void) state;
}

/* sim_parallel_run(): every worker runs once, on threads kept between
 * runs (the helpers of a second run are threads of the first), runs may
 * start inside runs and from several threads at once, and a fork's child
 * runs with threads of its own. */
typedef struct {
  gint  n_started;
  gint  tids[64];
  guint nest;
  gint  wait_for;  /* workers wait until this many have started */
} Counter;

static void
count_worker (gpointer data)
{
  Counter *c = data;
  const gint i = g_atomic_int_add (&c->n_started, 1);

  if (i < (gint) G_N_ELEMENTS (c->tids))
    c->tids[i] = (gint) syscall (SYS_gettid);
  while (g_atomic_int_get (&c->n_started) < c->wait_for)
    g_usleep (100);
  if (c->nest > 0)
    {
      Counter inner = { 0 };

      sim_parallel_run (3, count_worker, &inner);
      assert_int_equal (g_atomic_int_get (&inner.n_started), 3);
    }
}

static gpointer
many_runs (gpointer data)
{
  for (guint r = 0; r < 200; r++)
    {
      Counter c = { 0 };

      sim_parallel_run (3, count_worker, &c);
      if (g_atomic_int_get (&c.n_started) != 3)
        return GINT_TO_POINTER (1);
    }
  return NULL;
}

/* Whether thread @tid of this process is among the ones @before lists. */
static gboolean
was_there (GPtrArray *before,
           gint       tid)
{
  g_autofree char *name = g_strdup_printf ("%d", tid);

  for (guint i = 0; i < before->len; i++)
    if (g_strcmp0 (g_ptr_array_index (before, i), name) == 0)
      return TRUE;
  return FALSE;
}

static GPtrArray *
list_threads (void)
{
  GPtrArray *tids = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GDir) dir = g_dir_open ("/proc/self/task", 0, NULL);
  const char *name;

  assert_non_null (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (tids, g_strdup (name));
  return tids;
}

static void
test_parallel_keeps_its_threads (void **state)
{
  Counter first = { 0, { 0 }, 0, 4 }, second = { 0, { 0 }, 0, 4 }, nested = { 0, { 0 }, 1, 0 };
  g_autoptr(GPtrArray) before = NULL;
  GThread *threads[4];
  int status = 0;
  pid_t child;

  /* Four workers at once: three helpers, all idle again when the run returns... */
  sim_parallel_run (4, count_worker, &first);
  assert_int_equal (first.n_started, 4);
  /* ...and the next run's helpers are those threads, none new. */
  before = list_threads ();
  sim_parallel_run (4, count_worker, &second);
  assert_int_equal (second.n_started, 4);
  for (guint i = 0; i < 4; i++)
    assert_true (was_there (before, second.tids[i]));

  sim_parallel_run (3, count_worker, &nested);
  assert_int_equal (nested.n_started, 3);

  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("runs", many_runs, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    assert_null (g_thread_join (threads[i]));

  child = fork ();
  assert_true (child >= 0);
  if (child == 0)
    {
      Counter c = { 0 };

      alarm (20);  /* a run handed to the parent's helpers would never end */
      sim_parallel_run (4, count_worker, &c);
      _exit (c.n_started == 4 ? 0 : 3);
    }
  assert_int_equal (waitpid (child, &status, 0), child);
  assert_true (WIFEXITED (status));
  assert_int_equal (WEXITSTATUS (status), 0);
  (void) state;
}

/* Pairs are sorted in place by bucket, kept bits and then their 8 bytes:
 * 300,000 fingerprints (every bucket, several thousand in a few), copies
 * of one fingerprint whose bytes run backwards, against a stable sort of
 * a copy by (bits kept, bytes). */
static int
compare_pair (gconstpointer a,
              gconstpointer b)
{
  const guint64 *x = a, *y = b;
  const guint64 mask = (G_GUINT64_CONSTANT (1) << SIM_BAND_INDEX_FILE_BITS) - 1;
  const guint64 kx = x[0] & mask, ky = y[0] & mask;

  if ((kx & 0xffff) != (ky & 0xffff))
    return (kx & 0xffff) < (ky & 0xffff) ? -1 : 1;
  if (kx != ky)
    return kx < ky ? -1 : 1;
  return x[1] < y[1] ? -1 : x[1] > y[1];
}

static void
test_pairs_sort_in_place_by_key_then_bytes (void **state)
{
  const gsize n = 300000;
  g_autoptr(GRand) rand = g_rand_new_with_seed (21);
  g_autofree guint64 *pairs = g_new (guint64, 2 * n);
  g_autofree guint64 *want = NULL;
  g_autofree guint64 *payload = NULL;
  g_autoptr(SimBandIndex) index = NULL;
  const guint64 *fps;

  for (gsize i = 0; i < n; i++)
    {
      guint64 fp = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);

      if (i % 10 < 3)
        fp = (fp & ~G_GUINT64_CONSTANT (0xffff)) | (i % 7);   /* crowded buckets */
      if (i % 100 == 0)
        fp = G_GUINT64_CONSTANT (0xabcdef0123456789);      /* copies ... */
      pairs[2 * i] = fp;
      pairs[2 * i + 1] = i % 100 == 0 ? n - i : g_rand_int (rand);   /* ... with bytes running backwards */
    }
  want = g_memdup2 (pairs, 2 * n * sizeof (guint64));
  qsort (want, n, 2 * sizeof (guint64), compare_pair);
  index = sim_band_index_new_take_pairs (g_steal_pointer (&pairs), n, &payload);
  fps = sim_band_index_get_fps (index);
  assert_non_null (fps);
  for (gsize i = 0; i < n; i++)
    {
      assert_true (fps[i] == (want[2 * i] & ((G_GUINT64_CONSTANT (1) << SIM_BAND_INDEX_FILE_BITS) - 1)));
      assert_true (payload[i] == want[2 * i + 1]);
    }
  /* And it answers as its brute-force twin. */
  for (gsize i = 0; i < n; i += 997)
    assert_same_answer_low (index, fps, n, want[2 * i]);
  (void) state;
}

/* Records (8 bytes, the bucket implied by where they lie) sort into the
 * order pairs do when the pairs' bytes are the records' 4, and make the
 * same index file: crowded buckets, copies of one fingerprint with bytes
 * running backwards, records put in their buckets in a shuffled order. */
static void
test_records_sort_and_serialize_as_pairs_do (void **state)
{
  const gsize n = 300000;
  g_autoptr(GRand) rand = g_rand_new_with_seed (22);
  g_autofree guint64 *pairs = g_new (guint64, 2 * n);
  g_autofree guint64 *records = g_new (guint64, n);
  g_autofree guint32 *offsets = g_new0 (guint32, SIM_BAND_INDEX_FILE_BUCKETS + 1);
  g_autofree guint32 *pair_offsets = g_new (guint32, SIM_BAND_INDEX_FILE_BUCKETS + 1);
  g_autofree guint32 *fill = NULL;
  g_autoptr(GByteArray) from_pairs = g_byte_array_new ();
  g_autoptr(GByteArray) from_records = g_byte_array_new ();

  for (gsize i = 0; i < n; i++)
    {
      guint64 fp = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);

      if (i % 10 < 3)
        fp = (fp & ~G_GUINT64_CONSTANT (0xffff)) | (i % 7);
      if (i % 100 == 0)
        fp = G_GUINT64_CONSTANT (0xabcdef0123456789);
      pairs[2 * i] = fp;
      pairs[2 * i + 1] = i % 100 == 0 ? n - i : g_rand_int (rand);
      offsets[(fp & (SIM_BAND_INDEX_FILE_BUCKETS - 1)) + 1]++;
    }
  for (guint k = 0; k < SIM_BAND_INDEX_FILE_BUCKETS; k++)
    offsets[k + 1] += offsets[k];
  fill = g_memdup2 (offsets, SIM_BAND_INDEX_FILE_BUCKETS * sizeof (guint32));
  /* Backwards, so no bucket comes in order. */
  for (gsize i = n; i-- > 0;)
    records[fill[pairs[2 * i] & (SIM_BAND_INDEX_FILE_BUCKETS - 1)]++] =
      ((pairs[2 * i] & SIM_BAND_INDEX_FILE_MASK) >> 16) << 32 | (guint32) pairs[2 * i + 1];
  sim_band_index_sort_records (records, offsets, 32);
  sim_band_index_sort_pairs (pairs, n, pair_offsets);
  assert_memory_equal (offsets, pair_offsets, (SIM_BAND_INDEX_FILE_BUCKETS + 1) * sizeof (guint32));
  for (gsize i = 0; i < n; i++)
    {
      assert_true (records[i] >> 32 == (pairs[2 * i] & SIM_BAND_INDEX_FILE_MASK) >> 16);
      assert_true ((guint32) records[i] == pairs[2 * i + 1]);
    }
  /* With a fence and without. */
  for (guint fence_bits = 0; fence_bits <= 3; fence_bits += 3)
    {
      g_byte_array_set_size (from_pairs, 0);
      g_byte_array_set_size (from_records, 0);
      assert_true (sim_band_index_serialize_pairs (pairs, n, pair_offsets, fence_bits, append_bytes, from_pairs));
      assert_true (sim_band_index_serialize_records (records, n, offsets, 32, fence_bits, append_bytes, from_records));
      assert_int_equal (from_pairs->len, sim_band_index_get_serialized_size (n, fence_bits));
      assert_int_equal (from_records->len, from_pairs->len);
      assert_memory_equal (from_records->data, from_pairs->data, from_pairs->len);
    }
  (void) state;
}

/* The answers of @built (its fingerprints @sorted) written with a fence
 * of @fence_bits to @path and read from there, bucket by bucket, for
 * @queries: those of the index in memory, one by one and batched. Its
 * fence says where each part of @bucket starts; a fence damaged to point
 * out of its bucket has the bucket read whole, and one damaged inside it
 * gives wrong answers, never a read out of bounds. */
static void
check_file_index (const SimBandIndex *built,
                  const guint64      *sorted,
                  GArray             *fps,
                  GArray             *queries,
                  guint               fence_bits,
                  guint64             bucket,
                  const char         *path)
{
  const guint64 low_mask = (G_GUINT64_CONSTANT (1) << SIM_BAND_INDEX_FILE_BITS) - 1;
  static const guint8 header[24] = { 0 };
  g_autoptr(GByteArray) file = g_byte_array_new ();
  g_autoptr(SimBandIndex) read = NULL;
  guint32 *offsets, *fence = NULL;
  int fd;

  g_byte_array_append (file, header, sizeof header);
  assert_true (sim_band_index_serialize (built, fence_bits, append_bytes, file));
  assert_int_equal (file->len - sizeof header, sim_band_index_get_serialized_size (fps->len, fence_bits));
  offsets = (guint32 *) (file->data + sizeof header);
  assert_int_equal (offsets[SIM_BAND_INDEX_FILE_BUCKETS + 1], fence_bits);
  if (fence_bits > 0)
    {
      /* Part s of the bucket starts at its first fingerprint whose top
       * bits of the 24 a record keeps are s or more. */
      fence = (guint32 *) (file->data + sizeof header + (SIM_BAND_INDEX_FILE_BUCKETS + 2) * 4 +
                           (fps->len * 3 + 7) / 8 * 8);
      for (guint32 part = 0; part < (1u << fence_bits); part++)
        {
          const guint32 at = fence[(bucket << fence_bits) + part];

          assert_true (at >= offsets[bucket] && at <= offsets[bucket + 1]);
          assert_true (at == offsets[bucket] || ((sorted[at - 1] >> 16) & 0xffffff) >> (24 - fence_bits) < part);
          assert_true (at == offsets[bucket + 1] || ((sorted[at] >> 16) & 0xffffff) >> (24 - fence_bits) >= part);
        }
      assert_int_equal (fence[(gsize) SIM_BAND_INDEX_FILE_BUCKETS << fence_bits], fps->len);
    }
  assert_true (g_file_set_contents (path, (const char *) file->data, file->len, NULL));
  fd = g_open (path, O_RDONLY, 0);
  assert_true (fd >= 0);
  assert_int_equal (sim_band_index_read_serialized_size (fd, sizeof header, fps->len), file->len - sizeof header);
  read = sim_band_index_new_read (fd, sizeof header, fps->len);
  close (fd);
  assert_non_null (read);
  for (guint q = 0; q < queries->len; q++)
    {
      const guint64 query = g_array_index (queries, guint64, q);
      g_autoptr(GArray) want = g_array_new (FALSE, FALSE, sizeof (guint32));

      assert_same_answer_low (read, sorted, fps->len, query);
      /* Every stored fingerprint is found, with all its copies. */
      sim_band_index_scan (sorted, fps->len, query & low_mask, 0, want);
      if (q < (fps->len + 6) / 7)
        assert_true (want->len >= 1);
    }
  {
    g_autoptr(GArray) batch = g_array_new (FALSE, FALSE, sizeof (guint32));
    g_autoptr(GArray) again = g_array_new (FALSE, FALSE, sizeof (guint32));
    g_autofree guint32 *ends = g_new (guint32, queries->len);
    g_autofree guint32 *ends_built = g_new (guint32, queries->len);

    sim_band_index_lookup_many (read, (const guint64 *) queries->data, queries->len, 0, 0, batch, ends);
    sim_band_index_lookup_many (built, (const guint64 *) queries->data, queries->len, 0, 0, again, ends_built);
    assert_int_equal (batch->len, again->len);
    assert_memory_equal (ends, ends_built, queries->len * sizeof (guint32));
    assert_memory_equal (batch->data, again->data, batch->len * sizeof (guint32));
  }
  /* A lookup capped at 100 hits: the 700 copies of one key give their
   * first 101 ids, read from the file or not. */
  assert_true (assert_capped (read, queries, 0, 100) > 0);
  assert_true (assert_capped (built, queries, 0, 100) > 0);
  if (fence == NULL)
    return;
  /* Damaged: every part of the bucket said to start past its end (read
   * whole: the right answers), then every other one at its start or
   * end (wrong answers, inside the table). */
  g_clear_pointer (&read, sim_band_index_free);
  for (guint32 part = 0; part < (1u << fence_bits); part++)
    fence[(bucket << fence_bits) + part] = offsets[bucket + 1] + 1 + part;
  assert_true (g_file_set_contents (path, (const char *) file->data, file->len, NULL));
  fd = g_open (path, O_RDONLY, 0);
  read = sim_band_index_new_read (fd, sizeof header, fps->len);
  close (fd);
  assert_non_null (read);
  for (guint q = 0; q < queries->len; q++)
    assert_same_answer_low (read, sorted, fps->len, g_array_index (queries, guint64, q));
  g_clear_pointer (&read, sim_band_index_free);
  for (guint32 part = 0; part < (1u << fence_bits); part++)
    fence[(bucket << fence_bits) + part] = part % 2 ? offsets[bucket] : offsets[bucket + 1];
  assert_true (g_file_set_contents (path, (const char *) file->data, file->len, NULL));
  fd = g_open (path, O_RDONLY, 0);
  read = sim_band_index_new_read (fd, sizeof header, fps->len);
  close (fd);
  for (guint q = 0; q < queries->len; q++)
    {
      g_autoptr(GArray) out = g_array_new (FALSE, FALSE, sizeof (guint32));

      sim_band_index_lookup (read, g_array_index (queries, guint64, q), 0, out);
      for (guint i = 0; i < out->len; i++)
        assert_true (g_array_index (out, guint32, i) < fps->len);
    }
  /* Fence bits no writer takes are refused. */
  g_clear_pointer (&read, sim_band_index_free);
  offsets[SIM_BAND_INDEX_FILE_BUCKETS + 1] = 9;
  assert_true (g_file_set_contents (path, (const char *) file->data, file->len, NULL));
  fd = g_open (path, O_RDONLY, 0);
  assert_null (sim_band_index_new_read (fd, sizeof header, fps->len));
  assert_int_equal (sim_band_index_read_serialized_size (fd, sizeof header, fps->len), 0);
  close (fd);
}

/* A file's index read bucket by bucket from a large corpus reads only the
 * part of a crowded bucket where the query's key should be, and the whole
 * bucket when the keys there are bunched (repeated text) or the query's
 * run reaches past that part: one bucket of 40,000 fingerprints with
 * random keys, 20,000 with keys leaning low, a run of 700 copies of one
 * key, 3,000 keys packed into a narrow range, and keys at both ends of the
 * 32 bits, against its twin. */
static void
test_file_index_reads_crowded_buckets_in_part (void **state)
{
  /* Without a fence (files from before them), and with fences of a few
   * parts to parts of a few dozen records in the crowded bucket. */
  static const guint fence_bits[] = { 0, 1, 5, 8 };
  const guint64 bucket = 0x1234;
  g_autoptr(GRand) rand = g_rand_new_with_seed (8);
  g_autoptr(GArray) fps = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) queries = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *path = g_build_filename (dir, "index", NULL);
  g_autofree guint32 *order = NULL;
  g_autoptr(SimBandIndex) built = NULL;
  const guint64 *sorted;

#define KEYED(top) ((((guint64) g_rand_int (rand)) << 48) | ((guint64) (top) << 16) | bucket)
  for (guint i = 0; i < 40000; i++)
    {
      const guint64 fp = KEYED (g_rand_int (rand));

      g_array_append_val (fps, fp);
    }
  for (guint i = 0; i < 700; i++)
    {
      const guint64 fp = KEYED (0x9abcdef0u);

      g_array_append_val (fps, fp);
    }
  for (guint i = 0; i < 3000; i++)
    {
      const guint64 fp = KEYED (0x40000000u + g_rand_int_range (rand, 0, 5000));

      g_array_append_val (fps, fp);
    }
  /* Keys leaning low, as a SimHash's bits do: a guess from an even
   * spread misses their runs, which are sought again from what it read. */
  for (guint i = 0; i < 20000; i++)
    {
      const guint64 r = g_rand_int (rand) >> 16;
      const guint64 fp = KEYED ((r * r) >> 8);

      g_array_append_val (fps, fp);
    }
  for (guint i = 0; i < 50; i++)
    {
      const guint64 first = KEYED (0), last = KEYED (G_MAXUINT32);

      g_array_append_val (fps, first);
      g_array_append_val (fps, last);
    }
  /* Some other buckets, small ones. */
  for (guint i = 0; i < 2000; i++)
    {
      const guint64 fp = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);

      g_array_append_val (fps, fp);
    }
  for (guint i = 0; i < fps->len; i += 7)
    g_array_append_val (queries, g_array_index (fps, guint64, i));
  for (guint i = 0; i < 2000; i++)
    {
      const guint64 fp = KEYED (i < 1000 ? g_rand_int (rand) : 0x40000000u + g_rand_int_range (rand, 0, 6000));

      g_array_append_val (queries, fp);
    }
  {
    const guint64 edges[] = { KEYED (0), KEYED (1), KEYED (G_MAXUINT32), KEYED (G_MAXUINT32 - 1),
                              KEYED (0x9abcdef0u), KEYED (0x9abcdeefu), KEYED (0x9abcdef1u) };

    g_array_append_vals (queries, edges, G_N_ELEMENTS (edges));
  }
#undef KEYED

  built = sim_band_index_new_take (g_memdup2 (fps->data, fps->len * sizeof (guint64)), fps->len, &order);
  sorted = sim_band_index_get_fps (built);
  for (guint f = 0; f < G_N_ELEMENTS (fence_bits); f++)
    check_file_index (built, sorted, fps, queries, fence_bits[f], bucket, path);
  sim_test_remove_tree (dir);
  (void) state;
}

static void
test_empty_index (void **state)
{
  g_autoptr(SimBandIndex) index = sim_band_index_new (NULL, 0, 3, NULL);
  g_autoptr(GArray) out = g_array_new (FALSE, FALSE, sizeof (guint32));

  assert_int_equal (sim_band_index_lookup (index, 42, 3, out), 0);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_index_equals_brute_force_k3),
    cmocka_unit_test (test_index_equals_brute_force_k0),
    cmocka_unit_test (test_index_equals_brute_force_with_more_blocks),
    cmocka_unit_test (test_index_memory_is_32_bytes_per_fingerprint),
    cmocka_unit_test (test_exact_index_sorts_like_a_stable_sort),
    cmocka_unit_test (test_keyed_sort_is_a_stable_sort),
    cmocka_unit_test (test_pread_many_reads_as_pread_does),
    cmocka_unit_test (test_pread_many_after_fork),
    cmocka_unit_test (test_parallel_keeps_its_threads),
    cmocka_unit_test (test_pairs_sort_in_place_by_key_then_bytes),
    cmocka_unit_test (test_records_sort_and_serialize_as_pairs_do),
    cmocka_unit_test (test_file_index_reads_crowded_buckets_in_part),
    cmocka_unit_test (test_empty_index),
  };

  return cmocka_run_group_tests_name ("band-index", tests, NULL, NULL);
}
