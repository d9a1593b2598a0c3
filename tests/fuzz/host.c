/*
 * tests/fuzz/host.c: the kernel services fs/ext2 calls, for the host build
 * of the ext2 code that tools/fuzz feeds with images.
 *
 * One thread runs the filesystem, and every device request completes inside
 * blk_submit, so the services are small, but each keeps the kernel's
 * contract and turns what would hang or corrupt the kernel into an abort
 * the fuzzer reports as a crash:
 *   - locks remember their holder: taking one that is held (a lock cycle
 *     a corrupt image could build, e.g. a directory that is its own
 *     child) aborts instead of sleeping forever;
 *   - panic and WARN abort: disk contents must never reach either;
 *   - the device is the image in memory (host_image); a request past its
 *     end fails with -EIO like a real disk's;
 *   - on a read-only mount every write path (and every page-cache
 *     change only writes make) aborts if it is reached; the write phase's
 *     read-write mount gets them from host_write.c;
 *   - a page read leaves the page unlocked, uptodate or in error, by the
 *     time read_page/readahead return (no I/O is ever pending here): one
 *     still locked is a page the kernel would wait on forever.
 * The page cache itself is not built here: filemap_read reads each page
 * into a fresh page through the filesystem's read operations and copies
 * it out, so every byte a read returns went through ext2's block map.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <drivers/block.h>
#include <fs/vfs.h>
#include <kernel/err.h>
#include <kernel/lockdep.h>
#include <kernel/printk.h>
#include <kernel/race.h>
#include <kernel/trace.h>
#include <mm/kmalloc.h>
#include "host.h"

struct task *host_current_task;
race_fn *race_hooks[NR_RACE_POINTS];
bool trace_on;
struct host_stats host_stats;
struct lock_class i_rwsem_class = { .name = "i_rwsem" };

void __trace_event(enum trace_type type, uint64_t a, uint64_t b)
{
	(void)type, (void)a, (void)b;
}

__noreturn static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("whole host: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

/* ---- console, panic, warnings ---- */

void vprintk(int level, const char *fmt, va_list ap)
{
	if (level <= LOGLEVEL_ERR)
		host_stats.errors++;
	if (host_verbose)
		vfprintf(stderr, fmt, ap);
}

void printk(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintk(level, fmt, ap);
	va_end(ap);
}

void panic(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("whole host: panic: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	abort();
}

void __warn(const char *file, int line, const char *cond)
{
	die("WARNING at %s:%d: %s", file, line, cond);
}

/* ---- memory ---- */

void *kmalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return malloc(size ? size : 1);
}

void *kzalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return calloc(1, size ? size : 1);
}

void *krealloc(void *p, size_t size, gfp_t gfp)
{
	(void)gfp;
	if (!size) {
		free(p);
		return NULL;
	}
	return realloc(p, size);
}

void kfree(const void *p)
{
	free((void *)p);
}

/* ---- locks: one thread, so a held lock taken again is a deadlock ---- */

#define HOST_MAX_HELD 64
static struct {
	const struct lockdep_map *map;
	enum lock_mode mode;
} held[HOST_MAX_HELD];
static unsigned int nr_held;

static void hold(const struct lockdep_map *map, enum lock_mode mode)
{
	if (nr_held == HOST_MAX_HELD)
		die("more than %d locks held", HOST_MAX_HELD);
	held[nr_held].map = map;
	held[nr_held++].mode = mode;
}

static void release(const struct lockdep_map *map)
{
	for (unsigned int i = nr_held; i-- > 0;)
		if (held[i].map == map) {
			held[i] = held[--nr_held];
			return;
		}
	die("released %s, which is not held", map->name);
}

bool lockdep_is_held(const struct lockdep_map *map, enum lock_mode mode)
{
	for (unsigned int i = 0; i < nr_held; i++)
		if (held[i].map == map && (held[i].mode & mode))
			return true;
	return false;
}

unsigned int host_locks_held(void)
{
	return nr_held;
}

void spin_lock_init(struct spinlock *l, const char *name)
{
	*l = (struct spinlock){ .dep = { .name = name } };
}

void spin_lock(struct spinlock *l)
{
	if (l->locked)
		die("deadlock: spinlock %s taken twice", l->dep.name);
	l->locked = 1;
	hold(&l->dep, LOCK_MODE_EXCLUSIVE);
}

void spin_unlock(struct spinlock *l)
{
	if (!l->locked)
		die("spinlock %s released unlocked", l->dep.name);
	l->locked = 0;
	release(&l->dep);
}

void mutex_init(struct mutex *m, const char *name, struct lock_class *class)
{
	*m = (struct mutex){ .dep = { .class = class, .name = name } };
}

void mutex_lock(struct mutex *m)
{
	if (m->owner)
		die("deadlock: mutex %s taken twice", m->dep.name);
	m->owner = (unsigned long)m; /* any value but 0 */
	hold(&m->dep, LOCK_MODE_EXCLUSIVE);
}

/* One task: a mutex held is held by the caller, so a trylock of it
 * fails as it would on the kernel while the caller holds it. */
bool mutex_trylock_nested(struct mutex *m, unsigned int subclass)
{
	(void)subclass;
	if (m->owner)
		return false;
	mutex_lock(m);
	return true;
}

void mutex_unlock(struct mutex *m)
{
	if (!m->owner)
		die("mutex %s released unlocked", m->dep.name);
	m->owner = 0;
	release(&m->dep);
}

bool mutex_is_locked(struct mutex *m)
{
	return m->owner != 0;
}

void init_rwsem(struct rw_semaphore *s,
		const char *name,
		struct lock_class *class)
{
	*s = (struct rw_semaphore){ .dep = { .class = class, .name = name } };
}

void down_read(struct rw_semaphore *s)
{
	if (s->count & RWSEM_WRITER)
		die("deadlock: %s taken shared under its writer", s->dep.name);
	s->count += RWSEM_READER;
	hold(&s->dep, LOCK_MODE_SHARED);
}

void up_read(struct rw_semaphore *s)
{
	if (s->count < RWSEM_READER)
		die("%s: up_read without a reader", s->dep.name);
	s->count -= RWSEM_READER;
	release(&s->dep);
}

void down_write(struct rw_semaphore *s)
{
	if (s->count)
		die("deadlock: %s taken exclusive while held", s->dep.name);
	s->count = RWSEM_WRITER;
	s->writer = (struct task *)s;
	hold(&s->dep, LOCK_MODE_EXCLUSIVE);
}

void up_write(struct rw_semaphore *s)
{
	if (s->count != RWSEM_WRITER)
		die("%s: up_write without a writer", s->dep.name);
	s->count = 0;
	s->writer = NULL;
	release(&s->dep);
}

bool rwsem_is_write_owner(struct rw_semaphore *s)
{
	return s->writer != NULL;
}

/* ---- time ---- */

struct timespec current_time(void)
{
	return (struct timespec){ .tv_sec = 1700000000 };
}

void time_wall_advance_to(uint64_t sec)
{
	(void)sec;
}

/* ---- the device: the image in memory ---- */

static bool
blk_in_range(struct block_device *dev, uint64_t sector, uint64_t bytes)
{
	return sector <= dev->nr_sectors &&
	       bytes <= (dev->nr_sectors - sector) * SECTOR_SIZE;
}

static int blk_copy(struct block_device *dev,
		    uint64_t sector,
		    void *buf,
		    uint64_t bytes,
		    bool write)
{
	struct host_disk *d = dev->driver;
	char *at = d->image + sector * SECTOR_SIZE;

	if (!blk_in_range(dev, sector, bytes)) {
		host_stats.io_errors++;
		return -EIO;
	}
	if (write && dev->read_only)
		die("a write reached the disk of a read-only mount");
	if (write) {
		memcpy(at, buf, bytes);
		return 0;
	}
	memcpy(buf, at, bytes);
	host_stats.bytes_read += bytes;
	return 0;
}

int blk_read_sync(struct block_device *dev,
		  uint64_t sector,
		  void *buf,
		  uint32_t nsect)
{
	return blk_copy(dev, sector, buf, (uint64_t)nsect * SECTOR_SIZE, false);
}

int blk_write_sync(struct block_device *dev,
		   uint64_t sector,
		   const void *buf,
		   uint32_t nsect)
{
	return blk_copy(
	    dev, sector, (void *)buf, (uint64_t)nsect * SECTOR_SIZE, true);
}

int blk_write_sync_vec(struct block_device *dev,
		       const struct blk_wseg *v,
		       unsigned int n)
{
	int err = 0;

	for (unsigned int i = 0; i < n; i++) {
		int e = blk_write_sync(dev, v[i].sector, v[i].buf, v[i].nsect);

		err = err ?: e;
	}
	return err;
}

int blk_flush(struct block_device *dev)
{
	(void)dev;
	return 0;
}

struct bio *bio_alloc(struct block_device *dev,
		      enum blk_op op,
		      uint64_t sector,
		      unsigned int max_vecs)
{
	struct bio *bio = calloc(1, sizeof(*bio));

	if (!bio)
		return NULL;
	bio->vecs = calloc(max_vecs ? max_vecs : 1, sizeof(*bio->vecs));
	if (!bio->vecs) {
		free(bio);
		return NULL;
	}
	bio->bdev = dev;
	bio->op = op;
	bio->sector = sector;
	bio->max_vecs = max_vecs;
	return bio;
}

void bio_free(struct bio *bio)
{
	free(bio->vecs);
	free(bio);
}

int bio_add_buf(struct bio *bio, void *addr, uint32_t len)
{
	if (bio->vcnt == bio->max_vecs || !len || len % SECTOR_SIZE)
		return -EINVAL;
	bio->vecs[bio->vcnt++] = (struct bio_vec){ addr, len };
	bio->size += len;
	return 0;
}

/* The request completes at once: end_io runs before blk_submit returns. */
void blk_submit(struct bio *bio)
{
	uint64_t sector = bio->sector;

	bio->status = 0;
	if (bio->op == BLK_OP_FLUSH && !bio->bdev->read_only) {
		bio->end_io(bio);
		return;
	}
	if (bio->op != BLK_OP_READ && bio->op != BLK_OP_WRITE)
		die("bio op %d", bio->op);
	if (!blk_in_range(bio->bdev, sector, bio->size))
		bio->status = -EIO;
	for (unsigned int i = 0; !bio->status && i < bio->vcnt; i++) {
		bio->status = blk_copy(bio->bdev,
				       sector,
				       bio->vecs[i].addr,
				       bio->vecs[i].len,
				       bio->op == BLK_OP_WRITE);
		sector += bio->vecs[i].len / SECTOR_SIZE;
	}
	bio->end_io(bio);
}

/* ---- pages: each read gets fresh ones (host.h: host_page_*) ---- */

struct host_page {
	struct page page;
	char data[PAGE_SIZE] __aligned(16);
};

struct page *host_page_alloc(struct address_space *m, unsigned long index)
{
	struct host_page *hp = calloc(1, sizeof(*hp));

	if (!hp)
		die("out of memory");
	hp->page.refcount = 1;
	hp->page.mapping = m;
	hp->page.index = index;
	hp->page.flags = 1UL << PG_locked;
	memset(hp->data, EXT2_POISON, PAGE_SIZE);
	return &hp->page;
}

void host_page_free(struct page *page)
{
	free(container_of(page, struct host_page, page));
}

void *page_address(const struct page *page)
{
	return container_of((struct page *)page, struct host_page, page)->data;
}

void page_read_done(struct page *page, int err)
{
	if (!page_test(page, PG_locked))
		die("page %lu completed twice", page->index);
	page_set(page, err ? PG_error : PG_uptodate);
	page_clear(page, PG_locked);
}

void unlock_page(struct page *page)
{
	if (!page_test_and_clear(page, PG_locked))
		die("page %lu unlocked twice", page->index);
}

void put_page(struct page *page)
{
	if (--page->refcount < 0)
		die("page %lu put once too often", page->index);
}

/* ---- inodes: a list per superblock, kept until unmount ---- */

void mapping_init(struct address_space *m,
		  struct inode *host,
		  const struct address_space_operations *a_ops)
{
	*m = (struct address_space){ .host = host, .a_ops = a_ops };
	init_rwsem(&m->invalidate_lock, "invalidate_lock", NULL);
	spin_lock_init(&m->i_pages_lock, "i_pages_lock");
	mutex_init(&m->i_mmap_lock, "i_mmap_lock", NULL);
	list_init(&m->wb_node);
	list_init(&m->i_mmap);
}

struct inode *host_inode_alloc(struct super_block *sb, unsigned long ino)
{
	struct inode *inode = sb->s_op->alloc_inode(sb);

	if (!inode)
		return NULL;
	inode->i_ino = ino;
	inode->i_sb = sb;
	inode->i_nlink = 0;
	inode->i_count = 1;
	mapping_init(&inode->i_data, inode, NULL);
	inode->i_data.sb_wb_err = &sb->s_wb_err;
	inode->i_mapping = &inode->i_data;
	init_rwsem(&inode->i_rwsem, "i_rwsem", &i_rwsem_class);
	spin_lock_init(&inode->i_lock, "i_lock");
	list_init(&inode->i_hash);
	list_init(&inode->i_dirty_list);
	list_init(&inode->i_lru);
	return inode;
}

struct inode *iget(struct super_block *sb, unsigned long ino)
{
	struct inode *inode;
	int err;

	list_for_each_entry (inode, &sb->s_inodes, i_sb_list)
		if (inode->i_ino == ino) {
			inode->i_count++;
			return inode;
		}
	inode = host_inode_alloc(sb, ino);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	err = sb->s_op->read_inode(inode);
	if (err) {
		sb->s_op->destroy_inode(inode);
		return ERR_PTR(err);
	}
	list_add_tail(&inode->i_sb_list, &sb->s_inodes);
	host_stats.inodes++;
	return inode;
}

/* The last reference to an unlinked inode of a read-write mount evicts
 * it (host_write.c), as fs/inode.c's iput does. */
void iput(struct inode *inode)
{
	if (inode && --inode->i_count < 0)
		die("inode %lu put once too often", inode->i_ino);
	if (inode && !inode->i_count && !inode->i_nlink &&
	    !inode->i_sb->s_rdonly)
		host_evict(inode);
}

void host_evict_all(struct super_block *sb)
{
	while (!list_empty(&sb->s_inodes)) {
		struct inode *inode =
		    list_first_entry(&sb->s_inodes, struct inode, i_sb_list);

		if (inode->i_count)
			die("inode %lu still has %d references at unmount",
			    inode->i_ino,
			    inode->i_count);
		list_del(&inode->i_sb_list);
		sb->s_op->destroy_inode(inode);
	}
}

static struct fs_type *fs_types;

int register_filesystem(struct fs_type *type)
{
	type->node.next = (struct list_head *)fs_types;
	fs_types = type;
	return 0;
}

struct fs_type *host_fs_type(const char *name)
{
	for (struct fs_type *t = fs_types; t;
	     t = (struct fs_type *)t->node.next)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

/* ---- the page cache's read side, without a cache ---- */

/* Read pages [@first, @first + @nr) through readahead (or read_page for
 * one), check each came back unlocked, copy the bytes of [@at, @at + @len)
 * out. Return: 0 or -EIO if a page is in error. */
static int read_pages(struct address_space *m,
		      unsigned long first,
		      unsigned int nr,
		      loff_t at,
		      size_t len,
		      char *buf)
{
	struct page *pages[HOST_READ_BATCH];
	struct readahead_control rac = { m, first, nr, pages };
	int err = 0;

	for (unsigned int i = 0; i < nr; i++)
		pages[i] = host_page_alloc(m, first + i);
	if (nr == 1)
		m->a_ops->read_page(m, pages[0]);
	else
		m->a_ops->readahead(&rac);
	for (unsigned int i = 0; i < nr; i++) {
		struct page *page = pages[i];
		loff_t pstart = (loff_t)page->index * PAGE_SIZE;
		loff_t from = MAX(at, pstart);
		loff_t to = MIN(at + (loff_t)len, pstart + (loff_t)PAGE_SIZE);

		if (page_test(page, PG_locked))
			die("page %lu of inode %lu left locked by a read",
			    page->index,
			    m->host->i_ino);
		if (!page_test(page, PG_uptodate))
			err = -EIO;
		else if (from < to)
			memcpy(buf + (from - at),
			       (char *)page_address(page) + (from - pstart),
			       to - from);
		host_page_free(page);
	}
	return err;
}

ssize_t filemap_read_flags(
    struct file *f, void *buf, size_t len, loff_t *pos, int flags)
{
	struct address_space *m = f->f_mapping;
	loff_t size = READ_ONCE(m->host->i_size);
	unsigned long first, last;
	int err;

	(void)flags;
	if (*pos < 0)
		return -EINVAL;
	if (*pos >= size || !len)
		return 0;
	if ((uint64_t)len > (uint64_t)(size - *pos))
		len = size - *pos;
	first = *pos / PAGE_SIZE;
	last = (*pos + len - 1) / PAGE_SIZE;
	if (last - first >= HOST_READ_BATCH) {
		last = first + HOST_READ_BATCH - 1;
		len = (loff_t)(last + 1) * PAGE_SIZE - *pos;
	}
	err = read_pages(m, first, last - first + 1, *pos, len, buf);
	if (err)
		return err;
	*pos += len;
	return len;
}

ssize_t filemap_read(struct file *f, void *buf, size_t len, loff_t *pos)
{
	return filemap_read_flags(f, buf, len, pos, 0);
}
