/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>
#include <adwaita.h>
#include <glib/gi18n.h>

#include "sim-article-view.h"
#include "sim-backend.h"
#include "sim-check.h"
#include "sim-corpus.h"
#include "sim-error.h"
#include "sim-exclude.h"
#include "sim-paths.h"
#include "sim-keyring.h"
#include "sim-server.h"
#include "sim-session.h"
#include "sim-report-json.h"
#include "sim-export-dialog.h"
#include "sim-chart.h"
#include "sim-class-window.h"
#include "sim-open.h"
#include "sim-comparison.h"
#include "sim-compare-window.h"
#include "sim-corpus-window.h"
#include "sim-tint.h"
#include "sim-window.h"
#include "sim-window-test.h"
#include "sim-window-private.h"


/* ------------------------------------------------------------- corpus */


typedef struct {
  SimCorpusSnapshot *snapshot;
  gboolean           may_write;
} ServerOpened;

static void
server_opened_free (ServerOpened *opened)
{
  g_clear_pointer (&opened->snapshot, sim_corpus_snapshot_unref);
  g_free (opened);
}

static void
server_opened (GObject      *source,
               GAsyncResult *result,
               gpointer      user_data)
{
  SimWindow *self = SIM_WINDOW (source);
  g_autoptr(GError) error = NULL;
  ServerOpened *opened = g_task_propagate_pointer (G_TASK (result), &error);
  const gboolean check_after = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (result), "check"));

  _sim_window_set_busy (self, FALSE, NULL);
  if (opened == NULL)
    {
      /* The text and any report stay; Check tries again. */
      _sim_window_show_error (self, _("The corpus server cannot be reached"), error);
      _sim_window_update_actions (self);
      return;
    }
  /* What this account may do decides the corpus manager's Add and Remove. */
  self->read_only = !opened->may_write;
  {
    g_autofree char *count = g_strdup_printf ("%'u", sim_corpus_snapshot_get_n_documents (opened->snapshot));
    g_autofree char *text = opened->may_write
      ? g_strdup_printf (_("Checks go to the corpus server %s: %s documents."),
                         sim_corpus_snapshot_get_store_path (opened->snapshot), count)
      : g_strdup_printf (_("Checks go to the corpus server %s: %s documents. This account may check against "
                           "them, not add or remove documents."),
                         sim_corpus_snapshot_get_store_path (opened->snapshot), count);

    gtk_label_set_text (self->read_only_label, text);
  }
  sim_session_set_snapshot (self->session, opened->snapshot);
  server_opened_free (opened);
  gtk_stack_set_visible_child_name (self->stack, "main");
  _sim_window_update_actions (self);
  if (check_after)
    {
      self->server_fresh = TRUE;
      sim_window_check (self);
    }
}

static void
open_server_thread (GTask        *task,
                    gpointer      source_object,
                    gpointer      task_data,
                    GCancellable *cancellable)
{
  GError *error = NULL;
  g_autoptr(SimBackend) backend = sim_keyring_open_backend (task_data, FALSE, &error);
  ServerOpened *opened = g_new0 (ServerOpened, 1);

  if (backend != NULL)
    {
      opened->may_write = sim_backend_may_write (backend);
      opened->snapshot = sim_backend_snapshot (backend, &error);
    }
  if (opened->snapshot == NULL)
    {
      server_opened_free (opened);
      g_task_return_error (task, error);
    }
  else
    g_task_return_pointer (task, opened, (GDestroyNotify) server_opened_free);
}

/* A corpus server: its snapshot is made on a thread (connecting may take
 * up to the connect timeout); @check_after checks the text once it is. */
void
_sim_window_open_server (SimWindow *self,
                         gboolean   check_after)
{
  g_autoptr(GTask) task = g_task_new (self, NULL, server_opened, NULL);
  g_autofree char *shown = sim_store_location_redact (self->store_path);
  g_autofree char *text = g_strdup_printf (_("Checks go to the corpus server %s."), shown);

  self->read_only = TRUE;
  gtk_label_set_text (self->read_only_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->read_only_label), TRUE);
  sim_session_set_snapshot (self->session, NULL);
  gtk_stack_set_visible_child_name (self->stack, "main");
  g_task_set_task_data (task, g_strdup (self->store_path), g_free);
  g_object_set_data (G_OBJECT (task), "check", GINT_TO_POINTER (check_after));
  _sim_window_set_busy (self, TRUE, _("Connecting to the corpus server…"));
  gtk_progress_bar_pulse (self->progress_bar);
  g_task_run_in_thread (task, open_server_thread);
}

/* Opens the store (creating it if needed) and shows the main page or the
 * empty state. Opening maps the index files: fast. A corpus server is
 * opened on a thread. */
void
_sim_window_load_corpus (SimWindow *self)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCorpus) corpus = NULL;

  if (sim_store_location_is_server (self->store_path))
    {
      _sim_window_open_server (self, FALSE);
      return;
    }

  /* A store this user may not write (a teacher's shared corpus, a
   * read-only disk) is still checked against; only its edits are off. */
  self->read_only = sim_store_path_is_read_only (self->store_path);
  corpus = sim_corpus_open (self->store_path, self->read_only, &error);
  if (self->read_only)
    {
      g_autofree char *name = g_filename_display_name (self->store_path);
      g_autofree char *text = g_strdup_printf (_("The reference corpus %s is read-only: you can check against it, "
                                                 "but not add or remove documents."), name);

      gtk_label_set_text (self->read_only_label, text);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->read_only_label), self->read_only);
  sim_session_set_snapshot (self->session, NULL);
  if (corpus == NULL)
    {
      gtk_stack_set_visible_child_name (self->stack, "main");
      _sim_window_show_error (self, _("The reference corpus cannot be opened"), error);
    }
  else
    {
      g_autoptr(SimCorpusSnapshot) snapshot = sim_corpus_ref_snapshot (corpus);

      sim_session_set_snapshot (self->session, snapshot);
      /* The preference mirrors the store's own setting. */
      g_signal_handlers_block_by_func (self->settings, _sim_window_on_fold_changed, self);
      g_settings_set_boolean (self->settings, "fold-traditional",
                              (sim_corpus_get_flags (corpus) & SIM_NORMALIZE_FOLD_T2S) != 0);
      g_signal_handlers_unblock_by_func (self->settings, _sim_window_on_fold_changed, self);
      gtk_stack_set_visible_child_name (self->stack,
                                        sim_corpus_snapshot_get_n_documents (SNAPSHOT (self)) > 0 ? "main" : "empty");
    }
  _sim_window_update_actions (self);
}

/* --------------------------------------------------------------- import */

typedef struct {
  char         *store_path;
  GStrv         paths;
  gboolean      rescan;   /* paths[0] is a folder to bring in step */
  gint          done;     /* atomics: latest progress */
  gint          total;
  gint          waiting;  /* another writer holds the store */
  GCancellable *cancellable;  /* borrowed from the task, for the import thread */
} ImportJob;

static void
import_job_free (ImportJob *job)
{
  g_free (job->store_path);
  g_strfreev (job->paths);
  g_free (job);
}

static void
import_progress (guint64     done,
                 guint64     total,
                 const char *what,
                 gpointer    user_data)
{
  ImportJob *job = user_data;

  g_atomic_int_set (&job->waiting, 0);
  g_atomic_int_set (&job->done, done);
  g_atomic_int_set (&job->total, total);
}

/* The import thread waits for another writer (the CLI, another window)
 * for as long as it takes, unless cancelled; the window says so. */
static gboolean
import_busy (int      n_tries,
             gpointer user_data)
{
  ImportJob *job = user_data;

  g_atomic_int_set (&job->waiting, 1);
  return !g_cancellable_is_cancelled (job->cancellable);
}

static void
import_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  ImportJob *job = task_data;
  GError *error = NULL;
  /* This thread's own corpus and connection, a store's or a server's. */
  g_autoptr(SimBackend) backend = sim_keyring_open_backend (job->store_path, FALSE, &error);
  SimImportResult *result = NULL;

  job->cancellable = cancellable;
  if (backend != NULL)
    {
      if (sim_backend_get_corpus (backend) != NULL)
        sim_store_set_busy_func (sim_corpus_get_store (sim_backend_get_corpus (backend)), import_busy, job);
      result = job->rescan
        ? sim_backend_rescan (backend, job->paths[0], NULL, import_progress, job, cancellable, &error)
        : sim_backend_add (backend, (const char *const *) job->paths, NULL, import_progress, job, cancellable, &error);
    }
  if (result == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, result, (GDestroyNotify) sim_import_result_free);
}

static gboolean
poll_import (gpointer user_data)
{
  GTask *task = user_data;
  SimWindow *self = g_task_get_source_object (task);
  ImportJob *job = g_task_get_task_data (task);
  const gint total = g_atomic_int_get (&job->total);
  g_autofree char *text = NULL;

  if (g_task_get_completed (task))
    return G_SOURCE_REMOVE;
  text = g_atomic_int_get (&job->waiting)
           ? g_strdup (_("Waiting for another import or removal on this store to finish…"))
           : g_strdup_printf (_("Adding %d of %d"), g_atomic_int_get (&job->done), total);
  gtk_progress_bar_set_text (self->progress_bar, text);
  gtk_progress_bar_set_fraction (self->progress_bar, total ? (double) job->done / total : 0);
  return G_SOURCE_CONTINUE;
}

/* An import or a repair has finished with the store: the window and the
 * corpus manager show it as it is now. */
static void
store_work_done (SimWindow *self)
{
  _sim_window_set_busy (self, FALSE, NULL);
  _sim_window_load_corpus (self);
  if (self->corpus_window)
    sim_corpus_window_reload (SIM_CORPUS_WINDOW (self->corpus_window));
}

static void
on_import_done (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  SimWindow *self = SIM_WINDOW (source);
  const ImportJob *job = g_task_get_task_data (G_TASK (result));
  g_autoptr(GError) error = NULL;
  g_autoptr(SimImportResult) imported = g_task_propagate_pointer (G_TASK (result), &error);
  g_autofree char *said = NULL;
  AdwToast *toast;

  if (gtk_widget_in_destruction (GTK_WIDGET (self)) || self->settings == NULL)
    return;
  store_work_done (self);
  if (imported == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        _sim_window_show_error (self, _("The documents could not be added"), error);
      return;
    }
  /* What the import did, with the corpus one click away. */
  if (job->rescan)
    {
      g_autofree char *name = g_filename_display_basename (job->paths[0]);

      said = g_strdup_printf (_("Re-scanned %s: %u added, %u updated, %u removed, %u unchanged"), name,
                              imported->n_added, imported->n_updated, imported->n_removed, imported->n_unchanged);
    }
  else
    said = g_strdup_printf (_("Corpus: %u added, %u updated, %u unchanged"),
                            imported->n_added, imported->n_updated, imported->n_unchanged);
  toast = adw_toast_new (said);
  adw_toast_set_button_label (toast, _("_Show"));
  adw_toast_set_action_name (toast, "win.manage-corpus");
  adw_toast_overlay_add_toast (self->toast_overlay, toast);
  if (imported->failures->len > 0)
    {
      g_autoptr(GString) list = g_string_new (NULL);
      g_autoptr(GError) failed = NULL;

      for (guint i = 0; i < MIN (imported->failures->len, 20); i++)
        g_string_append_printf (list, "%s\n", (const char *) g_ptr_array_index (imported->failures, i));
      failed = g_error_new_literal (SIM_ERROR, SIM_ERROR_NOT_TEXT, list->str);
      _sim_window_show_error (self, _("Some files could not be added; the others were"), failed);
    }
}

static void
start_import (SimWindow         *self,
              const char *const *paths,
              gboolean           rescan)
{
  g_autoptr(GTask) task = NULL;
  ImportJob *job;

  if (self->busy || self->read_only)
    return;
  /* Cancel (the button or Escape) stops the import after its current batch. */
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  task = g_task_new (self, self->cancellable, on_import_done, NULL);
  job = g_new0 (ImportJob, 1);
  job->store_path = g_strdup (self->store_path);
  job->paths = g_strdupv ((char **) paths);
  job->rescan = rescan;
  g_task_set_task_data (task, job, (GDestroyNotify) import_job_free);
  g_task_set_return_on_cancel (task, FALSE);
  _sim_window_set_busy (self, TRUE, rescan ? _("Re-scanning the folder…") : _("Adding documents…"));
  g_timeout_add_full (G_PRIORITY_DEFAULT, 100, poll_import, g_object_ref (task), g_object_unref);
  g_task_run_in_thread (task, import_thread);
}

void
sim_window_add_documents (SimWindow         *self,
                          const char *const *paths)
{
  start_import (self, paths, FALSE);
}

void
sim_window_rescan_folder (SimWindow  *self,
                          const char *folder)
{
  const char *paths[] = { folder, NULL };

  start_import (self, paths, TRUE);
}

/* -------------------------------------------------------------- rebuild */

static void
rebuild_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  const char *store_path = task_data;
  const gboolean fold = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (task), "fold"));
  GError *error = NULL;
  g_autoptr(SimCorpus) corpus = sim_corpus_open (store_path, FALSE, &error);

  if (corpus == NULL ||
      !sim_corpus_set_flags (corpus, fold ? SIM_NORMALIZE_FOLD_T2S : SIM_NORMALIZE_DEFAULT, &error))
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
on_rebuilt (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  SimWindow *self = SIM_WINDOW (source);
  g_autoptr(GError) error = NULL;

  g_task_propagate_boolean (G_TASK (result), &error);
  if (gtk_widget_in_destruction (GTK_WIDGET (self)) || self->settings == NULL)
    return;
  _sim_window_set_busy (self, FALSE, NULL);
  _sim_window_load_corpus (self);
  if (error != NULL)
    _sim_window_show_error (self, _("The corpus could not be rebuilt"), error);
}

void
_sim_window_on_fold_changed (GSettings  *settings,
                             const char *key,
                             SimWindow  *self)
{
  g_autoptr(GTask) task = NULL;

  if (self->read_only && !self->busy)
    {
      /* The store keeps its own setting: show it again. */
      _sim_window_load_corpus (self);
      return;
    }
  if (self->busy || SNAPSHOT (self) == NULL)
    return;
  task = g_task_new (self, NULL, on_rebuilt, NULL);
  g_task_set_task_data (task, g_strdup (self->store_path), g_free);
  g_object_set_data (G_OBJECT (task), "fold", GINT_TO_POINTER (g_settings_get_boolean (settings, key)));
  _sim_window_set_busy (self, TRUE, _("Rebuilding the corpus…"));
  gtk_progress_bar_pulse (self->progress_bar);
  g_task_run_in_thread (task, rebuild_thread);
}

/* --------------------------------------------------------------- repair */

static void
repair_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  GError *error = NULL;
  SimRepairResult *result = sim_corpus_rebuild (task_data, &error);

  if (result == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, result, (GDestroyNotify) sim_repair_result_free);
}

static void
on_repaired (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  SimWindow *self = SIM_WINDOW (source);
  g_autoptr(GError) error = NULL;
  g_autoptr(SimRepairResult) repaired = g_task_propagate_pointer (G_TASK (result), &error);
  g_autoptr(GString) said = g_string_new (NULL);
  GtkWidget *dialog;

  if (gtk_widget_in_destruction (GTK_WIDGET (self)) || self->settings == NULL)
    return;
  store_work_done (self);
  if (repaired == NULL)
    {
      _sim_window_show_error (self, _("The reference corpus could not be repaired"), error);
      return;
    }
  for (guint i = 0; i < repaired->healed->len; i++)
    g_string_append_printf (said, _("Read again from its unchanged file: %s\n"),
                            (const char *) g_ptr_array_index (repaired->healed, i));
  for (guint i = 0; i < repaired->set_aside->len; i++)
    g_string_append_printf (said, _("Set aside (add the file again to restore it): %s\n"),
                            (const char *) g_ptr_array_index (repaired->set_aside, i));
  for (guint i = 0; repaired->salvaged && i < repaired->salvaged->len; i++)
    g_string_append_printf (said, _("The database was damaged and copied anew: %s\n"),
                            (const char *) g_ptr_array_index (repaired->salvaged, i));
  if (said->len == 0)
    g_string_append (said, _("Nothing was damaged in the stored texts; every fingerprint was made again."));
  dialog = adw_message_dialog_new (GTK_WINDOW (self), _("The reference corpus is repaired"), said->str);
  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  gtk_window_present (GTK_WINDOW (dialog));
}

void
sim_window_repair_corpus (SimWindow *self)
{
  g_autoptr(GTask) task = NULL;

  if (self->busy || self->read_only)
    return;
  /* The window lets go of the store: a repair may put a new file in its place. */
  sim_session_set_snapshot (self->session, NULL);
  task = g_task_new (self, NULL, on_repaired, NULL);
  g_task_set_task_data (task, g_strdup (self->store_path), g_free);
  _sim_window_set_busy (self, TRUE, _("Repairing the reference corpus…"));
  gtk_progress_bar_pulse (self->progress_bar);
  g_task_run_in_thread (task, repair_thread);
}

void
_sim_window_repair_corpus_action (GtkWidget  *widget,
                                  const char *action_name,
                                  GVariant   *parameter)
{
  sim_window_repair_corpus (SIM_WINDOW (widget));
}

