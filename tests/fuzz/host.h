/*
 * tests/fuzz/host.h: what the host build's kernel services (host.c) give
 * the fuzz target (ext2_fuzz.c).
 */
#pragma once

#include <fs/vfs.h>

/* Bytes a fresh page holds before a read fills it: a byte a read returns
 * unfilled shows as this. */
#define EXT2_POISON 0xd5
/* Pages one filemap_read call reads at most, through one readahead. */
#define HOST_READ_BATCH 8

/* The disk: an image in memory (struct block_device.driver). */
struct host_disk {
	char *image;
};

/* What one run did, for the fuzz target's summary and its checks. */
struct host_stats {
	unsigned long errors;	 /* console messages at error level */
	unsigned long io_errors; /* requests past the end of the image */
	unsigned long bytes_read;
	unsigned long inodes; /* read from disk */
};

extern struct host_stats host_stats;
extern bool host_verbose; /* the kernel's console messages on stderr */

struct page *host_page_alloc(struct address_space *m, unsigned long index);
void host_page_free(struct page *page);
/* Locks held now: 0 between two filesystem calls. */
unsigned int host_locks_held(void);
/* Unmount's end: free every cached inode; each must be unreferenced. */
void host_evict_all(struct super_block *sb);
struct fs_type *host_fs_type(const char *name);
/* A fresh in-memory inode @ino of @sb, one reference, not on any list. */
struct inode *host_inode_alloc(struct super_block *sb, unsigned long ino);
/* host_write.c: the last iput of an unlinked inode (read-write mounts). */
void host_evict(struct inode *inode);
/* Write back every dirty page and inode of a read-write mount (the cache
 * holds pages only until then). */
void host_flush(struct super_block *sb);
