/*
 * drivers/virtio_blk_test.c: virtio-blk against a stamped image
 * (tools/mkblkimg.py), under whichever transport the boot chose.
 *
 * Suites: virtio_blk_read (any mode), virtio_blk_write (rw),
 * virtio_blk_ro (ro), virtio_blk_errors (errors: blkdebug fails reads of
 * sector VBLK_BAD_READ and writes of VBLK_BAD_WRITE, see tools/boots.py).
 */
#include <errno.h>
#include <string.h>
#include <drivers/block_testutil.h>
#include <drivers/virtio_blk.h>
#include <kernel/ktest.h>
#include <mm/kmalloc.h>

#define CHUNK_SECTORS  128
#define VBLK_BAD_READ  1000
#define VBLK_BAD_WRITE 3000

static void *buf_alloc(struct ktest *t, uint32_t nsect)
{
	void *b = kzalloc((size_t)nsect * SECTOR_SIZE, GFP_KERNEL);

	KTEST_ASSERT_NOT_NULL(t, b);
	return b;
}

static void read_every_sector(struct ktest *t)
{
	struct block_device *dev = blk_test_disk(t, NULL);
	void *buf;

	if (!dev)
		return;
	buf = buf_alloc(t, CHUNK_SECTORS);
	for (uint64_t s = 0; s < dev->nr_sectors; s += CHUNK_SECTORS) {
		uint32_t n = (uint32_t)MIN(CHUNK_SECTORS, dev->nr_sectors - s);
		KTEST_ASSERT_EQ(t, blk_read_sync(dev, s, buf, n), 0);
		if (!blk_expect_stamps(t, buf, s, n))
			break;
	}
	kfree(buf);
}

static void get_id(struct ktest *t)
{
	struct block_device *dev = blk_test_disk(t, NULL);
	char id[VIRTIO_BLK_ID_BYTES + 1];

	if (!dev)
		return;
	KTEST_EXPECT_EQ(t, virtio_blk_get_id(dev, id), 0);
	KTEST_EXPECT_STREQ(t, id, "whole-test-disk");
}

static void unsupported_request_fails_alone(struct ktest *t)
{
	struct block_device *dev = blk_test_disk(t, NULL);
	void *buf;

	if (!dev)
		return;
	buf = buf_alloc(t, 8);
	KTEST_EXPECT_EQ(
	    t, virtio_blk_drv_in(dev, 0x7777, buf, SECTOR_SIZE), -EOPNOTSUPP);
	KTEST_EXPECT_EQ(t, blk_read_sync(dev, 8, buf, 8), 0);
	blk_expect_stamps(t, buf, 8, 8);
	kfree(buf);
}

static void bad_requests_refused(struct ktest *t)
{
	struct block_device *dev = blk_test_disk(t, NULL);
	void *buf;

	if (!dev)
		return;
	buf = buf_alloc(t, 2);
	KTEST_EXPECT_EQ(
	    t, blk_read_sync(dev, dev->nr_sectors, buf, 1), -EINVAL);
	KTEST_EXPECT_EQ(
	    t, blk_read_sync(dev, dev->nr_sectors - 1, buf, 2), -EINVAL);
	KTEST_EXPECT_EQ(t, blk_read_sync(dev, 0, buf, 0), -EINVAL);
	KTEST_EXPECT_EQ(
	    t, blk_read_sync(dev, 0, (void *)0x1000, 1), -EINVAL); /* not RAM */
	KTEST_EXPECT_EQ(t, blk_read_sync(dev, dev->nr_sectors - 1, buf, 1), 0);
	blk_expect_stamps(t, buf, dev->nr_sectors - 1, 1);
	kfree(buf);
}

/* The watchdog's rule (virtblk_watch_lost), tick by tick: a batch used
 * just before a tick, after a quiet period, is not lost; the same batch
 * still untaken one period later is; a moved last_used or a running
 * interrupt handler means the completions are being taken. */
static void watchdog_waits_a_whole_period(struct ktest *t)
{
	struct virtblk_watch w = { .last_used = 7, .waiting = false };

	/* Nothing taken for a period, then a batch lands just before the
	 * tick: only now waiting, so not late. */
	KTEST_EXPECT_FALSE(t, virtblk_watch_lost(&w, 7, true, false));
	w.waiting = true;
	/* Still waiting a period later, none taken: lost. */
	KTEST_EXPECT_TRUE(t, virtblk_watch_lost(&w, 7, true, false));
	/* ... unless the handler is collecting them right now, */
	KTEST_EXPECT_FALSE(t, virtblk_watch_lost(&w, 7, true, true));
	/* or completions were taken since the previous tick, */
	KTEST_EXPECT_FALSE(t, virtblk_watch_lost(&w, 9, true, false));
	/* or nothing is waiting any more. */
	KTEST_EXPECT_FALSE(t, virtblk_watch_lost(&w, 7, false, false));
}

/* The notify side (virtblk_watch_stalled): nothing moving for
 * VIRTBLK_STALL_TICKS ticks with requests in flight is a stall; a used or
 * an added buffer, or an empty queue, starts the count again. */
static void watchdog_stall_rule(struct ktest *t)
{
	struct virtblk_watch w = { .last_used = 7, .avail_idx = 9 };

	KTEST_EXPECT_FALSE(t, virtblk_watch_stalled(&w, 7, 9, true));
	KTEST_EXPECT_TRUE(t, virtblk_watch_stalled(&w, 7, 9, true));
	KTEST_EXPECT_EQ(t, w.stalled, 0); /* counted afresh after a notify */
	KTEST_EXPECT_FALSE(t, virtblk_watch_stalled(&w, 7, 9, true));
	KTEST_EXPECT_FALSE(t, virtblk_watch_stalled(&w, 8, 9, true));
	KTEST_EXPECT_EQ(t, w.stalled, 0);
	KTEST_EXPECT_FALSE(t, virtblk_watch_stalled(&w, 7, 9, true));
	KTEST_EXPECT_FALSE(t, virtblk_watch_stalled(&w, 7, 10, true));
	KTEST_EXPECT_FALSE(t, virtblk_watch_stalled(&w, 7, 9, false));
	KTEST_EXPECT_FALSE(t, virtblk_watch_stalled(&w, 7, 9, true));
}

/* A request added without a notification (a lost kick) is found by the
 * watchdog, the device notified again, and the request completes. */
static void lost_notification_is_sent_again(struct ktest *t)
{
	struct block_device *dev = blk_test_disk(t, NULL);
	struct virtblk_watch before, after;
	bool event_idx;
	void *buf;

	if (!dev)
		return;
	buf = buf_alloc(t, 8);
	before = virtblk_watch_of(dev, &event_idx);
	virtblk_skip_next_kick(dev);
	KTEST_ASSERT_EQ(t, blk_read_sync(dev, 64, buf, 8), 0);
	blk_expect_stamps(t, buf, 64, 8);
	after = virtblk_watch_of(dev, &event_idx);
	KTEST_EXPECT_EQ(t, after.renotified, before.renotified + 1);
	/* with event idx the device said it never looked: a lost kick */
	KTEST_EXPECT_EQ(t, after.lost_kicks, before.lost_kicks + event_idx);
	kfree(buf);
}

/* A status byte that is not a status fails its request with -EIO and a
 * console line; the next request is not affected. */
static void bad_status_fails_request(struct ktest *t)
{
	struct block_device *dev = blk_test_disk(t, NULL);
	void *buf;

	if (!dev)
		return;
	buf = buf_alloc(t, 8);
	virtblk_forge_next_status(dev, 0x7f);
	KTEST_EXPECT_EQ(t, blk_read_sync(dev, 8, buf, 8), -EIO);
	KTEST_EXPECT_EQ(t, blk_read_sync(dev, 8, buf, 8), 0);
	blk_expect_stamps(t, buf, 8, 8);
	kfree(buf);
}

static struct ktest_case read_cases[] = {
	KTEST_CASE(read_every_sector),
	KTEST_CASE(watchdog_waits_a_whole_period),
	KTEST_CASE(watchdog_stall_rule),
	KTEST_CASE(lost_notification_is_sent_again),
	KTEST_CASE(get_id),
	KTEST_CASE(unsupported_request_fails_alone),
	KTEST_CASE(bad_requests_refused),
	KTEST_CASE(bad_status_fails_request),
	{}
};
KTEST_SUITE(virtio_blk_read, read_cases);

static void write_then_read_back(struct ktest *t)
{
	struct block_device *dev = blk_test_disk(t, "rw");
	const uint64_t at = 4096;
	uint8_t *w, *r;

	if (!dev)
		return;
	w = buf_alloc(t, 64);
	r = buf_alloc(t, 64);
	for (unsigned int i = 0; i < 64 * SECTOR_SIZE; i++)
		w[i] = (uint8_t)(i * 13 + 5);
	KTEST_ASSERT_EQ(t, blk_write_sync(dev, at, w, 64), 0);
	KTEST_ASSERT_EQ(t, blk_read_sync(dev, at, r, 64), 0);
	KTEST_EXPECT_MEMEQ(t, r, w, 64 * SECTOR_SIZE);
	/* neighbours untouched */
	KTEST_ASSERT_EQ(t, blk_read_sync(dev, at - 1, r, 1), 0);
	blk_expect_stamps(t, r, at - 1, 1);
	KTEST_ASSERT_EQ(t, blk_read_sync(dev, at + 64, r, 1), 0);
	blk_expect_stamps(t, r, at + 64, 1);
	kfree(w);
	kfree(r);
}

static void flush_succeeds(struct ktest *t)
{
	struct block_device *dev = blk_test_disk(t, "rw");

	if (!dev)
		return;
	KTEST_EXPECT_TRUE(t, dev->flush);
	KTEST_EXPECT_EQ(t, blk_flush(dev), 0);
}

static void write_zeroes_reads_zero(struct ktest *t)
{
	struct block_device *dev = blk_test_disk(t, "rw");
	uint8_t *r;

	if (!dev)
		return;
	KTEST_ASSERT_GT(t, dev->limits.max_write_zeroes_sectors, 0);
	r = buf_alloc(t, 66);
	KTEST_ASSERT_EQ(t, blk_write_zeroes(dev, 6000, 64), 0);
	KTEST_ASSERT_EQ(t, blk_read_sync(dev, 5999, r, 66), 0);
	blk_expect_stamps(t, r, 5999, 1);
	for (unsigned int i = SECTOR_SIZE; i < 65 * SECTOR_SIZE; i++)
		if (r[i]) {
			KTEST_EXPECT_EQ(t, r[i], 0);
			break;
		}
	blk_expect_stamps(t, r + 65 * SECTOR_SIZE, 6064, 1);
	kfree(r);
}

static void discard_succeeds(struct ktest *t)
{
	struct block_device *dev = blk_test_disk(t, "rw");
	uint8_t *r;

	if (!dev)
		return;
	KTEST_ASSERT_GT(t, dev->limits.max_discard_sectors, 0);
	KTEST_EXPECT_EQ(t, blk_discard(dev, 7168, 128), 0);
	/* Discarded contents are undefined; the neighbours are not. */
	r = buf_alloc(t, 1);
	KTEST_ASSERT_EQ(t, blk_read_sync(dev, 7296, r, 1), 0);
	blk_expect_stamps(t, r, 7296, 1);
	kfree(r);
}

static struct ktest_case write_cases[] = { KTEST_CASE(write_then_read_back),
					   KTEST_CASE(flush_succeeds),
					   KTEST_CASE(write_zeroes_reads_zero),
					   KTEST_CASE(discard_succeeds),
					   {} };
KTEST_SUITE(virtio_blk_write, write_cases);

static void ro_rejects_writes(struct ktest *t)
{
	struct block_device *dev = blk_test_disk(t, "ro");
	void *buf;

	if (!dev)
		return;
	KTEST_EXPECT_TRUE(t, dev->read_only);
	buf = buf_alloc(t, 8);
	KTEST_EXPECT_EQ(t, blk_write_sync(dev, 0, buf, 8), -EROFS);
	KTEST_EXPECT_EQ(t, blk_write_zeroes(dev, 0, 8), -EROFS);
	KTEST_EXPECT_EQ(t, blk_read_sync(dev, 0, buf, 8), 0);
	blk_expect_stamps(t, buf, 0, 8);
	kfree(buf);
}

static struct ktest_case ro_cases[] = { KTEST_CASE(ro_rejects_writes), {} };
KTEST_SUITE(virtio_blk_ro, ro_cases);

static void injected_errors_hit_their_requests(struct ktest *t)
{
	struct block_device *dev = blk_test_disk(t, "errors");
	void *buf;

	if (!dev)
		return;
	buf = buf_alloc(t, 8);
	KTEST_EXPECT_EQ(t, blk_read_sync(dev, VBLK_BAD_READ, buf, 1), -EIO);
	KTEST_EXPECT_EQ(t, blk_read_sync(dev, VBLK_BAD_READ - 4, buf, 8), -EIO);
	KTEST_EXPECT_EQ(t, blk_read_sync(dev, VBLK_BAD_READ + 1, buf, 8), 0);
	blk_expect_stamps(t, buf, VBLK_BAD_READ + 1, 8);
	KTEST_EXPECT_EQ(t, blk_write_sync(dev, VBLK_BAD_WRITE, buf, 1), -EIO);
	KTEST_EXPECT_EQ(t, blk_write_sync(dev, VBLK_BAD_WRITE + 8, buf, 8), 0);
	KTEST_EXPECT_EQ(t, blk_read_sync(dev, VBLK_BAD_WRITE, buf, 1), 0);
	blk_expect_stamps(t, buf, VBLK_BAD_WRITE, 1);
	kfree(buf);
}

static struct ktest_case error_cases[] = {
	KTEST_CASE(injected_errors_hit_their_requests), {}
};
KTEST_SUITE(virtio_blk_errors, error_cases);
