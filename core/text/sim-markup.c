/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The markup module (sim-markup.h): HTML read with libxml2 (here, with
 * the text every reader writes and the entry), DOCX and ODT unzipped with
 * libarchive and read with libxml2 (sim-markup-office.c), Markdown rendered
 * with cmark-gfm and read as HTML (sim-markup-markdown.c). Built as a module of its own and loaded the
 * first time such a document is met (sim_module_symbol()), so that a
 * program that reads plain text only does not load those libraries.
 */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>
#include <libxml/HTMLparser.h>

#include "sim-error.h"
#include "sim-markup-private.h"

/* ------------------------------------------------------------ text out */

/* Text a reader does not see is left out, and counted. */
void
_sim_out_hidden (Out        *out,
            const char *text)
{
  guint n = 0;

  /* Characters, not the spaces between them. */
  for (const char *p = text; p && *p; p = g_utf8_next_char (p))
    n += !g_unichar_isspace (g_utf8_get_char (p));
  if (n == 0)
    return;
  if (out->n_hidden == 0)
    out->hidden_first = out->s->len;
  out->hidden_last = out->s->len;
  out->n_hidden += n;
}

/* A block quotation (HTML <blockquote>, a DOCX or ODT paragraph in a
 * quotation style) is written between “ and ” paragraph by paragraph, so
 * the text says it is quoted and leaving quotes out (sim-exclude.h) finds it
 * like any quotation. */
void
_sim_out_open_quote (Out *out)
{
  if (out->quote && !out->quote_open)
    {
      g_string_append (out->s, "“");
      out->quote_open = TRUE;
    }
}

void
_sim_out_break (Out  *out,
           guint n_newlines)
{
  gsize have = 0;

  while (out->s->len > 0 && out->s->str[out->s->len - 1] == ' ')
    g_string_truncate (out->s, out->s->len - 1);
  if (out->quote_open)
    {
      g_string_append (out->s, "”");
      out->quote_open = FALSE;
    }
  if (out->s->len == 0)
    return;
  while (have < out->s->len && out->s->str[out->s->len - 1 - have] == '\n')
    have++;
  for (; have < n_newlines; have++)
    g_string_append_c (out->s, '\n');
}

void
_sim_out_text (Out        *out,
          const char *text,
          gssize      len)
{
  const char *end = text + (len < 0 ? (gssize) strlen (text) : len);

  if (out->pre)
    {
      if (end > text)
        _sim_out_open_quote (out);
      g_string_append_len (out->s, text, end - text);
      return;
    }
  for (const char *p = text; p < end; p++)
    {
      if (g_ascii_isspace (*p))
        {
          /* One space, and none at the start of a line. */
          if (out->s->len > 0 && out->s->str[out->s->len - 1] != ' ' && out->s->str[out->s->len - 1] != '\n' &&
              !(out->quote_open && g_str_has_suffix (out->s->str, "“")))
            g_string_append_c (out->s, ' ');
        }
      else
        {
          _sim_out_open_quote (out);
          g_string_append_c (out->s, *p);
        }
    }
}

char *
_sim_out_finish (Out              *out,
            const char       *name,
            gsize            *out_len,
            SimDocumentNotes *notes,
            GError          **error)
{
  if (_sim_out_is_full (out))
    {
      g_string_free (g_steal_pointer (&out->s), TRUE);
      sim_text_set_too_long_error (error, name);
      return NULL;
    }
  if (notes != NULL && out->n_hidden > 0)
    {
      const gsize last = MIN (out->hidden_last, out->s->len);
      const gsize first = MIN (out->hidden_first, last);

      notes->n_hidden += out->n_hidden;
      notes->hidden_start = sim_text_count_chars (out->s->str, first);
      notes->hidden_end = sim_text_count_chars (out->s->str, last);
    }
  while (out->s->len > 0 && g_ascii_isspace (out->s->str[out->s->len - 1]))
    g_string_truncate (out->s, out->s->len - 1);
  if (out->s->len > 0)
    g_string_append_c (out->s, '\n');
  if (out_len)
    *out_len = out->s->len;
  return g_string_free (g_steal_pointer (&out->s), FALSE);
}

/* libxml2 reports a damaged file on stderr unless told not to; the caller
 * gets our own error instead. The handlers are per thread. */
static void
silent (void       *ctx,
        const char *msg,
        ...)
{
}

static void
silent_structured (void        *ctx,
                   xmlErrorPtr  error)
{
}

static void
quiet_libxml (void)
{
  xmlSetGenericErrorFunc (NULL, silent);
  xmlSetStructuredErrorFunc (NULL, silent_structured);
}

/* ----------------------------------------------------------------- HTML */

static gboolean
name_in (const xmlChar      *name,
         const char *const  *names)
{
  for (guint i = 0; names[i]; i++)
    if (g_ascii_strcasecmp ((const char *) name, names[i]) == 0)
      return TRUE;
  return FALSE;
}

/* A footnote's link back to the text (cmark-gfm's and GitHub's ↩, pandoc's
 * footnote-back) is navigation, like a menu. */
static gboolean
is_backlink (xmlNode *n)
{
  xmlChar *klass;
  gboolean back;

  if (g_ascii_strcasecmp ((const char *) n->name, "a") != 0)
    return FALSE;
  if (xmlHasProp (n, (const xmlChar *) "data-footnote-backref"))
    return TRUE;
  klass = xmlGetProp (n, (const xmlChar *) "class");
  back = klass != NULL && (g_str_equal ((const char *) klass, "footnote-backref") ||
                           g_str_equal ((const char *) klass, "footnote-back"));
  xmlFree (klass);
  return back;
}


/* The text of @first and its siblings and everything below them, in
 * document order and without recursion, each element a space apart: what
 * lies deeper than any real structure. */
static void
html_walk_flat (Out               *out,
                xmlNode           *first,
                const char *const *dropped)
{
  xmlNode *top = first ? first->parent : NULL;
  xmlNode *n = first;

  while (n != NULL && !_sim_out_is_full (out))
    {
      gboolean descend = FALSE;

      if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE)
        _sim_out_text (out, (const char *) n->content, -1);
      else if (n->type == XML_ELEMENT_NODE && !name_in (n->name, dropped) && !is_backlink (n))
        {
          if (g_ascii_strcasecmp ((const char *) n->name, "br") == 0 ||
              g_ascii_strcasecmp ((const char *) n->name, "p") == 0 ||
              g_ascii_strcasecmp ((const char *) n->name, "div") == 0)
            _sim_out_break (out, 1);
          descend = n->children != NULL;
        }
      if (descend)
        {
          n = n->children;
          continue;
        }
      while (n != NULL && n->next == NULL)
        {
          n = n->parent;
          if (n == top)
            return;
        }
      if (n != NULL)
        n = n->next;
    }
}

static void
html_walk (Out       *out,
           xmlNode   *node,
           guint      depth)
{
  static const char *const dropped[] = { "script", "style", "nav", "noscript", "template", "head", "svg",
                                         "math", "iframe", "object", "button", "select", NULL };
  static const char *const paragraphs[] = { "p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre",
                                            "table", "ul", "ol", "dl", "figure", "hr", "section",
                                            "article", "header", "footer", "aside", "main", "address",
                                            "form", "fieldset", "details", "center", NULL };
  static const char *const lines[] = { "div", "li", "tr", "dt", "dd", "figcaption", "caption", "summary",
                                       "option", "legend", "body", NULL };

  if (depth > MAX_WALK_DEPTH)
    {
      html_walk_flat (out, node, dropped);
      return;
    }
  for (xmlNode *n = node; n && !_sim_out_is_full (out); n = n->next)
    {
      if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE)
        {
          _sim_out_text (out, (const char *) n->content, -1);
          continue;
        }
      if (n->type != XML_ELEMENT_NODE)
        continue;
      if (name_in (n->name, dropped) || is_backlink (n))
        continue;
      if (g_ascii_strcasecmp ((const char *) n->name, "br") == 0)
        {
          _sim_out_break (out, 1);
          continue;
        }
      {
        const gboolean para = name_in (n->name, paragraphs), line = name_in (n->name, lines);
        const gboolean cell = g_ascii_strcasecmp ((const char *) n->name, "td") == 0 ||
                              g_ascii_strcasecmp ((const char *) n->name, "th") == 0;
        const gboolean pre = g_ascii_strcasecmp ((const char *) n->name, "pre") == 0;
        const gboolean quote = g_ascii_strcasecmp ((const char *) n->name, "blockquote") == 0;
        const gboolean was_pre = out->pre, was_quote = out->quote;

        if (para)
          _sim_out_break (out, 2);
        else if (line)
          _sim_out_break (out, 1);
        if (pre)
          out->pre = TRUE;
        if (quote)
          out->quote = TRUE;
        html_walk (out, n->children, depth + 1);
        out->pre = was_pre;
        if (quote)
          _sim_out_break (out, 2);
        out->quote = was_quote;
        if (para)
          _sim_out_break (out, 2);
        else if (line)
          _sim_out_break (out, 1);
        else if (cell)
          _sim_out_text (out, " ", 1);
      }
    }
}

static gboolean
declares_charset (const char *data,
                  gsize       len)
{
  g_autofree char *head = g_ascii_strdown (data, MIN (len, 4096));

  return strstr (head, "charset") != NULL || strstr (head, "encoding=") != NULL ||
         (len >= 2 && ((guchar) data[0] == 0xff || (guchar) data[0] == 0xfe));
}

char *
_sim_markup_extract_html (const char       *data,
              gsize             len,
              const char       *name,
              gsize            *out_len,
              SimDocumentNotes *notes,
              GError          **error)
{
  /* Without a declared charset libxml2 assumes Latin-1: valid UTF-8 is UTF-8. */
  const char *encoding = !declares_charset (data, len) && g_utf8_validate (data, MIN (len, G_MAXSSIZE), NULL)
                           ? "UTF-8" : NULL;
  htmlDocPtr doc = htmlReadMemory (data, (int) len, NULL, encoding,
                                   HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
                                   HTML_PARSE_NONET | HTML_PARSE_COMPACT | XML_PARSE_HUGE);
  Out out = OUT_INIT;
  char *text;

  if (doc == NULL && strspn (data, " \t\r\n") == len)
    {
      /* Nothing to read (a Markdown part of link definitions only). */
      *out_len = 0;
      g_string_free (out.s, TRUE);
      return g_strdup ("");
    }
  if (doc == NULL)
    {
      g_string_free (out.s, TRUE);
      g_set_error (error, SIM_ERROR, SIM_ERROR_BAD_ENCODING, _("%s could not be read as HTML"), name);
      return NULL;
    }
  html_walk (&out, xmlDocGetRootElement (doc), 0);
  xmlFreeDoc (doc);
  text = _sim_out_finish (&out, name, out_len, notes, error);
  return text;
}

/* -------------------------------------------------------------- entry */

char *
sim_markup_extract (SimFormat         format,
                    const char       *data,
                    gsize             len,
                    const char       *name,
                    gsize            *out_len,
                    SimDocumentNotes *notes,
                    GError          **error)
{
  quiet_libxml ();
  switch (format)
    {
    case SIM_FORMAT_MARKDOWN:
      return _sim_markup_extract_markdown (data, len, name, out_len, error);
    case SIM_FORMAT_HTML:
      return _sim_markup_extract_html (data, len, name, out_len, notes, error);
    case SIM_FORMAT_DOCX:
    case SIM_FORMAT_ODT:
      return _sim_markup_extract_office (data, len, name, format, out_len, notes, error);
    default:
      g_return_val_if_reached (NULL);
    }
}
