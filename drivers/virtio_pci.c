/*
 * drivers/virtio_pci.c: the virtio-pci modern transport (virtio 1.2, 4.1).
 *
 * Offers a struct virtio_transport (drivers/virtio.h) for each virtio
 * function the PCI enumeration kept (drivers/pci.h): vendor 0x1af4,
 * devices 0x1040 + id (modern) or 0x1000-0x103f (transitional: the id is
 * the subsystem device id; only their modern interface is used). Its
 * registers are found through its capabilities (drivers/virtio_pci.h):
 * the common configuration (features through a select register, status,
 * and each queue through queue_select), the notification area (queue N is
 * notified at notify + queue_notify_off(N) * notify_off_multiplier), the
 * ISR byte (reading it acknowledges the interrupt) and the device's own
 * configuration. Interrupts: MSI-X where the device and the board's MSI
 * controller allow, else INTx through the host bridge's interrupt-map
 * (drivers/virtio_pci_irq.c).
 *
 * Locking: none here. queue_select is shared by every queue: it is only
 * used while the device is probed, before any request; a queue's notify
 * address is computed then and read-only afterwards.
 */
#include <errno.h>
#include <stdio.h>
#include <linux/pci_regs.h>
#include <linux/virtio_pci.h>
#include <drivers/virtio.h>
#include <drivers/virtio_pci.h>
#include "virtio_pci_internal.h"
#include <kernel/arch.h>
#include <kernel/init.h>
#include <kernel/printk.h>

#define VIRTIO_PCI_VENDOR	0x1af4
#define VIRTIO_PCI_TRANSITIONAL 0x1000 /* 0x1000-0x103f */
#define VIRTIO_PCI_MODERN	0x1040 /* + device id, up to 0x107f */
#define VIRTIO_PCI_MAX_CAPS	16
#define RESET_POLLS		1000000

BUILD_BUG_ON(VIRTIO_PCI_ISR_CONFIG != VIRTIO_INT_CONFIG);

static struct virtio_pci_device devices[PCI_MAX_DEVICES];
static unsigned int ndevices;

/* The smallest length each capability type needs. */
static const uint32_t min_length[] = {
	[VIRTIO_PCI_CAP_COMMON_CFG] = sizeof(struct virtio_pci_common_cfg),
	[VIRTIO_PCI_CAP_NOTIFY_CFG] = 2,
	[VIRTIO_PCI_CAP_ISR_CFG] = 1,
	[VIRTIO_PCI_CAP_DEVICE_CFG] = 0,
};

/* Is the capability at @at whole inside configuration space, and as
 * long as its type needs? Read before anything past its header. */
static bool cap_fits(const struct pci_dev *d, unsigned int at)
{
	unsigned int len = pci_read(d, at + VIRTIO_PCI_CAP_LEN, 1);
	unsigned int type = pci_read(d, at + VIRTIO_PCI_CAP_CFG_TYPE, 1);
	unsigned int need = type == VIRTIO_PCI_CAP_NOTIFY_CFG
				? sizeof(struct virtio_pci_notify_cap)
				: sizeof(struct virtio_pci_cap);

	if (len >= need && at + len <= PCI_CFG_SIZE)
		return true;
	pr_err("%s: virtio capability at %#x is %u bytes; device skipped\n",
	       d->name,
	       at,
	       len);
	return false;
}

static int read_cap(const struct pci_dev *d,
		    unsigned int at,
		    struct virtio_pci_regions *r,
		    bool *found)
{
	unsigned int type, bar;
	uint32_t off, length;
	const struct pci_bar *b;

	if (!cap_fits(d, at))
		return -EINVAL;
	type = pci_read(d, at + VIRTIO_PCI_CAP_CFG_TYPE, 1);
	bar = pci_read(d, at + VIRTIO_PCI_CAP_BAR, 1);
	/* unknown types, reserved BAR numbers and repeats are skipped
	 * (4.1.4: the first one the driver can use is the one) */
	if (type < VIRTIO_PCI_CAP_COMMON_CFG ||
	    type > VIRTIO_PCI_CAP_DEVICE_CFG || found[type] || bar >= PCI_BARS)
		return 0;
	off = pci_read(d, at + VIRTIO_PCI_CAP_OFFSET, 4);
	length = pci_read(d, at + VIRTIO_PCI_CAP_LENGTH, 4);
	b = &d->bar[bar];
	if (!b->addr || (uint64_t)off + length > b->size ||
	    length < min_length[type]) {
		pr_err("%s: virtio capability %u at %#x (BAR %u, offset %#x, "
		       "%u bytes) is not inside a memory BAR in use (%#llx "
		       "bytes) or too short; device skipped\n",
		       d->name,
		       type,
		       at,
		       bar,
		       off,
		       length,
		       (unsigned long long)b->size);
		return -EINVAL;
	}
	found[type] = true;
	switch (type) {
	case VIRTIO_PCI_CAP_COMMON_CFG: r->common = b->addr + off; break;
	case VIRTIO_PCI_CAP_ISR_CFG: r->isr = b->addr + off; break;
	case VIRTIO_PCI_CAP_DEVICE_CFG:
		r->device = b->addr + off;
		r->device_len = length;
		break;
	case VIRTIO_PCI_CAP_NOTIFY_CFG:
		r->notify = b->addr + off;
		r->notify_len = length;
		r->notify_off_multiplier =
		    pci_read(d, at + VIRTIO_PCI_NOTIFY_CAP_MULT, 4);
		break;
	}
	return 0;
}

int virtio_pci_find_regions(const struct pci_dev *d,
			    struct virtio_pci_regions *r)
{
	uint8_t pos[VIRTIO_PCI_MAX_CAPS];
	bool found[VIRTIO_PCI_CAP_DEVICE_CFG + 1] = { false };
	int n = pci_find_caps(d, PCI_CAP_ID_VNDR, pos, ARRAY_SIZE(pos));

	*r = (struct virtio_pci_regions){ 0 };
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		int err = read_cap(d, pos[i], r, found);
		if (err)
			return err;
	}
	if (!found[VIRTIO_PCI_CAP_COMMON_CFG] ||
	    !found[VIRTIO_PCI_CAP_NOTIFY_CFG] ||
	    !found[VIRTIO_PCI_CAP_ISR_CFG]) {
		pr_err("%s: no common, notify or ISR capability: not a "
		       "virtio 1.x device; skipped\n",
		       d->name);
		return -EINVAL;
	}
	return 0;
}

static uint8_t vp_get_status(struct virtio_device *dev)
{
	return mmio_read8(common(dev, VIRTIO_PCI_COMMON_STATUS));
}

/* Writing 0 resets the device, done when status reads 0 again (4.1.4.3.2). */
static void vp_set_status(struct virtio_device *dev, uint8_t status)
{
	mmio_write8(common(dev, VIRTIO_PCI_COMMON_STATUS), status);
	for (unsigned int i = 0; !status && vp_get_status(dev); i++)
		if (i == RESET_POLLS) {
			pr_err("%s: device does not finish its reset\n",
			       dev->name);
			return;
		}
}

static uint64_t vp_get_features(struct virtio_device *dev)
{
	uint64_t f;

	mmio_write32(common(dev, VIRTIO_PCI_COMMON_DFSELECT), 0);
	f = mmio_read32(common(dev, VIRTIO_PCI_COMMON_DF));
	mmio_write32(common(dev, VIRTIO_PCI_COMMON_DFSELECT), 1);
	return f | (uint64_t)mmio_read32(common(dev, VIRTIO_PCI_COMMON_DF))
		       << 32;
}

static void vp_set_features(struct virtio_device *dev, uint64_t f)
{
	mmio_write32(common(dev, VIRTIO_PCI_COMMON_GFSELECT), 0);
	mmio_write32(common(dev, VIRTIO_PCI_COMMON_GF), (uint32_t)f);
	mmio_write32(common(dev, VIRTIO_PCI_COMMON_GFSELECT), 1);
	mmio_write32(common(dev, VIRTIO_PCI_COMMON_GF), (uint32_t)(f >> 32));
}

/* A field past the device's configuration reads 0. */
static uint32_t
vp_config_read(struct virtio_device *dev, unsigned int off, unsigned int size)
{
	struct virtio_pci_device *vp = to_vp(dev);

	if (!vp->r.device || off + size > vp->r.device_len)
		return 0;
	return mmio_read_sized((uintptr_t)vp->r.device + off, size);
}

static uint32_t vp_config_generation(struct virtio_device *dev)
{
	return mmio_read8(common(dev, VIRTIO_PCI_COMMON_CFGGENERATION));
}

static unsigned int vp_queue_max(struct virtio_device *dev, unsigned int index)
{
	if (index >= VIRTIO_PCI_MAX_QUEUES ||
	    index >= mmio_read16(common(dev, VIRTIO_PCI_COMMON_NUMQ)))
		return 0;
	mmio_write16(common(dev, VIRTIO_PCI_COMMON_Q_SELECT), (uint16_t)index);
	if (mmio_read16(common(dev, VIRTIO_PCI_COMMON_Q_ENABLE)))
		return 0; /* already in use */
	return mmio_read16(common(dev, VIRTIO_PCI_COMMON_Q_SIZE));
}

static void write64(struct virtio_device *dev, unsigned int lo, uint64_t v)
{
	mmio_write32(common(dev, lo), (uint32_t)v);
	mmio_write32(common(dev, lo + 4), (uint32_t)(v >> 32));
}

/* Return: 0, or -EINVAL when the queue's notify address is past the
 * notification area. */
static int vp_queue_enable(struct virtio_device *dev,
			   unsigned int index,
			   unsigned int num,
			   uint64_t desc,
			   uint64_t avail,
			   uint64_t used)
{
	struct virtio_pci_device *vp = to_vp(dev);
	uint64_t at;

	mmio_write16(common(dev, VIRTIO_PCI_COMMON_Q_SELECT), (uint16_t)index);
	at = (uint64_t)mmio_read16(common(dev, VIRTIO_PCI_COMMON_Q_NOFF)) *
	     vp->r.notify_off_multiplier;
	if (index >= VIRTIO_PCI_MAX_QUEUES || at + 2 > vp->r.notify_len) {
		pr_err("%s: queue %u notifies at %#llx, past the %u-byte "
		       "notification area\n",
		       dev->name,
		       index,
		       (unsigned long long)at,
		       vp->r.notify_len);
		return -EINVAL;
	}
	vp->notify_at[index] = (uintptr_t)(vp->r.notify + at);
	vp_queue_vector(vp, index);
	mmio_write16(common(dev, VIRTIO_PCI_COMMON_Q_SIZE), (uint16_t)num);
	write64(dev, VIRTIO_PCI_COMMON_Q_DESCLO, desc);
	write64(dev, VIRTIO_PCI_COMMON_Q_AVAILLO, avail);
	write64(dev, VIRTIO_PCI_COMMON_Q_USEDLO, used);
	mmio_write16(common(dev, VIRTIO_PCI_COMMON_Q_ENABLE), 1);
	return 0;
}

static void vp_queue_notify(struct virtio_device *dev, unsigned int index)
{
	mmio_write16(to_vp(dev)->notify_at[index], (uint16_t)index);
}

static uint32_t vp_interrupt_ack(struct virtio_device *dev)
{
	return mmio_read8((uintptr_t)to_vp(dev)->r.isr);
}

static const struct virtio_transport pci_transport = {
	.get_status = vp_get_status,
	.set_status = vp_set_status,
	.get_features = vp_get_features,
	.set_features = vp_set_features,
	.config_read = vp_config_read,
	.config_generation = vp_config_generation,
	.queue_max = vp_queue_max,
	.queue_enable = vp_queue_enable,
	.queue_notify = vp_queue_notify,
	.interrupt_ack = vp_interrupt_ack,
	/* no interrupt_peek: reading the ISR acknowledges it */
	.setup_vectors = vp_setup_vectors,
	.release_vectors = vp_release_vectors,
};

/* The virtio device id of @d, or 0 if it is no virtio device. */
static uint32_t virtio_id_of(const struct pci_dev *d)
{
	if (d->vendor != VIRTIO_PCI_VENDOR ||
	    d->device < VIRTIO_PCI_TRANSITIONAL ||
	    d->device >= VIRTIO_PCI_MODERN + 0x40)
		return 0;
	return d->device >= VIRTIO_PCI_MODERN ? d->device - VIRTIO_PCI_MODERN
					      : d->subsys_device;
}

static bool function_probe(struct pci_dev *pdev, struct virtio_pci_device *vp)
{
	struct virtio_device *dev = &vp->vdev;

	*vp = (struct virtio_pci_device){ .pdev = pdev };
	dev->device_id = virtio_id_of(pdev);
	if (!dev->device_id || virtio_pci_find_regions(pdev, &vp->r))
		return false;
	dev->ops = &pci_transport;
	dev->transport = "virtio-pci modern";
	dev->irq = pdev->irq;
	snprintf(dev->name,
		 sizeof(dev->name),
		 "virtio-pci@%02x:%02x.%u",
		 pdev->bdf >> 8,
		 (pdev->bdf >> 3) & 31,
		 pdev->bdf & 7);
	vp_set_status(dev, 0);
	if (dev->irq)
		pr_info("%s: device %u, modern, irq %u\n",
			dev->name,
			dev->device_id,
			dev->irq);
	else /* MSI-X or nothing: drivers/virtio_pci_irq.c */
		pr_info("%s: device %u, modern, no INTx route in the "
			"interrupt-map: MSI-X only\n",
			dev->name,
			dev->device_id);
	return true;
}

static int virtio_pci_init(void)
{
	struct pci_dev *pdev;

	for (unsigned int i = 0; (pdev = pci_device_nth(i)); i++)
		if (function_probe(pdev, &devices[ndevices]) &&
		    !virtio_register(&devices[ndevices].vdev))
			ndevices++;
	return 0;
}
INIT_HOOK(virtio_pci, virtio_pci_init, INIT_LEVEL_DEVICE);
