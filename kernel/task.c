/*
 * kernel/task.c: the life of a task apart from running it - allocation,
 * names and ids, the list of all tasks, the references that decide when a
 * dead task may be freed (join), and the per-task state other layers reach
 * through the running task (lockdep's, newlib's). kernel/sched.c runs
 * tasks: the run queue, switching, sleeping and waking, exit.
 *
 * References: a task starts with two, its own (dropped after its last
 * switch, task_put_own) and its joiner's (task_join). tasks_lock (irqsave,
 * a leaf) guards all_tasks and next_tid.
 */
#include <string.h>
#include <kernel/err.h>
#include <kernel/irq.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <kernel/trace.h>
#include <mm/kmalloc.h>
#include <mm/mmap.h>
#include <mm/vm.h>
#include <fs/vfs.h>
#include "sched_internal.h"

static DEFINE_SPINLOCK(tasks_lock);
static struct list_head all_tasks = LIST_HEAD_INIT(all_tasks);
static int next_tid = 1;

/*
 * The task's own reference, dropped on the hart that switched away from it
 * for the last time. The drop and the wake-up of its joiners are one
 * critical section of t->exited's lock, and the unlock is the last access:
 * a joiner that sees the count drop takes that lock (finish_wait) before it
 * can free the task.
 */
void task_put_own(struct task *t)
{
	unsigned long flags = spin_lock_irqsave(&t->exited.lock);

	__atomic_sub_fetch(&t->refs, 1, __ATOMIC_RELEASE);
	race_point(RACE_TASK_EXIT_WAKE, t);
	wake_up_all_locked(&t->exited);
	spin_unlock_irqrestore(&t->exited.lock, flags);
}

/* A name that does not fit keeps its start and ends in '~', so ps and the
 * reports never show a cut name as if it were whole. */
void task_set_name(struct task *t, const char *name)
{
	if (strlcpy(t->name, name, sizeof(t->name)) >= sizeof(t->name))
		t->name[sizeof(t->name) - 2] = '~';
}

struct task *task_alloc(const char *name, int (*fn)(void *), void *arg)
{
	struct task *t = kzalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return ERR_PTR(-ENOMEM);
	t->stack = vm_alloc_stack(TASK_STACK_SIZE);
	if (!t->stack) {
		kfree(t);
		return ERR_PTR(-ENOMEM);
	}
	t->stack_size = TASK_STACK_SIZE;
	t->stack_lo = (uintptr_t)t->stack;
	task_set_name(t, name);
	t->fn = fn;
	t->arg = arg;
	t->affinity = CPU_ANY;
	t->state = TASK_RUNNABLE;
	t->refs = 2; /* its own until its last switch, and its joiner's */
	t->ctx.ra = (uintptr_t)task_entry;
	t->ctx.sp = (uintptr_t)t->stack + t->stack_size;
	list_init(&t->run_node);
	wait_queue_init(&t->exited);
	_REENT_INIT_PTR(&t->reent);
	return t;
}

void task_register(struct task *t)
{
	unsigned long flags = spin_lock_irqsave(&tasks_lock);

	t->tid = next_tid++;
	list_add_tail(&t->all_node, &all_tasks);
	spin_unlock_irqrestore(&tasks_lock, flags);
	trace_task(t);
}

void task_kill_current(const char *why)
{
	struct cpu *c = this_cpu();

	pr_err("task %s (tid %d) killed: %s\n",
	       c->current->name,
	       c->current->tid,
	       why);
	c->current->preempt_count = 0;
	c->current->lockdep.depth = 0;
	task_exit(TASK_EXIT_KILLED);
}

/* The last reference frees the task. Context: task, may sleep. */
static void task_put(struct task *t)
{
	unsigned long flags;

	if (__atomic_sub_fetch(&t->refs, 1, __ATOMIC_ACQ_REL))
		return;
	flags = spin_lock_irqsave(&tasks_lock);
	list_del(&t->all_node);
	spin_unlock_irqrestore(&tasks_lock, flags);
	vm_release_task(t);
	files_release(t);
	vm_free_stack(t->stack, t->stack_size);
	kfree(t);
}

/* Only the joiner's reference is left: the task has made its last switch
 * and no hart uses it any more. */
static bool task_gone(struct task *t)
{
	return __atomic_load_n(&t->refs, __ATOMIC_ACQUIRE) == 1;
}

int task_join(struct task *t)
{
	int code;

	wait_event(&t->exited, task_gone(t));
	code = t->exit_code;
	task_put(t);
	return code;
}

const char *current_task_name(void)
{
	return current_task()->name;
}

bool task_stack_contains(uintptr_t addr)
{
	struct task *t = current_task();
	return t->stack && addr >= (uintptr_t)t->stack &&
	       addr < (uintptr_t)t->stack + t->stack_size;
}

void task_for_each(void (*fn)(struct task *t, void *arg), void *arg)
{
	unsigned long flags = spin_lock_irqsave(&tasks_lock);
	struct task *t;

	list_for_each_entry (t, &all_tasks, all_node)
		fn(t, arg);
	spin_unlock_irqrestore(&tasks_lock, flags);
}

struct lockdep_task *lockdep_current(void)
{
	return __lockdep_current();
}

/* newlib's per-task state: errno and friends follow the running task. */
struct _reent *__getreent(void)
{
	return &current_task()->reent;
}
