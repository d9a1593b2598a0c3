"""tools/tracefmt.py: read a whole trace dump, write Chrome trace JSON and SVG.

The dump is what `trace dump` (kernel/trace.c) prints, found anywhere in a
console log:
    trace: begin HARTS EVENTS_PER_HART
    trace: race ID NAME
    trace: hart CPU kept K dropped D
    trace: e NS CPU TID TYPE A B        (A, B in hex)
    trace: end N

parse(text) -> Trace; describe(trace, event) -> a label in the console's
words (race points by their kernel/race_points.def names); lock(event) ->
which lock a lock event is about; chrome_json(trace) -> dict (load the
file in https://ui.perfetto.dev or chrome://tracing). The pictures:
tools/tracestory.py (what happened, task by task) and tools/tracesvg.py.
"""

import re
from dataclasses import dataclass, field

# enum trace_type (kernel/trace.h)
TASK, SWITCH, LOCK_WAIT, LOCK_TAKE, LOCK_DROP, PAGE_ADD, PAGE_DEL, BIO_SUBMIT, \
    BIO_DONE, RACE, BLOCK_FREE = range(1, 12)
LOCK_EVENTS = (LOCK_WAIT, LOCK_TAKE, LOCK_DROP)
LOCKS = {1: "i_rwsem", 2: "invalidate_lock", 3: "page lock"}   # b >> 8 & 0xff
PAGE_LOCK, PAGE_LOCK_KIND = "page lock", 3
INDEX_SHIFT = 16                                       # the page lock's index
EXCLUSIVE = 1
MODES = {EXCLUSIVE: "exclusive", 2: "shared"}          # b & 0xff
BIO_OPS = {0: "read", 1: "write", 2: "flush", 3: "discard", 4: "write-zeroes",
           5: "drv-in"}

LINE = re.compile(r"trace: (.*)$")


@dataclass
class Event:
    ns: int
    cpu: int
    tid: int
    type: int
    a: int
    b: int


@dataclass
class Trace:
    harts: int = 0
    per_hart: int = 0
    races: dict = field(default_factory=dict)     # id -> name
    dropped: dict = field(default_factory=dict)   # cpu -> events lost
    names: dict = field(default_factory=dict)     # tid -> task name
    events: list = field(default_factory=list)    # by time
    complete: bool = False


class BadDump(Exception):
    pass


def parse(text):
    """The first complete dump in @text."""
    t = Trace()
    started = False
    read = 0
    for raw in text.replace("\r", "").splitlines():
        m = LINE.search(raw)
        if not m:
            continue
        w = m.group(1).split()
        if w[0] == "begin":
            t = Trace(harts=int(w[1]), per_hart=int(w[2]))
            started = True
            read = 0
        elif not started:
            continue
        elif w[0] == "race":
            t.races[int(w[1])] = w[2]
        elif w[0] == "hart":
            t.dropped[int(w[1])] = int(w[5])
        elif w[0] == "e":
            read += 1
            e = Event(int(w[1]), int(w[2]), int(w[3]), int(w[4]), int(w[5], 16),
                      int(w[6], 16))
            if e.type == TASK:
                raw_name = e.a.to_bytes(8, "little") + e.b.to_bytes(8, "little")
                t.names[e.tid] = raw_name.rstrip(b"\0").decode(errors="replace")
            else:
                t.events.append(e)
        elif w[0] == "end":
            if int(w[1]) != read:
                raise BadDump(f"the dump says {w[1]} events, {read} read")
            t.complete = True
            break
    if not t.complete:
        raise BadDump("no complete trace dump (trace: begin ... trace: end)")
    t.events.sort(key=lambda e: (e.ns, e.cpu))
    return t


def task(t, tid):
    return f"{t.names.get(tid, '?')}({tid})"


@dataclass(frozen=True)
class Lock:
    name: str           # LOCKS
    mode: str           # MODES
    ino: int            # 0: a page in no file
    index: int = None   # the page lock's page


def lock(e):
    """The lock a LOCK_* event is about (kernel/trace.h: a, b)."""
    name = LOCKS.get(e.b >> 8 & 0xff, "?")
    index = e.b >> INDEX_SHIFT if name == PAGE_LOCK else None
    return Lock(name, MODES.get(e.b & 0xff, "?"), e.a, index)


def lock_label(k):
    if k.name == PAGE_LOCK:
        return f"page lock of page {k.index} (ino {k.ino})"
    return f"{k.name} {k.mode} (ino {k.ino})"


def describe(t, e):
    """A short label for event @e."""
    if e.type == SWITCH:
        return f"run {task(t, e.a)}"
    if e.type in LOCK_EVENTS:
        verb = {LOCK_WAIT: "waits", LOCK_TAKE: "takes", LOCK_DROP: "drops"}[e.type]
        return f"{verb} {lock_label(lock(e))}"
    if e.type == PAGE_ADD:
        return f"page {e.b} of ino {e.a} inserted"
    if e.type == PAGE_DEL:
        return f"page {e.b} of ino {e.a} removed"
    if e.type == BIO_SUBMIT:
        return (f"bio {BIO_OPS.get(e.b >> 32, '?')} sector {e.a} "
                f"+{e.b & 0xffffffff} B")
    if e.type == BIO_DONE:
        status = e.b - (1 << 64) if e.b >> 63 else e.b
        return f"bio done sector {e.a}" + (f" error {status}" if status else "")
    if e.type == RACE:
        return t.races.get(e.a, f"race {e.a}")
    if e.type == BLOCK_FREE:
        sector = e.a << ((e.b >> 24) & 0xff) >> 9
        return (f"ino {e.b >> 32} frees blocks {e.a}+{e.b & 0xffffff} "
                f"(sector {sector})")
    return f"type {e.type}"


def chrome_json(t):
    """Chrome trace events: one thread per hart (what runs there, and each
    event as an instant), one per task for its lock waits and holds."""
    out = [{"ph": "M", "pid": 1, "name": "process_name", "args": {"name": "whole"}}]
    for cpu in range(t.harts):
        out.append({"ph": "M", "pid": 1, "tid": cpu, "name": "thread_name",
                    "args": {"name": f"hart {cpu}"}})
    us = lambda ns: ns / 1000.0  # noqa: E731
    running = {}   # cpu -> (tid, since)
    held = {}      # lock key -> (name, since, task)
    tasks_seen = set()
    end = t.events[-1].ns if t.events else 0
    for e in t.events:
        if e.type == SWITCH:
            prev = running.get(e.cpu)
            if prev:
                out.append({"ph": "X", "pid": 1, "tid": e.cpu, "name": task(t, prev[0]),
                            "ts": us(prev[1]), "dur": us(e.ns - prev[1])})
            running[e.cpu] = (e.a, e.ns)
            continue
        out.append({"ph": "i", "s": "t", "pid": 1, "tid": e.cpu, "ts": us(e.ns),
                    "name": describe(t, e), "args": {"task": task(t, e.tid)}})
        if e.type == PAGE_ADD:   # a page goes in locked (kernel/trace.h)
            e = Event(e.ns, e.cpu, e.tid, LOCK_TAKE, e.a,
                      PAGE_LOCK_KIND << 8 | EXCLUSIVE | e.b << INDEX_SHIFT)
        if e.type in LOCK_EVENTS:
            k = lock(e)
            if k.name == PAGE_LOCK and not k.ino:
                continue         # a page in no file: not inserted yet, or removed
            lane = 1000 + e.tid
            if e.tid not in tasks_seen:
                tasks_seen.add(e.tid)
                out.append({"ph": "M", "pid": 1, "tid": lane, "name": "thread_name",
                            "args": {"name": f"task {task(t, e.tid)}"}})
            # A page's lock may be let go by its I/O's completion, in
            # whatever task the interrupt came: it is the page's, not a task's.
            key = (k.ino, k.index) if k.name == PAGE_LOCK else (e.tid, e.a, k.name)
            if key in held:
                name, since, owner = held.pop(key)
                out.append({"ph": "X", "pid": 1, "tid": 1000 + owner, "name": name,
                            "ts": us(since), "dur": us(e.ns - since)})
            if e.type == LOCK_WAIT:
                held[key] = (f"waits for {lock_label(k)}", e.ns, e.tid)
            elif e.type == LOCK_TAKE:
                held[key] = (f"holds {lock_label(k)}", e.ns, e.tid)
    for cpu, (tid, since) in running.items():
        out.append({"ph": "X", "pid": 1, "tid": cpu, "name": task(t, tid),
                    "ts": us(since), "dur": us(end - since)})
    for name, since, tid in held.values():
        out.append({"ph": "X", "pid": 1, "tid": 1000 + tid, "name": name,
                    "ts": us(since), "dur": us(end - since)})
    return {"traceEvents": out, "displayTimeUnit": "ns"}
