/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The third stage of a check: one segment against one proposed source
 * region. The similarity is IDF-weighted shingle containment (the share of
 * the segment's features found in the region); the matched source span
 * follows the copy's diagonal; the matched part of the segment is its
 * heaviest run of shared features; the SimHash distance of the two spans is
 * reported beside it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sim-check-private.h"

#define QUERY_GAP_WEIGHT 24   /* this much text without a shared feature ends a matched run */

typedef struct {
  guint64 hash;
  float   weight;
  guint32 pos;     /* unit index of one occurrence in the article */
} QFeature;

typedef struct {
  guint32 pos;     /* unit index in the source */
  gint32  diag;    /* source position minus article position */
} Aligned;

typedef struct {
  guint64 hash;
  guint32 pos;
  float   weight;
  guint   script_weight;
  guint   q;       /* its distinct feature */
} QOccurrence;

static int
compare_qfeatures (gconstpointer a,
                   gconstpointer b)
{
  const guint64 x = ((const QFeature *) a)->hash, y = ((const QFeature *) b)->hash;

  return x < y ? -1 : x > y;
}


void
_sim_scratch_init (Scratch *s)
{
  s->q = g_array_new (FALSE, FALSE, sizeof (QFeature));
  s->qocc = g_array_new (FALSE, FALSE, sizeof (QOccurrence));
  s->slots = g_array_new (FALSE, FALSE, sizeof (guint32));
  s->stamps = g_array_new (FALSE, FALSE, sizeof (guint32));
  s->raw = g_array_new (FALSE, FALSE, sizeof (guint64));
  s->diags = g_array_new (FALSE, FALSE, sizeof (gint32));
  s->positions = g_array_new (FALSE, FALSE, sizeof (Aligned));
  s->cands = g_array_new (FALSE, FALSE, sizeof (Candidate));
  memset (&s->region, 0, sizeof s->region);
  s->deferred = FALSE;
}

void
_sim_scratch_clear (Scratch *s)
{
  g_array_unref (s->q);
  g_array_unref (s->qocc);
  g_array_unref (s->slots);
  g_array_unref (s->stamps);
  g_array_unref (s->raw);
  g_array_unref (s->diags);
  g_array_unref (s->positions);
  g_array_unref (s->cands);
  _sim_source_region_clear (&s->region);
}

#define SLOT_MULTIPLIER G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)

/* The index of @hash among the loaded segment's distinct features, or -1. */
static inline gint
q_find (const Scratch *s,
        guint64        hash)
{
  const guint32 *slots = (const guint32 *) s->slots->data;
  const gsize mask = s->slots->len - 1;

  for (gsize j = (hash * SLOT_MULTIPLIER) >> s->slot_shift; slots[j] != 0; j = (j + 1) & mask)
    if (g_array_index (s->q, QFeature, slots[j] - 1).hash == hash)
      return slots[j] - 1;
  return -1;
}

static int
compare_i32 (gconstpointer a,
             gconstpointer b)
{
  const gint32 x = *(const gint32 *) a, y = *(const gint32 *) b;

  return x < y ? -1 : x > y;
}

/* The @k-th smallest of @v[0, n) (a quickselect: @v is reordered). Past
 * 64 rounds (an order that defeats the middle pivot) what is left is
 * sorted instead, so the time stays n log n on any input. */
static gint32
select_kth (gint32 *v,
            gint    n,
            gint    k)
{
  gint lo = 0, hi = n - 1;

  for (guint round = 0; lo < hi; round++)
    {
      const gint32 pivot = v[lo + (hi - lo) / 2];
      gint i = lo, j = hi;

      if (round == 64)
        {
          qsort (v + lo, hi - lo + 1, sizeof *v, compare_i32);
          break;
        }
      while (i <= j)
        {
          while (v[i] < pivot)
            i++;
          while (v[j] > pivot)
            j--;
          if (i <= j)
            {
              const gint32 x = v[i];

              v[i++] = v[j];
              v[j--] = x;
            }
        }
      /* [lo, j] <= pivot <= [i, hi], and what lies between equals it. */
      if (k <= j)
        hi = j;
      else if (k >= i)
        lo = i;
      else
        return v[k];
    }
  return v[k];
}

/* The segment's features: distinct ones with their weights, and every
 * occurrence in order. */
void
_sim_verify_load (Check            *check,
                  const SimSegment *seg,
                  Scratch          *s)
{
  const SimUnits *units = check->units;
  guint m = 0;

  g_array_set_size (s->raw, 0);
  g_array_set_size (s->qocc, 0);
  for (guint32 i = seg->unit_start; i < seg->unit_end; i++)
    if (check->features[i] != 0 && i + 1 >= seg->unit_start + sim_fingerprint_shingle (units, i))
      {
        QOccurrence o = { check->features[i], i, sim_weights_get (check->weights, check->features[i]),
                          (units->flags[i] & SIM_UNIT_CJK) ? SIM_WEIGHT_CJK : SIM_WEIGHT_OTHER };

        g_array_append_val (s->raw, o.hash);
        g_array_append_val (s->qocc, o);
      }
  s->q_simhash = sim_fingerprint_simhash ((const guint64 *) s->raw->data, s->raw->len, check->weights);
  g_array_set_size (s->q, s->qocc->len);
  for (guint i = 0; i < s->qocc->len; i++)
    {
      const QOccurrence *o = &g_array_index (s->qocc, QOccurrence, i);
      QFeature *qf = &g_array_index (s->q, QFeature, i);

      qf->hash = o->hash;
      qf->weight = o->weight;
      qf->pos = o->pos;
    }
  g_array_sort (s->q, compare_qfeatures);
  s->q_weight = 0;
  for (guint i = 0; i < s->q->len; i++)
    {
      const QFeature qf = g_array_index (s->q, QFeature, i);

      if (m > 0 && g_array_index (s->q, QFeature, m - 1).hash == qf.hash)
        continue;
      s->q_weight += qf.weight;
      g_array_index (s->q, QFeature, m++) = qf;
    }
  g_array_set_size (s->q, m);
  /* A table of the distinct features, at most half full. */
  for (s->slot_shift = 60; (G_GUINT64_CONSTANT (1) << (64 - s->slot_shift)) < 2 * m; s->slot_shift--)
    ;
  g_array_set_size (s->slots, (gsize) 1 << (64 - s->slot_shift));
  memset (s->slots->data, 0, s->slots->len * sizeof (guint32));
  for (guint i = 0; i < m; i++)
    {
      guint32 *slots = (guint32 *) s->slots->data;
      gsize j = (g_array_index (s->q, QFeature, i).hash * SLOT_MULTIPLIER) >> s->slot_shift;

      while (slots[j] != 0)
        j = (j + 1) & (s->slots->len - 1);
      slots[j] = i + 1;
    }
  for (guint i = 0; i < s->qocc->len; i++)
    g_array_index (s->qocc, QOccurrence, i).q = q_find (s, g_array_index (s->qocc, QOccurrence, i).hash);
  g_array_set_size (s->stamps, m);
  if (m > 0)  /* a featureless segment: an empty array has no data */
    memset (s->stamps->data, 0, m * sizeof (guint32));
  s->stamp = 0;
}

/* The matched part of the segment: the run of its features with most weight
 * found in the source (those stamped), with gaps of at most QUERY_GAP units. */
static void
segment_run (Check            *check,
             const SimSegment *seg,
             Scratch          *s,
             Verified         *out)
{
  float run_matched = 0, best_matched = -1;
  guint run_evidence = 0, best_evidence = 0, total_evidence = 0;
  guint32 run_first = 0, run_last = 0, q_first = 0, q_last = 0;
  gboolean in_run = FALSE;

  for (guint i = 0; i <= s->qocc->len; i++)
    {
      const QOccurrence *o = i < s->qocc->len ? &g_array_index (s->qocc, QOccurrence, i) : NULL;
      const gboolean hit = o != NULL && g_array_index (s->stamps, guint32, o->q) == s->stamp;

      if (o != NULL && hit)
        total_evidence += o->script_weight;
      if (in_run && (o == NULL || (o->pos - run_last) * o->script_weight > QUERY_GAP_WEIGHT))
        {
          if (run_matched > best_matched)
            {
              best_matched = run_matched;
              best_evidence = run_evidence;
              q_first = run_first;
              q_last = run_last;
            }
          in_run = FALSE;
        }
      if (o == NULL)
        break;
      if (hit)
        {
          if (!in_run)
            {
              in_run = TRUE;
              run_first = o->pos;
              run_matched = 0;
              run_evidence = 0;
            }
          run_evidence += o->script_weight;
          run_matched += o->weight;
          run_last = o->pos;
        }
    }
  out->q_start = q_first + 1 - MIN (q_first + 1 - seg->unit_start, sim_fingerprint_shingle (check->units, q_first));
  out->q_end = q_last + 1;
  out->matched = MAX (best_matched, 0);
  out->evidence = best_evidence;
  out->total_evidence = total_evidence;
  {
    float inside = 0;

    for (guint i = 0; i < s->qocc->len; i++)
      {
        const QOccurrence *o = &g_array_index (s->qocc, QOccurrence, i);

        if (o->pos >= q_first && o->pos <= q_last)
          inside += o->weight;
      }
    out->run_containment = inside > 0 ? out->matched / inside : 0;
  }
}

gboolean
_sim_verify_shares_keys (Check            *check,
                         const SimSegment *seg,
                         guint             doc,
                         gint64            lo,
                         gint64            hi)
{
  if (check->hits == NULL)
    return FALSE;
  for (guint w = _sim_candidates_first_window (check, seg); w < check->windows->len; w++)
    {
      const SimAnchor *win = &g_array_index (check->windows, SimAnchor, w);
      const guint32 k = check->window_keys[w];

      if (win->unit_end > seg->unit_end)
        break;
      if (win->unit_start < seg->unit_start)
        continue;
      for (guint h = check->first_hit[k]; h < check->first_hit[k + 1]; h++)
        {
          const Hit *hit = &g_array_index (check->hits, Hit, h);

          if (hit->doc == doc && hit->start >= lo && hit->start < hi)
            return TRUE;
        }
    }
  return FALSE;
}

/* _sim_verify() against a document whose text the account may not read
 * (SimCorpusDoc.text_withheld): a feature of the segment counts as found
 * where a window over it has a stored twin in the region, so the share
 * found estimates the containment from the keys both share. An edited
 * word leaves no twin for the windows over it: a gap between twins
 * narrower than a window, on about the same diagonal, counts as found
 * too, and so does the stretch between the segment's edge and a twin
 * less than a window from it (the windows across a sentence's edge hold
 * the neighbour's words, which differ). The source span is where the
 * twins are; no distance is known. */
typedef struct {
  guint32 ua, ub;    /* units of the segment the twin window covers */
  gint64  diag;      /* its place in the source less its place in the article, code points */
  guint32 width;     /* the window's units */
} Covered;

static gboolean
verify_by_keys (Check            *check,
                const SimSegment *seg,
                Scratch          *s,
                guint             doc,
                gint64            start,
                gint64            end,
                Verified         *out)
{
  const SimUnits *units = check->units;
  g_autoptr(GArray) covered = g_array_new (FALSE, FALSE, sizeof (Covered));
  gint64 span_first = G_MAXINT64, span_last = -1;
  float matched = 0;
  guint o = 0;

  if (check->hits == NULL || s->q_weight <= 0)
    return FALSE;
  for (guint w = _sim_candidates_first_window (check, seg); w < check->windows->len; w++)
    {
      const SimAnchor *win = &g_array_index (check->windows, SimAnchor, w);
      const guint32 k = check->window_keys[w];
      const gint64 q_start = units->src_start[win->unit_start];
      Covered c = { MAX (win->unit_start, seg->unit_start), MIN (win->unit_end, seg->unit_end), 0,
                    win->unit_end - win->unit_start };
      gboolean twin = FALSE;

      if (win->unit_start >= seg->unit_end)
        break;
      for (guint h = check->first_hit[k]; h < check->first_hit[k + 1]; h++)
        {
          const Hit *hit = &g_array_index (check->hits, Hit, h);

          if (hit->doc == doc && hit->start >= start && hit->start < end)
            {
              span_first = MIN (span_first, hit->start + (units->src_start[c.ua] - q_start));
              span_last = MAX (span_last, hit->start + (sim_units_get_end (units, c.ub - 1) - q_start));
              c.diag = (gint64) hit->start - q_start;
              twin = TRUE;
            }
        }
      if (twin)
        g_array_append_val (covered, c);
    }
  if (covered->len == 0)
    return FALSE;

  /* Bridge narrow gaps between twins on about one diagonal, and reach the
   * edges near them. */
  {
    Covered *c = (Covered *) covered->data;
    guint n = 0;

    for (guint i = 1; i < covered->len; i++)
      {
        const gint64 gap = (gint64) c[i].ua - c[n].ub;
        const gint64 shift = ABS (c[i].diag - c[n].diag);

        if (gap < (gint64) MIN (c[i].width, c[n].width) &&
            shift <= MAX (8, units->src_start[c[i].ua] - units->src_start[MIN (c[n].ub, c[i].ua)]))
          c[n].ub = MAX (c[n].ub, c[i].ub);
        else
          c[++n] = c[i];
      }
    g_array_set_size (covered, n + 1);
    if (c[0].ua - seg->unit_start < c[0].width)
      c[0].ua = seg->unit_start;
    if (seg->unit_end - c[n].ub < c[n].width)
      c[n].ub = seg->unit_end;
  }

  if (++s->stamp == 0)
    {
      memset (s->stamps->data, 0, s->stamps->len * sizeof (guint32));
      s->stamp = 1;
    }
  for (guint i = 0; i < covered->len; i++)
    {
      const Covered *c = &g_array_index (covered, Covered, i);

      while (o < s->qocc->len && g_array_index (s->qocc, QOccurrence, o).pos < c->ua)
        o++;
      for (; o < s->qocc->len && g_array_index (s->qocc, QOccurrence, o).pos < c->ub; o++)
        {
          const guint q = g_array_index (s->qocc, QOccurrence, o).q;

          if (g_array_index (s->stamps, guint32, q) != s->stamp)
            {
              g_array_index (s->stamps, guint32, q) = s->stamp;
              matched += g_array_index (s->q, QFeature, q).weight;
            }
        }
    }
  if (matched <= 0)
    return FALSE;
  segment_run (check, seg, s, out);
  out->doc = doc;
  out->sentence = FALSE;
  out->similarity = MIN (1.0f, matched / s->q_weight);
  out->distance = NO_DISTANCE;
  out->start = (guint32) CLAMP (span_first, 0, G_MAXUINT32);
  out->end = (guint32) CLAMP (span_last, out->start + 1, G_MAXUINT32);
  return TRUE;
}

/* Compares the loaded segment features with a source region: the share of
 * the segment found there, the matched part of the source, and the matched
 * part of the segment (the densest run of shared features on either side). */
gboolean
_sim_verify (Check            *check,
             const SimSegment *seg,
             Scratch          *s,
             guint             doc,
             gint64            start,
             gint64            end,
             Verified         *out)
{
  DocCache *cache = _sim_source_cache_get (check, doc);
  const SimUnits *du;
  const guint64 *features;
  gsize ua, ub;
  float matched = 0;
  guint best_lo = 0, best_hi = 0, best_count = 0, run_lo = 0;
  guint32 gap;
  guint32 span_first, span_last;
  guint n_region = 0;

  if (doc < sim_corpus_snapshot_get_n_docs (check->snapshot) &&
      sim_corpus_snapshot_get_doc_withheld (check->snapshot, doc))
    return verify_by_keys (check, seg, s, doc, MAX (start, 0), end, out);
  if (cache == NULL || !cache->loaded || s->q_weight <= 0)
    return FALSE;
  start = MAX (start, 0);
  if (end <= start)
    return FALSE;
  if (check->deferring && !_sim_source_cache_at_hand (cache, start, end))
    {
      _sim_source_cache_want_region (check, doc, start, end);
      s->deferred = TRUE;
      return FALSE;
    }
  if (!_sim_source_cache_region (check, cache, start, end, &s->region))
    return FALSE;
  du = s->region.units;
  features = s->region.features;
  ua = sim_units_find (du, start);
  ub = sim_units_find (du, end);
  if (ub <= ua)
    return FALSE;

  /* The region's features found in the segment, in the region's order. */
  if (++s->stamp == 0)
    {
      memset (s->stamps->data, 0, s->stamps->len * sizeof (guint32));
      s->stamp = 1;
    }
  g_array_set_size (s->positions, 0);
  for (gsize i = ua; i < ub; i++)
    if (features[i] != 0 && i + 1 >= ua + sim_fingerprint_shingle (du, i))
      {
        const gint q = q_find (s, features[i]);
        Aligned a;

        n_region++;
        if (q < 0)
          continue;
        g_array_index (s->stamps, guint32, q) = s->stamp;
        a.pos = i;
        a.diag = (gint32) i - (gint32) g_array_index (s->q, QFeature, q).pos;
        g_array_append_val (s->positions, a);
      }
  if (n_region == 0 || s->positions->len == 0)
    return FALSE;
  /* Containment: weight of the segment's distinct features found in the
   * region (added in the order of their hashes). */
  for (guint q = 0; q < s->q->len; q++)
    if (g_array_index (s->stamps, guint32, q) == s->stamp)
      matched += g_array_index (s->q, QFeature, q).weight;

  /* The matched part of the source: shared features on the copy's diagonal
   * (chance matches elsewhere in the region have other offsets), then the
   * densest run of them. */
  {
    const guint n = s->positions->len;
    Aligned *all = (Aligned *) s->positions->data;
    gint32 median, tolerance;
    guint kept = 0;

    g_array_set_size (s->diags, n);
    for (guint i = 0; i < n; i++)
      g_array_index (s->diags, gint32, i) = all[i].diag;
    median = select_kth ((gint32 *) s->diags->data, n, n / 2);
    tolerance = MAX (8, (gint32) (seg->unit_end - seg->unit_start) / 2);
    for (guint i = 0; i < n; i++)
      if (ABS (all[i].diag - median) <= tolerance)
        all[kept++] = all[i];
    g_array_set_size (s->positions, kept);
  }
  gap = (du->flags[g_array_index (s->positions, Aligned, 0).pos] & SIM_UNIT_CJK)
          ? QUERY_GAP_WEIGHT / SIM_WEIGHT_CJK : QUERY_GAP_WEIGHT / SIM_WEIGHT_OTHER;
  for (guint i = 0; i <= s->positions->len; i++)
    {
      if (i == s->positions->len ||
          (i > run_lo && g_array_index (s->positions, Aligned, i).pos -
                         g_array_index (s->positions, Aligned, i - 1).pos > gap))
        {
          if (i - run_lo > best_count)
            {
              best_count = i - run_lo;
              best_lo = run_lo;
              best_hi = i - 1;
            }
          run_lo = i;
        }
    }
  span_last = g_array_index (s->positions, Aligned, best_hi).pos;
  span_first = g_array_index (s->positions, Aligned, best_lo).pos;
  span_first = span_first + 1 - MIN (span_first + 1 - ua, sim_fingerprint_shingle (du, span_first));

  segment_run (check, seg, s, out);

  out->doc = doc;
  out->sentence = FALSE;
  out->similarity = MIN (1.0f, matched / s->q_weight);
  out->start = du->src_start[span_first];
  out->end = sim_units_get_end (du, span_last);
  {
    gsize n;

    g_array_set_size (s->raw, span_last + 1 - span_first);
    n = sim_fingerprint_range_features (du, features, span_first, span_last + 1,
                                        (guint64 *) s->raw->data);
    out->distance = sim_fingerprint_distance (s->q_simhash,
                                              sim_fingerprint_simhash ((const guint64 *) s->raw->data,
                                                                       n, check->weights));
  }
  return TRUE;
}

int
_sim_verified_compare (gconstpointer a,
                       gconstpointer b)
{
  const Verified *x = a, *y = b;

  if (x->similarity != y->similarity)
    return x->similarity > y->similarity ? -1 : 1;
  if (x->distance != y->distance)
    return x->distance < y->distance ? -1 : 1;
  return x->doc < y->doc ? -1 : x->doc > y->doc;
}
