/*
 * kernel/arch/riscv64/mmu.c: the Sv39 page table behind the arch_pt_*()
 * and arch_mmu_*() hooks of <kernel/arch.h>; mm/vm.c decides what is
 * mapped where.
 *
 * One table shared by every hart (one address space). Every leaf has A and
 * D set (no Svadu: QEMU would fault to set them) and G. Pages of 4 KiB and
 * 2 MiB megapages (level 1) wherever a whole aligned 2 MiB has one
 * permission. Tables are allocated zeroed, published with a write barrier
 * before the entry that points at them, and never freed.
 *
 * Locking: the caller serialises changes (mm/vm.c's stack_lock, irqsave);
 * lookups run without it: entries are written whole with WRITE_ONCE.
 */
#include <errno.h>
#include <kernel/arch.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/arch/riscv64/csr.h>
#include <kernel/arch/riscv64/sbi.h>
#include <mm/page_alloc.h>

typedef uint64_t pte_t;

#define PTE_V	      (1UL << 0)
#define PTE_R	      (1UL << 1)
#define PTE_W	      (1UL << 2)
#define PTE_X	      (1UL << 3)
#define PTE_G	      (1UL << 5)
#define PTE_A	      (1UL << 6)
#define PTE_D	      (1UL << 7)
#define PTE_PPN_SHIFT 10
#define PTE_LEAF_BITS (PTE_R | PTE_W | PTE_X)

#define PT_LEVELS      3
#define PT_ENTRIES     512
#define LEVEL_SHIFT(l) (PAGE_SHIFT + 9 * (l))
#define LEVEL_SIZE(l)  (1UL << LEVEL_SHIFT(l))
#define MEGAPAGE_LEVEL 1

static pte_t *root;
static unsigned long nr_table_pages; /* only grows; under the caller's lock */
/* Written once by arch_mmu_init; secondary_entry (entry.S) loads it before
 * it touches its stack, which is mapped only through this table. */
unsigned long vm_kernel_satp;

static inline unsigned int pte_index(uintptr_t va, int level)
{
	return (va >> LEVEL_SHIFT(level)) & (PT_ENTRIES - 1);
}

static inline uintptr_t pte_pa(pte_t pte)
{
	return (pte >> PTE_PPN_SHIFT) << PAGE_SHIFT;
}

static inline unsigned long pte_bits(unsigned int prot)
{
	return (prot & ARCH_PROT_R ? PTE_R : 0) |
	       (prot & ARCH_PROT_W ? PTE_W : 0) |
	       (prot & ARCH_PROT_X ? PTE_X : 0);
}

static inline pte_t leaf(uintptr_t pa, unsigned int prot)
{
	return ((pa >> PAGE_SHIFT) << PTE_PPN_SHIFT) | pte_bits(prot) | PTE_A |
	       PTE_D | PTE_G | PTE_V;
}

static inline bool pte_is_leaf(pte_t pte)
{
	return (pte & PTE_V) && (pte & PTE_LEAF_BITS);
}

/*
 * The one page-table walker. Descend from the root towards the entry that
 * maps @va at @level, stopping early at an invalid entry (unless @alloc:
 * then a zeroed table is put there) or at a leaf that maps a larger page.
 * Return: the entry reached and its level in *@at, or NULL if a table
 * could not be allocated.
 */
static pte_t *pte_walk(uintptr_t va, int level, bool alloc, int *at)
{
	pte_t *table = root;

	for (int l = PT_LEVELS - 1; l > level; l--) {
		pte_t *pte = &table[pte_index(va, l)];
		pte_t e = READ_ONCE(*pte);

		if (!(e & PTE_V) && alloc) {
			void *next = alloc_pages_va(GFP_ZERO, 0);
			if (!next)
				return NULL;
			nr_table_pages++;
			smp_wmb(); /* zeroed table before the entry */
			e = ((uintptr_t)next >> PAGE_SHIFT) << PTE_PPN_SHIFT |
			    PTE_V;
			WRITE_ONCE(*pte, e);
		}
		if (!(e & PTE_V) || pte_is_leaf(e)) {
			*at = l;
			return pte;
		}
		table = (pte_t *)pte_pa(e);
	}
	*at = level;
	return &table[pte_index(va, level)];
}

/* The entry that decides how @va is mapped (a leaf or an invalid entry),
 * and its level in *@at. */
static pte_t lookup(uintptr_t va, int *at)
{
	pte_t *pte = root ? pte_walk(va, 0, false, at) : NULL;

	return pte ? READ_ONCE(*pte) : 0;
}

/* Map one page of size LEVEL_SIZE(@level). Mapping the same page again
 * with the same permissions is allowed (devices may share a page). */
static int map_page(uintptr_t va, uintptr_t pa, int level, unsigned int prot)
{
	pte_t new = leaf(pa, prot), old;
	int at;
	pte_t *pte = pte_walk(va, level, true, &at);

	if (!pte)
		return -ENOMEM;
	old = READ_ONCE(*pte);
	if (at != level || ((old & PTE_V) && old != new)) {
		pr_err("vm: %#lx already mapped by %#llx at level %d\n",
		       (unsigned long)va,
		       (unsigned long long)old,
		       at);
		return -EEXIST;
	}
	WRITE_ONCE(*pte, new);
	return 0;
}

/* Can [va, end) start with a megapage? Not where a page table exists. */
static bool megapage_fits(uintptr_t va, uintptr_t pa, uintptr_t end)
{
	int at;
	pte_t *pte;

	if (!IS_ALIGNED(va | pa, LEVEL_SIZE(MEGAPAGE_LEVEL)) ||
	    end - va < LEVEL_SIZE(MEGAPAGE_LEVEL))
		return false;
	pte = pte_walk(va, MEGAPAGE_LEVEL, false, &at);
	return pte &&
	       !(at == MEGAPAGE_LEVEL && (*pte & PTE_V) && !pte_is_leaf(*pte));
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

	if (!pte_is_leaf(pte))
		return 0;
	if (prot)
		*prot = (pte & PTE_R ? ARCH_PROT_R : 0) |
			(pte & PTE_W ? ARCH_PROT_W : 0) |
			(pte & PTE_X ? ARCH_PROT_X : 0);
	/* the 4 KiB page of @va inside a larger leaf */
	return pte_pa(pte) + (va & (LEVEL_SIZE(at) - 1) & PAGE_MASK);
}

/* Swap the 4 KiB entry @pte from @old to a leaf for @pa: one
 * compare-and-swap, since arch_pt_install fills empty entries with no
 * lock. Return: 0, or -EAGAIN if it no longer held @old. */
static int swap_leaf(pte_t *pte, pte_t old, uintptr_t pa, unsigned int prot)
{
	return __atomic_compare_exchange_n(pte,
					   &old,
					   leaf(pa, prot),
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
	if ((pte_is_leaf(old) ? pte_pa(old) : 0) != old_pa)
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
	pte_t *pte = root ? pte_walk(va, 0, false, &at) : NULL;
	uintptr_t old_pa;

	if (!pte || at != 0 || !pte_is_leaf(*pte) || (pa && pte_pa(*pte) != pa))
		return 0;
	/* arch_pt_install fills only empty entries: this one is not. */
	old_pa = pte_pa(*pte);
	WRITE_ONCE(*pte, wrprotect ? *pte & ~PTE_W : 0);
	return old_pa;
}

unsigned long arch_pt_pages(void)
{
	return READ_ONCE(nr_table_pages);
}

void arch_mmu_init(void)
{
	root = alloc_pages_va(GFP_ZERO, 0);
	nr_table_pages = 1;
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

/*
 * Runs first thing in the trap handler, so scause still names the access
 * that faulted: the fault was spurious only if the entry now allows that
 * very access (a write to text is not spurious).
 */
bool arch_fault_is_spurious(uintptr_t addr)
{
	unsigned long cause = csr_read(scause);
	unsigned long need = cause == EXC_STORE_PAGE_FAULT  ? PTE_W
			     : cause == EXC_INST_PAGE_FAULT ? PTE_X
							    : PTE_R;
	int at;
	pte_t pte = lookup(addr, &at);

	if (!pte_is_leaf(pte) || !(pte & need))
		return false;
	arch_tlb_flush_page(addr);
	return true;
}

void arch_tlb_flush_all_harts(uintptr_t start, size_t size)
{
	for (uintptr_t va = start; va < start + size; va += PAGE_SIZE)
		arch_tlb_flush_page(va);
	WARN_ON_ONCE(sbi_remote_sfence_vma_all(start, size) != 0);
}
