/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * App benchmarks, run under Xvfb (./run.sh bench does): the window shown with
 * a 1M-segment store, the longest main-loop stall while a 20,000-character
 * article is checked, and showing a report with 1,000 highlights plus the
 * chart. Prints Markdown.
 *
 * usage: simhound-ui-bench [TEXTS_DIR]   (default ../shared/corpora)
 */
#include "config.h"

#include <stdlib.h>

#include <stdio.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "sim-check.h"
#include "sim-corpus.h"
#include "sim-chart.h"
#include "sim-session.h"
#include "sim-window-test.h"

static gint64 last_tick, max_gap;

static int
compare_doubles (const void *a,
                 const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static gboolean
on_tick (gpointer data)
{
  const gint64 now = g_get_monotonic_time ();

  if (last_tick)
    max_gap = MAX (max_gap, now - last_tick);
  last_tick = now;
  return G_SOURCE_CONTINUE;
}

static void
spin_until (gboolean (*done) (gpointer), gpointer data)
{
  const gint64 deadline = g_get_monotonic_time () + 300 * G_USEC_PER_SEC;

  while (!done (data) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
}

static gboolean
mapped (gpointer data)
{
  return gtk_widget_get_mapped (data);
}

static gboolean
not_busy (gpointer data)
{
  return !sim_window_is_busy (data);
}

static char *
read_folder (const char *dir,
             gsize       max)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  GString *s = g_string_new (NULL);
  const char *name;

  while (d && (name = g_dir_read_name (d)) != NULL && s->len < max)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *text = NULL;

      if (g_file_get_contents (path, &text, NULL, NULL) && g_utf8_validate (text, -1, NULL))
        g_string_append_printf (s, "%s\n\n", text);
    }
  return g_string_free (s, FALSE);
}

/* The app against the engine it wraps (issue 33: within 1.3x): @article
 * checked in-process against @snapshot, median of 5, in @window (on
 * @store), from Check to the result drawn, median of 5, and by the
 * command line's whole process beside this program (@argv0), median of 5. */
static void
app_against_engine (SimWindow         *window,
                    SimCorpusSnapshot *snapshot,
                    const char        *store,
                    const char        *article,
                    const char        *argv0,
                    const char        *tmp)
{
  {
    SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
    double engine[5], app[5];

    for (guint r = 0; r < 5; r++)
      {
        gint64 start = g_get_monotonic_time ();
        g_autoptr(SimReport) report = sim_check_run (snapshot, article, -1, &options, NULL, NULL, NULL, NULL);

        engine[r] = (g_get_monotonic_time () - start) / 1000.0;
        sim_window_set_text (window, article);
        for (int i = 0; i < 20; i++)
          g_main_context_iteration (NULL, FALSE);
        start = g_get_monotonic_time ();
        sim_window_check (window);
        spin_until (not_busy, window);
        app[r] = (g_get_monotonic_time () - start) / 1000.0;
      }
    qsort (engine, 5, sizeof (double), compare_doubles);
    qsort (app, 5, sizeof (double), compare_doubles);
    printf ("| check the %ld-character article: the engine in-process / the window, Check to result drawn "
            "| %.1f ms / %.1f ms (%.2fx) | |\n", g_utf8_strlen (article, -1), engine[2], app[2],
            app[2] / MAX (engine[2], 0.001));
    /* The measure: the command line's whole process on the same
     * text and store (`simhound-cli check --json`), beside this build's. */
    {
      g_autofree char *dir = g_path_get_dirname (argv0);
      g_autofree char *cli = g_build_filename (dir, "..", "..", "app", "simhound-cli", NULL);
      g_autofree char *path = g_build_filename (tmp, "article.txt", NULL);
      double process[5];

      g_file_set_contents (path, article, -1, NULL);
      for (guint r = 0; r < 5; r++)
        {
          const char *cmd[] = { cli, "--store", store, "check", "--json", path, NULL };
          const gint64 start = g_get_monotonic_time ();

          g_spawn_sync (NULL, (char **) cmd, NULL, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL,
                        NULL, NULL, NULL, NULL);
          process[r] = (g_get_monotonic_time () - start) / 1000.0;
        }
      qsort (process, 5, sizeof (double), compare_doubles);
      printf ("| the same: `simhound-cli check --json`, the whole process / the window | %.1f ms / %.1f ms (%.2fx) "
              "| < 1.3x |\n", process[2], app[2], app[2] / MAX (process[2], 0.001));
      g_remove (path);
    }
  }
}

int
main (int argc, char **argv)
{
  const char *texts = argc > 1 ? argv[1] : "../shared/corpora";
  static const char *const folders[] = { "en-news-bbc", "zh-news", "en-handbook", "zh-handbook", "en-kjv", NULL };
  g_autofree char *tmp = g_dir_make_tmp ("simhound-ui-bench-XXXXXX", NULL);
  g_autofree char *store = g_build_filename (tmp, "store.db", NULL);
  g_autoptr(SimCorpusSnapshot) snapshot = NULL;
  g_autofree char *article = NULL;
  SimWindow *window;
  gint64 t0, shown;
  double show_report_ms, chart_ms;

  gtk_init ();
  if (!g_file_test (texts, G_FILE_TEST_IS_DIR))
    {
      printf ("## App\n\nskipped: %s not found\n", texts);
      return 0;
    }
  {
    g_autoptr(SimCorpus) corpus = sim_corpus_open (store, FALSE, NULL);

    for (guint f = 0; folders[f]; f++)
      {
        g_autofree char *path = g_build_filename (texts, folders[f], NULL);
        const char *paths[] = { path, NULL };
        g_autoptr(SimCorpusSnapshot) s = sim_corpus_ref_snapshot (corpus);

        if (sim_corpus_snapshot_get_n_fps (s) >= 1000000)
          break;
        sim_import_result_free (sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL));
      }
    snapshot = sim_corpus_ref_snapshot (corpus);
  }

  /* 1. From creating the window (which opens the store) to its first frame. */
  t0 = g_get_monotonic_time ();
  window = sim_window_new (NULL, store);
  gtk_window_present (GTK_WINDOW (window));
  spin_until (mapped, window);
  shown = g_get_monotonic_time () - t0;

  /* 2. A 20,000-character article: the longest gap between 5 ms timeouts. */
  {
    g_autofree char *bbc_dir = g_build_filename (texts, "en-news-bbc", NULL);
    g_autofree char *debref_dir = g_build_filename (texts, "en-debref", NULL);
    g_autofree char *copied = read_folder (bbc_dir, 1 << 20);
    g_autofree char *own = read_folder (debref_dir, 1 << 20);
    GString *a = g_string_new (NULL);
    const char *p = copied, *q = own;

    while (g_utf8_strlen (a->str, -1) < 20000)
      {
        const char *pe = g_utf8_offset_to_pointer (p, 400), *qe = g_utf8_offset_to_pointer (q, 300);

        g_string_append_len (a, p, pe - p);
        g_string_append (a, "\n\n");
        g_string_append_len (a, q, qe - q);
        g_string_append (a, "\n\n");
        p = g_utf8_offset_to_pointer (pe, 3000);
        q = qe;
      }
    article = g_string_free (a, FALSE);
  }
  sim_window_set_text (window, article);
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  g_timeout_add (5, on_tick, NULL);
  last_tick = 0;
  max_gap = 0;
  t0 = g_get_monotonic_time ();
  sim_window_check (window);
  spin_until (not_busy, window);
  t0 = g_get_monotonic_time () - t0;

  /* 3. A report with at least 1,000 flagged segments, shown, and the chart drawn. */
  {
    g_autofree char *bbc_dir = g_build_filename (texts, "en-news-bbc", NULL);
    g_autofree char *copied = read_folder (bbc_dir, 125000); /* about 1,000 flagged segments */
    SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
    g_autoptr(SimReport) report = sim_check_run (snapshot, copied, -1, &options, NULL, NULL, NULL, NULL);
    GtkWidget *chart = sim_window_get_chart (window);
    GtkSnapshot *snap;
    double start;

    sim_window_set_text (window, copied);
    start = g_get_monotonic_time ();
    sim_session_open_text (sim_window_get_session (window), NULL, NULL, report);  /* as a saved report shows */
    show_report_ms = (g_get_monotonic_time () - start) / 1000.0;
    start = g_get_monotonic_time ();
    snap = gtk_snapshot_new ();
    GTK_WIDGET_GET_CLASS (chart)->snapshot (chart, snap);
    gsk_render_node_unref (gtk_snapshot_free_to_node (snap));
    chart_ms = (g_get_monotonic_time () - start) / 1000.0;
    printf ("## App (under Xvfb, %u documents, %zu segments)\n\n| what | measured | target |\n|---|---:|---:|\n",
            sim_corpus_snapshot_get_n_docs (snapshot), sim_corpus_snapshot_get_n_fps (snapshot));
    printf ("| window shown, from creation (store opened, index built) to mapped | %.0f ms | < 1000 ms |\n", shown / 1000.0);
    printf ("| longest main-loop stall while a %ld-character article is checked (%.0f ms in all) | %.1f ms | < 50 ms |\n",
            g_utf8_strlen (article, -1), t0 / 1000.0, max_gap / 1000.0);
    printf ("| show a report with %u flagged segments (highlights, summary, sources) | %.1f ms | |\n",
            sim_report_view_count_level (sim_window_get_view (window), SIM_LEVEL_HIGH) +
              sim_report_view_count_level (sim_window_get_view (window), SIM_LEVEL_MEDIUM),
            show_report_ms);
    printf ("| draw the chart of its %u segments | %.1f ms | |\n| both | %.1f ms | < 100 ms |\n",
            sim_report_get_n_segments (report), chart_ms, show_report_ms + chart_ms);
  }

  /* 4. The app against the engine it wraps (issue 33: within 1.3x). */
  app_against_engine (window, snapshot, store, article, argv[0], tmp);
  /* And on a store and article given (the issue's own case: 5,000 words
   * on the demo corpus, `./run.sh bench` passes them when the demo is built). */
  if (argc > 3)
    {
      g_autoptr(SimCorpus) corpus = sim_corpus_open (argv[2], TRUE, NULL);
      g_autoptr(SimCorpusSnapshot) given = corpus ? sim_corpus_ref_snapshot (corpus) : NULL;
      g_autofree char *text = NULL;
      SimWindow *other;

      if (given != NULL && g_file_get_contents (argv[3], &text, NULL, NULL))
        {
          other = sim_window_new (NULL, argv[2]);
          gtk_window_present (GTK_WINDOW (other));
          spin_until (mapped, other);
          printf ("| (on %s, %u documents, and %s:) | | |\n", argv[2], sim_corpus_snapshot_get_n_docs (given), argv[3]);
          app_against_engine (other, given, argv[2], text, argv[0], tmp);
          gtk_window_destroy (GTK_WINDOW (other));
        }
    }

  /* 5. Opening a 1 MB and a 10 MB text file (issue 33: < 1 s and < 5 s),
   * the window answering all the while. */
  {
    g_autofree char *bbc_dir = g_build_filename (texts, "en-news-bbc", NULL);
    g_autofree char *news = read_folder (bbc_dir, 1000000);
    const gsize sizes[] = { 1000000, 10000000 };

    for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
      {
        g_autoptr(GString) big = g_string_new (NULL);
        g_autofree char *path = g_build_filename (tmp, "big.txt", NULL);
        g_autoptr(GFile) file = g_file_new_for_path (path);
        gint64 start;

        while (big->len < sizes[k])
          g_string_append (big, news);
        g_string_truncate (big, g_utf8_find_prev_char (big->str, big->str + sizes[k]) - big->str);
        g_file_set_contents (path, big->str, big->len, NULL);
        sim_window_set_text (window, "");
        for (int i = 0; i < 20; i++)
          g_main_context_iteration (NULL, FALSE);
        last_tick = 0;
        max_gap = 0;
        start = g_get_monotonic_time ();
        sim_window_open_file (window, file);
        spin_until (not_busy, window);
        {
          const double opened = (g_get_monotonic_time () - start) / 1000.0;
          const gint64 settle = g_get_monotonic_time () + 3 * G_USEC_PER_SEC;

          /* The text view lays the text out afterwards, a little at a time:
           * the stall counts those three seconds too. */
          while (g_get_monotonic_time () < settle)
            g_main_context_iteration (NULL, TRUE);
          printf ("| open a %.0f MB text file, to the whole text in the window (longest stall, 3 s after included) "
                  "| %.0f ms (%.1f ms) | < %u ms (< 50 ms) |\n",
                  sizes[k] / 1e6, opened, max_gap / 1000.0, k == 0 ? 1000 : 5000);
        }
        g_remove (path);
      }
    printf ("\n");
  }
  gtk_window_destroy (GTK_WINDOW (window));
  g_remove (store);
  {
    g_autofree char *wal = g_strconcat (store, "-wal", NULL);
    g_autofree char *shm = g_strconcat (store, "-shm", NULL);

    g_remove (wal);
    g_remove (shm);
    g_rmdir (tmp);
  }
  return 0;
}
