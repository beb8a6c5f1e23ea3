/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A minimal parallel for: @func runs on @n_threads threads (the caller's
 * among them, the others kept between runs) until it returns; workers
 * share @data and take work from it with atomics. Returns when every
 * worker has returned. Any thread may start a run, a worker too.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef void (*SimWorkerFunc) (gpointer data);

guint sim_parallel_default_threads (void);
void  sim_parallel_run             (guint         n_threads,
                                    SimWorkerFunc func,
                                    gpointer      data);

/* Faults in the pages of fresh memory [@p, @p + @len) in one call, before
 * the process writes them: touched one at a time, each costs a trap, some
 * 13 µs apiece on the virtual machines we measured on (a 4 MiB buffer 13
 * ms). Does nothing where the kernel cannot (before Linux 5.14). */
void  sim_prefault                 (gpointer      p,
                                    gsize         len);

/* @len bytes at @offset of @fd into @buf (pread until done or the end);
 * what the file does not hold (cut short) reads as bytes of @fill. */
void  sim_pread_full               (int            fd,
                                    gpointer       buf,
                                    gsize          len,
                                    goffset        offset,
                                    guint8         fill);

/* @len bytes of @buf at @offset of @fd (pwrite until done); FALSE when
 * the file would not take them all (a full disk). */
gboolean sim_pwrite_full             (int            fd,
                                      gconstpointer  buf,
                                      gsize          len,
                                      goffset        offset);

/* One read of sim_pread_many(): @len bytes at @offset into @buf. */
typedef struct {
  gpointer buf;
  gsize    len;
  goffset  offset;
} SimRead;

/* Performs @n reads from @fd, handed to the kernel at once through io_uring
 * where the build and the kernel have it (each thread keeps a ring; a
 * container may forbid it, and SIMHOUND_NO_IO_URING turns it off), else
 * with one pread each: a system call costs microseconds on a virtual
 * machine, and a check makes thousands. What the file does not hold (cut
 * short) reads as bytes of @fill. */
void  sim_pread_many               (int            fd,
                                    const SimRead *reads,
                                    guint          n,
                                    guint8         fill);

G_END_DECLS
