/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Units of work done in worker processes (workers.h).  */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diag.h"
#include "workers.h"

unsigned
workers_cpus (void)
{
  cpu_set_t set;
  if (sched_getaffinity (0, sizeof set, &set) == 0 && CPU_COUNT (&set) > 0)
    return (unsigned) CPU_COUNT (&set);
  long n = sysconf (_SC_NPROCESSORS_ONLN);
  return n > 0 ? (unsigned) n : 1;
}

void
work_result_clear (struct work_result *res)
{
  for (int k = 0; k < WORK_OUTPUTS; k++)
    {
      free (res->out[k]);
      res->out[k] = NULL;
      res->len[k] = 0;
    }
}

static int
write_all (int fd, const void *buf, size_t len)
{
  const char *p = buf;
  while (len > 0)
    {
      ssize_t w = write (fd, p, len);
      if (w < 0 && errno == EINTR)
	continue;
      if (w <= 0)
	return -1;
      p += w;
      len -= (size_t) w;
    }
  return 0;
}

/* Read LEN bytes: 0, 1 at end of file before the first byte, -1 on error
   or a short message.  */
static int
read_all (int fd, void *buf, size_t len)
{
  char *p = buf;
  size_t got = 0;
  while (got < len)
    {
      ssize_t r = read (fd, p + got, len - got);
      if (r < 0 && errno == EINTR)
	continue;
      if (r < 0)
	return -1;
      if (r == 0)
	return got == 0 ? 1 : -1;
      got += (size_t) r;
    }
  return 0;
}

/* A worker's message: this header, then the head, then the outputs.  */
struct message
{
  uint64_t unit;
  int32_t rc;
  uint64_t len[WORK_OUTPUTS];
};

/* What the workers share with the parent that forked them.  */
struct pool
{
  size_t nunits;
  struct work_result **results;
  size_t head_len;
  work_fn *fn;
  work_arrived_fn *arrived;
  void *arg;
};

/* A worker: take the next unit from *NEXT until none is left, send each
   result to FD.  */
static void __attribute__ ((noreturn))
worker (const struct pool *p, uint64_t *next, int fd)
{
  for (;;)
    {
      uint64_t u = __atomic_fetch_add (next, 1, __ATOMIC_RELAXED);
      if (u >= p->nunits)
	break;
      struct work_result *res = p->results[u];
      p->fn (u, res, p->arg);
      struct message m = { .unit = u, .rc = res->rc };
      for (int k = 0; k < WORK_OUTPUTS; k++)
	m.len[k] = res->len[k];
      if (write_all (fd, &m, sizeof m) != 0 || write_all (fd, res->head, p->head_len) != 0)
	_exit (2);
      for (int k = 0; k < WORK_OUTPUTS; k++)
	if (write_all (fd, res->out[k], res->len[k]) != 0)
	  _exit (2);
      work_result_clear (res);
    }
  _exit (0);
}

/* Read one message from FD into P's results, saying in *UNIT which it
   filled.  Return 0, 1 at end of file, -1 on a broken message.  */
static int
receive (const struct pool *p, int fd, size_t *unit)
{
  struct message m;
  int r = read_all (fd, &m, sizeof m);
  if (r != 0)
    return r;
  if (m.unit >= p->nunits || p->results[m.unit]->done)
    return -1;
  for (int k = 0; k < WORK_OUTPUTS; k++)
    if (m.len[k] > SIZE_MAX / 4)
      return -1;
  struct work_result *res = p->results[m.unit];
  if (read_all (fd, res->head, p->head_len) != 0)
    return -1;
  for (int k = 0; k < WORK_OUTPUTS; k++)
    {
      res->out[k] = malloc (m.len[k] + 1);
      if (res->out[k] == NULL || read_all (fd, res->out[k], m.len[k]) != 0)
	return -1;
      res->len[k] = m.len[k];
    }
  res->rc = m.rc;
  res->done = true;
  *unit = m.unit;
  return 0;
}

/* Start up to NWORKERS workers over P, their pipes' read ends in FDS and
   their process IDs in PIDS.  Return how many started.  */
static unsigned
start_workers (const struct pool *p, unsigned nworkers, uint64_t *next, struct pollfd *fds,
	       pid_t *pids)
{
  unsigned started = 0;
  fflush (NULL);
  for (; started < nworkers; started++)
    {
      int fd[2];
      if (pipe2 (fd, O_CLOEXEC) != 0)
	break;
      pid_t pid = fork ();
      if (pid < 0)
	{
	  close (fd[0]);
	  close (fd[1]);
	  break;
	}
      if (pid == 0)
	{
	  close (fd[0]);
	  for (unsigned k = 0; k < started; k++)
	    close (fds[k].fd);
	  worker (p, next, fd[1]);
	}
      close (fd[1]);
      fds[started] = (struct pollfd) { .fd = fd[0], .events = POLLIN };
      pids[started] = pid;
    }
  return started;
}

/* Receive the results of P from the STARTED workers' pipes FDS until each
   is closed, then wait for the workers PIDS.  */
static void
gather (const struct pool *p, struct pollfd *fds, const pid_t *pids, unsigned started)
{
  for (unsigned open_fds = started; open_fds > 0;)
    {
      if (poll (fds, started, -1) < 0)
	{
	  if (errno == EINTR)
	    continue;
	  break;
	}
      for (unsigned k = 0; k < started; k++)
	if (fds[k].fd >= 0 && (fds[k].revents & (POLLIN | POLLHUP | POLLERR)) != 0)
	  {
	    size_t u;
	    if (receive (p, fds[k].fd, &u) != 0)
	      {
		close (fds[k].fd);
		fds[k].fd = -1;
		open_fds--;
	      }
	    else if (p->arrived != NULL)
	      p->arrived (u, p->results[u], p->arg);
	  }
    }
  for (unsigned k = 0; k < started; k++)
    {
      if (fds[k].fd >= 0)
	close (fds[k].fd);
      int st;
      while (waitpid (pids[k], &st, 0) < 0 && errno == EINTR)
	;
    }
}

void
workers_run (size_t nunits, unsigned nworkers, struct work_result **results, size_t head_len,
	     work_fn *fn, work_arrived_fn *arrived, void *arg, FILE *errors)
{
  const struct pool p = { nunits, results, head_len, fn, arrived, arg };
  uint64_t *next = mmap (NULL, sizeof *next, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  struct pollfd *fds = calloc (nworkers, sizeof *fds);
  pid_t *pids = calloc (nworkers, sizeof *pids);
  if (next == MAP_FAILED || fds == NULL || pids == NULL)
    fprintf (errors, "%s: cannot start worker processes: out of memory\n", diag_program);
  else
    {
      *next = 0;
      unsigned started = start_workers (&p, nworkers, next, fds, pids);
      if (started != 0)
	gather (&p, fds, pids, started);
      else
	/* No worker could start: do the work here.  */
	for (size_t u = 0; u < nunits; u++)
	  {
	    fn (u, results[u], arg);
	    results[u]->done = true;
	    if (arrived != NULL)
	      arrived (u, results[u], arg);
	  }
    }
  if (next != MAP_FAILED)
    munmap (next, sizeof *next);
  free (fds);
  free (pids);
}
