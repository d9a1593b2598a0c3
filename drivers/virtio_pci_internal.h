/*
 * drivers/virtio_pci_internal.h: what drivers/virtio_pci.c (the transport)
 * and drivers/virtio_pci_irq.c (its interrupts) share, and nothing else
 * includes.
 */
#pragma once

#include <drivers/pci.h>
#include <drivers/virtio.h>
#include <drivers/virtio_pci.h>
#include <kernel/arch.h>

#define VIRTIO_PCI_MAX_QUEUES 16

struct virtio_pci_device {
	struct virtio_device vdev;
	struct pci_dev *pdev;
	struct virtio_pci_regions r;
	uintptr_t notify_at[VIRTIO_PCI_MAX_QUEUES]; /* set at queue_enable */
	struct pci_msix msix;			    /* nvec 0: INTx */
};

static inline struct virtio_pci_device *to_vp(struct virtio_device *dev)
{
	return container_of(dev, struct virtio_pci_device, vdev);
}

static inline uintptr_t common(struct virtio_device *dev, unsigned int off)
{
	return (uintptr_t)to_vp(dev)->r.common + off;
}

/* The transport's setup_vectors (struct virtio_transport). */
int vp_setup_vectors(struct virtio_device *dev, unsigned int nr_queues);
/* The transport's release_vectors: MSI-X off, its lines freed. */
void vp_release_vectors(struct virtio_device *dev);
/* At queue_enable, queue @index selected: its MSI-X vector, if MSI-X is
 * on; a refusal turns MSI-X off for the whole device (INTx). */
void vp_queue_vector(struct virtio_pci_device *vp, unsigned int index);
