/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gi18n-lib.h>
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
  GArray            *suspicious;  /* SimSuspicious */
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
  g_array_unref (report->excluded);
  g_array_unref (report->suspicious);
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
   * next to each other in the article whose source spans lie within twenty
   * times their article length of each other, in either order: a summary
   * condenses a whole source (PAN's tenfold to thirteenfold) and its
   * sentences draw on it in any order, and a writer who moves a sentence, or
   * shuffles phrases, still copied one passage (the source span is then the
   * union). */
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
                 p->source_end + MAX (PASSAGE_SOURCE_GAP, 20 * (p->end - last->start)) >= last->source_start)
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

static char *report_to_json (const SimReport *report,
                             const char      *file,
                             gboolean         pretty,
                             gboolean         saved);

char *
sim_report_to_json (const SimReport *report,
                    const char      *file,
                    gboolean         pretty)
{
  return report_to_json (report, file, pretty, FALSE);
}

/* The check's JSON; @saved adds what reopening needs: a version mark, the
 * article's name and text, and each match's source text. */
static char *
report_to_json (const SimReport *report,
                const char      *file,
                gboolean         pretty,
                gboolean         saved)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();
  g_autoptr(JsonGenerator) gen = json_generator_new ();
  g_autoptr(JsonNode) root = NULL;
  const SimReportSettings *s = &report->settings;

  json_builder_begin_object (b);
  if (saved)
    {
      json_builder_set_member_name (b, "saved_report");
      json_builder_add_int_value (b, SIM_SAVED_REPORT_VERSION);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, report->name ? report->name : "");
      json_builder_set_member_name (b, "text");
      json_builder_add_string_value (b, report->text);
    }

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
  if (s->corpus_updated > 0)
    {
      g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (s->corpus_updated);
      g_autofree char *iso = dt ? g_date_time_format_iso8601 (dt) : NULL;

      json_builder_set_member_name (b, "updated");
      json_builder_add_string_value (b, iso ? iso : "");
    }
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
  json_builder_set_member_name (b, "suspicious");
  json_builder_begin_array (b);
  for (guint i = 0; i < report->suspicious->len; i++)
    {
      const SimSuspicious *x = &g_array_index (report->suspicious, SimSuspicious, i);

      json_builder_begin_object (b);
      json_builder_set_member_name (b, "kind");
      json_builder_add_string_value (b, sim_suspicious_kind_to_string (x->kind));
      json_builder_set_member_name (b, "count");
      json_builder_add_int_value (b, x->count);
      json_builder_set_member_name (b, "start");
      json_builder_add_int_value (b, x->start);
      json_builder_set_member_name (b, "end");
      json_builder_add_int_value (b, x->end);
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
          if (saved)
            {
              json_builder_set_member_name (b, "excerpt");
              json_builder_add_string_value (b, m->excerpt ? m->excerpt : "");
            }
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

/* ------------------------------------------------------ saved reports */

char *
sim_report_to_saved_json (const SimReport *report)
{
  return report_to_json (report, NULL, FALSE, TRUE);
}

/* Reading a saved report trusts nothing: every member is checked for its
 * type and range, and the first problem is the error. */
typedef struct {
  GError **error;
  gboolean failed;
} Reader;

static void
bad (Reader     *r,
     const char *what)
{
  if (!r->failed)
    g_set_error (r->error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                 _("Not a Simhound report, or a damaged one: %s"), what);
  r->failed = TRUE;
}

static JsonNode *
member (Reader     *r,
        JsonObject *o,
        const char *name,
        JsonNodeType type)
{
  JsonNode *node = o ? json_object_get_member (o, name) : NULL;

  if (node == NULL || JSON_NODE_TYPE (node) != type)
    {
      g_autofree char *what = g_strdup_printf ("“%s” is missing or of the wrong type", name);

      bad (r, what);
      return NULL;
    }
  return node;
}

static gint64
int_member (Reader     *r,
            JsonObject *o,
            const char *name,
            gint64      lo,
            gint64      hi)
{
  JsonNode *node = member (r, o, name, JSON_NODE_VALUE);
  gint64 v;

  if (node == NULL)
    return lo;
  if (json_node_get_value_type (node) != G_TYPE_INT64)
    {
      bad (r, name);
      return lo;
    }
  v = json_node_get_int (node);
  if (v < lo || v > hi)
    {
      g_autofree char *what = g_strdup_printf ("“%s” is out of range", name);

      bad (r, what);
      return lo;
    }
  return v;
}

static double
double_member (Reader     *r,
               JsonObject *o,
               const char *name)
{
  JsonNode *node = member (r, o, name, JSON_NODE_VALUE);
  double v;

  if (node == NULL)
    return 0;
  if (json_node_get_value_type (node) != G_TYPE_DOUBLE && json_node_get_value_type (node) != G_TYPE_INT64)
    {
      bad (r, name);
      return 0;
    }
  v = json_node_get_double (node);
  if (!(v >= 0 && v <= 1))
    {
      bad (r, name);
      return 0;
    }
  return v;
}

static const char *
string_member (Reader     *r,
               JsonObject *o,
               const char *name)
{
  JsonNode *node = member (r, o, name, JSON_NODE_VALUE);

  if (node == NULL || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      if (node != NULL)
        bad (r, name);
      return "";
    }
  return json_node_get_string (node);
}

static SimLevel
level_member (Reader     *r,
              JsonObject *o,
              const char *name)
{
  const char *s = string_member (r, o, name);

  for (SimLevel level = SIM_LEVEL_LOW; level <= SIM_LEVEL_HIGH; level++)
    if (g_str_equal (s, sim_level_to_string (level)))
      return level;
  bad (r, name);
  return SIM_LEVEL_LOW;
}

static JsonArray *
array_member (Reader     *r,
              JsonObject *o,
              const char *name)
{
  JsonNode *node = member (r, o, name, JSON_NODE_ARRAY);

  return node ? json_node_get_array (node) : NULL;
}

static JsonObject *
object_at (Reader    *r,
           JsonArray *a,
           guint      i)
{
  JsonNode *node = json_array_get_element (a, i);

  if (JSON_NODE_TYPE (node) != JSON_NODE_OBJECT)
    {
      bad (r, "an entry is not an object");
      return NULL;
    }
  return json_node_get_object (node);
}

/* The index of the source with @doc_id, or -1 (an error). */
static gint
source_of (Reader    *r,
           SimReport *report,
           gint64     doc_id)
{
  for (guint i = 0; i < report->sources->len; i++)
    if (g_array_index (report->sources, SimReportSource, i).doc_id == doc_id)
      return i;
  bad (r, "a match names a document that is not among the sources");
  return -1;
}

SimReport *
sim_report_from_saved_json (const char  *data,
                            gssize       len,
                            GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(SimReport) report = NULL;
  Reader r = { error, FALSE };
  JsonNode *root;
  JsonObject *o, *settings, *corpus;
  JsonArray *sources, *segments, *passages;
  SimReportSettings s = { 0 };
  const char *text, *mode;
  guint64 total = 0, flagged = 0;

  if (!json_parser_load_from_data (parser, data, len, error))
    return NULL;
  root = json_parser_get_root (parser);
  o = root && JSON_NODE_TYPE (root) == JSON_NODE_OBJECT ? json_node_get_object (root) : NULL;
  if (o == NULL || !json_object_has_member (o, "saved_report"))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("Not a saved Simhound report (a check’s JSON without its text cannot be reopened)"));
      return NULL;
    }
  if (int_member (&r, o, "saved_report", 1, G_MAXINT) > SIM_SAVED_REPORT_VERSION)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("The report was saved by a newer Simhound"));
      return NULL;
    }
  text = string_member (&r, o, "text");
  {
    JsonNode *node = member (&r, o, "settings", JSON_NODE_OBJECT);

    settings = node ? json_node_get_object (node) : NULL;
    node = member (&r, o, "corpus", JSON_NODE_OBJECT);
    corpus = node ? json_node_get_object (node) : NULL;
  }
  if (r.failed)
    return NULL;
  mode = string_member (&r, settings, "mode");
  s.mode = g_str_equal (mode, "window") ? "window" : "sentence";
  s.window = int_member (&r, settings, "window", 1, G_MAXINT);
  s.max_distance = int_member (&r, settings, "max_distance", 0, 64);
  s.fast = g_str_equal (string_member (&r, settings, "search"), "fast");
  s.high_threshold = double_member (&r, settings, "high_threshold");
  s.medium_threshold = double_member (&r, settings, "medium_threshold");
  {
    JsonNode *fold = member (&r, settings, "fold_traditional", JSON_NODE_VALUE);

    s.fold_t2s = fold && json_node_get_value_type (fold) == G_TYPE_BOOLEAN && json_node_get_boolean (fold);
  }
  s.store = string_member (&r, corpus, "store");
  s.n_documents = int_member (&r, corpus, "documents", 0, G_MAXUINT);
  s.n_fingerprints = int_member (&r, corpus, "segments", 0, G_MAXINT64);
  s.feature_version = int_member (&r, corpus, "feature_version", 0, G_MAXUINT);
  if (corpus != NULL && json_object_has_member (corpus, "updated"))
    {
      g_autoptr(GDateTime) dt = g_date_time_new_from_iso8601 (string_member (&r, corpus, "updated"), NULL);

      s.corpus_updated = dt ? g_date_time_to_unix (dt) : 0;
    }
  if (r.failed)
    return NULL;

  report = _sim_report_new (text, strlen (text), &s);
  if (int_member (&r, o, "characters", 0, G_MAXUINT32) != report->n_chars)
    bad (&r, "the text is not as long as the report says");
  if (*string_member (&r, o, "name"))
    sim_report_set_name (report, string_member (&r, o, "name"));
  if (json_object_has_member (o, "format"))
    sim_report_set_format (report, string_member (&r, o, "format"));
  if (json_object_has_member (o, "suspicious"))
    {
      JsonArray *list = array_member (&r, o, "suspicious");

      for (guint i = 0; list && !r.failed && i < json_array_get_length (list); i++)
        {
          JsonObject *so = object_at (&r, list, i);
          SimSuspicious x = { 0 };
          const char *kind;
          guint k;

          if (so == NULL)
            break;
          kind = string_member (&r, so, "kind");
          for (k = 0; k < G_N_ELEMENTS (suspicious_names) && !g_str_equal (kind, suspicious_names[k]); k++)
            ;
          if (k == G_N_ELEMENTS (suspicious_names))
            continue;  /* a kind a newer version knows */
          x.kind = k;
          x.count = int_member (&r, so, "count", 0, G_MAXUINT);
          x.start = int_member (&r, so, "start", 0, report->n_chars);
          x.end = int_member (&r, so, "end", x.start, report->n_chars);
          sim_report_add_suspicious (report, &x);
        }
    }

  /* Sources, in their ranked order. */
  sources = array_member (&r, o, "sources");
  for (guint i = 0; sources && !r.failed && i < json_array_get_length (sources); i++)
    {
      JsonObject *so = object_at (&r, sources, i);
      SimReportSource src = { 0 };

      if (so == NULL)
        break;
      src.doc_id = int_member (&r, so, "doc_id", 0, G_MAXINT64);
      src.display_path = g_strdup (string_member (&r, so, "document"));
      src.path = g_strdup (src.display_path);
      src.title = g_strdup (string_member (&r, so, "title"));
      src.n_segments = int_member (&r, so, "segments", 0, G_MAXUINT);
      src.n_chars = int_member (&r, so, "characters", 0, report->n_chars);
      src.share = double_member (&r, so, "share");
      g_array_append_val (report->sources, src);
    }

  /* Segments in article order, inside the text, with their matches. */
  segments = array_member (&r, o, "segments");
  for (guint i = 0; segments && !r.failed && i < json_array_get_length (segments); i++)
    {
      JsonObject *so = object_at (&r, segments, i);
      SimReportSegment seg = { 0 };
      JsonArray *matches;

      if (so == NULL)
        break;
      seg.start = int_member (&r, so, "start", 0, report->n_chars);
      seg.end = int_member (&r, so, "end", seg.start, report->n_chars);
      if (report->segments->len > 0 &&
          seg.start < g_array_index (report->segments, SimReportSegment, report->segments->len - 1).end)
        bad (&r, "segments overlap or are out of order");
      seg.level = level_member (&r, so, "level");
      seg.similarity = double_member (&r, so, "similarity");
      seg.distance = int_member (&r, so, "distance", 0, 64);
      seg.from_passage = g_str_equal (string_member (&r, so, "level_from"), "passage");
      seg.first_match = report->matches->len;
      matches = array_member (&r, so, "matches");
      for (guint j = 0; matches && !r.failed && j < json_array_get_length (matches); j++)
        {
          JsonObject *mo = object_at (&r, matches, j);
          SimMatch m = { 0 };
          gint source;

          if (mo == NULL)
            break;
          source = source_of (&r, report, int_member (&r, mo, "doc_id", 0, G_MAXINT64));
          if (source < 0)
            break;
          m.source = source;
          m.start = int_member (&r, mo, "start", 0, G_MAXUINT32);
          m.end = int_member (&r, mo, "end", m.start, G_MAXUINT32);
          m.similarity = double_member (&r, mo, "similarity");
          m.distance = int_member (&r, mo, "distance", 0, 64);
          m.excerpt = g_utf8_make_valid (string_member (&r, mo, "excerpt"), -1);
          g_array_append_val (report->matches, m);
          seg.n_matches++;
        }
      if (seg.level != SIM_LEVEL_LOW && seg.n_matches == 0)
        bad (&r, "a flagged segment has no source");
      g_array_append_val (report->segments, seg);
      report->counts[seg.level]++;
      total += seg.end - seg.start;
      flagged += is_flagged (&seg) ? seg.end - seg.start : 0;
    }

  /* Passages, each over whole segments of the article. */
  passages = array_member (&r, o, "passages");
  for (guint i = 0; passages && !r.failed && i < json_array_get_length (passages); i++)
    {
      JsonObject *po = object_at (&r, passages, i);
      SimPassage p = { 0 };
      gint source, first;

      if (po == NULL)
        break;
      p.start = int_member (&r, po, "start", 0, report->n_chars);
      p.end = int_member (&r, po, "end", p.start, report->n_chars);
      p.level = level_member (&r, po, "level");
      p.similarity = double_member (&r, po, "similarity");
      p.n_segments = int_member (&r, po, "segments", 0, report->segments->len);
      p.source_start = int_member (&r, po, "source_start", 0, G_MAXUINT32);
      p.source_end = int_member (&r, po, "source_end", p.source_start, G_MAXUINT32);
      source = source_of (&r, report, int_member (&r, po, "doc_id", 0, G_MAXINT64));
      first = sim_report_find_segment (report, p.start);
      if (r.failed || source < 0)
        break;
      if (first < 0 || first + p.n_segments > report->segments->len)
        {
          bad (&r, "a passage is not over the article’s segments");
          break;
        }
      p.source = source;
      p.first_segment = first;
      g_array_append_val (report->passages, p);
    }
  if (r.failed)
    return NULL;
  report->similarity = total ? (float) flagged / total : 0.0f;
  report->ratios = (SimRatios) { report->similarity, report->similarity, report->similarity,
                                 report->similarity, 0 };
  for (guint i = 0; i < report->sources->len && total > 0; i++)
    report->ratios.largest_source = MAX (report->ratios.largest_source,
                                         (float) g_array_index (report->sources, SimReportSource, i).n_chars / total);
  return g_steal_pointer (&report);
}
