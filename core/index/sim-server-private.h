/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the corpus server's files share: the connection (sim-server.c) and
 * the statements that run on it; sim-server-corpus.c adds and lists
 * documents through them.
 */
#pragma once

#include <libpq-fe.h>

#include "sim-server.h"

struct _SimServer {
  PGconn *conn;
  char   *name;
};

/* Runs @sql with @n_params text @params; the result when it succeeded
 * (command or rows), else NULL and @error: SIM_ERROR_SERVER when the
 * connection is gone, SIM_ERROR_NOT_ALLOWED when the account may not,
 * SIM_ERROR_STORE otherwise. */
PGresult *_sim_server_run         (SimServer          *server,
                                   const char         *sql,
                                   int                 n_params,
                                   const char *const  *params,
                                   GError            **error);
/* The same with the result in @result_format (1: binary). */
PGresult *_sim_server_run_as      (SimServer          *server,
                                   const char         *sql,
                                   int                 n_params,
                                   const char *const  *params,
                                   int                 result_format,
                                   GError            **error);
gboolean  _sim_server_run_command (SimServer          *server,
                                   const char         *sql,
                                   GError            **error);
/* @result's failure (or the connection's, @result NULL) into @error, as
 * _sim_server_run() reports it. */
void      _sim_server_set_error   (SimServer          *server,
                                   const PGresult     *result,
                                   GError            **error);
/* SIM_ERROR_SERVER "Lost the connection to the corpus server NAME: …". */
void      _sim_server_set_lost    (SimServer          *server,
                                   GError            **error,
                                   const char         *what);
