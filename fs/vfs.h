/*
 * fs/vfs.h: the virtual file system - superblocks, inodes, files.
 *
 * A filesystem fills in super/inode/file/address-space operations; the VFS
 * keeps the inode cache (by superblock and inode number, with reference
 * counts; unreferenced inodes stay cached until evicted), resolves paths
 * (with "." and ".."), owns open files and per-task descriptor tables, and
 * backs newlib's POSIX calls (fs/syscalls.c). Errors are negative errnos
 * with Linux's values.
 *
 * Locks and what they protect (order: docs/locking.md, mm/filemap.c):
 *   inode->i_rwsem   - writes, truncate, directory changes of this inode
 *                      (exclusive); reads take no i_rwsem; lookup and
 *                      readdir take it shared. Two directories (rename)
 *                      are locked ancestor first, else in address order;
 *                      a directory before the inodes in it (rename: the
 *                      moved inode and the victim, in address order).
 *   inode->i_lock    - i_state, i_count
 *   inode_hash_lock  - the inode cache (fs/inode.c)
 *   file->f_pos_lock - f_pos of a shared file
 */
#pragma once

#include <sys/types.h>
#include <sys/stat.h>
#include <time.h>
#include <kernel/compiler.h>
#include <kernel/list.h>
#include <kernel/mutex.h>
#include <kernel/rwsem.h>
#include <kernel/spinlock.h>
#include <mm/filemap.h>

struct block_device;
struct statfs;
struct super_block;
struct inode;
struct file;

#define NAME_MAX_LEN 255

/* lseek whence values newlib lacks (Linux's numbers). */
#ifndef SEEK_DATA
#define SEEK_DATA 3
#define SEEK_HOLE 4
#endif

/* inode->i_flags bits */
#define S_DEAD 0x1 /* a removed directory: nothing may be created in it */

/* inode->i_state bits */
#define I_NEW	  0x1 /* being read in: wait for it */
#define I_DIRTY	  0x2 /* metadata needs writing (write_inode) */
#define I_FREEING 0x4 /* being evicted */

struct super_operations {
	struct inode *(*alloc_inode)(struct super_block *sb);
	void (*destroy_inode)(struct inode *inode);
	/* Fill a new inode (i_ino set) from disk. */
	int (*read_inode)(struct inode *inode);
	/* Write the in-memory inode back; @sync: wait for the I/O. */
	int (*write_inode)(struct inode *inode, bool sync);
	/* Last reference dropped with i_nlink == 0: free its blocks and the
	 * on-disk inode, writing what must reach the disk itself (the inode
	 * is I_FREEING: mark_inode_dirty no longer queues it). Page cache
	 * already truncated. */
	void (*evict_inode)(struct inode *inode);
	/* Write superblock/bitmaps/group descriptors; @wait: and flush. */
	int (*sync_fs)(struct super_block *sb, bool wait);
	/* Fill all of @buf (Linux's struct statfs). */
	int (*statfs)(struct super_block *sb, struct statfs *buf);
	void (*put_super)(struct super_block *sb);
};

/* Attribute changes for setattr. */
#define ATTR_SIZE  0x1
#define ATTR_MTIME 0x2
#define ATTR_ATIME 0x4
#define ATTR_CTIME 0x8
#define ATTR_MODE  0x10

struct iattr {
	unsigned int valid;
	loff_t size;
	struct timespec atime, mtime, ctime;
	mode_t mode;
};

/* Directory operations take the parent locked (i_rwsem, exclusive except
 * lookup, shared) and a name that is not "." or "..", except lookup, which
 * is also asked for ".." (the VFS resolves ".." through it). Victims
 * (unlink, rmdir, rename's target) are locked too; rmdir's and rename's
 * directory victims have been checked empty. Created inodes come back
 * referenced in *out. */
struct inode_operations {
	/* Return: 0 and *ino, or -ENOENT. */
	int (*lookup)(struct inode *dir,
		      const char *name,
		      size_t len,
		      unsigned long *ino);
	int (*create)(struct inode *dir,
		      const char *name,
		      size_t len,
		      mode_t mode,
		      struct inode **out);
	int (*mkdir)(struct inode *dir,
		     const char *name,
		     size_t len,
		     mode_t mode,
		     struct inode **out);
	int (*link)(struct inode *old,
		    struct inode *dir,
		    const char *name,
		    size_t len);
	int (*unlink)(struct inode *dir,
		      const char *name,
		      size_t len,
		      struct inode *victim);
	int (*rmdir)(struct inode *dir,
		     const char *name,
		     size_t len,
		     struct inode *victim);
	/* Move; an existing target (@victim, may be NULL) is replaced. */
	int (*rename)(struct inode *odir,
		      const char *oname,
		      size_t olen,
		      struct inode *ndir,
		      const char *nname,
		      size_t nlen,
		      struct inode *moved,
		      struct inode *victim);
	/* A symbolic link to @target (a string of 1 to PATH_MAX_LEN - 1
	 * bytes); -ENAMETOOLONG if the filesystem cannot hold it. */
	int (*symlink)(struct inode *dir,
		       const char *name,
		       size_t len,
		       const char *target,
		       struct inode **out);
	/* A link's target into @buf (NUL-terminated). Return: its length,
	 * or -ENAMETOOLONG if @size cannot hold it with the NUL. */
	int (*get_link)(struct inode *inode, char *buf, size_t size);
	/* Caller holds i_rwsem exclusive. ATTR_SIZE: truncate up or down. */
	int (*setattr)(struct inode *inode, const struct iattr *attr);
	/* swapext: exchange the whole contents (block maps, sizes) of two
	 * regular files of this filesystem. The caller holds both i_rwsems
	 * and both invalidate_locks exclusive and has written back, unmapped
	 * and dropped both page caches (fs/copy_range.c). */
	int (*swap_contents)(struct inode *a, struct inode *b);
	/* The inode's attribute flags as Linux's FS_IOC_GETFLAGS gives them
	 * (FS_*_FL of <linux/fs.h>: lsattr's), read without a lock. */
	unsigned int (*get_flags)(struct inode *inode);
};

/* readdir: the actor returns false to stop (buffer full): that entry was
 * not taken, and ctx->pos stays at it. @type is a DT_* of <dirent.h>. */
struct dir_context {
	bool (*actor)(struct dir_context *ctx,
		      const char *name,
		      size_t len,
		      loff_t pos,
		      unsigned long ino,
		      unsigned int type);
	loff_t pos;
};

struct file_operations {
	ssize_t (*read)(struct file *f, void *buf, size_t len, loff_t *pos);
	/* read with preadv2's RWF_* flags; optional (without it, flags give
	 * -EOPNOTSUPP) */
	ssize_t (*read_flags)(
	    struct file *f, void *buf, size_t len, loff_t *pos, int flags);
	ssize_t (*write)(struct file *f,
			 const void *buf,
			 size_t len,
			 loff_t *pos);
	/* SEEK_SET/CUR/END are the VFS's; SEEK_DATA/SEEK_HOLE ask the fs. */
	loff_t (*llseek)(struct file *f, loff_t off, int whence);
	int (*iterate)(struct file *f, struct dir_context *ctx);
	int (*fsync)(struct file *f, loff_t start, loff_t end, bool datasync);
	/* FALLOC_FL_* of <linux/falloc.h>; the VFS has checked what
	 * vfs_fallocate says. */
	long (*fallocate)(struct file *f, int mode, loff_t off, loff_t len);
	int (*open)(struct inode *inode, struct file *f);
	void (*release)(struct inode *inode, struct file *f);
};

struct super_block {
	struct block_device *s_bdev;
	unsigned long s_blocksize;
	unsigned int s_blocksize_bits;
	bool s_rdonly;
	const struct super_operations *s_op;
	const struct fs_type *s_type; /* the filesystem it was mounted as */
	struct inode *s_root;	      /* referenced while mounted */
	void *s_fs_info;
	struct list_head s_list; /* all superblocks, sb_lock */
	struct spinlock s_inode_lock;
	/* protected by s_inode_lock: */
	struct list_head s_inodes; /* every cached inode */
	struct list_head s_dirty;  /* inodes with dirty metadata or pages */
	errseq_t s_wb_err; /* every writeback error of its files, for syncfs */
};

struct inode {
	unsigned long i_ino;
	mode_t i_mode;
	unsigned int i_nlink;
	uid_t i_uid;
	gid_t i_gid;
	loff_t i_size; /* writers: inode_set_size; readers: READ_ONCE */
	unsigned long i_shrinks; /* i_size lowered: after each such store */
	struct timespec i_atime, i_mtime, i_ctime;
	uint64_t i_blocks; /* 512-byte units, as stat reports */
	struct super_block *i_sb;
	const struct inode_operations *i_op;
	const struct file_operations *i_fop;
	struct address_space *i_mapping; /* &i_data */
	struct address_space i_data;
	struct rw_semaphore i_rwsem;
	unsigned int i_flags; /* S_*: set and tested under i_rwsem (write) */
	struct spinlock i_lock;
	/* protected by i_lock: */
	unsigned int i_state;
	int i_count;
	/* protected by inode_hash_lock / sb->s_inode_lock: */
	struct list_head i_hash;
	struct list_head i_sb_list;
	struct list_head i_dirty_list;
	struct list_head i_lru;	       /* unreferenced, evictable */
	struct wait_queue_head i_wait; /* I_NEW cleared */
};

struct file {
	struct inode *f_inode;
	struct address_space *f_mapping;
	const struct file_operations *f_op;
	unsigned int f_flags; /* O_* from <fcntl.h> (newlib's values) */
	int f_count;	      /* atomic: descriptors sharing it */
	struct mutex f_pos_lock;
	loff_t f_pos;
	struct file_ra_state f_ra;
	errseq_t f_wb_err; /* cursors into the mapping's and the superblock's */
	errseq_t f_sb_err; /* writeback errors: taken at open, moved by fsync
			    * and syncfs (each error reported once per file) */
	void *private_data;
};

/* Filesystem types register with the VFS. */
struct fs_type {
	const char *name;
	/* Read the superblock of @bdev and fill @sb (s_root included).
	 * Return: 0 or a negative errno, with a console message saying why. */
	int (*fill_super)(struct super_block *sb,
			  struct block_device *bdev,
			  bool read_only);
	struct list_head node;
};

int register_filesystem(struct fs_type *type);

/* Every inode's i_rwsem: its class (the totals `lockstat` shows). */
extern struct lock_class i_rwsem_class;

/* Mount @type on @bdev as the root ("/"); the only mount for now. */
int vfs_mount_root(const char *fs_name, struct block_device *bdev);
int vfs_unmount_root(void);
struct super_block *vfs_root_sb(void);

/* Inode cache (fs/inode.c). iget returns a referenced inode, reading it
 * with s_op->read_inode the first time. new_inode is for creation. */
struct inode *iget(struct super_block *sb, unsigned long ino);
struct inode *new_inode(struct super_block *sb, unsigned long ino);
void ihold(struct inode *inode);
void iput(struct inode *inode);
void mark_inode_dirty(struct inode *inode);
/* Store i_size: the caller holds i_rwsem exclusive (every writer of the
 * size does: write, truncate, fallocate, directory growth, swapext) or no
 * one else can see @inode yet. A release store: what the caller wrote
 * before (the page data that brings the size up) comes first for a reader
 * that sees the new size. Readers read it with no lock, READ_ONCE.
 * A store that lowers the size then counts it in i_shrinks: a reader that
 * sees the count unchanged over a span saw no shrink begin in it whose
 * size, or anything done after it, it saw (read_range). */
void inode_set_size(struct inode *inode, loff_t size);
/* Drop unreferenced cached inodes (memory pressure, unmount). */
unsigned long prune_icache(struct super_block *sb, unsigned long nr);
/* Unreferenced inodes cached (on the LRU). */
unsigned long icache_unused(void);
/* Write back everything (data, then metadata, then sync_fs). */
int sync_filesystem(struct super_block *sb, bool wait);
int vfs_sync(void);
/* Write back, then drop the root's clean page cache. Return: pages
 * dropped or -errno. */
long vfs_drop_caches(void);
/* Write one inode's pages and metadata: fsync's core. */
int vfs_fsync_range(struct file *f, loff_t start, loff_t end, bool datasync);
int vfs_syncfs(struct file *f);
struct timespec current_time(void);

/* Paths (fs/path.c). Return a referenced inode or ERR_PTR. A relative
 * path starts at the task's working directory. */
#define LOOKUP_FOLLOW 0x1 /* follow a symbolic link in the last component */
struct inode *vfs_lookup_flags(const char *path, unsigned int flags);
/* vfs_lookup_flags(path, LOOKUP_FOLLOW) */
struct inode *vfs_lookup(const char *path);
/* The parent directory of @path (referenced) and the last component. */
struct inode *
vfs_lookup_parent(const char *path, const char **name, size_t *len);
/* @inode's target (fs/path.c), as i_op->get_link; -EINVAL if it is not a
 * symbolic link. */
int vfs_get_link(struct inode *inode, char *buf, size_t size);
/* readlink(2): at most @size bytes, no NUL. Return: bytes or -errno. */
long vfs_readlink(const char *path, char *buf, size_t size);
int vfs_symlink(const char *target, const char *path);

/* The working directory (fs/cwd.c). */
int vfs_chdir(const char *path);
int vfs_fchdir(struct file *f);
/* The absolute path of the working directory in @buf. Return: its length
 * with the NUL, -ERANGE (@size too small), -ENOENT (removed). */
long vfs_getcwd(char *buf, size_t size);

/* Files (fs/file.c). */
struct file *vfs_open(const char *path, int flags, mode_t mode);
void fput(struct file *f);
struct file *fget(struct file *f);
ssize_t vfs_read(struct file *f, void *buf, size_t len, loff_t *pos);
/* vfs_read with preadv2's RWF_* flags (RWF_NOWAIT). */
ssize_t
vfs_read_flags(struct file *f, void *buf, size_t len, loff_t *pos, int flags);
/* posix_fadvise and readahead(2) (mm/fadvise.c). */
int vfs_fadvise(struct file *f, loff_t off, loff_t len, int advice);
int vfs_readahead(struct file *f, loff_t off, size_t count);
ssize_t vfs_write(struct file *f, const void *buf, size_t len, loff_t *pos);
/* fs/copy_range.c: the two-file operations (lock_two's users). */
ssize_t vfs_copy_file_range(struct file *in,
			    loff_t *pos_in,
			    struct file *out,
			    loff_t *pos_out,
			    size_t len,
			    unsigned int flags);
int vfs_swapext(struct file *target, struct file *donor);
loff_t vfs_llseek(struct file *f, loff_t off, int whence);
long vfs_fallocate(struct file *f, int mode, loff_t off, loff_t len);
int vfs_truncate(struct inode *inode, loff_t size);
int vfs_getattr(struct inode *inode, struct stat *st);
/* Attributes (fs/attr.c): i_op->setattr under i_rwsem, ctime set. */
int vfs_setattr(struct inode *inode, struct iattr *attr);
int vfs_chmod(struct inode *inode, mode_t mode);
int vfs_utimens(struct inode *inode, const struct timespec times[2]);
int vfs_statfs(struct inode *inode, struct statfs *buf);
/* i_op->get_flags, or 0 when the filesystem has none. */
unsigned int vfs_get_flags(struct inode *inode);
/* Some of its FS_*_FL: Linux's values (<linux/fs.h>, whose other names
 * clash with the kernel's own, so it is not included; sys/uio.h too). */
#define FS_SYNC_FL	0x00000008
#define FS_IMMUTABLE_FL 0x00000010
#define FS_APPEND_FL	0x00000020
#define FS_NODUMP_FL	0x00000040
#define FS_NOATIME_FL	0x00000080
#define FS_INDEX_FL	0x00001000
#define FS_HUGE_FILE_FL 0x00040000
#define FS_EXTENT_FL	0x00080000
int vfs_mkdir(const char *path, mode_t mode);
int vfs_rmdir(const char *path);
int vfs_unlink(const char *path);
int vfs_link(const char *oldpath, const char *newpath);
int vfs_rename(const char *oldpath, const char *newpath);
int vfs_readdir(struct file *f, struct dir_context *ctx);

/* Linux calls newlib does not declare (fs/syscalls.c). */
int fallocate(int fd, int mode, off_t off, off_t len);
int posix_fallocate(int fd, off_t off, off_t len);

struct task;
/* Close the descriptors task @t left open and drop its working directory
 * (when it is joined). */
void files_release(struct task *t);
/* A new task @t starts in the working directory of the running task. */
void cwd_inherit(struct task *t);
/* Drop @t's working directory (it goes back to the root). */
void cwd_release(struct task *t);
