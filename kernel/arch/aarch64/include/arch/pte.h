/*
 * kernel/arch/aarch64/include/arch/pte.h: the VMSAv8-64 descriptor (4 KiB
 * granule), for mm/pgtable.c's walker (arch_pte_leaf, which picks the
 * memory type, and arch_pt_root are in mmu.c). Included only by
 * kernel/arch.h.
 *
 * At levels 2 and 1 bit 1 tells a table (set) from a block (clear); at
 * level 0 it must be set for a page. Rights: AP[2] makes a page read-only,
 * PXN not executable; every valid leaf is readable.
 */
#pragma once

#include <stdint.h>

typedef uint64_t pte_t;

#define PT_LEVELS 3

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

static inline bool pte_valid(pte_t e)
{
	return e & PTE_VALID;
}

/* A valid entry that maps memory (a block or a page), at @level. */
static inline bool pte_is_leaf(pte_t e, int level)
{
	return (e & PTE_VALID) && (level == 0 || !(e & PTE_TABLE));
}

static inline uintptr_t pte_pa(pte_t e)
{
	return e & PTE_ADDR_MASK;
}

/* An entry pointing at the table at @pa. */
static inline pte_t pte_table(uintptr_t pa)
{
	return pa | PTE_TABLE | PTE_VALID;
}

/* A leaf's ARCH_PROT_* rights. */
static inline unsigned int pte_prot(pte_t e)
{
	return ARCH_PROT_R | (e & PTE_RDONLY ? 0 : ARCH_PROT_W) |
	       (e & PTE_PXN ? 0 : ARCH_PROT_X);
}

static inline pte_t pte_wrprotect(pte_t e)
{
	return e | PTE_RDONLY;
}

/*
 * Break-before-make (Arm ARM, "TLB maintenance requirements on changing
 * translation table entries"): a valid leaf replaced by another valid one
 * that differs in anything but its access permissions (AP[2], PXN, UXN)
 * - the output address, the memory type or shareability - must first be
 * made invalid and dropped from every CPU's TLB (DSB, TLBI ... IS, DSB),
 * or a CPU may hold both translations at once: a TLB conflict abort, or
 * a mix of the two. mm/pgtable.c breaks when this says so.
 */
#define PTE_PERM_BITS (PTE_RDONLY | PTE_PXN | PTE_UXN)

static inline bool pte_needs_break(pte_t old, pte_t new)
{
	return pte_valid(old) && pte_valid(new) &&
	       ((old ^ new) & ~PTE_PERM_BITS);
}

/* @e made invalid for the walker but not 0: mm/pgtable.c's break, which
 * pt_install (it fills only entries that are 0) must not fill. */
static inline pte_t pte_invalid(pte_t e)
{
	return e & ~PTE_VALID;
}
