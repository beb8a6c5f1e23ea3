/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the corpus server's files share: the connection (sim-server.c) and
 * the statements that run on it; sim-server-postings.c the lookup table
 * (uses sim-server.c); sim-server-corpus.c adds and lists documents
 * (uses both); sim-server-snapshot.c checks read a server through a
 * snapshot (uses all three).
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
/* Sends @rows (COPY's text format) as the rows of COPY @sql. */
gboolean  _sim_server_copy        (SimServer          *server,
                                   const char         *sql,
                                   GString            *rows,
                                   GError            **error);
/* @data as a bytea in COPY's text format ("\\x" and hex). */
void      _sim_server_append_bytea (GString           *rows,
                                    const guint8      *data,
                                    gsize              len);
/* Whether the server's fingerprints are this client's version
 * (SIM_FEATURE_VERSION): SIM_ERROR_STORE_TOO_NEW naming both if not. */
gboolean  _sim_server_same_features (SimServer        *server,
                                     GError          **error);
/* SIM_ERROR_SERVER "Lost the connection to the corpus server NAME: …". */
void      _sim_server_set_lost    (SimServer          *server,
                                   GError            **error,
                                   const char         *what);

/* ---------------------------------------------------- sim-server-postings.c
 * The lookup table: where each window's fingerprint is (sim-server-postings.c
 * says how it is kept). A posting is a window's fingerprint, of which the
 * low SIM_BAND_INDEX_FILE_BITS are compared (as a local store's index file
 * compares them), the server id of its document and its start. */
typedef struct {
  guint64 key;      /* fingerprint & SIM_BAND_INDEX_FILE_MASK; in a lookup's answer, the index of the key */
  gint64  doc;
  guint32 start;
} SimPosting;

/* The postings of a document's packed windows (sim-window-codec.h). */
void      _sim_server_postings_of (GBytes             *packed,
                                   gint64              doc,
                                   gint64              n_chars,
                                   GArray             *postings);
/* Writes @postings (sorted here) as one run, inside the caller's
 * transaction. */
gboolean  _sim_server_postings_put (SimServer         *server,
                                    GArray            *postings,
                                    GError           **error);
/* Merges runs of a like size (sim-server-postings.c: the tiers), each
 * merge one transaction; nothing when another client is merging. */
gboolean  _sim_server_postings_merge (SimServer       *server,
                                      GError         **error);
/* The postings of each of @keys (@n, sorted, distinct, masked) in one
 * statement, appended to @out with key the index into @keys, in key
 * order. Documents removed since may be among them. */
gboolean  _sim_server_postings_lookup (SimServer      *server,
                                       const guint64  *keys,
                                       gsize           n,
                                       GArray         *out,
                                       GError        **error);
