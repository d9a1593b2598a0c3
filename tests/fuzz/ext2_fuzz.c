/*
 * tests/fuzz/ext2_fuzz.c: the libFuzzer target over fs/ext2 (tools/fuzz).
 *
 * Each input is a whole disk image. It is mounted read-only through ext2's
 * own fill_super (the "ext4" type's when the superblock has a feature only
 * ext4 reads: mount_type), then walked the way the VFS would: every directory
 * read with iterate (in small batches, so readdir resumes mid-block) and each
 * name looked up again, every inode read with read_inode, every regular
 * file read through read_page and readahead at its start, its end and the
 * block map's level boundaries, SEEK_DATA/SEEK_HOLE stepped through it,
 * every symbolic link's target read, statfs taken, and the filesystem
 * unmounted. A corrupt image may fail any step with an errno; what it must
 * never do is crash, trip a sanitizer, leak, warn, panic or deadlock
 * (tests/fuzz/host.c turns the last three into aborts), or return more
 * bytes than asked. Work per image is bounded (WALK_* below), so one
 * input never runs long. An image the kernel mounts read-write then goes
 * through the write phase (ext2_fuzz_write.c) on a copy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <ext2fs/ext2_fs.h>
#include <drivers/block.h>
#include <fs/vfs.h>
#include <kernel/err.h>
#include <kernel/init.h>
#include "ext2_fuzz.h"
#include "host.h"

#define WALK_DEPTH	8	  /* directories deep */
#define WALK_INODES	256	  /* inodes visited per image */
#define WALK_BATCH	8	  /* entries taken per iterate call */
#define WALK_READ_BYTES (1 << 17) /* read from a file's start */
#define WALK_SEEK_STEPS 32
#define WALK_LINK_MAX	4096
#define WALK_PATH_MAX	4096
#define FUZZ_DT_REG	8 /* Linux's DT_REG, as iterate gives it */

bool host_verbose;
static struct fs_type *ext2, *ext4;

extern const struct init_hook __start_whole_init_hooks[];
extern const struct init_hook __stop_whole_init_hooks[];

__attribute__((noreturn)) static void fail(const char *what, unsigned long ino)
{
	fprintf(stderr, "ext2_fuzz: inode %lu: %s\n", ino, what);
	abort();
}

struct walk {
	struct super_block *sb;
	unsigned int visited;
	unsigned long seen[WALK_INODES]; /* directories entered */
	unsigned int nr_seen;
	struct fuzz_walk_result res;
};

struct entry {
	char name[NAME_MAX_LEN + 1];
	size_t len;
	unsigned long ino;
	unsigned int type;
};

struct batch {
	struct dir_context ctx;
	struct entry e[WALK_BATCH];
	unsigned int n;
};

static bool take_entry(struct dir_context *ctx,
		       const char *name,
		       size_t len,
		       loff_t pos,
		       unsigned long ino,
		       unsigned int type)
{
	struct batch *b = container_of(ctx, struct batch, ctx);

	(void)pos;
	if (len == 0 || len > NAME_MAX_LEN)
		fail("readdir returned a name of a bad length", ino);
	if (b->n == WALK_BATCH)
		return false;
	memcpy(b->e[b->n].name, name, len);
	b->e[b->n].name[len] = 0;
	b->e[b->n].len = len;
	b->e[b->n].type = type;
	b->e[b->n++].ino = ino;
	return true;
}

void fuzz_open_file(struct file *f, struct inode *inode)
{
	*f = (struct file){ .f_inode = inode,
			    .f_mapping = inode->i_mapping,
			    .f_op = inode->i_fop,
			    .f_count = 1 };
}

/* Read @len bytes at @pos; a short count is fine, more is not. */
static void read_at(struct file *f, loff_t pos, size_t len, char *buf)
{
	loff_t p = pos;
	ssize_t n = f->f_op->read(f, buf, len, &p);

	if (n > (ssize_t)len || (n >= 0 && p != pos + n))
		fail("read returned more than asked or moved pos wrongly",
		     f->f_inode->i_ino);
	if (n > 0 && pos + n > f->f_inode->i_size)
		fail("read returned bytes past i_size", f->f_inode->i_ino);
}

static void walk_file(struct inode *inode)
{
	static char buf[1 << 15];
	struct file f;
	loff_t size = inode->i_size, pos = 0;
	uint64_t apb = inode->i_sb->s_blocksize / 4,
		 bs = inode->i_sb->s_blocksize;
	uint64_t edges[] = { 12 * bs,
			     (12 + apb) * bs,
			     (12 + apb + apb * apb) * bs };

	fuzz_open_file(&f, inode);
	if (!f.f_op || !f.f_op->read)
		return;
	while (pos < size && pos < WALK_READ_BYTES) {
		loff_t at = pos;
		ssize_t n = f.f_op->read(&f, buf, sizeof(buf), &pos);

		if (n <= 0)
			break;
		if (pos != at + n)
			fail("read moved pos wrongly", inode->i_ino);
	}
	for (unsigned int i = 0; i < ARRAY_SIZE(edges); i++)
		if ((loff_t)edges[i] < size)
			read_at(&f, edges[i] - 1, 2, buf);
	if (size > 0)
		read_at(&f, size - 1, sizeof(buf), buf);
	read_at(&f, size, 1, buf);
	if (f.f_op->llseek) {
		loff_t off = 0;

		for (int i = 0; i < WALK_SEEK_STEPS && off >= 0 && off < size;
		     i++) {
			loff_t next = f.f_op->llseek(
			    &f, off, i % 2 ? SEEK_HOLE : SEEK_DATA);

			if (next >= 0 && (next < off || next > size))
				fail(
				    "SEEK_DATA/SEEK_HOLE went outside the file",
				    inode->i_ino);
			off = next > off ? next : off + 1;
		}
	}
}

static void walk_link(struct inode *inode)
{
	char target[WALK_LINK_MAX];
	int n;

	if (!inode->i_op || !inode->i_op->get_link)
		return;
	n = inode->i_op->get_link(inode, target, sizeof(target));
	if (n >= (int)sizeof(target) || (n >= 0 && target[n] != 0))
		fail("get_link's target is not terminated", inode->i_ino);
}

static bool seen_dir(struct walk *w, unsigned long ino)
{
	for (unsigned int i = 0; i < w->nr_seen; i++)
		if (w->seen[i] == ino)
			return true;
	if (w->nr_seen < WALK_INODES)
		w->seen[w->nr_seen++] = ino;
	return false;
}

static void walk_dir(struct walk *w, struct inode *dir, char *path, int depth);

/* Verbose runs list each inode reached, for tools/fuzz's boots of the
 * kernel on the same image: "path TYPE SIZE PATH". */
static void print_path(struct inode *inode, const char *path)
{
	char type = S_ISDIR(inode->i_mode)   ? 'd'
		    : S_ISREG(inode->i_mode) ? 'f'
		    : S_ISLNK(inode->i_mode) ? 'l'
					     : 'o';

	if (host_verbose)
		fprintf(stderr,
			"ext2_fuzz: path %c %lld %s\n",
			type,
			(long long)inode->i_size,
			path);
}

static void walk_inode(struct walk *w, unsigned long ino, char *path, int depth)
{
	struct inode *inode;

	if (w->visited++ >= WALK_INODES)
		return;
	inode = iget(w->sb, ino);
	if (IS_ERR(inode))
		return;
	print_path(inode, path);
	if (S_ISDIR(inode->i_mode)) {
		if (depth < WALK_DEPTH && !seen_dir(w, ino))
			walk_dir(w, inode, path, depth + 1);
	} else if (S_ISREG(inode->i_mode)) {
		walk_file(inode);
	} else if (S_ISLNK(inode->i_mode)) {
		walk_link(inode);
	}
	iput(inode);
}

/* @path: a buffer of WALK_PATH_MAX bytes holding @dir's path. */
static void walk_dir(struct walk *w, struct inode *dir, char *path, int depth)
{
	size_t plen = strlen(path);
	struct file f;
	struct batch b = { .ctx = { .actor = take_entry } };
	unsigned int entries = 0;
	char file[NAME_MAX_LEN + 1] = "";
	unsigned long ino;

	fuzz_open_file(&f, dir);
	if (!f.f_op || !f.f_op->iterate || !dir->i_op || !dir->i_op->lookup)
		return;
	for (;;) {
		int err;

		b.n = 0;
		down_read(&dir->i_rwsem);
		err = f.f_op->iterate(&f, &b.ctx);
		up_read(&dir->i_rwsem);
		if (host_locks_held())
			fail("iterate returned holding a lock", dir->i_ino);
		for (unsigned int i = 0; i < b.n; i++) {
			struct entry *e = &b.e[i];

			if (!strcmp(e->name, ".") || !strcmp(e->name, ".."))
				continue;
			down_read(&dir->i_rwsem);
			err = dir->i_op->lookup(dir, e->name, e->len, &ino);
			up_read(&dir->i_rwsem);
			if (err)
				continue;
			entries++;
			if (!file[0] && e->type == FUZZ_DT_REG)
				memcpy(file, e->name, e->len + 1);
			if (plen + 1 + e->len < WALK_PATH_MAX)
				snprintf(path + plen,
					 WALK_PATH_MAX - plen,
					 "%s%s",
					 plen > 1 ? "/" : "",
					 e->name);
			walk_inode(w, ino, path, depth);
			path[plen] = 0;
		}
		if (err || b.n < WALK_BATCH || w->visited >= WALK_INODES)
			break;
	}
	if (entries > w->res.big_entries) {
		w->res.big_entries = entries;
		w->res.big_dir = dir->i_ino;
		memcpy(w->res.big_name, file, sizeof(file));
	}
	down_read(&dir->i_rwsem);
	dir->i_op->lookup(dir, "..", 2, &ino);
	dir->i_op->lookup(dir, "no-such-name", 12, &ino);
	up_read(&dir->i_rwsem);
}

static void walk_mounted(struct super_block *sb, struct fuzz_walk_result *res)
{
	static struct walk w;

	w = (struct walk){ .sb = sb };
	struct statfs st;
	char path[WALK_PATH_MAX] = "/";

	if (sb->s_op->statfs)
		sb->s_op->statfs(sb, &st);
	seen_dir(&w, sb->s_root->i_ino);
	walk_dir(&w, sb->s_root, path, 0);
	if (host_locks_held())
		fail("the walk ended holding a lock", 0);
	*res = w.res;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	host_verbose = getenv("WHOLE_FUZZ_VERBOSE") != NULL;
	for (const struct init_hook *h = __start_whole_init_hooks;
	     h < __stop_whole_init_hooks;
	     h++)
		if (h->fn())
			fprintf(stderr,
				"ext2_fuzz: init hook %s failed\n",
				h->name);
	ext2 = host_fs_type("ext2");
	ext4 = host_fs_type("ext4");
	if (!ext2 || !ext4) {
		fprintf(stderr, "ext2_fuzz: ext2 or ext4 did not register\n");
		abort();
	}
	return 0;
}

/* "ext4" for an image whose superblock has a feature only ext4 reads
 * (as blkid would name it), else "ext2": each keeps its own rules. */
static struct fs_type *mount_type(const uint8_t *data, size_t size)
{
	const uint32_t ext2_incompat = EXT2_FEATURE_INCOMPAT_FILETYPE;
	const uint32_t ext2_ro_compat = EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER |
					EXT2_FEATURE_RO_COMPAT_LARGE_FILE;
	struct ext2_super_block es;

	if (size < 2048)
		return ext2;
	memcpy(&es, data + 1024, sizeof(es));
	if ((es.s_feature_incompat & ~ext2_incompat) ||
	    (es.s_feature_ro_compat & ~ext2_ro_compat) ||
	    (es.s_feature_compat & EXT3_FEATURE_COMPAT_HAS_JOURNAL))
		return ext4;
	return ext2;
}

void fuzz_sb_init(struct super_block *sb)
{
	spin_lock_init(&sb->s_inode_lock, "s_inode_lock");
	list_init(&sb->s_inodes);
	list_init(&sb->s_dirty);
	list_init(&sb->s_list);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_walk_result res = { 0 };
	struct fs_type *type = mount_type(data, size);
	struct host_disk disk = { .image = malloc(size ? size : 1) };
	struct block_device dev = { .name = "fuzz",
				    .nr_sectors = size / SECTOR_SIZE,
				    .read_only = true,
				    .driver = &disk };
	struct super_block sb = { .s_bdev = &dev };
	int err;

	memcpy(disk.image, data, size);
	fuzz_sb_init(&sb);
	err = type->fill_super(&sb, &dev, true);
	if (host_locks_held())
		fail("fill_super returned holding a lock", 0);
	if (!err) {
		walk_mounted(&sb, &res);
		iput(sb.s_root);
		host_evict_all(&sb);
		sb.s_op->put_super(&sb);
	} else if (err > 0 || err < -4095) {
		fail("fill_super returned a bad errno", 0);
	} else {
		/* as the VFS does after a refused mount (fs/super.c) */
		host_evict_all(&sb);
	}
	if (host_verbose)
		fprintf(stderr,
			"ext2_fuzz: mount %d, %lu inodes read, %lu bytes read, "
			"%lu errors reported\n",
			err,
			host_stats.inodes,
			host_stats.bytes_read,
			host_stats.errors);
	host_stats = (struct host_stats){ 0 };
	free(disk.image);
	if (!err)
		fuzz_write(data, size, type, &res);
	host_stats = (struct host_stats){ 0 };
	return 0;
}
