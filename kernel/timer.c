/*
 * kernel/timer.c: tick and timer list.
 *
 * Lock: timer_lock (irqsave) protects the sorted list of pending timers.
 * Callbacks run without the lock held. The tick's TLB sizing (timer.h)
 * touches only its own hart's struct cpu.
 */
#include <kernel/timer.h>
#include <kernel/race.h>
#include <kernel/time.h>
#include <kernel/cpu.h>
#include <kernel/sched.h>
#include <kernel/spinlock.h>
#include <kernel/bootargs.h>
#include <kernel/init.h>
#include <kernel/printk.h>

static DEFINE_SPINLOCK(timer_lock);
static struct list_head timers = LIST_HEAD_INIT(timers);
/* protected by timer_lock: the callback each hart is running */
static struct ktimer *running[MAX_CPUS];

void timer_init(struct ktimer *tm, void (*fn)(struct ktimer *tm))
{
	tm->fn = fn;
	tm->pending = false;
	list_init(&tm->node);
}

void timer_arm(struct ktimer *tm, uint64_t expires_ns)
{
	unsigned long flags = spin_lock_irqsave(&timer_lock);
	struct ktimer *pos;

	if (tm->pending)
		list_del(&tm->node);
	tm->expires_ns = expires_ns;
	tm->pending = true;
	list_for_each_entry (pos, &timers, node) {
		if (pos->expires_ns > expires_ns)
			break;
	}
	list_add_tail(&tm->node, &pos->node);
	spin_unlock_irqrestore(&timer_lock, flags);
}

static bool callback_running(const struct ktimer *tm)
{
	for (unsigned int i = 0; i < ncpus; i++)
		if (running[i] == tm)
			return true;
	return false;
}

/* Also waits until a callback already running elsewhere has returned, so
 * the caller may free @tm (it often lives on the caller's stack). */
bool timer_cancel(struct ktimer *tm)
{
	for (;;) {
		unsigned long flags = spin_lock_irqsave(&timer_lock);
		bool was = tm->pending, busy = callback_running(tm);

		if (was) {
			list_del(&tm->node);
			tm->pending = false;
		}
		spin_unlock_irqrestore(&timer_lock, flags);
		if (!busy)
			return was;
		race_point(RACE_TIMER_CANCEL_WAIT, tm);
		arch_cpu_relax();
	}
}

static void run_expired(void)
{
	unsigned int me = cpu_id();
	uint64_t now = time_ns();

	for (;;) {
		unsigned long flags = spin_lock_irqsave(&timer_lock);
		struct ktimer *tm = NULL;

		running[me] = NULL;
		if (!list_empty(&timers)) {
			tm = list_first_entry(&timers, struct ktimer, node);
			if (tm->expires_ns > now) {
				tm = NULL;
			} else {
				list_del(&tm->node);
				tm->pending = false;
				running[me] = tm;
			}
		}
		spin_unlock_irqrestore(&timer_lock, flags);
		if (!tm)
			return;
		tm->fn(tm);
	}
}

static void program_next_tick(struct cpu *c)
{
	uint64_t period = time_ns_to_counter(NSEC_PER_SEC / TIMER_HZ);
	uint64_t now = arch_counter();

	c->next_tick += period;
	if (c->next_tick <= now)
		c->next_tick = now + period;
	arch_timer_set(c->next_tick);
}

void timer_init_hart(void)
{
	struct cpu *c = this_cpu();

	c->next_tick = arch_counter();
	program_next_tick(c);
}

/* busy ticks between flushes, 0: none; set at boot, tests change it */
static unsigned long tlb_sizing_ticks = TLB_SIZING_TICKS;

bool tlb_sizing_tick(struct cpu *c)
{
	unsigned long every = READ_ONCE(tlb_sizing_ticks);

	if (!every || c->current == c->idle || ++c->busy_ticks % every)
		return false;
	arch_tlb_flush_all();
	WRITE_ONCE(c->tlb_sizing_flushes, c->tlb_sizing_flushes + 1);
	return true;
}

unsigned long tlb_sizing_set(unsigned long every)
{
	return __atomic_exchange_n(&tlb_sizing_ticks, every, __ATOMIC_RELAXED);
}

static int tlb_sizing_init(void)
{
	long every = bootarg_get_long("tlb_sizing", TLB_SIZING_TICKS);

	tlb_sizing_ticks = every > 0 ? (unsigned long)every : 0;
	if (!tlb_sizing_ticks)
		pr_info("timer: no TLB sizing flushes (tlb_sizing=%ld)\n",
			every);
	return 0;
}
INIT_HOOK(tlb_sizing, tlb_sizing_init, INIT_LEVEL_SCHED);

void timer_interrupt(void)
{
	struct cpu *c = this_cpu();

	c->ticks++;
	program_next_tick(c);
	tlb_sizing_tick(c);
	run_expired();
	sched_tick();
}
