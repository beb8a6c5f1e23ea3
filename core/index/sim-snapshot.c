/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The snapshot of a store (sim-corpus.h): its documents, and the windows
 * of their texts as one or two parts of an exact index, read from the
 * store's index files when they are current, else built (from the files
 * that still answer for most documents, the windows an import has just
 * computed, or the texts) and written out again. The writes that change
 * the store are in sim-corpus.c.
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
#include "sim-words.h"

#define DF_SHIFT     (64 - 20)

/* ---------------------------------------------------------------- snapshot */

/* The snapshot's fingerprints come in at most two parts, each an exact index
 * with its per-fingerprint places: part 0 over the documents as they were
 * when the index file was written, part 1 (the delta) over the documents
 * added or changed since. Ids of part 1 follow those of part 0. A part names
 * documents by its own numbers, mapped to the snapshot's: a document removed
 * or changed since maps to none, so its fingerprints give no hit. */
typedef struct {
  SimBandIndex  *index;
  gsize          n_fps;
  guint64       *places;     /* built in memory: part document << 32 | code-point start */
  guint64       *pairs;      /* built and sorted, not indexed yet: (fingerprint, place) pairs */
  guint64       *records;    /* or, when positions fit in 32 bits, records (sim_band_index_sort_records()) */
  guint32       *pair_offsets; /* where each bucket of either starts */
  const guint32 *docs_of;    /* the mapped file's, when it keeps documents and starts apart */
  const guint32 *starts_of;
  const guint32 *pos_of;     /* the mapped file's positions, when it keeps them */
  GMappedFile   *mapped;     /* the part's file when mapped */
  int            fd;         /* the part's file when read as needed, else -1 */
  goffset        places_at;  /* where its per-fingerprint arrays start */
  guint          place_bytes; /* in the file: 4 (a position) or 8 (document and start) */
  guint64       *bases;      /* part document -> its first position, with positions */
  guint32       *coarse;     /* position >> COARSE_SHIFT -> the document holding it */
  gsize          n_coarse;
  guint32       *doc_map;    /* part document -> snapshot document, or G_MAXUINT32 */
  guint          n_docs;
} Part;

/* A window's place is kept in an index file as one position: its
 * document's first position plus its start, each document taking its
 * characters and one more (4 bytes a fingerprint instead of 8). A part of
 * 4G positions or more keeps the document and the start. */
#define COARSE_SHIFT 12
#define PLACES_CHUNK (1u << 20)  /* places read or written at once */

typedef struct {
  guint64 key;         /* what the row says of the document: id, sizes, time, content */
  gint64  n_windows;
  gint64  updated_at;
} DocRow;

struct _SimCorpusSnapshot {
  gint               ref_count;
  char              *store_path;
  SimNormalizeFlags  flags;
  GArray            *docs;      /* SimCorpusDoc, strings owned by strings or list */
  GArray            *rows;      /* DocRow, one per document */
  gint64             updated_at; /* the latest document's, Unix seconds */
  GStringChunk      *strings;
  GBytes            *list;      /* an index file's document list, mapped, when read from one */
  Part               parts[2];
  guint              n_parts;
  SimWeights        *weights;
  GBytes            *packed_df;  /* the weights' counts as the store keeps them, when read from it */
  GMutex             index_lock;
  /* Connections that read texts, idle between reads (read_texts()). */
  GMutex             readers_lock;
  GPtrArray         *readers;
  /* For lookups that tolerate differing bits: every window again, with
   * all 64 bits (the parts keep 48), and band indexes over them by max
   * distance, built on first use. Their ids follow those of the parts. */
  Part               near;
  SimBandIndex      *bands[SIM_BAND_INDEX_MAX_DISTANCE + 1];
};

static void
part_init (Part *part)
{
  memset (part, 0, sizeof *part);
  part->fd = -1;
}

static void
part_clear (Part *part)
{
  sim_band_index_free (part->index);
  g_free (part->places);
  g_free (part->pairs);
  g_free (part->records);
  g_free (part->pair_offsets);
  g_clear_pointer (&part->mapped, g_mapped_file_unref);
  if (part->fd >= 0)
    close (part->fd);
  g_free (part->doc_map);
  g_free (part->bases);
  g_free (part->coarse);
  part_init (part);
}

/* The part document and start of position @pos, or G_MAXUINT32 twice. */
static inline void
part_decode (const Part *part,
             guint32     pos,
             guint32    *doc,
             guint32    *start)
{
  const gsize c = pos >> COARSE_SHIFT;
  guint32 d;

  /* Every position is below the part's end, itself at most G_MAXUINT32:
   * G_MAXUINT32 is what a cut file reads as. */
  if (part->n_docs == 0 || pos == G_MAXUINT32)
    {
      *doc = *start = G_MAXUINT32;
      return;
    }
  /* Past the last document's first position: in the last document. */
  d = c < part->n_coarse ? part->coarse[c] : part->n_docs - 1;
  while (d + 1 < part->n_docs && part->bases[d + 1] <= pos)
    d++;
  *doc = d;
  *start = pos - part->bases[d];
}

/* The lookup from position to document over @part's bases. */
static void
part_index_bases (Part *part)
{
  const guint64 last = part->n_docs ? part->bases[part->n_docs - 1] : 0;

  part->n_coarse = part->n_docs ? (last >> COARSE_SHIFT) + 1 : 0;
  part->coarse = g_new (guint32, MAX (part->n_coarse, 1));
  for (gsize c = 0, d = 0; c < part->n_coarse; c++)
    {
      while (d + 1 < part->n_docs && part->bases[d + 1] <= (guint64) c << COARSE_SHIFT)
        d++;
      part->coarse[c] = d;
    }
}


/* The part document and start of fingerprints [@first, @first + @n):
 * what a damaged or cut file does not hold reads as G_MAXUINT32. */
static void
part_read_places (const Part *part,
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
  if (part->docs_of != NULL)
    {
      memcpy (docs, part->docs_of + first, n * sizeof (guint32));
      memcpy (starts, part->starts_of + first, n * sizeof (guint32));
      return;
    }
  if (part->fd >= 0 && part->place_bytes == 8)
    {
      sim_pread_full (part->fd, docs, n * 4, part->places_at + (goffset) first * 4, 0xff);
      sim_pread_full (part->fd, starts, n * 4, part->places_at + ((goffset) part->n_fps + first) * 4, 0xff);
      return;
    }
  if (part->fd >= 0)
    sim_pread_full (part->fd, starts, n * 4, part->places_at + (goffset) first * 4, 0xff);
  else
    memcpy (starts, part->pos_of + first, n * sizeof (guint32));
  for (gsize i = 0; i < n; i++)
    part_decode (part, starts[i], &docs[i], &starts[i]);
}

static SimCorpusSnapshot *
snapshot_new (const char        *store_path,
              SimNormalizeFlags  flags)
{
  SimCorpusSnapshot *snapshot = g_new0 (SimCorpusSnapshot, 1);

  snapshot->ref_count = 1;
  snapshot->store_path = g_strdup (store_path);
  snapshot->flags = flags;
  snapshot->docs = g_array_new (FALSE, FALSE, sizeof (SimCorpusDoc));
  snapshot->rows = g_array_new (FALSE, FALSE, sizeof (DocRow));
  snapshot->strings = g_string_chunk_new (4096);
  part_init (&snapshot->parts[0]);
  part_init (&snapshot->parts[1]);
  part_init (&snapshot->near);
  g_mutex_init (&snapshot->index_lock);
  g_mutex_init (&snapshot->readers_lock);
  snapshot->readers = g_ptr_array_new_with_free_func ((GDestroyNotify) sim_store_free);
  return snapshot;
}

static void
snapshot_add_doc (SimCorpusSnapshot *snapshot,
                  gint64             id,
                  const char        *path,
                  gsize              path_len,
                  const char        *title,
                  gsize              title_len,
                  gint64             n_chars,
                  gint64             updated_at,
                  const DocRow      *row)
{
  SimCorpusDoc doc;

  doc.id = id;
  doc.path = g_string_chunk_insert_len (snapshot->strings, path, path_len);
  doc.title = g_string_chunk_insert_len (snapshot->strings, title, title_len);
  doc.n_chars = n_chars;
  g_array_append_val (snapshot->docs, doc);
  g_array_append_val (snapshot->rows, *row);
  snapshot->updated_at = MAX (snapshot->updated_at, updated_at);
}

static void
snapshot_clear_docs (SimCorpusSnapshot *snapshot)
{
  g_array_set_size (snapshot->docs, 0);
  g_array_set_size (snapshot->rows, 0);
  g_string_chunk_clear (snapshot->strings);
  g_clear_pointer (&snapshot->list, g_bytes_unref);
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
  for (guint k = 0; k < G_N_ELEMENTS (snapshot->bands); k++)
    sim_band_index_free (snapshot->bands[k]);
  g_mutex_clear (&snapshot->index_lock);
  g_mutex_clear (&snapshot->readers_lock);
  g_ptr_array_unref (snapshot->readers);
  sim_weights_free (snapshot->weights);
  g_clear_pointer (&snapshot->packed_df, g_bytes_unref);
  part_clear (&snapshot->parts[0]);
  part_clear (&snapshot->parts[1]);
  part_clear (&snapshot->near);
  g_array_unref (snapshot->docs);
  g_array_unref (snapshot->rows);
  g_string_chunk_free (snapshot->strings);
  g_clear_pointer (&snapshot->list, g_bytes_unref);
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
  return snapshot->docs->len;
}

const SimCorpusDoc *
sim_corpus_snapshot_get_doc (const SimCorpusSnapshot *snapshot,
                             guint                    index)
{
  g_return_val_if_fail (index < snapshot->docs->len, NULL);
  return &g_array_index (snapshot->docs, SimCorpusDoc, index);
}

gsize
sim_corpus_snapshot_get_n_fps (const SimCorpusSnapshot *snapshot)
{
  return snapshot->parts[0].n_fps + snapshot->parts[1].n_fps;
}

gsize
sim_corpus_snapshot_get_n_windows (const SimCorpusSnapshot *snapshot)
{
  gsize n = 0;

  for (guint i = 0; i < snapshot->rows->len; i++)
    n += MAX (g_array_index (snapshot->rows, DocRow, i).n_windows, 0);
  return n;
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
  GArray *reads[2] = { g_array_new (FALSE, FALSE, sizeof (SimRead)), g_array_new (FALSE, FALSE, sizeof (SimRead)) };

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
      if (p < 2 && part->fd >= 0 && part->places == NULL && part->docs_of == NULL)
        {
          const PlacesRun r = { i, run, p };
          const SimRead pos = { starts + i, run * 4, part->places_at + (goffset) local * 4 };

          g_array_append_val (runs, r);
          g_array_append_val (reads[p], pos);
          if (part->place_bytes == 8)
            {
              const SimRead start = { starts + i, run * 4, part->places_at + ((goffset) part->n_fps + local) * 4 };

              g_array_index (reads[p], SimRead, reads[p]->len - 1).buf = docs + i;
              g_array_append_val (reads[p], start);
            }
        }
      else
        {
          part_read_places (part, local, run, docs + i, starts + i);
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

      for (gsize i = r->i; i < r->i + r->run; i++)
        {
          if (part->place_bytes == 4)
            part_decode (part, starts[i], &docs[i], &starts[i]);
          docs[i] = docs[i] < part->n_docs ? part->doc_map[docs[i]] : G_MAXUINT32;
        }
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
                                SimStoreText            **texts,
                                GError                  **error)
{
  SimStore *store;

  memset (texts, 0, n * sizeof *texts);
  if (n == 0)
    return TRUE;
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

      texts[i] = sim_store_read_text (store, doc->id, &local_error);
      if (texts[i] != NULL || g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        continue;
      for (guint j = 0; j < i; j++)
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
  gboolean ok = sim_corpus_snapshot_read_texts (snapshot, indices, n, stored, error);

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

void
sim_corpus_snapshot_lookup (SimCorpusSnapshot *snapshot,
                            const guint64     *fps,
                            gsize              n_fps,
                            guint              max_distance,
                            GArray            *out,
                            guint32           *out_ends)
{
  g_autoptr(GArray) delta = NULL;
  g_autofree guint32 *delta_ends = NULL;
  g_autoptr(GArray) main_ids = NULL;
  g_autofree guint32 *main_ends = NULL;
  const guint32 n0 = snapshot->parts[0].n_fps;

  g_return_if_fail (max_distance <= SIM_BAND_INDEX_MAX_DISTANCE);

  if (max_distance > 0)
    {
      const guint32 near_base = sim_corpus_snapshot_get_n_fps (snapshot);
      const guint from = out->len;
      const SimBandIndex *band;

      g_mutex_lock (&snapshot->index_lock);
      band = snapshot->bands[MAX (max_distance, 3)];
      g_mutex_unlock (&snapshot->index_lock);
      g_return_if_fail (band != NULL);
      sim_band_index_lookup_many (band, fps, n_fps, max_distance, out, out_ends);
      for (guint j = from; j < out->len; j++)
        g_array_index (out, guint32, j) += near_base;
      return;
    }
  if (snapshot->n_parts == 1)
    {
      sim_band_index_lookup_many (snapshot->parts[0].index, fps, n_fps, 0, out, out_ends);
      return;
    }
  main_ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  main_ends = g_new (guint32, MAX (n_fps, 1));
  delta = g_array_new (FALSE, FALSE, sizeof (guint32));
  delta_ends = g_new (guint32, MAX (n_fps, 1));
  sim_band_index_lookup_many (snapshot->parts[0].index, fps, n_fps, 0, main_ids, main_ends);
  sim_band_index_lookup_many (snapshot->parts[1].index, fps, n_fps, 0, delta, delta_ends);
  for (gsize i = 0; i < n_fps; i++)
    {
      const guint32 m = i ? main_ends[i - 1] : 0, d = i ? delta_ends[i - 1] : 0;

      g_array_append_vals (out, &g_array_index (main_ids, guint32, m), main_ends[i] - m);
      for (guint32 j = d; j < delta_ends[i]; j++)
        {
          const guint32 id = n0 + g_array_index (delta, guint32, j);

          g_array_append_val (out, id);
        }
      out_ends[i] = out->len;
    }
}

/* Index files: the exact index, its per-fingerprint places and the feature
 * statistics, beside the store, so that opening maps or reads them instead
 * of fingerprinting every text and sorting the windows again (and the
 * statistics from some hundreds of SQLite overflow pages: 15-20 ms of an
 * open at 1 GB). STORE.index holds every
 * document as it was when written; STORE.index-delta the documents added or
 * changed since, so that a write to a large corpus costs what it adds, not
 * a new index of everything. Both are caches, made from the store:
 *
 * - a file names the documents it indexes (id and a hash of their row) and
 *   is used for those still in the store unchanged, when its magic,
 *   version, size and base match: the index file's base is the settings and
 *   versions fingerprints depend on (and the generation a rebuild moves
 *   on), the delta file's the key of the index file it completes;
 * - its key names everything the store held when it was written (the write
 *   epoch, the store files' size and time, every document row): a file
 *   whose stamp is the store's now answers for its document list and
 *   statistics too.
 *
 * When neither answers for the store now, a delta is built in memory from
 * the fingerprints of the documents the index file lacks (when they are
 * few) and written, or else the whole index is built and written again. A
 * file is written to a temporary name and renamed over the old one, so a
 * reader never maps half a file. */
#define INDEX_MAGIC   "SIMHIDX1"
#define INDEX_VERSION 11
#define KIND_INDEX    0
#define KIND_DELTA    1
/* A delta holds at most this share of the index file's fingerprints (and of
 * this many), and the index file's documents removed or changed since at
 * most this share of its fingerprints: beyond, everything is built again. */
#define DELTA_SHARE   4
#define DELTA_MAX     (4u << 20)

typedef struct {
  char    magic[8];
  guint32 version;
  guint16 kind;
  guint16 place_bytes; /* a fingerprint's place: 4 (a position) or 8 (document, start) */
  guint64 key;
  guint64 base;
  guint64 n_fps;
  guint64 n_docs;
  guint64 stamp;     /* index_stamp() when written */
  guint64 list_len;  /* bytes of the document list after the header */
} IndexHeader;

typedef struct {
  gint64  id;
  guint64 row;
  guint64 base;  /* its first position */
} IndexDoc;

G_STATIC_ASSERT (sizeof (IndexHeader) == 64);
G_STATIC_ASSERT (sizeof (IndexDoc) == 24);

static char *
index_path (const char *store_path,
            guint       kind)
{
  return g_strconcat (store_path, kind == KIND_INDEX ? ".index" : ".index-delta", NULL);
}

/* What the fingerprints depend on besides the documents' text. */
static guint64
index_base (SimStore          *store,
            SimNormalizeFlags  flags)
{
  g_autofree char *generation = sim_store_dup_meta (store, "generation", NULL);
  const guint64 head[] = { SIM_FEATURE_VERSION, flags, INDEX_VERSION };

  return XXH3_64bits_withSeed (generation ? generation : "", generation ? strlen (generation) : 0,
                               XXH3_64bits (head, sizeof head));
}

/* What the store holds, as far as its files say without reading them: the
 * @base, the write epoch, and the files' size and time (any write, ours or
 * not, a page mended by hand or a copy put in its place, moves one of them
 * on). A file written with the stamp the store has now is current,
 * document list included. */
static guint64
index_stamp (SimStore *store,
             guint64   base,
             guint32   df_docs)
{
  g_autofree char *epoch = sim_store_dup_meta (store, "epoch", NULL);
  gint64 words[2 + 2 * 3] = { (gint64) base, df_docs };

  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *file = g_strconcat (sim_store_get_path (store), i ? "-wal" : "", NULL);
      GStatBuf st;

      /* An empty write-ahead log (every open makes one) holds no change. */
      if (g_stat (file, &st) == 0 && st.st_size > 0)
        {
          words[2 + 3 * i] = st.st_size;
          words[3 + 3 * i] = st.st_mtim.tv_sec;
          words[4 + 3 * i] = st.st_mtim.tv_nsec;
        }
    }
  return XXH3_64bits_withSeed (epoch ? epoch : "", epoch ? strlen (epoch) : 0, XXH3_64bits (words, sizeof words));
}

typedef struct {
  SimCorpusSnapshot *snapshot;
  XXH3_state_t      *key;
  guint64            n_windows;
  guint64            n_chars;
} ListState;

/* What a document's row says of it: id, sizes, time and content. */
static guint64
row_key (const SimStoreDocument *sd)
{
  const gint64 fields[] = { sd->id, sd->n_segments, sd->n_chars, sd->updated_at };

  return XXH3_64bits_withSeed (sd->content_hash, strlen (sd->content_hash), XXH3_64bits (fields, sizeof fields));
}

static void
add_document (const SimStoreDocument *sd,
              gpointer                user_data)
{
  ListState *ls = user_data;
  SimCorpusSnapshot *snapshot = ls->snapshot;
  DocRow row;

  row.key = row_key (sd);
  row.n_windows = sd->n_segments;
  row.updated_at = sd->updated_at;
  snapshot_add_doc (snapshot, sd->id, sd->path, strlen (sd->path), sd->title, strlen (sd->title), sd->n_chars,
                    sd->updated_at, &row);
  XXH3_64bits_update (ls->key, &row.key, sizeof row.key);
  ls->n_windows += MAX (sd->n_segments, 0);
  ls->n_chars += MAX (sd->n_chars, 0) + 1;
}

/* Index files up to this size are mapped; larger ones are read bucket by
 * bucket (SIMHOUND_INDEX_MAP_LIMIT, in bytes, sets it for tests and
 * benchmarks). A check touches a bucket a window: mapped, each costs a page
 * fault and stays in the process's memory, so a check of a large corpus
 * held gigabytes of mapped pages; a small file is soon mapped whole, and
 * then reading from memory is faster than asking for it. At 225 MB (105 MB
 * of text) mapping made a `check` process 0.15 -> 0.22 s and 38 -> 214 MB,
 * while a check in a process that had mapped it already was 10% faster. */
#define INDEX_MAP_LIMIT (64u << 20)

/* The document list a file carries, so that an open finding the file
 * current reads it instead of every row of the store: a hash of what
 * follows, then per document its id, row key, characters, update time,
 * windows, the lengths of its path and title and their bytes, each with a
 * NUL after it (the snapshot uses them where they are); zeros up to a
 * multiple of 8 bytes. */
typedef struct {
  gint64  id;
  guint64 row;
  gint64  n_chars;
  gint64  updated_at;
  gint64  n_windows;
  guint32 path_len;
  guint32 title_len;
} ListEntry;

G_STATIC_ASSERT (sizeof (ListEntry) == 48);

static GByteArray *
list_pack (const SimCorpusSnapshot *snapshot)
{
  GByteArray *list = g_byte_array_new ();
  guint64 hash;

  g_byte_array_set_size (list, 8);
  for (guint i = 0; i < snapshot->docs->len; i++)
    {
      const SimCorpusDoc *doc = &g_array_index (snapshot->docs, SimCorpusDoc, i);
      const DocRow *row = &g_array_index (snapshot->rows, DocRow, i);
      const ListEntry e = { doc->id, row->key, doc->n_chars, row->updated_at, row->n_windows,
                            strlen (doc->path), strlen (doc->title) };

      g_byte_array_append (list, (const guint8 *) &e, sizeof e);
      g_byte_array_append (list, (const guint8 *) doc->path, e.path_len + 1);
      g_byte_array_append (list, (const guint8 *) doc->title, e.title_len + 1);
    }
  while (list->len % 8 != 0)
    g_byte_array_append (list, (const guint8 *) "", 1);
  hash = XXH3_64bits (list->data + 8, list->len - 8);
  memcpy (list->data, &hash, 8);
  return list;
}

/* The header of the index file of @kind, when it is one. */
static gboolean
index_peek (const char  *store_path,
            guint        kind,
            IndexHeader *out)
{
  g_autofree char *path = index_path (store_path, kind);
  const int fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  gboolean ok;

  if (fd < 0)
    return FALSE;
  ok = pread (fd, out, sizeof *out, 0) == sizeof *out && memcmp (out->magic, INDEX_MAGIC, 8) == 0 &&
       out->version == INDEX_VERSION && out->kind == kind;
  close (fd);
  return ok;
}

typedef struct {
  gpointer map;
  gsize    len;
} ListMap;

static void
list_unmap (gpointer data)
{
  ListMap *m = data;

  munmap (m->map, m->len);
  g_free (m);
}

/* The document list of the index file of @kind, when the file is still the
 * one @header was read from and its list is whole. Mapped, not read: the
 * first open in a process copied 8.7 MB into fresh memory at 44,000
 * documents (12 ms) and then touched it once more to hash it (7 ms: fresh
 * pages cost that much on the virtual machines we measure on); mapped, 5
 * ms in all. (transfer full) */
static GBytes *
read_list (const char        *store_path,
           guint              kind,
           const IndexHeader *header)
{
  g_autofree char *path = index_path (store_path, kind);
  const int fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  g_autoptr(GBytes) list = NULL;
  const guint8 *data;
  IndexHeader now;
  ListMap *m;
  GStatBuf st;
  guint64 hash;
  gboolean ok;

  if (fd < 0)
    return NULL;
  /* The file must hold the whole list: a page mapped past its end is a SIGBUS. */
  ok = header->list_len >= 8 && header->list_len <= G_MAXUINT32 &&
       pread (fd, &now, sizeof now, 0) == sizeof now && memcmp (&now, header, sizeof now) == 0 &&
       fstat (fd, &st) == 0 && (guint64) st.st_size >= sizeof now + header->list_len;
  m = g_new (ListMap, 1);
  m->len = sizeof now + header->list_len;
  m->map = ok ? mmap (NULL, m->len, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  close (fd);
  if (m->map == MAP_FAILED)
    {
      g_free (m);
      return NULL;
    }
  data = (const guint8 *) m->map + sizeof now;
  list = g_bytes_new_with_free_func (data, header->list_len, list_unmap, m);
  memcpy (&hash, data, 8);
  return hash == XXH3_64bits (data + 8, header->list_len - 8) ? g_steal_pointer (&list) : NULL;
}

/* The document list of the index file of @kind into the snapshot, which
 * has none yet. */
static gboolean
snapshot_read_list (SimCorpusSnapshot *snapshot,
                    guint              kind,
                    const IndexHeader *header)
{
  GBytes *bytes = read_list (snapshot->store_path, kind, header);
  const guint8 *list = bytes ? g_bytes_get_data (bytes, NULL) : NULL;
  guint n = 0;

  if (bytes == NULL)
    return FALSE;
  /* Checked and counted first, so that the arrays are made once: grown
   * a document at a time, they were copied and faulted in again and again
   * (44,000 documents: 30 ms of a 50 ms open). */
  for (gsize at = 8; at + sizeof (ListEntry) <= header->list_len; n++)
    {
      ListEntry e;

      memcpy (&e, list + at, sizeof e);
      at += sizeof e;
      if (e.path_len >= header->list_len - at || e.title_len >= header->list_len - at - e.path_len - 1 ||
          list[at + e.path_len] != '\0' || list[at + e.path_len + 1 + e.title_len] != '\0')
        {
          g_bytes_unref (bytes);
          return FALSE;
        }
      at += e.path_len + 1 + e.title_len + 1;
    }
  snapshot->list = bytes;
  g_array_set_size (snapshot->docs, n);
  g_array_set_size (snapshot->rows, n);
  sim_prefault (snapshot->docs->data, n * sizeof (SimCorpusDoc));
  sim_prefault (snapshot->rows->data, n * sizeof (DocRow));
  for (gsize at = 8, i = 0; i < n; i++)
    {
      SimCorpusDoc *doc = &g_array_index (snapshot->docs, SimCorpusDoc, i);
      DocRow *row = &g_array_index (snapshot->rows, DocRow, i);
      ListEntry e;

      memcpy (&e, list + at, sizeof e);
      at += sizeof e;
      doc->id = e.id;
      doc->path = (const char *) list + at;
      doc->title = (const char *) list + at + e.path_len + 1;
      doc->n_chars = e.n_chars;
      row->key = e.row;
      row->n_windows = e.n_windows;
      row->updated_at = e.updated_at;
      snapshot->updated_at = MAX (snapshot->updated_at, e.updated_at);
      at += e.path_len + 1 + e.title_len + 1;
    }
  return TRUE;
}

/* Opens the index file of @kind into @part when its base is @base, mapping
 * its documents to the snapshot's; its header in @out_header and, with
 * @out_counts, the feature statistics it carries (transfer full; NULL when
 * it carries none). */
static gboolean
part_open (SimCorpusSnapshot *snapshot,
           guint              kind,
           guint64            base,
           Part              *part,
           IndexHeader       *out_header,
           guint32          **out_counts)
{
  g_autofree char *path = index_path (snapshot->store_path, kind);
  const char *limit_env = g_getenv ("SIMHOUND_INDEX_MAP_LIMIT");
  const guint64 limit = limit_env ? g_ascii_strtoull (limit_env, NULL, 10) : INDEX_MAP_LIMIT;
  const int fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  g_autofree IndexDoc *docs = NULL;
  g_autofree guint32 *counts = NULL;
  gsize len, index_len, df_at;
  goffset index_at;
  IndexHeader header;
  GStatBuf st;

  part_init (part);
  if (fd < 0)
    return FALSE;
  if (fstat (fd, &st) != 0 || st.st_size < (goffset) sizeof header ||
      pread (fd, &header, sizeof header, 0) != sizeof header)
    goto fail;
  len = st.st_size;
  if (memcmp (header.magic, INDEX_MAGIC, 8) != 0 || header.version != INDEX_VERSION || header.kind != kind ||
      header.base != base || header.n_fps >= G_MAXUINT32 || header.n_docs >= G_MAXUINT32 ||
      header.n_docs > len / sizeof (IndexDoc) || header.list_len > len || header.list_len % 8 != 0 ||
      (header.place_bytes != 4 && header.place_bytes != 8))
    goto fail;
  index_len = sim_band_index_get_serialized_size (header.n_fps);
  index_at = sizeof header + header.list_len + header.n_docs * sizeof (IndexDoc);
  /* The feature statistics (sim_store_pack_df()) end the file. */
  df_at = index_at + index_len + header.n_fps * header.place_bytes;
  if (len < df_at || len - df_at > SIM_DF_BUCKETS * sizeof (guint32))
    goto fail;

  /* Its documents, matched with the snapshot's by id (both ascending) and row. */
  docs = g_new (IndexDoc, MAX (header.n_docs, 1));
  if (pread (fd, docs, header.n_docs * sizeof (IndexDoc), sizeof header + header.list_len) !=
      (gssize) (header.n_docs * sizeof (IndexDoc)))
    goto fail;
  part->n_docs = header.n_docs;
  part->doc_map = g_new (guint32, MAX (header.n_docs, 1));
  for (guint i = 0, j = 0; i < header.n_docs; i++)
    {
      while (j < snapshot->docs->len && g_array_index (snapshot->docs, SimCorpusDoc, j).id < docs[i].id)
        j++;
      part->doc_map[i] = j < snapshot->docs->len && g_array_index (snapshot->docs, SimCorpusDoc, j).id == docs[i].id &&
                         g_array_index (snapshot->rows, DocRow, j).key == docs[i].row ? j : G_MAXUINT32;
    }
  part->place_bytes = header.place_bytes;
  if (header.place_bytes == 4)
    {
      /* Positions of documents one after another, all in 32 bits. */
      part->bases = g_new (guint64, MAX (header.n_docs, 1));
      for (guint i = 0; i < header.n_docs; i++)
        {
          part->bases[i] = docs[i].base;
          if (docs[i].base > G_MAXUINT32 || (i > 0 && docs[i].base < docs[i - 1].base))
            goto fail;
        }
      part_index_bases (part);
    }
  if (out_counts != NULL && len > df_at)
    {
      g_autofree guint8 *packed = g_malloc (len - df_at);

      sim_prefault (packed, len - df_at);
      if (pread (fd, packed, len - df_at, df_at) != (gssize) (len - df_at) ||
          (counts = sim_store_unpack_df (packed, len - df_at, SIM_DF_BUCKETS)) == NULL)
        goto fail;
    }
  if (df_at > limit)
    {
      part->index = sim_band_index_new_read (fd, index_at, header.n_fps);
      if (part->index == NULL)
        goto fail;
      part->fd = fd;
      part->places_at = index_at + index_len;
    }
  else
    {
      g_autoptr(GMappedFile) file = g_mapped_file_new_from_fd (fd, FALSE, NULL);
      const guint8 *data;

      close (fd);
      if (file == NULL || g_mapped_file_get_length (file) != len)
        {
          part_clear (part);
          return FALSE;
        }
      data = (const guint8 *) g_mapped_file_get_contents (file);
      part->index = sim_band_index_new_mapped (data + index_at, index_len, header.n_fps);
      if (part->index == NULL)
        {
          part_clear (part);
          return FALSE;
        }
      if (header.place_bytes == 4)
        part->pos_of = (const guint32 *) (data + index_at + index_len);
      else
        {
          part->docs_of = (const guint32 *) (data + index_at + index_len);
          part->starts_of = part->docs_of + header.n_fps;
        }
      part->mapped = g_steal_pointer (&file);
    }
  part->n_fps = header.n_fps;
  *out_header = header;
  if (out_counts != NULL)
    *out_counts = g_steal_pointer (&counts);
  return TRUE;

fail:
  close (fd);
  part_clear (part);
  return FALSE;
}

static gboolean
write_all (gconstpointer data,
           gsize         len,
           gpointer      user_data)
{
  const int fd = GPOINTER_TO_INT (user_data);

  for (const char *p = data; len > 0;)
    {
      const gssize n = write (fd, p, MIN (len, 1u << 30));

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      p += n;
      len -= n;
    }
  return TRUE;
}

/* The positions an index file of the documents @doc_map names needs (each
 * its characters and one more), and with @bases where each one's start. */
static guint64
part_positions (const SimCorpusSnapshot *snapshot,
                const guint32           *doc_map,
                guint                    n_docs,
                guint64                 *bases)
{
  guint64 next = 0;

  for (guint i = 0; i < n_docs; i++)
    {
      if (bases)
        bases[i] = next;
      next += MAX (g_array_index (snapshot->docs, SimCorpusDoc, doc_map[i]).n_chars, 0) + 1;
    }
  return next;
}

/* Whether positions fit in the 4 bytes of a place in an index file
 * (SIMHOUND_INDEX_POSITION_LIMIT lowers the limit for tests). */
static gboolean
positions_fit (guint64 n_positions)
{
  const char *limit = g_getenv ("SIMHOUND_INDEX_POSITION_LIMIT");

  return n_positions <= (limit ? g_ascii_strtoull (limit, NULL, 10) : G_MAXUINT32);
}

/* Writes @part (built, its pairs or records sorted) as the index file of @kind. Best
 * effort: a store in a folder we may not write simply has no file. */
static gboolean
part_write (SimCorpusSnapshot *snapshot,
            const Part        *part,
            guint              kind,
            guint64            key,
            guint64            base,
            guint64            stamp)
{
  g_autofree char *path = index_path (snapshot->store_path, kind);
  g_autofree char *tmp = g_strconcat (path, ".XXXXXX", NULL);
  g_autoptr(GByteArray) list = list_pack (snapshot);
  IndexHeader header = { INDEX_MAGIC, INDEX_VERSION, kind, 4, key, base, part->n_fps, part->n_docs, stamp, list->len };
  const int fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0600);
  g_autofree IndexDoc *docs = g_new (IndexDoc, MAX (part->n_docs, 1));
  const guint32 *counts = sim_weights_get_counts (snapshot->weights);
  g_autoptr(GBytes) packed = snapshot->packed_df ? g_bytes_ref (snapshot->packed_df)
                             : counts ? sim_store_pack_df (counts, SIM_DF_BUCKETS) : g_bytes_new (NULL, 0);
  g_autofree guint64 *bases = g_new (guint64, MAX (part->n_docs, 1));
  const guint64 next = part_positions (snapshot, part->doc_map, part->n_docs, bases);
  gboolean ok;

  if (fd < 0)
    return FALSE;
  for (guint i = 0; i < part->n_docs; i++)
    {
      docs[i].id = g_array_index (snapshot->docs, SimCorpusDoc, part->doc_map[i]).id;
      docs[i].row = g_array_index (snapshot->rows, DocRow, part->doc_map[i]).key;
      docs[i].base = bases[i];
    }
  if (!positions_fit (next))
    header.place_bytes = 8;
  /* Records are only made when the positions fit (part_build()). */
  g_assert (part->records == NULL || header.place_bytes == 4);
  ok = write_all (&header, sizeof header, GINT_TO_POINTER (fd)) &&
       write_all (list->data, list->len, GINT_TO_POINTER (fd)) &&
       write_all (docs, part->n_docs * sizeof (IndexDoc), GINT_TO_POINTER (fd)) &&
       (part->records != NULL
          ? sim_band_index_serialize_records (part->records, part->n_fps, part->pair_offsets, write_all,
                                              GINT_TO_POINTER (fd))
          : sim_band_index_serialize_pairs (part->pairs, part->n_fps, part->pair_offsets, write_all,
                                            GINT_TO_POINTER (fd)));
  /* The places: positions, or documents then starts. A start is inside
   * its document (pack_windows(), sources). */
  if (ok)
    {
      g_autofree guint32 *out = g_new (guint32, PLACES_CHUNK);

      for (guint pass = 0; pass < (header.place_bytes == 8 ? 2 : 1); pass++)
        for (gsize k0 = 0; ok && k0 < part->n_fps; k0 += PLACES_CHUNK)
          {
            const gsize m = MIN (PLACES_CHUNK, part->n_fps - k0);

            if (part->records != NULL)
              for (gsize k = 0; k < m; k++)
                out[k] = (guint32) part->records[k0 + k];
            else
              {
                const guint64 *p = part->pairs + 2 * k0 + 1;

                for (gsize k = 0; k < m; k++)
                  out[k] = header.place_bytes == 4 ? docs[p[2 * k] >> 32].base + (guint32) p[2 * k]
                                                   : pass == 0 ? p[2 * k] >> 32 : (guint32) p[2 * k];
              }
            ok = write_all (out, m * sizeof (guint32), GINT_TO_POINTER (fd));
          }
    }
  ok = ok && write_all (g_bytes_get_data (packed, NULL), g_bytes_get_size (packed), GINT_TO_POINTER (fd));
  ok = g_close (fd, NULL) && ok;
  if (!ok || g_rename (tmp, path) != 0)
    {
      g_unlink (tmp);
      return FALSE;
    }
  return TRUE;
}

/* Swaps a part just built (16 bytes a fingerprint, which an index in
 * memory would keep for as long as the snapshot lives: the app's after an
 * import) for the file written from it, which answers the same. Keeps the
 * built one when the file cannot be used. */
static void
part_use_file (SimCorpusSnapshot *snapshot,
               Part              *part,
               guint              kind,
               guint64            base)
{
  Part file;
  IndexHeader header;

  if (!part_open (snapshot, kind, base, &file, &header, NULL))
    return;
  part_clear (part);
  *part = file;
}

/* Packs the fingerprints of @text window after window: its SimHash (8
 * bytes, little-endian), then how far its start (code points) is from the
 * one before (from 0 for the first), zigzag-encoded in 7-bit groups, low
 * first (about 9 bytes a window). After the windows, the keys of its short
 * sentences (sim_words_pair_keys()), each placed at its sentence's start:
 * to the index they are windows like the others. Leaves @text loaded in
 * @fp. (transfer full) */
GBytes *
_sim_pack_windows (SimFingerprinter *fp,
                   const char       *text,
                   gsize             len,
                   gsize            *out_n_windows,
                   gsize            *out_n_units)
{
  const SimUnits *units = sim_fingerprinter_load (fp, text, len);
  g_autoptr(GArray) windows = g_array_new (FALSE, FALSE, sizeof (SimAnchor));
  gint64 previous = 0;
  guint8 *data, *p;

  sim_fingerprinter_windows (fp, SIM_WINNOW_WEIGHT, windows);
  sim_words_text_keys (text, len, units, windows);
  /* 8 bytes of SimHash and at most 5 of start. */
  p = data = g_malloc (MAX (windows->len, 1) * 13);
  for (guint i = 0; i < windows->len; i++)
    {
      const SimAnchor *w = &g_array_index (windows, SimAnchor, i);
      const guint64 h = GUINT64_TO_LE (w->simhash);
      const gint64 start = units->src_start[w->unit_start];
      const gint64 delta = start - previous;
      guint64 zigzag = delta < 0 ? ((guint64) (-(delta + 1)) << 1) | 1 : (guint64) delta << 1;

      memcpy (p, &h, 8);
      p += 8;
      do
        {
          *p++ = (zigzag & 0x7f) | (zigzag > 0x7f ? 0x80 : 0);
          zigzag >>= 7;
        }
      while (zigzag != 0);
      previous = start;
    }
  if (out_n_windows)
    *out_n_windows = windows->len;
  if (out_n_units)
    *out_n_units = units->n;
  return g_bytes_new_take (g_realloc (data, MAX (p - data, 1)), p - data);
}

/* Windows a write has just computed (an import, a rebuild), by document
 * id: the next snapshot takes them instead of fingerprinting the text
 * again. They hold for the row they were computed with. */
typedef struct {
  guint64  row;
  GBytes  *packed;  /* pack_windows() */
} Fresh;

static void
fresh_free (gpointer data)
{
  Fresh *fresh = data;

  g_clear_pointer (&fresh->packed, g_bytes_unref);
  g_free (fresh);
}

GHashTable *
_sim_fresh_new (void)
{
  return g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, fresh_free);
}

void
_sim_fresh_put (GHashTable             *table,
                const SimStoreDocument *doc,
                GBytes                 *packed)
{
  Fresh *fresh = g_new (Fresh, 1);

  fresh->row = row_key (doc);
  fresh->packed = packed;
  g_hash_table_replace (table, g_memdup2 (&doc->id, sizeof doc->id), fresh);
}

/* Windows in @packed, or G_MAXSIZE when it does not hold whole windows. */
static gsize
count_windows (GBytes *packed)
{
  gsize len;
  const guint8 *p = g_bytes_get_data (packed, &len), *end = p + len;
  gsize n = 0;

  while (p < end)
    {
      if (end - p < 9)
        return G_MAXSIZE;
      p += 8;
      while (p < end && (*p & 0x80))
        p++;
      if (p == end)
        return G_MAXSIZE;
      p++;
      n++;
    }
  return n;
}

/* The next packed window at *@p (count_windows() said it is whole): its
 * fingerprint, and *@start moved to its start. */
static inline guint64
next_window (const guint8 **p,
             gint64        *start)
{
  guint64 h, delta = 0;
  guint shift = 0;

  memcpy (&h, *p, 8);
  *p += 8;
  do
    {
      if (shift < 63)
        delta |= (guint64) (**p & 0x7f) << shift;
      shift += 7;
    }
  while (*(*p)++ & 0x80);
  *start += (delta & 1) ? -(gint64) (delta >> 1) - 1 : (gint64) (delta >> 1);
  return GUINT64_FROM_LE (h);
}

/* Unpacks @n windows (count_windows()) of part document @doc, of
 * @n_chars, into @fps and @places (@doc << 32 | start). */
static void
unpack_windows (GBytes  *packed,
                gsize    n,
                guint32  doc,
                gint64   n_chars,
                guint64 *pairs)
{
  const guint8 *p = g_bytes_get_data (packed, NULL);
  gint64 start = 0;

  for (gsize i = 0; i < n; i++)
    {
      pairs[2 * i] = next_window (&p, &start);
      pairs[2 * i + 1] = (guint64) doc << 32 | (guint32) CLAMP (start, 0, MAX (n_chars, 0));
    }
}


/* Each thread's bitmap of the df buckets a text has, all 0 between calls
 * of _sim_distinct_buckets(): 128 KiB made afresh for each document were a
 * tenth of an import's time (page faults, and memset). */
static GPrivate seen_buckets = G_PRIVATE_INIT (g_free);

/* Distinct df buckets of the loaded text's features, in first-seen order. */
GArray *
_sim_distinct_buckets (SimFingerprinter *fp,
                       gsize             n_units)
{
  const guint64 *f = sim_fingerprinter_get_features (fp);
  GArray *buckets = g_array_sized_new (FALSE, FALSE, sizeof (guint32), MIN (n_units, SIM_DF_BUCKETS));
  guint64 *seen = g_private_get (&seen_buckets);
  guint32 *out = (guint32 *) buckets->data;
  gsize n = 0;

  if (seen == NULL)
    {
      seen = g_new0 (guint64, SIM_DF_BUCKETS / 64);
      g_private_set (&seen_buckets, seen);
    }
  /* At most one a unit, and one a bucket: written in place. */
  for (gsize i = 0; i < n_units; i++)
    if (f[i] != 0)
      {
        const guint32 v = f[i] >> DF_SHIFT;

        if (seen[v / 64] & (G_GUINT64_CONSTANT (1) << (v % 64)))
          continue;
        seen[v / 64] |= G_GUINT64_CONSTANT (1) << (v % 64);
        out[n++] = v;
      }
  for (gsize i = 0; i < n; i++)
    seen[out[i] / 64] = 0;
  g_array_set_size (buckets, n);
  return buckets;
}

void
_sim_df_apply (guint32      *counts,
               const GArray *buckets,
               gint          delta)
{
  for (guint i = 0; i < buckets->len; i++)
    {
      guint32 *c = &counts[g_array_index (buckets, guint32, i)];

      if (delta > 0)
        (*c)++;
      else if (*c > 0)
        (*c)--;
    }
}


void
_sim_text_worker (gpointer data)
{
  TextJob *job = data;
  g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (job->flags);
  g_autoptr(SimStore) store = NULL;
  g_autofree guint32 *counts = job->counts ? g_new0 (guint32, SIM_DF_BUCKETS) : NULL;
  GError *error = NULL;

  for (;;)
    {
      const gint i = g_atomic_int_add (&job->next, 1);
      g_autofree char *text = NULL;
      gsize len = 0, n_windows = 0, n_units = 0;

      if (i >= (gint) job->n || g_atomic_int_get (&job->stop) || g_cancellable_set_error_if_cancelled (job->cancellable, &error))
        break;
      if (store == NULL && (store = sim_store_open (job->store_path, TRUE, &error)) == NULL)
        break;
      text = sim_store_dup_text (store, job->ids[i], &len, &error);
      if (text == NULL && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) && job->counts == NULL)
        {
          /* Removed since the list was read: the next snapshot drops it. */
          g_clear_error (&error);
          job->packed[i] = g_bytes_new (NULL, 0);
          continue;
        }
      if (text == NULL)
        break;
      job->packed[i] = _sim_pack_windows (fp, text, len, &n_windows, &n_units);
      if (job->n_windows)
        job->n_windows[i] = n_windows;
      if (counts)
        {
          g_autoptr(GArray) buckets = _sim_distinct_buckets (fp, n_units);

          _sim_df_apply (counts, buckets, +1);
        }
    }
  g_mutex_lock (&job->lock);
  if (error != NULL && job->error == NULL)
    job->error = g_steal_pointer (&error);
  g_clear_error (&error);
  if (job->error != NULL)
    g_atomic_int_set (&job->stop, 1);
  if (counts)
    for (gsize b = 0; b < SIM_DF_BUCKETS; b++)
      job->counts[b] += counts[b];
  g_mutex_unlock (&job->lock);
}

/* Where the windows of a part's documents come from (gather_plan()). */
typedef struct {
  guint     n_docs;
  guint32  *target_of;  /* snapshot document -> part document, or G_MAXUINT32 */
  guint32  *source_of;  /* part document -> the source that holds it, or n_sources */
  GBytes  **packed;     /* part document -> its windows, when no source holds it */
  gsize    *offsets;    /* part document -> its first window; [n_docs]: how many in all */
} Plan;

static void
plan_clear (Plan *plan)
{
  if (plan->packed != NULL)
    for (guint i = 0; i < plan->n_docs; i++)
      g_clear_pointer (&plan->packed[i], g_bytes_unref);
  g_free (plan->target_of);
  g_free (plan->source_of);
  g_free (plan->packed);
  g_free (plan->offsets);
  memset (plan, 0, sizeof *plan);
}

/* @part's documents (every document with @docs NULL, else the snapshot
 * documents @docs, ascending) and where their windows come from: a
 * document's from the first of @sources (index files being replaced) that
 * holds it as it is, else from @fresh, else from its text, fingerprinted
 * again (cancellable with @cancellable); and room for each, in document
 * order. */
static gboolean
gather_plan (SimCorpusSnapshot  *snapshot,
             SimStore           *store,
             Part               *part,
             GArray             *docs,
             const Part         *sources,
             guint               n_sources,
             GHashTable         *fresh,
             GCancellable       *cancellable,
             Plan               *plan,
             GError            **error)
{
  const guint n_snap = snapshot->docs->len;
  g_autoptr(GArray) need = g_array_new (FALSE, FALSE, sizeof (guint32));
  gsize n = 0;

  part_init (part);
  part->n_docs = docs ? docs->len : n_snap;
  part->doc_map = g_new (guint32, MAX (part->n_docs, 1));
  plan->n_docs = part->n_docs;
  plan->target_of = g_new (guint32, MAX (n_snap, 1));
  memset (plan->target_of, 0xff, MAX (n_snap, 1) * sizeof (guint32));
  for (guint i = 0; i < part->n_docs; i++)
    {
      part->doc_map[i] = docs ? g_array_index (docs, guint32, i) : i;
      plan->target_of[part->doc_map[i]] = i;
    }
  plan->source_of = g_new (guint32, MAX (part->n_docs, 1));
  for (guint i = 0; i < part->n_docs; i++)
    plan->source_of[i] = n_sources;
  for (guint s = n_sources; s-- > 0;)
    for (guint d = 0; d < sources[s].n_docs; d++)
      if (sources[s].doc_map[d] != G_MAXUINT32 && plan->target_of[sources[s].doc_map[d]] != G_MAXUINT32)
        plan->source_of[plan->target_of[sources[s].doc_map[d]]] = s;

  /* The windows of the documents no source holds. */
  plan->packed = g_new0 (GBytes *, MAX (part->n_docs, 1));
  for (guint i = 0; i < part->n_docs; i++)
    if (plan->source_of[i] == n_sources)
      {
        const SimCorpusDoc *doc = &g_array_index (snapshot->docs, SimCorpusDoc, part->doc_map[i]);
        Fresh *f = fresh ? g_hash_table_lookup (fresh, &doc->id) : NULL;

        if (f != NULL && f->packed != NULL && f->row == g_array_index (snapshot->rows, DocRow, part->doc_map[i]).key)
          plan->packed[i] = g_steal_pointer (&f->packed);
        else
          g_array_append_val (need, i);
      }
  if (need->len > 0)
    {
      TextJob job = { sim_store_get_path (store), snapshot->flags, NULL, NULL, NULL, NULL, need->len, 0, 0, { 0 }, NULL,
                      cancellable };
      g_autofree gint64 *ids = g_new (gint64, need->len);
      g_autofree GBytes **made = g_new0 (GBytes *, need->len);

      for (guint k = 0; k < need->len; k++)
        ids[k] = g_array_index (snapshot->docs, SimCorpusDoc, part->doc_map[g_array_index (need, guint32, k)]).id;
      job.ids = ids;
      job.packed = made;
      g_mutex_init (&job.lock);
      sim_parallel_run (MIN (sim_parallel_default_threads (), need->len), _sim_text_worker, &job);
      g_mutex_clear (&job.lock);
      for (guint k = 0; k < need->len; k++)
        plan->packed[g_array_index (need, guint32, k)] = made[k];
      if (job.error != NULL)
        {
          g_propagate_error (error, job.error);
          plan_clear (plan);
          part_clear (part);
          return FALSE;
        }
    }

  /* Room for each document's windows, in document order. */
  plan->offsets = g_new (gsize, part->n_docs + 1);
  for (guint i = 0; i < part->n_docs; i++)
    {
      gsize c;

      if (plan->packed[i] != NULL)
        {
          c = count_windows (plan->packed[i]);
          if (c == G_MAXSIZE)
            {
              c = 0;
              g_clear_pointer (&plan->packed[i], g_bytes_unref);
            }
        }
      else
        {
          const DocRow *row = &g_array_index (snapshot->rows, DocRow, part->doc_map[i]);
          const gint64 n_chars = g_array_index (snapshot->docs, SimCorpusDoc, part->doc_map[i]).n_chars;

          /* A document has at most a window a character: a damaged count
           * cannot ask for more than its text could hold. */
          c = CLAMP (row->n_windows, 0, MAX (n_chars, 0) + 1);
        }
      plan->offsets[i] = n;
      n += c;
    }
  plan->offsets[part->n_docs] = n;
  if (n >= G_MAXUINT32)
    {
      plan_clear (plan);
      part_clear (part);
      return sim_store_set_damaged (store, _("the number of fingerprints"), error);
    }
  return TRUE;
}

typedef void (*VisitFunc) (gpointer data,
                           guint32  doc,
                           gsize    at,
                           guint64  fp,
                           guint32  start);

/* Hands @visit the windows of @plan's documents that come from @sources,
 * in the sources' order: equal fingerprints of a document stay in the
 * order they had, as in a build from the texts. Document t's next window
 * is @fill[t] (from @plan's offsets[t]), and a document gets no more than
 * @plan made room for. */
static void
visit_sources (const Part *sources,
               guint       n_sources,
               const Plan *plan,
               gsize      *fill,
               VisitFunc   visit,
               gpointer    data)
{
  for (guint s = 0; s < n_sources; s++)
    {
      const Part *src = &sources[s];
      g_autofree guint32 *take = g_new (guint32, MAX (src->n_docs, 1));
      g_autofree guint64 *owned = NULL;
      g_autofree guint32 *buf = NULL;
      const guint64 *src_fps;
      gboolean any = FALSE;

      for (guint d = 0; d < src->n_docs; d++)
        {
          const guint32 j = src->doc_map[d];

          take[d] = j != G_MAXUINT32 && plan->target_of[j] != G_MAXUINT32 && plan->source_of[plan->target_of[j]] == s
                      ? plan->target_of[j] : G_MAXUINT32;
          any = any || take[d] != G_MAXUINT32;
        }
      if (!any)
        continue;
      src_fps = sim_band_index_get_fps (src->index);
      if (src_fps == NULL)
        src_fps = owned = sim_band_index_dup_fps (src->index);
      buf = g_new (guint32, 2 * PLACES_CHUNK);
      for (gsize k0 = 0; k0 < src->n_fps; k0 += PLACES_CHUNK)
        {
          const gsize m = MIN (PLACES_CHUNK, src->n_fps - k0);
          const guint32 *d_of = buf, *s_of = buf + PLACES_CHUNK;

          part_read_places (src, k0, m, buf, buf + PLACES_CHUNK);
          for (gsize k = 0; k < m; k++)
            {
              const guint32 d = d_of[k];
              guint32 t;

              if (d >= src->n_docs || (t = take[d]) == G_MAXUINT32 || fill[t] == plan->offsets[t + 1])
                continue;
              visit (data, t, fill[t]++, src_fps[k0 + k], s_of[k]);
            }
        }
    }
}

typedef struct {
  const SimCorpusSnapshot *snapshot;
  const Part              *part;
  GBytes * const          *packed;
  const gsize             *offsets;
  guint64                 *pairs;
  gint                     next;   /* the next run of 64 documents */
} UnpackJob;

static void
unpack_worker (gpointer data)
{
  UnpackJob *job = data;
  gint run;

  while ((gsize) (run = g_atomic_int_add (&job->next, 1)) * 64 < job->part->n_docs)
    for (guint i = run * 64; i < MIN ((guint) run * 64 + 64, job->part->n_docs); i++)
      if (job->packed[i] != NULL)
        unpack_windows (job->packed[i], job->offsets[i + 1] - job->offsets[i], i,
                        g_array_index (job->snapshot->docs, SimCorpusDoc, job->part->doc_map[i]).n_chars,
                        job->pairs + 2 * job->offsets[i]);
}

static void
put_pair (gpointer data,
          guint32  doc,
          gsize    at,
          guint64  fp,
          guint32  start)
{
  guint64 *pairs = data;

  pairs[2 * at] = fp;
  pairs[2 * at + 1] = (guint64) doc << 32 | start;
}

/* The windows of @part's documents (gather_plan()), in document order,
 * into *@out_pairs (each fingerprint followed by its place: part document
 * << 32 | start) and *@out_n. */
static gboolean
part_gather (SimCorpusSnapshot  *snapshot,
             SimStore           *store,
             Part               *part,
             GArray             *docs,
             const Part         *sources,
             guint               n_sources,
             GHashTable         *fresh,
             GCancellable       *cancellable,
             guint64           **out_pairs,
             gsize              *out_n,
             GError            **error)
{
  Plan plan = { 0 };
  g_autofree gsize *fill = NULL;
  guint64 *pairs;
  gsize n;

  if (!gather_plan (snapshot, store, part, docs, sources, n_sources, fresh, cancellable, &plan, error))
    return FALSE;
  fill = g_memdup2 (plan.offsets, (part->n_docs + 1) * sizeof (gsize));
  pairs = g_new (guint64, 2 * MAX (plan.offsets[part->n_docs], 1));

  /* Each document's windows into its own range, on every core. */
  {
    UnpackJob job = { snapshot, part, plan.packed, plan.offsets, pairs, 0 };

    sim_parallel_run (MIN (sim_parallel_default_threads (), MAX (part->n_docs / 64, 1)), unpack_worker, &job);
    for (guint i = 0; i < part->n_docs; i++)
      if (plan.packed[i] != NULL)
        {
          fill[i] = plan.offsets[i + 1];
          g_clear_pointer (&plan.packed[i], g_bytes_unref);
        }
  }
  visit_sources (sources, n_sources, &plan, fill, put_pair, pairs);

  /* A damaged source may have held fewer windows of a document than its
   * row says: close the gaps. */
  n = 0;
  for (guint i = 0; i < part->n_docs; i++)
    {
      const gsize c = fill[i] - plan.offsets[i];

      if (n != plan.offsets[i] && c > 0)
        memmove (pairs + 2 * n, pairs + 2 * plan.offsets[i], c * 2 * sizeof *pairs);
      n += c;
    }
  plan_clear (&plan);
  *out_pairs = pairs;
  *out_n = n;
  return TRUE;
}

/* Gathering records (part_gather_records()): each share of the documents
 * on a thread of its own, and the sources' windows in one more share,
 * counted by bucket and then put where the counts say. */
typedef struct {
  const SimCorpusSnapshot *snapshot;
  const Part              *part;
  const Plan              *plan;
  const guint64           *bases;     /* part document -> its first position */
  guint                    n_shares;
  guint32                (*at)[SIM_BAND_INDEX_FILE_BUCKETS]; /* per share: counts, then where it writes */
  guint64                 *records;   /* NULL while counting */
  gint                     next;
} GatherJob;

static inline void
record_window (GatherJob *job,
               guint       share,
               guint64     fp,
               guint32     position)
{
  const guint bucket = fp & (SIM_BAND_INDEX_FILE_BUCKETS - 1);

  if (job->records == NULL)
    job->at[share][bucket]++;
  else
    job->records[job->at[share][bucket]++] = ((fp & SIM_BAND_INDEX_FILE_MASK) >> 16) << 32 | position;
}

static void
records_worker (gpointer data)
{
  GatherJob *job = data;
  gint t;

  while ((t = g_atomic_int_add (&job->next, 1)) < (gint) job->n_shares)
    {
      const guint lo = (guint64) job->part->n_docs * t / job->n_shares;
      const guint hi = (guint64) job->part->n_docs * (t + 1) / job->n_shares;

      for (guint i = lo; i < hi; i++)
        if (job->plan->packed[i] != NULL)
          {
            const gint64 n_chars = g_array_index (job->snapshot->docs, SimCorpusDoc, job->part->doc_map[i]).n_chars;
            const guint8 *p = g_bytes_get_data (job->plan->packed[i], NULL);
            gint64 start = 0;

            for (gsize k = job->plan->offsets[i]; k < job->plan->offsets[i + 1]; k++)
              {
                const guint64 fp = next_window (&p, &start);

                record_window (job, t, fp, (guint32) (job->bases[i] + CLAMP (start, 0, MAX (n_chars, 0))));
              }
          }
    }
}

static void
record_source_window (gpointer data,
                      guint32  doc,
                      gsize    at,
                      guint64  fp,
                      guint32  start)
{
  GatherJob *job = data;

  record_window (job, job->n_shares, fp, (guint32) (job->bases[doc] + start));
}

/* The windows of @part's documents (gather_plan()) as records, bucket by
 * bucket and sorted (sim_band_index_sort_records()), into part->records
 * and part->pair_offsets: 8 bytes a window where pairs take 16, for a part
 * whose positions fit in 4 bytes (positions_fit()). */
static gboolean
part_gather_records (SimCorpusSnapshot  *snapshot,
                     SimStore           *store,
                     Part               *part,
                     GArray             *docs,
                     const Part         *sources,
                     guint               n_sources,
                     GHashTable         *fresh,
                     GError            **error)
{
  Plan plan = { 0 };
  g_autofree guint64 *bases = NULL;
  g_autofree gsize *fill = NULL;
  GatherJob job = { 0 };
  gsize n = 0;

  if (!gather_plan (snapshot, store, part, docs, sources, n_sources, fresh, NULL, &plan, error))
    return FALSE;
  bases = g_new (guint64, MAX (part->n_docs, 1));
  job.snapshot = snapshot;
  job.part = part;
  job.plan = &plan;
  job.bases = bases;
  job.n_shares = MIN (sim_parallel_default_threads (), MAX (part->n_docs / 64, 1));
  job.at = g_malloc0 ((job.n_shares + 1) * sizeof *job.at);
  fill = g_new (gsize, MAX (part->n_docs, 1));
  part_positions (snapshot, part->doc_map, part->n_docs, bases);

  /* Counted, then put: both passes see the same windows. */
  for (guint pass = 0; pass < 2; pass++)
    {
      job.next = 0;
      sim_parallel_run (job.n_shares, records_worker, &job);
      /* The packed documents are done: the sources fill the others. */
      for (guint i = 0; i < part->n_docs; i++)
        fill[i] = plan.packed[i] != NULL ? plan.offsets[i + 1] : plan.offsets[i];
      visit_sources (sources, n_sources, &plan, fill, record_source_window, &job);
      if (pass == 1)
        break;
      /* Where each bucket starts, and where in it each share writes. */
      part->pair_offsets = g_new (guint32, SIM_BAND_INDEX_FILE_BUCKETS + 1);
      for (guint k = 0; k < SIM_BAND_INDEX_FILE_BUCKETS; k++)
        {
          part->pair_offsets[k] = n;
          for (guint t = 0; t <= job.n_shares; t++)
            {
              const guint32 c = job.at[t][k];

              job.at[t][k] = n;
              n += c;
            }
        }
      part->pair_offsets[SIM_BAND_INDEX_FILE_BUCKETS] = n;
      job.records = part->records = g_new (guint64, MAX (n, 1));
    }
  g_free (job.at);
  plan_clear (&plan);
  part->n_fps = n;
  sim_band_index_sort_records (part->records, part->pair_offsets);
  return TRUE;
}

/* Builds @part (part_gather() or part_gather_records()): its pairs or
 * records sorted where they are, the order a build from the texts alone
 * gives, ready to be written (part_write()); part_finish() indexes them
 * when no file takes over. */
static gboolean
part_build (SimCorpusSnapshot  *snapshot,
            SimStore           *store,
            Part               *part,
            GArray             *docs,
            const Part         *sources,
            guint               n_sources,
            GHashTable         *fresh,
            GError            **error)
{
  const guint n_docs = docs ? docs->len : snapshot->docs->len;
  g_autofree guint32 *doc_map = g_new (guint32, MAX (n_docs, 1));

  for (guint i = 0; i < n_docs; i++)
    doc_map[i] = docs ? g_array_index (docs, guint32, i) : i;
  if (positions_fit (part_positions (snapshot, doc_map, n_docs, NULL)))
    return part_gather_records (snapshot, store, part, docs, sources, n_sources, fresh, error);
  if (!part_gather (snapshot, store, part, docs, sources, n_sources, fresh, NULL, &part->pairs, &part->n_fps, error))
    return FALSE;
  part->pair_offsets = g_new (guint32, SIM_BAND_INDEX_FILE_BUCKETS + 1);
  sim_band_index_sort_pairs (part->pairs, part->n_fps, part->pair_offsets);
  return TRUE;
}

/* The index in memory of a part built and not replaced by its file (none
 * could be written or read back): the places travel with the fingerprints
 * through the index's sort (a no-op on sorted pairs). Records become pairs
 * again for it. */
static void
part_finish (const SimCorpusSnapshot *snapshot,
             Part                    *part)
{
  if (part->records != NULL)
    {
      g_autofree guint64 *bases = g_new (guint64, MAX (part->n_docs, 1));

      part->pairs = g_new (guint64, 2 * MAX (part->n_fps, 1));
      part_positions (snapshot, part->doc_map, part->n_docs, bases);
      for (guint k = 0; k < SIM_BAND_INDEX_FILE_BUCKETS; k++)
        for (gsize i = part->pair_offsets[k]; i < part->pair_offsets[k + 1]; i++)
          {
            const guint64 r = part->records[i];
            const guint32 position = (guint32) r;
            guint lo = 0, hi = part->n_docs;

            /* The last document starting at or before the position. */
            while (hi - lo > 1)
              {
                const guint mid = lo + (hi - lo) / 2;

                if (bases[mid] <= position)
                  lo = mid;
                else
                  hi = mid;
              }
            part->pairs[2 * i] = (r >> 32) << 16 | k;
            part->pairs[2 * i + 1] = (guint64) lo << 32 | (guint32) (position - bases[lo]);
          }
      g_clear_pointer (&part->records, g_free);
    }
  if (part->pairs == NULL)
    return;
  part->index = sim_band_index_new_take_pairs (g_steal_pointer (&part->pairs), part->n_fps, &part->places);
  g_clear_pointer (&part->pair_offsets, g_free);
}

gboolean
sim_corpus_snapshot_prepare_lookup (SimCorpusSnapshot  *snapshot,
                                    guint               max_distance,
                                    GCancellable       *cancellable,
                                    GError            **error)
{
  gboolean ok = TRUE;

  g_return_val_if_fail (max_distance <= SIM_BAND_INDEX_MAX_DISTANCE, FALSE);

  if (max_distance == 0)
    return TRUE;
  max_distance = MAX (max_distance, 3);
  g_mutex_lock (&snapshot->index_lock);
  if (snapshot->bands[max_distance] == NULL)
    {
      g_autofree guint64 *fps = NULL;
      gsize n = 0;

      if (snapshot->near.doc_map == NULL)
        {
          /* The texts fingerprinted again: the index files keep 40 bits of a window. */
          g_autoptr(SimStore) store = sim_store_open (snapshot->store_path, TRUE, error);
          g_autofree guint64 *pairs = NULL;

          ok = store != NULL && part_gather (snapshot, store, &snapshot->near, NULL, NULL, 0, NULL, cancellable,
                                             &pairs, &n, error);
          if (ok)
            {
              fps = g_new (guint64, MAX (n, 1));
              snapshot->near.places = g_new (guint64, MAX (n, 1));
              snapshot->near.n_fps = n;
              for (gsize i = 0; i < n; i++)
                {
                  fps[i] = pairs[2 * i];
                  snapshot->near.places[i] = pairs[2 * i + 1];
                }
            }
        }
      else
        {
          for (guint k = 0; k < G_N_ELEMENTS (snapshot->bands) && fps == NULL; k++)
            if (snapshot->bands[k] != NULL)
              fps = sim_band_index_dup_fps (snapshot->bands[k]);
          n = snapshot->near.n_fps;
        }
      if (ok)
        snapshot->bands[max_distance] = sim_band_index_new (fps, n, max_distance, NULL);
    }
  g_mutex_unlock (&snapshot->index_lock);
  return ok;
}

/* Fingerprints of the index file's documents that are gone or changed
 * (they stay in it, giving no hit), and the documents it lacks, with their
 * windows. */
static GArray *
uncovered_documents (SimCorpusSnapshot *snapshot,
                     const Part        *whole,
                     guint64           *out_windows,
                     guint64           *out_dead)
{
  g_autofree gboolean *covered = g_new0 (gboolean, MAX (snapshot->docs->len, 1));
  GArray *docs = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint64 live = 0;

  *out_windows = 0;
  for (guint i = 0; i < whole->n_docs; i++)
    if (whole->doc_map[i] != G_MAXUINT32 && !covered[whole->doc_map[i]])
      {
        covered[whole->doc_map[i]] = TRUE;
        live += MAX (g_array_index (snapshot->rows, DocRow, whole->doc_map[i]).n_windows, 0);
      }
  for (guint j = 0; j < snapshot->docs->len; j++)
    if (!covered[j])
      {
        g_array_append_val (docs, j);
        *out_windows += MAX (g_array_index (snapshot->rows, DocRow, j).n_windows, 0);
      }
  *out_dead = whole->n_fps > live ? whole->n_fps - live : 0;
  return docs;
}

/* The snapshot from the index files alone, when they are current: the
 * index file, or the delta completing it, was written with the stamp the
 * store has now. Its document list is then the store's, and no row of the
 * store is read. */
static gboolean
snapshot_load_current (SimCorpusSnapshot *snapshot,
                       guint64            stamp,
                       guint64            base,
                       guint32            df_docs)
{
  Part *whole = &snapshot->parts[0], *delta = &snapshot->parts[1];
  IndexHeader main_header, delta_header, opened;
  guint32 *counts = NULL;
  gboolean main_now;

  if (!index_peek (snapshot->store_path, KIND_INDEX, &main_header) || main_header.base != base)
    return FALSE;
  main_now = main_header.stamp == stamp;
  if (!main_now && !(index_peek (snapshot->store_path, KIND_DELTA, &delta_header) &&
                     delta_header.base == main_header.key && delta_header.stamp == stamp))
    return FALSE;
  if (!snapshot_read_list (snapshot, main_now ? KIND_INDEX : KIND_DELTA, main_now ? &main_header : &delta_header))
    return FALSE;
  if (part_open (snapshot, KIND_INDEX, base, whole, &opened, main_now ? &counts : NULL) &&
      opened.key == main_header.key && opened.stamp == main_header.stamp)
    {
      snapshot->n_parts = 1;
      /* Statistics are written with every file of a store that has them. */
      if (main_now && (counts != NULL || df_docs == 0))
        {
          snapshot->weights = sim_weights_new (counts, df_docs);
          return TRUE;
        }
      if (!main_now && part_open (snapshot, KIND_DELTA, main_header.key, delta, &opened, &counts) &&
          opened.stamp == stamp && (counts != NULL || df_docs == 0))
        {
          snapshot->n_parts = 2;
          snapshot->weights = sim_weights_new (counts, df_docs);
          return TRUE;
        }
    }
  g_free (counts);
  part_clear (whole);
  part_clear (delta);
  snapshot->n_parts = 0;
  snapshot_clear_docs (snapshot);
  return FALSE;
}

/* The snapshot of the store now; @fresh (or NULL): windows a write has
 * just computed. */
SimCorpusSnapshot *
_sim_snapshot_load (SimStore           *store,
                    SimNormalizeFlags   flags,
                    GHashTable         *fresh,
                    GError            **error)
{
  g_autoptr(SimCorpusSnapshot) snapshot = snapshot_new (sim_store_get_path (store), flags);
  ListState list = { snapshot, NULL, 0, 0 };
  Part *whole = &snapshot->parts[0], *delta = &snapshot->parts[1];
  Part sources[2];
  guint n_sources = 0;
  guint32 *counts = NULL;
  g_autofree guint32 *main_counts = NULL;
  guint32 n_docs = 0;
  guint64 key, stamp, base;
  IndexHeader main_header;
  gboolean use_file;

  part_init (&sources[0]);
  part_init (&sources[1]);

  if (!sim_store_load_df (store, SIM_DF_BUCKETS, NULL, &n_docs, error))
    return NULL;
  base = index_base (store, flags);
  stamp = index_stamp (store, base, n_docs);
  /* SIMHOUND_INDEX_FILE=off: no index file is read or written (a disk too
   * small for it; comparing the two ways in benchmarks). */
  use_file = g_strcmp0 (g_getenv ("SIMHOUND_INDEX_FILE"), "off") != 0;
  if (use_file && snapshot_load_current (snapshot, stamp, base, n_docs))
    return g_steal_pointer (&snapshot);
  /* Kept as stored too: the index file written below keeps them so. */
  if (!sim_store_load_df_packed (store, SIM_DF_BUCKETS, &snapshot->packed_df, &n_docs, error))
    return NULL;
  if (snapshot->packed_df != NULL &&
      (counts = sim_store_unpack_df (g_bytes_get_data (snapshot->packed_df, NULL),
                                     g_bytes_get_size (snapshot->packed_df), SIM_DF_BUCKETS)) == NULL)
    {
      sim_store_set_damaged (store, _("feature statistics of the wrong size"), error);
      return NULL;
    }
  snapshot->weights = sim_weights_new (counts, n_docs);

  /* The store changed since the files were written: its document list, and
   * a key of every row. */
  list.key = XXH3_createState ();
  XXH3_64bits_reset (list.key);
  XXH3_64bits_update (list.key, &stamp, sizeof stamp);
  if (!sim_store_foreach_document (store, add_document, &list, error))
    {
      XXH3_freeState (list.key);
      return NULL;
    }
  {
    const guint64 n = snapshot->docs->len;

    XXH3_64bits_update (list.key, &n, sizeof n);
    key = XXH3_64bits_digest (list.key);
    XXH3_freeState (list.key);
  }

  /* Windows come from the index files that answer for the documents as
   * they are, from @fresh, or from the texts: the index files are the only
   * place fingerprints are kept. */
  /* The index file's statistics are checked here too (and dropped): a
   * file whose statistics are damaged is not current, and if it were used
   * as it is (to complete with a delta), it would never be written again. */
  if (use_file && part_open (snapshot, KIND_INDEX, base, &sources[0], &main_header, &main_counts))
    {
      g_autoptr(GBytes) whole_list = read_list (snapshot->store_path, KIND_INDEX, &main_header);
      IndexHeader delta_header;
      guint64 windows, dead;
      g_autoptr(GArray) uncovered = NULL;

      n_sources = 1;
      if (part_open (snapshot, KIND_DELTA, main_header.key, &sources[1], &delta_header, NULL))
        n_sources = 2;
      /* The documents the index file lacks, when few, in a delta. */
      uncovered = uncovered_documents (snapshot, &sources[0], &windows, &dead);
      /* A damaged list would be read in vain at every open: made again,
       * and nothing taken from a file that may be damaged. */
      if (whole_list == NULL)
        {
          part_clear (&sources[0]);
          part_clear (&sources[1]);
          n_sources = 0;
        }
      else if (windows <= MIN (sources[0].n_fps / DELTA_SHARE, DELTA_MAX) && dead <= sources[0].n_fps / DELTA_SHARE)
        {
          *whole = sources[0];
          part_init (&sources[0]);
          if (!part_build (snapshot, store, delta, uncovered, sources + 1, n_sources - 1, fresh, error))
            goto fail;
          part_clear (&sources[1]);
          snapshot->n_parts = 2;
          if (part_write (snapshot, delta, KIND_DELTA, key, main_header.key, stamp))
            part_use_file (snapshot, delta, KIND_DELTA, main_header.key);
          part_finish (snapshot, delta);
          return g_steal_pointer (&snapshot);
        }
    }

  /* Everything built again. */
  if (!part_build (snapshot, store, whole, NULL, sources, n_sources, fresh, error))
    goto fail;
  part_clear (&sources[0]);
  part_clear (&sources[1]);
  snapshot->n_parts = 1;
  if (use_file && part_write (snapshot, whole, KIND_INDEX, key, base, stamp))
    {
      g_autofree char *stale = index_path (snapshot->store_path, KIND_DELTA);

      g_unlink (stale);
      part_use_file (snapshot, whole, KIND_INDEX, base);
    }
  part_finish (snapshot, whole);
  return g_steal_pointer (&snapshot);

fail:
  part_clear (&sources[0]);
  part_clear (&sources[1]);
  return NULL;
}

