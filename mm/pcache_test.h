/*
 * mm/pcache_test.h: a test "disk" behind a bare inode, for the pcache_*
 * suites (tests only; mm/pcache_test.c).
 *
 *   struct tdisk *d = tdisk_create(t, size, TDISK_RAM);
 *   ... filemap_read(&d->file, buf, n, &pos) ...
 *   KTEST_EXPECT_EQ(t, d->read_calls, 1);
 *   tdisk_destroy(t, d);            // truncates the cache, checks it empty
 *
 * TDISK_RAM keeps every byte (for small files); without it the disk keeps
 * only a version number per page and each page's contents are a pattern
 * of (index, version), so a file larger than RAM fits: write_page checks
 * the pattern it is given and records its version, read_page regenerates
 * it (version 0: a hole of zeroes). TDISK_ASYNC completes reads from a
 * helper task after a short delay, so readers meet locked pages.
 * TDISK_READAHEAD gives the address space a readahead operation.
 */
#pragma once

#include <fs/vfs.h>
#include <kernel/ktest.h>
#include <kernel/sched.h>
#include <mm/filemap.h>

enum {
	TDISK_RAM = 1,
	TDISK_ASYNC = 2,
	TDISK_READAHEAD = 4,
};

#define TDISK_QUEUE 64

struct tdisk {
	struct inode inode;
	struct file file;
	unsigned int flags;
	unsigned long nr_pages;
	char *data;	    /* TDISK_RAM: nr_pages pages */
	uint32_t *versions; /* otherwise: version of each page */
	/* counters (atomic): */
	unsigned long read_calls, ra_calls, write_calls, invalidate_calls;
	unsigned long corrupt;	  /* pages written with a broken pattern */
	uint32_t *reads, *writes; /* per page */
	int fail_writes;	  /* this many next writes fail with -EIO */
	/* write_begin of page fail_begin_at fails with -ENOSPC (-1: never) */
	long fail_begin_at;
	/* pages after the first write_begin's that were already cached */
	long ahead_at_first_begin; /* -1 until a write_begin ran */
	/* write_begins handed the page put in ahead at their index */
	unsigned long begins_handed;
	/* TDISK_ASYNC: page 0's read ends only once @first_until(@d) (a
	 * test's condition, e.g. readers wait for it) or RACE_TIMEOUT_MS */
	bool (*first_until)(void *d);
	bool first_held; /* page 0 was held until then */
	struct spinlock queue_lock;
	struct page *queue[TDISK_QUEUE];
	unsigned int queued;
	struct wait_queue_head queue_wq;
	bool stop;
	struct task *completer;
};

struct tdisk *tdisk_create(struct ktest *t, loff_t size, unsigned int flags);
void tdisk_destroy(struct ktest *t, struct tdisk *d);
/* Fill @buf with page @index's contents at @version. */
void tdisk_pattern(void *buf, unsigned long index, uint32_t version);
/* A second open file of the same inode (own readahead state). */
void tdisk_open(struct tdisk *d, struct file *f);
/* filemap_write under i_rwsem, as a write(2) would. */
ssize_t tdisk_write(struct tdisk *d, const void *buf, size_t len, loff_t pos);
ssize_t tdisk_read(struct tdisk *d, void *buf, size_t len, loff_t pos);
bool tdisk_cached(struct tdisk *d, unsigned long index);
