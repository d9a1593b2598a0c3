/*
 * Boot entry. OpenSBI enters _start in S-mode on one hart with a0 = hartid
 * and a1 = device tree. Other harts enter secondary_entry through SBI HSM
 * hart_start with a1 = their idle task, whose cpu's boot_sp is their stack.
 *
 * The firmware can also release a hart we are starting at its default
 * entry, _start, instead of secondary_entry: OpenSBI 1.1 marks the hart
 * startable before it records the start address, and a hart that wakes in
 * between leaves with the default one. Seen here as a second kmain on
 * another hart, which cleared the running kernel's bss. So _start lets only
 * the first hart boot; a later one becomes the secondary hart that
 * kernel/smp.c is starting (smp_starting_idle).
 */
#include <kernel/arch/riscv64/csr.h>
#include <kernel/arch/riscv64/asm_offsets.h>

	.section .text.entry, "ax"
	.globl _start
_start:
	/*
	 * The RISC-V Linux Image header (64 bytes, Linux's
	 * Documentation/arch/riscv/boot-image-header.rst), so that U-Boot's
	 * booti starts this image, from the ELF's bytes or from build/Image.
	 * booti checks magic2 and image_size and places the image at the
	 * start of RAM + text_offset: 0x80200000, where it is linked. The
	 * first word jumps over the header: OpenSBI enters here too.
	 */
	.option push
	.option norvc
	j .Lboot			/* code0 */
	.word 0				/* code1 */
	.dword 0x200000			/* text_offset from the start of RAM */
	.dword __image_size		/* image_size: text to end of bss */
	.dword 0			/* flags: little-endian */
	.word 2				/* version 0.2 */
	.word 0				/* res1 */
	.dword 0			/* res2 */
	.ascii "RISCV\0\0\0"		/* magic (deprecated) */
	.ascii "RSC\x05"		/* magic2 */
	.word 0				/* res3 */
	.option pop
.Lboot:
	la t0, boot_claimed
	li t1, 1
	amoswap.w.aqrl t1, t1, (t0)
	bnez t1, .Lstray
	csrw sie, zero
	csrw sscratch, zero
	li t0, SSTATUS_FS_INITIAL
	csrs sstatus, t0
	la sp, boot_stack_top
	la t0, __bss_start
	la t1, __bss_end
1:	bgeu t0, t1, 2f
	sd zero, 0(t0)
	addi t0, t0, 8
	j 1b
2:	mv fp, zero
	call kmain
3:	wfi
	j 3b

.Lstray:
	la t0, smp_stray_harts
	li t1, 1
	amoadd.w t1, t1, (t0)
	la t0, smp_starting_idle
	ld a1, 0(t0)
	bnez a1, secondary_entry
5:	wfi			/* nobody is being started: stay parked */
	j 5b

	.globl secondary_entry
secondary_entry:
	csrw sie, zero
	csrw sscratch, zero
	li t0, SSTATUS_FS_INITIAL
	csrs sstatus, t0
	mv tp, a1
	/* boot_sp is in the stack area (mm/vm.c): translation on first */
	la t0, vm_kernel_satp
	ld t0, 0(t0)
	csrw satp, t0
	sfence.vma
	ld sp, TASK_CPU(tp)
	ld sp, CPU_BOOT_SP(sp)
	mv fp, zero
	call secondary_main
4:	wfi
	j 4b

	.section .data
	.balign 4
boot_claimed:			/* in .data: _start clears .bss after claiming */
	.word 0
	.globl smp_stray_harts
smp_stray_harts:		/* harts that came in through _start late */
	.word 0

	.section .bss
	.balign 16
	.globl boot_stack
boot_stack:
	.space 16384
	.globl boot_stack_top
boot_stack_top:
