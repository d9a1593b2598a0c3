/*
 * drivers/virtio_mmio.c: virtio-mmio transport and device discovery.
 *
 * Offers drivers/virtio.h. Modern and legacy devices differ only in feature
 * negotiation (64 bits and FEATURES_OK vs 32 bits) and queue set-up
 * (three 64-bit addresses and QueueReady vs one page frame number); the
 * rest of the register file is shared.
 *
 * Locking: none here. The device table is written once by the init hook
 * before any task runs and read-only afterwards.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <linux/virtio_config.h>
#include <linux/virtio_mmio.h>
#include <linux/virtio_ring.h>
#include <drivers/virtio.h>
#include <kernel/arch.h>
#include <kernel/init.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/printk.h>

#define VIRTIO_MMIO_MAGIC 0x74726976 /* "virt" */
#define LEGACY_PAGE_SIZE  4096

static struct virtio_device devices[PLATFORM_MAX_VIRTIO];
static unsigned int ndevices;

static uint32_t reg_read(struct virtio_device *dev, unsigned int off)
{
	return mmio_read32(dev->base + off);
}

static void reg_write(struct virtio_device *dev, unsigned int off, uint32_t v)
{
	mmio_write32(dev->base + off, v);
}

static void status_set(struct virtio_device *dev, uint32_t bits)
{
	reg_write(
	    dev, VIRTIO_MMIO_STATUS, reg_read(dev, VIRTIO_MMIO_STATUS) | bits);
}

struct virtio_device *virtio_device_find(uint32_t device_id, unsigned int nth)
{
	for (unsigned int i = 0; i < ndevices; i++)
		if (devices[i].device_id == device_id && nth-- == 0)
			return &devices[i];
	return NULL;
}

void virtio_probe_begin(struct virtio_device *dev)
{
	reg_write(dev, VIRTIO_MMIO_STATUS, 0);
	status_set(dev, VIRTIO_CONFIG_S_ACKNOWLEDGE);
	status_set(dev, VIRTIO_CONFIG_S_DRIVER);
	if (virtio_is_legacy(dev))
		reg_write(dev, VIRTIO_MMIO_GUEST_PAGE_SIZE, LEGACY_PAGE_SIZE);
}

void virtio_fail(struct virtio_device *dev, const char *fmt, ...)
{
	char msg[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	status_set(dev, VIRTIO_CONFIG_S_FAILED);
	pr_err("virtio-mmio@%lx: device %u refused: %s\n",
	       (unsigned long)dev->base,
	       dev->device_id,
	       msg);
}

static uint64_t device_features(struct virtio_device *dev)
{
	uint64_t f;

	reg_write(dev, VIRTIO_MMIO_DEVICE_FEATURES_SEL, 0);
	f = reg_read(dev, VIRTIO_MMIO_DEVICE_FEATURES);
	if (virtio_is_legacy(dev))
		return f;
	reg_write(dev, VIRTIO_MMIO_DEVICE_FEATURES_SEL, 1);
	return f | (uint64_t)reg_read(dev, VIRTIO_MMIO_DEVICE_FEATURES) << 32;
}

static void driver_features(struct virtio_device *dev, uint64_t f)
{
	reg_write(dev, VIRTIO_MMIO_DRIVER_FEATURES_SEL, 0);
	reg_write(dev, VIRTIO_MMIO_DRIVER_FEATURES, (uint32_t)f);
	if (virtio_is_legacy(dev))
		return;
	reg_write(dev, VIRTIO_MMIO_DRIVER_FEATURES_SEL, 1);
	reg_write(dev, VIRTIO_MMIO_DRIVER_FEATURES, (uint32_t)(f >> 32));
}

/**
 * virtio_negotiate - accept the features both sides know.
 * @wanted: the driver's feature bits; VERSION_1 is added for modern devices.
 *
 * Context: probe, task context.
 * Return: 0, or -ENODEV (no VERSION_1 on a modern device, FEATURES_OK not
 * kept by the device); the caller then calls virtio_fail().
 */
int virtio_negotiate(struct virtio_device *dev, uint64_t wanted)
{
	uint64_t offered = device_features(dev);

	if (!virtio_is_legacy(dev)) {
		if (!(offered & (1ULL << VIRTIO_F_VERSION_1)))
			return -ENODEV;
		wanted |= 1ULL << VIRTIO_F_VERSION_1;
	}
	dev->features = offered & wanted;
	driver_features(dev, dev->features);
	if (virtio_is_legacy(dev))
		return 0;
	status_set(dev, VIRTIO_CONFIG_S_FEATURES_OK);
	if (!(reg_read(dev, VIRTIO_MMIO_STATUS) & VIRTIO_CONFIG_S_FEATURES_OK))
		return -ENODEV;
	return 0;
}

void virtio_driver_ok(struct virtio_device *dev)
{
	status_set(dev, VIRTIO_CONFIG_S_DRIVER_OK);
}

static uint32_t
config_read_once(struct virtio_device *dev, unsigned int off, unsigned int size)
{
	uintptr_t a = dev->base + VIRTIO_MMIO_CONFIG + off;

	switch (size) {
	case 1: return mmio_read8(a);
	case 2: {
		uint16_t v = *(volatile uint16_t *)a;
		io_rmb();
		return v;
	}
	default: return mmio_read32(a);
	}
}

uint32_t virtio_config_read(struct virtio_device *dev,
			    unsigned int off,
			    unsigned int size)
{
	return config_read_once(dev, off, size);
}

/* A 64-bit field is two reads: retry until the config generation is stable
 * (legacy devices have no generation counter; it reads 0). A device whose
 * generation never settles is not waited for. */
int virtio_config_read64(struct virtio_device *dev,
			 unsigned int off,
			 uint64_t *val)
{
	uint32_t gen, lo, hi;

	for (unsigned int tries = 0; tries < VIRTIO_CONFIG_TRIES; tries++) {
		gen = reg_read(dev, VIRTIO_MMIO_CONFIG_GENERATION);
		lo = config_read_once(dev, off, 4);
		hi = config_read_once(dev, off + 4, 4);
		if (gen == reg_read(dev, VIRTIO_MMIO_CONFIG_GENERATION)) {
			*val = (uint64_t)hi << 32 | lo;
			return 0;
		}
	}
	pr_err("virtio-mmio@%lx: configuration keeps changing (%u reads); "
	       "not trusted\n",
	       (unsigned long)dev->base,
	       VIRTIO_CONFIG_TRIES);
	return -EIO;
}

unsigned int virtio_queue_max(struct virtio_device *dev, unsigned int index)
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

/**
 * virtio_queue_enable - hand a ring to the device.
 * @desc, @avail, @used: physical addresses. A legacy device takes only
 * @desc as a page frame; the ring must be laid out by vring_init() with
 * 4096-byte alignment (drivers/virtqueue.c always does).
 *
 * Return: 0, or -EINVAL when a legacy ring is above the 44-bit PFN range.
 */
int virtio_queue_enable(struct virtio_device *dev,
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

void virtio_queue_notify(struct virtio_device *dev, unsigned int index)
{
	reg_write(dev, VIRTIO_MMIO_QUEUE_NOTIFY, index);
}

uint32_t virtio_interrupt_status(struct virtio_device *dev)
{
	return reg_read(dev, VIRTIO_MMIO_INTERRUPT_STATUS);
}

uint32_t virtio_interrupt_ack(struct virtio_device *dev)
{
	uint32_t status = reg_read(dev, VIRTIO_MMIO_INTERRUPT_STATUS);

	if (status)
		reg_write(dev, VIRTIO_MMIO_INTERRUPT_ACK, status);
	return status;
}

static bool slot_probe(const struct platform_mmio_dev *slot,
		       unsigned int i,
		       struct virtio_device *dev)
{
	uint32_t magic = mmio_read32(slot->base + VIRTIO_MMIO_MAGIC_VALUE);

	*dev = (struct virtio_device){ .base = slot->base,
				       .irq = slot->irq,
				       .slot = i };
	dev->version = reg_read(dev, VIRTIO_MMIO_VERSION);
	dev->device_id = reg_read(dev, VIRTIO_MMIO_DEVICE_ID);
	if (magic != VIRTIO_MMIO_MAGIC ||
	    (dev->version != 1 && dev->version != 2)) {
		pr_err(
		    "virtio-mmio@%lx: bad magic %#x or version %u, ignored\n",
		    (unsigned long)slot->base,
		    magic,
		    dev->version);
		return false;
	}
	if (dev->device_id == 0)
		return false; /* empty slot */
	reg_write(dev, VIRTIO_MMIO_STATUS, 0);
	pr_info("virtio-mmio@%lx: device %u, %s, irq %u\n",
		(unsigned long)dev->base,
		dev->device_id,
		virtio_is_legacy(dev) ? "legacy" : "modern",
		dev->irq);
	return true;
}

static int virtio_mmio_init(void)
{
	for (unsigned int i = 0; i < platform.nvirtio; i++)
		if (slot_probe(&platform.virtio[i], i, &devices[ndevices]))
			ndevices++;
	return 0;
}
INIT_HOOK(virtio_mmio, virtio_mmio_init, INIT_LEVEL_DEVICE);
