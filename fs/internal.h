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

#include <limits.h>
#include <fs/vfs.h>

#define FD_MAX	     64
#define PATH_MAX_LEN 4096
/* One read or write moves at most this much (Linux's MAX_RW_COUNT): the
 * count fits newlib's int returns. */
#define MAX_RW_COUNT (INT_MAX & PAGE_MASK)

/* namei.c */
/* Look @name up in @dir. Caller holds dir->i_rwsem (either mode).
 * Return: a referenced inode or ERR_PTR (-ENOENT ...). */
struct inode *lookup_one(struct inode *dir, const char *name, size_t len);
bool name_is_dots(const char *name, size_t len);

/* file.c */
/* A new file on @inode (its reference passes to the file). */
struct file *file_alloc(struct inode *inode, unsigned int flags);
/* Return: 0 if @dir holds nothing but "." and "..", -ENOTEMPTY, or an
 * error. Caller holds dir->i_rwsem. */
int dir_check_empty(struct inode *dir);

/* fdtable.c */
/* Install @f (the caller's reference passes to the table).
 * Return: the lowest free descriptor or -EMFILE. */
int fd_install(struct file *f);
/* Return: a referenced file or NULL (not open). */
struct file *fd_get(int fd);
int fd_close(int fd);
bool file_is_console(const struct file *f);

/* inode.c */
bool inode_unhashed(struct inode *inode);
/* Write [@start, @end] of @inode's pages, wait, then its dirty metadata. */
int inode_sync_range(struct inode *inode, loff_t start, loff_t end);

/* shell_fs.c */
const char *vfs_strerror(int err);
/* POSIX cksum of what @fd reads. Return: 0 or -1 (errno). */
int cksum_fd(int fd, uint32_t *crc, off_t *size);
/* cksum's output line for @path ("CRC SIZE PATH\n"). */
int cksum_line(const char *path, char *line, size_t len);
