/*
 * kernel/spinlock.c: test-and-test-and-set spinlocks with owner tracking.
 *
 * Acquire uses amoswap with acquire ordering, release a store with release
 * ordering (__atomic builtins), so the critical section is ordered on every
 * hart. Preemption stays off while any spinlock is held.
 */
#include <kernel/spinlock.h>
#include <kernel/cpu.h>
#include <kernel/panic.h>
#include <kernel/sched.h>

void spin_lock_init(struct spinlock *l, const char *name)
{
	*l = (struct spinlock){ .dep = { .name = name } };
}

#define SPIN_MARKED 2u /* held, and marked (spin_lock_mark) */

/* Test-and-test-and-set: spin on plain reads, swap only when it is free.
 * The swap stores 1 even when it fails: spin_lock_wanted sees it. */
static void spin_wait_and_take(struct spinlock *l)
{
	while (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)) {
		while (READ_ONCE(l->locked))
			arch_cpu_relax();
	}
}

static void spin_acquired(struct spinlock *l, uintptr_t site)
{
	l->owner = this_cpu();
	l->site = site;
	if (this_cpu()->irq_depth == 0)
		lockdep_acquire(&l->dep, LOCK_MODE_EXCLUSIVE, 0, site);
}

static void __spin_lock(struct spinlock *l, uintptr_t site)
{
	if (unlikely(l->owner == this_cpu() && READ_ONCE(l->locked)))
		panic("spinlock %s: recursive acquisition at %p, held from %p",
		      l->dep.name,
		      (void *)site,
		      (void *)l->site);
	spin_wait_and_take(l);
	spin_acquired(l, site);
}

void spin_lock(struct spinlock *l)
{
	__preempt_disable();
	__spin_lock(l, _THIS_IP_);
}

bool spin_trylock(struct spinlock *l)
{
	__preempt_disable();
	if (__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE)) {
		__preempt_enable();
		return false;
	}
	spin_acquired(l, _THIS_IP_);
	return true;
}

static void __spin_unlock(struct spinlock *l)
{
	WARN_ON_ONCE(l->owner != this_cpu());
	if (this_cpu()->irq_depth == 0)
		lockdep_release(&l->dep);
	l->owner = NULL;
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

void spin_unlock(struct spinlock *l)
{
	__spin_unlock(l);
	__preempt_enable();
}

unsigned long spin_lock_irqsave(struct spinlock *l)
{
	unsigned long flags = arch_irq_save();

	__preempt_disable();
	__spin_lock(l, _THIS_IP_);
	return flags;
}

void spin_unlock_irqrestore(struct spinlock *l, unsigned long flags)
{
	__spin_unlock(l);
	__preempt_enable_no_resched();
	arch_irq_restore(flags);
	__preempt_check_resched();
}

void spin_lock_irq(struct spinlock *l)
{
	arch_irq_disable();
	__preempt_disable();
	__spin_lock(l, _THIS_IP_);
}

void spin_unlock_irq(struct spinlock *l)
{
	__spin_unlock(l);
	__preempt_enable_no_resched();
	arch_irq_enable();
	__preempt_check_resched();
}

bool spin_lock_held(const struct spinlock *l)
{
	return READ_ONCE(l->locked) && l->owner == this_cpu();
}

void spin_lock_mark(struct spinlock *l)
{
	if (WARN_ON_ONCE(!spin_lock_held(l)))
		return;
	__atomic_store_n(&l->locked, SPIN_MARKED, __ATOMIC_SEQ_CST);
}

bool spin_lock_wanted(const struct spinlock *l)
{
	return __atomic_load_n(&l->locked, __ATOMIC_ACQUIRE) != SPIN_MARKED;
}

void raw_spin_lock(struct spinlock *l)
{
	struct lockdep_task *lt = __lockdep_current();

	raw_spin_lock_uncounted(l);
	if (lt) /* not checked by lockdep, but counted */
		lt->acquired++;
}

void raw_spin_lock_uncounted(struct spinlock *l)
{
	spin_wait_and_take(l);
	l->owner = this_cpu();
}

bool raw_spin_trylock(struct spinlock *l)
{
	if (READ_ONCE(l->locked) ||
	    __atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		return false;
	l->owner = this_cpu();
	return true;
}

void raw_spin_unlock(struct spinlock *l)
{
	l->owner = NULL;
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}
