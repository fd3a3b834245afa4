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

/*
 * long island_clone_vm(struct clone_regs *c): clone/clone3 on a new stack
 * for a child that shares our memory. The child must not return into the
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

	.globl	island_sud_end
	.hidden	island_sud_end
island_sud_end:
#endif
	.section .note.GNU-stack,"",@progbits
