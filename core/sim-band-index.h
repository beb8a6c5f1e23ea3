/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The pigeonhole band index: a 64-bit fingerprint is cut into B blocks
 * (B = max (4, k + 1)), so two fingerprints within Hamming distance k agree on
 * at least one whole block. Each block is a bucket table (counting-sorted ids
 * plus 2^width + 1 offsets); a lookup scans the query's bucket in every block
 * and keeps the candidates within the distance. 4 bytes per fingerprint and
 * block: 16 bytes for k <= 3, on top of the fingerprints themselves.
 *
 * Immutable once built: any number of threads may look up at once.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define SIM_BAND_INDEX_MAX_DISTANCE 15

typedef struct _SimBandIndex SimBandIndex;

/* Builds an index over @fps (borrowed: it must outlive the index), answering
 * lookups up to @max_distance. */
SimBandIndex *sim_band_index_new              (const guint64      *fps,
                                               gsize               n_fps,
                                               guint               max_distance);
void          sim_band_index_free             (SimBandIndex       *index);
guint         sim_band_index_get_max_distance (const SimBandIndex *index);
guint         sim_band_index_get_n_blocks     (const SimBandIndex *index);
gsize         sim_band_index_get_size         (const SimBandIndex *index);
/* Bytes the index itself uses, the fingerprints excluded. */
gsize         sim_band_index_get_memory       (const SimBandIndex *index);
/* Appends to @out (GArray of guint32) the index of every fingerprint within
 * @max_distance (<= the index's) of @fp, each once. Returns how many. */
gsize         sim_band_index_lookup           (const SimBandIndex *index,
                                               guint64             fp,
                                               guint               max_distance,
                                               GArray             *out);
/* The same answer by a brute-force popcount scan, for tests and benchmarks. */
gsize         sim_band_index_scan             (const guint64      *fps,
                                               gsize               n_fps,
                                               guint64             fp,
                                               guint               max_distance,
                                               GArray             *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimBandIndex, sim_band_index_free)

G_END_DECLS
