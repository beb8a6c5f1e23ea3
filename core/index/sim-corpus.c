/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A corpus: a store opened for its snapshots (sim-snapshot.c), its
 * settings, and checking and mending it (verify, rebuild). Its writes of
 * documents (import, remove, rescan) are in sim-corpus-import.c; every
 * write reads what it depends on inside its transaction.
 */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <xxhash.h>

#include "sim-error.h"
#include "sim-parallel.h"
#include "sim-document.h"
#include "sim-corpus.h"
#include "sim-corpus-private.h"



char *
sim_corpus_dup_default_path (void)
{
  const char *env = g_getenv ("SIMHOUND_STORE");

  if (env != NULL && *env != '\0')
    return g_strdup (env);
  return g_build_filename (g_get_user_data_dir (), "simhound", "corpus.db", NULL);
}

char *
_sim_corpus_flags_string (SimNormalizeFlags flags)
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
  g_autofree char *flags = _sim_corpus_flags_string (corpus->flags);
  g_autofree char *generation = NULL;
  g_autoptr(GHashTable) fresh = _sim_fresh_new ();
  g_autoptr(SimStash) stash = _sim_stash_new (sim_store_get_path (corpus->store));
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
    TextJob job = { sim_store_get_path (corpus->store), corpus->flags, NULL, stash, NULL, counts, docs->len,
                    0, 0, { 0 }, NULL };
    g_autofree gint64 *ids = g_new (gint64, MAX (docs->len, 1));
    g_autofree SimStashed *packed = g_new0 (SimStashed, MAX (docs->len, 1));
    gboolean ok = TRUE;

    for (guint i = 0; i < docs->len; i++)
      ids[i] = ((SimStoreDocument *) g_ptr_array_index (docs, i))->id;
    job.ids = ids;
    job.packed = packed;
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

        if (ok && !sim_store_set_n_anchors (corpus->store, doc->id, packed[i].n_windows, error))
          ok = FALSE;
        doc->n_anchors = packed[i].n_windows;
        if (ok && _sim_stashed_any (&packed[i]))
          _sim_fresh_put (fresh, doc, &packed[i]);
        _sim_stashed_clear (&packed[i]);
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

/* sim_corpus_rebuild() once; with @salvage, the store's readable rows
 * copied into a new file first whatever SQLite's check says. */
static SimRepairResult *
rebuild_once (const char  *path,
              gboolean     salvage,
              GError     **error)
{
  SimCorpus corpus = { 0 };
  g_autoptr(SimRepairResult) result = repair_result_new ();
  g_autofree char *normalize = NULL;
  gboolean ok;

  /* Damaged SQLite pages first: what can be read is copied into a new file. */
  {
    g_autoptr(GError) local_error = NULL;

    corpus.store = salvage ? NULL : sim_store_open (path, FALSE, &local_error);
    if (corpus.store != NULL && !sim_store_quick_check (corpus.store, &local_error))
      g_clear_pointer (&corpus.store, sim_store_free);
    if (corpus.store == NULL)
      {
        if (!salvage && !g_error_matches (local_error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT))
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

SimRepairResult *
sim_corpus_rebuild (const char  *path,
                    GError     **error)
{
  g_autoptr(SimRepairResult) result = rebuild_once (path, FALSE, error);
  g_autoptr(SimStore) store = NULL;
  g_autoptr(GError) local_error = NULL;

  if (result == NULL)
    return NULL;
  /* Damage SQLite's check did not see before may show once the rebuild
   * has written over it (a page's cells out of order after an insert,
   * found by a fuzzer): then the readable rows are copied into a new file
   * and the store rebuilt from them, so that it is never left damaged. */
  store = sim_store_open (path, TRUE, &local_error);
  if (store != NULL && sim_store_quick_check (store, &local_error))
    return g_steal_pointer (&result);
  if (!g_error_matches (local_error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT))
    {
      g_propagate_error (error, g_steal_pointer (&local_error));
      return NULL;
    }
  g_clear_pointer (&store, sim_store_free);
  g_clear_pointer (&result, sim_repair_result_free);
  return rebuild_once (path, TRUE, error);
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
                   _("%s is a corpus server: this works on a store on this computer (a server's "
                     "settings are its administrator's: simhound-cli server)"), shown);
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
  return _sim_corpus_reload_snapshot (corpus, error);
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

gboolean
_sim_corpus_reload_snapshot (SimCorpus  *corpus,
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
