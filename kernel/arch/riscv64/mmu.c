/*
 * kernel/arch/riscv64/mmu.c: Sv39 behind the MMU hooks of <kernel/arch.h>;
 * mm/pgtable.c walks the table (entry format: <arch/pte.h>) and mm/vm.c
 * decides what is mapped where.
 *
 * One root for the whole address space, shared by every hart. Every leaf
 * has A and D set (no Svadu: QEMU would fault to set them) and G.
 */
#include <kernel/arch.h>
#include <kernel/panic.h>
#include <kernel/arch/riscv64/csr.h>
#include <kernel/arch/riscv64/sbi.h>
#include <mm/page_alloc.h>
#include <mm/pgtable.h>

static pte_t *root;
/* Written once by arch_mmu_enable; secondary_entry (entry.S) loads it
 * before it touches its stack, which is mapped only through this table. */
unsigned long vm_kernel_satp;

pte_t *arch_pt_root(uintptr_t va)
{
	(void)va;
	return root;
}

static inline unsigned long pte_bits(unsigned int prot)
{
	return (prot & ARCH_PROT_R ? PTE_R : 0) |
	       (prot & ARCH_PROT_W ? PTE_W : 0) |
	       (prot & ARCH_PROT_X ? PTE_X : 0);
}

pte_t arch_pte_leaf(uintptr_t pa, unsigned int prot, int level)
{
	(void)level; /* the same leaf at every level */
	return ((pa >> PAGE_SHIFT) << PTE_PPN_SHIFT) | pte_bits(prot) | PTE_A |
	       PTE_D | PTE_G | PTE_V;
}

void arch_mmu_init(void)
{
	root = pt_alloc_table();
	if (!root)
		panic("vm: no memory for the page table (page_alloc not up?)");
}

void arch_mmu_enable(void)
{
	if (!vm_kernel_satp) {
		vm_kernel_satp =
		    SATP_MODE_SV39 | ((uintptr_t)root >> PAGE_SHIFT);
		smp_mb();
	}
	csr_write(satp, vm_kernel_satp);
	arch_tlb_flush_all();
}

const char *arch_mmu_name(void)
{
	return "Sv39";
}

/* scause still names the access that faulted (the trap handler asks
 * first); a write needs W, a fetch X, a load R. */
unsigned int arch_fault_access(void)
{
	unsigned long cause = csr_read(scause);

	return cause == EXC_STORE_PAGE_FAULT  ? ARCH_PROT_W
	       : cause == EXC_INST_PAGE_FAULT ? ARCH_PROT_X
					      : ARCH_PROT_R;
}

void arch_tlb_flush_all_harts(uintptr_t start, size_t size)
{
	for (uintptr_t va = start; va < start + size; va += PAGE_SIZE)
		arch_tlb_flush_page(va);
	WARN_ON_ONCE(sbi_remote_sfence_vma_all(start, size) != 0);
}
