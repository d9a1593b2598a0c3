/*
 * fs/vfs_test.c: the VFS and its POSIX calls on the root ext2.
 *
 * The boots vfs_4k and vfs_1k (tools/boots.py) mount an image made by
 * tools/vfsimg.py from a known folder:
 *   /hello.txt "hello, world\n"   /empty   /dir/a.txt "a\n"
 *   /dir/sub/b.txt "bee\n"        /big.bin 300000 bytes of big_byte(i)
 *   /cksums.txt  the host's `cksum` lines for those files
 * Each case cleans up what it makes, except vfs_persist, whose file the
 * post-check reads back with debugfs (after e2fsck finds the image clean).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/cpu.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <kernel/time.h>
#include <fs/internal.h>
#include <mm/filemap.h>
#include <fs/vfs_test.h>

#define BIG_SIZE 300000

static uint8_t big_byte(long i)
{
	return (i * 7 + i / 4096) & 0xff;
}

/* ---- vfs_namei ---- */

static void namei_walk(struct ktest *t)
{
	char buf[32];
	struct stat st, root;

	need_root(t);
	KTEST_EXPECT_EQ(t, read_file("/hello.txt", buf, sizeof(buf)), 13);
	KTEST_EXPECT_EQ(t, read_file("hello.txt", buf, sizeof(buf)), 13);
	KTEST_EXPECT_EQ(t, read_file("//dir///a.txt", buf, sizeof(buf)), 2);
	KTEST_EXPECT_EQ(
	    t, read_file("/dir/./sub/../a.txt", buf, sizeof(buf)), 2);
	KTEST_EXPECT_EQ(t, read_file("/../../hello.txt", buf, sizeof(buf)), 13);
	KTEST_EXPECT_EQ(t, read_file("/dir/sub/../../hello.txt", buf, 32), 13);
	KTEST_ASSERT_EQ(t, stat("/", &root), 0);
	KTEST_EXPECT_EQ(t, stat("/dir/..", &st), 0);
	KTEST_EXPECT_EQ(t, st.st_ino, root.st_ino);
	KTEST_EXPECT_EQ(t, stat("/dir/sub/", &st), 0);
	KTEST_EXPECT_TRUE(t, S_ISDIR(st.st_mode));
}

static void namei_errors(struct ktest *t)
{
	char name[300], buf[8];
	struct stat st;

	need_root(t);
	EXPECT_ERRNO(t, stat("", &st), ENOENT);
	EXPECT_ERRNO(t, stat("/nonexistent", &st), ENOENT);
	EXPECT_ERRNO(t, stat("/nonexistent/x", &st), ENOENT);
	EXPECT_ERRNO(t, stat("/hello.txt/x", &st), ENOTDIR);
	EXPECT_ERRNO(t, stat("/hello.txt/", &st), ENOTDIR);
	EXPECT_ERRNO(t, stat("/hello.txt/..", &st), ENOTDIR);
	EXPECT_ERRNO(t, read_file("/dir/a.txt/", buf, 8) < 0 ? -1 : 0, ENOTDIR);
	memset(name, 'x', 256);
	name[0] = '/';
	name[257] = '\0';
	name[256] = 'x';
	EXPECT_ERRNO(t, stat(name, &st), ENAMETOOLONG);
	EXPECT_ERRNO(t, open(name, O_CREAT | O_WRONLY, 0644), ENAMETOOLONG);
	name[256] = '\0'; /* 255 characters: fine, and absent */
	EXPECT_ERRNO(t, stat(name, &st), ENOENT);
}

static void namei_icache(struct ktest *t)
{
	struct inode *a, *b;

	need_root(t);
	a = vfs_lookup("/dir/sub/b.txt");
	KTEST_ASSERT_FALSE(t, IS_ERR(a));
	b = vfs_lookup("/dir/../dir/sub/./b.txt");
	KTEST_EXPECT_TRUE(t, a == b);
	KTEST_EXPECT_EQ(t, a->i_size, 4);
	if (!IS_ERR(b))
		iput(b);
	iput(a);
	/* Unreferenced now: it can be pruned and read again. */
	prune_icache(vfs_root_sb(), ~0UL);
	a = vfs_lookup("/dir/sub/b.txt");
	KTEST_ASSERT_FALSE(t, IS_ERR(a));
	KTEST_EXPECT_EQ(t, a->i_size, 4);
	iput(a);
}

static struct ktest_case namei_cases[] = {
	KTEST_CASE(namei_walk),
	KTEST_CASE(namei_errors),
	KTEST_CASE(namei_icache),
	{},
};
KTEST_SUITE(vfs_namei, namei_cases);

/* ---- vfs_file ---- */

static void file_read_seek(struct ktest *t)
{
	char buf[16] = { 0 };
	int fd;

	need_root(t);
	fd = open("/hello.txt", O_RDONLY);
	KTEST_ASSERT_GE(t, fd, 3);
	KTEST_EXPECT_EQ(t, read(fd, buf, 5), 5);
	KTEST_EXPECT_MEMEQ(t, buf, "hello", 5);
	KTEST_EXPECT_EQ(t, read(fd, buf, 16), 8);
	KTEST_EXPECT_MEMEQ(t, buf, ", world\n", 8);
	KTEST_EXPECT_EQ(t, read(fd, buf, 16), 0);
	KTEST_EXPECT_EQ(t, lseek(fd, 0, SEEK_CUR), 13);
	KTEST_EXPECT_EQ(t, lseek(fd, -6, SEEK_END), 7);
	KTEST_EXPECT_EQ(t, read(fd, buf, 5), 5);
	KTEST_EXPECT_MEMEQ(t, buf, "world", 5);
	KTEST_EXPECT_EQ(t, lseek(fd, 2, SEEK_SET), 2);
	KTEST_EXPECT_EQ(t, lseek(fd, 100, SEEK_SET), 100);
	KTEST_EXPECT_EQ(t, read(fd, buf, 16), 0);
	EXPECT_ERRNO(t, lseek(fd, -1, SEEK_SET), EINVAL);
	EXPECT_ERRNO(t, lseek(fd, 0, 42), EINVAL);
	KTEST_EXPECT_EQ(t, lseek(fd, 0, SEEK_DATA), 0);
	KTEST_EXPECT_EQ(t, lseek(fd, 0, SEEK_HOLE), 13);
	EXPECT_ERRNO(t, lseek(fd, 13, SEEK_DATA), ENXIO);
	EXPECT_ERRNO(t, lseek(fd, 13, SEEK_HOLE), ENXIO);
	EXPECT_ERRNO(t, write(fd, "x", 1), EBADF);
	KTEST_EXPECT_EQ(t, close(fd), 0);
	EXPECT_ERRNO(t, close(fd), EBADF);
	EXPECT_ERRNO(t, read(fd, buf, 1), EBADF);
	EXPECT_ERRNO(t, read(FD_MAX + 5, buf, 1), EBADF);
}

static void file_big_pread(struct ktest *t)
{
	static const long offs[] = {
		0, 4095, 4096, 65535, 123457, BIG_SIZE - 9
	};
	uint8_t buf[100];
	int fd;
	struct stat st;

	need_root(t);
	fd = open("/big.bin", O_RDONLY);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, fstat(fd, &st), 0);
	KTEST_EXPECT_EQ(t, st.st_size, BIG_SIZE);
	for (size_t k = 0; k < ARRAY_SIZE(offs); k++) {
		long want = MIN(100, BIG_SIZE - offs[k]);
		long bad = -1;

		KTEST_EXPECT_EQ(t, pread(fd, buf, 100, offs[k]), want);
		for (long i = 0; i < want; i++)
			if (buf[i] != big_byte(offs[k] + i) && bad < 0)
				bad = offs[k] + i;
		KTEST_EXPECT_EQ(t, bad, -1);
	}
	KTEST_EXPECT_EQ(t, pread(fd, buf, 100, BIG_SIZE), 0);
	KTEST_EXPECT_EQ(t, lseek(fd, 0, SEEK_CUR), 0); /* pread keeps f_pos */
	EXPECT_ERRNO(t, pread(fd, buf, 1, -1), EINVAL);
	close(fd);
}

static void file_create_flags(struct ktest *t)
{
	char buf[32] = { 0 };
	int fd;

	need_root(t);
	unlink("/t_create");
	fd = open("/t_create", O_RDWR | O_CREAT | O_EXCL, 0644);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, write(fd, "0123456789", 10), 10);
	KTEST_EXPECT_EQ(t, pwrite(fd, "ab", 2, 4), 2);
	KTEST_EXPECT_EQ(t, lseek(fd, 0, SEEK_CUR), 10);
	KTEST_EXPECT_EQ(t, pread(fd, buf, 32, 0), 10);
	KTEST_EXPECT_MEMEQ(t, buf, "0123ab6789", 10);
	close(fd);
	EXPECT_ERRNO(
	    t, open("/t_create", O_RDWR | O_CREAT | O_EXCL, 0644), EEXIST);
	fd = open("/t_create", O_WRONLY | O_APPEND);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, write(fd, "XY", 2), 2);
	KTEST_EXPECT_EQ(t, lseek(fd, 0, SEEK_CUR), 12);
	EXPECT_ERRNO(t, read(fd, buf, 1), EBADF);
	close(fd);
	KTEST_EXPECT_EQ(t, read_file("/t_create", buf, 32), 12);
	KTEST_EXPECT_MEMEQ(t, buf, "0123ab6789XY", 12);
	fd = open("/t_create", O_RDWR | O_TRUNC);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, lseek(fd, 0, SEEK_END), 0);
	close(fd);
	EXPECT_ERRNO(t, open("/dir", O_WRONLY), EISDIR);
	EXPECT_ERRNO(t, open("/dir", O_RDWR | O_CREAT, 0644), EISDIR);
	EXPECT_ERRNO(t, open("/t_create", O_RDONLY | O_DIRECTORY), ENOTDIR);
	EXPECT_ERRNO(t, open("/nonexistent", O_RDONLY), ENOENT);
	EXPECT_ERRNO(t, open("/nodir/x", O_RDWR | O_CREAT, 0644), ENOENT);
	EXPECT_ERRNO(t, open("/t_create/x", O_RDWR | O_CREAT, 0644), ENOTDIR);
	fd = open("/dir", O_RDONLY);
	KTEST_EXPECT_GE(t, fd, 0);
	EXPECT_ERRNO(t, read(fd, buf, 1), EISDIR);
	close(fd);
	KTEST_EXPECT_EQ(t, unlink("/t_create"), 0);
}

static void file_lowest_fd(struct ktest *t)
{
	int a, b, c;

	need_root(t);
	a = open("/hello.txt", O_RDONLY);
	b = open("/hello.txt", O_RDONLY);
	KTEST_EXPECT_EQ(t, a, 3);
	KTEST_EXPECT_EQ(t, b, 4);
	close(a);
	c = open("/hello.txt", O_RDONLY);
	KTEST_EXPECT_EQ(t, c, 3);
	close(b);
	close(c);
	KTEST_EXPECT_EQ(t, isatty(1), 1);
	KTEST_EXPECT_EQ(t, write(1, "", 0), 0);
}

static void file_truncate(struct ktest *t)
{
	uint8_t buf[64];
	struct stat st;
	int fd;

	need_root(t);
	KTEST_ASSERT_EQ(t, write_file("/t_trunc", "abcdefgh", 8), 0);
	KTEST_EXPECT_EQ(t, truncate("/t_trunc", 3), 0);
	KTEST_EXPECT_EQ(t, read_file("/t_trunc", buf, 64), 3);
	KTEST_EXPECT_EQ(t, truncate("/t_trunc", 10000), 0);
	KTEST_EXPECT_EQ(t, stat("/t_trunc", &st), 0);
	KTEST_EXPECT_EQ(t, st.st_size, 10000);
	fd = open("/t_trunc", O_RDWR);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, pread(fd, buf, 64, 0), 64);
	KTEST_EXPECT_MEMEQ(t, buf, "abc\0\0\0\0", 7);
	KTEST_EXPECT_EQ(t, pread(fd, buf, 64, 9990), 10);
	KTEST_EXPECT_EQ(t, buf[0] | buf[9], 0);
	KTEST_EXPECT_EQ(t, ftruncate(fd, 1), 0);
	KTEST_EXPECT_EQ(t, fstat(fd, &st), 0);
	KTEST_EXPECT_EQ(t, st.st_size, 1);
	EXPECT_ERRNO(t, ftruncate(fd, -1), EINVAL);
	KTEST_EXPECT_EQ(t, fsync(fd), 0);
	KTEST_EXPECT_EQ(t, fdatasync(fd), 0);
	close(fd);
	fd = open("/t_trunc", O_RDONLY);
	EXPECT_ERRNO(t, ftruncate(fd, 0), EINVAL);
	close(fd);
	EXPECT_ERRNO(t, truncate("/dir", 0), EISDIR);
	EXPECT_ERRNO(t, truncate("/nonexistent", 0), ENOENT);
	KTEST_EXPECT_EQ(t, unlink("/t_trunc"), 0);
}

#define APPENDERS      3
#define APPEND_RECORDS 20
#define APPEND_RECLEN  3000
#define APPEND_TOTAL   (APPENDERS * APPEND_RECORDS * APPEND_RECLEN)

struct append_arg {
	int id;
	int errors;
	int *written; /* records all appenders have written, atomic */
};

/* Byte @b of record @seq of appender @id: every byte says whose it is. */
static char append_byte(int id, int seq, int b)
{
	return (char)(b == 0 ? 'a' + id : b == 1 ? seq : id * 89 + seq * 7 + b);
}

/* Record i waits until every appender has written i records: each
 * round has one record of each, started together, so the writers do
 * interleave (RACE_TIMEOUT_MS bounds a broken run). */
static int appender(void *p)
{
	struct append_arg *a = p;
	int fd = open("/t_append", O_WRONLY | O_APPEND);
	uint64_t give_up = time_ns() + RACE_TIMEOUT_MS * NSEC_PER_MSEC;
	char rec[APPEND_RECLEN];

	for (int i = 0; i < APPEND_RECORDS; i++) {
		while (__atomic_load_n(a->written, __ATOMIC_SEQ_CST) <
			   i * APPENDERS &&
		       time_ns() < give_up)
			task_yield();
		for (int b = 0; b < APPEND_RECLEN; b++)
			rec[b] = append_byte(a->id, i, b);
		if (write(fd, rec, sizeof(rec)) != sizeof(rec))
			a->errors++;
		__atomic_add_fetch(a->written, 1, __ATOMIC_SEQ_CST);
	}
	close(fd);
	return 0;
}

/* Check the file's records. Return: how often the writer changed from one
 * record to the next, or -1 if a record is torn, lost or out of order. */
static int check_records(struct ktest *t, const char *buf)
{
	int next[APPENDERS] = { 0 }, switches = 0, prev = -1;

	for (int r = 0; r < APPENDERS * APPEND_RECORDS; r++) {
		const char *rec = buf + r * APPEND_RECLEN;
		int id = rec[0] - 'a';

		if (id < 0 || id >= APPENDERS || rec[1] != next[id]) {
			ktest_log(
			    t, "record %d: writer %d seq %d", r, id, rec[1]);
			return -1;
		}
		for (int b = 2; b < APPEND_RECLEN; b++)
			if (rec[b] != append_byte(id, next[id], b)) {
				ktest_log(t, "record %d torn at byte %d", r, b);
				return -1;
			}
		next[id]++;
		switches += prev >= 0 && prev != id;
		prev = id;
	}
	return switches;
}

/*
 * O_APPEND under i_rwsem: concurrent appends never overwrite each other.
 * The appenders run on different harts, in rounds of one record each;
 * every record must land whole and in its writer's order, and the
 * writers interleave: each round changes writer at least twice. (Before,
 * they started together and interleaved by chance, and the check, one
 * change of writer, held when they ran one after another too. The
 * overlap of two appends is forced in file_append_waits_for_append.)
 */
static void file_append_race(struct ktest *t)
{
	struct append_arg args[APPENDERS];
	struct task *tasks[APPENDERS];
	static char buf[APPEND_TOTAL + 1];
	int written = 0;

	need_root(t);
	KTEST_ASSERT_EQ(t, write_file("/t_append", "", 0), 0);
	for (int i = 0; i < APPENDERS; i++) {
		args[i] = (struct append_arg){ i, 0, &written };
		tasks[i] = task_create_on(
		    "appender", appender, &args[i], i % (int)ncpus);
		KTEST_ASSERT_FALSE(t, IS_ERR(tasks[i]));
	}
	for (int i = 0; i < APPENDERS; i++) {
		task_join(tasks[i]);
		KTEST_EXPECT_EQ(t, args[i].errors, 0);
	}
	KTEST_EXPECT_EQ(
	    t, read_file("/t_append", buf, sizeof(buf)), APPEND_TOTAL);
	KTEST_EXPECT_GE(t, check_records(t, buf), 2 * APPEND_RECORDS - 1);
	KTEST_EXPECT_EQ(t, unlink("/t_append"), 0);
}

#define WAIT_BASE 3000 /* the file's size: both appends land in page 0 */
#define WAIT_REC  100

struct append_one {
	char byte;
	struct task *task;
	ssize_t ret;
};

static int append_one(void *arg)
{
	struct append_one *a = arg;
	int fd = open("/t_append2", O_WRONLY | O_APPEND);
	char rec[WAIT_REC];

	memset(rec, a->byte, sizeof(rec));
	a->ret = fd < 0 ? -1 : write(fd, rec, sizeof(rec));
	if (fd >= 0)
		close(fd);
	return 0;
}

static bool append_asleep(void *arg)
{
	struct task *task = ((struct append_one *)arg)->task;

	return READ_ONCE(task->state) == TASK_SLEEPING &&
	       !READ_ONCE(task->on_cpu);
}

/*
 * Two appends at once, forced: the test holds the lock of the file's
 * page 0, where both land; A, started first, takes i_rwsem, sets its
 * position at EOF and sleeps on that page; then B must wait for i_rwsem,
 * not take its position (the same EOF, A's size not yet set) and sleep
 * on the page too, as a write without i_rwsem would (mutant 08). Each
 * is waited for until it sleeps, then the page is let go: A's record,
 * then B's, after the old bytes.
 */
static void file_append_waits_for_append(struct ktest *t)
{
	static char buf[WAIT_BASE + 3 * WAIT_REC];
	struct append_one a = { .byte = 'A' }, b = { .byte = 'B' };
	struct inode *inode;
	struct page *page;

	need_root(t);
	memset(buf, 'o', WAIT_BASE);
	KTEST_ASSERT_EQ(t, write_file("/t_append2", buf, WAIT_BASE), 0);
	inode = vfs_lookup("/t_append2");
	KTEST_ASSERT_FALSE(t, IS_ERR(inode));
	page = filemap_get_page(inode->i_mapping, 0);
	KTEST_ASSERT_NOT_NULL(t, page);
	lock_page(page);
	a.task = task_create("append_a", append_one, &a);
	KTEST_ASSERT_FALSE(t, IS_ERR(a.task));
	KTEST_EXPECT_EQ(t, race_wait_until(append_asleep, &a), 0);
	b.task = task_create("append_b", append_one, &b);
	KTEST_ASSERT_FALSE(t, IS_ERR(b.task));
	KTEST_EXPECT_EQ(t, race_wait_until(append_asleep, &b), 0);
	KTEST_EXPECT_EQ(t, rwsem_nr_waiters(&inode->i_rwsem), 1u);
	unlock_page(page);
	put_page(page);
	KTEST_EXPECT_EQ(t, task_join(a.task), 0);
	KTEST_EXPECT_EQ(t, task_join(b.task), 0);
	iput(inode);
	KTEST_EXPECT_EQ(t, a.ret, WAIT_REC);
	KTEST_EXPECT_EQ(t, b.ret, WAIT_REC);
	KTEST_EXPECT_EQ(t,
			read_file("/t_append2", buf, sizeof(buf)),
			WAIT_BASE + 2 * WAIT_REC);
	KTEST_EXPECT_EQ(t, buf[WAIT_BASE - 1], 'o');
	KTEST_EXPECT_EQ(t, buf[WAIT_BASE], 'A');
	KTEST_EXPECT_EQ(t, buf[WAIT_BASE + WAIT_REC - 1], 'A');
	KTEST_EXPECT_EQ(t, buf[WAIT_BASE + WAIT_REC], 'B');
	KTEST_EXPECT_EQ(t, buf[WAIT_BASE + 2 * WAIT_REC - 1], 'B');
	KTEST_EXPECT_EQ(t, unlink("/t_append2"), 0);
}

static void file_unlinked_open(struct ktest *t)
{
	char buf[8] = { 0 };
	struct stat st;
	int fd;

	need_root(t);
	KTEST_ASSERT_EQ(t, write_file("/t_orphan", "orphan", 6), 0);
	fd = open("/t_orphan", O_RDWR);
	KTEST_ASSERT_GE(t, fd, 0);
	KTEST_EXPECT_EQ(t, unlink("/t_orphan"), 0);
	EXPECT_ERRNO(t, stat("/t_orphan", &st), ENOENT);
	KTEST_EXPECT_EQ(t, pread(fd, buf, 8, 0), 6);
	KTEST_EXPECT_MEMEQ(t, buf, "orphan", 6);
	KTEST_EXPECT_EQ(t, fstat(fd, &st), 0);
	KTEST_EXPECT_EQ(t, st.st_nlink, 0);
	KTEST_EXPECT_EQ(t, close(fd), 0); /* evicted: blocks freed */
}

static struct ktest_case file_cases[] = {
	KTEST_CASE(file_read_seek),
	KTEST_CASE(file_big_pread),
	KTEST_CASE(file_create_flags),
	KTEST_CASE(file_lowest_fd),
	KTEST_CASE(file_truncate),
	KTEST_CASE(file_append_race),
	KTEST_CASE(file_append_waits_for_append),
	KTEST_CASE(file_unlinked_open),
	{},
};
KTEST_SUITE(vfs_file, file_cases);
