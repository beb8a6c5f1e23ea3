/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A report as JSON: the document of `simhound-cli check --json` (schema in
 * the README), and the saved report, which is read back whole.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <json-glib/json-glib.h>

#include "sim-compare.h"
#include "sim-cross.h"
#include "sim-json-writer.h"
#include "sim-report-json.h"
#include "sim-report-private.h"


static double
round3 (float x)
{
  return (double) lrintf (x * 1000.0f) / 1000.0;
}

static char *report_to_json (const SimReportView *view,
                             const char          *file,
                             gboolean             pretty,
                             gboolean             saved);

char *
sim_report_view_to_json (const SimReportView *view,
                         const char          *file,
                         gboolean             pretty)
{
  return report_to_json (view, file, pretty, FALSE);
}

/* The check's JSON; @saved adds what reopening needs: a version mark, the
 * article's name and text, and each match's source text. */
static char *
report_to_json (const SimReportView *view,
                const char          *file,
                gboolean             pretty,
                gboolean             saved)
{
  const SimReport *report = sim_report_view_get_report (view);
  const SimRatios *ratios = sim_report_view_get_ratios (view);
  SimJsonWriter w = sim_json_writer_new (pretty), *b = &w;
  const SimReportSettings *s = &report->settings;

  sim_json_begin (b, TRUE);
  if (saved)
    {
      sim_json_member_int (b, "saved_report", SIM_SAVED_REPORT_VERSION);
      sim_json_member_string (b, "name", report->name ? report->name : "");
      sim_json_member_string (b, "text", report->text);
    }

  if (file != NULL)
    {
      g_autofree char *display = g_filename_display_name (file);

      sim_json_member_string (b, "file", display);
    }
  sim_json_member_string (b, "format", sim_report_get_format (report));
  sim_json_name (b, "settings");
  sim_json_begin (b, TRUE);
  sim_json_member_string (b, "mode", s->mode);
  sim_json_member_int (b, "window", s->window);
  sim_json_member_int (b, "max_distance", s->max_distance);
  sim_json_member_string (b, "search", s->fast ? "fast" : "precise");
  sim_json_member_double (b, "high_threshold", round3 (s->high_threshold));
  sim_json_member_double (b, "medium_threshold", round3 (s->medium_threshold));
  sim_json_member_boolean (b, "fold_traditional", s->fold_t2s);
  sim_json_end (b);

  sim_json_name (b, "corpus");
  sim_json_begin (b, TRUE);
  sim_json_member_string (b, "store", s->store);
  sim_json_member_int (b, "documents", s->n_documents);
  sim_json_member_int (b, "anchors", s->n_fingerprints);
  sim_json_member_int (b, "feature_version", s->feature_version);
  if (s->corpus_updated > 0)
    {
      g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (s->corpus_updated);
      g_autofree char *iso = dt ? g_date_time_format_iso8601 (dt) : NULL;

      sim_json_member_string (b, "updated", iso ? iso : "");
    }
  sim_json_end (b);

  sim_json_member_int (b, "characters", report->n_chars);
  sim_json_member_double (b, "similarity", round3 (sim_report_view_get_similarity (view)));
  sim_json_name (b, "ratios");
  sim_json_begin (b, TRUE);
  sim_json_member_double (b, "total", round3 (ratios->total));
  sim_json_member_double (b, "excluding_quotes", round3 (ratios->excluding_quotes));
  sim_json_member_double (b, "excluding_references", round3 (ratios->excluding_references));
  sim_json_member_double (b, "excluding_both", round3 (ratios->excluding_both));
  sim_json_member_double (b, "largest_source", round3 (ratios->largest_source));
  sim_json_end (b);
  sim_json_name (b, "excluded");
  sim_json_begin (b, FALSE);
  for (guint i = 0; i < sim_report_view_get_n_excluded (view); i++)
    {
      const SimExcludedSpan *x = sim_report_view_get_excluded (view, i);

      sim_json_begin (b, TRUE);
      sim_json_member_int (b, "start", x->start);
      sim_json_member_int (b, "end", x->end);
      sim_json_member_string (b, "reason", sim_excluded_reason_to_string (x->reason));
      sim_json_end (b);
    }
  sim_json_end (b);
  sim_json_name (b, "suspicious");
  sim_json_begin (b, FALSE);
  for (guint i = 0; i < report->suspicious->len; i++)
    {
      const SimSuspicious *x = &g_array_index (report->suspicious, SimSuspicious, i);

      sim_json_begin (b, TRUE);
      sim_json_member_string (b, "kind", sim_suspicious_kind_to_string (x->kind));
      sim_json_member_int (b, "count", x->count);
      sim_json_member_int (b, "start", x->start);
      sim_json_member_int (b, "end", x->end);
      sim_json_end (b);
    }
  sim_json_end (b);
  sim_json_name (b, "counts");
  sim_json_begin (b, TRUE);
  for (SimLevel level = SIM_LEVEL_LOW; level <= SIM_LEVEL_HIGH; level++)
    {
      sim_json_name (b, sim_level_to_string (level));
      sim_json_int (b, sim_report_view_count_level (view, level));
    }
  sim_json_member_int (b, "excluded", sim_report_view_count_excluded (view));
  sim_json_end (b);
  sim_json_name (b, "histogram");
  sim_json_begin (b, FALSE);
  for (guint i = 0; i < SIM_CHART_BINS; i++)
    sim_json_int (b, sim_report_view_get_histogram (view)[i]);
  sim_json_end (b);

  sim_json_name (b, "segments");
  sim_json_begin (b, FALSE);
  for (guint i = 0; i < report->segments->len; i++)
    {
      const SimReportSegment *seg = &g_array_index (report->segments, SimReportSegment, i);

      sim_json_begin (b, TRUE);
      sim_json_member_int (b, "start", seg->start);
      sim_json_member_int (b, "end", seg->end);
      sim_json_member_string (b, "level", sim_level_to_string (seg->level));
      sim_json_member_double (b, "similarity", round3 (seg->similarity));
      sim_json_member_int (b, "distance", seg->distance);
      sim_json_member_string (b, "level_from", seg->from_passage ? "passage" : "segment");
      sim_json_name (b, "matches");
      sim_json_begin (b, FALSE);
      for (guint j = 0; j < seg->n_matches; j++)
        {
          const SimMatch *m = &g_array_index (report->matches, SimMatch, seg->first_match + j);
          const SimReportSource *src = &g_array_index (report->sources, SimReportSource, m->source);

          sim_json_begin (b, TRUE);
          sim_json_member_string (b, "document", src->display_path);
          sim_json_member_int (b, "doc_id", src->doc_id);
          sim_json_member_int (b, "start", m->start);
          sim_json_member_int (b, "end", m->end);
          sim_json_member_double (b, "similarity", round3 (m->similarity));
          sim_json_member_int (b, "distance", m->distance);
          if (saved)
            {
              sim_json_member_string (b, "excerpt", m->excerpt ? m->excerpt : "");
            }
          sim_json_end (b);
        }
      sim_json_end (b);
      sim_json_end (b);
    }
  sim_json_end (b);

  sim_json_name (b, "passages");
  sim_json_begin (b, FALSE);
  for (guint i = 0; i < report->passages->len; i++)
    {
      const SimPassage *p = &g_array_index (report->passages, SimPassage, i);
      const SimReportSource *src = &g_array_index (report->sources, SimReportSource, p->source);

      sim_json_begin (b, TRUE);
      sim_json_member_int (b, "start", p->start);
      sim_json_member_int (b, "end", p->end);
      sim_json_member_string (b, "level", sim_level_to_string (p->level));
      sim_json_member_double (b, "similarity", round3 (p->similarity));
      sim_json_member_int (b, "segments", p->n_segments);
      sim_json_member_string (b, "document", src->display_path);
      sim_json_member_int (b, "doc_id", src->doc_id);
      sim_json_member_int (b, "source_start", p->source_start);
      sim_json_member_int (b, "source_end", p->source_end);
      sim_json_end (b);
    }
  sim_json_end (b);

  /* What a reader sees as one highlighted stretch (sim-report-view.h). */
  sim_json_name (b, "runs");
  sim_json_begin (b, FALSE);
  for (guint i = 0; i < sim_report_view_get_n_runs (view); i++)
    {
      const SimFlaggedRun *run = sim_report_view_get_run (view, i);

      sim_json_begin (b, TRUE);
      sim_json_member_int (b, "start", run->start);
      sim_json_member_int (b, "end", run->end);
      sim_json_member_int (b, "source", run->source + 1);
      sim_json_member_string (b, "level", sim_level_to_string (run->level));
      sim_json_member_double (b, "similarity", round3 (run->similarity));
      sim_json_member_boolean (b, "excluded", run->excluded);
      sim_json_end (b);
    }
  sim_json_end (b);

  sim_json_name (b, "sources");
  sim_json_begin (b, FALSE);
  for (guint i = 0; i < report->sources->len; i++)
    {
      const SimReportSource *src = &g_array_index (report->sources, SimReportSource, i);
      const SimSourceShare *share = sim_report_view_get_share (view, i);

      sim_json_begin (b, TRUE);
      /* The number and colour the window and the exports show it with. */
      sim_json_member_int (b, "number", i + 1);
      sim_json_member_string (b, "color", sim_source_color (i + 1));
      sim_json_member_string (b, "document", src->display_path);
      sim_json_member_int (b, "doc_id", src->doc_id);
      sim_json_member_string (b, "title", src->title);
      /* false: a server kept its text from the account that checked. */
      sim_json_member_boolean (b, "text_available", !src->text_withheld);
      sim_json_member_int (b, "segments", share->n_segments);
      sim_json_member_int (b, "characters", share->n_chars);
      sim_json_member_double (b, "share", round3 (share->share));
      sim_json_end (b);
    }
  sim_json_end (b);

  sim_json_end (b);

  return sim_json_writer_finish (b);
}

/* ------------------------------------------------------ saved reports */

char *
sim_report_to_saved_json (SimReport *report)
{
  g_autoptr(SimReportView) plain = sim_report_view_new (report, NULL);

  return report_to_json (plain, NULL, FALSE, TRUE);
}

/* Reading a saved report trusts nothing: every member is checked for its
 * type and range, and the first problem is the error. */
typedef struct {
  GError **error;
  gboolean failed;
} Reader;

static void
bad (Reader     *r,
     const char *what)
{
  if (!r->failed)
    g_set_error (r->error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                 _("Not a Simhound report, or a damaged one: %s"), what);
  r->failed = TRUE;
}

static JsonNode *
member (Reader     *r,
        JsonObject *o,
        const char *name,
        JsonNodeType type)
{
  JsonNode *node = o ? json_object_get_member (o, name) : NULL;

  if (node == NULL || JSON_NODE_TYPE (node) != type)
    {
      g_autofree char *what = g_strdup_printf ("“%s” is missing or of the wrong type", name);

      bad (r, what);
      return NULL;
    }
  return node;
}

static gint64
int_member (Reader     *r,
            JsonObject *o,
            const char *name,
            gint64      lo,
            gint64      hi)
{
  JsonNode *node = member (r, o, name, JSON_NODE_VALUE);
  gint64 v;

  if (node == NULL)
    return lo;
  if (json_node_get_value_type (node) != G_TYPE_INT64)
    {
      bad (r, name);
      return lo;
    }
  v = json_node_get_int (node);
  if (v < lo || v > hi)
    {
      g_autofree char *what = g_strdup_printf ("“%s” is out of range", name);

      bad (r, what);
      return lo;
    }
  return v;
}

static double
double_member (Reader     *r,
               JsonObject *o,
               const char *name)
{
  JsonNode *node = member (r, o, name, JSON_NODE_VALUE);
  double v;

  if (node == NULL)
    return 0;
  if (json_node_get_value_type (node) != G_TYPE_DOUBLE && json_node_get_value_type (node) != G_TYPE_INT64)
    {
      bad (r, name);
      return 0;
    }
  v = json_node_get_double (node);
  if (!(v >= 0 && v <= 1))
    {
      bad (r, name);
      return 0;
    }
  return v;
}

static const char *
string_member (Reader     *r,
               JsonObject *o,
               const char *name)
{
  JsonNode *node = member (r, o, name, JSON_NODE_VALUE);

  if (node == NULL || json_node_get_value_type (node) != G_TYPE_STRING)
    {
      if (node != NULL)
        bad (r, name);
      return "";
    }
  return json_node_get_string (node);
}

static SimLevel
level_member (Reader     *r,
              JsonObject *o,
              const char *name)
{
  const char *s = string_member (r, o, name);

  for (SimLevel level = SIM_LEVEL_LOW; level <= SIM_LEVEL_HIGH; level++)
    if (g_str_equal (s, sim_level_to_string (level)))
      return level;
  bad (r, name);
  return SIM_LEVEL_LOW;
}

static JsonArray *
array_member (Reader     *r,
              JsonObject *o,
              const char *name)
{
  JsonNode *node = member (r, o, name, JSON_NODE_ARRAY);

  return node ? json_node_get_array (node) : NULL;
}

static JsonObject *
object_at (Reader    *r,
           JsonArray *a,
           guint      i)
{
  JsonNode *node = json_array_get_element (a, i);

  if (JSON_NODE_TYPE (node) != JSON_NODE_OBJECT)
    {
      bad (r, "an entry is not an object");
      return NULL;
    }
  return json_node_get_object (node);
}

/* The index of the source with @doc_id, or -1 (an error). */
static gint
source_of (Reader    *r,
           SimReport *report,
           gint64     doc_id)
{
  for (guint i = 0; i < report->sources->len; i++)
    if (g_array_index (report->sources, SimReportSource, i).doc_id == doc_id)
      return i;
  bad (r, "a match names a document that is not among the sources");
  return -1;
}

SimReport *
sim_report_from_saved_json (const char  *data,
                            gssize       len,
                            GError     **error)
{
  g_autoptr(JsonParser) parser = json_parser_new_immutable ();
  g_autoptr(SimReport) report = NULL;
  Reader r = { error, FALSE };
  JsonNode *root;
  JsonObject *o, *settings, *corpus;
  JsonArray *sources, *segments, *passages;
  SimReportSettings s = { 0 };
  const char *text, *mode;
  guint64 total = 0, flagged = 0;

  if (!json_parser_load_from_data (parser, data, len, error))
    return NULL;
  root = json_parser_get_root (parser);
  o = root && JSON_NODE_TYPE (root) == JSON_NODE_OBJECT ? json_node_get_object (root) : NULL;
  if (o == NULL || !json_object_has_member (o, "saved_report"))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("Not a saved Simhound report (a check’s JSON without its text cannot be reopened)"));
      return NULL;
    }
  if (int_member (&r, o, "saved_report", 1, G_MAXINT) > SIM_SAVED_REPORT_VERSION)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("The report was saved by a newer Simhound"));
      return NULL;
    }
  text = string_member (&r, o, "text");
  {
    JsonNode *node = member (&r, o, "settings", JSON_NODE_OBJECT);

    settings = node ? json_node_get_object (node) : NULL;
    node = member (&r, o, "corpus", JSON_NODE_OBJECT);
    corpus = node ? json_node_get_object (node) : NULL;
  }
  if (r.failed)
    return NULL;
  mode = string_member (&r, settings, "mode");
  s.mode = g_str_equal (mode, "window") ? "window" : "sentence";
  s.window = int_member (&r, settings, "window", 1, G_MAXINT);
  s.max_distance = int_member (&r, settings, "max_distance", 0, 64);
  s.fast = g_str_equal (string_member (&r, settings, "search"), "fast");
  s.high_threshold = double_member (&r, settings, "high_threshold");
  s.medium_threshold = double_member (&r, settings, "medium_threshold");
  {
    JsonNode *fold = member (&r, settings, "fold_traditional", JSON_NODE_VALUE);

    s.fold_t2s = fold && json_node_get_value_type (fold) == G_TYPE_BOOLEAN && json_node_get_boolean (fold);
  }
  s.store = string_member (&r, corpus, "store");
  s.n_documents = int_member (&r, corpus, "documents", 0, G_MAXUINT);
  /* "segments" in reports written before 2026-11-29: the corpus's
   * anchors, which a segment (a piece of the article) is not. */
  s.n_fingerprints = int_member (&r, corpus, corpus != NULL && json_object_has_member (corpus, "anchors")
                                               ? "anchors" : "segments", 0, G_MAXINT64);
  s.feature_version = int_member (&r, corpus, "feature_version", 0, G_MAXUINT);
  if (corpus != NULL && json_object_has_member (corpus, "updated"))
    {
      g_autoptr(GDateTime) dt = g_date_time_new_from_iso8601 (string_member (&r, corpus, "updated"), NULL);

      s.corpus_updated = dt ? g_date_time_to_unix (dt) : 0;
    }
  if (r.failed)
    return NULL;

  report = _sim_report_new (text, strlen (text), &s);
  if (int_member (&r, o, "characters", 0, G_MAXUINT32) != report->n_chars)
    bad (&r, "the text is not as long as the report says");
  if (*string_member (&r, o, "name"))
    sim_report_set_name (report, string_member (&r, o, "name"));
  if (json_object_has_member (o, "format"))
    sim_report_set_format (report, string_member (&r, o, "format"));
  if (json_object_has_member (o, "suspicious"))
    {
      JsonArray *list = array_member (&r, o, "suspicious");

      for (guint i = 0; list && !r.failed && i < json_array_get_length (list); i++)
        {
          JsonObject *so = object_at (&r, list, i);
          SimSuspicious x = { 0 };
          const char *kind;
          guint k;

          if (so == NULL)
            break;
          kind = string_member (&r, so, "kind");
          for (k = 0; k <= SIM_SUSPICIOUS_HIDDEN && !g_str_equal (kind, sim_suspicious_kind_to_string (k)); k++)
            ;
          if (k > SIM_SUSPICIOUS_HIDDEN)
            continue;  /* a kind a newer version knows */
          x.kind = k;
          x.count = int_member (&r, so, "count", 0, G_MAXUINT);
          x.start = int_member (&r, so, "start", 0, report->n_chars);
          x.end = int_member (&r, so, "end", x.start, report->n_chars);
          sim_report_add_suspicious (report, &x);
        }
    }

  /* Sources, in their ranked order. */
  sources = array_member (&r, o, "sources");
  for (guint i = 0; sources && !r.failed && i < json_array_get_length (sources); i++)
    {
      JsonObject *so = object_at (&r, sources, i);
      SimReportSource src = { 0 };

      if (so == NULL)
        break;
      src.doc_id = int_member (&r, so, "doc_id", 0, G_MAXINT64);
      src.display_path = g_strdup (string_member (&r, so, "document"));
      src.path = g_strdup (src.display_path);
      src.title = g_strdup (string_member (&r, so, "title"));
      src.text_withheld = json_object_has_member (so, "text_available") &&
                          !json_object_get_boolean_member (so, "text_available");
      src.n_segments = int_member (&r, so, "segments", 0, G_MAXUINT);
      src.n_chars = int_member (&r, so, "characters", 0, report->n_chars);
      src.share = double_member (&r, so, "share");
      g_array_append_val (report->sources, src);
    }

  /* Segments in article order, inside the text, with their matches. */
  segments = array_member (&r, o, "segments");
  for (guint i = 0; segments && !r.failed && i < json_array_get_length (segments); i++)
    {
      JsonObject *so = object_at (&r, segments, i);
      SimReportSegment seg = { 0 };
      JsonArray *matches;

      if (so == NULL)
        break;
      seg.start = int_member (&r, so, "start", 0, report->n_chars);
      seg.end = int_member (&r, so, "end", seg.start, report->n_chars);
      if (report->segments->len > 0 &&
          seg.start < g_array_index (report->segments, SimReportSegment, report->segments->len - 1).end)
        bad (&r, "segments overlap or are out of order");
      seg.level = level_member (&r, so, "level");
      seg.similarity = double_member (&r, so, "similarity");
      seg.distance = int_member (&r, so, "distance", 0, 64);
      seg.from_passage = g_str_equal (string_member (&r, so, "level_from"), "passage");
      seg.first_match = report->matches->len;
      matches = array_member (&r, so, "matches");
      for (guint j = 0; matches && !r.failed && j < json_array_get_length (matches); j++)
        {
          JsonObject *mo = object_at (&r, matches, j);
          SimMatch m = { 0 };
          gint source;

          if (mo == NULL)
            break;
          source = source_of (&r, report, int_member (&r, mo, "doc_id", 0, G_MAXINT64));
          if (source < 0)
            break;
          m.source = source;
          m.start = int_member (&r, mo, "start", 0, G_MAXUINT32);
          m.end = int_member (&r, mo, "end", m.start, G_MAXUINT32);
          m.similarity = double_member (&r, mo, "similarity");
          m.distance = int_member (&r, mo, "distance", 0, 64);
          m.excerpt = g_utf8_make_valid (string_member (&r, mo, "excerpt"), -1);
          g_array_append_val (report->matches, m);
          seg.n_matches++;
        }
      if (seg.level != SIM_LEVEL_LOW && seg.n_matches == 0)
        bad (&r, "a flagged segment has no source");
      g_array_append_val (report->segments, seg);
      total += seg.end - seg.start;
      flagged += sim_report_segment_is_flagged (&seg) ? seg.end - seg.start : 0;
    }

  /* Passages, each over whole segments of the article. */
  passages = array_member (&r, o, "passages");
  for (guint i = 0; passages && !r.failed && i < json_array_get_length (passages); i++)
    {
      JsonObject *po = object_at (&r, passages, i);
      SimPassage p = { 0 };
      gint source, first;

      if (po == NULL)
        break;
      p.start = int_member (&r, po, "start", 0, report->n_chars);
      p.end = int_member (&r, po, "end", p.start, report->n_chars);
      p.level = level_member (&r, po, "level");
      p.similarity = double_member (&r, po, "similarity");
      p.n_segments = int_member (&r, po, "segments", 0, report->segments->len);
      p.source_start = int_member (&r, po, "source_start", 0, G_MAXUINT32);
      p.source_end = int_member (&r, po, "source_end", p.source_start, G_MAXUINT32);
      source = source_of (&r, report, int_member (&r, po, "doc_id", 0, G_MAXINT64));
      first = sim_report_find_segment (report, p.start);
      if (r.failed || source < 0)
        break;
      if (first < 0 || first + p.n_segments > report->segments->len)
        {
          bad (&r, "a passage is not over the article’s segments");
          break;
        }
      p.source = source;
      p.first_segment = first;
      g_array_append_val (report->passages, p);
    }
  if (r.failed)
    return NULL;
  report->similarity = total ? (float) flagged / total : 0.0f;
  return g_steal_pointer (&report);
}

/* ------------------------------------------------------------ compare */

static void
add_document (SimJsonWriter *b,
              const char    *member,
              const char    *path,
              guint32       n_chars)
{
  g_autofree char *display = g_filename_display_name (path);

  sim_json_name (b, member);
  sim_json_begin (b, TRUE);
  sim_json_member_string (b, "path", display);
  sim_json_member_int (b, "characters", n_chars);
  sim_json_end (b);
}

/* One passage as compare's and cross's JSON give it: {"start", "end",
 * "source_start", "source_end", "level", "similarity"}. */
static void
add_passage (SimJsonWriter    *b,
             const SimPassage *p)
{
  sim_json_begin (b, TRUE);
  sim_json_member_int (b, "start", p->start);
  sim_json_member_int (b, "end", p->end);
  sim_json_member_int (b, "source_start", p->source_start);
  sim_json_member_int (b, "source_end", p->source_end);
  sim_json_member_string (b, "level", sim_level_to_string (p->level));
  sim_json_member_double (b, "similarity", round3 (p->similarity));
  sim_json_end (b);
}

char *
sim_compare_to_json (const SimReport  *report,
                     float             similarity,
                     const SimPassage *passages,
                     guint             n_passages,
                     const char       *a_path,
                     const char       *b_path,
                     guint32           b_chars)
{
  SimJsonWriter w = sim_json_writer_new (TRUE), *b = &w;

  sim_json_begin (b, TRUE);
  add_document (b, "a", a_path, sim_report_get_n_chars (report));
  add_document (b, "b", b_path, b_chars);
  sim_json_member_double (b, "similarity", round3 (similarity));
  sim_json_name (b, "passages");
  sim_json_begin (b, FALSE);
  for (guint i = 0; i < n_passages; i++)
    add_passage (b, &passages[i]);
  sim_json_end (b);
  sim_json_end (b);
  return sim_json_writer_finish (b);
}

/* -------------------------------------------------------------- cross */

/* A document's check against the corpus: its similarity and its largest
 * sources. */
static void
add_corpus_json (SimJsonWriter   *b,
                 const SimReport *report)
{
  sim_json_name (b, "corpus");
  sim_json_begin (b, TRUE);
  sim_json_member_double (b, "similarity", round (1000 * sim_report_get_similarity (report)) / 1000);
  sim_json_name (b, "sources");
  sim_json_begin (b, FALSE);
  for (guint s = 0; s < MIN (sim_report_get_n_sources (report), SIM_CROSS_CORPUS_SOURCES); s++)
    {
      const SimReportSource *src = sim_report_get_source (report, s);

      sim_json_begin (b, TRUE);
      sim_json_member_string (b, "document", src->display_path);
      sim_json_member_string (b, "title", src->title);
      sim_json_member_double (b, "share", round (1000 * src->share) / 1000);
      sim_json_end (b);
    }
  sim_json_end (b);
  sim_json_end (b);
}

char *
sim_cross_to_json (GArray            *pairs,
                   const char *const *paths,
                   const char *const *formats,
                   const guint32     *n_chars,
                   SimReport *const  *corpus,
                   guint              n)
{
  SimJsonWriter w = sim_json_writer_new (TRUE), *b = &w;

  sim_json_begin (b, TRUE);
  sim_json_name (b, "documents");
  sim_json_begin (b, FALSE);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *display = g_filename_display_name (paths[i]);

      sim_json_begin (b, TRUE);
      sim_json_member_string (b, "path", display);
      sim_json_member_string (b, "format", formats[i]);
      sim_json_member_int (b, "characters", n_chars[i]);
      if (corpus != NULL && corpus[i] != NULL)
        add_corpus_json (b, corpus[i]);
      sim_json_end (b);
    }
  sim_json_end (b);
  sim_json_name (b, "pairs");
  sim_json_begin (b, FALSE);
  for (guint i = 0; i < pairs->len; i++)
    {
      const SimCrossPair *pair = &g_array_index (pairs, SimCrossPair, i);
      g_autofree char *a = g_filename_display_name (paths[pair->a]);
      g_autofree char *bp = g_filename_display_name (paths[pair->b]);

      sim_json_begin (b, TRUE);
      sim_json_member_string (b, "a", a);
      sim_json_member_string (b, "b", bp);
      sim_json_member_int (b, "shared_characters", pair->shared_a);
      sim_json_member_double (b, "share_a", round (1000 * pair->share_a) / 1000);
      sim_json_member_double (b, "share_b", round (1000 * pair->share_b) / 1000);
      sim_json_name (b, "passages");
      sim_json_begin (b, FALSE);
      for (guint p = 0; p < pair->passages->len; p++)
        add_passage (b, &g_array_index (pair->passages, SimPassage, p));
      sim_json_end (b);
      sim_json_end (b);
    }
  sim_json_end (b);
  sim_json_end (b);
  return sim_json_writer_finish (b);
}
