/*
 * fs/ext2/ext2_test_util.c: file helpers for ext2's suites (ext2_test.h),
 * through the VFS calls the rest of the kernel uses.
 */
#include <errno.h>
#include <fcntl.h>
#include <kernel/err.h>
#include <mm/filemap.h>
#include <mm/kmalloc.h>
#include <fs/vfs.h>
#include <string.h>
#include <unistd.h>
#include "ext2.h"
#include "ext2_test.h"
#include "ext4_test.h"

#define CHUNK 4096

int ext2_test_write(const char *path,
		    unsigned int seed,
		    uint64_t pos,
		    uint64_t len)
{
	struct file *f = vfs_open(path, O_WRONLY | O_CREAT, 0644);
	uint8_t *buf;
	int err = 0;

	if (IS_ERR(f))
		return PTR_ERR(f);
	buf = kmalloc(CHUNK, GFP_KERNEL);
	if (!buf) {
		fput(f);
		return -ENOMEM;
	}
	while (len && !err) {
		size_t n = MIN((uint64_t)CHUNK, len);
		loff_t p = pos;
		ssize_t w;

		for (size_t i = 0; i < n; i++)
			buf[i] = ext2_test_pattern(seed, pos + i);
		w = vfs_write(f, buf, n, &p);
		if (w != (ssize_t)n)
			err = w < 0 ? (int)w : -EIO;
		pos += n;
		len -= n;
	}
	kfree(buf);
	fput(f);
	return err;
}

bool ext2_test_check(
    struct ktest *t, const char *path, int seed, uint64_t pos, uint64_t len)
{
	struct file *f = vfs_open(path, O_RDONLY, 0);
	uint8_t *buf;
	bool ok = true;

	if (IS_ERR(f)) {
		ktest_fail(
		    t, __FILE__, __LINE__, "open %s: %ld", path, PTR_ERR(f));
		return false;
	}
	buf = kmalloc(CHUNK, GFP_KERNEL);
	while (buf && len && ok) {
		size_t n = MIN((uint64_t)CHUNK, len);
		loff_t p = pos;
		ssize_t r = vfs_read(f, buf, n, &p);

		if (r != (ssize_t)n) {
			ktest_fail(t,
				   __FILE__,
				   __LINE__,
				   "read %s at %llu: %zd of %zu",
				   path,
				   (unsigned long long)pos,
				   r,
				   n);
			ok = false;
			break;
		}
		for (size_t i = 0; i < n; i++) {
			uint8_t want =
			    seed < 0 ? 0 : ext2_test_pattern(seed, pos + i);

			if (buf[i] != want) {
				ktest_fail(t,
					   __FILE__,
					   __LINE__,
					   "%s byte %llu: %#x, want %#x",
					   path,
					   (unsigned long long)(pos + i),
					   buf[i],
					   want);
				ok = false;
				break;
			}
		}
		pos += n;
		len -= n;
	}
	kfree(buf);
	/* The reads may have queued a window for the readahead worker, which
	 * holds the inode until it is read: a test that unlinks the file next
	 * and counts free blocks would find them still in use. */
	readahead_wait(f->f_mapping);
	fput(f);
	return ok && buf;
}

long long ext2_test_size(const char *path)
{
	struct inode *inode = vfs_lookup(path);
	long long size;

	if (IS_ERR(inode))
		return PTR_ERR(inode);
	size = READ_ONCE(inode->i_size);
	iput(inode);
	return size;
}

struct ext2_sb_info *ext2_test_sbi(struct ktest *t)
{
	struct super_block *sb = vfs_root_sb();

	KTEST_ASSERT_NOT_NULL(t, sb);
	return EXT2_SBI(sb);
}

uint64_t ext2_test_bsize(struct ktest *t)
{
	return ext2_test_sbi(t)->s_sb->s_blocksize;
}

long long ext2_test_iblocks(const char *path)
{
	struct inode *inode = vfs_lookup(path);
	long long n;

	if (IS_ERR(inode))
		return -1;
	n = inode->i_blocks;
	iput(inode);
	return n;
}

uint32_t ext2_test_free_blocks(struct ktest *t)
{
	return READ_ONCE(ext2_test_sbi(t)->s_es.s_free_blocks_count);
}

/*
 * The rule for i_blocks (512-byte units), for an ext2 (indirect-mapped)
 * file: the data blocks of @r plus the indirect blocks they need: the
 * single-indirect one if any block lies in 12 .. 12 + apb - 1, the
 * double-indirect one and one child per apb blocks in use past that (apb
 * = blocksize / 4; no triple here). For an extent-mapped file (ext4):
 * the data blocks of @r, written or unwritten, plus one per node of its
 * tree outside the inode (tree_of walks it), which must map exactly the
 * blocks of @r.
 */
long long ext2_test_rule_blocks(struct ktest *t,
				const char *path,
				const struct brun *r,
				unsigned int nr)
{
	uint64_t bs = ext2_test_bsize(t), apb = bs / 4, dind = 12 + apb;
	uint64_t data = 0, meta = 0, last_child = UINT64_MAX;
	bool single = false, dbl = false;

	for (unsigned int i = 0; i < nr; i++) {
		for (uint64_t b = r[i].start; b < r[i].end; b++, data++) {
			KTEST_ASSERT_LT(t, b, dind + apb * apb);
			single |= b >= 12 && b < dind;
			if (b >= dind && (b - dind) / apb != last_child) {
				dbl = true;
				last_child = (b - dind) / apb;
				meta++;
			}
		}
	}
	if (ext2_test_extents(t, path)) {
		struct tree_info ti = tree_of(t, path);

		KTEST_EXPECT_EQ(t, ti.blocks, data);
		return (long long)((data + ti.nodes) * (bs / 512));
	}
	return (long long)((data + meta + single + dbl) * (bs / 512));
}

bool ext2_test_extents(struct ktest *t, const char *path)
{
	struct inode *inode = vfs_lookup(path);
	bool extents;

	KTEST_ASSERT_FALSE(t, IS_ERR_OR_NULL(inode));
	extents = ext2_has_extents(inode);
	iput(inode);
	return extents;
}

uint64_t ext2_test_max_blocks(struct ktest *t, const char *path)
{
	struct inode *inode = vfs_lookup(path);
	uint64_t max;

	KTEST_ASSERT_FALSE(t, IS_ERR_OR_NULL(inode));
	max = ext2_inode_max_blocks(inode);
	iput(inode);
	return max;
}

int ext2_test_fallocate(
    const char *path, int flags, int mode, off_t off, off_t len)
{
	int fd = open(path, flags), ret;

	if (fd < 0)
		return -errno;
	ret = fallocate(fd, mode, off, len) ? -errno : 0;
	close(fd);
	return ret;
}

void ext2_test_check_moved(struct ktest *t,
			   const char *f,
			   unsigned int seed,
			   uint64_t pos,
			   uint64_t len,
			   int64_t shift)
{
	uint8_t buf[256];
	int fd = open(f, O_RDONLY);

	KTEST_ASSERT_GE(t, fd, 0);
	for (uint64_t done = 0; done < len;) {
		size_t n = MIN(sizeof(buf), len - done);
		ssize_t r = pread(fd, buf, n, pos + done);

		KTEST_EXPECT_EQ(t, r, (ssize_t)n);
		for (size_t i = 0; r == (ssize_t)n && i < n; i++) {
			uint8_t want =
			    ext2_test_pattern(seed, pos + done + i + shift);
			if (buf[i] != want) {
				KTEST_EXPECT_EQ(t, buf[i], want);
				ktest_log(t,
					  "at %llu",
					  (unsigned long long)(pos + done + i));
				done = len;
				break;
			}
		}
		done += n;
	}
	close(fd);
}
