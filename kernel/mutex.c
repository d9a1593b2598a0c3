/*
 * kernel/mutex.c: FIFO mutex with direct hand-off.
 *
 * mutex_unlock passes ownership to the oldest waiter before waking it, so a
 * task that arrives later cannot overtake the queue. A locker that finds
 * the mutex held and nobody queued first spins for the holder, up to
 * m->spin_ns (kernel/mutex.h). Lock: m->wait_lock guards owner and
 * waiters.
 */
#include <kernel/arch.h>
#include <kernel/cpu.h>
#include <kernel/mutex.h>
#include <kernel/panic.h>
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

/* Wait, spinning, for the holder to let go while nobody is queued (a
 * queued waiter keeps its turn); give up at the deadline. Racy reads: the
 * caller looks again under wait_lock. */
static void spin_on_owner(struct mutex *m)
{
	uint64_t until = lock_spin_deadline(m->spin_ns);

	while (READ_ONCE(m->owner) &&
	       READ_ONCE(m->waiters.next) == &m->waiters && time_ns() < until)
		arch_cpu_relax();
}

static void __mutex_lock(struct mutex *m, uintptr_t site)
{
	struct mutex_waiter w = { .task = current_task() };

	DEBUG_ASSERT(m->owner != current_task()); /* not recursive */
	lockdep_acquire(&m->dep, LOCK_MODE_EXCLUSIVE, 0, site);
	if (READ_ONCE(m->owner))
		spin_on_owner(m);
	spin_lock(&m->wait_lock);
	if (!m->owner) {
		m->owner = w.task;
	} else {
		list_add_tail(&w.node, &m->waiters);
		while (!w.granted) {
			set_current_state(TASK_SLEEPING);
			spin_unlock(&m->wait_lock);
			schedule();
			spin_lock(&m->wait_lock);
		}
		set_current_state(TASK_RUNNABLE);
	}
	m->site = site;
	spin_unlock(&m->wait_lock);
}

void mutex_lock(struct mutex *m)
{
	__mutex_lock(m, _THIS_IP_);
}

bool mutex_trylock(struct mutex *m)
{
	bool ok;

	spin_lock(&m->wait_lock);
	ok = !m->owner;
	if (ok) {
		m->owner = current_task();
		m->site = _THIS_IP_;
	}
	spin_unlock(&m->wait_lock);
	if (ok)
		lockdep_acquire(&m->dep, LOCK_MODE_EXCLUSIVE, 0, _THIS_IP_);
	return ok;
}

void mutex_unlock(struct mutex *m)
{
	struct mutex_waiter *w = NULL;

	lockdep_release(&m->dep);
	spin_lock(&m->wait_lock);
	WARN_ON_ONCE(m->owner != current_task());
	m->owner = NULL;
	if (!list_empty(&m->waiters)) {
		w = list_first_entry(&m->waiters, struct mutex_waiter, node);
		list_del(&w->node);
		m->owner = w->task;
		w->granted = true;
		wake_up_task(w->task);
	}
	spin_unlock(&m->wait_lock);
}

bool mutex_is_locked(struct mutex *m)
{
	return READ_ONCE(m->owner) != NULL;
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
