/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The packed form of a document's windows, as imports hand them to the
 * next snapshot and snapshots read them back: each window's SimHash (8
 * bytes, little-endian) and the distance of its start from the one before
 * (zigzag, 7-bit groups); the df buckets a text adds; and the worker that
 * fingerprints stored texts on every core. Used by sim-corpus.c (writes)
 * and sim-snapshot.c (reads); depends on neither. Any thread.
 */
#pragma once

#include <string.h>

#include "sim-fingerprint.h"
#include "sim-store.h"
#include "sim-window-stash.h"

G_BEGIN_DECLS

/* The windows of @text, packed (about 9 bytes a window); leaves @text
 * loaded in @fp. (transfer full) */
GBytes            *_sim_pack_windows      (SimFingerprinter       *fp,
                                           const char             *text,
                                           gsize                   len,
                                           gsize                  *out_n_windows,
                                           gsize                  *out_n_units);
/* Windows in @packed, or G_MAXSIZE when it does not hold whole windows. */
gsize              _sim_count_windows     (GBytes                 *packed);
/* Unpacks @n windows (_sim_count_windows()) of part document @doc, of
 * @n_chars, into @pairs (fingerprint, @doc << 32 | start). */
void               _sim_unpack_windows    (GBytes                 *packed,
                                           gsize                   n,
                                           guint32                 doc,
                                           gint64                  n_chars,
                                           guint64                *pairs);
/* The distinct df buckets of the text loaded in @fp, first seen first. */
GArray            *_sim_distinct_buckets  (SimFingerprinter       *fp,
                                           gsize                   n_units);
/* Adds (@delta > 0) or takes away @buckets from @counts. */
void               _sim_df_apply          (guint32                *counts,
                                           const GArray           *buckets,
                                           gint                    delta);

/* Documents fingerprinted from their stored text, on every core, each
 * worker reading through a connection of its own: their packed windows,
 * kept in @stash, and with @counts the feature statistics they add up
 * to. */
typedef struct {
  const char        *store_path;
  SimNormalizeFlags  flags;
  const gint64      *ids;
  SimStash          *stash;
  SimStashed        *packed;
  guint32           *counts;
  guint              n;
  gint               next;
  gint               stop;
  GMutex             lock;
  GError            *error;
  GCancellable      *cancellable;
} TextJob;

/* A worker of a TextJob (sim_parallel_run()). */
void               _sim_text_worker       (gpointer                data);

/* A window's start as packed: how far it is from the start before,
 * zigzag-encoded in 7-bit groups, low first. Written at @out (at most 10
 * bytes); returns the end. */
static inline guint8 *
_sim_put_start (guint8 *out,
                gint64  delta)
{
  guint64 zigzag = delta < 0 ? ((guint64) (-(delta + 1)) << 1) | 1 : (guint64) delta << 1;

  do
    {
      *out++ = (zigzag & 0x7f) | (zigzag > 0x7f ? 0x80 : 0);
      zigzag >>= 7;
    }
  while (zigzag != 0);
  return out;
}

/* The bytes _sim_put_start() writes for @delta. */
static inline guint
_sim_start_len (gint64 delta)
{
  guint8 scratch[10];

  return (guint) (_sim_put_start (scratch, delta) - scratch);
}

/* *@start moved by the start at *@p (_sim_put_start()), *@p past it. */
static inline void
_sim_next_start (const guint8 **p,
                 gint64        *start)
{
  guint64 delta = 0;
  guint shift = 0;

  /* Most starts are a byte or two on from the one before. */
  if (G_LIKELY ((*p)[0] < 0x80))
    delta = *(*p)++;
  else if (G_LIKELY ((*p)[1] < 0x80))
    {
      delta = ((*p)[0] & 0x7f) | (guint64) (*p)[1] << 7;
      *p += 2;
    }
  else
    do
      {
        if (shift < 63)
          delta |= (guint64) (**p & 0x7f) << shift;
        shift += 7;
      }
    while (*(*p)++ & 0x80);
  *start += (delta & 1) ? -(gint64) (delta >> 1) - 1 : (gint64) (delta >> 1);
}

/* The next packed window at *@p (_sim_count_windows() said it is whole): its
 * fingerprint, and *@start moved to its start. */
static inline guint64
_sim_next_window (const guint8 **p,
             gint64        *start)
{
  guint64 h;

  memcpy (&h, *p, 8);
  *p += 8;
  _sim_next_start (p, start);
  return GUINT64_FROM_LE (h);
}

G_END_DECLS
