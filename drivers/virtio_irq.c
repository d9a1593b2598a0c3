/*
 * drivers/virtio_irq.c: a virtio device's interrupts (see drivers/virtio.h)
 * - one line per queue and one for the configuration where the transport
 * has them (dev->vector_irq), else the one line dev->irq whose handler
 * reads the interrupt status - and DRIVER_OK, which starts them. Each
 * queue's line goes to the hart that uses the queue where the interrupt
 * controller can route it (irq_set_affinity).
 *
 * Locking: none. Everything here is written at probe, before the handlers
 * are registered, and read-only in interrupt context afterwards.
 */
#include <errno.h>
#include <linux/virtio_config.h>
#include <drivers/virtio.h>
#include <kernel/irq.h>
#include <kernel/printk.h>

int virtio_request_irqs(struct virtio_device *dev,
			unsigned int nr_queues,
			void (*on_queue)(void *arg, unsigned int index),
			void (*on_config)(void *arg),
			void *arg)
{
	if (nr_queues + 1 > VIRTIO_MAX_VECTORS)
		return -EINVAL;
	dev->on_queue = on_queue;
	dev->on_config = on_config;
	dev->irq_arg = arg;
	dev->nr_irq_queues = nr_queues;
	dev->nr_queue_vectors = nr_queues;
	dev->vector_irq = 0;
	if (dev->ops->setup_vectors && dev->ops->setup_vectors(dev, nr_queues))
		dev->vector_irq = 0;
	return 0;
}

/* The one line of a device without vectors: the status says what. */
static void virtio_shared_interrupt(void *arg)
{
	struct virtio_device *dev = arg;

	if (virtio_interrupt_ack(dev) & VIRTIO_INT_CONFIG)
		dev->on_config(dev->irq_arg);
	for (unsigned int i = 0; i < dev->nr_irq_queues; i++)
		dev->on_queue(dev->irq_arg, i);
}

/* One vector: the configuration, or its queues (queue line i serves
 * queues i, i + nr_queue_vectors, ...); no status to read. */
static void virtio_vector_interrupt(void *arg)
{
	struct virtio_vector *v = arg;
	struct virtio_device *dev = v->dev;

	if (v->index < 0) {
		dev->on_config(dev->irq_arg);
		return;
	}
	for (unsigned int q = (unsigned int)v->index; q < dev->nr_irq_queues;
	     q += dev->nr_queue_vectors)
		dev->on_queue(dev->irq_arg, q);
}

static int register_vectors(struct virtio_device *dev)
{
	unsigned int n = dev->nr_queue_vectors + 1;
	int err = 0;
	unsigned int i;

	for (i = 0; i < n && !err; i++) {
		dev->vectors[i] = (struct virtio_vector){ dev, (int)i - 1 };
		err = irq_register(dev->vector_irq + i,
				   virtio_vector_interrupt,
				   &dev->vectors[i]);
		/* Queue line q's on hart q mod n, the hart that submits
		 * to queue q (drivers/block.c); where the controller cannot
		 * route (-EOPNOTSUPP), any hart takes it. */
		if (!err && i > 0)
			irq_set_affinity(dev->vector_irq + i, (i - 1) % ncpus);
	}
	if (!err)
		return 0;
	for (i--; i-- > 0;)
		irq_unregister(dev->vector_irq + i);
	return err;
}

int virtio_driver_ok(struct virtio_device *dev)
{
	int err = 0;

	if (dev->on_queue)
		err =
		    dev->vector_irq
			? register_vectors(dev)
			: irq_register(dev->irq, virtio_shared_interrupt, dev);
	if (err)
		return err;
	dev->irqs_registered = dev->on_queue != NULL;
	if (dev->irq_desc[0])
		pr_info("%s: %s\n", dev->name, dev->irq_desc);
	virtio_status_set(dev, VIRTIO_CONFIG_S_DRIVER_OK);
	return 0;
}

void virtio_release_irqs(struct virtio_device *dev)
{
	if (dev->irqs_registered && dev->vector_irq)
		for (unsigned int i = 0; i <= dev->nr_queue_vectors; i++)
			irq_unregister(dev->vector_irq + i);
	else if (dev->irqs_registered)
		irq_unregister(dev->irq);
	dev->irqs_registered = false;
	if (dev->vector_irq && dev->ops->release_vectors)
		dev->ops->release_vectors(dev);
	dev->vector_irq = 0;
}

unsigned int virtio_queue_irq(const struct virtio_device *dev,
			      unsigned int index)
{
	return dev->vector_irq
		   ? dev->vector_irq + 1 + index % dev->nr_queue_vectors
		   : dev->irq;
}
