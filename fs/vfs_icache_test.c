/*
 * fs/vfs_icache_test.c: suite vfs_icache - memory pressure shrinks the
 * inode cache.
 *
 * Rule (fs/inode.c): a clean inode that nobody references stays cached
 * only until memory is short; reclaim, which the page allocator calls when
 * it runs out, destroys such inodes (with their page cache). The case
 * fills the cache with NFILES unreferenced, clean (synced) inodes, calls
 * reclaim as the allocator does, and expects them gone from the cache;
 * the files still read back, from disk.
 *
 * Rule: creating an inode whose number an evicted inode still holds in
 * the hash waits until that one is gone, and judges it by what it saw
 * under inode_hash_lock - never by the old inode after dropping the lock,
 * when it may already be freed and its memory reused.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#include <string.h>
#include <kernel/ktest.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <kernel/wait.h>
#include <mm/kmalloc.h>
#include <mm/filemap.h>
#include <fs/internal.h>

#define NFILES 48
#define DIR    "/t_icache"

static void name_of(char *buf, size_t len, int i)
{
	snprintf(buf, len, DIR "/f%02d", i);
}

static void reclaim_prunes_unused_inodes(struct ktest *t)
{
	unsigned long before;
	char path[32], c;
	int fd;

	KTEST_ASSERT_EQ(t, mkdir(DIR, 0755), 0);
	for (int i = 0; i < NFILES; i++) {
		name_of(path, sizeof(path), i);
		fd = open(path, O_WRONLY | O_CREAT, 0644);
		KTEST_ASSERT_GE(t, fd, 0);
		KTEST_EXPECT_EQ(t, write(fd, "x", 1), 1);
		close(fd);
	}
	sync(); /* clean: reclaim drops only clean inodes */
	before = icache_unused();
	KTEST_EXPECT_GE(t, before, NFILES);
	reclaim_pages(ULONG_MAX / 4);
	KTEST_EXPECT_LE(t, icache_unused() + NFILES, before);
	for (int i = 0; i < NFILES; i++) {
		name_of(path, sizeof(path), i);
		fd = open(path, O_RDONLY);
		KTEST_EXPECT_GE(t, fd, 0);
		KTEST_EXPECT_EQ(t, read(fd, &c, 1), 1);
		KTEST_EXPECT_EQ(t, c, 'x');
		close(fd);
		KTEST_EXPECT_EQ(t, unlink(path), 0);
	}
	KTEST_EXPECT_EQ(t, rmdir(DIR), 0);
}

/* A superblock of no filesystem: its evict_inode stops the first
 * eviction until the test lets it go, its destroy_inode wipes the inode
 * before freeing it (as a reuse of the memory would). */
static struct completion evict_in, evict_go;
static bool evict_hold, destroyed; /* destroyed: atomic */

static void hold_evict(struct inode *inode)
{
	(void)inode;
	if (!evict_hold)
		return;
	evict_hold = false;
	complete(&evict_in);
	wait_for_completion(&evict_go);
}

static void wipe_destroy(struct inode *inode)
{
	memset(inode, 0, sizeof(*inode));
	kfree(inode);
	__atomic_store_n(&destroyed, true, __ATOMIC_RELEASE);
}

static const struct super_operations held_sops = {
	.evict_inode = hold_evict,
	.destroy_inode = wipe_destroy,
};

static int evict_task(void *arg)
{
	iput(arg); /* the last reference, no link: evicted */
	return 0;
}

static bool is_destroyed(void *arg)
{
	(void)arg;
	return __atomic_load_n(&destroyed, __ATOMIC_ACQUIRE);
}

/* At RACE_NEW_INODE_OLD: the old inode goes and is wiped. */
static void finish_old(void *obj)
{
	(void)obj;
	complete(&evict_go);
	race_wait_until(is_destroyed, NULL);
}

static void new_inode_outlives_old_one(struct ktest *t)
{
	struct super_block *sb = kzalloc(sizeof(*sb), GFP_KERNEL);
	unsigned long warns = warn_count();
	struct inode *old, *fresh;
	struct task *e;

	KTEST_ASSERT_NOT_NULL(t, sb);
	sb->s_op = &held_sops;
	spin_lock_init(&sb->s_inode_lock, "s_inode_lock");
	list_init(&sb->s_inodes);
	list_init(&sb->s_dirty);
	init_completion(&evict_in);
	init_completion(&evict_go);
	old = new_inode(sb, 7);
	KTEST_ASSERT_FALSE(t, IS_ERR_OR_NULL(old));
	evict_hold = true;
	destroyed = false;
	e = task_create("t_evict", evict_task, old);
	KTEST_ASSERT_FALSE(t, IS_ERR(e));
	wait_for_completion(&evict_in); /* hashed, I_FREEING, held */
	race_hook_set(RACE_NEW_INODE_OLD, finish_old);
	fresh = new_inode(sb, 7);
	race_hook_set(RACE_NEW_INODE_OLD, NULL);
	KTEST_EXPECT_EQ(t, task_join(e), 0);
	KTEST_EXPECT_TRUE(t, is_destroyed(NULL));
	KTEST_ASSERT_FALSE(t, IS_ERR_OR_NULL(fresh));
	KTEST_EXPECT_EQ(t, fresh->i_ino, 7);
	KTEST_EXPECT_EQ(t, warn_count(), warns);
	destroyed = false;
	iput(fresh);
	KTEST_EXPECT_TRUE(t, is_destroyed(NULL));
	kfree(sb);
}

static struct ktest_case icache_cases[] = {
	KTEST_CASE(reclaim_prunes_unused_inodes),
	KTEST_CASE(new_inode_outlives_old_one),
	{},
};
KTEST_SUITE(vfs_icache, icache_cases);
