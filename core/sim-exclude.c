/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "sim-compare.h"
#include "sim-error.h"
#include "sim-exclude.h"

#define MAX_QUOTE_CHARS 2000

static void
add_span (GArray            *out,
          guint32            start,
          guint32            end,
          SimExcludedReason  reason)
{
  SimExcludedSpan span = { start, end, reason };

  if (end > start)
    g_array_append_val (out, span);
}

static gunichar
closer_of (gunichar c)
{
  switch (c)
    {
    case 0x201c: return 0x201d;  /* “ ” */
    case 0x300c: return 0x300d;  /* 「 」 */
    case 0x300e: return 0x300f;  /* 『 』 */
    case 0x2018: return 0x2019;  /* ‘ ’ */
    case '"':    return '"';
    default:     return 0;
    }
}

void
sim_exclude_find_quotes (const char *text,
                         gssize      len,
                         GArray     *out)
{
  const char *end = text + (len < 0 ? (gssize) strlen (text) : len);
  gunichar prev = 0;
  guint32 at = 0;

  for (const char *p = text; p < end; p = g_utf8_next_char (p), at++)
    {
      const gunichar c = g_utf8_get_char (p);
      const gunichar close = closer_of (c);

      /* A straight or single quote opens only after a space or punctuation
       * ("don't", 5'10" and ’ as an apostrophe open nothing). */
      if (close != 0 && !((c == '"' || c == 0x2018) && prev != 0 && g_unichar_isalnum (prev)))
        {
          guint32 n = 1;
          gunichar last = c;

          for (const char *q = g_utf8_next_char (p); q < end && n <= MAX_QUOTE_CHARS; q = g_utf8_next_char (q), n++)
            {
              const gunichar d = g_utf8_get_char (q);

              if (d == '\n' && last == '\n')
                break; /* a paragraph ends the search */
              if (d == close &&
                  !(close == 0x2019 && g_unichar_isalpha (g_utf8_get_char (g_utf8_next_char (q))) && g_utf8_next_char (q) < end))
                {
                  add_span (out, at, at + n + 1, SIM_EXCLUDED_QUOTE);
                  /* Go on after the closing mark. */
                  at += n;
                  p = q;
                  break;
                }
              last = d;
            }
        }
      prev = g_utf8_get_char (p);
    }
}

void
sim_exclude_find_references (const char *text,
                             gssize      len,
                             GArray     *out)
{
  static GRegex *heading, *appendix;
  g_autoptr(GMatchInfo) info = NULL;
  const gsize n = len < 0 ? strlen (text) : (gsize) len;
  gint start = -1, stop = -1;

  if (g_once_init_enter (&heading))
    {
      /* A line of its own, perhaps numbered: "7. References", "参考文献：". */
      GRegex *h = g_regex_new ("^[ \\t]*(?:(?:\\d+(?:\\.\\d+)*|[IVXivx]+)[.)]?[ \\t]+)?"
                               "(?:references|bibliography|works cited|literature cited|reference list|"
                               "sources cited|参考文献|参考资料|引用文献|参考书目)[ \\t]*[:：]?[ \\t]*$",
                               G_REGEX_CASELESS | G_REGEX_MULTILINE | G_REGEX_OPTIMIZE, 0, NULL);
      GRegex *a = g_regex_new ("^[ \\t]*(?:appendix|appendices|附录)\\b.{0,60}$",
                               G_REGEX_CASELESS | G_REGEX_MULTILINE | G_REGEX_OPTIMIZE, 0, NULL);

      appendix = a;
      g_once_init_leave (&heading, h);
    }
  /* The last such heading: a table of contents may name the section earlier. */
  g_regex_match_full (heading, text, n, 0, 0, &info, NULL);
  while (g_match_info_matches (info))
    {
      g_match_info_fetch_pos (info, 0, &start, NULL);
      g_match_info_next (info, NULL);
    }
  if (start < 0)
    return;
  g_clear_pointer (&info, g_match_info_free);
  if (g_regex_match_full (appendix, text, n, start, 0, &info, NULL))
    g_match_info_fetch_pos (info, 0, &stop, NULL);
  if (stop < 0)
    stop = n;
  add_span (out, g_utf8_pointer_to_offset (text, text + start), g_utf8_pointer_to_offset (text, text + stop),
            SIM_EXCLUDED_REFERENCES);
}

/* Words in [start, end) of @report's text: Latin words, and a CJK
 * character as half a word. */
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

enum {
  QUOTE = 1,
  REFERENCES = 2,
  NOT_FLAGGED = 4,  /* small, excluded source, template */
};

gboolean
sim_exclude_apply (SimReport           *report,
                   const SimExclusions *ex,
                   GError             **error)
{
  const guint32 n = sim_report_get_n_chars (report);
  const guint n_segments = sim_report_get_n_segments (report);
  g_autofree guint8 *mask = g_malloc0 (MAX (n, 1));
  g_autoptr(GArray) quotes = g_array_new (FALSE, FALSE, sizeof (SimExcludedSpan));
  g_autoptr(GArray) references = g_array_new (FALSE, FALSE, sizeof (SimExcludedSpan));
  GArray *chosen = g_array_new (FALSE, FALSE, sizeof (SimExcludedSpan));
  guint8 *segment_excluded = g_malloc0 (MAX (n_segments, 1));
  g_autofree guint64 *per_source = g_new0 (guint64, MAX (sim_report_get_n_sources (report), 1));
  guint64 total = 0, kept[8] = { 0 };
  guint8 headline = NOT_FLAGGED;
  SimRatios ratios = { 0 };

  sim_exclude_find_quotes (sim_report_get_text (report), -1, quotes);
  sim_exclude_find_references (sim_report_get_text (report), -1, references);
  for (guint i = 0; i < quotes->len; i++)
    {
      const SimExcludedSpan *q = &g_array_index (quotes, SimExcludedSpan, i);

      mark (mask, n, q->start, q->end, QUOTE);
    }
  for (guint i = 0; i < references->len; i++)
    {
      const SimExcludedSpan *r = &g_array_index (references, SimExcludedSpan, i);

      mark (mask, n, r->start, r->end, REFERENCES);
    }
  if (ex && ex->quotes)
    {
      headline |= QUOTE;
      g_array_append_vals (chosen, quotes->data, quotes->len);
    }
  if (ex && ex->references)
    {
      headline |= REFERENCES;
      g_array_append_vals (chosen, references->data, references->len);
    }

  /* Passages that are not flagged at all. */
  for (guint i = 0; ex && i < sim_report_get_n_passages (report); i++)
    {
      const SimPassage *p = sim_report_get_passage (report, i);
      const SimReportSource *src = sim_report_get_source (report, p->source);

      if (p->level == SIM_LEVEL_LOW)
        continue;
      if (source_excluded (ex, src->doc_id))
        {
          mark (mask, n, p->start, p->end, NOT_FLAGGED);
          add_span (chosen, p->start, p->end, SIM_EXCLUDED_SOURCE);
        }
      else if (ex->small_words > 0 && count_words (report, p->start, p->end) < ex->small_words)
        {
          mark (mask, n, p->start, p->end, NOT_FLAGGED);
          add_span (chosen, p->start, p->end, SIM_EXCLUDED_SMALL);
        }
    }
  for (guint i = 0; ex && ex->n_source_ids > 0 && i < n_segments; i++)
    {
      const SimReportSegment *seg = sim_report_get_segment (report, i);

      if (seg->level != SIM_LEVEL_LOW && seg->n_matches > 0 &&
          source_excluded (ex, sim_report_get_source (report, sim_report_get_match (report, seg->first_match)->source)->doc_id))
        {
          mark (mask, n, seg->start, seg->end, NOT_FLAGGED);
          add_span (chosen, seg->start, seg->end, SIM_EXCLUDED_SOURCE);
        }
    }
  if (ex && ex->template_text != NULL)
    {
      SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
      const SimReportSettings *s = sim_report_get_settings (report);
      g_autoptr(SimReport) with_template = NULL;
      g_autoptr(GError) local_error = NULL;

      options.high_threshold = s->high_threshold;
      options.medium_threshold = s->medium_threshold;
      with_template = sim_compare_run (sim_report_get_text (report), -1, "article", ex->template_text,
                                       ex->template_len, "template", &options, ex->flags, NULL, &local_error);
      /* An article with no text to align leaves nothing to exclude. */
      if (with_template == NULL && !g_error_matches (local_error, SIM_ERROR, SIM_ERROR_EMPTY))
        {
          g_propagate_error (error, g_steal_pointer (&local_error));
          g_array_unref (chosen);
          g_free (segment_excluded);
          return FALSE;
        }
      for (guint i = 0; with_template && i < sim_report_get_n_passages (with_template); i++)
        {
          const SimPassage *p = sim_report_get_passage (with_template, i);

          mark (mask, n, p->start, p->end, NOT_FLAGGED);
          add_span (chosen, p->start, p->end, SIM_EXCLUDED_TEMPLATE);
        }
    }

  /* Flagged characters under each combination of exclusions. */
  for (guint i = 0; i < n_segments; i++)
    {
      const SimReportSegment *seg = sim_report_get_segment (report, i);
      guint32 kept_headline = 0;

      total += seg->end - seg->start;
      if (seg->level == SIM_LEVEL_LOW || seg->n_matches == 0)
        continue;
      for (guint32 c = seg->start; c < MIN (seg->end, n); c++)
        {
          for (guint8 m = 0; m < 8; m++)
            kept[m] += (mask[c] & m) == 0;
          kept_headline += (mask[c] & headline) == 0;
        }
      per_source[sim_report_get_match (report, seg->first_match)->source] += kept_headline;
      segment_excluded[i] = kept_headline == 0;
    }
  if (total > 0)
    {
      ratios.total = (float) kept[NOT_FLAGGED] / total;
      ratios.excluding_quotes = (float) kept[NOT_FLAGGED | QUOTE] / total;
      ratios.excluding_references = (float) kept[NOT_FLAGGED | REFERENCES] / total;
      ratios.excluding_both = (float) kept[NOT_FLAGGED | QUOTE | REFERENCES] / total;
      for (guint i = 0; i < sim_report_get_n_sources (report); i++)
        ratios.largest_source = MAX (ratios.largest_source, (float) per_source[i] / total);
    }
  /* In order, overlapping spans of one reason merged. */
  g_array_sort (chosen, compare_spans);
  for (guint i = 1; i < chosen->len;)
    {
      SimExcludedSpan *prev = NULL, *cur = &g_array_index (chosen, SimExcludedSpan, i);

      for (guint j = i; j-- > 0;)
        {
          SimExcludedSpan *x = &g_array_index (chosen, SimExcludedSpan, j);

          if (x->reason == cur->reason)
            {
              prev = x;
              break;
            }
        }
      if (prev != NULL && cur->start <= prev->end)
        {
          prev->end = MAX (prev->end, cur->end);
          g_array_remove_index (chosen, i);
        }
      else
        i++;
    }
  _sim_report_set_exclusions (report, chosen, &ratios, total ? (float) kept[headline] / total : 0.0f,
                              segment_excluded);
  return TRUE;
}
