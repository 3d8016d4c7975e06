/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* Unit tests of the guard of the text's neighbours (stub/guard.c) and of
   what it spares the populate step (stub/populate.c), against the fake
   kernel: which parts of which mappings are advised at each read-ahead,
   what is never advised (another file, anonymous memory, MADV_HUGEPAGE on
   writable data), and that every failure leaves the stub populating the
   text's ends as it did without a guard.  */
/* Before the system headers, whose definitions of the same constants win
   quietly.  */
#include "runtime.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "fake_kernel.h"

#define PMD ((uint64_t) 2 << 20)
#define MIB ((uint64_t) 1 << 20)
#define BASE 0x555500000000UL	/* where the file's offset 0 is mapped */
#define TEXT_OFFSET (4 * MIB)	/* the text range: 6 chunks */
#define TEXT_CHUNKS 6

static struct stub_params params;
static char maps[8192];
static struct fake_file *maps_file;
static long refused_advice;	/* madvise with this advice fails, but on the text */
/* cachestat: -ENOSYS (before 6.5), or the chunks of the text (bits, by
   index) a read-ahead is filling: in the cache, not read yet, so that
   mincore counts none of their pages.  */
static long cachestat_result;
static uint64_t reading;

/* Chunks (addresses) the page cache holds whole in small folios.  */
#define MAX_SMALL 8
static uintptr_t small[MAX_SMALL];
static int nsmall;

static int
in_small (uintptr_t addr)
{
  for (int k = 0; k < nsmall; k++)
    if (addr >= small[k] && addr < small[k] + PMD)
      return 1;
  return 0;
}

/* madvise works (but REFUSED_ADVICE outside the text range), cachestat
   answers CACHESTAT_RESULT (counting the READING chunks' pages), mincore
   finds nothing cached but the SMALL chunks, PAGEMAP_SCAN finds every
   chunk PMD-mapped but those.  */
static int
kernel (const struct fake_call *c, long *ret)
{
  switch (c->n)
    {
    case SYS_madvise:
      *ret = c->c == refused_advice && c->a != (long) (BASE + TEXT_OFFSET) ? -EINVAL : 0;
      return 1;
    case SYS_cachestat:
      {
	const uint64_t *range = (const uint64_t *) c->b;
	uint64_t *stat = (uint64_t *) c->c;
	*ret = cachestat_result;
	if (*ret == 0 && range[0] >= TEXT_OFFSET && range[0] < TEXT_OFFSET + TEXT_CHUNKS * PMD)
	  stat[0] = (reading >> ((range[0] - TEXT_OFFSET) / PMD) & 1) ? 512 : 0;
	return 1;
      }
    case SYS_mincore:
      for (long k = 0; k < (c->b + 4095) / 4096; k++)
	((unsigned char *) c->c)[k] = (unsigned char) in_small ((uintptr_t) c->a + (uintptr_t) k * 4096);
      *ret = 0;
      return 1;
    case SYS_ioctl:
      {
	uint64_t *arg = (uint64_t *) c->c;
	uint64_t *regions = (uint64_t *) arg[5];
	arg[4] = arg[3];
	*ret = 0;
	if (!in_small (arg[2]))
	  {
	    regions[0] = arg[2];
	    regions[1] = arg[3];
	    regions[2] = 1 << 6;	/* PAGE_IS_HUGE */
	    *ret = 1;
	  }
	return 1;
      }
    }
  return 0;
}

/* Append a line of /proc/self/maps: file offsets [FROM, TO) of the file
   INO mapped at BASE + FROM with PERMS.  */
static void
add_map (uint64_t from, uint64_t to, const char *perms, int ino)
{
  size_t at = strlen (maps);
  snprintf (maps + at, sizeof maps - at, "%lx-%lx %s %08lx 08:01 %d /usr/bin/prog\n",
	    (unsigned long) (BASE + from), (unsigned long) (BASE + to), perms,
	    (unsigned long) from, ino);
}

/* A program whose text range is file offsets [4, 16) MiB, on a device of
   READ_AHEAD_KB (none when negative): the headers and read-only data
   before it [0, 2), the text's mapping [2, 18), read-only data after it
   [18, 26), data [26, 26.0625) (writable), another file's text right
   after it (inode 43), the same inode on another device, and anonymous
   memory.  */
static struct stub
set_up (long read_ahead_kb)
{
  fake_reset ();
  fake.hook = kernel;
  refused_advice = -1;
  cachestat_result = -ENOSYS;
  reading = 0;
  nsmall = 0;
  params = (struct stub_params) {
    .pmd = PMD, .flags = STUB_FLAG_EXE, .nranges = 1, .populate_max = 64,
    .range = { { .start = 0, .length = TEXT_CHUNKS * PMD, .file_offset = TEXT_OFFSET } },
  };
  maps[0] = '\0';
  size_t at;
  add_map (0, 2 * MIB - 4096, "r--p", 42);
  add_map (2 * MIB, 18 * MIB, "r-xp", 42);
  add_map (18 * MIB, 26 * MIB, "r--p", 42);
  add_map (26 * MIB, 26 * MIB + 65536, "rw-p", 42);
  add_map (27 * MIB, 29 * MIB, "r-xp", 43);
  /* The same inode on other devices.  */
  at = strlen (maps);
  snprintf (maps + at, sizeof maps - at, "%lx-%lx r--p 00000000 08:02 42 /mnt/prog\n"
	    "%lx-%lx r--p 00000000 09:01 42 /mnt/prog\n",
	    (unsigned long) (BASE + 29 * MIB), (unsigned long) (BASE + 29 * MIB + 65536),
	    (unsigned long) (BASE + 29 * MIB + 65536), (unsigned long) (BASE + 30 * MIB));
  at = strlen (maps);
  snprintf (maps + at, sizeof maps - at, "%lx-%lx rw-p 00000000 00:00 0 \n",
	    (unsigned long) (BASE + 30 * MIB), (unsigned long) (BASE + 32 * MIB));
  maps_file = fake_file ("/proc/self/maps", maps, 0);
  maps_file->max_read = 100;
  struct fake_file *exe = fake_file ("/proc/self/exe", NULL, 27 * MIB);
  exe->dev = 0x801;
  exe->ino = 42;
  if (read_ahead_kb >= 0)
    {
      static char kb[32];
      snprintf (kb, sizeof kb, "%ld\n", read_ahead_kb);
      fake_file ("/sys/dev/block/8:1/queue/read_ahead_kb", kb, 0);
    }
  struct stub st = {
    .p = &params, .self = BASE + TEXT_OFFSET, .pmd = PMD, .page = 4096, .pagemap = -2,
    .scan = -1, .file = -2, .exe = -2, .cachestat = -1, .secure = -1, .guarded = -1,
  };
  return st;
}

/* Whether madvise(BASE + FROM, TO - FROM, ADVICE) was called.  */
static int
advised (uint64_t from, uint64_t to, long advice)
{
  for (int i = 0; i < fake.ncalls; i++)
    if (fake.calls[i].n == SYS_madvise && fake.calls[i].a == (long) (BASE + from)
	&& fake.calls[i].b == (long) (to - from) && fake.calls[i].c == advice)
      return 1;
  return 0;
}

/* How many madvise calls asked for ADVICE.  */
static int
count_advice (long advice)
{
  int n = 0;
  for (int i = 0; i < fake.ncalls; i++)
    n += fake.calls[i].n == SYS_madvise && fake.calls[i].c == advice;
  return n;
}

/* A read-only part: MADV_HUGEPAGE and MADV_RANDOM.  */
static void
assert_guarded (uint64_t from, uint64_t to)
{
  ck_assert_msg (advised (from, to, MADV_HUGEPAGE) && advised (from, to, MADV_RANDOM),
		 "[%#lx, %#lx) not advised MADV_HUGEPAGE and MADV_RANDOM",
		 (unsigned long) from, (unsigned long) to);
}

/* What stub_main does at its end, and every descriptor closed.  */
static void
done (struct stub *st)
{
  scratch_free (st);
  if (st->pagemap >= 0)
    sys_close (st->pagemap);
  if (st->file >= 0)
    sys_close (st->file);
  if (st->exe >= 0)
    sys_close (st->exe);
  ck_assert_int_eq (fake.anon_bytes, 0);
  ck_assert_int_eq (fake_open_fds (), 0);
}

/* read_ahead_kb 2048: two chunks at each end, a zone of 4 MiB of file
   offsets below the text, [0, 4), and above it, [16, 20).  */
START_TEST (test_zone_2048)
{
  struct stub st = set_up (2048);
  ck_assert_int_eq (guard_neighbours (&st), 1);
  assert_guarded (0, 2 * MIB - 4096);
  assert_guarded (2 * MIB, 4 * MIB);
  assert_guarded (16 * MIB, 18 * MIB);
  assert_guarded (18 * MIB, 20 * MIB);
  ck_assert_int_eq (count_advice (MADV_HUGEPAGE), 4);
  ck_assert_int_eq (count_advice (MADV_RANDOM), 4);
  /* Once per object: a second call reads nothing, advises nothing.  */
  int calls = fake.ncalls;
  ck_assert_int_eq (guard_neighbours (&st), 1);
  ck_assert_int_eq (fake.ncalls, calls);
  done (&st);
}
END_TEST

/* read_ahead_kb 1024: one chunk, a zone of 2 MiB: the head and read-only
   data before the text's mapping are outside it.  */
START_TEST (test_zone_1024)
{
  struct stub st = set_up (1024);
  ck_assert_int_eq (guard_neighbours (&st), 1);
  assert_guarded (2 * MIB, 4 * MIB);
  assert_guarded (16 * MIB, 18 * MIB);
  ck_assert_int_eq (count_advice (MADV_HUGEPAGE), 2);
  ck_assert_int_eq (count_advice (MADV_RANDOM), 2);
  done (&st);
}
END_TEST

/* read_ahead_kb 8192 (a zone of 16 MiB), or not known (no block device:
   every part of the file): all of the file's other mappings, the data
   MADV_RANDOM only; never the other file, never anonymous memory.  */
START_TEST (test_zone_wide)
{
  struct stub st = set_up (_i == 0 ? 8192 : -1);
  ck_assert_int_eq (guard_neighbours (&st), 1);
  assert_guarded (0, 2 * MIB - 4096);
  assert_guarded (2 * MIB, 4 * MIB);
  assert_guarded (16 * MIB, 18 * MIB);
  assert_guarded (18 * MIB, 26 * MIB);
  ck_assert (advised (26 * MIB, 26 * MIB + 65536, MADV_RANDOM));
  ck_assert_int_eq (count_advice (MADV_HUGEPAGE), 4);
  ck_assert_int_eq (count_advice (MADV_RANDOM), 5);
  done (&st);
}
END_TEST

/* MAX_GUARDS parts: all advised; one more: nothing advised, not
   guarded.  */
START_TEST (test_too_many)
{
  struct stub st = set_up (8192);
  /* The text's mapping gives two parts, its head and its tail.  */
  int parts = MAX_GUARDS - 2 + _i;
  maps[0] = '\0';
  for (int k = 0; k < parts; k++)
    add_map ((uint64_t) k * 65536, (uint64_t) (k + 1) * 65536 - 4096, "r--p", 42);
  add_map (2 * MIB, 18 * MIB, "r-xp", 42);
  maps_file->len = strlen (maps);
  ck_assert_int_eq (guard_neighbours (&st), _i == 0);
  ck_assert_int_eq (count_advice (MADV_RANDOM), _i == 0 ? MAX_GUARDS : 0);
  done (&st);
}
END_TEST

/* madvise refused (MADV_HUGEPAGE or MADV_RANDOM), or /proc/self/maps
   unreadable: not guarded.  */
START_TEST (test_refused)
{
  struct stub st = set_up (2048);
  refused_advice = _i == 0 ? MADV_HUGEPAGE : MADV_RANDOM;
  if (_i == 2)
    maps_file->open_errno = EACCES;
  ck_assert_int_eq (guard_neighbours (&st), 0);
  ck_assert_int_eq (guard_neighbours (&st), 0);
  done (&st);
}
END_TEST

/* populate_range with nothing of the text cached: guarded, it touches no
   chunk (the program's faults read each as one PMD folio); unguarded, the
   chunks within the read-ahead of the ends (two at each end at 2048, one
   at 1024), as it did before the guard.  */
START_TEST (test_populate)
{
  static const struct
  {
    long kb;
    int refuse;
    int touched;
  } rows[] = { { 2048, 0, 0 }, { 2048, 1, 4 }, { 1024, 1, 2 }, { 8192, 0, 0 }, { 8192, 1, 6 } };
  struct stub st = set_up (rows[_i].kb);
  if (rows[_i].refuse)
    refused_advice = MADV_RANDOM;
  ck_assert_int_eq (populate_range (&st, BASE + TEXT_OFFSET, TEXT_CHUNKS, TEXT_OFFSET), 0);
  ck_assert_int_eq (st.guarded, !rows[_i].refuse);
  ck_assert_msg (fake.ntouched == rows[_i].touched, "read-ahead %ld KiB, guard %s: %d chunks touched",
		 rows[_i].kb, rows[_i].refuse ? "refused" : "works", fake.ntouched);
  done (&st);
}
END_TEST

/* A shared library's text, two of whose chunks a read-ahead is filling
   when the stub looks (ld.so's faults in the file's first segment start
   it: libjvm.so from a cold cache): mincore counts none of their pages,
   which are not read yet, cachestat counts them.  With cachestat (asked
   of the library's own file, matched by device and inode) exactly those
   two are touched, so that the touch waits for the read, finds them in
   small folios and has them repaired; the others are left to the
   program.  Without cachestat (before 6.5) they cannot be told from
   uncached chunks, and none is touched.  */
START_TEST (test_reading)
{
  struct stub st = set_up (8192);
  params.flags = 0;
  maps[0] = '\0';
  size_t at = strlen (maps);
  snprintf (maps + at, sizeof maps - at, "%lx-%lx r--p 00000000 08:01 42 /usr/lib/libx.so\n"
	    "%lx-%lx r-xp %08lx 08:01 42 /usr/lib/libx.so\n",
	    (unsigned long) BASE, (unsigned long) (BASE + 2 * MIB),
	    (unsigned long) (BASE + 2 * MIB), (unsigned long) (BASE + 18 * MIB), (unsigned long) (2 * MIB));
  maps_file->len = strlen (maps);
  struct fake_file *lib = fake_file ("/usr/lib/libx.so", NULL, 20 * MIB);
  lib->dev = 0x801;
  lib->ino = 42;
  cachestat_result = _i == 0 ? 0 : -ENOSYS;
  reading = (1 << 2) | (1 << 3);
  ck_assert_int_eq (populate_range (&st, BASE + TEXT_OFFSET, TEXT_CHUNKS, TEXT_OFFSET), 0);
  uint64_t touched = 0;
  for (int k = 0; k < fake.ntouched; k++)
    touched |= (uint64_t) 1 << ((fake.touched[k] - (BASE + TEXT_OFFSET)) / PMD);
  ck_assert_msg (touched == (_i == 0 ? reading : 0), "cachestat %s: chunks touched %#llx",
		 _i == 0 ? "works" : "missing", (unsigned long long) touched);
  if (_i == 0)
    ck_assert (fake_opened ("/usr/lib/libx.so", O_PATH));
  done (&st);
}
END_TEST

/* A range of 127 chunks, more than populate_max: a sample of eight.  When
   it finds small chunks at the ends alone (read by the loader's faults
   beside the text), the second pass goes over the rest of the ends, not
   the middle; when it finds one in the middle too, over the whole range.
   At read_ahead_kb 8192 the ends are 8 chunks.  Only which chunks are
   looked at counts here.  */
START_TEST (test_sample_ends)
{
  struct stub st = set_up (8192);
  uint64_t n = 127;
  params.range[0].length = n * PMD;
  maps[0] = '\0';
  add_map (0, 2 * MIB - 4096, "r--p", 42);
  add_map (2 * MIB, TEXT_OFFSET + n * PMD + 2 * MIB, "r-xp", 42);
  maps_file->len = strlen (maps);
  uintptr_t text = BASE + TEXT_OFFSET;
  small[nsmall++] = text;				/* chunk 0: sampled */
  small[nsmall++] = text + 5 * PMD;			/* in the ends, not sampled */
  small[nsmall++] = text + (n - 1) * PMD;		/* sampled */
  if (_i == 1)
    small[nsmall++] = text + 30 * PMD;		/* the middle, not sampled */
  if (_i == 2)
    small[nsmall++] = text + (n * 2 / 5) * PMD;	/* the middle, sampled */
  ck_assert_int_eq (populate_range (&st, text, n, TEXT_OFFSET), 0);
  /* Which chunks were looked at (mincore of their first page).  */
  int middle_seen = 0, five_seen = 0;
  for (int k = 0; k < fake.ncalls; k++)
    if (fake.calls[k].n == SYS_mincore && fake.calls[k].b == 4096)
      {
	uint64_t i = ((uintptr_t) fake.calls[k].a - text) / PMD;
	five_seen |= i == 5;
	middle_seen |= i >= 8 && n - i > 8 && i != n / 5 && i != n * 2 / 5 && i != n * 3 / 5
	  && i != n * 4 / 5;
      }
  ck_assert_msg (five_seen, "the small chunk 5, within the ends, was not looked at");
  if (_i == 2)
    ck_assert_msg (middle_seen, "a small chunk in the middle: the whole range is not looked at");
  else
    ck_assert_msg (!middle_seen, "small chunks at the ends alone: the middle was looked at");
  done (&st);
}
END_TEST

static Suite *
guard_suite (void)
{
  Suite *s = suite_create ("stub guard");
  TCase *t = tcase_create ("guard");
  tcase_add_test (t, test_zone_2048);
  tcase_add_test (t, test_zone_1024);
  tcase_add_loop_test (t, test_zone_wide, 0, 2);
  tcase_add_loop_test (t, test_too_many, 0, 2);
  tcase_add_loop_test (t, test_refused, 0, 3);
  tcase_add_loop_test (t, test_populate, 0, 5);
  tcase_add_loop_test (t, test_sample_ends, 0, 3);
  tcase_add_loop_test (t, test_reading, 0, 2);
  suite_add_tcase (s, t);
  return s;
}

int
main (void)
{
  return run_suite (guard_suite ());
}
