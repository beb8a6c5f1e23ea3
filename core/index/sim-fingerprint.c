/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * SimHash accumulation uses 16-bit lane counters (GCC vector extensions,
 * SSE2 on x86-64): each byte of a feature hash selects a row of eight +1/-1
 * signs from a table, so one feature costs eight vector multiply-adds instead
 * of 64 branches. Sums that could overflow 16 bits take the scalar path.
 * An anchor window's SimHash is summed once winnowing has kept the window,
 * with AVX-512 as 64 byte counters at once (one instruction a feature), or
 * with AVX2 as two registers of 32.
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <xxhash.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HAVE_WINDOWS_X86 1
#endif

#include "sim-fingerprint.h"

typedef gint16 v8s __attribute__ ((vector_size (16)));

static v8s sign_table[256];

static void
init_sign_table (void)
{
  static gsize once = 0;

  if (g_once_init_enter (&once))
    {
      for (guint b = 0; b < 256; b++)
        for (guint j = 0; j < 8; j++)
          sign_table[b][j] = (b >> j) & 1 ? 1 : -1;
      g_once_init_leave (&once, 1);
    }
}

static inline void
acc_add (v8s     acc[8],
         guint64 h,
         gint16  w)
{
  for (guint b = 0; b < 8; b++)
    acc[b] += sign_table[(h >> (8 * b)) & 0xff] * w;
}

/* Bit i is set when counter i is positive; a counter at exactly zero (common
 * in short windows, which have few features) takes bit i of @ties, a hash of
 * the same features, so ties still depend on the content. */
static inline guint64
acc_bits (const v8s acc[8],
          guint64   ties)
{
  guint64 positive = 0, zero = 0;

#ifdef __SSE2__
  const __m128i nil = _mm_setzero_si128 ();

  for (guint b = 0; b < 8; b += 2)
    {
      __m128i lo = _mm_cmpgt_epi16 ((__m128i) acc[b], nil);
      __m128i hi = _mm_cmpgt_epi16 ((__m128i) acc[b + 1], nil);
      __m128i zlo = _mm_cmpeq_epi16 ((__m128i) acc[b], nil);
      __m128i zhi = _mm_cmpeq_epi16 ((__m128i) acc[b + 1], nil);

      positive |= (guint64) ((guint) _mm_movemask_epi8 (_mm_packs_epi16 (lo, hi)) & 0xffff) << (8 * b);
      zero |= (guint64) ((guint) _mm_movemask_epi8 (_mm_packs_epi16 (zlo, zhi)) & 0xffff) << (8 * b);
    }
#else
  for (guint b = 0; b < 8; b++)
    for (guint j = 0; j < 8; j++)
      {
        if (acc[b][j] > 0)
          positive |= G_GUINT64_CONSTANT (1) << (8 * b + j);
        else if (acc[b][j] == 0)
          zero |= G_GUINT64_CONSTANT (1) << (8 * b + j);
      }
#endif
  return positive | (zero & ties);
}

#define ROTL(x, r) (((x) << (r)) | ((x) >> ((64 - (r)) & 63)))

struct _SimWeights {
  guint32 *counts; /* SIM_DF_BUCKETS document counts, or NULL */
  guint32  n_docs;
};

SimWeights *
sim_weights_new (guint32 *counts,
                 guint32  n_docs)
{
  SimWeights *weights = g_new0 (SimWeights, 1);

  weights->counts = counts;
  weights->n_docs = n_docs;
  return weights;
}

void
sim_weights_free (SimWeights *weights)
{
  if (weights == NULL)
    return;
  g_free (weights->counts);
  g_free (weights);
}

gboolean
sim_weights_is_active (const SimWeights *weights)
{
  return weights != NULL && weights->counts != NULL && weights->n_docs >= SIM_IDF_MIN_DOCS;
}

guint32
sim_weights_get_n_docs (const SimWeights *weights)
{
  return weights ? weights->n_docs : 0;
}

const guint32 *
sim_weights_get_counts (const SimWeights *weights)
{
  return weights ? weights->counts : NULL;
}

float
sim_weights_get (const SimWeights *weights,
                 guint64           feature)
{
  guint32 df;

  if (!sim_weights_is_active (weights))
    return 1.0f;
  df = weights->counts[feature >> (64 - 20)];
  return logf ((weights->n_docs + 1.0f) / (df + 1.0f)) + 1.0f;
}

/* The unit hashes are already random: one multiply and shift spreads their
 * combination over all 64 bits (a quarter of sim_mix64's cost). */
static inline guint64
finish_shingle (guint64 h)
{
  h *= G_GUINT64_CONSTANT (0x9e3779b97f4a7c15);
  return h ^ (h >> 29);
}

static guint64 *bmp_unit_hashes; /* unit_hash_slow () of every BMP code point */

static guint64
unit_hash_slow (guint32 cp)
{
  const guint32 le = GUINT32_TO_LE (cp);

  return XXH3_64bits_withSeed (&le, sizeof le, SIM_FINGERPRINT_SEED);
}

static void
init_unit_hashes (void)
{
  if (g_once_init_enter (&bmp_unit_hashes))
    {
      guint64 *table = g_new (guint64, 0x10000);

      for (guint32 cp = 0; cp < 0x10000; cp++)
        table[cp] = unit_hash_slow (cp);
      g_once_init_leave (&bmp_unit_hashes, table);
    }
}

/* The hash of one unit: XXH3 of its code point, from a table for the BMP. */
static inline guint64
unit_hash (guint32 cp)
{
  return cp < 0x10000 ? bmp_unit_hashes[cp] : unit_hash_slow (cp);
}

/* A shingle's hash combines its units' XXH3 hashes by position (rotations)
 * and finishes with a 64-bit avalanche, so features can be computed by
 * hashing every unit once instead of every shingle. */
static inline guint64
combine_shingle (const guint64 *unit_hashes,
                 guint          n)
{
  guint64 h = n;

  for (guint i = 0; i < n; i++)
    h ^= ROTL (unit_hashes[i], 13 * i);
  h = finish_shingle (h);
  return h ? h : 1; /* 0 means "no feature" */
}

guint64
sim_fingerprint_hash_shingle (const guint32 *cps,
                              guint          n)
{
  guint64 hashes[SIM_SHINGLE_OTHER];

  init_unit_hashes ();
  for (guint i = 0; i < n; i++)
    hashes[i] = unit_hash (cps[i]);
  return combine_shingle (hashes, n);
}

void
sim_fingerprint_features (const SimUnits *units,
                          guint64        *out)
{
  const guint32 *cps = units->cps;

  init_unit_hashes ();
  for (gsize i = 0; i < units->n; i++)
    {
      guint64 h;

      if (units->flags[i] & SIM_UNIT_CJK)
        {
          if (i < SIM_SHINGLE_CJK - 1)
            {
              out[i] = 0;
              continue;
            }
          h = SIM_SHINGLE_CJK ^ unit_hash (cps[i - 1]) ^ ROTL (unit_hash (cps[i]), 13);
        }
      else
        {
          if (i < SIM_SHINGLE_OTHER - 1)
            {
              out[i] = 0;
              continue;
            }
          h = SIM_SHINGLE_OTHER ^ unit_hash (cps[i - 4]) ^ ROTL (unit_hash (cps[i - 3]), 13) ^
              ROTL (unit_hash (cps[i - 2]), 26) ^ ROTL (unit_hash (cps[i - 1]), 39) ^
              ROTL (unit_hash (cps[i]), 52);
        }
      h = finish_shingle (h);
      out[i] = h ? h : 1;
    }
}

gsize
sim_fingerprint_range_features (const SimUnits *units,
                                const guint64  *features,
                                gsize           start,
                                gsize           end,
                                guint64        *out)
{
  gsize n = 0;

  for (gsize i = start; i < end; i++)
    if (features[i] != 0 && i + 1 >= start + sim_fingerprint_shingle (units, i))
      out[n++] = features[i];
  return n;
}

guint64
sim_fingerprint_simhash (const guint64    *features,
                         gsize             n,
                         const SimWeights *weights)
{
  const gboolean weighted = sim_weights_is_active (weights);
  v8s acc[8] = { 0 };

  init_sign_table ();
  /* IDF weights are scaled by 4 and rounded; 16-bit lanes hold 30000. */
  if (n * (weighted ? 64 : 1) < 30000)
    {
      guint64 sum = 0;

      if (weighted)
        for (gsize i = 0; i < n; i++)
          {
            acc_add (acc, features[i], (gint16) lrintf (4 * sim_weights_get (weights, features[i])));
            sum += features[i];
          }
      else
        for (gsize i = 0; i < n; i++)
          {
            for (guint b = 0; b < 8; b++)
              acc[b] += sign_table[(features[i] >> (8 * b)) & 0xff];
            sum += features[i];
          }
      return acc_bits (acc, sim_mix64 (sum));
    }
  else
    {
      gint64 sums[64] = { 0 };
      guint64 bits = 0;

      for (gsize i = 0; i < n; i++)
        {
          const gint64 w = weighted ? lrintf (4 * sim_weights_get (weights, features[i])) : 1;

          for (guint b = 0; b < 64; b++)
            sums[b] += (features[i] >> b) & 1 ? w : -w;
        }
      for (guint b = 0; b < 64; b++)
        if (sums[b] > 0)
          bits |= G_GUINT64_CONSTANT (1) << b;
      return bits;
    }
}

struct _SimFingerprinter {
  SimNormalizeFlags flags;
  SimUnits          units;
  const SimUnits   *loaded;      /* &units, or units normalised elsewhere */
  guint64          *features;
  gsize             features_alloc;
  GArray           *all_windows; /* SimAnchor scratch for winnowing */
  GArray           *deque;       /* guint32 indices into all_windows */
  GArray           *cumulative;  /* guint32 cumulative weight at each window */
  GArray           *keys;        /* guint64 winnowing key of each window */
};

SimFingerprinter *
sim_fingerprinter_new (SimNormalizeFlags flags)
{
  SimFingerprinter *fp = g_new0 (SimFingerprinter, 1);

  init_sign_table ();
  fp->flags = flags;
  sim_units_init (&fp->units);
  fp->loaded = &fp->units;
  fp->all_windows = g_array_new (FALSE, FALSE, sizeof (SimAnchor));
  fp->deque = g_array_new (FALSE, FALSE, sizeof (guint32));
  fp->cumulative = g_array_new (FALSE, FALSE, sizeof (guint32));
  fp->keys = g_array_new (FALSE, FALSE, sizeof (guint64));
  return fp;
}

void
sim_fingerprinter_free (SimFingerprinter *fp)
{
  if (fp == NULL)
    return;
  sim_units_clear (&fp->units);
  g_free (fp->features);
  g_array_unref (fp->all_windows);
  g_array_unref (fp->deque);
  g_array_unref (fp->cumulative);
  g_array_unref (fp->keys);
  g_free (fp);
}

const SimUnits *
sim_fingerprinter_load (SimFingerprinter *fp,
                        const char       *text,
                        gssize            len)
{
  sim_units_reset (&fp->units);
  sim_text_normalize (text, len, 0, fp->flags, &fp->units);
  sim_fingerprinter_load_units (fp, &fp->units);
  return &fp->units;
}

void
sim_fingerprinter_load_units (SimFingerprinter *fp,
                              const SimUnits   *units)
{
  fp->loaded = units;
  if (fp->features_alloc < units->n)
    {
      fp->features_alloc = MAX (units->n, fp->features_alloc * 2);
      g_free (fp->features);
      fp->features = g_new (guint64, fp->features_alloc);
    }
  sim_fingerprint_features (units, fp->features);
}

const guint64 *
sim_fingerprinter_get_features (SimFingerprinter *fp)
{
  return fp->features;
}

/* A window's features are few (under SIM_WINDOW_WEIGHT + SIM_WEIGHT_CJK):
 * 8-bit counters hold twice their count. */
G_STATIC_ASSERT (SIM_WINDOW_WEIGHT + SIM_WEIGHT_CJK < 64);

/* The SimHash of the window ending at unit @last whose first feature is
 * at @left: sim_fingerprint_simhash() of its features, unweighted. */
static guint64
window_simhash (const guint64 *f,
                gsize          left,
                gsize          last)
{
  v8s acc[8] = { 0 };
  guint64 sum = 0;

  for (gsize i = left; i <= last; i++)
    if (f[i] != 0)
      {
        for (guint b = 0; b < 8; b++)
          acc[b] += sign_table[(f[i] >> (8 * b)) & 0xff];
        sum += f[i];
      }
  return acc_bits (acc, sim_mix64 (sum));
}

#ifdef HAVE_WINDOWS_X86
/* The same with one instruction a feature: a byte of 0xff for each set bit
 * of its hash, subtracted from 64 byte counters at once. Counter i ends as
 * the number n_i of the window's n features with bit i set; the lane
 * counters of window_simhash() are 2 n_i - n. */
__attribute__ ((target ("avx512bw"))) static void
window_simhashes_avx512 (SimAnchor     *windows,
                         gsize          n,
                         const guint64 *f)
{
  for (gsize w = 0; w < n; w++)
    {
      const gsize left = windows[w].simhash, last = windows[w].unit_end - 1;
      __m512i count = _mm512_setzero_si512 ();
      guint64 sum = 0;
      guint n_features = 0;
      __m512i twice, all;

      for (gsize i = left; i <= last; i++)
        if (f[i] != 0)
          {
            count = _mm512_sub_epi8 (count, _mm512_movm_epi8 (f[i]));
            sum += f[i];
            n_features++;
          }
      twice = _mm512_add_epi8 (count, count);
      all = _mm512_set1_epi8 ((char) n_features);
      windows[w].simhash = _mm512_cmpgt_epi8_mask (twice, all) |
                           (_mm512_cmpeq_epi8_mask (twice, all) & sim_mix64 (sum));
    }
}

/* The same with AVX2, two registers of 32 byte counters: each feature's
 * bits spread to a byte of 0xff each (a byte of the hash copied to eight
 * lanes, each lane testing its own bit), about a third of the 16-bit
 * lanes' instructions, with no table to load. */
__attribute__ ((target ("avx2"))) static void
window_simhashes_avx2 (SimAnchor     *windows,
                       gsize          n,
                       const guint64 *f)
{
  const __m256i lo_bytes = _mm256_setr_epi8 (0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1,
                                             2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3);
  const __m256i hi_bytes = _mm256_setr_epi8 (4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5,
                                             6, 6, 6, 6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7);
  const __m256i bit = _mm256_set1_epi64x ((gint64) G_GUINT64_CONSTANT (0x8040201008040201));

  for (gsize w = 0; w < n; w++)
    {
      const gsize left = windows[w].simhash, last = windows[w].unit_end - 1;
      __m256i count_lo = _mm256_setzero_si256 (), count_hi = _mm256_setzero_si256 ();
      guint64 sum = 0;
      guint n_features = 0;
      __m256i all, twice_lo, twice_hi;
      guint64 above, even;

      for (gsize i = left; i <= last; i++)
        if (f[i] != 0)
          {
            const __m256i h = _mm256_set1_epi64x ((gint64) f[i]);
            const __m256i lo = _mm256_and_si256 (_mm256_shuffle_epi8 (h, lo_bytes), bit);
            const __m256i hi = _mm256_and_si256 (_mm256_shuffle_epi8 (h, hi_bytes), bit);

            count_lo = _mm256_sub_epi8 (count_lo, _mm256_cmpeq_epi8 (lo, bit));
            count_hi = _mm256_sub_epi8 (count_hi, _mm256_cmpeq_epi8 (hi, bit));
            sum += f[i];
            n_features++;
          }
      twice_lo = _mm256_add_epi8 (count_lo, count_lo);
      twice_hi = _mm256_add_epi8 (count_hi, count_hi);
      all = _mm256_set1_epi8 ((char) n_features);
      above = (guint32) _mm256_movemask_epi8 (_mm256_cmpgt_epi8 (twice_lo, all)) |
              (guint64) (guint32) _mm256_movemask_epi8 (_mm256_cmpgt_epi8 (twice_hi, all)) << 32;
      even = (guint32) _mm256_movemask_epi8 (_mm256_cmpeq_epi8 (twice_lo, all)) |
             (guint64) (guint32) _mm256_movemask_epi8 (_mm256_cmpeq_epi8 (twice_hi, all)) << 32;
      windows[w].simhash = above | (even & sim_mix64 (sum));
    }
}
#endif

/* Fills in the SimHash of @n windows whose simhash holds their first
 * feature: only the windows winnowing keeps are summed, each at once.
 * SIMHOUND_NO_AVX512 takes AVX2 where AVX-512 is, and SIMHOUND_NO_AVX2
 * the 16-bit lanes, to measure and test each path on one machine. */
static void
window_simhashes (SimAnchor     *windows,
                  gsize          n,
                  const guint64 *f)
{
#ifdef HAVE_WINDOWS_X86
  static gint path = -1; /* 2 AVX-512, 1 AVX2, 0 neither */

  if (G_UNLIKELY (g_atomic_int_get (&path) < 0))
    g_atomic_int_set (&path, __builtin_cpu_supports ("avx512bw") && g_getenv ("SIMHOUND_NO_AVX512") == NULL ? 2
                             : __builtin_cpu_supports ("avx2") && g_getenv ("SIMHOUND_NO_AVX2") == NULL ? 1 : 0);
  if (g_atomic_int_get (&path) == 2)
    {
      window_simhashes_avx512 (windows, n, f);
      return;
    }
  if (g_atomic_int_get (&path) == 1)
    {
      window_simhashes_avx2 (windows, n, f);
      return;
    }
#endif
  init_sign_table ();
  for (gsize w = 0; w < n; w++)
    windows[w].simhash = window_simhash (f, windows[w].simhash, windows[w].unit_end - 1);
}

/* @win as window *@n of @out, whose length runs ahead of what is
 * written (set to *@n when done): a g_array_append_val() a window was a
 * call and a copy of 70 instructions, 1.7% of a class's cross. */
static inline void
put_window (GArray          *out,
            gsize           *n,
            const SimAnchor *win)
{
  if (G_UNLIKELY (*n == out->len))
    g_array_set_size (out, MAX (2 * out->len, *n + 1024));
  ((SimAnchor *) out->data)[(*n)++] = *win;
}

/* Winnowing (Schleimer et al.) over ranges of a weight rather than a
 * fixed count of windows, so that CJK and Latin text get the same guarantee
 * per unit of information. The rightmost minimum of each range is kept. */
void
sim_fingerprinter_windows (SimFingerprinter *fp,
                           guint             winnow_weight,
                           GArray           *out)
{
  const SimUnits *units = fp->loaded;
  const guint64 *f = fp->features;
  const guint base = out->len;
  guint64 sum = 0;
  guint32 weight = 0, total = 0;
  gsize left = G_MAXSIZE, first = G_MAXSIZE;
  gsize head = 0;
  gint64 last_selected = -1;
  gsize n_valid = 0;
  gsize n_all = 0, tail = 0;
  gsize n_out = base;  /* windows in @out (its length runs ahead: put_window()) */
  SimAnchor *all;
  guint32 *deque, *cumulative;
  guint64 *sums;
  gsize mask = 15;

  /* Winnowing looks back one range: each window adds SIM_WEIGHT_OTHER or
   * more to the total, so the windows it still reads (those in the deque,
   * and one range and a unit's weight before them) are the last
   * winnow_weight + SIM_WEIGHT_CJK + 1 or fewer. The scratch is a ring of
   * a power of two above that, indexed by window & mask, not an array as
   * long as the text: that was 40 bytes a unit, 134 MB of an import's
   * peak for two 2 MB files read at once, and its pages faulted in anew
   * for each. Windows are written in place (an append a window to each
   * array was a tenth of an import). */
  while (mask + 1 < (gsize) winnow_weight / SIM_WEIGHT_OTHER + SIM_WEIGHT_CJK + 8)
    mask = mask * 2 + 1;
  g_array_set_size (fp->all_windows, mask + 1);
  g_array_set_size (fp->deque, mask + 1);
  g_array_set_size (fp->cumulative, mask + 1);
  g_array_set_size (fp->keys, mask + 1);
  all = (SimAnchor *) fp->all_windows->data;
  deque = (guint32 *) fp->deque->data;
  cumulative = (guint32 *) fp->cumulative->data;
  sums = (guint64 *) fp->keys->data;

  for (gsize p = 0; p < units->n; p++)
    {
      guint32 w;

      if (f[p] == 0)
        continue;
      if (left == G_MAXSIZE)
        left = first = p;
      w = (units->flags[p] & SIM_UNIT_CJK) ? SIM_WEIGHT_CJK : SIM_WEIGHT_OTHER;
      sum += f[p];
      weight += w;
      total += w;
      for (;;)
        {
          const guint32 lw = (units->flags[left] & SIM_UNIT_CJK) ? SIM_WEIGHT_CJK : SIM_WEIGHT_OTHER;

          if (weight - lw < SIM_WINDOW_WEIGHT)
            break;
          sum -= f[left];
          weight -= lw;
          left++;
          /* Mixed scripts can leave a unit without a feature: skip it. */
          while (f[left] == 0)
            left++;
        }
      if (weight < SIM_WINDOW_WEIGHT)
        continue;
      n_valid++;

      {
        /* Written in place: a window put together on the stack and copied
         * was read back before its fields were stored (a third of this
         * function, waiting). */
        SimAnchor *win = &all[n_all & mask];
        const guint32 index = n_all;

        /* Its first feature, until window_simhashes() knows its SimHash. */
        win->simhash = left;
        win->unit_start = left + 1 - sim_fingerprint_shingle (units, left);
        win->unit_end = p + 1;
        if (winnow_weight == 0)
          {
            put_window (out, &n_out, win);
            continue;
          }
        cumulative[n_all & mask] = total;
        {
          const guint64 key = sim_mix64 (sum ^ SIM_FINGERPRINT_SEED);

          sums[n_all++ & mask] = key;
          while (tail > head && sums[deque[(tail - 1) & mask] & mask] >= key)
            tail--;
          deque[tail++ & mask] = index;
          while (cumulative[deque[head & mask] & mask] + winnow_weight <= total)
            head++;
          if ((gint64) deque[head & mask] != last_selected)
            {
              last_selected = deque[head & mask];
              put_window (out, &n_out, &all[last_selected & mask]);
            }
        }
      }
    }

  g_array_set_size (out, n_out);
  window_simhashes ((SimAnchor *) out->data + base, out->len - base, f);

  /* A text shorter than one window is one window, if it has anything to say. */
  if (n_valid == 0 && first != G_MAXSIZE && units->n - first >= 2)
    {
      SimAnchor win;

      win.simhash = sim_fingerprint_simhash (f + first, units->n - first, NULL);
      win.unit_start = first + 1 - sim_fingerprint_shingle (units, first);
      win.unit_end = units->n;
      g_array_append_val (out, win);
    }
}
