/*
 * kernel/arch/aarch64/trap.c: what happens after the vectors saved a frame.
 *
 * IRQ: the GIC's (gic.c: the timer tick, the reschedule SGI, devices). An
 * interrupted task is preempted on the way out when it asked for it and
 * preemption is enabled.
 * Synchronous exceptions, as kernel/arch/riscv64/trap.c: a page fault
 * inside arch_copy_nofault ends that copy short (copy.S); a page fault in
 * the file-mapping area goes to mm/fault.c, which may sleep (interrupts
 * back on, as the task had them). A fault it cannot resolve, and any other
 * fault in a task, prints a report and ends that task; a fault where no
 * task can be blamed is a panic. FIQ, SError and exceptions from vectors
 * never used (EL0, SP_EL0) are a panic.
 */
#include <errno.h>
#include <stdio.h>
#include <kernel/arch/aarch64/asm_offsets.h>
#include <kernel/arch/aarch64/psci.h>
#include <kernel/arch/aarch64/sysreg.h>
#include <kernel/arch/aarch64/trap.h>
#include <kernel/cpu.h>
#include <kernel/irq.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/sched.h>
#include <mm/mmap.h>
#include <mm/vm.h>

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
/* kernel/arch/aarch64/copy.S: arch_copy_nofault's code and its exit. */
extern char copy_nofault_start[], copy_nofault_fault[], copy_nofault_end[];

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

static bool task_context(void)
{
	struct cpu *c = this_cpu();
	return c->current && c->current != c->idle && c->irq_depth == 0;
}

/* Report a fault and end the task that caused it; with no task to blame
 * (interrupt handler, idle, boot) the kernel cannot go on. */
static __noreturn void
oops(struct trap_frame *tf, const char *why, bool backtrace)
{
	if (!task_context())
		panic("%s (no task to blame)", why);
	printk(LOGLEVEL_ERR,
	       "Oops: %s in task %s on cpu %u\n",
	       why,
	       current_task_name(),
	       cpu_id());
	trap_dump_frame(tf);
	if (backtrace)
		backtrace_from(tf->regs[29], tf->elr);
	task_kill_current(why);
}

/* A fault in a file mapping, in a task that may sleep there. Return: 0
 * (retry the access) or why it cannot be resolved. */
static const char *mmap_fault(struct trap_frame *tf, bool exec, bool write)
{
	bool can_sleep = task_context() && current_task()->preempt_count == 0 &&
			 !(tf->spsr & PSR_I);
	int err;

	if (exec)
		return "segmentation fault (SIGSEGV: no execute)";
	if (!can_sleep)
		return "file-mapping fault where the task cannot sleep";
	arch_irq_enable();
	err = vm_mmap_fault(tf->far, write);
	arch_irq_disable();
	switch (err) {
	case 0: return NULL;
	case -EIO: return "bus error (SIGBUS)";
	case -ENOMEM: return "out of memory on a file-mapping fault";
	default: return "segmentation fault (SIGSEGV)";
	}
}

static void handle_sync(struct trap_frame *tf)
{
	uint64_t ec = ESR_EC(tf->esr);
	bool abort = ec == EC_IABT_SAME || ec == EC_DABT_SAME;
	bool page_fault = abort && FSC_IS_PAGE_FAULT(ESR_FSC(tf->esr));
	const char *what = exception_name(tf->esr);
	char why[96];

	/* semihosting_exit without QEMU's -semihosting: go on to PSCI */
	if (ec == EC_UNKNOWN && tf->elr == (uintptr_t)semihosting_insn) {
		tf->elr += 4;
		return;
	}
	if (page_fault && vm_handle_spurious_fault(tf->far))
		return;
	/* arch_copy_nofault's caller holds a lock the fault would need: the
	 * copy stops short instead, and says how much is left. */
	if (page_fault && tf->elr >= (uintptr_t)copy_nofault_start &&
	    tf->elr < (uintptr_t)copy_nofault_end) {
		tf->elr = (uintptr_t)copy_nofault_fault;
		return;
	}
	if (page_fault && vm_in_mmap_area(tf->far)) {
		what = mmap_fault(tf,
				  ec == EC_IABT_SAME,
				  ec == EC_DABT_SAME && (tf->esr & ESR_WNR));
		if (!what)
			return;
	}
	snprintf(why,
		 sizeof(why),
		 "%s at %#llx, address %#llx",
		 what,
		 (unsigned long long)tf->elr,
		 (unsigned long long)tf->far);
	oops(tf, why, true);
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
	if (c->kicks && c->irq_depth == 0) /* owed by the handler's wakes */
		sched_send_kicks();
	/* Preempt only a context that had interrupts on and no spinlock. */
	if (c->need_resched && current_task()->preempt_count == 0 &&
	    c->irq_depth == 0 && !(tf->spsr & PSR_I))
		schedule_preempt();
}

void trap_stack_overflow(struct trap_frame *tf)
{
	struct task *t = current_task();
	uintptr_t lo = t->stack_lo;
	char why[96];

	t->stack_lo = 0; /* on the emergency stack now: no second overflow */
	snprintf(why,
		 sizeof(why),
		 "stack overflow (sp %#llx, stack bottom %#lx)",
		 (unsigned long long)tf->sp,
		 (unsigned long)lo);
	oops(tf, why, false); /* its frames are on the overflowed stack */
}
