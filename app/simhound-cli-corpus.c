/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * simhound-cli corpus add, rescan, list, remove, set, verify and rebuild.
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
#include "sim-store.h"

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

  cli_poll_interrupt ();
  if (!p->tty || (now - p->last < 100000 && done < total))
    return;
  p->last = now;
  {
    g_autofree char *base = what ? g_path_get_basename (what) : g_strdup ("");
    g_autofree char *shown = cli_for_terminal (base);

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
  return !cli_interrupted;
}

/* corpus add PATH…, or with @rescan corpus rescan FOLDER: the same import,
 * which for a re-scan also removes the documents whose file is gone. */
static int
corpus_add (int argc, char **argv, gboolean rescan)
{
  g_autoptr(GOptionContext) context = g_option_context_new (rescan ? _("FOLDER — import what is new or changed in a folder, remove what is gone")
                                                                   : _("PATH… — add files and folders"));
  g_autoptr(GError) error = NULL;
  g_autoptr(SimBackend) backend = NULL;
  g_autoptr(SimImportResult) result = NULL;
  const char *where = NULL;
  gboolean quiet = FALSE;
  g_autofree char *collection = NULL;
  GOptionEntry entries[] = {
    { "quiet", 'q', 0, G_OPTION_ARG_NONE, &quiet, N_("Do not list files that failed"), NULL },
    { "collection", 0, 0, G_OPTION_ARG_STRING, &collection,
      N_("On a corpus server: the collection the files join (default: “default”)"), N_("NAME") },
    { NULL }
  };
  Progress progress = { isatty (STDERR_FILENO), 0 };
  gint64 started;

  g_option_context_add_main_entries (context, cli_store_entries, GETTEXT_PACKAGE);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return cli_usage_error (context, error->message);
  if (argc < 2)
    return cli_usage_error (context, _("corpus add needs at least one file or folder"));
  if (rescan && argc != 2)
    return cli_usage_error (context, _("corpus rescan takes one folder"));

  if (collection != NULL && !sim_store_location_is_server (cli_resolve_store ()))
    return cli_usage_error (context, _("--collection is for a corpus server"));
  started = g_get_monotonic_time ();
  if ((backend = sim_backend_open (cli_resolve_store (), NULL, FALSE, &error)) == NULL)
    return cli_fail (error);
  if (sim_backend_get_corpus (backend) != NULL)
    sim_store_set_busy_func (sim_corpus_get_store (sim_backend_get_corpus (backend)), on_store_busy, NULL);
  where = sim_backend_get_name (backend);
  result = rescan ? sim_backend_rescan (backend, argv[1], collection, on_import_progress, &progress, cli_cancellable,
                                        &error)
                  : sim_backend_add (backend, (const char *const *) argv + 1, collection, on_import_progress, &progress,
                                     cli_cancellable, &error);
  if (progress.tty)
    g_printerr ("\r\033[K");
  if (result == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_printerr (_("Interrupted: documents added before the last batch are kept.\n"));
      return cli_fail (error);
    }
  {
    const double seconds = (g_get_monotonic_time () - started) / 1e6;

    if (rescan)
      g_print (_("Added %u, updated %u, unchanged %u, removed %u, failed %u (%.1f MB of text in %.1f s) — %s\n"),
               result->n_added, result->n_updated, result->n_unchanged, result->n_removed, result->n_failed,
               result->n_bytes / 1e6, seconds, where);
    else
      g_print (_("Added %u, updated %u, unchanged %u, failed %u (%.1f MB of text in %.1f s) — %s\n"),
               result->n_added, result->n_updated, result->n_unchanged, result->n_failed,
               result->n_bytes / 1e6, seconds, where);
  }
  if (!quiet)
    for (guint i = 0; i < result->failures->len; i++)
      {
        g_autofree char *shown = cli_for_terminal (g_ptr_array_index (result->failures, i));

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
  g_autoptr(SimBackend) backend = NULL;
  g_autoptr(GPtrArray) docs = NULL;
  const char *where = NULL;
  gint64 n_bytes = 0, n_anchors = 0, last = 0;

  g_option_context_add_main_entries (context, cli_store_entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return cli_usage_error (context, error->message);
  if (argc > 1)
    return cli_usage_error (context, _("corpus list takes no arguments"));

  /* Listing never creates a store, and reads one it may not write. */
  if (!sim_store_location_is_server (cli_resolve_store ()) && !cli_store_exists ())
    return EXIT_ERROR;
  if ((backend = sim_backend_open (cli_resolve_store (), NULL, sim_store_path_is_read_only (cli_resolve_store ()),
                                   &error)) == NULL ||
      (docs = sim_backend_list (backend, &error)) == NULL)
    return cli_fail (error);
  where = sim_backend_get_name (backend);
  if (docs->len > 0)
    g_print ("%6s  %9s  %10s  %-16s  %s\n", _("ID"), _("Anchors"), _("Size"), _("Updated"), _("Path"));
  for (guint i = 0; i < docs->len; i++)
    {
      const SimStoreDocument *doc = g_ptr_array_index (docs, i);
      g_autofree char *size = g_format_size (doc->n_bytes);
      g_autofree char *when = format_time (doc->updated_at);
      g_autofree char *path = cli_for_terminal (doc->path);

      g_print ("%6" G_GINT64_FORMAT "  %9" G_GINT64_FORMAT "  %10s  %-16s  %s\n",
               doc->id, doc->n_anchors, size, when, path);
      n_bytes += doc->n_bytes;
      n_anchors += doc->n_anchors;
      last = MAX (last, doc->updated_at);
    }
  {
    g_autofree char *size = g_format_size (n_bytes);
    g_autofree char *when = last ? format_time (last) : g_strdup (_("never"));

    g_print (_("%u documents, %lld anchors, %s, last update %s — %s\n"),
             docs->len, (long long) n_anchors, size, when, where);
  }
  return EXIT_OK;
}

static int
corpus_remove (int argc, char **argv)
{
  g_autoptr(GOptionContext) context = g_option_context_new (_("ID|PATH… — remove documents"));
  g_autoptr(GError) error = NULL;
  g_autoptr(SimBackend) backend = NULL;
  guint n_removed = 0;

  g_option_context_add_main_entries (context, cli_store_entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return cli_usage_error (context, error->message);
  if (argc < 2)
    return cli_usage_error (context, _("corpus remove needs at least one id or path"));

  if ((backend = sim_backend_open (cli_resolve_store (), NULL, FALSE, &error)) == NULL)
    return cli_fail (error);
  if (sim_backend_get_corpus (backend) != NULL)
    sim_store_set_busy_func (sim_corpus_get_store (sim_backend_get_corpus (backend)), on_store_busy, NULL);
  if (!sim_backend_remove (backend, (const char *const *) argv + 1, &n_removed, &error))
    return cli_fail (error);
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

  g_option_context_add_main_entries (context, cli_store_entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return cli_usage_error (context, error->message);
  if (argc != 3 || !g_str_equal (argv[1], "fold-traditional") ||
      !(g_str_equal (argv[2], "on") || g_str_equal (argv[2], "off")))
    return cli_usage_error (context, _("corpus set takes “fold-traditional on” or “fold-traditional off”"));
  on = g_str_equal (argv[2], "on");
  corpus = sim_corpus_open (cli_resolve_store (), FALSE, &error);
  if (corpus == NULL ||
      !sim_corpus_set_flags (corpus, on ? SIM_NORMALIZE_FOLD_T2S : SIM_NORMALIZE_DEFAULT, &error))
    return cli_fail (error);
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
      g_autofree char *shown = cli_for_terminal (g_ptr_array_index (lines, i));

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

  g_option_context_add_main_entries (context, cli_store_entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    return cli_usage_error (context, error->message);
  if (argc > 1)
    return cli_usage_error (context, repair ? _("corpus rebuild takes no arguments") : _("corpus verify takes no arguments"));
  if (!cli_store_exists ())
    return EXIT_ERROR;
  result = repair ? sim_corpus_rebuild (cli_resolve_store (), &error) : sim_corpus_verify (cli_resolve_store (), &error);
  if (result == NULL)
    return cli_fail (error);
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
    g_print (_("Rebuilt the fingerprints of %s\n"), cli_resolve_store ());
  else if (result->damaged->len > 0 || result->index_damage != NULL)
    {
      g_print (_("The store %s is damaged: “simhound-cli corpus rebuild” mends it\n"), cli_resolve_store ());
      return EXIT_ERROR;
    }
  else
    g_print (_("%u texts read whole; the store %s is sound\n"), result->n_sound, cli_resolve_store ());
  return EXIT_OK;
}

int
cli_corpus_command (int argc, char **argv)
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
