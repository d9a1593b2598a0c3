/*
 * kernel/arch/aarch64/mmu.c: VMSAv8-64 behind the MMU hooks of
 * <kernel/arch.h>; mm/pgtable.c walks the tables (descriptor format:
 * <arch/pte.h>) and mm/vm.c decides what is mapped where.
 *
 * 4 KiB granule, 39-bit addresses in each half: three levels of 512
 * entries, as Sv39 (level 2: 1 GiB, level 1: 2 MiB blocks, level 0: 4 KiB
 * pages). Two roots: TTBR0 for the low half (RAM and devices, identity),
 * TTBR1 for the high half (mm/vm.c's stack and mmap areas at
 * 0xFFFFFFC000000000). Every entry has AF set (no hardware access flag
 * updates) and is global; memory type by address: the device tree's RAM
 * is Normal write-back inner shareable, anything else Device-nGnRE. No
 * entry is executable at EL0.
 *
 * Break-before-make: pt_set replaces a valid page by another through an
 * invalid entry and a broadcast TLBI (mm/pgtable.c, pte_needs_break in
 * <arch/pte.h>); the boot CPU leaves boot_l1's 1 GiB blocks for the
 * kernel table with translation off (arch_mmu_enable), as the secondary
 * CPUs enter it. QEMU needs neither; a real CPU does.
 */
#include <kernel/arch.h>
#include <kernel/panic.h>
#include <kernel/platform.h>
#include <kernel/arch/aarch64/sysreg.h>
#include <mm/page_alloc.h>
#include <mm/pgtable.h>

static pte_t *root_lo, *root_hi;
/* Written once by arch_mmu_enable; secondary_entry (entry.S) loads them
 * before it touches its stack, which is mapped only through them. */
uint64_t vm_kernel_ttbr0, vm_kernel_ttbr1;

pte_t *arch_pt_root(uintptr_t va)
{
	return (va >> 63) ? root_hi : root_lo;
}

static bool is_ram(uintptr_t pa)
{
	return pa >= platform.mem_base &&
	       pa < platform.mem_base + platform.mem_size;
}

pte_t arch_pte_leaf(uintptr_t pa, unsigned int prot, int level)
{
	pte_t e = pa | PTE_AF | PTE_UXN | PTE_VALID | (level ? 0 : PTE_TABLE);

	e |= is_ram(pa) ? PTE_ATTR(ATTR_NORMAL) | PTE_SH_INNER
			: PTE_ATTR(ATTR_DEVICE) | PTE_PXN;
	if (!(prot & ARCH_PROT_W))
		e |= PTE_RDONLY;
	if (!(prot & ARCH_PROT_X))
		e |= PTE_PXN;
	return e;
}

void arch_mmu_init(void)
{
	root_lo = pt_alloc_table();
	root_hi = pt_alloc_table();
	if (!root_lo || !root_hi)
		panic("vm: no memory for the page table (page_alloc not up?)");
}

/*
 * Load the kernel's tables with translation off across the switch: the
 * boot CPU comes from boot_l1, whose 1 GiB blocks map the same addresses
 * as the kernel table's 2 MiB and 4 KiB entries, with other sizes - a
 * change that needs break-before-make, and the running code is under
 * both. Translation off is the break, TLBI VMALLE1 the flush (as
 * entry.S's MMU_ON does for the secondary CPUs). This code runs at its
 * physical address (the identity map) and touches no memory while
 * translation is off; interrupts are masked across it.
 */
static void mmu_switch(uint64_t ttbr0, uint64_t ttbr1)
{
	uint64_t sctlr = sysreg_read(sctlr_el1), daif;

	__asm__ __volatile__("mrs %[daif], daif\n\t"
			     "msr daifset, #0xf\n\t"
			     "dsb ish\n\t" /* tables written */
			     "msr sctlr_el1, %[off]\n\t"
			     "isb\n\t"
			     "msr ttbr0_el1, %[t0]\n\t"
			     "msr ttbr1_el1, %[t1]\n\t"
			     "msr tcr_el1, %[tcr]\n\t"
			     "isb\n\t"
			     "tlbi vmalle1\n\t"
			     "dsb nsh\n\t"
			     "isb\n\t"
			     "msr sctlr_el1, %[on]\n\t"
			     "isb\n\t"
			     "msr daif, %[daif]"
			     : [daif] "=&r"(daif)
			     : [off] "r"(sctlr & ~1UL), /* SCTLR_EL1.M */
			       [on] "r"(sctlr),
			       [t0] "r"(ttbr0),
			       [t1] "r"(ttbr1),
			       [tcr] "r"((uint64_t)TCR_KERNEL)
			     : "memory");
}

void arch_mmu_enable(void)
{
	if (!vm_kernel_ttbr0) {
		vm_kernel_ttbr1 = (uintptr_t)root_hi;
		vm_kernel_ttbr0 = (uintptr_t)root_lo;
		/* secondary CPUs read them with their MMU (and caches) off */
		__asm__ __volatile__(
		    "dc civac, %0\n\tdc civac, %1\n\tdsb sy" ::"r"(
			&vm_kernel_ttbr0),
		    "r"(&vm_kernel_ttbr1)
		    : "memory");
	}
	mmu_switch(vm_kernel_ttbr0, vm_kernel_ttbr1);
}

const char *arch_mmu_name(void)
{
	return "VMSAv8-64 4K/39-bit";
}

/* ESR_EL1 still names the access that faulted (the trap handler asks
 * first): an instruction abort needs X, a data abort with WnR set W, any
 * other R. */
unsigned int arch_fault_access(void)
{
	uint64_t esr = sysreg_read(esr_el1);

	if (ESR_EC(esr) == EC_IABT_SAME)
		return ARCH_PROT_X;
	return esr & ESR_WNR ? ARCH_PROT_W : ARCH_PROT_R;
}

/* Broadcast invalidation (the IS forms) reaches every CPU of the inner
 * shareable domain: no IPI, unlike riscv64's SBI remote fence. */
void arch_tlb_flush_all_harts(uintptr_t start, size_t size)
{
	__asm__ __volatile__("dsb ishst" ::: "memory");
	for (uintptr_t va = start; va < start + size; va += PAGE_SIZE)
		__asm__ __volatile__(
		    "tlbi vaae1is, %0" ::"r"((va >> 12) & ((1UL << 44) - 1))
		    : "memory");
	__asm__ __volatile__("dsb ish\n\tisb" ::: "memory");
}
