/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One character folded (sim-fold-char.h).
 */
#include "config.h"

#include "sim-fold-char.h"

static gboolean
is_spaceless_script (gunichar c)
{
  switch (g_unichar_get_script (c))
    {
    case G_UNICODE_SCRIPT_HAN:
    case G_UNICODE_SCRIPT_HIRAGANA:
    case G_UNICODE_SCRIPT_KATAKANA:
    case G_UNICODE_SCRIPT_BOPOMOFO:
    case G_UNICODE_SCRIPT_THAI:
    case G_UNICODE_SCRIPT_LAO:
    case G_UNICODE_SCRIPT_KHMER:
    case G_UNICODE_SCRIPT_MYANMAR:
      return TRUE;
    default:
      return FALSE;
    }
}

static int
class_of_type (GUnicodeType type)
{
  switch (type)
    {
    case G_UNICODE_CONTROL:
    case G_UNICODE_FORMAT:
    case G_UNICODE_UNASSIGNED:
    case G_UNICODE_PRIVATE_USE:
    case G_UNICODE_SURROGATE:
      return SIM_FOLD_DROP;
    case G_UNICODE_SPACING_MARK:
    case G_UNICODE_ENCLOSING_MARK:
    case G_UNICODE_NON_SPACING_MARK:
      return SIM_FOLD_MARK;
    case G_UNICODE_LINE_SEPARATOR:
    case G_UNICODE_PARAGRAPH_SEPARATOR:
    case G_UNICODE_SPACE_SEPARATOR:
      return SIM_FOLD_SPACE;
    case G_UNICODE_LOWERCASE_LETTER:
    case G_UNICODE_MODIFIER_LETTER:
    case G_UNICODE_OTHER_LETTER:
    case G_UNICODE_TITLECASE_LETTER:
    case G_UNICODE_UPPERCASE_LETTER:
    case G_UNICODE_DECIMAL_NUMBER:
    case G_UNICODE_LETTER_NUMBER:
    case G_UNICODE_OTHER_NUMBER:
      return SIM_FOLD_WORD;
    default:
      return SIM_FOLD_PUNCT;
    }
}

guint
sim_fold_char (gunichar       c,
               const guint32 *t2s,
               guint32       *out)
{
  char buf[8];
  g_autofree char *folded = NULL;
  g_autofree char *decomposed = NULL;
  guint n = 0;
  int cls;

  if (c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')
    return out[0] = SIM_FOLD_ENTRY (SIM_FOLD_SPACE, c), 1;
  cls = class_of_type (g_unichar_type (c));
  if (cls == SIM_FOLD_DROP || cls == SIM_FOLD_MARK || cls == SIM_FOLD_SPACE)
    return out[0] = SIM_FOLD_ENTRY (cls, c), 1;
  if (c >= 0xac00 && c <= 0xd7a3) /* Hangul syllables stay whole */
    return out[0] = SIM_FOLD_ENTRY (SIM_FOLD_WORD, c), 1;

  buf[g_unichar_to_utf8 (c, buf)] = '\0';
  folded = g_utf8_casefold (buf, -1);
  decomposed = g_utf8_normalize (folded, -1, G_NORMALIZE_ALL);
  for (const char *p = decomposed; p && *p && n < SIM_FOLD_MAX_EXPANSION; p = g_utf8_next_char (p))
    {
      gunichar d = g_utf8_get_char (p);
      int dcls = class_of_type (g_unichar_type (d));

      if (dcls == SIM_FOLD_MARK || dcls == SIM_FOLD_DROP)
        continue;
      if (dcls == SIM_FOLD_WORD && is_spaceless_script (d))
        {
          dcls = SIM_FOLD_CJK;
          if (t2s != NULL && d < 0x10000 && t2s[d])
            d = t2s[d];
        }
      out[n++] = SIM_FOLD_ENTRY (dcls, d);
    }
  if (n == 0)
    out[n++] = SIM_FOLD_ENTRY (SIM_FOLD_MARK, c); /* e.g. a lone accent: part of its neighbour */
  return n;
}
