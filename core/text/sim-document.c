/* SPDX-License-Identifier: GPL-3.0-or-later */
#define _GNU_SOURCE /* memmem */
#include "config.h"

#include <string.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>

#include "sim-document.h"
#include "sim-error.h"
#include "sim-module.h"
#include "sim-markup.h"
#include "sim-pdf.h"
#include "sim-text.h"

static const char *const format_names[] = { "text", "markdown", "html", "docx", "odt", "pdf", "doc" };

const char *
sim_format_to_string (SimFormat format)
{
  g_return_val_if_fail ((guint) format < G_N_ELEMENTS (format_names), "text");
  return format_names[format];
}

static gboolean
has_extension (const char *name,
               const char *const *extensions)
{
  g_autofree char *lower = g_ascii_strdown (name ? name : "", -1);

  for (guint i = 0; extensions[i]; i++)
    if (g_str_has_suffix (lower, extensions[i]))
      return TRUE;
  return FALSE;
}

/* Looks for @needle in the first @limit bytes, ignoring ASCII case. */
static gboolean
starts_with_markup (const char *data,
                    gsize       len)
{
  gsize i = 0;

  if (len >= 3 && memcmp (data, "\xef\xbb\xbf", 3) == 0)
    i = 3;
  while (i < len && g_ascii_isspace (data[i]))
    i++;
  return (len - i >= 9 && g_ascii_strncasecmp (data + i, "<!doctype", 9) == 0 &&
          len - i >= 14 && g_ascii_strncasecmp (data + i + 9, " html", 5) == 0) ||
         (len - i >= 5 && g_ascii_strncasecmp (data + i, "<html", 5) == 0);
}

SimFormat
sim_document_detect (const char *data,
                     gsize       len,
                     const char *name)
{
  static const char *const html[] = { ".html", ".htm", ".xhtml", NULL };
  static const char *const markdown[] = { ".md", ".markdown", NULL };

  if (len >= 5 && memcmp (data, "%PDF-", 5) == 0)
    return SIM_FORMAT_PDF;
  if (len >= 4 && memcmp (data, "PK\3\4", 4) == 0)
    {
      static const char *const docx[] = { ".docx", NULL };
      static const char *const odt[] = { ".odt", NULL };
      SimMarkupDetectFunc detect = (SimMarkupDetectFunc) sim_module_symbol (SIM_MARKUP_MODULE, "sim_markup_detect_zip", NULL);

      /* A zip that is no document: "binary" when decoded as text. Without
       * the module the name tells, and reading it says what is missing. */
      if (detect != NULL)
        return detect (data, len);
      return has_extension (name, docx) ? SIM_FORMAT_DOCX : has_extension (name, odt) ? SIM_FORMAT_ODT : SIM_FORMAT_TEXT;
    }
  if (len >= 8 && memcmp (data, "\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", 8) == 0)
    return SIM_FORMAT_DOC;
  if (has_extension (name, html) || starts_with_markup (data, MIN (len, 1024)))
    return SIM_FORMAT_HTML;
  if (has_extension (name, markdown))
    return SIM_FORMAT_MARKDOWN;
  return SIM_FORMAT_TEXT;
}

/* ---------------------------------------------------- HTML, DOCX, ODT, Markdown */

/* Read by the markup module (sim-markup.c), loaded the first time such a
 * document is met. */
static char *
extract_markup (SimFormat         format,
                const char       *data,
                gsize             len,
                const char       *name,
                gsize            *out_len,
                SimDocumentNotes *notes,
                GError          **error)
{
  SimMarkupExtractFunc extract = (SimMarkupExtractFunc) sim_module_symbol (SIM_MARKUP_MODULE, "sim_markup_extract",
                                                                           error);

  if (extract == NULL)
    {
      g_prefix_error (error, _("%s cannot be read: "), name);
      return NULL;
    }
  return extract (format, data, len, name, out_len, notes, error);
}

/* ------------------------------------------------------------------ PDF */

/* Read by the PDF module (sim-pdf-text.c), loaded the first time a PDF is met. */
static char *
extract_pdf (const char       *data,
             gsize             len,
             const char       *name,
             gsize            *out_len,
             SimDocumentNotes *notes,
             GError          **error)
{
  SimPdfExtractFunc extract = (SimPdfExtractFunc) sim_module_symbol (SIM_PDF_MODULE, "sim_pdf_extract_text", error);

  if (extract == NULL)
    {
      g_prefix_error (error, _("%s cannot be read: "), name);
      return NULL;
    }
  return extract (data, len, name, out_len, notes, error);
}

/* ---------------------------------------------------------------- .doc */

static char *
extract_doc (const char  *data,
             gsize        len,
             const char  *name,
             gsize       *out_len,
             GError     **error)
{
  static const char encrypted[] = "E\0n\0c\0r\0y\0p\0t\0e\0d\0P\0a\0c\0k\0a\0g\0e";
  g_autofree char *catdoc = g_find_program_in_path ("catdoc");
  g_autofree char *tmp = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int fd, status = 0;

  /* An encrypted DOCX or ODT is an OLE file holding an EncryptedPackage. */
  if (memmem (data, len, encrypted, sizeof encrypted - 1) != NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_TEXT,
                   _("%s is encrypted: save it without a password and try again"), name);
      return NULL;
    }
  if (catdoc == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_TEXT,
                   _("%s is a legacy Word document (.doc): install the catdoc package to read it, "
                     "or save it as .docx"), name);
      return NULL;
    }
  fd = g_file_open_tmp ("simhound-XXXXXX.doc", &tmp, error);
  if (fd < 0)
    return NULL;
  if (!g_file_set_contents_full (tmp, data, len, G_FILE_SET_CONTENTS_NONE, 0600, error))
    {
      g_close (fd, NULL);
      g_unlink (tmp);
      return NULL;
    }
  g_close (fd, NULL);
  {
    const char *argv[] = { catdoc, "-d", "utf-8", "-w", tmp, NULL };
    gboolean ok = g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &status, error);

    g_unlink (tmp);
    if (!ok)
      return NULL;
  }
  if (!g_spawn_check_wait_status (status, NULL) || out == NULL)
    {
      g_set_error (error, SIM_ERROR, SIM_ERROR_NOT_TEXT, _("%s could not be read by catdoc: %s"), name,
                   err ? g_strstrip (err) : "");
      return NULL;
    }
  return sim_text_decode (out, strlen (out), name, out_len, NULL, NULL, error);
}

/* -------------------------------------------------------------- entries */

char *
sim_document_extract (const char       *data,
                      gsize             len,
                      const char       *name,
                      SimFormat        *out_format,
                      gsize            *out_len,
                      SimDocumentNotes *out_notes,
                      GError          **error)
{
  const SimFormat format = sim_document_detect (data, len, name);
  SimDocumentNotes notes = { 0 };
  g_autofree char *text = NULL;
  gsize text_len = 0, decoded_len = 0;
  guint n_repaired = 0, n_nuls = 0;
  char *decoded;

  if (out_format)
    *out_format = format;
  if (out_notes)
    memset (out_notes, 0, sizeof *out_notes);
  switch (format)
    {
    case SIM_FORMAT_TEXT:
      text = sim_text_decode (data, len, name, &text_len, &notes.n_repaired, &notes.n_nuls, error);
      break;
    case SIM_FORMAT_MARKDOWN:
      {
        g_autofree char *plain = sim_text_decode (data, len, name, &text_len, &notes.n_repaired, &notes.n_nuls,
                                                  error);

        text = plain ? extract_markup (format, plain, text_len, name, &text_len, &notes, error) : NULL;
        break;
      }
    case SIM_FORMAT_HTML:
    case SIM_FORMAT_DOCX:
    case SIM_FORMAT_ODT:
      text = extract_markup (format, data, len, name, &text_len, &notes, error);
      break;
    case SIM_FORMAT_PDF:
      text = extract_pdf (data, len, name, &text_len, &notes, error);
      break;
    case SIM_FORMAT_DOC:
      text = extract_doc (data, len, name, &text_len, error);
      break;
    default:
      g_assert_not_reached ();
    }
  if (text == NULL)
    return NULL;
  if (text_len > SIM_TEXT_MAX_TEXT_BYTES)
    {
      sim_text_set_too_long_error (error, name);
      return NULL;
    }
  if (format == SIM_FORMAT_TEXT)
    decoded = g_steal_pointer (&text), decoded_len = text_len;
  /* The libraries give UTF-8; a damaged file may still hold odd bytes or NULs. */
  else if ((decoded = sim_text_decode (text, text_len, name, &decoded_len, &n_repaired, &n_nuls, error)) == NULL)
    return NULL;
  notes.n_repaired += n_repaired;
  notes.n_nuls += n_nuls;
  if (out_len)
    *out_len = decoded_len;
  if (out_notes)
    *out_notes = notes;
  return decoded;
}

char *
sim_document_load (const char       *path,
                   SimFormat        *out_format,
                   gsize            *out_len,
                   SimDocumentNotes *out_notes,
                   GError          **error)
{
  g_autofree char *data = NULL;
  gsize len = 0;

  if ((data = sim_text_read_file (path, &len, NULL, error)) == NULL)
    return NULL;
  return sim_document_extract (data, len, path, out_format, out_len, out_notes, error);
}
