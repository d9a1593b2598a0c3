/*
 * drivers/pci_testutil.c: the made-up configuration space of
 * drivers/pci_testutil.h.
 */
#include <stdio.h>
#include <string.h>
#include <linux/pci_regs.h>
#include <mm/kmalloc.h>
#include "pci_testutil.h"

static struct pci_fake_fn *fn_at(struct pci_fake_bus *bus, uint32_t bdf)
{
	for (unsigned int i = 0; i < bus->nfns; i++)
		if (bus->fn[i].bdf == bdf)
			return &bus->fn[i];
	return NULL;
}

static uint32_t
fake_read(void *ctx, uint32_t bdf, unsigned int off, unsigned int size)
{
	struct pci_fake_fn *f = fn_at(ctx, bdf);
	uint32_t v = 0;

	if (!f || off + size > PCI_CFG_SIZE) /* nothing there */
		return size == 4 ? 0xffffffff : (1u << (8 * size)) - 1;
	memcpy(&v, f->cfg + off, size);
	return v;
}

static void fake_write(
    void *ctx, uint32_t bdf, unsigned int off, unsigned int size, uint32_t val)
{
	struct pci_fake_fn *f = fn_at(ctx, bdf);
	unsigned int bar = (off - PCI_BASE_ADDRESS_0) / 4;
	uint32_t old;

	if (!f || off + size > PCI_CFG_SIZE)
		return;
	/* a bridge's header has two BARs, then its bus numbers */
	if (off >= PCI_BASE_ADDRESS_0 &&
	    bar < ((f->cfg[PCI_HEADER_TYPE] & 0x7f) == 1 ? 2u : PCI_BARS)) {
		memcpy(&old, f->cfg + off, 4);
		val = (val & f->bar_wmask[bar]) | (old & ~f->bar_wmask[bar]);
		size = 4;
	}
	memcpy(f->cfg + off, &val, size);
}

static const struct pci_cfg_ops fake_ops = { fake_read, fake_write };

void pci_fake_put(struct pci_fake_fn *f,
		  unsigned int off,
		  unsigned int size,
		  uint32_t v)
{
	memcpy(f->cfg + off, &v, size);
}

struct pci_fake_fn *pci_fake_add_fn_at(struct pci_fake_bus *bus,
				       uint32_t bdf,
				       uint16_t vendor,
				       uint16_t device)
{
	struct pci_fake_fn *f = &bus->fn[bus->nfns++];

	memset(f, 0, sizeof(*f));
	f->bdf = bdf;
	pci_fake_put(f, PCI_VENDOR_ID, 2, vendor);
	pci_fake_put(f, PCI_DEVICE_ID, 2, device);
	pci_fake_put(f, PCI_CLASS_REVISION, 4, 0x01000000);
	pci_fake_put(f, PCI_INTERRUPT_PIN, 1, 1);
	return f;
}

struct pci_fake_fn *pci_fake_add_fn(struct pci_fake_bus *bus,
				    unsigned int dev,
				    uint16_t vendor,
				    uint16_t device)
{
	return pci_fake_add_fn_at(bus, PCI_BDF(0, dev, 0), vendor, device);
}

void pci_fake_add_bar(struct pci_fake_fn *f,
		      unsigned int i,
		      uint64_t size,
		      bool mem64)
{
	uint64_t mask = ~(size - 1);

	f->bar_wmask[i] = (uint32_t)mask & PCI_BASE_ADDRESS_MEM_MASK;
	if (mem64) {
		pci_fake_put(f,
			     PCI_BASE_ADDRESS_0 + 4 * i,
			     4,
			     PCI_BASE_ADDRESS_MEM_TYPE_64 |
				 PCI_BASE_ADDRESS_MEM_PREFETCH);
		f->bar_wmask[i + 1] = (uint32_t)(mask >> 32);
	}
}

/* QEMU virt's routing: device bits 11-12 of phys.hi and the pin. */
static void virt_routes(struct pci_host *h)
{
	h->mask_hi = 0x1800;
	h->mask_pin = 7;
	for (unsigned int dev = 0; dev < 4; dev++)
		for (unsigned int pin = 1; pin <= 4; pin++)
			h->routes[h->nroutes++] = (struct pci_irq_route){
				.addr_hi = dev << 11,
				.pin = pin,
				.irq = 32 + (dev + pin - 1) % 4,
			};
}

struct pci_fake *pci_fake_new(struct ktest *t, uint64_t cpu)
{
	struct pci_fake *fx = kzalloc(sizeof(*fx), GFP_KERNEL);

	KTEST_ASSERT_NOT_NULL(t, fx);
	snprintf(fx->host.name, sizeof(fx->host.name), "pci@test");
	fx->host.ops = &fake_ops;
	fx->host.ctx = &fx->bus;
	fx->host.ecam_size = 1 << 20;
	fx->host.win[PCI_WIN_MEM32] = (struct pci_window){ .cpu = cpu,
							   .pci = 0x40000000,
							   .size = 1 << 20 };
	virt_routes(&fx->host);
	return fx;
}

uint32_t pci_fake_reg(struct pci_fake_fn *f, unsigned int off)
{
	uint32_t v;

	memcpy(&v, f->cfg + off, 4);
	return v;
}
