/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A corpus: a store opened for its snapshots (sim-snapshot.c), and every
 * write to it, each reading what it depends on inside its transaction:
 * import, remove, rescan, rebuild, settings.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <xxhash.h>

#include "sim-error.h"
#include "sim-parallel.h"
#include "sim-corpus.h"
#include "sim-file-walk.h"
#include "sim-document.h"
#include "sim-corpus-private.h"

#define BATCH_BYTES  (16 << 20)
/* Items prepared but not yet written, and their text: room for the workers
 * to go on while the writer commits a batch (some 60 ms, a WAL sync and a
 * checkpoint; with room for 12 items they waited most of it). */
#define MAX_IN_FLIGHT       256
#define MAX_IN_FLIGHT_BYTES (16u << 20)

/* ------------------------------------------------------------------ corpus */

static gboolean reload_snapshot (SimCorpus *corpus, GError **error);

struct _SimCorpus {
  SimStore          *store;
  SimNormalizeFlags  flags;
  SimCorpusSnapshot *snapshot;
  GHashTable        *fresh;     /* Fresh windows of the last write, for the next snapshot */
  gboolean           read_only;
  gboolean           rebuilt;
};

void
sim_import_result_free (SimImportResult *result)
{
  if (result == NULL)
    return;
  g_ptr_array_unref (result->failures);
  g_free (result);
}

char *
sim_corpus_dup_default_path (void)
{
  const char *env = g_getenv ("SIMHOUND_STORE");

  if (env != NULL && *env != '\0')
    return g_strdup (env);
  return g_build_filename (g_get_user_data_dir (), "simhound", "corpus.db", NULL);
}

static char *
flags_string (SimNormalizeFlags flags)
{
  return g_strdup ((flags & SIM_NORMALIZE_FOLD_T2S) ? "t2s" : "none");
}

/* Recomputes every document's fingerprints and the feature statistics from
 * stored text, in one transaction: the store holds either the old or the new
 * fingerprints, never a mix. */
static gboolean
corpus_rebuild (SimCorpus  *corpus,
                GError    **error)
{
  g_autoptr(GPtrArray) docs = NULL;
  g_autofree guint32 *counts = g_new0 (guint32, SIM_DF_BUCKETS);
  g_autofree char *version = g_strdup_printf ("%d", SIM_FEATURE_VERSION);
  g_autofree char *seed = g_strdup_printf ("%" G_GINT64_MODIFIER "x", SIM_FINGERPRINT_SEED);
  g_autofree char *flags = flags_string (corpus->flags);
  g_autofree char *generation = NULL;
  g_autoptr(GHashTable) fresh = _sim_fresh_new ();
  gboolean dropped = FALSE;

  /* The documents are listed under the write lock: none added meanwhile is missed. */
  if (!sim_store_begin (corpus->store, error))
    return FALSE;
  docs = sim_store_list (corpus->store, error);
  if (docs == NULL)
    goto fail;
  /* Fingerprinted on every core, each worker reading the texts through a
   * connection of its own (they do not change under the write lock); the
   * rows are written here. */
  {
    TextJob job = { sim_store_get_path (corpus->store), corpus->flags, NULL, NULL, NULL, counts, docs->len,
                    0, 0, { 0 }, NULL };
    g_autofree gint64 *ids = g_new (gint64, MAX (docs->len, 1));
    g_autofree GBytes **packed = g_new0 (GBytes *, MAX (docs->len, 1));
    g_autofree gsize *n_windows = g_new0 (gsize, MAX (docs->len, 1));
    gboolean ok = TRUE;

    for (guint i = 0; i < docs->len; i++)
      ids[i] = ((SimStoreDocument *) g_ptr_array_index (docs, i))->id;
    job.ids = ids;
    job.packed = packed;
    job.n_windows = n_windows;
    g_mutex_init (&job.lock);
    if (docs->len > 0)
      sim_parallel_run (MIN (sim_parallel_default_threads (), docs->len), _sim_text_worker, &job);
    g_mutex_clear (&job.lock);
    if (job.error != NULL)
      {
        g_propagate_error (error, job.error);
        ok = FALSE;
      }
    for (guint i = 0; i < docs->len; i++)
      {
        SimStoreDocument *doc = g_ptr_array_index (docs, i);

        if (ok && !sim_store_set_n_segments (corpus->store, doc->id, n_windows[i], error))
          ok = FALSE;
        doc->n_segments = n_windows[i];
        if (ok && packed[i] != NULL)
          _sim_fresh_put (fresh, doc, g_steal_pointer (&packed[i]));
        g_clear_pointer (&packed[i], g_bytes_unref);
      }
    if (!ok)
      goto fail;
  }
  /* The index files name the generation of the fingerprints they hold:
   * the documents' rows stay as they were, their fingerprints do not. */
  generation = g_strdup_printf ("%" G_GINT64_FORMAT, g_get_real_time ());
  if (!sim_store_drop_old_tables (corpus->store, &dropped, error) ||
      !sim_store_save_df (corpus->store, counts, SIM_DF_BUCKETS, docs->len, error) ||
      !sim_store_set_meta (corpus->store, "generation", generation, error) ||
      !sim_store_set_meta (corpus->store, "feature_version", version, error) ||
      !sim_store_set_meta (corpus->store, "seed", seed, error) ||
      !sim_store_set_meta (corpus->store, "normalize", flags, error) ||
      !sim_store_commit (corpus->store, error))
    goto fail;
  /* A store made before version 7 of the features held every window
   * twice: its file shrinks once. */
  if (dropped)
    sim_store_vacuum (corpus->store);
  /* The next snapshot indexes these windows rather than the texts again. */
  g_clear_pointer (&corpus->fresh, g_hash_table_unref);
  corpus->fresh = g_steal_pointer (&fresh);
  return TRUE;

fail:
  sim_store_rollback (corpus->store);
  return FALSE;
}

void
sim_repair_result_free (SimRepairResult *result)
{
  if (result == NULL)
    return;
  g_clear_pointer (&result->damaged, g_ptr_array_unref);
  g_clear_pointer (&result->healed, g_ptr_array_unref);
  g_clear_pointer (&result->set_aside, g_ptr_array_unref);
  g_clear_pointer (&result->salvaged, g_ptr_array_unref);
  g_clear_pointer (&result->index_damage, g_free);
  g_free (result);
}

static SimRepairResult *
repair_result_new (void)
{
  SimRepairResult *result = g_new0 (SimRepairResult, 1);

  result->damaged = g_ptr_array_new_with_free_func (g_free);
  result->healed = g_ptr_array_new_with_free_func (g_free);
  result->set_aside = g_ptr_array_new_with_free_func (g_free);
  return result;
}

/* A file's content hash as the store keeps it: XXH3-128 of its bytes, in
 * hex. (transfer full) */
char *
sim_corpus_content_hash (const char *data,
                         gsize       len)
{
  const XXH128_hash_t h = XXH3_128bits (data, len);

  return g_strdup_printf ("%016" G_GINT64_MODIFIER "x%016" G_GINT64_MODIFIER "x", h.high64, h.low64);
}

/* The text of @doc's file as it was added: NULL (and @why) when the file
 * is gone or changed. (transfer full) */
static GBytes *
read_unchanged (const SimStoreDocument  *doc,
                char                   **why)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL, *hash = NULL, *text = NULL;
  gsize len = 0, text_len = 0;

  if ((data = sim_text_read_file (doc->path, &len, NULL, &error)) == NULL)
    {
      *why = g_strdup_printf (_("its file cannot be read again: %s"), error->message);
      return NULL;
    }
  hash = sim_corpus_content_hash (data, len);
  if (!g_str_equal (hash, doc->content_hash))
    {
      *why = g_strdup (_("its file has changed since it was added"));
      return NULL;
    }
  if ((text = sim_document_extract (data, len, doc->path, NULL, &text_len, NULL, &error)) == NULL)
    {
      *why = g_strdup_printf (_("its file cannot be read again: %s"), error->message);
      return NULL;
    }
  {
    GBytes *packed = sim_store_pack_text (text, text_len, &error);

    if (packed == NULL)
      *why = g_strdup (error->message);
    return packed;
  }
}

/* Reads every stored text whole. With @repair (a store open for writing),
 * a damaged one is read again from its file when that is there and
 * unchanged, and set aside otherwise; a sound one packed before texts had
 * checksums gets one. */
static gboolean
check_texts (SimStore         *store,
             gboolean          repair,
             SimRepairResult  *result,
             GError          **error)
{
  g_autoptr(GPtrArray) docs = NULL;

  if (repair && !sim_store_begin (store, error))
    return FALSE;
  if ((docs = sim_store_list (store, error)) == NULL)
    goto fail;
  for (guint i = 0; i < docs->len; i++)
    {
      const SimStoreDocument *doc = g_ptr_array_index (docs, i);
      g_autoptr(GError) local_error = NULL;
      g_autoptr(GBytes) again = NULL;
      g_autofree char *why = NULL;
      g_autofree char *text = NULL;
      gsize len = 0;

      switch (sim_store_verify_text (store, doc->id, &local_error))
        {
        case SIM_STORE_TEXT_SOUND:
          result->n_sound++;
          continue;
        case SIM_STORE_TEXT_UNCHECKED:
          result->n_sound++;
          if (!repair)
            continue;
          /* Packed again, now with a checksum. */
          if ((text = sim_store_dup_text (store, doc->id, &len, error)) == NULL)
            goto fail;
          again = sim_store_pack_text (text, len, error);
          if (again == NULL || !sim_store_replace_text (store, doc->id, again, error))
            goto fail;
          result->n_upgraded++;
          continue;
        case SIM_STORE_TEXT_UNREADABLE:
          g_propagate_error (error, g_steal_pointer (&local_error));
          goto fail;
        case SIM_STORE_TEXT_DAMAGED:
        default:
          break;
        }
      g_ptr_array_add (result->damaged, g_strdup_printf (_("document %lld, %s: its stored text is damaged"),
                                                         (long long) doc->id, doc->path));
      if (!repair)
        continue;
      if ((again = read_unchanged (doc, &why)) != NULL)
        {
          if (!sim_store_replace_text (store, doc->id, again, error))
            goto fail;
          g_ptr_array_add (result->healed, g_strdup (doc->path));
        }
      else
        {
          if (!sim_store_set_aside (store, doc->id, why, error))
            goto fail;
          g_ptr_array_add (result->set_aside, g_strdup_printf ("%s: %s", doc->path, why));
        }
    }
  return !repair || sim_store_commit (store, error);

fail:
  if (repair)
    sim_store_rollback (store);
  return FALSE;
}

SimRepairResult *
sim_corpus_verify (const char  *path,
                   GError     **error)
{
  g_autoptr(SimRepairResult) result = repair_result_new ();
  g_autoptr(SimStore) store = sim_store_open (path, TRUE, error);
  g_autoptr(GError) local_error = NULL;
  g_autoptr(SimCorpus) corpus = NULL;

  if (store == NULL)
    return NULL;
  if (!sim_store_quick_check (store, &local_error))
    {
      /* Pages SQLite cannot read: the texts may not all be listed. */
      result->index_damage = g_strdup (local_error->message);
      return g_steal_pointer (&result);
    }
  if (!check_texts (store, FALSE, result, error))
    return NULL;
  /* The index files and the statistics: what opening the corpus reads and checks. */
  g_clear_pointer (&store, sim_store_free);
  corpus = sim_corpus_open (path, TRUE, &local_error);
  if (corpus == NULL)
    result->index_damage = g_strdup (local_error->message);
  return g_steal_pointer (&result);
}

SimRepairResult *
sim_corpus_rebuild (const char  *path,
                    GError     **error)
{
  SimCorpus corpus = { 0 };
  g_autoptr(SimRepairResult) result = repair_result_new ();
  g_autofree char *normalize = NULL;
  gboolean ok;

  /* Damaged SQLite pages first: what can be read is copied into a new file. */
  {
    g_autoptr(GError) local_error = NULL;

    corpus.store = sim_store_open (path, FALSE, &local_error);
    if (corpus.store != NULL && !sim_store_quick_check (corpus.store, &local_error))
      g_clear_pointer (&corpus.store, sim_store_free);
    if (corpus.store == NULL)
      {
        if (!g_error_matches (local_error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT))
          {
            g_propagate_error (error, g_steal_pointer (&local_error));
            return NULL;
          }
        result->salvaged = g_ptr_array_new_with_free_func (g_free);
        if (!sim_store_salvage (path, result->salvaged, error))
          return NULL;
        /* The index files name the old generation of fingerprints: the
         * rebuild makes a new one, and them again. */
        if ((corpus.store = sim_store_open (path, FALSE, error)) == NULL)
          return NULL;
      }
  }
  normalize = sim_store_dup_meta (corpus.store, "normalize", NULL);
  corpus.flags = normalize == NULL || g_str_equal (normalize, "t2s") ? SIM_NORMALIZE_FOLD_T2S
                                                                     : SIM_NORMALIZE_DEFAULT;
  /* The texts first, in a transaction of their own: the fingerprints are
   * then made from texts that read back as they were written. */
  ok = check_texts (corpus.store, TRUE, result, error) && corpus_rebuild (&corpus, error);
  if (ok)
    {
      /* The index files, from the windows just computed. */
      sim_store_checkpoint (corpus.store);
      corpus.snapshot = _sim_snapshot_load (corpus.store, corpus.flags, corpus.fresh, error);
      ok = corpus.snapshot != NULL;
      g_clear_pointer (&corpus.snapshot, sim_corpus_snapshot_unref);
    }
  g_clear_pointer (&corpus.fresh, g_hash_table_unref);
  sim_store_free (corpus.store);
  return ok ? g_steal_pointer (&result) : NULL;
}

SimCorpus *
sim_corpus_open (const char  *path,
                 gboolean     read_only,
                 GError     **error)
{
  g_autoptr(SimCorpus) corpus = g_new0 (SimCorpus, 1);
  g_autofree char *version = NULL;
  g_autofree char *normalize = NULL;
  g_autofree char *expected = g_strdup_printf ("%d", SIM_FEATURE_VERSION);
  GError *local_error = NULL;

  if (sim_store_location_is_server (path))
    {
      g_autofree char *shown = sim_store_location_redact (path);

      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                   _("%s is a corpus server: this version sets one up and adds documents to it "
                     "(simhound-cli server, corpus add, corpus list), but checks and the other corpus "
                     "commands still use a store on this computer"), shown);
      return NULL;
    }
  corpus->read_only = read_only;
  corpus->store = sim_store_open (path, read_only, error);
  if (corpus->store == NULL)
    return NULL;

  version = sim_store_dup_meta (corpus->store, "feature_version", &local_error);
  if (local_error == NULL)
    normalize = sim_store_dup_meta (corpus->store, "normalize", &local_error);
  if (local_error != NULL)
    {
      g_propagate_error (error, local_error);
      return NULL;
    }
  corpus->flags = normalize == NULL || g_str_equal (normalize, "t2s")
                    ? SIM_NORMALIZE_FOLD_T2S : SIM_NORMALIZE_DEFAULT;

  if (g_strcmp0 (version, expected) != 0)
    {
      if (version != NULL && atoi (version) > SIM_FEATURE_VERSION)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_STORE_TOO_NEW,
                       _("%s holds fingerprints of a newer Simhound (feature version %s; "
                         "this one makes %s)"), path, version, expected);
          return NULL;
        }
      if (read_only)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_STORE,
                       _("%s was made by an older Simhound and must be rebuilt; "
                         "open it once without read-only access"), path);
          return NULL;
        }
      if (!corpus_rebuild (corpus, error))
        return NULL;
      corpus->rebuilt = version != NULL;
    }

  if (corpus->fresh != NULL)
    sim_store_checkpoint (corpus->store);
  corpus->snapshot = _sim_snapshot_load (corpus->store, corpus->flags, corpus->fresh, error);
  g_clear_pointer (&corpus->fresh, g_hash_table_unref);
  if (corpus->snapshot == NULL)
    return NULL;
  return g_steal_pointer (&corpus);
}

void
sim_corpus_free (SimCorpus *corpus)
{
  if (corpus == NULL)
    return;
  sim_corpus_snapshot_unref (corpus->snapshot);
  g_clear_pointer (&corpus->fresh, g_hash_table_unref);
  sim_store_free (corpus->store);
  g_free (corpus);
}

const char *
sim_corpus_get_path (const SimCorpus *corpus)
{
  return sim_store_get_path (corpus->store);
}

SimStore *
sim_corpus_get_store (SimCorpus *corpus)
{
  return corpus->store;
}

SimNormalizeFlags
sim_corpus_get_flags (const SimCorpus *corpus)
{
  return corpus->flags;
}

gboolean
sim_corpus_set_flags (SimCorpus          *corpus,
                      SimNormalizeFlags   flags,
                      GError            **error)
{
  const SimNormalizeFlags old = corpus->flags;

  g_return_val_if_fail (!corpus->read_only, FALSE);
  if (flags == old)
    return TRUE;
  corpus->flags = flags;
  /* The rebuild writes the new setting in the same transaction. */
  if (!corpus_rebuild (corpus, error))
    {
      corpus->flags = old;
      return FALSE;
    }
  return reload_snapshot (corpus, error);
}

gboolean
sim_corpus_was_rebuilt (const SimCorpus *corpus)
{
  return corpus->rebuilt;
}

SimCorpusSnapshot *
sim_corpus_ref_snapshot (SimCorpus *corpus)
{
  return sim_corpus_snapshot_ref (corpus->snapshot);
}

GPtrArray *
sim_corpus_list (SimCorpus  *corpus,
                 GError    **error)
{
  return sim_store_list (corpus->store, error);
}

static gboolean
reload_snapshot (SimCorpus  *corpus,
                 GError    **error)
{
  SimCorpusSnapshot *snapshot;

  /* The index file is named by the store files' sizes and times: after a
   * write, emptying the log now, not when the last connection closes,
   * keeps the name it is written under the one the next open computes
   * (else the first check after an import built the index again: 0.8 s
   * at 10 MB of text, minutes and gigabytes at 1 GB). */
  if (!corpus->read_only)
    sim_store_checkpoint (corpus->store);
  snapshot = _sim_snapshot_load (corpus->store, corpus->flags, corpus->fresh, error);
  g_clear_pointer (&corpus->fresh, g_hash_table_unref);
  if (snapshot == NULL)
    return FALSE;
  sim_corpus_snapshot_unref (corpus->snapshot);
  corpus->snapshot = snapshot;
  return TRUE;
}

/* ------------------------------------------------------------------ import */

typedef enum {
  ITEM_PENDING,
  ITEM_NEW,
  ITEM_CHANGED,
  ITEM_UNCHANGED,
  ITEM_FAILED,
} ItemState;

typedef struct {
  char             *path;
  ItemState         state;
  char             *message;   /* ITEM_FAILED */
  SimStoreDocument *doc;
  char             *text;
  gsize             text_len;
  GBytes           *stored;    /* the text as the store keeps it */
  GBytes           *packed;
  GArray           *buckets;   /* distinct df buckets */
} Item;

typedef struct {
  GPtrArray        *items;      /* Item */
  GHashTable       *existing;   /* path -> content hash (owned by existing_docs) */
  SimNormalizeFlags flags;
  GCancellable     *cancellable;
  gint              next;       /* atomic: next item to work on */
  gint              prefetched; /* atomic: items before this one asked of the disk */
  gint              stop;       /* atomic: the writer gave up */
  GMutex            lock;
  GCond             cond;       /* an item finished, or room in flight */
  guint             in_flight;  /* items finished but not yet written */
  gsize             in_flight_bytes; /* and their bytes of text */
} ImportJob;

static void
item_free (Item *item)
{
  g_free (item->path);
  g_free (item->message);
  sim_store_document_free (item->doc);
  g_free (item->text);
  g_clear_pointer (&item->stored, g_bytes_unref);
  g_clear_pointer (&item->packed, g_bytes_unref);
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
  out->doc->n_segments = n_windows;
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
  item->packed = g_steal_pointer (&file.packed);
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
  until = MIN (until, (gint) job->items->len);
  for (;;)
    {
      const gint j = g_atomic_int_get (&job->prefetched);
      int fd;

      if (j >= until)
        return;
      if (!g_atomic_int_compare_and_exchange (&job->prefetched, j, j + 1))
        continue;
      /* Not waiting for a writer, should the file have become a pipe. */
      fd = g_open (((Item *) g_ptr_array_index (job->items, j))->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
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
        g_cond_wait (&job->cond, &job->lock);
      g_mutex_unlock (&job->lock);

      if (g_atomic_int_get (&job->stop) || g_cancellable_is_cancelled (job->cancellable))
        break;
      i = g_atomic_int_add (&job->next, 1);
      if (i >= (gint) job->items->len)
        break;
      prefetch_items (job, i + PREFETCH_FILES);
      item = g_ptr_array_index (job->items, i);
      state = prepare_item (job, fp, item);

      g_mutex_lock (&job->lock);
      item->state = state;
      job->in_flight++;
      job->in_flight_bytes += item->text_len;
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
  g_autofree char *flags = flags_string (corpus->flags);
  ImportJob job = { 0 };
  guint32 n_docs = 0;
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
  for (guint i = 0; i < files->len; i++)
    {
      Item *item = g_new0 (Item, 1);

      item->path = g_strdup (g_ptr_array_index (files, i));
      g_ptr_array_add (job.items, item);
    }
  job.existing = existing;
  job.flags = corpus->flags;
  job.cancellable = cancellable;
  g_mutex_init (&job.lock);
  g_cond_init (&job.cond);
  fp = sim_fingerprinter_new (corpus->flags);

  /* Workers prepare items in parallel; this thread writes them in order. */
  {
    guint n_threads = MIN (sim_parallel_default_threads (), MAX (job.items->len, 1));
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

    for (guint i = 0; i < job.items->len && ok; i++)
      {
        Item *item = g_ptr_array_index (job.items, i);

        g_mutex_lock (&job.lock);
        while (item->state == ITEM_PENDING && !g_cancellable_is_cancelled (cancellable))
          {
            gint64 deadline = g_get_monotonic_time () + G_TIME_SPAN_SECOND / 10;

            g_cond_wait_until (&job.cond, &job.lock, deadline);
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
                 * (an import, a removal) are never overwritten. */
                g_clear_pointer (&counts, g_free);
                if (!sim_store_begin (corpus->store, error))
                  {
                    ok = FALSE;
                    break;
                  }
                in_transaction = TRUE;
                if (!sim_store_load_df (corpus->store, SIM_DF_BUCKETS, &counts, &n_docs, error))
                  {
                    ok = FALSE;
                    break;
                  }
                if (counts == NULL)
                  counts = g_new0 (guint32, SIM_DF_BUCKETS);
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
            _sim_fresh_put (corpus->fresh, item->doc, g_steal_pointer (&item->packed));
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
        g_clear_pointer (&item->packed, g_bytes_unref);
        g_clear_pointer (&item->buckets, g_array_unref);
        g_mutex_lock (&job.lock);
        job.in_flight--;
        job.in_flight_bytes -= item->text_len;
        g_cond_broadcast (&job.cond);
        g_mutex_unlock (&job.lock);
        written++;

        if (ok && in_transaction &&
            (batch_docs >= SIM_CORPUS_BATCH_DOCS || batch_bytes >= BATCH_BYTES || i + 1 == job.items->len))
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
          progress (i + 1, job.items->len, item->path, user_data);
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

  /* Whatever happened, the snapshot shows what is committed. */
  if (!reload_snapshot (corpus, ok ? error : NULL) && ok)
    return NULL;
  if (!ok)
    return NULL;
  return g_steal_pointer (&result);
}

static gboolean
is_number (const char *s)
{
  if (*s == '\0')
    return FALSE;
  for (; *s; s++)
    if (!g_ascii_isdigit (*s))
      return FALSE;
  return TRUE;
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
      const gint64 arg_id = is_number (arg) ? g_ascii_strtoll (arg, NULL, 10) : -1;
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
      if (!found && !is_number (arg))
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
  return reload_snapshot (corpus, error);
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
