/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The feature statistics (document frequency counts) as the store keeps
 * them: packed, compressed and saved in one row.
 */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "sim-parallel.h"
#include "sim-store-private.h"

/* Counts are kept compressed in runs of DF_RUN, each as four byte
 * planes (the low bytes, then the next...): the high ones of most counts
 * are 0, and zstd finds them together. */
#define DF_RUN 4096

GBytes *
sim_store_pack_df (const guint32 *counts,
                   gsize          n_buckets)
{
  const gsize size = n_buckets * sizeof (guint32);
  ZSTD_CCtx *cctx = _sim_store_cctx ();
  GByteArray *out = g_byte_array_sized_new (ZSTD_CStreamOutSize ());
  gboolean failed = cctx == NULL;

  /* With a checksum: a damaged frame may otherwise decompress, to other
   * counts, without an error. A run at a time through a small buffer: the
   * 4 MiB of planes and the 4 MiB of room for their bound were fresh
   * memory at every call (the statistics of the 10 MB / 1 GB growth
   * corpora: 22 / 24 ms -> 11 / 18 ms the first time in a process, 6-8 /
   * 10-12 ms -> 4.5-5 / 6.5-7 ms after). */
  if (failed)
    goto raw;
  ZSTD_CCtx_reset (cctx, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter (cctx, ZSTD_c_compressionLevel, 1);
  ZSTD_CCtx_setParameter (cctx, ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setPledgedSrcSize (cctx, size);
  for (gsize b0 = 0; b0 < n_buckets || b0 == 0; b0 += DF_RUN)
    {
      const gsize m = MIN (DF_RUN, n_buckets - b0);
      const ZSTD_EndDirective end = b0 + DF_RUN >= n_buckets ? ZSTD_e_end : ZSTD_e_continue;
      guint8 planes[4 * DF_RUN];
      ZSTD_inBuffer in = { planes, 4 * m, 0 };
      gsize left;

      for (guint k = 0; k < 4; k++)
        for (gsize i = 0; i < m; i++)
          planes[k * m + i] = counts[b0 + i] >> (8 * k);
      do
        {
          ZSTD_outBuffer o;
          const gsize used = out->len;

          g_byte_array_set_size (out, used + ZSTD_CStreamOutSize ());
          o = (ZSTD_outBuffer) { out->data + used, ZSTD_CStreamOutSize (), 0 };
          left = ZSTD_compressStream2 (cctx, &o, &in, end);
          g_byte_array_set_size (out, used + o.pos);
          failed = ZSTD_isError (left);
        }
      while (!failed && (end == ZSTD_e_end ? left != 0 : in.pos < in.size));
      if (failed || n_buckets == 0)
        break;
    }
  ZSTD_CCtx_reset (cctx, ZSTD_reset_session_and_parameters);
raw:
  /* Counts that do not compress, or could not be compressed (compressing
   * fails only for memory), are kept as they are: the size tells the two
   * apart. */
  if (failed || out->len >= size)
    {
      g_byte_array_set_size (out, size);
      memcpy (out->data, counts, size);
    }
  return g_byte_array_free_to_bytes (out);
}

guint32 *
sim_store_unpack_df (gconstpointer packed,
                     gsize         len,
                     gsize         n_buckets)
{
  const gsize size = n_buckets * sizeof (guint32);
  guint32 *counts;

  if (packed == NULL || len == 0 || len > size)
    return NULL;
  counts = g_new (guint32, MAX (n_buckets, 1));
  sim_prefault (counts, size);
  /* Counts as they are (written before they were compressed, or that did
   * not compress). */
  if (len == size)
    {
      memcpy (counts, packed, size);
      return counts;
    }
  if (ZSTD_getFrameContentSize (packed, len) != size || _sim_store_dctx () == NULL ||
      ZSTD_decompressDCtx (_sim_store_dctx (), counts, size, packed, len) != size)
    {
      g_free (counts);
      return NULL;
    }
  /* Each run's planes back into counts, in place. */
  for (gsize b0 = 0; b0 < n_buckets; b0 += DF_RUN)
    {
      const gsize m = MIN (DF_RUN, n_buckets - b0);
      guint8 planes[4 * DF_RUN];

      memcpy (planes, counts + b0, 4 * m);
      for (gsize i = 0; i < m; i++)
        counts[b0 + i] = (guint32) planes[i] | (guint32) planes[m + i] << 8 | (guint32) planes[2 * m + i] << 16 |
                         (guint32) planes[3 * m + i] << 24;
    }
  return counts;
}

/* @len bytes of the statistics' blob into @buf, in the read transaction
 * of the statement that found their row. */
static gboolean
read_df_blob (SimStore  *store,
              gpointer   buf,
              gsize      len,
              GError   **error)
{
  sqlite3_blob *blob = NULL;
  int rc = sqlite3_blob_open (store->db, "main", "df", "counts", 0, 0, &blob);

  if (rc == SQLITE_OK)
    rc = sqlite3_blob_read (blob, buf, len, 0);
  if (blob != NULL)
    sqlite3_blob_close (blob);
  return rc == SQLITE_OK || _sim_store_error (store, rc, "reading feature statistics", error);
}

gboolean
sim_store_load_df_packed (SimStore  *store,
                          gsize      n_buckets,
                          GBytes   **out_packed,
                          guint32   *out_n_docs,
                          GError   **error)
{
  /* length () of a blob reads none of its overflow pages. */
  g_autoptr(sqlite3_stmt) stmt = _sim_store_prepare (store, "SELECT n_docs, length (counts) FROM df WHERE id = 0", error);
  guint8 *packed;
  gsize len;
  int rc;

  if (out_packed)
    *out_packed = NULL;
  *out_n_docs = 0;
  if (stmt == NULL)
    return FALSE;
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_DONE)
    return TRUE;
  if (rc != SQLITE_ROW)
    return _sim_store_error (store, rc, "reading feature statistics", error);
  if (out_packed == NULL)
    {
      *out_n_docs = CLAMP (sqlite3_column_int64 (stmt, 0), 0, G_MAXUINT32);
      return TRUE;
    }
  len = sqlite3_column_int64 (stmt, 1);
  if (sqlite3_column_int64 (stmt, 0) < 0 || len > n_buckets * sizeof (guint32) || len == 0)
    return sim_store_set_damaged (store, _("feature statistics of the wrong size"), error);
  packed = g_malloc (len);
  sim_prefault (packed, len);
  if (!read_df_blob (store, packed, len, error))
    {
      g_free (packed);
      return FALSE;
    }
  *out_packed = g_bytes_new_take (packed, len);
  *out_n_docs = sqlite3_column_int64 (stmt, 0);
  return TRUE;
}

gboolean
sim_store_load_df (SimStore  *store,
                   gsize      n_buckets,
                   guint32  **out_counts,
                   guint32   *out_n_docs,
                   GError   **error)
{
  g_autoptr(GBytes) packed = NULL;

  if (out_counts)
    *out_counts = NULL;
  if (!sim_store_load_df_packed (store, n_buckets, out_counts ? &packed : NULL, out_n_docs, error))
    return FALSE;
  if (packed == NULL)
    return TRUE;
  *out_counts = sim_store_unpack_df (g_bytes_get_data (packed, NULL), g_bytes_get_size (packed), n_buckets);
  if (*out_counts == NULL)
    {
      *out_n_docs = 0;
      return sim_store_set_damaged (store, _("feature statistics of the wrong size"), error);
    }
  return TRUE;
}

gboolean
sim_store_save_df (SimStore       *store,
                   const guint32  *counts,
                   gsize           n_buckets,
                   guint32         n_docs,
                   GError        **error)
{
  /* Compressed (sim_store_pack_df()): a tenth of their 4 MiB for a small
   * corpus, a third for a large one. Replacing the row frees and, for
   * secure_delete, zeroes the pages of the old one at every batch of an
   * import: fewer than the 4 MiB written over in place before. */
  g_autoptr(GBytes) packed = sim_store_pack_df (counts, n_buckets);
  g_autoptr(sqlite3_stmt) stmt = _sim_store_prepare (store, "INSERT OR REPLACE INTO df (id, n_docs, counts) VALUES (0, ?, ?)", error);
  gsize len;
  gconstpointer data;

  if (stmt == NULL)
    return FALSE;
  data = g_bytes_get_data (packed, &len);
  sqlite3_bind_int64 (stmt, 1, n_docs);
  sqlite3_bind_blob64 (stmt, 2, data, len, SQLITE_STATIC);
  return _sim_store_step_done (store, stmt, "saving feature statistics", error);
}
