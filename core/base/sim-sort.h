/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Sorting many 64-bit keys, each with a 32-bit value, by key: a stable
 * least-significant-digit radix sort, a byte a pass (the eight counts made
 * in one pass, bytes every key shares skipped). Used where a text's
 * hashes are sorted: an aligned side's words, a check's windows.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint64 key;
  guint32 value;
} SimKeyed;

/* Sorts @n @items by key, those of one key in their order, through @tmp
 * (room for @n). */
void sim_sort_keyed (SimKeyed *items,
                     SimKeyed *tmp,
                     gsize     n);

G_END_DECLS
