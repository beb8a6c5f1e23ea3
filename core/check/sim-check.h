/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Checking an article against a corpus snapshot. SimHash proposes: every
 * window of the article (at every position, so copies are found however they
 * fall) is looked up in the band index. Verification decides: each segment is
 * compared with the proposed source region by weighted shingle containment,
 * which becomes the segment's similarity; the Hamming distance of the two
 * SimHashes is reported beside it. A segment next to a confirmed one is also
 * compared with the source text right next to that match, which recovers
 * sentences edited too much for any window to survive.
 */
#pragma once

#include <gio/gio.h>

#include "sim-corpus.h"
#include "sim-report.h"
#include "sim-segment.h"

G_BEGIN_DECLS

/* The defaults, and why:
 * - high 0.70: at least 70% of the segment's (IDF-weighted) shingles are in
 *   the source: copied with at most light edits;
 * - medium 0.40: a clear share of the segment is in the source: copied and
 *   reworded (synonyms, reordering), still worth a look;
 * Unrelated text on the same topic scores below 0.2. */
#define SIM_CHECK_DEFAULT_HIGH    0.70f
#define SIM_CHECK_DEFAULT_MEDIUM  0.40f
#define SIM_CHECK_MAX_BYTES       (64 << 20)
/* The SimHash lookup asks for equal window fingerprints by default. Windows
 * that differ by a character or two rarely come within 3 bits of each other,
 * and sharing the exact windows around them proposes the same sources:
 * with k = 3 both labelled sets scored the same to the digit, while the
 * index took four tables instead of one (four times the lookups and the
 * index file). A larger k builds a band index in memory on first use. */
#define SIM_CHECK_DEFAULT_DISTANCE 0
/* Fingerprints up to which that band index may be built (32 bytes each). */
#define SIM_CHECK_BAND_MAX_FPS    (32u << 20)

typedef struct {
  SimSegmentMode mode;
  guint          window;           /* units per window in SIM_SEGMENT_WINDOW mode */
  guint          max_distance;     /* k: Hamming bound of the SimHash lookup */
  gboolean       fast;             /* stop at the first confirmed match of a segment */
  float          high_threshold;
  float          medium_threshold;
  guint          max_matches;      /* matches kept per segment in precise mode */
  guint          n_threads;        /* 0: one per core */
} SimCheckOptions;

#define SIM_CHECK_OPTIONS_INIT { SIM_SEGMENT_SENTENCE, SIM_SEGMENT_DEFAULT_WINDOW, SIM_CHECK_DEFAULT_DISTANCE, FALSE, \
                                 SIM_CHECK_DEFAULT_HIGH, SIM_CHECK_DEFAULT_MEDIUM, 3, 0 }

/* A flagged segment as soon as it is verified, before neighbours are
 * compared and the report is built: for showing results as they arrive. The
 * final report may still differ a little. */
typedef struct {
  guint32  start;  /* code points into the text */
  guint32  end;
  SimLevel level;  /* high or medium */
} SimCheckPreview;

typedef void (*SimCheckPreviewFunc) (const SimCheckPreview *previews,
                                     guint                  n_previews,
                                     gpointer               user_data);

/* The settings a report names for @options on a corpus of @flags: the one
 * place check and compare fill them (the corpus's fields are the caller's). */
void       sim_check_options_fill_settings (const SimCheckOptions *options,
                                            SimNormalizeFlags      flags,
                                            SimReportSettings     *settings);

/* The level of an aligned passage whose source holds @similarity of its
 * words (SimAlignment.similarity), in a check and in compare alike: that
 * of its similarity. The sentence pairs that seed a passage in order are
 * how it is found, not evidence: two pages on one subject echo each other
 * in order, with a fifth of their words shared. */
SimLevel   sim_check_passage_level (const SimCheckOptions *options,
                                    float                  similarity);

/* Validates options: SIM_ERROR_INVALID_ARGUMENT with a message naming the option. */
gboolean   sim_check_options_validate (const SimCheckOptions *options,
                                       GError               **error);

/* Checks @text (@len bytes of UTF-8; invalid bytes are treated as U+FFFD)
 * against @snapshot. Runs on the calling thread and n_threads - 1 helpers;
 * @progress is called on the calling thread only. Fails with SIM_ERROR_EMPTY,
 * G_IO_ERROR_CANCELLED or a store error. (transfer full) */
SimReport *sim_check_run              (SimCorpusSnapshot     *snapshot,
                                       const char            *text,
                                       gssize                 len,
                                       const SimCheckOptions *options,
                                       SimProgressFunc        progress,
                                       gpointer               user_data,
                                       GCancellable          *cancellable,
                                       GError               **error);

/* Runs sim_check_run() in a GTask thread. @progress and @preview (both may
 * be NULL; they share @progress_data) run on the thread-default main context
 * of the caller, at most about ten times a second, and never after
 * @callback. The text and options are copied. */
void       sim_check_run_async        (SimCorpusSnapshot     *snapshot,
                                       const char            *text,
                                       gssize                 len,
                                       const SimCheckOptions *options,
                                       SimProgressFunc        progress,
                                       SimCheckPreviewFunc    preview,
                                       gpointer               progress_data,
                                       GCancellable          *cancellable,
                                       GAsyncReadyCallback    callback,
                                       gpointer               user_data);
SimReport *sim_check_run_finish       (GAsyncResult          *result,
                                       GError               **error);

G_END_DECLS
