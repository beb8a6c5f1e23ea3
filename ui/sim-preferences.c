/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "sim-keyring.h"
#include "sim-preferences.h"
#include "sim-server.h"
#include "sim-store.h"

struct _SimPreferences {
  AdwPreferencesWindow parent_instance;

  /* template children */
  GtkSpinButton *high_spin;
  GtkSpinButton *medium_spin;
  GtkLabel      *problem_label;
  AdwActionRow  *distance_row;
  GtkSpinButton *distance_spin;
  GtkSpinButton *window_spin;
  GtkSwitch     *fast_switch;
  GtkSwitch     *fold_switch;
  GtkCheckButton *local_check;
  GtkCheckButton *server_check;
  AdwEntryRow   *conninfo_row;
  AdwEntryRow   *password_row;
  AdwActionRow  *test_row;
  GtkSpinner    *test_spinner;
  GtkButton     *test_button;

  GSettings     *settings;
  char          *test_result;
  GCancellable  *cancellable;  /* of the test running, if any */
  char          *problem;
  gboolean       loading;  /* spins follow the settings: do not write back */
};

G_DEFINE_FINAL_TYPE (SimPreferences, sim_preferences, ADW_TYPE_PREFERENCES_WINDOW)

static void
load_thresholds (SimPreferences *self)
{
  self->loading = TRUE;
  gtk_spin_button_set_value (self->high_spin, 100 * g_settings_get_double (self->settings, "high-threshold"));
  gtk_spin_button_set_value (self->medium_spin, 100 * g_settings_get_double (self->settings, "medium-threshold"));
  self->loading = FALSE;
}

/* Saves the thresholds when medium < high; otherwise marks both and says
 * why, and the settings keep what they had. */
static void
on_threshold_changed (SimPreferences *self)
{
  const double high = gtk_spin_button_get_value (self->high_spin);
  const double medium = gtk_spin_button_get_value (self->medium_spin);

  if (self->loading)
    return;
  g_clear_pointer (&self->problem, g_free);
  if (medium >= high)
    {
      self->problem = g_strdup_printf (_("Medium (%.0f%%) must be below high (%.0f%%): until it is, checks keep "
                                         "%.0f%% and %.0f%%."),
                                       medium, high,
                                       100 * g_settings_get_double (self->settings, "medium-threshold"),
                                       100 * g_settings_get_double (self->settings, "high-threshold"));
      gtk_widget_add_css_class (GTK_WIDGET (self->high_spin), "error");
      gtk_widget_add_css_class (GTK_WIDGET (self->medium_spin), "error");
    }
  else
    {
      gtk_widget_remove_css_class (GTK_WIDGET (self->high_spin), "error");
      gtk_widget_remove_css_class (GTK_WIDGET (self->medium_spin), "error");
      g_settings_delay (self->settings);
      g_settings_set_double (self->settings, "high-threshold", high / 100);
      g_settings_set_double (self->settings, "medium-threshold", medium / 100);
      g_settings_apply (self->settings);
    }
  gtk_label_set_text (self->problem_label, self->problem ? self->problem : "");
  gtk_widget_set_visible (GTK_WIDGET (self->problem_label), self->problem != NULL);
}

static void
on_settings_changed (GSettings      *settings,
                     const char     *key,
                     SimPreferences *self)
{
  /* Changed elsewhere (another window, dconf): show it, unless the user is
   * in the middle of an invalid pair here. */
  if ((g_str_equal (key, "high-threshold") || g_str_equal (key, "medium-threshold")) && self->problem == NULL)
    load_thresholds (self);
}

/* ------------------------------------------------- reference corpus */

static void
show_where (SimPreferences *self)
{
  const gboolean server = gtk_check_button_get_active (self->server_check);

  gtk_widget_set_sensitive (GTK_WIDGET (self->conninfo_row), server);
  gtk_widget_set_sensitive (GTK_WIDGET (self->password_row), server);
  gtk_widget_set_sensitive (GTK_WIDGET (self->test_row), server);
}

static void
say (SimPreferences *self,
     const char     *text)
{
  g_free (self->test_result);
  self->test_result = g_strdup (text);
  adw_action_row_set_subtitle (self->test_row, text);
}

static void
load_where (SimPreferences *self)
{
  g_autofree char *store = g_settings_get_string (self->settings, "store");

  self->loading = TRUE;
  if (sim_store_location_is_server (store))
    {
      gtk_check_button_set_active (self->server_check, TRUE);
      gtk_editable_set_text (GTK_EDITABLE (self->conninfo_row), store);
    }
  else
    gtk_check_button_set_active (self->local_check, TRUE);
  self->loading = FALSE;
  show_where (self);
}

/* The connection string typed, when it names a server, with any password
 * in it taken out (that goes to the keyring). (transfer full) */
static char *
typed_server (SimPreferences *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->conninfo_row));
  g_autofree char *trimmed = g_strstrip (g_strdup (text));

  return sim_store_location_is_server (trimmed) ? g_steal_pointer (&trimmed) : NULL;
}

static void
on_where_toggled (SimPreferences *self)
{
  g_autofree char *store = g_settings_get_string (self->settings, "store");
  g_autofree char *server = NULL;

  show_where (self);
  if (self->loading)
    return;
  if (gtk_check_button_get_active (self->local_check))
    {
      /* A store path of one's own stays; a server gives way to the default. */
      if (sim_store_location_is_server (store))
        g_settings_set_string (self->settings, "store", "");
    }
  else if ((server = typed_server (self)) != NULL)
    {
      g_autofree char *kept = sim_store_location_redact (server);

      g_settings_set_string (self->settings, "store", kept);
    }
}

static void
on_conninfo_apply (SimPreferences *self)
{
  g_autofree char *server = typed_server (self);
  g_autofree char *kept = NULL;

  if (server == NULL)
    {
      say (self, _("That is not a connection string: it begins with postgresql:// or postgres://, or is "
                   "key=value pairs such as service=simhound."));
      return;
    }
  kept = sim_store_location_redact (server);
  if (!g_str_equal (kept, server))
    {
      /* A password typed in the string goes to the keyring, never to the settings. */
      g_autoptr(GError) error = NULL;
      g_autofree char *password = NULL;
      const char *at = strstr (server, "://");
      const char *colon = at ? strchr (at + 3, ':') : NULL;
      const char *sign = at ? strchr (at + 3, '@') : NULL;

      if (colon && sign && colon < sign)
        password = g_uri_unescape_segment (colon + 1, sign, NULL);
      if (password != NULL && !sim_keyring_store (kept, password, &error))
        say (self, error->message);
      if (password != NULL)
        memset (password, 0, strlen (password));
    }
  gtk_editable_set_text (GTK_EDITABLE (self->conninfo_row), kept);
  if (gtk_check_button_get_active (self->server_check))
    g_settings_set_string (self->settings, "store", kept);
}

static void
on_password_apply (SimPreferences *self)
{
  g_autofree char *server = typed_server (self);
  g_autoptr(GError) error = NULL;

  if (server == NULL)
    {
      say (self, _("Type the server's connection string first."));
      return;
    }
  if (!sim_keyring_store (server, gtk_editable_get_text (GTK_EDITABLE (self->password_row)), &error))
    say (self, error->message);
  else
    say (self, _("The password is kept in the keyring."));
}

typedef struct {
  char *conninfo;
  char *password;   /* typed, or NULL: the keyring's */
} TestJob;

static void
test_job_free (TestJob *job)
{
  g_free (job->conninfo);
  if (job->password)
    memset (job->password, 0, strlen (job->password));
  g_free (job->password);
  g_free (job);
}

static void
test_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  TestJob *job = task_data;
  g_autofree char *kept = job->password ? NULL : sim_keyring_lookup (job->conninfo);
  GError *error = NULL;
  char *summary = NULL;

  if (sim_server_test_connection (job->conninfo, job->password ? job->password : kept, &summary, &error))
    g_task_return_pointer (task, summary, g_free);
  else
    g_task_return_error (task, error);
  if (kept)
    memset (kept, 0, strlen (kept));
}

static void
test_done (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *summary = g_task_propagate_pointer (G_TASK (result), &error);
  SimPreferences *self;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self = SIM_PREFERENCES (source);
  gtk_spinner_stop (self->test_spinner);
  gtk_widget_set_sensitive (GTK_WIDGET (self->test_button), TRUE);
  say (self, summary ? summary : error->message);
}

void
sim_preferences_test_connection (SimPreferences *self)
{
  g_autofree char *server = typed_server (self);
  const char *password = gtk_editable_get_text (GTK_EDITABLE (self->password_row));
  g_autoptr(GTask) task = NULL;
  TestJob *job;

  if (server == NULL)
    {
      say (self, _("Type the server's connection string first."));
      return;
    }
  g_clear_pointer (&self->test_result, g_free);
  adw_action_row_set_subtitle (self->test_row, _("Connecting…"));
  gtk_spinner_start (self->test_spinner);
  gtk_widget_set_sensitive (GTK_WIDGET (self->test_button), FALSE);
  job = g_new0 (TestJob, 1);
  job->conninfo = g_steal_pointer (&server);
  job->password = *password ? g_strdup (password) : NULL;
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  task = g_task_new (self, self->cancellable, test_done, NULL);
  g_task_set_return_on_cancel (task, TRUE);
  g_task_set_task_data (task, job, (GDestroyNotify) test_job_free);
  g_task_run_in_thread (task, test_thread);
}

static void
on_test_clicked (SimPreferences *self)
{
  sim_preferences_test_connection (self);
}

void
sim_preferences_use_server (SimPreferences *self,
                            const char     *conninfo,
                            const char     *password)
{
  gtk_editable_set_text (GTK_EDITABLE (self->conninfo_row), conninfo);
  gtk_check_button_set_active (self->server_check, TRUE);
  on_conninfo_apply (self);
  if (password != NULL)
    {
      gtk_editable_set_text (GTK_EDITABLE (self->password_row), password);
      on_password_apply (self);
    }
}

const char *
sim_preferences_get_test_result (SimPreferences *self)
{
  return self->test_result;
}

void
sim_preferences_set_thresholds (SimPreferences *self,
                                double          medium_percent,
                                double          high_percent)
{
  gtk_spin_button_set_value (self->medium_spin, medium_percent);
  gtk_spin_button_set_value (self->high_spin, high_percent);
}

const char *
sim_preferences_get_problem (SimPreferences *self)
{
  return self->problem;
}

static void
sim_preferences_dispose (GObject *object)
{
  SimPreferences *self = SIM_PREFERENCES (object);

  if (self->settings)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  g_clear_object (&self->settings);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (sim_preferences_parent_class)->dispose (object);
}

static void
sim_preferences_finalize (GObject *object)
{
  g_free (SIM_PREFERENCES (object)->problem);
  g_free (SIM_PREFERENCES (object)->test_result);
  G_OBJECT_CLASS (sim_preferences_parent_class)->finalize (object);
}

static void
sim_preferences_class_init (SimPreferencesClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sim_preferences_dispose;
  object_class->finalize = sim_preferences_finalize;
  gtk_widget_class_set_template_from_resource (widget_class, "/org/simhound/Simhound/ui/sim-preferences.ui");
  gtk_widget_class_bind_template_child (widget_class, SimPreferences, high_spin);
  gtk_widget_class_bind_template_child (widget_class, SimPreferences, medium_spin);
  gtk_widget_class_bind_template_child (widget_class, SimPreferences, problem_label);
  gtk_widget_class_bind_template_child (widget_class, SimPreferences, distance_row);
  gtk_widget_class_bind_template_child (widget_class, SimPreferences, distance_spin);
  gtk_widget_class_bind_template_child (widget_class, SimPreferences, window_spin);
  gtk_widget_class_bind_template_child (widget_class, SimPreferences, fast_switch);
  gtk_widget_class_bind_template_child (widget_class, SimPreferences, fold_switch);
  gtk_widget_class_bind_template_child (widget_class, SimPreferences, local_check);
  gtk_widget_class_bind_template_child (widget_class, SimPreferences, server_check);
  gtk_widget_class_bind_template_child (widget_class, SimPreferences, conninfo_row);
  gtk_widget_class_bind_template_child (widget_class, SimPreferences, password_row);
  gtk_widget_class_bind_template_child (widget_class, SimPreferences, test_row);
  gtk_widget_class_bind_template_child (widget_class, SimPreferences, test_spinner);
  gtk_widget_class_bind_template_child (widget_class, SimPreferences, test_button);
  gtk_widget_class_bind_template_callback (widget_class, on_threshold_changed);
  gtk_widget_class_bind_template_callback (widget_class, on_where_toggled);
  gtk_widget_class_bind_template_callback (widget_class, on_conninfo_apply);
  gtk_widget_class_bind_template_callback (widget_class, on_password_apply);
  gtk_widget_class_bind_template_callback (widget_class, on_test_clicked);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "window.close", NULL);
}

static void
sim_preferences_init (SimPreferences *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->settings = g_settings_new ("org.simhound.Simhound");
  load_thresholds (self);
  load_where (self);
  /* The default named is the schema's own: the two cannot drift apart. */
  {
    g_autoptr(GSettingsSchema) schema = NULL;
    g_autoptr(GSettingsSchemaKey) key = NULL;
    g_autoptr(GVariant) value = NULL;
    g_autofree char *subtitle = NULL;

    g_object_get (self->settings, "settings-schema", &schema, NULL);
    key = g_settings_schema_get_key (schema, "max-distance");
    value = g_settings_schema_key_get_default_value (key);
    subtitle = g_strdup_printf (_("Higher finds more reworded copies and checks more slowly (%u by default)"),
                                g_variant_get_uint32 (value));
    adw_action_row_set_subtitle (self->distance_row, subtitle);
  }
  g_settings_bind (self->settings, "max-distance", self->distance_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "window-size", self->window_spin, "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "fast", self->fast_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "fold-traditional", self->fold_switch, "active", G_SETTINGS_BIND_DEFAULT);
  g_signal_connect (self->settings, "changed", G_CALLBACK (on_settings_changed), self);
}

GtkWidget *
sim_preferences_new (GtkWindow *parent)
{
  return g_object_new (SIM_TYPE_PREFERENCES, "transient-for", parent, "modal", FALSE, NULL);
}
