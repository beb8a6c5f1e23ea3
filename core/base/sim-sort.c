/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <string.h>

#include "sim-sort.h"

void
sim_sort_keyed (SimKeyed *items,
                SimKeyed *tmp,
                gsize     n)
{
  gsize count[8][256] = { { 0 } };
  SimKeyed *from = items, *to = tmp;

  if (n < 2)
    return;
  for (gsize i = 0; i < n; i++)
    for (guint b = 0; b < 8; b++)
      count[b][(items[i].key >> (8 * b)) & 0xff]++;
  for (guint b = 0; b < 8; b++)
    {
      gsize *c = count[b], at = 0;

      if (c[(items[0].key >> (8 * b)) & 0xff] == n)
        continue;
      for (guint d = 0; d < 256; d++)
        {
          const gsize k = c[d];

          c[d] = at;
          at += k;
        }
      for (gsize i = 0; i < n; i++)
        to[c[(from[i].key >> (8 * b)) & 0xff]++] = from[i];
      {
        SimKeyed *x = from;

        from = to;
        to = x;
      }
    }
  if (from != items)
    memcpy (items, from, n * sizeof (SimKeyed));
}
