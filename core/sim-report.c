/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <json-glib/json-glib.h>

#include "sim-text.h"
#include "sim-report.h"

/* Consecutive segments join one passage when their sources are this close. */
#define PASSAGE_SOURCE_GAP  400
/* A run of flagged segments this close to an aligned passage of its source,
 * going on in the same direction there, joins it. */
#define PASSAGE_ARTICLE_GAP 250

struct _SimReport {
  gint               ref_count;
  char              *text;
  guint32            n_chars;
  SimTextIndex       index;      /* code points of text to bytes */
  SimReportSettings  settings;
  char              *store;      /* owns settings.store */
  char              *format;     /* of the article's file, or NULL: text */
  char              *name;       /* the article's file name, or NULL */
  GArray            *segments;   /* SimReportSegment */
  GArray            *matches;    /* SimMatch */
  GArray            *passages;   /* SimPassage */
  GArray            *sources;    /* SimReportSource */
  float              similarity;  /* the headline: with the chosen exclusions */
  SimRatios          ratios;
  GArray            *excluded;    /* SimExcludedSpan */
  guint8            *segment_excluded; /* per segment, or NULL */
  guint              counts[3];
};

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
  report->excluded = g_array_new (FALSE, FALSE, sizeof (SimExcludedSpan));
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
  g_array_unref (report->excluded);
  g_free (report->segment_excluded);
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

const SimRatios *
sim_report_get_ratios (const SimReport *report)
{
  return &report->ratios;
}

guint
sim_report_get_n_excluded (const SimReport *report)
{
  return report->excluded->len;
}

const SimExcludedSpan *
sim_report_get_excluded (const SimReport *report,
                         guint            index)
{
  g_return_val_if_fail (index < report->excluded->len, NULL);
  return &g_array_index (report->excluded, SimExcludedSpan, index);
}

gboolean
sim_report_is_segment_excluded (const SimReport *report,
                                guint            index)
{
  return report->segment_excluded != NULL && index < report->segments->len && report->segment_excluded[index];
}

void
_sim_report_set_exclusions (SimReport       *report,
                            GArray          *spans,
                            const SimRatios *ratios,
                            float            similarity,
                            guint8          *segment_excluded)
{
  g_array_unref (report->excluded);
  report->excluded = spans;
  report->ratios = *ratios;
  report->similarity = similarity;
  g_free (report->segment_excluded);
  report->segment_excluded = segment_excluded;
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

guint
sim_report_count_level (const SimReport *report,
                        SimLevel         level)
{
  g_return_val_if_fail (level <= SIM_LEVEL_HIGH, 0);
  return report->counts[level];
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

guint
_sim_report_add_source (SimReport  *report,
                        gint64      doc_id,
                        const char *path,
                        const char *title)
{
  SimReportSource source = { 0 };

  for (guint i = 0; i < report->sources->len; i++)
    if (g_array_index (report->sources, SimReportSource, i).doc_id == doc_id)
      return i;
  source.doc_id = doc_id;
  source.path = g_strdup (path);
  source.display_path = g_filename_display_name (path);
  source.title = g_utf8_make_valid (title, -1);
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

static gboolean
is_flagged (const SimReportSegment *seg)
{
  return seg->level != SIM_LEVEL_LOW && seg->n_matches > 0;
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
      report->counts[seg->level]++;
      if (is_flagged (seg))
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
  /* Until exclusions are applied (sim-exclude.h), every figure is the total. */
  report->ratios = (SimRatios) { report->similarity, report->similarity, report->similarity,
                                 report->similarity, 0 };
  for (guint i = 0; i < n_sources && total > 0; i++)
    report->ratios.largest_source = MAX (report->ratios.largest_source,
                                         (float) g_array_index (report->sources, SimReportSource, i).n_chars / total);
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
   * passages of their own. */
  for (guint i = 0; i < report->segments->len; i++)
    {
      const SimReportSegment *seg = &g_array_index (report->segments, SimReportSegment, i);
      const SimMatch *best;

      if (!is_flagged (seg))
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
   * next to each other in the article that go on forward in the source,
   * however far (a summary condenses a source about tenfold). */
  {
    guint kept = 0;

    for (guint i = 0; i < report->passages->len; i++)
      {
        const SimPassage *p = &g_array_index (report->passages, SimPassage, i);
        SimPassage *last = kept ? &g_array_index (report->passages, SimPassage, kept - 1) : NULL;

        if (last != NULL && last->source == p->source &&
            (p->start < last->end ||
             (p->start - last->end <= PASSAGE_ARTICLE_GAP && p->source_start >= last->source_start &&
              p->source_start <= last->source_end + MAX (PASSAGE_SOURCE_GAP, 10 * (p->end - last->start)))))
          absorb (last, p);
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

static double
round3 (float x)
{
  return (double) lrintf (x * 1000.0f) / 1000.0;
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

const char *
sim_report_get_format (const SimReport *report)
{
  return report->format ? report->format : "text";
}

char *
sim_report_to_json (const SimReport *report,
                    const char      *file,
                    gboolean         pretty)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  const SimReportSettings *s = &report->settings;

  json_builder_begin_object (b);

  if (file != NULL)
    {
      g_autofree char *display = g_filename_display_name (file);

      json_builder_set_member_name (b, "file");
      json_builder_add_string_value (b, display);
    }
  json_builder_set_member_name (b, "format");
  json_builder_add_string_value (b, sim_report_get_format (report));
  json_builder_set_member_name (b, "settings");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "mode");
  json_builder_add_string_value (b, s->mode);
  json_builder_set_member_name (b, "window");
  json_builder_add_int_value (b, s->window);
  json_builder_set_member_name (b, "max_distance");
  json_builder_add_int_value (b, s->max_distance);
  json_builder_set_member_name (b, "search");
  json_builder_add_string_value (b, s->fast ? "fast" : "precise");
  json_builder_set_member_name (b, "high_threshold");
  json_builder_add_double_value (b, round3 (s->high_threshold));
  json_builder_set_member_name (b, "medium_threshold");
  json_builder_add_double_value (b, round3 (s->medium_threshold));
  json_builder_set_member_name (b, "fold_traditional");
  json_builder_add_boolean_value (b, s->fold_t2s);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "corpus");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "store");
  json_builder_add_string_value (b, s->store);
  json_builder_set_member_name (b, "documents");
  json_builder_add_int_value (b, s->n_documents);
  json_builder_set_member_name (b, "segments");
  json_builder_add_int_value (b, s->n_fingerprints);
  json_builder_set_member_name (b, "feature_version");
  json_builder_add_int_value (b, s->feature_version);
  json_builder_end_object (b);

  json_builder_set_member_name (b, "characters");
  json_builder_add_int_value (b, report->n_chars);
  json_builder_set_member_name (b, "similarity");
  json_builder_add_double_value (b, round3 (report->similarity));
  json_builder_set_member_name (b, "ratios");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "total");
  json_builder_add_double_value (b, round3 (report->ratios.total));
  json_builder_set_member_name (b, "excluding_quotes");
  json_builder_add_double_value (b, round3 (report->ratios.excluding_quotes));
  json_builder_set_member_name (b, "excluding_references");
  json_builder_add_double_value (b, round3 (report->ratios.excluding_references));
  json_builder_set_member_name (b, "excluding_both");
  json_builder_add_double_value (b, round3 (report->ratios.excluding_both));
  json_builder_set_member_name (b, "largest_source");
  json_builder_add_double_value (b, round3 (report->ratios.largest_source));
  json_builder_end_object (b);
  json_builder_set_member_name (b, "excluded");
  json_builder_begin_array (b);
  for (guint i = 0; i < report->excluded->len; i++)
    {
      const SimExcludedSpan *x = &g_array_index (report->excluded, SimExcludedSpan, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "start");
      json_builder_add_int_value (b, x->start);
      json_builder_set_member_name (b, "end");
      json_builder_add_int_value (b, x->end);
      json_builder_set_member_name (b, "reason");
      json_builder_add_string_value (b, sim_excluded_reason_to_string (x->reason));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_set_member_name (b, "counts");
  json_builder_begin_object (b);
  for (SimLevel level = SIM_LEVEL_LOW; level <= SIM_LEVEL_HIGH; level++)
    {
      json_builder_set_member_name (b, sim_level_to_string (level));
      json_builder_add_int_value (b, report->counts[level]);
    }
  json_builder_end_object (b);

  json_builder_set_member_name (b, "segments");
  json_builder_begin_array (b);
  for (guint i = 0; i < report->segments->len; i++)
    {
      const SimReportSegment *seg = &g_array_index (report->segments, SimReportSegment, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "start");
      json_builder_add_int_value (b, seg->start);
      json_builder_set_member_name (b, "end");
      json_builder_add_int_value (b, seg->end);
      json_builder_set_member_name (b, "level");
      json_builder_add_string_value (b, sim_level_to_string (seg->level));
      json_builder_set_member_name (b, "similarity");
      json_builder_add_double_value (b, round3 (seg->similarity));
      json_builder_set_member_name (b, "distance");
      json_builder_add_int_value (b, seg->distance);
      json_builder_set_member_name (b, "level_from");
      json_builder_add_string_value (b, seg->from_passage ? "passage" : "segment");
      json_builder_set_member_name (b, "matches");
      json_builder_begin_array (b);
      for (guint j = 0; j < seg->n_matches; j++)
        {
          const SimMatch *m = &g_array_index (report->matches, SimMatch, seg->first_match + j);
          const SimReportSource *src = &g_array_index (report->sources, SimReportSource, m->source);

          json_builder_begin_object (b);
          json_builder_set_member_name (b, "document");
          json_builder_add_string_value (b, src->display_path);
          json_builder_set_member_name (b, "doc_id");
          json_builder_add_int_value (b, src->doc_id);
          json_builder_set_member_name (b, "start");
          json_builder_add_int_value (b, m->start);
          json_builder_set_member_name (b, "end");
          json_builder_add_int_value (b, m->end);
          json_builder_set_member_name (b, "similarity");
          json_builder_add_double_value (b, round3 (m->similarity));
          json_builder_set_member_name (b, "distance");
          json_builder_add_int_value (b, m->distance);
          json_builder_end_object (b);
        }
      json_builder_end_array (b);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "passages");
  json_builder_begin_array (b);
  for (guint i = 0; i < report->passages->len; i++)
    {
      const SimPassage *p = &g_array_index (report->passages, SimPassage, i);
      const SimReportSource *src = &g_array_index (report->sources, SimReportSource, p->source);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "start");
      json_builder_add_int_value (b, p->start);
      json_builder_set_member_name (b, "end");
      json_builder_add_int_value (b, p->end);
      json_builder_set_member_name (b, "level");
      json_builder_add_string_value (b, sim_level_to_string (p->level));
      json_builder_set_member_name (b, "similarity");
      json_builder_add_double_value (b, round3 (p->similarity));
      json_builder_set_member_name (b, "segments");
      json_builder_add_int_value (b, p->n_segments);
      json_builder_set_member_name (b, "document");
      json_builder_add_string_value (b, src->display_path);
      json_builder_set_member_name (b, "doc_id");
      json_builder_add_int_value (b, src->doc_id);
      json_builder_set_member_name (b, "source_start");
      json_builder_add_int_value (b, p->source_start);
      json_builder_set_member_name (b, "source_end");
      json_builder_add_int_value (b, p->source_end);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_set_member_name (b, "sources");
  json_builder_begin_array (b);
  for (guint i = 0; i < report->sources->len; i++)
    {
      const SimReportSource *src = &g_array_index (report->sources, SimReportSource, i);

      json_builder_begin_object (b);
      /* The number and colour the window and the exports show it with. */
      json_builder_set_member_name (b, "number");
      json_builder_add_int_value (b, i + 1);
      json_builder_set_member_name (b, "color");
      json_builder_add_string_value (b, sim_source_color (i + 1));
      json_builder_set_member_name (b, "document");
      json_builder_add_string_value (b, src->display_path);
      json_builder_set_member_name (b, "doc_id");
      json_builder_add_int_value (b, src->doc_id);
      json_builder_set_member_name (b, "title");
      json_builder_add_string_value (b, src->title);
      json_builder_set_member_name (b, "segments");
      json_builder_add_int_value (b, src->n_segments);
      json_builder_set_member_name (b, "characters");
      json_builder_add_int_value (b, src->n_chars);
      json_builder_set_member_name (b, "share");
      json_builder_add_double_value (b, round3 (src->share));
      json_builder_end_object (b);
    }
  json_builder_end_array (b);

  json_builder_end_object (b);

  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, pretty);
  return json_generator_to_data (gen, NULL);
}
