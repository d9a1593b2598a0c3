/*
 * drivers/pci_test.c: suite pci_enum - the enumeration, the BAR
 * assignment, bridges and the INTx routing, fed a configuration space made
 * up in memory (drivers/pci_testutil.h). The real path (ECAM, QEMU's
 * devices) runs in the blk_*_pci boots; here are the boards QEMU never
 * makes.
 *
 * Rules the expectations come from: PCI 3.0 6.2.5.1 (a BAR's size is the
 * two's complement of its mask, a power of two; it is aligned to its
 * size), the PCI-to-PCI bridge spec 3.2.5 (bus numbers; memory base and
 * limit hold address bits 31:20) and 9.1 (the INTx swizzle), QEMU's virt
 * interrupt-map (INTx pin P of device D goes to PLIC source
 * 32 + (D + P - 1) % 4).
 */
#include <errno.h>
#include <linux/pci_regs.h>
#include <mm/kmalloc.h>
#include "pci_testutil.h"

static void expect_bar_placed(struct ktest *t,
			      const struct pci_bar *b,
			      uint64_t size,
			      const struct pci_window *w)
{
	KTEST_EXPECT_EQ(t, b->size, size);
	KTEST_EXPECT_TRUE(t, IS_ALIGNED(b->addr - w->cpu + w->pci, size));
	KTEST_EXPECT_TRUE(t, b->addr >= w->cpu);
	KTEST_EXPECT_TRUE(t, b->addr + size <= w->cpu + w->size);
}

/* A 4 KiB BAR and a 64-bit 16 KiB one (a virtio-blk-pci's): both placed
 * in the window, aligned, apart; the registers hold the bus addresses;
 * decoding and mastering on; INTA of device 1 routed to source 33. */
static void good_function_is_assigned(struct ktest *t)
{
	struct pci_fake *fx = pci_fake_new(t, 0x40000000);
	struct pci_fake_fn *f = pci_fake_add_fn(&fx->bus, 1, 0x1af4, 0x1042);
	struct pci_window *w = &fx->host.win[PCI_WIN_MEM32];
	struct pci_dev *d = &fx->devs[0];

	pci_fake_add_bar(f, 1, 4096, false);
	pci_fake_add_bar(f, 4, 16384, true);
	KTEST_ASSERT_EQ(t, pci_enumerate(&fx->host, fx->devs, PCI_FAKE_FNS), 1);
	KTEST_EXPECT_EQ(t, d->bdf, PCI_BDF(0, 1, 0));
	expect_bar_placed(t, &d->bar[1], 4096, w);
	expect_bar_placed(t, &d->bar[4], 16384, w);
	KTEST_EXPECT_TRUE(t, d->bar[4].mem64 && d->bar[4].prefetch);
	KTEST_EXPECT_TRUE(t,
			  d->bar[1].addr + 4096 <= d->bar[4].addr ||
			      d->bar[4].addr + 16384 <= d->bar[1].addr);
	KTEST_EXPECT_EQ(t, d->bar[0].size, 0);
	KTEST_EXPECT_EQ(t, pci_fake_reg(f, PCI_BASE_ADDRESS_1), d->bar[1].addr);
	KTEST_EXPECT_EQ(
	    t, pci_fake_reg(f, PCI_BASE_ADDRESS_4) & ~0xfu, d->bar[4].addr);
	KTEST_EXPECT_EQ(t, pci_fake_reg(f, PCI_BASE_ADDRESS_5), 0);
	KTEST_EXPECT_EQ(t,
			pci_fake_reg(f, PCI_COMMAND) &
			    (PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER),
			PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	KTEST_EXPECT_EQ(t, d->irq, 33);
	kfree(fx);
}

/* A window the CPU sees elsewhere than the bus: the register holds the
 * bus address, the driver gets the CPU's. */
static void window_translates_addresses(struct ktest *t)
{
	struct pci_fake *fx = pci_fake_new(t, 0x2000000000ull);
	struct pci_fake_fn *f = pci_fake_add_fn(&fx->bus, 2, 0x1af4, 0x1042);

	pci_fake_add_bar(f, 0, 8192, false);
	KTEST_ASSERT_EQ(t, pci_enumerate(&fx->host, fx->devs, PCI_FAKE_FNS), 1);
	KTEST_EXPECT_EQ(t,
			fx->devs[0].bar[0].addr - 0x2000000000ull,
			pci_fake_reg(f, PCI_BASE_ADDRESS_0) - 0x40000000u);
	KTEST_EXPECT_EQ(t, fx->devs[0].irq, 34); /* device 2, INTA */
	kfree(fx);
}

/* A BAR the firmware placed in the window keeps its address; the one it
 * left is put elsewhere. */
static void firmware_placement_is_kept(struct ktest *t)
{
	struct pci_fake *fx = pci_fake_new(t, 0x40000000);
	struct pci_fake_fn *f = pci_fake_add_fn(&fx->bus, 1, 0x1af4, 0x1042);
	struct pci_dev *d = &fx->devs[0];

	pci_fake_add_bar(f, 0, 4096, false);
	pci_fake_add_bar(f, 1, 4096, false);
	pci_fake_put(f, PCI_BASE_ADDRESS_0, 4, 0x40000000);
	KTEST_ASSERT_EQ(t, pci_enumerate(&fx->host, fx->devs, PCI_FAKE_FNS), 1);
	KTEST_EXPECT_EQ(t, d->bar[0].addr, 0x40000000);
	KTEST_EXPECT_TRUE(t, d->bar[1].addr >= 0x40001000);
	kfree(fx);
}

/* A BAR whose mask is not ones then zeros, and one larger than any
 * window: each device is skipped with its decoding left off, and the
 * good one beside them still comes up. */
static void bad_bars_skip_their_device(struct ktest *t)
{
	struct pci_fake *fx = pci_fake_new(t, 0x40000000);
	struct pci_fake_fn *holed =
	    pci_fake_add_fn(&fx->bus, 1, 0x1af4, 0x1042);
	struct pci_fake_fn *huge = pci_fake_add_fn(&fx->bus, 2, 0x1af4, 0x1042);
	struct pci_fake_fn *good = pci_fake_add_fn(&fx->bus, 3, 0x1af4, 0x1042);

	holed->bar_wmask[0] = 0xfff0f000;
	pci_fake_add_bar(huge, 0, 2 << 20, false);
	pci_fake_add_bar(good, 0, 4096, false);
	pci_fake_put(holed, PCI_COMMAND, 2, PCI_COMMAND_MEMORY);
	KTEST_ASSERT_EQ(t, pci_enumerate(&fx->host, fx->devs, PCI_FAKE_FNS), 1);
	KTEST_EXPECT_EQ(t, fx->devs[0].bdf, PCI_BDF(0, 3, 0));
	KTEST_EXPECT_EQ(
	    t, pci_fake_reg(holed, PCI_COMMAND) & PCI_COMMAND_MEMORY, 0);
	KTEST_EXPECT_EQ(
	    t, pci_fake_reg(huge, PCI_COMMAND) & PCI_COMMAND_MEMORY, 0);
	kfree(fx);
}

/* The host bridge's own contradictions (drivers/pci_host.c). */
static void contradictory_host_is_refused(struct ktest *t)
{
	struct pci_fake *fx = pci_fake_new(t, 0x40000000);
	struct pci_host *h = &fx->host;

	KTEST_EXPECT_EQ(t, pci_host_check(h), 0);
	h->bus_end = 1; /* two buses in a 1 MiB window */
	KTEST_EXPECT_EQ(t, pci_host_check(h), -EINVAL);
	h->bus_end = 0;
	h->win[PCI_WIN_MEM32].pci = 0xfff80000; /* runs past 4 GiB */
	KTEST_EXPECT_EQ(t, pci_host_check(h), -EINVAL);
	KTEST_EXPECT_EQ(t, h->win[PCI_WIN_MEM32].size, 0);
	h->win[PCI_WIN_MEM64] = (struct pci_window){
		.cpu = 0, .pci = 0x100000000ull, .size = 1 << 20
	}; /* over the ECAM window at 0 */
	KTEST_EXPECT_EQ(t, pci_host_check(h), -EINVAL);
	kfree(fx);
}

static void irq_routes_follow_the_map(struct ktest *t)
{
	struct pci_fake *fx = pci_fake_new(t, 0x40000000);

	for (unsigned int dev = 0; dev < 8; dev++)
		for (uint8_t pin = 1; pin <= 4; pin++)
			KTEST_EXPECT_EQ(
			    t,
			    pci_host_irq(&fx->host, PCI_BDF(0, dev, 0), pin),
			    32 + (dev + pin - 1) % 4);
	fx->host.nroutes = 0;
	KTEST_EXPECT_EQ(t, pci_host_irq(&fx->host, PCI_BDF(0, 1, 0), 1), 0);
	kfree(fx);
}

/* A bridge at 00:02.0 with a function at device 1 of the bus behind it
 * (bus 1, the first free number). The bridge's buses are 1-1, its
 * memory window (base and limit registers: address bits 31:20) holds the
 * function's BAR, and INTA of the function arrives at the bridge as INTB
 * (the swizzle: pin + device number), routed by the map for device 2. */
static void bridge_is_numbered_and_opened(struct ktest *t)
{
	struct pci_fake *fx = pci_fake_new(t, 0x40000000);
	struct pci_fake_fn *bridge =
	    pci_fake_add_fn(&fx->bus, 2, 0x1b36, 0x000c);
	struct pci_fake_fn *f =
	    pci_fake_add_fn_at(&fx->bus, PCI_BDF(1, 1, 0), 0x1af4, 0x1042);
	uint32_t base, limit;
	struct pci_dev *d = &fx->devs[1];

	fx->host.ecam_size = 2 << 20;
	fx->host.bus_end = 1;
	fx->host.win[PCI_WIN_MEM32].size = 4 << 20;
	pci_fake_put(bridge, PCI_HEADER_TYPE, 1, PCI_HEADER_TYPE_BRIDGE);
	pci_fake_add_bar(f, 0, 4096, false);
	KTEST_ASSERT_EQ(t, pci_enumerate(&fx->host, fx->devs, PCI_FAKE_FNS), 2);
	KTEST_EXPECT_TRUE(t, fx->devs[0].bridge);
	KTEST_EXPECT_EQ(t, d->bdf, PCI_BDF(1, 1, 0));
	KTEST_EXPECT_EQ(
	    t, pci_fake_reg(bridge, PCI_PRIMARY_BUS) & 0xffffff, 0x010100);
	base = (pci_fake_reg(bridge, PCI_MEMORY_BASE) & 0xfff0) << 16;
	limit = (pci_fake_reg(bridge, PCI_MEMORY_BASE) >> 16 & 0xfff0) << 16 |
		0xfffff;
	KTEST_EXPECT_TRUE(t, pci_fake_reg(f, PCI_BASE_ADDRESS_0) >= base);
	KTEST_EXPECT_TRUE(
	    t, pci_fake_reg(f, PCI_BASE_ADDRESS_0) + 4096 - 1 <= limit);
	KTEST_EXPECT_EQ(t, d->irq, 32 + (2 + 2 - 1) % 4);
	KTEST_EXPECT_TRUE(
	    t, pci_fake_reg(bridge, PCI_COMMAND) & PCI_COMMAND_MEMORY);
	/* no bus number left: the bridge and what is behind it are left */
	fx->host.bus_end = 0;
	KTEST_EXPECT_EQ(t, pci_enumerate(&fx->host, fx->devs, PCI_FAKE_FNS), 0);
	kfree(fx);
}

/* MSI-X left on by a firmware is turned off: INTx is what is routed. */
static void msix_is_turned_off(struct ktest *t)
{
	struct pci_fake *fx = pci_fake_new(t, 0x40000000);
	struct pci_fake_fn *f = pci_fake_add_fn(&fx->bus, 1, 0x1af4, 0x1042);

	pci_fake_put(f, PCI_STATUS, 2, PCI_STATUS_CAP_LIST);
	pci_fake_put(f, PCI_CAPABILITY_LIST, 1, 0x40);
	pci_fake_put(f, 0x40 + PCI_CAP_LIST_ID, 1, PCI_CAP_ID_MSIX);
	pci_fake_put(f, 0x40 + PCI_MSIX_FLAGS, 2, PCI_MSIX_FLAGS_ENABLE | 3);
	KTEST_ASSERT_EQ(t, pci_enumerate(&fx->host, fx->devs, PCI_FAKE_FNS), 1);
	KTEST_EXPECT_EQ(t, pci_fake_reg(f, 0x40) >> 16, 3);
	KTEST_EXPECT_EQ(t, fx->devs[0].irq, 33);
	kfree(fx);
}

static struct ktest_case pci_enum_cases[] = {
	KTEST_CASE(good_function_is_assigned),
	KTEST_CASE(window_translates_addresses),
	KTEST_CASE(firmware_placement_is_kept),
	KTEST_CASE(bridge_is_numbered_and_opened),
	KTEST_CASE(msix_is_turned_off),
	KTEST_CASE(bad_bars_skip_their_device),
	KTEST_CASE(contradictory_host_is_refused),
	KTEST_CASE(irq_routes_follow_the_map),
	{},
};
KTEST_SUITE(pci_enum, pci_enum_cases);
