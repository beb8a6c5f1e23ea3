/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * simhound-cli text: the text a check reads from a file.
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
#include "sim-store.h"

/* simhound-cli text FILE|-: exactly the text check and corpus add see, so
 * any offset of a report can be looked up. On a terminal, control
 * characters other than line ends and tabs are shown escaped. */
int
cli_text_command (int    argc,
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
  if ((text = cli_load_input (argv[1], NULL, &len, NULL, &error)) == NULL)
    return cli_fail (error);
  if (isatty (STDOUT_FILENO))
    {
      g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

      for (guint i = 0; lines[i]; i++)
        {
          g_autofree char *shown = cli_for_terminal (lines[i]);

          g_print (lines[i + 1] ? "%s\n" : "%s", shown);
        }
    }
  else if (fwrite (text, 1, len, stdout) != len)
    return EXIT_ERROR;
  return EXIT_OK;
}
