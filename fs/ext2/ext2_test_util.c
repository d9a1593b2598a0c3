/*
 * fs/ext2/ext2_test_util.c: file helpers for ext2's suites (ext2_test.h),
 * through the VFS calls the rest of the kernel uses.
 */
#include <errno.h>
#include <fcntl.h>
#include <kernel/err.h>
#include <mm/kmalloc.h>
#include <fs/vfs.h>
#include "ext2_test.h"

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
