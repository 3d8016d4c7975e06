/* elfpmd startup stub: one repairer at a time, and a bound on every wait.

   Two processes evicting and reading back the same chunks at once spoil
   each other's work (a fault in a chunk another is evicting reads the
   missing pages as small folios), so a repair takes flock(LOCK_EX) on the
   object's file, and a start that finds it held waits for it.  But any user
   who can read the file can take that lock, and nothing a waiter can see
   tells a stub at work from a process that merely holds it (whatever a stub
   could show, such as a lock that grows, that process can show too).  So
   the wait is bounded whatever the holder does: LOCK_WAIT_MS for the lock,
   and WAIT_MAX_MS in all, with the waits for pages other processes keep
   mapped (repair.c).  A start that did not get the lock in time repairs
   its own chunks without it, as when flock cannot be used at all: each
   chunk is evicted whole before the touch that reads it back, and a chunk
   read back in part is tried again, so that another repairer's work is
   spoilt only in a race of microseconds, and the repair's cost is the
   start's own.  */
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

/* Wait one millisecond for another process, unless this start has waited
   WAIT_MAX_MS in all, or *WAITED (the nanoseconds already waited for this
   reason) is LIMIT_MS, or one more millisecond would pass either; count
   the time the sleep really took (on a busy machine, or in an emulator,
   more than 1 ms) in both.  Return whether it waited.  */
int
wait_1ms (struct stub *st, uint64_t *waited, unsigned limit_ms)
{
  if (st->waited + MS > WAIT_MAX_MS * MS || *waited + MS > limit_ms * MS)
    return 0;
  uint64_t t0 = now_ns ();
  sleep_1ms ();
  uint64_t t1 = now_ns ();
  uint64_t took = t0 != 0 && t1 > t0 ? t1 - t0 : MS;
  st->waited += took;
  *waited += took;
  return 1;
}

/* Take the exclusive lock on the object's file, so that only one process
   at a time evicts and reads back its chunks; while another process holds
   it, poll it every millisecond, LOCK_WAIT_MS at most.  Return 1 when
   locked, 0 when not (flock cannot be used, or the wait ran out): repair
   without it.  */
int
lock_file (struct stub *st)
{
  uint64_t waited = 0;
  do
    {
      long err = syscall6 (SYS_flock, st->file, LOCK_EX | LOCK_NB, 0, 0, 0, 0);
      if (err == 0)
	return 1;
      if (err != -EWOULDBLOCK)
	return 0;
    }
  while (wait_1ms (st, &waited, LOCK_WAIT_MS));
  return 0;
}

/* Drop the file's lock.  Before the descriptor is closed: a fork in
   another thread may have a copy of it, which would keep the lock.  */
void
unlock_file (struct stub *st)
{
  syscall6 (SYS_flock, st->file, LOCK_UN, 0, 0, 0, 0);
}
