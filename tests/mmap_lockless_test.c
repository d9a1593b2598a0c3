/*
 * tests/mmap_lockless_test.c: suite vfs_mmap_lockless - a load fault on a
 * cached page takes no lock (mm/fault.c fault_read_lockless), so what
 * the page lock and mmap_lock used to exclude, the other side must wait
 * out: a punch that drops the page the fault found, and an munmap of the
 * area it found, each while the fault sits between finding and mapping.
 *
 * The schedule is forced: the faulter, pinned to one hart, enters the
 * fault handler (vm_mmap_fault) for a load and stops at
 * RACE_FAULT_LOCKLESS (inside its RCU section, spinning: it may not
 * sleep there) until the other task, pinned to another hart, has done
 * the part that matters - dropped the page (page->mapping cleared) or
 * begun the munmap (mm->seq odd) - and only then maps the page. The
 * rule: once the punch or munmap has returned, no entry maps the dropped
 * page, or anything in the unmapped range. Without unmap_dropped_pages
 * (the door's grace period and second zap) the punched page stays mapped
 * and the load reads the old bytes, not the hole; without munmap's grace
 * period (mm_write_begin) the entry outlives the area. The munmap case
 * lets the munmap run on before mapping, until it waits for the fault's
 * grace period (RACE_RCU_GP_WAIT, in the munmap's task) or has returned:
 * a kernel that waits for the fault cannot return meanwhile, one that
 * does not returns, so the second kind fails every time. (Before, it ran
 * on for 100 ms: a host that did not run the munmap's hart that long let
 * the second kind pass.) The bounds, RACE_TIMEOUT_MS, are for a broken
 * run only.
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/falloc.h>
#include <kernel/arch.h>
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <kernel/time.h>
#include <fs/internal.h>
#include <fs/vfs.h>
#include <mm/mmap.h>
#include <mm/vm.h>

#define FILE_NAME "/mmap_lockless.bin"
#define BOUND_NS  (RACE_TIMEOUT_MS * NSEC_PER_MSEC) /* not a schedule */

enum actor_kind { ACT_PUNCH, ACT_MUNMAP };

struct lockless_race {
	enum actor_kind kind;
	struct file *file; /* descriptor tables are per task */
	volatile uint8_t *p;
	struct page *page; /* the page the fault found */
	bool at_point;	   /* the faulter stopped at the race point */
	struct task *actor;
	bool actor_gp;	/* the munmap waits for a grace period */
	bool acted;	/* the punch or munmap returned */
	bool saw_other; /* the faulter saw the other side's part */
	int act_err;
	int fault_err; /* vm_mmap_fault's */
};

static struct lockless_race *cur;

/* Has the other side done its part? */
static bool other_part_done(struct lockless_race *r)
{
	if (r->kind == ACT_PUNCH)
		return !READ_ONCE(r->page->mapping);
	return __atomic_load_n(&kernel_mm.seq, __ATOMIC_ACQUIRE) & 1;
}

static void hold_fault(void *obj)
{
	struct lockless_race *r = READ_ONCE(cur);
	uint64_t start = time_ns();

	if (!r || ktest_flag_up(&r->at_point))
		return;
	r->page = obj;
	ktest_flag_raise(&r->at_point);
	while (!other_part_done(r) && time_ns() - start < BOUND_NS)
		arch_cpu_relax();
	r->saw_other = other_part_done(r);
	/* Let an munmap that does not wait for us finish first. */
	if (r->kind == ACT_MUNMAP)
		while (!ktest_flag_up(&r->acted) &&
		       !ktest_flag_up(&r->actor_gp) &&
		       time_ns() - start < BOUND_NS)
			arch_cpu_relax();
}

/* At RACE_RCU_GP_WAIT in the actor: its munmap waits for the faulter's
 * read-side section. */
static void actor_waits(void *obj)
{
	struct lockless_race *r = READ_ONCE(cur);

	(void)obj;
	if (r && current_task() == READ_ONCE(r->actor))
		ktest_flag_raise(&r->actor_gp);
}

/* The fault handler's own entry, not a load: a load would be retried
 * after the handler returned, and whether that retry comes before the
 * munmap's zap is up to chance. */
static int faulter(void *arg)
{
	struct lockless_race *r = arg;

	r->fault_err = vm_mmap_fault((uintptr_t)r->p, false);
	return 0;
}

static int actor(void *arg)
{
	struct lockless_race *r = arg;
	uint64_t start = time_ns();

	while (!ktest_flag_up(&r->at_point) && time_ns() - start < BOUND_NS)
		task_yield();
	if (r->kind == ACT_PUNCH)
		r->act_err =
		    vfs_fallocate(r->file,
				  FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				  0,
				  PAGE_SIZE);
	else
		r->act_err = munmap((void *)r->p, 2 * PAGE_SIZE);
	ktest_flag_raise(&r->acted);
	return 0;
}

/* A two-page file of 0x5a, cached, mapped, its first page's entry
 * cleared again (the page table stays): the next load is lock-free. */
static volatile uint8_t *prepare(struct ktest *t, int fd)
{
	static uint8_t buf[2 * PAGE_SIZE];
	volatile uint8_t *p;

	memset(buf, 0x5a, sizeof(buf));
	if (pwrite(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
		return NULL;
	p = mmap(NULL, sizeof(buf), PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	KTEST_EXPECT_EQ(t, p[0], 0x5a);
	KTEST_EXPECT_EQ(t, madvise((void *)p, PAGE_SIZE, MADV_DONTNEED), 0);
	KTEST_EXPECT_EQ(t, vm_mmap_lookup((uintptr_t)p, NULL), 0);
	return p;
}

static void run_race(struct ktest *t, struct lockless_race *r)
{
	unsigned int here = cpu_id() % ncpus, there = (here + 1) % ncpus;
	struct task *a, *f;

	KTEST_ASSERT_GE(t, ncpus, 2u);
	WRITE_ONCE(cur, r);
	race_hook_set(RACE_FAULT_LOCKLESS, hold_fault);
	race_hook_set(RACE_RCU_GP_WAIT, actor_waits);
	a = task_create_on("lockless-act", actor, r, there);
	if (!IS_ERR(a)) /* before the faulter: the actor waits for it */
		__atomic_store_n(&r->actor, a, __ATOMIC_RELEASE);
	f = task_create_on("lockless-fault", faulter, r, here);
	KTEST_EXPECT_FALSE(t, IS_ERR(a) || IS_ERR(f));
	if (!IS_ERR(f))
		KTEST_EXPECT_EQ(t, task_join(f), 0);
	if (!IS_ERR(a))
		KTEST_EXPECT_EQ(t, task_join(a), 0);
	race_hook_set(RACE_FAULT_LOCKLESS, NULL);
	race_hook_set(RACE_RCU_GP_WAIT, NULL);
	WRITE_ONCE(cur, NULL);
	KTEST_EXPECT_TRUE(t, r->at_point);
	KTEST_EXPECT_TRUE(t, r->saw_other);
	KTEST_EXPECT_EQ(t, r->act_err, 0);
	KTEST_EXPECT_EQ(t, r->fault_err, 0); /* it found the area and page */
}

static void lockless_fault_vs_punch(struct ktest *t)
{
	int fd = open(FILE_NAME, O_RDWR | O_CREAT | O_TRUNC, 0644);
	struct lockless_race r = { .kind = ACT_PUNCH, .file = fd_get(fd) };

	KTEST_ASSERT_TRUE(t, fd >= 0 && r.file);
	r.p = prepare(t, fd);
	KTEST_ASSERT_NOT_NULL(t, r.p);
	run_race(t, &r);
	/* The punch has returned: the hole reads zeroes, through a fresh
	 * entry, never the dropped page's old bytes. */
	uintptr_t pa = vm_mmap_lookup((uintptr_t)r.p, NULL);
	KTEST_EXPECT_TRUE(t, !pa || pa != (uintptr_t)page_address(r.page));
	KTEST_EXPECT_EQ(t, r.p[0], 0);
	KTEST_EXPECT_EQ(t, r.p[PAGE_SIZE], 0x5a);
	munmap((void *)r.p, 2 * PAGE_SIZE);
	fput(r.file);
	close(fd);
	KTEST_EXPECT_EQ(t, unlink(FILE_NAME), 0);
}

static void lockless_fault_vs_munmap(struct ktest *t)
{
	int fd = open(FILE_NAME, O_RDWR | O_CREAT | O_TRUNC, 0644);
	struct lockless_race r = { .kind = ACT_MUNMAP };

	KTEST_ASSERT_TRUE(t, fd >= 0);
	r.p = prepare(t, fd);
	KTEST_ASSERT_NOT_NULL(t, r.p);
	run_race(t, &r);
	/* The munmap waited for the fault, and has returned: nothing is
	 * mapped in its range. */
	KTEST_EXPECT_TRUE(t, r.actor_gp);
	KTEST_EXPECT_EQ(t, vm_mmap_lookup((uintptr_t)r.p, NULL), 0);
	close(fd);
	KTEST_EXPECT_EQ(t, unlink(FILE_NAME), 0);
}

static struct ktest_case lockless_cases[] = {
	KTEST_CASE(lockless_fault_vs_punch),
	KTEST_CASE(lockless_fault_vs_munmap),
	{},
};
KTEST_SUITE(vfs_mmap_lockless, lockless_cases);
