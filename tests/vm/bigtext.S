/* bigtext.S: the VM harness's 17 MiB of executable text for aarch64 and
   riscv64 guests (tests/vm/README), with the interface of
   tests/fixtures/big.S built with BIG_MADVISE (big_text, big_text_end,
   big_stub_offsets[6], big_ret_offsets[4]), so that
   tests/fixtures/bigcall.c and madmain.c link with it unchanged and the
   cross-built mad-pie prints what the x86-64 one prints, except for the
   hash of these bytes.  -DBIG_SIZE=BYTES makes it larger (a multiple of
   4, at least 17 MiB: the harness's 68 MiB text for 32 MiB PMDs).

   The filler is the return instruction (aarch64 ret; riscv64 jalr x0,
   0(ra)), so a call to any 4-byte boundary of the region returns at once.
   Six stubs at fixed offsets, spread over the region as in big.S, return
   3 * x + K (x in the first argument register); four labelled plain
   returns too.  Offsets are multiples of 4.  riscv64: no compressed
   instructions and no linker relaxation, so that every offset is as
   written here.  Every symbol is hidden; the offset tables are label
   differences, so they need no relocation in a PIE.  */

#ifndef BIG_SIZE
# define BIG_SIZE 0x1100000	/* 17 MiB, as madbig.S; at least that */
#endif

#if defined(__aarch64__)
# define FILL_WORD 0xd65f03c0		/* ret */
#elif defined(__riscv)
# define FILL_WORD 0x00008067		/* jalr x0, 0(ra) */
	.option norvc
	.option norelax
#else
# error "bigtext.S is for aarch64 and riscv64 (x86-64 uses tests/fixtures/madbig.S)"
#endif

	.text
	.globl	big_text
	.hidden	big_text
	.type	big_text, %function
	.p2align 4
big_text:

/* Fill with returns up to byte OFF of the region.  */
.macro	FILL_TO off
	.fill	((\off) - (. - big_text)) / 4, 4, FILL_WORD
.endm

/* A stub at byte OFF that returns 3 * x + K.  */
.macro	STUB off, k
	FILL_TO	\off
big_stub_\k:
#if defined(__aarch64__)
	add	w0, w0, w0, lsl #1
	add	w0, w0, #\k
	ret
#else
	slliw	t0, a0, 1
	addw	a0, a0, t0
	addiw	a0, a0, \k
	ret
#endif
.endm

/* A labelled plain return at byte OFF.  */
.macro	PLAIN_RET off, k
	FILL_TO	\off
big_ret_\k:
	.4byte	FILL_WORD
.endm

	STUB	0x000000, 1
	PLAIN_RET	0x000774, 1
	STUB	0x1ffff0, 2
	STUB	0x400010, 3
	PLAIN_RET	0x5abcdc, 2
	STUB	0x801234, 4
	PLAIN_RET	0x9ffffc, 3
	STUB	0xc00004, 5
	PLAIN_RET	0xe00000, 4
	STUB	0x10fff00, 6
	FILL_TO	BIG_SIZE

	.globl	big_text_end
	.hidden	big_text_end
big_text_end:
	.size	big_text, big_text_end - big_text

	.section .rodata
	.p2align 2
	.globl	big_stub_offsets
	.hidden	big_stub_offsets
	.type	big_stub_offsets, %object
big_stub_offsets:
	.4byte	big_stub_1 - big_text, big_stub_2 - big_text, big_stub_3 - big_text
	.4byte	big_stub_4 - big_text, big_stub_5 - big_text, big_stub_6 - big_text
	.size	big_stub_offsets, . - big_stub_offsets

	.globl	big_ret_offsets
	.hidden	big_ret_offsets
	.type	big_ret_offsets, %object
big_ret_offsets:
	.4byte	big_ret_1 - big_text, big_ret_2 - big_text, big_ret_3 - big_text
	.4byte	big_ret_4 - big_text
	.size	big_ret_offsets, . - big_ret_offsets

	.section .note.GNU-stack, "", %progbits
