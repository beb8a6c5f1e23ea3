/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The corpus manager under Xvfb: grouped by folder, searched, and a corpus
 * that cannot be lost by accident: Remove needs a selection, asks from
 * SIM_CORPUS_WINDOW_CONFIRM_AT documents on, Undo brings every document
 * back, the store changes only when the notice goes; Escape and Ctrl+W
 * close; a re-scan follows files deleted on disk.
 *
 * With --screenshot OUT.png STORE SEARCH it saves the manager instead.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <locale.h>
#include <cmocka.h>
#include <adwaita.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "sim-corpus.h"
#include "sim-corpus-window.h"
#include "sim-document-row.h"
#include "sim-window-test.h"
#include "sim-test-util.h"
#include "sim-test-ui.h"

/* The number of documents in the store itself. */
static guint
stored_documents (const char *store)
{
  g_autoptr(SimCorpus) corpus = sim_corpus_open (store, TRUE, NULL);
  g_autoptr(GPtrArray) docs = corpus ? sim_corpus_list (corpus, NULL) : NULL;

  return docs ? docs->len : 0;
}

/* Lets the main loop run for @seconds. */
static void
spin (double seconds)
{
  const gint64 end = g_get_monotonic_time () + (gint64) (seconds * G_USEC_PER_SEC);

  while (g_get_monotonic_time () < end)
    g_main_context_iteration (NULL, FALSE);
}

static gboolean
not_busy (gpointer data)
{
  return !sim_window_is_busy (data);
}

static gboolean
not_removing (gpointer data)
{
  return !sim_corpus_window_is_removing (data);
}

/* Selects the folder row whose path ends in @name (collapsed folders are
 * the only rows). */
static void
select_folder (SimCorpusWindow *cw,
               const char      *name)
{
  GtkSelectionModel *selection = sim_corpus_window_get_selection (cw);

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (selection)); i++)
    {
      g_autoptr(GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (selection), i);
      g_autoptr(GObject) item = gtk_tree_list_row_get_item (row);

      if (SIM_IS_FOLDER_ROW (item) && g_str_has_suffix (sim_folder_row_get_path (SIM_FOLDER_ROW (item)), name))
        {
          gtk_selection_model_select_item (selection, i, TRUE);
          return;
        }
    }
  fail_msg ("no folder %s", name);
}

static void
test_corpus_manager_groups_searches_and_removes_with_undo (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *essays = g_build_filename (dir, "essays", NULL);
  g_autofree char *news = g_build_filename (dir, "news", NULL);
  g_autofree char *store = g_build_filename (dir, "store.db", NULL);
  g_autofree char *gone = NULL;
  SimWindow *window;
  SimCorpusWindow *cw;
  GtkWidget *remove_button;

  for (guint i = 0; i < 12; i++)
    {
      g_autofree char *name = g_strdup_printf ("essay-%02u.txt", i);
      g_autofree char *text = g_strdup_printf ("Essay %u argues about river %u and its %u bridges at length.", i, i * 7, i * 3);

      g_free (sim_test_write_file (essays, name, text, -1));
    }
  g_free (sim_test_write_file (news, "storm.txt", "A storm closed the harbour for three days last week.", -1));
  g_free (sim_test_write_file (news, "market.txt", "The night market moved to the old railway station.", -1));
  gone = sim_test_write_file (news, "bridge.txt", "The new bridge opened with a parade across the river.", -1);
  {
    g_autoptr(SimCorpus) corpus = sim_corpus_open (store, FALSE, NULL);
    const char *paths[] = { essays, news, NULL };
    g_autoptr(SimImportResult) result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL);

    assert_int_equal (result->n_added, 15);
  }

  window = sim_window_new (NULL, store);
  gtk_window_present (GTK_WINDOW (window));
  assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.manage-corpus", NULL));
  cw = SIM_CORPUS_WINDOW (sim_window_get_corpus_window (window));

  /* Grouped by folder. */
  assert_int_equal (sim_corpus_window_get_n_folders (cw), 2);
  assert_int_equal (sim_corpus_window_get_n_documents (cw), 15);

  /* Search narrows the list (case does not matter), clearing it restores. */
  sim_corpus_window_set_search (cw, "NEWS/");
  assert_int_equal (sim_corpus_window_get_n_documents (cw), 3);
  assert_int_equal (sim_corpus_window_get_n_folders (cw), 1);
  sim_corpus_window_set_search (cw, "essay-1");
  assert_int_equal (sim_corpus_window_get_n_documents (cw), 2);   /* essay-10, essay-11 */
  sim_corpus_window_set_search (cw, "");
  assert_int_equal (sim_corpus_window_get_n_documents (cw), 15);

  /* Remove is off without a selection, and does nothing if forced. */
  remove_button = sim_test_ui_find_actionable (gtk_window_get_titlebar (GTK_WINDOW (cw)), "corpus.remove");
  assert_non_null (remove_button);
  assert_false (gtk_widget_get_sensitive (remove_button));
  gtk_widget_activate_action (GTK_WIDGET (cw), "corpus.remove", NULL);
  assert_null (sim_corpus_window_get_confirmation (cw));
  assert_int_equal (sim_corpus_window_get_n_documents (cw), 15);

  /* Everything selected: a question first; cancelling keeps all. */
  gtk_selection_model_select_all (sim_corpus_window_get_selection (cw));
  assert_true (gtk_widget_get_sensitive (remove_button));
  gtk_widget_activate_action (GTK_WIDGET (cw), "corpus.remove", NULL);
  assert_non_null (sim_corpus_window_get_confirmation (cw));
  assert_string_equal (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (sim_corpus_window_get_confirmation (cw))),
                       "Remove 15 documents from the corpus?");
  adw_message_dialog_response (ADW_MESSAGE_DIALOG (sim_corpus_window_get_confirmation (cw)), "cancel");
  spin (0.1);
  assert_null (sim_corpus_window_get_confirmation (cw));
  assert_int_equal (sim_corpus_window_get_n_documents (cw), 15);

  /* Confirmed: the documents disappear from the list, not yet from the store,
   * and Undo brings every one back. */
  gtk_widget_activate_action (GTK_WIDGET (cw), "corpus.remove", NULL);
  adw_message_dialog_response (ADW_MESSAGE_DIALOG (sim_corpus_window_get_confirmation (cw)), "remove");
  spin (0.1);
  assert_int_equal (sim_corpus_window_get_n_documents (cw), 0);
  assert_int_equal (stored_documents (store), 15);
  assert_true (gtk_widget_activate_action (GTK_WIDGET (cw), "corpus.undo", NULL));
  spin (0.1);
  assert_int_equal (sim_corpus_window_get_n_documents (cw), 15);
  assert_int_equal (sim_corpus_window_get_n_folders (cw), 2);
  sim_corpus_window_commit_removals (cw);   /* nothing is left to commit */
  sim_test_spin_until (not_removing, cw, 30);
  assert_int_equal (stored_documents (store), 15);

  /* A folder of three: no question; the store changes when the notice goes,
   * and the main window's corpus follows. */
  gtk_selection_model_unselect_all (sim_corpus_window_get_selection (cw));
  select_folder (cw, "/news");
  gtk_widget_activate_action (GTK_WIDGET (cw), "corpus.remove", NULL);
  assert_null (sim_corpus_window_get_confirmation (cw));
  assert_int_equal (sim_corpus_window_get_n_documents (cw), 12);
  assert_int_equal (stored_documents (store), 15);
  sim_corpus_window_commit_removals (cw);
  sim_test_spin_until (not_removing, cw, 30);
  assert_int_equal (stored_documents (store), 12);
  assert_int_equal (sim_corpus_window_get_n_documents (cw), 12);
  assert_int_equal (sim_corpus_window_get_n_folders (cw), 1);

  /* Re-scan: the news folder comes back from disk less its deleted file. */
  assert_int_equal (g_unlink (gone), 0);
  g_free (sim_test_write_file (essays, "essay-new.txt", "A late essay about lakes and their many boats.", -1));
  {
    g_autofree char *bridge = g_build_filename (essays, "essay-00.txt", NULL);

    assert_int_equal (g_unlink (bridge), 0);
  }
  select_folder (cw, "/essays");
  assert_true (gtk_widget_activate_action (GTK_WIDGET (cw), "corpus.rescan", NULL));
  assert_true (sim_window_is_busy (window));
  sim_test_spin_until (not_busy, window, 60);
  assert_int_equal (stored_documents (store), 12);   /* 12 - 1 + 1 */
  sim_corpus_window_set_search (cw, "essay-new");
  assert_int_equal (sim_corpus_window_get_n_documents (cw), 1);
  sim_corpus_window_set_search (cw, "essay-00");
  assert_int_equal (sim_corpus_window_get_n_documents (cw), 0);

  /* Escape and Ctrl+W close. */
  assert_true (sim_test_ui_has_shortcut (GTK_WIDGET (cw), "Escape", "window.close"));
  assert_true (sim_test_ui_has_shortcut (GTK_WIDGET (cw), "<Control>w", "window.close"));
  assert_true (gtk_widget_activate_action (GTK_WIDGET (cw), "window.close", NULL));
  spin (0.1);
  assert_null (sim_window_get_corpus_window (window));

  gtk_window_destroy (GTK_WINDOW (window));
  sim_test_remove_tree (dir);
}

/* Closing the window is not an undo: what waits behind the notice goes. */
static void
test_corpus_manager_closing_commits_the_removal (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *docs = g_build_filename (dir, "docs", NULL);
  g_autofree char *store = g_build_filename (dir, "store.db", NULL);
  SimWindow *window;
  SimCorpusWindow *cw;

  g_free (sim_test_write_file (docs, "a.txt", "The first document talks about the sea and its ships.", -1));
  g_free (sim_test_write_file (docs, "b.txt", "The second document talks about mountains and snow.", -1));
  {
    g_autoptr(SimCorpus) corpus = sim_corpus_open (store, FALSE, NULL);
    const char *paths[] = { docs, NULL };
    g_autoptr(SimImportResult) result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL);
  }
  window = sim_window_new (NULL, store);
  gtk_window_present (GTK_WINDOW (window));
  assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.manage-corpus", NULL));
  cw = SIM_CORPUS_WINDOW (sim_window_get_corpus_window (window));
  /* One folder opens by itself: its two documents are rows 1 and 2. */
  assert_int_equal (g_list_model_get_n_items (G_LIST_MODEL (sim_corpus_window_get_selection (cw))), 3);
  gtk_selection_model_select_item (sim_corpus_window_get_selection (cw), 1, TRUE);
  gtk_widget_activate_action (GTK_WIDGET (cw), "corpus.remove", NULL);
  assert_int_equal (sim_corpus_window_get_n_documents (cw), 1);
  gtk_window_destroy (GTK_WINDOW (cw));
  for (int i = 0; i < 300 && stored_documents (store) != 1; i++)
    spin (0.1);
  assert_int_equal (stored_documents (store), 1);
  gtk_window_destroy (GTK_WINDOW (window));
  sim_test_remove_tree (dir);
}

/* --screenshot OUT.png STORE SEARCH: the manager with SEARCH typed, the
 * folders that match opened (screenshots.sh). */
static int
screenshot (const char *out,
            const char *store,
            const char *search)
{
  GtkWidget *cw = sim_corpus_window_new (NULL, store, FALSE);

  gtk_window_set_default_size (GTK_WINDOW (cw), 1000, 640);
  gtk_window_present (GTK_WINDOW (cw));
  sim_corpus_window_set_search (SIM_CORPUS_WINDOW (cw), search);
  gtk_selection_model_select_item (sim_corpus_window_get_selection (SIM_CORPUS_WINDOW (cw)), 1, TRUE);
  return sim_test_ui_save_png (cw, out);
}

int
main (int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_corpus_manager_groups_searches_and_removes_with_undo),
    cmocka_unit_test (test_corpus_manager_closing_commits_the_removal),
  };

  sim_test_ui_init ();
  if (argc == 5 && g_str_equal (argv[1], "--screenshot"))
    return screenshot (argv[2], argv[3], argv[4]);
  return cmocka_run_group_tests_name ("corpus-window", tests, NULL, NULL);
}
