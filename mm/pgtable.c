/*
 * mm/pgtable.c: the one page-table walker, for every architecture (the
 * contract and the locking are in mm/pgtable.h; the entry format is the
 * architecture's <arch/pte.h>).
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
 * with the same permissions is allowed (devices may share a page). */
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

/* Swap the 4 KiB entry @pte from @old to a leaf for @pa: one
 * compare-and-swap, since pt_install fills empty entries with no lock.
 * Release: the page's contents before the entry that maps it.
 * Return: 0, or -EAGAIN if it no longer held @old. */
static int swap_leaf(pte_t *pte, pte_t old, uintptr_t pa, unsigned int prot)
{
	return __atomic_compare_exchange_n(pte,
					   &old,
					   arch_pte_leaf(pa, prot, 0),
					   false,
					   __ATOMIC_RELEASE,
					   __ATOMIC_RELAXED)
		   ? 0
		   : -EAGAIN;
}

int pt_set(uintptr_t va, uintptr_t old_pa, uintptr_t pa, unsigned int prot)
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

int pt_install(uintptr_t va, uintptr_t pa, unsigned int prot)
{
	int at;
	pte_t *pte = pte_walk(va, 0, false, &at);

	if (!pte || at != 0)
		return -ENOMEM;
	return swap_leaf(pte, 0, pa, prot);
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
	/* pt_install fills only empty entries: this one is not. */
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
