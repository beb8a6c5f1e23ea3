/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The second stage of a check: the text of every document a candidate points
 * into, read through the snapshot once, and the regions the candidates
 * propose normalised once, so verification compares units with units. Only
 * those regions: a 10,000-character article has candidates in hundreds of
 * documents, and normalising them whole cost more than the rest of the
 * check. Workers read and normalise the documents a chunk at a time, each
 * chunk through a connection the snapshot keeps (read in the caller's
 * thread alone, the texts took half of this stage).
 */
#include "config.h"

#include "sim-parallel.h"
#include "sim-check-private.h"

/* Code points normalised on each side of a region compared, so that no
 * comparison depends on where the stretch normalised for it begins (a
 * word's first letter, a folded phrase). A comparison outside what the
 * candidates proposed (a part of a segment, a neighbour of a match)
 * normalises its own region (_sim_source_cache_region()). */
#define LOAD_MARGIN 32

/* The stretch _sim_source_cache_region() normalises for [@lo, @hi). */
static void
region_bounds (const DocCache *cache,
               gint64          lo,
               gint64          hi,
               gint64         *from,
               gint64         *to)
{
  const gint64 n = cache->n_chars;

  *from = CLAMP (lo - LOAD_MARGIN, 0, n);
  *to = CLAMP (hi + LOAD_MARGIN, *from, n);
}

DocCache *
_sim_source_cache_get (Check *check,
                       guint  doc)
{
  guint slot = GPOINTER_TO_UINT (g_hash_table_lookup (check->doc_slots, GUINT_TO_POINTER (doc + 1)));

  return slot ? &g_array_index (check->docs, DocCache, slot - 1) : NULL;
}

/* Adds the documents of the candidates not seen before; widens the regions
 * of those not loaded yet (a region outside what was loaded is normalised
 * on its own by _sim_source_cache_region()). */
static void
register_cands (Check     *check,
                GPtrArray *seg_cands)
{
  for (guint s = 0; s < MIN (seg_cands->len, check->segments->len); s++)
    {
      GArray *cands = g_ptr_array_index (seg_cands, s);

      const gint64 slack = _sim_candidates_slack (&g_array_index (check->segments, SimSegment, s)) + LOAD_MARGIN;

      for (guint i = 0; i < cands->len; i++)
        {
          const Candidate *c = &g_array_index (cands, Candidate, i);
          const guint32 lo = (guint32) CLAMP (c->start - slack, 0, G_MAXUINT32);
          const guint32 hi = (guint32) CLAMP (c->end + slack, 0, G_MAXUINT32);
          guint slot = GPOINTER_TO_UINT (g_hash_table_lookup (check->doc_slots, GUINT_TO_POINTER (c->doc + 1)));
          DocCache *cache;

          if (slot == 0)
            {
              DocCache empty = { 0 };

              empty.lo = lo;
              empty.hi = hi;
              g_array_append_val (check->docs, empty);
              g_array_append_val (check->doc_order, c->doc);
              g_hash_table_insert (check->doc_slots, GUINT_TO_POINTER (c->doc + 1),
                                   GUINT_TO_POINTER (check->docs->len));
              continue;
            }
          cache = &g_array_index (check->docs, DocCache, slot - 1);
          /* Loaded: what is not at hand of a text held in part is read
           * with the next load (a widened segment's candidate). */
          if (slot <= check->n_loaded)
            {
              if (cache->loaded && !_sim_source_cache_at_hand (cache, lo, hi))
                _sim_source_cache_want (check, c->doc, lo, hi);
              continue;
            }
          cache->lo = MIN (cache->lo, lo);
          cache->hi = MAX (cache->hi, hi);
        }
    }
}

static void
register_docs (Check *check)
{
  if (check->doc_slots == NULL)
    {
      check->doc_slots = g_hash_table_new (NULL, NULL);
      check->docs = g_array_new (FALSE, TRUE, sizeof (DocCache));
      check->doc_order = g_array_new (FALSE, FALSE, sizeof (guint));
    }
  register_cands (check, check->seg_cands);
  if (check->seg_reworded != NULL)
    register_cands (check, check->seg_reworded);
}

/* The report's source span takes up to 3 punctuation marks after a match. */
#define TAIL 4

gboolean
_sim_source_cache_cover (DocCache *cache,
                         guint32   lo,
                         guint32   hi)
{
  const guint32 end = cache->first + (guint32) cache->index.n_chars;
  guint32 first;
  gsize len;
  char *text;

  hi = MIN (hi, cache->n_chars);
  lo = MIN (lo, hi);
  if (cache->error != NULL)
    return FALSE;
  if (cache->text != NULL && cache->first <= lo && hi <= end)
    return TRUE;
  if (cache->text != NULL)
    {
      lo = MIN (lo, cache->first);
      hi = MAX (hi, end);
    }
  text = sim_store_text_dup_range (cache->stored, lo, hi, &first, &len, &cache->error);
  if (text == NULL)
    return FALSE;
  g_free (cache->text);
  sim_text_index_clear (&cache->index);
  cache->text = text;
  cache->len = len;
  cache->first = first;
  sim_text_index_init (&cache->index, text, len);
  return TRUE;
}

const char *
_sim_source_cache_pointer (const DocCache *cache,
                           guint32         at)
{
  return sim_text_index_pointer (&cache->index, at > cache->first ? at - cache->first : 0);
}

void
_sim_source_region_clear (SourceRegion *region)
{
  if (region->has_own)
    sim_units_clear (&region->own);
  g_clear_pointer (&region->own_features, g_free);
  region->has_own = FALSE;
  region->units = NULL;
  region->features = NULL;
}

gboolean
_sim_source_cache_region (Check        *check,
                          DocCache     *cache,
                          gint64        lo,
                          gint64        hi,
                          SourceRegion *region)
{
  g_autofree char *text = NULL;
  GError *error = NULL;
  const char *a, *b;
  guint32 first;
  gsize len;
  gint64 from, to;

  region_bounds (cache, lo, hi, &from, &to);
  _sim_source_region_clear (region);
  if (from >= cache->lo && to <= cache->hi)
    {
      region->units = &cache->units;
      region->features = cache->features;
      return TRUE;
    }
  /* The stored pieces are read-only: any thread may decompress them. */
  text = sim_store_text_dup_range (cache->stored, from, to, &first, &len, &error);
  if (text == NULL)
    {
      if (!g_atomic_pointer_compare_and_exchange (&cache->error, NULL, error))
        g_error_free (error);
      return FALSE;
    }
  a = text + sim_text_byte_offset (text, len, from - first);
  b = a + sim_text_byte_offset (a, text + len - a, to - from);
  sim_units_init (&region->own);
  sim_text_normalize (a, b - a, from, sim_corpus_snapshot_get_flags (check->snapshot), &region->own);
  region->own_features = g_new (guint64, MAX (region->own.n, 1));
  sim_fingerprint_features (&region->own, region->own_features);
  region->has_own = TRUE;
  region->units = &region->own;
  region->features = region->own_features;
  return TRUE;
}

gboolean
_sim_source_cache_check_errors (Check   *check,
                                GError **error)
{
  for (guint i = 0; check->docs != NULL && i < check->docs->len; i++)
    {
      DocCache *cache = &g_array_index (check->docs, DocCache, i);

      if (cache->error != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&cache->error));
          return FALSE;
        }
    }
  return TRUE;
}

/* Decompresses the pieces the candidates fall in and normalises [lo, hi). */
static void
normalize (Check    *check,
           DocCache *cache)
{
  const char *from, *to;

  cache->n_chars = sim_store_text_get_n_chars (cache->stored);
  cache->hi = MIN (cache->hi, cache->n_chars);
  cache->lo = MIN (cache->lo, cache->hi);
  if (!_sim_source_cache_cover (cache, cache->lo, (guint64) cache->hi + TAIL))
    return;
  sim_units_init (&cache->units);
  from = _sim_source_cache_pointer (cache, cache->lo);
  to = _sim_source_cache_pointer (cache, cache->hi);
  sim_text_normalize (from, to - from, cache->lo, sim_corpus_snapshot_get_flags (check->snapshot), &cache->units);
  cache->features = g_new (guint64, MAX (cache->units.n, 1));
  sim_fingerprint_features (&cache->units, cache->features);
  cache->loaded = TRUE;
}

/* Documents read and normalised at a time by a worker: workers take the
 * next chunk when done, so one that met long texts does not hold the stage
 * (taking every other document, one worker took a fifth longer than the
 * other). */
#define LOAD_CHUNK 16

typedef struct {
  Check  *check;
  guint   first;        /* the first slot to load */
  gint    next;         /* atomic: the next chunk */
  GMutex  lock;
  GError *error;        /* the first store error, under lock */
  gboolean read;        /* the texts are read already: normalise them */
} LoadJob;

static void
load_worker (gpointer data)
{
  LoadJob *job = data;
  Check *check = job->check;
  guint docs[LOAD_CHUNK];
  SimStoreText *texts[LOAD_CHUNK];
  gint c;

  while ((c = g_atomic_int_add (&job->next, 1)) * LOAD_CHUNK < (gint) (check->docs->len - job->first) &&
         g_atomic_pointer_get (&job->error) == NULL)
    {
      const guint first = job->first + c * LOAD_CHUNK, n = MIN (LOAD_CHUNK, check->docs->len - first);
      GError *error = NULL;

      for (guint k = 0; k < n; k++)
        {
          docs[k] = g_array_index (check->doc_order, guint, first + k);
          texts[k] = job->read ? g_array_index (check->docs, DocCache, first + k).stored : NULL;
        }
      /* A document removed since the snapshot was taken has no text: it simply proposes nothing. */
      if (!job->read && !sim_corpus_snapshot_read_texts (check->snapshot, docs, n, NULL, NULL, texts, &error))
        {
          g_mutex_lock (&job->lock);
          if (job->error == NULL)
            g_atomic_pointer_set (&job->error, error);
          else
            g_error_free (error);
          g_mutex_unlock (&job->lock);
          return;
        }
      for (guint k = 0; k < n; k++)
        {
          DocCache *cache = &g_array_index (check->docs, DocCache, first + k);

          cache->stored = texts[k];
          if (cache->stored != NULL && !g_cancellable_is_cancelled (check->cancellable))
            normalize (check, cache);
        }
    }
}

/* Reads the texts of slots [@first, @first + @n) (the parts of them the
 * candidates fall in) and, in the same round trip, what is wanted of
 * texts read before: a server answers each read in a round trip. */
static gboolean
read_remote (Check   *check,
             guint    first,
             guint    n,
             GError **error)
{
  const guint n_wanted = check->wanted != NULL ? check->wanted->len : 0;
  g_autofree guint *docs = g_new (guint, n + n_wanted + 1);
  g_autofree SimStoreText **texts = g_new0 (SimStoreText *, n + n_wanted + 1);
  g_autofree guint32 *los = g_new (guint32, n + n_wanted + 1);
  g_autofree guint32 *his = g_new (guint32, n + n_wanted + 1);
  g_autofree guint *slots = g_new (guint, n + n_wanted + 1);
  guint m = 0;

  /* normalize()'s part of each, and what a later stage wants of it. */
  for (guint k = 0; k < n; k++)
    {
      const DocCache *cache = &g_array_index (check->docs, DocCache, first + k);

      docs[m] = g_array_index (check->doc_order, guint, first + k);
      los[m] = cache->lo;
      his[m] = (guint32) MIN ((guint64) cache->hi + TAIL, G_MAXUINT32);
      slots[m++] = first + k;
    }
  for (guint w = 0; w < n_wanted; w++)
    {
      const guint32 *want = &g_array_index (check->wanted, guint32, 3 * w);
      const guint slot = GPOINTER_TO_UINT (g_hash_table_lookup (check->doc_slots, GUINT_TO_POINTER (want[0] + 1)));
      guint k;

      if (slot == 0 || (slot <= first && g_array_index (check->docs, DocCache, slot - 1).stored == NULL))
        continue;
      for (k = 0; k < m && slots[k] != slot - 1; k++)
        ;
      if (k == m)
        {
          docs[m] = want[0];
          texts[m] = g_array_index (check->docs, DocCache, slot - 1).stored;
          los[m] = want[1];
          his[m] = want[2];
          slots[m++] = slot - 1;
        }
      los[k] = MIN (los[k], want[1]);
      his[k] = MAX (his[k], want[2]);
    }
  g_clear_pointer (&check->wanted, g_array_unref);
  if (m > 0 && !sim_corpus_snapshot_read_texts (check->snapshot, docs, m, los, his, texts, error))
    return FALSE;
  for (guint k = 0; k < n; k++)
    g_array_index (check->docs, DocCache, first + k).stored = texts[k];
  return TRUE;
}

gboolean
_sim_source_cache_load (Check   *check,
                        GError **error)
{
  LoadJob job = { check, check->n_loaded, 0, { 0 }, NULL, FALSE };
  guint n;

  register_docs (check);
  n = check->docs->len - check->n_loaded;
  check->n_loaded = check->docs->len;
  if (sim_corpus_snapshot_is_remote (check->snapshot))
    {
      if (!read_remote (check, job.first, n, error))
        return FALSE;
      job.read = TRUE;
    }
  /* A local store's texts are read whole: nothing to read ahead. */
  g_clear_pointer (&check->wanted, g_array_unref);
  if (n == 0)
    return TRUE;
  g_mutex_init (&job.lock);
  sim_parallel_run (MIN (check->options->n_threads, (n + LOAD_CHUNK - 1) / LOAD_CHUNK), load_worker, &job);
  g_mutex_clear (&job.lock);
  if (job.error != NULL)
    {
      g_propagate_error (error, job.error);
      return FALSE;
    }
  return TRUE;
}

void
_sim_source_cache_want (Check   *check,
                        guint    doc,
                        guint32  lo,
                        guint32  hi)
{
  const guint32 want[3] = { doc, lo, hi };

  if (check->wanted == NULL)
    check->wanted = g_array_new (FALSE, FALSE, sizeof want);
  g_array_append_val (check->wanted, want);
}

gboolean
_sim_source_cache_at_hand (const DocCache *cache,
                           gint64          lo,
                           gint64          hi)
{
  gint64 from, to;
  guint32 first, end;

  region_bounds (cache, lo, hi, &from, &to);
  if (from >= cache->lo && to <= cache->hi)
    return TRUE;
  sim_store_text_get_held (cache->stored, &first, &end);
  return first <= from && to <= end;
}

void
_sim_source_cache_want_region (Check   *check,
                               guint    doc,
                               gint64   lo,
                               gint64   hi)
{
  static GMutex lock;
  const DocCache *cache = _sim_source_cache_get (check, doc);
  gint64 from, to;

  region_bounds (cache, lo, hi, &from, &to);
  g_mutex_lock (&lock);
  _sim_source_cache_want (check, doc, (guint32) from, (guint32) to);
  g_mutex_unlock (&lock);
}

void
_sim_source_cache_clear (Check *check)
{
  if (check->docs)
    {
      for (guint i = 0; i < check->docs->len; i++)
        {
          DocCache *cache = &g_array_index (check->docs, DocCache, i);

          g_free (cache->text);
          g_free (cache->features);
          sim_text_index_clear (&cache->index);
          sim_store_text_free (cache->stored);
          g_clear_error (&cache->error);
          if (cache->loaded)
            sim_units_clear (&cache->units);
        }
      g_clear_pointer (&check->docs, g_array_unref);
    }
  g_clear_pointer (&check->doc_order, g_array_unref);
  g_clear_pointer (&check->doc_slots, g_hash_table_unref);
  g_clear_pointer (&check->wanted, g_array_unref);
}

/* Characters looked at on each side of a span for its sentence's edges. */
#define EDGE 8

static gboolean
ends_sentence (gunichar c)
{
  switch (c)
    {
    case '\n': case '\r': case '.': case '!': case '?': case ';': case ':':
    case 0x2026: /* … */
    case 0x3002: /* 。 */
    case 0xFF01: case 0xFF1F: case 0xFF1B: case 0xFF1A: /* ！？；： */
      return TRUE;
    default:
      return FALSE;
    }
}

/* Quotes, brackets, bullets and spaces (not line breaks) around a sentence. */
static gboolean
wraps_sentence (gunichar c)
{
  switch (g_unichar_type (c))
    {
    case G_UNICODE_INITIAL_PUNCTUATION:
    case G_UNICODE_FINAL_PUNCTUATION:
    case G_UNICODE_OPEN_PUNCTUATION:
    case G_UNICODE_CLOSE_PUNCTUATION:
    case G_UNICODE_SPACE_SEPARATOR:
      return TRUE;
    default:
      return c == '"' || c == '\'' || c == '\t' || c == '*' || c == '-' || c == 0x2022 /* • */;
    }
}

/* Whether a sentence ends or begins at @p, looking backward or @forward:
 * only quotes, brackets and spaces before a sentence's end or a line
 * break, or before @limit when @limit_is_edge (the text's edge). */
static gboolean
sentence_edge (const char *p,
               const char *limit,
               gboolean    forward,
               gboolean    limit_is_edge)
{
  for (guint i = 0; i <= EDGE; i++)
    {
      gunichar c;

      if (forward ? p >= limit : p <= limit)
        return limit_is_edge;
      if (!forward)
        p = g_utf8_prev_char (p);
      c = g_utf8_get_char (p);
      if (ends_sentence (c))
        return TRUE;
      if (!wraps_sentence (c))
        return FALSE;
      if (forward)
        p = g_utf8_next_char (p);
    }
  return FALSE;
}

gboolean
_sim_source_cache_is_sentence (DocCache *cache,
                               guint32   start,
                               guint32   end)
{
  g_autofree char *text = NULL;
  const guint32 lo = start > EDGE ? start - EDGE : 0;
  GError *error = NULL;
  guint32 first, hi;
  gsize len;
  const char *a, *b;

  if (cache == NULL || cache->stored == NULL || start >= end || end > cache->n_chars)
    return FALSE;
  hi = MIN (cache->n_chars, end + EDGE);
  text = sim_store_text_dup_range (cache->stored, lo, hi, &first, &len, &error);
  if (text == NULL)
    {
      if (!g_atomic_pointer_compare_and_exchange (&cache->error, NULL, error))
        g_error_free (error);
      return FALSE;
    }
  if (first > lo)
    return FALSE;
  a = text + sim_text_byte_offset (text, len, start - first);
  b = a + sim_text_byte_offset (a, text + len - a, end - start);
  /* Text short of @end where the document goes on past it: damaged. */
  if (b == text + len && end < cache->n_chars)
    return FALSE;
  /* The pieces read end at the text's end only when hi is it. */
  return sentence_edge (a, text, FALSE, first == 0) &&
         sentence_edge (b, text + len, TRUE, hi == cache->n_chars);
}
