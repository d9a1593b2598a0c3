/*
 * fs/inode_sync.c: getting inodes to the disk - the dirty list, writing
 * one inode and its pages (fsync without a filesystem fsync), a whole
 * filesystem (sync, syncfs, unmount), and drop_caches. The cache itself
 * (hashing, references, eviction, pruning) is fs/inode.c.
 *
 * Locks: sb->s_inode_lock (s_dirty), then inode->i_lock (i_state); the
 * walks over a filesystem work on a referenced snapshot of its inodes
 * (collect_inodes, fs/inode.c), holding no lock while they write.
 */
#include <limits.h>
#include <stdlib.h>
#include <kernel/arch.h>
#include <kernel/err.h>
#include <mm/kmalloc.h>
#include <fs/internal.h>
#include <mm/filemap.h>

/*
 * Already dirty: nothing to do, and no lock (a write marks its inode dirty
 * for every page). The fence orders the caller's change of the inode
 * before the look at I_DIRTY; write_inode_now's fence orders its clearing
 * of I_DIRTY before it reads the inode: either it reads the change, or
 * this sees I_DIRTY clear and lists the inode again.
 */
void mark_inode_dirty(struct inode *inode)
{
	struct super_block *sb = inode->i_sb;

	smp_mb();
	if (READ_ONCE(inode->i_state) & I_DIRTY)
		return;
	spin_lock(&sb->s_inode_lock);
	spin_lock(&inode->i_lock);
	if (!(inode->i_state & (I_DIRTY | I_FREEING))) {
		inode->i_state |= I_DIRTY;
		list_add_tail(&inode->i_dirty_list, &sb->s_dirty);
	}
	spin_unlock(&inode->i_lock);
	spin_unlock(&sb->s_inode_lock);
}

bool inode_needs_sync(struct inode *inode, bool wait)
{
	return (READ_ONCE(inode->i_state) & I_DIRTY) ||
	       READ_ONCE(inode->i_mapping->nrdirty) ||
	       (wait && READ_ONCE(inode->i_mapping->nrpages));
}

/* Write @inode's metadata if it is dirty. */
static int write_inode_now(struct inode *inode, bool sync)
{
	struct super_block *sb = inode->i_sb;
	bool dirty;
	int err;

	spin_lock(&sb->s_inode_lock);
	spin_lock(&inode->i_lock);
	dirty = inode->i_state & I_DIRTY;
	if (dirty) {
		inode->i_state &= ~I_DIRTY;
		list_del(&inode->i_dirty_list);
	}
	spin_unlock(&inode->i_lock);
	spin_unlock(&sb->s_inode_lock);
	smp_mb(); /* I_DIRTY clear before the inode is read: see mark */
	if (!dirty || !sb->s_op->write_inode)
		return 0;
	err = sb->s_op->write_inode(inode, sync);
	if (err)
		mark_inode_dirty(inode);
	return err;
}

/* fsync's core for one inode: data in [@start, @end], then metadata. */
int inode_sync_range(struct inode *inode, loff_t start, loff_t end)
{
	int err = filemap_write_and_wait_range(inode->i_mapping, start, end);
	int err2 = write_inode_now(inode, true);

	return err ? err : err2;
}

/**
 * sync_filesystem - write back @sb: dirty pages, then dirty inodes, then
 * the filesystem's own metadata (s_op->sync_fs).
 * @wait: wait for the I/O (and flush the device's cache).
 * Context: task, may sleep; no inode locks held.
 * Return: 0 or the first error.
 */
int sync_filesystem(struct super_block *sb, bool wait)
{
	struct inode **arr;
	long n = collect_inodes(sb, false, wait, &arr);
	int err = n < 0 ? (int)n : 0, e;

	for (long i = 0; i < n; i++) {
		struct address_space *m = arr[i]->i_mapping;

		e = wait ? filemap_write_and_wait_range(m, 0, LLONG_MAX)
			 : filemap_fdatawrite_range(m, 0, LLONG_MAX);
		err = err ? err : e;
	}
	for (long i = 0; i < n; i++) {
		e = write_inode_now(arr[i], wait);
		err = err ? err : e;
		iput(arr[i]);
	}
	if (n >= 0)
		kfree(arr);
	if (sb->s_op->sync_fs) {
		e = sb->s_op->sync_fs(sb, wait);
		err = err ? err : e;
	}
	return err;
}

/**
 * vfs_drop_caches - write everything back, then drop the clean page cache
 * of every inode of the root (what reclaim could drop, all at once).
 * Benchmarks use it to read a file cold; `drop_caches` in the shell.
 * Context: task, may sleep; no inode locks held.
 * Return: pages dropped, or a negative errno.
 */
long vfs_drop_caches(void)
{
	struct super_block *sb = vfs_root_sb();
	struct inode **arr;
	long n, dropped = 0;

	if (!sb)
		return -ENODEV;
	/* A write error stays for fsync and syncfs (errseq): the failed page
	 * is clean, and dropped like the others. */
	readahead_cancel(NULL); /* a queued window would fill it again */
	sync_filesystem(sb, true);
	n = collect_inodes(sb, true, true, &arr);
	if (n < 0)
		return n;
	for (long i = 0; i < n; i++) {
		dropped += invalidate_mapping_pages(arr[i]->i_mapping);
		iput(arr[i]);
	}
	kfree(arr);
	return dropped;
}
