/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "sim-comparison.h"
#include "sim-comparison-test.h"
#include "sim-diff.h"
#include "sim-level.h"

struct _SimComparison {
  GtkBox parent_instance;

  GtkWidget   *pair;    /* the two passages' halves, side by side or stacked */
  GtkLabel    *title;
  GtkLabel    *path;
  GtkDropDown *matches;
  GtkLabel    *summary;
  GtkTextView *article;
  GtkTextView *source;
  GtkWidget   *details;   /* hidden while there is nothing to compare */
  GtkButton   *open;

  SimReportView     *view;
  SimReport         *report;    /* the view's */
  SimCorpusSnapshot *snapshot;
  guint              segment;
  guint              match;
  char              *source_path;  /* on disk, to open */
  char              *source_text;  /* the stored text, when the file is gone */
  char              *source_title;
  gboolean           updating;
};

G_DEFINE_FINAL_TYPE (SimComparison, sim_comparison, GTK_TYPE_BOX)

static void
create_tags (GtkTextView *view)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);

  for (guint c = 1; c <= SIM_SOURCE_N_COLORS; c++)
    {
      g_autofree char *name = g_strdup_printf ("same-%u", c);
      GdkRGBA tint;

      gdk_rgba_parse (&tint, sim_source_color (c));
      tint.alpha = sim_source_tint_alpha ();
      gtk_text_buffer_create_tag (buffer, name, "background-rgba", &tint, NULL);
    }
  gtk_text_buffer_create_tag (buffer, "changed", "underline", PANGO_UNDERLINE_ERROR, NULL);
  gtk_text_buffer_create_tag (buffer, "added", "underline", PANGO_UNDERLINE_DOUBLE, NULL);
  gtk_text_buffer_create_tag (buffer, "left-out", "strikethrough", TRUE, NULL);
  gtk_text_buffer_create_tag (buffer, "context", "scale", 0.92, "style", PANGO_STYLE_ITALIC, NULL);
}

/* The two passages side by side when there is room for both, one above
 * the other otherwise: a layout on the box holding the two halves. */
#define SIDE_BY_SIDE_MIN 720
#define PAIR_GAP 12

static void
measure_pair (GtkWidget      *widget,
              GtkOrientation  orientation,
              int             for_size,
              int            *minimum,
              int            *natural,
              int            *minimum_baseline,
              int            *natural_baseline)
{
  const gboolean beside = orientation == GTK_ORIENTATION_VERTICAL && for_size >= SIDE_BY_SIDE_MIN;
  const int child_size = beside ? (for_size - PAIR_GAP) / 2 : for_size;
  int n = 0;

  *minimum = *natural = 0;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      int cmin, cnat;

      if (!gtk_widget_should_layout (child))
        continue;
      gtk_widget_measure (child, orientation, child_size, &cmin, &cnat, NULL, NULL);
      /* Across: the wider child. Down: side by side the taller, stacked both. */
      if (orientation == GTK_ORIENTATION_HORIZONTAL || beside)
        {
          *minimum = MAX (*minimum, cmin);
          *natural = MAX (*natural, cnat);
        }
      else
        {
          *minimum += cmin + (n ? PAIR_GAP : 0);
          *natural += cnat + (n ? PAIR_GAP : 0);
        }
      n++;
    }
}

static void
allocate_pair (GtkWidget *widget,
               int        width,
               int        height,
               int        baseline)
{
  const gboolean beside = width >= SIDE_BY_SIDE_MIN;
  int i = 0;

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkAllocation a;

      if (!gtk_widget_should_layout (child))
        continue;
      if (beside)
        a = (GtkAllocation) { i * (width + PAIR_GAP) / 2, 0, (width - PAIR_GAP) / 2, height };
      else
        a = (GtkAllocation) { 0, i * (height + PAIR_GAP) / 2, width, (height - PAIR_GAP) / 2 };
      gtk_widget_size_allocate (child, &a, -1);
      i++;
    }
}

gboolean
sim_comparison_is_side_by_side (SimComparison *self)
{
  return gtk_widget_get_width (GTK_WIDGET (self->pair)) >= SIDE_BY_SIDE_MIN;
}

static GtkTextView *
make_view (GtkWidget  *pair,
           const char *heading,
           const char *description)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *label = gtk_label_new (heading);
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *view = gtk_text_view_new ();

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_add_css_class (label, "caption-heading");
  gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_WORD_CHAR);
  gtk_text_view_set_left_margin (GTK_TEXT_VIEW (view), 6);
  gtk_text_view_set_right_margin (GTK_TEXT_VIEW (view), 6);
  gtk_text_view_set_pixels_inside_wrap (GTK_TEXT_VIEW (view), 2);
  gtk_accessible_update_property (GTK_ACCESSIBLE (view), GTK_ACCESSIBLE_PROPERTY_LABEL, description, -1);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), view);
  gtk_widget_set_vexpand (scrolled, TRUE);
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (scrolled), 70);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), scrolled);
  gtk_box_append (GTK_BOX (pair), box);
  create_tags (GTK_TEXT_VIEW (view));
  return GTK_TEXT_VIEW (view);
}

/* Scrolls to the passage once the view has laid its lines out: a scroll
 * asked for before that lands on estimated heights. */
static gboolean
scroll_to_passage (GtkWidget     *widget,
                   GdkFrameClock *clock,
                   gpointer       data)
{
  GtkTextView *view = GTK_TEXT_VIEW (widget);

  gtk_text_view_scroll_to_mark (view, gtk_text_buffer_get_insert (gtk_text_view_get_buffer (view)), 0.0, TRUE, 0.0, 0.1);
  return G_SOURCE_REMOVE;
}

/* Puts @text[cs, ce) into @view, the passage [ps, pe) in it, and tags each
 * diff span (code points of the passage) with @kinds' tags. */
static void
fill (GtkTextView  *view,
      const char   *text,
      guint32       cs,
      guint32       ce,
      guint32       ps,
      guint32       pe)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
  const char *from = g_utf8_offset_to_pointer (text, cs);
  const char *to = g_utf8_offset_to_pointer (from, ce - cs);
  GtkTextIter a, b;

  gtk_text_buffer_set_text (buffer, from, to - from);
  gtk_text_buffer_get_start_iter (buffer, &a);
  gtk_text_buffer_get_iter_at_offset (buffer, &b, ps - cs);
  gtk_text_buffer_apply_tag_by_name (buffer, "context", &a, &b);
  gtk_text_buffer_get_iter_at_offset (buffer, &a, pe - cs);
  gtk_text_buffer_get_end_iter (buffer, &b);
  gtk_text_buffer_apply_tag_by_name (buffer, "context", &a, &b);
  /* The passage in sight, its context around it. */
  gtk_text_buffer_get_iter_at_offset (buffer, &a, ps - cs);
  gtk_text_buffer_move_mark (buffer, gtk_text_buffer_get_insert (buffer), &a);
  gtk_text_buffer_move_mark (buffer, gtk_text_buffer_get_selection_bound (buffer), &a);
  gtk_widget_add_tick_callback (GTK_WIDGET (view), scroll_to_passage, NULL, NULL);
}

static void
tag_span (GtkTextView *view,
          const char  *tag,
          guint32      start,
          guint32      end)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
  GtkTextIter a, b;

  if (end <= start)
    return;
  gtk_text_buffer_get_iter_at_offset (buffer, &a, start);
  gtk_text_buffer_get_iter_at_offset (buffer, &b, end);
  gtk_text_buffer_apply_tag_by_name (buffer, tag, &a, &b);
}

/* The article and source spans to compare for match @match of @seg: the
 * aligned passage around the segment when it is from the same source, or
 * the segment and its match. */
static void
choose_spans (SimReport              *report,
              const SimReportSegment *seg,
              const SimMatch         *m,
              guint32                *as,
              guint32                *ae,
              guint32                *bs,
              guint32                *be)
{
  *as = seg->start;
  *ae = seg->end;
  *bs = m->start;
  *be = m->end;
  for (guint i = 0; i < sim_report_get_n_passages (report); i++)
    {
      const SimPassage *p = sim_report_get_passage (report, i);

      if (p->start <= seg->start && seg->end <= p->end && p->source == m->source && p->source_end > p->source_start)
        {
          *as = p->start;
          *ae = p->end;
          *bs = p->source_start;
          *be = p->source_end;
          return;
        }
    }
}

/* The stored text of @doc_id in @snapshot, or NULL. (transfer full) */
static char *
dup_source_text (SimCorpusSnapshot *snapshot,
                 gint64             doc_id)
{
  g_autoptr(GError) error = NULL;

  if (snapshot == NULL)
    return NULL;
  {
    guint i;
    char *text = NULL;
    gsize len = 0;

    if (!sim_corpus_snapshot_find_doc (snapshot, doc_id, &i))
      return NULL;
    if (!sim_corpus_snapshot_dup_texts (snapshot, &i, 1, &text, &len, &error))
      g_warning ("The source's text could not be read: %s", error->message);
    return text;
  }
}

static void
render (SimComparison *self)
{
  const SimReportSegment *seg = sim_report_get_segment (self->report, self->segment);
  const SimMatch *m = sim_report_get_match (self->report, seg->first_match + self->match);
  const SimReportSource *src = sim_report_get_source (self->report, m->source);
  const char *article = sim_report_get_text (self->report);
  g_autofree char *source = src->text_withheld ? g_strdup (sim_report_source_withheld_note ())
                                               : dup_source_text (self->snapshot, src->doc_id);
  g_autofree char *a_passage = NULL, *b_passage = NULL, *title = NULL, *said = NULL;
  g_autoptr(GArray) ops = NULL;
  guint32 as, ae, bs, be, acs, ace, bcs, bce;
  SimDiffStats stats;
  g_autofree char *same = g_strdup_printf ("same-%u", m->source % SIM_SOURCE_N_COLORS + 1);
  const SimNormalizeFlags flags = self->snapshot ? sim_corpus_snapshot_get_flags (self->snapshot) : 0;

  choose_spans (self->report, seg, m, &as, &ae, &bs, &be);
  if (src->text_withheld)
    {
      /* Matched by keys: the note in the source's place, nothing to compare. */
      bs = 0;
      be = 0;
    }
  else if (source == NULL || (guint64) g_utf8_strlen (source, -1) < be)
    {
      /* The document is gone from the store: the excerpt the report kept. */
      g_clear_pointer (&source, g_free);
      source = g_strdup (m->excerpt);
      bs = 0;
      be = g_utf8_strlen (source, -1);
    }
  sim_diff_context (article, sim_report_get_n_chars (self->report), as, ae, SIM_COMPARISON_CONTEXT, &acs, &ace);
  sim_diff_context (source, g_utf8_strlen (source, -1), bs, be, SIM_COMPARISON_CONTEXT, &bcs, &bce);
  a_passage = sim_report_dup_text (self->report, as, ae);
  {
    const char *p = g_utf8_offset_to_pointer (source, bs);

    b_passage = g_strndup (p, g_utf8_offset_to_pointer (p, be - bs) - p);
  }
  ops = src->text_withheld ? g_array_new (FALSE, FALSE, sizeof (SimDiffOp))
                           : sim_diff_texts (a_passage, b_passage, flags, &stats);

  fill (self->article, article, acs, ace, as, ae);
  fill (self->source, source, bcs, bce, bs, be);
  if (src->text_withheld)
    tag_span (self->article, same, as - acs, ae - acs);
  for (guint i = 0; i < ops->len; i++)
    {
      const SimDiffOp *op = &g_array_index (ops, SimDiffOp, i);
      const char *a_tag = op->kind == SIM_DIFF_SAME ? same : op->kind == SIM_DIFF_CHANGED ? "changed" : "added";
      const char *b_tag = op->kind == SIM_DIFF_SAME ? same : op->kind == SIM_DIFF_CHANGED ? "changed" : "left-out";

      tag_span (self->article, a_tag, as - acs + op->a_start, as - acs + op->a_end);
      tag_span (self->source, b_tag, bs - bcs + op->b_start, bs - bcs + op->b_end);
    }

  /* A segment below the medium level is not flagged: its best candidate is
   * shown for what it is. */
  title = sim_report_get_segment (self->report, self->segment)->level == SIM_LEVEL_LOW
            ? g_strdup_printf (_("No source above the medium level; the best candidate, %.0f%%, is source %u: %s"),
                               100 * m->similarity, m->source + 1, src->title)
            : g_strdup_printf (_("Source %u: %s"), m->source + 1, src->title);
  gtk_label_set_text (self->title, title);
  gtk_label_set_text (self->path, src->display_path);
  {
    const gint run = self->match == 0 ? sim_report_view_find_run (self->view, self->segment) : -1;

    const float similarity = run >= 0 ? sim_report_view_get_run (self->view, run)->similarity : m->similarity;

    said = src->text_withheld
             ? g_strdup_printf (_("About %.0f%% of this passage is in the source, judged by the fingerprints "
                                  "both share; the corpus server keeps the source’s text from this account."),
                                100 * similarity)
             : sim_diff_describe (&stats, similarity);
  }
  gtk_label_set_text (self->summary, said);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->summary), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, said, -1);

  g_free (self->source_path);
  self->source_path = g_strdup (src->path);
  g_free (self->source_title);
  self->source_title = g_strdup (src->title);
  g_free (self->source_text);
  self->source_text = g_steal_pointer (&source);
  gtk_widget_set_visible (self->details, TRUE);
  gtk_widget_set_sensitive (GTK_WIDGET (self->open), !src->text_withheld);
}

static void
on_match_chosen (GtkDropDown   *dropdown,
                 GParamSpec    *pspec,
                 SimComparison *self)
{
  const guint chosen = gtk_drop_down_get_selected (dropdown);

  if (self->updating || self->report == NULL || chosen == GTK_INVALID_LIST_POSITION || chosen == self->match)
    return;
  self->match = chosen;
  render (self);
}

void
sim_comparison_show (SimComparison     *self,
                     SimReportView     *view,
                     SimCorpusSnapshot *snapshot,
                     guint              segment,
                     guint              match)
{
  SimReport *report = sim_report_view_get_report (view);
  const SimReportSegment *seg;
  g_autoptr(GtkStringList) names = gtk_string_list_new (NULL);

  g_return_if_fail (SIM_IS_COMPARISON (self));
  seg = sim_report_get_segment (report, segment);
  if (seg->n_matches == 0)
    {
      sim_comparison_clear (self, NULL);
      return;
    }
  if (self->view != view)
    {
      g_clear_pointer (&self->view, sim_report_view_unref);
      self->view = sim_report_view_ref (view);
      self->report = report;
    }
  if (self->snapshot != snapshot)
    {
      g_clear_pointer (&self->snapshot, sim_corpus_snapshot_unref);
      self->snapshot = snapshot ? sim_corpus_snapshot_ref (snapshot) : NULL;
    }
  self->segment = segment;
  self->match = MIN (match, seg->n_matches - 1);
  /* The segment's other matches, to switch between. */
  for (guint i = 0; i < seg->n_matches; i++)
    {
      const SimMatch *m = sim_report_get_match (report, seg->first_match + i);
      g_autofree char *name = g_strdup_printf (_("%u. %.0f%% — %s"), m->source + 1, 100 * m->similarity,
                                               sim_report_get_source (report, m->source)->title);

      gtk_string_list_append (names, name);
    }
  self->updating = TRUE;
  gtk_drop_down_set_model (self->matches, G_LIST_MODEL (names));
  gtk_drop_down_set_selected (self->matches, self->match);
  self->updating = FALSE;
  gtk_widget_set_visible (GTK_WIDGET (self->matches), seg->n_matches > 1);
  render (self);
}

void
sim_comparison_clear (SimComparison *self,
                      const char    *message)
{
  gtk_label_set_text (self->title, message ? message : _("No source above the medium level for this segment."));
  gtk_label_set_text (self->path, "");
  gtk_label_set_text (self->summary, "");
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->article), "", -1);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->source), "", -1);
  gtk_widget_set_visible (self->details, FALSE);
  gtk_widget_set_sensitive (GTK_WIDGET (self->open), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->matches), FALSE);
  g_clear_pointer (&self->source_path, g_free);
  g_clear_pointer (&self->source_text, g_free);
}

/* The stored text of the source, in a window of its own titled @title. */
static void
show_stored_text (SimComparison *self,
                  const char    *title)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));
  GtkWidget *window = gtk_window_new ();
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkWidget *view = gtk_text_view_new ();

  gtk_window_set_title (GTK_WINDOW (window), title);
  gtk_window_set_default_size (GTK_WINDOW (window), 640, 600);
  if (GTK_IS_WINDOW (root))
    gtk_window_set_transient_for (GTK_WINDOW (window), GTK_WINDOW (root));
  gtk_text_view_set_editable (GTK_TEXT_VIEW (view), FALSE);
  gtk_text_view_set_wrap_mode (GTK_TEXT_VIEW (view), GTK_WRAP_WORD_CHAR);
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (GTK_TEXT_VIEW (view)), self->source_text, -1);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), view);
  gtk_window_set_child (GTK_WINDOW (window), scrolled);
  gtk_window_present (GTK_WINDOW (window));
}

static void
on_shown (GObject      *source,
          GAsyncResult *result,
          gpointer      data)
{
  g_autoptr(SimComparison) self = data;
  g_autoptr(GError) error = NULL;

  /* No application opens it (GTK's "Could not show link" said only that):
   * the text the corpus keeps of it. */
  if (!gtk_show_uri_full_finish (GTK_WINDOW (source), result, &error) && self->source_text != NULL &&
      !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *title = g_strdup_printf (_("%s (stored text; no application opens the file)"),
                                                self->source_title);

      show_stored_text (self, title);
    }
}

void
sim_comparison_open_source (SimComparison *self)
{
  GtkRoot *root = gtk_widget_get_root (GTK_WIDGET (self));

  if (self->source_path && g_file_test (self->source_path, G_FILE_TEST_IS_REGULAR) && GTK_IS_WINDOW (root))
    {
      g_autoptr(GFile) file = g_file_new_for_path (self->source_path);
      g_autofree char *uri = g_file_get_uri (file);

      gtk_show_uri_full (GTK_WINDOW (root), uri, GDK_CURRENT_TIME, NULL, on_shown, g_object_ref (self));
    }
  else if (self->source_text)
    {
      g_autofree char *title = g_strdup_printf (_("%s (stored text; the file is gone)"), self->source_title);

      show_stored_text (self, title);
    }
}

static void
on_open_source (GtkButton     *button,
                SimComparison *self)
{
  sim_comparison_open_source (self);
}

const char *
sim_comparison_get_title (SimComparison *self)
{
  return gtk_label_get_text (self->title);
}

const char *
sim_comparison_get_path (SimComparison *self)
{
  return gtk_label_get_text (self->path);
}

const char *
sim_comparison_get_summary (SimComparison *self)
{
  return gtk_label_get_text (self->summary);
}

GtkTextBuffer *
sim_comparison_get_article (SimComparison *self)
{
  return gtk_text_view_get_buffer (self->article);
}

GtkTextBuffer *
sim_comparison_get_source (SimComparison *self)
{
  return gtk_text_view_get_buffer (self->source);
}

guint
sim_comparison_get_match (SimComparison *self)
{
  return self->match;
}

static void
sim_comparison_dispose (GObject *object)
{
  SimComparison *self = SIM_COMPARISON (object);

  g_clear_pointer (&self->view, sim_report_view_unref);
  self->report = NULL;
  g_clear_pointer (&self->snapshot, sim_corpus_snapshot_unref);
  G_OBJECT_CLASS (sim_comparison_parent_class)->dispose (object);
}

static void
sim_comparison_finalize (GObject *object)
{
  SimComparison *self = SIM_COMPARISON (object);

  g_free (self->source_path);
  g_free (self->source_text);
  g_free (self->source_title);
  G_OBJECT_CLASS (sim_comparison_parent_class)->finalize (object);
}

static void
sim_comparison_class_init (SimComparisonClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = sim_comparison_dispose;
  G_OBJECT_CLASS (klass)->finalize = sim_comparison_finalize;
}

static void
sim_comparison_init (SimComparison *self)
{
  GtkBox *box = GTK_BOX (self);
  GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  GtkWidget *heading = gtk_label_new (_("Comparison"));
  GtkWidget *previous = gtk_button_new_from_icon_name ("go-up-symbolic");
  GtkWidget *next = gtk_button_new_from_icon_name ("go-down-symbolic");
  GtkWidget *details = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *legend;

  gtk_orientable_set_orientation (GTK_ORIENTABLE (self), GTK_ORIENTATION_VERTICAL);
  gtk_box_set_spacing (box, 4);
  gtk_label_set_xalign (GTK_LABEL (heading), 0);
  gtk_widget_set_hexpand (heading, TRUE);
  gtk_widget_add_css_class (heading, "heading");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (previous), "win.previous-segment");
  gtk_actionable_set_action_name (GTK_ACTIONABLE (next), "win.next-segment");
  gtk_widget_set_tooltip_text (previous, _("Previous flag (Shift+F3)"));
  gtk_widget_set_tooltip_text (next, _("Next flag (F3)"));
  gtk_widget_add_css_class (previous, "flat");
  gtk_widget_add_css_class (next, "flat");
  self->open = GTK_BUTTON (gtk_button_new_with_mnemonic (_("_Open Source")));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->open),
                               _("Open the source file, or its stored text when the file is gone"));
  gtk_widget_set_sensitive (GTK_WIDGET (self->open), FALSE);
  g_signal_connect (self->open, "clicked", G_CALLBACK (on_open_source), self);
  gtk_box_append (GTK_BOX (row), heading);
  gtk_box_append (GTK_BOX (row), GTK_WIDGET (self->open));
  gtk_box_append (GTK_BOX (row), previous);
  gtk_box_append (GTK_BOX (row), next);
  gtk_box_append (box, row);

  self->title = GTK_LABEL (gtk_label_new (_("Click a highlighted segment to compare it with its source.")));
  gtk_label_set_xalign (self->title, 0);
  gtk_label_set_wrap (self->title, TRUE);
  gtk_label_set_selectable (self->title, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->title), "source-title");
  gtk_box_append (box, GTK_WIDGET (self->title));

  self->details = details;
  gtk_widget_set_vexpand (details, TRUE);
  gtk_widget_set_visible (details, FALSE);
  gtk_box_append (box, details);
  self->path = GTK_LABEL (gtk_label_new (""));
  gtk_label_set_xalign (self->path, 0);
  gtk_label_set_wrap (self->path, TRUE);
  gtk_label_set_wrap_mode (self->path, PANGO_WRAP_CHAR);
  gtk_label_set_selectable (self->path, TRUE);
  gtk_widget_add_css_class (GTK_WIDGET (self->path), "dim-label");
  gtk_box_append (GTK_BOX (details), GTK_WIDGET (self->path));
  self->matches = GTK_DROP_DOWN (gtk_drop_down_new (NULL, NULL));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->matches), _("Other sources this segment matches"));
  g_signal_connect (self->matches, "notify::selected", G_CALLBACK (on_match_chosen), self);
  gtk_box_append (GTK_BOX (details), GTK_WIDGET (self->matches));
  self->summary = GTK_LABEL (gtk_label_new (""));
  gtk_label_set_xalign (self->summary, 0);
  gtk_label_set_wrap (self->summary, TRUE);
  gtk_box_append (GTK_BOX (details), GTK_WIDGET (self->summary));
  /* A box for its children's sake, laid out by measure_pair and allocate_pair. */
  self->pair = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_set_vexpand (self->pair, TRUE);
  gtk_widget_set_layout_manager (self->pair, gtk_custom_layout_new (NULL, measure_pair, allocate_pair));
  gtk_box_append (GTK_BOX (details), self->pair);
  self->article = make_view (self->pair, _("Your text"),
                             _("The article's passage with context: words shared with the source are coloured"));
  self->source = make_view (self->pair, _("Source"),
                            _("The source's passage with context: words the article left out are struck through"));
  legend = gtk_label_new (_("Shared words are coloured; changed words have a wavy underline, added words a double "
                            "underline; words left out are struck through. Context is in italics."));
  gtk_label_set_wrap (GTK_LABEL (legend), TRUE);
  gtk_label_set_xalign (GTK_LABEL (legend), 0);
  gtk_widget_add_css_class (legend, "dim-label");
  gtk_widget_add_css_class (legend, "caption");
  gtk_box_append (GTK_BOX (details), legend);
}

GtkWidget *
sim_comparison_new (void)
{
  return g_object_new (SIM_TYPE_COMPARISON, NULL);
}
