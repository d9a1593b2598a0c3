/*
 * drivers/pci.c: enumeration - the functions of the host bridge's buses,
 * bus numbers for the buses behind PCI-PCI bridges, the bridges' memory
 * windows, INTx routes - and the capability walk (see drivers/pci.h). BAR
 * sizing and placement: drivers/pci_bar.c.
 *
 * Two passes. The scan goes depth first (a bridge, then what is behind
 * it): each function is read with its decoding off and its BARs sized; a
 * bridge gets the next free bus number as its secondary bus, 0xff as its
 * subordinate while the scan goes behind it, then the last bus found.
 * The assignment goes in the same order: a bridge's memory window is
 * aligned to 1 MiB, opened before the functions behind it take their
 * BARs and closed after them; its I/O and prefetchable windows stay
 * closed. INTx behind a bridge goes through the standard swizzle (PCI-to-PCI
 * Bridge spec 9.1: the pin advances by the device number at each
 * bridge) to the first bus's bridge, whose device number and pin the
 * host's interrupt-map routes.
 *
 * Locking: none; the init hook runs on the boot hart before any task.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/pci_regs.h>
#include <drivers/pci.h>
#include <kernel/printk.h>
#include "pci_internal.h"

#define BRIDGE_WINDOW_ALIGN (1u << 20)
#define MAX_BRIDGE_DEPTH    8 /* bridges behind bridges: the scan recurses */

/* The scan's state: where the functions go, the next free bus number. */
struct scan {
	struct pci_host *h;
	struct pci_dev *devs;
	unsigned int max, n;
	unsigned int next_bus;
	unsigned int depth; /* bridges above the bus being scanned */
};

/* Pass 1 on one function: identity and BARs, decoding off.
 * Return: false if it is skipped (a message says why). */
static bool function_read(struct pci_host *h, uint32_t bdf, struct pci_dev *d)
{
	uint32_t id = h->ops->read(h->ctx, bdf, PCI_VENDOR_ID, 4);
	uint8_t type = (uint8_t)h->ops->read(h->ctx, bdf, PCI_HEADER_TYPE, 1) &
		       PCI_HEADER_TYPE_MASK;
	unsigned int nbars = type == PCI_HEADER_TYPE_BRIDGE ? 2 : PCI_BARS;

	*d = (struct pci_dev){ .host = h, .bdf = bdf };
	snprintf(d->name,
		 sizeof(d->name),
		 "%s %02x:%02x.%u",
		 h->name,
		 bdf >> 8,
		 (bdf >> 3) & 31,
		 bdf & 7);
	d->vendor = (uint16_t)id;
	d->device = (uint16_t)(id >> 16);
	d->class = pci_read(d, PCI_CLASS_REVISION, 4) >> 8;
	if (type != PCI_HEADER_TYPE_NORMAL && type != PCI_HEADER_TYPE_BRIDGE) {
		pr_warn("%s: header type %u: not a function or a bridge; "
			"skipped\n",
			d->name,
			type);
		return false;
	}
	d->bridge = type == PCI_HEADER_TYPE_BRIDGE;
	if (!d->bridge)
		d->subsys_device = (uint16_t)pci_read(d, PCI_SUBSYSTEM_ID, 2);
	pci_write(
	    d,
	    PCI_COMMAND,
	    2,
	    pci_read(d, PCI_COMMAND, 2) &
		~(PCI_COMMAND_IO | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER));
	for (unsigned int i = 0, n; i < nbars; i += n)
		if (!(n = pci_bar_size(d, i, nbars)))
			return false;
	return true;
}

static void bridge_buses(const struct pci_dev *b, unsigned int subordinate)
{
	uint32_t reg = pci_read(b, PCI_PRIMARY_BUS, 4);

	reg = (reg & 0xff000000) | subordinate << 16 |
	      (uint32_t)b->secondary << 8 | (b->bdf >> 8);
	pci_write(b, PCI_PRIMARY_BUS, 4, reg);
}

static void scan_bus(struct scan *s,
		     unsigned int bus,
		     uint32_t route_bdf,
		     unsigned int swizzle);

/* The bus behind bridge devs[@i]: numbered, scanned, then closed at the
 * last bus found behind it. Return: false if no bus number is left. */
static bool scan_bridge(struct scan *s, unsigned int i)
{
	struct pci_dev *b = &s->devs[i];

	if (s->next_bus > s->h->bus_end || s->depth == MAX_BRIDGE_DEPTH) {
		pr_warn("%s: no bus number left in bus-range, or %u bridges "
			"deep, for the bus behind this bridge; skipped\n",
			b->name,
			MAX_BRIDGE_DEPTH);
		return false;
	}
	b->secondary = (uint8_t)s->next_bus++;
	bridge_buses(b, s->h->bus_end);
	s->depth++;
	scan_bus(s, b->secondary, b->route_bdf, b->swizzle);
	s->depth--;
	b = &s->devs[i];
	b->subordinate = (uint8_t)(s->next_bus - 1);
	bridge_buses(b, b->subordinate);
	b->behind = s->n - i - 1;
	return true;
}

/* Read the function at @bdf into the next slot, and what is behind it if
 * it is a bridge. @route_bdf and @swizzle: the INTx route of the bus. */
static void scan_function(struct scan *s,
			  uint32_t bdf,
			  uint32_t route_bdf,
			  unsigned int swizzle)
{
	bool first_bus = bdf >> 8 == s->h->bus_start;
	struct pci_dev *d = &s->devs[s->n];

	if (!function_read(s->h, bdf, d))
		return;
	d->route_bdf = first_bus ? bdf : route_bdf;
	d->swizzle = first_bus ? 0 : swizzle + ((bdf >> 3) & 31);
	pci_bars_keep_placed(d);
	s->n++;
	if (d->bridge && !scan_bridge(s, s->n - 1))
		s->n--;
}

static void scan_bus(struct scan *s,
		     unsigned int bus,
		     uint32_t route_bdf,
		     unsigned int swizzle)
{
	struct pci_host *h = s->h;

	for (unsigned int dev = 0; dev < 32; dev++) {
		bool multi =
		    h->ops->read(
			h->ctx, PCI_BDF(bus, dev, 0), PCI_HEADER_TYPE, 1) &
		    0x80;

		for (unsigned int fn = 0; fn < (multi ? 8u : 1u); fn++) {
			uint32_t bdf = PCI_BDF(bus, dev, fn);
			uint32_t id =
			    h->ops->read(h->ctx, bdf, PCI_VENDOR_ID, 2);

			if (id == 0xffff || id == 0)
				continue;
			if (s->n == s->max) {
				pr_warn("%s: more than %u functions; the rest "
					"are not used\n",
					h->name,
					s->max);
				return;
			}
			scan_function(s, bdf, route_bdf, swizzle);
		}
	}
}

/* Interrupts are INTx here: message-signalled ones a firmware may have
 * left on would take INTx's place (PCI 3.0 6.8), so they are turned off. */
static void msi_off(const struct pci_dev *d)
{
	static const struct {
		uint8_t id;
		uint16_t enable;
	} kinds[] = { { PCI_CAP_ID_MSI, PCI_MSI_FLAGS_ENABLE },
		      { PCI_CAP_ID_MSIX, PCI_MSIX_FLAGS_ENABLE } };
	uint8_t at;

	BUILD_BUG_ON(PCI_MSI_FLAGS != PCI_MSIX_FLAGS);
	for (unsigned int k = 0; k < ARRAY_SIZE(kinds); k++) {
		if (pci_find_caps(d, kinds[k].id, &at, 1) != 1)
			continue;
		pci_write(d,
			  at + PCI_MSI_FLAGS,
			  2,
			  pci_read(d, at + PCI_MSI_FLAGS, 2) &
			      ~kinds[k].enable);
	}
}

static void function_enable(struct pci_dev *d)
{
	uint16_t cmd = (uint16_t)pci_read(d, PCI_COMMAND, 2);
	/* the pin, moved on by the device numbers of the way up */
	uint8_t pin = (uint8_t)pci_read(d, PCI_INTERRUPT_PIN, 1);

	d->pin = pin;
	d->irq = pin >= 1 && pin <= 4
		     ? pci_host_irq(d->host,
				    d->route_bdf,
				    (pin - 1 + d->swizzle) % 4 + 1)
		     : 0;
	pci_write(d, PCI_INTERRUPT_LINE, 1, d->irq & 0xff);
	msi_off(d);
	cmd |= PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
	cmd &= ~PCI_COMMAND_INTX_DISABLE;
	pci_write(d, PCI_COMMAND, 2, cmd);
	d->enabled = true;
}

/* A bridge's memory window over bus addresses [@start, @end); an empty
 * one (and its I/O and prefetchable windows) closed: base above limit. */
static void bridge_window(const struct pci_dev *b, uint64_t start, uint64_t end)
{
	/* bits 15:4 of base and limit are address bits 31:20 */
	uint16_t base = end > start ? (uint16_t)(start >> 16) & 0xfff0 : 0xfff0;
	uint16_t limit = end > start ? (uint16_t)((end - 1) >> 16) & 0xfff0 : 0;

	pci_write(b, PCI_MEMORY_BASE, 2, base);
	pci_write(b, PCI_MEMORY_LIMIT, 2, limit);
	pci_write(b, PCI_PREF_MEMORY_BASE, 2, 0xfff0);
	pci_write(b, PCI_PREF_MEMORY_LIMIT, 2, 0);
	pci_write(b, PCI_PREF_BASE_UPPER32, 4, 0);
	pci_write(b, PCI_PREF_LIMIT_UPPER32, 4, 0);
	pci_write(b, PCI_IO_BASE, 1, 0xf0);
	pci_write(b, PCI_IO_LIMIT, 1, 0);
}

/* Pass 2 over devs[@from, @to): BARs, then (a bridge) what is behind it
 * inside its window; @ok: the bridges above are enabled. */
static void
assign(struct pci_dev *devs, unsigned int from, unsigned int to, bool ok)
{
	for (unsigned int i = from; i < to; i++) {
		struct pci_dev *d = &devs[i];
		struct pci_window *w = &d->host->win[PCI_WIN_MEM32];
		bool mine = ok && pci_bars_assign(d);
		uint64_t start;

		if (!d->bridge) {
			if (mine)
				function_enable(d);
			continue;
		}
		w->next = ALIGN_UP(MAX(w->next, w->pci), BRIDGE_WINDOW_ALIGN);
		start = w->next;
		assign(devs, i + 1, i + 1 + d->behind, mine);
		w->next = ALIGN_UP(w->next, BRIDGE_WINDOW_ALIGN);
		bridge_window(d, start, w->next);
		if (mine)
			function_enable(d);
		i += d->behind;
	}
}

unsigned int
pci_enumerate(struct pci_host *h, struct pci_dev *devs, unsigned int max)
{
	struct scan s = {
		.h = h, .devs = devs, .max = max, .next_bus = h->bus_start + 1
	};
	unsigned int kept = 0;

	for (unsigned int k = 0; k < PCI_NR_WIN; k++)
		h->win[k].next = h->win[k].pci;
	scan_bus(&s, h->bus_start, 0, 0);
	assign(devs, 0, s.n, true);
	for (unsigned int i = 0; i < s.n; i++)
		if (devs[i].enabled)
			devs[kept++] = devs[i];
	return kept;
}

int pci_find_caps(const struct pci_dev *d,
		  uint8_t id,
		  uint8_t *pos,
		  unsigned int max)
{
	uint64_t seen = 0; /* one bit per dword of the capability area */
	unsigned int n = 0, at;

	if (!(pci_read(d, PCI_STATUS, 2) & PCI_STATUS_CAP_LIST))
		return 0;
	for (at = pci_read(d, PCI_CAPABILITY_LIST, 1) & ~3u; at;
	     at = pci_read(d, at + PCI_CAP_LIST_NEXT, 1) & ~3u) {
		if (at < PCI_STD_HEADER_SIZEOF || at > PCI_CFG_SIZE - 4) {
			pr_err("%s: capability pointer %#x is outside the "
			       "capability area; capabilities not used\n",
			       d->name,
			       at);
			return -ERANGE;
		}
		if (seen & (1ull << (at / 4 - PCI_STD_HEADER_SIZEOF / 4))) {
			pr_err("%s: capability list loops back to %#x; "
			       "capabilities not used\n",
			       d->name,
			       at);
			return -ELOOP;
		}
		seen |= 1ull << (at / 4 - PCI_STD_HEADER_SIZEOF / 4);
		if (pci_read(d, at + PCI_CAP_LIST_ID, 1) == id && n < max)
			pos[n++] = (uint8_t)at;
	}
	return (int)n;
}
