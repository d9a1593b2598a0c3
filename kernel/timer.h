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

/*
 * TLB sizing. QEMU's TCG keeps a software TLB for each hart and resizes it
 * only when the guest flushes it: it doubles if more than 70% of its
 * entries were filled since the last flush, and shrinks toward the use it
 * saw if under 30% were for 100 ms (to 64 entries at the least). whole's
 * kernel mappings do not change, so a hart can run for minutes without a
 * flush, at the size the last burst of unmaps left; at 64 or 256 entries
 * a 1 MiB copy misses on every page, about 3x slower (docs/benchmarks.md).
 * So a hart flushes its own TLB on every TLB_SIZING_TICKS-th tick that
 * finds a task running: the size follows the work, doubling at each flush
 * until the work fits. Idle ticks do not count: they would shrink it to
 * what idling uses. On hardware it costs a refill every 16 ms of work.
 * Boot argument tlb_sizing=N: every N busy ticks; 0 turns it off.
 */
#define TLB_SIZING_TICKS 4

struct cpu;
/* From the tick on @c's own hart: count a busy tick, flush the local TLB
 * if it is due. Return: whether it flushed. */
bool tlb_sizing_tick(struct cpu *c);
/* Flush every @every busy ticks, 0: never (tests). Return: the old value. */
unsigned long tlb_sizing_set(unsigned long every);
