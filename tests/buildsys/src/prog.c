/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The program: calls into every MiB of its own 4.5 MiB of text, then the
   library's, and says how many calls returned.  */
#include <stdio.h>

extern char big_text[];
int big_lib_walk (void);

int
main (void)
{
  int n = 0;
  for (long off = 0; off < 0x480000; off += 0x100000, n++)
    ((void (*) (void)) (big_text + off)) ();
  printf ("bigtext: program %d, library %d\n", n, big_lib_walk ());
  return 0;
}
