/*
 * kernel/arch/aarch64/trap.c: what happens after the vectors saved a frame.
 *
 * IRQ: the GIC's (gic.c: the timer tick, the reschedule SGI, devices). An
 * interrupted task is preempted on the way out when it asked for it and
 * preemption is enabled.
 * Synchronous exceptions: decoded from ESR_EL1/FAR_EL1 into a struct
 * trap_fault for kernel/trap.c, which resolves page faults or reports the
 * fault and ends the task (kernel/trap.h says how). FIQ, SError and exceptions
 * from vectors never used (EL0, SP_EL0) are a panic.
 */
#include <kernel/arch/aarch64/asm_offsets.h>
#include <kernel/arch/aarch64/psci.h>
#include <kernel/arch/aarch64/sysreg.h>
#include <kernel/arch/aarch64/trap.h>
#include <kernel/cpu.h>
#include <kernel/irq.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/sched.h>
#include <kernel/trap.h>

BUILD_BUG_ON(offsetof(struct cpu, emergency_sp) != CPU_EMERGENCY_SP);
BUILD_BUG_ON(offsetof(struct cpu, boot_sp) != CPU_BOOT_SP);
BUILD_BUG_ON(sizeof(struct trap_frame) != TF_SIZE);
BUILD_BUG_ON(offsetof(struct trap_frame, q) != TF_Q(0));
BUILD_BUG_ON(offsetof(struct trap_frame, fpcr) != TF_FPCR);
BUILD_BUG_ON(offsetof(struct trap_frame, record_pc) != TF_RECORD_PC);
BUILD_BUG_ON(offsetof(struct trap_frame, kind) != TF_KIND);
BUILD_BUG_ON(offsetof(struct task_context, sp) != 96);
BUILD_BUG_ON(offsetof(struct task_context, fpcr) != 168);
BUILD_BUG_ON(offsetof(struct task, stack_lo) != TASK_STACK_LO);
BUILD_BUG_ON(offsetof(struct task, cpu) != TASK_CPU);

extern char trap_vectors[];

static const char *exception_name(uint64_t esr)
{
	switch (ESR_EC(esr)) {
	case EC_UNKNOWN: return "undefined instruction";
	case EC_SVC: return "svc";
	case EC_IABT_SAME: return "instruction abort";
	case EC_PC_ALIGN: return "pc alignment fault";
	case EC_DABT_SAME: return "data abort";
	case EC_SP_ALIGN: return "sp alignment fault";
	case EC_BRK: return "brk";
	default: return "unknown exception";
	}
}

void trap_init_hart(void)
{
	sysreg_write(vbar_el1, (uintptr_t)trap_vectors);
	isb();
}

void trap_dump_frame(const struct trap_frame *tf)
{
	char sym[96];

	printk(LOGLEVEL_EMERG,
	       " pc : %016llx %s\n",
	       (unsigned long long)tf->elr,
	       ksym_format(tf->elr, sym, sizeof(sym)));
	printk(LOGLEVEL_EMERG,
	       " lr : %016llx %s\n",
	       (unsigned long long)tf->regs[30],
	       ksym_format(tf->regs[30], sym, sizeof(sym)));
	printk(LOGLEVEL_EMERG,
	       " sp %016llx spsr %016llx esr %016llx far %016llx\n",
	       (unsigned long long)tf->sp,
	       (unsigned long long)tf->spsr,
	       (unsigned long long)tf->esr,
	       (unsigned long long)tf->far);
	for (int i = 0; i < 30; i += 4)
		printk(LOGLEVEL_EMERG,
		       " x%-2d %016llx x%-2d %016llx x%-2d %016llx x%-2d "
		       "%016llx\n",
		       i,
		       (unsigned long long)tf->regs[i],
		       i + 1,
		       (unsigned long long)tf->regs[i + 1],
		       i + 2,
		       (unsigned long long)(i + 2 < 31 ? tf->regs[i + 2] : 0),
		       i + 3,
		       (unsigned long long)(i + 3 < 31 ? tf->regs[i + 3] : 0));
}

uintptr_t trap_frame_pc(const struct trap_frame *tf)
{
	return tf->elr;
}

void trap_frame_set_pc(struct trap_frame *tf, uintptr_t pc)
{
	tf->elr = pc;
}

uintptr_t trap_frame_fp(const struct trap_frame *tf)
{
	return tf->regs[29];
}

uintptr_t trap_frame_sp(const struct trap_frame *tf)
{
	return tf->sp;
}

bool trap_frame_irqs_on(const struct trap_frame *tf)
{
	return !(tf->spsr & PSR_I);
}

static void handle_sync(struct trap_frame *tf)
{
	uint64_t ec = ESR_EC(tf->esr);
	bool abort = ec == EC_IABT_SAME || ec == EC_DABT_SAME;
	struct trap_fault f = {
		.what = exception_name(tf->esr),
		.addr = tf->far,
		.page_fault = abort && FSC_IS_PAGE_FAULT(ESR_FSC(tf->esr)),
		.write = ec == EC_DABT_SAME && (tf->esr & ESR_WNR),
		.exec = ec == EC_IABT_SAME,
	};

	/* semihosting_exit without QEMU's -semihosting: go on to PSCI */
	if (ec == EC_UNKNOWN && tf->elr == (uintptr_t)semihosting_insn) {
		tf->elr += 4;
		return;
	}
	trap_exception(tf, &f);
}

void trap_handler(struct trap_frame *tf)
{
	struct cpu *c = this_cpu();

	if (unlikely(panic_in_progress))
		for (;;)
			arch_wait_for_interrupt();
	if (tf->kind == TRAP_SYNC) {
		handle_sync(tf);
		return;
	}
	if (tf->kind != TRAP_IRQ) {
		trap_dump_frame(tf);
		panic("trap: unexpected exception (vector kind %llu)",
		      (unsigned long long)tf->kind);
	}
	c->irq_depth++;
	irq_dispatch();
	c->irq_depth--;
	trap_irq_exit(tf);
}
