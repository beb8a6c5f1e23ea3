/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "sim-diff.h"

typedef struct {
  gsize   unit;    /* first unit */
  guint   n;       /* units */
  guint32 start;   /* code points */
  guint32 end;
  guint32 hash;
  gboolean cjk;
} Word;

static GArray *
split_words (const char        *text,
             SimNormalizeFlags  flags,
             SimUnits          *units)
{
  GArray *words = g_array_new (FALSE, FALSE, sizeof (Word));

  sim_text_normalize (text, -1, 0, flags, units);
  for (gsize i = 0; i < units->n; i++)
    {
      const gboolean cjk = (units->flags[i] & SIM_UNIT_CJK) != 0;
      Word *last = words->len ? &g_array_index (words, Word, words->len - 1) : NULL;

      if (last == NULL || cjk || last->cjk || (units->flags[i] & SIM_UNIT_WORD_START) ||
          units->src_start[i] > last->end)
        {
          g_array_append_val (words, ((Word) { i, 0, units->src_start[i], 0, 2166136261u, cjk }));
          last = &g_array_index (words, Word, words->len - 1);
        }
      last->n++;
      last->end = sim_units_get_end (units, i);
      last->hash = (last->hash ^ units->cps[i]) * 16777619u;
    }
  return words;
}

static gboolean
same_word (const Word     *x,
           const SimUnits *ux,
           const Word     *y,
           const SimUnits *uy)
{
  return x->hash == y->hash && x->n == y->n &&
         memcmp (ux->cps + x->unit, uy->cps + y->unit, x->n * sizeof (guint32)) == 0;
}

/* Appends the op for words a[ai, aj) and b[bi, bj) of one kind. */
static void
add_op (GArray     *ops,
        SimDiffKind kind,
        GArray     *a,
        guint       ai,
        guint       aj,
        GArray     *b,
        guint       bi,
        guint       bj,
        guint32     a_at,
        guint32     b_at)
{
  SimDiffOp op = { kind, a_at, a_at, b_at, b_at };

  if (aj > ai)
    {
      op.a_start = g_array_index (a, Word, ai).start;
      op.a_end = g_array_index (a, Word, aj - 1).end;
    }
  if (bj > bi)
    {
      op.b_start = g_array_index (b, Word, bi).start;
      op.b_end = g_array_index (b, Word, bj - 1).end;
    }
  if (ops->len > 0 && kind == SIM_DIFF_SAME && g_array_index (ops, SimDiffOp, ops->len - 1).kind == SIM_DIFF_SAME)
    {
      SimDiffOp *last = &g_array_index (ops, SimDiffOp, ops->len - 1);

      last->a_end = op.a_end;
      last->b_end = op.b_end;
      return;
    }
  g_array_append_val (ops, op);
}

/* The gap a[ai, aj) against b[bi, bj): a change, an addition or a leaving out. */
static void
add_gap (GArray       *ops,
         SimDiffStats *stats,
         GArray       *a,
         guint         ai,
         guint         aj,
         GArray       *b,
         guint         bi,
         guint         bj)
{
  const guint32 a_at = ai > 0 ? g_array_index (a, Word, ai - 1).end : 0;
  const guint32 b_at = bi > 0 ? g_array_index (b, Word, bi - 1).end : 0;
  const guint na = aj - ai, nb = bj - bi;

  if (na > 0 && nb > 0)
    {
      add_op (ops, SIM_DIFF_CHANGED, a, ai, aj, b, bi, bj, a_at, b_at);
      stats->changed += MIN (na, nb);
      stats->added += na - MIN (na, nb);
      stats->left_out += nb - MIN (na, nb);
    }
  else if (na > 0)
    {
      add_op (ops, SIM_DIFF_ADDED, a, ai, aj, b, bi, bj, a_at, b_at);
      stats->added += na;
    }
  else if (nb > 0)
    {
      add_op (ops, SIM_DIFF_LEFT_OUT, a, ai, aj, b, bi, bj, a_at, b_at);
      stats->left_out += nb;
    }
}

GArray *
sim_diff_texts (const char        *a_text,
                const char        *b_text,
                SimNormalizeFlags  flags,
                SimDiffStats      *out_stats)
{
  GArray *ops = g_array_new (FALSE, FALSE, sizeof (SimDiffOp));
  SimDiffStats stats = { 0 };
  SimUnits ua, ub;
  GArray *a, *b;
  guint pre = 0, suf = 0, n, m, n_cjk = 0;

  sim_units_init (&ua);
  sim_units_init (&ub);
  a = split_words (a_text, flags, &ua);
  b = split_words (b_text, flags, &ub);
  stats.n_a = a->len;
  stats.n_b = b->len;
  for (guint i = 0; i < a->len; i++)
    n_cjk += g_array_index (a, Word, i).cjk;
  stats.cjk = a->len > 0 && n_cjk * 2 > a->len;

  /* The common start and end need no table. */
  while (pre < a->len && pre < b->len &&
         same_word (&g_array_index (a, Word, pre), &ua, &g_array_index (b, Word, pre), &ub))
    pre++;
  while (suf < a->len - pre && suf < b->len - pre &&
         same_word (&g_array_index (a, Word, a->len - 1 - suf), &ua, &g_array_index (b, Word, b->len - 1 - suf), &ub))
    suf++;
  if (pre > 0)
    add_op (ops, SIM_DIFF_SAME, a, 0, pre, b, 0, pre, 0, 0);
  stats.same += pre + suf;
  n = a->len - pre - suf;
  m = b->len - pre - suf;
  if (n > 0 && m > 0 && n <= SIM_DIFF_MAX_WORDS && m <= SIM_DIFF_MAX_WORDS)
    {
      /* lcs[i][j]: common words of a[pre+i..] and b[pre+j..]. */
      guint16 *lcs = g_new0 (guint16, (gsize) (n + 1) * (m + 1));
      guint i = 0, j = 0, gap_i = 0, gap_j = 0;

#define LCS(i, j) lcs[(gsize) (i) * (m + 1) + (j)]
      for (guint x = n; x-- > 0;)
        for (guint y = m; y-- > 0;)
          LCS (x, y) = same_word (&g_array_index (a, Word, pre + x), &ua, &g_array_index (b, Word, pre + y), &ub)
                         ? LCS (x + 1, y + 1) + 1 : MAX (LCS (x + 1, y), LCS (x, y + 1));
      while (i < n && j < m)
        {
          if (same_word (&g_array_index (a, Word, pre + i), &ua, &g_array_index (b, Word, pre + j), &ub) &&
              LCS (i, j) == LCS (i + 1, j + 1) + 1)
            {
              add_gap (ops, &stats, a, pre + gap_i, pre + i, b, pre + gap_j, pre + j);
              add_op (ops, SIM_DIFF_SAME, a, pre + i, pre + i + 1, b, pre + j, pre + j + 1, 0, 0);
              stats.same++;
              gap_i = ++i;
              gap_j = ++j;
            }
          else if (LCS (i + 1, j) >= LCS (i, j + 1))
            i++;
          else
            j++;
        }
#undef LCS
      add_gap (ops, &stats, a, pre + gap_i, pre + n, b, pre + gap_j, pre + m);
      g_free (lcs);
    }
  else
    add_gap (ops, &stats, a, pre, pre + n, b, pre, pre + m);
  if (suf > 0)
    add_op (ops, SIM_DIFF_SAME, a, a->len - suf, a->len, b, b->len - suf, b->len, 0, 0);

  g_array_unref (a);
  g_array_unref (b);
  sim_units_clear (&ua);
  sim_units_clear (&ub);
  if (out_stats)
    *out_stats = stats;
  return ops;
}

char *
sim_diff_describe (const SimDiffStats *stats,
                   float               similarity)
{
  GString *out = g_string_new (NULL);
  g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func (g_free);

  g_string_printf (out, _("%.0f%% similar to the source"), 100 * similarity);
  if (stats->changed)
    g_ptr_array_add (parts, g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u changed", "%u changed", stats->changed),
                                             stats->changed));
  if (stats->added)
    g_ptr_array_add (parts, g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u added", "%u added", stats->added),
                                             stats->added));
  if (stats->left_out)
    g_ptr_array_add (parts, g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u left out", "%u left out",
                                                          stats->left_out), stats->left_out));
  if (parts->len == 0)
    g_string_append (out, _("; nothing changed"));
  for (guint i = 0; i < parts->len; i++)
    {
      g_string_append (out, i == 0 ? _("; ") : _(", "));
      g_string_append (out, g_ptr_array_index (parts, i));
    }
  return g_string_free (out, FALSE);
}

static gboolean
ends_sentence (gunichar c)
{
  return c == '\n' || c == '.' || c == '!' || c == '?' || c == 0x3002 || c == 0xFF01 || c == 0xFF1F || c == 0xFF1B;
}

void
sim_diff_context (const char *text,
                  guint32     n_chars,
                  guint32     start,
                  guint32     end,
                  guint       around,
                  guint32    *out_start,
                  guint32    *out_end)
{
  const guint32 lo = start > around ? start - around : 0;
  const guint32 hi = MIN ((guint64) end + around, n_chars);
  const char *p;
  guint32 cut;

  end = MIN (end, n_chars);
  start = MIN (start, end);
  /* Back: the first sentence start after @lo, if one comes before @start. */
  *out_start = lo;
  if (lo > 0)
    {
      p = g_utf8_offset_to_pointer (text, lo);
      for (cut = lo; cut < start; cut++, p = g_utf8_next_char (p))
        if (ends_sentence (g_utf8_get_char (p)))
          {
            *out_start = cut + 1;
            break;
          }
    }
  /* On: the last sentence end before @hi, if one comes after @end. */
  *out_end = hi;
  if (hi < n_chars)
    {
      p = g_utf8_offset_to_pointer (text, end);
      for (cut = end; cut < hi; cut++, p = g_utf8_next_char (p))
        if (ends_sentence (g_utf8_get_char (p)))
          *out_end = cut + 1;
    }
  /* No space or line end at the edges. */
  p = g_utf8_offset_to_pointer (text, *out_start);
  while (*out_start < start && g_unichar_isspace (g_utf8_get_char (p)))
    {
      (*out_start)++;
      p = g_utf8_next_char (p);
    }
}
