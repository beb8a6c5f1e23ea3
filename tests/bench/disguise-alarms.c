/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * False alarms of the disguise finder: reads every file under the folders
 * given (as `corpus add` reads them) and prints each one in which
 * sim_text_find_disguises() finds look-alike letters or invisible
 * characters, then a total. On real text (../shared/corpora,
 * ../shared/eval-public) the total must be zero.
 *
 *   disguise-alarms DIR...
 */
#include "config.h"

#include <gio/gio.h>

#include "sim-document.h"
#include "sim-text.h"

static guint n_files, n_alarms;

static void
scan (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  if (dir == NULL)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *text = sim_document_load (path, NULL, NULL, NULL, &error);
      SimDisguises d;

      if (text == NULL)
        return;
      n_files++;
      sim_text_find_disguises (text, -1, &d);
      if (d.n_lookalikes > 0 || d.n_invisible > 0)
        {
          n_alarms++;
          g_print ("%s: %u look-alike letters (%u-%u), %u invisible characters (%u-%u)\n", path,
                   d.n_lookalikes, d.lookalike_start, d.lookalike_end,
                   d.n_invisible, d.invisible_start, d.invisible_end);
        }
      return;
    }
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      if (!g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        scan (child);
    }
}

int
main (int argc, char **argv)
{
  for (int i = 1; i < argc; i++)
    scan (argv[i]);
  g_print ("%u files, %u with a disguise found\n", n_files, n_alarms);
  return n_alarms == 0 ? 0 : 1;
}
