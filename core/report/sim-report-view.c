/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "sim-report-view.h"

struct _SimReportView {
  gint            ref_count;
  SimReport      *report;
  float           similarity;
  SimRatios       ratios;
  GArray         *excluded;          /* SimExcludedSpan, in order */
  guint8         *segment_excluded;  /* per segment */
  gint32         *segment_run;       /* per segment: its run, or -1 */
  GArray         *runs;              /* SimFlaggedRun */
  SimSourceShare *shares;            /* per source of the report */
  guint           counts[3];
  guint           n_excluded_segments;
  guint           histogram[SIM_CHART_BINS];
};

/* Words of a span as `--exclude-small` counts them: a CJK character is half
 * a word. */
static double
count_words (const SimReport *report,
             guint32          start,
             guint32          end)
{
  g_autofree char *span = sim_report_dup_text (report, start, end);
  double words = 0;
  gboolean in_word = FALSE;

  for (const char *p = span; *p; p = g_utf8_next_char (p))
    {
      const gunichar c = g_utf8_get_char (p);
      const GUnicodeScript script = g_unichar_get_script (c);

      if (script == G_UNICODE_SCRIPT_HAN || script == G_UNICODE_SCRIPT_HIRAGANA ||
          script == G_UNICODE_SCRIPT_KATAKANA || script == G_UNICODE_SCRIPT_HANGUL)
        {
          words += 0.5;
          in_word = FALSE;
        }
      else if (g_unichar_isalnum (c))
        {
          words += !in_word;
          in_word = TRUE;
        }
      else
        in_word = c == '\'' || c == 0x2019 || c == '-' ? in_word : FALSE;
    }
  return words;
}

static gboolean
source_excluded (const SimExclusions *ex,
                 gint64               doc_id)
{
  for (guint i = 0; ex && i < ex->n_source_ids; i++)
    if (ex->source_ids[i] == doc_id)
      return TRUE;
  return FALSE;
}

static void
mark (guint8  *mask,
      guint32  n,
      guint32  start,
      guint32  end,
      guint8   bit)
{
  for (guint32 i = start; i < MIN (end, n); i++)
    mask[i] |= bit;
}

static int
compare_spans (gconstpointer a,
               gconstpointer b)
{
  const SimExcludedSpan *x = a, *y = b;

  return x->start != y->start ? (x->start < y->start ? -1 : 1) : (int) x->reason - (int) y->reason;
}

/* In order, overlapping spans of one reason merged. */
static void
merge_spans (GArray *spans)
{
  g_array_sort (spans, compare_spans);
  for (guint i = 1; i < spans->len;)
    {
      SimExcludedSpan *prev = NULL, *cur = &g_array_index (spans, SimExcludedSpan, i);

      for (guint j = i; j-- > 0;)
        {
          SimExcludedSpan *x = &g_array_index (spans, SimExcludedSpan, j);

          if (x->reason == cur->reason)
            {
              prev = x;
              break;
            }
        }
      if (prev != NULL && cur->start <= prev->end)
        {
          prev->end = MAX (prev->end, cur->end);
          g_array_remove_index (spans, i);
        }
      else
        i++;
    }
}

enum {
  QUOTE = 1,
  REFERENCES = 2,
  NOT_FLAGGED = 4,  /* small, excluded source, template */
};

static guint
segment_source (const SimReport        *report,
                const SimReportSegment *seg)
{
  return sim_report_get_match (report, seg->first_match)->source;
}

/* Marks what each exclusion leaves out in @mask (one byte a code point)
 * and lists the chosen spans in @chosen; returns the bits the headline
 * leaves out. */
static guint8
mark_exclusions (const SimReport     *report,
                 const SimExclusions *ex,
                 guint8              *mask,
                 GArray              *chosen)
{
  const guint32 n = sim_report_get_n_chars (report);
  g_autoptr(GArray) quotes = g_array_new (FALSE, FALSE, sizeof (SimExcludedSpan));
  g_autoptr(GArray) references = g_array_new (FALSE, FALSE, sizeof (SimExcludedSpan));
  guint8 headline = NOT_FLAGGED;

  sim_exclude_find_quotes (sim_report_get_text (report), -1, quotes);
  sim_exclude_find_references (sim_report_get_text (report), -1, references);
  for (guint i = 0; i < quotes->len; i++)
    mark (mask, n, g_array_index (quotes, SimExcludedSpan, i).start,
          g_array_index (quotes, SimExcludedSpan, i).end, QUOTE);
  for (guint i = 0; i < references->len; i++)
    mark (mask, n, g_array_index (references, SimExcludedSpan, i).start,
          g_array_index (references, SimExcludedSpan, i).end, REFERENCES);
  if (ex == NULL)
    return headline;
  if (ex->quotes)
    {
      headline |= QUOTE;
      g_array_append_vals (chosen, quotes->data, quotes->len);
    }
  if (ex->references)
    {
      headline |= REFERENCES;
      g_array_append_vals (chosen, references->data, references->len);
    }

  /* Passages that are not flagged at all. */
  for (guint i = 0; i < sim_report_get_n_passages (report); i++)
    {
      const SimPassage *p = sim_report_get_passage (report, i);
      const SimReportSource *src = sim_report_get_source (report, p->source);

      if (p->level == SIM_LEVEL_LOW)
        continue;
      if (source_excluded (ex, src->doc_id))
        {
          mark (mask, n, p->start, p->end, NOT_FLAGGED);
          sim_exclude_add_span (chosen, p->start, p->end, SIM_EXCLUDED_SOURCE);
        }
      else if (ex->small_words > 0 && count_words (report, p->start, p->end) < ex->small_words)
        {
          mark (mask, n, p->start, p->end, NOT_FLAGGED);
          sim_exclude_add_span (chosen, p->start, p->end, SIM_EXCLUDED_SMALL);
        }
    }
  for (guint i = 0; ex->n_source_ids > 0 && i < sim_report_get_n_segments (report); i++)
    {
      const SimReportSegment *seg = sim_report_get_segment (report, i);

      if (sim_report_segment_is_flagged (seg) &&
          source_excluded (ex, sim_report_get_source (report, segment_source (report, seg))->doc_id))
        {
          mark (mask, n, seg->start, seg->end, NOT_FLAGGED);
          sim_exclude_add_span (chosen, seg->start, seg->end, SIM_EXCLUDED_SOURCE);
        }
    }
  for (guint i = 0; i < ex->n_template_spans; i++)
    {
      const SimExcludedSpan *t = &ex->template_spans[i];

      mark (mask, n, t->start, t->end, NOT_FLAGGED);
      sim_exclude_add_span (chosen, t->start, t->end, SIM_EXCLUDED_TEMPLATE);
    }
  return headline;
}

/* Whether [@start, @end) of the article holds only space (and, with
 * @punctuation, punctuation such as a closing quotation mark). */
static gboolean
only_space_between (const SimReport *report,
                    guint32          start,
                    guint32          end,
                    gboolean         punctuation)
{
  g_autofree char *between = NULL;

  if (end <= start)
    return TRUE;
  if (end - start > 16)
    return FALSE;
  between = sim_report_dup_text (report, start, end);
  for (const char *p = between; *p; p = g_utf8_next_char (p))
    {
      const gunichar c = g_utf8_get_char (p);

      if (!g_unichar_isspace (c) && !(punctuation && g_unichar_ispunct (c)))
        return FALSE;
    }
  return TRUE;
}

/* Appends the piece [@start, @end) of flagged segment @segment to the
 * runs: it continues the last run when that is from the same source, has
 * the same greying and only space lies between. */
static void
add_piece (SimReportView *view,
           guint          segment,
           guint32        start,
           guint32        end,
           gboolean       excluded)
{
  const SimReport *report = view->report;
  const SimReportSegment *seg = sim_report_get_segment (report, segment);
  const guint source = segment_source (report, seg);
  SimFlaggedRun *last = view->runs->len ? &g_array_index (view->runs, SimFlaggedRun, view->runs->len - 1) : NULL;

  if (last != NULL && last->source == source && last->excluded == excluded && last->end <= start &&
      last->last_segment + 1 >= segment && only_space_between (report, last->end, start, FALSE))
    {
      last->end = end;
      last->last_segment = segment;
      last->level = MAX (last->level, seg->level);
    }
  else
    {
      SimFlaggedRun run = { start, end, segment, segment, source, seg->level, 0, excluded, TRUE };

      g_array_append_val (view->runs, run);
    }
  if (view->segment_run[segment] < 0)
    view->segment_run[segment] = view->runs->len - 1;
}

/* The runs: the flagged characters, cut where the greying changes, with
 * pieces from one source and only space between joined: what a reader sees
 * as one highlighted stretch. @left_out marks the characters the headline
 * leaves out. */
static void
find_runs (SimReportView *view,
           const guint8  *left_out)
{
  const SimReport *report = view->report;
  const guint32 n = sim_report_get_n_chars (report);
  guint pi = 0;

  for (guint i = 0; i < sim_report_get_n_segments (report); i++)
    {
      const SimReportSegment *seg = sim_report_get_segment (report, i);
      guint32 from;

      view->segment_run[i] = -1;
      if (!sim_report_segment_is_flagged (seg))
        continue;
      from = seg->start;
      for (guint32 c = seg->start + 1; c <= MIN (seg->end, n); c++)
        if (c == MIN (seg->end, n) || left_out[c] != left_out[from])
          {
            add_piece (view, i, from, c, left_out[from]);
            from = c;
          }
    }

  /* One figure a run: its aligned passage's, else its segments' mean. */
  for (guint r = 0; r < view->runs->len; r++)
    {
      SimFlaggedRun *run = &g_array_index (view->runs, SimFlaggedRun, r);
      const SimPassage *holder = NULL;
      double weighted = 0;
      guint64 chars = 0;

      while (pi < sim_report_get_n_passages (report) && sim_report_get_passage (report, pi)->end <= run->start)
        pi++;
      for (guint j = pi; j < sim_report_get_n_passages (report) && holder == NULL; j++)
        {
          const SimPassage *p = sim_report_get_passage (report, j);

          if (p->start > run->start)
            break;
          if (p->source == run->source && p->end >= run->end)
            holder = p;
        }
      if (r + 1 < view->runs->len)
        {
          const SimFlaggedRun *next = &g_array_index (view->runs, SimFlaggedRun, r + 1);

          run->numbered = next->source != run->source ||
                          !only_space_between (view->report, run->end, next->start, TRUE);
        }
      if (holder != NULL)
        {
          run->similarity = holder->similarity;
          continue;
        }
      for (guint k = run->first_segment; k <= run->last_segment; k++)
        {
          const SimReportSegment *seg = sim_report_get_segment (report, k);

          weighted += (double) seg->similarity * (seg->end - seg->start);
          chars += seg->end - seg->start;
        }
      run->similarity = chars ? (float) (weighted / chars) : 0.0f;
    }
}

SimReportView *
sim_report_view_new (SimReport           *report,
                     const SimExclusions *ex)
{
  SimReportView *view = g_new0 (SimReportView, 1);
  const guint32 n = sim_report_get_n_chars (report);
  const guint n_segments = sim_report_get_n_segments (report);
  const guint n_sources = sim_report_get_n_sources (report);
  g_autofree guint8 *mask = g_malloc0 (MAX (n, 1));
  guint64 total = 0, kept[8] = { 0 };
  guint8 headline;

  g_return_val_if_fail (report != NULL, NULL);
  view->ref_count = 1;
  view->report = sim_report_ref (report);
  view->excluded = g_array_new (FALSE, FALSE, sizeof (SimExcludedSpan));
  view->segment_excluded = g_malloc0 (MAX (n_segments, 1));
  view->segment_run = g_new (gint32, MAX (n_segments, 1));
  view->runs = g_array_new (FALSE, FALSE, sizeof (SimFlaggedRun));
  view->shares = g_new0 (SimSourceShare, MAX (n_sources, 1));

  headline = mark_exclusions (report, ex, mask, view->excluded);
  merge_spans (view->excluded);

  /* Flagged characters under each combination of exclusions. */
  for (guint i = 0; i < n_segments; i++)
    {
      const SimReportSegment *seg = sim_report_get_segment (report, i);
      guint32 kept_headline = 0;
      gint bin;

      total += seg->end - seg->start;
      if (sim_report_segment_is_flagged (seg))
        {
          SimSourceShare *share = &view->shares[segment_source (report, seg)];

          for (guint32 c = seg->start; c < MIN (seg->end, n); c++)
            {
              for (guint8 m = 0; m < 8; m++)
                kept[m] += (mask[c] & m) == 0;
              kept_headline += (mask[c] & headline) == 0;
            }
          view->segment_excluded[i] = kept_headline == 0;
          share->n_chars += kept_headline;
          if (view->segment_excluded[i])
            {
              view->n_excluded_segments++;
              continue;
            }
          share->n_segments++;
          view->counts[seg->level]++;
        }
      else
        view->counts[SIM_LEVEL_LOW]++;
      bin = (gint) floorf (seg->similarity * SIM_CHART_BINS);
      view->histogram[CLAMP (bin, 0, SIM_CHART_BINS - 1)]++;
    }
  if (total > 0)
    {
      view->ratios.total = (float) kept[NOT_FLAGGED] / total;
      view->ratios.excluding_quotes = (float) kept[NOT_FLAGGED | QUOTE] / total;
      view->ratios.excluding_references = (float) kept[NOT_FLAGGED | REFERENCES] / total;
      view->ratios.excluding_both = (float) kept[NOT_FLAGGED | QUOTE | REFERENCES] / total;
      view->similarity = (float) kept[headline] / total;
      for (guint i = 0; i < n_sources; i++)
        {
          view->shares[i].share = (float) view->shares[i].n_chars / total;
          view->ratios.largest_source = MAX (view->ratios.largest_source, view->shares[i].share);
        }
    }
  for (guint32 c = 0; c < n; c++)
    mask[c] = (mask[c] & headline) != 0;
  find_runs (view, mask);
  return view;
}

SimReportView *
sim_report_view_ref (SimReportView *view)
{
  g_return_val_if_fail (view != NULL, NULL);
  g_atomic_int_inc (&view->ref_count);
  return view;
}

void
sim_report_view_unref (SimReportView *view)
{
  if (view == NULL || !g_atomic_int_dec_and_test (&view->ref_count))
    return;
  sim_report_unref (view->report);
  g_array_unref (view->excluded);
  g_free (view->segment_excluded);
  g_free (view->segment_run);
  g_array_unref (view->runs);
  g_free (view->shares);
  g_free (view);
}

SimReport *
sim_report_view_get_report (const SimReportView *view)
{
  return view->report;
}

float
sim_report_view_get_similarity (const SimReportView *view)
{
  return view->similarity;
}

const SimRatios *
sim_report_view_get_ratios (const SimReportView *view)
{
  return &view->ratios;
}

guint
sim_report_view_get_n_excluded (const SimReportView *view)
{
  return view->excluded->len;
}

const SimExcludedSpan *
sim_report_view_get_excluded (const SimReportView *view,
                              guint                index)
{
  g_return_val_if_fail (index < view->excluded->len, NULL);
  return &g_array_index (view->excluded, SimExcludedSpan, index);
}

gboolean
sim_report_view_is_segment_excluded (const SimReportView *view,
                                     guint                index)
{
  return index < sim_report_get_n_segments (view->report) && view->segment_excluded[index];
}

guint
sim_report_view_count_level (const SimReportView *view,
                             SimLevel             level)
{
  g_return_val_if_fail ((guint) level < G_N_ELEMENTS (view->counts), 0);
  return view->counts[level];
}

guint
sim_report_view_count_excluded (const SimReportView *view)
{
  return view->n_excluded_segments;
}

const guint *
sim_report_view_get_histogram (const SimReportView *view)
{
  return view->histogram;
}

SimLevel
sim_report_view_level_of (const SimReportView *view,
                          float                similarity)
{
  const SimReportSettings *s = sim_report_get_settings (view->report);

  return sim_level_of (similarity, s->high_threshold, s->medium_threshold);
}

guint
sim_report_view_get_n_runs (const SimReportView *view)
{
  return view->runs->len;
}

const SimFlaggedRun *
sim_report_view_get_run (const SimReportView *view,
                         guint                index)
{
  g_return_val_if_fail (index < view->runs->len, NULL);
  return &g_array_index (view->runs, SimFlaggedRun, index);
}

gint
sim_report_view_find_run (const SimReportView *view,
                          guint                segment)
{
  return segment < sim_report_get_n_segments (view->report) ? view->segment_run[segment] : -1;
}

const SimSourceShare *
sim_report_view_get_share (const SimReportView *view,
                           guint                index)
{
  g_return_val_if_fail (index < sim_report_get_n_sources (view->report), NULL);
  return &view->shares[index];
}
