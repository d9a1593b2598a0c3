"""tools/spinmodel.py: run SPIN on docs/model/invalidate_lock.pml.

Used by tools/spin (by hand) and tools/test_spin.py (./tools/test host).
Each check is one verification: `spin -a` with the check's defines writes
pan.c, the host gcc compiles it as a safety verifier (PAN_CFLAGS) and
`./pan` searches every reachable state (depth bound PAN_DEPTH). A failed
search leaves a trail, replayed with `spin -t` into the model's printf
lines: the interleaving that breaks the invariant.
"""

import collections
import os
import re
import subprocess

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODEL = os.path.join(REPO, "docs", "model", "invalidate_lock.pml")

# -DSAFETY: assertions and invalid end states only (no cycles: the
# invariants are safety properties). -DREACH with pan -i: the trail kept is
# the shortest, so a counterexample reads as the race and nothing else.
# -O0: these searches take a second or two, and gcc -O2 takes ten times
# longer to compile pan.c than -O0 (a loaded 2-core machine, 2026-12-03).
PAN_CFLAGS = ["-O0", "-w", "-DSAFETY", "-DREACH", "-DMEMLIM=1024"]
PAN_DEPTH = 10000

Check = collections.namedtuple("Check", "name defines expect what")

# expect: "pass" (0 errors, search complete), "assert" (an assertion or
# the invariant fails, trail written), "deadlock" (invalid end state).
CHECKS = [
    Check("fixed", [], "pass",
          "kernel protocol: every operation x every fill path, with "
          "writeback and file B, no bad state"),
    Check("fixed_no_hole", ["-DNO_HOLE"], "pass",
          "the same with block 2 on disk: both of punch's partial pages "
          "have blocks to free"),
    Check("readers", ["-DREADERS", "-DINVAL=PUNCH"], "pass",
          "punch x every fill path with the readers that take no lock "
          "(a cached hit, RWF_NOWAIT)"),
    Check("legacy_read_miss", ["-DLEGACY", "-DFILL=1"], "assert",
          "fills without the lock: read of an absent page"),
    Check("legacy_read_notuptodate", ["-DLEGACY", "-DFILL=2"], "assert",
          "fills without the lock: read of a page not uptodate"),
    Check("legacy_fault_mkwrite", ["-DLEGACY", "-DFILL=3"], "assert",
          "fills without the lock: a store's fault, page_mkwrite, writeback"),
    Check("legacy_readahead", ["-DLEGACY", "-DFILL=4"], "assert",
          "fills without the lock: a readahead batch"),
    Check("legacy_leak", ["-DLEGACY", "-DLEAK_ONLY", "-DFILL=1",
                          "-DINVAL=PUNCH"], "assert",
          "read miss against punch: another file's data in the cache"),
    Check("reproducer", ["-DREPRODUCER"], "pass",
          "kernel protocol under the reproducers' gates (tests/race.c)"),
    Check("legacy_reproducer", ["-DLEGACY", "-DREPRODUCER", "-DLEAK_ONLY",
                                "-DFILL=1", "-DINVAL=PUNCH"], "assert",
          "the reproducers' schedule without the lock: the same leak"),
    Check("prealloc", ["-DPREALLOC_HOLE"], "pass",
          "preallocation of a hole x every fill path: no poison cached"),
    Check("prealloc_no_wait", ["-DPREALLOC_HOLE", "-DNO_FILL_WAIT"], "assert",
          "preallocation not waiting for the fills' pages: poison cached"),
    Check("legacy_prealloc", ["-DLEGACY", "-DPREALLOC_HOLE"], "assert",
          "preallocation against fills without the lock: poison cached"),
    Check("lock_two", ["-DLOCK_TWO"], "pass",
          "lock_two in both orders and with itself: no deadlock"),
    Check("lock_two_unordered", ["-DLOCK_TWO", "-DUNORDERED"], "deadlock",
          "lock_two without the address order: deadlock found"),
    # Mutants: one lock (or the edge hold, or the write-protection at a
    # size change) taken out of the fixed protocol; each must break it.
    Check("no_lock_read_miss", ["-DNO_LOCK_MISS"], "assert",
          "the read miss alone without invalidate_lock"),
    Check("no_lock_read_notuptodate", ["-DNO_LOCK_NOTUPTODATE"], "assert",
          "the read of a page not uptodate alone without invalidate_lock"),
    Check("no_lock_readahead", ["-DNO_LOCK_RA"], "assert",
          "readahead alone without invalidate_lock"),
    Check("no_lock_mkwrite", ["-DNO_LOCK_MKWRITE"], "assert",
          "page_mkwrite alone without invalidate_lock"),
    Check("no_excl_punch", ["-DNO_EXCL=PUNCH", "-DINVAL=PUNCH"], "assert",
          "punch without invalidate_lock"),
    Check("no_excl_zero", ["-DNO_EXCL=ZERO", "-DINVAL=ZERO"], "assert",
          "zero range without invalidate_lock"),
    Check("no_excl_collapse", ["-DNO_EXCL=COLLAPSE", "-DINVAL=COLLAPSE"],
          "assert", "collapse range without invalidate_lock"),
    Check("no_excl_insert", ["-DNO_EXCL=INSERT", "-DINVAL=INSERT"], "assert",
          "insert range without invalidate_lock"),
    Check("no_excl_truncate", ["-DNO_EXCL=TRUNCATE", "-DINVAL=TRUNCATE"],
          "assert", "truncate without invalidate_lock"),
    Check("no_edge_hold", ["-DNO_EDGE_HOLD", "-DLEAK_ONLY", "-DINVAL=PUNCH",
                           "-DFILL=3"], "assert",
          "punch unlocks its edge page before the free: writeback "
          "overwrites B's block"),
    Check("no_edge_hold_reread", ["-DNO_HOLE", "-DNO_EDGE_HOLD",
                                   "-DNO_LOCK_NOTUPTODATE", "-DINVAL=PUNCH",
                                   "-DFILL=2"], "assert",
          "no edge hold, no lock for the re-read: the re-read of a partial "
          "page caches a freed block"),
    Check("reread_edge_held", ["-DNO_HOLE", "-DNO_LOCK_NOTUPTODATE",
                               "-DINVAL=PUNCH"], "pass",
          "the edge hold alone keeps the re-read of a partial page from "
          "punch's freed blocks"),
    Check("no_isize_extended_mkclean", ["-DNO_ISIZE_EXTENDED_MKCLEAN",
                                        "-DINVAL=GROW", "-DFILL=5"], "assert",
          "truncate up leaves the old EOF page writable: a store's data "
          "has no block"),
    Check("reclaim", ["-DRECLAIM"], "pass",
          "kernel protocol with reclaim beside writeback and file B: every "
          "operation x every fill path"),
    Check("reclaim_no_hole", ["-DRECLAIM", "-DNO_HOLE"], "pass",
          "the same with block 2 on disk"),
    Check("no_reclaim_lock", ["-DRECLAIM", "-DNO_RECLAIM_LOCK"], "assert",
          "reclaim drops a page it has not locked: data an operation put "
          "in the page is lost"),
]

Result = collections.namedtuple(
    "Result", "errors states depth complete assertion deadlock trail output")


class SpinError(Exception):
    pass


def _run(cmd, cwd, timeout=300):
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, timeout=timeout)
    return p.returncode, p.stdout


def verify(defines, workdir):
    """Generate, compile and run the verifier for @defines in @workdir."""
    trail = os.path.join(workdir, os.path.basename(MODEL) + ".trail")
    if os.path.exists(trail):
        os.remove(trail)
    rc, out = _run(["spin"] + defines + ["-a", MODEL], workdir)
    if rc != 0:
        raise SpinError(f"spin -a {' '.join(defines)} failed:\n{out}")
    rc, out = _run(["gcc"] + PAN_CFLAGS + ["-o", "pan", "pan.c"], workdir)
    if rc != 0:
        raise SpinError(f"gcc pan.c failed:\n{out}")
    _, out = _run(["./pan", f"-m{PAN_DEPTH}", "-i"], workdir)
    return parse_pan(out, trail if os.path.exists(trail) else None)


def _number(pattern, text):
    m = re.search(pattern, text)
    if not m:
        raise SpinError(f"pan printed no '{pattern}':\n{text[-2000:]}")
    return int(m.group(1))


def parse_pan(out, trail):
    # pan -i goes on after an error to look for shorter trails: its last
    # summary line is the one of the whole search.
    errors = _number(r"errors: (\d+)", _last_line_with(out, "errors:"))
    return Result(
        errors=errors,
        states=_number(r"(\d+) states, stored", out),
        depth=_number(r"depth reached (\d+)", out),
        complete=("Search not completed" not in out
                  and "max search depth too small" not in out
                  and "reached -DMEMLIM bound" not in out),
        assertion="assertion violated" in out,
        deadlock="invalid end state (" in out,
        trail=trail, output=out)


def _last_line_with(text, word):
    lines = [ln for ln in text.splitlines() if word in ln]
    return lines[-1] if lines else ""


def replay(defines, workdir):
    """The trail's printf lines and the failed assertion, in order."""
    trail = os.path.join(workdir, os.path.basename(MODEL) + ".trail")
    _, out = _run(["spin", "-t", "-k", trail] + defines + [MODEL], workdir)
    events = []
    for line in out.splitlines():
        text = line.strip()
        if text.startswith("spin: trail ends"):
            break
        if text.startswith("spin: text of failed assertion:"):
            events.append("invariant broken: " +
                          text.split(":", 2)[2].strip())
        elif text and not text.startswith(("spin:", "#", "Warning")):
            events.append(text)
    return events


DATA_NAMES = {0: "zeros", 1: "A's block 0", 2: "A's block 1",
              3: "the store's", 4: "B's", 5: "poison", 6: "A's block 2"}
HALF_ZEROED = 8


def data_name(v):
    """The model's data value @v (docs/model: ZEROES .. POISON, | HZ)."""
    name = DATA_NAMES.get(v & ~HALF_ZEROED, str(v))
    return name + (" half zeroed" if v & HALF_ZEROED else "")


def readable(events):
    """Number the events and name the data values they print."""
    lines = []
    for i, ev in enumerate(events, 1):
        ev = re.sub(r"data (\d+) (\d+)$",
                    lambda m: (f"data {m.group(1)} {m.group(2)} = "
                               f"{data_name(int(m.group(1)))}, "
                               f"{data_name(int(m.group(2)))}"),
                    ev)
        ev = ev.replace("race point at_", "race point ")
        if ev.startswith("invariant broken: ") and len(ev) > 160:
            ev = ev[:157] + "..."
        lines.append(f"{i:3}  {ev}")
    return lines


def outcome(check, res):
    """None if @res is what @check expects, else why not."""
    if check.expect == "pass":
        if res.errors != 0:
            return f"{res.errors} errors"
        if not res.complete:
            return "search not complete"
        if res.states <= 0:
            return "no state stored: the search did not run"
        return None
    if res.errors == 0 or res.trail is None:
        return "no counterexample found"
    if check.expect == "assert" and not res.assertion:
        return "the error is not an assertion"
    if check.expect == "deadlock" and not res.deadlock:
        return "the error is not an invalid end state"
    return None


def kernel_schedule(events):
    """A legacy trail as tests/race_enum.c writes a schedule: the order of
    the race points and of the two tasks' ends. The model truncates the
    cache page by page and labels RACE_INVAL_DROPPED after the whole range;
    the kernel's point follows its truncation of the one page the fill
    maps, so the drop (or the partial zeroing) of that page stands for it.
    A's end is its freeing of the block, B's the completion of its read."""
    maps = [m.group(1) for m in (re.match(r"fill maps index (\d+) ", e)
                                 for e in events) if m]
    if not maps:
        return None
    page = maps[-1]
    out = []
    for e in events:
        if "race point at_RACE_FILL_START" in e:
            out.append("B.FILL_START")
        elif "race point at_RACE_FILL_MAPPED" in e:
            out.append("B.FILL_MAPPED")
        elif re.match(rf"inval (drops|zeroes part of) index {page}$", e):
            out.append("A.INVAL_DROPPED")
        elif e.startswith("A frees block") and "A.end" not in out:
            out.append("A.end")
        elif re.match(rf"read of index {page} from blocks [\d ]+ done", e):
            out.append("B.end")
    return " ".join(out)
