/* elfpmd startup stub: one repairer at a time.  Two processes evicting and
   reading back the same chunks at once spoil each other's work (a fault in
   a chunk another is evicting reads the missing pages as small folios), so
   a repair holds flock(LOCK_EX) on the object's file, and the waits for it
   and for pages other processes map are bounded.  */
#include "runtime.h"

/* How long the stub waits for the lock of a file another process is
   repairing: at most LOCK_IDLE_MS without progress, LOCK_MAX_MS in all.
   Once the holder has shown progress (it is a stub at work), both are per
   LOCK_UNIT of chunk size: the holder shows progress once per chunk, and
   reading a chunk back takes time in proportion to its size (a 32 MiB
   chunk, 16 KiB pages on arm64, sixteen times as long as a 2 MiB one); a
   waiter that gave up while the holder reads would fault the chunk in
   small folios under it.  A process that merely holds the lock delays a
   start by LOCK_IDLE_MS whatever the chunk size.  */
#define LOCK_IDLE_MS 15
#define LOCK_MAX_MS 250
#define LOCK_UNIT (2u << 20)

void
sleep_1ms (void)
{
  struct { long sec, nsec; } t = { 0, 1000000 };
  syscall6 (SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, (long) &t, 0, 0, 0);
}

/* Wait one millisecond, unless the stub has waited MAX_SLEEP_MS already;
   return whether it waited.  */
int
wait_1ms (struct stub *st)
{
  if (st->slept >= MAX_SLEEP_MS)
    return 0;
  st->slept++;
  sleep_1ms ();
  return 1;
}

/* struct flock as 64-bit Linux has it.  The lock's holder shows how far
   it has come with a read lock (an open file description lock, which any
   reader may take) on bytes [0, STEPS) of the file, one byte longer at
   every chunk; set it (F_RDLCK) or drop it (F_UNLCK).  Waiters read it
   (F_OFD_GETLK) to tell a holder that works from one that only holds the
   lock.  */
struct ofd_lock
{
  short type, whence;
  int64_t start, len;
  int pid, pad;
};

void
show_progress (struct stub *st, short type, int64_t steps)
{
  struct ofd_lock l = { .type = type, .whence = 0, .start = 0, .len = steps };
  syscall6 (SYS_fcntl, st->file, F_OFD_SETLK, (long) &l, 0, 0, 0);
}

/* The progress another process shows (see show_progress), or -1.  */
static long
holder_progress (struct stub *st)
{
  struct ofd_lock l = { .type = F_WRLCK, .whence = 0, .start = 0, .len = 0 };
  if (syscall6 (SYS_fcntl, st->file, F_OFD_GETLK, (long) &l, 0, 0, 0) != 0 || l.type != F_RDLCK)
    return -1;
  return (long) l.len;
}

/* Take the exclusive lock on the object's file, so that only one process
   at a time evicts and reads back its chunks.  While another process holds
   it, poll it every millisecond, for as long as that process shows
   progress (see show_progress), but for at most LOCK_IDLE_MS without
   progress and LOCK_MAX_MS in all (per LOCK_UNIT of chunk size once the
   holder has shown progress).  Return 1 when locked, 0 when flock cannot
   be used (repair without it), -1 when the wait ran out (leave the repair
   to the holder).  */
int
lock_file (struct stub *st)
{
  long seen = -1;
  uint64_t units = st->pmd > LOCK_UNIT ? st->pmd / LOCK_UNIT : 1;
  for (uint64_t idle = 0, waited = 0;; idle++, waited++)
    {
      long err = syscall6 (SYS_flock, st->file, LOCK_EX | LOCK_NB, 0, 0, 0, 0);
      if (err == 0)
	return 1;
      if (err != -EWOULDBLOCK)
	return 0;
      long now = holder_progress (st);
      if (now != seen)
	{
	  seen = now;
	  idle = 0;
	}
      uint64_t scale = seen >= 0 ? units : 1;
      if (idle >= LOCK_IDLE_MS * scale || waited >= LOCK_MAX_MS * scale)
	return -1;
      sleep_1ms ();
    }
}

/* Drop the progress lock and the file's lock.  Before the descriptor is
   closed: a fork in another thread may have a copy of it, which would keep
   the locks.  */
void
unlock_file (struct stub *st)
{
  show_progress (st, F_UNLCK, 0);
  syscall6 (SYS_flock, st->file, LOCK_UN, 0, 0, 0, 0);
}
