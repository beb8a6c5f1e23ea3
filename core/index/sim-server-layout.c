/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Where the lookup table lives (sim-server-private.h, "layouts"): spread
 * over other PostgreSQL servers as postgres_fdw foreign tables
 * (sim_server_shard()), or distributed by Citus (sim_server_distribute():
 * Citus is not packaged for Debian 12, so that path is not run here; what
 * is tested is its refusal on a server without Citus). Both only move an
 * empty table: a corpus is laid out before it is filled.
 *
 * postgres_fdw: partition i of the SIM_SERVER_PARTITIONS lives on shard
 * i mod n as simhound.postings_i, a table with its own primary key,
 * bucket first for the lookup's bucket = ANY (a partitioned table with
 * foreign partitions can have no unique index, so the coordinator's table
 * loses its own). The foreign servers fetch 10,000 rows at a time (100 by
 * default), scan the partitions at once (async_capable) and take inserts
 * 1,000 rows at a time (batch_size: _sim_posting_rows_end() inserts,
 * since COPY into a foreign partition goes a row at a time). The coordinator reaches each
 * shard as one account for everyone (a user mapping for PUBLIC): who may
 * read and write is decided on the coordinator, whose roles and functions
 * stay as they are. Writes go through the coordinator (COPY routes rows to
 * the foreign partitions); a transaction commits on each shard in turn,
 * not by two-phase commit, so a coordinator lost in the middle of a commit
 * can leave one shard's part of a batch: the run it belongs to is then not
 * in simhound.runs, and no lookup reads it.
 */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>
#include <libpq-fe.h>

#include "sim-error.h"
#include "sim-server-private.h"

/* The keyword @key of @conninfo parsed, or @fallback. (transfer full) */
static char *
option_of (PQconninfoOption *options,
           const char       *key,
           const char       *fallback)
{
  for (PQconninfoOption *o = options; o != NULL && o->keyword != NULL; o++)
    if (g_str_equal (o->keyword, key) && o->val != NULL && *o->val)
      return g_strdup (o->val);
  return g_strdup (fallback);
}

/* @sql with each "%s" replaced by the escaped literals of @values, in order. */
static char *
with_literals (SimServer         *server,
               const char        *sql,
               const char *const *values)
{
  GString *out = g_string_new (NULL);
  guint k = 0;

  for (const char *p = sql; *p; p++)
    if (p[0] == '%' && p[1] == 's')
      {
        char *literal = PQescapeLiteral (server->conn, values[k], strlen (values[k]));

        g_string_append (out, literal ? literal : "NULL");
        PQfreemem (literal);
        k++;
        p++;
      }
    else
      g_string_append_c (out, *p);
  return g_string_free (out, FALSE);
}

/* Commits the layout's transaction when @ok, else rolls it back. */
static gboolean
finish_layout (SimServer  *server,
               gboolean    ok,
               GError    **error)
{
  if (ok)
    return _sim_server_run_command (server, "COMMIT", error);
  if (PQstatus (server->conn) == CONNECTION_OK)
    _sim_server_run_command (server, "ROLLBACK", NULL);
  return FALSE;
}

/* Opens the transaction that lays a corpus out, holding the lock every
 * schema change takes, once the lookup table is known to hold nothing
 * yet: only an empty one is moved. */
static gboolean
begin_layout (SimServer  *server,
              GError    **error)
{
  gboolean empty = FALSE;

  if (!_sim_server_run_command (server, "BEGIN", error))
    return FALSE;
  if (!_sim_server_run_command (server, "SELECT pg_advisory_xact_lock(7437357120)", error) ||
      !_sim_server_ask (server, "SELECT NOT EXISTS (SELECT FROM simhound.runs) AND NOT EXISTS (SELECT FROM simhound.postings)",
                        &empty, error))
    return finish_layout (server, FALSE, error);
  if (!empty)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                   _("The corpus server %s holds documents already: spread a new, empty corpus over servers, "
                     "then add the documents to it"), server->name);
      return finish_layout (server, FALSE, error);
    }
  return TRUE;
}

/* On a shard: the schema and the partitions it keeps (idempotent). */
static gboolean
prepare_shard (const char *uri,
               guint       shard,
               guint       n_shards,
               GError    **error)
{
  g_autoptr(SimServer) server = sim_server_connect (uri, error);

  if (server == NULL || !_sim_server_run_command (server, "CREATE SCHEMA IF NOT EXISTS simhound", error))
    return FALSE;
  for (guint i = shard; i < SIM_SERVER_PARTITIONS; i += n_shards)
    {
      g_autofree char *table = g_strdup_printf ("CREATE TABLE IF NOT EXISTS simhound.postings_%u ("
                                                "  run bigint NOT NULL,"
                                                "  bucket integer NOT NULL,"
                                                "  data bytea NOT NULL,"
                                                "  PRIMARY KEY (bucket, run))", i);
      g_autofree char *storage = g_strdup_printf ("ALTER TABLE simhound.postings_%u ALTER COLUMN data SET STORAGE MAIN,"
                                                  " SET " SIM_SERVER_POSTINGS_STORAGE, i);
      /* As on one server (sim-server-schema.c, version 2). */
      g_autofree char *lz4 = g_strdup_printf ("DO $$ BEGIN ALTER TABLE simhound.postings_%u ALTER COLUMN data SET COMPRESSION lz4;"
                                              " EXCEPTION WHEN feature_not_supported OR invalid_parameter_value THEN NULL; END $$",
                                              i);

      if (!_sim_server_run_command (server, table, error) || !_sim_server_run_command (server, storage, error) ||
          !_sim_server_run_command (server, lz4, error))
        return FALSE;
    }
  return TRUE;
}

/* The foreign server and user mapping of shard @k at @uri. */
static gboolean
reach_shard (SimServer  *server,
             guint       k,
             const char *uri,
             GError    **error)
{
  char *message = NULL;
  PQconninfoOption *options = PQconninfoParse (uri, &message);
  g_autofree char *host = NULL, *port = NULL, *dbname = NULL, *user = NULL, *password = NULL;
  g_autofree char *drop = g_strdup_printf ("DROP SERVER IF EXISTS simhound_shard_%u CASCADE", k);
  g_autofree char *create = NULL, *mapping = NULL;
  g_autofree char *create_sql = g_strdup_printf ("CREATE SERVER simhound_shard_%u FOREIGN DATA WRAPPER postgres_fdw"
                                                 " OPTIONS (host %%s, port %%s, dbname %%s,"
                                                 "  fetch_size '10000', async_capable 'true', batch_size '1000')", k);
  g_autofree char *mapping_sql = NULL;

  if (options == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT, _("“%s” is not a connection string: %s"), uri,
                   message ? message : "");
      PQfreemem (message);
      return FALSE;
    }
  host = option_of (options, "host", NULL);
  if (host == NULL)
    host = option_of (options, "hostaddr", "localhost");
  port = option_of (options, "port", "5432");
  dbname = option_of (options, "dbname", NULL);
  user = option_of (options, "user", g_get_user_name ());
  password = option_of (options, "password", NULL);
  PQconninfoFree (options);
  if (dbname == NULL)
    dbname = g_strdup (user);
  {
    const char *values[] = { host, port, dbname };

    create = with_literals (server, create_sql, values);
  }
  /* No password in the URI: the shard trusts the coordinator (a superuser
   * may allow that, pg_hba.conf decides). */
  mapping_sql = g_strdup_printf ("CREATE USER MAPPING FOR PUBLIC SERVER simhound_shard_%u OPTIONS (user %%s, %s)", k,
                                 password ? "password %s" : "password_required 'false'");
  {
    const char *values[] = { user, password };

    mapping = with_literals (server, mapping_sql, values);
  }
  return _sim_server_run_command (server, drop, error) && _sim_server_run_command (server, create, error) &&
         _sim_server_run_command (server, mapping, error);
}

gboolean
sim_server_shard (SimServer          *server,
                  const char *const  *shards,
                  GError            **error)
{
  const guint n_shards = shards ? g_strv_length ((char **) shards) : 0;

  if (n_shards == 0)
    return TRUE;
  if (!sim_server_check_schema (server, error))
    return FALSE;
  for (guint k = 0; k < n_shards; k++)
    if (!prepare_shard (shards[k], k, n_shards, error))
      return FALSE;
  if (!begin_layout (server, error))
    return FALSE;
  if (!_sim_server_run_command (server, "CREATE EXTENSION IF NOT EXISTS postgres_fdw", error))
    goto fail;
  for (guint k = 0; k < n_shards; k++)
    if (!reach_shard (server, k, shards[k], error))
      goto fail;
  /* The partitions, local or foreign, give way to foreign ones. */
  if (!_sim_server_run_command (server,
                                "DO $$ DECLARE t record; BEGIN"
                                "  FOR t IN SELECT c.relname, c.relkind FROM pg_inherits i"
                                "    JOIN pg_class c ON c.oid = i.inhrelid"
                                "    WHERE i.inhparent = 'simhound.postings'::regclass LOOP"
                                "    EXECUTE format ('ALTER TABLE simhound.postings DETACH PARTITION simhound.%I', t.relname);"
                                "    IF t.relkind = 'f' THEN EXECUTE format ('DROP FOREIGN TABLE simhound.%I', t.relname);"
                                "    ELSE EXECUTE format ('DROP TABLE simhound.%I', t.relname); END IF;"
                                "  END LOOP;"
                                "END $$", error) ||
      !_sim_server_run_command (server, "ALTER TABLE simhound.postings DROP CONSTRAINT IF EXISTS postings_pkey", error))
    goto fail;
  for (guint i = 0; i < SIM_SERVER_PARTITIONS; i++)
    {
      g_autofree char *sql = g_strdup_printf ("CREATE FOREIGN TABLE simhound.postings_%u PARTITION OF simhound.postings"
                                              "  FOR VALUES WITH (MODULUS %u, REMAINDER %u) SERVER simhound_shard_%u"
                                              "  OPTIONS (schema_name 'simhound', table_name 'postings_%u')",
                                              i, SIM_SERVER_PARTITIONS, i, i % n_shards, i);

      if (!_sim_server_run_command (server, sql, error))
        goto fail;
    }
  {
    g_autofree char *layout = g_strdup_printf ("INSERT INTO simhound.meta (key, value) VALUES ('layout', 'postgres_fdw %u')"
                                               " ON CONFLICT (key) DO UPDATE SET value = excluded.value", n_shards);

    if (!_sim_server_run_command (server, SIM_SERVER_LOOKUP_FUNCTION (SIM_SERVER_LOOKUP_BY_BUCKETS), error) ||
        !_sim_server_run_command (server, layout, error))
      goto fail;
  }
  return finish_layout (server, TRUE, error);

fail:
  return finish_layout (server, FALSE, error);
}

/* Citus: the small tables are reference tables (on every node), the texts
 * distributed by document (their foreign key to a reference table is
 * allowed; the documents' unique key, content and name, holds no document
 * id, so the documents cannot be distributed by it), the lookup table by
 * its bucket, already in its only unique key. In this order: a table is
 * distributed after those it refers to, and after the function its
 * policy calls; one connection a worker, as the reference tables are
 * made before a table that refers to them (SIM_SERVER_SEQUENTIAL). */
static const char *const citus_layout[] = {
  SIM_SERVER_SEQUENTIAL,
  "SELECT create_reference_table ('simhound.meta')",
  "SELECT create_reference_table ('simhound.collections')",
  "SELECT create_reference_table ('simhound.documents')",
  "SELECT create_reference_table ('simhound.df')",
  "SELECT create_reference_table ('simhound.runs')",
  "SELECT create_reference_table ('simhound.lookups')",
  "SELECT create_reference_table ('simhound.tallies')",
  "SELECT create_reference_table ('simhound.removed')",
  /* Before the texts: their student policy calls it on the workers. */
  SIM_SERVER_CITUS_POLICY_FUNCTION,
  "SELECT create_distributed_table ('simhound.texts', 'doc_id')",
  "SELECT create_distributed_table ('simhound.postings', 'bucket')",
  SIM_SERVER_LOOKUP_FUNCTION (SIM_SERVER_LOOKUP_BY_BUCKETS),
  "INSERT INTO simhound.meta (key, value) VALUES ('layout', 'citus')"
  " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
};

const char *const *
_sim_server_citus_layout (guint *n)
{
  *n = G_N_ELEMENTS (citus_layout);
  return citus_layout;
}

gboolean
sim_server_distribute (SimServer  *server,
                       GError    **error)
{
  gboolean has_citus = FALSE, done = FALSE;

  if (!sim_server_check_schema (server, error) ||
      !_sim_server_ask (server, "SELECT EXISTS (SELECT FROM pg_extension WHERE extname = 'citus')", &has_citus, error) ||
      !_sim_server_ask (server, "SELECT EXISTS (SELECT FROM simhound.meta WHERE key = 'layout' AND value = 'citus')", &done, error))
    return FALSE;
  if (!has_citus)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                   _("The corpus server %s has no Citus: run “CREATE EXTENSION citus” on a Citus coordinator "
                     "and add its workers (citus_add_node) first"), server->name);
      return FALSE;
    }
  if (done)
    return TRUE;
  if (!begin_layout (server, error))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (citus_layout); i++)
    if (!_sim_server_run_command (server, citus_layout[i], error))
      goto fail;
  return finish_layout (server, TRUE, error);

fail:
  return finish_layout (server, FALSE, error);
}
