/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A school's corpus server: a PostgreSQL database (through libpq) that
 * many desktops share. sim-server.c holds the connection, and
 * sim-server-schema.c the versioned schema and its roles; sim-server-postings.c and sim-server-merge.c keep
 * the lookup table; sim-server-corpus.c adds documents and
 * sim-server-documents.c lists, rescans and removes them;
 * sim-server-snapshot.c gives checks a snapshot of a server.
 *
 * Where a corpus is (sim_store_location_is_server()): a path names a local
 * store; a libpq connection string names a server: a URI
 * ("postgresql://user@host:port/db?sslmode=verify-full",
 * "postgres://…") or key=value pairs ("service=simhound", "host=… dbname=…").
 * Passwords come the libpq ways (~/.pgpass, PGPASSWORD, a service file) and
 * never appear in a message: sim_server_get_name() is host, port and
 * database alone.
 *
 * The schema lives in its own PostgreSQL schema, "simhound", with its
 * version in simhound.meta. Three group roles: simhound_writer (adds,
 * rescans, removes, checks), simhound_reader (a teacher: checks, with the
 * source text), simhound_student (checks an own essay: sees which document
 * matches, never another's text, except in collections marked readable by
 * students). What a student may read is enforced by PostgreSQL (row
 * security on simhound.texts), not by this client.
 *
 * Every connection has a connect timeout (SIM_SERVER_CONNECT_TIMEOUT
 * seconds unless the string gives connect_timeout) and a statement timeout.
 * A SimServer is used by one thread at a time.
 */
#pragma once

#include <glib.h>

#include "sim-corpus.h"

G_BEGIN_DECLS

#define SIM_SERVER_SCHEMA_VERSION    9
#define SIM_SERVER_CONNECT_TIMEOUT   10     /* seconds */
#define SIM_SERVER_STATEMENT_TIMEOUT 60000  /* milliseconds */
#define SIM_SERVER_PARTITIONS        8      /* of the lookup table, by its key */
#define SIM_SERVER_DF_CHUNK          4096   /* df counts a row, packed (sim_store_pack_df()) */
/* Keys a student's lookups may carry a day, by default: a check of a
 * 10,000-character essay carries about 4,000 (English) to 9,000 (Chinese),
 * so 50 and 22 such checks; rebuilding a stored essay by guessing costs
 * far more (README, "What a student account can learn"). */
#define SIM_SERVER_STUDENT_KEYS_PER_DAY 200000

typedef struct _SimServer SimServer;

/* Connects to the server @conninfo names. Fails with SIM_ERROR_SERVER when
 * it cannot be reached (the message names the server, never a password). */
SimServer  *sim_server_connect       (const char  *conninfo,
                                      GError     **error);
/* The same with @password (or NULL: the libpq ways), given apart from the
 * connection string as a keyring gives it. */
SimServer  *sim_server_connect_with_password (const char  *conninfo,
                                              const char  *password,
                                              GError     **error);
void        sim_server_free          (SimServer   *server);
/* "host:port/database": what a report and a message may name. */
const char *sim_server_get_name      (SimServer   *server);

/* Installs the schema and the three roles, or leaves them as they are when
 * they are there (idempotent). Refuses a newer schema. */
gboolean    sim_server_init          (SimServer   *server,
                                      GError     **error);
/* Puts the lookup table's partitions on the servers @shards name (libpq
 * connection strings, NULL-terminated), as postgres_fdw foreign tables:
 * partition i on shard i mod n, where a table of its own is made. Only an
 * empty corpus is spread (SIM_ERROR_INVALID_ARGUMENT otherwise); spreading
 * one again over the same shards changes nothing. Needs the postgres_fdw
 * extension on this server, and a superuser when a shard's connection
 * string has no password. */
gboolean    sim_server_shard         (SimServer          *server,
                                      const char *const  *shards,
                                      GError            **error);
/* Makes the tables of an empty corpus Citus tables, on a Citus coordinator
 * (CREATE EXTENSION citus, workers added): the lookup table and the texts
 * distributed (by bucket, by document), the rest reference tables. Again:
 * nothing changes. SIM_ERROR_INVALID_ARGUMENT without Citus or with
 * documents. Not run in CI (Citus is not packaged for Debian 12). */
gboolean    sim_server_distribute    (SimServer          *server,
                                      GError            **error);
/* Moves an older schema on to SIM_SERVER_SCHEMA_VERSION. */
gboolean    sim_server_upgrade       (SimServer   *server,
                                      GError     **error);
/* The schema's version: 0 when none is installed. */
gboolean    sim_server_get_version   (SimServer   *server,
                                      guint       *out_version,
                                      GError     **error);
/* Whether this client can use the server's schema: SIM_ERROR_STORE_TOO_NEW
 * naming both versions when it is newer, SIM_ERROR_STORE when it is missing
 * or older ("run server init / upgrade"). */
gboolean    sim_server_check_schema  (SimServer   *server,
                                      GError     **error);

typedef struct {
  char    *name;          /* a table, schema-qualified, with its partitions */
  gint64   table_bytes;
  gint64   index_bytes;
} SimServerRelation;

typedef struct {
  guint    version;
  gint64   n_documents;
  gint64   text_bytes;     /* of the stored texts, as written */
  GArray  *relations;      /* SimServerRelation: the tables, largest first */
  char    *role;           /* what this account may do: "writer", "reader", "student", "owner" or "none" */
} SimServerStatus;

SimServerStatus *sim_server_get_status (SimServer  *server,
                                        GError    **error);
void        sim_server_status_free   (SimServerStatus *status);

/* Adds files and folders to @collection (NULL: "default"; made when it
 * is not there) as sim_corpus_add() does, in batches of one
 * transaction each (sim-server-corpus.c: what identifies a document). A
 * batch the server refuses is rolled back and its files listed in the
 * failures; a lost connection ends the add with SIM_ERROR_SERVER, the
 * batches before it kept. SIM_ERROR_NOT_ALLOWED, nothing written, for an
 * account that may not add. */
SimImportResult *sim_server_add      (SimServer          *server,
                                      const char *const  *paths,
                                      const char         *collection,
                                      SimProgressFunc     progress,
                                      gpointer            user_data,
                                      GCancellable       *cancellable,
                                      GError            **error);
/* Brings the documents of @collection (NULL: "default") added from
 * @folder (those whose name begins with the folder's own name: another
 * desktop's folder of that name is the same folder) in step with it: files new or changed are added
 * (sim_server_add(); a changed file's earlier version is then removed and
 * the file counted as updated), documents whose file is gone are removed
 * (n_removed). Two transactions or more: stopped in between, a second
 * rescan finishes the job. */
SimImportResult *sim_server_rescan   (SimServer          *server,
                                      const char         *folder,
                                      const char         *collection,
                                      SimProgressFunc     progress,
                                      gpointer            user_data,
                                      GCancellable       *cancellable,
                                      GError            **error);
/* Whether student accounts may read the texts of @collection (course
 * readings, published sources): the server's row security follows it.
 * SIM_ERROR_INVALID_ARGUMENT for a collection that does not exist. */
gboolean         sim_server_set_students_read (SimServer    *server,
                                               const char   *collection,
                                               gboolean      readable,
                                               GError      **error);
/* Removes the documents given by id ("12") or by the name they were added
 * under (every version of it), in one transaction, with what they added to
 * the feature statistics. A name or id that names none is an error and
 * nothing is removed. */
gboolean         sim_server_remove   (SimServer          *server,
                                      const char *const  *ids_or_names,
                                      guint              *out_n_removed,
                                      GError            **error);
/* Merges every run of the lookup table into one (sim-server-merge.c):
 * a check then asks one run instead of a few, which at 1 GB roughly
 * halved its wait. For a quiet hour; one transaction a run of the merge,
 * nothing when another client is merging. */
gboolean         sim_server_compact  (SimServer          *server,
                                      GError            **error);
/* Puts the documents the lookup table does not hold yet into it, from
 * their stored texts, a batch a transaction; how many in @out_n_indexed:
 * those of a server upgraded from schema version 1, and those of an add
 * that ended before it wrote their run (killed, its connection lost),
 * not those of an add still running. Stopped, a second call finishes
 * the job. sim_server_add() calls it first. */
gboolean         sim_server_index_documents (SimServer   *server,
                                             guint       *out_n_indexed,
                                             GError     **error);
/* The ids (gint64) of the documents @ids_or_names name (an id, or the name
 * a document was added under: every version of it), or NULL and
 * SIM_ERROR_INVALID_ARGUMENT naming the first that names none. */
GArray          *sim_server_find_documents (SimServer         *server,
                                            const char *const *ids_or_names,
                                            GError           **error);
/* The documents, in the order added: path is the name added under,
 * n_anchors the windows. (element-type SimStoreDocument) (transfer full) */
GPtrArray       *sim_server_list     (SimServer          *server,
                                      GError            **error);

/* A snapshot of the corpus on the server @conninfo names, for checks
 * (sim-server-snapshot.c): lookups, documents and texts are read from the
 * server as the check needs them, each reader through a connection of its
 * own. SIM_ERROR_SERVER when it cannot be reached; a check whose server
 * is lost fails with it. Lookups compare equal fingerprints only. */
SimCorpusSnapshot *sim_server_snapshot_new (const char *conninfo,
                                            GError    **error);
/* The same with @password (NULL: the libpq ways), kept in memory for the
 * snapshot's connections. */
SimCorpusSnapshot *sim_server_snapshot_new_with_password (const char *conninfo,
                                                          const char *password,
                                                          GError    **error);
/* Connects as a check would and says what it found, in words, into
 * @out_summary ("127.0.0.1:5432/simhound: 1,204 documents; this account
 * may check (reader)"). Fails as sim_server_snapshot_new() would. */
gboolean           sim_server_test_connection (const char *conninfo,
                                               const char *password,
                                               char      **out_summary,
                                               GError    **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimServer, sim_server_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimServerStatus, sim_server_status_free)

G_END_DECLS
