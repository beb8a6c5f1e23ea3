/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Merging the lookup table's runs (sim-server-postings.c keeps them). Runs
 * of a like size are merged in tiers of MERGE_FANIN, so a corpus of N
 * postings has O(log N) runs and each posting is written O(log N) times;
 * a merge drops the postings of removed documents. One client merges at
 * a time (an advisory lock); each merge is one transaction. An add's
 * runs, kept beside it (SimPostingSpill), are merged the same way into
 * one run of the table: read from the file rather than the server. How a
 * merge reads, merges and writes its chunks is sim-server-chunks.c's.
 */
#include "config.h"


#include "sim-error.h"
#include "sim-server-private.h"

#define MERGE_BASE      (1u << 16)   /* postings of the smallest tier */
#define MERGE_FANIN     4            /* runs of a tier that are merged into one */
#define MERGE_LOCK      "7437357121"

static guint
tier_of (guint64 n)
{
  guint tier = 0;

  for (n /= MERGE_BASE; n >= MERGE_FANIN; n /= MERGE_FANIN)
    tier++;
  return tier;
}

/* A bit per document id, set for those there (@n_ids of them); NULL
 * with @error when the server could not say. */
static guint8 *
live_documents (SimServer *server,
                gint64    *n_ids,
                GError   **error)
{
  PGresult *result = _sim_server_run_as (server, "SELECT id FROM simhound.documents ORDER BY id", 0, NULL, 1, error);
  guint8 *live;

  if (result == NULL)
    return NULL;
  *n_ids = PQntuples (result) > 0 ? _sim_be64 (PQgetvalue (result, PQntuples (result) - 1, 0)) + 1 : 0;
  live = g_new0 (guint8, *n_ids / 8 + 1);
  for (int r = 0; r < PQntuples (result); r++)
    {
      const gint64 id = _sim_be64 (PQgetvalue (result, r, 0));

      live[id >> 3] |= 1 << (id & 7);
    }
  PQclear (result);
  return live;
}

/* Bits the chunks of a merge of @total postings cut the key space by,
 * its runs cut by at least @min_bits. */
static guint
chunk_bits_of (guint64 total,
               guint   min_bits)
{
  /* SIMHOUND_SERVER_SIM_MERGE_CHUNK sets it smaller, for tests. */
  const char *env = g_getenv ("SIMHOUND_SERVER_SIM_MERGE_CHUNK");
  const guint64 chunk = env && g_ascii_strtoull (env, NULL, 10) > 0 ? MIN (g_ascii_strtoull (env, NULL, 10), SIM_MERGE_CHUNK)
                                                                     : SIM_MERGE_CHUNK;
  guint chunk_bits = 0;

  while (chunk_bits < min_bits && (total >> chunk_bits) > chunk / 5 * 4)
    chunk_bits++;
  return chunk_bits;
}

/* Merges @runs into one, in the caller's transaction: chunk by chunk of
 * the key space, each run's rows of it read, the postings of documents
 * still there kept, written as rows of the new run. */
static gboolean
merge_runs (SimServer    *server,
            const GArray *runs,
            gboolean      whole,
            GError      **error)
{
  g_autoptr(GArray) gone = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) run_ids = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(SimServer) second = NULL;
  g_autofree char *literal = NULL;
  g_autofree guint8 *live = NULL;
  gint64 n_ids = 0;
  guint64 total = 0, written = 0;
  guint min_bits = 30, chunk_bits, bits;
  gint64 run;
  PGresult *result;

  for (guint i = 0; i < runs->len; i++)
    {
      g_array_append_val (run_ids, g_array_index (runs, SimMergeRun, i).run);
      total += g_array_index (runs, SimMergeRun, i).n;
      min_bits = MIN (min_bits, g_array_index (runs, SimMergeRun, i).bits);
    }
  literal = _sim_server_array_literal ((const gint64 *) run_ids->data, run_ids->len);
  bits = _sim_posting_run_bits (total);
  chunk_bits = chunk_bits_of (total, min_bits);
  /* A merge of every run drops every posting of a document removed
   * before it read which are there: those are no longer "removed" (read
   * first, so that one removed meanwhile stays). */
  if (whole)
    {
      result = _sim_server_run_as (server, "SELECT id FROM simhound.removed", 0, NULL, 1, error);
      if (result == NULL)
        return FALSE;
      for (int r = 0; r < PQntuples (result); r++)
        {
          const gint64 id = _sim_be64 (PQgetvalue (result, r, 0));

          g_array_append_val (gone, id);
        }
      PQclear (result);
    }
  if ((live = live_documents (server, &n_ids, error)) == NULL ||
      (run = _sim_posting_next_run (server, error)) < 0)
    return FALSE;
  /* The runs read are committed, and only a merge, which holds the lock,
   * deletes them: another connection reads them as this one does. Without
   * one (the server's connections used up), chunks are read in turn. */
  if (chunk_bits > 0 && g_getenv ("SIMHOUND_SERVER_MERGE_ALONE") == NULL) /* for tests */
    second = _sim_server_connect_again (server, NULL);
  {
    const SimMergeReading reading = { (const SimMergeRun *) runs->data, runs->len, chunk_bits, live, n_ids, NULL, NULL };

    if (!_sim_merge_copy_chunks (server, second, &reading, run, bits, &written, error))
      return FALSE;
  }
  {
    const char *params[] = { literal };

    /* A run's rows by the range of its buckets (every run's there is
     * read, the run checked on the index's entries): a small run's are
     * found at once, where asking by the run alone read the whole table
     * keyed (bucket, run). Each run on its own, planned for its bits. */
    for (guint i = 0; i < runs->len; i++)
      {
        const SimMergeRun *merged = &g_array_index (runs, SimMergeRun, i);
        g_autofree char *s_run = g_strdup_printf ("%" G_GINT64_FORMAT, merged->run);
        g_autofree char *s_end = g_strdup_printf ("%" G_GUINT64_FORMAT, (guint64) 1 << merged->bits);
        const char *run_params[] = { s_run, s_end };

        result = _sim_server_run (server, "DELETE FROM simhound.postings WHERE bucket < $2::bigint AND run = $1::bigint",
                                  2, run_params, error);
        if (result == NULL)
          return FALSE;
        PQclear (result);
      }
    result = _sim_server_run (server, "DELETE FROM simhound.runs WHERE run = ANY ($1::bigint[])", 1, params, error);
    if (result == NULL)
      return FALSE;
    PQclear (result);
  }
  if (gone->len > 0)
    {
      g_autofree char *gone_literal = NULL;
      const char *params[1];
      guint kept = 0;

      for (guint i = 0; i < gone->len; i++)
        {
          const gint64 id = g_array_index (gone, gint64, i);

          if (id < 0 || id >= n_ids || !((live[id >> 3] >> (id & 7)) & 1))
            g_array_index (gone, gint64, kept++) = id;
        }
      params[0] = gone_literal = _sim_server_array_literal ((const gint64 *) gone->data, kept);
      result = _sim_server_run (server, "DELETE FROM simhound.removed WHERE id = ANY ($1::bigint[])", 1, params, error);
      if (result == NULL)
        return FALSE;
      PQclear (result);
    }
  return written == 0 || _sim_posting_write_run (server, run, bits, written, error);
}

/* The runs of the lowest tier that holds MERGE_FANIN or more, or with
 * @every every run when there are two or more, into @out. */
static gboolean
runs_to_merge (SimServer *server,
               gboolean   every,
               GArray    *out,
               gboolean  *out_whole,
               GError   **error)
{
  PGresult *result = _sim_server_run (server, "SELECT run, bits, n_postings FROM simhound.runs ORDER BY run",
                                      0, NULL, error);
  g_autoptr(GArray) all = NULL;
  guint best = G_MAXUINT;
  guint64 merged = 0;

  if (result == NULL)
    return FALSE;
  all = g_array_new (FALSE, FALSE, sizeof (SimMergeRun));
  for (int r = 0; r < PQntuples (result); r++)
    {
      SimMergeRun run = { g_ascii_strtoll (PQgetvalue (result, r, 0), NULL, 10),
                  (guint) g_ascii_strtoull (PQgetvalue (result, r, 1), NULL, 10),
                  g_ascii_strtoull (PQgetvalue (result, r, 2), NULL, 10) };

      g_array_append_val (all, run);
    }
  PQclear (result);
  for (guint i = 0; i < all->len; i++)
    {
      const guint tier = tier_of (g_array_index (all, SimMergeRun, i).n);
      guint count = 0;

      for (guint j = 0; j < all->len; j++)
        count += tier_of (g_array_index (all, SimMergeRun, j).n) == tier;
      if (count >= MERGE_FANIN && tier < best)
        best = tier;
    }
  g_array_set_size (out, 0);
  /* One run holds the postings of documents removed since it was made:
   * merged on its own, it holds them no more. */
  if (every && all->len == 1)
    {
      PGresult *any = _sim_server_run (server, "SELECT EXISTS (SELECT FROM simhound.removed)", 0, NULL, error);

      if (any == NULL)
        return FALSE;
      if (g_str_equal (PQgetvalue (any, 0, 0), "t"))
        g_array_append_vals (out, all->data, all->len);
      PQclear (any);
      *out_whole = TRUE;
      return TRUE;
    }
  if (every && all->len > 1)
    {
      g_array_append_vals (out, all->data, all->len);
      *out_whole = TRUE;
      return TRUE;
    }
  for (guint i = 0; best != G_MAXUINT && i < all->len; i++)
    if (tier_of (g_array_index (all, SimMergeRun, i).n) == best)
      {
        g_array_append_val (out, g_array_index (all, SimMergeRun, i));
        merged += g_array_index (all, SimMergeRun, i).n;
      }
  /* With them every other run of a lower tier than what they make, which
   * the next merge would take: one writing instead of two (an add of 24 MB
   * merged twice, 3.5 s of its 8.4). Not one of the same tier: that is
   * half the corpus written again (at 1 GB, 30 s more of an add, and the
   * tables 4.6 times the text until vacuumed), as it was whenever the
   * earlier run happened to be the smaller. */
  for (guint i = 0; best != G_MAXUINT && i < all->len; i++)
    if (tier_of (g_array_index (all, SimMergeRun, i).n) != best &&
        tier_of (g_array_index (all, SimMergeRun, i).n) < tier_of (merged))
      g_array_append_val (out, g_array_index (all, SimMergeRun, i));
  *out_whole = out->len == all->len;
  return TRUE;
}

static gboolean
merge (SimServer *server,
       gboolean   all,
       GError   **error);

gboolean
_sim_server_postings_merge (SimServer *server,
                            GError   **error)
{
  return merge (server, FALSE, error);
}

gboolean
sim_server_compact (SimServer *server,
                    GError   **error)
{
  return sim_server_check_schema (server, error) && merge (server, TRUE, error);
}

/* The tallies of the documents (a row each statement that added or
 * removed some) summed into one row, which a check reads faster. Rows
 * written meanwhile are left for the next time. */
static gboolean
fold_tallies (SimServer *server,
              GError   **error)
{
  return _sim_server_run_command (server,
                                  "WITH old AS (DELETE FROM simhound.tallies"
                                  "  WHERE (SELECT count(*) FROM simhound.tallies) > 1 RETURNING *)"
                                  " INSERT INTO simhound.tallies SELECT sum (n_documents), sum (n_windows), max (added_at)"
                                  " FROM old HAVING count(*) > 0", error);
}

static gboolean
merge (SimServer *server,
       gboolean   all,
       GError   **error)
{
  g_autoptr(GArray) runs = g_array_new (FALSE, FALSE, sizeof (SimMergeRun));

  for (;;)
    {
      PGresult *result;
      gboolean locked, whole = FALSE;

      if (!_sim_server_run_command (server, "BEGIN", error))
        return FALSE;
      /* One client merges at a time; the others leave it to it. */
      result = _sim_server_run (server, "SELECT pg_try_advisory_xact_lock(" MERGE_LOCK ")", 0, NULL, error);
      if (result == NULL)
        goto fail;
      locked = g_str_equal (PQgetvalue (result, 0, 0), "t");
      PQclear (result);
      if (!locked || !runs_to_merge (server, all, runs, &whole, error))
        {
          if (!locked)
            return _sim_server_run_command (server, "COMMIT", error);
          goto fail;
        }
      if (runs->len == 0)
        return fold_tallies (server, error) && _sim_server_run_command (server, "COMMIT", error);
      if (!merge_runs (server, runs, whole, error) || !_sim_server_run_command (server, "COMMIT", error))
        goto fail;
    }

fail:
  if (PQstatus (server->conn) == CONNECTION_OK)
    _sim_server_run_command (server, "ROLLBACK", NULL);
  return FALSE;
}

gboolean
_sim_server_spill_merge (SimServer       *server,
                         SimPostingSpill *spill,
                         gint64           owner,
                         GError         **error)
{
  g_autofree guint8 *live = NULL;
  g_autofree SimSpillCursor *cursors = NULL;
  g_autofree char *s_owner = g_strdup_printf ("%" G_GINT64_FORMAT, owner);
  const char *params[] = { s_owner };
  guint64 total = 0, written = 0;
  guint min_bits = 30, bits;
  gint64 n_ids = 0, run;
  gboolean ok, docs_apart = TRUE;
  PGresult *result;

  if (spill->runs->len == 0)
    return TRUE;
  cursors = g_new0 (SimSpillCursor, spill->runs->len);
  for (guint r = 0; r < spill->runs->len; r++)
    {
      const SimSpillRun *s_run = &g_array_index (spill->runs, SimSpillRun, r);

      total += s_run->n;
      min_bits = MIN (min_bits, s_run->bits);
      /* A batch's ids are reserved after the batch before's, so they
       * rise, but that is the server's sequence's business: checked. */
      if (r > 0 && s_run->first_doc <= g_array_index (spill->runs, SimSpillRun, r - 1).last_doc)
        docs_apart = FALSE;
      cursors[r].at = s_run->offset;
      cursors[r].end = s_run->offset + s_run->length;
    }
  bits = _sim_posting_run_bits (total);
  if (!_sim_server_run_command (server, "BEGIN", error))
    return FALSE;
  /* The documents there now: one removed meanwhile keeps no posting. */
  ok = (live = live_documents (server, &n_ids, error)) != NULL && (run = _sim_posting_next_run (server, error)) >= 0;
  if (ok)
    {
      const SimMergeReading reading = { NULL, 0, chunk_bits_of (total, min_bits), live, n_ids, spill, cursors, docs_apart };

      ok = _sim_merge_copy_chunks (server, NULL, &reading, run, bits, &written, error) &&
           (written == 0 || _sim_posting_write_run (server, run, bits, written, error));
    }
  for (guint r = 0; r < spill->runs->len; r++)
    g_free (cursors[r].buf);
  if (!ok)
    goto fail;
  result = _sim_server_run (server, "DELETE FROM simhound.adds WHERE owner = $1", 1, params, error);
  if (result == NULL)
    goto fail;
  PQclear (result);
  if (!_sim_server_run_command (server, "COMMIT", error))
    goto fail;
  _sim_posting_spill_truncate (spill, 0);
  return TRUE;

fail:
  if (PQstatus (server->conn) == CONNECTION_OK)
    _sim_server_run_command (server, "ROLLBACK", NULL);
  return FALSE;
}
