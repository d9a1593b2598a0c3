/*
 * kernel/rwsem.c: reader/writer semaphore, FIFO.
 *
 * A new reader enters directly when there is no writer inside and nobody
 * is queued; otherwise it queues (kernel/rwsem.h: why it does not join
 * the readers inside past a waiting writer). A writer enters directly
 * only when the lock is free and nobody is queued. Waking grants the lock
 * before the wake-up: either the writer at the head, or the run of
 * readers at the head. Before it queues, a task that finds the lock busy
 * and nobody queued spins for the holders to leave, up to s->spin_ns
 * (kernel/mutex.h). Lock: s->wait_lock guards readers, writer, waiters
 * and each waiter's fields.
 */
#include <kernel/arch.h>
#include <kernel/rwsem.h>
#include <kernel/trace.h>
#include <kernel/panic.h>
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

/* Hand the lock to whoever is at the head of the queue. Caller holds
 * wait_lock. */
static void grant_waiters(struct rw_semaphore *s)
{
	struct rwsem_waiter *w, *n;

	if (s->writer)
		return;
	list_for_each_entry_safe (w, n, &s->waiters, node) {
		if (w->writer) {
			if (s->readers)
				return;
			s->writer = w->task;
		} else {
			s->readers++;
		}
		list_del(&w->node);
		w->granted = true;
		wake_up_task(w->task);
		if (w->writer)
			return;
	}
}

/*
 * Called with wait_lock held and the lock busy for the caller: spin, the
 * lock dropped, while a writer (for @writer: anyone) is inside and nobody
 * is queued, up to s->spin_ns. Return with wait_lock held again; the
 * caller looks again.
 */
static void spin_on_holders(struct rw_semaphore *s, bool writer)
{
	uint64_t until = lock_spin_deadline(s->spin_ns);

	spin_unlock(&s->wait_lock);
	while ((READ_ONCE(s->writer) || (writer && READ_ONCE(s->readers))) &&
	       READ_ONCE(s->waiters.next) == &s->waiters && time_ns() < until)
		arch_cpu_relax();
	spin_lock(&s->wait_lock);
}

static void wait_granted(struct rw_semaphore *s, struct rwsem_waiter *w)
{
	list_add_tail(&w->node, &s->waiters);
	while (!w->granted) {
		set_current_state(TASK_SLEEPING);
		spin_unlock(&s->wait_lock);
		schedule();
		spin_lock(&s->wait_lock);
	}
	set_current_state(TASK_RUNNABLE);
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

static bool read_can_enter(struct rw_semaphore *s)
{
	return !s->writer && list_empty(&s->waiters);
}

static bool write_can_enter(struct rw_semaphore *s)
{
	return !s->writer && !s->readers && list_empty(&s->waiters);
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

void down_read(struct rw_semaphore *s)
{
	struct rwsem_waiter w = { .task = current_task() };
	bool contended;

	lockdep_acquire(&s->dep, LOCK_MODE_SHARED, 0, _THIS_IP_);
	spin_lock(&s->wait_lock);
	contended = !read_can_enter(s);
	if (contended) {
		trace_rwsem(s, TRACE_LOCK_WAIT, LOCK_MODE_SHARED);
		spin_on_holders(s, false);
	}
	if (!contended || read_can_enter(s)) /* looks again after a spin */
		s->readers++;
	else
		wait_granted(s, &w);
	spin_unlock(&s->wait_lock);
	trace_rwsem(s, TRACE_LOCK_TAKE, LOCK_MODE_SHARED);
	count_acquire(s, LOCK_MODE_SHARED, contended);
}

static void
__down_write(struct rw_semaphore *s, unsigned int subclass, uintptr_t site)
{
	struct rwsem_waiter w = { .task = current_task(), .writer = true };
	bool contended;

	DEBUG_ASSERT(s->writer != current_task());
	lockdep_acquire(&s->dep, LOCK_MODE_EXCLUSIVE, subclass, site);
	spin_lock(&s->wait_lock);
	contended = !write_can_enter(s);
	if (contended) {
		trace_rwsem(s, TRACE_LOCK_WAIT, LOCK_MODE_EXCLUSIVE);
		spin_on_holders(s, true);
	}
	if (!contended || write_can_enter(s))
		s->writer = w.task;
	else
		wait_granted(s, &w);
	s->writer_site = site;
	spin_unlock(&s->wait_lock);
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
	bool ok;

	spin_lock(&s->wait_lock);
	ok = read_can_enter(s);
	if (ok)
		s->readers++;
	spin_unlock(&s->wait_lock);
	if (!ok) {
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
	bool ok;

	spin_lock(&s->wait_lock);
	ok = write_can_enter(s);
	if (ok) {
		s->writer = current_task();
		s->writer_site = _THIS_IP_;
	}
	spin_unlock(&s->wait_lock);
	if (!ok) {
		count_trylock_failed(s);
		return false;
	}
	lockdep_acquire(&s->dep, LOCK_MODE_EXCLUSIVE, 0, _THIS_IP_);
	trace_rwsem(s, TRACE_LOCK_TAKE, LOCK_MODE_EXCLUSIVE);
	count_acquire(s, LOCK_MODE_EXCLUSIVE, false);
	return true;
}

void up_read(struct rw_semaphore *s)
{
	trace_rwsem(s, TRACE_LOCK_DROP, LOCK_MODE_SHARED);
	lockdep_release(&s->dep);
	spin_lock(&s->wait_lock);
	if (!WARN_ON_ONCE(s->readers <= 0 || s->writer) && --s->readers == 0)
		grant_waiters(s);
	spin_unlock(&s->wait_lock);
}

void up_write(struct rw_semaphore *s)
{
	trace_rwsem(s, TRACE_LOCK_DROP, LOCK_MODE_EXCLUSIVE);
	lockdep_release(&s->dep);
	spin_lock(&s->wait_lock);
	WARN_ON_ONCE(s->writer != current_task());
	s->writer = NULL;
	grant_waiters(s);
	spin_unlock(&s->wait_lock);
}

void downgrade_write(struct rw_semaphore *s)
{
	spin_lock(&s->wait_lock);
	WARN_ON_ONCE(s->writer != current_task());
	s->writer = NULL;
	s->readers = 1;
	grant_waiters(s); /* lets in the readers at the head, not a writer */
	spin_unlock(&s->wait_lock);
	lockdep_downgrade(&s->dep);
	trace_rwsem(s, TRACE_LOCK_DROP, LOCK_MODE_EXCLUSIVE);
	trace_rwsem(s, TRACE_LOCK_TAKE, LOCK_MODE_SHARED);
}

bool rwsem_is_locked(struct rw_semaphore *s)
{
	return READ_ONCE(s->readers) || READ_ONCE(s->writer);
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
