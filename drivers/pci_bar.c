/*
 * drivers/pci_bar.c: sizing a function's BARs and placing them in the
 * host bridge's windows (for drivers/pci.c; drivers/pci_internal.h).
 *
 * A BAR is sized with decoding off: all ones written, what reads back
 * masks the address bits, the original value written back. The size must
 * be a power of two (the mask contiguous ones) of at least 16 bytes
 * (memory) or 4 (I/O). A memory BAR on the first bus that the firmware
 * placed wholly inside a window of its kind, aligned to its size, keeps
 * its address; the others are given one from the windows, past every kept
 * one: a 32-bit BAR from the 32-bit window, a 64-bit BAR from the 32-bit
 * window first, then from the 64-bit one; a prefetchable window takes
 * only prefetchable BARs; behind a bridge, the 32-bit window only. I/O
 * BARs are sized but left unassigned and I/O decoding off: no driver here
 * uses port I/O (virtio 1.x's registers are in memory BARs).
 *
 * Locking: none; the enumeration runs on the boot hart before any task.
 */
#include <stdio.h>
#include <linux/pci_regs.h>
#include <drivers/pci.h>
#include <kernel/printk.h>
#include "pci_internal.h"

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

unsigned int pci_bar_size(struct pci_dev *d, unsigned int i, unsigned int nbars)
{
	struct pci_bar *b = &d->bar[i];
	uint32_t orig, orig_hi = 0, hi = 0, lo = bar_mask(d, i, &orig);
	uint64_t mask;

	b->io = orig & PCI_BASE_ADDRESS_SPACE_IO;
	b->mem64 = !b->io && (orig & PCI_BASE_ADDRESS_MEM_TYPE_MASK) ==
				 PCI_BASE_ADDRESS_MEM_TYPE_64;
	b->prefetch = !b->io && (orig & PCI_BASE_ADDRESS_MEM_PREFETCH);
	if (b->mem64 && i < nbars - 1)
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
	if ((b->mem64 && i == nbars - 1) ||
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

/* A bus address for @b from the first window that takes it (behind a
 * bridge, the 32-bit one only: a bridge forwards 32-bit memory to its bus
 * through its memory window). */
static struct pci_window *
place(struct pci_host *h, struct pci_bar *b, bool behind_bridge)
{
	unsigned int last = behind_bridge ? PCI_WIN_MEM32 : PCI_NR_WIN - 1;

	for (unsigned int k = PCI_WIN_MEM32; k <= last; k++) {
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

bool pci_bars_assign(struct pci_dev *d)
{
	bool behind_bridge = d->bdf >> 8 != d->host->bus_start;

	for (unsigned int i = 0; i < PCI_BARS; i++) {
		struct pci_bar *b = &d->bar[i];
		struct pci_window *w;

		if (!b->size || b->io) {
			b->addr = 0;
			continue;
		}
		w = behind_bridge ? NULL : placed_in(d->host, b);
		if (!w && !(w = place(d->host, b, behind_bridge))) {
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

void pci_bars_keep_placed(struct pci_dev *d)
{
	if (d->bdf >> 8 != d->host->bus_start)
		return;
	for (unsigned int i = 0; i < PCI_BARS; i++) {
		struct pci_bar *b = &d->bar[i];
		struct pci_window *w =
		    b->size && !b->io ? placed_in(d->host, b) : NULL;

		if (w)
			w->next = MAX(w->next, b->addr + b->size);
	}
}
