/*
 * vfork: record, then jump to the real vfork with the caller's own return
 * address on the stack (see island_vfork_prepare in wrap_proc.c).
 */
#if defined(__x86_64__)
	.text
	.globl	vfork
	.type	vfork, @function
vfork:
	sub	$8, %rsp
	call	island_vfork_prepare
	add	$8, %rsp
	jmp	*%rax
	.size	vfork, .-vfork
#endif
	.section .note.GNU-stack,"",@progbits
