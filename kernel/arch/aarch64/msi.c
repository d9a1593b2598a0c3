/*
 * kernel/arch/aarch64/msi.c: <kernel/msi.h> on aarch64's two MSI
 * controllers - a GICv2m frame of SPIs (gicv2m.c, with GICv2) and a GICv3
 * ITS of LPIs (gicv3_its_msi.c) - picking the one the bus names by its
 * phandle (a PCI host bridge's msi-map or msi-parent). QEMU's virt has
 * one or the other; a board with both gets each device the one its bus
 * names. A line's number says whose it is afterwards: LPIs are
 * IRQ_LPI_BASE and up.
 *
 * Locking: none here; each controller's allocator has its lock.
 */
#include <errno.h>
#include <kernel/irq.h>
#include <kernel/msi.h>
#include <kernel/arch/aarch64/gic.h>

int msi_alloc(uint32_t controller,
	      uint32_t devid,
	      unsigned int n,
	      unsigned int *first)
{
	if (gicv3_its_names(controller))
		return gicv3_its_alloc(devid, n, first);
	if (gicv2m_names(controller))
		return gicv2m_alloc(n, first);
	return -ENODEV;
}

void msi_free(unsigned int first, unsigned int n)
{
	if (first >= IRQ_LPI_BASE)
		gicv3_its_free(first, n);
	else
		gicv2m_free(first, n);
}

void msi_compose(unsigned int irq, struct msi_msg *msg)
{
	if (irq >= IRQ_LPI_BASE)
		gicv3_its_compose(irq, msg);
	else
		gicv2m_compose(irq, msg);
}

const char *msi_controller_name(void)
{
	if (gicv3_its_present())
		return gicv2m_present() ? "GICv2m SPIs or GICv3 ITS LPIs"
					: "GICv3 ITS LPIs";
	return gicv2m_present() ? "GICv2m SPIs" : NULL;
}
