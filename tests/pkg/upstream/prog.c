/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The program: calls across its own text and the library's.  */
#include <stdio.h>

extern char prog_text[];
int pkgtest_lib (int n);

int
main (void)
{
  int sum = 0;
  for (long off = 0; off < 0x480000; off += 0x100000)
    {
      ((void (*) (void)) (prog_text + off)) ();
      sum++;
    }
  printf ("elfpmd-pkgtest: ok %d\n", sum + pkgtest_lib (3));
  return 0;
}
