/*
 * kernel/sched_internal.h: what kernel/sched.c, kernel/sched_rq.c and
 * kernel/task.c share, and nothing else includes.
 */
#pragma once

#include <kernel/sched.h>
#include <kernel/spinlock.h>

/*
 * One run queue per hart (kernel/sched_rq.c), FIFO.
 *
 * Lock rules:
 * - rq->lock is a raw spinlock, taken with interrupts off. It protects the
 *   queue and its counts, and the scheduling fields (state as stored by
 *   others, on_rq, on_cpu, run_node) of every task whose t->cpu is that
 *   hart: the task running there, last run there, or queued there.
 * - t->cpu changes only with the lock of both the old and the new hart
 *   held (a steal, steal_task), or before anyone else can see the task
 *   (task_create_on). So whoever reads t->cpu, locks that hart's queue and
 *   finds t->cpu unchanged holds the task's lock (task_rq_lock).
 * - A hart holds its own rq->lock across a context switch: the task
 *   switched to drops it (finish_switch), after the previous task's
 *   context is saved and its on_cpu cleared. So a task on a queue whose
 *   lock another hart holds is never live anywhere (no on_cpu), and a
 *   stealer cannot take a task still being switched out.
 * - Two rq locks at once only in a steal: a hart holds its own and takes
 *   another's by trylock, never waiting for it, so no order between the
 *   harts' locks is needed and none can deadlock.
 * - Outer locks: a wait queue's lock, a mutex's or an rw-semaphore's
 *   wait_lock may be held when rq->lock is taken (wake_up_task), never
 *   the reverse.
 * - nr_queued and nr_stealable are written under the lock and read
 *   without it as hints (an idle hart before it sleeps, the tick); a
 *   stale read costs a look, and the pairing fences in kick_idle_cpu and
 *   sched_idle_loop keep a wake-up from being missed by both sides.
 */
struct run_queue {
	struct spinlock lock;
	struct list_head tasks;
	unsigned int nr_queued;	   /* all tasks queued here */
	unsigned int nr_stealable; /* those another hart may take (CPU_ANY) */
	unsigned long steals;	   /* tasks this hart took from others */
				   /* (its own lock; read as a count) */
} __attribute__((aligned(64)));

/* Make hart @c's queue empty, before the hart schedules. */
void rq_init(const struct cpu *c);
struct run_queue *cpu_rq(const struct cpu *c);
/* Lock the run queue that holds @t's scheduling fields. Interrupts off. */
struct run_queue *task_rq_lock(struct task *t);
/* Put @t on @rq and make it @rq's hart's (t->cpu). Caller holds rq->lock. */
void enqueue(struct run_queue *rq, struct task *t);
/* The next task for hart @c: its own queue's head, else one taken from
 * another hart, else @c's idle task. Caller holds @c's rq->lock. */
struct task *pick_next(struct cpu *c);
/* Is there queued work hart @c may take? A hint: no lock. */
bool work_for(const struct cpu *c);
/* @t was queued on its hart's (t->cpu) queue: get an idle hart to look.
 * Caller holds that queue's lock. Return: the hart to send an IPI to once
 * the lock is dropped, or NULL. */
struct cpu *kick_idle_cpu(const struct task *t);

/* kernel/task.c */
struct task *task_alloc(const char *name, int (*fn)(void *), void *arg);
/* Give @t its tid and put it on the list of all tasks. */
void task_register(struct task *t);
/* Drop the task's own reference after its last switch; wakes joiners. */
void task_put_own(struct task *t);

/* kernel/sched.c: where a new task's first switch lands. */
__noreturn void task_entry(void);
