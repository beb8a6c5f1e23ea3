/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>

#include "sim-corpus.h"
#include "sim-report-json.h"
#include "sim-test-util.h"

char *
sim_test_make_tmp_dir (void)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("simhound-test-XXXXXX", &error);

  g_assert_no_error (error);
  return dir;
}

void
sim_test_remove_tree (const char *path)
{
  GDir *dir;
  const char *name;

  if (path == NULL)
    return;
  if (!g_file_test (path, G_FILE_TEST_IS_DIR) || g_file_test (path, G_FILE_TEST_IS_SYMLINK))
    {
      g_remove (path);
      return;
    }
  dir = g_dir_open (path, 0, NULL);
  while (dir && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child = g_build_filename (path, name, NULL);

      sim_test_remove_tree (child);
    }
  if (dir)
    g_dir_close (dir);
  g_rmdir (path);
}

char *
sim_test_write_file (const char *dir,
                     const char *name,
                     const char *data,
                     gssize      len)
{
  g_autoptr(GError) error = NULL;
  char *path = g_build_filename (dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname (path);

  g_mkdir_with_parents (parent, 0700);
  g_file_set_contents (path, data, len, &error);
  g_assert_no_error (error);
  return path;
}

const char *
sim_test_shared_dir (void)
{
  static char *shared;
  static gsize once;

  if (g_once_init_enter (&once))
    {
      const char *env = g_getenv ("SIMHOUND_SHARED_DIR");

      if (env != NULL && g_file_test (env, G_FILE_TEST_IS_DIR))
        shared = g_strdup (env);
      g_once_init_leave (&once, 1);
    }
  return shared;
}

void
sim_test_spin_until (gboolean (*done) (gpointer),
                     gpointer   data,
                     guint      seconds)
{
  const gint64 deadline = g_get_monotonic_time () + seconds * G_USEC_PER_SEC;

  while (!done (data) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, FALSE);
}

char *
sim_test_span_text (const char *text,
                    guint32     start,
                    guint32     end)
{
  const char *from = g_utf8_offset_to_pointer (text, start);

  return g_strndup (from, g_utf8_offset_to_pointer (text, end) - from);
}

SimReport *
sim_test_check_folder (const char            *store,
                       const char            *folder,
                       const char            *article,
                       const SimCheckOptions *options,
                       guint                 *out_n_added)
{
  const char *paths[] = { folder, NULL };
  g_autoptr(SimCorpus) corpus = sim_corpus_open (store, FALSE, NULL);
  g_autoptr(SimImportResult) result = NULL;
  g_autoptr(SimCorpusSnapshot) snapshot = NULL;

  if (corpus == NULL)
    return NULL;
  result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL);
  if (result == NULL)
    return NULL;
  if (out_n_added)
    *out_n_added = result->n_added;
  snapshot = sim_corpus_ref_snapshot (corpus);
  return sim_check_run (snapshot, article, -1, options, NULL, NULL, NULL, NULL);
}

char *
sim_test_report_json (SimReport *report,
                      gboolean   pretty)
{
  g_autoptr(SimReportView) view = sim_report_view_new (report, NULL);

  return sim_report_view_to_json (view, NULL, pretty);
}

guint
sim_test_count_level (SimReport *report,
                      SimLevel   level)
{
  g_autoptr(SimReportView) view = sim_report_view_new (report, NULL);

  return sim_report_view_count_level (view, level);
}
