/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "sim-error.h"

G_DEFINE_QUARK (sim-error-quark, sim_error)
