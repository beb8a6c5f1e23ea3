/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Finding one's way in valid UTF-8: validating it (SSSE3 where there is
 * some), counting code points, a code point's byte offset (SimTextIndex),
 * and where a word starts or ends.
 */
#include "config.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__)
#include <tmmintrin.h>
#define HAVE_VALIDATE_SSSE3 1
#endif
#include <glib.h>

#include "sim-text.h"

#define INDEX_STEP 64

/* Bit i set when byte i of the 64 at @p starts a code point (does not
 * continue one). */
static inline guint64
lead_mask (const char *p)
{
#ifdef __SSE2__
  const __m128i above = _mm_set1_epi8 ((char) 0xbf);  /* continuation bytes are 0x80-0xbf: -128..-65 */
  guint64 mask = 0;

  for (guint i = 0; i < 4; i++)
    {
      const __m128i v = _mm_loadu_si128 ((const __m128i *) (p + 16 * i));

      mask |= (guint64) (guint16) _mm_movemask_epi8 (_mm_cmpgt_epi8 (v, above)) << (16 * i);
    }
  return mask;
#else
  guint64 mask = 0;

  for (guint i = 0; i < 64; i++)
    mask |= (guint64) (((guint8) p[i] & 0xc0) != 0x80) << i;
  return mask;
#endif
}

/* 64 bytes at a time, their lead bytes counted: a check's regions of a
 * source were found by g_utf8_offset_to_pointer(), a character at a time,
 * half as long as normalising them took. */
gsize
sim_text_byte_offset (const char *text,
                      gsize       len,
                      gsize       offset)
{
  gsize at = 0;

  for (; at + 64 <= len; at += 64)
    {
      guint64 mask = lead_mask (text + at);
      const guint count = __builtin_popcountll (mask);

      if (offset < count)
        {
          for (; offset > 0; offset--)
            mask &= mask - 1;
          return at + __builtin_ctzll (mask);
        }
      offset -= count;
    }
  for (; at < len; at++)
    if (((guint8) text[at] & 0xc0) != 0x80 && offset-- == 0)
      return at;
  return len;
}

/* Blocks of 64 bytes: the code points each starts are its lead bytes, and
 * a sample falls in a block when they pass the next multiple of
 * INDEX_STEP; it is found among the block's lead bits. A Chinese text is
 * counted as fast as an English one. */
gsize
sim_text_count_chars (const char *text,
                      gsize       len)
{
  gsize n = 0;

  for (gsize i = 0; i < len; i++)
    n += ((guint8) text[i] & 0xc0) != 0x80;
  return n;
}

void
sim_text_index_init (SimTextIndex *index,
                     const char   *text,
                     gsize         len)
{
  guint32 *samples = g_new (guint32, len / INDEX_STEP + 2);
  gsize at = 0, n = 0, n_samples = 0;

  g_assert (len <= G_MAXUINT32);
  for (; at + 64 <= len; at += 64)
    {
      guint64 mask = lead_mask (text + at);
      const guint count = __builtin_popcountll (mask);

      /* At most one sample a block: it has at most 64 lead bytes. */
      if (n + count > n_samples * INDEX_STEP)
        {
          for (gsize k = n_samples * INDEX_STEP - n; k > 0; k--)
            mask &= mask - 1;
          samples[n_samples++] = at + __builtin_ctzll (mask);
        }
      n += count;
    }
  for (; at < len; at++)
    if (((guint8) text[at] & 0xc0) != 0x80)
      {
        if (n == n_samples * INDEX_STEP)
          samples[n_samples++] = at;
        n++;
      }
  index->text = text;
  index->len = len;
  index->n_chars = n;
  index->samples = samples;
}

#ifdef HAVE_VALIDATE_SSSE3
/* Keiser and Lemire's check ("Validating UTF-8 in less than one
 * instruction per byte", 2021), 16 bytes at a time: three table lookups
 * by the high and low nibble of each byte and of the byte before it name
 * the errors each pair could be; what all three agree on is one, but for
 * continuations that a lead two or three bytes back asks for. NUL bytes
 * are errors too. Returns how many bytes are checked: all but a sequence
 * left open at the end of the last block, which the caller checks. */
__attribute__ ((target ("ssse3"))) static gsize
validate_blocks (const guint8 *p,
                 gsize         len,
                 gboolean     *ok)
{
  enum {
    TOO_SHORT = 1 << 0, TOO_LONG = 1 << 1, OVERLONG_3 = 1 << 2, TOO_LARGE = 1 << 3,
    SURROGATE = 1 << 4, OVERLONG_2 = 1 << 5, TOO_LARGE_1000 = 1 << 6, OVERLONG_4 = 1 << 6,
    TWO_CONTS = 1 << 7, CARRY = TOO_SHORT | TOO_LONG | TWO_CONTS,
  };
  const __m128i byte_1_high = _mm_setr_epi8 (
    TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG, TOO_LONG,
    TWO_CONTS, TWO_CONTS, TWO_CONTS, TWO_CONTS,
    TOO_SHORT | OVERLONG_2, TOO_SHORT, TOO_SHORT | OVERLONG_3 | SURROGATE,
    TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4);
  const __m128i byte_1_low = _mm_setr_epi8 (
    CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4, CARRY | OVERLONG_2, CARRY, CARRY,
    CARRY | TOO_LARGE, CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE, CARRY | TOO_LARGE | TOO_LARGE_1000,
    CARRY | TOO_LARGE | TOO_LARGE_1000);
  const __m128i byte_2_high = _mm_setr_epi8 (
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
    TOO_SHORT, TOO_SHORT, TOO_SHORT, TOO_SHORT);
  const __m128i nibble = _mm_set1_epi8 (0x0f);
  __m128i prev = _mm_setzero_si128 (), error = _mm_setzero_si128 ();
  gsize done = 0, back = 0;

  for (; done + 16 <= len; done += 16)
    {
      const __m128i input = _mm_loadu_si128 ((const __m128i *) (p + done));
      const __m128i prev1 = _mm_alignr_epi8 (input, prev, 15);
      const __m128i prev2 = _mm_alignr_epi8 (input, prev, 14);
      const __m128i prev3 = _mm_alignr_epi8 (input, prev, 13);
      const __m128i special =
        _mm_and_si128 (_mm_and_si128 (_mm_shuffle_epi8 (byte_1_high, _mm_and_si128 (_mm_srli_epi16 (prev1, 4), nibble)),
                                      _mm_shuffle_epi8 (byte_1_low, _mm_and_si128 (prev1, nibble))),
                       _mm_shuffle_epi8 (byte_2_high, _mm_and_si128 (_mm_srli_epi16 (input, 4), nibble)));
      /* A third byte after a lead of 3 or 4, a fourth after a lead of 4:
       * 0x80 set where one is due. */
      const __m128i must23 = _mm_or_si128 (_mm_subs_epu8 (prev2, _mm_set1_epi8 ((char) (0xe0 - 0x80))),
                                           _mm_subs_epu8 (prev3, _mm_set1_epi8 ((char) (0xf0 - 0x80))));
      const __m128i must23_80 = _mm_and_si128 (must23, _mm_set1_epi8 ((char) 0x80));

      error = _mm_or_si128 (error, _mm_xor_si128 (must23_80, special));
      error = _mm_or_si128 (error, _mm_cmpeq_epi8 (input, _mm_setzero_si128 ()));
      prev = input;
    }
  *ok = _mm_movemask_epi8 (_mm_cmpeq_epi8 (error, _mm_setzero_si128 ())) == 0xffff;
  /* A sequence the last block leaves open is checked whole by the caller. */
  for (gsize i = 1; i <= 3 && i <= done; i++)
    {
      const guint8 c = p[done - i];

      if (c < 0x80)
        break;
      if (c >= 0xc0)
        {
          if (i < (c >= 0xf0 ? 4u : c >= 0xe0 ? 3u : 2u))
            back = i;
          break;
        }
    }
  return done - back;
}
#endif

gboolean
sim_text_validate (const char *text,
                   gsize       len)
{
  const guint8 *p = (const guint8 *) text, *end = p + len;

#ifdef HAVE_VALIDATE_SSSE3
  static gint has_ssse3 = -1;

  if (G_UNLIKELY (has_ssse3 < 0))
    g_atomic_int_set (&has_ssse3, __builtin_cpu_supports ("ssse3") && g_getenv ("SIMHOUND_NO_SSSE3") == NULL);
  if (len >= 64 && g_atomic_int_get (&has_ssse3) > 0)
    {
      gboolean ok;

      p += validate_blocks (p, len, &ok);
      if (!ok)
        return FALSE;
    }
#endif

  while (p < end)
    {
      guint c = *p;

      /* Eight ASCII bytes at a time, none of them 0. */
      if (end - p >= 8)
        {
          guint64 w;

          memcpy (&w, p, 8);
          if ((w & G_GUINT64_CONSTANT (0x8080808080808080)) == 0 &&
              ((w - G_GUINT64_CONSTANT (0x0101010101010101)) & ~w & G_GUINT64_CONSTANT (0x8080808080808080)) == 0)
            {
              p += 8;
              continue;
            }
        }
      if (c < 0x80)
        {
          if (c == 0)
            return FALSE;
          p++;
        }
      else if (c < 0xc2)
        return FALSE;
      else if (c < 0xe0)
        {
          if (end - p < 2 || (p[1] & 0xc0) != 0x80)
            return FALSE;
          p += 2;
        }
      else if (c < 0xf0)
        {
          if (end - p < 3 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 ||
              (c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0))
            return FALSE;
          p += 3;
        }
      else if (c < 0xf5)
        {
          if (end - p < 4 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 || (p[3] & 0xc0) != 0x80 ||
              (c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90))
            return FALSE;
          p += 4;
        }
      else
        return FALSE;
    }
  return TRUE;
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

/* A letter or digit of a word that spaces delimit (not a CJK character). */
static gboolean
in_spaced_word (gunichar c)
{
  const GUnicodeScript script = g_unichar_get_script (c);

  return g_unichar_isalnum (c) && script != G_UNICODE_SCRIPT_HAN && script != G_UNICODE_SCRIPT_HIRAGANA &&
         script != G_UNICODE_SCRIPT_KATAKANA && script != G_UNICODE_SCRIPT_HANGUL;
}

const char *
sim_text_word_start (const char *begin,
                     const char *p)
{
  const char *q = p;

  if (p <= begin || !in_spaced_word (g_utf8_get_char (p)))
    return p;
  for (guint n = 0; q > begin && n < SIM_TEXT_WORD_REACH; n++)
    {
      const char *prev = g_utf8_find_prev_char (begin, q);

      if (prev == NULL || !in_spaced_word (g_utf8_get_char (prev)))
        return q;
      q = prev;
    }
  return q > begin ? p : q;  /* no start in reach: as it was */
}

const char *
sim_text_word_end (const char *begin,
                   const char *p,
                   const char *end)
{
  const char *q = p;
  const char *prev = p > begin ? g_utf8_find_prev_char (begin, p) : NULL;

  if (p >= end || prev == NULL || !in_spaced_word (g_utf8_get_char (prev)))
    return p;
  for (guint n = 0; q < end && n < SIM_TEXT_WORD_REACH; n++)
    {
      if (!in_spaced_word (g_utf8_get_char (q)))
        return q;
      q = g_utf8_next_char (q);
    }
  return q < end ? p : q;  /* no end in reach: as it was */
}
