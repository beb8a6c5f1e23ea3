/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Packed windows (sim-window-codec.h) kept for a build: what an import
 * hands the next snapshot, what a build fingerprints from the texts. In
 * memory up to a share of the build's budget (_sim_build_memory()), and
 * beyond it in an unlinked file beside the store, read back a document at
 * a time: an import of 1 GB of text held 2.1 GB of packed windows until
 * its snapshot was built. Depends on nothing of the index. Any thread.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct _SimStash SimStash;

/* A document's packed windows as a stash keeps them. All zero: none. */
typedef struct {
  SimStash *stash;      /* (owned) what holds them, or NULL: none */
  GBytes   *bytes;      /* in memory, or NULL: @len bytes at @at of the stash's file */
  guint64   at;
  gsize     len;
  gsize     n_windows;
} SimStashed;

/* The memory a build may hold of windows and fingerprints (the stash a
 * quarter of it), in bytes: $SIMHOUND_BUILD_MEMORY (tests and benchmarks
 * set it), else 256 MiB. */
gsize       _sim_build_memory   (void);

/* A stash whose file, once needed, is made in the folder of @store_path. */
SimStash   *_sim_stash_new      (const char       *store_path);
SimStash   *_sim_stash_ref      (SimStash         *stash);
void        _sim_stash_unref    (SimStash         *stash);
/* Takes @packed, @n_windows windows, into *@out: kept in memory while the
 * stash holds less than its share there, else written to its file (and
 * kept in memory when it cannot be). */
void        _sim_stash_keep     (SimStash         *stash,
                                 GBytes           *packed,
                                 gsize             n_windows,
                                 SimStashed       *out);
/* Whether @held holds windows. */
static inline gboolean
_sim_stashed_any (const SimStashed *held)
{
  return held->stash != NULL;
}
/* @held's bytes: a reference to those in memory, or read from the file.
 * (transfer full) */
GBytes     *_sim_stashed_get    (const SimStashed *held);
void        _sim_stashed_clear  (SimStashed       *held);

/* An unlinked file for a build's scratch in the folder of @path (the
 * store's, not /tmp: often memory itself), or -1. */
int         _sim_scratch_file   (const char       *path);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimStash, _sim_stash_unref)

G_END_DECLS
