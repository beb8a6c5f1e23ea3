/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * simhound-cli cross: every pair of a class that shares passages.
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

/* Reading a class: Ctrl+C is noticed between documents. */
static void
on_cross_progress (guint64     done,
                   guint64     total,
                   const char *what,
                   gpointer    user_data)
{
  cli_poll_interrupt ();
}

/* simhound-cli cross FILE|DIR…: every pair of the documents that shares
 * passages, largest first, without a corpus and without adding them. */
int
cli_cross_command (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new (_("FILE|DIR… — compare every pair of documents"));
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCrossDocuments) docs = NULL;
  GPtrArray *paths, *texts, *formats;
  GArray *lens, *n_chars;
  g_autoptr(GArray) pairs = NULL;
  gboolean json = FALSE, keep_traditional = FALSE, with_corpus = FALSE;
  g_autofree char *html_path = NULL, *template_path = NULL, *template_text = NULL;
  g_autoptr(GPtrArray) corpus_reports = NULL;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  int status = EXIT_OK;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the pairs as JSON"), NULL },
    { "html", 0, 0, G_OPTION_ARG_FILENAME, &html_path, N_("Also write the pairs as HTML: a matrix of shares and each pair's passages side by side"), N_("FILE") },
    { "with-corpus", 0, 0, G_OPTION_ARG_NONE, &with_corpus, N_("Check each document against the corpus too"), NULL },
    { "template", 0, 0, G_OPTION_ARG_FILENAME, &template_path, N_("The assignment's own text: what essays repeat of it is not a match"), N_("FILE") },
    { "keep-traditional", 0, 0, G_OPTION_ARG_NONE, &keep_traditional, N_("Tell traditional and simplified Chinese apart"), NULL },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return cli_usage_error (context, error->message);
  if (argc < 2)
    return cli_usage_error (context, _("cross needs the documents: files or folders"));
  if (template_path != NULL && (template_text = cli_load_input (template_path, NULL, NULL, NULL, &error)) == NULL)
    return cli_fail (error);
  docs = sim_cross_documents_load ((const char *const *) argv + 1, on_cross_progress, NULL, cli_cancellable, &error);
  if (docs == NULL)
    return cli_fail (error);
  for (guint i = 0; i < docs->failures->len; i++)
    {
      g_autofree char *shown = cli_for_terminal (g_ptr_array_index (docs->failures, i));

      g_printerr ("simhound-cli: %s\n", shown);
      status = EXIT_ERROR;
    }
  paths = docs->paths, texts = docs->texts, formats = docs->formats, lens = docs->lens, n_chars = docs->n_chars;
  if (texts->len < 2)
    {
      g_printerr ("%s", _("simhound-cli: cross needs at least two readable documents\n"));
      return EXIT_ERROR;
    }
  pairs = sim_cross_run ((const char *const *) texts->pdata, (const gsize *) lens->data,
                         (const char *const *) paths->pdata, texts->len, template_text, &options,
                         keep_traditional ? SIM_NORMALIZE_DEFAULT : SIM_NORMALIZE_FOLD_T2S, cli_cancellable, &error);
  if (pairs == NULL)
    return cli_fail (error);
  /* Each document against the store too: its check's similarity and
   * largest sources. */
  if (with_corpus)
    {
      g_autoptr(SimCorpusSnapshot) snapshot = cli_open_snapshot ();

      if (snapshot == NULL)
        return EXIT_ERROR;
      corpus_reports = g_ptr_array_new_with_free_func ((GDestroyNotify) sim_report_unref);
      for (guint i = 0; i < texts->len; i++)
        {
          SimReport *report = sim_check_run (snapshot, g_ptr_array_index (texts, i), g_array_index (lens, gsize, i),
                                             &options, NULL, NULL, cli_cancellable, &error);

          if (report == NULL)
            return cli_fail (error);
          g_ptr_array_add (corpus_reports, report);
        }
    }
  if (html_path != NULL)
    {
      g_autofree char *html = sim_cross_to_html (pairs, (const char *const *) paths->pdata,
                                                 (const char *const *) texts->pdata,
                                                 (const guint32 *) n_chars->data,
                                                 corpus_reports ? (SimReport *const *) corpus_reports->pdata : NULL,
                                                 texts->len);

      if (!g_file_set_contents (html_path, html, -1, &error))
        return cli_fail (error);
    }
  if (json)
    {
      g_autofree char *out = sim_cross_to_json (pairs, (const char *const *) paths->pdata,
                                                (const char *const *) formats->pdata,
                                                (const guint32 *) n_chars->data,
                                                corpus_reports ? (SimReport *const *) corpus_reports->pdata : NULL,
                                                texts->len);

      g_print ("%s\n", out);
      return status;
    }
  g_print (ngettext ("%u pair of %u documents shares passages\n", "%u pairs of %u documents share passages\n",
                     pairs->len), pairs->len, texts->len);
  for (guint i = 0; i < pairs->len; i++)
    {
      const SimCrossPair *pair = &g_array_index (pairs, SimCrossPair, i);
      g_autofree char *a = cli_for_terminal (g_ptr_array_index (paths, pair->a));
      g_autofree char *b = cli_for_terminal (g_ptr_array_index (paths, pair->b));

      g_print (_("  %5.1f%% of %s  ↔  %5.1f%% of %s  (%u characters, %u passages)\n"),
               100 * pair->share_a, a, 100 * pair->share_b, b, pair->shared_a,
               pair->passages->len);
    }
  if (corpus_reports != NULL)
    {
      g_print ("%s", _("Against the reference corpus:\n"));
      for (guint i = 0; i < corpus_reports->len; i++)
        {
          const SimReport *report = g_ptr_array_index (corpus_reports, i);
          g_autofree char *name = cli_for_terminal (g_ptr_array_index (paths, i));
          g_autofree char *largest = sim_report_get_n_sources (report) > 0
                                       ? cli_for_terminal (sim_report_get_source (report, 0)->title) : NULL;

          if (largest != NULL)
            g_print (_("  %5.1f%% of %s  (largest source: %s, %.1f%%)\n"), 100 * sim_report_get_similarity (report),
                     name, largest, 100 * sim_report_get_source (report, 0)->share);
          else
            g_print (_("  %5.1f%% of %s\n"), 100 * sim_report_get_similarity (report), name);
        }
    }
  return status;
}
