/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The corpus server's schema and roles (sim-server.h): its versions,
 * each step from one to the next, installing and upgrading it, and the
 * server's status. Statements go through sim-server.c.
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
   * adding texts. The statistics' chunks (packed already) and a lookup
   * row past TOAST's threshold (a key many documents share) are tried as
   * well, and pglz gave up on them slowly: 8% of the server's time adding
   * ../shared/corpora (a server installed before keeps pglz there, with
   * the same contents). */
  "DO $$ BEGIN ALTER TABLE simhound.texts ALTER COLUMN body SET COMPRESSION lz4;"
  "  ALTER TABLE simhound.df ALTER COLUMN counts SET COMPRESSION lz4;"
  "  FOR i IN 0 .. " G_STRINGIFY (SIM_SERVER_PARTITIONS) " - 1 LOOP"
  "    EXECUTE format ('ALTER TABLE simhound.postings_%s ALTER COLUMN data SET COMPRESSION lz4', i);"
  "  END LOOP;"
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

/* Version 8: a student's row security on the texts asks a function, not a
 * subquery: Citus refuses a policy with a subquery on a distributed table
 * (create_distributed_table fails), and the texts are distributed there.
 * The function reads the documents and collections, reference tables, on
 * whichever node holds the texts' shard (sim-server-layout.c makes it a
 * distributed function). A student may call it: it says only whether a
 * document's text is one the student may read anyway. */
static const char *const to_v8[] = {
  "CREATE OR REPLACE FUNCTION simhound.students_may_read (doc bigint)"
  "  RETURNS boolean LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$"
  "  SELECT EXISTS (SELECT FROM simhound.documents d JOIN simhound.collections c ON c.id = d.collection_id"
  "                 WHERE d.id = doc AND c.students_read) $f$",
  "REVOKE ALL ON FUNCTION simhound.students_may_read (bigint) FROM PUBLIC",
  "GRANT EXECUTE ON FUNCTION simhound.students_may_read (bigint) TO simhound_student",
  "DO $do$ BEGIN"
  "  IF EXISTS (SELECT FROM simhound.meta WHERE key = 'layout' AND value = 'citus') THEN"
  "    EXECUTE $sql$" SIM_SERVER_CITUS_POLICY_FUNCTION "$sql$;"
  "  END IF;"
  " END $do$",
  "DROP POLICY IF EXISTS texts_students ON simhound.texts",
  "CREATE POLICY texts_students ON simhound.texts FOR SELECT TO simhound_student"
  "  USING (simhound.students_may_read (doc_id))",
  NULL,
};

/* Version 9: texts as rows of parts (sim-server-private.h), so a check
 * reads the parts around what it asks for by index. substr() of a whole
 * text walked its characters from the start: asking a part of every text
 * cost the server more than sending it whole. A text stored before is
 * one row, part -1, read whole as before (the upgrade rewrites nothing);
 * so is one a statement inserts without a part. Parts are compressed
 * however small (lz4 where the server has it, version 2) and kept in the
 * table's own pages: a check's read of 350 parts took the server as long
 * as 116 whole texts took it when each part was a TOAST table's rows of
 * their own (its index probed for each), for a third of the bytes. */
static const char *const to_v9[] = {
  "ALTER TABLE simhound.texts ADD COLUMN IF NOT EXISTS part integer NOT NULL DEFAULT -1",
  "ALTER TABLE simhound.texts DROP CONSTRAINT IF EXISTS texts_pkey",
  /* Named: Citus adds no constraint without a name to a distributed
   * table (an upgrade of a corpus distributed at version 8). */
  "ALTER TABLE simhound.texts ADD CONSTRAINT texts_pkey PRIMARY KEY (doc_id, part)",
  "ALTER TABLE simhound.texts SET (toast_tuple_target = 128)",
  /* Citus's ALTER TABLE of a distributed table (an upgrade) takes no SET
   * STORAGE in the releases read (ErrorIfUnsupportedAlterTableStmt):
   * there the parts stay TOAST's rows, slower to read, the same text. A
   * table distributed after (`server init --citus`) gives its shards the
   * storage it has. */
  "DO $$ BEGIN ALTER TABLE simhound.texts ALTER COLUMN body SET STORAGE MAIN;"
  " EXCEPTION WHEN feature_not_supported THEN NULL; END $$",
  NULL,
};

/* The steps from version N to N + 1, index N - 1. */
static const char *const *const upgrades[] = { to_v2, to_v3, to_v4, to_v5, to_v6, to_v7, to_v8, to_v9 };

gboolean
sim_server_get_version (SimServer *server,
                        guint     *out_version,
                        GError   **error)
{
  PGresult *result;
  gboolean installed;

  if (!_sim_server_ask (server, "SELECT to_regclass('simhound.meta') IS NOT NULL", &installed, error))
    return FALSE;
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

/* Runs @sql, a write of simhound.meta, with @value as its parameter. */
static gboolean
put_meta (SimServer  *server,
          const char *sql,
          guint       value,
          GError    **error)
{
  g_autofree char *text = g_strdup_printf ("%u", value);
  const char *params[] = { text };
  PGresult *result = _sim_server_run (server, sql, 1, params, error);

  PQclear (result);
  return result != NULL;
}

static gboolean
set_version (SimServer *server,
             guint      version,
             GError   **error)
{
  return put_meta (server, "INSERT INTO simhound.meta (key, value) VALUES ('schema_version', $1) "
                           "ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value", version, error);
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
  if (version > 0)
    return upgrade_from (server, version, error);
  for (guint i = 0; i < G_N_ELEMENTS (schema_v1); i++)
    if (!_sim_server_run_command (server, schema_v1[i], error))
      return FALSE;
  /* The fingerprints' version: every desktop adding must make the same. */
  return put_meta (server, "INSERT INTO simhound.meta (key, value) VALUES ('feature_version', $1) "
                           "ON CONFLICT (key) DO NOTHING", SIM_FEATURE_VERSION, error) &&
         set_version (server, 1, error) && upgrade_from (server, 1, error);
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
