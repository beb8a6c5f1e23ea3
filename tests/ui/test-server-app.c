/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The app against a corpus server: the preference (a server's connection
 * string, Test Connection in words, no password in the settings) and a
 * window checking through the server, or saying plainly that it cannot
 * reach it. Runs under Xvfb beside a throwaway PostgreSQL cluster
 * (tests/server/with-postgres.sh sets SIMHOUND_TEST_PG).
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <gtk/gtk.h>
#include <adwaita.h>
#include <libpq-fe.h>

#include "sim-comparison-test.h"
#include "sim-corpus-window.h"
#include "sim-document-row.h"
#include "sim-keyring.h"
#include "sim-preferences.h"
#include "sim-server.h"
#include "sim-window-test.h"
#include "sim-test-util.h"
#include "sim-test-ui.h"

#define COPIED "Ships passing the northern reef relied on his lamp to find the safe channel through the rocks. " \
               "In forty years he never once let the light go dark, even in the storms of a hard winter."
#define OWN    "My cousin prefers mountains to the sea and has never seen a lighthouse at all. "

static char *dir;

static char *
server_uri (const char *password)
{
  return g_strdup_printf ("postgresql://postgres%s%s@%s:%s/postgres", password ? ":" : "", password ? password : "",
                          g_getenv ("SIMHOUND_TEST_PG_HOST"), g_getenv ("SIMHOUND_TEST_PG_PORT"));
}

static int
setup (void **state)
{
  g_autofree char *uri = server_uri (NULL);
  g_autofree char *folder = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimServer) server = sim_server_connect (uri, &error);
  g_autoptr(SimImportResult) added = NULL;
  const char *paths[2] = { NULL, NULL };

  if (server == NULL || !sim_server_init (server, &error))
    fail_msg ("%s", error->message);
  dir = sim_test_make_tmp_dir ();
  folder = g_build_filename (dir, "lighthouse", NULL);
  g_free (sim_test_write_file (folder, "keeper.txt", "The keeper's log. " COPIED " The end of the log.\n", -1));
  g_free (sim_test_write_file (folder, "harbour.txt", "Tide tables for the northern harbour are printed each spring.\n",
                               -1));
  paths[0] = folder;
  added = sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error);
  if (added == NULL)
    fail_msg ("%s", error->message);
  return 0;
}

static int
teardown (void **state)
{
  sim_test_remove_tree (dir);
  g_free (dir);
  return 0;
}

static gboolean
has_result (gpointer data)
{
  return sim_preferences_get_test_result (data) != NULL;
}

/* "A server": the connection string goes to the setting without the
 * password typed in it; Test Connection says what it found, or why not. */
static void
test_preference_and_test_connection (void **state)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.simhound.Simhound");
  GtkWidget *prefs = sim_preferences_new (NULL);
  SimPreferences *p = SIM_PREFERENCES (prefs);
  g_autofree char *uri = server_uri (NULL);
  g_autofree char *with_password = server_uri ("s3cret");
  g_autofree char *unreachable = g_strdup_printf ("postgresql://postgres@%s:1/postgres?connect_timeout=3",
                                                  g_getenv ("SIMHOUND_TEST_PG_HOST"));
  g_autofree char *store = NULL;

  gtk_window_present (GTK_WINDOW (prefs));
  sim_preferences_use_server (p, with_password, NULL);
  store = g_settings_get_string (settings, "store");
  /* Never in GSettings: the password typed went to the keyring (or was said not kept). */
  assert_null (strstr (store, "s3cret"));
  assert_string_equal (store, uri);
  /* In the keyring, under the connection string without it
   * (tests/ui/with-keyring.sh gives the test a keyring of its own). */
  if (g_getenv ("SIMHOUND_TEST_KEYRING") != NULL)
    {
      g_autofree char *kept = sim_keyring_lookup (uri);

      assert_string_equal (kept, "s3cret");
      sim_preferences_use_server (p, uri, "an0ther");
      g_free (kept);
      kept = sim_keyring_lookup (uri);
      assert_string_equal (kept, "an0ther");
      assert_true (sim_keyring_store (uri, "", NULL));
      g_free (kept);
      kept = sim_keyring_lookup (uri);
      assert_null (kept);
    }

  sim_preferences_test_connection (p);
  sim_test_spin_until (has_result, p, 30);
  /* For a look at it (screenshots.sh sets the folder). */
  if (g_getenv ("SIMHOUND_SCREENSHOT_DIR") != NULL)
    {
      g_autofree char *png = g_build_filename (g_getenv ("SIMHOUND_SCREENSHOT_DIR"), "preferences-server.png", NULL);

      assert_int_equal (sim_test_ui_save_png (prefs, png), 0);
    }
  assert_non_null (strstr (sim_preferences_get_test_result (p), "2 documents"));
  assert_non_null (strstr (sim_preferences_get_test_result (p), "may check and add documents"));

  sim_preferences_use_server (p, unreachable, NULL);
  sim_preferences_test_connection (p);
  sim_test_spin_until (has_result, p, 30);
  assert_non_null (strstr (sim_preferences_get_test_result (p), "Cannot reach the corpus server"));
  assert_null (strstr (sim_preferences_get_test_result (p), "s3cret"));

  sim_preferences_use_server (p, "not a server", NULL);
  assert_non_null (strstr (sim_preferences_get_test_result (p), "not a connection string"));
  g_settings_reset (settings, "store");
  gtk_window_destroy (GTK_WINDOW (prefs));
}

static gboolean
check_finished (gpointer data)
{
  return !sim_window_is_busy (data) && sim_window_get_report (data) != NULL;
}

static gboolean
not_busy (gpointer data)
{
  return !sim_window_is_busy (data);
}

static gboolean
error_shown (gpointer data)
{
  GListModel *toplevels = gtk_window_get_toplevels ();  /* (transfer none) */

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) w = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (w) && gtk_widget_get_visible (GTK_WIDGET (w)) &&
          g_strcmp0 (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (w)), data) == 0)
        return TRUE;
    }
  return FALSE;
}

/* A window whose corpus is a server says where checks go and checks
 * through it; an unreachable one is said plainly and the text stays. */
static void
test_window_checks_through_the_server (void **state)
{
  g_autofree char *uri = server_uri (NULL);
  g_autofree char *unreachable = g_strdup_printf ("postgresql://postgres@%s:1/postgres?connect_timeout=3",
                                                  g_getenv ("SIMHOUND_TEST_PG_HOST"));
  SimWindow *window = sim_window_new (NULL, uri);
  SimWindow *lost = NULL;
  GtkTextBuffer *buffer;
  g_autofree char *text = NULL;
  GtkTextIter start, end;

  gtk_window_present (GTK_WINDOW (window));
  sim_test_spin_until (not_busy, window, 30);
  assert_non_null (strstr (sim_window_get_read_only_message (window), "Checks go to the corpus server"));
  assert_non_null (strstr (sim_window_get_read_only_message (window), "2 documents"));
  gtk_text_buffer_set_text (sim_window_get_buffer (window), OWN COPIED, -1);
  sim_window_check (window);
  sim_test_spin_until (check_finished, window, 60);
  assert_true (sim_report_get_n_passages (sim_window_get_report (window)) >= 1);
  assert_non_null (strstr (sim_window_get_summary (window), "% similar"));
  gtk_window_destroy (GTK_WINDOW (window));

  lost = sim_window_new (NULL, unreachable);
  gtk_window_present (GTK_WINDOW (lost));
  buffer = sim_window_get_buffer (lost);
  gtk_text_buffer_set_text (buffer, OWN, -1);
  sim_test_spin_until (not_busy, lost, 30);
  sim_test_spin_until (error_shown, (gpointer) "The corpus server cannot be reached", 10);
  assert_true (error_shown ((gpointer) "The corpus server cannot be reached"));
  assert_null (sim_window_get_report (lost));
  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  assert_string_equal (text, OWN);
  gtk_window_destroy (GTK_WINDOW (lost));
}

/* A student's window: the essay a classmate handed in is matched by keys,
 * named with its title, and its text shown nowhere. */
static void
test_student_sees_where_not_what (void **state)
{
  g_autofree char *owner = server_uri (NULL);
  g_autofree char *uri = g_strdup_printf ("postgresql://pupil@%s:%s/postgres", g_getenv ("SIMHOUND_TEST_PG_HOST"),
                                          g_getenv ("SIMHOUND_TEST_PG_PORT"));
  SimWindow *window;
  SimReport *report;
  gint flagged = -1;

  {
    PGconn *conn = PQconnectdb (owner);
    PGresult *result = PQexec (conn, "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'pupil') THEN"
                                     "  CREATE ROLE pupil LOGIN IN ROLE simhound_student; END IF; END $$");

    assert_int_equal (PQresultStatus (result), PGRES_COMMAND_OK);
    PQclear (result);
    PQfinish (conn);
  }
  window = sim_window_new (NULL, uri);
  gtk_window_present (GTK_WINDOW (window));
  sim_test_spin_until (not_busy, window, 30);
  gtk_text_buffer_set_text (sim_window_get_buffer (window), OWN COPIED, -1);
  sim_window_check (window);
  sim_test_spin_until (check_finished, window, 60);
  report = sim_window_get_report (window);
  assert_true (sim_report_get_n_sources (report) >= 1);
  assert_true (sim_report_get_source (report, 0)->text_withheld);
  for (guint i = 0; i < sim_report_get_n_segments (report) && flagged < 0; i++)
    if (sim_report_segment_is_flagged (sim_report_get_segment (report, i)))
      flagged = i;
  assert_true (flagged >= 0);
  sim_window_select_segment (window, flagged);
  /* For a look at it, in any language (before the English assertions). */
  if (g_getenv ("SIMHOUND_SCREENSHOT_DIR") != NULL)
    {
      g_autofree char *png = g_build_filename (g_getenv ("SIMHOUND_SCREENSHOT_DIR"), "window-student.png", NULL);

      assert_int_equal (sim_test_ui_save_png (GTK_WIDGET (window), png), 0);
    }
  {
    SimComparison *cmp = SIM_COMPARISON (sim_window_get_comparison (window));
    GtkTextBuffer *src = sim_comparison_get_source (cmp);
    GtkTextIter a, b;
    g_autofree char *shown = NULL;

    gtk_text_buffer_get_bounds (src, &a, &b);
    shown = gtk_text_buffer_get_text (src, &a, &b, FALSE);
    assert_string_equal (shown, sim_report_source_withheld_note ());
    assert_non_null (strstr (sim_comparison_get_summary (cmp), "fingerprints both share"));
    /* Named as it was added: its title is its first line. */
    assert_non_null (strstr (sim_comparison_get_title (cmp), "keeper.txt"));
    assert_null (strstr (sim_comparison_get_title (cmp), "log"));
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

static gint64
server_documents (void)
{
  g_autofree char *uri = server_uri (NULL);
  PGconn *conn = PQconnectdb (uri);
  PGresult *result = PQexec (conn, "SELECT count(*) FROM simhound.documents");
  const gint64 n = g_ascii_strtoll (PQgetvalue (result, 0, 0), NULL, 10);

  PQclear (result);
  PQfinish (conn);
  return n;
}

static void
superuser_command (const char *sql)
{
  g_autofree char *uri = server_uri (NULL);
  PGconn *conn = PQconnectdb (uri);
  PGresult *result = PQexec (conn, sql);

  assert_int_equal (PQresultStatus (result), PGRES_COMMAND_OK);
  PQclear (result);
  PQfinish (conn);
}

static gboolean
listed (gpointer data)
{
  return !sim_corpus_window_is_loading (data);
}

static gboolean
not_removing (gpointer data)
{
  return !sim_corpus_window_is_removing (data);
}

static gboolean
server_has_two (gpointer data)
{
  return server_documents () == 2;
}

/* The corpus manager works against a server as against a store: a
 * writer lists, adds (through the window's import) and removes; a
 * reader's list has no Add, Re-scan or Remove. */
static void
test_corpus_manager_against_the_server (void **state)
{
  g_autofree char *writer_uri = server_uri (NULL);
  g_autofree char *reader_uri = g_strdup_printf ("postgresql://teacher@%s:%s/postgres",
                                                 g_getenv ("SIMHOUND_TEST_PG_HOST"), g_getenv ("SIMHOUND_TEST_PG_PORT"));
  g_autofree char *folder = g_build_filename (dir, "harbour-notes", NULL);
  const char *paths[] = { folder, NULL };
  SimWindow *window = sim_window_new (NULL, writer_uri);
  SimCorpusWindow *cw;

  superuser_command ("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'teacher') THEN"
                     "  CREATE ROLE teacher LOGIN IN ROLE simhound_reader; END IF; END $$");
  assert_int_equal (server_documents (), 2);
  gtk_window_present (GTK_WINDOW (window));
  sim_test_spin_until (not_busy, window, 30);
  assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.manage-corpus", NULL));
  cw = SIM_CORPUS_WINDOW (sim_window_get_corpus_window (window));
  assert_non_null (cw);
  sim_test_spin_until (listed, cw, 30);
  assert_int_equal (sim_corpus_window_get_n_documents (cw), 2);
  assert_true (gtk_widget_get_visible (sim_test_ui_find_actionable (gtk_window_get_titlebar (GTK_WINDOW (cw)),
                                                                     "corpus.remove")));

  /* Added through the window's import: on the server, and in the list. */
  g_free (sim_test_write_file (folder, "spring.txt", "The spring tides flooded the quay twice in April.\n", -1));
  sim_window_add_documents (window, paths);
  assert_true (sim_window_is_busy (window));
  sim_test_spin_until (not_busy, window, 60);
  assert_int_equal (server_documents (), 3);
  sim_test_spin_until (listed, cw, 30);
  assert_int_equal (sim_corpus_window_get_n_documents (cw), 3);

  /* Removed from the list, then from the server. */
  {
    GtkSelectionModel *selection = sim_corpus_window_get_selection (cw);
    gboolean found = FALSE;

    for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (selection)) && !found; i++)
      {
        g_autoptr(GtkTreeListRow) row = g_list_model_get_item (G_LIST_MODEL (selection), i);
        g_autoptr(GObject) item = gtk_tree_list_row_get_item (row);

        if (SIM_IS_FOLDER_ROW (item) && g_str_has_suffix (sim_folder_row_get_path (SIM_FOLDER_ROW (item)), "harbour-notes"))
          found = gtk_selection_model_select_item (selection, i, TRUE);
      }
    assert_true (found);
  }
  gtk_widget_activate_action (GTK_WIDGET (cw), "corpus.remove", NULL);
  assert_int_equal (sim_corpus_window_get_n_documents (cw), 2);
  sim_corpus_window_commit_removals (cw);
  sim_test_spin_until (not_removing, cw, 30);
  sim_test_spin_until (server_has_two, NULL, 30);
  assert_int_equal (server_documents (), 2);
  gtk_window_destroy (GTK_WINDOW (window));

  /* A reader: checks, lists, changes nothing. */
  window = sim_window_new (NULL, reader_uri);
  gtk_window_present (GTK_WINDOW (window));
  sim_test_spin_until (not_busy, window, 30);
  assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.manage-corpus", NULL));
  cw = SIM_CORPUS_WINDOW (sim_window_get_corpus_window (window));
  sim_test_spin_until (listed, cw, 30);
  if (g_getenv ("SIMHOUND_SCREENSHOT_DIR") != NULL)
    {
      g_autofree char *png = g_build_filename (g_getenv ("SIMHOUND_SCREENSHOT_DIR"), "corpus-server-reader.png", NULL);

      assert_int_equal (sim_test_ui_save_png (GTK_WIDGET (cw), png), 0);
    }
  assert_non_null (strstr (sim_window_get_read_only_message (window), "not add or remove"));
  assert_int_equal (sim_corpus_window_get_n_documents (cw), 2);
  assert_false (gtk_widget_get_visible (sim_test_ui_find_actionable (gtk_window_get_titlebar (GTK_WINDOW (cw)),
                                                                      "corpus.remove")));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_preference_and_test_connection),
    cmocka_unit_test (test_window_checks_through_the_server),
    cmocka_unit_test (test_student_sees_where_not_what),
    cmocka_unit_test (test_corpus_manager_against_the_server),
  };

  if (g_getenv ("SIMHOUND_TEST_PG") == NULL)
    {
      g_printerr ("SIMHOUND_TEST_PG is not set: run through tests/server/with-postgres.sh (meson test does)\n");
      return 1;
    }
  sim_test_ui_init ();
  return cmocka_run_group_tests (tests, setup, teardown);
}
