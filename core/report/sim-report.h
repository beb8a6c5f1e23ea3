/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The result of a check: every segment of the article with its level,
 * verified similarity, fingerprint distance and best sources; passages
 * (aligned with a source, or consecutive flagged segments from one source);
 * a per-source breakdown and the overall similarity. Built once by the checker, then immutable and
 * atomically reference-counted: any thread may read it.
 */
#pragma once

#include <glib.h>

#include "sim-level.h"

G_BEGIN_DECLS


typedef struct {
  guint    source;      /* index into the report's sources */
  guint32  start;       /* code points into the source document's stored text */
  guint32  end;
  float    similarity;  /* verified text similarity, 0..1 */
  guint    distance;    /* Hamming distance of the two SimHashes */
  char    *excerpt;     /* the source text of [start, end) */
} SimMatch;

typedef struct {
  guint32  start;       /* code points into the article, end-exclusive */
  guint32  end;
  SimLevel level;
  float    similarity;  /* of the best match; 0 without one */
  guint    distance;    /* of the best match; 64 without one */
  guint    first_match; /* matches [first_match, first_match + n_matches), best first */
  guint    n_matches;
  gboolean from_passage; /* its level is that of the passage around it, above its own */
} SimReportSegment;

/* The one rule of what is flagged: a segment at medium or high with a
 * source to show. */
static inline gboolean
sim_report_segment_is_flagged (const SimReportSegment *seg)
{
  return seg->level != SIM_LEVEL_LOW && seg->n_matches > 0;
}

typedef struct {
  guint32  start;       /* article span */
  guint32  end;
  guint    source;
  guint32  source_start;
  guint32  source_end;
  float    similarity;  /* aligned: share of its words found in the source span; otherwise
                         * the length-weighted mean over its segments */
  SimLevel level;       /* its own, or the highest of its segments */
  guint    first_segment;
  guint    n_segments;
} SimPassage;

typedef struct {
  gint64   doc_id;
  char    *path;          /* as stored: the file name's bytes */
  char    *display_path;  /* the same as valid UTF-8 (g_filename_display_name), for JSON, HTML, PDF */
  char    *title;         /* valid UTF-8 */
  gboolean text_withheld; /* its text is kept from the account that checked: matched by keys, no excerpt */
  guint    n_segments;  /* flagged segments whose best match is this source, */
  guint32  n_chars;     /* article characters in those segments and */
  float    share;       /* n_chars / the article's characters in segments: before
                         * any exclusion, the report's ranking. A view's
                         * SimSourceShare is what a reader is shown. */
} SimReportSource;

typedef struct {
  const char *mode;        /* "sentence" or "window" */
  guint       window;
  guint       max_distance;
  gboolean    fast;
  float       high_threshold;
  float       medium_threshold;
  gboolean    fold_t2s;
  guint       feature_version;
  const char *store;
  guint       n_documents;
  gsize       n_fingerprints;
  gint64      corpus_updated; /* the corpus's last change, Unix seconds; 0 unknown */
} SimReportSettings;

/* Why a stretch of the article does not count (sim-exclude.h decides). */
typedef enum {
  SIM_EXCLUDED_QUOTE,       /* inside quotation marks */
  SIM_EXCLUDED_REFERENCES,  /* the reference section */
  SIM_EXCLUDED_SMALL,       /* a passage shorter than asked */
  SIM_EXCLUDED_SOURCE,      /* from a source left out (the student's own earlier work) */
  SIM_EXCLUDED_TEMPLATE,    /* the assignment's own text */
} SimExcludedReason;

typedef struct {
  guint32           start;  /* code points into the article */
  guint32           end;
  SimExcludedReason reason;
} SimExcludedSpan;

/* The figures schools use, each a share of the article's segment
 * characters (0..1). Passages left out as small, from an excluded source or
 * from the template never count; quotes and references are left out as the
 * names say. */
typedef struct {
  float total;
  float excluding_quotes;
  float excluding_references;
  float excluding_both;
  float largest_source;     /* of any one source, with the chosen exclusions */
} SimRatios;

/* "quote", "references", "small", "source", "template": as in the JSON. */
const char *sim_excluded_reason_to_string (SimExcludedReason reason);

/* What the article did to hide from the checker ("suspicious" in the JSON). */
typedef enum {
  SIM_SUSPICIOUS_LOOKALIKE,  /* Cyrillic or Greek letters inside Latin words */
  SIM_SUSPICIOUS_INVISIBLE,  /* invisible characters between letters */
  SIM_SUSPICIOUS_HIDDEN,     /* text of the file a reader does not see (left out) */
} SimSuspiciousKind;

typedef struct {
  SimSuspiciousKind kind;
  guint             count;  /* characters */
  guint32           start;  /* code points into the article: the first to just past the last */
  guint32           end;
} SimSuspicious;

/* "look-alike-characters", "invisible-characters", "hidden-text": as in the JSON. */
const char *sim_suspicious_kind_to_string (SimSuspiciousKind kind);

typedef struct _SimReport SimReport;

SimReport  *sim_report_ref                (SimReport       *report);
void        sim_report_unref              (SimReport       *report);
const char *sim_report_get_text           (const SimReport *report);
guint32     sim_report_get_n_chars        (const SimReport *report);
const SimReportSettings *sim_report_get_settings (const SimReport *report);
/* Share of the article's segment characters in flagged segments, before
 * any exclusion (`compare` and `cross` show it). What a reader is shown
 * comes from a view (sim-report-view.h), which applies the exclusions. */
float       sim_report_get_similarity     (const SimReport *report);
guint       sim_report_get_n_segments     (const SimReport *report);
const SimReportSegment *sim_report_get_segment (const SimReport *report,
                                                guint            index);
const SimMatch *sim_report_get_match      (const SimReport *report,
                                           guint            index);
guint       sim_report_get_n_passages     (const SimReport *report);
const SimPassage *sim_report_get_passage  (const SimReport *report,
                                           guint            index);
/* Sources ranked by share, largest first. */
guint       sim_report_get_n_sources      (const SimReport *report);
const SimReportSource *sim_report_get_source (const SimReport *report,
                                              guint            index);
/* Characters covered by the union of @passages' article spans (or, with
 * @source_side, of their source spans): the share a pair of documents is
 * given, the same in `cross`, the class list and its comparison. */
guint32     sim_passages_cover            (const SimPassage *passages,
                                           guint             n,
                                           gboolean          source_side);
/* Characters covered by the union of @spans (start << 32 | end, code
 * points), which it sorts. */
guint32     sim_spans_cover               (guint64          *spans,
                                           gsize             n);
/* The article's text from code point @start to @end. (transfer full) */
char       *sim_report_dup_text           (const SimReport *report,
                                           guint32          start,
                                           guint32          end);
/* A segment as similar as a flagged one that is not flagged: too little
 * text, or too little of it shared, to count (sim_level_judge()). The
 * charts draw it as an outline and say so. */
gboolean    sim_report_segment_is_too_short (const SimReport        *report,
                                             const SimReportSegment *seg);
/* Index of the segment containing code point @offset, or -1. */
gint        sim_report_find_segment       (const SimReport *report,
                                           guint32          offset);

/* The format the article was read from ("text" unless set; see
 * sim_format_to_string()), named in the JSON. Set it before sharing the report. */
void        sim_report_set_format         (SimReport       *report,
                                           const char      *format);
const char *sim_report_get_format         (const SimReport *report);
/* The article's name for headers (a file name), or NULL. Set before sharing. */
void        sim_report_set_name           (SimReport       *report,
                                           const char      *name);
const char *sim_report_get_name           (const SimReport *report);

/* The disguises found, in the order of SimSuspiciousKind, one entry a kind
 * at most. */
guint       sim_report_get_n_suspicious   (const SimReport *report);
const SimSuspicious *sim_report_get_suspicious (const SimReport *report,
                                                guint            index);
/* The disguise in words for the examiner ("312 letters of another alphabet
 * that look like Latin ones, inside words: read as the letters they
 * imitate"). (transfer full) */
char       *sim_suspicious_dup_description (const SimSuspicious *suspicious);
/* Records a disguise (the checker records look-alikes and invisible
 * characters; whoever read the file, hidden text). Set before sharing. */
void        sim_report_add_suspicious     (SimReport           *report,
                                           const SimSuspicious *suspicious);

/* What every view shows in place of the text of a source a corpus server
 * keeps from the account that checked (SimReportSource.text_withheld). */
const char *sim_report_source_withheld_note (void);

/* For the checker only: building a report. */
SimReport  *_sim_report_new               (const char              *text,
                                           gsize                    len,
                                           const SimReportSettings *settings);
guint       _sim_report_add_source        (SimReport       *report,
                                           gint64           doc_id,
                                           const char      *path,
                                           const char      *title,
                                           gboolean         text_withheld);
/* Appends a segment and its matches (best first; excerpts are taken). */
void        _sim_report_add_segment       (SimReport        *report,
                                           const SimReportSegment *segment,
                                           SimMatch         *matches,
                                           guint             n_matches);
/* Adds a passage found by alignment (source from _sim_report_add_source);
 * passages must not overlap. */
void        _sim_report_add_passage       (SimReport        *report,
                                           const SimPassage *passage);
/* Ranks sources, computes totals, and adds the runs of flagged segments
 * that no aligned passage covers as passages of their own. */
void        _sim_report_finish            (SimReport       *report);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SimReport, sim_report_unref)

G_END_DECLS
