/*
 * arch_copy_nofault(dst, src, n): copy @n bytes, or fewer if a load from
 * @src meets a page fault, and return how many bytes were NOT copied.
 *
 * For copies the kernel makes while it holds a lock that the fault would
 * need (filemap_write copies from a task's buffer, which may be a file
 * mapping, into a locked page-cache page): the fault is not handled. The
 * trap handler finds sepc inside [copy_nofault_start, copy_nofault_end)
 * and resumes at copy_nofault_fault instead (kernel/arch/riscv64/trap.c),
 * with every register as the fault left it. a2 counts the bytes still to
 * copy and only drops after the stores of a group, and stores go to
 * kernel memory that cannot fault, so a2 is then the exact remainder.
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
	or t0, a0, a1
	andi t0, t0, 7
	bnez t0, .Lbytes
	li t1, 64
.Lgroups:
	bltu a2, t1, .Lwords
	ld t2, 0(a1)
	ld t3, 8(a1)
	ld t4, 16(a1)
	ld t5, 24(a1)
	ld t6, 32(a1)
	ld a3, 40(a1)
	ld a4, 48(a1)
	ld a5, 56(a1)
	sd t2, 0(a0)
	sd t3, 8(a0)
	sd t4, 16(a0)
	sd t5, 24(a0)
	sd t6, 32(a0)
	sd a3, 40(a0)
	sd a4, 48(a0)
	sd a5, 56(a0)
	addi a0, a0, 64
	addi a1, a1, 64
	addi a2, a2, -64
	j .Lgroups
.Lwords:
	li t1, 8
.Lword:
	bltu a2, t1, .Lbytes
	ld t2, 0(a1)
	sd t2, 0(a0)
	addi a0, a0, 8
	addi a1, a1, 8
	addi a2, a2, -8
	j .Lword
.Lbytes:
	beqz a2, copy_nofault_fault
	lbu t2, 0(a1)
	sb t2, 0(a0)
	addi a0, a0, 1
	addi a1, a1, 1
	addi a2, a2, -1
	j .Lbytes
copy_nofault_fault:
	mv a0, a2
	ret
copy_nofault_end:
