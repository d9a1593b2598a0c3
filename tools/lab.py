#!/usr/bin/env python3
"""tools/lab.py: the labs of docs/labs.md - a known start, a grade, a way back.

    tools/lab list                  the labs: number, tag, what the student writes
    tools/lab start N               lab N's starting point: docs/labs/labN-start.patch,
                                    which takes the solution out, applied to the tree
    tools/lab grade N [--no-build]  build (ninja), run lab N's checks, print the points
    tools/lab reset [--force]       back to the solution: the started lab's files as
                                    they were at `start` (the tree the patches are
                                    against); refuses while other files have
                                    uncommitted changes, unless --force (which
                                    restores those too)

The tree is the solution: every lab's code is in it, and its start patch
takes that code out. `start` refuses to touch a lab file with uncommitted
changes, and records the lab and the commit in build/lab.state.

A grade builds the tree, then boots only what the lab names: rows of
tools/boots.py (its prepare hook makes the disk image), narrowed to the
lab's suites and, with the boot argument ktest.cases, to its cases; a
check that needs a mutant (lab 3: does your test catch this bug?) applies
docs/labs/labN-mutant-*.patch to a copy of the tree (tools/mutants.py's
copy_tree, objects included, so the build is incremental), never to the
tree itself. Each check gives its points or none; a run that a check
depends on and that cannot help (lab 4's disk, while the ring loses every
request: each would wait 30 s) is skipped, and its checks give none.
Consoles are build/test-logs/BOOT.log, as ./tools/test BOOT writes them,
kept as build/lab-logs/labN-BOOT[-MUTANT].log. The last line is "lab N:
P/T points"; the exit status is 0 when the grade is full.

tools/test_labs.py grades every lab on the tree (full), on its start
(not full) and on each docs/labs/labN-wrong-*.patch (not full).
"""

import fnmatch
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent
sys.path.insert(0, str(TOOLS))
import boots  # noqa: E402
import ext2img  # noqa: E402
import kconsole  # noqa: E402
import ktap  # noqa: E402
import ktest_runner  # noqa: E402
import mutants  # noqa: E402

LABS_DIR = ROOT / "docs" / "labs"
BUILD = ROOT / "build"
STATE = BUILD / "lab.state"
LAB_LOGS = BUILD / "lab-logs"


# ---- what a lab runs and checks ----

@dataclass(frozen=True)
class Run:
    """One boot of a tools/boots.py row, narrowed to @suites and, if
    given, to the cases @cases (ktest.cases globs)."""
    boot: str
    suites: tuple
    cases: str = ""
    # (run, "suite.case" glob): that run must have passed those cases,
    # or this one is skipped (it could only wait for a timeout)
    needs: tuple = ()
    mutant: str = ""  # docs/labs/ patch applied to a copy of the tree
    timeout: int = 120


@dataclass
class Outcome:
    run: Run
    tree: Path
    ran: bool = False
    why: str = ""          # why it did not run, or ended early
    lines: list = field(default_factory=list)
    passed: set = field(default_factory=set)
    failed: set = field(default_factory=set)
    reports: list = field(default_factory=list)
    log: str = ""          # where the console is kept

    def cases(self, glob):
        names = self.passed | self.failed
        return sorted(n for n in names if fnmatch.fnmatchcase(n, glob)
                      and not n.split(".")[-1].startswith("#"))

    def ran_suite(self, suite):
        return any(l.strip() == f"# Subtest: {suite}" for l in self.lines)


@dataclass(frozen=True)
class Check:
    points: int
    what: str
    test: Callable  # test(outcomes) -> (ok, detail)


def _ran(o):
    if not o.ran:
        return False, f"{o.run.boot}{' with ' + o.run.mutant if o.run.mutant else ''} did not run"
    return True, ""


def passes(run, *globs):
    """Every case of @run matching each glob passed (and one matched)."""
    def test(out):
        o = out[run]
        ok, why = _ran(o)
        if not ok:
            return ok, why
        for glob in globs:
            names = o.cases(glob)
            suite = glob.split(".")[0]
            if not names and not o.ran_suite(suite):
                return False, (f"{o.run.boot}: suite {suite} did not run" +
                               (f" ({o.why})" if o.why else
                                " (not in the kernel: its build.ninja line?)"))
            if not names:
                return False, f"{o.run.boot}: no case {glob} printed a result" + (
                    f" ({o.why})" if o.why else "")
            bad = [n for n in names if n in o.failed]
            if bad:
                return False, f"{o.run.boot}: {', '.join(bad[:3])} failed" + (
                    f" and {len(bad) - 3} more" if len(bad) > 3 else "")
        return True, ""
    return test


def catches(run, glob):
    """The mutant of @run makes a case matching @glob fail (or the boot
    end early): the student's test sees the bug."""
    def test(out):
        o = out[run]
        ok, why = _ran(o)
        if not ok:
            return ok, why
        if any(n in o.failed for n in o.cases(glob)) or (o.why and not o.passed):
            return True, ""
        if not o.cases(glob):
            return False, f"{o.run.boot}: no case {glob} printed a result"
        return False, f"{o.run.boot}: with the bug in, {glob} still passes"
    return test


def console(run, pattern, count=1, suite=None, text=None):
    """@count console lines (after suite @suite's header) match @pattern;
    @text says what they are, for the failure."""
    rx = re.compile(pattern)
    text = text or repr(pattern)

    def test(out):
        o = out[run]
        ok, why = _ran(o)
        if not ok:
            return ok, why
        lines = o.lines
        if suite and not o.ran_suite(suite):
            return False, f"{o.run.boot}: suite {suite} did not run" + (
                f" ({o.why})" if o.why else "")
        if suite:
            start = next((i for i, l in enumerate(lines)
                          if l.strip() == f"# Subtest: {suite}"), len(lines))
            lines = lines[start:]
        n = sum(1 for l in lines if rx.search(l))
        if n < count:
            return False, f"{o.run.boot}: {n} of {count} console line(s) {text}"
        return True, ""
    return test


def no_reports(run):
    """No kernel report (a WARNING, an oops, lockdep...) the boot does not
    expect (tools/kconsole.py, boots.EXPECTED_REPORTS)."""
    def test(out):
        o = out[run]
        ok, why = _ran(o)
        if not ok:
            return ok, why
        if o.reports:
            r = o.reports[0]
            return False, (f"{o.run.boot}: kernel report '{r.kind}' in {r.where}: "
                           f"{r.context[0].strip()}")
        return True, ""
    return test


def clean_image(run, image):
    """`e2fsck -fn` finds build/@image clean after @run."""
    def test(out):
        o = out[run]
        ok, why = _ran(o)
        if not ok:
            return ok, why
        try:
            ext2img.check_image(o.tree / "build" / image)
        except ext2img.CheckFailed as e:
            return False, str(e).strip().splitlines()[0]
        return True, ""
    return test


@dataclass(frozen=True)
class Lab:
    number: int
    title: str
    tag: str          # easy, moderate, hard
    subsystem: str
    writes: str       # what the student writes
    runs: dict
    checks: tuple

    @property
    def start_patch(self):
        return LABS_DIR / f"lab{self.number}-start.patch"

    def total(self):
        return sum(c.points for c in self.checks)


def all_of(*tests):
    def test(out):
        for t in tests:
            ok, why = t(out)
            if not ok:
                return ok, why
        return True, ""
    return test


RACE_GLOBS = "race_*"
DROPPED = r'race: \S+ stops at "invalidation: cache dropped, blocks not freed"'

LABS = [
    Lab(1, "see the hole-punch race", "easy", "the invalidate_lock race",
        "race_observe_page (tests/race.c): what page 2 of F holds after the race",
        {"fixed": Run("race", ("race_punch", "race_collapse")),
         "legacy": Run("race_legacy", ("race_punch", "race_zero"))},
        (Check(3, "fixed kernel: nothing seen where there is nothing (punch: "
                  "zeroes; collapse: the page that moved down)",
               passes("fixed", "race_punch.*", "race_collapse.*")),
         Check(3, "legacy mode: every punch case sees the bug",
               passes("legacy", "race_punch.*")),
         Check(2, "legacy mode: every zero-range case sees it too (F's old bytes)",
               passes("legacy", "race_zero.*")),
         Check(2, "legacy mode: a punch's stale page is named: another file's "
                  "(G) data, 11 times",
               console("legacy", r"bug observed as expected in legacy mode: "
                       r"page 2 of F: another file's \(G\) data", 11,
                       suite="race_punch",
                       text="say 'bug observed as expected in legacy mode: "
                            "page 2 of F: another file's (G) data'")))),
    Lab(2, "fix a fill path", "moderate", "the invalidate_lock race",
        "invalidate_lock on the fill path the WARNING's backtrace names",
        {"fixed": Run("race", ("race_punch", "race_truncate")),
         "legacy": Run("race_legacy", ("race_punch", "race_truncate"))},
        (Check(3, "fixed kernel: the read miss waits for the punch's lock "
                  "(race_punch_read_miss)",
               passes("fixed", "race_punch.race_punch_read_miss")),
         Check(2, "fixed kernel: no WARNING, no page back in an invalidated range",
               no_reports("fixed")),
         Check(1, "fixed kernel: every other punch and truncate case passes",
               passes("fixed", "race_punch.*", "race_truncate.*")),
         Check(2, "legacy mode: the punch cases still see the bug",
               passes("legacy", "race_punch.*")),
         Check(2, "legacy mode: the truncate cases still see it (no i_size "
                  "re-read without the lock, as before 5.15)",
               passes("legacy", "race_truncate.*")))),
    Lab(3, "write a test with a race point", "hard", "the invalidate_lock race",
        "tests/race_trunc_hit_test.c, suite race_trunc_hit",
        {"fixed": Run("race", ("race_trunc_hit",)),
         "legacy": Run("race_legacy", ("race_trunc_hit",)),
         "late_size": Run("race_legacy", ("race_trunc_hit",),
                          needs=("legacy", "race_trunc_hit.*"),
                          mutant="lab3-mutant-late-size.patch"),
         "hit_locks": Run("race", ("race_trunc_hit",),
                          needs=("fixed", "race_trunc_hit.*"),
                          mutant="lab3-mutant-hit-trylocks.patch")},
        (Check(2, "suite race_trunc_hit passes in the fixed kernel",
               passes("fixed", "race_trunc_hit.*")),
         Check(2, "and in legacy mode", passes("legacy", "race_trunc_hit.*")),
         Check(2, "the truncate is held at RACE_INVAL_DROPPED while it checks",
               console("fixed", DROPPED, suite="race_trunc_hit",
                       text='say \'race: TASK stops at "invalidation: cache '
                            'dropped, blocks not freed"\'')),
         Check(2, "it fails if truncate stored the new i_size last "
                  "(docs/labs/lab3-mutant-late-size.patch, legacy mode)",
               catches("late_size", "race_trunc_hit.*")),
         Check(2, "it fails if a cached read tried invalidate_lock "
                  "(docs/labs/lab3-mutant-hit-trylocks.patch)",
               catches("hit_locks", "race_trunc_hit.*")))),
    Lab(4, "complete requests from the used ring", "moderate", "virtio-blk",
        "virtqueue_get_buf (drivers/virtqueue.c)",
        {"ring": Run("core", ("virtio_ring",)),
         "disk": Run("blk_modern", ("virtio_blk_read",),
                     needs=("ring", "virtio_ring.scribbled_descriptors"))},
        (Check(2, "buffers come back, their chains freed from the driver's own "
                  "books (scribbled_descriptors)",
               passes("ring", "virtio_ring.scribbled_descriptors")),
         Check(2, "a used id that is no buffer in flight is ignored, counted "
                  "(bad_used_ids)", passes("ring", "virtio_ring.bad_used_ids")),
         Check(2, "a length past the buffer fails it (overstated_length)",
               passes("ring", "virtio_ring.overstated_length")),
         Check(1, "a used index a ring ahead stops the queue (runaway_used_index)",
               passes("ring", "virtio_ring.runaway_used_index")),
         Check(2, "the disk: every read of virtio_blk_read completes, right",
               passes("disk", "virtio_blk_read.*")),
         Check(1, "the disk: no lost interrupt, no bad used id reported",
               no_reports("disk")))),
    Lab(5, "what the tick does: timers and time slices", "moderate", "the scheduler",
        "timer_arm and run_expired (kernel/timer.c), the slice in sched_tick "
        "(kernel/sched.c)",
        {"tick": Run("core", ("sched_basic", "timers"),
                     cases="fires_after_deadline,fire_in_deadline_order,"
                           "cancelled_never_fires,cancel_waits_for_running_callback,"
                           "busy_tasks_share_a_hart,schedule_until_ends_at_*,"
                           "sleep_*,completion_times_out")},
        (Check(2, "a timer fires at its deadline, not before",
               passes("tick", "timers.fires_after_deadline",
                      "sched_basic.schedule_until_ends_at_deadline",
                      "sched_basic.completion_times_out")),
         Check(2, "timers fire in the order of their deadlines",
               passes("tick", "timers.fire_in_deadline_order")),
         Check(1, "a cancelled timer never fires; cancel waits for a running one",
               passes("tick", "timers.cancel*")),
         Check(2, "sleepers leave their hart and wake at their time",
               passes("tick", "sched_basic.sleep_*",
                      "sched_basic.schedule_until_ends_at_wakeup")),
         Check(2, "two busy tasks on one hart take turns (the slice)",
               passes("tick", "sched_basic.busy_tasks_share_a_hart")),
         Check(1, "no kernel report", no_reports("tick")))),
    Lab(6, "a fault ends its task, not the kernel", "moderate",
        "traps and the system-call boundary",
        "the exception path of kernel/trap.c: the copy fix-up, oops()",
        {"traps": Run("core", ("traps", "mm_vm"),
                      cases="*_is_killed,copy_nofault_stops_at_the_fault,"
                            "stack_overflow_kills_task"),
         # a write's copy from a mapping whose entry went away: its fault
         # must not be taken under the page lock (a fix-up placed after
         # the file-mapping fault path passes every case of "traps")
         "write": Run("vfs_4k", ("vfs_mmap_write",), cases="write_source_*",
                      needs=("traps", "traps.copy_nofault_stops_at_the_fault"))},
        (Check(2, "a store to an unmapped address kills the task; the next "
                  "task runs", passes("traps", "traps.faulting_task_is_killed")),
         Check(1, "so do an illegal instruction and an unmapped load",
               passes("traps", "traps.illegal_instruction_is_killed",
                      "traps.unmapped_load_is_killed")),
         Check(2, "a fault inside arch_copy_nofault ends the copy, not the task",
               passes("traps", "traps.copy_nofault_stops_at_the_fault")),
         Check(1, "a write's copy from a file mapping stops at the fault too: "
                  "none is taken under the page lock (vfs_mmap_write)",
               passes("write", "vfs_mmap_write.write_source_*")),
         Check(2, "a stack overflow kills its task",
               passes("traps", "mm_vm.stack_overflow_kills_task")),
         Check(2, "the report names the fault and the task, with a backtrace",
               all_of(console("traps", r"Oops: store page fault at 0x[0-9a-f]+, "
                              r"address 0x10 in task victim on cpu \d+",
                              text="say 'Oops: store page fault at PC, address "
                                   "0x10 in task victim on cpu N'"),
                      console("traps", r"^\[[ \d.]+\]\s+store_to_null\+0x",
                              text="name store_to_null+0x... in a backtrace"),
                      console("traps", r"task victim \(tid \d+\) killed: store "
                              r"page fault", text="say 'task victim (tid N) "
                              "killed: store page fault ...'"))))),
    Lab(7, "the kernel's page permissions", "easy", "Sv39 page tables",
        "map_ram (mm/vm.c) and pte_bits (kernel/arch/riscv64/mmu.c)",
        {"vm": Run("core", ("mm_vm",),
                   cases="text_and_rodata_are_read_only,data_is_not_executable,"
                         "stack_has_guard_and_is_reused"),
         "mmap": Run("vfs_4k", ("vfs_mmap",),
                     cases="fault_uncached_reads_in,mkwrite_fills_hole,"
                           "private_store_leaves_file")},
        (Check(3, "text and rodata are read-only",
               passes("vm", "mm_vm.text_and_rodata_are_read_only")),
         Check(2, "data is not executable",
               passes("vm", "mm_vm.data_is_not_executable")),
         Check(1, "stacks still work, with their guard pages",
               passes("vm", "mm_vm.stack_has_guard_and_is_reused")),
         Check(3, "a file mapping's read-only entry faults at the first store "
                  "(page_mkwrite, copy-on-write)",
               passes("mmap", "vfs_mmap.*")),
         Check(1, "e2fsck finds the disk clean", clean_image("mmap", "vfs4096.img")))),
    Lab(8, "the readahead window", "moderate", "the page cache",
        "page_cache_sync_readahead and page_cache_async_readahead (mm/readahead.c)",
        {"ra": Run("core", ("pcache_readahead",))},
        (Check(3, "the window doubles on a sequential stream, up to the cap, "
                  "and resets on a random read",
               passes("ra", "pcache_readahead.readahead_window_grows_and_resets")),
         Check(2, "the marked page starts the next window",
               passes("ra", "pcache_readahead.readahead_async_at_marked_page")),
         Check(2, "a stream of 1 MiB reads never waits for its own pages",
               passes("ra", "pcache_readahead.readahead_stream_stays_ahead")),
         Check(1, "the filesystem's readahead gets the pages in batches",
               passes("ra", "pcache_readahead.readahead_uses_fs_readahead")),
         Check(1, "nothing is read past EOF",
               passes("ra", "pcache_readahead.readahead_stops_at_eof")),
         Check(1, "no kernel report", no_reports("ra")))),
    Lab(9, "the block map", "easy", "ext2",
        "ext2_block_path (fs/ext2/blockmap.c): direct, single, double and "
        "triple indirect",
        {"1k": Run("ext2_1k", ("ext2_read", "ext2_write"),
                   cases="read_sizes,read_sparse,read_seek,write_basic,write_truncate"),
         "4k": Run("ext2_4k", ("ext2_read",), cases="read_sizes,read_sparse,read_seek")},
        (Check(2, "1 KiB blocks: files up to 1 MiB read right (single and "
                  "double indirect)", passes("1k", "ext2_read.read_sizes")),
         Check(2, "1 KiB blocks: a 100 MiB sparse file reads right (triple "
                  "indirect, holes)", passes("1k", "ext2_read.read_sparse")),
         Check(1, "1 KiB blocks: seeks land on the right block",
               passes("1k", "ext2_read.read_seek")),
         Check(2, "4 KiB blocks: the same reads",
               passes("4k", "ext2_read.*")),
         Check(2, "writes and truncates map and free the right blocks",
               passes("1k", "ext2_write.*")),
         Check(1, "e2fsck finds the 1 KiB image clean afterwards",
               clean_image("1k", "ext2_1k.img")))),
    Lab(10, "copy-on-write", "moderate", "mmap and faults",
        "fault_private_write (mm/fault.c): a store to a private mapping",
        {"mmap": Run("vfs_4k", ("vfs_mmap", "vfs_mmap_unmap"),
                     cases="fault_uncached_reads_in,mkwrite_fills_hole,"
                           "private_store_leaves_file,*_private_copies,"
                           "cache_drop_unmaps_page,"
                           "private_copy_is_of_the_locked_page")},
        (Check(3, "a store to a private mapping changes the task's copy, "
                  "never the file", passes("mmap", "vfs_mmap.private_store_leaves_file")),
         Check(2, "a punch keeps the private copies it does not own",
               passes("mmap", "vfs_mmap_unmap.punch_keeps_private_copies")),
         Check(1, "collapse and insert drop the copies of pages that moved",
               passes("mmap", "vfs_mmap_unmap.collapse_drops_private_copies",
                      "vfs_mmap_unmap.insert_drops_private_copies")),
         Check(1, "dropping the cache unmaps the file's pages",
               passes("mmap", "vfs_mmap_unmap.cache_drop_unmaps_page")),
         Check(1, "the copy is of the page the file holds once it is locked "
                  "(a collapse moved it meanwhile)",
               passes("mmap", "vfs_mmap_unmap.private_copy_is_of_the_locked_page")),
         Check(1, "no kernel report (no oops)", no_reports("mmap")),
         Check(1, "e2fsck finds the disk clean", clean_image("mmap", "vfs4096.img")))),
]


def lab(n):
    for l in LABS:
        if l.number == n:
            return l
    raise SystemExit(f"lab: no lab {n} (labs: {', '.join(str(l.number) for l in LABS)})")


# ---- running ----

def build(tree, quiet=False):
    """ninja in @tree (tools/setup first if the prebuilt libc is missing).
    Return: (ok, output)."""
    if not (tree / "build" / "newlib" / "stamp").exists():
        if not quiet:  # silent for minutes otherwise
            print("lab: first build: tools/setup builds newlib, then the "
                  "kernel (a few minutes, once)", flush=True)
        rc, out = mutants.run(["./tools/setup"], tree)
        return rc == 0, out
    # the labs grade on riscv64 boots: its kernel only
    rc, out = mutants.run(["ninja", *mutants.ARCH_TARGETS["riscv64"]], tree)
    return rc == 0, out


def run_qemu(cmd, tree, log_path, timeout):
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, cwd=tree, stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        finally:
            ktest_runner._kill_group(proc)


def boot_row(name):
    return next(b for b in boots.BOOTS if b.name == name)


def run_boot(number, key, run, tree, log_name):
    """Boot @run in @tree; return its Outcome."""
    o = Outcome(run, tree)
    boot = boot_row(run.boot)
    if run.cases:
        boot = replace(boot, bootargs=" ".join(
            a for a in (boot.bootargs, f"ktest.cases={run.cases}") if a))
    build_dir = tree / "build"
    (build_dir / "test-logs").mkdir(parents=True, exist_ok=True)
    if boot.prepare:
        try:
            boot.prepare(build_dir)
        except Exception as e:  # a hook that fails is the run's failure
            o.why = f"prepare failed: {e}"
            return o
    log_path = build_dir / "test-logs" / f"{boot.name}.log"
    scale = float(os.environ.get("WHOLE_TIMEOUT_SCALE", "1"))
    timeout = max(1, round(run.timeout * scale))
    status = run_qemu(ktest_runner.qemu_command(boot, ",".join(run.suites)),
                      tree, log_path, timeout)
    end = (f"timed out after {timeout}s" if status is None else
           f"QEMU exit status {status}" if status not in (0, 1) else None)
    console = log_path.read_bytes().decode("utf-8", errors="replace")
    res = ktap.parse(console, end)
    o.ran = True
    o.why = end or ""
    o.lines = res.lines
    o.passed = set(res.passed)
    o.failed = {f.name for f in res.failures}
    o.reports = kconsole.unexpected(kconsole.scan(res.lines),
                                    boots.allowed_reports(boot))
    LAB_LOGS.mkdir(parents=True, exist_ok=True)
    kept = LAB_LOGS / log_name
    shutil.copyfile(log_path, kept)
    o.log = os.path.relpath(kept, ROOT)
    return o


def mutant_tree(patch):
    """A copy of the tree with @patch applied, built. Return: (tree, why
    not) - the caller removes the tree."""
    tree = Path(tempfile.mkdtemp(prefix="whole-lab-"))
    mutants.copy_tree(tree, src=ROOT, objects=True)
    rc, out = mutants.run(["git", "apply", "-p1", str(LABS_DIR / patch)], tree)
    if rc:
        return tree, f"{patch} does not apply to this tree: {out.strip()[:200]}"
    ok, out = build(tree)
    if not ok:
        return tree, f"the tree with {patch} does not build:\n{out[-1500:]}"
    return tree, ""


def grade(l, quiet=False):
    """Run lab @l's checks on the tree. Return: (points, total)."""
    out = {}
    scratch = []
    say = (lambda *a: None) if quiet else (lambda *a: print(*a, flush=True))
    try:
        for key, run in l.runs.items():
            if run.needs:
                other, glob = run.needs
                ok, why = passes(other, glob)(out)
                if not ok:
                    out[key] = Outcome(run, ROOT, why=f"needs {glob} to pass first")
                    say(f"  {run.boot}{' with ' + run.mutant if run.mutant else ''}: "
                        f"not run, it needs {glob} to pass first")
                    continue
            tree = ROOT
            log_name = f"lab{l.number}-{run.boot}.log"
            if run.mutant:
                tree, why = mutant_tree(run.mutant)
                scratch.append(tree)
                log_name = f"lab{l.number}-{run.boot}-{Path(run.mutant).stem}.log"
                if why:
                    out[key] = Outcome(run, tree, why=why)
                    say(f"  {run.boot} with {run.mutant}: not run: {why}")
                    continue
            start = time.monotonic()
            o = run_boot(l.number, key, run, tree, log_name)
            out[key] = o
            what = ", ".join(run.suites) + (f"; cases {run.cases}" if run.cases else "")
            summary = (ktap.summary(len(o.passed), len(o.failed), 0) if o.ran
                       else f"not run: {o.why}")
            say(f"  {run.boot}{' with ' + run.mutant if run.mutant else ''} "
                f"({what}): {summary}{' - ' + o.why if o.ran and o.why else ''} "
                f"({time.monotonic() - start:.1f}s, console {o.log})")
        points = 0
        for c in l.checks:
            ok, why = c.test(out)
            got = c.points if ok else 0
            points += got
            say(f"  [{got}/{c.points}] {c.what}")
            if not ok:
                say(f"        {why}")
    finally:
        for tree in scratch:
            shutil.rmtree(tree, ignore_errors=True)
    return points, l.total()


# ---- start and reset ----

def git(*args, check=True):
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True,
                          text=True, check=check)


def patch_files(patch):
    """The files a patch touches, relative to the tree."""
    files = []
    for line in patch.read_text().splitlines():
        m = re.match(r"^(?:---|\+\+\+) [ab]/(\S+)", line)
        if m and m[1] not in files:
            files.append(m[1])
    return files


def changed_files():
    """Files with uncommitted changes (tracked: modified or staged;
    untracked ones are not clobbered by a reset)."""
    out = git("status", "--porcelain", "--untracked-files=no").stdout
    return [l[3:].split(" -> ")[-1] for l in out.splitlines() if l.strip()]


def read_state():
    if not STATE.exists():
        return None, None
    fields = dict(l.split(" ", 1) for l in STATE.read_text().splitlines() if " " in l)
    return int(fields["lab"]), fields["base"]


def start(n):
    l = lab(n)
    started, _ = read_state()
    if started is not None:
        print(f"lab: lab {started} is started; ./tools/lab reset first", file=sys.stderr)
        return 1
    files = patch_files(l.start_patch)
    dirty = [f for f in changed_files() if f in files]
    if dirty:
        print(f"lab: uncommitted changes in {', '.join(dirty)}, which lab {n} "
              "replaces; commit or stash them first", file=sys.stderr)
        return 1
    res = git("apply", str(l.start_patch), check=False)
    if res.returncode:
        print(f"lab: {l.start_patch.relative_to(ROOT)} does not apply:\n{res.stderr}",
              file=sys.stderr)
        return 1
    base = git("rev-parse", "HEAD").stdout.strip()
    BUILD.mkdir(exist_ok=True)
    STATE.write_text(f"lab {n}\nbase {base}\n")
    print(f"lab {n} ({l.tag}): {l.title}. The starting point is in: "
          f"{', '.join(files)}.")
    print(f"You write: {l.writes}.")
    print(f"Read docs/labs.md, lab {n}; when done: ./tools/lab grade {n}; "
          "to get the solution back: ./tools/lab reset")
    return 0


def reset(force):
    n, base = read_state()
    base = base or "HEAD"
    files = (patch_files(lab(n).start_patch) if n is not None else
             sorted({f for l in LABS for f in patch_files(l.start_patch)}))
    other = [f for f in changed_files() if f not in files]
    if other and not force:
        print("lab: uncommitted changes outside the lab's files: "
              f"{', '.join(other)}; commit or stash them, or "
              "./tools/lab reset --force (which discards them too)", file=sys.stderr)
        return 1
    restore = files + (other if force else [])
    in_base = [f for f in restore
               if git("cat-file", "-e", f"{base}:{f}", check=False).returncode == 0]
    if in_base:
        git("checkout", base, "--", *in_base)
    for f in restore:
        if f not in in_base and (ROOT / f).exists():
            (ROOT / f).unlink()  # a file the lab's start added
    STATE.unlink(missing_ok=True)
    what = f"lab {n}'s files" if n is not None else "the labs' files"
    print(f"reset: {what} ({', '.join(files)}) are the solution again"
          f" ({base[:12]}){'; also restored: ' + ', '.join(other) if force and other else ''}")
    return 0


def list_labs():
    started, _ = read_state()
    for l in LABS:
        mark = "  (started)" if l.number == started else ""
        print(f"{l.number:2}  {l.tag:8}  {l.subsystem}: {l.title}{mark}")
        print(f"              you write: {l.writes}")
    return 0


def main(argv):
    args = argv[1:]
    usage = __doc__.split("\n\n")[1]
    if not args:
        print(usage, file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    cmd, rest = args[0], args[1:]
    if cmd == "list" and not rest:
        return list_labs()
    if cmd == "start" and len(rest) == 1 and rest[0].isdigit():
        return start(int(rest[0]))
    if cmd == "reset" and rest in ([], ["--force"]):
        return reset(bool(rest))
    if cmd == "grade" and rest and rest[0].isdigit() and set(rest[1:]) <= {"--no-build"}:
        l = lab(int(rest[0]))
        print(f"lab {l.number} ({l.tag}): {l.title}")
        if "--no-build" not in rest:
            ok, out = build(ROOT)
            if not ok:
                print(out[-3000:])
                print(f"lab {l.number}: the tree does not build")
                print(f"lab {l.number}: 0/{l.total()} points")
                return 1
        points, total = grade(l)
        print(f"lab {l.number}: {points}/{total} points")
        return 0 if points == total else 1
    print(usage, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
