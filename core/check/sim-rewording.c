/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The stage between refine and passages: rewordings. A sentence reworded
 * throughout ("A man slices an onion." for "A man is slicing an onion.",
 * "美国认为叙利亚政府使用化学武器" for "美国认为叙利亚可能使用了化学武器")
 * shares no window with its source,
 * so no source is proposed for it. Every segment still unflagged after
 * verification is looked up by its sentence keys (sim-words.h: the pairs
 * of its rarest words); the stored sentences that share one are handed to
 * the passages stage, whose aligner judges them as it judges any sentence
 * pair. Segments a source explains cost nothing here.
 */
#include "config.h"

#include "sim-words.h"
#include "sim-check-private.h"

/* An article's sentence looks up the pairs of its QUERY_RAREST rarest
 * words (15 keys): a stored sentence is keyed by its 3 rarest, and the two
 * of them a rewording keeps are among its own rarest. */
#define QUERY_RAREST    6
#define QUERY_MAX_WORDS 40  /* longer segments are not one reworded short sentence */
#define MAX_KEY_HITS    24  /* a key in more sentences than this says nothing */
G_STATIC_ASSERT (MAX_KEY_HITS <= SIM_CORPUS_LOOKUP_MAX_HITS);
#define MAX_PROPOSED    3   /* stored sentences proposed per segment, most keys shared first */

typedef struct {
  guint64 key;
  guint   segment;
} SegmentKey;

typedef struct {
  guint   segment;
  guint32 doc;
  guint32 start;
} Proposal;

static int
compare_segment_keys (gconstpointer a,
                      gconstpointer b)
{
  const SegmentKey *x = a, *y = b;

  if (x->key != y->key)
    return x->key < y->key ? -1 : 1;
  return x->segment < y->segment ? -1 : x->segment > y->segment;
}

static int
compare_proposals (gconstpointer a,
                   gconstpointer b)
{
  const Proposal *x = a, *y = b;

  if (x->segment != y->segment)
    return x->segment < y->segment ? -1 : 1;
  if (x->doc != y->doc)
    return x->doc < y->doc ? -1 : 1;
  return x->start < y->start ? -1 : x->start > y->start;
}

void
_sim_rewording_expect (Check *check)
{
  g_autoptr(GArray) keys = NULL;

  if (!sim_corpus_snapshot_is_remote (check->snapshot))
    return;
  keys = g_array_new (FALSE, FALSE, sizeof (guint64));
  for (guint s = 0; s < check->segments->len; s++)
    {
      const SimSegment *seg = &g_array_index (check->segments, SimSegment, s);

      sim_words_pair_keys (check->units, seg->unit_start, seg->unit_end, QUERY_RAREST, QUERY_MAX_WORDS, keys);
    }
  sim_corpus_snapshot_expect (check->snapshot, (const guint64 *) keys->data, keys->len);
}

gboolean
_sim_rewording_find (Check   *check,
                     GError **error)
{
  guint n_docs, kept = 0;
  g_autoptr(GArray) seg_keys = g_array_new (FALSE, FALSE, sizeof (SegmentKey));
  g_autoptr(GArray) keys = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) distinct = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) ids = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) proposals = g_array_new (FALSE, FALSE, sizeof (Proposal));
  g_autofree guint32 *ends = NULL, *docs = NULL, *starts = NULL;

  check->seg_reworded = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  for (guint s = 0; s < check->segments->len; s++)
    {
      const SimSegment *seg = &g_array_index (check->segments, SimSegment, s);

      g_ptr_array_add (check->seg_reworded, g_array_new (FALSE, FALSE, sizeof (Candidate)));
      if (_sim_refine_level (check, seg, g_ptr_array_index (check->results, s)) >= SIM_LEVEL_MEDIUM)
        continue;
      g_array_set_size (keys, 0);
      sim_words_pair_keys (check->units, seg->unit_start, seg->unit_end, QUERY_RAREST, QUERY_MAX_WORDS, keys);
      for (guint k = 0; k < keys->len; k++)
        {
          SegmentKey sk = { g_array_index (keys, guint64, k), s };

          g_array_append_val (seg_keys, sk);
        }
    }
  if (seg_keys->len == 0)
    return TRUE;
  g_array_sort (seg_keys, compare_segment_keys);
  for (guint i = 0; i < seg_keys->len; i++)
    if (distinct->len == 0 ||
        g_array_index (distinct, guint64, distinct->len - 1) != g_array_index (seg_keys, SegmentKey, i).key)
      g_array_append_val (distinct, g_array_index (seg_keys, SegmentKey, i).key);

  ends = g_new (guint32, distinct->len);
  if (!sim_corpus_snapshot_lookup (check->snapshot, (const guint64 *) distinct->data, distinct->len,
                                   check->options->max_distance, ids, ends, error))
    return FALSE;
  /* The places of the sentences of keys that say something: a key of
   * common words names thousands at 10 GB, each a read. */
  for (guint k = 0, j = 0; k < distinct->len; k++)
    {
      const guint32 n = ends[k] - j;

      if (n <= MAX_KEY_HITS)
        {
          if (n > 0 && kept < j)
            memmove (&g_array_index (ids, guint32, kept), &g_array_index (ids, guint32, j), n * sizeof (guint32));
          kept += n;
        }
      j = ends[k];
      ends[k] = kept;
    }
  g_array_set_size (ids, kept);
  docs = g_new (guint32, MAX (ids->len, 1));
  starts = g_new (guint32, MAX (ids->len, 1));
  sim_corpus_snapshot_get_places (check->snapshot, (const guint32 *) ids->data, ids->len, docs, starts);
  /* After the lookup: a remote snapshot knows the documents it found. */
  n_docs = sim_corpus_snapshot_get_n_docs (check->snapshot);
  /* Each segment holding a key, with each sentence the key names. */
  for (guint k = 0, i = 0, j = 0; k < distinct->len; k++)
    {
      const guint64 key = g_array_index (distinct, guint64, k);
      const guint32 first = j, n = ends[k] - j;

      j = ends[k];
      for (; i < seg_keys->len && g_array_index (seg_keys, SegmentKey, i).key == key; i++)
        for (guint32 h = first; h < first + n; h++)
          {
            Proposal p = { g_array_index (seg_keys, SegmentKey, i).segment, docs[h], starts[h] };

            /* Places may come from the index file: a damaged one gives no hit. */
            if (p.doc < n_docs && p.start <= sim_corpus_snapshot_get_doc_n_chars (check->snapshot, p.doc))
              g_array_append_val (proposals, p);
          }
    }
  /* A stored sentence sharing more keys with a segment comes first. */
  g_array_sort (proposals, compare_proposals);
  for (guint i = 0; i < proposals->len;)
    {
      const Proposal *p = &g_array_index (proposals, Proposal, i);
      const SimSegment *seg = &g_array_index (check->segments, SimSegment, p->segment);
      GArray *cands = g_ptr_array_index (check->seg_reworded, p->segment);
      Candidate c = { p->doc, p->start, (gint64) p->start + (seg->end - seg->start), 0 };
      guint j = i;

      while (j < proposals->len && compare_proposals (&g_array_index (proposals, Proposal, j), p) == 0)
        j++;
      c.votes = j - i;
      g_array_append_val (cands, c);
      i = j;
    }
  for (guint s = 0; s < check->seg_reworded->len; s++)
    {
      GArray *cands = g_ptr_array_index (check->seg_reworded, s);

      g_array_sort (cands, _sim_candidates_compare);
      if (cands->len > MAX_PROPOSED)
        g_array_set_size (cands, MAX_PROPOSED);
    }
  return TRUE;
}
