/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the HTML and PDF reports say alike (sim-export-private.h).
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "sim-export.h"
#include "sim-export-private.h"

/* The source a flagged segment is coloured and numbered by: its best match's. */
guint
_sim_export_segment_source (const SimReport        *report,
                const SimReportSegment *seg)
{
  return sim_report_get_match (report, seg->first_match)->source;
}

#define SOURCE_GAP 8  /* code points between two matches shown as " … " */

static void
listed_clear (gpointer data)
{
  SimListed *l = data;

  g_free (l->text);
  g_free (l->source_text);
  g_clear_pointer (&l->pieces, g_array_unref);
}

static void
piece_clear (gpointer data)
{
  g_free (((SimListedPiece *) data)->text);
}

static void
add_piece (GArray          *pieces,
           const SimReport *report,
           guint32          start,
           guint32          end,
           gboolean         flagged,
           gboolean         excluded)
{
  SimListedPiece piece = { NULL, flagged, excluded };

  if (end <= start)
    return;
  piece.text = sim_report_dup_text (report, start, end);
  g_array_append_val (pieces, piece);
}

/* The passage's text in pieces: the runs of its source shaded, the
 * writer's own sentences inside it not. */
static GArray *
passage_pieces (const SimReportView *view,
                const SimPassage    *p)
{
  const SimReport *report = sim_report_view_get_report (view);
  GArray *pieces = g_array_new (FALSE, FALSE, sizeof (SimListedPiece));
  guint32 at = p->start;

  g_array_set_clear_func (pieces, piece_clear);
  for (guint r = 0; r < sim_report_view_get_n_runs (view); r++)
    {
      const SimFlaggedRun *run = sim_report_view_get_run (view, r);
      const guint32 lo = MAX (run->start, p->start), hi = MIN (run->end, p->end);

      if (run->source != p->source || hi <= lo || lo < at)
        continue;
      add_piece (pieces, report, at, lo, FALSE, FALSE);
      add_piece (pieces, report, lo, hi, TRUE, run->excluded);
      at = hi;
    }
  add_piece (pieces, report, at, p->end, FALSE, FALSE);
  return pieces;
}

/* "…" where an excerpt starts or stops inside a sentence. (transfer full) */
static char *
with_ellipses (const char *text)
{
  const char *last = *text ? g_utf8_find_prev_char (text, text + strlen (text)) : NULL;
  const gunichar first = g_utf8_get_char (text), end = last ? g_utf8_get_char (last) : 0;
  const gboolean open = g_unichar_islower (first);
  const gboolean closed = end == 0 || end == '.' || end == '!' || end == '?' || end == 0x3002 || end == 0xff01 ||
                          end == 0xff1f || end == '"' || end == 0x201d || end == 0x300d || end == ')';

  return g_strconcat (open ? "…" : "", text, closed ? "" : "…", NULL);
}

/* The letters and digits of @text: spacing, line breaks and punctuation do
 * not make a copy less word for word. */
static GString *
words_of (const char *text)
{
  GString *out = g_string_new (NULL);

  for (const char *p = text; *p; p = g_utf8_next_char (p))
    if (g_unichar_isalnum (g_utf8_get_char (p)))
      g_string_append_len (out, p, g_utf8_next_char (p) - p);
  return out;
}

/* The passages of medium level or higher that hold a segment flagged with
 * their source, in article order. (element-type SimListed) */
GArray *
_sim_export_listed_passages (const SimReportView *view)
{
  const SimReport *report = sim_report_view_get_report (view);
  GArray *listed = g_array_new (FALSE, TRUE, sizeof (SimListed));

  g_array_set_clear_func (listed, listed_clear);
  for (guint i = 0; i < sim_report_get_n_passages (report); i++)
    {
      const SimPassage *p = sim_report_get_passage (report, i);
      g_autoptr(GString) source_text = g_string_new (NULL);
      g_autoptr(GString) words = NULL;
      SimListed l = { p, NULL, NULL, NULL, TRUE, TRUE };
      guint32 last_end = 0;
      guint n_flagged = 0;
      gsize n_source_words = 0;

      if (p->level == SIM_LEVEL_LOW)
        continue;
      l.text = sim_report_dup_text (report, p->start, p->end);
      words = words_of (l.text);
      for (guint k = p->first_segment; k < p->first_segment + p->n_segments; k++)
        {
          const SimReportSegment *seg = sim_report_get_segment (report, k);
          const SimMatch *m = NULL;
          const char *piece;

          if (seg->level == SIM_LEVEL_LOW || seg->n_matches == 0)
            continue;
          /* SimListed under the source its flags are coloured by: the same
           * text found in other sources too is theirs in the JSON. */
          if (_sim_export_segment_source (report, seg) != p->source)
            continue;
          n_flagged++;
          l.excluded = l.excluded && sim_report_view_is_segment_excluded (view, k);
          /* Its best match from the passage's source. */
          for (guint j = seg->first_match; j < seg->first_match + seg->n_matches && m == NULL; j++)
            if (sim_report_get_match (report, j)->source == p->source)
              m = sim_report_get_match (report, j);
          if (m == NULL || m->excerpt == NULL || (source_text->len > 0 && m->end <= last_end))
            continue;
          piece = m->excerpt;
          if (source_text->len > 0 && m->start < last_end)
            piece = g_utf8_offset_to_pointer (m->excerpt, MIN ((glong) (last_end - m->start),
                                                               g_utf8_strlen (m->excerpt, -1)));
          else if (source_text->len > 0)
            /* A few characters apart: the letters a match's shingles do not reach. */
            g_string_append (source_text, m->start > last_end + SOURCE_GAP ? " … " : " ");
          g_string_append (source_text, piece);
          last_end = m->end;
          /* Word for word: each piece of the source is in the passage as it is. */
          {
            g_autoptr(GString) piece_words = words_of (piece);

            n_source_words += piece_words->len;
            l.identical = l.identical && strstr (words->str, piece_words->str) != NULL;
          }
        }
      if (n_flagged == 0)
        {
          g_free (l.text);
          continue;
        }
      /* ... and together they are nearly all of it. */
      l.identical = l.identical && words->len > 0 && n_source_words * 10 >= words->len * 9;
      l.source_text = with_ellipses (source_text->str);
      if (sim_report_get_source (report, p->source)->text_withheld)
        {
          /* Matched by keys: the corpus server keeps the text from this account. */
          l.identical = FALSE;
          g_free (l.source_text);
          l.source_text = g_strdup (sim_report_source_withheld_note ());
        }
      l.pieces = passage_pieces (view, p);
      g_array_append_val (listed, l);
    }
  return listed;
}

guint
_sim_export_count_identical (GArray *listed)
{
  guint n = 0;

  for (guint i = 0; i < listed->len; i++)
    n += g_array_index (listed, SimListed, i).identical;
  return n;
}

char *
_sim_export_identical_note (guint n_identical)
{
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE,
                                       "%u flagged passage is the text of its source word for word: it is coloured "
                                       "in the article and not repeated here.",
                                       "%u flagged passages are the text of their sources word for word: they are "
                                       "coloured in the article and not repeated here.", n_identical), n_identical);
}

/* The number of sources with flagged segments: they come first, numbered 1.. */
guint
_sim_export_count_flagged_sources (const SimReport *report)
{
  guint n = 0;

  while (n < sim_report_get_n_sources (report) && sim_report_get_source (report, n)->n_segments > 0)
    n++;
  return n;
}

/* "1,288 documents, last updated 2026-11-22" for the header of a report. */
char *
_sim_export_corpus_phrase (const SimReportSettings *s)
{
  g_autofree char *n = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u document", "%u documents", s->n_documents),
                                        s->n_documents);
  g_autoptr(GDateTime) dt = s->corpus_updated > 0 ? g_date_time_new_from_unix_local (s->corpus_updated) : NULL;
  g_autofree char *date = dt ? g_date_time_format (dt, "%Y-%m-%d") : NULL;

  return date ? g_strdup_printf (_("%s, last updated %s"), n, date) : g_steal_pointer (&n);
}

