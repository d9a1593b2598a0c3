/*
 * mm/pgtable_test.c: suite mm_pgtable - replacing a valid page by another
 * while a second hart reads through it (mm/pgtable.c pt_set).
 *
 * The rule (the arch's <arch/pte.h>, pte_needs_break): on aarch64 a valid
 * leaf is replaced by one with another output address only through an
 * invalid entry flushed from every CPU (break-before-make), so a reader
 * that touches the page in that gap faults; on riscv64 the entry is
 * swapped in place and there is no gap. On both, a reader sees the old
 * page's contents or the new one's, never anything else, and once it has
 * seen the new page it never sees the old one again.
 *
 * Also the tick's TLB sizing flush (kernel/timer.h): it drops this hart's
 * translations, so an entry cleared without a flush stops working at the
 * first one.
 */
#include <kernel/arch.h>
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <kernel/spinlock.h>
#include <kernel/time.h>
#include <kernel/timer.h>
#include <mm/page_alloc.h>
#include <mm/pgtable.h>
#include <mm/vm.h>

#define OLD_WORD 0x01d01d01d01d01d0UL
#define NEW_WORD 0x0e40e40e40e40e40UL
/* The mmap area's last page: mm/mmap.c hands out areas from its bottom. */
#define TEST_VA (VM_MMAP_BASE + VM_MMAP_SIZE - PAGE_SIZE)

struct remap {
	/* raised by the writer: */
	bool in_gap, stop;
	/* the reader's record: */
	bool gap_read, gap_faulted, saw_old, saw_new;
	unsigned long faults, bad_words, old_after_new;
};

static struct remap *the_remap; /* for the race hook, which gets the VA */

static bool read_word(uint64_t *word)
{
	return arch_copy_nofault(word, (const void *)TEST_VA, sizeof(*word)) ==
	       0;
}

static void record(struct remap *r, bool ok, uint64_t word)
{
	if (!ok)
		r->faults++;
	else if (word == NEW_WORD)
		ktest_flag_raise(&r->saw_new);
	else if (word != OLD_WORD)
		r->bad_words++;
	else if (ktest_flag_up(&r->saw_new))
		r->old_after_new++;
	else
		ktest_flag_raise(&r->saw_old);
}

static int reader(void *arg)
{
	struct remap *r = arg;
	uint64_t word = 0;

	while (!ktest_flag_up(&r->stop)) {
		bool ok = read_word(&word);

		record(r, ok, word);
		if (ktest_flag_up(&r->in_gap) && !r->gap_read) {
			r->gap_faulted = !read_word(&word);
			ktest_flag_raise(&r->gap_read);
		}
	}
	return 0;
}

/* RACE_PT_BREAK: the old entry is invalid and flushed everywhere, the new
 * one not written. Hold the writer here (stack_lock, interrupts off)
 * until the reader has tried the page once. */
static void hold_in_gap(void *va)
{
	if ((uintptr_t)va != TEST_VA)
		return;
	ktest_flag_raise(&the_remap->in_gap);
	while (!ktest_flag_up(&the_remap->gap_read))
		arch_cpu_relax();
}

static void *page_of(uint64_t word)
{
	uint64_t *page = alloc_pages_va(0, 0);

	for (size_t i = 0; page && i < PAGE_SIZE / sizeof(word); i++)
		page[i] = word;
	return page;
}

static void wait_flag(const bool *flag)
{
	while (!ktest_flag_up(flag))
		arch_cpu_relax();
}

static void remap_under_reader(struct ktest *t)
{
	struct remap r = {};
	uint64_t *old = page_of(OLD_WORD), *new = page_of(NEW_WORD);
	bool gap =
	    pte_needs_break(arch_pte_leaf((uintptr_t)old, ARCH_PROT_R, 0),
			    arch_pte_leaf((uintptr_t) new, ARCH_PROT_R, 0));
	struct task *task;

	KTEST_ASSERT_TRUE(t, ncpus >= 2 && old && new);
	KTEST_ASSERT_EQ(t, vm_mmap_set(TEST_VA, 0, (uintptr_t)old, false), 0);
	the_remap = &r;
	task = task_create_on("pt_reader", reader, &r, 1);
	KTEST_ASSERT_FALSE(t, IS_ERR(task));
	wait_flag(&r.saw_old); /* the reader is at it */
	race_hook_set(RACE_PT_BREAK, hold_in_gap);
	KTEST_EXPECT_EQ(
	    t, vm_mmap_set(TEST_VA, (uintptr_t)old, (uintptr_t) new, false), 0);
	race_hook_set(RACE_PT_BREAK, NULL);
	wait_flag(&r.saw_new);
	ktest_flag_raise(&r.stop);
	KTEST_EXPECT_EQ(t, task_join(task), 0);

	KTEST_EXPECT_EQ(t, r.bad_words, 0);
	KTEST_EXPECT_EQ(t, r.old_after_new, 0);
	/* aarch64: the reader was let in once, in the gap, and faulted there;
	 * riscv64: no gap, no fault at all. */
	KTEST_EXPECT_EQ(t, r.gap_read, gap);
	KTEST_EXPECT_EQ(t, r.gap_faulted, gap);
	if (!gap)
		KTEST_EXPECT_EQ(t, r.faults, 0);
	KTEST_EXPECT_EQ(t, vm_mmap_lookup(TEST_VA, NULL), (uintptr_t) new);
	KTEST_EXPECT_EQ(
	    t, vm_mmap_clear(TEST_VA, (uintptr_t) new), (uintptr_t) new);
	vm_flush_tlb_all_harts(TEST_VA, PAGE_SIZE);
	free_pages_va(old, 0);
	free_pages_va(new, 0);
}

/* Fewer rights on the same page (what writeback's write-protect and a
 * read-only remap do) never opens a gap, on either arch. */
static void same_page_fewer_rights_no_break(struct ktest *t)
{
	uintptr_t pa = 0x80000000UL; /* any page-aligned address */

	KTEST_EXPECT_FALSE(
	    t,
	    pte_needs_break(arch_pte_leaf(pa, ARCH_PROT_R | ARCH_PROT_W, 0),
			    arch_pte_leaf(pa, ARCH_PROT_R, 0)));
	KTEST_EXPECT_FALSE(
	    t, pte_needs_break(0, arch_pte_leaf(pa, ARCH_PROT_R, 0)));
}

/*
 * Map TEST_VA, read it (QEMU caches the translation), clear the entry with
 * no flush: the read still works from the cached translation. Spin with
 * preemption off (this hart's ticks find this task running) until its
 * tick makes a sizing flush: from then on the read faults. If the cached
 * entry was lost before the flush (another hart's flush, or QEMU evicted
 * it), the round proves nothing and is done again.
 */
static void sizing_flush_drops_stale_entry(struct ktest *t)
{
	uint64_t *page = page_of(OLD_WORD), word = 0;
	unsigned long every = tlb_sizing_set(TLB_SIZING_TICKS);
	unsigned int rounds = 0, proved = 0;

	KTEST_ASSERT_NOT_NULL(t, page);
	while (!proved && rounds++ < 20) {
		uint64_t give_up = time_ns() + RACE_TIMEOUT_MS * NSEC_PER_MSEC;
		unsigned long flushes;
		bool stale, flushed, after;

		KTEST_ASSERT_EQ(
		    t, vm_mmap_set(TEST_VA, 0, (uintptr_t)page, false), 0);
		preempt_disable();
		KTEST_EXPECT_TRUE(t, read_word(&word));
		KTEST_EXPECT_EQ(t,
				vm_mmap_clear(TEST_VA, (uintptr_t)page),
				(uintptr_t)page);
		flushes = READ_ONCE(this_cpu()->tlb_sizing_flushes);
		stale = read_word(&word);
		while (!(flushed = READ_ONCE(this_cpu()->tlb_sizing_flushes) !=
				   flushes) &&
		       time_ns() < give_up)
			arch_cpu_relax();
		after = read_word(&word);
		preempt_enable();
		vm_flush_tlb_all_harts(TEST_VA, PAGE_SIZE);
		KTEST_EXPECT_TRUE(t, flushed);
		KTEST_EXPECT_FALSE(t, after);
		if (!flushed || after)
			break;
		proved += stale;
	}
	KTEST_EXPECT_EQ(t, proved, 1);
	tlb_sizing_set(every);
	free_pages_va(page, 0);
}

static struct ktest_case pgtable_cases[] = {
	KTEST_CASE(remap_under_reader),
	KTEST_CASE(same_page_fewer_rights_no_break),
	KTEST_CASE(sizing_flush_drops_stale_entry),
	{},
};
KTEST_SUITE(mm_pgtable, pgtable_cases);
