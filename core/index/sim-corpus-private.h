/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What sim-corpus.c (the writes) uses of sim-snapshot.c (the snapshot and
 * its index files). Not installed.
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
/* Takes @packed (_sim_pack_windows()) for @doc. */
void               _sim_fresh_put         (GHashTable             *table,
                                           const SimStoreDocument *doc,
                                           GBytes                 *packed);
G_END_DECLS
