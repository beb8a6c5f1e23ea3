/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Features and 64-bit SimHash fingerprints. A feature is a shingle of units
 * ending at a unit: two characters for CJK units, five for others (spaces and
 * punctuation are not units, so an inserted space or a changed comma does not
 * change a single feature). Features are hashed with XXH3 and a fixed seed.
 *
 * Anchor windows are what the corpus index stores: SimHashes of overlapping
 * windows of a fixed feature weight (about 9 CJK or 28 Latin characters),
 * thinned by winnowing so that any shared run of about 13 CJK or 40 Latin
 * characters shares at least one window, wherever the copy starts.
 */
#pragma once

#include <glib.h>

#include "sim-text.h"

G_BEGIN_DECLS

/* The 64-bit finaliser of MurmurHash3: every bit of @h moves every bit of
 * the result. One mixer for every hash key of the core (windows, cross's
 * keys: near SimHashes of near windows are spread apart, and a key keeps
 * only the high bits). */
static inline guint64
sim_mix64 (guint64 h)
{
  h ^= h >> 33;
  h *= G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
  h ^= h >> 33;
  h *= G_GUINT64_CONSTANT (0xc4ceb9fe1a85ec53);
  h ^= h >> 33;
  return h;
}

#define SIM_FINGERPRINT_SEED   G_GUINT64_CONSTANT (0x53494d484f554e44) /* "SIMHOUND" */
/* Bump when features, weights of anchors or windows, or the way they are
 * packed in the store change; stored fingerprints depend on it (6: windows
 * packed as SimHash and the distance from the last start; 7: kept in the
 * index files alone; 8: sentence keys after the windows). */
#define SIM_FEATURE_VERSION    (100 * SIM_NORMALIZE_VERSION + 8)

#define SIM_SHINGLE_CJK        2
#define SIM_SHINGLE_OTHER      5
#define SIM_WEIGHT_CJK         3  /* a CJK feature carries as much as three Latin ones */
#define SIM_WEIGHT_OTHER       1
#define SIM_WINDOW_WEIGHT      12 /* weight of one anchor window */
#define SIM_WINNOW_WEIGHT      6  /* winnowing range, in the same weight */
/* The range an article's lookups are thinned with. A window the store keeps
 * is the minimum of a range of SIM_WINNOW_WEIGHT; every smaller range inside
 * it that holds the window has it as its minimum too, so an article that
 * shares that much text still looks the window up. Ranges of 4 and more lost
 * near-duplicate hits on the labelled sets; 3 lost none. */
#define SIM_QUERY_WINNOW_WEIGHT 3
#define SIM_IDF_MIN_DOCS       20 /* below this, all features weigh the same */
#define SIM_DF_BUCKETS         (1u << 20)

typedef struct {
  guint64 simhash;
  guint32 unit_start; /* first unit of the window */
  guint32 unit_end;   /* end-exclusive */
} SimAnchor;

/* Document frequencies of features, counted in SIM_DF_BUCKETS hashed buckets
 * (collisions only ever lower a weight a little). Immutable once shared. */
typedef struct _SimWeights SimWeights;

SimWeights *sim_weights_new       (guint32          *counts, /* (transfer full) or NULL */
                                   guint32           n_docs);
void        sim_weights_free      (SimWeights       *weights);
gboolean    sim_weights_is_active (const SimWeights *weights);
/* IDF of a feature, >= 1; 1 for every feature while the corpus is small. */
float       sim_weights_get       (const SimWeights *weights,
                                   guint64           feature);
guint32     sim_weights_get_n_docs (const SimWeights *weights);
const guint32 *sim_weights_get_counts (const SimWeights *weights);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimWeights, sim_weights_free)

/* Shingle length of the feature ending at unit @i. */
static inline guint
sim_fingerprint_shingle (const SimUnits *units,
                         gsize           i)
{
  return (units->flags[i] & SIM_UNIT_CJK) ? SIM_SHINGLE_CJK : SIM_SHINGLE_OTHER;
}

/* A per-thread context: normalised units, their features and scratch space. */
typedef struct _SimFingerprinter SimFingerprinter;

SimFingerprinter *sim_fingerprinter_new          (SimNormalizeFlags  flags);
void              sim_fingerprinter_free         (SimFingerprinter  *fp);
/* Normalises @text and computes the feature ending at every unit (0 where
 * the shingle would start before the text). Returns the units (borrowed). */
const SimUnits   *sim_fingerprinter_load         (SimFingerprinter  *fp,
                                                  const char        *text,
                                                  gssize             len);
/* sim_fingerprinter_load() of units normalised elsewhere with the same
 * flags (borrowed: they must stay as they are while @fp uses them). */
void              sim_fingerprinter_load_units   (SimFingerprinter  *fp,
                                                  const SimUnits    *units);
const guint64    *sim_fingerprinter_get_features (SimFingerprinter  *fp);
/* Anchor windows of the loaded text, appended to @out (GArray of SimAnchor):
 * all of them (@winnow_weight 0), or those winnowing over ranges of
 * @winnow_weight keeps. */
void              sim_fingerprinter_windows      (SimFingerprinter  *fp,
                                                  guint              winnow_weight,
                                                  GArray            *out);

/* The feature ending at every unit of @units into @out (n entries; 0 where
 * the shingle would start before the first unit). */
void     sim_fingerprint_features       (const SimUnits *units,
                                         guint64        *out);
/* Features of units [start, end) whose shingle lies inside the range. */
gsize    sim_fingerprint_range_features (const SimUnits *units,
                                         const guint64  *features,
                                         gsize           start,
                                         gsize           end,
                                         guint64        *out);
/* SimHash of @n features, weighted by @weights (NULL: all equal). */
guint64  sim_fingerprint_simhash        (const guint64    *features,
                                         gsize             n,
                                         const SimWeights *weights);
/* The feature hash of @n code points. */
guint64  sim_fingerprint_hash_shingle   (const guint32    *cps,
                                         guint             n);

static inline guint
sim_fingerprint_distance (guint64 a,
                          guint64 b)
{
  return __builtin_popcountll (a ^ b);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimFingerprinter, sim_fingerprinter_free)

G_END_DECLS
