/*
 * drivers/block_sync_test.c: suite blk_sync - synchronous I/O against a
 * fake disk that holds requests until the test completes them, playing
 * the device: a late "DMA" writes the request's memory, then ends it.
 *
 * Rule (drivers/block.h): after blk_read_sync returns -ETIMEDOUT the
 * caller's buffer is the caller's; a device that answers late must not
 * write into it. The test times a read out, reuses the buffer, then lets
 * the device write and complete the request: the buffer must keep what
 * the caller put there. Before sync I/O bounced its data, the late write
 * landed in the caller's buffer. The same for a driver command and a
 * flush, whose bios are freed by their late completion.
 *
 * Also: the driver's commit (its doorbell) is called once per dispatch that
 * gave it requests, never while the queue's lock is held; bio_add_buf
 * merges adjacent buffers into one vector.
 */
#include <errno.h>
#include <string.h>
#include <drivers/block.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/sched.h>
#include <kernel/time.h>
#include <mm/kmalloc.h>

#define FAKE_SECTORS 1024
#define NSECT	     8
#define BYTES	     (NSECT * SECTOR_SIZE)
#define MAX_HELD     8

struct fake_disk {
	struct block_device bdev;
	struct bio *held[MAX_HELD]; /* under bdev.hwq[0].lock (one queue) */
	unsigned int nheld;
	/* commit_ops: calls of commit, and of them made under the queue lock */
	unsigned int commits, commits_locked, held_at_commit;
};

/* Called under the queue's lock: keep the request, answer nothing. */
static int fake_queue_rq(struct block_device *dev, struct bio *rq)
{
	struct fake_disk *d = dev->driver;

	if (d->nheld == MAX_HELD)
		return -EBUSY;
	d->held[d->nheld++] = rq;
	return 0;
}

static const struct block_ops fake_ops = { .queue_rq = fake_queue_rq };

static void fake_commit(struct block_device *dev, unsigned int hwq)
{
	struct fake_disk *d = dev->driver;

	d->commits++;
	d->commits_locked += spin_lock_held(&dev->hwq[hwq].lock);
	d->held_at_commit = READ_ONCE(d->nheld);
}

static const struct block_ops commit_ops = { .queue_rq = fake_queue_rq,
					     .commit = fake_commit };

static void fake_init(struct fake_disk *d)
{
	*d = (struct fake_disk){ 0 };
	strcpy(d->bdev.name, "fake");
	d->bdev.nr_sectors = FAKE_SECTORS;
	d->bdev.limits = (struct blk_limits){ .logical_block_size = 512,
					      .max_segments = 4,
					      .max_segment_size = 4096,
					      .max_sectors = 64 };
	d->bdev.ops = &fake_ops;
	d->bdev.driver = d;
	d->bdev.sync_timeout_ns = 20 * NSEC_PER_MSEC;
	blk_init_queue(&d->bdev);
}

/* The device writes @byte into every held read and completes it. */
static unsigned int fake_complete(struct fake_disk *d, uint8_t byte)
{
	struct bio *rq[MAX_HELD];
	unsigned long flags = spin_lock_irqsave(&d->bdev.hwq[0].lock);
	unsigned int n = d->nheld;

	memcpy(rq, d->held, sizeof(rq));
	d->nheld = 0;
	spin_unlock_irqrestore(&d->bdev.hwq[0].lock, flags);
	for (unsigned int i = 0; i < n; i++) {
		for (struct bio *b = rq[i]; b; b = b->rq_next)
			for (unsigned int v = 0; v < b->vcnt; v++)
				if (b->op == BLK_OP_READ ||
				    b->op == BLK_OP_DRV_IN)
					memset(b->vecs[v].addr,
					       byte,
					       b->vecs[v].len);
		blk_end_request(rq[i], 0);
	}
	return n;
}

static bool all_bytes(const uint8_t *p, size_t n, uint8_t byte)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != byte)
			return false;
	return true;
}

static void late_dma_after_timeout(struct ktest *t)
{
	struct fake_disk d;
	uint8_t *buf = kmalloc(BYTES, GFP_KERNEL);

	KTEST_ASSERT_NOT_NULL(t, buf);
	fake_init(&d);
	memset(buf, 0x11, BYTES);
	KTEST_EXPECT_EQ(t, blk_read_sync(&d.bdev, 0, buf, NSECT), -ETIMEDOUT);
	memset(buf, 0x22, BYTES); /* the caller reuses its buffer */
	KTEST_EXPECT_GE(t, fake_complete(&d, 0xee), 1);
	KTEST_EXPECT_TRUE(t, all_bytes(buf, BYTES, 0x22));
	kfree(buf);
}

/* The same for a driver command and a flush, which are not sector
 * ranges: the late answer must not reach the caller's buffer either. */
static void late_command_after_timeout(struct ktest *t)
{
	struct fake_disk d;
	uint8_t *buf = kmalloc(SECTOR_SIZE, GFP_KERNEL);

	KTEST_ASSERT_NOT_NULL(t, buf);
	fake_init(&d);
	d.bdev.flush = true;
	KTEST_EXPECT_EQ(
	    t, blk_drv_in_sync(&d.bdev, 8, buf, SECTOR_SIZE), -ETIMEDOUT);
	KTEST_EXPECT_EQ(t, blk_flush(&d.bdev), -ETIMEDOUT);
	memset(buf, 0x22, SECTOR_SIZE);
	KTEST_EXPECT_EQ(t, fake_complete(&d, 0xee), 2);
	KTEST_EXPECT_TRUE(t, all_bytes(buf, SECTOR_SIZE, 0x22));
	kfree(buf);
}

struct answer {
	struct fake_disk *d;
	unsigned int completed;
};

static int device_answers(void *arg)
{
	struct answer *a = arg;
	uint64_t end = time_ns() + 5 * NSEC_PER_SEC;

	while (!a->completed && time_ns() < end) {
		task_sleep_ms(1);
		a->completed = fake_complete(a->d, 0xab);
	}
	return 0;
}

/* In time, the data reaches the caller's buffer through the bounce. */
static void answer_in_time(struct ktest *t)
{
	struct fake_disk d;
	struct answer a = { .d = &d };
	uint8_t *buf = kzalloc(BYTES, GFP_KERNEL);
	struct task *dev;

	KTEST_ASSERT_NOT_NULL(t, buf);
	fake_init(&d);
	d.bdev.sync_timeout_ns = 5 * NSEC_PER_SEC;
	dev = task_create("fakedev", device_answers, &a);
	KTEST_ASSERT_FALSE(t, IS_ERR(dev));
	KTEST_EXPECT_EQ(t, blk_read_sync(&d.bdev, 8, buf, NSECT), 0);
	KTEST_EXPECT_EQ(t, task_join(dev), 0);
	KTEST_EXPECT_TRUE(t, all_bytes(buf, BYTES, 0xab));
	KTEST_EXPECT_EQ(
	    t, blk_read_sync(&d.bdev, 0, (void *)0x1000, 1), -EINVAL);
	kfree(buf);
}

static struct bio *fake_bio(struct fake_disk *d, uint64_t sector, void *buf)
{
	struct bio *bio = bio_alloc(&d->bdev, BLK_OP_READ, sector, 1);

	if (bio && bio_add_buf(bio, buf, SECTOR_SIZE)) {
		bio_free(bio);
		return NULL;
	}
	if (bio)
		bio->end_io = bio_free;
	return bio;
}

/* One commit per dispatch that gave the driver requests - after each
 * submission, after a plug's batch, after a completion that let a waiting
 * request in - each with the queue's lock released; none when the driver was
 * busy and took nothing. */
/* bio_add_buf: a buffer adjacent to the last one extends its vector, up
 * to max_vecs pages in all; one elsewhere takes a new vector; -ENOSPC when
 * none is left. */
static void adjacent_buffers_merge(struct ktest *t)
{
	char *buf = kmalloc(8 * PAGE_SIZE, GFP_KERNEL);
	struct bio *bio = bio_alloc(NULL, BLK_OP_READ, 0, 2);

	KTEST_ASSERT_NOT_NULL(t, buf);
	KTEST_ASSERT_NOT_NULL(t, bio);
	KTEST_EXPECT_EQ(t, bio_add_buf(bio, buf, 1024), 0);
	KTEST_EXPECT_EQ(t, bio_add_buf(bio, buf + 1024, 3072), 0);
	KTEST_EXPECT_EQ(t, bio_add_buf(bio, buf + PAGE_SIZE, PAGE_SIZE), 0);
	KTEST_EXPECT_EQ(t, bio->vcnt, 1u);
	KTEST_EXPECT_EQ(t, bio->vecs[0].len, 2 * PAGE_SIZE);
	/* two pages for two vectors: the third adjacent page takes the
	 * second vector, the fourth finds none */
	KTEST_EXPECT_EQ(t, bio_add_buf(bio, buf + 2 * PAGE_SIZE, PAGE_SIZE), 0);
	KTEST_EXPECT_EQ(t, bio->vcnt, 2u);
	KTEST_EXPECT_EQ(
	    t, bio_add_buf(bio, buf + 3 * PAGE_SIZE, PAGE_SIZE), -ENOSPC);
	KTEST_EXPECT_EQ(t, bio->size, 3 * PAGE_SIZE);
	bio_free(bio);
	/* not adjacent: a vector each */
	bio = bio_alloc(NULL, BLK_OP_READ, 0, 4);
	KTEST_ASSERT_NOT_NULL(t, bio);
	KTEST_EXPECT_EQ(t, bio_add_buf(bio, buf + 2 * PAGE_SIZE, PAGE_SIZE), 0);
	KTEST_EXPECT_EQ(t, bio_add_buf(bio, buf, PAGE_SIZE), 0);
	KTEST_EXPECT_EQ(t, bio_add_buf(bio, buf + 4 * PAGE_SIZE, 512), 0);
	KTEST_EXPECT_EQ(t, bio->vcnt, 3u);
	KTEST_EXPECT_EQ(t, bio->size, 2 * PAGE_SIZE + 512);
	bio_free(bio);
	kfree(buf);
}

static void commit_after_unlock(struct ktest *t)
{
	struct fake_disk d;
	uint8_t *buf = kmalloc(MAX_HELD * SECTOR_SIZE, GFP_KERNEL);
	struct blk_plug plug;
	struct bio *bio;

	KTEST_ASSERT_NOT_NULL(t, buf);
	fake_init(&d);
	d.bdev.ops = &commit_ops;
	for (int i = 0; i < 3; i++) {
		bio = fake_bio(&d, 100 * i, buf + i * SECTOR_SIZE);
		KTEST_ASSERT_NOT_NULL(t, bio);
		blk_submit(bio);
		KTEST_EXPECT_EQ(t, d.commits, i + 1);
		KTEST_EXPECT_EQ(t, d.held_at_commit, i + 1);
	}
	blk_start_plug(&plug, &d.bdev);
	for (int i = 3; i < MAX_HELD; i++) {
		bio = fake_bio(&d, 100 * i, buf + i * SECTOR_SIZE);
		KTEST_ASSERT_NOT_NULL(t, bio);
		blk_submit(bio);
	}
	KTEST_EXPECT_EQ(t, d.commits, 3); /* held on the plug */
	blk_finish_plug(&plug);
	KTEST_EXPECT_EQ(t, d.commits, 4);
	KTEST_EXPECT_EQ(t, d.held_at_commit, MAX_HELD);
	bio = fake_bio(&d, 900, buf); /* the driver is full: -EBUSY */
	KTEST_ASSERT_NOT_NULL(t, bio);
	blk_submit(bio);
	KTEST_EXPECT_EQ(t, d.commits, 4);
	KTEST_EXPECT_EQ(t, fake_complete(&d, 0x33), MAX_HELD);
	KTEST_EXPECT_EQ(t, d.commits, 5); /* a completion let it in */
	KTEST_EXPECT_EQ(t, d.held_at_commit, 1);
	KTEST_EXPECT_EQ(t, fake_complete(&d, 0x33), 1);
	KTEST_EXPECT_EQ(t, d.commits_locked, 0);
	kfree(buf);
}

static struct ktest_case sync_cases[] = {
	KTEST_CASE(commit_after_unlock),
	KTEST_CASE(adjacent_buffers_merge),
	KTEST_CASE(late_dma_after_timeout),
	KTEST_CASE(late_command_after_timeout),
	KTEST_CASE(answer_in_time),
	{},
};
KTEST_SUITE(blk_sync, sync_cases);
