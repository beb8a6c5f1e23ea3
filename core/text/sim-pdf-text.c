/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The PDF module (sim-pdf.h), its reading half: a PDF's text read with
 * poppler, as a reader sees it. The module is loaded the first time a PDF
 * is met (sim_module_symbol()), so that a program that never reads or
 * writes one does not load poppler, cairo or pango.
 */
#include "config.h"

#include <math.h>
#include <string.h>
#include <cairo.h>
#include <poppler.h>
#include <glib/gi18n-lib.h>

#include "sim-error.h"
#include "sim-pdf.h"
#include "sim-text.h"

/* A line as a header or footer key: digits (page numbers) do not count. */
static char *
running_key (const char *line)
{
  GString *s = g_string_new (NULL);

  for (const char *p = line; *p; p++)
    if (!g_ascii_isdigit (*p) && !g_ascii_isspace (*p))
      g_string_append_c (s, *p);
  return g_string_free (s, FALSE);
}

#define RUNNING_LINES 2 /* lines at the top and at the bottom of a page that may repeat */

/* The page drawn as a reader sees it: a letter whose box holds no ink at
 * all is not seen (drawn in PDF's invisible mode, white on white, or
 * covered by a white box), and a letter on a picture is not seen unless
 * some pixel of its box has its own colour (a picture drawn over it hides
 * it; a scanned page's recognised text lies on the scanned letters, which
 * have it). Only letters, digits and CJK characters are judged, never
 * punctuation. A page where almost every letter looks unseen is one this
 * test misreads (a rotation it does not follow): nothing of it is hidden on
 * these grounds. Drawn at half scale, at full scale where there are
 * pictures (a letter's own colour needs its strokes whole). */
#define INK_SCALE 0.5
#define COLOUR_TOLERANCE 100  /* of 255, on each channel */

static gboolean
on_picture (const GList            *pictures,
            const PopplerRectangle *r)
{
  const double x = (r->x1 + r->x2) / 2, y = (r->y1 + r->y2) / 2;

  for (const GList *l = pictures; l; l = l->next)
    {
      const PopplerImageMapping *m = l->data;

      if (x >= MIN (m->area.x1, m->area.x2) && x <= MAX (m->area.x1, m->area.x2) &&
          y >= MIN (m->area.y1, m->area.y2) && y <= MAX (m->area.y1, m->area.y2))
        return TRUE;
    }
  return FALSE;
}

static void
mark_unseen (PopplerPage            *page,
             double                  width,
             double                  height,
             const char             *text,
             const PopplerRectangle *rects,
             const guint32          *colours,
             guint                   n,
             guint8                 *hidden)
{
  GList *pictures = poppler_page_get_image_mapping (page);
  const double scale = pictures != NULL ? 1.0 : INK_SCALE;
  const int w = (int) ceil (width * scale), h = (int) ceil (height * scale);
  g_autofree guint8 *unseen = NULL;
  cairo_surface_t *surface;
  cairo_t *cr;
  const guint8 *pixels;
  int stride;
  guint n_letters = 0, n_unseen = 0;
  const char *p = text;

  if (w <= 0 || h <= 0 || w > 8192 || h > 8192)
    {
      poppler_page_free_image_mapping (pictures);
      return;
    }
  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, w, h);
  cr = cairo_create (surface);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  cairo_scale (cr, scale, scale);
  poppler_page_render (page, cr);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  pixels = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);
  unseen = g_new0 (guint8, MAX (n, 1));
  for (guint i = 0; i < n && *p; i++, p = g_utf8_next_char (p))
    {
      const gunichar c = g_utf8_get_char (p);
      const int x0 = CLAMP ((int) floor (rects[i].x1 * scale), 0, w - 1);
      const int x1 = CLAMP ((int) ceil (rects[i].x2 * scale), x0 + 1, w);
      const int y0 = CLAMP ((int) floor (rects[i].y1 * scale), 0, h - 1);
      const int y1 = CLAMP ((int) ceil (rects[i].y2 * scale), y0 + 1, h);
      const gboolean own_colour = pictures != NULL && on_picture (pictures, &rects[i]);
      const int cr_ = (colours[i] >> 16) & 0xff, cg = (colours[i] >> 8) & 0xff, cb = colours[i] & 0xff;
      gboolean seen = FALSE;

      if (hidden[i] || !g_unichar_isalnum (c))
        continue;
      n_letters++;
      for (int y = y0; y < y1 && !seen; y++)
        {
          const guint32 *row = (const guint32 *) (pixels + (gsize) y * stride);

          for (int x = x0; x < x1 && !seen; x++)
            if (own_colour)
              seen = ABS ((int) ((row[x] >> 16) & 0xff) - cr_) <= COLOUR_TOLERANCE &&
                     ABS ((int) ((row[x] >> 8) & 0xff) - cg) <= COLOUR_TOLERANCE &&
                     ABS ((int) (row[x] & 0xff) - cb) <= COLOUR_TOLERANCE;
            else
              seen = (row[x] & 0xffffff) != 0xffffff;
        }
      if (!seen)
        {
          unseen[i] = 1;
          n_unseen++;
        }
    }
  cairo_surface_destroy (surface);
  poppler_page_free_image_mapping (pictures);
  if (n_unseen * 10 > n_letters * 9)
    return;
  for (guint i = 0; i < n; i++)
    hidden[i] |= unseen[i];
}

/* The page's text as a reader sees it: characters drawn in white, in 2
 * points or less, off the page or unseen (mark_unseen()) are left out, and
 * counted in @n_hidden. */
static char *
visible_page_text (PopplerPage *page,
                   guint       *n_hidden)
{
  g_autofree char *text = poppler_page_get_text (page);
  g_autofree guint8 *hidden = NULL;
  g_autofree guint32 *colours = NULL;
  PopplerRectangle *rects = NULL;
  guint n_rects = 0;
  double width = 0, height = 0;
  glong n_chars;
  GList *attrs;
  GString *out;

  if (text == NULL)
    return NULL;
  n_chars = g_utf8_strlen (text, -1);
  hidden = g_new0 (guint8, n_chars + 1);
  colours = g_new0 (guint32, n_chars + 1);
  attrs = poppler_page_get_text_attributes (page);
  for (GList *l = attrs; l; l = l->next)
    {
      const PopplerTextAttributes *a = l->data;
      const gboolean white = a->color.red >= 0xf800 && a->color.green >= 0xf800 && a->color.blue >= 0xf800;
      const guint32 rgb = ((guint32) (a->color.red >> 8) << 16) | ((guint32) (a->color.green >> 8) << 8) |
                          (a->color.blue >> 8);

      for (int i = MAX (a->start_index, 0); i <= a->end_index && i < n_chars; i++)
        {
          hidden[i] |= white || (a->font_size > 0 && a->font_size <= 2.0);
          colours[i] = rgb;
        }
    }
  poppler_page_free_text_attributes (attrs);
  poppler_page_get_size (page, &width, &height);
  if (poppler_page_get_text_layout (page, &rects, &n_rects))
    {
      for (guint i = 0; i < n_rects && i < (guint) n_chars; i++)
        if (rects[i].x2 <= 0 || rects[i].y2 <= 0 || rects[i].x1 >= width || rects[i].y1 >= height)
          hidden[i] = 1;
      mark_unseen (page, width, height, text, rects, colours, MIN (n_rects, (guint) n_chars), hidden);
      g_free (rects);
    }

  out = g_string_sized_new (strlen (text));
  {
    glong i = 0;

    for (const char *p = text; *p; p = g_utf8_next_char (p), i++)
      {
        const gunichar c = g_utf8_get_char (p);

        /* Line breaks and spaces are layout, not text to hide. */
        if (hidden[i] && !g_unichar_isspace (c))
          {
            (*n_hidden)++;
            continue;
          }
        g_string_append_unichar (out, c);
      }
  }
  return g_string_free (out, FALSE);
}

char *
sim_pdf_extract_text (const char       *data,
                      gsize             len,
                      const char       *name,
                      gsize            *out_len,
                      SimDocumentNotes *notes,
                      GError          **error)
{
  g_autoptr(GBytes) bytes = g_bytes_new_static (data, len);
  g_autoptr(GError) local_error = NULL;
  PopplerDocument *doc = poppler_document_new_from_bytes (bytes, NULL, &local_error);
  g_autoptr(GPtrArray) pages = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  g_autoptr(GHashTable) counts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint n_hidden = 0;
  gsize n_text = 0;
  GString *s;
  int n_pages;

  if (doc == NULL)
    {
      if (g_error_matches (local_error, POPPLER_ERROR, POPPLER_ERROR_ENCRYPTED))
        g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_TEXT,
                     _("%s is encrypted: save it without a password and try again"), name);
      else
        g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_TEXT, _("%s is a damaged PDF: %s"), name,
                     local_error ? local_error->message : "");
      return NULL;
    }
  n_pages = poppler_document_get_n_pages (doc);
  for (int i = 0; i < n_pages; i++)
    {
      PopplerPage *page = poppler_document_get_page (doc, i);
      g_autofree char *text = page ? visible_page_text (page, &n_hidden) : NULL;
      char **lines = g_strsplit (text ? text : "", "\n", -1);
      const guint n = g_strv_length (lines);
      g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

      for (guint j = 0; j < n; j++)
        if (j < RUNNING_LINES || j + RUNNING_LINES >= n)
          {
            char *key = running_key (lines[j]);

            if (*key && !g_hash_table_contains (seen, key))
              {
                g_hash_table_add (seen, key);
                g_hash_table_insert (counts, g_strdup (key),
                                     GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (counts, key)) + 1));
              }
            else
              g_free (key);
          }
      g_ptr_array_add (pages, lines);
      g_clear_object (&page);
      /* Bounded while reading: a 5,000-page PDF stops at the limit. */
      n_text += text ? strlen (text) : 0;
      if (n_text > SIM_TEXT_MAX_TEXT_BYTES)
        {
          g_object_unref (doc);
          sim_text_set_too_long_error (error, name);
          return NULL;
        }
    }
  g_object_unref (doc);
  if (notes != NULL && n_hidden > 0)
    {
      /* Where: the pages are joined below, running lines dropped, so the
       * span said is the whole text. */
      notes->n_hidden += n_hidden;
      notes->hidden_start = 0;
      notes->hidden_end = G_MAXUINT32;
    }

  s = g_string_new (NULL);
  for (guint i = 0; i < pages->len; i++)
    {
      char **lines = g_ptr_array_index (pages, i);
      const guint n = g_strv_length (lines);

      for (guint j = 0; j < n; j++)
        {
          const char *line = lines[j];
          gsize l;

          /* A line at the top or bottom of most pages (at least three) is a
           * running header or footer, not text. */
          if (j < RUNNING_LINES || j + RUNNING_LINES >= n)
            {
              g_autofree char *key = running_key (line);
              const guint count = GPOINTER_TO_UINT (g_hash_table_lookup (counts, key));

              if (*key && n_pages >= 3 && count >= 3 && 2 * count >= (guint) n_pages)
                continue;
              /* A page number: "7", "- 7 -", "Page 7", "7 / 12", "第 7 页". */
              if (strpbrk (line, "0123456789") != NULL && g_utf8_strlen (key, -1) <= 4)
                continue;
            }
          g_string_append (s, line);
          l = s->len;
          /* "exam-\nple" is "example" again; "well-\nKnown" keeps its hyphen. */
          if (l >= 2 && s->str[l - 1] == '-' && g_unichar_isalpha (g_utf8_get_char (g_utf8_prev_char (s->str + l - 1))) &&
              j + 1 < n && g_unichar_islower (g_utf8_get_char (lines[j + 1])))
            g_string_truncate (s, l - 1);
          else
            g_string_append_c (s, '\n');
        }
    }
  if (!sim_text_has_content (s->str, s->len))
    {
      g_string_free (s, TRUE);
      g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_TEXT, _("%s has no text layer (scanned?)"), name);
      return NULL;
    }
  if (out_len)
    *out_len = s->len;
  return g_string_free (s, FALSE);
}

