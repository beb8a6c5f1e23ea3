/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The check's last stage: the report. Each segment's level (its own, or
 * its passage's where it shares the source's wording; a stock phrase
 * unflagged) and its matches, the passages, and the settings a report
 * names, for compare as for a check.
 */
#include "config.h"

#include "sim-check-private.h"

#define TIE_SIMILARITY 0.05f  /* matches this close are as good as each other */
/* A passage is copied word for word where this share of its segments' characters
 * is high on its own (sentence comparison), not only through the passage. */
#define VERBATIM_SHARE 0.5
#define WORD_FOR_WORD  0.9f   /* a segment matching its source this well is a copy */

SimLevel
sim_check_passage_level (const SimCheckOptions *options,
                         float                  similarity)
{
  return sim_level_of (similarity, options->high_threshold, options->medium_threshold);
}

static SimLevel
passage_level (Check              *check,
               const CheckPassage *cp)
{
  return sim_check_passage_level (check->options, cp->alignment.similarity);
}

/* A segment flagged because a passage covers it names that passage's
 * source first, with the part of the source span that corresponds to it. */
static void
lead_with_passage (GArray             *results,
                   const SimSegment   *seg,
                   const CheckPassage *cp)
{
  const SimAlignment *al = &cp->alignment;
  const double a_len = MAX (al->a_end - al->a_start, 1), b_len = al->b_end - al->b_start;
  Verified v = { 0 };

  for (guint r = 0; r < results->len; r++)
    if (g_array_index (results, Verified, r).doc == cp->doc)
      {
        v = g_array_index (results, Verified, r);
        g_array_remove_index (results, r);
        g_array_prepend_val (results, v);
        return;
      }
  v.doc = cp->doc;
  v.similarity = al->similarity;
  v.distance = NO_DISTANCE;
  v.start = al->b_start + (guint32) (b_len * CLAMP ((gint64) seg->start - al->a_start, 0, a_len) / a_len);
  v.end = al->b_start + (guint32) (b_len * CLAMP ((gint64) seg->end - al->a_start, 0, a_len) / a_len);
  v.end = MAX (v.end, v.start + 1);
  g_array_prepend_val (results, v);
}

/* Whether @doc matches a segment nearly as well as its best source: a
 * sentence found in two sources is named after the passage around it. */
static gboolean
matches_about_as_well (GArray *results,
                       guint   doc)
{
  for (guint r = 1; r < results->len; r++)
    {
      const Verified *v = &g_array_index (results, Verified, r);

      if (v->doc == doc)
        return v->similarity >= g_array_index (results, Verified, 0).similarity - TIE_SIMILARITY;
    }
  return FALSE;
}

void
sim_check_options_fill_settings (const SimCheckOptions *o,
                                 SimNormalizeFlags      flags,
                                 SimReportSettings     *settings)
{
  settings->mode = o->mode == SIM_SEGMENT_WINDOW ? "window" : "sentence";
  settings->window = o->window;
  settings->max_distance = o->max_distance;
  settings->fast = o->fast;
  settings->high_threshold = o->high_threshold;
  settings->medium_threshold = o->medium_threshold;
  settings->fold_t2s = (flags & SIM_NORMALIZE_FOLD_T2S) != 0;
  settings->feature_version = SIM_FEATURE_VERSION;
}

/* The nearest segment of @i's passage on the side @dir (-1 before, 1
 * after) copied word for word from the passage's source (high on its own,
 * at WORD_FOR_WORD), with that match: -1 if none. A short copied phrase
 * ("Until the light was automated") is no landmark: the sentence beside
 * it may hold the rest of the source's sentence. */
static gint
copied_neighbour (Check           *check,
                  const SimLevel  *own,
                  const gint      *covering,
                  guint            i,
                  gint             dir,
                  const Verified **match)
{
  const CheckPassage *cp = &g_array_index (check->passages, CheckPassage, covering[i]);

  for (gint j = (gint) i + dir; j >= 0 && j < (gint) check->segments->len && covering[j] == covering[i]; j += dir)
    {
      GArray *results = g_ptr_array_index (check->results, j);

      if (own[j] != SIM_LEVEL_HIGH)
        continue;
      for (guint r = 0; r < results->len; r++)
        if (g_array_index (results, Verified, r).doc == cp->doc &&
            g_array_index (results, Verified, r).similarity >= WORD_FOR_WORD)
          {
            *match = &g_array_index (results, Verified, r);
            return j;
          }
    }
  return -1;
}

/* Whether the article's segments meet inside a phrase at unit @u: between
 * the unit before it and it only spaces and tabs, or nothing (a word cut). */
static gboolean
cut_inside_phrase (Check              *check,
                   const SimTextIndex *text,
                   guint32             u)
{
  const SimUnits *units = check->units;
  const char *p, *end;

  if (u == 0 || u >= units->n)
    return FALSE;
  p = sim_text_index_pointer (text, sim_units_get_end (units, u - 1));
  end = sim_text_index_pointer (text, units->src_start[u]);
  for (; p < end; p = g_utf8_next_char (p))
    {
      const gunichar c = g_utf8_get_char (p);

      if (c != ' ' && c != '\t' && c != 0xa0)
        return FALSE;
    }
  return TRUE;
}

/* Whether segment @i has the wording of the source of the passage
 * covering it (_sim_passages_supports()), between its copied neighbours. */
static gboolean
supported (Check              *check,
           const SimTextIndex *text,
           const SimLevel     *own,
           const gint         *covering,
           guint               i)
{
  const CheckPassage *cp = &g_array_index (check->passages, CheckPassage, covering[i]);
  const SimSegment *seg = &g_array_index (check->segments, SimSegment, i);
  const Verified *vb = NULL, *va = NULL;
  const gint b = copied_neighbour (check, own, covering, i, -1, &vb);
  const gint a = copied_neighbour (check, own, covering, i, 1, &va);
  /* Without a neighbour on a side, the source this far past the other's
   * match (or the passage's edge). */
  const gint64 reach = 3 * (gint64) (seg->end - seg->start) + 100;
  gint64 lo, hi;

  /* A piece cut inside a phrase ("Recollect, for exampl", "although it
   * is mainly used for") is where the sentence comparison split an edited
   * copy, not a clause of the writer's own: those end at punctuation or a
   * line's end. */
  if (cut_inside_phrase (check, text, seg->unit_start) || cut_inside_phrase (check, text, seg->unit_end))
    return TRUE;

  lo = vb ? vb->start : (va ? (gint64) va->start - reach : cp->alignment.b_start);
  hi = va ? va->end : (vb ? (gint64) vb->end + reach : cp->alignment.b_end);
  lo = CLAMP (lo, cp->alignment.b_start, cp->alignment.b_end);
  /* Neighbours copied from far apart (moved sentences): the stretch stays
   * near the one before, as long as the article's three segments are, a few
   * times over (the time to compare stays bounded). */
  hi = CLAMP (hi, lo, MIN (cp->alignment.b_end, lo + 4 * (reach + (gint64) (seg->end - seg->start))));
  return _sim_passages_supports (check, cp, seg,
                                 b >= 0 ? &g_array_index (check->segments, SimSegment, b) : NULL,
                                 a >= 0 ? &g_array_index (check->segments, SimSegment, a) : NULL,
                                 (guint32) lo, (guint32) hi);
}

/* Whether segment @i is flagged for @doc: on its own, or in a passage of it. */
static gboolean
flagged_for (Check          *check,
             const SimLevel *own,
             const gint     *covering,
             guint           i,
             guint           doc)
{
  GArray *results = g_ptr_array_index (check->results, i);

  if (covering[i] >= 0 && g_array_index (check->passages, CheckPassage, covering[i]).doc == doc)
    return TRUE;
  return own[i] >= SIM_LEVEL_MEDIUM && results->len > 0 && g_array_index (results, Verified, 0).doc == doc;
}

/* A reworded segment flagged on its own: medium, its best source's
 * passages not around it, its neighbours not flagged for that source. */
static gboolean
is_lone (Check          *check,
         const SimLevel *own,
         const gint     *covering,
         guint           i)
{
  GArray *results = g_ptr_array_index (check->results, i);
  guint doc;

  if (own[i] != SIM_LEVEL_MEDIUM || results->len == 0)
    return FALSE;
  doc = g_array_index (results, Verified, 0).doc;
  return !(covering[i] >= 0 && g_array_index (check->passages, CheckPassage, covering[i]).doc == doc) &&
         !(i > 0 && flagged_for (check, own, covering, i - 1, doc)) &&
         !(i + 1 < check->segments->len && flagged_for (check, own, covering, i + 1, doc));
}

typedef struct {
  guint   doc;
  guint32 start, end;  /* its best match */
  guint   segment;
} LoneMatch;

static int
compare_lone (gconstpointer a,
              gconstpointer b)
{
  const LoneMatch *x = a, *y = b;

  if (x->doc != y->doc)
    return x->doc < y->doc ? -1 : 1;
  return x->start < y->start ? -1 : x->start > y->start;
}

/* Reworded segments flagged on their own (is_lone()) whose matches meet
 * in one place of a source are unflagged: that place is a phrase of the
 * subject the article keeps saying in its own words (a copy takes a
 * stretch of its source once). Sorted, so a sentence repeated through
 * the article costs n log n. */
static void
unflag_stock_phrases (Check          *check,
                      SimLevel       *own,
                      const gint     *covering)
{
  g_autoptr(GArray) lone = g_array_new (FALSE, FALSE, sizeof (LoneMatch));

  for (guint i = 0; i < check->segments->len; i++)
    if (is_lone (check, own, covering, i))
      {
        const Verified *v = &g_array_index ((GArray *) g_ptr_array_index (check->results, i), Verified, 0);
        const LoneMatch m = { v->doc, v->start, v->end, i };

        g_array_append_val (lone, m);
      }
  g_array_sort (lone, compare_lone);
  for (guint i = 0; i < lone->len;)
    {
      const LoneMatch *first = &g_array_index (lone, LoneMatch, i);
      guint32 end = first->end;
      guint j = i + 1;

      /* (MAX() evaluates an argument twice: nothing in it may move j.) */
      for (; j < lone->len && g_array_index (lone, LoneMatch, j).doc == first->doc &&
             g_array_index (lone, LoneMatch, j).start < end; j++)
        end = MAX (end, g_array_index (lone, LoneMatch, j).end);
      for (guint k = i; j - i >= 2 && k < j; k++)
        own[g_array_index (lone, LoneMatch, k).segment] = SIM_LEVEL_LOW;
      i = j;
    }
}

SimReport *
_sim_check_build_report (Check *check)
{
  const SimCheckOptions *o = check->options;
  SimReportSettings settings = { 0 };
  SimReport *report;
  g_autoptr(GArray) matches = g_array_new (FALSE, FALSE, sizeof (SimMatch));
  g_autofree SimLevel *own = NULL;
  g_autofree gint *covering = NULL;
  g_autofree guint64 *verbatim = NULL; /* per passage: characters of its segments high on their own, of all */
  SimTextIndex text;

  sim_check_options_fill_settings (o, sim_corpus_snapshot_get_flags (check->snapshot), &settings);
  settings.store = sim_corpus_snapshot_get_store_path (check->snapshot);
  settings.n_documents = sim_corpus_snapshot_get_n_documents (check->snapshot);
  settings.corpus_updated = sim_corpus_snapshot_get_updated_at (check->snapshot);
  settings.n_fingerprints = sim_corpus_snapshot_get_n_windows (check->snapshot);
  report = _sim_report_new (check->text, check->len, &settings);

  for (guint i = 0; i < check->passages->len; i++)
    {
      const CheckPassage *cp = &g_array_index (check->passages, CheckPassage, i);
      const SimCorpusDoc *doc = sim_corpus_snapshot_get_doc (check->snapshot, cp->doc);
      SimPassage p = { 0 };

      p.start = cp->alignment.a_start;
      p.end = cp->alignment.a_end;
      p.source = _sim_report_add_source (report, doc->id, doc->path, doc->title, doc->text_withheld);
      p.source_start = cp->alignment.b_start;
      p.source_end = cp->alignment.b_end;
      p.similarity = cp->alignment.similarity;
      p.level = passage_level (check, cp);
      _sim_report_add_passage (report, &p);
    }

  /* Each segment's own level and the passage covering most of it. */
  sim_text_index_init (&text, check->text, check->len);
  own = g_new (SimLevel, MAX (check->segments->len, 1));
  covering = g_new (gint, MAX (check->segments->len, 1));
  verbatim = g_new0 (guint64, 2 * MAX (check->passages->len, 1));
  for (guint i = 0, next = 0; i < check->segments->len; i++)
    {
      const SimSegment *seg = &g_array_index (check->segments, SimSegment, i);
      guint32 best = 0;

      own[i] = _sim_refine_level (check, seg, g_ptr_array_index (check->results, i));
      covering[i] = -1;
      /* Passages and segments are both in article order. */
      while (next < check->passages->len &&
             g_array_index (check->passages, CheckPassage, next).alignment.a_end <= seg->start)
        next++;
      /* The better source of two holding the same passage comes first. */
      for (guint k = next; k < check->passages->len; k++)
        {
          const CheckPassage *cp = &g_array_index (check->passages, CheckPassage, k);
          const guint32 lo = MAX (seg->start, cp->alignment.a_start);
          const guint32 hi = MIN (seg->end, cp->alignment.a_end);

          if (cp->alignment.a_start >= seg->end)
            break;
          if (hi > lo && 2 * (hi - lo) >= seg->end - seg->start && hi - lo > best)
            {
              covering[i] = k;
              best = hi - lo;
            }
        }
      if (covering[i] >= 0)
        {
          verbatim[2 * covering[i]] += own[i] == SIM_LEVEL_HIGH ? seg->end - seg->start : 0;
          verbatim[2 * covering[i] + 1] += seg->end - seg->start;
        }
    }

  unflag_stock_phrases (check, own, covering);
  for (guint i = 0; i < check->segments->len; i++)
    {
      const SimSegment *seg = &g_array_index (check->segments, SimSegment, i);
      GArray *results = g_ptr_array_index (check->results, i);
      SimReportSegment rs = { 0 };
      const CheckPassage *cp = covering[i] >= 0 ? &g_array_index (check->passages, CheckPassage, covering[i]) : NULL;
      guint n_keep;

      rs.level = own[i];
      /* A segment takes its passage's level, above its own, where it shares
       * the source's wording: in a passage copied mostly word for word, a
       * sentence sharing no run of words with the source is the writer's
       * own between copies, not a copy edited hardest (a passage reworded
       * throughout keeps its sentences: few of them share runs of words). */
      if (cp != NULL && passage_level (check, cp) > rs.level &&
          (verbatim[2 * covering[i]] < VERBATIM_SHARE * verbatim[2 * covering[i] + 1] ||
           supported (check, &text, own, covering, i)))
        {
          rs.level = passage_level (check, cp);
          rs.from_passage = TRUE;
          lead_with_passage (results, seg, cp);
        }
      else if (cp != NULL && matches_about_as_well (results, cp->doc))
        lead_with_passage (results, seg, cp);
      n_keep = MIN (results->len, o->fast ? 1 : MAX (o->max_matches, 1));
      rs.start = seg->start;
      rs.end = seg->end;
      rs.distance = NO_DISTANCE;
      g_array_set_size (matches, 0);
      for (guint j = 0; j < n_keep; j++)
        {
          const Verified *v = &g_array_index (results, Verified, j);
          const SimCorpusDoc *doc = sim_corpus_snapshot_get_doc (check->snapshot, v->doc);
          DocCache *cache = _sim_source_cache_get (check, v->doc);
          const char *from, *to;
          guint32 start = v->start, end = v->end;
          SimMatch m = { 0 };

          if (doc->text_withheld)
            {
              /* Matched by keys: where, and how much, but no text. */
              m.source = _sim_report_add_source (report, doc->id, doc->path, doc->title, TRUE);
              m.start = start;
              m.end = MAX (end, start + 1);
              m.similarity = v->similarity;
              m.distance = v->distance;
              m.excerpt = g_strdup ("");
              g_array_append_val (matches, m);
              continue;
            }
          if (!_sim_source_cache_cover (cache, v->start > SIM_TEXT_WORD_REACH ? v->start - SIM_TEXT_WORD_REACH : 0,
                                        v->end + SIM_TEXT_WORD_REACH))
            continue;
          from = _sim_source_cache_pointer (cache, v->start);
          to = _sim_source_cache_pointer (cache, v->end);
          /* Whole words: an excerpt never ends "in centr". */
          {
            const char *word_from = sim_text_word_start (cache->text, from);
            const char *word_to = sim_text_word_end (cache->text, to, cache->text + cache->len);

            start -= g_utf8_strlen (word_from, from - word_from);
            end += g_utf8_strlen (to, word_to - to);
            from = word_from;
            to = word_to;
          }
          /* The source span ends with its punctuation, like the article's segments. */
          for (guint k = 0; k < 3 && to < cache->text + cache->len; k++)
            {
              const gunichar c = g_utf8_get_char (to);

              if (!g_unichar_ispunct (c) || c == '(' || c == 0xff08)
                break;
              to = g_utf8_next_char (to);
              end++;
            }

          m.source = _sim_report_add_source (report, doc->id, doc->path, doc->title, doc->text_withheld);
          m.start = start;
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
      _sim_report_add_segment (report, &rs, (SimMatch *) matches->data, matches->len);
    }
  sim_text_index_clear (&text);
  _sim_report_finish (report);
  return report;
}

