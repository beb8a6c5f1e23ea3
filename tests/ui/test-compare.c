/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The side-by-side comparison with real widgets, under Xvfb: both texts are
 * shown with the shared passage highlighted on both sides, the passage is
 * listed, and a click on a passage on one side scrolls the other side to it.
 *
 * With --screenshot OUT.png A B it instead saves the comparison of A with B
 * as shown in a 1200x800 window (screenshots.sh).
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <locale.h>
#include <gtk/gtk.h>

#include <glib/gi18n.h>

#include "sim-class-window.h"
#include "sim-compare-window.h"
#include "sim-tint.h"
#include "sim-test-util.h"
#include "sim-test-ui.h"

static const char *const copied[] = {
  "The weight of the overlying snow compresses the lower layers into dense glacial ice.",
  "Under its own weight the ice begins to flow slowly downhill like a very thick river.",
  "Crevasses open where the ice moves faster at the centre than along the valley walls.",
  "Meltwater running beneath the glacier lubricates its bed and speeds up the sliding.",
};

static gboolean
compared (gpointer data)
{
  return !sim_compare_window_is_busy (data) && sim_compare_window_get_report (data) != NULL;
}

typedef struct {
  GtkTextView *view;
  guint32      offset;
} Shown;

/* Whether code point @offset of the view's text is in its visible area. */
static gboolean
is_shown (gpointer data)
{
  const Shown *s = data;
  GdkRectangle visible, at;
  GtkTextIter iter;

  gtk_text_buffer_get_iter_at_offset (gtk_text_view_get_buffer (s->view), &iter, s->offset);
  gtk_text_view_get_visible_rect (s->view, &visible);
  gtk_text_view_get_iter_location (s->view, &iter, &at);
  return visible.height > 0 && at.y >= visible.y && at.y + at.height <= visible.y + visible.height;
}

static gboolean
has_tag (GtkTextView *view,
         guint32      offset,
         const char  *name)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
  GtkTextIter iter;

  gtk_text_buffer_get_iter_at_offset (buffer, &iter, offset);
  return gtk_text_iter_has_tag (&iter, gtk_text_tag_table_lookup (gtk_text_buffer_get_tag_table (buffer), name));
}

static void
test_compare_highlights_both_sides_and_a_click_scrolls_the_other (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autoptr(GString) a = g_string_new (NULL);
  g_autoptr(GString) b = g_string_new (NULL);
  g_autofree char *a_path = NULL, *b_path = NULL;
  SimCompareWindow *window;
  SimReport *report;
  const SimPassage *p;
  Shown shown;
  gpointer weak;

  /* Both copies sit far down their texts, so each side has to scroll. */
  for (guint i = 0; i < 40; i++)
    g_string_append_printf (a, "Paragraph %u of my own essay talks about the harvest festival in my village.\n\n", i);
  for (guint i = 0; i < G_N_ELEMENTS (copied); i++)
    g_string_append_printf (a, "%s\n", copied[i]);
  g_string_append (a, "\nThat is all I wanted to say about the mountains.\n");
  for (guint i = 0; i < 60; i++)
    g_string_append_printf (b, "Section %u of the handbook lists the tools every mountaineer carries on a climb.\n", i);
  for (guint i = 0; i < G_N_ELEMENTS (copied); i++)
    g_string_append_printf (b, "%s ", copied[i]);
  a_path = sim_test_write_file (dir, "essay.txt", a->str, -1);
  b_path = sim_test_write_file (dir, "glaciers.txt", b->str, -1);

  window = sim_compare_window_new (NULL, a_path, b_path);
  weak = window;
  g_object_add_weak_pointer (G_OBJECT (window), &weak);
  gtk_window_set_default_size (GTK_WINDOW (window), 900, 600);
  gtk_window_present (GTK_WINDOW (window));
  assert_true (sim_compare_window_is_busy (window));
  sim_test_spin_until (compared, window, 30);
  report = sim_compare_window_get_report (window);
  assert_non_null (report);
  assert_int_equal (sim_report_get_n_passages (report), 1);
  assert_int_equal (sim_compare_window_get_n_rows (window), 1);
  assert_non_null (strstr (sim_compare_window_get_summary (window), "%"));
  p = sim_report_get_passage (report, 0);
  assert_int_equal (p->start, g_utf8_strlen (a->str, -1) - g_utf8_strlen (strstr (a->str, copied[0]), -1));
  assert_int_equal (p->source_start, g_utf8_strlen (b->str, -1) - g_utf8_strlen (strstr (b->str, copied[0]), -1));

  /* The passage is highlighted on both sides; the writer's own text is not. */
  assert_true (has_tag (sim_compare_window_get_view (window, SIM_COMPARE_SIDE_A), p->start + 3, "sim-high"));
  assert_true (has_tag (sim_compare_window_get_view (window, SIM_COMPARE_SIDE_B), p->source_start + 3, "sim-high"));
  assert_false (has_tag (sim_compare_window_get_view (window, SIM_COMPARE_SIDE_A), 5, "sim-high"));
  assert_false (has_tag (sim_compare_window_get_view (window, SIM_COMPARE_SIDE_B), 5, "sim-high"));

  /* A click on the passage in A brings B's copy into view, and back. */
  shown.view = sim_compare_window_get_view (window, SIM_COMPARE_SIDE_B);
  shown.offset = p->source_start;
  sim_test_spin_until (is_shown, &shown, 1);
  assert_false (is_shown (&shown));
  assert_false (sim_compare_window_select_at (window, SIM_COMPARE_SIDE_A, 5));
  assert_true (sim_compare_window_select_at (window, SIM_COMPARE_SIDE_A, p->start + 10));
  sim_test_spin_until (is_shown, &shown, 10);
  assert_true (is_shown (&shown));
  assert_true (has_tag (shown.view, p->source_start + 3, "sim-selected"));

  shown.view = sim_compare_window_get_view (window, SIM_COMPARE_SIDE_A);
  shown.offset = p->start;
  gtk_adjustment_set_value (gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (shown.view)), 0);
  sim_test_spin_until (is_shown, &shown, 1);
  assert_false (is_shown (&shown));
  assert_true (sim_compare_window_select_at (window, SIM_COMPARE_SIDE_B, p->source_start + 10));
  sim_test_spin_until (is_shown, &shown, 10);
  assert_true (is_shown (&shown));

  gtk_window_destroy (GTK_WINDOW (window));
  for (guint i = 0; i < 100 && weak != NULL; i++)
    g_main_context_iteration (NULL, FALSE);
  assert_null (weak);
  sim_test_remove_tree (dir);
}

static void
test_compare_reports_an_unreadable_document (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *a_path = sim_test_write_file (dir, "a.txt", "Some words of my own essay here.", -1);
  g_autofree char *missing = g_build_filename (dir, "missing.txt", NULL);
  SimCompareWindow *window = sim_compare_window_new (NULL, a_path, missing);

  gtk_window_present (GTK_WINDOW (window));
  for (gint64 end = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;
       sim_compare_window_is_busy (window) && g_get_monotonic_time () < end;)
    g_main_context_iteration (NULL, FALSE);
  assert_false (sim_compare_window_is_busy (window));
  assert_null (sim_compare_window_get_report (window));
  gtk_window_destroy (GTK_WINDOW (window));
  sim_test_remove_tree (dir);
}

static gboolean
class_checked (gpointer data)
{
  return !sim_class_window_is_busy (data);
}

/* Check a Class: of three essays and a file that is not text, the one pair
 * that shares a passage is listed with both shares, the bad file with its
 * reason, and Compare opens the pair side by side. */
static void
test_check_a_class_lists_the_pairs_and_opens_one (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *shared = g_strjoinv (" ", (char **) copied);
  g_autofree char *anna = g_strconcat ("My grandmother grew tomatoes behind the house and sold them at the market. ",
                                       shared, NULL);
  g_autofree char *ben = g_strconcat ("The river froze early that year, and the children skated to the mill. ",
                                      shared, NULL);
  GtkWidget *window;
  GtkWidget *compare;

  g_free (sim_test_write_file (dir, "anna.txt", anna, -1));
  g_free (sim_test_write_file (dir, "ben.txt", ben, -1));
  g_free (sim_test_write_file (dir, "cleo.txt", "Our school band practised every Thursday evening, and the drummer was late.", -1));
  g_free (sim_test_write_file (dir, "picture.png", "\x89PNG\r\n\x1a\n\0\0\0", 11));
  window = sim_class_window_new (NULL, dir, NULL);
  gtk_window_present (GTK_WINDOW (window));
  assert_true (sim_class_window_is_busy (SIM_CLASS_WINDOW (window)));
  sim_test_spin_until (class_checked, window, 60);
  assert_int_equal (sim_class_window_get_n_pairs (SIM_CLASS_WINDOW (window)), 1);
  assert_string_equal (sim_class_window_get_summary (SIM_CLASS_WINDOW (window)), "1 pair of 3 documents shares passages");
  assert_non_null (strstr (sim_class_window_get_pair_text (SIM_CLASS_WINDOW (window), 0), "of anna.txt ↔ "));
  assert_non_null (strstr (sim_class_window_get_pair_text (SIM_CLASS_WINDOW (window), 0), "of ben.txt"));
  /* Sorting keeps every pair and its row. */
  sim_class_window_sort (SIM_CLASS_WINDOW (window), SIM_CLASS_SORT_NAME);
  assert_int_equal (sim_class_window_get_n_pairs (SIM_CLASS_WINDOW (window)), 1);
  assert_non_null (strstr (sim_class_window_get_pair_text (SIM_CLASS_WINDOW (window), 0), "of anna.txt ↔ "));
  compare = sim_class_window_compare_pair (SIM_CLASS_WINDOW (window), 0);
  sim_test_spin_until (compared, compare, 60);
  assert_true (sim_report_get_n_passages (sim_compare_window_get_report (SIM_COMPARE_WINDOW (compare))) >= 1);
  assert_true (sim_test_ui_has_shortcut (window, "Escape", "window.close"));
  gtk_window_destroy (GTK_WINDOW (compare));
  gtk_window_destroy (GTK_WINDOW (window));

  /* Closing while it reads cancels, and nothing is left running. */
  window = sim_class_window_new (NULL, dir, NULL);
  gtk_window_destroy (GTK_WINDOW (window));
  for (int i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE);
  sim_test_remove_tree (dir);
}

/* One essay of a generated class: the shared prompt, a name line, a stock
 * phrase, and sentences of its own (made-up words: no two essays share
 * any). (transfer full) */
static char *
class_essay (guint       student,
             const char *planted)
{
  static const char *const syllables[] = {
    "ka", "lo", "mi", "ren", "tu", "sha", "vel", "dor", "pi", "gan", "esh", "ul", "bra", "ton", "qui", "zem",
    "fa", "ri", "nol", "sev", "ju", "mar", "oth", "wel", "yi", "cal", "dru", "hem", "ix", "lun", "pra", "sto",
  };
  GRand *rand = g_rand_new_with_seed (student * 7919 + 13);
  GString *out = g_string_new ("Assignment: write about a place that matters to you and explain why it "
                               "changed the way you see your town, in about three hundred words.\n\n");

  g_string_append_printf (out, "Name: Student %c\n\n", 'A' + student % 26);
  for (guint i = 0; i < 6; i++)
    {
      for (guint w = 0; w < 12; w++)
        {
          const guint n = g_rand_int_range (rand, 2, 4);

          if (w > 0)
            g_string_append_c (out, ' ');
          for (guint k = 0; k < n; k++)
            g_string_append (out, syllables[g_rand_int_range (rand, 0, G_N_ELEMENTS (syllables))]);
        }
      g_string_append (out, ". ");
    }
  if (planted != NULL)
    g_string_append_printf (out, "%s ", planted);
  g_string_append (out, "\n\nIn conclusion, this place taught me that every town has a story worth telling.\n");
  g_rand_free (rand);
  return g_string_free (out, FALSE);
}

/* Issue 31, fault 3: a class whose essays all repeat the prompt, a name
 * line and a stock phrase: the shared text is the assignment, not copying;
 * only the planted copy is a pair, and its Compare shows the list's figure. */
static void
test_check_a_class_leaves_the_assignment_out (void **state)
{
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *planted = g_strjoinv (" ", (char **) copied);
  GtkWidget *window, *compare;
  const char *text;
  g_autofree char *figure = NULL;

  for (guint i = 0; i < 20; i++)
    {
      g_autofree char *name = g_strdup_printf ("student-%02u.txt", i);
      g_autofree char *essay = class_essay (i, i == 3 || i == 11 ? planted : NULL);

      g_free (sim_test_write_file (dir, name, essay, -1));
    }
  window = sim_class_window_new (NULL, dir, NULL);
  gtk_window_present (GTK_WINDOW (window));
  sim_test_spin_until (class_checked, window, 120);
  assert_int_equal (sim_class_window_get_n_pairs (SIM_CLASS_WINDOW (window)), 1);
  text = sim_class_window_get_pair_text (SIM_CLASS_WINDOW (window), 0);
  assert_non_null (strstr (text, "student-03.txt"));
  assert_non_null (strstr (text, "student-11.txt"));
  /* "N% of student-03.txt": the Compare says "N% of A is in B". */
  figure = g_strndup (text, strstr (text, "% of ") - text + 1);
  compare = sim_class_window_compare_pair (SIM_CLASS_WINDOW (window), 0);
  sim_test_spin_until (compared, compare, 60);
  assert_true (g_str_has_prefix (sim_compare_window_get_summary (SIM_COMPARE_WINDOW (compare)), figure));
  gtk_window_destroy (GTK_WINDOW (compare));

  /* The pairs export as JPlag's and MOSS's reports do: CSV for a
   * spreadsheet, and the HTML of cross --html with its matrix. */
  {
    g_autofree char *csv_path = g_build_filename (dir, "pairs.csv", NULL);
    g_autofree char *html_path = g_build_filename (dir, "pairs.html", NULL);
    g_autofree char *csv = NULL, *html = NULL;
    g_autoptr(GError) error = NULL;

    assert_true (sim_class_window_export (SIM_CLASS_WINDOW (window), csv_path, &error));
    assert_true (sim_class_window_export (SIM_CLASS_WINDOW (window), html_path, &error));
    assert_true (g_file_get_contents (csv_path, &csv, NULL, NULL));
    assert_true (g_file_get_contents (html_path, &html, NULL, NULL));
    assert_true (g_str_has_prefix (csv, "a,b,share_a,share_b,"));
    assert_non_null (strstr (csv, "student-03.txt\",\""));
    assert_non_null (strstr (html, "student-11.txt"));
    assert_non_null (strstr (html, "<table"));
  }
  gtk_window_destroy (GTK_WINDOW (window));
  sim_test_remove_tree (dir);
}

/* Saves the comparison of A with B as shown. */
static int
screenshot (const char *out,
            const char *a_path,
            const char *b_path)
{
  SimCompareWindow *window = sim_compare_window_new (NULL, a_path, b_path);

  gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
  gtk_window_present (GTK_WINDOW (window));
  sim_test_spin_until (compared, window, 60);
  if (sim_compare_window_get_report (window) && sim_report_get_n_passages (sim_compare_window_get_report (window)))
    sim_compare_window_select_passage (window, 0);
  return sim_test_ui_save_png (GTK_WIDGET (window), out);
}

int
main (int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_compare_highlights_both_sides_and_a_click_scrolls_the_other),
    cmocka_unit_test (test_compare_reports_an_unreadable_document),
    cmocka_unit_test (test_check_a_class_lists_the_pairs_and_opens_one),
    cmocka_unit_test (test_check_a_class_leaves_the_assignment_out),
  };

  sim_test_ui_init ();
  /* --class-screenshot OUT.png DIR: Check a Class on DIR as shown. */
  if (argc == 4 && g_str_equal (argv[1], "--class-screenshot"))
    {
      GtkWidget *window = sim_class_window_new (NULL, argv[3], NULL);

      gtk_window_present (GTK_WINDOW (window));
      sim_test_spin_until (class_checked, window, 120);
      return sim_test_ui_save_png (window, argv[2]);
    }
  /* --screenshot OUT.png A B: the comparison of A with B as shown (screenshots.sh). */
  if (argc == 5 && g_str_equal (argv[1], "--screenshot"))
    return screenshot (argv[2], argv[3], argv[4]);
  return cmocka_run_group_tests (tests, NULL, NULL);
}
