/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sim-words.h"

#define STOP_WORD_MAX 7  /* letters of the longest below */

static const char *const stop_words[] = {
  "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any",
  "are", "as", "at", "be", "because", "been", "before", "being", "below", "between", "both",
  "but", "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few",
  "for", "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers",
  "herself", "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its",
  "itself", "just", "may", "me", "might", "more", "most", "must", "my", "myself", "no", "nor",
  "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "ours", "out", "over",
  "own", "same", "shall", "she", "should", "so", "some", "such", "than", "that", "the",
  "their", "theirs", "them", "then", "there", "these", "they", "this", "those", "through",
  "to", "too", "under", "until", "up", "upon", "us", "very", "was", "we", "were", "what",
  "when", "where", "which", "while", "who", "whom", "why", "will", "with", "would", "you",
  "your", "yours",
};

/* A word of up to STOP_WORD_MAX ASCII letters as a number that sorts as
 * the word does. */
static inline guint64
pack_word (const char *word,
           guint       n)
{
  guint64 v = 0;

  for (guint i = 0; i < STOP_WORD_MAX; i++)
    v = v << 8 | (i < n ? (guint8) word[i] : 0);
  return v;
}

#define STOP_SLOTS 512  /* a table of the packed stop words, at most a quarter full */

static inline guint
stop_slot (guint64 v)
{
  return (guint) ((v * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15)) >> 55);
}

/* One probe or two in a table of the packed stop words (a hash table of
 * strings was a twentieth of a check, a binary search a thirtieth). */
static gboolean
is_stop_word (const char *word,
              guint       n)
{
  static guint64 *table;
  const guint64 v = pack_word (word, n);

  if (g_once_init_enter (&table))
    {
      guint64 *t = g_new0 (guint64, STOP_SLOTS);

      for (guint i = 0; i < G_N_ELEMENTS (stop_words); i++)
        {
          const guint64 w = pack_word (stop_words[i], strlen (stop_words[i]));
          guint j = stop_slot (w);

          while (t[j] != 0)
            j = (j + 1) % STOP_SLOTS;
          t[j] = w;
        }
      g_once_init_leave (&table, t);
    }
  for (guint j = stop_slot (v); table[j] != 0; j = (j + 1) % STOP_SLOTS)
    if (table[j] == v)
      return TRUE;
  return FALSE;
}

static inline guint64
mix (guint64 h)
{
  h ^= h >> 33;
  h *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  h ^= h >> 33;
  return h;
}

/* A word takes a unit at least: room for all is made at once. */
void
sim_words_tokenize (const SimUnits *units,
          guint32         from,
          guint32         to,
          GArray         *out,
          GArray         *out_units)
{
  const guint base = out->len, span_base = out_units ? out_units->len : 0;
  guint64 *tokens;
  guint32 *spans = NULL;
  guint n_tokens = 0;
  guint32 u = from;

  if (to <= from)
    return;
  g_array_set_size (out, base + (to - from));
  tokens = (guint64 *) out->data + base;
  if (out_units)
    {
      g_array_set_size (out_units, span_base + 2 * (to - from));
      spans = (guint32 *) out_units->data + span_base;
    }
  while (u < to)
    {
      if (units->flags[u] & SIM_UNIT_CJK)
        {
          if (u + 1 < to && (units->flags[u + 1] & SIM_UNIT_CJK))
            {
              if (spans)
                {
                  spans[2 * n_tokens] = u;
                  spans[2 * n_tokens + 1] = u + 2;
                }
              tokens[n_tokens++] = SIM_WORDS_CJK_BIT | ((guint64) units->cps[u] << 21) | units->cps[u + 1];
            }
          u++;
          continue;
        }
      {
        guint32 end = u + 1;
        char word[STOP_WORD_MAX];
        guint n = 0;
        gboolean ascii = TRUE;
        guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325);

        while (end < to && !(units->flags[end] & (SIM_UNIT_CJK | SIM_UNIT_WORD_START)))
          end++;
        for (guint32 k = u; k < end; k++)
          {
            const guint32 c = units->cps[k];

            if (k - u < SIM_WORDS_STEM)
              h = (h ^ c) * G_GUINT64_CONSTANT (0x100000001b3);
            if (c >= 0x80)
              ascii = FALSE;
            else if (n < sizeof word)
              word[n++] = (char) c;
          }
        /* No stop word is longer than STOP_WORD_MAX letters. */
        if (!(ascii && end - u <= STOP_WORD_MAX && is_stop_word (word, n)))
          {
            if (spans)
              {
                spans[2 * n_tokens] = u;
                spans[2 * n_tokens + 1] = end;
              }
            tokens[n_tokens++] = mix (h) & ~SIM_WORDS_CJK_BIT;
          }
        u = end;
      }
    }
  g_array_set_size (out, base + n_tokens);
  if (out_units)
    g_array_set_size (out_units, span_base + 2 * n_tokens);
}

/* Characters that make up a fifth of running Chinese text: a bigram of
 * them ("我们", "一个") is in a great many sentences. */
static const char common_cjk[] =
  "的一是不了在人有我他这个们中来上大为和国地到以说时要就出会可也你对生能而子那得于着下自之年过发后作里"
  "用道行所然家种事成方多经么去法学如都同现当没动面起看定天分还进好小部其些主样理心她本前开但因只从想实";

#define COMMON_FIRST 0x4e00  /* they are all in the CJK Unified Ideographs block */
#define COMMON_LAST  0x9fff

static gboolean
is_common_cjk (gunichar c)
{
  static guint8 *bits;

  if (g_once_init_enter (&bits))
    {
      guint8 *b = g_new0 (guint8, (COMMON_LAST - COMMON_FIRST) / 8 + 1);

      for (const char *p = common_cjk; *p; p = g_utf8_next_char (p))
        {
          const gunichar u = g_utf8_get_char (p) - COMMON_FIRST;

          b[u / 8] |= 1 << (u % 8);
        }
      g_once_init_leave (&bits, b);
    }
  return c >= COMMON_FIRST && c <= COMMON_LAST && (bits[(c - COMMON_FIRST) / 8] >> ((c - COMMON_FIRST) % 8) & 1);
}

typedef struct {
  guint64 token;
  guint   rarity;
} Ranked;

/* Rarer first, then by token: the same order for the same words wherever
 * they are. */
static inline gboolean
ranks_before (const Ranked *x,
              const Ranked *y)
{
  return x->rarity != y->rarity ? x->rarity > y->rarity : x->token < y->token;
}

/* An English word by its letters (a longer word is a rarer one), up to 12;
 * a CJK bigram 6, 3 or 0 as it holds no, one or two common characters. */
static guint
rarity (guint64        token,
        const guint32 *span)
{
  if (token & SIM_WORDS_CJK_BIT)
    return 6 - 3 * (is_common_cjk ((token >> 21) & 0x1fffff) + is_common_cjk (token & 0x1fffff));
  return MIN (span[1] - span[0], 12);
}

typedef struct {
  GArray *tokens;  /* guint64 */
  GArray *spans;   /* guint32, two a token */
} Scratch;

/* sim_words_pair_keys() with the caller's scratch space. A sentence of
 * more than @max_words words is not keyed, its words counted before
 * repeats are: the bound spares a store sorting the words of its long
 * sentences. */
static guint
pair_keys (Scratch        *scratch,
           const SimUnits *units,
           guint32         from,
           guint32         to,
           guint           n_rarest,
           guint           max_words,
           GArray         *out)
{
  Ranked ranked[SIM_WORDS_MAX_WORDS];
  guint n = 0, added = 0;

  g_return_val_if_fail (max_words <= SIM_WORDS_MAX_WORDS, 0);
  /* Twice as many words, stop words and all, are never fewer than
   * max_words once those are skipped: not worth reading them. */
  for (guint32 u = from, starts = 0; u < to; u++)
    if ((units->flags[u] & (SIM_UNIT_CJK | SIM_UNIT_WORD_START)) && ++starts > 2 * max_words)
      return 0;
  g_array_set_size (scratch->tokens, 0);
  g_array_set_size (scratch->spans, 0);
  sim_words_tokenize (units, from, to, scratch->tokens, scratch->spans);
  if (scratch->tokens->len < 2 || scratch->tokens->len > max_words)
    return 0;
  /* Insertion: a few words, each kept once. */
  for (guint i = 0; i < scratch->tokens->len; i++)
    {
      const Ranked r = { g_array_index (scratch->tokens, guint64, i),
                         rarity (g_array_index (scratch->tokens, guint64, i), &g_array_index (scratch->spans, guint32, 2 * i)) };
      guint j = n;

      while (j > 0 && ranks_before (&r, &ranked[j - 1]))
        j--;
      if (j > 0 && ranked[j - 1].token == r.token)
        continue;
      memmove (ranked + j + 1, ranked + j, (n - j) * sizeof (Ranked));
      ranked[j] = r;
      n++;
    }
  if (n < 2)
    return 0;
  n = MIN (n, n_rarest);
  for (guint i = 0; i < n; i++)
    for (guint j = i + 1; j < n; j++)
      {
        const guint64 a = ranked[i].token, b = ranked[j].token;
        const guint64 key = mix (mix (MIN (a, b) ^ G_GUINT64_CONSTANT (0x53454e54454e4345)) + MAX (a, b)); /* "SENTENCE" */

        g_array_append_val (out, key);
        added++;
      }
  return added;
}

static void
scratch_init (Scratch *scratch)
{
  scratch->tokens = g_array_new (FALSE, FALSE, sizeof (guint64));
  scratch->spans = g_array_new (FALSE, FALSE, sizeof (guint32));
}

static void
scratch_clear (Scratch *scratch)
{
  g_array_unref (scratch->tokens);
  g_array_unref (scratch->spans);
}

guint
sim_words_pair_keys (const SimUnits *units,
                     guint32         from,
                     guint32         to,
                     guint           n_rarest,
                     guint           max_words,
                     GArray         *out)
{
  Scratch scratch;
  guint n;

  scratch_init (&scratch);
  n = pair_keys (&scratch, units, from, to, n_rarest, max_words, out);
  scratch_clear (&scratch);
  return n;
}

static void
append_keys (Scratch        *scratch,
             const SimUnits *units,
             guint32         from,
             guint32         to,
             GArray         *keys,
             GArray         *out)
{
  g_array_set_size (keys, 0);
  pair_keys (scratch, units, from, to, SIM_WORDS_KEYED_RAREST, SIM_WORDS_KEYED_MAX, keys);
  for (guint k = 0; k < keys->len; k++)
    {
      SimAnchor key = { g_array_index (keys, guint64, k), from, to };

      g_array_append_val (out, key);
    }
}

/* Code points in [@p, @end) of valid UTF-8: its bytes that start one. */
static guint32
count_chars (const char *p,
             const char *end)
{
  guint32 n = 0;

  for (; p < end; p++)
    n += ((guint8) *p & 0xc0) != 0x80;
  return n;
}

/* Whether the character at @p (of @end) ends a sentence or a line for
 * keys: a line break, ! ? ; 。！？； and a full stop before a space or the
 * end ("U.S." and "3.5" go on). */
static gboolean
ends_piece (const char *p,
            const char *end)
{
  switch ((guint8) p[0])
    {
    case '\n': case '!': case '?': case ';':
      return TRUE;
    case '.':
      return p + 1 == end || g_ascii_isspace (p[1]);
    case 0xe3: /* 。 */
      return end - p >= 3 && (guint8) p[1] == 0x80 && (guint8) p[2] == 0x82;
    case 0xef: /* ！？； */
      return end - p >= 3 && (guint8) p[1] == 0xbc &&
             ((guint8) p[2] == 0x81 || (guint8) p[2] == 0x9f || (guint8) p[2] == 0x9b);
    default:
      return FALSE;
    }
}

void
sim_words_text_keys (const char     *text,
                     gsize           len,
                     const SimUnits *units,
                     GArray         *out)
{
  g_autoptr(GArray) keys = g_array_new (FALSE, FALSE, sizeof (guint64));
  const char *end = text + len, *counted = text;
  guint32 cp = 0, from = 0, u = 0;
  Scratch scratch;

  /* The check's segmenter knows more rules (abbreviations, headings,
   * clauses of long sentences); for keys a sentence cut in two is two
   * short sentences, each keyed, and the byte scan costs a store a fifth
   * of what the segmenter did. */
  scratch_init (&scratch);
  for (const char *p = text; p < end; p++)
    {
      /* The bytes a piece's end begins with, found by one load a byte. */
      static const guint8 may_end[256] = {
        ['\n'] = 1, ['!'] = 1, ['?'] = 1, [';'] = 1, ['.'] = 1, [0xe3] = 1, [0xef] = 1,
      };

      while (p < end && !may_end[(guint8) *p])
        p++;
      if (p == end)
        break;
      if (!ends_piece (p, end))
        continue;
      cp += count_chars (counted, p);
      counted = p;
      /* A piece ends before the first unit after the character. */
      while (u < units->n && units->src_start[u] <= cp)
        u++;
      if (u > from)
        {
          append_keys (&scratch, units, from, u, keys, out);
          from = u;
        }
    }
  if (from < units->n)
    append_keys (&scratch, units, from, units->n, keys, out);
  scratch_clear (&scratch);
}
