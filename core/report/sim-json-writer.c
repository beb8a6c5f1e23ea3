/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "sim-json-writer.h"

SimJsonWriter
sim_json_writer_new (gboolean pretty)
{
  return (SimJsonWriter) { g_string_sized_new (4096), pretty, 0, 0, TRUE, FALSE };
}

char *
sim_json_writer_finish (SimJsonWriter *w)
{
  return g_string_free (w->out, FALSE);
}

static void
indent (SimJsonWriter *w,
        guint         level)
{
  for (guint i = 0; i < level; i++)
    g_string_append (w->out, "  ");
}

/* What goes before a value or a member's name. */
static void
next_item (SimJsonWriter *w)
{
  if (w->named)
    {
      w->named = FALSE;
      return;
    }
  if (w->depth == 0)
    return;
  if (!w->empty)
    g_string_append_c (w->out, ',');
  if (w->pretty)
    {
      g_string_append_c (w->out, '\n');
      indent (w, w->depth);
    }
  w->empty = FALSE;
}

/* json-glib's escaping, to the byte: 0x1f is left as it is, and 0x7f is
 * escaped. */
static void
append_string (SimJsonWriter *w,
               const char    *s)
{
  g_string_append_c (w->out, '"');
  for (const char *p = s; *p != '\0'; p++)
    if (*p == '\\' || *p == '"')
      {
        g_string_append_c (w->out, '\\');
        g_string_append_c (w->out, *p);
      }
    else if ((*p > 0 && *p < 0x1f) || *p == 0x7f)
      switch (*p)
        {
        case '\b': g_string_append (w->out, "\\b"); break;
        case '\f': g_string_append (w->out, "\\f"); break;
        case '\n': g_string_append (w->out, "\\n"); break;
        case '\r': g_string_append (w->out, "\\r"); break;
        case '\t': g_string_append (w->out, "\\t"); break;
        default: g_string_append_printf (w->out, "\\u00%.2x", (guint) *p); break;
        }
    else
      g_string_append_c (w->out, *p);
  g_string_append_c (w->out, '"');
}

void
sim_json_begin (SimJsonWriter *w,
                gboolean      object)
{
  next_item (w);
  g_string_append_c (w->out, object ? '{' : '[');
  if (object)
    w->objects |= G_GUINT64_CONSTANT (1) << w->depth;
  else
    w->objects &= ~(G_GUINT64_CONSTANT (1) << w->depth);
  w->depth++;
  w->empty = TRUE;
}

void
sim_json_end (SimJsonWriter *w)
{
  const gboolean object = (w->objects >> (w->depth - 1)) & 1;

  w->depth--;
  if (w->pretty && !w->empty)
    {
      g_string_append_c (w->out, '\n');
      indent (w, w->depth);
    }
  else if (w->pretty && object)
    indent (w, w->depth);
  g_string_append_c (w->out, object ? '}' : ']');
  w->empty = FALSE;
}

void
sim_json_name (SimJsonWriter *w,
               const char    *member)
{
  next_item (w);
  append_string (w, member);
  g_string_append (w->out, w->pretty ? " : " : ":");
  w->named = TRUE;
}

void
sim_json_int (SimJsonWriter *w,
              gint64        value)
{
  next_item (w);
  g_string_append_printf (w->out, "%" G_GINT64_FORMAT, value);
}

void
sim_json_member_int (SimJsonWriter *w,
                     const char    *member,
                     gint64        value)
{
  sim_json_name (w, member);
  sim_json_int (w, value);
}

void
sim_json_member_double (SimJsonWriter *w,
                        const char    *member,
                        double        value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE + 2];

  sim_json_name (w, member);
  next_item (w);
  g_ascii_formatd (buf, G_ASCII_DTOSTR_BUF_SIZE, "%.17g", value);
  if (strchr (buf, '.') == NULL)
    strcat (buf, ".0");
  g_string_append (w->out, buf);
}

void
sim_json_member_string (SimJsonWriter *w,
                        const char    *member,
                        const char    *value)
{
  sim_json_name (w, member);
  next_item (w);
  append_string (w, value);
}

void
sim_json_member_boolean (SimJsonWriter *w,
                         const char    *member,
                         gboolean      value)
{
  sim_json_name (w, member);
  next_item (w);
  g_string_append (w->out, value ? "true" : "false");
}
