/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sqlite3.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>
#include <gio/gio.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "sim-error.h"
#include "sim-parallel.h"
#include "sim-store.h"
#include "sim-text.h"

struct _SimStore {
  sqlite3          *db;
  char             *path;
  SimStoreBusyFunc  busy_func;   /* NULL: give up after 10 s */
  gpointer          busy_data;
  sqlite3_stmt     *text_stmt;   /* sim_store_read_text()'s, prepared once */
  int               format;      /* the format version it was opened at */
};

static const char schema[] =
  "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
  "CREATE TABLE IF NOT EXISTS documents ("
  "  id INTEGER PRIMARY KEY,"
  "  path TEXT NOT NULL UNIQUE,"
  "  title TEXT NOT NULL,"
  "  content_hash TEXT NOT NULL,"
  "  n_bytes INTEGER NOT NULL,"
  "  n_chars INTEGER NOT NULL,"
  "  n_segments INTEGER NOT NULL,"
  "  modified_at INTEGER NOT NULL,"
  "  added_at INTEGER NOT NULL,"
  "  updated_at INTEGER NOT NULL);"
  "CREATE TABLE IF NOT EXISTS texts ("
  "  doc_id INTEGER PRIMARY KEY REFERENCES documents (id) ON DELETE CASCADE,"
  "  body NOT NULL);"  /* TEXT as written before 2026-11, else sim_store_pack_text() */
  "CREATE TABLE IF NOT EXISTS df ("
  "  id INTEGER PRIMARY KEY CHECK (id = 0),"
  "  n_docs INTEGER NOT NULL,"
  "  counts BLOB NOT NULL);";

/* Turns a SQLite failure into a GError a user can act on. */
static gboolean
set_sqlite_error (SimStore    *store,
                  int          rc,
                  const char  *what,
                  GError     **error)
{
  const char *detail = store && store->db ? sqlite3_errmsg (store->db) : sqlite3_errstr (rc);
  const char *path = store ? store->path : "";

  switch (rc & 0xff)
    {
    case SQLITE_FULL:
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE_FULL,
                   _("The disk holding the store %s is full (%s); nothing was lost, "
                     "the last change was not saved"), path, what);
      break;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT,
                   _("%s is damaged or not a Simhound store (%s: %s)"), path, what, detail);
      break;
    default:
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE,
                   _("Store %s: %s failed: %s"), path, what, detail);
      break;
    }
  return FALSE;
}

static gboolean
exec (SimStore    *store,
      const char  *sql,
      GError     **error)
{
  int rc = sqlite3_exec (store->db, sql, NULL, NULL, NULL);

  if (rc != SQLITE_OK)
    return set_sqlite_error (store, rc, sql, error);
  return TRUE;
}

static sqlite3_stmt *
prepare (SimStore    *store,
         const char  *sql,
         GError     **error)
{
  sqlite3_stmt *stmt = NULL;
  int rc = sqlite3_prepare_v2 (store->db, sql, -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    {
      set_sqlite_error (store, rc, sql, error);
      return NULL;
    }
  return stmt;
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (sqlite3_stmt, sqlite3_finalize)

/* Runs a statement that returns no rows. */
static gboolean
step_done (SimStore     *store,
           sqlite3_stmt *stmt,
           const char   *what,
           GError      **error)
{
  int rc = sqlite3_step (stmt);

  if (rc != SQLITE_DONE)
    return set_sqlite_error (store, rc, what, error);
  return TRUE;
}

void
sim_store_document_free (SimStoreDocument *doc)
{
  if (doc == NULL)
    return;
  g_free (doc->path);
  g_free (doc->title);
  g_free (doc->content_hash);
  g_free (doc);
}

/* PRAGMA user_version into @out; the SQLite result code (SQLITE_ROW when read). */
static int
read_user_version (SimStore *store,
                   int      *out)
{
  sqlite3_stmt *stmt = NULL;
  int rc = sqlite3_prepare_v2 (store->db, "PRAGMA user_version", -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    return rc;
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    *out = sqlite3_column_int (stmt, 0);
  sqlite3_finalize (stmt);
  return rc;
}

gboolean
sim_store_path_is_read_only (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);

  return g_file_test (path, G_FILE_TEST_EXISTS) && (access (path, W_OK) != 0 || access (dir, W_OK) != 0);
}

SimStore *
sim_store_open (const char  *path,
                gboolean     read_only,
                GError     **error)
{
  g_autoptr(SimStore) store = NULL;
  int flags = read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
  sqlite3_stmt *stmt;
  int rc, user_version = 0, n_tables = 0;

  g_return_val_if_fail (path != NULL, NULL);

  if (read_only && !g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("No store at %s"), path);
      return NULL;
    }
  if (!read_only && sim_store_path_is_read_only (path))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE,
                   _("The store %s is read-only (a read-only disk, or no permission to write it or its "
                     "folder): it can be checked against and listed, but not changed"), path);
      return NULL;
    }
  if (!read_only)
    {
      g_autofree char *dir = g_path_get_dirname (path);
      int fd;

      if (g_mkdir_with_parents (dir, 0700) != 0)
        {
          int saved = errno;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                       _("Cannot create the folder %s for the store: %s"), dir, g_strerror (saved));
          return NULL;
        }
      /* A new store holds other people's essays: only its owner may read it
       * (SQLite gives its -wal and -shm files the same permissions). */
      fd = g_open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
      if (fd >= 0)
        g_close (fd, NULL);
    }

  store = g_new0 (SimStore, 1);
  store->path = g_strdup (path);
  rc = sqlite3_open_v2 (path, &store->db, flags | SQLITE_OPEN_FULLMUTEX, NULL);
  if (rc != SQLITE_OK)
    {
      set_sqlite_error (store, rc, _("opening"), error);
      return NULL;
    }
  sqlite3_busy_timeout (store->db, 10000);
  sqlite3_extended_result_codes (store->db, 1);

  rc = read_user_version (store, &user_version);
  if (read_only && ((rc & 0xff) == SQLITE_READONLY || (rc & 0xff) == SQLITE_CANTOPEN))
    {
      /* A store in WAL mode that we may not write (a read-only file,
       * folder or disk) cannot get its shared-memory file: read it as a
       * file that does not change under us. */
      g_autofree char *uri = g_filename_to_uri (path, NULL, NULL);
      g_autofree char *immutable = uri ? g_strconcat (uri, "?immutable=1", NULL) : NULL;

      sqlite3_close (store->db);
      store->db = NULL;
      rc = immutable ? sqlite3_open_v2 (immutable, &store->db, flags | SQLITE_OPEN_URI | SQLITE_OPEN_FULLMUTEX, NULL)
                     : SQLITE_CANTOPEN;
      if (rc != SQLITE_OK)
        {
          set_sqlite_error (store, rc, _("opening"), error);
          return NULL;
        }
      rc = read_user_version (store, &user_version);
    }
  if (rc != SQLITE_ROW)
    {
      set_sqlite_error (store, rc, _("reading the format version"), error);
      return NULL;
    }
  if (user_version > SIM_STORE_FORMAT_VERSION)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE_TOO_NEW,
                   _("%s was written by a newer Simhound (store format %d; this one reads %d)"),
                   path, user_version, SIM_STORE_FORMAT_VERSION);
      return NULL;
    }

  /* The version and the tables read in one statement, so in one snapshot:
   * a store another process is creating at this moment is seen either
   * empty or whole, never as tables without a version. */
  stmt = prepare (store, "SELECT user_version, (SELECT count(*) FROM sqlite_master) FROM pragma_user_version",
                  error);
  if (stmt == NULL)
    return NULL;
  if (sqlite3_step (stmt) == SQLITE_ROW)
    {
      user_version = sqlite3_column_int (stmt, 0);
      n_tables = sqlite3_column_int (stmt, 1);
    }
  sqlite3_finalize (stmt);
  if (user_version > SIM_STORE_FORMAT_VERSION)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE_TOO_NEW,
                   _("%s was written by a newer Simhound (store format %d; this one reads %d)"),
                   path, user_version, SIM_STORE_FORMAT_VERSION);
      return NULL;
    }
  if (user_version == 0 && n_tables > 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT,
                   _("%s is an SQLite database but not a Simhound store"), path);
      return NULL;
    }

  if (!read_only)
    {
      /* Turning WAL on takes the file's exclusive lock, and SQLite may
       * answer busy at once rather than call the busy handler when another
       * process is creating the same store: wait as the handler would (two
       * imports started at once into a new store failed with "database is
       * locked" about one time in ten). */
      for (guint tries = 0; tries < 100; tries++)
        {
          rc = sqlite3_exec (store->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
          if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED)
            break;
          g_usleep (G_USEC_PER_SEC / 10);
        }
      if (!exec (store, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", error))
        return NULL;
    }
  /* Removed documents leave no readable text behind in free pages. */
  if (!exec (store, "PRAGMA foreign_keys=ON; PRAGMA secure_delete=ON;", error))
    return NULL;
  if (user_version == 0 && !read_only)
    {
      g_autofree char *sql = g_strdup_printf ("BEGIN; %s PRAGMA user_version=%d; COMMIT;",
                                              schema, SIM_STORE_FORMAT_VERSION);

      if (!exec (store, sql, error))
        return NULL;
    }
  store->format = user_version == 0 ? SIM_STORE_FORMAT_VERSION : user_version;
  return g_steal_pointer (&store);
}

void
sim_store_free (SimStore *store)
{
  if (store == NULL)
    return;
  sqlite3_finalize (store->text_stmt);
  if (store->db)
    sqlite3_close_v2 (store->db);
  g_free (store->path);
  g_free (store);
}

const char *
sim_store_get_path (const SimStore *store)
{
  return store->path;
}

gboolean
sim_store_set_size_limit (SimStore  *store,
                          gint64     bytes,
                          GError   **error)
{
  g_autofree char *sql = NULL;
  g_autoptr(sqlite3_stmt) stmt = prepare (store, "PRAGMA page_size", error);
  gint64 page_size = 4096;

  if (stmt == NULL)
    return FALSE;
  if (sqlite3_step (stmt) == SQLITE_ROW)
    page_size = sqlite3_column_int64 (stmt, 0);
  sql = g_strdup_printf ("PRAGMA max_page_count=%" G_GINT64_FORMAT, MAX (bytes / page_size, 1));
  return exec (store, sql, error);
}

gboolean
sim_store_check_integrity (SimStore  *store,
                           GError   **error)
{
  g_autoptr(sqlite3_stmt) stmt = prepare (store, "PRAGMA integrity_check", error);
  int rc;

  if (stmt == NULL)
    return FALSE;
  rc = sqlite3_step (stmt);
  if (rc != SQLITE_ROW)
    return set_sqlite_error (store, rc, "checking integrity", error);
  if (g_strcmp0 ((const char *) sqlite3_column_text (stmt, 0), "ok") != 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT, _("%s is damaged: %s"),
                   store->path, sqlite3_column_text (stmt, 0));
      return FALSE;
    }
  return TRUE;
}

gboolean
sim_store_quick_check (SimStore  *store,
                       GError   **error)
{
  g_autoptr(sqlite3_stmt) stmt = prepare (store, "PRAGMA quick_check(1)", error);
  int rc;

  if (stmt == NULL)
    return FALSE;
  rc = sqlite3_step (stmt);
  if (rc != SQLITE_ROW || g_strcmp0 ((const char *) sqlite3_column_text (stmt, 0), "ok") != 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT, _("%s is damaged: %s"), store->path,
                   rc == SQLITE_ROW ? (const char *) sqlite3_column_text (stmt, 0) : sqlite3_errmsg (store->db));
      return FALSE;
    }
  return TRUE;
}

/* The ids of table @table's rows (column @column) that can still be read:
 * a scan forward stops at the first damaged page, one backward reads the
 * rows after it. */
static GArray *
readable_ids (sqlite3    *db,
              const char *table,
              const char *column)
{
  GArray *ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GHashTable) seen = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (gint64));

  for (guint pass = 0; pass < 2; pass++)
    {
      g_autofree char *sql = g_strdup_printf ("SELECT %s FROM %s ORDER BY %s %s", column, table, column,
                                              pass ? "DESC" : "ASC");
      sqlite3_stmt *stmt = NULL;

      if (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) == SQLITE_OK)
        while (sqlite3_step (stmt) == SQLITE_ROW)
          {
            const gint64 id = sqlite3_column_int64 (stmt, 0);

            g_array_append_val (found, id);
          }
      sqlite3_finalize (stmt);
    }
  for (guint i = 0; i < found->len; i++)
    if (!g_hash_table_contains (seen, &g_array_index (found, gint64, i)))
      {
        g_hash_table_add (seen, &g_array_index (found, gint64, i));
        g_array_append_val (ids, g_array_index (found, gint64, i));
      }
  return ids;
}

/* Copies the row of @table whose @column is @id from @src into the same
 * table of @dst, column for column; FALSE when it cannot be read. */
static gboolean
copy_row (sqlite3    *src,
          sqlite3    *dst,
          const char *table,
          const char *column,
          gint64      id)
{
  g_autofree char *select = g_strdup_printf ("SELECT * FROM %s WHERE %s = ?", table, column);
  sqlite3_stmt *from = NULL, *to = NULL;
  gboolean ok = FALSE;

  if (sqlite3_prepare_v2 (src, select, -1, &from, NULL) == SQLITE_OK)
    {
      sqlite3_bind_int64 (from, 1, id);
      if (sqlite3_step (from) == SQLITE_ROW)
        {
          const int n = sqlite3_column_count (from);
          GString *insert = g_string_new (NULL);

          g_string_printf (insert, "INSERT OR REPLACE INTO %s VALUES (", table);
          for (int c = 0; c < n; c++)
            g_string_append (insert, c ? ", ?" : "?");
          g_string_append_c (insert, ')');
          if (sqlite3_prepare_v2 (dst, insert->str, -1, &to, NULL) == SQLITE_OK)
            {
              for (int c = 0; c < n; c++)
                sqlite3_bind_value (to, c + 1, sqlite3_column_value (from, c));
              ok = sqlite3_step (to) == SQLITE_DONE;
            }
          g_string_free (insert, TRUE);
        }
    }
  sqlite3_finalize (to);
  sqlite3_finalize (from);
  return ok;
}

gboolean
sim_store_salvage (const char  *path,
                   GPtrArray   *lost,
                   GError     **error)
{
  g_autofree char *tmp = g_strconcat (path, ".salvage", NULL);
  g_autofree char *aside = NULL;
  g_autoptr(SimStore) dst = NULL;
  g_autoptr(GArray) ids = NULL;
  const char *side[] = { "", "-wal", "-shm", "-journal" };
  sqlite3 *src = NULL;
  gboolean ok = FALSE;
  int rc;

  for (guint i = 0; i < G_N_ELEMENTS (side); i++)
    {
      g_autofree char *f = g_strconcat (tmp, side[i], NULL);

      g_unlink (f);
    }
  rc = sqlite3_open_v2 (path, &src, SQLITE_OPEN_READONLY, NULL);
  if (rc != SQLITE_OK)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT, _("%s cannot be read at all: %s"), path,
                   sqlite3_errstr (rc));
      sqlite3_close (src);
      return FALSE;
    }
  if ((dst = sim_store_open (tmp, FALSE, error)) == NULL || !exec (dst, "BEGIN", error))
    goto out;
  /* Settings row by row; what cannot be read is made again by the rebuild. */
  {
    g_autoptr(GArray) keys = readable_ids (src, "meta", "rowid");

    for (guint i = 0; i < keys->len; i++)
      copy_row (src, dst->db, "meta", "rowid", g_array_index (keys, gint64, i));
  }
  /* Every document whose row and text can be read, under its own id. */
  ids = readable_ids (src, "documents", "id");
  for (guint i = 0; i < ids->len; i++)
    {
      const gint64 id = g_array_index (ids, gint64, i);

      if (copy_row (src, dst->db, "documents", "id", id) && copy_row (src, dst->db, "texts", "doc_id", id))
        continue;
      sqlite3_exec (dst->db, "SAVEPOINT drop_one", NULL, NULL, NULL);
      {
        g_autofree char *sql = g_strdup_printf ("DELETE FROM documents WHERE id = %" G_GINT64_FORMAT, id);

        sqlite3_exec (dst->db, sql, NULL, NULL, NULL);
      }
      sqlite3_exec (dst->db, "RELEASE drop_one", NULL, NULL, NULL);
      g_ptr_array_add (lost, g_strdup_printf (_("document %lld: its row or its text cannot be read"),
                                              (long long) id));
    }
  /* What was set aside stays set aside, as far as it can be read. */
  {
    g_autoptr(GArray) rows = readable_ids (src, "set_aside", "rowid");

    if (rows->len > 0 &&
        !exec (dst, "CREATE TABLE IF NOT EXISTS set_aside (path TEXT NOT NULL, title TEXT NOT NULL,"
                    " content_hash TEXT NOT NULL, reason TEXT NOT NULL, set_aside_at INTEGER NOT NULL, body);", error))
      goto out;
    for (guint i = 0; i < rows->len; i++)
      copy_row (src, dst->db, "set_aside", "rowid", g_array_index (rows, gint64, i));
  }
  if (!exec (dst, "COMMIT", error))
    goto out;
  ok = TRUE;

out:
  sqlite3_close (src);
  if (!ok && dst != NULL)
    sqlite3_exec (dst->db, "ROLLBACK", NULL, NULL, NULL);
  g_clear_pointer (&dst, sim_store_free);  /* the last connection: the WAL goes into the file */
  if (!ok)
    return FALSE;
  /* The damaged file is kept beside, named; the salvaged one takes its place. */
  {
    g_autoptr(GDateTime) now = g_date_time_new_now_local ();
    g_autofree char *stamp = g_date_time_format (now, "%Y%m%d-%H%M%S");

    aside = g_strdup_printf ("%s.damaged-%s", path, stamp);
  }
  for (guint i = 0; i < G_N_ELEMENTS (side); i++)
    {
      g_autofree char *from = g_strconcat (path, side[i], NULL);
      g_autofree char *to = g_strconcat (aside, side[i], NULL);

      if (g_file_test (from, G_FILE_TEST_EXISTS) && g_rename (from, to) != 0 && i == 0)
        {
          const int saved = errno;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Cannot move %s aside: %s"), path,
                       g_strerror (saved));
          return FALSE;
        }
    }
  if (g_rename (tmp, path) != 0)
    {
      const int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Cannot put the mended store in place at %s: %s"), path, g_strerror (saved));
      return FALSE;
    }
  g_ptr_array_add (lost, g_strdup_printf (_("the damaged file is kept as %s"), aside));
  return TRUE;
}

gboolean
sim_store_begin (SimStore  *store,
                 GError   **error)
{
  return exec (store, "BEGIN IMMEDIATE", error);
}

gboolean
sim_store_begin_read (SimStore  *store,
                      GError   **error)
{
  return exec (store, "BEGIN DEFERRED", error);
}

gboolean
sim_store_commit (SimStore  *store,
                  GError   **error)
{
  /* Every write moves the epoch on: a cache made from the store (the
   * corpus's index file) names the epoch it was made at. */
  if (!exec (store, "INSERT INTO meta (key, value) VALUES ('epoch', '1') ON CONFLICT (key) "
                    "DO UPDATE SET value = CAST (value AS INTEGER) + 1", error) ||
      !exec (store, "COMMIT", error))
    {
      sim_store_rollback (store);
      return FALSE;
    }
  return TRUE;
}

void
sim_store_rollback (SimStore *store)
{
  if (!sqlite3_get_autocommit (store->db))
    sqlite3_exec (store->db, "ROLLBACK", NULL, NULL, NULL);
}

char *
sim_store_dup_meta (SimStore    *store,
                    const char  *key,
                    GError     **error)
{
  g_autoptr(sqlite3_stmt) stmt = prepare (store, "SELECT value FROM meta WHERE key = ?", error);
  int rc;

  if (stmt == NULL)
    return NULL;
  sqlite3_bind_text (stmt, 1, key, -1, SQLITE_STATIC);
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    return g_strdup ((const char *) sqlite3_column_text (stmt, 0));
  if (rc != SQLITE_DONE)
    set_sqlite_error (store, rc, "reading settings", error);
  return NULL;
}

gboolean
sim_store_set_meta (SimStore    *store,
                    const char  *key,
                    const char  *value,
                    GError     **error)
{
  g_autoptr(sqlite3_stmt) stmt =
    prepare (store, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", error);

  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_text (stmt, 1, key, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, 2, value, -1, SQLITE_STATIC);
  return step_done (store, stmt, "saving settings", error);
}

gboolean
sim_store_find_path (SimStore    *store,
                     const char  *path,
                     gint64      *out_id,
                     char       **out_hash,
                     GError     **error)
{
  g_autoptr(sqlite3_stmt) stmt =
    prepare (store, "SELECT id, content_hash FROM documents WHERE path = ?", error);
  int rc;

  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_text (stmt, 1, path, -1, SQLITE_STATIC);
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    {
      if (out_id)
        *out_id = sqlite3_column_int64 (stmt, 0);
      if (out_hash)
        *out_hash = g_strdup ((const char *) sqlite3_column_text (stmt, 1));
      return TRUE;
    }
  if (rc != SQLITE_DONE)
    set_sqlite_error (store, rc, "looking up a document", error);
  return FALSE;
}

/* Each thread's zstd contexts, kept: one made for every call allocated
 * and cleared a megabyte of tables (compressing), which for the many
 * small texts of an import cost as much as compressing them. */
static void
free_cctx (gpointer cctx)
{
  ZSTD_freeCCtx (cctx);
}

static void
free_dctx (gpointer dctx)
{
  ZSTD_freeDCtx (dctx);
}

static GPrivate thread_cctx = G_PRIVATE_INIT (free_cctx);
static GPrivate thread_dctx = G_PRIVATE_INIT (free_dctx);

static ZSTD_CCtx *
get_cctx (void)
{
  ZSTD_CCtx *cctx = g_private_get (&thread_cctx);

  if (cctx == NULL)
    {
      /* NULL without memory: the callers say so. */
      cctx = ZSTD_createCCtx ();
      g_private_set (&thread_cctx, cctx);
    }
  return cctx;
}

static ZSTD_DCtx *
get_dctx (void)
{
  ZSTD_DCtx *dctx = g_private_get (&thread_dctx);

  if (dctx == NULL)
    {
      dctx = ZSTD_createDCtx ();
      g_private_set (&thread_dctx, dctx);
    }
  return dctx;
}

/* A text is kept in pieces of about SIM_STORE_TEXT_PIECE, each its own zstd frame,
 * behind a table of their sizes, so a check decompresses the pieces its
 * candidates fall in, not whole texts (at 1 GB of corpus they needed a
 * tenth of the code points of the texts they read):
 *
 *   "SHT" 1 | u32 n_pieces | n_pieces x (u32 packed bytes, u32 text bytes,
 *   u32 code points) | the frames
 *
 * all little-endian. A piece ends before a character, never inside one.
 * Pieces of 8 KB cost 3% more than a frame a text, of 4 KB 3% more again
 * (the store 2.32 -> 2.34x at 1 GB of corpus) and take 0.6-0.8 ms off a
 * 19 ms check at 1 GB: the pieces a candidate falls in are decompressed,
 * and checked, whole. The size only matters when a text is packed: stores
 * with other pieces (or from before pieces: one frame a text, or the text
 * as TEXT, read as one piece) are read as they are. */
#define PIECE_MAGIC  "SHT\1"
#define PIECE_MAX    (1u << 20)   /* text bytes a piece may claim */
#define PIECE_HEADER 8
#define PIECE_ENTRY  12
/* Texts packed since 2026-11-27 carry checksums: "SHT" 2 | u32 n_pieces |
 * u64 XXH3 of the table | u64 XXH3 of the table and the frames | the table
 * | the frames, each with zstd's own checksum of its content (XXH64). A
 * flipped byte in a piece is found when the piece is read, where a frame
 * used to decompress to other text without a word, and a check still reads
 * only the pieces it needs; sim_store_verify_text() checks every byte. */
#define PIECE_MAGIC_CHECKED  "SHT\2"
#define PIECE_CHECKSUM       16

GBytes *
sim_store_pack_text (const char  *text,
                     gsize        len,
                     GError     **error)
{
  g_autoptr(GArray) ends = g_array_new (FALSE, FALSE, sizeof (gsize));
  const gsize bound = ZSTD_compressBound (SIM_STORE_TEXT_PIECE) + 4;  /* and its checksum */
  ZSTD_CCtx *cctx = get_cctx ();
  GByteArray *out;
  gsize table, at = 0;
  guint32 n;

  if (cctx == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE, _("Out of memory compressing a text"));
      return NULL;
    }

  /* Where the pieces end: a piece ends before a character, so it may be
   * up to 3 bytes short of SIM_STORE_TEXT_PIECE, and the pieces be more than
   * len / SIM_STORE_TEXT_PIECE. */
  do
    {
      gsize end = MIN (at + SIM_STORE_TEXT_PIECE, len);

      while (end < len && end > at + 1 && ((guint8) text[end] & 0xc0) == 0x80)
        end--;
      g_array_append_val (ends, end);
      at = end;
    }
  while (at < len);
  n = ends->len;
  ZSTD_CCtx_reset (cctx, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter (cctx, ZSTD_c_compressionLevel, SIM_STORE_TEXT_LEVEL);
  ZSTD_CCtx_setParameter (cctx, ZSTD_c_checksumFlag, 1);
  table = PIECE_HEADER + PIECE_CHECKSUM + (gsize) n * PIECE_ENTRY;
  out = g_byte_array_sized_new (table + ZSTD_compressBound (len) + n * 16);
  g_byte_array_set_size (out, table);
  memcpy (out->data, PIECE_MAGIC_CHECKED, 4);
  n = GUINT32_TO_LE (n);
  memcpy (out->data + 4, &n, 4);
  at = 0;
  for (guint i = 0; i < ends->len; i++)
    {
      const gsize end = g_array_index (ends, gsize, i), used = out->len;
      guint32 entry[3];
      gsize packed;

      g_byte_array_set_size (out, used + bound);
      packed = ZSTD_compress2 (cctx, out->data + used, bound, text + at, end - at);
      /* Compressing into the bound cannot fail but for memory. */
      if (ZSTD_isError (packed))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_STORE, _("Compressing a text failed: %s"),
                       ZSTD_getErrorName (packed));
          ZSTD_CCtx_reset (cctx, ZSTD_reset_session_and_parameters);
          g_byte_array_free (out, TRUE);
          return NULL;
        }
      g_byte_array_set_size (out, used + packed);
      entry[0] = GUINT32_TO_LE ((guint32) packed);
      entry[1] = GUINT32_TO_LE ((guint32) (end - at));
      entry[2] = GUINT32_TO_LE ((guint32) sim_text_count_chars (text + at, end - at));
      memcpy (out->data + PIECE_HEADER + PIECE_CHECKSUM + (gsize) i * PIECE_ENTRY, entry, PIECE_ENTRY);
      at = end;
    }
  ZSTD_CCtx_reset (cctx, ZSTD_reset_session_and_parameters);
  {
    const guint8 *after = out->data + PIECE_HEADER + PIECE_CHECKSUM;
    const guint64 sums[2] = { GUINT64_TO_LE (XXH3_64bits (after, (gsize) ends->len * PIECE_ENTRY)),
                              GUINT64_TO_LE (XXH3_64bits (after, out->len - PIECE_HEADER - PIECE_CHECKSUM)) };

    memcpy (out->data + PIECE_HEADER, sums, PIECE_CHECKSUM);
  }
  return g_byte_array_free_to_bytes (out);
}

gboolean
sim_store_insert (SimStore          *store,
                  SimStoreDocument  *doc,
                  GBytes            *text,
                  GError           **error)
{
  g_autoptr(sqlite3_stmt) stmt = NULL;

  stmt = prepare (store,
                  "INSERT INTO documents (path, title, content_hash, n_bytes, n_chars, n_segments,"
                  " modified_at, added_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", error);
  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_text (stmt, 1, doc->path, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, 2, doc->title, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, 3, doc->content_hash, -1, SQLITE_STATIC);
  sqlite3_bind_int64 (stmt, 4, doc->n_bytes);
  sqlite3_bind_int64 (stmt, 5, doc->n_chars);
  sqlite3_bind_int64 (stmt, 6, doc->n_segments);
  sqlite3_bind_int64 (stmt, 7, doc->modified_at);
  sqlite3_bind_int64 (stmt, 8, doc->added_at);
  sqlite3_bind_int64 (stmt, 9, doc->updated_at);
  if (!step_done (store, stmt, "adding a document", error))
    return FALSE;
  doc->id = sqlite3_last_insert_rowid (store->db);
  g_clear_pointer (&stmt, sqlite3_finalize);

  /* Format 1 kept each text as one frame: this build reads those and
   * writes pieces, which a build that reads format 1 only cannot read. */
  if (store->format < SIM_STORE_FORMAT_VERSION &&
      !exec (store, "PRAGMA user_version=" G_STRINGIFY (SIM_STORE_FORMAT_VERSION), error))
    return FALSE;
  stmt = prepare (store, "INSERT INTO texts (doc_id, body) VALUES (?, ?)", error);
  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, doc->id);
  sqlite3_bind_blob (stmt, 2, g_bytes_get_data (text, NULL), g_bytes_get_size (text), SQLITE_STATIC);
  return step_done (store, stmt, "saving a document's text", error);
}

gboolean
sim_store_set_n_segments (SimStore  *store,
                          gint64     id,
                          gint64     n_segments,
                          GError   **error)
{
  g_autoptr(sqlite3_stmt) stmt = prepare (store, "UPDATE documents SET n_segments = ? WHERE id = ?", error);

  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, n_segments);
  sqlite3_bind_int64 (stmt, 2, id);
  return step_done (store, stmt, "saving fingerprints", error);
}

/* Stores made before version 107 of the features kept every document's
 * fingerprints in a table of their own (twice the index files' share of
 * the disk); they are in the index files alone now. */
gboolean
sim_store_drop_old_tables (SimStore  *store,
                           gboolean  *out_dropped,
                           GError   **error)
{
  g_autoptr(sqlite3_stmt) stmt =
    prepare (store, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'segments'", error);

  if (stmt == NULL)
    return FALSE;
  *out_dropped = sqlite3_step (stmt) == SQLITE_ROW && sqlite3_column_int (stmt, 0) > 0;
  g_clear_pointer (&stmt, sqlite3_finalize);  /* a statement still reading the schema locks it */
  return !*out_dropped || exec (store, "DROP TABLE segments", error);
}

void
sim_store_vacuum (SimStore *store)
{
  if (sqlite3_exec (store->db, "VACUUM", NULL, NULL, NULL) != SQLITE_OK)
    g_debug ("VACUUM of %s: %s", store->path, sqlite3_errmsg (store->db));
}

gboolean
sim_store_delete (SimStore  *store,
                  gint64     id,
                  GError   **error)
{
  g_autoptr(sqlite3_stmt) stmt = prepare (store, "DELETE FROM documents WHERE id = ?", error);

  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, id);
  return step_done (store, stmt, "removing a document", error);
}

#define DOCUMENT_COLUMNS "id, path, title, content_hash, n_bytes, n_chars, n_segments, " \
                         "modified_at, added_at, updated_at"

gboolean
sim_store_foreach_document (SimStore             *store,
                            SimStoreDocumentFunc  func,
                            gpointer              user_data,
                            GError              **error)
{
  g_autoptr(sqlite3_stmt) stmt =
    prepare (store, "SELECT " DOCUMENT_COLUMNS " FROM documents ORDER BY id", error);
  int rc;

  if (stmt == NULL)
    return FALSE;
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      SimStoreDocument doc;

      doc.id = sqlite3_column_int64 (stmt, 0);
      doc.path = (char *) sqlite3_column_text (stmt, 1);
      doc.title = (char *) sqlite3_column_text (stmt, 2);
      doc.content_hash = (char *) sqlite3_column_text (stmt, 3);
      doc.n_bytes = sqlite3_column_int64 (stmt, 4);
      doc.n_chars = sqlite3_column_int64 (stmt, 5);
      doc.n_segments = sqlite3_column_int64 (stmt, 6);
      doc.modified_at = sqlite3_column_int64 (stmt, 7);
      doc.added_at = sqlite3_column_int64 (stmt, 8);
      doc.updated_at = sqlite3_column_int64 (stmt, 9);
      if (doc.title == NULL)
        doc.title = (char *) "";
      /* Columns declared NOT NULL can still read as NULL from damaged pages. */
      if (doc.path == NULL || doc.content_hash == NULL)
        {
          sim_store_set_damaged (store, _("the list of documents"), error);
          return FALSE;
        }
      func (&doc, user_data);
    }
  if (rc != SQLITE_DONE)
    {
      set_sqlite_error (store, rc, "listing documents", error);
      return FALSE;
    }
  return TRUE;
}

static void
add_copy (const SimStoreDocument *doc,
          gpointer                user_data)
{
  SimStoreDocument *copy = g_memdup2 (doc, sizeof *doc);

  copy->path = g_strdup (doc->path);
  copy->title = g_strdup (doc->title);
  copy->content_hash = g_strdup (doc->content_hash);
  g_ptr_array_add (user_data, copy);
}

GPtrArray *
sim_store_list (SimStore  *store,
                GError   **error)
{
  g_autoptr(GPtrArray) docs = g_ptr_array_new_with_free_func ((GDestroyNotify) sim_store_document_free);

  if (!sim_store_foreach_document (store, add_copy, docs, error))
    return NULL;
  return g_steal_pointer (&docs);
}

static int
on_busy (void *data,
         int   n_tries)
{
  SimStore *store = data;

  /* Another writer holds the store: say so once, then wait for it. */
  return store->busy_func (n_tries, store->busy_data) ? (g_usleep (50000), 1) : 0;
}

gboolean
sim_store_checkpoint (SimStore *store)
{
  int log = -1, done = -1;
  int rc;

  /* Without a busy handler for the call: a reader in the log makes it give
   * up at once rather than make a writer wait. */
  sqlite3_busy_handler (store->db, NULL, NULL);
  rc = sqlite3_wal_checkpoint_v2 (store->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, &log, &done);
  sim_store_set_busy_func (store, store->busy_func, store->busy_data);
  return rc == SQLITE_OK && log == 0;
}

void
sim_store_set_busy_func (SimStore         *store,
                         SimStoreBusyFunc  func,
                         gpointer          user_data)
{
  store->busy_func = func;
  store->busy_data = user_data;
  if (func != NULL)
    sqlite3_busy_handler (store->db, on_busy, store);
  else
    sqlite3_busy_timeout (store->db, 10000);
}

struct _SimStoreText {
  char     *store_path;
  gint64    id;
  guint32   n_pieces;
  gboolean  raw;        /* one piece, not compressed: a text from before pieces */
  guint8   *frames;     /* the pieces as stored */
  guint32  *packed_at;  /* n_pieces + 1 offsets into frames */
  guint32  *text_at;    /* n_pieces + 1 byte offsets into the text */
  guint32  *char_at;    /* n_pieces + 1 code point offsets into the text */
  gboolean  checked;    /* packed with checksums, and the table's matched */
  gboolean  whole_ok;   /* with them: every byte as it was written */
};

void
sim_store_text_free (SimStoreText *text)
{
  if (text == NULL)
    return;
  g_free (text->store_path);
  g_free (text->frames);
  g_free (text->packed_at);
  g_free (text->text_at);
  g_free (text->char_at);
  g_free (text);
}

guint32
sim_store_text_get_n_chars (const SimStoreText *text)
{
  return text->char_at[text->n_pieces];
}

static gboolean
set_damaged_at (const char  *store_path,
                const char  *what,
                GError     **error)
{
  g_set_error (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT,
               _("The store %s is damaged (%s): run “simhound-cli corpus rebuild”"), store_path, what);
  return FALSE;
}

static gboolean
text_damaged (const char  *store_path,
              gint64       id,
              GError     **error)
{
  g_autofree char *what = g_strdup_printf (_("the text of document %lld"), (long long) id);

  return set_damaged_at (store_path, what, error);
}

static void
text_tables (SimStoreText *text,
             guint32       n_pieces)
{
  text->n_pieces = n_pieces;
  text->packed_at = g_new0 (guint32, n_pieces + 1);
  text->text_at = g_new0 (guint32, n_pieces + 1);
  text->char_at = g_new0 (guint32, n_pieces + 1);
}

/* Reads the table of a text kept in pieces; FALSE when it does not add up
 * or, with @checked, its checksum does not. */
static gboolean
parse_pieces (SimStoreText *text,
              const guint8 *blob,
              gsize         len,
              gboolean      checked)
{
  const gsize head = PIECE_HEADER + (checked ? PIECE_CHECKSUM : 0);
  guint32 n;
  guint64 packed = 0, bytes = 0, chars = 0;
  gsize table;

  if (len < head)
    return FALSE;
  memcpy (&n, blob + 4, 4);
  n = GUINT32_FROM_LE (n);
  if (n == 0 || n > (len - head) / PIECE_ENTRY)
    return FALSE;
  if (checked)
    {
      guint64 sums[2];

      memcpy (sums, blob + PIECE_HEADER, PIECE_CHECKSUM);
      if (GUINT64_FROM_LE (sums[0]) != XXH3_64bits (blob + head, (gsize) n * PIECE_ENTRY))
        return FALSE;
      /* Every byte, for sim_store_verify_text(): a fraction of a
       * microsecond per kilobyte, and the blob is at hand only here. */
      text->whole_ok = GUINT64_FROM_LE (sums[1]) == XXH3_64bits (blob + head, len - head);
    }
  table = head + (gsize) n * PIECE_ENTRY;
  text_tables (text, n);
  text->checked = checked;
  for (guint32 i = 0; i < n; i++)
    {
      guint32 entry[3];

      memcpy (entry, blob + head + (gsize) i * PIECE_ENTRY, PIECE_ENTRY);
      entry[0] = GUINT32_FROM_LE (entry[0]);
      entry[1] = GUINT32_FROM_LE (entry[1]);
      entry[2] = GUINT32_FROM_LE (entry[2]);
      /* Only an empty text has an empty piece; a character is 1 to 4 bytes. */
      if (entry[1] > PIECE_MAX || (entry[1] == 0 && n > 1) ||
          entry[2] > entry[1] || (guint64) entry[2] * 4 < entry[1])
        return FALSE;
      packed += entry[0];
      bytes += entry[1];
      chars += entry[2];
      if (packed > len - table || bytes > SIM_STORE_TEXT_MAX)
        return FALSE;
      text->packed_at[i + 1] = packed;
      text->text_at[i + 1] = bytes;
      text->char_at[i + 1] = chars;
    }
  if (packed != len - table)
    return FALSE;
  text->frames = packed > 0 ? g_memdup2 (blob + table, packed) : g_malloc0 (1);
  return TRUE;
}

/* A text from before pieces: one zstd frame, or the text itself. */
static gboolean
read_whole (SimStoreText *text,
            sqlite3_stmt *stmt)
{
  char *body = NULL;
  gsize len = 0;

  if (sqlite3_column_type (stmt, 0) == SQLITE_BLOB)
    {
      const void *packed = sqlite3_column_blob (stmt, 0);
      const gsize packed_len = sqlite3_column_bytes (stmt, 0);
      const unsigned long long size = packed ? ZSTD_getFrameContentSize (packed, packed_len) : ZSTD_CONTENTSIZE_ERROR;

      /* A damaged frame may claim any size: never more than a document may hold. */
      if (size > SIM_STORE_TEXT_MAX)
        return FALSE;
      body = g_malloc (size + 1);
      len = ZSTD_decompressDCtx (get_dctx (), body, size, packed, packed_len);
      if (ZSTD_isError (len) || len != size)
        {
          g_free (body);
          return FALSE;
        }
    }
  else
    {
      const char *t = (const char *) sqlite3_column_text (stmt, 0);

      len = sqlite3_column_bytes (stmt, 0);
      /* Not g_strndup(): its strncpy was a sixteenth of a check process. */
      if (t == NULL || len > SIM_STORE_TEXT_MAX)
        return FALSE;
      body = g_memdup2 (t, len + 1);
    }
  /* Every stored text was valid UTF-8 without a NUL when it was added. */
  if (!sim_text_validate (body, len))
    {
      g_free (body);
      return FALSE;
    }
  body[len] = '\0';
  text_tables (text, 1);
  text->raw = TRUE;
  text->frames = (guint8 *) body;
  text->packed_at[1] = text->text_at[1] = len;
  text->char_at[1] = sim_text_count_chars (body, len);
  return TRUE;
}

SimStoreText *
sim_store_read_text (SimStore  *store,
                     gint64     id,
                     GError   **error)
{
  g_autoptr(SimStoreText) text = NULL;
  sqlite3_stmt *stmt;
  gboolean ok;
  int rc;

  if (get_dctx () == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE, _("Out of memory reading a text of %s"), store->path);
      return NULL;
    }
  /* Prepared once per connection: a check reads hundreds of texts. */
  if (store->text_stmt == NULL)
    store->text_stmt = prepare (store, "SELECT body FROM texts WHERE doc_id = ?", error);
  stmt = store->text_stmt;
  if (stmt == NULL)
    return NULL;
  sqlite3_bind_int64 (stmt, 1, id);
  rc = sqlite3_step (stmt);
  if (rc != SQLITE_ROW)
    {
      if (rc == SQLITE_DONE)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                     _("Document %lld is not in the store %s"), (long long) id, store->path);
      else
        set_sqlite_error (store, rc, "reading a document", error);
      sqlite3_reset (stmt);
      return NULL;
    }
  text = g_new0 (SimStoreText, 1);
  text->store_path = g_strdup (store->path);
  text->id = id;
  if (sqlite3_column_type (stmt, 0) == SQLITE_BLOB && sqlite3_column_bytes (stmt, 0) >= PIECE_HEADER &&
      (memcmp (sqlite3_column_blob (stmt, 0), PIECE_MAGIC, 4) == 0 ||
       memcmp (sqlite3_column_blob (stmt, 0), PIECE_MAGIC_CHECKED, 4) == 0))
    ok = parse_pieces (text, sqlite3_column_blob (stmt, 0), sqlite3_column_bytes (stmt, 0),
                       memcmp (sqlite3_column_blob (stmt, 0), PIECE_MAGIC_CHECKED, 4) == 0);
  else
    ok = read_whole (text, stmt);
  /* Done with the row: a statement left stepping holds a read transaction. */
  sqlite3_reset (stmt);
  if (!ok)
    {
      text_damaged (store->path, id, error);
      return NULL;
    }
  return g_steal_pointer (&text);
}

char *
sim_store_text_dup_range (const SimStoreText *text,
                          guint32             lo,
                          guint32             hi,
                          guint32            *out_first,
                          gsize              *out_len,
                          GError            **error)
{
  const guint32 n_chars = sim_store_text_get_n_chars (text);
  guint32 p0 = 0, p1;
  char *out;
  gsize len;

  if (!text->raw && get_dctx () == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE, _("Out of memory reading a text of %s"), text->store_path);
      return NULL;
    }

  lo = MIN (lo, n_chars);
  hi = CLAMP (hi, lo, n_chars);
  /* The pieces [p0, p1) that hold [lo, hi): the last starting at or before lo... */
  while (p0 + 1 < text->n_pieces && text->char_at[p0 + 1] <= lo)
    p0++;
  /* ...to the first ending at or after hi, at least one. */
  p1 = p0 + 1;
  while (p1 < text->n_pieces && text->char_at[p1] < hi)
    p1++;
  len = text->text_at[p1] - text->text_at[p0];
  out = g_malloc (len + 1);
  if (text->raw)
    memcpy (out, text->frames, len);
  else
    for (guint32 p = p0; p < p1; p++)
      {
        const gsize want = text->text_at[p + 1] - text->text_at[p];
        char *at = out + (text->text_at[p] - text->text_at[p0]);
        const gsize got = ZSTD_decompressDCtx (get_dctx (), at, want, text->frames + text->packed_at[p],
                                               text->packed_at[p + 1] - text->packed_at[p]);

        /* Each piece is valid UTF-8 on its own and holds the code points its entry says. */
        if (ZSTD_isError (got) || got != want || !sim_text_validate (at, want) ||
            sim_text_count_chars (at, want) != text->char_at[p + 1] - text->char_at[p])
          {
            g_free (out);
            text_damaged (text->store_path, text->id, error);
            return NULL;
          }
      }
  out[len] = '\0';
  if (out_first)
    *out_first = text->char_at[p0];
  if (out_len)
    *out_len = len;
  return out;
}

char *
sim_store_dup_text (SimStore  *store,
                    gint64     id,
                    gsize     *out_len,
                    GError   **error)
{
  g_autoptr(SimStoreText) text = sim_store_read_text (store, id, error);

  if (text == NULL)
    return NULL;
  if (text->raw)
    {
      if (out_len)
        *out_len = text->text_at[1];
      return (char *) g_steal_pointer (&text->frames);
    }
  return sim_store_text_dup_range (text, 0, sim_store_text_get_n_chars (text), NULL, out_len, error);
}

SimStoreTextState
sim_store_verify_text (SimStore  *store,
                       gint64     id,
                       GError   **error)
{
  g_autoptr(SimStoreText) text = sim_store_read_text (store, id, error);
  g_autofree char *whole = NULL;

  if (text == NULL)
    return g_error_matches (error ? *error : NULL, SIM_ERROR, SIM_ERROR_STORE_CORRUPT)
             ? SIM_STORE_TEXT_DAMAGED : SIM_STORE_TEXT_UNREADABLE;
  /* Every byte as it was written, even those zstd would read past. */
  if (text->checked && !text->whole_ok)
    return text_damaged (store->path, id, error), SIM_STORE_TEXT_DAMAGED;
  /* Every piece decompressed and counted, not only those a check reads. */
  if (!text->raw)
    whole = sim_store_text_dup_range (text, 0, sim_store_text_get_n_chars (text), NULL, NULL, error);
  if (!text->raw && whole == NULL)
    return SIM_STORE_TEXT_DAMAGED;
  return text->checked ? SIM_STORE_TEXT_SOUND : SIM_STORE_TEXT_UNCHECKED;
}

gboolean
sim_store_replace_text (SimStore  *store,
                        gint64     id,
                        GBytes    *text,
                        GError   **error)
{
  g_autoptr(sqlite3_stmt) stmt = prepare (store, "UPDATE texts SET body = ? WHERE doc_id = ?", error);
  gsize len = 0;
  const void *data = g_bytes_get_data (text, &len);
  int rc;

  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_blob64 (stmt, 1, data, len, SQLITE_STATIC);
  sqlite3_bind_int64 (stmt, 2, id);
  rc = sqlite3_step (stmt);
  if (rc != SQLITE_DONE)
    return set_sqlite_error (store, rc, _("writing a text"), error);
  return TRUE;
}

gboolean
sim_store_set_aside (SimStore    *store,
                     gint64       id,
                     const char  *reason,
                     GError     **error)
{
  g_autoptr(sqlite3_stmt) keep = NULL;
  int rc;

  if (!exec (store, "CREATE TABLE IF NOT EXISTS set_aside ("
                    "  path TEXT NOT NULL, title TEXT NOT NULL, content_hash TEXT NOT NULL,"
                    "  reason TEXT NOT NULL, set_aside_at INTEGER NOT NULL, body);", error))
    return FALSE;
  keep = prepare (store, "INSERT INTO set_aside (path, title, content_hash, reason, set_aside_at, body)"
                         " SELECT d.path, d.title, d.content_hash, ?, ?, t.body"
                         " FROM documents d LEFT JOIN texts t ON t.doc_id = d.id WHERE d.id = ?", error);
  if (keep == NULL)
    return FALSE;
  sqlite3_bind_text (keep, 1, reason, -1, SQLITE_STATIC);
  sqlite3_bind_int64 (keep, 2, g_get_real_time () / G_USEC_PER_SEC);
  sqlite3_bind_int64 (keep, 3, id);
  rc = sqlite3_step (keep);
  if (rc != SQLITE_DONE)
    return set_sqlite_error (store, rc, _("setting a damaged document aside"), error);
  return sim_store_delete (store, id, error);
}

gboolean
sim_store_set_damaged (SimStore    *store,
                       const char  *what,
                       GError     **error)
{
  return set_damaged_at (store->path, what, error);
}

/* Counts are kept compressed in runs of DF_RUN, each as four byte
 * planes (the low bytes, then the next...): the high ones of most counts
 * are 0, and zstd finds them together. */
#define DF_RUN 4096

GBytes *
sim_store_pack_df (const guint32 *counts,
                   gsize          n_buckets)
{
  const gsize size = n_buckets * sizeof (guint32);
  ZSTD_CCtx *cctx = get_cctx ();
  GByteArray *out = g_byte_array_sized_new (ZSTD_CStreamOutSize ());
  gboolean failed = cctx == NULL;

  /* With a checksum: a damaged frame may otherwise decompress, to other
   * counts, without an error. A run at a time through a small buffer: the
   * 4 MiB of planes and the 4 MiB of room for their bound were fresh
   * memory at every call (the statistics of the 10 MB / 1 GB growth
   * corpora: 22 / 24 ms -> 11 / 18 ms the first time in a process, 6-8 /
   * 10-12 ms -> 4.5-5 / 6.5-7 ms after). */
  if (failed)
    goto raw;
  ZSTD_CCtx_reset (cctx, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter (cctx, ZSTD_c_compressionLevel, 1);
  ZSTD_CCtx_setParameter (cctx, ZSTD_c_checksumFlag, 1);
  ZSTD_CCtx_setPledgedSrcSize (cctx, size);
  for (gsize b0 = 0; b0 < n_buckets || b0 == 0; b0 += DF_RUN)
    {
      const gsize m = MIN (DF_RUN, n_buckets - b0);
      const ZSTD_EndDirective end = b0 + DF_RUN >= n_buckets ? ZSTD_e_end : ZSTD_e_continue;
      guint8 planes[4 * DF_RUN];
      ZSTD_inBuffer in = { planes, 4 * m, 0 };
      gsize left;

      for (guint k = 0; k < 4; k++)
        for (gsize i = 0; i < m; i++)
          planes[k * m + i] = counts[b0 + i] >> (8 * k);
      do
        {
          ZSTD_outBuffer o;
          const gsize used = out->len;

          g_byte_array_set_size (out, used + ZSTD_CStreamOutSize ());
          o = (ZSTD_outBuffer) { out->data + used, ZSTD_CStreamOutSize (), 0 };
          left = ZSTD_compressStream2 (cctx, &o, &in, end);
          g_byte_array_set_size (out, used + o.pos);
          failed = ZSTD_isError (left);
        }
      while (!failed && (end == ZSTD_e_end ? left != 0 : in.pos < in.size));
      if (failed || n_buckets == 0)
        break;
    }
  ZSTD_CCtx_reset (cctx, ZSTD_reset_session_and_parameters);
raw:
  /* Counts that do not compress, or could not be compressed (compressing
   * fails only for memory), are kept as they are: the size tells the two
   * apart. */
  if (failed || out->len >= size)
    {
      g_byte_array_set_size (out, size);
      memcpy (out->data, counts, size);
    }
  return g_byte_array_free_to_bytes (out);
}

guint32 *
sim_store_unpack_df (gconstpointer packed,
                     gsize         len,
                     gsize         n_buckets)
{
  const gsize size = n_buckets * sizeof (guint32);
  guint32 *counts;

  if (packed == NULL || len == 0 || len > size)
    return NULL;
  counts = g_new (guint32, MAX (n_buckets, 1));
  sim_prefault (counts, size);
  /* Counts as they are (written before they were compressed, or that did
   * not compress). */
  if (len == size)
    {
      memcpy (counts, packed, size);
      return counts;
    }
  if (ZSTD_getFrameContentSize (packed, len) != size || get_dctx () == NULL ||
      ZSTD_decompressDCtx (get_dctx (), counts, size, packed, len) != size)
    {
      g_free (counts);
      return NULL;
    }
  /* Each run's planes back into counts, in place. */
  for (gsize b0 = 0; b0 < n_buckets; b0 += DF_RUN)
    {
      const gsize m = MIN (DF_RUN, n_buckets - b0);
      guint8 planes[4 * DF_RUN];

      memcpy (planes, counts + b0, 4 * m);
      for (gsize i = 0; i < m; i++)
        counts[b0 + i] = (guint32) planes[i] | (guint32) planes[m + i] << 8 | (guint32) planes[2 * m + i] << 16 |
                         (guint32) planes[3 * m + i] << 24;
    }
  return counts;
}

/* @len bytes of the statistics' blob into @buf, in the read transaction
 * of the statement that found their row. */
static gboolean
read_df_blob (SimStore  *store,
              gpointer   buf,
              gsize      len,
              GError   **error)
{
  sqlite3_blob *blob = NULL;
  int rc = sqlite3_blob_open (store->db, "main", "df", "counts", 0, 0, &blob);

  if (rc == SQLITE_OK)
    rc = sqlite3_blob_read (blob, buf, len, 0);
  if (blob != NULL)
    sqlite3_blob_close (blob);
  return rc == SQLITE_OK || set_sqlite_error (store, rc, "reading feature statistics", error);
}

gboolean
sim_store_load_df_packed (SimStore  *store,
                          gsize      n_buckets,
                          GBytes   **out_packed,
                          guint32   *out_n_docs,
                          GError   **error)
{
  /* length () of a blob reads none of its overflow pages. */
  g_autoptr(sqlite3_stmt) stmt = prepare (store, "SELECT n_docs, length (counts) FROM df WHERE id = 0", error);
  guint8 *packed;
  gsize len;
  int rc;

  if (out_packed)
    *out_packed = NULL;
  *out_n_docs = 0;
  if (stmt == NULL)
    return FALSE;
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_DONE)
    return TRUE;
  if (rc != SQLITE_ROW)
    return set_sqlite_error (store, rc, "reading feature statistics", error);
  if (out_packed == NULL)
    {
      *out_n_docs = CLAMP (sqlite3_column_int64 (stmt, 0), 0, G_MAXUINT32);
      return TRUE;
    }
  len = sqlite3_column_int64 (stmt, 1);
  if (sqlite3_column_int64 (stmt, 0) < 0 || len > n_buckets * sizeof (guint32) || len == 0)
    return sim_store_set_damaged (store, _("feature statistics of the wrong size"), error);
  packed = g_malloc (len);
  sim_prefault (packed, len);
  if (!read_df_blob (store, packed, len, error))
    {
      g_free (packed);
      return FALSE;
    }
  *out_packed = g_bytes_new_take (packed, len);
  *out_n_docs = sqlite3_column_int64 (stmt, 0);
  return TRUE;
}

gboolean
sim_store_load_df (SimStore  *store,
                   gsize      n_buckets,
                   guint32  **out_counts,
                   guint32   *out_n_docs,
                   GError   **error)
{
  g_autoptr(GBytes) packed = NULL;

  if (out_counts)
    *out_counts = NULL;
  if (!sim_store_load_df_packed (store, n_buckets, out_counts ? &packed : NULL, out_n_docs, error))
    return FALSE;
  if (packed == NULL)
    return TRUE;
  *out_counts = sim_store_unpack_df (g_bytes_get_data (packed, NULL), g_bytes_get_size (packed), n_buckets);
  if (*out_counts == NULL)
    {
      *out_n_docs = 0;
      return sim_store_set_damaged (store, _("feature statistics of the wrong size"), error);
    }
  return TRUE;
}

gboolean
sim_store_save_df (SimStore       *store,
                   const guint32  *counts,
                   gsize           n_buckets,
                   guint32         n_docs,
                   GError        **error)
{
  /* Compressed (sim_store_pack_df()): a tenth of their 4 MiB for a small
   * corpus, a third for a large one. Replacing the row frees and, for
   * secure_delete, zeroes the pages of the old one at every batch of an
   * import: fewer than the 4 MiB written over in place before. */
  g_autoptr(GBytes) packed = sim_store_pack_df (counts, n_buckets);
  g_autoptr(sqlite3_stmt) stmt = prepare (store, "INSERT OR REPLACE INTO df (id, n_docs, counts) VALUES (0, ?, ?)", error);
  gsize len;
  gconstpointer data;

  if (stmt == NULL)
    return FALSE;
  data = g_bytes_get_data (packed, &len);
  sqlite3_bind_int64 (stmt, 1, n_docs);
  sqlite3_bind_blob64 (stmt, 2, data, len, SQLITE_STATIC);
  return step_done (store, stmt, "saving feature statistics", error);
}
