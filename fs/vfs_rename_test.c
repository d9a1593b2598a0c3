/*
 * fs/vfs_rename_test.c: suite vfs_rename_lock - a directory moved to
 * another parent is locked while the filesystem rewrites its "..": a
 * create inside it waits for the rename.
 *
 * The interleaving is forced: the creator stops at RACE_LOOKUP_PARENT
 * holding the moved directory (found, not locked) until the renamer is at
 * RACE_RENAME_LOCKED (every lock taken, the fs rename not called); the
 * renamer then holds until the create has finished (the bug) or waits
 * for the moved directory's i_rwsem (rwsem_nr_waiters). Before the moved
 * directory was locked the create ran inside the rename; now it must not
 * finish before the rename does. Both succeed in the end, and the moved
 * directory's ".." names its new parent. (Before, the renamer waited
 * 100 ms for the create: a host that did not run the creator that long
 * let the bug pass.)
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
#include <kernel/time.h>
#include <fs/internal.h>

struct rename_race {
	struct inode *moved; /* /t_ra/m, referenced by the test */
	struct task *creator;
	bool creator_holding; /* at RACE_LOOKUP_PARENT with the moved dir */
	bool renaming;	      /* the renamer holds at RACE_RENAME_LOCKED */
	bool created;	      /* the creator's open returned */
	bool rename_ran;      /* the renamer passed its race point */
	bool create_waited;   /* the create waited for the moved dir's lock */
	bool created_during_rename;
	int create_fd, rename_err;
};

static struct rename_race *race;

static bool flag_up(void *flag)
{
	return __atomic_load_n((bool *)flag, __ATOMIC_ACQUIRE);
}

/* Wait for @flag (RACE_TIMEOUT_MS bounds a broken run). */
static bool wait_flag(bool *flag)
{
	return !race_wait_until(flag_up, flag);
}

/* The create has finished, or waits for the moved directory's lock. */
static bool created_or_waits(void *arg)
{
	struct rename_race *r = arg;

	return flag_up(&r->created) || rwsem_nr_waiters(&r->moved->i_rwsem);
}

/* In the creator: hold the moved directory until the rename is inside. */
static void creator_holds(void *obj)
{
	struct rename_race *r = race;

	if (!r || obj != r->moved || current_task() != r->creator)
		return;
	__atomic_store_n(&r->creator_holding, true, __ATOMIC_RELEASE);
	wait_flag(&r->renaming);
}

/* In the renamer, every lock held: let the creator go on until it
 * waits for the moved directory or has created (the bug). */
static void renamer_holds(void *obj)
{
	struct rename_race *r = race;

	if (!r || obj != r->moved)
		return;
	r->rename_ran = true;
	__atomic_store_n(&r->renaming, true, __ATOMIC_RELEASE);
	race_wait_until(created_or_waits, r);
	r->create_waited = rwsem_nr_waiters(&r->moved->i_rwsem) > 0;
	r->created_during_rename = flag_up(&r->created);
}

static int creator(void *arg)
{
	struct rename_race *r = arg;

	while (!__atomic_load_n(&r->creator, __ATOMIC_ACQUIRE))
		task_sleep_ms(1);
	r->create_fd = open("/t_ra/m/new", O_WRONLY | O_CREAT, 0644);
	__atomic_store_n(&r->created, true, __ATOMIC_RELEASE);
	if (r->create_fd >= 0)
		close(r->create_fd);
	return 0;
}

static int renamer(void *arg)
{
	struct rename_race *r = arg;

	/* Rename once the creator has the moved directory in hand. */
	if (!wait_flag(&r->creator_holding))
		return -1;
	r->rename_err = rename("/t_ra/m", "/t_rb/m");
	return 0;
}

static void expect_dotdot(struct ktest *t, const char *dir, const char *parent)
{
	char path[64];
	struct stat st, want;

	snprintf(path, sizeof(path), "%s/..", dir);
	KTEST_ASSERT_EQ(t, stat(path, &st), 0);
	KTEST_ASSERT_EQ(t, stat(parent, &want), 0);
	KTEST_EXPECT_EQ(t, st.st_ino, want.st_ino);
}

static void create_waits_for_dir_rename(struct ktest *t)
{
	struct rename_race r = { 0 };
	struct task *c, *n;
	struct stat st;

	KTEST_ASSERT_EQ(t, mkdir("/t_ra", 0755), 0);
	KTEST_ASSERT_EQ(t, mkdir("/t_rb", 0755), 0);
	KTEST_ASSERT_EQ(t, mkdir("/t_ra/m", 0755), 0);
	r.moved = vfs_lookup("/t_ra/m");
	KTEST_ASSERT_FALSE(t, IS_ERR(r.moved));
	race = &r;
	race_hook_set(RACE_LOOKUP_PARENT, creator_holds);
	race_hook_set(RACE_RENAME_LOCKED, renamer_holds);
	n = task_create("renamer", renamer, &r);
	KTEST_ASSERT_FALSE(t, IS_ERR(n));
	c = task_create("creator", creator, &r);
	KTEST_ASSERT_FALSE(t, IS_ERR(c));
	__atomic_store_n(&r.creator, c, __ATOMIC_RELEASE);
	KTEST_EXPECT_EQ(t, task_join(c), 0);
	KTEST_EXPECT_EQ(t, task_join(n), 0);
	race_hook_set(RACE_LOOKUP_PARENT, NULL);
	race_hook_set(RACE_RENAME_LOCKED, NULL);
	race = NULL;
	iput(r.moved);

	KTEST_EXPECT_TRUE(t, r.creator_holding);
	KTEST_EXPECT_TRUE(t, r.rename_ran);
	KTEST_EXPECT_TRUE(t, r.create_waited);
	KTEST_EXPECT_FALSE(t, r.created_during_rename);
	KTEST_EXPECT_EQ(t, r.rename_err, 0);
	KTEST_EXPECT_GE(t, r.create_fd, 0);
	KTEST_EXPECT_EQ(t, stat("/t_rb/m/new", &st), 0);
	expect_dotdot(t, "/t_rb/m", "/t_rb");
	KTEST_EXPECT_EQ(t, unlink("/t_rb/m/new"), 0);
	KTEST_EXPECT_EQ(t, rmdir("/t_rb/m"), 0);
	KTEST_EXPECT_EQ(t, rmdir("/t_rb"), 0);
	KTEST_EXPECT_EQ(t, rmdir("/t_ra"), 0);
}

static struct ktest_case rename_cases[] = {
	KTEST_CASE(create_waits_for_dir_rename),
	{},
};
KTEST_SUITE(vfs_rename_lock, rename_cases);
