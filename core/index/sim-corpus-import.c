/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A corpus's documents written: files read and fingerprinted on every core
 * (sim_corpus_prepare_file()), written in batches by one writer; removal;
 * a folder rescanned. Each write reads what it depends on inside its
 * transaction.
 */
#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "sim-error.h"
#include "sim-parallel.h"
#include "sim-file-walk.h"
#include "sim-document.h"
#include "sim-corpus.h"
#include "sim-corpus-private.h"

#define BATCH_BYTES  (16 << 20)
/* Items prepared but not yet written, and their text: room for the workers
 * to go on while the writer commits a batch (some 60 ms, a WAL sync and a
 * checkpoint; with room for 12 items they waited most of it). */
#define MAX_IN_FLIGHT       256
#define MAX_IN_FLIGHT_BYTES (16u << 20)

void
sim_import_result_free (SimImportResult *result)
{
  if (result == NULL)
    return;
  g_ptr_array_unref (result->failures);
  g_free (result);
}

typedef enum {
  ITEM_PENDING,
  ITEM_NEW,
  ITEM_CHANGED,
  ITEM_UNCHANGED,
  ITEM_FAILED,
} ItemState;

typedef struct {
  const char       *path;      /* the job's */
  ItemState         state;
  char             *message;   /* ITEM_FAILED */
  SimStoreDocument *doc;
  char             *text;
  gsize             text_len;
  GBytes           *stored;    /* the text as the store keeps it */
  SimStashed        packed;    /* its windows, kept for the snapshot built after */
  GArray           *buckets;   /* distinct df buckets */
} Item;

typedef struct {
  GPtrArray        *paths;      /* the files, in the order they are written */
  /* Item, or NULL: made by the worker that takes it, freed by the writer
   * once written (an import of 1.37 million files kept them all: 164 MB). */
  GPtrArray        *items;
  GHashTable       *existing;   /* path -> content hash (owned by existing_docs) */
  SimNormalizeFlags flags;
  GCancellable     *cancellable;
  SimStash         *stash;
  gint              next;       /* atomic: next item to work on */
  gint              prefetched; /* atomic: items before this one asked of the disk */
  gint              stop;       /* atomic: the writer gave up */
  GMutex            lock;
  GCond             cond;       /* an item finished, or room in flight */
  guint             in_flight;  /* items finished but not yet written */
  gsize             in_flight_bytes; /* and their bytes of text */
  /* Who waits on @cond, under @lock: each handoff signalled only to a
   * thread waiting for it (a signal is a system call however few wait:
   * two an item were most of an import's 56,000 futex calls). */
  gboolean          writer_waits;
  guint             workers_wait;
} ImportJob;

static void
item_free (Item *item)
{
  if (item == NULL)
    return;
  g_free (item->message);
  sim_store_document_free (item->doc);
  g_free (item->text);
  g_clear_pointer (&item->stored, g_bytes_unref);
  _sim_stashed_clear (&item->packed);
  g_clear_pointer (&item->buckets, g_array_unref);
  g_free (item);
}

static char *
make_title (const char *text,
            gsize       len,
            const char *path)
{
  const char *p = text, *end = text + len;

  while (p < end)
    {
      const char *nl = memchr (p, '\n', end - p);
      const char *line_end = nl ? nl : end;
      g_autofree char *line = g_strstrip (g_strndup (p, line_end - p));

      if (sim_text_has_content (line, -1))
        {
          if (g_utf8_strlen (line, -1) > 80)
            {
              char *cut = g_utf8_offset_to_pointer (line, 79);

              *cut = '\0';
              return g_strconcat (line, "…", NULL);
            }
          return g_steal_pointer (&line);
        }
      p = line_end + 1;
    }
  return g_path_get_basename (path);
}

void
sim_prepared_file_clear (SimPreparedFile *file)
{
  g_clear_pointer (&file->doc, sim_store_document_free);
  g_clear_pointer (&file->text, g_free);
  g_clear_pointer (&file->packed, g_bytes_unref);
  g_clear_pointer (&file->buckets, g_array_unref);
  file->text_len = 0;
}

SimPreparedState
sim_corpus_prepare_file (SimFingerprinter  *fp,
                         const char        *path,
                         const char        *old_hash,
                         SimPreparedFile   *out,
                         GError           **error)
{
  g_autofree char *data = NULL;
  g_autofree char *hash = NULL;
  gint64 mtime = 0;
  gsize len = 0;
  gsize n_windows = 0, n_units = 0;

  memset (out, 0, sizeof *out);
  if ((data = sim_text_read_file (path, &len, &mtime, error)) == NULL)
    return SIM_PREPARED_FAILED;
  hash = sim_corpus_content_hash (data, len);
  if (old_hash != NULL && g_str_equal (old_hash, hash))
    return SIM_PREPARED_UNCHANGED;

  out->text = sim_document_extract (data, len, path, NULL, &out->text_len, NULL, error);
  /* The file's bytes are not needed once its text is out of them. */
  g_clear_pointer (&data, g_free);
  if (out->text == NULL)
    return SIM_PREPARED_FAILED;
  /* Packing leaves the text loaded in @fp: its features give the df
   * buckets, and its units say whether it has any text to index (asking
   * sim_text_has_content() first normalised every text twice). */
  out->packed = _sim_pack_windows (fp, out->text, out->text_len, &n_windows, &n_units);
  if (n_units == 0)
    {
      sim_prepared_file_clear (out);
      g_set_error (error, SIM_ERROR, SIM_ERROR_EMPTY, _("%s has no text to index"), path);
      return SIM_PREPARED_FAILED;
    }
  out->buckets = _sim_distinct_buckets (fp, n_units);
  out->doc = g_new0 (SimStoreDocument, 1);
  out->doc->path = g_strdup (path);
  out->doc->title = make_title (out->text, out->text_len, path);
  out->doc->content_hash = g_steal_pointer (&hash);
  out->doc->n_bytes = len;
  out->doc->n_chars = (gint64) sim_text_count_chars (out->text, out->text_len);
  out->doc->n_anchors = n_windows;
  out->doc->modified_at = mtime;
  out->doc->added_at = out->doc->updated_at = g_get_real_time () / G_USEC_PER_SEC;
  return old_hash != NULL ? SIM_PREPARED_CHANGED : SIM_PREPARED_NEW;
}

/* Reads, decodes and fingerprints one file. Returns the item's new state,
 * which the caller publishes under the job lock: the writer must not see the
 * state before the fields it describes. */
static ItemState
prepare_item (ImportJob        *job,
              SimFingerprinter *fp,
              Item             *item)
{
  static const ItemState states[] = { ITEM_NEW, ITEM_CHANGED, ITEM_UNCHANGED, ITEM_FAILED };
  g_autoptr(GError) error = NULL;
  SimPreparedFile file;
  SimPreparedState state;

  state = sim_corpus_prepare_file (fp, item->path, g_hash_table_lookup (job->existing, item->path), &file, &error);
  if (state == SIM_PREPARED_FAILED)
    {
      item->message = g_strdup (error->message);
      return ITEM_FAILED;
    }
  if (state == SIM_PREPARED_UNCHANGED)
    return ITEM_UNCHANGED;
  item->stored = sim_store_pack_text (file.text, file.text_len, &error);
  if (item->stored == NULL)
    {
      item->message = g_strdup_printf ("%s: %s", item->path, error->message);
      sim_prepared_file_clear (&file);
      return ITEM_FAILED;
    }
  item->doc = g_steal_pointer (&file.doc);
  item->text = g_steal_pointer (&file.text);
  item->text_len = file.text_len;
  _sim_stash_keep (job->stash, g_steal_pointer (&file.packed), item->doc->n_anchors, &item->packed);
  item->buckets = g_steal_pointer (&file.buckets);
  return states[state];
}

/* Files asked of the disk ahead of the workers: reading a corpus from a
 * cold cache, each worker waited for every file it opened (an import of
 * 105 MB took 4.4 s from disk, 3.7 s from the page cache). 512 files, the
 * first 128 KB of each (64 MB at most asked; the kernel reads the rest of
 * a longer file ahead as it is read): with 32 files, the import of 10 MB
 * from a cold cache still waited for the disk (medians of three, each after
 * dropping the caches: 10 MB 0.383 -> 0.363 s, 105 MB 3.01 -> 2.94 s; 1 GB
 * 40.9 and 41.9 s, one run each, within its noise). */
#define PREFETCH_FILES      512
#define PREFETCH_FILE_BYTES (128 << 10)

/* Asks the kernel to read the files of the items up to @until. */
static void
prefetch_items (ImportJob *job,
                gint       until)
{
  until = MIN (until, (gint) job->paths->len);
  for (;;)
    {
      const gint j = g_atomic_int_get (&job->prefetched);
      int fd;

      if (j >= until)
        return;
      if (!g_atomic_int_compare_and_exchange (&job->prefetched, j, j + 1))
        continue;
      /* Not waiting for a writer, should the file have become a pipe. */
      fd = g_open (g_ptr_array_index (job->paths, j), O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
      if (fd >= 0)
        {
#ifdef POSIX_FADV_WILLNEED
          posix_fadvise (fd, 0, PREFETCH_FILE_BYTES, POSIX_FADV_WILLNEED);
#endif
          close (fd);
        }
    }
}

static void
import_worker (gpointer data)
{
  ImportJob *job = data;
  g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (job->flags);

  for (;;)
    {
      gint i;
      Item *item;
      ItemState state;

      /* Bounded memory: wait while the writer has much to catch up on. */
      g_mutex_lock (&job->lock);
      while ((job->in_flight >= MAX_IN_FLIGHT || job->in_flight_bytes >= MAX_IN_FLIGHT_BYTES) &&
             !g_atomic_int_get (&job->stop))
        {
          job->workers_wait++;
          g_cond_wait (&job->cond, &job->lock);
          job->workers_wait--;
        }
      g_mutex_unlock (&job->lock);

      if (g_atomic_int_get (&job->stop) || g_cancellable_is_cancelled (job->cancellable))
        break;
      i = g_atomic_int_add (&job->next, 1);
      if (i >= (gint) job->paths->len)
        break;
      prefetch_items (job, i + PREFETCH_FILES);
      item = g_new0 (Item, 1);
      item->path = g_ptr_array_index (job->paths, i);
      state = prepare_item (job, fp, item);

      g_mutex_lock (&job->lock);
      g_ptr_array_index (job->items, i) = item;
      item->state = state;
      job->in_flight++;
      job->in_flight_bytes += item->text_len;
      if (job->writer_waits)
        g_cond_broadcast (&job->cond);
      g_mutex_unlock (&job->lock);
    }
  /* Wake the writer in case it waits on an item nobody will prepare. */
  g_mutex_lock (&job->lock);
  g_cond_broadcast (&job->cond);
  g_mutex_unlock (&job->lock);
}

/* Decrements the df counts of a stored document from its stored text. */
static gboolean
df_remove_document (SimCorpus        *corpus,
                    SimFingerprinter *fp,
                    guint32          *counts,
                    gint64            id,
                    GError          **error)
{
  g_autofree char *text = NULL;
  g_autoptr(GArray) buckets = NULL;
  g_autoptr(GError) local_error = NULL;
  gsize len = 0;

  text = sim_store_dup_text (corpus->store, id, &len, &local_error);
  /* A damaged text cannot say which features it counted: they stay
   * counted (the statistics weigh features; one document more is no
   * harm), and the document goes. Removing it is no dead end. */
  if (text == NULL && g_error_matches (local_error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT))
    return TRUE;
  if (text == NULL)
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  buckets = _sim_distinct_buckets (fp, sim_fingerprinter_load (fp, text, len)->n);
  _sim_df_apply (counts, buckets, -1);
  return TRUE;
}

SimImportResult *
sim_corpus_add (SimCorpus          *corpus,
                const char *const  *paths,
                SimProgressFunc     progress,
                gpointer            user_data,
                GCancellable       *cancellable,
                GError            **error)
{
  g_autoptr(SimImportResult) result = g_new0 (SimImportResult, 1);
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) existing_docs = NULL;
  g_autoptr(GHashTable) existing = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(SimFingerprinter) fp = NULL;
  g_autofree guint32 *counts = NULL;
  g_autofree char *version = g_strdup_printf ("%d", SIM_FEATURE_VERSION);
  g_autofree char *seed = g_strdup_printf ("%" G_GINT64_MODIFIER "x", SIM_FINGERPRINT_SEED);
  g_autofree char *flags = _sim_corpus_flags_string (corpus->flags);
  ImportJob job = { 0 };
  guint32 n_docs = 0;
  gint64 counts_version = 0;  /* the store's data version @counts were read or saved at */
  guint batch_docs = 0;
  gsize batch_bytes = 0;
  gboolean in_transaction = FALSE;
  gboolean ok = TRUE;
  guint written = 0;

  g_return_val_if_fail (corpus != NULL && !corpus->read_only, NULL);
  g_return_val_if_fail (paths != NULL, NULL);

  result->failures = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; paths[i] != NULL; i++)
    {
      g_autofree char *abs = g_canonicalize_filename (paths[i], NULL);

      sim_file_walk (abs, files, result->failures);
    }
  result->n_failed = result->failures->len;

  /* Only a hint, to skip reading unchanged files: each batch looks again
   * under the write lock. */
  existing_docs = sim_store_list (corpus->store, error);
  if (existing_docs == NULL)
    return NULL;
  for (guint i = 0; i < existing_docs->len; i++)
    {
      SimStoreDocument *doc = g_ptr_array_index (existing_docs, i);

      g_hash_table_insert (existing, doc->path, doc->content_hash);
    }
  /* The statistics are read in each batch's transaction, below. */
  job.items = g_ptr_array_new_with_free_func ((GDestroyNotify) item_free);
  job.paths = files;
  g_ptr_array_set_size (job.items, files->len);
  job.existing = existing;
  job.flags = corpus->flags;
  job.cancellable = cancellable;
  job.stash = _sim_stash_new (sim_store_get_path (corpus->store));
  g_mutex_init (&job.lock);
  g_cond_init (&job.cond);
  fp = sim_fingerprinter_new (corpus->flags);

  /* Workers prepare items in parallel; this thread writes them in order. */
  {
    guint n_threads = MIN (sim_parallel_default_threads (), MAX (job.paths->len, 1));
    GThread *threads[64];
    guint n_started = 0;

    for (guint t = 0; t < n_threads && t < G_N_ELEMENTS (threads); t++)
      {
        threads[n_started] = g_thread_try_new ("simhound-import",
                                               (GThreadFunc) (void (*) (void)) import_worker,
                                               &job, NULL);
        if (threads[n_started] != NULL)
          n_started++;
      }
    if (n_started == 0)
      import_worker (&job);

    for (guint i = 0; i < job.paths->len && ok; i++)
      {
        Item *item;

        g_mutex_lock (&job.lock);
        while (((item = g_ptr_array_index (job.items, i)) == NULL || item->state == ITEM_PENDING) &&
               !g_cancellable_is_cancelled (cancellable))
          {
            gint64 deadline = g_get_monotonic_time () + G_TIME_SPAN_SECOND / 10;

            job.writer_waits = TRUE;
            g_cond_wait_until (&job.cond, &job.lock, deadline);
            job.writer_waits = FALSE;
          }
        g_mutex_unlock (&job.lock);

        if (g_cancellable_set_error_if_cancelled (cancellable, error))
          {
            ok = FALSE;
            break;
          }

        switch (item->state)
          {
          case ITEM_FAILED:
            result->n_failed++;
            g_ptr_array_add (result->failures, g_steal_pointer (&item->message));
            break;
          case ITEM_UNCHANGED:
            result->n_unchanged++;
            break;
          case ITEM_NEW:
          case ITEM_CHANGED:
            if (!in_transaction)
              {
                /* BEGIN IMMEDIATE holds the write lock: what this batch
                 * builds on is read under it, so another writer's batches
                 * (an import, a removal) are never overwritten. The
                 * statistics the batch before saved are still the stored
                 * ones if no other connection has written since: read
                 * again (unpacking 4 MiB, 3.5 ms) only if one has. */
                gint64 data_version = 0;

                if (!sim_store_begin (corpus->store, error))
                  {
                    ok = FALSE;
                    break;
                  }
                in_transaction = TRUE;
                if (!sim_store_data_version (corpus->store, &data_version, error))
                  {
                    ok = FALSE;
                    break;
                  }
                if (counts == NULL || data_version != counts_version)
                  {
                    g_clear_pointer (&counts, g_free);
                    if (!sim_store_load_df (corpus->store, SIM_DF_BUCKETS, &counts, &n_docs, error))
                      {
                        ok = FALSE;
                        break;
                      }
                    if (counts == NULL)
                      counts = g_new0 (guint32, SIM_DF_BUCKETS);
                  }
                counts_version = data_version;
              }
            {
              gint64 old_id = 0;
              g_autofree char *old_hash = NULL;
              g_autoptr(GError) local_error = NULL;

              if (sim_store_find_path (corpus->store, item->path, &old_id, &old_hash, &local_error))
                {
                  if (g_str_equal (old_hash, item->doc->content_hash))
                    {
                      /* Another writer stored this very file meanwhile. */
                      result->n_unchanged++;
                      goto written;
                    }
                  if (!df_remove_document (corpus, fp, counts, old_id, error) ||
                      !sim_store_delete (corpus->store, old_id, error))
                    {
                      ok = FALSE;
                      break;
                    }
                  n_docs--;
                  item->state = ITEM_CHANGED;
                }
              else if (local_error != NULL)
                {
                  g_propagate_error (error, g_steal_pointer (&local_error));
                  ok = FALSE;
                  break;
                }
              else
                item->state = ITEM_NEW;  /* removed by another writer meanwhile */
            }
            if (!sim_store_insert (corpus->store, item->doc, item->stored, error))
              {
                ok = FALSE;
                break;
              }
            /* Held for the index built after the import (a batch rolled
             * back leaves windows of rows that never were: never used). */
            if (corpus->fresh == NULL)
              corpus->fresh = _sim_fresh_new ();
            _sim_fresh_put (corpus->fresh, item->doc, &item->packed);
            _sim_df_apply (counts, item->buckets, +1);
            n_docs++;
            if (item->state == ITEM_CHANGED)
              result->n_updated++;
            else
              result->n_added++;
            result->n_bytes += item->text_len;
            batch_docs++;
            batch_bytes += item->text_len;
          written:
            break;
          default:
            g_assert_not_reached ();
          }

        /* Free the item's payload now: memory stays bounded by in_flight. */
        g_clear_pointer (&item->text, g_free);
        g_clear_pointer (&item->stored, g_bytes_unref);
        _sim_stashed_clear (&item->packed);
        g_clear_pointer (&item->buckets, g_array_unref);
        g_mutex_lock (&job.lock);
        job.in_flight--;
        job.in_flight_bytes -= item->text_len;
        if (job.workers_wait > 0)
          g_cond_broadcast (&job.cond);
        g_mutex_unlock (&job.lock);
        written++;

        if (ok && in_transaction &&
            (batch_docs >= SIM_CORPUS_BATCH_DOCS || batch_bytes >= BATCH_BYTES || i + 1 == job.paths->len))
          {
            if (!sim_store_save_df (corpus->store, counts, SIM_DF_BUCKETS, n_docs, error) ||
                !sim_store_set_meta (corpus->store, "feature_version", version, error) ||
                !sim_store_set_meta (corpus->store, "seed", seed, error) ||
                !sim_store_set_meta (corpus->store, "normalize", flags, error) ||
                !sim_store_commit (corpus->store, error))
              {
                in_transaction = FALSE;
                ok = FALSE;
                break;
              }
            in_transaction = FALSE;
            batch_docs = 0;
            batch_bytes = 0;
          }
        if (progress)
          progress (i + 1, job.paths->len, item->path, user_data);
        g_ptr_array_index (job.items, i) = NULL;
        item_free (item);
      }

    if (in_transaction)
      sim_store_rollback (corpus->store);
    g_atomic_int_set (&job.stop, 1);
    g_mutex_lock (&job.lock);
    g_cond_broadcast (&job.cond);
    g_mutex_unlock (&job.lock);
    for (guint t = 0; t < n_started; t++)
      g_thread_join (threads[t]);
  }

  g_ptr_array_unref (job.items);
  g_mutex_clear (&job.lock);
  g_cond_clear (&job.cond);
  _sim_stash_unref (job.stash);

  /* Whatever happened, the snapshot shows what is committed. */
  if (!_sim_corpus_reload_snapshot (corpus, ok ? error : NULL) && ok)
    return NULL;
  if (!ok)
    return NULL;
  return g_steal_pointer (&result);
}

gboolean
sim_corpus_remove (SimCorpus          *corpus,
                   const char *const  *ids_or_paths,
                   guint              *out_n_removed,
                   GError            **error)
{
  g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GPtrArray) docs = NULL;
  g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (corpus->flags);
  g_autoptr(GHashTable) by_id = NULL;
  g_autoptr(GHashTable) by_path = NULL;
  g_autoptr(GHashTable) seen = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autofree guint32 *counts = NULL;
  guint32 n_docs = 0;

  /* Everything the removal depends on is read under the write lock. */
  if (!sim_store_begin (corpus->store, error))
    return FALSE;
  docs = sim_store_list (corpus->store, error);
  if (docs == NULL)
    {
      sim_store_rollback (corpus->store);
      return FALSE;
    }
  /* Looked up by id and by path in tables: removing a whole corpus of
   * 10,000 documents by id must not compare every id with every document. */
  by_id = g_hash_table_new (g_int64_hash, g_int64_equal);
  by_path = g_hash_table_new (g_str_hash, g_str_equal);
  for (guint j = 0; j < docs->len; j++)
    {
      SimStoreDocument *doc = g_ptr_array_index (docs, j);

      g_hash_table_insert (by_id, &doc->id, doc);
      g_hash_table_insert (by_path, doc->path, doc);
    }
  for (guint i = 0; ids_or_paths[i] != NULL; i++)
    {
      const char *arg = ids_or_paths[i];
      g_autofree char *abs = g_canonicalize_filename (arg, NULL);
      const gint64 arg_id = sim_store_is_document_id (arg) ? g_ascii_strtoll (arg, NULL, 10) : -1;
      const SimStoreDocument *doc = NULL;
      gboolean found = FALSE;

      if (arg_id >= 0)
        doc = g_hash_table_lookup (by_id, &arg_id);
      if (doc == NULL)
        doc = g_hash_table_lookup (by_path, abs);
      if (doc == NULL)
        doc = g_hash_table_lookup (by_path, arg);
      if (doc != NULL && g_hash_table_add (seen, (gpointer) &doc->id))
        g_array_append_val (ids, doc->id);
      found = doc != NULL;
      /* A folder removes every document under it. */
      if (!found && !sim_store_is_document_id (arg))
        {
          g_autofree char *prefix = g_str_has_suffix (abs, "/") ? g_strdup (abs) : g_strconcat (abs, "/", NULL);

          for (guint j = 0; j < docs->len; j++)
            {
              const SimStoreDocument *under = g_ptr_array_index (docs, j);

              if (g_str_has_prefix (under->path, prefix))
                {
                  if (g_hash_table_add (seen, (gpointer) &under->id))
                    g_array_append_val (ids, under->id);
                  found = TRUE;
                }
            }
        }
      if (!found)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                       _("%s is not in the corpus (use an id or a path from “corpus list”)"), arg);
          sim_store_rollback (corpus->store);
          return FALSE;
        }
    }

  if (!sim_store_load_df (corpus->store, SIM_DF_BUCKETS, &counts, &n_docs, error))
    {
      sim_store_rollback (corpus->store);
      return FALSE;
    }
  for (guint i = 0; i < ids->len; i++)
    {
      const gint64 id = g_array_index (ids, gint64, i);
      if ((counts != NULL && !df_remove_document (corpus, fp, counts, id, error)) ||
          !sim_store_delete (corpus->store, id, error))
        {
          sim_store_rollback (corpus->store);
          return FALSE;
        }
      n_docs = n_docs > 0 ? n_docs - 1 : 0;
      if (out_n_removed)
        (*out_n_removed)++;
    }
  if ((counts != NULL && !sim_store_save_df (corpus->store, counts, SIM_DF_BUCKETS, n_docs, error)) ||
      !sim_store_commit (corpus->store, error))
    {
      sim_store_rollback (corpus->store);
      return FALSE;
    }
  return _sim_corpus_reload_snapshot (corpus, error);
}

SimImportResult *
sim_corpus_rescan (SimCorpus       *corpus,
                   const char      *folder,
                   SimProgressFunc  progress,
                   gpointer         user_data,
                   GCancellable    *cancellable,
                   GError         **error)
{
  g_autofree char *abs = g_canonicalize_filename (folder, NULL);
  g_autofree char *prefix = g_str_has_suffix (abs, "/") ? g_strdup (abs) : g_strconcat (abs, "/", NULL);
  g_autoptr(GPtrArray) docs = NULL;
  g_autoptr(GPtrArray) gone = g_ptr_array_new_with_free_func (g_free);
  const char *paths[] = { abs, NULL };
  SimImportResult *result;
  guint n_removed = 0;

  g_return_val_if_fail (corpus != NULL && !corpus->read_only, NULL);

  /* A folder that is not there (an unplugged drive, a typo) says so rather
   * than emptying the corpus of everything it held. */
  if (!g_file_test (abs, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("The folder %s is not there (is its drive connected?): nothing was changed"), abs);
      return NULL;
    }
  docs = sim_store_list (corpus->store, error);
  if (docs == NULL)
    return NULL;
  for (guint i = 0; i < docs->len; i++)
    {
      const SimStoreDocument *doc = g_ptr_array_index (docs, i);

      if (g_str_has_prefix (doc->path, prefix) && !g_file_test (doc->path, G_FILE_TEST_EXISTS))
        g_ptr_array_add (gone, g_strdup_printf ("%" G_GINT64_FORMAT, doc->id));
    }
  if (gone->len > 0)
    {
      g_ptr_array_add (gone, NULL);
      if (!sim_corpus_remove (corpus, (const char *const *) gone->pdata, &n_removed, error))
        return NULL;
    }
  result = sim_corpus_add (corpus, paths, progress, user_data, cancellable, error);
  if (result != NULL)
    result->n_removed = n_removed;
  return result;
}
