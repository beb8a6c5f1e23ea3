/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The corpus server's documents: adding files and folders, and the list.
 * Files are read and fingerprinted on every core as a local import does
 * (sim_corpus_prepare_file()), a batch at a time, while the batch before
 * is sent; one transaction a batch. Each batch's document ids are
 * reserved from the server's sequence before it is read, so its
 * documents' rows are made beside the sending of the batch before. Sent:
 * the documents through COPY into a staging table and inserted from it
 * (one already there is left alone), their texts and the feature
 * statistics. The lookup rows of those added (sim-server-postings.c) are
 * kept beside the add, and written as one run when it ends and every
 * MERGE_EVERY bytes of a long one (sim-server-merge.c): till then its
 * documents wait for it (schema version 6, sim-server-schema.c). A
 * batch that fails is rolled back whole and named in the failures; the
 * rest goes on.
 *
 * What identifies a document is its content hash and the name it was
 * added under: the file's path below the folder given, after that
 * folder's own name ("class-2026/smith.docx"), or a file's name alone. Two
 * desktops adding the same folder of the same files store each once; a
 * file changed since is a document of its own.
 */
#include "config.h"

#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "sim-error.h"
#include "sim-file-walk.h"
#include "sim-parallel.h"
#include "sim-server-private.h"
#include "sim-window-codec.h"

#define BATCH_FILES 4096
/* Of files (SIMHOUND_SERVER_BATCH_BYTES sets it for tests). Two batches
 * are held at once (one read while the one before is sent): 8 MB rather
 * than 16 made an add of 1 GB peak at 112 MB rather than 135, in the same
 * time (130 s; merged by bytes, below). 4 MB rather than 8, alternated
 * five times each: ../shared/corpora peaked at 86-89 MB rather than
 * 88-105 in 2.19-3.33 s against 2.20-3.05, and 1 GB at 60 MB rather than
 * 73 in 97.3 s against 97.1. (Once, with slower fingerprints, 4 MB took
 * an add of 31.7 MB 8.0 s rather than 5.8 at 16 MB.) */
#define BATCH_BYTES (4u << 20)
#define MERGE_EVERY (512u << 20) /* bytes of text added */

static void
entry_clear (AddEntry *e)
{
  g_free (e->path);
  g_free (e->name);
  g_free (e->message);
  g_clear_pointer (&e->split, g_bytes_unref);
  sim_prepared_file_clear (&e->file);
}

/* Splits the packed windows of @e, as a run's rows read them. */
static void
entry_split (AddEntry *e)
{
  e->split = _sim_posting_split (e->file.packed, e->slices, &e->n_windows);
  g_clear_pointer (&e->file.packed, g_bytes_unref);
}

/* Reads and fingerprints files of @job until none is left; each file's
 * df buckets are counted at once (kept a list a file until the batch was
 * read, they were a quarter of an add's memory), in 16 bits, as a batch
 * has fewer files than that counts (counted atomically in the batch's
 * counts, they took a third more of their thread's time). */
G_STATIC_ASSERT (BATCH_FILES <= G_MAXUINT16);

/* A file this large is read one at a time, with a fingerprinter of its
 * own let go after it: preparing a file takes some 18 bytes a byte of it
 * at its peak, and two of the 2 MB files of ../shared/corpora read at
 * once, each thread then keeping its buffers, took an add to 126 MB. */
#define BIG_FILE (512u << 10)

static void
prepare_worker (gpointer data)
{
  static GMutex big;
  AddBatch *job = data;
  g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (job->flags);
  g_autofree guint16 *df = g_new0 (guint16, SIM_DF_BUCKETS);

  for (;;)
    {
      const gint i = g_atomic_int_add (&job->next, 1);
      g_autoptr(GError) error = NULL;
      g_autoptr(SimFingerprinter) own = NULL;
      AddEntry *e;

      if (i >= (gint) job->n)
        break;
      e = &job->entries[i];
      if (e->size > BIG_FILE)
        {
          g_mutex_lock (&big);
          own = sim_fingerprinter_new (job->flags);
        }
      e->state = sim_corpus_prepare_file (own != NULL ? own : fp, e->path, NULL, &e->file, &error);
      if (e->state == SIM_PREPARED_FAILED)
        e->message = g_strdup (error->message);
      if (e->state == SIM_PREPARED_NEW)
        {
          const GArray *buckets = e->file.buckets;

          for (guint b = 0; b < buckets->len; b++)
            df[g_array_index (buckets, guint32, b)]++;
          entry_split (e);
        }
      g_clear_pointer (&e->file.buckets, g_array_unref);
      if (own != NULL)
        {
          g_clear_pointer (&own, sim_fingerprinter_free);
#ifdef __GLIBC__
          malloc_trim (0);
#endif
          g_mutex_unlock (&big);
        }
    }
  /* The first worker done gives its counts to the batch. */
  g_mutex_lock (&job->lock);
  if (job->df == NULL)
    job->df = g_steal_pointer (&df);
  else
    for (guint b = 0; b < SIM_DF_BUCKETS; b++)
      job->df[b] += df[b];
  g_mutex_unlock (&job->lock);
}

/* Files of @paths with the names they are added under, the strings in
 * @strings: a string each allocated on its own, 200,000 files' paths and
 * names took 27 MB of an add. */
void
_sim_server_walk (const char *const *paths,
                  GStringChunk      *strings,
                  GPtrArray         *files,
                  GPtrArray         *names,
                  GPtrArray         *failures)
{
  for (guint i = 0; paths[i] != NULL; i++)
    {
      g_autoptr(GPtrArray) found = g_ptr_array_new_with_free_func (g_free);
      g_autofree char *root = g_canonicalize_filename (paths[i], NULL);
      g_autofree char *base = g_path_get_basename (root);
      const gboolean is_dir = g_file_test (root, G_FILE_TEST_IS_DIR);

      sim_file_walk (paths[i], found, failures);
      for (guint k = 0; k < found->len; k++)
        {
          const char *path = g_ptr_array_index (found, k);
          g_autofree char *absolute = g_canonicalize_filename (path, NULL);
          g_autofree char *name = NULL;
          const gsize n = strlen (root);

          if (is_dir && g_str_has_prefix (absolute, root) && absolute[n] == G_DIR_SEPARATOR)
            name = g_build_filename (base, absolute + n + 1, NULL);
          else
            name = g_path_get_basename (path);
          const char *kept = g_string_chunk_insert (strings, path);
          const gsize kept_len = strlen (kept), name_len = strlen (name);

          /* A name is most often the end of its path: kept once (at
           * 200,000 files, paths and names were 19 MB of an add's peak). */
          g_ptr_array_add (names, kept_len >= name_len && strcmp (kept + kept_len - name_len, name) == 0
                                    ? (gpointer) (kept + kept_len - name_len)
                                    : g_string_chunk_insert (strings, name));
          g_ptr_array_add (files, (gpointer) kept);
        }
    }
}

/* The next batch of files from *@done on: up to BATCH_FILES files, or
 * BATCH_BYTES of file, each shifted right by @shift; *@done moves past
 * it. NULL when none is left. The first batches are smaller: nothing is
 * sent while the first is read, and the server waited 1.7 s of an add of
 * 4.9 s for a whole one. */
static AddBatch *
batch_new (GPtrArray *files,
           GPtrArray *names,
           guint     *done,
           guint      shift)
{
  AddBatch *job;
  guint n = 0;
  gsize bytes = 0;
  g_autofree goffset *sizes = g_new0 (goffset, MIN (files->len - *done, BATCH_FILES) + 1);

  const char *env = g_getenv ("SIMHOUND_SERVER_BATCH_BYTES");
  const guint64 limit = env && g_ascii_strtoull (env, NULL, 10) > 0 ? g_ascii_strtoull (env, NULL, 10) : BATCH_BYTES;

  while (*done + n < files->len && (n == 0 || (n < (BATCH_FILES >> shift) && bytes < (limit >> shift))))
    {
      GStatBuf st;

      if (g_stat (g_ptr_array_index (files, *done + n), &st) == 0)
        sizes[n] = st.st_size;
      bytes += sizes[n++];
    }
  if (n == 0)
    return NULL;
  job = g_new0 (AddBatch, 1);
  job->entries = g_new0 (AddEntry, n);
  job->n = n;
  job->first = *done;
  job->flags = SIM_NORMALIZE_FOLD_T2S;
  for (guint i = 0; i < n; i++)
    {
      job->entries[i].path = g_strdup (g_ptr_array_index (files, *done + i));
      job->entries[i].name = g_strdup (g_ptr_array_index (names, *done + i));
      job->entries[i].size = sizes[i];
    }
  *done += n;
  return job;
}

/* Reads and fingerprints a batch on every core (a GThreadFunc). */
static gpointer
prepare_batch (gpointer data)
{
  AddBatch *job = data;

  g_mutex_init (&job->lock);
  sim_parallel_run (MIN (sim_parallel_default_threads (), job->n), prepare_worker, job);
  g_mutex_clear (&job->lock);
#ifdef __GLIBC__
  /* What the workers let go (the files' text and windows once split)
   * goes back too: it was the difference between the heap at its peak
   * and the add's (97 and 141 MB, ../shared/corpora). */
  malloc_trim (0);
#endif
  _sim_server_make_rows (job);
  return NULL;
}

static void
batch_free (AddBatch *job)
{
  for (guint i = 0; i < job->n; i++)
    entry_clear (&job->entries[i]);
  g_free (job->entries);
  if (job->rows != NULL)
    g_string_free (job->rows, TRUE);
  g_free (job->df);
  g_free (job->ids);
  g_free (job);
}

/* Reserves an id for each entry of @job before it is prepared: its
 * staging rows are then written as they will be sent,
 * on the thread that prepares it. An id not used (a document already
 * there, a file that could not be read) is a gap, as a removed document's
 * is. */
static gboolean
reserve_ids (SimServer  *server,
             AddBatch *job,
             GError    **error)
{
  g_autofree char *n = g_strdup_printf ("%u", job->n);
  const char *params[] = { n };
  PGresult *result = _sim_server_run (server,
                                      "SELECT nextval ('simhound.documents_id_seq') FROM generate_series (1, $1::integer)"
                                      " ORDER BY 1",
                                      1, params, error);

  if (result == NULL)
    return FALSE;
  if (PQntuples (result) != (int) job->n)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE, _("The corpus server %s gave no document ids"),
                   sim_server_get_name (server));
      PQclear (result);
      return FALSE;
    }
  job->ids = g_new (gint64, job->n);
  for (guint i = 0; i < job->n; i++)
    job->ids[i] = g_ascii_strtoll (PQgetvalue (result, i, 0), NULL, 10);
  PQclear (result);
  /* Rising in the entries' order (ORDER BY 1), as a local store gives ids. */
  return _sim_server_ids_fit (server, job->ids[job->n - 1], error);
}

/* The next batch, its ids reserved (not read yet); NULL with @error
 * unset when none is left. */
static AddBatch *
reserved_batch (SimServer *server,
                GPtrArray *files,
                GPtrArray *names,
                guint     *done,
                guint      shift,
                GError   **error)
{
  AddBatch *job = batch_new (files, names, done, shift);

  if (job != NULL && !reserve_ids (server, job, error))
    g_clear_pointer (&job, batch_free);
  return job;
}

/* A row of simhound.adds for the documents this add adds until its next
 * run is written, and the advisory lock on it, held by its session until
 * let_owner_go(): the row is there, and the lock free, only once the add
 * has ended without writing the run. */
static gint64
take_owner (SimServer *server,
            GError   **error)
{
  PGresult *result = _sim_server_run (server,
                                      "INSERT INTO simhound.adds SELECT nextval ('simhound.run_ids')"
                                      " RETURNING owner, pg_advisory_lock (" SIM_SERVER_OWNER_LOCK ", (owner & 2147483647)::integer)",
                                      0, NULL, error);
  gint64 owner;

  if (result == NULL)
    return -1;
  owner = g_ascii_strtoll (PQgetvalue (result, 0, 0), NULL, 10);
  PQclear (result);
  return owner;
}

static void
let_owner_go (SimServer *server,
              gint64     owner)
{
  g_autofree char *unlock = g_strdup_printf ("SELECT pg_advisory_unlock (" SIM_SERVER_OWNER_LOCK ", %d)",
                                             (int) (owner & 0x7fffffff));

  if (PQstatus (server->conn) == CONNECTION_OK)
    _sim_server_run_command (server, unlock, NULL);
}

/* What @spill holds written as a run, and @owner's documents with it;
 * with none kept, @owner's row alone deleted. */
static gboolean
write_spill (SimServer       *server,
             SimPostingSpill *spill,
             gint64           owner,
             GError         **error)
{
  g_autofree char *s_owner = g_strdup_printf ("%" G_GINT64_FORMAT, owner);
  const char *params[] = { s_owner };
  PGresult *result;

  if (spill->runs->len > 0)
    return _sim_server_spill_merge (server, spill, owner, error) && _sim_server_postings_merge (server, error);
  result = _sim_server_run (server, "DELETE FROM simhound.adds WHERE owner = $1", 1, params, error);
  PQclear (result);
  return result != NULL;
}

/* Ends an add: what @spill holds written as a run (but with the
 * connection gone: its documents then wait for the next add), the lock
 * on @owner let go. FALSE with @error when the run could not be
 * written. */
static gboolean
finish_add (SimServer       *server,
            SimPostingSpill *spill,
            gint64           owner,
            GError         **error)
{
  gboolean ok;

  if (PQstatus (server->conn) != CONNECTION_OK)
    return TRUE;
  ok = write_spill (server, spill, owner, error);
  let_owner_go (server, owner);
  return ok;
}

SimImportResult *
sim_server_add (SimServer          *server,
                const char *const  *paths,
                const char         *collection,
                SimProgressFunc     progress,
                gpointer            user_data,
                GCancellable       *cancellable,
                GError            **error)
{
  g_autoptr(SimImportResult) result = g_new0 (SimImportResult, 1);
  g_autoptr(GPtrArray) files = g_ptr_array_new ();
  g_autoptr(GPtrArray) names = g_ptr_array_new ();
  g_autoptr(GStringChunk) strings = g_string_chunk_new (1 << 16);
  g_autoptr(SimPostingSpill) spill = NULL;
  g_autofree char *collection_id = NULL;
  guint done = 0, n_waiting = 0;
  gint64 owner;

  g_return_val_if_fail (paths != NULL, NULL);

  result->failures = g_ptr_array_new_with_free_func (g_free);
  if (!sim_server_check_schema (server, error) || !_sim_server_same_features (server, error) || !_sim_server_may_write (server, error) ||
      !_sim_server_run_command (server,
                                "CREATE TEMP TABLE IF NOT EXISTS simhound_staging ("
                                "  seq integer, id bigint, content_hash text, name text, title text, n_chars bigint,"
                                "  n_bytes bigint, n_windows integer, modified_at bigint)"
                                " ON COMMIT DELETE ROWS", error))
    return NULL;
  /* The statistics' chunks staged each batch (_sim_server_add_df()) are
   * packed already: pglz tried each and gave up slowly (1% of the
   * samples of an add of 200,000 essays). Where the server has no lz4,
   * they stay as they were. */
  _sim_server_run_command (server, "SET default_toast_compression = lz4", NULL);
  if (collection == NULL)
    collection = "default";
  /* The collection's id, given to each batch: a batch's statement reads
   * its staging table alone (Citus plans an insert from a temporary table
   * more simply without a reference table beside it). */
  {
    const char *params[] = { collection };
    PGresult *made = _sim_server_run (server, "INSERT INTO simhound.collections (name) VALUES ($1)"
                                      " ON CONFLICT (name) DO UPDATE SET name = EXCLUDED.name RETURNING id",
                                      1, params, error);

    if (made == NULL)
      return NULL;
    collection_id = g_strdup (PQgetvalue (made, 0, 0));
    PQclear (made);
  }
  /* What an add that ended early left waiting, indexed first. */
  if (!_sim_server_index_waiting (server, &n_waiting, error) ||
      (spill = _sim_posting_spill_new (error)) == NULL ||
      (owner = take_owner (server, error)) < 0)
    return NULL;
  _sim_server_walk (paths, strings, files, names, result->failures);
  result->n_failed = result->failures->len;

  /* Batch k + 1 is read and fingerprinted while batch k is sent. */
  {
    AddBatch *ready = reserved_batch (server, files, names, &done, 2, error);
    guint n_batches = 0;
    guint64 merged_at = 0;

    if (ready == NULL && done > 0)
      {
        finish_add (server, spill, owner, NULL);
        return NULL;
      }
    if (ready != NULL)
      prepare_batch (ready);

    while (ready != NULL)
      {
        g_autoptr(GError) batch_error = NULL;
        GThread *ahead = NULL;
        AddBatch *job = ready;
        gboolean lost, merge_after;
        guint64 new_bytes = 0;

        /* Runs of a like size are merged when the add ends, and every
         * MERGE_EVERY bytes of a long one (each batch's run merged as it
         * came was written again three times over on an add of 24 MB;
         * every 32 batches of 8 MB, a posting was written twice at 1 GB
         * where every 32 of 16 MB wrote it once: 191 s against 132). The
         * next batch is read after such a merge, not beside it: with it
         * the merge of an add of 1 GB peaked at 88 MB, 70-77 MB between
         * merges. */
        for (guint i = 0; i < job->n; i++)
          if (job->entries[i].state == SIM_PREPARED_NEW)
            new_bytes += job->entries[i].file.text_len;
        merge_after = done >= files->len || result->n_bytes + new_bytes - merged_at >= MERGE_EVERY;
        ready = NULL;
        if (done < files->len &&
            (ready = reserved_batch (server, files, names, &done, n_batches == 0 ? 1 : 0, &batch_error)) != NULL &&
            !merge_after)
          ahead = g_thread_new ("simhound-prepare", prepare_batch, ready);
        for (guint i = 0; i < job->n; i++)
          if (job->entries[i].state == SIM_PREPARED_FAILED)
            {
              g_ptr_array_add (result->failures, g_strdup (job->entries[i].message));
              result->n_failed++;
            }
        /* The ids not given: the connection is lost or the server refuses. */
        lost = batch_error != NULL || g_cancellable_set_error_if_cancelled (cancellable, &batch_error) ||
               (!_sim_server_send_batch (server, collection_id, owner, spill, job, result, &batch_error) &&
                g_error_matches (batch_error, SIM_ERROR, SIM_ERROR_SERVER));
        n_batches++;
        if (!lost && batch_error != NULL)
          /* The batch is rolled back whole: its files are named, the rest goes on. */
          for (guint i = 0; i < job->n; i++)
            if (job->entries[i].state == SIM_PREPARED_NEW)
              {
                g_ptr_array_add (result->failures,
                                 g_strdup_printf (_("%s: not added, its batch was rolled back: %s"),
                                                  job->entries[i].path, batch_error->message));
                result->n_failed++;
              }
        if (progress && !lost)
          progress (job->first + job->n, files->len, job->entries[job->n - 1].path, user_data);
        batch_free (job);
#ifdef __GLIBC__
        /* What the batch held goes back to the system: freed on other
         * threads' arenas it stayed (an add of 200 MB in 8 MB batches,
         * before its rows were made as sent, peaked at 119-125 MB without
         * this and at 96 MB with it). */
        malloc_trim (0);
#endif
        /* The postings kept so far written as a run, then runs of a like
         * size merged; the documents after wait under an owner of their
         * own. A failed merge leaves the runs as they were, and ends the
         * add. */
        if (!lost && batch_error == NULL && merge_after && ready != NULL)
          {
            const gint64 before = owner;

            lost = !write_spill (server, spill, owner, &batch_error) ||
                   (owner = take_owner (server, &batch_error)) < 0;
            let_owner_go (server, before);
            merged_at = result->n_bytes;
          }
        if (ahead != NULL)
          g_thread_join (ahead);
        else if (ready != NULL && !lost)
          prepare_batch (ready);
        if (lost)
          {
            g_clear_pointer (&ready, batch_free);
            /* Stopped (or refused): what was added is still indexed. */
            finish_add (server, spill, owner, NULL);
            g_propagate_error (error, g_steal_pointer (&batch_error));
            return NULL;
          }
      }
  }
  if (!finish_add (server, spill, owner, error))
    return NULL;
  return g_steal_pointer (&result);
}
