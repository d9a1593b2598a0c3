/*
 * fs/ext2/buffer.c: the metadata block cache.
 *
 * Bitmaps, inode tables, indirect blocks and directory blocks are read and
 * modified through struct ext2_buf, one per filesystem block, keyed by block
 * number, reference counted:
 *
 *   b = ext2_bread(sbi, blk);        // referenced, uptodate, or ERR_PTR
 *   ... modify b->b_data under the lock that owns that metadata ...
 *   ext2_bmark_dirty(b);
 *   ext2_brelse(sbi, b);
 *
 * Dirty buffers stay cached until ext2_bsync_all() (sync_fs, fsync) writes
 * them; unreferenced clean ones sit on an LRU and the oldest are freed past
 * EXT2_BCACHE_MAX_CLEAN. A freed block's buffer is forgotten
 * (ext2_bforget) so it is never written over the block's next owner.
 *
 * Locks: bcache.lock (spinlock) protects the index, the LRU, b_count and
 * b_hashed. b_io_lock (a mutex) serialises the read-in and the writes of
 * one buffer, and ext2_bforget takes it to wait for a write in flight
 * (ext2_bsync_all holds a round's of them, taken by trylock: bwrite_batch);
 * b_uptodate is set under it with release and read with acquire. The contents
 * are protected by whoever owns the metadata (s_alloc_lock for bitmaps,
 * i_map_lock for indirect blocks, the dir's i_rwsem for directory blocks);
 * inode-table blocks are shared, each inode writing only its own slot. b_dirty
 * is set after a change and cleared before the write, so a change racing a
 * write leaves the buffer dirty.
 */
#include <errno.h>
#include <string.h>
#include <drivers/block.h>
#include <kernel/err.h>
#include <kernel/printk.h>
#include <kernel/race.h>
#include <mm/kmalloc.h>
#include "ext2.h"

static DEFINE_LOCK_CLASS(ext2_buf_io_class, EXT2_RANK_BUF);

void ext2_bcache_init(struct ext2_bcache *bc)
{
	spin_lock_init(&bc->lock, "ext2_bcache");
	for (unsigned int i = 0; i < EXT2_BCACHE_HASH; i++)
		list_init(&bc->hash[i]);
	list_init(&bc->lru);
	bc->nr_lru = 0;
}

int ext2_read_blocks(struct ext2_sb_info *sbi,
		     uint32_t blk,
		     void *buf,
		     uint32_t count)
{
	int err = blk_read_sync(sbi->s_bdev,
				(uint64_t)blk * sbi->s_sect_per_block,
				buf,
				count * sbi->s_sect_per_block);

	if (err)
		pr_err("ext2: I/O error %d reading block %u\n", err, blk);
	return err ? -EIO : 0;
}

int ext2_write_blocks(struct ext2_sb_info *sbi,
		      uint32_t blk,
		      const void *buf,
		      uint32_t count)
{
	int err = blk_write_sync(sbi->s_bdev,
				 (uint64_t)blk * sbi->s_sect_per_block,
				 buf,
				 count * sbi->s_sect_per_block);

	if (err)
		pr_err("ext2: I/O error %d writing block %u\n", err, blk);
	return err ? -EIO : 0;
}

static struct list_head *bucket(struct ext2_bcache *bc, uint32_t blk)
{
	return &bc->hash[(blk * 2654435761u) % EXT2_BCACHE_HASH];
}

static struct ext2_buf *lookup_locked(struct ext2_bcache *bc, uint32_t blk)
{
	struct ext2_buf *b;

	list_for_each_entry (b, bucket(bc, blk), b_hash) {
		if (b->b_blocknr == blk)
			return b;
	}
	return NULL;
}

static void buf_free(struct ext2_buf *b)
{
	kfree(b->b_data);
	kfree(b);
}

/* Take a reference on a cached buffer. Caller holds bc->lock. */
static void get_locked(struct ext2_bcache *bc, struct ext2_buf *b)
{
	if (b->b_count++ == 0 && !list_empty(&b->b_lru)) {
		list_del(&b->b_lru);
		list_init(&b->b_lru);
		bc->nr_lru--;
	}
}

static struct ext2_buf *buf_get(struct ext2_sb_info *sbi, uint32_t blk)
{
	struct ext2_bcache *bc = &sbi->s_bcache;
	struct ext2_buf *b, *nb;

	spin_lock(&bc->lock);
	b = lookup_locked(bc, blk);
	if (b) {
		get_locked(bc, b);
		spin_unlock(&bc->lock);
		return b;
	}
	spin_unlock(&bc->lock);

	nb = kzalloc(sizeof(*nb), GFP_KERNEL);
	if (!nb)
		return ERR_PTR(-ENOMEM);
	nb->b_data = kmalloc(sbi->s_sb->s_blocksize, GFP_KERNEL);
	if (!nb->b_data) {
		kfree(nb);
		return ERR_PTR(-ENOMEM);
	}
	nb->b_blocknr = blk;
	nb->b_count = 1;
	nb->b_hashed = true;
	mutex_init(&nb->b_io_lock, "ext2_buf_io", &ext2_buf_io_class);
	list_init(&nb->b_lru);

	spin_lock(&bc->lock);
	b = lookup_locked(bc, blk);
	if (b) {
		get_locked(bc, b);
		spin_unlock(&bc->lock);
		buf_free(nb);
		return b;
	}
	list_add(&nb->b_hash, bucket(bc, blk));
	spin_unlock(&bc->lock);
	return nb;
}

/*
 * b_uptodate is set once, with release, after b_data is filled; it is read
 * with acquire, so a reader that sees it set also sees the data (RISC-V
 * may otherwise let the data loads pass the flag's).
 */
static bool buf_uptodate(struct ext2_buf *b)
{
	return __atomic_load_n(&b->b_uptodate, __ATOMIC_ACQUIRE);
}

static void buf_set_uptodate(struct ext2_buf *b)
{
	__atomic_store_n(&b->b_uptodate, true, __ATOMIC_RELEASE);
}

struct ext2_buf *ext2_bread(struct ext2_sb_info *sbi, uint32_t blk)
{
	struct ext2_buf *b = buf_get(sbi, blk);
	int err = 0;

	if (IS_ERR(b) || buf_uptodate(b))
		return b;
	mutex_lock(&b->b_io_lock);
	if (!buf_uptodate(b)) {
		err = ext2_read_blocks(sbi, blk, b->b_data, 1);
		if (!err)
			buf_set_uptodate(b);
	}
	mutex_unlock(&b->b_io_lock);
	if (err) {
		ext2_brelse(sbi, b);
		return ERR_PTR(err);
	}
	return b;
}

struct ext2_buf *ext2_bget_new(struct ext2_sb_info *sbi, uint32_t blk)
{
	struct ext2_buf *b = buf_get(sbi, blk);

	if (IS_ERR(b))
		return b;
	mutex_lock(&b->b_io_lock);
	memset(b->b_data, 0, sbi->s_sb->s_blocksize);
	buf_set_uptodate(b);
	mutex_unlock(&b->b_io_lock);
	return b;
}

/* Free the oldest unreferenced clean buffers beyond the limit. */
static void shrink_locked(struct ext2_bcache *bc, struct list_head *dead)
{
	struct ext2_buf *b, *n;

	list_for_each_entry_safe (b, n, &bc->lru, b_lru) {
		if (bc->nr_lru <= EXT2_BCACHE_MAX_CLEAN)
			break;
		if (READ_ONCE(b->b_dirty))
			continue;
		list_del(&b->b_lru);
		list_del(&b->b_hash);
		bc->nr_lru--;
		list_add(&b->b_lru, dead);
	}
}

void ext2_brelse(struct ext2_sb_info *sbi, struct ext2_buf *b)
{
	struct ext2_bcache *bc = &sbi->s_bcache;
	struct list_head dead;
	struct ext2_buf *d, *n;

	if (!b)
		return;
	list_init(&dead);
	spin_lock(&bc->lock);
	WARN_ON_ONCE(b->b_count <= 0);
	if (--b->b_count == 0) {
		if (!b->b_hashed) {
			list_add(&b->b_lru, &dead);
		} else {
			list_add_tail(&b->b_lru, &bc->lru);
			bc->nr_lru++;
			shrink_locked(bc, &dead);
		}
	}
	spin_unlock(&bc->lock);
	list_for_each_entry_safe (d, n, &dead, b_lru)
		buf_free(d);
}

void ext2_bmark_dirty(struct ext2_buf *b)
{
	__atomic_store_n(&b->b_dirty, 1, __ATOMIC_RELEASE);
}

/**
 * ext2_bforget - drop block @blk's buffer: the block is being freed
 * A write of its old contents may be in flight (ext2_bsync_all): wait for
 * it under b_io_lock, so that it reaches the disk before the block's next
 * owner can write there, and clear b_dirty so no later write starts.
 * Context: task, may sleep; the caller may hold s_alloc_lock.
 */
void ext2_bforget(struct ext2_sb_info *sbi, uint32_t blk)
{
	struct ext2_bcache *bc = &sbi->s_bcache;
	struct ext2_buf *b;

	spin_lock(&bc->lock);
	b = lookup_locked(bc, blk);
	if (b) {
		list_del(&b->b_hash);
		b->b_hashed = false;
		get_locked(bc, b);
	}
	spin_unlock(&bc->lock);
	if (!b)
		return;
	mutex_lock(&b->b_io_lock);
	__atomic_store_n(&b->b_dirty, 0, __ATOMIC_RELEASE);
	mutex_unlock(&b->b_io_lock);
	ext2_brelse(sbi, b); /* unhashed: the last reference frees it */
}

/* Write @b if dirty. b_io_lock is held across the write: ext2_bforget
 * waits on it. Context: task, may sleep; no other buffer's b_io_lock. */
int ext2_bwrite(struct ext2_sb_info *sbi, struct ext2_buf *b)
{
	int err = 0;

	mutex_lock(&b->b_io_lock);
	if (__atomic_exchange_n(&b->b_dirty, 0, __ATOMIC_ACQ_REL)) {
		race_point(RACE_BUF_WRITE, b);
		err = ext2_write_blocks(sbi, b->b_blocknr, b->b_data, 1);
		if (err)
			ext2_bmark_dirty(b);
	}
	mutex_unlock(&b->b_io_lock);
	return err;
}

/* Collect up to @max referenced dirty buffers. */
static unsigned int
collect_dirty(struct ext2_bcache *bc, struct ext2_buf **v, unsigned int max)
{
	unsigned int n = 0;
	struct ext2_buf *b;

	spin_lock(&bc->lock);
	for (unsigned int i = 0; i < EXT2_BCACHE_HASH && n < max; i++) {
		list_for_each_entry (b, &bc->hash[i], b_hash) {
			if (n == max)
				break;
			if (READ_ONCE(b->b_dirty)) {
				get_locked(bc, b);
				v[n++] = b;
			}
		}
	}
	spin_unlock(&bc->lock);
	return n;
}

/*
 * Write the dirty ones of @v (@n referenced buffers) in one round trip:
 * each one's b_io_lock taken by trylock, nested in order (no lock is
 * waited for while others are held), its dirty flag taken, and all of
 * them handed to the disk together (blk_write_sync_vec), each lock held
 * until the last write is done, as ext2_bwrite holds its one. A buffer
 * whose lock someone else has (its write or its forget in progress) is
 * written after the others, by ext2_bwrite, which waits for it. On an
 * error every buffer of the round is dirty again.
 */
static int
bwrite_batch(struct ext2_sb_info *sbi, struct ext2_buf **v, unsigned int n)
{
	struct ext2_buf *held[EXT2_BSYNC_BATCH], *busy[EXT2_BSYNC_BATCH];
	struct ext2_buf *sent[EXT2_BSYNC_BATCH];
	struct blk_wseg seg[EXT2_BSYNC_BATCH];
	unsigned int nheld = 0, nbusy = 0, nsent = 0;
	int err = 0;

	for (unsigned int i = 0; i < n; i++) {
		struct ext2_buf *b = v[i];

		if (!mutex_trylock_nested(&b->b_io_lock, nheld)) {
			busy[nbusy++] = b;
			continue;
		}
		held[nheld++] = b;
		if (!__atomic_exchange_n(&b->b_dirty, 0, __ATOMIC_ACQ_REL))
			continue;
		race_point(RACE_BUF_WRITE, b);
		seg[nsent] = (struct blk_wseg){ (uint64_t)b->b_blocknr *
						    sbi->s_sect_per_block,
						b->b_data,
						sbi->s_sect_per_block };
		sent[nsent++] = b;
	}
	if (nsent && blk_write_sync_vec(sbi->s_bdev, seg, nsent)) {
		pr_err("ext2: I/O error writing %u metadata blocks (block %u "
		       "first)\n",
		       nsent,
		       sent[0]->b_blocknr);
		for (unsigned int i = 0; i < nsent; i++)
			ext2_bmark_dirty(sent[i]);
		err = -EIO;
	}
	while (nheld)
		mutex_unlock(&held[--nheld]->b_io_lock);
	for (unsigned int i = 0; i < nbusy; i++) {
		int e = ext2_bwrite(sbi, busy[i]);

		err = err ?: e;
	}
	return err;
}

int ext2_bsync_all(struct ext2_sb_info *sbi)
{
	/* A round's blocks fit blk_write_sync_vec's bounce. */
	unsigned int max =
	    MIN((unsigned int)EXT2_BSYNC_BATCH,
		BLK_WRITE_VEC_MAX_BYTES >> sbi->s_sb->s_blocksize_bits);
	struct ext2_buf *v[EXT2_BSYNC_BATCH];
	unsigned int n;
	int err = 0;

	/* Each round writes what it collected, so no buffer is found twice
	 * unless it was dirtied again meanwhile; a failing write ends it. */
	while (!err && (n = collect_dirty(&sbi->s_bcache, v, max)) > 0) {
		err = bwrite_batch(sbi, v, n);
		for (unsigned int i = 0; i < n; i++)
			ext2_brelse(sbi, v[i]);
	}
	return err;
}

void ext2_bcache_destroy(struct ext2_sb_info *sbi)
{
	struct ext2_bcache *bc = &sbi->s_bcache;
	struct ext2_buf *b, *n;

	for (unsigned int i = 0; i < EXT2_BCACHE_HASH; i++) {
		list_for_each_entry_safe (b, n, &bc->hash[i], b_hash) {
			WARN_ON_ONCE(b->b_count);
			list_del(&b->b_hash);
			buf_free(b);
		}
	}
	list_init(&bc->lru);
	bc->nr_lru = 0;
}
