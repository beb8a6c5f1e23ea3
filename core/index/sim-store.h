/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The durable corpus store: one SQLite file holding documents, their text,
 * their packed anchor fingerprints, feature document frequencies, settings
 * and the versions the fingerprints were made with. The only file that
 * includes sqlite3.h. WAL journal: a killed process loses at most the
 * transaction it was writing, never the file.
 *
 * A SimStore is one connection: use it from one thread at a time; a worker
 * thread opens its own.
 */
#pragma once

#include <gio/gio.h>

#include "sim-paths.h"

G_BEGIN_DECLS

#define SIM_STORE_FORMAT_VERSION 2

typedef struct _SimStore SimStore;

typedef struct {
  gint64  id;
  char   *path;         /* as added (absolute) */
  char   *title;
  char   *content_hash; /* XXH3-128 of the file's bytes, hex */
  gint64  n_bytes;      /* size of the file */
  gint64  n_chars;      /* code points of the stored text */
  gint64  n_anchors;    /* anchor fingerprints (the table's column n_segments) */
  gint64  modified_at;  /* file mtime, Unix seconds */
  gint64  added_at;
  gint64  updated_at;
} SimStoreDocument;

void      sim_store_document_free (SimStoreDocument *doc);

/* Opens (creating when @read_only is FALSE and it does not exist) the store
 * at @path. Fails with SIM_ERROR_STORE_TOO_NEW, SIM_ERROR_STORE_CORRUPT or
 * G_IO_ERROR_NOT_FOUND (read-only, missing). */
SimStore *sim_store_open        (const char        *path,
                                 gboolean           read_only,
                                 GError           **error);
void      sim_store_free        (SimStore          *store);
/* Whether @s names a document by its id ("12") rather than by a path
 * or name: digits alone. */
gboolean  sim_store_is_document_id     (const char *s);
/* @location with any password taken out, for a message. (transfer full) */
char     *sim_store_location_redact    (const char *location);
/* TRUE when a store exists at @path and this user may not write it (the
 * file, or the folder SQLite keeps its journal in): open it read-only. */
gboolean  sim_store_path_is_read_only (const char  *path);
const char *sim_store_get_path  (const SimStore    *store);
/* Caps the file at @bytes (SQLite's max_page_count): a full disk, on purpose. */
gboolean  sim_store_set_size_limit (SimStore       *store,
                                    gint64          bytes,
                                    GError        **error);

/* Runs SQLite's integrity check: SIM_ERROR_STORE_CORRUPT when it fails. */
gboolean  sim_store_check_integrity (SimStore      *store,
                                     GError       **error);

/* SQLite's quick check of every page: SIM_ERROR_STORE_CORRUPT naming the
 * first fault. */
gboolean  sim_store_quick_check (SimStore          *store,
                                 GError           **error);
/* Mends a store whose SQLite pages are damaged: every document whose row
 * and text can still be read is copied, under its id, with the settings,
 * into a new file that takes the store's place; the damaged file is kept
 * beside it as PATH.damaged-TIME. A line for each document lost, and one
 * naming the kept file, go to @lost. No other process may have the store
 * open. The fingerprints are left to be made again. */
gboolean  sim_store_salvage     (const char        *path,
                                 GPtrArray         *lost,
                                 GError           **error);
gboolean  sim_store_begin       (SimStore          *store,
                                 GError           **error);
gboolean  sim_store_commit      (SimStore          *store,
                                 GError           **error);
/* A number that changes whenever another connection, of this process or
 * another, commits to the store; never for this connection's own commits
 * (SQLite's data_version). */
gboolean  sim_store_data_version (SimStore         *store,
                                  gint64           *out_version,
                                  GError          **error);
/* Ends a transaction without writing anything: a read one too. */
void      sim_store_rollback    (SimStore          *store);
/* A read transaction: many reads see one state of the store, and SQLite
 * checks for changes once instead of at every statement. End it with
 * sim_store_rollback(). */
gboolean  sim_store_begin_read  (SimStore          *store,
                                 GError           **error);
/* Best effort, never waiting: moves the write-ahead log into the store and
 * empties it, so the store's files stay as they are until the next write
 * (closing the last connection would otherwise do it, and change them).
 * FALSE when a reader kept part of the log. */
gboolean  sim_store_checkpoint  (SimStore          *store);

/* (transfer full) (nullable): NULL when unset, without an error. */
char     *sim_store_dup_meta    (SimStore          *store,
                                 const char        *key,
                                 GError           **error);
gboolean  sim_store_set_meta    (SimStore          *store,
                                 const char        *key,
                                 const char        *value,
                                 GError           **error);

/* TRUE and the id and hash when @path is stored; FALSE without an error when not. */
gboolean  sim_store_find_path   (SimStore          *store,
                                 const char        *path,
                                 gint64            *out_id,
                                 char             **out_hash,
                                 GError           **error);
/* A text as the store keeps it: compressed in pieces of about
 * SIM_STORE_TEXT_PIECE bytes (zstd, a frame a piece, behind a table of their
 * sizes), so that a part of it can be read without the rest. Pure: any
 * thread, so importers compress in parallel. Level 2: at 3, zstd was a
 * sixth of an import's CPU; in frames of 4 KB level 2 is as fast as 1
 * (a third faster than 3) for texts 0.3-1.0% larger than 3's, 1's 1.9-2.4%
 * (tests/bench/RESULTS.md). */
#define SIM_STORE_TEXT_LEVEL 2
#define SIM_STORE_TEXT_PIECE 4096
#define SIM_STORE_TEXT_MAX   (G_GUINT64_CONSTANT (1) << 30)  /* bytes a stored text may claim */
GBytes   *sim_store_pack_text   (const char        *text,
                                 gsize              len,
                                 GError           **error);
/* Inserts a document and its text (sim_store_pack_text()); sets doc->id. */
gboolean  sim_store_insert      (SimStore          *store,
                                 SimStoreDocument  *doc,
                                 GBytes            *text,
                                 GError           **error);
gboolean  sim_store_delete      (SimStore          *store,
                                 gint64             id,
                                 GError           **error);
/* The count of a document's fingerprints, after they are made again. */
gboolean  sim_store_set_n_anchors  (SimStore       *store,
                                    gint64          id,
                                    gint64          n_anchors,
                                    GError        **error);
/* Drops what older versions stored and this one no longer reads; whether
 * there was any in @out_dropped. */
gboolean  sim_store_drop_old_tables (SimStore      *store,
                                     gboolean      *out_dropped,
                                     GError       **error);
/* Gives the free pages back to the file system, outside a transaction
 * (best effort: the store is as good without). */
void      sim_store_vacuum          (SimStore      *store);

/* (element-type SimStoreDocument) (transfer full), ordered by id. */
/* Called while another connection holds the store's write lock, @n_tries
 * counting from 0: return TRUE to keep waiting (50 ms more), FALSE to fail
 * with "database is locked". */
typedef gboolean (*SimStoreBusyFunc) (int      n_tries,
                                      gpointer user_data);
/* Waits for other writers through @func instead of failing after 10 s
 * (NULL restores the 10 s). */
void      sim_store_set_busy_func (SimStore         *store,
                                   SimStoreBusyFunc  func,
                                   gpointer          user_data);

GPtrArray *sim_store_list       (SimStore          *store,
                                 GError           **error);
/* Calls @func with every document in id order, its strings borrowed for the
 * call (no copies: opening a corpus of 44,000 documents spent a third of
 * its time copying and freeing them). FALSE with @error set when the list
 * cannot be read or is damaged. */
typedef void (*SimStoreDocumentFunc) (const SimStoreDocument *doc,
                                      gpointer                user_data);
gboolean   sim_store_foreach_document (SimStore             *store,
                                       SimStoreDocumentFunc  func,
                                       gpointer              user_data,
                                       GError              **error);
/* (transfer full): the row of document @id, or NULL with @error set. */
SimStoreDocument *sim_store_get_document (SimStore  *store,
                                          gint64     id,
                                          GError   **error);
/* (transfer full): the stored text of a document. */
char     *sim_store_dup_text    (SimStore          *store,
                                 gint64             id,
                                 gsize             *out_len,
                                 GError           **error);

/* A stored text read but not yet decompressed: its pieces are decompressed
 * when a range of it is asked for. Its table is checked when read, each
 * piece when decompressed (a damaged one is SIM_ERROR_STORE_CORRUPT).
 * Immutable once read: any thread may read it. */
typedef struct _SimStoreText SimStoreText;

SimStoreText *sim_store_read_text        (SimStore           *store,
                                          gint64              id,
                                          GError            **error);
/* A text read from elsewhere (a corpus server), whole and valid UTF-8 (of
 * under 4 GiB): @text is transfer full; @where names it in messages. */
SimStoreText *sim_store_text_new_plain   (const char         *where,
                                          gint64              id,
                                          char               *text,
                                          gsize               len);
/* Reads the whole text of document @id from where a text held in part
 * came from: (transfer full) valid UTF-8 of @out_len bytes, NUL
 * terminated; NULL and @error when it cannot. Called under the text's
 * lock, from any thread. */
typedef char *(*SimStoreTextFetch) (gpointer   data,
                                    gint64     id,
                                    gsize     *out_len,
                                    GError   **error);
/* A text read from elsewhere in part: code points [@first, ...) of a text
 * of @n_chars, @text (transfer full, valid UTF-8, @len bytes). A range
 * asked for beyond the part makes it fetch the whole text by @fetch
 * (given @data, which @data_free frees with the text), held from then on:
 * the text is no longer immutable, but any thread may still read it. */
SimStoreText *sim_store_text_new_part    (const char         *where,
                                          gint64              id,
                                          guint32             n_chars,
                                          guint32             first,
                                          char               *text,
                                          gsize               len,
                                          SimStoreTextFetch   fetch,
                                          gpointer            data,
                                          GDestroyNotify      data_free);
/* The code points [*@out_first, *@out_end) held now: all of a text but
 * one held in part. */
void          sim_store_text_get_held    (const SimStoreText *text,
                                          guint32            *out_first,
                                          guint32            *out_end);
/* Holds @part (transfer full), code points from @first, in place of what
 * a text held in part holds, when it holds all that and more. */
void          sim_store_text_hold        (SimStoreText       *text,
                                          guint32             first,
                                          char               *part,
                                          gsize               len);
guint32       sim_store_text_get_n_chars (const SimStoreText *text);
/* (transfer full) The text of the pieces that hold code points [@lo, @hi)
 * (at least one piece, so never empty but for an empty text), NUL
 * terminated; *@out_first is the code point it starts with. */
char         *sim_store_text_dup_range   (const SimStoreText *text,
                                          guint32             lo,
                                          guint32             hi,
                                          guint32            *out_first,
                                          gsize              *out_len,
                                          GError            **error);
void          sim_store_text_free        (SimStoreText       *text);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimStoreText, sim_store_text_free)

/* Document frequencies: @n_buckets counts (transfer full) or NULL when none
 * are stored yet. A blob of another size is SIM_ERROR_STORE_CORRUPT. With
 * @out_counts NULL, only the number of documents they count is read. */
gboolean  sim_store_load_df     (SimStore          *store,
                                 gsize              n_buckets,
                                 guint32          **out_counts,
                                 guint32           *out_n_docs,
                                 GError           **error);
/* The same as stored (sim_store_pack_df()), not unpacked, or NULL: what
 * an index file keeps of them, without packing them again. */
gboolean  sim_store_load_df_packed (SimStore       *store,
                                    gsize           n_buckets,
                                    GBytes        **out_packed,
                                    guint32        *out_n_docs,
                                    GError        **error);
/* Sets SIM_ERROR_STORE_CORRUPT: the store is damaged in @what, and the
 * message says how to mend it. Returns FALSE. */
typedef enum {
  SIM_STORE_TEXT_SOUND,       /* read whole, and its checksum matches */
  SIM_STORE_TEXT_UNCHECKED,   /* read whole; packed before texts had checksums */
  SIM_STORE_TEXT_DAMAGED,     /* does not read back as it was written */
  SIM_STORE_TEXT_UNREADABLE,  /* could not be read at all (@error says why) */
} SimStoreTextState;

/* Reads document @id's text whole, every piece decompressed and checked. */
SimStoreTextState sim_store_verify_text (SimStore   *store,
                                         gint64      id,
                                         GError    **error);
/* Writes document @id's text anew (from sim_store_pack_text()). In a
 * transaction of the caller's. */
gboolean  sim_store_replace_text (SimStore         *store,
                                  gint64            id,
                                  GBytes           *text,
                                  GError          **error);
/* Moves document @id out of the corpus into the table set_aside, with its
 * stored text as it is and @reason: nothing is deleted that a person might
 * still want. In a transaction of the caller's. */
gboolean  sim_store_set_aside    (SimStore         *store,
                                  gint64            id,
                                  const char       *reason,
                                  GError          **error);

gboolean  sim_store_set_damaged (SimStore          *store,
                                 const char        *what,
                                 GError           **error);
/* Feature statistics as the store keeps them: a zstd frame of their byte
 * planes, or the counts as they are when that is no smaller. Unpacked,
 * NULL when @packed is not @n_buckets counts so kept (damage). */
GBytes   *sim_store_pack_df     (const guint32     *counts,
                                 gsize              n_buckets);
guint32  *sim_store_unpack_df   (gconstpointer      packed,
                                 gsize              len,
                                 gsize              n_buckets);
gboolean  sim_store_save_df     (SimStore          *store,
                                 const guint32     *counts,
                                 gsize              n_buckets,
                                 guint32            n_docs,
                                 GError           **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimStore, sim_store_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimStoreDocument, sim_store_document_free)

G_END_DECLS
