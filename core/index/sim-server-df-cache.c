/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A corpus server's feature statistics kept beside the client, in the
 * user's cache folder, for the next check (sim-server-snapshot.c): a check
 * opened by fetching them whole (1.4 MB at 1 GB, 9 ms of the server's time
 * and their unpacking on the client), though they change only when
 * documents are added or removed. They are kept with the stamp they were
 * fetched under (the server's document and window counts and the time of
 * its last add, which the same statement reads), and the server sends
 * them again only when its stamp is another.
 *
 * The file: a magic line, the stamp's length (4 bytes) and the stamp, the
 * SIM_DF_BUCKETS counts, and an XXH3 of all that before. A file that is
 * short, long or damaged is not used, and the next fetch writes it again
 * (by a rename: a reader sees the old file or the new one, whole). Any
 * failure to read or write it only costs the fetch.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <glib/gstdio.h>
#include <xxhash.h>

#include "sim-server-private.h"

#define MAGIC     "simhound-df 1\n"
#define MAX_STAMP 256

/* The cache file of the corpus server named @name (host:port/database). */
char *
_sim_server_df_cache_path (const char *name)
{
  const char *dir = g_getenv ("SIMHOUND_CACHE_DIR");
  g_autofree char *key = g_compute_checksum_for_string (G_CHECKSUM_SHA256, name, -1);
  g_autofree char *file = g_strconcat (key, ".df", NULL);

  if (dir != NULL && *dir)
    return g_build_filename (dir, "servers", file, NULL);
  return g_build_filename (g_get_user_cache_dir (), "simhound", "servers", file, NULL);
}

guint32 *
_sim_server_df_cache_read (const char  *name,
                           char       **out_stamp)
{
  g_autofree char *path = _sim_server_df_cache_path (name);
  g_autofree char *data = NULL;
  const gsize magic = strlen (MAGIC);
  guint32 n_stamp;
  gsize len, counts_at;
  guint64 sum;
  guint32 *counts;

  *out_stamp = NULL;
  if (!g_file_get_contents (path, &data, &len, NULL) || len < magic + 4 || memcmp (data, MAGIC, magic) != 0)
    return NULL;
  memcpy (&n_stamp, data + magic, 4);
  counts_at = magic + 4 + n_stamp;
  if (n_stamp > MAX_STAMP || len != counts_at + SIM_DF_BUCKETS * sizeof (guint32) + 8)
    return NULL;
  memcpy (&sum, data + len - 8, 8);
  if (XXH3_64bits (data, len - 8) != sum || memchr (data + magic + 4, '\0', n_stamp) != NULL)
    return NULL;
  counts = g_new (guint32, SIM_DF_BUCKETS);
  memcpy (counts, data + counts_at, SIM_DF_BUCKETS * sizeof (guint32));
  *out_stamp = g_strndup (data + magic + 4, n_stamp);
  return counts;
}

void
_sim_server_df_cache_write (const char    *name,
                            const char    *stamp,
                            const guint32 *counts)
{
  g_autofree char *path = _sim_server_df_cache_path (name);
  g_autofree char *dir = g_path_get_dirname (path);
  g_autoptr(GByteArray) data = g_byte_array_new ();
  g_autoptr(GError) error = NULL;
  const guint32 n_stamp = (guint32) strlen (stamp);
  guint64 sum;

  if (n_stamp > MAX_STAMP)
    return;
  g_byte_array_append (data, (const guint8 *) MAGIC, strlen (MAGIC));
  g_byte_array_append (data, (const guint8 *) &n_stamp, 4);
  g_byte_array_append (data, (const guint8 *) stamp, n_stamp);
  g_byte_array_append (data, (const guint8 *) counts, SIM_DF_BUCKETS * sizeof (guint32));
  sum = XXH3_64bits (data->data, data->len);
  g_byte_array_append (data, (const guint8 *) &sum, 8);
  if (g_mkdir_with_parents (dir, 0700) != 0 ||
      !g_file_set_contents_full (path, (const char *) data->data, data->len, G_FILE_SET_CONTENTS_CONSISTENT, 0600,
                                 &error))
    g_debug ("The feature statistics of %s are not kept: %s", name, error ? error->message : g_strerror (errno));
}
