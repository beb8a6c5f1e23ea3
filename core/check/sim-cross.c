/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <glib/gi18n-lib.h>

#include "sim-cross.h"
#include "sim-file-walk.h"
#include "sim-document.h"
#include "sim-fingerprint.h"
#include "sim-parallel.h"

typedef struct {
  guint64 hash;
  guint32 start;  /* code points */
  guint32 end;
} Window;

typedef struct {
  const char *const     *texts;
  const gsize           *lens;
  const char *const     *names;
  guint                  n;
  const SimCheckOptions *options;
  SimNormalizeFlags      flags;
  GCancellable          *cancellable;
  guint64                doc_mask; /* a window's key: its hash's high bits, the document in these */
  GArray               **spans;    /* per document: Window (its key as hash), in text order */
  GArray               **common;   /* per document: guint64 start << 32 | end of commonplace windows */
  SimCompareText        *template; /* the assignment's text, or NULL */
  GArray               **template_spans; /* per document: guint64 spans repeating the template */
  SimCompareText       **prepared; /* per document, NULL if it has no content */
  gint                   next;     /* work counter */
  GArray                *pairs;    /* SimCrossPair candidates, filled in by the aligners */
} Cross;

static int
compare_u64 (const void *a,
             const void *b)
{
  const guint64 x = *(const guint64 *) a, y = *(const guint64 *) b;

  return x < y ? -1 : x > y;
}

/* Sorts @n keys in place: least significant 16 bits first, four stable
 * counting passes between @keys and @tmp (room for @n). */
static void
sort_keys (guint64 *keys,
           guint64 *tmp,
           gsize    n)
{
  g_autofree guint32 *count = NULL;
  guint64 *from = keys, *to = tmp;

  if (n < 2)
    return;
  g_assert (n < G_MAXUINT32);
  count = g_new (guint32, 1 << 16);
  for (guint shift = 0; shift < 64; shift += 16)
    {
      guint32 at = 0;

      memset (count, 0, sizeof (guint32) << 16);
      for (gsize i = 0; i < n; i++)
        count[(from[i] >> shift) & 0xffff]++;
      for (guint d = 0; d < 1 << 16; d++)
        {
          const guint32 c = count[d];

          count[d] = at;
          at += c;
        }
      for (gsize i = 0; i < n; i++)
        to[count[(from[i] >> shift) & 0xffff]++] = from[i];
      /* An even number of passes: the last lands in @keys. */
      from = to;
      to = from == keys ? tmp : keys;
    }
}

/* Each document prepared for comparison, and its windows' keys from the
 * same units. */
static void
document_worker (gpointer data)
{
  Cross *cross = data;
  g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (cross->flags);
  g_autoptr(GArray) anchors = g_array_new (FALSE, FALSE, sizeof (SimAnchor));
  gint i;

  while ((i = g_atomic_int_add (&cross->next, 1)) < (gint) cross->n)
    {
      const SimUnits *units;
      Window *spans;

      if (g_cancellable_is_cancelled (cross->cancellable))
        break;
      cross->prepared[i] = sim_compare_text_new (cross->texts[i], cross->lens[i], cross->names[i], cross->flags, NULL);
      if (cross->prepared[i] == NULL)
        continue;
      /* What the document repeats of the assignment: never a match. */
      if (cross->template != NULL)
        {
          g_autoptr(SimReport) with_template = sim_compare_shared (cross->prepared[i], cross->template,
                                                                   cross->options);

          cross->template_spans[i] = g_array_new (FALSE, FALSE, sizeof (guint64));
          for (guint p = 0; with_template && p < sim_report_get_n_passages (with_template); p++)
            {
              const SimPassage *passage = sim_report_get_passage (with_template, p);
              const guint64 span = (guint64) passage->start << 32 | passage->end;

              g_array_append_val (cross->template_spans[i], span);
            }
        }
      units = sim_compare_text_get_units (cross->prepared[i]);
      g_array_set_size (anchors, 0);
      sim_fingerprinter_load_units (fp, units);
      sim_fingerprinter_windows (fp, SIM_WINNOW_WEIGHT, anchors);
      cross->spans[i] = g_array_sized_new (FALSE, FALSE, sizeof (Window), anchors->len);
      g_array_set_size (cross->spans[i], anchors->len);
      spans = (Window *) cross->spans[i]->data;
      for (guint k = 0; k < anchors->len; k++)
        {
          const SimAnchor *an = &g_array_index (anchors, SimAnchor, k);

          spans[k] = (Window) { (sim_mix64 (an->simhash) & ~cross->doc_mask) | i,
                                units->src_start[an->unit_start], sim_units_get_end (units, an->unit_end - 1) };
        }
    }
}

/* Characters of [start, end) inside the intervals of @common (sorted). */
static guint32
covered (GArray  *common,
         guint32  start,
         guint32  end)
{
  g_autoptr(GArray) parts = g_array_new (FALSE, FALSE, sizeof (guint64));

  for (guint i = 0; common && i < common->len; i++)
    {
      const guint64 w = g_array_index (common, guint64, i);
      const guint32 lo = MAX (w >> 32, start), hi = MIN (w & 0xffffffffu, end);

      if ((w >> 32) >= end)
        break;
      if (hi > lo)
        {
          const guint64 part = (guint64) lo << 32 | hi;

          g_array_append_val (parts, part);
        }
    }
  return sim_spans_cover ((guint64 *) parts->data, parts->len);
}

static void
align_worker (gpointer data)
{
  Cross *cross = data;
  gint i;

  while ((i = g_atomic_int_add (&cross->next, 1)) < (gint) cross->pairs->len)
    {
      SimCrossPair *pair = &g_array_index (cross->pairs, SimCrossPair, i);
      SimReport *report;

      if (g_cancellable_is_cancelled (cross->cancellable))
        break;
      if (cross->prepared[pair->a] == NULL || cross->prepared[pair->b] == NULL)
        continue;
      report = sim_compare_shared (cross->prepared[pair->a], cross->prepared[pair->b], cross->options);
      if (report == NULL)
        continue;
      pair->passages = g_array_new (FALSE, FALSE, sizeof (SimPassage));
      for (guint p = 0; p < sim_report_get_n_passages (report); p++)
        {
          const SimPassage *passage = sim_report_get_passage (report, p);

          if (passage->level == SIM_LEVEL_LOW ||
              2 * covered (cross->common[pair->a], passage->start, passage->end) >= passage->end - passage->start)
            continue;
          g_array_append_val (pair->passages, *passage);
        }
      pair->report = report;
      /* One rule for the figure, which the pair's comparison shows too. */
      pair->shared_a = sim_passages_cover ((const SimPassage *) pair->passages->data, pair->passages->len, FALSE);
      pair->shared_b = sim_passages_cover ((const SimPassage *) pair->passages->data, pair->passages->len, TRUE);
    }
}

static int
compare_pairs (const void *a,
               const void *b)
{
  const SimCrossPair *x = a, *y = b;
  const guint64 sx = (guint64) x->shared_a + x->shared_b, sy = (guint64) y->shared_a + y->shared_b;

  if (sx != sy)
    return sx > sy ? -1 : 1;
  return x->a != y->a ? (x->a < y->a ? -1 : 1) : (x->b < y->b ? -1 : x->b > y->b);
}

static void
clear_pair (gpointer data)
{
  g_clear_pointer (&((SimCrossPair *) data)->report, sim_report_unref);
  g_clear_pointer (&((SimCrossPair *) data)->passages, g_array_unref);
}

/* Keys sorted in parts, one part of the documents per worker. */
typedef struct {
  Cross    *cross;
  guint     n_parts;
  guint64 **keys;    /* per part, sorted */
  gsize    *n_keys;
  gint      next;
} Parts;

static void
sort_worker (gpointer data)
{
  Parts *parts = data;
  gint p;

  while ((p = g_atomic_int_add (&parts->next, 1)) < (gint) parts->n_parts)
    {
      const guint from = (guint64) parts->cross->n * p / parts->n_parts;
      const guint to = (guint64) parts->cross->n * (p + 1) / parts->n_parts;
      GArray **spans = parts->cross->spans;
      g_autofree guint64 *tmp = NULL;
      guint64 *keys;
      gsize n = 0;

      for (guint i = from; i < to; i++)
        n += spans[i] ? spans[i]->len : 0;
      keys = parts->keys[p] = g_new (guint64, MAX (n, 1));
      parts->n_keys[p] = n;
      n = 0;
      for (guint i = from; i < to; i++)
        for (guint k = 0; spans[i] && k < spans[i]->len; k++)
          keys[n++] = g_array_index (spans[i], Window, k).hash;
      tmp = g_new (guint64, MAX (n, 1));
      sort_keys (keys, tmp, n);
    }
}

/* Every window's key, sorted (a window's holders are then a run of keys),
 * in @n_threads parts merged. Returns the keys; their number in @out_n. */
static guint64 *
sorted_keys (Cross *cross,
             guint  n_threads,
             gsize *out_n)
{
  Parts parts = { cross, MAX (1, MIN (n_threads, cross->n)) };
  guint64 *keys;
  gsize n;

  parts.keys = g_new0 (guint64 *, parts.n_parts);
  parts.n_keys = g_new0 (gsize, parts.n_parts);
  sim_parallel_run (parts.n_parts, sort_worker, &parts);
  keys = parts.keys[0];
  n = parts.n_keys[0];
  for (guint p = 1; p < parts.n_parts; p++)
    {
      const guint64 *b = parts.keys[p];
      const gsize nb = parts.n_keys[p];
      guint64 *merged = g_new (guint64, MAX (n + nb, 1));
      gsize i = 0, j = 0, k = 0;

      while (i < n && j < nb)
        merged[k++] = keys[i] <= b[j] ? keys[i++] : b[j++];
      while (i < n)
        merged[k++] = keys[i++];
      while (j < nb)
        merged[k++] = b[j++];
      g_free (keys);
      g_free (parts.keys[p]);
      keys = merged;
      n += nb;
    }
  g_free (parts.keys);
  g_free (parts.n_keys);
  *out_n = n;
  return keys;
}

/* A set of a few window hashes (their document bits clear), open
 * addressing on their high bits; a slot holds hash | 1, 0 when empty. */
typedef struct {
  guint64 *slots;
  guint64  mask;
} HashSet;

static void
hash_set_init (HashSet      *set,
               const GArray *hashes)
{
  const gsize size = (gsize) 1 << g_bit_storage (MAX (hashes->len, 8) * 2);

  set->slots = g_new0 (guint64, size);
  set->mask = size - 1;
  for (guint i = 0; i < hashes->len; i++)
    {
      const guint64 h = g_array_index (hashes, guint64, i);
      guint64 at = h >> 40;

      while (set->slots[at & set->mask] != 0)
        at++;
      set->slots[at & set->mask] = h | 1;
    }
}

static inline gboolean
hash_set_contains (const HashSet *set,
                   guint64        h)
{
  for (guint64 at = h >> 40;; at++)
    {
      const guint64 slot = set->slots[at & set->mask];

      if (slot == 0)
        return FALSE;
      if (slot == (h | 1))
        return TRUE;
    }
}

/* The windows held by two to @max_holders documents make candidate pairs
 * (those sharing SIM_CROSS_MIN_SHARED of them, as SimCrossPair in
 * @pairs); those held by more are commonplaces, kept as spans of each
 * document's text in cross->common. Frees the spans. */
static void
find_candidates (Cross  *cross,
                 guint   max_holders,
                 guint   n_threads,
                 GArray *pairs)
{
  const guint n = cross->n;
  const guint64 doc_mask = cross->doc_mask;
  g_autoptr(GArray) shared = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) commonplaces = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autofree guint64 *keys = NULL;
  g_autofree guint64 *tmp = NULL;
  HashSet common_set;
  gsize n_keys = 0, w = 0;

  keys = sorted_keys (cross, n_threads, &n_keys);
  /* Each window counts once per document. */
  for (gsize i = 0; i < n_keys; i++)
    if (w == 0 || keys[i] != keys[w - 1])
      keys[w++] = keys[i];
  n_keys = w;
  for (gsize i = 0; i < n_keys;)
    {
      const guint64 hash = keys[i] & ~doc_mask;
      gsize j = i;

      while (j < n_keys && (keys[j] & ~doc_mask) == hash)
        j++;
      if (j - i > max_holders)
        g_array_append_val (commonplaces, hash);
      else if (j - i >= 2)
        for (gsize x = i; x < j; x++)
          for (gsize y = x + 1; y < j; y++)
            {
              const guint64 k = (keys[x] & doc_mask) << 32 | (keys[y] & doc_mask);

              g_array_append_val (shared, k);
            }
      i = j;
    }
  g_clear_pointer (&keys, g_free);

  /* Each document's commonplace windows, as spans of its text. */
  hash_set_init (&common_set, commonplaces);
  for (guint i = 0; i < n; i++)
    {
      GArray *spans = cross->spans[i];

      for (guint k = 0; spans && commonplaces->len > 0 && k < spans->len; k++)
        {
          const Window *win = &g_array_index (spans, Window, k);
          const guint64 hash = win->hash & ~doc_mask;

          if (hash_set_contains (&common_set, hash))
            {
              const guint64 span = (guint64) win->start << 32 | win->end;

              if (cross->common[i] == NULL)
                cross->common[i] = g_array_new (FALSE, FALSE, sizeof (guint64));
              g_array_append_val (cross->common[i], span);
            }
        }
      if (cross->common[i] != NULL)
        g_array_sort (cross->common[i], compare_u64);
      g_clear_pointer (&cross->spans[i], g_array_unref);
    }
  g_free (common_set.slots);

  /* The pairs, each as often as the windows it shares. */
  tmp = g_new (guint64, MAX (shared->len, 1));
  sort_keys ((guint64 *) shared->data, tmp, shared->len);
  for (guint i = 0; i < shared->len;)
    {
      guint j = i;

      while (j < shared->len && g_array_index (shared, guint64, j) == g_array_index (shared, guint64, i))
        j++;
      if (j - i >= SIM_CROSS_MIN_SHARED)
        {
          SimCrossPair pair = { 0 };

          pair.a = g_array_index (shared, guint64, i) >> 32;
          pair.b = g_array_index (shared, guint64, i) & 0xffffffffu;
          g_array_append_val (pairs, pair);
        }
      i = j;
    }
}

static void
cross_clear (Cross *cross)
{
  for (guint i = 0; i < cross->n; i++)
    {
      g_clear_pointer (&cross->spans[i], g_array_unref);
      g_clear_pointer (&cross->common[i], g_array_unref);
      g_clear_pointer (&cross->prepared[i], sim_compare_text_free);
      if (cross->template_spans != NULL)
        g_clear_pointer (&cross->template_spans[i], g_array_unref);
    }
  g_clear_pointer (&cross->template, sim_compare_text_free);
  g_free (cross->template_spans);
  g_free (cross->spans);
  g_free (cross->common);
  g_free (cross->prepared);
}

GArray *
sim_cross_run (const char *const     *texts,
               const gsize           *lens,
               const char *const     *names,
               guint                  n,
               const char            *template_text,
               const SimCheckOptions *options,
               SimNormalizeFlags      flags,
               GCancellable          *cancellable,
               GError               **error)
{
  Cross cross = { .texts = texts, .lens = lens, .names = names, .n = n, .options = options,
                  .flags = flags, .cancellable = cancellable };
  const guint max_holders = sim_cross_max_holders (n);
  const guint n_threads = options->n_threads ? options->n_threads : sim_parallel_default_threads ();
  GArray *pairs;

  if (!sim_check_options_validate (options, error))
    return NULL;
  pairs = g_array_new (FALSE, TRUE, sizeof (SimCrossPair));
  g_array_set_clear_func (pairs, clear_pair);

  /* 1. Each document prepared for alignment, and its windows as keys: the
   * window's hash with bits spread and its low bits replaced by the
   * document (two windows whose spread hashes differ only there, one in
   * 2^40 or more, are taken for one: at worst a pair more to align). */
  cross.doc_mask = ((guint64) 1 << g_bit_storage (MAX (n, 1))) - 1;
  cross.spans = g_new0 (GArray *, MAX (n, 1));
  cross.common = g_new0 (GArray *, MAX (n, 1));
  cross.prepared = g_new0 (SimCompareText *, MAX (n, 1));
  if (template_text != NULL)
    {
      cross.template = sim_compare_text_new (template_text, -1, "template", flags, NULL);
      cross.template_spans = g_new0 (GArray *, MAX (n, 1));
    }
  sim_parallel_run (n_threads, document_worker, &cross);

  /* 2. Documents holding the same windows: the candidate pairs. */
  if (!g_cancellable_is_cancelled (cancellable))
    find_candidates (&cross, max_holders, n_threads, pairs);

  /* The assignment's text counts as a commonplace of every document. */
  for (guint i = 0; cross.template_spans && i < n; i++)
    if (cross.template_spans[i] != NULL && cross.template_spans[i]->len > 0)
      {
        if (cross.common[i] == NULL)
          cross.common[i] = g_array_new (FALSE, FALSE, sizeof (guint64));
        g_array_append_vals (cross.common[i], cross.template_spans[i]->data, cross.template_spans[i]->len);
        g_array_sort (cross.common[i], compare_u64);
      }

  /* 3. The candidates aligned, in parallel. */
  cross.pairs = pairs;
  cross.next = 0;
  if (!g_cancellable_is_cancelled (cancellable))
    sim_parallel_run (n_threads, align_worker, &cross);
  cross_clear (&cross);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    {
      g_array_unref (pairs);
      return NULL;
    }
  for (guint i = 0; i < pairs->len;)
    {
      SimCrossPair *pair = &g_array_index (pairs, SimCrossPair, i);

      if (pair->shared_a == 0)
        {
          g_array_remove_index_fast (pairs, i);
          continue;
        }
      pair->share_a = (float) pair->shared_a / MAX (sim_report_get_n_chars (pair->report), 1);
      pair->share_b = (float) pair->shared_b / MAX (sim_text_count_chars (texts[pair->b], lens[pair->b]), 1);
      i++;
    }
  g_array_sort (pairs, compare_pairs);
  return pairs;
}

/* ------------------------------------------------------------------- CSV */

static void
append_csv_field (GString    *out,
                  const char *field)
{
  g_string_append_c (out, '"');
  for (const char *p = field; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

char *
sim_cross_to_csv (GArray            *pairs,
                  const char *const *paths)
{
  GString *out = g_string_new ("a,b,share_a,share_b,shared_characters_a,shared_characters_b,passages\r\n");

  for (guint i = 0; i < pairs->len; i++)
    {
      const SimCrossPair *pair = &g_array_index (pairs, SimCrossPair, i);
      g_autofree char *a = g_filename_display_name (paths[pair->a]);
      g_autofree char *b = g_filename_display_name (paths[pair->b]);

      append_csv_field (out, a);
      g_string_append_c (out, ',');
      append_csv_field (out, b);
      g_string_append_printf (out, ",%.3f,%.3f,%u,%u,%u\r\n", pair->share_a, pair->share_b, pair->shared_a,
                              pair->shared_b, pair->passages->len);
    }
  return g_string_free (out, FALSE);
}

/* ------------------------------------------------------------------ HTML */

#define SIM_CROSS_HTML_MATRIX_MAX 60

static void
append_text (GString    *out,
             const char *text)
{
  g_autofree char *escaped = g_markup_escape_text (text, -1);

  g_string_append (out, escaped);
}

/* @text's code points [@start, @end), escaped. */
static void
append_span (GString    *out,
             const char *text,
             guint32     start,
             guint32     end)
{
  const char *from = g_utf8_offset_to_pointer (text, start);
  g_autofree char *span = g_strndup (from, g_utf8_offset_to_pointer (from, end - start) - from);

  append_text (out, span);
}

char *
sim_cross_to_html (GArray            *pairs,
                   const char *const *paths,
                   const char *const *texts,
                   const guint32     *n_chars,
                   SimReport *const  *corpus,
                   guint              n)
{
  GString *out = g_string_new (NULL);
  g_autoptr(GArray) involved = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree gint *column = g_new (gint, MAX (n, 1));
  g_autofree gint *pair_at = NULL;
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *date = g_date_time_format (now, "%Y-%m-%d %H:%M");
  g_autofree char *title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u pair of %u documents shares passages",
                                                         "%u pairs of %u documents share passages", pairs->len),
                                            pairs->len, n);
  guint m;

  /* The matrix has a row and a column for each document in some pair. */
  for (guint i = 0; i < n; i++)
    column[i] = -1;
  for (guint i = 0; i < pairs->len; i++)
    {
      const SimCrossPair *pair = &g_array_index (pairs, SimCrossPair, i);

      column[pair->a] = column[pair->b] = 0;
    }
  for (guint i = 0; i < n; i++)
    if (column[i] == 0)
      {
        column[i] = involved->len;
        g_array_append_val (involved, i);
      }
  m = involved->len;
  pair_at = g_new (gint, MAX (m * m, 1));
  for (guint i = 0; i < m * m; i++)
    pair_at[i] = -1;
  for (guint i = 0; i < pairs->len; i++)
    {
      const SimCrossPair *pair = &g_array_index (pairs, SimCrossPair, i);

      pair_at[column[pair->a] * m + column[pair->b]] = i;
      pair_at[column[pair->b] * m + column[pair->a]] = i;
    }

  g_string_append (out, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>");
  append_text (out, _("Simhound: a class checked against itself"));
  g_string_append (out, "</title><style>"
                        "body{font-family:sans-serif;max-width:70em;margin:2em auto;padding:0 1em;line-height:1.45}"
                        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25em .4em;text-align:right}"
                        "th{font-weight:normal;text-align:left}td a{color:inherit;text-decoration:none;display:block}"
                        ".pair{display:grid;grid-template-columns:1fr 1fr;gap:1em;margin:.5em 0 1.5em}"
                        ".pair div{background:#f6f5f4;padding:.5em;white-space:pre-wrap}"
                        "mark{background:#f6d32d80}"
                        "</style></head><body>\n<h1>");
  append_text (out, title);
  g_string_append (out, "</h1>\n<p>");
  append_text (out, date);
  g_string_append (out, "</p>\n");

  if (m > 0 && m <= SIM_CROSS_HTML_MATRIX_MAX)
    {
      g_string_append (out, "<h2>");
      append_text (out, _("Who shares with whom"));
      g_string_append (out, "</h2>\n<p>");
      append_text (out, _("Each cell is the share of the row's document found in the column's; it links to the passages."));
      g_string_append (out, "</p>\n<table class=\"matrix\"><tr><th></th>");
      for (guint c = 0; c < m; c++)
        g_string_append_printf (out, "<th title=\"%u\">%u</th>", c + 1, c + 1);
      g_string_append (out, "</tr>\n");
      for (guint r = 0; r < m; r++)
        {
          const guint doc = g_array_index (involved, guint, r);
          g_autofree char *name = g_filename_display_basename (paths[doc]);

          g_string_append_printf (out, "<tr><th>%u. ", r + 1);
          append_text (out, name);
          g_string_append (out, "</th>");
          for (guint c = 0; c < m; c++)
            {
              const gint p = pair_at[r * m + c];

              if (p < 0)
                {
                  g_string_append (out, "<td></td>");
                  continue;
                }
              {
                const SimCrossPair *pair = &g_array_index (pairs, SimCrossPair, p);
                const float share = pair->a == doc ? pair->share_a : pair->share_b;

                /* Deeper the more of it is shared. */
                g_string_append_printf (out, "<td style=\"background:rgba(224,27,36,%.2f)\"><a href=\"#pair-%d\">%.0f%%</a></td>",
                                        0.1 + 0.6 * share, p + 1, 100 * share);
              }
            }
          g_string_append (out, "</tr>\n");
        }
      g_string_append (out, "</table>\n");
    }
  else if (m > SIM_CROSS_HTML_MATRIX_MAX)
    {
      g_autofree char *said = g_strdup_printf (_("%u documents share passages: too many for a matrix; the pairs follow."), m);

      g_string_append (out, "<p>");
      append_text (out, said);
      g_string_append (out, "</p>\n");
    }

  /* Each document against the reference corpus, when it was asked for. */
  if (corpus != NULL)
    {
      g_string_append (out, "<h2>");
      append_text (out, _("Against the reference corpus"));
      g_string_append (out, "</h2>\n<table><tr><th>");
      append_text (out, _("Document"));
      g_string_append (out, "</th><th>");
      append_text (out, _("Similarity"));
      g_string_append (out, "</th><th>");
      append_text (out, _("Largest sources"));
      g_string_append (out, "</th></tr>\n");
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *name = g_filename_display_name (paths[i]);

          if (corpus[i] == NULL)
            continue;
          g_string_append (out, "<tr><th>");
          append_text (out, name);
          g_string_append_printf (out, "</th><td>%.1f%%</td><th>", 100 * sim_report_get_similarity (corpus[i]));
          for (guint s = 0; s < MIN (sim_report_get_n_sources (corpus[i]), SIM_CROSS_CORPUS_SOURCES); s++)
            {
              const SimReportSource *src = sim_report_get_source (corpus[i], s);
              g_autofree char *said = g_strdup_printf ("%s%s (%.1f%%)", s ? "; " : "", src->title, 100 * src->share);

              append_text (out, said);
            }
          g_string_append (out, "</th></tr>\n");
        }
      g_string_append (out, "</table>\n");
    }

  for (guint i = 0; i < pairs->len; i++)
    {
      const SimCrossPair *pair = &g_array_index (pairs, SimCrossPair, i);
      g_autofree char *a = g_filename_display_name (paths[pair->a]);
      g_autofree char *b = g_filename_display_name (paths[pair->b]);
      g_autofree char *head = g_strdup_printf (_("%.1f%% of %s and %.1f%% of %s (%u characters)"),
                                               100 * pair->share_a, a, 100 * pair->share_b, b, pair->shared_a);

      g_string_append_printf (out, "<h2 id=\"pair-%u\">%u. ", i + 1, i + 1);
      append_text (out, head);
      g_string_append (out, "</h2>\n");
      for (guint p = 0; p < pair->passages->len; p++)
        {
          const SimPassage *passage = &g_array_index (pair->passages, SimPassage, p);

          if (passage->end > n_chars[pair->a] || passage->source_end > n_chars[pair->b])
            continue;
          g_string_append (out, "<div class=\"pair\"><div><mark>");
          append_span (out, texts[pair->a], passage->start, passage->end);
          g_string_append (out, "</mark></div><div><mark>");
          append_span (out, texts[pair->b], passage->source_start, passage->source_end);
          g_string_append (out, "</mark></div></div>\n");
        }
    }
  g_string_append (out, "</body></html>\n");
  return g_string_free (out, FALSE);
}

/* ------------------------------------------------------------ documents */

void
sim_cross_documents_free (SimCrossDocuments *docs)
{
  if (docs == NULL)
    return;
  g_ptr_array_unref (docs->paths);
  g_ptr_array_unref (docs->texts);
  g_ptr_array_unref (docs->formats);
  g_array_unref (docs->lens);
  g_array_unref (docs->n_chars);
  g_ptr_array_unref (docs->failures);
  g_free (docs);
}

SimCrossDocuments *
sim_cross_documents_load (const char *const  *paths,
                          SimProgressFunc     progress,
                          gpointer            user_data,
                          GCancellable       *cancellable,
                          GError            **error)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  SimCrossDocuments *docs = g_new0 (SimCrossDocuments, 1);

  docs->paths = g_ptr_array_new_with_free_func (g_free);
  docs->texts = g_ptr_array_new_with_free_func (g_free);
  docs->formats = g_ptr_array_new ();
  docs->lens = g_array_new (FALSE, FALSE, sizeof (gsize));
  docs->n_chars = g_array_new (FALSE, FALSE, sizeof (guint32));
  docs->failures = g_ptr_array_new_with_free_func (g_free);
  for (guint i = 0; paths[i] != NULL; i++)
    sim_file_walk (paths[i], files, docs->failures);
  for (guint i = 0; i < files->len; i++)
    {
      g_autoptr(GError) local_error = NULL;
      const char *path = g_ptr_array_index (files, i);
      SimFormat format = SIM_FORMAT_TEXT;
      gsize len = 0;
      char *text;
      guint32 chars;

      if (progress)
        progress (i, files->len, path, user_data);
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          sim_cross_documents_free (docs);
          return NULL;
        }
      text = sim_document_load (path, &format, &len, NULL, &local_error);
      if (text == NULL)
        {
          g_ptr_array_add (docs->failures, g_strdup (local_error->message));
          continue;
        }
      chars = sim_text_count_chars (text, len);
      g_ptr_array_add (docs->paths, g_strdup (path));
      g_ptr_array_add (docs->texts, text);
      g_ptr_array_add (docs->formats, (gpointer) sim_format_to_string (format));
      g_array_append_val (docs->lens, len);
      g_array_append_val (docs->n_chars, chars);
    }
  if (progress)
    progress (files->len, files->len, NULL, user_data);
  return docs;
}
