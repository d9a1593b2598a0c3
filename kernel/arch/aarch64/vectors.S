/*
 * The exception vectors and trap entry/return. Kernel and tasks share EL1
 * and SP_EL1, so every exception arrives on the running stack; TPIDR_EL1
 * is the running task. Before pushing the frame, the entry checks that it
 * fits above task->stack_lo; if not, the stack overflowed into its guard
 * page and the frame goes on the CPU's emergency stack instead. x0 and x1
 * wait in TPIDR_EL0 and TPIDRRO_EL0 (unused: nothing runs at EL0) until
 * the frame has room for them.
 */
#include <kernel/arch/aarch64/asm_offsets.h>
#include <kernel/arch/aarch64/trap.h>

.macro VENTRY kind
	.balign 0x80
	msr tpidr_el0, x0
	mov x0, #\kind
	b trap_common
.endm

/* Save everything but sp and the kind, which the entry saved. */
.macro SAVE_REST
	stp x2, x3, [sp, #TF_REG(2)]
	stp x4, x5, [sp, #TF_REG(4)]
	stp x6, x7, [sp, #TF_REG(6)]
	stp x8, x9, [sp, #TF_REG(8)]
	stp x10, x11, [sp, #TF_REG(10)]
	stp x12, x13, [sp, #TF_REG(12)]
	stp x14, x15, [sp, #TF_REG(14)]
	stp x16, x17, [sp, #TF_REG(16)]
	stp x18, x19, [sp, #TF_REG(18)]
	stp x20, x21, [sp, #TF_REG(20)]
	stp x22, x23, [sp, #TF_REG(22)]
	stp x24, x25, [sp, #TF_REG(24)]
	stp x26, x27, [sp, #TF_REG(26)]
	stp x28, x29, [sp, #TF_REG(28)]
	str x30, [sp, #TF_REG(30)]
	mrs x2, tpidr_el0
	mrs x3, tpidrro_el0
	stp x2, x3, [sp, #TF_REG(0)]
	mrs x2, elr_el1
	mrs x3, spsr_el1
	stp x2, x3, [sp, #TF_ELR]
	mrs x2, esr_el1
	mrs x3, far_el1
	stp x2, x3, [sp, #TF_ESR]
	stp q0, q1, [sp, #TF_Q(0)]
	stp q2, q3, [sp, #TF_Q(2)]
	stp q4, q5, [sp, #TF_Q(4)]
	stp q6, q7, [sp, #TF_Q(6)]
	stp q8, q9, [sp, #TF_Q(8)]
	stp q10, q11, [sp, #TF_Q(10)]
	stp q12, q13, [sp, #TF_Q(12)]
	stp q14, q15, [sp, #TF_Q(14)]
	stp q16, q17, [sp, #TF_Q(16)]
	stp q18, q19, [sp, #TF_Q(18)]
	stp q20, q21, [sp, #TF_Q(20)]
	stp q22, q23, [sp, #TF_Q(22)]
	stp q24, q25, [sp, #TF_Q(24)]
	stp q26, q27, [sp, #TF_Q(26)]
	stp q28, q29, [sp, #TF_Q(28)]
	stp q30, q31, [sp, #TF_Q(30)]
	mrs x2, fpcr
	str x2, [sp, #TF_FPCR]
	mrs x2, fpsr
	str x2, [sp, #TF_FPSR]
	ldr x2, [sp, #TF_ELR]
	str x29, [sp, #TF_RECORD_FP]
	str x2, [sp, #TF_RECORD_PC]
	add x29, sp, #TF_RECORD_FP
.endm

	.section .text
	.balign 2048
	.globl trap_vectors
trap_vectors:
	.rept 4				/* current EL with SP_EL0: never */
	VENTRY TRAP_OTHER
	.endr
	VENTRY TRAP_SYNC		/* current EL with SP_EL1 */
	VENTRY TRAP_IRQ
	VENTRY TRAP_FIQ
	VENTRY TRAP_SERR
	.rept 8				/* lower EL (AArch64, AArch32): never */
	VENTRY TRAP_OTHER
	.endr

trap_common:
	msr tpidrro_el0, x1
	mrs x1, tpidr_el1
	ldr x1, [x1, #TASK_STACK_LO]
	add x1, x1, #TF_SIZE
	cmp sp, x1
	b.lo .Loverflow
	sub sp, sp, #TF_SIZE
	str x0, [sp, #TF_KIND]
	SAVE_REST
	add x2, sp, #TF_SIZE
	str x2, [sp, #TF_SP]
	mov x0, sp
	bl trap_handler

	/* Restore from the frame on this stack (a context switch may have
	 * happened in between; the frame belongs to the context resuming). */
	ldp x2, x3, [sp, #TF_ELR]
	msr elr_el1, x2
	msr spsr_el1, x3
	ldr x2, [sp, #TF_FPCR]
	msr fpcr, x2
	ldr x2, [sp, #TF_FPSR]
	msr fpsr, x2
	ldp q0, q1, [sp, #TF_Q(0)]
	ldp q2, q3, [sp, #TF_Q(2)]
	ldp q4, q5, [sp, #TF_Q(4)]
	ldp q6, q7, [sp, #TF_Q(6)]
	ldp q8, q9, [sp, #TF_Q(8)]
	ldp q10, q11, [sp, #TF_Q(10)]
	ldp q12, q13, [sp, #TF_Q(12)]
	ldp q14, q15, [sp, #TF_Q(14)]
	ldp q16, q17, [sp, #TF_Q(16)]
	ldp q18, q19, [sp, #TF_Q(18)]
	ldp q20, q21, [sp, #TF_Q(20)]
	ldp q22, q23, [sp, #TF_Q(22)]
	ldp q24, q25, [sp, #TF_Q(24)]
	ldp q26, q27, [sp, #TF_Q(26)]
	ldp q28, q29, [sp, #TF_Q(28)]
	ldp q30, q31, [sp, #TF_Q(30)]
	ldp x0, x1, [sp, #TF_REG(0)]
	ldp x2, x3, [sp, #TF_REG(2)]
	ldp x4, x5, [sp, #TF_REG(4)]
	ldp x6, x7, [sp, #TF_REG(6)]
	ldp x8, x9, [sp, #TF_REG(8)]
	ldp x10, x11, [sp, #TF_REG(10)]
	ldp x12, x13, [sp, #TF_REG(12)]
	ldp x14, x15, [sp, #TF_REG(14)]
	ldp x16, x17, [sp, #TF_REG(16)]
	ldp x18, x19, [sp, #TF_REG(18)]
	ldp x20, x21, [sp, #TF_REG(20)]
	ldp x22, x23, [sp, #TF_REG(22)]
	ldp x24, x25, [sp, #TF_REG(24)]
	ldp x26, x27, [sp, #TF_REG(26)]
	ldp x28, x29, [sp, #TF_REG(28)]
	ldr x30, [sp, #TF_REG(30)]
	add sp, sp, #TF_SIZE
	eret

.Loverflow:
	mrs x1, tpidr_el1
	ldr x1, [x1, #TASK_CPU]
	ldr x1, [x1, #CPU_EMERGENCY_SP]
	sub x1, x1, #TF_SIZE
	str x0, [x1, #TF_KIND]
	mov x0, sp
	str x0, [x1, #TF_SP]
	mov sp, x1
	SAVE_REST
	mov x0, sp
	bl trap_stack_overflow
1:	b 1b
