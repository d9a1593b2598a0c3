/*
 * kernel/rwsem.c: reader/writer semaphore, FIFO, with a lock-free fast
 * path.
 *
 * A new reader enters directly when there is no writer inside and nobody
 * is queued; otherwise it queues (kernel/rwsem.h: why it does not join
 * the readers inside past a waiting writer). A writer enters directly
 * only when the lock is free and nobody is queued. Entering directly is
 * one compare-and-swap of the count word and leaving with nobody queued
 * one atomic operation (kernel/rwsem.h: the word's states and who
 * changes them); wait_lock is taken only on the slow paths. Waking grants
 * the lock before the wake-up: either the writer at the head, or the run
 * of readers at the head. Before it queues, a task that finds the lock
 * busy and nobody queued spins for the holders to leave, up to s->spin_ns
 * (kernel/mutex.h).
 *
 * Memory ordering: entering is an acquire (the compare-and-swap that
 * adds the task to the count, or, for a waiter granted the lock,
 * wait_lock's acquire before it reads w.granted, after the granter's
 * acquire read of the count), so the critical section stays after it;
 * leaving is a release (the add or compare-and-swap that takes the task
 * out of the count), so everything a holder did is seen by whoever
 * enters after it. Setting RWSEM_WAITERS needs no order of its own: the
 * queue it announces is under wait_lock, which the leaver that sees the
 * bit takes.
 *
 * Lock: s->wait_lock guards waiters and each waiter's fields.
 */
#include <kernel/arch.h>
#include <kernel/rwsem.h>
#include <kernel/trace.h>
#include <kernel/panic.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <kernel/time.h>

struct rwsem_waiter {
	struct list_head node;
	struct task *task;
	bool writer;
	bool granted;
};

void init_rwsem(struct rw_semaphore *s,
		const char *name,
		struct lock_class *class)
{
	*s = (struct rw_semaphore){ .spin_ns = LOCK_SPIN_NS,
				    .dep = { .class = class, .name = name } };
	spin_lock_init(&s->wait_lock, "rwsem.wait_lock");
	list_init(&s->waiters);
}

/* Only classes marked traced (i_rwsem, invalidate_lock) are recorded. */
static void trace_rwsem(const struct rw_semaphore *s,
			enum trace_type type,
			enum lock_mode mode)
{
	const struct lock_class *c = s->dep.class;

	if (unlikely(READ_ONCE(trace_on)) && c && c->trace_kind)
		__trace_event(type, c->trace_obj(s), c->trace_kind | mode);
}

static long count_read(struct rw_semaphore *s)
{
	return __atomic_load_n(&s->count, __ATOMIC_RELAXED);
}

/* May a task enter on @c directly (no queue to pass)? */
static bool read_can_enter(long c)
{
	return !(c & (RWSEM_WRITER | RWSEM_WAITERS));
}

static bool write_can_enter(long c)
{
	return c == 0;
}

/* Enter by compare-and-swap while the word allows it. Acquire on
 * success: the critical section stays after the entry. Return: entered. */
static bool rwsem_try_enter(struct rw_semaphore *s, bool writer)
{
	long c = count_read(s);

	while (writer ? write_can_enter(c) : read_can_enter(c)) {
		if (__atomic_compare_exchange_n(&s->count,
						&c,
						writer ? RWSEM_WRITER
						       : c + RWSEM_READER,
						false,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return true;
	}
	return false;
}

/*
 * Hand the lock to whoever is at the head of the queue: the writer, if
 * nobody is inside, or the run of readers, if no writer is. The read of
 * the count is an acquire, which pairs with the release of the last
 * leaver: the granted task enters after it. Caller holds wait_lock.
 */
static void grant_waiters(struct rw_semaphore *s)
{
	struct rwsem_waiter *w, *n;
	long c = __atomic_load_n(&s->count, __ATOMIC_ACQUIRE);

	list_for_each_entry_safe (w, n, &s->waiters, node) {
		if (w->writer ? c & ~RWSEM_WAITERS : c & RWSEM_WRITER)
			break;
		list_del(&w->node);
		if (w->writer)
			s->writer = w->task;
		c = __atomic_add_fetch(&s->count,
				       w->writer ? RWSEM_WRITER : RWSEM_READER,
				       __ATOMIC_RELAXED);
		w->granted = true;
		wake_up_task(w->task);
	}
	if (list_empty(&s->waiters))
		__atomic_fetch_and(&s->count, ~RWSEM_WAITERS, __ATOMIC_RELAXED);
}

/* Spin, with no lock, while a writer (for @writer: anyone) is inside and
 * nobody is queued, up to s->spin_ns, entering if it may. Return:
 * entered. */
static bool spin_on_holders(struct rw_semaphore *s, bool writer)
{
	uint64_t until = lock_spin_deadline(s->spin_ns);
	long c;

	for (;;) {
		if (rwsem_try_enter(s, writer))
			return true;
		c = count_read(s);
		if ((c & RWSEM_WAITERS) || time_ns() >= until)
			return false;
		arch_cpu_relax();
	}
}

/*
 * Under wait_lock: enter if the word allows it, else set RWSEM_WAITERS
 * on the word as it is. The compare-and-swap fails if a holder left
 * meanwhile, and the next round looks again: a lock left free between
 * the failed entry and the queueing is entered, never slept on.
 * Return: entered.
 */
static bool rwsem_enter_or_announce(struct rw_semaphore *s, bool writer)
{
	long c;

	for (;;) {
		if (rwsem_try_enter(s, writer))
			return true;
		c = count_read(s);
		if (writer ? write_can_enter(c) : read_can_enter(c))
			continue;
		race_point(RACE_LOCK_ANNOUNCE, s);
		if (__atomic_compare_exchange_n(&s->count,
						&c,
						c | RWSEM_WAITERS,
						false,
						__ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return false;
	}
}

/* The slow path of down_read and down_write: spin, queue, sleep until
 * granted. */
static void rwsem_down_slow(struct rw_semaphore *s, bool writer)
{
	struct rwsem_waiter w = { .task = current_task(), .writer = writer };

	trace_rwsem(s,
		    TRACE_LOCK_WAIT,
		    writer ? LOCK_MODE_EXCLUSIVE : LOCK_MODE_SHARED);
	if (spin_on_holders(s, writer))
		return;
	spin_lock(&s->wait_lock);
	if (rwsem_enter_or_announce(s, writer))
		goto out_unlock;
	list_add_tail(&w.node, &s->waiters);
	while (!w.granted) {
		set_current_state(TASK_SLEEPING);
		spin_unlock(&s->wait_lock);
		race_point(RACE_LOCK_QUEUED, s);
		schedule();
		spin_lock(&s->wait_lock);
	}
	set_current_state(TASK_RUNNABLE);
out_unlock:
	spin_unlock(&s->wait_lock);
}

/* A leave found RWSEM_WAITERS and the lock empty: let the head in. */
static void rwsem_wake(struct rw_semaphore *s)
{
	spin_lock(&s->wait_lock);
	grant_waiters(s);
	spin_unlock(&s->wait_lock);
}

static void
count_acquire(struct rw_semaphore *s, enum lock_mode mode, bool contended)
{
	struct lock_stats *c[2] = { &s->stats,
				    s->dep.class ? &s->dep.class->stats
						 : NULL };

	for (unsigned int i = 0; i < ARRAY_SIZE(c) && c[i]; i++) {
		__atomic_fetch_add(mode == LOCK_MODE_SHARED ? &c[i]->shared
							    : &c[i]->exclusive,
				   1,
				   __ATOMIC_RELAXED);
		if (contended)
			__atomic_fetch_add(
			    &c[i]->contended, 1, __ATOMIC_RELAXED);
	}
}

static void count_trylock_failed(struct rw_semaphore *s)
{
	__atomic_fetch_add(&s->stats.contended, 1, __ATOMIC_RELAXED);
	if (s->dep.class)
		__atomic_fetch_add(
		    &s->dep.class->stats.contended, 1, __ATOMIC_RELAXED);
}

void down_read(struct rw_semaphore *s)
{
	bool contended;

	lockdep_acquire(&s->dep, LOCK_MODE_SHARED, 0, _THIS_IP_);
	contended = !rwsem_try_enter(s, false);
	if (contended)
		rwsem_down_slow(s, false);
	trace_rwsem(s, TRACE_LOCK_TAKE, LOCK_MODE_SHARED); /* taken */
	count_acquire(s, LOCK_MODE_SHARED, contended);
}

static void
__down_write(struct rw_semaphore *s, unsigned int subclass, uintptr_t site)
{
	bool contended;

	DEBUG_ASSERT(READ_ONCE(s->writer) != current_task());
	lockdep_acquire(&s->dep, LOCK_MODE_EXCLUSIVE, subclass, site);
	contended = !rwsem_try_enter(s, true);
	if (contended)
		rwsem_down_slow(s, true);
	s->writer = current_task(); /* taken */
	s->writer_site = site;
	trace_rwsem(s, TRACE_LOCK_TAKE, LOCK_MODE_EXCLUSIVE);
	count_acquire(s, LOCK_MODE_EXCLUSIVE, contended);
}

void down_write(struct rw_semaphore *s)
{
	__down_write(s, 0, _THIS_IP_);
}

void down_write_nested(struct rw_semaphore *s, unsigned int subclass)
{
	__down_write(s, subclass, _THIS_IP_);
}

bool down_read_trylock(struct rw_semaphore *s)
{
	if (!rwsem_try_enter(s, false)) {
		count_trylock_failed(s);
		return false;
	}
	lockdep_acquire(&s->dep, LOCK_MODE_SHARED, 0, _THIS_IP_);
	trace_rwsem(s, TRACE_LOCK_TAKE, LOCK_MODE_SHARED);
	count_acquire(s, LOCK_MODE_SHARED, false);
	return true;
}

bool down_write_trylock(struct rw_semaphore *s)
{
	if (!rwsem_try_enter(s, true)) {
		count_trylock_failed(s);
		return false;
	}
	s->writer = current_task();
	s->writer_site = _THIS_IP_;
	lockdep_acquire(&s->dep, LOCK_MODE_EXCLUSIVE, 0, _THIS_IP_);
	trace_rwsem(s, TRACE_LOCK_TAKE, LOCK_MODE_EXCLUSIVE);
	count_acquire(s, LOCK_MODE_EXCLUSIVE, false);
	return true;
}

void up_read(struct rw_semaphore *s)
{
	long old;

	trace_rwsem(s, TRACE_LOCK_DROP, LOCK_MODE_SHARED); /* dropping */
	lockdep_release(&s->dep);
	/* release: the critical section before whoever enters next */
	old = __atomic_fetch_sub(&s->count, RWSEM_READER, __ATOMIC_RELEASE);
	if (WARN_ON_ONCE(old < RWSEM_READER || (old & RWSEM_WRITER)))
		return;
	if (unlikely(old == (RWSEM_READER | RWSEM_WAITERS)))
		rwsem_wake(s); /* the last reader, and tasks queued */
}

void up_write(struct rw_semaphore *s)
{
	long c = RWSEM_WRITER;

	trace_rwsem(s, TRACE_LOCK_DROP, LOCK_MODE_EXCLUSIVE); /* dropping */
	lockdep_release(&s->dep);
	WARN_ON_ONCE(s->writer != current_task());
	s->writer = NULL;
	/* release, as up_read's; fails when RWSEM_WAITERS is set */
	if (__atomic_compare_exchange_n(
		&s->count, &c, 0, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		return;
	spin_lock(&s->wait_lock);
	__atomic_fetch_and(&s->count, ~RWSEM_WRITER, __ATOMIC_RELEASE);
	grant_waiters(s);
	spin_unlock(&s->wait_lock);
}

void downgrade_write(struct rw_semaphore *s)
{
	spin_lock(&s->wait_lock);
	WARN_ON_ONCE(s->writer != current_task());
	s->writer = NULL;
	/* writer -> one reader in one step: nobody enters in between */
	__atomic_fetch_add(
	    &s->count, RWSEM_READER - RWSEM_WRITER, __ATOMIC_RELEASE);
	grant_waiters(s); /* lets in the readers at the head, not a writer */
	spin_unlock(&s->wait_lock);
	lockdep_downgrade(&s->dep);
	trace_rwsem(s, TRACE_LOCK_DROP, LOCK_MODE_EXCLUSIVE);
	trace_rwsem(s, TRACE_LOCK_TAKE, LOCK_MODE_SHARED);
}

bool rwsem_is_locked(struct rw_semaphore *s)
{
	return count_read(s) & ~RWSEM_WAITERS;
}

bool rwsem_is_write_owner(struct rw_semaphore *s)
{
	return READ_ONCE(s->writer) == current_task();
}

unsigned int rwsem_nr_waiters(struct rw_semaphore *s)
{
	struct rwsem_waiter *w;
	unsigned int n = 0;

	spin_lock(&s->wait_lock);
	list_for_each_entry (w, &s->waiters, node)
		n++;
	spin_unlock(&s->wait_lock);
	return n;
}

bool rwsem_is_waiting(struct rw_semaphore *s, struct task *t)
{
	struct rwsem_waiter *w;
	bool found = false;

	spin_lock(&s->wait_lock);
	list_for_each_entry (w, &s->waiters, node)
		found |= w->task == t;
	spin_unlock(&s->wait_lock);
	return found;
}
