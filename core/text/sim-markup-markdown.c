/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Markdown: rendered with cmark-gfm, then read as HTML (sim-markup.h).
 */
#include "config.h"

#include <string.h>
#include <cmark-gfm-core-extensions.h>

#include "sim-markup-private.h"

static gpointer
markdown_register (gpointer data)
{
  cmark_gfm_core_extensions_ensure_registered ();
  return NULL;
}

/* cmark-gfm's time grows with the nesting depth times the inline nodes: a
 * line nested deeper than any real document (a hostile file) is read as
 * plain text instead. */
#define MAX_MARKDOWN_NESTING 32

static gboolean
markdown_nesting_is_sane (const char *text,
                          gsize       len)
{
  const char *p = text, *end = text + len;

  while (p < end)
    {
      guint depth = 0;

      for (;;)
        {
          while (p < end && (*p == ' ' || *p == '\t'))
            p++;
          if (p < end && *p == '>')
            p++;
          else if (p + 1 < end && strchr ("-*+", *p) && (p[1] == ' ' || p[1] == '\t'))
            p += 2;
          else if (p < end && g_ascii_isdigit (*p))
            {
              const char *q = p;

              while (q < end && g_ascii_isdigit (*q))
                q++;
              if (q + 1 < end && (*q == '.' || *q == ')') && (q[1] == ' ' || q[1] == '\t'))
                p = q + 2;
              else
                break;
            }
          else
            break;
          if (++depth > MAX_MARKDOWN_NESTING)
            return FALSE;
        }
      p = memchr (p, '\n', end - p);
      p = p ? p + 1 : end;
    }
  return TRUE;
}

static gboolean
markdown_fence (const char *line,
                const char *end)
{
  for (guint i = 0; i < 3 && line < end && *line == ' '; i++)
    line++;
  return end - line >= 3 && (strncmp (line, "```", 3) == 0 || strncmp (line, "~~~", 3) == 0);
}

/* cmark-gfm's table extension takes time with the square of a row's
 * cells (a row of 50,000 took 90 s): a part with a line of more cells
 * than any real table is read without tables, its cells as text. */
#define MAX_MARKDOWN_CELLS 256

static gboolean
markdown_tables_are_sane (const char *text,
                          gsize       len)
{
  guint pipes = 0;

  for (gsize i = 0; i < len; i++)
    {
      if (text[i] == '\n')
        pipes = 0;
      else if (text[i] == '|' && ++pipes > MAX_MARKDOWN_CELLS)
        return FALSE;
    }
  return TRUE;
}

/* A footnote is text where it is defined, as a DOCX's notes follow its
 * text: a definition ("[^3]: The archive...") is written as the paragraph
 * it holds, and a reference ("[^3]") is dropped. Parsing in parts lost
 * every note defined in another part than its reference (592 of 800 in a
 * thesis), and cmark-gfm drops a definition nothing refers to. Code spans
 * and fences are left as they are. (transfer full) */
static char *
markdown_notes_in_place (const char *text,
                         gsize       len,
                         gsize      *out_len)
{
  GString *out = g_string_sized_new (len);
  gboolean fenced = FALSE;

  for (gsize p = 0; p < len;)
    {
      const char *nl = memchr (text + p, '\n', len - p);
      const gsize end = nl ? (gsize) (nl - text) + 1 : len;
      gsize q = p, indent = 0;

      if (markdown_fence (text + p, text + end))
        fenced = !fenced;
      if (fenced || markdown_fence (text + p, text + end))
        {
          g_string_append_len (out, text + p, end - p);
          p = end;
          continue;
        }
      while (q < end && text[q] == ' ' && indent < 3)
        q++, indent++;
      /* A definition: its label and colon go, its text stays. */
      if (q + 2 < end && text[q] == '[' && text[q + 1] == '^')
        {
          gsize r = q + 2;

          while (r < end && text[r] != ']' && text[r] != '\n')
            r++;
          if (r + 1 < end && text[r] == ']' && text[r + 1] == ':')
            q = r + 2;
          else
            q = p;
        }
      else
        q = p;
      /* References: "[^label]" outside code spans. */
      for (gsize i = q, ticks = 0; i < end; i++)
        {
          if (text[i] == '`')
            ticks ^= 1;
          if (!ticks && text[i] == '[' && i + 1 < end && text[i + 1] == '^')
            {
              gsize r = i + 2;

              while (r < end && text[r] != ']' && text[r] != ' ' && text[r] != '\n')
                r++;
              if (r < end && text[r] == ']' && r > i + 2 && !(r + 1 < end && text[r + 1] == ':'))
                {
                  i = r;
                  continue;
                }
            }
          g_string_append_c (out, text[i]);
        }
      p = end;
    }
  *out_len = out->len;
  return g_string_free (out, FALSE);
}

/* cmark-gfm holds about 140 bytes per inline node (a hostile "*a *a…"
 * makes one every 3 bytes), so a large file is read in parts: each ends at
 * the first blank line outside a code fence after MARKDOWN_PART bytes, or,
 * where there is none, at a line end or a space before 4 times that. A
 * link or footnote defined in another part then stays as written. */
#define MARKDOWN_PART (256u << 10)

static gsize
markdown_part_end (const char *text,
                   gsize       len,
                   gsize       at)
{
  const gsize most = at + 4 * MARKDOWN_PART;
  gboolean fenced = FALSE;
  gsize p = at, cut;

  if (len - at <= MARKDOWN_PART)
    return len;
  while (p < len)
    {
      const char *nl = memchr (text + p, '\n', len - p);
      const gsize line_end = nl ? (gsize) (nl - text) + 1 : len;

      if (line_end > most)
        break;
      if (markdown_fence (text + p, text + line_end))
        fenced = !fenced;
      else if (!fenced && p - at >= MARKDOWN_PART &&
               strspn (text + p, " \t\r") == line_end - p - (nl ? 1 : 0))
        return line_end;
      p = line_end;
    }
  if (p >= len)
    return len;
  if (p > at)
    return p;
  /* One line longer than a part: cut at a space, or between characters. */
  for (cut = most; cut > at && text[cut] != ' '; cut--)
    ;
  if (cut == at)
    for (cut = most; (text[cut] & 0xc0) == 0x80; cut--)
      ;
  return cut;
}

/* One part rendered to HTML by cmark-gfm (with GitHub's tables, task lists,
 * strikethrough and footnotes) and read like any page: a block quotation is
 * a quote, raw HTML keeps only its visible text (html_walk drops scripts;
 * nothing is displayed, so raw HTML is let through). */
static char *
markdown_part (const char  *text,
               gsize        len,
               const char  *name,
               gsize       *out_len,
               GError     **error)
{
  static GOnce registered = G_ONCE_INIT;
  static const char *const extensions[] = { "table", "strikethrough", "autolink", "tasklist", NULL };
  const int options = CMARK_OPT_UNSAFE;
  cmark_parser *parser;
  cmark_node *root;
  char *html, *out;

  if (!markdown_nesting_is_sane (text, len))
    {
      *out_len = len;
      return g_strndup (text, len);
    }
  g_once (&registered, markdown_register, NULL);
  parser = cmark_parser_new (options);
  for (guint i = 0; extensions[i]; i++)
    {
      cmark_syntax_extension *extension = cmark_find_syntax_extension (extensions[i]);

      if (g_str_equal (extensions[i], "table") && !markdown_tables_are_sane (text, len))
        continue;

      if (extension != NULL)
        cmark_parser_attach_syntax_extension (parser, extension);
    }
  cmark_parser_feed (parser, text, len);
  root = cmark_parser_finish (parser);
  html = cmark_render_html (root, options, cmark_parser_get_syntax_extensions (parser));
  cmark_node_free (root);
  cmark_parser_free (parser);
  out = _sim_markup_extract_html (html, strlen (html), name, out_len, NULL, error);
  free (html); /* cmark's default allocator */
  return out;
}

char *
_sim_markup_extract_markdown (const char  *original,
                  gsize        original_len,
                  const char  *name,
                  gsize       *out_len,
                  GError     **error)
{
  gsize len = 0;
  g_autofree char *text = markdown_notes_in_place (original, original_len, &len);
  GString *s = g_string_new (NULL);

  for (gsize at = 0, end; at < len; at = end)
    {
      gsize part_len = 0;
      g_autofree char *part = NULL;

      end = markdown_part_end (text, len, at);
      if ((part = markdown_part (text + at, end - at, name, &part_len, error)) == NULL)
        {
          g_string_free (s, TRUE);
          return NULL;
        }
      if (s->len + part_len > SIM_TEXT_MAX_TEXT_BYTES)
        {
          g_string_free (s, TRUE);
          sim_text_set_too_long_error (error, name);
          return NULL;
        }
      /* Parts end at a paragraph: one blank line between them. */
      if (s->len > 0 && part_len > 0)
        {
          while (s->len > 0 && s->str[s->len - 1] == '\n')
            g_string_truncate (s, s->len - 1);
          g_string_append (s, "\n\n");
        }
      g_string_append_len (s, part, part_len);
    }
  *out_len = s->len;
  return g_string_free (s, FALSE);
}
