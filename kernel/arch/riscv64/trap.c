/*
 * kernel/arch/riscv64/trap.c: what happens after trap_entry saved a frame.
 *
 * Interrupts: timer (the scheduler tick), external (PLIC), software (IPI:
 * "look at the run queue"). An interrupted task is preempted on the way out
 * when it asked for it and preemption is enabled.
 * Exceptions: a page fault inside arch_copy_nofault ends that copy short
 * (copy.S); a page fault in the file-mapping area goes to mm/fault.c,
 * which may sleep (interrupts back on, as the task had them). A fault it
 * cannot resolve, and any other fault in a task, prints a report (cause,
 * registers, backtrace) and ends that task - a bus error past EOF, as
 * SIGBUS in Linux; the kernel goes on. A fault where no task
 * can be blamed (interrupt handler, idle, boot) is a panic.
 */
#include <errno.h>
#include <stdio.h>
#include <kernel/arch/riscv64/trap.h>
#include <kernel/arch/riscv64/csr.h>
#include <kernel/arch/riscv64/asm_offsets.h>
#include <kernel/cpu.h>
#include <kernel/irq.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/sched.h>
#include <kernel/timer.h>
#include <mm/mmap.h>
#include <mm/vm.h>

BUILD_BUG_ON(offsetof(struct cpu, emergency_sp) != CPU_EMERGENCY_SP);
BUILD_BUG_ON(offsetof(struct cpu, boot_sp) != CPU_BOOT_SP);
BUILD_BUG_ON(sizeof(struct trap_frame) != TF_SIZE);
BUILD_BUG_ON(offsetof(struct trap_frame, fcsr) != TF_FCSR);
BUILD_BUG_ON(offsetof(struct trap_frame, record_pc) != TF_RECORD_PC);
BUILD_BUG_ON(offsetof(struct task_context, fcsr) != 208);
BUILD_BUG_ON(offsetof(struct task, stack_lo) != TASK_STACK_LO);
BUILD_BUG_ON(offsetof(struct task, cpu) != TASK_CPU);

extern char trap_entry[];
/* kernel/arch/riscv64/copy.S: arch_copy_nofault's code and its exit. */
extern char copy_nofault_start[], copy_nofault_fault[], copy_nofault_end[];

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
		backtrace_from(tf->regs[8], tf->sepc);
	task_kill_current(why);
}

/* A fault in a file mapping, in a task that may sleep there. Return: 0
 * (retry the access) or why it cannot be resolved. */
static const char *mmap_fault(struct trap_frame *tf)
{
	bool can_sleep = task_context() && current_task()->preempt_count == 0 &&
			 (tf->sstatus & SSTATUS_SPIE);
	int err;

	if (tf->scause == EXC_INST_PAGE_FAULT)
		return "segmentation fault (SIGSEGV: no execute)";
	if (!can_sleep)
		return "file-mapping fault where the task cannot sleep";
	arch_irq_enable();
	err = vm_mmap_fault(tf->stval, tf->scause == EXC_STORE_PAGE_FAULT);
	arch_irq_disable();
	switch (err) {
	case 0: return NULL;
	case -EIO: return "bus error (SIGBUS)";
	case -ENOMEM: return "out of memory on a file-mapping fault";
	default: return "segmentation fault (SIGSEGV)";
	}
}

static void handle_exception(struct trap_frame *tf)
{
	unsigned long cause = tf->scause;
	bool page_fault = cause == EXC_LOAD_PAGE_FAULT ||
			  cause == EXC_STORE_PAGE_FAULT ||
			  cause == EXC_INST_PAGE_FAULT;
	const char *what = exception_name(cause);
	char why[96];

	if (page_fault && vm_handle_spurious_fault(tf->stval))
		return;
	/* arch_copy_nofault's caller holds a lock the fault would need: the
	 * copy stops short instead, and says how much is left. */
	if (page_fault && tf->sepc >= (uintptr_t)copy_nofault_start &&
	    tf->sepc < (uintptr_t)copy_nofault_end) {
		tf->sepc = (uintptr_t)copy_nofault_fault;
		return;
	}
	if (page_fault && vm_in_mmap_area(tf->stval)) {
		what = mmap_fault(tf);
		if (!what)
			return;
	}
	snprintf(why,
		 sizeof(why),
		 "%s at %#llx, address %#llx",
		 what,
		 (unsigned long long)tf->sepc,
		 (unsigned long long)tf->stval);
	oops(tf, why, true);
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
		c->need_resched = true;
		break;
	default: pr_warn("trap: unexpected interrupt %lu\n", irq);
	}
	c->irq_depth--;
}

void trap_handler(struct trap_frame *tf)
{
	struct cpu *c = this_cpu();

	if (unlikely(panic_in_progress))
		for (;;)
			arch_wait_for_interrupt();
	if (!(tf->scause & CAUSE_INTERRUPT)) {
		handle_exception(tf);
		return;
	}
	handle_interrupt(tf);
	if (c->kicks && c->irq_depth == 0) /* owed by the handler's wakes */
		sched_send_kicks();
	/* Preempt only a context that had interrupts on and no spinlock. */
	if (c->need_resched && current_task()->preempt_count == 0 &&
	    c->irq_depth == 0 && (tf->sstatus & SSTATUS_SPIE))
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
		 (unsigned long long)tf->regs[2],
		 (unsigned long)lo);
	oops(tf, why, false); /* its frames are on the overflowed stack */
}
