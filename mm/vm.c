/*
 * mm/vm.c: the kernel's Sv39 page table, shared by every hart.
 *
 * Layout of the one address space:
 *   RAM            identity-mapped (VA == PA): kernel text R+X, rodata R,
 *                  everything else R+W; 2 MiB megapages wherever a whole
 *                  aligned 2 MiB has one permission, 4 KiB pages around
 *                  the kernel image.
 *   devices        UART, PLIC, virtio-mmio slots, sifive_test: R+W.
 *   stack area     STACK_AREA_BASE (0xFFFFFFC000000000, the top 256 GiB of
 *                  Sv39, canonical and far from any RAM) for 1 GiB, cut
 *                  into STACK_SLOT_SIZE slots. A stack occupies the top of
 *                  its slot; everything below it in the slot, starting with
 *                  the guard page right under it, stays unmapped, so an
 *                  overflow faults even when a large frame skips a page.
 *   mmap area      VM_MMAP_BASE (right above the stack area) for
 *                  VM_MMAP_SIZE: file mappings (mm/mmap.c). Its 4 KiB
 *                  leaves are set and cleared by the vm_mmap_*() calls
 *                  below, one page at a time, for mm/fault.c.
 * Every leaf has A and D set (no Svadu: QEMU would fault to set them) and
 * G (one address space).
 *
 * Only the stack and mmap areas change after vm_init(). Another hart may still
 * hold an invalid entry for a page just mapped: the fault that follows is
 * retried by vm_handle_spurious_fault() after a local sfence.vma. Unmapping
 * flushes every hart (SBI RFENCE) before the pages are freed.
 *
 * Locking: stack_lock (irqsave) serialises changes to the page tables
 * (both areas) and the slot bitmap. Lock order: stack_lock, then the page
 * allocator's zone_lock (tables and stack pages are allocated under
 * stack_lock). Readers (the fault path) walk the tables without it: entries are
 * written whole with WRITE_ONCE and tables are never freed.
 */
#include <errno.h>
#include <string.h>
#include <kernel/arch.h>
#include <kernel/arch/riscv64/csr.h>
#include <kernel/arch/riscv64/sbi.h>
#include <kernel/init.h>
#include <kernel/panic.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/spinlock.h>
#include <mm/page_alloc.h>
#include <mm/vm.h>

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

#define PROT_RW (PTE_R | PTE_W)
#define PROT_RX (PTE_R | PTE_X)
#define PROT_RO PTE_R

#define PT_LEVELS      3
#define PT_ENTRIES     512
#define LEVEL_SHIFT(l) (PAGE_SHIFT + 9 * (l))
#define LEVEL_SIZE(l)  (1UL << LEVEL_SHIFT(l))
#define MEGAPAGE_LEVEL 1

#define STACK_AREA_BASE 0xFFFFFFC000000000UL
#define STACK_AREA_SIZE (1UL << 30)
#define STACK_SLOT_SIZE (128UL << 10)
#define STACK_MAX_PAGES (STACK_SLOT_SIZE / PAGE_SIZE - 1) /* guard page */
#define NR_STACK_SLOTS	(STACK_AREA_SIZE / STACK_SLOT_SIZE)
#define BITS_PER_WORD	(8 * sizeof(unsigned long))

extern char __kernel_start[], __text_end[], __rodata_end[];

static pte_t *root;
static unsigned long nr_table_pages; /* only grows; under stack_lock */
/* Written once by vm_init; secondary_entry loads it before touching its
 * stack, which lives in the stack area. */
unsigned long vm_kernel_satp;

static DEFINE_SPINLOCK(stack_lock);
/* protected by stack_lock (read without it by vm_is_stack_guard): */
static unsigned long stack_slots[NR_STACK_SLOTS / BITS_PER_WORD];

static inline unsigned int pte_index(uintptr_t va, int level)
{
	return (va >> LEVEL_SHIFT(level)) & (PT_ENTRIES - 1);
}

static inline uintptr_t pte_pa(pte_t pte)
{
	return (pte >> PTE_PPN_SHIFT) << PAGE_SHIFT;
}

static inline pte_t pa_to_pte(uintptr_t pa, unsigned long bits)
{
	return ((pa >> PAGE_SHIFT) << PTE_PPN_SHIFT) | bits | PTE_V;
}

static inline bool pte_is_leaf(pte_t pte)
{
	return (pte & PTE_V) && (pte & PTE_LEAF_BITS);
}

/*
 * The one page-table walker. Descend from the root towards the entry that
 * maps @va at @level, stopping early at an invalid entry (unless @alloc:
 * then a zeroed table is put there) or at a leaf that maps a larger page.
 * Caller holds stack_lock if @alloc.
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
			e = pa_to_pte((uintptr_t)next, 0);
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

/* The entry that decides how @va is mapped (a leaf or an invalid entry). */
static pte_t vm_lookup(uintptr_t va)
{
	int level;
	pte_t *pte = root ? pte_walk(va, 0, false, &level) : NULL;

	return pte ? READ_ONCE(*pte) : 0;
}

/* Map one page of size LEVEL_SIZE(@level). Mapping the same page again
 * with the same permissions is allowed (devices may share a page). */
static int map_page(uintptr_t va, uintptr_t pa, int level, unsigned long prot)
{
	pte_t new = pa_to_pte(pa, prot | PTE_A | PTE_D | PTE_G), old;
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

static int
map_range(uintptr_t va, uintptr_t pa, size_t size, unsigned long prot)
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

static int map_identity(uintptr_t start, uintptr_t end, unsigned long prot)
{
	return start < end ? map_range(start, start, end - start, prot) : 0;
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
		  map_device(&test);

	for (unsigned int i = 0; i < platform.nvirtio && !err; i++)
		err = map_device(&platform.virtio[i]);
	return err;
}

void vm_init_hart(void)
{
	csr_write(satp, vm_kernel_satp);
	arch_tlb_flush_all();
}

int vm_init(void)
{
	unsigned long flags;
	int err;

	root = alloc_pages_va(GFP_ZERO, 0);
	nr_table_pages = 1;
	if (!root)
		panic("vm: no memory for the page table (page_alloc not up?)");
	flags = spin_lock_irqsave(&stack_lock);
	err = map_ram() ?: map_devices();
	spin_unlock_irqrestore(&stack_lock, flags);
	if (err)
		panic("vm: cannot build the kernel page table (%d)", err);
	vm_kernel_satp = SATP_MODE_SV39 | ((uintptr_t)root >> PAGE_SHIFT);
	smp_mb();
	vm_init_hart();
	pr_info("vm: Sv39 on, %lu pages free after page tables\n",
		pages_free());
	return 0;
}
/* Runs after page_alloc's hook: same level, mm/build.ninja links it later. */
INIT_HOOK(vm, vm_init, INIT_LEVEL_MM);

/*
 * vm_handle_spurious_fault() runs first thing in the trap handler, so scause
 * still names the access that faulted: the fault was spurious only if the
 * entry now allows that very access (a write to text is not spurious).
 */
bool vm_handle_spurious_fault(uintptr_t addr)
{
	unsigned long cause = csr_read(scause);
	unsigned long need = cause == EXC_STORE_PAGE_FAULT  ? PTE_W
			     : cause == EXC_INST_PAGE_FAULT ? PTE_X
							    : PTE_R;
	pte_t pte = vm_lookup(addr);

	if (!pte_is_leaf(pte) || !(pte & need))
		return false;
	arch_tlb_flush_page(addr);
	return true;
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
	for (uintptr_t va = start; va < start + size; va += PAGE_SIZE)
		arch_tlb_flush_page(va);
	WARN_ON_ONCE(sbi_remote_sfence_vma_all(start, size) != 0);
}

/* Unmap [lo, hi) of @slot, flush every hart, free the pages and let the
 * slot be used again. */
static void stack_release(unsigned long slot, uintptr_t lo, uintptr_t hi)
{
	uintptr_t pages[STACK_MAX_PAGES];
	unsigned long flags, n = 0;

	flags = spin_lock_irqsave(&stack_lock);
	for (uintptr_t va = lo; va < hi; va += PAGE_SIZE) {
		int at;
		pte_t *pte = pte_walk(va, 0, false, &at);

		if (at == 0 && pte_is_leaf(*pte)) {
			pages[n++] = pte_pa(*pte);
			WRITE_ONCE(*pte, 0);
		}
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

		if (!page || map_page(va, (uintptr_t)page, 0, PROT_RW)) {
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
	       !pte_is_leaf(vm_lookup(addr));
}

uintptr_t vm_mmap_lookup(uintptr_t va, bool *writable)
{
	pte_t pte = vm_in_mmap_area(va) ? vm_lookup(va) : 0;

	if (!pte_is_leaf(pte))
		return 0;
	if (writable)
		*writable = pte & PTE_W;
	return pte_pa(pte);
}

int vm_mmap_set(uintptr_t va, uintptr_t old_pa, uintptr_t pa, bool writable)
{
	unsigned long flags, prot = writable ? PROT_RW : PROT_RO;
	pte_t new = pa_to_pte(pa, prot | PTE_A | PTE_D | PTE_G), old;
	pte_t *pte;
	int at, err = 0;

	if (WARN_ON_ONCE(!vm_in_mmap_area(va) || !IS_ALIGNED(va, PAGE_SIZE)))
		return -EINVAL;
	flags = spin_lock_irqsave(&stack_lock);
	pte = pte_walk(va, 0, true, &at);
	if (!pte) {
		err = -ENOMEM;
		goto out_unlock;
	}
	old = READ_ONCE(*pte);
	if ((pte_is_leaf(old) ? pte_pa(old) : 0) != old_pa)
		err = -EAGAIN;
	else
		WRITE_ONCE(*pte, new);
out_unlock:
	spin_unlock_irqrestore(&stack_lock, flags);
	/* Another page, or fewer rights, than before: no hart may keep the
	 * old entry. More rights: a stale entry only faults spuriously. */
	if (!err && old_pa && (old_pa != pa || !(new &PTE_W)))
		vm_flush_tlb_all_harts(va, PAGE_SIZE);
	else if (!err)
		arch_tlb_flush_page(va);
	return err;
}

/* Change the leaf at @va (4 KiB, mmap area) if it maps @pa (any page if
 * @pa is 0): clear it, or with @wrprotect only its write right. The caller
 * flushes the TLBs. Return: the page it mapped, or 0 if it did not. */
static uintptr_t mmap_pte_clear(uintptr_t va, uintptr_t pa, bool wrprotect)
{
	unsigned long flags;
	uintptr_t old_pa = 0;
	pte_t *pte;
	int at;

	if (WARN_ON_ONCE(!vm_in_mmap_area(va)))
		return 0;
	flags = spin_lock_irqsave(&stack_lock);
	pte = pte_walk(va, 0, false, &at);
	if (pte && at == 0 && pte_is_leaf(*pte) &&
	    (!pa || pte_pa(*pte) == pa)) {
		old_pa = pte_pa(*pte);
		WRITE_ONCE(*pte, wrprotect ? *pte & ~PTE_W : 0);
	}
	spin_unlock_irqrestore(&stack_lock, flags);
	return old_pa;
}

uintptr_t vm_mmap_clear(uintptr_t va, uintptr_t pa)
{
	return mmap_pte_clear(va, pa, false);
}

bool vm_mmap_wrprotect(uintptr_t va, uintptr_t pa)
{
	return mmap_pte_clear(va, pa, true) != 0;
}
