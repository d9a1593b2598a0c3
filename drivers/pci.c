/*
 * drivers/pci.c: enumeration of the host bridge's first bus, BAR sizing
 * and assignment, the capability walk, and the boot's init hook (see
 * drivers/pci.h).
 *
 * A BAR is sized with decoding off: all ones written, what reads back
 * masks the address bits, the original value written back. The size must
 * be a power of two (the mask contiguous ones) of at least 16 bytes
 * (memory) or 4 (I/O). A memory BAR the firmware placed wholly inside a
 * window of its kind, aligned to its size, keeps its address; the others
 * are given one from the windows, past every kept one: a 32-bit BAR from
 * the 32-bit window, a 64-bit BAR from the 32-bit window first, then from
 * the 64-bit one; a prefetchable window takes only prefetchable BARs.
 * I/O BARs are sized but left unassigned and I/O decoding off: no driver
 * here uses port I/O (virtio 1.x's registers are in memory BARs).
 *
 * Locking: none; the init hook runs on the boot hart before any task.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/pci_regs.h>
#include <drivers/pci.h>
#include <kernel/init.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <mm/vm.h>

#define BAR_OFF(i) (PCI_BASE_ADDRESS_0 + 4 * (i))

/* Size one 32-bit BAR register: the address bits that stick. */
static uint32_t
bar_mask(const struct pci_dev *d, unsigned int i, uint32_t *orig)
{
	uint32_t mask;

	*orig = pci_read(d, BAR_OFF(i), 4);
	pci_write(d, BAR_OFF(i), 4, 0xffffffff);
	mask = pci_read(d, BAR_OFF(i), 4);
	pci_write(d, BAR_OFF(i), 4, *orig);
	return mask;
}

/* BAR @i of @d into d->bar[i] (and the upper half of a 64-bit one).
 * Return: how many registers it took (1 or 2), or 0 (after a message) if
 * what it reads back is no size. */
static unsigned int bar_size(struct pci_dev *d, unsigned int i)
{
	struct pci_bar *b = &d->bar[i];
	uint32_t orig, orig_hi = 0, hi = 0, lo = bar_mask(d, i, &orig);
	uint64_t mask;

	b->io = orig & PCI_BASE_ADDRESS_SPACE_IO;
	b->mem64 = !b->io && (orig & PCI_BASE_ADDRESS_MEM_TYPE_MASK) ==
				 PCI_BASE_ADDRESS_MEM_TYPE_64;
	b->prefetch = !b->io && (orig & PCI_BASE_ADDRESS_MEM_PREFETCH);
	if (b->mem64 && i < PCI_BARS - 1)
		hi = bar_mask(d, i + 1, &orig_hi);
	lo &= b->io ? PCI_BASE_ADDRESS_IO_MASK : PCI_BASE_ADDRESS_MEM_MASK;
	b->addr = (uint64_t)orig_hi << 32 |
		  (orig & (b->io ? PCI_BASE_ADDRESS_IO_MASK
				 : PCI_BASE_ADDRESS_MEM_MASK));
	if (!lo && !hi) {
		b->size = 0; /* not implemented */
		return b->mem64 ? 2 : 1;
	}
	/* the upper bits a narrower BAR does not have count as set; a
	 * 16-bit I/O BAR reads its upper half as zeros */
	mask = b->mem64		      ? (uint64_t)hi << 32 | lo
	       : b->io && !(lo >> 16) ? ~0xffffull | lo
				      : ~0xffffffffull | lo;
	b->size = ~mask + 1;
	if ((b->mem64 && i == PCI_BARS - 1) ||
	    (!b->io && !b->mem64 && (orig & PCI_BASE_ADDRESS_MEM_TYPE_MASK)) ||
	    (b->size & (b->size - 1)) || b->size < (b->io ? 4u : 16u)) {
		pr_err("%s: BAR %u reads back %#llx: no size; device "
		       "skipped\n",
		       d->name,
		       i,
		       (unsigned long long)mask);
		return 0;
	}
	return b->mem64 ? 2 : 1;
}

static bool window_takes(const struct pci_window *w, const struct pci_bar *b)
{
	return w->size && (b->prefetch || !w->prefetch);
}

static bool
window_holds(const struct pci_window *w, uint64_t pci, uint64_t size)
{
	return pci >= w->pci && size <= w->size &&
	       pci - w->pci <= w->size - size;
}

/* The window a firmware-placed BAR lies in, or NULL. */
static struct pci_window *placed_in(struct pci_host *h, const struct pci_bar *b)
{
	for (unsigned int k = PCI_WIN_MEM32; k < PCI_NR_WIN; k++) {
		struct pci_window *w = &h->win[k];

		if (b->addr && IS_ALIGNED(b->addr, b->size) &&
		    window_takes(w, b) && window_holds(w, b->addr, b->size) &&
		    (b->mem64 || b->addr + b->size <= 1ull << 32))
			return w;
	}
	return NULL;
}

/* A bus address for @b from the first window that takes it. */
static struct pci_window *place(struct pci_host *h, struct pci_bar *b)
{
	for (unsigned int k = PCI_WIN_MEM32; k < PCI_NR_WIN; k++) {
		struct pci_window *w = &h->win[k];
		uint64_t at = ALIGN_UP(MAX(w->next, w->pci), b->size);

		if (!window_takes(w, b) || at < w->pci ||
		    !window_holds(w, at, b->size) ||
		    (!b->mem64 && at + b->size > 1ull << 32))
			continue;
		b->addr = at;
		w->next = at + b->size;
		return w;
	}
	return NULL;
}

static void bar_write(const struct pci_dev *d, unsigned int i, uint64_t pci)
{
	pci_write(d, BAR_OFF(i), 4, (uint32_t)pci);
	if (d->bar[i].mem64)
		pci_write(d, BAR_OFF(i + 1), 4, (uint32_t)(pci >> 32));
}

/* Bus address -> CPU address, in the window that holds it. */
static uint64_t to_cpu(const struct pci_window *w, uint64_t pci)
{
	return pci - w->pci + w->cpu;
}

/* Pass 1 (sizing) moved every window's next past the BARs it keeps; here
 * the others get theirs. Return: false (after a message) if one fits
 * nowhere. */
static bool assign_bars(struct pci_dev *d)
{
	for (unsigned int i = 0; i < PCI_BARS; i++) {
		struct pci_bar *b = &d->bar[i];
		struct pci_window *w;

		if (!b->size || b->io) {
			b->addr = 0;
			continue;
		}
		w = placed_in(d->host, b);
		if (!w && !(w = place(d->host, b))) {
			pr_err("%s: BAR %u (%#llx bytes) fits in no window; "
			       "device skipped\n",
			       d->name,
			       i,
			       (unsigned long long)b->size);
			return false;
		}
		bar_write(d, i, b->addr);
		b->addr = to_cpu(w, b->addr);
	}
	return true;
}

/* Pass 1 on one function: identity and BARs, decoding off.
 * Return: false if it is skipped (a message says why). */
static bool function_read(struct pci_host *h, uint32_t bdf, struct pci_dev *d)
{
	uint32_t id = h->ops->read(h->ctx, bdf, PCI_VENDOR_ID, 4);
	uint8_t type = (uint8_t)h->ops->read(h->ctx, bdf, PCI_HEADER_TYPE, 1);

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
	if ((type & PCI_HEADER_TYPE_MASK) != PCI_HEADER_TYPE_NORMAL) {
		pr_warn("%s: header type %u (a bridge?): the buses behind it "
			"are not enumerated; skipped\n",
			d->name,
			type & PCI_HEADER_TYPE_MASK);
		return false;
	}
	d->subsys_device = (uint16_t)pci_read(d, PCI_SUBSYSTEM_ID, 2);
	pci_write(
	    d,
	    PCI_COMMAND,
	    2,
	    pci_read(d, PCI_COMMAND, 2) &
		~(PCI_COMMAND_IO | PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER));
	for (unsigned int i = 0, n; i < PCI_BARS; i += n)
		if (!(n = bar_size(d, i)))
			return false;
	return true;
}

/* Move each window's next past the BARs the firmware placed in it. */
static void keep_placed(struct pci_dev *d)
{
	for (unsigned int i = 0; i < PCI_BARS; i++) {
		struct pci_bar *b = &d->bar[i];
		struct pci_window *w =
		    b->size && !b->io ? placed_in(d->host, b) : NULL;

		if (w)
			w->next = MAX(w->next, b->addr + b->size);
	}
}

static void function_enable(struct pci_dev *d)
{
	uint16_t cmd = (uint16_t)pci_read(d, PCI_COMMAND, 2);

	d->pin = (uint8_t)pci_read(d, PCI_INTERRUPT_PIN, 1);
	d->irq = d->pin >= 1 && d->pin <= 4
		     ? pci_host_irq(d->host, d->bdf, d->pin)
		     : 0;
	pci_write(d, PCI_INTERRUPT_LINE, 1, d->irq & 0xff);
	cmd |= PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER;
	cmd &= ~PCI_COMMAND_INTX_DISABLE;
	pci_write(d, PCI_COMMAND, 2, cmd);
}

unsigned int
pci_enumerate(struct pci_host *h, struct pci_dev *devs, unsigned int max)
{
	unsigned int n = 0, kept = 0;

	for (unsigned int k = 0; k < PCI_NR_WIN; k++)
		h->win[k].next = h->win[k].pci;
	for (unsigned int dev = 0; dev < 32; dev++) {
		for (unsigned int fn = 0; fn < 8; fn++) {
			uint32_t bdf = PCI_BDF(h->bus_start, dev, fn);
			uint32_t id =
			    h->ops->read(h->ctx, bdf, PCI_VENDOR_ID, 2);
			bool multi = h->ops->read(h->ctx,
						  PCI_BDF(h->bus_start, dev, 0),
						  PCI_HEADER_TYPE,
						  1) &
				     0x80;

			if (id == 0xffff || id == 0) {
				if (fn == 0)
					break;
				continue;
			}
			if (n == max) {
				pr_warn("%s: more than %u functions; the rest "
					"are not used\n",
					h->name,
					max);
				goto assign;
			}
			if (function_read(h, bdf, &devs[n]))
				keep_placed(&devs[n++]);
			if (!multi)
				break;
		}
	}
assign:
	for (unsigned int i = 0; i < n; i++) {
		if (!assign_bars(&devs[i]))
			continue;
		function_enable(&devs[i]);
		devs[kept++] = devs[i];
	}
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
