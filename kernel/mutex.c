/*
 * kernel/mutex.c: FIFO mutex with a lock-free fast path and direct
 * hand-off.
 *
 * A free mutex is taken with one compare-and-swap of the owner word
 * (kernel/mutex.h: its states and who changes them), and one nobody waits
 * for is let go with another; wait_lock is taken only on the slow path.
 * A locker that finds the mutex held and nobody queued first spins for
 * the holder, up to m->spin_ns (kernel/mutex.h); then it queues under
 * wait_lock, setting MUTEX_WAITERS, and sleeps. mutex_unlock of a mutex
 * with MUTEX_WAITERS set passes ownership to the oldest waiter before
 * waking it, so a task that arrives later cannot overtake the queue.
 *
 * Memory ordering: a take is an acquire (the compare-and-swap that
 * stores the owner, or, for a waiter handed the mutex, wait_lock's
 * acquire before it reads w.granted), so the holder's critical section
 * stays after it; a drop is a release (the owner's compare-and-swap, or
 * the hand-off's store and wait_lock's release), so everything the
 * holder did is seen by the next. Setting MUTEX_WAITERS needs no order
 * of its own: the queue it announces is under wait_lock, which the
 * unlocker takes once its compare-and-swap has failed on the bit.
 *
 * Lock: m->wait_lock guards waiters and each waiter's granted.
 */
#include <kernel/arch.h>
#include <kernel/cpu.h>
#include <kernel/mutex.h>
#include <kernel/panic.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <kernel/time.h>

struct mutex_waiter {
	struct list_head node;
	struct task *task;
	bool granted;
};

void mutex_init(struct mutex *m, const char *name, struct lock_class *class)
{
	*m = (struct mutex){ .spin_ns = LOCK_SPIN_NS,
			     .dep = { .class = class, .name = name } };
	spin_lock_init(&m->wait_lock, "mutex.wait_lock");
	list_init(&m->waiters);
}

uint64_t lock_spin_deadline(uint32_t spin_ns)
{
	return ncpus > 1 && spin_ns ? time_ns() + spin_ns : 0;
}

/* 0 -> @me, acquire: the critical section stays after the take. */
static bool mutex_try_take(struct mutex *m, struct task *me)
{
	unsigned long free = 0;

	return __atomic_compare_exchange_n(&m->owner,
					   &free,
					   (unsigned long)me,
					   false,
					   __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED);
}

/* Spin while the mutex is held and nobody is queued (a queued waiter
 * keeps its turn), up to the deadline, taking it if it comes free.
 * Return: whether it was taken. */
static bool spin_on_owner(struct mutex *m, struct task *me)
{
	uint64_t until = lock_spin_deadline(m->spin_ns);
	unsigned long o;

	for (;;) {
		o = __atomic_load_n(&m->owner, __ATOMIC_RELAXED);
		if (!o && mutex_try_take(m, me))
			return true;
		if ((o & MUTEX_WAITERS) || time_ns() >= until)
			return false;
		arch_cpu_relax();
	}
}

/*
 * Under wait_lock: take the mutex if it is free, else set MUTEX_WAITERS
 * on the owner word as it is. The compare-and-swap fails if the owner
 * let go meanwhile (T -> 0), and the next round finds it free: no
 * wake-up can be lost between the failed take and the queueing.
 * Return: whether it was taken.
 */
static bool mutex_take_or_announce(struct mutex *m, struct task *me)
{
	unsigned long o;

	for (;;) {
		if (mutex_try_take(m, me))
			return true;
		o = __atomic_load_n(&m->owner, __ATOMIC_RELAXED);
		if (!o)
			continue;
		race_point(RACE_LOCK_ANNOUNCE, m);
		if (__atomic_compare_exchange_n(&m->owner,
						&o,
						o | MUTEX_WAITERS,
						false,
						__ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return false;
	}
}

static void mutex_lock_slow(struct mutex *m, struct task *me)
{
	struct mutex_waiter w = { .task = me };

	if (spin_on_owner(m, me))
		return;
	spin_lock(&m->wait_lock);
	if (mutex_take_or_announce(m, me))
		goto out_unlock;
	list_add_tail(&w.node, &m->waiters);
	while (!w.granted) {
		set_current_state(TASK_SLEEPING);
		spin_unlock(&m->wait_lock);
		race_point(RACE_LOCK_QUEUED, m);
		schedule();
		spin_lock(&m->wait_lock);
	}
	set_current_state(TASK_RUNNABLE);
out_unlock:
	spin_unlock(&m->wait_lock);
}

static void __mutex_lock(struct mutex *m, uintptr_t site)
{
	struct task *me = current_task();

	DEBUG_ASSERT(mutex_owner(m) != me); /* not recursive */
	lockdep_acquire(&m->dep, LOCK_MODE_EXCLUSIVE, 0, site);
	if (!mutex_try_take(m, me))
		mutex_lock_slow(m, me);
	m->site = site; /* taken */
}

void mutex_lock(struct mutex *m)
{
	__mutex_lock(m, _THIS_IP_);
}

static bool
__mutex_trylock(struct mutex *m, unsigned int subclass, uintptr_t site)
{
	if (!mutex_try_take(m, current_task()))
		return false;
	m->site = site;
	lockdep_acquire(&m->dep, LOCK_MODE_EXCLUSIVE, subclass, site);
	return true;
}

bool mutex_trylock(struct mutex *m)
{
	return __mutex_trylock(m, 0, _THIS_IP_);
}

bool mutex_trylock_nested(struct mutex *m, unsigned int subclass)
{
	return __mutex_trylock(m, subclass, _THIS_IP_);
}

/* MUTEX_WAITERS is set: hand the mutex to the oldest waiter. The store
 * is a release (the critical section before the new owner's); the bit
 * stays while others wait. */
static void mutex_unlock_slow(struct mutex *m, struct task *me)
{
	struct mutex_waiter *w;
	unsigned long next = 0;

	spin_lock(&m->wait_lock);
	WARN_ON_ONCE(mutex_owner(m) != me);
	w = list_empty(&m->waiters)
		? NULL
		: list_first_entry(&m->waiters, struct mutex_waiter, node);
	if (w) {
		list_del(&w->node);
		next = (unsigned long)w->task |
		       (list_empty(&m->waiters) ? 0 : MUTEX_WAITERS);
	}
	__atomic_store_n(&m->owner, next, __ATOMIC_RELEASE);
	if (w) {
		w->granted = true;
		wake_up_task(w->task);
	}
	spin_unlock(&m->wait_lock);
}

void mutex_unlock(struct mutex *m)
{
	struct task *me = current_task();
	unsigned long o = (unsigned long)me;

	lockdep_release(&m->dep); /* dropping */
	/* T -> 0, release: fails when MUTEX_WAITERS is set (or @me is not
	 * the owner, which the slow path reports). */
	if (!__atomic_compare_exchange_n(
		&m->owner, &o, 0, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		mutex_unlock_slow(m, me);
}

bool mutex_is_locked(struct mutex *m)
{
	return READ_ONCE(m->owner) != 0;
}

unsigned int mutex_nr_waiters(struct mutex *m)
{
	struct mutex_waiter *w;
	unsigned int n = 0;

	spin_lock(&m->wait_lock);
	list_for_each_entry (w, &m->waiters, node)
		n++;
	spin_unlock(&m->wait_lock);
	return n;
}
