/*
 * tests/fsx.c: fsx - an exerciser in the spirit of fstests' fsx, with
 * readers, faults and readahead running beside the operations: the reader
 * tasks and the check of what they see. The command, its options and the
 * run are in app/fsx_cmd.c.
 *
 *   fsx [-N OPS] [-S SEED] [-t SECS] [-f FILES] [-p READERS] [-l MAXLEN]
 *       [-m MIX] [-w MS] [-k] DIR
 *
 * One mutator task changes DIR/fsx0..: write, mapwrite, truncate, punch,
 * zero, collapse, insert, preallocate, copy_range, swapext, fsync and its
 * own checking reads (tests/fsx_ops.c), keeping the model of every file
 * (tests/fsx.h). READERS tasks per file, spread over the harts, read,
 * mapread, readahead, fadvise and madvise WILLNEED and NOWAIT-read the
 * same files meanwhile, half of the time in the range being changed, and
 * check every byte they see against the versions the mutator had in
 * flight. -w holds each invalidation open MS milliseconds (at the race
 * point between dropping the cache and changing the block map, and
 * between mapping preallocated blocks and writing their zeroes), so that
 * readers meet it there: the fixed kernel makes them wait, legacy mode
 * lets them cache what is being freed.
 *
 * Beside them a third-party task (fsx_third_task) writes back and
 * reclaims as nobody's caller would: flush rounds, fsyncs of the files
 * from its own descriptors, and reclaim of a few clean pages at a time,
 * at random moments, so that writeback and reclaim meet every change.
 *
 * -k holds a shared, writable mapping of each file for the whole run:
 * the mutator stores through it (mapstore, letter M) and a storer task
 * stores through it beside every change, outside the bytes that change
 * touches, so that page_mkwrite meets every invalidation and the file's
 * expected bytes stay exact (tests/fsx.h). The mappings go before the
 * final check, which fsyncs each file, drops the caches and reads again.
 *
 * The seed is printed first; the mutator's operations depend on it alone
 * (the same seed replays them), the readers' on it and their number. On a
 * mismatch: the file, offset, expected and found bytes and the last
 * operations, then "fsx: FAILED after N operations" and status 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <kernel/printk.h>
#include <kernel/sched.h>
#include <mm/filemap.h>
#include <mm/kmalloc.h>
#include "fsx.h"

#define READ_MAX (64 << 10)

uint64_t fsx_rand(uint64_t *s) /* xorshift64 */
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

void fsx_fail(struct fsx *x, const char *fmt, ...)
{
	char line[160];
	va_list ap;

	if (__atomic_exchange_n(&x->failed, 1, __ATOMIC_SEQ_CST))
		return; /* the first failure tells the story */
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	console_printf("fsx: %s\n", line);
	console_printf("fsx: last operations:\n");
	for (unsigned long i = x->logged > FSX_LOG ? x->logged - FSX_LOG : 0;
	     i < x->logged;
	     i++)
		console_printf("fsx:   %s\n", x->log[i % FSX_LOG]);
	__atomic_store_n(&x->stop, 1, __ATOMIC_SEQ_CST);
}

/* Is @c byte @k of some version in [@a, @b] inside its EOF? */
static bool seen_in(
    struct fsx_file *f, loff_t k, uint8_t c, unsigned long a, unsigned long b)
{
	for (unsigned long v = a; v <= b; v++)
		if (k < f->size[fsx_slot(v)] && f->data[fsx_slot(v)][k] == c)
			return true;
	return false;
}

bool fsx_check(struct fsx *x,
	       struct fsx_file *f,
	       const uint8_t *buf,
	       loff_t off,
	       size_t len,
	       ssize_t n,
	       unsigned long a,
	       unsigned long b,
	       bool may_be_short,
	       const char *how)
{
	loff_t least = INT64_MAX, most = 0;

	for (unsigned long v = a; v <= b; v++) {
		loff_t avail = MAX(f->size[fsx_slot(v)] - off, (loff_t)0);

		least = MIN(least, MIN(avail, (loff_t)len));
		most = MAX(most, MIN(avail, (loff_t)len));
	}
	if (n < 0 || n > most || (!may_be_short && n < least)) {
		fsx_fail(x,
			 "%s %s [%lld, +%zu): %zd bytes, versions %lu..%lu "
			 "allow %lld..%lld",
			 how,
			 f->path,
			 (long long)off,
			 len,
			 n,
			 a,
			 b,
			 (long long)least,
			 (long long)most);
		return false;
	}
	for (ssize_t i = 0; i < n; i++) {
		if (seen_in(f, off + i, buf[i], a, b))
			continue;
		fsx_fail(x,
			 "%s %s: byte %lld is 0x%02x, expected 0x%02x "
			 "(version %lu%s)",
			 how,
			 f->path,
			 (long long)(off + i),
			 buf[i],
			 f->data[fsx_slot(b)][off + i],
			 b,
			 a == b ? "" : " or older");
		return false;
	}
	return true;
}

/* Count on versions from done on: a = done, kept in r->ver; retried
 * while the mutator may already be reusing slot a. */
static unsigned long reader_begin(struct fsx_file *f, struct fsx_reader *r)
{
	for (;;) {
		unsigned long a = __atomic_load_n(&f->done, __ATOMIC_SEQ_CST);

		__atomic_store_n(&r->ver, a, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&f->started, __ATOMIC_SEQ_CST) + 1 <
		    a + FSX_VERSIONS)
			return a;
		__atomic_store_n(&r->ver, FSX_IDLE, __ATOMIC_SEQ_CST);
		task_yield();
	}
}

static unsigned long reader_end(struct fsx_file *f)
{
	return __atomic_load_n(&f->started, __ATOMIC_SEQ_CST);
}

/* A range to read: half of the time inside the one being changed. */
static void pick_range(struct reader_arg *ra, loff_t *off, size_t *len)
{
	struct fsx *x = ra->x;
	loff_t hot = __atomic_load_n(&ra->f->hot_len, __ATOMIC_RELAXED);

	if (hot && fsx_rand(&ra->rnd) % 2) {
		*off = __atomic_load_n(&ra->f->hot_off, __ATOMIC_RELAXED) +
		       (loff_t)(fsx_rand(&ra->rnd) % hot);
	} else {
		*off = (loff_t)(fsx_rand(&ra->rnd) % x->max_len);
	}
	*off = MIN(*off, x->max_len - 1);
	*len =
	    1 + fsx_rand(&ra->rnd) % MIN((loff_t)READ_MAX, x->max_len - *off);
}

static void reader_read(struct reader_arg *ra, uint8_t *buf, bool nowait)
{
	struct iovec iov;
	unsigned long a, b;
	loff_t off;
	size_t len;
	ssize_t n;

	pick_range(ra, &off, &len);
	iov = (struct iovec){ buf, len };
	a = reader_begin(ra->f, ra->r);
	n = nowait ? preadv2(ra->fd, &iov, 1, off, RWF_NOWAIT)
		   : pread(ra->fd, buf, len, off);
	b = reader_end(ra->f);
	if (!(nowait && n < 0 && errno == EAGAIN) &&
	    fsx_check(ra->x,
		      ra->f,
		      buf,
		      off,
		      len,
		      n,
		      a,
		      b,
		      nowait,
		      nowait ? "nowait read" : "read"))
		ra->r->checks++;
	__atomic_store_n(&ra->r->ver, FSX_IDLE, __ATOMIC_SEQ_CST);
}

/* A mapped read below floor: claim map_end, then check floor again. */
static void reader_mapread(struct reader_arg *ra, uint8_t *buf)
{
	struct fsx_file *f = ra->f;
	loff_t off, floor, start;
	unsigned long a, b;
	size_t len;
	char *p;

	pick_range(ra, &off, &len);
	__atomic_store_n(&ra->r->map_end, off + (loff_t)len, __ATOMIC_SEQ_CST);
	floor = __atomic_load_n(&f->floor, __ATOMIC_SEQ_CST);
	if (off + (loff_t)len > floor) {
		len = off < floor ? (size_t)(floor - off) : 0;
		__atomic_store_n(
		    &ra->r->map_end, off + (loff_t)len, __ATOMIC_SEQ_CST);
	}
	if (len) {
		start = off & ~(loff_t)(PAGE_SIZE - 1);
		a = reader_begin(f, ra->r);
		p = mmap(NULL,
			 off + len - start,
			 PROT_READ,
			 MAP_SHARED,
			 ra->fd,
			 start);
		if (p == MAP_FAILED) {
			fsx_fail(ra->x, "mmap %s: errno %d", f->path, errno);
		} else {
			memcpy(buf, p + (off - start), len);
			munmap(p, off + len - start);
			b = reader_end(f);
			if (fsx_check(ra->x,
				      f,
				      buf,
				      off,
				      len,
				      (ssize_t)len,
				      a,
				      b,
				      false,
				      "mapread"))
				ra->r->checks++;
		}
		__atomic_store_n(&ra->r->ver, FSX_IDLE, __ATOMIC_SEQ_CST);
	}
	__atomic_store_n(&ra->r->map_end, 0, __ATOMIC_SEQ_CST);
}

static void reader_willneed(struct reader_arg *ra, unsigned int how)
{
	loff_t off, start;
	size_t len;
	char *p;

	pick_range(ra, &off, &len);
	if (how == 0) {
		readahead(ra->fd, off, len);
	} else if (how == 1) {
		posix_fadvise(ra->fd, off, len, POSIX_FADV_WILLNEED);
	} else {
		start = off & ~(loff_t)(PAGE_SIZE - 1);
		p = mmap(NULL,
			 off + len - start,
			 PROT_READ,
			 MAP_SHARED,
			 ra->fd,
			 start);
		if (p != MAP_FAILED) {
			madvise(p, off + len - start, MADV_WILLNEED);
			munmap(p, off + len - start);
		}
	}
}

int fsx_reader_task(void *arg)
{
	struct reader_arg *ra = arg;
	uint8_t *buf = kmalloc(READ_MAX, GFP_KERNEL);

	ra->fd = open(ra->f->path, O_RDONLY);
	if (!buf || ra->fd < 0) {
		fsx_fail(ra->x, "reader: %s: errno %d", ra->f->path, errno);
		kfree(buf);
		return 1;
	}
	while (!__atomic_load_n(&ra->x->stop, __ATOMIC_SEQ_CST)) {
		switch (fsx_rand(&ra->rnd) % 8) {
		case 0:
		case 1:
		case 2: reader_read(ra, buf, false); break;
		case 3: reader_read(ra, buf, true); break;
		case 4:
		case 5: reader_mapread(ra, buf); break;
		default: reader_willneed(ra, fsx_rand(&ra->rnd) % 3); break;
		}
	}
	close(ra->fd);
	kfree(buf);
	return 0;
}

/* -k: do each store the mutator hands out, through the held mapping,
 * at once or a little later, so that it lands before the operation beside
 * it, inside it (a fault waiting for invalidate_lock) or after it. */
int fsx_storer_task(void *arg)
{
	struct fsx *x = arg;
	struct fsx_storer *s = &x->storer;
	unsigned long done = 0;

	for (;;) {
		unsigned long go = __atomic_load_n(&s->go, __ATOMIC_SEQ_CST);

		if (go == done) {
			if (__atomic_load_n(&x->stop, __ATOMIC_SEQ_CST))
				break;
			task_yield();
			continue;
		}
		switch (fsx_rand(&s->rnd) % 4) {
		case 0: task_yield(); break;
		case 1: task_sleep_ms(1); break;
		default: break;
		}
		if (__atomic_load_n(&s->returned, __ATOMIC_SEQ_CST) != go)
			s->early++;
		memcpy(s->f->map + s->off, s->buf, s->len);
		s->stores++;
		done = go;
		__atomic_store_n(&s->done, done, __ATOMIC_SEQ_CST);
	}
	return 0;
}

/*
 * The third parties, between 0 and 2 ms apart: writeback that no
 * operation asked for, while the mutator invalidates and the readers
 * fill. A flush round writes every dirty file; an fsync, from this task's
 * own descriptor, one file; reclaim frees up to 64 clean pages of the
 * cache (writing dirty ones first), so the readers and the mutator's
 * reads miss and fill again. None takes invalidate_lock; the page locks
 * keep them out of an invalidation's way. Errors are not theirs to
 * report: the mutator's fsync and the final check see a lost write.
 */
int fsx_third_task(void *arg)
{
	struct fsx *x = arg;
	struct fsx_third *th = &x->third;

	while (!__atomic_load_n(&x->stop, __ATOMIC_SEQ_CST)) {
		uint64_t r = fsx_rand(&th->rnd);
		struct fsx_file *f = &x->files[(r >> 8) % x->nfiles];
		int fd;

		switch (r % 3) {
		case 0:
			writeback_all(false);
			th->flushes++;
			break;
		case 1:
			fd = open(f->path, O_RDONLY);
			if (fd >= 0) {
				fsync(fd);
				close(fd);
				th->fsyncs++;
			}
			break;
		default:
			th->reclaimed += reclaim_pages(1 + (r >> 16) % 64);
			th->reclaims++;
			break;
		}
		task_sleep_ms((unsigned int)((r >> 24) % 3));
	}
	return 0;
}

bool fsx_verify_all(struct fsx *x, const char *when)
{
	uint8_t *buf = kmalloc(x->max_len, GFP_KERNEL);
	bool ok = buf != NULL;

	for (unsigned int i = 0; ok && i < x->nfiles; i++) {
		struct fsx_file *f = &x->files[i];
		unsigned long v = f->done;
		ssize_t n = pread(f->fd, buf, x->max_len, 0);

		ok = fsx_check(x, f, buf, 0, x->max_len, n, v, v, false, when);
	}
	kfree(buf);
	return ok;
}
