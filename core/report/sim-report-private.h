/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The report's fields, for the files that make and read a report:
 * sim-report.c (the model and its assembly) and sim-report-json.c (the
 * JSON written and read back). Nothing else reaches in.
 */
#pragma once

#include "sim-report.h"
#include "sim-text.h"

G_BEGIN_DECLS

struct _SimReport {
  gint               ref_count;
  char              *text;
  guint32            n_chars;
  SimTextIndex       index;      /* code points of text to bytes */
  SimReportSettings  settings;
  char              *store;      /* owns settings.store */
  char              *format;     /* of the article's file, or NULL: text */
  char              *name;       /* the article's file name, or NULL */
  GArray            *segments;   /* SimReportSegment */
  GArray            *matches;    /* SimMatch */
  GArray            *passages;   /* SimPassage */
  GArray            *sources;    /* SimReportSource */
  float              similarity;  /* flagged share, before any exclusion */
  GArray            *suspicious;  /* SimSuspicious */
};

G_END_DECLS
