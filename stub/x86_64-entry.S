/* SPDX-License-Identifier: 0BSD
   Copyright (C) 2026 The elfpmd authors  */
/* elfpmd startup stub, x86-64: the entry point.

   Entered either as the program's entry point (by the kernel for static
   programs, by ld.so for dynamic ones: %rsp points at argc and %rdx holds
   ld.so's finaliser; %rsp is 16-byte aligned) or as a shared object's
   DT_INIT (called by ld.so like a function: %rdi, %rsi, %rdx hold argc,
   argv, envp; %rsp is 8 off 16-byte alignment).  Either way every register
   a caller could rely on is saved, the stack is aligned for the C part, and
   control goes on to the original target with the registers as they were,
   or returns when there is no target (a DT_INIT that did not exist).  */

	.section .text.entry, "ax"
	.globl	stub_entry
	.type	stub_entry, @function
stub_entry:
	endbr64
	push	%rbp
	mov	%rsp, %rbp
	push	%rax
	push	%rdi
	push	%rsi
	push	%rdx
	push	%rcx
	push	%r8
	push	%r9
	push	%r10
	push	%r11
	and	$-16, %rsp
	lea	stub_entry(%rip), %rdi
	lea	stub_params(%rip), %rsi
	/* The stack pointer the stub was entered with: a program's argc,
	   argv, envp and auxiliary vector are there.  */
	lea	8(%rbp), %rdx
	call	stub_main
	lea	-72(%rbp), %rsp
	pop	%r11
	pop	%r10
	pop	%r9
	pop	%r8
	pop	%rcx
	pop	%rdx
	pop	%rsi
	pop	%rdi
	pop	%rax
	pop	%rbp
	/* The target is stored relative to stub_entry, so that the stub works
	   at any load address and needs no relocation.  %r10 and %r11 are scratch both
	   at process entry and in a function call.  */
	mov	stub_params(%rip), %r11
	test	%r11, %r11
	jz	1f
	lea	stub_entry(%rip), %r10
	add	%r10, %r11
	jmp	*%r11
1:	ret
	.size	stub_entry, .-stub_entry
	.section .note.GNU-stack, "", @progbits
