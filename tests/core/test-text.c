/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Text in: decoding bad input, and normalisation with its map back to the
 * user's own text.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>

#include "sim-error.h"
#include "sim-fold-char.h"
#include "sim-text.h"
#include "sim-test-util.h"

static char *
units_to_string (const SimUnits *units)
{
  GString *s = g_string_new (NULL);

  for (gsize i = 0; i < units->n; i++)
    g_string_append_unichar (s, units->cps[i]);
  return g_string_free (s, FALSE);
}

static char *
normalize (const char        *text,
           SimNormalizeFlags  flags,
           SimUnits          *units)
{
  sim_units_init (units);
  sim_text_normalize (text, -1, 0, flags, units);
  return units_to_string (units);
}

static void
test_normalize_folds_width_case_and_marks (void **state)
{
  SimUnits units;
  g_autofree char *s = normalize ("Ｈéllo，ＷＯＲＬＤ！ Cafe\xcc\x81", SIM_NORMALIZE_DEFAULT, &units);

  assert_string_equal (s, "helloworldcafe");
  /* é (one code point) is unit 1 and maps back to code point 1 alone. */
  assert_int_equal (units.src_start[1], 1);
  assert_int_equal (sim_units_get_end (&units, 1), 2);
  /* The combining accent belongs to the span of the final e. */
  assert_int_equal (units.src_start[13], 16);
  assert_int_equal (sim_units_get_end (&units, 13), 18);
  assert_true (units.flags[0] & SIM_UNIT_WORD_START);
  assert_false (units.flags[1] & SIM_UNIT_WORD_START);
  assert_true (units.flags[5] & SIM_UNIT_WORD_START); /* W after the full-width comma */
  sim_units_clear (&units);
}

static void
test_normalize_maps_every_unit_to_its_source (void **state)
{
  const char *text = "第一章 「發佈會」\tThe ﬁle's size: ３．５MB — ok?\n\n最后一行。";
  g_autofree gunichar *cps = g_utf8_to_ucs4_fast (text, -1, NULL);
  const glong n_cps = g_utf8_strlen (text, -1);
  SimUnits units;
  g_autofree char *s = normalize (text, SIM_NORMALIZE_FOLD_T2S, &units);

  assert_string_equal (s, "第一章发布会thefilessize35mbok最后一行");
  for (gsize i = 0; i < units.n; i++)
    {
      char buf[8] = { 0 };
      g_autofree char *folded = NULL;
      g_autofree char *expected = NULL;
      SimUnits one;

      assert_true (units.src_start[i] < sim_units_get_end (&units, i));
      assert_true (sim_units_get_end (&units, i) <= (guint32) n_cps);
      if (i > 0)
        assert_true (units.src_start[i] >= units.src_start[i - 1]);
      /* Normalising the source character alone yields this unit among its units. */
      g_unichar_to_utf8 (cps[units.src_start[i]], buf);
      folded = normalize (buf, SIM_NORMALIZE_FOLD_T2S, &one);
      expected = g_ucs4_to_utf8 (&units.cps[i], 1, NULL, NULL, NULL);
      assert_non_null (strstr (folded, expected));
      sim_units_clear (&one);
    }
  sim_units_clear (&units);
}

static void
test_normalize_folds_traditional_chinese_only_when_asked (void **state)
{
  SimUnits units;
  g_autofree char *folded = normalize ("發佈會現場，軟體套件", SIM_NORMALIZE_FOLD_T2S, &units);
  g_autofree char *kept = NULL;

  assert_string_equal (folded, "发布会现场软体套件");
  assert_true (units.flags[0] & SIM_UNIT_CJK);
  sim_units_clear (&units);
  kept = normalize ("發佈會現場", SIM_NORMALIZE_DEFAULT, &units);
  assert_string_equal (kept, "發佈會現場");
  sim_units_clear (&units);
}

/* The table built into the program (gen-fold-table.c) answers for every
 * character of the BMP as sim_fold_char() does at run time, with the
 * traditional-to-simplified map and without: each character alone
 * becomes the letters its folds name, in order. */
static void
test_normalize_folds_every_character_as_the_table_was_made (void **state)
{
  const guint32 *t2s = sim_fold_t2s_map ();
  guint n_expanded = 0, n_simplified = 0;
  SimUnits units;

  for (guint fold_t2s = 0; fold_t2s < 2; fold_t2s++)
    for (gunichar c = 0x80; c < 0x10000; c++)
      {
        char buf[8] = { 0 };
        guint32 items[SIM_FOLD_MAX_EXPANSION];
        g_autoptr(GString) expected = g_string_new (NULL);
        g_autofree char *folded = NULL;
        guint n;

        if (c >= 0xd800 && c <= 0xdfff)
          continue;
        g_unichar_to_utf8 (c, buf);
        n = sim_fold_char (c, fold_t2s ? t2s : NULL, items);
        for (guint k = 0; k < n; k++)
          if (SIM_FOLD_CLASS (items[k]) == SIM_FOLD_WORD || SIM_FOLD_CLASS (items[k]) == SIM_FOLD_CJK)
            g_string_append_unichar (expected, items[k] & SIM_FOLD_CP_MASK);
        n_expanded += n > 1;
        n_simplified += fold_t2s && t2s[c] != 0;
        folded = normalize (buf, fold_t2s ? SIM_NORMALIZE_FOLD_T2S : SIM_NORMALIZE_DEFAULT, &units);
        if (!g_str_equal (folded, expected->str))
          fail_msg ("U+%04X (t2s %u): the table gives \"%s\", sim_fold_char() \"%s\"", c, fold_t2s, folded,
                    expected->str);
        sim_units_clear (&units);
      }
  /* Ligatures, fractions, squared words; traditional characters. */
  assert_true (n_expanded > 1000);
  assert_true (n_simplified > 2000);
}

static void
test_normalize_drops_invisible_characters (void **state)
{
  SimUnits units;
  g_autofree char *s = normalize ("in\xe2\x80\x8bvis\xc2\xad" "ible\xef\xbb\xbf co-op", SIM_NORMALIZE_DEFAULT, &units);

  assert_string_equal (s, "invisiblecoop");
  /* Zero-width space and soft hyphen do not split the word; the hyphen does. */
  assert_true (units.flags[0] & SIM_UNIT_WORD_START);
  assert_false (units.flags[2] & SIM_UNIT_WORD_START);
  assert_true (units.flags[9] & SIM_UNIT_WORD_START);
  assert_true (units.flags[11] & SIM_UNIT_WORD_START);
  sim_units_clear (&units);
}

static void
test_normalize_offsets_start_where_asked (void **state)
{
  SimUnits units;

  sim_units_init (&units);
  assert_int_equal (sim_text_normalize ("ab cd", -1, 100, SIM_NORMALIZE_DEFAULT, &units), 5);
  assert_int_equal (units.n, 4);
  assert_int_equal (units.src_start[2], 103);
  assert_int_equal (sim_units_find (&units, 102), 2);
  assert_int_equal (sim_units_find (&units, 1000), 4);
  sim_units_clear (&units);
}

static void
test_decode_refuses_binary (void **state)
{
  static const char data[] = "PNG\x89\x00\x01\x02 header";
  g_autoptr(GError) error = NULL;
  g_autofree char *text = sim_text_decode (data, sizeof data - 1, "image.png", NULL, NULL, NULL, &error);

  assert_null (text);
  assert_true (g_error_matches (error, SIM_ERROR, SIM_ERROR_NOT_TEXT));
  assert_non_null (strstr (error->message, "image.png"));
}

static void
test_decode_repairs_broken_utf8 (void **state)
{
  static const char data[] = "caf\xc3\xa9 \xff\xfe ok \xe4\xb8";
  g_autoptr(GError) error = NULL;
  guint n_repaired = 0;
  gsize len = 0;
  g_autofree char *text = sim_text_decode (data, sizeof data - 1, "x", &len, &n_repaired, NULL, &error);

  assert_null (error);
  assert_non_null (text);
  assert_true (g_utf8_validate (text, len, NULL));
  assert_int_equal (n_repaired, 4);
  assert_true (g_str_has_prefix (text, "café \xef\xbf\xbd\xef\xbf\xbd ok "));
}

static void
test_decode_converts_utf16_and_gb18030 (void **state)
{
  static const char utf16[] = "\xff\xfeh\0i\0 \0" "-N" "\x87" "e"; /* "hi 中文" in UTF-16LE */
  const char *chinese = "中文测试：简体字和繁體字都要能读出来，这是一段较长的文本。";
  g_autofree char *gb = g_convert (chinese, -1, "GB18030", "UTF-8", NULL, NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *a = sim_text_decode (utf16, sizeof utf16 - 1, "u16", NULL, NULL, NULL, &error);
  g_autofree char *b = NULL;

  assert_null (error);
  assert_string_equal (a, "hi 中文");
  b = sim_text_decode (gb, strlen (gb), "gb", NULL, NULL, NULL, &error);
  assert_null (error);
  assert_string_equal (b, chinese);
}

static void
test_decode_replaces_stray_nuls_and_reads_utf16_without_bom (void **state)
{
  /* PAN's corpus has such files: a long text with a NUL or two. */
  static const char stray[] = "Good text\0 with a stray NUL\0 or two, in a text long enough to be a real "
                              "document, which a couple of bad bytes must not make binary.";
  /* "hello world, " four times, a U+0000, "ok", in UTF-16LE */
  static const char le[] = "h\0e\0l\0l\0o\0 \0w\0o\0r\0l\0d\0,\0 \0" "h\0e\0l\0l\0o\0 \0w\0o\0r\0l\0d\0,\0 \0"
                           "h\0e\0l\0l\0o\0 \0w\0o\0r\0l\0d\0,\0 \0" "h\0e\0l\0l\0o\0 \0w\0o\0r\0l\0d\0,\0 \0"
                           "\0\0o\0k\0";
  g_autoptr(GError) error = NULL;
  guint n_repaired = 0, n_nuls = 0;
  gsize len = 0;
  g_autofree char *a = sim_text_decode (stray, sizeof stray - 1, "pan.txt", &len, &n_repaired, &n_nuls, &error);
  g_autofree char *b = NULL;

  assert_null (error);
  /* NUL bytes are counted as such, not as invalid UTF-8. */
  assert_int_equal (n_repaired, 0);
  assert_int_equal (n_nuls, 2);
  assert_int_equal (len, sizeof stray - 1 + 2 * 2);
  assert_true (g_str_has_prefix (a, "Good text\xef\xbf\xbd with a stray NUL\xef\xbf\xbd or two, in"));
  b = sim_text_decode (le, sizeof le - 1, "u16", &len, &n_repaired, &n_nuls, &error);
  assert_null (error);
  assert_string_equal (b, "hello world, hello world, hello world, hello world, \xef\xbf\xbdok");
  assert_int_equal (n_nuls, 1);
}

static void
test_has_content (void **state)
{
  assert_false (sim_text_has_content ("", -1));
  assert_false (sim_text_has_content (" \n\t ,.。！—… ", -1));
  assert_true (sim_text_has_content (" 中 ", -1));
  assert_true (sim_text_has_content ("7", -1));
}

static void
test_load_file_reports_missing_file (void **state)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *text = sim_text_load_file ("/nonexistent/essay.txt", NULL, NULL, NULL, &error);

  assert_null (text);
  assert_true (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT));
  assert_non_null (strstr (error->message, "/nonexistent/essay.txt"));
}

/* The code-point index, and sim_text_byte_offset() without one, find
 * every offset as walking from the start does: ASCII runs (taken 64 bytes
 * at a time), CJK, and the two mixed across the index's steps, up to and
 * past the end. */
static void
test_text_index_finds_every_code_point (void **state)
{
  g_autoptr(GString) text = g_string_new (NULL);
  GRand *rand = g_rand_new_with_seed (7);

  (void) state;
  for (guint i = 0; i < 3000; i++)
    {
      const guint kind = g_rand_int_range (rand, 0, 4);

      if (kind == 0)
        g_string_append (text, "plain ascii words in a row ");
      else if (kind == 1)
        g_string_append (text, "街角那家茶馆");
      else if (kind == 2)
        g_string_append_unichar (text, 0x1F600);  /* four bytes */
      else
        g_string_append_c (text, (char) ('a' + i % 26));
    }
  for (gsize len = 0; len <= text->len; len += len < 300 ? 1 : 997)
    {
      SimTextIndex index;
      gsize at = 0;
      /* Whole characters only: @len cut back to a character boundary. */
      const char *cut = text->str + len;

      while (cut > text->str && (*cut & 0xc0) == 0x80)
        cut--;
      sim_text_index_init (&index, text->str, cut - text->str);
      assert_int_equal (index.n_chars, g_utf8_strlen (text->str, cut - text->str));
      for (const char *p = text->str; p < cut; p = g_utf8_next_char (p), at++)
        {
          assert_ptr_equal (sim_text_index_pointer (&index, at), p);
          assert_int_equal (sim_text_byte_offset (text->str, cut - text->str, at), p - text->str);
        }
      assert_ptr_equal (sim_text_index_pointer (&index, at), cut);
      assert_ptr_equal (sim_text_index_pointer (&index, at + 100), cut);
      assert_int_equal (sim_text_byte_offset (text->str, cut - text->str, at), cut - text->str);
      assert_int_equal (sim_text_byte_offset (text->str, cut - text->str, at + 100), cut - text->str);
      sim_text_index_clear (&index);
    }
  g_rand_free (rand);
}

/* The validator answers as g_utf8_validate_len() does: on valid text of
 * every length and on each of its bytes changed to every value (lead and
 * continuation bytes out of place, overlong forms, surrogates, code points
 * past U+10FFFF, NUL, cut sequences), at every offset within an ASCII run
 * and after it. */
static void
test_validate_answers_as_glib (void **state)
{
  static const char *const pieces[] = { "ascii run of words ", "茶馆", "é", "\xf0\x9f\x98\x80", "a" };
  g_autoptr(GString) text = g_string_new (NULL);
  GRand *rand = g_rand_new_with_seed (11);

  (void) state;
  for (guint i = 0; i < 60; i++)
    g_string_append (text, pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces))]);
  for (gsize len = 0; len <= text->len; len++)
    assert_int_equal (sim_text_validate (text->str, len), g_utf8_validate_len (text->str, len, NULL));
  for (gsize at = 0; at < MIN (text->len, 200); at++)
    for (guint v = 0; v < 256; v++)
      {
        g_autofree char *copy = g_memdup2 (text->str, text->len);

        copy[at] = (char) v;
        for (gsize len = at + 1; len <= MIN (text->len, at + 12); len++)
          assert_int_equal (sim_text_validate (copy, len), g_utf8_validate_len (copy, len, NULL));
        assert_int_equal (sim_text_validate (copy, text->len), g_utf8_validate_len (copy, text->len, NULL));
      }
  g_rand_free (rand);
}

/* Every pair of bytes, and every pair before two continuations, at every
 * place of a 16-byte block, at the start of a text, inside it and across
 * the end of its last whole block, and cut inside the sequence: the
 * validator answers as GLib does (the SSSE3 blocks, and the byte-at-a-time
 * check with SIMHOUND_NO_SSSE3 set). */
static void
test_validate_every_pair_of_bytes_at_every_offset (void **state)
{
  static const guint bases[] = { 0, 24, 56 };
  char buf[80];

  (void) state;
  for (guint k = 0; k < G_N_ELEMENTS (bases); k++)
    for (guint at = 0; at < 17 && bases[k] + at + 4 <= sizeof buf; at++)
      for (guint b1 = 1; b1 < 256; b1++)
        for (guint b2 = 1; b2 < 256; b2++)
          {
            const guint i = bases[k] + at;

            memset (buf, 'a', sizeof buf);
            buf[i] = (char) b1;
            buf[i + 1] = (char) b2;
            assert_int_equal (sim_text_validate (buf, sizeof buf), g_utf8_validate_len (buf, sizeof buf, NULL));
            buf[i + 2] = (char) 0x80;
            buf[i + 3] = (char) 0xbf;
            assert_int_equal (sim_text_validate (buf, sizeof buf), g_utf8_validate_len (buf, sizeof buf, NULL));
            for (guint cut = i + 1; cut <= i + 3; cut++)
              if (cut >= 64)
                assert_int_equal (sim_text_validate (buf, cut), g_utf8_validate_len (buf, cut, NULL));
          }
  /* A NUL in any place of a block. */
  for (guint at = 0; at < 80; at++)
    {
      memset (buf, 'a', sizeof buf);
      buf[at] = 0;
      assert_false (sim_text_validate (buf, sizeof buf));
    }
}

/* Cyrillic and Greek look-alikes written into English words: the text
 * normalises as the plain one does, and the disguise is counted. */
static void
test_normalize_folds_lookalike_letters (void **state)
{
  /* a, e, o, c, p replaced by Cyrillic а е о с р; "The" with a Greek capital Tau */
  const char *plain = "The committee proposed a complete review of the open procedure.";
  const char *disguised = "Τhe соmmittее рrороsеd а соmрlеtе review оf the ореn рrосеdurе.";
  SimUnits a, b;
  g_autofree char *sa = normalize (plain, SIM_NORMALIZE_DEFAULT, &a);
  g_autofree char *sb = normalize (disguised, SIM_NORMALIZE_DEFAULT, &b);
  SimDisguises found;

  assert_string_equal (sa, sb);
  sim_text_find_disguises (disguised, -1, &found);
  /* The lone "а" is folded but not counted: every other look-alike is. */
  assert_int_equal (found.n_lookalikes, 24);
  assert_int_equal (found.lookalike_start, 0);
  assert_int_equal (found.lookalike_end, g_utf8_strlen (disguised, -1) - 1);
  assert_int_equal (found.n_invisible, 0);
  sim_units_clear (&a);
  sim_units_clear (&b);
}

/* The look-alikes come from UTS #39's confusables (ICU's data at build
 * time), not a list of our own: an Armenian letter in a Latin word folds
 * too, and a capital that imitates I folds to i. */
static void
test_normalize_folds_lookalikes_of_other_scripts (void **state)
{
  SimUnits a, b;
  g_autofree char *sa = normalize ("Ideas of the committee", SIM_NORMALIZE_DEFAULT, &a);
  /* A Greek capital Iota for I, an Armenian o for o. */
  g_autofree char *sb = normalize ("\u0399deas \u0585f the c\u0585mmittee", SIM_NORMALIZE_DEFAULT, &b);

  assert_string_equal (sa, sb);
  sim_units_clear (&a);
  sim_units_clear (&b);
}

/* Real mixed text raises nothing and keeps its letters: a Russian name and
 * a Russian phrase in an English essay, a Greek formula, a Greek word,
 * Chinese with full-width Latin. */
static void
test_mixed_scripts_are_no_disguise (void **state)
{
  const char *texts[] = {
    "As Иван Петров wrote in his letter, the harvest was late.",
    "The sign read «Осторожно, окрашено» and nobody sat on the bench.",
    "The angle α satisfies sin α = ρ / r, where ρ is the density and Ω the domain.",
    "The Greek word λόγος means word, reason and account.",
    "我们使用ＧＰＵ和ＡＰＩ，速度提高了３倍。Ｅｍａｉｌ：ａ＠ｂ．ｃｏｍ",
    "Ferma­tion and co­oper­ation are hyphenated softly.",
  };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      SimDisguises found;

      sim_text_find_disguises (texts[i], -1, &found);
      assert_int_equal (found.n_lookalikes, 0);
      assert_int_equal (found.n_invisible, 0);
    }
  {
    SimUnits units;
    g_autofree char *s = normalize (texts[0], SIM_NORMALIZE_DEFAULT, &units);

    /* The name stays Cyrillic. */
    assert_non_null (strstr (s, "иван"));
    sim_units_clear (&units);
  }
}

/* Zero-width characters inside words are dropped (normalisation) and
 * counted (disguises); in CJK text too. */
static void
test_invisible_characters_inside_words_are_counted (void **state)
{
  const char *text = "co​py​​ing this 抄⁠袭 ​ ok";
  SimDisguises found;

  sim_text_find_disguises (text, -1, &found);
  assert_int_equal (found.n_invisible, 4);  /* the one between two spaces does not count */
  assert_int_equal (found.invisible_start, 2);
  assert_int_equal (found.invisible_end, 18);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_text_index_finds_every_code_point),
    cmocka_unit_test (test_validate_answers_as_glib),
    cmocka_unit_test (test_validate_every_pair_of_bytes_at_every_offset),
    cmocka_unit_test (test_normalize_folds_width_case_and_marks),
    cmocka_unit_test (test_normalize_maps_every_unit_to_its_source),
    cmocka_unit_test (test_normalize_folds_traditional_chinese_only_when_asked),
    cmocka_unit_test (test_normalize_folds_every_character_as_the_table_was_made),
    cmocka_unit_test (test_normalize_drops_invisible_characters),
    cmocka_unit_test (test_normalize_folds_lookalike_letters),
    cmocka_unit_test (test_normalize_folds_lookalikes_of_other_scripts),
    cmocka_unit_test (test_mixed_scripts_are_no_disguise),
    cmocka_unit_test (test_invisible_characters_inside_words_are_counted),
    cmocka_unit_test (test_normalize_offsets_start_where_asked),
    cmocka_unit_test (test_decode_refuses_binary),
    cmocka_unit_test (test_decode_replaces_stray_nuls_and_reads_utf16_without_bom),
    cmocka_unit_test (test_decode_repairs_broken_utf8),
    cmocka_unit_test (test_decode_converts_utf16_and_gb18030),
    cmocka_unit_test (test_has_content),
    cmocka_unit_test (test_load_file_reports_missing_file),
  };

  return cmocka_run_group_tests_name ("text", tests, NULL, NULL);
}
