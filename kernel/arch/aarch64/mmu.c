/*
 * kernel/arch/aarch64/mmu.c: the VMSAv8-64 page tables behind the
 * arch_pt_*() and arch_mmu_*() hooks of <kernel/arch.h>; mm/vm.c decides
 * what is mapped where (the contract of kernel/arch/riscv64/mmu.c).
 *
 * 4 KiB granule, 39-bit addresses in each half: three levels of 512
 * entries, as Sv39 (level 2: 1 GiB, level 1: 2 MiB blocks, level 0: 4 KiB
 * pages). Two roots: TTBR0 for the low half (RAM and devices, identity),
 * TTBR1 for the high half (mm/vm.c's stack and mmap areas at
 * 0xFFFFFFC000000000). Every entry has AF set (no hardware access flag
 * updates) and is global; memory type by address: the device tree's RAM
 * is Normal write-back inner shareable, anything else Device-nGnRE. No
 * entry is executable at EL0. Pages of 4 KiB and 2 MiB blocks wherever a
 * whole aligned 2 MiB has one permission. Tables are allocated zeroed,
 * published with a write barrier before the entry that points at them,
 * and never freed.
 *
 * Locking: the caller serialises changes (mm/vm.c's stack_lock, irqsave);
 * lookups run without it: entries are written whole with WRITE_ONCE.
 * arch_pt_set replaces a valid page by another without break-before-make:
 * QEMU's TLB does not need it; a real CPU would want it (a TODO, noted in
 * docs/bringup.md).
 */
#include <errno.h>
#include <kernel/arch.h>
#include <kernel/panic.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/arch/aarch64/sysreg.h>
#include <mm/page_alloc.h>

typedef uint64_t pte_t;

#define PTE_VALID     (1UL << 0)
#define PTE_TABLE     (1UL << 1) /* levels 2, 1: table; level 0: page */
#define PTE_ATTR(i)   ((uint64_t)(i) << 2)
#define PTE_ATTR_MASK (7UL << 2)
#define PTE_RDONLY    (1UL << 7) /* AP[2] */
#define PTE_SH_INNER  (3UL << 8)
#define PTE_AF	      (1UL << 10)
#define PTE_PXN	      (1UL << 53)
#define PTE_UXN	      (1UL << 54)
#define PTE_ADDR_MASK 0x0000fffffffff000UL

#define PT_LEVELS      3
#define PT_ENTRIES     512
#define LEVEL_SHIFT(l) (PAGE_SHIFT + 9 * (l))
#define LEVEL_SIZE(l)  (1UL << LEVEL_SHIFT(l))
#define MEGAPAGE_LEVEL 1

static pte_t *root_lo, *root_hi;
static unsigned long nr_table_pages; /* only grows; under the caller's lock */
/* Written once by arch_mmu_enable; secondary_entry (entry.S) loads them
 * before it touches its stack, which is mapped only through them. */
uint64_t vm_kernel_ttbr0, vm_kernel_ttbr1;

static inline unsigned int pte_index(uintptr_t va, int level)
{
	return (va >> LEVEL_SHIFT(level)) & (PT_ENTRIES - 1);
}

static inline uintptr_t pte_pa(pte_t pte)
{
	return pte & PTE_ADDR_MASK;
}

/* A valid entry that maps memory (a block or a page), at @level. */
static inline bool pte_is_leaf(pte_t pte, int level)
{
	return (pte & PTE_VALID) && (level == 0 || !(pte & PTE_TABLE));
}

static bool is_ram(uintptr_t pa)
{
	return pa >= platform.mem_base &&
	       pa < platform.mem_base + platform.mem_size;
}

static inline pte_t leaf(uintptr_t pa, unsigned int prot, int level)
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

/*
 * The one page-table walker (as riscv64's): descend from @va's root
 * towards the entry that maps @va at @level, stopping early at an invalid
 * entry (unless @alloc: then a zeroed table is put there) or at a block.
 * Return: the entry reached and its level in *@at, or NULL.
 */
static pte_t *pte_walk(uintptr_t va, int level, bool alloc, int *at)
{
	pte_t *table = (va >> 63) ? root_hi : root_lo;

	for (int l = PT_LEVELS - 1; l > level; l--) {
		pte_t *pte = &table[pte_index(va, l)];
		pte_t e = READ_ONCE(*pte);

		if (!(e & PTE_VALID) && alloc) {
			void *next = alloc_pages_va(GFP_ZERO, 0);
			if (!next)
				return NULL;
			nr_table_pages++;
			smp_wmb(); /* zeroed table before the entry */
			e = (uintptr_t)next | PTE_TABLE | PTE_VALID;
			WRITE_ONCE(*pte, e);
		}
		if (pte_is_leaf(e, l) || !(e & PTE_VALID)) {
			*at = l;
			return pte;
		}
		table = (pte_t *)pte_pa(e);
	}
	*at = level;
	return &table[pte_index(va, level)];
}

static pte_t lookup(uintptr_t va, int *at)
{
	pte_t *pte = root_lo ? pte_walk(va, 0, false, at) : NULL;

	return pte ? READ_ONCE(*pte) : 0;
}

static int map_page(uintptr_t va, uintptr_t pa, int level, unsigned int prot)
{
	pte_t new = leaf(pa, prot, level), old;
	int at;
	pte_t *pte = pte_walk(va, level, true, &at);

	if (!pte)
		return -ENOMEM;
	old = READ_ONCE(*pte);
	if (at != level || ((old & PTE_VALID) && old != new)) {
		pr_err("vm: %#lx already mapped by %#llx at level %d\n",
		       (unsigned long)va,
		       (unsigned long long)old,
		       at);
		return -EEXIST;
	}
	WRITE_ONCE(*pte, new);
	return 0;
}

static bool megapage_fits(uintptr_t va, uintptr_t pa, uintptr_t end)
{
	int at;
	pte_t *pte;

	if (!IS_ALIGNED(va | pa, LEVEL_SIZE(MEGAPAGE_LEVEL)) ||
	    end - va < LEVEL_SIZE(MEGAPAGE_LEVEL))
		return false;
	pte = pte_walk(va, MEGAPAGE_LEVEL, false, &at);
	return pte && !(at == MEGAPAGE_LEVEL && (*pte & PTE_VALID) &&
			!pte_is_leaf(*pte, at));
}

int arch_pt_map(uintptr_t va, uintptr_t pa, size_t size, unsigned int prot)
{
	uintptr_t end = ALIGN_UP(va + size, PAGE_SIZE);
	int err = 0;

	pa = ALIGN_DOWN(pa, PAGE_SIZE);
	va = ALIGN_DOWN(va, PAGE_SIZE);
	while (va < end && !err) {
		int level = megapage_fits(va, pa, end) ? MEGAPAGE_LEVEL : 0;

		err = map_page(va, pa, level, prot);
		va += LEVEL_SIZE(level);
		pa += LEVEL_SIZE(level);
	}
	return err;
}

uintptr_t arch_pt_lookup(uintptr_t va, unsigned int *prot)
{
	int at = 0;
	pte_t pte = lookup(va, &at);

	if (!pte_is_leaf(pte, at))
		return 0;
	if (prot)
		*prot = ARCH_PROT_R | (pte & PTE_RDONLY ? 0 : ARCH_PROT_W) |
			(pte & PTE_PXN ? 0 : ARCH_PROT_X);
	return pte_pa(pte) + (va & (LEVEL_SIZE(at) - 1) & PAGE_MASK);
}

/* Swap the 4 KiB entry @pte from @old to a page for @pa: one
 * compare-and-swap, since arch_pt_install fills empty entries with no
 * lock. Release: the page's contents before the entry that maps it. */
static int swap_leaf(pte_t *pte, pte_t old, uintptr_t pa, unsigned int prot)
{
	return __atomic_compare_exchange_n(pte,
					   &old,
					   leaf(pa, prot, 0),
					   false,
					   __ATOMIC_RELEASE,
					   __ATOMIC_RELAXED)
		   ? 0
		   : -EAGAIN;
}

int arch_pt_set(uintptr_t va, uintptr_t old_pa, uintptr_t pa, unsigned int prot)
{
	int at;
	pte_t *pte = pte_walk(va, 0, true, &at);
	pte_t old;

	if (!pte || at != 0)
		return -ENOMEM;
	old = READ_ONCE(*pte);
	if ((pte_is_leaf(old, 0) ? pte_pa(old) : 0) != old_pa)
		return -EAGAIN;
	return swap_leaf(pte, old, pa, prot);
}

int arch_pt_install(uintptr_t va, uintptr_t pa, unsigned int prot)
{
	int at;
	pte_t *pte = pte_walk(va, 0, false, &at);

	if (!pte || at != 0)
		return -ENOMEM;
	return swap_leaf(pte, 0, pa, prot);
}

uintptr_t arch_pt_clear(uintptr_t va, uintptr_t pa, bool wrprotect)
{
	int at;
	pte_t *pte = root_lo ? pte_walk(va, 0, false, &at) : NULL;
	uintptr_t old_pa;

	if (!pte || at != 0 || !pte_is_leaf(*pte, 0) ||
	    (pa && pte_pa(*pte) != pa))
		return 0;
	old_pa = pte_pa(*pte);
	WRITE_ONCE(*pte, wrprotect ? *pte | PTE_RDONLY : 0);
	return old_pa;
}

unsigned long arch_pt_pages(void)
{
	return READ_ONCE(nr_table_pages);
}

void arch_mmu_init(void)
{
	root_lo = alloc_pages_va(GFP_ZERO, 0);
	root_hi = alloc_pages_va(GFP_ZERO, 0);
	nr_table_pages = 2;
	if (!root_lo || !root_hi)
		panic("vm: no memory for the page table (page_alloc not up?)");
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
	__asm__ __volatile__("dsb ishst" ::: "memory"); /* tables written */
	sysreg_write(ttbr0_el1, vm_kernel_ttbr0);
	sysreg_write(ttbr1_el1, vm_kernel_ttbr1);
	sysreg_write(tcr_el1, TCR_KERNEL);
	isb();
	arch_tlb_flush_all();
}

const char *arch_mmu_name(void)
{
	return "VMSAv8-64 4K/39-bit";
}

/*
 * Runs first thing in the trap handler, so ESR_EL1 still names the access
 * that faulted: the fault was spurious only if the entry now allows that
 * very access (a write to text is not spurious).
 */
bool arch_fault_is_spurious(uintptr_t addr)
{
	uint64_t esr = sysreg_read(esr_el1);
	bool exec = ESR_EC(esr) == EC_IABT_SAME;
	bool write = !exec && (esr & ESR_WNR);
	int at;
	pte_t pte = lookup(addr, &at);

	if (!pte_is_leaf(pte, at) || (write && (pte & PTE_RDONLY)) ||
	    (exec && (pte & PTE_PXN)))
		return false;
	arch_tlb_flush_page(addr);
	return true;
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
