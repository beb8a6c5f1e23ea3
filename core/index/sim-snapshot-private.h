/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The snapshot's fields and what its four files share: sim-snapshot.c
 * (the object, its parts and lookups), sim-index-list.c (the index files'
 * names and headers, and the document list they carry), sim-index-file.c
 * (the index files' parts: their format, reading and writing) and
 * sim-snapshot-build.c (planning and building the parts, and loading a
 * snapshot). Each uses only those before it. Nothing else reaches in.
 */
#pragma once

#include "sim-band-index.h"
#include "sim-band-spill.h"
#include "sim-corpus.h"
#include "sim-corpus-private.h"

G_BEGIN_DECLS

/* The snapshot's fingerprints come in at most two parts, each an exact index
 * with its per-fingerprint places: part 0 over the documents as they were
 * when the index file was written, part 1 (the delta) over the documents
 * added or changed since. Ids of part 1 follow those of part 0. A part names
 * documents by its own numbers, mapped to the snapshot's: a document removed
 * or changed since maps to none, so its fingerprints give no hit. */
typedef struct {
  SimBandIndex  *index;
  gsize          n_fps;
  guint64       *places;     /* built in memory: part document << 32 | code-point start */
  guint64       *pairs;      /* built and sorted, not indexed yet: (fingerprint, place) pairs */
  guint64       *records;    /* or records of @pos_bits (sim_band_index_sort_records()) */
  SimBandSpill  *spill;      /* or, built too large to sort in memory, spilled (the records' order) */
  guint          pos_bits;   /* of a record's position: 32, or 40 past 4G positions */
  guint32       *pair_offsets; /* where each bucket of any of them starts */
  const guint32 *pos_of;     /* the mapped file's positions (their low 4 bytes) */
  const guint8  *pos_hi_of;  /* and their fifth byte, with 5-byte places */
  GMappedFile   *mapped;     /* the part's file when mapped */
  int            fd;         /* the part's file when read as needed, else -1 */
  goffset        places_at;  /* where its per-fingerprint arrays start */
  guint          place_bytes; /* in the file: 4 or 5 (a position) */
  guint64       *bases;      /* part document -> its first position, with positions */
  guint32       *coarse;     /* position >> coarse_shift -> the document holding it */
  gsize          n_coarse;
  guint          coarse_shift; /* COARSE_SHIFT or more */
  guint32       *doc_map;    /* part document -> snapshot document, or G_MAXUINT32 */
  guint          n_docs;
} Part;

/* A window's place is kept in an index file as one position: its
 * document's first position plus its start, each document taking its
 * characters and one more (4 bytes a fingerprint instead of 8). A part of
 * 4G positions or more keeps a fifth byte of each, after the first four
 * of all. */
#define COARSE_SHIFT 12
#define PLACES_CHUNK (1u << 20)  /* places read or written at once */

/* A document as the snapshot keeps it, and as an index file's list holds
 * it (these bytes, native): its path and title are at @names in the
 * snapshot's names (the path, a NUL, the title, a NUL: @names_len bytes),
 * checked against @names_hash when the document is first asked for
 * (sim_corpus_snapshot_get_doc()), so that an open reads none of them. */
typedef struct {
  gint64  id;
  guint64 row;         /* what the row says of the document: id, sizes, time, content */
  gint64  n_chars;
  gint64  updated_at;
  gint64  n_windows;
  guint64 names;
  guint32 names_len;
  guint32 names_hash;  /* the low 32 bits of XXH3 of its names */
} DocEntry;

G_STATIC_ASSERT (sizeof (DocEntry) == 56);

/* A snapshot read from elsewhere than a local store (a corpus server,
 * sim-server-snapshot.c): what it answers in place of the parts, the
 * documents and the store. Any thread. */
typedef struct {
  guint               (*n_docs)     (const SimCorpusSnapshot *snapshot);
  const SimCorpusDoc *(*get_doc)    (const SimCorpusSnapshot *snapshot,
                                     guint                    index);
  gboolean            (*lookup)     (SimCorpusSnapshot       *snapshot,
                                     const guint64           *fps,
                                     gsize                    n_fps,
                                     GArray                  *out,
                                     guint32                 *out_ends,
                                     GError                 **error);
  void                (*expect)     (SimCorpusSnapshot       *snapshot,
                                     const guint64           *fps,
                                     gsize                    n_fps);
  void                (*get_places) (const SimCorpusSnapshot *snapshot,
                                     const guint32           *ids,
                                     gsize                    n,
                                     guint32                 *docs,
                                     guint32                 *starts);
  gboolean            (*read_texts) (const SimCorpusSnapshot *snapshot,
                                     const guint             *indices,
                                     guint                    n,
                                     const guint32           *los,
                                     const guint32           *his,
                                     SimStoreText           **texts,
                                     GError                 **error);
  void                (*free)       (gpointer                 data);
} SnapshotRemote;

struct _SimCorpusSnapshot {
  const SnapshotRemote *remote;  /* or NULL: a local store's */
  gpointer           remote_data;
  guint              n_documents; /* the corpus's documents, when remote */
  gsize              n_windows;   /* the documents' windows (rows' n_windows summed, locally) */
  gint               ref_count;
  char              *store_path;
  SimNormalizeFlags  flags;
  /* The documents, in id order: an index file's list, mapped, or made
   * from the store's rows (or an older file's list) in @own_entries and
   * @own_names. The names of an entry: _sim_snapshot_entry_names(). */
  const DocEntry    *entries;
  guint              n_entries;
  const char        *names;     /* in memory, or */
  int                names_fd;  /* in the list's file (borrowed from @list), at @names_at */
  goffset            names_at;
  gsize              names_len;
  GArray            *own_entries;
  GByteArray        *own_names;
  GBytes            *list;
  guint64            list_key;  /* the key of the index file @list is from */
  /* Each made from its entry when first asked for (zeros until then, all
   * made once @docs is): sim_corpus_snapshot_get_doc(). */
  SimCorpusDoc      *docs;
  GStringChunk      *names_kept; /* their names, when read from the list's file */
  GMutex             docs_lock;
  gint64             updated_at; /* the latest document's, Unix seconds */
  Part               parts[2];
  guint              n_parts;
  SimWeights        *weights;
  GBytes            *packed_df;  /* the weights' counts as the store keeps them, when read from it */
  GMutex             index_lock;
  /* Connections that read texts, idle between reads (read_texts()). */
  GMutex             readers_lock;
  GPtrArray         *readers;
  /* For lookups that tolerate differing bits: every window again, with
   * all 64 bits (the parts keep 48), and band indexes over them by max
   * distance, built on first use. Their ids follow those of the parts. */
  Part               near;
  SimBandIndex      *bands[SIM_BAND_INDEX_MAX_DISTANCE + 1];
};

/* ------------------------------------------------------ index files */

#define INDEX_MAGIC   "SIMHIDX1"
/* What the records mean (a change rebuilds every file: it is in the base). */
#define INDEX_VERSION 11
/* The version files are written with: since 12 a large table ends with a
 * fence (sim_band_index_fence()), which a reader of 11 would take for
 * places; since 13 the document list is a table (ListHead). Files of 11
 * and 12 are read as they are. */
#define INDEX_FILE_VERSION 13
#define INDEX_VERSION_READ(v) ((v) >= INDEX_VERSION && (v) <= INDEX_FILE_VERSION)
#define INDEX_LIST_TABLE(v)   ((v) >= 13)
#define KIND_INDEX    0
#define KIND_DELTA    1
/* A delta holds at most this share of the index file's fingerprints (and of
 * this many), and the index file's documents removed or changed since at
 * most this share of its fingerprints: beyond, everything is built again. */
#define DELTA_SHARE   4
#define DELTA_MAX     (4u << 20)

typedef struct {
  char    magic[8];
  guint32 version;
  guint16 kind;
  guint16 place_bytes; /* a fingerprint's place: a position in 4 or 5 bytes */
  guint64 key;
  guint64 base;
  guint64 n_fps;
  guint64 n_docs;
  guint64 stamp;     /* index_stamp() when written */
  guint64 list_len;  /* bytes of the document list after the header */
} IndexHeader;

typedef struct {
  gint64  id;
  guint64 row;
  guint64 base;  /* its first position */
} IndexDoc;

G_STATIC_ASSERT (sizeof (IndexHeader) == 64);
G_STATIC_ASSERT (sizeof (IndexDoc) == 24);

typedef struct {
  SimCorpusSnapshot *snapshot;
  XXH3_state_t      *key;
  guint64            n_windows;
  guint64            n_chars;
} ListState;

/* Index files up to this size are mapped; larger ones are read bucket by
 * bucket (SIMHOUND_INDEX_MAP_LIMIT, in bytes, sets it for tests and
 * benchmarks). A check touches a bucket a window: mapped, each costs a page
 * fault and stays in the process's memory, so a check of a large corpus
 * held gigabytes of mapped pages; a small file is soon mapped whole, and
 * then reading from memory is faster than asking for it. At 225 MB (105 MB
 * of text) mapping made a `check` process 0.15 -> 0.22 s and 38 -> 214 MB,
 * while a check in a process that had mapped it already was 10% faster. */
#define INDEX_MAP_LIMIT (64u << 20)

/* The document list a file carries, so that an open finding the file
 * current maps it instead of reading every row of the store. Since
 * version 13: a hash of the head's rest and the entries, the number of
 * documents, their windows summed and the latest update time (ListHead),
 * their entries (DocEntry), then their names, zeros up to a multiple of 8
 * bytes; an open reads the head and the entries, and names as they are
 * asked for. Before: a hash of what follows, then per document a ListEntry
 * and its path and title, each with a NUL after it, and the zeros. */
typedef struct {
  guint64 hash;
  guint64 n_docs;
  guint64 n_windows;
  gint64  updated_at;
} ListHead;

typedef struct {
  gint64  id;
  guint64 row;
  gint64  n_chars;
  gint64  updated_at;
  gint64  n_windows;
  guint32 path_len;
  guint32 title_len;
} ListEntry;

G_STATIC_ASSERT (sizeof (ListHead) == 32);
G_STATIC_ASSERT (sizeof (ListEntry) == 48);

/* ------------------------------------------------------ shared
 * sim-snapshot.c: the object and its parts; sim-index-list.c: the files'
 * names, headers and document lists (uses sim-snapshot.c);
 * sim-index-file.c: the parts in the files (uses both);
 * sim-snapshot-build.c uses all three. */

/* Windows a write has just computed (an import, a rebuild), by document
 * id: the next snapshot takes them instead of fingerprinting the text
 * again. They hold for the row they were computed with. */
typedef struct {
  gint64      id;      /* its key in the table */
  guint64     row;
  SimStashed  packed;  /* _sim_pack_windows() */
} Fresh;

void                _sim_snapshot_add_doc (SimCorpusSnapshot *snapshot,
                                           const DocEntry *entry,
                                           const char *path,
                                           gsize path_len,
                                           const char *title,
                                           gsize title_len);
void                _sim_snapshot_part_init (Part *part);
void                _sim_snapshot_part_index_bases (Part *part);
void                _sim_snapshot_part_clear (Part *part);
void                _sim_snapshot_part_read_places (const Part *part,
                                                    gsize first,
                                                    gsize n,
                                                    guint32 *docs,
                                                    guint32 *starts);
guint64             _sim_snapshot_part_positions (const SimCorpusSnapshot *snapshot,
                                                  const guint32 *doc_map,
                                                  guint n_docs,
                                                  guint64 *bases);
guint               _sim_snapshot_position_bits (guint64 n_positions);
gboolean            _sim_snapshot_index_peek (const char *store_path,
                                              guint kind,
                                              IndexHeader *out);
gboolean            _sim_snapshot_load_list (SimCorpusSnapshot *snapshot,
                                             guint kind,
                                             const IndexHeader *header,
                                             GThread **out_checking);
gboolean            _sim_snapshot_list_checked (GThread *checking);
gboolean            _sim_snapshot_part_open (SimCorpusSnapshot *snapshot,
                                             guint kind,
                                             guint64 base,
                                             Part *part,
                                             IndexHeader *out_header,
                                             guint32 **out_counts);
void                _sim_snapshot_clear_docs (SimCorpusSnapshot *snapshot);
guint32             _sim_snapshot_names_hash (const char *names,
                                              gsize len);
const char *        _sim_snapshot_entry_names (const SimCorpusSnapshot *snapshot,
                                               const DocEntry *entry,
                                               GByteArray *scratch);
SimCorpusSnapshot * _sim_snapshot_new (const char *store_path,
                                       SimNormalizeFlags flags);
guint64             _sim_snapshot_index_base (SimStore *store,
                                              SimNormalizeFlags flags);
guint64             _sim_snapshot_index_stamp (SimStore *store,
                                               guint64 base,
                                               guint32 df_docs);
void                _sim_snapshot_add_document (const SimStoreDocument *sd,
                                                gpointer user_data);
gboolean            _sim_snapshot_part_write (SimCorpusSnapshot *snapshot,
                                              const Part *part,
                                              guint kind,
                                              guint64 key,
                                              guint64 base,
                                              guint64 stamp);
void                _sim_snapshot_part_use_file (SimCorpusSnapshot *snapshot,
                                                 Part *part,
                                                 guint kind,
                                                 guint64 base);
void                _sim_snapshot_use_list (SimCorpusSnapshot *snapshot,
                                            guint kind,
                                            guint64 key);

gsize               _sim_snapshot_list_size (const SimCorpusSnapshot *snapshot);
gboolean            _sim_snapshot_write_list (const SimCorpusSnapshot *snapshot,
                                              int fd,
                                              goffset at,
                                              gsize len);
GBytes *            _sim_snapshot_read_list (const char *store_path,
                                             guint kind,
                                             const IndexHeader *header);
char *              _sim_snapshot_index_path (const char *store_path,
                                              guint kind);
guint64             _sim_snapshot_row_key (const SimStoreDocument *sd);

G_END_DECLS
