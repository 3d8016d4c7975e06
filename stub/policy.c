/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd startup stub: what it does for this object, decided first, from
   what is cheap to know, so that where the kernel cannot give this file
   PMD-sized page cache folios the stub costs nothing: no eviction, no
   re-read, no write-back, no wait.
     0. the chunk size elfpmd planned with is not the running kernel's PMD
	size (main.c): nothing at all;
     1. kernel (uname) before 5.18: no file system has large folios, only
	khugepaged can collapse text (CONFIG_READ_ONLY_THP_FOR_FS):
	madvise(MADV_HUGEPAGE) and nothing more (MODE_HINT), which has no
	effect where THP is off; so too on tmpfs, whose folios were chosen
	when the file was written;
     2. the file system (statfs of the name a program was executed as,
	else of /proc/self/exe, or of the path /proc/self/maps gives a
	shared object; on overlayfs, that of the
	layer, where mountinfo tells it: facts.c): ext4 before 6.16, xfs
	before 5.18 and btrfs before 6.17 give no large folios.  There, from
	6.1 on, one MADV_COLLAPSE tells whether the kernel can collapse file
	text (CONFIG_READ_ONLY_THP_FOR_FS, which Debian's and Ubuntu's
	kernels lack: EINVAL, and nothing more is done); if it can, every
	chunk is collapsed (MODE_COLLAPSE).  Before 6.1, MODE_HINT leaves the
	text to khugepaged.  Three system calls in all, where the kernel
	cannot help;
     3. PR_GET_THP_DISABLE, or THP "never" in sysfs: nothing at all;
     4. anything else (ext4 and xfs on current kernels, file systems this
	list does not know) is populated and repaired (MODE_REPAIR), with a
	bound: the first repair that evicts a chunk and reads it back whole
	in small folios ends the repairs (the file system cannot), so that an
	unknowable case (an ext4 file with the journal-data attribute) costs
	at most one chunk read again per start; ext4 mounted data=journal is
	found in mountinfo and not repaired at all.  */
#include "runtime.h"

enum mode
choose_mode (struct stub *st)
{
  st->kernel = kernel_version ();
  st->table_stays = st->kernel == 0 || st->kernel < KV (6, 14);
  if (st->kernel != 0 && st->kernel < KV (5, 18))
    {
      st->no_file_folios = 1;
      return MODE_HINT;
    }
  uint64_t fs = st->fs = file_system (st);
  unsigned large_folios_since = 0;
  switch (fs)
    {
    case EXT4_SUPER_MAGIC:
      large_folios_since = KV (6, 16);
      break;
    case XFS_SUPER_MAGIC:
      large_folios_since = KV (5, 18);
      break;
    case BTRFS_SUPER_MAGIC:
      large_folios_since = KV (6, 17);
      break;
    case TMPFS_MAGIC:
      return MODE_HINT;
    }
  if (st->kernel != 0 && st->kernel < large_folios_since)
    {
      /* MODE_COLLAPSE finds out whether the kernel can collapse file
	 text; before 6.1 nothing can tell, and nothing can make PMD folios
	 of this file at start.  */
      st->no_file_folios = st->kernel < KV (6, 1);
      return st->kernel >= KV (6, 1) ? MODE_COLLAPSE : MODE_HINT;
    }
  if (syscall6 (SYS_prctl, PR_GET_THP_DISABLE, 0, 0, 0, 0, 0) > 0 || thp_never ())
    return MODE_NOTHING;
  return MODE_REPAIR;
}
