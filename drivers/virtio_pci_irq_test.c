/*
 * drivers/virtio_pci_irq_test.c: suite virtio_pci_irq - MSI-X on a
 * virtio-pci disk when things do not fit (boot a64_msi_share: a disk with
 * num-queues=4 and vectors=3, and a second disk whose probe
 * vblk.fail_probe=1 makes fail once its interrupts are live).
 *
 * Rules (drivers/virtio_pci_irq.c): a table smaller than queues + 1 keeps
 * entry 0 for the configuration and puts queue q on queue line q % (size
 * - 1), each shared line serving all its queues, so no completion waits
 * for the watchdog; a failed probe unregisters its handlers and gives its
 * lines back, so the controller hands the same lines out again (its
 * allocator takes the lowest free run). A probe that fails at any step
 * (drivers/virtio_blk_probe.c) gives back every page and kmalloc object
 * it took and leaves the device reset, FAILED: the refused disk is probed
 * again with each of several allocations failing in turn (fail_nth).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ids.h>
#include <drivers/block_testutil.h>
#include <drivers/virtio_blk_internal.h>
#include <kernel/bootargs.h>
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/irq.h>
#include <kernel/ktest.h>
#include <kernel/panic.h>
#include <kernel/sched.h>
#include <mm/kmalloc.h>
#include "virtio_pci_internal.h"

#define READS 8

struct share_reader {
	struct block_device *dev;
	unsigned int hart;
	int failures;
};

static int read_on_hart(void *arg)
{
	struct share_reader *r = arg;
	uint8_t *buf = kmalloc(SECTOR_SIZE, GFP_KERNEL);

	if (!buf)
		return -1;
	for (unsigned int i = 0; i < READS; i++) {
		uint64_t lba = 200 + r->hart * READS + i;

		if (blk_read_sync(r->dev, lba, buf, 1) ||
		    !blk_stamp_ok(buf, lba, 0))
			r->failures++;
	}
	kfree(buf);
	return 0;
}

static unsigned long line_count(unsigned int irq)
{
	unsigned long n = 0;

	for (unsigned int c = 0; c < ncpus; c++)
		n += irq_count_on(irq, c);
	return n;
}

static void queues_share_vectors(struct ktest *t)
{
	struct block_device *dev = blk_test_disk(t, "rw");
	struct virtio_blk *vblk;
	struct virtio_device *vdev;

	if (!dev)
		return;
	vblk = dev->driver;
	vdev = vblk->vdev;
	KTEST_ASSERT_NE(t, vdev->vector_irq, 0u);
	KTEST_ASSERT_EQ(t, vblk->nr_queues, 4u);
	KTEST_ASSERT_EQ(t, vdev->nr_queue_vectors, 2u); /* vectors=3 */
	for (unsigned int q = 0; q < vblk->nr_queues; q++)
		KTEST_EXPECT_EQ(
		    t, virtio_queue_irq(vdev, q), vdev->vector_irq + 1 + q % 2);
	for (unsigned int h = 0; h < ncpus; h++) {
		unsigned int irq = virtio_queue_irq(vdev, h % vblk->nr_queues);
		unsigned long before = line_count(irq);
		struct share_reader r = { dev, h, 0 };
		struct task *task =
		    task_create_on("share-reader", read_on_hart, &r, (int)h);

		KTEST_ASSERT_FALSE(t, IS_ERR(task));
		KTEST_EXPECT_EQ(t, task_join(task), 0);
		KTEST_EXPECT_EQ(t, r.failures, 0);
		KTEST_EXPECT_GT(t, line_count(irq), before);
	}
	/* every completion came by its (shared) line, none by the watchdog */
	for (unsigned int q = 0; q < vblk->nr_queues; q++)
		KTEST_EXPECT_EQ(
		    t, vblk->queues[q].watched.lost_completions, 0ul);
}

/* The disk vblk.fail_probe refused: a virtio-pci block device the
 * driver kept nothing of. */
static struct virtio_device *failed_disk(void)
{
	struct virtio_device *vdev;

	for (unsigned int i = 0;
	     (vdev = virtio_device_find(VIRTIO_ID_BLOCK, i));
	     i++)
		if (!vdev->priv &&
		    !strcmp(vdev->transport, "virtio-pci modern"))
			return vdev;
	return NULL;
}

static void noop(void *arg)
{
	(void)arg;
}

static void failed_probe_gives_lines_back(struct ktest *t)
{
	struct virtio_device *vdev = failed_disk();
	struct virtio_pci_device *vp;
	struct pci_msix again;
	unsigned int n = 0, first;

	KTEST_ASSERT_NOT_NULL(t, vdev);
	vp = to_vp(vdev);
	/* what it had: "MSI-X, 5 vectors (GICv2m SPIs 83-87)" */
	KTEST_ASSERT_EQ(t, sscanf(vdev->irq_desc, "MSI-X, %u vectors", &n), 1);
	KTEST_ASSERT_GT(t, n, 1u);
	first = vp->msix.first_irq;
	KTEST_EXPECT_EQ(t, vp->msix.nvec, 0u); /* MSI-X off */
	KTEST_EXPECT_EQ(t, vdev->vector_irq, 0u);
	for (unsigned int i = 0; i < n; i++) { /* no handler left */
		KTEST_EXPECT_EQ(t, irq_register(first + i, noop, NULL), 0);
		irq_unregister(first + i);
	}
	again = vp->msix;
	KTEST_ASSERT_EQ(t, pci_msix_enable(vp->pdev, &again, n), 0);
	KTEST_EXPECT_EQ(t, again.first_irq, first);
	pci_msix_disable(vp->pdev, &again);
}

/*
 * Objects kmalloc has handed out and not had back: each slab's count and
 * each large block, read from the struct pages of all of RAM (mapped 1:1:
 * a page of ours is in it, virt_to_page says where it ends). Without the
 * classes' locks: nothing else allocates while the case runs.
 */
static unsigned long kmalloc_objects(void)
{
	void *ram = alloc_pages_va(GFP_KERNEL, 0);
	uintptr_t lo = (uintptr_t)ram;
	unsigned long n = 0;
	struct page *page;

	if (!ram)
		return 0;
	free_pages_va(ram, 0); /* only its address is wanted */
	while (lo >= PAGE_SIZE && virt_to_page((void *)(lo - PAGE_SIZE)))
		lo -= PAGE_SIZE;
	for (uintptr_t a = lo; (page = virt_to_page((void *)a));
	     a += PAGE_SIZE) {
		unsigned long flags = READ_ONCE(page->flags);

		if (flags & PG_SLAB)
			n += READ_ONCE(page->inuse);
		else if (flags & PG_KMALLOC)
			n++;
	}
	return n;
}

/* Probe the refused @vdev again as disk @index with its @nth kmalloc
 * failing. Return: whether that kmalloc came (the probe failed there);
 * if not, it failed on purpose at its last step (vblk.fail_probe). */
static bool probe_failing_at(struct virtio_device *vdev,
			     unsigned int index,
			     unsigned int nth)
{
	struct task *me = current_task();
	bool reached;

	me->fail_nth = nth;
	virtblk_probe(vdev, index);
	reached = me->fail_nth == 0;
	me->fail_nth = 0;
	return reached;
}

/* Allocations 1..8 of a probe (the driver's structure, queue 0's ring
 * books, slot pool and first slots), then every 64th (the other slots and
 * queues); the last probe makes them all and fails on purpose. */
#define EVERY_NTH_FROM 8
#define NTH_STRIDE     64

static void failed_probe_frees_everything(struct ktest *t)
{
	struct virtio_device *vdev = failed_disk();
	long index = bootarg_get_long("vblk.fail_probe", -1);
	unsigned long pages, objects, warns = warn_count();
	unsigned int nth = 1, probes = 0, first_leak = 0;

	KTEST_ASSERT_NOT_NULL(t, vdev);
	KTEST_ASSERT_GE(t, index, 0l);
	pages = pages_free();
	objects = kmalloc_objects();
	KTEST_ASSERT_GT(t, objects, 0ul);
	for (;;) {
		bool reached = probe_failing_at(vdev, (unsigned int)index, nth);

		probes++;
		if (!first_leak && pages_free() != pages)
			first_leak = nth; /* the pages an nth refusal kept */
		if (!reached)
			break;
		nth += nth < EVERY_NTH_FROM ? 1 : NTH_STRIDE;
	}
	/* the structure, and per queue (4) its ring's books and a slot pool
	 * with a piece table for each of its slots */
	KTEST_EXPECT_GT(t, probes, (unsigned int)EVERY_NTH_FROM + 4);
	KTEST_EXPECT_EQ(t, first_leak, 0u);
	KTEST_EXPECT_EQ(t, pages_free(), pages);
	KTEST_EXPECT_EQ(t, kmalloc_objects(), objects);
	KTEST_EXPECT_EQ(t, warn_count(), warns); /* nothing freed twice */
	KTEST_EXPECT_NULL(t, vdev->priv);
	/* reset, then FAILED: no DRIVER_OK, queue 0 no longer live */
	KTEST_EXPECT_EQ(
	    t, vdev->ops->get_status(vdev), (uint8_t)VIRTIO_CONFIG_S_FAILED);
	KTEST_EXPECT_NE(t, virtio_queue_max(vdev, 0), 0u);
}

static struct ktest_case pci_irq_cases[] = {
	KTEST_CASE(queues_share_vectors),
	KTEST_CASE(failed_probe_gives_lines_back),
	KTEST_CASE(failed_probe_frees_everything),
	{},
};
KTEST_SUITE(virtio_pci_irq, pci_irq_cases);
