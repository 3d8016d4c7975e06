/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd startup stub: the copy fallback (--madvise=copy, STUB_FLAG_COPY).
   Only where the kernel cannot give the file PMD-sized folios
   (no_file_folios, set by policy.c, main.c and repair.c: the cases
   elfpmd-stub(7), THE COPY FALLBACK, lists against its table), the text
   is copied into anonymous huge pages instead
   (copy_all): never under PR_SET_THP_DISABLE or THP "never", never on
   tmpfs, and only chunks whose pages are all clean file pages, so that the
   copy, read from the file, holds exactly the bytes the process had.  Each
   run of such chunks, up to copy_max bytes in all, is read with pread into
   a fresh PMD-aligned anonymous mapping populated as huge pages, checked to
   be huge pages, made read-only and executable like the text, named after
   the file (PR_SET_VMA_ANON_NAME, 5.17+, where the kernel has it), and
   moved over the text with one mremap, which replaces the file mapping
   atomically; on any error the file mapping stays (or is put back, when
   mremap failed after unmapping it).  */
#include "runtime.h"

/* The kernel's limit on the name of an anonymous mapping, with the NUL.  */
#define ANON_NAME_MAX 80

/* AnonHugePages of the mapping that holds ADDR, in kB, from
   /proc/self/smaps; -1 if it cannot be told.  */
static long
anon_huge_kb (struct stub *st, uintptr_t addr)
{
  char value[256];
  if (smaps_value (st, addr, "AnonHugePages:", value, sizeof value) != 0)
    return -1;
  const char *s = value;
  skip_spaces (&s);
  return (long) parse_number (&s, 10);
}

/* Whether the N chunks of anonymous memory at START are all huge pages:
   with PAGEMAP_SCAN (6.7+) chunk by chunk, else from smaps.  */
static int
anon_huge (struct stub *st, uintptr_t start, uint64_t n)
{
  struct scratch *s = scratch (st);
  if (s == NULL)
    return 0;
  long small = scan_small_chunks (st, start, n, s->bad);
  if (small >= 0)
    return small == 0;
  long kb = anon_huge_kb (st, start);
  return kb >= 0 && (uint64_t) kb >= n * (st->pmd / 1024);
}

/* Put into NAME (ANON_NAME_MAX bytes) the name of the object's copies,
   "elfpmd copy of PATH" (the end of PATH where it is too long), so that
   /proc/PID/maps tells where they came from.  Return 0, or -1 when the
   object has no path.  */
static int
copy_name (struct stub *st, char *name)
{
  if (find_mapping (st, st->self) != 0 || st->scratch->line[0] != '/')
    return -1;
  const char *path = st->scratch->line;
  static const char prefix[] = "elfpmd copy of ";
  int at = 0;
  for (const char *c = prefix; *c != '\0'; c++)
    name[at++] = *c;
  long plen = 0;
  while (path[plen] != '\0')
    plen++;
  long room = ANON_NAME_MAX - 1 - at;
  const char *from = path;
  if (plen > room)
    {
      from = path + plen - (room - 3);
      name[at++] = '.';
      name[at++] = '.';
      name[at++] = '.';
    }
  for (; *from != '\0'; from++)
    {
      /* Characters the kernel refuses in a name.  */
      char c = *from;
      int bad = c < 0x20 || c > 0x7e || c == '\\' || c == '`' || c == '$' || c == '[' || c == ']';
      name[at++] = bad ? '?' : c;
    }
  name[at] = '\0';
  return 0;
}

/* Put the file mapping of [TARGET, TARGET + LEN) (file offset OFFSET)
   back where a failed mremap left the range unmapped: mremap unmaps the
   target before it moves the source, and can fail after that.  A page is
   unmapped where msync(MS_ASYNC), which does nothing to a mapped page
   (since Linux 2.6.19), fails with ENOMEM; msync is in systemd's
   @system-service (@sync), where mincore is not.  */
static void
restore_text (struct stub *st, uintptr_t target, uint64_t len, uint64_t offset, long prot)
{
  for (uint64_t at = 0; at < len; at += st->page)
    if (syscall6 (SYS_msync, (long) (target + at), (long) st->page, MS_ASYNC, 0, 0, 0)
	== -ENOMEM)
      {
	syscall6 (SYS_mmap, (long) target, (long) len, prot, MAP_PRIVATE | MAP_FIXED, st->file,
		  (long) offset);
	return;
      }
}

/* Copy the LEN bytes of text at TARGET (file offset OFFSET, whole chunks
   whose pages are all clean file pages) into anonymous huge pages named
   NAME (none when NAME is empty) and move them over TARGET.  Return 0, or
   -1 when the copy could not be made (no huge page, no memory, a security
   module refusing executable anonymous memory): the text is as it was.  */
static int
copy_run (struct stub *st, uintptr_t target, uint64_t len, uint64_t offset, const char *name)
{
  uint64_t pmd = st->pmd;
  long prot = text_prot (st, target);
  if (prot < 0)
    return -1;
  /* A PMD-aligned anonymous range: LEN + PMD bytes, the ends cut off.  */
  long raw = syscall6 (SYS_mmap, 0, (long) (len + pmd), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw < 0 && raw > -4096)
    return -1;
  uintptr_t copy = ((uintptr_t) raw + pmd - 1) & ~(uintptr_t) (pmd - 1);
  if (copy > (uintptr_t) raw)
    syscall6 (SYS_munmap, raw, (long) (copy - (uintptr_t) raw), 0, 0, 0, 0);
  if ((uintptr_t) raw + pmd > copy)
    syscall6 (SYS_munmap, (long) (copy + len), (long) ((uintptr_t) raw + pmd - copy), 0, 0, 0,
	      0);
  /* Huge pages first (a populate that fails leaves the pread's faults to
     make them), then the bytes, read from the file's page cache without
     mapping it.  */
  int ok = sys_madvise (copy, len, MADV_HUGEPAGE) == 0;
  if (ok)
    sys_madvise (copy, len, MADV_POPULATE_WRITE);
  for (uint64_t done = 0; ok && done < len;)
    {
      long got = syscall6 (SYS_pread64, st->file, (long) (copy + done), (long) (len - done),
			   (long) (offset + done), 0, 0);
      if (got <= 0)
	ok = 0;
      else
	done += (uint64_t) got;
    }
  if (ok && !anon_huge (st, copy, len / pmd))
    {
      /* Small pages where memory was short: collapse them (6.1+), or give
	 up; a copy in small pages would cost memory and gain nothing.  */
      sys_madvise (copy, len, MADV_COLLAPSE);
      ok = anon_huge (st, copy, len / pmd);
    }
  if (ok)
    ok = syscall6 (SYS_mprotect, (long) copy, (long) len, prot, 0, 0, 0) == 0;
  if (ok)
    {
      /* The kernel keeps the name when the mapping moves.  Kernels
	 without CONFIG_ANON_VMA_NAME (and before 5.17) refuse: the copy
	 is then plain [anon].  */
      if (name[0] != '\0')
	syscall6 (SYS_prctl, PR_SET_VMA, PR_SET_VMA_ANON_NAME, (long) copy, (long) len,
		  (long) name, 0);
      long got = syscall6 (SYS_mremap, (long) copy, (long) len, (long) len,
			   MREMAP_MAYMOVE | MREMAP_FIXED, (long) target, 0);
      if (got != (long) target)
	{
	  restore_text (st, target, len, offset, prot);
	  ok = 0;
	}
    }
  if (!ok)
    {
      syscall6 (SYS_munmap, (long) copy, (long) len, 0, 0, 0, 0);
      return -1;
    }
  if (st->ncopies < MAX_COPIES)
    {
      struct copy *c = &st->scratch->copies[st->ncopies++];
      c->start = target;
      c->length = len;
      c->file_offset = offset;
    }
  return 0;
}

/* Copy the text into anonymous huge pages where the kernel cannot give the
   file PMD folios: every run of chunks whose pages are all clean file
   pages, up to copy_max bytes in all, first to last; nothing under
   PR_SET_THP_DISABLE or THP "never", nothing on tmpfs.  The first copy
   that cannot be made ends the copying.  */
void
copy_all (struct stub *st)
{
  const struct stub_params *p = st->p;
  if (syscall6 (SYS_prctl, PR_GET_THP_DISABLE, 0, 0, 0, 0, 0) > 0 || thp_never ())
    return;
  if (st->fs == 0)
    st->fs = file_system (st);
  if (st->fs == TMPFS_MAGIC || open_object_file (st) < 0)
    return;
  /* perf (6.1 at least) reads a perf map only for unnamed anonymous
     memory: with one asked for, the copies stay unnamed.  Never where the
     user may not influence the process (a set-user-ID program): no
     environment is read, no file made there.  */
  st->perf_map = !secure (st) && perf_map_wanted ();
  char name[ANON_NAME_MAX];
  if (st->perf_map || copy_name (st, name) != 0)
    name[0] = '\0';
  uint64_t pmd = st->pmd;
  uint64_t budget = p->copy_max;
  for (uint64_t r = 0; r < p->nranges && r < STUB_MAX_RANGES; r++)
    {
      uintptr_t start = st->self + (uintptr_t) p->range[r].start;
      uint64_t n = p->range[r].length / pmd;
      if (n > MAX_CHUNKS)
	continue;
      for (uint64_t i = 0; i < n && budget >= pmd;)
	{
	  if (!chunk_clean (st, start + i * pmd))
	    {
	      i++;
	      continue;
	    }
	  uint64_t j = i + 1;
	  while (j < n && (j - i + 1) * pmd <= budget && chunk_clean (st, start + j * pmd))
	    j++;
	  if (copy_run (st, start + i * pmd, (j - i) * pmd, p->range[r].file_offset + i * pmd,
			name) != 0)
	    return;
	  budget -= (j - i) * pmd;
	  i = j;
	}
    }
}
