/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session without a display: a report belongs to one text (issue 31,
 * fault 1), a report is named after its file (fault 2), the choices make
 * new views of the same report, and a check that finishes after an edit
 * is stale.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>

#include "sim-corpus.h"
#include "sim-export.h"
#include "sim-report-json.h"
#include "sim-session.h"
#include "sim-test-util.h"

#define COPY "The lighthouse keeper climbed the spiral stairs every evening to light the great lamp."
#define OWN "Our class walked along the river on a cold morning and counted the herons we saw."

typedef struct {
  char              *dir;
  SimCorpusSnapshot *snapshot;
  SimSession        *session;
  guint              n_views;   /* notify::view seen */
  gboolean           done;
  gboolean           ok;
} Fixture;

static void
on_view (SimSession *session,
         GParamSpec *pspec,
         Fixture    *f)
{
  f->n_views++;
}

static int
setup (void **state)
{
  Fixture *f = g_new0 (Fixture, 1);
  g_autofree char *docs = NULL, *store = NULL;
  const char *paths[2] = { NULL, NULL };
  g_autoptr(SimCorpus) corpus = NULL;
  g_autoptr(SimImportResult) result = NULL;

  f->dir = sim_test_make_tmp_dir ();
  docs = g_build_filename (f->dir, "docs", NULL);
  store = g_build_filename (f->dir, "store.db", NULL);
  g_free (sim_test_write_file (docs, "lighthouse.txt", COPY "\n", -1));
  paths[0] = docs;
  corpus = sim_corpus_open (store, FALSE, NULL);
  assert_non_null (corpus);
  result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL);
  assert_int_equal (result->n_added, 1);
  f->snapshot = sim_corpus_ref_snapshot (corpus);
  f->session = sim_session_new ();
  sim_session_set_snapshot (f->session, f->snapshot);
  g_signal_connect (f->session, "notify::view", G_CALLBACK (on_view), f);
  *state = f;
  return 0;
}

static int
teardown (void **state)
{
  Fixture *f = *state;

  g_object_unref (f->session);
  sim_corpus_snapshot_unref (f->snapshot);
  sim_test_remove_tree (f->dir);
  g_free (f->dir);
  g_free (f);
  return 0;
}

static void
on_checked (GObject      *source,
            GAsyncResult *result,
            gpointer      data)
{
  Fixture *f = data;

  f->ok = sim_session_check_finish (SIM_SESSION (source), result, NULL);
  f->done = TRUE;
}

static gboolean
is_done (gpointer data)
{
  return ((Fixture *) data)->done;
}

static void
check (Fixture    *f,
       const char *text)
{
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;

  f->done = f->ok = FALSE;
  sim_session_check_async (f->session, text, &options, NULL, NULL, NULL, NULL, on_checked, f);
  sim_test_spin_until (is_done, f, 60);
  assert_true (f->done);
  assert_true (f->ok);
}

/* Check essay A, then open essay B: nothing of A's report is left to show
 * against B. */
static void
test_opening_another_text_drops_the_report (void **state)
{
  Fixture *f = *state;
  g_autoptr(GFile) a = g_file_new_for_path ("/essays/essay-a.txt");
  g_autoptr(GFile) b = g_file_new_for_path ("/essays/essay-b.txt");
  g_autoptr(SimReportView) kept = NULL;

  sim_session_open_text (f->session, a, NULL, NULL);
  check (f, OWN " " COPY);
  assert_non_null (sim_session_get_view (f->session));
  assert_true (sim_report_view_get_similarity (sim_session_get_view (f->session)) > 0.3);
  /* An export thread may still hold the view: it stays whole. */
  kept = sim_report_view_ref (sim_session_get_view (f->session));

  sim_session_open_text (f->session, b, NULL, NULL);
  assert_null (sim_session_get_report (f->session));
  assert_null (sim_session_get_view (f->session));
  assert_false (sim_session_is_stale (f->session));
  assert_string_equal (sim_session_get_name (f->session), "essay-b.txt");
  assert_true (sim_report_view_get_similarity (kept) > 0.3);
}

/* Editing makes the report stale: it stays, but no view claims a match. */
static void
test_an_edit_makes_the_report_stale (void **state)
{
  Fixture *f = *state;
  guint before;

  sim_session_open_text (f->session, NULL, NULL, NULL);
  check (f, OWN " " COPY);
  assert_non_null (sim_session_get_view (f->session));
  before = f->n_views;
  sim_session_text_edited (f->session);
  assert_true (sim_session_is_stale (f->session));
  assert_non_null (sim_session_get_report (f->session));
  assert_null (sim_session_get_view (f->session));
  assert_int_equal (f->n_views, before + 1);
  /* Choices change nothing while it is stale. */
  sim_session_set_exclusions (f->session, TRUE, TRUE, 0);
  assert_null (sim_session_get_view (f->session));
  /* A new check of the text as it is now shows again. */
  check (f, OWN);
  assert_false (sim_session_is_stale (f->session));
  assert_non_null (sim_session_get_view (f->session));
}

/* A check of a text that is edited before it finishes comes back stale. */
static void
test_a_check_overtaken_by_an_edit_is_stale (void **state)
{
  Fixture *f = *state;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;

  sim_session_open_text (f->session, NULL, NULL, NULL);
  f->done = f->ok = FALSE;
  sim_session_check_async (f->session, OWN " " COPY, &options, NULL, NULL, NULL, NULL, on_checked, f);
  sim_session_text_edited (f->session);
  sim_test_spin_until (is_done, f, 60);
  assert_true (f->ok);
  assert_non_null (sim_session_get_report (f->session));
  assert_true (sim_session_is_stale (f->session));
  assert_null (sim_session_get_view (f->session));
}

/* The report is named after its file, so its exports say which essay
 * they are about; with no file they say nothing of a name. */
static void
test_the_report_names_its_file (void **state)
{
  Fixture *f = *state;
  g_autoptr(GFile) file = g_file_new_for_path ("/essays/daniel-lighthouses.docx");
  g_autofree char *html = NULL;

  sim_session_open_text (f->session, file, NULL, NULL);
  check (f, OWN " " COPY);
  assert_string_equal (sim_report_get_name (sim_session_get_report (f->session)), "daniel-lighthouses.docx");
  html = sim_export_html (sim_session_get_view (f->session));
  assert_non_null (strstr (html, "<title>daniel-lighthouses.docx"));
}

/* Each choice is a new view of the same report; a saved report opens
 * with a view and no check. */
static void
test_choices_make_new_views_of_one_report (void **state)
{
  Fixture *f = *state;
  SimReport *report;
  SimReportView *first;
  g_autofree char *saved = NULL;
  g_autoptr(SimReport) reopened = NULL;
  const char *text = OWN " “" COPY "”";

  sim_session_open_text (f->session, NULL, NULL, NULL);
  check (f, text);
  report = sim_session_get_report (f->session);
  first = sim_session_get_view (f->session);
  assert_true (sim_report_view_get_similarity (first) > 0.3);
  sim_session_set_exclusions (f->session, TRUE, FALSE, 0);
  assert_true (sim_session_get_report (f->session) == report);
  assert_true (sim_session_get_view (f->session) != first);
  assert_float_equal (sim_report_view_get_similarity (sim_session_get_view (f->session)), 0, 1e-6);
  sim_session_set_exclusions (f->session, FALSE, FALSE, 0);
  sim_session_set_source_counted (f->session, sim_report_get_source (report, 0)->doc_id, FALSE);
  assert_false (sim_session_is_source_counted (f->session, sim_report_get_source (report, 0)->doc_id));
  assert_float_equal (sim_report_view_get_similarity (sim_session_get_view (f->session)), 0, 1e-6);
  sim_session_set_source_counted (f->session, sim_report_get_source (report, 0)->doc_id, TRUE);
  sim_session_set_template (f->session, "Write about this: " COPY);
  assert_float_equal (sim_report_view_get_similarity (sim_session_get_view (f->session)), 0, 1e-6);
  sim_session_set_template (f->session, NULL);
  assert_float_equal (sim_report_view_get_similarity (sim_session_get_view (f->session)),
                      sim_report_get_similarity (report), 1e-6);

  saved = sim_report_to_saved_json (report);
  reopened = sim_report_from_saved_json (saved, -1, NULL);
  assert_non_null (reopened);
  sim_session_open_text (f->session, NULL, NULL, reopened);
  assert_true (sim_session_get_report (f->session) == reopened);
  assert_non_null (sim_session_get_view (f->session));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_opening_another_text_drops_the_report, setup, teardown),
    cmocka_unit_test_setup_teardown (test_an_edit_makes_the_report_stale, setup, teardown),
    cmocka_unit_test_setup_teardown (test_a_check_overtaken_by_an_edit_is_stale, setup, teardown),
    cmocka_unit_test_setup_teardown (test_the_report_names_its_file, setup, teardown),
    cmocka_unit_test_setup_teardown (test_choices_make_new_views_of_one_report, setup, teardown),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
