/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * simhound-cli: the core library plus argument parsing and printing, and the
 * proof that the core needs no UI. main(), the signals and what the
 * commands share (simhound-cli-private.h); each command in a file of its
 * own (simhound-cli-COMMAND.c).
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

#include "sim-server.h"
#include "simhound-cli-private.h"
#include "sim-check.h"
#include "sim-compare.h"
#include "sim-corpus.h"
#include "sim-cross.h"
#include "sim-document.h"
#include "sim-paths.h"
#include "sim-exclude.h"
#include "sim-error.h"
#include "sim-export.h"
#include "sim-store.h"



volatile sig_atomic_t cli_interrupted;
GCancellable *cli_cancellable;
char *cli_store_path;

/* Set while a command only reads: then a signal ends the process at once
 * (a report being built or printed has nothing to keep, and files are
 * written whole or not at all). While the store is written, a signal only
 * cancels, so the current batch is rolled back cleanly. */
volatile sig_atomic_t cli_exit_on_signal;
char *cli_partial_pdf;  /* a PDF being written: removed if a signal ends the process */

static void
on_sigint (int sig)
{
  static const char message[] = "simhound-cli: interrupted\n";

  cli_interrupted = 1;
  if (cli_exit_on_signal)
    {
      if (cli_partial_pdf != NULL)
        unlink (cli_partial_pdf);
      if (write (STDERR_FILENO, message, sizeof message - 1) < 0)
        {
          /* nothing more to do */
        }
      _exit (EXIT_INTERRUPTED);
    }
}

void
cli_poll_interrupt (void)
{
  if (cli_interrupted && !g_cancellable_is_cancelled (cli_cancellable))
    g_cancellable_cancel (cli_cancellable);
}

char *cli_for_terminal (const char *text);

int
cli_fail (GError *error)
{
  g_autofree char *message = NULL;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_printerr (_("simhound-cli: interrupted\n"));
      return EXIT_INTERRUPTED;
    }
  /* Messages name files: a name's escape sequences reach no terminal. */
  message = cli_for_terminal (error->message);
  g_printerr ("simhound-cli: %s\n", message);
  return EXIT_ERROR;
}

int
cli_usage_error (GOptionContext *context,
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
char *
cli_for_terminal (const char *text)
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

const char *
cli_resolve_store (void)
{
  if (cli_store_path == NULL)
    cli_store_path = sim_corpus_dup_default_path ();
  return cli_store_path;
}

SimCorpusSnapshot *
cli_open_snapshot (void)
{
  const char *store = cli_resolve_store ();
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCorpus) corpus = NULL;
  SimCorpusSnapshot *snapshot;

  if (sim_store_location_is_server (store))
    snapshot = sim_server_snapshot_new (store, &error);
  else if (!cli_store_exists ())
    return NULL;
  else if ((corpus = sim_corpus_open (store, sim_store_path_is_read_only (store), &error)) != NULL)
    snapshot = sim_corpus_ref_snapshot (corpus);
  else
    snapshot = NULL;
  if (snapshot == NULL)
    cli_fail (error);
  return snapshot;
}

gboolean
cli_store_exists (void)
{
  const char *store = cli_resolve_store ();
  g_autoptr(GError) error = NULL;

  /* A server says itself what this version does with it. */
  if (sim_store_location_is_server (store))
    {
      g_autoptr(SimCorpus) none = sim_corpus_open (store, TRUE, &error);

      if (none == NULL)
        cli_fail (error);
      return FALSE;
    }
  if (g_file_test (store, G_FILE_TEST_EXISTS))
    return TRUE;
  g_printerr (_("simhound-cli: no store at %s: add reference documents first with "
                "“simhound-cli corpus add PATH”\n"), store);
  return FALSE;
}

/* --paper a4|letter for the PDF report; the locale's paper without it. */
SimPaper cli_paper;

gboolean
cli_parse_paper (const char  *name,
                 const char  *value,
                 gpointer     data,
                 GError     **error)
{
  if (g_ascii_strcasecmp (value, "a4") == 0)
    cli_paper = SIM_PAPER_A4;
  else if (g_ascii_strcasecmp (value, "letter") == 0)
    cli_paper = SIM_PAPER_LETTER;
  else
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, _("--paper is a4 or letter, not “%s”"), value);
      return FALSE;
    }
  return TRUE;
}

GOptionEntry cli_store_entries[] = {
  { "store", 0, 0, G_OPTION_ARG_FILENAME, &cli_store_path,
    N_("The corpus store (default: $SIMHOUND_STORE or the user data folder)"), N_("PATH") },
  { NULL }
};

char *
cli_one_line (const char *text,
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

    return cli_for_terminal (raw);
  }
}


gboolean
cli_parse_mode (const char       *option_name,
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
char *
cli_load_input (const char       *name,
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
      g_autofree char *shown = cli_for_terminal (name);

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
void
cli_add_hidden_text (SimReport              *report,
                     const SimDocumentNotes *notes)
{
  const SimSuspicious hidden = { SIM_SUSPICIOUS_HIDDEN, notes->n_hidden, notes->hidden_start, notes->hidden_end };

  sim_report_add_suspicious (report, &hidden);
}


static void
print_usage (FILE *out)
{
  fprintf (out, "%s",
           _("Usage:\n"
             "  simhound-cli corpus add PATH…          add files and folders (recursive)\n"
             "  simhound-cli corpus rescan FOLDER      import what is new or changed, remove what is gone\n"
             "  simhound-cli corpus list               documents, anchors, size, last update\n"
             "  simhound-cli corpus remove ID|PATH…    remove documents\n"
             "  simhound-cli corpus verify             read every stored text and index file, name the damage\n"
             "  simhound-cli corpus rebuild            mend a damaged store, recompute the fingerprints\n"
             "  simhound-cli corpus set fold-traditional on|off\n"
             "                                         fold traditional Chinese to simplified (default on)\n"
             "  simhound-cli server init|status|upgrade URI   set up a school's corpus server (PostgreSQL)\n"
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
  cli_paper = sim_export_default_paper ();
  /* Installed translations, or the build tree's (SIMHOUND_LOCALEDIR overrides). */
  bindtextdomain (GETTEXT_PACKAGE, sim_paths_locale_dir ());
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  cli_cancellable = g_cancellable_new ();
  signal (SIGINT, on_sigint);
  signal (SIGTERM, on_sigint);

  /* --store may also come before the command. */
  while (argc >= 2 && g_str_has_prefix (argv[1], "--store"))
    {
      if (g_str_has_prefix (argv[1], "--store="))
        {
          g_free (cli_store_path);
          cli_store_path = g_strdup (argv[1] + strlen ("--store="));
          argv[1] = argv[0];
          argc--, argv++;
        }
      else if (g_str_equal (argv[1], "--store") && argc >= 3)
        {
          g_free (cli_store_path);
          cli_store_path = g_strdup (argv[2]);
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
    status = cli_corpus_command (argc - 1, argv + 1);
  else if (argc >= 2 && g_str_equal (argv[1], "server"))
    status = cli_server_command (argc - 1, argv + 1);
  else if (argc >= 2 && g_str_equal (argv[1], "check"))
    {
      cli_exit_on_signal = 1;
      status = cli_check_command (argc - 1, argv + 1);
    }
  else if (argc >= 2 && g_str_equal (argv[1], "cross"))
    {
      cli_exit_on_signal = 1;
      status = cli_cross_command (argc - 1, argv + 1);
    }
  else if (argc >= 2 && g_str_equal (argv[1], "text"))
    {
      cli_exit_on_signal = 1;
      status = cli_text_command (argc - 1, argv + 1);
    }
  else if (argc >= 2 && g_str_equal (argv[1], "compare"))
    {
      cli_exit_on_signal = 1;
      status = cli_compare_command (argc - 1, argv + 1);
    }
  else
    {
      print_usage (stderr);
      status = EXIT_USAGE;
    }
  g_clear_object (&cli_cancellable);
  g_free (cli_store_path);
  return status;
}
