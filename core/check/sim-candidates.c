/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The first stage of a check: every window of the article (at every
 * position) is looked up in the band index, and the hits vote for source
 * regions per segment: a hit says "the segment, shifted by where the window
 * sits in it, lies here in that document".
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sim-parallel.h"
#include "sim-sort.h"
#include "sim-check-private.h"

#define MAX_CANDIDATES          16  /* source regions verified per segment */
/* Of them verified before the rest (_sim_refine_widen()): one more than a
 * report names, at least four. */
#define FIRST_ROUND_MIN         4
#define MIN_VOTE_SHARE          2   /* and each with at least 1/this of the best's votes */
#define MAX_DISTINCT_CANDIDATES 256
#define MAX_WINDOW_HITS         SIM_CORPUS_LOOKUP_MAX_HITS /* more hits than this: a boilerplate window, ignored */

void
_sim_check_report_progress (Check *check,
                            guint  amount)
{
  const gint before = g_atomic_int_add (&check->done, amount);

  if (check->progress != NULL && g_thread_self () == check->caller &&
      (before / 1024 != (before + (gint) amount) / 1024 || amount > 1024))
    check->progress (before + amount, check->total, NULL, check->progress_data);
}

static void
lookup_worker (gpointer data)
{
  Check *check = data;
  const guint n_chunks = check->chunk_hits->len;
  const guint CHUNK = check->lookup_size;

  for (;;)
    {
      const gint c = g_atomic_int_add (&check->next, 1);
      g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_autoptr(GArray) kept = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_autofree guint32 *docs = NULL, *starts = NULL, *ends = NULL;
      GError *error = NULL;
      GArray *hits;
      guint end;

      if (c >= (gint) n_chunks || g_cancellable_is_cancelled (check->cancellable) ||
          g_atomic_pointer_get (&check->error) != NULL)
        break;
      hits = g_ptr_array_index (check->chunk_hits, c);
      end = MIN ((c + 1) * CHUNK, check->n_keys);
      ends = g_new (guint32, end - c * CHUNK);
      if (!sim_corpus_snapshot_lookup (check->snapshot, check->keys + c * CHUNK, end - c * CHUNK,
                                       check->options->max_distance, ids, ends, &error))
        {
          if (!g_atomic_pointer_compare_and_exchange (&check->error, NULL, error))
            g_error_free (error);
          break;
        }
      /* A window found everywhere is boilerplate: it says nothing about
       * the source, and its hits are never kept (memory stays bounded by
       * MAX_WINDOW_HITS per distinct window). */
      for (guint k = c * CHUNK, j = 0; k < end; k++)
        {
          const guint32 n = ends[k - c * CHUNK] - j;

          if (n <= MAX_WINDOW_HITS)
            g_array_append_vals (kept, &g_array_index (ids, guint32, j), n);
          j += n;
        }
      docs = g_new (guint32, MAX (kept->len, 1));
      starts = g_new (guint32, MAX (kept->len, 1));
      sim_corpus_snapshot_get_places (check->snapshot, (const guint32 *) kept->data, kept->len, docs, starts);
      for (guint k = c * CHUNK, j = 0, h = 0; k < end; k++)
        {
          const guint32 n = ends[k - c * CHUNK] - j;

          if (n <= MAX_WINDOW_HITS)
            for (guint32 i = 0; i < n; i++, h++)
              {
                Hit hit = { k, docs[h], starts[h] };

                g_array_append_val (hits, hit);
              }
          j += n;
        }
      _sim_check_report_progress (check, end - c * CHUNK);
    }
}

int
_sim_candidates_compare (gconstpointer a,
                         gconstpointer b)
{
  const Candidate *x = a, *y = b;

  if (x->votes != y->votes)
    return x->votes > y->votes ? -1 : 1;
  if (x->doc != y->doc)
    return x->doc < y->doc ? -1 : 1;
  return x->start < y->start ? -1 : x->start > y->start;
}

gint64
_sim_candidates_slack (const SimSegment *seg)
{
  return MAX (12, (gint64) (seg->end - seg->start) / 3);
}

/* The candidates of one segment by document: each document's in the order
 * they were made, so a hit joins the first of them it falls near, as a
 * scan of all would find. */
#define DOC_SLOTS (2 * MAX_DISTINCT_CANDIDATES)

typedef struct {
  guint   doc[DOC_SLOTS];
  guint   first[DOC_SLOTS];                 /* candidate index + 1, 0: empty slot */
  guint   last[DOC_SLOTS];
  guint   next[MAX_DISTINCT_CANDIDATES];    /* the document's next candidate + 1, or 0 */
} DocChains;

static void
add_candidate (GArray    *cands,
               DocChains *chains,
               guint      doc,
               gint64     start,
               gint64     end,
               gint64     slack)
{
  guint slot = (guint) ((doc * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)) >> 32) % DOC_SLOTS;

  while (chains->first[slot] != 0 && chains->doc[slot] != doc)
    slot = (slot + 1) % DOC_SLOTS;
  for (guint i = chains->first[slot]; i != 0; i = chains->next[i - 1])
    {
      Candidate *c = &g_array_index (cands, Candidate, i - 1);

      if (start <= c->end + slack && end + slack >= c->start)
        {
          c->votes++;
          c->start = MIN (c->start, start);
          c->end = MAX (c->end, end);
          return;
        }
    }
  if (cands->len < MAX_DISTINCT_CANDIDATES)
    {
      Candidate c = { doc, start, end, 1 };

      g_array_append_val (cands, c);
      chains->next[cands->len - 1] = 0;
      if (chains->first[slot] == 0)
        {
          chains->doc[slot] = doc;
          chains->first[slot] = cands->len;
        }
      else
        chains->next[chains->last[slot] - 1] = cands->len;
      chains->last[slot] = cands->len;
    }
}

guint
_sim_candidates_first_window (Check            *check,
                              const SimSegment *seg)
{
  guint lo = 0, hi = check->windows->len;

  /* Windows are ordered by both ends. */
  while (lo < hi)
    {
      const guint mid = lo + (hi - lo) / 2;

      if (g_array_index (check->windows, SimAnchor, mid).unit_end <= seg->unit_start)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* At most MAX_CANDIDATES, none with under 1/MIN_VOTE_SHARE of the best's votes. */
void
_sim_candidates_for (Check            *check,
                     const SimSegment *seg,
                     GArray           *cands)
{
  const guint n_docs = sim_corpus_snapshot_get_n_docs (check->snapshot);
  const gint64 slack = _sim_candidates_slack (seg);
  g_autofree DocChains *chains = g_new (DocChains, 1);

  memset (chains->first, 0, sizeof chains->first);
  g_array_set_size (cands, 0);
  for (guint w = _sim_candidates_first_window (check, seg); w < check->windows->len; w++)
    {
      const SimAnchor *win = &g_array_index (check->windows, SimAnchor, w);
      const gint64 q_start = check->units->src_start[win->unit_start];

      const guint32 k = check->window_keys[w];

      if (win->unit_start >= seg->unit_end)
        break;
      for (guint h = check->first_hit[k]; h < check->first_hit[k + 1]; h++)
        {
          const Hit *hit = &g_array_index (check->hits, Hit, h);
          const gint64 start = (gint64) hit->start - (q_start - (gint64) seg->start);

          /* Places may come from the index file: a damaged one gives no hit. */
          if (hit->doc >= n_docs || hit->start > sim_corpus_snapshot_get_doc_n_chars (check->snapshot, hit->doc))
            continue;
          add_candidate (cands, chains, hit->doc, start, start + (seg->end - seg->start), slack);
        }
    }
  g_array_sort (cands, _sim_candidates_compare);
  if (cands->len > MAX_CANDIDATES)
    g_array_set_size (cands, MAX_CANDIDATES);
  /* A region with under half the votes of the segment's best shares under
   * half its windows: chance windows of near-duplicate documents, rarely
   * a better match. Not verifying them takes a third off a check against a
   * corpus of near-duplicates and lowered no score of either labelled set
   * (PAN 0.8885 -> 0.8895, eval-public's classes the same). A part of the segment another source explains
   * gets its own candidates when the segment is split around the first. */
  if (cands->len > 0)
    {
      const guint best = g_array_index (cands, Candidate, 0).votes;
      guint keep = 1;

      while (keep < cands->len && g_array_index (cands, Candidate, keep).votes * MIN_VOTE_SHARE >= best)
        keep++;
      g_array_set_size (cands, keep);
    }
}

static void
collect_hits (Check *check)
{
  check->hits = g_array_new (FALSE, FALSE, sizeof (Hit));
  check->first_hit = g_new0 (guint, check->n_keys + 1);
  for (guint c = 0; c < check->chunk_hits->len; c++)
    {
      GArray *chunk = g_ptr_array_index (check->chunk_hits, c);

      g_array_append_vals (check->hits, chunk->data, chunk->len);
    }
  for (guint i = 0; i < check->hits->len; i++)
    check->first_hit[g_array_index (check->hits, Hit, i).key + 1]++;
  for (guint k = 0; k < check->n_keys; k++)
    check->first_hit[k + 1] += check->first_hit[k];
}

#define COLLECT_CHUNK 32  /* segments per unit of candidate work */

static void
collect_worker (gpointer data)
{
  Check *check = data;
  const guint first_round = MAX (FIRST_ROUND_MIN, check->options->max_matches + 1);
  gint c;

  while ((c = g_atomic_int_add (&check->next, 1)) * COLLECT_CHUNK < (gint) check->segments->len)
    for (guint s = c * COLLECT_CHUNK; s < MIN ((c + 1) * COLLECT_CHUNK, check->segments->len); s++)
      {
        GArray *cands = g_ptr_array_index (check->seg_cands, s);
        GArray *more = g_ptr_array_index (check->seg_more, s);

        _sim_candidates_for (check, &g_array_index (check->segments, SimSegment, s), cands);
        if (cands->len > first_round)
          {
            g_array_append_vals (more, &g_array_index (cands, Candidate, first_round), cands->len - first_round);
            g_array_set_size (cands, first_round);
          }
      }
}

/* Finds every segment's candidates once: verification starts from the same
 * list, the first round's (those with most votes) first. */
static void
collect_candidates (Check *check)
{
  check->seg_cands = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  check->seg_more = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (guint s = 0; s < check->segments->len; s++)
    {
      g_ptr_array_add (check->seg_cands, g_array_new (FALSE, FALSE, sizeof (Candidate)));
      g_ptr_array_add (check->seg_more, g_array_new (FALSE, FALSE, sizeof (Candidate)));
    }
  check->next = 0;
  sim_parallel_run (MIN (check->options->n_threads, check->segments->len / COLLECT_CHUNK + 1), collect_worker, check);
}

/* The distinct SimHashes of the windows, and each window's among them:
 * the windows sorted by SimHash with their numbers (a qsort of the keys
 * and a binary search a window were a tenth of checking a 1 MB article,
 * on one thread). */
static void
collect_keys (Check *check)
{
  const guint n = check->windows->len;
  g_autofree SimKeyed *sorted = g_new (SimKeyed, MAX (n, 1));
  g_autofree SimKeyed *tmp = g_new (SimKeyed, MAX (n, 1));
  guint m = 0;

  check->keys = g_new (guint64, MAX (n, 1));
  check->window_keys = g_new (guint32, MAX (n, 1));
  for (guint w = 0; w < n; w++)
    sorted[w] = (SimKeyed) { g_array_index (check->windows, SimAnchor, w).simhash, w };
  sim_sort_keyed (sorted, tmp, n);
  for (guint i = 0; i < n; i++)
    {
      if (m == 0 || check->keys[m - 1] != sorted[i].key)
        check->keys[m++] = sorted[i].key;
      check->window_keys[sorted[i].value] = m - 1;
    }
  check->n_keys = m;
}

gboolean
_sim_candidates_lookup (Check   *check,
                        GError **error)
{
  guint n_chunks;

  collect_keys (check);
  check->lookup_size = sim_corpus_snapshot_get_lookup_size (check->snapshot);
  n_chunks = check->n_keys == 0 ? 0 : (check->n_keys - 1) / check->lookup_size + 1;
  check->total += check->n_keys;
  check->chunk_hits = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (guint c = 0; c < n_chunks; c++)
    g_ptr_array_add (check->chunk_hits, g_array_new (FALSE, FALSE, sizeof (Hit)));
  check->next = 0;
  sim_parallel_run (MIN (check->options->n_threads, MAX (n_chunks, 1)), lookup_worker, check);
  if (check->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&check->error));
      return FALSE;
    }
  return TRUE;
}

void
_sim_candidates_collect (Check *check)
{
  collect_hits (check);
  collect_candidates (check);
}
