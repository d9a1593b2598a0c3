/*
 * drivers/block_test.c: the block layer under load, on the boot's test
 * disk (drivers/block_testutil.h): merging of a plugged batch, 64 async
 * requests in flight completing in any order, and tasks on every hart
 * doing random-offset, random-size I/O with the data checked.
 *
 * Suites virtio_blk_queue and virtio_blk_stress (rw mode).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <drivers/block_testutil.h>
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/sched.h>
#include <kernel/wait.h>
#include <mm/kmalloc.h>

#define BATCH	      64
#define STRESS_OPS    150
#define STRESS_REGION 1024 /* sectors each task owns */
#define STRESS_BASE   8192 /* first sector of the stress regions */

struct batch {
	struct completion done;
	int left;
	int errors;
	unsigned int max_others; /* most requests still in flight at an end */
};

static void batch_end_io(struct bio *bio)
{
	struct batch *b = bio->private;
	unsigned int others = blk_inflight(bio->bdev);

	/* blk_end_request counted this one out before calling us */
	if (others > __atomic_load_n(&b->max_others, __ATOMIC_RELAXED))
		__atomic_store_n(&b->max_others, others, __ATOMIC_RELAXED);
	if (bio->status)
		__atomic_add_fetch(&b->errors, 1, __ATOMIC_RELAXED);
	if (__atomic_sub_fetch(&b->left, 1, __ATOMIC_ACQ_REL) == 0)
		complete(&b->done);
}

/* Allocate n reads of @nsect sectors each at @sectors[i] into @buf. */
static void prepare_reads(struct block_device *dev,
			  struct bio **bios,
			  const uint64_t *sectors,
			  int n,
			  uint32_t nsect,
			  uint8_t *buf,
			  struct batch *b)
{
	init_completion(&b->done);
	b->left = n;
	b->errors = 0;
	b->max_others = 0;
	for (int i = 0; i < n; i++) {
		bios[i] = bio_alloc(dev, BLK_OP_READ, sectors[i], 1);
		bio_add_buf(bios[i],
			    buf + (size_t)i * nsect * SECTOR_SIZE,
			    nsect * SECTOR_SIZE);
		bios[i]->end_io = batch_end_io;
		bios[i]->private = b;
	}
}

/* Prepare and submit them, with no preemption between the submissions (a
 * preemption would flush a plug half way). */
static void submit_reads(struct block_device *dev,
			 struct bio **bios,
			 const uint64_t *sectors,
			 int n,
			 uint32_t nsect,
			 uint8_t *buf,
			 struct batch *b)
{
	prepare_reads(dev, bios, sectors, n, nsect, buf, b);
	preempt_disable();
	for (int i = 0; i < n; i++)
		blk_submit(bios[i]);
	preempt_enable();
}

/* Eight contiguous 4 KiB reads on a plug merge into one request. A plug
 * started with no disk (@named false: mm/writeback.c's) takes the first
 * bio's. */
static void plugged_merges(struct ktest *t, bool named)
{
	struct block_device *dev = blk_test_disk(t, "rw");
	struct bio *bios[8];
	uint64_t sectors[8];
	unsigned long merges;
	struct blk_plug plug;
	struct batch b;
	uint8_t *buf;

	if (!dev)
		return;
	buf = kmalloc(8 * 4096, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, buf);
	for (int i = 0; i < 8; i++)
		sectors[i] = 200 + 8 * i;
	merges = dev->stats.merges;
	blk_start_plug(&plug, named ? dev : NULL);
	submit_reads(dev, bios, sectors, 8, 8, buf, &b);
	KTEST_EXPECT_TRUE(t, plug.dev == dev);
	blk_finish_plug(&plug);
	KTEST_ASSERT_TRUE(
	    t, wait_for_completion_timeout(&b.done, BLK_SYNC_TIMEOUT_NS));
	KTEST_EXPECT_EQ(t, b.errors, 0);
	KTEST_EXPECT_EQ(t, dev->stats.merges - merges, 7);
	blk_expect_stamps(t, buf, 200, 64);
	for (int i = 0; i < 8; i++)
		bio_free(bios[i]);
	kfree(buf);
}

static void plugged_batch_merges(struct ktest *t)
{
	plugged_merges(t, true);
}

static void plug_takes_first_disk(struct ktest *t)
{
	plugged_merges(t, false);
}

/* A task preempted with bios on its plug sends them to the disk first:
 * another task may wait for one (fsync for a page the flusher holds). */
static void preempted_plug_is_flushed(struct ktest *t)
{
	struct block_device *dev = blk_test_disk(t, "rw");
	struct bio *bios[4];
	uint64_t sectors[4];
	struct blk_plug plug;
	struct batch b;
	uint8_t *buf;
	bool held;

	if (!dev)
		return;
	buf = kmalloc(4 * 4096, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, buf);
	for (int i = 0; i < 4; i++)
		sectors[i] = 400 + 16 * i;
	prepare_reads(dev, bios, sectors, 4, 8, buf, &b);
	blk_start_plug(&plug, dev);
	preempt_disable();
	for (int i = 0; i < 4; i++)
		blk_submit(bios[i]);
	held = !list_empty(&plug.pending);
	this_cpu()->need_resched = true;
	preempt_enable(); /* preempted here: the plug is flushed */
	KTEST_EXPECT_TRUE(t, held);
	KTEST_EXPECT_TRUE(t, list_empty(&plug.pending));
	blk_finish_plug(&plug);
	KTEST_ASSERT_TRUE(
	    t, wait_for_completion_timeout(&b.done, BLK_SYNC_TIMEOUT_NS));
	KTEST_EXPECT_EQ(t, b.errors, 0);
	for (int i = 0; i < 4; i++) {
		blk_expect_stamps(t, buf + i * 4096, sectors[i], 8);
		bio_free(bios[i]);
	}
	kfree(buf);
}

/* BATCH scattered reads handed to the driver at once (the plug dispatches
 * them under one hold of the queue's lock, which completions need too): each
 * completion but the last must find others still in flight. */
static void many_in_flight(struct ktest *t)
{
	struct block_device *dev = blk_test_disk(t, "rw");
	struct bio **bios = kcalloc(BATCH, sizeof(*bios), GFP_KERNEL);
	uint8_t *buf = kmalloc(BATCH * 4096, GFP_KERNEL);
	uint64_t sectors[BATCH], seed = 0x9e3779b97f4a7c15ULL;
	struct blk_plug plug;
	struct batch b;

	if (!dev)
		return;
	KTEST_ASSERT_TRUE(t, bios && buf);
	for (int i = 0; i < BATCH; i++) /* scattered: no merging */
		sectors[i] = (blk_test_rand(&seed) % (STRESS_BASE / 16)) * 16;
	blk_start_plug(&plug, dev);
	submit_reads(dev, bios, sectors, BATCH, 8, buf, &b);
	blk_finish_plug(&plug);
	KTEST_ASSERT_TRUE(
	    t, wait_for_completion_timeout(&b.done, BLK_SYNC_TIMEOUT_NS));
	KTEST_EXPECT_EQ(t, b.errors, 0);
	ktest_log(
	    t, "at most %u others in flight at a completion", b.max_others);
	KTEST_EXPECT_GE(t, b.max_others, BATCH / 2);
	for (int i = 0; i < BATCH; i++) {
		if (!blk_expect_stamps(t, buf + i * 4096, sectors[i], 8))
			break;
		bio_free(bios[i]);
	}
	kfree(buf);
	kfree(bios);
}

static struct ktest_case queue_cases[] = { KTEST_CASE(plugged_batch_merges),
					   KTEST_CASE(plug_takes_first_disk),
					   KTEST_CASE(
					       preempted_plug_is_flushed),
					   KTEST_CASE(many_in_flight),
					   {} };
KTEST_SUITE(virtio_blk_queue, queue_cases);

struct stress_arg {
	struct block_device *dev;
	unsigned int id;
	int failures;
	struct ktest_overlap *busy; /* tasks doing I/O at once */
	unsigned int ntasks;
};

/* Write a random extent of our region with a tagged stamp, read a random
 * extent back and check it against what we wrote or the original image. */
static int
stress_one(struct stress_arg *a, uint8_t *buf, uint8_t *written, uint64_t *seed)
{
	uint64_t base = STRESS_BASE + (uint64_t)a->id * STRESS_REGION;
	uint32_t n = 1 + blk_test_rand(seed) % 64;
	uint32_t off = blk_test_rand(seed) % (STRESS_REGION - n);
	uint32_t tag = a->id + 1;

	if (blk_test_rand(seed) & 1) {
		for (uint32_t i = 0; i < n; i++)
			blk_stamp_sector(
			    buf + i * SECTOR_SIZE, base + off + i, tag);
		if (blk_write_sync(a->dev, base + off, buf, n))
			return -EIO;
		memset(written + off, 1, n);
		return 0;
	}
	if (blk_read_sync(a->dev, base + off, buf, n))
		return -EIO;
	for (uint32_t i = 0; i < n; i++)
		if (!blk_stamp_ok(buf + i * SECTOR_SIZE,
				  base + off + i,
				  written[off + i] ? tag : 0))
			return -EBADMSG;
	return 0;
}

static int stress_task(void *p)
{
	struct stress_arg *a = p;
	uint8_t *buf = kmalloc(64 * SECTOR_SIZE, GFP_KERNEL);
	uint8_t *written = kzalloc(STRESS_REGION, GFP_KERNEL);
	uint64_t seed = 0x1234567ULL * (a->id + 1);

	if (!buf || !written)
		return -ENOMEM;
	ktest_overlap_enter_all(a->busy, a->ntasks);
	for (int i = 0; i < STRESS_OPS; i++)
		if (stress_one(a, buf, written, &seed))
			a->failures++;
	ktest_overlap_exit(a->busy);
	kfree(buf);
	kfree(written);
	return 0;
}

static void all_harts_random_io(struct ktest *t)
{
	struct block_device *dev = blk_test_disk(t, "rw");
	unsigned int ntasks = 2 * ncpus;
	struct stress_arg args[2 * MAX_CPUS];
	struct task *tasks[2 * MAX_CPUS];
	struct ktest_overlap busy = { 0, 0 };

	if (!dev)
		return;
	KTEST_ASSERT_LE(
	    t, STRESS_BASE + ntasks * STRESS_REGION, dev->nr_sectors);
	for (unsigned int i = 0; i < ntasks; i++) {
		char name[16];
		args[i] = (struct stress_arg){
			.dev = dev, .id = i, .busy = &busy, .ntasks = ntasks
		};
		snprintf(name, sizeof(name), "blkstress%u", i);
		tasks[i] = task_create_on(
		    name, stress_task, &args[i], (int)(i % ncpus));
		KTEST_ASSERT_FALSE(t, IS_ERR(tasks[i]));
	}
	for (unsigned int i = 0; i < ntasks; i++) {
		KTEST_EXPECT_EQ(t, task_join(tasks[i]), 0);
		KTEST_EXPECT_EQ(t, args[i].failures, 0);
	}
	KTEST_EXPECT_EQ(t, busy.max, ntasks); /* all doing I/O together */
	ktest_log(t,
		  "%u tasks x %d ops on %u harts, %lu merges, %u in flight now",
		  ntasks,
		  STRESS_OPS,
		  ncpus,
		  dev->stats.merges,
		  blk_inflight(dev));
}

static struct ktest_case stress_cases[] = { KTEST_CASE(all_harts_random_io),
					    {} };
KTEST_SUITE(virtio_blk_stress, stress_cases);
