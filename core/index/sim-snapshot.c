/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The snapshot of a store (sim-corpus.h): its documents, and the windows
 * of their texts as one or two parts of an exact index, read from the
 * store's index files when they are current (sim-index-file.c), else built
 * (sim-snapshot-build.c: from the files that still answer for most
 * documents, the windows an import has just computed, or the texts) and
 * written out again. This file: the object, its parts and its lookups.
 * The writes that change the store are in sim-corpus.c.
 */
#include "config.h"

#include <errno.h>
#include <sys/mman.h>
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
#include "sim-document.h"
#include "sim-corpus-private.h"
#include "sim-snapshot-private.h"
#include "sim-window-codec.h"
#include "sim-words.h"

/* ---------------------------------------------------------------- snapshot */

void
_sim_snapshot_part_init (Part *part)
{
  memset (part, 0, sizeof *part);
  part->fd = -1;
}

void
_sim_snapshot_part_clear (Part *part)
{
  sim_band_index_free (part->index);
  g_free (part->places);
  g_free (part->pairs);
  g_free (part->records);
  sim_band_spill_free (part->spill);
  g_free (part->pair_offsets);
  g_clear_pointer (&part->mapped, g_mapped_file_unref);
  if (part->fd >= 0)
    close (part->fd);
  g_free (part->doc_map);
  g_free (part->bases);
  g_free (part->coarse);
  _sim_snapshot_part_init (part);
}

/* The part document and start of position @pos, or G_MAXUINT32 twice. */
static void
part_decode (const Part *part,
             guint64     pos,
             guint32    *doc,
             guint32    *start)
{
  const gsize c = pos >> part->coarse_shift;
  guint32 d;

  /* Every position is below the part's end, itself below the largest its
   * places hold, and with 5-byte places below 255 << 32: a cut file reads
   * as all ones, and where only the fifth bytes are cut, as 0xff there. */
  if (part->n_docs == 0 ||
      (part->place_bytes == 5 ? pos >> 32 == 0xff : pos == G_MAXUINT32))
    {
      *doc = *start = G_MAXUINT32;
      return;
    }
  /* Past the last document's first position: in the last document. Else
   * between the documents of its slot and of the next, by bisection (a
   * slot may hold many short documents). */
  if (c >= part->n_coarse)
    d = part->n_docs - 1;
  else
    {
      guint32 hi = c + 1 < part->n_coarse ? part->coarse[c + 1] : part->n_docs - 1;

      d = part->coarse[c];
      while (d < hi)
        {
          const guint32 mid = d + (hi - d + 1) / 2;

          if (part->bases[mid] <= pos)
            d = mid;
          else
            hi = mid - 1;
        }
    }
  *doc = d;
  *start = pos - part->bases[d];
}

/* @n places read from a file into @starts (their low 4 bytes) and, with
 * 5-byte places, @docs (their fifth bytes, one after another) decoded
 * where they are into part documents and starts: from the last, as a
 * document written over the fifth bytes of those after it. */
static void
decode_read (const Part *part,
             gsize       n,
             guint32    *docs,
             guint32    *starts)
{
  for (gsize i = n; i-- > 0;)
    part_decode (part, starts[i] | (part->place_bytes == 5 ? (guint64) ((const guint8 *) docs)[i] << 32 : 0),
                 &docs[i], &starts[i]);
}

/* The lookup from position to document over @part's bases: a slot for
 * every 2^coarse_shift positions, at least 4 KB of them and as many slots
 * as twice the documents at most (at 10 GB, 4 KB slots were 2.5 million,
 * made at every open, for 441,556 documents). */
void
_sim_snapshot_part_index_bases (Part *part)
{
  const guint64 last = part->n_docs ? part->bases[part->n_docs - 1] : 0;

  part->coarse_shift = COARSE_SHIFT;
  while ((last >> part->coarse_shift) > 2 * (guint64) part->n_docs)
    part->coarse_shift++;
  part->n_coarse = part->n_docs ? (last >> part->coarse_shift) + 1 : 0;
  part->coarse = g_new (guint32, MAX (part->n_coarse, 1));
  /* A slot holds the last document starting at or before it: document d
   * the slots from the first at or past its start to the first at or past
   * the next one's, a run at a time (a slot at a time, the branch on each
   * document's length was 19 ms of an open of 1.37 million essays). */
  for (gsize d = 0, c = 0; d < part->n_docs && c < part->n_coarse; d++)
    {
      const guint64 mask = (G_GUINT64_CONSTANT (1) << part->coarse_shift) - 1;
      const gsize end = d + 1 < part->n_docs ? MIN ((part->bases[d + 1] + mask) >> part->coarse_shift, part->n_coarse)
                                              : part->n_coarse;

      for (; c < end; c++)
        part->coarse[c] = d;
    }
}


/* The part document and start of fingerprints [@first, @first + @n):
 * what a damaged or cut file does not hold reads as G_MAXUINT32. */
void
_sim_snapshot_part_read_places (const Part *part,
                                gsize       first,
                                gsize       n,
                                guint32    *docs,
                                guint32    *starts)
{
  if (part->places != NULL)
    {
      for (gsize i = 0; i < n; i++)
        {
          docs[i] = part->places[first + i] >> 32;
          starts[i] = (guint32) part->places[first + i];
        }
      return;
    }
  if (part->fd >= 0)
    {
      sim_pread_full (part->fd, starts, n * 4, part->places_at + (goffset) first * 4, 0xff);
      if (part->place_bytes == 5)
        sim_pread_full (part->fd, docs, n, part->places_at + (goffset) part->n_fps * 4 + (goffset) first, 0xff);
    }
  else
    {
      memcpy (starts, part->pos_of + first, n * sizeof (guint32));
      if (part->pos_hi_of != NULL)
        memcpy (docs, part->pos_hi_of + first, n);
    }
  decode_read (part, n, docs, starts);
}

SimCorpusSnapshot *
_sim_snapshot_new (const char        *store_path,
                   SimNormalizeFlags  flags)
{
  SimCorpusSnapshot *snapshot = g_new0 (SimCorpusSnapshot, 1);

  snapshot->ref_count = 1;
  snapshot->store_path = g_strdup (store_path);
  snapshot->flags = flags;
  g_mutex_init (&snapshot->docs_lock);
  snapshot->names_fd = -1;
  _sim_snapshot_part_init (&snapshot->parts[0]);
  _sim_snapshot_part_init (&snapshot->parts[1]);
  _sim_snapshot_part_init (&snapshot->near);
  g_mutex_init (&snapshot->index_lock);
  g_mutex_init (&snapshot->readers_lock);
  snapshot->readers = g_ptr_array_new_with_free_func ((GDestroyNotify) sim_store_free);
  return snapshot;
}

/* The low 32 bits of XXH3 of a document's names. */
guint32
_sim_snapshot_names_hash (const char *names,
                          gsize       len)
{
  return (guint32) XXH3_64bits (names, len);
}

/* Appends a document to the snapshot's own entries (@entry's names are
 * made from @path and @title). */
void
_sim_snapshot_add_doc (SimCorpusSnapshot *snapshot,
                       const DocEntry    *entry,
                       const char        *path,
                       gsize              path_len,
                       const char        *title,
                       gsize              title_len)
{
  static const guint8 nul = 0;
  DocEntry e = *entry;

  g_assert (snapshot->list == NULL && snapshot->docs == NULL);
  if (snapshot->own_entries == NULL)
    {
      snapshot->own_entries = g_array_new (FALSE, FALSE, sizeof (DocEntry));
      snapshot->own_names = g_byte_array_new ();
    }
  e.names = snapshot->own_names->len;
  e.names_len = MIN (path_len + title_len + 2, G_MAXUINT32);
  g_byte_array_append (snapshot->own_names, (const guint8 *) path, path_len);
  g_byte_array_append (snapshot->own_names, &nul, 1);
  g_byte_array_append (snapshot->own_names, (const guint8 *) title, title_len);
  g_byte_array_append (snapshot->own_names, &nul, 1);
  e.names_hash = _sim_snapshot_names_hash ((const char *) snapshot->own_names->data + e.names, e.names_len);
  g_array_append_val (snapshot->own_entries, e);
  snapshot->entries = (const DocEntry *) snapshot->own_entries->data;
  snapshot->n_entries = snapshot->own_entries->len;
  snapshot->names = (const char *) snapshot->own_names->data;
  snapshot->names_len = snapshot->own_names->len;
  snapshot->n_windows += MAX (e.n_windows, 0);
  snapshot->updated_at = MAX (snapshot->updated_at, e.updated_at);
}

void
_sim_snapshot_clear_docs (SimCorpusSnapshot *snapshot)
{
  g_clear_pointer (&snapshot->own_entries, g_array_unref);
  g_clear_pointer (&snapshot->own_names, g_byte_array_unref);
  g_clear_pointer (&snapshot->list, g_bytes_unref);
  snapshot->list_key = 0;
  g_clear_pointer (&snapshot->docs, g_free);
  g_clear_pointer (&snapshot->names_kept, g_string_chunk_free);
  snapshot->entries = NULL;
  snapshot->n_entries = 0;
  snapshot->names = NULL;
  snapshot->names_fd = -1;
  snapshot->names_len = 0;
  snapshot->n_windows = 0;
  snapshot->updated_at = 0;
}

SimCorpusSnapshot *
sim_corpus_snapshot_ref (SimCorpusSnapshot *snapshot)
{
  g_atomic_int_inc (&snapshot->ref_count);
  return snapshot;
}

void
sim_corpus_snapshot_unref (SimCorpusSnapshot *snapshot)
{
  if (snapshot == NULL || !g_atomic_int_dec_and_test (&snapshot->ref_count))
    return;
  if (snapshot->remote != NULL)
    snapshot->remote->free (snapshot->remote_data);
  for (guint k = 0; k < G_N_ELEMENTS (snapshot->bands); k++)
    sim_band_index_free (snapshot->bands[k]);
  g_mutex_clear (&snapshot->index_lock);
  g_mutex_clear (&snapshot->readers_lock);
  g_ptr_array_unref (snapshot->readers);
  sim_weights_free (snapshot->weights);
  g_clear_pointer (&snapshot->packed_df, g_bytes_unref);
  _sim_snapshot_part_clear (&snapshot->parts[0]);
  _sim_snapshot_part_clear (&snapshot->parts[1]);
  _sim_snapshot_part_clear (&snapshot->near);
  _sim_snapshot_clear_docs (snapshot);
  g_mutex_clear (&snapshot->docs_lock);
  g_free (snapshot->store_path);
  g_free (snapshot);
}

const char *
sim_corpus_snapshot_get_store_path (const SimCorpusSnapshot *snapshot)
{
  return snapshot->store_path;
}

SimNormalizeFlags
sim_corpus_snapshot_get_flags (const SimCorpusSnapshot *snapshot)
{
  return snapshot->flags;
}

gint64
sim_corpus_snapshot_get_updated_at (const SimCorpusSnapshot *snapshot)
{
  return snapshot->updated_at;
}

guint
sim_corpus_snapshot_get_n_docs (const SimCorpusSnapshot *snapshot)
{
  return snapshot->remote ? snapshot->remote->n_docs (snapshot) : snapshot->n_entries;
}

guint
sim_corpus_snapshot_get_n_documents (const SimCorpusSnapshot *snapshot)
{
  return snapshot->remote ? snapshot->n_documents : snapshot->n_entries;
}

gboolean
sim_corpus_snapshot_is_remote (const SimCorpusSnapshot *snapshot)
{
  return snapshot->remote != NULL;
}

void
sim_corpus_snapshot_expect (SimCorpusSnapshot *snapshot,
                            const guint64     *fps,
                            gsize              n)
{
  if (snapshot->remote != NULL)
    snapshot->remote->expect (snapshot, fps, n);
}

gsize
sim_corpus_snapshot_get_lookup_size (const SimCorpusSnapshot *snapshot)
{
  return snapshot->remote ? G_MAXUINT32 : 256;
}

gboolean
sim_corpus_snapshot_find_doc (const SimCorpusSnapshot *snapshot,
                              gint64                   id,
                              guint                   *out_index)
{
  guint lo = 0, hi;

  if (snapshot->remote)
    {
      /* A remote document's index is its id less one. */
      const SimCorpusDoc *doc = id > 0 && id <= G_MAXUINT ? sim_corpus_snapshot_get_doc (snapshot, (guint) (id - 1))
                                                         : NULL;

      *out_index = (guint) (id - 1);
      return doc != NULL && doc->id == id;
    }
  /* A local store's documents are in id order (the store lists them so). */
  hi = snapshot->n_entries;
  while (lo < hi)
    {
      const guint mid = lo + (hi - lo) / 2;

      if (snapshot->entries[mid].id < id)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < snapshot->n_entries && snapshot->entries[lo].id == id)
    {
      *out_index = lo;
      return TRUE;
    }
  /* Should the order not hold (a list read from an index file), look at all. */
  for (guint i = 0; i < snapshot->n_entries; i++)
    if (snapshot->entries[i].id == id)
      {
        *out_index = i;
        return TRUE;
      }
  return FALSE;
}

/* The bytes of @entry's names (entry->names_len of them), where the
 * snapshot keeps them or read from its list's file into @scratch; NULL
 * when they are not inside the names. */
const char *
_sim_snapshot_entry_names (const SimCorpusSnapshot *snapshot,
                           const DocEntry          *entry,
                           GByteArray              *scratch)
{
  if (entry->names > snapshot->names_len || entry->names_len > snapshot->names_len - entry->names)
    return NULL;
  if (snapshot->names != NULL)
    return snapshot->names + entry->names;
  if (snapshot->names_fd < 0)
    return NULL;
  /* (A file cut short reads as 0xff: no names hold then.) */
  g_byte_array_set_size (scratch, entry->names_len);
  sim_pread_full (snapshot->names_fd, scratch->data, entry->names_len, snapshot->names_at + (goffset) entry->names,
                  0xff);
  return (const char *) scratch->data;
}

/* The path and title of the document whose entry is @e, when its names
 * hold (in bounds, two NULs, their hash), copied into @strings. */
static gboolean
entry_names (const SimCorpusSnapshot *snapshot,
             const DocEntry          *e,
             GStringChunk            *strings,
             const char             **out_path,
             const char             **out_title)
{
  g_autoptr(GByteArray) scratch = g_byte_array_new ();
  const char *path = e->names_len >= 2 ? _sim_snapshot_entry_names (snapshot, e, scratch) : NULL;
  const char *end = path ? memchr (path, '\0', e->names_len) : NULL;
  const char *kept;

  if (end == NULL || end + 1 == path + e->names_len || path[e->names_len - 1] != '\0' ||
      memchr (end + 1, '\0', path + e->names_len - end - 1) != path + e->names_len - 1 ||
      _sim_snapshot_names_hash (path, e->names_len) != e->names_hash)
    return FALSE;
  kept = g_string_chunk_insert_len (strings, path, e->names_len);
  *out_path = kept;
  *out_title = kept + (end - path) + 1;
  return TRUE;
}

/* The names of document @id as the store's row has them, into @strings:
 * for a document whose names in an index file do not hold (the file
 * damaged since it was written). Rare: a connection of its own. */
static gboolean
store_names (const SimCorpusSnapshot *snapshot,
             gint64                   id,
             GStringChunk            *strings,
             const char             **out_path,
             const char             **out_title)
{
  g_autoptr(SimStore) store = sim_store_open (snapshot->store_path, TRUE, NULL);
  g_autoptr(SimStoreDocument) sd = store ? sim_store_get_document (store, id, NULL) : NULL;

  if (sd == NULL)
    return FALSE;
  *out_path = g_string_chunk_insert (strings, sd->path);
  *out_title = g_string_chunk_insert (strings, sd->title);
  return TRUE;
}

const SimCorpusDoc *
sim_corpus_snapshot_get_doc (const SimCorpusSnapshot *snapshot,
                             guint                    index)
{
  SimCorpusSnapshot *s = (SimCorpusSnapshot *) snapshot;
  SimCorpusDoc *docs, *doc;

  if (snapshot->remote)
    return snapshot->remote->get_doc (snapshot, index);
  g_return_val_if_fail (index < snapshot->n_entries, NULL);
  /* Made once, under the lock; a made document's path is set last. */
  docs = g_atomic_pointer_get (&s->docs);
  if (docs != NULL && g_atomic_pointer_get (&docs[index].path) != NULL)
    return &docs[index];
  g_mutex_lock (&s->docs_lock);
  if (s->docs == NULL)
    g_atomic_pointer_set (&s->docs, g_new0 (SimCorpusDoc, snapshot->n_entries));
  doc = &s->docs[index];
  if (doc->path == NULL)
    {
      const DocEntry *e = &snapshot->entries[index];
      const char *path, *title;

      doc->id = e->id;
      doc->n_chars = e->n_chars;
      if (s->names_kept == NULL)
        s->names_kept = g_string_chunk_new (4096);
      if (!entry_names (snapshot, e, s->names_kept, &path, &title) &&
          !store_names (snapshot, e->id, s->names_kept, &path, &title))
        path = title = "";
      doc->title = title;
      g_atomic_pointer_set (&doc->path, path);
    }
  g_mutex_unlock (&s->docs_lock);
  return doc;
}

gint64
sim_corpus_snapshot_get_doc_n_chars (const SimCorpusSnapshot *snapshot,
                                     guint                    index)
{
  if (snapshot->remote)
    return snapshot->remote->get_doc (snapshot, index)->n_chars;
  g_return_val_if_fail (index < snapshot->n_entries, 0);
  return snapshot->entries[index].n_chars;
}

gboolean
sim_corpus_snapshot_get_doc_withheld (const SimCorpusSnapshot *snapshot,
                                      guint                    index)
{
  const SimCorpusDoc *doc;

  if (!snapshot->remote)
    return FALSE;  /* a local store withholds nothing */
  doc = snapshot->remote->get_doc (snapshot, index);
  return doc != NULL && doc->text_withheld;
}

gsize
sim_corpus_snapshot_get_n_fps (const SimCorpusSnapshot *snapshot)
{
  return snapshot->parts[0].n_fps + snapshot->parts[1].n_fps;
}

gsize
sim_corpus_snapshot_get_n_windows (const SimCorpusSnapshot *snapshot)
{
  /* Summed as the documents are read: summed at each check, the rows of
   * 441,556 documents took a millisecond of it. */
  return snapshot->n_windows;
}

gboolean
sim_corpus_snapshot_is_mapped (const SimCorpusSnapshot *snapshot)
{
  for (guint p = 0; p < snapshot->n_parts; p++)
    if (snapshot->parts[p].mapped == NULL && snapshot->parts[p].fd < 0)
      return FALSE;
  return TRUE;
}

gboolean
sim_corpus_snapshot_has_delta (const SimCorpusSnapshot *snapshot)
{
  return snapshot->n_parts > 1;
}

guint64 *
sim_corpus_snapshot_dup_fps (const SimCorpusSnapshot *snapshot)
{
  return snapshot->n_parts == 1 ? sim_band_index_dup_fps (snapshot->parts[0].index) : NULL;
}


/* Ids one after another (a window's fingerprint found in many documents
 * that share its text: equal fingerprints are neighbours in table 0) are
 * read in one call per array instead of two per id. */
#define PLACES_RUN_MAX 256

typedef struct {
  gsize  i;     /* the first of the run in the caller's arrays */
  gsize  run;
  guint  p;     /* its part */
} PlacesRun;

/* Runs of places read from an index file are all read at once, per part
 * (sim_pread_many()), then decoded. */
void
sim_corpus_snapshot_get_places (const SimCorpusSnapshot *snapshot,
                                const guint32           *ids,
                                gsize                    n,
                                guint32                 *docs,
                                guint32                 *starts)
{
  const gsize near_base = sim_corpus_snapshot_get_n_fps (snapshot);
  g_autoptr(GArray) runs = g_array_new (FALSE, FALSE, sizeof (PlacesRun));
  GArray *reads[2];

  if (snapshot->remote)
    {
      snapshot->remote->get_places (snapshot, ids, n, docs, starts);
      return;
    }
  reads[0] = g_array_new (FALSE, FALSE, sizeof (SimRead));
  reads[1] = g_array_new (FALSE, FALSE, sizeof (SimRead));

  for (gsize i = 0; i < n; i++)
    {
      const guint p = ids[i] < snapshot->parts[0].n_fps ? 0 : ids[i] < near_base ? 1 : 2;
      const Part *part = p < 2 ? &snapshot->parts[p] : &snapshot->near;
      const gsize base = p == 2 ? near_base : p ? snapshot->parts[0].n_fps : 0;
      const gsize local = ids[i] - base;
      gsize run = 1;

      if (local >= part->n_fps)
        {
          docs[i] = starts[i] = G_MAXUINT32;
          continue;
        }
      while (i + run < n && run < PLACES_RUN_MAX && ids[i + run] == ids[i] + run && local + run < part->n_fps)
        run++;
      if (p < 2 && part->fd >= 0 && part->places == NULL)
        {
          const PlacesRun r = { i, run, p };
          const SimRead pos = { starts + i, run * 4, part->places_at + (goffset) local * 4 };
          const SimRead hi = { docs + i, run, part->places_at + (goffset) part->n_fps * 4 + (goffset) local };

          g_array_append_val (runs, r);
          g_array_append_val (reads[p], pos);
          if (part->place_bytes == 5)
            g_array_append_val (reads[p], hi);
        }
      else
        {
          _sim_snapshot_part_read_places (part, local, run, docs + i, starts + i);
          for (gsize r = i; r < i + run; r++)
            docs[r] = docs[r] < part->n_docs ? part->doc_map[docs[r]] : G_MAXUINT32;
        }
      i += run - 1;
    }
  for (guint p = 0; p < 2; p++)
    {
      if (reads[p]->len > 0)
        sim_pread_many (snapshot->parts[p].fd, (const SimRead *) reads[p]->data, reads[p]->len, 0xff);
      g_array_unref (reads[p]);
    }
  for (guint k = 0; k < runs->len; k++)
    {
      const PlacesRun *r = &g_array_index (runs, PlacesRun, k);
      const Part *part = &snapshot->parts[r->p];

      decode_read (part, r->run, docs + r->i, starts + r->i);
      for (gsize i = r->i; i < r->i + r->run; i++)
        docs[i] = docs[i] < part->n_docs ? part->doc_map[docs[i]] : G_MAXUINT32;
    }
}

/* Connections kept for reading texts: a check reads through one per
 * worker, and opening it (the schema read, the pages of the texts' tree
 * read again) was a tenth of what a worker spent on its share of 500
 * documents. A connection is used by one thread at a time: taken from the
 * snapshot's idle ones, and given back after its read transaction. */
#define MAX_IDLE_READERS 8

static SimStore *
take_reader (const SimCorpusSnapshot *snapshot,
             GError                 **error)
{
  SimCorpusSnapshot *s = (SimCorpusSnapshot *) snapshot;
  SimStore *store = NULL;

  g_mutex_lock (&s->readers_lock);
  if (s->readers->len > 0)
    store = g_ptr_array_steal_index_fast (s->readers, s->readers->len - 1);
  g_mutex_unlock (&s->readers_lock);
  return store != NULL ? store : sim_store_open (snapshot->store_path, TRUE, error);
}

static void
give_back_reader (const SimCorpusSnapshot *snapshot,
                  SimStore                *store)
{
  SimCorpusSnapshot *s = (SimCorpusSnapshot *) snapshot;

  sim_store_rollback (store);
  g_mutex_lock (&s->readers_lock);
  if (s->readers->len < MAX_IDLE_READERS)
    g_ptr_array_add (s->readers, g_steal_pointer (&store));
  g_mutex_unlock (&s->readers_lock);
  sim_store_free (store);
}

gboolean
sim_corpus_snapshot_read_texts (const SimCorpusSnapshot  *snapshot,
                                const guint              *indices,
                                guint                     n,
                                const guint32            *los,
                                const guint32            *his,
                                SimStoreText            **texts,
                                GError                  **error)
{
  g_autofree gboolean *before = NULL;
  SimStore *store;

  g_return_val_if_fail ((los == NULL) == (his == NULL), FALSE);
  if (n == 0)
    return TRUE;
  if (snapshot->remote)
    return snapshot->remote->read_texts (snapshot, indices, n, los, his, texts, error);
  before = g_new (gboolean, n);
  for (guint i = 0; i < n; i++)
    before[i] = texts[i] != NULL;
  store = take_reader (snapshot, error);
  if (store == NULL)
    return FALSE;
  if (!sim_store_begin_read (store, error))
    {
      /* Not given back: a connection that cannot begin may be broken. */
      sim_store_free (store);
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    {
      const SimCorpusDoc *doc = sim_corpus_snapshot_get_doc (snapshot, indices[i]);
      g_autoptr(GError) local_error = NULL;

      /* Read before: whole. */
      if (before[i])
        continue;
      texts[i] = sim_store_read_text (store, doc->id, &local_error);
      if (texts[i] != NULL || g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        continue;
      for (guint j = 0; j < i; j++)
        if (!before[j])
          g_clear_pointer (&texts[j], sim_store_text_free);
      g_propagate_error (error, g_steal_pointer (&local_error));
      give_back_reader (snapshot, store);
      return FALSE;
    }
  give_back_reader (snapshot, store);
  return TRUE;
}

gboolean
sim_corpus_snapshot_dup_texts (const SimCorpusSnapshot *snapshot,
                               const guint             *indices,
                               guint                    n,
                               char                   **texts,
                               gsize                   *lens,
                               GError                 **error)
{
  g_autofree SimStoreText **stored = g_new0 (SimStoreText *, MAX (n, 1));
  gboolean ok = sim_corpus_snapshot_read_texts (snapshot, indices, n, NULL, NULL, stored, error);

  memset (texts, 0, n * sizeof *texts);
  for (guint i = 0; i < n; i++)
    {
      lens[i] = 0;
      if (ok && stored[i] != NULL)
        {
          texts[i] = sim_store_text_dup_range (stored[i], 0, sim_store_text_get_n_chars (stored[i]),
                                               NULL, &lens[i], error);
          ok = texts[i] != NULL;
        }
      g_clear_pointer (&stored[i], sim_store_text_free);
    }
  if (!ok)
    for (guint i = 0; i < n; i++)
      g_clear_pointer (&texts[i], g_free);
  return ok;
}

const SimWeights *
sim_corpus_snapshot_get_weights (const SimCorpusSnapshot *snapshot)
{
  return snapshot->weights;
}

gboolean
sim_corpus_snapshot_lookup (SimCorpusSnapshot *snapshot,
                            const guint64     *fps,
                            gsize              n_fps,
                            guint              max_distance,
                            GArray            *out,
                            guint32           *out_ends,
                            GError           **error)
{
  g_autoptr(GArray) delta = NULL;
  g_autofree guint32 *delta_ends = NULL;
  g_autoptr(GArray) main_ids = NULL;
  g_autofree guint32 *main_ends = NULL;
  const guint32 n0 = snapshot->parts[0].n_fps;

  g_return_val_if_fail (max_distance <= SIM_BAND_INDEX_MAX_DISTANCE, FALSE);

  if (snapshot->remote)
    {
      if (max_distance > 0)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                       _("A corpus server looks up equal window fingerprints only (--max-distance 0)"));
          return FALSE;
        }
      return snapshot->remote->lookup (snapshot, fps, n_fps, out, out_ends, error);
    }

  if (max_distance > 0)
    {
      const guint32 near_base = sim_corpus_snapshot_get_n_fps (snapshot);
      const guint from = out->len;
      const SimBandIndex *band;

      g_mutex_lock (&snapshot->index_lock);
      band = snapshot->bands[MAX (max_distance, 3)];
      g_mutex_unlock (&snapshot->index_lock);
      g_return_val_if_fail (band != NULL, FALSE);
      sim_band_index_lookup_many (band, fps, n_fps, max_distance, SIM_CORPUS_LOOKUP_MAX_HITS, out, out_ends);
      for (guint j = from; j < out->len; j++)
        g_array_index (out, guint32, j) += near_base;
      return TRUE;
    }
  if (snapshot->n_parts == 1)
    {
      sim_band_index_lookup_many (snapshot->parts[0].index, fps, n_fps, 0, SIM_CORPUS_LOOKUP_MAX_HITS, out, out_ends);
      return TRUE;
    }
  main_ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  main_ends = g_new (guint32, MAX (n_fps, 1));
  delta = g_array_new (FALSE, FALSE, sizeof (guint32));
  delta_ends = g_new (guint32, MAX (n_fps, 1));
  sim_band_index_lookup_many (snapshot->parts[0].index, fps, n_fps, 0, SIM_CORPUS_LOOKUP_MAX_HITS, main_ids, main_ends);
  sim_band_index_lookup_many (snapshot->parts[1].index, fps, n_fps, 0, SIM_CORPUS_LOOKUP_MAX_HITS, delta, delta_ends);
  for (gsize i = 0; i < n_fps; i++)
    {
      const guint32 m = i ? main_ends[i - 1] : 0, d = i ? delta_ends[i - 1] : 0, start = out->len;

      g_array_append_vals (out, &g_array_index (main_ids, guint32, m), main_ends[i] - m);
      for (guint32 j = d; j < delta_ends[i]; j++)
        {
          const guint32 id = n0 + g_array_index (delta, guint32, j);

          g_array_append_val (out, id);
        }
      if (out->len - start > SIM_CORPUS_LOOKUP_MAX_HITS + 1)
        g_array_set_size (out, start + SIM_CORPUS_LOOKUP_MAX_HITS + 1);
      out_ends[i] = out->len;
    }
  return TRUE;
}

