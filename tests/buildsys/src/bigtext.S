/* SPDX-License-Identifier: GPL-3.0-or-later
   Copyright (C) 2026 The elfpmd authors  */
/* 4.5 MiB of `ret` instructions under one hidden symbol: each program or
   library that links this file gets its own copy, and holds at least one
   whole 2 MiB chunk of text once elfpmd aligned it.  */
	.text
	.globl big_text
	.hidden big_text
	.type big_text, @function
big_text:
	.fill 0x480000, 1, 0xc3
	.size big_text, 0x480000
	.section .note.GNU-stack, "", @progbits
