/*
 * kernel/trap.h: what a trap leads to, the same on every architecture
 * (kernel/trap.c). The architecture's trap handler (kernel/arch/<arch>/
 * trap.c) decodes the trap from its frame and registers, then calls here:
 * trap_exception() for a synchronous exception, trap_irq_exit() after an
 * interrupt's handlers ran; its entry code calls trap_stack_overflow().
 * struct trap_frame is the architecture's; this code reads it through
 * the accessors below, which each architecture implements.
 */
#pragma once

#include <kernel/compiler.h>

struct trap_frame;

/* The interrupted program counter, and where to resume instead. */
uintptr_t trap_frame_pc(const struct trap_frame *tf);
void trap_frame_set_pc(struct trap_frame *tf, uintptr_t pc);
/* The interrupted frame pointer and stack pointer. */
uintptr_t trap_frame_fp(const struct trap_frame *tf);
uintptr_t trap_frame_sp(const struct trap_frame *tf);
/* Did the interrupted context have interrupts enabled? */
bool trap_frame_irqs_on(const struct trap_frame *tf);
/* Print the registers (an oops's or a panic's report). */
void trap_dump_frame(const struct trap_frame *tf);

/* A synchronous exception as the architecture decoded it. */
struct trap_fault {
	const char *what; /* its name, for the report */
	uintptr_t addr;	  /* the faulting address (stval, FAR) */
	bool page_fault;  /* a translation or permission fault */
	bool write, exec; /* a page fault's access: a store, a fetch */
};

/*
 * Resolve @f, raised by the context saved in @tf, or report it: a spurious
 * page fault is flushed and retried; one inside arch_copy_nofault ends
 * that copy short; one in the file-mapping area goes to mm/fault.c, which
 * may sleep (interrupts back on, as the task had them). Anything else
 * prints a report (what, registers, backtrace) and ends the task, as
 * Linux's SIGSEGV/SIGBUS; where no task can be blamed (an interrupt
 * handler, idle, boot), it is a panic.
 * Context: the trap handler, interrupts off. Returns only to resume @tf.
 */
void trap_exception(struct trap_frame *tf, const struct trap_fault *f);
/* After an interrupt's handlers ran (irq_depth back down): send the
 * kicks their wakes owe, and preempt the interrupted task if it asked
 * and could be (interrupts were on, no spinlock held). */
void trap_irq_exit(struct trap_frame *tf);
/* The entry code found the stack pointer below the task's stack and
 * switched to the emergency stack: report and end the task. */
__noreturn void trap_stack_overflow(struct trap_frame *tf);
