/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * simhound-cli check: articles against the corpus.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "simhound-cli-private.h"
#include "sim-backend.h"
#include "sim-check.h"
#include "sim-compare.h"
#include "sim-corpus.h"
#include "sim-cross.h"
#include "sim-document.h"
#include "sim-exclude.h"
#include "sim-error.h"
#include "sim-export.h"
#include "sim-report-json.h"
#include "sim-store.h"

static void
on_check_progress (guint64     done,
                   guint64     total,
                   const char *what,
                   gpointer    user_data)
{
  cli_poll_interrupt ();
}

static void
print_report (const SimReportView *view,
              gboolean             color)
{
  const SimReport *report = sim_report_view_get_report (view);
  const SimReportSettings *settings = sim_report_get_settings (report);
  const char *red = color ? "\033[1;41;97m" : "", *yellow = color ? "\033[30;43m" : "";
  const char *reset = color ? "\033[0m" : "", *dim = color ? "\033[2m" : "", *bold = color ? "\033[1m" : "";
  guint number = 0;

  g_print (_("%sSimilarity %.1f%%%s — %u high, %u medium, %u low segments; %u documents, %s mode, %s search\n"),
           bold, 100 * sim_report_view_get_similarity (view), reset,
           sim_report_view_count_level (view, SIM_LEVEL_HIGH),
           sim_report_view_count_level (view, SIM_LEVEL_MEDIUM),
           sim_report_view_count_level (view, SIM_LEVEL_LOW),
           settings->n_documents, settings->mode, settings->fast ? "fast" : "precise");
  if (settings->n_documents == 0)
    g_print (_("The corpus is empty: add reference documents with “simhound-cli corpus add PATH”.\n"));
  {
    const SimRatios *r = sim_report_view_get_ratios (view);

    g_print (_("Total %.1f%%, without quotes %.1f%%, without references %.1f%%, without both %.1f%%; "
               "largest single source %.1f%%\n"),
             100 * r->total, 100 * r->excluding_quotes, 100 * r->excluding_references,
             100 * r->excluding_both, 100 * r->largest_source);
  }

  for (guint i = 0; i < sim_report_get_n_suspicious (report); i++)
    {
      g_autofree char *what = sim_suspicious_dup_description (sim_report_get_suspicious (report, i));

      g_print (_("%sWarning:%s %s\n"), bold, reset, what);
    }

  for (guint i = 0; i < sim_report_get_n_segments (report); i++)
    {
      const SimReportSegment *seg = sim_report_get_segment (report, i);
      const SimMatch *m;
      const SimReportSource *src;
      g_autofree char *seg_text = NULL, *seg_line = NULL, *src_line = NULL, *src_path = NULL;
      g_autofree char *distance = NULL;
      gboolean excluded;

      if (seg->level == SIM_LEVEL_LOW || seg->n_matches == 0)
        continue;
      m = sim_report_get_match (report, seg->first_match);
      src = sim_report_get_source (report, m->source);
      seg_text = sim_report_dup_text (report, seg->start, seg->end);
      seg_line = cli_one_line (seg_text, 160);
      src_line = cli_one_line (src->text_withheld ? sim_report_source_withheld_note () : m->excerpt, 160);
      src_path = cli_for_terminal (src->path);
      excluded = sim_report_view_is_segment_excluded (view, i);
      /* No distance where the source's text is kept from this account:
       * the two were never compared (the JSON says 64, "none"). */
      distance = src->text_withheld ? g_strdup ("") : g_strdup_printf ("%s %u, ", _("distance"), seg->distance);
      g_print ("\n[%u] %s %.0f%% %s(%s%s%s%s %u–%u)%s\n    %s%s%s\n    %s← %s%s\n    %s%s%s\n",
               ++number, seg->level == SIM_LEVEL_HIGH ? _("HIGH") : _("MEDIUM"),
               100 * seg->similarity, dim,
               /* Left out by the chosen exclusions: shown, not counted. */
               excluded ? _("excluded, ") : "",
               /* Its level is that of the reused passage around it. */
               seg->from_passage ? _("in a reused passage, ") : "",
               distance, _("chars"),
               seg->start, seg->end, reset,
               excluded ? dim : seg->level == SIM_LEVEL_HIGH ? red : yellow, seg_line, reset,
               dim, src_path, reset, dim, src_line, reset);
    }

  if (sim_report_get_n_sources (report) > 0 && number > 0)
    {
      g_print (_("\nSources:\n"));
      for (guint i = 0; i < sim_report_get_n_sources (report); i++)
        {
          const SimReportSource *src = sim_report_get_source (report, i);
          const SimSourceShare *share = sim_report_view_get_share (view, i);
          g_autofree char *path = NULL;

          if (share->n_segments == 0)
            continue;
          path = cli_for_terminal (src->path);
          g_print ("  %5.1f%%  %3u  %s\n", 100 * share->share, share->n_segments, path);
        }
    }
}

/* Checks one input: @name is a path or "-". With @batch, a JSON report is
 * one line (JSON Lines) and a text report starts with the file's name. */
static int
check_one (SimCorpusSnapshot     *snapshot,
           const char            *name,
           const SimCheckOptions *options,
           const SimExclusions   *chosen,
           const char            *template_text,
           gboolean               json,
           gboolean               batch,
           const char            *output_dir,
           GHashTable            *written,
           const char            *html_path,
           const char            *pdf_path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimReport) report = NULL;
  g_autoptr(SimReportView) view = NULL;
  g_autoptr(GArray) template_spans = g_array_new (FALSE, FALSE, sizeof (SimExcludedSpan));
  SimExclusions exclusions = *chosen;
  g_autofree char *text = NULL;
  gsize len = 0;
  SimFormat format = SIM_FORMAT_TEXT;
  SimDocumentNotes notes = { 0 };

  if ((text = cli_load_input (name, &format, &len, &notes, &error)) == NULL)
    return cli_fail (error);

  report = sim_check_run (snapshot, text, len, options, on_check_progress, NULL, cli_cancellable, &error);
  if (report == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_prefix_error (&error, "%s: ", name);
      return cli_fail (error);
    }
  sim_report_set_format (report, sim_format_to_string (format));
  cli_add_hidden_text (report, &notes);
  if (!g_str_equal (name, "-"))
    {
      g_autofree char *base = g_path_get_basename (name);
      g_autofree char *shown = g_filename_display_name (base);

      sim_report_set_name (report, shown);
    }
  if (template_text != NULL &&
      !sim_exclude_find_template (report, template_text, -1, sim_corpus_snapshot_get_flags (snapshot),
                                  template_spans, &error))
    return cli_fail (error);
  exclusions.template_spans = (const SimExcludedSpan *) template_spans->data;
  exclusions.n_template_spans = template_spans->len;
  view = sim_report_view_new (report, &exclusions);
  if ((html_path && !sim_export_html_file (view, html_path, &error)) ||
      (pdf_path && !sim_export_pdf_file_on (view, pdf_path, cli_paper, &error)))
    return cli_fail (error);

  if (output_dir != NULL)
    {
      g_autofree char *base = g_path_get_basename (g_str_equal (name, "-") ? "stdin" : name);
      char *dot = strrchr (base, '.');
      g_autofree char *file = NULL, *out = NULL;

      if (dot != NULL && dot != base)
        *dot = '\0';
      /* a/essay.txt and b/essay.txt: essay.json and essay-2.json, never one over the other. */
      for (guint n = 1; file == NULL || g_hash_table_contains (written, file); n++)
        {
          g_free (file);
          file = n == 1 ? g_strconcat (output_dir, G_DIR_SEPARATOR_S, base, ".json", NULL)
                        : g_strdup_printf ("%s%s%s-%u.json", output_dir, G_DIR_SEPARATOR_S, base, n);
        }
      g_hash_table_add (written, g_strdup (file));
      out = sim_report_view_to_json (view, name, TRUE);
      if (!g_file_set_contents (file, out, -1, &error))
        return cli_fail (error);
    }
  else if (json)
    {
      g_autofree char *out = sim_report_view_to_json (view, batch ? name : NULL, !batch);

      g_print ("%s\n", out);
    }
  else
    {
      if (batch)
        {
          g_autofree char *shown = cli_for_terminal (name);

          g_print ("== %s ==\n", shown);
        }
      print_report (view, isatty (STDOUT_FILENO) && g_getenv ("NO_COLOR") == NULL);
    }
  return EXIT_OK;
}

int
cli_check_command (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new (_("FILE|- — check an article"));
  g_autoptr(GOptionGroup) group = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCorpusSnapshot) snapshot = NULL;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  gboolean json = FALSE, fast = FALSE, precise = FALSE;
  g_autofree char *html_path = NULL, *pdf_path = NULL, *output_dir = NULL;
  int window = -1, max_distance = -1, threads = 0, failed = EXIT_OK;
  double high = -1, medium = -1;
  gboolean exclude_quotes = FALSE, exclude_references = FALSE;
  int exclude_small = 0;
  g_auto(GStrv) exclude_sources = NULL;
  g_autofree char *template_path = NULL, *template_text = NULL;
  g_autoptr(GArray) source_ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  SimExclusions exclusions = SIM_EXCLUSIONS_INIT;
  g_autoptr(GHashTable) written = NULL;  /* the reports written into --output-dir */
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the report as JSON"), NULL },
    { "exclude-quotes", 0, 0, G_OPTION_ARG_NONE, &exclude_quotes, N_("Leave quoted text out of the similarity"), NULL },
    { "exclude-references", 0, 0, G_OPTION_ARG_NONE, &exclude_references, N_("Leave the reference section out of the similarity"), NULL },
    { "exclude-small", 0, 0, G_OPTION_ARG_INT, &exclude_small, N_("Do not flag passages of fewer than N words (2N CJK characters)"), N_("N") },
    { "exclude-source", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &exclude_sources, N_("Do not flag passages from this corpus document (repeatable)"), N_("ID|PATH") },
    { "template", 0, 0, G_OPTION_ARG_FILENAME, &template_path, N_("The assignment's own text: its passages are never flagged"), N_("FILE") },
    { "mode", 0, 0, G_OPTION_ARG_CALLBACK, cli_parse_mode, N_("Segments: sentence (default) or window"), N_("MODE") },
    { "window", 0, 0, G_OPTION_ARG_INT, &window, N_("Window size in characters (default 30; 13 for papers); implies --mode window"), N_("N") },
    { "max-distance", 'k', 0, G_OPTION_ARG_INT, &max_distance, N_("Hamming distance bound of the SimHash lookup (default 0)"), N_("K") },
    { "fast", 0, 0, G_OPTION_ARG_NONE, &fast, N_("Stop at the first confirmed source of each segment"), NULL },
    { "precise", 0, 0, G_OPTION_ARG_NONE, &precise, N_("Confirm every candidate and keep the best (default)"), NULL },
    { "high", 0, 0, G_OPTION_ARG_DOUBLE, &high, N_("Similarity from which a segment is high (default 0.70)"), N_("X") },
    { "medium", 0, 0, G_OPTION_ARG_DOUBLE, &medium, N_("Similarity from which a segment is medium (default 0.40)"), N_("X") },
    { "threads", 0, 0, G_OPTION_ARG_INT, &threads, N_("Worker threads (default: one per core)"), N_("N") },
    { "html", 0, 0, G_OPTION_ARG_FILENAME, &html_path, N_("Also write the highlighted report as HTML"), N_("FILE") },
    { "pdf", 0, 0, G_OPTION_ARG_FILENAME, &pdf_path, N_("Also write the highlighted report as PDF"), N_("FILE") },
    { "paper", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) cli_parse_paper, N_("Paper of the PDF: a4 or letter (default: the locale's)"), N_("SIZE") },
    { "output-dir", 'o', 0, G_OPTION_ARG_FILENAME, &output_dir, N_("Write one NAME.json per input into DIR (NAME-2.json for a second input of that name)"), N_("DIR") },
    { NULL }
  };

  group = g_option_group_new ("check", "", "", &options, NULL);
  g_option_group_add_entries (group, entries);
  g_option_group_set_translation_domain (group, GETTEXT_PACKAGE);
  g_option_context_set_main_group (context, g_steal_pointer (&group));
  g_option_context_add_main_entries (context, cli_store_entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return cli_usage_error (context, error->message);
  if (argc < 2)
    return cli_usage_error (context, _("check needs a FILE, several, or - for standard input"));
  for (int f = 1, n_stdin = 0; f < argc; f++)
    if (g_str_equal (argv[f], "-") && ++n_stdin > 1)
      return cli_usage_error (context, _("- (standard input) may be given only once"));
  if (argc > 2 && (html_path || pdf_path))
    return cli_usage_error (context, _("--html and --pdf take one FILE at a time"));
  if (pdf_path != NULL)
    cli_partial_pdf = g_strconcat (pdf_path, SIM_EXPORT_PARTIAL_SUFFIX, NULL);
  if (fast && precise)
    return cli_usage_error (context, _("--fast and --precise exclude each other"));
  if (window >= 0)
    {
      options.window = window;
      options.mode = SIM_SEGMENT_WINDOW;
    }
  if (max_distance >= 0)
    options.max_distance = max_distance;
  if (high >= 0)
    options.high_threshold = high;
  if (medium >= 0)
    options.medium_threshold = medium;
  if (threads < 0)
    return cli_usage_error (context, _("--threads must be positive"));
  options.n_threads = threads;
  options.fast = fast;
  if (max_distance < -1 || window < -1)
    return cli_usage_error (context, _("--window and --max-distance must not be negative"));
  if (!sim_check_options_validate (&options, &error))
    return cli_usage_error (context, error->message);

  if (exclude_small < 0)
    return cli_usage_error (context, _("--exclude-small must not be negative"));
  if (template_path != NULL && (template_text = cli_load_input (template_path, NULL, NULL, NULL, &error)) == NULL)
    return cli_fail (error);
  if ((snapshot = cli_open_snapshot ()) == NULL)
    return EXIT_ERROR;
  /* An excluded source is a document id or a stored path (a server's name). */
  if (exclude_sources != NULL)
    {
      g_autoptr(SimBackend) backend = sim_backend_open (cli_resolve_store (), NULL, TRUE, &error);
      g_autoptr(GArray) found = backend ? sim_backend_find_documents (backend, (const char *const *) exclude_sources,
                                                                      &error) : NULL;

      if (found == NULL)
        {
          g_printerr ("simhound-cli: --exclude-source: %s\n", error->message);
          return EXIT_ERROR;
        }
      g_array_append_vals (source_ids, found->data, found->len);
    }
  exclusions.quotes = exclude_quotes;
  exclusions.references = exclude_references;
  exclusions.small_words = exclude_small;
  exclusions.source_ids = (const gint64 *) source_ids->data;
  exclusions.n_source_ids = source_ids->len;
  if (output_dir != NULL && g_mkdir_with_parents (output_dir, 0755) != 0)
    {
      g_printerr (_("simhound-cli: cannot create %s: %s\n"), output_dir, g_strerror (errno));
      return EXIT_ERROR;
    }

  /* The store is opened once for every file. */
  written = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (int f = 1; f < argc; f++)
    {
      int status = check_one (snapshot, argv[f], &options, &exclusions, template_text, json, argc > 2, output_dir, written,
                              html_path, pdf_path);

      if (status == EXIT_INTERRUPTED)
        return status;
      if (status != EXIT_OK)
        failed = status;
    }
  return failed;
}
