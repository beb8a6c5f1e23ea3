/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * simhound-cli as the user runs it: a small program that starts the real
 * one (simhound-cli-main, beside it in the build tree, else in
 * LIBEXECDIR/simhound) with the same arguments, telling glibc to back its
 * heaps with huge pages when the command will touch hundreds of MB.
 *
 * Commands that touch hundreds of MB (a class of 2,000 essays, a large
 * import, a long article) spend a third of their time in the kernel
 * faulting in 4 KB pages. glibc backs its heaps with transparent huge pages
 * when told so at start-up (the tunable glibc.malloc.hugetlb=1 only calls
 * madvise: nothing is reserved), and only at start-up. The real program
 * used to start itself again with the tunable set, after its 73 libraries
 * (poppler, cairo and pango bring most) had been loaded once for nothing:
 * 25-30 ms, mostly page faults, a tenth of importing 10 MB. This program
 * links GLib alone and starts in a few ms.
 *
 * Measured when the real program restarted itself: `cross` of 2,000 essays
 * 1.86 → 1.45 s, `corpus add` of 10 MB 1.62 → 1.22 s, `check` of a 1 MB
 * article 4.15 → 2.75 s; a check of 10,000 characters against a store of
 * 1 GB or more (its file and index file) 0.23-0.29 → 0.13-0.20 s, against
 * 105 MB of corpus 0.12-0.13 s either way; a 100 KB article against one
 * 10 MB source 1.9-2.1 → 1.2-1.3 s (tests/bench/RESULTS.md). A check
 * through a corpus server of 1 GB: 0.22 → 0.17 s of client CPU.
 */
#include "config.h"

#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <glib.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "sim-paths.h"

/* check and compare start with huge pages from this much input, and
 * check also from a quarter of it against this much store (its file and
 * index file), and against a store this large whatever its input. */
#define HUGE_PAGES_INPUT     (256 << 10)
#define HUGE_PAGES_STORE     (16 << 20)
#define HUGE_PAGES_BIG_STORE (G_GINT64_CONSTANT (1) << 30)
/* Huge pages for malloc, and the main heap grown 64 MB at a time so they
 * can back it (grown 128 KB at a time, it never holds a whole one). */
#define HUGE_PAGES_TUNABLES "glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864"

/* Bytes of the files named on the command line (not the store's). */
static goffset
input_bytes (int    argc,
             char **argv)
{
  goffset total = 0;

  for (int i = 1; i < argc; i++)
    {
      GStatBuf st;

      if (g_str_equal (argv[i], "--store") || g_str_has_prefix (argv[i], "--store="))
        {
          i += g_str_equal (argv[i], "--store");
          continue;
        }
      if (g_stat (argv[i], &st) == 0 && S_ISREG (st.st_mode))
        total += st.st_size;
    }
  return total;
}

/* Bytes of the store the command line names (--store, else
 * $SIMHOUND_STORE, else the default: sim_corpus_dup_default_path()'s
 * twin, which this program does not link) and of its index file. */
static char *
store_location (int    argc,
                char **argv)
{
  const char *env = g_getenv ("SIMHOUND_STORE");

  for (int i = 1; i < argc; i++)
    if (g_str_has_prefix (argv[i], "--store="))
      return g_strdup (argv[i] + strlen ("--store="));
    else if (g_str_equal (argv[i], "--store") && i + 1 < argc)
      return g_strdup (argv[i + 1]);
  return env != NULL && *env != '\0' ? g_strdup (env)
                                     : g_build_filename (g_get_user_data_dir (), "simhound", "corpus.db", NULL);
}

static goffset
store_bytes (int    argc,
             char **argv)
{
  g_autofree char *path = store_location (argc, argv);
  g_autofree char *index = NULL;
  goffset total = 0;
  GStatBuf st;

  index = g_strconcat (path, ".index", NULL);
  if (g_stat (path, &st) == 0 && S_ISREG (st.st_mode))
    total += st.st_size;
  if (g_stat (index, &st) == 0 && S_ISREG (st.st_mode))
    total += st.st_size;
  return total;
}

static gboolean
is_heavy (int    argc,
          char **argv)
{
  g_autofree char *store = store_location (argc, argv);

  for (int i = 1; i < argc; i++)
    if (g_str_equal (argv[i], "cross") ||
        /* An add to a corpus server holds a batch or two (sim-server-corpus.c):
         * huge pages gave it no speed and 35 MB more of memory. */
        (g_str_equal (argv[i], "corpus") && i + 1 < argc && !sim_store_location_is_server (store) &&
         (g_str_equal (argv[i + 1], "add") || g_str_equal (argv[i + 1], "rebuild"))) ||
        ((g_str_equal (argv[i], "check") || g_str_equal (argv[i], "compare")) &&
         input_bytes (argc, argv) >= HUGE_PAGES_INPUT) ||
        (g_str_equal (argv[i], "check") && input_bytes (argc, argv) >= HUGE_PAGES_INPUT / 4 &&
         store_bytes (argc, argv) >= HUGE_PAGES_STORE) ||
        (g_str_equal (argv[i], "check") && store_bytes (argc, argv) >= HUGE_PAGES_BIG_STORE) ||
        /* A check through a corpus server decodes the postings of
         * thousands of rows (13,000 at 1 GB): 4 KB pages faulted in were
         * a fifth of its CPU, 0.22 -> 0.17 s a check, 50 -> 56 MB. */
        (g_str_equal (argv[i], "check") && sim_store_location_is_server (store)))
      return TRUE;
  return FALSE;
}

/* The real program: $SIMHOUND_CLI_MAIN, else beside this one (the build
 * tree), else installed. */
static char *
main_path (void)
{
  const char *env = g_getenv ("SIMHOUND_CLI_MAIN");
  g_autofree char *self = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *dir = self ? g_path_get_dirname (self) : NULL;
  g_autofree char *beside = dir ? g_build_filename (dir, "simhound-cli-main", NULL) : NULL;

  if (env != NULL && *env != '\0')
    return g_strdup (env);
  if (beside != NULL && g_file_test (beside, G_FILE_TEST_IS_EXECUTABLE))
    return g_steal_pointer (&beside);
  return g_build_filename (LIBEXECDIR, "simhound", "simhound-cli-main", NULL);
}

int
main (int argc, char **argv)
{
  g_autofree char *path = main_path ();
  const char *tunables = g_getenv ("GLIBC_TUNABLES");

  /* Unless the user set the tunable either way. */
  if (is_heavy (argc, argv) && (tunables == NULL || strstr (tunables, "glibc.malloc.hugetlb") == NULL))
    {
      g_autofree char *value = tunables != NULL && *tunables ? g_strconcat (tunables, ":" HUGE_PAGES_TUNABLES, NULL)
                                                              : g_strdup (HUGE_PAGES_TUNABLES);

      g_setenv ("GLIBC_TUNABLES", value, TRUE);
    }
  /* argv[0] as the user gave it: messages name simhound-cli. */
  execv (path, argv);
  {
    const int saved = errno;

    /* Translations only here: a launch that works never loads them. */
    setlocale (LC_ALL, "");
    bindtextdomain (GETTEXT_PACKAGE, sim_paths_locale_dir ());
    bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
    textdomain (GETTEXT_PACKAGE);
    fprintf (stderr, _("simhound-cli: cannot run %s: %s\n"), path, g_strerror (saved));
  }
  return 2;
}
