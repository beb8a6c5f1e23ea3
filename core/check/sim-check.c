/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The check: the stages of sim-check-private.h in order, the report last;
 * the async relay.
 */
#include "config.h"

#include <glib/gi18n-lib.h>

#include "sim-error.h"
#include "sim-parallel.h"
#include "sim-check-private.h"

gboolean
sim_check_options_validate (const SimCheckOptions *options,
                            GError               **error)
{
  if (options->mode == SIM_SEGMENT_WINDOW && (options->window < 4 || options->window > 2000))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                   _("The window must be between 4 and 2000 characters (got %u)"), options->window);
      return FALSE;
    }
  if (options->max_distance > SIM_BAND_INDEX_MAX_DISTANCE)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                   _("The maximum distance must be between 0 and %d (got %u)"),
                   SIM_BAND_INDEX_MAX_DISTANCE, options->max_distance);
      return FALSE;
    }
  if (!(options->medium_threshold > 0.0f && options->medium_threshold <= options->high_threshold &&
        options->high_threshold <= 1.0f))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                   _("Thresholds must satisfy 0 < medium <= high <= 1 (got %.2f and %.2f)"),
                   options->medium_threshold, options->high_threshold);
      return FALSE;
    }
  return TRUE;
}

static void
check_clear (Check *check)
{
  _sim_source_cache_clear (check);
  g_clear_pointer (&check->hits, g_array_unref);
  g_clear_pointer (&check->first_hit, g_free);
  g_clear_pointer (&check->keys, g_free);
  g_clear_pointer (&check->window_keys, g_free);
  g_clear_pointer (&check->pieces, g_ptr_array_unref);
  g_clear_pointer (&check->seg_cands, g_ptr_array_unref);
  g_clear_pointer (&check->seg_more, g_ptr_array_unref);
  g_clear_pointer (&check->seg_reworded, g_ptr_array_unref);
  g_clear_pointer (&check->widened, g_array_unref);
  g_clear_pointer (&check->deferred, g_array_unref);
  g_clear_pointer (&check->first_round, g_array_unref);
  g_clear_pointer (&check->results, g_ptr_array_unref);
  g_clear_pointer (&check->passages, g_array_unref);
  g_clear_pointer (&check->chunk_hits, g_ptr_array_unref);
  g_clear_pointer (&check->segments, g_array_unref);
  g_clear_pointer (&check->windows, g_array_unref);
}

/* Reads what the stages so far point into (_sim_source_cache_load());
 * FALSE on a store error, a damaged text or a cancel. */
static gboolean
load (Check   *check,
      GError **error)
{
  return _sim_source_cache_load (check, error) && _sim_source_cache_check_errors (check, error) &&
         !g_cancellable_set_error_if_cancelled (check->cancellable, error);
}

/* The segments whose verification was deferred, verified again once what
 * they wanted is read, all in one load. */
static gboolean
verify_deferred (Check   *check,
                 GError **error)
{
  if (!_sim_refine_deferred (check))
    return TRUE;
  if (!load (check, error))
    return FALSE;
  _sim_refine_redo (check);
  return TRUE;
}

static SimReport *
check_run (SimCorpusSnapshot     *snapshot,
           const char            *text,
           gssize                 len,
           const SimCheckOptions *options,
           SimProgressFunc        progress,
           gpointer               user_data,
           SimCheckPreviewFunc    preview,
           gpointer               preview_data,
           GCancellable          *cancellable,
           GError               **error)
{
  SimCheckOptions opts;
  Check check = { 0 };
  g_autoptr(SimFingerprinter) fp = NULL;
  g_autofree char *valid = NULL;
  SimReport *report = NULL;

  g_return_val_if_fail (snapshot != NULL, NULL);
  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (options != NULL, NULL);

  if (!sim_check_options_validate (options, error))
    return NULL;
  opts = *options;
  if (opts.n_threads == 0)
    opts.n_threads = sim_parallel_default_threads ();

  if (len < 0)
    len = strlen (text);
  if ((gsize) len > SIM_CHECK_MAX_BYTES)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                   _("The text is too long to check at once (%.1f MB; the limit is %d MB): "
                     "split it into parts"), len / 1048576.0, SIM_CHECK_MAX_BYTES >> 20);
      return NULL;
    }
  if (!sim_text_validate (text, len))
    {
      valid = g_utf8_make_valid (text, len);
      text = valid;
      len = strlen (valid);
    }
  if (!sim_text_has_content (text, len))
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_EMPTY,
                   _("The text is empty: there are no letters, digits or CJK characters to check"));
      return NULL;
    }

  if (opts.max_distance > 0 && sim_corpus_snapshot_get_n_fps (snapshot) > SIM_CHECK_BAND_MAX_FPS)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                   _("A fingerprint distance above 0 needs a band index in memory: %.1f GB for this "
                     "corpus of %.0f million fingerprints (the limit is %.0f million). Use a distance of 0"),
                   sim_corpus_snapshot_get_n_fps (snapshot) * 44.0 / 1e9,
                   sim_corpus_snapshot_get_n_fps (snapshot) / 1e6, SIM_CHECK_BAND_MAX_FPS / 1e6);
      return NULL;
    }
  if (!sim_corpus_snapshot_prepare_lookup (snapshot, opts.max_distance, cancellable, error))
    return NULL;
  check.snapshot = snapshot;
  check.options = &opts;
  check.weights = sim_corpus_snapshot_get_weights (snapshot);
  check.text = text;
  check.len = len;
  check.cancellable = cancellable;
  check.progress = progress;
  check.progress_data = user_data;
  check.caller = g_thread_self ();
  check.preview = preview;
  check.preview_data = preview_data;

  fp = sim_fingerprinter_new (sim_corpus_snapshot_get_flags (snapshot));
  check.units = sim_fingerprinter_load (fp, text, len);
  check.features = sim_fingerprinter_get_features (fp);
  check.segments = g_array_new (FALSE, FALSE, sizeof (SimSegment));
  /* Matching always works on sentences; window mode reports on windows. */
  sim_segment_split (text, len, check.units, SIM_SEGMENT_SENTENCE, opts.window, check.segments);
  check.windows = g_array_new (FALSE, FALSE, sizeof (SimAnchor));
  sim_fingerprinter_windows (fp, SIM_QUERY_WINNOW_WEIGHT, check.windows);
  check.total = check.segments->len;  /* and the distinct windows, once counted */
  /* Once from the caller before the stages: later reports come from it
   * only when its own share of the work crosses a step, which the
   * workers may take whole (a cancel from the first report then came
   * too late, now and again). */
  if (progress)
    progress (0, check.total, NULL, user_data);

  _sim_rewording_expect (&check);
  if (!_sim_candidates_lookup (&check, error) || g_cancellable_set_error_if_cancelled (cancellable, error))
    goto out;
  _sim_candidates_collect (&check);
  if (!load (&check, error))
    goto out;
  _sim_refine_verify (&check);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    goto out;
  if (_sim_refine_widen (&check) && !load (&check, error))
    goto out;
  _sim_refine_settle (&check);
  _sim_refine_verify_widened (&check);
  if (!verify_deferred (&check, error))
    goto out;
  _sim_refine_finish (&check);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    goto out;
  _sim_refine_extend_neighbours (&check);
  if (!_sim_rewording_find (&check, error))
    goto out;
  _sim_passages_want (&check);
  if (!load (&check, error))
    goto out;
  _sim_passages_find (&check);
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    goto out;
  if (opts.mode == SIM_SEGMENT_WINDOW)
    _sim_refine_project_to_windows (&check);

  report = _sim_check_build_report (&check);
  if (!_sim_source_cache_check_errors (&check, error))
    g_clear_pointer (&report, sim_report_unref);
  else if (progress)
    progress (check.total, check.total, NULL, user_data);

out:
  check_clear (&check);
  return report;
}

SimReport *
sim_check_run (SimCorpusSnapshot     *snapshot,
               const char            *text,
               gssize                 len,
               const SimCheckOptions *options,
               SimProgressFunc        progress,
               gpointer               user_data,
               GCancellable          *cancellable,
               GError               **error)
{
  return check_run (snapshot, text, len, options, progress, user_data, NULL, NULL, cancellable, error);
}
/* ------------------------------------------------------------ async */

typedef struct {
  SimCorpusSnapshot *snapshot;
  char              *text;
  gsize              len;
  SimCheckOptions    options;
  SimProgressFunc    progress;
  gpointer           progress_data;
  GMainContext      *context;
  gint               done_units;  /* atomics: the latest progress */
  gint               total_units;
  gint               idle_pending;
  gint               finished;
  SimCheckPreviewFunc preview;
  gpointer           preview_data;
  GMutex             preview_lock;
  GArray            *previews;    /* SimCheckPreview not yet delivered, under preview_lock */
} AsyncJob;

static void
async_job_free (AsyncJob *job)
{
  sim_corpus_snapshot_unref (job->snapshot);
  g_mutex_clear (&job->preview_lock);
  g_array_unref (job->previews);
  g_free (job->text);
  g_main_context_unref (job->context);
  g_free (job);
}

static gboolean
deliver_progress (gpointer data)
{
  GTask *task = data;
  AsyncJob *job = g_task_get_task_data (task);

  g_autoptr(GArray) previews = NULL;

  g_atomic_int_set (&job->idle_pending, 0);
  g_mutex_lock (&job->preview_lock);
  previews = g_steal_pointer (&job->previews);
  job->previews = g_array_new (FALSE, FALSE, sizeof (SimCheckPreview));
  g_mutex_unlock (&job->preview_lock);
  if (g_atomic_int_get (&job->finished) || g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    return G_SOURCE_REMOVE;
  if (job->progress)
    job->progress (g_atomic_int_get (&job->done_units), g_atomic_int_get (&job->total_units),
                   NULL, job->progress_data);
  if (job->preview && previews->len > 0)
    job->preview ((const SimCheckPreview *) previews->data, previews->len, job->preview_data);
  return G_SOURCE_REMOVE;
}

static void schedule_delivery (GTask *task);

static void
async_progress (guint64     done,
                guint64     total,
                const char *what,
                gpointer    user_data)
{
  GTask *task = user_data;
  AsyncJob *job = g_task_get_task_data (task);

  g_atomic_int_set (&job->done_units, done);
  g_atomic_int_set (&job->total_units, total);
  schedule_delivery (task);
}

static void
async_preview (const SimCheckPreview *previews,
               guint                  n,
               gpointer               user_data)
{
  GTask *task = user_data;
  AsyncJob *job = g_task_get_task_data (task);

  g_mutex_lock (&job->preview_lock);
  g_array_append_vals (job->previews, previews, n);
  g_mutex_unlock (&job->preview_lock);
  schedule_delivery (task);
}

static void
schedule_delivery (GTask *task)
{
  AsyncJob *job = g_task_get_task_data (task);

  /* At most one pending idle, and at most ten a second. */
  if ((job->progress || job->preview) && g_atomic_int_compare_and_exchange (&job->idle_pending, 0, 1))
    {
      GSource *source = g_timeout_source_new (100);

      g_source_set_callback (source, deliver_progress, g_object_ref (task), g_object_unref);
      g_source_attach (source, job->context);
      g_source_unref (source);
    }
}

/* Delivers the previews still queued when the check ends, before the result. */
static gboolean
flush_previews (gpointer data)
{
  GTask *task = data;
  AsyncJob *job = g_task_get_task_data (task);
  g_autoptr(GArray) previews = NULL;

  g_mutex_lock (&job->preview_lock);
  previews = g_steal_pointer (&job->previews);
  job->previews = g_array_new (FALSE, FALSE, sizeof (SimCheckPreview));
  g_mutex_unlock (&job->preview_lock);
  if (previews->len > 0 && !g_cancellable_is_cancelled (g_task_get_cancellable (task)))
    job->preview ((const SimCheckPreview *) previews->data, previews->len, job->preview_data);
  return G_SOURCE_REMOVE;
}

static void
check_thread (GTask        *task,
              gpointer      source_object,
              gpointer      task_data,
              GCancellable *cancellable)
{
  AsyncJob *job = task_data;
  GError *error = NULL;
  SimReport *report;

  report = check_run (job->snapshot, job->text, job->len, &job->options, async_progress, task,
                      job->preview ? async_preview : NULL, task, cancellable, &error);
  g_atomic_int_set (&job->finished, 1);
  if (job->preview != NULL && report != NULL)
    {
      GSource *source = g_idle_source_new ();

      /* Higher than the task's own completion, which is dispatched at default priority. */
      g_source_set_priority (source, G_PRIORITY_HIGH);
      g_source_set_callback (source, flush_previews, g_object_ref (task), g_object_unref);
      g_source_attach (source, job->context);
      g_source_unref (source);
    }
  if (report == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, report, (GDestroyNotify) sim_report_unref);
}

void
sim_check_run_async (SimCorpusSnapshot     *snapshot,
                     const char            *text,
                     gssize                 len,
                     const SimCheckOptions *options,
                     SimProgressFunc        progress,
                     SimCheckPreviewFunc    preview,
                     gpointer               progress_data,
                     GCancellable          *cancellable,
                     GAsyncReadyCallback    callback,
                     gpointer               user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  AsyncJob *job = g_new0 (AsyncJob, 1);

  if (len < 0)
    len = strlen (text);
  job->snapshot = sim_corpus_snapshot_ref (snapshot);
  job->text = g_strndup (text, len);
  job->len = len;
  job->options = *options;
  job->progress = progress;
  job->progress_data = progress_data;
  job->preview = preview;
  job->preview_data = progress_data;
  g_mutex_init (&job->preview_lock);
  job->previews = g_array_new (FALSE, FALSE, sizeof (SimCheckPreview));
  job->context = g_main_context_ref_thread_default ();
  g_task_set_source_tag (task, sim_check_run_async);
  g_task_set_task_data (task, job, (GDestroyNotify) async_job_free);
  g_task_set_return_on_cancel (task, FALSE);
  g_task_run_in_thread (task, check_thread);
}

SimReport *
sim_check_run_finish (GAsyncResult  *result,
                      GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}
