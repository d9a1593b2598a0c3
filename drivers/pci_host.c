/*
 * drivers/pci_host.c: the generic ECAM host bridge - what its device-tree
 * node says (IEEE 1275 PCI bus binding, Linux's host-generic-pci.yaml),
 * its configuration accesses, its INTx routing, and the init hook that
 * enumerates it (see drivers/pci.h).
 *
 * The node must have `reg` (the ECAM window: 1 MiB per bus, the first at
 * bus-range's start), `ranges` (#address-cells 3, #size-cells 2: phys.hi
 * bits 24-25 say I/O, 32-bit or 64-bit memory, bit 30 prefetchable) with
 * at least one memory window, and for INTx `interrupt-map` +
 * `interrupt-map-mask` (#interrupt-cells 1: the pin; the parent's
 * specifier is read by platform_irq_spec(): the PLIC's one cell, the
 * APLIC's two or the GIC's three). `bus-range`
 * defaults to 0-255; one that `reg` cannot hold is a contradiction,
 * reported, and the bridge is not used. `msi-parent` or `msi-map` names
 * the MSI controller (<kernel/msi.h>); without them functions use INTx.
 * The buses of the range are
 * enumerated by drivers/pci.c.
 *
 * Locking: none; boot hart, before any task.
 */
#include <errno.h>
#include <stdio.h>
#include <linux/pci_regs.h>
#include <drivers/pci.h>
#include <kernel/arch.h>
#include <kernel/fdt.h>
#include <kernel/init.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <mm/vm.h>

#define ECAM_BUS_SIZE (1u << 20)
#define PCI_SPACE(hi) (((hi) >> 24) & 3) /* 1 I/O, 2 mem32, 3 mem64 */
#define PCI_PREFETCH  (1u << 30)

static struct pci_host host;
static struct pci_dev devices[PCI_MAX_DEVICES];
static unsigned int ndevices;

static uint64_t cells(const void *p, int at, uint32_t n)
{
	uint64_t v = 0;

	for (uint32_t i = 0; i < n; i++)
		v = v << 32 | fdt_cell(p, at + (int)i);
	return v;
}

static uint32_t cells_of(int node, const char *name, uint32_t dflt)
{
	uint32_t v = dflt;

	fdt_read_u32(node, name, &v);
	return v;
}

static int read_ranges(int node, struct pci_host *h)
{
	uint32_t pac = cells_of(fdt_parent(node), "#address-cells", 2);
	uint32_t entry = 3 + pac + 2;
	int len;
	const void *r = fdt_getprop(node, "ranges", &len);

	if (!r || !len || pac > 2 || len % (entry * 4)) {
		pr_err("%s: no usable ranges (%s); host bridge not used\n",
		       h->name,
		       r ? "not whole entries" : "missing");
		return -EINVAL;
	}
	for (int i = 0; i < len / (int)(entry * 4); i++) {
		int at = i * (int)entry;
		uint32_t hi = fdt_cell(r, at);
		struct pci_window *w =
		    &h->win[PCI_SPACE(hi) == 1	 ? PCI_WIN_IO
			    : PCI_SPACE(hi) == 2 ? PCI_WIN_MEM32
						 : PCI_WIN_MEM64];

		if (PCI_SPACE(hi) == 0 || w->size)
			continue; /* configuration space, or a second one */
		w->pci = cells(r, at + 1, 2);
		w->cpu = cells(r, at + 3, pac);
		w->size = cells(r, at + 3 + (int)pac, 2);
		w->prefetch = hi & PCI_PREFETCH;
	}
	return 0;
}

/* interrupt-map entries: child unit address (3 cells), child interrupt
 * (1: the pin), the parent's phandle, the parent's unit address (its
 * #address-cells, default 0) and interrupt (its #interrupt-cells: the
 * PLIC's source, or the GIC's type, number and flags). An entry whose
 * interrupt cannot be read is said and the rest ignored. */
static void read_irq_map(int node, struct pci_host *h)
{
	int len, at = 0;
	const void *map = fdt_getprop(node, "interrupt-map", &len);
	const void *mask = fdt_getprop(node, "interrupt-map-mask", NULL);

	if (!map || cells_of(node, "#interrupt-cells", 1) != 1) {
		pr_warn("%s: no interrupt-map: devices get no INTx\n", h->name);
		return;
	}
	h->mask_hi = mask ? fdt_cell(mask, 0) : ~0u;
	h->mask_pin = mask ? fdt_cell(mask, 3) : ~0u;
	while ((at + 5) * 4 <= len && h->nroutes < PCI_MAX_IRQ_MAP) {
		int parent = fdt_node_by_phandle(fdt_cell(map, at + 4));
		uint32_t pac = cells_of(parent, "#address-cells", 0);
		uint32_t pic = cells_of(parent, "#interrupt-cells", 0);
		int next = at + 5 + (int)(pac + pic);
		unsigned int irq;

		if (parent < 0 || !pic || next * 4 > len) {
			pr_warn("%s: interrupt-map entry %u unreadable; "
				"the rest ignored\n",
				h->name,
				h->nroutes);
			return;
		}
		irq = platform_irq_spec(map, at + 5 + (int)pac, pic);
		if (!irq) {
			pr_warn("%s: interrupt-map entry %u: a %u-cell "
				"interrupt (first cell %u) whole cannot "
				"read; the rest ignored\n",
				h->name,
				h->nroutes,
				pic,
				fdt_cell(map, at + 5 + (int)pac));
			return;
		}
		h->routes[h->nroutes++] = (struct pci_irq_route){
			.addr_hi = fdt_cell(map, at) & h->mask_hi,
			.pin = fdt_cell(map, at + 3) & h->mask_pin,
			.irq = irq,
		};
		at = next;
	}
}

/* The MSI controller: `msi-parent` (every function), else the first
 * `msi-map` entry (rid-base, controller, msi-base, length: the functions
 * whose bus/device/function number is in [rid-base, rid-base + length)).
 * None: the functions use INTx. */
static void read_msi_parent(int node, struct pci_host *h)
{
	int len;
	const void *map = fdt_getprop(node, "msi-map", &len);

	if (fdt_read_u32(node, "msi-parent", &h->msi_parent)) {
		h->msi_rid_len = 0x10000;
	} else if (map && len >= 16) {
		h->msi_rid_base = fdt_cell(map, 0);
		h->msi_parent = fdt_cell(map, 1);
		h->msi_base = fdt_cell(map, 2);
		h->msi_rid_len = fdt_cell(map, 3);
	} else if (map) {
		pr_warn("%s: msi-map is %d bytes, not an entry; devices use "
			"INTx\n",
			h->name,
			len);
	}
}

uint32_t pci_msi_controller(const struct pci_dev *d)
{
	const struct pci_host *h = d->host;

	return d->bdf - h->msi_rid_base < h->msi_rid_len ? h->msi_parent : 0;
}

uint32_t pci_msi_devid(const struct pci_dev *d)
{
	const struct pci_host *h = d->host;

	return d->bdf - h->msi_rid_base + h->msi_base;
}

int pci_host_from_dt(int node, struct pci_host *h)
{
	uint64_t size;
	int len;
	const void *range = fdt_getprop(node, "bus-range", &len);

	*h = (struct pci_host){ .bus_end = 255 };
	snprintf(h->name, sizeof(h->name), "%s", fdt_node_name(node));
	if (!fdt_reg(node, 0, &h->ecam, &size) || !size) {
		pr_err("%s: no reg (the ECAM window); host bridge not used\n",
		       h->name);
		return -EINVAL;
	}
	h->ecam_size = size;
	if (range && len >= 8) {
		h->bus_start = fdt_cell(range, 0);
		h->bus_end = fdt_cell(range, 1);
	}
	if (cells_of(node, "#address-cells", 0) != 3 ||
	    cells_of(node, "#size-cells", 0) != 2) {
		pr_err("%s: #address-cells/#size-cells are not 3/2; host "
		       "bridge not used\n",
		       h->name);
		return -EINVAL;
	}
	if (read_ranges(node, h))
		return -EINVAL;
	read_irq_map(node, h);
	read_msi_parent(node, h);
	return pci_host_check(h);
}

static void drop_window(struct pci_host *h, unsigned int k, const char *why)
{
	static const char *const kinds[] = { "I/O",
					     "32-bit memory",
					     "64-bit memory" };

	pr_warn("%s: %s window at %#llx: %s; not used\n",
		h->name,
		kinds[k],
		(unsigned long long)h->win[k].pci,
		why);
	h->win[k].size = 0;
}

int pci_host_check(struct pci_host *h)
{
	if (h->bus_start > h->bus_end || h->bus_end > 255 ||
	    h->ecam_size / ECAM_BUS_SIZE < h->bus_end - h->bus_start + 1) {
		pr_err("%s: bus-range %u-%u does not fit reg (%#llx bytes); "
		       "host bridge not used\n",
		       h->name,
		       h->bus_start,
		       h->bus_end,
		       (unsigned long long)h->ecam_size);
		return -EINVAL;
	}
	for (unsigned int k = 0; k < PCI_NR_WIN; k++) {
		struct pci_window *w = &h->win[k];

		if (!w->size)
			continue;
		if (w->cpu + w->size < w->cpu || w->pci + w->size < w->pci)
			drop_window(h, k, "it wraps around");
		else if (w->cpu < h->ecam + h->ecam_size &&
			 h->ecam < w->cpu + w->size)
			drop_window(h, k, "it overlaps the ECAM window");
		else if (k == PCI_WIN_MEM32 && w->pci + w->size > 1ull << 32)
			drop_window(h, k, "it is not below 4 GiB on the bus");
	}
	if (!h->win[PCI_WIN_MEM32].size && !h->win[PCI_WIN_MEM64].size) {
		pr_err("%s: no memory window in ranges; host bridge not "
		       "used\n",
		       h->name);
		return -EINVAL;
	}
	return 0;
}

unsigned int pci_host_irq(const struct pci_host *h, uint32_t bdf, uint8_t pin)
{
	uint32_t hi = (bdf << 8) & h->mask_hi;

	for (unsigned int i = 0; i < h->nroutes; i++)
		if (h->routes[i].addr_hi == hi &&
		    h->routes[i].pin == (pin & h->mask_pin))
			return h->routes[i].irq;
	return 0;
}

static uintptr_t ecam_addr(struct pci_host *h, uint32_t bdf, unsigned int off)
{
	return (
	    uintptr_t)(h->ecam +
		       ((uint64_t)(bdf - PCI_BDF(h->bus_start, 0, 0)) << 12) +
		       off);
}

static uint32_t
ecam_read(void *ctx, uint32_t bdf, unsigned int off, unsigned int size)
{
	return mmio_read_sized(ecam_addr(ctx, bdf, off), size);
}

static void ecam_write(
    void *ctx, uint32_t bdf, unsigned int off, unsigned int size, uint32_t val)
{
	uintptr_t a = ecam_addr(ctx, bdf, off);

	switch (size) {
	case 1: mmio_write8(a, (uint8_t)val); break;
	case 2: mmio_write16(a, (uint16_t)val); break;
	default: mmio_write32(a, val);
	}
}

static const struct pci_cfg_ops ecam_ops = { ecam_read, ecam_write };

struct pci_dev *pci_device_nth(unsigned int nth)
{
	return nth < ndevices ? &devices[nth] : NULL;
}

/* Map what the CPU will touch: the buses' configuration space, then each
 * device's memory BARs. A device whose BAR cannot be mapped is dropped. */
static void map_bars(void)
{
	unsigned int kept = 0;

	for (unsigned int i = 0; i < ndevices; i++) {
		struct pci_dev *d = &devices[i];
		int err = 0;

		for (unsigned int b = 0; b < PCI_BARS && !err; b++)
			if (d->bar[b].addr)
				err = vm_map_io(d->bar[b].addr, d->bar[b].size);
		if (err) {
			pr_err("%s: cannot map its BARs (%d); skipped\n",
			       d->name,
			       err);
			pci_write(d, PCI_COMMAND, 2, 0);
			continue;
		}
		devices[kept++] = *d;
	}
	ndevices = kept;
}

/* One line per function: what it is, its interrupt, where its BARs went
 * (CPU addresses), to compare with the board's own listing. */
static void report(const struct pci_dev *d)
{
	char bars[PCI_BARS * 48] = "", *at = bars;

	for (unsigned int b = 0; b < PCI_BARS; b++)
		if (d->bar[b].addr)
			at += snprintf(at,
				       sizeof(bars) - (size_t)(at - bars),
				       ", BAR %u %#llx+%#llx",
				       b,
				       (unsigned long long)d->bar[b].addr,
				       (unsigned long long)d->bar[b].size);
	pr_info("%s: %04x:%04x class %06x, irq %u%s\n",
		d->name,
		d->vendor,
		d->device,
		d->class,
		d->irq,
		bars);
}

static int pci_init(void)
{
	int err;

	if (platform.pci_host < 0)
		return 0;
	if (pci_host_from_dt(platform.pci_host, &host))
		return 0; /* said why; the boot goes on without PCI */
	host.ops = &ecam_ops;
	host.ctx = &host;
	err = vm_map_io(host.ecam,
			(uint64_t)(host.bus_end - host.bus_start + 1) *
			    ECAM_BUS_SIZE);
	if (err) {
		pr_err("%s: cannot map the ECAM window (%d); host bridge not "
		       "used\n",
		       host.name,
		       err);
		return 0;
	}
	ndevices = pci_enumerate(&host, devices, PCI_MAX_DEVICES);
	map_bars();
	for (unsigned int i = 0; i < ndevices; i++)
		report(&devices[i]);
	return 0;
}
INIT_HOOK(pci, pci_init, INIT_LEVEL_DEVICE);
