/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The check's shared state, for its stages only. The stages run in this
 * order, each in its own file and each using only the ones before it:
 *
 *   sim-candidates.c    SimHash lookups of the article's windows, and the
 *                       source regions they propose for each segment
 *   sim-source-cache.c  the proposed documents' text, normalised once
 *   sim-verify.c        one segment against one source region: similarity,
 *                       matched spans, SimHash distance
 *   sim-refine.c        every segment verified (split around what a source
 *                       explains), neighbours of matches, window projection
 *   sim-rewording.c     segments still unflagged looked up by their sentence
 *                       keys: stored sentences they may reword
 *   sim-passages.c      the article aligned with its best sources
 *                       (sim-align.c): reused passages, whole
 *   sim-check-report.c  the report: each segment's level and matches, the
 *                       passages
 *   sim-check.c         the stages in order, the async relay
 *
 * A Check lives on the stack of sim_check_run(); its arrays are filled by one
 * stage and read by the later ones. Workers of one stage share it, each
 * writing only its own slots.
 */
#pragma once

#include <gio/gio.h>

#include "sim-align.h"
#include "sim-check.h"

G_BEGIN_DECLS

#define NO_DISTANCE 64  /* of a match whose source span's SimHash is not known */

typedef struct {
  guint32 key;     /* distinct window SimHash (check->keys) */
  guint32 doc;     /* where the stored fingerprint found for it is: snapshot document index */
  guint32 start;   /* and code-point start of its window */
} Hit;

typedef struct {
  guint  doc;     /* snapshot document index */
  gint64 start;   /* projected region in the source, code points */
  gint64 end;
  guint  votes;
} Candidate;

typedef struct {
  guint   doc;
  float   similarity;      /* weighted containment of the segment in the region */
  guint   distance;
  guint32 start;           /* matched source span, code points */
  guint32 end;
  guint32 q_start;         /* matched part of the segment, units */
  guint32 q_end;
  float   matched;         /* weight of the segment's features in that part found in the source */
  float   run_containment; /* matched / weight of all features in that part */
  guint   evidence;        /* script weight (SIM_WEIGHT_*) of the matched features in that part */
  guint   total_evidence;  /* the same over the whole segment */
  gboolean sentence;       /* the segment verified is a sentence as the article was cut, not a part */
} Verified;

typedef struct {
  SimSegment seg;
  GArray    *results;      /* Verified, best first */
} Piece;

typedef struct {
  SimAlignment alignment;  /* a_* into the article, b_* into the document's text */
  guint        doc;
} CheckPassage;

typedef struct {
  SimStoreText *stored;    /* NULL: removed since the snapshot */
  guint32       n_chars;   /* of the whole text */
  char         *text;      /* the pieces decompressed so far (_sim_source_cache_cover()) */
  gsize         len;
  guint32       first;     /* the code point text starts with */
  SimTextIndex  index;     /* code points of text to bytes */
  guint32       lo, hi;    /* code points the units cover: the candidates' regions and a margin */
  SimUnits      units;     /* of [lo, hi), offsets into the whole text */
  guint64      *features;
  gboolean      loaded;
  GError       *error;     /* a damaged piece met after loading */
} DocCache;

typedef struct {
  /* inputs */
  SimCorpusSnapshot     *snapshot;
  const SimCheckOptions *options;
  const SimWeights      *weights;
  const char            *text;
  gsize                  len;
  GCancellable          *cancellable;
  SimProgressFunc        progress;
  gpointer               progress_data;
  GThread               *caller;
  SimCheckPreviewFunc    preview;       /* any thread: flagged segments as they are verified */
  gpointer               preview_data;
  /* query: normalised once */
  const SimUnits        *units;
  const guint64         *features;
  GArray                *segments;      /* SimSegment */
  GArray                *windows;       /* SimAnchor */
  /* candidates: each distinct window SimHash looked up once (a repeated
   * sentence repeats its windows), per chunk of them */
  guint64               *keys;          /* distinct SimHashes of the windows, sorted */
  guint                  n_keys;
  guint32               *window_keys;   /* each window's index into keys */
  guint                  lookup_size;   /* keys a lookup carries (sim_corpus_snapshot_get_lookup_size()) */
  GError                *error;         /* the first lookup's failure, atomic */
  GPtrArray             *chunk_hits;    /* GArray of Hit per chunk of keys */
  GArray                *hits;          /* Hit, ordered by key; none for a boilerplate key */
  guint                 *first_hit;     /* hits of key k: [first_hit[k], first_hit[k + 1]) */
  GPtrArray             *seg_cands;     /* GArray of Candidate per segment, found once: those */
                                        /* of the first round (all once widened) */
  GPtrArray             *seg_more;      /* GArray of Candidate per segment: the rest */
  /* source cache: documents the candidates point into */
  GHashTable            *doc_slots;     /* doc index -> DocCache index + 1 */
  GArray                *docs;          /* DocCache */
  GArray                *doc_order;     /* guint doc index per cache slot */
  guint                  n_loaded;      /* slots read and normalised */
  GArray                *wanted;        /* guint32 triples (doc, lo, hi): read with the next load */
  /* refine: pieces per segment, then results per piece, best first */
  GPtrArray             *pieces;        /* GArray of Piece per segment */
  GArray                *widened;       /* guint: segments verified against all their candidates */
  gboolean               deferring;     /* verification of a region not at hand is deferred */
  GArray                *deferred;      /* guint: segments whose verification was deferred */
  GArray                *redo;          /* guint: the segments being verified again */
  GArray                *first_round;   /* guint: each deferred segment's first-round candidates */
  GPtrArray             *results;       /* GArray of Verified per final segment */
  /* rewording: stored sentences proposed by sentence keys, per final
   * segment (none for a segment a source explains) */
  GPtrArray             *seg_reworded;  /* GArray of Candidate */
  /* passages: aligned, in article order, overlapping only as the same
   * passage in two sources */
  GArray                *passages;      /* CheckPassage */
  /* work sharing */
  gint                   next;
  gint                   done;
  guint64                total;
} Check;

/* sim-candidates.c */
void      _sim_check_report_progress (Check            *check,
                                      guint             amount);
/* FALSE when the corpus could not be read (a server lost). */
gboolean  _sim_candidates_lookup     (Check            *check,
                                      GError          **error);
/* Fills hits, first_hit, seg_cands and seg_more. */
void      _sim_candidates_collect    (Check            *check);
/* The first of the article's windows that ends inside @seg. */
guint     _sim_candidates_first_window (Check          *check,
                                        const SimSegment *seg);
/* Source regions proposed for @seg by the windows overlapping it, most votes first. */
void      _sim_candidates_for        (Check            *check,
                                      const SimSegment *seg,
                                      GArray           *cands);
/* Most votes first, then by document and start. */
int       _sim_candidates_compare    (gconstpointer     a,
                                      gconstpointer     b);
/* How far a region may reach beyond the projection of @seg. */
gint64    _sim_candidates_slack      (const SimSegment *seg);

/* sim-source-cache.c */
/* Loads and normalises every document the candidates (and the rewording
 * stage's proposals) point into, those not loaded before, and reads what
 * is wanted of those loaded (_sim_source_cache_want()). */
gboolean  _sim_source_cache_load     (Check            *check,
                                      GError          **error);
DocCache *_sim_source_cache_get      (Check            *check,
                                      guint             doc);
/* Makes @cache's text hold code points [@lo, @hi) of the document (as
 * far as it goes). Only one thread at a time for a document. FALSE, with
 * cache->error set, when a piece is damaged. */
gboolean  _sim_source_cache_cover    (DocCache         *cache,
                                      guint32           lo,
                                      guint32           hi);
/* Where code point @at (absolute, covered) of the document starts. */
const char *_sim_source_cache_pointer (const DocCache  *cache,
                                       guint32          at);
/* Units and features of a stretch of one document: the cache's, or a
 * region normalised for one thread alone. */
typedef struct {
  const SimUnits *units;        /* offsets into the whole text */
  const guint64  *features;
  SimUnits        own;
  guint64        *own_features;
  gboolean        has_own;
} SourceRegion;

/* Points @region at units that cover code points [@lo, @hi) of @cache's
 * document and a margin on each side: the cache's when they do, else a
 * region normalised from the stored pieces for the calling thread alone
 * (any number of threads at once, each with its own @region). FALSE when
 * a piece is damaged (cache->error tells). */
gboolean  _sim_source_cache_region   (Check            *check,
                                      DocCache         *cache,
                                      gint64            lo,
                                      gint64            hi,
                                      SourceRegion     *region);
void      _sim_source_region_clear   (SourceRegion     *region);
/* Whether code points [@start, @end) of @cache's document are whole
 * sentences or lines of it: between them and a sentence's end, a line
 * break or the text's edge on each side only spaces, quotes and brackets.
 * Reads the stored pieces: any thread (an error reading them is kept as
 * cache->error). */
gboolean  _sim_source_cache_is_sentence (DocCache      *cache,
                                         guint32        start,
                                         guint32        end);
/* Whether _sim_source_cache_region() of [@lo, @hi) needs no read: the
 * cache's units cover it, or its stored text holds it (a text from a
 * corpus server held in part may not). */
gboolean  _sim_source_cache_at_hand  (const DocCache   *cache,
                                      gint64            lo,
                                      gint64            hi);
/* _sim_source_cache_want() of what _sim_source_cache_region() of [@lo,
 * @hi) of document @doc reads, from any thread. */
void      _sim_source_cache_want_region (Check         *check,
                                         guint          doc,
                                         gint64         lo,
                                         gint64         hi);
/* Says that a later stage reads code points [@lo, @hi) of document @doc:
 * the next _sim_source_cache_load() reads them with the texts it reads
 * (from a corpus server, all in one round trip; a part of a text not read
 * ahead is fetched when asked for, one round trip each). */
void      _sim_source_cache_want     (Check            *check,
                                      guint             doc,
                                      guint32           lo,
                                      guint32           hi);
/* The first damaged piece any document met, into @error: FALSE then. */
gboolean  _sim_source_cache_check_errors (Check        *check,
                                          GError      **error);
void      _sim_source_cache_clear    (Check            *check);

/* sim-verify.c: one thread's scratch space, and the segment it holds. */
typedef struct {
  GArray  *q;          /* QFeature, sorted, unique */
  GArray  *qocc;       /* QOccurrence in text order */
  float    q_weight;
  guint64  q_simhash;
  GArray  *slots;      /* guint32: open addressing over q, each its index + 1, or 0 */
  guint    slot_shift;
  GArray  *stamps;     /* guint32 per q: stamp when the region being verified holds it */
  guint32  stamp;
  GArray  *raw;        /* guint64 scratch */
  GArray  *diags;      /* gint32 scratch */
  GArray  *positions;  /* Aligned scratch */
  GArray  *cands;      /* Candidate scratch */
  SourceRegion region; /* the source region being verified */
  gboolean deferred;   /* a verification was deferred (Check's deferring) */
} Scratch;

void      _sim_scratch_init          (Scratch          *s);
void      _sim_scratch_clear         (Scratch          *s);
/* Loads @seg's features into @s for _sim_verify(). */
void      _sim_verify_load           (Check            *check,
                                      const SimSegment *seg,
                                      Scratch          *s);
/* Compares the loaded segment with [start, end) of document @doc. While
 * check->deferring, a region not at hand is not read (a round trip to a
 * corpus server each): it is wanted for the next load, s->deferred set,
 * and FALSE returned. */
gboolean  _sim_verify                (Check            *check,
                                      const SimSegment *seg,
                                      Scratch          *s,
                                      guint             doc,
                                      gint64            start,
                                      gint64            end,
                                      Verified         *out);
int       _sim_verified_compare      (gconstpointer     a,
                                      gconstpointer     b);
/* Whether a window inside @seg has a stored twin in document @doc starting
 * in [@lo, @hi): the segment shares a stretch of wording with it there,
 * as far as the keys tell (a source whose text is withheld). */
gboolean  _sim_verify_shares_keys    (Check            *check,
                                      const SimSegment *seg,
                                      guint             doc,
                                      gint64            lo,
                                      gint64            hi);

/* sim-refine.c */
/* The level of a segment with its results, best first. */
SimLevel  _sim_refine_level          (Check            *check,
                                      const SimSegment *seg,
                                      GArray           *results);
/* Verifies every segment against the candidates of the first round on
 * n_threads, splitting segments around the part a source explains. */
void      _sim_refine_verify         (Check            *check);
/* Whether the verification of a segment was deferred: from a corpus
 * server, _sim_refine_verify() reads nothing beyond what was loaded and
 * wants the rest (a piece of a split segment compared where its own
 * windows point, far from the segment's candidates), so that one load
 * reads it all; _sim_refine_redo() then verifies those segments again,
 * reading what it must. Each segment's verdict is then as if it had been
 * verified once with every text at hand. */
gboolean  _sim_refine_deferred       (Check            *check);
void      _sim_refine_redo           (Check            *check);
/* Gives the segments whose first round found no near copy (a source at
 * SURE_SIMILARITY, or a part one explains) the rest of their candidates
 * that share WIDEN_MIN_VOTES of their windows, and the deferred segments
 * theirs until they are settled; whether a load is needed (any widened
 * or deferred: their documents and what they want are then loaded). */
gboolean  _sim_refine_widen          (Check            *check);
/* After the load _sim_refine_widen() asked for: the deferred segments
 * verified again against their first round alone, then widened or not
 * as any other segment (their rest was read with the widened ones' and
 * what they wanted, one load for all). */
void      _sim_refine_settle         (Check            *check);
/* Verifies the widened segments again (deferring, as
 * _sim_refine_verify()). */
void      _sim_refine_verify_widened (Check            *check);
/* Segments and results then hold the pieces. */
void      _sim_refine_finish         (Check            *check);
void      _sim_refine_extend_neighbours (Check         *check);
void      _sim_refine_project_to_windows (Check        *check);

/* sim-rewording.c: fills check->seg_reworded (their documents are then
 * loaded); FALSE when the corpus could not be read. Before the first
 * lookup, _sim_rewording_expect() tells a remote snapshot the keys every
 * segment would look up (sim_corpus_snapshot_expect()): those of the
 * segments still unflagged then cost no round trip. */
void      _sim_rewording_expect      (Check            *check);
gboolean  _sim_rewording_find        (Check            *check,
                                      GError          **error);

/* sim-passages.c: fills check->passages from the results of every segment
 * and the sentences proposed as their rewordings. _sim_passages_want()
 * first says what that will read of the sources (_sim_source_cache_want()),
 * for the load before it. */
void      _sim_passages_want         (Check            *check);
void      _sim_passages_find         (Check            *check);
/* Whether @seg, inside @cp, has the source's wording: it shares a run of
 * SIM_SUPPORT_WORDS words with the source near [@lo, @hi), or between @before
 * and @after (the nearest segments of @cp on each side flagged on their
 * own, or NULL) it adds SIM_SUPPORT_IN_ORDER or more words to what the
 * three share in order with the source's code points [@lo, @hi) (from
 * @before's verified span to @after's). A copied or edited sentence fills
 * its place in the source; the writer's own sentence on the same topic
 * ("The lighthouse we visited had not had a keeper for forty years.")
 * shares a few words that are elsewhere, or in no order. TRUE when the
 * source cannot be read (nothing to judge by). The check's thread. */
#define SIM_SUPPORT_WORDS    3
#define SIM_SUPPORT_IN_ORDER 2
gboolean  _sim_passages_supports     (Check              *check,
                                      const CheckPassage *cp,
                                      const SimSegment   *seg,
                                      const SimSegment   *before,
                                      const SimSegment   *after,
                                      guint32             lo,
                                      guint32             hi);

/* sim-check-report.c: the report of @check, its stages done. The check's
 * thread. */
SimReport *_sim_check_build_report   (Check              *check);

G_END_DECLS
