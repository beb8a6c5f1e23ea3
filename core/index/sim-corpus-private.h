/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What sim-corpus.c (the writes) uses of sim-snapshot.c (the snapshot and
 * its index files). Not installed.
 */
#pragma once

#include "sim-corpus.h"
#include "sim-fingerprint.h"
#include "sim-store.h"

G_BEGIN_DECLS

/* The snapshot of @store now; @fresh (or NULL): windows a write has just
 * computed (_sim_fresh_new()). */
SimCorpusSnapshot *_sim_snapshot_load     (SimStore               *store,
                                           SimNormalizeFlags       flags,
                                           GHashTable             *fresh,
                                           GError                **error);
/* Windows a write has just computed, by document id, for the next
 * snapshot: they hold for the row they were computed with. */
GHashTable        *_sim_fresh_new         (void);
/* Takes @packed (_sim_pack_windows()) for @doc. */
void               _sim_fresh_put         (GHashTable             *table,
                                           const SimStoreDocument *doc,
                                           GBytes                 *packed);
/* The windows of @text, packed (about 9 bytes a window); leaves @text
 * loaded in @fp. (transfer full) */
GBytes            *_sim_pack_windows      (SimFingerprinter       *fp,
                                           const char             *text,
                                           gsize                   len,
                                           gsize                  *out_n_windows,
                                           gsize                  *out_n_units);
/* The distinct df buckets of the text loaded in @fp, first seen first. */
GArray            *_sim_distinct_buckets  (SimFingerprinter       *fp,
                                           gsize                   n_units);
/* Adds (@delta > 0) or takes away @buckets from @counts. */
void               _sim_df_apply          (guint32                *counts,
                                           const GArray           *buckets,
                                           gint                    delta);

/* Documents fingerprinted from their stored text, on every core, each
 * worker reading through a connection of its own: their packed windows,
 * and with @n_windows and @counts, how many and the feature statistics
 * they add up to. */
typedef struct {
  const char        *store_path;
  SimNormalizeFlags  flags;
  const gint64      *ids;
  GBytes           **packed;
  gsize             *n_windows;
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

G_END_DECLS
