/*
 * mm/mmap.c: the areas of the one address space that map files - mmap,
 * munmap, msync, madvise.
 *
 * kernel_mm.areas lists them by address under kernel_mm.mmap_lock
 * (exclusive to add, split or remove one; shared to look one up, which
 * every fault on the locked way does). A lock-free load fault
 * (mm/fault.c) reads them inside an RCU read-side section while mm->seq
 * is even; writers make it odd and wait a grace period first. Each area
 * is also on its file's mapping->i_mmap, under that mapping's
 * i_mmap_lock: the reverse map that truncate and writeback walk
 * (mm/rmap.c) without mmap_lock, which is why an area's bounds change
 * only with both locks held. Addresses are handed out first fit in the
 * mmap area (mm/vm.h), with an unmapped page between areas so that
 * running off one faults.
 * Lock order: mm/mmap.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <kernel/err.h>
#include <kernel/panic.h>
#include <kernel/rcu.h>
#include <kernel/sched.h>
#include <mm/kmalloc.h>
#include <mm/mmap.h>
#include <mm/vm.h>
#include <fs/vfs.h>

static DEFINE_LOCK_CLASS(mmap_lock_class, LOCK_RANK_MMAP);

struct mm kernel_mm = {
	.mmap_lock = {
		.wait_lock = SPINLOCK_INIT(kernel_mm.mmap_lock.wait_lock),
		.waiters = LIST_HEAD_INIT(kernel_mm.mmap_lock.waiters),
		.dep = { .class = &mmap_lock_class, .name = "mmap_lock" },
	},
	.areas = LIST_HEAD_INIT(kernel_mm.areas),
};

static struct vm_area *find_area(struct mm *mm, uintptr_t addr)
{
	struct vm_area *a;

	list_for_each_entry (a, &mm->areas, node) {
		if (addr < a->start)
			break;
		if (addr < a->end)
			return a;
	}
	return NULL;
}

struct vm_area *vm_find_area(struct mm *mm, uintptr_t addr)
{
	lockdep_assert_held(&mm->mmap_lock);
	return find_area(mm, addr);
}

/* No writer runs while the count reads even inside the section: it would
 * have made it odd first, and waited for the section (mm_write_begin). */
struct vm_area *vm_find_area_rcu(struct mm *mm, uintptr_t addr)
{
	DEBUG_ASSERT(rcu_read_lock_held());
	return find_area(mm, addr);
}

/*
 * Lock-free faults read the areas with no lock: before changing them, a
 * writer makes mm->seq odd, which sends new faults to the locked path
 * (where mmap_lock makes them wait), and waits a grace period for those
 * already reading. Caller holds mmap_lock exclusive.
 */
static void mm_write_begin(struct mm *mm)
{
	WRITE_ONCE(mm->seq, mm->seq + 1);
	synchronize_rcu(); /* fences first: the odd count is seen */
}

static void mm_write_end(struct mm *mm)
{
	__atomic_store_n(&mm->seq, mm->seq + 1, __ATOMIC_RELEASE);
}

/* First fit for @len bytes, a guard page after each area: a gap in front
 * of an area must hold the new area and its guard, or the two would touch
 * and the next search, starting past the guard, would hand out the area
 * again. Caller holds mmap_lock exclusive. Return: the address, or 0.
 * @before: the area to insert the new one in front of (NULL: at the end). */
static uintptr_t find_gap(struct mm *mm, size_t len, struct vm_area **before)
{
	uintptr_t addr = VM_MMAP_BASE;
	struct vm_area *a;

	list_for_each_entry (a, &mm->areas, node) {
		DEBUG_ASSERT(a->start >= addr);
		if (a->start - addr >= len + PAGE_SIZE) {
			*before = a;
			return addr;
		}
		addr = a->end + PAGE_SIZE;
	}
	*before = NULL;
	return VM_MMAP_BASE + VM_MMAP_SIZE - addr >= len ? addr : 0;
}

/* @a enters its file's reverse map; mm->areas is the caller's. */
static void area_link_file(struct vm_area *a)
{
	struct address_space *m = a->file->f_mapping;

	mutex_lock(&m->i_mmap_lock);
	list_add_tail(&a->shared, &m->i_mmap);
	mutex_unlock(&m->i_mmap_lock);
}

static void area_free(struct vm_area *a)
{
	struct address_space *m = a->file->f_mapping;

	mutex_lock(&m->i_mmap_lock);
	list_del(&a->shared);
	mutex_unlock(&m->i_mmap_lock);
	list_del(&a->node);
	a->owner->nr_areas--;
	fput(a->file);
	kfree(a);
}

/* Linux's checks, in its order. Flags beyond the type are refused: whole
 * implements none of them (with MAP_SHARED_VALIDATE: EOPNOTSUPP, as
 * Linux says of flags it does not know). */
static int
mmap_check(struct file *f, size_t len, int prot, int flags, loff_t off)
{
	int type = flags & MAP_TYPE;
	int acc = f->f_flags & O_ACCMODE;

	if (off < 0 || (off & ~PAGE_MASK) || !len)
		return -EINVAL;
	if (len > VM_MMAP_SIZE)
		return -ENOMEM;
	if (!type || (prot & ~(PROT_READ | PROT_WRITE | PROT_EXEC)))
		return -EINVAL;
	if (flags & ~type)
		return type == MAP_SHARED_VALIDATE ? -EOPNOTSUPP : -EINVAL;
	if (acc == O_WRONLY ||
	    (type != MAP_PRIVATE && (prot & PROT_WRITE) && acc != O_RDWR))
		return -EACCES;
	if (!S_ISREG(f->f_inode->i_mode) || !f->f_mapping->a_ops)
		return -ENODEV;
	return 0;
}

void *vm_mmap(struct file *f, size_t len, int prot, int flags, loff_t off)
{
	struct mm *mm = &kernel_mm;
	struct vm_area *a, *before;
	int err = mmap_check(f, len, prot, flags, off);

	if (err)
		return ERR_PTR(err);
	len = ALIGN_UP(len, PAGE_SIZE);
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return ERR_PTR(-ENOMEM);
	*a = (struct vm_area){ .pgoff = off >> PAGE_SHIFT,
			       .prot = prot,
			       .flags = flags == MAP_PRIVATE ? MAP_PRIVATE
							     : MAP_SHARED,
			       .file = fget(f),
			       .owner = current_task() };
	down_write(&mm->mmap_lock);
	a->start = find_gap(mm, len, &before);
	a->end = a->start + len;
	if (a->start) {
		mm_write_begin(mm);
		list_add_tail(&a->node, before ? &before->node : &mm->areas);
		area_link_file(a);
		a->owner->nr_areas++;
		mm_write_end(mm);
	}
	up_write(&mm->mmap_lock);
	if (!a->start) {
		fput(f);
		kfree(a);
		return ERR_PTR(-ENOMEM);
	}
	return (void *)a->start;
}

/* Cut [@start, @end) out of @a (its entries already gone): shrink it,
 * split it in two, or free it. Caller holds mmap_lock exclusive. */
static int area_cut(struct vm_area *a, uintptr_t start, uintptr_t end)
{
	struct address_space *m = a->file->f_mapping;
	struct vm_area *tail = NULL;

	if (start <= a->start && end >= a->end) {
		area_free(a);
		return 0;
	}
	if (start > a->start && end < a->end) {
		tail = kmalloc(sizeof(*tail), GFP_KERNEL);
		if (!tail)
			return -ENOMEM;
		*tail = *a;
		tail->start = end;
		tail->pgoff += (end - a->start) >> PAGE_SHIFT;
		fget(a->file);
		list_add(&tail->node, &a->node);
		tail->owner->nr_areas++;
	}
	mutex_lock(&m->i_mmap_lock);
	if (start <= a->start) {
		a->pgoff += (end - a->start) >> PAGE_SHIFT;
		a->start = end;
	} else {
		a->end = start;
	}
	if (tail)
		list_add_tail(&tail->shared, &m->i_mmap);
	mutex_unlock(&m->i_mmap_lock);
	return 0;
}

static bool range_ok(uintptr_t addr, size_t len)
{
	return IS_ALIGNED(addr, PAGE_SIZE) && len && addr >= VM_MMAP_BASE &&
	       len <= VM_MMAP_SIZE && addr - VM_MMAP_BASE <= VM_MMAP_SIZE - len;
}

int vm_munmap(void *addr, size_t len)
{
	uintptr_t start = (uintptr_t)addr, end;
	struct mm *mm = &kernel_mm;
	struct vm_area *a, *next;
	int err = 0;

	len = ALIGN_UP(len, PAGE_SIZE);
	if (!range_ok(start, len))
		return -EINVAL;
	end = start + len;
	down_write(&mm->mmap_lock);
	mm_write_begin(mm);
	list_for_each_entry_safe (a, next, &mm->areas, node) {
		if (a->end <= start || a->start >= end)
			continue;
		area_zap(MAX(start, a->start), MIN(end, a->end), NULL);
		err = area_cut(a, start, end);
		if (err)
			break;
	}
	mm_write_end(mm);
	up_write(&mm->mmap_lock);
	return err;
}

/* The count is @t's own once it is dead: only @t adds areas it owns
 * (a split needs one of them), so 0 stays 0 with no lock. */
void vm_release_task(struct task *t)
{
	struct mm *mm = &kernel_mm;
	struct vm_area *a, *next;

	if (!READ_ONCE(t->nr_areas))
		return;
	down_write(&mm->mmap_lock);
	mm_write_begin(mm);
	list_for_each_entry_safe (a, next, &mm->areas, node) {
		if (a->owner != t)
			continue;
		area_zap(a->start, a->end, NULL);
		area_free(a);
	}
	mm_write_end(mm);
	up_write(&mm->mmap_lock);
}

/* The next area at or past @addr that ends after it, its file
 * referenced and its part of [@addr, @end) in *@from, *@to; the gap
 * before it is reported in *@hole. Caller holds mmap_lock. */
static struct file *next_area(uintptr_t addr,
			      uintptr_t end,
			      loff_t *from,
			      loff_t *to,
			      uintptr_t *next,
			      bool *hole,
			      unsigned int *flags)
{
	struct vm_area *a;

	list_for_each_entry (a, &kernel_mm.areas, node) {
		uintptr_t s = MAX(addr, a->start), e = MIN(end, a->end);

		if (a->end <= addr)
			continue;
		if (a->start >= end)
			break;
		*hole |= a->start > addr;
		*from = ((loff_t)a->pgoff << PAGE_SHIFT) + (s - a->start);
		*to = *from + (e - s);
		*next = e;
		*flags = a->flags;
		return fget(a->file);
	}
	*hole |= addr < end;
	return NULL;
}

/* Run @fn on the file range behind each area part of [@addr, @addr +
 * @len), mmap_lock dropped around each call (fsync takes i_rwsem, which
 * comes before mmap_lock). Return: the first error, else -ENOMEM if part
 * of the range was not mapped (Linux's rule), else 0. */
static int for_each_file_range(uintptr_t addr,
			       size_t len,
			       int (*fn)(struct file *f,
					 loff_t from,
					 loff_t to,
					 unsigned int flags,
					 int arg),
			       int arg)
{
	uintptr_t end = addr + len;
	bool hole = false;
	int err = 0;

	while (addr < end && !err) {
		unsigned int flags = 0;
		loff_t from, to;
		struct file *f;

		down_read(&kernel_mm.mmap_lock);
		f = next_area(addr, end, &from, &to, &addr, &hole, &flags);
		up_read(&kernel_mm.mmap_lock);
		if (!f)
			break;
		err = fn(f, from, to, flags, arg);
		fput(f);
	}
	return err ?: hole ? -ENOMEM : 0;
}

static int
msync_range(struct file *f, loff_t from, loff_t to, unsigned int flags, int ms)
{
	if (!(flags & MAP_SHARED) || !(ms & MS_SYNC))
		return 0; /* MS_ASYNC: the flusher writes dirty pages anyway */
	return vfs_fsync_range(f, from, to - 1, true);
}

int vm_msync(void *addr, size_t len, int flags)
{
	uintptr_t start = (uintptr_t)addr;

	if ((flags & ~(MS_ASYNC | MS_INVALIDATE | MS_SYNC)) ||
	    ((flags & MS_ASYNC) && (flags & MS_SYNC)) ||
	    !IS_ALIGNED(start, PAGE_SIZE))
		return -EINVAL;
	len = ALIGN_UP(len, PAGE_SIZE);
	if (!len)
		return 0;
	if (!range_ok(start, len))
		return -ENOMEM;
	return for_each_file_range(start, len, msync_range, flags);
}

/* MADV_WILLNEED: fadvise(WILLNEED)'s readahead, batches under
 * invalidate_lock shared (mm/readahead.c). */
static int willneed_range(
    struct file *f, loff_t from, loff_t to, unsigned int flags, int unused)
{
	unsigned long index = from >> PAGE_SHIFT;

	(void)flags;
	(void)unused;
	page_cache_force_readahead(
	    f->f_mapping, index, ((to + PAGE_SIZE - 1) >> PAGE_SHIFT) - index);
	return 0;
}

/* MADV_DONTNEED: drop the entries; the next access faults the file's
 * page in again (a private copy is lost, as in Linux). */
static int dontneed(uintptr_t start, size_t len)
{
	uintptr_t end = start + len;
	struct vm_area *a;
	bool hole = false;
	uintptr_t at = start;

	down_read(&kernel_mm.mmap_lock);
	list_for_each_entry (a, &kernel_mm.areas, node) {
		if (a->end <= start || a->start >= end)
			continue;
		hole |= a->start > at;
		area_zap(MAX(start, a->start), MIN(end, a->end), NULL);
		at = a->end;
	}
	up_read(&kernel_mm.mmap_lock);
	return hole || at < end ? -ENOMEM : 0;
}

int vm_madvise(void *addr, size_t len, int advice)
{
	uintptr_t start = (uintptr_t)addr;

	if (!IS_ALIGNED(start, PAGE_SIZE))
		return -EINVAL;
	len = ALIGN_UP(len, PAGE_SIZE);
	if (!len)
		return 0;
	if (!range_ok(start, len))
		return -ENOMEM;
	switch (advice) {
	case MADV_NORMAL:
	case MADV_RANDOM:
	case MADV_SEQUENTIAL: return 0;
	case MADV_DONTNEED: return dontneed(start, len);
	case MADV_WILLNEED:
		return for_each_file_range(start, len, willneed_range, 0);
	default: return -EINVAL;
	}
}
