/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the corpus server's files share: the connection (sim-server.c) and
 * the statements that run on it; sim-server-schema.c its versioned schema
 * (uses sim-server.c); sim-server-postings.c the lookup table
 * and its rows (uses sim-server.c); sim-server-merge.c merges its runs;
 * sim-server-waiting.c indexes documents waiting for a run (uses those
 * before); sim-server-send.c sends a batch of an add (uses those before);
 * sim-server-corpus.c adds documents (uses those before);
 * sim-server-documents.c removes, rescans and lists them (uses those
 * before); sim-server-snapshot.c gives checks a snapshot of a server
 * (uses sim-server.c and sim-server-postings.c).
 */
#pragma once

#include <string.h>
#include <libpq-fe.h>

#include "sim-band-index.h"
#include "sim-server.h"
#include "sim-window-codec.h"

struct _SimServer {
  PGconn  *conn;
  char    *name;
  gint     spread;  /* whether the lookup table is on other servers: -1 not asked yet */
  gboolean beside;  /* its statements go beside another connection's: no round trip of their own */
  /* What it was connected with, for _sim_server_connect_again(): */
  char    *conninfo;
  char    *password;
  char    *settings;
};

/* ------------------------------------------------------ layouts
 * Where the lookup table lives, and the SQL that differs for it: on this
 * server (its partitions local tables), on other servers (its partitions
 * postgres_fdw foreign tables, sim_server_shard()) or distributed by
 * Citus (sim_server_distribute(), sim-server-layout.c). A check reads the
 * table through simhound.lookup(keys) alike in each; what differs is how
 * that function asks for the rows. */

/* simhound.lookup() around @body: a student's keys counted against
 * student_keys_per_day first (sim-server-schema.c, version 3). */
#define SIM_SERVER_LOOKUP_FUNCTION(body) \
  "CREATE OR REPLACE FUNCTION simhound.lookup (keys bigint[])" \
  "  RETURNS TABLE (bits smallint, bucket integer, data bytea)" \
  "  LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $f$" \
  " DECLARE used bigint; buckets integer[];" \
  " BEGIN" \
  "  IF pg_has_role (session_user, 'simhound_student', 'USAGE')" \
  "     AND NOT pg_has_role (session_user, 'simhound_reader', 'USAGE') THEN" \
  "    INSERT INTO simhound.lookups AS l VALUES (session_user, current_date, coalesce (cardinality (keys), 0))" \
  "      ON CONFLICT (account, day) DO UPDATE SET n_keys = l.n_keys + excluded.n_keys RETURNING l.n_keys INTO used;" \
  "    IF used > (SELECT value::bigint FROM simhound.meta WHERE key = 'student_keys_per_day') THEN" \
  "      RAISE EXCEPTION 'simhound: the lookups this account may make today are used up'" \
  "        USING ERRCODE = 'configuration_limit_exceeded';" \
  "    END IF;" \
  "  END IF;" \
  body \
  " END $f$"

/* On one server: the runs grouped by their bits, each group asked for
 * the buckets of the keys by its bits, the rows of all its runs by the
 * primary key (bucket, run) (version 7): one probe a bucket for every run
 * of like bits, where the key (run, bucket) made one a run. An add of 1 GB
 * writes two runs of 21 bits (a run every 512 MB): with a probe a run,
 * eight clients checked 4.9-5.2 articles a second against it; with a probe
 * a bucket, 5.9-6.0. The keys come sorted and distinct
 * (sim-server-snapshot.c), so a group's buckets come in order, and a key
 * whose bucket is the key before's is left out where it stands: with a
 * DISTINCT and a sort instead, building them was 35-40 ms of a lookup of
 * 5,000 keys in four runs, now 7 ms. The run is a join filter, checked on
 * the index's entries: asked as an index condition, each run would be a
 * descent of its own again. */
#define SIM_SERVER_LOOKUP_QUERY_BY_BITS(keys) \
  "SELECT g.bits, p.bucket, p.data FROM" \
  "    (SELECT x.bits, array_agg (x.run) AS runs FROM simhound.runs x GROUP BY x.bits ORDER BY x.bits) g" \
  "    CROSS JOIN LATERAL (SELECT CASE WHEN g.bits = 0 THEN 0 ELSE (u.k >> (40 - g.bits))::integer END AS b" \
  "      FROM unnest (" keys ") WITH ORDINALITY u (k, i)" \
  "      WHERE u.i = 1 OR (g.bits > 0 AND (" keys "[u.i - 1] >> (40 - g.bits)) <> (u.k >> (40 - g.bits)))" \
  "      OFFSET 0) b" \
  "    JOIN simhound.postings p ON p.bucket = b.b AND p.run = ANY (g.runs)"
#define SIM_SERVER_LOOKUP_BY_BITS "  RETURN QUERY " SIM_SERVER_LOOKUP_QUERY_BY_BITS ("keys") ";"
/* The same asked by an account that may read the lookup table (a reader
 * or a writer; not a student, whose lookups the function counts), as a
 * statement of its own rather than through simhound.lookup(): PL/pgSQL
 * keeps a query's rows in a tuplestore before they are sent, and at 1 GB
 * a lookup of 3,400 keys took 44 ms of the server's time through the
 * function and 32 ms without it. */
#define SIM_SERVER_LOOKUP_DIRECT SIM_SERVER_LOOKUP_QUERY_BY_BITS ("($1::bigint[])")

/* Spread over servers: every bucket any run asks for, in one array, so
 * each partition (a foreign table, a Citus shard) gets one query with its
 * buckets instead of a round trip a key (the shards key their tables by
 * bucket first). A run may send rows of buckets another run asked for:
 * their postings are real, and the client keeps those of its keys.
 * Sending the (run, bucket) pairs too, to filter there, was slower. */
#define SIM_SERVER_LOOKUP_BY_BUCKETS \
  "  buckets := ARRAY (SELECT DISTINCT CASE WHEN r.bits = 0 THEN 0 ELSE (k >> (40 - r.bits))::integer END" \
  "                    FROM simhound.runs r, unnest (keys) k);" \
  "  RETURN QUERY SELECT r.bits, p.bucket, p.data FROM simhound.postings p" \
  "    JOIN simhound.runs r ON r.run = p.run WHERE p.bucket = ANY (buckets);"

/* Citus's rules for what reads and writes the texts, which it keeps
 * distributed by document while the documents are a reference table
 * (sim-server-layout.c; the same SQL runs on one server and on shards,
 * where it changes nothing):
 * - A row security policy on a distributed table may not hold a
 *   subquery: the texts' student policy calls simhound.students_may_read()
 *   (schema version 8), which must then exist on the workers.
 * - A change to a reference table may not read a distributed table in
 *   the same statement (a removal reads the texts first, then deletes),
 *   and FOR UPDATE may lock only rows of a query on one shard or on
 *   reference tables (documents are locked before their texts are read).
 * - Once a transaction has changed the documents, a distributed table
 *   that refers to them is read and written on one connection a worker
 *   (Citus switches to it: an add's batch); a transaction that has read
 *   the texts on many connections may not change the documents after. So
 *   a transaction that reads texts before it changes documents begins with
 *   SIM_SERVER_SEQUENTIAL (on PostgreSQL without Citus a setting of no
 *   one's, which nothing reads).
 * - A set-returning function outer-joined to a distributed table is
 *   joined on the coordinator, the table read whole unless the join's
 *   inner side carries its own filter: the texts a check reads are
 *   asked by document in a subquery of their own (sim-server-snapshot-texts.c). */
#define SIM_SERVER_CITUS_POLICY_FUNCTION "SELECT create_distributed_function ('simhound.students_may_read(bigint)')"
#define SIM_SERVER_SEQUENTIAL "SET LOCAL citus.multi_shard_modify_mode TO 'sequential'"

/* The statements `server init --citus` runs, in order (for tests: Citus
 * is not packaged for Debian 12). */
const char *const *_sim_server_citus_layout (guint *n);

/* A lookup-table partition's storage parameters (ALTER TABLE … SET): a
 * merge deletes the runs it read, and the space they took is reused only
 * once vacuumed; by default autovacuum waited for a fifth of a partition
 * to be dead, and the tables after a 1 GB add were 4.2 times the text
 * (3.7 with these and autovacuum_naptime 10 s). */
#define SIM_SERVER_POSTINGS_STORAGE \
  "(autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 20000, autovacuum_vacuum_cost_delay = 0)"

/* ------------------------------------------------------ texts
 * A document's text is kept as rows of parts (schema version 9): part k
 * holds code points [k * SIM_SERVER_TEXT_PART, (k + 1) *
 * SIM_SERVER_TEXT_PART), so a check reads by index only the parts around
 * what it asks for (sim-server-snapshot-texts.c), where a whole text
 * came before. An add cuts them (sim-server-corpus.c); a text stored
 * before version 9 is one row, part -1, and comes whole. The size is the
 * stored rows' own: changing it is a schema version. A part is about 2
 * KB of English and 6 KB of Chinese, compressed on its own
 * (toast_tuple_target). */
#define SIM_SERVER_TEXT_PART 2048
/* A part's row in a lookup of parts: doc_id * SIM_SERVER_TEXT_PART_KEY
 * + part (a document id is at most SIM_SERVER_MAX_DOC_ID, a text at most
 * G_MAXUINT32 code points). */
#define SIM_SERVER_TEXT_PART_KEY 16777216
/* The whole texts of documents $1 (bigint[]), a row each: doc_id, body. */
#define SIM_SERVER_WHOLE_TEXTS \
  "SELECT doc_id, string_agg (body, '' ORDER BY part) FROM simhound.texts" \
  " WHERE doc_id = ANY ($1::bigint[]) GROUP BY doc_id"

/* The advisory lock (its first key; the second is the add's owner id
 * & 0x7fffffff) an add holds while documents wait for its run (schema
 * version 6, sim-server-schema.c). */
#define SIM_SERVER_OWNER_LOCK "743735712"

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
/* The same with parameters in @formats (1: binary) of @lengths, the
 * result in text; the trace counts the bytes sent. */
PGresult *_sim_server_run_binary  (SimServer          *server,
                                   const char         *sql,
                                   int                 n_params,
                                   const char *const  *values,
                                   const int          *lengths,
                                   const int          *formats,
                                   GError            **error);
/* What _sim_server_run_each() gives the result of statement @i to:
 * FALSE, with @error set, to stop. */
typedef gboolean (*SimServerEach) (guint           i,
                                   const PGresult *result,
                                   gpointer        data,
                                   GError        **error);
/* Runs @sql @n times, the i-th with @params[i] as its one text parameter,
 * the results in binary: the statements sent at once (libpq's pipeline;
 * one round trip), each result given to @each as it comes while the
 * server runs those after it. FALSE and @error as _sim_server_run()'s
 * when a statement failed or @each said so. */
gboolean  _sim_server_run_each    (SimServer          *server,
                                   const char         *sql,
                                   guint               n,
                                   const char *const  *params,
                                   SimServerEach       each,
                                   gpointer            data,
                                   GError            **error);
gboolean  _sim_server_run_command (SimServer          *server,
                                   const char         *sql,
                                   GError            **error);
/* The first value of @sql, a boolean, into @out. */
gboolean  _sim_server_ask         (SimServer          *server,
                                   const char         *sql,
                                   gboolean           *out,
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
/* The same, the rows sent as they are made: begin, put any number of
 * times (on one thread at a time), end; end reports what failed. */
typedef struct {
  const char *sql;
  gint64      since;
  gsize       bytes;
  gboolean    ok;
} SimServerCopy;
gboolean  _sim_server_copy_begin  (SimServer          *server,
                                   SimServerCopy      *copy,
                                   const char         *sql,
                                   GError            **error);
void      _sim_server_copy_put    (SimServer          *server,
                                   SimServerCopy      *copy,
                                   const char         *data,
                                   gsize               len);
gboolean  _sim_server_copy_end    (SimServer          *server,
                                   SimServerCopy      *copy,
                                   GError            **error);
/* @v's low @bytes bytes, big-endian (PostgreSQL's binary formats). */
void      _sim_server_append_be   (GString            *out,
                                   guint64             v,
                                   guint               bytes);
/* @data as a bytea in COPY's text format ("\\x" and hex). */
void      _sim_server_append_bytea (GString           *rows,
                                    const guint8      *data,
                                    gsize              len);
/* Whether the server's fingerprints are this client's version
 * (SIM_FEATURE_VERSION): SIM_ERROR_STORE_TOO_NEW naming both if not. */
/* sim_server_connect_with_password() with @settings ("-c name=value …",
 * or NULL) for the connection's session besides the statement timeout. */
SimServer *_sim_server_connect_with_options (const char *conninfo,
                                             const char *password,
                                             const char *settings,
                                             GError    **error);
/* A second connection to @server's database, as it was connected. */
SimServer *_sim_server_connect_again (SimServer *server,
                                      GError   **error);
/* Whether this client can use schema @version / fingerprints of
 * @version: the errors of sim_server_check_schema() and
 * _sim_server_same_features(), from versions read elsewhere. */
gboolean  _sim_server_usable_schema (SimServer        *server,
                                     guint             version,
                                     GError          **error);
gboolean  _sim_server_usable_features (SimServer      *server,
                                       guint           version,
                                       GError        **error);
gboolean  _sim_server_same_features (SimServer        *server,
                                     GError          **error);
/* FALSE, with SIM_ERROR_NOT_ALLOWED, when this account may not add. */
gboolean  _sim_server_may_write   (SimServer          *server,
                                   GError            **error);
/* @values as a bigint[] literal ("{1,2,3}") for a parameter. (transfer full) */
char     *_sim_server_array_literal (const gint64     *values,
                                     gsize             n);
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
  guint32 doc;      /* at most SIM_SERVER_MAX_DOC_ID */
  guint32 start;
} SimPosting;

/* The largest document id a posting holds: 16 bytes a posting instead of
 * 24 (a batch's lookup rows, a merge's chunk: a third less memory). An
 * add refuses ids beyond it; a row that names one is damaged. */
#define SIM_SERVER_MAX_DOC_ID G_MAXUINT32

/* The rows of a run, for sim-server-postings.c and sim-server-merge.c: a
 * posting's key has SIM_POSTING_KEY_BITS; a run of @bits cuts its rows by
 * the key's high @bits (the bucket); a row is its postings sorted, each
 * the key's other bits as a delta, the document and the start as varints. */
#define SIM_POSTING_KEY_BITS SIM_BAND_INDEX_FILE_BITS
/* Writes rows (COPY's binary format, _sim_posting_encode_rows()) into
 * the lookup table: by COPY on one server; spread over shards, through a
 * staging table and INSERT … SELECT, which postgres_fdw sends to a shard
 * in batches where COPY sends a row at a time (sim-server-layout.c).
 * Begin, put the rows (_sim_server_copy_put()), end. */
gboolean  _sim_posting_rows_begin    (SimServer        *server,
                                      SimServerCopy    *copy,
                                      GError          **error);
gboolean  _sim_posting_rows_end      (SimServer        *server,
                                      SimServerCopy    *copy,
                                      GError          **error);
/* Whether the lookup table is on other servers (postgres_fdw): 1, 0, or
 * -1 with @error. */
int       _sim_posting_spread        (SimServer        *server,
                                      GError          **error);

/* By key, document and start: one 128-bit comparison, without the
 * branches three fields took (a merge's outcomes cannot be foreseen). */
static inline gboolean
_sim_posting_less (const SimPosting *x,
                   const SimPosting *y)
{
  const unsigned __int128 a = (unsigned __int128) x->key << 64 | (guint64) x->doc << 32 | x->start;
  const unsigned __int128 b = (unsigned __int128) y->key << 64 | (guint64) y->doc << 32 | y->start;

  return a < b;
}

int       _sim_posting_compare     (gconstpointer       a,
                                    gconstpointer       b);
/* Bits of the bucket a run of @n postings cuts its rows by. */
guint     _sim_posting_run_bits    (guint64             n);
/* Appends to @out the postings of a row whose document is still there
 * (bit doc of @live, a bit per id below @n_ids); FALSE for a damaged row
 * (what came before the damage is appended). */
gboolean  _sim_posting_decode_row  (const guint8       *data,
                                    gsize               len,
                                    guint32             bucket,
                                    guint               bits,
                                    const guint8       *live,
                                    gint64              n_ids,
                                    GArray             *out);
/* @postings (sorted) as rows of run @run of @bits, COPY's binary format,
 * between copy_header() and copy_trailer(). */
void      _sim_posting_copy_header (GString            *rows);
void      _sim_posting_encode_rows (const SimPosting   *postings,
                                    gsize               n,
                                    gint64              run,
                                    guint               bits,
                                    GString            *rows);
void      _sim_posting_copy_trailer (GString           *rows);
/* A new run's id, and its row in simhound.runs. */
gint64    _sim_posting_next_run    (SimServer          *server,
                                    GError            **error);
gboolean  _sim_posting_write_run   (SimServer          *server,
                                    gint64              run,
                                    guint               bits,
                                    guint64             n,
                                    GError            **error);

/* Big-endian values of a binary result. */
static inline guint
_sim_be16 (const char *p)
{
  guint16 v;

  memcpy (&v, p, 2);
  return GUINT16_FROM_BE (v);
}

static inline guint32
_sim_be32 (const char *p)
{
  guint32 v;

  memcpy (&v, p, 4);
  return GUINT32_FROM_BE (v);
}

static inline gint64
_sim_be64 (const char *p)
{
  guint64 v;

  memcpy (&v, p, 8);
  return (gint64) GUINT64_FROM_BE (v);
}

/* Whether document id @id fits a posting; SIM_ERROR_STORE if not. */
gboolean  _sim_server_ids_fit     (SimServer          *server,
                                   gint64              id,
                                   GError            **error);
/* A run's rows are made a part at a time, each part the postings whose
 * keys share their high bits: a document's windows are kept split into
 * SIM_POSTING_SLICES slices by those bits, so each part reads its own;
 * each window as its key (5 bytes, little-endian) and its start, coded
 * from the start before it in its slice (from 0 for the first), zigzag,
 * 7 bits a byte, low first (6 bytes a window or so, where packed windows
 * take 9). */
#define SIM_POSTING_SLICE_BITS 5
#define SIM_POSTING_SLICES     (1u << SIM_POSTING_SLICE_BITS)
/* A document whose postings a run gets: its windows split, server id (0:
 * left out) and length. */
typedef struct {
  GBytes        *split;
  const guint32 *slices;     /* where each slice begins, in bytes; NULL: no windows */
  gsize          n_windows;
  gint64         id;
  gint64         n_chars;
} SimPostingSource;
/* @packed (_sim_pack_windows()) split: @slices (SIM_POSTING_SLICES + 1)
 * gets where each slice begins, *@n_windows their number. NULL when
 * @packed does not hold whole windows. (transfer full) */
GBytes   *_sim_posting_split      (GBytes             *packed,
                                   guint32            *slices,
                                   gsize              *n_windows);
/* The key of the split window at *@p, *@p moved past it and *@start to its start. */
static inline guint64
_sim_posting_next_split (const guint8 **p,
                         gint64        *start)
{
  guint64 key = 0;

  for (guint i = 0; i < 5; i++)
    key |= (guint64) (*p)[i] << (8 * i);
  *p += 5;
  _sim_next_start (p, start);
  return key;
}
/* Sorts @postings by key, document and start. */
void      _sim_posting_sort       (GArray             *postings);
/* The same for @postings whose keys share their high @known bits. */
void      _sim_posting_sort_below (GArray             *postings,
                                   guint               known);
/* The first key of bucket @bucket of a run of @bits (its high @bits
 * bits are the bucket's). */
static inline guint64
_sim_posting_bucket_first (guint32 bucket,
                           guint   bits)
{
  return bits ? (guint64) bucket << (SIM_POSTING_KEY_BITS - bits) : 0;
}
/* A varint of a row at *@p (before @end) into *@out, *@p past it; FALSE
 * at @end or past 64 bits. */
static inline gboolean
_sim_posting_get_varint (const guint8 **p,
                         const guint8  *end,
                         guint64       *out)
{
  guint64 v = 0;
  guint shift = 0;

  while (*p < end && shift < 64)
    {
      const guint8 b = *(*p)++;

      v |= (guint64) (b & 0x7f) << shift;
      if (!(b & 0x80))
        {
          *out = v;
          return TRUE;
        }
      shift += 7;
    }
  return FALSE;
}
/* The postings of @docs as the rows of a new run, inside the caller's
 * transaction; nothing for none. The rows are made a part at a time on
 * every core and sent as they are made. */
gboolean  _sim_server_put_docs    (SimServer              *server,
                                   const SimPostingSource *docs,
                                   guint                   n_docs,
                                   GError                **error);
/* An add's postings, kept beside the client until they are written as
 * one run (_sim_server_spill_merge()): each batch's as a run of rows
 * (COPY's binary format, no header or trailer) at the end of an unlinked
 * file. Written to the server a batch at a time, every posting was
 * written twice: in its batch's run, then read back, merged and deleted
 * (half the server's statement time of an add). A spill is used by one
 * thread at a time. */
typedef struct {
  guint64 offset;   /* of its rows in the file */
  guint64 length;
  guint   bits;
  guint64 n;        /* postings */
  gint64  first_doc, last_doc;  /* the lowest and highest document id of its postings */
} SimSpillRun;
typedef struct {
  int      fd;
  guint64  end;     /* bytes written */
  GArray  *runs;    /* SimSpillRun, in the file's order */
  int      failed;  /* errno of a write that failed, else 0 */
} SimPostingSpill;
SimPostingSpill *_sim_posting_spill_new (GError **error);
void      _sim_posting_spill_free (SimPostingSpill        *spill);
/* The postings of @docs as a run at the end of @spill; FALSE with @error
 * when they could not be written, @spill as it was. */
gboolean  _sim_posting_spill_put_docs (SimPostingSpill    *spill,
                                       const SimPostingSource *docs,
                                       guint               n_docs,
                                       GError            **error);
/* @spill back to its first @n_runs runs (0: empty). */
void      _sim_posting_spill_truncate (SimPostingSpill    *spill,
                                       guint               n_runs);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimPostingSpill, _sim_posting_spill_free)

/* ------------------------------------------------------ sim-server-lookup.c */

/* The postings of each of @keys (@n, sorted, distinct, masked) in one
 * statement, appended to @out with key the index into @keys, in key
 * order: through simhound.lookup(), or @direct (SIM_SERVER_LOOKUP_DIRECT:
 * on one server, for an account that may read the table). Documents
 * removed since may be among them. */
gboolean  _sim_server_postings_lookup (SimServer      *server,
                                       const guint64  *keys,
                                       gsize           n,
                                       gboolean        direct,
                                       GArray         *out,
                                       GError        **error);

/* ------------------------------------------------------ sim-server-chunks.c */

#define SIM_MERGE_CHUNK (1u << 19)   /* postings a merge holds at once, about */

/* A run of the lookup table, as a merge reads it. */
typedef struct {
  gint64  run;
  guint   bits;
  guint64 n;
} SimMergeRun;

/* Where a spill's run is read from, a buffer at a time. */
typedef struct {
  guint64  at, end;   /* in the file */
  guint8  *buf;
  gsize    len, pos;  /* bytes in @buf, the first not taken */
} SimSpillCursor;

/* What every chunk of a merge is read by: the runs of the server, or
 * those of a spill. */
typedef struct {
  const SimMergeRun     *runs;       /* the server's runs */
  guint                  n_runs;
  guint                  chunk_bits; /* the chunks cut the key space by */
  const guint8          *live;       /* a bit per document id: still there */
  gint64                 n_ids;
  const SimPostingSpill *spill;
  SimSpillCursor        *cursors;    /* a spill's: one a run */
  gboolean               docs_apart; /* each run's documents before the next run's */
} SimMergeReading;

/* Every chunk of @reading read (beside, on @second, if not NULL) and
 * written by @server as rows of run @run of @bits; the postings written
 * into *@written. */
gboolean  _sim_merge_copy_chunks  (SimServer             *server,
                                  SimServer             *second,
                                  const SimMergeReading *reading,
                                  gint64                 run,
                                  guint                  bits,
                                  guint64               *written,
                                  GError               **error);

/* ------------------------------------------------------- sim-server-merge.c */

/* Merges runs of a like size (sim-server-merge.c: the tiers), each merge
 * one transaction; nothing when another client is merging. */
gboolean  _sim_server_postings_merge (SimServer       *server,
                                      GError         **error);
/* @spill's runs merged and written as one run of the lookup table, and
 * @owner's row of simhound.adds deleted (the documents that name it
 * indexed), in one transaction; @spill emptied when it is done. */
gboolean  _sim_server_spill_merge  (SimServer          *server,
                                    SimPostingSpill    *spill,
                                    gint64              owner,
                                    GError            **error);

/* Statements this process has sent any server, each a round trip (the
 * round-trip tests count them), but those of a connection sent beside
 * another's (SimServer.beside), which wait with them. */
guint     _sim_server_n_statements (void);

/* ---------------------------------------------------- sim-server-df-cache.c */

/* The file a corpus server's (@name's) feature statistics are kept in
 * beside the client: under $SIMHOUND_CACHE_DIR, else the user's cache
 * folder. */
char     *_sim_server_df_cache_path  (const char    *name);
/* The SIM_DF_BUCKETS counts kept for @name, and the stamp they were kept
 * under in @out_stamp; or NULL (none kept, or a damaged file). */
guint32  *_sim_server_df_cache_read  (const char    *name,
                                      char         **out_stamp);
/* Keeps @counts for @name under @stamp; a failure is only logged. */
void      _sim_server_df_cache_write (const char    *name,
                                      const char    *stamp,
                                      const guint32 *counts);

/* ---------------------------------------------- sim-server-snapshot-texts.c */

/* Bytes of text this process's snapshots have read from any server (the
 * tests hold a check to the parts it needs). */
guint64   _sim_server_n_text_bytes (void);

/* ----------------------------------------------------- sim-server-waiting.c */

/* sim_server_index_documents() without asking again whether the schema
 * is this client's and the account may write (an add has asked). */
gboolean  _sim_server_index_waiting (SimServer        *server,
                                     guint            *out_n_indexed,
                                     GError          **error);

/* -------------------------------------------------------- sim-server-send.c */

/* A file of a batch being added (sim-server-corpus.c reads them). */
typedef struct {
  char             *path;
  char             *name;
  SimPreparedState  state;
  SimPreparedFile   file;      /* its packed windows let go once split */
  GBytes           *split;     /* _sim_posting_split(), NULL for none */
  guint32           slices[SIM_POSTING_SLICES + 1];
  gsize             n_windows;
  char             *message;   /* SIM_PREPARED_FAILED */
  goffset           size;      /* of the file when the batch was made */
} AddEntry;

/* A batch of an add: its files, read on every core, then sent. */
typedef struct {
  AddEntry          *entries;
  guint              n;
  guint              first;     /* of the files */
  gint               next;
  SimNormalizeFlags  flags;
  gint64            *ids;       /* reserved for each entry, rising (reserve_ids()) */
  /* Made while the batch before is sent (prepare_batch()): */
  GString           *rows;      /* the new entries as staging rows (COPY's text format) */
  guint              n_sent;
  guint16           *df;        /* their df buckets counted (SIM_DF_BUCKETS), if all are new */
  GMutex             lock;      /* for @df, while the batch is read */
} AddBatch;

/* The new entries of @job as staging rows (@job->rows, COPY's text
 * format), each with its reserved id, counted in @job->n_sent. */
void      _sim_server_make_rows   (AddBatch           *job);
/* Sends the prepared entries of @job in one transaction, those added
 * left waiting for @owner's run and their postings put in @spill; counts
 * what was added in @result. FALSE with @error when the batch failed
 * (rolled back, @spill as it was). */
gboolean  _sim_server_send_batch  (SimServer          *server,
                                   const char         *collection_id,
                                   gint64              owner,
                                   SimPostingSpill    *spill,
                                   AddBatch           *job,
                                   SimImportResult    *result,
                                   GError            **error);
/* Adds @delta (1 or -1) times the changes (SIM_DF_BUCKETS counts, in
 * @wide or, when fewer than 16 bits count, @narrow) to the df counts, in
 * the caller's transaction. */
gboolean  _sim_server_add_df      (SimServer          *server,
                                   const guint32      *wide,
                                   const guint16      *narrow,
                                   gint                delta,
                                   GError            **error);

/* ------------------------------------------------------ sim-server-corpus.c */

/* The files of @paths (folders walked) into @files, with the names they
 * are added under into @names, the strings held by @strings; what cannot
 * be read into @failures. */
void      _sim_server_walk        (const char *const  *paths,
                                   GStringChunk       *strings,
                                   GPtrArray          *files,
                                   GPtrArray          *names,
                                   GPtrArray          *failures);
