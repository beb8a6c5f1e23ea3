/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * DOCX and ODT: unzipped with libarchive, read with libxml2 (sim-markup.h).
 */
#include "config.h"

#include <string.h>
#include <archive.h>
#include <archive_entry.h>
#include <glib/gi18n-lib.h>
#include <libxml/HTMLparser.h>

#include "sim-error.h"
#include "sim-markup-private.h"

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

          _sim_out_hidden (out, (const char *) t);
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
  for (xmlNode *n = node; n && !_sim_out_is_full (out); n = n->next)
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
              _sim_out_open_quote (out);
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
        _sim_out_break (out, 1);
      docx_walk (out, n->children, depth + 1, shaded || ((is (n, "tc") || is (n, "p")) && docx_is_shaded (n)));
      if (is (n, "p"))
        {
          _sim_out_break (out, 2);
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
  for (xmlNode *n = node; n && !_sim_out_is_full (out); n = n->next)
    {
      if (n->type == XML_ELEMENT_NODE && odt_is_hidden (out, n))
        {
          xmlChar *t = xmlNodeGetContent (n);

          _sim_out_hidden (out, (const char *) t);
          xmlFree (t);
          continue;
        }
      if (n->type == XML_TEXT_NODE)
        {
          if (n->content && *n->content)
            _sim_out_open_quote (out);
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
        _sim_out_break (out, 1);
      if (is (n, "p") || is (n, "h"))
        {
          xmlChar *style = xmlGetProp (n, (const xmlChar *) "style-name");

          _sim_out_break (out, 2);
          out->quote = is (n, "p") && style != NULL &&
                       (is_quote_style ((const char *) style) ||
                        (out->quote_styles && g_hash_table_contains (out->quote_styles, style)));
          xmlFree (style);
        }
      odt_walk (out, n->children, depth + 1);
      if (is (n, "p") || is (n, "h"))
        {
          _sim_out_break (out, 2);
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

char *
_sim_markup_extract_office (const char       *data,
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
  if (format == SIM_FORMAT_DOCX && !_sim_out_is_full (&out))
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
  return _sim_out_finish (&out, name, out_len, notes, error);
}
