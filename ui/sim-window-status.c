/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What the window says of itself: which actions it offers, that it is busy,
 * an error and the repair it offers, and scrolling the results to the
 * comparison. The bottom of the window's files: it calls none of them.
 */
#include "config.h"

#include <string.h>
#include <adwaita.h>
#include <glib/gi18n.h>

#include "sim-article-view.h"
#include "sim-check.h"
#include "sim-corpus.h"
#include "sim-error.h"
#include "sim-exclude.h"
#include "sim-paths.h"
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


/* -------------------------------------------------------------- status */

static void
on_error_response (AdwMessageDialog *dialog,
                   const char       *response,
                   SimWindow        *self)
{
  /* Through the action: this file calls none of the others. */
  if (g_str_equal (response, "repair"))
    gtk_widget_activate_action (GTK_WIDGET (self), "win.repair-corpus", NULL);
}

void
_sim_window_show_error (SimWindow  *self,
                        const char *primary,
                        GError     *error)
{
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), primary, error->message);

  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  /* Damage is never a dead end: the same repair as `corpus rebuild`. */
  if (g_error_matches (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT) && !self->read_only)
    {
      adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "repair", _("_Repair"));
      adw_message_dialog_set_response_appearance (ADW_MESSAGE_DIALOG (dialog), "repair", ADW_RESPONSE_SUGGESTED);
      adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "repair");
      g_signal_connect_object (dialog, "response", G_CALLBACK (on_error_response), self, 0);
    }
  gtk_window_present (GTK_WINDOW (dialog));
}

void
_sim_window_set_busy (SimWindow  *self,
                      gboolean    busy,
                      const char *what)
{
  self->busy = busy;
  gtk_widget_set_visible (GTK_WIDGET (self->progress_bar), busy);
  gtk_widget_set_visible (GTK_WIDGET (self->cancel_button), busy);
  gtk_widget_set_visible (GTK_WIDGET (self->check_button), !busy);
  gtk_progress_bar_set_fraction (self->progress_bar, 0);
  gtk_progress_bar_set_text (self->progress_bar, what);
  _sim_window_update_actions (self);
}

void
_sim_window_update_actions (SimWindow *self)
{
  /* A server not reached yet: Check tries to reach it. */
  const gboolean unreached = SNAPSHOT (self) == NULL && sim_store_location_is_server (self->store_path);
  const gboolean has_corpus = unreached ||
                              (SNAPSHOT (self) != NULL && sim_corpus_snapshot_get_n_documents (SNAPSHOT (self)) > 0);
  const gboolean has_text = gtk_text_buffer_get_char_count (gtk_text_view_get_buffer (self->editor)) > 0;

  /* Check says why it cannot run. */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.check", has_corpus && has_text && !self->busy);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->check_button),
                               unreached ? _("Connect to the corpus server and check the text")
                               : !has_corpus ? _("Add documents to the reference corpus first")
                               : !has_text ? _("Paste or open a text to check first")
                                           : _("Check the text against the corpus (Ctrl+Return)"));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.cancel-check", self->busy);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.export",
                                 sim_session_get_view (self->session) != NULL && !self->busy);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.save-report",
                                 sim_session_get_view (self->session) != NULL && !self->busy);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.add-documents", !self->busy && !self->read_only);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.repair-corpus",
                                 !self->busy && !self->read_only && !sim_store_location_is_server (self->store_path) &&
                                 g_file_test (self->store_path, G_FILE_TEST_EXISTS));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.add-files", !self->busy && !self->read_only);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.use-demo",
                                 !self->busy && !self->read_only && !sim_store_location_is_server (self->store_path));
}

/* Folded, a chosen flag shows its comparison at the top of the results,
 * once they are laid out. */
gboolean
_sim_window_scroll_to_comparison (GtkWidget     *widget,
                                  GdkFrameClock *clock,
                                  gpointer       data)
{
  SimWindow *self = SIM_WINDOW (widget);
  GtkWidget *content = gtk_scrolled_window_get_child (self->results_scroll);
  double x, y;

  if (gtk_widget_translate_coordinates (GTK_WIDGET (self->comparison), content, 0, 0, &x, &y))
    gtk_adjustment_set_value (gtk_scrolled_window_get_vadjustment (self->results_scroll), y);
  return G_SOURCE_REMOVE;
}
