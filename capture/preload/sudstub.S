/*
 * The interposer's own system calls, and the few instructions that must run
 * without Syscall User Dispatch (the "allowed region", island_sud_begin to
 * island_sud_end): a system call made here is not turned into SIGSYS, so the
 * interposer's bookkeeping and the calls it makes for the application are
 * not trapped again (see sud.c).
 */
#if defined(__x86_64__)
	.section .text.island_sud, "ax", @progbits
	.globl	island_sud_begin
	.hidden	island_sud_begin
island_sud_begin:

/* long island_sys6(long nr, long a, long b, long c, long d, long e, long f):
 * the raw call, -errno on failure. */
	.globl	island_sys6
	.hidden	island_sys6
	.type	island_sys6, @function
island_sys6:
	mov	%rdi, %rax
	mov	%rsi, %rdi
	mov	%rdx, %rsi
	mov	%rcx, %rdx
	mov	%r8, %r10
	mov	%r9, %r8
	mov	8(%rsp), %r9
	syscall
	ret
	.size	island_sys6, .-island_sys6

/* long island_sys2_at(long nr, long a, long b, void *sp): the raw call of
 * two arguments made with the stack pointer sp, which the kernel reads and
 * nothing here writes to (sigaltstack is judged by it: sud.c). */
	.globl	island_sys2_at
	.hidden	island_sys2_at
	.type	island_sys2_at, @function
island_sys2_at:
	push	%rbx
	mov	%rsp, %rbx
	mov	%rdi, %rax
	mov	%rsi, %rdi
	mov	%rdx, %rsi
	mov	%rcx, %rsp
	syscall
	mov	%rbx, %rsp
	pop	%rbx
	ret
	.size	island_sys2_at, .-island_sys2_at

/* The sa_restorer of every handler while dispatch is on: libc's own
 * restorer lies outside the region, and its rt_sigreturn would trap. */
	.globl	island_restorer
	.hidden	island_restorer
	.type	island_restorer, @function
island_restorer:
	mov	$15, %eax
	syscall
	hlt
	.size	island_restorer, .-island_restorer

/* The application's handlers return here: the rt_sigreturn is the
 * application's own call, recorded first (rsp is 16-aligned here: the
 * handler's return popped the frame's return address). */
	.globl	island_restorer_app
	.hidden	island_restorer_app
	.type	island_restorer_app, @function
island_restorer_app:
	call	*island_stub_up(%rip)		/* island_note_sigreturn */
	mov	$15, %eax
	syscall
	hlt
	.size	island_restorer_app, .-island_restorer_app

/*
 * long island_clone_vm(struct clone_regs *c): clone/clone3 on a new stack
 * (a thread, or a child in a copy of our memory). The child must not return into the
 * signal handler (its stack pointer is the new stack): it starts where the
 * application's own call would have returned, with the application's
 * registers (all preserved by the syscall but rax, rcx, r11), rax 0, after
 * calling c->fn (arm dispatch in the new thread) when it is not 0.
 * struct clone_regs: nr, rip, fn, rdi, rsi, rdx, r10, r8, r9, rbx, rbp,
 * r12, r13, r14, r15, newsp (8 bytes each, in this order).
 */
	.globl	island_clone_vm
	.hidden	island_clone_vm
	.type	island_clone_vm, @function
island_clone_vm:
	push	%rbx
	push	%rbp
	push	%r12
	push	%r13
	push	%r14
	push	%r15
	mov	120(%rdi), %rax		/* newsp: the child's rip and fn below it */
	mov	8(%rdi), %rcx
	mov	%rcx, -8(%rax)
	mov	16(%rdi), %rcx
	mov	%rcx, -16(%rax)
	mov	32(%rdi), %rsi
	mov	40(%rdi), %rdx
	mov	48(%rdi), %r10
	mov	56(%rdi), %r8
	mov	64(%rdi), %r9
	mov	72(%rdi), %rbx
	mov	80(%rdi), %rbp
	mov	88(%rdi), %r12
	mov	96(%rdi), %r13
	mov	104(%rdi), %r14
	mov	112(%rdi), %r15
	mov	0(%rdi), %rax
	mov	24(%rdi), %rdi
	syscall
	test	%rax, %rax
	jz	1f
	pop	%r15			/* the parent */
	pop	%r14
	pop	%r13
	pop	%r12
	pop	%rbp
	pop	%rbx
	ret
1:	mov	%rsp, %rax		/* the child, on the new stack */
	cmpq	$0, -16(%rax)
	je	2f
	sub	$16, %rsp
	and	$-16, %rsp
	push	%rax
	push	%rdi
	push	%rsi
	push	%rdx
	push	%r8
	push	%r9
	push	%r10
	push	%r10
	call	*-16(%rax)
	add	$8, %rsp
	pop	%r10
	pop	%r9
	pop	%r8
	pop	%rdx
	pop	%rsi
	pop	%rdi
	pop	%rsp
2:	xor	%eax, %eax
	jmp	*-8(%rsp)
	.size	island_clone_vm, .-island_clone_vm

/*
 * The fast path (sud.c, rewrite): a `syscall` the handler has rewritten
 * into `call *%rax` lands in the page at address 0 (a slide of nops, then
 * a jump here) with the return address on the application's stack. Keep
 * its red zone, save the registers a system call preserves (the vector
 * state too: the C code uses it) and rcx, r11 and the flags (a call
 * that is not from a rewritten site must fault with all of them as they
 * were), let zp_fast make and record the call, and return after the
 * rewritten instruction. When zp_fast cannot make the call here (clone,
 * exec, signals: they need the signal frame), it leaves the number in
 * place and the call goes the slow way, from island_zp_resys, outside the
 * region. When the caller is not a rewritten site (the application called
 * a NULL function pointer), every register is put back as it was and
 * island_zp_fault turns the call into the SIGSEGV it would have raised.
 */
	.globl	island_zp_entry
	.hidden	island_zp_entry
	.type	island_zp_entry, @function
island_zp_entry:
	lea	-128(%rsp), %rsp
	pushfq
	push	%r11
	push	%rcx
	push	%rax
	push	%rdi
	push	%rsi
	push	%rdx
	push	%r10
	push	%r8
	push	%r9
	push	%rbx
	push	%rbp
	mov	%rsp, %rbx
	and	$-64, %rsp
	sub	$4096, %rsp
	/* the vector state: ymm0-15 by hand where that is all our code can
	 * change (sud.c, zp_vec_init: AVX, no AVX-512, no x87 or MXCSR
	 * change in our code), else all of it; an xsave and xrstor of
	 * everything cost 140 ns a call */
	cmpb	$0, island_zp_ymm(%rip)
	jne	3f
	xor	%eax, %eax
	.irp	k, 0, 1, 2, 3, 4, 5, 6, 7
	mov	%rax, 512+\k*8(%rsp)	/* the xsave header */
	.endr
	mov	island_zp_mask(%rip), %eax	/* all but AMX's tiles (sud.c) */
	mov	island_zp_mask+4(%rip), %edx
	xsave64	(%rsp)
	jmp	4f
3:	mov	$1, %ecx		/* XINUSE: were the upper halves in use? */
	xgetbv
	mov	%eax, 512(%rsp)
	.irp	k, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	vmovdqa	%ymm\k, \k*32(%rsp)
	.endr
4:	lea	16(%rbx), %rdi		/* struct zp_frame (sud.c) */
	call	*island_stub_up+8(%rip)	/* zp_fast */
	mov	%eax, %ebp		/* 1: made here; 0: the slow way; 2: a fault */
	cmpb	$0, island_zp_ymm(%rip)
	jne	3f
	mov	island_zp_mask(%rip), %eax
	mov	island_zp_mask+4(%rip), %edx
	xrstor64 (%rsp)
	jmp	5f
	/* ymm0-15 as they were: whole when their upper halves were in use,
	 * else the xmm halves after vzeroupper, which leaves the upper
	 * state clean as it was */
3:	testb	$4, 512(%rsp)
	jz	4f
	.irp	k, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	vmovdqa	\k*32(%rsp), %ymm\k
	.endr
	jmp	5f
4:	vzeroupper
	.irp	k, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
	movdqa	\k*32(%rsp), %xmm\k
	.endr
5:	mov	%rbx, %rsp
	cmp	$2, %ebp
	je	1f
	mov	%ebp, %r11d
	pop	%rbp
	pop	%rbx
	pop	%r9
	pop	%r8
	pop	%r10
	pop	%rdx
	pop	%rsi
	pop	%rdi
	pop	%rax
	lea	24+128(%rsp), %rsp	/* rcx, r11, flags, the red zone */
	test	%r11d, %r11d
	jz	island_zp_resys
	ret
1:	pop	%rbp			/* not a rewritten site: as it was */
	pop	%rbx
	pop	%r9
	pop	%r8
	pop	%r10
	pop	%rdx
	pop	%rsi
	pop	%rdi
	pop	%rax
	pop	%rcx
	pop	%r11
	popfq
	lea	128(%rsp), %rsp
	jmp	island_zp_fault
	.size	island_zp_entry, .-island_zp_entry

	.globl	island_sud_end
	.hidden	island_sud_end
island_sud_end:

/* Outside the region: a system call made here is dispatched (SIGSYS);
 * the handler sees its own address and returns to the rewritten site
 * (the return address on the stack). */
	.text
	.globl	island_zp_resys
	.hidden	island_zp_resys
	.globl	island_zp_resys_end
	.hidden	island_zp_resys_end
island_zp_resys:
	syscall
island_zp_resys_end:
	ud2

/* A call to page 0 that no rewrite made, with the application's registers
 * (rax, rcx and r11 are kept in its thread state by zp_fast): dispatched,
 * the handler puts them back, the instruction pointer at 0, and queues the
 * SIGSEGV the call would have raised. rax -1: were dispatch off in this
 * thread, the call fails (ENOSYS) and zp_fault_undispatched raises it. */
	.globl	island_zp_fault
	.hidden	island_zp_fault
	.globl	island_zp_fault_end
	.hidden	island_zp_fault_end
island_zp_fault:
	mov	$-1, %rax
	syscall
island_zp_fault_end:
	jmp	*island_stub_up+16(%rip)	/* zp_fault_undispatched */

/* What the region calls of its dispatcher, filled in by sud.c before
 * any of it runs (struct stub_up), and the vector state zp_entry saves
 * (island_zp_mask, island_zp_ymm): the stub calls no C by name, so that
 * everything may make its system calls here. */
	.bss
	.balign	8
	.globl	island_stub_up
	.hidden	island_stub_up
island_stub_up:
	.zero	24
	.globl	island_zp_mask
	.hidden	island_zp_mask
island_zp_mask:
	.zero	8
	.globl	island_zp_ymm
	.hidden	island_zp_ymm
island_zp_ymm:
	.zero	1
#endif
	.section .note.GNU-stack,"",@progbits
