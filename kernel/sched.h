/*
 * kernel/sched.h: kernel tasks and the scheduler.
 *
 * Tasks are kernel threads with their own stack (a guard page below it) and
 * name. Each hart runs the tasks of its own run queue, and an idle hart
 * steals the tasks that may run anywhere from the others' queues
 * (kernel/sched_rq.c); a timer tick preempts a task that has used its time
 * slice whenever preemption is enabled (no spinlock held). Idle harts wait
 * in wfi and are woken by an IPI when work arrives.
 *
 *   t = task_create("name", fn, arg);   // runnable at once; ERR_PTR on error
 *   code = task_join(t);                // wait for exit, get fn's result
 *
 * A task holds two references: its own, dropped after its last context
 * switch, and its joiner's; task_join waits for the first and drops the
 * second, which frees the task (stack, descriptors, file mappings,
 * struct) before it returns.
 *
 * A task ends by returning from fn or by task_exit(code). A task that traps
 * is killed with a report; its joiner sees TASK_EXIT_KILLED.
 *
 * Lock order: a hart's run-queue lock (inside) is taken with interrupts
 * off; wait-queue locks may be held when taking it (wake_up), never the
 * reverse (kernel/sched_internal.h has the run queues' own rules).
 */
#pragma once

#include <sys/reent.h>
#include <kernel/compiler.h>
#include <kernel/list.h>
#include <kernel/lockdep.h>
#include <kernel/cpu.h>
#include <kernel/irq.h>
#include <kernel/panic.h>
#include <kernel/wait.h>

struct blk_plug;

#define TASK_NAME_LEN	 40 /* a longer name is cut and ends in '~' */
#define TASK_STACK_SIZE	 (16 * 1024)
#define TASK_EXIT_KILLED (-1000)
#define CPU_ANY		 (-1)

enum task_state {
	TASK_RUNNABLE, /* on the run queue or running */
	TASK_SLEEPING, /* waiting for a wake_up */
	TASK_DEAD,     /* exited, waiting to be joined */
};

/* struct task_context: what a context switch saves (the callee-saved
 * registers; ra and sp named so by every arch): the arch's
 * <arch/context.h>, through <kernel/arch.h>. */

struct inode;

struct task {
	/* first, at fixed offsets: read by trap entry (struct task_head) */
	uintptr_t stack_lo; /* lowest valid stack address */
	struct cpu *cpu;    /* hart it runs on, last ran on or is queued on:
			     * whose run-queue lock guards the fields below */

	struct task_context ctx;
	char name[TASK_NAME_LEN];
	int tid;
	int (*fn)(void *);
	void *arg;
	int exit_code;
	int affinity;	   /* CPU_ANY or a logical cpu */
	int preempt_count; /* >0: not preemptible */
	void *stack;	   /* lowest usable address */
	size_t stack_size;

	/* protected by the lock of cpu's run queue: */
	enum task_state state;
	bool on_rq;
	bool on_cpu; /* its context is live on some hart */
	struct list_head run_node;
	unsigned int slice; /* ticks left before preemption */
	uint64_t runtime_ns;
	uint64_t switches;

	int refs; /* atomic: the task's own until its last switch, the
		   * joiner's; the last task_put frees the task */
	struct list_head all_node;     /* protected by tasks_lock */
	struct wait_queue_head exited; /* joiners wait here */
	bool joined;
	struct lockdep_task lockdep; /* only the task itself touches it */
	struct _reent reent;	     /* newlib state: errno, strtok ... */
	void *files;		     /* descriptor table, owned by the vfs */
	unsigned int nr_areas;	     /* its file mappings still mapped
				      * (mm/mmap.c, under mmap_lock) */
	struct inode *cwd;	     /* working directory, owned by the vfs */
	struct blk_plug *plug;	     /* held block I/O (drivers/block.h) */
	unsigned int fail_nth;	     /* tests: the nth kmalloc from now fails */
};

struct task *task_create(const char *name, int (*fn)(void *), void *arg);
struct task *
task_create_on(const char *name, int (*fn)(void *), void *arg, int cpu);
int task_join(struct task *t);
__noreturn void task_exit(int code);
/* End the running task after a trap; called by the trap handler. */
__noreturn void task_kill_current(const char *why);
void task_yield(void);
void task_sleep_ns(uint64_t ns);
void task_sleep_ms(unsigned int ms);

static inline struct task *current_task(void)
{
	return arch_current_task();
}

const char *current_task_name(void);
bool task_stack_contains(uintptr_t addr);

/* Visit every live task under tasks_lock (the callback must not sleep). */
void task_for_each(void (*fn)(struct task *t, void *arg), void *arg);

/* Scheduler internals used by wait queues, timers and the trap path. */
void schedule(void);
/* Involuntary switch: the task stays runnable whatever its state. */
void schedule_preempt(void);
/* Hart @cpu's idle task, which is also its context before the scheduler. */
struct task *sched_idle_task(unsigned int cpu);
void wake_up_task(struct task *t);
void sched_tick(void);
void preempt_check_resched(void);
/* Send the wake-up IPIs this hart put off while it held a lock
 * (kernel/sched.c, send_kick). */
void sched_send_kicks(void);
/* The same, unless this hart still holds a lock or runs a handler (then
 * the lock's release or the handler's end sends them). Interrupts off. */
void sched_send_owed_kicks(void);
/* Tasks hart @cpu took from other harts' queues so far (tests). */
unsigned long sched_steals(unsigned int cpu);

/* The running task's lockdep state, or NULL in an idle task or a trap
 * handler (lockdep_current, inline for the lock fast paths). */
static inline struct lockdep_task *__lockdep_current(void)
{
	struct task *t = current_task();

	return t != t->cpu->idle && !in_interrupt() ? &t->lockdep : NULL;
}

/* kernel/lockdep.h's acquisition and release of @map, inline for the lock
 * fast paths: without CONFIG_LOCKDEP (the production build) only the
 * running task's counts of locks taken and held. */
static inline void lockdep_acquire(const struct lockdep_map *map,
				   enum lock_mode mode,
				   unsigned int subclass,
				   uintptr_t site)
{
	struct lockdep_task *lt;

	if (IS_ENABLED(CONFIG_LOCKDEP)) {
		lockdep_acquire_tracked(map, mode, subclass, site);
		return;
	}
	lt = __lockdep_current();
	if (lt) {
		lt->acquired++;
		lt->depth++;
	}
}

static inline void lockdep_release(const struct lockdep_map *map)
{
	struct lockdep_task *lt;

	if (IS_ENABLED(CONFIG_LOCKDEP)) {
		lockdep_release_tracked(map);
		return;
	}
	lt = __lockdep_current();
	if (lt && lt->depth)
		lt->depth--;
}

/* preempt_disable/preempt_enable (kernel/spinlock.h), inline for the lock
 * fast paths: the count lives in the task (tp is read once, so a
 * migration between the read and the update cannot move the update to
 * another hart). */
static inline void __preempt_disable(void)
{
	current_task()->preempt_count++;
	barrier();
}

static inline void __preempt_enable_no_resched(void)
{
	struct task *t = current_task();

	barrier();
	WARN_ON_ONCE(t->preempt_count <= 0);
	t->preempt_count--;
}

/*
 * A peek first, with interrupts on: nearly every call finds nothing to do,
 * and preempt_check_resched's exact check turns interrupts off and on (two
 * CSR writes, each ending QEMU's translation block). The peek may read the
 * hart this task just left, if it was preempted in between: a flag missed
 * there is its new hart's, whose trap return or tick acts on it; a flag
 * seen wrongly only costs the exact check.
 */
static inline void __preempt_check_resched(void)
{
	if (unlikely(READ_ONCE(this_cpu()->need_resched) ||
		     READ_ONCE(this_cpu()->kicks)))
		preempt_check_resched();
}

static inline void __preempt_enable(void)
{
	__preempt_enable_no_resched();
	__preempt_check_resched();
}

void set_current_state(enum task_state state);
void sched_prepare_cpu(struct cpu *c, void *stack, size_t stack_size);
void sched_start_cpu(void);
__noreturn void sched_idle_loop(void);
