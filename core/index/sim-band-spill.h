/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The records of an exact index too large to sort in memory
 * (sim_band_index_sort_records()), spilled to an unlinked file by ranges of
 * buckets, each range then read back and sorted on its own: a build holds
 * one range at a time, whatever the size of the index. At 1 GB of text a
 * build held 1.9 GB of records at once.
 *
 * Its writers (one a thread) put their records, as counted beforehand by
 * bucket, and flush; then the ranges are read, one after another. Depends
 * on the band index's sort alone.
 */
#pragma once

#include "sim-band-index.h"

G_BEGIN_DECLS

typedef struct _SimBandSpill SimBandSpill;

/* A spill for the records that writer t of @n_writers will put:
 * @counts[t * SIM_BAND_INDEX_FILE_BUCKETS + k] of bucket k, which start
 * at @offsets[k] in the index (SIM_BAND_INDEX_FILE_BUCKETS + 1 of them).
 * A record is a fingerprint and its place, below @n_places; it is kept in
 * 8 bytes with its bucket, and read back as records of @pos_bits
 * (sim_band_index_sort_records()). Ranges of buckets take no more than
 * @memory bytes to read and sort, but for a bucket larger on its own. Its
 * file is made in the folder of @path; NULL when it cannot be, or when
 * places that large cannot be kept. */
SimBandSpill *sim_band_spill_new      (const char         *path,
                                       const guint32      *offsets,
                                       const guint32      *counts,
                                       guint               n_writers,
                                       guint64             n_places,
                                       guint               pos_bits,
                                       gsize               memory);
void          sim_band_spill_free     (SimBandSpill       *spill);
/* Puts a record of writer @t: @fp (cut to SIM_BAND_INDEX_FILE_MASK) and
 * its @place. Any thread, each writer on one. */
void          sim_band_spill_put      (SimBandSpill       *spill,
                                       guint               t,
                                       guint64             fp,
                                       guint64             place);
/* Writes what writer @t holds; once it has put all its records. */
void          sim_band_spill_flush    (SimBandSpill       *spill,
                                       guint               t);
/* Whether every record reached the file so far. */
gboolean      sim_band_spill_ok       (SimBandSpill       *spill);
guint         sim_band_spill_n_ranges (const SimBandSpill *spill);
/* Range @r's buckets: *@lo to *@hi - 1. */
void          sim_band_spill_range    (const SimBandSpill *spill,
                                       guint               r,
                                       guint              *lo,
                                       guint              *hi);
/* Range @r's records, grouped by bucket and sorted on up to @n_threads
 * (sim_band_index_sort_records_range()), or NULL when they cannot be
 * read. Ranges may be read on several threads at once. (transfer full) */
guint64      *sim_band_spill_read     (SimBandSpill       *spill,
                                       guint               r,
                                       guint               n_threads);

G_END_DECLS
