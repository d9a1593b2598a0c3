/*
 * drivers/pci_internal.h: what drivers/pci.c (the enumeration) and
 * drivers/pci_bar.c (BARs) share, and nothing else includes.
 */
#pragma once

#include <drivers/pci.h>

#define BAR_OFF(i) (PCI_BASE_ADDRESS_0 + 4 * (i))

/* BAR @i of @d (of @nbars) into d->bar[i], the upper half of a 64-bit one
 * too, with decoding off. Return: how many registers it took (1 or 2), or
 * 0 (after a message) if what it reads back is no size. */
unsigned int
pci_bar_size(struct pci_dev *d, unsigned int i, unsigned int nbars);
/* After sizing: move each window's next free address past the BARs the
 * firmware placed in it (first bus only). */
void pci_bars_keep_placed(struct pci_dev *d);
/* Give @d's memory BARs their addresses and write them; d->bar[].addr
 * become CPU addresses. Return: false (after a message) if one fits in no
 * window. */
bool pci_bars_assign(struct pci_dev *d);
