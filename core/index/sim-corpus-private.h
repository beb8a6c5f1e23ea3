/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What sim-corpus.c and sim-corpus-import.c (the writes) use of
 * sim-snapshot.c (the snapshot and its index files), and of each other.
 * Not installed.
 */
#pragma once

#include "sim-corpus.h"
#include "sim-fingerprint.h"
#include "sim-store.h"
#include "sim-window-codec.h"

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
/* Takes @packed (cleared) for @doc. */
void               _sim_fresh_put         (GHashTable             *table,
                                           const SimStoreDocument *doc,
                                           SimStashed             *packed);
/* What sim-corpus-import.c (the writes of documents) uses of sim-corpus.c. */
struct _SimCorpus {
  SimStore          *store;
  SimNormalizeFlags  flags;
  SimCorpusSnapshot *snapshot;
  GHashTable        *fresh;     /* Fresh windows of the last write, for the next snapshot */
  gboolean           read_only;
  gboolean           rebuilt;
};

/* Takes the snapshot of the store now, with the windows of the last write. */
gboolean           _sim_corpus_reload_snapshot (SimCorpus          *corpus,
                                                GError            **error);
/* The store's "normalize" setting: "t2s" or "none". (transfer full) */
char              *_sim_corpus_flags_string    (SimNormalizeFlags   flags);

G_END_DECLS
