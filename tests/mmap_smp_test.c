/*
 * tests/mmap_smp_test.c: suite vfs_mmap_smp - where mmap puts areas, and
 * mmap and munmap from every hart at once, in the vfs_* boots.
 *
 * The address space is one for all tasks: an area one task unmaps may be
 * handed to another's mmap at once, on another hart. Each task maps
 * random ranges of its own file (every page holds a byte naming its file
 * and page), loads one byte of every page and unmaps; the odd tasks map
 * read-write and store the same byte back. A load that sees another
 * file's or another page's byte means an entry or a TLB line outlived its
 * munmap; a fault that ends the task means an area went missing.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/mman.h>
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/sched.h>
#include <mm/page_alloc.h>
#include "mmap_test.h"

#define SMP_PAGES  16
#define SMP_ROUNDS 300
#define SMP_TASKS  4

struct mapper {
	unsigned int id;
	int fd;
	unsigned long wrong; /* loads that saw a byte not their page's */
	int err;	     /* errno of a failed mmap or munmap */
	uint8_t seen, want;
	uint8_t *addr;
};

static uint8_t page_byte(unsigned int id, unsigned int page)
{
	return (uint8_t)(1 + id * SMP_PAGES + page);
}

static int mapper(void *arg)
{
	struct mapper *m = arg;
	uint64_t rnd = 0x9e3779b97f4a7c15ull * (m->id + 1);
	int prot = PROT_READ | (m->id & 1 ? PROT_WRITE : 0);
	char path[32];

	snprintf(path, sizeof(path), "/mmap_smp%u.bin", m->id);
	m->fd = open(path, O_RDWR); /* descriptors are the task's own */
	if (m->fd < 0)
		return m->err = errno, 1;

	for (int round = 0; round < SMP_ROUNDS; round++) {
		unsigned int first, n;
		uint8_t *p;

		rnd ^= rnd << 13, rnd ^= rnd >> 7, rnd ^= rnd << 17;
		first = rnd % SMP_PAGES;
		n = 1 + (rnd >> 8) % (SMP_PAGES - first);
		p = mmap(NULL,
			 n * PAGE_SIZE,
			 prot,
			 MAP_SHARED,
			 m->fd,
			 (off_t)first * PAGE_SIZE);
		if (p == MAP_FAILED)
			return m->err = errno, 1;
		for (unsigned int i = 0; i < n; i++) {
			volatile uint8_t *b =
			    p + i * PAGE_SIZE +
			    ((rnd >> 16) + i * 97) % PAGE_SIZE;
			uint8_t want = page_byte(m->id, first + i);
			uint8_t seen = *b;

			if (seen != want && !m->wrong++) {
				m->seen = seen, m->want = want;
				m->addr = (uint8_t *)b;
			}
			if (prot & PROT_WRITE)
				*b = want;
		}
		if (munmap(p, n * PAGE_SIZE))
			return m->err = errno, 1;
	}
	close(m->fd);
	return 0;
}

static void mappers_see_their_own_pages(struct ktest *t)
{
	static uint8_t page[PAGE_SIZE];
	struct mapper m[SMP_TASKS];
	struct task *task[SMP_TASKS];
	char path[32];
	int fd;

	if (ncpus < 2)
		KTEST_ASSERT_TRUE(t, !"this case needs two harts");
	for (unsigned int id = 0; id < SMP_TASKS; id++) {
		snprintf(path, sizeof(path), "/mmap_smp%u.bin", id);
		m[id] = (struct mapper){ .id = id };
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		KTEST_ASSERT_TRUE(t, fd >= 0);
		for (unsigned int pg = 0; pg < SMP_PAGES; pg++) {
			memset(page, page_byte(id, pg), PAGE_SIZE);
			KTEST_ASSERT_EQ(
			    t, write(fd, page, PAGE_SIZE), (long)PAGE_SIZE);
		}
		close(fd);
	}
	for (unsigned int id = 0; id < SMP_TASKS; id++) {
		task[id] = task_create_on(
		    "mmap-smp", mapper, &m[id], (int)(id % ncpus));
		KTEST_ASSERT_FALSE(t, IS_ERR(task[id]));
	}
	for (unsigned int id = 0; id < SMP_TASKS; id++) {
		KTEST_EXPECT_EQ(t, task_join(task[id]), 0);
		KTEST_EXPECT_EQ(t, m[id].err, 0);
		if (m[id].wrong)
			ktest_log(t,
				  "task %u at %p: want %#x, saw %#x",
				  id,
				  m[id].addr,
				  m[id].want,
				  m[id].seen);
		KTEST_EXPECT_EQ(t, m[id].wrong, 0);
		snprintf(path, sizeof(path), "/mmap_smp%u.bin", id);
		KTEST_EXPECT_EQ(t, unlink(path), 0);
	}
}

/* A gap exactly as long as the new area is too short: the area would
 * touch the next one with no guard page between, and the search after
 * that would hand the next one's pages out again. */
static void gap_keeps_guard_page(struct ktest *t)
{
	int fd = open("/big.bin", O_RDONLY);
	uint8_t *a, *b, *c, *d;

	KTEST_ASSERT_TRUE(t, fd >= 0);
	a = mmap(NULL, 2 * PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	b = mmap(NULL, PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	KTEST_ASSERT_TRUE(t, a != MAP_FAILED && b != MAP_FAILED);
	KTEST_EXPECT_EQ(t, (uintptr_t)b, (uintptr_t)a + 3 * PAGE_SIZE);
	KTEST_EXPECT_EQ(t, munmap(a, 2 * PAGE_SIZE), 0);
	/* three pages fit where a was only if they touch b */
	c = mmap(NULL, 3 * PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	d = mmap(NULL, PAGE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	KTEST_ASSERT_TRUE(t, c != MAP_FAILED && d != MAP_FAILED);
	KTEST_EXPECT_TRUE(t, c + 3 * PAGE_SIZE < b || c > b);
	KTEST_EXPECT_TRUE(t, d + PAGE_SIZE < b || d > b);
	KTEST_EXPECT_EQ(t, *b, big_byte(0)); /* b's pages stay b's */
	KTEST_EXPECT_EQ(t, c[PAGE_SIZE], big_byte(PAGE_SIZE));
	munmap(b, PAGE_SIZE);
	munmap(c, 3 * PAGE_SIZE);
	munmap(d, PAGE_SIZE);
	close(fd);
}

static struct ktest_case mmap_smp_cases[] = {
	KTEST_CASE(gap_keeps_guard_page),
	KTEST_CASE(mappers_see_their_own_pages),
	{},
};
KTEST_SUITE(vfs_mmap_smp, mmap_smp_cases);
