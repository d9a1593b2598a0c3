/*
 * kernel/cpu.h: per-hart data.
 *
 * Each hart owns one struct cpu; this_cpu() finds it through the running
 * task, so callers must not be preemptible (a migration would make the
 * answer stale): hold a spinlock, have interrupts off, or be in a trap.
 * Fields are touched only by their own hart, with interrupts off, unless a
 * comment says otherwise. The first fields are read by assembly: their
 * offsets are checked in each arch's trap.c (kernel/arch/<arch>/).
 */
#pragma once

#include <kernel/compiler.h>
#include <kernel/arch.h>

#define MAX_CPUS 8

struct task;

struct cpu {
	/* read by trap entry (assembly) */
	uintptr_t emergency_sp; /* stack used to report a stack overflow */
	uintptr_t boot_sp;	/* initial stack of a secondary hart */

	unsigned int id;      /* logical number, 0 .. ncpus-1 */
	unsigned long hartid; /* the platform's hart id */
	struct task *current;
	struct task *idle;
	bool need_resched;	  /* also set by a waker on another hart */
	struct task *switch_from; /* task being switched out */
	uint64_t switched_at;	  /* time_ns() of the last switch */
	unsigned int irq_depth;	  /* nested trap handlers running */
	uint64_t ticks;		  /* timer interrupts taken */
	uint64_t next_tick;	  /* counter value of the next tick */
	unsigned long ipis_sent;  /* wake-up IPIs sent */
	unsigned long ipis_taken; /* wake-up IPIs taken (this hart only) */
	unsigned long kicks;	  /* harts (bit per cpu id) owed a wake-up
				     IPI once this hart holds no lock:
				     only this hart, interrupts off */
	bool online;		  /* set once, read by any hart */
	/* kernel/timer.h's TLB sizing: written by this hart's tick */
	unsigned long busy_ticks;	  /* ticks that found a task running */
	unsigned long tlb_sizing_flushes; /* flushes it made */
	/* kernel/rcu.c: written by this hart, read by grace-period waiters */
	unsigned int rcu_depth; /* read-side sections open */
	unsigned long rcu_ends; /* outermost sections ended */
};

extern struct cpu cpus[MAX_CPUS];
extern unsigned int ncpus;

/* struct task begins with these two fields (checked in sched.c). */
struct task_head {
	uintptr_t stack_lo;
	struct cpu *cpu;
};

static inline struct cpu *this_cpu(void)
{
	return ((struct task_head *)arch_current_task())->cpu;
}

static inline unsigned int cpu_id(void)
{
	return this_cpu()->id;
}

/* A wake-up IPI arrived on this hart (whichever way the board sends it):
 * reschedule on the way out of the interrupt. Interrupts off. */
static inline void cpu_take_wake_ipi(void)
{
	struct cpu *c = this_cpu();

	c->need_resched = true;
	c->ipis_taken++;
}

#define for_each_cpu(c) for (c = &cpus[0]; c < &cpus[ncpus]; c++)
