/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "sim-error.h"
#include "sim-parallel.h"
#include "sim-check.h"

#define MAX_CANDIDATES        16   /* source regions verified per segment */
#define MIN_SEGMENT_WEIGHT    12.0f /* lighter segments (4 CJK or 12 other characters) are too short to judge */
#define MIN_MATCH_SIMILARITY  0.25f
#define CHUNK                 256  /* windows per unit of lookup work */
#define SEGMENT_CHUNK         16   /* segments per unit of verification work */
#define MAX_DISTINCT_CANDIDATES 256
#define MAX_WINDOW_HITS       100  /* more hits than this: a boilerplate window, ignored */
#define QUERY_GAP_WEIGHT      24   /* this much text without a shared feature ends a matched run */
#define SPLIT_MIN_WEIGHT      12.0f /* smallest remainder worth its own segment */
#define MAX_SPLIT_DEPTH       6
#define SPLIT_MIN_EVIDENCE    30   /* a matched part this heavy may become its own segment */
#define FLAG_MIN_EVIDENCE     24   /* less shared text than this is never flagged */
#define NO_DISTANCE           64

typedef struct {
  guint32 window;
  guint32 fp;
} Hit;

typedef struct {
  guint  doc;     /* snapshot document index */
  gint64 start;   /* projected region in the source, code points */
  gint64 end;
  guint  votes;
} Candidate;

typedef struct {
  guint   doc;
  float   similarity;      /* weighted containment of the segment in the region */
  guint   distance;
  guint32 start;           /* matched source span, code points */
  guint32 end;
  guint32 q_start;         /* matched part of the segment, units */
  guint32 q_end;
  float   matched;         /* weight of the segment's features in that part found in the source */
  float   run_containment; /* matched / weight of all features in that part */
  guint   evidence;        /* script weight (SIM_WEIGHT_*) of the matched features in that part */
  guint   total_evidence;  /* the same over the whole segment */
} Verified;

typedef struct {
  SimSegment seg;
  GArray    *results;      /* Verified, best first */
} Piece;

typedef struct {
  char     *text;
  gsize     len;
  SimUnits  units;
  guint64  *features;
  gboolean  loaded;
} DocCache;

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
  /* inputs */
  SimCorpusSnapshot     *snapshot;
  const SimCheckOptions *options;
  const SimBandIndex    *index;
  const SimWeights      *weights;
  const char            *text;
  gsize                  len;
  GCancellable          *cancellable;
  SimProgressFunc        progress;
  gpointer               progress_data;
  GThread               *caller;
  SimCheckPreviewFunc    preview;       /* any thread: flagged segments as they are verified */
  gpointer               preview_data;
  /* query */
  const SimUnits        *units;
  const guint64         *features;
  GArray                *segments;      /* SimSegment */
  GArray                *windows;       /* SimAnchor */
  /* phase 1: lookups, per chunk of windows */
  GPtrArray             *chunk_hits;    /* GArray of Hit per chunk */
  GArray                *hits;          /* Hit, ordered by window */
  guint                 *first_hit;     /* hits of window w: [first_hit[w], first_hit[w + 1]) */
  /* phase 2: documents the candidates point into */
  GHashTable            *doc_slots;     /* doc index -> DocCache index + 1 */
  GArray                *docs;          /* DocCache */
  GArray                *doc_order;     /* guint doc index per cache slot */
  /* phase 3: pieces per segment, then results per piece, best first */
  GPtrArray             *seg_cands;     /* GArray of Candidate per segment, found once */
  GPtrArray             *pieces;        /* GArray of Piece per segment */
  GPtrArray             *results;       /* GArray of Verified per final segment */
  /* work sharing */
  gint                   next;
  gint                   done;
  guint64                total;
} Check;

static SimLevel level_for (Check *check, const SimSegment *seg, GArray *results);

gboolean
sim_check_options_validate (const SimCheckOptions *options,
                            GError               **error)
{
  if (options->mode == SIM_SEGMENT_WINDOW && (options->window < 4 || options->window > 2000))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                   _("The window must be between 4 and 2000 characters (got %u)"), options->window);
      return FALSE;
    }
  if (options->max_distance > SIM_BAND_INDEX_MAX_DISTANCE)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                   _("The maximum distance must be between 0 and %d (got %u)"),
                   SIM_BAND_INDEX_MAX_DISTANCE, options->max_distance);
      return FALSE;
    }
  if (!(options->medium_threshold > 0.0f && options->medium_threshold <= options->high_threshold &&
        options->high_threshold <= 1.0f))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                   _("Thresholds must satisfy 0 < medium <= high <= 1 (got %.2f and %.2f)"),
                   options->medium_threshold, options->high_threshold);
      return FALSE;
    }
  return TRUE;
}

static void
report_progress (Check *check,
                 guint  amount)
{
  const gint before = g_atomic_int_add (&check->done, amount);

  if (check->progress != NULL && g_thread_self () == check->caller &&
      (before / 1024 != (before + (gint) amount) / 1024 || amount > 1024))
    check->progress (before + amount, check->total, NULL, check->progress_data);
}

/* ------------------------------------------------------------ phase 1 */

static void
lookup_worker (gpointer data)
{
  Check *check = data;
  const guint n_chunks = check->chunk_hits->len;

  for (;;)
    {
      const gint c = g_atomic_int_add (&check->next, 1);
      g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint32));
      guint64 fps[CHUNK];
      guint32 ends[CHUNK];
      GArray *hits;
      guint end;

      if (c >= (gint) n_chunks || g_cancellable_is_cancelled (check->cancellable))
        break;
      hits = g_ptr_array_index (check->chunk_hits, c);
      end = MIN ((c + 1) * CHUNK, check->windows->len);
      for (guint w = c * CHUNK; w < end; w++)
        fps[w - c * CHUNK] = g_array_index (check->windows, SimAnchor, w).simhash;
      g_array_set_size (ids, 0);
      sim_band_index_lookup_many (check->index, fps, end - c * CHUNK, check->options->max_distance,
                                  ids, ends);
      for (guint w = c * CHUNK, j = 0; w < end; w++)
        for (; j < ends[w - c * CHUNK]; j++)
          {
            Hit hit = { w, g_array_index (ids, guint32, j) };

            g_array_append_val (hits, hit);
          }
      report_progress (check, end - c * CHUNK);
    }
}

/* ------------------------------------------------------------ phase 2 */

static int
compare_candidates (gconstpointer a,
                    gconstpointer b)
{
  const Candidate *x = a, *y = b;

  if (x->votes != y->votes)
    return x->votes > y->votes ? -1 : 1;
  return x->doc < y->doc ? -1 : x->doc > y->doc;
}

static gint64
slack_for (const SimSegment *seg)
{
  return MAX (12, (gint64) (seg->end - seg->start) / 3);
}

static void
add_candidate (GArray *cands,
               guint   doc,
               gint64  start,
               gint64  end,
               gint64  slack)
{
  for (guint i = 0; i < cands->len; i++)
    {
      Candidate *c = &g_array_index (cands, Candidate, i);

      if (c->doc == doc && start <= c->end + slack && end + slack >= c->start)
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
    }
}

/* Source regions proposed for @seg by the windows overlapping it, most
 * votes first, at most MAX_CANDIDATES. */
static void
candidates_for (Check            *check,
                const SimSegment *seg,
                GArray           *cands)
{
  const guint32 *fp_docs = sim_corpus_snapshot_get_fp_docs (check->snapshot);
  const guint32 *fp_starts = sim_corpus_snapshot_get_fp_starts (check->snapshot);
  const gint64 slack = slack_for (seg);
  guint lo = 0, hi = check->windows->len;

  g_array_set_size (cands, 0);
  /* Windows are ordered by both ends: find the first ending inside the segment. */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (check->windows, SimAnchor, mid).unit_end <= seg->unit_start)
        lo = mid + 1;
      else
        hi = mid;
    }
  for (guint w = lo; w < check->windows->len; w++)
    {
      const SimAnchor *win = &g_array_index (check->windows, SimAnchor, w);
      const gint64 q_start = check->units->src_start[win->unit_start];

      if (win->unit_start >= seg->unit_end)
        break;
      /* A window found everywhere is boilerplate: it says nothing about the source. */
      if (check->first_hit[w + 1] - check->first_hit[w] > MAX_WINDOW_HITS)
        continue;
      for (guint h = check->first_hit[w]; h < check->first_hit[w + 1]; h++)
        {
          const guint32 fp = g_array_index (check->hits, Hit, h).fp;
          const gint64 start = (gint64) fp_starts[fp] - (q_start - (gint64) seg->start);

          add_candidate (cands, fp_docs[fp], start, start + (seg->end - seg->start), slack);
        }
    }
  g_array_sort (cands, compare_candidates);
  if (cands->len > MAX_CANDIDATES)
    g_array_set_size (cands, MAX_CANDIDATES);
}

static void
collect_hits (Check *check)
{
  check->hits = g_array_new (FALSE, FALSE, sizeof (Hit));
  check->first_hit = g_new0 (guint, check->windows->len + 1);
  for (guint c = 0; c < check->chunk_hits->len; c++)
    {
      GArray *chunk = g_ptr_array_index (check->chunk_hits, c);

      g_array_append_vals (check->hits, chunk->data, chunk->len);
    }
  for (guint i = 0; i < check->hits->len; i++)
    check->first_hit[g_array_index (check->hits, Hit, i).window + 1]++;
  for (guint w = 0; w < check->windows->len; w++)
    check->first_hit[w + 1] += check->first_hit[w];
}

/* Registers the documents every segment's candidates point into. */
static void
collect_docs (Check *check)
{
  check->seg_cands = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  check->doc_slots = g_hash_table_new (NULL, NULL);
  check->docs = g_array_new (FALSE, TRUE, sizeof (DocCache));
  check->doc_order = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint s = 0; s < check->segments->len; s++)
    {
      GArray *cands = g_array_new (FALSE, FALSE, sizeof (Candidate));

      /* Kept: verification starts from the same list. */
      candidates_for (check, &g_array_index (check->segments, SimSegment, s), cands);
      g_ptr_array_add (check->seg_cands, cands);
      for (guint i = 0; i < cands->len; i++)
        {
          const guint doc = g_array_index (cands, Candidate, i).doc;

          if (!g_hash_table_contains (check->doc_slots, GUINT_TO_POINTER (doc + 1)))
            {
              DocCache empty = { 0 };

              g_array_append_val (check->docs, empty);
              g_array_append_val (check->doc_order, doc);
              g_hash_table_insert (check->doc_slots, GUINT_TO_POINTER (doc + 1),
                                   GUINT_TO_POINTER (check->docs->len));
            }
        }
    }
}

static DocCache *
get_doc (Check *check,
         guint  doc)
{
  guint slot = GPOINTER_TO_UINT (g_hash_table_lookup (check->doc_slots, GUINT_TO_POINTER (doc + 1)));

  return slot ? &g_array_index (check->docs, DocCache, slot - 1) : NULL;
}

static void
normalize_worker (gpointer data)
{
  Check *check = data;

  for (;;)
    {
      const gint i = g_atomic_int_add (&check->next, 1);
      DocCache *cache;

      if (i >= (gint) check->docs->len || g_cancellable_is_cancelled (check->cancellable))
        break;
      cache = &g_array_index (check->docs, DocCache, i);
      if (cache->text == NULL)
        continue;
      sim_units_init (&cache->units);
      sim_text_normalize (cache->text, cache->len, 0, sim_corpus_snapshot_get_flags (check->snapshot),
                          &cache->units);
      cache->features = g_new (guint64, MAX (cache->units.n, 1));
      sim_fingerprint_features (&cache->units, cache->features);
      cache->loaded = TRUE;
    }
}

static gboolean
load_docs (Check   *check,
           GError **error)
{
  g_autoptr(SimStore) store = NULL;

  if (check->docs->len == 0)
    return TRUE;
  /* This thread's own connection: a SimStore is never shared between threads. */
  store = sim_store_open (sim_corpus_snapshot_get_store_path (check->snapshot), TRUE, error);
  if (store == NULL)
    return FALSE;
  for (guint i = 0; i < check->docs->len; i++)
    {
      DocCache *cache = &g_array_index (check->docs, DocCache, i);
      const SimCorpusDoc *doc = sim_corpus_snapshot_get_doc (check->snapshot,
                                                             g_array_index (check->doc_order, guint, i));
      g_autoptr(GError) local_error = NULL;

      cache->text = sim_store_dup_text (store, doc->id, &cache->len, &local_error);
      if (cache->text == NULL)
        {
          /* Removed since the snapshot was taken: it simply proposes nothing. */
          if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
            continue;
          g_propagate_error (error, g_steal_pointer (&local_error));
          return FALSE;
        }
    }
  check->next = 0;
  sim_parallel_run (MIN (check->options->n_threads, check->docs->len), normalize_worker, check);
  return TRUE;
}

/* ------------------------------------------------------------ phase 3 */

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

typedef struct {
  GArray  *q;          /* QFeature, sorted, unique */
  GArray  *qocc;       /* QOccurrence in text order */
  float    q_weight;
  guint64  q_simhash;
  GArray  *raw;        /* guint64 scratch */
  GArray  *r;          /* RFeature scratch */
  GArray  *positions;  /* Aligned scratch */
  GArray  *cands;      /* Candidate scratch */
} Scratch;

static void
scratch_init (Scratch *s)
{
  s->q = g_array_new (FALSE, FALSE, sizeof (QFeature));
  s->qocc = g_array_new (FALSE, FALSE, sizeof (QOccurrence));
  s->raw = g_array_new (FALSE, FALSE, sizeof (guint64));
  s->r = g_array_new (FALSE, FALSE, sizeof (RFeature));
  s->positions = g_array_new (FALSE, FALSE, sizeof (Aligned));
  s->cands = g_array_new (FALSE, FALSE, sizeof (Candidate));
}

static void
scratch_clear (Scratch *s)
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
static void
load_query_features (Check            *check,
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
static gboolean
verify (Check            *check,
        const SimSegment *seg,
        Scratch          *s,
        guint             doc,
        gint64            start,
        gint64            end,
        Verified         *out)
{
  DocCache *cache = get_doc (check, doc);
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

static int
compare_verified (gconstpointer a,
                  gconstpointer b)
{
  const Verified *x = a, *y = b;

  if (x->similarity != y->similarity)
    return x->similarity > y->similarity ? -1 : 1;
  if (x->distance != y->distance)
    return x->distance < y->distance ? -1 : 1;
  return x->doc < y->doc ? -1 : x->doc > y->doc;
}

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
                 Scratch          *s,
                 GArray           *pieces)
{
  GArray *results = g_array_new (FALSE, FALSE, sizeof (Verified));
  g_autoptr(GArray) cands = NULL;
  const Verified *explain = NULL;
  const float medium = check->options->medium_threshold;

  if (known != NULL)
    cands = g_array_ref (known);
  else
    {
      candidates_for (check, seg, s->cands);
      cands = g_array_copy (s->cands);
    }
  load_query_features (check, seg, s);
  for (guint i = 0; i < cands->len; i++)
    {
      const Candidate *c = &g_array_index (cands, Candidate, i);
      const gint64 slack = slack_for (seg);
      Verified v;

      if (!verify (check, seg, s, c->doc, c->start - slack, c->end + slack, &v))
        continue;
      if (v.similarity < MIN_MATCH_SIMILARITY && v.run_containment < medium)
        continue;
      g_array_append_val (results, v);
      if (check->options->fast && v.similarity >= medium)
        break;
    }
  g_array_sort (results, compare_verified);

  for (guint i = 0; i < results->len; i++)
    {
      const Verified *v = &g_array_index (results, Verified, i);

      if (v->run_containment >= medium && v->evidence >= SPLIT_MIN_EVIDENCE &&
          (explain == NULL || v->matched > explain->matched))
        explain = v;
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
              process_segment (check, &part, NULL, depth + 1, s, pieces);
            }
          part.start = qa > seg->unit_start ? units->src_start[qa] : seg->start;
          part.end = qb < seg->unit_end ? sim_units_get_end (units, qb - 1) : seg->end;
          part.unit_start = qa;
          part.unit_end = qb;
          process_segment (check, &part, NULL, MAX_SPLIT_DEPTH, s, pieces);
          if (qb < seg->unit_end)
            {
              part.start = units->src_start[qb];
              part.end = seg->end;
              part.unit_start = qb;
              part.unit_end = seg->unit_end;
              process_segment (check, &part, NULL, depth + 1, s, pieces);
            }
          return;
        }
    }
  add_piece (pieces, seg, results);
}

static void
verify_worker (gpointer data)
{
  Check *check = data;
  Scratch s;

  scratch_init (&s);
  for (;;)
    {
      const gint c = g_atomic_int_add (&check->next, 1);
      guint end;

      if (c * SEGMENT_CHUNK >= (gint) check->segments->len ||
          g_cancellable_is_cancelled (check->cancellable))
        break;
      end = MIN ((c + 1) * SEGMENT_CHUNK, check->segments->len);
      for (guint i = c * SEGMENT_CHUNK; i < end; i++)
        process_segment (check, &g_array_index (check->segments, SimSegment, i),
                         g_ptr_array_index (check->seg_cands, i), 0, &s,
                         g_ptr_array_index (check->pieces, i));
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
                                        level_for (check, &piece->seg, piece->results) };

                  if (p.level != SIM_LEVEL_LOW)
                    g_array_append_val (previews, p);
                }
            }
          if (previews->len > 0)
            check->preview ((const SimCheckPreview *) previews->data, previews->len, check->preview_data);
        }
      report_progress (check, end - c * SEGMENT_CHUNK);
    }
  scratch_clear (&s);
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
          load_query_features (check, seg, s);
          if (!verify (check, seg, s, nbest->doc, start - slack_for (seg), end + slack_for (seg), &v))
            continue;
          if (v.similarity < check->options->medium_threshold)
            continue;
          g_array_prepend_val (results, v);
          g_array_sort (results, compare_verified);
        }
    }
}

/* Window mode: the article is cut into windows of N characters, and each
 * window takes the verdict of the matched piece covering most of it, its
 * source span cut in proportion. Windows never line up with copies; deciding
 * on sentences and pieces first means a copy is found however they fall, and
 * a 13-character window of English is not judged on two words alone. */
static void
project_to_windows (Check *check)
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

/* ------------------------------------------------------------ report */

/* The level of a segment with its results, best first. */
static SimLevel
level_for (Check            *check,
           const SimSegment *seg,
           GArray           *results)
{
  const SimCheckOptions *o = check->options;
  float weight = 0, similarity;

  /* Too little text to judge (a heading, "Yes."): never flagged. */
  for (guint u = seg->unit_start; u < seg->unit_end; u++)
    weight += (check->units->flags[u] & SIM_UNIT_CJK) ? SIM_WEIGHT_CJK : SIM_WEIGHT_OTHER;
  if (results->len == 0 || weight < MIN_SEGMENT_WEIGHT ||
      g_array_index (results, Verified, 0).total_evidence < FLAG_MIN_EVIDENCE)
    return SIM_LEVEL_LOW;
  similarity = g_array_index (results, Verified, 0).similarity;
  if (similarity >= o->high_threshold)
    return SIM_LEVEL_HIGH;
  if (similarity >= o->medium_threshold)
    return SIM_LEVEL_MEDIUM;
  return SIM_LEVEL_LOW;
}

static SimReport *
build_report (Check *check)
{
  const SimCheckOptions *o = check->options;
  SimReportSettings settings = { 0 };
  SimReport *report;
  g_autoptr(GArray) matches = g_array_new (FALSE, FALSE, sizeof (SimMatch));

  settings.mode = o->mode == SIM_SEGMENT_WINDOW ? "window" : "sentence";
  settings.window = o->window;
  settings.max_distance = o->max_distance;
  settings.fast = o->fast;
  settings.high_threshold = o->high_threshold;
  settings.medium_threshold = o->medium_threshold;
  settings.fold_t2s = (sim_corpus_snapshot_get_flags (check->snapshot) & SIM_NORMALIZE_FOLD_T2S) != 0;
  settings.feature_version = SIM_FEATURE_VERSION;
  settings.store = sim_corpus_snapshot_get_store_path (check->snapshot);
  settings.n_documents = sim_corpus_snapshot_get_n_docs (check->snapshot);
  settings.n_fingerprints = sim_corpus_snapshot_get_n_fps (check->snapshot);
  report = _sim_report_new (check->text, check->len, &settings);

  for (guint i = 0; i < check->segments->len; i++)
    {
      const SimSegment *seg = &g_array_index (check->segments, SimSegment, i);
      GArray *results = g_ptr_array_index (check->results, i);
      SimReportSegment rs = { 0 };
      guint n_keep = MIN (results->len, o->fast ? 1 : MAX (o->max_matches, 1));
      rs.start = seg->start;
      rs.end = seg->end;
      rs.distance = NO_DISTANCE;
      g_array_set_size (matches, 0);
      for (guint j = 0; j < n_keep; j++)
        {
          const Verified *v = &g_array_index (results, Verified, j);
          const SimCorpusDoc *doc = sim_corpus_snapshot_get_doc (check->snapshot, v->doc);
          DocCache *cache = get_doc (check, v->doc);
          const char *from = g_utf8_offset_to_pointer (cache->text, v->start);
          const char *to = g_utf8_offset_to_pointer (from, v->end - v->start);
          guint32 end = v->end;
          SimMatch m = { 0 };

          /* The source span ends with its punctuation, like the article's segments. */
          for (guint k = 0; k < 3 && to < cache->text + cache->len; k++)
            {
              const gunichar c = g_utf8_get_char (to);

              if (!g_unichar_ispunct (c) || c == '(' || c == 0xff08)
                break;
              to = g_utf8_next_char (to);
              end++;
            }

          m.source = _sim_report_add_source (report, doc->id, doc->path, doc->title);
          m.start = v->start;
          m.end = end;
          m.similarity = v->similarity;
          m.distance = v->distance;
          m.excerpt = g_strndup (from, to - from);
          g_array_append_val (matches, m);
        }
      if (matches->len > 0)
        {
          rs.similarity = g_array_index (matches, SimMatch, 0).similarity;
          rs.distance = g_array_index (matches, SimMatch, 0).distance;
        }
      rs.level = level_for (check, seg, results);
      _sim_report_add_segment (report, &rs, (SimMatch *) matches->data, matches->len);
    }
  _sim_report_finish (report);
  return report;
}

static void
free_pieces (GArray *pieces)
{
  for (guint i = 0; i < pieces->len; i++)
    g_clear_pointer (&g_array_index (pieces, Piece, i).results, g_array_unref);
  g_array_unref (pieces);
}

static void
check_clear (Check *check)
{
  if (check->docs)
    {
      for (guint i = 0; i < check->docs->len; i++)
        {
          DocCache *cache = &g_array_index (check->docs, DocCache, i);

          g_free (cache->text);
          g_free (cache->features);
          if (cache->loaded)
            sim_units_clear (&cache->units);
        }
      g_array_unref (check->docs);
    }
  g_clear_pointer (&check->doc_order, g_array_unref);
  g_clear_pointer (&check->doc_slots, g_hash_table_unref);
  g_clear_pointer (&check->hits, g_array_unref);
  g_clear_pointer (&check->first_hit, g_free);
  g_clear_pointer (&check->pieces, g_ptr_array_unref);
  g_clear_pointer (&check->seg_cands, g_ptr_array_unref);
  g_clear_pointer (&check->results, g_ptr_array_unref);
  g_clear_pointer (&check->chunk_hits, g_ptr_array_unref);
  g_clear_pointer (&check->segments, g_array_unref);
  g_clear_pointer (&check->windows, g_array_unref);
}

static SimReport *
check_run (SimCorpusSnapshot     *snapshot,
           const char            *text,
           gssize                 len,
           const SimCheckOptions *options,
           SimProgressFunc        progress,
           gpointer               user_data,
           SimCheckPreviewFunc    preview,
           gpointer               preview_data,
           GCancellable          *cancellable,
           GError               **error)
{
  SimCheckOptions opts;
  Check check = { 0 };
  g_autoptr(SimFingerprinter) fp = NULL;
  g_autofree char *valid = NULL;
  SimReport *report = NULL;
  guint n_chunks;

  g_return_val_if_fail (snapshot != NULL, NULL);
  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (options != NULL, NULL);

  if (!sim_check_options_validate (options, error))
    return NULL;
  opts = *options;
  if (opts.n_threads == 0)
    opts.n_threads = sim_parallel_default_threads ();

  if (len < 0)
    len = strlen (text);
  if ((gsize) len > SIM_CHECK_MAX_BYTES)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                   _("The text is too long to check at once (%.1f MB; the limit is %d MB): "
                     "split it into parts"), len / 1048576.0, SIM_CHECK_MAX_BYTES >> 20);
      return NULL;
    }
  if (!g_utf8_validate_len (text, len, NULL))
    {
      valid = g_utf8_make_valid (text, len);
      text = valid;
      len = strlen (valid);
    }
  if (!sim_text_has_content (text, len))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_EMPTY,
                   _("The text is empty: there are no letters, digits or CJK characters to check"));
      return NULL;
    }

  check.snapshot = snapshot;
  check.options = &opts;
  check.index = sim_corpus_snapshot_get_index (snapshot, opts.max_distance);
  check.weights = sim_corpus_snapshot_get_weights (snapshot);
  check.text = text;
  check.len = len;
  check.cancellable = cancellable;
  check.progress = progress;
  check.progress_data = user_data;
  check.caller = g_thread_self ();
  check.preview = preview;
  check.preview_data = preview_data;

  fp = sim_fingerprinter_new (sim_corpus_snapshot_get_flags (snapshot));
  check.units = sim_fingerprinter_load (fp, text, len);
  check.features = sim_fingerprinter_get_features (fp);
  check.segments = g_array_new (FALSE, FALSE, sizeof (SimSegment));
  /* Matching always works on sentences; window mode reports on windows. */
  sim_segment_split (text, len, check.units, SIM_SEGMENT_SENTENCE, opts.window, check.segments);
  check.windows = g_array_new (FALSE, FALSE, sizeof (SimAnchor));
  sim_fingerprinter_windows (fp, FALSE, check.windows);
  check.total = check.windows->len + check.segments->len;

  /* Phase 1: SimHash lookups of every window. */
  n_chunks = (check.windows->len + CHUNK - 1) / CHUNK;
  check.chunk_hits = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (guint c = 0; c < n_chunks; c++)
    g_ptr_array_add (check.chunk_hits, g_array_new (FALSE, FALSE, sizeof (Hit)));
  check.next = 0;
  sim_parallel_run (MIN (opts.n_threads, MAX (n_chunks, 1)), lookup_worker, &check);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    goto out;

  /* Phase 2: candidate source regions per segment, and their documents. */
  collect_hits (&check);
  collect_docs (&check);
  if (!load_docs (&check, error) || g_cancellable_set_error_if_cancelled (cancellable, error))
    goto out;

  /* Phase 3: verification. */
  check.pieces = g_ptr_array_new_with_free_func ((GDestroyNotify) free_pieces);
  for (guint i = 0; i < check.segments->len; i++)
    g_ptr_array_add (check.pieces, g_array_new (FALSE, FALSE, sizeof (Piece)));
  check.next = 0;
  sim_parallel_run (MIN (opts.n_threads, check.segments->len / SEGMENT_CHUNK + 1), verify_worker, &check);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    goto out;
  flatten_pieces (&check);
  {
    Scratch s;

    scratch_init (&s);
    extend_neighbours (&check, &s);
    scratch_clear (&s);
  }
  if (opts.mode == SIM_SEGMENT_WINDOW)
    project_to_windows (&check);

  report = build_report (&check);
  if (progress)
    progress (check.total, check.total, NULL, user_data);

out:
  check_clear (&check);
  return report;
}

SimReport *
sim_check_run (SimCorpusSnapshot     *snapshot,
               const char            *text,
               gssize                 len,
               const SimCheckOptions *options,
               SimProgressFunc        progress,
               gpointer               user_data,
               GCancellable          *cancellable,
               GError               **error)
{
  return check_run (snapshot, text, len, options, progress, user_data, NULL, NULL, cancellable, error);
}

/* ------------------------------------------------------------ async */

typedef struct {
  SimCorpusSnapshot *snapshot;
  char              *text;
  gsize              len;
  SimCheckOptions    options;
  SimProgressFunc    progress;
  gpointer           progress_data;
  GMainContext      *context;
  gint               done_units;  /* atomics: the latest progress */
  gint               total_units;
  gint               idle_pending;
  gint               finished;
  SimCheckPreviewFunc preview;
  gpointer           preview_data;
  GMutex             preview_lock;
  GArray            *previews;    /* SimCheckPreview not yet delivered, under preview_lock */
} AsyncJob;

static void
async_job_free (AsyncJob *job)
{
  sim_corpus_snapshot_unref (job->snapshot);
  g_mutex_clear (&job->preview_lock);
  g_array_unref (job->previews);
  g_free (job->text);
  g_main_context_unref (job->context);
  g_free (job);
}

static gboolean
deliver_progress (gpointer data)
{
  GTask *task = data;
  AsyncJob *job = g_task_get_task_data (task);

  g_autoptr(GArray) previews = NULL;

  g_atomic_int_set (&job->idle_pending, 0);
  g_mutex_lock (&job->preview_lock);
  previews = g_steal_pointer (&job->previews);
  job->previews = g_array_new (FALSE, FALSE, sizeof (SimCheckPreview));
  g_mutex_unlock (&job->preview_lock);
  if (g_atomic_int_get (&job->finished) || g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    return G_SOURCE_REMOVE;
  if (job->progress)
    job->progress (g_atomic_int_get (&job->done_units), g_atomic_int_get (&job->total_units),
                   NULL, job->progress_data);
  if (job->preview && previews->len > 0)
    job->preview ((const SimCheckPreview *) previews->data, previews->len, job->preview_data);
  return G_SOURCE_REMOVE;
}

static void schedule_delivery (GTask *task);

static void
async_progress (guint64     done,
                guint64     total,
                const char *what,
                gpointer    user_data)
{
  GTask *task = user_data;
  AsyncJob *job = g_task_get_task_data (task);

  g_atomic_int_set (&job->done_units, done);
  g_atomic_int_set (&job->total_units, total);
  schedule_delivery (task);
}

static void
async_preview (const SimCheckPreview *previews,
               guint                  n,
               gpointer               user_data)
{
  GTask *task = user_data;
  AsyncJob *job = g_task_get_task_data (task);

  g_mutex_lock (&job->preview_lock);
  g_array_append_vals (job->previews, previews, n);
  g_mutex_unlock (&job->preview_lock);
  schedule_delivery (task);
}

static void
schedule_delivery (GTask *task)
{
  AsyncJob *job = g_task_get_task_data (task);

  /* At most one pending idle, and at most ten a second. */
  if ((job->progress || job->preview) && g_atomic_int_compare_and_exchange (&job->idle_pending, 0, 1))
    {
      GSource *source = g_timeout_source_new (100);

      g_source_set_callback (source, deliver_progress, g_object_ref (task), g_object_unref);
      g_source_attach (source, job->context);
      g_source_unref (source);
    }
}

/* Delivers the previews still queued when the check ends, before the result. */
static gboolean
flush_previews (gpointer data)
{
  GTask *task = data;
  AsyncJob *job = g_task_get_task_data (task);
  g_autoptr(GArray) previews = NULL;

  g_mutex_lock (&job->preview_lock);
  previews = g_steal_pointer (&job->previews);
  job->previews = g_array_new (FALSE, FALSE, sizeof (SimCheckPreview));
  g_mutex_unlock (&job->preview_lock);
  if (previews->len > 0 && !g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    job->preview ((const SimCheckPreview *) previews->data, previews->len, job->preview_data);
  return G_SOURCE_REMOVE;
}

static void
check_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  AsyncJob *job = task_data;
  GError *error = NULL;
  SimReport *report;

  report = check_run (job->snapshot, job->text, job->len, &job->options, async_progress, task,
                      job->preview ? async_preview : NULL, task, cancellable, &error);
  g_atomic_int_set (&job->finished, 1);
  if (job->preview != NULL && report != NULL)
    {
      GSource *source = g_idle_source_new ();

      /* Higher than the task's own completion, which is dispatched at default priority. */
      g_source_set_priority (source, G_PRIORITY_HIGH);
      g_source_set_callback (source, flush_previews, g_object_ref (task), g_object_unref);
      g_source_attach (source, job->context);
      g_source_unref (source);
    }
  if (report == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, report, (GDestroyNotify) sim_report_unref);
}

void
sim_check_run_async (SimCorpusSnapshot     *snapshot,
                     const char            *text,
                     gssize                 len,
                     const SimCheckOptions *options,
                     SimProgressFunc        progress,
                     SimCheckPreviewFunc    preview,
                     gpointer               progress_data,
                     GCancellable          *cancellable,
                     GAsyncReadyCallback    callback,
                     gpointer               user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  AsyncJob *job = g_new0 (AsyncJob, 1);

  if (len < 0)
    len = strlen (text);
  job->snapshot = sim_corpus_snapshot_ref (snapshot);
  job->text = g_strndup (text, len);
  job->len = len;
  job->options = *options;
  job->progress = progress;
  job->progress_data = progress_data;
  job->preview = preview;
  job->preview_data = progress_data;
  g_mutex_init (&job->preview_lock);
  job->previews = g_array_new (FALSE, FALSE, sizeof (SimCheckPreview));
  job->context = g_main_context_ref_thread_default ();
  g_task_set_source_tag (task, sim_check_run_async);
  g_task_set_task_data (task, job, (GDestroyNotify) async_job_free);
  g_task_set_return_on_cancel (task, FALSE);
  g_task_run_in_thread (task, check_thread);
}

SimReport *
sim_check_run_finish (GAsyncResult  *result,
                      GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
