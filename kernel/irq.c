/*
 * kernel/irq.c: external interrupts through the RISC-V PLIC.
 *
 * Every registered source is enabled for the S-mode context of every hart
 * at priority 1, threshold 0: whichever hart claims it first handles it.
 * The handler table is written before a source is enabled and read only
 * in interrupt context afterwards.
 */
#include <errno.h>
#include <kernel/irq.h>
#include <kernel/cpu.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/spinlock.h>

#define PLIC_MAX_IRQ	   1024
#define PLIC_PRIORITY(irq) (platform.plic.base + 4 * (irq))
#define PLIC_ENABLE(ctx, irq) \
	(platform.plic.base + 0x2000 + 0x80 * (ctx) + 4 * ((irq) / 32))
#define PLIC_THRESHOLD(ctx) (platform.plic.base + 0x200000 + 0x1000 * (ctx))
#define PLIC_CLAIM(ctx)	    (PLIC_THRESHOLD(ctx) + 4)

static struct {
	irq_handler_t handler;
	void *arg;
	unsigned long count;
} irqs[PLIC_MAX_IRQ];
static DEFINE_SPINLOCK(irq_lock); /* serialises enable-bit updates */

static void set_enabled(unsigned int irq, bool on)
{
	unsigned long flags = spin_lock_irqsave(&irq_lock);

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

int irq_register(unsigned int irq, irq_handler_t handler, void *arg)
{
	if (!platform.plic.base || irq == 0 || irq >= PLIC_MAX_IRQ ||
	    (platform.plic_ndev && irq > platform.plic_ndev))
		return -EINVAL;
	if (irqs[irq].handler)
		return -EBUSY;
	irqs[irq].arg = arg;
	WRITE_ONCE(irqs[irq].handler, handler);
	mmio_write32(PLIC_PRIORITY(irq), 1);
	set_enabled(irq, true);
	return 0;
}

bool irq_pending(unsigned int irq)
{
	if (!platform.plic.base || irq == 0 || irq >= PLIC_MAX_IRQ)
		return false;
	return mmio_read32(platform.plic.base + 0x1000 + 4 * (irq / 32)) &
	       (1u << (irq % 32));
}

void irq_unregister(unsigned int irq)
{
	if (irq == 0 || irq >= PLIC_MAX_IRQ)
		return;
	set_enabled(irq, false);
	WRITE_ONCE(irqs[irq].handler, NULL);
}

void irq_dispatch(void)
{
	int ctx = platform.plic_context[cpu_id()];
	uint32_t irq;

	if (ctx < 0)
		return;
	while ((irq = mmio_read32(PLIC_CLAIM(ctx))) != 0) {
		irq_handler_t h =
		    irq < PLIC_MAX_IRQ ? READ_ONCE(irqs[irq].handler) : NULL;
		if (h) {
			irqs[irq].count++;
			h(irqs[irq].arg);
		} else {
			pr_warn("irq: spurious interrupt %u\n", irq);
		}
		mmio_write32(PLIC_CLAIM(ctx), irq);
	}
}

void irq_init_hart(void)
{
	int ctx = platform.plic_context[cpu_id()];

	if (ctx >= 0 && platform.plic.base)
		mmio_write32(PLIC_THRESHOLD(ctx), 0);
}
