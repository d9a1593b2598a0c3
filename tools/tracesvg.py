"""tools/tracesvg.py: draw a story (tools/tracestory.py) as an SVG picture.

    svg(story, title) -> str
    structure(svg_text) -> {task: [key, ...]}

The picture has one lane per task (its name on the left). x is the order
of events, one column each, not their time: events microseconds apart
stay apart. Under the lanes each column is labelled, rotated: the time
(ms after the first event), the hart it ran on (h0..), the task and what
happened, in the console's words (race points by their names in
kernel/race_points.def). In each lane:
  - marks: race points (black diamonds), pages inserted (blue dots) and
    removed (purple rings), bios submitted (triangles), blocks freed
    (pink squares);
  - bars, one row per lock: a hold runs from the take to the drop, filled
    for an exclusive hold, hatched for a shared one; a wait (asked, not
    yet got) is a dashed outline before it. A page lock's bar is its
    page's (inserted locked, often let go by its read's completion);
  - red: the notes of tools/tracestory.py. A stale read is a red star and
    a red band down the picture; a page cached behind an invalidation is
    a red ring; a wait for another task's exclusive hold is said in words.
A legend at the top says the same. Every drawn mark, bar and note carries
a data-key (its task, and what it is without times, harts or task ids):
structure() reads them back, so that two runs of the same race compare
equal when they tell the same story.
"""

import html
import math
import xml.etree.ElementTree as ET

import tracefmt as tf
import tracestory as ts

STEP, LEFT, MARK_H, ROW_H, NOTE_H = 30, 190, 24, 18, 16
LOCK_ROWS = ("i_rwsem", "invalidate_lock", tf.PAGE_LOCK)
LOCK_COLOURS = {"i_rwsem": "#4f7cac", "invalidate_lock": "#2e8b57",
                tf.PAGE_LOCK: "#d9822b"}
RED = "#d62728"
MARK_COLOURS = {tf.RACE: "#000000", tf.PAGE_ADD: "#1f77b4", tf.PAGE_DEL: "#9467bd",
                tf.BIO_SUBMIT: "#ff7f0e", tf.BLOCK_FREE: "#e377c2",
                tf.LOCK_WAIT: RED, tf.LOCK_TAKE: "#2ca02c", tf.LOCK_DROP: "#7f7f7f"}


def esc(text):
    return html.escape(str(text), quote=True)


def colx(c):
    """The x of column @c (len(columns): the end of the trace)."""
    return LEFT + STEP * c + STEP / 2


def shape(kind, x, y, colour, extra=""):
    if kind == tf.RACE:
        pts = f"{x},{y - 7} {x + 7},{y} {x},{y + 7} {x - 7},{y}"
        return f'<polygon points="{pts}" fill="{colour}"{extra}/>'
    if kind == tf.PAGE_DEL:
        return (f'<circle cx="{x}" cy="{y}" r="5" fill="white" stroke="{colour}" '
                f'stroke-width="3"{extra}/>')
    if kind == tf.BIO_SUBMIT:
        pts = f"{x},{y - 7} {x + 7},{y + 6} {x - 7},{y + 6}"
        return f'<polygon points="{pts}" fill="{colour}"{extra}/>'
    if kind == tf.BLOCK_FREE:
        return f'<rect x="{x - 6}" y="{y - 6}" width="12" height="12" fill="{colour}"{extra}/>'
    return f'<circle cx="{x}" cy="{y}" r="6" fill="{colour}"{extra}/>'


def star(x, y, r, extra=""):
    pts = []
    for i in range(10):
        rr = r if i % 2 == 0 else r * 0.45
        a = math.pi * (i / 5 - 0.5)
        pts.append(f"{x + rr * math.cos(a):.1f},{y + rr * math.sin(a):.1f}")
    return f'<polygon points="{" ".join(pts)}" fill="{RED}" stroke="black"{extra}/>'


def bar_fill(lock, mode):
    return LOCK_COLOURS[lock] if mode == "exclusive" else f"url(#hatch-{lock.replace(' ', '_')})"


def defs():
    out = ["<defs>"]
    for lock, colour in LOCK_COLOURS.items():
        out.append(f'<pattern id="hatch-{lock.replace(" ", "_")}" width="6" height="6" '
                   f'patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
                   f'<rect width="6" height="6" fill="white"/>'
                   f'<rect width="3" height="6" fill="{colour}"/></pattern>')
    out.append("</defs>")
    return out


def legend(y):
    """The legend: three rows of swatches, from @y."""
    out = [f'<g class="legend"><text x="10" y="{y + 12}" font-weight="bold">legend</text>']
    x = 80
    for lock, colour in LOCK_COLOURS.items():
        for mode in ("exclusive", "shared"):
            if lock == tf.PAGE_LOCK and mode == "shared":
                continue
            out.append(f'<rect x="{x}" y="{y + 2}" width="28" height="12" '
                       f'fill="{bar_fill(lock, mode)}" stroke="{colour}"/>')
            out.append(f'<text x="{x + 33}" y="{y + 12}">{esc(lock)} {mode}</text>')
            x += 40 + 7 * len(f"{lock} {mode}")
    out.append(f'<rect x="{x}" y="{y + 2}" width="28" height="12" fill="white" '
               f'stroke="#555" stroke-dasharray="4,2"/>')
    out.append(f'<text x="{x + 33}" y="{y + 12}">waits (asked, not yet got)</text>')
    x, y = 80, y + 22
    items = [(tf.RACE, "race point"), (tf.PAGE_ADD, "page inserted"),
             (tf.PAGE_DEL, "page removed"), (tf.BIO_SUBMIT, "bio submitted"),
             (tf.BLOCK_FREE, "blocks freed")]
    for kind, text in items:
        out.append(shape(kind, x + 7, y + 8, MARK_COLOURS[kind]))
        out.append(f'<text x="{x + 18}" y="{y + 12}">{text}</text>')
        x += 30 + 7 * len(text)
    x, y = 80, y + 22
    out.append(star(x + 8, y + 8, 9))
    text = "stale read (the red band: that moment)"
    out.append(f'<text x="{x + 22}" y="{y + 12}" fill="{RED}">{text}</text>')
    x += 40 + 7 * len(text)
    out.append(f'<circle cx="{x + 7}" cy="{y + 8}" r="9" fill="none" stroke="{RED}" '
               f'stroke-width="2"/>')
    out.append(f'<text x="{x + 22}" y="{y + 12}" fill="{RED}">page cached behind an '
               f'invalidation</text>')
    out.append("</g>")
    return out


def page_rows(holds, n):
    """Rows for a lane's page-lock bars: one, unless they overlap."""
    ends, row_of = [], {}
    for h in sorted(holds, key=lambda h: h.asked if h.asked is not None else h.got):
        start = h.asked if h.asked is not None else h.got
        end = n if h.dropped is None else h.dropped
        row = next((i for i, e in enumerate(ends) if e < start), len(ends))
        if row == len(ends):
            ends.append(end)
        ends[row] = end
        row_of[id(h)] = row
    return row_of, len(ends)


def hold_key(h):
    k = h.lock
    what = f"page {k.index} of ino {k.ino}" if k.name == tf.PAGE_LOCK else f"ino {k.ino}"
    key = f"hold {k.name} {k.mode} {what}"
    # A page lock's wait is mostly for its read to complete: how long the
    # I/O takes decides whether there is one, so it is no part of the key.
    if h.asked is not None and (k.name != tf.PAGE_LOCK or h.got is None):
        key += ", waited" + ("" if h.got is not None else " to the end")
    if h.got is not None and h.dropped is None:
        key += ", held to the end"
    return key


class _Lane:
    def __init__(self, s, tid, y):
        self.s, self.tid, self.y = s, tid, y
        self.holds = [h for h in s.holds if h.tid == tid]
        self.notes = [n for n in s.notes if n.tid == tid]
        self.page_row, npage = page_rows(
            [h for h in self.holds if h.lock.name == tf.PAGE_LOCK], len(s.columns))
        self.rows = {}
        row = 0
        for lock in LOCK_ROWS:
            if any(h.lock.name == lock for h in self.holds):
                self.rows[lock] = row
                row += npage if lock == tf.PAGE_LOCK else 1
        self.height = 10 + MARK_H + row * ROW_H + 4 + NOTE_H * len(self.notes) + 8

    def bar_y(self, h):
        row = self.rows[h.lock.name] + self.page_row.get(id(h), 0)
        return self.y + 10 + MARK_H + row * ROW_H

    def draw(self, width):
        s, out = self.s, []
        name = s.name(self.tid)
        out.append(f'<g class="lane" data-task="{esc(name)}">')
        out.append(f'<rect x="4" y="{self.y}" width="{width - 8}" height="{self.height}" '
                   f'fill="#f7f7f7" stroke="#ddd"/>')
        out.append(f'<text x="10" y="{self.y + 20}" font-size="13" font-weight="bold">'
                   f'{esc(name)}</text>')
        out.append(f'<text x="10" y="{self.y + 36}" fill="#555">task {self.tid}</text>')
        for lock, row in self.rows.items():
            out.append(f'<text x="{LEFT - 8}" y="{self.y + 10 + MARK_H + row * ROW_H + 11}" '
                       f'text-anchor="end" fill="#555">{esc(lock)}</text>')
        for h in self.holds:
            out += self.bar(h)
        my = self.y + 10 + MARK_H / 2
        for c in s.marks:
            e = s.columns[c]
            if e.tid == self.tid:
                key = esc(f"mark {tf.describe(s.trace, e)}")
                out.append(shape(e.type, colx(c), my, MARK_COLOURS.get(e.type, "#333"),
                                 f' data-key="{key}" data-col="{c}"'))
        for i, n in enumerate(self.notes):
            out += self.note(n, my, self.y + self.height - 12 - NOTE_H * (len(self.notes) - 1 - i))
        out.append("</g>")
        return out

    def bar(self, h):
        s, out = self.s, []
        y, colour = self.bar_y(h), LOCK_COLOURS.get(h.lock.name, "#333")
        end = len(s.columns)
        key = esc(hold_key(h))
        first = h.asked if h.asked is not None else h.got
        if h.asked is not None:
            x0, x1 = colx(h.asked), colx(end if h.got is None else h.got)
            out.append(f'<rect class="wait" x="{x0}" y="{y}" width="{x1 - x0}" height="14" '
                       f'fill="white" stroke="{colour}" stroke-width="1.5" '
                       f'stroke-dasharray="4,2"><title>{esc(s.name(h.tid))} waits for '
                       f'{esc(tf.lock_label(h.lock))}</title></rect>')
            out.append(f'<text x="{x0 + 3}" y="{y + 11}" font-size="10" fill="{colour}">'
                       f'waits</text>')
        if h.got is not None:
            x0, x1 = colx(h.got), colx(end if h.dropped is None else h.dropped)
            out.append(f'<rect class="hold {h.lock.mode}" x="{x0}" y="{y}" '
                       f'width="{x1 - x0}" height="14" fill="{bar_fill(h.lock.name, h.lock.mode)}" '
                       f'stroke="{colour}"><title>{esc(s.name(h.tid))} holds '
                       f'{esc(tf.lock_label(h.lock))}</title></rect>')
            label = (f"page {h.lock.index}" if h.lock.name == tf.PAGE_LOCK
                     else {"exclusive": "X", "shared": "S"}[h.lock.mode])
            ink = ('fill="white"' if h.lock.mode == "exclusive" else
                   'fill="black" stroke="white" stroke-width="3" paint-order="stroke"')
            out.append(f'<text x="{x0 + 3}" y="{y + 11}" font-size="10" {ink}>'
                       f'{esc(label)}</text>')
        out.append(f'<g data-key="{key}" data-col="{first}"/>')
        return out

    def note(self, n, my, ny):
        x = colx(n.column)
        key = esc(f"note {n.text}")
        out = []
        if n.kind == ts.STALE_READ:
            out.append(star(x, my, 11, f' class="stale" data-key="{key}" data-col="{n.column}"'))
        elif n.kind == ts.LATE_INSERT:
            out.append(f'<circle class="late" cx="{x}" cy="{my}" r="10" fill="none" '
                       f'stroke="{RED}" stroke-width="2.5" data-key="{key}" '
                       f'data-col="{n.column}"/>')
        else:
            out.append(f'<g class="blocked" data-key="{key}" data-col="{n.column}"/>')
        out.append(f'<text x="{x - 4}" y="{ny}" fill="{RED}" font-weight="bold">'
                   f'{esc(n.text)}</text>')
        return out


def svg(s, title):
    n = len(s.columns)
    top = 126
    y, lanes = top, []
    for tid in s.lanes:
        lane = _Lane(s, tid, y)
        lanes.append(lane)
        y += lane.height + 6
    base = y + 4
    labels = [label(s, c) for c in range(n)]
    longest = max((len(t) for t in labels), default=0) * 6.6
    width = max(LEFT + STEP * (n + 1) + longest * 0.5 + 20, 1200)
    height = base + longest * 0.87 + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
           f'height="{height:.0f}" font-family="monospace" font-size="11">']
    out += defs()
    out.append(f'<rect width="{width:.0f}" height="{height:.0f}" fill="white"/>')
    out.append(f'<text x="10" y="22" font-size="15" font-weight="bold">{esc(title)}</text>')
    out.append('<text x="10" y="42" fill="#333">one lane per task; x: the order of events '
               '(not time), each labelled below with its time in ms, the hart (h0..) '
               'and what it is</text>')
    out += legend(52)
    for c in (n.column for n in s.notes if n.kind == ts.STALE_READ):
        out.append(f'<rect class="stale-band" x="{colx(c) - STEP / 2 + 2}" y="{top - 4}" '
                   f'width="{STEP - 4}" height="{base - top + 4}" fill="{RED}" '
                   f'fill-opacity="0.15"/>')
    for lane in lanes:
        out += lane.draw(width)
    for c, text in enumerate(labels):
        e = s.columns[c]
        colour = MARK_COLOURS.get(e.type, "#333")
        x = colx(c)
        out.append(f'<line x1="{x}" y1="{top}" x2="{x}" y2="{base}" stroke="{colour}" '
                   f'stroke-opacity="0.35" stroke-dasharray="2,3"/>')
        out.append(f'<text transform="translate({x - 3},{base + 6}) rotate(60)" '
                   f'fill="{colour}">{esc(text)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def label(s, c):
    e = s.columns[c]
    t0 = s.columns[0].ns
    who = s.name(e.tid) if e.tid in s.lanes else tf.task(s.trace, e.tid)
    return f"{(e.ns - t0) / 1e6:7.3f} ms h{e.cpu} {who}: {tf.describe(s.trace, e)}"


def structure(text):
    """What a picture says, lane by lane, without times, harts or task ids:
    {task name: [data-key of each mark, bar and note, in column order]}."""
    root = ET.fromstring(text)
    out = {}
    for g in root.iter("{http://www.w3.org/2000/svg}g"):
        if g.get("class") != "lane":
            continue
        keyed = [(int(el.get("data-col")), el.get("data-key")) for el in g.iter()
                 if el.get("data-key")]
        out.setdefault(g.get("data-task"), []).extend(k for _, k in sorted(keyed))
    return out
