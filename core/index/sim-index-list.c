/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>
#include <string.h>
#include <glib/gstdio.h>
#include <xxhash.h>

#include "sim-parallel.h"
#include "sim-corpus.h"
#include "sim-corpus-private.h"
#include "sim-snapshot-private.h"


/* The index files' names and headers, and the document list an index
 * file carries (ListHead, DocEntry in sim-snapshot-private.h): made from
 * the store's rows, written, mapped and checked, its names read as they
 * are asked for. An open finding a file current takes its list instead of
 * reading every row of the store. */

/* Where the index file of @kind of the store at @store_path is. */
char *
_sim_snapshot_index_path (const char *store_path,
                          guint       kind)
{
  return g_strconcat (store_path, kind == KIND_INDEX ? ".index" : ".index-delta", NULL);
}

/* What a document's row says of it: id, sizes, time and content. */
guint64
_sim_snapshot_row_key (const SimStoreDocument *sd)
{
  const gint64 fields[] = { sd->id, sd->n_anchors, sd->n_chars, sd->updated_at };

  return XXH3_64bits_withSeed (sd->content_hash, strlen (sd->content_hash), XXH3_64bits (fields, sizeof fields));
}

void
_sim_snapshot_add_document (const SimStoreDocument *sd,
                            gpointer                user_data)
{
  ListState *ls = user_data;
  DocEntry e = { 0 };

  e.id = sd->id;
  e.row = _sim_snapshot_row_key (sd);
  e.n_chars = sd->n_chars;
  e.updated_at = sd->updated_at;
  e.n_windows = sd->n_anchors;
  _sim_snapshot_add_doc (ls->snapshot, &e, sd->path, strlen (sd->path), sd->title, strlen (sd->title));
  /* GCC 12 follows XXH3's buffered path into loads it never makes for 8
   * bytes and warns of them once this is inlined: a false positive. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overread"
  XXH3_64bits_update (ls->key, &e.row, sizeof e.row);
#pragma GCC diagnostic pop
  ls->n_windows += MAX (sd->n_anchors, 0);
  ls->n_chars += MAX (sd->n_chars, 0) + 1;
}



/* The header of the index file of @kind, when it is one. */
gboolean
_sim_snapshot_index_peek (const char  *store_path,
                          guint        kind,
                          IndexHeader *out)
{
  g_autofree char *path = _sim_snapshot_index_path (store_path, kind);
  const int fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  gboolean ok;

  if (fd < 0)
    return FALSE;
  ok = pread (fd, out, sizeof *out, 0) == sizeof *out && memcmp (out->magic, INDEX_MAGIC, 8) == 0 &&
       INDEX_VERSION_READ (out->version) && out->kind == kind;
  close (fd);
  return ok;
}

typedef struct {
  gpointer map;
  gsize    len;
  int      fd;   /* kept for the names of a table (version 13), else -1 */
} ListMap;

static void
list_unmap (gpointer data)
{
  ListMap *m = data;

  munmap (m->map, m->len);
  if (m->fd >= 0)
    close (m->fd);
  g_free (m);
}

/* The document list of the index file of @kind, when the file is still the
 * one @header was read from and holds its list. Mapped, not read: the
 * first open in a process copied 8.7 MB into fresh memory at 44,000
 * documents (12 ms) and then touched it once more to hash it (7 ms: fresh
 * pages cost that much on the virtual machines we measure on); mapped, 5
 * ms in all. Of a table (version 13), only its head and entries: the
 * names are read as they are asked for, from the file kept open in
 * @out_fd (a page of names mapped is 16 in a process's memory: the kernel
 * maps the pages around the one asked for, and a check asking for the
 * names of 900 documents held 58 MB of them). (transfer full) */
static GBytes *
map_list (const char        *store_path,
          guint              kind,
          const IndexHeader *header,
          int               *out_fd)
{
  g_autofree char *path = _sim_snapshot_index_path (store_path, kind);
  int fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  gsize len = header->list_len;
  IndexHeader now;
  ListHead head;
  ListMap *m;
  GStatBuf st;
  gboolean ok;

  if (out_fd != NULL)
    *out_fd = -1;
  if (fd < 0)
    return NULL;
  /* The file must hold the whole list: a page mapped past its end is a SIGBUS. */
  ok = header->list_len >= 8 && header->list_len <= G_MAXUINT32 &&
       pread (fd, &now, sizeof now, 0) == sizeof now && memcmp (&now, header, sizeof now) == 0 &&
       fstat (fd, &st) == 0 && (guint64) st.st_size >= sizeof now + header->list_len;
  if (ok && INDEX_LIST_TABLE (header->version))
    {
      ok = len >= sizeof head && pread (fd, &head, sizeof head, sizeof now) == sizeof head &&
           head.n_docs <= (len - sizeof head) / sizeof (DocEntry);
      if (ok)
        len = sizeof head + head.n_docs * sizeof (DocEntry);
    }
  m = g_new (ListMap, 1);
  m->len = sizeof now + len;
  m->map = ok ? mmap (NULL, m->len, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
  m->fd = -1;
  if (m->map != MAP_FAILED && INDEX_LIST_TABLE (header->version))
    m->fd = fd, fd = -1;
  if (fd >= 0)
    close (fd);
  if (m->map == MAP_FAILED)
    {
      g_free (m);
      return NULL;
    }
  if (out_fd != NULL)
    *out_fd = m->fd;
  return g_bytes_new_with_free_func ((const guint8 *) m->map + sizeof now, len, list_unmap, m);
}

/* The bytes of a list of @version its hash is over, from its 8th: all
 * of them before 13; since, its head's and entries' (their names are
 * checked one by one as they are asked for). 0 when it cannot hold its
 * head and entries. */
static gsize
list_hashed (const guint8 *data,
             gsize         len,
             guint32       version)
{
  ListHead head;

  if (!INDEX_LIST_TABLE (version))
    return len >= 8 ? len - 8 : 0;
  if (len < sizeof head)
    return 0;
  memcpy (&head, data, sizeof head);
  if (head.n_docs > (len - sizeof head) / sizeof (DocEntry))
    return 0;
  return sizeof head - 8 + head.n_docs * sizeof (DocEntry);
}

/* Whether @list (map_list()) of @version is whole: its hash over the rest.
 * With @drop, each 8 MB hashed leaves the process's memory (the pages stay
 * in the page cache: a check touches a few of the entries of a list of
 * 1.37 million documents, 77 MB). */
static gboolean
list_is_whole (GBytes   *list,
               guint32   version,
               gboolean  drop)
{
  enum { CHUNK = 8 << 20 };
  gsize len;
  const guint8 *data = g_bytes_get_data (list, &len);
  const gsize hashed = list_hashed (data, len, version);
  const gsize page = sysconf (_SC_PAGESIZE);
  XXH3_state_t *state;
  guint64 hash;

  if (hashed == 0)
    return FALSE;
  if (!drop)
    {
      memcpy (&hash, data, 8);
      return hash == XXH3_64bits (data + 8, hashed);
    }
  if ((state = XXH3_createState ()) == NULL)
    return FALSE;
  XXH3_64bits_reset (state);
  for (gsize at = 8; at < 8 + hashed; at += CHUNK)
    {
      const gsize m = MIN (CHUNK, 8 + hashed - at);
      const guintptr lo = ((guintptr) (data + at) + page - 1) / page * page;
      const guintptr hi = (guintptr) (data + at + m) / page * page;

      XXH3_64bits_update (state, data + at, m);
      if (hi > lo)
        madvise ((gpointer) lo, hi - lo, MADV_DONTNEED);
    }
  hash = XXH3_64bits_digest (state);
  XXH3_freeState (state);
  return memcmp (&hash, data, 8) == 0;
}

GBytes *
_sim_snapshot_read_list (const char        *store_path,
                         guint              kind,
                         const IndexHeader *header)
{
  g_autoptr(GBytes) list = map_list (store_path, kind, header, NULL);

  return list != NULL && list_is_whole (list, header->version, FALSE) ? g_steal_pointer (&list) : NULL;
}

typedef struct {
  GBytes  *list;
  guint32  version;
} ListCheck;

static gpointer
check_list (gpointer data)
{
  g_autofree ListCheck *c = data;
  const gboolean whole = list_is_whole (c->list, c->version, INDEX_LIST_TABLE (c->version));

  g_bytes_unref (c->list);
  return GINT_TO_POINTER (whole);
}

/* Whether the list _sim_snapshot_load_list() checks on @checking is whole
 * (joins it). */
gboolean
_sim_snapshot_list_checked (GThread *checking)
{
  return GPOINTER_TO_INT (g_thread_join (checking));
}

/* A list before version 13 (@bytes, whole) into the snapshot's own
 * entries, their names where they are in it. */
static gboolean
load_old_list (SimCorpusSnapshot *snapshot,
               GBytes            *bytes)
{
  gsize len;
  const guint8 *list = g_bytes_get_data (bytes, &len);
  /* An entry takes 50 bytes at least. */
  const gsize most = MIN ((len - 8) / (sizeof (ListEntry) + 2), G_MAXUINT32 - 1);
  GArray *own = g_array_sized_new (FALSE, FALSE, sizeof (DocEntry), MAX (most, 1));
  DocEntry *entries = (DocEntry *) own->data;
  gsize n = 0;

  for (gsize at = 8; at + sizeof (ListEntry) <= len; n++)
    {
      ListEntry e;

      memcpy (&e, list + at, sizeof e);
      at += sizeof e;
      if (e.path_len >= len - at || e.title_len >= len - at - e.path_len - 1 ||
          list[at + e.path_len] != '\0' || list[at + e.path_len + 1 + e.title_len] != '\0' || n == most)
        {
          g_array_unref (own);
          return FALSE;
        }
      entries[n] = (DocEntry) { e.id, e.row, e.n_chars, e.updated_at, e.n_windows, at,
                                e.path_len + 1 + e.title_len + 1, 0 };
      entries[n].names_hash = _sim_snapshot_names_hash ((const char *) list + at, entries[n].names_len);
      snapshot->n_windows += MAX (e.n_windows, 0);
      snapshot->updated_at = MAX (snapshot->updated_at, e.updated_at);
      at += entries[n].names_len;
    }
  g_array_set_size (own, n);
  snapshot->own_entries = own;
  snapshot->entries = (const DocEntry *) own->data;
  snapshot->n_entries = n;
  snapshot->names = (const char *) list;
  snapshot->names_len = len;
  snapshot->list = g_bytes_ref (bytes);
  return TRUE;
}

/* The document list of the index file of @kind into the snapshot, which
 * has none yet: mapped, its hash checked on another core (@out_checking,
 * for _sim_snapshot_list_checked() before the snapshot is used); a list of
 * version 13 used as it is, an older one read into the snapshot's entries.
 * (At 1.37 million documents a list is 77 MB of entries and 200 MB of
 * names; an open that read it all took 119 ms.) */
gboolean
_sim_snapshot_load_list (SimCorpusSnapshot  *snapshot,
                         guint               kind,
                         const IndexHeader  *header,
                         GThread           **out_checking)
{
  int names_fd;
  g_autoptr(GBytes) bytes = map_list (snapshot->store_path, kind, header, &names_fd);
  gsize len;
  const guint8 *list = bytes ? g_bytes_get_data (bytes, &len) : NULL;
  ListCheck *c;
  ListHead head;

  *out_checking = NULL;
  if (bytes == NULL || list_hashed (list, len, header->version) == 0)
    return FALSE;
  /* Hashed on another core while it is read (or the parts opened). */
  c = g_new (ListCheck, 1);
  *c = (ListCheck) { g_bytes_ref (bytes), header->version };
  if ((*out_checking = g_thread_try_new ("simhound-list", check_list, c, NULL)) == NULL &&
      !GPOINTER_TO_INT (check_list (c)))
    return FALSE;
  if (!INDEX_LIST_TABLE (header->version))
    {
      if (!load_old_list (snapshot, bytes))
        {
          if (*out_checking != NULL)
            _sim_snapshot_list_checked (g_steal_pointer (out_checking));
          _sim_snapshot_clear_docs (snapshot);
          return FALSE;
        }
      return TRUE;
    }
  memcpy (&head, list, sizeof head);
  snapshot->entries = (const DocEntry *) (list + sizeof head);
  snapshot->n_entries = head.n_docs;
  /* The names follow, in the file. */
  snapshot->names_fd = names_fd;
  snapshot->names_at = sizeof (IndexHeader) + len;
  snapshot->names_len = header->list_len - len;
  snapshot->n_windows = head.n_windows;
  snapshot->updated_at = MAX (snapshot->updated_at, head.updated_at);
  snapshot->list = g_steal_pointer (&bytes);
  snapshot->list_key = header->key;
  return TRUE;
}

/* The bytes of the documents' names in an index file's list, one after
 * another (those of a list before 13 are among its entries). */
static gsize
names_size (const SimCorpusSnapshot *snapshot)
{
  gsize len = 0;

  for (guint i = 0; i < snapshot->n_entries; i++)
    len += snapshot->entries[i].names_len;
  return len;
}

/* The bytes of the snapshot's document list in an index file (ListHead,
 * its entries, their names, zeros to a multiple of 8). */
gsize
_sim_snapshot_list_size (const SimCorpusSnapshot *snapshot)
{
  return sizeof (ListHead) + snapshot->n_entries * sizeof (DocEntry) + (names_size (snapshot) + 7) / 8 * 8;
}

/* Writes the document list (@len bytes, _sim_snapshot_list_size()) at
 * @at of @fd, through a buffer: its entries, each naming where its names
 * follow them, then the names. Its hash, known at the entries' end, is
 * written last over the head's first word. */
gboolean
_sim_snapshot_write_list (const SimCorpusSnapshot *snapshot,
                          int                      fd,
                          goffset                  at,
                          gsize                    len)
{
  enum { BUFFER = 1 << 20 };
  static const guint8 zeros[8] = { 0 };
  g_autoptr(GByteArray) buf = g_byte_array_sized_new (BUFFER + sizeof (DocEntry));
  g_autoptr(GByteArray) scratch = g_byte_array_new ();
  XXH3_state_t *state = XXH3_createState ();
  ListHead head = { 0, snapshot->n_entries, snapshot->n_windows, snapshot->updated_at };
  goffset pos = at + sizeof head;
  const char *names_of;
  guint64 names = 0;
  gboolean ok = TRUE;

  if (state == NULL)
    return FALSE;
  XXH3_64bits_reset (state);
  XXH3_64bits_update (state, (const guint8 *) &head + 8, sizeof head - 8);
  /* The entries, then the names: two passes. */
  for (guint pass = 0; ok && pass < 2; pass++)
    for (guint i = 0; ok && i <= snapshot->n_entries; i++)
      {
        if (i < snapshot->n_entries)
          {
            const DocEntry *e = &snapshot->entries[i];

            if (pass == 0)
              {
                DocEntry copy = *e;

                copy.names = names;
                names += e->names_len;
                g_byte_array_append (buf, (const guint8 *) &copy, sizeof copy);
              }
            else if ((names_of = _sim_snapshot_entry_names (snapshot, e, scratch)) != NULL)
              g_byte_array_append (buf, (const guint8 *) names_of, e->names_len);
            else
              ok = FALSE;  /* not inside the names: never so in a list whose hash holds */
            if (buf->len < BUFFER)
              continue;
          }
        else if (pass == 1)
          g_byte_array_append (buf, zeros, (8 - names % 8) % 8);
        if (pass == 0)
          XXH3_64bits_update (state, buf->data, buf->len);
        ok = ok && sim_pwrite_full (fd, buf->data, buf->len, pos);
        pos += buf->len;
        g_byte_array_set_size (buf, 0);
      }
  head.hash = XXH3_64bits_digest (state);
  XXH3_freeState (state);
  return ok && (gsize) (pos - at) == len && sim_pwrite_full (fd, &head, sizeof head, at);
}

/* The snapshot's documents, made from the store's rows, taken from the
 * list of the index file of @kind it has just written with @key instead:
 * the same documents, their names left in the file (a process that stays
 * open after adding to 1.37 million essays held 280 MB of them). Nothing
 * changes when the file is not that one any more, or its list does not
 * hold. */
void
_sim_snapshot_use_list (SimCorpusSnapshot *snapshot,
                        guint              kind,
                        guint64            key)
{
  g_autoptr(SimCorpusSnapshot) file = _sim_snapshot_new (snapshot->store_path, snapshot->flags);
  GThread *checking = NULL;
  IndexHeader header;

  if (snapshot->docs != NULL || snapshot->list != NULL ||
      !_sim_snapshot_index_peek (snapshot->store_path, kind, &header) || header.key != key ||
      !_sim_snapshot_load_list (file, kind, &header, &checking))
    return;
  if ((checking != NULL && !_sim_snapshot_list_checked (checking)) || file->list == NULL ||
      file->n_entries != snapshot->n_entries || file->n_windows != snapshot->n_windows)
    return;
  _sim_snapshot_clear_docs (snapshot);
  snapshot->entries = g_steal_pointer (&file->entries);
  snapshot->n_entries = file->n_entries;
  snapshot->names_fd = file->names_fd;
  snapshot->names_at = file->names_at;
  snapshot->names_len = file->names_len;
  snapshot->list = g_steal_pointer (&file->list);
  snapshot->list_key = file->list_key;
  snapshot->n_windows = file->n_windows;
  snapshot->updated_at = file->updated_at;
  file->names_fd = -1;
}
