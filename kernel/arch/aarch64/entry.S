/*
 * Boot entry. QEMU's -kernel (or U-Boot's booti) starts the Image at
 * _start on one CPU, at EL2 or EL1, MMU off, x0 = device tree. Other CPUs
 * enter secondary_entry through PSCI CPU_ON with x0 = their idle task,
 * whose cpu's boot_sp is their stack.
 *
 * Both leave EL2 for EL1 if started there, enable FP/SIMD and the
 * exception vectors, and turn the MMU on before they run C: with it off,
 * every data access is Device memory, where the unaligned accesses that
 * compiled code makes fault. The boot CPU uses boot_l1 (1 GiB blocks: the
 * first GiB Device, RAM's range Normal) until vm_init builds the kernel
 * table (mm/vm.c, kernel/arch/aarch64/mmu.c); a secondary CPU loads that
 * table, whose values arch_mmu_enable left in vm_kernel_ttbr0/1.
 */
#include <kernel/arch/aarch64/asm_offsets.h>
#include <kernel/arch/aarch64/sysreg.h>

#define BLOCK_NORMAL ((1 << 10) | (3 << 8) | (ATTR_NORMAL << 2) | 1)
#define BLOCK_DEVICE ((3 << 53) | (1 << 10) | (ATTR_DEVICE << 2) | 1)

/* From EL2 (QEMU with virtualization=on, or firmware that leaves it) to
 * EL1h with every exception masked; at EL1 already, nothing. */
.macro DROP_TO_EL1
	mrs x9, CurrentEL
	cmp x9, #(2 << 2)
	b.ne 9f
	mov x9, #(1 << 31)		/* HCR_EL2.RW: EL1 is AArch64 */
	msr hcr_el2, x9
	mrs x9, cnthctl_el2
	orr x9, x9, #3			/* EL1 uses the counter and timer */
	msr cnthctl_el2, x9
	msr cntvoff_el2, xzr
	mov x9, #0x33ff			/* CPTR_EL2: no FP/SIMD traps */
	msr cptr_el2, x9
	mrs x9, midr_el1
	msr vpidr_el2, x9
	mrs x9, mpidr_el1
	msr vmpidr_el2, x9
	mrs x9, id_aa64pfr0_el1		/* a GICv3 CPU interface? */
	ubfx x9, x9, #24, #4
	cbz x9, 8f
	mrs x9, S3_4_C12_C9_5		/* ICC_SRE_EL2: SRE and Enable */
	mov x10, #0x9
	orr x9, x9, x10
	msr S3_4_C12_C9_5, x9
	isb
8:	ldr x9, =SCTLR_RES1
	msr sctlr_el1, x9
	mov x9, #0x3c5			/* EL1h, D A I F masked */
	msr spsr_el2, x9
	adr x9, 9f
	msr elr_el2, x9
	eret
9:
.endm

.macro CPU_SETUP
	msr daifset, #0xf
	mov x9, #CPACR_FPEN
	msr cpacr_el1, x9
	adrp x9, trap_vectors
	add x9, x9, :lo12:trap_vectors
	msr vbar_el1, x9
	isb
.endm

/* Translation on with TTBR0 = x0, TTBR1 = x1, TCR = x2. */
.macro MMU_ON
	ldr x9, =MAIR_VALUE
	msr mair_el1, x9
	msr tcr_el1, x2
	msr ttbr0_el1, x0
	msr ttbr1_el1, x1
	isb
	tlbi vmalle1
	dsb nsh
	isb
	ldr x9, =SCTLR_KERNEL
	msr sctlr_el1, x9
	isb
.endm

	.section .text.entry, "ax"
	.globl _start
_start:
	/*
	 * The arm64 Linux Image header (64 bytes, Linux's
	 * Documentation/arch/arm64/booting.rst): QEMU's -kernel and U-Boot's
	 * booti place the image at a 2 MiB-aligned start of RAM + text_offset
	 * (flags bit 3 clear), 0x40200000 on virt, where it is linked.
	 */
	b .Lboot			/* code0 */
	.word 0				/* code1 */
	.quad 0x200000			/* text_offset */
	.quad __image_size		/* image_size: text to end of bss */
	.quad 2				/* flags: little-endian, 4 KiB pages */
	.quad 0, 0, 0			/* res2-res4 */
	.ascii "ARM\x64"		/* magic */
	.word 0				/* res5 */
.Lboot:
	mov x19, x0
	DROP_TO_EL1
	CPU_SETUP
	adrp x0, __bss_start
	add x0, x0, :lo12:__bss_start
	adrp x1, __bss_end
	add x1, x1, :lo12:__bss_end
1:	cmp x0, x1
	b.hs 2f
	str xzr, [x0], #8
	b 1b
2:	adrp x0, boot_l1
	add x0, x0, :lo12:boot_l1
	ldr x1, =BLOCK_DEVICE
	str x1, [x0]
	mov x2, #1
3:	ldr x1, =BLOCK_NORMAL
	orr x1, x1, x2, lsl #30
	str x1, [x0, x2, lsl #3]
	add x2, x2, #1
	cmp x2, #256
	b.lo 3b
	mov x1, x0
	ldr x2, =(TCR_KERNEL | TCR_EPD1)
	MMU_ON
	adrp x0, boot_stack_top
	add x0, x0, :lo12:boot_stack_top
	mov sp, x0
	mrs x0, mpidr_el1		/* the hart id: MPIDR's affinity */
	mov x1, #0xffffff
	movk x1, #0xff, lsl #32
	and x0, x0, x1
	mov x1, x19
	mov x29, #0
	mov x30, #0
	bl kmain
4:	wfi
	b 4b

	.globl secondary_entry
secondary_entry:
	mov x19, x0
	DROP_TO_EL1
	CPU_SETUP
	adrp x0, vm_kernel_ttbr0
	ldr x0, [x0, :lo12:vm_kernel_ttbr0]
	adrp x1, vm_kernel_ttbr1
	ldr x1, [x1, :lo12:vm_kernel_ttbr1]
	ldr x2, =TCR_KERNEL
	MMU_ON
	msr tpidr_el1, x19
	/* boot_sp is in the stack area (mm/vm.c): translation on first */
	ldr x0, [x19, #TASK_CPU]
	ldr x0, [x0, #CPU_BOOT_SP]
	mov sp, x0
	mov x29, #0
	mov x30, #0
	bl secondary_main
5:	wfi
	b 5b

	.section .bss
	.balign 4096
boot_l1:
	.space 4096
	.balign 16
	.globl boot_stack
boot_stack:
	.space 16384
	.globl boot_stack_top
boot_stack_top:

	.section .data
	.balign 4
	.globl smp_stray_harts
smp_stray_harts:		/* kernel/smp.c's count; PSCI sends none to _start */
	.word 0
