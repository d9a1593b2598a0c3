/*
 * drivers/virtio.h: virtio devices, whatever transport carries them.
 *
 * A transport (drivers/virtio_mmio.c, drivers/virtio_pci.c) finds its
 * devices at INIT_LEVEL_DEVICE, resets them and hands each to
 * virtio_register() with its struct virtio_transport. Device drivers
 * (their hooks come later in link order) take their devices with
 * virtio_device_find() - virtio-mmio ones first, in address order, then
 * virtio-pci ones in bus order - and probe them the same way on both:
 *
 *   virtio_probe_begin(dev);                 // reset, ACKNOWLEDGE, DRIVER
 *   err = virtio_negotiate(dev, wanted);     // FEATURES_OK checked
 *   ... read config ...
 *   virtio_request_irqs(dev, nq, on_queue, on_config, arg);
 *   ... virtqueue_create() for queues 0..nq-1 ...
 *   err = virtio_driver_ok(dev);             // handlers live, DRIVER_OK
 *   on any failure: virtio_fail(dev, "why") // reset, FAILED + message
 *   ... then free the queues ...            // the device let go of them
 *
 * Modern devices (virtio 1.x: VIRTIO_F_VERSION_1, 64-bit features,
 * FEATURES_OK) and legacy ones (virtio-mmio version 1 only: 32 feature
 * bits, no FEATURES_OK) differ in negotiation here; the rest is the
 * transport's.
 *
 * Interrupts: where the transport has lines of its own (virtio-pci's
 * MSI-X, drivers/virtio_pci_irq.c) on_config(arg) runs on the
 * configuration's and on_queue(arg, i) on queue i's - queue line i %
 * nr_queue_vectors, shared by several queues when the device has fewer
 * vectors than queues; otherwise (INTx, virtio-mmio) one line, dev->irq,
 * whose handler reads the interrupt status and calls on_config if it says
 * so and on_queue for every queue. Either way the handlers are registered
 * by virtio_driver_ok(), after the queues exist, and a failed probe
 * (virtio_fail) unregisters them and gives the transport's lines back.
 *
 * Locking: a device belongs to its driver after probe; the transports keep
 * no mutable shared state. Register accesses of one queue are serialised by
 * that queue's lock (drivers/virtqueue.h); queue set-up (the select
 * registers) happens only at probe.
 */
#pragma once

#include <kernel/compiler.h>

/* Interrupt status bits, the same on both transports (virtio 1.2, 4.1.4.5
 * and 4.2.2). */
#define VIRTIO_INT_VRING  0x1
#define VIRTIO_INT_CONFIG 0x2

struct virtio_device;

/* What a transport does for the core; every hook is required but
 * interrupt_peek. */
struct virtio_transport {
	uint8_t (*get_status)(struct virtio_device *dev);
	void (*set_status)(struct virtio_device *dev, uint8_t status);
	/* 32 bits on a legacy device, 64 otherwise. */
	uint64_t (*get_features)(struct virtio_device *dev);
	void (*set_features)(struct virtio_device *dev, uint64_t features);
	/* Device-specific configuration, little-endian fields of 1, 2 or 4
	 * bytes; the generation counter (0 where there is none). */
	uint32_t (*config_read)(struct virtio_device *dev,
				unsigned int off,
				unsigned int size);
	uint32_t (*config_generation)(struct virtio_device *dev);
	/* The queue's largest size, 0 if absent or already live. */
	unsigned int (*queue_max)(struct virtio_device *dev,
				  unsigned int index);
	int (*queue_enable)(struct virtio_device *dev,
			    unsigned int index,
			    unsigned int num,
			    uint64_t desc,
			    uint64_t avail,
			    uint64_t used);
	void (*queue_notify)(struct virtio_device *dev, unsigned int index);
	/* Read and acknowledge the VIRTIO_INT_* bits. */
	uint32_t (*interrupt_ack)(struct virtio_device *dev);
	/* Read them without acknowledging; NULL where reading acknowledges
	 * (PCI's ISR). */
	uint32_t (*interrupt_peek)(struct virtio_device *dev);
	/* Optional: an interrupt line for the configuration and one for
	 * each of queues 0..@nr_queues-1, before they are enabled (their
	 * vectors go with queue_enable). Return: 0 and dev->vector_irq set
	 * (the configuration's line; queue i's is that + 1 + i), or
	 * negative: the one line dev->irq serves all. Fewer lines than
	 * queues + 1: dev->nr_queue_vectors says how many the queues
	 * share. dev->irq_desc says which, for the console. */
	int (*setup_vectors)(struct virtio_device *dev, unsigned int nr_queues);
	/* Optional: give back what setup_vectors took (a failed probe; the
	 * handlers are unregistered). */
	void (*release_vectors)(struct virtio_device *dev);
};

/* Most interrupt lines one device uses: the configuration's, a queue's
 * each. */
#define VIRTIO_MAX_VECTORS 17

struct virtio_device {
	const struct virtio_transport *ops;
	const char *transport; /* "virtio-mmio legacy", "virtio-pci modern" */
	char name[32];	       /* for messages: "virtio-mmio@10001000" */
	unsigned int irq;
	bool legacy;
	uint32_t device_id;
	uint64_t features; /* negotiated */
	void *priv;	   /* the driver's */
	/* interrupts, from virtio_request_irqs (probe only): */
	void (*on_queue)(void *arg, unsigned int index);
	void (*on_config)(void *arg);
	void *irq_arg;
	unsigned int nr_irq_queues;
	unsigned int vector_irq; /* 0: all on irq; else see setup_vectors */
	unsigned int nr_queue_vectors; /* queue q's: vector_irq + 1 + q % it */
	bool irqs_registered;	       /* by virtio_driver_ok */
	char irq_desc[64]; /* the transport's: "MSI-X, 5 vectors (...)" */
	struct virtio_vector {
		struct virtio_device *dev;
		int index; /* the queue, or -1: the configuration */
	} vectors[VIRTIO_MAX_VECTORS];
};

/* Transports: add @dev (filled, reset) to the table. Return: 0, -ENOSPC. */
int virtio_register(struct virtio_device *dev);
/* The @nth (0-based) device with @device_id, or NULL. */
struct virtio_device *virtio_device_find(uint32_t device_id, unsigned int nth);

static inline bool virtio_is_legacy(const struct virtio_device *dev)
{
	return dev->legacy;
}

static inline bool virtio_has_feature(const struct virtio_device *dev,
				      unsigned int bit)
{
	return dev->features & (1ULL << bit);
}

void virtio_probe_begin(struct virtio_device *dev);
/* Add @bits to the device status (the core's probe steps). */
void virtio_status_set(struct virtio_device *dev, uint8_t bits);
int virtio_negotiate(struct virtio_device *dev, uint64_t wanted);
/**
 * virtio_request_irqs() - say which handlers the device's interrupts run.
 * @dev: the device, negotiated, its queues not yet created.
 * @nr_queues: queues 0..@nr_queues-1 will be created.
 * @on_queue: called with @arg and a queue's index when it has used buffers.
 * @on_config: called with @arg when the configuration changed.
 * @arg: the driver's.
 *
 * Lets the transport give each queue its own line (setup_vectors); the
 * handlers are not live until virtio_driver_ok().
 * Context: probe; may sleep. Return: 0, or -EINVAL (too many queues).
 */
int virtio_request_irqs(struct virtio_device *dev,
			unsigned int nr_queues,
			void (*on_queue)(void *arg, unsigned int index),
			void (*on_config)(void *arg),
			void *arg);
/* Register the interrupt handlers, then set DRIVER_OK. Return: 0, or
 * irq_register's error (the device not started). */
int virtio_driver_ok(struct virtio_device *dev);
/* Unregister what virtio_driver_ok registered and give the transport's
 * lines back (virtio_fail's; probe only). */
void virtio_release_irqs(struct virtio_device *dev);
/* The line queue @index interrupts on (diagnostics). */
unsigned int virtio_queue_irq(const struct virtio_device *dev,
			      unsigned int index);
/* Refuse @dev: reset it (it no longer uses its queues, so the driver may
 * free them afterwards), release its interrupts (virtio_release_irqs), set
 * FAILED and say why on the console. */
__printf(2,
	 3) void virtio_fail(struct virtio_device *dev, const char *fmt, ...);

/* Device-specific configuration space, little-endian fields. */
static inline uint32_t virtio_config_read(struct virtio_device *dev,
					  unsigned int off,
					  unsigned int size)
{
	return dev->ops->config_read(dev, off, size);
}
#define VIRTIO_CONFIG_TRIES 16
/* A 64-bit config field read whole. Return: 0, or -EIO when the
 * generation changed on every one of VIRTIO_CONFIG_TRIES reads. */
int virtio_config_read64(struct virtio_device *dev,
			 unsigned int off,
			 uint64_t *val);

/* Queue registers, for drivers/virtqueue.c. */
static inline unsigned int virtio_queue_max(struct virtio_device *dev,
					    unsigned int index)
{
	return dev->ops->queue_max(dev, index);
}

static inline int virtio_queue_enable(struct virtio_device *dev,
				      unsigned int index,
				      unsigned int num,
				      uint64_t desc,
				      uint64_t avail,
				      uint64_t used)
{
	return dev->ops->queue_enable(dev, index, num, desc, avail, used);
}

void virtio_queue_notify(struct virtio_device *dev, unsigned int index);

/* Read and acknowledge the interrupt status (VIRTIO_INT_* bits). */
static inline uint32_t virtio_interrupt_ack(struct virtio_device *dev)
{
	return dev->ops->interrupt_ack(dev);
}

/* The interrupt status without acknowledging it (diagnostics).
 * Return: false where the transport cannot read it without. */
static inline bool virtio_interrupt_peek(struct virtio_device *dev,
					 uint32_t *status)
{
	if (!dev->ops->interrupt_peek)
		return false;
	*status = dev->ops->interrupt_peek(dev);
	return true;
}
