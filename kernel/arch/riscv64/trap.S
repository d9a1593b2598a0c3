/*
 * Trap entry and return. Kernel and tasks share S-mode, so every trap
 * arrives on the running stack. tp is the running task. Before pushing the
 * frame, the entry checks that the frame fits above task->stack_lo; if not,
 * the stack overflowed into its guard page and the frame goes on the hart's
 * emergency stack instead.
 */
#include <kernel/arch/riscv64/asm_offsets.h>
#include <kernel/arch/riscv64/trap.h>

/* Save all registers but sp (x2) and t0 (x5), which the entry saved. */
.macro SAVE_REST
	sd x1, TF_REG(1)(sp)
	sd x3, TF_REG(3)(sp)
	sd x4, TF_REG(4)(sp)
	.irp n, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
	sd x\n, TF_REG(\n)(sp)
	.endr
	.irp n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
	fsd f\n, TF_FREG(\n)(sp)
	.endr
	frcsr t0
	sd t0, TF_FCSR(sp)
	csrr t0, sepc
	sd t0, TF_SEPC(sp)
	sd t0, TF_RECORD_PC(sp)
	csrr t0, sstatus
	sd t0, TF_SSTATUS(sp)
	csrr t0, scause
	sd t0, TF_SCAUSE(sp)
	csrr t0, stval
	sd t0, TF_STVAL(sp)
	sd s0, TF_RECORD_FP(sp)
	addi s0, sp, TF_RECORD_PC + 8
.endm

	.section .text
	.balign 4
	.globl trap_entry
trap_entry:
	csrw sscratch, t0
	ld t0, TASK_STACK_LO(tp)
	addi t0, t0, TF_SIZE
	bltu sp, t0, .Loverflow
	addi sp, sp, -TF_SIZE
	csrr t0, sscratch
	sd t0, TF_REG(5)(sp)
	addi t0, sp, TF_SIZE
	sd t0, TF_REG(2)(sp)
	SAVE_REST
	mv a0, sp
	call trap_handler

	/* Restore from the frame on this stack (a context switch may have
	 * happened in between; the frame belongs to the context resuming). */
	ld t0, TF_SSTATUS(sp)
	csrw sstatus, t0
	ld t0, TF_SEPC(sp)
	csrw sepc, t0
	ld t0, TF_FCSR(sp)
	fscsr t0
	.irp n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
	fld f\n, TF_FREG(\n)(sp)
	.endr
	ld x1, TF_REG(1)(sp)
	ld x3, TF_REG(3)(sp)
	ld x4, TF_REG(4)(sp)
	.irp n, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31
	ld x\n, TF_REG(\n)(sp)
	.endr
	ld sp, TF_REG(2)(sp)
	sret

.Loverflow:
	mv t0, sp
	ld sp, TASK_CPU(tp)
	ld sp, CPU_EMERGENCY_SP(sp)
	addi sp, sp, -TF_SIZE
	sd t0, TF_REG(2)(sp)
	csrr t0, sscratch
	sd t0, TF_REG(5)(sp)
	SAVE_REST
	mv a0, sp
	call trap_stack_overflow
1:	j 1b
