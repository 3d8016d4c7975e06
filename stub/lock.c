/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd startup stub: one repairer at a time, and a bound on every wait.

   Two processes evicting and reading back the same chunks at once spoil
   each other's work (a fault in a chunk another is evicting reads the
   missing pages as small folios), so a repair takes flock(LOCK_EX) on the
   object's file, and a start that finds it held waits for it.  But any user
   who can read the file can take that lock, and nothing a waiter can see
   of the lock tells a stub at work from a process that merely holds it
   (whatever a stub could show, such as a lock that grows, that process can
   show too).  What no idle holder can show is the work itself: the
   waiter's own chunks, evicted and read back as PMD folios, which the
   waiter then maps (repair.c).  So a start waits LOCK_WAIT_MS for
   the lock after the holder last finished one of its chunks, and
   WAIT_MAX_MS in all, with the waits for pages other processes keep mapped
   (repair.c), plus FOLLOW_MS for each 2 MiB the holder finished for it.  A
   holder that does nothing for the start costs it LOCK_WAIT_MS; one that
   repairs its chunks slowly, at most FOLLOW_MS per 2 MiB repaired, about
   what the start would have spent repairing them.  A start that did not
   get the lock in time repairs what is left of its chunks without it, as
   when flock cannot be used at all: each chunk is evicted whole before the
   touch that reads it back, and a chunk read back in part is tried again,
   so that another repairer's work is spoilt only in a race of
   microseconds, and the repair's cost is the start's own.

   The bound is the process's, not each object's: a program that loads
   24 libraries with a stub, whose locks one user holds, would otherwise
   wait 24 times.  The first stub that is about to wait makes a ledger,
   one page of shared anonymous memory (MAP_SHARED, because such a
   mapping has a name in /proc/self/maps on every kernel, "/dev/zero
   (deleted)", where a private one has none without CONFIG_ANON_VMA_NAME),
   not inherited by a fork (MADV_DONTFORK: a child starts its own), with a
   magic word and its own address at its start; every stub of the process
   finds it there and counts its waits in it too.  It stays mapped for the
   life of the process: one page, made only by a start that waited.  No
   other process can write it.  A stub that can neither find nor make one
   does not wait at all.  */
#include "runtime.h"

/* How long a start polls the lock, 1 ms apart, within WAIT_MAX_MS.  */
#define LOCK_WAIT_MS 15

#define MS 1000000ULL

void
sleep_1ms (void)
{
  struct { long sec, nsec; } t = { 0, 1000000 };
  syscall6 (SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, (long) &t, 0, 0, 0);
}

/* CLOCK_MONOTONIC in nanoseconds; 0 if it cannot be read.  */
static uint64_t
now_ns (void)
{
  struct { long sec, nsec; } t = { 0, 0 };
  if (syscall6 (SYS_clock_gettime, CLOCK_MONOTONIC, (long) &t, 0, 0, 0, 0) != 0)
    return 0;
  return (uint64_t) t.sec * 1000000000ULL + (uint64_t) t.nsec;
}

/* The ledger the line of /proc/self/maps at LINE shows, or NULL: one page
   of shared anonymous memory, readable and writable, that starts with
   LEDGER_MAGIC and its own address.  */
static struct ledger *
ledger_at (struct stub *st, const char *line)
{
  static const char name[] = "/dev/zero (deleted)";
  const char *s = line;
  struct maps_line e;
  if (parse_maps_line (&s, &e) != 0 || !e.shared_rw || e.hi - e.lo != st->page || e.offset != 0)
    return NULL;
  for (unsigned k = 0; k < sizeof name; k++)
    if (s[k] != name[k])
      return NULL;
  struct ledger *lg = (struct ledger *) e.lo;
  return lg->magic == LEDGER_MAGIC && lg->self == e.lo ? lg : NULL;
}

/* The process's ledger of waits: found in /proc/self/maps, or made when
   there is none; NULL (and ST->no_ledger) when the maps cannot be read
   or the page cannot be had: then the stub does not wait.  */
static struct ledger *
ledger (struct stub *st)
{
  if (st->ledger != NULL || st->no_ledger)
    return st->ledger;
  st->no_ledger = 1;
  struct lines l;
  if (lines_open (st, &l, "/proc/self/maps") != 0)
    return NULL;
  char *line = st->scratch->ledger_line;
  struct ledger *lg = NULL;
  while (lg == NULL && next_line (&l, line, sizeof st->scratch->ledger_line) >= 0)
    lg = ledger_at (st, line);
  sys_close (l.fd);
  if (lg == NULL)
    {
      long got = syscall6 (SYS_mmap, 0, (long) st->page, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
      if (got < 0 && got > -4096)
	return NULL;
      sys_madvise ((uintptr_t) got, st->page, MADV_DONTFORK);
      lg = (struct ledger *) got;
      lg->self = (uint64_t) got;
      lg->waited = 0;
      lg->magic = LEDGER_MAGIC;
    }
  st->ledger = lg;
  st->no_ledger = 0;
  return lg;
}

/* Count NS nanoseconds waited: for this object and for the process.  */
static void
spend (struct stub *st, uint64_t ns)
{
  st->waited += ns;
  if (st->ledger != NULL)
    st->ledger->waited += ns;
}

/* Wait one millisecond for another process, unless this process has
   waited WAIT_MAX_MS in all (more by what the holder earned for this
   object), or *WAITED (the nanoseconds already waited for this reason)
   is LIMIT_MS, or one more millisecond would pass either; count
   the time the sleep really took (on a busy machine, or in an emulator,
   more than 1 ms) in both.  Return whether it waited.  */
int
wait_1ms (struct stub *st, uint64_t *waited, unsigned limit_ms)
{
  if (st->waited + MS > WAIT_MAX_MS * MS + st->earned || *waited + MS > limit_ms * MS)
    return 0;
  struct ledger *lg = ledger (st);
  if (lg == NULL || lg->waited + MS > WAIT_MAX_MS * MS + st->earned)
    return 0;
  uint64_t t0 = now_ns ();
  sleep_1ms ();
  uint64_t t1 = now_ns ();
  uint64_t took = t0 != 0 && t1 > t0 ? t1 - t0 : MS;
  spend (st, took);
  *waited += took;
  return 1;
}

/* Try the exclusive lock on the object's file once: 1 taken, 0 held by
   another process, -1 when flock cannot be used.  */
int
try_lock_file (struct stub *st)
{
  long err = syscall6 (SYS_flock, st->file, LOCK_EX | LOCK_NB, 0, 0, 0, 0);
  return err == 0 ? 1 : err == -EWOULDBLOCK ? 0 : -1;
}

/* Between two polls of a lock another process holds: count the time
   since the last wait ended (*SINCE, CLOCK_MONOTONIC; 0 at first) as
   waited too, in *IDLE and in all: looking at the holder's work costs
   mincore calls, which under an emulator can take longer than the
   millisecond slept; credit the holder with DONE of the start's chunks it
   finished since the last poll (FOLLOW_MS per 2 MiB each, and *IDLE back
   to 0); then wait one millisecond, unless LOCK_WAIT_MS have passed idle
   or the start has waited all it may.  Return whether it waited.  */
int
lock_wait (struct stub *st, uint64_t *idle, uint64_t *since, long done)
{
  uint64_t now = now_ns ();
  if (*since != 0 && now > *since)
    {
      *idle += now - *since;
      spend (st, now - *since);
    }
  if (done > 0)
    {
      *idle = 0;
      st->earned += (uint64_t) done * FOLLOW_MS * MS * (st->pmd >> 21 ? st->pmd >> 21 : 1);
    }
  int waited = wait_1ms (st, idle, LOCK_WAIT_MS);
  *since = now_ns ();
  return waited;
}

/* Take the exclusive lock on the object's file, so that only one process
   at a time evicts and reads back its chunks; while another process holds
   it, poll it every millisecond, LOCK_WAIT_MS at most.  Return 1 when
   locked, 0 when not (flock cannot be used, or the wait ran out): repair
   without it.  (repair.c polls it so too, and meanwhile follows the
   holder's work.)  */
int
lock_file (struct stub *st)
{
  uint64_t idle = 0, since = 0;
  do
    {
      int got = try_lock_file (st);
      if (got != 0)
	return got > 0;
    }
  while (lock_wait (st, &idle, &since, 0));
  return 0;
}

/* Drop the file's lock.  Before the descriptor is closed: a fork in
   another thread may have a copy of it, which would keep the lock.  */
void
unlock_file (struct stub *st)
{
  syscall6 (SYS_flock, st->file, LOCK_UN, 0, 0, 0, 0);
}
