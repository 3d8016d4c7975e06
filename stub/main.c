/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd startup stub: get the object's aligned text onto PMD-sized pages
   where the kernel can give it them, and otherwise change nothing.

   Two promises come before any huge page:
   - The stub never discards a page the file does not hold.  A private file
     mapping's anonymous pages (a debugger's breakpoint, a uprobe, a patch
     made by a preloaded library, a relocation) are lost to MADV_DONTNEED;
     a chunk holding any of them is left as it is (probe.c, chunk_clean).
   - Where the kernel cannot give this file PMD-sized page cache folios, the
     stub costs nothing: no eviction, no re-read, no write-back, no wait
     (policy.c).
   And across privilege boundaries:
   - In a process the user who started it may not influence (a set-user-ID,
     set-group-ID or capability-raising program, AT_SECURE; or one that is
     not dumpable: facts.c, secure), the stub reads no environment, creates
     no file, waits for no other process and drops or evicts nothing: it
     only advises and faults in the text, as the program's own run would.
   - Elsewhere, whatever another process does (holding the file's lock,
     faking progress, keeping pages mapped), it delays a start by at most
     WAIT_MAX_MS of time that passes (lock.c).
   - Under a seccomp filter (a service's SystemCallFilter=@system-service,
     which kills on any call not on the list), the stub makes only calls
     that list allows: the page cache is not looked at (mincore, cachestat:
     probe.c, facts.c filtered), and what cannot be told then is taken the
     cautious way (populate.c, repair.c).
   - The stub runs on whatever stack its caller has (a library's
     initialiser on a 16 KiB thread stack): buffers live in one anonymous
     mapping (scratch.c), and the deepest call path needs at most
     STUB_STACK_MAX bytes of stack.

   The parts, each in its own file:
     policy.c    what the stub does here (MODE_*), from the kernel, the
		 file system and THP's settings;
     facts.c     those facts, and the object's file;
     proc.c      reading /proc and /sys;
     probe.c     what the page cache holds, how this process maps it;
     populate.c  MODE_REPAIR: fault the text in, find small chunks;
     guard.c     keep the file's other mappings from reading small folios
		 into the text;
     repair.c    MODE_REPAIR: evict them, for the program to read back
		 whole;
     lock.c      one repairer at a time, and the bounds on waiting;
     copy.c      --madvise=copy: anonymous huge pages where the file
		 cannot have them;
     perfmap.c   a perf map of the copied text, on request;
     scratch.c   the buffers, one anonymous mapping made when first needed;
     chunks.c    sets of chunks, one bit each;
     libc.c      memset and memcpy, which the compiler may call;
   runtime.h is what they share, stub_params.h the contract with elfpmd,
   which writes the parameters, and ARCH-entry.S the entry point that saves
   the registers, calls stub_main and goes on to the program.  */
#include "runtime.h"

/* MODE_COLLAPSE: the kernel can collapse file text into PMD folios
   (CONFIG_READ_ONLY_THP_FOR_FS) if MADV_COLLAPSE of the first chunk does
   not fail with EINVAL; then collapse every chunk (one that is already
   collapsed costs a look).  Return 0 when the kernel cannot collapse file
   text, else 1.  */
static int
collapse_all (struct stub *st)
{
  const struct stub_params *p = st->p;
  for (uint64_t r = 0; r < p->nranges && r < STUB_MAX_RANGES; r++)
    {
      uintptr_t start = st->self + (uintptr_t) p->range[r].start;
      uint64_t n = p->range[r].length / st->pmd;
      for (uint64_t i = 0; i < n && i < MAX_CHUNKS; i++)
	{
	  long err = sys_madvise (start + i * st->pmd, st->pmd, MADV_COLLAPSE);
	  if (err != 0 && err != -EAGAIN && err != -ENOMEM && err != -EBUSY)
	    return r != 0 || i != 0;
	  if (r == 0 && i == 0)
	    {
	      /* Supported (MADV_COLLAPSE itself refuses a process with
		 PR_SET_THP_DISABLE): unless THP is "never", which
		 MADV_COLLAPSE ignores, go on, and let khugepaged see the
		 text too.  */
	      if (thp_never ())
		return 1;
	      for (uint64_t k = 0; k < p->nranges && k < STUB_MAX_RANGES; k++)
		sys_madvise (st->self + (uintptr_t) p->range[k].start, p->range[k].length,
			     MADV_HUGEPAGE);
	    }
	}
    }
  return 1;
}

HIDDEN void stub_main (uintptr_t self, const struct stub_params *p, const uint64_t *sp);

/* The stub for the object at SELF with parameters P, entered with the
   stack pointer SP (ARCH-entry.S): a program's initial stack, where P says
   that the object is a program hooked at its entry point.  */
void
stub_main (uintptr_t self, const struct stub_params *p, const uint64_t *sp)
{
  struct stub st = {
    .p = p, .self = self, .pmd = p->pmd, .page = stub_page_size (), .pagemap = -2,
    .scan = -1, .file = -2, .exe = -2, .cachestat = -1, .filtered = -1, .secure = -1,
    .guarded = -1,
#ifdef STUB_PROT_BTI
    .guard = -2,
#endif
  };
  /* A chunk is one PMD of the running kernel, or the stub does nothing: a
     file planned for another page size (an arm64 kernel with 16 KiB pages
     running a file planned for 4 KiB, whose PMD is 32 MiB, not 2 MiB), or
     for another chunk size (--pmd-size), would have the stub populate and
     evict chunks that can never be PMD-mapped.  */
  if (st.page == 0 || st.pmd != STUB_KERNEL_PMD (st.page))
    return;
  if (p->flags & STUB_FLAG_EXE)
    st.execfn = initial_execfn (sp);
  enum mode mode = choose_mode (&st);
  if (mode == MODE_COLLAPSE)
    st.no_file_folios = !collapse_all (&st);
  else if (mode == MODE_HINT || mode == MODE_REPAIR)
    for (uint64_t r = 0; r < p->nranges && r < STUB_MAX_RANGES; r++)
      {
	uintptr_t start = self + (uintptr_t) p->range[r].start;
	uint64_t len = p->range[r].length;
	uint64_t n = len / st.pmd;
	if (n == 0 || n > MAX_CHUNKS)
	  continue;
	if (mode == MODE_HINT)
	  {
	    if (sys_madvise (start, len, MADV_HUGEPAGE) != 0)
	      break;
	  }
	else if (populate_range (&st, start, n, p->range[r].file_offset) != 0)
	  break;		/* no THP here: leave everything as it is */
      }
  if (mode != MODE_NOTHING && st.no_file_folios && (p->flags & STUB_FLAG_COPY))
    {
      copy_all (&st);
      if (st.ncopies != 0 && st.perf_map)
	write_perf_map (&st);
    }
  scratch_free (&st);
  if (st.pagemap >= 0)
    sys_close (st.pagemap);
  if (st.file >= 0)
    sys_close (st.file);
  if (st.exe >= 0)
    sys_close (st.exe);
}
