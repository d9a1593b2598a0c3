/*
 * kernel/arch/riscv64/trap.c: what happens after trap_entry saved a frame.
 *
 * Interrupts: timer (the scheduler tick), external (PLIC), software (IPI:
 * "look at the run queue"). An interrupted task is preempted on the way out
 * when it asked for it and preemption is enabled.
 * Exceptions: decoded from scause/stval into a struct trap_fault for
 * kernel/trap.c, which resolves page faults or reports the fault and ends
 * the task (kernel/trap.h says how).
 */
#include <kernel/arch/riscv64/trap.h>
#include <kernel/arch/riscv64/csr.h>
#include <kernel/arch/riscv64/asm_offsets.h>
#include <kernel/cpu.h>
#include <kernel/irq.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/sched.h>
#include <kernel/timer.h>
#include <kernel/trap.h>

BUILD_BUG_ON(offsetof(struct cpu, emergency_sp) != CPU_EMERGENCY_SP);
BUILD_BUG_ON(offsetof(struct cpu, boot_sp) != CPU_BOOT_SP);
BUILD_BUG_ON(sizeof(struct trap_frame) != TF_SIZE);
BUILD_BUG_ON(offsetof(struct trap_frame, fcsr) != TF_FCSR);
BUILD_BUG_ON(offsetof(struct trap_frame, record_pc) != TF_RECORD_PC);
BUILD_BUG_ON(offsetof(struct task_context, fcsr) != 208);
BUILD_BUG_ON(offsetof(struct task, stack_lo) != TASK_STACK_LO);
BUILD_BUG_ON(offsetof(struct task, cpu) != TASK_CPU);

extern char trap_entry[];

static const char *const exception_names[] = {
	[EXC_INST_MISALIGNED] = "instruction address misaligned",
	[EXC_INST_ACCESS] = "instruction access fault",
	[EXC_ILLEGAL_INST] = "illegal instruction",
	[EXC_BREAKPOINT] = "breakpoint",
	[EXC_LOAD_MISALIGNED] = "load address misaligned",
	[EXC_LOAD_ACCESS] = "load access fault",
	[EXC_STORE_MISALIGNED] = "store address misaligned",
	[EXC_STORE_ACCESS] = "store access fault",
	[EXC_ECALL_U] = "ecall from U-mode",
	[EXC_ECALL_S] = "ecall from S-mode",
	[EXC_INST_PAGE_FAULT] = "instruction page fault",
	[EXC_LOAD_PAGE_FAULT] = "load page fault",
	[EXC_STORE_PAGE_FAULT] = "store page fault",
};

static const char *exception_name(unsigned long cause)
{
	if (cause < ARRAY_SIZE(exception_names) && exception_names[cause])
		return exception_names[cause];
	return "unknown exception";
}

void trap_init_hart(void)
{
	csr_write(stvec, (uintptr_t)trap_entry);
	csr_set(sie, SIE_SSIE | SIE_STIE | SIE_SEIE);
}

void trap_dump_frame(const struct trap_frame *tf)
{
	static const char *const names[32] = {
		"zero", "ra", "sp",  "gp",  "tp", "t0", "t1", "t2",
		"s0",	"s1", "a0",  "a1",  "a2", "a3", "a4", "a5",
		"a6",	"a7", "s2",  "s3",  "s4", "s5", "s6", "s7",
		"s8",	"s9", "s10", "s11", "t3", "t4", "t5", "t6",
	};
	char sym[96];

	printk(LOGLEVEL_EMERG,
	       " sepc: %016llx %s\n",
	       (unsigned long long)tf->sepc,
	       ksym_format(tf->sepc, sym, sizeof(sym)));
	printk(LOGLEVEL_EMERG,
	       " ra  : %016llx %s\n",
	       (unsigned long long)tf->regs[1],
	       ksym_format(tf->regs[1], sym, sizeof(sym)));
	printk(LOGLEVEL_EMERG,
	       " sstatus %016llx scause %016llx stval %016llx\n",
	       (unsigned long long)tf->sstatus,
	       (unsigned long long)tf->scause,
	       (unsigned long long)tf->stval);
	for (int i = 1; i < 32; i += 4)
		printk(LOGLEVEL_EMERG,
		       " %-4s %016llx %-4s %016llx %-4s %016llx %-4s %016llx\n",
		       names[i],
		       (unsigned long long)tf->regs[i],
		       names[i + 1],
		       (unsigned long long)tf->regs[i + 1],
		       i + 2 < 32 ? names[i + 2] : "",
		       (unsigned long long)(i + 2 < 32 ? tf->regs[i + 2] : 0),
		       i + 3 < 32 ? names[i + 3] : "",
		       (unsigned long long)(i + 3 < 32 ? tf->regs[i + 3] : 0));
}

uintptr_t trap_frame_pc(const struct trap_frame *tf)
{
	return tf->sepc;
}

void trap_frame_set_pc(struct trap_frame *tf, uintptr_t pc)
{
	tf->sepc = pc;
}

uintptr_t trap_frame_fp(const struct trap_frame *tf)
{
	return tf->regs[8]; /* s0 */
}

uintptr_t trap_frame_sp(const struct trap_frame *tf)
{
	return tf->regs[2];
}

bool trap_frame_irqs_on(const struct trap_frame *tf)
{
	return tf->sstatus & SSTATUS_SPIE;
}

static void handle_exception(struct trap_frame *tf)
{
	unsigned long cause = tf->scause;
	struct trap_fault f = {
		.what = exception_name(cause),
		.addr = tf->stval,
		.page_fault = cause == EXC_LOAD_PAGE_FAULT ||
			      cause == EXC_STORE_PAGE_FAULT ||
			      cause == EXC_INST_PAGE_FAULT,
		.write = cause == EXC_STORE_PAGE_FAULT,
		.exec = cause == EXC_INST_PAGE_FAULT,
	};

	trap_exception(tf, &f);
}

static void handle_interrupt(struct trap_frame *tf)
{
	struct cpu *c = this_cpu();
	unsigned long irq = tf->scause & ~CAUSE_INTERRUPT;

	c->irq_depth++;
	switch (irq) {
	case IRQ_S_TIMER: timer_interrupt(); break;
	case IRQ_S_EXT: irq_dispatch(); break;
	case IRQ_S_SOFT:
		csr_clear(sip, 1UL << IRQ_S_SOFT);
		cpu_take_wake_ipi();
		break;
	default: pr_warn("trap: unexpected interrupt %lu\n", irq);
	}
	c->irq_depth--;
}

void trap_handler(struct trap_frame *tf)
{
	if (unlikely(panic_in_progress))
		for (;;)
			arch_wait_for_interrupt();
	if (!(tf->scause & CAUSE_INTERRUPT)) {
		handle_exception(tf);
		return;
	}
	handle_interrupt(tf);
	trap_irq_exit(tf);
}
