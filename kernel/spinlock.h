/*
 * kernel/spinlock.h: busy-waiting locks.
 *
 * spin_lock disables preemption on this hart; the _irqsave/_irq variants
 * also mask interrupts, and must be used for any lock an interrupt handler
 * takes. Never sleep while holding one. The holder's hart and acquisition
 * site are recorded: spin_lock_held() answers "does this hart hold it".
 */
#pragma once

#include <kernel/compiler.h>
#include <kernel/lockdep.h>

struct cpu;

struct spinlock {
	uint32_t locked;
	struct cpu *owner; /* hart holding it, for debugging */
	uintptr_t site;	   /* where it was taken */
	struct lockdep_map dep;
};

#define SPINLOCK_INIT(lname)             \
	{                                \
		.dep = {.name = #lname } \
	}
#define DEFINE_SPINLOCK(lname) struct spinlock lname = SPINLOCK_INIT(lname)

void spin_lock_init(struct spinlock *l, const char *name);
void spin_lock(struct spinlock *l);
void spin_unlock(struct spinlock *l);
bool spin_trylock(struct spinlock *l);
unsigned long spin_lock_irqsave(struct spinlock *l);
void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags);
void spin_lock_irq(struct spinlock *l);
void spin_unlock_irq(struct spinlock *l);
bool spin_lock_held(const struct spinlock *l);

/* For a race hook (kernel/race.h) that holds @l and must know when the
 * other side has come for it: spin_lock_mark() marks the held lock, and
 * spin_lock_wanted() then says whether a spin_lock (any variant) or
 * spin_trylock on another hart has tried to take it since - an attempt
 * swaps a plain "locked" over the mark. A hart already spinning on @l
 * when it was marked only reads the lock until it is free, and does not
 * count: mark it before the other side can be there. */
void spin_lock_mark(struct spinlock *l);
bool spin_lock_wanted(const struct spinlock *l);

/* Bare lock for the scheduler's run queue, held across a context switch:
 * no preemption count, no lockdep (the releasing task is not the taker).
 * Caller has interrupts off. */
void raw_spin_lock(struct spinlock *l);
void raw_spin_unlock(struct spinlock *l);
/* The same, not counted in the running task's lockdep_acquired(): the
 * scheduler's when it preempts a task, which is the tick's doing. */
void raw_spin_lock_uncounted(struct spinlock *l);
/* Take it only if it is free now, not counted either: a hart stealing a
 * task from another hart's run queue (kernel/sched_rq.c), which must not
 * wait for that lock while it holds its own. */
bool raw_spin_trylock(struct spinlock *l);

void preempt_disable(void);
void preempt_enable(void);
/* Drop one preempt count without rescheduling (the switch path). */
void preempt_enable_no_resched(void);
bool preemptible(void);
