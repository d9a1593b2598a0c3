/*
 * mm/vm.h: the kernel's address space (mm/vm.c; the page table is
 * mm/pgtable.c's, its entry format the architecture's).
 *
 * One page table shared by every hart: RAM mapped 1:1 (text read+execute,
 * read-only data read, the rest read+write, no execute outside text), the
 * devices the platform reports mapped read+write, and a virtual area above
 * for task stacks, each with an unmapped guard page below it so an overflow
 * faults instead of corrupting memory, and an area for file mappings
 * (mm/mmap.c), whose 4 KiB entries mm/fault.c sets and clears.
 */
#pragma once

#include <kernel/compiler.h>

/* Boot hart: build the tables and turn translation on. */
int vm_init(void);
/* Each secondary hart: use the same tables. */
void vm_init_hart(void);
/* Map device memory [@pa, @pa + @size) read+write at the same address,
 * after boot (the PCI windows, drivers/pci.c). Mapping a page again the
 * same way is allowed. Return: 0, -ERANGE (past what the identity map
 * reaches), -EEXIST (RAM, or mapped otherwise) or -ENOMEM. */
int vm_map_io(uintptr_t pa, size_t size);
/* A stack of @size bytes (page multiple) with a guard page below.
 * Return: its lowest address, or NULL when memory runs out. */
void *vm_alloc_stack(size_t size);
void vm_free_stack(void *stack, size_t size);
/* Pages holding page tables. Tables are never freed: this only grows. */
unsigned long vm_page_table_pages(void);
/* Is @addr inside the guard page of some stack? */
bool vm_is_stack_guard(uintptr_t addr);
/* A fault at @addr that a TLB refresh resolves (a mapping made on another
 * hart): true if it was handled and the access can be retried. */
bool vm_handle_spurious_fault(uintptr_t addr);

/* Drop every hart's translations of [@start, @start + @size): after it,
 * no hart can reach what an entry there mapped. */
void vm_flush_tlb_all_harts(uintptr_t start, size_t size);

/* The file-mapping area: right above the 1 GiB stack area. */
#define VM_MMAP_BASE 0xFFFFFFC040000000UL
#define VM_MMAP_SIZE (16UL << 30)

static inline bool vm_in_mmap_area(uintptr_t addr)
{
	return addr - VM_MMAP_BASE < VM_MMAP_SIZE;
}

/* The page mapped at @va in the mmap area, and whether it is writable.
 * Return: its physical address, or 0 if nothing is mapped there. */
uintptr_t vm_mmap_lookup(uintptr_t va, bool *writable);
/* Map @pa at @va (writable or read-only) if @va still maps @old_pa (0:
 * nothing). Replacing a page or taking a right away flushes every hart.
 * Return: 0, -EAGAIN (@va changed meanwhile) or -ENOMEM. */
int vm_mmap_set(uintptr_t va, uintptr_t old_pa, uintptr_t pa, bool writable);
/* Map @pa read-only at @va if @va maps nothing, with no lock (lock-free
 * faults, mm/fault.c): fails rather than allocate a table. Flushes only
 * this hart's TLB. Return: true if mapped. */
bool vm_mmap_install(uintptr_t va, uintptr_t pa);
/* Unmap @va if it maps @pa (0: whatever it maps). The caller flushes the
 * TLBs (vm_flush_tlb_all_harts) before it lets the page go. Return: the
 * page it mapped, or 0. */
uintptr_t vm_mmap_clear(uintptr_t va, uintptr_t pa);
/* Take the write right from @va if it maps @pa; the caller flushes.
 * Return: true if @va mapped @pa. */
bool vm_mmap_wrprotect(uintptr_t va, uintptr_t pa);
