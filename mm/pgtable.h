/*
 * mm/pgtable.h: the page table, walked here for every architecture; the
 * entry format is the architecture's (<arch/pte.h> through kernel/arch.h:
 * pte_t, PT_LEVELS, pte_valid/is_leaf/pa/table/prot/wrprotect; and
 * arch_pte_leaf, arch_pt_root).
 *
 * One table for every hart (one address space), PT_LEVELS levels of 512
 * entries; level 0 maps 4 KiB pages, level 1 2 MiB blocks (used wherever
 * a whole aligned 2 MiB has one permission). Tables are allocated zeroed,
 * published with a write barrier before the entry that points at them,
 * and never freed.
 *
 * Locking: mm/vm.c serialises every change (pt_map/set/clear) under its
 * stack_lock, but for pt_install, which only fills an empty entry with
 * one compare-and-swap (pt_set swaps too, so neither overwrites the
 * other unseen); pt_lookup and the fault path read without it: entries
 * are written whole with WRITE_ONCE. Addresses are page-aligned; a
 * physical address of 0 means "nothing mapped". No function here flushes
 * a TLB: the caller does (arch_tlb_flush_*), but for pt_set's
 * break-before-make on aarch64 (pte_needs_break: the old entry is made
 * invalid and flushed from every CPU before the new one is written;
 * riscv64 swaps in place).
 */
#pragma once

#include <kernel/arch.h>

/* The granule: the size of a level-0 page (PAGE_SIZE, mm/vm.c checks). */
#define PT_PAGE_SHIFT 12
#define PT_PAGE_SIZE  (1UL << PT_PAGE_SHIFT)

/* A zeroed page for a table (the roots too), from mm/vm.c, which counts
 * them. Return: its address, or NULL. Context: the caller's lock, or boot. */
void *pt_alloc_table(void);
/* Break-before-make's middle step (pt_set), from mm/vm.c: @va's entry was
 * just made invalid; drop it from every CPU's TLB (DSB, broadcast TLBI,
 * DSB: arch_tlb_flush_all_harts). Context: stack_lock, interrupts off. */
void pt_flush_broken(uintptr_t va);
/* Map [@va, @va + @size) to @pa with ARCH_PROT_* @prot, 2 MiB blocks
 * where they fit. Return: 0, -ENOMEM, or -EEXIST if part of it is mapped
 * otherwise (the same page with the same rights again is allowed). */
int pt_map(uintptr_t va, uintptr_t pa, size_t size, unsigned int prot);
/* The 4 KiB page @va maps (0: none) and its ARCH_PROT_* rights in *@prot. */
uintptr_t pt_lookup(uintptr_t va, unsigned int *prot);
/* Map the 4 KiB page @va to @pa if it still maps @old_pa (0: nothing),
 * through an invalid entry where the arch needs it (see above): a CPU
 * that touches @va meanwhile faults, as on an unmapped page. Context:
 * stack_lock (mm/vm.c), interrupts off. Return: 0, -EAGAIN (it maps something
 * else) or -ENOMEM. */
int pt_set(uintptr_t va, uintptr_t old_pa, uintptr_t pa, unsigned int prot);
/* Map the 4 KiB page @va to @pa if it maps nothing, with no lock and no
 * table allocated. Return: 0, -EAGAIN (it maps something) or -ENOMEM (a
 * table on the way is missing). */
int pt_install(uintptr_t va, uintptr_t pa, unsigned int prot);
/* If the 4 KiB page @va maps @pa (0: anything), unmap it (or with
 * @wrprotect take its write right). Return: the page, or 0. */
uintptr_t pt_clear(uintptr_t va, uintptr_t pa, bool wrprotect);
/* A page fault at @addr for an access needing ARCH_PROT_* @need, which
 * the table already allows (mapped on another hart, a stale TLB here):
 * flushed locally. Return: true if so. Context: the trap handler. */
bool pt_fault_is_spurious(uintptr_t addr, unsigned int need);
