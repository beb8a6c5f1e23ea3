/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One corpus, wherever it is: a store on this computer (SimCorpus) or a
 * school's corpus server (SimServer). What manages a corpus (the command
 * line's corpus commands, the app's corpus manager and imports) goes
 * through this and does not ask which; a check reads either through its
 * SimCorpusSnapshot.
 *
 * Thread rule: a backend is used by one thread at a time, and each call
 * blocks (a server answers over the network): the app opens one on the
 * worker thread that uses it.
 */
#pragma once

#include <gio/gio.h>

#include "sim-corpus.h"
#include "sim-store.h"

G_BEGIN_DECLS

typedef struct _SimBackend SimBackend;

/* Opens the corpus @location names: a path (the store is made when it is
 * not there, unless @read_only) or a libpq connection string, with
 * @password (NULL: the libpq ways) for a server. */
SimBackend        *sim_backend_open          (const char         *location,
                                              const char         *password,
                                              gboolean            read_only,
                                              GError            **error);
void               sim_backend_free          (SimBackend         *backend);
/* The store's path, or the server's "host:port/database": what may be shown. */
const char        *sim_backend_get_name      (SimBackend         *backend);
gboolean           sim_backend_is_server     (SimBackend         *backend);
/* Whether this account may add and remove documents: a local store opened
 * to write; a server's writer (or owner). */
gboolean           sim_backend_may_write     (SimBackend         *backend);
/* The local store's corpus (its settings, its busy handler), or NULL. */
SimCorpus         *sim_backend_get_corpus    (SimBackend         *backend);

/* (element-type SimStoreDocument) (transfer full) */
GPtrArray         *sim_backend_list          (SimBackend         *backend,
                                              GError            **error);
/* sim_corpus_add() or sim_server_add(); @collection (NULL: "default") is
 * a server's alone (SIM_ERROR_INVALID_ARGUMENT for a local store). */
SimImportResult   *sim_backend_add           (SimBackend         *backend,
                                              const char *const  *paths,
                                              const char         *collection,
                                              SimProgressFunc     progress,
                                              gpointer            user_data,
                                              GCancellable       *cancellable,
                                              GError            **error);
SimImportResult   *sim_backend_rescan        (SimBackend         *backend,
                                              const char         *folder,
                                              const char         *collection,
                                              SimProgressFunc     progress,
                                              gpointer            user_data,
                                              GCancellable       *cancellable,
                                              GError            **error);
/* The ids (gint64) of the documents @ids_or_paths name: an id, or the
 * path a document was added under (a local store's, made absolute; a
 * server's name). NULL and SIM_ERROR_INVALID_ARGUMENT naming the first
 * that names none. */
GArray            *sim_backend_find_documents (SimBackend        *backend,
                                               const char *const *ids_or_paths,
                                               GError           **error);
/* Removes documents by id or by the path (name) they were added under. */
gboolean           sim_backend_remove        (SimBackend         *backend,
                                              const char *const  *ids,
                                              guint              *out_n_removed,
                                              GError            **error);
/* A snapshot for checks, of the corpus as it is now (with what other
 * writers changed since it was opened). (transfer full) */
SimCorpusSnapshot *sim_backend_snapshot      (SimBackend         *backend,
                                              GError            **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimBackend, sim_backend_free)

G_END_DECLS
