/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd startup stub: what it does for this object, decided first, from
   what is cheap to know, so that where the kernel cannot give this file
   PMD-sized page cache folios the stub costs nothing: no eviction, no
   re-read, no write-back, no wait.
   What it does by kernel and file system is the table of elfpmd-stub(7)
   (man/elfpmd-stub.7, BY KERNEL AND FILE SYSTEM), the one place that says
   which kernels and file systems give which, and why; the versions below
   are its rows, and tests/stub/check_stub_policy.c writes them out
   against a fake kernel.  Its rows, as the code decides them:
     "nothing" for a PMD size not the file's: main.c, before this;
     "MADV_HUGEPAGE only": MODE_HINT (no_file_folios for the kernel, not
	for tmpfs), which has no effect where THP is off;
     "MADV_COLLAPSE": MODE_COLLAPSE from 6.1 (main.c, collapse_all, says
	whether the kernel can), MODE_HINT and no_file_folios before;
     "nothing" for THP disabled or "never": MODE_NOTHING;
     "as its layer's": file_system (facts.c) answers with the layer's
	and sets no_repair;
     "advise, populate, repair": MODE_REPAIR, whose repairs (repair.c) end
	at the first chunk read back whole in small folios twice, and do
	nothing on ext4 mounted data=journal (mountinfo: proc.c).  */
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
