/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "sim-text.h"
#include "sim-report.h"
#include "sim-report-private.h"

/* Consecutive segments join one passage when their sources are this close. */
#define PASSAGE_SOURCE_GAP  400
/* A run of flagged segments this close to an aligned passage of its source,
 * going on in the same direction there, joins it. */
#define PASSAGE_ARTICLE_GAP 250



SimReport *
_sim_report_new (const char              *text,
                 gsize                    len,
                 const SimReportSettings *settings)
{
  SimReport *report = g_new0 (SimReport, 1);

  report->ref_count = 1;
  report->text = g_strndup (text, len);
  sim_text_index_init (&report->index, report->text, strlen (report->text));
  report->n_chars = report->index.n_chars;
  report->settings = *settings;
  report->store = g_strdup (settings->store);
  report->settings.store = report->store;
  report->segments = g_array_new (FALSE, FALSE, sizeof (SimReportSegment));
  report->matches = g_array_new (FALSE, FALSE, sizeof (SimMatch));
  report->passages = g_array_new (FALSE, FALSE, sizeof (SimPassage));
  report->sources = g_array_new (FALSE, FALSE, sizeof (SimReportSource));
  report->suspicious = g_array_new (FALSE, FALSE, sizeof (SimSuspicious));
  /* The disguises are in the text itself: every report says them. */
  {
    SimDisguises d;

    sim_text_find_disguises (report->text, -1, &d);
    sim_report_add_suspicious (report, &(SimSuspicious) { SIM_SUSPICIOUS_LOOKALIKE, d.n_lookalikes,
                                                          d.lookalike_start, d.lookalike_end });
    sim_report_add_suspicious (report, &(SimSuspicious) { SIM_SUSPICIOUS_INVISIBLE, d.n_invisible,
                                                          d.invisible_start, d.invisible_end });
  }
  return report;
}

SimReport *
sim_report_ref (SimReport *report)
{
  g_atomic_int_inc (&report->ref_count);
  return report;
}

void
sim_report_unref (SimReport *report)
{
  if (report == NULL || !g_atomic_int_dec_and_test (&report->ref_count))
    return;
  for (guint i = 0; i < report->matches->len; i++)
    g_free (g_array_index (report->matches, SimMatch, i).excerpt);
  for (guint i = 0; i < report->sources->len; i++)
    {
      SimReportSource *source = &g_array_index (report->sources, SimReportSource, i);

      g_free (source->path);
      g_free (source->display_path);
      g_free (source->title);
    }
  g_array_unref (report->segments);
  g_array_unref (report->matches);
  g_array_unref (report->passages);
  g_array_unref (report->sources);
  g_free (report->store);
  g_free (report->format);
  g_free (report->name);
  g_array_unref (report->suspicious);
  sim_text_index_clear (&report->index);
  g_free (report->text);
  g_free (report);
}

const char *
sim_report_get_text (const SimReport *report)
{
  return report->text;
}

guint32
sim_report_get_n_chars (const SimReport *report)
{
  return report->n_chars;
}

const SimReportSettings *
sim_report_get_settings (const SimReport *report)
{
  return &report->settings;
}

float
sim_report_get_similarity (const SimReport *report)
{
  return report->similarity;
}

static const char *const reason_names[] = { "quote", "references", "small", "source", "template" };

const char *
sim_excluded_reason_to_string (SimExcludedReason reason)
{
  g_return_val_if_fail ((guint) reason < G_N_ELEMENTS (reason_names), "");
  return reason_names[reason];
}

guint
sim_report_get_n_segments (const SimReport *report)
{
  return report->segments->len;
}

const SimReportSegment *
sim_report_get_segment (const SimReport *report,
                        guint            index)
{
  g_return_val_if_fail (index < report->segments->len, NULL);
  return &g_array_index (report->segments, SimReportSegment, index);
}

const SimMatch *
sim_report_get_match (const SimReport *report,
                      guint            index)
{
  g_return_val_if_fail (index < report->matches->len, NULL);
  return &g_array_index (report->matches, SimMatch, index);
}

guint
sim_report_get_n_passages (const SimReport *report)
{
  return report->passages->len;
}

const SimPassage *
sim_report_get_passage (const SimReport *report,
                        guint            index)
{
  g_return_val_if_fail (index < report->passages->len, NULL);
  return &g_array_index (report->passages, SimPassage, index);
}

guint
sim_report_get_n_sources (const SimReport *report)
{
  return report->sources->len;
}

const SimReportSource *
sim_report_get_source (const SimReport *report,
                       guint            index)
{
  g_return_val_if_fail (index < report->sources->len, NULL);
  return &g_array_index (report->sources, SimReportSource, index);
}

gboolean
sim_report_segment_is_too_short (const SimReport        *report,
                                 const SimReportSegment *seg)
{
  return !sim_report_segment_is_flagged (seg) && seg->similarity >= report->settings.medium_threshold;
}

char *
sim_report_dup_text (const SimReport *report,
                     guint32          start,
                     guint32          end)
{
  const char *from, *to;

  g_return_val_if_fail (start <= end && end <= report->n_chars, NULL);
  from = sim_text_index_pointer (&report->index, start);
  to = sim_text_index_pointer (&report->index, end);
  return g_strndup (from, to - from);
}

gint
sim_report_find_segment (const SimReport *report,
                         guint32          offset)
{
  guint lo = 0, hi = report->segments->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const SimReportSegment *seg = &g_array_index (report->segments, SimReportSegment, mid);

      if (seg->end <= offset)
        lo = mid + 1;
      else if (seg->start > offset)
        hi = mid;
      else
        return mid;
    }
  return -1;
}

const char *
sim_report_source_withheld_note (void)
{
  return _("Source text not available to this account");
}

guint
_sim_report_add_source (SimReport  *report,
                        gint64      doc_id,
                        const char *path,
                        const char *title,
                        gboolean    text_withheld)
{
  SimReportSource source = { 0 };

  for (guint i = 0; i < report->sources->len; i++)
    if (g_array_index (report->sources, SimReportSource, i).doc_id == doc_id)
      return i;
  source.doc_id = doc_id;
  source.path = g_strdup (path);
  source.display_path = g_filename_display_name (path);
  source.title = g_utf8_make_valid (title, -1);
  source.text_withheld = text_withheld;
  g_array_append_val (report->sources, source);
  return report->sources->len - 1;
}

void
_sim_report_add_segment (SimReport              *report,
                         const SimReportSegment *segment,
                         SimMatch               *matches,
                         guint                   n_matches)
{
  SimReportSegment seg = *segment;

  seg.first_match = report->matches->len;
  seg.n_matches = n_matches;
  g_array_append_vals (report->matches, matches, n_matches);
  g_array_append_val (report->segments, seg);
}

static int
compare_sources (gconstpointer a,
                 gconstpointer b,
                 gpointer      user_data)
{
  const SimReportSource *sources = user_data;
  const SimReportSource *x = &sources[*(const guint *) a];
  const SimReportSource *y = &sources[*(const guint *) b];

  if (x->n_chars != y->n_chars)
    return x->n_chars > y->n_chars ? -1 : 1;
  return x->doc_id < y->doc_id ? -1 : x->doc_id > y->doc_id;
}

void
_sim_report_add_passage (SimReport        *report,
                         const SimPassage *passage)
{
  g_array_append_val (report->passages, *passage);
}

/* Widens @p by @other of the same source. The source span grows only on a
 * side where the article span does: inside an aligned passage, a segment's
 * own match may be another occurrence of a common phrase. */
static void
absorb (SimPassage       *p,
        const SimPassage *other)
{
  if (other->start < p->start)
    {
      p->start = other->start;
      p->source_start = MIN (p->source_start, other->source_start);
    }
  if (other->end > p->end)
    {
      p->end = other->end;
      p->source_end = MAX (p->source_end, other->source_end);
    }
  p->level = MAX (p->level, other->level);
  p->similarity = MAX (p->similarity, other->similarity);
}

/* Whether @run (flagged segments of @p's source) belongs to the aligned
 * passage @p: it overlaps it, or follows or precedes it closely in the
 * article while going on in the same direction in the source. */
static gboolean
continues (const SimPassage *p,
           const SimPassage *run)
{
  const guint32 reach = MAX (PASSAGE_SOURCE_GAP, 2 * (p->source_end - p->source_start));

  if (run->start < p->end && p->start < run->end)
    return TRUE;
  if (run->start >= p->end)
    return run->start - p->end <= PASSAGE_ARTICLE_GAP && run->source_start >= p->source_start &&
           run->source_start <= p->source_end + reach;
  return p->start - run->end <= PASSAGE_ARTICLE_GAP && run->source_end <= p->source_end &&
         run->source_end + reach >= p->source_start;
}

/* Whether @p copies a stretch of its source as long as itself, as a copy
 * does and a summary (which condenses) does not. */
static gboolean
is_whole_copy (const SimPassage *p)
{
  const guint32 a = p->end - p->start, b = p->source_end - p->source_start;

  return 2 * b <= 3 * a && 2 * a <= 3 * b;
}

static int
compare_passages (gconstpointer a,
                  gconstpointer b)
{
  const SimPassage *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->end < y->end ? -1 : x->end > y->end;
}

void
_sim_report_finish (SimReport *report)
{
  guint64 total = 0, flagged = 0;
  const guint n_sources = report->sources->len;
  g_autofree guint *order = g_new (guint, MAX (n_sources, 1));
  g_autofree guint *rank = g_new (guint, MAX (n_sources, 1));
  GArray *sorted;
  SimPassage *open = NULL;
  g_autoptr(GArray) runs = g_array_new (FALSE, FALSE, sizeof (SimPassage));
  const guint n_aligned = report->passages->len;

  for (guint i = 0; i < report->segments->len; i++)
    {
      const SimReportSegment *seg = &g_array_index (report->segments, SimReportSegment, i);
      const guint32 len = seg->end - seg->start;

      total += len;
      if (sim_report_segment_is_flagged (seg))
        {
          SimReportSource *source;

          flagged += len;
          source = &g_array_index (report->sources, SimReportSource,
                                   g_array_index (report->matches, SimMatch, seg->first_match).source);
          source->n_segments++;
          source->n_chars += len;
        }
    }
  report->similarity = total ? (float) flagged / total : 0.0f;
  for (guint i = 0; i < n_sources; i++)
    {
      SimReportSource *source = &g_array_index (report->sources, SimReportSource, i);

      source->share = total ? (float) source->n_chars / total : 0.0f;
      order[i] = i;
    }

  /* Rank sources by share and renumber every reference to them. */
  g_qsort_with_data (order, n_sources, sizeof (guint), compare_sources, report->sources->data);
  sorted = g_array_sized_new (FALSE, FALSE, sizeof (SimReportSource), n_sources);
  for (guint i = 0; i < n_sources; i++)
    {
      rank[order[i]] = i;
      g_array_append_val (sorted, g_array_index (report->sources, SimReportSource, order[i]));
    }
  g_array_unref (report->sources);
  report->sources = sorted;
  for (guint i = 0; i < report->matches->len; i++)
    {
      SimMatch *m = &g_array_index (report->matches, SimMatch, i);

      m->source = rank[m->source];
    }

  for (guint i = 0; i < report->passages->len; i++)
    {
      SimPassage *p = &g_array_index (report->passages, SimPassage, i);

      p->source = rank[p->source];
    }

  /* Runs of flagged segments whose best match is one source, in order: a
   * run inside an aligned passage of that source widens it, the others are
   * passages of their own. A segment flagged only for the passage around it
   * widens nothing: the passage ends where its source's words end, which
   * may be inside the segment (a copy that stops mid-sentence). */
  for (guint i = 0; i < report->segments->len; i++)
    {
      const SimReportSegment *seg = &g_array_index (report->segments, SimReportSegment, i);
      const SimMatch *best;

      if (!sim_report_segment_is_flagged (seg) || seg->from_passage)
        {
          open = NULL;
          continue;
        }
      best = &g_array_index (report->matches, SimMatch, seg->first_match);
      if (open != NULL && open->source == best->source &&
          best->start + PASSAGE_SOURCE_GAP >= open->source_end &&
          best->start <= open->source_end + PASSAGE_SOURCE_GAP)
        {
          const guint32 old_len = open->end - open->start;
          const guint32 add_len = seg->end - seg->start;

          open->similarity = (open->similarity * old_len + seg->similarity * add_len) /
                             MAX (old_len + add_len, 1);
          open->end = seg->end;
          open->source_start = MIN (open->source_start, best->start);
          open->source_end = MAX (open->source_end, best->end);
          open->level = MAX (open->level, seg->level);
        }
      else
        {
          SimPassage passage = { 0 };

          passage.start = seg->start;
          passage.end = seg->end;
          passage.source = best->source;
          passage.source_start = best->start;
          passage.source_end = best->end;
          passage.similarity = seg->similarity;
          passage.level = seg->level;
          g_array_append_val (runs, passage);
          open = &g_array_index (runs, SimPassage, runs->len - 1);
        }
    }
  for (guint r = 0; r < runs->len; r++)
    {
      const SimPassage *run = &g_array_index (runs, SimPassage, r);
      SimPassage *into = NULL;

      /* One it overlaps first, else one it continues. */
      for (guint pass = 0; pass < 2 && into == NULL; pass++)
        for (guint i = 0; i < n_aligned && into == NULL; i++)
          {
            SimPassage *p = &g_array_index (report->passages, SimPassage, i);

            if (p->source == run->source &&
                (pass == 0 ? run->start < p->end && p->start < run->end : continues (p, run)))
              into = p;
          }
      if (into == NULL)
        {
          g_array_append_val (report->passages, *run);
          continue;
        }
      absorb (into, run);
    }
  g_array_sort (report->passages, compare_passages);
  /* Passages of one source that now overlap are one, and so are passages
   * next to each other in the article whose source spans lie within twenty
   * times their article length of each other, in either order: a summary
   * condenses a whole source (PAN's tenfold to thirteenfold) and its
   * sentences draw on it in any order, and a writer who moves a sentence, or
   * shuffles phrases, still copied one passage (the source span is then the
   * union). Two copies each as long as their source stretch, the later one
   * taken from well before the earlier, are two passages: one would paint
   * the source's text between them as copied. */
  {
    guint kept = 0;

    for (guint i = 0; i < report->passages->len; i++)
      {
        const SimPassage *p = &g_array_index (report->passages, SimPassage, i);
        SimPassage *last = kept ? &g_array_index (report->passages, SimPassage, kept - 1) : NULL;

        if (last != NULL && last->source == p->source && p->start < last->end)
          absorb (last, p);
        else if (last != NULL && last->source == p->source && p->start - last->end <= PASSAGE_ARTICLE_GAP &&
                 p->source_start <= last->source_end + MAX (PASSAGE_SOURCE_GAP, 20 * (p->end - last->start)) &&
                 p->source_end + MAX (PASSAGE_SOURCE_GAP, 20 * (p->end - last->start)) >= last->source_start &&
                 !(is_whole_copy (last) && is_whole_copy (p) &&
                   p->source_end + PASSAGE_SOURCE_GAP < last->source_start))
          {
            absorb (last, p);
            last->source_start = MIN (last->source_start, p->source_start);
          }
        else
          g_array_index (report->passages, SimPassage, kept++) = *p;
      }
    g_array_set_size (report->passages, kept);
  }

  /* The segments of each passage: those mostly inside it. */
  for (guint i = 0, first = 0; i < report->passages->len; i++)
    {
      SimPassage *p = &g_array_index (report->passages, SimPassage, i);

      while (first < report->segments->len &&
             g_array_index (report->segments, SimReportSegment, first).end <= p->start)
        first++;
      p->first_segment = first;
      p->n_segments = 0;
      for (guint k = first; k < report->segments->len; k++)
        {
          const SimReportSegment *seg = &g_array_index (report->segments, SimReportSegment, k);
          const guint32 lo = MAX (seg->start, p->start), hi = MIN (seg->end, p->end);

          if (seg->start >= p->end)
            break;
          if (hi > lo && 2 * (hi - lo) >= seg->end - seg->start)
            {
              if (p->n_segments == 0)
                p->first_segment = k;
              p->n_segments = k + 1 - p->first_segment;
            }
        }
    }
}

void
sim_report_set_format (SimReport  *report,
                       const char *format)
{
  g_free (report->format);
  report->format = g_strdup (format);
}

void
sim_report_set_name (SimReport  *report,
                     const char *name)
{
  g_free (report->name);
  report->name = g_strdup (name);
}

const char *
sim_report_get_name (const SimReport *report)
{
  return report->name;
}

static const char *const suspicious_names[] = {
  [SIM_SUSPICIOUS_LOOKALIKE] = "look-alike-characters",
  [SIM_SUSPICIOUS_INVISIBLE] = "invisible-characters",
  [SIM_SUSPICIOUS_HIDDEN] = "hidden-text",
};

const char *
sim_suspicious_kind_to_string (SimSuspiciousKind kind)
{
  g_return_val_if_fail (kind < G_N_ELEMENTS (suspicious_names), "");
  return suspicious_names[kind];
}

char *
sim_suspicious_dup_description (const SimSuspicious *x)
{
  switch (x->kind)
    {
    case SIM_SUSPICIOUS_LOOKALIKE:
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                           "%u Cyrillic or Greek letter disguised as a Latin one inside words "
                                           "(checked as the letter it imitates)",
                                           "%u Cyrillic or Greek letters disguised as Latin ones inside words "
                                           "(checked as the letters they imitate)", x->count), x->count);
    case SIM_SUSPICIOUS_INVISIBLE:
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                           "%u invisible character inside words (ignored by the check)",
                                           "%u invisible characters inside words (ignored by the check)",
                                           x->count), x->count);
    case SIM_SUSPICIOUS_HIDDEN:
    default:
      return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                           "%u character of hidden text in the file, which a reader does not see "
                                           "(left out of the check)",
                                           "%u characters of hidden text in the file, which a reader does not see "
                                           "(left out of the check)", x->count), x->count);
    }
}

guint
sim_report_get_n_suspicious (const SimReport *report)
{
  return report->suspicious->len;
}

const SimSuspicious *
sim_report_get_suspicious (const SimReport *report,
                           guint            index)
{
  g_return_val_if_fail (index < report->suspicious->len, NULL);
  return &g_array_index (report->suspicious, SimSuspicious, index);
}

void
sim_report_add_suspicious (SimReport           *report,
                           const SimSuspicious *suspicious)
{
  guint at = 0;
  SimSuspicious s = *suspicious;

  g_return_if_fail (suspicious->kind < G_N_ELEMENTS (suspicious_names));
  if (s.count == 0)
    return;
  s.end = MIN (MAX (s.end, s.start), report->n_chars);
  s.start = MIN (s.start, s.end);
  while (at < report->suspicious->len && g_array_index (report->suspicious, SimSuspicious, at).kind < s.kind)
    at++;
  if (at < report->suspicious->len && g_array_index (report->suspicious, SimSuspicious, at).kind == s.kind)
    g_array_index (report->suspicious, SimSuspicious, at) = s;
  else
    g_array_insert_val (report->suspicious, at, s);
}

const char *
sim_report_get_format (const SimReport *report)
{
  return report->format ? report->format : "text";
}

static int
compare_spans64 (gconstpointer a,
                 gconstpointer b)
{
  const guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

guint32
sim_spans_cover (guint64 *spans,
                 gsize    n)
{
  guint32 covered = 0, reach = 0;

  if (n == 0)
    return 0;  /* an empty GArray's data may be NULL, which qsort must not get */
  qsort (spans, n, sizeof (guint64), compare_spans64);
  for (gsize i = 0; i < n; i++)
    {
      const guint32 start = spans[i] >> 32, end = spans[i] & 0xffffffffu;

      if (end > MAX (start, reach))
        covered += end - MAX (start, reach);
      reach = MAX (reach, end);
    }
  return covered;
}

guint32
sim_passages_cover (const SimPassage *passages,
                    guint             n,
                    gboolean          source_side)
{
  g_autofree guint64 *spans = g_new (guint64, MAX (n, 1));

  for (guint i = 0; i < n; i++)
    spans[i] = source_side ? (guint64) passages[i].source_start << 32 | passages[i].source_end
                           : (guint64) passages[i].start << 32 | passages[i].end;
  return sim_spans_cover (spans, n);
}
