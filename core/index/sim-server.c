/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The corpus server's connection: connecting, statements and their
 * errors, COPY, tracing (sim-server.h). The schema is sim-server-schema.c's.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <libpq-fe.h>

#include "sim-error.h"
#include "sim-fingerprint.h"
#include "sim-server-private.h"


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

/* Whether SIMHOUND_SERVER_TRACE is set. */
static gboolean
tracing (void)
{
  static gsize once;
  static gboolean on;

  if (g_once_init_enter (&once))
    {
      on = g_getenv ("SIMHOUND_SERVER_TRACE") != NULL;
      g_once_init_leave (&once, 1);
    }
  return on;
}

/* @result's bytes when statements are traced, else 0. */
static gsize
trace_bytes (const PGresult *result)
{
  gsize bytes = 0;

  for (int row = 0; result != NULL && row < PQntuples (result); row++)
    for (int column = 0; column < PQnfields (result); column++)
      bytes += PQgetlength (result, row, column);
  return bytes;
}

/* A round trip of @server (@n statements sent at once) that began at
 * @since: counted, and traced with its @rows and the @bytes back. */
static void
trace_trip (const SimServer *server,
            gint64           since,
            guint            n,
            gsize            rows,
            gsize            bytes,
            const char      *sql)
{
  static gsize once;
  static gint64 first;

  if (g_once_init_enter (&once))
    {
      first = since;
      g_once_init_leave (&once, 1);
    }
  if (server == NULL || !server->beside)
    g_atomic_int_inc (&n_statements);
  if (tracing ())
    g_printerr ("simhound: server %.1f ms at %.1f ms, %u statement%s, %" G_GSIZE_FORMAT " rows or bytes, %" G_GSIZE_FORMAT
                " bytes back: %.60s\n", (g_get_monotonic_time () - since) / 1000.0, (since - first) / 1000.0, n,
                n == 1 ? "" : "s", rows, bytes, sql);
}

static void
trace (const SimServer *server,
       gint64           since,
       gsize            rows,
       const PGresult  *result,
       const char      *sql)
{
  trace_trip (server, since, 1, rows, tracing () ? trace_bytes (result) : 0, sql);
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

/* Sends what libpq holds of @conn's statements, reading what the server
 * answers meanwhile: it stops reading statements while it cannot send
 * their results, and a client writing statements then, not reading,
 * would wait for it for ever. FALSE when the connection failed. */
static gboolean
flush_reading (PGconn *conn)
{
  int left;

  while ((left = PQflush (conn)) == 1)
    {
      struct pollfd fd = { PQsocket (conn), POLLIN | POLLOUT, 0 };

      if (poll (&fd, 1, -1) < 0 && errno != EINTR)
        return FALSE;
      if ((fd.revents & (POLLIN | POLLERR | POLLHUP)) && !PQconsumeInput (conn))
        return FALSE;
    }
  return left == 0;
}

gboolean
_sim_server_run_each (SimServer          *server,
                      const char         *sql,
                      guint               n,
                      const char *const  *params,
                      SimServerEach       each,
                      gpointer            data,
                      GError            **error)
{
  PGconn *conn = server->conn;
  const gint64 t0 = g_get_monotonic_time ();
  gsize rows = 0, bytes = 0;
  gboolean sent = PQenterPipelineMode (conn) && PQsetnonblocking (conn, 1) == 0;
  gboolean ok;
  PGresult *result;

  for (guint i = 0; i < n && sent; i++)
    sent = PQsendQueryParams (conn, sql, 1, NULL, &params[i], NULL, NULL, 1) && flush_reading (conn);
  sent = sent && PQpipelineSync (conn) && flush_reading (conn);
  sent = PQsetnonblocking (conn, 0) == 0 && sent;
  ok = sent;
  if (!sent)
    _sim_server_set_error (server, NULL, error);
  /* Each statement's result then NULL, or after one failed, the rest
   * aborted; then the sync. Read to the end whatever failed, unless the
   * connection is gone. */
  for (guint i = 0; i < n && sent && PQstatus (conn) != CONNECTION_BAD; i++)
    {
      /* No result for a statement sent is a broken exchange: its rows
       * are not to be taken for none. */
      if ((result = PQgetResult (conn)) == NULL)
        {
          if (ok)
            _sim_server_set_lost (server, error, _("no answer"));
          ok = FALSE;
          continue;
        }
      if (ok && PQresultStatus (result) != PGRES_TUPLES_OK)
        {
          _sim_server_set_error (server, result, error);
          ok = FALSE;
        }
      else if (ok)
        {
          rows += PQntuples (result);
          bytes += tracing () ? trace_bytes (result) : 0;
          ok = each (i, result, data, error);
        }
      PQclear (result);
      while ((result = PQgetResult (conn)) != NULL)
        PQclear (result);
    }
  if (sent && PQstatus (conn) != CONNECTION_BAD)
    {
      result = PQgetResult (conn);
      if (ok && PQresultStatus (result) != PGRES_PIPELINE_SYNC)
        {
          _sim_server_set_error (server, result, error);
          ok = FALSE;
        }
      PQclear (result);
    }
  if (!PQexitPipelineMode (conn) && ok)
    {
      _sim_server_set_error (server, NULL, error);
      ok = FALSE;
    }
  if (ok && PQstatus (conn) == CONNECTION_BAD)
    {
      _sim_server_set_lost (server, error, _("no answer"));
      ok = FALSE;
    }
  trace_trip (server, t0, n, rows, bytes, sql);
  return ok;
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
_sim_server_ask (SimServer   *server,
                 const char  *sql,
                 gboolean    *out,
                 GError     **error)
{
  PGresult *result = _sim_server_run (server, sql, 0, NULL, error);

  if (result == NULL)
    return FALSE;
  *out = g_str_equal (PQgetvalue (result, 0, 0), "t");
  PQclear (result);
  return TRUE;
}

gboolean
_sim_server_may_write (SimServer  *server,
                       GError    **error)
{
  gboolean yes;

  if (!_sim_server_ask (server, "SELECT has_table_privilege('simhound.documents', 'INSERT')", &yes, error))
    return FALSE;
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
