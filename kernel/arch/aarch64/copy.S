/*
 * arch_copy_nofault(dst, src, n): copy @n bytes, or fewer if a load from
 * @src meets a page fault, and return how many bytes were NOT copied.
 *
 * For copies the kernel makes while it holds a lock that the fault would
 * need (see kernel/arch/riscv64/copy.S, the same contract): the trap
 * handler finds ELR inside [copy_nofault_start, copy_nofault_end) and
 * resumes at copy_nofault_fault instead (kernel/arch/aarch64/trap.c). x2
 * counts the bytes still to copy and only drops after the stores of a
 * group; a faulting post-indexed load does not write its base back; stores
 * go to kernel memory that cannot fault: x2 is then the exact remainder.
 *
 * Words of 8 bytes, eight to a group, when both addresses are 8-aligned;
 * bytes otherwise and for the tail.
 */
	.section .text.hot, "ax"
	.globl arch_copy_nofault
	.globl copy_nofault_start
	.globl copy_nofault_fault
	.globl copy_nofault_end
arch_copy_nofault:
copy_nofault_start:
	orr x3, x0, x1
	tst x3, #7
	b.ne .Lbytes
.Lgroups:
	cmp x2, #64
	b.lo .Lwords
	ldp x3, x4, [x1]
	ldp x5, x6, [x1, #16]
	ldp x7, x8, [x1, #32]
	ldp x9, x10, [x1, #48]
	stp x3, x4, [x0]
	stp x5, x6, [x0, #16]
	stp x7, x8, [x0, #32]
	stp x9, x10, [x0, #48]
	add x0, x0, #64
	add x1, x1, #64
	sub x2, x2, #64
	b .Lgroups
.Lwords:
	cmp x2, #8
	b.lo .Lbytes
	ldr x3, [x1], #8
	str x3, [x0], #8
	sub x2, x2, #8
	b .Lwords
.Lbytes:
	cbz x2, copy_nofault_fault
	ldrb w3, [x1], #1
	strb w3, [x0], #1
	sub x2, x2, #1
	b .Lbytes
copy_nofault_fault:
	mov x0, x2
	ret
copy_nofault_end:
