/*
 * drivers/virtio_blk_probe.c: finding virtio-blk disks and bringing each up
 * - feature negotiation, the limits from the config space, the queues
 * (one, or with VIRTIO_BLK_F_MQ one per hart) and their slot pools, the
 * interrupt, the watchdog, the name vda..vdz - before
 * the block layer sees it. Requests and completion: drivers/virtio_blk.c.
 *
 * A probe that fails at any step gives back everything it took: the
 * device is refused first (virtio_fail: handlers and lines back, the
 * device reset, so it no longer uses the rings), then the queues' memory
 * and the driver's structure are freed.
 *
 * Fault injection: the boot argument vblk.fail_probe=N fails the probe of
 * the disk that would be the N-th (0: vda) once its interrupts are live,
 * the last step that can fail; the device's lines and every allocation
 * must come back (drivers/virtio_pci_irq_test.c probes that disk again,
 * failing each of its allocations in turn).
 */
#include <errno.h>
#include <stdio.h>
#include <kernel/bootargs.h>
#include <string.h>
#include <linux/virtio_config.h>
#include <linux/virtio_ids.h>
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/init.h>
#include <kernel/irq.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/time.h>
#include <mm/kmalloc.h>
#include "virtio_blk_internal.h"

#define CFG(field) offsetof(struct virtio_blk_config, field)
#define CFG_READ(vdev, field) \
	virtio_config_read(   \
	    vdev, CFG(field), sizeof(((struct virtio_blk_config *)0)->field))

static const uint64_t wanted_features =
    BIT(VIRTIO_BLK_F_SIZE_MAX) | BIT(VIRTIO_BLK_F_SEG_MAX) |
    BIT(VIRTIO_BLK_F_RO) | BIT(VIRTIO_BLK_F_BLK_SIZE) |
    BIT(VIRTIO_BLK_F_FLUSH) | BIT(VIRTIO_BLK_F_DISCARD) |
    BIT(VIRTIO_BLK_F_WRITE_ZEROES) | BIT(VIRTIO_RING_F_INDIRECT_DESC) |
    BIT(VIRTIO_RING_F_EVENT_IDX) | BIT(VIRTIO_BLK_F_MQ);

static void describe_features(struct virtio_blk *vblk)
{
	static const struct {
		unsigned int bit;
		const char *name;
	} names[] = {
		{ VIRTIO_BLK_F_RO, "ro" },
		{ VIRTIO_BLK_F_FLUSH, "flush" },
		{ VIRTIO_BLK_F_DISCARD, "discard" },
		{ VIRTIO_BLK_F_WRITE_ZEROES, "write-zeroes" },
		{ VIRTIO_BLK_F_SEG_MAX, "seg-max" },
		{ VIRTIO_BLK_F_SIZE_MAX, "size-max" },
		{ VIRTIO_BLK_F_BLK_SIZE, "blk-size" },
		{ VIRTIO_RING_F_INDIRECT_DESC, "indirect" },
		{ VIRTIO_RING_F_EVENT_IDX, "event-idx" },
		{ VIRTIO_BLK_F_MQ, "mq" },
		{ VIRTIO_F_VERSION_1, "v1" },
	};
	char *s = vblk->features;
	size_t size = sizeof(vblk->features);

	s[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (!virtio_has_feature(vblk->vdev, names[i].bit))
			continue;
		/* strlcat never writes past @size; a cut list is a bug here */
		if (*s)
			strlcat(s, ",", size);
		WARN_ON_ONCE(strlcat(s, names[i].name, size) >= size);
	}
	vblk->bdev.features = vblk->features;
}

/* Limits from the configuration space. Return: NULL or why it is refused. */
static const char *read_limits(struct virtio_blk *vblk)
{
	struct virtio_device *vdev = vblk->vdev;
	struct block_device *b = &vblk->bdev;
	struct blk_limits *l = &b->limits;

	if (virtio_config_read64(vdev, CFG(capacity), &b->nr_sectors))
		return "configuration never settles";
	if (!b->nr_sectors)
		return "capacity 0";
	l->logical_block_size = SECTOR_SIZE;
	if (virtio_has_feature(vdev, VIRTIO_BLK_F_BLK_SIZE))
		l->logical_block_size = CFG_READ(vdev, blk_size);
	if (l->logical_block_size < SECTOR_SIZE ||
	    l->logical_block_size > PAGE_SIZE ||
	    (l->logical_block_size & (l->logical_block_size - 1)))
		return "block size not a power of two in 512..4096";
	l->max_segments = 1;
	if (virtio_has_feature(vdev, VIRTIO_BLK_F_SEG_MAX) &&
	    CFG_READ(vdev, seg_max))
		l->max_segments = MIN(CFG_READ(vdev, seg_max), VBLK_MAX_SEGS);
	l->max_segment_size = VBLK_DEFAULT_SEG_SIZE;
	if (virtio_has_feature(vdev, VIRTIO_BLK_F_SIZE_MAX) &&
	    CFG_READ(vdev, size_max) >= l->logical_block_size)
		l->max_segment_size =
		    MIN(CFG_READ(vdev, size_max), VBLK_DEFAULT_SEG_SIZE);
	l->max_sectors = VBLK_MAX_SECTORS;
	if (virtio_has_feature(vdev, VIRTIO_BLK_F_DISCARD) &&
	    CFG_READ(vdev, max_discard_seg))
		l->max_discard_sectors = CFG_READ(vdev, max_discard_sectors);
	if (virtio_has_feature(vdev, VIRTIO_BLK_F_WRITE_ZEROES) &&
	    CFG_READ(vdev, max_write_zeroes_seg))
		l->max_write_zeroes_sectors =
		    CFG_READ(vdev, max_write_zeroes_sectors);
	b->read_only = virtio_has_feature(vdev, VIRTIO_BLK_F_RO);
	b->flush = virtio_has_feature(vdev, VIRTIO_BLK_F_FLUSH);
	/* As many queues as harts, if the device has them: a hart's requests
	 * then go to its own queue. */
	vblk->nr_queues = 1;
	if (virtio_has_feature(vdev, VIRTIO_BLK_F_MQ))
		vblk->nr_queues =
		    MIN(MAX(CFG_READ(vdev, num_queues), 1u),
			MIN(ncpus, (unsigned int)BLK_MAX_HW_QUEUES));
	b->nr_hw_queues = vblk->nr_queues;
	return NULL;
}

/* Virtqueue @index and its slot pool. The ring holds max_segments + 2
 * pieces only with indirect descriptors; every queue must hold as many
 * as the first, whose ring sets the disk's limit. */
static const char *setup_queue(struct virtio_blk *vblk, unsigned int index)
{
	struct blk_limits *l = &vblk->bdev.limits;
	struct virtblk_queue *q = &vblk->queues[index];
	struct virtqueue *vq;
	unsigned int max_sg;

	q->vblk = vblk;
	spin_lock_init(&q->lock, "virtio_blk");
	vq = virtqueue_create(vblk->vdev, index, l->max_segments + 2);
	if (IS_ERR(vq))
		return PTR_ERR(vq) == -ENODEV ? "a queue has size 0 or is live"
					      : "cannot allocate a queue";
	q->vq = vq;
	max_sg =
	    q->vq->indirect ? q->vq->max_sg : MIN(q->vq->max_sg, q->vq->num);
	if (max_sg < 3 || (index && max_sg < l->max_segments + 2))
		return "queue too small for one request";
	if (!index) /* queue 0's ring sets the limit every queue meets */
		l->max_segments = max_sg - 2;
	q->slots = kcalloc(q->vq->num, sizeof(*q->slots), GFP_KERNEL);
	if (!q->slots)
		return "out of memory";
	for (unsigned int i = 0; i < q->vq->num; i++) {
		q->slots[i].sg =
		    kcalloc(q->vq->max_sg, sizeof(struct vq_sg), GFP_KERNEL);
		if (!q->slots[i].sg)
			return "out of memory";
		slot_put(q, &q->slots[i]);
	}
	return NULL;
}

static const char *setup_queues(struct virtio_blk *vblk)
{
	const char *why = NULL;

	for (unsigned int i = 0; i < vblk->nr_queues && !why; i++)
		why = setup_queue(vblk, i);
	return why;
}

/* What setup_queues took, however far it got (a queue it never reached
 * has no vq and no slots). The device must be reset: it no longer uses
 * the rings. */
static void free_queues(struct virtio_blk *vblk)
{
	for (unsigned int i = 0; i < vblk->nr_queues; i++) {
		struct virtblk_queue *q = &vblk->queues[i];

		for (unsigned int s = 0; q->slots && s < q->vq->num; s++)
			kfree(q->slots[s].sg);
		kfree(q->slots);
		if (q->vq)
			virtqueue_free(q->vq);
	}
}

/* Negotiation to DRIVER_OK. Return: NULL, or why the device is refused
 * (its queues may be half set up: free_queues). */
static const char *setup_device(struct virtio_blk *vblk, unsigned int index)
{
	struct virtio_device *vdev = vblk->vdev;
	const char *why;

	virtio_probe_begin(vdev);
	if (virtio_negotiate(vdev, wanted_features))
		return virtio_is_legacy(vdev)
			   ? "feature negotiation failed"
			   : "no VERSION_1 or FEATURES_OK not accepted";
	why = read_limits(vblk);
	if (why)
		return why;
	if (virtio_request_irqs(vdev,
				vblk->nr_queues,
				virtblk_queue_interrupt,
				virtblk_config_interrupt,
				vblk))
		return "too many queues for their interrupts";
	why = setup_queues(vblk);
	if (why)
		return why;
	if (virtio_driver_ok(vdev))
		return "cannot register the interrupt";
	if (bootarg_get_long("vblk.fail_probe", -1) == (long)index)
		return "probe failed on purpose (vblk.fail_probe)";
	return NULL;
}

/* Give up on the disk: its handlers off and the device reset
 * (virtio_fail) before the memory they use goes, then everything the
 * probe took. */
static void virtblk_refuse(struct virtio_blk *vblk, const char *why)
{
	struct virtio_device *vdev = vblk->vdev;

	virtio_fail(vdev, "%s", why);
	free_queues(vblk);
	vdev->priv = NULL;
	kfree(vblk);
}

void virtblk_probe(struct virtio_device *vdev, unsigned int index)
{
	struct virtio_blk *vblk = kzalloc(sizeof(*vblk), GFP_KERNEL);
	const char *why;

	if (!vblk)
		return virtio_fail(vdev, "out of memory");
	vblk->vdev = vdev;
	vdev->priv = vblk;
	snprintf(vblk->bdev.name, sizeof(vblk->bdev.name), "vd%c", 'a' + index);
	why = setup_device(vblk, index);
	if (why)
		return virtblk_refuse(vblk, why);
	vblk->bdev.ops = &virtblk_ops;
	vblk->bdev.driver = vblk;
	describe_features(vblk);
	vblk->bdev.transport = vdev->transport;
	timer_init(&vblk->watchdog, virtblk_watchdog);
	vblk->watchdog.data = vblk;
	timer_arm(&vblk->watchdog, time_ns() + VIRTBLK_WATCHDOG_NS);
	blk_register(&vblk->bdev);
	pr_info("%s: %llu sectors (%llu MiB), block %u, %u queue%s of %u, "
		"%s, %s\n",
		vblk->bdev.name,
		(unsigned long long)vblk->bdev.nr_sectors,
		(unsigned long long)(vblk->bdev.nr_sectors >> 11),
		vblk->bdev.limits.logical_block_size,
		vblk->nr_queues,
		vblk->nr_queues == 1 ? "" : "s",
		vblk->queues[0].vq->num,
		vdev->transport,
		vblk->features);
}

static int virtio_blk_init(void)
{
	struct virtio_device *vdev;
	unsigned int disks = 0;

	for (unsigned int i = 0;
	     (vdev = virtio_device_find(VIRTIO_ID_BLOCK, i));
	     i++) {
		if (disks == VBLK_MAX_DISKS) {
			pr_warn("virtio_blk: disk %s not probed: vda..vdz "
				"are taken\n",
				vdev->name);
			continue;
		}
		virtblk_probe(vdev, disks);
		disks += vdev->priv != NULL; /* a refused disk keeps none */
	}
	return 0;
}
INIT_HOOK(virtio_blk, virtio_blk_init, INIT_LEVEL_DEVICE);
