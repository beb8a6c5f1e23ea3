/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <stdlib.h>
#include <sys/mman.h>

#include "sim-parallel.h"

typedef struct {
  SimWorkerFunc func;
  gpointer      data;
} Job;

static gpointer
thread_main (gpointer user_data)
{
  Job *job = user_data;

  job->func (job->data);
  return NULL;
}

guint
sim_parallel_default_threads (void)
{
  const char *env = g_getenv ("SIMHOUND_THREADS");

  if (env != NULL && atoi (env) > 0)
    return MIN (atoi (env), 64);
  return MAX (1, MIN (g_get_num_processors (), 16));
}

void
sim_parallel_run (guint         n_threads,
                  SimWorkerFunc func,
                  gpointer      data)
{
  Job job = { func, data };
  GThread *threads[64];
  guint n = 0;

  n_threads = CLAMP (n_threads, 1, G_N_ELEMENTS (threads));
  for (guint i = 1; i < n_threads; i++)
    {
      GThread *t = g_thread_try_new ("simhound-worker", thread_main, &job, NULL);

      if (t != NULL)
        threads[n++] = t;
    }
  func (data);
  for (guint i = 0; i < n; i++)
    g_thread_join (threads[i]);
}

void
sim_prefault (gpointer p,
              gsize    len)
{
#if defined(__linux__) && defined(MADV_POPULATE_WRITE)
  const guintptr page = 4096, from = ((guintptr) p + page - 1) & ~(page - 1), to = ((guintptr) p + len) & ~(page - 1);

  if (to > from)
    madvise ((gpointer) from, to - from, MADV_POPULATE_WRITE);
#endif
}
