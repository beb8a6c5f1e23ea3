/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The band index serialized (table 0 as 3-byte records in 2^16 buckets),
 * and indexes over such a file, mapped or read as lookups need it.
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

#include "sim-band-index-private.h"
#include "sim-parallel.h"

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

void
sim_band_index_pack_records (const guint64 *fps,
                             gsize          n,
                             guint          stride,
                             guint          shift,
                             guint8        *out)
{
  for (gsize i = 0; i < n; i++)
    {
      const guint32 v = GUINT32_TO_LE ((guint32) (fps[i * stride] >> shift));

      memcpy (out + i * RECORD_BYTES, &v, RECORD_BYTES);
    }
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

      sim_band_index_pack_records (fps + i0 * stride, m, stride, shift, out);
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
                                  guint                  pos_bits,
                                  SimBandIndexWriteFunc  write,
                                  gpointer               user_data)
{
  return serialize (offsets, records, n_fps, 1, pos_bits, write, user_data);
}

SimBandIndex *
sim_band_index_new_mapped (const guint8 *data,
                           gsize         len,
                           gsize         n_fps)
{
  SimBandIndex *index;

  if (len != sim_band_index_get_serialized_size (n_fps) || n_fps >= G_MAXUINT32 || ((guintptr) data & 7) != 0)
    return NULL;
  index = _sim_band_index_new_empty (n_fps, 0);
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
  index = _sim_band_index_new_empty (n_fps, 0);
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
