/*
 * kernel/arch/riscv64/include/arch/pte.h: the Sv39 page-table entry, for
 * mm/pgtable.c's walker (arch_pte_leaf and arch_pt_root are in mmu.c).
 * Included only by kernel/arch.h.
 *
 * An entry is a leaf when any of R, W, X is set, at any level; a valid
 * entry with none of them points at the next table.
 */
#pragma once

#include <stdint.h>

typedef uint64_t pte_t;

#define PT_LEVELS 3

#define PTE_V	      (1UL << 0)
#define PTE_R	      (1UL << 1)
#define PTE_W	      (1UL << 2)
#define PTE_X	      (1UL << 3)
#define PTE_G	      (1UL << 5)
#define PTE_A	      (1UL << 6)
#define PTE_D	      (1UL << 7)
#define PTE_PPN_SHIFT 10
#define PTE_LEAF_BITS (PTE_R | PTE_W | PTE_X)

static inline bool pte_valid(pte_t e)
{
	return e & PTE_V;
}

static inline bool pte_is_leaf(pte_t e, int level)
{
	(void)level;
	return (e & PTE_V) && (e & PTE_LEAF_BITS);
}

static inline uintptr_t pte_pa(pte_t e)
{
	return (e >> PTE_PPN_SHIFT) << 12;
}

/* An entry pointing at the table at @pa. */
static inline pte_t pte_table(uintptr_t pa)
{
	return ((pa >> 12) << PTE_PPN_SHIFT) | PTE_V;
}

/* A leaf's ARCH_PROT_* rights. */
static inline unsigned int pte_prot(pte_t e)
{
	return (e & PTE_R ? ARCH_PROT_R : 0) | (e & PTE_W ? ARCH_PROT_W : 0) |
	       (e & PTE_X ? ARCH_PROT_X : 0);
}

static inline pte_t pte_wrprotect(pte_t e)
{
	return e & ~PTE_W;
}

/*
 * Sv39 needs no break-before-make: a valid leaf may be rewritten in place
 * with another (any address, any rights); until its sfence.vma (the
 * caller's flush, remote harts through SBI) a hart uses either the old
 * entry or the new one, never a mix, and never faults on the change.
 */
static inline bool pte_needs_break(pte_t old, pte_t new)
{
	(void)old;
	(void)new;
	return false;
}

/* Not used on Sv39 (pte_needs_break is false); the walker's contract. */
static inline pte_t pte_invalid(pte_t e)
{
	return e & ~PTE_V;
}
