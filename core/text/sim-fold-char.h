/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * How normalisation folds one character (sim-text.c): its class and the
 * units it becomes, from GLib's Unicode functions (case fold, NFKD, marks
 * dropped) and, when asked, OpenCC's traditional-to-simplified map. For
 * the BMP this runs at build time (gen-fold-table.c writes every answer
 * into sim-fold-table.h); at run time only for characters beyond it.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

enum {
  SIM_FOLD_DROP,  /* invisible or control: ignored */
  SIM_FOLD_MARK,  /* combining mark: ignored, but belongs to the previous unit's span */
  SIM_FOLD_SPACE,
  SIM_FOLD_PUNCT, /* punctuation and symbols: ignored, but end a word */
  SIM_FOLD_WORD,  /* letters and digits of space-separated scripts */
  SIM_FOLD_CJK,   /* letters of scripts written without spaces */
};

/* An entry: the class in bits 24-26 above the code point; with
 * SIM_FOLD_EXPAND, an index into expansions ([n, item...]) instead. */
#define SIM_FOLD_CP_MASK      0x1fffffu
#define SIM_FOLD_CLASS(e)     (((e) >> 24) & 0x7u)
#define SIM_FOLD_EXPAND       0x80000000u
#define SIM_FOLD_ENTRY(cls, cp) (((guint32) (cls) << 24) | ((cp) & SIM_FOLD_CP_MASK))
#define SIM_FOLD_MAX_EXPANSION 18

/* OpenCC's traditional-to-simplified map (sim-t2s-table.h, made at build
 * time) as sim_fold_char() takes it: 0x10000 entries, 0 where unchanged.
 * Made once; any thread. */
const guint32 *sim_fold_t2s_map (void);

/* The folded form of @c into @out (up to SIM_FOLD_MAX_EXPANSION
 * entries), simplified through @t2s (0x10000 entries, 0 where unchanged)
 * unless it is NULL; returns how many. Any thread. */
guint sim_fold_char (gunichar       c,
                     const guint32 *t2s,
                     guint32       *out);

G_END_DECLS
