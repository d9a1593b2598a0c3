/*
 * drivers/pci_test.c: suites pci_enum and virtio_pci_caps - the
 * enumeration, the BAR assignment, the INTx routing and the capability
 * walks, fed a configuration space made up in memory through the host's
 * accessor (struct pci_cfg_ops). The real path (ECAM, QEMU's devices) runs
 * in the blk_*_pci boots; here are the boards QEMU never makes.
 *
 * The fake: a few functions of 256 bytes each; a BAR register keeps only
 * its writable bits (bar_wmask), as hardware does, so writing all ones
 * reads back the size mask. Rules the expectations come from: PCI 3.0
 * 6.2.5.1 (a BAR's size is the two's complement of its mask, a power of
 * two; it is aligned to its size), 6.7 (the capability list: pointers are
 * dword offsets >= 0x40), the virtio 1.2 spec 4.1.4 (capabilities name a
 * BAR, offset and length that lie inside it), QEMU's virt interrupt-map
 * (INTx pin P of device D goes to PLIC source 32 + (D + P - 1) % 4).
 */
#include <errno.h>
#include <string.h>
#include <linux/pci_regs.h>
#include <linux/virtio_pci.h>
#include <drivers/pci.h>
#include <drivers/virtio_pci.h>
#include <kernel/ktest.h>
#include <mm/kmalloc.h>

#define MAX_FNS 4

struct fake_fn {
	uint32_t bdf;
	uint8_t cfg[PCI_CFG_SIZE];
	uint32_t bar_wmask[PCI_BARS];
};

struct fake_bus {
	unsigned int nfns;
	struct fake_fn fn[MAX_FNS];
};

static struct fake_fn *fn_at(struct fake_bus *bus, uint32_t bdf)
{
	for (unsigned int i = 0; i < bus->nfns; i++)
		if (bus->fn[i].bdf == bdf)
			return &bus->fn[i];
	return NULL;
}

static uint32_t
fake_read(void *ctx, uint32_t bdf, unsigned int off, unsigned int size)
{
	struct fake_fn *f = fn_at(ctx, bdf);
	uint32_t v = 0;

	if (!f || off + size > PCI_CFG_SIZE) /* nothing there */
		return size == 4 ? 0xffffffff : (1u << (8 * size)) - 1;
	memcpy(&v, f->cfg + off, size);
	return v;
}

static void fake_write(
    void *ctx, uint32_t bdf, unsigned int off, unsigned int size, uint32_t val)
{
	struct fake_fn *f = fn_at(ctx, bdf);
	unsigned int bar = (off - PCI_BASE_ADDRESS_0) / 4;
	uint32_t old;

	if (!f || off + size > PCI_CFG_SIZE)
		return;
	if (off >= PCI_BASE_ADDRESS_0 && bar < PCI_BARS) {
		memcpy(&old, f->cfg + off, 4);
		val = (val & f->bar_wmask[bar]) | (old & ~f->bar_wmask[bar]);
		size = 4;
	}
	memcpy(f->cfg + off, &val, size);
}

static const struct pci_cfg_ops fake_ops = { fake_read, fake_write };

static void
put(struct fake_fn *f, unsigned int off, unsigned int size, uint32_t v)
{
	memcpy(f->cfg + off, &v, size);
}

/* A function at device @dev of bus 0: @vendor:@device, INTA. */
static struct fake_fn *
add_fn(struct fake_bus *bus, unsigned int dev, uint16_t vendor, uint16_t device)
{
	struct fake_fn *f = &bus->fn[bus->nfns++];

	memset(f, 0, sizeof(*f));
	f->bdf = PCI_BDF(0, dev, 0);
	put(f, PCI_VENDOR_ID, 2, vendor);
	put(f, PCI_DEVICE_ID, 2, device);
	put(f, PCI_CLASS_REVISION, 4, 0x01000000);
	put(f, PCI_INTERRUPT_PIN, 1, 1);
	return f;
}

/* BAR @i: a 32-bit memory BAR of @size (a power of two), or with @mem64
 * a 64-bit prefetchable one in @i and @i + 1. */
static void
add_bar(struct fake_fn *f, unsigned int i, uint64_t size, bool mem64)
{
	uint64_t mask = ~(size - 1);

	f->bar_wmask[i] = (uint32_t)mask & PCI_BASE_ADDRESS_MEM_MASK;
	if (mem64) {
		put(f,
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

struct fixture {
	struct fake_bus bus;
	struct pci_host host;
	struct pci_dev devs[MAX_FNS];
	struct virtio_pci_regions regions; /* what the walk found */
};

/* A bridge with a 1 MiB 32-bit window seen by the CPU at @cpu. */
static struct fixture *fixture_new(struct ktest *t, uint64_t cpu)
{
	struct fixture *fx = kzalloc(sizeof(*fx), GFP_KERNEL);

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

static uint32_t reg(struct fake_fn *f, unsigned int off)
{
	uint32_t v;

	memcpy(&v, f->cfg + off, 4);
	return v;
}

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
	struct fixture *fx = fixture_new(t, 0x40000000);
	struct fake_fn *f = add_fn(&fx->bus, 1, 0x1af4, 0x1042);
	struct pci_window *w = &fx->host.win[PCI_WIN_MEM32];
	struct pci_dev *d = &fx->devs[0];

	add_bar(f, 1, 4096, false);
	add_bar(f, 4, 16384, true);
	KTEST_ASSERT_EQ(t, pci_enumerate(&fx->host, fx->devs, MAX_FNS), 1);
	KTEST_EXPECT_EQ(t, d->bdf, PCI_BDF(0, 1, 0));
	expect_bar_placed(t, &d->bar[1], 4096, w);
	expect_bar_placed(t, &d->bar[4], 16384, w);
	KTEST_EXPECT_TRUE(t, d->bar[4].mem64 && d->bar[4].prefetch);
	KTEST_EXPECT_TRUE(t,
			  d->bar[1].addr + 4096 <= d->bar[4].addr ||
			      d->bar[4].addr + 16384 <= d->bar[1].addr);
	KTEST_EXPECT_EQ(t, d->bar[0].size, 0);
	KTEST_EXPECT_EQ(t, reg(f, PCI_BASE_ADDRESS_1), d->bar[1].addr);
	KTEST_EXPECT_EQ(t, reg(f, PCI_BASE_ADDRESS_4) & ~0xfu, d->bar[4].addr);
	KTEST_EXPECT_EQ(t, reg(f, PCI_BASE_ADDRESS_5), 0);
	KTEST_EXPECT_EQ(t,
			reg(f, PCI_COMMAND) &
			    (PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER),
			PCI_COMMAND_MEMORY | PCI_COMMAND_MASTER);
	KTEST_EXPECT_EQ(t, d->irq, 33);
	kfree(fx);
}

/* A window the CPU sees elsewhere than the bus: the register holds the
 * bus address, the driver gets the CPU's. */
static void window_translates_addresses(struct ktest *t)
{
	struct fixture *fx = fixture_new(t, 0x2000000000ull);
	struct fake_fn *f = add_fn(&fx->bus, 2, 0x1af4, 0x1042);

	add_bar(f, 0, 8192, false);
	KTEST_ASSERT_EQ(t, pci_enumerate(&fx->host, fx->devs, MAX_FNS), 1);
	KTEST_EXPECT_EQ(t,
			fx->devs[0].bar[0].addr - 0x2000000000ull,
			reg(f, PCI_BASE_ADDRESS_0) - 0x40000000u);
	KTEST_EXPECT_EQ(t, fx->devs[0].irq, 34); /* device 2, INTA */
	kfree(fx);
}

/* A BAR the firmware placed in the window keeps its address; the one it
 * left is put elsewhere. */
static void firmware_placement_is_kept(struct ktest *t)
{
	struct fixture *fx = fixture_new(t, 0x40000000);
	struct fake_fn *f = add_fn(&fx->bus, 1, 0x1af4, 0x1042);
	struct pci_dev *d = &fx->devs[0];

	add_bar(f, 0, 4096, false);
	add_bar(f, 1, 4096, false);
	put(f, PCI_BASE_ADDRESS_0, 4, 0x40000000);
	KTEST_ASSERT_EQ(t, pci_enumerate(&fx->host, fx->devs, MAX_FNS), 1);
	KTEST_EXPECT_EQ(t, d->bar[0].addr, 0x40000000);
	KTEST_EXPECT_TRUE(t, d->bar[1].addr >= 0x40001000);
	kfree(fx);
}

/* A BAR whose mask is not ones then zeros, and one larger than any
 * window: each device is skipped with its decoding left off, and the
 * good one beside them still comes up. */
static void bad_bars_skip_their_device(struct ktest *t)
{
	struct fixture *fx = fixture_new(t, 0x40000000);
	struct fake_fn *holed = add_fn(&fx->bus, 1, 0x1af4, 0x1042);
	struct fake_fn *huge = add_fn(&fx->bus, 2, 0x1af4, 0x1042);
	struct fake_fn *good = add_fn(&fx->bus, 3, 0x1af4, 0x1042);

	holed->bar_wmask[0] = 0xfff0f000;
	add_bar(huge, 0, 2 << 20, false);
	add_bar(good, 0, 4096, false);
	put(holed, PCI_COMMAND, 2, PCI_COMMAND_MEMORY);
	KTEST_ASSERT_EQ(t, pci_enumerate(&fx->host, fx->devs, MAX_FNS), 1);
	KTEST_EXPECT_EQ(t, fx->devs[0].bdf, PCI_BDF(0, 3, 0));
	KTEST_EXPECT_EQ(t, reg(holed, PCI_COMMAND) & PCI_COMMAND_MEMORY, 0);
	KTEST_EXPECT_EQ(t, reg(huge, PCI_COMMAND) & PCI_COMMAND_MEMORY, 0);
	kfree(fx);
}

/* The host bridge's own contradictions (drivers/pci_host.c). */
static void contradictory_host_is_refused(struct ktest *t)
{
	struct fixture *fx = fixture_new(t, 0x40000000);
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
	struct fixture *fx = fixture_new(t, 0x40000000);

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

static struct ktest_case pci_enum_cases[] = {
	KTEST_CASE(good_function_is_assigned),
	KTEST_CASE(window_translates_addresses),
	KTEST_CASE(firmware_placement_is_kept),
	KTEST_CASE(bad_bars_skip_their_device),
	KTEST_CASE(contradictory_host_is_refused),
	KTEST_CASE(irq_routes_follow_the_map),
	{},
};
KTEST_SUITE(pci_enum, pci_enum_cases);

/* A virtio-blk-pci's capabilities, as QEMU lays them out: vendor
 * capabilities at 0x40, 0x50, 0x60 and 0x70 naming the common, ISR,
 * device and notify (multiplier 4) structures, 4 KiB each in BAR 4. */
static const struct {
	uint8_t type, at;
	uint32_t off;
} layout[] = {
	{ VIRTIO_PCI_CAP_COMMON_CFG, 0x40, 0x0000 },
	{ VIRTIO_PCI_CAP_ISR_CFG, 0x50, 0x1000 },
	{ VIRTIO_PCI_CAP_DEVICE_CFG, 0x60, 0x2000 },
	{ VIRTIO_PCI_CAP_NOTIFY_CFG, 0x70, 0x3000 },
};

static void put_cap(struct fake_fn *f,
		    uint8_t at,
		    uint8_t next,
		    uint8_t type,
		    uint8_t bar,
		    uint32_t off,
		    uint32_t len)
{
	put(f, at + VIRTIO_PCI_CAP_VNDR, 1, PCI_CAP_ID_VNDR);
	put(f, at + VIRTIO_PCI_CAP_NEXT, 1, next);
	put(f,
	    at + VIRTIO_PCI_CAP_LEN,
	    1,
	    type == VIRTIO_PCI_CAP_NOTIFY_CFG ? 20 : 16);
	put(f, at + VIRTIO_PCI_CAP_CFG_TYPE, 1, type);
	put(f, at + VIRTIO_PCI_CAP_BAR, 1, bar);
	put(f, at + VIRTIO_PCI_CAP_OFFSET, 4, off);
	put(f, at + VIRTIO_PCI_CAP_LENGTH, 4, len);
	if (type == VIRTIO_PCI_CAP_NOTIFY_CFG)
		put(f, at + VIRTIO_PCI_NOTIFY_CAP_MULT, 4, 4);
}

/* An enumerated virtio-blk-pci with the layout above; *@f is its config
 * space, for the case to spoil before it walks. */
static struct fixture *virtio_fixture(struct ktest *t, struct fake_fn **f)
{
	struct fixture *fx = fixture_new(t, 0x40000000);

	*f = add_fn(&fx->bus, 1, 0x1af4, 0x1042);
	add_bar(*f, 4, 16384, true);
	put(*f, PCI_STATUS, 2, PCI_STATUS_CAP_LIST);
	put(*f, PCI_CAPABILITY_LIST, 1, layout[0].at);
	for (unsigned int i = 0; i < ARRAY_SIZE(layout); i++)
		put_cap(*f,
			layout[i].at,
			i + 1 < ARRAY_SIZE(layout) ? layout[i + 1].at : 0,
			layout[i].type,
			4,
			layout[i].off,
			0x1000);
	KTEST_EXPECT_EQ(t, pci_enumerate(&fx->host, fx->devs, MAX_FNS), 1);
	return fx;
}

static int walk(struct fixture *fx)
{
	return virtio_pci_find_regions(&fx->devs[0], &fx->regions);
}

static void regions_are_found(struct ktest *t)
{
	struct fake_fn *f;
	struct fixture *fx = virtio_fixture(t, &f);
	uint64_t bar = fx->devs[0].bar[4].addr;
	struct virtio_pci_regions *r = &fx->regions;

	KTEST_ASSERT_EQ(t, walk(fx), 0);
	KTEST_EXPECT_EQ(t, r->common, bar);
	KTEST_EXPECT_EQ(t, r->isr, bar + 0x1000);
	KTEST_EXPECT_EQ(t, r->device, bar + 0x2000);
	KTEST_EXPECT_EQ(t, r->device_len, 0x1000);
	KTEST_EXPECT_EQ(t, r->notify, bar + 0x3000);
	KTEST_EXPECT_EQ(t, r->notify_len, 0x1000);
	KTEST_EXPECT_EQ(t, r->notify_off_multiplier, 4);
	kfree(fx);
}

/* The first usable capability of a type counts: one naming a reserved
 * BAR (6-255) is passed over, not an error. */
static void first_usable_capability_counts(struct ktest *t)
{
	struct fake_fn *f;
	struct fixture *fx = virtio_fixture(t, &f);

	put_cap(f, 0x80, 0x40, VIRTIO_PCI_CAP_COMMON_CFG, 7, 0x3000, 0x1000);
	put(f, PCI_CAPABILITY_LIST, 1, 0x80);
	put_cap(f, 0x90, 0, VIRTIO_PCI_CAP_COMMON_CFG, 4, 0x2000, 0x1000);
	put(f, 0x70 + VIRTIO_PCI_CAP_NEXT, 1, 0x90);
	KTEST_ASSERT_EQ(t, walk(fx), 0);
	KTEST_EXPECT_EQ(t, fx->regions.common, fx->devs[0].bar[4].addr);
	kfree(fx);
}

/* A list that comes back on itself (to an earlier entry, to the same
 * one), a pointer into the standard header, a capability running past
 * the end of configuration space. */
static void broken_list_is_refused(struct ktest *t)
{
	struct fake_fn *f;
	struct fixture *fx = virtio_fixture(t, &f);

	put(f, 0x70 + VIRTIO_PCI_CAP_NEXT, 1, 0x50);
	KTEST_EXPECT_EQ(t, walk(fx), -ELOOP);
	put(f, 0x40 + VIRTIO_PCI_CAP_NEXT, 1, 0x40);
	KTEST_EXPECT_EQ(t, walk(fx), -ELOOP);
	put(f, 0x40 + VIRTIO_PCI_CAP_NEXT, 1, 0x10);
	KTEST_EXPECT_EQ(t, walk(fx), -ERANGE);
	/* the notify capability moved to 0xf8: its 20 bytes run past 0x100 */
	put(f, 0x40 + VIRTIO_PCI_CAP_NEXT, 1, 0x50);
	put(f, 0x70 + VIRTIO_PCI_CAP_NEXT, 1, 0);
	KTEST_EXPECT_EQ(t, walk(fx), 0);
	put(f, 0x60 + VIRTIO_PCI_CAP_NEXT, 1, 0xf8);
	memcpy(f->cfg + 0xf8, f->cfg + 0x70, PCI_CFG_SIZE - 0xf8);
	KTEST_EXPECT_EQ(t, walk(fx), -EINVAL);
	kfree(fx);
}

/* A structure past its BAR's end, in a BAR of size 0, too short for
 * what it holds; a required one missing. Each spoiled, then mended. */
static void bad_regions_are_refused(struct ktest *t)
{
	static const struct {
		uint8_t at, field, size;
		uint32_t bad, good;
	} spoils[] = {
		{ 0x70, VIRTIO_PCI_CAP_LENGTH, 4, 0x1001, 0x1000 },
		{ 0x40, VIRTIO_PCI_CAP_BAR, 1, 2, 4 },
		{ 0x40,
		  VIRTIO_PCI_CAP_LENGTH,
		  4,
		  sizeof(struct virtio_pci_common_cfg) - 1,
		  0x1000 },
		{ 0x60, VIRTIO_PCI_CAP_NEXT, 1, 0, 0x70 }, /* no notify */
	};
	struct fake_fn *f;
	struct fixture *fx = virtio_fixture(t, &f);

	for (unsigned int i = 0; i < ARRAY_SIZE(spoils); i++) {
		unsigned int off = spoils[i].at + spoils[i].field;

		put(f, off, spoils[i].size, spoils[i].bad);
		KTEST_EXPECT_EQ(t, walk(fx), -EINVAL);
		put(f, off, spoils[i].size, spoils[i].good);
		KTEST_EXPECT_EQ(t, walk(fx), 0);
	}
	kfree(fx);
}

static struct ktest_case virtio_pci_caps_cases[] = {
	KTEST_CASE(regions_are_found),
	KTEST_CASE(first_usable_capability_counts),
	KTEST_CASE(broken_list_is_refused),
	KTEST_CASE(bad_regions_are_refused),
	{},
};
KTEST_SUITE(virtio_pci_caps, virtio_pci_caps_cases);
