/*
 * mm/vm.h: the kernel's Sv39 address space.
 *
 * One page table shared by every hart: RAM mapped 1:1 (text read+execute,
 * read-only data read, the rest read+write, no execute outside text), the
 * devices the platform reports mapped read+write, and a virtual area above
 * for task stacks, each with an unmapped guard page below it so an overflow
 * faults instead of corrupting memory.
 */
#pragma once

#include <kernel/compiler.h>

/* The satp value every hart uses; read by secondary_entry (entry.S), which
 * must turn translation on before it can use its stack. */
extern unsigned long vm_kernel_satp;

/* Boot hart: build the tables and turn translation on. */
int vm_init(void);
/* Each secondary hart: use the same tables. */
void vm_init_hart(void);
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
