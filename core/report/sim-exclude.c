/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "sim-compare.h"
#include "sim-error.h"
#include "sim-exclude.h"

#define MAX_QUOTE_CHARS 2000

void
sim_exclude_add_span (GArray            *out,
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
                  sim_exclude_add_span (out, at, at + n + 1, SIM_EXCLUDED_QUOTE);
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
  sim_exclude_add_span (out, g_utf8_pointer_to_offset (text, text + start), g_utf8_pointer_to_offset (text, text + stop),
                        SIM_EXCLUDED_REFERENCES);
}

gboolean
sim_exclude_find_template (const SimReport *report,
                           const char      *template_text,
                           gssize           template_len,
                           SimNormalizeFlags flags,
                           GArray          *out,
                           GError         **error)
{
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  const SimReportSettings *s = sim_report_get_settings (report);
  g_autoptr(SimReport) with_template = NULL;
  g_autoptr(GError) local_error = NULL;

  options.high_threshold = s->high_threshold;
  options.medium_threshold = s->medium_threshold;
  with_template = sim_compare_run (sim_report_get_text (report), -1, "article", template_text,
                                   template_len, "template", &options, flags, NULL, &local_error);
  /* An article or a template with no text to align leaves nothing out. */
  if (with_template == NULL)
    {
      if (g_error_matches (local_error, SIM_ERROR, SIM_ERROR_EMPTY))
        return TRUE;
      g_propagate_error (error, g_steal_pointer (&local_error));
      return FALSE;
    }
  for (guint i = 0; i < sim_report_get_n_passages (with_template); i++)
    {
      const SimPassage *p = sim_report_get_passage (with_template, i);

      sim_exclude_add_span (out, p->start, p->end, SIM_EXCLUDED_TEMPLATE);
    }
  return TRUE;
}
