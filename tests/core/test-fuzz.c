/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Deterministic mutation fuzzing of every input path, run on every commit
 * (and under AddressSanitizer/UBSan in CI): bytes of seed texts (UTF-8,
 * UTF-16 with and without a byte-order mark, GB18030, NULs, controls, CJK,
 * hard-wrapped lines, a repeated sentence) are flipped, inserted, cut and
 * duplicated, then decoded, normalised, segmented, fingerprinted, aligned
 * and compared; and bytes of a real store file, or of its index file
 * beside an intact store, are damaged before it is opened and checked
 * against. Nothing may crash; errors are fine.
 *
 * Every text is also crossed with another (sim-cross.h). Documents (DOCX,
 * ODT, PDF, HTML, Markdown) are damaged the same way and extracted: a
 * damaged file is an error, never a crash.
 *
 * SIMHOUND_FUZZ_ITERATIONS=N runs longer (default 400 texts and documents; an
 * eighth as many stores); SIMHOUND_FUZZ_SEED=S another sequence;
 * SIMHOUND_FUZZ_ONLY=store|documents only those.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <archive.h>
#include <archive_entry.h>
#include <cairo.h>
#include <cairo-pdf.h>

#include "sim-align.h"
#include "sim-check.h"
#include "sim-compare.h"
#include "sim-corpus.h"
#include "sim-cross.h"
#include "sim-document.h"
#include "sim-test-util.h"
#include "sim-words.h"

/* Seeds with their lengths: some hold NULs. */
#define SEED(text) { text, sizeof text - 1 }

static const struct {
  const char *data;
  gsize       len;
} seeds[] = {
  SEED ("The lighthouse keeper climbed the spiral stairs every evening before sunset.\n"
        "He trimmed the wick, polished the great lens\nand wrote the weather into a leather book."),
  SEED ("老城区的石板路在雨后显得格外明亮。街角那家茶館已經開了六十多年，每天清晨都有老人帶著鳥籠來喝茶。"),
  SEED ("\xff\xfeh\0i\0 \0-N\x87" "e"),
  SEED ("h\0e\0l\0l\0o\0 \0w\0o\0r\0l\0d\0 \0a\0g\0a\0i\0n\0"),
  SEED ("Stray\0NUL and \x1b[2J escapes, caf\xe9 in Latin-1, \xe4\xb8 cut UTF-8."),
  SEED ("Dr. Smith paid 3.50 dollars at example.com, e.g. for tea. 15.2. 构建您的第一个软件包\n- a bullet\n- another"),
  SEED ("The committee shall meet on the first Monday. The committee shall meet on the first Monday. "
        "The committee shall meet on the first Monday. The committee shall meet on the first Monday."),
  SEED ("e\xcc\x81\xcc\x81\xcc\x81\xcc\x81 \xef\xbc\xa1\xef\xbc\xa2 \xe2\x80\x8b\xe2\x80\x8b \xf0\x9f\x98\x80 Zalgo and width"),
};

static guint
iterations (guint fallback)
{
  const char *env = g_getenv ("SIMHOUND_FUZZ_ITERATIONS");

  return env != NULL ? (guint) atoi (env) : fallback;
}

static guint32
seed_value (void)
{
  const char *env = g_getenv ("SIMHOUND_FUZZ_SEED");

  return env != NULL ? (guint32) atoi (env) : 20261122;
}

/* A mutation of @data: a few random flips, insertions, cuts and copies. */
static GArray *
mutate (GRand      *rand,
        const char *data,
        gsize       len)
{
  GArray *out = g_array_new (FALSE, FALSE, 1);
  const guint n_ops = g_rand_int_range (rand, 1, 6);

  g_array_append_vals (out, data, len);
  for (guint op = 0; op < n_ops; op++)
    {
      const gsize at = out->len ? g_rand_int_range (rand, 0, out->len) : 0;
      const gsize span = g_rand_int_range (rand, 1, 64);  /* MIN() would draw twice */

      switch (g_rand_int_range (rand, 0, 5))
        {
        case 0: /* flip bits */
          if (out->len)
            out->data[at] ^= (char) g_rand_int_range (rand, 1, 256);
          break;
        case 1: /* insert a random byte, often a special one */
          {
            static const guint8 special[] = { 0, 0x0a, 0x0d, 0x1b, 0x80, 0xbf, 0xc0, 0xe4, 0xef, 0xf0, 0xfe, 0xff, '.', ' ' };
            const guint8 b = g_rand_boolean (rand) ? special[g_rand_int_range (rand, 0, G_N_ELEMENTS (special))]
                                                   : (guint8) g_rand_int_range (rand, 0, 256);

            g_array_insert_vals (out, at, &b, 1);
          }
          break;
        case 2: /* cut */
          if (out->len)
            g_array_remove_range (out, at, MIN (span / 4 + 1, out->len - at));
          break;
        case 3: /* duplicate a chunk */
          if (out->len)
            {
              const gsize n = MIN (span, out->len - at);
              g_autofree char *chunk = g_memdup2 (out->data + at, n);

              for (guint k = 0, times = g_rand_int_range (rand, 1, 20); k < times; k++)
                g_array_append_vals (out, chunk, n);
            }
          break;
        default: /* splice in another seed */
          {
            const guint k = g_rand_int_range (rand, 0, G_N_ELEMENTS (seeds));

            g_array_insert_vals (out, at, seeds[k].data, seeds[k].len);
          }
          break;
        }
    }
  return out;
}

static void
exercise_text (const char *text,
               gsize       len,
               const char *other,
               gsize       other_len)
{
  SimUnits units;
  g_autoptr(GArray) sentences = g_array_new (FALSE, FALSE, sizeof (SimSegment));
  g_autoptr(GArray) windows = g_array_new (FALSE, FALSE, sizeof (SimSegment));
  g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (SIM_NORMALIZE_FOLD_T2S);
  g_autoptr(GArray) anchors = g_array_new (FALSE, FALSE, sizeof (SimAnchor));
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  g_autoptr(SimReport) report = NULL;

  sim_units_init (&units);
  sim_text_normalize (text, len, 0, SIM_NORMALIZE_FOLD_T2S, &units);
  sim_segment_split (text, len, &units, SIM_SEGMENT_SENTENCE, 0, sentences);
  sim_segment_split (text, len, &units, SIM_SEGMENT_WINDOW, 7, windows);
  for (guint i = 0; i < sentences->len; i++)
    {
      const SimSegment *s = &g_array_index (sentences, SimSegment, i);

      assert_true (s->start < s->end && s->unit_start < s->unit_end && s->unit_end <= units.n);
    }
  sim_fingerprinter_load (fp, text, len);
  sim_fingerprinter_windows (fp, SIM_WINNOW_WEIGHT, anchors);
  /* Sentence keys, as a store makes them: each spans units of the text. */
  {
    const guint n_windows = anchors->len;

    sim_words_text_keys (text, len, &units, anchors);
    for (guint i = n_windows; i < anchors->len; i++)
      {
        const SimAnchor *a = &g_array_index (anchors, SimAnchor, i);

        assert_true (a->unit_start < a->unit_end && a->unit_end <= units.n);
      }
  }
  sim_units_clear (&units);
  {
    const char *texts[] = { text, other, text };
    const gsize lens[] = { len, other_len, len };
    const char *names[] = { "a", "b", "c" };
    g_autoptr(GArray) pairs = sim_cross_run (texts, lens, names, 3, NULL, &options, SIM_NORMALIZE_FOLD_T2S, NULL, NULL);

    assert_non_null (pairs);
  }
  report = sim_compare_run (text, len, "a", other, other_len, "b", &options, SIM_NORMALIZE_FOLD_T2S, NULL, NULL);
  if (report != NULL)
    for (guint i = 0; i < sim_report_get_n_passages (report); i++)
      {
        const SimPassage *p = sim_report_get_passage (report, i);

        assert_true (p->start < p->end && p->end <= sim_report_get_n_chars (report));
        g_free (sim_report_dup_text (report, p->start, p->end));
      }
}

static void
test_fuzz_decode_normalise_segment_align (void **state)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed_value ());
  const guint n = g_getenv ("SIMHOUND_FUZZ_ONLY") != NULL ? 0 : iterations (400);

  for (guint it = 0; it < n; it++)
    {
      const guint k = it % G_N_ELEMENTS (seeds), m = (it + 1) % G_N_ELEMENTS (seeds);
      g_autoptr(GArray) a = mutate (rand, seeds[k].data, seeds[k].len);
      g_autoptr(GArray) b = mutate (rand, seeds[m].data, seeds[m].len);
      g_autofree char *ta = NULL, *tb = NULL;
      gsize la = 0, lb = 0;

      ta = sim_text_decode (a->data, a->len, "a", &la, NULL, NULL, NULL);
      tb = sim_text_decode (b->data, b->len, "b", &lb, NULL, NULL, NULL);
      if (ta == NULL || tb == NULL)
        continue;
      assert_true (g_utf8_validate (ta, la, NULL));
      assert_null (memchr (ta, 0, la));
      exercise_text (ta, la, tb, lb);
    }
}

static void
test_fuzz_damaged_store_files (void **state)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed_value () + 1);
  g_autofree char *dir = sim_test_make_tmp_dir ();
  g_autofree char *docs = g_build_filename (dir, "docs", NULL);
  g_autofree char *store = g_build_filename (dir, "store.db", NULL);
  g_autofree char *copy = g_build_filename (dir, "copy.db", NULL);
  const char *paths[] = { docs, NULL };
  g_autofree char *index = g_strconcat (store, ".index", NULL);
  g_autofree char *copy_index = g_strconcat (copy, ".index", NULL);
  g_autofree char *bytes = NULL;
  g_autofree char *index_bytes = NULL;
  gsize n_bytes = 0, n_index = 0;
  const guint n = g_strcmp0 (g_getenv ("SIMHOUND_FUZZ_ONLY"), "documents") == 0 ? 0 : iterations (400) / 8 + 1;

  g_free (sim_test_write_file (docs, "a.txt", seeds[0].data, -1));
  g_free (sim_test_write_file (docs, "b.txt", seeds[1].data, -1));
  g_free (sim_test_write_file (docs, "c.txt", seeds[6].data, -1));
  {
    g_autoptr(SimCorpus) corpus = sim_corpus_open (store, FALSE, NULL);
    g_autoptr(SimImportResult) result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL);

    assert_non_null (result);
  }
  assert_true (g_file_get_contents (store, &bytes, &n_bytes, NULL));
  assert_true (g_file_get_contents (index, &index_bytes, &n_index, NULL));

  for (guint it = 0; it < n; it++)
    {
      /* Every other time the index file beside an intact store: its
       * header, document list, table, places and statistics. */
      const gboolean in_index = it % 2 == 1;
      const char *good = in_index ? index_bytes : bytes;
      const gsize n_good = in_index ? n_index : n_bytes;
      g_autofree char *damaged = g_memdup2 (good, n_good);
      g_autoptr(GError) error = NULL;
      g_autoptr(SimCorpus) corpus = NULL;
      const char *suffixes[] = { "-wal", "-shm", "-journal", ".index-delta" };
      const gsize from = in_index ? 0 : 100;

      /* A few bytes anywhere (past the SQLite header), or a cut file. */
      for (guint k = 0, flips = g_rand_int_range (rand, 1, 40); k < flips; k++)
        damaged[g_rand_int_range (rand, from, n_good)] ^= (char) g_rand_int_range (rand, 1, 256);
      for (guint s = 0; s < G_N_ELEMENTS (suffixes); s++)
        {
          g_autofree char *side = g_strconcat (copy, suffixes[s], NULL);

          g_unlink (side);
        }
      assert_true (g_file_set_contents (in_index ? copy_index : copy, damaged,
                                        g_rand_boolean (rand) ? n_good : g_rand_int_range (rand, from, n_good),
                                        NULL));
      if (in_index)
        assert_true (g_file_set_contents (copy, bytes, n_bytes, NULL));
      else
        g_unlink (copy_index);
      corpus = sim_corpus_open (copy, g_rand_boolean (rand), &error);
      if (corpus != NULL)
        {
          g_autoptr(SimCorpusSnapshot) snapshot = sim_corpus_ref_snapshot (corpus);
          SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
          g_autoptr(SimReport) report = NULL;
          g_autoptr(GError) check_error = NULL;

          report = sim_check_run (snapshot, seeds[it % 2].data, -1, &options, NULL, NULL, NULL, &check_error);
          g_clear_pointer (&report, sim_report_unref);
          g_clear_pointer (&snapshot, sim_corpus_snapshot_unref);
          g_ptr_array_unref (sim_corpus_list (corpus, NULL) ?: g_ptr_array_new ());
        }
      else
        assert_non_null (error);
      g_clear_pointer (&corpus, sim_corpus_free);
      /* Verify says what is damaged; a rebuild that succeeds leaves a store
       * that verify finds sound. */
      {
        g_autoptr(GError) repair_error = NULL;
        g_autoptr(SimRepairResult) found = sim_corpus_verify (copy, NULL);
        g_autoptr(SimRepairResult) repaired = sim_corpus_rebuild (copy, &repair_error);

        if (repaired != NULL)
          {
            g_autoptr(SimRepairResult) after = sim_corpus_verify (copy, &repair_error);

            assert_non_null (after);
            assert_int_equal (after->damaged->len, 0);
            if (after->index_damage != NULL)
              fail_msg ("after a rebuild: %s", after->index_damage);
          }
        else
          assert_non_null (repair_error);
      }
    }
  sim_test_remove_tree (dir);
}

/* A zip in memory of (name, content) pairs. */
static GBytes *
zip_bytes (const char *const *members)
{
  gsize size = 1 << 16, used = 0;
  char *buf = g_malloc (size);
  struct archive *a = archive_write_new ();

  archive_write_set_format_zip (a);
  archive_write_set_options (a, "zip:compression=deflate");
  assert_int_equal (archive_write_open_memory (a, buf, size, &used), ARCHIVE_OK);
  for (guint i = 0; members[i]; i += 2)
    {
      struct archive_entry *e = archive_entry_new ();

      archive_entry_set_pathname (e, members[i]);
      archive_entry_set_size (e, strlen (members[i + 1]));
      archive_entry_set_filetype (e, AE_IFREG);
      archive_entry_set_perm (e, 0644);
      archive_write_header (a, e);
      archive_write_data (a, members[i + 1], strlen (members[i + 1]));
      archive_entry_free (e);
    }
  archive_write_close (a);
  archive_write_free (a);
  return g_bytes_new_take (buf, used);
}

static cairo_status_t
append_bytes (void                *closure,
              const unsigned char *data,
              unsigned int         length)
{
  g_byte_array_append (closure, data, length);
  return CAIRO_STATUS_SUCCESS;
}

static GBytes *
pdf_bytes (void)
{
  GByteArray *out = g_byte_array_new ();
  cairo_surface_t *surface = cairo_pdf_surface_create_for_stream (append_bytes, out, 200, 200);
  cairo_t *cr = cairo_create (surface);

  for (int page = 0; page < 3; page++)
    {
      cairo_move_to (cr, 20, 20);
      cairo_show_text (cr, "Running header");
      cairo_move_to (cr, 20, 60);
      cairo_show_text (cr, "The lighthouse keeper climbed the");
      cairo_move_to (cr, 20, 80);
      cairo_show_text (cr, "spiral stairs every eve-");
      cairo_move_to (cr, 20, 100);
      cairo_show_text (cr, "ning before sunset.");
      cairo_move_to (cr, 100, 190);
      cairo_show_text (cr, page == 0 ? "1" : page == 1 ? "2" : "3");
      cairo_show_page (cr);
    }
  cairo_destroy (cr);
  cairo_surface_destroy (surface);
  return g_byte_array_free_to_bytes (out);
}

static void
test_fuzz_documents (void **state)
{
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed_value () + 2);
  const char *docx[] = {
    "word/document.xml",
    "<?xml version=\"1.0\"?><w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\">"
    "<w:body><w:p><w:r><w:t>The keeper</w:t></w:r><w:del><w:r><w:delText>gone</w:delText></w:r></w:del></w:p>"
    "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>街角那家茶馆</w:t><w:tab/><w:br/></w:r></w:p></w:tc></w:tr></w:tbl>"
    "</w:body></w:document>",
    "word/footnotes.xml",
    "<w:footnotes xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\">"
    "<w:footnote w:id=\"1\"><w:p><w:r><w:t>A note.</w:t></w:r></w:p></w:footnote></w:footnotes>",
    NULL
  };
  const char *odt[] = {
    "mimetype", "application/vnd.oasis.opendocument.text",
    "content.xml",
    "<office:document-content xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" "
    "xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\"><office:body><office:text>"
    "<text:h>Title</text:h><text:p>One<text:s text:c=\"3\"/>two<text:tab/><text:line-break/>three</text:p>"
    "</office:text></office:body></office:document-content>",
    NULL
  };
  static const char html[] =
    "<!DOCTYPE html><html><head><meta charset=\"gb2312\"><script>x()</script></head><body><nav>m</nav>"
    "<h1>T&amp;t</h1><p>One <b>two</b><br>three</p><pre>  kept  </pre><table><tr><td>a<td>b</table></body></html>";
  static const char markdown[] = "# Title\n\n**bold** _it_ [l](u) `c` ![i](p)\n> q\n- a\n1. b\n```\ncode\n```\n"
                                  "| a | b |\n|---|:-:|\n| 1 | ~~2~~ |\n\n- [x] t <div>h<script>s</script></div>\n"
                                  "n[^1] <https://x.org>\n\n[^1]: note\n";
  /* The hostile cases of issue 29: hidden runs, a shaded cell, entities
   * under a document type, hidden ODT styles, deep and unclosed HTML,
   * Markdown notes, link definitions and a wide table. */
  const char *docx_hidden[] = {
    "word/document.xml",
    "<?xml version=\"1.0\"?><w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\">"
    "<w:body><w:p><w:r><w:t xml:space=\"preserve\">The </w:t></w:r><w:r><w:rPr><w:vanish/></w:rPr><w:t>junk</w:t></w:r>"
    "<w:r><w:rPr><w:color w:val=\"FFFFFF\"/></w:rPr><w:t>white</w:t></w:r><w:r><w:rPr><w:sz w:val=\"2\"/></w:rPr>"
    "<w:t>tiny</w:t></w:r></w:p><w:tbl><w:tr><w:tc><w:tcPr><w:shd w:fill=\"1F3864\"/></w:tcPr><w:p><w:r><w:rPr>"
    "<w:color w:val=\"FFFFFF\"/></w:rPr><w:t>seen</w:t></w:r></w:p></w:tc></w:tr></w:tbl></w:body></w:document>",
    NULL
  };
  const char *docx_entities[] = {
    "word/document.xml",
    "<?xml version=\"1.0\"?><!DOCTYPE d [<!ENTITY a \"copied text \"><!ENTITY b \"&a;&a;&a;&a;\">]>"
    "<w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"><w:body><w:p><w:r>"
    "<w:t>&b;&b;&b;&b;&b;&b;</w:t></w:r></w:p></w:body></w:document>",
    NULL
  };
  const char *odt_hidden[] = {
    "content.xml",
    "<office:document-content xmlns:office=\"urn:oasis:names:tc:opendocument:xmlns:office:1.0\" "
    "xmlns:style=\"urn:oasis:names:tc:opendocument:xmlns:style:1.0\" "
    "xmlns:fo=\"urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0\" "
    "xmlns:text=\"urn:oasis:names:tc:opendocument:xmlns:text:1.0\"><office:automatic-styles>"
    "<style:style style:name=\"T1\"><style:text-properties text:display=\"none\"/></style:style>"
    "<style:style style:name=\"T2\"><style:text-properties fo:font-size=\"1pt\"/></style:style>"
    "</office:automatic-styles><office:body><office:text><text:p>One <text:span text:style-name=\"T1\">x</text:span>"
    "<text:span text:style-name=\"T2\">y</text:span></text:p><text:p><text:hidden-paragraph/>gone</text:p>"
    "</office:text></office:body></office:document-content>",
    NULL
  };
  g_autoptr(GString) deep_html = g_string_new ("<html><body>");
  g_autoptr(GString) wide_md = g_string_new ("[home]: https://x.org\n\nText[^n] and more.\n\n|");
  g_autoptr(GBytes) seeds_docx = zip_bytes (docx);
  g_autoptr(GBytes) seeds_docx_hidden = zip_bytes (docx_hidden);
  g_autoptr(GBytes) seeds_docx_entities = zip_bytes (docx_entities);
  g_autoptr(GBytes) seeds_odt = zip_bytes (odt);
  g_autoptr(GBytes) seeds_odt_hidden = zip_bytes (odt_hidden);
  g_autoptr(GBytes) seeds_pdf = pdf_bytes ();
  g_autoptr(GBytes) seeds_html = g_bytes_new_static (html, sizeof html - 1);
  g_autoptr(GBytes) seeds_deep_html = NULL;
  g_autoptr(GBytes) seeds_md = g_bytes_new_static (markdown, sizeof markdown - 1);
  g_autoptr(GBytes) seeds_wide_md = NULL;

  for (guint i = 0; i < 300; i++)
    g_string_append (deep_html, i % 2 ? "<font face=\"Arial\">" : "<div><span>");
  g_string_append (deep_html, "The keeper climbed the stairs.</body></html>");
  seeds_deep_html = g_bytes_new (deep_html->str, deep_html->len);
  for (guint i = 0; i < 300; i++)
    g_string_append (wide_md, " c |");
  g_string_append (wide_md, "\n|");
  for (guint i = 0; i < 300; i++)
    g_string_append (wide_md, "---|");
  g_string_append (wide_md, "\n\n[^n]: The note.\n");
  seeds_wide_md = g_bytes_new (wide_md->str, wide_md->len);
  GBytes *docs[] = { seeds_docx, seeds_odt, seeds_pdf, seeds_html, seeds_md,
                     seeds_docx_hidden, seeds_docx_entities, seeds_odt_hidden, seeds_deep_html, seeds_wide_md };
  const char *names[] = { "a.docx", "a.odt", "a.pdf", "a.html", "a.md",
                          "hidden.docx", "entities.docx", "hidden.odt", "deep.html", "wide.md" };
  const guint n = g_getenv ("SIMHOUND_FUZZ_ONLY") && g_strcmp0 (g_getenv ("SIMHOUND_FUZZ_ONLY"), "documents") != 0
                    ? 0 : iterations (400);

  /* The seeds themselves are read (the entities refused). */
  for (guint k = 0; k < G_N_ELEMENTS (docs); k++)
    {
      gsize len = 0;
      const char *data = g_bytes_get_data (docs[k], &len);
      g_autoptr(GError) error = NULL;
      g_autofree char *text = sim_document_extract (data, len, names[k], NULL, NULL, NULL, &error);

      if ((text == NULL) != g_str_equal (names[k], "entities.docx"))
        fail_msg ("%s: %s", names[k], error ? error->message : "read");
    }
  for (guint it = 0; it < n; it++)
    {
      const guint k = it % G_N_ELEMENTS (docs);
      gsize len = 0;
      const char *data = g_bytes_get_data (docs[k], &len);
      g_autoptr(GArray) damaged = mutate (rand, data, len);
      g_autoptr(GError) error = NULL;
      gsize text_len = 0;
      g_autofree char *text = sim_document_extract (damaged->data, damaged->len, names[k], NULL, &text_len, NULL, &error);

      if (text == NULL)
        assert_non_null (error);
      else
        {
          assert_true (g_utf8_validate (text, text_len, NULL));
          assert_null (memchr (text, 0, text_len));
        }
    }
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_fuzz_decode_normalise_segment_align),
    cmocka_unit_test (test_fuzz_damaged_store_files),
    cmocka_unit_test (test_fuzz_documents),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
