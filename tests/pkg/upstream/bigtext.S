/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* 4.5 MiB of `ret` instructions under one symbol, NAME (-DNAME=...); the
   callers jump to every MiB of it.  An object built with it holds at least
   one whole 2 MiB chunk of text once aligned.  */
	.text
	.globl NAME
	.type NAME, @function
NAME:
	.fill 0x480000, 1, 0xc3
	.size NAME, 0x480000
	.section .note.GNU-stack, "", @progbits
