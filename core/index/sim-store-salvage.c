/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Salvage of a damaged store: every row that can still be read is copied
 * into a new file that takes the damaged one's place (sim_store_salvage()).
 */
#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "sim-error.h"
#include "sim-store-private.h"

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
  if ((dst = sim_store_open (tmp, FALSE, error)) == NULL || !_sim_store_exec (dst, "BEGIN", error))
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
        !_sim_store_exec (dst, "CREATE TABLE IF NOT EXISTS set_aside (path TEXT NOT NULL, title TEXT NOT NULL,"
                    " content_hash TEXT NOT NULL, reason TEXT NOT NULL, set_aside_at INTEGER NOT NULL, body);", error))
      goto out;
    for (guint i = 0; i < rows->len; i++)
      copy_row (src, dst->db, "set_aside", "rowid", g_array_index (rows, gint64, i));
  }
  if (!_sim_store_exec (dst, "COMMIT", error))
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
