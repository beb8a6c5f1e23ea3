/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * simhound-cli: the core library plus argument parsing and printing, and the
 * proof that the core needs no UI.
 *
 * Exit codes: 0 done, 1 usage, 2 input or store error (3 interrupted).
 */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "sim-check.h"
#include "sim-compare.h"
#include "sim-corpus.h"
#include "sim-cross.h"
#include "sim-document.h"
#include "sim-paths.h"
#include "sim-exclude.h"
#include "sim-error.h"
#include "sim-export.h"

enum {
  EXIT_OK = 0,
  EXIT_USAGE = 1,
  EXIT_ERROR = 2,
  EXIT_INTERRUPTED = 3,
};

static volatile sig_atomic_t interrupted;
static GCancellable *cancellable;
static char *store_path;

/* Set while a command only reads: then a signal ends the process at once
 * (a report being built or printed has nothing to keep, and files are
 * written whole or not at all). While the store is written, a signal only
 * cancels, so the current batch is rolled back cleanly. */
static volatile sig_atomic_t exit_on_signal;
static char *partial_pdf;  /* a PDF being written: removed if a signal ends the process */

static void
on_sigint (int sig)
{
  static const char message[] = "simhound-cli: interrupted\n";

  interrupted = 1;
  if (exit_on_signal)
    {
      if (partial_pdf != NULL)
        unlink (partial_pdf);
      if (write (STDERR_FILENO, message, sizeof message - 1) < 0)
        {
          /* nothing more to do */
        }
      _exit (EXIT_INTERRUPTED);
    }
}

static void
poll_interrupt (void)
{
  if (interrupted && !g_cancellable_is_cancelled (cancellable))
    g_cancellable_cancel (cancellable);
}

static char *for_terminal (const char *text);

static int
fail (GError *error)
{
  g_autofree char *message = NULL;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_printerr (_("simhound-cli: interrupted\n"));
      return EXIT_INTERRUPTED;
    }
  /* Messages name files: a name's escape sequences reach no terminal. */
  message = for_terminal (error->message);
  g_printerr ("simhound-cli: %s\n", message);
  return EXIT_ERROR;
}

static int
usage_error (GOptionContext *context,
             const char     *message)
{
  g_autofree char *help = g_option_context_get_help (context, TRUE, NULL);

  g_printerr ("simhound-cli: %s\n\n%s", message, help);
  return EXIT_USAGE;
}

/* @text made safe for a terminal: control characters (escape sequences
 * that could clear the screen or retitle the window, a newline in a file
 * name) are shown as \\xNN or \\u{NNNN}; invalid UTF-8 as in
 * g_filename_display_name(). (transfer full) */
static char *
for_terminal (const char *text)
{
  g_autofree char *valid = g_utf8_make_valid (text, -1);
  GString *out = g_string_sized_new (strlen (valid));

  for (const char *p = valid; *p; p = g_utf8_next_char (p))
    {
      const gunichar c = g_utf8_get_char (p);

      if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\x%02x", c);
      else if ((c >= 0x80 && c < 0xa0) || c == 0x2028 || c == 0x2029)
        g_string_append_printf (out, "\\u{%04x}", c);
      else
        g_string_append_unichar (out, c);
    }
  return g_string_free (out, FALSE);
}

static const char *
resolve_store (void)
{
  if (store_path == NULL)
    store_path = sim_corpus_dup_default_path ();
  return store_path;
}

/* --paper a4|letter for the PDF report; the locale's paper without it. */
static SimPaper paper;

static gboolean
parse_paper (const char  *name,
             const char  *value,
             gpointer     data,
             GError     **error)
{
  if (g_ascii_strcasecmp (value, "a4") == 0)
    paper = SIM_PAPER_A4;
  else if (g_ascii_strcasecmp (value, "letter") == 0)
    paper = SIM_PAPER_LETTER;
  else
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, _("--paper is a4 or letter, not “%s”"), value);
      return FALSE;
    }
  return TRUE;
}

static GOptionEntry store_entries[] = {
  { "store", 0, 0, G_OPTION_ARG_FILENAME, &store_path,
    N_("The corpus store (default: $SIMHOUND_STORE or the user data folder)"), N_("PATH") },
  { NULL }
};

/* --------------------------------------------------------------- corpus */

typedef struct {
  gboolean tty;
  gint64   last;
} Progress;

static void
on_import_progress (guint64     done,
                    guint64     total,
                    const char *what,
                    gpointer    user_data)
{
  Progress *p = user_data;
  gint64 now = g_get_monotonic_time ();

  poll_interrupt ();
  if (!p->tty || (now - p->last < 100000 && done < total))
    return;
  p->last = now;
  {
    g_autofree char *base = what ? g_path_get_basename (what) : g_strdup ("");
    g_autofree char *shown = for_terminal (base);

    g_printerr ("\r\033[K%s %" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT " %.50s",
                _("Adding"), done, total, shown);
  }
}

/* Another writer holds the store: say so once, and wait unless interrupted. */
static gboolean
on_store_busy (int      n_tries,
               gpointer user_data)
{
  if (n_tries == 0)
    g_printerr (_("Waiting for another import or removal on this store to finish…\n"));
  return !interrupted;
}

/* corpus add PATH…, or with @rescan corpus rescan FOLDER: the same import,
 * which for a re-scan also removes the documents whose file is gone. */
static int
corpus_add (int argc, char **argv, gboolean rescan)
{
  g_autoptr(GOptionContext) context = g_option_context_new (rescan ? _("FOLDER — import what is new or changed in a folder, remove what is gone")
                                                                   : _("PATH… — add files and folders"));
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCorpus) corpus = NULL;
  g_autoptr(SimImportResult) result = NULL;
  gboolean quiet = FALSE;
  GOptionEntry entries[] = {
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, N_("Do not list files that failed"), NULL },
    { NULL }
  };
  Progress progress = { isatty (STDERR_FILENO), 0 };
  gint64 started;

  g_option_context_add_main_entries (context, store_entries, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return usage_error (context, error->message);
  if (argc < 2)
    return usage_error (context, _("corpus add needs at least one file or folder"));
  if (rescan && argc != 2)
    return usage_error (context, _("corpus rescan takes one folder"));

  corpus = sim_corpus_open (resolve_store (), FALSE, &error);
  if (corpus == NULL)
    return fail (error);
  sim_store_set_busy_func (sim_corpus_get_store (corpus), on_store_busy, NULL);
  started = g_get_monotonic_time ();
  if (rescan)
    result = sim_corpus_rescan (corpus, argv[1], on_import_progress, &progress, cancellable, &error);
  else
    result = sim_corpus_add (corpus, (const char *const *) argv + 1, on_import_progress, &progress,
                             cancellable, &error);
  if (progress.tty)
    g_printerr ("\r\033[K");
  if (result == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_printerr (_("Interrupted: documents added before the last batch are kept.\n"));
      return fail (error);
    }
  {
    const double seconds = (g_get_monotonic_time () - started) / 1e6;

    if (rescan)
      g_print (_("Added %u, updated %u, unchanged %u, removed %u, failed %u (%.1f MB of text in %.1f s) — %s\n"),
               result->n_added, result->n_updated, result->n_unchanged, result->n_removed, result->n_failed,
               result->n_bytes / 1e6, seconds, sim_corpus_get_path (corpus));
    else
      g_print (_("Added %u, updated %u, unchanged %u, failed %u (%.1f MB of text in %.1f s) — %s\n"),
               result->n_added, result->n_updated, result->n_unchanged, result->n_failed,
               result->n_bytes / 1e6, seconds, sim_corpus_get_path (corpus));
  }
  if (!quiet)
    for (guint i = 0; i < result->failures->len; i++)
      {
        g_autofree char *shown = for_terminal (g_ptr_array_index (result->failures, i));

        g_printerr ("  %s\n", shown);
      }
  /* Nothing of what was asked for is in the store: that is a failure (an
   * emptied folder re-scanned is not). */
  if (result->n_added + result->n_updated + result->n_unchanged == 0 && !(rescan && result->n_failed == 0))
    {
      g_printerr (result->n_failed > 0 ? _("simhound-cli: no document could be added\n")
                                       : _("simhound-cli: no documents found to add\n"));
      return EXIT_ERROR;
    }
  return EXIT_OK;
}

static char *
format_time (gint64 unix_time)
{
  g_autoptr(GDateTime) dt = g_date_time_new_from_unix_local (unix_time);

  return dt ? g_date_time_format (dt, "%Y-%m-%d %H:%M") : g_strdup ("-");
}

static int
corpus_list (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new (_("— list the documents of the corpus"));
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCorpus) corpus = NULL;
  g_autoptr(GPtrArray) docs = NULL;
  gint64 n_bytes = 0, n_segments = 0, last = 0;

  g_option_context_add_main_entries (context, store_entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return usage_error (context, error->message);
  if (argc > 1)
    return usage_error (context, _("corpus list takes no arguments"));

  /* Listing never creates a store, and reads one it may not write. */
  if (!g_file_test (resolve_store (), G_FILE_TEST_EXISTS))
    {
      g_printerr (_("simhound-cli: no store at %s: add reference documents first with "
                    "“simhound-cli corpus add PATH”\n"), resolve_store ());
      return EXIT_ERROR;
    }
  corpus = sim_corpus_open (resolve_store (), sim_store_path_is_read_only (resolve_store ()), &error);
  if (corpus == NULL || (docs = sim_corpus_list (corpus, &error)) == NULL)
    return fail (error);
  if (docs->len > 0)
    g_print ("%6s  %9s  %10s  %-16s  %s\n", _("ID"), _("Segments"), _("Size"), _("Updated"), _("Path"));
  for (guint i = 0; i < docs->len; i++)
    {
      const SimStoreDocument *doc = g_ptr_array_index (docs, i);
      g_autofree char *size = g_format_size (doc->n_bytes);
      g_autofree char *when = format_time (doc->updated_at);
      g_autofree char *path = for_terminal (doc->path);

      g_print ("%6" G_GINT64_FORMAT "  %9" G_GINT64_FORMAT "  %10s  %-16s  %s\n",
               doc->id, doc->n_segments, size, when, path);
      n_bytes += doc->n_bytes;
      n_segments += doc->n_segments;
      last = MAX (last, doc->updated_at);
    }
  {
    g_autofree char *size = g_format_size (n_bytes);
    g_autofree char *when = last ? format_time (last) : g_strdup (_("never"));

    g_print (_("%u documents, %lld segments, %s, last update %s — %s\n"),
             docs->len, (long long) n_segments, size, when, sim_corpus_get_path (corpus));
  }
  return EXIT_OK;
}

static int
corpus_remove (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new (_("ID|PATH… — remove documents"));
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCorpus) corpus = NULL;
  guint n_removed = 0;

  g_option_context_add_main_entries (context, store_entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return usage_error (context, error->message);
  if (argc < 2)
    return usage_error (context, _("corpus remove needs at least one id or path"));

  corpus = sim_corpus_open (resolve_store (), FALSE, &error);
  if (corpus == NULL)
    return fail (error);
  sim_store_set_busy_func (sim_corpus_get_store (corpus), on_store_busy, NULL);
  if (!sim_corpus_remove (corpus, (const char *const *) argv + 1, &n_removed, &error))
    return fail (error);
  g_print (_("Removed %u documents\n"), n_removed);
  return EXIT_OK;
}

static int
corpus_set (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new (_("fold-traditional on|off — change a corpus setting"));
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCorpus) corpus = NULL;
  gboolean on;

  g_option_context_add_main_entries (context, store_entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return usage_error (context, error->message);
  if (argc != 3 || !g_str_equal (argv[1], "fold-traditional") ||
      !(g_str_equal (argv[2], "on") || g_str_equal (argv[2], "off")))
    return usage_error (context, _("corpus set takes “fold-traditional on” or “fold-traditional off”"));
  on = g_str_equal (argv[2], "on");
  corpus = sim_corpus_open (resolve_store (), FALSE, &error);
  if (corpus == NULL ||
      !sim_corpus_set_flags (corpus, on ? SIM_NORMALIZE_FOLD_T2S : SIM_NORMALIZE_DEFAULT, &error))
    return fail (error);
  g_print (on ? _("Traditional Chinese now folds to simplified — %s\n")
              : _("Traditional and simplified Chinese are now told apart — %s\n"), sim_corpus_get_path (corpus));
  return EXIT_OK;
}

/* Each line of @lines (may be NULL) after @label, made safe for a terminal. */
static void
print_lines (const char *label,
             GPtrArray  *lines)
{
  for (guint i = 0; lines != NULL && i < lines->len; i++)
    {
      g_autofree char *shown = for_terminal (g_ptr_array_index (lines, i));

      g_print ("%s: %s\n", label, shown);
    }
}

/* corpus verify, or with @repair corpus rebuild: the damage found, and
 * what was done about it. */
static int
corpus_repair (int argc, char **argv, gboolean repair)
{
  g_autoptr(GOptionContext) context = g_option_context_new (
    repair ? _("— mend the store: damaged texts read again or set aside, every fingerprint recomputed")
           : _("— read every stored text and index file and say what is damaged"));
  g_autoptr(GError) error = NULL;
  g_autoptr(SimRepairResult) result = NULL;

  g_option_context_add_main_entries (context, store_entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return usage_error (context, error->message);
  if (argc > 1)
    return usage_error (context, repair ? _("corpus rebuild takes no arguments") : _("corpus verify takes no arguments"));
  if (!g_file_test (resolve_store (), G_FILE_TEST_EXISTS))
    {
      g_printerr (_("simhound-cli: no store at %s\n"), resolve_store ());
      return EXIT_ERROR;
    }
  result = repair ? sim_corpus_rebuild (resolve_store (), &error) : sim_corpus_verify (resolve_store (), &error);
  if (result == NULL)
    return fail (error);
  if (!repair)
    print_lines (_("damaged"), result->damaged);
  print_lines (_("read again from its unchanged file"), result->healed);
  print_lines (_("set aside (add the file again to restore it)"), result->set_aside);
  print_lines (_("the database was damaged and copied anew"), result->salvaged);
  if (result->index_damage != NULL)
    {
      g_autoptr(GPtrArray) one = g_ptr_array_new ();

      g_ptr_array_add (one, result->index_damage);
      print_lines (_("database, index files or statistics"), one);
    }
  if (repair)
    g_print (_("Rebuilt the fingerprints of %s\n"), resolve_store ());
  else if (result->damaged->len > 0 || result->index_damage != NULL)
    {
      g_print (_("The store %s is damaged: “simhound-cli corpus rebuild” mends it\n"), resolve_store ());
      return EXIT_ERROR;
    }
  else
    g_print (_("%u texts read whole; the store %s is sound\n"), result->n_sound, resolve_store ());
  return EXIT_OK;
}

static int
corpus_command (int argc, char **argv)
{
  if (argc >= 2 && g_str_equal (argv[1], "add"))
    return corpus_add (argc - 1, argv + 1, FALSE);
  if (argc >= 2 && g_str_equal (argv[1], "rescan"))
    return corpus_add (argc - 1, argv + 1, TRUE);
  if (argc >= 2 && g_str_equal (argv[1], "list"))
    return corpus_list (argc - 1, argv + 1);
  if (argc >= 2 && g_str_equal (argv[1], "remove"))
    return corpus_remove (argc - 1, argv + 1);
  if (argc >= 2 && g_str_equal (argv[1], "set"))
    return corpus_set (argc - 1, argv + 1);
  if (argc >= 2 && (g_str_equal (argv[1], "rebuild") || g_str_equal (argv[1], "verify")))
    return corpus_repair (argc - 1, argv + 1, g_str_equal (argv[1], "rebuild"));
  g_printerr (_("Usage: simhound-cli corpus add|rescan|list|remove|set|rebuild|verify …\n"));
  return EXIT_USAGE;
}

/* ---------------------------------------------------------------- check */

static void
on_check_progress (guint64     done,
                   guint64     total,
                   const char *what,
                   gpointer    user_data)
{
  poll_interrupt ();
}

static char *
one_line (const char *text,
          guint       max_chars)
{
  g_autoptr(GString) s = g_string_new (NULL);
  guint n = 0;
  gboolean space = FALSE;

  for (const char *p = text; *p && n < max_chars; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_isspace (c))
        {
          space = TRUE;
          continue;
        }
      if (space && s->len > 0)
        {
          g_string_append_c (s, ' ');
          n++;
        }
      space = FALSE;
      g_string_append_unichar (s, c);
      n++;
    }
  if (g_utf8_strlen (text, -1) > max_chars)
    g_string_append (s, "…");
  {
    g_autofree char *raw = g_string_free (g_steal_pointer (&s), FALSE);

    return for_terminal (raw);
  }
}

static void
print_report (const SimReport *report,
              gboolean         color)
{
  const SimReportSettings *settings = sim_report_get_settings (report);
  const char *red = color ? "\033[1;41;97m" : "", *yellow = color ? "\033[30;43m" : "";
  const char *reset = color ? "\033[0m" : "", *dim = color ? "\033[2m" : "", *bold = color ? "\033[1m" : "";
  guint number = 0;

  g_print (_("%sSimilarity %.1f%%%s — %u high, %u medium, %u low segments; %u documents, %s mode, %s search\n"),
           bold, 100 * sim_report_get_similarity (report), reset,
           sim_report_count_level (report, SIM_LEVEL_HIGH),
           sim_report_count_level (report, SIM_LEVEL_MEDIUM),
           sim_report_count_level (report, SIM_LEVEL_LOW),
           settings->n_documents, settings->mode, settings->fast ? "fast" : "precise");
  if (settings->n_documents == 0)
    g_print (_("The corpus is empty: add reference documents with “simhound-cli corpus add PATH”.\n"));
  {
    const SimRatios *r = sim_report_get_ratios (report);

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
      gboolean excluded;

      if (seg->level == SIM_LEVEL_LOW || seg->n_matches == 0)
        continue;
      m = sim_report_get_match (report, seg->first_match);
      src = sim_report_get_source (report, m->source);
      seg_text = sim_report_dup_text (report, seg->start, seg->end);
      seg_line = one_line (seg_text, 160);
      src_line = one_line (m->excerpt, 160);
      src_path = for_terminal (src->path);
      excluded = sim_report_is_segment_excluded (report, i);
      g_print ("\n[%u] %s %.0f%% %s(%s%s%s %u, %s %u–%u)%s\n    %s%s%s\n    %s← %s%s\n    %s%s%s\n",
               ++number, seg->level == SIM_LEVEL_HIGH ? _("HIGH") : _("MEDIUM"),
               100 * seg->similarity, dim,
               /* Left out by the chosen exclusions: shown, not counted. */
               excluded ? _("excluded, ") : "",
               /* Its level is that of the reused passage around it. */
               seg->from_passage ? _("in a reused passage, ") : "",
               _("distance"), seg->distance, _("chars"),
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
          g_autofree char *path = NULL;

          if (src->n_segments == 0)
            continue;
          path = for_terminal (src->path);
          g_print ("  %5.1f%%  %3u  %s\n", 100 * src->share, src->n_segments, path);
        }
    }
}

static gboolean
parse_mode (const char       *option_name,
            const char       *value,
            gpointer          data,
            GError          **error)
{
  SimCheckOptions *options = data;

  if (g_str_equal (value, "sentence"))
    options->mode = SIM_SEGMENT_SENTENCE;
  else if (g_str_equal (value, "window"))
    options->mode = SIM_SEGMENT_WINDOW;
  else
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   _("--mode must be “sentence” or “window”, not “%s”"), value);
      return FALSE;
    }
  return TRUE;
}

/* The text of a file, or of standard input for "-", and what reading it
 * left out (may be NULL). (transfer full) */
static char *
load_input (const char       *name,
            SimFormat        *format,
            gsize            *len,
            SimDocumentNotes *out_notes,
            GError          **error)
{
  SimDocumentNotes notes = { 0 };
  gsize n = 0;
  char *text;

  if (g_str_equal (name, "-"))
    {
      g_autofree char *data = sim_text_read_fd (STDIN_FILENO, _("standard input"), &n, error);

      if (data == NULL)
        return NULL;
      text = sim_document_extract (data, n, _("standard input"), format, &n, &notes, error);
    }
  else
    text = sim_document_load (name, format, &n, &notes, error);
  if (len != NULL)
    *len = n;
  if (out_notes != NULL)
    *out_notes = notes;
  if (text != NULL && (notes.n_repaired > 0 || notes.n_nuls > 0))
    {
      g_autofree char *shown = for_terminal (name);

      if (notes.n_repaired > 0)
        g_printerr (_("simhound-cli: %s: %u invalid UTF-8 sequences were replaced with U+FFFD; "
                      "offsets refer to the repaired text\n"), shown, notes.n_repaired);
      if (notes.n_nuls > 0)
        g_printerr (_("simhound-cli: %s: %u NUL bytes were replaced with U+FFFD; "
                      "offsets refer to the repaired text\n"), shown, notes.n_nuls);
    }
  return text;
}

/* The hidden text reading the article left out, in its report. */
static void
add_hidden_text (SimReport              *report,
                 const SimDocumentNotes *notes)
{
  const SimSuspicious hidden = { SIM_SUSPICIOUS_HIDDEN, notes->n_hidden, notes->hidden_start, notes->hidden_end };

  sim_report_add_suspicious (report, &hidden);
}

/* Checks one input: @name is a path or "-". With @batch, a JSON report is
 * one line (JSON Lines) and a text report starts with the file's name. */
static int
check_one (SimCorpusSnapshot     *snapshot,
           const char            *name,
           const SimCheckOptions *options,
           const SimExclusions   *exclusions,
           gboolean               json,
           gboolean               batch,
           const char            *output_dir,
           GHashTable            *written,
           const char            *html_path,
           const char            *pdf_path)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimReport) report = NULL;
  g_autofree char *text = NULL;
  gsize len = 0;
  SimFormat format = SIM_FORMAT_TEXT;
  SimDocumentNotes notes = { 0 };

  if ((text = load_input (name, &format, &len, &notes, &error)) == NULL)
    return fail (error);

  report = sim_check_run (snapshot, text, len, options, on_check_progress, NULL, cancellable, &error);
  if (report == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_prefix_error (&error, "%s: ", name);
      return fail (error);
    }
  sim_report_set_format (report, sim_format_to_string (format));
  add_hidden_text (report, &notes);
  if (!g_str_equal (name, "-"))
    {
      g_autofree char *base = g_path_get_basename (name);
      g_autofree char *shown = g_filename_display_name (base);

      sim_report_set_name (report, shown);
    }
  if (!sim_exclude_apply (report, exclusions, &error))
    return fail (error);
  if ((html_path && !sim_export_html_file (report, html_path, &error)) ||
      (pdf_path && !sim_export_pdf_file_on (report, pdf_path, paper, &error)))
    return fail (error);

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
      out = sim_report_to_json (report, name, TRUE);
      if (!g_file_set_contents (file, out, -1, &error))
        return fail (error);
    }
  else if (json)
    {
      g_autofree char *out = sim_report_to_json (report, batch ? name : NULL, !batch);

      g_print ("%s\n", out);
    }
  else
    {
      if (batch)
        {
          g_autofree char *shown = for_terminal (name);

          g_print ("== %s ==\n", shown);
        }
      print_report (report, isatty (STDOUT_FILENO) && g_getenv ("NO_COLOR") == NULL);
    }
  return EXIT_OK;
}

static int
check_command (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new (_("FILE|- — check an article"));
  g_autoptr(GOptionGroup) group = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCorpus) corpus = NULL;
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
    { "mode", 0, 0, G_OPTION_ARG_CALLBACK, parse_mode, N_("Segments: sentence (default) or window"), N_("MODE") },
    { "window", 0, 0, G_OPTION_ARG_INT, &window, N_("Window size in characters (default 30; 13 for papers); implies --mode window"), N_("N") },
    { "max-distance", 'k', 0, G_OPTION_ARG_INT, &max_distance, N_("Hamming distance bound of the SimHash lookup (default 0)"), N_("K") },
    { "fast", 0, 0, G_OPTION_ARG_NONE, &fast, N_("Stop at the first confirmed source of each segment"), NULL },
    { "precise", 0, 0, G_OPTION_ARG_NONE, &precise, N_("Confirm every candidate and keep the best (default)"), NULL },
    { "high", 0, 0, G_OPTION_ARG_DOUBLE, &high, N_("Similarity from which a segment is high (default 0.70)"), N_("X") },
    { "medium", 0, 0, G_OPTION_ARG_DOUBLE, &medium, N_("Similarity from which a segment is medium (default 0.40)"), N_("X") },
    { "threads", 0, 0, G_OPTION_ARG_INT, &threads, N_("Worker threads (default: one per core)"), N_("N") },
    { "html", 0, 0, G_OPTION_ARG_FILENAME, &html_path, N_("Also write the highlighted report as HTML"), N_("FILE") },
    { "pdf", 0, 0, G_OPTION_ARG_FILENAME, &pdf_path, N_("Also write the highlighted report as PDF"), N_("FILE") },
    { "paper", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) parse_paper, N_("Paper of the PDF: a4 or letter (default: the locale's)"), N_("SIZE") },
    { "output-dir", 'o', 0, G_OPTION_ARG_FILENAME, &output_dir, N_("Write one NAME.json per input into DIR (NAME-2.json for a second input of that name)"), N_("DIR") },
    { NULL }
  };

  group = g_option_group_new ("check", "", "", &options, NULL);
  g_option_group_add_entries (group, entries);
  g_option_group_set_translation_domain (group, GETTEXT_PACKAGE);
  g_option_context_set_main_group (context, g_steal_pointer (&group));
  g_option_context_add_main_entries (context, store_entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return usage_error (context, error->message);
  if (argc < 2)
    return usage_error (context, _("check needs a FILE, several, or - for standard input"));
  for (int f = 1, n_stdin = 0; f < argc; f++)
    if (g_str_equal (argv[f], "-") && ++n_stdin > 1)
      return usage_error (context, _("- (standard input) may be given only once"));
  if (argc > 2 && (html_path || pdf_path))
    return usage_error (context, _("--html and --pdf take one FILE at a time"));
  if (pdf_path != NULL)
    partial_pdf = g_strconcat (pdf_path, SIM_EXPORT_PARTIAL_SUFFIX, NULL);
  if (fast && precise)
    return usage_error (context, _("--fast and --precise exclude each other"));
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
    return usage_error (context, _("--threads must be positive"));
  options.n_threads = threads;
  options.fast = fast;
  if (max_distance < -1 || window < -1)
    return usage_error (context, _("--window and --max-distance must not be negative"));
  if (!sim_check_options_validate (&options, &error))
    return usage_error (context, error->message);

  if (!g_file_test (resolve_store (), G_FILE_TEST_EXISTS))
    {
      g_printerr (_("simhound-cli: no store at %s: add reference documents first with "
                    "“simhound-cli corpus add PATH”\n"), resolve_store ());
      return EXIT_ERROR;
    }
  if (exclude_small < 0)
    return usage_error (context, _("--exclude-small must not be negative"));
  if (template_path != NULL && (template_text = load_input (template_path, NULL, NULL, NULL, &error)) == NULL)
    return fail (error);
  corpus = sim_corpus_open (resolve_store (), sim_store_path_is_read_only (resolve_store ()), &error);
  if (corpus == NULL)
    return fail (error);
  snapshot = sim_corpus_ref_snapshot (corpus);
  /* An excluded source is a document id or a stored path. */
  for (guint i = 0; exclude_sources && exclude_sources[i]; i++)
    {
      const char *arg = exclude_sources[i];
      g_autofree char *abs = g_canonicalize_filename (arg, NULL);
      char *end = NULL;
      const gint64 id = g_ascii_strtoll (arg, &end, 10);
      gboolean found = FALSE;

      for (guint d = 0; d < sim_corpus_snapshot_get_n_docs (snapshot); d++)
        {
          const SimCorpusDoc *doc = sim_corpus_snapshot_get_doc (snapshot, d);

          if ((end != arg && *end == '\0' && doc->id == id) || g_str_equal (doc->path, abs))
            {
              g_array_append_val (source_ids, doc->id);
              found = TRUE;
            }
        }
      if (!found)
        {
          g_autofree char *shown = for_terminal (arg);

          g_printerr (_("simhound-cli: --exclude-source %s: no such document in the corpus "
                        "(“simhound-cli corpus list” shows ids and paths)\n"), shown);
          return EXIT_ERROR;
        }
    }
  exclusions.quotes = exclude_quotes;
  exclusions.references = exclude_references;
  exclusions.small_words = exclude_small;
  exclusions.source_ids = (const gint64 *) source_ids->data;
  exclusions.n_source_ids = source_ids->len;
  exclusions.template_text = template_text;
  exclusions.flags = sim_corpus_snapshot_get_flags (snapshot);
  if (output_dir != NULL && g_mkdir_with_parents (output_dir, 0755) != 0)
    {
      g_printerr (_("simhound-cli: cannot create %s: %s\n"), output_dir, g_strerror (errno));
      return EXIT_ERROR;
    }

  /* The store is opened once for every file. */
  written = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (int f = 1; f < argc; f++)
    {
      int status = check_one (snapshot, argv[f], &options, &exclusions, json, argc > 2, output_dir, written,
                              html_path, pdf_path);

      if (status == EXIT_INTERRUPTED)
        return status;
      if (status != EXIT_OK)
        failed = status;
    }
  return failed;
}

/* -------------------------------------------------------------- compare */


static void
print_comparison (const SimReport *report,
                  const char      *b_text,
                  gboolean         color)
{
  const char *dim = color ? "\033[2m" : "", *bold = color ? "\033[1m" : "", *reset = color ? "\033[0m" : "";
  const SimReportSource *b = sim_report_get_source (report, 0);

  const guint n = sim_report_get_n_passages (report);

  g_autofree char *b_path = for_terminal (b->path);

  g_print (g_dngettext (GETTEXT_PACKAGE, "%sSimilarity %.1f%%%s — %u passage of A found in %s\n",
                        "%sSimilarity %.1f%%%s — %u passages of A found in %s\n", n),
           bold, 100 * sim_report_get_similarity (report), reset, n, b_path);
  for (guint i = 0; i < sim_report_get_n_passages (report); i++)
    {
      const SimPassage *p = sim_report_get_passage (report, i);
      g_autofree char *a_text = sim_report_dup_text (report, p->start, p->end);
      const char *from = g_utf8_offset_to_pointer (b_text, p->source_start);
      g_autofree char *b_part = g_strndup (from, g_utf8_offset_to_pointer (from, p->source_end - p->source_start) - from);
      g_autofree char *a_line = one_line (a_text, 160), *b_line = one_line (b_part, 160);

      g_print ("\n[%u] %s %.0f%% %s(A %u–%u, B %u–%u)%s\n    %s\n    %s← %s%s\n",
               i + 1, p->level == SIM_LEVEL_HIGH ? _("HIGH") : _("MEDIUM"), 100 * p->similarity, dim,
               p->start, p->end, p->source_start, p->source_end, reset, a_line, dim, b_line, reset);
    }
}

static int
compare_command (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new (_("A B — compare two documents"));
  g_autoptr(GError) error = NULL;
  g_autoptr(SimReport) report = NULL;
  g_autofree char *a = NULL, *b = NULL, *html_path = NULL, *pdf_path = NULL;
  gsize a_len = 0, b_len = 0;
  SimDocumentNotes a_notes = { 0 };
  gboolean json = FALSE, keep_traditional = FALSE;
  double high = -1, medium = -1;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the passages as JSON"), NULL },
    { "html", 0, 0, G_OPTION_ARG_FILENAME, &html_path, N_("Also write the highlighted report as HTML"), N_("FILE") },
    { "pdf", 0, 0, G_OPTION_ARG_FILENAME, &pdf_path, N_("Also write the highlighted report as PDF"), N_("FILE") },
    { "paper", 0, 0, G_OPTION_ARG_CALLBACK, (gpointer) parse_paper, N_("Paper of the PDF: a4 or letter (default: the locale's)"), N_("SIZE") },
    { "high", 0, 0, G_OPTION_ARG_DOUBLE, &high, N_("Similarity from which a passage is high (default 0.70)"), N_("X") },
    { "medium", 0, 0, G_OPTION_ARG_DOUBLE, &medium, N_("Similarity from which a passage is medium (default 0.40)"), N_("X") },
    { "keep-traditional", 0, 0, G_OPTION_ARG_NONE, &keep_traditional, N_("Tell traditional and simplified Chinese apart"), NULL },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return usage_error (context, error->message);
  if (argc != 3)
    return usage_error (context, _("compare needs two documents, A and B (- for standard input)"));
  if (g_str_equal (argv[1], "-") && g_str_equal (argv[2], "-"))
    return usage_error (context, _("- (standard input) may be given only once"));
  if (high >= 0)
    options.high_threshold = high;
  if (medium >= 0)
    options.medium_threshold = medium;
  if (!sim_check_options_validate (&options, &error))
    return usage_error (context, error->message);
  if (pdf_path != NULL)
    partial_pdf = g_strconcat (pdf_path, SIM_EXPORT_PARTIAL_SUFFIX, NULL);
  if ((a = load_input (argv[1], NULL, &a_len, &a_notes, &error)) == NULL ||
      (b = load_input (argv[2], NULL, &b_len, NULL, &error)) == NULL)
    return fail (error);
  report = sim_compare_run (a, a_len, argv[1], b, b_len, argv[2], &options,
                            keep_traditional ? SIM_NORMALIZE_DEFAULT : SIM_NORMALIZE_FOLD_T2S,
                            cancellable, &error);
  if (report == NULL)
    return fail (error);
  add_hidden_text (report, &a_notes);
  if ((html_path && !sim_export_html_file (report, html_path, &error)) ||
      (pdf_path && !sim_export_pdf_file_on (report, pdf_path, paper, &error)))
    return fail (error);
  if (json)
    {
      g_autofree char *out = sim_compare_to_json (report, argv[1], argv[2], g_utf8_strlen (b, b_len));

      g_print ("%s\n", out);
    }
  else
    print_comparison (report, b, isatty (STDOUT_FILENO) && g_getenv ("NO_COLOR") == NULL);
  return EXIT_OK;
}

/* ----------------------------------------------------------------- main */

/* simhound-cli text FILE|-: exactly the text check and corpus add see, so
 * any offset of a report can be looked up. On a terminal, control
 * characters other than line ends and tabs are shown escaped. */
static int
text_command (int    argc,
              char **argv)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  gsize len = 0;

  if (argc != 2)
    {
      g_printerr ("%s", _("Usage: simhound-cli text FILE|-\n"));
      return EXIT_USAGE;
    }
  if ((text = load_input (argv[1], NULL, &len, NULL, &error)) == NULL)
    return fail (error);
  if (isatty (STDOUT_FILENO))
    {
      g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

      for (guint i = 0; lines[i]; i++)
        {
          g_autofree char *shown = for_terminal (lines[i]);

          g_print (lines[i + 1] ? "%s\n" : "%s", shown);
        }
    }
  else if (fwrite (text, 1, len, stdout) != len)
    return EXIT_ERROR;
  return EXIT_OK;
}

/* ---------------------------------------------------------------- cross */

/* Reading a class: Ctrl+C is noticed between documents. */
static void
on_cross_progress (guint64     done,
                   guint64     total,
                   const char *what,
                   gpointer    user_data)
{
  poll_interrupt ();
}

/* simhound-cli cross FILE|DIR…: every pair of the documents that shares
 * passages, largest first, without a corpus and without adding them. */
static int
cross_command (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new (_("FILE|DIR… — compare every pair of documents"));
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCrossDocuments) docs = NULL;
  GPtrArray *paths, *texts, *formats;
  GArray *lens, *n_chars;
  g_autoptr(GArray) pairs = NULL;
  gboolean json = FALSE, keep_traditional = FALSE, with_corpus = FALSE;
  g_autofree char *html_path = NULL;
  g_autoptr(GPtrArray) corpus_reports = NULL;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  int status = EXIT_OK;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print the pairs as JSON"), NULL },
    { "html", 0, 0, G_OPTION_ARG_FILENAME, &html_path, N_("Also write the pairs as HTML: a matrix of shares and each pair's passages side by side"), N_("FILE") },
    { "with-corpus", 0, 0, G_OPTION_ARG_NONE, &with_corpus, N_("Check each document against the corpus too"), NULL },
    { "keep-traditional", 0, 0, G_OPTION_ARG_NONE, &keep_traditional, N_("Tell traditional and simplified Chinese apart"), NULL },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return usage_error (context, error->message);
  if (argc < 2)
    return usage_error (context, _("cross needs the documents: files or folders"));
  docs = sim_cross_documents_load ((const char *const *) argv + 1, on_cross_progress, NULL, cancellable, &error);
  if (docs == NULL)
    return fail (error);
  for (guint i = 0; i < docs->failures->len; i++)
    {
      g_autofree char *shown = for_terminal (g_ptr_array_index (docs->failures, i));

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
                         (const char *const *) paths->pdata, texts->len, &options,
                         keep_traditional ? SIM_NORMALIZE_DEFAULT : SIM_NORMALIZE_FOLD_T2S, cancellable, &error);
  if (pairs == NULL)
    return fail (error);
  /* Each document against the store too: its check's similarity and
   * largest sources. */
  if (with_corpus)
    {
      g_autoptr(SimCorpus) corpus = NULL;
      g_autoptr(SimCorpusSnapshot) snapshot = NULL;

      if (!g_file_test (resolve_store (), G_FILE_TEST_EXISTS))
        {
          g_printerr (_("simhound-cli: no store at %s: add reference documents first with "
                        "“simhound-cli corpus add PATH”\n"), resolve_store ());
          return EXIT_ERROR;
        }
      corpus = sim_corpus_open (resolve_store (), sim_store_path_is_read_only (resolve_store ()), &error);
      if (corpus == NULL)
        return fail (error);
      snapshot = sim_corpus_ref_snapshot (corpus);
      corpus_reports = g_ptr_array_new_with_free_func ((GDestroyNotify) sim_report_unref);
      for (guint i = 0; i < texts->len; i++)
        {
          SimReport *report = sim_check_run (snapshot, g_ptr_array_index (texts, i), g_array_index (lens, gsize, i),
                                             &options, NULL, NULL, cancellable, &error);

          if (report == NULL)
            return fail (error);
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
        return fail (error);
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
      g_autofree char *a = for_terminal (g_ptr_array_index (paths, pair->a));
      g_autofree char *b = for_terminal (g_ptr_array_index (paths, pair->b));

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
          g_autofree char *name = for_terminal (g_ptr_array_index (paths, i));
          g_autofree char *largest = sim_report_get_n_sources (report) > 0
                                       ? for_terminal (sim_report_get_source (report, 0)->title) : NULL;

          if (largest != NULL)
            g_print (_("  %5.1f%% of %s  (largest source: %s, %.1f%%)\n"), 100 * sim_report_get_similarity (report),
                     name, largest, 100 * sim_report_get_source (report, 0)->share);
          else
            g_print (_("  %5.1f%% of %s\n"), 100 * sim_report_get_similarity (report), name);
        }
    }
  return status;
}

static void
print_usage (FILE *out)
{
  fprintf (out, "%s",
           _("Usage:\n"
             "  simhound-cli corpus add PATH…          add files and folders (recursive)\n"
             "  simhound-cli corpus rescan FOLDER      import what is new or changed, remove what is gone\n"
             "  simhound-cli corpus list               documents, segments, size, last update\n"
             "  simhound-cli corpus remove ID|PATH…    remove documents\n"
             "  simhound-cli corpus rebuild            recompute the fingerprints (mends a damaged store)\n"
             "  simhound-cli corpus set fold-traditional on|off\n"
             "                                         fold traditional Chinese to simplified (default on)\n"
             "  simhound-cli check [OPTION…] FILE…|-   check articles against the corpus\n"
             "  simhound-cli compare [OPTION…] A B     compare two documents, without a corpus\n"
             "  simhound-cli cross FILE|DIR…           every pair of the documents that shares passages\n"
             "  simhound-cli text FILE|-               the text read from a file (.txt, .md, .html, .docx,\n"
             "                                         .odt, .pdf, .doc), as check and corpus add see it\n"
             "\n"
             "Every command takes --store PATH (default: $SIMHOUND_STORE, else\n"
             "$XDG_DATA_HOME/simhound/corpus.db); “simhound-cli COMMAND --help” lists its options.\n"
             "Exit codes: 0 done, 1 usage, 2 input or store error, 3 interrupted.\n"));
}

int
main (int argc, char **argv)
{
  int status;

  setlocale (LC_ALL, "");
  paper = sim_export_default_paper ();
  /* Installed translations, or the build tree's (SIMHOUND_LOCALEDIR overrides). */
  bindtextdomain (GETTEXT_PACKAGE, sim_paths_locale_dir ());
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  cancellable = g_cancellable_new ();
  signal (SIGINT, on_sigint);
  signal (SIGTERM, on_sigint);

  /* --store may also come before the command. */
  while (argc >= 2 && g_str_has_prefix (argv[1], "--store"))
    {
      if (g_str_has_prefix (argv[1], "--store="))
        {
          g_free (store_path);
          store_path = g_strdup (argv[1] + strlen ("--store="));
          argv[1] = argv[0];
          argc--, argv++;
        }
      else if (g_str_equal (argv[1], "--store") && argc >= 3)
        {
          g_free (store_path);
          store_path = g_strdup (argv[2]);
          argv[2] = argv[0];
          argc -= 2, argv += 2;
        }
      else
        break;
    }

  if (argc >= 2 && (g_str_equal (argv[1], "--help") || g_str_equal (argv[1], "-h")))
    {
      print_usage (stdout);
      status = EXIT_OK;
    }
  else if (argc >= 2 && g_str_equal (argv[1], "--version"))
    {
      g_print ("simhound-cli %s\n", PACKAGE_VERSION);
      status = EXIT_OK;
    }
  else if (argc >= 2 && g_str_equal (argv[1], "corpus"))
    status = corpus_command (argc - 1, argv + 1);
  else if (argc >= 2 && g_str_equal (argv[1], "check"))
    {
      exit_on_signal = 1;
      status = check_command (argc - 1, argv + 1);
    }
  else if (argc >= 2 && g_str_equal (argv[1], "cross"))
    {
      exit_on_signal = 1;
      status = cross_command (argc - 1, argv + 1);
    }
  else if (argc >= 2 && g_str_equal (argv[1], "text"))
    {
      exit_on_signal = 1;
      status = text_command (argc - 1, argv + 1);
    }
  else if (argc >= 2 && g_str_equal (argv[1], "compare"))
    {
      exit_on_signal = 1;
      status = compare_command (argc - 1, argv + 1);
    }
  else
    {
      print_usage (stderr);
      status = EXIT_USAGE;
    }
  g_clear_object (&cancellable);
  g_free (store_path);
  return status;
}
