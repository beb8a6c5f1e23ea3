/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>

#include "sim-exclude.h"
#include "sim-session.h"

struct _SimSession {
  GObject            parent_instance;

  SimCorpusSnapshot *snapshot;
  GFile             *file;
  char              *name;
  SimDocumentNotes   notes;        /* what reading the file left out */
  guint              generation;   /* of the text: one more at every open and edit */
  SimReport         *report;
  SimReportView     *view;
  gboolean           stale;
  /* The choices. */
  gboolean           quotes;
  gboolean           references;
  guint              small_words;
  GArray            *left_out;     /* gint64 doc ids */
  char              *template_text;
  GArray            *template_spans; /* SimExcludedSpan of the report's article */
  gboolean           template_found;
};

enum {
  PROP_0,
  PROP_VIEW,
  PROP_REPORT,
  PROP_STALE,
  N_PROPS
};

static GParamSpec *props[N_PROPS];

G_DEFINE_FINAL_TYPE (SimSession, sim_session, G_TYPE_OBJECT)

/* The view of the report under the choices, or none: one notify. */
static void
update_view (SimSession *self)
{
  SimExclusions ex = SIM_EXCLUSIONS_INIT;

  g_clear_pointer (&self->view, sim_report_view_unref);
  if (self->report != NULL && !self->stale)
    {
      if (!self->template_found)
        {
          g_array_set_size (self->template_spans, 0);
          if (self->template_text != NULL)
            sim_exclude_find_template (self->report, self->template_text, -1,
                                       self->snapshot ? sim_corpus_snapshot_get_flags (self->snapshot)
                                                      : SIM_NORMALIZE_DEFAULT,
                                       self->template_spans, NULL);
          self->template_found = TRUE;
        }
      ex.quotes = self->quotes;
      ex.references = self->references;
      ex.small_words = self->small_words;
      ex.source_ids = (const gint64 *) self->left_out->data;
      ex.n_source_ids = self->left_out->len;
      ex.template_spans = (const SimExcludedSpan *) self->template_spans->data;
      ex.n_template_spans = self->template_spans->len;
      self->view = sim_report_view_new (self->report, &ex);
    }
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_VIEW]);
}

static void
set_report (SimSession *self,
            SimReport  *report,
            gboolean    stale)
{
  if (report != NULL)
    sim_report_ref (report);
  g_clear_pointer (&self->report, sim_report_unref);
  self->report = report;
  self->stale = stale;
  self->template_found = FALSE;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_REPORT]);
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_STALE]);
  update_view (self);
}

SimSession *
sim_session_new (void)
{
  return g_object_new (SIM_TYPE_SESSION, NULL);
}

void
sim_session_set_snapshot (SimSession        *self,
                          SimCorpusSnapshot *snapshot)
{
  g_return_if_fail (SIM_IS_SESSION (self));
  if (snapshot != NULL)
    sim_corpus_snapshot_ref (snapshot);
  g_clear_pointer (&self->snapshot, sim_corpus_snapshot_unref);
  self->snapshot = snapshot;
}

SimCorpusSnapshot *
sim_session_get_snapshot (SimSession *self)
{
  return self->snapshot;
}

void
sim_session_open_text (SimSession             *self,
                       GFile                  *file,
                       const SimDocumentNotes *notes,
                       SimReport              *saved)
{
  g_return_if_fail (SIM_IS_SESSION (self));
  self->generation++;
  g_set_object (&self->file, file);
  g_clear_pointer (&self->name, g_free);
  if (file != NULL)
    {
      g_autofree char *base = g_file_get_basename (file);

      self->name = g_filename_display_name (base);
    }
  if (notes != NULL)
    self->notes = *notes;
  else
    memset (&self->notes, 0, sizeof self->notes);
  set_report (self, saved, FALSE);
}

void
sim_session_text_edited (SimSession *self)
{
  g_return_if_fail (SIM_IS_SESSION (self));
  self->generation++;
  if (self->report == NULL || self->stale)
    return;
  self->stale = TRUE;
  g_object_notify_by_pspec (G_OBJECT (self), props[PROP_STALE]);
  update_view (self);
}

GFile *
sim_session_get_file (SimSession *self)
{
  return self->file;
}

const char *
sim_session_get_name (SimSession *self)
{
  return self->name;
}

SimReport *
sim_session_get_report (SimSession *self)
{
  return self->report;
}

SimReportView *
sim_session_get_view (SimSession *self)
{
  return self->view;
}

gboolean
sim_session_is_stale (SimSession *self)
{
  return self->stale;
}

/* ------------------------------------------------------------- check */

static void
on_checked (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  g_autoptr(GTask) task = user_data;
  SimSession *self = g_task_get_source_object (task);
  const guint generation = GPOINTER_TO_UINT (g_task_get_task_data (task));
  GError *error = NULL;
  g_autoptr(SimReport) report = sim_check_run_finish (result, &error);

  if (report == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  /* Before anyone else holds the new report. */
  if (self->notes.n_hidden > 0)
    {
      const SimSuspicious hidden = { SIM_SUSPICIOUS_HIDDEN, self->notes.n_hidden, self->notes.hidden_start,
                                     self->notes.hidden_end };

      sim_report_add_suspicious (report, &hidden);
    }
  if (self->name != NULL)
    sim_report_set_name (report, self->name);
  set_report (self, report, generation != self->generation);
  g_task_return_boolean (task, TRUE);
}

void
sim_session_check_async (SimSession            *self,
                         const char            *text,
                         const SimCheckOptions *options,
                         SimProgressFunc        progress,
                         SimCheckPreviewFunc    preview,
                         gpointer               progress_data,
                         GCancellable          *cancellable,
                         GAsyncReadyCallback    callback,
                         gpointer               user_data)
{
  GTask *task;

  g_return_if_fail (SIM_IS_SESSION (self));
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sim_session_check_async);
  g_task_set_task_data (task, GUINT_TO_POINTER (self->generation), NULL);
  if (self->snapshot == NULL)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED, _("No reference corpus is open"));
      g_object_unref (task);
      return;
    }
  sim_check_run_async (self->snapshot, text, -1, options, progress, preview, progress_data, cancellable,
                       on_checked, task);
}

gboolean
sim_session_check_finish (SimSession    *self,
                          GAsyncResult  *result,
                          GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ------------------------------------------------------------- choices */

void
sim_session_set_exclusions (SimSession *self,
                            gboolean    quotes,
                            gboolean    references,
                            guint       small_words)
{
  g_return_if_fail (SIM_IS_SESSION (self));
  if (self->quotes == !!quotes && self->references == !!references && self->small_words == small_words)
    return;
  self->quotes = !!quotes;
  self->references = !!references;
  self->small_words = small_words;
  update_view (self);
}

gboolean
sim_session_is_source_counted (SimSession *self,
                               gint64      doc_id)
{
  for (guint i = 0; i < self->left_out->len; i++)
    if (g_array_index (self->left_out, gint64, i) == doc_id)
      return FALSE;
  return TRUE;
}

void
sim_session_set_source_counted (SimSession *self,
                                gint64      doc_id,
                                gboolean    counted)
{
  g_return_if_fail (SIM_IS_SESSION (self));
  if (!!counted == sim_session_is_source_counted (self, doc_id))
    return;
  if (counted)
    {
      for (guint i = 0; i < self->left_out->len; i++)
        if (g_array_index (self->left_out, gint64, i) == doc_id)
          g_array_remove_index (self->left_out, i--);
    }
  else
    g_array_append_val (self->left_out, doc_id);
  update_view (self);
}

void
sim_session_set_template (SimSession *self,
                          const char *text)
{
  g_return_if_fail (SIM_IS_SESSION (self));
  g_free (self->template_text);
  self->template_text = g_strdup (text);
  self->template_found = FALSE;
  update_view (self);
}

const char *
sim_session_get_template (SimSession *self)
{
  return self->template_text;
}

/* ------------------------------------------------------------- object */

static void
sim_session_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  SimSession *self = SIM_SESSION (object);

  switch (prop_id)
    {
    case PROP_VIEW:
      g_value_set_pointer (value, self->view);
      break;
    case PROP_REPORT:
      g_value_set_pointer (value, self->report);
      break;
    case PROP_STALE:
      g_value_set_boolean (value, self->stale);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sim_session_finalize (GObject *object)
{
  SimSession *self = SIM_SESSION (object);

  g_clear_pointer (&self->view, sim_report_view_unref);
  g_clear_pointer (&self->report, sim_report_unref);
  g_clear_pointer (&self->snapshot, sim_corpus_snapshot_unref);
  g_clear_object (&self->file);
  g_free (self->name);
  g_array_unref (self->left_out);
  g_free (self->template_text);
  g_array_unref (self->template_spans);
  G_OBJECT_CLASS (sim_session_parent_class)->finalize (object);
}

static void
sim_session_class_init (SimSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = sim_session_get_property;
  object_class->finalize = sim_session_finalize;
  props[PROP_VIEW] = g_param_spec_pointer ("view", NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  props[PROP_REPORT] = g_param_spec_pointer ("report", NULL, NULL, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  props[PROP_STALE] = g_param_spec_boolean ("stale", NULL, NULL, FALSE, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, props);
}

static void
sim_session_init (SimSession *self)
{
  self->left_out = g_array_new (FALSE, FALSE, sizeof (gint64));
  self->template_spans = g_array_new (FALSE, FALSE, sizeof (SimExcludedSpan));
}
