"""tools/tracestory.py: what a trace shows, task by task (tools/tracesvg.py
draws it).

    s = story(trace, lanes, keep)

@lanes is the set of task ids that get a lane; keep(event) says which of
their events belong to the story (tools/trace race keeps the race file's
locks and pages, the race points of the fill and of the invalidation...).
The story is made of:

- columns: the events, in time order; each has a column of its own, so
  the picture's x axis is the order of events, not their time.
- holds: each lock a lane's task asked for or held, as column numbers:
  asked (its LOCK_WAIT, or None), got (its LOCK_TAKE, or None: it waited
  until the trace ended), dropped (its LOCK_DROP, or None: held until the
  end). A page lock is the page's: a page enters the cache locked, so its
  PAGE_ADD starts the inserter's hold, and its I/O's completion may let it
  go from an interrupt, in whatever task ran then.
- notes, derived from the events alone:
  LATE_INSERT  a task inserted a page of file F while another held F's
               invalidate_lock exclusive (an invalidation under way), and
               the invalidation did not remove it: the page stays cached
               over the range the invalidation changed;
  STALE_READ   after such an insert, the same task read a block that the
               invalidation freed from F: the page gets the freed block's
               bytes (another file's, once the block is reused);
  BLOCKED      a task waited for a lock while another task held it
               exclusive: the fixed kernel's reader waits for the
               invalidation to finish.
"""

from dataclasses import dataclass, field

import tracefmt as tf

LATE_INSERT, STALE_READ, BLOCKED = "late insert", "stale read", "blocked"
BIO_READ = 0          # enum bio_op (kernel/trace.h BIO_SUBMIT: b >> 32)


@dataclass
class Hold:
    tid: int
    lock: tf.Lock
    asked: int = None
    got: int = None
    dropped: int = None


@dataclass
class Note:
    kind: str         # LATE_INSERT, STALE_READ, BLOCKED
    tid: int          # the lane it is drawn in
    column: int
    text: str
    hold: Hold = None  # BLOCKED: the wait


@dataclass
class Story:
    trace: tf.Trace
    columns: list = field(default_factory=list)   # events
    lanes: list = field(default_factory=list)     # task ids, by first event
    marks: list = field(default_factory=list)     # columns drawn as marks
    holds: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    def name(self, tid):
        return self.trace.names.get(tid, "?")


class _Builder:
    def __init__(self, t, lanes, keep):
        self.s = Story(t)
        self.in_lane = lanes
        self.keep = keep
        self.open = {}      # held: rwsem (tid, name, ino), page (ino, index) -> Hold
        self.waiting = {}   # (that key, the waiter) -> Hold

    def column(self, e):
        self.s.columns.append(e)
        if e.tid in self.in_lane and e.tid not in self.s.lanes:
            self.s.lanes.append(e.tid)
        return len(self.s.columns) - 1

    def hold(self, e, k, key):
        if e.type == tf.LOCK_DROP:
            h = self.open.pop(key, None)
            if h:
                h.dropped = self.column(e)
            return
        if e.type == tf.LOCK_WAIT:
            h = self.waiting[(key, e.tid)] = Hold(e.tid, k, asked=self.column(e))
            self.s.holds.append(h)
            return
        h = self.waiting.pop((key, e.tid), None)   # the end of its wait
        if not h:
            h = Hold(e.tid, k)
            self.s.holds.append(h)
        h.got = self.column(e)
        self.open[key] = h

    def page_drop(self, e, k):
        """A page's unlock: by its ino and index; a page already removed
        from its file (a = 0) is the one its remover holds at that index."""
        key = (k.ino, k.index)
        if not k.ino:
            key = next((key for key, h in self.open.items()
                        if len(key) == 2 and key[1] == k.index and h.tid == e.tid),
                       None)
        if key in self.open:
            self.hold(e, k, key)

    def event(self, e):
        racer = e.tid in self.in_lane and self.keep(e)
        if e.type in tf.LOCK_EVENTS:
            k = tf.lock(e)
            if k.name == tf.PAGE_LOCK and e.type == tf.LOCK_DROP:
                self.page_drop(e, k)
            elif racer and (k.ino or k.name != tf.PAGE_LOCK):
                key = (k.ino, k.index) if k.name == tf.PAGE_LOCK else (e.tid, k.name, k.ino)
                self.hold(e, k, key)
        elif racer and e.type not in (tf.SWITCH, tf.BIO_DONE):
            c = self.column(e)
            self.s.marks.append(c)
            if e.type == tf.PAGE_ADD:   # the page enters the cache locked
                k = tf.Lock(tf.PAGE_LOCK, "exclusive", e.a, e.b)
                h = Hold(e.tid, k, got=c)
                self.open[(e.a, e.b)] = h
                self.s.holds.append(h)


def story(t, lanes, keep=lambda e: True):
    b = _Builder(t, set(lanes), keep)
    for e in t.events:
        b.event(e)
    s = b.s
    s.notes = blocked(s) + late_inserts(s)
    s.notes += stale_reads(s, [n for n in s.notes if n.kind == LATE_INSERT])
    return s


def _end(s, h):
    return len(s.columns) if h.dropped is None else h.dropped


def invalidations(s):
    """The exclusive holds of invalidate_lock: (hold, first column, end)."""
    return [(h, h.got, _end(s, h)) for h in s.holds
            if h.lock.name == "invalidate_lock" and h.lock.mode == "exclusive"
            and h.got is not None]


def blocked(s):
    notes = []
    for w in s.holds:
        if w.asked is None:
            continue
        for h in s.holds:
            if (h.tid != w.tid and h.lock.name == w.lock.name
                    and h.lock.ino == w.lock.ino and h.lock.index == w.lock.index
                    and h.lock.mode == "exclusive" and h.got is not None
                    and h.got < w.asked < _end(s, h)):
                notes.append(Note(BLOCKED, w.tid, w.asked,
                                  f"{s.name(w.tid)} waits: {s.name(h.tid)} holds "
                                  f"{w.lock.name} exclusive", w))
                break
    return notes


def late_inserts(s):
    notes = []
    for c in s.marks:
        e = s.columns[c]
        if e.type != tf.PAGE_ADD:
            continue
        for h, start, end in invalidations(s):
            removed = any(d.type == tf.PAGE_DEL and (d.a, d.b) == (e.a, e.b)
                          and c < i < end for i, d in enumerate(s.columns))
            if h.tid != e.tid and h.lock.ino == e.a and start < c < end and not removed:
                notes.append(Note(LATE_INSERT, e.tid, c,
                                  f"page {e.b} cached while {s.name(h.tid)} "
                                  f"invalidates: it stays", h))
                break
    return notes


def _freed(s, ino, hold):
    """Sector ranges freed from @ino during invalidation @hold."""
    start, end = hold.got, _end(s, hold)
    out = []
    for i, e in enumerate(s.columns):
        if e.type == tf.BLOCK_FREE and e.b >> 32 == ino and start < i <= end:
            shift = (e.b >> 24) & 0xff
            first = e.a << shift >> 9
            out.append((first, first + ((e.b & 0xffffff) << shift >> 9), e.a, i))
    return out


def stale_reads(s, inserts):
    notes = []
    for n in inserts:
        ino = s.columns[n.column].a
        for c in range(n.column + 1, len(s.columns)):
            e = s.columns[c]
            if (e.tid != n.tid or e.type != tf.BIO_SUBMIT or e.b >> 32 != BIO_READ):
                continue
            last = e.a + ((e.b & 0xffffffff) >> 9)
            for first, end, block, freed in _freed(s, ino, n.hold):
                if first < last and e.a < end:
                    when = "freed" if freed < c else "frees next"
                    notes.append(Note(STALE_READ, e.tid, c,
                                      f"stale read: block {block}, which "
                                      f"{s.name(n.hold.tid)} {when}", n.hold))
            break   # the read that fills the inserted page
    return notes
