/*
 * arch_switch_context(old, new, next): save the callee-saved state of the
 * running task into old, load new's, make tp = next and return into it. Layout: struct task_context
 * in kernel/sched.h (ra, sp, s0-s11, fs0-fs11, fcsr).
 */
	.section .text
	.globl arch_switch_context
arch_switch_context:
	sd ra, 0(a0)
	sd sp, 8(a0)
	.irp n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
	sd s\n, (16 + \n * 8)(a0)
	.endr
	.irp n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
	fsd fs\n, (112 + \n * 8)(a0)
	.endr
	frcsr t0
	sd t0, 208(a0)

	ld ra, 0(a1)
	ld sp, 8(a1)
	.irp n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
	ld s\n, (16 + \n * 8)(a1)
	.endr
	.irp n, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11
	fld fs\n, (112 + \n * 8)(a1)
	.endr
	ld t0, 208(a1)
	fscsr t0
	mv tp, a2
	ret
