/*
 * fs/attr.c: changing an inode's attributes (chmod, utimensat) and asking
 * its filesystem for its sizes (statfs) and its flags (lsattr's).
 *
 * Every change goes through i_op->setattr under the inode's i_rwsem held
 * exclusive, as truncate's does (fs/file.c), and sets ctime. Times keep the
 * filesystem's granularity: the caller passes full timespecs; ext2 keeps
 * whole seconds.
 */
#include <fcntl.h>
#include <sys/statfs.h>
#include <kernel/err.h>
#include <fs/internal.h>

/**
 * vfs_setattr - apply @attr (ATTR_* in attr->valid) to @inode.
 * Context: task, may sleep; takes i_rwsem exclusive.
 * Return: 0, -EROFS, -EPERM (the filesystem cannot), or setattr's error.
 */
int vfs_setattr(struct inode *inode, struct iattr *attr)
{
	int err;

	if (inode->i_sb->s_rdonly)
		return -EROFS;
	if (!inode->i_op || !inode->i_op->setattr)
		return -EPERM;
	attr->valid |= ATTR_CTIME;
	attr->ctime = current_time();
	down_write(&inode->i_rwsem);
	err = inode->i_op->setattr(inode, attr);
	up_write(&inode->i_rwsem);
	return err;
}

int vfs_chmod(struct inode *inode, mode_t mode)
{
	struct iattr attr = { .valid = ATTR_MODE, .mode = mode & 07777 };

	return vfs_setattr(inode, &attr);
}

/* One of utimensat's times: @ts as given, now, or left (UTIME_OMIT). */
static int utime_one(const struct timespec *ts,
		     unsigned int bit,
		     struct timespec *out,
		     unsigned int *valid)
{
	if (ts && ts->tv_nsec == UTIME_OMIT)
		return 0;
	if (ts && ts->tv_nsec != UTIME_NOW &&
	    (ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000L))
		return -EINVAL;
	*out = ts && ts->tv_nsec != UTIME_NOW ? *ts : current_time();
	*valid |= bit;
	return 0;
}

/**
 * vfs_utimens - set @inode's access and modification times as utimensat
 * does: @times NULL sets both to now; a tv_nsec of UTIME_NOW sets that one
 * to now, UTIME_OMIT leaves it. Both omitted: nothing changes.
 * Return: 0, -EINVAL (a tv_nsec out of range), or vfs_setattr's error.
 */
int vfs_utimens(struct inode *inode, const struct timespec times[2])
{
	struct iattr attr = { 0 };
	int err;

	err = utime_one(
	    times ? &times[0] : NULL, ATTR_ATIME, &attr.atime, &attr.valid);
	if (!err)
		err = utime_one(times ? &times[1] : NULL,
				ATTR_MTIME,
				&attr.mtime,
				&attr.valid);
	if (err || !attr.valid)
		return err;
	return vfs_setattr(inode, &attr);
}

unsigned int vfs_get_flags(struct inode *inode)
{
	return inode->i_op && inode->i_op->get_flags
		   ? inode->i_op->get_flags(inode)
		   : 0;
}

int vfs_statfs(struct inode *inode, struct statfs *buf)
{
	struct super_block *sb = inode->i_sb;

	if (!sb->s_op->statfs)
		return -ENOSYS;
	return sb->s_op->statfs(sb, buf);
}
