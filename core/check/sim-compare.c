/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "sim-align.h"
#include "sim-error.h"
#include "sim-compare.h"

/* One side: its valid text, units, sentences, and an index of its code
 * points (so excerpts cost no scan from the start). */
typedef struct {
  char         *text;
  gsize         len;
  SimUnits      units;
  GArray       *sentences;  /* SimSegment */
  SimTextIndex  index;
  SimAlignSide *align;      /* its sentences' words, for sim_align_sides(): made on
                             * first use (side_align()), from any thread */
} Side;

static gboolean
side_load (Side              *side,
           const char        *text,
           gssize             len,
           const char        *name,
           SimNormalizeFlags  flags,
           SimSegmentMode     mode,
           guint              window,
           GError           **error)
{
  if (len < 0)
    len = strlen (text);
  side->text = sim_text_validate (text, len) ? g_strndup (text, len) : g_utf8_make_valid (text, len);
  side->len = strlen (side->text);
  sim_units_init (&side->units);
  side->sentences = g_array_new (FALSE, FALSE, sizeof (SimSegment));
  sim_segment_prepare (side->text, side->len, flags, mode, window, &side->units, side->sentences);
  if (side->units.n == 0)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_EMPTY,
                   _("%s is empty: there are no letters, digits or CJK characters to compare"), name);
      return FALSE;
    }
  sim_text_index_init (&side->index, side->text, side->len);
  return TRUE;
}

/* @side's sentences' words, made the first time any thread asks: most
 * documents of a class take part in no pair and never need them. */
static const SimAlignSide *
side_align (const Side *side)
{
  Side *mutable = (Side *) side;

  if (g_once_init_enter (&mutable->align))
    {
      const SimAlignText text = { &side->units, (const SimSegment *) side->sentences->data, side->sentences->len,
                                  TRUE };

      g_once_init_leave (&mutable->align, sim_align_side_new (&text));
    }
  return side->align;
}

static void
side_clear (Side *side)
{
  g_free (side->text);
  sim_units_clear (&side->units);
  g_clear_pointer (&side->sentences, g_array_unref);
  sim_text_index_clear (&side->index);
  g_clear_pointer (&side->align, sim_align_side_free);
}

/* The passages of A that reuse B and are flagged: A's sentences aligned
 * with B's, less those too weak for a level. */
static GArray *
compare_align (const Side            *sa,
               const Side            *sb,
               const SimCheckOptions *options)
{
  GArray *found = g_array_new (FALSE, FALSE, sizeof (SimAlignment));
  guint kept = 0;

  sim_align_sides (side_align (sa), side_align (sb), found);
  for (guint i = 0; i < found->len; i++)
    {
      const SimAlignment *al = &g_array_index (found, SimAlignment, i);

      if (!sim_alignment_stands_alone (al, FALSE))
        continue;
      if (sim_check_passage_level (options, al->similarity) == SIM_LEVEL_LOW)
        continue;
      g_array_index (found, SimAlignment, kept++) = *al;
    }
  g_array_set_size (found, kept);
  return found;
}

/* The report of A against B from @found (compare_align()): its segments
 * are A's sentences, or its windows in window mode. */
static SimReport *
compare_report (const Side            *sa,
                const Side            *sb,
                const char            *b_name,
                const SimCheckOptions *options,
                SimNormalizeFlags      flags,
                const GArray          *found)
{
  g_autoptr(GArray) a_segments = NULL;
  const GArray *segments = sa->sentences;
  SimReportSettings settings = { 0 };
  SimReport *report = NULL;
  guint source, next = 0;
  g_autofree char *title = NULL;

  if (options->mode == SIM_SEGMENT_WINDOW)
    {
      a_segments = g_array_new (FALSE, FALSE, sizeof (SimSegment));
      sim_segment_split (sa->text, sa->len, &sa->units, SIM_SEGMENT_WINDOW, options->window, a_segments);
      segments = a_segments;
    }

  sim_check_options_fill_settings (options, flags, &settings);
  settings.store = "";
  settings.n_documents = 1;
  report = _sim_report_new (sa->text, sa->len, &settings);
  title = g_path_get_basename (b_name);
  source = _sim_report_add_source (report, 1, b_name, title, FALSE);

  for (guint i = 0; i < found->len; i++)
    {
      const SimAlignment *al = &g_array_index (found, SimAlignment, i);
      SimPassage p = { 0 };

      p.start = al->a_start;
      p.end = al->a_end;
      p.source = source;
      p.source_start = al->b_start;
      p.source_end = al->b_end;
      p.similarity = al->similarity;
      p.level = sim_check_passage_level (options, al->similarity);
      _sim_report_add_passage (report, &p);
    }

  /* Each segment takes the passage covering most of it, and the part of B
   * that corresponds to it. */
  for (guint i = 0; i < segments->len; i++)
    {
      const SimSegment *seg = &g_array_index (segments, SimSegment, i);
      const SimAlignment *covering = NULL;
      SimReportSegment rs = { 0 };
      SimMatch m = { 0 };

      while (next < found->len && g_array_index (found, SimAlignment, next).a_end <= seg->start)
        next++;
      for (guint k = next; k < found->len; k++)
        {
          const SimAlignment *al = &g_array_index (found, SimAlignment, k);
          const guint32 lo = MAX (seg->start, al->a_start), hi = MIN (seg->end, al->a_end);

          if (al->a_start >= seg->end)
            break;
          if (hi > lo && 2 * (hi - lo) >= seg->end - seg->start)
            covering = al;
        }
      rs.start = seg->start;
      rs.end = seg->end;
      rs.distance = 64;
      if (covering == NULL)
        {
          _sim_report_add_segment (report, &rs, NULL, 0);
          continue;
        }
      {
        const double a_span = MAX (covering->a_end - covering->a_start, 1);
        const double b_span = covering->b_end - covering->b_start;
        const double from = CLAMP ((double) seg->start - covering->a_start, 0, a_span) / a_span;
        const double to = CLAMP ((double) seg->end - covering->a_start, 0, a_span) / a_span;

        m.source = source;
        m.start = covering->b_start + (guint32) (b_span * from);
        m.end = MAX (covering->b_start + (guint32) lround (b_span * to), m.start + 1);
        m.end = MIN (m.end, sb->index.n_chars);
        m.start = MIN (m.start, m.end);
        m.similarity = covering->similarity;
        m.distance = 64;
        {
          /* A span placed in proportion may fall inside words: whole words. */
          const char *text = sim_text_index_pointer (&sb->index, 0);
          const char *at = sim_text_index_pointer (&sb->index, m.start);
          const char *to = sim_text_index_pointer (&sb->index, m.end);
          const char *from = sim_text_word_start (text, at);
          const char *word_to = sim_text_word_end (text, to, sim_text_index_pointer (&sb->index, sb->index.n_chars));

          m.start -= g_utf8_strlen (from, at - from);
          m.end += g_utf8_strlen (to, word_to - to);
          m.excerpt = g_strndup (from, word_to - from);
        }
      }
      rs.level = sim_check_passage_level (options, covering->similarity);
      rs.similarity = covering->similarity;
      rs.from_passage = TRUE;
      _sim_report_add_segment (report, &rs, &m, 1);
    }
  _sim_report_finish (report);
  return report;
}

SimReport *
sim_compare_run (const char            *a,
                 gssize                 a_len,
                 const char            *a_name,
                 const char            *b,
                 gssize                 b_len,
                 const char            *b_name,
                 const SimCheckOptions *options,
                 SimNormalizeFlags      flags,
                 GCancellable          *cancellable,
                 GError               **error)
{
  g_autoptr(SimCompareText) ta = NULL;
  g_autoptr(SimCompareText) tb = NULL;

  g_return_val_if_fail (a != NULL && b != NULL && options != NULL, NULL);
  if (!sim_check_options_validate (options, error))
    return NULL;
  if ((ta = sim_compare_text_new (a, a_len, a_name, flags, error)) == NULL ||
      (tb = sim_compare_text_new (b, b_len, b_name, flags, error)) == NULL)
    return NULL;
  return sim_compare_run_texts (ta, tb, options, cancellable, error);
}

struct _SimCompareText {
  Side              side;
  char             *name;
  SimNormalizeFlags flags;
};

SimCompareText *
sim_compare_text_new (const char         *text,
                      gssize              len,
                      const char         *name,
                      SimNormalizeFlags   flags,
                      GError            **error)
{
  SimCompareText *t = g_new0 (SimCompareText, 1);

  t->name = g_strdup (name);
  t->flags = flags;
  if (!side_load (&t->side, text, len, name, flags, SIM_SEGMENT_SENTENCE, 0, error))
    {
      sim_compare_text_free (t);
      return NULL;
    }
  return t;
}

const SimUnits *
sim_compare_text_get_units (const SimCompareText *text)
{
  return &text->side.units;
}

void
sim_compare_text_free (SimCompareText *text)
{
  if (text == NULL)
    return;
  side_clear (&text->side);
  g_free (text->name);
  g_free (text);
}

SimReport *
sim_compare_run_texts (const SimCompareText  *a,
                       const SimCompareText  *b,
                       const SimCheckOptions *options,
                       GCancellable          *cancellable,
                       GError               **error)
{
  g_autoptr(GArray) found = NULL;

  g_return_val_if_fail (a != NULL && b != NULL && options != NULL, NULL);
  if (!sim_check_options_validate (options, error))
    return NULL;
  found = compare_align (&a->side, &b->side, options);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  return compare_report (&a->side, &b->side, b->name, options, a->flags, found);
}

SimReport *
sim_compare_shared (const SimCompareText  *a,
                    const SimCompareText  *b,
                    const SimCheckOptions *options)
{
  g_autoptr(GArray) found = NULL;

  g_return_val_if_fail (a != NULL && b != NULL && options != NULL, NULL);
  found = compare_align (&a->side, &b->side, options);
  return found->len > 0 ? compare_report (&a->side, &b->side, b->name, options, a->flags, found) : NULL;
}
