/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The markup module (sim-markup.h): HTML read with libxml2, DOCX and ODT
 * unzipped with libarchive and read with libxml2, Markdown rendered with
 * cmark-gfm and read as HTML. Built as a module of its own and loaded the
 * first time such a document is met (sim_module_symbol()), so that a
 * program that reads plain text only does not load those libraries.
 */
#include "config.h"

#include <string.h>
#include <archive.h>
#include <archive_entry.h>
#include <glib/gi18n-lib.h>
#include <libxml/HTMLparser.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>

#include "sim-error.h"
#include "sim-markup.h"
#include "sim-text.h"

/* A zip member is read into memory at most this large: a zip bomb stops here. */
#define MAX_MEMBER_BYTES (64u << 20)

/* The names of a zip's members decide what it holds. */
SimFormat
sim_markup_detect_zip (const char *data,
                       gsize       len)
{
  struct archive *a = archive_read_new ();
  struct archive_entry *entry;
  SimFormat format = SIM_FORMAT_TEXT; /* not a document we know */

  archive_read_support_format_zip (a);
  if (archive_read_open_memory (a, data, len) == ARCHIVE_OK)
    while (archive_read_next_header (a, &entry) == ARCHIVE_OK)
      {
        const char *name = archive_entry_pathname (entry);

        if (g_strcmp0 (name, "word/document.xml") == 0)
          {
            format = SIM_FORMAT_DOCX;
            break;
          }
        if (g_strcmp0 (name, "content.xml") == 0)
          {
            format = SIM_FORMAT_ODT;
            break;
          }
      }
  archive_read_free (a);
  return format;
}

/* ------------------------------------------------------------ text out */

/* Text as it is extracted: runs of spaces collapse, and breaks between
 * blocks are at most one blank line. */
typedef struct {
  GString    *s;
  gboolean    pre;         /* inside <pre>: whitespace kept */
  gboolean    quote;       /* inside a block quotation */
  gboolean    quote_open;  /* its paragraph's opening mark is written */
  GHashTable *quote_styles; /* ODT: style names that are quotations */
  GHashTable *hidden_styles; /* ODT: style names whose text a reader does not see */
  guint       n_hidden;    /* characters of hidden text left out */
  gsize       hidden_first; /* byte offsets in s where the first and last were */
  gsize       hidden_last;
} Out;

#define OUT_INIT { g_string_new (NULL), FALSE, FALSE, FALSE, NULL, NULL, 0, 0, 0 }

/* Past the limit on a document's text the walks stop: what they hold is
 * bounded whatever the file. */
static inline gboolean
out_is_full (const Out *out)
{
  return out->s->len > SIM_TEXT_MAX_TEXT_BYTES;
}

/* Text a reader does not see is left out, and counted. */
static void
out_hidden (Out        *out,
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
static void
out_open_quote (Out *out)
{
  if (out->quote && !out->quote_open)
    {
      g_string_append (out->s, "“");
      out->quote_open = TRUE;
    }
}

static void
out_break (Out  *out,
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

static void
out_text (Out        *out,
          const char *text,
          gssize      len)
{
  const char *end = text + (len < 0 ? (gssize) strlen (text) : len);

  if (out->pre)
    {
      if (end > text)
        out_open_quote (out);
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
          out_open_quote (out);
          g_string_append_c (out->s, *p);
        }
    }
}

static char *
out_finish (Out              *out,
            const char       *name,
            gsize            *out_len,
            SimDocumentNotes *notes,
            GError          **error)
{
  if (out_is_full (out))
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

/* Deeper than this the walks go on without recursion: a page of 300
 * unclosed <font> tags (old editors write them) is read whole. */
#define MAX_WALK_DEPTH 200

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

  while (n != NULL && !out_is_full (out))
    {
      gboolean descend = FALSE;

      if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE)
        out_text (out, (const char *) n->content, -1);
      else if (n->type == XML_ELEMENT_NODE && !name_in (n->name, dropped) && !is_backlink (n))
        {
          if (g_ascii_strcasecmp ((const char *) n->name, "br") == 0 ||
              g_ascii_strcasecmp ((const char *) n->name, "p") == 0 ||
              g_ascii_strcasecmp ((const char *) n->name, "div") == 0)
            out_break (out, 1);
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
  for (xmlNode *n = node; n && !out_is_full (out); n = n->next)
    {
      if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE)
        {
          out_text (out, (const char *) n->content, -1);
          continue;
        }
      if (n->type != XML_ELEMENT_NODE)
        continue;
      if (name_in (n->name, dropped) || is_backlink (n))
        continue;
      if (g_ascii_strcasecmp ((const char *) n->name, "br") == 0)
        {
          out_break (out, 1);
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
          out_break (out, 2);
        else if (line)
          out_break (out, 1);
        if (pre)
          out->pre = TRUE;
        if (quote)
          out->quote = TRUE;
        html_walk (out, n->children, depth + 1);
        out->pre = was_pre;
        if (quote)
          out_break (out, 2);
        out->quote = was_quote;
        if (para)
          out_break (out, 2);
        else if (line)
          out_break (out, 1);
        else if (cell)
          out_text (out, " ", 1);
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

static char *
extract_html (const char       *data,
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
  text = out_finish (&out, name, out_len, notes, error);
  return text;
}

/* ------------------------------------------------------------ DOCX, ODT */

/* The bytes of zip member @member, or NULL (with @error when the member is
 * too large or the zip damaged; without when it is absent). */
static GBytes *
zip_member (const char  *data,
            gsize        len,
            const char  *member,
            const char  *name,
            GError     **error)
{
  struct archive *a = archive_read_new ();
  struct archive_entry *entry;
  GBytes *bytes = NULL;
  int rc;

  archive_read_support_format_zip (a);
  if (archive_read_open_memory (a, data, len) != ARCHIVE_OK)
    goto damaged;
  while ((rc = archive_read_next_header (a, &entry)) == ARCHIVE_OK)
    {
      g_autoptr(GByteArray) buf = NULL;
      char chunk[65536];
      la_ssize_t n;

      if (g_strcmp0 (archive_entry_pathname (entry), member) != 0)
        continue;
      buf = g_byte_array_new ();
      while ((n = archive_read_data (a, chunk, sizeof chunk)) > 0)
        {
          if (buf->len + (gsize) n > MAX_MEMBER_BYTES)
            {
              g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                           _("%s is too large: its %s unpacks to more than %u MB"), name, member,
                           MAX_MEMBER_BYTES >> 20);
              archive_read_free (a);
              return NULL;
            }
          g_byte_array_append (buf, (const guint8 *) chunk, n);
        }
      if (n < 0)
        goto damaged;
      bytes = g_byte_array_free_to_bytes (g_steal_pointer (&buf));
      break;
    }
  if (bytes == NULL && rc != ARCHIVE_EOF && rc != ARCHIVE_OK)
    goto damaged;
  archive_read_free (a);
  return bytes;

damaged:
  g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_TEXT, _("%s is damaged: %s"), name,
               archive_error_string (a) ? archive_error_string (a) : _("not a readable zip file"));
  archive_read_free (a);
  return NULL;
}

static xmlDocPtr
parse_xml (GBytes      *bytes,
           const char  *name,
           GError     **error)
{
  gsize len = 0;
  const char *data = g_bytes_get_data (bytes, &len);
  /* No network, no external entities; libxml2 caps entity expansion itself. */
  xmlDocPtr doc = len <= G_MAXINT ? xmlReadMemory (data, (int) len, NULL, NULL,
                                                   XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING)
                                  : NULL;

  if (doc == NULL)
    g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_TEXT, _("%s is damaged: its XML cannot be read"), name);
  /* No word processor writes a document type declaration, and its entities
   * are how 866 bytes expand to gigabytes: such a file is refused. */
  else if (doc->intSubset != NULL || doc->extSubset != NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_TEXT,
                   _("%s is not read: its XML declares a document type, which no word processor writes "
                     "(its entities could expand without bound)"), name);
      xmlFreeDoc (doc);
      doc = NULL;
    }
  return doc;
}

static gboolean
is (const xmlNode *n,
    const char    *local)
{
  return n->type == XML_ELEMENT_NODE && strcmp ((const char *) n->name, local) == 0;
}

/* Paragraph styles that mean a block quotation: Word's Quote and Intense
 * Quote, pandoc's Block Text, LibreOffice's Quotations. */
static gboolean
is_quote_style (const char *style)
{
  static const char *const names[] = { "Quote", "IntenseQuote", "BlockText", "Quotations", NULL };

  for (guint i = 0; names[i]; i++)
    if (g_ascii_strcasecmp (style, names[i]) == 0)
      return TRUE;
  return FALSE;
}

/* The child of @n named @local, or NULL. */
static xmlNode *
child (const xmlNode *n,
       const char    *local)
{
  for (xmlNode *c = n ? n->children : NULL; c; c = c->next)
    if (is (c, local))
      return c;
  return NULL;
}

/* An attribute's value (w:val, w:fill...), compared as a word: NULL is no. */
static gboolean
prop_is (const xmlNode *n,
         const char    *attr,
         const char    *value)
{
  xmlChar *v = n ? xmlGetProp ((xmlNode *) n, (const xmlChar *) attr) : NULL;
  const gboolean yes = v != NULL && g_ascii_strcasecmp ((const char *) v, value) == 0;

  xmlFree (v);
  return yes;
}

/* A paragraph or table cell whose shading is coloured: white text on it is
 * seen (a heading row in white on dark blue). */
static gboolean
docx_is_shaded (const xmlNode *n)
{
  const xmlNode *shd = child (child (n, is (n, "tc") ? "tcPr" : "pPr"), "shd");
  xmlChar *fill = shd ? xmlGetProp ((xmlNode *) shd, (const xmlChar *) "fill") : NULL;
  const gboolean shaded = fill != NULL && g_ascii_strcasecmp ((const char *) fill, "auto") != 0 &&
                          g_ascii_strcasecmp ((const char *) fill, "FFFFFF") != 0;

  xmlFree (fill);
  return shaded;
}

/* A run a reader does not see: hidden (w:vanish), in a size of 2 points
 * or less, or white on a page or cell that is not shaded. */
static gboolean
docx_run_is_hidden (const xmlNode *run,
                    gboolean       shaded)
{
  const xmlNode *pr = child (run, "rPr");
  const xmlNode *vanish = child (pr, "vanish"), *sz = child (pr, "sz"), *color = child (pr, "color");
  const xmlNode *highlight = child (pr, "highlight"), *shd = child (pr, "shd");

  if (pr == NULL)
    return FALSE;
  if (vanish && !prop_is (vanish, "val", "0") && !prop_is (vanish, "val", "false") && !prop_is (vanish, "val", "off"))
    return TRUE;
  if (sz != NULL)
    {
      xmlChar *v = xmlGetProp ((xmlNode *) sz, (const xmlChar *) "val");
      const int half_points = v ? atoi ((const char *) v) : 0;

      xmlFree (v);
      if (half_points > 0 && half_points <= 4)
        return TRUE;
    }
  return color && prop_is (color, "val", "FFFFFF") && !shaded &&
         (highlight == NULL || prop_is (highlight, "val", "none") || prop_is (highlight, "val", "white")) &&
         (shd == NULL || prop_is (shd, "fill", "auto") || prop_is (shd, "fill", "FFFFFF"));
}

/* The text of the w:t below @n, as hidden text. */
static void
docx_hide (Out     *out,
           xmlNode *n)
{
  for (xmlNode *c = n->children; c; c = c->next)
    {
      if (is (c, "t"))
        {
          xmlChar *t = xmlNodeGetContent (c);

          out_hidden (out, (const char *) t);
          xmlFree (t);
        }
      else if (c->type == XML_ELEMENT_NODE && !is (c, "rPr"))
        docx_hide (out, c);
    }
}

static void
docx_walk (Out      *out,
           xmlNode  *node,
           guint     depth,
           gboolean  shaded)
{
  if (depth > MAX_WALK_DEPTH)
    return;
  for (xmlNode *n = node; n && !out_is_full (out); n = n->next)
    {
      if (n->type != XML_ELEMENT_NODE)
        continue;
      if (is (n, "r") && docx_run_is_hidden (n, shaded))
        {
          docx_hide (out, n);
          continue;
        }
      /* Tracked deletions, field codes, the fallback copy of a drawing. */
      if (is (n, "del") || is (n, "delText") || is (n, "instrText") || is (n, "Fallback") ||
          is (n, "commentReference"))
        continue;
      if (is (n, "t"))
        {
          xmlChar *t = xmlNodeGetContent (n);

          /* w:t keeps its spaces (xml:space="preserve"). */
          if (t && *t)
            {
              out_open_quote (out);
              g_string_append (out->s, (const char *) t);
            }
          xmlFree (t);
          continue;
        }
      if (is (n, "pStyle"))
        {
          xmlChar *style = xmlGetProp (n, (const xmlChar *) "val");

          out->quote = style != NULL && is_quote_style ((const char *) style);
          xmlFree (style);
        }
      if (is (n, "tab"))
        g_string_append_c (out->s, '\t');
      else if (is (n, "br") || is (n, "cr"))
        out_break (out, 1);
      docx_walk (out, n->children, depth + 1, shaded || ((is (n, "tc") || is (n, "p")) && docx_is_shaded (n)));
      if (is (n, "p"))
        {
          out_break (out, 2);
          out->quote = FALSE;
        }
    }
}

/* An ODT span, paragraph or heading a reader does not see: its style is
 * hidden, or the paragraph is marked hidden (text:hidden-paragraph). */
static gboolean
odt_is_hidden (Out     *out,
               xmlNode *n)
{
  xmlChar *style;
  gboolean hidden;

  if (!is (n, "span") && !is (n, "p") && !is (n, "h"))
    return FALSE;
  for (xmlNode *c = n->children; c; c = c->next)
    if (is (c, "hidden-paragraph") && !prop_is (c, "is-hidden", "false"))
      return TRUE;
  style = xmlGetProp (n, (const xmlChar *) "style-name");
  hidden = style != NULL && out->hidden_styles && g_hash_table_contains (out->hidden_styles, style);
  xmlFree (style);
  return hidden;
}

static void
odt_walk (Out     *out,
          xmlNode *node,
          guint    depth)
{
  if (depth > MAX_WALK_DEPTH)
    return;
  for (xmlNode *n = node; n && !out_is_full (out); n = n->next)
    {
      if (n->type == XML_ELEMENT_NODE && odt_is_hidden (out, n))
        {
          xmlChar *t = xmlNodeGetContent (n);

          out_hidden (out, (const char *) t);
          xmlFree (t);
          continue;
        }
      if (n->type == XML_TEXT_NODE)
        {
          if (n->content && *n->content)
            out_open_quote (out);
          g_string_append (out->s, (const char *) n->content);
          continue;
        }
      if (n->type != XML_ELEMENT_NODE)
        continue;
      /* Tracked changes (deleted text lives there), comments, note numbers. */
      if (is (n, "tracked-changes") || is (n, "annotation") || is (n, "note-citation") ||
          is (n, "sequence-decls") || is (n, "variable-decls"))
        continue;
      if (is (n, "s"))
        {
          xmlChar *c = xmlGetProp (n, (const xmlChar *) "c");
          const guint count = c ? CLAMP (atoi ((const char *) c), 1, 1000) : 1;

          for (guint i = 0; i < count; i++)
            g_string_append_c (out->s, ' ');
          xmlFree (c);
          continue;
        }
      if (is (n, "tab"))
        g_string_append_c (out->s, '\t');
      else if (is (n, "line-break"))
        out_break (out, 1);
      if (is (n, "p") || is (n, "h"))
        {
          xmlChar *style = xmlGetProp (n, (const xmlChar *) "style-name");

          out_break (out, 2);
          out->quote = is (n, "p") && style != NULL &&
                       (is_quote_style ((const char *) style) ||
                        (out->quote_styles && g_hash_table_contains (out->quote_styles, style)));
          xmlFree (style);
        }
      odt_walk (out, n->children, depth + 1);
      if (is (n, "p") || is (n, "h"))
        {
          out_break (out, 2);
          out->quote = FALSE;
        }
    }
}

/* A style whose text a reader does not see: text:display="none", a size
 * of 2 points or less, or white without a background colour. */
static gboolean
odt_style_is_hidden (xmlNode *style)
{
  xmlNode *props = child (style, "text-properties");
  xmlChar *size;
  gboolean hidden;

  if (props == NULL)
    return FALSE;
  if (prop_is (props, "display", "none"))
    return TRUE;
  size = xmlGetProp (props, (const xmlChar *) "font-size");
  hidden = size != NULL && g_str_has_suffix ((const char *) size, "pt") && g_ascii_strtod ((const char *) size, NULL) > 0 &&
           g_ascii_strtod ((const char *) size, NULL) <= 2;
  xmlFree (size);
  return hidden || (prop_is (props, "color", "#ffffff") &&
                    (!xmlHasProp (props, (const xmlChar *) "background-color") ||
                     prop_is (props, "background-color", "transparent") ||
                     prop_is (props, "background-color", "#ffffff")));
}

/* ODT's automatic paragraph styles ("P3") that derive from a quotation
 * style, and the styles whose text is hidden. */
static void
odt_find_quote_styles (Out     *out,
                       xmlNode *node,
                       guint    depth)
{
  if (depth > 8)
    return;
  for (xmlNode *n = node; n; n = n->next)
    {
      if (is (n, "style"))
        {
          xmlChar *name = xmlGetProp (n, (const xmlChar *) "name");
          xmlChar *parent = xmlGetProp (n, (const xmlChar *) "parent-style-name");

          if (name && parent && is_quote_style ((const char *) parent))
            g_hash_table_add (out->quote_styles, g_strdup ((const char *) name));
          if (name && odt_style_is_hidden (n))
            g_hash_table_add (out->hidden_styles, g_strdup ((const char *) name));
          xmlFree (name);
          xmlFree (parent);
        }
      else if (is (n, "automatic-styles") || is (n, "document-content"))
        odt_find_quote_styles (out, n->children, depth + 1);
    }
}

static char *
extract_office (const char       *data,
                gsize             len,
                const char       *name,
                SimFormat         format,
                gsize            *out_len,
                SimDocumentNotes *notes,
                GError          **error)
{
  const char *main_member = format == SIM_FORMAT_DOCX ? "word/document.xml" : "content.xml";
  g_autoptr(GBytes) body = zip_member (data, len, main_member, name, error);
  Out out = OUT_INIT;
  xmlDocPtr doc;

  if (body == NULL)
    {
      if (error && *error == NULL)
        g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_TEXT, _("%s is damaged: %s is missing"), name, main_member);
      g_string_free (out.s, TRUE);
      return NULL;
    }
  if ((doc = parse_xml (body, name, error)) == NULL)
    {
      g_string_free (out.s, TRUE);
      return NULL;
    }
  if (format == SIM_FORMAT_DOCX)
    docx_walk (&out, xmlDocGetRootElement (doc), 0, FALSE);
  else
    {
      out.quote_styles = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      out.hidden_styles = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
      odt_find_quote_styles (&out, xmlDocGetRootElement (doc), 0);
      odt_walk (&out, xmlDocGetRootElement (doc), 0);
      g_clear_pointer (&out.quote_styles, g_hash_table_unref);
      g_clear_pointer (&out.hidden_styles, g_hash_table_unref);
    }
  xmlFreeDoc (doc);

  /* DOCX keeps its footnotes apart: they follow the text. */
  if (format == SIM_FORMAT_DOCX && !out_is_full (&out))
    {
      g_autoptr(GError) local_error = NULL;
      g_autoptr(GBytes) notes_xml = zip_member (data, len, "word/footnotes.xml", name, &local_error);
      xmlDocPtr ndoc = notes_xml ? parse_xml (notes_xml, name, NULL) : NULL;

      if (ndoc != NULL)
        {
          for (xmlNode *n = xmlDocGetRootElement (ndoc)->children; n; n = n->next)
            {
              xmlChar *type = is (n, "footnote") ? xmlGetProp (n, (const xmlChar *) "type") : NULL;

              /* The separator lines are not notes. */
              if (is (n, "footnote") && type == NULL)
                docx_walk (&out, n->children, 1, FALSE);
              xmlFree (type);
            }
          xmlFreeDoc (ndoc);
        }
    }
  return out_finish (&out, name, out_len, notes, error);
}

/* ------------------------------------------------------------- Markdown */

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
  out = extract_html (html, strlen (html), name, out_len, NULL, error);
  free (html); /* cmark's default allocator */
  return out;
}

static char *
extract_markdown (const char  *original,
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
      return extract_markdown (data, len, name, out_len, error);
    case SIM_FORMAT_HTML:
      return extract_html (data, len, name, out_len, notes, error);
    case SIM_FORMAT_DOCX:
    case SIM_FORMAT_ODT:
      return extract_office (data, len, name, format, out_len, notes, error);
    default:
      g_return_val_if_reached (NULL);
    }
}
