/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#ifdef HAVE_LIBURING
#include <liburing.h>
#include <pthread.h>
#endif

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

void
sim_pread_full (int      fd,
                gpointer buf,
                gsize    len,
                goffset  offset,
                guint8   fill)
{
  gsize done = 0;

  while (done < len)
    {
      const gssize n = pread (fd, (char *) buf + done, len - done, offset + done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      done += n;
    }
  memset ((char *) buf + done, fill, len - done);
}

#ifdef HAVE_LIBURING
#define RING_ENTRIES 128

typedef struct {
  struct io_uring ring;
  guint           generation;  /* fork_generation when it was set up */
} ThreadRing;

/* Bumped in the child of every fork(): a ring the child inherited is its
 * parent's (the same queues in shared memory), never to be used there. */
static guint fork_generation;

static void
after_fork_in_child (void)
{
  fork_generation++;
}

static void
ring_free (gpointer data)
{
  ThreadRing *tr = data;

  if (tr != NULL && tr != (gpointer) ring_free)
    {
      io_uring_queue_exit (&tr->ring);
      g_free (tr);
    }
}

static GPrivate thread_ring = G_PRIVATE_INIT (ring_free);

/* The calling thread's ring, set up on first use (and again in the child
 * of a fork); NULL where there is none. */
static struct io_uring *
get_ring (void)
{
  static gsize registered = 0;
  ThreadRing *tr = g_private_get (&thread_ring);

  if (g_once_init_enter (&registered))
    {
      pthread_atfork (NULL, NULL, after_fork_in_child);
      g_once_init_leave (&registered, 1);
    }
  if (tr != NULL && tr != (gpointer) ring_free && tr->generation != fork_generation)
    {
      g_private_replace (&thread_ring, NULL);  /* the parent's: unmapped here only */
      tr = NULL;
    }
  if (tr == NULL)
    {
      tr = g_new0 (ThreadRing, 1);
      tr->generation = fork_generation;
      if (g_getenv ("SIMHOUND_NO_IO_URING") != NULL || io_uring_queue_init (RING_ENTRIES, &tr->ring, 0) < 0)
        {
          g_free (tr);
          tr = (gpointer) ring_free;  /* tried: none */
        }
      g_private_set (&thread_ring, tr);
    }
  return tr == (gpointer) ring_free ? NULL : &tr->ring;
}

/* Up to RING_ENTRIES reads through @ring; FALSE when the ring fails (the
 * caller reads them with pread). A read that fails or comes short is
 * completed with pread. */
static gboolean
read_ring (struct io_uring *ring,
           int              fd,
           const SimRead   *reads,
           guint            n,
           guint8           fill)
{
  guint submitted = 0;

  for (guint i = 0; i < n; i++)
    {
      struct io_uring_sqe *sqe;

      if (reads[i].len == 0)
        continue;
      if ((sqe = io_uring_get_sqe (ring)) == NULL)
        return FALSE;
      io_uring_prep_read (sqe, fd, reads[i].buf, reads[i].len, reads[i].offset);
      io_uring_sqe_set_data64 (sqe, i);
      submitted++;
    }
  if (submitted > 0 && io_uring_submit_and_wait (ring, submitted) < 0)
    return FALSE;
  for (guint done = 0; done < submitted; done++)
    {
      struct io_uring_cqe *cqe;
      guint64 i;
      int res;

      if (io_uring_wait_cqe (ring, &cqe) < 0)
        return FALSE;
      res = cqe->res;
      i = io_uring_cqe_get_data64 (cqe);
      io_uring_cqe_seen (ring, cqe);
      if (i < n && (res < 0 || (gsize) res < reads[i].len))
        {
          const gsize got = MAX (res, 0);

          sim_pread_full (fd, (char *) reads[i].buf + got, reads[i].len - got, reads[i].offset + got, fill);
        }
    }
  return TRUE;
}
#endif

void
sim_pread_many (int            fd,
                const SimRead *reads,
                guint          n,
                guint8         fill)
{
#ifdef HAVE_LIBURING
  struct io_uring *ring = get_ring ();

  if (ring != NULL)
    {
      guint from = 0;

      while (from < n && read_ring (ring, fd, reads + from, MIN (RING_ENTRIES, n - from), fill))
        from += MIN (RING_ENTRIES, n - from);
      /* A ring that failed is not used again (it may hold reads not
       * reaped): the rest, and the batch it failed in, with pread. */
      if (from < n)
        g_private_replace (&thread_ring, (gpointer) ring_free);
      reads += from;
      n -= from;
    }
#endif
  for (guint i = 0; i < n; i++)
    sim_pread_full (fd, reads[i].buf, reads[i].len, reads[i].offset, fill);
}
