/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The main window with real widgets and a real store in a temp dir: load a
 * text, run a check, and assert the highlight tags, the summary, the source
 * pane and the chart. Runs under Xvfb.
 *
 * With --screenshot OUT.png --text FILE --store PATH [--reworded] it instead
 * checks FILE against PATH in a 1200x800 window, compares the first high
 * flag (or the first reworded one) and saves what it shows (screenshots.sh).
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <locale.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <adwaita.h>
#include <cairo-pdf.h>
#include <sqlite3.h>

#include "sim-article-view.h"
#include "sim-chart.h"
#include "sim-comparison.h"
#include "sim-comparison-test.h"
#include "sim-corpus.h"
#include "sim-corpus-window.h"
#include "sim-export.h"
#include "sim-export-dialog.h"
#include "sim-tint.h"
#include "sim-report-json.h"
#include "sim-window-test.h"
#include "sim-test-util.h"
#include "sim-test-ui.h"

#define EN_COPY "Ships passing the northern reef relied on his lamp to find the safe channel."
#define EN_EDIT "In forty years he never once let the light go dark, even during the storms of a hard winter."
#define ZH_COPY "街角那家茶馆已经开了六十多年，每天清晨都有老人带着鸟笼来喝茶。"
#define OWN "My cousin prefers mountains to the sea and has never seen a lighthouse at all. "

static gboolean
check_finished (gpointer data)
{
  return !sim_window_is_busy (data) && sim_window_get_report (data) != NULL;
}

static gboolean
window_idle (gpointer data)
{
  return !sim_window_is_busy (data);
}

static gboolean
mapped (gpointer data)
{
  return gtk_widget_get_mapped (data) && gtk_widget_get_width (data) > 0;
}

static gboolean
is_waiting (gpointer data)
{
  const char *text = sim_window_get_progress_text (data);

  return text != NULL && g_str_has_prefix (text, "Waiting for another import");
}

static char *
make_store (const char *dir)
{
  g_autofree char *docs = g_build_filename (dir, "docs", NULL);
  char *store = g_build_filename (dir, "store.db", NULL);
  g_autoptr(SimCorpus) corpus = NULL;
  g_autoptr(SimImportResult) result = NULL;
  const char *paths[] = { docs, NULL };

  g_free (sim_test_write_file (docs, "lighthouse.txt",
                               "The Keeper\n\nThe lighthouse keeper climbed the spiral stairs every evening. " EN_COPY
                               " In forty years he never once let the light go dark, even during the storm of the hard winter.\n", -1));
  g_free (sim_test_write_file (docs, "teahouse.txt", "老城\n\n老城区的石板路在雨后显得格外明亮。" ZH_COPY "\n", -1));
  corpus = sim_corpus_open (store, FALSE, NULL);
  result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL);
  g_assert (result != NULL && result->n_added == 2);
  return store;
}

/* What the chart says anywhere along its width, one line a position. (transfer full) */
static char *
chart_says (SimWindow *window)
{
  SimChart *chart = SIM_CHART (sim_window_get_chart (window));
  GString *out = g_string_new (NULL);

  for (int x = 0; x < gtk_widget_get_width (GTK_WIDGET (chart)); x++)
    {
      g_autofree char *said = sim_chart_describe_at (chart, x, 40);

      if (said != NULL)
        g_string_append_printf (out, "%s\n", said);
    }
  return g_string_free (out, FALSE);
}

/* Issue 31, fault 1: check essay A, then open essay B. Nothing of A's
 * report is shown against B: no figure, no source, no chart bar, no
 * highlight, and a click on the text compares nothing. */
static void
test_window_shows_a_report_only_with_its_text (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *store = make_store (dir);
  g_autofree char *a = sim_test_write_file (dir, "essay-a.txt", OWN EN_COPY " " ZH_COPY, -1);
  g_autofree char *b = sim_test_write_file (dir, "essay-b.txt", "We walked to the market and bought bread.", -1);
  g_autoptr(GFile) file_a = g_file_new_for_path (a), file_b = g_file_new_for_path (b);
  SimWindow *window = sim_window_new (NULL, store);
  g_autofree char *before = NULL, *after = NULL, *sources = NULL;
  GtkTextIter start, end;

  gtk_window_present (GTK_WINDOW (window));
  sim_test_spin_until (mapped, window, 10);
  sim_window_open_file (window, file_a);
  sim_window_check (window);
  sim_test_spin_until (check_finished, window, 60);
  assert_non_null (strstr (sim_window_get_summary (window), "% similar"));
  before = chart_says (window);
  assert_non_null (strstr (before, "similar to source"));
  assert_string_equal (sim_report_get_name (sim_window_get_report (window)), "essay-a.txt");

  sim_window_open_file (window, file_b);
  assert_null (sim_window_get_report (window));
  assert_null (sim_window_get_view (window));
  assert_string_equal (sim_window_get_summary (window), "");
  after = chart_says (window);
  assert_null (strstr (after, "similar"));
  sources = sim_window_dup_sources_said (window);
  assert_string_equal (sources, "");
  gtk_text_buffer_get_bounds (sim_window_get_buffer (window), &start, &end);
  assert_null (gtk_text_iter_get_tags (&start));
  sim_window_select_segment (window, 1);
  assert_string_equal (sim_window_get_source_path (window), "");
  gtk_window_destroy (GTK_WINDOW (window));
  sim_test_remove_tree (dir);
}

/* Issue 31, fault 6: leaving a source out changes every figure shown with
 * the headline: the counts, the source's share in the list, and the chart. */
static void
test_window_leaving_a_source_out_changes_every_figure (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *store = make_store (dir);
  SimWindow *window = sim_window_new (NULL, store);
  g_autofree char *counts = NULL, *sources = NULL, *chart = NULL;
  SimReport *report;
  gint lighthouse = -1;

  gtk_window_present (GTK_WINDOW (window));
  sim_test_spin_until (mapped, window, 10);
  sim_window_set_text (window, OWN EN_COPY " " ZH_COPY);
  sim_window_check (window);
  sim_test_spin_until (check_finished, window, 60);
  report = sim_window_get_report (window);
  for (guint i = 0; i < sim_report_get_n_sources (report); i++)
    if (g_str_has_suffix (sim_report_get_source (report, i)->display_path, "lighthouse.txt"))
      lighthouse = i;
  assert_true (lighthouse >= 0);
  counts = g_strdup (sim_window_get_counts (window));
  sources = sim_window_dup_sources_said (window);
  chart = chart_says (window);

  sim_window_set_source_counted (window, lighthouse, FALSE);
  assert_true (sim_window_get_report (window) == report);
  assert_string_not_equal (sim_window_get_counts (window), counts);
  {
    g_autofree char *now = sim_window_dup_sources_said (window);
    g_autofree char *share = g_strdup_printf ("Source %d: ", lighthouse + 1);
    const char *row = strstr (now, share);

    assert_string_not_equal (now, sources);
    assert_non_null (row);
    assert_non_null (strstr (row, ", 0.0% of the article"));
  }
  {
    g_autofree char *now = chart_says (window);

    assert_string_not_equal (now, chart);
  }
  sim_window_set_source_counted (window, lighthouse, TRUE);
  assert_string_equal (sim_window_get_counts (window), counts);
  gtk_window_destroy (GTK_WINDOW (window));
  sim_test_remove_tree (dir);
}

/* Issue 31, fault 10: a copied piece too short to count is not drawn as a
 * full grey bar called "below the medium level". */
static void
test_window_chart_says_a_short_copy_is_too_short (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *docs = g_build_filename (dir, "docs", NULL);
  g_autofree char *store = g_build_filename (dir, "store.db", NULL);
  const char *paths[] = { docs, NULL };
  SimWindow *window;
  g_autofree char *said = NULL;

  g_free (sim_test_write_file (docs, "lamp.txt", "他点亮了灯。船只安全地驶过了礁石，每天晚上都是如此。\n", -1));
  {
    g_autoptr(SimCorpus) corpus = sim_corpus_open (store, FALSE, NULL);
    g_autoptr(SimImportResult) result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL);

    assert_int_equal (result->n_added, 1);
  }
  window = sim_window_new (NULL, store);
  gtk_window_present (GTK_WINDOW (window));
  sim_test_spin_until (mapped, window, 10);
  sim_window_set_text (window, "我五月去的。他点亮了灯。那天风很大，我想早点回家。");
  sim_window_check (window);
  sim_test_spin_until (check_finished, window, 60);
  assert_true (sim_report_get_segment (sim_window_get_report (window), 1)->similarity > 0.9f);
  assert_int_equal (sim_report_get_segment (sim_window_get_report (window), 1)->level, SIM_LEVEL_LOW);
  said = chart_says (window);
  assert_non_null (strstr (said, "too little text to count"));
  assert_null (strstr (said, "100% similar, below the medium level"));
  gtk_window_destroy (GTK_WINDOW (window));
  sim_test_remove_tree (dir);
}

/* A window whose title holds @part, or NULL. */
static GtkWindow *
find_window_titled (const char *part)
{
  GListModel *toplevels = gtk_window_get_toplevels ();  /* (transfer none) */

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) w = g_list_model_get_item (toplevels, i);
      const char *title = gtk_window_get_title (GTK_WINDOW (w));

      if (title != NULL && strstr (title, part) != NULL)
        return GTK_WINDOW (w);
    }
  return NULL;
}

static gboolean
has_window_titled (gpointer part)
{
  return find_window_titled (part) != NULL;
}

/* Issue 31, fault 11: Open Source where no application opens the file shows
 * the text the corpus keeps, not GTK's "Could not show link". (This test
 * runs with no applications registered: XDG_DATA_DIRS is empty.) */
static void
test_open_source_without_an_application_shows_the_stored_text (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *store = make_store (dir);
  SimWindow *window = sim_window_new (NULL, store);
  SimReport *report;
  GtkWindow *shown;

  gtk_window_present (GTK_WINDOW (window));
  sim_window_set_text (window, OWN EN_COPY);
  sim_window_check (window);
  sim_test_spin_until (check_finished, window, 60);
  report = sim_window_get_report (window);
  for (guint i = 0; i < sim_report_get_n_segments (report); i++)
    if (sim_report_segment_is_flagged (sim_report_get_segment (report, i)))
      {
        sim_window_select_segment (window, i);
        break;
      }
  assert_true (g_str_has_suffix (sim_window_get_source_path (window), "lighthouse.txt"));
  sim_comparison_open_source (sim_window_get_comparison (window));
  sim_test_spin_until (has_window_titled, (gpointer) "stored text", 30);
  shown = find_window_titled ("stored text");
  assert_non_null (shown);
  assert_non_null (strstr (gtk_window_get_title (shown), "no application opens the file"));
  gtk_window_destroy (shown);
  gtk_window_destroy (GTK_WINDOW (window));
  sim_test_remove_tree (dir);
}

/* The flagged spans of the HTML report's article, as "start-end;" in code
 * points of the article. (transfer full) */
static char *
html_article_spans (const char *html)
{
  const char *p = strstr (html, "<div class=\"article\">");
  GString *out = g_string_new (NULL);
  guint32 at = 0, open_at = 0;

  assert_non_null (p);
  p += strlen ("<div class=\"article\">");
  while (*p && !g_str_has_prefix (p, "</div>"))
    {
      if (g_str_has_prefix (p, "<mark"))
        {
          open_at = at;
          p = strchr (p, '>') + 1;
        }
      else if (g_str_has_prefix (p, "</mark>"))
        {
          g_string_append_printf (out, "%u-%u;", open_at, at);
          p += strlen ("</mark>");
        }
      else if (g_str_has_prefix (p, "<sup"))
        p = strstr (p, "</sup>") + strlen ("</sup>");
      else if (*p == '&')
        {
          p = strchr (p, ';') + 1;
          at++;
        }
      else
        {
          p = g_utf8_next_char (p);
          at++;
        }
    }
  return g_string_free (out, FALSE);
}

/* The spans the window colours, as "start-end;". (transfer full) */
static char *
window_spans (SimWindow *window)
{
  GtkTextBuffer *buffer = sim_window_get_buffer (window);
  GString *out = g_string_new (NULL);
  GtkTextIter iter;
  gint open_at = -1;

  gtk_text_buffer_get_start_iter (buffer, &iter);
  for (;;)
    {
      gboolean tagged = FALSE;
      GSList *tags = gtk_text_iter_get_tags (&iter);

      for (GSList *t = tags; t; t = t->next)
        {
          g_autofree char *name = NULL;

          g_object_get (t->data, "name", &name, NULL);
          tagged = tagged || (name && (g_str_has_prefix (name, "sim-source-") || g_str_equal (name, "sim-excluded")));
        }
      g_slist_free (tags);
      if (tagged && open_at < 0)
        open_at = gtk_text_iter_get_offset (&iter);
      else if (!tagged && open_at >= 0)
        {
          g_string_append_printf (out, "%d-%d;", open_at, gtk_text_iter_get_offset (&iter));
          open_at = -1;
        }
      if (gtk_text_iter_is_end (&iter))
        break;
      gtk_text_iter_forward_char (&iter);
    }
  return g_string_free (out, FALSE);
}

/* Issue 31: the window and the HTML report draw the same flagged runs, those
 * of the view (which the JSON lists: test-report-view), with a quotation
 * left out inside a flagged sentence. */
static void
test_window_html_and_json_draw_the_same_runs (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *store = make_store (dir);
  g_autoptr(GSettings) settings = g_settings_new ("org.simhound.Simhound");
  SimWindow *window = sim_window_new (NULL, store);
  SimReportView *view;
  g_autofree char *html = NULL, *in_html = NULL, *in_window = NULL;
  g_autoptr(GString) in_view = g_string_new (NULL);

  gtk_window_present (GTK_WINDOW (window));
  sim_window_set_text (window, OWN "As he wrote, “" EN_COPY "” " EN_EDIT "\n\n" ZH_COPY);
  sim_window_check (window);
  sim_test_spin_until (check_finished, window, 60);
  g_settings_set_boolean (settings, "exclude-quotes", TRUE);
  view = sim_window_get_view (window);
  /* Runs that touch are one coloured stretch in a text view. */
  for (guint r = 0; r < sim_report_view_get_n_runs (view); r++)
    {
      const SimFlaggedRun *run = sim_report_view_get_run (view, r);
      guint32 end = run->end;

      while (r + 1 < sim_report_view_get_n_runs (view) && sim_report_view_get_run (view, r + 1)->start == end)
        end = sim_report_view_get_run (view, ++r)->end;
      g_string_append_printf (in_view, "%u-%u;", run->start, end);
    }
  assert_true (in_view->len > 0);
  assert_true (sim_report_view_get_n_excluded (view) > 0);
  in_window = window_spans (window);
  html = sim_export_html (view);
  in_html = html_article_spans (html);
  {
    /* The HTML marks each run: joined where they touch, as the window. */
    GString *joined = g_string_new (NULL);
    g_auto(GStrv) parts = g_strsplit (in_html, ";", -1);
    gint64 start = -1, end = -1;

    for (guint i = 0; parts[i] && *parts[i]; i++)
      {
        gint64 s = g_ascii_strtoll (parts[i], NULL, 10), e = g_ascii_strtoll (strchr (parts[i], '-') + 1, NULL, 10);

        if (start >= 0 && s == end)
          end = e;
        else
          {
            if (start >= 0)
              g_string_append_printf (joined, "%" G_GINT64_FORMAT "-%" G_GINT64_FORMAT ";", start, end);
            start = s, end = e;
          }
      }
    if (start >= 0)
      g_string_append_printf (joined, "%" G_GINT64_FORMAT "-%" G_GINT64_FORMAT ";", start, end);
    g_free (in_html);
    in_html = g_string_free (joined, FALSE);
  }
  assert_string_equal (in_window, in_view->str);
  assert_string_equal (in_html, in_view->str);
  g_settings_reset (settings, "exclude-quotes");
  gtk_window_destroy (GTK_WINDOW (window));
  sim_test_remove_tree (dir);
}

/* Choices kept from an earlier start apply to the first check of a new
 * window, without touching them. */
static void
test_window_applies_kept_choices_from_the_start (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *store = make_store (dir);
  g_autoptr(GSettings) settings = g_settings_new ("org.simhound.Simhound");
  SimWindow *window;

  g_settings_set_boolean (settings, "exclude-quotes", TRUE);
  window = sim_window_new (NULL, store);
  gtk_window_present (GTK_WINDOW (window));
  sim_window_set_text (window, OWN "As he wrote, “" EN_COPY "”");
  sim_window_check (window);
  sim_test_spin_until (check_finished, window, 60);
  assert_true (sim_report_get_similarity (sim_window_get_report (window)) > 0.3);
  assert_true (sim_report_view_get_n_excluded (sim_window_get_view (window)) > 0);
  assert_true (sim_report_view_get_similarity (sim_window_get_view (window)) <
               sim_report_get_similarity (sim_window_get_report (window)) - 0.2);
  g_settings_reset (settings, "exclude-quotes");
  gtk_window_destroy (GTK_WINDOW (window));
  sim_test_remove_tree (dir);
}

static void
test_window_checks_highlights_and_shows_sources (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *store = make_store (dir);
  SimWindow *window = sim_window_new (NULL, store);
  const char *text = OWN EN_COPY " " EN_EDIT "\n\n" ZH_COPY;
  GtkTextBuffer *buffer;
  GtkTextTagTable *tags;
  GtkTextIter iter;
  SimReport *report;
  guint n_flagged = 0;
  gpointer weak = window;

  g_object_add_weak_pointer (G_OBJECT (window), &weak);
  gtk_window_present (GTK_WINDOW (window));
  sim_test_spin_until (mapped, window, 10);
  assert_string_equal (sim_window_get_page (window), "main");
  /* No text yet: Check is off and says why. */
  assert_false (gtk_widget_get_sensitive (sim_window_get_check_button (window)));
  assert_string_equal (gtk_widget_get_tooltip_text (sim_window_get_check_button (window)),
                       "Paste or open a text to check first");
  sim_window_set_text (window, text);
  assert_true (gtk_widget_get_sensitive (sim_window_get_check_button (window)));
  sim_window_check (window);
  assert_true (sim_window_is_busy (window));
  sim_test_spin_until (check_finished, window, 60);
  report = sim_window_get_report (window);
  assert_non_null (report);

  /* Highlights, by source (the default): each source's flags in its own
   * colour and number, my own words in none. */
  buffer = sim_window_get_buffer (window);
  tags = gtk_text_buffer_get_tag_table (buffer);
  {
    SimArticleView *view = SIM_ARTICLE_VIEW (sim_window_get_editor (window));
    const gboolean lighthouse_first = g_str_has_suffix (sim_report_get_source (report, 0)->display_path, "lighthouse.txt");
    GtkTextTag *en = gtk_text_tag_table_lookup (tags, lighthouse_first ? "sim-source-1" : "sim-source-2");
    GtkTextTag *zh = gtk_text_tag_table_lookup (tags, lighthouse_first ? "sim-source-2" : "sim-source-1");
    GtkTextIter en_iter, zh_iter;
    guint32 start, end;
    gboolean seen[3] = { FALSE, FALSE, FALSE };

    gtk_text_buffer_get_iter_at_offset (buffer, &en_iter, g_utf8_strlen (OWN, -1) + 3);
    gtk_text_buffer_get_iter_at_offset (buffer, &zh_iter, g_utf8_strlen (text, -1) - 5);
    assert_true (gtk_text_iter_has_tag (&en_iter, en));
    assert_false (gtk_text_iter_has_tag (&en_iter, zh));
    assert_true (gtk_text_iter_has_tag (&zh_iter, zh));
    assert_false (gtk_text_iter_has_tag (&zh_iter, en));
    gtk_text_buffer_get_iter_at_offset (buffer, &iter, 3);
    assert_null (gtk_text_iter_get_tags (&iter));
    /* Every run of flags is numbered like its source; both numbers are there. */
    assert_true (sim_article_view_get_n_runs (view) >= 2);
    for (guint i = 0; i < sim_article_view_get_n_runs (view); i++)
      {
        const SimArticleRun *run = sim_article_view_get_run (view, i);

        assert_true (run->number >= 1 && run->number <= 2);
        seen[run->number] = TRUE;
      }
    assert_true (seen[1] && seen[2]);

    /* Choosing a source shows only its flags; choosing it again, all. */
    sim_window_filter_source (window, lighthouse_first ? 1 : 0);
    assert_false (gtk_text_iter_has_tag (&en_iter, en));
    assert_true (gtk_text_iter_has_tag (&zh_iter, zh));
    assert_true (g_str_has_suffix (sim_window_get_source_path (window), "teahouse.txt"));
    /* The selected flag is outlined, and the text is not restyled. */
    assert_true (sim_article_view_get_outline (view, &start, &end));
    assert_true (start < (guint32) gtk_text_iter_get_offset (&zh_iter) + 5 && end > (guint32) gtk_text_iter_get_offset (&zh_iter));
    sim_window_filter_source (window, -1);
    assert_true (gtk_text_iter_has_tag (&en_iter, en));

    /* By level: the copied sentences carry the high tag. */
    {
      g_autoptr(GSettings) settings = g_settings_new ("org.simhound.Simhound");

      g_settings_set_string (settings, "highlight", "level");
      assert_true (gtk_text_iter_has_tag (&en_iter, gtk_text_tag_table_lookup (tags, "sim-high")));
      assert_true (gtk_text_iter_has_tag (&zh_iter, gtk_text_tag_table_lookup (tags, "sim-high")));
      assert_false (gtk_text_iter_has_tag (&en_iter, en));
      g_settings_reset (settings, "highlight");
      assert_true (gtk_text_iter_has_tag (&en_iter, en));
    }
  }

  /* The summary shows the report's figure. */
  {
    g_autofree char *expected = g_strdup_printf ("%.1f%%", 100 * sim_report_get_similarity (report));

    assert_non_null (strstr (sim_window_get_summary (window), expected));
    assert_true (sim_report_get_similarity (report) > 0.5 && sim_report_get_similarity (report) < 1.0);
  }

  /* The source pane follows the selected segment. */
  for (guint i = 0; i < sim_report_get_n_segments (report); i++)
    if (sim_report_get_segment (report, i)->level != SIM_LEVEL_LOW)
      {
        n_flagged++;
        if (n_flagged == 1)
          {
            sim_window_select_segment (window, i);
            assert_true (g_str_has_suffix (sim_window_get_source_path (window), "lighthouse.txt"));
          }
      }
  assert_true (n_flagged >= 3);

  /* The comparison of the reworded sentence: context on both sides, the
   * changed words marked in both, the similarity in plain words. */
  {
    SimComparison *cmp = sim_window_get_comparison (window);
    const gint edited = sim_report_find_segment (report, g_utf8_strlen (OWN EN_COPY " ", -1) + 3);
    GtkTextBuffer *art, *src;
    GtkTextIter a, b;
    g_autofree char *art_text = NULL, *src_text = NULL;

    assert_true (edited >= 0);
    sim_window_select_segment (window, edited);
    art = sim_comparison_get_article (cmp);
    src = sim_comparison_get_source (cmp);
    gtk_text_buffer_get_bounds (art, &a, &b);
    art_text = gtk_text_buffer_get_text (art, &a, &b, FALSE);
    gtk_text_buffer_get_bounds (src, &a, &b);
    src_text = gtk_text_buffer_get_text (src, &a, &b, FALSE);
    assert_non_null (strstr (art_text, "storms of a hard winter"));
    assert_non_null (strstr (src_text, "storm of the hard winter"));
    assert_non_null (strstr (src_text, "spiral stairs"));         /* context before the passage */
    assert_non_null (strstr (art_text, "My cousin prefers"));     /* and in the article */
    gtk_text_buffer_get_iter_at_offset (art, &a, g_utf8_pointer_to_offset (art_text, strstr (art_text, "storms")));
    assert_true (gtk_text_iter_has_tag (&a, gtk_text_tag_table_lookup (gtk_text_buffer_get_tag_table (art), "changed")));
    gtk_text_buffer_get_iter_at_offset (art, &a, g_utf8_pointer_to_offset (art_text, strstr (art_text, "forty")));
    assert_false (gtk_text_iter_has_tag (&a, gtk_text_tag_table_lookup (gtk_text_buffer_get_tag_table (art), "changed")));
    gtk_text_buffer_get_iter_at_offset (src, &a, g_utf8_pointer_to_offset (src_text, strstr (src_text, "the hard")));
    assert_true (gtk_text_iter_has_tag (&a, gtk_text_tag_table_lookup (gtk_text_buffer_get_tag_table (src), "changed")));
    /* Issue 31, fault 4: one figure for the passage, the same in the
     * comparison, the HTML (its mark and its entry in the list) and the
     * JSON's run. */
    {
      SimReportView *view = sim_window_get_view (window);
      const SimFlaggedRun *run = sim_report_view_get_run (view, sim_report_view_find_run (view, edited));
      g_autofree char *figure = g_strdup_printf ("%.0f%% similar to ", 100 * run->similarity);
      g_autofree char *said = g_strdup_printf ("%.0f%% similar to the source; 2 changed", 100 * run->similarity);
      g_autofree char *html = sim_export_html (view);
      g_autofree char *json = sim_report_view_to_json (view, NULL, FALSE);
      g_autofree char *in_json = g_strdup_printf ("\"similarity\":%g", round (1000 * run->similarity) / 1000);
      const char *list = strstr (html, "Flagged passages and their sources");

      assert_string_equal (sim_comparison_get_summary (cmp), said);
      assert_non_null (list);
      assert_non_null (strstr (list, figure));
      assert_non_null (strstr (html, figure));
      assert_non_null (strstr (json, in_json));
    }
    assert_true (g_str_has_prefix (sim_comparison_get_title (cmp), "Source "));
  }

  /* F3 moves to the next flagged segment: its source is the tea house. */
  assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.next-segment", NULL));
  assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.next-segment", NULL));
  assert_true (g_str_has_suffix (sim_window_get_source_path (window), "teahouse.txt"));
  assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.previous-segment", NULL));
  assert_true (g_str_has_suffix (sim_window_get_source_path (window), "lighthouse.txt"));

  /* The chart renders at its size with the high colour in it. */
  {
    GtkWidget *chart = sim_window_get_chart (window);
    g_autoptr(GdkTexture) texture = sim_test_ui_render (chart);
    const int w = gdk_texture_get_width (texture), h = gdk_texture_get_height (texture);
    g_autofree guchar *pixels = g_malloc (w * h * 4);
    g_autofree char *png = g_build_filename (dir, "chart.png", NULL);
    guint red = 0;

    assert_int_equal (w, gtk_widget_get_width (chart));
    assert_int_equal (h, 130);
    gdk_texture_download (texture, pixels, w * 4);
    for (int i = 0; i < w * h; i++)
      {
        /* Cairo order on little-endian: B, G, R, A. #e01b24 */
        const guchar b = pixels[4 * i], g = pixels[4 * i + 1], r = pixels[4 * i + 2];

        red += r > 200 && g < 60 && b < 70;
      }
    assert_true (red > 100);
    assert_true (gdk_texture_save_to_png (texture, png));
    assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
  }

  /* The chart marks the selected segment and its tooltips say what a bar
   * is: a flag names its source, my own sentence has none above medium. */
  {
    SimChart *chart = SIM_CHART (sim_window_get_chart (window));
    const int w = gtk_widget_get_width (GTK_WIDGET (chart));
    gint flagged = -1;
    gboolean said_flag = FALSE, said_own = FALSE, said_band = FALSE;

    for (guint i = 0; i < sim_report_get_n_segments (report) && flagged < 0; i++)
      if (sim_report_get_segment (report, i)->level == SIM_LEVEL_HIGH)
        flagged = i;
    sim_window_select_segment (window, flagged);
    assert_int_equal (sim_chart_get_selected (chart), flagged);
    for (int x = 0; x < w; x++)
      {
        const gint at = sim_chart_segment_at (chart, x, 40);
        g_autofree char *said = sim_chart_describe_at (chart, x, 40);

        if (said == NULL)
          continue;
        if (at == flagged && strstr (said, "% similar to source ") != NULL)
          said_flag = TRUE;
        if (at == 0 && (strstr (said, "no similar source") || strstr (said, "below the medium level")))
          said_own = TRUE;
        if (strstr (said, "segments from ") || strstr (said, "segment from "))
          said_band = TRUE;
      }
    assert_true (said_flag);
    assert_true (said_own);
    assert_true (said_band);
  }

  /* Editing marks the results stale. */
  gtk_text_buffer_get_end_iter (buffer, &iter);
  gtk_text_buffer_insert (buffer, &iter, " more", -1);
  assert_non_null (sim_window_get_report (window));

  gtk_window_destroy (GTK_WINDOW (window));
  sim_test_spin_until ((gboolean (*) (gpointer)) g_main_context_pending, NULL, 0);
  for (int i = 0; i < 100 && weak != NULL; i++)
    g_main_context_iteration (NULL, FALSE);
  assert_null (weak);
  sim_test_remove_tree (dir);
}

static void
test_window_shows_the_empty_state_without_a_corpus (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *store = g_build_filename (dir, "empty.db", NULL);
  SimWindow *window = sim_window_new (NULL, store);

  assert_string_equal (sim_window_get_page (window), "empty");
  gtk_window_present (GTK_WINDOW (window));
  /* The icon the empty state and the window show ships in the resources. */
  assert_true (gtk_icon_theme_has_icon (gtk_icon_theme_get_for_display (gdk_display_get_default ()),
                                        "org.simhound.Simhound"));
  sim_test_spin_until (mapped, window, 10);
  sim_window_set_text (window, "Some text to check.");
  assert_false (gtk_widget_get_sensitive (sim_window_get_check_button (window)));
  assert_string_equal (gtk_widget_get_tooltip_text (sim_window_get_check_button (window)),
                       "Add documents to the reference corpus first");
  gtk_window_destroy (GTK_WINDOW (window));
  sim_test_remove_tree (dir);
}

static gboolean
not_busy (gpointer data)
{
  return !sim_window_is_busy (data);
}

/* From the empty state, "Use the demo corpus" imports in the background and
 * the corpus manager lists what was imported. */
static void
test_window_waits_for_another_writer_and_says_so (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *store_path = make_store (dir);
  g_autofree char *more = g_build_filename (dir, "more", NULL);
  const char *paths[] = { more, NULL };
  g_autoptr(SimStore) other = NULL;
  SimWindow *window;

  for (guint i = 0; i < 5; i++)
    {
      g_autofree char *name = g_strdup_printf ("more-%u.txt", i);
      g_autofree char *text = g_strdup_printf ("Another document %u about the mill on the river and its %u wheels.", i, i + 2);

      g_free (sim_test_write_file (more, name, text, -1));
    }
  window = sim_window_new (NULL, store_path);
  gtk_window_present (GTK_WINDOW (window));
  /* Another writer (the CLI, another window) holds the store. */
  other = sim_store_open (store_path, FALSE, NULL);
  assert_non_null (other);
  assert_true (sim_store_begin (other, NULL));
  sim_window_add_documents (window, paths);
  sim_test_spin_until (is_waiting, window, 20);
  assert_true (is_waiting (window));
  assert_true (sim_window_is_busy (window));
  /* It lets go after longer than SQLite's own 10 s would have waited. */
  for (gint64 end = g_get_monotonic_time () + 11 * G_USEC_PER_SEC; g_get_monotonic_time () < end;)
    g_main_context_iteration (NULL, FALSE);
  assert_true (sim_window_is_busy (window));
  sim_store_rollback (other);
  sim_test_spin_until (not_busy, window, 30);
  assert_false (sim_window_is_busy (window));
  {
    g_autoptr(SimCorpus) corpus = sim_corpus_open (store_path, TRUE, NULL);
    g_autoptr(SimCorpusSnapshot) snapshot = sim_corpus_ref_snapshot (corpus);

    assert_int_equal (sim_corpus_snapshot_get_n_docs (snapshot), 2 + 5);
  }
  gtk_window_destroy (GTK_WINDOW (window));
  sim_test_remove_tree (dir);
}

static void
test_window_imports_the_demo_corpus_and_lists_it (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *texts = g_build_filename (dir, "demo", NULL);
  g_autofree char *store = g_build_filename (dir, "store.db", NULL);
  SimWindow *window;
  GtkWidget *corpus_window;

  for (guint i = 0; i < 30; i++)
    {
      g_autofree char *name = g_strdup_printf ("doc-%02u.txt", i);
      g_autofree char *text = g_strdup_printf ("Document number %u talks about river number %u and its %u bridges.", i, i * 7, i * 3);

      g_free (sim_test_write_file (texts, name, text, -1));
    }
  g_free (sim_test_write_file (texts, "picture.png", "\x89PNG\r\n\x1a\n\0\0\0", 11));
  g_setenv ("SIMHOUND_DEMO_TEXTS", texts, TRUE);
  window = sim_window_new (NULL, store);
  gtk_window_present (GTK_WINDOW (window));
  assert_string_equal (sim_window_get_page (window), "empty");
  assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.use-demo", NULL));
  assert_true (sim_window_is_busy (window));
  sim_test_spin_until (not_busy, window, 60);
  assert_string_equal (sim_window_get_page (window), "main");
  /* The unreadable picture is reported in a dialog while the rest imports. */
  assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.manage-corpus", NULL));
  corpus_window = sim_window_get_corpus_window (window);
  assert_non_null (corpus_window);
  assert_int_equal (sim_corpus_window_get_n_documents (SIM_CORPUS_WINDOW (corpus_window)), 30);

  /* Cancel stops an import: nothing of the unfinished batch is kept. */
  {
    g_autofree char *more = g_build_filename (dir, "more", NULL);
    const char *paths[] = { more, NULL };

    for (guint i = 0; i < 3000; i++)
      {
        g_autofree char *name = g_strdup_printf ("extra-%04u.txt", i);
        g_autofree char *text = g_strdup_printf ("Extra document %u about lake %u with %u boats on it.", i, i * 11, i % 17);

        g_free (sim_test_write_file (more, name, text, -1));
      }
    sim_window_add_documents (window, paths);
    assert_true (sim_window_is_busy (window));
    assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.cancel-check", NULL));
    sim_test_spin_until (not_busy, window, 60);
    sim_corpus_window_reload (SIM_CORPUS_WINDOW (corpus_window));
    assert_true (sim_corpus_window_get_n_documents (SIM_CORPUS_WINDOW (corpus_window)) < 30 + 3000);
    assert_int_equal ((sim_corpus_window_get_n_documents (SIM_CORPUS_WINDOW (corpus_window)) - 30) % SIM_CORPUS_BATCH_DOCS, 0);
  }

  /* The traditional-folding preference rebuilds the store in the background. */
  {
    g_autoptr(GSettings) settings = g_settings_new ("org.simhound.Simhound");
    g_autoptr(SimCorpus) corpus = NULL;

    assert_true (g_settings_get_boolean (settings, "fold-traditional"));
    g_settings_set_boolean (settings, "fold-traditional", FALSE);
    assert_true (sim_window_is_busy (window));
    sim_test_spin_until (not_busy, window, 60);
    corpus = sim_corpus_open (store, TRUE, NULL);
    assert_int_equal (sim_corpus_get_flags (corpus), SIM_NORMALIZE_DEFAULT);
    g_settings_reset (settings, "fold-traditional");
    sim_test_spin_until (not_busy, window, 60);
  }
  gtk_window_destroy (GTK_WINDOW (window));
  g_unsetenv ("SIMHOUND_DEMO_TEXTS");
  sim_test_remove_tree (dir);
}

/* The export dialog's type decides the format and adds the extension; a
 * name typed with the other type's extension keeps it. */
static void
test_export_dialog_names_the_file_by_its_type (void **state)
{
  struct { const char *chosen; gboolean pdf; const char *path; gboolean as_pdf; } cases[] = {
    { "/tmp/report", TRUE, "/tmp/report.pdf", TRUE },
    { "/tmp/report", FALSE, "/tmp/report.html", FALSE },
    { "/tmp/report.pdf", TRUE, "/tmp/report.pdf", TRUE },
    { "/tmp/report.PDF", FALSE, "/tmp/report.PDF", TRUE },
    { "/tmp/report.html", TRUE, "/tmp/report.html", FALSE },
    { "/tmp/report.htm", FALSE, "/tmp/report.htm", FALSE },
    { "/tmp/v1.2", TRUE, "/tmp/v1.2.pdf", TRUE },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gboolean pdf = !cases[i].as_pdf;
      g_autofree char *path = sim_export_dialog_path_for (cases[i].chosen, cases[i].pdf, &pdf);

      assert_string_equal (path, cases[i].path);
      assert_int_equal (pdf, cases[i].as_pdf);
    }
}

/* At 640x480 the window fits: text and results fold into one view, a flag
 * chosen shows its comparison in the text's place, Back returns; wide, the
 * two sit side by side. */
static void
test_window_fits_640_by_480 (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *store = make_store (dir);
  SimWindow *window = sim_window_new (NULL, store);
  int min_w, min_h;
  gint flagged = -1;

  gtk_window_set_default_size (GTK_WINDOW (window), 640, 480);
  gtk_window_present (GTK_WINDOW (window));
  sim_test_spin_until (mapped, window, 10);
  sim_window_set_text (window, OWN EN_COPY " " ZH_COPY);
  sim_window_check (window);
  /* The header while checking (progress, Cancel) fits too. */
  {
    int busy_w;

    gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_HORIZONTAL, -1, &busy_w, NULL, NULL, NULL);
    assert_true (busy_w <= 640);
  }
  sim_test_spin_until (check_finished, window, 60);
  sim_test_ui_settle (GTK_WIDGET (window), 200);

  gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_HORIZONTAL, -1, &min_w, NULL, NULL, NULL);
  gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_VERTICAL, 640, &min_h, NULL, NULL, NULL);
  assert_true (min_w <= 640);
  assert_true (min_h <= 480);
  assert_true (gtk_widget_get_width (GTK_WIDGET (window)) <= 640);
  assert_true (gtk_widget_get_height (GTK_WIDGET (window)) <= 480);
  assert_true (sim_window_is_folded (window));
  assert_string_equal (sim_window_get_visible_view (window), "text");
  /* Issue 31, fault 13: the toolbar is one row (it wrapped to three). */
  assert_int_equal (sim_window_count_toolbar_rows (window), 1);
  /* Colouring by level shows its legend, and still fits. */
  {
    g_autoptr(GSettings) settings = g_settings_new ("org.simhound.Simhound");
    int level_w;

    g_settings_set_string (settings, "highlight", "level");
    gtk_widget_measure (GTK_WIDGET (window), GTK_ORIENTATION_HORIZONTAL, -1, &level_w, NULL, NULL, NULL);
    assert_true (level_w <= 640);
    g_settings_reset (settings, "highlight");
  }

  for (guint i = 0; i < sim_report_get_n_segments (sim_window_get_report (window)) && flagged < 0; i++)
    if (sim_report_get_segment (sim_window_get_report (window), i)->level == SIM_LEVEL_HIGH)
      flagged = i;
  sim_window_select_segment (window, flagged);
  assert_string_equal (sim_window_get_visible_view (window), "results");
  assert_true (strstr (sim_comparison_get_title (SIM_COMPARISON (sim_window_get_comparison (window))), "Source ") != NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  sim_test_ui_settle (GTK_WIDGET (window), 300);
  assert_false (sim_window_is_folded (window));
  assert_false (sim_comparison_is_side_by_side (SIM_COMPARISON (sim_window_get_comparison (window))));
  /* At 1,920 px the two passages of the comparison sit side by side. */
  gtk_window_set_default_size (GTK_WINDOW (window), 1920, 1080);
  sim_test_ui_settle (GTK_WIDGET (window), 300);
  assert_true (sim_comparison_is_side_by_side (SIM_COMPARISON (sim_window_get_comparison (window))));
  gtk_window_destroy (GTK_WINDOW (window));
  sim_test_remove_tree (dir);
}

typedef struct {
  GMenuModel *menu;
  const char *uri;
} RecentWait;

/* Open Recent's newest item is the file (other tests open files too). */
static gboolean
recent_has_file_first (gpointer data)
{
  const RecentWait *wait = data;
  g_autoptr(GVariant) target = NULL;

  if (g_menu_model_get_n_items (wait->menu) == 0)
    return FALSE;
  target = g_menu_model_get_item_attribute_value (wait->menu, 0, G_MENU_ATTRIBUTE_TARGET, G_VARIANT_TYPE_STRING);
  return target != NULL && g_str_equal (g_variant_get_string (target, NULL), wait->uri);
}

/* The title names the file opened and marks the text edited since; pasted
 * text is untitled. */
static void
test_window_title_names_the_file_and_marks_edits (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *store = make_store (dir);
  g_autofree char *essay = sim_test_write_file (dir, "essay.txt", OWN, -1);
  g_autoptr(GFile) file = g_file_new_for_path (essay);
  SimWindow *window = sim_window_new (NULL, store);
  GtkTextBuffer *buffer = sim_window_get_buffer (window);
  GtkTextIter end;

  gtk_window_present (GTK_WINDOW (window));
  assert_string_equal (gtk_window_get_title (GTK_WINDOW (window)), "Simhound");
  sim_window_open_file (window, file);
  assert_string_equal (gtk_window_get_title (GTK_WINDOW (window)), "essay.txt — Simhound");
  /* Open Recent offers it, at the top. */
  {
    g_autofree char *uri = g_file_get_uri (file);
    RecentWait wait = { sim_window_get_recent_menu (window), uri };

    sim_test_spin_until (recent_has_file_first, &wait, 10);
  }
  assert_true (g_menu_model_get_n_items (sim_window_get_recent_menu (window)) > 0);
  {
    g_autofree char *label = NULL;
    g_autoptr(GVariant) target = NULL;
    g_autofree char *uri = g_file_get_uri (file);

    assert_true (g_menu_model_get_item_attribute (sim_window_get_recent_menu (window), 0, G_MENU_ATTRIBUTE_LABEL, "s", &label));
    assert_string_equal (label, "essay.txt");
    target = g_menu_model_get_item_attribute_value (sim_window_get_recent_menu (window), 0, G_MENU_ATTRIBUTE_TARGET,
                                                    G_VARIANT_TYPE_STRING);
    assert_string_equal (g_variant_get_string (target, NULL), uri);
  }
  gtk_text_buffer_get_end_iter (buffer, &end);
  gtk_text_buffer_insert (buffer, &end, "One more sentence.", -1);
  assert_string_equal (gtk_window_get_title (GTK_WINDOW (window)), "*essay.txt — Simhound");
  sim_window_set_text (window, "Pasted words.");
  assert_string_equal (gtk_window_get_title (GTK_WINDOW (window)), "Untitled Text — Simhound");
  gtk_window_destroy (GTK_WINDOW (window));
  sim_test_remove_tree (dir);
}

static gboolean
file_exists (gpointer path)
{
  return g_file_test (path, G_FILE_TEST_EXISTS);
}

static GtkWidget *
find_message_dialog (const char *heading)
{
  GListModel *toplevels = gtk_window_get_toplevels ();  /* (transfer none) */

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWidget) w = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (w) && g_strcmp0 (adw_message_dialog_get_heading (ADW_MESSAGE_DIALOG (w)), heading) == 0)
        return w;
    }
  return NULL;
}

static gboolean
has_error_dialog (gpointer heading)
{
  return find_message_dialog (heading) != NULL;
}

static gboolean
busy_and_progressing (gpointer data)
{
  return !sim_window_is_busy (data);
}

/* A file past 1 MB is read in a thread and put in the buffer a slice at a
 * time: open returns at once, the progress bar moves, the whole text
 * arrives; Cancel leaves the window empty and usable. */
static void
test_window_opens_a_large_file_in_the_background (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *store = make_store (dir);
  GString *big = g_string_new (NULL);
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  SimWindow *window = sim_window_new (NULL, store);
  GtkTextBuffer *buffer = sim_window_get_buffer (window);
  g_autoptr(GHashTable) fractions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  glong n_chars;

  while (big->len < 3 << 20)
    g_string_append (big, "第一句话在这里。The harbour lamp burned all night over the reef.\n");
  n_chars = g_utf8_strlen (big->str, -1);
  path = sim_test_write_file (dir, "big.txt", big->str, big->len);
  file = g_file_new_for_path (path);
  gtk_window_present (GTK_WINDOW (window));
  /* Another file was open before (issue 31, fault 12: the title named it,
   * "edited since opened", while the new one loaded). */
  {
    g_autofree char *small = sim_test_write_file (dir, "small.txt", "A short essay.", -1);
    g_autoptr(GFile) small_file = g_file_new_for_path (small);

    sim_window_open_file (window, small_file);
    assert_string_equal (gtk_window_get_title (GTK_WINDOW (window)), "small.txt — Simhound");
  }

  sim_window_open_file (window, file);
  assert_true (sim_window_is_busy (window));
  assert_string_equal (sim_window_get_progress_text (window), "Opening big.txt…");
  assert_true (gtk_text_buffer_get_char_count (buffer) < n_chars);
  for (int i = 0; i < 100000 && sim_window_is_busy (window); i++)
    {
      g_autofree char *f = NULL;

      g_main_context_iteration (NULL, TRUE);
      if (sim_window_is_busy (window))
        assert_string_equal (gtk_window_get_title (GTK_WINDOW (window)), "big.txt — Simhound");
      f = g_strdup_printf ("%.2f", sim_window_get_progress (window));
      g_hash_table_add (fractions, g_steal_pointer (&f));
    }
  assert_false (sim_window_is_busy (window));
  assert_true (g_hash_table_size (fractions) >= 3);   /* several slices, each shown */
  assert_int_equal (gtk_text_buffer_get_char_count (buffer), n_chars);
  assert_string_equal (gtk_window_get_title (GTK_WINDOW (window)), "big.txt — Simhound");

  /* Cancel while it loads: nothing half-loaded stays. */
  sim_window_set_text (window, "");
  sim_window_open_file (window, file);
  assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.cancel-check", NULL));
  sim_test_spin_until (busy_and_progressing, window, 30);
  assert_int_equal (gtk_text_buffer_get_char_count (buffer), 0);
  assert_true (gtk_text_view_get_editable (GTK_TEXT_VIEW (sim_window_get_editor (window))));
  g_string_free (big, TRUE);
  gtk_window_destroy (GTK_WINDOW (window));
  sim_test_remove_tree (dir);
}

/* "Save Report" writes the report with its text; opening that file shows
 * the same result at once, without a check, and Save Report again works. */
static void
test_window_reopens_a_saved_report (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *store = make_store (dir);
  g_autofree char *saved = g_build_filename (dir, "essay-report.json", NULL);
  g_autofree char *bad = sim_test_write_file (dir, "other.json", "{\"saved_report\": 1, \"text\": 5}", -1);
  g_autoptr(GFile) file = g_file_new_for_path (saved);
  g_autoptr(GError) error = NULL;
  g_autofree char *before = NULL, *after = NULL;
  SimWindow *window = sim_window_new (NULL, store);
  SimWindow *reopened;

  gtk_window_present (GTK_WINDOW (window));
  sim_window_set_text (window, OWN EN_COPY " " ZH_COPY);
  sim_window_check (window);
  sim_test_spin_until (check_finished, window, 60);
  assert_true (sim_window_save_report (window, saved, &error));
  before = sim_test_report_json (sim_window_get_report (window), TRUE);

  reopened = sim_window_new (NULL, store);
  gtk_window_present (GTK_WINDOW (reopened));
  sim_window_open_file (reopened, file);
  assert_false (sim_window_is_busy (reopened));
  assert_non_null (sim_window_get_report (reopened));
  after = sim_test_report_json (sim_window_get_report (reopened), TRUE);
  assert_string_equal (after, before);
  {
    GtkTextIter start, end;
    g_autofree char *text = NULL;

    gtk_text_buffer_get_bounds (sim_window_get_buffer (reopened), &start, &end);
    text = gtk_text_buffer_get_text (sim_window_get_buffer (reopened), &start, &end, FALSE);
    assert_string_equal (text, OWN EN_COPY " " ZH_COPY);
  }
  assert_string_equal (gtk_window_get_title (GTK_WINDOW (reopened)), "essay-report.json — Simhound");
  assert_string_equal (sim_window_get_summary (reopened), sim_window_get_summary (window));

  /* A damaged one says so and leaves the window as it was. */
  {
    g_autoptr(GFile) other = g_file_new_for_path (bad);

    sim_window_open_file (reopened, other);
    sim_test_spin_until (has_error_dialog, (gpointer) "The report could not be opened", 10);
    gtk_window_destroy (GTK_WINDOW (find_message_dialog ("The report could not be opened")));
    assert_string_equal (gtk_window_get_title (GTK_WINDOW (reopened)), "essay-report.json — Simhound");
  }
  gtk_window_destroy (GTK_WINDOW (reopened));
  gtk_window_destroy (GTK_WINDOW (window));
  sim_test_remove_tree (dir);
}

/* An export is written off the main thread and confirmed by a toast with
 * Open and Show in Folder; a file that cannot be written says why. */
static gboolean
export_folder_is (gpointer dir)
{
  g_autoptr(GFile) folder = sim_export_dialog_suggest_folder ();
  g_autofree char *where = g_file_get_path (folder);

  return g_str_equal (where, dir);
}

static void
test_export_writes_in_the_background_and_confirms (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *store = make_store (dir);
  g_autofree char *html = g_build_filename (dir, "report.html", NULL);
  g_autofree char *text = NULL;
  SimWindow *window = sim_window_new (NULL, store);
  GtkWidget *overlay = adw_toast_overlay_new ();
  GtkWidget *holder = gtk_window_new ();

  gtk_window_set_child (GTK_WINDOW (holder), overlay);
  gtk_window_present (GTK_WINDOW (holder));
  sim_window_set_text (window, OWN EN_COPY);
  sim_window_check (window);
  sim_test_spin_until (check_finished, window, 60);

  sim_export_dialog_write (GTK_WINDOW (holder), ADW_TOAST_OVERLAY (overlay), sim_window_get_view (window), html, FALSE);
  sim_test_spin_until (file_exists, html, 30);
  assert_true (g_file_get_contents (html, &text, NULL, NULL));
  assert_non_null (strstr (text, "lighthouse.txt"));
  {
    g_autoptr(AdwToast) toast = sim_export_dialog_new_toast (GTK_WINDOW (holder), html);

    GtkWidget *title = adw_toast_get_custom_title (toast);

    /* The name, then Show in Folder; the toast's own button opens. */
    assert_string_equal (gtk_label_get_text (GTK_LABEL (gtk_widget_get_first_child (title))), "Saved report.html");
    assert_string_equal (gtk_button_get_label (GTK_BUTTON (gtk_widget_get_last_child (title))), "Show in _Folder");
    assert_string_equal (adw_toast_get_button_label (toast), "_Open");
  }

  /* Issue 31, fault 2: the next export is offered in this folder, named
   * after the essay. */
  sim_test_spin_until (export_folder_is, dir, 30);
  {
    g_autoptr(GFile) folder = sim_export_dialog_suggest_folder ();
    g_autofree char *where = g_file_get_path (folder);
    g_autofree char *named = sim_export_dialog_suggest_name ("daniel.docx", "similarity-report");
    g_autofree char *pasted = sim_export_dialog_suggest_name (NULL, "similarity-report");

    assert_string_equal (where, dir);
    assert_string_equal (named, "daniel-similarity");
    assert_string_equal (pasted, "similarity-report");
  }

  sim_export_dialog_write (GTK_WINDOW (holder), ADW_TOAST_OVERLAY (overlay), sim_window_get_view (window),
                           "/nonexistent/folder/report.pdf", TRUE);
  sim_test_spin_until (has_error_dialog, (gpointer) "The report could not be saved", 30);
  assert_non_null (find_message_dialog ("The report could not be saved"));
  gtk_window_destroy (GTK_WINDOW (find_message_dialog ("The report could not be saved")));
  gtk_window_destroy (GTK_WINDOW (holder));
  gtk_window_destroy (GTK_WINDOW (window));
  sim_test_remove_tree (dir);
}

/* Leaving quotations out greys them and lowers the figure at once, without
 * a new check; taking the choice back restores both. */
static void
test_window_leaves_out_quotes_without_a_new_check (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *store = make_store (dir);
  g_autoptr(GSettings) settings = g_settings_new ("org.simhound.Simhound");
  SimWindow *window = sim_window_new (NULL, store);
  const char *text = OWN "As he wrote, “" EN_COPY "” " EN_EDIT;

  g_settings_set_string (settings, "highlight", "level");
  GtkTextTagTable *tags;
  GtkTextIter iter;
  SimReport *report;
  float before;

  gtk_window_present (GTK_WINDOW (window));
  sim_test_spin_until (mapped, window, 10);
  sim_window_set_text (window, text);
  sim_window_check (window);
  sim_test_spin_until (check_finished, window, 60);
  report = sim_window_get_report (window);
  before = sim_report_view_get_similarity (sim_window_get_view (window));
  assert_true (before > 0.3);
  tags = gtk_text_buffer_get_tag_table (sim_window_get_buffer (window));
  gtk_text_buffer_get_iter_at_offset (sim_window_get_buffer (window), &iter,
                                      g_utf8_strlen (OWN "As he wrote, “", -1) + 5);
  assert_true (gtk_text_iter_has_tag (&iter, gtk_text_tag_table_lookup (tags, "sim-high")));

  g_settings_set_boolean (settings, "exclude-quotes", TRUE);
  assert_false (sim_window_choices_are_default (window));
  assert_true (sim_window_get_report (window) == report);   /* the same report: no new check */
  assert_true (sim_report_view_get_similarity (sim_window_get_view (window)) < before - 0.2);
  assert_float_equal (sim_report_get_similarity (report), before, 1e-6);  /* the report is not changed */
  assert_true (gtk_text_iter_has_tag (&iter, gtk_text_tag_table_lookup (tags, "sim-excluded")));
  assert_false (gtk_text_iter_has_tag (&iter, gtk_text_tag_table_lookup (tags, "sim-high")));
  assert_non_null (strstr (sim_window_get_summary (window),
                           g_strdup_printf ("%.1f%%", 100 * sim_report_view_get_similarity (sim_window_get_view (window)))));

  g_settings_reset (settings, "exclude-quotes");
  assert_float_equal (sim_report_view_get_similarity (sim_window_get_view (window)), before, 1e-6);
  assert_true (gtk_text_iter_has_tag (&iter, gtk_text_tag_table_lookup (tags, "sim-high")));
  /* Colouring by level is not the default either; Reset puts every
   * toolbar choice back, and the toolbar says they are the defaults. */
  assert_false (sim_window_choices_are_default (window));
  g_settings_set_boolean (settings, "fast", TRUE);
  assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.reset-choices", NULL));
  assert_true (sim_window_choices_are_default (window));
  assert_false (g_settings_get_boolean (settings, "fast"));
  {
    g_autofree char *highlight = g_settings_get_string (settings, "highlight");

    assert_string_equal (highlight, "source");
  }
  gtk_window_destroy (GTK_WINDOW (window));
  sim_test_remove_tree (dir);
}

/* The other exclusions the CLI has, in the app and without a new check:
 * short passages, a source left out (its tick in the list), and the
 * assignment's own text. */
static void
test_window_leaves_out_short_passages_a_source_and_the_assignment (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *store = make_store (dir);
  g_autoptr(GSettings) settings = g_settings_new ("org.simhound.Simhound");
  SimWindow *window = sim_window_new (NULL, store);
  SimReport *report;
  float before;
  gint lighthouse = -1;

  gtk_window_present (GTK_WINDOW (window));
  sim_window_set_text (window, OWN EN_COPY " " ZH_COPY);
  sim_window_check (window);
  sim_test_spin_until (check_finished, window, 60);
  report = sim_window_get_report (window);
  before = sim_report_view_get_similarity (sim_window_get_view (window));
  assert_true (before > 0.3);

  /* Both copies are short of 100 words: none is flagged. */
  g_settings_set_uint (settings, "exclude-small", 100);
  assert_true (sim_window_get_report (window) == report);
  assert_float_equal (sim_report_view_get_similarity (sim_window_get_view (window)), 0, 1e-6);
  assert_false (sim_window_choices_are_default (window));
  g_settings_reset (settings, "exclude-small");
  assert_float_equal (sim_report_view_get_similarity (sim_window_get_view (window)), before, 1e-6);

  /* The lighthouse left out: its passage no longer counts, and the JSON
   * says why; ticked again, it does. */
  for (guint i = 0; i < sim_report_get_n_sources (report); i++)
    if (g_str_has_suffix (sim_report_get_source (report, i)->display_path, "lighthouse.txt"))
      lighthouse = i;
  assert_true (lighthouse >= 0);
  sim_window_set_source_counted (window, lighthouse, FALSE);
  assert_true (sim_report_view_get_similarity (sim_window_get_view (window)) < before - 0.2);
  {
    g_autofree char *json = sim_report_view_to_json (sim_window_get_view (window), NULL, FALSE);

    assert_non_null (strstr (json, "\"reason\":\"source\""));
  }
  sim_window_set_source_counted (window, lighthouse, TRUE);
  assert_float_equal (sim_report_view_get_similarity (sim_window_get_view (window)), before, 1e-6);

  /* The assignment repeats the English sentence: it is never flagged. */
  sim_window_set_template (window, "assignment.txt", EN_COPY);
  assert_true (sim_report_view_get_similarity (sim_window_get_view (window)) < before - 0.2);
  sim_window_set_template (window, NULL, NULL);
  assert_float_equal (sim_report_view_get_similarity (sim_window_get_view (window)), before, 1e-6);
  gtk_window_destroy (GTK_WINDOW (window));
  sim_test_remove_tree (dir);
}

/* Run in a child as a user who may only read the store (root may write
 * anything, so as root the child runs as nobody): the window checks against
 * it, says it is read-only, and offers no edits. */
static int
read_only_case (const char *store)
{
  SimWindow *window = sim_window_new (NULL, store);
  const char *paths[] = { store, NULL };
  GtkWidget *corpus_window;

  gtk_window_present (GTK_WINDOW (window));
  sim_test_spin_until (mapped, window, 10);
  g_assert_cmpstr (sim_window_get_page (window), ==, "main");
  g_assert_nonnull (sim_window_get_read_only_message (window));
  g_assert_nonnull (strstr (sim_window_get_read_only_message (window), "read-only"));
  sim_window_add_documents (window, paths);
  g_assert_false (sim_window_is_busy (window));
  sim_window_set_text (window, OWN EN_COPY);
  sim_window_check (window);
  sim_test_spin_until (check_finished, window, 60);
  g_assert_nonnull (sim_window_get_report (window));
  g_assert_cmpfloat (sim_report_get_similarity (sim_window_get_report (window)), >, 0.4);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.manage-corpus", NULL));
  corpus_window = sim_window_get_corpus_window (window);
  g_assert_cmpuint (sim_corpus_window_get_n_documents (SIM_CORPUS_WINDOW (corpus_window)), ==, 2);
  gtk_window_destroy (GTK_WINDOW (window));
  return 0;
}

static void
as_reader (gpointer data)
{
  if (geteuid () == 0 && setgid (65534) == 0)
    (void) !setuid (65534);
}

static void
test_window_uses_a_read_only_store (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *store = make_store (dir);
  g_autofree char *xauth = NULL;
  g_autofree char *self_path = g_file_read_link ("/proc/self/exe", NULL);
  g_auto(GStrv) env = g_get_environ ();
  const char *argv[] = { self_path, "--read-only-store", store, NULL };
  g_autoptr(GError) error = NULL;
  int status = -1;

  /* The child, maybe another user, must reach the display and the store. */
  if (g_getenv ("XAUTHORITY") != NULL)
    {
      g_autofree char *cookie = NULL;
      gsize len = 0;

      assert_true (g_file_get_contents (g_getenv ("XAUTHORITY"), &cookie, &len, NULL));
      xauth = sim_test_write_file (dir, "Xauthority", cookie, len);
      assert_int_equal (g_chmod (xauth, 0644), 0);
      env = g_environ_setenv (env, "XAUTHORITY", xauth, TRUE);
    }
  env = g_environ_setenv (env, "HOME", dir, TRUE);
  env = g_environ_setenv (env, "XDG_RUNTIME_DIR", dir, TRUE);
  assert_int_equal (g_chmod (store, 0444), 0);
  assert_int_equal (g_chmod (dir, 0555), 0);
  assert_true (g_spawn_sync (NULL, (char **) argv, env, G_SPAWN_DEFAULT, as_reader, NULL, NULL, NULL, &status, &error));
  assert_int_equal (g_chmod (dir, 0755), 0);
  assert_true (g_spawn_check_wait_status (status, &error));
  sim_test_remove_tree (dir);
}

/* One flipped byte in a stored text: the window's Repair reads it again
 * from its unchanged file, and checks work as before. */
static void
test_window_repairs_a_damaged_corpus (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *store = make_store (dir);
  SimWindow *window;
  sqlite3 *db = NULL;

  assert_int_equal (sqlite3_open (store, &db), SQLITE_OK);
  assert_int_equal (sqlite3_exec (db, "UPDATE texts SET body = substr (body, 1, 60) || x'5a' || substr (body, 62) "
                                      "WHERE doc_id = (SELECT min (doc_id) FROM texts)", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close (db);
  {
    g_autoptr(SimRepairResult) found = sim_corpus_verify (store, NULL);

    assert_non_null (found);
    assert_int_equal (found->damaged->len, 1);
  }
  window = sim_window_new (NULL, store);
  gtk_window_present (GTK_WINDOW (window));
  sim_test_spin_until (mapped, window, 10);
  sim_window_repair_corpus (window);
  assert_true (sim_window_is_busy (window));
  sim_test_spin_until (not_busy, window, 60);
  {
    g_autoptr(SimRepairResult) after = sim_corpus_verify (store, NULL);

    assert_non_null (after);
    assert_int_equal (after->damaged->len, 0);
  }
  sim_window_set_text (window, OWN EN_COPY);
  sim_window_check (window);
  sim_test_spin_until (check_finished, window, 60);
  assert_true (sim_report_get_similarity (sim_window_get_report (window)) > 0.3f);
  gtk_window_destroy (GTK_WINDOW (window));
  sim_test_remove_tree (dir);
}

/* A PDF whose copy hides junk words in white: the window checks what a
 * reader sees and its report says hidden text was left out. */
static void
test_window_reports_hidden_text_of_an_opened_file (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *store = make_store (dir);
  g_autofree char *pdf = g_build_filename (dir, "essay.pdf", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (pdf);
  cairo_surface_t *surface = cairo_pdf_surface_create (pdf, 500, 300);
  cairo_t *cr = cairo_create (surface);
  PangoLayout *layout = pango_cairo_create_layout (cr);
  SimWindow *window;
  const SimReport *report;
  gboolean hidden = FALSE;

  pango_layout_set_width (layout, 460 * PANGO_SCALE);
  pango_layout_set_text (layout, EN_COPY, -1);
  cairo_move_to (cr, 20, 40);
  pango_cairo_show_layout (cr, layout);
  cairo_set_source_rgb (cr, 1, 1, 1);
  pango_layout_set_text (layout, "zqxjunk zqxjunk zqxjunk", -1);
  cairo_move_to (cr, 20, 120);
  pango_cairo_show_layout (cr, layout);
  cairo_show_page (cr);
  g_object_unref (layout);
  cairo_destroy (cr);
  cairo_surface_destroy (surface);

  window = sim_window_new (NULL, store);
  gtk_window_present (GTK_WINDOW (window));
  sim_test_spin_until (mapped, window, 10);
  sim_window_open_file (window, file);
  sim_window_check (window);
  sim_test_spin_until (check_finished, window, 60);
  report = sim_window_get_report (window);
  for (guint i = 0; i < sim_report_get_n_suspicious (report); i++)
    hidden |= sim_report_get_suspicious (report, i)->kind == SIM_SUSPICIOUS_HIDDEN &&
              sim_report_get_suspicious (report, i)->count == 3 * strlen ("zqxjunk");
  assert_true (hidden);
  assert_null (strstr (sim_report_get_text (report), "zqxjunk"));
  gtk_window_destroy (GTK_WINDOW (window));
  sim_test_remove_tree (dir);
}

static int
screenshot (const char *out,
            const char *text_path,
            const char *store,
            const char *option)
{
  const gboolean reworded = g_strcmp0 (option, "--reworded") == 0 || g_strcmp0 (option, "--narrow-compare") == 0;
  const gboolean narrow_compare = g_strcmp0 (option, "--narrow-compare") == 0;
  const gboolean narrow = g_strcmp0 (option, "--narrow") == 0 || narrow_compare;
  const gboolean wide = g_strcmp0 (option, "--wide") == 0;
  SimWindow *window = sim_window_new (NULL, store);
  g_autofree char *text = NULL;
  g_autoptr(GdkTexture) texture = NULL;

  if (!g_file_get_contents (text_path, &text, NULL, NULL))
    return 2;
  if (narrow)
    gtk_window_set_default_size (GTK_WINDOW (window), 640, 480);
  else if (wide)
    gtk_window_set_default_size (GTK_WINDOW (window), 1920, 1080);
  else
    gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  gtk_window_present (GTK_WINDOW (window));
  sim_test_spin_until (mapped, window, 10);
  sim_window_set_text (window, text);
  /* A corpus server is opened on a thread first. */
  sim_test_spin_until (window_idle, window, 30);
  sim_window_check (window);
  sim_test_spin_until (check_finished, window, 120);
  /* --narrow: the text coloured, as a small screen shows it first;
   * --narrow-compare: a reworded flag's comparison in its place. */
  if (narrow && !narrow_compare)
    return sim_test_ui_save_png (GTK_WIDGET (window), out);
  /* Compare the first high segment, or with @reworded the first flagged one
   * that differs from its source. */
  for (guint i = 0; sim_window_get_report (window) && i < sim_report_get_n_segments (sim_window_get_report (window)); i++)
    {
      const SimReportSegment *seg = sim_report_get_segment (sim_window_get_report (window), i);

      if (reworded ? seg->level != SIM_LEVEL_LOW && seg->similarity < 0.95f : seg->level == SIM_LEVEL_HIGH)
        {
          sim_window_select_segment (window, i);
          break;
        }
    }
  return sim_test_ui_save_png (GTK_WIDGET (window), out);
}

/* Chinese in the CJK family of the user's language, a Chinese comma after
 * a Latin word too: left to fontconfig's fallback, the Japanese variant
 * set both in an English desktop (the tests run in C.UTF-8), and the comma
 * in a Chinese one. Latin words keep the face the desktop's font stands
 * for (in a Chinese desktop fontconfig makes that the CJK family too). */
static void
test_window_sets_chinese_in_the_family_of_the_language (void **state)
{
  GtkWidget *window = gtk_window_new ();
  GtkWidget *view = gtk_text_view_new ();
  const char *cjk = sim_export_cjk_family (pango_language_to_string (pango_language_get_default ()));
  g_autofree char *families = sim_tint_dup_font_families ();
  g_auto(GStrv) quoted = g_strsplit (families, "\"", -1);  /* "", latin, ", ", cjk, "" */
  g_autoptr(PangoLayout) layout = NULL;
  guint n_cjk = 0;

  assert_int_equal (g_strv_length (quoted), 5);
  assert_string_equal (quoted[3], cjk);
  gtk_window_set_child (GTK_WINDOW (window), view);
  gtk_window_present (GTK_WINDOW (window));
  layout = gtk_widget_create_pango_layout (view, "我查了 errno，又看了 EBADF：都对。");
  for (GSList *r = pango_layout_get_line_readonly (layout, 0)->runs; r != NULL; r = r->next)
    {
      const PangoGlyphItem *run = r->data;
      const char *text = pango_layout_get_text (layout) + run->item->offset;
      g_autoptr(PangoFontDescription) face = pango_font_describe (run->item->analysis.font);
      gboolean ascii = TRUE;

      for (int i = 0; i < run->item->length; i++)
        ascii &= (guchar) text[i] < 0x80;
      assert_string_equal (pango_font_description_get_family (face), ascii ? quoted[1] : cjk);
      n_cjk += !ascii;
    }
  assert_true (n_cjk >= 3);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_window_checks_highlights_and_shows_sources),
    cmocka_unit_test (test_window_sets_chinese_in_the_family_of_the_language),
    cmocka_unit_test (test_window_shows_a_report_only_with_its_text),
    cmocka_unit_test (test_window_html_and_json_draw_the_same_runs),
    cmocka_unit_test (test_window_leaving_a_source_out_changes_every_figure),
    cmocka_unit_test (test_window_chart_says_a_short_copy_is_too_short),
    cmocka_unit_test (test_open_source_without_an_application_shows_the_stored_text),
    cmocka_unit_test (test_window_shows_the_empty_state_without_a_corpus),
    cmocka_unit_test (test_window_imports_the_demo_corpus_and_lists_it),
    cmocka_unit_test (test_window_waits_for_another_writer_and_says_so),
    cmocka_unit_test (test_window_uses_a_read_only_store),
    cmocka_unit_test (test_window_repairs_a_damaged_corpus),
    cmocka_unit_test (test_window_reports_hidden_text_of_an_opened_file),
    cmocka_unit_test (test_window_leaves_out_quotes_without_a_new_check),
    cmocka_unit_test (test_window_applies_kept_choices_from_the_start),
    cmocka_unit_test (test_window_leaves_out_short_passages_a_source_and_the_assignment),
    cmocka_unit_test (test_export_dialog_names_the_file_by_its_type),
    cmocka_unit_test (test_window_title_names_the_file_and_marks_edits),
    cmocka_unit_test (test_window_fits_640_by_480),
    cmocka_unit_test (test_window_reopens_a_saved_report),
    cmocka_unit_test (test_window_opens_a_large_file_in_the_background),
    cmocka_unit_test (test_export_writes_in_the_background_and_confirms),
  };

  sim_test_ui_init ();
  if (argc == 3 && g_str_equal (argv[1], "--read-only-store"))
    return read_only_case (argv[2]);
  if ((argc == 7 || argc == 8) && g_str_equal (argv[1], "--screenshot"))
    return screenshot (argv[2], argv[4], argv[6], argc == 8 ? argv[7] : NULL);
  /* No application is registered for any file: nothing a test opens
   * starts a program (Open Source falls back to the stored text). */
  {
    g_autofree char *no_apps = sim_test_make_tmp_dir ();
    int failed;

    g_setenv ("XDG_DATA_DIRS", no_apps, TRUE);
    failed = cmocka_run_group_tests_name ("window", tests, NULL, NULL);
    sim_test_remove_tree (no_apps);
    return failed;
  }
}
