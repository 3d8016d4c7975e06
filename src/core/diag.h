/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The reason an operation on one file failed, to be printed as
   "elfpmd: FILE: REASON" by the driver.  */
#ifndef ELFPMD_DIAG_H
#define ELFPMD_DIAG_H

#include <stdarg.h>
#include <stdio.h>

/* What every message of this run starts with: "elfpmd", or for a verb
   "elfpmd status" and so on, as argp names the program in its own
   messages (main sets it).  */
extern const char *diag_program;

struct diag
{
  char msg[512];
};

/* Record the reason in D, unless one is recorded already (the first failure is
   the one worth reporting).  Returns -1 so callers can "return diag_set (...)".  */
static inline int __attribute__ ((format (printf, 2, 3)))
diag_set (struct diag *d, const char *fmt, ...)
{
  if (d->msg[0] != '\0')
    return -1;
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (d->msg, sizeof d->msg, fmt, ap);
  va_end (ap);
  return -1;
}

static inline void
diag_clear (struct diag *d)
{
  d->msg[0] = '\0';
}

#endif
