/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The corpus server's schema and roles, against a throwaway PostgreSQL
 * cluster (tests/server/with-postgres.sh sets SIMHOUND_TEST_PG).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include <libpq-fe.h>

#include "sim-error.h"
#include "sim-server.h"

#define ESSAY   "Salt marshes store carbon faster than any forest we measured on the estuary."
#define READING "The tide tables for the northern harbour are printed every spring."

static char *
uri_for (const char *user)
{
  return g_strdup_printf ("postgresql://%s@%s:%s/postgres", user, g_getenv ("SIMHOUND_TEST_PG_HOST"),
                          g_getenv ("SIMHOUND_TEST_PG_PORT"));
}

/* Runs @sql as the superuser; its first value, or NULL. */
static char *
superuser (const char *sql)
{
  PGconn *conn = PQconnectdb (g_getenv ("SIMHOUND_TEST_PG"));
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

static int
setup_schema (void **state)
{
  g_autoptr(SimServer) server = connect_as ("postgres");
  g_autoptr(GError) error = NULL;

  if (!sim_server_init (server, &error))
    fail_msg ("init: %s", error->message);
  return 0;
}

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
  collections = superuser ("SELECT count(*) FROM simhound.collections");
  assert_string_equal (collections, "1");
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
  g_free (superuser ("UPDATE simhound.meta SET value = '1' WHERE key = 'schema_version'"));
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

  g_free (superuser ("DO $$ BEGIN"
                     "  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'alice') THEN"
                     "    CREATE ROLE alice LOGIN IN ROLE simhound_student;"
                     "    CREATE ROLE tom LOGIN IN ROLE simhound_reader;"
                     "    CREATE ROLE wendy LOGIN IN ROLE simhound_writer; END IF; END $$"));
  g_free (superuser ("INSERT INTO simhound.collections (name, students_read) VALUES ('readings', true)"
                     " ON CONFLICT (name) DO NOTHING"));
  g_free (superuser ("WITH d AS (INSERT INTO simhound.documents (content_hash, name, title, collection_id, n_chars, n_bytes)"
                     "  SELECT '\\x01', 'essay.txt', 'Salt marshes', id, 77, 77 FROM simhound.collections"
                     "  WHERE name = 'default' RETURNING id)"
                     " INSERT INTO simhound.texts SELECT id, '" ESSAY "' FROM d"));
  g_free (superuser ("WITH d AS (INSERT INTO simhound.documents (content_hash, name, title, collection_id, n_chars, n_bytes)"
                     "  SELECT '\\x02', 'tides.txt', 'Tides', id, 66, 66 FROM simhound.collections"
                     "  WHERE name = 'readings' RETURNING id)"
                     " INSERT INTO simhound.texts SELECT id, '" READING "' FROM d"));

  /* The reader: the status names its role; a write is refused, nothing written. */
  reader = connect_as ("tom");
  status = sim_server_get_status (reader, &error);
  assert_non_null (status);
  assert_string_equal (status->role, "reader");
  assert_int_equal (status->n_documents, 2);
  g_clear_pointer (&status, sim_server_status_free);
  conn = PQconnectdb (reader_uri);
  result = PQexec (conn, "SELECT count(*) FROM simhound.texts");
  assert_string_equal (PQgetvalue (result, 0, 0), "2");
  PQclear (result);
  result = PQexec (conn, "DELETE FROM simhound.texts");
  assert_int_equal (PQresultStatus (result), PGRES_FATAL_ERROR);
  assert_string_equal (PQresultErrorField (result, PG_DIAG_SQLSTATE), "42501");
  PQclear (result);
  PQfinish (conn);
  count = superuser ("SELECT count(*) FROM simhound.texts");
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
  assert_true (sim_server_is_location (uri));
  assert_true (sim_server_is_location ("service=simhound"));
  assert_false (sim_server_is_location ("/home/me/corpus.db"));
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_init_is_idempotent),
    cmocka_unit_test (test_newer_schema_is_refused),
    cmocka_unit_test (test_missing_schema_says_run_init),
    cmocka_unit_test (test_roles_are_enforced_by_the_server),
    cmocka_unit_test (test_unreachable_server_is_named),
  };

  if (g_getenv ("SIMHOUND_TEST_PG") == NULL)
    {
      g_printerr ("SIMHOUND_TEST_PG is not set: run through tests/server/with-postgres.sh (meson test does)\n");
      return 1;
    }
  return cmocka_run_group_tests (tests, setup_schema, NULL);
}
