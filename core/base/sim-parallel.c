/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <pthread.h>
#ifdef HAVE_LIBURING
#include <liburing.h>
#endif

#include "sim-parallel.h"

/* Workers are threads kept between runs: starting one cost some 60 µs,
 * and each new thread set up again what its thread keeps (a decompression
 * context, an io_uring ring), five times in a check. A run takes idle
 * helpers or starts new ones; a helper that finishes goes back to the
 * idle ones, or ends when MAX_IDLE_HELPERS are idle already. A run never
 * waits for a helper to become idle, so runs inside runs cannot block. */
#define MAX_IDLE_HELPERS 16

typedef struct {
  SimWorkerFunc func;
  gpointer      data;
  GMutex        lock;
  GCond         done;
  guint         running;  /* helpers not finished, under lock */
} Job;

typedef struct _Helper Helper;
struct _Helper {
  GMutex  lock;
  GCond   wake;
  Job    *job;            /* under lock: the run to work on, NULL when idle */
  Helper *next;           /* in the idle stack */
};

static GMutex idle_lock;
static Helper *idle;      /* under idle_lock */
static guint n_idle;

/* A fork's child has only the thread that forked: the helpers it
 * inherited are not there to run anything. */
static void
forget_helpers_in_child (void)
{
  g_mutex_init (&idle_lock);
  idle = NULL;
  n_idle = 0;
}

static void
job_done (Job *job)
{
  g_mutex_lock (&job->lock);
  if (--job->running == 0)
    g_cond_signal (&job->done);
  g_mutex_unlock (&job->lock);
}

static gpointer
helper_main (gpointer data)
{
  Helper *h = data;

  for (;;)
    {
      Job *job;
      gboolean keep;

      g_mutex_lock (&h->lock);
      while (h->job == NULL)
        g_cond_wait (&h->wake, &h->lock);
      job = h->job;
      h->job = NULL;
      g_mutex_unlock (&h->lock);
      job->func (job->data);
      /* Idle again before the run learns it is done, so that the run's
       * caller finds it for its next run. */
      g_mutex_lock (&idle_lock);
      keep = n_idle < MAX_IDLE_HELPERS;
      if (keep)
        {
          h->next = idle;
          idle = h;
          n_idle++;
        }
      g_mutex_unlock (&idle_lock);
      job_done (job);
      if (!keep)
        break;
    }
  g_mutex_clear (&h->lock);
  g_cond_clear (&h->wake);
  g_free (h);
  return NULL;
}

/* Hands @job to an idle helper or a new one; FALSE when no thread can start. */
static gboolean
start_helper (Job *job)
{
  static gsize registered = 0;
  Helper *h;
  GThread *t;

  if (g_once_init_enter (&registered))
    {
      pthread_atfork (NULL, NULL, forget_helpers_in_child);
      g_once_init_leave (&registered, 1);
    }
  g_mutex_lock (&idle_lock);
  h = idle;
  if (h != NULL)
    {
      idle = h->next;
      n_idle--;
    }
  g_mutex_unlock (&idle_lock);
  if (h != NULL)
    {
      g_mutex_lock (&h->lock);
      h->job = job;
      g_cond_signal (&h->wake);
      g_mutex_unlock (&h->lock);
      return TRUE;
    }
  h = g_new0 (Helper, 1);
  g_mutex_init (&h->lock);
  g_cond_init (&h->wake);
  h->job = job;
  t = g_thread_try_new ("simhound-worker", helper_main, h, NULL);
  if (t == NULL)
    {
      g_mutex_clear (&h->lock);
      g_cond_clear (&h->wake);
      g_free (h);
      return FALSE;
    }
  g_thread_unref (t);
  return TRUE;
}

guint
sim_parallel_default_threads (void)
{
  /* g_get_num_processors() reads /sys each time: a check asks once for
   * each source it aligns (600 reads a check at 1 GB). */
  static gsize n_processors;
  const char *env = g_getenv ("SIMHOUND_THREADS");

  if (env != NULL && atoi (env) > 0)
    return MIN (atoi (env), 64);
  if (g_once_init_enter (&n_processors))
    g_once_init_leave (&n_processors, MAX (1, MIN (g_get_num_processors (), 16)));
  return n_processors;
}

void
sim_parallel_run (guint         n_threads,
                  SimWorkerFunc func,
                  gpointer      data)
{
  Job job = { func, data };

  n_threads = CLAMP (n_threads, 1, 64);
  g_mutex_init (&job.lock);
  g_cond_init (&job.done);
  for (guint i = 1; i < n_threads; i++)
    {
      g_mutex_lock (&job.lock);
      job.running++;
      g_mutex_unlock (&job.lock);
      if (!start_helper (&job))
        {
          g_mutex_lock (&job.lock);
          job.running--;
          g_mutex_unlock (&job.lock);
          break;
        }
    }
  func (data);
  g_mutex_lock (&job.lock);
  while (job.running > 0)
    g_cond_wait (&job.done, &job.lock);
  g_mutex_unlock (&job.lock);
  g_mutex_clear (&job.lock);
  g_cond_clear (&job.done);
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

  /* A batch of empty buckets reads nothing, into no buffer at all. */
  if (len == 0)
    return;
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

gboolean
sim_pwrite_full (int           fd,
                 gconstpointer buf,
                 gsize         len,
                 goffset       offset)
{
  gsize done = 0;

  while (done < len)
    {
      const gssize n = pwrite (fd, (const char *) buf + done, MIN (len - done, (gsize) 1 << 30), offset + done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      done += n;
    }
  return TRUE;
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
