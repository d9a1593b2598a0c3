/*
 * kernel/trace.c: the event trace (kernel/trace.h).
 *
 * Lock rules: a writer touches only its own hart's ring, with interrupts
 * off, and announces itself in ring->writing around the write; trace_stop
 * clears trace_on, then waits until no ring has a writer inside, so the
 * rings are still once it returns (a writer that read trace_on before the
 * clear finishes its one event first). trace_mutex orders start, stop and
 * dump against each other; the rings themselves take no lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <kernel/arch.h>
#include <kernel/cpu.h>
#include <kernel/mutex.h>
#include <kernel/printk.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <kernel/shell.h>
#include <kernel/time.h>
#include <kernel/trace.h>
#include <mm/page_alloc.h>

#define TRACE_DEFAULT_ORDER 6 /* 64 pages: 8192 events per hart */
/* 4 MiB per hart, 131072 events: the page allocator's largest block */
#define TRACE_MAX_PAGES 1024u

struct trace_ring {
	struct trace_event *ev;
	unsigned long head; /* events written since start; next slot */
	int writing;	    /* a writer is inside (trace_stop waits) */
};

bool trace_on;
static struct trace_ring rings[MAX_CPUS];
static unsigned int ring_order;
static unsigned long ring_size;		     /* events per ring */
static unsigned long counts[NR_TRACE_TYPES]; /* atomic */
static DEFINE_MUTEX(trace_mutex);

static const char *const race_names[] = {
#define RACE_POINT_DEF(name, where) #name,
#include <kernel/race_points.def>
#undef RACE_POINT_DEF
};

static void record(enum trace_type type, int tid, uint64_t a, uint64_t b)
{
	unsigned long flags = arch_irq_save();
	struct cpu *c = this_cpu();
	struct trace_ring *r = &rings[c->id];

	WRITE_ONCE(r->writing, 1);
	smp_mb(); /* writing is seen before we read trace_on: see trace_stop */
	if (READ_ONCE(trace_on) && r->ev) {
		struct trace_event *e = &r->ev[r->head % ring_size];
		e->ns = time_ns();
		e->type = type;
		e->cpu = c->id;
		e->tid = tid;
		e->a = a;
		e->b = b;
		r->head++;
		__atomic_fetch_add(&counts[type], 1, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&r->writing, 0, __ATOMIC_RELEASE);
	arch_irq_restore(flags);
}

void __trace_event(enum trace_type type, uint64_t a, uint64_t b)
{
	struct task *t = current_task();

	record(type, t ? t->tid : -1, a, b);
}

/* The event's tid is the named task's, not the running one's. */
void trace_task(struct task *t)
{
	uint64_t name[2] = { 0, 0 };

	if (!READ_ONCE(trace_on))
		return;
	memcpy(name, t->name, MIN(sizeof(name), strlen(t->name)));
	record(TRACE_TASK, t->tid, name[0], name[1]);
}

static void wait_writers(void)
{
	smp_mb(); /* trace_on's clear is seen before we read writing */
	for (unsigned int i = 0; i < MAX_CPUS; i++)
		while (__atomic_load_n(&rings[i].writing, __ATOMIC_ACQUIRE))
			arch_cpu_relax();
}

static void free_rings(void)
{
	for (unsigned int i = 0; i < MAX_CPUS; i++) {
		if (rings[i].ev)
			free_pages_va(rings[i].ev, ring_order);
		rings[i].ev = NULL;
		rings[i].head = 0;
	}
}

static void name_task(struct task *t, void *arg)
{
	(void)arg;
	trace_task(t);
}

int trace_start(unsigned int pages)
{
	unsigned int order = 0;
	int err = 0;

	while (pages >> (order + 1))
		order++;

	mutex_lock(&trace_mutex);
	WRITE_ONCE(trace_on, false);
	wait_writers();
	free_rings();
	ring_order = pages ? order : TRACE_DEFAULT_ORDER;
	ring_size = (PAGE_SIZE << ring_order) / sizeof(struct trace_event);
	memset(counts, 0, sizeof(counts));
	for (unsigned int i = 0; i < ncpus; i++) {
		rings[i].ev = alloc_pages_va(GFP_KERNEL, ring_order);
		if (!rings[i].ev) {
			free_rings();
			err = -ENOMEM;
			goto out;
		}
	}
	WRITE_ONCE(trace_on, true);
	task_for_each(name_task, NULL);
	for (unsigned int i = 0; i < ncpus; i++)
		trace_task(sched_idle_task(i));
out:
	mutex_unlock(&trace_mutex);
	return err;
}

void trace_stop(void)
{
	mutex_lock(&trace_mutex);
	WRITE_ONCE(trace_on, false);
	wait_writers();
	mutex_unlock(&trace_mutex);
}

unsigned long trace_count(enum trace_type type)
{
	return type < NR_TRACE_TYPES
		   ? __atomic_load_n(&counts[type], __ATOMIC_RELAXED)
		   : 0;
}

void trace_for_each(void (*fn)(const struct trace_event *e, void *arg),
		    void *arg)
{
	for (unsigned int i = 0; i < MAX_CPUS; i++) {
		struct trace_ring *r = &rings[i];
		unsigned long first =
		    r->head > ring_size ? r->head - ring_size : 0;
		if (!r->ev)
			continue;
		for (unsigned long n = first; n < r->head; n++)
			fn(&r->ev[n % ring_size], arg);
	}
}

static void dump_one(const struct trace_event *e, void *arg)
{
	unsigned long *n = arg;

	console_printf("trace: e %llu %u %d %u %llx %llx\n",
		       (unsigned long long)e->ns,
		       e->cpu,
		       e->tid,
		       e->type,
		       (unsigned long long)e->a,
		       (unsigned long long)e->b);
	(*n)++;
}

/*
 * The dump, line by line (tools/trace reads it):
 *   trace: begin HARTS EVENTS_PER_HART
 *   trace: race ID NAME             one per race point
 *   trace: hart CPU kept K dropped D
 *   trace: e NS CPU TID TYPE A B    A, B in hex; per hart, oldest first
 *   trace: end N
 */
unsigned long trace_dump(void)
{
	unsigned long n = 0;

	mutex_lock(&trace_mutex);
	if (READ_ONCE(trace_on)) {
		WRITE_ONCE(trace_on, false);
		wait_writers();
	}
	console_printf("trace: begin %u %lu\n", ncpus, ring_size);
	for (unsigned int i = 0; i < NR_RACE_POINTS; i++)
		console_printf("trace: race %u %s\n", i, race_names[i]);
	for (unsigned int i = 0; i < ncpus; i++) {
		unsigned long h = rings[i].head;
		console_printf("trace: hart %u kept %lu dropped %lu\n",
			       i,
			       MIN(h, ring_size),
			       h > ring_size ? h - ring_size : 0);
	}
	trace_for_each(dump_one, &n);
	console_printf("trace: end %lu\n", n);
	mutex_unlock(&trace_mutex);
	return n;
}

static int cmd_trace(int argc, char **argv)
{
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "start")) {
		char *end = NULL;
		unsigned long pages =
		    argc == 3 ? strtoul(argv[2], &end, 10) : 0;
		int err;

		if (argc == 3 && (*end || !pages || pages > TRACE_MAX_PAGES)) {
			console_printf("trace: start PAGES: 1 to %u pages "
				       "per hart\n",
				       TRACE_MAX_PAGES);
			return 2;
		}
		err = trace_start((unsigned int)pages);
		if (err)
			console_printf("trace: cannot start (%d)\n", err);
		return err ? 1 : 0;
	}
	if (argc == 2 && !strcmp(argv[1], "stop")) {
		trace_stop();
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "dump")) {
		trace_dump();
		return 0;
	}
	console_printf("usage: trace start [PAGES]|stop|dump\n");
	return 2;
}
SHELL_COMMAND(trace,
	      cmd_trace,
	      "trace start [PAGES]|stop|dump",
	      "event trace: per-hart rings; tools/trace draws a dump");
