/*
 * kernel/arch/riscv64/arch.c: the arch_*() hooks of <kernel/arch.h>.
 */
#include <kernel/arch.h>
#include <kernel/irq.h>
#include <kernel/printk.h>
#include <kernel/platform.h>
#include <kernel/arch/riscv64/aia.h>
#include <kernel/arch/riscv64/csr.h>
#include <kernel/arch/riscv64/sbi.h>
#include <errno.h>
#include <kernel/cpu.h>
#include <kernel/arch/riscv64/trap.h>

unsigned long arch_irq_save(void)
{
	return csr_read_clear(sstatus, SSTATUS_SIE) & SSTATUS_SIE;
}

void arch_irq_restore(unsigned long flags)
{
	if (flags & SSTATUS_SIE)
		csr_set(sstatus, SSTATUS_SIE);
}

void arch_irq_enable(void)
{
	csr_set(sstatus, SSTATUS_SIE);
}

void arch_irq_disable(void)
{
	csr_clear(sstatus, SSTATUS_SIE);
}

bool arch_irqs_enabled(void)
{
	return csr_read(sstatus) & SSTATUS_SIE;
}

void arch_wait_for_interrupt(void)
{
	__asm__ __volatile__("wfi" ::: "memory");
}

void arch_cpu_relax(void)
{
	/* pause (Zihintpause) is a hint: a no-op fence where unsupported */
	__asm__ __volatile__(".4byte 0x0100000f" ::: "memory");
}

uint64_t arch_counter(void)
{
	uint64_t t;
	__asm__ __volatile__("rdtime %0" : "=r"(t));
	return t;
}

uint64_t arch_cycles(void)
{
	uint64_t c;
	__asm__ __volatile__("rdcycle %0" : "=r"(c));
	return c;
}

/* The PLIC (plic.c) enables every source in every hart's context and the
 * first to claim it runs it: no routing to one hart is offered. */
int irqchip_set_affinity(unsigned int irq, const struct cpu *c)
{
	(void)irq;
	(void)c;
	return -EOPNOTSUPP;
}

void arch_tlb_flush_all(void)
{
	__asm__ __volatile__("sfence.vma" ::: "memory");
}

void arch_tlb_flush_page(uintptr_t va)
{
	__asm__ __volatile__("sfence.vma %0" ::"r"(va) : "memory");
}

void arch_firmware_poweroff(int code)
{
	(void)code; /* SBI's reset takes none: sifive_test carries it */
	sbi_shutdown();
}

uint64_t arch_counter_hz(void)
{
	return 0; /* the device tree's timebase-frequency */
}

void arch_execute_illegal_instruction(void)
{
	__asm__ __volatile__(".4byte 0x00000000"); /* defined illegal */
}

void arch_write_return_stub(void *code)
{
	*(volatile uint32_t *)code = 0x00008067; /* ret (jalr x0, 0(ra)) */
	__asm__ __volatile__("fence.i" ::: "memory");
}

void arch_poweroff(int code)
{
	arch_irq_disable();
	platform_poweroff(code);
}

/*
 * The tick's timer. With Sstc, S-mode writes its own compare register
 * (stimecmp) and the timer interrupt comes straight to S-mode; without
 * it each setting is an SBI call, and each interrupt an M-mode one that
 * the firmware passes down. Like Linux, whole uses Sstc when every hart's
 * ISA names it (platform.harts_sstc; the firmware has then enabled it,
 * menvcfg.STCE).
 */
void arch_timer_set(uint64_t when)
{
	if (platform.harts_sstc)
		csr_write(0x14d, when); /* stimecmp, by number */
	else
		sbi_set_timer(when);
}

void arch_send_ipi(const struct cpu *c)
{
	if (!aia_send_ipi(c->id))
		sbi_send_ipi_one(c->hartid);
}

int arch_start_cpu(struct cpu *c)
{
	extern char secondary_entry[];

	return sbi_hart_start(
		   c->hartid, (uintptr_t)secondary_entry, (uintptr_t)c->idle)
		   ? -EIO
		   : 0;
}

void arch_init_cpu(void)
{
	if (cpu_id() == 0)
		pr_info("timer: %s\n",
			platform.harts_sstc
			    ? "Sstc (stimecmp)"
			    : "SBI set_timer (not every hart has Sstc)");
	trap_init_hart();
}
