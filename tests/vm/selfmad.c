/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* selfmad.c: the VM harness's hand-written madvise program (tests/vm/README),
   linked into "self", a static ET_EXEC of the fixture's text (bigtext.S or
   madbig.S, bigcall.c, madmain.c) whose executable PT_LOAD the linker put
   at an address congruent with its offset modulo 2 MiB
   (-z max-page-size=0x200000).  It shows what the kernel does for a
   program that asks for huge pages itself, without elfpmd's stub: before
   main, this constructor calls madvise(MADV_HUGEPAGE) on the whole PMD
   chunks of its own text and then reads one byte of each chunk, the last
   chunk first (DESIGN.md section 3: the order that leaves the fewest
   chunks to small folios the read-around of a neighbour brought in).  No
   repair: a chunk the page cache already holds in small folios stays so.

   The PMD size is the running kernel's
   (/sys/kernel/mm/transparent_hugepage/hpage_pmd_size: 2 MiB with 4 KiB
   pages, 32 MiB on arm64 with 16 KiB pages); no whole chunk, nothing done.
   It prints nothing, so that its output is the fixture's: every error is
   ignored.  */

#define _GNU_SOURCE
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static uintptr_t
pmd_size (void)
{
  char buf[32];
  uintptr_t pmd = 2u << 20;
  int fd = open ("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", O_RDONLY | O_CLOEXEC);
  if (fd >= 0)
    {
      ssize_t n = read (fd, buf, sizeof buf - 1);
      if (n > 0)
	{
	  buf[n] = '\0';
	  uintptr_t v = strtoul (buf, NULL, 10);
	  if (v != 0 && (v & (v - 1)) == 0)
	    pmd = v;
	}
      close (fd);
    }
  return pmd;
}

static int
text_chunks (struct dl_phdr_info *info, size_t size, void *data)
{
  (void) size;
  uintptr_t pmd = pmd_size ();
  for (int i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X) || (ph->p_flags & PF_W))
	continue;
      uintptr_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz;
      if ((start - ph->p_offset) % pmd != 0)
	continue;
      uintptr_t lo = (start + pmd - 1) & ~(pmd - 1), hi = end & ~(pmd - 1);
      if (lo >= hi)
	continue;
      madvise ((void *) lo, hi - lo, MADV_HUGEPAGE);
      for (uintptr_t c = hi; c > lo; c -= pmd)
	(void) *(volatile const char *) (c - pmd);
    }
  *(int *) data = 1;
  return 1;			/* the executable is the first object */
}

__attribute__ ((constructor)) static void
selfmad (void)
{
  int done = 0;
  dl_iterate_phdr (text_chunks, &done);
}
