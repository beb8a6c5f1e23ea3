/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Sorting many 64-bit keys, each with a 32-bit value, by key: a stable
 * least-significant-digit radix sort, a byte a pass (the eight counts made
 * in one pass, bytes every key shares skipped); past 65,536 items, first
 * spread by the highest byte that differs, each stretch then sorted so on
 * any core. Used where a text's hashes are sorted: an aligned side's
 * words, a check's windows. And finding a key in sorted keys.
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

/* The first of the @n sorted @keys not below @key (@n if none). */
static inline gsize
sim_lower_bound (const guint64 *keys,
                 gsize          n,
                 guint64        key)
{
  gsize lo = 0, hi = n;

  while (lo < hi)
    {
      const gsize mid = lo + (hi - lo) / 2;

      if (keys[mid] < key)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

G_END_DECLS
