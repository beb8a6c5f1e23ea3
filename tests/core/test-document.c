/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Documents: every format gives its text, recognised by content; what is not
 * text (markup, deleted revisions, running headers, scripts) is left out;
 * damaged, encrypted, scanned and bomb files are refused with a clear error;
 * and one essay checks alike whatever format it comes in.
 *
 * Most DOCX, ODT and PDF fixtures are made here (zips with libarchive, PDFs
 * with cairo and Pango, as the PDF export does) to hold exactly the case a
 * test needs; tests/data/office holds one essay as LibreOffice and pandoc
 * write it.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>
#include <archive.h>
#include <archive_entry.h>
#include <cairo.h>
#include <cairo-pdf.h>
#include <pango/pangocairo.h>
#include <glib.h>

#include "sim-check.h"
#include "sim-document.h"
#include "sim-exclude.h"
#include "sim-error.h"
#include "sim-report-view.h"
#include "sim-test-util.h"

#define ESSAY_1 "The lighthouse keeper climbed the spiral stairs every evening to light the great lamp."
#define ESSAY_2 "Ships passing the northern reef relied on his lamp to find the safe channel into the harbour."
#define ESSAY_3 "In forty years he never once let the light go dark, even during the storms of the hardest winter."

static int
setup (void **state)
{
  *state = sim_test_make_tmp_dir ();
  return 0;
}

static int
teardown (void **state)
{
  sim_test_remove_tree (*state);
  g_free (*state);
  return 0;
}

/* A zip of (name, content) pairs; a content of NULL is @big_size spaces. */
static char *
make_zip (const char        *dir,
          const char        *file,
          const char *const *members,
          gsize              big_size)
{
  char *path = g_build_filename (dir, file, NULL);
  struct archive *a = archive_write_new ();

  assert_int_equal (archive_write_set_format_zip (a), ARCHIVE_OK);
  assert_int_equal (archive_write_set_options (a, "zip:compression=deflate"), ARCHIVE_OK);
  assert_int_equal (archive_write_open_filename (a, path), ARCHIVE_OK);
  for (guint i = 0; members[i]; i += 2)
    {
      struct archive_entry *e = archive_entry_new ();
      const gsize size = members[i + 1] ? strlen (members[i + 1]) : big_size;

      archive_entry_set_pathname (e, members[i]);
      archive_entry_set_size (e, size);
      archive_entry_set_filetype (e, AE_IFREG);
      archive_entry_set_perm (e, 0644);
      assert_int_equal (archive_write_header (a, e), ARCHIVE_OK);
      if (members[i + 1])
        assert_int_equal (archive_write_data (a, members[i + 1], size), (la_ssize_t) size);
      else
        {
          g_autofree char *spaces = g_malloc (1 << 20);

          memset (spaces, ' ', 1 << 20);
          for (gsize done = 0; done < size; done += 1 << 20)
            assert_true (archive_write_data (a, spaces, MIN (1 << 20, size - done)) > 0);
        }
      archive_entry_free (e);
    }
  assert_int_equal (archive_write_close (a), ARCHIVE_OK);
  archive_write_free (a);
  return path;
}

#define W "xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\""

static char *
make_docx (const char *dir)
{
  const char *members[] = {
    "[Content_Types].xml", "<?xml version=\"1.0\"?><Types/>",
    "word/document.xml",
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?><w:document " W "><w:body>"
    "<w:p><w:pPr><w:pStyle w:val=\"Heading1\"/></w:pPr><w:r><w:t>The Keeper</w:t></w:r></w:p>"
    "<w:p><w:r><w:t xml:space=\"preserve\">The lighthouse keeper climbed the spiral </w:t></w:r>"
    "<w:del><w:r><w:delText>DELETEDWORDS </w:delText></w:r></w:del>"
    "<w:r><w:t>stairs every evening to light the great lamp.</w:t></w:r>"
    "<w:r><w:fldChar w:fldCharType=\"begin\"/></w:r><w:r><w:instrText>PAGEREF FIELDCODE</w:instrText></w:r>"
    "<w:r><w:t xml:space=\"preserve\"> " ESSAY_2 "</w:t></w:r><w:r><w:footnoteReference w:id=\"1\"/></w:r></w:p>"
    "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>" ESSAY_3 "</w:t></w:r></w:p></w:tc></w:tr></w:tbl>"
    "</w:body></w:document>",
    "word/footnotes.xml",
    "<?xml version=\"1.0\"?><w:footnotes " W ">"
    "<w:footnote w:type=\"separator\" w:id=\"-1\"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>"
    "<w:footnote w:id=\"1\"><w:p><w:r><w:t>A footnote about the reef.</w:t></w:r></w:p></w:footnote>"
    "</w:footnotes>",
    NULL
  };

  return make_zip (dir, "essay.docx", members, 0);
}

/* A DOCX of @xml as its word/document.xml. (transfer full) */
static char *
docx_of (const char *dir,
         const char *file,
         const char *xml)
{
  const char *members[] = { "word/document.xml", xml, NULL };

  return make_zip (dir, file, members, 0);
}

static char *
make_odt (const char *dir)
{
  const char *members[] = {
    "mimetype", "application/vnd.oasis.opendocument.text",
    "content.xml",
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
    "<office:document-content xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" "
    "xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\"><office:body><office:text>"
    "<text:tracked-changes><text:changed-region><text:deletion><text:p>DELETEDWORDS</text:p>"
    "</text:deletion></text:changed-region></text:tracked-changes>"
    "<text:h text:outline-level=\"1\">The Keeper</text:h>"
    "<text:p>The lighthouse keeper climbed the spiral<text:s/>stairs every evening to light the great lamp. "
    ESSAY_2 "<office:annotation><text:p>COMMENTTEXT</text:p></office:annotation></text:p>"
    "<text:p>" ESSAY_3 "</text:p>"
    "</office:text></office:body></office:document-content>",
    NULL
  };

  return make_zip (dir, "essay.odt", members, 0);
}

/* A PDF of @text set in paragraphs over pages with a page number on each
 * page, as a word processor prints it, and a running header if @header. */
static char *
make_pdf (const char *dir,
          const char *file,
          const char *text,
          gboolean    with_text,
          gboolean    header)
{
  char *path = g_build_filename (dir, file, NULL);
  cairo_surface_t *surface = cairo_pdf_surface_create (path, 300, 300);
  cairo_t *cr = cairo_create (surface);
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *desc = pango_font_description_from_string ("Sans 9");
  int page = 1;

  pango_layout_set_font_description (layout, desc);
  pango_layout_set_width (layout, 240 * PANGO_SCALE);
  pango_layout_set_wrap (layout, PANGO_WRAP_WORD);
  if (!with_text)
    {
      /* A scan: a picture of a page, no text layer. */
      cairo_set_source_rgb (cr, 0.2, 0.2, 0.2);
      for (int y = 40; y < 260; y += 12)
        cairo_rectangle (cr, 30, y, 240, 6);
      cairo_fill (cr);
      cairo_show_page (cr);
    }
  else
    {
      g_auto(GStrv) paragraphs = g_strsplit (text, "\n\n", -1);
      double y = 40;

      for (guint i = 0; paragraphs[i]; i++)
        {
          int h;

          pango_layout_set_text (layout, paragraphs[i], -1);
          pango_layout_get_pixel_size (layout, NULL, &h);
          if (y + h > 250)
            {
              g_autofree char *number = g_strdup_printf ("%d", page++);

              pango_layout_set_text (layout, header ? "Journal of Lighthouse Studies" : "", -1);
              cairo_move_to (cr, 30, 15);
              pango_cairo_show_layout (cr, layout);
              pango_layout_set_text (layout, number, -1);
              cairo_move_to (cr, 140, 270);
              pango_cairo_show_layout (cr, layout);
              cairo_show_page (cr);
              y = 40;
              pango_layout_set_text (layout, paragraphs[i], -1);
            }
          cairo_move_to (cr, 30, y);
          pango_cairo_show_layout (cr, layout);
          y += h + 8;
        }
      {
        g_autofree char *number = g_strdup_printf ("%d", page);

        pango_layout_set_text (layout, header ? "Journal of Lighthouse Studies" : "", -1);
        cairo_move_to (cr, 30, 15);
        pango_cairo_show_layout (cr, layout);
        pango_layout_set_text (layout, number, -1);
        cairo_move_to (cr, 140, 270);
        pango_cairo_show_layout (cr, layout);
      }
      cairo_show_page (cr);
    }
  pango_font_description_free (desc);
  g_object_unref (layout);
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  assert_int_equal (cairo_surface_status (surface), CAIRO_STATUS_SUCCESS);
  cairo_surface_destroy (surface);
  return path;
}

static char *
load (const char *path,
      SimFormat   expected)
{
  g_autoptr(GError) error = NULL;
  SimFormat format = -1;
  char *text = sim_document_load (path, &format, NULL, NULL, &error);

  if (text == NULL)
    fail_msg ("%s: %s", path, error->message);
  assert_int_equal (format, expected);
  assert_true (g_utf8_validate (text, -1, NULL));
  return text;
}

static void
test_docx_paragraphs_tables_footnotes_without_deletions (void **state)
{
  g_autofree char *path = make_docx (*state);
  g_autofree char *text = load (path, SIM_FORMAT_DOCX);

  assert_non_null (strstr (text, "The Keeper\n\n"));
  assert_non_null (strstr (text, "climbed the spiral stairs every evening"));
  assert_non_null (strstr (text, ESSAY_2));
  assert_non_null (strstr (text, ESSAY_3));
  assert_non_null (strstr (text, "A footnote about the reef."));
  assert_null (strstr (text, "DELETEDWORDS"));
  assert_null (strstr (text, "FIELDCODE"));
  assert_null (strstr (text, "<w:"));
}

static void
test_odt_paragraphs_without_changes_or_comments (void **state)
{
  g_autofree char *path = make_odt (*state);
  g_autofree char *text = load (path, SIM_FORMAT_ODT);

  assert_non_null (strstr (text, "The Keeper\n\n"));
  assert_non_null (strstr (text, "climbed the spiral stairs every evening"));
  assert_non_null (strstr (text, ESSAY_3));
  assert_null (strstr (text, "DELETEDWORDS"));
  assert_null (strstr (text, "COMMENTTEXT"));
}

static void
test_html_visible_text_only (void **state)
{
  g_autofree char *path = sim_test_write_file (*state, "page.htm",
    "<!DOCTYPE html><html><head><meta charset=\"windows-1252\"><title>x</title>"
    "<style>p { color: red }</style><script>var secret = 1;</script></head><body>"
    "<nav><a href=\"/\">Home</a> <a href=\"/menu\">Menu</a></nav>"
    "<h1>Caf\xe9 &amp; Keeper</h1><p>The lighthouse keeper climbed the\n   spiral stairs.</p>"
    "<ul><li>one</li><li>two</li></ul></body></html>", -1);
  g_autofree char *text = load (path, SIM_FORMAT_HTML);

  assert_string_equal (text, "Café & Keeper\n\nThe lighthouse keeper climbed the spiral stairs.\n\none\ntwo\n");
}

/* Block quotations (HTML <blockquote>, DOCX Quote and pandoc's Block Text,
 * ODT Quotations and the automatic styles made from it) are read between
 * “ and ”, paragraph by paragraph: leaving quotes out finds them. */
static void
assert_quoted (const char *text,
               const char *quotation)
{
  g_autofree char *marked = g_strdup_printf ("“%s”", quotation);
  g_autoptr(GArray) spans = g_array_new (FALSE, FALSE, sizeof (SimExcludedSpan));
  const char *at = strstr (text, marked);
  const glong start = at ? g_utf8_pointer_to_offset (text, at) : -1;
  gboolean found = FALSE;

  assert_non_null (at);
  sim_exclude_find_quotes (text, -1, spans);
  for (guint i = 0; i < spans->len; i++)
    {
      const SimExcludedSpan *x = &g_array_index (spans, SimExcludedSpan, i);

      found |= x->start <= start + 1 && x->end >= start + 1 + g_utf8_strlen (quotation, -1);
    }
  assert_true (found);
}

static void
test_block_quotations_are_read_as_quotes (void **state)
{
  g_autofree char *html = sim_test_write_file (*state, "quote.html",
    "<html><body><p>As the keeper wrote:</p><blockquote><p>The lamp must never go dark.</p>"
    "<p>Not even in a storm.</p></blockquote><p>He meant it.</p></body></html>", -1);
  const char *docx_members[] = {
    "[Content_Types].xml", "<?xml version=\"1.0\"?><Types/>",
    "word/document.xml",
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?><w:document " W "><w:body>"
    "<w:p><w:r><w:t>As the keeper wrote:</w:t></w:r></w:p>"
    "<w:p><w:pPr><w:pStyle w:val=\"Quote\"/></w:pPr><w:r><w:t>The lamp must never go dark.</w:t></w:r></w:p>"
    "<w:p><w:pPr><w:pStyle w:val=\"BlockText\"/></w:pPr><w:r><w:t>Not even in a storm.</w:t></w:r></w:p>"
    "<w:p><w:r><w:t>He meant it.</w:t></w:r></w:p>"
    "</w:body></w:document>",
    NULL
  };
  const char *odt_members[] = {
    "mimetype", "application/vnd.oasis.opendocument.text",
    "content.xml",
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
    "<office:document-content xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" "
    "xmlns:style=\"urn:oasis:names:tc:opendocument:xmlns:style:1.0\" "
    "xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\">"
    "<office:automatic-styles><style:style style:name=\"P2\" style:family=\"paragraph\" "
    "style:parent-style-name=\"Quotations\"/></office:automatic-styles>"
    "<office:body><office:text><text:p>As the keeper wrote:</text:p>"
    "<text:p text:style-name=\"Quotations\">The lamp must never go dark.</text:p>"
    "<text:p text:style-name=\"P2\">Not even in a storm.</text:p>"
    "<text:p>He meant it.</text:p></office:text></office:body></office:document-content>",
    NULL
  };
  g_autofree char *docx = make_zip (*state, "quote.docx", docx_members, 0);
  g_autofree char *odt = make_zip (*state, "quote.odt", odt_members, 0);
  const char *paths[] = { html, docx, odt };
  const SimFormat formats[] = { SIM_FORMAT_HTML, SIM_FORMAT_DOCX, SIM_FORMAT_ODT };

  for (guint i = 0; i < G_N_ELEMENTS (paths); i++)
    {
      g_autofree char *text = load (paths[i], formats[i]);

      assert_quoted (text, "The lamp must never go dark.");
      assert_quoted (text, "Not even in a storm.");
      assert_null (strstr (text, "“As the keeper"));
      assert_null (strstr (text, "“He meant"));
    }
}

static void
test_html_recognised_by_content_and_utf8_without_charset (void **state)
{
  g_autofree char *path = sim_test_write_file (*state, "page.txt",
                                               "  <html><body><p>中文段落。</p><p>Café</p></body></html>", -1);
  g_autofree char *text = load (path, SIM_FORMAT_HTML);

  assert_string_equal (text, "中文段落。\n\nCafé\n");
}

static void
test_markdown_markup_dropped (void **state)
{
  g_autofree char *path = sim_test_write_file (*state, "notes.md",
    "# The Keeper\n\nHe **climbed** the *spiral* stairs, see [the map](http://x.org/m) and `lamp`, "
    "not snake_case_name.\n\n> quoted\n- item\n\n| Year | Lamp |\n|---|---|\n| 1881 | oil |\n\n"
    "<div>Raw <b>bold</b><script>track()</script></div>\n\nA reef[^r].\n\n[^r]: On the charts.\n", -1);
  g_autofree char *text = load (path, SIM_FORMAT_MARKDOWN);

  /* A block quotation is a quote; a table its cells; a footnote's mark
   * goes, its note is text where it is defined. */
  assert_string_equal (text, "The Keeper\n\nHe climbed the spiral stairs, see the map and lamp, "
                             "not snake_case_name.\n\n“quoted”\n\nitem\n\nYear Lamp\n1881 oil\n\n"
                             "Raw bold\n\nA reef.\n\nOn the charts.\n");
}

/* A large file is read in parts without losing or doubling a paragraph;
 * nesting deeper than any real document (cmark-gfm's time grows with depth
 * times inline nodes: minutes for this one) is read as plain text. */
static void
test_markdown_large_and_hostile (void **state)
{
  g_autoptr(GString) big = g_string_new (NULL);
  g_autoptr(GString) hostile = g_string_new (NULL);
  g_autofree char *big_path = NULL, *hostile_path = NULL, *text = NULL, *deep = NULL;
  const char *at;

  for (guint i = 0; i < 20000; i++)
    g_string_append_printf (big, i % 7 == 0 ? "> Quoted paragraph %u.\n\n" : "Paragraph **%u** here.\n\n", i);
  big_path = sim_test_write_file (*state, "big.md", big->str, big->len);
  text = load (big_path, SIM_FORMAT_MARKDOWN);
  at = text;
  for (guint i = 0; i < 20000; i++)
    {
      g_autofree char *want = g_strdup_printf (i % 7 == 0 ? "“Quoted paragraph %u.”\n" : "Paragraph %u here.\n", i);
      const char *found = strstr (at, want);

      if (found != at)
        fail_msg ("paragraph %u: not next in the text", i);
      at = found + strlen (want);
      if (i + 1 < 20000)
        assert_int_equal (*at++, '\n');
    }
  assert_string_equal (at, "");

  for (guint i = 0; i < 100000; i++)
    g_string_append_c (hostile, '>');
  g_string_append (hostile, " deep\n");
  for (guint i = 0; i < 100000; i++)
    g_string_append (hostile, "*a ");
  hostile_path = sim_test_write_file (*state, "hostile.md", hostile->str, hostile->len);
  deep = load (hostile_path, SIM_FORMAT_MARKDOWN);
  assert_non_null (strstr (deep, "> deep\n*a *a"));
}

/* A thesis's Markdown: 1,000 notes referred to in its text and defined at
 * its end, past the parts it is read in, are all read; a file of a link
 * definition only is empty, not refused; a row of 50,000 cells is read as
 * text. */
static void
test_markdown_notes_tables_and_definitions (void **state)
{
  g_autoptr(GString) thesis = g_string_new ("# A thesis\n\n");
  g_autofree char *path = NULL, *text = NULL;
  g_autoptr(GError) error = NULL;
  guint n_found = 0;

  for (guint i = 1; i <= 1000; i++)
    g_string_append_printf (thesis, "Paragraph %u of the argument, with a long sentence about the harbour "
                                    "and its keepers over many years of weather and trade. It goes on to "
                                    "weigh the records of the port against the letters of the keepers.[^%u]\n\n",
                            i, i);
  for (guint i = 1; i <= 1000; i++)
    g_string_append_printf (thesis, "[^%u]: Note number %u quotes the harbour records.\n\n"
                                    "Text between notes %u.\n\n", i, i, i);
  assert_true (thesis->len > 256 * 1024);  /* read in two parts at least */
  path = sim_test_write_file (*state, "thesis.md", thesis->str, thesis->len);
  text = load (path, SIM_FORMAT_MARKDOWN);
  for (guint i = 1; i <= 1000; i++)
    {
      g_autofree char *note = g_strdup_printf ("Note number %u quotes", i);

      n_found += strstr (text, note) != NULL;
    }
  assert_int_equal (n_found, 1000);
  assert_null (strstr (text, "[^"));

  {
    g_autofree char *defs = sim_test_write_file (*state, "links.md", "[home]: https://example.org \"Home\"\n", -1);
    g_autofree char *empty = sim_document_load (defs, NULL, NULL, NULL, &error);

    g_assert_no_error (error);
    assert_string_equal (empty, "");
  }
  {
    GString *wide = g_string_new ("Before the table.\n\n|");
    g_autofree char *wide_path = NULL, *wide_text = NULL;

    for (guint i = 0; i < 50000; i++)
      g_string_append (wide, " c |");
    g_string_append (wide, "\n|");
    for (guint i = 0; i < 50000; i++)
      g_string_append (wide, "---|");
    g_string_append (wide, "\n\nAfter the table.\n");
    wide_path = sim_test_write_file (*state, "wide.md", wide->str, wide->len);
    g_string_free (wide, TRUE);
    wide_text = load (wide_path, SIM_FORMAT_MARKDOWN);
    assert_non_null (strstr (wide_text, "After the table."));
  }
}

static void
test_pdf_reading_order_without_running_headers (void **state)
{
  g_autoptr(GString) essay = g_string_new (NULL);
  g_autofree char *path = NULL;
  g_autofree char *text = NULL;
  g_autofree char *flat = NULL;

  static const char *const names[] = { "zero", "one", "two", "three", "four", "five", "six", "seven",
                                       "eight", "nine", "ten", "eleven" };

  for (guint i = 0; i < 12; i++)
    g_string_append_printf (essay, "%sParagraph %s. " ESSAY_1 " " ESSAY_2, i ? "\n\n" : "", names[i]);
  path = make_pdf (*state, "essay.pdf", essay->str, TRUE, TRUE);
  text = load (path, SIM_FORMAT_PDF);
  flat = g_strdelimit (g_strdup (text), "\n", ' ');
  assert_null (strstr (text, "Journal of Lighthouse Studies"));
  assert_non_null (strstr (flat, "Paragraph zero. The lighthouse keeper"));
  assert_non_null (strstr (flat, "Paragraph eleven. The lighthouse keeper"));
  assert_true (strstr (flat, "Paragraph three.") < strstr (flat, "Paragraph four."));
  /* The page numbers are gone: no line is only digits. */
  {
    g_auto(GStrv) lines = g_strsplit (text, "\n", -1);

    for (guint i = 0; lines[i]; i++)
      assert_false (lines[i][0] != '\0' && strspn (lines[i], "0123456789 ") == strlen (lines[i]));
  }
  assert_non_null (strstr (flat, "find the safe channel into the harbour"));
}

static void
test_refused_files_say_why (void **state)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *scan = make_pdf (*state, "scan.pdf", NULL, FALSE, FALSE);
  g_autofree char *docx = make_docx (*state);
  g_autofree char *damaged = NULL;
  g_autofree char *bomb = NULL;
  g_autofree char *contents = NULL;
  gsize len = 0;

  assert_null (sim_document_load (scan, NULL, NULL, NULL, &error));
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_NOT_TEXT));
  assert_non_null (strstr (error->message, "no text layer (scanned?)"));
  assert_non_null (strstr (error->message, "scan.pdf"));
  g_clear_error (&error);

  /* Half a DOCX (a download cut short). */
  assert_true (g_file_get_contents (docx, &contents, &len, NULL));
  damaged = sim_test_write_file (*state, "cut.docx", contents, len / 2);
  assert_null (sim_document_load (damaged, NULL, NULL, NULL, &error));
  assert_non_null (strstr (error->message, "cut.docx"));
  assert_non_null (strstr (error->message, "damaged"));
  g_clear_error (&error);

  /* 200 MB of spaces in a zip of a few hundred KB: refused at 64 MB. */
  {
    const char *members[] = { "word/document.xml", NULL, NULL };

    bomb = make_zip (*state, "bomb.docx", members, 200u << 20);
  }
  assert_null (sim_document_load (bomb, NULL, NULL, NULL, &error));
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT));
  assert_non_null (strstr (error->message, "bomb.docx"));
  g_clear_error (&error);

  /* A zip that is no document, and a damaged PDF. */
  {
    const char *members[] = { "photo.jpg", "\xff\xd8\xff\xe0 not really", NULL };
    g_autofree char *zip = make_zip (*state, "photos.zip", members, 0);

    assert_null (sim_document_load (zip, NULL, NULL, NULL, &error));
    assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_NOT_TEXT));
    g_clear_error (&error);
  }
  {
    g_autofree char *pdf = sim_test_write_file (*state, "bad.pdf", "%PDF-1.4\n1 0 obj garbage", -1);

    assert_null (sim_document_load (pdf, NULL, NULL, NULL, &error));
    assert_non_null (strstr (error->message, "bad.pdf"));
    g_clear_error (&error);
  }
}

/* Text a reader does not see is left out and counted: a DOCX with a junk
 * word hidden (w:vanish), in white and in 1 point between the words of a
 * copy; white on a shaded cell is seen and kept. */
static void
test_docx_hidden_text_is_left_out (void **state)
{
  const char *words[] = { "The", "lighthouse", "keeper", "climbed", "the", "spiral", "stairs", NULL };
  const char *junk[] = { "<w:vanish/>", "<w:color w:val=\"FFFFFF\"/>", "<w:sz w:val=\"2\"/>" };
  GString *xml = g_string_new ("<?xml version=\"1.0\"?><w:document " W "><w:body><w:p>");
  g_autoptr(GError) error = NULL;
  SimDocumentNotes notes = { 0 };
  g_autofree char *path = NULL, *text = NULL;
  g_autofree char *body = NULL;

  for (guint i = 0; words[i]; i++)
    g_string_append_printf (xml, "<w:r><w:t xml:space=\"preserve\">%s </w:t></w:r>"
                                 "<w:r><w:rPr>%s</w:rPr><w:t xml:space=\"preserve\">zqx%u </w:t></w:r>",
                            words[i], junk[i % 3], i);
  g_string_append (xml, "</w:p><w:tbl><w:tr><w:tc><w:tcPr><w:shd w:val=\"clear\" w:fill=\"1F3864\"/></w:tcPr>"
                        "<w:p><w:r><w:rPr><w:color w:val=\"FFFFFF\"/></w:rPr><w:t>Heading on dark blue</w:t></w:r></w:p>"
                        "</w:tc></w:tr></w:tbl><w:p><w:r><w:rPr><w:vanish w:val=\"0\"/></w:rPr>"
                        "<w:t>Shown again</w:t></w:r></w:p></w:body></w:document>");
  body = g_string_free (xml, FALSE);
  path = docx_of (*state, "hidden.docx", body);
  text = sim_document_load (path, NULL, NULL, &notes, &error);
  assert_non_null (text);
  assert_string_equal (text, "The lighthouse keeper climbed the spiral stairs\n\nHeading on dark blue\n\nShown again\n");
  assert_int_equal (notes.n_hidden, 7 * 4);  /* "zqxN", the spaces between words not counted */
  assert_true (notes.hidden_start < notes.hidden_end);
  assert_true (notes.hidden_end <= 48);  /* just past "stairs " */
}

/* ODT: a span in a hidden style (text:display="none"), a white one, and a
 * paragraph marked hidden are left out. */
static void
test_odt_hidden_text_is_left_out (void **state)
{
  const char *members[] = {
    "mimetype", "application/vnd.oasis.opendocument.text",
    "content.xml",
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
    "<office:document-content xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" "
    "xmlns:style=\"urn:oasis:names:tc:opendocument:xmlns:style:1.0\" "
    "xmlns:fo=\"urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0\" "
    "xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\">"
    "<office:automatic-styles>"
    "<style:style style:name=\"T1\" style:family=\"text\"><style:text-properties text:display=\"none\"/></style:style>"
    "<style:style style:name=\"T2\" style:family=\"text\"><style:text-properties fo:color=\"#ffffff\"/></style:style>"
    "<style:style style:name=\"T3\" style:family=\"text\"><style:text-properties fo:color=\"#ffffff\" "
    "fo:background-color=\"#000080\"/></style:style>"
    "</office:automatic-styles><office:body><office:text>"
    "<text:p>The lighthouse <text:span text:style-name=\"T1\">qqq </text:span>keeper "
    "<text:span text:style-name=\"T2\">zzz </text:span>climbed <text:span text:style-name=\"T3\">up</text:span></text:p>"
    "<text:p><text:hidden-paragraph text:is-hidden=\"true\"/>A whole hidden paragraph.</text:p>"
    "</office:text></office:body></office:document-content>",
    NULL
  };
  g_autofree char *path = make_zip (*state, "hidden.odt", members, 0);
  g_autoptr(GError) error = NULL;
  SimDocumentNotes notes = { 0 };
  g_autofree char *text = sim_document_load (path, NULL, NULL, &notes, &error);

  assert_non_null (text);
  assert_string_equal (text, "The lighthouse keeper climbed up\n");
  assert_int_equal (notes.n_hidden, 3 + 3 + 22);  /* "qqq", "zzz", the paragraph without spaces */
}

/* A PDF with junk words drawn in white, in 1 point and off the page
 * between the words of its text: what a reader sees is read. */
static void
test_pdf_hidden_text_is_left_out (void **state)
{
  g_autofree char *path = g_build_filename (*state, "hidden.pdf", NULL);
  cairo_surface_t *surface = cairo_pdf_surface_create (path, 400, 300);
  cairo_t *cr = cairo_create (surface);
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *desc = pango_font_description_from_string ("Sans 10");
  g_autoptr(GError) error = NULL;
  SimDocumentNotes notes = { 0 };
  g_autofree char *text = NULL;

  pango_layout_set_font_description (layout, desc);
  pango_layout_set_text (layout, ESSAY_1, -1);
  pango_layout_set_width (layout, 360 * PANGO_SCALE);
  cairo_move_to (cr, 20, 40);
  pango_cairo_show_layout (cr, layout);
  /* White, tiny, off the page. */
  cairo_set_source_rgb (cr, 1, 1, 1);
  pango_layout_set_text (layout, "whitejunkwords", -1);
  cairo_move_to (cr, 20, 120);
  pango_cairo_show_layout (cr, layout);
  cairo_set_source_rgb (cr, 0, 0, 0);
  pango_font_description_set_size (desc, 1 * PANGO_SCALE);
  pango_layout_set_font_description (layout, desc);
  pango_layout_set_text (layout, "tinyjunkwords", -1);
  cairo_move_to (cr, 20, 160);
  pango_cairo_show_layout (cr, layout);
  pango_font_description_set_size (desc, 10 * PANGO_SCALE);
  pango_layout_set_font_description (layout, desc);
  pango_layout_set_text (layout, "offpagejunk", -1);
  cairo_move_to (cr, 20, 900);
  pango_cairo_show_layout (cr, layout);
  cairo_show_page (cr);
  pango_font_description_free (desc);
  g_object_unref (layout);
  cairo_destroy (cr);
  cairo_surface_finish (surface);
  cairo_surface_destroy (surface);

  text = sim_document_load (path, NULL, NULL, &notes, &error);
  assert_non_null (text);
  assert_non_null (strstr (text, "lighthouse keeper"));
  assert_null (strstr (text, "junk"));
  /* Poppler leaves out what lies off the page itself: white and tiny are counted. */
  assert_true (notes.n_hidden >= strlen ("whitejunkwords") + strlen ("tinyjunkwords"));
}

/* A PDF written by hand, one page of base-14 Helvetica, with @content as
 * its content stream. */
static char *
make_raw_pdf (const char *dir,
              const char *file,
              const char *content)
{
  GString *pdf = g_string_new ("%PDF-1.4\n");
  gsize offsets[6];
  g_autofree char *stream = g_strdup_printf ("<< /Length %zu >>\nstream\n%s\nendstream", strlen (content), content);
  const char *objects[] = {
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
    stream,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
  };
  gsize xref;

  for (guint i = 0; i < G_N_ELEMENTS (objects); i++)
    {
      offsets[i] = pdf->len;
      g_string_append_printf (pdf, "%u 0 obj\n%s\nendobj\n", i + 1, objects[i]);
    }
  xref = pdf->len;
  g_string_append_printf (pdf, "xref\n0 %u\n0000000000 65535 f \n", (guint) G_N_ELEMENTS (objects) + 1);
  for (guint i = 0; i < G_N_ELEMENTS (objects); i++)
    g_string_append_printf (pdf, "%010zu 00000 n \n", offsets[i]);
  g_string_append_printf (pdf, "trailer\n<< /Size %u /Root 1 0 R >>\nstartxref\n%zu\n%%%%EOF\n",
                          (guint) G_N_ELEMENTS (objects) + 1, xref);
  {
    char *path = sim_test_write_file (dir, file, pdf->str, pdf->len);

    g_string_free (pdf, TRUE);
    return path;
  }
}

/* Text drawn in PDF's invisible mode (3 Tr) and text covered by a white
 * box are not seen: left out and counted; the text around them stays. */
static void
test_pdf_invisible_and_covered_text_is_left_out (void **state)
{
  g_autofree char *path = make_raw_pdf (*state, "invisible.pdf",
    "BT /F1 12 Tf 72 700 Td (The lighthouse keeper climbed the spiral stairs.) Tj ET\n"
    "BT /F1 12 Tf 3 Tr 72 680 Td (zqxinvisible zqxinvisible) Tj ET\n"
    "BT /F1 12 Tf 0 Tr 72 660 Td (zqxcovered zqxcovered) Tj ET\n"
    "1 1 1 rg 70 655 200 16 re f 0 0 0 rg\n"
    "BT /F1 12 Tf 72 640 Td (Ships passing the northern reef relied on his lamp.) Tj ET\n");
  g_autoptr(GError) error = NULL;
  SimDocumentNotes notes = { 0 };
  g_autofree char *text = sim_document_load (path, NULL, NULL, &notes, &error);

  g_assert_no_error (error);
  assert_non_null (strstr (text, "The lighthouse keeper climbed the spiral stairs."));
  assert_non_null (strstr (text, "Ships passing the northern reef relied on his lamp."));
  assert_null (strstr (text, "zqx"));
  assert_int_equal (notes.n_hidden, 2 * strlen ("zqxinvisible") + 2 * strlen ("zqxcovered"));
}

/* A picture drawn over junk words hides them; a label drawn on a figure
 * stays, and so does a scanned page's recognised text, drawn transparent
 * on the picture of its own letters. */
static void
test_pdf_text_under_a_picture_is_left_out (void **state)
{
  g_autofree char *path = g_build_filename (*state, "pictures.pdf", NULL);
  cairo_surface_t *surface = cairo_pdf_surface_create (path, 500, 500);
  cairo_t *cr = cairo_create (surface);
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *desc = pango_font_description_from_string ("Sans 12");
  cairo_surface_t *picture = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 400, 30);
  cairo_surface_t *scan = cairo_image_surface_create (CAIRO_FORMAT_RGB24, 400, 30);
  g_autoptr(GError) error = NULL;
  SimDocumentNotes notes = { 0 };
  g_autofree char *text = NULL;

  pango_layout_set_font_description (layout, desc);
  /* A plain picture: a blue band with a darker stripe. */
  {
    cairo_t *p = cairo_create (picture);

    cairo_set_source_rgb (p, 0.55, 0.7, 0.9);
    cairo_paint (p);
    cairo_set_source_rgb (p, 0.3, 0.45, 0.7);
    cairo_rectangle (p, 0, 12, 400, 4);
    cairo_fill (p);
    cairo_destroy (p);
  }
  /* A scan: black letters on white, as the page's recognised text reads. */
  {
    cairo_t *p = cairo_create (scan);
    PangoLayout *l = pango_cairo_create_layout (p);

    cairo_set_source_rgb (p, 1, 1, 1);
    cairo_paint (p);
    cairo_set_source_rgb (p, 0, 0, 0);
    pango_layout_set_font_description (l, desc);
    pango_layout_set_text (l, "Scanned keeper words", -1);
    cairo_move_to (p, 0, 2);
    pango_cairo_show_layout (p, l);
    g_object_unref (l);
    cairo_destroy (p);
  }
  cairo_set_source_rgb (cr, 0, 0, 0);
  pango_layout_set_text (layout, ESSAY_1, -1);
  pango_layout_set_width (layout, 460 * PANGO_SCALE);
  cairo_move_to (cr, 20, 20);
  pango_cairo_show_layout (cr, layout);
  /* Junk words, then a picture over them. */
  pango_layout_set_text (layout, "zqxunder zqxunder", -1);
  cairo_move_to (cr, 40, 102);
  pango_cairo_show_layout (cr, layout);
  cairo_set_source_surface (cr, picture, 20, 100);
  cairo_paint (cr);
  /* A figure, then its label on it. */
  cairo_set_source_surface (cr, picture, 20, 200);
  cairo_paint (cr);
  cairo_set_source_rgb (cr, 0, 0, 0);
  pango_layout_set_text (layout, "Label on the figure", -1);
  cairo_move_to (cr, 40, 202);
  pango_cairo_show_layout (cr, layout);
  /* A scanned line, and its recognised text transparent on it. */
  cairo_set_source_surface (cr, scan, 40, 300);
  cairo_paint (cr);
  cairo_set_source_rgba (cr, 0, 0, 0, 0.004);  /* cairo leaves out text of alpha 0 */
  pango_layout_set_text (layout, "Scanned keeper words", -1);
  cairo_move_to (cr, 40, 302);
  pango_cairo_show_layout (cr, layout);
  cairo_show_page (cr);
  pango_font_description_free (desc);
  g_object_unref (layout);
  cairo_destroy (cr);
  cairo_surface_destroy (picture);
  cairo_surface_destroy (scan);
  cairo_surface_finish (surface);
  cairo_surface_destroy (surface);

  text = sim_document_load (path, NULL, NULL, &notes, &error);
  g_assert_no_error (error);
  assert_non_null (strstr (text, "lighthouse keeper"));
  assert_non_null (strstr (text, "Label on the figure"));
  assert_non_null (strstr (text, "Scanned keeper words"));
  assert_null (strstr (text, "zqx"));
  assert_int_equal (notes.n_hidden, 2 * strlen ("zqxunder"));
}

/* Inputs built to take the machine are refused or read within bounds: an
 * entity expanded 50,000 times, a DOCX whose text passes the limit, pages
 * nested past any parser's depth (their text is read whole). */
static void
test_hostile_documents_stay_bounded (void **state)
{
  g_autoptr(GError) error = NULL;

  /* The billion laughs, small: refused for its document type. */
  {
    GString *xml = g_string_new ("<?xml version=\"1.0\"?><!DOCTYPE d [<!ENTITY a \"");
    g_autofree char *path = NULL, *body = NULL;

    for (guint i = 0; i < 50; i++)
      g_string_append (xml, "copied text ");
    g_string_append (xml, "\">]><w:document " W "><w:body><w:p><w:r><w:t>");
    for (guint i = 0; i < 50000; i++)
      g_string_append (xml, "&a;");
    g_string_append (xml, "</w:t></w:r></w:p></w:body></w:document>");
    body = g_string_free (xml, FALSE);
    path = docx_of (*state, "entities.docx", body);
    assert_null (sim_document_load (path, NULL, NULL, NULL, &error));
    assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_NOT_TEXT));
    assert_non_null (strstr (error->message, "document type"));
    g_clear_error (&error);
  }
  /* More text than the limit, in a zip a fraction of its size. */
  {
    GString *xml = g_string_new ("<?xml version=\"1.0\"?><w:document " W "><w:body>");
    g_autofree char *path = NULL, *body = NULL;

    while (xml->len < 2 * SIM_TEXT_MAX_TEXT_BYTES)
      g_string_append (xml, "<w:p><w:r><w:t>The lighthouse keeper climbed the spiral stairs again.</w:t></w:r></w:p>");
    g_string_append (xml, "</w:body></w:document>");
    body = g_string_free (xml, FALSE);
    path = docx_of (*state, "long.docx", body);
    assert_null (sim_document_load (path, NULL, NULL, NULL, &error));
    assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_INVALID_ARGUMENT));
    assert_non_null (strstr (error->message, "long.docx"));
    assert_non_null (strstr (error->message, "MB of text"));
    g_clear_error (&error);
  }
  /* 300 unclosed <font> tags, and 3,000 nested <div>s: all the text read. */
  {
    GString *html = g_string_new ("<html><body>");
    g_autofree char *path = NULL, *text = NULL;

    for (guint i = 0; i < 300; i++)
      g_string_append (html, "<font face=\"Arial\">");
    g_string_append (html, ESSAY_1 " ");
    for (guint i = 0; i < 3000; i++)
      g_string_append (html, "<div>");
    g_string_append (html, ESSAY_2);
    for (guint i = 0; i < 3000; i++)
      g_string_append (html, "</div>");
    g_string_append (html, "<p>" ESSAY_3 "</p></body></html>");
    path = sim_test_write_file (*state, "deep.html", html->str, html->len);
    g_string_free (html, TRUE);
    text = sim_document_load (path, NULL, NULL, NULL, &error);
    assert_non_null (text);
    assert_non_null (strstr (text, ESSAY_1));
    assert_non_null (strstr (text, ESSAY_2));
    assert_non_null (strstr (text, ESSAY_3));
  }
}

/* One essay found alike in every format: similarity within 3 points of the
 * plain text's, and nothing of the markup flagged. */
static void
test_every_format_checks_like_the_text (void **state)
{
  const char *dir = *state;
  g_autofree char *docs = g_build_filename (dir, "docs", NULL);
  g_autofree char *store = g_build_filename (dir, "store.db", NULL);
  g_autoptr(SimCorpus) corpus = NULL;
  g_autoptr(SimCorpusSnapshot) snapshot = NULL;
  g_autoptr(SimImportResult) result = NULL;
  const char *paths[] = { docs, NULL };
  const char *own = "My own opening lines say that I grew up far from the sea, in a town of farms and mills.";
  g_autofree char *plain = g_strdup_printf ("%s\n\n%s %s\n\n%s\n", own, ESSAY_1, ESSAY_2, ESSAY_3);
  g_autofree char *html = g_strdup_printf ("<html><body><nav>Site menu</nav><p>%s</p><p>%s %s</p><p>%s</p>"
                                           "<script>var tracking = 'abc';</script></body></html>",
                                           own, ESSAY_1, ESSAY_2, ESSAY_3);
  g_autofree char *md = g_strdup_printf ("## %s\n\n**%s** %s\n\n- %s\n", own, ESSAY_1, ESSAY_2, ESSAY_3);
  g_autofree char *docx_xml = g_strdup_printf ("<?xml version=\"1.0\"?><w:document " W "><w:body>"
                                               "<w:p><w:r><w:t>%s</w:t></w:r></w:p>"
                                               "<w:p><w:r><w:t xml:space=\"preserve\">%s </w:t></w:r><w:r><w:t>%s</w:t></w:r></w:p>"
                                               "<w:p><w:r><w:t>%s</w:t></w:r></w:p></w:body></w:document>",
                                               own, ESSAY_1, ESSAY_2, ESSAY_3);
  const char *docx_members[] = { "word/document.xml", docx_xml, NULL };
  char *files[6] = {
    sim_test_write_file (dir, "essay.txt", plain, -1),
    sim_test_write_file (dir, "essay.html", html, -1),
    sim_test_write_file (dir, "essay.md", md, -1),
    make_zip (dir, "essay.docx", docx_members, 0),
    make_pdf (dir, "essay.pdf", plain, TRUE, FALSE),
    NULL,
  };
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  double base = -1;

  g_free (sim_test_write_file (docs, "source.txt",
                               "The Keeper\n\n" ESSAY_1 " " ESSAY_2 " " ESSAY_3 "\n\nAn unrelated closing remark.\n", -1));
  corpus = sim_corpus_open (store, FALSE, NULL);
  result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL);
  assert_int_equal (result->n_added, 1);
  snapshot = sim_corpus_ref_snapshot (corpus);
  for (guint i = 0; files[i]; i++)
    {
      g_autoptr(GError) error = NULL;
      gsize len = 0;
      g_autofree char *text = sim_document_load (files[i], NULL, &len, NULL, &error);
      g_autoptr(SimReport) report = NULL;

      assert_non_null (text);
      report = sim_check_run (snapshot, text, len, &options, NULL, NULL, NULL, &error);
      assert_non_null (report);
      assert_true (sim_report_get_n_passages (report) >= 1);
      if (base < 0)
        {
          base = sim_report_get_similarity (report);
          assert_true (base > 0.5 && base < 0.95);
        }
      else if (fabs (sim_report_get_similarity (report) - base) > 0.03)
        fail_msg ("%s: similarity %.3f, the text's %.3f", files[i], sim_report_get_similarity (report), base);
      for (guint p = 0; p < sim_report_get_n_passages (report); p++)
        {
          const SimPassage *passage = sim_report_get_passage (report, p);
          g_autofree char *span = sim_report_dup_text (report, passage->start, passage->end);

          assert_null (strstr (span, "tracking"));
          assert_null (strstr (span, "menu"));
        }
    }
  for (guint i = 0; files[i]; i++)
    g_free (files[i]);
}

/* The same essay saved by LibreOffice as text, DOCX, ODT, PDF and XHTML,
 * and by pandoc as Markdown (tests/data/office/README.md): each checks
 * within 3 points of the text, its footnote and table are read, its
 * references are found, its quotation marked where the format marks it, and
 * nothing of the office suite's metadata is in the text. */
static void
test_office_suite_documents_check_like_the_text (void **state)
{
  static const struct { const char *file; SimFormat format; gboolean quote, note; } versions[] = {
    { "essay.txt", SIM_FORMAT_TEXT, FALSE, FALSE }, /* first: the others are measured against it */
    { "essay.docx", SIM_FORMAT_DOCX, TRUE, TRUE },
    { "essay.odt", SIM_FORMAT_ODT, TRUE, TRUE },
    { "essay.pdf", SIM_FORMAT_PDF, FALSE, TRUE },
    { "essay.html", SIM_FORMAT_HTML, FALSE, TRUE },
    { "essay.md", SIM_FORMAT_MARKDOWN, FALSE, TRUE },
  };
  const char *data = g_getenv ("SIMHOUND_TEST_DATA");
  g_autofree char *office = NULL;
  g_autofree char *docs = g_build_filename (*state, "docs", NULL);
  g_autofree char *store = g_build_filename (*state, "store.db", NULL);
  g_autofree char *source = NULL;
  g_autofree char *copy = NULL;
  g_autoptr(SimCorpus) corpus = NULL;
  g_autoptr(SimCorpusSnapshot) snapshot = NULL;
  g_autoptr(SimImportResult) result = NULL;
  const char *paths[] = { docs, NULL };
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  double base = -1;

  if (data == NULL)
    fail_msg ("SIMHOUND_TEST_DATA is not set: run the tests through meson");
  office = g_build_filename (data, "office", NULL);
  source = g_build_filename (office, "source.txt", NULL);
  copy = g_build_filename (docs, "source.txt", NULL);
  assert_int_equal (g_mkdir_with_parents (docs, 0700), 0);
  {
    g_autofree char *contents = NULL;
    gsize len = 0;

    assert_true (g_file_get_contents (source, &contents, &len, NULL));
    assert_true (g_file_set_contents (copy, contents, len, NULL));
  }
  corpus = sim_corpus_open (store, FALSE, NULL);
  result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL);
  assert_int_equal (result->n_added, 1);
  snapshot = sim_corpus_ref_snapshot (corpus);
  for (guint i = 0; i < G_N_ELEMENTS (versions); i++)
    {
      g_autofree char *path = g_build_filename (office, versions[i].file, NULL);
      g_autoptr(GError) error = NULL;
      SimFormat format = SIM_FORMAT_TEXT;
      gsize len = 0;
      g_autofree char *text = sim_document_load (path, &format, &len, NULL, &error);
      g_autoptr(SimReport) report = NULL;
      g_autoptr(SimReportView) view = NULL;
      const SimRatios *ratios;
      double similarity;

      if (text == NULL)
        fail_msg ("%s: %s", versions[i].file, error->message);
      assert_int_equal (format, versions[i].format);
      assert_non_null (strstr (text, "Lamp lit by hand"));
      assert_null (strstr (text, "LibreOffice"));
      assert_null (strstr (text, "no title specified"));
      assert_null (strstr (text, "|"));
      if (versions[i].note && strstr (text, "On charts since 1881.") == NULL)
        fail_msg ("%s: the footnote is missing", versions[i].file);
      report = sim_check_run (snapshot, text, len, &options, NULL, NULL, NULL, &error);
      assert_non_null (report);
      view = sim_report_view_new (report, NULL);
      similarity = sim_report_view_get_similarity (view);
      ratios = sim_report_view_get_ratios (view);
      if (base < 0)
        {
          base = similarity;
          assert_true (base > 0.6 && base < 0.95);
        }
      else if (fabs (similarity - base) > 0.03)
        fail_msg ("%s: similarity %.3f, the text's %.3f", versions[i].file, similarity, base);
      /* The references are copied too: leaving them out lowers the figure. */
      if (!(ratios->excluding_references < ratios->total - 0.1))
        fail_msg ("%s: references not found (%.3f of %.3f)", versions[i].file,
                  ratios->excluding_references, ratios->total);
      if (versions[i].quote != (ratios->excluding_quotes < ratios->total - 0.05))
        fail_msg ("%s: the block quotation %s", versions[i].file,
                  versions[i].quote ? "is not marked" : "is marked where the format does not mark it");
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown (test_docx_paragraphs_tables_footnotes_without_deletions, setup, teardown),
    cmocka_unit_test_setup_teardown (test_odt_paragraphs_without_changes_or_comments, setup, teardown),
    cmocka_unit_test_setup_teardown (test_html_visible_text_only, setup, teardown),
    cmocka_unit_test_setup_teardown (test_block_quotations_are_read_as_quotes, setup, teardown),
    cmocka_unit_test_setup_teardown (test_html_recognised_by_content_and_utf8_without_charset, setup, teardown),
    cmocka_unit_test_setup_teardown (test_markdown_markup_dropped, setup, teardown),
    cmocka_unit_test_setup_teardown (test_markdown_large_and_hostile, setup, teardown),
    cmocka_unit_test_setup_teardown (test_markdown_notes_tables_and_definitions, setup, teardown),
    cmocka_unit_test_setup_teardown (test_pdf_reading_order_without_running_headers, setup, teardown),
    cmocka_unit_test_setup_teardown (test_refused_files_say_why, setup, teardown),
    cmocka_unit_test_setup_teardown (test_docx_hidden_text_is_left_out, setup, teardown),
    cmocka_unit_test_setup_teardown (test_odt_hidden_text_is_left_out, setup, teardown),
    cmocka_unit_test_setup_teardown (test_pdf_hidden_text_is_left_out, setup, teardown),
    cmocka_unit_test_setup_teardown (test_pdf_invisible_and_covered_text_is_left_out, setup, teardown),
    cmocka_unit_test_setup_teardown (test_pdf_text_under_a_picture_is_left_out, setup, teardown),
    cmocka_unit_test_setup_teardown (test_hostile_documents_stay_bounded, setup, teardown),
    cmocka_unit_test_setup_teardown (test_every_format_checks_like_the_text, setup, teardown),
    cmocka_unit_test_setup_teardown (test_office_suite_documents_check_like_the_text, setup, teardown),
  };

  return cmocka_run_group_tests_name ("document", tests, NULL, NULL);
}
