/*
 * fs/vfs_special_test.c: suite vfs_special - the special files of the vfs
 * image (tools/vfsimg.py SPECIAL_FILES, made on the host by debugfs):
 * unlinking a character device, a FIFO, a fast and a slow symbolic link
 * frees exactly the blocks each owns.
 *
 * ext2 keeps a block map only for regular files, directories and slow
 * symlinks; a device inode keeps its device number in i_block[0] and a
 * fast symlink its target. /chardev's number is made equal to the number
 * of a block of /big.bin, so freeing it as if it were a block map would
 * release big.bin's block: the post-check's e2fsck -fn reports that
 * (block bitmap differences), and big.bin is read back here after a new
 * file has had the chance to take the block.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <kernel/ktest.h>
#include <mm/kmalloc.h>
#include <fs/internal.h>

#define BIG_SIZE  300000
#define FILL_SIZE (256 * 1024)

/* tools/vfsimg.py big_byte */
static uint8_t big_byte(long i)
{
	return (i * 7 + i / 4096) & 0xff;
}

static void expect_big_intact(struct ktest *t)
{
	uint8_t *buf = kmalloc(BIG_SIZE, GFP_KERNEL);
	int fd = open("/big.bin", O_RDONLY);
	long bad = -1;

	KTEST_ASSERT_NOT_NULL(t, buf);
	KTEST_EXPECT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, read(fd, buf, BIG_SIZE), BIG_SIZE);
	for (long i = 0; i < BIG_SIZE && bad < 0; i++)
		if (buf[i] != big_byte(i))
			bad = i;
	KTEST_EXPECT_EQ(t, bad, -1);
	close(fd);
	kfree(buf);
}

/* Write a file large enough to be offered any block just freed. */
static void fill_and_remove(struct ktest *t)
{
	uint8_t *buf = kzalloc(FILL_SIZE, GFP_KERNEL);
	int fd = open("/t_special_fill", O_WRONLY | O_CREAT | O_TRUNC, 0644);

	KTEST_ASSERT_NOT_NULL(t, buf);
	KTEST_ASSERT_GE(t, fd, 0);
	memset(buf, 0xee, FILL_SIZE);
	KTEST_EXPECT_EQ(t, write(fd, buf, FILL_SIZE), FILL_SIZE);
	KTEST_EXPECT_EQ(t, fsync(fd), 0);
	close(fd);
	kfree(buf);
	KTEST_EXPECT_GE(t, vfs_drop_caches(), 0);
	expect_big_intact(t);
	KTEST_EXPECT_EQ(t, unlink("/t_special_fill"), 0);
}

static void unlink_special_files(struct ktest *t)
{
	static const char *const names[] = {
		"/chardev", "/fifo", "/fastlink", "/slowlink"
	};
	struct stat st;

	KTEST_ASSERT_EQ(t, stat("/chardev", &st), 0);
	KTEST_EXPECT_TRUE(t, S_ISCHR(st.st_mode));
	KTEST_EXPECT_EQ(t, st.st_blocks, 0);
	KTEST_ASSERT_EQ(t, stat("/fifo", &st), 0);
	KTEST_EXPECT_TRUE(t, S_ISFIFO(st.st_mode));
	for (unsigned int i = 0; i < ARRAY_SIZE(names); i++)
		KTEST_EXPECT_EQ(t, unlink(names[i]), 0);
	KTEST_EXPECT_EQ(t, stat("/chardev", &st), -1);
	KTEST_EXPECT_EQ(t, errno, ENOENT);
	sync();
	fill_and_remove(t);
	sync();
}

static struct ktest_case special_cases[] = {
	KTEST_CASE(unlink_special_files),
	{},
};
KTEST_SUITE(vfs_special, special_cases);
