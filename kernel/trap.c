/*
 * kernel/trap.c: the part of trap handling every architecture shares
 * (the contract is in kernel/trap.h): resolving a page fault, reporting
 * a fault and ending its task, and preemption on the way out of an
 * interrupt.
 */
#include <errno.h>
#include <stdio.h>
#include <kernel/arch.h>
#include <kernel/cpu.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/sched.h>
#include <kernel/trap.h>
#include <mm/mmap.h>
#include <mm/vm.h>

/* kernel/arch/<arch>/copy.S: arch_copy_nofault's code and its exit. */
extern char copy_nofault_start[], copy_nofault_fault[], copy_nofault_end[];

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
		backtrace_from(trap_frame_fp(tf), trap_frame_pc(tf));
	task_kill_current(why);
}

/* A fault in a file mapping, in a task that may sleep there. Return: NULL
 * (retry the access) or why it cannot be resolved. */
static const char *mmap_fault(struct trap_frame *tf, const struct trap_fault *f)
{
	bool can_sleep = task_context() && current_task()->preempt_count == 0 &&
			 trap_frame_irqs_on(tf);
	int err;

	if (f->exec)
		return "segmentation fault (SIGSEGV: no execute)";
	if (!can_sleep)
		return "file-mapping fault where the task cannot sleep";
	arch_irq_enable();
	err = vm_mmap_fault(f->addr, f->write);
	arch_irq_disable();
	switch (err) {
	case 0: return NULL;
	case -EIO: return "bus error (SIGBUS)";
	case -ENOMEM: return "out of memory on a file-mapping fault";
	default: return "segmentation fault (SIGSEGV)";
	}
}

void trap_exception(struct trap_frame *tf, const struct trap_fault *f)
{
	uintptr_t pc = trap_frame_pc(tf);
	const char *what = f->what;
	char why[96];

	if (f->page_fault && vm_handle_spurious_fault(f->addr))
		return;
	/* arch_copy_nofault's caller holds a lock the fault would need: the
	 * copy stops short instead, and says how much is left. */
	if (f->page_fault && pc >= (uintptr_t)copy_nofault_start &&
	    pc < (uintptr_t)copy_nofault_end) {
		trap_frame_set_pc(tf, (uintptr_t)copy_nofault_fault);
		return;
	}
	if (f->page_fault && vm_in_mmap_area(f->addr)) {
		what = mmap_fault(tf, f);
		if (!what)
			return;
	}
	snprintf(why,
		 sizeof(why),
		 "%s at %#llx, address %#llx",
		 what,
		 (unsigned long long)pc,
		 (unsigned long long)f->addr);
	oops(tf, why, true);
}

void trap_irq_exit(struct trap_frame *tf)
{
	struct cpu *c = this_cpu();

	/* Owed by the handler's wakes, or by the interrupted code's: sent
	 * now unless that code holds a lock (a spinlock keeps preemption
	 * off), whose release sends them (send_kick in kernel/sched.c). */
	sched_send_owed_kicks();
	if (c->need_resched && current_task()->preempt_count == 0 &&
	    c->irq_depth == 0 && trap_frame_irqs_on(tf))
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
		 (unsigned long long)trap_frame_sp(tf),
		 (unsigned long)lo);
	oops(tf, why, false); /* its frames are on the overflowed stack */
}
