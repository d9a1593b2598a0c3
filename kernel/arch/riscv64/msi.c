/*
 * kernel/arch/riscv64/msi.c: <kernel/msi.h> on AIA's IMSIC (aia.h): the
 * identities past the APLIC's wired sources, handed out in runs by a
 * bitmap. A message is the identity (data) written to the interrupt file
 * of the hart aia_irq_cpu() gives it (address): consecutive identities go
 * to consecutive harts, so a multi-queue device's vectors are spread.
 * Without an IMSIC (the PLIC, QEMU virt's default) every allocation is
 * refused and devices use INTx.
 *
 * Locking: msi_lock (irqsave) protects the bitmap.
 */
#include <errno.h>
#include <kernel/bitmap.h>
#include <kernel/irq.h>
#include <kernel/msi.h>
#include <kernel/panic.h>
#include <kernel/platform.h>
#include <kernel/spinlock.h>
#include <kernel/arch/riscv64/aia.h>

static DEFINE_SPINLOCK(msi_lock);
/* protected by msi_lock: one bit per identity, set when handed out */
static uint64_t used[BITMAP_WORDS(IRQ_MAX)];

/* Is @id an identity msi_alloc() handed out? (irqchip_valid's) */
bool msi_allocated(unsigned int id)
{
	return id < IRQ_MAX && bitmap_test(used, id);
}

int msi_alloc(uint32_t controller,
	      uint32_t devid,
	      unsigned int n,
	      unsigned int *first)
{
	unsigned long flags;
	int id;

	(void)devid; /* an IMSIC's message names no device */
	if (!aia.on || !controller || controller != platform.imsic_phandle)
		return -ENODEV;
	flags = spin_lock_irqsave(&msi_lock);
	id = bitmap_find_clear_run(used, aia.nsources + 1, aia_msi_end(), n);
	if (id >= 0) {
		*first = (unsigned int)id;
		for (unsigned int i = 0; i < n; i++)
			bitmap_assign(used, *first + i, true);
	}
	spin_unlock_irqrestore(&msi_lock, flags);
	return id < 0 ? id : 0;
}

void msi_free(unsigned int first, unsigned int n)
{
	unsigned long flags = spin_lock_irqsave(&msi_lock);

	for (unsigned int id = first; id < first + n; id++)
		if (!WARN_ON_ONCE(!bitmap_test(used, id)))
			bitmap_assign(used, id, false);
	spin_unlock_irqrestore(&msi_lock, flags);
}

void msi_compose(unsigned int irq, struct msi_msg *msg)
{
	WARN_ON_ONCE(!msi_allocated(irq));
	msg->address = aia.file[aia_irq_cpu(irq)];
	msg->data = irq;
}

const char *msi_controller_name(void)
{
	return aia.on ? "IMSIC identities" : NULL;
}
