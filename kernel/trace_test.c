/*
 * kernel/trace_test.c: the event trace keeps each hart's events whole and
 * in order, keeps the newest when a ring is full, names the tasks, records
 * switches, and records nothing when off.
 */
#include <kernel/ktest.h>
#include <kernel/cpu.h>
#include <kernel/sched.h>
#include <kernel/trace.h>
#include <mm/page_alloc.h>

#define FLOOD 3000

struct ring_check {
	unsigned int cpu;
	unsigned long kept, bad, last_i;
	bool any;
	uint64_t last_ns;
	bool order_ok;
};

static int flood(void *arg)
{
	uint64_t cpu = (uintptr_t)arg;

	for (uint64_t i = 0; i < FLOOD; i++)
		trace_event(TRACE_RACE, cpu << 32 | i, 0xf100d);
	return 0;
}

static void check_ring(const struct trace_event *e, void *arg)
{
	struct ring_check *rc = arg;

	if (e->cpu != rc->cpu)
		return;
	if (e->ns < rc->last_ns)
		rc->order_ok = false;
	rc->last_ns = e->ns;
	if (e->type != TRACE_RACE || e->b != 0xf100d)
		return;
	/* Each hart's flood is one task's: contiguous, its own cpu only. */
	if (e->a >> 32 != rc->cpu ||
	    (rc->any && (e->a & 0xffffffff) != rc->last_i + 1))
		rc->bad++;
	rc->last_i = e->a & 0xffffffff;
	rc->any = true;
	rc->kept++;
}

/* Every hart writes its own ring at once; a one-page ring (128 events)
 * overflows many times and must keep the newest, in order. */
static void all_harts_flood_small_rings(struct ktest *t)
{
	struct task *tasks[MAX_CPUS];
	unsigned long per_ring = PAGE_SIZE / sizeof(struct trace_event);

	KTEST_ASSERT_EQ(t, trace_start(1), 0);
	for (unsigned int c = 0; c < ncpus; c++)
		tasks[c] = task_create_on(
		    "flood", flood, (void *)(uintptr_t)c, (int)c);
	for (unsigned int c = 0; c < ncpus; c++)
		KTEST_EXPECT_EQ(t, task_join(tasks[c]), 0);
	trace_stop();
	KTEST_EXPECT_GE(
	    t, trace_count(TRACE_RACE), (unsigned long)FLOOD * ncpus);
	for (unsigned int c = 0; c < ncpus; c++) {
		struct ring_check rc = { .cpu = c, .order_ok = true };
		trace_for_each(check_ring, &rc);
		KTEST_EXPECT_TRUE(t, rc.order_ok);
		KTEST_EXPECT_EQ(t, rc.bad, 0);
		/* the flood's tail: the last events kept are its last ones */
		KTEST_EXPECT_LE(t, rc.kept, per_ring);
		KTEST_EXPECT_GT(t, rc.kept, per_ring / 2);
		KTEST_EXPECT_EQ(t, rc.last_i, FLOOD - 1);
	}
}

struct switch_check {
	int tid;
	bool named, switched_to;
};

static void find_task(const struct trace_event *e, void *arg)
{
	struct switch_check *sc = arg;

	if (e->type == TRACE_TASK && e->tid == sc->tid &&
	    !__builtin_memcmp(&e->a, "yielder", 7))
		sc->named = true;
	if (e->type == TRACE_SWITCH && (int)e->a == sc->tid)
		sc->switched_to = true;
}

static int yielder(void *arg)
{
	(void)arg;
	for (int i = 0; i < 5; i++)
		task_yield();
	return 0;
}

static void names_tasks_and_records_switches(struct ktest *t)
{
	struct switch_check sc = { 0 };
	struct task *a;

	KTEST_ASSERT_EQ(t, trace_start(0), 0);
	a = task_create_on("yielder", yielder, NULL, 0);
	sc.tid = a->tid;
	KTEST_EXPECT_EQ(t, task_join(a), 0);
	trace_stop();
	trace_for_each(find_task, &sc);
	KTEST_EXPECT_TRUE(t, sc.named);
	KTEST_EXPECT_TRUE(t, sc.switched_to);
	KTEST_EXPECT_GT(t, trace_count(TRACE_SWITCH), 0);
}

static void off_records_nothing(struct ktest *t)
{
	unsigned long before;

	KTEST_ASSERT_EQ(t, trace_start(1), 0);
	trace_stop();
	before = trace_count(TRACE_RACE);
	for (int i = 0; i < 100; i++)
		trace_event(TRACE_RACE, i, 0);
	KTEST_EXPECT_EQ(t, trace_count(TRACE_RACE), before);
}

static struct ktest_case trace_cases[] = {
	KTEST_CASE(all_harts_flood_small_rings),
	KTEST_CASE(names_tasks_and_records_switches),
	KTEST_CASE(off_records_nothing),
	{},
};
KTEST_SUITE(trace, trace_cases);
