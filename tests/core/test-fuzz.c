/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Deterministic mutation fuzzing of every input path, run on every commit
 * (and under AddressSanitizer/UBSan in CI): bytes of seed texts (UTF-8,
 * UTF-16 with and without a byte-order mark, GB18030, NULs, controls, CJK,
 * hard-wrapped lines, a repeated sentence) are flipped, inserted, cut and
 * duplicated, then decoded, normalised, segmented, fingerprinted, aligned
 * and compared; and bytes of a real store file are damaged before it is
 * opened and checked against. Nothing may crash; errors are fine.
 *
 * SIMHOUND_FUZZ_ITERATIONS=N runs longer (default 400 texts; an eighth as many stores);
 * SIMHOUND_FUZZ_SEED=S another sequence; SIMHOUND_FUZZ_ONLY=store only the stores.
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

#include "sim-align.h"
#include "sim-check.h"
#include "sim-compare.h"
#include "sim-corpus.h"
#include "sim-test-util.h"

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
  sim_fingerprinter_windows (fp, TRUE, anchors);
  sim_units_clear (&units);
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
  const guint n = g_strcmp0 (g_getenv ("SIMHOUND_FUZZ_ONLY"), "store") == 0 ? 0 : iterations (400);

  for (guint it = 0; it < n; it++)
    {
      const guint k = it % G_N_ELEMENTS (seeds), m = (it + 1) % G_N_ELEMENTS (seeds);
      g_autoptr(GArray) a = mutate (rand, seeds[k].data, seeds[k].len);
      g_autoptr(GArray) b = mutate (rand, seeds[m].data, seeds[m].len);
      g_autofree char *ta = NULL, *tb = NULL;
      gsize la = 0, lb = 0;

      ta = sim_text_decode (a->data, a->len, "a", &la, NULL, NULL);
      tb = sim_text_decode (b->data, b->len, "b", &lb, NULL, NULL);
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
  g_autofree char *bytes = NULL;
  gsize n_bytes = 0;
  const guint n = iterations (400) / 8 + 1;

  g_free (sim_test_write_file (docs, "a.txt", seeds[0].data, -1));
  g_free (sim_test_write_file (docs, "b.txt", seeds[1].data, -1));
  g_free (sim_test_write_file (docs, "c.txt", seeds[6].data, -1));
  {
    g_autoptr(SimCorpus) corpus = sim_corpus_open (store, FALSE, NULL);
    g_autoptr(SimImportResult) result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL);

    assert_non_null (result);
  }
  assert_true (g_file_get_contents (store, &bytes, &n_bytes, NULL));

  for (guint it = 0; it < n; it++)
    {
      g_autofree char *damaged = g_memdup2 (bytes, n_bytes);
      g_autoptr(GError) error = NULL;
      g_autoptr(SimCorpus) corpus = NULL;
      const char *suffixes[] = { "-wal", "-shm", "-journal" };

      /* A few bytes anywhere past the header, or a cut file. */
      for (guint k = 0, flips = g_rand_int_range (rand, 1, 40); k < flips; k++)
        damaged[g_rand_int_range (rand, 100, n_bytes)] ^= (char) g_rand_int_range (rand, 1, 256);
      for (guint s = 0; s < G_N_ELEMENTS (suffixes); s++)
        {
          g_autofree char *side = g_strconcat (copy, suffixes[s], NULL);

          g_unlink (side);
        }
      assert_true (g_file_set_contents (copy, damaged,
                                        g_rand_boolean (rand) ? n_bytes : g_rand_int_range (rand, 100, n_bytes),
                                        NULL));
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
    }
  sim_test_remove_tree (dir);
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_fuzz_decode_normalise_segment_align),
    cmocka_unit_test (test_fuzz_damaged_store_files),
  };

  return cmocka_run_group_tests (tests, NULL, NULL);
}
