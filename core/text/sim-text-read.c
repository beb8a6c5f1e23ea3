/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reading text: files read whole (bounded), bytes decoded to valid UTF-8
 * (sim_text_decode()), and the errors that name a file too long to read.
 */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <gio/gio.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim-error.h"
#include "sim-text.h"

static guint
count_invalid_bytes (const char *data,
                     gsize       len)
{
  const char *p = data, *end = data + len;
  guint n = 0;

  if (sim_text_validate (data, len))
    return 0;
  while (p < end)
    {
      const char *bad;

      if (g_utf8_validate_len (p, end - p, &bad))
        break;
      /* g_utf8_make_valid() also replaces embedded NULs' neighbours byte by byte. */
      n++;
      p = bad + 1;
    }
  return n;
}

char *
sim_text_decode (const char  *data,
                 gsize        len,
                 const char  *name,
                 gsize       *out_len,
                 guint       *out_n_repaired,
                 guint       *out_n_nuls,
                 GError     **error)
{
  gsize sample = MIN (len, 65536);
  gsize n_controls = 0, zeros[2] = { 0, 0 };
  guint n_invalid, n_nuls = 0;
  const char *from = NULL;
  gsize skip = 0;
  g_autofree char *repaired = NULL;
  char *text;

  if (out_n_repaired)
    *out_n_repaired = 0;
  if (out_n_nuls)
    *out_n_nuls = 0;

  if (len >= 2 && (((guchar) data[0] == 0xff && (guchar) data[1] == 0xfe) ||
                   ((guchar) data[0] == 0xfe && (guchar) data[1] == 0xff)))
    {
      from = (guchar) data[0] == 0xff ? "UTF-16LE" : "UTF-16BE";
      skip = 2;
    }
  else
    {
      /* UTF-16 without a byte-order mark: text in the Latin range has a NUL
       * in every other byte, on one side. */
      for (gsize i = 0; i < sample; i++)
        zeros[i & 1] += data[i] == 0;
      if (sample >= 16 && sample % 2 == 0 && zeros[1] * 10 >= sample / 2 * 8 && zeros[0] * 10 <= sample / 2)
        from = "UTF-16LE";
      else if (sample >= 16 && sample % 2 == 0 && zeros[0] * 10 >= sample / 2 * 8 && zeros[1] * 10 <= sample / 2)
        from = "UTF-16BE";
    }
  if (from != NULL)
    {
      g_autoptr(GError) local_error = NULL;
      gsize written = 0;

      text = g_convert (data + skip, len - skip, "UTF-8", from, NULL, &written, &local_error);
      if (text == NULL)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_BAD_ENCODING,
                       _("%s: cannot decode this UTF-16 text: %s"), name, local_error->message);
          return NULL;
        }
      /* A U+0000 in it is a stray NUL like any other. */
      repaired = g_steal_pointer (&text);
      data = repaired;
      len = written;
      sample = MIN (len, 65536);
    }

  for (gsize i = 0; i < sample; i++)
    {
      const guchar b = data[i];

      if (b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f' && b != '\v' && b != 0x1b)
        n_controls++;
    }
  if (n_controls * 20 > sample)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_TEXT,
                   _("%s is not a text file (it contains binary data)"), name);
      return NULL;
    }

  /* A stray NUL is replaced like an invalid byte, and counted. */
  if (memchr (data, 0, len) != NULL)
    {
      GString *out = g_string_sized_new (len + 16);

      for (gsize i = 0; i < len; i++)
        {
          if (data[i] == 0)
            {
              g_string_append (out, "\xef\xbf\xbd");
              n_nuls++;
            }
          else
            g_string_append_c (out, data[i]);
        }
      g_free (repaired);
      len = out->len;
      repaired = g_string_free (out, FALSE);
      data = repaired;
    }
  if (out_n_nuls)
    *out_n_nuls = n_nuls;

  n_invalid = count_invalid_bytes (data, len);
  if (n_invalid == 0)
    {
      if (out_len)
        *out_len = len;
      return repaired != NULL ? g_steal_pointer (&repaired) : g_strndup (data, len);
    }

  /* Mostly invalid UTF-8: most likely a legacy Chinese encoding. */
  if ((gsize) n_invalid * 10 > len)
    {
      gsize written = 0;

      text = g_convert (data, len, "UTF-8", "GB18030", NULL, &written, NULL);
      if (text != NULL)
        {
          if (out_len)
            *out_len = written;
          return text;
        }
      if (len >= 64 && (gsize) n_invalid * 4 > len)
        {
          g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_TEXT,
                       _("%s is not a text file (it is not valid UTF-8, UTF-16 or GB18030)"),
                       name);
          return NULL;
        }
    }

  text = g_utf8_make_valid (data, len);
  if (out_n_repaired)
    *out_n_repaired = n_invalid;
  if (out_len)
    *out_len = strlen (text);
  return text;
}

void
sim_text_set_too_long_error (GError     **error,
                             const char  *name)
{
  g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
               _("%s holds too much text (the limit for one document is %d MB of text)"), name,
               SIM_TEXT_MAX_TEXT_BYTES >> 20);
}

static void
set_too_large_error (GError     **error,
                     const char  *name,
                     double       size)
{
  if (size > 0)
    g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                 _("%s is too large (%.0f MB; the limit for one document is %d MB)"), name,
                 size / 1048576.0, SIM_TEXT_MAX_FILE_BYTES >> 20);
  else
    g_set_error (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT,
                 _("%s is too large (more than the limit for one document, %d MB)"), name,
                 SIM_TEXT_MAX_FILE_BYTES >> 20);
}

#define READ_STEP 65536

/* sim_text_read_fd(), reading into the buffer itself, sized for
 * @size_hint bytes (a regular file's size) and a step to see its end. */
static char *
read_fd (int          fd,
         const char  *name,
         gsize        size_hint,
         gsize       *out_len,
         GError     **error)
{
  GByteArray *buf = g_byte_array_sized_new (MIN (size_hint, SIM_TEXT_MAX_FILE_BYTES) + READ_STEP + 1);
  gsize used = 0;

  for (;;)
    {
      gssize n;

      g_byte_array_set_size (buf, used + READ_STEP);
      n = read (fd, buf->data + used, READ_STEP);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          const int saved = errno;

          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Failed to read %s: %s"), name,
                       g_strerror (saved));
          g_byte_array_free (buf, TRUE);
          return NULL;
        }
      if (n == 0)
        break;
      used += n;
      if (used > SIM_TEXT_MAX_FILE_BYTES)
        {
          set_too_large_error (error, name, 0);
          g_byte_array_free (buf, TRUE);
          return NULL;
        }
    }
  g_byte_array_set_size (buf, used + 1);
  buf->data[used] = '\0';
  if (out_len)
    *out_len = used;
  return (char *) g_byte_array_free (buf, FALSE);
}

char *
sim_text_read_fd (int          fd,
                  const char  *name,
                  gsize       *out_len,
                  GError     **error)
{
  return read_fd (fd, name, 0, out_len, error);
}

char *
sim_text_read_file (const char  *path,
                    gsize       *out_len,
                    gint64      *out_mtime,
                    GError     **error)
{
  GStatBuf st = { 0 };
  char *data;
  int fd;

  fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY, 0);
  if (fd < 0)
    {
      const int saved = errno;
      g_autofree char *shown = g_filename_display_name (path);

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), _("Failed to open file “%s”: %s"),
                   shown, g_strerror (saved));
      return NULL;
    }
  /* One stat, of what was opened: its type, its size and its time. */
  if (fstat (fd, &st) == 0)
    {
      if (S_ISDIR (st.st_mode))
        {
          g_close (fd, NULL);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY, _("%s is a folder, not a file"), path);
          return NULL;
        }
      if (S_ISREG (st.st_mode) && st.st_size > SIM_TEXT_MAX_FILE_BYTES)
        {
          g_close (fd, NULL);
          set_too_large_error (error, path, st.st_size);
          return NULL;
        }
      if (out_mtime)
        *out_mtime = st.st_mtime;
    }
  else if (out_mtime)
    *out_mtime = 0;
  data = read_fd (fd, path, st.st_mode && S_ISREG (st.st_mode) ? (gsize) st.st_size : 0, out_len, error);
  g_close (fd, NULL);
  return data;
}

char *
sim_text_load_file (const char  *path,
                    gsize       *out_len,
                    guint       *out_n_repaired,
                    guint       *out_n_nuls,
                    GError     **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;

  if ((data = sim_text_read_file (path, &len, NULL, error)) == NULL)
    return NULL;
  return sim_text_decode (data, len, path, out_len, out_n_repaired, out_n_nuls, error);
}
