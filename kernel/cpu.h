/*
 * kernel/cpu.h: per-hart data.
 *
 * Each hart owns one struct cpu; arch_this_cpu() returns it (tp holds it).
 * Fields are touched only by their own hart, with interrupts off, unless a
 * comment says otherwise. The first fields are read by assembly: their
 * offsets are checked in kernel/arch/riscv64/asm_offsets.c.
 */
#pragma once

#include <kernel/compiler.h>
#include <kernel/arch.h>

#define MAX_CPUS 8

struct task;

struct cpu {
	/* read by trap entry (assembly) */
	uintptr_t stack_lo;	/* lowest valid address of the running stack */
	uintptr_t emergency_sp; /* stack used to report a stack overflow */
	uintptr_t boot_sp;	/* initial stack of a secondary hart */

	unsigned int id;	/* logical number, 0 .. ncpus-1 */
	unsigned long hartid;	/* the platform's hart id */
	struct task *current;
	struct task *idle;
	int preempt_count;	/* >0: no involuntary switch on this hart */
	bool need_resched;
	struct task *switch_from; /* task being switched out */
	uint64_t switched_at;	/* time_ns() of the last switch */
	unsigned int irq_depth; /* nested trap handlers running */
	uint64_t ticks;		/* timer interrupts taken */
	uint64_t next_tick;	/* counter value of the next tick */
	bool online;		/* set once, read by any hart */
};

extern struct cpu cpus[MAX_CPUS];
extern unsigned int ncpus;

static inline struct cpu *this_cpu(void)
{
	return arch_this_cpu();
}

static inline unsigned int cpu_id(void)
{
	return arch_this_cpu()->id;
}

#define for_each_cpu(c) for (c = &cpus[0]; c < &cpus[ncpus]; c++)
