/* SPDX-License-Identifier: GPL-3.0-or-later */
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


/* Where the windows of a part's documents come from (gather_plan()). */
typedef struct {
  guint     n_docs;
  guint32  *target_of;  /* snapshot document -> part document, or G_MAXUINT32 */
  guint32  *source_of;  /* part document -> the source that holds it, or n_sources */
  SimStashed *packed;   /* part document -> its windows, when no source holds it */
  gsize    *offsets;    /* part document -> its first window; [n_docs]: how many in all */
} Plan;

static void
plan_clear (Plan *plan)
{
  if (plan->packed != NULL)
    for (guint i = 0; i < plan->n_docs; i++)
      _sim_stashed_clear (&plan->packed[i]);
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
  const guint n_snap = snapshot->n_entries;
  g_autoptr(GArray) need = g_array_new (FALSE, FALSE, sizeof (guint32));
  gsize n = 0;

  _sim_snapshot_part_init (part);
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
  plan->packed = g_new0 (SimStashed, MAX (part->n_docs, 1));
  for (guint i = 0; i < part->n_docs; i++)
    if (plan->source_of[i] == n_sources)
      {
        const DocEntry *e = &snapshot->entries[part->doc_map[i]];
        Fresh *f = fresh ? g_hash_table_lookup (fresh, &e->id) : NULL;

        if (f != NULL && _sim_stashed_any (&f->packed) && f->row == e->row)
          {
            plan->packed[i] = f->packed;
            memset (&f->packed, 0, sizeof f->packed);
          }
        else
          g_array_append_val (need, i);
      }
  if (need->len > 0)
    {
      g_autoptr(SimStash) stash = _sim_stash_new (sim_store_get_path (store));
      TextJob job = { sim_store_get_path (store), snapshot->flags, NULL, stash, NULL, NULL, need->len, 0, 0, { 0 }, NULL,
                      cancellable };
      g_autofree gint64 *ids = g_new (gint64, need->len);
      g_autofree SimStashed *made = g_new0 (SimStashed, need->len);

      for (guint k = 0; k < need->len; k++)
        ids[k] = snapshot->entries[part->doc_map[g_array_index (need, guint32, k)]].id;
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
          _sim_snapshot_part_clear (part);
          return FALSE;
        }
    }

  /* Room for each document's windows, in document order. */
  plan->offsets = g_new (gsize, part->n_docs + 1);
  for (guint i = 0; i < part->n_docs; i++)
    {
      gsize c;

      if (_sim_stashed_any (&plan->packed[i]))
        c = plan->packed[i].n_windows;
      else
        {
          const DocEntry *e = &snapshot->entries[part->doc_map[i]];

          /* A document has at most a window a character: a damaged count
           * cannot ask for more than its text could hold. */
          c = CLAMP (e->n_windows, 0, MAX (e->n_chars, 0) + 1);
        }
      plan->offsets[i] = n;
      n += c;
    }
  plan->offsets[part->n_docs] = n;
  if (n >= G_MAXUINT32)
    {
      plan_clear (plan);
      _sim_snapshot_part_clear (part);
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
      g_autofree guint64 *chunk = NULL;
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
      /* A source's fingerprints read a chunk at a time with their places,
       * unless in memory: made whole, they were 8 bytes a window of
       * every document it holds. */
      src_fps = sim_band_index_get_fps (src->index);
      if (src_fps == NULL)
        chunk = g_new (guint64, PLACES_CHUNK);
      buf = g_new (guint32, 2 * PLACES_CHUNK);
      for (gsize k0 = 0; k0 < src->n_fps; k0 += PLACES_CHUNK)
        {
          const gsize m = MIN (PLACES_CHUNK, src->n_fps - k0);
          const guint32 *d_of = buf, *s_of = buf + PLACES_CHUNK;
          const guint64 *fps = chunk != NULL ? chunk : src_fps + k0;

          if (chunk != NULL)
            sim_band_index_read_fps (src->index, k0, m, chunk);
          _sim_snapshot_part_read_places (src, k0, m, buf, buf + PLACES_CHUNK);
          for (gsize k = 0; k < m; k++)
            {
              const guint32 d = d_of[k];
              guint32 t;

              if (d >= src->n_docs || (t = take[d]) == G_MAXUINT32 || fill[t] == plan->offsets[t + 1])
                continue;
              visit (data, t, fill[t]++, fps[k], s_of[k]);
            }
        }
    }
}

typedef struct {
  const SimCorpusSnapshot *snapshot;
  const Part              *part;
  const SimStashed        *packed;
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
      if (_sim_stashed_any (&job->packed[i]))
        {
          g_autoptr(GBytes) packed = _sim_stashed_get (&job->packed[i]);

          _sim_unpack_windows (packed, job->offsets[i + 1] - job->offsets[i], i,
                               job->snapshot->entries[job->part->doc_map[i]].n_chars,
                               job->pairs + 2 * job->offsets[i]);
        }
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
      if (_sim_stashed_any (&plan.packed[i]))
        {
          fill[i] = plan.offsets[i + 1];
          _sim_stashed_clear (&plan.packed[i]);
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

/* Gathering by bucket (part_gather_records()): each share of the
 * documents on a thread of its own, and the sources' windows in one more
 * share, counted by bucket and then put where the counts say: as records,
 * or spilled (a part too large to sort in memory). */
typedef struct {
  const SimCorpusSnapshot *snapshot;
  const Part              *part;
  const Plan              *plan;
  const guint64           *bases;     /* part document -> its first position */
  guint                    n_shares;
  guint32                (*at)[SIM_BAND_INDEX_FILE_BUCKETS]; /* per share: counts, then where it writes */
  guint64                 *records;   /* both NULL while counting */
  SimBandSpill            *spill;
  guint                    pos_bits;  /* of a record's position */
  gint                     next;
} GatherJob;

static inline void
record_window (GatherJob *job,
               guint      share,
               guint64    fp,
               guint32    doc,
               guint32    start)
{
  const guint bucket = fp & (SIM_BAND_INDEX_FILE_BUCKETS - 1);

  if (job->records != NULL)
    job->records[job->at[share][bucket]++] =
      ((fp & SIM_BAND_INDEX_FILE_MASK) >> 16) << job->pos_bits | (job->bases[doc] + start);
  else if (job->spill != NULL)
    sim_band_spill_put (job->spill, share, fp, job->bases[doc] + start);
  else
    job->at[share][bucket]++;
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
        if (_sim_stashed_any (&job->plan->packed[i]))
          {
            const gint64 n_chars = job->snapshot->entries[job->part->doc_map[i]].n_chars;
            g_autoptr(GBytes) packed = _sim_stashed_get (&job->plan->packed[i]);
            const guint8 *p = g_bytes_get_data (packed, NULL);
            gint64 start = 0;

            for (gsize k = job->plan->offsets[i]; k < job->plan->offsets[i + 1]; k++)
              {
                const guint64 fp = _sim_next_window (&p, &start);

                record_window (job, t, fp, i, (guint32) CLAMP (start, 0, MAX (n_chars, 0)));
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

  record_window (job, job->n_shares, fp, doc, start);
}

/* Whether @bytes may be taken in memory at once: half the machine's. */
static gboolean
memory_allows (guint64 bytes)
{
  const long pages = sysconf (_SC_PHYS_PAGES), size = sysconf (_SC_PAGESIZE);

  return pages <= 0 || size <= 0 || bytes <= (guint64) pages * (guint64) size / 2;
}

/* The windows of @part's documents (gather_plan()) bucket by bucket, each
 * bucket sorted: as records (sim_band_index_sort_records()) of positions
 * below @n_positions into part->records, 8 bytes a window; or, when they
 * would take more than the build's memory and @spill allows, spilled into
 * part->spill instead, sorted range by range as its file is written.
 * Where each bucket starts into part->pair_offsets. */
static gboolean
part_gather_records (SimCorpusSnapshot  *snapshot,
                     SimStore           *store,
                     Part               *part,
                     GArray             *docs,
                     const Part         *sources,
                     guint               n_sources,
                     GHashTable         *fresh,
                     guint64             n_positions,
                     gboolean            spill,
                     GError            **error)
{
  Plan plan = { 0 };
  g_autofree guint64 *bases = NULL;
  g_autofree gsize *fill = NULL;
  GatherJob job = { 0 };
  gsize n = 0;  /* below 2^32 (gather_plan()) */

  /* Past 2^40 positions (documents of damaged sizes: no index holds that
   * many windows) the records cannot be made. */
  if (_sim_snapshot_position_bits (n_positions) == 0)
    return sim_store_set_damaged (store, _("the documents' sizes"), error);
  if (!gather_plan (snapshot, store, part, docs, sources, n_sources, fresh, NULL, &plan, error))
    return FALSE;
  part->pos_bits = _sim_snapshot_position_bits (n_positions);
  bases = g_new (guint64, MAX (part->n_docs, 1));
  job.snapshot = snapshot;
  job.part = part;
  job.plan = &plan;
  job.bases = bases;
  job.pos_bits = part->pos_bits;
  job.n_shares = MIN (sim_parallel_default_threads (), MAX (part->n_docs / 64, 1));
  job.at = g_malloc0 ((job.n_shares + 1) * sizeof *job.at);
  fill = g_new (gsize, MAX (part->n_docs, 1));
  _sim_snapshot_part_positions (snapshot, part->doc_map, part->n_docs, bases);

  /* Counted, then put, spilled or in memory: every pass sees the same
   * windows. A spill the disk would not take all of is let go, and the
   * windows put in memory instead (what a build did before it spilled),
   * when the machine has the memory. */
  for (guint pass = 0;; pass++)
    {
      job.next = 0;
      sim_parallel_run (job.n_shares, records_worker, &job);
      /* The packed documents are done: the sources fill the others. */
      for (guint i = 0; i < part->n_docs; i++)
        fill[i] = _sim_stashed_any (&plan.packed[i]) ? plan.offsets[i + 1] : plan.offsets[i];
      visit_sources (sources, n_sources, &plan, fill, record_source_window, &job);
      if (pass == 0)
        {
          part->pair_offsets = g_new (guint32, SIM_BAND_INDEX_FILE_BUCKETS + 1);
          for (guint k = 0; k < SIM_BAND_INDEX_FILE_BUCKETS; k++)
            {
              part->pair_offsets[k] = n;
              for (guint t = 0; t <= job.n_shares; t++)
                n += job.at[t][k];
            }
          part->pair_offsets[SIM_BAND_INDEX_FILE_BUCKETS] = n;
          if (spill && n * sizeof (guint64) > _sim_build_memory ())
            job.spill = part->spill = sim_band_spill_new (snapshot->store_path, part->pair_offsets,
                                                          (const guint32 *) job.at, job.n_shares + 1,
                                                          n_positions, part->pos_bits,
                                                          _sim_build_memory () / sim_parallel_default_threads ());
        }
      else if (job.spill != NULL)
        {
          for (guint t = 0; t <= job.n_shares; t++)
            sim_band_spill_flush (job.spill, t);
          if (sim_band_spill_ok (job.spill))
            break;
          g_clear_pointer (&part->spill, sim_band_spill_free);
          job.spill = NULL;
        }
      else
        break;
      if (job.spill != NULL)
        continue;
      if (!memory_allows (n * sizeof (guint64)))
        {
          g_autofree char *size = g_format_size (n * sizeof (guint64));

          g_free (job.at);
          plan_clear (&plan);
          g_set_error (error, SIM_ERROR, SIM_ERROR_STORE,
                       _("Not enough room to index %s: its windows need %s, more than half of this machine's "
                         "memory, and the disk beside it would not take them"),
                       snapshot->store_path, size);
          return FALSE;
        }
      /* Where in its bucket each share writes. */
      for (guint k = 0; k < SIM_BAND_INDEX_FILE_BUCKETS; k++)
        for (guint t = 0, at = part->pair_offsets[k]; t <= job.n_shares; t++)
          {
            const guint32 c = job.at[t][k];

            job.at[t][k] = at;
            at += c;
          }
      job.records = part->records = g_new (guint64, MAX (n, 1));
    }
  g_free (job.at);
  plan_clear (&plan);
  part->n_fps = n;
  /* A spilled part is sorted a range at a time as it is written. */
  if (part->records != NULL)
    sim_band_index_sort_records (part->records, part->pair_offsets, part->pos_bits);
  return TRUE;
}

/* Builds @part (part_gather_records()): its records or pairs sorted where
 * they are, the order a build from the texts alone gives, or spilled (when
 * @spill: a file will be written), ready to be written
 * (_sim_snapshot_part_write()); part_finish() indexes them when no file
 * takes over. */
static gboolean
part_build (SimCorpusSnapshot  *snapshot,
            SimStore           *store,
            Part               *part,
            GArray             *docs,
            const Part         *sources,
            guint               n_sources,
            GHashTable         *fresh,
            gboolean            spill,
            GError            **error)
{
  const guint n_docs = docs ? docs->len : snapshot->n_entries;
  g_autofree guint32 *doc_map = g_new (guint32, MAX (n_docs, 1));

  for (guint i = 0; i < n_docs; i++)
    doc_map[i] = docs ? g_array_index (docs, guint32, i) : i;
  return part_gather_records (snapshot, store, part, docs, sources, n_sources, fresh,
                              _sim_snapshot_part_positions (snapshot, doc_map, n_docs, NULL), spill, error);
}

/* The index in memory of a part built and not replaced by its file (none
 * could be written or read back): the places travel with the fingerprints
 * through the index's sort (a no-op on sorted pairs). Records become pairs
 * again for it. FALSE when a spilled part would take more memory than the
 * machine has to give (its file could not be written: the disk full). */
static gboolean
part_finish (const SimCorpusSnapshot *snapshot,
             Part                    *part,
             GError                 **error)
{
  const guint64 pos_mask = (G_GUINT64_CONSTANT (1) << part->pos_bits) - 1;

  if ((part->spill != NULL || part->records != NULL) && !memory_allows ((guint64) part->n_fps * 3 * sizeof (guint64)))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE,
                   _("Could not write the index of %s (is its disk full?), and it is too large to keep in memory"),
                   snapshot->store_path);
      return FALSE;
    }
  /* Spilled, and no file took over (the disk full meanwhile): read back
   * whole. Unreadable, the part holds nothing until the next build. */
  if (part->spill != NULL)
    {
      guint64 *all = g_new (guint64, MAX (part->n_fps, 1));

      for (guint r = 0; r < sim_band_spill_n_ranges (part->spill); r++)
        {
          g_autofree guint64 *range = sim_band_spill_read (part->spill, r, sim_parallel_default_threads ());
          guint lo, hi;

          sim_band_spill_range (part->spill, r, &lo, &hi);
          if (range == NULL)
            {
              memset (part->pair_offsets, 0, (SIM_BAND_INDEX_FILE_BUCKETS + 1) * sizeof (guint32));
              part->n_fps = 0;
              break;
            }
          memcpy (all + part->pair_offsets[lo], range,
                  sizeof (guint64) * (part->pair_offsets[hi] - part->pair_offsets[lo]));
        }
      part->records = all;
      g_clear_pointer (&part->spill, sim_band_spill_free);
    }
  if (part->records != NULL)
    {
      g_autofree guint64 *bases = g_new (guint64, MAX (part->n_docs, 1));

      part->pairs = g_new (guint64, 2 * MAX (part->n_fps, 1));
      _sim_snapshot_part_positions (snapshot, part->doc_map, part->n_docs, bases);
      for (guint k = 0; k < SIM_BAND_INDEX_FILE_BUCKETS; k++)
        for (gsize i = part->pair_offsets[k]; i < part->pair_offsets[k + 1]; i++)
          {
            const guint64 r = part->records[i];
            const guint64 position = r & pos_mask;
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
            part->pairs[2 * i] = (r >> part->pos_bits) << 16 | k;
            part->pairs[2 * i + 1] = (guint64) lo << 32 | (guint32) (position - bases[lo]);
          }
      g_clear_pointer (&part->records, g_free);
    }
  if (part->pairs == NULL)
    return TRUE;
  part->index = sim_band_index_new_take_pairs (g_steal_pointer (&part->pairs), part->n_fps, &part->places);
  g_clear_pointer (&part->pair_offsets, g_free);
  return TRUE;
}

gboolean
sim_corpus_snapshot_prepare_lookup (SimCorpusSnapshot  *snapshot,
                                    guint               max_distance,
                                    GCancellable       *cancellable,
                                    GError            **error)
{
  gboolean ok = TRUE;

  g_return_val_if_fail (max_distance <= SIM_BAND_INDEX_MAX_DISTANCE, FALSE);

  /* A corpus server's snapshot has no fingerprints to index: its lookups
   * say so (sim_corpus_snapshot_lookup()), in one place for every caller. */
  if (max_distance == 0 || sim_corpus_snapshot_is_remote (snapshot))
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
  g_autofree gboolean *covered = g_new0 (gboolean, MAX (snapshot->n_entries, 1));
  GArray *docs = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint64 live = 0;

  *out_windows = 0;
  for (guint i = 0; i < whole->n_docs; i++)
    if (whole->doc_map[i] != G_MAXUINT32 && !covered[whole->doc_map[i]])
      {
        covered[whole->doc_map[i]] = TRUE;
        live += MAX (snapshot->entries[whole->doc_map[i]].n_windows, 0);
      }
  for (guint j = 0; j < snapshot->n_entries; j++)
    if (!covered[j])
      {
        g_array_append_val (docs, j);
        *out_windows += MAX (snapshot->entries[j].n_windows, 0);
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
  GThread *checking;
  gboolean main_now, ok = FALSE;

  if (!_sim_snapshot_index_peek (snapshot->store_path, KIND_INDEX, &main_header) || main_header.base != base)
    return FALSE;
  main_now = main_header.stamp == stamp;
  if (!main_now && !(_sim_snapshot_index_peek (snapshot->store_path, KIND_DELTA, &delta_header) &&
                     delta_header.base == main_header.key && delta_header.stamp == stamp))
    return FALSE;
  if (!_sim_snapshot_load_list (snapshot, main_now ? KIND_INDEX : KIND_DELTA, main_now ? &main_header : &delta_header,
                                &checking))
    return FALSE;
  if (_sim_snapshot_part_open (snapshot, KIND_INDEX, base, whole, &opened, main_now ? &counts : NULL) &&
      opened.key == main_header.key && opened.stamp == main_header.stamp)
    {
      snapshot->n_parts = 1;
      /* Statistics are written with every file of a store that has them. */
      if (main_now)
        ok = counts != NULL || df_docs == 0;
      else if (_sim_snapshot_part_open (snapshot, KIND_DELTA, main_header.key, delta, &opened, &counts) &&
               opened.stamp == stamp && (counts != NULL || df_docs == 0))
        {
          snapshot->n_parts = 2;
          ok = TRUE;
        }
    }
  /* The list's hash, checked while the parts were opened. */
  if (checking != NULL && !_sim_snapshot_list_checked (checking))
    ok = FALSE;
  if (ok)
    {
      snapshot->weights = sim_weights_new (counts, df_docs);
      return TRUE;
    }
  g_free (counts);
  _sim_snapshot_part_clear (whole);
  _sim_snapshot_part_clear (delta);
  snapshot->n_parts = 0;
  _sim_snapshot_clear_docs (snapshot);
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
  g_autoptr(SimCorpusSnapshot) snapshot = _sim_snapshot_new (sim_store_get_path (store), flags);
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

  _sim_snapshot_part_init (&sources[0]);
  _sim_snapshot_part_init (&sources[1]);

  if (!sim_store_load_df (store, SIM_DF_BUCKETS, NULL, &n_docs, error))
    return NULL;
  base = _sim_snapshot_index_base (store, flags);
  stamp = _sim_snapshot_index_stamp (store, base, n_docs);
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
  if (!sim_store_foreach_document (store, _sim_snapshot_add_document, &list, error))
    {
      XXH3_freeState (list.key);
      return NULL;
    }
  {
    const guint64 n = snapshot->n_entries;

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
  if (use_file && _sim_snapshot_part_open (snapshot, KIND_INDEX, base, &sources[0], &main_header, &main_counts))
    {
      g_autoptr(GBytes) whole_list = _sim_snapshot_read_list (snapshot->store_path, KIND_INDEX, &main_header);
      IndexHeader delta_header;
      guint64 windows, dead;
      g_autoptr(GArray) uncovered = NULL;

      n_sources = 1;
      if (_sim_snapshot_part_open (snapshot, KIND_DELTA, main_header.key, &sources[1], &delta_header, NULL))
        n_sources = 2;
      /* The documents the index file lacks, when few, in a delta. */
      uncovered = uncovered_documents (snapshot, &sources[0], &windows, &dead);
      /* A damaged list would be read in vain at every open: made again,
       * and nothing taken from a file that may be damaged. */
      if (whole_list == NULL)
        {
          _sim_snapshot_part_clear (&sources[0]);
          _sim_snapshot_part_clear (&sources[1]);
          n_sources = 0;
        }
      else if (windows <= MIN (sources[0].n_fps / DELTA_SHARE, DELTA_MAX) && dead <= sources[0].n_fps / DELTA_SHARE)
        {
          *whole = sources[0];
          _sim_snapshot_part_init (&sources[0]);
          if (!part_build (snapshot, store, delta, uncovered, sources + 1, n_sources - 1, fresh, TRUE, error))
            goto fail;
          _sim_snapshot_part_clear (&sources[1]);
          snapshot->n_parts = 2;
          if (_sim_snapshot_part_write (snapshot, delta, KIND_DELTA, key, main_header.key, stamp))
            {
              _sim_snapshot_part_use_file (snapshot, delta, KIND_DELTA, main_header.key);
              _sim_snapshot_use_list (snapshot, KIND_DELTA, key);
            }
          if (!part_finish (snapshot, delta, error))
            goto fail;
          return g_steal_pointer (&snapshot);
        }
    }

  /* Everything built again. */
  if (!part_build (snapshot, store, whole, NULL, sources, n_sources, fresh, use_file, error))
    goto fail;
  _sim_snapshot_part_clear (&sources[0]);
  _sim_snapshot_part_clear (&sources[1]);
  snapshot->n_parts = 1;
  if (use_file && _sim_snapshot_part_write (snapshot, whole, KIND_INDEX, key, base, stamp))
    {
      g_autofree char *stale = _sim_snapshot_index_path (snapshot->store_path, KIND_DELTA);

      g_unlink (stale);
      _sim_snapshot_part_use_file (snapshot, whole, KIND_INDEX, base);
      _sim_snapshot_use_list (snapshot, KIND_INDEX, key);
    }
  if (!part_finish (snapshot, whole, error))
    goto fail;
  return g_steal_pointer (&snapshot);

fail:
  _sim_snapshot_part_clear (&sources[0]);
  _sim_snapshot_part_clear (&sources[1]);
  return NULL;
}

