/*
 * fs/super.c: filesystem types and the root mount.
 *
 * Filesystems register a struct fs_type (usually from an INIT_LEVEL_FS
 * hook). At INIT_LEVEL_FS the root is mounted: the disk named by the boot
 * argument root=NAME (default vda) with the type named by rootfstype=
 * (default ext2). If the disk or the type is missing the kernel says so
 * and goes on without a root: path lookups then fail with -ENODEV. A type
 * that registers after the root hook ran is tried again at
 * INIT_LEVEL_LATE. The root is unmounted (written back) before poweroff.
 *
 * Locks: fs_types_lock (the type list), mount_lock (mounting and
 * unmounting; root_sb is published with WRITE_ONCE and read without it).
 */
#include <limits.h>
#include <string.h>
#include <kernel/bootargs.h>
#include <kernel/err.h>
#include <kernel/panic.h>
#include <kernel/init.h>
#include <kernel/printk.h>
#include <kernel/sched.h>
#include <mm/kmalloc.h>
#include <drivers/block.h>
#include <fs/internal.h>

static DEFINE_SPINLOCK(fs_types_lock);
static struct list_head fs_types = LIST_HEAD_INIT(fs_types);
static struct mutex mount_lock;
static struct super_block *root_sb;

static struct fs_type *find_filesystem(const char *name)
{
	struct fs_type *type;

	list_for_each_entry (type, &fs_types, node)
		if (!strcmp(type->name, name))
			return type;
	return NULL;
}

int register_filesystem(struct fs_type *type)
{
	int err = 0;

	spin_lock(&fs_types_lock);
	if (find_filesystem(type->name))
		err = -EBUSY;
	else
		list_add_tail(&type->node, &fs_types);
	spin_unlock(&fs_types_lock);
	return err;
}

struct super_block *vfs_root_sb(void)
{
	return READ_ONCE(root_sb);
}

static struct super_block *sb_alloc(struct block_device *bdev)
{
	struct super_block *sb = kzalloc(sizeof(*sb), GFP_KERNEL);

	if (!sb)
		return NULL;
	sb->s_bdev = bdev;
	list_init(&sb->s_list);
	spin_lock_init(&sb->s_inode_lock, "s_inode_lock");
	list_init(&sb->s_inodes);
	list_init(&sb->s_dirty);
	return sb;
}

/**
 * vfs_mount_root - mount @bdev with filesystem @fs_name as "/".
 * Context: task or init, may sleep.
 * Return: 0, -ENODEV (no such type), -EBUSY (a root is mounted) or
 * fill_super's error.
 */
int vfs_mount_root(const char *fs_name, struct block_device *bdev)
{
	struct fs_type *type;
	struct super_block *sb;
	int err;

	spin_lock(&fs_types_lock);
	type = find_filesystem(fs_name);
	spin_unlock(&fs_types_lock);
	if (!type)
		return -ENODEV;
	mutex_lock(&mount_lock);
	err = -EBUSY;
	if (root_sb)
		goto out_unlock;
	err = -ENOMEM;
	sb = sb_alloc(bdev);
	if (!sb)
		goto out_unlock;
	sb->s_type = type;
	err = type->fill_super(sb, bdev, bdev->read_only);
	if (!err && WARN_ON(!sb->s_root || !S_ISDIR(sb->s_root->i_mode)))
		err = -EINVAL;
	if (err) {
		/* Inodes fill_super read and put back (a root inode it then
		 * refused) sit on the LRU naming @sb: evict them before @sb
		 * goes, or a later mount whose superblock lands at the same
		 * address finds them. */
		prune_icache(sb, ULONG_MAX);
		kfree(sb);
		goto out_unlock;
	}
	WRITE_ONCE(root_sb, sb);
out_unlock:
	mutex_unlock(&mount_lock);
	return err;
}

/**
 * vfs_unmount_root - write everything back and release the root. The
 * calling task's working directory is dropped first.
 * Context: task, may sleep.
 * Return: 0, -EINVAL (nothing mounted), -EBUSY (inodes still in use: the
 * data is written back but the filesystem stays mounted) or an I/O error.
 */
int vfs_unmount_root(void)
{
	struct super_block *sb;
	int err;

	/* The caller (poweroff's task, the shell's) steps out to nowhere:
	 * its working directory would keep the root busy. */
	if (current_task())
		cwd_release(current_task());
	mutex_lock(&mount_lock);
	sb = root_sb;
	err = -EINVAL;
	if (!sb)
		goto out_unlock;
	readahead_cancel(NULL); /* its windows pin inodes */
	err = sync_filesystem(sb, true);
	prune_icache(sb, ~0UL);
	spin_lock(&sb->s_inode_lock);
	/* Only the root itself may remain. */
	bool busy = sb->s_inodes.next != &sb->s_root->i_sb_list ||
		    sb->s_inodes.prev != &sb->s_root->i_sb_list;
	spin_unlock(&sb->s_inode_lock);
	if (busy || sb->s_root->i_count != 1) {
		err = err ? err : -EBUSY;
		goto out_unlock;
	}
	WRITE_ONCE(root_sb, NULL);
	iput(sb->s_root);
	prune_icache(sb, ~0UL);
	if (sb->s_op->put_super)
		sb->s_op->put_super(sb);
	kfree(sb);
out_unlock:
	mutex_unlock(&mount_lock);
	return err;
}

int vfs_sync(void)
{
	struct super_block *sb = vfs_root_sb();

	return sb ? sync_filesystem(sb, true) : 0;
}

static int vfs_locks_init(void)
{
	mutex_init(&mount_lock, "mount_lock", NULL);
	return 0;
}
INIT_HOOK(vfs_locks, vfs_locks_init, INIT_LEVEL_SCHED);

static bool root_missing_type;

static int mount_root(bool report_missing_type)
{
	char disk[16] = "vda", fs[16] = "ext2";
	struct block_device *bdev;
	int err;

	bootarg_get("root", disk, sizeof(disk));
	bootarg_get("rootfstype", fs, sizeof(fs));
	bdev = blkdev_get(disk);
	if (!bdev) {
		pr_warn("vfs: no disk %s: going on without a root\n", disk);
		return 0;
	}
	err = vfs_mount_root(fs, bdev);
	root_missing_type = err == -ENODEV;
	if (root_missing_type && !report_missing_type)
		return 0;
	if (err)
		pr_warn("vfs: cannot mount %s (%s) as root: %s; going on "
			"without a root\n",
			disk,
			fs,
			err == -ENODEV ? "no such filesystem type"
				       : vfs_strerror(-err));
	else
		pr_info("vfs: mounted %s (%s) on /\n", disk, fs);
	return 0;
}

static int mount_root_init(void)
{
	return mount_root(false);
}
INIT_HOOK(mount_root, mount_root_init, INIT_LEVEL_FS);

static int mount_root_late_init(void)
{
	return root_missing_type ? mount_root(true) : 0;
}
INIT_HOOK(mount_root_late, mount_root_late_init, INIT_LEVEL_LATE);
