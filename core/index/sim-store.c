/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The store: one SQLite file of documents, their texts and the feature
 * statistics; opening it, its transactions, its documents. Salvage, texts
 * and statistics are in files of their own (sim-store-private.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <string.h>
#include <glib/gstdio.h>

#include "sim-error.h"
#include "sim-store-private.h"

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
gboolean
_sim_store_error (SimStore    *store,
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

gboolean
_sim_store_exec (SimStore    *store,
      const char  *sql,
      GError     **error)
{
  int rc = sqlite3_exec (store->db, sql, NULL, NULL, NULL);

  if (rc != SQLITE_OK)
    return _sim_store_error (store, rc, sql, error);
  return TRUE;
}

sqlite3_stmt *
_sim_store_prepare (SimStore    *store,
         const char  *sql,
         GError     **error)
{
  sqlite3_stmt *stmt = NULL;
  int rc = sqlite3_prepare_v2 (store->db, sql, -1, &stmt, NULL);

  if (rc != SQLITE_OK)
    {
      _sim_store_error (store, rc, sql, error);
      return NULL;
    }
  return stmt;
}

static void
finalize (gpointer stmt)
{
  sqlite3_finalize (stmt);
}

sqlite3_stmt *
_sim_store_cached (SimStore    *store,
                   const char  *sql,
                   GError     **error)
{
  sqlite3_stmt *stmt;

  if (store->cached == NULL)
    store->cached = g_hash_table_new_full (g_str_hash, g_str_equal, NULL, finalize);
  stmt = g_hash_table_lookup (store->cached, sql);
  if (stmt != NULL)
    {
      sqlite3_reset (stmt);
      sqlite3_clear_bindings (stmt);
      return stmt;
    }
  if ((stmt = _sim_store_prepare (store, sql, error)) != NULL)
    g_hash_table_insert (store->cached, (gpointer) sql, stmt);
  return stmt;
}

/* Runs a statement that returns no rows. */
gboolean
_sim_store_step_done (SimStore     *store,
           sqlite3_stmt *stmt,
           const char   *what,
           GError      **error)
{
  int rc = sqlite3_step (stmt);

  if (rc != SQLITE_DONE)
    return _sim_store_error (store, rc, what, error);
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
sim_store_is_document_id (const char *s)
{
  if (*s == '\0')
    return FALSE;
  for (; *s; s++)
    if (!g_ascii_isdigit (*s))
      return FALSE;
  return TRUE;
}

char *
sim_store_location_redact (const char *location)
{
  g_autoptr(GRegex) uri = g_regex_new ("(://[^:@/?]*):[^@/?]*@", 0, 0, NULL);
  g_autoptr(GRegex) pairs = g_regex_new ("(password\\s*=\\s*)('(\\\\.|[^'])*'|\\S+)", G_REGEX_CASELESS, 0, NULL);
  g_autofree char *step = g_regex_replace (uri, location, -1, 0, "\\1@", 0, NULL);

  return g_regex_replace (pairs, step ? step : location, -1, 0, "\\1…", 0, NULL);
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
      _sim_store_error (store, rc, _("opening"), error);
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
          _sim_store_error (store, rc, _("opening"), error);
          return NULL;
        }
      rc = read_user_version (store, &user_version);
    }
  if (rc != SQLITE_ROW)
    {
      _sim_store_error (store, rc, _("reading the format version"), error);
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
  stmt = _sim_store_prepare (store, "SELECT user_version, (SELECT count(*) FROM sqlite_master) FROM pragma_user_version",
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
      if (!_sim_store_exec (store, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", error))
        return NULL;
    }
  /* Removed documents leave no readable text behind in free pages. */
  if (!_sim_store_exec (store, "PRAGMA foreign_keys=ON; PRAGMA secure_delete=ON;", error))
    return NULL;
  if (user_version == 0 && !read_only)
    {
      g_autofree char *sql = g_strdup_printf ("BEGIN; %s PRAGMA user_version=%d; COMMIT;",
                                              schema, SIM_STORE_FORMAT_VERSION);

      if (!_sim_store_exec (store, sql, error))
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
  g_clear_pointer (&store->cached, g_hash_table_unref);
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
  g_autoptr(sqlite3_stmt) stmt = _sim_store_prepare (store, "PRAGMA page_size", error);
  gint64 page_size = 4096;

  if (stmt == NULL)
    return FALSE;
  if (sqlite3_step (stmt) == SQLITE_ROW)
    page_size = sqlite3_column_int64 (stmt, 0);
  sql = g_strdup_printf ("PRAGMA max_page_count=%" G_GINT64_FORMAT, MAX (bytes / page_size, 1));
  return _sim_store_exec (store, sql, error);
}

gboolean
sim_store_check_integrity (SimStore  *store,
                           GError   **error)
{
  g_autoptr(sqlite3_stmt) stmt = _sim_store_prepare (store, "PRAGMA integrity_check", error);
  int rc;

  if (stmt == NULL)
    return FALSE;
  rc = sqlite3_step (stmt);
  if (rc != SQLITE_ROW)
    return _sim_store_error (store, rc, "checking integrity", error);
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
  g_autoptr(sqlite3_stmt) stmt = _sim_store_prepare (store, "PRAGMA quick_check(1)", error);
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

gboolean
sim_store_begin (SimStore  *store,
                 GError   **error)
{
  return _sim_store_exec (store, "BEGIN IMMEDIATE", error);
}

gboolean
sim_store_begin_read (SimStore  *store,
                      GError   **error)
{
  return _sim_store_exec (store, "BEGIN DEFERRED", error);
}

gboolean
sim_store_commit (SimStore  *store,
                  GError   **error)
{
  /* Every write moves the epoch on: a cache made from the store (the
   * corpus's index file) names the epoch it was made at. */
  if (!_sim_store_exec (store, "INSERT INTO meta (key, value) VALUES ('epoch', '1') ON CONFLICT (key) "
                    "DO UPDATE SET value = CAST (value AS INTEGER) + 1", error) ||
      !_sim_store_exec (store, "COMMIT", error))
    {
      sim_store_rollback (store);
      return FALSE;
    }
  return TRUE;
}

gboolean
sim_store_data_version (SimStore  *store,
                        gint64    *out_version,
                        GError   **error)
{
  sqlite3_stmt *stmt = _sim_store_cached (store, "PRAGMA data_version", error);
  int rc;

  if (stmt == NULL)
    return FALSE;
  rc = sqlite3_step (stmt);
  if (rc != SQLITE_ROW)
    return _sim_store_error (store, rc, "reading the store's version", error);
  *out_version = sqlite3_column_int64 (stmt, 0);
  sqlite3_reset (stmt);
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
  g_autoptr(sqlite3_stmt) stmt = _sim_store_prepare (store, "SELECT value FROM meta WHERE key = ?", error);
  int rc;

  if (stmt == NULL)
    return NULL;
  sqlite3_bind_text (stmt, 1, key, -1, SQLITE_STATIC);
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    return g_strdup ((const char *) sqlite3_column_text (stmt, 0));
  if (rc != SQLITE_DONE)
    _sim_store_error (store, rc, "reading settings", error);
  return NULL;
}

gboolean
sim_store_set_meta (SimStore    *store,
                    const char  *key,
                    const char  *value,
                    GError     **error)
{
  g_autoptr(sqlite3_stmt) stmt =
    _sim_store_prepare (store, "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", error);

  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_text (stmt, 1, key, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, 2, value, -1, SQLITE_STATIC);
  return _sim_store_step_done (store, stmt, "saving settings", error);
}

gboolean
sim_store_find_path (SimStore    *store,
                     const char  *path,
                     gint64      *out_id,
                     char       **out_hash,
                     GError     **error)
{
  sqlite3_stmt *stmt = _sim_store_cached (store, "SELECT id, content_hash FROM documents WHERE path = ?", error);
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
      sqlite3_reset (stmt);
      return TRUE;
    }
  sqlite3_reset (stmt);
  if (rc != SQLITE_DONE)
    _sim_store_error (store, rc, "looking up a document", error);
  return FALSE;
}


gboolean
sim_store_insert (SimStore          *store,
                  SimStoreDocument  *doc,
                  GBytes            *text,
                  GError           **error)
{
  sqlite3_stmt *stmt;

  stmt = _sim_store_cached (store,
                  "INSERT INTO documents (path, title, content_hash, n_bytes, n_chars, n_segments,"
                  " modified_at, added_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", error);
  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_text (stmt, 1, doc->path, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, 2, doc->title, -1, SQLITE_STATIC);
  sqlite3_bind_text (stmt, 3, doc->content_hash, -1, SQLITE_STATIC);
  sqlite3_bind_int64 (stmt, 4, doc->n_bytes);
  sqlite3_bind_int64 (stmt, 5, doc->n_chars);
  sqlite3_bind_int64 (stmt, 6, doc->n_anchors);
  sqlite3_bind_int64 (stmt, 7, doc->modified_at);
  sqlite3_bind_int64 (stmt, 8, doc->added_at);
  sqlite3_bind_int64 (stmt, 9, doc->updated_at);
  if (!_sim_store_step_done (store, stmt, "adding a document", error))
    return FALSE;
  doc->id = sqlite3_last_insert_rowid (store->db);

  /* Format 1 kept each text as one frame: this build reads those and
   * writes pieces, which a build that reads format 1 only cannot read. */
  if (store->format < SIM_STORE_FORMAT_VERSION &&
      !_sim_store_exec (store, "PRAGMA user_version=" G_STRINGIFY (SIM_STORE_FORMAT_VERSION), error))
    return FALSE;
  stmt = _sim_store_cached (store, "INSERT INTO texts (doc_id, body) VALUES (?, ?)", error);
  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, doc->id);
  sqlite3_bind_blob (stmt, 2, g_bytes_get_data (text, NULL), g_bytes_get_size (text), SQLITE_STATIC);
  return _sim_store_step_done (store, stmt, "saving a document's text", error);
}

gboolean
sim_store_set_n_anchors (SimStore  *store,
                          gint64     id,
                         gint64     n_anchors,
                          GError   **error)
{
  sqlite3_stmt *stmt = _sim_store_cached (store, "UPDATE documents SET n_segments = ? WHERE id = ?", error);

  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, n_anchors);
  sqlite3_bind_int64 (stmt, 2, id);
  return _sim_store_step_done (store, stmt, "saving fingerprints", error);
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
    _sim_store_prepare (store, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'segments'", error);

  if (stmt == NULL)
    return FALSE;
  *out_dropped = sqlite3_step (stmt) == SQLITE_ROW && sqlite3_column_int (stmt, 0) > 0;
  g_clear_pointer (&stmt, sqlite3_finalize);  /* a statement still reading the schema locks it */
  return !*out_dropped || _sim_store_exec (store, "DROP TABLE segments", error);
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
  g_autoptr(sqlite3_stmt) stmt = _sim_store_prepare (store, "DELETE FROM documents WHERE id = ?", error);

  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_int64 (stmt, 1, id);
  return _sim_store_step_done (store, stmt, "removing a document", error);
}

#define DOCUMENT_COLUMNS "id, path, title, content_hash, n_bytes, n_chars, n_segments, " \
                         "modified_at, added_at, updated_at"

/* A document's row from @stmt (DOCUMENT_COLUMNS), its strings the
 * statement's. */
static gboolean
read_document (SimStore          *store,
               sqlite3_stmt      *stmt,
               SimStoreDocument  *doc,
               GError           **error)
{
  doc->id = sqlite3_column_int64 (stmt, 0);
  doc->path = (char *) sqlite3_column_text (stmt, 1);
  doc->title = (char *) sqlite3_column_text (stmt, 2);
  doc->content_hash = (char *) sqlite3_column_text (stmt, 3);
  doc->n_bytes = sqlite3_column_int64 (stmt, 4);
  doc->n_chars = sqlite3_column_int64 (stmt, 5);
  doc->n_anchors = sqlite3_column_int64 (stmt, 6);
  doc->modified_at = sqlite3_column_int64 (stmt, 7);
  doc->added_at = sqlite3_column_int64 (stmt, 8);
  doc->updated_at = sqlite3_column_int64 (stmt, 9);
  if (doc->title == NULL)
    doc->title = (char *) "";
  /* Columns declared NOT NULL can still read as NULL from damaged pages. */
  if (doc->path == NULL || doc->content_hash == NULL)
    {
      sim_store_set_damaged (store, _("the list of documents"), error);
      return FALSE;
    }
  return TRUE;
}

gboolean
sim_store_foreach_document (SimStore             *store,
                            SimStoreDocumentFunc  func,
                            gpointer              user_data,
                            GError              **error)
{
  g_autoptr(sqlite3_stmt) stmt =
    _sim_store_prepare (store, "SELECT " DOCUMENT_COLUMNS " FROM documents ORDER BY id", error);
  int rc;

  if (stmt == NULL)
    return FALSE;
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      SimStoreDocument doc;

      if (!read_document (store, stmt, &doc, error))
        return FALSE;
      func (&doc, user_data);
    }
  if (rc != SQLITE_DONE)
    {
      _sim_store_error (store, rc, "listing documents", error);
      return FALSE;
    }
  return TRUE;
}

static SimStoreDocument *
copy_document (const SimStoreDocument *doc)
{
  SimStoreDocument *copy = g_memdup2 (doc, sizeof *doc);

  copy->path = g_strdup (doc->path);
  copy->title = g_strdup (doc->title);
  copy->content_hash = g_strdup (doc->content_hash);
  return copy;
}

SimStoreDocument *
sim_store_get_document (SimStore  *store,
                        gint64     id,
                        GError   **error)
{
  g_autoptr(sqlite3_stmt) stmt =
    _sim_store_prepare (store, "SELECT " DOCUMENT_COLUMNS " FROM documents WHERE id = ?", error);
  SimStoreDocument doc;
  int rc;

  if (stmt == NULL)
    return NULL;
  sqlite3_bind_int64 (stmt, 1, id);
  if ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    return read_document (store, stmt, &doc, error) ? copy_document (&doc) : NULL;
  if (rc == SQLITE_DONE)
    {
      g_autofree char *number = g_strdup_printf ("%" G_GINT64_FORMAT, id);

      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT, _("No document %s in the corpus"), number);
    }
  else
    _sim_store_error (store, rc, "reading a document", error);
  return NULL;
}

static void
add_copy (const SimStoreDocument *doc,
          gpointer                user_data)
{
  g_ptr_array_add (user_data, copy_document (doc));
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
