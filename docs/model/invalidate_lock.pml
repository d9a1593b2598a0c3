/*
 * docs/model/invalidate_lock.pml: a SPIN model of whole's invalidate_lock
 * protocol (docs/locking.md) on one file's page cache and block map.
 *
 * Run it with ./tools/spin (every check, trails printed readably) or by
 * hand:  spin -a [-DLEGACY] [-DINVAL=PUNCH] docs/model/invalidate_lock.pml
 *        gcc -O2 -DSAFETY -o pan pan.c && ./pan
 * Defines: LEGACY, LOCK_TWO, UNORDERED (below); INVAL=op and FILL=n pin the
 * operation and the fill path (else the search tries them all, see init);
 * REPRODUCER adds the kernel reproducers' gates; LEAK_ONLY narrows the
 * invariant to another file's data (see foreign()). PREALLOC_HOLE checks
 * preallocation instead (fallocate KEEP_SIZE over a hole at index 0, whose
 * old block is free and poisoned); NO_FILL_WAIT drops its wait for the
 * fills' locked pages (it must fail).
 *
 * The file A has two pages (indices 0 and 1) backed by blocks 1 and 2 of a
 * disk of NBLK blocks (0 stands for "hole"). Index 0 starts absent from the
 * cache, index 1 present but not uptodate (a read failed once), so both the
 * read-miss and the not-uptodate paths have work. Tasks:
 *   inval      one invalidating operation (PUNCH, TRUNCATE, ZERO range,
 *              COLLAPSE range; or PREALLOC) under invalidate_lock exclusive
 *   fill       read of index 0 (miss), read of index 1 (not uptodate),
 *              fault + page_mkwrite of index 0, a readahead batch of 0..1
 *   fast       the cached-hit reader: no lock at all
 *   nowait     the RWF_NOWAIT reader: trylock, -EAGAIN rather than wait
 *   other      file B: the allocator hands it a freed block and B writes
 *              its own data there
 *   writeback  writes dirty pages to the block their buffers name
 * LEGACY removes the fill paths' invalidate_lock (and their i_size recheck
 * under it), as the boot argument invalidate_lock=off does.
 * LOCK_TWO checks filemap_invalidate_lock_two instead: two tasks lock the
 * same two mappings in opposite argument orders, one locks a mapping with
 * itself; UNORDERED drops the ordering by address (it must deadlock).
 *
 * Race points: race_point(NAME) marks the place where the kernel's
 * race_point(NAME, obj) stands. kernel/race_points.def is the one list of
 * names (those marked MODEL are here); tools/race_points.py checks both
 * sides against it. A replayed trail prints "race point NAME by task N".
 */

/* One mtype constant per point of the list that the model has: at_NAME. */
#define RACE_POINT_DEF(name, where) RACE_POINT_##where(name)
#define RACE_POINT_KERNEL(name)
#define RACE_POINT_MODEL(name) at_##name,
mtype = {
#include "../../kernel/race_points.def"
	at_no_point
};
#define race_point(name) name: printf("race point %e by task %d\n", at_##name, _pid)

mtype = { PUNCH, TRUNCATE, ZERO, COLLAPSE, PREALLOC };	/* the invalidating operations */

#define NPAGE 2
#define NBLK 4		/* blocks 1..3; 0 = hole */

/* fill kinds */
#define READ 1		/* read of one index: miss or not uptodate */
#define FAULT_MKWRITE 2	/* fault, then a store: page_mkwrite */
#define READAHEAD 3	/* one batch over both indices */

/* page states (the page lock is apart: plocked) */
#define ABSENT 0
#define NOTUPTODATE 1
#define UPTODATE 2
#define DIRTY 3

/* block contents and owners */
#define DATA_ZERO 0
#define DATA_A 1
#define DATA_B 2
#define POISON 3	/* a freed block, as the kernel's tests poison them */
#define FREE 0
#define FILE_A 1
#define FILE_B 2

/* Data A must never see: B's, or a freed block's poison. LEAK_ONLY keeps
 * B's alone, so that a trail shows the block freed and reused. */
#ifdef LEAK_ONLY
#define foreign(d) ((d) == DATA_B)
#else
#define foreign(d) ((d) == DATA_B || (d) == POISON)
#endif

byte owner[NBLK];	/* FREE, FILE_A or FILE_B */
byte bdata[NBLK];	/* what the block holds on disk */
byte amap[NPAGE];	/* A's block map: index -> block, 0 = hole */
byte isize = NPAGE;	/* A's size in pages */

byte pstate[NPAGE];	/* page cache of A, one slot per index */
bool plocked[NPAGE];	/* page lock of the page in the slot */
byte pgen[NPAGE];	/* bumped at each insertion: which page is there */
byte pblk[NPAGE];	/* the block the page's buffer maps (0 = hole) */
byte pdata[NPAGE];	/* what the page holds */
bool pmapped[NPAGE];	/* a PTE maps the page */

short ilk;		/* invalidate_lock: 0 free, n readers, -1 writer */
bool inval_done;	/* the invalidating operation has finished */

/* ---- invalidate_lock, page lock, allocator ---- */

inline lock_shared() { atomic { ilk >= 0 -> ilk++ } }
inline unlock_shared() { assert(ilk > 0); ilk-- }
inline lock_excl() { atomic { ilk == 0 -> ilk = -1 } }
inline unlock_excl() { assert(ilk == -1); ilk = 0 }

#ifdef LEGACY
inline fill_lock() { skip }
inline fill_unlock() { skip }
#else
inline fill_lock() { lock_waiting = 1; lock_shared(); lock_waiting = 0 }
inline fill_unlock() { unlock_shared() }
#endif

/* REPRODUCER: the gates of the kernel's race reproducers (tests/race.c)
 * force their schedule: the fill stops at RACE_FILL_START until the
 * invalidation stops at RACE_INVAL_DROPPED; the invalidation stays there
 * until the fill has passed RACE_FILL_MAPPED (and stopped there) or waits
 * for invalidate_lock; then the invalidation goes on, and the fill too.
 * A gate stops a task once. Without REPRODUCER every gate is open. */
bool lock_waiting;	/* a fill waits for invalidate_lock */
#ifdef REPRODUCER
bool at_dropped, at_mapped, released, start_gate_used, mapped_gate_used;
inline gate_fill_start() {
	if
	:: !start_gate_used -> start_gate_used = 1; at_dropped
	:: else
	fi
}
inline gate_fill_mapped() {
	if
	:: !mapped_gate_used -> mapped_gate_used = 1; at_mapped = 1; released
	:: else
	fi
}
inline gate_inval_dropped() {
	at_dropped = 1; (at_mapped || lock_waiting); released = 1
}
#else
inline gate_fill_start() { skip }
inline gate_fill_mapped() { skip }
inline gate_inval_dropped() { skip }
#endif

/* Lock the page a task found at @p in generation @g: ok = 0 if it left the
 * cache meanwhile (the kernel's page->mapping != mapping: start again). */
inline lock_page(p, g, ok) {
	atomic {
		(pstate[p] == ABSENT || pgen[p] != g || !plocked[p]) ->
		if
		:: pstate[p] != ABSENT && pgen[p] == g -> plocked[p] = 1; ok = 1
		:: else -> ok = 0
		fi
	}
}

/* Take a free block for @file; b = 0 if there is none (ENOSPC). */
inline alloc_block(file, b) {
	atomic {
		if
		:: owner[1] == FREE -> b = 1
		:: owner[2] == FREE -> b = 2
		:: owner[3] == FREE -> b = 3
		:: else -> b = 0
		fi;
		if
		:: b != 0 -> owner[b] = file
		:: else
		fi
	}
}

inline free_block(b) {
	if
	:: b != 0 ->
		assert(owner[b] == FILE_A);
		atomic {
			owner[b] = FREE; bdata[b] = POISON;
			printf("A frees block %d\n", b)
		}
	:: else
	fi
}

/* ---- the page cache's doors ---- */

/* Insertion (filemap_add_page): a new page, locked, not uptodate. */
inline add_page(p) {
	atomic {
		assert(pstate[p] == ABSENT);
		pstate[p] = NOTUPTODATE; plocked[p] = 1; pgen[p]++;
		pblk[p] = 0; pdata[p] = DATA_ZERO
	}
}

/* Map the locked page's block and read it; the read completes after the
 * fill may have dropped invalidate_lock, as the kernel's bio does. */
inline map_block(p) {
	pblk[p] = amap[p];
	printf("fill maps index %d to block %d\n", p, pblk[p])
}

inline read_done(p) {
	atomic {
		pdata[p] = (pblk[p] != 0 -> bdata[pblk[p]] : DATA_ZERO);
		pstate[p] = UPTODATE; plocked[p] = 0;
		printf("read of index %d from block %d done: data %d\n", p, pblk[p], pdata[p])
	}
}

/* Removal (truncate_inode_pages_range): caller holds invalidate_lock
 * exclusive; waits for the page lock like the kernel. */
inline remove_page(p) {
	assert(ilk == -1);
	atomic {
		!plocked[p] ->
		pmapped[p] = 0; pstate[p] = ABSENT; pblk[p] = 0; pdata[p] = DATA_ZERO;
		printf("inval drops index %d\n", p)
	}
}

/* ---- the invalidating task ---- */

/* Preallocation of index 0 (ext2 has no unwritten extents): the hole gets
 * a block, mapped first and written with zeroes after; the cached pages
 * over holes stay (they hold zeroes). A fill's new page is locked until
 * its read ends but the fill no longer holds the lock, so the kernel
 * first waits for every locked page of the range (filemap_wait_fills). */
inline prealloc_hole(b) {
#ifndef NO_FILL_WAIT
	atomic { !plocked[0] -> printf("prealloc: no fill of index 0 in flight\n") };
#endif
	if
	:: amap[0] == 0 ->
		alloc_block(FILE_A, b);
		if
		:: b != 0 ->
			amap[0] = b;
			printf("prealloc maps index 0 to block %d, not zeroed yet\n", b);
			bdata[b] = DATA_ZERO;
			printf("prealloc zeroes block %d\n", b)
		:: else /* ENOSPC: nothing changes */
		fi
	:: else
	fi
}

proctype inval(byte op) {
	byte b;

	lock_excl();
	printf("inval %e takes invalidate_lock exclusive\n", op);
	if
	:: op == PREALLOC -> prealloc_hole(b); goto out
	:: else
	fi;
	if
	:: op == TRUNCATE -> isize = 0
	:: else
	fi;
	/* unmap_mapping_range, then truncate_inode_pages_range */
	remove_page(0);
	remove_page(1);
	race_point(RACE_INVAL_DROPPED);
	gate_inval_dropped();
	if
	:: op != COLLAPSE ->
		free_block(amap[0]); amap[0] = 0;
		free_block(amap[1]); amap[1] = 0
	:: else -> /* collapse index 0: index 1's block moves down */
		free_block(amap[0]);
		amap[0] = amap[1]; amap[1] = 0; isize = 1
	fi;
	if
	:: op == ZERO -> /* ext2 has no unwritten extents: zeroed blocks */
		alloc_block(FILE_A, b);
		if
		:: b != 0 -> bdata[b] = DATA_ZERO; amap[0] = b
		:: else /* ENOSPC after the punch: a hole reads zeros too */
		fi
	:: else
	fi;
out:
	inval_done = 1;
	unlock_excl()
}

/* ---- file B takes what the allocator gives it ---- */

proctype other() {
	byte b;

end_wait:
	atomic {
		(owner[1] == FREE || owner[2] == FREE || owner[3] == FREE) ->
		alloc_block(FILE_B, b)
	};
	atomic {
		bdata[b] = DATA_B;
		printf("B reuses block %d and writes its data\n", b)
	}
}

/* ---- writeback ---- */

inline write_page(p) {
	printf("writeback of index %d to block %d\n", p, pblk[p]);
	assert(pblk[p] != 0 && owner[pblk[p]] == FILE_A);
	atomic { bdata[pblk[p]] = pdata[p]; pstate[p] = UPTODATE; plocked[p] = 0 }
}

proctype writeback() {
end_idle:
	do
	:: atomic { pstate[0] == DIRTY && !plocked[0] -> plocked[0] = 1 };
		write_page(0)
	:: atomic { pstate[1] == DIRTY && !plocked[1] -> plocked[1] = 1 };
		write_page(1)
	od
}

/* ---- readers with no lock ---- */

/* The cached hit (read or fault): page uptodate, no lock of any kind. The
 * task keeps its reference, so the page it copies stays even if it is
 * dropped meanwhile: it reads the file as it was before the punch. */
inline copy_hit(p, ok) {
	atomic {
		if
		:: pstate[p] == UPTODATE || pstate[p] == DIRTY ->
			assert(!foreign(pdata[p]));
			ok = 1
		:: else -> ok = 0
		fi
	}
}

proctype fast(byte p) {
	bool ok;

	copy_hit(p, ok);
	printf("fast reader of index %d: %d\n", p, ok)
}

/* RWF_NOWAIT: a hit, or trylock shared; never waits, never starts I/O. */
proctype nowait(byte p) {
	bool ok;

	copy_hit(p, ok);
	if
	:: ok
	:: else ->
		atomic {
			if
			:: ilk >= 0 -> ilk++; ok = 1
			:: else -> ok = 0
			fi
		};
		if
		:: ok -> /* page not uptodate: no I/O, -EAGAIN */
			unlock_shared()
		:: else
		fi;
		printf("nowait reader of index %d: EAGAIN\n", p)
	fi
}

/* ---- the fill paths ---- */

/* Bring index p uptodate, invalidate_lock held shared (unless LEGACY) on
 * entry and dropped here: right after inserting a new page (ok = 1), whose
 * lock then orders the read against every invalidation (remove_page waits
 * for it before any block is freed); after the read's block look-up for a
 * page found not uptodate (ok = 2), which an invalidation may have passed
 * already (in the kernel: the partial page at a punch's edge stays cached,
 * not uptodate, while its blocks are freed; the model has no partial
 * pages). ok = 0 if the page left the cache (start again). */
inline fill_page(p, g, ok) {
	atomic {
		if
		:: pstate[p] == ABSENT -> add_page(p); ok = 1
		:: else -> g = pgen[p]; ok = 2
		fi
	};
	if
	:: ok == 1 -> fill_unlock()
	:: else ->
		lock_page(p, g, ok);
		if
		:: ok -> ok = 2
		:: else
		fi
	fi;
	if
	:: ok && pstate[p] == NOTUPTODATE ->
		map_block(p);
		race_point(RACE_FILL_MAPPED);
		gate_fill_mapped();
		if
		:: ok == 2 -> fill_unlock()
		:: else
		fi;
		read_done(p)
	:: ok && pstate[p] != NOTUPTODATE ->
		plocked[p] = 0; fill_unlock()
	:: else -> fill_unlock()
	fi
}

/* i_size as the fill sees it: sampled before the lock; the fixed kernel
 * samples it again under the lock (truncate changes it under exclusive). */
inline fill_size(sz) {
#ifndef LEGACY
	sz = isize
#else
	skip
#endif
}

proctype fill(byte kind; byte p) {
	byte sz, g, q, mine;
	byte ok;

again:
	sz = isize;
	copy_hit(p, ok);
	if
	:: ok && kind != READAHEAD -> goto mapped
	:: else
	fi;
	race_point(RACE_FILL_START);
	gate_fill_start();
	fill_lock();
	fill_size(sz);
	if
	:: kind == READAHEAD ->
		/* one batch: every absent index below EOF inserted under the
		 * lock, then mapped and read with the new pages' locks alone */
		q = 0;
		do
		:: q < NPAGE ->
			atomic {
				if
				:: q < sz && pstate[q] == ABSENT ->
					add_page(q); mine = mine | (1 << q)
				:: else
				fi
			};
			q++
		:: else -> break
		od;
		fill_unlock();
		q = 0;
		do
		:: q < NPAGE ->
			if
			:: mine & (1 << q) -> map_block(q)
			:: else
			fi;
			q++
		:: else -> break
		od;
		race_point(RACE_FILL_MAPPED);
		gate_fill_mapped();
		q = 0;
		do
		:: q < NPAGE ->
			if
			:: mine & (1 << q) -> read_done(q)
			:: else
			fi;
			q++
		:: else -> break
		od;
		goto done
	:: kind != READAHEAD && p >= sz -> fill_unlock(); goto done /* EOF */
	:: else -> fill_page(p, g, ok)
	fi;
	if
	:: !ok -> goto again
	:: else
	fi;
	copy_hit(p, ok);
	if
	:: !ok -> goto again /* dropped meanwhile: the kernel retries */
	:: else
	fi;
mapped:
	if
	:: kind == FAULT_MKWRITE -> goto mkwrite
	:: else -> goto done
	fi;
mkwrite:
	/* the fault maps the page; the first store calls page_mkwrite, which
	 * allocates a block for a hole and dirties the page. The page's buffer
	 * keeps the block it mapped at read time (block_page_mkwrite). */
	fill_lock();
	g = pgen[p];
	lock_page(p, g, ok);
	if
	:: ok && (pstate[p] == UPTODATE || pstate[p] == DIRTY) ->
		if
		:: pblk[p] == 0 ->
			atomic { /* the block map and the page's buffer */
				alloc_block(FILE_A, q);
				if
				:: q != 0 -> amap[p] = q; pblk[p] = q
				:: else
				fi
			}
		:: else
		fi;
		if
		:: pblk[p] != 0 ->
			atomic { pmapped[p] = 1; pdata[p] = DATA_A; pstate[p] = DIRTY }
		:: else /* ENOSPC: SIGBUS */
		fi;
		plocked[p] = 0
	:: ok && !(pstate[p] == UPTODATE || pstate[p] == DIRTY) -> plocked[p] = 0
	:: else /* truncated meanwhile: SIGBUS or refault */
	fi;
	fill_unlock();
done:
	skip
}

/* ---- invariants ---- */

/* STALE: an uptodate or dirty page holds what the block the file maps
 * there now holds: its buffer names that block (0 = hole both). */
#define page_fresh(p) \
	(!(pstate[p] == UPTODATE || pstate[p] == DIRTY) || pblk[p] == amap[p])
/* LEAK: no uptodate or dirty page holds another file's data or a freed
 * block's poison. */
#define page_clean(p) \
	(!(pstate[p] == UPTODATE || pstate[p] == DIRTY) || !foreign(pdata[p]))

/* EOF: once the operation is over, no page lies at or past EOF. */
#define page_inside(p) (!inval_done || pstate[p] == ABSENT || p < isize)

#ifdef LEAK_ONLY
#define INVARIANT (page_clean(0) && page_clean(1))
#elif defined(PREALLOC_HOLE)
/* A kept page over the hole still names no block (its zeroes are right):
 * no freshness by buffer; no poison and no other file's data in a page. */
#define INVARIANT (page_clean(0) && page_clean(1))
#else
#define INVARIANT (page_fresh(0) && page_fresh(1) && page_clean(0) && \
		   page_clean(1) && page_inside(0) && page_inside(1))
#endif

#ifndef LOCK_TWO
active proctype monitor() {
end_watch:
	atomic { !INVARIANT -> assert(INVARIANT) }
}
#endif

/* ---- filemap_invalidate_lock_two ---- */

short ilk2[2];	/* two mappings' invalidate_lock; index = address order */

inline lock_excl2(m) { atomic { ilk2[m] == 0 -> ilk2[m] = -1 } }
inline unlock_excl2(m) { assert(ilk2[m] == -1); ilk2[m] = 0 }

/* Lock a and b (the same mapping once), lower address first. */
proctype lock_two(byte a; byte b) {
	byte first, second;

#ifdef UNORDERED
	first = a; second = b;
#else
	first = (a < b -> a : b); second = (a < b -> b : a);
#endif
	lock_excl2(first);
	race_point(RACE_LOCK_TWO_FIRST);
	if
	:: second != first -> lock_excl2(second)
	:: else
	fi;
	printf("lock_two(%d, %d) holds both\n", a, b);
	if
	:: second != first -> unlock_excl2(second)
	:: else
	fi;
	unlock_excl2(first)
}

/* One invalidating operation and one fill path per run, each chosen by the
 * search (all of them are verified) unless INVAL=op or FILL=n pins it:
 * FILL 1 read of index 0 (a miss), 2 read of index 1 (not uptodate),
 * 3 fault and page_mkwrite of index 0, 4 a readahead batch. */
#ifdef PREALLOC_HOLE
#define choose_op(op) op = PREALLOC
#elif defined(INVAL)
#define choose_op(op) op = INVAL
#else
#define choose_op(op) if :: op = PUNCH :: op = TRUNCATE :: op = ZERO :: op = COLLAPSE fi
#endif
#ifdef FILL
#define may_fill(n) (FILL == n)
#else
#define may_fill(n) true
#endif

init {
	mtype op;

	atomic {
#ifdef PREALLOC_HOLE
		owner[1] = FREE; bdata[1] = POISON; amap[0] = 0;
#else
		owner[1] = FILE_A; bdata[1] = DATA_A; amap[0] = 1;
#endif
		owner[2] = FILE_A; bdata[2] = DATA_A; amap[1] = 2;
		owner[3] = FILE_B; bdata[3] = DATA_B;
		pstate[1] = NOTUPTODATE; pgen[1] = 1;
#ifdef LOCK_TWO
		run lock_two(0, 1); run lock_two(1, 0); run lock_two(1, 1)
#else
		choose_op(op);
		run inval(op); run other(); run writeback();
		run fast(0); run nowait(1);
		if
		:: may_fill(1) -> run fill(READ, 0)
		:: may_fill(2) -> run fill(READ, 1)
		:: may_fill(3) -> run fill(FAULT_MKWRITE, 0)
		:: may_fill(4) -> run fill(READAHEAD, 0)
		fi
#endif
	}
}
