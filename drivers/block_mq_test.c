/*
 * drivers/block_mq_test.c: suite virtio_blk_mq - a disk with
 * VIRTIO_BLK_F_MQ (the blk_mq_* boots: QEMU's num-queues=4, 4 harts)
 * gets one hardware queue per hart, and a hart's requests go to its own
 * queue: tasks pinned to each hart in turn read the test disk, and only
 * that hart's queue counts them (struct blk_hw_queue's dispatched). Were
 * every request sent to one queue, or spread by anything but the
 * submitting hart, the counts would land elsewhere. The reads are
 * checked against the stamps tools/mkblkimg.py wrote.
 */
#include <string.h>
#include <drivers/block.h>
#include <drivers/block_testutil.h>
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/sched.h>
#include <mm/kmalloc.h>

#define READS 16

struct hart_reader {
	struct block_device *dev;
	unsigned int hart;
	int failures;
};

static int read_on_hart(void *arg)
{
	struct hart_reader *r = arg;
	uint8_t *buf = kmalloc(SECTOR_SIZE, GFP_KERNEL);

	if (!buf)
		return -1;
	for (unsigned int i = 0; i < READS; i++) {
		uint64_t lba = 64 + r->hart * READS + i;

		if (blk_read_sync(r->dev, lba, buf, 1) ||
		    !blk_stamp_ok(buf, lba, 0))
			r->failures++;
	}
	kfree(buf);
	return 0;
}

static void mq_one_queue_per_hart(struct ktest *t)
{
	struct block_device *dev = blk_test_disk(t, "rw");

	if (!dev)
		return;
	KTEST_EXPECT_EQ(t, dev->nr_hw_queues, MIN(ncpus, BLK_MAX_HW_QUEUES));
	KTEST_EXPECT_NOT_NULL(t, strstr(dev->features, "mq"));
	KTEST_EXPECT_GE(t, dev->nr_hw_queues, 2u);
}

static void mq_hart_uses_its_queue(struct ktest *t)
{
	struct block_device *dev = blk_test_disk(t, "rw");

	if (!dev)
		return;
	KTEST_ASSERT_GE(t, dev->nr_hw_queues, 2u);
	for (unsigned int h = 0; h < ncpus; h++) {
		struct hart_reader r = { dev, h, 0 };
		unsigned long before[BLK_MAX_HW_QUEUES];
		struct task *task;

		for (unsigned int q = 0; q < dev->nr_hw_queues; q++)
			before[q] = READ_ONCE(dev->hwq[q].dispatched);
		task = task_create_on("mq-reader", read_on_hart, &r, (int)h);
		KTEST_ASSERT_FALSE(t, IS_ERR(task));
		KTEST_EXPECT_EQ(t, task_join(task), 0);
		KTEST_EXPECT_EQ(t, r.failures, 0);
		for (unsigned int q = 0; q < dev->nr_hw_queues; q++)
			KTEST_EXPECT_EQ(t,
					READ_ONCE(dev->hwq[q].dispatched) -
					    before[q],
					q == h % dev->nr_hw_queues ? READS : 0);
	}
}

/* blk_set_queues(dev, 1): every hart's requests go to queue 0. */
static void mq_set_queues_narrows(struct ktest *t)
{
	struct block_device *dev = blk_test_disk(t, "rw");
	struct hart_reader r;
	unsigned long before;
	struct task *task;

	if (!dev)
		return;
	KTEST_ASSERT_EQ(t, blk_set_queues(dev, 1), 1u);
	before = READ_ONCE(dev->hwq[0].dispatched);
	r = (struct hart_reader){ dev, ncpus - 1, 0 };
	task = task_create_on("mq-reader", read_on_hart, &r, (int)ncpus - 1);
	KTEST_EXPECT_FALSE(t, IS_ERR(task));
	if (!IS_ERR(task))
		KTEST_EXPECT_EQ(t, task_join(task), 0);
	KTEST_EXPECT_EQ(t, READ_ONCE(dev->hwq[0].dispatched) - before, READS);
	KTEST_EXPECT_EQ(
	    t, blk_set_queues(dev, dev->nr_hw_queues), dev->nr_hw_queues);
}

static struct ktest_case mq_cases[] = {
	KTEST_CASE(mq_one_queue_per_hart),
	KTEST_CASE(mq_hart_uses_its_queue),
	KTEST_CASE(mq_set_queues_narrows),
	{},
};
KTEST_SUITE(virtio_blk_mq, mq_cases);
