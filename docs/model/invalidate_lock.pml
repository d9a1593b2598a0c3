/*
 * docs/model/invalidate_lock.pml: a SPIN model of whole's invalidate_lock
 * protocol (docs/locking.md) on one file's page cache, its block map and
 * writeback, with blocks smaller than a page.
 *
 * Run it with ./tools/spin (every check, trails printed readably) or by
 * hand:  spin -a [-DLEGACY] [-DINVAL=PUNCH] docs/model/invalidate_lock.pml
 *        gcc -O0 -DSAFETY -o pan pan.c && ./pan
 * Defines (tools/spinmodel.py CHECKS uses each):
 *   INVAL=op, FILL=n     pin the operation and the fill path (else the
 *                        search tries every one, see init)
 *   LEGACY               no fill path takes invalidate_lock (nor reads
 *                        i_size again under it): invalidate_lock=off
 *   NO_LOCK_MISS, NO_LOCK_NOTUPTODATE, NO_LOCK_RA, NO_LOCK_MKWRITE
 *                        the same for one path only: the read miss, the
 *                        read of a page found not uptodate, readahead,
 *                        page_mkwrite (its fault's read keeps its lock)
 *   NO_EXCL=op           that operation takes no invalidate_lock
 *   NO_EDGE_HOLD         punch unlocks its partial edge pages right after
 *                        zeroing them, before it frees their blocks (the
 *                        kernel before truncate_inode_pages_hold_edges)
 *   NO_ISIZE_EXTENDED_MKCLEAN  growing the file leaves the old EOF page
 *                        writable (no pagecache_isize_extended)
 *   REPRODUCER           the kernel reproducers' gates (tests/race.c)
 *   READERS              adds the two readers that take no lock (fast,
 *                        nowait); they change nothing another task sees,
 *                        and the monitor checks every state they could
 *                        read, but they multiply the states by some 27
 *   LEAK_ONLY            only another file's data counts as bad: in A's
 *                        cache, or overwritten in B's blocks
 *   NO_HOLE              block 2 starts on disk block 3 (data A2), not a
 *                        hole: both of punch's edge pages have blocks
 *                        to free, zero range allocates nothing
 *   PREALLOC_HOLE        preallocation (fallocate KEEP_SIZE) over a hole
 *                        at block 0, whose old block is free and poisoned;
 *                        NO_FILL_WAIT drops its wait for the fills' locked
 *                        pages (it must fail)
 *   RECLAIM              adds reclaim (see reclaim_page) beside writeback;
 *                        NO_RECLAIM_LOCK lets it drop a locked page (it
 *                        must fail)
 *   LOCK_TWO             filemap_invalidate_lock_two instead: two tasks
 *                        lock the same two mappings in opposite argument
 *                        orders, one locks a mapping with itself;
 *                        UNORDERED drops the ordering by address (it must
 *                        deadlock)
 *
 * Geometry: a page holds two blocks (BPP). Sizes and ranges are counted
 * in half blocks, so that a range can cut a block: a block is 2, a page 4.
 * The file A has two pages, logical blocks 0..3 (page p holds 2p, 2p+1),
 * and starts 6 half blocks long (3 blocks): block 0 on disk block 1
 * (data A0), block 1 on disk block 2 (A1), block 2 a hole inside EOF
 * (NO_HOLE: on disk block 3, A2), block 3 past EOF. The other disk blocks
 * are free and hold garbage (POISON). Page 0 starts absent from the cache, page 1 cached but not
 * uptodate (a read failed once), so both the read-miss and the
 * not-uptodate paths have work.
 *
 * Pages remember no blocks, as in the C code: the fills (read_one_page)
 * and writeback (wpages_one) look each block up in the live block map at
 * the moment they do; a bio in flight keeps the disk block it was built
 * for (iob[]) until it completes.
 *
 * Tasks:
 *   inval      one operation under invalidate_lock exclusive:
 *                PUNCH     [1, 6): half of block 0 (zeroed through the
 *                          cache, filemap_zero_range), blocks 1 and 2
 *                          freed; both pages are partial edge pages, held
 *                          locked from their zeroing until the free
 *                          (mm/truncate.c truncate_inode_pages_hold_edges)
 *                ZERO      [2, 6): block 2 (a hole) allocated and zeroed,
 *                          blocks 1 and 2 zeroed on disk; both pages are
 *                          partial edges
 *                COLLAPSE  block 1 out: flush_from page 0 (write back and
 *                          drop everything), block 1 freed, block 2 moves
 *                          down, size 4
 *                INSERT    a hole at block 1: flush_from page 0, blocks
 *                          1.. move up, size 8
 *                TRUNCATE  to 3: the tail of block 1 zeroed and written
 *                          (filemap_truncate_tail), page 1 dropped, blocks
 *                          2.. freed
 *                GROW      truncate up to 8: block 3 comes inside EOF; the
 *                          old EOF page is write-protected (page_mkclean)
 *                PREALLOC  (PREALLOC_HOLE) block 0 allocated, then zeroed
 *   fill       FILL 1 read of page 0 (a miss), 2 read of page 1 (not
 *              uptodate), 3 a store to block 1 through a shared mapping
 *              (fault, page_mkwrite), 4 a readahead batch of 0..1, 5 a
 *              store to block 2, then one to block 3 once the operation
 *              has returned (past EOF before a GROW or an INSERT)
 *   fast       (READERS) the cached-hit reader of page 0: no lock at all
 *   nowait     (READERS) the RWF_NOWAIT reader of page 1: trylock, -EAGAIN
 *   other      file B: the allocator hands it a block A freed (any of
 *              them), B writes its own data there
 *   writeback  the flusher (mm/writeback.c, fs/ext2/file.c): takes a
 *              dirty page's lock, write-protects it, clears dirty, sets
 *              writeback, reads i_size, zeroes the page past EOF, maps
 *              each block inside EOF from the live map (a hole with data
 *              in it: "dirty data ... no disk block: not written", data
 *              lost, an assertion), unlocks; later the bio writes the
 *              page's data to the blocks it mapped and writeback ends
 *   reclaim    (RECLAIM) writes a dirty page as writeback does, drops a
 *              clean one it could lock (mm/vmscan.c shrink_page)
 *   init       at the end (every task done, no write in flight) writes
 *              back what is dirty, as sync would, and checks the file
 *
 * What must hold (the monitor, init's end check and assertions on the
 * way):
 *   LEAK   no uptodate page of A holds B's data or a freed block's poison
 *   B      each block B owns holds B's data (no write of A landed there)
 *   WRITE  writeback writes only A's blocks, and loses no dirty data
 *   EOF    once the operation is over, no page lies wholly past EOF
 *   FILE   at the end, every block inside EOF reads (from the cache and
 *          from the disk) what the operations and the store made of it:
 *          wantE (the operation took effect at its end) or wantS (at its
 *          start: a store that landed during the operation goes after it);
 *          no block is mapped past EOF
 *
 * Race points: race_point(NAME) marks the place where the kernel's
 * race_point(NAME, obj) stands. kernel/race_points.def is the one list of
 * names (those marked MODEL are here); tools/race_points.py checks both
 * sides against it. A replayed trail prints "race point NAME by task N".
 * The kernel's points marked KERNEL in that list that the model has too
 * print "point NAME by task N", where the kernel places them:
 * RACE_ALLOC_LINKED, RACE_WB_MAPPED (writeback has mapped a batch's
 * blocks - here a batch of one page - and unlocked it, the bio not
 * submitted), RACE_INVAL_FREED (the block map changed, held pages let go,
 * partial blocks not zeroed yet) and RACE_INVAL_UNLOCK (invalidate_lock
 * dropped next).
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

/* the operations */
mtype = { PUNCH, TRUNCATE, ZERO, COLLAPSE, INSERT, GROW, PREALLOC };

#define NPAGE 2
#define BPP 2		/* blocks per page */
#define NLB 4		/* logical blocks of A: NPAGE * BPP */
#define NBLK 5		/* disk blocks 1..4; 0 = hole */
#define H_BLOCK 2	/* sizes in half blocks */
#define H_PAGE 4

/* page states (the page lock, PG_writeback and a writable PTE apart) */
#define ABSENT 0
#define NOTUPTODATE 1
#define UPTODATE 2
#define DIRTY 3

/* what a block holds, on disk or in its part of a cached page */
#define ZEROES 0
#define A0 1		/* A's data as the file began, block 0 */
#define A1 2		/* and block 1 */
#define A2 6		/* and block 2 (NO_HOLE) */
#define NEW 3		/* what the store wrote */
#define DATA_B 4	/* file B's data */
#define POISON 5	/* a freed or never used block's garbage */
#define HZ 8		/* flag: the half of the block that the operation's
			 * range (or EOF) cuts is zeroed */
#define hz(d) ((d) == ZEROES -> ZEROES : ((d) | HZ))

/* owners */
#define FREE 0
#define FILE_A 1
#define FILE_B 2

/* Data A must never see: B's, or a freed block's poison. LEAK_ONLY keeps
 * B's alone, so that a trail shows the block freed and reused. */
#ifdef LEAK_ONLY
#define foreign(d) (((d) & 7) == DATA_B)
#else
#define foreign(d) (((d) & 7) == DATA_B || ((d) & 7) == POISON)
#endif

byte owner[NBLK];	/* FREE, FILE_A or FILE_B */
byte bdata[NBLK];	/* what the block holds on disk */
byte freed;		/* bit b: A freed block b (B's allocator takes it) */
byte amap[NLB];		/* A's block map: logical block -> disk block */
byte isize = 6;		/* A's size in half blocks */
#define inside(l) (H_BLOCK * (l) < isize)	/* block l starts inside EOF */

byte pstate[NPAGE];	/* page cache of A, one slot per index */
bool plocked[NPAGE];	/* page lock of the page in the slot */
bool pwb[NPAGE];	/* PG_writeback */
bool pwrite[NPAGE];	/* a shared mapping maps it writable */
byte pgen[NPAGE];	/* bumped at each insertion: which page is there */
byte pd[NLB];		/* the page data of each block (page p: 2p, 2p+1) */
byte iob[NLB];		/* a bio in flight for the block: its disk block */

byte wantS[NLB], wantE[NLB];	/* what the file must read, see FILE */

short ilk;		/* invalidate_lock: 0 free, n readers, -1 writer */
bool inval_done;	/* the invalidating operation has finished */
byte nrun;		/* tasks that have not ended (B and writeback apart) */
bool over;		/* init's end check ran */

/* ---- which lock each path takes (the mutants drop one) ---- */

#ifdef LEGACY
#define NO_LOCK_MISS
#define NO_LOCK_NOTUPTODATE
#define NO_LOCK_RA
#define NO_LOCK_MKWRITE
#endif
#ifdef NO_LOCK_MISS
#define L_MISS 0
#else
#define L_MISS 1
#endif
#ifdef NO_LOCK_NOTUPTODATE
#define L_NU 0
#else
#define L_NU 1
#endif
#ifdef NO_LOCK_RA
#define L_RA 0
#else
#define L_RA 1
#endif
#ifdef NO_LOCK_MKWRITE
#define L_MK 0
#else
#define L_MK 1
#endif
#ifdef NO_EXCL
#define excl(op) ((op) != NO_EXCL)
#else
#define excl(op) true
#endif
#ifdef NO_EDGE_HOLD
#define EDGE_HOLD 0
#else
#define EDGE_HOLD 1
#endif

/* ---- invalidate_lock, page lock, allocator ---- */

inline lock_shared() { d_step { ilk >= 0 -> ilk++ } }
inline unlock_shared() { assert(ilk > 0); ilk-- }
inline lock_excl() { d_step { ilk == 0 -> ilk = -1 } }
inline unlock_excl() { assert(ilk == -1); ilk = 0 }

/* a fill path's lock, if it takes one (@on: L_MISS ...) */
inline fill_lock(on) {
	if
	:: on -> lock_waiting = 1; lock_shared(); lock_waiting = 0
	:: else
	fi
}
inline fill_unlock(on) {
	if
	:: on -> unlock_shared()
	:: else
	fi
}

/* REPRODUCER: the gates of the kernel's race reproducers (tests/race.c)
 * force their schedule: the fill stops at RACE_FILL_START until the
 * invalidation stops at RACE_INVAL_DROPPED; the invalidation stays there
 * until the fill has passed RACE_FILL_MAPPED (and stopped there), waits
 * for invalidate_lock or has ended (a hit: a page the operation read in
 * itself); then the invalidation goes on, and the fill too.
 * A gate stops a task once. Without REPRODUCER every gate is open. */
bool lock_waiting;	/* a fill waits for invalidate_lock */
bool fill_gone;		/* the fill has ended */
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
	at_dropped = 1; (at_mapped || lock_waiting || fill_gone); released = 1
}
#else
inline gate_fill_start() { skip }
inline gate_fill_mapped() { skip }
inline gate_inval_dropped() { skip }
#endif

/* Lock the page a task found at @p in generation @g: ok = 0 if it left the
 * cache meanwhile (the kernel's page->mapping != mapping: start again). */
inline lock_page(p, g, ok) {
	d_step {
		(pstate[p] == ABSENT || pgen[p] != g || !plocked[p]) ->
		if
		:: pstate[p] != ABSENT && pgen[p] == g -> plocked[p] = 1; ok = 1
		:: else -> ok = 0
		fi
	}
}

/* A free block for A, the lowest; b = 0 if there is none (ENOSPC). */
inline alloc_a(b) {
	b = 1;
	do
	:: b < NBLK && owner[b] != FREE -> b++
	:: else -> break
	od;
	if
	:: b == NBLK -> b = 0
	:: else -> owner[b] = FILE_A; freed = freed & ~(1 << b)
	fi
}

/* A frees block b (ext2_free_range): poisoned, as the kernel's tests do. */
inline free_block(b) {
	if
	:: b != 0 ->
		assert(owner[b] == FILE_A);
		owner[b] = FREE; bdata[b] = POISON; freed = freed | (1 << b);
		printf("A frees block %d\n", b)
	:: else
	fi
}

/* ---- the page cache's doors ---- */

/* Insertion (filemap_add_page): a new page, locked, not uptodate. */
inline add_page(p) {
	assert(pstate[p] == ABSENT);
	pstate[p] = NOTUPTODATE; plocked[p] = 1; pgen[p]++;
	pd[BPP * p] = ZEROES; pd[BPP * p + 1] = ZEROES
}

/* read_one_page: each block inside EOF looked up in the live map, the
 * others (and holes) zeroes; the bio keeps its blocks. @inval: the
 * invalidating task reads (filemap_zero_range, filemap_truncate_tail). */
inline read_map(p, inval) {
	d_step {
		iob[BPP * p] = (inside(BPP * p) -> amap[BPP * p] : 0);
		iob[BPP * p + 1] = (inside(BPP * p + 1) -> amap[BPP * p + 1] : 0);
		if
		:: inval -> printf("inval reads index %d: blocks %d %d\n",
				   p, iob[BPP * p], iob[BPP * p + 1])
		:: else -> printf("fill maps index %d to blocks %d %d\n",
				  p, iob[BPP * p], iob[BPP * p + 1])
		fi
	}
}

/* The read completes (after the fill may have dropped invalidate_lock, as
 * the kernel's bio does): the data the blocks hold now. */
inline read_done(p) {
	d_step {
		pd[BPP * p] = (iob[BPP * p] != 0 -> bdata[iob[BPP * p]] : ZEROES);
		pd[BPP * p + 1] = (iob[BPP * p + 1] != 0 -> bdata[iob[BPP * p + 1]] : ZEROES);
		printf("read of index %d from blocks %d %d done: data %d %d\n",
		       p, iob[BPP * p], iob[BPP * p + 1], pd[BPP * p], pd[BPP * p + 1]);
		iob[BPP * p] = 0; iob[BPP * p + 1] = 0;
		pstate[p] = UPTODATE; plocked[p] = 0
	}
}

/* How much of block j of a page the half blocks [from, to) of the page
 * cover: 2 all, 1 half, 0 none. */
#define cover(j, from, to) \
	(((from) <= H_BLOCK * (j) && H_BLOCK * (j) + H_BLOCK <= (to)) -> 2 : \
	 (((from) < H_BLOCK * (j) + H_BLOCK && H_BLOCK * (j) < (to)) -> 1 : 0))

inline zero_cover(l, n) {
	if
	:: n == 2 -> pd[l] = ZEROES
	:: n == 1 -> pd[l] = hz(pd[l])
	:: else
	fi
}

/* Zero the half blocks [from, to) of the cached page p. */
inline zero_part(p, from, to) {
	zero_cover(BPP * p, cover(0, from, to));
	zero_cover(BPP * p + 1, cover(1, from, to))
}

/* truncate_page (mm/truncate.c), for truncate_inode_pages_range's walk:
 * lock the page, wait for its writeback; a page the range covers leaves
 * the cache (its entries first), a partial one is write-protected and
 * zeroed in the range. @hold keeps a partial page locked (punch, the fix)
 * and notes it in @held. An absent page: nothing to do. */
inline trunc_page(p, from, to, hold, held) {
	d_step {
		(pstate[p] == ABSENT || (!plocked[p] && !pwb[p])) ->
		if
		:: from == 0 && to == H_PAGE ->
			printf("inval drops index %d\n", p);
			pwrite[p] = 0; pstate[p] = ABSENT;
			pd[BPP * p] = ZEROES; pd[BPP * p + 1] = ZEROES
		:: else ->
			printf("inval zeroes part of index %d\n", p);
			if
			:: pstate[p] != ABSENT ->
				pwrite[p] = 0;	/* page_mkclean */
				if
				:: pstate[p] != NOTUPTODATE -> zero_part(p, from, to)
				:: else
				fi;
				if
				:: hold -> plocked[p] = 1; held = held | (1 << p)
				:: else
				fi
			:: else
			fi
		fi
	}
}

inline release_held(held) {
	d_step {
		if
		:: held & 1 -> plocked[0] = 0; printf("inval unlocks index 0\n")
		:: else
		fi;
		if
		:: held & 2 -> plocked[1] = 0; printf("inval unlocks index 1\n")
		:: else
		fi;
		held = 0
	}
}

/* ---- writeback ---- */

/* One block of wpages_one: inside EOF, the live map's block, or (a hole)
 * nothing: its data had better be zeroes, else it is lost. */
inline wb_block(l) {
	if
	:: inside(l) -> iob[l] = amap[l]
	:: else -> iob[l] = 0
	fi
}

inline wb_lost(l) {
	if
	:: inside(l) && iob[l] == 0 && pd[l] != ZEROES ->
		printf("WRITE: dirty data for block %d, which has no disk block: not written\n", l)
	:: else
	fi;
	assert(!inside(l) || iob[l] != 0 || pd[l] == ZEROES)
}

/* The page is locked: writeout_prepare (page_mkclean, clear dirty, set
 * writeback), then wpages_one (i_size, the page zeroed past EOF, each
 * block inside EOF mapped), then the page is unlocked. */
inline wb_map(p) {
	pwrite[p] = 0; pstate[p] = UPTODATE; pwb[p] = 1;
	if
	:: isize > H_PAGE * p && isize < H_PAGE * p + H_PAGE ->
		zero_part(p, isize - H_PAGE * p, H_PAGE)
	:: else
	fi;
	wb_block(BPP * p);
	wb_block(BPP * p + 1);
	printf("writeback of index %d maps blocks %d %d\n",
	       p, iob[BPP * p], iob[BPP * p + 1]);
	wb_lost(BPP * p);
	wb_lost(BPP * p + 1);
	printf("point RACE_WB_MAPPED by task %d\n", _pid)
}

/* The bio: the page's data to the blocks mapped, then writeback ends. */
inline wb_write_block(l) {
	if
	:: iob[l] != 0 ->
		if
		:: owner[iob[l]] != FILE_A ->
			printf("WRITE: block %d is not A's (owner %d)\n", iob[l], owner[iob[l]])
		:: else
		fi;
#ifdef LEAK_ONLY
		assert(owner[iob[l]] != FILE_B);
#else
		assert(owner[iob[l]] == FILE_A);
#endif
		bdata[iob[l]] = pd[l]; iob[l] = 0
	:: else
	fi
}

inline wb_write(p) {
	printf("writeback of index %d writes blocks %d %d: data %d %d\n",
	       p, iob[BPP * p], iob[BPP * p + 1], pd[BPP * p], pd[BPP * p + 1]);
	wb_write_block(BPP * p);
	wb_write_block(BPP * p + 1);
	pwb[p] = 0
}

proctype writeback() {
end_idle:
	do
	:: d_step { !over && pstate[0] == DIRTY && !plocked[0] && !pwb[0] -> wb_map(0) }
	:: d_step { !over && pwb[0] -> wb_write(0) }
	:: d_step { !over && pstate[1] == DIRTY && !plocked[1] && !pwb[1] -> wb_map(1) }
	:: d_step { !over && pwb[1] -> wb_write(1) }
	od
}

/* Reclaim (mm/vmscan.c shrink_page), with RECLAIM. It chooses a page by
 * a reference (RACE_RECLAIM_CHOSEN), then trylocks it: a page locked or
 * under writeback stays, and so does one a shared mapping maps writable
 * (the mapping's reference: filemap_delete_page refuses it). A dirty page
 * is written as the flusher writes it (write_for_reclaim: wb_map, and
 * writeback() ends the bio); a clean one, uptodate or not, leaves the
 * cache. The kernel skips a page that left the cache after it was chosen
 * (its page->mapping is gone); here reclaim takes whatever page is at the
 * index then, which it could have chosen as well. It drops each index
 * once at most: a fill that finds its page gone starts again, and
 * unbounded drops would make that a loop with no end (the kernel's
 * reclaim does not choose one page forever either). NO_RECLAIM_LOCK: the
 * drop ignores the page lock (it must fail). */
#ifdef NO_RECLAIM_LOCK
#define reclaim_lock_ok(p) true
#else
#define reclaim_lock_ok(p) (!plocked[p])
#endif

bool rdropped[NPAGE];	/* reclaim dropped the page at that index */

inline reclaim_page(p) {
	d_step {
		!over && pstate[p] != ABSENT && !pwb[p] && !pwrite[p] &&
		(pstate[p] == DIRTY -> !plocked[p] :
					 !rdropped[p] && reclaim_lock_ok(p)) ->
		printf("point RACE_RECLAIM_CHOSEN by task %d\n", _pid);
		if
		:: pstate[p] == DIRTY -> wb_map(p)
		:: else ->
			printf("reclaim drops index %d\n", p);
			pstate[p] = ABSENT; rdropped[p] = 1;
			pd[BPP * p] = ZEROES; pd[BPP * p + 1] = ZEROES
		fi
	}
}

proctype reclaim() {
end_idle:
	do
	:: reclaim_page(0)
	:: reclaim_page(1)
	od
}

/* filemap_write_and_wait_range by the invalidating task for page p:
 * written if dirty (as a sync writer: after any writeback in flight),
 * then waited for. */
inline sync_page(p, w) {
	d_step {
		(pstate[p] != DIRTY || !plocked[p]) && !pwb[p] ->
		if
		:: pstate[p] == DIRTY -> wb_map(p); w = 1
		:: else -> w = 0
		fi
	};
	if
	:: w -> d_step { wb_write(p) }
	:: else
	fi
}

/* ---- file B takes what the allocator gives it ---- */

proctype other() {
	byte b;

end_wait:
	atomic {
		if
		:: freed & (1 << 1) -> b = 1
		:: freed & (1 << 2) -> b = 2
		:: freed & (1 << 3) -> b = 3
		:: freed & (1 << 4) -> b = 4
		fi;
		assert(owner[b] == FREE);
		owner[b] = FILE_B; bdata[b] = DATA_B; freed = freed & ~(1 << b);
		printf("B reuses block %d and writes its data\n", b)
	}
}

/* ---- the invalidating task ---- */

/* What an operation makes of the file's blocks: applied to wantS when it
 * starts and to wantE when it ends. */
#define apply_op(w, op) \
	if \
	:: op == PUNCH -> w[0] = hz(w[0]); w[1] = ZEROES; w[2] = ZEROES \
	:: op == ZERO -> w[1] = ZEROES; w[2] = ZEROES \
	:: op == COLLAPSE -> w[1] = w[2]; w[2] = ZEROES; w[3] = ZEROES \
	:: op == INSERT -> w[3] = w[2]; w[2] = w[1]; w[1] = ZEROES \
	:: op == TRUNCATE -> w[1] = hz(w[1]); w[2] = ZEROES; w[3] = ZEROES \
	:: op == GROW -> w[3] = ZEROES \
	:: op == PREALLOC -> skip \
	fi

/* filemap_wait_fills for page p: a fill's page stays locked until its
 * read ends. */
inline wait_fill(p) {
	d_step { pstate[p] == ABSENT || !plocked[p] }
}

/* ext2_alloc_range for a hole: the block is mapped first and zeroed on
 * disk after. */
inline alloc_hole(l, b) {
	if
	:: amap[l] == 0 ->
		d_step { alloc_a(b) };
		assert(b != 0);	/* the model has blocks enough */
		amap[l] = b;
		printf("inval maps block %d to block %d, not zeroed yet\n", l, b);
		printf("point RACE_ALLOC_LINKED by task %d\n", _pid);
		bdata[b] = ZEROES;
		printf("inval zeroes block %d\n", b)
	:: else
	fi
}

/* grab_uptodate_page: page p locked and uptodate, read in (under the
 * invalidating task's lock) if it must be. */
inline grab_uptodate(p, g, ok) {
	do
	:: atomic {
		if
		:: pstate[p] == ABSENT ->
			add_page(p); printf("inval inserts index %d\n", p)
		:: pstate[p] != ABSENT && !plocked[p] -> plocked[p] = 1
		fi
	   };
	   if
	   :: pstate[p] == NOTUPTODATE ->
		read_map(p, 1);
		read_done(p);
		g = pgen[p];
		lock_page(p, g, ok);
		if
		:: ok -> break
		:: else
		fi
	   :: else -> break
	   fi
	od
}

/* filemap_zero_range of the half of block l that the range cuts: the
 * page read if need be, zeroed there (after its writeback) and dirtied. */
inline zero_block_part(l, g, ok) {
	grab_uptodate(l / BPP, g, ok);
	atomic {
		!pwb[l / BPP] ->
		pd[l] = hz(pd[l]); pstate[l / BPP] = DIRTY; plocked[l / BPP] = 0;
		printf("inval zeroes half of block %d in the cache (dirty)\n", l)
	}
}

/* fs/ext2/falloc.c punch_hole over [1, 6) of a file of size 6: both
 * pages are partial (truncate_inode_pages_hold_edges), and each stays
 * locked (its writeback waited for) from its zeroing until the block map
 * has changed, so writeback maps a page's blocks before (and the punch
 * waited for that write) or after the free (holes: nothing to write); a
 * read of a page not uptodate waits too. NO_EDGE_HOLD unlocks each at
 * once, as before. */
inline punch_hole(held, g, ok) {
	trunc_page(0, 1, H_PAGE, EDGE_HOLD, held);
	trunc_page(1, 0, 2, EDGE_HOLD, held);
	race_point(RACE_INVAL_DROPPED);
	gate_inval_dropped();
	/* ext2_free_range(1, 3) */
	d_step {
		free_block(amap[1]); amap[1] = 0;
		free_block(amap[2]); amap[2] = 0
	};
	release_held(held);	/* truncate_release_edges */
	printf("point RACE_INVAL_FREED by task %d\n", _pid);
	/* zero_partial_blocks: the half of block 0 in the range */
	zero_block_part(0, g, ok)
}

/* alloc_or_zero(ZERO_RANGE) over [2, 6) of a file of size 6. */
inline zero_range(held, b) {
	wait_fill(0);
	wait_fill(1);
	/* ext2_alloc_range(1, 3): block 2 is a hole */
	alloc_hole(1, b);
	alloc_hole(2, b);
	trunc_page(0, 2, H_PAGE, 0, held);
	trunc_page(1, 0, 2, 0, held);
	race_point(RACE_INVAL_DROPPED);
	gate_inval_dropped();
	/* ext2_alloc_range(1, 3, zero): the whole blocks zeroed on disk */
	d_step {
		bdata[amap[1]] = ZEROES;
		printf("inval zeroes block %d on disk\n", amap[1])
	};
	d_step {
		bdata[amap[2]] = ZEROES;
		printf("inval zeroes block %d on disk\n", amap[2])
	};
	printf("point RACE_INVAL_FREED by task %d\n", _pid)
	/* zero_partial_blocks: the range cuts no block */
}

/* collapse_range / insert_range of block 1 (off 2, len 2). */
inline shift_range(w) {
	/* flush_from(2): write back and drop from page 0 on */
	sync_page(0, w);
	sync_page(1, w);
	trunc_page(0, 0, H_PAGE, 0, w);
	trunc_page(1, 0, H_PAGE, 0, w);
	race_point(RACE_INVAL_DROPPED);
	gate_inval_dropped();
	d_step {
		if
		:: op == COLLAPSE ->
			free_block(amap[1]);
			amap[1] = amap[2]; amap[2] = amap[3]; amap[3] = 0
		:: else ->
			amap[3] = amap[2]; amap[2] = amap[1]; amap[1] = 0
		fi;
		printf("inval shifts the map: %d %d %d %d\n",
		       amap[0], amap[1], amap[2], amap[3])
	};
	isize = (op == COLLAPSE -> 4 : 8);
	printf("point RACE_INVAL_FREED by task %d\n", _pid)
}

/* setsize down to 3 (fs/ext2/inode.c shrink). */
inline shrink(held, g, ok, w) {
	/* filemap_truncate_tail(3, 4): i_size, then the tail of block 1 */
	grab_uptodate(0, g, ok);
	atomic {
		!pwb[0] ->
		isize = 3; pd[1] = hz(pd[1]); pstate[0] = DIRTY; plocked[0] = 0;
		printf("inval sets size 3, zeroes the tail of block 1 (dirty)\n")
	};
	/* truncate_pagecache(3) */
	trunc_page(0, 3, H_PAGE, 0, held);
	trunc_page(1, 0, H_PAGE, 0, held);
	/* filemap_write_and_wait_range(3, 3) */
	sync_page(0, w);
	race_point(RACE_INVAL_DROPPED);
	gate_inval_dropped();
	/* ext2_truncate_blocks(3) */
	d_step {
		free_block(amap[2]); amap[2] = 0;
		free_block(amap[3]); amap[3] = 0
	};
	printf("point RACE_INVAL_FREED by task %d\n", _pid)
}

/* setsize up to 8: the old EOF (6) is block-aligned, so there is no tail
 * to zero (ext2_zero_past_eof); block 3 comes inside EOF with no disk
 * block. Page 1 may be mapped writable by a page_mkwrite that saw size 6
 * and so gave block 3 nothing: pagecache_isize_extended (mm/rmap.c), once
 * the size is stored, write-protects it under its page lock, so that the
 * next store faults into page_mkwrite again. */
inline grow() {
	isize = 8;
	printf("inval sets size 8\n");
#ifndef NO_ISIZE_EXTENDED_MKCLEAN
	d_step {
		!plocked[1] -> pwrite[1] = 0;
		printf("inval write-protects index 1 (page_mkclean)\n")
	}
#endif
}

/* alloc_or_zero(KEEP_SIZE) over block 0, a hole: it first waits for every
 * locked page of its range (filemap_wait_fills), since it keeps the cached
 * pages over holes and the new block holds old bytes until zeroed. */
inline prealloc_hole(b) {
#ifndef NO_FILL_WAIT
	wait_fill(0);
	printf("prealloc: no fill of index 0 in flight\n");
#endif
	alloc_hole(0, b)
}

proctype inval(byte op) {
	byte held, b, g, w;
	bool ok;

	if
	:: excl(op) -> lock_excl();
		printf("inval %e takes invalidate_lock exclusive\n", op)
	:: else -> printf("inval %e takes no invalidate_lock\n", op)
	fi;
	d_step { apply_op(wantS, op) };
	if
	:: op == PUNCH -> punch_hole(held, g, ok)
	:: op == ZERO -> zero_range(held, b)
	:: op == COLLAPSE || op == INSERT -> shift_range(w)
	:: op == TRUNCATE -> shrink(held, g, ok, w)
	:: op == GROW -> grow()
	:: op == PREALLOC -> prealloc_hole(b)
	fi;
	d_step { apply_op(wantE, op); inval_done = 1 };
	printf("point RACE_INVAL_UNLOCK by task %d\n", _pid);
	if
	:: excl(op) -> unlock_excl()
	:: else
	fi;
	nrun--
}

/* ---- readers with no lock ---- */

/* The cached hit (read or fault): page uptodate, no lock of any kind. The
 * task keeps its reference, so the page it copies stays even if it is
 * dropped meanwhile: it reads the file as it was before the punch. */
inline copy_hit(p, g, ok) {
	d_step {
		if
		:: pstate[p] == UPTODATE || pstate[p] == DIRTY ->
			if
			:: foreign(pd[BPP * p]) || foreign(pd[BPP * p + 1]) ->
				printf("LEAK: a reader copies index %d: data %d %d\n",
				       p, pd[BPP * p], pd[BPP * p + 1])
			:: else
			fi;
			assert(!foreign(pd[BPP * p]) && !foreign(pd[BPP * p + 1]));
			g = pgen[p]; ok = 1
		:: else -> ok = 0
		fi
	}
}

proctype fast(byte p) {
	byte g;
	bool ok;

	copy_hit(p, g, ok);
	printf("fast reader of index %d: %d\n", p, ok);
	nrun--
}

/* RWF_NOWAIT: a hit, or trylock shared; never waits, never starts I/O. */
proctype nowait(byte p) {
	byte g;
	bool ok;

	copy_hit(p, g, ok);
	if
	:: ok
	:: else ->
		d_step {
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
	fi;
	nrun--
}

/* ---- the fill paths ---- */

/* read()'s way to an uptodate page p (the fault's too): a hit; else a
 * miss, invalidate_lock shared around the insertion (the read then runs
 * under the new page's lock, which every invalidation waits for before it
 * frees a block); else a page found not uptodate, the lock held from
 * before lock_page through the read's submission (an invalidation may
 * have passed that page: partial edge pages stay cached). Ends with ok = 1
 * and g the page's generation when the page is uptodate, ok = 0 at EOF. */
inline read_path(p, sz, g, ok, miss) {
	do
	:: sz = isize;
	   if
	   :: H_PAGE * p >= sz -> ok = 0; break	/* EOF */
	   :: else
	   fi;
	   copy_hit(p, g, ok);
	   if
	   :: ok -> break
	   :: else
	   fi;
	   race_point(RACE_FILL_START);
	   gate_fill_start();
	   d_step { miss = (pstate[p] == ABSENT); g = pgen[p] };
	   if
	   :: miss ->
		fill_lock(L_MISS);
		if
		:: L_MISS -> sz = isize	/* again, under the lock */
		:: else
		fi;
		d_step {
			if
			:: H_PAGE * p < sz && pstate[p] == ABSENT ->
				add_page(p); ok = 1;
				printf("fill inserts index %d\n", p)
			:: else -> ok = 0
			fi
		};
		fill_unlock(L_MISS)
	   :: else ->
		fill_lock(L_NU);
		lock_page(p, g, ok);
		if
		:: ok && pstate[p] != NOTUPTODATE ->
			plocked[p] = 0; ok = 0; fill_unlock(L_NU)
		:: !ok -> fill_unlock(L_NU)
		:: else
		fi
	   fi;
	   if
	   :: ok ->
		read_map(p, 0);
		race_point(RACE_FILL_MAPPED);
		gate_fill_mapped();
		if
		:: !miss -> fill_unlock(L_NU)
		:: else
		fi;
		read_done(p)
	   :: else
	   fi
	   /* and look again: the hit */
	od
}

proctype fill(byte p) {
	byte sz, g, miss;
	bool ok;

	read_path(p, sz, g, ok, miss);
	fill_gone = 1;
	nrun--
}

/* A readahead batch: every absent index below EOF inserted under the
 * lock, then mapped and read with the new pages' locks alone. */
proctype readahead() {
	byte sz, mine;

	sz = isize;
	race_point(RACE_FILL_START);
	gate_fill_start();
	fill_lock(L_RA);
	if
	:: L_RA -> sz = isize
	:: else
	fi;
	d_step {
		if
		:: sz > 0 && pstate[0] == ABSENT ->
			add_page(0); mine = 1; printf("fill inserts index 0\n")
		:: else
		fi
	};
	d_step {
		if
		:: sz > H_PAGE && pstate[1] == ABSENT ->
			add_page(1); mine = mine | 2; printf("fill inserts index 1\n")
		:: else
		fi
	};
	fill_unlock(L_RA);
	if
	:: mine & 1 -> read_map(0, 0)
	:: else
	fi;
	if
	:: mine & 2 -> read_map(1, 0)
	:: else
	fi;
	race_point(RACE_FILL_MAPPED);
	gate_fill_mapped();
	if
	:: mine & 1 -> read_done(0)
	:: else
	fi;
	if
	:: mine & 2 -> read_done(1)
	:: else
	fi;
	fill_gone = 1;
	nrun--
}

/* page_mkwrite's allocation for block l, a hole inside EOF; b = 0 and
 * ok = 0 on ENOSPC. */
inline mk_alloc(l, b, ok) {
	d_step {
		if
		:: ok && inside(l) && amap[l] == 0 ->
			alloc_a(b);
			if
			:: b != 0 -> amap[l] = b;
				printf("page_mkwrite maps block %d to block %d\n", l, b)
			:: else -> ok = 0
			fi
		:: else
		fi
	}
}

/* Stores to page p through a shared mapping: to block l, then (if l2 is
 * a block, not NLB) to block l2 once the operation has returned - the
 * program stores past the old EOF only after a truncate up it made. A
 * store faults when the entry is not writable: the fault gets the page
 * uptodate (read()'s path), then page_mkwrite, under invalidate_lock
 * shared and the page lock, gives the page's blocks inside EOF disk space
 * and dirties it, and the entry becomes writable; the store lands if the
 * entry is still writable then, else it faults again. */
proctype mkwrite(byte p; byte l; byte l2) {
	byte sz, g, miss, b;
	bool ok;

store:
	atomic {
		if
		:: !inside(l) -> ok = 1	/* past EOF: the store is not file data */
		:: inside(l) && pwrite[p] ->
			assert(pstate[p] == DIRTY);
			pd[l] = NEW; wantS[l] = NEW; wantE[l] = NEW; ok = 1;
			printf("store to block %d lands in the page\n", l)
		:: else -> ok = 0
		fi
	};
	if
	:: ok && l2 == NLB -> goto done
	:: ok ->
end_second:
		inval_done;
		l = l2; l2 = NLB; goto store
	:: else
	fi;
	/* the fault */
	read_path(p, sz, g, ok, miss);
	if
	:: !ok -> goto done	/* past EOF: SIGBUS */
	:: else
	fi;
	race_point(RACE_FILL_START);
	gate_fill_start();
	fill_lock(L_MK);
	lock_page(p, g, ok);
	if
	:: !ok -> fill_unlock(L_MK); goto store
	:: else
	fi;
	if
	:: H_PAGE * p >= isize ->	/* SIGBUS */
		plocked[p] = 0; fill_unlock(L_MK); goto done
	:: else
	fi;
	!pwb[p];	/* wait_on_page_writeback */
	mk_alloc(BPP * p, b, ok);
	mk_alloc(BPP * p + 1, b, ok);
	if
	:: !ok -> plocked[p] = 0; fill_unlock(L_MK); goto done	/* ENOSPC */
	:: else
	fi;
	pstate[p] = DIRTY;
	race_point(RACE_FILL_MAPPED);
	gate_fill_mapped();
	d_step {
		pwrite[p] = 1; plocked[p] = 0;
		printf("page_mkwrite: index %d dirty, mapped writable\n", p)
	};
	fill_unlock(L_MK);
	goto store;
done:
	fill_gone = 1;
	nrun--
}

/* ---- invariants ---- */

#define page_clean(p) \
	(!(pstate[p] == UPTODATE || pstate[p] == DIRTY) || \
	 (!foreign(pd[BPP * p]) && !foreign(pd[BPP * p + 1])))
#define b_intact(b) (owner[b] != FILE_B || bdata[b] == DATA_B)
#define page_inside(p) (!inval_done || pstate[p] == ABSENT || H_PAGE * p < isize)

#define LEAK_OK (page_clean(0) && page_clean(1))
#define B_OK (b_intact(1) && b_intact(2) && b_intact(3) && b_intact(4))
#ifdef LEAK_ONLY
#define EOF_OK true
#else
#define EOF_OK (page_inside(0) && page_inside(1))
#endif
#define INVARIANT (LEAK_OK && B_OK && EOF_OK)

#ifndef LOCK_TWO
active proctype monitor() {
end_watch:
	d_step {
		!INVARIANT ->
		if
		:: !LEAK_OK -> printf("LEAK: a page of A holds another file's data or poison\n")
		:: else
		fi;
		if
		:: !B_OK -> printf("B: a block of B no longer holds B's data\n")
		:: else
		fi;
		if
		:: !EOF_OK -> printf("EOF: a page lies past EOF\n")
		:: else
		fi;
		assert(INVARIANT)
	}
}
#endif

/* FILE: what block l reads now, from the disk and, if cached, the page;
 * a block that EOF cuts compares its inside half only. */
#define disk(l) (amap[l] != 0 -> bdata[amap[l]] : ZEROES)
#define cached(l) (pstate[(l) / BPP] == UPTODATE || pstate[(l) / BPP] == DIRTY)
#define cut(l) (H_BLOCK * (l) < isize && isize < H_BLOCK * (l) + H_BLOCK)
#define same(l, a, b) (cut(l) -> hz(a) == hz(b) : (a) == (b))
#define blk_is(l, w) (!inside(l) || (same(l, disk(l), w[l]) && \
			(!cached(l) || same(l, pd[l], w[l]))))
#define file_is(w) (blk_is(0, w) && blk_is(1, w) && blk_is(2, w) && blk_is(3, w))
#define mapped_inside(l) (inside(l) || amap[l] == 0)

/* ---- filemap_invalidate_lock_two ---- */

short ilk2[2];	/* two mappings' invalidate_lock; index = address order */

inline lock_excl2(m) { d_step { ilk2[m] == 0 -> ilk2[m] = -1 } }
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
 * search (all of them are verified) unless INVAL=op or FILL=n pins it.
 * The reproducers' gates wait for RACE_INVAL_DROPPED, which GROW has not,
 * and hold the operation for the fill, which fill 5 may wait for. */
#ifdef PREALLOC_HOLE
#define choose_op(op) op = PREALLOC
#elif defined(INVAL)
#define choose_op(op) op = INVAL
#elif defined(REPRODUCER)
#define choose_op(op) if :: op = PUNCH :: op = TRUNCATE :: op = ZERO \
			 :: op = COLLAPSE :: op = INSERT fi
#else
#define choose_op(op) if :: op = PUNCH :: op = TRUNCATE :: op = ZERO \
			 :: op = COLLAPSE :: op = INSERT :: op = GROW fi
#endif
#ifdef FILL
#define may_fill(n) (FILL == n)
#elif defined(REPRODUCER)
#define may_fill(n) (n != 5)	/* its second store waits for the operation */
#else
#define may_fill(n) true
#endif

init {
	mtype op;
	byte q;

	atomic {
#ifdef PREALLOC_HOLE
		owner[1] = FREE; bdata[1] = POISON; amap[0] = 0;
		wantS[0] = ZEROES; wantE[0] = ZEROES;
#else
		owner[1] = FILE_A; bdata[1] = A0; amap[0] = 1;
		wantS[0] = A0; wantE[0] = A0;
#endif
		owner[2] = FILE_A; bdata[2] = A1; amap[1] = 2;
		wantS[1] = A1; wantE[1] = A1;
#ifdef NO_HOLE
		owner[3] = FILE_A; bdata[3] = A2; amap[2] = 3;
		wantS[2] = A2; wantE[2] = A2;
#else
		bdata[3] = POISON;
#endif
		bdata[4] = POISON;
		pstate[1] = NOTUPTODATE; pgen[1] = 1;
#ifdef LOCK_TWO
		run lock_two(0, 1); run lock_two(1, 0); run lock_two(1, 1)
#else
		choose_op(op);
		nrun = 2;
		run inval(op); run other(); run writeback();
#ifdef RECLAIM
		run reclaim();
#endif
#ifdef READERS
		nrun = 4;
		run fast(0); run nowait(1);
#endif
		if
		:: may_fill(1) -> run fill(0)
		:: may_fill(2) -> run fill(1)
		:: may_fill(3) -> run mkwrite(0, 1, NLB)
		:: may_fill(4) -> run readahead()
		:: may_fill(5) -> run mkwrite(1, 2, 3)
		fi
#endif
	};
#if !defined(LOCK_TWO) && !defined(LEAK_ONLY)
	/* The end: every task but B and writeback has ended and no write is
	 * in flight. Write back what is dirty (sync), then check the file. */
	d_step {
		nrun == 0 && !pwb[0] && !pwb[1] ->
		over = 1;
		assert(!plocked[0] && !plocked[1]);
		q = 0;
		do
		:: q < NPAGE ->
			if
			:: pstate[q] == DIRTY -> wb_map(q); wb_write(q)
			:: else
			fi;
			q++
		:: else -> break
		od;
		printf("the end: size %d, map %d %d %d %d, disk %d %d %d %d\n",
		       isize, amap[0], amap[1], amap[2], amap[3],
		       disk(0), disk(1), disk(2), disk(3));
		printf("the end: cache %d %d %d %d (pages %d %d), wantE %d %d %d %d, wantS %d %d %d %d\n",
		       pd[0], pd[1], pd[2], pd[3], pstate[0], pstate[1],
		       wantE[0], wantE[1], wantE[2], wantE[3],
		       wantS[0], wantS[1], wantS[2], wantS[3]);
		if
		:: !(file_is(wantE) || file_is(wantS)) ->
			printf("FILE: the file is neither wantE nor wantS\n")
		:: else
		fi;
		assert(file_is(wantE) || file_is(wantS));
		assert(mapped_inside(0) && mapped_inside(1) && mapped_inside(2) &&
		       mapped_inside(3))
	}
#endif
}
