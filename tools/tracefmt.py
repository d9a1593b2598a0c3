"""tools/tracefmt.py: read a whole trace dump, write Chrome trace JSON and SVG.

The dump is what `trace dump` (kernel/trace.c) prints, found anywhere in a
console log:
    trace: begin HARTS EVENTS_PER_HART
    trace: race ID NAME
    trace: hart CPU kept K dropped D
    trace: e NS CPU TID TYPE A B        (A, B in hex)
    trace: end N

parse(text) -> Trace; chrome_json(trace) -> dict (load the file in
https://ui.perfetto.dev or chrome://tracing); svg(trace, title) -> str, a
timeline with one lane per hart: the task running on it, and a mark with
a label for each event, in time order (the x axis is the order of events,
with their times written under it, so that events microseconds apart stay
readable).
"""

import html
import re
from dataclasses import dataclass, field

# enum trace_type (kernel/trace.h)
TASK, SWITCH, LOCK_WAIT, LOCK_TAKE, LOCK_DROP, PAGE_ADD, PAGE_DEL, BIO_SUBMIT, \
    BIO_DONE, RACE, BLOCK_FREE = range(1, 12)
LOCKS = {1: "i_rwsem", 2: "invalidate_lock"}          # b >> 8
MODES = {1: "exclusive", 2: "shared"}                  # b & 0xff
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


def describe(t, e):
    """A short label for event @e."""
    if e.type == SWITCH:
        return f"run {task(t, e.a)}"
    if e.type in (LOCK_WAIT, LOCK_TAKE, LOCK_DROP):
        verb = {LOCK_WAIT: "waits", LOCK_TAKE: "takes", LOCK_DROP: "drops"}[e.type]
        return (f"{verb} {LOCKS.get(e.b >> 8, '?')} {MODES.get(e.b & 0xff, '?')}"
                f" (ino {e.a})")
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
    held = {}      # (tid, lock key) -> (name, since)
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
        if e.type in (LOCK_WAIT, LOCK_TAKE, LOCK_DROP):
            lane = 1000 + e.tid
            if e.tid not in tasks_seen:
                tasks_seen.add(e.tid)
                out.append({"ph": "M", "pid": 1, "tid": lane, "name": "thread_name",
                            "args": {"name": f"task {task(t, e.tid)}"}})
            key = (e.tid, e.a, e.b >> 8)
            lock = f"{LOCKS.get(e.b >> 8, '?')} ino {e.a}"
            if key in held:
                name, since = held.pop(key)
                out.append({"ph": "X", "pid": 1, "tid": lane, "name": name,
                            "ts": us(since), "dur": us(e.ns - since)})
            if e.type == LOCK_WAIT:
                held[key] = (f"waits for {lock} {MODES.get(e.b & 0xff)}", e.ns)
            elif e.type == LOCK_TAKE:
                held[key] = (f"holds {lock} {MODES.get(e.b & 0xff)}", e.ns)
    for cpu, (tid, since) in running.items():
        out.append({"ph": "X", "pid": 1, "tid": cpu, "name": task(t, tid),
                    "ts": us(since), "dur": us(end - since)})
    for (tid, _, _), (name, since) in held.items():
        out.append({"ph": "X", "pid": 1, "tid": 1000 + tid, "name": name,
                    "ts": us(since), "dur": us(end - since)})
    return {"traceEvents": out, "displayTimeUnit": "ns"}


PALETTE = ("#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
           "#b3de69", "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f")
COLOURS = {LOCK_WAIT: "#d62728", LOCK_TAKE: "#2ca02c", LOCK_DROP: "#7f7f7f",
           PAGE_ADD: "#1f77b4", PAGE_DEL: "#9467bd", BIO_SUBMIT: "#ff7f0e",
           BIO_DONE: "#8c564b", RACE: "#000000", BLOCK_FREE: "#e377c2"}


def svg(t, title, keep=None):
    """One lane per hart; x = event order. @keep(event) filters the marks
    (switches are always used for the lanes' task bars)."""
    marks = [e for e in t.events if e.type != SWITCH and (keep is None or keep(e))]
    step, left, lane_h, top = 34, 150, 70, 60
    label_room = 440
    width = left + step * (len(marks) + 1) + 260  # the last labels run right
    height = top + lane_h * t.harts + label_room
    colour_of = {}
    x_of = {}
    for i, e in enumerate(marks):
        x_of[id(e)] = left + step * (i + 1)

    def colour(tid):
        if tid not in colour_of:
            colour_of[tid] = PALETTE[len(colour_of) % len(PALETTE)]
        return colour_of[tid]

    def x_at(ns):
        """x of time @ns: between the marks around it."""
        before = [m for m in marks if m.ns <= ns]
        return x_of[id(before[-1])] + step / 2 if before else left

    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
         f'font-family="monospace" font-size="11">',
         f'<rect width="{width}" height="{height}" fill="white"/>',
         f'<text x="10" y="20" font-size="14">{html.escape(title)}</text>',
         '<text x="10" y="38" fill="#555">lanes: harts; bars: the task running; '
         'marks: events in time order (x is order, not scale)</text>']
    running = {}
    bars = []
    for e in t.events:
        if e.type == SWITCH:
            if e.cpu in running:
                bars.append((e.cpu, running[e.cpu][0], running[e.cpu][1], e.ns))
            running[e.cpu] = (e.a, e.ns)
    end = t.events[-1].ns if t.events else 0
    for cpu, (tid, since) in running.items():
        bars.append((cpu, tid, since, end))
    for cpu in range(t.harts):
        y = top + cpu * lane_h
        s.append(f'<text x="10" y="{y + lane_h / 2}">hart {cpu}</text>')
        s.append(f'<line x1="{left}" y1="{y + lane_h - 4}" x2="{width - 20}" '
                 f'y2="{y + lane_h - 4}" stroke="#ccc"/>')
    for cpu, tid, since, until in bars:
        x0, x1 = x_at(since), x_at(until)
        if x1 - x0 < 1 or t.names.get(tid, "").startswith("idle"):
            continue
        y = top + cpu * lane_h + 8
        s.append(f'<rect x="{x0}" y="{y}" width="{x1 - x0}" height="22" '
                 f'fill="{colour(tid)}" stroke="#666"/>')
        s.append(f'<text x="{x0 + 3}" y="{y + 15}">{html.escape(task(t, tid))}</text>')
    base = top + lane_h * t.harts
    for i, e in enumerate(marks):
        x = x_of[id(e)]
        y = top + e.cpu * lane_h + 44
        c = COLOURS.get(e.type, "#333")
        s.append(f'<circle cx="{x}" cy="{y}" r="5" fill="{c}"/>')
        s.append(f'<line x1="{x}" y1="{y + 5}" x2="{x}" y2="{base + 6}" '
                 f'stroke="{c}" stroke-dasharray="2,2"/>')
        label = f"{e.ns / 1e6:.3f} ms {task(t, e.tid)}: {describe(t, e)}"
        s.append(f'<text transform="translate({x + 4},{base + 10}) rotate(60)" '
                 f'fill="{c}">{html.escape(label)}</text>')
    s.append("</svg>")
    return "\n".join(s) + "\n"
