/*
 * drivers/virtio_mmio.c: the virtio-mmio transport and its device discovery.
 *
 * Offers a struct virtio_transport (drivers/virtio.h) for each slot the
 * device tree lists (platform.virtio[], address order) that holds a device.
 * Modern (version 2) and legacy (version 1) devices differ only in feature
 * negotiation (64 bits and FEATURES_OK vs 32 bits) and queue set-up
 * (three 64-bit addresses and QueueReady vs one page frame number); the
 * rest of the register file is shared.
 *
 * Locking: none here. The device table is written once by the init hook
 * before any task runs and read-only afterwards.
 */
#include <errno.h>
#include <stdio.h>
#include <linux/virtio_config.h>
#include <linux/virtio_mmio.h>
#include <linux/virtio_ring.h>
#include <drivers/virtio.h>
#include <kernel/arch.h>
#include <kernel/init.h>
#include <kernel/platform.h>
#include <kernel/printk.h>

#define VIRTIO_MMIO_MAGIC 0x74726976 /* "virt" */
#define LEGACY_PAGE_SIZE  4096

BUILD_BUG_ON(VIRTIO_MMIO_INT_VRING != VIRTIO_INT_VRING);
BUILD_BUG_ON(VIRTIO_MMIO_INT_CONFIG != VIRTIO_INT_CONFIG);

struct virtio_mmio_device {
	struct virtio_device vdev;
	uintptr_t base;
};

static struct virtio_mmio_device devices[PLATFORM_MAX_VIRTIO];
static unsigned int ndevices;

static uintptr_t base_of(struct virtio_device *dev)
{
	return container_of(dev, struct virtio_mmio_device, vdev)->base;
}

static uint32_t reg_read(struct virtio_device *dev, unsigned int off)
{
	return mmio_read32(base_of(dev) + off);
}

static void reg_write(struct virtio_device *dev, unsigned int off, uint32_t v)
{
	mmio_write32(base_of(dev) + off, v);
}

static uint8_t mmio_get_status(struct virtio_device *dev)
{
	return (uint8_t)reg_read(dev, VIRTIO_MMIO_STATUS);
}

static void mmio_set_status(struct virtio_device *dev, uint8_t status)
{
	reg_write(dev, VIRTIO_MMIO_STATUS, status);
}

static uint64_t mmio_get_features(struct virtio_device *dev)
{
	uint64_t f;

	reg_write(dev, VIRTIO_MMIO_DEVICE_FEATURES_SEL, 0);
	f = reg_read(dev, VIRTIO_MMIO_DEVICE_FEATURES);
	if (virtio_is_legacy(dev))
		return f;
	reg_write(dev, VIRTIO_MMIO_DEVICE_FEATURES_SEL, 1);
	return f | (uint64_t)reg_read(dev, VIRTIO_MMIO_DEVICE_FEATURES) << 32;
}

static void mmio_set_features(struct virtio_device *dev, uint64_t f)
{
	reg_write(dev, VIRTIO_MMIO_DRIVER_FEATURES_SEL, 0);
	reg_write(dev, VIRTIO_MMIO_DRIVER_FEATURES, (uint32_t)f);
	if (virtio_is_legacy(dev))
		return;
	reg_write(dev, VIRTIO_MMIO_DRIVER_FEATURES_SEL, 1);
	reg_write(dev, VIRTIO_MMIO_DRIVER_FEATURES, (uint32_t)(f >> 32));
}

static uint32_t
mmio_config_read(struct virtio_device *dev, unsigned int off, unsigned int size)
{
	return mmio_read_sized(base_of(dev) + VIRTIO_MMIO_CONFIG + off, size);
}

static uint32_t mmio_config_generation(struct virtio_device *dev)
{
	return reg_read(dev, VIRTIO_MMIO_CONFIG_GENERATION);
}

static unsigned int mmio_queue_max(struct virtio_device *dev,
				   unsigned int index)
{
	reg_write(dev, VIRTIO_MMIO_QUEUE_SEL, index);
	if (reg_read(dev,
		     virtio_is_legacy(dev) ? VIRTIO_MMIO_QUEUE_PFN
					   : VIRTIO_MMIO_QUEUE_READY))
		return 0; /* already in use */
	return reg_read(dev, VIRTIO_MMIO_QUEUE_NUM_MAX);
}

static void write64(struct virtio_device *dev, unsigned int lo, uint64_t v)
{
	reg_write(dev, lo, (uint32_t)v);
	reg_write(dev, lo + 4, (uint32_t)(v >> 32));
}

/* @desc, @avail, @used: physical addresses. A legacy device takes only
 * @desc as a page frame; the ring must be laid out by vring_init() with
 * 4096-byte alignment (drivers/virtqueue.c always does).
 * Return: 0, or -EINVAL when a legacy ring is above the 44-bit PFN range. */
static int mmio_queue_enable(struct virtio_device *dev,
			     unsigned int index,
			     unsigned int num,
			     uint64_t desc,
			     uint64_t avail,
			     uint64_t used)
{
	reg_write(dev, VIRTIO_MMIO_QUEUE_SEL, index);
	reg_write(dev, VIRTIO_MMIO_QUEUE_NUM, num);
	if (virtio_is_legacy(dev)) {
		if ((desc / LEGACY_PAGE_SIZE) >> 32)
			return -EINVAL;
		reg_write(dev, VIRTIO_MMIO_GUEST_PAGE_SIZE, LEGACY_PAGE_SIZE);
		reg_write(dev, VIRTIO_MMIO_QUEUE_ALIGN, LEGACY_PAGE_SIZE);
		reg_write(dev,
			  VIRTIO_MMIO_QUEUE_PFN,
			  (uint32_t)(desc / LEGACY_PAGE_SIZE));
		return 0;
	}
	write64(dev, VIRTIO_MMIO_QUEUE_DESC_LOW, desc);
	write64(dev, VIRTIO_MMIO_QUEUE_AVAIL_LOW, avail);
	write64(dev, VIRTIO_MMIO_QUEUE_USED_LOW, used);
	reg_write(dev, VIRTIO_MMIO_QUEUE_READY, 1);
	return 0;
}

static void mmio_queue_notify(struct virtio_device *dev, unsigned int index)
{
	reg_write(dev, VIRTIO_MMIO_QUEUE_NOTIFY, index);
}

static uint32_t mmio_interrupt_peek(struct virtio_device *dev)
{
	return reg_read(dev, VIRTIO_MMIO_INTERRUPT_STATUS);
}

static uint32_t mmio_interrupt_ack(struct virtio_device *dev)
{
	uint32_t status = reg_read(dev, VIRTIO_MMIO_INTERRUPT_STATUS);

	if (status)
		reg_write(dev, VIRTIO_MMIO_INTERRUPT_ACK, status);
	return status;
}

static const struct virtio_transport mmio_transport = {
	.get_status = mmio_get_status,
	.set_status = mmio_set_status,
	.get_features = mmio_get_features,
	.set_features = mmio_set_features,
	.config_read = mmio_config_read,
	.config_generation = mmio_config_generation,
	.queue_max = mmio_queue_max,
	.queue_enable = mmio_queue_enable,
	.queue_notify = mmio_queue_notify,
	.interrupt_ack = mmio_interrupt_ack,
	.interrupt_peek = mmio_interrupt_peek,
};

static bool slot_probe(const struct platform_mmio_dev *slot,
		       struct virtio_mmio_device *mdev)
{
	struct virtio_device *dev = &mdev->vdev;
	uint32_t magic = mmio_read32(slot->base + VIRTIO_MMIO_MAGIC_VALUE);
	uint32_t version;

	*mdev = (struct virtio_mmio_device){ .base = slot->base };
	dev->ops = &mmio_transport;
	dev->irq = slot->irq;
	snprintf(dev->name,
		 sizeof(dev->name),
		 "virtio-mmio@%lx",
		 (unsigned long)slot->base);
	version = reg_read(dev, VIRTIO_MMIO_VERSION);
	dev->device_id = reg_read(dev, VIRTIO_MMIO_DEVICE_ID);
	if (magic != VIRTIO_MMIO_MAGIC || (version != 1 && version != 2)) {
		pr_err("%s: bad magic %#x or version %u, ignored\n",
		       dev->name,
		       magic,
		       version);
		return false;
	}
	if (dev->device_id == 0)
		return false; /* empty slot */
	dev->legacy = version == 1;
	dev->transport =
	    dev->legacy ? "virtio-mmio legacy" : "virtio-mmio modern";
	reg_write(dev, VIRTIO_MMIO_STATUS, 0);
	pr_info("%s: device %u, %s, irq %u\n",
		dev->name,
		dev->device_id,
		dev->legacy ? "legacy" : "modern",
		dev->irq);
	return true;
}

static int virtio_mmio_init(void)
{
	for (unsigned int i = 0; i < platform.nvirtio; i++)
		if (slot_probe(&platform.virtio[i], &devices[ndevices]) &&
		    !virtio_register(&devices[ndevices].vdev))
			ndevices++;
	return 0;
}
INIT_HOOK(virtio_mmio, virtio_mmio_init, INIT_LEVEL_DEVICE);
