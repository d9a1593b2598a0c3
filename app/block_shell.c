/*
 * app/block_shell.c: shell commands for disks.
 *
 *   disks             list disks: capacity, block size, limits, features,
 *                     and the driver's own lines (virtio-blk: watchdog)
 *   bench blk [vdX]   sequential read/write MB/s at queue depth 1 and 32,
 *                     4 KiB random-read IOPS at depth 1 and 32 (rdtime).
 *                     It WRITES over the first 64 MiB of the disk.
 *
 * Locking: none of its own; a benchmark's counters are atomics shared with
 * its completion callback, which runs in interrupt context.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <drivers/bench_rand.h>
#include <drivers/block.h>
#include <drivers/block_bench.h>
#include <kernel/race.h>
#include <kernel/shell.h>
#include <kernel/time.h>
#include <kernel/wait.h>
#include <mm/kmalloc.h>

#define BENCH_BYTES	(64u << 20)
#define BENCH_SEQ_IO	(128u << 10)
#define BENCH_RAND_IOS	4000u
#define BENCH_MAX_DEPTH 32

static int disks_cmd(int argc, char **argv)
{
	struct block_device *dev;

	if (argc > 1)
		return shell_usage(argv[0]);
	for (unsigned int i = 0; (dev = blkdev_nth(i)); i++) {
		printf("%s: %llu sectors (%llu MiB), block %u, max %u segs x "
		       "%u B, "
		       "%u sectors/request, features %s\n",
		       dev->name,
		       (unsigned long long)dev->nr_sectors,
		       (unsigned long long)(dev->nr_sectors >> 11),
		       dev->limits.logical_block_size,
		       dev->limits.max_segments,
		       dev->limits.max_segment_size,
		       dev->limits.max_sectors,
		       dev->features ? dev->features : "-");
		if (dev->ops->show)
			dev->ops->show(dev);
	}
	if (!blkdev_nth(0))
		printf("no disks\n");
	return 0;
}
SHELL_COMMAND(disks, disks_cmd, "disks", "list block devices");

/*
 * @b lives on the waiter's stack (blk_bench). The count and the wake-up
 * are under the queue's lock, whose unlock is the last touch of @b: a
 * waiter that sees the count takes that lock in finish_wait before it
 * returns, so its frame cannot go while this still holds the lock.
 */
static void bench_end_io(struct bio *bio)
{
	struct bench *b = bio->private;
	unsigned long flags;

	if (bio->status)
		__atomic_add_fetch(&b->errors, 1, __ATOMIC_RELAXED);
	bio_free(bio);
	flags = spin_lock_irqsave(&b->wq.lock);
	__atomic_sub_fetch(&b->inflight, 1, __ATOMIC_ACQ_REL);
	race_point(RACE_BLK_BENCH_WAKE, b);
	wake_up_all_locked(&b->wq);
	spin_unlock_irqrestore(&b->wq.lock, flags);
}

static bool bench_wait_below(struct bench *b, int depth)
{
	return wait_event_timeout(
	    &b->wq, READ_ONCE(b->inflight) < depth, BLK_SYNC_TIMEOUT_NS);
}

/*
 * @nios I/Os of @size bytes, at most @depth in flight; random offsets if
 * @seed, else sequential from 0. Return: elapsed ns, 0 on failure.
 *
 * Each wake-up submits all the completions left room for under one plug,
 * so they reach the disk together (one doorbell), as Linux's figure
 * submits them: one io_uring_enter, under the plug io_uring takes
 * (tools/linuxbench.c). The plug is sent before every wait.
 */
static uint64_t bench_run(struct bench *b,
			  enum blk_op op,
			  uint8_t *buf,
			  uint32_t size,
			  unsigned int nios,
			  int depth,
			  uint64_t seed)
{
	uint64_t disk_bytes = b->dev->nr_sectors << SECTOR_SHIFT;
	uint64_t t0 = time_ns();
	struct blk_plug plug;
	bool ok = true;

	b->errors = 0;
	blk_start_plug(&plug, b->dev);
	for (unsigned int i = 0; i < nios && ok; i++) {
		uint64_t sector = (uint64_t)i * (size >> SECTOR_SHIFT);
		struct bio *bio;

		if (seed) /* the same blocks as Linux's (tools/linuxbench.c) */
			sector = bench_rand_offset(&seed, disk_bytes) >>
				 SECTOR_SHIFT;
		if (READ_ONCE(b->inflight) >= depth) {
			blk_finish_plug(&plug);
			ok = bench_wait_below(b, depth);
			blk_start_plug(&plug, b->dev);
		}
		if (!ok || !(bio = bio_alloc(b->dev, op, sector, 1))) {
			ok = false;
			break;
		}
		bio_add_buf(bio, buf + (size_t)(i % depth) * size, size);
		bio->end_io = bench_end_io;
		bio->private = b;
		__atomic_add_fetch(&b->inflight, 1, __ATOMIC_ACQ_REL);
		blk_submit(bio);
	}
	blk_finish_plug(&plug);
	if (!bench_wait_below(b, 1) || b->errors || !ok)
		return 0;
	return MAX(time_ns() - t0, 1);
}

static void bench_report(
    const char *what, int depth, uint64_t ns, uint64_t bytes, unsigned int nios)
{
	if (!ns) {
		printf("  %-10s qd%-2d  failed\n", what, depth);
		return;
	}
	printf("  %-10s qd%-2d  %6llu MB/s  %7llu IOPS  (%llu ms)\n",
	       what,
	       depth,
	       (unsigned long long)(bytes * 1000 / ns),
	       (unsigned long long)(nios * NSEC_PER_SEC / ns),
	       (unsigned long long)(ns / NSEC_PER_MSEC));
}

static int bench_blk(struct block_device *dev)
{
	struct bench b = { .dev = dev };
	uint64_t bytes = MIN(BENCH_BYTES, dev->nr_sectors << SECTOR_SHIFT);
	unsigned int seq = (unsigned int)(bytes / BENCH_SEQ_IO);
	uint8_t *buf = kmalloc(BENCH_MAX_DEPTH * BENCH_SEQ_IO, GFP_KERNEL);
	static const int depths[] = { 1, 32 };

	if (!buf || !seq)
		return 1;
	wait_queue_init(&b.wq);
	printf("bench blk %s: %llu MiB sequential in %u KiB requests, %u "
	       "random 4 KiB reads\n",
	       dev->name,
	       (unsigned long long)(bytes >> 20),
	       BENCH_SEQ_IO >> 10,
	       BENCH_RAND_IOS);
	for (size_t d = 0; d < ARRAY_SIZE(depths); d++) {
		uint64_t ns = bench_run(
		    &b, BLK_OP_READ, buf, BENCH_SEQ_IO, seq, depths[d], 0);
		bench_report("seq read", depths[d], ns, bytes, seq);
		if (!dev->read_only) {
			ns = bench_run(&b,
				       BLK_OP_WRITE,
				       buf,
				       BENCH_SEQ_IO,
				       seq,
				       depths[d],
				       0);
			bench_report("seq write", depths[d], ns, bytes, seq);
		}
		ns = bench_run(&b,
			       BLK_OP_READ,
			       buf,
			       4096,
			       BENCH_RAND_IOS,
			       depths[d],
			       0x9e3779b97f4a7c15ULL);
		bench_report("rand read",
			     depths[d],
			     ns,
			     4096ULL * BENCH_RAND_IOS,
			     BENCH_RAND_IOS);
	}
	kfree(buf);
	return 0;
}

uint64_t blk_bench(struct block_device *dev,
		   enum blk_op op,
		   uint8_t *buf,
		   uint32_t size,
		   unsigned int nios,
		   int depth,
		   uint64_t seed)
{
	struct bench b = { .dev = dev };

	wait_queue_init(&b.wq);
	return bench_run(&b, op, buf, size, nios, depth, seed);
}

/* argv[0] is "blk" (kernel/shell.h's SHELL_BENCH). */
static int bench_blk_cmd(int argc, char **argv)
{
	struct block_device *dev;

	if (argc > 2)
		return shell_bench_usage(argv[0]);
	dev = argc > 1 ? blkdev_get(argv[1]) : blkdev_nth(0);
	if (!dev) {
		printf("bench: no such disk\n");
		return 1;
	}
	return bench_blk(dev);
}
SHELL_BENCH(blk, bench_blk_cmd, "blk [vdX]  (overwrites the first 64 MiB)");
