/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Normalisation works through a lazily built table: for each 256-code-point
 * page of the BMP, the class and folded form of every character is computed
 * once with GLib's Unicode functions (case fold, NFKD, marks dropped) and,
 * when asked, OpenCC's traditional-to-simplified character map. The hot loop
 * is then a UTF-8 decode and one table load per character.
 */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <opencc/opencc.h>

#include "sim-error.h"
#include "sim-text.h"

enum {
  CLASS_DROP,  /* invisible or control: ignored */
  CLASS_MARK,  /* combining mark: ignored, but belongs to the previous unit's span */
  CLASS_SPACE,
  CLASS_PUNCT, /* punctuation and symbols: ignored, but end a word */
  CLASS_WORD,  /* letters and digits of space-separated scripts */
  CLASS_CJK,   /* letters of scripts written without spaces */
};

#define ENTRY_CP_MASK   0x1fffffu
#define ENTRY_CLASS(e)  (((e) >> 24) & 0x7u)
#define ENTRY_EXPAND    0x80000000u
#define MAKE_ENTRY(cls, cp) (((guint32) (cls) << 24) | ((cp) & ENTRY_CP_MASK))
#define MAX_EXPANSION   18

typedef struct {
  guint32  entry[256];
  guint32 *expansions; /* for ENTRY_EXPAND entries: [n, item...] runs */
} Page;

/* ASCII: the folded letter or digit (0 for others), and invisible controls. */
static const guint8 ascii_folded[128] = {
  ['0'] = '0', ['1'] = '1', ['2'] = '2', ['3'] = '3', ['4'] = '4',
  ['5'] = '5', ['6'] = '6', ['7'] = '7', ['8'] = '8', ['9'] = '9',
  ['a'] = 'a', ['b'] = 'b', ['c'] = 'c', ['d'] = 'd', ['e'] = 'e', ['f'] = 'f', ['g'] = 'g',
  ['h'] = 'h', ['i'] = 'i', ['j'] = 'j', ['k'] = 'k', ['l'] = 'l', ['m'] = 'm', ['n'] = 'n',
  ['o'] = 'o', ['p'] = 'p', ['q'] = 'q', ['r'] = 'r', ['s'] = 's', ['t'] = 't', ['u'] = 'u',
  ['v'] = 'v', ['w'] = 'w', ['x'] = 'x', ['y'] = 'y', ['z'] = 'z',
  ['A'] = 'a', ['B'] = 'b', ['C'] = 'c', ['D'] = 'd', ['E'] = 'e', ['F'] = 'f', ['G'] = 'g',
  ['H'] = 'h', ['I'] = 'i', ['J'] = 'j', ['K'] = 'k', ['L'] = 'l', ['M'] = 'm', ['N'] = 'n',
  ['O'] = 'o', ['P'] = 'p', ['Q'] = 'q', ['R'] = 'r', ['S'] = 's', ['T'] = 't', ['U'] = 'u',
  ['V'] = 'v', ['W'] = 'w', ['X'] = 'x', ['Y'] = 'y', ['Z'] = 'z',
};
static const guint8 ascii_invisible[128] = {
  [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1, [0x07] = 1,
  [0x08] = 1, [0x0e] = 1, [0x0f] = 1, [0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1,
  [0x15] = 1, [0x16] = 1, [0x17] = 1, [0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1, [0x1c] = 1,
  [0x1d] = 1, [0x1e] = 1, [0x1f] = 1, [0x7f] = 1,
};

static Page  *pages[2][0x100]; /* [fold_t2s][cp >> 8], built on first use */
static GMutex pages_lock;
static guint32 *t2s_map;       /* 0x10000 entries, 0 where unchanged */

static void
build_t2s_map (void)
{
  static const gunichar ranges[][2] = { { 0x3400, 0x4dbf }, { 0x4e00, 0x9fff }, { 0xf900, 0xfaff } };
  g_autoptr(GString) input = g_string_new (NULL);
  opencc_t cc;
  char *output;
  const char *p;
  guint32 *map = g_new0 (guint32, 0x10000);

  cc = opencc_open ("t2s.json");
  if (cc == (opencc_t) -1)
    {
      g_warning ("OpenCC t2s data not found: traditional Chinese will not be folded");
      t2s_map = map;
      return;
    }
  for (guint r = 0; r < G_N_ELEMENTS (ranges); r++)
    for (gunichar c = ranges[r][0]; c <= ranges[r][1]; c++)
      {
        g_string_append_unichar (input, c);
        g_string_append_c (input, '\n');
      }
  output = opencc_convert_utf8 (cc, input->str, input->len);
  p = output;
  /* One character per line in, one line per character out: a line that does
   * not come back as exactly one character is left unmapped. */
  for (guint r = 0; r < G_N_ELEMENTS (ranges) && p != NULL; r++)
    for (gunichar c = ranges[r][0]; c <= ranges[r][1] && *p; c++)
      {
        const char *nl = strchr (p, '\n');
        gunichar to;

        if (nl == NULL)
          break;
        to = g_utf8_get_char_validated (p, nl - p);
        if (g_utf8_next_char (p) == nl && to != c && to < 0x10000 && to != (gunichar) -1)
          map[c] = to;
        p = nl + 1;
      }
  opencc_convert_utf8_free (output);
  opencc_close (cc);
  t2s_map = map;
}

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
      return CLASS_DROP;
    case G_UNICODE_SPACING_MARK:
    case G_UNICODE_ENCLOSING_MARK:
    case G_UNICODE_NON_SPACING_MARK:
      return CLASS_MARK;
    case G_UNICODE_LINE_SEPARATOR:
    case G_UNICODE_PARAGRAPH_SEPARATOR:
    case G_UNICODE_SPACE_SEPARATOR:
      return CLASS_SPACE;
    case G_UNICODE_LOWERCASE_LETTER:
    case G_UNICODE_MODIFIER_LETTER:
    case G_UNICODE_OTHER_LETTER:
    case G_UNICODE_TITLECASE_LETTER:
    case G_UNICODE_UPPERCASE_LETTER:
    case G_UNICODE_DECIMAL_NUMBER:
    case G_UNICODE_LETTER_NUMBER:
    case G_UNICODE_OTHER_NUMBER:
      return CLASS_WORD;
    default:
      return CLASS_PUNCT;
    }
}

/* The folded form of one character: up to MAX_EXPANSION entries. */
static guint
compute_folding (gunichar  c,
                 gboolean  fold_t2s,
                 guint32  *out)
{
  char buf[8];
  g_autofree char *folded = NULL;
  g_autofree char *decomposed = NULL;
  guint n = 0;
  int cls;

  if (c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')
    return out[0] = MAKE_ENTRY (CLASS_SPACE, c), 1;
  cls = class_of_type (g_unichar_type (c));
  if (cls == CLASS_DROP || cls == CLASS_MARK || cls == CLASS_SPACE)
    return out[0] = MAKE_ENTRY (cls, c), 1;
  if (c >= 0xac00 && c <= 0xd7a3) /* Hangul syllables stay whole */
    return out[0] = MAKE_ENTRY (CLASS_WORD, c), 1;

  buf[g_unichar_to_utf8 (c, buf)] = '\0';
  folded = g_utf8_casefold (buf, -1);
  decomposed = g_utf8_normalize (folded, -1, G_NORMALIZE_ALL);
  for (const char *p = decomposed; p && *p && n < MAX_EXPANSION; p = g_utf8_next_char (p))
    {
      gunichar d = g_utf8_get_char (p);
      int dcls = class_of_type (g_unichar_type (d));

      if (dcls == CLASS_MARK || dcls == CLASS_DROP)
        continue;
      if (dcls == CLASS_WORD && is_spaceless_script (d))
        {
          dcls = CLASS_CJK;
          if (fold_t2s && d < 0x10000 && t2s_map[d])
            d = t2s_map[d];
        }
      out[n++] = MAKE_ENTRY (dcls, d);
    }
  if (n == 0)
    out[n++] = MAKE_ENTRY (CLASS_MARK, c); /* e.g. a lone accent: part of its neighbour */
  return n;
}

static Page *
build_page (guint index,
            gboolean fold_t2s)
{
  Page *page = g_new0 (Page, 1);
  g_autoptr(GArray) exp = g_array_new (FALSE, FALSE, sizeof (guint32));

  for (guint i = 0; i < 256; i++)
    {
      gunichar c = (index << 8) | i;
      guint32 items[MAX_EXPANSION];
      guint n = compute_folding (c, fold_t2s, items);

      if (n == 1)
        page->entry[i] = items[0];
      else
        {
          guint32 len = n;

          page->entry[i] = ENTRY_EXPAND | exp->len;
          g_array_append_val (exp, len);
          g_array_append_vals (exp, items, n);
        }
    }
  page->expansions = (guint32 *) g_array_free (g_steal_pointer (&exp), FALSE);
  return page;
}

static inline const Page *
get_page (guint    index,
          gboolean fold_t2s)
{
  Page *page = g_atomic_pointer_get (&pages[fold_t2s][index]);

  if (G_LIKELY (page != NULL))
    return page;

  g_mutex_lock (&pages_lock);
  if (fold_t2s && t2s_map == NULL)
    build_t2s_map ();
  page = pages[fold_t2s][index];
  if (page == NULL)
    {
      page = build_page (index, fold_t2s);
      g_atomic_pointer_set (&pages[fold_t2s][index], page);
    }
  g_mutex_unlock (&pages_lock);
  return page;
}

void
sim_units_init (SimUnits *units)
{
  memset (units, 0, sizeof *units);
}

void
sim_units_reset (SimUnits *units)
{
  units->n = 0;
}

void
sim_units_clear (SimUnits *units)
{
  g_clear_pointer (&units->cps, g_free);
  g_clear_pointer (&units->src_start, g_free);
  g_clear_pointer (&units->flags, g_free);
  units->n = units->alloc = 0;
}

static void
units_grow (SimUnits *units,
            gsize     need)
{
  gsize alloc = MAX (units->alloc * 2, MAX (need, 256));

  units->cps = g_renew (guint32, units->cps, alloc);
  units->src_start = g_renew (guint32, units->src_start, alloc);
  units->flags = g_renew (guint8, units->flags, alloc);
  units->alloc = alloc;
}

gsize
sim_units_find (const SimUnits *units,
                guint32         offset)
{
  gsize lo = 0, hi = units->n;

  while (lo < hi)
    {
      gsize mid = lo + (hi - lo) / 2;

      if (units->src_start[mid] < offset)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static inline gunichar
decode_utf8 (const guchar **pp)
{
  const guchar *p = *pp;
  gunichar c = p[0];

  if (c < 0x80)
    {
      *pp = p + 1;
      return c;
    }
  if (c < 0xe0)
    {
      *pp = p + 2;
      return ((c & 0x1f) << 6) | (p[1] & 0x3f);
    }
  if (c < 0xf0)
    {
      *pp = p + 3;
      return ((c & 0x0f) << 12) | ((p[1] & 0x3f) << 6) | (p[2] & 0x3f);
    }
  *pp = p + 4;
  return ((c & 0x07) << 18) | ((p[1] & 0x3f) << 12) | ((p[2] & 0x3f) << 6) | (p[3] & 0x3f);
}

guint32
sim_text_normalize (const char        *text,
                    gssize             len,
                    guint32            first_offset,
                    SimNormalizeFlags  flags,
                    SimUnits          *units)
{
  const guchar *p = (const guchar *) text;
  const guchar *end;
  const gboolean fold_t2s = (flags & SIM_NORMALIZE_FOLD_T2S) != 0;
  guint32 offset = first_offset;
  gboolean in_word = FALSE;

  g_return_val_if_fail (text != NULL || len == 0, 0);

  if (len < 0)
    len = strlen (text);
  end = p + len;
  if (units->alloc - units->n < (gsize) len + 1)
    units_grow (units, units->n + len + 1);

  while (p < end)
    {
      gunichar c;
      guint32 items_buf[MAX_EXPANSION];
      const guint32 *items;
      guint32 n_items;
      guint32 entry;

      /* ASCII, most of English text: no decoding, no branch on the character
       * class (letters and spaces alternate unpredictably), and the arrays
       * in locals so that no store goes through the struct. */
      if (*p < 0x80)
        {
          guint32 *const cps = units->cps;
          guint32 *const starts = units->src_start;
          guint8 *const fl = units->flags;
          const gsize cap = units->alloc;
          gsize u = units->n;

          while (p < end && *p < 0x80 && u < cap)
            {
              const guchar b = *p++;
              const guint8 folded = ascii_folded[b];
              const gboolean is_unit = folded != 0;

              cps[u] = folded;
              starts[u] = offset;
              /* A unit that folds to another letter is a capital. */
              fl[u] = in_word ? 0 : SIM_UNIT_WORD_START | ((folded != b) * SIM_UNIT_CAPITAL);
              u += is_unit;
              /* Control characters are invisible: they keep the word going. */
              in_word = is_unit | (in_word & ascii_invisible[b]);
              offset++;
            }
          units->n = u;
          if (u >= cap)
            units_grow (units, u + 1);
          continue;
        }

      c = decode_utf8 (&p);
      if (G_LIKELY (c < 0x10000))
        {
          const Page *page = get_page (c >> 8, fold_t2s);

          entry = page->entry[c & 0xff];
          if (entry & ENTRY_EXPAND)
            {
              items = page->expansions + (entry & ENTRY_CP_MASK) + 1;
              n_items = items[-1];
            }
          else
            {
              items = &page->entry[c & 0xff];
              n_items = 1;
            }
        }
      else
        {
          if (fold_t2s)
            get_page (0, TRUE); /* makes sure the t2s map exists */
          n_items = compute_folding (c, fold_t2s, items_buf);
          items = items_buf;
        }

      if (units->alloc - units->n < n_items)
        units_grow (units, units->n + n_items);

      for (guint32 i = 0; i < n_items; i++)
        {
          const guint32 item = items[i];
          const gsize u = units->n;

          switch (ENTRY_CLASS (item))
            {
            case CLASS_MARK:
              if (u > 0 && sim_units_get_end (units, u - 1) == offset &&
                  (units->flags[u - 1] >> SIM_UNIT_EXTRA_SHIFT) < SIM_UNIT_EXTRA_MAX)
                units->flags[u - 1] += 1 << SIM_UNIT_EXTRA_SHIFT;
              break;
            case CLASS_DROP:
              break;
            case CLASS_SPACE:
            case CLASS_PUNCT:
              in_word = FALSE;
              break;
            case CLASS_WORD:
              units->cps[u] = item & ENTRY_CP_MASK;
              units->src_start[u] = offset;
              units->flags[u] = in_word ? 0 : SIM_UNIT_WORD_START | (g_unichar_isupper (c) ? SIM_UNIT_CAPITAL : 0);
              units->n++;
              in_word = TRUE;
              break;
            case CLASS_CJK:
            default:
              units->cps[u] = item & ENTRY_CP_MASK;
              units->src_start[u] = offset;
              units->flags[u] = SIM_UNIT_CJK;
              units->n++;
              in_word = FALSE;
              break;
            }
        }
      offset++;
    }
  return offset - first_offset;
}

#define NAME_MAX_WORDS 10

gboolean
sim_units_is_name (const SimUnits *units,
                   gsize           from,
                   gsize           to)
{
  guint n_words = 0, n_letters = 0, n_plain = 0;

  /* Start at the first whole word. */
  while (from < to && !(units->flags[from] & (SIM_UNIT_WORD_START | SIM_UNIT_CJK)))
    from++;
  for (gsize u = from; u < to;)
    {
      gsize end = u + 1;

      if (units->flags[u] & SIM_UNIT_CJK)
        return FALSE;
      while (end < units->n && !(units->flags[end] & (SIM_UNIT_WORD_START | SIM_UNIT_CJK)))
        end++;
      n_letters += end - u;
      /* Lower-case words of more than three letters are the name's context
       * ("said", "told"): a few are allowed. */
      if (end - u > 3 && !(units->flags[u] & SIM_UNIT_CAPITAL) && !g_unichar_isdigit (units->cps[u]))
        n_plain += end - u;
      if (++n_words > NAME_MAX_WORDS)
        return FALSE;
      u = end;
    }
  return n_words > 0 && n_plain * 5 <= n_letters;
}

gboolean
sim_text_has_content (const char *text,
                      gssize      len)
{
  SimUnits units;
  gboolean has;

  sim_units_init (&units);
  sim_text_normalize (text, len, 0, SIM_NORMALIZE_DEFAULT, &units);
  has = units.n > 0;
  sim_units_clear (&units);
  return has;
}

gsize
sim_text_byte_offset (const char *text,
                      gsize       len,
                      gsize       offset)
{
  const char *p = text, *end = text + len;

  while (offset > 0 && p < end)
    {
      p = g_utf8_next_char (p);
      offset--;
    }
  return MIN (p, end) - text;
}

static guint
count_invalid_bytes (const char *data,
                     gsize       len)
{
  const char *p = data, *end = data + len;
  guint n = 0;

  while (p < end)
    {
      const char *bad;

      if (g_utf8_validate_len (p, end - p, &bad))
        break;
      /* g_utf8_make_valid() also replaces embedded NULs' neighbours byte by byte. */
      n++;
      p = bad + 1;
    }
  return n;
}

char *
sim_text_decode (const char  *data,
                 gsize        len,
                 const char  *name,
                 gsize       *out_len,
                 guint       *out_n_repaired,
                 GError     **error)
{
  gsize sample = MIN (len, 65536);
  gsize n_controls = 0, zeros[2] = { 0, 0 };
  guint n_invalid, n_nuls = 0;
  const char *from = NULL;
  gsize skip = 0;
  g_autofree char *repaired = NULL;
  char *text;

  if (out_n_repaired)
    *out_n_repaired = 0;

  if (len >= 2 && (((guchar) data[0] == 0xff && (guchar) data[1] == 0xfe) ||
                   ((guchar) data[0] == 0xfe && (guchar) data[1] == 0xff)))
    {
      from = (guchar) data[0] == 0xff ? "UTF-16LE" : "UTF-16BE";
      skip = 2;
    }
  else
    {
      /* UTF-16 without a byte-order mark: text in the Latin range has a NUL
       * in every other byte, on one side. */
      for (gsize i = 0; i < sample; i++)
        zeros[i & 1] += data[i] == 0;
      if (sample >= 16 && sample % 2 == 0 && zeros[1] * 10 >= sample / 2 * 8 && zeros[0] * 10 <= sample / 2)
        from = "UTF-16LE";
      else if (sample >= 16 && sample % 2 == 0 && zeros[0] * 10 >= sample / 2 * 8 && zeros[1] * 10 <= sample / 2)
        from = "UTF-16BE";
    }
  if (from != NULL)
    {
      g_autoptr(GError) local_error = NULL;
      gsize written = 0;

      text = g_convert (data + skip, len - skip, "UTF-8", from, NULL, &written, &local_error);
      if (text == NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_BAD_ENCODING,
                       _("%s: cannot decode this UTF-16 text: %s"), name, local_error->message);
          return NULL;
        }
      /* A U+0000 in it is a stray NUL like any other. */
      repaired = g_steal_pointer (&text);
      data = repaired;
      len = written;
      sample = MIN (len, 65536);
    }

  for (gsize i = 0; i < sample; i++)
    {
      const guchar b = data[i];

      if (b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f' && b != '\v' && b != 0x1b)
        n_controls++;
    }
  if (n_controls * 20 > sample)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_TEXT,
                   _("%s is not a text file (it contains binary data)"), name);
      return NULL;
    }

  /* A stray NUL is replaced like an invalid byte, and counted. */
  if (memchr (data, 0, len) != NULL)
    {
      GString *out = g_string_sized_new (len + 16);

      for (gsize i = 0; i < len; i++)
        {
          if (data[i] == 0)
            {
              g_string_append (out, "\xef\xbf\xbd");
              n_nuls++;
            }
          else
            g_string_append_c (out, data[i]);
        }
      g_free (repaired);
      len = out->len;
      repaired = g_string_free (out, FALSE);
      data = repaired;
    }
  if (out_n_repaired)
    *out_n_repaired = n_nuls;

  n_invalid = count_invalid_bytes (data, len);
  if (n_invalid == 0)
    {
      if (out_len)
        *out_len = len;
      return repaired != NULL ? g_steal_pointer (&repaired) : g_strndup (data, len);
    }

  /* Mostly invalid UTF-8: most likely a legacy Chinese encoding. */
  if ((gsize) n_invalid * 10 > len)
    {
      gsize written = 0;

      text = g_convert (data, len, "UTF-8", "GB18030", NULL, &written, NULL);
      if (text != NULL)
        {
          if (out_len)
            *out_len = written;
          return text;
        }
      if (len >= 64 && (gsize) n_invalid * 4 > len)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_TEXT,
                       _("%s is not a text file (it is not valid UTF-8, UTF-16 or GB18030)"),
                       name);
          return NULL;
        }
    }

  text = g_utf8_make_valid (data, len);
  if (out_n_repaired)
    *out_n_repaired = n_invalid + n_nuls;
  if (out_len)
    *out_len = strlen (text);
  return text;
}

char *
sim_text_read_file (const char  *path,
                    gsize       *out_len,
                    GError     **error)
{
  GStatBuf st;
  char *data = NULL;

  if (g_stat (path, &st) == 0 && S_ISREG (st.st_mode) && st.st_size > SIM_TEXT_MAX_FILE_BYTES)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                   _("%s is too large (%.0f MB; the limit for one document is %d MB)"), path,
                   st.st_size / 1048576.0, SIM_TEXT_MAX_FILE_BYTES >> 20);
      return NULL;
    }
  if (!g_file_get_contents (path, &data, out_len, error))
    return NULL;
  return data;
}

char *
sim_text_load_file (const char  *path,
                    gsize       *out_len,
                    guint       *out_n_repaired,
                    GError     **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;

  if ((data = sim_text_read_file (path, &len, error)) == NULL)
    return NULL;
  return sim_text_decode (data, len, path, out_len, out_n_repaired, error);
}

#define INDEX_STEP 64

void
sim_text_index_init (SimTextIndex *index,
                     const char   *text,
                     gsize         len)
{
  guint32 *samples = g_new (guint32, len / INDEX_STEP + 1);
  const char *p = text, *end = text + len;
  gsize n = 0, n_samples = 0;

  g_assert (len <= G_MAXUINT32);
  while (p < end)
    {
      guint64 high = 0;

      samples[n_samples++] = p - text;
      /* The next INDEX_STEP code points: as many bytes when they are ASCII
       * (most of an English text: a check indexes every candidate source). */
      if (end - p >= INDEX_STEP)
        for (guint i = 0; i < INDEX_STEP; i += 8)
          {
            guint64 word;

            memcpy (&word, p + i, 8);
            high |= word;
          }
      if (end - p >= INDEX_STEP && (high & G_GUINT64_CONSTANT (0x8080808080808080)) == 0)
        {
          p += INDEX_STEP;
          n += INDEX_STEP;
          continue;
        }
      for (guint i = 0; i < INDEX_STEP && p < end; i++, n++)
        p = g_utf8_next_char (p);
    }
  index->text = text;
  index->len = len;
  index->n_chars = n;
  index->samples = samples;
}

void
sim_text_index_clear (SimTextIndex *index)
{
  g_clear_pointer (&index->samples, g_free);
}

const char *
sim_text_index_pointer (const SimTextIndex *index,
                        gsize               offset)
{
  const char *p;

  if (offset >= index->n_chars)
    return index->text + index->len;
  p = index->text + index->samples[offset / INDEX_STEP];
  for (gsize i = offset % INDEX_STEP; i > 0; i--)
    p = g_utf8_next_char (p);
  return p;
}
