/*
 * kernel/arch/aarch64/arch.c: the arch_*() hooks of <kernel/arch.h>.
 *
 * Interrupts are PSTATE.I (DAIF); the time counter is the generic timer's
 * virtual count, its interrupt the virtual timer (a GIC PPI, dispatched in
 * gic.c); IPIs are GIC SGIs; other CPUs start through PSCI (psci.c).
 */
#include <errno.h>
#include <kernel/arch.h>
#include <kernel/cpu.h>
#include <kernel/platform.h>
#include <kernel/arch/aarch64/gic.h>
#include <kernel/arch/aarch64/psci.h>
#include <kernel/arch/aarch64/sysreg.h>
#include <kernel/arch/aarch64/trap.h>

unsigned long arch_irq_save(void)
{
	unsigned long flags = sysreg_read(daif);

	__asm__ __volatile__("msr daifset, #2" ::: "memory");
	return flags;
}

void arch_irq_restore(unsigned long flags)
{
	if (!(flags & PSR_I))
		__asm__ __volatile__("msr daifclr, #2" ::: "memory");
}

void arch_irq_enable(void)
{
	__asm__ __volatile__("msr daifclr, #2" ::: "memory");
}

void arch_irq_disable(void)
{
	__asm__ __volatile__("msr daifset, #2" ::: "memory");
}

bool arch_irqs_enabled(void)
{
	return !(sysreg_read(daif) & PSR_I);
}

void arch_wait_for_interrupt(void)
{
	__asm__ __volatile__("dsb sy\n\twfi" ::: "memory");
}

void arch_cpu_relax(void)
{
	__asm__ __volatile__("yield" ::: "memory");
}

uint64_t arch_counter(void)
{
	isb(); /* not read ahead of the code before it */
	return sysreg_read(cntvct_el0);
}

uint64_t arch_counter_hz(void)
{
	return sysreg_read(cntfrq_el0);
}

uint64_t arch_cycles(void)
{
	return sysreg_read(pmccntr_el0);
}

/* The virtual timer fires when the count reaches CVAL; writing a later
 * CVAL lowers its (level) interrupt again. */
void arch_timer_set(uint64_t when)
{
	sysreg_write(cntv_cval_el0, when);
	sysreg_write(cntv_ctl_el0, 1); /* enabled, not masked */
	isb();
}

void arch_tlb_flush_all(void)
{
	__asm__ __volatile__("dsb ishst\n\ttlbi vmalle1\n\tdsb nsh\n\tisb" ::
				 : "memory");
}

void arch_tlb_flush_page(uintptr_t va)
{
	uint64_t arg = (va >> 12) & ((1UL << 44) - 1);

	__asm__ __volatile__(
	    "dsb ishst\n\ttlbi vaae1, %0\n\tdsb nsh\n\tisb" ::"r"(arg)
	    : "memory");
}

void arch_firmware_poweroff(int code)
{
	semihosting_exit(code); /* returns if QEMU has no -semihosting */
	psci_system_off();
	for (;;)
		__asm__ __volatile__("wfi");
}

void arch_execute_illegal_instruction(void)
{
	__asm__ __volatile__(".inst 0x00000000"); /* udf #0 */
}

/* `ret`, then the data cache cleaned and the instruction cache emptied to
 * the point of unification, as the architecture asks for new code. */
void arch_write_return_stub(void *code)
{
	*(volatile uint32_t *)code = 0xd65f03c0;
	__asm__ __volatile__("dc cvau, %0\n\tdsb ish\n\tic ivau, %0\n\t"
			     "dsb ish\n\tisb" ::"r"(code)
			     : "memory");
}

void arch_poweroff(int code)
{
	arch_irq_disable();
	platform_poweroff(code);
}

void arch_send_ipi(const struct cpu *c)
{
	gic_send_resched(c);
}

int arch_start_cpu(struct cpu *c)
{
	extern char secondary_entry[];

	/* identity-mapped: the entry's address is its physical address */
	return psci_cpu_on(
		   c->hartid, (uintptr_t)secondary_entry, (uintptr_t)c->idle)
		   ? -EIO
		   : 0;
}

void arch_init_cpu(void)
{
	trap_init_hart();
	/* the cycle counter (PMCCNTR_EL0) counting, for arch_cycles */
	sysreg_write(pmcr_el0, sysreg_read(pmcr_el0) | 1);
	sysreg_write(pmcntenset_el0, 1UL << 31);
	isb();
}
