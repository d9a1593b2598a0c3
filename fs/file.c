/*
 * fs/file.c: open files.
 *
 * A struct file (opened by fs/open.c) is an open inode with flags and an
 * offset, shared by the descriptors that refer to it (f_count). The calls
 * taking an offset pointer (vfs_read/vfs_write) do not touch f_pos; the
 * descriptor calls hold f->f_pos_lock around them (fs/syscalls.c), so sharers
 * of one file see each read or write as a whole.
 *
 * Locking, as the issue and docs/design.md want it:
 *   - reads take no i_rwsem (filemap_read has its own rules);
 *   - writes, O_APPEND's look at i_size, O_TRUNC and truncate take i_rwsem
 *     exclusive, so an append lands at the end even against other appenders;
 *   - readdir takes the directory's i_rwsem shared.
 * f_pos_lock is taken before i_rwsem.
 */
#include <fcntl.h>
#include <limits.h>
#include <linux/falloc.h>
#include <string.h>
#include <unistd.h>
#include <kernel/err.h>
#include <kernel/panic.h>
#include <mm/kmalloc.h>
#include <fs/internal.h>

struct file *file_alloc(struct inode *inode, unsigned int flags)
{
	struct file *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return NULL;
	f->f_inode = inode;
	f->f_mapping = inode->i_mapping;
	f->f_op = inode->i_fop;
	/* Linux forgets the flags that acted only at open. */
	f->f_flags = flags & ~(O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC);
	f->f_count = 1;
	mutex_init(&f->f_pos_lock, "f_pos_lock", NULL);
	file_ra_state_init(&f->f_ra);
	f->f_wb_err = errseq_sample(&f->f_mapping->wb_err);
	f->f_sb_err = errseq_sample(&inode->i_sb->s_wb_err);
	return f;
}

struct file *fget(struct file *f)
{
	__atomic_fetch_add(&f->f_count, 1, __ATOMIC_RELAXED);
	return f;
}

/* Context: task, may sleep (the last put may evict the inode). */
void fput(struct file *f)
{
	if (__atomic_sub_fetch(&f->f_count, 1, __ATOMIC_ACQ_REL))
		return;
	if (WARN_ON(file_is_console(f)))
		return;
	if (f->f_op && f->f_op->release)
		f->f_op->release(f->f_inode, f);
	iput(f->f_inode);
	kfree(f);
}

/* Context: task, may sleep. No inode lock taken. */
ssize_t vfs_read(struct file *f, void *buf, size_t len, loff_t *pos)
{
	return vfs_read_flags(f, buf, len, pos, 0);
}

/**
 * vfs_read_flags - vfs_read with preadv2's @flags: RWF_NOWAIT (no waiting
 * for a lock, no I/O: -EAGAIN) where the file supports it.
 * Context: task, may sleep (not with RWF_NOWAIT on a cached range).
 * Return: bytes read or a negative errno (-EOPNOTSUPP: unknown flags).
 */
ssize_t
vfs_read_flags(struct file *f, void *buf, size_t len, loff_t *pos, int flags)
{
	if (flags & ~RWF_NOWAIT)
		return -EOPNOTSUPP;
	if (!file_readable(f))
		return -EBADF;
	if (f->f_inode && S_ISDIR(f->f_inode->i_mode))
		return -EISDIR;
	if (!f->f_op || !f->f_op->read)
		return -EINVAL;
	if (*pos < 0)
		return -EINVAL;
	if (!len)
		return 0;
	len = MIN(len, (size_t)MAX_RW_COUNT);
	if (flags && !f->f_op->read_flags)
		return -EOPNOTSUPP;
	if (flags)
		return f->f_op->read_flags(f, buf, len, pos, flags);
	return f->f_op->read(f, buf, len, pos);
}

void file_update_time(struct inode *inode)
{
	struct timespec now = current_time();

	inode->i_mtime = now;
	inode->i_ctime = now;
	mark_inode_dirty(inode);
}

/**
 * vfs_write - write @len bytes at *@pos (at the end with O_APPEND, which
 * then sets *@pos there), advancing *@pos.
 * Context: task, may sleep; takes i_rwsem exclusive.
 * Return: bytes written or a negative errno.
 */
ssize_t vfs_write(struct file *f, const void *buf, size_t len, loff_t *pos)
{
	struct inode *inode = f->f_inode;
	ssize_t ret;

	if (!file_writable(f))
		return -EBADF;
	if (!f->f_op || !f->f_op->write)
		return -EINVAL;
	if (!inode)
		return f->f_op->write(f, buf, len, pos);
	if (*pos < 0)
		return -EINVAL;
	if (!len)
		return 0;
	len = MIN(len, (size_t)MAX_RW_COUNT);
	down_write(&inode->i_rwsem);
	if (READ_ONCE(f->f_flags) & O_APPEND) /* fcntl(F_SETFL) changes it */
		*pos = READ_ONCE(inode->i_size);
	ret = f->f_op->write(f, buf, len, pos);
	if (ret > 0)
		file_update_time(inode);
	up_write(&inode->i_rwsem);
	return ret;
}

static loff_t default_seek_data(struct inode *inode, loff_t off, int whence)
{
	loff_t size = READ_ONCE(inode->i_size);

	if (off < 0 || off >= size)
		return -ENXIO;
	return whence == SEEK_DATA ? off : size;
}

/**
 * vfs_llseek - move f_pos. SEEK_DATA/SEEK_HOLE ask f_op->llseek, or treat
 * the whole file as data when the filesystem has no such method.
 * Context: task, may sleep (takes f_pos_lock).
 * Return: the new offset or a negative errno.
 */
loff_t vfs_llseek(struct file *f, loff_t off, int whence)
{
	struct inode *inode = f->f_inode;
	loff_t pos;

	if (!inode)
		return -ESPIPE;
	mutex_lock(&f->f_pos_lock);
	switch (whence) {
	case SEEK_SET:
	case SEEK_CUR:
	case SEEK_END: {
		loff_t base = whence == SEEK_SET   ? 0
			      : whence == SEEK_CUR ? f->f_pos
						   : READ_ONCE(inode->i_size);
		/* A position before the start is invalid, not an errno. */
		if (__builtin_add_overflow(base, off, &pos) || pos < 0)
			pos = -EINVAL;
		break;
	}
	case SEEK_DATA:
	case SEEK_HOLE:
		if (f->f_op && f->f_op->llseek)
			pos = f->f_op->llseek(f, off, whence);
		else
			pos = default_seek_data(inode, off, whence);
		break;
	default: pos = -EINVAL; break;
	}
	if (pos >= 0)
		f->f_pos = pos;
	mutex_unlock(&f->f_pos_lock);
	return pos;
}

/* The modes the VFS lets through to f_op->fallocate (Linux 5.15's
 * FALLOC_FL_SUPPORTED_MASK). */
#define FALLOC_SUPPORTED                                   \
	(FALLOC_FL_KEEP_SIZE | FALLOC_FL_PUNCH_HOLE |      \
	 FALLOC_FL_COLLAPSE_RANGE | FALLOC_FL_ZERO_RANGE | \
	 FALLOC_FL_INSERT_RANGE | FALLOC_FL_UNSHARE_RANGE)

/* fallocate's flag rules, in Linux 5.15's order (vfs_fallocate). Linux
 * 6.11 answers EOPNOTSUPP instead of EINVAL for collapse or insert mixed
 * with other flags. */
static long fallocate_check_mode(int mode)
{
	const int punch_zero = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE;

	if (mode & ~FALLOC_SUPPORTED)
		return -EOPNOTSUPP;
	if ((mode & punch_zero) == punch_zero)
		return -EOPNOTSUPP;
	if ((mode & FALLOC_FL_PUNCH_HOLE) && !(mode & FALLOC_FL_KEEP_SIZE))
		return -EOPNOTSUPP;
	if ((mode & FALLOC_FL_COLLAPSE_RANGE) &&
	    (mode & ~FALLOC_FL_COLLAPSE_RANGE))
		return -EINVAL;
	if ((mode & FALLOC_FL_INSERT_RANGE) && (mode & ~FALLOC_FL_INSERT_RANGE))
		return -EINVAL;
	if ((mode & FALLOC_FL_UNSHARE_RANGE) &&
	    (mode & ~(FALLOC_FL_UNSHARE_RANGE | FALLOC_FL_KEEP_SIZE)))
		return -EINVAL;
	return 0;
}

/**
 * vfs_fallocate - fallocate(2): the checks every filesystem shares, then
 * f_op->fallocate (which takes the locks).
 * Context: task, may sleep.
 * Return: 0 or a negative errno: EINVAL (@off < 0, @len <= 0, bad flag
 * mix), EOPNOTSUPP, EBADF (not open for writing), EISDIR, ENODEV (not a
 * regular file), EFBIG (@off + @len overflows), or
 * the filesystem's.
 */
long vfs_fallocate(struct file *f, int mode, loff_t off, loff_t len)
{
	struct inode *inode = f->f_inode;
	loff_t end;
	long err;

	if (off < 0 || len <= 0)
		return -EINVAL;
	err = fallocate_check_mode(mode);
	if (err)
		return err;
	if (!file_writable(f))
		return -EBADF;
	if (!inode) /* the console: a character device to Linux */
		return -ENODEV;
	if (S_ISDIR(inode->i_mode))
		return -EISDIR;
	if (!S_ISREG(inode->i_mode))
		return -ENODEV;
	if (__builtin_add_overflow(off, len, &end))
		return -EFBIG;
	if (!f->f_op || !f->f_op->fallocate)
		return -EOPNOTSUPP;
	return f->f_op->fallocate(f, mode, off, len);
}

/**
 * vfs_truncate - set @inode's size through i_op->setattr.
 * Context: task, may sleep; takes i_rwsem exclusive.
 */
int vfs_truncate(struct inode *inode, loff_t size)
{
	struct iattr attr = { .valid = ATTR_SIZE | ATTR_MTIME, .size = size };

	if (size < 0)
		return -EINVAL;
	if (S_ISDIR(inode->i_mode))
		return -EISDIR;
	if (!S_ISREG(inode->i_mode))
		return -EINVAL;
	attr.mtime = current_time();
	return vfs_setattr(inode, &attr);
}

int vfs_getattr(struct inode *inode, struct stat *st)
{
	struct super_block *sb = inode->i_sb;

	memset(st, 0, sizeof(*st));
	st->st_dev = (dev_t)(((uintptr_t)sb >> 4) & 0xffff);
	st->st_ino = inode->i_ino;
	st->st_mode = inode->i_mode;
	st->st_nlink = inode->i_nlink;
	st->st_uid = inode->i_uid;
	st->st_gid = inode->i_gid;
	st->st_size = READ_ONCE(inode->i_size);
	st->st_atim = inode->i_atime;
	st->st_mtim = inode->i_mtime;
	st->st_ctim = inode->i_ctime;
	st->st_blksize = sb->s_blocksize;
	st->st_blocks = inode->i_blocks;
	return 0;
}

/**
 * vfs_fsync_range - write back [@start, @end] of @f's data and its inode;
 * f_op->fsync if the filesystem has one.
 * Context: task, may sleep.
 * Return: 0, the error of this call's writeback, or a writeback error of
 * the file that @f has not been told of yet (errseq: each open file hears
 * of each error once, whoever's writeback met it - the flusher's, sync's,
 * another file's fsync).
 */
int vfs_fsync_range(struct file *f, loff_t start, loff_t end, bool datasync)
{
	struct inode *inode = f->f_inode;
	int err, err2;

	if (!inode)
		return -EINVAL;
	if (f->f_op && f->f_op->fsync) {
		err = f->f_op->fsync(f, start, end, datasync);
	} else {
		err = inode_sync_range(inode, start, end);
		if (!err && inode->i_sb->s_op->sync_fs)
			err = inode->i_sb->s_op->sync_fs(inode->i_sb, true);
	}
	err2 = errseq_check_and_advance(&f->f_mapping->wb_err, &f->f_wb_err);
	return err ?: err2;
}

/**
 * vfs_syncfs - write back the whole filesystem @f is on (syncfs(2)).
 * Context: task, may sleep; no inode locks held.
 * Return: 0, or an error of this call or a writeback error on any of the
 * filesystem's files since @f last heard of one - files whose inodes are
 * gone included: the superblock keeps the errors (s_wb_err).
 */
int vfs_syncfs(struct file *f)
{
	struct super_block *sb = f->f_inode->i_sb;
	int err = sync_filesystem(sb, true);
	int err2 = errseq_check_and_advance(&sb->s_wb_err, &f->f_sb_err);

	return err ?: err2;
}

/* Context: task, may sleep; takes the directory's i_rwsem shared. */
int vfs_readdir(struct file *f, struct dir_context *ctx)
{
	struct inode *inode = f->f_inode;
	int err;

	if (!inode || !S_ISDIR(inode->i_mode))
		return -ENOTDIR;
	if (!f->f_op || !f->f_op->iterate)
		return -ENOTDIR;
	mutex_lock(&f->f_pos_lock);
	ctx->pos = f->f_pos;
	down_read(&inode->i_rwsem);
	err = f->f_op->iterate(f, ctx);
	up_read(&inode->i_rwsem);
	f->f_pos = ctx->pos;
	mutex_unlock(&f->f_pos_lock);
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

	(void)pos;
	(void)ino;
	(void)type;
	if (name_is_dots(name, len))
		return true;
	e->empty = false;
	return false;
}

int dir_iterate(struct inode *dir, struct dir_context *ctx)
{
	struct file f = { .f_inode = dir,
			  .f_mapping = dir->i_mapping,
			  .f_op = dir->i_fop,
			  .f_flags = O_RDONLY };

	if (!S_ISDIR(dir->i_mode) || !f.f_op || !f.f_op->iterate)
		return -ENOTDIR;
	file_ra_state_init(&f.f_ra);
	ctx->pos = 0;
	return f.f_op->iterate(&f, ctx);
}

int dir_check_empty(struct inode *dir)
{
	struct empty_ctx e = { .ctx = { .actor = empty_actor }, .empty = true };
	int err = dir_iterate(dir, &e.ctx);

	if (err)
		return err;
	return e.empty ? 0 : -ENOTEMPTY;
}
