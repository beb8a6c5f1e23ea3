/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Sentence rules, in order: Chinese terminators always end a sentence; "!"
 * and "?" end one before a space, a line break, a closing quote or CJK text;
 * "." ends one unless it sits inside a token (3.14, example.com), follows a
 * known abbreviation or a single initial (Dr., U.S., J. Smith), or is followed
 * by a lower-case word. A blank line ends a paragraph; a single line break
 * ends a heading or list item (a line much shorter than the next one, a very
 * short line, or a line before a bullet), but not a hard-wrapped line.
 */
#define _GNU_SOURCE /* memmem */
#include "config.h"

#include <string.h>

#include "sim-parallel.h"
#include "sim-segment.h"

static const char *const abbreviations[] = {
  "al", "approx", "apr", "aug", "ave", "ca", "cf", "co", "corp", "dec", "dept", "dr", "e.g",
  "eg", "esp", "est", "etc", "feb", "fig", "figs", "gen", "gov", "i.e", "ie", "inc", "jan",
  "jr", "jul", "jun", "lt", "ltd", "mar", "mr", "mrs", "ms", "mt", "no", "nos", "nov", "oct",
  "op", "p", "pp", "prof", "rev", "sep", "sept", "sgt", "sr", "st", "vol", "vols", "vs",
};

static GHashTable *
abbreviation_set (void)
{
  static GHashTable *set;

  if (g_once_init_enter (&set))
    {
      GHashTable *s = g_hash_table_new (g_str_hash, g_str_equal);

      for (guint i = 0; i < G_N_ELEMENTS (abbreviations); i++)
        g_hash_table_add (s, (gpointer) abbreviations[i]);
      g_once_init_leave (&set, s);
    }
  return set;
}

static gboolean
is_cjk_terminator (gunichar c)
{
  switch (c)
    {
    case 0x3002: /* 。 */
    case 0xff01: /* ！ */
    case 0xff1f: /* ？ */
    case 0xff1b: /* ； */
    case 0x2026: /* … */
    case 0xff61: /* ｡ */
    case 0xff0e: /* ． used as a full stop */
      return TRUE;
    default:
      return FALSE;
    }
}

static gboolean
is_closing (gunichar c)
{
  switch (c)
    {
    case '"': case '\'': case ')': case ']': case '}':
    case 0x201d: case 0x2019: case 0xff09: case 0x300d: case 0x300f:
    case 0x3011: case 0x300b: case 0x3009: case 0xff3d: case 0x00bb:
      return TRUE;
    default:
      return FALSE;
    }
}

static gboolean
is_space (gunichar c)
{
  return g_unichar_isspace (c) || c == 0x3000 || c == 0xfeff;
}

static gboolean
is_cjk_char (gunichar c)
{
  return (c >= 0x3400 && c <= 0x9fff) || (c >= 0x3040 && c <= 0x30ff) || (c >= 0xf900 && c <= 0xfaff);
}

/* The word just before position @dot, lower-cased, with inner dots ("e.g"). */
static gboolean
follows_abbreviation (const gunichar *cps,
                      gsize           dot)
{
  gsize start = dot;
  char word[16];
  gsize n = 0;
  guint n_letters = 0;

  while (start > 0 && (g_unichar_isalpha (cps[start - 1]) || cps[start - 1] == '.') &&
         dot - start < sizeof word - 1)
    start--;
  for (gsize i = start; i < dot; i++)
    {
      if (cps[i] > 0x7f)
        return FALSE;
      word[n++] = g_ascii_tolower (cps[i]);
      n_letters += cps[i] != '.';
    }
  word[n] = '\0';
  if (n_letters == 0)
    return FALSE;
  if (n_letters == 1 && g_unichar_isupper (cps[dot - 1]))
    return TRUE; /* an initial: J. Smith, U.S. */
  return n <= 6 && g_hash_table_contains (abbreviation_set (), word);
}

/* "15.2." or "7.1." before @dot: a section number, not the end of a sentence. */
/* Whether the "." at @i joins two sentences without a space: a word of two
 * or more lower-case letters before it, a capitalised word after it
 * ("adults.Our goal", "warning.REACH", as text pasted from web pages runs). */
static gboolean
runs_into_sentence (const gunichar *cps,
                    gsize           i,
                    gsize           n)
{
  gsize start = i;

  static const char *const domains[] = { "com", "org", "net", "edu", "gov", "info", "io", "cn", "uk", "de" };
  char next[8];
  gsize len = 0;

  if (i + 2 >= n || !g_unichar_isupper (cps[i + 1]) || !g_unichar_isalpha (cps[i + 2]))
    return FALSE;
  while (start > 0 && g_unichar_islower (cps[start - 1]))
    start--;
  if (i - start < 2 || !(start == 0 || is_space (cps[start - 1]) || is_closing (cps[start - 1])))
    return FALSE;
  /* "example.Com" is a name written with a capital. */
  while (i + 1 + len < n && len < sizeof next - 1 && cps[i + 1 + len] < 0x80 && g_ascii_isalpha (cps[i + 1 + len]))
    {
      next[len] = g_ascii_tolower (cps[i + 1 + len]);
      len++;
    }
  next[len] = '\0';
  if (i + 1 + len < n && g_unichar_isalpha (cps[i + 1 + len]))
    return TRUE;
  for (guint k = 0; k < G_N_ELEMENTS (domains); k++)
    if (g_str_equal (next, domains[k]))
      return FALSE;
  return TRUE;
}

static gboolean
follows_section_number (const gunichar *cps,
                        gsize           dot)
{
  gsize i = dot;
  guint n_dots = 0;

  while (i > 0 && (g_unichar_isdigit (cps[i - 1]) || cps[i - 1] == '.'))
    {
      n_dots += cps[i - 1] == '.';
      i--;
    }
  return n_dots > 0 && dot > i && g_unichar_isdigit (cps[dot - 1]) &&
         (i == 0 || !g_unichar_isalnum (cps[i - 1]) || cps[i - 1] > 0x2e80);
}

static gboolean
is_bullet_line (const gunichar *cps,
                gsize           i,
                gsize           n)
{
  while (i < n && (cps[i] == ' ' || cps[i] == '\t'))
    i++;
  if (i >= n)
    return FALSE;
  if (cps[i] == '-' || cps[i] == '*' || cps[i] == 0x2022 || cps[i] == 0x00b7 || cps[i] == '#')
    return i + 1 < n && cps[i + 1] == ' ';
  if (g_unichar_isdigit (cps[i]))
    {
      while (i < n && g_unichar_isdigit (cps[i]))
        i++;
      return i < n && (cps[i] == '.' || cps[i] == ')' || cps[i] == 0x3001);
    }
  return FALSE;
}

/* Length of the line [from, to) without surrounding blanks. */
static gsize
trimmed_length (const gunichar *cps,
                gsize           from,
                gsize           to)
{
  while (from < to && is_space (cps[from]))
    from++;
  while (to > from && is_space (cps[to - 1]))
    to--;
  return to - from;
}

/* Decides whether the line break at @nl ends the current segment, which
 * began at @seg_start. A hard-wrapped line never does: the next line goes
 * on in lower case, or this line does not end in punctuation and continues
 * a sentence begun on an earlier line (a heading starts its own segment). */
static gboolean
line_break_ends_segment (const gunichar *cps,
                         gsize           n,
                         gsize           seg_start,
                         gsize           line_start,
                         gsize           nl,
                         gsize           next_end)
{
  gsize next_start = nl + 1, len, next_len, k;
  gunichar last, first_next;

  next_len = trimmed_length (cps, next_start, next_end);
  if (next_len == 0)
    return TRUE; /* blank line: end of paragraph */
  len = trimmed_length (cps, line_start, nl);
  if (len == 0)
    return FALSE;
  if (is_bullet_line (cps, next_start, n))
    return TRUE;
  for (k = nl; k > line_start && is_space (cps[k - 1]); k--)
    ;
  last = cps[k - 1];
  if (last == ',' || last == 0xff0c || last == 0x3001 || last == '-')
    return FALSE; /* the sentence clearly goes on */
  for (k = next_start; k < next_end && is_space (cps[k]); k++)
    ;
  first_next = cps[k];
  if (g_unichar_islower (first_next))
    return FALSE;
  if (g_unichar_isalnum (last))
    {
      gsize first = seg_start;

      /* Did the segment start on an earlier line? */
      while (first < line_start && is_space (cps[first]))
        first++;
      if (first < line_start)
        return FALSE;
    }
  return len <= 20 || len * 10 < next_len * 6;
}

typedef struct {
  const gunichar *cps;
  gsize           n;
  GArray         *ranges;   /* pairs of guint32: start, end */
  GArray         *newlines;   /* guint32 positions of '\n', found while decoding */
  GArray         *candidates; /* guint32 positions that may end a sentence */
} Splitter;

static void
emit (Splitter *s,
      gsize     start,
      gsize     end)
{
  while (start < end && is_space (s->cps[start]))
    start++;
  while (end > start && is_space (s->cps[end - 1]))
    end--;
  if (end <= start)
    return;

  /* Over-long: cut at the last clause mark or space in the second half. */
  while (end - start > SIM_SEGMENT_MAX_CHARS)
    {
      gsize limit = start + SIM_SEGMENT_MAX_CHARS, cut = 0;

      for (gsize i = limit; i > start + SIM_SEGMENT_MAX_CHARS / 2; i--)
        {
          gunichar c = s->cps[i - 1];

          if (c == ',' || c == 0xff0c || c == 0x3001 || c == ';' || c == ':' || c == 0xff1a)
            {
              cut = i;
              break;
            }
          if (cut == 0 && is_space (c))
            cut = i;
        }
      if (cut == 0)
        cut = limit;
      emit (s, start, cut);
      start = cut;
      while (start < end && is_space (s->cps[start]))
        start++;
    }
  if (end > start)
    {
      guint32 pair[2] = { start, end };
      g_array_append_vals (s->ranges, pair, 2);
    }
}

static void
split_sentences (Splitter *s)
{
  const gunichar *cps = s->cps;
  const gsize n = s->n;
  gsize seg_start = 0, line_start = 0;
  guint nl_index = 0;
  gsize next = 0; /* the loop resumes here after a terminator run */

  /* Only candidates can end a sentence: newlines, . ! ? and the CJK
   * terminators, collected while decoding. The rest is never looked at. */
  for (guint k = 0; k < s->candidates->len; k++)
    {
      gsize i = g_array_index (s->candidates, guint32, k);
      gunichar c;
      gboolean ends = FALSE;

      if (i < next)
        continue;
      next = i + 1;
      c = cps[i];
      if (c == '\n')
        {
          /* The next line ends at the next newline: no scan ahead. */
          while (nl_index < s->newlines->len && g_array_index (s->newlines, guint32, nl_index) <= i)
            nl_index++;
          if (line_break_ends_segment (cps, n, seg_start, line_start, i,
                                       nl_index < s->newlines->len ? g_array_index (s->newlines, guint32, nl_index) : n))
            {
              emit (s, seg_start, i);
              seg_start = i + 1;
            }
          line_start = i + 1;
          continue;
        }

      if (is_cjk_terminator (c))
        ends = TRUE;
      else if (c == '!' || c == '?')
        ends = i + 1 >= n || is_space (cps[i + 1]) || is_closing (cps[i + 1]) ||
               is_cjk_char (cps[i + 1]) || cps[i + 1] == '!' || cps[i + 1] == '?';
      else if (c == '.')
        {
          gsize j = i + 1;

          while (j < n && cps[j] == '.')
            j++;
          if (j == i + 1 && runs_into_sentence (cps, i, n))
            ends = TRUE;  /* "adults.Our goal": a sentence run into the next */
          else if (j < n && !is_space (cps[j]) && !is_closing (cps[j]) && !is_cjk_char (cps[j]))
            ends = FALSE; /* inside a token: 3.14, example.com, e.g. */
          else if (j == i + 1 && (follows_abbreviation (cps, i) || follows_section_number (cps, i)))
            ends = FALSE;
          else
            {
              gsize k = j;

              while (k < n && (is_space (cps[k]) || is_closing (cps[k])) && cps[k] != '\n')
                k++;
              ends = k >= n || cps[k] == '\n' || !g_unichar_islower (cps[k]);
            }
          i = j - 1;
        }

      if (ends)
        {
          gsize j = i + 1;

          while (j < n && (is_cjk_terminator (cps[j]) || is_closing (cps[j]) ||
                           cps[j] == '!' || cps[j] == '?' || cps[j] == '.'))
            j++;
          emit (s, seg_start, j);
          seg_start = j;
          i = j - 1;
        }
      next = i + 1;
    }
  emit (s, seg_start, n);
}

static guint32 find_from (const SimUnits *units,
                           gsize           u,
                           guint32         offset);

/* The code point after the next blank line at or after @from (a paragraph
 * break), or s->n. */
static guint32
next_paragraph (Splitter *s,
                guint    *newline,
                guint32   from)
{
  for (; *newline < s->newlines->len; (*newline)++)
    {
      guint32 j = g_array_index (s->newlines, guint32, *newline) + 1;

      if (j <= from)
        continue;
      while (j < s->n && is_space (s->cps[j]) && s->cps[j] != '\n')
        j++;
      if (j < s->n && s->cps[j] == '\n')
        return j;
    }
  return s->n;
}

static void
split_windows (Splitter       *s,
               const SimUnits *units,
               guint           window)
{
  gsize u = 0;
  guint newline = 0;

  window = MAX (window, 1);
  while (u < units->n)
    {
      /* A window never runs across a paragraph break. */
      const gsize para_end = find_from (units, u, next_paragraph (s, &newline, units->src_start[u]));
      gsize end = MIN (u + window, para_end);
      gsize next_start;

      /* Never cut a word in two, and do not leave a crumb of a paragraph's
       * last window. */
      while (end < para_end && !(units->flags[end] & (SIM_UNIT_CJK | SIM_UNIT_WORD_START)))
        end++;
      if ((para_end - end) * 3 < window)
        end = para_end;
      next_start = end < units->n ? units->src_start[end] : s->n;
      emit (s, units->src_start[u], next_start);
      u = end;
    }
}

/* The first unit at or after @u whose source starts at or after @offset:
 * galloping from @u, since segments come in order. */
static guint32
find_from (const SimUnits *units,
           gsize           u,
           guint32         offset)
{
  gsize step = 1, lo = u, hi;

  while (u + step < units->n && units->src_start[u + step] < offset)
    {
      lo = u + step;
      step *= 2;
    }
  hi = MIN (u + step, units->n);
  while (lo < hi)
    {
      const gsize mid = lo + (hi - lo) / 2;

      if (units->src_start[mid] < offset)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

void
sim_segment_split (const char     *text,
                   gsize           len,
                   const SimUnits *units,
                   SimSegmentMode  mode,
                   guint           window,
                   GArray         *out)
{
  g_autofree gunichar *cps = g_new (gunichar, len + 1);
  g_autoptr(GArray) newlines = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) candidates = g_array_new (FALSE, FALSE, sizeof (guint32));
  const guchar *p = (const guchar *) text, *end = p + len;
  glong n_cps = 0;
  g_autoptr(GArray) ranges = g_array_new (FALSE, FALSE, sizeof (guint32));
  Splitter s;

  /* One decoding pass (the text is valid UTF-8), ASCII first. */
  while (p < end)
    {
      const guchar c = *p;

      if (c < 0x80)
        {
          if (G_UNLIKELY (c == '\n' || c == '.' || c == '!' || c == '?'))
            {
              guint32 at = n_cps;

              g_array_append_val (candidates, at);
              if (c == '\n')
                g_array_append_val (newlines, at);
            }
          cps[n_cps++] = c, p++;
          continue;
        }
      if (c < 0xe0)
        cps[n_cps++] = ((c & 0x1f) << 6) | (p[1] & 0x3f), p += 2;
      else if (c < 0xf0)
        {
          const guint32 at = n_cps;

          cps[n_cps++] = ((c & 0x0f) << 12) | ((p[1] & 0x3f) << 6) | (p[2] & 0x3f), p += 3;
          /* Every CJK terminator takes three bytes. */
          if (G_UNLIKELY (is_cjk_terminator (cps[at])))
            g_array_append_val (candidates, at);
        }
      else
        cps[n_cps++] = ((c & 0x07) << 18) | ((p[1] & 0x3f) << 12) | ((p[2] & 0x3f) << 6) | (p[3] & 0x3f), p += 4;
    }
  s.cps = cps;
  s.n = n_cps;
  s.ranges = ranges;
  s.newlines = newlines;
  s.candidates = candidates;

  if (mode == SIM_SEGMENT_WINDOW)
    split_windows (&s, units, window);
  else
    split_sentences (&s);

  for (guint i = 0, u = 0; i + 1 < ranges->len; i += 2)
    {
      SimSegment seg;

      /* Ranges are increasing: walk the units along instead of searching. */
      seg.start = g_array_index (ranges, guint32, i);
      seg.end = g_array_index (ranges, guint32, i + 1);
      u = seg.unit_start = find_from (units, u, seg.start);
      u = seg.unit_end = find_from (units, u, seg.end);
      if (seg.unit_end > seg.unit_start)
        g_array_append_val (out, seg);
    }
}

/* Bytes of text below which sim_segment_prepare() does it in one piece,
 * and the least a piece holds. */
#define PREPARE_PIECE (512u << 10)
#define MAX_PIECES    16

typedef struct {
  const char        *text;
  SimNormalizeFlags  flags;
  SimSegmentMode     mode;
  guint              window;
  gsize              cut[MAX_PIECES + 1];  /* each piece's first byte */
  SimUnits           units[MAX_PIECES];
  GArray            *segments[MAX_PIECES];
  guint32            n_chars[MAX_PIECES];
  guint              n;
  gint               next;
} PrepareJob;

static void
prepare_worker (gpointer data)
{
  PrepareJob *job = data;
  gint k;

  while ((k = g_atomic_int_add (&job->next, 1)) < (gint) job->n)
    {
      const char *piece = job->text + job->cut[k];
      const gsize len = job->cut[k + 1] - job->cut[k];

      job->n_chars[k] = sim_text_normalize (piece, len, 0, job->flags, &job->units[k]);
      sim_segment_split (piece, len, &job->units[k], job->mode, job->window, job->segments[k]);
    }
}

void
sim_segment_prepare (const char        *text,
                     gsize              len,
                     SimNormalizeFlags  flags,
                     SimSegmentMode     mode,
                     guint              window,
                     SimUnits          *units,
                     GArray            *out)
{
  PrepareJob job = { text, flags, mode, window, { 0 }, { { 0 } }, { NULL }, { 0 }, 0, 0 };
  const guint want = MIN (MIN (sim_parallel_default_threads (), MAX_PIECES), len / PREPARE_PIECE);
  guint32 chars = 0;
  gsize n_units = 0;

  /* Cut after a blank line ("\n\n"): a paragraph's end, where every
   * segment ends and no unit or its flags look across. */
  for (guint k = 1; k < want; k++)
    {
      const gsize from = MAX (len * k / want, job.cut[job.n]);
      const char *blank = from < len ? memmem (text + from, len - from, "\n\n", 2) : NULL;

      if (blank == NULL)
        break;
      job.cut[++job.n] = blank - text + 2;
    }
  if (job.n == 0)
    {
      sim_text_normalize (text, len, 0, flags, units);
      sim_segment_split (text, len, units, mode, window, out);
      return;
    }
  job.cut[++job.n] = len;
  for (guint k = 0; k < job.n; k++)
    {
      sim_units_init (&job.units[k]);
      job.segments[k] = g_array_new (FALSE, FALSE, sizeof (SimSegment));
    }
  sim_parallel_run (job.n, prepare_worker, &job);
  /* The pieces one after another: their offsets moved by what came before. */
  for (guint k = 0; k < job.n; k++)
    {
      const SimUnits *u = &job.units[k];

      for (guint i = 0; i < job.segments[k]->len; i++)
        {
          SimSegment seg = g_array_index (job.segments[k], SimSegment, i);

          seg.start += chars;
          seg.end += chars;
          seg.unit_start += n_units;
          seg.unit_end += n_units;
          g_array_append_val (out, seg);
        }
      sim_units_append (units, u, chars);
      n_units += u->n;
      chars += job.n_chars[k];
      sim_units_clear (&job.units[k]);
      g_array_unref (job.segments[k]);
    }
}
