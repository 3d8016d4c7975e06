/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd startup stub, riscv64: the entry point.

   Entered as the program's entry point (by the kernel for static programs,
   by ld.so for dynamic ones: sp points at argc, 16-byte aligned, and a0
   holds ld.so's finaliser for atexit, 0 from the kernel).  The return
   address ra, the argument registers a0-a7, the temporaries t0-t6 and the
   frame pointer s0 are saved; the C part keeps s1-s11, sp, gp and tp as
   every function of the psABI does (and is built without linker
   relaxation, so it never uses gp, and for rv64imac, so it touches no
   floating-point register); they are restored, and control goes on to the
   original entry point with every register as it was but t1 and t2, which
   are scratch at process entry, or returns (ret) when there is no target.
   In a shared object it is entered as DT_INIT_ARRAY[0] instead (glibc
   never calls DT_INIT on riscv64; see src/stub/riscv64.c): a0-a2 hold
   argc, argv and envp and ra returns into ld.so, and the jr to the target,
   the old first entry, is a tail call that keeps them all.  */

	.section .text.entry, "ax"
	.globl	stub_entry
	.type	stub_entry, @function
	.p2align 2
stub_entry:
	addi	sp, sp, -144
	sd	ra, 0(sp)
	sd	a0, 8(sp)
	sd	a1, 16(sp)
	sd	a2, 24(sp)
	sd	a3, 32(sp)
	sd	a4, 40(sp)
	sd	a5, 48(sp)
	sd	a6, 56(sp)
	sd	a7, 64(sp)
	sd	t0, 72(sp)
	sd	t1, 80(sp)
	sd	t2, 88(sp)
	sd	t3, 96(sp)
	sd	t4, 104(sp)
	sd	t5, 112(sp)
	sd	t6, 120(sp)
	sd	s0, 128(sp)
	lla	a0, stub_entry
	lla	a1, stub_params
	/* The stack pointer the stub was entered with: a program's argc,
	   argv, envp and auxiliary vector are there.  */
	addi	a2, sp, 144
	call	stub_main
	ld	ra, 0(sp)
	ld	a0, 8(sp)
	ld	a1, 16(sp)
	ld	a2, 24(sp)
	ld	a3, 32(sp)
	ld	a4, 40(sp)
	ld	a5, 48(sp)
	ld	a6, 56(sp)
	ld	a7, 64(sp)
	ld	t0, 72(sp)
	ld	t1, 80(sp)
	ld	t2, 88(sp)
	ld	t3, 96(sp)
	ld	t4, 104(sp)
	ld	t5, 112(sp)
	ld	t6, 120(sp)
	ld	s0, 128(sp)
	addi	sp, sp, 144
	/* The target is stored relative to stub_entry, so that the stub works
	   at any load address and needs no relocation.  */
	lla	t1, stub_params
	ld	t1, 0(t1)
	beqz	t1, 1f
	lla	t2, stub_entry
	add	t1, t1, t2
	jr	t1
1:	ret
	.size	stub_entry, .-stub_entry
	.section .note.GNU-stack, "", @progbits
