/*
 * mm/pgtable.c: the one page-table walker, for every architecture (the
 * contract and the locking are in mm/pgtable.h; the entry format is the
 * architecture's <arch/pte.h>).
 *
 * Replacing a valid entry: pt_set alone puts a valid page where another
 * was (a private copy over the file's page), and on aarch64 it breaks
 * before it makes (pt_break); pt_clear's write-protect changes rights
 * only, which neither arch needs a break for; pt_map and pt_install fill
 * only invalid entries. swap_leaf refuses the change that needed a break.
 */
#include <errno.h>
#include <mm/pgtable.h>

#define PT_ENTRIES     512
#define LEVEL_SHIFT(l) (PT_PAGE_SHIFT + 9 * (l))
#define LEVEL_SIZE(l)  (1UL << LEVEL_SHIFT(l))
#define BLOCK_LEVEL    1 /* 2 MiB */

static inline unsigned int pte_index(uintptr_t va, int level)
{
	return (va >> LEVEL_SHIFT(level)) & (PT_ENTRIES - 1);
}

/*
 * Descend from @va's root towards the entry that maps @va at @level,
 * stopping early at an invalid entry (unless @alloc: then a zeroed table
 * is put there) or at a leaf that maps a larger page.
 * Return: the entry reached and its level in *@at, or NULL if there is no
 * root yet or a table could not be allocated.
 */
static pte_t *pte_walk(uintptr_t va, int level, bool alloc, int *at)
{
	pte_t *table = arch_pt_root(va);

	for (int l = PT_LEVELS - 1; table && l > level; l--) {
		pte_t *pte = &table[pte_index(va, l)];
		pte_t e = READ_ONCE(*pte);

		if (!pte_valid(e) && alloc) {
			void *next = pt_alloc_table();
			if (!next)
				return NULL;
			smp_wmb(); /* the zeroed table before the entry */
			e = pte_table((uintptr_t)next);
			WRITE_ONCE(*pte, e);
		}
		if (!pte_valid(e) || pte_is_leaf(e, l)) {
			*at = l;
			return pte;
		}
		table = (pte_t *)pte_pa(e);
	}
	*at = level;
	return table ? &table[pte_index(va, level)] : NULL;
}

/* The entry that decides how @va is mapped (a leaf or an invalid entry),
 * and its level in *@at. */
static pte_t lookup(uintptr_t va, int *at)
{
	pte_t *pte = pte_walk(va, 0, false, at);

	return pte ? READ_ONCE(*pte) : 0;
}

/* Map one page of size LEVEL_SIZE(@level). Mapping the same page again
 * with the same permissions is allowed (devices may share a page); any
 * other valid entry is left alone (-EEXIST), so the identity map never
 * replaces a valid entry and needs no break-before-make. */
static int map_page(uintptr_t va, uintptr_t pa, int level, unsigned int prot)
{
	pte_t new = arch_pte_leaf(pa, prot, level), old;
	int at;
	pte_t *pte = pte_walk(va, level, true, &at);

	if (!pte)
		return -ENOMEM;
	old = READ_ONCE(*pte);
	if (at != level || (pte_valid(old) && old != new))
		return -EEXIST; /* mm/vm.c says so */
	WRITE_ONCE(*pte, new);
	return 0;
}

/* Can [va, end) start with a block? Not where a page table exists. */
static bool block_fits(uintptr_t va, uintptr_t pa, uintptr_t end)
{
	int at;
	pte_t *pte;

	if (!IS_ALIGNED(va | pa, LEVEL_SIZE(BLOCK_LEVEL)) ||
	    end - va < LEVEL_SIZE(BLOCK_LEVEL))
		return false;
	pte = pte_walk(va, BLOCK_LEVEL, false, &at);
	return pte && !(at == BLOCK_LEVEL && pte_valid(*pte) &&
			!pte_is_leaf(*pte, at));
}

int pt_map(uintptr_t va, uintptr_t pa, size_t size, unsigned int prot)
{
	uintptr_t end = ALIGN_UP(va + size, PT_PAGE_SIZE);
	int err = 0;

	pa = ALIGN_DOWN(pa, PT_PAGE_SIZE);
	va = ALIGN_DOWN(va, PT_PAGE_SIZE);
	while (va < end && !err) {
		int level = block_fits(va, pa, end) ? BLOCK_LEVEL : 0;

		err = map_page(va, pa, level, prot);
		va += LEVEL_SIZE(level);
		pa += LEVEL_SIZE(level);
	}
	return err;
}

uintptr_t pt_lookup(uintptr_t va, unsigned int *prot)
{
	int at = 0;
	pte_t pte = lookup(va, &at);

	if (!pte_is_leaf(pte, at))
		return 0;
	if (prot)
		*prot = pte_prot(pte);
	/* the 4 KiB page of @va inside a larger leaf */
	return pte_pa(pte) + (va & (LEVEL_SIZE(at) - 1) & ~(PT_PAGE_SIZE - 1));
}

/* Swap the 4 KiB entry @pte from @old to @new: one compare-and-swap,
 * since pt_install fills empty entries with no lock. Release: the page's
 * contents before the entry that maps it. A valid entry is never swapped
 * for one that needs a break first (pt_set breaks; mutant 174 is the
 * walker without it). Return: 0, -EAGAIN if it no longer held @old, or
 * -EINVAL for a change that needed a break (a bug: mm/vm.c warns). */
static int swap_leaf(pte_t *pte, pte_t old, pte_t new)
{
	if (pte_needs_break(old, new))
		return -EINVAL;
	return __atomic_compare_exchange_n(
		   pte, &old, new, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED)
		   ? 0
		   : -EAGAIN;
}

/*
 * Break-before-make, where the architecture needs it (pte_needs_break:
 * aarch64, for a new output address or memory type): the valid entry
 * @old of @va becomes invalid, then DSB, a broadcast TLB invalidation of
 * @va and DSB (arch_tlb_flush_all_harts), before the caller writes the
 * new entry. The invalid entry is not 0, so the lock-less fault path
 * (pt_install) cannot fill the gap: a CPU that touches @va meanwhile
 * faults, finds no page (the fault path's look-up, pt_lookup) and waits
 * for stack_lock in vm_mmap_set, which the breaker holds; then it finds
 * the new entry. riscv64 never breaks: Sv39 lets a hart use the old or
 * the new entry until its sfence.vma, which the caller does.
 * Return: the invalid entry written.
 */
static pte_t pt_break(pte_t *pte, pte_t old, uintptr_t va)
{
	pte_t gap = pte_invalid(old);

	/* Under stack_lock, and pt_install changes only entries that are 0:
	 * nobody else writes this one. */
	WRITE_ONCE(*pte, gap);
	pt_flush_broken(va);
	return gap;
}

int pt_set(uintptr_t va, uintptr_t old_pa, uintptr_t pa, unsigned int prot)
{
	int at;
	pte_t *pte = pte_walk(va, 0, true, &at);
	pte_t old, new = arch_pte_leaf(pa, prot, 0);

	if (!pte || at != 0)
		return -ENOMEM;
	old = READ_ONCE(*pte);
	if ((pte_is_leaf(old, 0) ? pte_pa(old) : 0) != old_pa)
		return -EAGAIN;
	/* Only rights changed (the same page): no break on either arch. */
	if (pte_needs_break(old, new))
		old = pt_break(pte, old, va);
	return swap_leaf(pte, old, new);
}

int pt_install(uintptr_t va, uintptr_t pa, unsigned int prot)
{
	int at;
	pte_t *pte = pte_walk(va, 0, false, &at);

	if (!pte || at != 0)
		return -ENOMEM;
	return swap_leaf(pte, 0, arch_pte_leaf(pa, prot, 0));
}

uintptr_t pt_clear(uintptr_t va, uintptr_t pa, bool wrprotect)
{
	int at;
	pte_t *pte = pte_walk(va, 0, false, &at);
	pte_t old;

	if (!pte || at != 0)
		return 0;
	old = READ_ONCE(*pte);
	if (!pte_is_leaf(old, 0) || (pa && pte_pa(old) != pa))
		return 0;
	/* pt_install fills only empty entries: this one is not. Valid to
	 * invalid, or valid to valid with fewer rights: no break-before-make
	 * on aarch64 either (permissions only); the caller flushes. */
	WRITE_ONCE(*pte, wrprotect ? pte_wrprotect(old) : 0);
	return pte_pa(old);
}

bool pt_fault_is_spurious(uintptr_t addr, unsigned int need)
{
	int at;
	pte_t pte = lookup(addr, &at);

	if (!pte_is_leaf(pte, at) || (pte_prot(pte) & need) != need)
		return false;
	arch_tlb_flush_page(addr);
	return true;
}
