/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the store's files share (sim-store.h): the store itself and the
 * database (sim-store.c), salvage of a damaged file (sim-store-salvage.c),
 * texts packed in pieces (sim-store-text.c) and the feature statistics
 * (sim-store-df.c). Each uses only sim-store.c's helpers and, for
 * compression, sim-store-text.c's contexts.
 */
#pragma once

#include <sqlite3.h>
#include <zstd.h>

#include "sim-store.h"

struct _SimStore {
  sqlite3          *db;
  char             *path;
  SimStoreBusyFunc  busy_func;   /* NULL: give up after 10 s */
  gpointer          busy_data;
  GHashTable       *cached;      /* SQL text -> its statement (_sim_store_cached()) */
  int               format;      /* the format version it was opened at */
};

G_DEFINE_AUTOPTR_CLEANUP_FUNC (sqlite3_stmt, sqlite3_finalize)

/* Turns a SQLite failure (@rc, while doing @what) into a GError a user can
 * act on; FALSE. */
gboolean      _sim_store_error     (SimStore      *store,
                                    int            rc,
                                    const char    *what,
                                    GError       **error);
gboolean      _sim_store_exec      (SimStore      *store,
                                    const char    *sql,
                                    GError       **error);
sqlite3_stmt *_sim_store_prepare   (SimStore      *store,
                                    const char    *sql,
                                    GError       **error);
/* @sql prepared once for the store's life, reset and unbound: what a
 * writer runs for every document (preparing cost more than running it).
 * Owned by the store; reset it when done reading rows (a statement left
 * on a row holds its read transaction open). */
sqlite3_stmt *_sim_store_cached    (SimStore      *store,
                                    const char    *sql,
                                    GError       **error);
/* Runs a statement that returns no rows. */
gboolean      _sim_store_step_done (SimStore      *store,
                                    sqlite3_stmt  *stmt,
                                    const char    *what,
                                    GError       **error);

/* The calling thread's zstd contexts, kept for its life; NULL without memory. */
ZSTD_CCtx    *_sim_store_cctx      (void);
ZSTD_DCtx    *_sim_store_dctx      (void);
