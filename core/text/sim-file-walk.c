/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "sim-file-walk.h"

static gint
compare_strings (gconstpointer a,
                 gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* @root is the real path of the folder being walked; NULL for @path itself. */
static void
collect_files (const char *path,
               const char *root,
               GPtrArray  *files,
               GPtrArray  *failures)
{
  GStatBuf st;

  if ((root == NULL ? g_stat (path, &st) : g_lstat (path, &st)) != 0)
    {
      int saved = errno;

      g_ptr_array_add (failures, g_strdup_printf ("%s: %s", path, g_strerror (saved)));
      return;
    }
  if (S_ISDIR (st.st_mode))
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(GDir) dir = g_dir_open (path, 0, &error);
      g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      g_autofree char *real = root == NULL ? realpath (path, NULL) : NULL;
      const char *name;

      if (dir == NULL)
        {
          g_ptr_array_add (failures, g_strdup (error->message));
          return;
        }
      while ((name = g_dir_read_name (dir)) != NULL)
        if (name[0] != '.')
          g_ptr_array_add (names, g_strdup (name));
      g_ptr_array_sort (names, compare_strings);
      for (guint i = 0; i < names->len; i++)
        {
          g_autofree char *child = g_build_filename (path, g_ptr_array_index (names, i), NULL);

          collect_files (child, root != NULL ? root : (real != NULL ? real : path), files, failures);
        }
    }
  else if (S_ISREG (st.st_mode))
    g_ptr_array_add (files, g_strdup (path));
  else if (S_ISLNK (st.st_mode))
    {
      g_autofree char *target = realpath (path, NULL);
      g_autofree char *inside = g_strconcat (root, G_DIR_SEPARATOR_S, NULL);

      if (target == NULL || !g_file_test (target, G_FILE_TEST_IS_REGULAR))
        return; /* a link to a folder (no loops) or to nothing */
      if (g_str_has_prefix (target, inside))
        g_ptr_array_add (files, g_strdup (path));
      else
        g_ptr_array_add (failures, g_strdup_printf (_("%s: skipped: a link to a file outside the folder (%s)"),
                                                    path, target));
    }
  else
    g_ptr_array_add (failures, g_strdup_printf (_("%s: skipped: not a regular file (%s)"), path,
                                                S_ISFIFO (st.st_mode) ? _("a named pipe")
                                                : S_ISSOCK (st.st_mode) ? _("a socket")
                                                : _("a device")));
}

void
sim_file_walk (const char *path,
               GPtrArray  *files,
               GPtrArray  *failures)
{
  collect_files (path, NULL, files, failures);
}
