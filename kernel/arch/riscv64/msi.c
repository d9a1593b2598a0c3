/*
 * kernel/arch/riscv64/msi.c: <kernel/msi.h> on riscv64's virt, which has
 * no MSI controller here (the PLIC takes wired interrupts only; an IMSIC
 * is not supported): every allocation is refused and devices use INTx.
 */
#include <errno.h>
#include <kernel/msi.h>
#include <kernel/panic.h>

int msi_alloc(uint32_t controller,
	      uint32_t devid,
	      unsigned int n,
	      unsigned int *first)
{
	(void)controller;
	(void)devid;
	(void)n;
	(void)first;
	return -ENODEV;
}

void msi_free(unsigned int first, unsigned int n)
{
	WARN_ON_ONCE(n);
	(void)first;
}

void msi_compose(unsigned int irq, struct msi_msg *msg)
{
	WARN_ON_ONCE(1);
	(void)irq;
	*msg = (struct msi_msg){ 0 };
}

const char *msi_controller_name(void)
{
	return NULL;
}
