/*
 * kernel/arch/riscv64/plic.c: the RISC-V PLIC, one of the two controllers
 * irqchip.c puts behind <kernel/irq.h>'s irqchip_*() hooks and
 * irq_dispatch() (the default; the other is AIA's APLIC and IMSIC).
 *
 * Every registered source is enabled for the S-mode context of every hart
 * at priority 1, threshold 0: whichever hart claims it first handles it.
 */
#include <kernel/irq.h>
#include <kernel/cpu.h>
#include <kernel/platform.h>
#include <kernel/spinlock.h>
#include <kernel/arch/riscv64/aia.h>

#define PLIC_PRIORITY(irq) (platform.plic.base + 4 * (irq))
#define PLIC_ENABLE(ctx, irq) \
	(platform.plic.base + 0x2000 + 0x80 * (ctx) + 4 * ((irq) / 32))
#define PLIC_THRESHOLD(ctx) (platform.plic.base + 0x200000 + 0x1000 * (ctx))
#define PLIC_CLAIM(ctx)	    (PLIC_THRESHOLD(ctx) + 4)

static DEFINE_SPINLOCK(irq_lock); /* serialises enable-bit updates */

bool plic_valid(unsigned int irq)
{
	return platform.plic.base && irq != 0 &&
	       (!platform.plic_ndev || irq <= platform.plic_ndev);
}

void plic_enable(unsigned int irq, bool on)
{
	unsigned long flags = spin_lock_irqsave(&irq_lock);

	if (on)
		mmio_write32(PLIC_PRIORITY(irq), 1);
	for (unsigned int i = 0; i < platform.nharts; i++) {
		int ctx = platform.plic_context[i];
		if (ctx < 0)
			continue;
		uint32_t v = mmio_read32(PLIC_ENABLE(ctx, irq));
		v = on ? v | (1u << (irq % 32)) : v & ~(1u << (irq % 32));
		mmio_write32(PLIC_ENABLE(ctx, irq), v);
	}
	spin_unlock_irqrestore(&irq_lock, flags);
}

bool plic_pending(unsigned int irq)
{
	return mmio_read32(platform.plic.base + 0x1000 + 4 * (irq / 32)) &
	       (1u << (irq % 32));
}

void plic_dispatch(void)
{
	int ctx = platform.plic_context[cpu_id()];
	uint32_t irq;

	if (ctx < 0)
		return;
	while ((irq = mmio_read32(PLIC_CLAIM(ctx))) != 0) {
		irq_handle(irq);
		mmio_write32(PLIC_CLAIM(ctx), irq);
	}
}

void plic_init_hart(void)
{
	int ctx = platform.plic_context[cpu_id()];

	if (ctx >= 0 && platform.plic.base)
		mmio_write32(PLIC_THRESHOLD(ctx), 0);
}
