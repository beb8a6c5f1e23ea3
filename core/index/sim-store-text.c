/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Texts as the store keeps them: packed in pieces, each its own zstd frame
 * with checksums, and read a range at a time (SimStoreText).
 */
#include "config.h"

#include <string.h>
#include <xxhash.h>
#include <glib/gi18n-lib.h>

#include "sim-error.h"
#include "sim-text.h"
#include "sim-store-private.h"

/* Each thread's zstd contexts, kept: one made for every call allocated
 * and cleared a megabyte of tables (compressing), which for the many
 * small texts of an import cost as much as compressing them. */
static void
free_cctx (gpointer cctx)
{
  ZSTD_freeCCtx (cctx);
}

static void
free_dctx (gpointer dctx)
{
  ZSTD_freeDCtx (dctx);
}

static GPrivate thread_cctx = G_PRIVATE_INIT (free_cctx);
static GPrivate thread_dctx = G_PRIVATE_INIT (free_dctx);

ZSTD_CCtx *
_sim_store_cctx (void)
{
  ZSTD_CCtx *cctx = g_private_get (&thread_cctx);

  if (cctx == NULL)
    {
      /* NULL without memory: the callers say so. */
      cctx = ZSTD_createCCtx ();
      g_private_set (&thread_cctx, cctx);
    }
  return cctx;
}

ZSTD_DCtx *
_sim_store_dctx (void)
{
  ZSTD_DCtx *dctx = g_private_get (&thread_dctx);

  if (dctx == NULL)
    {
      dctx = ZSTD_createDCtx ();
      g_private_set (&thread_dctx, dctx);
    }
  return dctx;
}

/* A text is kept in pieces of about SIM_STORE_TEXT_PIECE, each its own zstd frame,
 * behind a table of their sizes, so a check decompresses the pieces its
 * candidates fall in, not whole texts (at 1 GB of corpus they needed a
 * tenth of the code points of the texts they read):
 *
 *   "SHT" 1 | u32 n_pieces | n_pieces x (u32 packed bytes, u32 text bytes,
 *   u32 code points) | the frames
 *
 * all little-endian. A piece ends before a character, never inside one.
 * Pieces of 8 KB cost 3% more than a frame a text, of 4 KB 3% more again
 * (the store 2.32 -> 2.34x at 1 GB of corpus) and take 0.6-0.8 ms off a
 * 19 ms check at 1 GB: the pieces a candidate falls in are decompressed,
 * and checked, whole. The size only matters when a text is packed: stores
 * with other pieces (or from before pieces: one frame a text, or the text
 * as TEXT, read as one piece) are read as they are. */
#define PIECE_MAGIC  "SHT\1"
#define PIECE_MAX    (1u << 20)   /* text bytes a piece may claim */
#define PIECE_HEADER 8
#define PIECE_ENTRY  12
/* Texts packed since 2026-11-27 carry checksums: "SHT" 2 | u32 n_pieces |
 * u64 XXH3 of the table | u64 XXH3 of the table and the frames | the table
 * | the frames, each with zstd's own checksum of its content (XXH64). A
 * flipped byte in a piece is found when the piece is read, where a frame
 * used to decompress to other text without a word, and a check still reads
 * only the pieces it needs; sim_store_verify_text() checks every byte. */
#define PIECE_MAGIC_CHECKED  "SHT\2"
#define PIECE_CHECKSUM       16

GBytes *
sim_store_pack_text (const char  *text,
                     gsize        len,
                     GError     **error)
{
  g_autoptr(GArray) ends = g_array_new (FALSE, FALSE, sizeof (gsize));
  const gsize bound = ZSTD_compressBound (SIM_STORE_TEXT_PIECE) + 4;  /* and its checksum */
  ZSTD_CCtx *cctx = _sim_store_cctx ();
  GByteArray *out;
  gsize table, at = 0;
  guint32 n;

  if (cctx == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE, _("Out of memory compressing a text"));
      return NULL;
    }

  /* Where the pieces end: a piece ends before a character, so it may be
   * up to 3 bytes short of SIM_STORE_TEXT_PIECE, and the pieces be more than
   * len / SIM_STORE_TEXT_PIECE. */
  do
    {
      gsize end = MIN (at + SIM_STORE_TEXT_PIECE, len);

      while (end < len && end > at + 1 && ((guint8) text[end] & 0xc0) == 0x80)
        end--;
      g_array_append_val (ends, end);
      at = end;
    }
  while (at < len);
  n = ends->len;
  ZSTD_CCtx_reset (cctx, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter (cctx, ZSTD_c_compressionLevel, SIM_STORE_TEXT_LEVEL);
  ZSTD_CCtx_setParameter (cctx, ZSTD_c_checksumFlag, 1);
  table = PIECE_HEADER + PIECE_CHECKSUM + (gsize) n * PIECE_ENTRY;
  out = g_byte_array_sized_new (table + ZSTD_compressBound (len) + n * 16);
  g_byte_array_set_size (out, table);
  memcpy (out->data, PIECE_MAGIC_CHECKED, 4);
  n = GUINT32_TO_LE (n);
  memcpy (out->data + 4, &n, 4);
  at = 0;
  for (guint i = 0; i < ends->len; i++)
    {
      const gsize end = g_array_index (ends, gsize, i), used = out->len;
      guint32 entry[3];
      gsize packed;

      g_byte_array_set_size (out, used + bound);
      packed = ZSTD_compress2 (cctx, out->data + used, bound, text + at, end - at);
      /* Compressing into the bound cannot fail but for memory. */
      if (ZSTD_isError (packed))
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_STORE, _("Compressing a text failed: %s"),
                       ZSTD_getErrorName (packed));
          ZSTD_CCtx_reset (cctx, ZSTD_reset_session_and_parameters);
          g_byte_array_free (out, TRUE);
          return NULL;
        }
      g_byte_array_set_size (out, used + packed);
      entry[0] = GUINT32_TO_LE ((guint32) packed);
      entry[1] = GUINT32_TO_LE ((guint32) (end - at));
      entry[2] = GUINT32_TO_LE ((guint32) sim_text_count_chars (text + at, end - at));
      memcpy (out->data + PIECE_HEADER + PIECE_CHECKSUM + (gsize) i * PIECE_ENTRY, entry, PIECE_ENTRY);
      at = end;
    }
  ZSTD_CCtx_reset (cctx, ZSTD_reset_session_and_parameters);
  {
    const guint8 *after = out->data + PIECE_HEADER + PIECE_CHECKSUM;
    const guint64 sums[2] = { GUINT64_TO_LE (XXH3_64bits (after, (gsize) ends->len * PIECE_ENTRY)),
                              GUINT64_TO_LE (XXH3_64bits (after, out->len - PIECE_HEADER - PIECE_CHECKSUM)) };

    memcpy (out->data + PIECE_HEADER, sums, PIECE_CHECKSUM);
  }
  return g_byte_array_free_to_bytes (out);
}

struct _SimStoreText {
  char     *store_path;
  gint64    id;
  guint32   n_pieces;
  gboolean  raw;        /* one piece, not compressed: a text from before pieces */
  guint8   *frames;     /* the pieces as stored */
  guint32  *packed_at;  /* n_pieces + 1 offsets into frames */
  guint32  *text_at;    /* n_pieces + 1 byte offsets into the text */
  guint32  *char_at;    /* n_pieces + 1 code point offsets into the text */
  gboolean  checked;    /* packed with checksums, and the table's matched */
  gboolean  whole_ok;   /* with them: every byte as it was written */
  /* A text held in part (sim_store_text_new_part()): frames hold code
   * points [char_at[0], char_at[1]) of n_chars, raw; a read past them
   * fetches the whole text, held from then on (under lock). */
  SimStoreTextFetch fetch;
  gpointer          fetch_data;
  GDestroyNotify    fetch_data_free;
  guint32           n_chars;
  GMutex            lock;
};

SimStoreText *
sim_store_text_new_plain (const char *where,
                          gint64      id,
                          char       *text,
                          gsize       len)
{
  SimStoreText *t = g_new0 (SimStoreText, 1);

  t->store_path = g_strdup (where);
  t->id = id;
  t->n_pieces = 1;
  t->raw = TRUE;
  t->frames = (guint8 *) text;
  t->packed_at = g_new0 (guint32, 2);
  t->text_at = g_new0 (guint32, 2);
  t->char_at = g_new0 (guint32, 2);
  t->packed_at[1] = t->text_at[1] = (guint32) len;
  t->char_at[1] = (guint32) sim_text_count_chars (text, len);
  return t;
}

SimStoreText *
sim_store_text_new_part (const char        *where,
                         gint64             id,
                         guint32            n_chars,
                         guint32            first,
                         char              *text,
                         gsize              len,
                         SimStoreTextFetch  fetch,
                         gpointer           data,
                         GDestroyNotify     data_free)
{
  SimStoreText *t = sim_store_text_new_plain (where, id, text, len);

  t->char_at[0] = MIN (first, n_chars);
  t->char_at[1] = MIN (t->char_at[0] + t->char_at[1], n_chars);
  t->n_chars = n_chars;
  t->fetch = fetch;
  t->fetch_data = data;
  t->fetch_data_free = data_free;
  g_mutex_init (&t->lock);
  return t;
}

void
sim_store_text_get_held (const SimStoreText *text,
                         guint32            *out_first,
                         guint32            *out_end)
{
  SimStoreText *t = (SimStoreText *) text;

  if (t->fetch != NULL)
    g_mutex_lock (&t->lock);
  *out_first = t->char_at[0];
  *out_end = t->char_at[t->n_pieces];
  if (t->fetch != NULL)
    g_mutex_unlock (&t->lock);
}

void
sim_store_text_hold (SimStoreText *text,
                     guint32       first,
                     char         *part,
                     gsize         len)
{
  guint32 n_chars;

  g_return_if_fail (text->fetch != NULL);
  n_chars = (guint32) sim_text_count_chars (part, len);
  g_mutex_lock (&text->lock);
  /* Only a wider part replaces the one held. */
  if (first <= text->char_at[0] && first + n_chars >= text->char_at[1])
    {
      g_free (text->frames);
      text->frames = (guint8 *) g_steal_pointer (&part);
      text->packed_at[1] = text->text_at[1] = (guint32) len;
      text->char_at[0] = first;
      text->char_at[1] = MIN (first + n_chars, text->n_chars);
    }
  g_mutex_unlock (&text->lock);
  g_free (part);
}

void
sim_store_text_free (SimStoreText *text)
{
  if (text == NULL)
    return;
  if (text->fetch != NULL)
    {
      if (text->fetch_data_free != NULL)
        text->fetch_data_free (text->fetch_data);
      g_mutex_clear (&text->lock);
    }
  g_free (text->store_path);
  g_free (text->frames);
  g_free (text->packed_at);
  g_free (text->text_at);
  g_free (text->char_at);
  g_free (text);
}

guint32
sim_store_text_get_n_chars (const SimStoreText *text)
{
  return text->fetch != NULL ? text->n_chars : text->char_at[text->n_pieces];
}

static gboolean
set_damaged_at (const char  *store_path,
                const char  *what,
                GError     **error)
{
  g_set_error (error, SIM_ERROR, SIM_ERROR_STORE_CORRUPT,
               _("The store %s is damaged (%s): run “simhound-cli corpus rebuild”"), store_path, what);
  return FALSE;
}

static gboolean
text_damaged (const char  *store_path,
              gint64       id,
              GError     **error)
{
  g_autofree char *what = g_strdup_printf (_("the text of document %lld"), (long long) id);

  return set_damaged_at (store_path, what, error);
}

static void
text_tables (SimStoreText *text,
             guint32       n_pieces)
{
  text->n_pieces = n_pieces;
  text->packed_at = g_new0 (guint32, n_pieces + 1);
  text->text_at = g_new0 (guint32, n_pieces + 1);
  text->char_at = g_new0 (guint32, n_pieces + 1);
}

/* Reads the table of a text kept in pieces; FALSE when it does not add up
 * or, with @checked, its checksum does not. */
static gboolean
parse_pieces (SimStoreText *text,
              const guint8 *blob,
              gsize         len,
              gboolean      checked)
{
  const gsize head = PIECE_HEADER + (checked ? PIECE_CHECKSUM : 0);
  guint32 n;
  guint64 packed = 0, bytes = 0, chars = 0;
  gsize table;

  if (len < head)
    return FALSE;
  memcpy (&n, blob + 4, 4);
  n = GUINT32_FROM_LE (n);
  if (n == 0 || n > (len - head) / PIECE_ENTRY)
    return FALSE;
  if (checked)
    {
      guint64 sums[2];

      memcpy (sums, blob + PIECE_HEADER, PIECE_CHECKSUM);
      if (GUINT64_FROM_LE (sums[0]) != XXH3_64bits (blob + head, (gsize) n * PIECE_ENTRY))
        return FALSE;
      /* Every byte, for sim_store_verify_text(): a fraction of a
       * microsecond per kilobyte, and the blob is at hand only here. */
      text->whole_ok = GUINT64_FROM_LE (sums[1]) == XXH3_64bits (blob + head, len - head);
    }
  table = head + (gsize) n * PIECE_ENTRY;
  text_tables (text, n);
  text->checked = checked;
  for (guint32 i = 0; i < n; i++)
    {
      guint32 entry[3];

      memcpy (entry, blob + head + (gsize) i * PIECE_ENTRY, PIECE_ENTRY);
      entry[0] = GUINT32_FROM_LE (entry[0]);
      entry[1] = GUINT32_FROM_LE (entry[1]);
      entry[2] = GUINT32_FROM_LE (entry[2]);
      /* Only an empty text has an empty piece; a character is 1 to 4 bytes. */
      if (entry[1] > PIECE_MAX || (entry[1] == 0 && n > 1) ||
          entry[2] > entry[1] || (guint64) entry[2] * 4 < entry[1])
        return FALSE;
      packed += entry[0];
      bytes += entry[1];
      chars += entry[2];
      if (packed > len - table || bytes > SIM_STORE_TEXT_MAX)
        return FALSE;
      text->packed_at[i + 1] = packed;
      text->text_at[i + 1] = bytes;
      text->char_at[i + 1] = chars;
    }
  if (packed != len - table)
    return FALSE;
  text->frames = packed > 0 ? g_memdup2 (blob + table, packed) : g_malloc0 (1);
  return TRUE;
}

/* A text from before pieces: one zstd frame, or the text itself. */
static gboolean
read_whole (SimStoreText *text,
            sqlite3_stmt *stmt)
{
  char *body = NULL;
  gsize len = 0;

  if (sqlite3_column_type (stmt, 0) == SQLITE_BLOB)
    {
      const void *packed = sqlite3_column_blob (stmt, 0);
      const gsize packed_len = sqlite3_column_bytes (stmt, 0);
      const unsigned long long size = packed ? ZSTD_getFrameContentSize (packed, packed_len) : ZSTD_CONTENTSIZE_ERROR;

      /* A damaged frame may claim any size: never more than a document may hold. */
      if (size > SIM_STORE_TEXT_MAX)
        return FALSE;
      body = g_malloc (size + 1);
      len = ZSTD_decompressDCtx (_sim_store_dctx (), body, size, packed, packed_len);
      if (ZSTD_isError (len) || len != size)
        {
          g_free (body);
          return FALSE;
        }
    }
  else
    {
      const char *t = (const char *) sqlite3_column_text (stmt, 0);

      len = sqlite3_column_bytes (stmt, 0);
      /* Not g_strndup(): its strncpy was a sixteenth of a check process. */
      if (t == NULL || len > SIM_STORE_TEXT_MAX)
        return FALSE;
      body = g_memdup2 (t, len + 1);
    }
  /* Every stored text was valid UTF-8 without a NUL when it was added. */
  if (!sim_text_validate (body, len))
    {
      g_free (body);
      return FALSE;
    }
  body[len] = '\0';
  text_tables (text, 1);
  text->raw = TRUE;
  text->frames = (guint8 *) body;
  text->packed_at[1] = text->text_at[1] = len;
  text->char_at[1] = sim_text_count_chars (body, len);
  return TRUE;
}

SimStoreText *
sim_store_read_text (SimStore  *store,
                     gint64     id,
                     GError   **error)
{
  g_autoptr(SimStoreText) text = NULL;
  sqlite3_stmt *stmt;
  gboolean ok;
  int rc;

  if (_sim_store_dctx () == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE, _("Out of memory reading a text of %s"), store->path);
      return NULL;
    }
  /* Prepared once per connection: a check reads hundreds of texts. */
  stmt = _sim_store_cached (store, "SELECT body FROM texts WHERE doc_id = ?", error);
  if (stmt == NULL)
    return NULL;
  sqlite3_bind_int64 (stmt, 1, id);
  rc = sqlite3_step (stmt);
  if (rc != SQLITE_ROW)
    {
      if (rc == SQLITE_DONE)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                     _("Document %lld is not in the store %s"), (long long) id, store->path);
      else
        _sim_store_error (store, rc, "reading a document", error);
      sqlite3_reset (stmt);
      return NULL;
    }
  text = g_new0 (SimStoreText, 1);
  text->store_path = g_strdup (store->path);
  text->id = id;
  if (sqlite3_column_type (stmt, 0) == SQLITE_BLOB && sqlite3_column_bytes (stmt, 0) >= PIECE_HEADER &&
      (memcmp (sqlite3_column_blob (stmt, 0), PIECE_MAGIC, 4) == 0 ||
       memcmp (sqlite3_column_blob (stmt, 0), PIECE_MAGIC_CHECKED, 4) == 0))
    ok = parse_pieces (text, sqlite3_column_blob (stmt, 0), sqlite3_column_bytes (stmt, 0),
                       memcmp (sqlite3_column_blob (stmt, 0), PIECE_MAGIC_CHECKED, 4) == 0);
  else
    ok = read_whole (text, stmt);
  /* Done with the row: a statement left stepping holds a read transaction. */
  sqlite3_reset (stmt);
  if (!ok)
    {
      text_damaged (store->path, id, error);
      return NULL;
    }
  return g_steal_pointer (&text);
}

/* sim_store_text_dup_range() of a text held in part: what is held, after
 * fetching the rest of the text when [@lo, @hi) reaches beyond it. Whole:
 * a reader that strayed from what it said it wanted (a piece of a split
 * segment verified where its own windows point) may stray again, and each
 * fetch is a round trip. */
static char *
dup_part (const SimStoreText *text,
          guint32             lo,
          guint32             hi,
          guint32            *out_first,
          gsize              *out_len,
          GError            **error)
{
  SimStoreText *t = (SimStoreText *) text;
  char *out;

  g_mutex_lock (&t->lock);
  if (lo < t->char_at[0] || hi > t->char_at[1])
    {
      gsize len = 0;
      char *whole = t->fetch (t->fetch_data, t->id, &len, error);

      if (whole == NULL)
        {
          g_mutex_unlock (&t->lock);
          return NULL;
        }
      /* The whole text, or it is not what it was. */
      if (sim_text_count_chars (whole, len) != t->n_chars)
        {
          g_free (whole);
          g_mutex_unlock (&t->lock);
          text_damaged (t->store_path, t->id, error);
          return NULL;
        }
      g_free (t->frames);
      t->frames = (guint8 *) whole;
      t->packed_at[1] = t->text_at[1] = (guint32) len;
      t->char_at[0] = 0;
      t->char_at[1] = t->n_chars;
    }
  out = g_memdup2 (t->frames, t->text_at[1] + 1);
  if (out_first)
    *out_first = t->char_at[0];
  if (out_len)
    *out_len = t->text_at[1];
  g_mutex_unlock (&t->lock);
  return out;
}

char *
sim_store_text_dup_range (const SimStoreText *text,
                          guint32             lo,
                          guint32             hi,
                          guint32            *out_first,
                          gsize              *out_len,
                          GError            **error)
{
  const guint32 n_chars = sim_store_text_get_n_chars (text);
  guint32 p0 = 0, p1;
  char *out;
  gsize len;

  if (!text->raw && _sim_store_dctx () == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_STORE, _("Out of memory reading a text of %s"), text->store_path);
      return NULL;
    }

  lo = MIN (lo, n_chars);
  hi = CLAMP (hi, lo, n_chars);
  if (text->fetch != NULL)
    return dup_part (text, lo, hi, out_first, out_len, error);
  /* The pieces [p0, p1) that hold [lo, hi): the last starting at or before lo... */
  while (p0 + 1 < text->n_pieces && text->char_at[p0 + 1] <= lo)
    p0++;
  /* ...to the first ending at or after hi, at least one. */
  p1 = p0 + 1;
  while (p1 < text->n_pieces && text->char_at[p1] < hi)
    p1++;
  len = text->text_at[p1] - text->text_at[p0];
  out = g_malloc (len + 1);
  if (text->raw)
    memcpy (out, text->frames, len);
  else
    for (guint32 p = p0; p < p1; p++)
      {
        const gsize want = text->text_at[p + 1] - text->text_at[p];
        char *at = out + (text->text_at[p] - text->text_at[p0]);
        const gsize got = ZSTD_decompressDCtx (_sim_store_dctx (), at, want, text->frames + text->packed_at[p],
                                               text->packed_at[p + 1] - text->packed_at[p]);

        /* Each piece is valid UTF-8 on its own and holds the code points its entry says. */
        if (ZSTD_isError (got) || got != want || !sim_text_validate (at, want) ||
            sim_text_count_chars (at, want) != text->char_at[p + 1] - text->char_at[p])
          {
            g_free (out);
            text_damaged (text->store_path, text->id, error);
            return NULL;
          }
      }
  out[len] = '\0';
  if (out_first)
    *out_first = text->char_at[p0];
  if (out_len)
    *out_len = len;
  return out;
}

char *
sim_store_dup_text (SimStore  *store,
                    gint64     id,
                    gsize     *out_len,
                    GError   **error)
{
  g_autoptr(SimStoreText) text = sim_store_read_text (store, id, error);

  if (text == NULL)
    return NULL;
  if (text->raw)
    {
      if (out_len)
        *out_len = text->text_at[1];
      return (char *) g_steal_pointer (&text->frames);
    }
  return sim_store_text_dup_range (text, 0, sim_store_text_get_n_chars (text), NULL, out_len, error);
}

SimStoreTextState
sim_store_verify_text (SimStore  *store,
                       gint64     id,
                       GError   **error)
{
  g_autoptr(SimStoreText) text = sim_store_read_text (store, id, error);
  g_autofree char *whole = NULL;

  if (text == NULL)
    return g_error_matches (error ? *error : NULL, SIM_ERROR, SIM_ERROR_STORE_CORRUPT)
             ? SIM_STORE_TEXT_DAMAGED : SIM_STORE_TEXT_UNREADABLE;
  /* Every byte as it was written, even those zstd would read past. */
  if (text->checked && !text->whole_ok)
    return text_damaged (store->path, id, error), SIM_STORE_TEXT_DAMAGED;
  /* Every piece decompressed and counted, not only those a check reads. */
  if (!text->raw)
    whole = sim_store_text_dup_range (text, 0, sim_store_text_get_n_chars (text), NULL, NULL, error);
  if (!text->raw && whole == NULL)
    return SIM_STORE_TEXT_DAMAGED;
  return text->checked ? SIM_STORE_TEXT_SOUND : SIM_STORE_TEXT_UNCHECKED;
}

gboolean
sim_store_replace_text (SimStore  *store,
                        gint64     id,
                        GBytes    *text,
                        GError   **error)
{
  g_autoptr(sqlite3_stmt) stmt = _sim_store_prepare (store, "UPDATE texts SET body = ? WHERE doc_id = ?", error);
  gsize len = 0;
  const void *data = g_bytes_get_data (text, &len);
  int rc;

  if (stmt == NULL)
    return FALSE;
  sqlite3_bind_blob64 (stmt, 1, data, len, SQLITE_STATIC);
  sqlite3_bind_int64 (stmt, 2, id);
  rc = sqlite3_step (stmt);
  if (rc != SQLITE_DONE)
    return _sim_store_error (store, rc, _("writing a text"), error);
  return TRUE;
}

gboolean
sim_store_set_aside (SimStore    *store,
                     gint64       id,
                     const char  *reason,
                     GError     **error)
{
  g_autoptr(sqlite3_stmt) keep = NULL;
  int rc;

  if (!_sim_store_exec (store, "CREATE TABLE IF NOT EXISTS set_aside ("
                    "  path TEXT NOT NULL, title TEXT NOT NULL, content_hash TEXT NOT NULL,"
                    "  reason TEXT NOT NULL, set_aside_at INTEGER NOT NULL, body);", error))
    return FALSE;
  keep = _sim_store_prepare (store, "INSERT INTO set_aside (path, title, content_hash, reason, set_aside_at, body)"
                         " SELECT d.path, d.title, d.content_hash, ?, ?, t.body"
                         " FROM documents d LEFT JOIN texts t ON t.doc_id = d.id WHERE d.id = ?", error);
  if (keep == NULL)
    return FALSE;
  sqlite3_bind_text (keep, 1, reason, -1, SQLITE_STATIC);
  sqlite3_bind_int64 (keep, 2, g_get_real_time () / G_USEC_PER_SEC);
  sqlite3_bind_int64 (keep, 3, id);
  rc = sqlite3_step (keep);
  if (rc != SQLITE_DONE)
    return _sim_store_error (store, rc, _("setting a damaged document aside"), error);
  return sim_store_delete (store, id, error);
}

gboolean
sim_store_set_damaged (SimStore    *store,
                       const char  *what,
                       GError     **error)
{
  return set_damaged_at (store->path, what, error);
}
