/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The SQLite store: create, write, read, delete, and the faults a user can
 * meet: a file that is not a store, a store from a newer Simhound, a full disk.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include <sqlite3.h>
#include <zstd.h>

#include "sim-error.h"
#include "sim-store.h"
#include "sim-test-util.h"

static int
setup (void **state)
{
  *state = sim_test_make_tmp_dir ();
  return 0;
}

static int
teardown (void **state)
{
  sim_test_remove_tree (*state);
  g_free (*state);
  return 0;
}

static SimStoreDocument *
make_doc (const char *path)
{
  SimStoreDocument *doc = g_new0 (SimStoreDocument, 1);

  doc->path = g_strdup (path);
  doc->title = g_strdup ("Title");
  doc->content_hash = g_strdup ("00ff");
  doc->n_bytes = 10;
  doc->n_chars = 10;
  doc->n_anchors = 1;
  return doc;
}

/* @text as the store keeps it, held in *@slot until the next call. */
static GBytes *
packed (GBytes    **slot,
        const char *text)
{
  g_clear_pointer (slot, g_bytes_unref);
  *slot = sim_store_pack_text (text, strlen (text), NULL);
  return *slot;
}

static void
remember_path (const SimStoreDocument *doc,
               gpointer                user_data)
{
  g_ptr_array_add (user_data, g_strdup_printf ("%s %s %" G_GINT64_FORMAT, doc->path, doc->content_hash, doc->n_chars));
}

static void
test_store_insert_list_read_delete (void **state)
{
  g_autoptr(GBytes) text_bytes = NULL;
  g_autofree char *path = g_build_filename (*state, "sub", "dir", "store.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimStore) store = sim_store_open (path, FALSE, &error);
  g_autoptr(SimStoreDocument) doc = make_doc ("/a.txt");
  g_autoptr(GPtrArray) docs = NULL;
  g_autofree char *text = NULL;
  g_autofree char *hash = NULL;
  g_autofree char *meta = NULL;
  gint64 id = 0;
  gsize len = 0;

  assert_non_null (store);
  assert_true (sim_store_begin (store, &error));
  assert_true (sim_store_insert (store, doc, packed (&text_bytes, "第一段"), &error));
  assert_true (sim_store_set_meta (store, "k", "v", &error));
  assert_true (sim_store_commit (store, &error));
  assert_true (doc->id > 0);

  assert_true (sim_store_find_path (store, "/a.txt", &id, &hash, &error));
  assert_int_equal (id, doc->id);
  assert_string_equal (hash, "00ff");
  assert_false (sim_store_find_path (store, "/b.txt", NULL, NULL, &error));
  assert_null (error);
  text = sim_store_dup_text (store, id, &len, &error);
  assert_string_equal (text, "第一段");
  meta = sim_store_dup_meta (store, "k", &error);
  assert_string_equal (meta, "v");
  assert_null (sim_store_dup_meta (store, "missing", &error));
  assert_null (error);

  docs = sim_store_list (store, &error);
  assert_int_equal (docs->len, 1);
  assert_string_equal (((SimStoreDocument *) g_ptr_array_index (docs, 0))->path, "/a.txt");
  assert_string_equal (((SimStoreDocument *) g_ptr_array_index (docs, 0))->content_hash, "00ff");
  /* The same document visited without a copy. */
  {
    g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func (g_free);

    assert_true (sim_store_foreach_document (store, remember_path, seen, &error));
    assert_int_equal (seen->len, 1);
    assert_string_equal (g_ptr_array_index (seen, 0), "/a.txt 00ff 10");
  }
  assert_true (sim_store_delete (store, id, &error));
  g_clear_pointer (&text, g_free);
  text = sim_store_dup_text (store, id, NULL, &error);
  assert_null (text);
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND));
  assert_true (sim_store_check_integrity (store, NULL));
}

static void
test_store_rolls_back_uncommitted_work (void **state)
{
  g_autoptr(GBytes) text_bytes = NULL;
  g_autofree char *path = g_build_filename (*state, "store.db", NULL);
  g_autoptr(SimStore) store = sim_store_open (path, FALSE, NULL);
  g_autoptr(SimStoreDocument) doc = make_doc ("/a.txt");
  g_autoptr(GPtrArray) docs = NULL;

  assert_true (sim_store_begin (store, NULL));
  assert_true (sim_store_insert (store, doc, packed (&text_bytes, "x"), NULL));
  sim_store_rollback (store);
  docs = sim_store_list (store, NULL);
  assert_int_equal (docs->len, 0);
}

static void
test_store_refuses_a_file_that_is_not_a_store (void **state)
{
  g_autofree char *path = sim_test_write_file (*state, "essay.db", "This is my essay, not a database.\n", -1);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimStore) store = sim_store_open (path, FALSE, &error);

  assert_null (store);
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT));
  assert_non_null (strstr (error->message, path));
}

static void
test_store_refuses_a_newer_format (void **state)
{
  g_autofree char *path = g_build_filename (*state, "new.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimStore) store = NULL;
  sqlite3 *db = NULL;

  assert_int_equal (sqlite3_open (path, &db), SQLITE_OK);
  assert_int_equal (sqlite3_exec (db, "CREATE TABLE t (x); PRAGMA user_version = 99;", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close (db);

  store = sim_store_open (path, FALSE, &error);
  assert_null (store);
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_STORE_TOO_NEW));
}

/* A row whose NOT NULL column reads as NULL (a damaged page) is refused, not
 * handed on: the fuzzer found a crash when a document's path came back NULL. */
static void
test_store_refuses_a_document_row_without_path (void **state)
{
  g_autoptr(GBytes) text_bytes = NULL;
  g_autofree char *path = g_build_filename (*state, "store.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimStore) store = sim_store_open (path, FALSE, NULL);
  g_autoptr(SimStoreDocument) doc = make_doc ("/a.txt");
  g_autoptr(GPtrArray) docs = NULL;
  sqlite3 *db = NULL;

  assert_true (sim_store_begin (store, NULL));
  assert_true (sim_store_insert (store, doc, packed (&text_bytes, "x"), NULL));
  assert_true (sim_store_commit (store, NULL));
  g_clear_pointer (&store, sim_store_free);

  assert_int_equal (sqlite3_open (path, &db), SQLITE_OK);
  assert_int_equal (sqlite3_exec (db,
                                  "PRAGMA writable_schema = ON;"
                                  "UPDATE sqlite_schema SET sql = replace (sql, 'path TEXT NOT NULL UNIQUE', 'path TEXT UNIQUE')"
                                  "  WHERE name = 'documents';",
                                  NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close (db);
  assert_int_equal (sqlite3_open (path, &db), SQLITE_OK);
  assert_int_equal (sqlite3_exec (db, "UPDATE documents SET path = NULL;", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close (db);

  store = sim_store_open (path, TRUE, &error);
  assert_non_null (store);
  docs = sim_store_list (store, &error);
  assert_null (docs);
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT));
  assert_non_null (strstr (error->message, "rebuild"));
}

static void
test_store_full_disk_loses_only_the_failed_transaction (void **state)
{
  g_autofree char *path = g_build_filename (*state, "small.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimStore) store = sim_store_open (path, FALSE, &error);
  g_autoptr(SimStoreDocument) small = make_doc ("/small.txt");
  g_autoptr(SimStoreDocument) big = make_doc ("/big.txt");
  g_autofree char *huge = g_malloc ((4 << 20) + 1);
  g_autoptr(GBytes) text_bytes = NULL;
  guint32 seed = 1;

  /* Letters at random: 4 MB that compress to well over the limit. */
  for (gsize i = 0; i < 4 << 20; i++)
    {
      seed = seed * 1103515245u + 12345u;
      huge[i] = 'a' + (seed >> 16) % 26;
    }
  huge[4 << 20] = '\0';
  g_autoptr(GPtrArray) docs = NULL;

  assert_true (sim_store_begin (store, &error));
  assert_true (sim_store_insert (store, small, packed (&text_bytes, "kept"), &error));
  assert_true (sim_store_commit (store, &error));

  assert_true (sim_store_set_size_limit (store, 256 * 1024, &error));
  assert_true (sim_store_begin (store, &error));
  assert_false (sim_store_insert (store, big, packed (&text_bytes, huge), &error));
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_STORE_FULL));
  sim_store_rollback (store);
  g_clear_pointer (&store, sim_store_free);

  store = sim_store_open (path, FALSE, NULL);
  assert_true (sim_store_check_integrity (store, NULL));
  docs = sim_store_list (store, NULL);
  assert_int_equal (docs->len, 1);
  assert_string_equal (((SimStoreDocument *) g_ptr_array_index (docs, 0))->path, "/small.txt");
}

/* A text of @n characters of one to four bytes, drawn at random. */
static char *
mixed_text (guint n)
{
  static const char *const chars[] = { "a", "b", " ", "é", "中", "文", "𝄞", ".", "\n", "z" };
  GString *out = g_string_new (NULL);
  guint32 seed = 7;

  for (guint i = 0; i < n; i++)
    {
      seed = seed * 1103515245u + 12345u;
      g_string_append (out, chars[(seed >> 16) % G_N_ELEMENTS (chars)]);
    }
  return g_string_free (out, FALSE);
}

/* Texts are kept in pieces: any range read back is the same code points
 * as the whole text holds there, and the whole text reads back whole. */
static void
test_store_text_ranges_read_what_the_whole_holds (void **state)
{
  g_autofree char *path = g_build_filename (*state, "store.db", NULL);
  g_autoptr(SimStore) store = sim_store_open (path, FALSE, NULL);
  const guint sizes[] = { 0, 1, 5000, 30011 };

  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    {
      g_autofree char *name = g_strdup_printf ("/t%u.txt", k);
      g_autoptr(SimStoreDocument) doc = make_doc (name);
      g_autofree char *whole = mixed_text (sizes[k]);
      g_autoptr(GBytes) text_bytes = NULL;
      g_autofree char *back = NULL;
      g_autoptr(SimStoreText) text = NULL;
      g_autoptr(GError) error = NULL;
      const glong n = g_utf8_strlen (whole, -1);
      gsize len = 0;

      assert_true (sim_store_begin (store, NULL));
      assert_true (sim_store_insert (store, doc, packed (&text_bytes, whole), NULL));
      assert_true (sim_store_commit (store, NULL));
      back = sim_store_dup_text (store, doc->id, &len, &error);
      g_assert_no_error (error);
      assert_int_equal (len, strlen (whole));
      assert_string_equal (back, whole);

      text = sim_store_read_text (store, doc->id, &error);
      g_assert_no_error (error);
      assert_int_equal (sim_store_text_get_n_chars (text), n);
      for (glong lo = 0; lo <= n; lo += 997)
        for (glong hi = lo; hi <= n; hi += 1511)
          {
            guint32 first = G_MAXUINT32;
            g_autofree char *part = sim_store_text_dup_range (text, lo, hi, &first, &len, &error);
            const char *at = g_utf8_offset_to_pointer (whole, first);

            g_assert_no_error (error);
            assert_true (first <= (guint32) lo);
            assert_int_equal (len, strlen (part));
            assert_true (g_utf8_validate (part, len, NULL));
            assert_memory_equal (part, at, len);
            /* It holds [lo, hi). */
            assert_true (first + g_utf8_strlen (part, len) >= (guint32) hi);
            /* And is no more than the pieces that do: a piece on each side at most. */
            assert_true ((glong) len <= g_utf8_offset_to_pointer (whole, hi) - g_utf8_offset_to_pointer (whole, lo) +
                                        2 * SIM_STORE_TEXT_PIECE);
          }
    }
}

/* A piece ends before a character, so it may fall up to 3 bytes short:
 * a text made so that every piece does still reads back whole, in as
 * many pieces as it takes. */
static void
test_store_pieces_that_fall_short_add_up (void **state)
{
  /* A piece less 3 bytes: a 4-byte character, then letters up to where
   * the next one starts 3 bytes before the end of a piece. */
  const gsize unit = SIM_STORE_TEXT_PIECE - 3, n_units = 6000;
  GString *whole = g_string_sized_new (unit * n_units);
  g_autoptr(GBytes) packed_text = NULL;
  guint32 n_pieces;

  for (gsize u = 0; u < n_units; u++)
    {
      g_string_append (whole, "𝄞");
      for (gsize i = 4; i < unit; i++)
        g_string_append_c (whole, 'a' + (i * 7 + u) % 26);
    }
  packed_text = sim_store_pack_text (whole->str, whole->len, NULL);
  memcpy (&n_pieces, (const guint8 *) g_bytes_get_data (packed_text, NULL) + 4, 4);
  /* Each fell 3 bytes short: more pieces than whole ones, and one. */
  assert_int_equal (GUINT32_FROM_LE (n_pieces), n_units);
  assert_true (n_units > (whole->len + SIM_STORE_TEXT_PIECE - 1) / SIM_STORE_TEXT_PIECE + 1);
  {
    g_autofree char *path = g_build_filename (*state, "store.db", NULL);
    g_autoptr(SimStore) store = sim_store_open (path, FALSE, NULL);
    g_autoptr(SimStoreDocument) doc = make_doc ("/long.txt");
    g_autoptr(GError) error = NULL;
    g_autofree char *back = NULL;
    gsize len = 0;

    assert_true (sim_store_begin (store, NULL));
    assert_true (sim_store_insert (store, doc, packed_text, NULL));
    assert_true (sim_store_commit (store, NULL));
    back = sim_store_dup_text (store, doc->id, &len, &error);
    g_assert_no_error (error);
    assert_int_equal (len, whole->len);
    assert_memory_equal (back, whole->str, len);
  }
  g_string_free (whole, TRUE);
}

/* Stores from before pieces kept a text as one zstd frame, or as TEXT:
 * both still read, whole and in ranges, and a format 1 store says it is
 * format 2 once a text in pieces is written to it, not before. */
static void
test_store_reads_texts_kept_whole (void **state)
{
  g_autofree char *path = g_build_filename (*state, "store.db", NULL);
  g_autoptr(GBytes) text_bytes = NULL;
  g_autofree char *whole = mixed_text (20000);
  const gsize len = strlen (whole);
  g_autofree guint8 *frame = g_malloc (ZSTD_compressBound (len));
  const gsize frame_len = ZSTD_compress (frame, ZSTD_compressBound (len), whole, len, 3);
  gint64 ids[2];
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;

  {
    g_autoptr(SimStore) store = sim_store_open (path, FALSE, NULL);

    for (guint k = 0; k < 2; k++)
      {
        g_autofree char *name = g_strdup_printf ("/t%u.txt", k);
        g_autoptr(SimStoreDocument) doc = make_doc (name);

        assert_true (sim_store_begin (store, NULL));
        assert_true (sim_store_insert (store, doc, packed (&text_bytes, "x"), NULL));
        assert_true (sim_store_commit (store, NULL));
        ids[k] = doc->id;
      }
  }
  assert_false (ZSTD_isError (frame_len));
  assert_int_equal (sqlite3_open (path, &db), SQLITE_OK);
  assert_int_equal (sqlite3_prepare_v2 (db, "UPDATE texts SET body = ? WHERE doc_id = ?", -1, &stmt, NULL), SQLITE_OK);
  sqlite3_bind_blob (stmt, 1, frame, frame_len, SQLITE_STATIC);
  sqlite3_bind_int64 (stmt, 2, ids[0]);
  assert_int_equal (sqlite3_step (stmt), SQLITE_DONE);
  sqlite3_reset (stmt);
  sqlite3_bind_text (stmt, 1, whole, len, SQLITE_STATIC);
  sqlite3_bind_int64 (stmt, 2, ids[1]);
  assert_int_equal (sqlite3_step (stmt), SQLITE_DONE);
  sqlite3_finalize (stmt);
  assert_int_equal (sqlite3_exec (db, "PRAGMA user_version=1", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close (db);

  {
    g_autoptr(SimStore) store = sim_store_open (path, TRUE, NULL);

    for (guint k = 0; k < 2; k++)
      {
        g_autoptr(GError) error = NULL;
        g_autofree char *back = sim_store_dup_text (store, ids[k], NULL, &error);
        g_autoptr(SimStoreText) text = sim_store_read_text (store, ids[k], &error);
        guint32 first = 99;
        g_autofree char *part = sim_store_text_dup_range (text, 15000, 15010, &first, NULL, &error);

        g_assert_no_error (error);
        assert_string_equal (back, whole);
        assert_int_equal (sim_store_text_get_n_chars (text), 20000);
        assert_int_equal (first, 0);
        assert_string_equal (part, whole);
      }
  }
  assert_int_equal (sqlite3_open (path, &db), SQLITE_OK);
  assert_int_equal (sqlite3_prepare_v2 (db, "PRAGMA user_version", -1, &stmt, NULL), SQLITE_OK);
  assert_int_equal (sqlite3_step (stmt), SQLITE_ROW);
  assert_int_equal (sqlite3_column_int (stmt, 0), 1);
  sqlite3_finalize (stmt);
  {
    g_autoptr(SimStore) store = sim_store_open (path, FALSE, NULL);
    g_autoptr(SimStoreDocument) doc = make_doc ("/new.txt");

    assert_true (sim_store_begin (store, NULL));
    assert_true (sim_store_insert (store, doc, packed (&text_bytes, "x"), NULL));
    /* Opened for writing, and written, but not committed: still format 1. */
    sim_store_rollback (store);
    assert_int_equal (sqlite3_prepare_v2 (db, "PRAGMA user_version", -1, &stmt, NULL), SQLITE_OK);
    assert_int_equal (sqlite3_step (stmt), SQLITE_ROW);
    assert_int_equal (sqlite3_column_int (stmt, 0), 1);
    sqlite3_finalize (stmt);
    assert_true (sim_store_begin (store, NULL));
    assert_true (sim_store_insert (store, doc, packed (&text_bytes, "x"), NULL));
    assert_true (sim_store_commit (store, NULL));
  }
  assert_int_equal (sqlite3_prepare_v2 (db, "PRAGMA user_version", -1, &stmt, NULL), SQLITE_OK);
  assert_int_equal (sqlite3_step (stmt), SQLITE_ROW);
  assert_int_equal (sqlite3_column_int (stmt, 0), SIM_STORE_FORMAT_VERSION);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
}

/* Every byte of a packed text's table and of its first frame damaged in
 * turn: reading it gives the text it held or "damaged", never a crash,
 * and a range never holds anything but valid UTF-8. */
static void
test_store_damaged_pieces_are_reported (void **state)
{
  g_autofree char *path = g_build_filename (*state, "store.db", NULL);
  g_autoptr(SimStore) store = sim_store_open (path, FALSE, NULL);
  g_autoptr(SimStoreDocument) doc = make_doc ("/a.txt");
  g_autofree char *whole = mixed_text (9000);
  g_autoptr(GBytes) text_bytes = sim_store_pack_text (whole, strlen (whole), NULL);
  gsize packed_len = 0;
  const guint8 *good = g_bytes_get_data (text_bytes, &packed_len);
  g_autofree guint8 *bad = g_memdup2 (good, packed_len);
  guint n_damaged = 0;

  assert_true (packed_len > 200);
  assert_true (sim_store_begin (store, NULL));
  assert_true (sim_store_insert (store, doc, text_bytes, NULL));
  assert_true (sim_store_commit (store, NULL));
  for (gsize at = 0; at < 120; at++)
    for (guint bit = 0; bit < 8; bit += 3)
      {
        g_autoptr(GBytes) damaged = NULL;
        g_autoptr(GError) error = NULL;
        g_autoptr(SimStoreText) text = NULL;
        g_autofree char *back = NULL;

        memcpy (bad, good, packed_len);
        bad[at] ^= 1u << bit;
        damaged = g_bytes_new_static (bad, packed_len);
        assert_true (sim_store_begin (store, NULL));
        assert_true (sim_store_delete (store, doc->id, NULL));
        assert_true (sim_store_insert (store, doc, damaged, NULL));
        assert_true (sim_store_commit (store, NULL));
        text = sim_store_read_text (store, doc->id, &error);
        if (text != NULL)
          back = sim_store_text_dup_range (text, 0, sim_store_text_get_n_chars (text), NULL, NULL, &error);
        if (back != NULL)
          {
            assert_true (g_utf8_validate (back, -1, NULL));
            continue;
          }
        assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT));
        n_damaged++;
      }
  assert_true (n_damaged > 200);
}

/* The statistics read back are @want (@n buckets) over @n_docs documents. */
static void
assert_df (SimStore      *store,
           gsize          n,
           const guint32 *want,
           guint32        want_docs)
{
  g_autofree guint32 *read = NULL;
  guint32 n_docs = 0;

  assert_true (sim_store_load_df (store, n, &read, &n_docs, NULL));
  assert_int_equal (n_docs, want_docs);
  assert_memory_equal (read, want, n * sizeof (guint32));
}

/* Bytes of the statistics' row as stored. */
static gint64
df_stored_bytes (const char *path)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  gint64 n = -1;

  assert_int_equal (sqlite3_open (path, &db), SQLITE_OK);
  assert_int_equal (sqlite3_prepare_v2 (db, "SELECT length (counts) FROM df", -1, &stmt, NULL), SQLITE_OK);
  if (sqlite3_step (stmt) == SQLITE_ROW)
    n = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return n;
}

/* Sets the statistics' row to @blob (@len bytes) behind the store's back. */
static void
df_store_raw (const char    *path,
              gconstpointer  blob,
              gsize          len)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;

  assert_int_equal (sqlite3_open (path, &db), SQLITE_OK);
  assert_int_equal (sqlite3_prepare_v2 (db, "UPDATE df SET counts = ?", -1, &stmt, NULL), SQLITE_OK);
  sqlite3_bind_blob (stmt, 1, blob, len, SQLITE_TRANSIENT);
  assert_int_equal (sqlite3_step (stmt), SQLITE_DONE);
  sqlite3_finalize (stmt);
  sqlite3_close (db);
}

/* The feature statistics: saved, saved over, and saved with another size;
 * read back each time as saved, in one transaction with what they count.
 * They are kept compressed; counts kept as they are (before) read as
 * they are; anything else is damage. */
static void
test_store_feature_statistics_are_saved_over (void **state)
{
  g_autofree char *path = g_build_filename (*state, "df.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimStore) store = sim_store_open (path, FALSE, &error);
  guint32 first[1024], second[1024];
  g_autofree guint32 *read = NULL;
  guint32 n_docs = 0;

  for (guint i = 0; i < 1024; i++)
    {
      first[i] = i;
      second[i] = 3 * i + 1;
    }
  assert_true (sim_store_load_df (store, 1024, &read, &n_docs, &error));
  assert_null (read);
  assert_true (sim_store_begin (store, &error));
  assert_true (sim_store_save_df (store, first, 1024, 7, &error));
  assert_true (sim_store_commit (store, &error));
  assert_true (sim_store_begin (store, &error));
  assert_true (sim_store_save_df (store, second, 1024, 8, &error));
  assert_true (sim_store_commit (store, &error));
  assert_df (store, 1024, second, 8);

  /* Saved over and rolled back: as before. */
  assert_true (sim_store_begin (store, &error));
  assert_true (sim_store_save_df (store, first, 1024, 9, &error));
  sim_store_rollback (store);
  assert_df (store, 1024, second, 8);

  /* Another size: replaced. */
  assert_true (sim_store_begin (store, &error));
  assert_true (sim_store_save_df (store, first, 512, 10, &error));
  assert_true (sim_store_commit (store, &error));
  assert_df (store, 512, first, 10);
  assert_true (sim_store_check_integrity (store, NULL));

  /* Mostly zeros, as a small corpus's are: a small part of their size. */
  {
    g_autofree guint32 *sparse = g_new0 (guint32, 1 << 20);

    for (guint i = 0; i < (1 << 20); i += 97)
      sparse[i] = i % 5 + 1;
    assert_true (sim_store_save_df (store, sparse, 1 << 20, 11, &error));
    assert_df (store, 1 << 20, sparse, 11);
    assert_true (df_stored_bytes (path) < (1 << 20) / 4);
  }
  /* Stored as they are by an older version: read as they are. */
  df_store_raw (path, second, sizeof second);
  assert_df (store, 1024, second, 11);
  /* Cut, or a frame of another size: damaged. */
  assert_true (sim_store_save_df (store, second, 1024, 12, &error));
  {
    const gint64 stored = df_stored_bytes (path);
    g_autofree guint32 *read_back = NULL;
    g_autofree guint8 *blob = g_malloc (stored);
    sqlite3 *db = NULL;
    sqlite3_stmt *stmt = NULL;

    assert_true (stored > 0 && stored < (gint64) sizeof second);
    assert_int_equal (sqlite3_open (path, &db), SQLITE_OK);
    assert_int_equal (sqlite3_prepare_v2 (db, "SELECT counts FROM df", -1, &stmt, NULL), SQLITE_OK);
    assert_int_equal (sqlite3_step (stmt), SQLITE_ROW);
    memcpy (blob, sqlite3_column_blob (stmt, 0), stored);
    sqlite3_finalize (stmt);
    sqlite3_close (db);
    df_store_raw (path, blob, stored - 3);
    assert_false (sim_store_load_df (store, 1024, &read_back, &n_docs, &error));
    assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT));
    g_clear_error (&error);
    /* A byte changed (the checksum finds it). */
    blob[stored / 2] ^= 0x10;
    df_store_raw (path, blob, stored);
    assert_false (sim_store_load_df (store, 1024, &read_back, &n_docs, &error));
    assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT));
    g_clear_error (&error);
    blob[stored / 2] ^= 0x10;
    df_store_raw (path, blob, stored);
    assert_false (sim_store_load_df (store, 512, &read_back, &n_docs, &error));
    assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT));
    g_clear_error (&error);
    assert_df (store, 1024, second, 12);
  }
}

static void
test_store_read_only_open_of_missing_store_fails (void **state)
{
  g_autofree char *path = g_build_filename (*state, "missing.db", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimStore) store = sim_store_open (path, TRUE, &error);

  assert_null (store);
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND));
  assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

/* Every single byte of a stored text flipped, one at a time: verify finds
 * each (it once read "t, thin pieces" without a word), and a text that is
 * not flipped reads as sound. */
static void
test_store_finds_every_flipped_byte (void **state)
{
  g_autofree char *path = g_build_filename (*state, "store.db", NULL);
  g_autofree char *text = mixed_text (9000);
  g_autoptr(GBytes) bytes = sim_store_pack_text (text, strlen (text), NULL);
  gsize len = 0;
  const guint8 *clean = g_bytes_get_data (bytes, &len);
  g_autoptr(SimStore) store = sim_store_open (path, FALSE, NULL);
  g_autoptr(SimStoreDocument) doc = make_doc ("/flip.txt");
  g_autoptr(GError) error = NULL;
  guint n_found = 0;

  assert_true (sim_store_begin (store, NULL));
  assert_true (sim_store_insert (store, doc, bytes, NULL));
  assert_true (sim_store_commit (store, NULL));
  assert_int_equal (sim_store_verify_text (store, doc->id, &error), SIM_STORE_TEXT_SOUND);
  for (gsize i = 0; i < len; i++)
    {
      g_autofree guint8 *flipped = g_memdup2 (clean, len);
      g_autoptr(GBytes) damaged = NULL;
      g_autoptr(GError) local_error = NULL;

      flipped[i] ^= 1u << (i % 8);
      damaged = g_bytes_new_take (g_steal_pointer (&flipped), len);
      assert_true (sim_store_begin (store, NULL));
      assert_true (sim_store_replace_text (store, doc->id, damaged, NULL));
      assert_true (sim_store_commit (store, NULL));
      if (sim_store_verify_text (store, doc->id, &local_error) == SIM_STORE_TEXT_DAMAGED)
        {
          n_found++;
          assert_true (g_error_matches (local_error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT));
        }
    }
  assert_int_equal (n_found, len);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_store_insert_list_read_delete, setup, teardown),
    cmocka_unit_test_setup_teardown (test_store_feature_statistics_are_saved_over, setup, teardown),
    cmocka_unit_test_setup_teardown (test_store_rolls_back_uncommitted_work, setup, teardown),
    cmocka_unit_test_setup_teardown (test_store_refuses_a_file_that_is_not_a_store, setup, teardown),
    cmocka_unit_test_setup_teardown (test_store_refuses_a_newer_format, setup, teardown),
    cmocka_unit_test_setup_teardown (test_store_full_disk_loses_only_the_failed_transaction, setup, teardown),
    cmocka_unit_test_setup_teardown (test_store_refuses_a_document_row_without_path, setup, teardown),
    cmocka_unit_test_setup_teardown (test_store_read_only_open_of_missing_store_fails, setup, teardown),
    cmocka_unit_test_setup_teardown (test_store_text_ranges_read_what_the_whole_holds, setup, teardown),
    cmocka_unit_test_setup_teardown (test_store_pieces_that_fall_short_add_up, setup, teardown),
    cmocka_unit_test_setup_teardown (test_store_reads_texts_kept_whole, setup, teardown),
    cmocka_unit_test_setup_teardown (test_store_finds_every_flipped_byte, setup, teardown),
    cmocka_unit_test_setup_teardown (test_store_damaged_pieces_are_reported, setup, teardown),
  };

  return cmocka_run_group_tests_name ("store", tests, NULL, NULL);
}
