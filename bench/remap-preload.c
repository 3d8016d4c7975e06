/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* remap-preload.c -- Intel iodlr's "remap" of a program's text into
   anonymous huge pages, as a preload library, for bench/copy.sh: the
   reference that elfpmd's --madvise=copy is measured against.

   Build: cc -O2 -shared -fPIC -o remap-preload.so remap-preload.c
   Use:   LD_PRELOAD=/path/remap-preload.so PROGRAM [ARG...]

   Its constructor, which runs after ld.so has mapped every object and
   before the program's own constructors, takes the main program's
   executable PT_LOAD (the largest one, from dl_iterate_phdr: the first
   object it reports is the main program), keeps the whole 2 MiB-aligned
   part of it, and does what iodlr's MoveRegionToLargePages does:
     1. mmap a temporary anonymous buffer of that size and memcpy the text
        into it;
     2. mmap anonymous memory over the text's range (MAP_FIXED, read-write),
        which replaces the file mapping there;
     3. madvise(MADV_HUGEPAGE) it;
     4. memcpy the text back from the buffer (the first write of each 2 MiB
        faults in one huge page, zeroed by the kernel first);
     5. mprotect it PROT_READ | PROT_EXEC, and munmap the buffer.
   iodlr finds the range from the .text section header and maps it
   read-write-execute; the executable segment and read-write here differ
   from that only by the few KiB of .init/.plt/.fini around .text, which
   never change the whole 2 MiB chunks of a large program.  Like iodlr it
   checks nothing after the fact (whether the kernel gave huge pages: with
   THP "never" or PR_SET_THP_DISABLE it leaves a private copy in small
   pages).

   It prints nothing, ever, and calls only dl_iterate_phdr, mmap, madvise,
   mprotect, munmap and memcpy: no process is spawned (no system, popen or
   fork), so a program that spawns others passes LD_PRELOAD on and each
   of them remaps its own text, nothing more.  It must not run code from
   the range it replaces while that range is unmapped or writable: its own
   code and libc's memcpy live in other objects' mappings.  On an error
   after step 2 the range would be left without the text; mmap MAP_FIXED
   over a range the process maps anyway does not fail in practice, and
   iodlr does not guard against it either.  */

#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define HPAGE ((uintptr_t) 2 << 20)

struct range
{
  uintptr_t lo, hi;
};

/* dl_iterate_phdr's callback: the first object is the main program; take
   its largest executable PT_LOAD and stop.  */
static int
main_text (struct dl_phdr_info *info, size_t size, void *data)
{
  struct range *r = data;
  (void) size;
  for (ElfW (Half) i = 0; i < info->dlpi_phnum; i++)
    {
      const ElfW (Phdr) *ph = &info->dlpi_phdr[i];
      if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && ph->p_memsz > r->hi - r->lo)
	{
	  r->lo = info->dlpi_addr + ph->p_vaddr;
	  r->hi = r->lo + ph->p_memsz;
	}
    }
  return 1;
}

__attribute__ ((constructor)) static void
remap_text (void)
{
  struct range r = { 0, 0 };
  dl_iterate_phdr (main_text, &r);
  uintptr_t lo = (r.lo + HPAGE - 1) & ~(HPAGE - 1);
  uintptr_t hi = r.hi & ~(HPAGE - 1);
  if (r.hi == 0 || hi <= lo)
    return;			/* no whole 2 MiB of text */
  size_t len = hi - lo;
  void *tmp = mmap (NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (tmp == MAP_FAILED)
    return;
  memcpy (tmp, (void *) lo, len);
  void *text = mmap ((void *) lo, len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  if (text != MAP_FAILED)
    {
      madvise (text, len, MADV_HUGEPAGE);
      memcpy (text, tmp, len);
      mprotect (text, len, PROT_READ | PROT_EXEC);
    }
  munmap (tmp, len);
}
