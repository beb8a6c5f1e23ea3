/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "sim-band-spill.h"
#include "sim-parallel.h"
#include "sim-window-stash.h"

#define BUCKETS      SIM_BAND_INDEX_FILE_BUCKETS
/* Words a writer holds for a range before writing them (16 KiB). */
#define BUFFER_WORDS 2048
/* Bytes a record of a range takes while it is read, grouped and written:
 * 8 and 8, and 3 + 5 in the file. */
#define RECORD_COST  24
/* A record keeps its bucket's place in its range in its top bits, what
 * its place leaves of them: a range of records spans 256 buckets at most
 * with places of 32 bits, 32 with places of 35. */
#define KEY_BITS     (SIM_BAND_INDEX_FILE_BITS - 16)

struct _SimBandSpill {
  int        fd;
  guint32   *offsets;    /* BUCKETS + 1: where each bucket starts, in records */
  guint      n_ranges;
  guint     *lo;         /* n_ranges + 1: each range's first bucket */
  guint     *range_of;   /* BUCKETS: each bucket's range */
  guint      n_writers;
  guint64   *next;       /* [t * n_ranges + r]: the record writer t writes next in range r */
  guint64  **held;       /* [t * n_ranges + r]: its records not written yet, or NULL */
  guint     *n_held;
  guint      place_bits;   /* of a place in the file's records */
  guint      pos_bits;     /* of a place in the records read back */
  gint       failed;
};

SimBandSpill *
sim_band_spill_new (const char    *path,
                    const guint32 *offsets,
                    const guint32 *counts,
                    guint          n_writers,
                    guint64        n_places,
                    guint          pos_bits,
                    gsize          memory)
{
  const gsize most = MAX (memory / RECORD_COST, 1);
  /* SIMHOUND_SPILL_PLACE_BITS widens them for tests: 4G places do not. */
  const char *wider = g_getenv ("SIMHOUND_SPILL_PLACE_BITS");
  const guint place_bits = MAX (MAX (g_bit_storage (MAX (n_places, 1) - 1), 32),
                                wider ? (guint) g_ascii_strtoull (wider, NULL, 10) : 0);
  guint span;
  SimBandSpill *spill;
  guint r = 0;
  int fd;

  if (place_bits + KEY_BITS >= 64 || place_bits > pos_bits || (fd = _sim_scratch_file (path)) < 0)
    return NULL;
  span = 1u << MIN (64 - place_bits - KEY_BITS, 16);
  spill = g_new0 (SimBandSpill, 1);
  spill->fd = fd;
  spill->place_bits = place_bits;
  spill->pos_bits = pos_bits;
  spill->offsets = g_memdup2 (offsets, (BUCKETS + 1) * sizeof (guint32));
  spill->range_of = g_new (guint, BUCKETS);
  spill->lo = g_new (guint, BUCKETS + 1);
  /* Ranges of whole buckets, as many as fit. */
  spill->lo[0] = 0;
  for (guint k = 0; k < BUCKETS; k++)
    {
      if (k > spill->lo[r] && (offsets[k + 1] - offsets[spill->lo[r]] > most || k - spill->lo[r] == span))
        spill->lo[++r] = k;
      spill->range_of[k] = r;
    }
  spill->n_ranges = r + 1;
  spill->lo[spill->n_ranges] = BUCKETS;
  spill->n_writers = n_writers;
  spill->next = g_new0 (guint64, (gsize) n_writers * spill->n_ranges);
  spill->held = g_new0 (guint64 *, (gsize) n_writers * spill->n_ranges);
  spill->n_held = g_new0 (guint, (gsize) n_writers * spill->n_ranges);
  /* Writer t's records of a range follow those of the writers before it. */
  for (r = 0; r < spill->n_ranges; r++)
    {
      guint64 at = offsets[spill->lo[r]];

      for (guint t = 0; t < n_writers; t++)
        {
          spill->next[t * spill->n_ranges + r] = at;
          for (guint k = spill->lo[r]; k < spill->lo[r + 1]; k++)
            at += counts[(gsize) t * BUCKETS + k];
        }
    }
  return spill;
}

void
sim_band_spill_free (SimBandSpill *spill)
{
  if (spill == NULL)
    return;
  for (gsize i = 0; i < (gsize) spill->n_writers * spill->n_ranges; i++)
    g_free (spill->held[i]);
  close (spill->fd);
  g_free (spill->offsets);
  g_free (spill->lo);
  g_free (spill->range_of);
  g_free (spill->next);
  g_free (spill->held);
  g_free (spill->n_held);
  g_free (spill);
}

static void
write_held (SimBandSpill *spill,
            gsize         i)
{
  if (!sim_pwrite_full (spill->fd, spill->held[i], spill->n_held[i] * sizeof (guint64),
                        (goffset) (spill->next[i] * sizeof (guint64))))
    g_atomic_int_set (&spill->failed, 1);
  spill->next[i] += spill->n_held[i];
  spill->n_held[i] = 0;
}

void
sim_band_spill_put (SimBandSpill *spill,
                    guint         t,
                    guint64       fp,
                    guint64       place)
{
  const guint k = fp & (BUCKETS - 1), r = spill->range_of[k];
  const gsize i = (gsize) t * spill->n_ranges + r;
  guint64 *held = spill->held[i];

  if (held == NULL)
    held = spill->held[i] = g_new (guint64, BUFFER_WORDS);
  held[spill->n_held[i]++] = ((guint64) (k - spill->lo[r]) << KEY_BITS | (fp & SIM_BAND_INDEX_FILE_MASK) >> 16)
                               << spill->place_bits | place;
  if (spill->n_held[i] == BUFFER_WORDS)
    write_held (spill, i);
}

void
sim_band_spill_flush (SimBandSpill *spill,
                      guint         t)
{
  for (guint r = 0; r < spill->n_ranges; r++)
    {
      const gsize i = (gsize) t * spill->n_ranges + r;

      if (spill->n_held[i] > 0)
        write_held (spill, i);
      g_clear_pointer (&spill->held[i], g_free);
    }
}

gboolean
sim_band_spill_ok (SimBandSpill *spill)
{
  return !g_atomic_int_get (&spill->failed);
}

guint
sim_band_spill_n_ranges (const SimBandSpill *spill)
{
  return spill->n_ranges;
}

void
sim_band_spill_range (const SimBandSpill *spill,
                      guint               r,
                      guint              *lo,
                      guint              *hi)
{
  *lo = spill->lo[r];
  *hi = spill->lo[r + 1];
}

guint64 *
sim_band_spill_read (SimBandSpill *spill,
                     guint         r,
                     guint         n_threads)
{
  const guint lo = spill->lo[r], hi = spill->lo[r + 1], pb = spill->place_bits;
  const gsize m = spill->offsets[hi] - spill->offsets[lo];
  const guint64 key_mask = (G_GUINT64_CONSTANT (1) << KEY_BITS) - 1, place_mask = (G_GUINT64_CONSTANT (1) << pb) - 1;
  g_autofree guint64 *read = g_new (guint64, MAX (m, 1));
  g_autofree guint32 *fill = g_new (guint32, hi - lo);
  guint64 *out;
  gsize len = m * sizeof (guint64), done = 0;
  const off_t at = (off_t) spill->offsets[lo] * sizeof (guint64);

  while (done < len)
    {
      const gssize n = pread (spill->fd, (guint8 *) read + done, len - done, at + (off_t) done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return NULL;
      done += n;
    }
  /* By bucket, each where the offsets say, then sorted. A damaged entry
   * (one of a bucket outside the range, or one too many) is dropped. */
  out = g_new0 (guint64, MAX (m, 1));
  for (guint k = lo; k < hi; k++)
    fill[k - lo] = spill->offsets[k] - spill->offsets[lo];
  for (gsize i = 0; i < m; i++)
    {
      const guint64 k = lo + (read[i] >> (pb + KEY_BITS));

      if (k >= hi || fill[k - lo] == spill->offsets[k + 1] - spill->offsets[lo])
        continue;
      out[fill[k - lo]++] = (read[i] >> pb & key_mask) << spill->pos_bits | (read[i] & place_mask);
    }
  sim_band_index_sort_records_range (out, spill->offsets, lo, hi, spill->pos_bits, n_threads);
  return out;
}
