/*
 * tests/fuzz/ext2_fuzz.h: what the fuzz target's read walk (ext2_fuzz.c)
 * and its write phase (ext2_fuzz_write.c) share.
 */
#pragma once

#include <stdint.h>
#include <fs/vfs.h>

/* What the read walk found for the write phase to change. */
struct fuzz_walk_result {
	unsigned long
	    big_dir; /* the directory with the most entries (0: none) */
	unsigned int big_entries;
	char
	    big_name[NAME_MAX_LEN + 1]; /* a regular file's name in it, or "" */
};

/* A struct file on @inode, as open() would make it. */
void fuzz_open_file(struct file *f, struct inode *inode);
/* The lists and lock of a fresh superblock, before fill_super. */
void fuzz_sb_init(struct super_block *sb);
/* Mount a copy of @data read-write as @type and change it (the write
 * phase); nothing if the kernel mounts it read-only or refuses it. */
void fuzz_write(const uint8_t *data,
		size_t size,
		struct fs_type *type,
		const struct fuzz_walk_result *r);
