/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "sim-band-index.h"

#define MAX_BLOCKS (SIM_BAND_INDEX_MAX_DISTANCE + 1)

struct _SimBandIndex {
  const guint64 *fps;
  gsize          n_fps;
  guint          max_distance;
  guint          n_blocks;
  guint          shift[MAX_BLOCKS];
  guint64        mask[MAX_BLOCKS];
  guint32       *offsets[MAX_BLOCKS]; /* 2^width + 1 bucket starts into ids */
  guint32       *ids[MAX_BLOCKS];     /* fingerprint indices sorted by block value */
};

SimBandIndex *
sim_band_index_new (const guint64 *fps,
                    gsize          n_fps,
                    guint          max_distance)
{
  SimBandIndex *index;
  guint shift = 0;

  g_return_val_if_fail (fps != NULL || n_fps == 0, NULL);
  g_return_val_if_fail (max_distance <= SIM_BAND_INDEX_MAX_DISTANCE, NULL);
  g_return_val_if_fail (n_fps < G_MAXUINT32, NULL);

  index = g_new0 (SimBandIndex, 1);
  index->fps = fps;
  index->n_fps = n_fps;
  index->max_distance = max_distance;
  index->n_blocks = MAX (4, max_distance + 1);

  for (guint b = 0; b < index->n_blocks; b++)
    {
      const guint width = 64 / index->n_blocks + (b < 64 % index->n_blocks ? 1 : 0);
      const gsize n_buckets = (gsize) 1 << width;
      guint32 *offsets = g_new0 (guint32, n_buckets + 1);
      guint32 *ids = g_new (guint32, MAX (n_fps, 1));

      index->shift[b] = shift;
      index->mask[b] = n_buckets - 1;
      shift += width;

      /* Counting sort by block value. */
      for (gsize i = 0; i < n_fps; i++)
        offsets[((fps[i] >> index->shift[b]) & index->mask[b]) + 1]++;
      for (gsize k = 0; k < n_buckets; k++)
        offsets[k + 1] += offsets[k];
      for (gsize i = 0; i < n_fps; i++)
        {
          const guint64 key = (fps[i] >> index->shift[b]) & index->mask[b];

          ids[offsets[key]++] = i;
        }
      /* offsets[k] now holds the end of bucket k: shift back to starts. */
      for (gsize k = n_buckets; k > 0; k--)
        offsets[k] = offsets[k - 1];
      offsets[0] = 0;

      index->offsets[b] = offsets;
      index->ids[b] = ids;
    }
  return index;
}

void
sim_band_index_free (SimBandIndex *index)
{
  if (index == NULL)
    return;
  for (guint b = 0; b < index->n_blocks; b++)
    {
      g_free (index->offsets[b]);
      g_free (index->ids[b]);
    }
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

gsize
sim_band_index_get_memory (const SimBandIndex *index)
{
  gsize bytes = sizeof *index;

  for (guint b = 0; b < index->n_blocks; b++)
    bytes += (index->mask[b] + 2) * sizeof (guint32) + index->n_fps * sizeof (guint32);
  return bytes;
}

gsize
sim_band_index_lookup (const SimBandIndex *index,
                       guint64             fp,
                       guint               max_distance,
                       GArray             *out)
{
  gsize n = 0;

  g_return_val_if_fail (max_distance <= index->max_distance, 0);

  for (guint b = 0; b < index->n_blocks; b++)
    {
      const guint64 key = (fp >> index->shift[b]) & index->mask[b];
      const guint32 *ids = index->ids[b];
      const guint32 end = index->offsets[b][key + 1];

      for (guint32 j = index->offsets[b][key]; j < end; j++)
        {
          const guint32 id = ids[j];
          const guint64 other = index->fps[id];
          const guint64 diff = other ^ fp;
          gboolean seen = FALSE;

          if ((guint) __builtin_popcountll (diff) > max_distance)
            continue;
          /* Report each fingerprint from the first block it agrees on. */
          for (guint e = 0; e < b && !seen; e++)
            seen = ((diff >> index->shift[e]) & index->mask[e]) == 0;
          if (seen)
            continue;
          g_array_append_val (out, id);
          n++;
        }
    }
  return n;
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
    if ((guint) __builtin_popcountll (fps[i] ^ fp) <= max_distance)
      {
        guint32 id = i;

        g_array_append_val (out, id);
        n++;
      }
  return n;
}
