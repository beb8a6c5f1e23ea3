/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Benchmarks: fingerprinting throughput, band lookups against a brute-force
 * scan, corpus import, checking an article, opening a store. Prints a
 * Markdown report; every figure is a median of repeated runs in this process,
 * and ratios compare figures of the same run.
 *
 * usage: simhound-bench [--texts DIR] [--demo DIR] [--quick]
 *   --texts  real text, one document per file (default ../shared/corpora)
 *   --demo   the demo corpus texts (default build/demo/texts)
 *   --quick  smaller sizes, for a smoke run
 *   --only fingerprint|lookup|import|check|compare   one section
 *   --store S --article F   only: open S (median of 5) and check F against
 *                           it warm (median of 7); one line of figures, for
 *                           tests/bench/growth.py
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "sim-check.h"
#include "sim-compare.h"
#include "sim-corpus.h"
#include "sim-parallel.h"
#include "sim-segment.h"

static gboolean quick;

static int
compare_double (gconstpointer a,
                gconstpointer b)
{
  const double x = *(const double *) a, y = *(const double *) b;

  return x < y ? -1 : x > y;
}

static double
median (double *v,
        guint   n)
{
  qsort (v, n, sizeof (double), compare_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double
now (void)
{
  return g_get_monotonic_time () / 1e6;
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  /* g_ptr_array_sort passes pointers to the elements. */
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Concatenates documents of @folders under @root up to @max_bytes. */
static GString *
load_texts (const char        *root,
            const char *const *folders,
            gsize              max_bytes)
{
  GString *all = g_string_new (NULL);

  for (guint f = 0; folders[f] && all->len < max_bytes; f++)
    {
      g_autofree char *dir_path = g_build_filename (root, folders[f], NULL);
      g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
      g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      const char *name;

      while (dir && (name = g_dir_read_name (dir)) != NULL)
        g_ptr_array_add (names, g_strdup (name));
      g_ptr_array_sort (names, compare_names);
      for (guint i = 0; i < names->len && all->len < max_bytes; i++)
        {
          g_autofree char *path = g_build_filename (dir_path, g_ptr_array_index (names, i), NULL);
          g_autofree char *text = NULL;
          gsize len;

          if (g_file_get_contents (path, &text, &len, NULL) && g_utf8_validate (text, len, NULL))
            {
              g_string_append_len (all, text, len);
              g_string_append (all, "\n\n");
            }
        }
    }
  return all;
}

/* UTF-8 in, one SimHash per segment out: what a check does to an article. */
static guint64
fingerprint_segments (SimFingerprinter *fp,
                      const char       *text,
                      gsize             len,
                      SimSegmentMode    mode,
                      GArray           *segs,
                      GArray           *feats)
{
  const SimUnits *units = sim_fingerprinter_load (fp, text, len);
  const guint64 *features = sim_fingerprinter_get_features (fp);
  guint64 acc = 0;

  g_array_set_size (segs, 0);
  sim_segment_split (text, len, units, mode, SIM_SEGMENT_DEFAULT_WINDOW, segs);
  g_array_set_size (feats, units->n + 1);
  for (guint i = 0; i < segs->len; i++)
    {
      const SimSegment *s = &g_array_index (segs, SimSegment, i);
      gsize n = sim_fingerprint_range_features (units, features, s->unit_start, s->unit_end,
                                                (guint64 *) feats->data);

      acc ^= sim_fingerprint_simhash ((guint64 *) feats->data, n, NULL);
    }
  return acc;
}

static void
bench_fingerprinting (const char *texts)
{
  static const char *const zh[] = { "zh-news", "zh-manpages", "zh-handbook", "zh-debref-zh-cn", "debian-reference-zh-cn", "fortunes-zh", NULL };
  static const char *const en[] = { "en-news-bbc", "en-handbook", "en-kjv", "debian-reference-en", "bible-kjv", NULL };
  const char *const *sets[] = { zh, en };
  const char *names[] = { "Chinese", "English" };
  const gsize size = quick ? (1 << 20) : (8 << 20);
  g_autoptr(SimFingerprinter) fp = sim_fingerprinter_new (SIM_NORMALIZE_FOLD_T2S);
  g_autoptr(GArray) segs = g_array_new (FALSE, FALSE, sizeof (SimSegment));
  g_autoptr(GArray) feats = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GArray) windows = g_array_new (FALSE, FALSE, sizeof (SimAnchor));

  printf ("## Fingerprinting (one core, UTF-8 in, fingerprints out)\n\n");
  printf ("| text | bytes | sentence mode MB/s | window mode MB/s | corpus anchors MB/s |\n|---|---:|---:|---:|---:|\n");
  for (guint l = 0; l < 2; l++)
    {
      g_autoptr(GString) text = load_texts (texts, sets[l], size);
      double rate[3];

      if (text->len == 0)
        continue;
      for (guint m = 0; m < 3; m++)
        {
          double t[5];

          for (guint r = 0; r < G_N_ELEMENTS (t); r++)
            {
              double start = now ();

              if (m < 2)
                fingerprint_segments (fp, text->str, text->len, m == 0 ? SIM_SEGMENT_SENTENCE : SIM_SEGMENT_WINDOW, segs, feats);
              else
                {
                  sim_fingerprinter_load (fp, text->str, text->len);
                  g_array_set_size (windows, 0);
                  sim_fingerprinter_windows (fp, SIM_WINNOW_WEIGHT, windows);
                }
              t[r] = now () - start;
            }
          rate[m] = text->len / 1e6 / median (t, G_N_ELEMENTS (t));
        }
      printf ("| %s | %zu | %.1f | %.1f | %.1f |\n", names[l], text->len, rate[0], rate[1], rate[2]);
    }
  printf ("\n");
}

static guint64
random_fp (GRand *rand)
{
  return ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
}

static void
bench_band_index (void)
{
  const gsize sizes[] = { 1000000, quick ? 2000000 : 10000000 };
  g_autoptr(GRand) rand = g_rand_new_with_seed (42);

  printf ("## Band lookup, k = 3 (one core)\n\n");
  printf ("| stored | queries/s, one by one | queries/s, batched (as a check does) | hits/query | index bytes/fp (fingerprints included; +8 payload) | brute force queries/s | batched speed-up | same answers |\n");
  printf ("|---:|---:|---:|---:|---:|---:|---:|---|\n");
  for (guint s = 0; s < G_N_ELEMENTS (sizes); s++)
    {
      const gsize n = sizes[s], n_queries = 200000, n_scan = quick ? 20 : 50;
      g_autofree guint64 *fps = g_new (guint64, n);
      g_autofree guint64 *queries = g_new (guint64, n_queries);
      g_autoptr(SimBandIndex) index = NULL;
      g_autoptr(GArray) out = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_autoptr(GArray) want = g_array_new (FALSE, FALSE, sizeof (guint32));
      double t[3], scan_t, scan_qps, qps, batch_qps = 0;
      guint64 hits = 0;
      gboolean same = TRUE;

      for (gsize i = 0; i < n; i++)
        fps[i] = random_fp (rand);
      /* Half the queries are near a stored fingerprint (0-3 bits flipped). */
      for (gsize q = 0; q < n_queries; q++)
        {
          guint64 fp = q % 2 ? fps[g_rand_int_range (rand, 0, n)] : random_fp (rand);

          for (gint b = g_rand_int_range (rand, 0, 4); b > 0; b--)
            fp ^= G_GUINT64_CONSTANT (1) << g_rand_int_range (rand, 0, 64);
          queries[q] = fp;
        }
      {
        g_autofree guint32 *order = NULL;

        index = sim_band_index_new (fps, n, 3, &order);
        /* Ids are the index's own, as in the corpus: scan its copy in that order. */
        memcpy (fps, sim_band_index_get_fps (index), n * sizeof (guint64));
      }
      for (guint r = 0; r < G_N_ELEMENTS (t); r++)
        {
          double start = now ();

          hits = 0;
          for (gsize q = 0; q < n_queries; q++)
            {
              g_array_set_size (out, 0);
              hits += sim_band_index_lookup (index, queries[q], 3, out);
            }
          t[r] = now () - start;
        }
      qps = n_queries / median (t, G_N_ELEMENTS (t));
      {
        g_autofree guint32 *ends = g_new (guint32, n_queries);
        double tb[3];

        for (guint r = 0; r < G_N_ELEMENTS (tb); r++)
          {
            double start = now ();

            g_array_set_size (out, 0);
            sim_band_index_lookup_many (index, queries, n_queries, 3, 0, out, ends);
            tb[r] = now () - start;
          }
        batch_qps = n_queries / median (tb, G_N_ELEMENTS (tb));
        same &= out->len == hits;
      }

      scan_t = now ();
      for (gsize q = 0; q < n_scan; q++)
        {
          g_array_set_size (out, 0);
          g_array_set_size (want, 0);
          sim_band_index_scan (fps, n, queries[q], 3, want);
          sim_band_index_lookup (index, queries[q], 3, out);
          /* Both are in increasing id order only for the scan: compare as sets. */
          if (out->len != want->len)
            same = FALSE;
          else
            for (guint i = 0; i < want->len; i++)
              {
                gboolean found = FALSE;

                for (guint j = 0; j < out->len && !found; j++)
                  found = g_array_index (out, guint32, j) == g_array_index (want, guint32, i);
                same &= found;
              }
        }
      scan_t = now () - scan_t;
      scan_qps = n_scan / scan_t;
      printf ("| %zu | %.0f | %.0f | %.2f | %.1f | %.1f | %.0fx | %s (%zu queries) |\n", n, qps, batch_qps,
              (double) hits / n_queries, (double) sim_band_index_get_memory (index) / n,
              scan_qps, batch_qps / scan_qps, same ? "yes" : "NO", n_scan);
    }
  printf ("\n");
}

static SimImportResult *
import (const char  *store,
        const char  *folder,
        double      *seconds)
{
  g_autoptr(SimCorpus) corpus = NULL;
  const char *paths[] = { folder, NULL };
  SimImportResult *result;
  double start;

  g_remove (store);
  corpus = sim_corpus_open (store, FALSE, NULL);
  start = now ();
  result = sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL);
  *seconds = now () - start;
  return result;
}

static void
bench_import (const char *tmp,
              const char *demo,
              const char *texts)
{
  const char *names[] = { "demo corpus", "shared/corpora" };
  const char *folders[] = { demo, texts };

  printf ("## corpus add (%u threads)\n\n| corpus | documents | MB of text | seconds | MB/s |\n|---|---:|---:|---:|---:|\n",
          sim_parallel_default_threads ());
  for (guint i = 0; i < 2; i++)
    {
      g_autofree char *store = g_build_filename (tmp, "import.db", NULL);
      g_autoptr(SimImportResult) result = NULL;
      double seconds;

      if (quick && i == 1)
        continue;
      if (!g_file_test (folders[i], G_FILE_TEST_IS_DIR))
        {
          printf ("| %s | not found | | | |\n", names[i]);
          continue;
        }
      result = import (store, folders[i], &seconds);
      printf ("| %s | %u | %.1f | %.2f | %.1f |\n", names[i], result->n_added, result->n_bytes / 1e6,
              seconds, result->n_bytes / 1e6 / seconds);
    }
  printf ("\n");
}

/* A store of about @target segments from the text folders, in order. */
static char *
build_store (const char        *tmp,
             const char        *root,
             const char *const *folders,
             gsize              target,
             gsize             *out_segments)
{
  char *store = g_build_filename (tmp, "check.db", NULL);
  g_autoptr(SimCorpus) corpus = NULL;
  g_autoptr(SimCorpusSnapshot) snapshot = NULL;

  g_remove (store);
  corpus = sim_corpus_open (store, FALSE, NULL);
  for (guint f = 0; folders[f]; f++)
    {
      g_autofree char *path = g_build_filename (root, folders[f], NULL);
      const char *paths[] = { path, NULL };
      g_autoptr(SimCorpusSnapshot) s = sim_corpus_ref_snapshot (corpus);

      if (sim_corpus_snapshot_get_n_fps (s) >= target)
        break;
      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        sim_import_result_free (sim_corpus_add (corpus, paths, NULL, NULL, NULL, NULL));
    }
  snapshot = sim_corpus_ref_snapshot (corpus);
  *out_segments = sim_corpus_snapshot_get_n_fps (snapshot);
  return store;
}

/* 10,000 characters: copied and reworded passages of indexed documents among
 * text from documents that are not indexed. */
static char *
make_article (const char *copied_from,
              const char *other_from)
{
  g_autoptr(GString) article = g_string_new (NULL);
  const char *a = copied_from, *b = other_from;

  while (g_utf8_strlen (article->str, -1) < 10000)
    {
      const char *a_end = g_utf8_offset_to_pointer (a, 300);
      const char *b_end = g_utf8_offset_to_pointer (b, 400);

      g_string_append_len (article, a, a_end - a);
      g_string_append (article, "\n\n");
      g_string_append_len (article, b, b_end - b);
      g_string_append (article, "\n\n");
      a = g_utf8_offset_to_pointer (a_end, 2000);
      b = b_end;
    }
  return g_strdup (g_utf8_offset_to_pointer (article->str, 0));
}

static void
bench_check_and_open (const char *tmp,
                      const char *texts)
{
  static const char *const indexed[] = { "en-news-bbc", "zh-news", "en-handbook", "zh-handbook", "en-kjv", "zh-manpages", NULL };
  static const char *const not_indexed_en[] = { "en-debref", NULL };
  static const char *const copied_src[] = { "en-news-bbc", NULL };
  const gsize target = quick ? 200000 : 1000000;
  g_autofree char *store = NULL;
  g_autoptr(GString) copied = NULL;
  g_autoptr(GString) other = NULL;
  g_autofree char *article = NULL;
  g_autoptr(SimCorpus) corpus = NULL;
  g_autoptr(SimCorpusSnapshot) snapshot = NULL;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  double t_open[5], t_check[7], t_check1[7];
  gsize n_segments = 0;
  float similarity = 0;

  if (!g_file_test (texts, G_FILE_TEST_IS_DIR))
    {
      printf ("## Check and open\n\nskipped: %s not found\n\n", texts);
      return;
    }
  store = build_store (tmp, texts, indexed, target, &n_segments);
  copied = load_texts (texts, copied_src, 1 << 20);
  other = load_texts (texts, not_indexed_en, 1 << 20);
  article = make_article (copied->str, other->str);

  for (guint r = 0; r < G_N_ELEMENTS (t_open); r++)
    {
      double start = now ();
      SimCorpus *c = sim_corpus_open (store, FALSE, NULL);

      t_open[r] = now () - start;
      sim_corpus_free (c);
    }
  corpus = sim_corpus_open (store, FALSE, NULL);
  snapshot = sim_corpus_ref_snapshot (corpus);
  for (guint r = 0; r < G_N_ELEMENTS (t_check); r++)
    {
      double start = now ();
      g_autoptr(SimReport) report = sim_check_run (snapshot, article, -1, &options, NULL, NULL, NULL, NULL);

      t_check[r] = now () - start;
      similarity = sim_report_get_similarity (report);
    }
  options.n_threads = 1;
  for (guint r = 0; r < G_N_ELEMENTS (t_check1); r++)
    {
      double start = now ();
      g_autoptr(SimReport) report = sim_check_run (snapshot, article, -1, &options, NULL, NULL, NULL, NULL);

      t_check1[r] = now () - start;
    }
  printf ("## Check and open (store of %zu anchors, %u documents)\n\n", n_segments,
          sim_corpus_snapshot_get_n_docs (snapshot));
  printf ("| what | median |\n|---|---:|\n");
  printf ("| open the store (the index files mapped or read) | %.0f ms |\n", 1000 * median (t_open, 5));
  printf ("| check a %ld-character article, warm, %u threads (similarity %.0f%%) | %.1f ms |\n",
          g_utf8_strlen (article, -1), sim_parallel_default_threads (), 100 * similarity, 1000 * median (t_check, 7));
  printf ("| the same on one thread | %.1f ms |\n\n", 1000 * median (t_check1, 7));
}

/* The first @n_chars characters of @text, cut at a line end. */
static char *
cut_chars (const char *text,
           glong       n_chars)
{
  const char *end = g_utf8_offset_to_pointer (text, MIN (n_chars, g_utf8_strlen (text, -1)));

  return g_strndup (text, end - text);
}

/* Two 50,000-character documents, A half copied from B in passages of about
 * 600 characters between passages of its own, compared as `compare` does. */
static void
bench_compare (const char *texts)
{
  static const char *const langs[][3] = {
    { "English", "en-news-bbc", "en-debref" },
    { "Chinese", "zh-news", "zh-handbook" },
  };

  printf ("## compare (two 50,000-character documents, one thread)\n\n");
  printf ("| text | A characters | B characters | passages | median |\n|---|---:|---:|---:|---:|\n");
  for (guint l = 0; l < G_N_ELEMENTS (langs); l++)
    {
      const char *b_folders[] = { langs[l][1], NULL }, *own_folders[] = { langs[l][2], NULL };
      g_autoptr(GString) b_all = load_texts (texts, b_folders, 1 << 20);
      g_autoptr(GString) own_all = load_texts (texts, own_folders, 1 << 20);
      g_autofree char *b = NULL;
      g_autoptr(GString) a = g_string_new (NULL);
      SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
      double t[7];
      guint n_passages = 0;
      const char *from_b, *from_own;

      if (b_all->len == 0 || own_all->len == 0)
        continue;
      b = cut_chars (b_all->str, 50000);
      from_b = b;
      from_own = own_all->str;
      while (g_utf8_strlen (a->str, -1) < 50000 && *from_b && *from_own)
        {
          const char *b_end = g_utf8_offset_to_pointer (from_b, MIN (600, g_utf8_strlen (from_b, -1)));
          const char *own_end = g_utf8_offset_to_pointer (from_own, MIN (600, g_utf8_strlen (from_own, -1)));

          g_string_append_len (a, from_own, own_end - from_own);
          g_string_append (a, "\n\n");
          g_string_append_len (a, from_b, b_end - from_b);
          g_string_append (a, "\n\n");
          /* Skip as much of B as was copied: the next copy comes from further on. */
          from_b = g_utf8_offset_to_pointer (b_end, MIN (600, g_utf8_strlen (b_end, -1)));
          from_own = own_end;
        }
      for (guint r = 0; r < G_N_ELEMENTS (t); r++)
        {
          double start = now ();
          g_autoptr(SimReport) report = sim_compare_run (a->str, a->len, "a", b, -1, "b", &options,
                                                         SIM_NORMALIZE_FOLD_T2S, NULL, NULL);

          t[r] = now () - start;
          n_passages = report ? sim_report_get_n_passages (report) : 0;
        }
      printf ("| %s | %ld | %ld | %u | %.1f ms |\n", langs[l][0], g_utf8_strlen (a->str, -1),
              g_utf8_strlen (b, -1), n_passages, 1000 * median (t, G_N_ELEMENTS (t)));
    }
  printf ("\n");
}

/* One line for growth.py: open and warm-check times against an existing store. */
static int
measure_store (const char *store,
               const char *article_path)
{
  g_autofree char *article = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(SimCorpus) corpus = NULL;
  g_autoptr(SimCorpusSnapshot) snapshot = NULL;
  SimCheckOptions options = SIM_CHECK_OPTIONS_INIT;
  double t_open[5], t_check[7];
  float similarity = 0;

  if (!g_file_get_contents (article_path, &article, NULL, &error))
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  for (guint r = 0; r < G_N_ELEMENTS (t_open); r++)
    {
      double start = now ();
      SimCorpus *c = sim_corpus_open (store, TRUE, &error);

      t_open[r] = now () - start;
      if (c == NULL)
        {
          g_printerr ("%s\n", error->message);
          return 1;
        }
      sim_corpus_free (c);
    }
  corpus = sim_corpus_open (store, TRUE, NULL);
  snapshot = sim_corpus_ref_snapshot (corpus);
  for (guint r = 0; r < G_N_ELEMENTS (t_check); r++)
    {
      double start = now ();
      g_autoptr(SimReport) report = sim_check_run (snapshot, article, -1, &options, NULL, NULL, NULL, NULL);

      t_check[r] = now () - start;
      similarity = sim_report_get_similarity (report);
    }
  /* The first open is what a process that opens the store once pays
   * (every page fresh); later ones reuse the memory the earlier freed. */
  printf ("first_open_ms=%.1f open_ms=%.1f check_ms=%.1f similarity=%.3f\n", 1000 * t_open[0],
          1000 * median (t_open, 5), 1000 * median (t_check, 7), similarity);
  return 0;
}

int
main (int argc, char **argv)
{
  g_autofree char *texts = g_strdup ("../shared/corpora");
  g_autofree char *demo = g_strdup ("build/demo/texts");
  g_autofree char *tmp = NULL;
  g_autofree char *only = NULL;
  g_autofree char *store = NULL;
  g_autofree char *article = NULL;
  GOptionEntry entries[] = {
    { "store", 0, 0, G_OPTION_ARG_FILENAME, &store, "Only measure open and warm check against this store", "S" },
    { "article", 0, 0, G_OPTION_ARG_FILENAME, &article, "The article checked against --store", "F" },
    { "only", 0, 0, G_OPTION_ARG_STRING, &only, "One section: fingerprint, lookup, import, check or compare", "NAME" },
    { "texts", 0, 0, G_OPTION_ARG_FILENAME, &texts, "Real text, one document per file", "DIR" },
    { "demo", 0, 0, G_OPTION_ARG_FILENAME, &demo, "The demo corpus texts", "DIR" },
    { "quick", 0, 0, G_OPTION_ARG_NONE, &quick, "Smaller sizes", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("— Simhound benchmarks");
  g_autoptr(GError) error = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  if (store != NULL && article != NULL)
    return measure_store (store, article);
  tmp = g_dir_make_tmp ("simhound-bench-XXXXXX", NULL);
  printf ("# Simhound benchmarks\n\n%s, %u cores; texts from %s\n\n", quick ? "quick run" : "full run",
          g_get_num_processors (), g_file_test (texts, G_FILE_TEST_IS_DIR) ? texts : demo);
  if (!g_file_test (texts, G_FILE_TEST_IS_DIR))
    g_free (texts), texts = g_strdup (demo);
#define WANTED(name) (only == NULL || g_str_equal (only, name))
  if (WANTED ("fingerprint"))
    bench_fingerprinting (texts);
  if (WANTED ("lookup"))
    bench_band_index ();
  if (WANTED ("import"))
    bench_import (tmp, demo, texts);
  if (WANTED ("check"))
    bench_check_and_open (tmp, texts);
  if (WANTED ("compare"))
    bench_compare (texts);
  {
    g_autofree char *a = g_build_filename (tmp, "import.db", NULL);
    g_autofree char *b = g_build_filename (tmp, "check.db", NULL);
    const char *suffixes[] = { "", "-wal", "-shm" };

    for (guint i = 0; i < 3; i++)
      {
        g_autofree char *x = g_strconcat (a, suffixes[i], NULL);
        g_autofree char *y = g_strconcat (b, suffixes[i], NULL);

        g_remove (x);
        g_remove (y);
      }
    g_rmdir (tmp);
  }
  return 0;
}
