/*
 * tests/fuzz/ext2_fuzz_write.c: the fuzz target's write phase.
 *
 * An image the kernel mounts read-write is mounted again so, on a second
 * copy in memory, and changed the way the VFS would change it, with the
 * VFS's locks: a directory made in the root, a file in it written across
 * blocks and pages, preallocated (plain and KEEP_SIZE past EOF), punched,
 * zeroed, collapsed and inserted into where its size allows, truncated
 * down and up and fsynced; names made, renamed and removed in the
 * directory with the most entries (the image's own, hashed when it has
 * dir_index) and a subdirectory made and removed there; then the file
 * unlinked, so that its blocks and extent tree are freed, and the
 * filesystem synced and unmounted. So extent insertion and removal, htree
 * insertion and every checksum setter run over metadata the fuzzer
 * mutated. Any step may fail with an errno; none may crash, trip a
 * sanitizer, warn, leak a lock or an inode reference. After each step the
 * dirty pages and inodes are written back (host_flush), so the next step
 * reads what the last one wrote.
 *
 * With WHOLE_FUZZ_OUT set, the image as the write phase left it is
 * written there (tools/test_fuzz.py runs e2fsck on the seeds' results).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/falloc.h>
#include <drivers/block.h>
#include <fs/vfs.h>
#include <kernel/err.h>
#include "ext2_fuzz.h"
#include "host.h"

#define W_NAMES 12 /* names made in the big directory */

struct wphase {
	struct super_block *sb;
	unsigned int ok, failed;
};

static void step_done(struct wphase *w, const char *what, long err)
{
	if (err > 0 || err < -4095) {
		fprintf(
		    stderr, "ext2_fuzz: write: %s returned %ld\n", what, err);
		abort();
	}
	host_flush(w->sb);
	if (host_locks_held()) {
		fprintf(
		    stderr, "ext2_fuzz: write: %s left a lock held\n", what);
		abort();
	}
	if (err)
		w->failed++;
	else
		w->ok++;
	if (host_verbose)
		fprintf(stderr, "ext2_fuzz: write %s: %ld\n", what, err);
}

/* Look @name up in @dir (locked by the caller): a referenced inode. */
static struct inode *lookup_locked(struct inode *dir, const char *name)
{
	unsigned long ino;
	int err = dir->i_op->lookup(dir, name, strlen(name), &ino);

	return err ? ERR_PTR(err) : iget(dir->i_sb, ino);
}

/* create or mkdir @name in @dir unless it exists: *out referenced. */
static int make(struct wphase *w,
		struct inode *dir,
		const char *name,
		bool is_dir,
		struct inode **out)
{
	struct inode *old;
	int err;

	*out = NULL;
	if (!dir->i_op || !dir->i_op->lookup || !dir->i_op->create ||
	    !dir->i_op->mkdir)
		return -EPERM;
	down_write(&dir->i_rwsem);
	old = lookup_locked(dir, name);
	if (!IS_ERR(old)) {
		iput(old);
		err = -EEXIST;
	} else if (is_dir) {
		err = dir->i_op->mkdir(dir, name, strlen(name), 0755, out);
	} else {
		err = dir->i_op->create(dir, name, strlen(name), 0644, out);
	}
	up_write(&dir->i_rwsem);
	step_done(w, is_dir ? "mkdir" : "create", err);
	return err;
}

struct empty_ctx {
	struct dir_context ctx;
	bool empty;
};

static bool empty_actor(struct dir_context *ctx,
			const char *name,
			size_t len,
			loff_t pos,
			unsigned long ino,
			unsigned int type)
{
	struct empty_ctx *e = container_of(ctx, struct empty_ctx, ctx);

	(void)pos, (void)ino, (void)type;
	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return true;
	e->empty = false;
	return false;
}

/* The VFS's check before rmdir (fs/file.c's dir_check_empty). */
static int check_empty(struct inode *dir)
{
	struct empty_ctx e = { .ctx = { .actor = empty_actor }, .empty = true };
	struct file f;
	int err;

	fuzz_open_file(&f, dir);
	if (!f.f_op || !f.f_op->iterate)
		return -ENOTDIR;
	err = f.f_op->iterate(&f, &e.ctx);
	if (err)
		return err;
	return e.empty ? 0 : -ENOTEMPTY;
}

/* unlink (or with @is_dir, rmdir of an empty directory of ours). */
static void
remove_name(struct wphase *w, struct inode *dir, const char *name, bool is_dir)
{
	struct inode *victim;
	int err;

	down_write(&dir->i_rwsem);
	victim = lookup_locked(dir, name);
	if (IS_ERR(victim)) {
		up_write(&dir->i_rwsem);
		step_done(w, "remove", PTR_ERR(victim));
		return;
	}
	down_write(&victim->i_rwsem);
	if (is_dir != S_ISDIR(victim->i_mode))
		err = is_dir ? -ENOTDIR : -EISDIR;
	else if (is_dir)
		err = check_empty(victim)
			  ?: (dir->i_op->rmdir
				  ? dir->i_op->rmdir(
					dir, name, strlen(name), victim)
				  : -EPERM);
	else
		err = dir->i_op->unlink
			  ? dir->i_op->unlink(dir, name, strlen(name), victim)
			  : -EPERM;
	up_write(&victim->i_rwsem);
	up_write(&dir->i_rwsem);
	iput(victim);
	step_done(w, is_dir ? "rmdir" : "unlink", err);
}

static void lock_two(struct inode *a, struct inode *b)
{
	if (b && b < a) {
		down_write(&b->i_rwsem);
		down_write(&a->i_rwsem);
		return;
	}
	down_write(&a->i_rwsem);
	if (b)
		down_write(&b->i_rwsem);
}

/* Rename a regular file @from in @odir to @to in @ndir, replacing a
 * regular file there. */
static void rename_file(struct wphase *w,
			struct inode *odir,
			const char *from,
			struct inode *ndir,
			const char *to)
{
	struct inode *moved, *victim = NULL;
	int err = -EPERM;

	down_write(&odir->i_rwsem);
	if (ndir != odir)
		down_write(&ndir->i_rwsem);
	moved = lookup_locked(odir, from);
	if (IS_ERR(moved)) {
		err = PTR_ERR(moved);
		goto out_unlock;
	}
	victim = lookup_locked(ndir, to);
	if (IS_ERR(victim))
		victim = NULL;
	if (!S_ISREG(moved->i_mode) || moved == victim ||
	    (victim && !S_ISREG(victim->i_mode))) {
		err = -EPERM;
		goto out_put;
	}
	/* the moved file, then the victim, in address order (fs/rename.c) */
	lock_two(moved, victim);
	if (odir->i_op->rename)
		err = odir->i_op->rename(odir,
					 from,
					 strlen(from),
					 ndir,
					 to,
					 strlen(to),
					 moved,
					 victim);
	if (victim)
		up_write(&victim->i_rwsem);
	up_write(&moved->i_rwsem);
out_put:
	iput(victim);
	iput(moved);
out_unlock:
	if (ndir != odir)
		up_write(&ndir->i_rwsem);
	up_write(&odir->i_rwsem);
	step_done(w, "rename", err);
}

static void write_at(struct wphase *w, struct file *f, loff_t pos, size_t len)
{
	static char buf[3 * 4096 + 512];
	struct inode *inode = f->f_inode;
	ssize_t n;

	len = MIN(len, sizeof(buf));
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)(pos + i * 13 + 1);
	down_write(&inode->i_rwsem);
	n = f->f_op->write(f, buf, len, &pos);
	up_write(&inode->i_rwsem);
	step_done(w, "write", n < 0 ? n : 0);
}

static void
falloc(struct wphase *w, struct file *f, int mode, loff_t off, loff_t len)
{
	long err = f->f_op->fallocate ? f->f_op->fallocate(f, mode, off, len)
				      : -EOPNOTSUPP;

	step_done(w, "fallocate", err);
}

static void truncate_to(struct wphase *w, struct inode *inode, loff_t size)
{
	struct iattr attr = { .valid = ATTR_SIZE | ATTR_MTIME | ATTR_CTIME,
			      .size = size };
	int err;

	attr.mtime = attr.ctime = current_time();
	down_write(&inode->i_rwsem);
	err =
	    inode->i_op->setattr ? inode->i_op->setattr(inode, &attr) : -EPERM;
	up_write(&inode->i_rwsem);
	step_done(w, "truncate", err);
}

/* The file's life: written, every fallocate mode, truncated, fsynced. */
static void change_file(struct wphase *w, struct inode *inode)
{
	loff_t bs = w->sb->s_blocksize;
	struct file f;

	fuzz_open_file(&f, inode);
	if (!f.f_op || !f.f_op->write || !inode->i_op)
		return;
	write_at(w, &f, 0, 5000);
	write_at(w, &f, 3 * bs - 7, 2 * bs + 13);
	write_at(w, &f, 40 * bs + 100, 3 * 4096 + 300);
	falloc(w, &f, 0, 12 * bs, 6 * bs);
	falloc(w, &f, FALLOC_FL_KEEP_SIZE, 60 * bs, 5 * bs);
	falloc(w, &f, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 1000, 3 * bs);
	falloc(w, &f, FALLOC_FL_ZERO_RANGE, 13 * bs + 5, 2 * bs);
	write_at(w, &f, 14 * bs - 3, 100);
	if (inode->i_size > 8 * bs)
		falloc(w, &f, FALLOC_FL_COLLAPSE_RANGE, 2 * bs, 2 * bs);
	falloc(w, &f, FALLOC_FL_INSERT_RANGE, bs, bs);
	truncate_to(w, inode, 20 * bs + 17);
	truncate_to(w, inode, 30 * bs);
	if (f.f_op->fsync)
		step_done(w, "fsync", f.f_op->fsync(&f, 0, INT64_MAX, false));
}

/* Names made, renamed and removed in @dir; a subdirectory made there and
 * removed; one name of the image's own removed. */
static void change_dir(struct wphase *w,
		       struct inode *dir,
		       struct inode *ours,
		       const char *theirs)
{
	char name[64], to[96];
	struct inode *inode;

	for (int i = 0; i < W_NAMES; i++) {
		snprintf(name, sizeof(name), "fuzz_written_name_%d", i);
		if (!make(w, dir, name, false, &inode))
			iput(inode);
	}
	rename_file(w,
		    dir,
		    "fuzz_written_name_0",
		    dir,
		    "fuzz_written_name_0_renamed_to_a_much_longer_name");
	rename_file(w, dir, "fuzz_written_name_1", dir, "fuzz_written_name_2");
	rename_file(w, dir, "fuzz_written_name_3", ours, "moved");
	if (!make(w, dir, "fuzz_dir", true, &inode))
		iput(inode);
	if (!make(w, dir, "fuzz_dir", true, &inode)) /* -EEXIST */
		iput(inode);
	remove_name(w, dir, "fuzz_dir", true);
	for (int i = 4; i < W_NAMES; i += 2) {
		snprintf(name, sizeof(name), "fuzz_written_name_%d", i);
		remove_name(w, dir, name, false);
	}
	if (theirs[0]) {
		snprintf(to, sizeof(to), "%s_renamed", theirs);
		rename_file(w, dir, theirs, dir, to);
		remove_name(w, dir, to, false);
	}
}

static void write_phase(struct wphase *w, const struct fuzz_walk_result *r)
{
	struct inode *root = w->sb->s_root, *ours, *file, *big;

	if (make(w, root, "fuzz", true, &ours))
		return;
	if (!make(w, ours, "f", false, &file)) {
		change_file(w, file);
		iput(file);
	}
	big = r->big_dir ? iget(w->sb, r->big_dir) : ERR_PTR(-ENOENT);
	if (!IS_ERR(big)) {
		if (S_ISDIR(big->i_mode) && big->i_op && big->i_op->lookup)
			change_dir(w, big, ours, r->big_name);
		iput(big);
	}
	remove_name(w, ours, "f", false);
	remove_name(w, ours, "moved", false);
	iput(ours);
	remove_name(w, root, "fuzz", true);
	if (w->sb->s_op->sync_fs)
		step_done(w, "sync_fs", w->sb->s_op->sync_fs(w->sb, true));
}

static void save_image(const struct host_disk *disk, size_t size)
{
	const char *out = getenv("WHOLE_FUZZ_OUT");
	FILE *f;

	if (!out)
		return;
	f = fopen(out, "wb");
	if (!f || fwrite(disk->image, 1, size, f) != size) {
		perror(out);
		abort();
	}
	fclose(f);
}

void fuzz_write(const uint8_t *data,
		size_t size,
		struct fs_type *type,
		const struct fuzz_walk_result *r)
{
	struct host_disk disk = { .image = malloc(size ? size : 1) };
	struct block_device dev = { .name = "fuzz",
				    .nr_sectors = size / SECTOR_SIZE,
				    .driver = &disk };
	struct super_block sb = { .s_bdev = &dev };
	struct wphase w = { .sb = &sb };
	int err;

	memcpy(disk.image, data, size);
	fuzz_sb_init(&sb);
	err = type->fill_super(&sb, &dev, false);
	if (host_locks_held()) {
		fprintf(stderr, "ext2_fuzz: write: fill_super left a lock\n");
		abort();
	}
	if (!err && !sb.s_rdonly)
		write_phase(&w, r);
	if (!err) {
		iput(sb.s_root);
		host_flush(&sb);
		host_evict_all(&sb);
		sb.s_op->put_super(&sb);
	} else {
		host_evict_all(&sb);
	}
	if (host_verbose)
		fprintf(stderr,
			"ext2_fuzz: write phase: mount %d, %s, %u steps done, "
			"%u failed\n",
			err,
			err	      ? "-"
			: sb.s_rdonly ? "read-only"
				      : "read-write",
			w.ok,
			w.failed);
	save_image(&disk, size);
	free(disk.image);
}
