/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Features, SimHash and anchor windows. The golden vectors freeze what the
 * store persists: if one changes, SIM_FEATURE_VERSION must change with it.
 * `test-fingerprint --print-golden` prints the current values.
 */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include <glib.h>

#include "sim-fingerprint.h"

static const char *const golden_texts[] = {
  "The quick brown fox jumps over the lazy dog.",
  "天地玄黄，宇宙洪荒。日月盈昃，辰宿列张。",
  "Debian 软件包必须遵守 Debian 政策中编译的精确规则。",
};

/* SimHash of all features, number of winnowed windows, first window's SimHash. */
static const guint64 golden[][3] = {
  { G_GUINT64_CONSTANT (0x79b3d85619bc9270), 5, G_GUINT64_CONSTANT (0x7d334c5e2f9c5ac2) },
  { G_GUINT64_CONSTANT (0x8c56ba001f7237bd), 9, G_GUINT64_CONSTANT (0x8c52aa19935327be) },
  { G_GUINT64_CONSTANT (0x5749c4a693c01185), 11, G_GUINT64_CONSTANT (0x410d32fe71f51135) },
};

static guint64
text_simhash (SimFingerprinter *fp,
              const char       *text)
{
  const SimUnits *units = sim_fingerprinter_load (fp, text, -1);
  g_autofree guint64 *feats = g_new (guint64, units->n + 1);
  gsize n = sim_fingerprint_range_features (units, sim_fingerprinter_get_features (fp), 0, units->n, feats);

  return sim_fingerprint_simhash (feats, n, NULL);
}

static void
compute_golden (SimFingerprinter *fp,
                const char       *text,
                guint64           out[3])
{
  g_autoptr(GArray) windows = g_array_new (FALSE, FALSE, sizeof (SimAnchor));

  out[0] = text_simhash (fp, text);
  sim_fingerprinter_windows (fp, SIM_WINNOW_WEIGHT, windows);
  out[1] = windows->len;
  out[2] = windows->len ? g_array_index (windows, SimAnchor, 0).simhash : 0;
}

static void
test_golden_vectors (void **state)
{
  g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (SIM_NORMALIZE_FOLD_T2S);

  for (guint i = 0; i < G_N_ELEMENTS (golden_texts); i++)
    {
      guint64 got[3];

      compute_golden (fp, golden_texts[i], got);
      assert_int_equal (got[0], golden[i][0]);
      assert_int_equal (got[1], golden[i][1]);
      assert_int_equal (got[2], golden[i][2]);
    }
  assert_int_equal (sim_fingerprint_hash_shingle ((const guint32[]) { 0x4e2d, 0x6587 }, 2),
                    G_GUINT64_CONSTANT (0xaa532e229249749e));
}

static void
test_fingerprint_ignores_width_case_and_punctuation (void **state)
{
  g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (SIM_NORMALIZE_FOLD_T2S);
  const guint64 a = text_simhash (fp, "Hello, World! 你好世界。軟體");
  const guint64 b = text_simhash (fp, "ＨＥＬＬＯ　ｗｏｒｌｄ…你好，世界!!软体");

  assert_int_equal (a, b);
}

static void
test_simhash_of_near_duplicates_is_closer_than_of_strangers (void **state)
{
  static const char *const pairs[][2] = {
    { "The officers of the children of Israel did see that they were in evil case.",
      "The officers of the children of Israel did see that they were in an evil case." },
    { "如果没有指定输入文件，那么就会读取标准输入，并把结果写到标准输出。",
      "如果没有指定输入的文件，那么就会读取标准输入，并把结果写到标准输出。" },
    { "Shares of the company rose more than two percent in early trade on Monday.",
      "Shares of the company rose more than 2 percent in early trading on Monday." },
  };
  g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (SIM_NORMALIZE_DEFAULT);
  guint near = 0, far = 0;

  for (guint i = 0; i < G_N_ELEMENTS (pairs); i++)
    {
      const guint64 a = text_simhash (fp, pairs[i][0]);
      const guint64 b = text_simhash (fp, pairs[i][1]);
      const guint64 c = text_simhash (fp, pairs[(i + 1) % G_N_ELEMENTS (pairs)][0]);

      near += sim_fingerprint_distance (a, b);
      far += sim_fingerprint_distance (a, c);
    }
  assert_true (near * 2 < far);
  assert_true (far > 3 * 20); /* strangers differ in about half of the 64 bits */
}

/* The property the seeds lacked: a copied passage shares an anchor window
 * with its source wherever the copy starts and whatever surrounds it. */
static void
test_windows_found_wherever_the_copy_starts (void **state)
{
  const char *source_en = "And Pharaoh commanded the same day the taskmasters of the people, and their "
                          "officers, saying, Ye shall no more give the people straw to make brick.";
  const char *source_zh = "所有的服务仍然可以在相同的主机上，因为 Linux 在单一主机上支持多个 IP 地址。";
  const char *const sources[] = { source_en, source_zh };
  g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (SIM_NORMALIZE_DEFAULT);

  for (guint s = 0; s < G_N_ELEMENTS (sources); s++)
    {
      g_autoptr(GArray) anchors = g_array_new (FALSE, FALSE, sizeof (SimAnchor));
      const glong n = g_utf8_strlen (sources[s], -1);

      sim_fingerprinter_load (fp, sources[s], -1);
      sim_fingerprinter_windows (fp, SIM_WINNOW_WEIGHT, anchors);
      assert_true (anchors->len > 0);

      for (glong cut = 0; cut < 20; cut++)
        {
          const char *from = g_utf8_offset_to_pointer (sources[s], cut);
          const char *to = g_utf8_offset_to_pointer (sources[s], n - (cut % 7));
          g_autofree char *copy = g_strdup_printf ("Intro text by the writer %ld 一些自己的话 %.*s 结尾 the end",
                                                   cut, (int) (to - from), from);
          g_autoptr(GArray) windows = g_array_new (FALSE, FALSE, sizeof (SimAnchor));
          gboolean found = FALSE;

          sim_fingerprinter_load (fp, copy, -1);
          sim_fingerprinter_windows (fp, SIM_QUERY_WINNOW_WEIGHT, windows);
          for (guint i = 0; i < windows->len && !found; i++)
            for (guint j = 0; j < anchors->len && !found; j++)
              found = g_array_index (windows, SimAnchor, i).simhash ==
                      g_array_index (anchors, SimAnchor, j).simhash;
          assert_true (found);
        }
    }
}

/* An article looks up fewer windows than it has, and still every window the
 * store keeps of the text they share: random words around a shared stretch
 * differ on each side, and each stored window inside the stretch (with a
 * range of context on both ends) is among the article's lookups. */
static void
test_query_windows_hold_the_stored_ones (void **state)
{
  g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (SIM_NORMALIZE_DEFAULT);
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);
  guint checked = 0;

  for (guint round = 0; round < 40; round++)
    {
      const gboolean cjk = round % 2;
      g_autoptr(GString) shared = g_string_new (NULL);
      g_autoptr(GString) source = g_string_new (NULL);
      g_autoptr(GString) article = g_string_new (NULL);
      g_autoptr(GArray) stored = g_array_new (FALSE, FALSE, sizeof (SimAnchor));
      g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (SimAnchor));
      g_autoptr(GArray) queried = g_array_new (FALSE, FALSE, sizeof (SimAnchor));
      g_autoptr(GHashTable) asked = g_hash_table_new (g_int64_hash, g_int64_equal);
      GString *parts[] = { source, article };
      glong shared_from, shared_to;
      const SimUnits *units;

      for (guint w = 0; w < 200; w++)
        if (cjk)
          g_string_append_unichar (shared, 0x4e00 + g_rand_int_range (rand, 0, 3000));
        else
          g_string_append_printf (shared, "%c%x ", 'a' + g_rand_int_range (rand, 0, 26), g_rand_int (rand));
      for (guint p = 0; p < 2; p++)
        {
          for (guint w = 0; w < 30; w++)
            g_string_append_printf (parts[p], cjk ? "%c%x" : "%c%x ", 'a' + g_rand_int_range (rand, 0, 26), g_rand_int (rand));
          g_string_append (parts[p], shared->str);
          for (guint w = 0; w < 30; w++)
            g_string_append_printf (parts[p], " %c%x", 'a' + g_rand_int_range (rand, 0, 26), g_rand_int (rand));
        }

      units = sim_fingerprinter_load (fp, article->str, -1);
      sim_fingerprinter_windows (fp, 0, all);
      sim_fingerprinter_windows (fp, SIM_QUERY_WINNOW_WEIGHT, queried);
      (void) units;
      for (guint i = 0; i < queried->len; i++)
        g_hash_table_add (asked, &g_array_index (queried, SimAnchor, i).simhash);
      if (!cjk) /* a CJK unit weighs the whole range: every CJK window is looked up */
        assert_true (queried->len < all->len * 3 / 4);
      assert_true (queried->len <= all->len);

      units = sim_fingerprinter_load (fp, source->str, -1);
      sim_fingerprinter_windows (fp, SIM_WINNOW_WEIGHT, stored);
      shared_from = strstr (source->str, shared->str) - source->str;
      shared_to = shared_from + shared->len;
      for (guint i = 0; i < stored->len; i++)
        {
          const SimAnchor *a = &g_array_index (stored, SimAnchor, i);
          const guint32 from = units->src_start[a->unit_start];
          const guint32 to = sim_units_get_end (units, a->unit_end - 1);

          /* Offsets are in code points; the shared stretch in bytes. Leave
           * a range of context inside it at both ends. */
          if (g_utf8_offset_to_pointer (source->str, from) - source->str < shared_from + 40 ||
              g_utf8_offset_to_pointer (source->str, to) - source->str > shared_to - 40)
            continue;
          assert_true (g_hash_table_contains (asked, &a->simhash));
          checked++;
        }
    }
  assert_true (checked > 200);
}

/* The SimHash of the window ending at feature @p, by its definition: the
 * shortest run of features ending there that weighs SIM_WINDOW_WEIGHT,
 * summed unweighted. 0 when the text before @p weighs less. */
static guint64
window_by_definition (const SimUnits *units,
                      const guint64  *f,
                      gsize           p)
{
  guint64 feats[64];
  gsize n = 0;
  guint weight = 0;

  for (gsize i = p + 1; i-- > 0 && weight < SIM_WINDOW_WEIGHT;)
    if (f[i] != 0)
      {
        feats[n++] = f[i];
        weight += (units->flags[i] & SIM_UNIT_CJK) ? SIM_WEIGHT_CJK : SIM_WEIGHT_OTHER;
      }
  return weight < SIM_WINDOW_WEIGHT ? 0 : sim_fingerprint_simhash (feats, n, NULL);
}

/* Every window's SimHash is that of its features (the twin of the window
 * sums: 8-bit counters with AVX-512 or AVX2, 16-bit lanes without; the
 * suite runs again with SIMHOUND_NO_AVX512 set, and with SIMHOUND_NO_AVX2
 * too), in Latin, CJK and mixed text, all windows and winnowed. */
static void
test_window_simhash_is_the_simhash_of_its_features (void **state)
{
  g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (SIM_NORMALIZE_DEFAULT);
  g_autoptr(GRand) rand = g_rand_new_with_seed (11);

  for (guint round = 0; round < 3; round++)
    {
      g_autoptr(GString) text = g_string_new (NULL);
      const SimUnits *units;
      const guint64 *f;

      for (int i = 0; i < 3000; i++)
        {
          const gboolean cjk = round == 1 || (round == 2 && g_rand_int_range (rand, 0, 4) == 0);

          if (cjk)
            g_string_append_unichar (text, 0x4e00 + g_rand_int_range (rand, 0, 300));
          else
            g_string_append_c (text, g_rand_int_range (rand, 0, 6) == 0 ? ' ' : 'a' + g_rand_int_range (rand, 0, 8));
        }
      units = sim_fingerprinter_load (fp, text->str, -1);
      f = sim_fingerprinter_get_features (fp);
      for (guint winnow = 0; winnow <= SIM_WINNOW_WEIGHT; winnow += SIM_WINNOW_WEIGHT)
        {
          g_autoptr(GArray) windows = g_array_new (FALSE, FALSE, sizeof (SimAnchor));

          sim_fingerprinter_windows (fp, winnow, windows);
          assert_true (windows->len > 100);
          for (guint i = 0; i < windows->len; i++)
            {
              const SimAnchor *w = &g_array_index (windows, SimAnchor, i);

              assert_int_equal (w->simhash, window_by_definition (units, f, w->unit_end - 1));
            }
        }
    }
}

static void
test_winnowing_thins_windows (void **state)
{
  g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (SIM_NORMALIZE_DEFAULT);
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (SimAnchor));
  g_autoptr(GArray) winnowed = g_array_new (FALSE, FALSE, sizeof (SimAnchor));
  g_autoptr(GRand) rand = g_rand_new_with_seed (7);

  for (int i = 0; i < 2000; i++)
    g_string_append_unichar (text, 0x4e00 + g_rand_int_range (rand, 0, 3000));
  sim_fingerprinter_load (fp, text->str, -1);
  sim_fingerprinter_windows (fp, 0, all);
  sim_fingerprinter_windows (fp, SIM_WINNOW_WEIGHT, winnowed);
  assert_true (all->len > 1900);
  /* Expected density 2 / (w + 1) for a range of w windows. */
  assert_true (winnowed->len < all->len * 3 / 4);
  assert_true (winnowed->len > all->len / 4);
  for (guint i = 1; i < winnowed->len; i++)
    assert_true (g_array_index (winnowed, SimAnchor, i).unit_end >
                 g_array_index (winnowed, SimAnchor, i - 1).unit_end);
}

static void
test_weights_are_uniform_until_the_corpus_is_big_enough (void **state)
{
  guint32 *counts = g_new0 (guint32, SIM_DF_BUCKETS);
  const guint64 common = G_GUINT64_CONSTANT (0x0123456789abcdef);
  const guint64 rare = G_GUINT64_CONSTANT (0xfedcba9876543210);
  g_autoptr(SimWeights) small = sim_weights_new (NULL, 5);
  g_autoptr(SimWeights) big = NULL;

  counts[common >> 44] = 90;
  counts[rare >> 44] = 1;
  big = sim_weights_new (counts, 100);
  assert_true (sim_weights_get (small, common) == 1.0f);
  assert_true (sim_weights_is_active (big));
  assert_true (sim_weights_get (big, rare) > 3 * sim_weights_get (big, common));
  assert_true (sim_weights_get (big, common) >= 1.0f);
}

/* Winnowing's twin: the windows and their keys made the plain way, and
 * each window's range (those whose cumulative weight is within
 * @winnow_weight of its own) searched whole for its rightmost least key.
 * sim_fingerprinter_windows() keeps only the last range in a ring; on
 * long mixed text it keeps the same windows. */
static void
naive_winnow (const SimUnits *units,
              const guint64  *f,
              guint           winnow_weight,
              GArray         *out)   /* guint64 unit_start << 32 | unit_end */
{
  g_autoptr(GArray) keys = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) totals = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) spans = g_array_new (FALSE, FALSE, sizeof (guint64));
  gsize left = G_MAXSIZE;
  guint32 weight = 0, total = 0;
  guint64 sum = 0;
  gint64 last = -1;

#define W(i) ((units->flags[i] & SIM_UNIT_CJK) ? SIM_WEIGHT_CJK : SIM_WEIGHT_OTHER)
  for (gsize p = 0; p < units->n; p++)
    {
      if (f[p] == 0)
        continue;
      if (left == G_MAXSIZE)
        left = p;
      sum += f[p];
      weight += W (p);
      total += W (p);
      while (weight - W (left) >= SIM_WINDOW_WEIGHT)
        {
          sum -= f[left];
          weight -= W (left);
          for (left++; f[left] == 0; left++)
            ;
        }
      if (weight >= SIM_WINDOW_WEIGHT)
        {
          const guint64 key = sim_mix64 (sum ^ SIM_FINGERPRINT_SEED);
          const guint64 span = (guint64) (left + 1 - sim_fingerprint_shingle (units, left)) << 32 | (p + 1);

          g_array_append_val (keys, key);
          g_array_append_val (totals, total);
          g_array_append_val (spans, span);
        }
    }
#undef W
  for (guint i = 0; i < keys->len; i++)
    {
      gint64 best = -1;

      for (gint64 j = i; j >= 0 && g_array_index (totals, guint32, j) + winnow_weight > g_array_index (totals, guint32, i); j--)
        if (best < 0 || g_array_index (keys, guint64, j) < g_array_index (keys, guint64, best))
          best = j;
      if (best != last)
        {
          last = best;
          g_array_append_val (out, g_array_index (spans, guint64, best));
        }
    }
}

static void
test_winnowing_matches_its_twin (void **state)
{
  static const char *const pieces[] = {
    "the archive", " of the county", "，档案馆", "保存的日志", " lighthouse keepers", "、风和潮汐", " wrote every storm",
    " 1887", "。", ". ", "ship", "船", "\n\n",
  };
  g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (SIM_NORMALIZE_DEFAULT);
  g_autoptr(GRand) rand = g_rand_new_with_seed (29);
  const guint weights[] = { SIM_WINNOW_WEIGHT, SIM_QUERY_WINNOW_WEIGHT, 1, 40 };

  for (guint round = 0; round < 6; round++)
    {
      g_autoptr(GString) text = g_string_new (NULL);

      /* Long enough that the ring wraps thousands of times. */
      while (text->len < 20000)
        g_string_append (text, pieces[g_rand_int_range (rand, 0, G_N_ELEMENTS (pieces))]);
      for (guint w = 0; w < G_N_ELEMENTS (weights); w++)
        {
          g_autoptr(GArray) windows = g_array_new (FALSE, FALSE, sizeof (SimAnchor));
          g_autoptr(GArray) expected = g_array_new (FALSE, FALSE, sizeof (guint64));
          const SimUnits *units = sim_fingerprinter_load (fp, text->str, text->len);

          sim_fingerprinter_windows (fp, weights[w], windows);
          naive_winnow (units, sim_fingerprinter_get_features (fp), weights[w], expected);
          assert_true (expected->len > 100);
          assert_int_equal (windows->len, expected->len);
          for (guint i = 0; i < windows->len; i++)
            {
              const SimAnchor *a = &g_array_index (windows, SimAnchor, i);

              assert_int_equal ((guint64) a->unit_start << 32 | a->unit_end, g_array_index (expected, guint64, i));
            }
        }
    }
}

int
main (int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_golden_vectors),
    cmocka_unit_test (test_window_simhash_is_the_simhash_of_its_features),
    cmocka_unit_test (test_fingerprint_ignores_width_case_and_punctuation),
    cmocka_unit_test (test_simhash_of_near_duplicates_is_closer_than_of_strangers),
    cmocka_unit_test (test_windows_found_wherever_the_copy_starts),
    cmocka_unit_test (test_winnowing_thins_windows),
    cmocka_unit_test (test_winnowing_matches_its_twin),
    cmocka_unit_test (test_query_windows_hold_the_stored_ones),
    cmocka_unit_test (test_weights_are_uniform_until_the_corpus_is_big_enough),
  };

  if (argc > 1 && g_str_equal (argv[1], "--print-golden"))
    {
      g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (SIM_NORMALIZE_FOLD_T2S);

      for (guint i = 0; i < G_N_ELEMENTS (golden_texts); i++)
        {
          guint64 got[3];

          compute_golden (fp, golden_texts[i], got);
          printf ("  { G_GUINT64_CONSTANT (0x%016" G_GINT64_MODIFIER "x), %" G_GUINT64_FORMAT
                  ", G_GUINT64_CONSTANT (0x%016" G_GINT64_MODIFIER "x) },\n", got[0], got[1], got[2]);
        }
      printf ("shingle 0x%016" G_GINT64_MODIFIER "x\n",
              sim_fingerprint_hash_shingle ((const guint32[]) { 0x4e2d, 0x6587 }, 2));
      return 0;
    }
  return cmocka_run_group_tests_name ("fingerprint", tests, NULL, NULL);
}
