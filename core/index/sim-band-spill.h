/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The pairs of an exact index too large to sort in memory
 * (sim_band_index_sort_pairs()), spilled to an unlinked file by ranges of
 * buckets, each range then read back and sorted on its own: a build holds
 * one range at a time, whatever the size of the index. At 1 GB of text a
 * build held 1.9 GB of records at once.
 *
 * Its writers (one a thread) put their pairs, as counted beforehand by
 * bucket, and flush; then the ranges are read, one after another. Depends
 * on the band index's sort alone.
 */
#pragma once

#include "sim-band-index.h"

G_BEGIN_DECLS

typedef struct _SimBandSpill SimBandSpill;

/* A spill for the pairs that writer t of @n_writers will put:
 * @counts[t * SIM_BAND_INDEX_FILE_BUCKETS + k] of bucket k, which start
 * at @offsets[k] in the index (SIM_BAND_INDEX_FILE_BUCKETS + 1 of them).
 * With @records, each pair's place is 4 bytes, and the spill keeps and
 * gives records (sim_band_index_sort_records()): 8 bytes a pair, not 16.
 * Ranges of buckets take no more than @memory bytes to read and sort,
 * but for a bucket larger on its own. Its file is made in the folder of
 * @path; NULL when it cannot be. */
SimBandSpill *sim_band_spill_new      (const char         *path,
                                       const guint32      *offsets,
                                       const guint32      *counts,
                                       guint               n_writers,
                                       gboolean            records,
                                       gsize               memory);
void          sim_band_spill_free     (SimBandSpill       *spill);
/* Puts a pair of writer @t: @fp (cut to SIM_BAND_INDEX_FILE_MASK) and its
 * @place. Any thread, each writer on one. */
void          sim_band_spill_put      (SimBandSpill       *spill,
                                       guint               t,
                                       guint64             fp,
                                       guint64             place);
/* Writes what writer @t holds; once it has put all its pairs. */
void          sim_band_spill_flush    (SimBandSpill       *spill,
                                       guint               t);
/* Whether every pair reached the file so far. */
gboolean      sim_band_spill_ok       (SimBandSpill       *spill);
guint         sim_band_spill_n_ranges (const SimBandSpill *spill);
/* Range @r's buckets: *@lo to *@hi - 1. */
void          sim_band_spill_range    (const SimBandSpill *spill,
                                       guint               r,
                                       guint              *lo,
                                       guint              *hi);
/* Range @r's pairs (or records), grouped by bucket and sorted on up to
 * @n_threads (sim_band_index_sort_pairs_range(), _records_range()), or
 * NULL when they cannot be read. Ranges may be read on several threads at
 * once. (transfer full) */
guint64      *sim_band_spill_read     (SimBandSpill       *spill,
                                       guint               r,
                                       guint               n_threads);
/* Whether it keeps records. */
gboolean      sim_band_spill_records  (const SimBandSpill *spill);

G_END_DECLS
