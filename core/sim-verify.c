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
  guint32 pos;  /* unit index of the shingle's last unit */
} RFeature;

typedef struct {
  guint64 hash;
  guint32 pos;
  float   weight;
  guint   script_weight;
} QOccurrence;

static int
compare_qfeatures (gconstpointer a,
                   gconstpointer b)
{
  const guint64 x = ((const QFeature *) a)->hash, y = ((const QFeature *) b)->hash;

  return x < y ? -1 : x > y;
}

static int
compare_rfeatures (gconstpointer a,
                   gconstpointer b)
{
  const guint64 x = ((const RFeature *) a)->hash, y = ((const RFeature *) b)->hash;

  return x < y ? -1 : x > y;
}


void
_sim_scratch_init (Scratch *s)
{
  s->q = g_array_new (FALSE, FALSE, sizeof (QFeature));
  s->qocc = g_array_new (FALSE, FALSE, sizeof (QOccurrence));
  s->raw = g_array_new (FALSE, FALSE, sizeof (guint64));
  s->r = g_array_new (FALSE, FALSE, sizeof (RFeature));
  s->positions = g_array_new (FALSE, FALSE, sizeof (Aligned));
  s->cands = g_array_new (FALSE, FALSE, sizeof (Candidate));
}

void
_sim_scratch_clear (Scratch *s)
{
  g_array_unref (s->q);
  g_array_unref (s->qocc);
  g_array_unref (s->raw);
  g_array_unref (s->r);
  g_array_unref (s->positions);
  g_array_unref (s->cands);
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
}

static const QFeature *
q_find (const GArray *q,
        guint64       hash)
{
  guint lo = 0, hi = q->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const QFeature *qf = &g_array_index (q, QFeature, mid);

      if (qf->hash < hash)
        lo = mid + 1;
      else if (qf->hash > hash)
        hi = mid;
      else
        return qf;
    }
  return NULL;
}

static int
compare_aligned_diag (gconstpointer a,
                      gconstpointer b)
{
  const gint32 x = ((const Aligned *) a)->diag, y = ((const Aligned *) b)->diag;

  return x < y ? -1 : x > y;
}

static int
compare_aligned_pos (gconstpointer a,
                     gconstpointer b)
{
  const guint32 x = ((const Aligned *) a)->pos, y = ((const Aligned *) b)->pos;

  return x < y ? -1 : x > y;
}

static gboolean
r_contains (const GArray *r,
            guint64       hash)
{
  guint lo = 0, hi = r->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const guint64 h = g_array_index (r, RFeature, mid).hash;

      if (h < hash)
        lo = mid + 1;
      else if (h > hash)
        hi = mid;
      else
        return TRUE;
    }
  return FALSE;
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
  gsize ua, ub;
  float matched = 0;
  guint best_lo = 0, best_hi = 0, best_count = 0, run_lo = 0;
  guint32 gap;
  guint32 span_first, span_last;

  if (cache == NULL || !cache->loaded || s->q_weight <= 0)
    return FALSE;
  du = &cache->units;
  start = MAX (start, 0);
  if (end <= start)
    return FALSE;
  ua = sim_units_find (du, start);
  ub = sim_units_find (du, end);
  if (ub <= ua)
    return FALSE;

  g_array_set_size (s->r, 0);
  for (gsize i = ua; i < ub; i++)
    if (cache->features[i] != 0 && i + 1 >= ua + sim_fingerprint_shingle (du, i))
      {
        RFeature rf = { cache->features[i], i };

        g_array_append_val (s->r, rf);
      }
  if (s->r->len == 0)
    return FALSE;
  g_array_sort (s->r, compare_rfeatures);

  /* Containment: weight of the segment's distinct features found in the region. */
  g_array_set_size (s->positions, 0);
  for (guint i = 0; i < s->r->len; i++)
    {
      const RFeature *rf = &g_array_index (s->r, RFeature, i);
      const QFeature *qf = q_find (s->q, rf->hash);
      Aligned a;

      if (qf == NULL)
        continue;
      if (i == 0 || g_array_index (s->r, RFeature, i - 1).hash != rf->hash)
        matched += qf->weight;
      a.pos = rf->pos;
      a.diag = (gint32) rf->pos - (gint32) qf->pos;
      g_array_append_val (s->positions, a);
    }
  if (s->positions->len == 0)
    return FALSE;

  /* The matched part of the source: shared features on the copy's diagonal
   * (chance matches elsewhere in the region have other offsets), then the
   * densest run of them. */
  {
    const guint n = s->positions->len;
    const Aligned *all = (const Aligned *) s->positions->data;
    gint32 median, tolerance;
    guint kept = 0;

    qsort (s->positions->data, n, sizeof (Aligned), compare_aligned_diag);
    median = all[n / 2].diag;
    tolerance = MAX (8, (gint32) (seg->unit_end - seg->unit_start) / 2);
    for (guint i = 0; i < n; i++)
      if (ABS (all[i].diag - median) <= tolerance)
        g_array_index (s->positions, Aligned, kept++) = all[i];
    g_array_set_size (s->positions, kept);
    qsort (s->positions->data, kept, sizeof (Aligned), compare_aligned_pos);
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

  /* The matched part of the segment: the run of its features with most weight
   * found in the region, with gaps of at most QUERY_GAP units. */
  {
    float run_matched = 0, run_total = 0, best_matched = -1, best_total = 0;
    guint run_evidence = 0, best_evidence = 0, total_evidence = 0;
    guint32 run_first = 0, run_last = 0, q_first = 0, q_last = 0;
    gboolean in_run = FALSE;

    for (guint i = 0; i <= s->qocc->len; i++)
      {
        const QOccurrence *o = i < s->qocc->len ? &g_array_index (s->qocc, QOccurrence, i) : NULL;
        const gboolean hit = o != NULL && r_contains (s->r, o->hash);

        if (o != NULL && hit)
          total_evidence += o->script_weight;
        if (in_run && (o == NULL || (o->pos - run_last) * o->script_weight > QUERY_GAP_WEIGHT))
          {
            if (run_matched > best_matched)
              {
                best_matched = run_matched;
                best_total = run_total;
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
                run_matched = run_total = 0;
                run_evidence = 0;
              }
            run_evidence += o->script_weight;
            /* Unmatched features between matched ones count against the run. */
            run_total += o->weight;
            run_matched += o->weight;
            run_last = o->pos;
          }
        else if (in_run)
          run_total += o->weight;
      }
    /* Trailing unmatched features after the run's last hit were counted: remove them. */
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
    (void) best_total;
  }

  out->doc = doc;
  out->similarity = MIN (1.0f, matched / s->q_weight);
  out->start = du->src_start[span_first];
  out->end = sim_units_get_end (du, span_last);
  {
    gsize n;

    g_array_set_size (s->raw, span_last + 1 - span_first);
    n = sim_fingerprint_range_features (du, cache->features, span_first, span_last + 1,
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
