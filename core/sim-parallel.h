/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A minimal parallel for: @func runs on @n_threads threads (the caller's
 * among them) until it returns; workers share @data and take work from it
 * with atomics. Returns when every worker has returned.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef void (*SimWorkerFunc) (gpointer data);

guint sim_parallel_default_threads (void);
void  sim_parallel_run             (guint         n_threads,
                                    SimWorkerFunc func,
                                    gpointer      data);

G_END_DECLS
