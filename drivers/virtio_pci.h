/*
 * drivers/virtio_pci.h: where a virtio-pci modern device keeps its
 * registers (virtio 1.2, 4.1.4), for drivers/virtio_pci.c and its test.
 *
 * The device lists vendor-specific capabilities, each naming a BAR, an
 * offset and a length; the first of each type the driver can use is the
 * one (4.1.4). The common configuration, the notification area and the ISR
 * byte are required; the device-specific configuration is not (a device
 * type without one has nothing there).
 */
#pragma once

#include <drivers/pci.h>

struct virtio_pci_regions {
	uint64_t common, notify, isr,
	    device; /* CPU addresses; device 0: none */
	uint32_t notify_len, device_len;
	uint32_t notify_off_multiplier;
};

/* Walk @dev's capabilities into @r. Return: 0, or -EINVAL/-ELOOP/-ERANGE
 * after a console message naming the capability that is wrong. */
int virtio_pci_find_regions(const struct pci_dev *dev,
			    struct virtio_pci_regions *r);
