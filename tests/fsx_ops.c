/*
 * tests/fsx_ops.c: fsx's mutator - every data-changing operation, each
 * done on the file and on the model (tests/fsx.h), and its own checking
 * reads. One task: its operations depend on the seed alone. With -k it
 * also stores through the mappings held for the whole run (op_mapstore).
 *
 * An operation on file f: fsx_begin() makes the next version from the newest
 * (waiting until no reader counts on the slot it reuses), applies the
 * change to it, lowers floor first if the file shrinks (waiting until no
 * mapped read reaches past the new EOF), publishes started (with -k,
 * handing the storer a store beside the change); the call runs;
 * fsx_finish() waits for that store, publishes done and the new floor.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/falloc.h>
#include <sys/mman.h>
#include <kernel/sched.h>
#include <kernel/time.h>
#include <mm/filemap.h>
#include <mm/kmalloc.h>
#include <fs/vfs.h>
#include "fsx.h"

/* A change of f alone by @call over [off, off + len). */
#define CHANGE(o, off, len, call)                        \
	({                                               \
		long ret_;                               \
		fsx_publish(o, (o)->f, off, len);        \
		ret_ = (call);                           \
		fsx_finish(o, (o)->f);                   \
		ret_ < 0 ? fsx_failed_call(o, ret_) : 0; \
	})

static void grow(struct fsx_op *o, loff_t to)
{
	*o->size = MAX(*o->size, to);
}

static int op_write(struct fsx_op *o)
{
	loff_t off = fsx_below(o, o->x->max_len);
	size_t len =
	    1 + fsx_below(o, MIN((loff_t)FSX_WRITE_MAX, o->x->max_len - off));

	for (size_t i = 0; i < len; i++)
		o->buf[i] = (uint8_t)fsx_rand(o->rnd);
	snprintf(o->what,
		 sizeof(o->what),
		 "write %s [%lld, +%zu)",
		 o->f->path,
		 (long long)off,
		 len);
	fsx_begin(o, o->f);
	memcpy(o->d + off, o->buf, len);
	grow(o, off + len);
	return CHANGE(o,
		      off,
		      len,
		      pwrite(o->f->fd, o->buf, len, off) == (ssize_t)len ? 0
									 : -1);
}

static int op_truncate_to(struct fsx_op *o, loff_t size)
{
	snprintf(o->what,
		 sizeof(o->what),
		 "truncate %s %lld",
		 o->f->path,
		 (long long)size);
	fsx_begin(o, o->f);
	if (size < *o->size)
		memset(o->d + size, 0, *o->size - size);
	*o->size = size;
	return CHANGE(o, size, o->x->max_len - size, ftruncate(o->f->fd, size));
}

static int op_truncate(struct fsx_op *o)
{
	return op_truncate_to(o, fsx_below(o, o->x->max_len + 1));
}

static int op_mapwrite(struct fsx_op *o)
{
	loff_t off = fsx_below(o, o->x->max_len), start;
	size_t len =
	    1 + fsx_below(o, MIN((loff_t)FSX_WRITE_MAX, o->x->max_len - off));
	char *p;
	int err;

	if (off + (loff_t)len > fsx_size(o->f) &&
	    op_truncate_to(o, off + len)) /* mappings do not extend files */
		return -1;
	for (size_t i = 0; i < len; i++)
		o->buf[i] = (uint8_t)fsx_rand(o->rnd);
	start = off & ~(loff_t)(PAGE_SIZE - 1);
	p = mmap(NULL,
		 off + len - start,
		 PROT_READ | PROT_WRITE,
		 MAP_SHARED,
		 o->f->fd,
		 start);
	snprintf(o->what,
		 sizeof(o->what),
		 "mapwrite %s [%lld, +%zu)",
		 o->f->path,
		 (long long)off,
		 len);
	if (p == MAP_FAILED)
		return fsx_failed_call(o, -1);
	fsx_begin(o, o->f);
	memcpy(o->d + off, o->buf, len);
	fsx_publish(o, o->f, off, len);
	memcpy(p + (off - start), o->buf, len);
	err = msync(p, off + len - start, MS_SYNC);
	fsx_finish(o, o->f);
	munmap(p, off + len - start);
	return err ? fsx_failed_call(o, err) : 0;
}

static int op_punch(struct fsx_op *o)
{
	loff_t off, len, end;

	fsx_pick(o, fsx_rand(o->rnd) % 2, &off, &len);
	snprintf(o->what,
		 sizeof(o->what),
		 "punch %s [%lld, +%lld)",
		 o->f->path,
		 (long long)off,
		 (long long)len);
	fsx_begin(o, o->f);
	end = MIN(off + len, *o->size);
	if (off < end)
		memset(o->d + off, 0, end - off);
	return CHANGE(o,
		      off,
		      len,
		      fallocate(o->f->fd,
				FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				off,
				len));
}

static int op_zero(struct fsx_op *o)
{
	bool keep = fsx_rand(o->rnd) % 2;
	loff_t off, len;

	fsx_pick(o, fsx_rand(o->rnd) % 2, &off, &len);
	snprintf(o->what,
		 sizeof(o->what),
		 "zero%s %s [%lld, +%lld)",
		 keep ? " keep_size" : "",
		 o->f->path,
		 (long long)off,
		 (long long)len);
	fsx_begin(o, o->f);
	memset(o->d + off, 0, len); /* past EOF it is zero already */
	if (!keep)
		grow(o, off + len);
	return CHANGE(
	    o,
	    off,
	    len,
	    fallocate(o->f->fd,
		      FALLOC_FL_ZERO_RANGE | (keep ? FALLOC_FL_KEEP_SIZE : 0),
		      off,
		      len));
}

static int op_collapse(struct fsx_op *o)
{
	loff_t off, len, size = fsx_size(o->f);

	fsx_pick(o, true, &off, &len);
	if (off + len >= size)
		return 1; /* fallocate's rule: not reaching EOF; another op */
	snprintf(o->what,
		 sizeof(o->what),
		 "collapse %s [%lld, +%lld)",
		 o->f->path,
		 (long long)off,
		 (long long)len);
	fsx_begin(o, o->f);
	memmove(o->d + off, o->d + off + len, size - off - len);
	memset(o->d + size - len, 0, len);
	*o->size = size - len;
	return CHANGE(o,
		      off,
		      size - off,
		      fallocate(o->f->fd, FALLOC_FL_COLLAPSE_RANGE, off, len));
}

static int op_insert(struct fsx_op *o)
{
	loff_t off, len, size = fsx_size(o->f);

	fsx_pick(o, true, &off, &len);
	if (off >= size || size + len > o->x->max_len)
		return 1;
	snprintf(o->what,
		 sizeof(o->what),
		 "insert %s [%lld, +%lld)",
		 o->f->path,
		 (long long)off,
		 (long long)len);
	fsx_begin(o, o->f);
	memmove(o->d + off + len, o->d + off, size - off);
	memset(o->d + off, 0, len);
	*o->size = size + len;
	return CHANGE(o,
		      off,
		      size + len - off,
		      fallocate(o->f->fd, FALLOC_FL_INSERT_RANGE, off, len));
}

static int op_prealloc(struct fsx_op *o)
{
	bool keep = fsx_rand(o->rnd) % 2;
	loff_t off, len;

	fsx_pick(o, false, &off, &len);
	snprintf(o->what,
		 sizeof(o->what),
		 "falloc%s %s [%lld, +%lld)",
		 keep ? " keep_size" : "",
		 o->f->path,
		 (long long)off,
		 (long long)len);
	fsx_begin(o, o->f);
	if (!keep)
		grow(o, off + len);
	return CHANGE(
	    o,
	    off,
	    len,
	    fallocate(o->f->fd, keep ? FALLOC_FL_KEEP_SIZE : 0, off, len));
}

static int op_copy_range(struct fsx_op *o)
{
	struct fsx_file *g = o->g;
	loff_t gsize = fsx_size(g), soff, doff;
	off_t so, dof;
	size_t len;

	if (!g || !gsize)
		return 1;
	soff = fsx_below(o, gsize);
	len = 1 + fsx_below(o, MIN(gsize - soff, (loff_t)FSX_WRITE_MAX));
	doff = fsx_below(o, o->x->max_len - (loff_t)len + 1);
	snprintf(o->what,
		 sizeof(o->what),
		 "copy_range %s [%lld, +%zu) to %s %lld",
		 g->path,
		 (long long)soff,
		 len,
		 o->f->path,
		 (long long)doff);
	fsx_begin(o, o->f);
	memcpy(o->d + doff, g->data[fsx_slot(g->done)] + soff, len);
	grow(o, doff + len);
	so = soff;
	dof = doff;
	return CHANGE(o,
		      doff,
		      len,
		      copy_file_range(g->fd, &so, o->f->fd, &dof, len, 0) ==
			      (ssize_t)len
			  ? 0
			  : -1);
}

static int op_swapext(struct fsx_op *o)
{
	struct fsx_file *f = o->f, *g = o->g;
	unsigned int fs, gs;
	uint8_t *tmp;
	loff_t size;
	long ret;

	if (!g)
		return 1;
	snprintf(o->what, sizeof(o->what), "swapext %s %s", f->path, g->path);
	fsx_begin(o, f);
	fsx_begin(o, g);
	fs = fsx_slot(f->done + 1);
	gs = fsx_slot(g->done + 1);
	tmp = f->data[fs], f->data[fs] = g->data[gs], g->data[gs] = tmp;
	size = f->size[fs], f->size[fs] = g->size[gs], g->size[gs] = size;
	fsx_publish(o, f, 0, o->x->max_len);
	fsx_publish(o, g, 0, o->x->max_len);
	ret = swapext(f->fd, g->fd);
	fsx_finish(o, f);
	fsx_finish(o, g);
	return ret < 0 ? fsx_failed_call(o, ret) : 0;
}

static int op_fsync(struct fsx_op *o)
{
	long ret;

	snprintf(o->what, sizeof(o->what), "fsync %s", o->f->path);
	if (o->x->keep) { /* a version, for the storer's store beside it */
		fsx_begin(o, o->f);
		return CHANGE(o, 0, 0, fsync(o->f->fd));
	}
	fsx_note(o->x, o->what);
	ret = fsync(o->f->fd);
	return ret ? fsx_failed_call(o, ret) : 0;
}

/*
 * -k: stores through the mapping held since the start (no mmap, no
 * msync): its entries were set by earlier stores and faults, then
 * write-protected by writeback or an invalidation, or not; a store to a
 * write-protected or absent entry faults into page_mkwrite. Inside EOF
 * only. A third of the time near EOF; a third in the page that held EOF
 * before the file last grew: its blocks past that EOF had no disk space
 * then, and an entry made writable then must not let a store in without
 * page_mkwrite (Linux: pagecache_isize_extended).
 */
static int op_mapstore(struct fsx_op *o)
{
	struct fsx_file *f = o->f;
	loff_t size = fsx_size(f), off, page;
	size_t len;

	if (!size)
		return 1;
	switch (fsx_rand(o->rnd) % 3) {
	case 0:
		off = fsx_below(o, size);
		len = 1 + fsx_below(o, MIN((loff_t)FSX_WRITE_MAX, size - off));
		break;
	case 1:
		off = size - 1 - fsx_below(o, MIN(size, 2 * (loff_t)PAGE_SIZE));
		len = 1 + fsx_below(o, size - off);
		break;
	default:
		page = MIN(f->grew_from, size - 1) & ~(loff_t)(PAGE_SIZE - 1);
		off = page + fsx_below(o, MIN((loff_t)PAGE_SIZE, size - page));
		len = 1 + fsx_below(o, MIN((loff_t)PAGE_SIZE, size - off));
		break;
	}
	for (size_t i = 0; i < len; i++)
		o->buf[i] = (uint8_t)fsx_rand(o->rnd);
	snprintf(o->what,
		 sizeof(o->what),
		 "mapstore %s [%lld, +%zu)",
		 f->path,
		 (long long)off,
		 len);
	fsx_begin(o, f);
	memcpy(o->d + off, o->buf, len);
	fsx_publish(o, f, off, len);
	memcpy(f->map + off, o->buf, len);
	fsx_finish(o, f);
	return 0;
}

/* The mutator's own reads: nothing changes f meanwhile, so exactly the
 * newest version. */
static int op_read(struct fsx_op *o)
{
	loff_t off = fsx_below(o, o->x->max_len);
	size_t len =
	    1 + fsx_below(o, MIN((loff_t)FSX_WRITE_MAX, o->x->max_len - off));
	ssize_t n;

	snprintf(o->what,
		 sizeof(o->what),
		 "read %s [%lld, +%zu)",
		 o->f->path,
		 (long long)off,
		 len);
	fsx_note(o->x, o->what);
	n = pread(o->f->fd, o->buf, len, off);
	return fsx_check(o->x,
			 o->f,
			 o->buf,
			 off,
			 len,
			 n,
			 o->f->done,
			 o->f->done,
			 false,
			 "read")
		   ? 0
		   : -1;
}

static int op_mapread(struct fsx_op *o)
{
	loff_t size = fsx_size(o->f), off, start;
	size_t len;
	char *p;
	bool ok;

	if (!size)
		return 1;
	off = fsx_below(o, size);
	len = 1 + fsx_below(o, MIN((loff_t)FSX_WRITE_MAX, size - off));
	snprintf(o->what,
		 sizeof(o->what),
		 "mapread %s [%lld, +%zu)",
		 o->f->path,
		 (long long)off,
		 len);
	fsx_note(o->x, o->what);
	start = off & ~(loff_t)(PAGE_SIZE - 1);
	p = mmap(
	    NULL, off + len - start, PROT_READ, MAP_SHARED, o->f->fd, start);
	if (p == MAP_FAILED)
		return fsx_failed_call(o, -1);
	memcpy(o->buf, p + (off - start), len);
	munmap(p, off + len - start);
	ok = fsx_check(o->x,
		       o->f,
		       o->buf,
		       off,
		       len,
		       len,
		       o->f->done,
		       o->f->done,
		       false,
		       "mapread");
	return ok ? 0 : -1;
}

const char fsx_op_letters[] = "rRwWtpzciaCsfM";
static int (*const ops[])(struct fsx_op *) = {
	op_read,       op_mapread, op_write,	op_mapwrite, op_truncate,
	op_punch,      op_zero,	   op_collapse, op_insert,   op_prealloc,
	op_copy_range, op_swapext, op_fsync,	op_mapstore,
};

int fsx_mutator(void *arg)
{
	struct fsx *x = arg;
	uint64_t rnd = x->seed;
	struct fsx_op o = { .x = x, .rnd = &rnd };
	uint64_t until =
	    x->secs ? time_ns() + x->secs * NSEC_PER_SEC : UINT64_MAX;
	size_t nmix = strlen(x->mix);
	int err = 0;

	o.buf = kmalloc(FSX_WRITE_MAX, GFP_KERNEL);
	if (!o.buf)
		return 1;
	while (!__atomic_load_n(&x->stop, __ATOMIC_SEQ_CST) &&
	       (!x->nops || x->ops_done < x->nops) && time_ns() < until) {
		unsigned int k =
		    strchr(fsx_op_letters, x->mix[fsx_rand(&rnd) % nmix]) -
		    fsx_op_letters;
		unsigned int i = fsx_rand(&rnd) % x->nfiles;
		unsigned int j =
		    (i + 1 + fsx_rand(&rnd) % MAX(x->nfiles - 1, 1U)) %
		    x->nfiles;

		o.f = &x->files[i];
		o.g = i == j ? NULL : &x->files[j];
		o.what[0] = 0;
		err = ops[k](&o);
		if (err > 0)
			continue; /* not possible on this file now */
		if (err)
			break;
		x->counts[k]++;
		__atomic_store_n(
		    &x->ops_done, x->ops_done + 1, __ATOMIC_RELAXED);
	}
	kfree(o.buf);
	return err < 0;
}
