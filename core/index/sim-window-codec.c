/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "sim-store.h"
#include "sim-window-codec.h"
#include "sim-words.h"

/* A feature's df bucket: its top 20 bits (SIM_DF_BUCKETS). */
#define DF_SHIFT     (64 - 20)

/* Packs the fingerprints of @text window after window: its SimHash (8
 * bytes, little-endian), then how far its start (code points) is from the
 * one before (from 0 for the first), zigzag-encoded in 7-bit groups, low
 * first (about 9 bytes a window). After the windows, the keys of its short
 * sentences (sim_words_pair_keys()), each placed at its sentence's start:
 * to the index they are windows like the others. Leaves @text loaded in
 * @fp. (transfer full) */
GBytes *
_sim_pack_windows (SimFingerprinter *fp,
                   const char       *text,
                   gsize             len,
                   gsize            *out_n_windows,
                   gsize            *out_n_units)
{
  const SimUnits *units = sim_fingerprinter_load (fp, text, len);
  g_autoptr(GArray) windows = g_array_new (FALSE, FALSE, sizeof (SimAnchor));
  gint64 previous = 0;
  guint8 *data, *p;
  guint n;

  sim_fingerprinter_windows (fp, SIM_WINNOW_WEIGHT, windows);
  sim_words_text_keys (text, len, units, windows);
  n = windows->len;
  /* Packed over the windows themselves: a window's 8 bytes of SimHash and
   * at most 5 of start fit in its 16, so what is written never reaches a
   * window not yet read (a second buffer was a sixth of what a file of
   * 2 MB took to prepare). */
  G_STATIC_ASSERT (sizeof (SimAnchor) >= 8 + 5);
  p = data = (guint8 *) windows->data;
  for (guint i = 0; i < n; i++)
    {
      const SimAnchor w = g_array_index (windows, SimAnchor, i);
      const guint64 h = GUINT64_TO_LE (w.simhash);
      const gint64 start = units->src_start[w.unit_start];

      memcpy (p, &h, 8);
      p = _sim_put_start (p + 8, start - previous);
      previous = start;
    }
  if (out_n_windows)
    *out_n_windows = n;
  if (out_n_units)
    *out_n_units = units->n;
  {
    const gsize packed = p - data;

    data = g_array_steal (windows, NULL);
    return g_bytes_new_take (g_realloc (data, MAX (packed, 1)), packed);
  }
}

/* Windows in @packed, or G_MAXSIZE when it does not hold whole windows. */
gsize
_sim_count_windows (GBytes *packed)
{
  gsize len;
  const guint8 *p = g_bytes_get_data (packed, &len), *end = p + len;
  gsize n = 0;

  while (p < end)
    {
      if (end - p < 9)
        return G_MAXSIZE;
      p += 8;
      while (p < end && (*p & 0x80))
        p++;
      if (p == end)
        return G_MAXSIZE;
      p++;
      n++;
    }
  return n;
}


/* Unpacks @n windows (_sim_count_windows()) of part document @doc, of
 * @n_chars, into @fps and @places (@doc << 32 | start). */
void
_sim_unpack_windows (GBytes  *packed,
                gsize    n,
                guint32  doc,
                gint64   n_chars,
                guint64 *pairs)
{
  const guint8 *p = g_bytes_get_data (packed, NULL);
  gint64 start = 0;

  for (gsize i = 0; i < n; i++)
    {
      pairs[2 * i] = _sim_next_window (&p, &start);
      pairs[2 * i + 1] = (guint64) doc << 32 | (guint32) CLAMP (start, 0, MAX (n_chars, 0));
    }
}


/* Each thread's bitmap of the df buckets a text has, all 0 between calls
 * of _sim_distinct_buckets(): 128 KiB made afresh for each document were a
 * tenth of an import's time (page faults, and memset). */
static GPrivate seen_buckets = G_PRIVATE_INIT (g_free);

/* Distinct df buckets of the loaded text's features, in first-seen order. */
GArray *
_sim_distinct_buckets (SimFingerprinter *fp,
                       gsize             n_units)
{
  const guint64 *f = sim_fingerprinter_get_features (fp);
  GArray *buckets = g_array_sized_new (FALSE, FALSE, sizeof (guint32), MIN (n_units, SIM_DF_BUCKETS));
  guint64 *seen = g_private_get (&seen_buckets);
  guint32 *out = (guint32 *) buckets->data;
  gsize n = 0;

  if (seen == NULL)
    {
      seen = g_new0 (guint64, SIM_DF_BUCKETS / 64);
      g_private_set (&seen_buckets, seen);
    }
  /* At most one a unit, and one a bucket: written in place. */
  for (gsize i = 0; i < n_units; i++)
    if (f[i] != 0)
      {
        const guint32 v = f[i] >> DF_SHIFT;

        if (seen[v / 64] & (G_GUINT64_CONSTANT (1) << (v % 64)))
          continue;
        seen[v / 64] |= G_GUINT64_CONSTANT (1) << (v % 64);
        out[n++] = v;
      }
  for (gsize i = 0; i < n; i++)
    seen[out[i] / 64] = 0;
  g_array_set_size (buckets, n);
  return buckets;
}

void
_sim_df_apply (guint32      *counts,
               const GArray *buckets,
               gint          delta)
{
  for (guint i = 0; i < buckets->len; i++)
    {
      guint32 *c = &counts[g_array_index (buckets, guint32, i)];

      if (delta > 0)
        (*c)++;
      else if (*c > 0)
        (*c)--;
    }
}


void
_sim_text_worker (gpointer data)
{
  TextJob *job = data;
  g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (job->flags);
  g_autoptr(SimStore) store = NULL;
  g_autofree guint32 *counts = job->counts ? g_new0 (guint32, SIM_DF_BUCKETS) : NULL;
  GError *error = NULL;

  for (;;)
    {
      const gint i = g_atomic_int_add (&job->next, 1);
      g_autofree char *text = NULL;
      gsize len = 0, n_windows = 0, n_units = 0;

      if (i >= (gint) job->n || g_atomic_int_get (&job->stop) || g_cancellable_set_error_if_cancelled (job->cancellable, &error))
        break;
      if (store == NULL && (store = sim_store_open (job->store_path, TRUE, &error)) == NULL)
        break;
      text = sim_store_dup_text (store, job->ids[i], &len, &error);
      if (text == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) && job->counts == NULL)
        {
          /* Removed since the list was read: the next snapshot drops it. */
          g_clear_error (&error);
          _sim_stash_keep (job->stash, g_bytes_new (NULL, 0), 0, &job->packed[i]);
          continue;
        }
      if (text == NULL)
        break;
      {
        GBytes *packed = _sim_pack_windows (fp, text, len, &n_windows, &n_units);

        g_clear_pointer (&text, g_free);
        _sim_stash_keep (job->stash, packed, n_windows, &job->packed[i]);
      }
      if (counts)
        {
          g_autoptr(GArray) buckets = _sim_distinct_buckets (fp, n_units);

          _sim_df_apply (counts, buckets, +1);
        }
    }
  g_mutex_lock (&job->lock);
  if (error != NULL && job->error == NULL)
    job->error = g_steal_pointer (&error);
  g_clear_error (&error);
  if (job->error != NULL)
    g_atomic_int_set (&job->stop, 1);
  if (counts)
    for (gsize b = 0; b < SIM_DF_BUCKETS; b++)
      job->counts[b] += counts[b];
  g_mutex_unlock (&job->lock);
}

