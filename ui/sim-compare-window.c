/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "sim-compare.h"
#include "sim-document.h"
#include "sim-export-dialog.h"
#include "sim-tint.h"
#include "sim-compare-window.h"

struct _SimCompareWindow {
  GtkWindow      parent_instance;

  /* template children */
  GtkStack      *stack;
  AdwToastOverlay *toast_overlay;
  GtkLabel      *error_label;
  GtkLabel      *summary_label;
  GtkLabel      *title_a;
  GtkLabel      *title_b;
  GtkTextView   *view_a;
  GtkTextView   *view_b;
  GtkListBox    *passage_list;
  GtkButton     *export_button;

  /* owned */
  char          *a_path;
  char          *b_path;
  SimReport     *report;      /* NULL until the comparison is done */
  GArray        *passages;    /* SimPassage: those listed (the report's, or a class's pair's) */
  GCancellable  *cancellable;
  char          *summary;
  guint          n_rows;
  gint           selected;    /* passage, or -1 */
  guint          rescroll;    /* idle source */
};

G_DEFINE_FINAL_TYPE (SimCompareWindow, sim_compare_window, GTK_TYPE_WINDOW)

/* ----------------------------------------------------------- the task */

typedef struct {
  char      *a_path;
  char      *b_path;
  SimReport *report;
  char      *b_text;
} Job;

static void
job_free (Job *job)
{
  g_free (job->a_path);
  g_free (job->b_path);
  g_clear_pointer (&job->report, sim_report_unref);
  g_free (job->b_text);
  g_free (job);
}

static void
compare_thread (GTask        *task,
                gpointer      source,
                gpointer      data,
                GCancellable *cancellable)
{
  Job *job = data;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autofree char *a = NULL;
  gsize a_len = 0, b_len = 0;
  GError *error = NULL;

  a = sim_document_load (job->a_path, NULL, &a_len, NULL, &error);
  if (a != NULL)
    job->b_text = sim_document_load (job->b_path, NULL, &b_len, NULL, &error);
  if (job->b_text != NULL)
    job->report = sim_compare_run (a, a_len, job->a_path, job->b_text, b_len, job->b_path, &options,
                                   SIM_NORMALIZE_FOLD_T2S, cancellable, &error);
  if (job->report == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

/* ----------------------------------------------------------- showing */

static void
iter_at (GtkTextView *view,
         guint32      offset,
         GtkTextIter *iter)
{
  gtk_text_buffer_get_iter_at_offset (gtk_text_view_get_buffer (view), iter, offset);
}

static void
tag_span (GtkTextView *view,
          const char  *tag,
          guint32      start,
          guint32      end)
{
  GtkTextIter a, b;

  iter_at (view, start, &a);
  iter_at (view, end, &b);
  gtk_text_buffer_apply_tag_by_name (gtk_text_view_get_buffer (view), tag, &a, &b);
}

static void
create_tags (GtkTextView *view)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
  GtkTextIter start;
  GdkRGBA tint;

  sim_tint_get_rgba (SIM_LEVEL_HIGH, 1.0, &tint);
  gtk_text_buffer_create_tag (buffer, "sim-high", "background-rgba", &tint, NULL);
  sim_tint_get_rgba (SIM_LEVEL_MEDIUM, 1.0, &tint);
  gtk_text_buffer_create_tag (buffer, "sim-medium", "background-rgba", &tint, NULL);
  /* An outline of sorts that does not reflow the text, unlike bold. */
  gtk_text_buffer_create_tag (buffer, "sim-selected", "underline", PANGO_UNDERLINE_DOUBLE, NULL);
  gtk_text_buffer_get_start_iter (buffer, &start);
  gtk_text_buffer_create_mark (buffer, "sim-target", &start, TRUE);
}

static void
scroll_to (GtkTextView *view,
           guint32      offset)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
  GtkTextMark *mark = gtk_text_buffer_get_mark (buffer, "sim-target");
  GtkTextIter iter;

  iter_at (view, offset, &iter);
  gtk_text_buffer_move_mark (buffer, mark, &iter);
  /* A mark is scrolled to once the lines are laid out. */
  gtk_text_view_scroll_to_mark (view, mark, 0.0, TRUE, 0.0, 0.2);
}

static gboolean
rescroll (gpointer data)
{
  SimCompareWindow *self = data;

  self->rescroll = 0;
  for (SimCompareSide side = SIM_COMPARE_SIDE_A; side <= SIM_COMPARE_SIDE_B; side++)
    {
      GtkTextView *view = sim_compare_window_get_view (self, side);

      gtk_text_view_scroll_to_mark (view, gtk_text_buffer_get_mark (gtk_text_view_get_buffer (view), "sim-target"),
                                    0.0, TRUE, 0.0, 0.2);
    }
  return G_SOURCE_REMOVE;
}

void
sim_compare_window_select_passage (SimCompareWindow *self,
                                   guint             index)
{
  const SimPassage *p;
  GtkTextIter a, b;

  g_return_if_fail (SIM_IS_COMPARE_WINDOW (self));
  g_return_if_fail (self->report != NULL && index < self->passages->len);

  p = &g_array_index (self->passages, SimPassage, index);
  for (SimCompareSide side = SIM_COMPARE_SIDE_A; side <= SIM_COMPARE_SIDE_B; side++)
    {
      GtkTextView *view = sim_compare_window_get_view (self, side);
      GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);

      gtk_text_buffer_get_bounds (buffer, &a, &b);
      gtk_text_buffer_remove_tag_by_name (buffer, "sim-selected", &a, &b);
    }
  tag_span (self->view_a, "sim-selected", p->start, p->end);
  tag_span (self->view_b, "sim-selected", p->source_start, p->source_end);
  scroll_to (self->view_a, p->start);
  scroll_to (self->view_b, p->source_start);
  /* Lines far down a long text have estimated heights until laid out:
   * scroll once more when the layout is done. */
  g_clear_handle_id (&self->rescroll, g_source_remove);
  self->rescroll = g_idle_add_full (G_PRIORITY_LOW, rescroll, self, NULL);
  self->selected = index;
  {
    GtkListBoxRow *row = gtk_list_box_get_row_at_index (self->passage_list, index);

    if (row != NULL && gtk_list_box_get_selected_row (self->passage_list) != row)
      gtk_list_box_select_row (self->passage_list, row);
  }
}

gboolean
sim_compare_window_select_at (SimCompareWindow *self,
                              SimCompareSide    side,
                              guint32           offset)
{
  g_return_val_if_fail (SIM_IS_COMPARE_WINDOW (self), FALSE);

  if (self->report == NULL)
    return FALSE;
  for (guint i = 0; self->passages != NULL && i < self->passages->len; i++)
    {
      const SimPassage *p = &g_array_index (self->passages, SimPassage, i);
      const guint32 start = side == SIM_COMPARE_SIDE_A ? p->start : p->source_start;
      const guint32 end = side == SIM_COMPARE_SIDE_A ? p->end : p->source_end;

      if (offset >= start && offset < end)
        {
          sim_compare_window_select_passage (self, i);
          return TRUE;
        }
    }
  return FALSE;
}

static void
on_row_activated (GtkListBox       *box,
                  GtkListBoxRow    *row,
                  SimCompareWindow *self)
{
  const gint index = gtk_list_box_row_get_index (row);

  if (index >= 0 && index != self->selected)
    sim_compare_window_select_passage (self, index);
}

static void
on_click (GtkGestureClick *gesture,
          int              n_press,
          double           x,
          double           y,
          SimCompareWindow *self)
{
  GtkTextView *view = GTK_TEXT_VIEW (gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (gesture)));
  GtkTextIter iter;
  int bx, by;

  gtk_text_view_window_to_buffer_coords (view, GTK_TEXT_WINDOW_WIDGET, x, y, &bx, &by);
  if (gtk_text_view_get_iter_at_location (view, &iter, bx, by))
    sim_compare_window_select_at (self, view == self->view_a ? SIM_COMPARE_SIDE_A : SIM_COMPARE_SIDE_B,
                                  gtk_text_iter_get_offset (&iter));
}

static char *
excerpt (const SimReport *report,
         guint32          start,
         guint32          end)
{
  g_autofree char *text = sim_report_dup_text (report, start, MIN (end, start + 90));
  g_autofree char *flat = g_strdelimit (g_steal_pointer (&text), "\n\t\r", ' ');

  return g_strdup_printf ("%s%s", flat, end > start + 90 ? "…" : "");
}

static void
show_report (SimCompareWindow *self,
             const char       *b_text)
{
  const guint n = self->passages->len;

  gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->view_a), sim_report_get_text (self->report), -1);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->view_b), b_text, -1);
  for (guint i = 0; i < n; i++)
    {
      const SimPassage *p = &g_array_index (self->passages, SimPassage, i);
      const char *tag = p->level == SIM_LEVEL_HIGH ? "sim-high" : "sim-medium";
      g_autofree char *text = excerpt (self->report, p->start, p->end);
      g_autofree char *label = g_strdup_printf (_("%.0f%% similar — A %u–%u, B %u–%u\n%s"),
                                                100 * p->similarity, p->start, p->end, p->source_start,
                                                p->source_end, text);
      g_autofree char *number = g_strdup_printf ("%u", i + 1);
      GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 8);
      GtkWidget *badge = gtk_label_new (number);
      GtkWidget *text_label = gtk_label_new (label);

      tag_span (self->view_a, tag, p->start, p->end);
      tag_span (self->view_b, tag, p->source_start, p->source_end);
      /* The badge in the passage's level colour, the text plain. */
      gtk_widget_add_css_class (badge, p->level == SIM_LEVEL_HIGH ? "legend-high" : "legend-medium");
      gtk_widget_set_valign (badge, GTK_ALIGN_START);
      gtk_label_set_xalign (GTK_LABEL (text_label), 0);
      gtk_label_set_wrap (GTK_LABEL (text_label), TRUE);
      gtk_label_set_lines (GTK_LABEL (text_label), 2);
      gtk_label_set_ellipsize (GTK_LABEL (text_label), PANGO_ELLIPSIZE_END);
      gtk_widget_set_hexpand (text_label, TRUE);
      gtk_widget_set_margin_start (row, 8);
      gtk_widget_set_margin_top (row, 4);
      gtk_widget_set_margin_bottom (row, 4);
      gtk_box_append (GTK_BOX (row), badge);
      gtk_box_append (GTK_BOX (row), text_label);
      gtk_list_box_append (self->passage_list, row);
    }
  self->n_rows = n;
  g_free (self->summary);
  self->summary = n == 0
    ? g_strdup (_("No passage of A was found in B"))
    : g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%.0f%% of A is in B: %u passage",
                                    "%.0f%% of A is in B: %u passages", n),
                       100.0 * sim_passages_cover ((const SimPassage *) self->passages->data, n, FALSE) /
                       MAX (sim_report_get_n_chars (self->report), 1), n);
  gtk_label_set_text (self->summary_label, self->summary);
  gtk_widget_set_sensitive (GTK_WIDGET (self->export_button), TRUE);
  gtk_stack_set_visible_child_name (self->stack, "result");
}

static void
on_compared (GObject      *source,
             GAsyncResult *result,
             gpointer      data)
{
  g_autoptr(SimCompareWindow) self = data;
  Job *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      gtk_label_set_text (self->error_label, error->message);
      gtk_stack_set_visible_child_name (self->stack, "error");
      g_clear_object (&self->cancellable);
      return;
    }
  if (g_cancellable_is_cancelled (self->cancellable))
    return;
  g_clear_object (&self->cancellable);
  self->report = g_steal_pointer (&job->report);
  self->passages = g_array_new (FALSE, FALSE, sizeof (SimPassage));
  for (guint i = 0; i < sim_report_get_n_passages (self->report); i++)
    g_array_append_val (self->passages, *sim_report_get_passage (self->report, i));
  show_report (self, job->b_text);
}

/* ----------------------------------------------------------- export */

static void
export_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  SimCompareWindow *self = SIM_COMPARE_WINDOW (widget);

  if (self->report != NULL)
    {
      g_autoptr(SimReportView) view = sim_report_view_new (self->report, NULL);

      sim_export_dialog_show (GTK_WINDOW (self), self->toast_overlay, _("Export the Comparison"), _("comparison"),
                              view);
    }
}

/* ----------------------------------------------------------- object */

static void
sim_compare_window_dispose (GObject *object)
{
  SimCompareWindow *self = SIM_COMPARE_WINDOW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->rescroll, g_source_remove);
  G_OBJECT_CLASS (sim_compare_window_parent_class)->dispose (object);
}

static void
sim_compare_window_finalize (GObject *object)
{
  SimCompareWindow *self = SIM_COMPARE_WINDOW (object);

  g_clear_pointer (&self->report, sim_report_unref);
  g_clear_pointer (&self->passages, g_array_unref);
  g_free (self->a_path);
  g_free (self->b_path);
  g_free (self->summary);
  G_OBJECT_CLASS (sim_compare_window_parent_class)->finalize (object);
}

static void
sim_compare_window_class_init (SimCompareWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sim_compare_window_dispose;
  object_class->finalize = sim_compare_window_finalize;
  g_type_ensure (ADW_TYPE_TOAST_OVERLAY);
  gtk_widget_class_set_template_from_resource (widget_class, "/org/simhound/Simhound/ui/sim-compare-window.ui");
  gtk_widget_class_bind_template_child (widget_class, SimCompareWindow, stack);
  gtk_widget_class_bind_template_child (widget_class, SimCompareWindow, toast_overlay);
  gtk_widget_class_bind_template_child (widget_class, SimCompareWindow, error_label);
  gtk_widget_class_bind_template_child (widget_class, SimCompareWindow, summary_label);
  gtk_widget_class_bind_template_child (widget_class, SimCompareWindow, title_a);
  gtk_widget_class_bind_template_child (widget_class, SimCompareWindow, title_b);
  gtk_widget_class_bind_template_child (widget_class, SimCompareWindow, view_a);
  gtk_widget_class_bind_template_child (widget_class, SimCompareWindow, view_b);
  gtk_widget_class_bind_template_child (widget_class, SimCompareWindow, passage_list);
  gtk_widget_class_bind_template_child (widget_class, SimCompareWindow, export_button);
  gtk_widget_class_bind_template_callback (widget_class, on_row_activated);
  gtk_widget_class_install_action (widget_class, "compare.export", NULL, export_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_e, GDK_CONTROL_MASK, "compare.export", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "window.close", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
sim_compare_window_init (SimCompareWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->selected = -1;
  create_tags (self->view_a);
  create_tags (self->view_b);
  for (SimCompareSide side = SIM_COMPARE_SIDE_A; side <= SIM_COMPARE_SIDE_B; side++)
    {
      GtkGesture *click = gtk_gesture_click_new ();

      g_signal_connect (click, "released", G_CALLBACK (on_click), self);
      gtk_widget_add_controller (GTK_WIDGET (sim_compare_window_get_view (self, side)),
                                 GTK_EVENT_CONTROLLER (click));
    }
}

SimCompareWindow *
sim_compare_window_new (GtkWindow  *parent,
                        const char *a_path,
                        const char *b_path)
{
  SimCompareWindow *self = g_object_new (SIM_TYPE_COMPARE_WINDOW, "transient-for", parent, NULL);
  g_autoptr(GTask) task = NULL;
  g_autofree char *a_name = g_filename_display_basename (a_path);
  g_autofree char *b_name = g_filename_display_basename (b_path);
  g_autofree char *title = g_strdup_printf (_("%s and %s"), a_name, b_name);
  Job *job = g_new0 (Job, 1);

  self->a_path = g_strdup (a_path);
  self->b_path = g_strdup (b_path);
  gtk_window_set_title (GTK_WINDOW (self), title);
  gtk_label_set_text (self->title_a, a_name);
  gtk_label_set_text (self->title_b, b_name);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->title_a), a_path);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->title_b), b_path);
  self->cancellable = g_cancellable_new ();
  job->a_path = g_strdup (a_path);
  job->b_path = g_strdup (b_path);
  /* The task holds a reference: the window outlives the thread's result. */
  task = g_task_new (NULL, self->cancellable, on_compared, g_object_ref (self));
  g_task_set_task_data (task, job, (GDestroyNotify) job_free);
  g_task_run_in_thread (task, compare_thread);
  return self;
}

SimCompareWindow *
sim_compare_window_new_for_pair (GtkWindow        *parent,
                                 const char       *a_path,
                                 const char       *b_path,
                                 SimReport        *report,
                                 GArray           *passages,
                                 const char       *b_text)
{
  SimCompareWindow *self = g_object_new (SIM_TYPE_COMPARE_WINDOW, "transient-for", parent, NULL);
  g_autofree char *a_name = g_filename_display_basename (a_path);
  g_autofree char *b_name = g_filename_display_basename (b_path);
  g_autofree char *title = g_strdup_printf (_("%s and %s"), a_name, b_name);

  self->a_path = g_strdup (a_path);
  self->b_path = g_strdup (b_path);
  gtk_window_set_title (GTK_WINDOW (self), title);
  gtk_label_set_text (self->title_a, a_name);
  gtk_label_set_text (self->title_b, b_name);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->title_a), a_path);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->title_b), b_path);
  self->report = sim_report_ref (report);
  self->passages = g_array_copy (passages);
  show_report (self, b_text);
  return self;
}

gboolean
sim_compare_window_is_busy (SimCompareWindow *self)
{
  return self->cancellable != NULL;
}

SimReport *
sim_compare_window_get_report (SimCompareWindow *self)
{
  return self->report;
}

GtkTextView *
sim_compare_window_get_view (SimCompareWindow *self,
                             SimCompareSide    side)
{
  return side == SIM_COMPARE_SIDE_A ? self->view_a : self->view_b;
}

const char *
sim_compare_window_get_summary (SimCompareWindow *self)
{
  return self->summary;
}

guint
sim_compare_window_get_n_rows (SimCompareWindow *self)
{
  return self->n_rows;
}
