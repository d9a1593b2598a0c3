/*
 * drivers/virtio_pci_irq.c: a virtio-pci device's interrupts (virtio 1.2,
 * 4.1.4.3 and 4.1.5.1.3): MSI-X, one vector for configuration changes
 * (entry 0) and one per queue (entry 1 + queue), where the device has an
 * MSI-X table with two entries or more and the board an MSI controller its
 * host bridge names (<kernel/msi.h>); else INTx through the interrupt-map.
 * A table smaller than queues + 1 keeps entry 0 for the configuration and
 * shares the others among the queues (queue q on entry 1 + q % (size - 1))
 * rather than leaving MSI-X. With MSI-X the ISR byte is not read: each
 * vector says what happened. A function the interrupt-map gives no INTx
 * (dev->irq 0) has MSI-X or no interrupt at all; its probe then fails.
 *
 * A probe that fails after this gave the device its vectors gives them
 * back (vp_release_vectors, from virtio_fail: MSI-X off, the lines freed).
 *
 * The vectors are written to the common configuration - msix_config
 * here, each queue's queue_msix_vector as it is enabled - and read back:
 * a device that cannot map one answers VIRTIO_MSI_NO_VECTOR, and then
 * the whole device goes back to INTx (MSI-X off: the device then signals
 * INTx and sets the ISR byte whatever its vectors say, 4.1.5.4). No
 * handler is registered until DRIVER_OK (drivers/virtio_irq.c), so going
 * back is only turning MSI-X off.
 *
 * Locking: none; probe only (queue_select is the probe's).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <linux/virtio_pci.h>
#include <kernel/msi.h>
#include <kernel/printk.h>
#include "virtio_pci_internal.h"

static __printf(2, 3) int use_intx(struct virtio_pci_device *vp,
				   const char *fmt,
				   ...)
{
	struct virtio_device *dev = &vp->vdev;
	char why[48];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	pci_msix_disable(vp->pdev, &vp->msix);
	dev->vector_irq = 0;
	/* what follows "virtio-pci@...: " on the console; fits */
	snprintf(dev->irq_desc,
		 sizeof(dev->irq_desc),
		 dev->irq ? "INTx, irq %u (%.40s)" : "no INTx route%.0u (%.40s)",
		 dev->irq,
		 why);
	return -ENODEV;
}

/* Write @vector to the 16-bit register at @off; did it stick? */
static bool
vector_sticks(struct virtio_device *dev, unsigned int off, uint16_t vector)
{
	mmio_write16(common(dev, off), vector);
	return mmio_read16(common(dev, off)) == vector;
}

int vp_setup_vectors(struct virtio_device *dev, unsigned int nr_queues)
{
	struct virtio_pci_device *vp = to_vp(dev);
	const char *controller = msi_controller_name();
	unsigned int nvec = nr_queues + 1;
	int err = pci_msix_find(vp->pdev, &vp->msix);
	size_t at;

	if (err)
		return use_intx(vp,
				err == -ENOENT ? "no MSI-X capability"
					       : "MSI-X capability unusable");
	if (!controller)
		return use_intx(vp, "no MSI controller");
	if (!pci_msi_controller(vp->pdev))
		return use_intx(vp, "host bridge names no MSI controller");
	if (vp->msix.size < 2)
		return use_intx(vp, "1 MSI-X vector, 2 needed");
	nvec = MIN(nvec, vp->msix.size);
	err = pci_msix_enable(vp->pdev, &vp->msix, nvec);
	if (err)
		return use_intx(vp,
				err == -ENOSPC
				    ? "MSI controller has no %u lines"
				    : "not the host's MSI controller%.0u",
				nvec);
	if (!vector_sticks(dev, VIRTIO_PCI_COMMON_MSIX, 0))
		return use_intx(vp, "device refused the config vector");
	dev->vector_irq = vp->msix.first_irq;
	dev->nr_queue_vectors = nvec - 1;
	at = (size_t)snprintf(dev->irq_desc,
			      sizeof(dev->irq_desc),
			      "MSI-X, %u vectors (%s %u-%u)",
			      nvec,
			      controller,
			      vp->msix.first_irq,
			      vp->msix.first_irq + nvec - 1);
	if (nvec - 1 < nr_queues && at < sizeof(dev->irq_desc))
		snprintf(dev->irq_desc + at,
			 sizeof(dev->irq_desc) - at,
			 ", %u queues on %u",
			 nr_queues,
			 nvec - 1);
	return 0;
}

void vp_release_vectors(struct virtio_device *dev)
{
	struct virtio_pci_device *vp = to_vp(dev);

	vector_sticks(dev, VIRTIO_PCI_COMMON_MSIX, VIRTIO_MSI_NO_VECTOR);
	pci_msix_disable(vp->pdev, &vp->msix);
}

void vp_queue_vector(struct virtio_pci_device *vp, unsigned int index)
{
	struct virtio_device *dev = &vp->vdev;

	if (!dev->vector_irq)
		return;
	if (index >= dev->nr_irq_queues)
		use_intx(vp, "queue %u has no vector", index);
	else if (!vector_sticks(dev,
				VIRTIO_PCI_COMMON_Q_MSIX,
				(uint16_t)(1 + index % dev->nr_queue_vectors)))
		use_intx(vp, "device refused queue %u's vector", index);
}
