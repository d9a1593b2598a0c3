/*
 * fs/vfs_deaddir_test.c: suite vfs_deaddir - nothing is created in a
 * directory removed while the creator was on its way (Linux's IS_DEADDIR):
 * open(O_CREAT), mkdir, link, symlink and rename into it fail with ENOENT.
 *
 * The interleaving is forced: the creator stops at RACE_LOOKUP_PARENT
 * (parent found and referenced, not yet locked) and the hook removes that
 * parent with rmdir, in the creator's own task. Before the check, the
 * create went on into the removed directory and left an inode no path
 * reaches (the post-check's e2fsck -fn reports it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#include <kernel/err.h>
#include <kernel/ktest.h>
#include <kernel/race.h>
#include <kernel/sched.h>
#include <fs/internal.h>

#define DEAD "/t_dead"

struct deaddir_race {
	struct task *creator;
	struct inode *dir; /* DEAD, referenced by the test */
	bool fired;
	int rmdir_err;
};

static struct deaddir_race *race;

static void remove_parent(void *obj)
{
	struct deaddir_race *r = race;

	if (!r || r->fired || obj != r->dir || current_task() != r->creator)
		return;
	r->fired = true;
	r->rmdir_err = vfs_rmdir(DEAD);
}

/* Make DEAD, arm the hook; the caller's next create in DEAD loses it. */
static void arm(struct ktest *t, struct deaddir_race *r)
{
	*r = (struct deaddir_race){ .creator = current_task() };
	KTEST_ASSERT_EQ(t, vfs_mkdir(DEAD, 0755), 0);
	r->dir = vfs_lookup(DEAD);
	KTEST_ASSERT_FALSE(t, IS_ERR(r->dir));
	race = r;
	race_hook_set(RACE_LOOKUP_PARENT, remove_parent);
}

static void disarm(struct ktest *t, struct deaddir_race *r)
{
	struct stat st;

	race_hook_set(RACE_LOOKUP_PARENT, NULL);
	race = NULL;
	KTEST_EXPECT_TRUE(t, r->fired);
	KTEST_EXPECT_EQ(t, r->rmdir_err, 0);
	KTEST_EXPECT_EQ(t, stat(DEAD, &st), -1);
	KTEST_EXPECT_EQ(t, errno, ENOENT);
	iput(r->dir);
}

#define EXPECT_ENOENT(t, call)                         \
	do {                                           \
		errno = 0;                             \
		KTEST_EXPECT_EQ(t, (long)(call), -1L); \
		KTEST_EXPECT_EQ(t, errno, ENOENT);     \
	} while (0)

static void create_in_removed_dir(struct ktest *t)
{
	struct deaddir_race r;

	arm(t, &r);
	EXPECT_ENOENT(t, open(DEAD "/f", O_WRONLY | O_CREAT, 0644));
	disarm(t, &r);
}

static void mkdir_in_removed_dir(struct ktest *t)
{
	struct deaddir_race r;

	arm(t, &r);
	EXPECT_ENOENT(t, mkdir(DEAD "/d", 0755));
	disarm(t, &r);
}

static void link_into_removed_dir(struct ktest *t)
{
	struct deaddir_race r;

	arm(t, &r);
	EXPECT_ENOENT(t, link("/hello.txt", DEAD "/l"));
	disarm(t, &r);
}

static void symlink_in_removed_dir(struct ktest *t)
{
	struct deaddir_race r;

	arm(t, &r);
	EXPECT_ENOENT(t, symlink("/hello.txt", DEAD "/s"));
	disarm(t, &r);
}

static void rename_into_removed_dir(struct ktest *t)
{
	struct deaddir_race r;
	int fd = open("/t_dead_mv", O_WRONLY | O_CREAT, 0644);

	KTEST_ASSERT_GE(t, fd, 0);
	close(fd);
	arm(t, &r);
	EXPECT_ENOENT(t, rename("/t_dead_mv", DEAD "/m"));
	disarm(t, &r);
	KTEST_EXPECT_EQ(t, unlink("/t_dead_mv"), 0);
}

static struct ktest_case deaddir_cases[] = {
	KTEST_CASE(create_in_removed_dir),   KTEST_CASE(mkdir_in_removed_dir),
	KTEST_CASE(link_into_removed_dir),   KTEST_CASE(symlink_in_removed_dir),
	KTEST_CASE(rename_into_removed_dir), {},
};
KTEST_SUITE(vfs_deaddir, deaddir_cases);
