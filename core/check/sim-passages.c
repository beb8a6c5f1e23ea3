/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The last stage of a check: passages. Every source among the best three
 * matches of a segment, and every one holding a sentence the rewording
 * stage proposes (the 64 that explain most, those last), is aligned with
 * the article by sim_align(), over the stretches of both that its matches fall in, so a
 * reused paragraph comes out as one passage with one source span, bridging
 * sentences edited too much for the sentence comparison, and a summary is
 * found as one passage against the stretch of source it condenses.
 * Passages never overlap in the article, except the same passage found in
 * sources that hold the same text (three at most).
 */
#include "config.h"

#include "sim-align.h"
#include "sim-parallel.h"
#include "sim-words.h"
#include "sim-check-private.h"

#define MAX_ALIGNED_DOCS  64      /* sources aligned per check, most matched first */
#define REGION_MARGIN     4000    /* code points around what a source's matches cover */
/* And around the sentences a source holds that the article may reword,
 * when no match names it: a reworded sentence, and its neighbours when
 * they are reworded too (a passage grows from seeds in both). */
#define REWORDED_MARGIN   400
#define ALTERNATIVE_SHARE 0.9f    /* a copy of the best source is named when this similar */
/* Matches of a segment whose sources are aligned (as many as a report
 * names by default): a stretch copied in many documents alike (a form, a
 * text passed around) neither crowds out the sources of the rest of the
 * article nor gives the same passage in all of them. */
#define BEST_MATCHES      3
/* Sources are aligned WAVE at a time, most matched first; a source whose
 * stretch of the article the passages found before its wave already hold
 * (is_held()) is not aligned: a paragraph found alike in many documents is
 * aligned with a few of them (at 1 GB of the growth corpus, 39 of 64). */
#define WAVE              16

typedef struct {
  guint   doc;
  guint   n_segments;
  float   matched;
  guint32 lo;       /* code points: the region of the source its matches fall in */
  guint32 hi;
  guint32 a_lo;     /* code points: the segments of the article it explains */
  guint32 a_hi;
  gboolean named;   /* among the BEST_MATCHES of a segment */
  gboolean skipped; /* its stretch of the article held already (WAVE) */
  float   share;    /* its best similarity to a segment, as a share of the segment's best */
  GArray *found;    /* CheckPassage */
  gboolean matched_any; /* a match names it (not only the rewording stage) */
} Target;

typedef struct {
  Check            *check;
  GArray           *targets;      /* Target */
  const SimSegment *sentences;    /* the article's, in order */
  guint             n_sentences;
  SimAlignSide     *whole;        /* the whole article's side, prepared once */
  gint              next;
  guint             end;          /* of the wave */
} Job;

static int
compare_targets (gconstpointer a,
                 gconstpointer b)
{
  const Target *x = a, *y = b;

  if (x->matched != y->matched)
    return x->matched > y->matched ? -1 : 1;
  return x->doc < y->doc ? -1 : x->doc > y->doc;
}

/* The target of @doc, made when there is none yet. */
static Target *
target_for (GArray           *targets,
            GHashTable       *slots,
            guint             doc,
            guint32           lo,
            guint32           hi,
            const SimSegment *seg)
{
  guint slot = GPOINTER_TO_UINT (g_hash_table_lookup (slots, GUINT_TO_POINTER (doc + 1)));
  Target *t;

  if (slot == 0)
    {
      Target fresh = { .doc = doc, .lo = lo, .hi = hi, .a_lo = seg->start, .a_hi = seg->end };

      g_array_append_val (targets, fresh);
      slot = targets->len;
      g_hash_table_insert (slots, GUINT_TO_POINTER (doc + 1), GUINT_TO_POINTER (slot));
    }
  t = &g_array_index (targets, Target, slot - 1);
  t->n_segments++;
  t->lo = MIN (t->lo, lo);
  t->hi = MAX (t->hi, hi);
  t->a_lo = MIN (t->a_lo, seg->start);
  t->a_hi = MAX (t->a_hi, seg->end);
  return t;
}

static GArray *
choose_targets (Check *check)
{
  g_autoptr(GHashTable) slots = g_hash_table_new (NULL, NULL);
  GArray *targets = g_array_new (FALSE, FALSE, sizeof (Target));
  guint kept = 0;

  for (guint s = 0; s < check->results->len; s++)
    {
      GArray *results = g_ptr_array_index (check->results, s);
      const SimSegment *seg = &g_array_index (check->segments, SimSegment, s);

      for (guint r = 0; r < results->len; r++)
        {
          const Verified *v = &g_array_index (results, Verified, r);
          Target *t = target_for (targets, slots, v->doc, v->start, v->end, seg);

          t->named |= r < BEST_MATCHES;
          t->matched_any = TRUE;
          t->share = MAX (t->share, v->similarity / MAX (g_array_index (results, Verified, 0).similarity, 1e-6f));
          t->matched += v->matched;
        }
    }
  /* The sentences a segment may reword: aligned after the sources that
   * matches name (they have matched nothing), the aligner their judge. */
  for (guint s = 0; check->seg_reworded != NULL && s < check->seg_reworded->len; s++)
    {
      GArray *cands = g_ptr_array_index (check->seg_reworded, s);

      for (guint i = 0; i < cands->len; i++)
        {
          const Candidate *c = &g_array_index (cands, Candidate, i);

          target_for (targets, slots, c->doc, c->start, c->end, &g_array_index (check->segments, SimSegment, s))->named = TRUE;
        }
    }
  for (guint i = 0; i < targets->len; i++)
    if (g_array_index (targets, Target, i).named)
      g_array_index (targets, Target, kept++) = g_array_index (targets, Target, i);
  g_array_set_size (targets, kept);
  g_array_sort (targets, compare_targets);
  if (targets->len > MAX_ALIGNED_DOCS)
    g_array_set_size (targets, MAX_ALIGNED_DOCS);
  return targets;
}

/* The article's side of @t: the sentences [*first, *last) around the
 * segments its source explains, so a long article is not aligned whole
 * with every source. */
static void
article_range (const Job    *job,
               const Target *t,
               guint        *first,
               guint        *last)
{
  guint f = 0, l;

  const guint32 margin = t->matched_any ? REGION_MARGIN : REWORDED_MARGIN;

  while (f < job->n_sentences && job->sentences[f].end + margin <= t->a_lo)
    f++;
  for (l = f; l < job->n_sentences && job->sentences[l].start < (guint64) t->a_hi + margin; l++)
    ;
  *first = f;
  *last = l;
}

/* The source's side of @t in a text of @n_chars: the region its matches
 * fall in, with room for as much again as the stretch of the article it
 * explains. */
static void
source_range (const Target *t,
              guint32       n_chars,
              guint32      *lo,
              guint32      *hi)
{
  const guint32 margin = (t->matched_any ? REGION_MARGIN : REWORDED_MARGIN) + (t->a_hi - t->a_lo);

  *lo = t->lo > margin ? t->lo - margin : 0;
  *hi = MIN ((guint64) t->hi + margin, n_chars);
}

/* The n_chars of @cache's document that the alignment reads (the whole
 * text, its last punctuation included), 0 when it has no text. */
static guint32
aligned_chars (const DocCache *cache)
{
  return cache && cache->loaded && cache->units.n > 0 ? cache->n_chars : 0;
}

/* Aligns the article with one source's region. */
static void
align_target (Job    *job,
              Target *t)
{
  Check *check = job->check;
  DocCache *cache = _sim_source_cache_get (check, t->doc);
  const guint32 n_chars = aligned_chars (cache);
  guint32 lo, hi;
  guint first = 0, last;
  const char *from, *to;
  SimUnits units;
  g_autoptr(GArray) sentences = g_array_new (FALSE, FALSE, sizeof (SimSegment));
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (SimAlignment));
  SimAlignText source;

  t->found = g_array_new (FALSE, FALSE, sizeof (CheckPassage));
  if (n_chars == 0 || job->n_sentences == 0)
    return;
  article_range (job, t, &first, &last);
  if (last == first)
    return;
  source_range (t, n_chars, &lo, &hi);
  if (!_sim_source_cache_cover (cache, lo, hi))
    return;
  from = _sim_source_cache_pointer (cache, lo);
  to = _sim_source_cache_pointer (cache, hi);
  sim_units_init (&units);
  sim_segment_prepare (from, to - from, sim_corpus_snapshot_get_flags (check->snapshot), SIM_SEGMENT_SENTENCE, 0,
                       &units, sentences);
  source.units = &units;
  source.sentences = (const SimSegment *) sentences->data;
  source.n_sentences = sentences->len;
  source.is_whole = lo == 0 && hi == n_chars;
  {
    g_autoptr(SimAlignSide) side = sim_align_side_new (&source);
    g_autoptr(SimAlignSide) range = first == 0 && last == job->n_sentences
                                      ? NULL : sim_align_side_new_range (job->whole, first, last);

    sim_align_sides (range != NULL ? range : job->whole, side, found);
  }
  for (guint i = 0; i < found->len; i++)
    {
      CheckPassage p = { g_array_index (found, SimAlignment, i), t->doc };

      if (!sim_alignment_stands_alone (&p.alignment, TRUE))
        continue;
      p.alignment.b_start += lo;
      p.alignment.b_end += lo;
      g_array_append_val (t->found, p);
    }
  sim_units_clear (&units);
}

/* The Verified of @doc among @results, or NULL. */
static const Verified *
result_of (GArray *results,
           guint   doc)
{
  for (guint r = 0; r < results->len; r++)
    if (g_array_index (results, Verified, r).doc == doc)
      return &g_array_index (results, Verified, r);
  return NULL;
}

/* Ends @chain (segments [first, last] of the article): a passage when it
 * grew from two seeds or more, its similarity the length-weighted mean of
 * its segments' similarity to the source, those between seeds included. */
static void
end_chain (Check        *check,
           Target       *t,
           gint          first,
           gint          last,
           guint         n_seeds,
           guint32       b_lo,
           guint32       b_hi)
{
  const SimSegment *segs = (const SimSegment *) check->segments->data;
  double weighted = 0, total = 0;
  CheckPassage p = { { 0 }, t->doc };

  if (n_seeds < 2)
    return;
  for (gint s = first; s <= last; s++)
    {
      const Verified *v = result_of (g_ptr_array_index (check->results, s), t->doc);

      weighted += (v ? v->similarity : 0) * (segs[s].end - segs[s].start);
      total += segs[s].end - segs[s].start;
    }
  p.alignment.a_start = segs[first].start;
  p.alignment.a_end = segs[last].end;
  p.alignment.b_start = b_lo;
  p.alignment.b_end = b_hi;
  p.alignment.similarity = p.alignment.cosine = total > 0 ? (float) (weighted / total) : 0;
  p.alignment.n_seeds = p.alignment.n_pairs = n_seeds;
  g_array_append_val (t->found, p);
}

/* A source whose text this account may not read (text_withheld) is not
 * aligned: its passages are chains of the segments it matches by keys at
 * the medium level, in the article's order and going on in the source,
 * at most SIM_ALIGN_MAX_GAP segments apart (what the aligner bridges). */
static void
chain_target (Job    *job,
              Target *t)
{
  Check *check = job->check;
  const float seed = check->options->medium_threshold;
  gint first = -1, last = -1;
  guint n_seeds = 0;
  guint32 b_lo = 0, b_hi = 0, b_last = 0;

  t->found = g_array_new (FALSE, FALSE, sizeof (CheckPassage));
  for (guint s = 0; s < check->results->len; s++)
    {
      const Verified *v = result_of (g_ptr_array_index (check->results, s), t->doc);
      const SimSegment *seg = &g_array_index (check->segments, SimSegment, s);

      if (v == NULL || v->similarity < seed)
        continue;
      /* Goes on in the source: not before the last seed's match (a
       * sentence's length of slack), nor further past the chain than the
       * article has gone. */
      if (last >= 0 && (gint) s - last - 1 <= SIM_ALIGN_MAX_GAP &&
          (gint64) v->start + (seg->end - seg->start) >= b_last &&
          v->start <= (gint64) b_hi + 2 * (seg->end - g_array_index (check->segments, SimSegment, first).start))
        {
          n_seeds++;
          b_lo = MIN (b_lo, v->start);
          b_hi = MAX (b_hi, v->end);
        }
      else
        {
          if (first >= 0)
            end_chain (check, t, first, last, n_seeds, b_lo, b_hi);
          first = s;
          n_seeds = 1;
          b_lo = v->start;
          b_hi = v->end;
        }
      last = s;
      b_last = v->start;
    }
  if (first >= 0)
    end_chain (check, t, first, last, n_seeds, b_lo, b_hi);
}

static void
align_worker (gpointer data)
{
  Job *job = data;

  for (;;)
    {
      const gint i = g_atomic_int_add (&job->next, 1);
      Target *t;

      if (i >= (gint) job->end || g_cancellable_is_cancelled (job->check->cancellable))
        break;
      t = &g_array_index (job->targets, Target, i);
      if (t->skipped)
        t->found = g_array_new (FALSE, FALSE, sizeof (CheckPassage));
      else if (sim_corpus_snapshot_get_doc_withheld (job->check->snapshot, t->doc))
        chain_target (job, t);
      else
        align_target (job, t);
    }
}

/* Whether the passages of the first @n targets hold @t's stretch of the
 * article BEST_MATCHES times, each nearly as similar as the best of them,
 * or once at a high level when no segment found @t nearly as similar as its
 * best source (its passage could only be covered). */
static gboolean
is_held (const Job    *job,
         guint         n,
         const Target *t)
{
  float best = 0;
  guint held = 0;

  for (guint pass = 0; pass < 2; pass++)
    for (guint i = 0; i < n; i++)
      {
        const GArray *found = g_array_index (job->targets, Target, i).found;

        for (guint k = 0; k < found->len; k++)
          {
            const SimAlignment *al = &g_array_index (found, CheckPassage, k).alignment;

            if (al->a_start > t->a_lo || al->a_end < t->a_hi)
              continue;
            if (pass == 0)
              best = MAX (best, al->similarity);
            else if (al->similarity >= ALTERNATIVE_SHARE * best)
              held++;
          }
      }
  return held >= BEST_MATCHES || (t->share < ALTERNATIVE_SHARE && best >= job->check->options->high_threshold);
}

static double
quality (const CheckPassage *p)
{
  return (double) p->alignment.similarity * (p->alignment.a_end - p->alignment.a_start);
}

static int
compare_quality (gconstpointer a,
                 gconstpointer b)
{
  const double x = quality (a), y = quality (b);

  return x > y ? -1 : x < y;
}

static int
compare_start (gconstpointer a,
               gconstpointer b)
{
  const guint32 x = ((const CheckPassage *) a)->alignment.a_start;
  const guint32 y = ((const CheckPassage *) b)->alignment.a_start;

  return x < y ? -1 : x > y;
}

/* Whether @p (no better than @q, sharing @overlap of the article with it)
 * is the same passage in another source, nearly as similar. */
static gboolean
is_alternative (const CheckPassage *p,
                const CheckPassage *q,
                guint32             overlap)
{
  const guint32 p_len = p->alignment.a_end - p->alignment.a_start;
  const guint32 q_len = q->alignment.a_end - q->alignment.a_start;

  return p->doc != q->doc && 5 * overlap >= 4 * MAX (p_len, q_len) &&
         p->alignment.similarity >= ALTERNATIVE_SHARE * q->alignment.similarity;
}

void
_sim_passages_want (Check *check)
{
  g_autoptr(GArray) targets = NULL;

  /* A local store's texts are read whole. */
  if (!sim_corpus_snapshot_is_remote (check->snapshot))
    return;
  targets = choose_targets (check);
  for (guint i = 0; i < targets->len; i++)
    {
      const Target *t = &g_array_index (targets, Target, i);
      guint32 lo, hi;

      /* The text's length may not be known yet: the reader stops at its end. */
      source_range (t, G_MAXUINT32, &lo, &hi);
      _sim_source_cache_want (check, t->doc, lo, hi);
    }
}

void
_sim_passages_find (Check *check)
{
  g_autoptr(GArray) sentences = g_array_new (FALSE, FALSE, sizeof (SimSegment));
  g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (CheckPassage));
  Job job = { check, choose_targets (check), NULL, 0, NULL, 0 };

  check->passages = g_array_new (FALSE, FALSE, sizeof (CheckPassage));
  sim_segment_split (check->text, check->len, check->units, SIM_SEGMENT_SENTENCE, 0, sentences);
  job.sentences = (const SimSegment *) sentences->data;
  job.n_sentences = sentences->len;
  /* The article's words are counted once: each target's side is the
   * range of sentences around what it explains. */
  if (job.targets->len > 0 && job.n_sentences > 0)
    {
      const SimAlignText article = { check->units, job.sentences, job.n_sentences, TRUE };

      job.whole = sim_align_side_new (&article);
    }
  for (guint w = 0; w < job.targets->len; w += WAVE)
    {
      job.next = w;
      job.end = MIN (w + WAVE, job.targets->len);
      for (guint i = w; i < job.end; i++)
        {
          Target *t = &g_array_index (job.targets, Target, i);

          t->skipped = is_held (&job, w, t);
        }
      sim_parallel_run (MIN (check->options->n_threads, job.end - w), align_worker, &job);
    }
  g_clear_pointer (&job.whole, sim_align_side_free);
  for (guint i = 0; i < job.targets->len; i++)
    {
      GArray *found = g_array_index (job.targets, Target, i).found;

      if (found != NULL)
        {
          g_array_append_vals (all, found->data, found->len);
          g_array_unref (found);
        }
    }
  g_array_unref (job.targets);

  /* One passage per stretch of the article, against the best source; a
   * source that holds the same text about as well (a copy of the best one)
   * gets the same passage too, so both are named, up to BEST_MATCHES. */
  g_array_sort (all, compare_quality);
  for (guint i = 0; i < all->len; i++)
    {
      const CheckPassage *p = &g_array_index (all, CheckPassage, i);
      gboolean covered = FALSE;
      guint alternatives = 0;

      for (guint k = 0; k < check->passages->len && !covered; k++)
        {
          const CheckPassage *q = &g_array_index (check->passages, CheckPassage, k);
          const guint32 lo = MAX (p->alignment.a_start, q->alignment.a_start);
          const guint32 hi = MIN (p->alignment.a_end, q->alignment.a_end);

          if (hi <= lo)
            continue;
          if (is_alternative (p, q, hi - lo))
            alternatives++;
          else
            covered = TRUE;
        }
      /* As many sources as a segment names: the best of them. */
      if (!covered && alternatives < BEST_MATCHES)
        g_array_append_val (check->passages, *p);
    }
  g_array_sort (check->passages, compare_start);
}

/* The length of the longest common subsequence of @x and @y. */
static guint
in_order (const GArray *x,
          const GArray *y)
{
  g_autofree guint *row = g_new0 (guint, 2 * (y->len + 1));
  guint *prev = row, *cur = row + y->len + 1;

  for (guint i = 0; i < x->len; i++)
    {
      const guint64 t = g_array_index (x, guint64, i);

      for (guint j = 0; j < y->len; j++)
        cur[j + 1] = t == g_array_index (y, guint64, j) ? prev[j] + 1 : MAX (prev[j + 1], cur[j]);
      { guint *swap = prev; prev = cur; cur = swap; }
    }
  return prev[y->len];
}

static void
tokenize_segment (Check            *check,
                  const SimSegment *seg,
                  GArray           *out)
{
  if (seg != NULL)
    sim_words_tokenize (check->units, seg->unit_start, seg->unit_end, out, NULL);
}

/* The key of the run of words at @tokens (@n of them left), or 0 where no
 * run starts: SIM_SUPPORT_WORDS words, or two CJK character pairs (three
 * characters: a Chinese clause is short, and its pairs overlap). */
static guint64
run_key (const guint64 *tokens,
         guint          n)
{
  guint64 h = 0;
  guint len = SIM_SUPPORT_WORDS;

  if (n >= 2 && (tokens[0] & tokens[1] & SIM_WORDS_CJK_BIT))
    len = 2;
  if (n < len)
    return 0;
  for (guint k = 0; k < len; k++)
    h = sim_mix64 (h ^ tokens[k]);
  return h | 1;
}

static int
compare_keys (gconstpointer a,
              gconstpointer b)
{
  const guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

/* Whether @own and @source share a run of SIM_SUPPORT_WORDS words (run_key()). */
static gboolean
shares_run (const GArray *own,
            const GArray *source)
{
  g_autoptr(GArray) keys = g_array_new (FALSE, FALSE, sizeof (guint64));

  for (guint i = 0; i < source->len; i++)
    {
      const guint64 key = run_key (&g_array_index (source, guint64, i), source->len - i);

      if (key != 0)
        g_array_append_val (keys, key);
    }
  if (keys->len == 0)
    return FALSE;
  g_array_sort (keys, compare_keys);
  for (guint i = 0; i < own->len; i++)
    {
      const guint64 key = run_key (&g_array_index (own, guint64, i), own->len - i);

      if (key != 0 && bsearch (&key, keys->data, keys->len, sizeof (guint64), compare_keys) != NULL)
        return TRUE;
    }
  return FALSE;
}

static void
tokenize_source (const SourceRegion *region,
                 guint32             lo,
                 guint32             hi,
                 GArray             *out)
{
  if (hi > lo)
    sim_words_tokenize (region->units, sim_units_find (region->units, lo), sim_units_find (region->units, hi), out, NULL);
}

gboolean
_sim_passages_supports (Check              *check,
                        const CheckPassage *cp,
                        const SimSegment   *seg,
                        const SimSegment   *before,
                        const SimSegment   *after,
                        guint32             lo,
                        guint32             hi)
{
  DocCache *cache = _sim_source_cache_get (check, cp->doc);
  SourceRegion region = { 0 };
  g_autoptr(GArray) source = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) near = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) own = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) around = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) with = g_array_new (FALSE, FALSE, sizeof (guint64));
  /* A run of words is looked for this far around: a sentence moved a little. */
  const guint32 reach = 2 * (seg->end - seg->start) + 100;
  const guint32 near_lo = MAX ((gint64) cp->alignment.b_start, (gint64) lo - reach);
  const guint32 near_hi = MIN (cp->alignment.b_end, hi + reach);

  tokenize_segment (check, seg, own);
  if (own->len < SIM_SUPPORT_IN_ORDER)
    return TRUE;   /* too short to judge */
  if (sim_corpus_snapshot_get_doc_withheld (check->snapshot, cp->doc))
    /* A window's worth of words (more than a run) found there by its key. */
    return _sim_verify_shares_keys (check, seg, cp->doc, near_lo, near_hi);
  if (cache == NULL || !cache->loaded || near_hi <= near_lo ||
      !_sim_source_cache_region (check, cache, near_lo, near_hi, &region))
    {
      _sim_source_region_clear (&region);
      return TRUE;
    }
  tokenize_source (&region, near_lo, near_hi, near);
  tokenize_source (&region, lo, hi, source);
  _sim_source_region_clear (&region);
  if (shares_run (own, near))
    return TRUE;
  tokenize_segment (check, before, around);
  g_array_append_vals (with, around->data, around->len);
  g_array_append_vals (with, own->data, own->len);
  tokenize_segment (check, after, around);
  tokenize_segment (check, after, with);
  return in_order (with, source) >= in_order (around, source) + SIM_SUPPORT_IN_ORDER;
}
