/*
 * drivers/irq_route_test.c: suite irq_route - an interrupt routed to one
 * hart (irq_set_affinity) runs its handler on that hart and no other.
 *
 * The test disk's line (virtio-mmio's one line on the a64_gicv3 boot:
 * GICv3 routes SPIs through GICD_IROUTER) is routed to each hart in turn,
 * and a task on another hart reads the disk: the handler's per-hart
 * counts (irq_count_on) must grow on the chosen hart alone. Were every
 * SPI routed to the boot CPU, as before, the counts would land on hart 0
 * each time. A device with a line per queue (MSI-X) has queue q's on
 * hart q mod n where the controller routes (drivers/virtio_irq.c): its
 * reads from hart h then complete on hart h.
 */
#include <errno.h>
#include <drivers/block_testutil.h>
#include <drivers/virtio_blk_internal.h>
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/irq.h>
#include <kernel/ktest.h>
#include <kernel/sched.h>
#include <mm/kmalloc.h>

#define READS 8

struct route_reader {
	struct block_device *dev;
	int failures;
};

static int read_some(void *arg)
{
	struct route_reader *r = arg;
	uint8_t *buf = kmalloc(SECTOR_SIZE, GFP_KERNEL);

	if (!buf)
		return -1;
	for (unsigned int i = 0; i < READS; i++)
		if (blk_read_sync(r->dev, 100 + i, buf, 1) ||
		    !blk_stamp_ok(buf, 100 + i, 0))
			r->failures++;
	kfree(buf);
	return 0;
}

/* Read from hart @from; the counts of @irq per hart grow by *@grew. */
static void read_from(struct ktest *t,
		      struct block_device *dev,
		      unsigned int irq,
		      unsigned int from,
		      unsigned long grew[MAX_CPUS])
{
	struct route_reader r = { dev, 0 };
	struct task *task;

	for (unsigned int c = 0; c < ncpus; c++)
		grew[c] = irq_count_on(irq, c);
	task = task_create_on("route-reader", read_some, &r, (int)from);
	KTEST_ASSERT_FALSE(t, IS_ERR(task));
	KTEST_EXPECT_EQ(t, task_join(task), 0);
	KTEST_EXPECT_EQ(t, r.failures, 0);
	for (unsigned int c = 0; c < ncpus; c++)
		grew[c] = irq_count_on(irq, c) - grew[c];
}

static void line_runs_on_chosen_hart(struct ktest *t)
{
	struct block_device *dev = blk_test_disk(t, "rw");
	struct virtio_device *vdev;
	unsigned long grew[MAX_CPUS];

	if (!dev)
		return;
	vdev = ((struct virtio_blk *)dev->driver)->vdev;
	KTEST_ASSERT_EQ(t, vdev->vector_irq, 0u); /* the one line */
	KTEST_ASSERT_GE(t, ncpus, 2u);
	for (unsigned int h = 0; h < ncpus; h++) {
		KTEST_ASSERT_EQ(t, irq_set_affinity(vdev->irq, h), 0);
		read_from(t, dev, vdev->irq, (h + 1) % ncpus, grew);
		for (unsigned int c = 0; c < ncpus; c++)
			if (c == h)
				KTEST_EXPECT_GT(t, grew[c], 0ul);
			else
				KTEST_EXPECT_EQ(t, grew[c], 0ul);
	}
	KTEST_EXPECT_EQ(t, irq_set_affinity(vdev->irq, 0), 0);
	KTEST_EXPECT_EQ(t, irq_set_affinity(vdev->irq, ncpus), -EINVAL);
}

static struct ktest_case route_cases[] = {
	KTEST_CASE(line_runs_on_chosen_hart),
	{},
};
KTEST_SUITE(irq_route, route_cases);
