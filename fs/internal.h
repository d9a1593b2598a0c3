/*
 * fs/internal.h: what the VFS's own files share (not for filesystems).
 *
 * Lock order inside the VFS (outermost first):
 *   file->f_pos_lock
 *     rename_mutex (cross-directory renames)
 *       inode->i_rwsem (parent before child; two unrelated directories in
 *                       address order)
 *         ... docs/design.md's order below i_rwsem ...
 *           inode_hash_lock > sb->s_inode_lock > inode->i_lock
 *           fdtable->lock
 */
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <kernel/err.h>
#include <fs/vfs.h>

#define FD_MAX	     64
#define PATH_MAX_LEN 4096
#define MAX_SYMLINKS 40 /* followed in one lookup, as Linux */
/* One read or write moves at most this much (Linux's MAX_RW_COUNT): the
 * count fits newlib's int returns. */
#define MAX_RW_COUNT (INT_MAX & PAGE_MASK)

/* path.c */
#define LOOKUP_PARENT 0x100 /* stop before the last component */
/* Look @name up in @dir. Caller holds dir->i_rwsem (either mode).
 * Return: a referenced inode or ERR_PTR (-ENOENT ...; -ELOOP for a
 * corrupt entry other than "." or ".." naming @dir itself). */
struct inode *lookup_one(struct inode *dir, const char *name, size_t len);
/* One step of a walk: "." is @dir, ".." of the root is the root, else
 * lookup_one under dir->i_rwsem shared. @dir stays referenced. */
struct inode *lookup_child(struct inode *dir, const char *name, size_t len);
bool name_is_dots(const char *name, size_t len);
struct inode *root_inode(void);
struct inode *path_lookup_at(struct inode *base,
			     const char *path,
			     unsigned int flags,
			     const char **last,
			     size_t *lastlen);

/* cwd.c */
/* The working directory of the running task (the root if it never
 * changed it), referenced, or ERR_PTR(-ENODEV/-ENOENT). */
struct inode *cwd_get(void);
/* May an entry be added to @dir? Caller holds dir->i_rwsem exclusive.
 * Return: 0, -ENOENT for a removed directory (Linux's IS_DEADDIR), -EROFS
 * or -EPERM. */
int may_create(struct inode *dir);

/* file.c */
/* Run f_op->iterate of @dir from position 0. Caller holds dir->i_rwsem. */
int dir_iterate(struct inode *dir, struct dir_context *ctx);
/* A new file on @inode (its reference passes to the file). */
struct file *file_alloc(struct inode *inode, unsigned int flags);
/* Return: 0 if @dir holds nothing but "." and "..", -ENOTEMPTY, or an
 * error. Caller holds dir->i_rwsem. */
int dir_check_empty(struct inode *dir);

/* fdtable.c */
/* Install @f (the caller's reference passes to the table).
 * Return: the lowest free descriptor or -EMFILE. */
int fd_install(struct file *f);
/* The same from @min on. Return: the descriptor, -EINVAL or -EMFILE. */
int fd_install_from(struct file *f, int min);
int fd_dup2(int oldfd, int newfd);
/* Return: a referenced file or NULL (not open). */
struct file *fd_get(int fd);
int fd_close(int fd);
bool file_is_console(const struct file *f);

/* inode.c */
bool inode_unhashed(struct inode *inode);
/* Write [@start, @end] of @inode's pages, wait, then its dirty metadata. */
int inode_sync_range(struct inode *inode, loff_t start, loff_t end);

/* 0 or the result; a negative errno becomes errno and -1 (the POSIX
 * calls' convention). */
static inline long sys_ret(long ret)
{
	if (ret < 0 && ret >= -MAX_ERRNO) {
		errno = -ret;
		return -1;
	}
	return ret;
}

/* shell_fs.c */
const char *vfs_strerror(int err);
/* "cmd: path: strerror(errno)" on stderr, after what stdout holds.
 * Return: 1, the failing command's status. */
int shell_fs_error(const char *cmd, const char *path);
/* ls -l's "drwxr-xr-x" for @mode into @s (11 bytes). */
void shell_mode_string(mode_t mode, char *s);
/* POSIX cksum of what @fd reads. Return: 0 or -1 (errno). */
int cksum_fd(int fd, uint32_t *crc, off_t *size);
/* cksum's output line for @path ("CRC SIZE PATH\n"). */
int cksum_line(const char *path, char *line, size_t len);

static inline bool file_readable(const struct file *f)
{
	return (f->f_flags & O_ACCMODE) != O_WRONLY;
}

static inline bool file_writable(const struct file *f)
{
	return (f->f_flags & O_ACCMODE) != O_RDONLY;
}

/* A write changed @inode: mtime and ctime now, inode dirty. */
void file_update_time(struct inode *inode);

/* fs/namei.c, for fs/rename.c too. */
bool trailing_slash(const char *name, size_t len);
/* Return: 0, or -EROFS/-EPERM: @dir may not change. */
int may_change(struct inode *dir);
/* @dir was removed: creators that found it must not add to it (S_DEAD). */
void mark_dead_dir(struct inode *dir);

/* fs/inode.c and fs/inode_sync.c */
/* Has @inode something to write (@wait: or writeback to wait for)? */
bool inode_needs_sync(struct inode *inode, bool wait);
/* Referenced snapshot of @sb's inodes (@all) or of those with something to
 * write. Return: the count, or -ENOMEM; *out is kfree'd by the caller. */
long collect_inodes(struct super_block *sb,
		    bool all,
		    bool wait,
		    struct inode ***out);
