/*
 * fs/inode.c: the inode cache (writing inodes back, sync and drop_caches:
 * fs/inode_sync.c).
 *
 * Inodes are hashed by (superblock, inode number). iget() returns a
 * referenced inode, reading it with s_op->read_inode the first time; other
 * callers wait while it is I_NEW. iput() drops a reference; the last one
 *   - of an inode with i_nlink == 0 evicts it: page cache truncated,
 *     s_op->evict_inode frees it on disk, then it is destroyed;
 *   - of a live inode leaves it cached on the LRU, unreferenced, until
 *     prune_icache() destroys it if it is clean: at unmount, and under
 *     memory pressure through reclaim's shrinker (mm/vmscan.c).
 * An inode being evicted (I_FREEING) stays hashed until it is gone, so that
 * iget/new_inode of the same number wait for it instead of seeing two
 * inodes for one file.
 *
 * Locks (outermost first): inode_hash_lock (hash, LRU, the 0 <-> 1
 * transitions of i_count), sb->s_inode_lock (s_inodes, s_dirty),
 * inode->i_lock (i_state, i_count). i_size writers hold i_rwsem instead.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <kernel/arch.h>
#include <kernel/err.h>
#include <kernel/init.h>
#include <kernel/panic.h>
#include <kernel/race.h>
#include <kernel/trace.h>
#include <kernel/time.h>
#include <mm/kmalloc.h>
#include <fs/internal.h>

#define INODE_HASH_SIZE 256

static DEFINE_SPINLOCK(inode_hash_lock);
/* protected by inode_hash_lock: */
static struct list_head inode_hash[INODE_HASH_SIZE];
static struct list_head inode_lru = LIST_HEAD_INIT(inode_lru);
static unsigned long nr_unused; /* inodes on inode_lru */

/* Woken when an I_FREEING inode leaves the hash. */
static DEFINE_WAIT_QUEUE_HEAD(inode_freed_wq);
static uint64_t i_rwsem_ino(const void *lock)
{
	return container_of(lock, struct inode, i_rwsem)->i_ino;
}
DEFINE_TRACED_LOCK_CLASS(i_rwsem_class,
			 LOCK_RANK_I_RWSEM,
			 TRACE_LOCK_I_RWSEM,
			 i_rwsem_ino);

/* Memory pressure: clean unused inodes go, with their page cache. */
static unsigned long icache_scan(unsigned long nr)
{
	return prune_icache(NULL, nr);
}

static struct shrinker icache_shrinker = { .scan = icache_scan };

static int inode_cache_init(void)
{
	for (size_t i = 0; i < INODE_HASH_SIZE; i++)
		list_init(&inode_hash[i]);
	register_shrinker(&icache_shrinker);
	return 0;
}

unsigned long icache_unused(void)
{
	return READ_ONCE(nr_unused);
}
INIT_HOOK(inode_cache, inode_cache_init, INIT_LEVEL_SCHED);

static struct list_head *hash_bucket(struct super_block *sb, unsigned long ino)
{
	uintptr_t h = ((uintptr_t)sb >> 6) ^ ino ^ (ino >> 8);

	return &inode_hash[h % INODE_HASH_SIZE];
}

bool inode_unhashed(struct inode *inode)
{
	return list_empty(&inode->i_hash);
}

struct timespec current_time(void)
{
	uint64_t ns = time_wall_ns();

	return (struct timespec){ .tv_sec = ns / NSEC_PER_SEC,
				  .tv_nsec = ns % NSEC_PER_SEC };
}

static struct inode *inode_alloc(struct super_block *sb, unsigned long ino)
{
	struct inode *inode = sb->s_op->alloc_inode
				  ? sb->s_op->alloc_inode(sb)
				  : kzalloc(sizeof(*inode), GFP_KERNEL);

	if (!inode)
		return NULL;
	inode->i_ino = ino;
	inode->i_sb = sb;
	inode->i_nlink = 0;
	inode->i_count = 1;
	inode->i_state = I_NEW;
	mapping_init(&inode->i_data, inode, NULL);
	inode->i_data.sb_wb_err = &sb->s_wb_err;
	inode->i_data.ra_worker = true; /* iput is safe from any task */
	inode->i_mapping = &inode->i_data;
	init_rwsem(&inode->i_rwsem, "i_rwsem", &i_rwsem_class);
	spin_lock_init(&inode->i_lock, "i_lock");
	list_init(&inode->i_hash);
	list_init(&inode->i_sb_list);
	list_init(&inode->i_dirty_list);
	list_init(&inode->i_lru);
	wait_queue_init(&inode->i_wait);
	return inode;
}

static void inode_destroy(struct inode *inode)
{
	if (inode->i_sb->s_op->destroy_inode)
		inode->i_sb->s_op->destroy_inode(inode);
	else
		kfree(inode);
}

/* Caller holds inode_hash_lock. */
static struct inode *inode_find(struct super_block *sb, unsigned long ino)
{
	struct inode *inode;

	list_for_each_entry (inode, hash_bucket(sb, ino), i_hash)
		if (inode->i_sb == sb && inode->i_ino == ino)
			return inode;
	return NULL;
}

/* Caller holds inode_hash_lock. */
static void inode_insert(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;

	list_add(&inode->i_hash, hash_bucket(sb, inode->i_ino));
	spin_lock(&sb->s_inode_lock);
	list_add_tail(&inode->i_sb_list, &sb->s_inodes);
	spin_unlock(&sb->s_inode_lock);
}

/* Caller holds inode_hash_lock. */
static void inode_remove(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;

	list_del(&inode->i_hash);
	spin_lock(&sb->s_inode_lock);
	list_del(&inode->i_sb_list);
	list_del(&inode->i_dirty_list);
	spin_unlock(&sb->s_inode_lock);
}

/* Take a reference on a hashed inode. Caller holds inode_hash_lock.
 * Return: false if it is being evicted. */
static bool inode_get_locked(struct inode *inode)
{
	bool ok;

	spin_lock(&inode->i_lock);
	ok = !(inode->i_state & I_FREEING);
	if (ok && inode->i_count++ == 0) {
		list_del(&inode->i_lru);
		nr_unused--;
	}
	spin_unlock(&inode->i_lock);
	return ok;
}

static bool inode_freeing_hashed(struct super_block *sb, unsigned long ino)
{
	bool busy;

	spin_lock(&inode_hash_lock);
	busy = inode_find(sb, ino) != NULL;
	spin_unlock(&inode_hash_lock);
	return busy;
}

static void wait_inode_freed(struct super_block *sb, unsigned long ino)
{
	wait_event(&inode_freed_wq, !inode_freeing_hashed(sb, ino));
}

/* The inode has I_FREEING, no references and is off the LRU. */
static void inode_evict(struct inode *inode)
{
	if (!inode_unhashed(inode)) {
		filemap_invalidate_lock(inode->i_mapping);
		truncate_inode_pages_final(inode->i_mapping);
		filemap_invalidate_unlock(inode->i_mapping);
		if (inode->i_nlink == 0 && inode->i_sb->s_op->evict_inode)
			inode->i_sb->s_op->evict_inode(inode);
	}
	spin_lock(&inode_hash_lock);
	inode_remove(inode);
	spin_unlock(&inode_hash_lock);
	wake_up_all(&inode_freed_wq);
	inode_destroy(inode);
}

static void unlock_new_inode(struct inode *inode)
{
	spin_lock(&inode->i_lock);
	inode->i_state &= ~I_NEW;
	spin_unlock(&inode->i_lock);
	wake_up_all(&inode->i_wait);
}

/* A read_inode failed: waiters see the inode unhashed and give up. */
static void inode_read_failed(struct inode *inode)
{
	spin_lock(&inode_hash_lock);
	inode_remove(inode);
	spin_unlock(&inode_hash_lock);
	unlock_new_inode(inode);
	iput(inode);
}

static struct inode *iget_cached(struct inode *inode)
{
	wait_event(&inode->i_wait, !(READ_ONCE(inode->i_state) & I_NEW));
	if (inode_unhashed(inode)) {
		iput(inode);
		return ERR_PTR(-EIO);
	}
	return inode;
}

/**
 * iget - the cached inode @ino of @sb, read from disk if not cached.
 * Context: task, may sleep.
 * Return: a referenced inode or ERR_PTR (-ENOMEM, read_inode's error).
 */
struct inode *iget(struct super_block *sb, unsigned long ino)
{
	struct inode *inode, *fresh = NULL;
	int err;

	for (;;) {
		spin_lock(&inode_hash_lock);
		inode = inode_find(sb, ino);
		if (inode && inode_get_locked(inode)) {
			spin_unlock(&inode_hash_lock);
			if (fresh)
				inode_destroy(fresh);
			return iget_cached(inode);
		}
		if (!inode && fresh)
			break;
		spin_unlock(&inode_hash_lock);
		if (inode) {
			wait_inode_freed(sb, ino);
			continue;
		}
		fresh = inode_alloc(sb, ino);
		if (!fresh)
			return ERR_PTR(-ENOMEM);
	}
	inode_insert(fresh);
	spin_unlock(&inode_hash_lock);
	err = sb->s_op->read_inode(fresh);
	if (err) {
		inode_read_failed(fresh);
		return ERR_PTR(err);
	}
	unlock_new_inode(fresh);
	return fresh;
}

/**
 * new_inode - a fresh, hashed inode numbered @ino, for a file being created.
 * The filesystem fills it in before making it reachable (a directory entry).
 * Context: task, may sleep (waits for an old inode @ino being evicted).
 * Return: a referenced inode with i_nlink 0, or ERR_PTR(-ENOMEM/-EEXIST).
 */
struct inode *new_inode(struct super_block *sb, unsigned long ino)
{
	struct inode *inode = inode_alloc(sb, ino);
	struct inode *old;

	if (!inode)
		return ERR_PTR(-ENOMEM);
	inode->i_state = 0;
	for (;;) {
		bool freeing;

		spin_lock(&inode_hash_lock);
		old = inode_find(sb, ino);
		if (!old)
			break;
		/* Read under the lock: once it is dropped the old inode may
		 * leave the hash and be freed (and its memory reused). */
		freeing = READ_ONCE(old->i_state) & I_FREEING;
		spin_unlock(&inode_hash_lock);
		race_point(RACE_NEW_INODE_OLD, old);
		if (WARN_ON(!freeing)) {
			inode_destroy(inode);
			return ERR_PTR(-EEXIST);
		}
		wait_inode_freed(sb, ino);
	}
	inode_insert(inode);
	spin_unlock(&inode_hash_lock);
	return inode;
}

void ihold(struct inode *inode)
{
	spin_lock(&inode->i_lock);
	WARN_ON(inode->i_count <= 0);
	inode->i_count++;
	spin_unlock(&inode->i_lock);
}

/**
 * iput - drop a reference; the last one evicts a deleted inode.
 * Context: task, may sleep (eviction does I/O). NULL is allowed.
 */
void iput(struct inode *inode)
{
	if (!inode)
		return;
	spin_lock(&inode_hash_lock);
	spin_lock(&inode->i_lock);
	WARN_ON(inode->i_count <= 0);
	if (--inode->i_count > 0) {
		spin_unlock(&inode->i_lock);
		spin_unlock(&inode_hash_lock);
		return;
	}
	if (!inode_unhashed(inode) && inode->i_nlink > 0) {
		list_add_tail(&inode->i_lru, &inode_lru);
		nr_unused++;
		spin_unlock(&inode->i_lock);
		spin_unlock(&inode_hash_lock);
		return;
	}
	inode->i_state |= I_FREEING;
	spin_unlock(&inode->i_lock);
	spin_unlock(&inode_hash_lock);
	inode_evict(inode);
}

void inode_set_size(struct inode *inode, loff_t size)
{
	bool shrinks = size < inode->i_size;

	__atomic_store_n(&inode->i_size, size, __ATOMIC_RELEASE);
	if (shrinks) {
		smp_wmb(); /* the size, then the count: pairs with read_range */
		WRITE_ONCE(inode->i_shrinks, inode->i_shrinks + 1);
	}
}

static bool inode_clean(struct inode *inode)
{
	return !(inode->i_state & I_DIRTY) &&
	       !READ_ONCE(inode->i_mapping->nrdirty);
}

/**
 * prune_icache - destroy up to @nr clean, unreferenced inodes of @sb
 * (of every superblock if @sb is NULL).
 * Context: task, may sleep.
 * Return: how many were destroyed.
 */
unsigned long prune_icache(struct super_block *sb, unsigned long nr)
{
	struct list_head victims = LIST_HEAD_INIT(victims);
	struct inode *inode, *next;
	unsigned long done = 0;

	spin_lock(&inode_hash_lock);
	list_for_each_entry_safe (inode, next, &inode_lru, i_lru) {
		if (done == nr)
			break;
		if (sb && inode->i_sb != sb)
			continue;
		spin_lock(&inode->i_lock);
		if (inode_clean(inode)) {
			inode->i_state |= I_FREEING;
			list_del(&inode->i_lru);
			list_add_tail(&inode->i_lru, &victims);
			nr_unused--;
			done++;
		}
		spin_unlock(&inode->i_lock);
	}
	spin_unlock(&inode_hash_lock);
	list_for_each_entry_safe (inode, next, &victims, i_lru)
		inode_evict(inode);
	return done;
}

/* Referenced snapshot of @sb's inodes (@all) or of those that have
 * something to write. Return: the count, or -ENOMEM; *out is kfree'd by
 * the caller. */
long collect_inodes(struct super_block *sb,
		    bool all,
		    bool wait,
		    struct inode ***out)
{
	struct inode *inode, **arr;
	size_t n = 0, max = 0;

	spin_lock(&sb->s_inode_lock);
	list_for_each_entry (inode, &sb->s_inodes, i_sb_list)
		max++;
	spin_unlock(&sb->s_inode_lock);
	arr = kmalloc((max + 1) * sizeof(*arr), GFP_KERNEL);
	if (!arr)
		return -ENOMEM;
	spin_lock(&inode_hash_lock);
	spin_lock(&sb->s_inode_lock);
	list_for_each_entry (inode, &sb->s_inodes, i_sb_list) {
		if (n == max)
			break;
		if (!inode_unhashed(inode) &&
		    (all || inode_needs_sync(inode, wait)) &&
		    inode_get_locked(inode))
			arr[n++] = inode;
	}
	spin_unlock(&sb->s_inode_lock);
	spin_unlock(&inode_hash_lock);
	*out = arr;
	return n;
}
