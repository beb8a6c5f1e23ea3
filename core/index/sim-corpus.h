/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The reference corpus: a store plus the in-memory snapshot checks run
 * against. Adding is incremental (unchanged files are skipped by content
 * hash, changed ones replaced), parallel, cancellable and transactional: each
 * batch of documents is one transaction, so a cancel or a crash leaves every
 * committed document intact and the store never half-written.
 *
 * A SimCorpus is used by one thread at a time. A SimCorpusSnapshot is
 * immutable and reference-counted: any thread may read it, and it stays
 * valid after the corpus changes or is freed.
 */
#pragma once

#include <gio/gio.h>

#include "sim-band-index.h"
#include "sim-fingerprint.h"
#include "sim-store.h"

G_BEGIN_DECLS

/* Documents per import transaction (or 16 MiB of text, whichever comes
 * first): large enough to amortise writing the 4 MiB feature statistics
 * (packing them takes some 10 ms; at 512 documents a batch, the essays of
 * ../shared/corpora paid it 19 times). */
#define SIM_CORPUS_BATCH_DOCS 2048

typedef struct _SimCorpus SimCorpus;
typedef struct _SimCorpusSnapshot SimCorpusSnapshot;

typedef struct {
  gint64      id;
  const char *path;
  const char *title;
  gint64      n_chars;
  /* Its text is kept from this account (a corpus server's student): a
   * check matches it by the keys both share, and shows no source text. */
  gboolean    text_withheld;
} SimCorpusDoc;

/* Called on the thread that runs the operation. @what is a path or NULL. */
typedef void (*SimProgressFunc) (guint64     done,
                                 guint64     total,
                                 const char *what,
                                 gpointer    user_data);

typedef struct {
  guint      n_added;
  guint      n_updated;
  guint      n_unchanged;
  guint      n_failed;
  guint      n_removed; /* sim_corpus_rescan: files gone from the folder */
  guint64    n_bytes;   /* bytes of text indexed */
  GPtrArray *failures;  /* (element-type utf8): "path: reason" */
} SimImportResult;

void               sim_import_result_free     (SimImportResult *result);

/* The default store: $SIMHOUND_STORE, else $XDG_DATA_HOME/simhound/corpus.db. */
char              *sim_corpus_dup_default_path (void);

/* Opens or creates the store at @path and loads its snapshot. A store whose
 * fingerprints were made with another feature version is rebuilt from its
 * stored text first (not possible with @read_only: then it fails). */
SimCorpus         *sim_corpus_open            (const char        *path,
                                               gboolean           read_only,
                                               GError           **error);
void               sim_corpus_free            (SimCorpus         *corpus);
const char        *sim_corpus_get_path        (const SimCorpus   *corpus);
SimStore          *sim_corpus_get_store       (SimCorpus         *corpus);
/* (transfer full) */
SimCorpusSnapshot *sim_corpus_ref_snapshot    (SimCorpus         *corpus);
/* Whether traditional Chinese folds to simplified (the default) is part of
 * the store: changing it rebuilds every fingerprint from the stored text, in
 * one transaction. */
SimNormalizeFlags  sim_corpus_get_flags       (const SimCorpus   *corpus);
gboolean           sim_corpus_set_flags       (SimCorpus         *corpus,
                                               SimNormalizeFlags  flags,
                                               GError           **error);
/* What checking or repairing a store found. */
typedef struct {
  guint      n_sound;       /* texts that read back whole */
  guint      n_upgraded;    /* texts from before checksums, packed again with one */
  GPtrArray *damaged;       /* "document ID, PATH: ..." of each damaged text */
  GPtrArray *healed;        /* paths read again from their unchanged files */
  GPtrArray *set_aside;     /* "PATH: why" of each document set aside */
  GPtrArray *salvaged;      /* damaged SQLite pages: the documents lost, and the damaged file kept; or NULL */
  char      *index_damage;  /* what is wrong with the database, the index files or the statistics, or NULL */
} SimRepairResult;

void               sim_repair_result_free     (SimRepairResult *result);

/* Reads every stored text whole and opens the index files as a check
 * does, and says what is damaged; changes nothing. NULL only when the
 * store cannot be opened at all. (transfer full) */
SimRepairResult   *sim_corpus_verify          (const char        *path,
                                               GError           **error);
/* Mends the store at @path, whatever is damaged: a damaged text whose file
 * is still there and unchanged (its content hash) is read again, any other
 * is set aside (kept in the table set_aside, out of the corpus) and named;
 * then every fingerprint, the feature statistics and the index files are
 * made again from the texts, in one transaction. (transfer full) */
SimRepairResult   *sim_corpus_rebuild         (const char        *path,
                                               GError           **error);
/* TRUE when fingerprints were rebuilt on open (feature version changed). */
gboolean           sim_corpus_was_rebuilt     (const SimCorpus   *corpus);

/* One file as an import reads it: its row (path, title, content hash,
 * sizes, windows, modification time), its text, its windows packed
 * (sim-window-codec.h) and the df buckets it adds. The same for the local
 * store and the corpus server, so both index a file alike. */
typedef struct {
  SimStoreDocument *doc;
  char             *text;
  gsize             text_len;
  GBytes           *packed;
  GArray           *buckets;
} SimPreparedFile;

typedef enum {
  SIM_PREPARED_NEW,
  SIM_PREPARED_CHANGED,    /* @old_hash given and different */
  SIM_PREPARED_UNCHANGED,  /* @old_hash given and the same: nothing read past the hash */
  SIM_PREPARED_FAILED,     /* @error says why, naming the file */
} SimPreparedState;

/* Reads, decodes and fingerprints @path into @out (cleared first, freed by
 * sim_prepared_file_clear()). Any thread, each with its own @fp. */
SimPreparedState   sim_corpus_prepare_file    (SimFingerprinter  *fp,
                                               const char        *path,
                                               const char        *old_hash,
                                               SimPreparedFile   *out,
                                               GError           **error);
void               sim_prepared_file_clear    (SimPreparedFile   *file);
/* The content hash an import keeps of a file's bytes (hex XXH3-128). */
char              *sim_corpus_content_hash    (const char        *data,
                                               gsize              len);

/* Adds files and folders (recursively; hidden entries skipped). Files that
 * cannot be read are listed in the result's failures while the rest import.
 * Returns NULL on a store error or cancellation; documents committed before
 * remain. Another SimCorpus (another connection, in this process or
 * another) may write meanwhile, even from @progress; @corpus itself may
 * not: the feature statistics are kept from one batch to the next unless
 * another connection has committed. */
SimImportResult   *sim_corpus_add             (SimCorpus         *corpus,
                                               const char *const *paths,
                                               SimProgressFunc    progress,
                                               gpointer           user_data,
                                               GCancellable      *cancellable,
                                               GError           **error);
/* Brings the documents under @folder in step with it: files added or
 * changed since are imported (as sim_corpus_add), documents whose file is
 * gone are removed (counted in n_removed). A folder that does not exist is
 * an error and changes nothing. */
SimImportResult   *sim_corpus_rescan          (SimCorpus         *corpus,
                                               const char        *folder,
                                               SimProgressFunc    progress,
                                               gpointer           user_data,
                                               GCancellable      *cancellable,
                                               GError           **error);
/* Removes documents given by id ("12") or path. Unknown ones are an error
 * and nothing is removed. */
gboolean           sim_corpus_remove          (SimCorpus         *corpus,
                                               const char *const *ids_or_paths,
                                               guint             *out_n_removed,
                                               GError           **error);
/* (element-type SimStoreDocument) (transfer full) */
GPtrArray         *sim_corpus_list            (SimCorpus         *corpus,
                                               GError           **error);

SimCorpusSnapshot *sim_corpus_snapshot_ref    (SimCorpusSnapshot *snapshot);
void               sim_corpus_snapshot_unref  (SimCorpusSnapshot *snapshot);
const char        *sim_corpus_snapshot_get_store_path (const SimCorpusSnapshot *snapshot);
SimNormalizeFlags  sim_corpus_snapshot_get_flags      (const SimCorpusSnapshot *snapshot);
guint              sim_corpus_snapshot_get_n_docs     (const SimCorpusSnapshot *snapshot);
/* When the corpus last changed: its newest document's update, Unix seconds. */
gint64             sim_corpus_snapshot_get_updated_at (const SimCorpusSnapshot *snapshot);
const SimCorpusDoc *sim_corpus_snapshot_get_doc       (const SimCorpusSnapshot *snapshot,
                                                       guint                    index);
/* A document's characters and whether its text is withheld, as get_doc()
 * gives them, without making the document (its path and title are read
 * from the index file when first asked for: a check asks these of every
 * document a window hits). */
gint64             sim_corpus_snapshot_get_doc_n_chars (const SimCorpusSnapshot *snapshot,
                                                        guint                    index);
gboolean           sim_corpus_snapshot_get_doc_withheld (const SimCorpusSnapshot *snapshot,
                                                         guint                    index);
/* The index (into get_doc) of the document with @id, when the snapshot
 * knows it. */
gboolean           sim_corpus_snapshot_find_doc       (const SimCorpusSnapshot *snapshot,
                                                       gint64                   id,
                                                       guint                   *out_index);
/* Ids of fingerprints: [0, n_fps). Those of documents removed or changed
 * since the index file was written are among them, and have no place. */
gsize              sim_corpus_snapshot_get_n_fps      (const SimCorpusSnapshot *snapshot);
/* The windows of the documents: the fingerprints that can be found. */
gsize              sim_corpus_snapshot_get_n_windows  (const SimCorpusSnapshot *snapshot);
/* TRUE when the snapshot's index came from the store's index files
 * (STORE.index and STORE.index-delta, mapped or read as lookups need them)
 * rather than built from the documents' windows in memory. */
gboolean           sim_corpus_snapshot_is_mapped      (const SimCorpusSnapshot *snapshot);
/* TRUE when documents added or changed since STORE.index was written are
 * indexed apart (the delta). */
gboolean           sim_corpus_snapshot_has_delta      (const SimCorpusSnapshot *snapshot);
/* The fingerprints in id order, when the index comes in one part (else
 * NULL). (transfer full) */
guint64           *sim_corpus_snapshot_dup_fps        (const SimCorpusSnapshot *snapshot);
/* The document index (into get_doc) and code-point start of the window of
 * each of the @n fingerprints @ids. An id out of range, or a damaged index
 * file, gives values a caller must check against the documents. */
void               sim_corpus_snapshot_get_places     (const SimCorpusSnapshot *snapshot,
                                                       const guint32           *ids,
                                                       gsize                    n,
                                                       guint32                 *docs,
                                                       guint32                 *starts);
const SimWeights  *sim_corpus_snapshot_get_weights    (const SimCorpusSnapshot *snapshot);
/* The stored text of documents @indices (into get_doc) into @texts and
 * @lens, read in one read transaction through a connection the snapshot
 * keeps for readers (one thread at a time each; any thread). A document
 * removed since the snapshot was taken gets NULL. Fails only on a store
 * error, and then sets no text. */
gboolean           sim_corpus_snapshot_dup_texts      (const SimCorpusSnapshot *snapshot,
                                                       const guint             *indices,
                                                       guint                    n,
                                                       char                   **texts,
                                                       gsize                   *lens,
                                                       GError                 **error);
/* The same, the texts read but not decompressed (sim_store_read_text()).
 * With @los and @his, text i is wanted for code points [@los[i], @his[i])
 * first: a corpus server sends that part and a margin (a text held in
 * part, sim_store_text_new_part(), which fetches what else is asked of
 * it); a local store reads texts whole, their pieces decompressed as
 * asked for. A text already in @texts (read before by this snapshot,
 * else NULL) is not read again: one held in part is made to hold what
 * is wanted of it too, in the same round trip. */
gboolean           sim_corpus_snapshot_read_texts     (const SimCorpusSnapshot *snapshot,
                                                       const guint             *indices,
                                                       guint                    n,
                                                       const guint32           *los,
                                                       const guint32           *his,
                                                       SimStoreText           **texts,
                                                       GError                 **error);
/* Makes ready what lookups within @max_distance need: above 0, every
 * document's windows fingerprinted again from its text (the index files
 * keep 40 bits of each) and a band index over them (some 44 bytes a
 * fingerprint, kept with the snapshot). Fails on a store error or when
 * cancelled. Any thread. */
gboolean           sim_corpus_snapshot_prepare_lookup (SimCorpusSnapshot       *snapshot,
                                                       guint                    max_distance,
                                                       GCancellable            *cancellable,
                                                       GError                 **error);
/* sim_band_index_lookup_many() over the snapshot's fingerprints: the ids
 * of those within @max_distance of each of @fps (above 0, once
 * sim_corpus_snapshot_prepare_lookup() made it ready; the ids then follow
 * get_n_fps()), for get_places(). Any thread. Fails only for a remote
 * snapshot (its server lost, or @max_distance above 0), setting nothing. */
gboolean           sim_corpus_snapshot_lookup         (SimCorpusSnapshot       *snapshot,
                                                       const guint64           *fps,
                                                       gsize                    n_fps,
                                                       guint                    max_distance,
                                                       GArray                  *out,
                                                       guint32                 *out_ends,
                                                       GError                 **error);
/* A fingerprint found more often than this is boilerplate to a check,
 * which uses none of its places: a local lookup gives one id more than
 * this for it (at 10 GB, a check's lookups found 500,000 ids and kept
 * 11,000), a remote one may leave their documents unresolved
 * (G_MAXUINT32), the count of them as it is. */
#define SIM_CORPUS_LOOKUP_MAX_HITS 100
/* How many fingerprints a lookup should carry: a remote snapshot answers
 * each lookup in a round trip, so one carries all. */
gsize              sim_corpus_snapshot_get_lookup_size (const SimCorpusSnapshot *snapshot);
/* Whether the snapshot reads a corpus server (sim-server.h) rather than
 * a local store. A remote snapshot knows the documents its lookups found:
 * get_n_docs() counts them (their indices), get_n_documents() the
 * corpus's. */
gboolean           sim_corpus_snapshot_is_remote      (const SimCorpusSnapshot *snapshot);
/* Keys (@n @fps) a later lookup is likely to ask for (a check's
 * rewording stage, sim-rewording.c): a remote snapshot asks the server for
 * them with its next lookup, in the same statement, and answers them from
 * what it kept; a local one needs no such help and ignores them. Any
 * thread. */
void               sim_corpus_snapshot_expect         (SimCorpusSnapshot       *snapshot,
                                                       const guint64           *fps,
                                                       gsize                    n);
guint              sim_corpus_snapshot_get_n_documents (const SimCorpusSnapshot *snapshot);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimCorpus, sim_corpus_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimCorpusSnapshot, sim_corpus_snapshot_unref)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimImportResult, sim_import_result_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimRepairResult, sim_repair_result_free)

G_END_DECLS
