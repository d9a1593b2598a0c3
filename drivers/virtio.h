/*
 * drivers/virtio.h: virtio devices on the virtio-mmio transport.
 *
 * At INIT_LEVEL_DEVICE the transport looks at every virtio-mmio slot the
 * device tree lists (platform.virtio[], address order), skips empty slots
 * (device id 0), resets the rest and keeps them in a table. Device drivers
 * (their hooks come later in link order) take their devices with
 * virtio_device_find() and probe them:
 *
 *   virtio_probe_begin(dev);                 // reset, ACKNOWLEDGE, DRIVER
 *   err = virtio_negotiate(dev, wanted);     // FEATURES_OK checked
 *   ... read config, virtqueue_create() ...
 *   virtio_driver_ok(dev);
 *   on any failure: virtio_fail(dev, "why") // FAILED + console message
 *
 * Both transports are handled here, chosen by what the device reports:
 * modern (version 2: VIRTIO_F_VERSION_1, 64-bit queue addresses) and legacy
 * (version 1: GuestPageSize/QueuePFN, 32 feature bits, no FEATURES_OK).
 *
 * Locking: a device belongs to its driver after probe; the transport keeps
 * no mutable shared state. Register accesses of one queue are serialised by
 * that queue's lock (drivers/virtqueue.h).
 */
#pragma once

#include <kernel/compiler.h>

struct virtio_device {
	uintptr_t base;
	unsigned int irq;
	unsigned int slot; /* index in platform.virtio[] */
	uint32_t version;  /* 1 legacy, 2 modern */
	uint32_t device_id;
	uint64_t features; /* negotiated */
	void *priv;	   /* the driver's */
};

/* The @nth (0-based) device with @device_id, or NULL. */
struct virtio_device *virtio_device_find(uint32_t device_id, unsigned int nth);

static inline bool virtio_is_legacy(const struct virtio_device *dev)
{
	return dev->version == 1;
}

static inline bool virtio_has_feature(const struct virtio_device *dev,
				      unsigned int bit)
{
	return dev->features & (1ULL << bit);
}

void virtio_probe_begin(struct virtio_device *dev);
int virtio_negotiate(struct virtio_device *dev, uint64_t wanted);
void virtio_driver_ok(struct virtio_device *dev);
__printf(2,
	 3) void virtio_fail(struct virtio_device *dev, const char *fmt, ...);

/* Device-specific configuration space, little-endian fields. */
uint32_t virtio_config_read(struct virtio_device *dev,
			    unsigned int off,
			    unsigned int size);
#define VIRTIO_CONFIG_TRIES 16
/* A 64-bit config field read whole. Return: 0, or -EIO when the
 * generation changed on every one of VIRTIO_CONFIG_TRIES reads. */
int virtio_config_read64(struct virtio_device *dev,
			 unsigned int off,
			 uint64_t *val);

/* Queue registers, for drivers/virtqueue.c. */
unsigned int virtio_queue_max(struct virtio_device *dev, unsigned int index);
int virtio_queue_enable(struct virtio_device *dev,
			unsigned int index,
			unsigned int num,
			uint64_t desc,
			uint64_t avail,
			uint64_t used);
void virtio_queue_notify(struct virtio_device *dev, unsigned int index);
/* Read and acknowledge the interrupt status (VIRTIO_MMIO_INT_* bits). */
uint32_t virtio_interrupt_ack(struct virtio_device *dev);
/* InterruptStatus without acknowledging it (diagnostics). */
uint32_t virtio_interrupt_status(struct virtio_device *dev);
