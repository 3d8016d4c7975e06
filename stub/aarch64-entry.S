/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd startup stub, aarch64: the entry point.

   Entered either as the program's entry point (by the kernel for static
   programs, by ld.so for dynamic ones, which jumps there with br x16: sp
   points at argc, 16-byte aligned, and x0 holds ld.so's finaliser for
   atexit, 0 from the kernel) or as a shared object's DT_INIT (called by
   ld.so like a function, blr: x0, x1, x2 hold argc, argv, envp, x30 the
   return address).  Either way the argument and temporary registers x0-x15
   and x18, the frame pointer x29 and the link register x30 are saved, the
   C part (which keeps x19-x28 and sp as every AAPCS64 function does, and
   touches no floating-point or SIMD register: -mgeneral-regs-only) runs,
   they are restored, and control goes on to the original target with
   every register as it was but the scratch registers x16 and x17, or
   returns (ret) when there is no target (a DT_INIT that did not exist).

   BTI: an object marked GNU_PROPERTY_AARCH64_FEATURE_1_BTI gets PROT_BTI
   on all its executable segments, the stub's too (ld.so, or the kernel for
   a static program), so the entry is a landing pad for both a jump and a
   call (bti jc).  The stub goes on to the target with br x16, as ld.so
   itself enters a program: a branch through x16 lands on bti c (glibc's
   _start, _init) as well as on bti j or jc, so a target that ld.so could
   enter, the stub can.

   PAC: x30 is saved on the stack and restored as it came, unsigned; the
   stub signs nothing it returns or jumps through.  The C part is built
   with -mbranch-protection=standard: its functions sign and authenticate
   their own return addresses (paciasp, autiasp; NOPs without PAC).  */

	.section .text.entry, "ax"
	.globl	stub_entry
	.type	stub_entry, %function
	.p2align 2
stub_entry:
	hint	#38			/* bti jc */
	stp	x29, x30, [sp, #-160]!
	mov	x29, sp
	stp	x0, x1, [sp, #16]
	stp	x2, x3, [sp, #32]
	stp	x4, x5, [sp, #48]
	stp	x6, x7, [sp, #64]
	stp	x8, x9, [sp, #80]
	stp	x10, x11, [sp, #96]
	stp	x12, x13, [sp, #112]
	stp	x14, x15, [sp, #128]
	str	x18, [sp, #144]
	adr	x0, stub_entry
	adr	x1, stub_params
	/* The stack pointer the stub was entered with: a program's argc,
	   argv, envp and auxiliary vector are there.  */
	add	x2, x29, #160
	bl	stub_main
	ldp	x0, x1, [sp, #16]
	ldp	x2, x3, [sp, #32]
	ldp	x4, x5, [sp, #48]
	ldp	x6, x7, [sp, #64]
	ldp	x8, x9, [sp, #80]
	ldp	x10, x11, [sp, #96]
	ldp	x12, x13, [sp, #112]
	ldp	x14, x15, [sp, #128]
	ldr	x18, [sp, #144]
	ldp	x29, x30, [sp], #160
	/* The target is stored relative to stub_entry, so that the stub works
	   at any load address and needs no relocation.  x16 and x17 are
	   scratch both at process entry and in a function call (IP0, IP1).  */
	adr	x17, stub_params
	ldr	x16, [x17]
	cbz	x16, 1f
	adr	x17, stub_entry
	add	x16, x16, x17
	br	x16
1:	ret
	.size	stub_entry, .-stub_entry
	.section .note.GNU-stack, "", %progbits
