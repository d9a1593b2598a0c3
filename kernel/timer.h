/*
 * kernel/timer.h: the periodic tick and one-shot kernel timers.
 *
 * Every hart takes a tick TIMER_HZ times a second; the tick runs expired
 * timers (in interrupt context: callbacks must not sleep) and charges the
 * running task's time slice. Timers fire at the first tick at or after
 * their deadline.
 *
 *   timer_init(&tm, fn);  timer_arm(&tm, time_ns() + delay); timer_cancel(&tm);
 */
#pragma once

#include <kernel/compiler.h>
#include <kernel/list.h>

#define TIMER_HZ 250

struct ktimer {
	uint64_t expires_ns;
	void (*fn)(struct ktimer *tm);
	struct list_head node; /* protected by the timer lock */
	bool pending;
	void *data; /* for the callback */
};

void timer_init(struct ktimer *tm, void (*fn)(struct ktimer *tm));
void timer_arm(struct ktimer *tm, uint64_t expires_ns);
/* Return: true if the timer was pending (it will not fire now). */
bool timer_cancel(struct ktimer *tm);
/* Start this hart's tick. */
void timer_init_hart(void);
/* The tick, from the trap path. */
void timer_interrupt(void);
