/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the band index's files share: the index itself and its file
 * format's records. sim-band-index.c makes and looks up (the hot path),
 * sim-band-index-build.c sorts fingerprints into the tables on every core,
 * sim-band-index-file.c writes and maps the serialized form.
 */
#pragma once

#include <string.h>

#include "sim-band-index.h"

#define MAX_BLOCKS (SIM_BAND_INDEX_MAX_DISTANCE + 1)
#define MAPPED_BUCKETS SIM_BAND_INDEX_FILE_BUCKETS

struct _SimBandIndex {
  gsize          n_fps;
  guint          max_distance;
  guint          n_blocks;
  guint          n_tables;            /* n_blocks, or 1 for an exact index (k = 0) */
  guint          shift[MAX_BLOCKS];
  guint64        mask[MAX_BLOCKS];
  guint32       *offsets[MAX_BLOCKS]; /* 2^width + 1 bucket starts into tables[b] */
  guint64       *tables[MAX_BLOCKS];  /* all fingerprints grouped by block b */
  guint32       *perm;                /* table-0 position -> caller's id, or NULL */
  gboolean       has_popcnt;
  gboolean       mapped;              /* offsets and tables belong to the caller's memory */
  int            fd;                  /* read from a file: its descriptor (tables NULL), else -1 */
  goffset        tables_at;           /* where table 0 starts in it */
  goffset        fence_at;            /* where its fence starts, if it has one */
  guint          fence_bits;          /* a bucket's parts in the fence: 2^fence_bits, or none for 0 */
  const guint8  *packed;              /* mapped from a file: table 0's records (tables NULL) */
  guint64        key_mask;            /* the bits of a fingerprint it compares */
  guint          top_shift;           /* where their top byte starts */
};

/* Serialized, table 0 keeps bits 16-39 of each fingerprint (3 bytes, low
 * first): its low 16 are its bucket's key, and an index that can be
 * serialized compares no more than SIM_BAND_INDEX_FILE_BITS. */
#define RECORD_BYTES ((SIM_BAND_INDEX_FILE_BITS - 16) / 8)
#define FILE_MASK    SIM_BAND_INDEX_FILE_MASK
#define RECORD_BITS  (SIM_BAND_INDEX_FILE_BITS - 16)

static inline guint64
block_key (const SimBandIndex *index,
           guint               b,
           guint64             fp)
{
  return (fp >> index->shift[b]) & index->mask[b];
}

/* A fingerprint and what travels with it through the sort: its input
 * position, or the caller's 8 bytes (sim_band_index_new_take_pairs()). */
typedef struct {
  guint64 fp;
  guint64 tag;
} Entry;

/* An index of @n_fps fingerprints with its blocks laid out, no tables yet. */
SimBandIndex *_sim_band_index_new_empty (gsize n_fps,
                                         guint max_distance);
/* Memory for a table of @bytes, on huge pages when it is large. Free with g_free. */
gpointer      _sim_band_index_alloc     (gsize bytes);
