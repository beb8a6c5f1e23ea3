/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The corpus server's schema and roles, against a throwaway PostgreSQL
 * cluster (tests/server/with-postgres.sh sets SIMHOUND_TEST_PG).
 */
#include "config.h"

#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include <libpq-fe.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "sim-backend.h"
#include "sim-check.h"
#include "sim-corpus.h"
#include "sim-error.h"
#include "sim-server.h"
#include "sim-server-private.h"
#include "sim-store.h"
#include "sim-test-util.h"
#include "sim-window-codec.h"

#define ESSAY   "Salt marshes store carbon faster than any forest we measured on the estuary."
#define READING "The tide tables for the northern harbour are printed every spring."

static char *
uri_for (const char *user)
{
  return g_strdup_printf ("postgresql://%s@%s:%s/postgres", user, g_getenv ("SIMHOUND_TEST_PG_HOST"),
                          g_getenv ("SIMHOUND_TEST_PG_PORT"));
}

/* Runs @sql as the superuser in database @db; its first value, or NULL. */
static char *
superuser_in (const char *db,
              const char *sql)
{
  g_autofree char *uri = g_strdup_printf ("postgresql://postgres@%s:%s/%s", g_getenv ("SIMHOUND_TEST_PG_HOST"),
                                          g_getenv ("SIMHOUND_TEST_PG_PORT"), db);
  PGconn *conn = PQconnectdb (uri);
  PGresult *result;
  char *value = NULL;

  assert_int_equal (PQstatus (conn), CONNECTION_OK);
  result = PQexec (conn, sql);
  if (PQresultStatus (result) != PGRES_COMMAND_OK && PQresultStatus (result) != PGRES_TUPLES_OK)
    fail_msg ("%s: %s", sql, PQresultErrorMessage (result));
  if (PQresultStatus (result) == PGRES_TUPLES_OK && PQntuples (result) > 0)
    value = g_strdup (PQgetvalue (result, 0, 0));
  PQclear (result);
  PQfinish (conn);
  return value;
}

/* The same in the cluster's database "postgres". */
static char *
superuser (const char *sql)
{
  return superuser_in ("postgres", sql);
}


static SimServer *
connect_as (const char *user)
{
  g_autofree char *uri = uri_for (user);
  g_autoptr(GError) error = NULL;
  SimServer *server = sim_server_connect (uri, &error);

  if (server == NULL)
    fail_msg ("%s: %s", uri, error->message);
  return server;
}


static void
ensure_roles (void)
{
  g_free (superuser ("DO $$ BEGIN"
                     "  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'alice') THEN"
                     "    CREATE ROLE alice LOGIN IN ROLE simhound_student;"
                     "    CREATE ROLE tom LOGIN IN ROLE simhound_reader;"
                     "    CREATE ROLE wendy LOGIN IN ROLE simhound_writer; END IF; END $$"));
}

static const char *const words[] = {
  "harbour", "lantern", "meadow", "granite", "orchard", "thunder", "violet", "copper", "willow", "canyon",
  "ember", "glacier", "marble", "prairie", "saffron", "tundra", "velvet", "walnut", "zephyr", "quarry",
  "bramble", "cobalt", "dune", "fjord", "heather", "juniper", "kelp", "lagoon", "moss", "nectar",
};

/* @n text files in @dir, each a sentence of its own made from @seed. */
static void
write_documents (const char *dir,
                 guint       n,
                 guint       seed)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);

  for (guint i = 0; i < n; i++)
    {
      g_autoptr(GString) text = g_string_new (NULL);
      g_autofree char *name = g_strdup_printf ("essay-%03u.txt", i);

      g_string_append_printf (text, "Essay %u of %u.", i, seed);
      for (guint s = 0; s < 6; s++)
        {
          g_string_append (text, " The");
          for (guint w = 0; w < 9; w++)
            g_string_append_printf (text, " %s", words[g_rand_int_range (rand, 0, G_N_ELEMENTS (words))]);
          g_string_append (text, ".");
        }
      g_string_append_c (text, '\n');
      g_free (sim_test_write_file (dir, name, text->str, -1));
    }
}

/* The feature statistics summed over every bucket. */
static guint64
df_total (void)
{
  PGconn *conn = PQconnectdb (g_getenv ("SIMHOUND_TEST_PG"));
  PGresult *result = PQexecParams (conn, "SELECT counts FROM simhound.df", 0, NULL, NULL, NULL, NULL, 1);
  guint64 total = 0;

  assert_int_equal (PQresultStatus (result), PGRES_TUPLES_OK);
  for (int r = 0; r < PQntuples (result); r++)
    {
      g_autofree guint32 *counts = sim_store_unpack_df (PQgetvalue (result, r, 0), PQgetlength (result, r, 0),
                                                        SIM_SERVER_DF_CHUNK);

      assert_non_null (counts);
      for (guint k = 0; k < SIM_SERVER_DF_CHUNK; k++)
        total += counts[k];
    }
  PQclear (result);
  PQfinish (conn);
  return total;
}

static gint64
n_documents (void)
{
  g_autofree char *n = superuser ("SELECT count(*) FROM simhound.documents");

  return g_ascii_strtoll (n, NULL, 10);
}

/* A check's counts of the documents and their windows (the tallies
 * kept as documents come and go) are the table's. */
static void
assert_tallies_match (const char *database)
{
  g_autofree char *uri = NULL;
  g_autofree char *counted = superuser_in (database, "SELECT count(*) || ' ' || coalesce (sum (n_windows), 0)"
                                                     " FROM simhound.documents");
  g_autofree char *tallied = NULL;
  g_autoptr(SimCorpusSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) base = g_string_new (g_getenv ("SIMHOUND_TEST_PG"));

  /* The superuser's URI, in @database. */
  g_string_truncate (base, strrchr (base->str, '/') - base->str);
  uri = g_strdup_printf ("%s/%s", base->str, database);
  snapshot = sim_server_snapshot_new (uri, &error);
  assert_non_null (snapshot);
  tallied = g_strdup_printf ("%u %" G_GSIZE_FORMAT, sim_corpus_snapshot_get_n_documents (snapshot),
                             sim_corpus_snapshot_get_n_windows (snapshot));
  assert_string_equal (tallied, counted);
}

static int
setup_schema (void **state)
{
  g_autoptr(SimServer) server = connect_as ("postgres");
  g_autoptr(GError) error = NULL;

  if (!sim_server_init (server, &error))
    fail_msg ("init: %s", error->message);
  return 0;
}

/* How many row security policies of the corpus hold a subquery: Citus
 * refuses to distribute a table that has one (the texts, with
 * `server init --citus`). */
#define POLICIES_WITH_SUBQUERIES \
  "SELECT count(*) FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid" \
  " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'simhound'" \
  " AND (p.polqual::text LIKE '%{SUBLINK %' OR coalesce (p.polwithcheck::text, '') LIKE '%{SUBLINK %')"

/* init twice changes nothing; the version is this client's. */
static void
test_init_is_idempotent (void **state)
{
  g_autoptr(SimServer) server = connect_as ("postgres");
  g_autoptr(GError) error = NULL;
  g_autofree char *before = superuser ("SELECT count(*) FROM pg_policies WHERE schemaname = 'simhound'");
  g_autofree char *after = NULL;
  g_autofree char *collections = NULL;
  guint version = 0;

  assert_true (sim_server_init (server, &error));
  assert_true (sim_server_init (server, &error));
  assert_true (sim_server_get_version (server, &version, &error));
  assert_int_equal (version, SIM_SERVER_SCHEMA_VERSION);
  assert_true (sim_server_check_schema (server, &error));
  after = superuser ("SELECT count(*) FROM pg_policies WHERE schemaname = 'simhound'");
  assert_string_equal (before, after);
  assert_string_equal (after, "3");
  g_free (after);
  after = superuser (POLICIES_WITH_SUBQUERIES);
  assert_string_equal (after, "0");
  collections = superuser ("SELECT count(*) FROM simhound.collections");
  assert_string_equal (collections, "1");
  /* Packed columns compressed by lz4 (Debian's server has it), not pglz:
   * the texts, the statistics' chunks, every partition of the lookup table. */
  g_free (after);
  after = superuser ("SELECT string_agg (DISTINCT a.attcompression::text, ',') || ' ' || count(*)"
                     " FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid"
                     " JOIN pg_namespace n ON n.oid = c.relnamespace"
                     " WHERE n.nspname = 'simhound' AND c.relkind = 'r'"
                     "   AND ((c.relname = 'texts' AND a.attname = 'body') OR (c.relname = 'df' AND a.attname = 'counts')"
                     "        OR (c.relname LIKE 'postings\\_%' AND a.attname = 'data'))");
  {
    g_autofree char *expected = g_strdup_printf ("l %u", 2 + SIM_SERVER_PARTITIONS);

    assert_string_equal (after, expected);
  }
  for (guint i = 0; i < 3; i++)
    {
      const char *roles[] = { "simhound_writer", "simhound_reader", "simhound_student" };
      g_autofree char *sql = g_strdup_printf ("SELECT rolcanlogin FROM pg_roles WHERE rolname = '%s'", roles[i]);
      g_autofree char *login = superuser (sql);

      assert_string_equal (login, "f");
    }
}

/* A schema newer than the client knows is refused, naming both versions;
 * init and upgrade leave it alone. */
static void
test_newer_schema_is_refused (void **state)
{
  g_autoptr(SimServer) server = connect_as ("postgres");
  g_autoptr(GError) error = NULL;
  g_autofree char *newer = g_strdup_printf ("%u", SIM_SERVER_SCHEMA_VERSION + 1);
  g_autofree char *older = g_strdup_printf ("%u", SIM_SERVER_SCHEMA_VERSION);
  g_autofree char *set = g_strdup_printf ("UPDATE simhound.meta SET value = '%s' WHERE key = 'schema_version'", newer);
  g_autofree char *still = NULL;

  g_free (superuser (set));
  assert_false (sim_server_check_schema (server, &error));
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_STORE_TOO_NEW));
  assert_non_null (strstr (error->message, newer));
  assert_non_null (strstr (error->message, older));
  g_clear_error (&error);
  assert_false (sim_server_init (server, &error));
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_STORE_TOO_NEW));
  g_clear_error (&error);
  assert_false (sim_server_upgrade (server, &error));
  g_clear_error (&error);
  still = superuser ("SELECT value FROM simhound.meta WHERE key = 'schema_version'");
  assert_string_equal (still, newer);
  g_free (set);
  set = g_strdup_printf ("UPDATE simhound.meta SET value = '%s' WHERE key = 'schema_version'", older);
  g_free (superuser (set));
  assert_true (sim_server_check_schema (server, &error));
}

/* An empty database: the check says to run init, upgrade refuses. */
static void
test_missing_schema_says_run_init (void **state)
{
  g_autofree char *uri = NULL;
  g_autoptr(SimServer) server = NULL;
  g_autoptr(GError) error = NULL;

  g_free (superuser ("DROP DATABASE IF EXISTS empty"));
  g_free (superuser ("CREATE DATABASE empty"));
  uri = g_strdup_printf ("postgresql://postgres@%s:%s/empty", g_getenv ("SIMHOUND_TEST_PG_HOST"),
                         g_getenv ("SIMHOUND_TEST_PG_PORT"));
  server = sim_server_connect (uri, &error);
  assert_non_null (server);
  assert_false (sim_server_check_schema (server, &error));
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_STORE));
  assert_non_null (strstr (error->message, "server init"));
  g_clear_error (&error);
  assert_false (sim_server_upgrade (server, &error));
  assert_non_null (strstr (error->message, "server init"));
}

/* The roles: a reader reads texts and writes nothing; a student reads no
 * text but a readable collection's, whatever it asks and with pg_dump. */
static void
test_roles_are_enforced_by_the_server (void **state)
{
  g_autoptr(SimServer) reader = NULL;
  g_autoptr(SimServer) student = NULL;
  g_autoptr(SimServerStatus) status = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *count = NULL;
  g_autofree char *dump = NULL;
  g_autofree char *dump_err = NULL;
  g_autofree char *student_uri = uri_for ("alice");
  g_autofree char *reader_uri = uri_for ("tom");
  PGconn *conn;
  PGresult *result;
  int wait_status = 0;

  ensure_roles ();
  g_free (superuser ("INSERT INTO simhound.collections (name, students_read) VALUES ('readings', true)"
                     " ON CONFLICT (name) DO NOTHING"));
  g_free (superuser ("WITH d AS (INSERT INTO simhound.documents (content_hash, name, title, collection_id, n_chars,"
                     "    n_bytes, n_windows, modified_at)"
                     "  SELECT 'x01', 'essay.txt', 'Salt marshes', id, 77, 77, 1, 0 FROM simhound.collections"
                     "  WHERE name = 'default' RETURNING id),"
                     "  tally AS (INSERT INTO simhound.tallies VALUES (1, 1, now()))"
                     " INSERT INTO simhound.texts SELECT id, '" ESSAY "' FROM d"));
  g_free (superuser ("WITH d AS (INSERT INTO simhound.documents (content_hash, name, title, collection_id, n_chars,"
                     "    n_bytes, n_windows, modified_at)"
                     "  SELECT 'x02', 'tides.txt', 'Tides', id, 66, 66, 1, 0 FROM simhound.collections"
                     "  WHERE name = 'readings' RETURNING id),"
                     "  tally AS (INSERT INTO simhound.tallies VALUES (1, 1, now()))"
                     " INSERT INTO simhound.texts SELECT id, '" READING "' FROM d"));

  /* The reader: the status names its role; a write is refused, nothing written. */
  reader = connect_as ("tom");
  status = sim_server_get_status (reader, &error);
  assert_non_null (status);
  assert_string_equal (status->role, "reader");
  assert_true (status->n_documents >= 2);
  g_clear_pointer (&status, sim_server_status_free);
  conn = PQconnectdb (reader_uri);
  result = PQexec (conn, "SELECT count(*) FROM simhound.texts WHERE body = '" ESSAY "'");
  assert_string_equal (PQgetvalue (result, 0, 0), "1");
  PQclear (result);
  result = PQexec (conn, "DELETE FROM simhound.texts");
  assert_int_equal (PQresultStatus (result), PGRES_FATAL_ERROR);
  assert_string_equal (PQresultErrorField (result, PG_DIAG_SQLSTATE), "42501");
  PQclear (result);
  PQfinish (conn);
  count = superuser ("SELECT count(*) FROM simhound.texts WHERE body IN ('" ESSAY "', '" READING "')");
  assert_string_equal (count, "2");

  /* The student: sees both documents exist, reads only the reading. */
  student = connect_as ("alice");
  status = sim_server_get_status (student, &error);
  assert_non_null (status);
  assert_string_equal (status->role, "student");
  conn = PQconnectdb (student_uri);
  result = PQexec (conn, "SELECT string_agg(body, ' ') FROM simhound.texts");
  assert_string_equal (PQgetvalue (result, 0, 0), READING);
  PQclear (result);
  result = PQexec (conn, "SELECT count(*) FROM simhound.texts WHERE body LIKE '%marsh%'");
  assert_string_equal (PQgetvalue (result, 0, 0), "0");
  PQclear (result);
  result = PQexec (conn, "UPDATE simhound.collections SET students_read = true");
  assert_int_equal (PQresultStatus (result), PGRES_FATAL_ERROR);
  PQclear (result);
  /* Nor a title (often the first line), but through documents_of(): the
   * name added under, and the reading's own. */
  result = PQexec (conn, "SELECT title FROM simhound.documents");
  assert_int_equal (PQresultStatus (result), PGRES_FATAL_ERROR);
  assert_string_equal (PQresultErrorField (result, PG_DIAG_SQLSTATE), "42501");
  PQclear (result);
  result = PQexec (conn, "SELECT string_agg (title, '|' ORDER BY title) FROM simhound.documents_of"
                         " (ARRAY (SELECT id FROM simhound.documents WHERE name IN ('essay.txt', 'tides.txt')))");
  assert_string_equal (PQgetvalue (result, 0, 0), "Tides|essay.txt");
  PQclear (result);
  PQfinish (conn);

  /* pg_dump as the student yields no essay text (it refuses, or dumps what
   * the student may read). */
  {
    const char *argv[] = { "pg_dump", "--schema", "simhound", "--data-only", "-d", student_uri, NULL };

    assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &dump, &dump_err,
                               &wait_status, &error));
    assert_null (strstr (dump, "marshes store carbon"));
    assert_null (strstr (dump_err, "marshes store carbon"));
  }
}


/* Files and folders added as a local import adds them: each under the
 * folder's name and its path below it, its text kept whole; again,
 * nothing changes; the feature statistics count each document once. */
static void
test_add_stores_each_file_once (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *class_dir = g_build_filename (dir, "class-7b", NULL);
  g_autofree char *lone = NULL;
  g_autoptr(SimServer) server = connect_as ("postgres");
  g_autoptr(SimImportResult) first = NULL;
  g_autoptr(SimImportResult) again = NULL;
  g_autoptr(GPtrArray) docs = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *body = NULL;
  const gint64 before = n_documents ();
  const char *paths[3] = { class_dir, NULL, NULL };
  gboolean named = FALSE;
  guint64 df_before, df_after_first;

  write_documents (class_dir, 5, 1);
  lone = sim_test_write_file (dir, "notes.txt", "A note of its own about granite quarries and copper mines.\n", -1);
  paths[1] = lone;
  df_before = df_total ();
  first = sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error);
  assert_null (error);
  df_after_first = df_total ();
  assert_int_equal (first->n_added, 6);
  assert_int_equal (first->n_failed, 0);
  assert_int_equal (n_documents (), before + 6);
  again = sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error);
  assert_int_equal (again->n_added, 0);
  assert_int_equal (again->n_unchanged, 6);
  assert_int_equal (n_documents (), before + 6);
  docs = sim_server_list (server, &error);
  assert_non_null (docs);
  for (guint i = 0; i < docs->len; i++)
    {
      const SimStoreDocument *doc = g_ptr_array_index (docs, i);

      if (g_str_equal (doc->path, "class-7b/essay-003.txt"))
        {
          named = TRUE;
          assert_true (doc->n_anchors > 0);
          assert_true (g_str_has_prefix (doc->title, "Essay 3 of 1. The "));
        }
    }
  assert_true (named);
  body = superuser ("SELECT body FROM simhound.texts t JOIN simhound.documents d ON d.id = t.doc_id"
                    " WHERE d.name = 'notes.txt'");
  assert_string_equal (body, "A note of its own about granite quarries and copper mines.\n");
  /* Each of the six documents added one to the bucket of each of its
   * features, the second add nothing. */
  assert_true (df_total () >= df_before + 6 * 20);
  assert_true (df_total () == df_after_first);
  /* A file new beside six already there: the batch's windows were made
   * before the server said which are new, and are made again for it
   * alone. A check of its text finds it whole, and the counts stand. */
  {
    static const char late_text[] =
      "A late essay on lighthouse keepers, their logbooks and the storms they recorded along the northern coast."
      " Every keeper wrote the wind, the tide and the ships that passed in a hand the next keeper could read."
      " Those books now sit in the county archive, where historians of shipping still read them.\n";
    g_autofree char *late = sim_test_write_file (class_dir, "late.txt", late_text, -1);
    g_autofree char *postings_before = superuser ("SELECT coalesce (sum (n_postings), 0) FROM simhound.runs");
    const guint64 df_before_late = df_total ();
    g_autoptr(SimImportResult) third = sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error);
    g_autofree char *postings_after = superuser ("SELECT coalesce (sum (n_postings), 0) FROM simhound.runs");
    g_autofree char *late_windows = superuser ("SELECT n_windows FROM simhound.documents WHERE name = 'class-7b/late.txt'");
    g_autofree char *uri = uri_for ("postgres");
    g_autoptr(SimCorpusSnapshot) snapshot = NULL;
    g_autoptr(SimReport) report = NULL;
    SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
    const SimPassage *passage;

    assert_non_null (third);
    assert_int_equal (third->n_added, 1);
    assert_int_equal (third->n_unchanged, 6);
    assert_int_equal (n_documents (), before + 7);
    assert_tallies_match ("postgres");
    /* Its windows alone went in (a merge may have joined the runs, but
     * keeps what documents are still there). */
    assert_true (g_ascii_strtoll (late_windows, NULL, 10) > 0);
    assert_int_equal (g_ascii_strtoll (postings_after, NULL, 10) - g_ascii_strtoll (postings_before, NULL, 10),
                      g_ascii_strtoll (late_windows, NULL, 10));
    /* And its features alone were counted: one for each distinct bucket. */
    {
      g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (SIM_NORMALIZE_FOLD_T2S);
      g_autoptr(GArray) buckets = _sim_distinct_buckets (fp, sim_fingerprinter_load (fp, late_text,
                                                                                     strlen (late_text))->n);

      assert_true (buckets->len > 20);
      assert_int_equal (df_total () - df_before_late, buckets->len);
    }
    snapshot = sim_server_snapshot_new (uri, &error);
    assert_non_null (snapshot);
    options.max_distance = 0;
    report = sim_check_run (snapshot, late_text, strlen (late_text), &options, NULL, NULL, NULL, &error);
    assert_non_null (report);
    assert_int_equal (sim_report_get_n_passages (report), 1);
    passage = sim_report_get_passage (report, 0);
    assert_true (passage->end - passage->start >= strlen (late_text) - 2);
    assert_true (passage->source_end - passage->source_start >= strlen (late_text) - 2);
  }
  sim_test_remove_tree (dir);
}

/* A reader's add: refused with the words a teacher understands, nothing written. */
static void
test_reader_may_not_add (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autoptr(SimServer) server = NULL;
  g_autoptr(SimImportResult) result = NULL;
  g_autoptr(GError) error = NULL;
  const char *paths[] = { dir, NULL };
  gint64 before;

  ensure_roles ();
  write_documents (dir, 3, 2);
  before = n_documents ();
  server = connect_as ("tom");
  result = sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error);
  assert_null (result);
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_NOT_ALLOWED));
  assert_non_null (strstr (error->message, "may check the corpus"));
  assert_int_equal (n_documents (), before);
  sim_test_remove_tree (dir);
}

/* Eight desktops adding at once: 200 documents each, and the same 20 all
 * of them: exactly 1,620 documents more, none twice, no error. */
static void
test_eight_writers_at_once (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *shared = g_build_filename (dir, "shared", NULL);
  g_autofree char *dupes = NULL;
  pid_t pids[8];
  gint64 before;

  ensure_roles ();
  write_documents (shared, 20, 99);
  for (guint w = 0; w < 8; w++)
    {
      g_autofree char *mine = g_strdup_printf ("%s/writer-%u", dir, w);

      write_documents (mine, 200, 1000 + w);
    }
  before = n_documents ();
  for (guint w = 0; w < 8; w++)
    {
      pids[w] = fork ();
      assert_true (pids[w] >= 0);
      if (pids[w] == 0)
        {
          g_autofree char *mine = g_strdup_printf ("%s/writer-%u", dir, w);
          const char *paths[] = { shared, mine, NULL };
          g_autofree char *uri = uri_for ("wendy");
          GError *error = NULL;
          SimServer *server = sim_server_connect (uri, &error);
          SimImportResult *result = server ? sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error) : NULL;

          if (result == NULL || result->n_failed > 0)
            {
              g_printerr ("writer %u: %s\n", w, error ? error->message : "failures");
              _exit (1);
            }
          _exit (result->n_added + result->n_unchanged == 220 ? 0 : 2);
        }
    }
  for (guint w = 0; w < 8; w++)
    {
      int status = 0;

      assert_int_equal (waitpid (pids[w], &status, 0), pids[w]);
      assert_true (WIFEXITED (status));
      assert_int_equal (WEXITSTATUS (status), 0);
    }
  assert_int_equal (n_documents (), before + 1620);
  assert_tallies_match ("postgres");
  dupes = superuser ("SELECT count(*) FROM (SELECT name FROM simhound.documents GROUP BY name, content_hash"
                     " HAVING count(*) > 1) d");
  assert_string_equal (dupes, "0");
  sim_test_remove_tree (dir);
}


/* Course readings added to a collection of their own: a student reads
 * them only once an administrator marks the collection readable, never
 * the essays beside them; a student cannot mark it. */
static void
test_students_read_marked_collections (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *readings = g_build_filename (dir, "readings", NULL);
  g_autofree char *essays = g_build_filename (dir, "essays", NULL);
  g_autofree char *student_uri = uri_for ("alice");
  g_autoptr(SimServer) writer = NULL;
  g_autoptr(SimServer) owner = connect_as ("postgres");
  g_autoptr(SimServer) student = NULL;
  g_autoptr(SimImportResult) r1 = NULL;
  g_autoptr(SimImportResult) r2 = NULL;
  g_autoptr(GError) error = NULL;
  const char *reading_paths[] = { readings, NULL };
  const char *essay_paths[] = { essays, NULL };
  PGconn *conn;
  PGresult *result;

  ensure_roles ();
  g_free (sim_test_write_file (readings, "tides.txt", "Spring tides follow the new and the full moon.\n", -1));
  g_free (sim_test_write_file (essays, "mine.txt", "My essay says the moon pulls the sea twice a day.\n", -1));
  writer = connect_as ("wendy");
  r1 = sim_server_add (writer, reading_paths, "course-readings", NULL, NULL, NULL, &error);
  assert_non_null (r1);
  assert_int_equal (r1->n_added, 1);
  r2 = sim_server_add (writer, essay_paths, NULL, NULL, NULL, NULL, &error);
  assert_non_null (r2);

  conn = PQconnectdb (student_uri);
  result = PQexec (conn, "SELECT count(*) FROM simhound.texts WHERE body LIKE 'Spring tides%'");
  assert_string_equal (PQgetvalue (result, 0, 0), "0");
  PQclear (result);

  student = connect_as ("alice");
  /* A student lists the corpus, an essay's title being the name it was
   * added under (its first line is the teacher's to read). */
  {
    g_autoptr(GPtrArray) as_student = sim_server_list (student, &error);
    g_autoptr(GPtrArray) as_owner = sim_server_list (owner, &error);

    guint found = 0;

    assert_non_null (as_student);
    assert_non_null (as_owner);
    /* Other tests' documents share this database. */
    assert_int_equal (as_student->len, as_owner->len);
    for (guint i = 0; i < as_student->len; i++)
      {
        const SimStoreDocument *s = g_ptr_array_index (as_student, i), *o = g_ptr_array_index (as_owner, i);

        assert_string_equal (s->path, o->path);
        if (g_str_has_suffix (s->path, "essays/mine.txt"))
          {
            assert_string_equal (s->title, s->path);
            assert_string_not_equal (o->title, o->path);
            found++;
          }
      }
    assert_int_equal (found, 1);
  }
  assert_false (sim_server_set_students_read (student, "course-readings", TRUE, &error));
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_NOT_ALLOWED));
  g_clear_error (&error);
  assert_false (sim_server_set_students_read (owner, "no-such-collection", TRUE, &error));
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);
  assert_true (sim_server_set_students_read (owner, "course-readings", TRUE, &error));

  result = PQexec (conn, "SELECT count(*) FROM simhound.texts WHERE body LIKE 'Spring tides%'");
  assert_string_equal (PQgetvalue (result, 0, 0), "1");
  PQclear (result);
  result = PQexec (conn, "SELECT count(*) FROM simhound.texts WHERE body LIKE 'My essay%'");
  assert_string_equal (PQgetvalue (result, 0, 0), "0");
  PQclear (result);
  PQfinish (conn);
  assert_true (sim_server_set_students_read (owner, "course-readings", FALSE, &error));
  sim_test_remove_tree (dir);
}


/* The connection lost in the middle of an add (the server ends the
 * backend, as when it is stopped): the add says so, the batches before
 * are kept, the open one is rolled back; running it again finishes the
 * job, nothing twice. */
static void
test_add_survives_a_lost_connection (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *class_dir = g_build_filename (dir, "big-class", NULL);
  g_autofree char *dupes = NULL;
  const char *paths[] = { class_dir, NULL };
  gint64 before, during = 0;
  int status = 0;
  pid_t pid;

  ensure_roles ();
  /* Some 24 MB of files: six batches of 4 MB. */
  g_setenv ("SIMHOUND_SERVER_BATCH_BYTES", "4194304", TRUE);
  {
    g_autoptr(GRand) rand = g_rand_new_with_seed (7);

    for (guint i = 0; i < 6000; i++)
      {
        g_autoptr(GString) text = g_string_new (NULL);
        g_autofree char *name = g_strdup_printf ("e%04u.txt", i);

        g_string_append_printf (text, "Essay number %u.", i);
        while (text->len < 4000)
          g_string_append_printf (text, " %s", words[g_rand_int_range (rand, 0, G_N_ELEMENTS (words))]);
        g_string_append (text, ".\n");
        g_free (sim_test_write_file (class_dir, name, text->str, -1));
      }
  }
  before = n_documents ();
  pid = fork ();
  assert_true (pid >= 0);
  if (pid == 0)
    {
      g_autofree char *uri = uri_for ("wendy");
      GError *error = NULL;
      SimServer *server = sim_server_connect (uri, &error);
      SimImportResult *result = server ? sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error) : NULL;

      if (result != NULL)
        _exit (3);   /* finished before the connection was ended */
      _exit (g_error_matches (error, SIM_ERROR, SIM_ERROR_SERVER) && strstr (error->message, "Lost the connection") &&
             !strpbrk (error->message, "\n\t") ? 0 : 4);
    }
  /* When the first batch is in, end the writer's connection. */
  for (guint i = 0; i < 3000 && during == 0; i++)
    {
      g_usleep (10000);
      during = n_documents () - before;
    }
  assert_true (during > 0);
  g_free (superuser ("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'wendy'"));
  assert_int_equal (waitpid (pid, &status, 0), pid);
  assert_true (WIFEXITED (status));
  assert_int_equal (WEXITSTATUS (status), 0);
  during = n_documents () - before;
  assert_true (during > 0 && during < 6000);
  {
    g_autoptr(SimServer) server = connect_as ("wendy");
    g_autoptr(GError) error = NULL;
    g_autoptr(SimImportResult) again = sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error);

    assert_non_null (again);
    assert_int_equal (again->n_added + again->n_unchanged, 6000);
    assert_int_equal (again->n_unchanged, during);
  }
  assert_int_equal (n_documents (), before + 6000);
  dupes = superuser ("SELECT count(*) FROM (SELECT 1 FROM simhound.documents GROUP BY name, content_hash"
                     " HAVING count(*) > 1) d");
  assert_string_equal (dupes, "0");
  sim_test_remove_tree (dir);
}


/* Removing by name or id, in one transaction: an unknown name removes
 * nothing; removing what an add added gives the statistics back exactly. */
static void
test_remove_gives_back_the_statistics (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *class_dir = g_build_filename (dir, "class-rm", NULL);
  g_autoptr(SimServer) server = NULL;
  g_autoptr(SimImportResult) added = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *id = NULL;
  const char *paths[] = { class_dir, NULL };
  const char *unknown[] = { "class-rm/essay-000.txt", "class-rm/no-such.txt", NULL };
  const guint64 df_before = df_total ();
  const gint64 before = n_documents ();
  guint n = 0;

  ensure_roles ();
  server = connect_as ("wendy");
  write_documents (class_dir, 4, 5);
  added = sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error);
  assert_non_null (added);
  assert_int_equal (added->n_added, 4);
  assert_true (df_total () > df_before);

  assert_false (sim_server_remove (server, unknown, &n, &error));
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT));
  assert_non_null (strstr (error->message, "no-such"));
  assert_int_equal (n, 0);
  assert_int_equal (n_documents (), before + 4);
  g_clear_error (&error);

  id = superuser ("SELECT id FROM simhound.documents WHERE name = 'class-rm/essay-001.txt'");
  {
    const char *some[] = { "class-rm/essay-000.txt", id, NULL };

    assert_true (sim_server_remove (server, some, &n, &error));
    assert_int_equal (n, 2);
    assert_int_equal (n_documents (), before + 2);
  }
  {
    const char *rest[] = { "class-rm/essay-002.txt", "class-rm/essay-003.txt", NULL };

    assert_true (sim_server_remove (server, rest, &n, &error));
    assert_int_equal (n, 2);
  }
  assert_int_equal (n_documents (), before);
  assert_tallies_match ("postgres");
  assert_true (df_total () == df_before);
  sim_test_remove_tree (dir);
}


/* A folder rescanned: a new file added, a changed one updated (its earlier
 * version gone), a deleted one removed, the rest unchanged. The same files
 * added again to another collection are not stored twice. */
static void
test_rescan_follows_the_folder (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *folder = g_build_filename (dir, "class-rescan", NULL);
  g_autofree char *gone = NULL;
  g_autofree char *changed = NULL;
  g_autofree char *names = NULL;
  g_autoptr(SimServer) server = NULL;
  g_autoptr(SimImportResult) first = NULL;
  g_autoptr(SimImportResult) other = NULL;
  g_autoptr(SimImportResult) again = NULL;
  g_autoptr(GError) error = NULL;
  const char *paths[] = { folder, NULL };

  ensure_roles ();
  server = connect_as ("wendy");
  write_documents (folder, 3, 11);
  first = sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error);
  assert_int_equal (first->n_added, 3);
  other = sim_server_add (server, paths, "other-school", NULL, NULL, NULL, &error);
  assert_int_equal (other->n_added, 0);   /* the same files: stored once */

  gone = g_build_filename (folder, "essay-000.txt", NULL);
  changed = g_build_filename (folder, "essay-001.txt", NULL);
  assert_int_equal (g_unlink (gone), 0);
  assert_true (g_file_set_contents (changed, "Essay 1 rewritten about the copper quarry and the meadow.\n", -1, NULL));
  g_free (sim_test_write_file (folder, "essay-new.txt", "A new essay on lagoons, kelp and the fjord in winter.\n", -1));

  again = sim_server_rescan (server, folder, NULL, NULL, NULL, NULL, &error);
  assert_non_null (again);
  assert_int_equal (again->n_added, 1);
  assert_int_equal (again->n_updated, 1);
  assert_int_equal (again->n_removed, 1);
  assert_int_equal (again->n_unchanged, 1);
  names = superuser ("SELECT string_agg(name, ',' ORDER BY name) FROM simhound.documents"
                     " WHERE name LIKE 'class-rescan/%'");
  assert_string_equal (names, "class-rescan/essay-001.txt,class-rescan/essay-002.txt,class-rescan/essay-new.txt");
  {
    g_autofree char *body = superuser ("SELECT body FROM simhound.texts t JOIN simhound.documents d ON d.id = t.doc_id"
                                       " WHERE d.name = 'class-rescan/essay-001.txt'");

    assert_true (g_str_has_prefix (body, "Essay 1 rewritten"));
  }
  sim_test_remove_tree (dir);
}

/* Every statement is bounded: the timeout goes with the connection (no
 * round trip of its own), and a connection string's own options win. */
static void
test_statements_are_bounded (void **state)
{
  g_autoptr(SimServer) server = connect_as ("postgres");
  g_autoptr(GError) error = NULL;
  g_autofree char *own = g_strdup_printf ("%s?options=-c%%20statement_timeout%%3D5000", g_getenv ("SIMHOUND_TEST_PG"));
  g_autoptr(SimServer) custom = NULL;
  PGresult *result = _sim_server_run (server, "SHOW statement_timeout", 0, NULL, &error);

  assert_non_null (result);
  assert_string_equal (PQgetvalue (result, 0, 0), "1min");
  PQclear (result);
  custom = sim_server_connect (own, &error);
  assert_non_null (custom);
  result = _sim_server_run (custom, "SHOW statement_timeout", 0, NULL, &error);
  assert_non_null (result);
  assert_string_equal (PQgetvalue (result, 0, 0), "5s");
  PQclear (result);
}

/* A server that is not there: SIM_ERROR_SERVER naming it, never the password. */
static void
test_unreachable_server_is_named (void **state)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimServer) server = NULL;
  /* A port nothing listens on: the test cluster's, plus one, refused at once. */
  const int port = atoi (g_getenv ("SIMHOUND_TEST_PG_PORT")) + 1;
  g_autofree char *uri = g_strdup_printf ("postgresql://bob:s3cret-pw@127.0.0.1:%d/school?connect_timeout=2", port);
  g_autofree char *name = g_strdup_printf ("127.0.0.1:%d/school", port);
  gint64 start = g_get_monotonic_time ();

  server = sim_server_connect (uri, &error);
  assert_null (server);
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_SERVER));
  assert_non_null (strstr (error->message, name));
  assert_null (strstr (error->message, "s3cret"));
  assert_true (g_get_monotonic_time () - start < 5 * G_USEC_PER_SEC);
  assert_true (sim_store_location_is_server (uri));
  assert_true (sim_store_location_is_server ("service=simhound"));
  assert_false (sim_store_location_is_server ("/home/me/corpus.db"));
}


/* ------------------------------------------------ checks through a server */

/* A database of its own on the test cluster, with the schema: the URI of
 * it for @user. */
static char *
fresh_database (const char *name,
                const char *user)
{
  g_autofree char *drop = g_strdup_printf ("DROP DATABASE IF EXISTS %s", name);
  g_autofree char *create = g_strdup_printf ("CREATE DATABASE %s", name);
  g_autofree char *owner = g_strdup_printf ("postgresql://postgres@%s:%s/%s", g_getenv ("SIMHOUND_TEST_PG_HOST"),
                                            g_getenv ("SIMHOUND_TEST_PG_PORT"), name);
  g_autoptr(SimServer) server = NULL;
  g_autoptr(GError) error = NULL;

  g_free (superuser (drop));
  g_free (superuser (create));
  server = sim_server_connect (owner, &error);
  assert_non_null (server);
  if (!sim_server_init (server, &error))
    fail_msg ("init: %s", error->message);
  return g_strdup_printf ("postgresql://%s@%s:%s/%s", user, g_getenv ("SIMHOUND_TEST_PG_HOST"),
                          g_getenv ("SIMHOUND_TEST_PG_PORT"), name);
}


/* The number @sql gives as the superuser in database @db. */
static gint64
value_in (const char *db,
          const char *sql)
{
  g_autofree char *v = superuser_in (db, sql);

  return g_ascii_strtoll (v, NULL, 10);
}

/* Documents not in the lookup table yet: not indexed (schema version 1)
 * or named by an add whose run is not written. */
#define N_WAITING "SELECT count(*) FROM simhound.documents d" \
                  " WHERE NOT d.indexed OR d.owner IN (SELECT owner FROM simhound.adds)"
/* The lookup table holds each document's postings once (in a database
 * where none was removed). */
#define POSTINGS_MATCH "SELECT (SELECT coalesce (sum (n_postings), 0) FROM simhound.runs)" \
                       " - (SELECT coalesce (sum (n_windows), 0) FROM simhound.documents)"

/* A child process adding @dir to @uri: exits 0 when it added @n files. */
static pid_t
add_in_child (const char *uri,
              const char *dir,
              gint64      n)
{
  const pid_t pid = fork ();

  assert_true (pid >= 0);
  if (pid == 0)
    {
      const char *paths[] = { dir, NULL };
      GError *error = NULL;
      SimServer *server = sim_server_connect (uri, &error);
      SimImportResult *result = server ? sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error) : NULL;

      if (result == NULL)
        g_printerr ("add: %s\n", error->message);
      _exit (result != NULL && result->n_added == n ? 0 : 1);
    }
  return pid;
}

/* An add's documents wait for its run, which it writes as it ends (the
 * test holds the lookup table locked meanwhile): while it runs, another
 * add leaves them to it; killed before it wrote the run, the next add
 * indexes them from their stored texts. Each time the lookup table ends
 * holding every document's postings once, and a check finds them. */
static void
test_documents_wait_for_their_add (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *first = g_build_filename (dir, "first", NULL);
  g_autofree char *second = g_build_filename (dir, "second", NULL);
  g_autofree char *uri = NULL;
  g_autofree char *owner_uri = g_strdup_printf ("postgresql://postgres@%s:%s/waiting", g_getenv ("SIMHOUND_TEST_PG_HOST"),
                                                g_getenv ("SIMHOUND_TEST_PG_PORT"));
  PGconn *locker;
  PGresult *locked;
  int status = 0;
  pid_t pid;

  ensure_roles ();
  uri = fresh_database ("waiting", "wendy");
  /* Several batches each. */
  g_setenv ("SIMHOUND_SERVER_BATCH_BYTES", "65536", TRUE);
  write_documents (first, 600, 21);
  write_documents (second, 400, 22);
  locker = PQconnectdb (owner_uri);
  assert_int_equal (PQstatus (locker), CONNECTION_OK);

  /* A running add's documents are not another's to index. */
  locked = PQexec (locker, "BEGIN; LOCK TABLE simhound.postings IN EXCLUSIVE MODE");
  assert_int_equal (PQresultStatus (locked), PGRES_COMMAND_OK);
  PQclear (locked);
  pid = add_in_child (uri, first, 600);
  for (guint i = 0; i < 3000 && value_in ("waiting", "SELECT count(*) FROM simhound.documents") < 600; i++)
    g_usleep (10000);
  assert_int_equal (value_in ("waiting", N_WAITING), 600);
  {
    g_autoptr(SimServer) other = sim_server_connect (uri, NULL);
    g_autoptr(GError) error = NULL;
    guint n = 99;

    assert_non_null (other);
    assert_true (sim_server_index_documents (other, &n, &error));
    assert_int_equal (n, 0);
  }
  locked = PQexec (locker, "COMMIT");
  PQclear (locked);
  assert_int_equal (waitpid (pid, &status, 0), pid);
  assert_true (WIFEXITED (status));
  assert_int_equal (WEXITSTATUS (status), 0);
  assert_int_equal (value_in ("waiting", N_WAITING), 0);
  assert_int_equal (value_in ("waiting", POSTINGS_MATCH), 0);

  /* Killed before its run: the next add indexes what it left. */
  locked = PQexec (locker, "BEGIN; LOCK TABLE simhound.postings IN EXCLUSIVE MODE");
  PQclear (locked);
  pid = add_in_child (uri, second, 400);
  for (guint i = 0; i < 3000 && value_in ("waiting", "SELECT count(*) FROM simhound.documents") < 1000; i++)
    g_usleep (10000);
  assert_int_equal (value_in ("waiting", N_WAITING), 400);
  assert_int_equal (kill (pid, SIGKILL), 0);
  assert_int_equal (waitpid (pid, &status, 0), pid);
  locked = PQexec (locker, "COMMIT");
  PQclear (locked);
  PQfinish (locker);
  /* Its session gone on the server too (and with it the lock it held). */
  for (guint i = 0; i < 3000 && value_in ("waiting", "SELECT count(*) FROM pg_stat_activity WHERE usename = 'wendy'"
                                                  " AND datname = 'waiting'") > 0; i++)
    g_usleep (10000);
  assert_int_equal (value_in ("waiting", N_WAITING), 400);
  {
    g_autoptr(SimServer) again = sim_server_connect (uri, NULL);
    g_autoptr(GError) error = NULL;
    const char *paths[] = { second, NULL };
    g_autoptr(SimImportResult) result = sim_server_add (again, paths, NULL, NULL, NULL, NULL, &error);
    g_autoptr(SimCorpusSnapshot) snapshot = NULL;
    g_autoptr(SimReport) report = NULL;
    g_autofree char *text = NULL;
    g_autofree char *path = g_build_filename (second, "essay-123.txt", NULL);
    SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;

    assert_non_null (result);
    assert_int_equal (result->n_unchanged, 400);
    assert_int_equal (value_in ("waiting", N_WAITING), 0);
    assert_int_equal (value_in ("waiting", POSTINGS_MATCH), 0);
    assert_true (g_file_get_contents (path, &text, NULL, NULL));
    snapshot = sim_server_snapshot_new (owner_uri, &error);
    assert_non_null (snapshot);
    report = sim_check_run (snapshot, text, strlen (text), &options, NULL, NULL, NULL, &error);
    assert_non_null (report);
    assert_true (sim_report_get_n_passages (report) >= 1);
    assert_true (g_str_has_suffix (sim_report_get_source (report, sim_report_get_passage (report, 0)->source)->path,
                                   "second/essay-123.txt"));
  }
  g_unsetenv ("SIMHOUND_SERVER_BATCH_BYTES");
  sim_test_remove_tree (dir);
}

/* No room beside the add for its postings (a file size limit stands in
 * for a full disk): the batches that could not keep theirs are rolled
 * back and named, the rest added and indexed; the add run again, with
 * room, adds exactly those. */
static void
test_add_without_room_beside_it (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *class_dir = g_build_filename (dir, "class", NULL);
  g_autofree char *uri = NULL;
  const char *paths[] = { class_dir, NULL };
  int status = 0, pipe_fds[2];
  guint child_added = 0, child_failed = 0;
  pid_t pid;

  ensure_roles ();
  uri = fresh_database ("noroom", "wendy");
  g_setenv ("SIMHOUND_SERVER_BATCH_BYTES", "65536", TRUE);
  write_documents (class_dir, 600, 31);
  assert_int_equal (pipe (pipe_fds), 0);
  pid = fork ();
  assert_true (pid >= 0);
  if (pid == 0)
    {
      struct rlimit limit = { 96 << 10, 96 << 10 };
      GError *error = NULL;
      SimServer *server = sim_server_connect (uri, &error);
      SimImportResult *result;
      char line[64];
      gboolean named = TRUE;

      signal (SIGXFSZ, SIG_IGN);
      setrlimit (RLIMIT_FSIZE, &limit);
      result = server ? sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error) : NULL;
      if (result == NULL)
        {
          g_printerr ("add: %s\n", error->message);
          _exit (1);
        }
      for (guint i = 0; i < result->failures->len; i++)
        named = named && strstr (g_ptr_array_index (result->failures, i), "its batch was rolled back") != NULL &&
                strstr (g_ptr_array_index (result->failures, i), "essay-") != NULL;
      g_snprintf (line, sizeof line, "%u %u\n", result->n_added, result->n_failed);
      if (write (pipe_fds[1], line, strlen (line)) < 0 || !named)
        _exit (2);
      _exit (0);
    }
  close (pipe_fds[1]);
  {
    char line[64] = { 0 };
    gssize n = read (pipe_fds[0], line, sizeof line - 1);

    close (pipe_fds[0]);
    assert_true (n > 0);
    assert_int_equal (sscanf (line, "%u %u", &child_added, &child_failed), 2);
  }
  assert_int_equal (waitpid (pid, &status, 0), pid);
  assert_true (WIFEXITED (status));
  assert_int_equal (WEXITSTATUS (status), 0);
  /* Some batches kept their postings, some could not. */
  assert_true (child_added > 0 && child_failed > 0);
  assert_int_equal (child_added + child_failed, 600);
  assert_int_equal (value_in ("noroom", "SELECT count(*) FROM simhound.documents"), child_added);
  assert_int_equal (value_in ("noroom", N_WAITING), 0);
  assert_int_equal (value_in ("noroom", POSTINGS_MATCH), 0);
  {
    g_autoptr(SimServer) again = sim_server_connect (uri, NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(SimImportResult) result = sim_server_add (again, paths, NULL, NULL, NULL, NULL, &error);

    assert_non_null (result);
    assert_int_equal (result->n_added, child_failed);
    assert_int_equal (result->n_unchanged, child_added);
  }
  assert_int_equal (value_in ("noroom", N_WAITING), 0);
  assert_int_equal (value_in ("noroom", POSTINGS_MATCH), 0);
  g_unsetenv ("SIMHOUND_SERVER_BATCH_BYTES");
  sim_test_remove_tree (dir);
}

static void
cancel_at_first (guint64     done,
                 guint64     total,
                 const char *path,
                 gpointer    user_data)
{
  g_cancellable_cancel (user_data);
}

/* An add stopped after its first batch: what it added is indexed before
 * it returns (no document waits), and running it again adds the rest. */
static void
test_stopped_add_indexes_what_it_added (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *class_dir = g_build_filename (dir, "class", NULL);
  g_autofree char *uri = NULL;
  const char *paths[] = { class_dir, NULL };
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(SimServer) server = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimImportResult) stopped = NULL;
  g_autoptr(SimImportResult) again = NULL;
  gint64 kept;

  ensure_roles ();
  uri = fresh_database ("stopped", "wendy");
  g_setenv ("SIMHOUND_SERVER_BATCH_BYTES", "65536", TRUE);
  write_documents (class_dir, 600, 41);
  server = sim_server_connect (uri, &error);
  assert_non_null (server);
  stopped = sim_server_add (server, paths, NULL, cancel_at_first, cancellable, cancellable, &error);
  assert_null (stopped);
  assert_true (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
  g_clear_error (&error);
  kept = value_in ("stopped", "SELECT count(*) FROM simhound.documents");
  assert_true (kept > 0 && kept < 600);
  assert_int_equal (value_in ("stopped", N_WAITING), 0);
  assert_int_equal (value_in ("stopped", POSTINGS_MATCH), 0);
  again = sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error);
  assert_non_null (again);
  assert_int_equal (again->n_unchanged, kept);
  assert_int_equal (again->n_added, 600 - kept);
  assert_int_equal (value_in ("stopped", N_WAITING), 0);
  assert_int_equal (value_in ("stopped", POSTINGS_MATCH), 0);
  g_unsetenv ("SIMHOUND_SERVER_BATCH_BYTES");
  sim_test_remove_tree (dir);
}

/* @report's JSON without what names the store (where it is, when it
 * changed) and with each document's file name alone: a local store keeps
 * the path, a server the name added under. */
static char *
comparable_json (SimReport *report)
{
  g_autofree char *json = sim_test_report_json (report, TRUE);
  g_autoptr(GRegex) store = g_regex_new ("\"(store|updated)\" *: *\"[^\"]*\"", 0, 0, NULL);
  g_autoptr(GRegex) document = g_regex_new ("\"document\" *: *\"[^\"]*/([^\"/]*)\"", 0, 0, NULL);
  g_autofree char *a = g_regex_replace_literal (store, json, -1, 0, "", 0, NULL);

  return g_regex_replace (document, a, -1, 0, "\"document\": \"\\1\"", 0, NULL);
}

static const char *const prose[] = {
  "The lighthouse keeper wrote the weather into his log every morning at six.",
  "Ships that passed the point at night steered by the lamp and by the bell on the reef.",
  "When the lamp was electrified in 1931 the keeper's cottage was let to summer visitors.",
  "Fishermen still call the rocks below the tower the Keeper's Teeth.",
  "Salt marshes store carbon faster than any forest we measured on the estuary.",
  "Their mud holds the roots of cordgrass, and the roots hold the mud in storms.",
  "We cored the marsh at twelve sites along the river and dated each layer.",
  "海边的灯塔建于清末，守塔人每天清晨记录天气和过往的船只。",
  "后来灯塔改用电灯，守塔人的小屋便租给了夏天来的游客。",
  "盐沼储存碳的速度比我们在河口测量的任何森林都快。",
};

/* The stretches of eval-public's query @q labelled copied (exact, light
 * or medium reuse; heavy paraphrase is meaning, not wording), as
 * [start, end) code points. */
static GArray *
copied_spans (guint q)
{
  g_autofree char *path = g_build_filename (sim_test_shared_dir (), "eval-public", "truth.jsonl", NULL);
  g_autofree char *query = g_strdup_printf ("queries/q%05u.txt", q);
  g_autofree char *contents = NULL;
  g_auto(GStrv) lines = NULL;
  GArray *spans = g_array_new (FALSE, FALSE, sizeof (guint32));

  if (!g_file_get_contents (path, &contents, NULL, NULL))
    return spans;
  lines = g_strsplit (contents, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr(JsonParser) parser = json_parser_new ();
      JsonObject *o;
      const char *klass;

      if (!g_str_has_prefix (lines[i], "{") || !json_parser_load_from_data (parser, lines[i], -1, NULL))
        continue;
      o = json_node_get_object (json_parser_get_root (parser));
      klass = json_object_get_string_member_with_default (o, "class", "");
      if (g_str_equal (json_object_get_string_member_with_default (o, "query", ""), query) &&
          (g_str_equal (klass, "exact") || g_str_equal (klass, "light") || g_str_equal (klass, "medium")))
        {
          const guint32 span[2] = { json_object_get_int_member (o, "q_start"), json_object_get_int_member (o, "q_end") };

          g_array_append_vals (spans, span, 2);
        }
    }
  return spans;
}

/* The reference documents of the test: those of ../shared/eval-public
 * when it is there (and its queries), else generated ones in
 * @dir/refs, with articles made from them. Files are in five folders,
 * added one after another, so that the server merges runs. */
static void
make_references (const char *dir,
                 GPtrArray  *folders,
                 GPtrArray  *articles,
                 GPtrArray  *copied)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (5);

  for (guint f = 0; f < 5; f++)
    g_ptr_array_add (folders, g_strdup_printf ("%s/refs/part%u", dir, f));
  for (guint i = 0; i < 60; i++)
    {
      g_autoptr(GString) text = g_string_new (NULL);
      g_autofree char *name = g_strdup_printf ("doc-%03u.txt", i);

      for (guint s = 0; s < 8; s++)
        {
          if (g_rand_int_range (rand, 0, 3) == 0)
            g_string_append_printf (text, "%s ", prose[g_rand_int_range (rand, 0, G_N_ELEMENTS (prose))]);
          g_string_append_printf (text, "Part %u of document %u tells of the", s, i);
          for (guint w = 0; w < 10; w++)
            g_string_append_printf (text, " %s", words[g_rand_int_range (rand, 0, G_N_ELEMENTS (words))]);
          g_string_append (text, ". ");
        }
      g_free (sim_test_write_file (g_ptr_array_index (folders, i % 5), name, text->str, -1));
      /* An article from every fourth document: some of it copied, some edited, some its own. */
      if (i % 4 == 0)
        {
          g_autoptr(GString) article = g_string_new ("An essay of my own on the coast. ");
          guint32 spans[4];

          spans[0] = g_utf8_strlen (article->str, -1);
          g_string_append_len (article, text->str, MIN (text->len, 300));
          spans[1] = g_utf8_strlen (article->str, -1);
          g_string_append (article, " I think the estuary matters more than the harbour. ");
          spans[2] = g_utf8_strlen (article->str, -1);
          g_string_append (article, text->str + MIN (text->len, 400));
          spans[3] = g_utf8_strlen (article->str, -1);
          g_ptr_array_add (articles, g_string_free (g_steal_pointer (&article), FALSE));
          if (copied != NULL)
            g_ptr_array_add (copied, g_array_append_vals (g_array_new (FALSE, FALSE, sizeof (guint32)), spans, 4));
        }
    }
  if (sim_test_shared_dir () != NULL)
    {
      g_autofree char *queries = g_build_filename (sim_test_shared_dir (), "eval-public", "queries", NULL);
      g_autofree char *refs = g_build_filename (sim_test_shared_dir (), "eval-public", "reference", NULL);

      if (g_file_test (refs, G_FILE_TEST_IS_DIR))
        g_ptr_array_add (folders, g_steal_pointer (&refs));
      for (guint q = 1; g_file_test (queries, G_FILE_TEST_IS_DIR); q++)
        {
          g_autofree char *path = g_strdup_printf ("%s/q%05u.txt", queries, q);
          char *text = NULL;

          if (!g_file_get_contents (path, &text, NULL, NULL))
            break;
          g_ptr_array_add (articles, text);
          if (copied != NULL)
            g_ptr_array_add (copied, copied_spans (q));
        }
    }
}

/* Checks the first @n @articles through @local and through the server at
 * @uri, and fails unless their reports are the same; how many found
 * passages. Each check through the server takes a snapshot of its own, as
 * the command line does: it knows only the documents its lookups found. */
static guint
check_both (SimCorpusSnapshot     *local,
            const char            *uri,
            GPtrArray             *articles,
            guint                  n,
            const SimCheckOptions *options,
            gboolean               few_trips)
{
  guint n_with_passages = 0, trips, max_trips = 0, total_trips = 0;

  for (guint i = 0; i < n; i++)
    {
      const char *article = g_ptr_array_index (articles, i);
      g_autoptr(GError) error = NULL;
      g_autoptr(SimReport) a = sim_check_run (local, article, strlen (article), options, NULL, NULL, NULL, &error);
      const guint before = _sim_server_n_statements ();
      g_autoptr(SimCorpusSnapshot) remote = sim_server_snapshot_new (uri, &error);
      g_autoptr(SimReport) b = NULL;
      g_autofree char *ja = NULL, *jb = NULL;

      assert_non_null (a);
      assert_non_null (remote);
      b = sim_check_run (remote, article, strlen (article), options, NULL, NULL, NULL, &error);
      if (b == NULL)
        fail_msg ("check through the server: %s", error->message);
      /* Round trips: opening (versions, settings, statistics and the
       * documents removed in one), the lookup (the rewording stage's keys
       * with it), the texts (with what the report says of each); texts
       * again for widened candidates or the rewordings', and the
       * rewording stage's own lookup for keys of pieces made after the
       * first (nine before these were joined). */
      trips = _sim_server_n_statements () - before;
      max_trips = MAX (max_trips, trips);
      total_trips += trips;
      ja = comparable_json (a);
      jb = comparable_json (b);
      if (strcmp (ja, jb) != 0)
        {
          /* Whole, for diff: a message this long is cut. */
          g_autofree char *pa = g_build_filename (g_get_tmp_dir (), "simhound-local.json", NULL);
          g_autofree char *pb = g_build_filename (g_get_tmp_dir (), "simhound-server.json", NULL);

          g_file_set_contents (pa, ja, -1, NULL);
          g_file_set_contents (pb, jb, -1, NULL);
          fail_msg ("article %u differs: diff %s %s", i, pa, pb);
        }
      n_with_passages += sim_report_get_n_passages (a) > 0;
    }
  if (few_trips)
    {
      assert_true (max_trips <= 6);
      assert_true (total_trips <= 4.5 * n);
    }
  return n_with_passages;
}

/* A check of @article with the default options through a new snapshot
 * of @uri. */
static SimReport *
check_anew (const char  *uri,
            const char  *article,
            GError     **error)
{
  g_autoptr(SimCorpusSnapshot) snapshot = sim_server_snapshot_new (uri, error);
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;

  return snapshot != NULL ? sim_check_run (snapshot, article, strlen (article), &options, NULL, NULL, NULL, error)
                          : NULL;
}

/* A check of @article through a new snapshot of @uri fails on a damaged
 * corpus, and its message says @says. */
static void
check_finds_damage (const char *uri,
                    const char *article,
                    const char *says)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimReport) report = check_anew (uri, article, &error);

  assert_null (report);
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT));
  if (strstr (error->message, says) == NULL)
    fail_msg ("the check said \"%s\", not \"%s\"", error->message, says);
}

/* The same documents added the same way to a local store and to a server
 * (in parts, one removed after): every article's check gives the same
 * report through either, the store's name and place aside. */
static void
test_check_is_the_same_as_a_local_store (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *store_path = g_build_filename (dir, "local.db", NULL);
  g_autofree char *uri = fresh_database ("same_answer", "postgres");
  g_autoptr(GPtrArray) folders = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) articles = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(SimCorpus) corpus = NULL;
  g_autoptr(SimServer) server = NULL;
  g_autoptr(SimCorpusSnapshot) local = NULL;
  g_autoptr(SimCorpusSnapshot) remote = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *runs = NULL;
  g_autofree char *postings = NULL;
  const char *removed[] = { "7", NULL };
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  guint n_with_passages = 0, n_removed = 0;

  make_references (dir, folders, articles, NULL);
  corpus = sim_corpus_open (store_path, FALSE, &error);
  assert_non_null (corpus);
  server = sim_server_connect (uri, &error);
  assert_non_null (server);
  for (guint f = 0; f < folders->len; f++)
    {
      const char *paths[] = { g_ptr_array_index (folders, f), NULL };
      g_autoptr(SimImportResult) a = sim_corpus_add (corpus, paths, NULL, NULL, NULL, &error);
      g_autoptr(SimImportResult) b = NULL;

      assert_non_null (a);
      b = sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error);
      if (b == NULL)
        fail_msg ("add: %s", error->message);
      assert_int_equal (a->n_added, b->n_added);
    }
  assert_true (sim_corpus_remove (corpus, removed, &n_removed, &error));
  assert_true (sim_server_remove (server, removed, &n_removed, &error));
  /* The server keeps the document removed until every run is merged:
   * a check takes the others it finds for ones that are there. */
  {
    g_autofree char *gone = superuser_in ("same_answer", "SELECT string_agg (id::text, ',') FROM simhound.removed");

    assert_string_equal (gone, "7");
  }
  /* Five adds of small runs: the server merged some of them. */
  runs = superuser_in ("same_answer", "SELECT count(*) FROM simhound.runs");
  assert_true (g_ascii_strtoull (runs, NULL, 10) < folders->len);
  postings = superuser_in ("same_answer", "SELECT sum(n_postings) FROM simhound.runs");
  assert_true (g_ascii_strtoull (postings, NULL, 10) > 0);

  local = sim_corpus_ref_snapshot (corpus);
  remote = sim_server_snapshot_new (uri, &error);
  if (remote == NULL)
    fail_msg ("snapshot: %s", error->message);
  assert_true (sim_corpus_snapshot_is_remote (remote));
  assert_int_equal (sim_corpus_snapshot_get_n_documents (remote), sim_corpus_snapshot_get_n_documents (local));
  options.n_threads = 2;
  n_with_passages = check_both (local, uri, articles, articles->len, &options, TRUE);
  /* Not a vacuous equality: most articles reuse something. */
  assert_true (n_with_passages * 2 > articles->len);

  /* Compacted into one run, the server still answers the same. Merged in
   * many chunks, each read on a second connection while the one before
   * is written (or, without a second connection, each read and written
   * in turn), the run's rows are those of a merge in one chunk. */
  {
    const char *digest = "SELECT md5 (string_agg (bucket::text || encode (data, 'hex'), ',' ORDER BY bucket))"
                         " FROM simhound.postings";
    const char *restore = "DELETE FROM simhound.postings;"
                          " INSERT INTO simhound.postings SELECT * FROM saved_postings;"
                          " DELETE FROM simhound.runs; INSERT INTO simhound.runs SELECT * FROM saved_runs;"
                          " DELETE FROM simhound.removed; INSERT INTO simhound.removed SELECT * FROM saved_removed";
    g_autofree char *in_chunks = NULL;
    g_autofree char *alone = NULL;
    g_autofree char *at_once = NULL;

    g_free (superuser_in ("same_answer", "CREATE TABLE saved_postings AS SELECT * FROM simhound.postings;"
                                         " CREATE TABLE saved_runs AS SELECT * FROM simhound.runs;"
                                         " CREATE TABLE saved_removed AS SELECT * FROM simhound.removed"));
    g_setenv ("SIMHOUND_SERVER_MERGE_CHUNK", "4096", TRUE);
    assert_true (sim_server_compact (server, &error));
    in_chunks = superuser_in ("same_answer", digest);
    g_free (superuser_in ("same_answer", restore));
    g_setenv ("SIMHOUND_SERVER_MERGE_ALONE", "1", TRUE);
    assert_true (sim_server_compact (server, &error));
    g_unsetenv ("SIMHOUND_SERVER_MERGE_ALONE");
    g_unsetenv ("SIMHOUND_SERVER_MERGE_CHUNK");
    alone = superuser_in ("same_answer", digest);
    g_free (superuser_in ("same_answer", restore));
    g_free (superuser_in ("same_answer", "DROP TABLE saved_postings, saved_runs, saved_removed"));
    assert_true (sim_server_compact (server, &error));
    at_once = superuser_in ("same_answer", digest);
    assert_non_null (in_chunks);
    assert_string_equal (in_chunks, at_once);
    assert_non_null (alone);
    assert_string_equal (alone, at_once);
  }
  g_free (runs);
  runs = superuser_in ("same_answer", "SELECT count(*) FROM simhound.runs");
  assert_string_equal (runs, "1");
  check_both (local, uri, articles, MIN (articles->len, 20), &options, TRUE);
  /* Merged into one run, nothing removed is held. */
  {
    g_autofree char *gone = superuser_in ("same_answer", "SELECT count(*) FROM simhound.removed");

    assert_string_equal (gone, "0");
  }
  /* Too many removed to keep: a snapshot asks which documents are there,
   * a statement more, and answers the same. */
  g_free (superuser_in ("same_answer", "INSERT INTO simhound.removed SELECT g FROM generate_series (1000001, 1005000) g"));
  check_both (local, uri, articles, MIN (articles->len, 10), &options, FALSE);
  g_free (superuser_in ("same_answer", "DELETE FROM simhound.removed"));

  /* Near fingerprints need every fingerprint in memory, which a server
   * never sends: a check that asks for them is refused in words, not
   * taken for a missing store. */
  {
    const char *article = g_ptr_array_index (articles, 0);
    SimCheckOptions near = options;
    g_autoptr(SimReport) b = NULL;

    near.max_distance = 3;
    b = sim_check_run (remote, article, strlen (article), &near, NULL, NULL, NULL, &error);
    assert_null (b);
    assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT));
    assert_non_null (strstr (error->message, "--max-distance 0"));
    g_clear_error (&error);
  }

  /* A damaged row of the lookup table: the check says so, and reads
   * nothing out of bounds. First in the last statements of a long
   * article's lookup (its keys asked in order, 2,048 a statement, sent
   * at once: LOOKUP_CHUNK), read after those before it. */
  g_free (superuser_in ("same_answer", "UPDATE simhound.postings SET data = '\\xffffffff'"
                                       " WHERE bucket >= (SELECT max (bucket) / 4 * 3 FROM simhound.postings)"));
  {
    g_autoptr(GString) longer = g_string_new (NULL);

    for (guint i = 0; i < articles->len; i++)
      g_string_append_printf (longer, "%s\n\n", (const char *) g_ptr_array_index (articles, i));
    assert_true (longer->len >= 10000);
    check_finds_damage (uri, longer->str, "damaged row of its lookup table");
  }
  g_free (superuser_in ("same_answer", "UPDATE simhound.postings SET data = '\\xffffffff'"));
  check_finds_damage (uri, g_ptr_array_index (articles, 0), "damaged row of its lookup table");
  sim_test_remove_tree (dir);
}

/* Only the parts of a long source its check reads travel: an article
 * taking a paragraph from the middle of a 140,000-character document gets
 * the same report through the server as through a local store, and a
 * small share of the document's text; a part of a text read past what
 * came is fetched then. */
static void
test_check_reads_parts_of_long_texts (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *folder = g_build_filename (dir, "long", NULL);
  g_autofree char *store_path = g_build_filename (dir, "local.db", NULL);
  g_autofree char *uri = fresh_database ("long_texts", "postgres");
  const char *paths[] = { folder, NULL };
  g_autoptr(GRand) rand = g_rand_new_with_seed (33);
  g_autoptr(GString) doc = g_string_new (NULL);
  g_autoptr(GString) article = g_string_new ("Our class visited the museum on a rainy Tuesday in spring. ");
  g_autoptr(SimCorpus) corpus = NULL;
  g_autoptr(SimServer) server = NULL;
  g_autoptr(SimImportResult) a = NULL;
  g_autoptr(SimImportResult) b = NULL;
  g_autoptr(SimCorpusSnapshot) local = NULL;
  g_autoptr(SimCorpusSnapshot) remote = NULL;
  g_autoptr(SimReport) ra = NULL;
  g_autoptr(SimReport) rb = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *ja = NULL, *jb = NULL;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  guint64 bytes;
  guint n_chars;

  for (guint s = 0; s < 2000; s++)
    {
      const gsize line = doc->len;

      g_string_append_printf (doc, "Line %u:", s);
      for (guint w = 0; w < 9; w++)
        g_string_append_printf (doc, " %s", words[g_rand_int_range (rand, 0, G_N_ELEMENTS (words))]);
      g_string_append (doc, s % 8 == 7 ? ".\n\n" : ". ");
      /* A paragraph from the middle, copied. */
      if (s >= 1000 && s < 1008)
        g_string_append (article, doc->str + line);
    }
  g_string_append (article, "\nWe ate lunch on the steps and took the bus home before dark.\n");
  n_chars = g_utf8_strlen (doc->str, -1);
  assert_true (n_chars > 100000);
  g_free (sim_test_write_file (folder, "long.txt", doc->str, -1));
  write_documents (folder, 20, 34);

  corpus = sim_corpus_open (store_path, FALSE, &error);
  assert_non_null (corpus);
  a = sim_corpus_add (corpus, paths, NULL, NULL, NULL, &error);
  assert_non_null (a);
  server = sim_server_connect (uri, &error);
  assert_non_null (server);
  b = sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error);
  if (b == NULL)
    fail_msg ("add: %s", error->message);
  local = sim_corpus_ref_snapshot (corpus);
  ra = sim_check_run (local, article->str, article->len, &options, NULL, NULL, NULL, &error);
  assert_non_null (ra);
  assert_int_equal (sim_report_get_n_passages (ra), 1);

  remote = sim_server_snapshot_new (uri, &error);
  assert_non_null (remote);
  bytes = _sim_server_n_text_bytes ();
  rb = sim_check_run (remote, article->str, article->len, &options, NULL, NULL, NULL, &error);
  if (rb == NULL)
    fail_msg ("check through the server: %s", error->message);
  bytes = _sim_server_n_text_bytes () - bytes;
  ja = comparable_json (ra);
  jb = comparable_json (rb);
  assert_string_equal (ja, jb);
  /* The short essays and a part of the long text: less than a fifth of
   * what the long text alone took. */
  if (bytes * 5 > doc->len)
    fail_msg ("the check brought back %" G_GUINT64_FORMAT " bytes for a document of %" G_GSIZE_FORMAT, bytes, doc->len);

  /* A longer article (its 14,000 keys and more asked in two halves at
   * once, SPLIT_KEYS, each in statements sent together, LOOKUP_CHUNK):
   * the same report again. */
  {
    g_autoptr(GString) longer = g_string_new (NULL);
    g_autoptr(SimReport) la = NULL;
    g_autoptr(SimReport) lb = NULL;
    g_autofree char *jla = NULL, *jlb = NULL;
    const char *from = strstr (doc->str, "Line 100:"), *to = strstr (doc->str, "Line 600:");

    assert_non_null (from);
    assert_non_null (to);
    g_string_append_len (longer, from, to - from);
    g_string_append (longer, article->str);
    la = sim_check_run (local, longer->str, longer->len, &options, NULL, NULL, NULL, &error);
    assert_non_null (la);
    lb = sim_check_run (remote, longer->str, longer->len, &options, NULL, NULL, NULL, &error);
    if (lb == NULL)
      fail_msg ("check through the server: %s", error->message);
    jla = comparable_json (la);
    jlb = comparable_json (lb);
    assert_string_equal (jla, jlb);
    assert_true (sim_report_get_n_passages (la) >= 1);

    /* An account allowed one connection: the second half goes after the
     * first, on it, and the report is the same. */
    {
      g_autofree char *solo = g_strdup_printf ("postgresql://solo@%s:%s/long_texts", g_getenv ("SIMHOUND_TEST_PG_HOST"),
                                               g_getenv ("SIMHOUND_TEST_PG_PORT"));
      g_autoptr(SimCorpusSnapshot) one = NULL;
      g_autoptr(SimReport) lc = NULL;
      g_autofree char *jlc = NULL;

      g_free (superuser ("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'solo') THEN"
                         " CREATE ROLE solo LOGIN CONNECTION LIMIT 1 IN ROLE simhound_reader; END IF; END $$"));
      one = sim_server_snapshot_new (solo, &error);
      if (one == NULL)
        fail_msg ("snapshot as solo: %s", error->message);
      lc = sim_check_run (one, longer->str, longer->len, &options, NULL, NULL, NULL, &error);
      if (lc == NULL)
        fail_msg ("check with one connection: %s", error->message);
      jlc = comparable_json (lc);
      assert_string_equal (jla, jlc);
    }
  }

  /* A part read, then asked past its end: the rest is fetched. */
  for (guint i = 0; i < sim_corpus_snapshot_get_n_documents (remote) + 64; i++)
    {
      const SimCorpusDoc *d = sim_corpus_snapshot_get_doc (remote, i);
      SimStoreText *text = NULL;
      const guint32 lo = 1000, hi = 1200;
      g_autofree char *part = NULL;
      g_autofree char *end = NULL;
      guint32 first = 0;
      gsize len = 0;

      if (d == NULL || d->n_chars != n_chars)
        continue;
      assert_true (sim_corpus_snapshot_read_texts (remote, &i, 1, &lo, &hi, &text, &error));
      assert_non_null (text);
      assert_int_equal (sim_store_text_get_n_chars (text), n_chars);
      part = sim_store_text_dup_range (text, lo, hi, &first, &len, &error);
      assert_non_null (part);
      assert_true (first <= lo);
      assert_true (len < doc->len / 4);
      end = sim_store_text_dup_range (text, n_chars - 10, n_chars, &first, &len, &error);
      assert_non_null (end);
      assert_int_equal (first, 0);
      assert_string_equal (end, doc->str);
      sim_store_text_free (text);
      n_chars = 0;
      break;
    }
  assert_int_equal (n_chars, 0);  /* the long document was found */
  sim_test_remove_tree (dir);
}

/* A text is kept in parts cut at code points, never inside a character
 * (of one, three and four bytes here): every part but the last holds
 * SIM_SERVER_TEXT_PART of them, together the whole text; a check's read
 * of a stretch in the middle gets the parts around it, at their code
 * points, not the whole; read again, it is sent only the parts it lacks. */
static void
test_texts_are_kept_in_parts (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *folder = g_build_filename (dir, "parts", NULL);
  g_autofree char *uri = fresh_database ("parts", "postgres");
  const char *paths[] = { folder, NULL };
  static const char *const pieces[] = { "春眠不觉晓，", "処処聞啼鳥。", "𠀀𠀁𠀂", "Night rain, wind; ", "花落知多少？\n" };
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(SimServer) server = NULL;
  g_autoptr(SimImportResult) added = NULL;
  g_autoptr(SimCorpusSnapshot) snapshot = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *whole = NULL;
  g_autofree char *cuts = NULL;
  g_autofree char *expected_cuts = NULL;
  glong n_chars;
  guint n_parts, i;

  for (guint k = 0; g_utf8_strlen (text->str, -1) < 5 * SIM_SERVER_TEXT_PART + 300; k++)
    g_string_append_printf (text, "%u%s", k, pieces[k % G_N_ELEMENTS (pieces)]);
  n_chars = g_utf8_strlen (text->str, -1);
  n_parts = (n_chars + SIM_SERVER_TEXT_PART - 1) / SIM_SERVER_TEXT_PART;
  g_free (sim_test_write_file (folder, "poem.txt", text->str, -1));
  server = sim_server_connect (uri, &error);
  assert_non_null (server);
  added = sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error);
  if (added == NULL)
    fail_msg ("add: %s", error->message);
  whole = superuser_in ("parts", "SELECT string_agg (body, '' ORDER BY part) FROM simhound.texts");
  assert_string_equal (whole, text->str);
  cuts = superuser_in ("parts", "SELECT string_agg (part || ':' || char_length (body), ',' ORDER BY part)"
                                " FROM simhound.texts");
  {
    g_autoptr(GString) e = g_string_new (NULL);

    for (guint p = 0; p < n_parts; p++)
      g_string_append_printf (e, "%s%u:%ld", p > 0 ? "," : "", p,
                              MIN ((glong) SIM_SERVER_TEXT_PART, n_chars - (glong) p * SIM_SERVER_TEXT_PART));
    expected_cuts = g_string_free (g_steal_pointer (&e), FALSE);
  }
  assert_string_equal (cuts, expected_cuts);

  snapshot = sim_server_snapshot_new (uri, &error);
  assert_non_null (snapshot);
  {
    /* A check that finds the poem makes it known to the snapshot. */
    g_autofree char *article = g_utf8_substring (text->str, 3 * SIM_SERVER_TEXT_PART, 3 * SIM_SERVER_TEXT_PART + 300);
    SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
    g_autoptr(SimReport) report = sim_check_run (snapshot, article, strlen (article), &options, NULL, NULL, NULL, &error);

    assert_non_null (report);
    assert_true (sim_report_get_n_passages (report) >= 1);
  }
  for (i = 0; i < sim_corpus_snapshot_get_n_documents (snapshot) + 64; i++)
    if (sim_corpus_snapshot_get_doc (snapshot, i) != NULL)
      break;
  {
    const guint32 lo = 2 * SIM_SERVER_TEXT_PART + 700, hi = lo + 40;
    SimStoreText *stored = NULL;
    guint32 first, end, at;
    gsize len;
    g_autofree char *got = NULL;
    g_autofree char *want = NULL;

    assert_true (sim_corpus_snapshot_read_texts (snapshot, &i, 1, &lo, &hi, &stored, &error));
    assert_non_null (stored);
    assert_int_equal (sim_store_text_get_n_chars (stored), n_chars);
    sim_store_text_get_held (stored, &first, &end);
    assert_int_equal (first % SIM_SERVER_TEXT_PART, 0);
    assert_true (first <= lo && hi <= end);
    assert_true (first > 0 && end < n_chars);  /* parts, not the whole text */
    got = sim_store_text_dup_range (stored, lo, hi, &at, &len, &error);
    assert_non_null (got);
    assert_true (at >= first);
    want = g_utf8_substring (text->str, at, at + g_utf8_strlen (got, -1));
    assert_string_equal (got, want);

    /* Read again for a stretch near its start: only the parts it lacks
     * come, and it holds from there on. */
    {
      const guint32 lo2 = 100, hi2 = 140;
      g_autofree char *lacking = g_utf8_substring (text->str, 0, first);
      g_autofree char *got2 = NULL;
      g_autofree char *want2 = NULL;
      const guint64 bytes = _sim_server_n_text_bytes ();
      guint32 first2, end2;

      assert_true (sim_corpus_snapshot_read_texts (snapshot, &i, 1, &lo2, &hi2, &stored, &error));
      assert_int_equal (_sim_server_n_text_bytes () - bytes, strlen (lacking));
      sim_store_text_get_held (stored, &first2, &end2);
      assert_int_equal (first2, 0);
      assert_int_equal (end2, end);
      got2 = sim_store_text_dup_range (stored, lo2, end - 10, &at, &len, &error);
      assert_non_null (got2);
      assert_int_equal (at, 0);
      want2 = g_utf8_substring (text->str, 0, end);
      assert_string_equal (got2, want2);
    }
    sim_store_text_free (stored);
  }

  /* A part missing between two is a damaged text, said so; a check that
   * reads it fails with it rather than align against a text shifted. */
  g_free (superuser_in ("parts", "DELETE FROM simhound.texts WHERE part = 3"));
  {
    g_autofree char *other = g_utf8_substring (text->str, 2 * SIM_SERVER_TEXT_PART + 100, 2 * SIM_SERVER_TEXT_PART + 400);

    check_finds_damage (uri, other, "part 3 is missing");
  }
  sim_test_remove_tree (dir);
}

/* Marks each character of @report's flagged segments in @marks with @bit. */
static void
mark_flagged (SimReport *report,
              guint8    *marks,
              guint8     bit)
{
  for (guint i = 0; i < sim_report_get_n_segments (report); i++)
    {
      const SimReportSegment *seg = sim_report_get_segment (report, i);

      if (sim_report_segment_is_flagged (seg))
        for (guint32 c = seg->start; c < seg->end; c++)
          marks[c] |= bit;
    }
}

/* A student reads no essay's text, through a check either: its check
 * matches them by the keys both share, names them without text, and flags
 * the same stretches of each article as a teacher's check, within a few
 * percent of the characters. A collection marked readable by students
 * shows its text. The lookups a student may make a day are bounded by the
 * server. */
static void
test_student_check_flags_what_a_teacher_flags (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *owner_uri = fresh_database ("student_check", "postgres");
  g_autofree char *teacher_uri = g_strdup_printf ("postgresql://tom@%s:%s/student_check",
                                                  g_getenv ("SIMHOUND_TEST_PG_HOST"), g_getenv ("SIMHOUND_TEST_PG_PORT"));
  g_autofree char *student_uri = g_strdup_printf ("postgresql://alice@%s:%s/student_check",
                                                  g_getenv ("SIMHOUND_TEST_PG_HOST"), g_getenv ("SIMHOUND_TEST_PG_PORT"));
  g_autofree char *readings = g_build_filename (dir, "readings", NULL);
  g_autoptr(GPtrArray) folders = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) articles = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(SimServer) owner = NULL;
  g_autoptr(GPtrArray) copied = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autoptr(GError) error = NULL;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  guint64 copied_chars = 0, teacher_copied = 0, student_copied = 0, apart = 0, teacher_own = 0, student_own = 0;
  guint n_withheld = 0;

  ensure_roles ();
  make_references (dir, folders, articles, copied);
  owner = sim_server_connect (owner_uri, &error);
  assert_non_null (owner);
  for (guint f = 0; f < folders->len; f++)
    {
      const char *paths[] = { g_ptr_array_index (folders, f), NULL };
      g_autoptr(SimImportResult) added = sim_server_add (owner, paths, NULL, NULL, NULL, NULL, &error);

      if (added == NULL)
        fail_msg ("add: %s", error->message);
    }
  options.n_threads = 2;
  for (guint i = 0; i < articles->len; i++)
    {
      const char *article = g_ptr_array_index (articles, i);
      g_autoptr(SimCorpusSnapshot) teacher = sim_server_snapshot_new (teacher_uri, &error);
      g_autoptr(SimCorpusSnapshot) student = sim_server_snapshot_new (student_uri, &error);
      g_autoptr(SimReport) a = NULL;
      g_autoptr(SimReport) b = NULL;

      assert_non_null (teacher);
      assert_non_null (student);
      a = sim_check_run (teacher, article, strlen (article), &options, NULL, NULL, NULL, &error);
      b = sim_check_run (student, article, strlen (article), &options, NULL, NULL, NULL, &error);
      if (a == NULL || b == NULL)
        fail_msg ("check: %s", error->message);
      {
        const guint32 n_chars = sim_report_get_n_chars (a);
        g_autofree guint8 *marks = g_new0 (guint8, n_chars + 1);
        const GArray *spans = g_ptr_array_index (copied, i);

        /* 1: the teacher flags it, 2: the student, 4: it was copied. */
        mark_flagged (a, marks, 1);
        mark_flagged (b, marks, 2);
        for (guint k = 0; k + 1 < spans->len; k += 2)
          for (guint32 c = g_array_index (spans, guint32, k); c < MIN (g_array_index (spans, guint32, k + 1), n_chars); c++)
            marks[c] |= 4;
        for (guint32 c = 0; c < n_chars; c++)
          {
            copied_chars += (marks[c] & 4) != 0;
            teacher_copied += (marks[c] & 5) == 5;
            student_copied += (marks[c] & 6) == 6;
            apart += (marks[c] & 4) && ((marks[c] & 1) != 0) != ((marks[c] & 2) != 0);
            teacher_own += (marks[c] & 5) == 1;
            student_own += (marks[c] & 6) == 2;
          }
      }
      /* The teacher reads every source; the student none, and is shown no
       * excerpt of one. */
      for (guint s = 0; s < sim_report_get_n_sources (a); s++)
        assert_false (sim_report_get_source (a, s)->text_withheld);
      for (guint s = 0; s < sim_report_get_n_sources (b); s++)
        assert_true (sim_report_get_source (b, s)->text_withheld);
      for (guint m = 0; m < sim_report_get_n_segments (b); m++)
        {
          const SimReportSegment *seg = sim_report_get_segment (b, m);

          for (guint k = 0; k < seg->n_matches; k++)
            assert_string_equal (sim_report_get_match (b, seg->first_match + k)->excerpt, "");
        }
      n_withheld += sim_report_get_n_sources (b) > 0;
    }
  g_print ("student check, %u articles: of %" G_GUINT64_FORMAT " characters copied, the teacher flags %"
           G_GUINT64_FORMAT ", the student %" G_GUINT64_FORMAT ", one of them alone %" G_GUINT64_FORMAT
           "; of the rest the teacher flags %" G_GUINT64_FORMAT ", the student %" G_GUINT64_FORMAT "\n",
           articles->len, copied_chars, teacher_copied, student_copied, apart, teacher_own, student_own);
  assert_true (n_withheld * 2 > articles->len);
  assert_true (teacher_copied * 2 > copied_chars);
  /* The same copied stretches, within a few percent; and no more of the
   * writers' own text flagged than a teacher's check flags, a little aside. */
  assert_true (apart * 100 <= teacher_copied * 5);
  assert_true (student_own * 100 <= teacher_own * 110 + copied_chars);

  /* Course readings students may read: their text is in the student's report. */
  {
    const char *paths[] = { readings, NULL };
    g_autofree char *article = g_strconcat ("My summary. ", READING, NULL);
    g_autoptr(SimImportResult) added = NULL;
    g_autoptr(SimCorpusSnapshot) student = NULL;
    g_autoptr(SimReport) report = NULL;
    g_autofree char *json = NULL;

    g_free (sim_test_write_file (readings, "tides.txt", READING, -1));
    added = sim_server_add (owner, paths, "course-readings", NULL, NULL, NULL, &error);
    assert_non_null (added);
    assert_true (sim_server_set_students_read (owner, "course-readings", TRUE, &error));
    student = sim_server_snapshot_new (student_uri, &error);
    report = sim_check_run (student, article, strlen (article), &options, NULL, NULL, NULL, &error);
    assert_non_null (report);
    assert_true (sim_report_get_n_sources (report) >= 1);
    assert_false (sim_report_get_source (report, 0)->text_withheld);
    json = sim_test_report_json (report, TRUE);
    assert_non_null (strstr (json, "\"text_available\" : true"));
  }

  /* The lookups of a day, bounded: the student's next check is refused,
   * saying why; the teacher's is not counted. */
  g_free (superuser_in ("student_check", "UPDATE simhound.meta SET value = '100' WHERE key = 'student_keys_per_day'"));
  {
    const char *article = g_ptr_array_index (articles, 0);
    g_autoptr(SimCorpusSnapshot) student = sim_server_snapshot_new (student_uri, &error);
    g_autoptr(SimCorpusSnapshot) teacher = sim_server_snapshot_new (teacher_uri, &error);
    g_autoptr(SimReport) refused = NULL;
    g_autoptr(SimReport) report = NULL;
    g_autofree char *counted = NULL;

    assert_non_null (student);
    refused = sim_check_run (student, article, strlen (article), &options, NULL, NULL, NULL, &error);
    assert_null (refused);
    assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_NOT_ALLOWED));
    assert_non_null (strstr (error->message, "lookups it may make today"));
    g_clear_error (&error);
    report = sim_check_run (teacher, article, strlen (article), &options, NULL, NULL, NULL, &error);
    assert_non_null (report);
    counted = superuser_in ("student_check", "SELECT string_agg (account, ',') FROM simhound.lookups");
    assert_string_equal (counted, "alice");
  }

  /* The lookup table itself is not the student's to read. */
  {
    PGconn *conn = PQconnectdb (student_uri);
    PGresult *result = PQexec (conn, "SELECT count(*) FROM simhound.postings");

    assert_int_equal (PQresultStatus (result), PGRES_FATAL_ERROR);
    assert_string_equal (PQresultErrorField (result, PG_DIAG_SQLSTATE), "42501");
    PQclear (result);
    PQfinish (conn);
  }

  /* The command line's report to a student: a flagged segment names its
   * document and says its text is not available, with no distance (the
   * two texts were never compared); to a teacher, the distance. */
  {
    g_autofree char *path = g_build_filename (dir, "article.txt", NULL);
    const char *cli = g_getenv ("SIMHOUND_TEST_CLI");
    const char *uris[] = { student_uri, teacher_uri };

    assert_non_null (cli);
    assert_true (g_file_set_contents (path, g_ptr_array_index (articles, 0), -1, NULL));
    /* The checks above used up the student's lookups for today. */
    g_free (superuser_in ("student_check", "DELETE FROM simhound.lookups;"
                                           " UPDATE simhound.meta SET value = '1000000' WHERE key = 'student_keys_per_day'"));
    for (guint who = 0; who < 2; who++)
      {
        const char *argv[] = { cli, "--store", uris[who], "check", path, NULL };
        g_auto(GStrv) env = g_environ_unsetenv (g_environ_setenv (g_get_environ (), "LC_ALL", "C", TRUE), "LANGUAGE");
        g_autofree char *out = NULL, *err = NULL;
        int status = -1;

        assert_true (g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status,
                                   &error));
        if (!g_spawn_check_wait_status (status, NULL))
          fail_msg ("%s", err);
        assert_non_null (strstr (out, "] HIGH"));
        assert_true ((strstr (out, "Source text not available") != NULL) == (who == 0));
        assert_true ((strstr (out, "(distance ") != NULL) == (who == 1));
      }
  }
  sim_test_remove_tree (dir);
}

/* Citus is not packaged for Debian 12: what runs here is the refusal on
 * a server without it, naming what to do, with nothing changed. */
static void
test_citus_is_asked_for (void **state)
{
  g_autofree char *uri = fresh_database ("citus_less", "postgres");
  g_autoptr(GError) error = NULL;
  g_autoptr(SimServer) server = sim_server_connect (uri, &error);
  g_autofree char *layout = NULL;

  assert_non_null (server);
  assert_false (sim_server_distribute (server, &error));
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT));
  assert_non_null (strstr (error->message, "CREATE EXTENSION citus"));
  layout = superuser_in ("citus_less", "SELECT count(*) FROM simhound.meta WHERE key = 'layout'");
  assert_string_equal (layout, "0");
}

/* What `server init --citus` runs, against stand-ins for Citus's three
 * functions that check two of its rules as create_distributed_table()
 * does (a unique index holds the distribution column; no row security
 * policy holds a subquery) and that every table, column and function
 * named is there: each statement runs. */
static void
test_citus_layout_names_what_is_there (void **state)
{
  g_autofree char *uri = fresh_database ("citus_stand_ins", "postgres");
  g_autoptr(GError) error = NULL;
  g_autoptr(SimServer) server = sim_server_connect (uri, &error);
  guint n = 0;
  const char *const *layout = _sim_server_citus_layout (&n);
  const char *stand_ins =
    "CREATE FUNCTION public.create_reference_table (regclass) RETURNS void LANGUAGE sql AS 'SELECT';"
    "CREATE FUNCTION public.create_distributed_function (regprocedure) RETURNS void LANGUAGE sql AS 'SELECT';"
    "CREATE FUNCTION public.create_distributed_table (t regclass, col text) RETURNS void LANGUAGE plpgsql AS $$"
    " DECLARE a smallint; BEGIN"
    "  SELECT attnum INTO a FROM pg_attribute WHERE attrelid = t AND attname = col AND NOT attisdropped;"
    "  IF a IS NULL THEN RAISE EXCEPTION 'no column % in %', col, t; END IF;"
    "  IF EXISTS (SELECT FROM pg_index i WHERE i.indrelid = t AND i.indisunique AND NOT a = ANY (i.indkey)) THEN"
    "    RAISE EXCEPTION 'a unique index of % without %', t, col; END IF;"
    "  IF EXISTS (SELECT FROM pg_policy WHERE polrelid = t AND polqual::text LIKE '%{SUBLINK %') THEN"
    "    RAISE EXCEPTION 'a policy of % with a subquery', t; END IF;"
    " END $$";

  assert_non_null (server);
  g_free (superuser_in ("citus_stand_ins", stand_ins));
  assert_true (n >= 10);
  assert_true (_sim_server_run_command (server, "BEGIN", &error));
  for (guint i = 0; i < n; i++)
    if (!_sim_server_run_command (server, layout[i], &error))
      fail_msg ("%s: %s", layout[i], error->message);
  assert_true (_sim_server_run_command (server, "ROLLBACK", &error));
}

/* The lookup table's partitions on two other servers (postgres_fdw): the
 * same documents added the same way give every article the same report
 * as a local store, before and after a document is removed and the runs
 * are merged into one; the rows are on the shards, none here. */
static void
test_two_shards_answer_as_one_server (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *store_path = g_build_filename (dir, "local.db", NULL);
  g_autofree char *uri = fresh_database ("sharded", "postgres");
  const char *shards[] = { g_getenv ("SIMHOUND_TEST_PG_2"), g_getenv ("SIMHOUND_TEST_PG_3"), NULL };
  g_autoptr(GPtrArray) folders = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) articles = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(SimCorpus) corpus = NULL;
  g_autoptr(SimServer) server = NULL;
  g_autoptr(GError) error = NULL;
  const char *removed[] = { "7", NULL };
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  guint n_removed = 0, n_with_passages;

  assert_non_null (shards[0]);
  assert_non_null (shards[1]);
  make_references (dir, folders, articles, NULL);
  corpus = sim_corpus_open (store_path, FALSE, &error);
  assert_non_null (corpus);
  server = sim_server_connect (uri, &error);
  assert_non_null (server);
  if (!sim_server_shard (server, shards, &error))
    fail_msg ("shard: %s", error->message);
  /* Again: the same layout, nothing else changes. */
  if (!sim_server_shard (server, shards, &error))
    fail_msg ("shard again: %s", error->message);
  for (guint f = 0; f < folders->len; f++)
    {
      const char *paths[] = { g_ptr_array_index (folders, f), NULL };
      g_autoptr(SimImportResult) a = sim_corpus_add (corpus, paths, NULL, NULL, NULL, &error);
      g_autoptr(SimImportResult) b = NULL;

      assert_non_null (a);
      b = sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error);
      if (b == NULL)
        fail_msg ("add: %s", error->message);
      assert_int_equal (a->n_added, b->n_added);
    }
  /* Spread once filled: refused, nothing changed. */
  assert_false (sim_server_shard (server, shards, &error));
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT));
  g_clear_error (&error);

  /* The rows are on the shards: partition 0 on the first, 1 on the second. */
  {
    PGconn *first = PQconnectdb (shards[0]), *second = PQconnectdb (shards[1]);
    PGresult *a = PQexec (first, "SELECT count(*) FROM simhound.postings_0");
    PGresult *b = PQexec (second, "SELECT count(*) FROM simhound.postings_1");
    /* Their rows compressed as on one server. */
    PGresult *lz4 = PQexec (second, "SELECT attcompression FROM pg_attribute"
                                    " WHERE attrelid = 'simhound.postings_1'::regclass AND attname = 'data'");
    g_autofree char *local = superuser_in ("sharded", "SELECT count(*) FROM pg_class c"
                                                      " JOIN pg_namespace n ON n.oid = c.relnamespace"
                                                      " WHERE n.nspname = 'simhound' AND c.relname LIKE 'postings_%'"
                                                      "   AND c.relkind = 'r'");

    assert_int_equal (PQresultStatus (a), PGRES_TUPLES_OK);
    assert_int_equal (PQresultStatus (b), PGRES_TUPLES_OK);
    assert_true (g_ascii_strtoull (PQgetvalue (a, 0, 0), NULL, 10) > 0);
    assert_true (g_ascii_strtoull (PQgetvalue (b, 0, 0), NULL, 10) > 0);
    assert_string_equal (local, "0");
    assert_int_equal (PQresultStatus (lz4), PGRES_TUPLES_OK);
    assert_string_equal (PQgetvalue (lz4, 0, 0), "l");
    PQclear (a);
    PQclear (b);
    PQclear (lz4);
    PQfinish (first);
    PQfinish (second);
  }

  options.n_threads = 2;
  {
    g_autoptr(SimCorpusSnapshot) local = sim_corpus_ref_snapshot (corpus);

    n_with_passages = check_both (local, uri, articles, articles->len, &options, TRUE);
    assert_true (n_with_passages * 2 > articles->len);
  }
  assert_true (sim_corpus_remove (corpus, removed, &n_removed, &error));
  assert_true (sim_server_remove (server, removed, &n_removed, &error));
  {
    g_autofree char *gone = superuser_in ("sharded", "SELECT string_agg (id::text, ',') FROM simhound.removed");

    assert_string_equal (gone, "7");
  }
  assert_true (sim_server_compact (server, &error));
  {
    g_autoptr(SimCorpusSnapshot) local = sim_corpus_ref_snapshot (corpus);
    g_autofree char *gone = superuser_in ("sharded", "SELECT count(*) FROM simhound.removed");

    assert_string_equal (gone, "0");
    check_both (local, uri, articles, MIN (articles->len, 40), &options, TRUE);
  }
  sim_test_remove_tree (dir);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The contract every corpus backend keeps, run on @location: what each
 * step did, as a log to compare with another backend's (documents by file
 * name, reports without the store's name). */
static char *
run_contract (const char *location,
              const char *folder)
{
  g_autoptr(GString) log = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimBackend) backend = sim_backend_open (location, NULL, FALSE, &error);
  g_autoptr(SimImportResult) first = NULL, again = NULL, rescanned = NULL;
  g_autofree char *changed = g_build_filename (folder, "essay-001.txt", NULL);
  g_autofree char *gone = g_build_filename (folder, "essay-002.txt", NULL);
  const char *paths[] = { folder, NULL };
  guint n_removed = 0;

  assert_non_null (backend);
  assert_true (sim_backend_may_write (backend));
  write_documents (folder, 6, 11);
  first = sim_backend_add (backend, paths, NULL, NULL, NULL, NULL, &error);
  assert_non_null (first);
  again = sim_backend_add (backend, paths, NULL, NULL, NULL, NULL, &error);
  assert_non_null (again);
  g_string_append_printf (log, "add %u/%u, again %u unchanged\n", first->n_added, first->n_failed, again->n_unchanged);

  /* One changed, one gone, one new: a re-scan brings the corpus in step. */
  g_free (sim_test_write_file (folder, "essay-001.txt", "Changed: the harbour lantern burned all winter long.\n", -1));
  assert_int_equal (g_unlink (gone), 0);
  g_free (sim_test_write_file (folder, "essay-new.txt", "A new essay on granite quarries and their dust.\n", -1));
  rescanned = sim_backend_rescan (backend, folder, NULL, NULL, NULL, NULL, &error);
  if (rescanned == NULL)
    fail_msg ("rescan on %s: %s", location, error->message);
  g_string_append_printf (log, "rescan +%u ~%u -%u =%u\n", rescanned->n_added, rescanned->n_updated,
                          rescanned->n_removed, rescanned->n_unchanged);

  /* Removed by id through a connection of its own (a fresh one met no
   * staging table once). */
  {
    g_autoptr(SimBackend) other = sim_backend_open (location, NULL, FALSE, &error);
    g_autoptr(GPtrArray) docs = sim_backend_list (other, &error);
    g_autofree char *id = NULL;
    const char *ids[2] = { NULL, NULL };

    assert_non_null (docs);
    for (guint i = 0; i < docs->len && id == NULL; i++)
      if (g_str_has_suffix (((SimStoreDocument *) g_ptr_array_index (docs, i))->path, "essay-003.txt"))
        id = g_strdup_printf ("%" G_GINT64_FORMAT, ((SimStoreDocument *) g_ptr_array_index (docs, i))->id);
    assert_non_null (id);
    ids[0] = id;
    /* Found by id, as --exclude-source finds it; a name that names none is said. */
    {
      g_autoptr(GArray) found = sim_backend_find_documents (other, ids, &error);
      const char *none[] = { "no-such-essay.txt", NULL };

      assert_non_null (found);
      assert_int_equal (found->len, 1);
      assert_int_equal (g_array_index (found, gint64, 0), g_ascii_strtoll (id, NULL, 10));
      assert_null (sim_backend_find_documents (other, none, &error));
      assert_non_null (strstr (error->message, "no such document"));
      g_clear_error (&error);
    }
    assert_true (sim_backend_remove (other, ids, &n_removed, &error));
    g_string_append_printf (log, "removed %u\n", n_removed);
  }
  /* What is left, by file name. */
  {
    g_autoptr(GPtrArray) docs = sim_backend_list (backend, &error);
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

    assert_non_null (docs);
    for (guint i = 0; i < docs->len; i++)
      g_ptr_array_add (names, g_path_get_basename (((SimStoreDocument *) g_ptr_array_index (docs, i))->path));
    g_ptr_array_sort (names, compare_names);
    g_string_append (log, "list");
    for (guint i = 0; i < names->len; i++)
      g_string_append_printf (log, " %s", (const char *) g_ptr_array_index (names, i));
    g_string_append_c (log, '\n');
  }
  /* And a check against it. */
  {
    g_autoptr(SimCorpusSnapshot) snapshot = sim_backend_snapshot (backend, &error);
    g_autofree char *body = NULL;
    g_autofree char *article = NULL;
    g_autofree char *one = g_build_filename (folder, "essay-004.txt", NULL);
    g_autoptr(SimReport) report = NULL;
    SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
    g_autofree char *json = NULL;

    assert_non_null (snapshot);
    assert_true (g_file_get_contents (one, &body, NULL, NULL));
    article = g_strconcat ("My own opening line about the sea. ", body, NULL);
    report = sim_check_run (snapshot, article, strlen (article), &options, NULL, NULL, NULL, &error);
    assert_non_null (report);
    assert_true (sim_report_get_n_passages (report) >= 1);
    json = comparable_json (report);
    g_string_append (log, json);
  }
  return g_string_free (g_steal_pointer (&log), FALSE);
}

/* One contract, both backends: the same steps give the same results on
 * a local store and on a server. */
static void
test_backends_keep_one_contract (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *store = g_build_filename (dir, "local.db", NULL);
  g_autofree char *local_folder = g_build_filename (dir, "local", "class", NULL);
  g_autofree char *server_folder = g_build_filename (dir, "server", "class", NULL);
  g_autofree char *uri = fresh_database ("contract", "postgres");
  g_autofree char *local = run_contract (store, local_folder);
  g_autofree char *remote = run_contract (uri, server_folder);

  assert_non_null (strstr (local, "add 6/0, again 6 unchanged\nrescan +1 ~1 -1 =4\nremoved 1\n"));
  assert_non_null (strstr (local, "list essay-000.txt essay-001.txt essay-004.txt essay-005.txt essay-new.txt\n"));
  if (strcmp (local, remote) != 0)
    {
      g_autofree char *pa = g_build_filename (g_get_tmp_dir (), "simhound-contract-local.txt", NULL);
      g_autofree char *pb = g_build_filename (g_get_tmp_dir (), "simhound-contract-server.txt", NULL);

      g_file_set_contents (pa, local, -1, NULL);
      g_file_set_contents (pb, remote, -1, NULL);
      fail_msg ("the backends differ: diff %s %s", pa, pb);
    }
  sim_test_remove_tree (dir);
}

/* The server gone after the snapshot was taken: the check fails naming
 * it, and a snapshot of a server that cannot be reached is not made. */
static void
test_check_fails_when_the_server_is_lost (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *uri = fresh_database ("lost_check", "wendy");
  g_autofree char *folder = g_build_filename (dir, "lost", NULL);
  const char *paths[] = { folder, NULL };
  g_autoptr(SimServer) server = NULL;
  g_autoptr(SimCorpusSnapshot) snapshot = NULL;
  g_autoptr(SimImportResult) added = NULL;
  g_autoptr(SimReport) report = NULL;
  g_autoptr(GError) error = NULL;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;

  ensure_roles ();
  write_documents (folder, 10, 3);
  server = sim_server_connect (uri, &error);
  assert_non_null (server);
  added = sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error);
  if (added == NULL)
    fail_msg ("add: %s", error->message);
  snapshot = sim_server_snapshot_new (uri, &error);
  assert_non_null (snapshot);
  g_free (superuser ("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'lost_check'"));
  report = sim_check_run (snapshot, ESSAY, strlen (ESSAY), &options, NULL, NULL, NULL, &error);
  assert_null (report);
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_SERVER));
  assert_non_null (strstr (error->message, "Lost the connection to the corpus server"));
  /* On one line: libpq's message has several. */
  assert_null (strpbrk (error->message, "\n\t"));
  sim_test_remove_tree (dir);
}


typedef struct {
  const char        *uri;
  const char *const *names;
  gboolean           ok;
  guint              n;
  GError            *error;
} Removal;

static gpointer
remove_these (gpointer data)
{
  Removal *removal = data;
  g_autoptr(SimServer) server = sim_server_connect (removal->uri, &removal->error);

  removal->ok = server != NULL && sim_server_remove (server, removal->names, &removal->n, &removal->error);
  return NULL;
}

/* Two documents removed at once, one of them taken by another removal
 * while this one waits on it: this one reads the texts before it
 * deletes, and only the document it deleted gives back what its text
 * added to the statistics, as if it had been removed alone. */
static void
test_remove_counts_what_it_deleted (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *class_dir = g_build_filename (dir, "class-race", NULL);
  g_autofree char *uri = fresh_database ("racing", "wendy");
  g_autofree char *alone_uri = fresh_database ("racing_alone", "wendy");
  g_autofree char *owner = g_strdup_printf ("postgresql://postgres@%s:%s/racing", g_getenv ("SIMHOUND_TEST_PG_HOST"),
                                            g_getenv ("SIMHOUND_TEST_PG_PORT"));
  g_autoptr(GError) error = NULL;
  g_autofree char *expected = NULL, *df_after = NULL;
  const char *paths[] = { class_dir, NULL };
  const char *second[] = { "class-race/essay-001.txt", NULL };
  const char *both[] = { "class-race/essay-000.txt", "class-race/essay-001.txt", NULL };
  const char *df_sql = "SELECT md5 (string_agg (counts, '' ORDER BY chunk)) FROM simhound.df";
  Removal removal = { uri, both, FALSE, 99, NULL };
  PGconn *conn;
  GThread *thread;
  guint n = 0;

  ensure_roles ();
  write_documents (class_dir, 3, 5);
  for (guint db = 0; db < 2; db++)
    {
      g_autoptr(SimServer) server = sim_server_connect (db == 0 ? uri : alone_uri, &error);
      g_autoptr(SimImportResult) added = NULL;

      assert_non_null (server);
      added = sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error);
      assert_non_null (added);
      assert_int_equal (added->n_added, 3);
      /* What the statistics are with the second document removed alone. */
      if (db == 1)
        {
          assert_true (sim_server_remove (server, second, &n, &error));
          assert_int_equal (n, 1);
        }
    }
  expected = superuser_in ("racing_alone", df_sql);

  /* Another removal holds the first document (its statistics left alone
   * here). */
  conn = PQconnectdb (owner);
  assert_int_equal (PQstatus (conn), CONNECTION_OK);
  PQclear (PQexec (conn, "BEGIN"));
  PQclear (PQexec (conn, "WITH gone AS (DELETE FROM simhound.documents WHERE name = 'class-race/essay-000.txt'"
                         "  RETURNING n_windows)"
                         " INSERT INTO simhound.tallies SELECT -count(*), -sum (n_windows), NULL FROM gone"));
  thread = g_thread_new ("remove", remove_these, &removal);
  /* Until this removal waits on that one's lock. */
  for (guint tries = 0; tries < 1000; tries++)
    {
      g_autofree char *waiting = superuser_in ("racing", "SELECT count(*) FROM pg_stat_activity"
                                                         " WHERE datname = 'racing' AND wait_event_type = 'Lock'");

      if (g_str_equal (waiting, "1"))
        break;
      g_usleep (10000);
    }
  PQclear (PQexec (conn, "COMMIT"));
  PQfinish (conn);
  g_thread_join (thread);
  if (!removal.ok)
    fail_msg ("remove: %s", removal.error->message);
  assert_int_equal (removal.n, 1);
  df_after = superuser_in ("racing", df_sql);
  assert_string_equal (df_after, expected);
  assert_tallies_match ("racing");
  sim_test_remove_tree (dir);
}

/* A server upgraded from schema version 1 holds documents without
 * postings: indexing them from their texts makes them found. */
static void
test_upgrade_indexes_documents (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *uri = fresh_database ("upgraded", "postgres");
  g_autofree char *folder = g_build_filename (dir, "old", NULL);
  g_autofree char *doc = NULL;
  g_autofree char *doc_path = NULL;
  const char *paths[] = { folder, NULL };
  g_autoptr(SimServer) server = NULL;
  g_autoptr(SimImportResult) added = NULL;
  g_autoptr(GError) error = NULL;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  guint n = 0;

  write_documents (folder, 12, 9);
  doc_path = g_build_filename (folder, "essay-004.txt", NULL);
  assert_true (g_file_get_contents (doc_path, &doc, NULL, NULL));
  server = sim_server_connect (uri, &error);
  added = sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error);
  assert_non_null (added);
  /* What version 1 left: no postings, no tallies (version 4), a student
   * policy with a subquery (version 8), each text one row (version 9). */
  g_free (superuser_in ("upgraded", "DROP TABLE simhound.tallies"));
  g_free (superuser_in ("upgraded", "CREATE TEMPORARY TABLE whole AS SELECT doc_id, string_agg (body, '' ORDER BY part) AS body"
                                    "   FROM simhound.texts GROUP BY doc_id;"
                                    " DELETE FROM simhound.texts;"
                                    " ALTER TABLE simhound.texts DROP CONSTRAINT texts_pkey;"
                                    " ALTER TABLE simhound.texts DROP COLUMN part;"
                                    " ALTER TABLE simhound.texts ADD PRIMARY KEY (doc_id);"
                                    " INSERT INTO simhound.texts SELECT * FROM whole"));
  g_free (superuser_in ("upgraded", "DROP POLICY texts_students ON simhound.texts;"
                                    " CREATE POLICY texts_students ON simhound.texts FOR SELECT TO simhound_student"
                                    " USING (EXISTS (SELECT FROM simhound.documents d JOIN simhound.collections c"
                                    "   ON c.id = d.collection_id WHERE d.id = texts.doc_id AND c.students_read))"));
  {
    g_autofree char *with_subqueries = superuser_in ("upgraded", POLICIES_WITH_SUBQUERIES);

    assert_string_equal (with_subqueries, "1");
  }
  g_free (superuser_in ("upgraded", "UPDATE simhound.meta SET value = '1' WHERE key = 'schema_version'"));
  assert_false (sim_server_check_schema (server, &error));
  g_clear_error (&error);
  assert_true (sim_server_upgrade (server, &error));
  {
    g_autofree char *with_subqueries = superuser_in ("upgraded", POLICIES_WITH_SUBQUERIES);

    assert_string_equal (with_subqueries, "0");
  }
  {
    /* The texts as they were, each read whole. */
    g_autofree char *whole = superuser_in ("upgraded", "SELECT count(*) FROM simhound.texts WHERE part = -1");

    assert_string_equal (whole, "12");
  }
  g_free (superuser_in ("upgraded", "DELETE FROM simhound.postings"));
  g_free (superuser_in ("upgraded", "DELETE FROM simhound.runs"));
  g_free (superuser_in ("upgraded", "UPDATE simhound.documents SET indexed = false"));
  for (guint pass = 0; pass < 2; pass++)
    {
      g_autoptr(SimCorpusSnapshot) snapshot = sim_server_snapshot_new (uri, &error);
      g_autoptr(SimReport) report = sim_check_run (snapshot, doc, strlen (doc), &options, NULL, NULL, NULL, &error);

      assert_non_null (report);
      assert_tallies_match ("upgraded");
      /* Not found before, found whole after. */
      assert_int_equal (sim_report_get_n_passages (report), pass);
      if (pass == 0)
        {
          assert_true (sim_server_index_documents (server, &n, &error));
          assert_int_equal (n, 12);
          assert_true (sim_server_index_documents (server, &n, &error));
          assert_int_equal (n, 0);
        }
    }
  sim_test_remove_tree (dir);
}

/* A check in database "kept" of @article through a new snapshot: its
 * comparable JSON. */
static char *
check_kept (const char *uri,
            const char *article)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimReport) report = check_anew (uri, article, &error);

  if (report == NULL)
    fail_msg ("check: %s", error->message);
  return comparable_json (report);
}

/* The feature statistics are kept beside the client for the next check
 * and used while the server's stamp is theirs: kept counts of zero (a
 * file written with the stamp) change the report, so they are what the
 * check read; a damaged file is fetched again; an add moves the stamp on,
 * and the check then reads the server's statistics, not the kept ones. */
static void
test_statistics_kept_beside_the_client (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *uri = fresh_database ("kept", "postgres");
  g_autofree char *first = g_build_filename (dir, "first", NULL);
  g_autofree char *second = g_build_filename (dir, "second", NULL);
  g_autofree char *doc_path = g_build_filename (first, "essay-007.txt", NULL);
  g_autofree char *doc = NULL, *article = NULL, *path = NULL, *stamp = NULL, *data = NULL;
  g_autofree char *fetched = NULL, *from_zeros = NULL, *again = NULL, *moved_on = NULL, *fresh = NULL;
  g_autofree guint32 *counts = NULL;
  g_autofree guint32 *zeros = g_new0 (guint32, SIM_DF_BUCKETS);
  g_autoptr(SimServer) server = NULL;
  g_autoptr(GError) error = NULL;
  const char *name;
  gsize len;

  (void) state;
  write_documents (first, 30, 31);
  write_documents (second, 30, 32);
  server = sim_server_connect (uri, &error);
  assert_non_null (server);
  name = sim_server_get_name (server);
  {
    const char *paths[] = { first, NULL };
    g_autoptr(SimImportResult) added = sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error);

    assert_non_null (added);
  }
  assert_true (g_file_get_contents (doc_path, &doc, NULL, NULL));
  /* Half a copy, half the writer's own. */
  article = g_strconcat ("The harbour lantern burned through the thunder of the glacier night. ", doc,
                         " Nobody in the meadow heard the copper bell of the quarry that spring.", NULL);
  path = _sim_server_df_cache_path (name);
  g_remove (path);
  fetched = check_kept (uri, article);
  counts = _sim_server_df_cache_read (name, &stamp);
  assert_non_null (counts);
  assert_non_null (stamp);
  assert_true (memcmp (counts, zeros, SIM_DF_BUCKETS * sizeof (guint32)) != 0);

  _sim_server_df_cache_write (name, stamp, zeros);
  from_zeros = check_kept (uri, article);
  assert_string_not_equal (from_zeros, fetched);

  /* A byte of the kept counts changed: not used, and written again. */
  assert_true (g_file_get_contents (path, &data, &len, NULL));
  data[len / 2] ^= 1;
  assert_true (g_file_set_contents (path, data, len, NULL));
  again = check_kept (uri, article);
  assert_string_equal (again, fetched);
  g_clear_pointer (&counts, g_free);
  g_clear_pointer (&stamp, g_free);
  counts = _sim_server_df_cache_read (name, &stamp);
  assert_non_null (counts);
  assert_true (memcmp (counts, zeros, SIM_DF_BUCKETS * sizeof (guint32)) != 0);

  /* Zeros kept under the stamp before an add: the add moves it on. */
  _sim_server_df_cache_write (name, stamp, zeros);
  {
    const char *paths[] = { second, NULL };
    g_autoptr(SimImportResult) added = sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error);

    assert_non_null (added);
  }
  moved_on = check_kept (uri, article);
  g_clear_pointer (&counts, g_free);
  {
    g_autofree char *old_stamp = g_steal_pointer (&stamp);

    counts = _sim_server_df_cache_read (name, &stamp);
    assert_non_null (counts);
    assert_string_not_equal (stamp, old_stamp);
    assert_true (memcmp (counts, zeros, SIM_DF_BUCKETS * sizeof (guint32)) != 0);
  }
  g_remove (path);
  fresh = check_kept (uri, article);
  assert_string_equal (moved_on, fresh);
  sim_test_remove_tree (dir);
}

/* What PostgreSQL counts of the lookup table's partitions' keys, @what
 * summed. */
#define BY_BUCKET(what) \
  "SELECT coalesce (sum (" what "), 0) FROM pg_stat_user_indexes" \
  " WHERE schemaname = 'simhound' AND relname LIKE 'postings\\_%' AND indexrelname LIKE '%pkey'"

/* Two runs of like bits, each holding every bucket: a check asks each
 * bucket of its keys once for both runs, by the key (bucket, run), and
 * reads two index entries a probe (asked a run at a time, it read one);
 * it finds what the second run holds. PostgreSQL counts a backend's
 * scans as it ends: the check's connections are closed, then the counts
 * awaited. The owner asks without simhound.lookup() (a student's way),
 * and both ways find the same postings. */
/* Calls of simhound.lookup() counted (track_functions). */
#define LOOKUP_CALLS "SELECT coalesce (sum (calls), 0) FROM pg_stat_user_functions" \
                     " WHERE schemaname = 'simhound' AND funcname = 'lookup'"

static int
compare_u64 (gconstpointer a,
             gconstpointer b)
{
  const guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

static void
test_lookup_asks_each_bucket_once (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *uri = fresh_database ("bybucket", "postgres");
  g_autofree char *first = g_build_filename (dir, "first", NULL);
  g_autofree char *second = g_build_filename (dir, "second", NULL);
  g_autofree char *doc_path = g_build_filename (second, "essay-017.txt", NULL);
  g_autofree char *doc = NULL;
  g_autoptr(SimServer) server = NULL;
  g_autoptr(GError) error = NULL;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  gint64 scans, entries;
  guint wait;

  (void) state;
  write_documents (first, 40, 21);
  write_documents (second, 40, 22);
  server = sim_server_connect (uri, &error);
  assert_non_null (server);
  for (guint i = 0; i < 2; i++)
    {
      const char *paths[] = { i == 0 ? first : second, NULL };
      g_autoptr(SimImportResult) added = sim_server_add (server, paths, NULL, NULL, NULL, NULL, &error);

      assert_non_null (added);
      assert_int_equal (added->n_added, 40);
    }
  assert_int_equal (value_in ("bybucket", "SELECT count(*) FROM simhound.runs"), 2);
  assert_int_equal (value_in ("bybucket", "SELECT count(DISTINCT bits) FROM simhound.runs"), 1);
  assert_int_equal (value_in ("bybucket", "SELECT count(*) FROM (SELECT bucket FROM simhound.postings"
                                          " GROUP BY bucket HAVING count(*) = 1) b"), 0);
  g_free (superuser_in ("bybucket", "ALTER DATABASE bybucket SET track_functions = 'pl'"));
  scans = value_in ("bybucket", BY_BUCKET ("idx_scan"));
  entries = value_in ("bybucket", BY_BUCKET ("idx_tup_read"));
  assert_true (g_file_get_contents (doc_path, &doc, NULL, NULL));
  {
    g_autoptr(SimCorpusSnapshot) snapshot = sim_server_snapshot_new (uri, &error);
    g_autoptr(SimReport) report = NULL;

    assert_non_null (snapshot);
    report = sim_check_run (snapshot, doc, strlen (doc), &options, NULL, NULL, NULL, &error);
    assert_non_null (report);
    assert_int_equal (sim_report_get_n_passages (report), 1);
  }
  for (wait = 0; wait < 100 && value_in ("bybucket", BY_BUCKET ("idx_scan")) == scans; wait++)
    g_usleep (100 * 1000);
  scans = value_in ("bybucket", BY_BUCKET ("idx_scan")) - scans;
  entries = value_in ("bybucket", BY_BUCKET ("idx_tup_read")) - entries;
  assert_true (scans > 0);
  assert_int_equal (entries, 2 * scans);
  assert_int_equal (value_in ("bybucket", LOOKUP_CALLS), 0);

  /* The document's keys asked both ways, on a connection counting calls. */
  {
    g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (SIM_NORMALIZE_FOLD_T2S);
    g_autoptr(GBytes) packed = NULL;
    g_autoptr(GArray) keys = g_array_new (FALSE, FALSE, sizeof (guint64));
    g_autoptr(GArray) direct = g_array_new (FALSE, FALSE, sizeof (SimPosting));
    g_autoptr(GArray) through = g_array_new (FALSE, FALSE, sizeof (SimPosting));
    SimServer *counted = sim_server_connect (uri, &error);
    const guint8 *p;
    gint64 start = 0;
    gsize n, kept = 0;

    assert_non_null (counted);
    packed = _sim_pack_windows (fp, doc, strlen (doc), &n, NULL);
    p = g_bytes_get_data (packed, NULL);
    for (gsize i = 0; i < n; i++)
      {
        const guint64 key = _sim_next_window (&p, &start) & SIM_BAND_INDEX_FILE_MASK;

        g_array_append_val (keys, key);
      }
    g_array_sort (keys, compare_u64);
    for (guint i = 0; i < keys->len; i++)
      if (kept == 0 || g_array_index (keys, guint64, i) != g_array_index (keys, guint64, kept - 1))
        g_array_index (keys, guint64, kept++) = g_array_index (keys, guint64, i);
    g_array_set_size (keys, kept);
    assert_true (_sim_server_postings_lookup (counted, (const guint64 *) keys->data, keys->len, TRUE, direct, &error));
    assert_true (_sim_server_postings_lookup (counted, (const guint64 *) keys->data, keys->len, FALSE, through,
                                              &error));
    /* Every window of the document, itself stored. */
    assert_true (direct->len >= keys->len);
    assert_int_equal (direct->len, through->len);
    assert_memory_equal (direct->data, through->data, direct->len * sizeof (SimPosting));
    sim_server_free (counted);
  }
  for (wait = 0; wait < 100 && value_in ("bybucket", LOOKUP_CALLS) == 0; wait++)
    g_usleep (100 * 1000);
  assert_int_equal (value_in ("bybucket", LOOKUP_CALLS), 1);
  sim_test_remove_tree (dir);
}

/* A run's rows read a document's windows a slice at a time: split, the
 * windows are the same ones (key and start), each in the slice of its
 * key's high bits, and windows not whole are refused. */
static void
test_split_keeps_every_window (void **state)
{
  g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (SIM_NORMALIZE_FOLD_T2S);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GBytes) packed = NULL;
  g_autoptr(GBytes) split = NULL;
  g_autoptr(GBytes) cut = NULL;
  g_autoptr(GArray) before = g_array_new (FALSE, FALSE, sizeof (SimPosting));
  g_autoptr(GArray) after = g_array_new (FALSE, FALSE, sizeof (SimPosting));
  guint32 slices[SIM_POSTING_SLICES + 1];
  const guint8 *p;
  gint64 start = 0;
  gsize n, n_split = 0;

  (void) state;
  for (guint i = 0; i < 300; i++)
    g_string_append_printf (text, "Sentence %u tells of the %s river, %u miles long. 第%u句说的是一条河。\n",
                            i, i % 3 ? "northern" : "southern", i * 7, i);
  packed = _sim_pack_windows (fp, text->str, text->len, &n, NULL);
  assert_true (n > 1000);
  p = g_bytes_get_data (packed, NULL);
  for (gsize i = 0; i < n; i++)
    {
      SimPosting w = { _sim_next_window (&p, &start) & SIM_BAND_INDEX_FILE_MASK, 0, (guint32) start };

      g_array_append_val (before, w);
    }
  split = _sim_posting_split (packed, slices, &n_split);
  assert_non_null (split);
  assert_int_equal (n_split, n);
  /* Smaller than packed: 5 bytes of key where packed windows keep 8 of SimHash. */
  assert_true (g_bytes_get_size (split) < g_bytes_get_size (packed));
  assert_int_equal (slices[0], 0);
  assert_int_equal (slices[SIM_POSTING_SLICES], g_bytes_get_size (split));
  for (guint s = 0; s < SIM_POSTING_SLICES; s++)
    {
      const guint8 *q = (const guint8 *) g_bytes_get_data (split, NULL) + slices[s];
      const guint8 *end = (const guint8 *) g_bytes_get_data (split, NULL) + slices[s + 1];

      assert_true (slices[s] <= slices[s + 1]);
      start = 0;
      while (q < end)
        {
          SimPosting w = { _sim_posting_next_split (&q, &start), 0, (guint32) start };

          assert_int_equal (w.key >> (SIM_POSTING_KEY_BITS - SIM_POSTING_SLICE_BITS), s);
          g_array_append_val (after, w);
        }
      assert_ptr_equal (q, end);
    }
  assert_int_equal (after->len, before->len);
  _sim_posting_sort (before);
  _sim_posting_sort (after);
  assert_memory_equal (after->data, before->data, before->len * sizeof (SimPosting));
  /* The last window cut in two. */
  cut = g_bytes_new_from_bytes (packed, 0, g_bytes_get_size (packed) - 5);
  assert_null (_sim_posting_split (cut, slices, &n_split));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_split_keeps_every_window),
    cmocka_unit_test (test_init_is_idempotent),
    cmocka_unit_test (test_newer_schema_is_refused),
    cmocka_unit_test (test_missing_schema_says_run_init),
    cmocka_unit_test (test_roles_are_enforced_by_the_server),
    cmocka_unit_test (test_add_stores_each_file_once),
    cmocka_unit_test (test_reader_may_not_add),
    cmocka_unit_test (test_eight_writers_at_once),
    cmocka_unit_test (test_students_read_marked_collections),
    cmocka_unit_test (test_student_check_flags_what_a_teacher_flags),
    cmocka_unit_test (test_two_shards_answer_as_one_server),
    cmocka_unit_test (test_backends_keep_one_contract),
    cmocka_unit_test (test_statements_are_bounded),
    cmocka_unit_test (test_citus_is_asked_for),
    cmocka_unit_test (test_add_survives_a_lost_connection),
    cmocka_unit_test (test_documents_wait_for_their_add),
    cmocka_unit_test (test_add_without_room_beside_it),
    cmocka_unit_test (test_stopped_add_indexes_what_it_added),
    cmocka_unit_test (test_remove_gives_back_the_statistics),
    cmocka_unit_test (test_rescan_follows_the_folder),
    cmocka_unit_test (test_unreachable_server_is_named),
    cmocka_unit_test (test_check_is_the_same_as_a_local_store),
    cmocka_unit_test (test_check_reads_parts_of_long_texts),
    cmocka_unit_test (test_texts_are_kept_in_parts),
    cmocka_unit_test (test_check_fails_when_the_server_is_lost),
    cmocka_unit_test (test_upgrade_indexes_documents),
    cmocka_unit_test (test_remove_counts_what_it_deleted),
    cmocka_unit_test (test_citus_layout_names_what_is_there),
    cmocka_unit_test (test_lookup_asks_each_bucket_once),
    cmocka_unit_test (test_statistics_kept_beside_the_client),
  };

  g_autofree char *cache = NULL;
  int failed;

  if (g_getenv ("SIMHOUND_TEST_PG") == NULL)
    {
      g_printerr ("SIMHOUND_TEST_PG is not set: run through tests/server/with-postgres.sh (meson test does)\n");
      return 1;
    }
  /* One test, or those a pattern names (by hand: "test_lookup_*"). */
  if (g_getenv ("SIMHOUND_TEST_ONLY") != NULL)
    cmocka_set_test_filter (g_getenv ("SIMHOUND_TEST_ONLY"));
  /* The statistics checks keep, in a folder of the tests' own. */
  cache = sim_test_make_tmp_dir ();
  g_setenv ("SIMHOUND_CACHE_DIR", cache, TRUE);
  failed = cmocka_run_group_tests (tests, setup_schema, NULL);
  sim_test_remove_tree (cache);
  return failed;
}
