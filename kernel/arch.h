/*
 * kernel/arch.h: the only way portable code reaches the CPU.
 *
 * Each architecture implements these hooks in kernel/arch/<arch>/; portable
 * code never includes an architecture header directly.
 *   arch_irq_save/restore   - mask and restore local interrupts
 *   arch_current_task       - the running task (kept in tp)
 *   arch_counter            - the free-running time counter (rdtime)
 *   arch_cycles             - the cycle counter (rdcycle)
 *   arch_wait_for_interrupt - idle until an interrupt is pending
 *   arch_copy_nofault       - a copy that stops at a page fault
 */
#pragma once

#include <kernel/compiler.h>

struct cpu;
struct task;

unsigned long arch_irq_save(void);
void arch_irq_restore(unsigned long flags);
void arch_irq_enable(void);
void arch_irq_disable(void);
bool arch_irqs_enabled(void);
void arch_wait_for_interrupt(void);
void arch_cpu_relax(void);
uint64_t arch_counter(void);
uint64_t arch_cycles(void);
/* Raise this hart's timer interrupt when the counter reaches @when. */
void arch_timer_set(uint64_t when);
/* Make another hart take a software interrupt (reschedule). */
void arch_send_ipi(const struct cpu *c);
void arch_tlb_flush_all(void);
void arch_tlb_flush_page(uintptr_t va);
/* Copy @n bytes from @src to @dst, stopping at the first page fault on
 * @src instead of handling it (the caller holds a lock the fault would
 * need). Return: the number of bytes not copied (0: all were). */
size_t arch_copy_nofault(void *dst, const void *src, size_t n);
__noreturn void arch_poweroff(int code);
/* Ask the firmware to power the machine off, passing @code to the host
 * where the arch has a way (aarch64: semihosting exit, if QEMU enabled
 * it); riscv64's SBI reset has none (sifive_test carries it there). */
__noreturn void arch_firmware_poweroff(int code);
/* The counter's frequency if the CPU says it (aarch64 CNTFRQ_EL0), or 0:
 * then the device tree's /cpus timebase-frequency gives it. */
uint64_t arch_counter_hz(void);
/* Tests: run an instruction the CPU must refuse (an illegal-instruction
 * trap), and write at @code a function that only returns, made visible
 * to instruction fetch (to prove data pages are not executable). */
void arch_execute_illegal_instruction(void);
void arch_write_return_stub(void *code);

/*
 * The MMU. mm/pgtable.c walks the one page table of every hart (its
 * contract and locking in mm/pgtable.h); the entry format is the
 * architecture's <arch/pte.h> (pte_t, PT_LEVELS, pte_valid, pte_is_leaf,
 * pte_pa, pte_table, pte_prot, pte_wrprotect), and these hooks
 * (kernel/arch/riscv64/mmu.c: Sv39; kernel/arch/aarch64/mmu.c:
 * VMSAv8-64, 4 KiB granule, 39-bit VA, two tables for the two halves).
 */
#define ARCH_PROT_R 0x1u
#define ARCH_PROT_W 0x2u
#define ARCH_PROT_X 0x4u
#include <arch/pte.h>
/* Allocate the empty table (boot hart, before any pt_map). */
void arch_mmu_init(void);
/* Turn translation on with the table, on this hart. */
void arch_mmu_enable(void);
/* The translation mode's name, for the boot log. */
const char *arch_mmu_name(void);
/* The root table that translates @va (NULL before arch_mmu_init). */
pte_t *arch_pt_root(uintptr_t va);
/* A leaf entry mapping @pa with ARCH_PROT_* @prot at @level (0: 4 KiB). */
pte_t arch_pte_leaf(uintptr_t pa, unsigned int prot, int level);
/* The ARCH_PROT_* right the access that just faulted needed (read in the
 * trap handler, before anything else could fault). */
unsigned int arch_fault_access(void);
/* Make every hart forget its translations of [@start, @start + @size). */
void arch_tlb_flush_all_harts(uintptr_t start, size_t size);

struct task_context;
/* Save the running context in @old, resume @new as task @next (tp). */
void arch_switch_context(struct task_context *old,
			 struct task_context *new,
			 struct task *next);
/* Start secondary hart @c at secondary_main() on c->boot_sp. */
int arch_start_cpu(struct cpu *c);
/* Per-hart trap and interrupt set-up. */
void arch_init_cpu(void);

/*
 * The inline hooks (arch_current_task, arch_set_current_task,
 * arch_frame_record: where fp's {caller fp, return address} record is),
 * ARCH_NAME (the banner's) and the barriers (smp_mb/rmb/wmb; io_wmb/rmb/mb:
 * memory against device I/O) come from the architecture's <arch/inline.h>;
 * build.ninja puts kernel/arch/<arch>/include on the include path. Only this
 * header includes it.
 */
#include <arch/inline.h>
/* struct task_context (kernel/sched.h's tasks), the arch's layout. */
#include <arch/context.h>

static inline uint32_t mmio_read32(uintptr_t addr)
{
	uint32_t v = *(volatile uint32_t *)addr;
	io_rmb();
	return v;
}

static inline void mmio_write32(uintptr_t addr, uint32_t v)
{
	io_wmb();
	*(volatile uint32_t *)addr = v;
}

static inline uint16_t mmio_read16(uintptr_t addr)
{
	uint16_t v = *(volatile uint16_t *)addr;
	io_rmb();
	return v;
}

static inline void mmio_write16(uintptr_t addr, uint16_t v)
{
	io_wmb();
	*(volatile uint16_t *)addr = v;
}

static inline uint8_t mmio_read8(uintptr_t addr)
{
	uint8_t v = *(volatile uint8_t *)addr;
	io_rmb();
	return v;
}

static inline void mmio_write8(uintptr_t addr, uint8_t v)
{
	io_wmb();
	*(volatile uint8_t *)addr = v;
}

/* A register or field of @size 1, 2 or 4 bytes. */
static inline uint32_t mmio_read_sized(uintptr_t addr, unsigned int size)
{
	switch (size) {
	case 1: return mmio_read8(addr);
	case 2: return mmio_read16(addr);
	default: return mmio_read32(addr);
	}
}
