/* SPDX-License-Identifier: GPL-3.0-or-later */
#define _GNU_SOURCE /* O_TMPFILE */
#include "config.h"

#include <fcntl.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "sim-parallel.h"
#include "sim-window-stash.h"

#define BUILD_MEMORY ((gsize) 256 << 20)

struct _SimStash {
  gint     ref_count;
  char    *dir;
  GMutex   lock;
  gsize    in_memory;  /* bytes kept in memory so far */
  int      fd;         /* the file, once made; -1 before, -2 when it cannot be */
  guint64  end;        /* bytes given out of it */
};

gsize
_sim_build_memory (void)
{
  const char *env = g_getenv ("SIMHOUND_BUILD_MEMORY");
  const guint64 v = env != NULL ? g_ascii_strtoull (env, NULL, 10) : 0;

  return v > 0 ? (gsize) MIN (v, G_MAXSIZE / 4) : BUILD_MEMORY;
}

int
_sim_scratch_file (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *tmp = NULL;
  int fd;

#ifdef O_TMPFILE
  fd = open (dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0)
    return fd;
#endif
  tmp = g_build_filename (dir, ".simhound-scratch-XXXXXX", NULL);
  fd = g_mkstemp_full (tmp, O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0)
    g_unlink (tmp);
  return fd;
}

SimStash *
_sim_stash_new (const char *store_path)
{
  SimStash *stash = g_new0 (SimStash, 1);

  stash->ref_count = 1;
  stash->dir = g_strdup (store_path);
  g_mutex_init (&stash->lock);
  stash->fd = -1;
  return stash;
}

SimStash *
_sim_stash_ref (SimStash *stash)
{
  g_atomic_int_inc (&stash->ref_count);
  return stash;
}

void
_sim_stash_unref (SimStash *stash)
{
  if (stash == NULL || !g_atomic_int_dec_and_test (&stash->ref_count))
    return;
  if (stash->fd >= 0)
    close (stash->fd);
  g_mutex_clear (&stash->lock);
  g_free (stash->dir);
  g_free (stash);
}

void
_sim_stash_keep (SimStash   *stash,
                 GBytes     *packed,
                 gsize       n_windows,
                 SimStashed *out)
{
  gsize len;
  const guint8 *data = g_bytes_get_data (packed, &len);
  guint64 at = 0;
  gboolean to_file;

  out->stash = _sim_stash_ref (stash);
  out->n_windows = n_windows;
  out->len = len;
  out->at = 0;
  g_mutex_lock (&stash->lock);
  to_file = stash->in_memory + len > _sim_build_memory () / 4;
  if (to_file && stash->fd == -1 && (stash->fd = _sim_scratch_file (stash->dir)) < 0)
    stash->fd = -2;
  to_file = to_file && stash->fd >= 0;
  if (to_file)
    {
      at = stash->end;
      stash->end += len;
    }
  else
    stash->in_memory += len;
  g_mutex_unlock (&stash->lock);
  /* A file that cannot take them (a full disk) leaves them in memory. */
  if (to_file && sim_pwrite_full (stash->fd, data, len, (goffset) at))
    {
      out->at = at;
      out->bytes = NULL;
      g_bytes_unref (packed);
      return;
    }
  out->bytes = packed;
}

GBytes *
_sim_stashed_get (const SimStashed *held)
{
  guint8 *data;

  if (held->stash == NULL)
    return NULL;
  if (held->bytes != NULL)
    return g_bytes_ref (held->bytes);
  data = g_malloc (MAX (held->len, 1));
  sim_pread_full (held->stash->fd, data, held->len, (goffset) held->at, 0);
  return g_bytes_new_take (data, held->len);
}

void
_sim_stashed_clear (SimStashed *held)
{
  g_clear_pointer (&held->bytes, g_bytes_unref);
  g_clear_pointer (&held->stash, _sim_stash_unref);
  held->at = 0;
  held->len = 0;
  held->n_windows = 0;
}
