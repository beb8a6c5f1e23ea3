/* SPDX-License-Identifier: GPL-3.0-or-later */
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
#include "sim-document.h"
#include "sim-corpus-private.h"
#include "sim-snapshot-private.h"
#include "sim-window-codec.h"
#include "sim-words.h"


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
 * reader never maps half a file. Their names, headers and document lists:
 * sim-index-list.c. */

/* What the fingerprints depend on besides the documents' text. */
guint64
_sim_snapshot_index_base (SimStore          *store,
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
guint64
_sim_snapshot_index_stamp (SimStore *store,
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
  int     fd;
  goffset at;
  gsize   len;
} DfRead;

#define DOCS_CHUNK (1u << 16)  /* an index file's documents read at once */

/* The feature statistics packed at the end of an index file, unpacked
 * (a GThreadFunc: takes @data, a DfRead), or NULL. */
static gpointer
read_df (gpointer data)
{
  g_autofree DfRead *d = data;
  g_autofree guint8 *packed = g_malloc (d->len);

  sim_prefault (packed, d->len);
  if (pread (d->fd, packed, d->len, d->at) != (gssize) d->len)
    return NULL;
  return sim_store_unpack_df (packed, d->len, SIM_DF_BUCKETS);
}

/* Opens the index file of @kind into @part when its base is @base, mapping
 * its documents to the snapshot's; its header in @out_header and, with
 * @out_counts, the feature statistics it carries (transfer full; NULL when
 * it carries none). */
gboolean
_sim_snapshot_part_open (SimCorpusSnapshot *snapshot,
                         guint              kind,
                         guint64            base,
                         Part              *part,
                         IndexHeader       *out_header,
                         guint32          **out_counts)
{
  g_autofree char *path = _sim_snapshot_index_path (snapshot->store_path, kind);
  const char *limit_env = g_getenv ("SIMHOUND_INDEX_MAP_LIMIT");
  const guint64 limit = limit_env ? g_ascii_strtoull (limit_env, NULL, 10) : INDEX_MAP_LIMIT;
  const int fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  g_autofree IndexDoc *docs = NULL;
  g_autofree guint32 *counts = NULL;
  GThread *reading = NULL;
  gboolean same;
  gsize len, index_len, df_at;
  goffset index_at;
  IndexHeader header;
  GStatBuf st;

  _sim_snapshot_part_init (part);
  if (fd < 0)
    return FALSE;
  if (fstat (fd, &st) != 0 || st.st_size < (goffset) sizeof header ||
      pread (fd, &header, sizeof header, 0) != sizeof header)
    goto fail;
  len = st.st_size;
  if (memcmp (header.magic, INDEX_MAGIC, 8) != 0 || !INDEX_VERSION_READ (header.version) || header.kind != kind ||
      header.base != base || header.n_fps >= G_MAXUINT32 || header.n_docs >= G_MAXUINT32 ||
      header.n_docs > len / sizeof (IndexDoc) || header.list_len > len || header.list_len % 8 != 0 ||
      (header.place_bytes != 4 && header.place_bytes != 5))
    goto fail;
  index_at = sizeof header + header.list_len + header.n_docs * sizeof (IndexDoc);
  if ((index_len = sim_band_index_read_serialized_size (fd, index_at, header.n_fps)) == 0)
    goto fail;
  /* The feature statistics (sim_store_pack_df()) end the file. */
  df_at = index_at + index_len + header.n_fps * header.place_bytes;
  if (len < df_at || len - df_at > SIM_DF_BUCKETS * sizeof (guint32))
    goto fail;

  /* The feature statistics read on another core while the documents are
   * (7-10 ms of an open at 10 GB, as long as the documents' table). */
  if (out_counts != NULL && len > df_at)
    {
      DfRead *d = g_new (DfRead, 1);

      *d = (DfRead) { fd, df_at, len - df_at };
      if ((reading = g_thread_try_new ("simhound-df", read_df, d, NULL)) == NULL)
        {
          counts = read_df (d);
          if (counts == NULL)
            goto fail;
        }
    }
  /* Its documents, matched with the snapshot's by id (both ascending) and
   * row, read a chunk at a time (the table of 1.37 million documents is 33
   * MB); and their positions one after another, in 32 or 40 bits (the last
   * position of all kept for what a cut file reads). */
  /* An index file (not a delta) lists the documents it indexes, in its
   * table's order: when the snapshot's list is this file's, they are the
   * same documents (and the list's entries need not be read). */
  same = kind == KIND_INDEX && snapshot->list != NULL && snapshot->list_key == header.key &&
         snapshot->n_entries == header.n_docs;
  part->n_docs = header.n_docs;
  part->doc_map = g_new (guint32, MAX (header.n_docs, 1));
  part->bases = g_new (guint64, MAX (header.n_docs, 1));
  part->place_bytes = header.place_bytes;
  docs = g_new (IndexDoc, MIN (MAX (header.n_docs, 1), DOCS_CHUNK));
  for (guint i0 = 0, j = 0; i0 < header.n_docs; i0 += DOCS_CHUNK)
    {
      const guint m = MIN (DOCS_CHUNK, header.n_docs - i0);

      if (pread (fd, docs, m * sizeof (IndexDoc), sizeof header + header.list_len + (goffset) i0 * sizeof (IndexDoc)) !=
          (gssize) (m * sizeof (IndexDoc)))
        goto fail;
      for (guint k = 0; k < m; k++)
        {
          const guint i = i0 + k;

          if (same)
            part->doc_map[i] = i;
          else
            {
              while (j < snapshot->n_entries && snapshot->entries[j].id < docs[k].id)
                j++;
              part->doc_map[i] = j < snapshot->n_entries && snapshot->entries[j].id == docs[k].id &&
                                 snapshot->entries[j].row == docs[k].row ? j : G_MAXUINT32;
            }
          part->bases[i] = docs[k].base;
          if (docs[k].base > (G_GUINT64_CONSTANT (1) << (header.place_bytes * 8)) - 1 ||
              (i > 0 && docs[k].base < part->bases[i - 1]))
            goto fail;
        }
    }
  _sim_snapshot_part_index_bases (part);
  if (reading != NULL && (counts = g_thread_join (g_steal_pointer (&reading))) == NULL)
    goto fail;
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
          _sim_snapshot_part_clear (part);
          return FALSE;
        }
      data = (const guint8 *) g_mapped_file_get_contents (file);
      part->index = sim_band_index_new_mapped (data + index_at, index_len, header.n_fps);
      if (part->index == NULL)
        {
          _sim_snapshot_part_clear (part);
          return FALSE;
        }
      part->pos_of = (const guint32 *) (data + index_at + index_len);
      if (header.place_bytes == 5)
        part->pos_hi_of = (const guint8 *) (part->pos_of + header.n_fps);
      part->mapped = g_steal_pointer (&file);
    }
  part->n_fps = header.n_fps;
  *out_header = header;
  if (out_counts != NULL)
    *out_counts = g_steal_pointer (&counts);
  return TRUE;

fail:
  if (reading != NULL)
    g_free (g_thread_join (reading));
  close (fd);
  _sim_snapshot_part_clear (part);
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
guint64
_sim_snapshot_part_positions (const SimCorpusSnapshot *snapshot,
                              const guint32           *doc_map,
                              guint                    n_docs,
                              guint64                 *bases)
{
  guint64 next = 0;

  for (guint i = 0; i < n_docs; i++)
    {
      if (bases)
        bases[i] = next;
      next += MAX (snapshot->entries[doc_map[i]].n_chars, 0) + 1;
    }
  return next;
}

/* The bits of a record's position for @n_positions: 32 when they fit in
 * the 4 bytes of a place in an index file (SIMHOUND_INDEX_POSITION_LIMIT
 * lowers the limit for tests), else 40 (5 bytes, a fifth byte of 0xff
 * kept for what a cut file reads); 0 past those. */
guint
_sim_snapshot_position_bits (guint64 n_positions)
{
  const char *limit = g_getenv ("SIMHOUND_INDEX_POSITION_LIMIT");

  if (n_positions <= (limit ? g_ascii_strtoull (limit, NULL, 10) : G_MAXUINT32))
    return 32;
  return n_positions <= G_GUINT64_CONSTANT (0xff) << 32 ? 40 : 0;
}

/* The places of @m records at @at (a position in their low @pos_bits) as
 * the file keeps them: on @pass 0 their low 4 bytes into @out, on pass 1
 * (5-byte places) their fifth byte into @out_hi. */
static void
fill_places (const guint64 *at,
             gsize          m,
             guint          pos_bits,
             guint          pass,
             guint32       *out,
             guint8        *out_hi)
{
  const guint64 mask = (G_GUINT64_CONSTANT (1) << pos_bits) - 1;

  for (gsize k = 0; k < m; k++)
    if (pass == 0)
      out[k] = (guint32) at[k];
    else
      out_hi[k] = (at[k] & mask) >> 32;
}

/* Writing a spilled part (write_spilled()): its ranges on every core,
 * each read back, sorted and written where it goes on a thread of its own
 * (the part's ranges sized for that). */
typedef struct {
  const Part     *part;
  int             fd;
  goffset         table_at;
  goffset         fence_at;
  guint           fence_bits;
  goffset         places_at;
  guint           place_bytes;
  gint            next;
  gint            failed;
} SpilledJob;

/* The fence bits an index file of @n_fps takes (SIMHOUND_INDEX_FENCE_BITS
 * for tests: small corpora need none). */
static guint
fence_bits_for (gsize n_fps)
{
  const char *env = g_getenv ("SIMHOUND_INDEX_FENCE_BITS");

  return env ? MIN ((guint) g_ascii_strtoull (env, NULL, 10), 8) : sim_band_index_fence_bits (n_fps);
}

/* The fence of buckets [@lo, @hi) of @job's part, from their @records,
 * 256 buckets at a time. */
static gboolean
write_fence (SpilledJob    *job,
             const guint64 *records,
             guint          lo,
             guint          hi)
{
  enum { STEP = 256 };
  g_autofree guint32 *fence = g_new (guint32, (gsize) STEP << job->fence_bits);
  const guint32 *offsets = job->part->pair_offsets;

  for (guint k = lo; k < hi; k += STEP)
    {
      const guint to = MIN (hi, k + STEP);

      sim_band_index_fence (records, 1, job->part->pos_bits, offsets, k, to, offsets[lo], job->fence_bits, fence);
      if (!sim_pwrite_full (job->fd, fence, ((gsize) (to - k) << job->fence_bits) * sizeof (guint32),
                            job->fence_at + ((goffset) k << job->fence_bits) * (goffset) sizeof (guint32)))
        return FALSE;
    }
  return TRUE;
}

static void
spilled_worker (gpointer data)
{
  SpilledJob *job = data;
  const Part *part = job->part;
  const gsize n = part->n_fps;
  gint r;

  while ((r = g_atomic_int_add (&job->next, 1)) < (gint) sim_band_spill_n_ranges (part->spill) &&
         !g_atomic_int_get (&job->failed))
    {
      g_autofree guint64 *records = NULL;
      g_autofree guint8 *keys = NULL;
      g_autofree guint32 *places = NULL;
      gboolean ok = TRUE;
      guint lo, hi;
      gsize first, m;

      sim_band_spill_range (part->spill, r, &lo, &hi);
      first = part->pair_offsets[lo];
      m = part->pair_offsets[hi] - first;
      if (m > 0)
        {
          if ((records = sim_band_spill_read (part->spill, r, 1)) == NULL)
            {
              g_atomic_int_set (&job->failed, 1);
              return;
            }
          keys = g_new (guint8, m * 3 + 1);
          sim_band_index_pack_records (records, m, 1, part->pos_bits, keys);
          ok = sim_pwrite_full (job->fd, keys, 3 * m, job->table_at + 3 * (goffset) first);
          places = g_new (guint32, m);
          fill_places (records, m, part->pos_bits, 0, places, NULL);
          ok = ok && sim_pwrite_full (job->fd, places, 4 * m, job->places_at + 4 * (goffset) first);
          if (job->place_bytes == 5)
            {
              fill_places (records, m, part->pos_bits, 1, NULL, keys);
              ok = ok && sim_pwrite_full (job->fd, keys, m, job->places_at + 4 * (goffset) n + (goffset) first);
            }
        }
      /* Empty buckets have their fence too. */
      if (job->fence_bits > 0)
        ok = ok && write_fence (job, records, lo, hi);
      if (!ok)
        g_atomic_int_set (&job->failed, 1);
    }
}

/* The table and places of a spilled @part at @index_at of @fd (written up
 * to it), range by range (sim_band_spill_read()): the 3 bytes of each
 * record's fingerprint and the table's fence, then their places (the low
 * 4 bytes of each position, then with @place_bytes 5 the fifth); then the
 * statistics @df. */
static gboolean
write_spilled (const Part     *part,
               int             fd,
               goffset         index_at,
               guint           place_bytes,
               GBytes         *df)
{
  static const guint8 zeros[8] = { 0 };
  const gsize n = part->n_fps;
  const guint32 fence_bits = fence_bits_for (n);
  const guint32 end[2] = { n, 0 };
  const goffset records_end = index_at + sim_band_index_get_serialized_size (n, 0);
  SpilledJob job = { part, fd, index_at + (SIM_BAND_INDEX_FILE_BUCKETS + 2) * sizeof (guint32), records_end,
                     fence_bits, index_at + sim_band_index_get_serialized_size (n, fence_bits), place_bytes, 0, 0 };

  if (!write_all (part->pair_offsets, (SIM_BAND_INDEX_FILE_BUCKETS + 1) * sizeof (guint32), GINT_TO_POINTER (fd)) ||
      !write_all (&fence_bits, sizeof fence_bits, GINT_TO_POINTER (fd)))
    return FALSE;
  sim_parallel_run (MIN (sim_parallel_default_threads (), sim_band_spill_n_ranges (part->spill)), spilled_worker, &job);
  /* The table's padding to 8 bytes, the fence's end, and the statistics after the places. */
  return !job.failed &&
         sim_pwrite_full (fd, zeros, records_end - job.table_at - 3 * (goffset) n, job.table_at + 3 * (goffset) n) &&
         (fence_bits == 0 ||
          sim_pwrite_full (fd, end, sizeof end,
                           records_end + ((goffset) SIM_BAND_INDEX_FILE_BUCKETS << fence_bits) * (goffset) sizeof (guint32))) &&
         sim_pwrite_full (fd, g_bytes_get_data (df, NULL), g_bytes_get_size (df), job.places_at + (goffset) n * place_bytes);
}

/* Writes @part (built, its records sorted or spilled) as the index file
 * of @kind. Best effort: a store in a folder we may not write simply has
 * no file. */
gboolean
_sim_snapshot_part_write (SimCorpusSnapshot *snapshot,
                          const Part        *part,
                          guint              kind,
                          guint64            key,
                          guint64            base,
                          guint64            stamp)
{
  g_autofree char *path = _sim_snapshot_index_path (snapshot->store_path, kind);
  g_autofree char *tmp = g_strconcat (path, ".XXXXXX", NULL);
  const gsize list_len = _sim_snapshot_list_size (snapshot);
  IndexHeader header = { INDEX_MAGIC, INDEX_FILE_VERSION, kind, 4, key, base, part->n_fps, part->n_docs, stamp, list_len };
  const int fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0600);
  g_autofree IndexDoc *docs = g_new (IndexDoc, MAX (part->n_docs, 1));
  const guint32 *counts = sim_weights_get_counts (snapshot->weights);
  g_autoptr(GBytes) packed = snapshot->packed_df ? g_bytes_ref (snapshot->packed_df)
                             : counts ? sim_store_pack_df (counts, SIM_DF_BUCKETS) : g_bytes_new (NULL, 0);
  g_autofree guint64 *bases = g_new (guint64, MAX (part->n_docs, 1));
  const guint64 next = _sim_snapshot_part_positions (snapshot, part->doc_map, part->n_docs, bases);
  gboolean ok;

  if (fd < 0)
    return FALSE;
  for (guint i = 0; i < part->n_docs; i++)
    {
      docs[i].id = snapshot->entries[part->doc_map[i]].id;
      docs[i].row = snapshot->entries[part->doc_map[i]].row;
      docs[i].base = bases[i];
    }
  if (part->records == NULL && part->spill == NULL)
    return FALSE;
  header.place_bytes = _sim_snapshot_position_bits (next) == 32 ? 4 : 5;
  g_assert (part->pos_bits == (header.place_bytes == 4 ? 32u : 40u));
  /* The list is written in its place; what follows it, after it. */
  ok = write_all (&header, sizeof header, GINT_TO_POINTER (fd)) &&
       _sim_snapshot_write_list (snapshot, fd, sizeof header, list_len) &&
       lseek (fd, sizeof header + list_len, SEEK_SET) == (off_t) (sizeof header + list_len) &&
       write_all (docs, part->n_docs * sizeof (IndexDoc), GINT_TO_POINTER (fd));
  if (part->spill != NULL)
    {
      ok = ok && write_spilled (part, fd, sizeof header + list_len + part->n_docs * sizeof (IndexDoc),
                                header.place_bytes, packed);
      goto written;
    }
  ok = ok && sim_band_index_serialize_records (part->records, part->n_fps, part->pair_offsets, part->pos_bits,
                                                fence_bits_for (part->n_fps),
                                                write_all, GINT_TO_POINTER (fd));
  /* The places: positions' low 4 bytes, then their fifth. A start is
   * inside its document (pack_windows(), sources). */
  if (ok)
    {
      g_autofree guint32 *out = g_new (guint32, PLACES_CHUNK);

      for (guint pass = 0; pass < header.place_bytes - 3; pass++)
        for (gsize k0 = 0; ok && k0 < part->n_fps; k0 += PLACES_CHUNK)
          {
            const gsize m = MIN (PLACES_CHUNK, part->n_fps - k0);

            fill_places (part->records + k0, m, part->pos_bits, pass, out, (guint8 *) out);
            ok = write_all (out, pass == 0 ? m * sizeof (guint32) : m, GINT_TO_POINTER (fd));
          }
    }
  ok = ok && write_all (g_bytes_get_data (packed, NULL), g_bytes_get_size (packed), GINT_TO_POINTER (fd));
written:
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
void
_sim_snapshot_part_use_file (SimCorpusSnapshot *snapshot,
                             Part              *part,
                             guint              kind,
                             guint64            base)
{
  Part file;
  IndexHeader header;

  if (!_sim_snapshot_part_open (snapshot, kind, base, &file, &header, NULL))
    return;
  _sim_snapshot_part_clear (part);
  *part = file;
}

static void
fresh_free (gpointer data)
{
  Fresh *fresh = data;

  _sim_stashed_clear (&fresh->packed);
  g_free (fresh);
}

GHashTable *
_sim_fresh_new (void)
{
  return g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, fresh_free);
}

void
_sim_fresh_put (GHashTable             *table,
                const SimStoreDocument *doc,
                SimStashed             *packed)
{
  Fresh *fresh = g_new (Fresh, 1);

  fresh->id = doc->id;
  fresh->row = _sim_snapshot_row_key (doc);
  fresh->packed = *packed;
  memset (packed, 0, sizeof *packed);
  /* Replaced, key and all: the key is the entry's own. */
  g_hash_table_replace (table, &fresh->id, fresh);
}

