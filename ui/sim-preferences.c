/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gi18n.h>

#include "sim-preferences.h"

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

  GSettings     *settings;
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
  G_OBJECT_CLASS (sim_preferences_parent_class)->dispose (object);
}

static void
sim_preferences_finalize (GObject *object)
{
  g_free (SIM_PREFERENCES (object)->problem);
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
  gtk_widget_class_bind_template_callback (widget_class, on_threshold_changed);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "window.close", NULL);
}

static void
sim_preferences_init (SimPreferences *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->settings = g_settings_new ("org.simhound.Simhound");
  load_thresholds (self);
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
