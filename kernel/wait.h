/*
 * kernel/wait.h: wait queues, completions and sleeping with a deadline.
 *
 *   wait_event(&wq, cond);          // sleep until cond (re-checked on wake)
 *   wake_up(&wq); wake_up_all(&wq);
 *   ret = wait_event_timeout(&wq, cond, ns);  // 0: timed out, else >0
 *
 * A waiter is queued before it tests the condition, so a wake_up between
 * the test and the sleep is never lost. Wake-ups may come from interrupt
 * handlers (the queue lock is irqsave).
 */
#pragma once

#include <kernel/compiler.h>
#include <kernel/list.h>
#include <kernel/spinlock.h>
#include <kernel/time.h>

struct task;

struct wait_queue_head {
	struct spinlock lock;
	struct list_head waiters;
};

struct wait_queue_entry {
	struct task *task;
	struct list_head node;
	bool exclusive; /* wake_up wakes only one exclusive waiter */
};

#define WAIT_QUEUE_HEAD_INIT(name)                      \
	{                                               \
		.lock = SPINLOCK_INIT(name.lock),       \
		.waiters = LIST_HEAD_INIT(name.waiters) \
	}
#define DEFINE_WAIT_QUEUE_HEAD(name) \
	struct wait_queue_head name = WAIT_QUEUE_HEAD_INIT(name)

void wait_queue_init(struct wait_queue_head *wq);
void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *w);
void prepare_to_wait_exclusive(struct wait_queue_head *wq,
			       struct wait_queue_entry *w);
void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *w);
void wake_up(struct wait_queue_head *wq);
void wake_up_all(struct wait_queue_head *wq);
/* Caller holds wq->lock: wake in the same critical section as a change of
 * the condition, when the waker's unlock must be its last access to the
 * object the queue lives in (a waiter may free it once it sees the
 * condition: it takes the lock in finish_wait first). */
void wake_up_all_locked(struct wait_queue_head *wq);
void schedule(void);
/* Sleep until woken or until the counter passes @deadline_ns (time_ns()).
 * Return: false if the deadline passed. */
bool schedule_until(uint64_t deadline_ns);

#define wait_event(wq, cond)                                    \
	do {                                                    \
		struct wait_queue_entry __w = { .task = NULL }; \
		for (;;) {                                      \
			prepare_to_wait((wq), &__w);            \
			if (cond)                               \
				break;                          \
			schedule();                             \
		}                                               \
		finish_wait((wq), &__w);                        \
	} while (0)

/* Return: 0 if @cond was still false at the deadline, 1 otherwise. */
#define wait_event_timeout(wq, cond, ns)                        \
	({                                                      \
		struct wait_queue_entry __w = { .task = NULL }; \
		uint64_t __deadline = time_ns() + (ns);         \
		int __ret = 1;                                  \
		for (;;) {                                      \
			prepare_to_wait((wq), &__w);            \
			if (cond)                               \
				break;                          \
			if (!schedule_until(__deadline)) {      \
				__ret = (cond) ? 1 : 0;         \
				break;                          \
			}                                       \
		}                                               \
		finish_wait((wq), &__w);                        \
		__ret;                                          \
	})

struct completion {
	unsigned int done;
	struct wait_queue_head wq;
};

void init_completion(struct completion *c);
void complete(struct completion *c);
void complete_all(struct completion *c);
void wait_for_completion(struct completion *c);
/* Return: false on timeout. */
bool wait_for_completion_timeout(struct completion *c, uint64_t ns);
bool completion_done(struct completion *c);
