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

/* A fence splits a bucket in at most 2^FENCE_MAX_BITS parts, sized for
 * FENCE_RECORDS records each. */
#define FENCE_MAX_BITS 8
#define FENCE_RECORDS  128

guint
sim_band_index_fence_bits (gsize n_fps)
{
  guint bits = 0;

  /* Buckets this small are read whole. */
  if ((n_fps >> 16) < SIM_BAND_INDEX_READ_WHOLE_BELOW)
    return 0;
  while (bits < FENCE_MAX_BITS && (n_fps >> (16 + bits)) > FENCE_RECORDS)
    bits++;
  return bits;
}

/* Bytes of a fence of @fence_bits, padded to a multiple of 8. */
static gsize
fence_size (guint fence_bits)
{
  return fence_bits == 0 ? 0 : (((gsize) 1 << (16 + fence_bits)) * sizeof (guint32) + sizeof (guint32) + 7) / 8 * 8;
}

gsize
sim_band_index_get_serialized_size (gsize n_fps,
                                    guint fence_bits)
{
  return (MAPPED_BUCKETS + 2) * sizeof (guint32) + records_size (n_fps) + fence_size (fence_bits);
}

void
sim_band_index_fence (const guint64 *values,
                      guint          stride,
                      guint          shift,
                      const guint32 *offsets,
                      guint          lo,
                      guint          hi,
                      gsize          first,
                      guint          fence_bits,
                      guint32       *out)
{
  const guint32 mask = (1u << RECORD_BITS) - 1;

  for (guint k = lo; k < hi; k++)
    {
      guint32 i = offsets[k];

      for (guint32 part = 0; part < (1u << fence_bits); part++)
        {
          while (i < offsets[k + 1] &&
                 (((guint32) (values[(i - first) * stride] >> shift) & mask) >> (RECORD_BITS - fence_bits)) < part)
            i++;
          *out++ = i;
        }
    }
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

/* Writes @offsets, the records of @fps (every @stride words, the bits
 * kept at @shift) and their fence of @fence_bits. */
static gboolean
serialize (const guint32         *offsets,
           const guint64         *fps,
           gsize                  n_fps,
           guint                  stride,
           guint                  shift,
           guint                  fence_bits,
           SimBandIndexWriteFunc  write,
           gpointer               user_data)
{
  enum { CHUNK = 1 << 16, FENCE_BUCKETS = 256 };
  const guint32 bits = fence_bits;
  g_autofree guint8 *out = g_new0 (guint8, CHUNK * RECORD_BYTES + 8);

  /* MAPPED_BUCKETS + 1 offsets and a word that says the fence's bits (0
   * before there were fences) keep the table 8-aligned. */
  g_return_val_if_fail (fence_bits <= FENCE_MAX_BITS, FALSE);
  if (!write (offsets, (MAPPED_BUCKETS + 1) * sizeof (guint32), user_data) ||
      !write (&bits, sizeof bits, user_data))
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
  if (fence_bits > 0)
    {
      g_autofree guint32 *fence = g_new (guint32, (gsize) FENCE_BUCKETS << fence_bits);
      const guint32 end[2] = { (guint32) n_fps, 0 };

      for (guint k = 0; k < MAPPED_BUCKETS; k += FENCE_BUCKETS)
        {
          sim_band_index_fence (fps, stride, shift, offsets, k, k + FENCE_BUCKETS, 0, fence_bits, fence);
          if (!write (fence, ((gsize) FENCE_BUCKETS << fence_bits) * sizeof (guint32), user_data))
            return FALSE;
        }
      /* The end of the last bucket, and the padding to 8 bytes. */
      if (!write (end, sizeof end, user_data))
        return FALSE;
    }
  return TRUE;
}

gboolean
sim_band_index_serialize (const SimBandIndex    *index,
                          guint                  fence_bits,
                          SimBandIndexWriteFunc  write,
                          gpointer               user_data)
{
  g_return_val_if_fail (index->n_tables == 1 && index->mask[0] + 1 == MAPPED_BUCKETS && index->perm == NULL &&
                        index->key_mask == FILE_MASK, FALSE);
  return serialize (index->offsets[0], index->tables[0], index->n_fps, 1, 16, fence_bits, write, user_data);
}

gboolean
sim_band_index_serialize_pairs (const guint64         *pairs,
                                gsize                  n_fps,
                                const guint32         *offsets,
                                guint                  fence_bits,
                                SimBandIndexWriteFunc  write,
                                gpointer               user_data)
{
  return serialize (offsets, pairs, n_fps, 2, 16, fence_bits, write, user_data);
}

gboolean
sim_band_index_serialize_records (const guint64         *records,
                                  gsize                  n_fps,
                                  const guint32         *offsets,
                                  guint                  pos_bits,
                                  guint                  fence_bits,
                                  SimBandIndexWriteFunc  write,
                                  gpointer               user_data)
{
  return serialize (offsets, records, n_fps, 1, pos_bits, fence_bits, write, user_data);
}

/* Whether @offsets (MAPPED_BUCKETS + 2 words, as a file keeps them) are
 * those of an index of @n_fps: buckets that start at 0, never go back and
 * end at @n_fps, then a fence's bits a writer may choose. Every read then
 * stays inside the table. */
static gboolean
offsets_valid (const guint32 *offsets,
               gsize          n_fps)
{
  if (offsets[0] != 0 || offsets[MAPPED_BUCKETS] != n_fps || offsets[MAPPED_BUCKETS + 1] > FENCE_MAX_BITS)
    return FALSE;
  for (guint k = 0; k < MAPPED_BUCKETS; k++)
    if (offsets[k + 1] < offsets[k])
      return FALSE;
  return TRUE;
}

SimBandIndex *
sim_band_index_new_mapped (const guint8 *data,
                           gsize         len,
                           gsize         n_fps)
{
  const guint32 *offsets = (const guint32 *) data;
  SimBandIndex *index;

  if (len < (MAPPED_BUCKETS + 2) * sizeof (guint32) || n_fps >= G_MAXUINT32 || ((guintptr) data & 7) != 0 ||
      !offsets_valid (offsets, n_fps) || len != sim_band_index_get_serialized_size (n_fps, offsets[MAPPED_BUCKETS + 1]))
    return NULL;
  index = _sim_band_index_new_empty (n_fps, 0);
  index->key_mask = FILE_MASK;
  index->mapped = TRUE;
  /* In memory, a bucket is searched whole: its fence is not needed. */
  index->offsets[0] = (guint32 *) offsets;
  index->packed = data + (MAPPED_BUCKETS + 2) * sizeof (guint32);
  return index;
}

gsize
sim_band_index_read_serialized_size (int     fd,
                                     goffset offset,
                                     gsize   n_fps)
{
  guint32 bits = G_MAXUINT32;

  if (pread (fd, &bits, sizeof bits, offset + (MAPPED_BUCKETS + 1) * sizeof (guint32)) != sizeof bits ||
      bits > FENCE_MAX_BITS)
    return 0;
  return sim_band_index_get_serialized_size (n_fps, bits);
}

SimBandIndex *
sim_band_index_new_read (int     fd,
                         goffset offset,
                         gsize   n_fps)
{
  SimBandIndex *index;
  guint32 *offsets;

  if (fd < 0 || n_fps >= G_MAXUINT32)
    return NULL;
  index = _sim_band_index_new_empty (n_fps, 0);
  index->key_mask = FILE_MASK;
  index->tables_at = offset + (MAPPED_BUCKETS + 2) * sizeof (guint32);
  index->offsets[0] = offsets = g_new (guint32, MAPPED_BUCKETS + 2);
  sim_pread_full (fd, offsets, (MAPPED_BUCKETS + 2) * sizeof (guint32), offset, 0);
  if (!offsets_valid (offsets, n_fps))
    goto damaged;
  index->fence_bits = offsets[MAPPED_BUCKETS + 1];
  index->fence_at = index->tables_at + records_size (n_fps);
  index->fd = dup (fd);
  if (index->fd < 0)
    goto damaged;
  return index;

damaged:
  sim_band_index_free (index);
  return NULL;
}
