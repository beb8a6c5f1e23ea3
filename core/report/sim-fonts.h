/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The fonts every view names, for the PDF module and the app (it needs
 * Pango, which core itself does not link): the face a font stands for in
 * Latin text, then the CJK family of the user's language
 * (sim_export_cjk_family()). Left to fontconfig's fallback, Han text in an
 * English desktop, and a Chinese comma after a Latin word anywhere, were
 * set in the Japanese variant; named before the Latin face, the CJK family
 * took the Latin text too.
 */
#pragma once

#include <pango/pango.h>

#include "sim-export.h"

G_BEGIN_DECLS

/* The family @font ("Sans 10") stands for in English text on @map, or
 * NULL when it loads nothing. (transfer full) */
static inline char *
sim_fonts_latin_family (PangoFontMap *map,
                        const char   *font)
{
  PangoContext *latin = pango_font_map_create_context (map);
  PangoFontDescription *desc = pango_font_description_from_string (font);
  PangoFont *loaded;
  char *family = NULL;

  pango_context_set_language (latin, pango_language_from_string ("en"));
  loaded = pango_context_load_font (latin, desc);
  if (loaded != NULL)
    {
      PangoFontDescription *face = pango_font_describe (loaded);

      family = g_strdup (pango_font_description_get_family (face));
      pango_font_description_free (face);
      g_object_unref (loaded);
    }
  pango_font_description_free (desc);
  g_object_unref (latin);
  return family;
}

G_END_DECLS
