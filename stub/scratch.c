/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd startup stub: memory for its buffers.  */
#include "runtime.h"

/* The stub's buffers (struct scratch), mapped the first time they are
   needed; NULL when they cannot be (no memory, a seccomp filter): the
   caller then does without what it needed them for.  */
struct scratch *
scratch (struct stub *st)
{
  if (st->scratch == NULL && !st->no_scratch)
    {
      long got = syscall6 (SYS_mmap, 0, (long) sizeof (struct scratch), PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (got < 0 && got > -4096)
	st->no_scratch = 1;
      else
	st->scratch = (struct scratch *) got;
    }
  return st->scratch;
}

void
scratch_free (struct stub *st)
{
  if (st->scratch != NULL)
    syscall6 (SYS_munmap, (long) st->scratch, (long) sizeof (struct scratch), 0, 0, 0, 0);
  st->scratch = NULL;
}
