/*
 * drivers/block_bench.c: raw device I/O for the benchmarks (see
 * drivers/block_bench.h): @nios requests kept @depth in flight, completed
 * in interrupt context. Its users are programs (app/block_shell.c's
 * `bench blk`, app/bench_io.c, app/bench_file.c); suite blk_sync
 * (drivers/block_sync_test.c) holds its completion at RACE_BLK_BENCH_WAKE.
 *
 * Locking: none of its own; a run's counters are atomics shared with its
 * completion callback, and the count and wake-up are under the run's wait
 * queue lock (bench_end_io).
 */
#include <drivers/bench_rand.h>
#include <drivers/block.h>
#include <drivers/block_bench.h>
#include <kernel/race.h>
#include <kernel/time.h>
#include <kernel/wait.h>

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
