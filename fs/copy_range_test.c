/*
 * fs/copy_range_test.c: suite vfs_copy_range - copy_file_range(2) and
 * swapext (fs/copy_range.c), the users of filemap_invalidate_lock_two:
 * what they do, their errnos (nothing changed on error), a swapext that
 * a fill must wait for, and two tasks on two harts doing A<->B and B<->A
 * at once - forced to meet inside lock_two, then many times - without a
 * deadlock and with every copy and exchange whole.
 */
#include <stdlib.h>
#include <string.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <fs/vfs_test.h>
#include <mm/filemap.h>

#define A_PATH "/cr_a"
#define B_PATH "/cr_b"
#define A_SIZE (3 * 4096 + 100)
#define B_SIZE 5000
#define ROUNDS 40

static char *pattern(char c, size_t len)
{
	char *p = malloc(len);

	for (size_t i = 0; p && i < len; i++)
		p[i] = (char)(c + i % 7);
	return p;
}

/* Does @path hold exactly @want[@len]? */
static bool holds(const char *path, const char *want, size_t len)
{
	char *got = malloc(len + 1);
	long n = got ? read_file(path, got, len + 1) : -1;
	bool same = n == (long)len && !memcmp(got, want, len);

	free(got);
	return same;
}

static void make_ab(struct ktest *t, char **a, char **b)
{
	*a = pattern('a', A_SIZE);
	*b = pattern('B', B_SIZE);
	KTEST_ASSERT_NOT_NULL(t, *a);
	KTEST_ASSERT_NOT_NULL(t, *b);
	KTEST_ASSERT_EQ(t, write_file(A_PATH, *a, A_SIZE), 0);
	KTEST_ASSERT_EQ(t, write_file(B_PATH, *b, B_SIZE), 0);
}

static void drop_ab(char *a, char *b)
{
	unlink(A_PATH);
	unlink(B_PATH);
	free(a);
	free(b);
}

static void copy_range_copies(struct ktest *t)
{
	char *a, *b, buf[128];
	off_t in = 6, out = 100;
	int fa, fb;

	need_root(t);
	make_ab(t, &a, &b);
	fa = open(A_PATH, O_RDONLY);
	fb = open(B_PATH, O_RDWR);
	KTEST_ASSERT_GE(t, fa, 0);
	KTEST_ASSERT_GE(t, fb, 0);
	/* explicit offsets: they advance, the files' positions do not */
	KTEST_EXPECT_EQ(t, copy_file_range(fa, &in, fb, &out, 5, 0), 5);
	KTEST_EXPECT_EQ(t, in, 11);
	KTEST_EXPECT_EQ(t, out, 105);
	KTEST_EXPECT_EQ(t, lseek(fa, 0, SEEK_CUR), 0);
	KTEST_EXPECT_EQ(t, pread(fb, buf, 5, 100), 5);
	KTEST_EXPECT_MEMEQ(t, buf, a + 6, 5);
	/* NULL offsets: the files' positions, advanced */
	KTEST_EXPECT_EQ(t, lseek(fb, B_SIZE + 3000, SEEK_SET), B_SIZE + 3000);
	KTEST_EXPECT_EQ(
	    t, copy_file_range(fa, NULL, fb, NULL, A_SIZE, 0), A_SIZE);
	KTEST_EXPECT_EQ(t, lseek(fa, 0, SEEK_CUR), A_SIZE);
	KTEST_EXPECT_EQ(t, lseek(fb, 0, SEEK_CUR), B_SIZE + 3000 + A_SIZE);
	/* the gap past B's old EOF reads as zeroes, the copy as A */
	KTEST_EXPECT_EQ(t, pread(fb, buf, 16, B_SIZE + 10), 16);
	KTEST_EXPECT_MEMEQ(t, buf, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
	KTEST_EXPECT_EQ(t, pread(fb, buf, 100, B_SIZE + 3000 + 4000), 100);
	KTEST_EXPECT_MEMEQ(t, buf, a + 4000, 100);
	/* at and past the source's EOF: short, then nothing */
	in = A_SIZE - 10;
	out = 0;
	KTEST_EXPECT_EQ(t, copy_file_range(fa, &in, fb, &out, 100, 0), 10);
	in = A_SIZE + 5;
	KTEST_EXPECT_EQ(t, copy_file_range(fa, &in, fb, &out, 100, 0), 0);
	KTEST_EXPECT_EQ(t, copy_file_range(fa, &in, fb, &out, 0, 0), 0);
	/* one file, ranges apart */
	close(fa);
	in = 0;
	out = 2 * B_SIZE + 20000;
	KTEST_EXPECT_EQ(t, copy_file_range(fb, &in, fb, &out, 50, 0), 50);
	KTEST_EXPECT_EQ(t, pread(fb, buf, 50, 2 * B_SIZE + 20000), 50);
	KTEST_EXPECT_MEMEQ(t, buf, a + A_SIZE - 10, 10);
	close(fb);
	drop_ab(a, b);
}

/* Bad input: Linux's errno, and the destination as it was. */
static void copy_range_bad_input(struct ktest *t)
{
	char *a, *b;
	off_t in = 0, out = 0, big = (off_t)1 << 62;
	int fa, fb, fro, fap, dir;

	need_root(t);
	make_ab(t, &a, &b);
	fa = open(A_PATH, O_RDONLY);
	fb = open(B_PATH, O_RDWR);
	fro = open(B_PATH, O_RDONLY);
	fap = open(B_PATH, O_WRONLY | O_APPEND);
	dir = open("/dir", O_RDONLY);
	KTEST_ASSERT_GE(t, fa, 0);
	KTEST_ASSERT_GE(t, fb, 0);
	KTEST_ASSERT_GE(t, fro, 0);
	KTEST_ASSERT_GE(t, fap, 0);
	KTEST_ASSERT_GE(t, dir, 0);
	EXPECT_ERRNO(t, copy_file_range(fa, &in, fb, &out, 10, 1), EINVAL);
	EXPECT_ERRNO(t, copy_file_range(fa, &in, fro, &out, 10, 0), EBADF);
	EXPECT_ERRNO(t, copy_file_range(fap, &in, fb, &out, 10, 0), EBADF);
	EXPECT_ERRNO(t, copy_file_range(fa, &in, fap, &out, 10, 0), EBADF);
	EXPECT_ERRNO(t, copy_file_range(dir, &in, fb, &out, 10, 0), EISDIR);
	EXPECT_ERRNO(t, copy_file_range(-1, &in, fb, &out, 10, 0), EBADF);
	EXPECT_ERRNO(t, copy_file_range(fa, &in, 99, &out, 10, 0), EBADF);
	in = -1;
	EXPECT_ERRNO(t, copy_file_range(fa, &in, fb, &out, 10, 0), EINVAL);
	in = 0;
	EXPECT_ERRNO(t, copy_file_range(fa, &in, fb, &big, big, 0), EOVERFLOW);
	out = 10; /* [0, 100) and [10, 110) of one file overlap */
	EXPECT_ERRNO(t, copy_file_range(fb, &in, fb, &out, 100, 0), EINVAL);
	KTEST_EXPECT_EQ(t, in, 0);
	KTEST_EXPECT_EQ(t, out, 10);
	KTEST_EXPECT_TRUE(t, holds(B_PATH, b, B_SIZE));
	close(fa);
	close(fb);
	close(fro);
	close(fap);
	close(dir);
	drop_ab(a, b);
}

static void swapext_exchanges(struct ktest *t)
{
	struct stat sa, sb, sa2, sb2;
	char *a, *b;
	int fa, fb;

	need_root(t);
	make_ab(t, &a, &b);
	KTEST_ASSERT_EQ(t, stat(A_PATH, &sa), 0);
	KTEST_ASSERT_EQ(t, stat(B_PATH, &sb), 0);
	fa = open(A_PATH, O_RDWR);
	fb = open(B_PATH, O_WRONLY);
	KTEST_ASSERT_GE(t, fa, 0);
	KTEST_ASSERT_GE(t, fb, 0);
	KTEST_EXPECT_EQ(t, swapext(fa, fb), 0);
	KTEST_ASSERT_EQ(t, stat(A_PATH, &sa2), 0);
	KTEST_ASSERT_EQ(t, stat(B_PATH, &sb2), 0);
	KTEST_EXPECT_EQ(t, sa2.st_size, B_SIZE);
	KTEST_EXPECT_EQ(t, sb2.st_size, A_SIZE);
	KTEST_EXPECT_EQ(t, sa2.st_blocks, sb.st_blocks);
	KTEST_EXPECT_EQ(t, sb2.st_blocks, sa.st_blocks);
	KTEST_EXPECT_EQ(t, sa2.st_ino, sa.st_ino); /* names stay, data moves */
	KTEST_EXPECT_TRUE(t, holds(A_PATH, b, B_SIZE));
	KTEST_EXPECT_TRUE(t, holds(B_PATH, a, A_SIZE));
	/* from the disk too, not only from the caches swapext dropped */
	KTEST_EXPECT_EQ(t, fsync(fa), 0);
	KTEST_EXPECT_EQ(t, fsync(fb), 0);
	vfs_drop_caches();
	KTEST_EXPECT_TRUE(t, holds(A_PATH, b, B_SIZE));
	KTEST_EXPECT_TRUE(t, holds(B_PATH, a, A_SIZE));
	/* and back */
	KTEST_EXPECT_EQ(t, swapext(fb, fa), 0);
	KTEST_EXPECT_TRUE(t, holds(A_PATH, a, A_SIZE));
	KTEST_EXPECT_TRUE(t, holds(B_PATH, b, B_SIZE));
	close(fa);
	close(fb);
	drop_ab(a, b);
}

static void swapext_bad_input(struct ktest *t)
{
	char *a, *b;
	int fa, fa2, fb, fro, fap, dir;

	need_root(t);
	make_ab(t, &a, &b);
	fa = open(A_PATH, O_RDWR);
	fb = open(B_PATH, O_RDWR);
	fro = open(B_PATH, O_RDONLY);
	fap = open(B_PATH, O_WRONLY | O_APPEND);
	dir = open("/dir", O_RDONLY);
	KTEST_ASSERT_GE(t, fa, 0);
	KTEST_ASSERT_GE(t, fb, 0);
	KTEST_ASSERT_GE(t, fro, 0);
	KTEST_ASSERT_GE(t, fap, 0);
	KTEST_ASSERT_GE(t, dir, 0);
	EXPECT_ERRNO(t, swapext(fa, fa), EINVAL);
	fa2 = dup(fa); /* another descriptor, the same file */
	EXPECT_ERRNO(t, swapext(fa, fa2), EINVAL);
	close(fa2);
	EXPECT_ERRNO(t, swapext(fa, fro), EBADF);
	EXPECT_ERRNO(t, swapext(fro, fa), EBADF);
	EXPECT_ERRNO(t, swapext(fa, fap), EBADF);
	EXPECT_ERRNO(t, swapext(fa, dir), EBADF); /* a directory: read-only */
	EXPECT_ERRNO(t, swapext(fa, -1), EBADF);
	KTEST_EXPECT_TRUE(t, holds(A_PATH, a, A_SIZE));
	KTEST_EXPECT_TRUE(t, holds(B_PATH, b, B_SIZE));
	close(fa);
	close(fb);
	close(fro);
	close(fap);
	close(dir);
	drop_ab(a, b);
}

/* ---- two tasks, two directions ---- */

enum two_op { SWAP, COPY };

struct dir_arg {
	enum two_op op;
	bool reverse; /* B<->A instead of A<->B */
	int rounds;
	int err; /* first failure's errno */
};

static int one_op(enum two_op op, bool reverse)
{
	int fa = open(A_PATH, O_RDWR), fb = open(B_PATH, O_RDWR), err = 0;
	int from = reverse ? fb : fa, to = reverse ? fa : fb;
	off_t in = 0, out = 0;

	if (fa < 0 || fb < 0)
		err = errno;
	else if (op == SWAP && swapext(from, to))
		err = errno;
	else if (op == COPY &&
		 copy_file_range(from, &in, to, &out, A_SIZE, 0) != A_SIZE)
		err = errno ? errno : EIO;
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return err;
}

static int direction(void *arg)
{
	struct dir_arg *d = arg;

	for (int i = 0; i < d->rounds && !d->err; i++) {
		d->err = one_op(d->op, d->reverse);
		task_yield();
	}
	return 0;
}

static bool someone_waits(void *arg)
{
	return rwsem_nr_waiters(arg) > 0;
}

/* The inode open as @fd (the descriptor keeps it alive). */
static struct inode *inode_of(int fd)
{
	struct file *f = fd_get(fd);
	struct inode *inode = f ? f->f_inode : NULL;

	if (f)
		fput(f);
	return inode;
}

/*
 * X does the op A<->B and is held after its first i_rwsem (the lower
 * inode's); Y starts the op B<->A and must wait for that same lock,
 * holding nothing of the other; X is let go, both finish. Without the
 * address order Y would hold the other inode and both would wait forever
 * (the boot's timeout). The invalidate_locks come after, in the same
 * order (lock_two; mm/invalidate_test.c forces its own overlap). Then
 * ROUNDS more of each, on two harts at once.
 */
static void both_directions(struct ktest *t, enum two_op op)
{
	struct dir_arg x = { op, false, 1, 0 }, y = { op, true, 1, 0 };
	struct dir_arg many[2] = { { op, false, ROUNDS, 0 },
				   { op, true, ROUNDS, 0 } };
	struct task *tx, *ty, *tm[2];
	struct inode *ia, *ib, *lower;
	char *a, *b;
	int fa, fb;

	need_root(t);
	KTEST_ASSERT_GE(t, ncpus, 2);
	make_ab(t, &a, &b);
	if (op == COPY) /* same size both ways: each copy is whole */
		KTEST_ASSERT_EQ(t, write_file(B_PATH, a, A_SIZE), 0);
	fa = open(A_PATH, O_RDONLY); /* keep the inodes while we look */
	fb = open(B_PATH, O_RDONLY);
	ia = inode_of(fa);
	ib = inode_of(fb);
	KTEST_ASSERT_NOT_NULL(t, ia);
	KTEST_ASSERT_NOT_NULL(t, ib);
	lower = ia < ib ? ia : ib;

	race_arm(RACE_INODES_TWO_FIRST);
	tx = task_create_on("dir_ab", direction, &x, 0);
	KTEST_ASSERT_FALSE(t, IS_ERR(tx));
	KTEST_ASSERT_EQ(t, race_wait(RACE_INODES_TWO_FIRST, NULL, NULL), 1);
	ty = task_create_on("dir_ba", direction, &y, 1);
	KTEST_ASSERT_FALSE(t, IS_ERR(ty));
	KTEST_EXPECT_EQ(t, race_wait_until(someone_waits, &lower->i_rwsem), 0);
	KTEST_EXPECT_FALSE(t,
			   rwsem_is_locked(&(lower == ia ? ib : ia)->i_rwsem));
	race_release(RACE_INODES_TWO_FIRST);
	KTEST_EXPECT_EQ(t, task_join(tx), 0);
	KTEST_EXPECT_EQ(t, task_join(ty), 0);
	KTEST_EXPECT_EQ(t, x.err, 0);
	KTEST_EXPECT_EQ(t, y.err, 0);

	for (int i = 0; i < 2; i++)
		tm[i] = task_create_on(
		    i ? "many_ba" : "many_ab", direction, &many[i], i);
	for (int i = 0; i < 2; i++) {
		KTEST_EXPECT_EQ(t, task_join(tm[i]), 0);
		KTEST_EXPECT_EQ(t, many[i].err, 0);
	}
	/* Every op was whole: swaps leave the two originals (2 + 2*ROUNDS
	 * swaps: where they started); copies leave two equal files. */
	if (op == SWAP) {
		KTEST_EXPECT_TRUE(t, holds(A_PATH, a, A_SIZE));
		KTEST_EXPECT_TRUE(t, holds(B_PATH, b, B_SIZE));
	} else {
		KTEST_EXPECT_TRUE(t, holds(A_PATH, a, A_SIZE));
		KTEST_EXPECT_TRUE(t, holds(B_PATH, a, A_SIZE));
	}
	close(fa);
	close(fb);
	drop_ab(a, b);
}

static void swapext_both_directions(struct ktest *t)
{
	both_directions(t, SWAP);
}

static void copy_range_both_directions(struct ktest *t)
{
	both_directions(t, COPY);
}

struct reader {
	char *buf;
	long n;
};

static int read_a(void *arg)
{
	struct reader *r = arg;

	r->n = read_file(A_PATH, r->buf, A_SIZE + 1);
	return 0;
}

/* A read of A that misses while swapext has dropped A's cache but not yet
 * exchanged the maps waits for A's invalidate_lock, and then reads B's
 * bytes - never A's old blocks, which are B's by then. */
static void swapext_fill_waits(struct ktest *t)
{
	struct reader r = { 0 };
	struct address_space *m;
	struct task *sw, *rd;
	struct dir_arg d = { SWAP, false, 1, 0 };
	char *a, *b;
	int fa;

	need_root(t);
	make_ab(t, &a, &b);
	r.buf = malloc(A_SIZE + 1);
	KTEST_ASSERT_NOT_NULL(t, r.buf);
	fa = open(A_PATH, O_RDONLY);
	KTEST_ASSERT_NOT_NULL(t, inode_of(fa));
	m = inode_of(fa)->i_mapping;
	race_arm(RACE_INVAL_DROPPED);
	sw = task_create_on("swapext", direction, &d, 0);
	KTEST_ASSERT_EQ(t, race_wait(RACE_INVAL_DROPPED, NULL, NULL), 1);
	KTEST_EXPECT_EQ(t, m->nrpages, 0);
	rd = task_create_on("reader", read_a, &r, 1);
	KTEST_EXPECT_EQ(
	    t, race_wait_until(someone_waits, &m->invalidate_lock), 0);
	race_release(RACE_INVAL_DROPPED);
	KTEST_EXPECT_EQ(t, task_join(sw), 0);
	KTEST_EXPECT_EQ(t, task_join(rd), 0);
	KTEST_EXPECT_EQ(t, d.err, 0);
	KTEST_EXPECT_EQ(t, r.n, B_SIZE);
	KTEST_EXPECT_MEMEQ(t, r.buf, b, B_SIZE);
	close(fa);
	free(r.buf);
	drop_ab(a, b);
}

static struct ktest_case copy_range_cases[] = {
	KTEST_CASE(copy_range_copies),
	KTEST_CASE(copy_range_bad_input),
	KTEST_CASE(swapext_exchanges),
	KTEST_CASE(swapext_bad_input),
	KTEST_CASE(swapext_both_directions),
	KTEST_CASE(copy_range_both_directions),
	KTEST_CASE(swapext_fill_waits),
	{},
};
KTEST_SUITE(vfs_copy_range, copy_range_cases);
