/*
 * fs/ext2/ext2_buffer_test.c: suite ext2_buffer - the metadata block cache
 * (fs/ext2/buffer.c) on the root ext2 of the ext2 boots.
 *
 * forget_waits_for_write: a freed block's buffer can be in the middle of
 * being written by ext2_bsync_all. The interleaving is forced: the sync
 * task stops at RACE_BUF_WRITE (dirty flag taken, write not started) on
 * the test's block; only then the test frees the block and writes the
 * next owner's bytes to it directly; the sync holds until that write is
 * done (the bug) or the test waits for the buffer's b_io_lock, which the
 * sync holds (mutex_nr_waiters), before its own write. On disk the next
 * owner's bytes must be what stays (read back with the block cache
 * bypassed). Had ext2_bforget not waited for the write in flight, the
 * stale buffer would land last. (Before, the sync waited 100 ms for that
 * write: a host that did not run the test that long let the bug pass.)
 *
 * bsync_one_round_trip: ext2_bsync_all hands a round's dirty buffers to
 * the disk together. BSYNC_BUFS dirty buffers (nothing else dirty); at
 * each one's RACE_BUF_WRITE (dirty flag taken, write not started) the
 * disk's count of writes is taken: it must not move between the first
 * and the last, as it would if each write were waited for before the
 * next was taken. Then each block's bytes are on disk.
 *
 * bsync_waits_for_busy_buffer: a dirty buffer whose b_io_lock another
 * task holds is written after that task lets go, and the sync returns
 * only then; the round's other buffers did not wait for it.
 *
 * data_run_stops_at_metadata: the run bound of fs/ext2/super.c.
 */
#include <string.h>
#include <drivers/block.h>
#include <kernel/err.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <kernel/time.h>
#include <mm/kmalloc.h>
#include "ext2.h"
#include "ext2_test.h"

#define OLD_BYTE  0x0d
#define NEXT_BYTE 0x4e

struct forget_race {
	struct ext2_sb_info *sbi;
	uint32_t blk;
	bool in_write;	   /* the sync holds at the race point */
	bool next_written; /* the next owner's bytes are on disk */
	bool hook_ran;
	bool forget_waits; /* someone waits for the buffer's b_io_lock */
	int sync_err;
};

static struct forget_race *race;

static void hold_buffer_write(void *obj)
{
	struct forget_race *r = race;
	struct ext2_buf *b = obj;
	uint64_t end = time_ns() + RACE_TIMEOUT_MS * NSEC_PER_MSEC;

	if (!r || b->b_blocknr != r->blk)
		return;
	r->hook_ran = true;
	__atomic_store_n(&r->in_write, true, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&r->next_written, __ATOMIC_ACQUIRE) &&
	       !mutex_nr_waiters(&b->b_io_lock) && time_ns() < end)
		task_sleep_ms(1);
	r->forget_waits = mutex_nr_waiters(&b->b_io_lock) > 0;
}

static bool sync_in_write(void *arg)
{
	return __atomic_load_n(&((struct forget_race *)arg)->in_write,
			       __ATOMIC_ACQUIRE);
}

static int sync_task(void *arg)
{
	struct forget_race *r = arg;

	r->sync_err = ext2_bsync_all(r->sbi);
	return 0;
}

/* A block whose buffer is dirty with OLD_BYTE and not yet written. */
static int
dirty_new_block(struct ktest *t, struct inode *owner, struct forget_race *r)
{
	struct ext2_buf *b;

	KTEST_EXPECT_EQ(t, ext2_new_block(owner, 0, &r->blk), 0);
	if (t->failed)
		return -1;
	b = ext2_bget_new(r->sbi, r->blk);
	KTEST_EXPECT_FALSE(t, IS_ERR(b));
	if (IS_ERR(b))
		return -1;
	memset(b->b_data, OLD_BYTE, owner->i_sb->s_blocksize);
	ext2_bmark_dirty(b);
	ext2_brelse(r->sbi, b);
	return 0;
}

static void forget_waits_for_write(struct ktest *t)
{
	struct super_block *sb = vfs_root_sb();
	struct forget_race r = { 0 };
	struct task *sync;
	uint8_t *buf;
	size_t bs;

	KTEST_ASSERT_NOT_NULL(t, sb);
	bs = sb->s_blocksize;
	r.sbi = EXT2_SBI(sb);
	buf = kmalloc(bs, GFP_KERNEL);
	KTEST_ASSERT_NOT_NULL(t, buf);
	KTEST_ASSERT_EQ(t, dirty_new_block(t, sb->s_root, &r), 0);
	race = &r;
	race_hook_set(RACE_BUF_WRITE, hold_buffer_write);
	sync = task_create("bsync", sync_task, &r);
	KTEST_ASSERT_FALSE(t, IS_ERR(sync));
	KTEST_ASSERT_EQ(t, race_wait_until(sync_in_write, &r), 0);
	ext2_free_blocks(sb->s_root, r.blk, 1);
	memset(buf, NEXT_BYTE, bs);
	KTEST_EXPECT_EQ(t, ext2_write_blocks(r.sbi, r.blk, buf, 1), 0);
	__atomic_store_n(&r.next_written, true, __ATOMIC_RELEASE);
	KTEST_EXPECT_EQ(t, task_join(sync), 0);
	race_hook_set(RACE_BUF_WRITE, NULL);
	race = NULL;
	KTEST_EXPECT_TRUE(t, r.hook_ran);
	KTEST_EXPECT_TRUE(t, r.forget_waits);
	KTEST_EXPECT_EQ(t, r.sync_err, 0);
	memset(buf, 0, bs);
	KTEST_EXPECT_EQ(t, ext2_read_blocks(r.sbi, r.blk, buf, 1), 0);
	KTEST_EXPECT_EQ(t, buf[0], NEXT_BYTE);
	KTEST_EXPECT_EQ(t, buf[bs - 1], NEXT_BYTE);
	kfree(buf);
}

#define BSYNC_BUFS 8

struct bsync_probe {
	uint32_t blk[BSYNC_BUFS];
	unsigned long writes[BSYNC_BUFS]; /* the disk's, at each race point */
	unsigned int seen;
	struct block_device *bdev;
};

static struct bsync_probe *probe;

static void note_buffer_write(void *obj)
{
	struct ext2_buf *b = obj;

	for (unsigned int i = 0; probe && i < BSYNC_BUFS; i++)
		if (b->b_blocknr == probe->blk[i] && probe->seen < BSYNC_BUFS)
			probe->writes[probe->seen++] = __atomic_load_n(
			    &probe->bdev->stats.writes, __ATOMIC_RELAXED);
}

/* @n new blocks, zeroed on disk, everything else written: then each
 * block's buffer made dirty with the byte 0x30 + its index. */
static bool dirty_new_blocks(struct ktest *t,
			     struct ext2_sb_info *sbi,
			     uint32_t *blk,
			     int n)
{
	struct super_block *sb = sbi->s_sb;
	uint8_t *zero = kzalloc(sb->s_blocksize, GFP_KERNEL);

	KTEST_EXPECT_NOT_NULL(t, zero);
	for (int i = 0; zero && i < n; i++) {
		KTEST_EXPECT_EQ(t, ext2_new_block(sb->s_root, 0, &blk[i]), 0);
		if (t->failed)
			break;
		KTEST_EXPECT_EQ(t, ext2_write_blocks(sbi, blk[i], zero, 1), 0);
	}
	kfree(zero);
	if (t->failed)
		return false;
	KTEST_EXPECT_EQ(t, ext2_bsync_all(sbi), 0); /* the bitmaps, ... */
	for (int i = 0; i < n; i++) {
		struct ext2_buf *b = ext2_bget_new(sbi, blk[i]);

		KTEST_EXPECT_FALSE(t, IS_ERR(b));
		if (IS_ERR(b))
			return false;
		memset(b->b_data, 0x30 + i, sb->s_blocksize);
		ext2_bmark_dirty(b);
		ext2_brelse(sbi, b);
	}
	return !t->failed;
}

/* Block @blk as the disk has it starts and ends with @byte. */
static void expect_on_disk(struct ktest *t,
			   struct ext2_sb_info *sbi,
			   uint32_t blk,
			   int byte)
{
	size_t bs = sbi->s_sb->s_blocksize;
	uint8_t *buf = kzalloc(bs, GFP_KERNEL);

	KTEST_ASSERT_NOT_NULL(t, buf);
	KTEST_EXPECT_EQ(t, ext2_read_blocks(sbi, blk, buf, 1), 0);
	KTEST_EXPECT_EQ(t, buf[0], byte);
	KTEST_EXPECT_EQ(t, buf[bs - 1], byte);
	kfree(buf);
}

static void free_blocks(struct super_block *sb, const uint32_t *blk, int n)
{
	for (int i = 0; i < n; i++)
		if (blk[i])
			ext2_free_blocks(sb->s_root, blk[i], 1);
}

static void bsync_one_round_trip(struct ktest *t)
{
	struct super_block *sb = vfs_root_sb();
	struct bsync_probe p = { 0 };
	struct ext2_sb_info *sbi;

	KTEST_ASSERT_NOT_NULL(t, sb);
	sbi = EXT2_SBI(sb);
	p.bdev = sbi->s_bdev;
	if (dirty_new_blocks(t, sbi, p.blk, BSYNC_BUFS)) {
		probe = &p;
		race_hook_set(RACE_BUF_WRITE, note_buffer_write);
		KTEST_EXPECT_EQ(t, ext2_bsync_all(sbi), 0);
		race_hook_set(RACE_BUF_WRITE, NULL);
		probe = NULL;
		KTEST_EXPECT_EQ(t, p.seen, BSYNC_BUFS);
		for (unsigned int i = 1; i < p.seen; i++)
			KTEST_EXPECT_EQ(t, p.writes[i], p.writes[0]);
		for (int i = 0; i < BSYNC_BUFS; i++)
			expect_on_disk(t, sbi, p.blk[i], 0x30 + i);
	}
	free_blocks(sb, p.blk, BSYNC_BUFS);
}

struct busy_sync {
	struct ext2_sb_info *sbi;
	int err;
};

static int busy_sync_task(void *arg)
{
	struct busy_sync *bs = arg;

	bs->err = ext2_bsync_all(bs->sbi);
	return 0;
}

static bool someone_waits(void *b)
{
	return mutex_nr_waiters(&((struct ext2_buf *)b)->b_io_lock) > 0;
}

static void bsync_waits_for_busy_buffer(struct ktest *t)
{
	struct super_block *sb = vfs_root_sb();
	struct busy_sync bs = { 0 };
	uint32_t blk[2] = { 0 };
	struct ext2_buf *x;
	struct task *sync;

	KTEST_ASSERT_NOT_NULL(t, sb);
	bs.sbi = EXT2_SBI(sb);
	if (!dirty_new_blocks(t, bs.sbi, blk, 2))
		goto out;
	x = ext2_bread(bs.sbi, blk[0]); /* cached: the dirty one */
	KTEST_ASSERT_FALSE(t, IS_ERR(x));
	mutex_lock(&x->b_io_lock);
	sync = task_create("bsync", busy_sync_task, &bs);
	KTEST_EXPECT_FALSE(t, IS_ERR(sync));
	if (!IS_ERR(sync)) {
		KTEST_EXPECT_EQ(t, race_wait_until(someone_waits, x), 0);
		expect_on_disk(t, bs.sbi, blk[1], 0x31); /* did not wait */
		expect_on_disk(t, bs.sbi, blk[0], 0);	 /* not yet written */
	}
	mutex_unlock(&x->b_io_lock);
	if (!IS_ERR(sync))
		KTEST_EXPECT_EQ(t, task_join(sync), 0);
	ext2_brelse(bs.sbi, x);
	KTEST_EXPECT_EQ(t, bs.err, 0);
	expect_on_disk(t, bs.sbi, blk[0], 0x30);
out:
	free_blocks(sb, blk, 2);
}

/* ext2_data_run, which bounds a run of new or mapped blocks, stops where
 * ext2_data_blocks_valid would: it gives 0 on a group's bitmaps and inode
 * table, and a run from just past group 0's inode table ends at group
 * 1's superblock (or the end of the device). */
static void data_run_stops_at_metadata(struct ktest *t)
{
	struct super_block *sb = vfs_root_sb();
	struct ext2_sb_info *sbi;
	uint32_t data, end;

	KTEST_ASSERT_NOT_NULL(t, sb);
	sbi = EXT2_SBI(sb);
	for (uint32_t g = 0; g < sbi->s_groups_count; g++) {
		KTEST_EXPECT_EQ(
		    t,
		    ext2_data_run(
			sbi, ext2_gd_block(sbi, g, EXT2_GD_BLOCK_BITMAP), 8),
		    0);
		KTEST_EXPECT_EQ(
		    t,
		    ext2_data_run(
			sbi, ext2_gd_block(sbi, g, EXT2_GD_INODE_BITMAP), 8),
		    0);
		KTEST_EXPECT_EQ(
		    t,
		    ext2_data_run(
			sbi, ext2_gd_block(sbi, g, EXT2_GD_INODE_TABLE), 8),
		    0);
	}
	end = sbi->s_groups_count > 1
		  ? sbi->s_first_data_block + sbi->s_blocks_per_group
		  : sbi->s_blocks_count;
	/* after the last inode table in group 0 (flex_bg puts a flex
	 * group's tables one after the other there) */
	data = 0;
	for (uint32_t g = 0; g < sbi->s_groups_count; g++) {
		uint32_t it = ext2_gd_block(sbi, g, EXT2_GD_INODE_TABLE);

		if (it < end)
			data = MAX(data, it + sbi->s_itb_per_group);
	}
	KTEST_EXPECT_EQ(t, ext2_data_run(sbi, data, UINT32_MAX), end - data);
	KTEST_EXPECT_EQ(t, ext2_data_run(sbi, data, 5), 5);
	KTEST_EXPECT_EQ(t, ext2_data_run(sbi, sbi->s_blocks_count - 3, 100), 3);
	KTEST_EXPECT_EQ(t, ext2_data_run(sbi, sbi->s_blocks_count, 4), 0);
}

static struct ktest_case buffer_cases[] = {
	KTEST_CASE(forget_waits_for_write),
	KTEST_CASE(bsync_one_round_trip),
	KTEST_CASE(bsync_waits_for_busy_buffer),
	KTEST_CASE(data_run_stops_at_metadata),
	{},
};
KTEST_SUITE(ext2_buffer, buffer_cases);
