/*
 * kernel/arch/aarch64/gicv2m.c: MSIs through a GICv2m frame (Arm's GICv2m
 * specification; QEMU virt gives one with GICv2), for msi.c's
 * <kernel/msi.h>.
 *
 * The frame is a page of registers in front of a range of the GIC's SPIs:
 * a device writes an SPI's number (the INTID) to MSI_SETSPI_NS and the
 * frame raises that SPI, once (edge). The device tree names it
 * ("arm,gic-v2m-frame", with `msi-controller`, `reg`, a phandle the PCI
 * host bridge's msi-parent or msi-map points to); the SPI range is its
 * `arm,msi-base-spi` and `arm,msi-num-spis` if it has them, else the
 * frame's MSI_TYPER register. A frame whose node or range is wrong (no
 * registers, SPIs the distributor does not have) is not used, said on the
 * console: devices then keep INTx. Only the first frame is used.
 *
 * Locking: msi_lock protects the allocation bitmap and the distributor's
 * configuration registers of the frame's SPIs (read-modify-write). The
 * frame's description is written once by the init hook, before any
 * driver asks, and read-only afterwards.
 */
#include <errno.h>
#include <kernel/bitmap.h>
#include <kernel/fdt.h>
#include <kernel/init.h>
#include <kernel/irq.h>
#include <kernel/msi.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/panic.h>
#include <kernel/spinlock.h>
#include <mm/vm.h>
#include <kernel/arch/aarch64/gic.h>

#define V2M_MSI_TYPER	    0x008
#define V2M_MSI_SETSPI_NS   0x040
#define V2M_TYPER_BASE(t)   (((t) >> 16) & 0x3ff)
#define V2M_TYPER_NUMBER(t) ((t)&0x3ff)
#define V2M_FRAME_SIZE	    0x1000

static struct {
	uint64_t base; /* 0: no frame in use */
	uint32_t phandle;
	unsigned int first, num; /* SPIs first..first+num-1 */
} frame;

static DEFINE_SPINLOCK(msi_lock);
/* protected by msi_lock: one bit per SPI of the frame, set when handed out */
static uint64_t used[BITMAP_WORDS(IRQ_MAX)];

/* The SPI range: the device tree's if it says, else MSI_TYPER's. */
static void frame_range(int node)
{
	uint32_t typer = mmio_read32(frame.base + V2M_MSI_TYPER);
	uint32_t base, num;

	frame.first = V2M_TYPER_BASE(typer);
	frame.num = V2M_TYPER_NUMBER(typer);
	if (fdt_read_u32(node, "arm,msi-base-spi", &base) &&
	    fdt_read_u32(node, "arm,msi-num-spis", &num)) {
		frame.first = base;
		frame.num = num;
	}
}

static bool frame_usable(int node, uint64_t size)
{
	if (!fdt_getprop(node, "msi-controller", NULL) ||
	    size < V2M_FRAME_SIZE) {
		pr_err("gicv2m: %s is no msi-controller or its registers are "
		       "%#llx bytes; no MSIs, devices use INTx\n",
		       fdt_node_name(node),
		       (unsigned long long)size);
		return false;
	}
	if (vm_map_io(frame.base, V2M_FRAME_SIZE)) {
		pr_err("gicv2m: %s cannot be mapped; no MSIs, devices use "
		       "INTx\n",
		       fdt_node_name(node));
		return false;
	}
	frame_range(node);
	if (!frame.num || frame.first < 32 ||
	    frame.first + frame.num > IRQ_MAX || !irqchip_valid(frame.first) ||
	    !irqchip_valid(frame.first + frame.num - 1)) {
		pr_err("gicv2m: %s says SPIs %u-%u, which the distributor "
		       "does not have; no MSIs, devices use INTx\n",
		       fdt_node_name(node),
		       frame.first,
		       frame.first + frame.num - 1);
		return false;
	}
	return true;
}

static int gicv2m_init(void)
{
	int node = fdt_next_compatible(-1, "arm,gic-v2m-frame");
	uint64_t size = 0;

	if (!platform.gic_version)
		return 0;
	if (node < 0) {
		if (fdt_next_compatible(-1, "arm,gic-v3-its") < 0)
			pr_info("gic: no GICv2m frame and no ITS in the device "
				"tree: no MSIs, devices use INTx\n");
		return 0;
	}
	if (!fdt_reg(node, 0, &frame.base, &size) ||
	    !fdt_read_u32(node, "phandle", &frame.phandle)) {
		pr_err("gicv2m: %s has no reg or no phandle; no MSIs, devices "
		       "use INTx\n",
		       fdt_node_name(node));
		frame.base = 0;
		return 0;
	}
	if (!frame_usable(node, size)) {
		frame.base = 0;
		return 0;
	}
	pr_info("gicv2m: MSI frame at %#llx, SPIs %u-%u\n",
		(unsigned long long)frame.base,
		frame.first,
		frame.first + frame.num - 1);
	return 0;
}
/* after the GIC (INIT_LEVEL_ARCH) and the page tables, before drivers/ */
INIT_HOOK(gicv2m, gicv2m_init, INIT_LEVEL_DEVICE);

bool gicv2m_names(uint32_t phandle)
{
	return frame.base && phandle && phandle == frame.phandle;
}

/* msi_alloc() on the frame: @n SPIs in a row of its range. */
int gicv2m_alloc(unsigned int n, unsigned int *first)
{
	unsigned long flags;
	int spi;

	flags = spin_lock_irqsave(&msi_lock);
	spi = bitmap_find_clear_run(
	    used, frame.first, frame.first + frame.num, n);
	if (spi >= 0) {
		*first = (unsigned int)spi;
		for (unsigned int i = *first; i < *first + n; i++) {
			bitmap_assign(used, i, true);
			gic_set_edge(i);
		}
	}
	spin_unlock_irqrestore(&msi_lock, flags);
	return spi < 0 ? spi : 0;
}

void gicv2m_free(unsigned int first, unsigned int n)
{
	unsigned long flags = spin_lock_irqsave(&msi_lock);

	for (unsigned int spi = first; spi < first + n; spi++)
		if (!WARN_ON_ONCE(spi < frame.first ||
				  spi >= frame.first + frame.num))
			bitmap_assign(used, spi, false);
	spin_unlock_irqrestore(&msi_lock, flags);
}

void gicv2m_compose(unsigned int irq, struct msi_msg *msg)
{
	msg->address = frame.base + V2M_MSI_SETSPI_NS;
	msg->data = irq;
}

bool gicv2m_present(void)
{
	return frame.base;
}
