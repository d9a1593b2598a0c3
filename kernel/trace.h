/*
 * kernel/trace.h: an event trace, one ring buffer per hart.
 *
 * Off, an event costs one load and a branch (trace_on is read without a
 * lock). On, each hart writes only its own ring with its interrupts off, so
 * no lock is taken and no hart waits for another; when a ring is full the
 * oldest events are overwritten and counted as dropped. `trace start`,
 * `trace stop` and `trace dump` in the shell; tools/trace draws a dump.
 *
 * Events and their two words (a, b):
 *   TRACE_TASK       a task's name: a, b = its first 16 bytes
 *   TRACE_SWITCH     a = the task switched to, b = the one switched from
 *   TRACE_LOCK_WAIT  lock contended: a = inode, b = TRACE_LOCK_* | mode;
 *                    the page lock's b also holds the page's index <<
 *                    TRACE_LOCK_INDEX_SHIFT (a = 0: a page in no file,
 *                    not yet inserted or already removed)
 *   TRACE_LOCK_TAKE  lock acquired (after any wait), same words
 *   TRACE_LOCK_DROP  lock released, same words (a page's, maybe by the
 *                    I/O completion that ends its read or write)
 *   TRACE_PAGE_ADD   page inserted into the cache: a = inode, b = index
 *   TRACE_PAGE_DEL   page removed from the cache: a = inode, b = index
 *   TRACE_BIO_SUBMIT a = first sector, b = bytes | op << 32
 *   TRACE_BIO_DONE   a = first sector, b = status (0 or -errno)
 *   TRACE_RACE       a race point passed: a = enum race_id
 *   TRACE_BLOCK_FREE ext2 freed blocks: a = first block, b = count (bits
 *                    0-23) | log2 block size << 24 | inode << 32
 * Of the sleeping locks, i_rwsem and invalidate_lock are traced (their
 * lock classes say so), and the page lock (mm/filemap.c). A page inserted
 * into the cache is locked already (its lock's TAKE came before, with
 * a = 0): its PAGE_ADD starts the inserter's hold of it.
 */
#pragma once

#include <kernel/compiler.h>

enum trace_type {
	TRACE_TASK = 1,
	TRACE_SWITCH,
	TRACE_LOCK_WAIT,
	TRACE_LOCK_TAKE,
	TRACE_LOCK_DROP,
	TRACE_PAGE_ADD,
	TRACE_PAGE_DEL,
	TRACE_BIO_SUBMIT,
	TRACE_BIO_DONE,
	TRACE_RACE,
	TRACE_BLOCK_FREE,
	NR_TRACE_TYPES,
};

/* b of the lock events: which lock, in bits 8.., and the lock mode. */
#define TRACE_LOCK_I_RWSEM     (1u << 8)
#define TRACE_LOCK_INVALIDATE  (2u << 8)
#define TRACE_LOCK_PAGE	       (3u << 8)
#define TRACE_LOCK_INDEX_SHIFT 16

struct trace_event {
	uint64_t ns;
	uint16_t type;
	uint16_t cpu;
	int32_t tid;
	uint64_t a, b;
};

extern bool trace_on;

void __trace_event(enum trace_type type, uint64_t a, uint64_t b);

static inline void trace_event(enum trace_type type, uint64_t a, uint64_t b)
{
	if (unlikely(READ_ONCE(trace_on)))
		__trace_event(type, a, b);
}

struct task;
/* Record @t's name (task creation; every live task at trace_start). */
void trace_task(struct task *t);

/* Start with a ring of @pages pages per hart (rounded down to a power of
 * two; 0: 64 pages, 8192 events); an earlier trace is discarded.
 * Return: 0 or -ENOMEM. Context: task. */
int trace_start(unsigned int pages);
void trace_stop(void);
/* Print the stopped trace on the console, the format tools/trace reads.
 * Return: events printed. */
unsigned long trace_dump(void);
/* Events recorded (kept and dropped) since trace_start, for tests. */
unsigned long trace_count(enum trace_type type);
/* Call @fn on each kept event of the stopped trace, per hart in order. */
void trace_for_each(void (*fn)(const struct trace_event *e, void *arg),
		    void *arg);
