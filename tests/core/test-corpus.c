/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Corpus import: incremental, transactional, and robust to what users do:
 * binary and broken files, a file deleted mid-import, a full disk, a killed
 * process, a cancel, an old store.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <xxhash.h>

#include "sim-band-index.h"
#include "sim-words.h"
#include "sim-check.h"
#include "sim-corpus.h"
#include "sim-error.h"
#include "sim-fingerprint.h"
#include "sim-store.h"
#include "sim-snapshot-private.h"
#include "sim-test-util.h"

static const char *const words[] = {
  "river", "stone", "market", "engine", "garden", "silver", "window", "letter", "harbor", "forest",
  "signal", "candle", "bridge", "winter", "orange", "planet", "castle", "pencil", "rocket", "meadow",
};

/* A deterministic document of @n sentences, English or Chinese. */
static char *
make_text (guint32  seed,
           gboolean chinese,
           guint    n)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  GString *s = g_string_new (NULL);

  for (guint i = 0; i < n; i++)
    {
      const guint len = g_rand_int_range (rand, 8, 16);

      for (guint w = 0; w < len; w++)
        {
          if (chinese)
            g_string_append_unichar (s, 0x4e00 + g_rand_int_range (rand, 0, 2000));
          else
            g_string_append_printf (s, w ? " %s" : "%s", words[g_rand_int_range (rand, 0, G_N_ELEMENTS (words))]);
        }
      g_string_append (s, chinese ? "。" : ". ");
    }
  return g_string_free (s, FALSE);
}

typedef struct {
  char *dir;
  char *docs;
  char *store;
} Fixture;

static int
setup (void **state)
{
  Fixture *f = g_new0 (Fixture, 1);

  f->dir = sim_test_make_tmp_dir ();
  f->docs = g_build_filename (f->dir, "docs", NULL);
  f->store = g_build_filename (f->dir, "store.db", NULL);
  g_mkdir (f->docs, 0700);
  *state = f;
  return 0;
}

static int
teardown (void **state)
{
  Fixture *f = *state;

  sim_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f->docs);
  g_free (f->store);
  g_free (f);
  return 0;
}

static void
write_docs (Fixture *f,
            guint    first,
            guint    n)
{
  for (guint i = first; i < first + n; i++)
    {
      g_autofree char *name = g_strdup_printf ("doc-%04u.txt", i);
      g_autofree char *text = make_text (i, i % 2, 12);
      g_autofree char *path = sim_test_write_file (f->docs, name, text, -1);
    }
}

static GPtrArray *
list (SimCorpus *corpus)
{
  g_autoptr(GError) error = NULL;
  GPtrArray *docs = sim_corpus_list (corpus, &error);

  assert_null (error);
  return docs;
}

/* A school's archive is thousands of small files in folders: 2,000 essays
 * of a few hundred bytes, two dozen of them the same text under another
 * name, all imported once, each stored exactly once, under its own path;
 * a second import changes nothing. */
static void
test_corpus_imports_thousands_of_small_files_each_once (void **state)
{
  Fixture *f = *state;
  const char *paths[] = { f->docs, NULL };
  g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, FALSE, NULL);
  g_autoptr(SimImportResult) first = NULL, again = NULL;
  g_autoptr(GPtrArray) docs = NULL;
  g_autoptr(GHashTable) seen = g_hash_table_new (g_str_hash, g_str_equal);

  for (guint i = 0; i < 2000; i++)
    {
      g_autofree char *name = g_strdup_printf ("class-%02u/essay-%04u.txt", i / 100, i);
      g_autofree char *text = i % 80 == 79 ? make_text (i - 1, FALSE, 3) : make_text (i, FALSE, 3);

      g_free (sim_test_write_file (f->docs, name, text, -1));
    }
  first = sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL);
  assert_non_null (first);
  assert_int_equal (first->n_added, 2000);
  assert_int_equal (first->n_failed, 0);
  docs = list (corpus);
  assert_int_equal (docs->len, 2000);
  for (guint i = 0; i < docs->len; i++)
    {
      const SimStoreDocument *doc = g_ptr_array_index (docs, i);

      assert_true (g_str_has_prefix (doc->path, f->docs));
      assert_false (g_hash_table_contains (seen, doc->path));
      g_hash_table_add (seen, doc->path);
    }
  {
    g_autoptr(SimCorpusSnapshot) snapshot = sim_corpus_ref_snapshot (corpus);

    assert_int_equal (sim_corpus_snapshot_get_n_docs (snapshot), 2000);
  }
  again = sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL);
  assert_non_null (again);
  assert_int_equal (again->n_added + again->n_updated, 0);
  assert_int_equal (again->n_unchanged, 2000);
}

static void
test_corpus_add_is_incremental (void **state)
{
  Fixture *f = *state;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, FALSE, &error);
  g_autoptr(SimImportResult) r1 = NULL, r2 = NULL, r3 = NULL;
  g_autoptr(SimCorpusSnapshot) before = NULL, after = NULL;
  g_autofree char *changed = NULL;
  const char *paths[] = { f->docs, NULL };

  write_docs (f, 0, 10);
  r1 = sim_corpus_add (corpus, paths, NULL, NULL, NULL, &error);
  assert_non_null (r1);
  assert_int_equal (r1->n_added, 10);
  assert_int_equal (r1->n_failed, 0);
  before = sim_corpus_ref_snapshot (corpus);
  assert_int_equal (sim_corpus_snapshot_get_n_docs (before), 10);
  assert_true (sim_corpus_snapshot_get_n_fps (before) > 50);
  /* Each document's length in code points, Chinese (3 bytes each) and English alike. */
  for (guint d = 0; d < 10; d++)
    {
      const SimCorpusDoc *doc = sim_corpus_snapshot_get_doc (before, d);
      g_autofree char *text = NULL;

      assert_true (g_file_get_contents (doc->path, &text, NULL, NULL));
      assert_int_equal (doc->n_chars, g_utf8_strlen (text, -1));
    }

  /* Unchanged files are skipped; a changed one is replaced, a new one added. */
  r2 = sim_corpus_add (corpus, paths, NULL, NULL, NULL, &error);
  assert_int_equal (r2->n_unchanged, 10);
  assert_int_equal (r2->n_added + r2->n_updated, 0);
  changed = make_text (999, FALSE, 5);
  g_free (sim_test_write_file (f->docs, "doc-0003.txt", changed, -1));
  write_docs (f, 10, 1);
  r3 = sim_corpus_add (corpus, paths, NULL, NULL, NULL, &error);
  assert_int_equal (r3->n_updated, 1);
  assert_int_equal (r3->n_added, 1);
  assert_int_equal (r3->n_unchanged, 9);

  after = sim_corpus_ref_snapshot (corpus);
  assert_int_equal (sim_corpus_snapshot_get_n_docs (after), 11);
  /* The old snapshot is still whole: snapshots are immutable. */
  assert_int_equal (sim_corpus_snapshot_get_n_docs (before), 10);
  {
    g_autoptr(GPtrArray) docs = list (corpus);
    g_autofree char *expected = g_build_filename (f->docs, "doc-0003.txt", NULL);
    gboolean found = FALSE;

    for (guint i = 0; i < docs->len; i++)
      {
        SimStoreDocument *doc = g_ptr_array_index (docs, i);

        if (g_str_equal (doc->path, expected))
          {
            g_autofree char *text = sim_store_dup_text (sim_corpus_get_store (corpus), doc->id, NULL, NULL);

            assert_string_equal (text, changed);
            found = TRUE;
          }
      }
    assert_true (found);
  }
}

static void
test_corpus_lists_unreadable_files_and_imports_the_rest (void **state)
{
  Fixture *f = *state;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, FALSE, &error);
  g_autoptr(SimImportResult) result = NULL;
  g_autofree char *missing = g_build_filename (f->dir, "no-such-file.txt", NULL);
  const char *paths[] = { f->docs, missing, NULL };

  write_docs (f, 0, 3);
  g_free (sim_test_write_file (f->docs, "picture.png", "\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));
  g_free (sim_test_write_file (f->docs, "empty.txt", "  \n\n ", -1));
  g_free (sim_test_write_file (f->docs, "broken.txt", "valid words here \xff\xfe and more valid words follow here.", -1));
  g_free (sim_test_write_file (f->docs, ".hidden.txt", "hidden files are skipped entirely", -1));

  result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, &error);
  assert_non_null (result);
  assert_int_equal (result->n_added, 4); /* three documents and the repaired one */
  assert_int_equal (result->n_failed, 3);
  assert_int_equal (result->failures->len, 3);
  {
    g_autoptr(GString) joined = g_string_new (NULL);
    const char *all;

    for (guint i = 0; i < result->failures->len; i++)
      g_string_append_printf (joined, "%s\n", (const char *) g_ptr_array_index (result->failures, i));
    all = joined->str;

    assert_non_null (strstr (all, "picture.png is not a text file"));
    assert_non_null (strstr (all, "empty.txt has no text"));
    assert_non_null (strstr (all, "no-such-file.txt"));
  }
}

static void
test_corpus_remove_by_id_path_and_folder (void **state)
{
  Fixture *f = *state;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, FALSE, &error);
  g_autoptr(SimImportResult) result = NULL;
  g_autoptr(GPtrArray) docs = NULL;
  g_autofree char *sub = g_build_filename (f->docs, "sub", NULL);
  g_autofree char *one = NULL;
  g_autofree char *id = NULL;
  const char *paths[] = { f->docs, NULL };
  guint n_removed = 0;

  write_docs (f, 0, 4);
  g_free (sim_test_write_file (sub, "a.txt", "A document in a sub folder with some words in it.", -1));
  g_free (sim_test_write_file (sub, "b.txt", "Another document in the sub folder with other words.", -1));
  result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, &error);
  assert_int_equal (result->n_added, 6);

  docs = list (corpus);
  id = g_strdup_printf ("%" G_GINT64_FORMAT, ((SimStoreDocument *) g_ptr_array_index (docs, 0))->id);
  one = g_build_filename (f->docs, "doc-0002.txt", NULL);

  /* An unknown entry fails the whole call and removes nothing. */
  {
    const char *bad[] = { id, "/not/in/corpus.txt", NULL };

    assert_false (sim_corpus_remove (corpus, bad, &n_removed, &error));
    assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND));
    g_clear_error (&error);
    g_clear_pointer (&docs, g_ptr_array_unref);
    docs = list (corpus);
    assert_int_equal (docs->len, 6);
  }
  {
    const char *good[] = { id, one, sub, NULL };

    n_removed = 0;
    assert_true (sim_corpus_remove (corpus, good, &n_removed, &error));
    assert_int_equal (n_removed, 4);
  }
  g_clear_pointer (&docs, g_ptr_array_unref);
  docs = list (corpus);
  assert_int_equal (docs->len, 2);
  {
    g_autoptr(SimCorpusSnapshot) snapshot = sim_corpus_ref_snapshot (corpus);

    assert_int_equal (sim_corpus_snapshot_get_n_docs (snapshot), 2);
  }
}

/* Re-scanning a folder imports what is new or changed, removes documents
 * whose file is gone, leaves other folders alone, and refuses a folder that
 * is not there instead of emptying the corpus. */
static void
test_corpus_rescan_follows_the_folder (void **state)
{
  Fixture *f = *state;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, FALSE, &error);
  g_autoptr(SimImportResult) result = NULL;
  g_autoptr(SimImportResult) rescanned = NULL;
  g_autoptr(GPtrArray) docs = NULL;
  g_autofree char *other = g_build_filename (f->dir, "other", NULL);
  g_autofree char *elsewhere = sim_test_write_file (other, "e.txt", "A document kept in another folder, whose file goes away too.", -1);
  g_autofree char *gone = g_build_filename (f->docs, "doc-0001.txt", NULL);
  g_autofree char *missing = g_build_filename (f->dir, "unplugged", NULL);
  const char *paths[] = { f->docs, other, NULL };

  write_docs (f, 0, 4);
  result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, &error);
  assert_int_equal (result->n_added, 5);

  assert_int_equal (g_unlink (gone), 0);
  assert_int_equal (g_unlink (elsewhere), 0);
  g_free (sim_test_write_file (f->docs, "doc-0002.txt", "Its text was rewritten since the import, into something else.", -1));
  g_free (sim_test_write_file (f->docs, "new.txt", "A file that came into the folder after the import.", -1));

  rescanned = sim_corpus_rescan (corpus, f->docs, NULL, NULL, NULL, &error);
  assert_null (error);
  assert_non_null (rescanned);
  assert_int_equal (rescanned->n_removed, 1);
  assert_int_equal (rescanned->n_updated, 1);
  assert_int_equal (rescanned->n_added, 1);
  assert_int_equal (rescanned->n_unchanged, 2);

  docs = list (corpus);
  assert_int_equal (docs->len, 5);   /* 4 - 1 + 1, and the other folder's document */
  for (guint i = 0; i < docs->len; i++)
    assert_string_not_equal (((SimStoreDocument *) g_ptr_array_index (docs, i))->path, gone);

  g_clear_pointer (&rescanned, sim_import_result_free);
  rescanned = sim_corpus_rescan (corpus, missing, NULL, NULL, NULL, &error);
  assert_null (rescanned);
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND));
  g_clear_pointer (&docs, g_ptr_array_unref);
  docs = list (corpus);
  assert_int_equal (docs->len, 5);
}

typedef struct {
  Fixture *f;
  guint    calls;
  char    *victim;
} DeleteState;

static void
delete_on_first_progress (guint64     done,
                          guint64     total,
                          const char *what,
                          gpointer    user_data)
{
  DeleteState *ds = user_data;

  if (ds->calls++ == 0)
    g_assert_cmpint (g_remove (ds->victim), ==, 0);
}

static void
test_corpus_survives_a_file_deleted_mid_import (void **state)
{
  Fixture *f = *state;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, FALSE, &error);
  g_autoptr(SimImportResult) result = NULL;
  const char *paths[] = { f->docs, NULL };
  /* The workers read at most 256 documents ahead of the one written (and
   * one each while they wait): the last of 400 is still unread when the
   * first is written. With 200, all could be read by then. */
  DeleteState ds = { f, 0, g_build_filename (f->docs, "doc-0399.txt", NULL) };

  write_docs (f, 0, 400);
  result = sim_corpus_add (corpus, paths, delete_on_first_progress, &ds, NULL, &error);
  assert_non_null (result);
  assert_int_equal (result->n_added, 399);
  assert_int_equal (result->n_failed, 1);
  assert_non_null (strstr (g_ptr_array_index (result->failures, 0), "doc-0399.txt"));
  g_free (ds.victim);
}

static void
test_corpus_full_disk_keeps_committed_batches (void **state)
{
  Fixture *f = *state;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, FALSE, &error);
  g_autoptr(SimImportResult) result = NULL;
  g_autoptr(GPtrArray) docs = NULL;
  const char *paths[] = { f->docs, NULL };

  /* Texts of about 2 KB (stored compressed, about half that). */
  for (guint i = 0; i < 5 * SIM_CORPUS_BATCH_DOCS; i++)
    {
      g_autofree char *name = g_strdup_printf ("doc-%05u.txt", i);
      g_autofree char *text = make_text (i, i % 2, 30);

      g_free (sim_test_write_file (f->docs, name, text, -1));
    }
  /* The df table alone is 4 MiB: leave room for it and a batch or two only. */
  assert_true (sim_store_set_size_limit (sim_corpus_get_store (corpus), 8 << 20, &error));
  result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, &error);
  assert_null (result);
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_STORE_FULL));
  g_clear_pointer (&corpus, sim_corpus_free);

  corpus = sim_corpus_open (f->store, FALSE, NULL);
  assert_non_null (corpus);
  assert_true (sim_store_check_integrity (sim_corpus_get_store (corpus), NULL));
  docs = list (corpus);
  /* Whole batches only: every stored document has its text. */
  assert_int_equal (docs->len % SIM_CORPUS_BATCH_DOCS, 0);
  assert_true (docs->len >= SIM_CORPUS_BATCH_DOCS);
  assert_true (docs->len < 5 * SIM_CORPUS_BATCH_DOCS);
  for (guint i = 0; i < docs->len; i++)
    {
      g_autofree char *text = sim_store_dup_text (sim_corpus_get_store (corpus),
                                                  ((SimStoreDocument *) g_ptr_array_index (docs, i))->id,
                                                  NULL, NULL);
      assert_non_null (text);
    }
}

static void
die_after_two_batches (guint64     done,
                       guint64     total,
                       const char *what,
                       gpointer    user_data)
{
  if (done == 2 * SIM_CORPUS_BATCH_DOCS + 22)
    kill (getpid (), SIGKILL);
}

static void
test_corpus_survives_a_killed_import (void **state)
{
  Fixture *f = *state;
  const char *paths[] = { f->docs, NULL };
  g_autoptr(SimCorpus) corpus = NULL;
  g_autoptr(SimImportResult) result = NULL;
  g_autoptr(GPtrArray) docs = NULL;
  int status = 0;
  pid_t pid;

  write_docs (f, 0, 2 * SIM_CORPUS_BATCH_DOCS + 44);
  pid = fork ();
  if (pid == 0)
    {
      SimCorpus *child = sim_corpus_open (f->store, FALSE, NULL);

      sim_corpus_add (child, paths, die_after_two_batches, NULL, NULL, NULL);
      _exit (0); /* not reached */
    }
  assert_true (pid > 0);
  assert_int_equal (waitpid (pid, &status, 0), pid);
  assert_true (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL);

  corpus = sim_corpus_open (f->store, FALSE, NULL);
  assert_non_null (corpus);
  assert_true (sim_store_check_integrity (sim_corpus_get_store (corpus), NULL));
  docs = list (corpus);
  assert_int_equal (docs->len, 2 * SIM_CORPUS_BATCH_DOCS); /* the two committed batches */
  g_clear_pointer (&docs, g_ptr_array_unref);

  /* Adding again finishes the job and skips what was committed. */
  result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL);
  assert_int_equal (result->n_unchanged, 2 * SIM_CORPUS_BATCH_DOCS);
  assert_int_equal (result->n_added, 44);
}

static void
cancel_on_progress (guint64     done,
                    guint64     total,
                    const char *what,
                    gpointer    user_data)
{
  if (done == SIM_CORPUS_BATCH_DOCS + 6)
    g_cancellable_cancel (user_data);
}

static void
test_corpus_cancel_keeps_the_store_as_before_the_batch (void **state)
{
  Fixture *f = *state;
  g_autoptr(GError) error = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, FALSE, &error);
  g_autoptr(GPtrArray) docs = NULL;
  const char *paths[] = { f->docs, NULL };

  write_docs (f, 0, SIM_CORPUS_BATCH_DOCS + 100);
  assert_null (sim_corpus_add (corpus, paths, cancel_on_progress, cancellable, cancellable, &error));
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
  docs = list (corpus);
  assert_int_equal (docs->len, SIM_CORPUS_BATCH_DOCS);
}

/* Another writer adds its folder between two batches of an import. */
typedef struct {
  SimCorpus  *other;
  const char *folder;
  guint       n_added;
} Meanwhile;

static void
another_writer_after_the_first_batch (guint64     done,
                                      guint64     total,
                                      const char *what,
                                      gpointer    user_data)
{
  Meanwhile *m = user_data;
  const char *paths[] = { m->folder, NULL };
  g_autoptr(SimImportResult) result = NULL;

  if (done != SIM_CORPUS_BATCH_DOCS)
    return;
  result = sim_corpus_add (m->other, paths, NULL, NULL, NULL, NULL);
  assert_non_null (result);
  m->n_added = result->n_added;
}

static void
load_df (SimCorpus *corpus,
         guint32  **counts,
         guint32   *n_docs)
{
  g_autoptr(GError) error = NULL;

  assert_true (sim_store_load_df (sim_corpus_get_store (corpus), SIM_DF_BUCKETS, counts, n_docs, &error));
  assert_non_null (*counts);
}

/* An import keeps the feature statistics it saved from one batch to the
 * next, but reads them again when another writer has committed between:
 * what both added is counted, as in one import of both. */
static void
test_corpus_add_counts_what_another_writer_added_between_batches (void **state)
{
  Fixture *f = *state;
  g_autofree char *other_docs = g_build_filename (f->dir, "other", NULL);
  g_autofree char *fresh_path = g_build_filename (f->dir, "fresh.db", NULL);
  g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, FALSE, NULL);
  g_autoptr(SimCorpus) other = sim_corpus_open (f->store, FALSE, NULL);
  g_autoptr(SimCorpus) fresh = sim_corpus_open (fresh_path, FALSE, NULL);
  g_autoptr(SimImportResult) result = NULL;
  g_autoptr(SimImportResult) fresh_result = NULL;
  g_autofree guint32 *counts = NULL, *fresh_counts = NULL;
  const char *paths[] = { f->docs, NULL };
  const char *both[] = { f->docs, other_docs, NULL };
  Meanwhile m = { other, other_docs, 0 };
  guint32 n_docs = 0, fresh_n_docs = 0;

  g_mkdir (other_docs, 0700);
  for (guint i = 0; i < 40; i++)
    {
      g_autofree char *name = g_strdup_printf ("other-%02u.txt", i);
      g_autofree char *text = make_text (10000 + i, i % 2, 12);

      g_free (sim_test_write_file (other_docs, name, text, -1));
    }
  write_docs (f, 0, SIM_CORPUS_BATCH_DOCS + 100);
  result = sim_corpus_add (corpus, paths, another_writer_after_the_first_batch, &m, NULL, NULL);
  assert_non_null (result);
  assert_int_equal (result->n_added, SIM_CORPUS_BATCH_DOCS + 100);
  assert_int_equal (m.n_added, 40);
  fresh_result = sim_corpus_add (fresh, both, NULL, NULL, NULL, NULL);
  assert_int_equal (fresh_result->n_added, SIM_CORPUS_BATCH_DOCS + 140);

  load_df (corpus, &counts, &n_docs);
  load_df (fresh, &fresh_counts, &fresh_n_docs);
  assert_int_equal (n_docs, SIM_CORPUS_BATCH_DOCS + 140);
  assert_int_equal (n_docs, fresh_n_docs);
  assert_memory_equal (counts, fresh_counts, SIM_DF_BUCKETS * sizeof (guint32));
}

static void
test_corpus_rebuilds_an_old_feature_version (void **state)
{
  Fixture *f = *state;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, FALSE, &error);
  g_autoptr(SimImportResult) result = NULL;
  g_autoptr(SimCorpusSnapshot) before = NULL, after = NULL;
  const char *paths[] = { f->docs, NULL };

  write_docs (f, 0, 5);
  result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, &error);
  before = sim_corpus_ref_snapshot (corpus);
  assert_false (sim_corpus_was_rebuilt (corpus));
  assert_true (sim_store_set_meta (sim_corpus_get_store (corpus), "feature_version", "1", &error));
  g_clear_pointer (&corpus, sim_corpus_free);

  /* Read-only access cannot rebuild: a clear error. */
  assert_null (sim_corpus_open (f->store, TRUE, &error));
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_STORE));
  g_clear_error (&error);

  corpus = sim_corpus_open (f->store, FALSE, &error);
  assert_non_null (corpus);
  assert_true (sim_corpus_was_rebuilt (corpus));
  after = sim_corpus_ref_snapshot (corpus);
  assert_int_equal (sim_corpus_snapshot_get_n_fps (after), sim_corpus_snapshot_get_n_fps (before));
  {
    g_autofree guint64 *fps_after = sim_corpus_snapshot_dup_fps (after);
    g_autofree guint64 *fps_before = sim_corpus_snapshot_dup_fps (before);

    assert_non_null (fps_after);
    assert_memory_equal (fps_after, fps_before,
                       sim_corpus_snapshot_get_n_fps (before) * sizeof (guint64));
  }
}

static float
similarity_of (SimCorpus  *corpus,
               const char *text)
{
  g_autoptr(SimCorpusSnapshot) snapshot = sim_corpus_ref_snapshot (corpus);
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autoptr(SimReport) report = sim_check_run (snapshot, text, -1, &options, NULL, NULL, NULL, NULL);

  /* The verified similarity of the (single) segment. */
  return sim_report_get_segment (report, 0)->similarity;
}

static void
test_corpus_traditional_folding_is_a_store_setting (void **state)
{
  Fixture *f = *state;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, FALSE, &error);
  g_autoptr(SimImportResult) result = NULL;
  const char *paths[] = { f->docs, NULL };
  const char *traditional = "發佈會現場的特輯花絮中他變身身手敏捷的泰山，挑戰赤腳神醫。";

  g_free (sim_test_write_file (f->docs, "news.txt", "发布会现场的特辑花絮中他变身身手敏捷的泰山，挑战赤脚神医。\n", -1));
  result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, &error);
  assert_int_equal (sim_corpus_get_flags (corpus), SIM_NORMALIZE_FOLD_T2S);
  assert_true (similarity_of (corpus, traditional) > 0.9f);

  assert_true (sim_corpus_set_flags (corpus, SIM_NORMALIZE_DEFAULT, &error));
  assert_true (similarity_of (corpus, traditional) < 0.7f); /* only the shared characters */
  g_clear_pointer (&corpus, sim_corpus_free);

  /* The setting persists, and turning it back on finds the copy again. */
  corpus = sim_corpus_open (f->store, FALSE, &error);
  assert_int_equal (sim_corpus_get_flags (corpus), SIM_NORMALIZE_DEFAULT);
  assert_true (sim_corpus_set_flags (corpus, SIM_NORMALIZE_FOLD_T2S, &error));
  assert_true (similarity_of (corpus, traditional) > 0.9f);
}

/* The index file: a second open maps what the first built, with the same
 * answers; a damaged or stale file is never used, and is made again. */
static char *
check_json (SimCorpus  *corpus,
            const char *text)
{
  g_autoptr(SimCorpusSnapshot) snapshot = sim_corpus_ref_snapshot (corpus);
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autoptr(SimReport) report = sim_check_run (snapshot, text, -1, &options, NULL, NULL, NULL, NULL);

  assert_non_null (report);
  return sim_test_report_json (report, FALSE);
}

static gboolean
is_mapped (SimCorpus *corpus)
{
  g_autoptr(SimCorpusSnapshot) snapshot = sim_corpus_ref_snapshot (corpus);

  return sim_corpus_snapshot_is_mapped (snapshot);
}

static gsize
n_fps_of (const char *store)
{
  g_autoptr(SimCorpus) corpus = sim_corpus_open (store, TRUE, NULL);
  g_autoptr(SimCorpusSnapshot) snapshot = sim_corpus_ref_snapshot (corpus);

  return sim_corpus_snapshot_get_n_fps (snapshot);
}

/* Where the places of the index file @bytes end (one position a
 * fingerprint) and the feature statistics it carries begin. */
static gsize
places_end (const char *bytes)
{
  guint64 n_fps, n_docs, list_len;

  memcpy (&n_fps, bytes + 32, 8);
  memcpy (&n_docs, bytes + 40, 8);
  memcpy (&list_len, bytes + 56, 8);
  return 64 + list_len + 24 * n_docs + sim_band_index_get_serialized_size (n_fps, sim_band_index_fence_bits (n_fps)) +
         4 * n_fps;
}

/* The index file @bytes (@len bytes, its list a table: version 13) as a
 * file of @version before 13 has it: its document list a hash, then per
 * document its row's fields, the lengths of its path and title and their
 * bytes with a NUL after each, zeros to a multiple of 8. Its length in
 * @out_len. */
static char *
with_old_list (const char *bytes,
               gsize       len,
               guint32     version,
               gsize      *out_len)
{
  g_autoptr(GByteArray) out = g_byte_array_new ();
  const char *list = bytes + 64;
  guint64 list_len, n, old_len, hash;
  const char *names;

  memcpy (&list_len, bytes + 56, 8);
  memcpy (&n, list + 8, 8);
  names = list + 32 + 56 * n;
  g_byte_array_append (out, (const guint8 *) bytes, 64);
  g_byte_array_set_size (out, 64 + 8);
  for (guint64 i = 0; i < n; i++)
    {
      const char *e = list + 32 + 56 * i;
      guint64 at;
      const char *path, *title;
      guint32 lens[2];

      memcpy (&at, e + 40, 8);
      path = names + at;
      title = path + strlen (path) + 1;
      lens[0] = strlen (path);
      lens[1] = strlen (title);
      g_byte_array_append (out, (const guint8 *) e, 40);
      g_byte_array_append (out, (const guint8 *) lens, 8);
      g_byte_array_append (out, (const guint8 *) path, lens[0] + 1);
      g_byte_array_append (out, (const guint8 *) title, lens[1] + 1);
    }
  while (out->len % 8 != 0)
    g_byte_array_append (out, (const guint8 *) "", 1);
  old_len = out->len - 64;
  hash = XXH3_64bits (out->data + 64 + 8, old_len - 8);
  memcpy (out->data + 64, &hash, 8);
  memcpy (out->data + 8, &version, 4);
  memcpy (out->data + 56, &old_len, 8);
  g_byte_array_append (out, (const guint8 *) bytes + 64 + list_len, len - 64 - list_len);
  *out_len = out->len;
  return (char *) g_byte_array_free (g_steal_pointer (&out), FALSE);
}

/* The index file @index was damaged: an open checks @article as @built
 * says, and the file is written again as it was (@good, @len bytes). */
static void
assert_checked_and_written_again (const char *store,
                                  const char *article,
                                  const char *built,
                                  const char *index,
                                  const char *good,
                                  gsize       len)
{
  g_autoptr(SimCorpus) corpus = sim_corpus_open (store, TRUE, NULL);
  g_autofree char *again = check_json (corpus, article);
  g_autofree char *now = NULL;
  gsize now_len = 0;

  assert_string_equal (again, built);
  assert_true (g_file_get_contents (index, &now, &now_len, NULL));
  assert_int_equal (now_len, len);
  assert_memory_equal (now, good, len);
}

/* The position index of a part (a slot every 2^coarse_shift positions:
 * the last document starting at or before it) against its brute-force
 * twin, on random starts: empty documents, documents over many slots,
 * slots of more than 4K positions. */
static void
test_corpus_position_index_matches_brute_force (void **state)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (33);
  gboolean wide = FALSE, spanning = FALSE;

  (void) state;
  for (guint t = 0; t < 2000; t++)
    {
      guint64 at = g_rand_boolean (rand) ? 0 : g_rand_int_range (rand, 0, 10000);
      Part part;

      _sim_snapshot_part_init (&part);
      part.n_docs = g_rand_int_range (rand, 1, 60);
      part.bases = g_new (guint64, part.n_docs);
      for (guint i = 0; i < part.n_docs; i++)
        {
          part.bases[i] = at;
          if (g_rand_int_range (rand, 0, 4) > 0)
            at += g_rand_int_range (rand, 1, g_rand_boolean (rand) ? 100 : 20000);
        }
      _sim_snapshot_part_index_bases (&part);
      assert_true (part.n_coarse > 0);
      wide |= part.coarse_shift > COARSE_SHIFT;
      for (gsize c = 0; c < part.n_coarse; c++)
        {
          guint d = 0;

          while (d + 1 < part.n_docs && part.bases[d + 1] <= (guint64) c << part.coarse_shift)
            d++;
          assert_int_equal (part.coarse[c], d);
          spanning |= c > 0 && part.coarse[c] == part.coarse[c - 1];
        }
      _sim_snapshot_part_clear (&part);
    }
  assert_true (wide && spanning);
}

/* Every document of @corpus's snapshot has the path and title its row
 * has. */
static void
assert_names_as_stored (SimCorpus *corpus)
{
  g_autoptr(GPtrArray) rows = list (corpus);
  g_autoptr(SimCorpusSnapshot) snapshot = sim_corpus_ref_snapshot (corpus);

  assert_int_equal (sim_corpus_snapshot_get_n_docs (snapshot), rows->len);
  for (guint i = 0; i < rows->len; i++)
    {
      const SimStoreDocument *row = g_ptr_array_index (rows, i);
      const SimCorpusDoc *doc = sim_corpus_snapshot_get_doc (snapshot, i);

      assert_int_equal (doc->id, row->id);
      assert_string_equal (doc->path, row->path);
      assert_string_equal (doc->title, row->title);
    }
}

static gpointer
get_every_doc (gpointer data)
{
  SimCorpusSnapshot *snapshot = data;
  const guint n = sim_corpus_snapshot_get_n_docs (snapshot);
  const SimCorpusDoc **docs = g_new (const SimCorpusDoc *, n);

  for (guint i = 0; i < n; i++)
    docs[(i * 7) % n] = sim_corpus_snapshot_get_doc (snapshot, (i * 7) % n);
  return docs;
}

/* Documents asked for by four threads at once are made once: each thread
 * gets the same document, whole. */
static void
assert_docs_made_once (SimCorpus *corpus)
{
  g_autoptr(SimCorpusSnapshot) snapshot = sim_corpus_ref_snapshot (corpus);
  const guint n = sim_corpus_snapshot_get_n_docs (snapshot);
  GThread *threads[4];
  const SimCorpusDoc **docs[4];

  for (guint t = 0; t < 4; t++)
    threads[t] = g_thread_new ("get-doc", get_every_doc, snapshot);
  for (guint t = 0; t < 4; t++)
    docs[t] = g_thread_join (threads[t]);
  for (guint i = 0; i < n; i++)
    {
      assert_non_null (docs[0][i]->path);
      assert_non_null (docs[0][i]->title);
      for (guint t = 1; t < 4; t++)
        assert_ptr_equal (docs[t][i], docs[0][i]);
    }
  for (guint t = 0; t < 4; t++)
    g_free (docs[t]);
}

/* An index file whose list is not a table yet (version 12) is read as it
 * is; the next write lists the documents in a table (a delta of version
 * 13) with the names they have, and leaves the file. */
static void
test_corpus_index_file_with_an_older_list_is_read_and_written_anew (void **state)
{
  Fixture *f = *state;
  const char *paths[] = { f->docs, NULL };
  g_autofree char *index = g_strconcat (f->store, ".index", NULL);
  g_autofree char *delta = g_strconcat (f->store, ".index-delta", NULL);
  g_autofree char *good = NULL, *old = NULL, *now = NULL;
  gsize len = 0, old_len = 0, now_len = 0;

  for (guint i = 0; i < 40; i++)
    {
      g_autofree char *name = g_strdup_printf ("class-%u/essay-%03u.txt", i % 3, i);
      g_autofree char *text = make_text (i, i % 2, 2);

      g_free (sim_test_write_file (f->docs, name, text, -1));
    }
  {
    g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, FALSE, NULL);
    g_autoptr(SimImportResult) result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL);

    assert_int_equal (result->n_added, 40);
  }
  {
    g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, TRUE, NULL);

    assert_true (is_mapped (corpus));
    assert_docs_made_once (corpus);
    assert_names_as_stored (corpus);
  }
  assert_true (g_file_get_contents (index, &good, &len, NULL));
  assert_int_equal (good[8], 13);
  old = with_old_list (good, len, 12, &old_len);
  assert_true (old_len != len);
  assert_true (g_file_set_contents (index, old, old_len, NULL));
  {
    g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, FALSE, NULL);
    g_autofree char *text = make_text (99, FALSE, 2);
    g_autoptr(SimImportResult) result = NULL;

    assert_true (is_mapped (corpus));
    assert_names_as_stored (corpus);
    g_free (sim_test_write_file (f->docs, "class-0/late.txt", text, -1));
    result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL);
    assert_int_equal (result->n_added, 1);
    /* The writer's snapshot after the add: its documents from the delta
     * it wrote. */
    assert_docs_made_once (corpus);
    assert_names_as_stored (corpus);
  }
  {
    g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, TRUE, NULL);
    g_autofree char *delta_bytes = NULL;
    gsize delta_len = 0;

    assert_true (is_mapped (corpus));
    assert_names_as_stored (corpus);
    g_autoptr(GPtrArray) rows = list (corpus);
    const char *names;
    guint64 n;

    assert_true (g_file_get_contents (delta, &delta_bytes, &delta_len, NULL));
    assert_int_equal (delta_bytes[8], 13);
    /* Its names as written, not as mended from the store. */
    memcpy (&n, delta_bytes + 64 + 8, 8);
    assert_int_equal (n, rows->len);
    names = delta_bytes + 64 + 32 + 56 * n;
    for (guint i = 0; i < rows->len; i++)
      {
        const SimStoreDocument *row = g_ptr_array_index (rows, i);
        guint64 at;

        memcpy (&at, delta_bytes + 64 + 32 + 56 * i + 40, 8);
        assert_string_equal (names + at, row->path);
        assert_string_equal (names + at + strlen (row->path) + 1, row->title);
      }
  }
  assert_true (g_file_get_contents (index, &now, &now_len, NULL));
  assert_int_equal (now_len, old_len);
  assert_memory_equal (now, old, old_len);
}

/* The document list of an index file is mapped, not read: a file cut
 * inside a list of many pages is refused (a page mapped past the file's
 * end would be a SIGBUS), and the snapshot comes from the store. */
static void
test_corpus_index_file_cut_inside_its_document_list (void **state)
{
  Fixture *f = *state;
  const char *paths[] = { f->docs, NULL };
  g_autofree char *index = g_strconcat (f->store, ".index", NULL);
  g_autofree char *good = NULL;
  g_autofree char *long_name = g_strnfill (180, 'n');
  guint64 list_len;
  gsize len = 0;

  for (guint i = 0; i < 60; i++)
    {
      g_autofree char *name = g_strdup_printf ("%s-%03u.txt", long_name, i);
      g_autofree char *text = make_text (i, i % 2, 2);

      g_free (sim_test_write_file (f->docs, name, text, -1));
    }
  {
    g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, FALSE, NULL);
    g_autoptr(SimImportResult) result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL);

    assert_int_equal (result->n_added, 60);
  }
  assert_true (g_file_get_contents (index, &good, &len, NULL));
  memcpy (&list_len, good + 56, 8);
  assert_true (list_len > 4 * 4096);
  assert_true (g_file_set_contents (index, good, 64 + list_len / 2, NULL));
  {
    g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, FALSE, NULL);
    g_autoptr(SimCorpusSnapshot) snapshot = sim_corpus_ref_snapshot (corpus);

    assert_int_equal (sim_corpus_snapshot_get_n_docs (snapshot), 60);
    for (guint i = 0; i < 60; i++)
      assert_non_null (strstr (sim_corpus_snapshot_get_doc (snapshot, i)->path, long_name));
  }
  /* Written again whole by that open. */
  {
    g_autofree char *again = NULL;
    gsize again_len = 0;

    assert_true (g_file_get_contents (index, &again, &again_len, NULL));
    assert_int_equal (again_len, len);
  }
}

static void
test_corpus_index_file_is_mapped_and_never_trusted_blindly (void **state)
{
  Fixture *f = *state;
  const char *paths[] = { f->docs, NULL };
  g_autofree char *index = g_strconcat (f->store, ".index", NULL);
  g_autofree char *article = NULL;
  g_autofree char *built = NULL;
  g_autofree char *article2 = NULL;

  write_docs (f, 0, 30);
  {
    g_autofree char *a = make_text (3, TRUE, 12);
    g_autofree char *b = make_text (8, FALSE, 12);

    article = g_strconcat ("My own first sentence is here. ", a, b, NULL);
  }
  {
    g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, FALSE, NULL);
    g_autoptr(SimImportResult) result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL);

    assert_int_equal (result->n_added, 30);
    /* Built in memory, written, and then used from the file: the importer
     * (the app, after an import) does not go on holding the built index. */
    assert_true (is_mapped (corpus));
    built = check_json (corpus, article);
  }
  assert_true (g_file_test (index, G_FILE_TEST_IS_REGULAR));
  /* Positions that would not fit 32 bits (the limit lowered): the file
   * keeps a fifth byte of each, one byte a fingerprint more, and answers
   * the same, mapped or read. */
  {
    g_autofree char *good = NULL;
    gsize len = 0, wide_len = 0;
    const gsize n = n_fps_of (f->store);
    g_autofree guint32 *ids = g_new (guint32, n);
    g_autofree guint32 *docs = g_new (guint32, n), *starts = g_new (guint32, n);
    g_autofree guint32 *want_docs = g_new (guint32, n), *want_starts = g_new (guint32, n);

    for (gsize i = 0; i < n; i++)
      ids[i] = i;
    {
      g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, TRUE, NULL);
      g_autoptr(SimCorpusSnapshot) snapshot = sim_corpus_ref_snapshot (corpus);

      sim_corpus_snapshot_get_places (snapshot, ids, n, want_docs, want_starts);
    }
    assert_true (g_file_get_contents (index, &good, &len, NULL));
    g_setenv ("SIMHOUND_INDEX_POSITION_LIMIT", "0", TRUE);
    assert_int_equal (g_unlink (index), 0);
    for (guint pass = 0; pass < 3; pass++)
      {
        g_autoptr(SimCorpus) corpus = NULL;
        g_autofree char *json = NULL;
        g_autofree char *bytes = NULL;

        if (pass == 2)
          g_setenv ("SIMHOUND_INDEX_MAP_LIMIT", "0", TRUE);
        corpus = sim_corpus_open (f->store, TRUE, NULL);
        assert_true (is_mapped (corpus));
        json = check_json (corpus, article);
        assert_string_equal (json, built);
        {
          g_autoptr(SimCorpusSnapshot) snapshot = sim_corpus_ref_snapshot (corpus);

          sim_corpus_snapshot_get_places (snapshot, ids, n, docs, starts);
          assert_memory_equal (docs, want_docs, n * sizeof (guint32));
          assert_memory_equal (starts, want_starts, n * sizeof (guint32));
        }
        assert_true (g_file_get_contents (index, &bytes, &wide_len, NULL));
        assert_int_equal (wide_len, len + n);
      }
    g_unsetenv ("SIMHOUND_INDEX_MAP_LIMIT");
    g_unsetenv ("SIMHOUND_INDEX_POSITION_LIMIT");
    assert_true (g_file_set_contents (index, good, len, NULL));
  }
  {
    g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, TRUE, NULL);
    g_autofree char *mapped = NULL;

    /* The first open after the import maps the file the import wrote
     * (closing the importer's connection once changed the store's files,
     * so the first check built the index again). */
    assert_true (is_mapped (corpus));
    mapped = check_json (corpus, article);
    assert_string_equal (mapped, built);
  }
  /* Larger than the limit, the file is read bucket by bucket instead: the
   * same report, and nothing of the file in the snapshot's memory. */
  {
    g_autoptr(SimCorpus) corpus = NULL;
    g_autoptr(SimCorpusSnapshot) snapshot = NULL;
    g_autofree char *read = NULL;

    g_setenv ("SIMHOUND_INDEX_MAP_LIMIT", "0", TRUE);
    corpus = sim_corpus_open (f->store, TRUE, NULL);
    snapshot = sim_corpus_ref_snapshot (corpus);
    assert_true (sim_corpus_snapshot_is_mapped (snapshot));
    read = check_json (corpus, article);
    g_unsetenv ("SIMHOUND_INDEX_MAP_LIMIT");
    assert_string_equal (read, built);

    /* Every place read from the file, ids one after another as runs are
     * read, is the mapped file's; cut short under the reader, what is gone
     * reads as no place, the rest as before: with places of 4 bytes, and
     * of 5 (the file written again with the limit lowered), where the cut
     * takes only the fifth bytes of the second half. */
    for (guint wide = 0; wide < 2; wide++)
    {
      g_autofree char *narrow = NULL;
      gsize narrow_len = 0;

      if (wide)
        {
          assert_true (g_file_get_contents (index, &narrow, &narrow_len, NULL));
          g_setenv ("SIMHOUND_INDEX_POSITION_LIMIT", "0", TRUE);
          assert_int_equal (g_unlink (index), 0);
          g_clear_pointer (&snapshot, sim_corpus_snapshot_unref);
          g_clear_pointer (&corpus, sim_corpus_free);
          {
            g_autoptr(SimCorpus) writer = sim_corpus_open (f->store, TRUE, NULL);

            assert_true (is_mapped (writer));
            g_free (check_json (writer, article));
          }
          assert_true (g_file_test (index, G_FILE_TEST_IS_REGULAR));
          g_setenv ("SIMHOUND_INDEX_MAP_LIMIT", "0", TRUE);
          corpus = sim_corpus_open (f->store, TRUE, NULL);
          snapshot = sim_corpus_ref_snapshot (corpus);
          g_unsetenv ("SIMHOUND_INDEX_MAP_LIMIT");
        }
    {
      g_autoptr(SimCorpus) mapped_corpus = sim_corpus_open (f->store, TRUE, NULL);
      g_autoptr(SimCorpusSnapshot) mapped = sim_corpus_ref_snapshot (mapped_corpus);
      const gsize n = sim_corpus_snapshot_get_n_fps (snapshot);
      g_autofree guint32 *ids = g_new (guint32, n + 1);
      g_autofree guint32 *docs = g_new (guint32, n + 1);
      g_autofree guint32 *starts = g_new (guint32, n + 1);
      g_autofree guint32 *want_docs = g_new (guint32, n + 1);
      g_autofree guint32 *want_starts = g_new (guint32, n + 1);
      g_autofree char *good = NULL;
      gsize len = 0;

      assert_true (n > 300);
      assert_int_equal (sim_corpus_snapshot_get_n_fps (mapped), n);
      for (gsize i = 0; i < n; i++)
        ids[i] = i;
      ids[n] = n;  /* past the end: no place */
      sim_corpus_snapshot_get_places (snapshot, ids, n + 1, docs, starts);
      sim_corpus_snapshot_get_places (mapped, ids, n + 1, want_docs, want_starts);
      assert_memory_equal (docs, want_docs, (n + 1) * 4);
      assert_memory_equal (starts, want_starts, (n + 1) * 4);
      assert_int_equal (docs[n], G_MAXUINT32);

      assert_true (g_file_get_contents (index, &good, &len, NULL));
      assert_true (places_end (good) + wide * n < len);
      /* The statistics and the second half of the places (or of their
       * fifth bytes) gone. */
      assert_int_equal (truncate (index, places_end (good) + wide * n - (n / 2) * (wide ? 1 : 4)), 0);
      sim_corpus_snapshot_get_places (snapshot, ids, n, docs, starts);
      for (gsize i = 0; i < n; i++)
        {
          assert_int_equal (docs[i], i < n - n / 2 ? want_docs[i] : G_MAXUINT32);
          assert_int_equal (starts[i], i < n - n / 2 ? want_starts[i] : G_MAXUINT32);
        }
      assert_true (g_file_set_contents (index, good, len, NULL));
    }
      if (wide)
        {
          g_unsetenv ("SIMHOUND_INDEX_POSITION_LIMIT");
          assert_true (g_file_set_contents (index, narrow, narrow_len, NULL));
        }
    }
  }

  /* A damaged file (cut, or garbage with the right size) is not used: the
   * index is built again from the store, and the file written anew, the
   * same bytes as before it was damaged. */
  {
    g_autofree char *bytes = NULL;
    g_autofree char *good = NULL;
    gsize len = 0;

    assert_true (g_file_get_contents (index, &good, &len, NULL));
    bytes = g_memdup2 (good, len);
    assert_true (g_file_set_contents (index, bytes, len / 2, NULL));
    assert_checked_and_written_again (f->store, article, built, index, good, len);
    /* Offsets that run backwards in the right header: refused too. They
     * follow the header, the document list and the document table. */
    {
      guint64 n_docs, list_len;

      memcpy (&n_docs, bytes + 40, 8);
      memcpy (&list_len, bytes + 56, 8);
      memset (bytes + 64 + list_len + 24 * n_docs + 4 * 1000, 0xff, 4);
    }
    assert_true (g_file_set_contents (index, bytes, len, NULL));
    assert_checked_and_written_again (f->store, article, built, index, good, len);
    /* Documents' first positions that run backwards (the first after the
     * second): refused too. */
    g_clear_pointer (&bytes, g_free);
    bytes = g_memdup2 (good, len);
    {
      guint64 list_len, late = 1u << 20;

      memcpy (&list_len, bytes + 56, 8);
      memcpy (bytes + 64 + list_len + 16, &late, 8);
    }
    assert_true (g_file_set_contents (index, bytes, len, NULL));
    assert_checked_and_written_again (f->store, article, built, index, good, len);
    /* A damaged document list (a byte of the first entry: its
     * characters) is not read: the list comes from the store, and the
     * file is made again. */
    g_clear_pointer (&bytes, g_free);
    bytes = g_memdup2 (good, len);
    bytes[64 + 32 + 16 + 2] ^= 0x20;
    assert_true (g_file_set_contents (index, bytes, len, NULL));
    assert_checked_and_written_again (f->store, article, built, index, good, len);
    /* Damaged names (a byte of every document's path): the file is used
     * as it is, and each document's path and title come from the store,
     * so the report is the same. */
    g_clear_pointer (&bytes, g_free);
    bytes = g_memdup2 (good, len);
    {
      guint64 n_docs;
      const char *names;

      memcpy (&n_docs, bytes + 64 + 8, 8);
      names = bytes + 64 + 32 + 56 * n_docs;
      assert_true (n_docs > 1);
      for (guint64 i = 0; i < n_docs; i++)
        {
          guint64 at;

          memcpy (&at, bytes + 64 + 32 + 56 * i + 40, 8);
          assert_int_equal (names[at], '/');
          bytes[names - bytes + at + 1] ^= 0x20;
        }
    }
    assert_true (g_file_set_contents (index, bytes, len, NULL));
    {
      g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, TRUE, NULL);
      g_autofree char *again = check_json (corpus, article);
      g_autofree char *now = NULL;
      gsize now_len = 0;

      assert_true (is_mapped (corpus));
      assert_string_equal (again, built);
      assert_true (g_file_get_contents (index, &now, &now_len, NULL));
      assert_int_equal (now_len, len);
      assert_memory_equal (now, bytes, len);
    }
    assert_true (g_file_set_contents (index, good, len, NULL));
    /* Damaged statistics at the file's end: refused too. */
    g_clear_pointer (&bytes, g_free);
    bytes = g_memdup2 (good, len);
    bytes[len - 2] ^= 0x55;
    assert_true (g_file_set_contents (index, bytes, len, NULL));
    assert_checked_and_written_again (f->store, article, built, index, good, len);
    /* Files whose list is not a table yet: version 12, and 11 from
     * before fences (the word after its bucket offsets 0: none) are used
     * as they are, and left so. */
    assert_int_equal (good[8], 13);
    for (guint32 version = 11; version <= 12; version++)
      {
        g_autoptr(SimCorpus) corpus = NULL;
        g_autofree char *again = NULL;
        g_autofree char *now = NULL;
        gsize old_len = 0, now_len = 0;

        g_clear_pointer (&bytes, g_free);
        bytes = with_old_list (good, len, version, &old_len);
        assert_true (g_file_set_contents (index, bytes, old_len, NULL));
        corpus = sim_corpus_open (f->store, TRUE, NULL);
        again = check_json (corpus, article);
        assert_true (is_mapped (corpus));
        assert_string_equal (again, built);
        assert_true (g_file_get_contents (index, &now, &now_len, NULL));
        assert_int_equal (now_len, old_len);
        assert_memory_equal (now, bytes, old_len);
      }
    g_clear_pointer (&bytes, g_free);
    bytes = g_memdup2 (good, len);
    /* Older versions are built again, and so are fence bits no writer
     * takes. */
    bytes[8] = 10;
    assert_true (g_file_set_contents (index, bytes, len, NULL));
    assert_checked_and_written_again (f->store, article, built, index, good, len);
    g_clear_pointer (&bytes, g_free);
    bytes = g_memdup2 (good, len);
    {
      guint64 n_docs, list_len;
      const guint32 bits = 9;

      memcpy (&n_docs, bytes + 40, 8);
      memcpy (&list_len, bytes + 56, 8);
      memcpy (bytes + 64 + list_len + 24 * n_docs + 4 * (SIM_BAND_INDEX_FILE_BUCKETS + 1), &bits, 4);
    }
    assert_true (g_file_set_contents (index, bytes, len, NULL));
    assert_checked_and_written_again (f->store, article, built, index, good, len);
    /* Garbage where the per-fingerprint arrays are: the file is used, and
     * hits may be lost, never read out of bounds. */
    g_clear_pointer (&bytes, g_free);
    assert_true (g_file_get_contents (index, &bytes, &len, NULL));  /* made again by the last open */
    memset (bytes + places_end (bytes) - 4 * (n_fps_of (f->store) / 2), 0xff, 4 * 100);
    memset (bytes + places_end (bytes) - 4 * 100, 0xff, 4 * 100);
    assert_true (g_file_set_contents (index, bytes, len, NULL));
    for (guint read = 0; read < 2; read++)
      {
        g_autoptr(SimCorpus) corpus = NULL;

        if (read)
          g_setenv ("SIMHOUND_INDEX_MAP_LIMIT", "0", TRUE);
        corpus = sim_corpus_open (f->store, TRUE, NULL);
        assert_true (is_mapped (corpus));
        g_free (check_json (corpus, article));
        g_unsetenv ("SIMHOUND_INDEX_MAP_LIMIT");
      }
  }

  /* After an import the index file lacks the new document: it is found
   * all the same (in the delta, test_corpus_index_delta_...). */
  write_docs (f, 30, 1);
  {
    g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, FALSE, NULL);
    g_autoptr(SimImportResult) result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL);
    g_autoptr(SimCorpusSnapshot) snapshot = NULL;

    assert_int_equal (result->n_added, 1);
    g_clear_pointer (&corpus, sim_corpus_free);
    corpus = sim_corpus_open (f->store, TRUE, NULL);
    snapshot = sim_corpus_ref_snapshot (corpus);
    assert_int_equal (sim_corpus_snapshot_get_n_docs (snapshot), 31);
    article2 = make_text (30, FALSE, 12);
    {
      g_autofree char *json = check_json (corpus, article2);

      assert_non_null (strstr (json, "doc-0030.txt"));
    }
  }
}

/* The check of @text against the store as it is, answered from the index
 * files (a delta beside the index file when there is one), and the same
 * built from the stored texts alone: the same report. */
static char *
check_both_ways (const char *store,
                 const char *text,
                 gboolean    want_delta)
{
  g_autoptr(SimCorpus) corpus = sim_corpus_open (store, TRUE, NULL);
  g_autoptr(SimCorpusSnapshot) snapshot = sim_corpus_ref_snapshot (corpus);
  g_autofree char *from_files = check_json (corpus, text);
  g_autofree char *built = NULL;

  assert_true (sim_corpus_snapshot_is_mapped (snapshot));
  assert_int_equal (sim_corpus_snapshot_has_delta (snapshot), want_delta);
  g_setenv ("SIMHOUND_INDEX_FILE", "off", TRUE);
  {
    g_autoptr(SimCorpus) fresh = sim_corpus_open (store, TRUE, NULL);
    g_autoptr(SimCorpusSnapshot) rows = sim_corpus_ref_snapshot (fresh);

    assert_false (is_mapped (fresh));
    built = check_json (fresh, text);
    /* The document list, read from the files when they are current, is the store's. */
    assert_int_equal (sim_corpus_snapshot_get_n_docs (snapshot), sim_corpus_snapshot_get_n_docs (rows));
    assert_int_equal (sim_corpus_snapshot_get_updated_at (snapshot), sim_corpus_snapshot_get_updated_at (rows));
    assert_int_equal (sim_corpus_snapshot_get_n_windows (snapshot), sim_corpus_snapshot_get_n_windows (rows));
    for (guint i = 0; i < sim_corpus_snapshot_get_n_docs (rows); i++)
      {
        const SimCorpusDoc *a = sim_corpus_snapshot_get_doc (snapshot, i), *b = sim_corpus_snapshot_get_doc (rows, i);

        assert_int_equal (a->id, b->id);
        assert_int_equal (a->n_chars, b->n_chars);
        assert_string_equal (a->path, b->path);
        assert_string_equal (a->title, b->title);
      }
  }
  g_unsetenv ("SIMHOUND_INDEX_FILE");
  assert_string_equal (from_files, built);
  return g_steal_pointer (&from_files);
}

/* The index file of @store holds what a build from its texts alone gives:
 * the same fingerprints in the same order, with the same places. */
static void
assert_index_as_from_texts (const char *store)
{
  g_autoptr(SimCorpus) corpus = sim_corpus_open (store, TRUE, NULL);
  g_autoptr(SimCorpusSnapshot) files = sim_corpus_ref_snapshot (corpus);
  g_autoptr(SimCorpus) built_corpus = NULL;
  g_autoptr(SimCorpusSnapshot) built = NULL;
  const gsize n = sim_corpus_snapshot_get_n_fps (files);
  g_autofree guint32 *ids = g_new (guint32, MAX (n, 1));
  g_autofree guint32 *docs = g_new (guint32, MAX (n, 1)), *starts = g_new (guint32, MAX (n, 1));
  g_autofree guint32 *want_docs = g_new (guint32, MAX (n, 1)), *want_starts = g_new (guint32, MAX (n, 1));

  assert_true (sim_corpus_snapshot_is_mapped (files));
  assert_false (sim_corpus_snapshot_has_delta (files));
  g_setenv ("SIMHOUND_INDEX_FILE", "off", TRUE);
  built_corpus = sim_corpus_open (store, TRUE, NULL);
  g_unsetenv ("SIMHOUND_INDEX_FILE");
  built = sim_corpus_ref_snapshot (built_corpus);
  assert_int_equal (sim_corpus_snapshot_get_n_fps (built), n);
  assert_true (n > 1000);
  {
    g_autofree guint64 *fps_files = sim_corpus_snapshot_dup_fps (files);
    g_autofree guint64 *fps_built = sim_corpus_snapshot_dup_fps (built);

    assert_non_null (fps_files);
    assert_memory_equal (fps_files, fps_built, n * sizeof (guint64));
  }
  for (gsize i = 0; i < n; i++)
    ids[i] = i;
  sim_corpus_snapshot_get_places (files, ids, n, docs, starts);
  sim_corpus_snapshot_get_places (built, ids, n, want_docs, want_starts);
  assert_memory_equal (docs, want_docs, n * sizeof (guint32));
  assert_memory_equal (starts, want_starts, n * sizeof (guint32));
}

static void
file_identity (const char *path,
               gint64     *out)
{
  GStatBuf st;

  assert_int_equal (g_stat (path, &st), 0);
  out[0] = st.st_ino;
  out[1] = st.st_mtim.tv_sec;
  out[2] = st.st_mtim.tv_nsec;
}

static void
import (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCorpus) corpus = sim_corpus_open (f->store, FALSE, &error);
  g_autoptr(SimImportResult) result = sim_corpus_rescan (corpus, f->docs, NULL, NULL, NULL, &error);

  assert_non_null (result);
}

/* A write to a corpus indexes what it adds apart (the delta), so it costs
 * what it adds: the index file stays as it is, documents removed or changed
 * since are never found through it, and every check answers as a fresh
 * build would. Past a share of the index, everything is built again. */
/* The index file @index past its document rows (which name the times
 * rows were written): its table, places and statistics. */
static char *
index_tail (const char *index,
            gsize      *out_len)
{
  g_autofree char *bytes = NULL;
  guint64 n_docs, list_len;
  gsize len = 0, at;

  assert_true (g_file_get_contents (index, &bytes, &len, NULL));
  memcpy (&n_docs, bytes + 40, 8);
  memcpy (&list_len, bytes + 56, 8);
  at = 64 + list_len + 24 * n_docs;
  assert_true (at < len);
  *out_len = len - at;
  return g_memdup2 (bytes + at, len - at);
}

/* @json without its "corpus" object (the store's name and time). */
static char *
without_corpus (char *json)
{
  char *from = strstr (json, "\"corpus\":{");
  char *to = from != NULL ? strchr (from, '}') : NULL;

  assert_non_null (to);
  memmove (from, to + 1, strlen (to + 1) + 1);
  return json;
}

/* A build larger than the memory it may take (SIMHOUND_BUILD_MEMORY
 * lowered) keeps the windows it waits on in a file and spills its
 * fingerprints by ranges of buckets: it writes the index file a build in
 * memory writes, byte for byte past the document rows, with places of 4
 * bytes or 8, built from an import, from the texts alone, and from an
 * index file read bucket by bucket as it is replaced; checks answer the
 * same. Wide, its table has a fence (SIMHOUND_INDEX_FENCE_BITS: these
 * buckets are too small for one), written the same way by both. */
static void
test_corpus_build_past_its_memory_writes_the_same_index (void **state)
{
  Fixture *f = *state;
  g_autofree char *more = g_build_filename (f->dir, "more", NULL);
  const char *first[] = { f->docs, NULL }, *second[] = { more, NULL };
  g_autofree char *a = make_text (3, TRUE, 12);
  g_autofree char *b = make_text (48, FALSE, 12);
  g_autofree char *article = g_strconcat ("My own first sentence is here. ", a, b, NULL);

  write_docs (f, 0, 40);
  g_mkdir (more, 0700);
  for (guint i = 40; i < 80; i++)
    {
      g_autofree char *name = g_strdup_printf ("doc-%04u.txt", i);
      g_autofree char *text = make_text (i, i % 2, 12);

      g_free (sim_test_write_file (more, name, text, -1));
    }
  char *narrow_json[3] = { NULL };

  g_setenv ("SIMHOUND_INDEX_MAP_LIMIT", "0", TRUE);
  for (guint wide = 0; wide < 2; wide++)
    {
      char *want[3] = { NULL }, *want_json[3] = { NULL };
      gsize want_len[3] = { 0 };

      /* Wide: places of 5 bytes in the file, and spilled in records of
       * 35-bit places, their buckets in ranges of 32. */
      if (wide)
        {
          g_setenv ("SIMHOUND_INDEX_POSITION_LIMIT", "0", TRUE);
          g_setenv ("SIMHOUND_SPILL_PLACE_BITS", "35", TRUE);
          g_setenv ("SIMHOUND_INDEX_FENCE_BITS", "3", TRUE);
        }
      for (guint small = 0; small < 2; small++)
        {
          g_autofree char *store = g_strdup_printf ("%s-%u-%u.db", f->store, wide, small);
          g_autofree char *index = g_strconcat (store, ".index", NULL);

          if (small)
            g_setenv ("SIMHOUND_BUILD_MEMORY", "4096", TRUE);
          for (guint step = 0; step < 3; step++)
            {
              g_autoptr(SimCorpus) corpus = sim_corpus_open (store, FALSE, NULL);
              g_autofree char *tail = NULL, *json = NULL;
              gsize len = 0;

              assert_non_null (corpus);
              /* An import; the same documents from their texts (no index
               * file); as many again, read from the file being replaced. */
              if (step != 1)
                {
                  g_autoptr(SimImportResult) result = sim_corpus_add (corpus, step == 0 ? first : second,
                                                                      NULL, NULL, NULL, NULL);

                  assert_int_equal (result->n_added, 40);
                }
              json = without_corpus (check_json (corpus, article));
              tail = index_tail (index, &len);
              if (!small)
                {
                  want[step] = g_steal_pointer (&tail);
                  want_len[step] = len;
                  want_json[step] = g_steal_pointer (&json);
                }
              else
                {
                  assert_int_equal (len, want_len[step]);
                  assert_memory_equal (tail, want[step], len);
                  assert_string_equal (json, want_json[step]);
                }
              if (step == 0)
                assert_int_equal (g_unlink (index), 0);
            }
          g_unsetenv ("SIMHOUND_BUILD_MEMORY");
        }
      /* Wide or narrow, the same answers. */
      for (guint step = 0; step < 3; step++)
        {
          assert_non_null (strstr (want_json[step], "doc-0003.txt"));
          if (wide)
            {
              assert_string_equal (want_json[step], narrow_json[step]);
              g_free (narrow_json[step]);
              g_free (want_json[step]);
            }
          else
            narrow_json[step] = want_json[step];
          g_free (want[step]);
        }
      g_unsetenv ("SIMHOUND_INDEX_POSITION_LIMIT");
      g_unsetenv ("SIMHOUND_SPILL_PLACE_BITS");
      g_unsetenv ("SIMHOUND_INDEX_FENCE_BITS");
    }
  g_unsetenv ("SIMHOUND_INDEX_MAP_LIMIT");
}

static void
test_corpus_index_delta_answers_as_a_fresh_build (void **state)
{
  Fixture *f = *state;
  g_autofree char *index = g_strconcat (f->store, ".index", NULL);
  g_autofree char *delta = g_strconcat (f->store, ".index-delta", NULL);
  g_autofree char *text3 = make_text (3, TRUE, 12);
  g_autofree char *text5 = make_text (5, TRUE, 12);
  g_autofree char *text40 = make_text (40, FALSE, 12);
  g_autofree char *article = NULL;
  gint64 before[3], after[3];

  write_docs (f, 0, 40);
  import (f);
  assert_false (g_file_test (delta, G_FILE_TEST_EXISTS));
  file_identity (index, before);
  article = g_strconcat ("My own first sentence is here. ", text3, text5, text40, NULL);
  g_free (check_both_ways (f->store, article, FALSE));

  /* One removed alone: the delta holds no fingerprint more. */
  {
    g_autofree char *removed = g_build_filename (f->docs, "doc-0007.txt", NULL);
    g_autofree char *text7 = make_text (7, TRUE, 12);
    g_autofree char *json = NULL;
    gsize n_before = n_fps_of (f->store);

    assert_int_equal (g_unlink (removed), 0);
    import (f);
    json = check_both_ways (f->store, text7, TRUE);
    assert_null (strstr (json, "doc-0007.txt"));
    assert_int_equal (n_fps_of (f->store), n_before);
  }

  /* Two documents more, and the last one changed (SQLite gives its new row
   * the same id): in the delta, found, the index file untouched. */
  write_docs (f, 40, 2);
  {
    g_autofree char *other = make_text (1039, FALSE, 12);

    g_free (sim_test_write_file (f->docs, "doc-0039.txt", other, -1));
  }
  import (f);
  assert_true (g_file_test (delta, G_FILE_TEST_IS_REGULAR));
  file_identity (index, after);
  assert_memory_equal (before, after, sizeof before);
  {
    g_autofree char *json = check_both_ways (f->store, article, TRUE);

    assert_non_null (strstr (json, "doc-0040.txt"));
    assert_non_null (strstr (json, "doc-0003.txt"));
  }
  {
    g_autofree char *old = make_text (39, TRUE, 12);
    g_autofree char *changed = make_text (1039, FALSE, 12);
    g_autofree char *json = check_both_ways (f->store, old, TRUE);
    g_autofree char *json_changed = check_both_ways (f->store, changed, TRUE);

    assert_null (strstr (json, "doc-0039.txt"));
    assert_non_null (strstr (json_changed, "doc-0039.txt"));
  }

  /* One removed and one changed: neither found as it was. */
  {
    g_autofree char *removed = g_build_filename (f->docs, "doc-0003.txt", NULL);
    g_autofree char *other = make_text (1005, TRUE, 12);

    assert_int_equal (g_unlink (removed), 0);
    g_free (sim_test_write_file (f->docs, "doc-0005.txt", other, -1));
  }
  import (f);
  file_identity (index, after);
  assert_memory_equal (before, after, sizeof before);
  {
    g_autofree char *json = check_both_ways (f->store, article, TRUE);

    assert_null (strstr (json, "doc-0003.txt"));
    assert_null (strstr (json, "doc-0005.txt"));
    assert_non_null (strstr (json, "doc-0040.txt"));
  }
  {
    g_autofree char *changed = make_text (1005, TRUE, 12);
    g_autofree char *json = check_both_ways (f->store, changed, TRUE);

    assert_non_null (strstr (json, "doc-0005.txt"));
  }

  /* A damaged delta file is not used, and is made again. */
  {
    g_autofree char *bytes = NULL, *again = NULL;
    gsize len = 0, again_len = 0;

    assert_true (g_file_get_contents (delta, &bytes, &len, NULL));
    assert_true (g_file_set_contents (delta, bytes, len - 1, NULL));
    g_free (check_both_ways (f->store, article, TRUE));
    assert_true (g_file_get_contents (delta, &again, &again_len, NULL));
    assert_int_equal (again_len, len);
    assert_memory_equal (again, bytes, len);
  }

  /* Many more documents than a quarter of the index: built again whole,
   * from the index files, the delta and the new documents' windows, as a
   * build from the texts would be. */
  write_docs (f, 42, 20);
  import (f);
  assert_false (g_file_test (delta, G_FILE_TEST_EXISTS));
  file_identity (index, after);
  assert_memory_not_equal (before, after, sizeof before);
  g_free (check_both_ways (f->store, article, FALSE));
  assert_index_as_from_texts (f->store);

  /* A rebuild makes the fingerprints again: the index file too. */
  file_identity (index, before);
  {
    g_autoptr(SimRepairResult) repaired = sim_corpus_rebuild (f->store, NULL);

    assert_non_null (repaired);
  }
  g_free (check_both_ways (f->store, article, FALSE));
  file_identity (index, after);
  assert_memory_not_equal (before, after, sizeof before);
  assert_index_as_from_texts (f->store);
}

/* A window of the corpus: its document, start and 64-bit SimHash. */
typedef struct {
  guint32 doc;
  guint32 start;
  guint64 fp;
} Window;

static int
compare_places (gconstpointer a,
                gconstpointer b)
{
  const guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

/* The places (doc << 32 | start, sorted) a lookup of @query within @k
 * finds in @snapshot. */
static GArray *
looked_up (SimCorpusSnapshot *snapshot,
           guint64            query,
           guint              k)
{
  g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  GArray *places = g_array_new (FALSE, FALSE, sizeof (guint64));
  guint32 end;

  assert_true (sim_corpus_snapshot_lookup (snapshot, &query, 1, k, ids, &end, NULL));
  assert_int_equal (end, ids->len);
  for (guint i = 0; i < ids->len; i++)
    {
      guint32 doc, start;
      guint64 place;

      sim_corpus_snapshot_get_places (snapshot, &g_array_index (ids, guint32, i), 1, &doc, &start);
      place = (guint64) doc << 32 | start;
      g_array_append_val (places, place);
    }
  g_array_sort (places, compare_places);
  return places;
}

/* A snapshot reads texts through connections it keeps between reads, from
 * any thread: each read is a transaction of its own, so what a writer did
 * in between shows (a document removed has no text), and a connection
 * given back holds no transaction that would keep the next read from
 * starting. */
static void
test_corpus_snapshot_readers_see_the_store_as_it_is (void **state)
{
  Fixture *f = *state;
  const char *paths[] = { f->docs, NULL };
  g_autoptr(SimCorpus) corpus = NULL;
  g_autoptr(SimCorpusSnapshot) snapshot = NULL;
  g_autofree char *id = NULL;
  const char *ids[] = { NULL, NULL };
  guint n_removed = 0;

  write_docs (f, 0, 3);
  corpus = sim_corpus_open (f->store, FALSE, NULL);
  {
    g_autoptr(SimImportResult) result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL);

    assert_int_equal (result->n_added, 3);
  }
  snapshot = sim_corpus_ref_snapshot (corpus);
  for (guint round = 0; round < 3; round++)
    for (guint d = 0; d < 3; d++)
      {
        g_autofree char *text = NULL;
        gsize len = 0;

        assert_true (sim_corpus_snapshot_dup_texts (snapshot, &d, 1, &text, &len, NULL));
        assert_non_null (text);
        assert_int_equal (g_utf8_strlen (text, len), sim_corpus_snapshot_get_doc (snapshot, d)->n_chars);
      }
  id = g_strdup_printf ("%" G_GINT64_FORMAT, sim_corpus_snapshot_get_doc (snapshot, 1)->id);
  ids[0] = id;
  assert_true (sim_corpus_remove (corpus, ids, &n_removed, NULL));
  assert_int_equal (n_removed, 1);
  for (guint d = 0; d < 3; d++)
    {
      g_autofree char *text = NULL;
      gsize len = 0;
      g_autoptr(GError) error = NULL;

      assert_true (sim_corpus_snapshot_dup_texts (snapshot, &d, 1, &text, &len, &error));
      assert_null (error);
      if (d == 1)
        assert_null (text);
      else
        assert_non_null (text);
    }
}

/* Exact lookups compare the 40 bits the index files keep; lookups within
 * a distance see all 64 bits of every window (and sentence key),
 * fingerprinted again from the texts, and find what a brute-force scan of
 * them finds. */
static void
test_corpus_near_lookups_see_all_64_bits (void **state)
{
  Fixture *f = *state;
  const char *paths[] = { f->docs, NULL };
  g_autoptr(GArray) windows = g_array_new (FALSE, FALSE, sizeof (Window));
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);
  g_autoptr(SimCorpus) corpus = NULL;
  g_autoptr(SimCorpusSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  guint top_only = 0;

  write_docs (f, 0, 12);
  corpus = sim_corpus_open (f->store, FALSE, NULL);
  {
    g_autoptr(SimImportResult) result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL);

    assert_int_equal (result->n_added, 12);
  }
  snapshot = sim_corpus_ref_snapshot (corpus);
  for (guint d = 0; d < sim_corpus_snapshot_get_n_docs (snapshot); d++)
    {
      g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (sim_corpus_snapshot_get_flags (snapshot));
      g_autoptr(GArray) anchors = g_array_new (FALSE, FALSE, sizeof (SimAnchor));
      g_autofree char *text = NULL;
      gsize len = 0;
      const SimUnits *units;

      assert_true (sim_corpus_snapshot_dup_texts (snapshot, &d, 1, &text, &len, NULL));
      units = sim_fingerprinter_load (fp, text, len);
      sim_fingerprinter_windows (fp, SIM_WINNOW_WEIGHT, anchors);
      sim_words_text_keys (text, len, units, anchors);
      for (guint i = 0; i < anchors->len; i++)
        {
          const SimAnchor *a = &g_array_index (anchors, SimAnchor, i);
          Window w = { d, units->src_start[a->unit_start], a->simhash };

          g_array_append_val (windows, w);
        }
    }
  assert_int_equal (windows->len, sim_corpus_snapshot_get_n_fps (snapshot));
  assert_true (sim_corpus_snapshot_prepare_lookup (snapshot, 3, NULL, &error));
  assert_null (error);
  for (guint q = 0; q < 300; q++)
    {
      const Window *w = &g_array_index (windows, Window, g_rand_int_range (rand, 0, windows->len));
      /* Bits flipped: 0 to 3 anywhere, or 4 in the top 24 alone. */
      const guint kind = q % 5;
      guint64 query = w->fp;
      g_autoptr(GArray) want = g_array_new (FALSE, FALSE, sizeof (guint64));
      g_autoptr(GArray) want_exact = g_array_new (FALSE, FALSE, sizeof (guint64));
      g_autoptr(GArray) near = NULL;
      g_autoptr(GArray) exact = NULL;

      while ((guint) __builtin_popcountll (query ^ w->fp) < kind)
        query ^= G_GUINT64_CONSTANT (1) << (kind == 4 ? g_rand_int_range (rand, SIM_BAND_INDEX_FILE_BITS, 64) : g_rand_int_range (rand, 0, 64));
      for (guint i = 0; i < windows->len; i++)
        {
          const Window *v = &g_array_index (windows, Window, i);
          const guint64 place = (guint64) v->doc << 32 | v->start;

          if (__builtin_popcountll (v->fp ^ query) <= 3)
            g_array_append_val (want, place);
          if (((v->fp ^ query) & SIM_BAND_INDEX_FILE_MASK) == 0)
            g_array_append_val (want_exact, place);
        }
      g_array_sort (want, compare_places);
      g_array_sort (want_exact, compare_places);
      near = looked_up (snapshot, query, 3);
      exact = looked_up (snapshot, query, 0);
      assert_int_equal (near->len, want->len);
      assert_memory_equal (near->data, want->data, want->len * sizeof (guint64));
      assert_int_equal (exact->len, want_exact->len);
      assert_memory_equal (exact->data, want_exact->data, want_exact->len * sizeof (guint64));
      if (kind == 4)
        {
          assert_true (exact->len > 0);
          top_only += near->len < exact->len;
        }
    }
  /* Four bits apart in the top 24: one to the exact index, too far for the near one. */
  assert_true (top_only > 0);
}

/* A store whose damage SQLite's check does not see until a rebuild has
 * written over it (tests/data/store/README.md): the rebuild still leaves
 * a store that verify finds sound, its documents there. */
static void
test_rebuild_leaves_no_damage (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *fixture = g_build_filename (g_getenv ("SIMHOUND_TEST_DATA"), "store", "cells-out-of-order.db", NULL);
  g_autofree char *path = g_build_filename (dir, "damaged.db", NULL);
  g_autofree char *bytes = NULL;
  g_autoptr(SimRepairResult) repaired = NULL;
  g_autoptr(SimRepairResult) after = NULL;
  g_autoptr(GError) error = NULL;
  gsize len;

  (void) state;
  assert_true (g_file_get_contents (fixture, &bytes, &len, NULL));
  assert_true (g_file_set_contents (path, bytes, len, NULL));
  repaired = sim_corpus_rebuild (path, &error);
  assert_non_null (repaired);
  after = sim_corpus_verify (path, &error);
  assert_non_null (after);
  if (after->index_damage != NULL)
    fail_msg ("after a rebuild: %s", after->index_damage);
  assert_int_equal (after->damaged->len, 0);
  {
    g_autoptr(SimCorpus) corpus = sim_corpus_open (path, TRUE, &error);
    g_autoptr(GPtrArray) docs = NULL;

    assert_non_null (corpus);
    docs = sim_corpus_list (corpus, &error);
    assert_non_null (docs);
    assert_true (docs->len > 0);
  }
  sim_test_remove_tree (dir);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_rebuild_leaves_no_damage),
    cmocka_unit_test_setup_teardown (test_corpus_add_is_incremental, setup, teardown),
    cmocka_unit_test_setup_teardown (test_corpus_imports_thousands_of_small_files_each_once, setup, teardown),
    cmocka_unit_test_setup_teardown (test_corpus_lists_unreadable_files_and_imports_the_rest, setup, teardown),
    cmocka_unit_test_setup_teardown (test_corpus_remove_by_id_path_and_folder, setup, teardown),
    cmocka_unit_test_setup_teardown (test_corpus_rescan_follows_the_folder, setup, teardown),
    cmocka_unit_test_setup_teardown (test_corpus_survives_a_file_deleted_mid_import, setup, teardown),
    cmocka_unit_test_setup_teardown (test_corpus_full_disk_keeps_committed_batches, setup, teardown),
    cmocka_unit_test_setup_teardown (test_corpus_survives_a_killed_import, setup, teardown),
    cmocka_unit_test_setup_teardown (test_corpus_cancel_keeps_the_store_as_before_the_batch, setup, teardown),
    cmocka_unit_test_setup_teardown (test_corpus_add_counts_what_another_writer_added_between_batches, setup, teardown),
    cmocka_unit_test_setup_teardown (test_corpus_rebuilds_an_old_feature_version, setup, teardown),
    cmocka_unit_test_setup_teardown (test_corpus_traditional_folding_is_a_store_setting, setup, teardown),
    cmocka_unit_test_setup_teardown (test_corpus_index_file_is_mapped_and_never_trusted_blindly, setup, teardown),
    cmocka_unit_test_setup_teardown (test_corpus_index_file_cut_inside_its_document_list, setup, teardown),
    cmocka_unit_test (test_corpus_position_index_matches_brute_force),
    cmocka_unit_test_setup_teardown (test_corpus_index_file_with_an_older_list_is_read_and_written_anew, setup, teardown),
    cmocka_unit_test_setup_teardown (test_corpus_index_delta_answers_as_a_fresh_build, setup, teardown),
    cmocka_unit_test_setup_teardown (test_corpus_build_past_its_memory_writes_the_same_index, setup, teardown),
    cmocka_unit_test_setup_teardown (test_corpus_snapshot_readers_see_the_store_as_it_is, setup, teardown),
    cmocka_unit_test_setup_teardown (test_corpus_near_lookups_see_all_64_bits, setup, teardown),
  };

  return cmocka_run_group_tests_name ("corpus", tests, NULL, NULL);
}
