/*
 * mm/vm.c: the layout of the one kernel address space, shared by every
 * hart; mm/pgtable.c walks the page table, whose entry format is the
 * architecture's (<arch/pte.h> through <kernel/arch.h>).
 *
 * Layout:
 *   RAM            identity-mapped (VA == PA): kernel text R+X, rodata R,
 *                  everything else R+W (the architecture uses large pages
 *                  wherever a whole aligned one has one permission).
 *   devices        UART, PLIC, APLIC and IMSIC or GIC, virtio-mmio slots,
 * sifive_test: R+W; the PCI configuration window and the BARs assigned later
 *                  (vm_map_io, from drivers/pci.c), below the arch's
 *                  ARCH_IDENTITY_LIMIT.
 *   stack area     STACK_AREA_BASE (0xFFFFFFC000000000, the top 256 GiB of
 *                  Sv39, canonical and far from any RAM) for 1 GiB, cut
 *                  into STACK_SLOT_SIZE slots. A stack occupies the top of
 *                  its slot; everything below it in the slot, starting with
 *                  the guard page right under it, stays unmapped, so an
 *                  overflow faults even when a large frame skips a page.
 *   mmap area      VM_MMAP_BASE (right above the stack area) for
 *                  VM_MMAP_SIZE: file mappings (mm/mmap.c). Its 4 KiB
 *                  pages are set and cleared by the vm_mmap_*() calls
 *                  below, one page at a time, for mm/fault.c.
 *
 * Only the stack and mmap areas change after vm_init(). Another hart may still
 * hold an invalid entry for a page just mapped: the fault that follows is
 * retried by vm_handle_spurious_fault() after a local TLB flush. Unmapping
 * flushes every hart before the pages are freed.
 *
 * Locking: stack_lock (irqsave) serialises changes to the page table
 * (both areas) and the slot bitmap; vm_mmap_install alone fills an empty
 * entry without it, by compare-and-swap. Lock order: stack_lock, then the page
 * allocator's zone_lock (tables and stack pages are allocated under
 * stack_lock). Readers (the fault path) walk the table without it.
 */
#include <errno.h>
#include <string.h>
#include <kernel/arch.h>
#include <kernel/init.h>
#include <kernel/panic.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/race.h>
#include <kernel/spinlock.h>
#include <mm/page_alloc.h>
#include <mm/pgtable.h>
#include <mm/vm.h>

#define PROT_RW (ARCH_PROT_R | ARCH_PROT_W)
#define PROT_RX (ARCH_PROT_R | ARCH_PROT_X)
#define PROT_RO ARCH_PROT_R

#define STACK_AREA_BASE 0xFFFFFFC000000000UL
#define STACK_AREA_SIZE (1UL << 30)
#define STACK_SLOT_SIZE (128UL << 10)
#define STACK_MAX_PAGES (STACK_SLOT_SIZE / PAGE_SIZE - 1) /* guard page */
#define NR_STACK_SLOTS	(STACK_AREA_SIZE / STACK_SLOT_SIZE)
#define BITS_PER_WORD	(8 * sizeof(unsigned long))

extern char __kernel_start[], __text_end[], __rodata_end[];

static DEFINE_SPINLOCK(stack_lock);
/* protected by stack_lock (read without it by vm_is_stack_guard): */
static unsigned long stack_slots[NR_STACK_SLOTS / BITS_PER_WORD];

BUILD_BUG_ON(PT_PAGE_SIZE != PAGE_SIZE);

/* Pages holding page tables: they only grow (tables are never freed);
 * under stack_lock, or at boot. */
static unsigned long nr_table_pages;

void pt_flush_broken(uintptr_t va)
{
	arch_tlb_flush_all_harts(va, PAGE_SIZE);
	race_point(RACE_PT_BREAK, (void *)va); /* mm/pgtable_test.c */
}

void *pt_alloc_table(void)
{
	void *table = alloc_pages_va(GFP_ZERO, 0);

	if (table)
		nr_table_pages++;
	return table;
}

static int map_identity(uintptr_t start, uintptr_t end, unsigned long prot)
{
	int err = start < end ? pt_map(start, start, end - start, prot) : 0;

	if (err == -EEXIST)
		pr_err("vm: %#lx-%#lx already mapped otherwise\n",
		       (unsigned long)start,
		       (unsigned long)end);
	return err;
}

static int map_ram(void)
{
	uintptr_t mem = platform.mem_base;
	uintptr_t mem_end = platform.mem_base + platform.mem_size;
	uintptr_t text = (uintptr_t)__kernel_start;
	uintptr_t text_end = (uintptr_t)__text_end;
	uintptr_t rodata_end = (uintptr_t)__rodata_end;

	return map_identity(mem, text, PROT_RW) ?:
	       map_identity(text, text_end, PROT_RX) ?:
	       map_identity(text_end, rodata_end, PROT_RO) ?:
	       map_identity(rodata_end, mem_end, PROT_RW);
}

static int map_device(const struct platform_mmio_dev *dev)
{
	return dev->base
		   ? map_identity(dev->base, dev->base + dev->size, PROT_RW)
		   : 0;
}

static int map_devices(void)
{
	struct platform_mmio_dev test = { platform.test_base, PAGE_SIZE, 0 };
	int err = map_device(&platform.uart) ?: map_device(&platform.plic) ?:
		  map_device(&platform.gicd) ?: map_device(&platform.gicc) ?:
		  map_device(&platform.gicr) ?: map_device(&platform.imsic) ?:
		  map_device(&platform.aplic) ?: map_device(&test);

	for (unsigned int i = 0; i < platform.nvirtio && !err; i++)
		err = map_device(&platform.virtio[i]);
	return err;
}

/* The identity map cannot reach past the arch's low half. */
#define IDENTITY_LIMIT ARCH_IDENTITY_LIMIT

int vm_map_io(uintptr_t pa, size_t size)
{
	unsigned long flags;
	int err;

	if (!size || pa >= IDENTITY_LIMIT || size > IDENTITY_LIMIT - pa)
		return -ERANGE;
	if (pa < platform.mem_base + platform.mem_size &&
	    pa + size > platform.mem_base)
		return -EEXIST;
	flags = spin_lock_irqsave(&stack_lock);
	err = map_identity(ALIGN_DOWN(pa, PAGE_SIZE), pa + size, PROT_RW);
	spin_unlock_irqrestore(&stack_lock, flags);
	return err;
}

void vm_init_hart(void)
{
	arch_mmu_enable();
}

int vm_init(void)
{
	unsigned long flags;
	int err;

	arch_mmu_init();
	flags = spin_lock_irqsave(&stack_lock);
	err = map_ram() ?: map_devices();
	spin_unlock_irqrestore(&stack_lock, flags);
	if (err)
		panic("vm: cannot build the kernel page table (%d)", err);
	arch_mmu_enable();
	pr_info("vm: %s on, %lu pages free after page tables\n",
		arch_mmu_name(),
		pages_free());
	return 0;
}
/* Runs after page_alloc's hook: same level, mm/build.ninja links it later. */
INIT_HOOK(vm, vm_init, INIT_LEVEL_MM);

bool vm_handle_spurious_fault(uintptr_t addr)
{
	return pt_fault_is_spurious(addr, arch_fault_access());
}

static inline bool in_stack_area(uintptr_t addr)
{
	return addr - STACK_AREA_BASE < STACK_AREA_SIZE;
}

static inline unsigned long addr_to_slot(uintptr_t addr)
{
	return (addr - STACK_AREA_BASE) / STACK_SLOT_SIZE;
}

static inline uintptr_t slot_top(unsigned long slot)
{
	return STACK_AREA_BASE + (slot + 1) * STACK_SLOT_SIZE;
}

static bool slot_in_use(unsigned long slot)
{
	unsigned long word = READ_ONCE(stack_slots[slot / BITS_PER_WORD]);

	return (word >> (slot % BITS_PER_WORD)) & 1;
}

/* Claim a free slot. Caller holds stack_lock. Return: it, or -1. */
static long slot_claim_locked(void)
{
	DEBUG_ASSERT(spin_lock_held(&stack_lock));
	for (unsigned long i = 0; i < ARRAY_SIZE(stack_slots); i++) {
		unsigned long word = stack_slots[i];
		if (~word) {
			unsigned int bit = __builtin_ctzl(~word);
			WRITE_ONCE(stack_slots[i], word | (1UL << bit));
			return (long)(i * BITS_PER_WORD + bit);
		}
	}
	return -1;
}

/* Drop every hart's translations of [start, start + size). */
void vm_flush_tlb_all_harts(uintptr_t start, size_t size)
{
	arch_tlb_flush_all_harts(start, size);
}

/* Unmap [lo, hi) of @slot, flush every hart, free the pages and let the
 * slot be used again. */
static void stack_release(unsigned long slot, uintptr_t lo, uintptr_t hi)
{
	uintptr_t pages[STACK_MAX_PAGES];
	unsigned long flags, n = 0;

	flags = spin_lock_irqsave(&stack_lock);
	for (uintptr_t va = lo; va < hi; va += PAGE_SIZE) {
		uintptr_t pa = pt_clear(va, 0, false);

		if (pa)
			pages[n++] = pa;
	}
	spin_unlock_irqrestore(&stack_lock, flags);
	vm_flush_tlb_all_harts(lo, hi - lo);
	while (n)
		free_pages_va((void *)pages[--n], 0);
	flags = spin_lock_irqsave(&stack_lock);
	WRITE_ONCE(stack_slots[slot / BITS_PER_WORD],
		   stack_slots[slot / BITS_PER_WORD] &
		       ~(1UL << (slot % BITS_PER_WORD)));
	spin_unlock_irqrestore(&stack_lock, flags);
}

void *vm_alloc_stack(size_t size)
{
	size_t npages = DIV_ROUND_UP(size, PAGE_SIZE);
	uintptr_t lo, top, va;
	unsigned long flags;
	long slot;

	if (WARN_ON_ONCE(!npages || npages > STACK_MAX_PAGES))
		return NULL;
	flags = spin_lock_irqsave(&stack_lock);
	slot = slot_claim_locked();
	if (slot < 0) {
		spin_unlock_irqrestore(&stack_lock, flags);
		return NULL;
	}
	top = slot_top(slot);
	lo = top - npages * PAGE_SIZE;
	for (va = lo; va < top; va += PAGE_SIZE) {
		void *page = alloc_pages_va(GFP_KERNEL, 0);

		if (!page || pt_map(va, (uintptr_t)page, PAGE_SIZE, PROT_RW)) {
			free_pages_va(page, 0);
			break;
		}
	}
	spin_unlock_irqrestore(&stack_lock, flags);
	if (va < top) {
		stack_release(slot, lo, va);
		return NULL;
	}
	return (void *)lo;
}

void vm_free_stack(void *stack, size_t size)
{
	uintptr_t lo = (uintptr_t)stack;
	size_t npages = DIV_ROUND_UP(size, PAGE_SIZE);
	unsigned long slot = addr_to_slot(lo);

	if (!stack)
		return;
	if (WARN_ON_ONCE(!in_stack_area(lo) || !slot_in_use(slot) ||
			 lo + npages * PAGE_SIZE != slot_top(slot)))
		return;
	stack_release(slot, lo, slot_top(slot));
}

unsigned long vm_page_table_pages(void)
{
	return READ_ONCE(nr_table_pages);
}

bool vm_is_stack_guard(uintptr_t addr)
{
	return in_stack_area(addr) && slot_in_use(addr_to_slot(addr)) &&
	       !pt_lookup(ALIGN_DOWN(addr, PAGE_SIZE), NULL);
}

uintptr_t vm_mmap_lookup(uintptr_t va, bool *writable)
{
	unsigned int prot = 0;
	uintptr_t pa = vm_in_mmap_area(va)
			   ? pt_lookup(ALIGN_DOWN(va, PAGE_SIZE), &prot)
			   : 0;

	if (pa && writable)
		*writable = prot & ARCH_PROT_W;
	return pa;
}

/* An entry of the mmap area: a page of it, a page to map. */
static bool mmap_entry_ok(uintptr_t va, uintptr_t pa)
{
	return !WARN_ON_ONCE(!vm_in_mmap_area(va) ||
			     !IS_ALIGNED(va, PAGE_SIZE) || !pa);
}

int vm_mmap_set(uintptr_t va, uintptr_t old_pa, uintptr_t pa, bool writable)
{
	unsigned long flags;
	int err;

	if (!mmap_entry_ok(va, pa))
		return -EINVAL;
	flags = spin_lock_irqsave(&stack_lock);
	err = pt_set(va, old_pa, pa, writable ? PROT_RW : PROT_RO);
	spin_unlock_irqrestore(&stack_lock, flags);
	WARN_ON_ONCE(err == -EINVAL); /* a change the walker refused */
	/* Another page, or fewer rights, than before: no hart may keep the
	 * old entry. More rights: a stale entry only faults spuriously. */
	if (!err && old_pa && (old_pa != pa || !writable))
		vm_flush_tlb_all_harts(va, PAGE_SIZE);
	else if (!err)
		arch_tlb_flush_page(va);
	return err;
}

bool vm_mmap_install(uintptr_t va, uintptr_t pa)
{
	if (!mmap_entry_ok(va, pa) || pt_install(va, pa, PROT_RO))
		return false;
	arch_tlb_flush_page(va); /* an empty entry may be cached here */
	return true;
}

/* Change the page at @va (4 KiB, mmap area) if it maps @pa (any page if
 * @pa is 0): unmap it, or with @wrprotect take only its write right. The
 * caller flushes the TLBs. Return: the page it mapped, or 0 if it did not. */
static uintptr_t mmap_clear(uintptr_t va, uintptr_t pa, bool wrprotect)
{
	unsigned long flags;
	uintptr_t old_pa;

	if (WARN_ON_ONCE(!vm_in_mmap_area(va)))
		return 0;
	flags = spin_lock_irqsave(&stack_lock);
	old_pa = pt_clear(va, pa, wrprotect);
	spin_unlock_irqrestore(&stack_lock, flags);
	return old_pa;
}

uintptr_t vm_mmap_clear(uintptr_t va, uintptr_t pa)
{
	return mmap_clear(va, pa, false);
}

bool vm_mmap_wrprotect(uintptr_t va, uintptr_t pa)
{
	return mmap_clear(va, pa, true) != 0;
}
