/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fourth stage of a check: every segment verified against its
 * candidates (in parallel: first those with most of its windows, the rest
 * only when they hold no near copy), split around the part one source
 * explains, then its neighbours compared with the source text next to their
 * matches, and in window mode the verdicts projected onto windows.
 */
#include "config.h"

#include "sim-parallel.h"
#include "sim-check-private.h"

#define MIN_MATCH_SIMILARITY  0.25f
#define SEGMENT_CHUNK         16    /* segments per unit of verification work */
#define SPLIT_MIN_WEIGHT      12.0f /* smallest remainder worth its own segment */
#define MAX_SPLIT_DEPTH       6
#define SPLIT_MIN_EVIDENCE    30    /* a matched part this heavy may become its own segment */
/* What a sentence may hold outside the part its best source shares, with
 * that part still counted as all of it: a quarter of its weight (a word
 * replaced or moved), or 3 units in a short one. */
#define WHOLE_UNSHARED        0.25f
#define WHOLE_SLACK           3.0f
/* A segment whose first candidates hold a source this similar (or a part
 * one explains) is not verified against the rest: those have fewer of its
 * windows, and a copy found near word for word is not bettered by much. At
 * 1 GB of the growth corpus a check read 517 documents, now 235. */
#define SURE_SIMILARITY       0.9f
/* Of the rest, those that share this many of its windows: one window (16
 * letters or 4 CJK characters) in common with a segment is what chance
 * gives in a large corpus. At 1 GB, 15 segments of the growth article's
 * own text were verified against 147 more documents for nothing, 5
 * against 47 now; PAN and eval-public scores the same. */
#define WIDEN_MIN_VOTES       2

static float
units_weight (const SimUnits *units,
              guint32         from,
              guint32         to)
{
  float w = 0;

  for (guint32 u = from; u < to; u++)
    w += (units->flags[u] & SIM_UNIT_CJK) ? SIM_WEIGHT_CJK : SIM_WEIGHT_OTHER;
  return w;
}

/* Whether the part of @seg that @v matched is all of it, near enough. */
static gboolean
covers_all (Check            *check,
            const SimSegment *seg,
            const Verified   *v)
{
  const SimUnits *units = check->units;

  return units_weight (units, seg->unit_start, MAX (v->q_start, seg->unit_start)) +
         units_weight (units, MIN (v->q_end, seg->unit_end), seg->unit_end) <=
         MAX (WHOLE_SLACK, units_weight (units, seg->unit_start, seg->unit_end) * WHOLE_UNSHARED);
}

/* Whether the part of @seg that @v matched begins or ends with the segment
 * and is a whole sentence of its source: a copied sentence run into the
 * writer's own with the punctuation between them gone. */
static gboolean
is_sentence_run_on (Check            *check,
                    const SimSegment *seg,
                    const Verified   *v)
{
  const SimUnits *units = check->units;

  return (units_weight (units, seg->unit_start, v->q_start) < SPLIT_MIN_WEIGHT ||
          units_weight (units, v->q_end, seg->unit_end) < SPLIT_MIN_WEIGHT) &&
         _sim_source_cache_is_sentence (_sim_source_cache_get (check, v->doc), v->start, v->end);
}

SimLevel
_sim_refine_level (Check            *check,
                   const SimSegment *seg,
                   GArray           *results)
{
  const SimCheckOptions *o = check->options;
  const Verified *best;

  if (results->len == 0)
    return SIM_LEVEL_LOW;
  best = &g_array_index (results, Verified, 0);
  /* Two texts that only share a name ("International Union Against
   * Tuberculosis") share no copied text. */
  if (best->q_end > best->q_start && sim_units_is_name (check->units, best->q_start, best->q_end))
    return SIM_LEVEL_LOW;
  return sim_level_judge (best->similarity, units_weight (check->units, seg->unit_start, seg->unit_end),
                          best->total_evidence, best->sentence && covers_all (check, seg, best),
                          o->high_threshold, o->medium_threshold);
}

static void
add_piece (GArray           *pieces,
           const SimSegment *seg,
           GArray           *results)
{
  Piece piece = { *seg, results };

  g_array_append_val (pieces, piece);
}

/* Verifies a segment against its candidates. When one source explains a
 * clear part of the segment but not all of it (a copied sentence run into the
 * writer's own, punctuation edited away), the segment is split around that
 * part and the rest checked on its own, so highlights cover what was copied. */
static void
process_segment (Check            *check,
                 const SimSegment *seg,
                 GArray           *known,
                 guint             depth,
                 gboolean          sentence,
                 Scratch          *s,
                 GArray           *pieces)
{
  GArray *results = g_array_new (FALSE, FALSE, sizeof (Verified));
  g_autoptr(GArray) cands = NULL;
  const Verified *explain = NULL;
  gboolean run_on = FALSE;
  const float medium = check->options->medium_threshold;

  if (known != NULL)
    cands = g_array_ref (known);
  else
    {
      _sim_candidates_for (check, seg, s->cands);
      cands = g_array_copy (s->cands);
    }
  _sim_verify_load (check, seg, s);
  for (guint i = 0; i < cands->len; i++)
    {
      const Candidate *c = &g_array_index (cands, Candidate, i);
      const gint64 slack = _sim_candidates_slack (seg);
      Verified v;

      if (!_sim_verify (check, seg, s, c->doc, c->start - slack, c->end + slack, &v))
        continue;
      v.sentence = sentence;
      if (v.similarity < MIN_MATCH_SIMILARITY && v.run_containment < medium)
        continue;
      g_array_append_val (results, v);
      if (check->options->fast && v.similarity >= medium)
        break;
    }
  g_array_sort (results, _sim_verified_compare);

  for (guint i = 0; i < results->len; i++)
    {
      const Verified *v = &g_array_index (results, Verified, i);

      if (v->run_containment >= medium && (explain == NULL || v->matched > explain->matched))
        {
          if (v->evidence >= SPLIT_MIN_EVIDENCE)
            explain = v, run_on = FALSE;
          else if (v->evidence >= SIM_LEVEL_MIN_EVIDENCE && is_sentence_run_on (check, seg, v))
            explain = v, run_on = TRUE;
        }
    }

  if (explain != NULL && depth < MAX_SPLIT_DEPTH)
    {
      const SimUnits *units = check->units;
      guint32 qa = explain->q_start, qb = explain->q_end;
      const float left = units_weight (units, seg->unit_start, qa);
      const float right = units_weight (units, qb, seg->unit_end);

      if (left < SPLIT_MIN_WEIGHT)
        qa = seg->unit_start;
      if (right < SPLIT_MIN_WEIGHT)
        qb = seg->unit_end;
      if (qa > seg->unit_start || qb < seg->unit_end)
        {
          SimSegment part;

          g_array_unref (results);
          if (qa > seg->unit_start)
            {
              part.start = seg->start;
              part.end = sim_units_get_end (units, qa - 1);
              part.unit_start = seg->unit_start;
              part.unit_end = qa;
              process_segment (check, &part, NULL, depth + 1, FALSE, s, pieces);
            }
          part.start = qa > seg->unit_start ? units->src_start[qa] : seg->start;
          part.end = qb < seg->unit_end ? sim_units_get_end (units, qb - 1) : seg->end;
          part.unit_start = qa;
          part.unit_end = qb;
          process_segment (check, &part, NULL, MAX_SPLIT_DEPTH, run_on, s, pieces);
          if (qb < seg->unit_end)
            {
              part.start = units->src_start[qb];
              part.end = seg->end;
              part.unit_start = qb;
              part.unit_end = seg->unit_end;
              process_segment (check, &part, NULL, depth + 1, FALSE, s, pieces);
            }
          return;
        }
    }
  add_piece (pieces, seg, results);
}

static GMutex deferred_lock;

/* The deferred segments in article order, however the workers met them. */
static int
compare_indices (gconstpointer a,
                 gconstpointer b)
{
  const guint x = *(const guint *) a, y = *(const guint *) b;

  return x < y ? -1 : x > y;
}

static void
verify_worker (gpointer data)
{
  Check *check = data;
  Scratch s;

  _sim_scratch_init (&s);
  for (;;)
    {
      const gint c = g_atomic_int_add (&check->next, 1);
      guint end;

      if (c * SEGMENT_CHUNK >= (gint) check->segments->len ||
          g_cancellable_is_cancelled (check->cancellable))
        break;
      end = MIN ((c + 1) * SEGMENT_CHUNK, check->segments->len);
      for (guint i = c * SEGMENT_CHUNK; i < end; i++)
        {
          s.deferred = FALSE;
          process_segment (check, &g_array_index (check->segments, SimSegment, i),
                           g_ptr_array_index (check->seg_cands, i), 0, TRUE, &s,
                           g_ptr_array_index (check->pieces, i));
          if (s.deferred)
            {
              g_mutex_lock (&deferred_lock);
              g_array_append_val (check->deferred, i);
              g_mutex_unlock (&deferred_lock);
            }
        }
      if (check->preview != NULL)
        {
          g_autoptr(GArray) previews = g_array_new (FALSE, FALSE, sizeof (SimCheckPreview));

          for (guint i = c * SEGMENT_CHUNK; i < end; i++)
            {
              GArray *pieces = g_ptr_array_index (check->pieces, i);

              for (guint j = 0; j < pieces->len; j++)
                {
                  const Piece *piece = &g_array_index (pieces, Piece, j);
                  SimCheckPreview p = { piece->seg.start, piece->seg.end,
                                        _sim_refine_level (check, &piece->seg, piece->results) };

                  if (p.level != SIM_LEVEL_LOW)
                    g_array_append_val (previews, p);
                }
            }
          if (previews->len > 0)
            check->preview ((const SimCheckPreview *) previews->data, previews->len, check->preview_data);
        }
      _sim_check_report_progress (check, end - c * SEGMENT_CHUNK);
    }
  _sim_scratch_clear (&s);
}

/* Replaces the segments with the pieces verification made of them. */
static void
flatten_pieces (Check *check)
{
  GArray *segments = g_array_new (FALSE, FALSE, sizeof (SimSegment));

  check->results = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (guint i = 0; i < check->pieces->len; i++)
    {
      GArray *pieces = g_ptr_array_index (check->pieces, i);

      for (guint j = 0; j < pieces->len; j++)
        {
          Piece *piece = &g_array_index (pieces, Piece, j);

          g_array_append_val (segments, piece->seg);
          g_ptr_array_add (check->results, g_steal_pointer (&piece->results));
        }
    }
  g_array_unref (check->segments);
  check->segments = segments;
}

static gboolean
is_confirmed (Check  *check,
              GArray *results)
{
  return results->len > 0 &&
         g_array_index (results, Verified, 0).similarity >= check->options->medium_threshold;
}

/* Copies rarely stop at a sentence boundary: a segment next to a confirmed
 * match is compared with the source text right next to that match. */
static void
extend_neighbours (Check   *check,
                   Scratch *s)
{
  for (gint pass = 0; pass < 2; pass++)
    {
      const gint n = check->segments->len;

      for (gint k = 0; k < n; k++)
        {
          const gint i = pass == 0 ? k : n - 1 - k;
          const gint j = pass == 0 ? i - 1 : i + 1;
          const SimSegment *seg = &g_array_index (check->segments, SimSegment, i);
          GArray *results = g_ptr_array_index (check->results, i);
          const SimSegment *nseg;
          GArray *nresults;
          const Verified *nbest;
          gint64 start, end;
          Verified v;

          if (j < 0 || j >= n || is_confirmed (check, results))
            continue;
          nseg = &g_array_index (check->segments, SimSegment, j);
          nresults = g_ptr_array_index (check->results, j);
          if (!is_confirmed (check, nresults))
            continue;
          nbest = &g_array_index (nresults, Verified, 0);
          if (pass == 0)
            {
              start = (gint64) nbest->end + ((gint64) seg->start - nseg->end);
              end = start + (seg->end - seg->start);
            }
          else
            {
              end = (gint64) nbest->start - ((gint64) nseg->start - seg->end);
              start = end - (seg->end - seg->start);
            }
          _sim_verify_load (check, seg, s);
          if (!_sim_verify (check, seg, s, nbest->doc, start - _sim_candidates_slack (seg), end + _sim_candidates_slack (seg), &v))
            continue;
          if (v.similarity < check->options->medium_threshold)
            continue;
          g_array_prepend_val (results, v);
          g_array_sort (results, _sim_verified_compare);
        }
    }
}

/* Window mode: the article is cut into windows of N characters, and each
 * window takes the verdict of the matched piece covering most of it, its
 * source span cut in proportion. Windows never line up with copies; deciding
 * on sentences and pieces first means a copy is found however they fall, and
 * a 13-character window of English is not judged on two words alone. */
void
_sim_refine_project_to_windows (Check *check)
{
  GArray *windows = g_array_new (FALSE, FALSE, sizeof (SimSegment));
  GPtrArray *results = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  guint first = 0;

  sim_segment_split (check->text, check->len, check->units, SIM_SEGMENT_WINDOW,
                     check->options->window, windows);
  for (guint w = 0; w < windows->len; w++)
    {
      const SimSegment *win = &g_array_index (windows, SimSegment, w);
      GArray *out = g_array_new (FALSE, FALSE, sizeof (Verified));
      gint best = -1;
      guint32 best_overlap = 0;

      while (first < check->segments->len && g_array_index (check->segments, SimSegment, first).end <= win->start)
        first++;
      for (guint i = first; i < check->segments->len; i++)
        {
          const SimSegment *seg = &g_array_index (check->segments, SimSegment, i);
          const guint32 lo = MAX (seg->start, win->start), hi = MIN (seg->end, win->end);

          if (seg->start >= win->end)
            break;
          if (hi > lo && hi - lo > best_overlap)
            {
              best_overlap = hi - lo;
              best = i;
            }
        }
      if (best >= 0)
        {
          const SimSegment *seg = &g_array_index (check->segments, SimSegment, best);
          GArray *from = g_ptr_array_index (check->results, best);
          const double len = MAX (seg->end - seg->start, 1);
          const double a = CLAMP ((double) ((gint64) win->start - seg->start) / len, 0.0, 1.0);
          const double b = CLAMP ((double) ((gint64) win->end - seg->start) / len, 0.0, 1.0);

          for (guint j = 0; j < from->len; j++)
            {
              Verified v = g_array_index (from, Verified, j);
              const double span = v.end - v.start;

              v.end = v.start + (guint32) (b * span + 0.5);
              v.start = v.start + (guint32) (a * span);
              v.end = MAX (v.end, v.start + 1);
              g_array_append_val (out, v);
            }
        }
      g_ptr_array_add (results, out);
    }
  g_array_unref (check->segments);
  check->segments = windows;
  g_ptr_array_unref (check->results);
  check->results = results;
}

static void
clear_pieces (GArray *pieces)
{
  for (guint i = 0; i < pieces->len; i++)
    g_clear_pointer (&g_array_index (pieces, Piece, i).results, g_array_unref);
  g_array_set_size (pieces, 0);
}

static void
free_pieces (GArray *pieces)
{
  clear_pieces (pieces);
  g_array_unref (pieces);
}

void
_sim_refine_verify (Check *check)
{
  check->pieces = g_ptr_array_new_with_free_func ((GDestroyNotify) free_pieces);
  for (guint i = 0; i < check->segments->len; i++)
    g_ptr_array_add (check->pieces, g_array_new (FALSE, FALSE, sizeof (Piece)));
  check->next = 0;
  check->deferring = sim_corpus_snapshot_is_remote (check->snapshot);
  check->deferred = g_array_new (FALSE, FALSE, sizeof (guint));
  sim_parallel_run (MIN (check->options->n_threads, check->segments->len / SEGMENT_CHUNK + 1),
                    verify_worker, check);
  check->deferring = FALSE;
  g_array_sort (check->deferred, compare_indices);
}

gboolean
_sim_refine_deferred (Check *check)
{
  return check->deferred != NULL && check->deferred->len > 0;
}

/* Verifies the segments @check->redo names again, from the start, on
 * n_threads. */
static void
redo_worker (gpointer data)
{
  Check *check = data;
  Scratch s;
  gint k;

  _sim_scratch_init (&s);
  while ((k = g_atomic_int_add (&check->next, 1)) < (gint) check->redo->len &&
         !g_cancellable_is_cancelled (check->cancellable))
    {
      const guint i = g_array_index (check->redo, guint, k);
      GArray *pieces = g_ptr_array_index (check->pieces, i);

      clear_pieces (pieces);
      s.deferred = FALSE;
      process_segment (check, &g_array_index (check->segments, SimSegment, i),
                       g_ptr_array_index (check->seg_cands, i), 0, TRUE, &s, pieces);
      if (s.deferred)
        {
          g_mutex_lock (&deferred_lock);
          g_array_append_val (check->deferred, i);
          g_mutex_unlock (&deferred_lock);
        }
    }
  _sim_scratch_clear (&s);
}

/* Verifies @segments again, deferring (check->deferred) what is not at
 * hand when @defer. */
static void
redo (Check    *check,
      GArray   *segments,
      gboolean  defer)
{
  g_autoptr(GArray) again = g_array_copy (segments);

  check->next = 0;
  check->redo = again;
  g_array_set_size (check->deferred, 0);
  check->deferring = defer && sim_corpus_snapshot_is_remote (check->snapshot);
  if (again->len > 0)
    sim_parallel_run (MIN (check->options->n_threads, again->len), redo_worker, check);
  check->deferring = FALSE;
  check->redo = NULL;
  g_array_sort (check->deferred, compare_indices);
}

void
_sim_refine_redo (Check *check)
{
  redo (check, check->deferred, FALSE);
}

/* Whether @pieces hold a near copy: one piece, a source at SURE_SIMILARITY. */
static gboolean
is_sure (GArray *pieces)
{
  const Piece *piece = pieces->len > 0 ? &g_array_index (pieces, Piece, 0) : NULL;

  return pieces->len == 1 && piece->results->len > 0 &&
         g_array_index (piece->results, Verified, 0).similarity >= SURE_SIMILARITY;
}

gboolean
_sim_refine_widen (Check *check)
{
  g_autofree gboolean *deferred = g_new0 (gboolean, check->segments->len + 1);

  for (guint k = 0; k < check->deferred->len; k++)
    deferred[g_array_index (check->deferred, guint, k)] = TRUE;
  check->widened = g_array_new (FALSE, FALSE, sizeof (guint));
  check->first_round = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint i = 0; i < check->segments->len; i++)
    {
      GArray *more = g_ptr_array_index (check->seg_more, i);
      GArray *cands = g_ptr_array_index (check->seg_cands, i);
      const guint before = cands->len;

      /* A deferred segment's verdict is not known yet: its rest is read
       * with the rest, and kept or not once it is (_sim_refine_settle()). */
      if (deferred[i])
        g_array_append_val (check->first_round, before);
      else if (is_sure (g_ptr_array_index (check->pieces, i)))
        continue;
      for (guint k = 0; k < more->len; k++)
        if (g_array_index (more, Candidate, k).votes >= WIDEN_MIN_VOTES)
          g_array_append_val (cands, g_array_index (more, Candidate, k));
      if (cands->len > before)
        g_array_append_val (check->widened, i);
    }
  return check->widened->len > 0 || check->deferred->len > 0;
}

void
_sim_refine_settle (Check *check)
{
  g_autoptr(GPtrArray) tails = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  g_autoptr(GArray) deferred = g_array_copy (check->deferred);
  g_autofree gboolean *unwidened = g_new0 (gboolean, check->segments->len + 1);
  guint kept = 0;

  if (deferred->len == 0)
    return;
  /* Verified again against their first round alone (first_round holds
   * their counts in the same order, the article's)... */
  for (guint k = 0; k < deferred->len; k++)
    {
      GArray *cands = g_ptr_array_index (check->seg_cands, g_array_index (deferred, guint, k));
      const guint first = g_array_index (check->first_round, guint, k);
      GArray *tail = g_array_sized_new (FALSE, FALSE, sizeof (Candidate), cands->len - first);

      g_array_append_vals (tail, &g_array_index (cands, Candidate, first), cands->len - first);
      g_array_set_size (cands, first);
      g_ptr_array_add (tails, tail);
    }
  redo (check, deferred, FALSE);
  /* ...and widened as any other segment: not when that found a near copy. */
  for (guint k = 0; k < deferred->len; k++)
    {
      const guint i = g_array_index (deferred, guint, k);
      GArray *tail = g_ptr_array_index (tails, k);

      if (is_sure (g_ptr_array_index (check->pieces, i)))
        unwidened[i] = TRUE;
      else
        g_array_append_vals (g_ptr_array_index (check->seg_cands, i), tail->data, tail->len);
    }
  for (guint k = 0; k < check->widened->len; k++)
    if (!unwidened[g_array_index (check->widened, guint, k)])
      g_array_index (check->widened, guint, kept++) = g_array_index (check->widened, guint, k);
  g_array_set_size (check->widened, kept);
}

void
_sim_refine_verify_widened (Check *check)
{
  redo (check, check->widened, TRUE);
}

void
_sim_refine_finish (Check *check)
{
  if (!g_cancellable_is_cancelled (check->cancellable))
    flatten_pieces (check);
}

void
_sim_refine_extend_neighbours (Check *check)
{
  Scratch s;

  _sim_scratch_init (&s);
  extend_neighbours (check, &s);
  _sim_scratch_clear (&s);
}
