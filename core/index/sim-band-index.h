/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The pigeonhole band index: a 64-bit fingerprint is cut into B blocks
 * (B = max (4, k + 1)), so two fingerprints within Hamming distance k agree on
 * at least one whole block. Each block has a table of all fingerprints
 * grouped by that block's value; a lookup scans the query's bucket in every
 * table and keeps the fingerprints within the distance. 32 bytes per
 * fingerprint for k <= 3, the fingerprints included.
 *
 * An index built for k = 0 (exact) keeps table 0 alone: 8 bytes per
 * fingerprint, sorted, so a lookup is a binary search of one bucket. Any
 * index answers a k = 0 lookup from table 0 alone. The index a file keeps
 * compares the low SIM_BAND_INDEX_FILE_BITS of each fingerprint: 3 bytes a
 * fingerprint there (bits 16-39; the low 16 are its bucket's key). Two
 * fingerprints that agree on those bits are one to it: among the 230
 * million windows of a corpus of a billion characters, one query in 5,000
 * meets one by chance (half a hit a check), and the check verifies every
 * hit against the texts.
 *
 * Immutable once built: any number of threads may look up at once.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define SIM_BAND_INDEX_MAX_DISTANCE 15
#define SIM_BAND_INDEX_FILE_BITS    40
#define SIM_BAND_INDEX_FILE_MASK    ((G_GUINT64_CONSTANT (1) << SIM_BAND_INDEX_FILE_BITS) - 1)
#define SIM_BAND_INDEX_FILE_BUCKETS (1u << 16)  /* by the low 16 bits */
/* A lookup in a file reads a bucket of fewer records whole. */
#define SIM_BAND_INDEX_READ_WHOLE_BELOW 256

typedef struct _SimBandIndex SimBandIndex;

/* Builds an index over a copy of @fps, answering lookups up to
 * @max_distance. With @out_order NULL, lookups report positions in @fps (at 4
 * more bytes per fingerprint). Otherwise the index numbers fingerprints in
 * its own order: fingerprint i is @fps[(*out_order)[i]] (the caller frees
 * *out_order and reorders whatever it keeps per fingerprint), and
 * sim_band_index_get_fps() returns them in that order. */
SimBandIndex *sim_band_index_new              (const guint64      *fps,
                                               gsize               n_fps,
                                               guint               max_distance,
                                               guint32           **out_order);
/* The same as sim_band_index_new() with k = 0 and @out_order, over the low
 * SIM_BAND_INDEX_FILE_BITS of each of @fps (the index a file keeps; lookups
 * compare those bits alone, and get_fps() gives them with the others 0).
 * @fps is transfer full: freed with g_free() as soon as the index holds a
 * copy, which lowers the peak of a large build by 8 bytes a fingerprint. */
SimBandIndex *sim_band_index_new_take         (guint64            *fps,
                                               gsize               n_fps,
                                               guint32           **out_order);
/* sim_band_index_new_take() over @pairs: each fingerprint followed by 8
 * bytes of the caller's (2 x @n_fps words, transfer full), which travel
 * through its sort instead of an order being made: *@out_payload[i]
 * (transfer full) is that of fingerprint i. Equal fingerprints come in the
 * order of their 8 bytes (for bytes that grow with the input, the order a
 * stable sort gives). Sorted where they are: 24 bytes a fingerprint at the
 * peak, 8 of them fresh. */
SimBandIndex *sim_band_index_new_take_pairs   (guint64            *pairs,
                                               gsize               n_fps,
                                               guint64           **out_payload);
/* Sorts @pairs (as above) where they are, into the order of the index
 * sim_band_index_new_take_pairs() builds over them, and fills @offsets
 * (SIM_BAND_INDEX_FILE_BUCKETS + 1) with where each bucket starts. */
void          sim_band_index_sort_pairs       (guint64            *pairs,
                                               gsize               n_fps,
                                               guint32            *offsets);
/* Records: the bits of a fingerprint an index file keeps but its bucket
 * (bits 16-39) << @pos_bits | the caller's @pos_bits (32, or 40 for
 * places past 4G), bucket by bucket, bucket k in [@offsets[k],
 * @offsets[k + 1]) (SIM_BAND_INDEX_FILE_BUCKETS + 1 offsets): 8 bytes a
 * fingerprint instead of a pair's 16. Sorts each bucket's records where
 * they are, which puts them in the order sim_band_index_sort_pairs() gives
 * pairs whose 8 bytes grow with the low bits. */
void          sim_band_index_sort_records     (guint64            *records,
                                               const guint32      *offsets,
                                               guint               pos_bits);
/* The same for buckets @lo to @hi - 1 only, bucket k's at @offsets[k] -
 * @offsets[@lo] of @records, on up to @n_threads. */
void          sim_band_index_sort_records_range (guint64       *records,
                                                 const guint32 *offsets,
                                                 guint          lo,
                                                 guint          hi,
                                                 guint          pos_bits,
                                                 guint          n_threads);
/* Pairs (as above, fingerprints cut to SIM_BAND_INDEX_FILE_MASK) of
 * buckets @lo to @hi - 1 only, grouped by bucket: bucket k's at
 * @offsets[k] - @offsets[@lo] of @pairs. Sorts each bucket where it is
 * into the order sim_band_index_sort_pairs() gives, on up to @n_threads. */
void          sim_band_index_sort_pairs_range (guint64            *pairs,
                                               const guint32      *offsets,
                                               guint               lo,
                                               guint               hi,
                                               guint               n_threads);
void          sim_band_index_free             (SimBandIndex       *index);
guint         sim_band_index_get_max_distance (const SimBandIndex *index);
guint         sim_band_index_get_n_blocks     (const SimBandIndex *index);
gsize         sim_band_index_get_size         (const SimBandIndex *index);
/* The fingerprints in id order when the index chose the order and holds
 * them in memory (built or mapped), else NULL. */
const guint64 *sim_band_index_get_fps         (const SimBandIndex *index);
/* Bytes the index uses, its copies of the fingerprints included. */
gsize         sim_band_index_get_memory       (const SimBandIndex *index);
/* An exact index of SIM_BAND_INDEX_FILE_BITS (sim_band_index_new_take*())
 * as bytes, to be written to a file and mapped or read again (8-aligned):
 *
 *   u32 bucket offsets x (SIM_BAND_INDEX_FILE_BUCKETS + 1) | u32 fence bits f
 *   | the table, 3 bytes a fingerprint (bits 16-39, the low 16 being its
 *   bucket's), padded to 8 | with f > 0, the fence: u32 x (2^(16 + f) + 1),
 *   padded to 8
 *
 * A bucket's records are sorted by their 24 bits; the fence's entry
 * (k << f) + s is where the first record of bucket k whose top f bits are
 * s or more is (sim_band_index_fence()), so that a lookup in a file reads
 * the records of its part of a bucket and no others. Files from before
 * fences have f = 0. */
typedef gboolean (*SimBandIndexWriteFunc) (gconstpointer data,
                                           gsize         len,
                                           gpointer      user_data);
/* The fence bits a writer takes for @n_fps: parts of about 128 records in
 * buckets a lookup would not read whole, at most 8 bits (64 MB of fence
 * for buckets of 36,000 records at 2.4 billion windows); 0, no fence, for
 * smaller tables. */
guint         sim_band_index_fence_bits   (gsize n_fps);
gsize         sim_band_index_get_serialized_size (gsize n_fps,
                                                  guint fence_bits);
/* The size of the index serialized at @offset of @fd, as its fence bits
 * say; 0 when they cannot be read or are not a fence's. */
gsize         sim_band_index_read_serialized_size (int     fd,
                                                   goffset offset,
                                                   gsize   n_fps);
/* The fence entries of buckets @lo to @hi - 1 (2^@fence_bits each) into
 * @out, from their records: @values every @stride words, a record's 24
 * bits at @shift, bucket k's from @values[(@offsets[k] - @first) * @stride]. */
void          sim_band_index_fence        (const guint64 *values,
                                           guint          stride,
                                           guint          shift,
                                           const guint32 *offsets,
                                           guint          lo,
                                           guint          hi,
                                           gsize          first,
                                           guint          fence_bits,
                                           guint32       *out);
/* The table's records of @n fingerprints at @fps (every @stride words,
 * the bits kept at @shift: 16 for fingerprints, a record's position bits) into
 * @out: 3 bytes each, and one more byte of room after them. */
void          sim_band_index_pack_records (const guint64 *fps,
                                           gsize          n,
                                           guint          stride,
                                           guint          shift,
                                           guint8        *out);
/* Hands the bytes to @write in order; FALSE as soon as @write fails. */
gboolean      sim_band_index_serialize    (const SimBandIndex    *index,
                                           guint                  fence_bits,
                                           SimBandIndexWriteFunc  write,
                                           gpointer               user_data);
/* The same bytes for the index over @pairs sorted by
 * sim_band_index_sort_pairs(), without building it. */
gboolean      sim_band_index_serialize_pairs (const guint64         *pairs,
                                              gsize                  n_fps,
                                              const guint32         *offsets,
                                              guint                  fence_bits,
                                              SimBandIndexWriteFunc  write,
                                              gpointer               user_data);
/* The same bytes for the index over sorted records of @pos_bits
 * (sim_band_index_sort_records()). */
gboolean      sim_band_index_serialize_records (const guint64         *records,
                                                gsize                  n_fps,
                                                const guint32         *offsets,
                                                guint                  pos_bits,
                                                guint                  fence_bits,
                                                SimBandIndexWriteFunc  write,
                                                gpointer               user_data);
/* An exact index over @data (sim_band_index_serialize() of @n_fps fingerprints),
 * used in place and never copied: @data must outlive it. NULL when the
 * bucket offsets are not those of such an index (a damaged file); damaged
 * fingerprints only give wrong hits, never reads out of bounds. */
SimBandIndex *sim_band_index_new_mapped   (const guint8       *data,
                                           gsize               len,
                                           gsize               n_fps);

/* The same index read from @fd at @offset, bucket by bucket as lookups need
 * them, instead of mapped: the process holds 1 MB of bucket offsets and
 * touches no page of the file (a check of a large corpus otherwise maps a
 * page for every bucket it reads). @fd is duplicated; NULL when the offsets
 * are damaged. A file cut short afterwards reads as zeros: wrong hits,
 * never a read out of bounds. */
SimBandIndex *sim_band_index_new_read     (int                 fd,
                                           goffset             offset,
                                           gsize               n_fps);
/* Every fingerprint, in id order (read from the file when the index is),
 * as far as the index keeps it. (transfer full) */
guint64      *sim_band_index_dup_fps      (const SimBandIndex *index);
/* The fingerprints of ids @from to @from + @n - 1 into @out, for an index
 * that keeps them in id order (one whose order was not the caller's). */
void          sim_band_index_read_fps     (const SimBandIndex *index,
                                           gsize               from,
                                           gsize               n,
                                           guint64            *out);

/* Appends to @out (GArray of guint32) the index of every fingerprint within
 * @max_distance (<= the index's) of @fp, each once. Returns how many. */
gsize         sim_band_index_lookup           (const SimBandIndex *index,
                                               guint64             fp,
                                               guint               max_distance,
                                               GArray             *out);
/* Looks up @n_fps fingerprints at once, overlapping their memory accesses:
 * the ids found for fps[i] are out[out_ends[i - 1] .. out_ends[i]) (from 0
 * for i = 0). @out_ends holds @n_fps entries. With @max_hits above 0, a
 * fingerprint found more often than that reports @max_hits + 1 of its ids
 * (of an exact index, the first in id order): enough to tell that it is,
 * for a caller that wants none of them then. */
void          sim_band_index_lookup_many      (const SimBandIndex *index,
                                               const guint64      *fps,
                                               gsize               n_fps,
                                               guint               max_distance,
                                               guint               max_hits,
                                               GArray             *out,
                                               guint32            *out_ends);
/* The same answer by a brute-force popcount scan, for tests and benchmarks. */
gsize         sim_band_index_scan             (const guint64      *fps,
                                               gsize               n_fps,
                                               guint64             fp,
                                               guint               max_distance,
                                               GArray             *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimBandIndex, sim_band_index_free)

G_END_DECLS
