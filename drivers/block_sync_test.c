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
 * merges adjacent buffers into one vector; blk_bench (drivers/
 * block_bench.c), whose bench lives on its stack, returns only once its
 * last completion is done with it.
 */
#include <errno.h>
#include <string.h>
#include <drivers/block.h>
#include <drivers/block_bench.h>
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/race.h>
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

static bool read_held(void *arg)
{
	struct fake_disk *d = arg;
	unsigned long flags = spin_lock_irqsave(&d->bdev.hwq[0].lock);
	unsigned int held = d->nheld;

	spin_unlock_irqrestore(&d->bdev.hwq[0].lock, flags);
	return held > 0;
}

/* Answer the read once it is here (not polled every 1 ms for 5 s). */
static int device_answers(void *arg)
{
	struct answer *a = arg;

	if (!race_wait_until(read_held, a->d))
		a->completed = fake_complete(a->d, 0xab);
	return 0;
}

/* In time, the data reaches the caller's buffer through the bounce (the
 * time the caller waits, RACE_TIMEOUT_MS, is for a broken run only: a
 * busy host may not run the device task for seconds). */
static void answer_in_time(struct ktest *t)
{
	struct fake_disk d;
	struct answer a = { .d = &d };
	uint8_t *buf = kzalloc(BYTES, GFP_KERNEL);
	struct task *dev;

	KTEST_ASSERT_NOT_NULL(t, buf);
	fake_init(&d);
	d.bdev.sync_timeout_ns = RACE_TIMEOUT_MS * NSEC_PER_MSEC;
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

/* ---- blk_bench's bench, on its caller's stack ---- */

#define WAITER_HART 1
#define DEVICE_HART 0

struct bench_race {
	struct fake_disk *d;
	void *buf;
	struct task *waiter;
	int armed;     /* atomic: the next completion is held */
	int held_on;   /* the hart it was held on */
	bool at_lock;  /* the woken waiter came for the bench's lock */
	bool returned; /* atomic: blk_bench returned */
	bool returned_in_end_io; /* the bug: its bench gone meanwhile */
};

static struct bench_race *bench_race;

static bool bench_returned(struct bench_race *r)
{
	return __atomic_load_n(&r->returned, __ATOMIC_ACQUIRE);
}

/*
 * At RACE_BLK_BENCH_WAKE (count dropped, waiter not woken; the bench's
 * lock held), on DEVICE_HART: wake the waiter, asleep on its own hart,
 * and hold the completion until the waiter has come for the bench's lock
 * (it wants it to see the count, and again before it returns) or has
 * returned - the bug, had the count been dropped outside the lock. The
 * wait ends at one of the two, not after a time (RACE_TIMEOUT_MS only
 * bounds a broken run).
 */
static void hold_in_bench_end_io(void *obj)
{
	struct bench_race *r = bench_race;
	struct bench *b = obj;
	uint64_t end = time_ns() + RACE_TIMEOUT_MS * NSEC_PER_MSEC;
	bool locked;

	if (!r || !__atomic_exchange_n(&r->armed, 0, __ATOMIC_ACQ_REL))
		return;
	r->held_on = (int)cpu_id();
	locked = spin_lock_held(&b->wq.lock);
	if (locked) /* the waiter sleeps: it is not spinning on it yet */
		spin_lock_mark(&b->wq.lock);
	wake_up_task(r->waiter);
	while (!bench_returned(r) &&
	       !(locked && spin_lock_wanted(&b->wq.lock)) && time_ns() < end)
		arch_cpu_relax();
	r->at_lock = locked && spin_lock_wanted(&b->wq.lock);
	r->returned_in_end_io = bench_returned(r);
}

static int bench_waiter(void *arg)
{
	struct bench_race *r = arg;
	uint64_t ns =
	    blk_bench(&r->d->bdev, BLK_OP_READ, r->buf, 4096, 1, 1, 0);

	__atomic_store_n(&r->returned, true, __ATOMIC_RELEASE);
	return ns ? 0 : -EIO;
}

/* The read is with the device and blk_bench waits for it, asleep. */
static bool bench_waits(void *arg)
{
	struct bench_race *r = arg;
	unsigned long flags = spin_lock_irqsave(&r->d->bdev.hwq[0].lock);
	unsigned int held = r->d->nheld;

	spin_unlock_irqrestore(&r->d->bdev.hwq[0].lock, flags);
	return held == 1 && READ_ONCE(r->waiter->state) == TASK_SLEEPING &&
	       !READ_ONCE(r->waiter->on_cpu);
}

/* The device: once blk_bench sleeps on its read, complete the read, with
 * interrupts off as a device's interrupt would, on this hart. */
static int bench_device(void *arg)
{
	struct bench_race *r = arg;
	unsigned long flags;
	unsigned int n;

	if (race_wait_until(bench_waits, r))
		return -ETIMEDOUT;
	__atomic_store_n(&r->armed, 1, __ATOMIC_RELEASE);
	flags = arch_irq_save();
	n = fake_complete(r->d, 0x5a);
	arch_irq_restore(flags);
	return n == 1 ? 0 : -EIO;
}

/*
 * One read through blk_bench from a task on WAITER_HART; the fake device
 * completes it on DEVICE_HART once blk_bench sleeps, and the completion
 * is held between counting the read done and waking the waiter, while
 * the waiter, woken, runs: when blk_bench returns, the completion is done
 * with the bench on its stack. Before, the test waited for the disk's
 * interrupt and held it only if it came to another hart than the
 * waiter's, trying up to 20 reads: the interrupt goes to whichever hart
 * claims it first, and on a busy host that was the waiter's 21 times in a
 * row. And it waited 50 ms for the waiter to return, whose hart a busy
 * host may not run that long.
 */
static void bench_outlives_end_io(struct ktest *t)
{
	struct fake_disk d;
	struct bench_race r = { .d = &d, .held_on = -1 };
	struct task *dev;

	KTEST_ASSERT_GE(t, ncpus, 2);
	fake_init(&d);
	r.buf = kmalloc(4096, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, r.buf);
	bench_race = &r;
	race_hook_set(RACE_BLK_BENCH_WAKE, hold_in_bench_end_io);
	r.waiter = task_create_on("bwaiter", bench_waiter, &r, WAITER_HART);
	KTEST_ASSERT_FALSE(t, IS_ERR(r.waiter));
	dev = task_create_on("bdevice", bench_device, &r, DEVICE_HART);
	KTEST_ASSERT_FALSE(t, IS_ERR(dev));
	/* The waiter first: had it returned early, its stack goes now, and
	 * the device's completion faults on the bench it still uses. */
	KTEST_EXPECT_EQ(t, task_join(r.waiter), 0);
	KTEST_EXPECT_EQ(t, task_join(dev), 0);
	race_hook_set(RACE_BLK_BENCH_WAKE, NULL);
	bench_race = NULL;
	KTEST_EXPECT_EQ(t, r.held_on, DEVICE_HART);
	KTEST_EXPECT_TRUE(t, r.at_lock || r.returned_in_end_io);
	KTEST_EXPECT_FALSE(t, r.returned_in_end_io);
	KTEST_EXPECT_TRUE(t, all_bytes(r.buf, 4096, 0x5a));
	kfree(r.buf);
}

static struct ktest_case sync_cases[] = {
	KTEST_CASE(commit_after_unlock),
	KTEST_CASE(adjacent_buffers_merge),
	KTEST_CASE(late_dma_after_timeout),
	KTEST_CASE(late_command_after_timeout),
	KTEST_CASE(answer_in_time),
	KTEST_CASE(bench_outlives_end_io),
	{},
};
KTEST_SUITE(blk_sync, sync_cases);
