/*
 * kernel/arch/aarch64/gicv3_its.c: the GICv3 Interrupt Translation
 * Service (Arm's GICv3/v4 specification, IHI 0069, chapters 5.2-5.3 and
 * 12.19): finding it, its tables, its command queue. What it translates
 * to (devices, events, LPIs) is gicv3_its_msi.c's; the LPIs themselves
 * gicv3_lpi.c's.
 *
 * The device tree names it ("arm,gic-v3-its" under the GIC, with
 * `msi-controller`, `reg` - 128 KiB: the control frame and the one
 * holding GITS_TRANSLATER - and the phandle a PCI host bridge's msi-map
 * points to; QEMU's virt has one with gic-version=3). Only the first is
 * used. Set-up, once, after the page allocator:
 *   - GITS_TYPER: physical LPIs, the device id and event id widths, the
 *     ITT entry size, and PTA (whether a collection names its
 *     redistributor by address or by processor number);
 *   - LPIs on in the boot CPU's redistributor (gicv3_lpi_init);
 *   - each GITS_BASER<n> of a device or collection table gets a flat
 *     (not indirect) table from the page allocator: the first page size
 *     (4, 16, 64 KiB) the register keeps, 2^Devbits entries (at most
 *     2^16: PCI requester ids) or one collection, of the entry size the
 *     register says; other tables (vPEs) are left invalid;
 *   - GITS_CBASER: a 4 KiB command queue (128 commands), CWRITER 0;
 *   - GITS_CTLR.Enabled, then MAPC (collection 0 -> the boot CPU's
 *     redistributor) and SYNC.
 * Memory attributes of the tables and the queue: as gicv3_lpi.c's (Inner
 * Shareable write-back, non-cacheable where the ITS reads the
 * shareability back as Non-shareable), and every write the ITS must read
 * (the zeroed tables, each command) is cleaned to the point of coherency
 * before CWRITER moves.
 *
 * Bad input - a node without reg or phandle, a frame under 128 KiB,
 * GITS_TYPER without physical LPIs, a table no page size fits, a queue
 * that stalls or does not advance within 100 ms - is said on the
 * console; the ITS is then not used and PCI functions keep INTx.
 *
 * Locking: cmd_lock (a spinlock, interrupts off) protects the queue and
 * CWRITER; commands are only queued by its_run, which waits for them
 * all, so the queue is empty between runs. gicv3_its is written by the
 * init hook alone, before `ready`.
 */
#include <errno.h>
#include <kernel/fdt.h>
#include <kernel/init.h>
#include <kernel/irq.h>
#include <kernel/panic.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/spinlock.h>
#include <kernel/time.h>
#include <mm/page_alloc.h>
#include <mm/vm.h>
#include "gicv3_its.h"

#define GITS_CTLR	     0x0000
#define GITS_CTLR_ENABLED    (1u << 0)
#define GITS_CTLR_QUIESCENT  (1u << 31)
#define GITS_TYPER	     0x0008
#define TYPER_PHYSICAL	     (1ull << 0)
#define TYPER_ITT_ENTRY(t)   ((unsigned int)(((t) >> 4) & 0xf) + 1)
#define TYPER_EVENT_BITS(t)  ((unsigned int)(((t) >> 8) & 0x1f) + 1)
#define TYPER_DEVICE_BITS(t) ((unsigned int)(((t) >> 13) & 0x1f) + 1)
#define TYPER_PTA	     (1ull << 19)
#define TYPER_HCC(t)	     ((unsigned int)(((t) >> 24) & 0xff))
#define GITS_CBASER	     0x0080
#define GITS_CWRITER	     0x0088
#define GITS_CREADR	     0x0090
#define CREADR_STALLED	     (1ull << 0)
#define CMDQ_OFFSET	     0xfffe0ull /* CWRITER/CREADR bits 19:5 */
#define GITS_BASER(n)	     (0x0100 + 8 * (n))
#define BASER_VALID	     (1ull << 63)
#define BASER_CACHE_SHIFT    59 /* InnerCache, CBASER's too */
#define BASER_TYPE(b)	     ((unsigned int)((b) >> 56) & 7)
#define BASER_DEVICES	     1
#define BASER_COLLECTIONS    4
#define BASER_ENTRY(b)	     ((unsigned int)(((b) >> 48) & 0x1f) + 1)
#define BASER_ADDR	     0x0000fffffffff000ull
#define BASER_PAGE_SIZE(b)   ((unsigned int)((b) >> 8) & 3)
#define ITS_FRAME_SIZE	     0x20000
#define ITS_MAX_DEVICE_BITS  16
#define ITS_EVENT_BITS	     5 /* 32 vectors a device at most */
#define CMDQ_BYTES	     PAGE_SIZE
#define CMD_TIMEOUT_NS	     100000000ull

enum {
	CMD_SYNC = 0x05,
	CMD_MAPD = 0x08,
	CMD_MAPC = 0x09,
	CMD_MAPTI = 0x0a,
	CMD_INV = 0x0c,
	CMD_DISCARD = 0x0f
};
#define CMD_VALID    (1ull << 63)
#define CMD_ITT_ADDR 0x000fffffffffff00ull /* bits 51:8 */
#define CMD_RD_ADDR  0x000fffffffff0000ull /* bits 51:16 */

struct gicv3_its gicv3_its;
static DEFINE_SPINLOCK(cmd_lock);
/* protected by cmd_lock: */
static struct its_cmd *cmdq;
static uint64_t cwriter; /* byte offset of the next free slot */
static bool given_up;	 /* a run failed: no more commands */

static uintptr_t reg(unsigned int off)
{
	return gicv3_its.base + off;
}

struct its_cmd its_cmd_mapd(uint32_t devid, const void *itt)
{
	return (struct its_cmd){ { CMD_MAPD | (uint64_t)devid << 32,
				   gicv3_its.event_bits - 1,
				   CMD_VALID | ((uintptr_t)itt & CMD_ITT_ADDR),
				   0 } };
}

struct its_cmd its_cmd_mapti(uint32_t devid, uint32_t event, unsigned int lpi)
{
	return (struct its_cmd){ { CMD_MAPTI | (uint64_t)devid << 32,
				   event | (uint64_t)lpi << 32,
				   ITS_COLLECTION,
				   0 } };
}

struct its_cmd its_cmd_inv(uint32_t devid, uint32_t event)
{
	return (
	    struct its_cmd){ { CMD_INV | (uint64_t)devid << 32, event, 0, 0 } };
}

struct its_cmd its_cmd_discard(uint32_t devid, uint32_t event)
{
	return (struct its_cmd){
		{ CMD_DISCARD | (uint64_t)devid << 32, event, 0, 0 }
	};
}

struct its_cmd its_cmd_sync(void)
{
	return (struct its_cmd){ { CMD_SYNC, 0, gicv3_its.rdbase, 0 } };
}

static struct its_cmd its_cmd_mapc(void)
{
	return (
	    struct its_cmd){ { CMD_MAPC,
			       0,
			       CMD_VALID | gicv3_its.rdbase | ITS_COLLECTION,
			       0 } };
}

/* Wait, bounded, until CREADR reaches CWRITER. Caller holds cmd_lock. */
static int wait_queue(void)
{
	uint64_t deadline = time_ns() + CMD_TIMEOUT_NS;
	uint64_t readr;

	do {
		readr = gic_read64(reg(GITS_CREADR));
		if (readr & CREADR_STALLED) {
			pr_err("its: the command at queue offset %#llx "
			       "stalled the ITS (an error); MSIs off, devices "
			       "use INTx\n",
			       (unsigned long long)(readr & CMDQ_OFFSET));
			return -EIO;
		}
		if ((readr & CMDQ_OFFSET) == cwriter)
			return 0;
	} while (time_ns() < deadline);
	pr_err("its: the command queue stays at offset %#llx (written to "
	       "%#llx) for 100 ms; MSIs off, devices use INTx\n",
	       (unsigned long long)(readr & CMDQ_OFFSET),
	       (unsigned long long)cwriter);
	return -EIO;
}

int its_run(const struct its_cmd *cmds, unsigned int n)
{
	unsigned long flags;
	int err = -EIO;

	if (WARN_ON_ONCE(n >= CMDQ_BYTES / sizeof(*cmds)))
		return -EINVAL;
	flags = spin_lock_irqsave(&cmd_lock);
	if (given_up)
		goto out_unlock;
	for (unsigned int i = 0; i < n; i++) {
		struct its_cmd *slot = &cmdq[cwriter / sizeof(*slot)];

		*slot = cmds[i];
		gic_table_clean(slot, sizeof(*slot));
		cwriter = (cwriter + sizeof(*slot)) % CMDQ_BYTES;
	}
	gic_write64(reg(GITS_CWRITER), cwriter);
	err = wait_queue();
	given_up = err != 0;
out_unlock:
	spin_unlock_irqrestore(&cmd_lock, flags);
	return err;
}

/* Program @r (a BASER or CBASER) with @v as cacheable Inner Shareable,
 * or non-cacheable where the ITS says it is not coherent. */
static void set_table(uintptr_t r, uint64_t v)
{
	gic_write64(
	    r, v | GIC_TABLE_SH_INNER | GIC_CACHE_WAWB << BASER_CACHE_SHIFT);
	if (!(gic_read64(r) & GIC_TABLE_SH_MASK))
		gic_write64(r, v | GIC_CACHE_NC << BASER_CACHE_SHIFT);
}

/* GITS_BASER<n>: a flat table for devices or collections. */
static int set_up_baser(unsigned int n, unsigned int *collections)
{
	uintptr_t r = reg(GITS_BASER(n));
	uint64_t baser = gic_read64(r);
	unsigned int type = BASER_TYPE(baser), entry = BASER_ENTRY(baser);
	uint32_t entries = type == BASER_DEVICES ? gicv3_its.device_ids : 1;

	if (type != BASER_DEVICES && type != BASER_COLLECTIONS)
		return 0;
	for (unsigned int psz = 0; psz < 3; psz++) {
		size_t page = (size_t)PAGE_SIZE << (2 * psz);
		size_t bytes = ALIGN_UP((size_t)entries * entry, page);
		void *table;

		gic_write64(r, (uint64_t)psz << 8); /* does it keep it? */
		if (BASER_PAGE_SIZE(gic_read64(r)) != psz || bytes / page > 256)
			continue;
		table = alloc_pages_va(GFP_ZERO, get_order(bytes));
		if (!table)
			return -ENOMEM;
		gic_table_clean(table, bytes);
		set_table(r,
			  BASER_VALID | ((uintptr_t)table & BASER_ADDR) |
			      (uint64_t)psz << 8 | (bytes / page - 1));
		*collections += type == BASER_COLLECTIONS;
		return 0;
	}
	pr_err("its: GITS_BASER%u (%u entries of %u bytes) keeps no page size "
	       "that holds them; no MSIs, devices use INTx\n",
	       n,
	       entries,
	       entry);
	return -ENODEV;
}

static int set_up_tables(uint64_t typer)
{
	unsigned int collections = TYPER_HCC(typer);
	int err;

	for (unsigned int n = 0; n < 8; n++)
		if ((err = set_up_baser(n, &collections)))
			return err;
	if (!collections) {
		pr_err("its: no collection table and none in hardware; no "
		       "MSIs, devices use INTx\n");
		return -ENODEV;
	}
	cmdq = alloc_pages_va(GFP_ZERO, get_order(CMDQ_BYTES));
	if (!cmdq)
		return -ENOMEM;
	gic_table_clean(cmdq, CMDQ_BYTES);
	set_table(reg(GITS_CBASER),
		  BASER_VALID | (uintptr_t)cmdq | (CMDQ_BYTES / 4096 - 1));
	gic_write64(reg(GITS_CWRITER), 0);
	return 0;
}

/* The node's registers, mapped; false (said) if it has none usable. */
static bool its_node_usable(int node)
{
	uint64_t base = 0, size = 0;

	if (!fdt_reg(node, 0, &base, &size) ||
	    !fdt_read_u32(node, "phandle", &gicv3_its.phandle) ||
	    !fdt_getprop(node, "msi-controller", NULL)) {
		pr_err("its: %s has no reg, no phandle or no msi-controller; "
		       "no MSIs, devices use INTx\n",
		       fdt_node_name(node));
		return false;
	}
	if (size < ITS_FRAME_SIZE || vm_map_io(base, ITS_FRAME_SIZE)) {
		pr_err("its: %s's registers (%#llx bytes at %#llx) cannot be "
		       "used; no MSIs, devices use INTx\n",
		       fdt_node_name(node),
		       (unsigned long long)size,
		       (unsigned long long)base);
		return false;
	}
	gicv3_its.base = base;
	return true;
}

/* GITS_TYPER's widths; false (said) if it translates to no physical LPI. */
static bool its_typer_usable(int node, uint64_t typer)
{
	if (!(typer & TYPER_PHYSICAL)) {
		pr_err("its: %s: GITS_TYPER says no physical LPIs; no MSIs, "
		       "devices use INTx\n",
		       fdt_node_name(node));
		return false;
	}
	gicv3_its.device_ids =
	    1u << MIN(TYPER_DEVICE_BITS(typer), ITS_MAX_DEVICE_BITS);
	gicv3_its.event_bits = MIN(TYPER_EVENT_BITS(typer), ITS_EVENT_BITS);
	gicv3_its.itt_entry = TYPER_ITT_ENTRY(typer);
	return true;
}

/* Disabled and quiescent (firmware may have left it on), bounded. */
static int its_quiesce(void)
{
	uint64_t deadline = time_ns() + CMD_TIMEOUT_NS;

	mmio_write32(reg(GITS_CTLR),
		     mmio_read32(reg(GITS_CTLR)) & ~GITS_CTLR_ENABLED);
	while (!(mmio_read32(reg(GITS_CTLR)) & GITS_CTLR_QUIESCENT))
		if (time_ns() > deadline) {
			pr_err("its: not quiescent 100 ms after disabling; no "
			       "MSIs, devices use INTx\n");
			return -EIO;
		}
	return 0;
}

static int its_init(void)
{
	struct gicv3_lpi_target target;
	struct its_cmd map[2];
	int node = fdt_next_compatible(-1, "arm,gic-v3-its");
	uint64_t typer;
	int err;

	if (platform.gic_version != 3 || node < 0 || !its_node_usable(node))
		return 0;
	typer = gic_read64(reg(GITS_TYPER));
	if (!its_typer_usable(node, typer) || its_quiesce() ||
	    gicv3_lpi_init(&target))
		return 0;
	gicv3_its.rdbase = typer & TYPER_PTA ? target.rd & CMD_RD_ADDR
					     : (uint64_t)target.processor << 16;
	err = set_up_tables(typer);
	if (err)
		return err == -ENODEV ? 0 : err;
	mmio_write32(reg(GITS_CTLR), GITS_CTLR_ENABLED);
	map[0] = its_cmd_mapc();
	map[1] = its_cmd_sync();
	if (its_run(map, 2))
		return 0;
	gicv3_its.ready = true;
	pr_info("its: %s at %#lx: LPIs %u-%u, %u device ids, %u events a "
		"device\n",
		fdt_node_name(node),
		(unsigned long)gicv3_its.base,
		IRQ_LPI_BASE,
		IRQ_LPI_BASE + IRQ_NR_LPIS - 1,
		gicv3_its.device_ids,
		1u << gicv3_its.event_bits);
	return 0;
}
/* after the GIC (INIT_LEVEL_ARCH) and the page allocator, before drivers/ */
INIT_HOOK(gicv3_its, its_init, INIT_LEVEL_DEVICE);
