/*
 * kernel/wait.c: wait queues and completions.
 *
 * A waiter stays queued from prepare_to_wait() to finish_wait(); wake_up()
 * makes every queued waiter runnable (or only the first exclusive one), and
 * each re-checks its condition. Lock: wq->lock (irqsave), then a run
 * queue's lock.
 */
#include <kernel/wait.h>
#include <kernel/panic.h>
#include <kernel/race.h>
#include <kernel/sched.h>

void wait_queue_init(struct wait_queue_head *wq)
{
	spin_lock_init(&wq->lock, "wait_queue");
	list_init(&wq->waiters);
}

static void __prepare(struct wait_queue_head *wq,
		      struct wait_queue_entry *w,
		      bool exclusive)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);

	if (!w->task) { /* first call for this entry */
		w->task = current_task();
		w->exclusive = exclusive;
		list_init(&w->node);
	}
	if (list_empty(&w->node)) {
		if (exclusive)
			list_add_tail(&w->node, &wq->waiters);
		else
			list_add(&w->node, &wq->waiters);
	}
	set_current_state(TASK_SLEEPING);
	spin_unlock_irqrestore(&wq->lock, flags);
}

void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *w)
{
	__prepare(wq, w, false);
}

void prepare_to_wait_exclusive(struct wait_queue_head *wq,
			       struct wait_queue_entry *w)
{
	__prepare(wq, w, true);
}

void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *w)
{
	unsigned long flags;

	set_current_state(TASK_RUNNABLE);
	flags = spin_lock_irqsave(&wq->lock);
	if (w->task == current_task() && !list_empty(&w->node))
		list_del(&w->node);
	spin_unlock_irqrestore(&wq->lock, flags);
}

/* Caller holds wq->lock. */
static void __wake_up_locked(struct wait_queue_head *wq, bool all)
{
	struct wait_queue_entry *w;

	DEBUG_ASSERT(spin_lock_held(&wq->lock));
	list_for_each_entry (w, &wq->waiters, node) {
		wake_up_task(w->task);
		if (w->exclusive && !all)
			break;
	}
}

static void __wake_up(struct wait_queue_head *wq, bool all)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);

	__wake_up_locked(wq, all);
	spin_unlock_irqrestore(&wq->lock, flags);
}

void wake_up_all_locked(struct wait_queue_head *wq)
{
	__wake_up_locked(wq, true);
}

void wake_up(struct wait_queue_head *wq)
{
	__wake_up(wq, false);
}

void wake_up_all(struct wait_queue_head *wq)
{
	__wake_up(wq, true);
}

void init_completion(struct completion *c)
{
	c->done = 0;
	wait_queue_init(&c->wq);
}

/*
 * complete() and complete_all() count and wake under the queue's lock, and
 * the unlock is their last access to @c. A waiter takes that lock to see
 * the count (try_consume) and again in finish_wait, so when
 * wait_for_completion returns the waker is done with @c: a completion on
 * the waiter's stack may go out of scope at once.
 */
void complete(struct completion *c)
{
	unsigned long flags = spin_lock_irqsave(&c->wq.lock);

	if (c->done != UINT32_MAX)
		c->done++;
	race_point(RACE_COMPLETE_WAKE, c);
	__wake_up_locked(&c->wq, false);
	spin_unlock_irqrestore(&c->wq.lock, flags);
}

void complete_all(struct completion *c)
{
	unsigned long flags = spin_lock_irqsave(&c->wq.lock);

	c->done = UINT32_MAX;
	__wake_up_locked(&c->wq, true);
	spin_unlock_irqrestore(&c->wq.lock, flags);
}

/* Take one completion if there is one. */
static bool try_consume(struct completion *c)
{
	unsigned long flags = spin_lock_irqsave(&c->wq.lock);
	bool ok = c->done > 0;

	if (ok && c->done != UINT32_MAX)
		c->done--;
	spin_unlock_irqrestore(&c->wq.lock, flags);
	return ok;
}

void wait_for_completion(struct completion *c)
{
	wait_event(&c->wq, try_consume(c));
}

bool wait_for_completion_timeout(struct completion *c, uint64_t ns)
{
	return wait_event_timeout(&c->wq, try_consume(c), ns);
}

bool completion_done(struct completion *c)
{
	return READ_ONCE(c->done) > 0;
}
