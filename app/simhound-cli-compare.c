/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * simhound-cli compare: two documents, without a corpus.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "simhound-cli-private.h"
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
print_comparison (const SimReport  *report,
                  float             similarity,
                  const SimPassage *passages,
                  guint             n,
                  const char       *b_text,
                  gboolean          color)
{
  const char *dim = color ? "\033[2m" : "", *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
  const SimReportSource *b = sim_report_get_source (report, 0);

  g_autofree char *b_path = cli_for_terminal (b->path);

  g_print (g_dngettext (GETTEXT_PACKAGE, "%sSimilarity %.1f%%%s — %u passage of A found in %s\n",
                        "%sSimilarity %.1f%%%s — %u passages of A found in %s\n", n),
           bold, 100 * similarity, reset, n, b_path);
  for (guint i = 0; i < n; i++)
    {
      const SimPassage *p = &passages[i];
      g_autofree char *a_text = sim_report_dup_text (report, p->start, p->end);
      const char *from = g_utf8_offset_to_pointer (b_text, p->source_start);
      g_autofree char *b_part = g_strndup (from, g_utf8_offset_to_pointer (from, p->source_end - p->source_start) - from);
      g_autofree char *a_line = cli_one_line (a_text, 160), *b_line = cli_one_line (b_part, 160);

      g_print ("\n[%u] %s %.0f%% %s(A %u–%u, B %u–%u)%s\n    %s\n    %s← %s%s\n",
               i + 1, p->level == SIM_LEVEL_HIGH ? _("HIGH") : _("MEDIUM"), 100 * p->similarity, dim,
               p->start, p->end, p->source_start, p->source_end, reset, a_line, dim, b_line, reset);
    }
}

int
cli_compare_command (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new (_("A B — compare two documents"));
  g_autoptr(GError) error = NULL;
  g_autoptr(SimReport) report = NULL;
  g_autoptr(SimReportView) view = NULL;
  g_autofree char *a = NULL, *b = NULL, *html_path = NULL, *pdf_path = NULL;
  gsize a_len = 0, b_len = 0;
  SimDocumentNotes a_notes = { 0 };
  gboolean json = FALSE, keep_traditional = FALSE;
  g_autofree char *template_path = NULL, *template_text = NULL;
  g_autoptr(GArray) template_spans = g_array_new (FALSE, FALSE, sizeof (SimExcludedSpan));
  g_autoptr(GArray) shown = g_array_new (FALSE, FALSE, sizeof (SimPassage));
  SimExclusions exclusions = SIM_EXCLUSIONS_INIT;
  const SimNormalizeFlags flags = SIM_NORMALIZE_FOLD_T2S;
  double high = -1, medium = -1;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the passages as JSON"), NULL },
    { "html", 0, 0, G_OPTION_ARG_FILENAME, &html_path, N_("Also write the highlighted report as HTML"), N_("FILE") },
    { "pdf", 0, 0, G_OPTION_ARG_FILENAME, &pdf_path, N_("Also write the highlighted report as PDF"), N_("FILE") },
    { "paper", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) cli_parse_paper, N_("Paper of the PDF: a4 or letter (default: the locale's)"), N_("SIZE") },
    { "high", 0, 0, G_OPTION_ARG_DOUBLE, &high, N_("Similarity from which a passage is high (default 0.70)"), N_("X") },
    { "medium", 0, 0, G_OPTION_ARG_DOUBLE, &medium, N_("Similarity from which a passage is medium (default 0.40)"), N_("X") },
    { "keep-traditional", 0, 0, G_OPTION_ARG_NONE, &keep_traditional, N_("Tell traditional and simplified Chinese apart"), NULL },
    { "template", 0, 0, G_OPTION_ARG_FILENAME, &template_path, N_("The assignment's own text: what A repeats of it is not a match"), N_("FILE") },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return cli_usage_error (context, error->message);
  if (argc != 3)
    return cli_usage_error (context, _("compare needs two documents, A and B (- for standard input)"));
  if (g_str_equal (argv[1], "-") && g_str_equal (argv[2], "-"))
    return cli_usage_error (context, _("- (standard input) may be given only once"));
  if (high >= 0)
    options.high_threshold = high;
  if (medium >= 0)
    options.medium_threshold = medium;
  if (!sim_check_options_validate (&options, &error))
    return cli_usage_error (context, error->message);
  if (pdf_path != NULL)
    cli_partial_pdf = g_strconcat (pdf_path, SIM_EXPORT_PARTIAL_SUFFIX, NULL);
  if ((a = cli_load_input (argv[1], NULL, &a_len, &a_notes, &error)) == NULL ||
      (b = cli_load_input (argv[2], NULL, &b_len, NULL, &error)) == NULL ||
      (template_path != NULL && (template_text = cli_load_input (template_path, NULL, NULL, NULL, &error)) == NULL))
    return cli_fail (error);
  report = sim_compare_run (a, a_len, argv[1], b, b_len, argv[2], &options,
                            keep_traditional ? SIM_NORMALIZE_DEFAULT : flags, cli_cancellable, &error);
  if (report == NULL)
    return cli_fail (error);
  cli_add_hidden_text (report, &a_notes);
  /* What A repeats of the assignment is left out, as a check leaves it out:
   * the view's figure, and the passages it does not leave out. */
  if (template_text != NULL &&
      !sim_exclude_find_template (report, template_text, -1, keep_traditional ? SIM_NORMALIZE_DEFAULT : flags,
                                  template_spans, &error))
    return cli_fail (error);
  exclusions.template_spans = (const SimExcludedSpan *) template_spans->data;
  exclusions.n_template_spans = template_spans->len;
  view = sim_report_view_new (report, &exclusions);
  for (guint i = 0; i < sim_report_get_n_passages (report); i++)
    {
      const SimPassage *p = sim_report_get_passage (report, i);
      guint32 left_out = 0;

      for (guint t = 0; t < template_spans->len; t++)
        {
          const SimExcludedSpan *x = &g_array_index (template_spans, SimExcludedSpan, t);

          if (MIN (x->end, p->end) > MAX (x->start, p->start))
            left_out += MIN (x->end, p->end) - MAX (x->start, p->start);
        }
      if (2 * left_out < p->end - p->start)
        g_array_append_val (shown, *p);
    }
  if ((html_path && !sim_export_html_file (view, html_path, &error)) ||
      (pdf_path && !sim_export_pdf_file_on (view, pdf_path, cli_paper, &error)))
    return cli_fail (error);
  if (json)
    {
      g_autofree char *out = sim_compare_to_json (report, sim_report_view_get_similarity (view),
                                                  (const SimPassage *) shown->data, shown->len, argv[1], argv[2],
                                                  g_utf8_strlen (b, b_len));

      g_print ("%s\n", out);
    }
  else
    print_comparison (report, sim_report_view_get_similarity (view), (const SimPassage *) shown->data, shown->len, b,
                      isatty (STDOUT_FILENO) && g_getenv ("NO_COLOR") == NULL);
  return EXIT_OK;
}
