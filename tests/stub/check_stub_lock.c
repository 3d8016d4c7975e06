/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Unit tests of the bounds on the stub's waiting (stub/lock.c,
   stub/repair.c): whatever locks another process holds or grows on the
   object's file, and whatever pages of it that process keeps mapped, a
   start waits for it at most 20 ms in all, with 2 MiB and 32 MiB chunks,
   unless the holder does the start's work (then the start follows it);
   against the fake kernel, whose clock only sleeping advances.  */
#define _GNU_SOURCE		/* F_OFD_GETLK */
/* Before the system headers, whose definitions of the same constants win
   quietly.  */
#include "runtime.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "fake_kernel.h"

#define BOUND_NS 20000000ULL
#define MS_NS 1000000ULL

static const uint64_t chunk_sizes[] = { (uint64_t) 2 << 20, (uint64_t) 32 << 20 };

static struct stub_params params;

/* The lock holder: flock is never free; an open file description read
   lock, if the stub asks, grows by one byte at every look (what a holder
   at work would show); mincore shows every page cached (another process
   maps them all, so nothing is ever evicted); the pagemap says nothing is
   mapped.  */
static int64_t progress;
static long lock_calls;

static int
holder (const struct fake_call *c, long *ret)
{
  switch (c->n)
    {
    case SYS_flock:
      lock_calls++;
      *ret = (c->b & LOCK_UN) ? 0 : -EWOULDBLOCK;
      return 1;
    case SYS_fcntl:
      if (c->b == F_OFD_GETLK)
	{
	  struct
	  {
	    short type, whence;
	    int64_t start, len;
	    int pid, pad;
	  } *l = (void *) c->c;
	  l->type = F_RDLCK;
	  l->start = 0;
	  l->len = ++progress;
	}
      *ret = 0;
      return 1;
    case SYS_mincore:
      for (long k = 0; k < c->b / (long) fake.page; k++)
	((unsigned char *) c->c)[k] = 1;
      *ret = 0;
      return 1;
    case SYS_madvise:
    case SYS_fadvise64:
    case SYS_sync_file_range:
      *ret = 0;
      return 1;
    }
  return 0;
}

static struct stub
set_up (uint64_t pmd)
{
  fake_reset ();
  fake.hook = holder;
  fake.page = pmd == ((uint64_t) 2 << 20) ? 4096 : 16384;
  progress = 0;
  lock_calls = 0;
  params = (struct stub_params) { .pmd = pmd, .flags = STUB_FLAG_EXE };
  static char maps[128];
  snprintf (maps, sizeof maps, "40000000-%llx r-xp 00000000 08:01 42 /prog\n",
	    (unsigned long long) (0x40000000 + 8 * pmd));
  fake_file ("/proc/self/maps", maps, 0);
  struct fake_file *exe = fake_file ("/proc/self/exe", "\177ELF", 0);
  exe->dev = 0x801;
  exe->ino = 42;
  fake_file ("/proc/self/pagemap", NULL, (size_t) 1 << 40);
  fake_file ("/proc/self/mountinfo", "", 0);
  struct stub st = {
    .p = &params, .self = 0x40000000, .pmd = pmd, .page = fake.page, .pagemap = -2,
    .scan = 0, .file = -2, .exe = -2, .cachestat = -1, .guard = -2, .fs = EXT4_SUPER_MAGIC,
    .kernel = KV (6, 18),
  };
  return st;
}

/* lock_file alone: a holder that never lets go, showing progress.  */
START_TEST (test_lock_bound)
{
  struct stub st = set_up (chunk_sizes[_i]);
  ck_assert_int_ge (open_object_file (&st), 0);
  ck_assert_int_eq (lock_file (&st), 0);
  ck_assert_msg (fake.slept_ns <= BOUND_NS, "%llu MiB chunks: waited %llu us for the lock",
		 (unsigned long long) (chunk_sizes[_i] >> 20),
		 (unsigned long long) fake.slept_ns / 1000);
  ck_assert_int_gt (lock_calls, 1);
}
END_TEST

/* Sleeps of 1 ms that take 3 (an emulator, a busy machine): the bound is
   on the time that passes, so fewer polls; at most one sleep's overshoot
   past it.  */
START_TEST (test_oversleep)
{
  struct stub st = set_up (chunk_sizes[_i]);
  fake.oversleep_ns = 2000000;
  uint64_t dropped[SET_WORDS] = { 0xff };
  repair_range (&st, st.self, 8, 0, dropped);
  uint64_t passed = fake.now_ns - FAKE_CLOCK_START_NS;
  ck_assert_msg (passed <= BOUND_NS + fake.oversleep_ns,
		 "%llu MiB chunks, 3 ms sleeps: %llu us passed waiting",
		 (unsigned long long) (chunk_sizes[_i] >> 20), (unsigned long long) passed / 1000);
  ck_assert_int_le (fake_calls (SYS_clock_nanosleep), 7);
}
END_TEST

/* A holder that lets go after 5 ms: the lock is taken then.  */
static int
brief_holder (const struct fake_call *c, long *ret)
{
  if (c->n == SYS_flock)
    {
      *ret = fake.now_ns - FAKE_CLOCK_START_NS >= 5000000 ? 0 : -EWOULDBLOCK;
      return 1;
    }
  return holder (c, ret);
}

START_TEST (test_lock_taken)
{
  struct stub st = set_up (chunk_sizes[_i]);
  fake.hook = brief_holder;
  ck_assert_int_ge (open_object_file (&st), 0);
  ck_assert_int_eq (lock_file (&st), 1);
  ck_assert_uint_eq (fake.slept_ns, 5000000);
}
END_TEST

/* flock refused (EINVAL, ENOLCK): no wait at all.  */
static int
no_flock (const struct fake_call *c, long *ret)
{
  if (c->n == SYS_flock)
    {
      *ret = -ENOLCK;
      return 1;
    }
  return holder (c, ret);
}

START_TEST (test_lock_unusable)
{
  struct stub st = set_up (chunk_sizes[_i]);
  fake.hook = no_flock;
  ck_assert_int_ge (open_object_file (&st), 0);
  ck_assert_int_eq (lock_file (&st), 0);
  ck_assert_uint_eq (fake.slept_ns, 0);
}
END_TEST

/* The whole repair of eight dropped chunks: the lock never free, every
   page kept mapped by the holder.  */
START_TEST (test_repair_bound)
{
  uint64_t pmd = chunk_sizes[_i];
  struct stub st = set_up (pmd);
  uint64_t dropped[SET_WORDS] = { 0xff };
  repair_range (&st, st.self, 8, 0, dropped);
  ck_assert_msg (fake.slept_ns <= BOUND_NS, "%llu MiB chunks: waited %llu us in a repair",
		 (unsigned long long) (pmd >> 20), (unsigned long long) fake.slept_ns / 1000);
  /* The wait ran out and the start repairs its own chunks without the
     lock: each evicted once at least.  */
  ck_assert_int_ge (fake_calls (SYS_fadvise64), 8);
}
END_TEST

/* A holder at work: the lock held while it repairs the eight chunks one
   after the other, chunk K evicted at (3K + 1) ms and read back as one PMD
   folio at (3K + 3) ms (SMALL: in small folios, every 3 ms again, by a
   holder that only pretends), then let go.  24 ms in all: more than
   WAIT_MAX_MS, and a chunk finished every 3 ms, within LOCK_WAIT_MS.  */
static int small_folios, evict_whole;

static uint64_t
since_start_ms (void)
{
  return (fake.now_ns - FAKE_CLOCK_START_NS) / 1000000;
}

/* 0: cached small (before the holder came to it), 1: evicted, 2: read back.
   A holder that has seen a PMD folio of the file (LAZY_HOLDER) evicts
   chunk K whole at K + 1 ms and leaves it so, for its program's fault, and
   lets the lock go at 9 ms.  */
static int lazy_holder;

static int
chunk_state (uint64_t k)
{
  uint64_t t = since_start_ms ();
  if (lazy_holder)
    return t < k + 1 ? 0 : 1;
  if (t < 3 * k + 1)
    return 0;
  if (small_folios)
    return (t - (3 * k + 1)) % 3 == 2 ? 2 : 1;
  return t < 3 * k + 3 ? 1 : 2;
}

static int
worker (const struct fake_call *c, long *ret)
{
  uint64_t pmd = params.pmd;
  switch (c->n)
    {
    case SYS_flock:
      *ret = (c->b & LOCK_UN) || (since_start_ms () >= (lazy_holder ? 9 : 24) && !small_folios)
	? 0 : -EWOULDBLOCK;
      return 1;
    case SYS_mincore:
      {
	/* Evicted: its first page gone (the holder is still at work on
	   the rest), or all of it with EVICT_WHOLE.  */
	uint64_t k = ((uint64_t) c->a - 0x40000000) / pmd;
	uint64_t first = ((uint64_t) c->a - 0x40000000) % pmd / fake.page;
	for (long p = 0; p < c->b / (long) fake.page; p++)
	  ((unsigned char *) c->c)[p] = chunk_state (k) != 1
	    || (!evict_whole && first + (uint64_t) p != 0);
	*ret = 0;
	return 1;
      }
    case SYS_pread64:
      if (c->c == 8 && (uint64_t) c->d >= 0x40000000 / fake.page * 8)
	{
	  uint64_t k = ((uint64_t) c->d / 8 * fake.page - 0x40000000) / pmd;
	  *(uint64_t *) c->b = chunk_state (k) == 2 && !small_folios ? 1ULL << 63 : 0;
	  *ret = 8;
	  return 1;
	}
      return 0;
    }
  return holder (c, ret);
}

/* Repair eight dropped chunks of PMD bytes (DROPPED) while the worker
   holds the lock, reading chunks back in small folios when SMALL.  */
static struct stub
repair_beside_worker (uint64_t pmd, int small, uint64_t *dropped)
{
  struct stub st = set_up (pmd);
  fake.hook = worker;
  small_folios = small;
  evict_whole = lazy_holder = 0;
  dropped[0] = 0xff;
  repair_range (&st, st.self, 8, 0, dropped);
  return st;
}

/* The start follows the holder's work past WAIT_MAX_MS and maps each chunk
   it reads back: nothing left to repair, nothing evicted by the start.  */
START_TEST (test_follow_holder)
{
  uint64_t dropped[SET_WORDS] = { 0 };
  repair_beside_worker (chunk_sizes[_i], 0, dropped);
  ck_assert_msg (dropped[0] == 0, "%llu MiB chunks: left to repair %#llx",
		 (unsigned long long) (chunk_sizes[_i] >> 20), (unsigned long long) dropped[0]);
  ck_assert_int_eq (fake_calls (SYS_fadvise64), 0);
  ck_assert_msg (fake.slept_ns > BOUND_NS && fake.slept_ns <= 25000000,
		 "%llu MiB chunks: waited %llu us for a holder working 24 ms",
		 (unsigned long long) (chunk_sizes[_i] >> 20),
		 (unsigned long long) fake.slept_ns / 1000);
}
END_TEST

/* A holder that evicts the start's chunks whole and leaves them so (it has
   seen the file's PMD folios: repair.c, leave_to_program): the start is
   done with each as it sees it evicted, evicts and touches none itself,
   and the holder earns nothing (an eviction is no work to speak of).  */
START_TEST (test_follow_lazy_holder)
{
  struct stub st = set_up (chunk_sizes[_i]);
  st.edge_known = 1;		/* no chunk near a neighbour's read-ahead */
  fake.hook = worker;
  small_folios = 0;
  evict_whole = lazy_holder = 1;
  uint64_t dropped[SET_WORDS] = { 0xff };
  repair_range (&st, st.self, 8, 0, dropped);
  lazy_holder = 0;
  ck_assert_msg (dropped[0] == 0, "%llu MiB chunks: left to repair %#llx",
		 (unsigned long long) (chunk_sizes[_i] >> 20), (unsigned long long) dropped[0]);
  ck_assert_int_eq (fake_calls (SYS_fadvise64), 0);
  ck_assert_int_eq (fake.ntouched, 0);
  ck_assert_uint_eq (st.earned, 0);
  ck_assert_msg (fake.slept_ns <= 10000000, "%llu MiB chunks: waited %llu us for a lazy holder",
		 (unsigned long long) (chunk_sizes[_i] >> 20),
		 (unsigned long long) fake.slept_ns / 1000);
}
END_TEST

/* A holder that evicts the chunks and reads them back in small folios, again
   and again, earns nothing: the bound holds, and the start lets each
   chunk go again and repairs them itself.  */
START_TEST (test_follow_pretender)
{
  uint64_t dropped[SET_WORDS] = { 0 };
  struct stub st = repair_beside_worker (chunk_sizes[_i], 1, dropped);
  ck_assert_msg (fake.slept_ns <= BOUND_NS, "%llu MiB chunks: waited %llu us for a pretender",
		 (unsigned long long) (chunk_sizes[_i] >> 20),
		 (unsigned long long) fake.slept_ns / 1000);
  ck_assert_uint_eq (st.earned, 0);
  ck_assert_int_ge (fake_calls (SYS_fadvise64), 1);
}
END_TEST

/* A holder whose file is slow to look at: every mincore takes 2 ms (an
   emulator, 32 MiB chunks).  The looks at the holder's work count as
   waiting: eight chunks looked at once take longer than LOCK_WAIT_MS, so
   the start hardly sleeps for the lock, and the whole wait (sleeps and
   looks) stays within the bound plus one round of looks.  */
static int
slow_looks (const struct fake_call *c, long *ret)
{
  if (c->n == SYS_mincore)
    fake.now_ns += 2000000;
  return holder (c, ret);
}

START_TEST (test_slow_looks)
{
  struct stub st = set_up (chunk_sizes[_i]);
  fake.hook = slow_looks;
  uint64_t dropped[SET_WORDS] = { 0xff };
  repair_range (&st, st.self, 8, 0, dropped);
  ck_assert_msg (fake.slept_ns <= 5000000, "%llu MiB chunks: slept %llu us besides %llu us of looks",
		 (unsigned long long) (chunk_sizes[_i] >> 20), (unsigned long long) fake.slept_ns / 1000,
		 (unsigned long long) (st.waited - fake.slept_ns) / 1000);
  ck_assert_uint_le (st.waited, BOUND_NS + 8 * (chunk_sizes[_i] / fake.page / 512) * 2000000);
}
END_TEST

/* One process loading 24 objects with a stub, the lock of each held by
   an idle holder: the first stub to wait makes the process's ledger (one
   shared anonymous page, "/dev/zero (deleted)" in the maps), the others
   find it, and all of them wait WAIT_MAX_MS in all, not each.  OBJECTS
   objects, each repairing eight dropped chunks; return the ledgers made.  */
static int
load_objects (uint64_t pmd, int objects)
{
  struct stub first = set_up (pmd);
  for (int k = 0; k < objects; k++)
    {
      struct stub st = first;
      uint64_t dropped[SET_WORDS] = { 0xff };
      repair_range (&st, st.self, 8, 0, dropped);
      if (st.file >= 0)
	sys_close (st.file);
      if (st.pagemap >= 0)
	sys_close (st.pagemap);
      if (st.exe >= 0)
	sys_close (st.exe);
      scratch_free (&st);
    }
  return fake.nshared;
}

START_TEST (test_process_bound)
{
  int made = load_objects (chunk_sizes[_i], 24);
  ck_assert_msg (fake.slept_ns <= BOUND_NS, "%llu MiB chunks: 24 objects waited %llu us in all",
		 (unsigned long long) (chunk_sizes[_i] >> 20),
		 (unsigned long long) fake.slept_ns / 1000);
  /* Waited at all (the bound is not met by never waiting), with one
     ledger, of one page, whose count is what was waited.  */
  ck_assert_uint_ge (fake.slept_ns, 10000000);
  ck_assert_int_eq (made, 1);
  ck_assert_uint_eq (fake.shared_len[0], fake.page);
  const struct ledger *lg = (const struct ledger *) fake.shared[0];
  ck_assert_uint_eq (lg->magic, LEDGER_MAGIC);
  ck_assert_uint_ge (lg->waited, fake.slept_ns);
  ck_assert_uint_le (lg->waited, BOUND_NS + MS_NS);
  /* Every object still repaired its own chunks, without the lock.  */
  ck_assert_int_ge (fake_calls (SYS_fadvise64), 24 * 8);
}
END_TEST

/* The sanity arm: each object alone (a process of its own) waits up to
   the bound; 24 such waits in one process, as before the ledger, are what
   test_process_bound rules out.  */
START_TEST (test_object_alone)
{
  int made = load_objects (chunk_sizes[_i], 1);
  ck_assert_int_eq (made, 1);
  ck_assert_uint_ge (fake.slept_ns, 10000000);
  uint64_t one = fake.slept_ns;
  ck_assert_uint_gt (24 * one, BOUND_NS);
}
END_TEST

/* No ledger can be made (mmap refuses shared memory): no waiting at all;
   the objects repair without the lock.  */
START_TEST (test_no_ledger)
{
  struct stub st = set_up (chunk_sizes[_i]);
  fake.no_shared = 1;
  uint64_t dropped[SET_WORDS] = { 0xff };
  repair_range (&st, st.self, 8, 0, dropped);
  ck_assert_uint_eq (fake.slept_ns, 0);
  ck_assert_int_eq (fake.nshared, 0);
  ck_assert_int_ge (fake_calls (SYS_fadvise64), 8);
}
END_TEST

/* The maps cannot be read once the lock was tried, when the ledger is
   looked for (a ledger may be there unseen): no waiting, and no new
   ledger.  (Without the ledger, the start waited for the lock here.)  */
static int
maps_gone (const struct fake_call *c, long *ret)
{
  if (c->n == SYS_openat && lock_calls > 0 && strcmp ((const char *) c->b, "/proc/self/maps") == 0)
    {
      *ret = -EACCES;
      return 1;
    }
  return holder (c, ret);
}

START_TEST (test_maps_unreadable)
{
  struct stub st = set_up (chunk_sizes[_i]);
  fake.hook = maps_gone;
  uint64_t dropped[SET_WORDS] = { 0xff };
  repair_range (&st, st.self, 8, 0, dropped);
  ck_assert_int_gt (lock_calls, 0);
  ck_assert_uint_eq (fake.slept_ns, 0);
  ck_assert_int_eq (fake.nshared, 0);
}
END_TEST

/* Shared anonymous pages that are not a ledger (the program's own: the
   wrong magic word, the wrong size, a ledger's words at another address)
   are left alone: a ledger of the stub's own is made beside them, and the
   decoys are not written.  */
START_TEST (test_ledger_decoys)
{
  struct stub st = set_up (chunk_sizes[_i]);
  uint64_t page = fake.page;
  long a = syscall6 (SYS_mmap, 0, (long) page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  long b = syscall6 (SYS_mmap, 0, (long) (2 * page), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  long c = syscall6 (SYS_mmap, 0, (long) page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ck_assert (a > 0 && b > 0 && c > 0);
  struct ledger *la = (void *) a, *lb = (void *) b, *lc = (void *) c;
  *la = (struct ledger) { 0x1234, (uint64_t) a, 0 };
  *lb = (struct ledger) { LEDGER_MAGIC, (uint64_t) b, 0 };
  *lc = (struct ledger) { LEDGER_MAGIC, (uint64_t) a, 0 };
  uint64_t dropped[SET_WORDS] = { 0xff };
  repair_range (&st, st.self, 8, 0, dropped);
  ck_assert_int_eq (fake.nshared, 4);
  ck_assert_uint_eq (la->waited + lb->waited + lc->waited, 0);
  const struct ledger *mine = (const struct ledger *) fake.shared[3];
  ck_assert_uint_eq (mine->magic, LEDGER_MAGIC);
  ck_assert_uint_eq (mine->waited, st.waited);
  ck_assert_uint_gt (fake.slept_ns, 0);
}
END_TEST

/* A ledger already spent (an earlier object of the process waited all it
   may): the next object does not sleep at all.  */
START_TEST (test_ledger_spent)
{
  struct stub st = set_up (chunk_sizes[_i]);
  long a = syscall6 (SYS_mmap, 0, (long) fake.page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  ck_assert (a > 0);
  *(struct ledger *) a = (struct ledger) { LEDGER_MAGIC, (uint64_t) a, BOUND_NS };
  uint64_t dropped[SET_WORDS] = { 0xff };
  repair_range (&st, st.self, 8, 0, dropped);
  ck_assert_uint_eq (fake.slept_ns, 0);
  ck_assert_int_eq (fake.nshared, 1);
  ck_assert_ptr_eq (st.ledger, (void *) a);
}
END_TEST

/* The page cache of one chunk (at 0x40000000), for the repairs below:
   0 empty, 1 cached whole in small folios, 2 one PMD folio, 3 its second
   half cached in small folios.  Nobody holds
   the lock or maps the chunk; a fault in it while it is empty reads it in
   small folios the first SMALL_READS times (another process's fault won
   the race, or the file system cannot do better), then as one PMD folio.  */
static int cache_state, reads_seen, small_reads, touches_seen;

static void
follow_touches (void)
{
  for (; touches_seen < fake.ntouched; touches_seen++)
    if (cache_state == 0)
      cache_state = reads_seen++ < small_reads ? 1 : 2;
}

static int
one_chunk (const struct fake_call *c, long *ret)
{
  follow_touches ();
  switch (c->n)
    {
    case SYS_flock:
      *ret = 0;
      return 1;
    case SYS_fadvise64:
      cache_state = 0;
      *ret = 0;
      return 1;
    case SYS_mincore:
      for (long p = 0; p < c->b / (long) fake.page; p++)
	((unsigned char *) c->c)[p] = cache_state == 3
	  ? ((uint64_t) c->a - 0x40000000) / fake.page + (uint64_t) p >= 256 : cache_state != 0;
      *ret = 0;
      return 1;
    case SYS_pread64:
      if (c->c == 8 && (uint64_t) c->d >= 0x40000000 / fake.page * 8)
	{
	  *(uint64_t *) c->b = cache_state == 2 ? 1ULL << 63 : 0;
	  *ret = 8;
	  return 1;
	}
      return 0;
    }
  return holder (c, ret);
}

static struct stub
set_up_one_chunk (int small)
{
  struct stub st = set_up ((uint64_t) 2 << 20);
  fake.hook = one_chunk;
  /* For a chunk mapped afresh (remap_chunk reads the BTI guard where the
     stub is built for arm64).  */
  fake_file ("/proc/self/smaps", "40000000-41000000 r-xp 00000000 08:01 42 /prog\n"
	     "VmFlags: rd ex mr mw me\n", 0);
  cache_state = 1;
  reads_seen = touches_seen = 0;
  small_reads = small;
  return st;
}

/* A chunk read back in small folios once (another start's fault read it
   while the chunk was being evicted) is evicted and read again: repaired,
   and the file not taken for one that cannot have PMD folios.  */
START_TEST (test_small_read_once)
{
  struct stub st = set_up_one_chunk (1);
  uint64_t dropped[SET_WORDS] = { 1 };
  repair_range (&st, st.self, 1, 0, dropped);
  ck_assert_int_eq (cache_state, 2);
  ck_assert_int_eq (reads_seen, 2);
  ck_assert_int_eq (st.no_file_folios, 0);
  ck_assert_int_eq (st.stop, 0);
}
END_TEST

/* Read back in small folios every time: the file system cannot give the
   file PMD folios; the stub stops repairing after REPAIR_READS reads.  */
START_TEST (test_small_reads_always)
{
  struct stub st = set_up_one_chunk (1000);
  uint64_t dropped[SET_WORDS] = { 1 };
  repair_range (&st, st.self, 1, 0, dropped);
  ck_assert_int_eq (cache_state, 1);
  ck_assert_int_eq (reads_seen, REPAIR_READS);
  ck_assert_int_eq (st.no_file_folios, 1);
  ck_assert_int_eq (st.stop, 1);
}
END_TEST

/* Once this start has seen a PMD folio of the file (a chunk PMD-mapped),
   an evicted chunk is left to the program (repair.c, leave_to_program):
   not touched, not read back; where MADV_DONTNEED keeps the page table
   (TABLE_STAYS, before 6.14), mapped afresh so that the program's fault
   can map it with a PMD.  Before that, the first chunk is read back at
   once, which shows whether the file system can give PMD folios
   (test_small_read_once, test_small_reads_always).  */
START_TEST (test_left_to_program)
{
  struct stub st = set_up_one_chunk (0);
  st.pmd_folios_seen = 1;
  st.table_stays = _i;
  st.edge_known = 1;		/* no chunk near a neighbour's read-ahead */
  uint64_t dropped[SET_WORDS] = { 1 };
  repair_range (&st, st.self, 1, 0, dropped);
  ck_assert_int_eq (dropped[0], 0);
  ck_assert_int_eq (fake_calls (SYS_fadvise64), 1);
  ck_assert_int_eq (cache_state, 0);
  ck_assert_int_eq (reads_seen, 0);
  ck_assert_int_eq (fake_calls (SYS_mmap) - (st.scratch != NULL), _i);
  ck_assert_int_eq (st.stop, 0);
  ck_assert_int_eq (st.no_file_folios, 0);
}
END_TEST

/* Cached in part (a fault beside the text read ahead into it): evicted
   and left to the program, though no PMD folio of the file was seen; a
   fault of the program reads it whole, and the next start, finding it
   cached whole in small folios, would read it back itself.  */
START_TEST (test_part_left_to_program)
{
  struct stub st = set_up_one_chunk (0);
  st.edge_known = 1;
  cache_state = 3;
  uint64_t dropped[SET_WORDS] = { 1 };
  repair_range (&st, st.self, 1, 0, dropped);
  ck_assert_int_eq (dropped[0], 0);
  ck_assert_int_eq (cache_state, 0);
  ck_assert_int_eq (reads_seen, 0);
  ck_assert_int_eq (fake.ntouched, 0);
}
END_TEST

/* Near the range's ends, within the read-ahead of the file's other
   mappings, a chunk is read back at once even once a PMD folio was seen:
   a program starting meanwhile would read small folios into it before the
   program gets there (three starts at once, Linux 6.1).  */
START_TEST (test_edge_read_back)
{
  struct stub st = set_up_one_chunk (0);
  st.pmd_folios_seen = 1;
  st.edge_known = 1;
  st.edge = 1;
  uint64_t dropped[SET_WORDS] = { 1 };
  repair_range (&st, st.self, 1, 0, dropped);
  ck_assert_int_eq (cache_state, 2);
  ck_assert_int_eq (reads_seen, 1);
}
END_TEST

/* Not seen yet: the chunk is read back at once, as one PMD folio, and
   that PMD mapping is what the rest of the start goes by.  */
START_TEST (test_read_back_first)
{
  struct stub st = set_up_one_chunk (0);
  uint64_t dropped[SET_WORDS] = { 1 };
  repair_range (&st, st.self, 1, 0, dropped);
  ck_assert_int_eq (cache_state, 2);
  ck_assert_int_eq (reads_seen, 1);
  ck_assert_int_eq (st.pmd_folios_seen, 1);
}
END_TEST

static Suite *
lock_suite (void)
{
  Suite *s = suite_create ("stub waits");
  TCase *tc = tcase_create ("bounds");
  tcase_add_loop_test (tc, test_lock_bound, 0, 2);
  tcase_add_loop_test (tc, test_lock_taken, 0, 2);
  tcase_add_loop_test (tc, test_lock_unusable, 0, 2);
  tcase_add_loop_test (tc, test_repair_bound, 0, 2);
  tcase_add_loop_test (tc, test_oversleep, 0, 2);
  tcase_add_loop_test (tc, test_follow_holder, 0, 2);
  tcase_add_loop_test (tc, test_follow_lazy_holder, 0, 2);
  tcase_add_loop_test (tc, test_left_to_program, 0, 2);
  tcase_add_test (tc, test_read_back_first);
  tcase_add_test (tc, test_part_left_to_program);
  tcase_add_test (tc, test_edge_read_back);
  tcase_add_loop_test (tc, test_follow_pretender, 0, 2);
  tcase_add_loop_test (tc, test_slow_looks, 0, 2);
  tcase_add_test (tc, test_small_read_once);
  tcase_add_test (tc, test_small_reads_always);
  tcase_add_loop_test (tc, test_process_bound, 0, 2);
  tcase_add_loop_test (tc, test_object_alone, 0, 2);
  tcase_add_loop_test (tc, test_no_ledger, 0, 2);
  tcase_add_loop_test (tc, test_maps_unreadable, 0, 2);
  tcase_add_loop_test (tc, test_ledger_decoys, 0, 2);
  tcase_add_loop_test (tc, test_ledger_spent, 0, 2);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  return run_suite (lock_suite ());
}
