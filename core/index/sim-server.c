/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The corpus server's connection, schema and roles (sim-server.h).
 */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>
#include <libpq-fe.h>

#include "sim-error.h"
#include "sim-fingerprint.h"
#include "sim-server-private.h"


/* The schema, version 1. Every statement may run again: init is
 * idempotent. The large table is hash-partitioned on its lookup key, so
 * its partitions can later live on other servers. */
static const char *const schema_v1[] = {
  "CREATE SCHEMA IF NOT EXISTS simhound",
  "CREATE TABLE IF NOT EXISTS simhound.meta ("
  "  key text PRIMARY KEY,"
  "  value text NOT NULL)",
  "CREATE TABLE IF NOT EXISTS simhound.collections ("
  "  id serial PRIMARY KEY,"
  "  name text NOT NULL UNIQUE,"
  "  students_read boolean NOT NULL DEFAULT false)",
  "INSERT INTO simhound.collections (name) VALUES ('default') ON CONFLICT (name) DO NOTHING",
  /* A document is identified by its content and the name it was added
   * under: two desktops adding the same file store it once. */
  "CREATE TABLE IF NOT EXISTS simhound.documents ("
  "  id bigserial PRIMARY KEY,"
  "  content_hash text NOT NULL,"
  "  name text NOT NULL,"
  "  title text NOT NULL,"
  "  collection_id integer NOT NULL REFERENCES simhound.collections (id),"
  "  n_chars bigint NOT NULL,"
  "  n_bytes bigint NOT NULL,"
  "  n_windows integer NOT NULL,"
  "  modified_at bigint NOT NULL,"
  "  added_at timestamptz NOT NULL DEFAULT now(),"
  "  UNIQUE (content_hash, name))",
  "CREATE TABLE IF NOT EXISTS simhound.texts ("
  "  doc_id bigint PRIMARY KEY REFERENCES simhound.documents (id) ON DELETE CASCADE,"
  "  body text NOT NULL)",
  /* The feature statistics: how many documents hold a feature of each df
   * bucket (SIM_DF_BUCKETS), in chunks of SIM_SERVER_DF_CHUNK counts
   * (little-endian u32): a batch adds to the chunks it touches, locked in
   * chunk order, where a row a bucket made every batch rewrite a third of
   * a million rows. */
  "CREATE TABLE IF NOT EXISTS simhound.df ("
  "  chunk integer PRIMARY KEY,"
  "  counts bytea NOT NULL)",
  "ALTER TABLE simhound.df ALTER COLUMN counts SET STORAGE MAIN",
  "INSERT INTO simhound.meta (key, value) VALUES ('normalize', 't2s') ON CONFLICT (key) DO NOTHING",
  /* The roles: group roles, no login; an administrator makes login roles
   * IN ROLE one of them. */
  "DO $$ BEGIN"
  "  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'simhound_student') THEN"
  "    CREATE ROLE simhound_student NOLOGIN; END IF;"
  "  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'simhound_reader') THEN"
  "    CREATE ROLE simhound_reader NOLOGIN; END IF;"
  "  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'simhound_writer') THEN"
  "    CREATE ROLE simhound_writer NOLOGIN; END IF;"
  "END $$",
  "GRANT simhound_reader TO simhound_writer",
  "GRANT USAGE ON SCHEMA simhound TO simhound_student, simhound_reader, simhound_writer",
  "GRANT SELECT ON simhound.meta, simhound.collections, simhound.documents, simhound.texts,"
  "  simhound.df TO simhound_student, simhound_reader",
  "GRANT INSERT, UPDATE, DELETE ON simhound.collections, simhound.documents, simhound.texts,"
  "  simhound.df TO simhound_writer",
  "GRANT USAGE ON ALL SEQUENCES IN SCHEMA simhound TO simhound_writer",
  /* What a student may read is the server's rule: row security on the
   * texts; only collections marked readable by students show. */
  "ALTER TABLE simhound.texts ENABLE ROW LEVEL SECURITY",
  "DROP POLICY IF EXISTS texts_readers ON simhound.texts",
  "CREATE POLICY texts_readers ON simhound.texts FOR SELECT TO simhound_reader USING (true)",
  "DROP POLICY IF EXISTS texts_writers ON simhound.texts",
  "CREATE POLICY texts_writers ON simhound.texts FOR ALL TO simhound_writer USING (true) WITH CHECK (true)",
  "DROP POLICY IF EXISTS texts_students ON simhound.texts",
  "CREATE POLICY texts_students ON simhound.texts FOR SELECT TO simhound_student USING ("
  "  EXISTS (SELECT FROM simhound.documents d JOIN simhound.collections c ON c.id = d.collection_id"
  "          WHERE d.id = texts.doc_id AND c.students_read))",
};

/* Version 2: the lookup table (sim-server-postings.c), and which
 * documents it holds (a document from version 1 is indexed by
 * sim_server_index_documents()). */
static const char *const to_v2[] = {
  "CREATE SEQUENCE IF NOT EXISTS simhound.run_ids",
  "CREATE TABLE IF NOT EXISTS simhound.runs ("
  "  run bigint PRIMARY KEY,"
  "  bits smallint NOT NULL,"
  "  n_postings bigint NOT NULL)",
  "CREATE TABLE IF NOT EXISTS simhound.postings ("
  "  run bigint NOT NULL,"
  "  bucket integer NOT NULL,"
  "  data bytea NOT NULL,"
  "  PRIMARY KEY (run, bucket)) PARTITION BY HASH (bucket)",
  "DO $$ BEGIN FOR i IN 0 .. " G_STRINGIFY (SIM_SERVER_PARTITIONS) " - 1 LOOP"
  "  EXECUTE format ('CREATE TABLE IF NOT EXISTS simhound.postings_%s PARTITION OF simhound.postings"
  "    FOR VALUES WITH (MODULUS " G_STRINGIFY (SIM_SERVER_PARTITIONS) ", REMAINDER %s)', i, i);"
  "  EXECUTE format ('ALTER TABLE simhound.postings_%s ALTER COLUMN data SET STORAGE MAIN', i);"
  "END LOOP; END $$",
  /* lz4 where the server has it: pglz took a fifth of the server's time
   * adding texts. */
  "DO $$ BEGIN ALTER TABLE simhound.texts ALTER COLUMN body SET COMPRESSION lz4;"
  " EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN NULL; END $$",
  "ALTER TABLE simhound.documents ADD COLUMN IF NOT EXISTS indexed boolean NOT NULL DEFAULT false",
  "ALTER TABLE simhound.documents ALTER COLUMN indexed SET DEFAULT true",
  "GRANT SELECT ON simhound.runs, simhound.postings TO simhound_student, simhound_reader",
  "GRANT INSERT, UPDATE, DELETE ON simhound.runs, simhound.postings TO simhound_writer",
  "GRANT USAGE ON ALL SEQUENCES IN SCHEMA simhound TO simhound_writer",
  NULL,
};

/* Version 3: lookups go through simhound.lookup(), the one way a
 * student reads the lookup table, and the documents they name through
 * simhound.documents_of(): the rows of the keys it brings, never
 * the table (pg_dump as a student dumps none of it), and no more keys a
 * day than simhound.meta's student_keys_per_day (counted per login role
 * in simhound.lookups): what bounds rebuilding a stored essay by chaining
 * guesses (README, "What a student account can learn"). Readers and
 * writers are not counted. */
static const char *const to_v3[] = {
  "CREATE TABLE IF NOT EXISTS simhound.lookups ("
  "  account name NOT NULL,"
  "  day date NOT NULL,"
  "  n_keys bigint NOT NULL,"
  "  PRIMARY KEY (account, day))",
  "INSERT INTO simhound.meta (key, value) VALUES ('student_keys_per_day', '" G_STRINGIFY (SIM_SERVER_STUDENT_KEYS_PER_DAY) "')"
  "  ON CONFLICT (key) DO NOTHING",
  SIM_SERVER_LOOKUP_FUNCTION (SIM_SERVER_LOOKUP_BY_BITS),
  "REVOKE ALL ON FUNCTION simhound.lookup (bigint[]) FROM PUBLIC",
  "GRANT EXECUTE ON FUNCTION simhound.lookup (bigint[]) TO simhound_student, simhound_reader",
  "REVOKE SELECT ON simhound.runs, simhound.postings FROM simhound_student",
  /* A document's title is often its first line: a student is given the
   * name it was added under instead, but for collections it may read.
   * The documents a check found come through documents_of(), with
   * whether their text is kept from the caller (as the texts' row
   * security decides it). */
  "CREATE OR REPLACE FUNCTION simhound.documents_of (ids bigint[])"
  "  RETURNS TABLE (id bigint, name text, title text, n_chars bigint, text_withheld boolean)"
  "  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$"
  "  SELECT d.id, d.name, CASE WHEN r.readable THEN d.title ELSE d.name END, d.n_chars, NOT r.readable"
  "  FROM simhound.documents d JOIN simhound.collections c ON c.id = d.collection_id,"
  "    LATERAL (SELECT c.students_read OR pg_has_role (session_user, 'simhound_reader', 'USAGE')"
  "               OR NOT pg_has_role (session_user, 'simhound_student', 'USAGE') AS readable) r"
  "  WHERE d.id = ANY (ids) ORDER BY d.id $f$",
  "REVOKE ALL ON FUNCTION simhound.documents_of (bigint[]) FROM PUBLIC",
  "GRANT EXECUTE ON FUNCTION simhound.documents_of (bigint[]) TO simhound_student, simhound_reader",
  "REVOKE SELECT ON simhound.documents FROM simhound_student",
  "GRANT SELECT (id, content_hash, name, collection_id, n_chars, n_bytes, n_windows, modified_at, added_at, indexed)"
  "  ON simhound.documents TO simhound_student",
  NULL,
};

/* Version 4: the documents' count, windows and last addition kept as
 * they change, a row for each statement that adds or removes documents
 * (in that statement: sim-server-corpus.c, sim-server-documents.c),
 * summed by a check and folded into one by a merge (sim-server-merge.c):
 * counting the documents took a check 18 ms at 44,000 documents, and
 * grows with them. Not a trigger: Citus runs a reference table's trigger
 * on each of its copies. */
static const char *const to_v4[] = {
  "CREATE TABLE IF NOT EXISTS simhound.tallies ("
  "  n_documents bigint NOT NULL,"
  "  n_windows bigint NOT NULL,"
  "  added_at timestamptz)",
  /* What was there before the tallies, once. */
  "LOCK TABLE simhound.documents IN SHARE MODE",
  "INSERT INTO simhound.tallies SELECT count(*), coalesce (sum (n_windows), 0), max (added_at) FROM simhound.documents"
  "  WHERE NOT EXISTS (SELECT FROM simhound.tallies)",
  /* The lookup table's partitions here (not those on shards: the
   * shards' own tables get it, sim-server-layout.c). */
  "DO $$ DECLARE t regclass; BEGIN"
  "  FOR t IN SELECT c.oid FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid"
  "           WHERE i.inhparent = 'simhound.postings'::regclass AND c.relkind = 'r' LOOP"
  "    EXECUTE format ('ALTER TABLE %s SET " SIM_SERVER_POSTINGS_STORAGE "', t);"
  "  END LOOP; END $$",
  "GRANT SELECT ON simhound.tallies TO simhound_student, simhound_reader",
  "GRANT INSERT, DELETE ON simhound.tallies TO simhound_writer",
  NULL,
};

/* Version 5: the documents removed whose postings a run may still hold
 * (sim-server-documents.c adds them, a merge of every run takes them
 * out: sim-server-merge.c). A check that knows them takes every other
 * document its lookup finds for one that is there, with no statement to
 * ask (sim-server-snapshot.c): asking cost 45-68 ms a check at 1 GB. On
 * an older corpus, every id given out and not in use, once. */
static const char *const to_v5[] = {
  "CREATE TABLE IF NOT EXISTS simhound.removed (id bigint PRIMARY KEY)",
  "LOCK TABLE simhound.documents IN SHARE MODE",
  "INSERT INTO simhound.removed"
  "  SELECT g FROM generate_series (1, (SELECT CASE WHEN is_called THEN last_value ELSE 0 END"
  "                                    FROM simhound.documents_id_seq)) g"
  "  WHERE NOT EXISTS (SELECT FROM simhound.documents d WHERE d.id = g)"
  "  ON CONFLICT DO NOTHING",
  "GRANT SELECT ON simhound.removed TO simhound_student, simhound_reader",
  "GRANT INSERT, DELETE ON simhound.removed TO simhound_writer",
  /* On one server, lookups without a sort of their (run, bucket) pairs
   * (sim-server-private.h); spread over servers, they ask by buckets. */
  "DO $do$ BEGIN"
  "  IF NOT EXISTS (SELECT FROM simhound.meta WHERE key = 'layout') THEN"
  "    EXECUTE $sql$" SIM_SERVER_LOOKUP_FUNCTION (SIM_SERVER_LOOKUP_BY_BITS) "$sql$;"
  "  END IF;"
  " END $do$",
  NULL,
};

/* Version 6: the add a document not yet in the lookup table waits for.
 * An add keeps its postings beside it and writes them as one run when it
 * ends (sim-server-corpus.c). The documents it adds meanwhile name it as
 * their owner: an id in simhound.adds, on which its session holds an
 * advisory lock (SIM_SERVER_OWNER_LOCK) while it runs, and whose row the
 * run's transaction deletes (marking each document indexed instead took
 * 0.2 s of an add of 9,347 files). A document waits while its owner's
 * row is there; those whose add ended before their run was written
 * (killed, its connection lost) are indexed from their stored texts by
 * the next add (sim_server_index_documents()), as are those of version 1
 * (not indexed; the partial index finds them at once, and stays empty). */
static const char *const to_v6[] = {
  "ALTER TABLE simhound.documents ADD COLUMN IF NOT EXISTS owner bigint",
  "CREATE TABLE IF NOT EXISTS simhound.adds (owner bigint PRIMARY KEY)",
  "CREATE INDEX IF NOT EXISTS documents_not_indexed ON simhound.documents (id) WHERE NOT indexed",
  "GRANT SELECT, INSERT, DELETE ON simhound.adds TO simhound_writer",
  NULL,
};

/* Version 7: on one server, the lookup table keyed (bucket, run), as the
 * shards key theirs, so a lookup reads every run of like bits with one
 * probe a bucket (sim-server-private.h). A second index on (bucket, run)
 * beside the key (run, bucket) did as well for checks, but every row an
 * add wrote cost two index entries: its run's COPY took half as long
 * again. A merge reads each run's buckets by their range, the run
 * checked on the index's entries, and deletes a run the same way
 * (sim-server-merge.c). */
static const char *const to_v7[] = {
  "DO $do$ BEGIN"
  "  IF NOT EXISTS (SELECT FROM simhound.meta WHERE key = 'layout') THEN"
  "    ALTER TABLE simhound.postings DROP CONSTRAINT postings_pkey;"
  "    ALTER TABLE simhound.postings ADD PRIMARY KEY (bucket, run);"
  "    EXECUTE $sql$" SIM_SERVER_LOOKUP_FUNCTION (SIM_SERVER_LOOKUP_BY_BITS) "$sql$;"
  "  END IF;"
  " END $do$",
  NULL,
};

/* The steps from version N to N + 1, index N - 1. */
static const char *const *const upgrades[] = { to_v2, to_v3, to_v4, to_v5, to_v6, to_v7 };

/* @s (a server's or libpq's message, several lines) on one line, in
 * place: a message printed for the user was "…unexpectedly\x0a\x09This
 * probably means…". Returns @s. */
static char *
one_line (char *s)
{
  char *to = s;

  for (const char *p = s; *p != '\0'; p++)
    if (*p == '\n' || *p == '\t' || *p == '\r')
      {
        if (to > s && to[-1] != ' ')
          *to++ = ' ';
      }
    else
      *to++ = *p;
  *to = '\0';
  return g_strstrip (s);
}

void
_sim_server_set_lost (SimServer  *server,
          GError    **error,
          const char *what)
{
  g_autofree char *message = one_line (g_strdup (PQerrorMessage (server->conn)));

  g_set_error (error, SIM_ERROR, SIM_ERROR_SERVER, _("Lost the connection to the corpus server %s: %s"),
               server->name, *message ? message : what);
}

/* Runs @sql; the result when it succeeded (command or rows), else NULL and
 * @error: SIM_ERROR_SERVER when the connection is gone, SIM_ERROR_NOT_ALLOWED
 * when the account may not, SIM_ERROR_STORE otherwise. */
/* With SIMHOUND_SERVER_TRACE set, each statement's time, rows (or bytes
 * sent) and bytes received on stderr, and when it began, from the first
 * statement: where a check or an add waits, and what the client does
 * between. Statements are counted for the tests. */
static gint n_statements;

guint
_sim_server_n_statements (void)
{
  return (guint) g_atomic_int_get (&n_statements);
}

static void
trace (const SimServer *server,
       gint64           since,
       gsize            rows,
       const PGresult  *result,
       const char      *sql)
{
  static gsize once;
  static gboolean on;
  static gint64 first;
  gsize bytes = 0;

  if (g_once_init_enter (&once))
    {
      on = g_getenv ("SIMHOUND_SERVER_TRACE") != NULL;
      first = since;
      g_once_init_leave (&once, 1);
    }
  if (server == NULL || !server->beside)
    g_atomic_int_inc (&n_statements);
  if (!on)
    return;
  for (int row = 0; result != NULL && row < PQntuples (result); row++)
    for (int column = 0; column < PQnfields (result); column++)
      bytes += PQgetlength (result, row, column);
  g_printerr ("simhound: server %.1f ms at %.1f ms, %" G_GSIZE_FORMAT " rows or bytes, %" G_GSIZE_FORMAT " bytes back: %.60s\n",
              (g_get_monotonic_time () - since) / 1000.0, (since - first) / 1000.0, rows, bytes, sql);
}

PGresult *
_sim_server_run (SimServer          *server,
                 const char         *sql,
                 int                 n_params,
                 const char *const  *params,
                 GError            **error)
{
  return _sim_server_run_as (server, sql, n_params, params, 0, error);
}

/* @result when it succeeded (command or rows), else NULL and @error. */
static PGresult *
succeeded (SimServer  *server,
           PGresult   *result,
           GError    **error)
{
  if (result != NULL &&
      (PQresultStatus (result) == PGRES_COMMAND_OK || PQresultStatus (result) == PGRES_TUPLES_OK))
    return result;
  _sim_server_set_error (server, result, error);
  PQclear (result);
  return NULL;
}

PGresult *
_sim_server_run_as (SimServer          *server,
                    const char         *sql,
                    int                 n_params,
                    const char *const  *params,
                    int                 result_format,
                    GError            **error)
{
  const gint64 t0 = g_get_monotonic_time ();
  PGresult *result = PQexecParams (server->conn, sql, n_params, NULL, params, NULL, NULL, result_format);

  trace (server, t0, result ? PQntuples (result) : 0, result, sql);
  return succeeded (server, result, error);
}

PGresult *
_sim_server_run_binary (SimServer          *server,
                        const char         *sql,
                        int                 n_params,
                        const char *const  *values,
                        const int          *lengths,
                        const int          *formats,
                        GError            **error)
{
  const gint64 t0 = g_get_monotonic_time ();
  PGresult *result = PQexecParams (server->conn, sql, n_params, NULL, values, lengths, formats, 0);
  gsize bytes = 0;

  for (int i = 0; i < n_params; i++)
    bytes += lengths[i];
  trace (server, t0, bytes, result, sql);
  return succeeded (server, result, error);
}

void
_sim_server_set_error (SimServer       *server,
                       const PGresult  *result,
                       GError         **error)
{
  const char *state;
  g_autofree char *message = NULL;

  if (PQstatus (server->conn) == CONNECTION_BAD)
    {
      _sim_server_set_lost (server, error, _("no answer"));
      return;
    }
  state = result ? PQresultErrorField (result, PG_DIAG_SQLSTATE) : NULL;
  message = one_line (g_strdup (result ? PQresultErrorMessage (result) : PQerrorMessage (server->conn)));
  /* The server shut down or crashed under the statement (57P01-57P05:
   * "terminating connection due to unexpected postmaster exit"), or the
   * connection failed (class 08): lost, before libpq says so. An add
   * stopped mid-batch took it for a batch refused and went on. */
  if (state != NULL && (g_str_has_prefix (state, "08") || g_str_has_prefix (state, "57P")))
    {
      _sim_server_set_lost (server, error, message);
      return;
    }
  if (state != NULL && g_str_equal (state, "53400"))
    g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_ALLOWED,
                 _("This account has made all the lookups it may make today on the corpus server %s: "
                   "check again tomorrow, or ask the server’s administrator"), server->name);
  else if (state != NULL && g_str_equal (state, "42501"))
    g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_ALLOWED,
                 _("This account may not do that on the corpus server %s: %s"), server->name, message);
  else
    g_set_error (error, SIM_ERROR, SIM_ERROR_STORE, _("The corpus server %s refused a statement: %s"),
                 server->name, message);
}

#define COPY_PIECE (256u << 10)

gboolean
_sim_server_copy_begin (SimServer     *server,
                        SimServerCopy *copy,
                        const char    *sql,
                        GError       **error)
{
  PGresult *result;

  *copy = (SimServerCopy) { sql, g_get_monotonic_time (), 0, FALSE };
  result = PQexec (server->conn, sql);
  if (PQresultStatus (result) != PGRES_COPY_IN)
    {
      _sim_server_set_error (server, result, error);
      PQclear (result);
      trace (server, copy->since, 0, NULL, sql);
      return FALSE;
    }
  PQclear (result);
  copy->ok = TRUE;
  return TRUE;
}

void
_sim_server_copy_put (SimServer     *server,
                      SimServerCopy *copy,
                      const char    *data,
                      gsize          len)
{
  /* A message a piece: libpq keeps room for the largest message it sent
   * for as long as the connection lasts. */
  for (gsize at = 0; copy->ok && at < len; at += COPY_PIECE)
    copy->ok = PQputCopyData (server->conn, data + at, (int) MIN (COPY_PIECE, len - at)) == 1;
  copy->bytes += len;
}

gboolean
_sim_server_copy_end (SimServer     *server,
                      SimServerCopy *copy,
                      GError       **error)
{
  gboolean ok = copy->ok && PQputCopyEnd (server->conn, NULL) == 1;
  PGresult *result;

  while ((result = PQgetResult (server->conn)) != NULL)
    {
      if (PQresultStatus (result) != PGRES_COMMAND_OK && ok)
        {
          ok = FALSE;
          _sim_server_set_error (server, result, error);
        }
      PQclear (result);
    }
  if (!ok && error != NULL && *error == NULL)
    _sim_server_set_lost (server, error, _("no answer"));
  trace (server, copy->since, copy->bytes, NULL, copy->sql);
  return ok;
}

gboolean
_sim_server_copy (SimServer  *server,
                  const char *sql,
                  GString    *rows,
                  GError    **error)
{
  SimServerCopy copy;

  if (!_sim_server_copy_begin (server, &copy, sql, error))
    return FALSE;
  _sim_server_copy_put (server, &copy, rows->str, rows->len);
  return _sim_server_copy_end (server, &copy, error);
}

void
_sim_server_append_bytea (GString      *rows,
                          const guint8 *data,
                          gsize         len)
{
  static const char hex[] = "0123456789abcdef";
  gsize at;

  g_string_append (rows, "\\\\x");
  at = rows->len;
  g_string_set_size (rows, at + 2 * len);
  for (gsize k = 0; k < len; k++)
    {
      rows->str[at + 2 * k] = hex[data[k] >> 4];
      rows->str[at + 2 * k + 1] = hex[data[k] & 15];
    }
}

gboolean
_sim_server_same_features (SimServer  *server,
                           GError    **error)
{
  PGresult *result = _sim_server_run (server, "SELECT value FROM simhound.meta WHERE key = 'feature_version'",
                                      0, NULL, error);
  guint version;

  if (result == NULL)
    return FALSE;
  version = PQntuples (result) == 1 ? (guint) g_ascii_strtoull (PQgetvalue (result, 0, 0), NULL, 10) : 0;
  PQclear (result);
  return _sim_server_usable_features (server, version, error);
}

gboolean
_sim_server_usable_features (SimServer  *server,
                             guint       version,
                             GError    **error)
{
  if (version == SIM_FEATURE_VERSION)
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_STORE_TOO_NEW,
               _("The corpus server %s keeps fingerprints of version %u; this Simhound makes version %u"),
               server->name, version, SIM_FEATURE_VERSION);
  return FALSE;
}

gboolean
_sim_server_may_write (SimServer  *server,
                       GError    **error)
{
  PGresult *result = _sim_server_run (server, "SELECT has_table_privilege('simhound.documents', 'INSERT')",
                                      0, NULL, error);
  gboolean yes;

  if (result == NULL)
    return FALSE;
  yes = g_str_equal (PQgetvalue (result, 0, 0), "t");
  PQclear (result);
  if (!yes)
    g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_ALLOWED,
                 _("%s: this account may check the corpus but not change it"), server->name);
  return yes;
}

char *
_sim_server_array_literal (const gint64 *values,
                           gsize         n)
{
  GString *s = g_string_sized_new (n * 8 + 2);

  g_string_append_c (s, '{');
  for (gsize i = 0; i < n; i++)
    g_string_append_printf (s, i ? ",%" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, values[i]);
  g_string_append_c (s, '}');
  return g_string_free (s, FALSE);
}

gboolean
_sim_server_run_command (SimServer  *server,
             const char *sql,
             GError    **error)
{
  PGresult *result = _sim_server_run (server, sql, 0, NULL, error);

  PQclear (result);
  return result != NULL;
}

static void
ignore_notice (void       *data,
               const char *message)
{
}

SimServer *
sim_server_connect (const char  *conninfo,
                    GError     **error)
{
  return sim_server_connect_with_password (conninfo, NULL, error);
}

SimServer *
sim_server_connect_with_password (const char  *conninfo,
                                  const char  *password,
                                  GError     **error)
{
  return _sim_server_connect_with_options (conninfo, password, NULL, error);
}

SimServer *
_sim_server_connect_with_options (const char  *conninfo,
                                  const char  *password,
                                  const char  *settings,
                                  GError     **error)
{
  /* The statement timeout (and @settings) go with the connection, not in
   * a round trip of their own; so does room for an add's staging tables
   * in memory (the default 8 MB went to disk a batch; a session that
   * makes none uses none of it). */
  g_autofree char *options = g_strdup_printf ("-c statement_timeout=%d -c temp_buffers=64MB%s%s", SIM_SERVER_STATEMENT_TIMEOUT,
                                              settings ? " " : "", settings ? settings : "");
  const char *const keys[] = { "connect_timeout", "application_name", "options", "dbname",
                               password ? "password" : NULL, NULL };
  g_autofree char *timeout = g_strdup_printf ("%d", SIM_SERVER_CONNECT_TIMEOUT);
  const char *const values[] = { timeout, "simhound", options, conninfo, password, NULL };
  g_autoptr(SimServer) server = g_new0 (SimServer, 1);

  server->spread = -1;

  g_return_val_if_fail (conninfo != NULL, NULL);

  /* Parameters after the expanded dbname override it; those before it
   * are defaults it may override (its own connect_timeout wins). */
  server->conn = PQconnectdbParams (keys, values, 1);
  if (server->conn == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_SERVER, _("Cannot reach the corpus server: out of memory"));
      return NULL;
    }
  server->name = g_strdup_printf ("%s:%s/%s", PQhost (server->conn) ? PQhost (server->conn) : "?",
                                  PQport (server->conn) ? PQport (server->conn) : "?",
                                  PQdb (server->conn) ? PQdb (server->conn) : "?");
  if (PQstatus (server->conn) != CONNECTION_OK)
    {
      g_autofree char *message = one_line (g_strdup (PQerrorMessage (server->conn)));

      g_set_error (error, SIM_ERROR, SIM_ERROR_SERVER, _("Cannot reach the corpus server %s: %s"),
                   server->name, message);
      return NULL;
    }
  /* "policy … does not exist, skipping" and the like are for a DBA's psql. */
  PQsetNoticeProcessor (server->conn, ignore_notice, NULL);
  server->conninfo = g_strdup (conninfo);
  server->password = g_strdup (password);
  server->settings = g_strdup (settings);
  return g_steal_pointer (&server);
}

SimServer *
_sim_server_connect_again (SimServer *server,
                           GError   **error)
{
  return _sim_server_connect_with_options (server->conninfo, server->password, server->settings, error);
}

void
sim_server_free (SimServer *server)
{
  if (server == NULL)
    return;
  if (server->conn != NULL)
    PQfinish (server->conn);
  g_free (server->name);
  g_free (server->conninfo);
  if (server->password != NULL)
    memset (server->password, 0, strlen (server->password));
  g_free (server->password);
  g_free (server->settings);
  g_free (server);
}

const char *
sim_server_get_name (SimServer *server)
{
  return server->name;
}

gboolean
sim_server_get_version (SimServer *server,
                        guint     *out_version,
                        GError   **error)
{
  PGresult *result = _sim_server_run (server, "SELECT to_regclass('simhound.meta') IS NOT NULL", 0, NULL, error);
  gboolean installed;

  if (result == NULL)
    return FALSE;
  installed = g_str_equal (PQgetvalue (result, 0, 0), "t");
  PQclear (result);
  *out_version = 0;
  if (!installed)
    return TRUE;
  result = _sim_server_run (server, "SELECT value FROM simhound.meta WHERE key = 'schema_version'", 0, NULL, error);
  if (result == NULL)
    return FALSE;
  if (PQntuples (result) == 1)
    *out_version = (guint) g_ascii_strtoull (PQgetvalue (result, 0, 0), NULL, 10);
  PQclear (result);
  return TRUE;
}

static gboolean
refuse_newer (SimServer *server,
              guint      version,
              GError   **error)
{
  if (version <= SIM_SERVER_SCHEMA_VERSION)
    return TRUE;
  g_set_error (error, SIM_ERROR, SIM_ERROR_STORE_TOO_NEW,
               _("The corpus server %s has schema version %u; this Simhound knows version %u at most: "
                 "update Simhound"), server->name, version, SIM_SERVER_SCHEMA_VERSION);
  return FALSE;
}

gboolean
sim_server_check_schema (SimServer *server,
                         GError   **error)
{
  guint version;

  return sim_server_get_version (server, &version, error) && _sim_server_usable_schema (server, version, error);
}

gboolean
_sim_server_usable_schema (SimServer *server,
                           guint      version,
                           GError   **error)
{
  if (!refuse_newer (server, version, error))
    return FALSE;
  if (version == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE,
                   _("The corpus server %s holds no Simhound corpus: run “simhound-cli server init”"), server->name);
      return FALSE;
    }
  if (version < SIM_SERVER_SCHEMA_VERSION)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE,
                   _("The corpus server %s has schema version %u, older than this Simhound's %u: "
                     "run “simhound-cli server upgrade”"), server->name, version, SIM_SERVER_SCHEMA_VERSION);
      return FALSE;
    }
  return TRUE;
}

/* Runs @body in one transaction, holding the lock every schema change
 * takes: two administrators at once take turns. */
static gboolean
in_schema_transaction (SimServer  *server,
                       gboolean  (*body) (SimServer *, guint, GError **),
                       GError    **error)
{
  guint version;

  if (!_sim_server_run_command (server, "BEGIN", error))
    return FALSE;
  if (!_sim_server_run_command (server, "SELECT pg_advisory_xact_lock(7437357120)", error) ||
      !sim_server_get_version (server, &version, error) || !refuse_newer (server, version, error) ||
      !body (server, version, error))
    {
      if (PQstatus (server->conn) == CONNECTION_OK)
        _sim_server_run_command (server, "ROLLBACK", NULL);
      return FALSE;
    }
  return _sim_server_run_command (server, "COMMIT", error);
}

static gboolean
set_version (SimServer *server,
             guint      version,
             GError   **error)
{
  g_autofree char *value = g_strdup_printf ("%u", version);
  const char *params[] = { value };
  PGresult *result = _sim_server_run (server,
                          "INSERT INTO simhound.meta (key, value) VALUES ('schema_version', $1) "
                          "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", 1, params, error);

  PQclear (result);
  return result != NULL;
}

static gboolean
upgrade_from (SimServer *server,
              guint      version,
              GError   **error)
{
  for (guint v = version; v < SIM_SERVER_SCHEMA_VERSION; v++)
    {
      for (const char *const *step = upgrades[v - 1]; step != NULL && *step != NULL; step++)
        if (!_sim_server_run_command (server, *step, error))
          return FALSE;
      if (!set_version (server, v + 1, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
install (SimServer *server,
         guint      version,
         GError   **error)
{
  g_autofree char *feature = g_strdup_printf ("%d", SIM_FEATURE_VERSION);
  const char *params[] = { feature };
  PGresult *result;

  if (version > 0)
    return upgrade_from (server, version, error);
  for (guint i = 0; i < G_N_ELEMENTS (schema_v1); i++)
    if (!_sim_server_run_command (server, schema_v1[i], error))
      return FALSE;
  /* The fingerprints' version: every desktop adding must make the same. */
  result = _sim_server_run (server, "INSERT INTO simhound.meta (key, value) VALUES ('feature_version', $1) "
                            "ON CONFLICT (key) DO NOTHING", 1, params, error);
  if (result == NULL)
    return FALSE;
  PQclear (result);
  return set_version (server, 1, error) && upgrade_from (server, 1, error);
}

gboolean
sim_server_init (SimServer *server,
                 GError   **error)
{
  return in_schema_transaction (server, install, error);
}

static gboolean
upgrade (SimServer *server,
         guint      version,
         GError   **error)
{
  if (version == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE,
                   _("The corpus server %s holds no Simhound corpus: run “simhound-cli server init”"), server->name);
      return FALSE;
    }
  return upgrade_from (server, version, error);
}

gboolean
sim_server_upgrade (SimServer *server,
                    GError   **error)
{
  return in_schema_transaction (server, upgrade, error);
}

static gint64
int_value (PGresult *result,
           int       column)
{
  return PQgetisnull (result, 0, column) ? 0 : g_ascii_strtoll (PQgetvalue (result, 0, column), NULL, 10);
}

SimServerStatus *
sim_server_get_status (SimServer  *server,
                       GError    **error)
{
  g_autoptr(SimServerStatus) status = g_new0 (SimServerStatus, 1);
  PGresult *result;

  if (!sim_server_check_schema (server, error))
    return NULL;
  status->version = SIM_SERVER_SCHEMA_VERSION;
  status->relations = g_array_new (FALSE, FALSE, sizeof (SimServerRelation));
  result = _sim_server_run (server,
                "SELECT count(*), sum(n_bytes),"
                "  CASE WHEN pg_has_role('simhound_writer', 'USAGE') THEN 'writer'"
                "       WHEN pg_has_role('simhound_reader', 'USAGE') THEN 'reader'"
                "       WHEN pg_has_role('simhound_student', 'USAGE') THEN 'student'"
                "       ELSE 'none' END,"
                "  (SELECT pg_get_userbyid(nspowner) = current_user FROM pg_namespace WHERE nspname = 'simhound')"
                " FROM simhound.documents", 0, NULL, error);
  if (result == NULL)
    return NULL;
  status->n_documents = int_value (result, 0);
  status->text_bytes = int_value (result, 1);
  status->role = g_strdup (g_str_equal (PQgetvalue (result, 0, 3), "t") ? "owner" : PQgetvalue (result, 0, 2));
  PQclear (result);
  result = _sim_server_run (server,
                "SELECT n.nspname || '.' || c.relname,"
                "  CASE WHEN c.relkind = 'p' THEN (SELECT sum(pg_table_size(relid)) FROM pg_partition_tree(c.oid))"
                "       ELSE pg_table_size(c.oid) END,"
                "  CASE WHEN c.relkind = 'p' THEN (SELECT sum(pg_indexes_size(relid)) FROM pg_partition_tree(c.oid))"
                "       ELSE pg_indexes_size(c.oid) END"
                " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                " WHERE n.nspname = 'simhound' AND c.relkind IN ('r', 'p') AND NOT c.relispartition"
                " ORDER BY 2 DESC, 1", 0, NULL, error);
  if (result == NULL)
    return NULL;
  for (int i = 0; i < PQntuples (result); i++)
    {
      SimServerRelation r = { g_strdup (PQgetvalue (result, i, 0)),
                              g_ascii_strtoll (PQgetvalue (result, i, 1), NULL, 10),
                              g_ascii_strtoll (PQgetvalue (result, i, 2), NULL, 10) };

      g_array_append_val (status->relations, r);
    }
  PQclear (result);
  return g_steal_pointer (&status);
}

void
sim_server_status_free (SimServerStatus *status)
{
  if (status == NULL)
    return;
  for (guint i = 0; status->relations && i < status->relations->len; i++)
    g_free (g_array_index (status->relations, SimServerRelation, i).name);
  if (status->relations)
    g_array_unref (status->relations);
  g_free (status->role);
  g_free (status);
}
