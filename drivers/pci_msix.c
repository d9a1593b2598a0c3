/*
 * drivers/pci_msix.c: MSI-X (PCI Local Bus 3.0, 6.8.2) for the drivers of
 * the functions drivers/pci.c enumerated: the capability, its table in a
 * memory BAR, lines from the board's MSI controller (<kernel/msi.h>), and
 * turning it on and off.
 *
 * Turning it on: the lines are allocated, MSI-X is enabled with the whole
 * function masked, each entry is given its message (address, data) and
 * unmasked, entries past those used stay masked, INTx is disabled in the
 * command register, and the function mask is lifted last: the device
 * sends nothing while its table is half written. Turning it off is the
 * reverse, INTx back on.
 *
 * Locking: none; the function's driver calls these at probe, before its
 * handlers are registered.
 */
#include <errno.h>
#include <linux/pci_regs.h>
#include <drivers/pci.h>
#include <kernel/arch.h>
#include <kernel/msi.h>
#include <kernel/printk.h>

int pci_msix_find(const struct pci_dev *d, struct pci_msix *m)
{
	uint8_t at;
	int n = pci_find_caps(d, PCI_CAP_ID_MSIX, &at, 1);
	uint32_t table;
	const struct pci_bar *b;

	*m = (struct pci_msix){ 0 };
	if (n <= 0)
		return n ? n : -ENOENT;
	if (at + PCI_CAP_MSIX_SIZEOF > PCI_CFG_SIZE) {
		pr_err("%s: MSI-X capability at %#x runs past configuration "
		       "space; MSI-X not used\n",
		       d->name,
		       at);
		return -ERANGE;
	}
	m->size =
	    (pci_read(d, at + PCI_MSIX_FLAGS, 2) & PCI_MSIX_FLAGS_QSIZE) + 1;
	table = pci_read(d, at + PCI_MSIX_TABLE, 4);
	b = &d->bar[table & PCI_MSIX_TABLE_BIR];
	if ((table & PCI_MSIX_TABLE_BIR) >= PCI_BARS || !b->addr || b->io ||
	    (uint64_t)(table & PCI_MSIX_TABLE_OFFSET) +
		    (uint64_t)m->size * PCI_MSIX_ENTRY_SIZE >
		b->size) {
		pr_err("%s: MSI-X table (BAR %u, offset %#x, %u entries) is "
		       "not inside a memory BAR in use; MSI-X not used\n",
		       d->name,
		       table & PCI_MSIX_TABLE_BIR,
		       table & PCI_MSIX_TABLE_OFFSET,
		       m->size);
		return -EINVAL;
	}
	m->cap = at;
	m->table = (uintptr_t)(b->addr + (table & PCI_MSIX_TABLE_OFFSET));
	return 0;
}

static uintptr_t entry(const struct pci_msix *m, unsigned int i, unsigned off)
{
	return m->table + i * PCI_MSIX_ENTRY_SIZE + off;
}

static void set_flags(const struct pci_dev *d,
		      const struct pci_msix *m,
		      uint16_t clear,
		      uint16_t set)
{
	uint16_t flags = (uint16_t)pci_read(d, m->cap + PCI_MSIX_FLAGS, 2);

	pci_write(d, m->cap + PCI_MSIX_FLAGS, 2, (flags & ~clear) | set);
}

static void set_intx(const struct pci_dev *d, bool on)
{
	uint16_t cmd = (uint16_t)pci_read(d, PCI_COMMAND, 2);

	cmd = on ? cmd & ~PCI_COMMAND_INTX_DISABLE
		 : cmd | PCI_COMMAND_INTX_DISABLE;
	pci_write(d, PCI_COMMAND, 2, cmd);
}

int pci_msix_enable(const struct pci_dev *d,
		    struct pci_msix *m,
		    unsigned int nvec)
{
	int err;

	if (!m->cap || !nvec || nvec > m->size)
		return -ERANGE;
	err = msi_alloc(
	    pci_msi_controller(d), pci_msi_devid(d), nvec, &m->first_irq);
	if (err)
		return err;
	m->nvec = nvec;
	set_flags(d, m, 0, PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL);
	for (unsigned int i = 0; i < m->size; i++) {
		struct msi_msg msg;

		if (i >= nvec) {
			mmio_write32(entry(m, i, PCI_MSIX_ENTRY_VECTOR_CTRL),
				     PCI_MSIX_ENTRY_CTRL_MASKBIT);
			continue;
		}
		msi_compose(m->first_irq + i, &msg);
		mmio_write32(entry(m, i, PCI_MSIX_ENTRY_LOWER_ADDR),
			     (uint32_t)msg.address);
		mmio_write32(entry(m, i, PCI_MSIX_ENTRY_UPPER_ADDR),
			     (uint32_t)(msg.address >> 32));
		mmio_write32(entry(m, i, PCI_MSIX_ENTRY_DATA), msg.data);
		mmio_write32(entry(m, i, PCI_MSIX_ENTRY_VECTOR_CTRL), 0);
	}
	set_intx(d, false);
	set_flags(d, m, PCI_MSIX_FLAGS_MASKALL, 0);
	return 0;
}

void pci_msix_disable(const struct pci_dev *d, struct pci_msix *m)
{
	if (!m->nvec)
		return;
	set_flags(d, m, 0, PCI_MSIX_FLAGS_MASKALL);
	for (unsigned int i = 0; i < m->nvec; i++)
		mmio_write32(entry(m, i, PCI_MSIX_ENTRY_VECTOR_CTRL),
			     PCI_MSIX_ENTRY_CTRL_MASKBIT);
	set_flags(d, m, PCI_MSIX_FLAGS_ENABLE | PCI_MSIX_FLAGS_MASKALL, 0);
	set_intx(d, true);
	msi_free(m->first_irq, m->nvec);
	m->nvec = 0;
}
