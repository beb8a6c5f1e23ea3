/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Text in: decoding files and pastes into valid UTF-8, and the normalisation
 * that fingerprinting sees. Normalisation never changes the user's text: it
 * produces "units" (letters, digits and CJK characters after NFKD, case
 * folding, width folding, mark stripping and optional traditional-to-simplified
 * folding, letters of other scripts that imitate Latin ones (UTS #39's
 * confusables: Cyrillic а, Greek ο, Armenian օ...) inside Latin words
 * folded to the letters they imitate; whitespace, punctuation and invisible
 * characters are dropped), and
 * every unit remembers the code-point span of the original text it came from,
 * so every reported span is exact in the user's own text.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Bump when the mapping from text to units changes: stored fingerprints depend on it. */
#define SIM_NORMALIZE_VERSION 2

typedef enum {
  SIM_NORMALIZE_DEFAULT = 0,
  SIM_NORMALIZE_FOLD_T2S = 1 << 0, /* traditional Chinese characters to simplified */
} SimNormalizeFlags;

typedef enum {
  SIM_UNIT_CJK        = 1 << 0, /* Han, kana, Thai...: scripts written without spaces */
  SIM_UNIT_WORD_START = 1 << 1, /* first unit of a space-separated word */
  SIM_UNIT_CAPITAL    = 1 << 2, /* a word start written in upper case ("Union") */
} SimUnitFlags;

/* Bits 3-7 of a unit's flags: how many source code points beyond the first
 * it spans (its combining marks), so no end offset need be stored. */
#define SIM_UNIT_EXTRA_SHIFT 3
#define SIM_UNIT_EXTRA_MAX   31

/* A growable struct of arrays; fields are public for the hot path. Reuse one
 * per thread: sim_units_reset() keeps the memory. */
typedef struct {
  guint32 *cps;       /* normalised code point of each unit */
  guint32 *src_start; /* code-point offset of the unit's first source character */
  guint8  *flags;     /* SimUnitFlags, and the span's extra length above SIM_UNIT_EXTRA_SHIFT */
  gsize    n;
  gsize    alloc;
} SimUnits;

/* Code-point offset just past the last source character of unit @i. */
static inline guint32
sim_units_get_end (const SimUnits *units,
                   gsize           i)
{
  return units->src_start[i] + 1 + (units->flags[i] >> SIM_UNIT_EXTRA_SHIFT);
}

void     sim_units_init   (SimUnits *units);
void     sim_units_reset  (SimUnits *units);
void     sim_units_clear  (SimUnits *units);
/* Appends @more's units, their source offsets moved on by @offset. */
void     sim_units_append (SimUnits       *units,
                           const SimUnits *more,
                           guint32         offset);
/* Whether units [from, to) are only a name: a few words, those of more than
 * three letters written with a capital but for a fifth of the letters at
 * most ("World Bank President Barber Conable", "said Buddy McIntyre of the
 * National Weather Service"). Text shared only in a name is no evidence of
 * copying. CJK text is never a name by this rule. */
gboolean sim_units_is_name (const SimUnits *units,
                            gsize           from,
                            gsize           to);

/* Index of the first unit whose src_start >= offset (n if none). */
gsize    sim_units_find   (const SimUnits *units,
                           guint32         offset);

/* Appends the units of @text (@len bytes of valid UTF-8, or -1 for
 * NUL-terminated). Source offsets are counted from @first_offset, the
 * code-point offset of @text in its document. Returns the number of code
 * points read. Thread-safe. */
guint32  sim_text_normalize (const char        *text,
                             gssize             len,
                             guint32            first_offset,
                             SimNormalizeFlags  flags,
                             SimUnits          *units);

/* Turns raw bytes into valid UTF-8 text, or fails with SIM_ERROR_NOT_TEXT for
 * binary data. UTF-16 with a byte-order mark is converted; text that is
 * mostly invalid UTF-8 but valid GB18030 is converted from GB18030; stray
 * invalid sequences are replaced with U+FFFD and counted in
 * @out_n_repaired, stray NUL bytes likewise in @out_n_nuls. @name is used
 * in messages. (transfer full) */
char    *sim_text_decode    (const char  *data,
                             gsize        len,
                             const char  *name,
                             gsize       *out_len,
                             guint       *out_n_repaired,
                             guint       *out_n_nuls,
                             GError     **error);

/* The largest file read as one document: 50 MB. Reading stops there, so a
 * device (/dev/zero), a pipe or standard input is bounded too. */
#define SIM_TEXT_MAX_FILE_BYTES (50 << 20)

/* The most text any document may give, after extraction (a 600 KB DOCX can
 * hold 125 MB of text): 12 MB, three thousand pages. Every reader stops
 * there while reading; a check of that much text stays under 1 GB of
 * memory (tests/bench/RESULTS.md). */
#define SIM_TEXT_MAX_TEXT_BYTES (12 << 20)

/* Reads a file's bytes, refusing one larger than SIM_TEXT_MAX_FILE_BYTES
 * with SIM_ERROR_INVALID_ARGUMENT (the message names the file and the limit),
 * and its modification time (Unix seconds) into @out_mtime (may be NULL):
 * one open and one stat. (transfer full) */
char    *sim_text_read_file (const char  *path,
                             gsize       *out_len,
                             gint64      *out_mtime,
                             GError     **error);

/* Reads file descriptor @fd to its end as sim_text_read_file() reads a
 * file; @name is used in messages. (transfer full) */
char    *sim_text_read_fd   (int          fd,
                             const char  *name,
                             gsize       *out_len,
                             GError     **error);

/* SIM_ERROR_INVALID_ARGUMENT for @name's text of more than SIM_TEXT_MAX_TEXT_BYTES. */
void     sim_text_set_too_long_error (GError     **error,
                                      const char  *name);

/* Reads (as sim_text_read_file()) and decodes a file. (transfer full) */
char    *sim_text_load_file (const char  *path,
                             gsize       *out_len,
                             guint       *out_n_repaired,
                             guint       *out_n_nuls,
                             GError     **error);

/* What a text does to hide from a checker, and where (code points, the
 * first affected character to just past the last). Normalisation folds
 * look-alike letters and drops invisible characters, so a disguised copy is
 * found like the plain one; this says that they were there. */
typedef struct {
  guint   n_lookalikes;   /* Cyrillic or Greek letters folded to the Latin letters they imitate */
  guint32 lookalike_start;
  guint32 lookalike_end;
  guint   n_invisible;    /* invisible characters between two letters */
  guint32 invisible_start;
  guint32 invisible_end;
} SimDisguises;

/* Counts the disguises in @text (@len bytes of valid UTF-8, or -1). */
void     sim_text_find_disguises (const char   *text,
                                  gssize        len,
                                  SimDisguises *out);

/* TRUE when @text has at least one unit (letters, digits or CJK). */
gboolean sim_text_has_content (const char *text,
                               gssize      len);

/* The code points of valid UTF-8: its bytes that do not continue one
 * (a loop the compiler vectorises, unlike g_utf8_strlen()'s). */
gsize    sim_text_count_chars (const char *text,
                               gsize       len);

/* g_utf8_validate_len() (strict UTF-8, no NUL), faster on ASCII. */
gboolean sim_text_validate (const char *text,
                            gsize       len);

/* Code points to bytes in one step: the byte offset of every 64th code
 * point of a valid UTF-8 text, so finding any code point walks at most 63
 * characters. Immutable once built: any thread may read it. */
typedef struct {
  const char *text;      /* borrowed: must outlive the index */
  gsize       len;
  gsize       n_chars;
  guint32    *samples;   /* byte offset of code point 64 * i */
} SimTextIndex;

void         sim_text_index_init    (SimTextIndex       *index,
                                     const char         *text,
                                     gsize               len);
void         sim_text_index_clear   (SimTextIndex       *index);
/* The position of code point @offset (clamped to the text's end). */
const char  *sim_text_index_pointer (const SimTextIndex *index,
                                     gsize               offset);

/* Byte offset of code point @offset in valid UTF-8 @text of @len bytes;
 * @len if the text has no more code points. */
gsize    sim_text_byte_offset (const char *text,
                               gsize       len,
                               gsize       offset);

/* Excerpts that never cut a word: where a word of letters or digits
 * around @p starts or ends (looking no further than @begin and @end),
 * at most SIM_TEXT_WORD_REACH characters away; @p itself between words. A
 * CJK character is a word of its own, so a CJK text is cut anywhere. */
#define SIM_TEXT_WORD_REACH 40
const char *sim_text_word_start (const char *begin,
                                 const char *p);
const char *sim_text_word_end   (const char *begin,
                                 const char *p,
                                 const char *end);

G_END_DECLS
