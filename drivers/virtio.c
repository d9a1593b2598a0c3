/*
 * drivers/virtio.c: the transport-independent part of virtio (see
 * drivers/virtio.h): the device table, the status steps of a probe,
 * feature negotiation and the generation-checked 64-bit config read.
 * Interrupts and DRIVER_OK: drivers/virtio_irq.c.
 *
 * Locking: none. The table is written by the transports' init hooks before
 * any task runs and read-only afterwards.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <linux/virtio_config.h>
#include <drivers/virtio.h>
#include <kernel/printk.h>

#define VIRTIO_MAX_DEVICES 32

static struct virtio_device *devices[VIRTIO_MAX_DEVICES];
static unsigned int ndevices;

int virtio_register(struct virtio_device *dev)
{
	if (ndevices == VIRTIO_MAX_DEVICES) {
		pr_warn("%s: device %u not used: %u virtio devices already\n",
			dev->name,
			dev->device_id,
			VIRTIO_MAX_DEVICES);
		return -ENOSPC;
	}
	devices[ndevices++] = dev;
	return 0;
}

struct virtio_device *virtio_device_find(uint32_t device_id, unsigned int nth)
{
	for (unsigned int i = 0; i < ndevices; i++)
		if (devices[i]->device_id == device_id && nth-- == 0)
			return devices[i];
	return NULL;
}

void virtio_status_set(struct virtio_device *dev, uint8_t bits)
{
	dev->ops->set_status(dev, dev->ops->get_status(dev) | bits);
}

void virtio_probe_begin(struct virtio_device *dev)
{
	dev->ops->set_status(dev, 0);
	virtio_status_set(dev, VIRTIO_CONFIG_S_ACKNOWLEDGE);
	virtio_status_set(dev, VIRTIO_CONFIG_S_DRIVER);
}

void virtio_fail(struct virtio_device *dev, const char *fmt, ...)
{
	char msg[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* Reset first: the device lets go of its queues and raises no
	 * interrupt more, so the driver may free what they used. */
	dev->ops->set_status(dev, 0);
	virtio_release_irqs(dev);
	virtio_status_set(dev, VIRTIO_CONFIG_S_FAILED);
	pr_err("%s: device %u refused: %s\n", dev->name, dev->device_id, msg);
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
	uint64_t offered = dev->ops->get_features(dev);

	if (!virtio_is_legacy(dev)) {
		if (!(offered & (1ULL << VIRTIO_F_VERSION_1)))
			return -ENODEV;
		wanted |= 1ULL << VIRTIO_F_VERSION_1;
	}
	dev->features = offered & wanted;
	dev->ops->set_features(dev, dev->features);
	if (virtio_is_legacy(dev))
		return 0;
	virtio_status_set(dev, VIRTIO_CONFIG_S_FEATURES_OK);
	if (!(dev->ops->get_status(dev) & VIRTIO_CONFIG_S_FEATURES_OK))
		return -ENODEV;
	return 0;
}

/* A 64-bit field is two reads: retry until the config generation is stable
 * (legacy devices have no generation counter; it reads 0). A device whose
 * generation never settles is not waited for. */
int virtio_config_read64(struct virtio_device *dev,
			 unsigned int off,
			 uint64_t *val)
{
	const struct virtio_transport *ops = dev->ops;
	uint32_t gen, lo, hi;

	for (unsigned int tries = 0; tries < VIRTIO_CONFIG_TRIES; tries++) {
		gen = ops->config_generation(dev);
		lo = ops->config_read(dev, off, 4);
		hi = ops->config_read(dev, off + 4, 4);
		if (gen == ops->config_generation(dev)) {
			*val = (uint64_t)hi << 32 | lo;
			return 0;
		}
	}
	pr_err("%s: configuration keeps changing (%u reads); not trusted\n",
	       dev->name,
	       VIRTIO_CONFIG_TRIES);
	return -EIO;
}

void virtio_queue_notify(struct virtio_device *dev, unsigned int index)
{
	dev->ops->queue_notify(dev, index);
}
