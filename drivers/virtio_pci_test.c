/*
 * drivers/virtio_pci_test.c: suite virtio_pci_caps - the walk that finds
 * a virtio-pci device's registers through its capabilities
 * (drivers/virtio_pci.h) and its MSI-X table (drivers/pci_msix.c), fed a
 * configuration space made up in memory
 * (drivers/pci_testutil.h).
 *
 * Rules: PCI 3.0 6.7 (the capability list: pointers are dword offsets
 * >= 0x40 in the 256 bytes), the virtio 1.2 spec 4.1.4 (each capability
 * names a BAR, an offset and a length that lie inside it; the first of a
 * type the driver can use counts; common, notify and ISR are required).
 */
#include <errno.h>
#include <string.h>
#include <linux/pci_regs.h>
#include <linux/virtio_pci.h>
#include <mm/kmalloc.h>
#include "pci_testutil.h"

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

static void put_cap(struct pci_fake_fn *f,
		    uint8_t at,
		    uint8_t next,
		    uint8_t type,
		    uint8_t bar,
		    uint32_t off,
		    uint32_t len)
{
	pci_fake_put(f, at + VIRTIO_PCI_CAP_VNDR, 1, PCI_CAP_ID_VNDR);
	pci_fake_put(f, at + VIRTIO_PCI_CAP_NEXT, 1, next);
	pci_fake_put(f,
		     at + VIRTIO_PCI_CAP_LEN,
		     1,
		     type == VIRTIO_PCI_CAP_NOTIFY_CFG ? 20 : 16);
	pci_fake_put(f, at + VIRTIO_PCI_CAP_CFG_TYPE, 1, type);
	pci_fake_put(f, at + VIRTIO_PCI_CAP_BAR, 1, bar);
	pci_fake_put(f, at + VIRTIO_PCI_CAP_OFFSET, 4, off);
	pci_fake_put(f, at + VIRTIO_PCI_CAP_LENGTH, 4, len);
	if (type == VIRTIO_PCI_CAP_NOTIFY_CFG)
		pci_fake_put(f, at + VIRTIO_PCI_NOTIFY_CAP_MULT, 4, 4);
}

/* An enumerated virtio-blk-pci with the layout above; *@f is its config
 * space, for the case to spoil before it walks. */
static struct pci_fake *virtio_fixture(struct ktest *t, struct pci_fake_fn **f)
{
	struct pci_fake *fx = pci_fake_new(t, 0x40000000);

	*f = pci_fake_add_fn(&fx->bus, 1, 0x1af4, 0x1042);
	pci_fake_add_bar(*f, 4, 16384, true);
	pci_fake_put(*f, PCI_STATUS, 2, PCI_STATUS_CAP_LIST);
	pci_fake_put(*f, PCI_CAPABILITY_LIST, 1, layout[0].at);
	for (unsigned int i = 0; i < ARRAY_SIZE(layout); i++)
		put_cap(*f,
			layout[i].at,
			i + 1 < ARRAY_SIZE(layout) ? layout[i + 1].at : 0,
			layout[i].type,
			4,
			layout[i].off,
			0x1000);
	KTEST_EXPECT_EQ(t, pci_enumerate(&fx->host, fx->devs, PCI_FAKE_FNS), 1);
	return fx;
}

static int walk(struct pci_fake *fx)
{
	return virtio_pci_find_regions(&fx->devs[0], &fx->regions);
}

static void regions_are_found(struct ktest *t)
{
	struct pci_fake_fn *f;
	struct pci_fake *fx = virtio_fixture(t, &f);
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
	struct pci_fake_fn *f;
	struct pci_fake *fx = virtio_fixture(t, &f);

	put_cap(f, 0x80, 0x40, VIRTIO_PCI_CAP_COMMON_CFG, 7, 0x3000, 0x1000);
	pci_fake_put(f, PCI_CAPABILITY_LIST, 1, 0x80);
	put_cap(f, 0x90, 0, VIRTIO_PCI_CAP_COMMON_CFG, 4, 0x2000, 0x1000);
	pci_fake_put(f, 0x70 + VIRTIO_PCI_CAP_NEXT, 1, 0x90);
	KTEST_ASSERT_EQ(t, walk(fx), 0);
	KTEST_EXPECT_EQ(t, fx->regions.common, fx->devs[0].bar[4].addr);
	kfree(fx);
}

/* A list that comes back on itself (to an earlier entry, to the same
 * one), a pointer into the standard header, a capability running past
 * the end of configuration space. */
static void broken_list_is_refused(struct ktest *t)
{
	struct pci_fake_fn *f;
	struct pci_fake *fx = virtio_fixture(t, &f);

	pci_fake_put(f, 0x70 + VIRTIO_PCI_CAP_NEXT, 1, 0x50);
	KTEST_EXPECT_EQ(t, walk(fx), -ELOOP);
	pci_fake_put(f, 0x40 + VIRTIO_PCI_CAP_NEXT, 1, 0x40);
	KTEST_EXPECT_EQ(t, walk(fx), -ELOOP);
	pci_fake_put(f, 0x40 + VIRTIO_PCI_CAP_NEXT, 1, 0x10);
	KTEST_EXPECT_EQ(t, walk(fx), -ERANGE);
	/* the notify capability moved to 0xf8: its 20 bytes run past 0x100 */
	pci_fake_put(f, 0x40 + VIRTIO_PCI_CAP_NEXT, 1, 0x50);
	pci_fake_put(f, 0x70 + VIRTIO_PCI_CAP_NEXT, 1, 0);
	KTEST_EXPECT_EQ(t, walk(fx), 0);
	pci_fake_put(f, 0x60 + VIRTIO_PCI_CAP_NEXT, 1, 0xf8);
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
	struct pci_fake_fn *f;
	struct pci_fake *fx = virtio_fixture(t, &f);

	for (unsigned int i = 0; i < ARRAY_SIZE(spoils); i++) {
		unsigned int off = spoils[i].at + spoils[i].field;

		pci_fake_put(f, off, spoils[i].size, spoils[i].bad);
		KTEST_EXPECT_EQ(t, walk(fx), -EINVAL);
		pci_fake_put(f, off, spoils[i].size, spoils[i].good);
		KTEST_EXPECT_EQ(t, walk(fx), 0);
	}
	kfree(fx);
}

/* The MSI-X capability (PCI 3.0 6.8.2), as QEMU lays it out after the
 * notify capability: 5 entries (a table size field of 4) at offset 0 of
 * BAR 1, 4 KiB. Its table must lie inside a memory BAR in use and the
 * capability's 12 bytes inside configuration space; the capability walk
 * refuses the same lists as above. */
static void msix_table_is_checked(struct ktest *t)
{
	struct pci_fake_fn *f;
	struct pci_fake *fx;
	struct pci_msix m;

	fx = virtio_fixture(t, &f);
	KTEST_EXPECT_EQ(t, pci_msix_find(&fx->devs[0], &m), -ENOENT);
	kfree(fx);
	fx = pci_fake_new(t, 0x40000000);
	f = pci_fake_add_fn(&fx->bus, 1, 0x1af4, 0x1042);
	pci_fake_add_bar(f, 1, 4096, false);
	pci_fake_add_bar(f, 4, 16384, true);
	pci_fake_put(f, PCI_STATUS, 2, PCI_STATUS_CAP_LIST);
	pci_fake_put(f, PCI_CAPABILITY_LIST, 1, 0x80);
	pci_fake_put(f, 0x80 + PCI_CAP_LIST_ID, 1, PCI_CAP_ID_MSIX);
	pci_fake_put(f, 0x80 + PCI_MSIX_FLAGS, 2, 4);
	pci_fake_put(f, 0x80 + PCI_MSIX_TABLE, 4, 1);
	pci_fake_put(f, 0x80 + PCI_MSIX_PBA, 4, 0x801);
	KTEST_ASSERT_EQ(t, pci_enumerate(&fx->host, fx->devs, PCI_FAKE_FNS), 1);
	KTEST_ASSERT_EQ(t, pci_msix_find(&fx->devs[0], &m), 0);
	KTEST_EXPECT_EQ(t, m.cap, 0x80);
	KTEST_EXPECT_EQ(t, m.size, 5);
	KTEST_EXPECT_EQ(t, m.table, fx->devs[0].bar[1].addr);
	KTEST_EXPECT_EQ(t, m.nvec, 0);
	/* 5 entries of 16 bytes from 0xfc0: 16 bytes past BAR 1's end */
	pci_fake_put(f, 0x80 + PCI_MSIX_TABLE, 4, 0xfc0 | 1);
	KTEST_EXPECT_EQ(t, pci_msix_find(&fx->devs[0], &m), -EINVAL);
	pci_fake_put(f, 0x80 + PCI_MSIX_TABLE, 4, 0xfb0 | 1);
	KTEST_EXPECT_EQ(t, pci_msix_find(&fx->devs[0], &m), 0);
	/* BAR 0 (not implemented), BAR 6 (reserved) */
	pci_fake_put(f, 0x80 + PCI_MSIX_TABLE, 4, 0);
	KTEST_EXPECT_EQ(t, pci_msix_find(&fx->devs[0], &m), -EINVAL);
	pci_fake_put(f, 0x80 + PCI_MSIX_TABLE, 4, 6);
	KTEST_EXPECT_EQ(t, pci_msix_find(&fx->devs[0], &m), -EINVAL);
	pci_fake_put(f, 0x80 + PCI_MSIX_TABLE, 4, 1);
	/* a list looping on itself; the capability at 0xf8 (12 bytes) */
	pci_fake_put(f, 0x80 + PCI_CAP_LIST_NEXT, 1, 0x80);
	KTEST_EXPECT_EQ(t, pci_msix_find(&fx->devs[0], &m), -ELOOP);
	pci_fake_put(f, 0x80 + PCI_CAP_LIST_NEXT, 1, 0);
	memcpy(f->cfg + 0xf8, f->cfg + 0x80, PCI_CFG_SIZE - 0xf8);
	pci_fake_put(f, PCI_CAPABILITY_LIST, 1, 0xf8);
	KTEST_EXPECT_EQ(t, pci_msix_find(&fx->devs[0], &m), -ERANGE);
	KTEST_EXPECT_EQ(t, m.cap, 0);
	kfree(fx);
}

static struct ktest_case virtio_pci_caps_cases[] = {
	KTEST_CASE(regions_are_found),
	KTEST_CASE(first_usable_capability_counts),
	KTEST_CASE(broken_list_is_refused),
	KTEST_CASE(bad_regions_are_refused),
	KTEST_CASE(msix_table_is_checked),
	{},
};
KTEST_SUITE(virtio_pci_caps, virtio_pci_caps_cases);
