/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* The shared library: calls into its own 4.5 MiB of text.  */
extern char lib_text[];

int
pkgtest_lib (int n)
{
  int sum = 0;
  for (long off = 0; off < 0x480000; off += 0x100000)
    {
      ((void (*) (void)) (lib_text + off)) ();
      sum += n;
    }
  return sum;
}
