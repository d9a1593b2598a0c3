#!/usr/bin/env python3
"""tools/ktest_runner.py: run whole's tests and count them.

    python3 tools/ktest_runner.py [BOOT_GLOB [SUITE_GLOB]]   (via tools/test)

First the host unit tests (tools/test_*.py, as the pseudo-boot "host"),
then each boot of tools/boots.py whose name matches BOOT_GLOB: QEMU runs
build/whole.elf with ktest.filter=GLOB, the console goes to
build/test-logs/<boot>.log and is parsed by tools/ktap.py. A SUITE_GLOB
replaces each boot's filter; boots whose own filter selects none of the
suites it matches (per the kernel's symbol table) are skipped.

Each failure is printed with its diagnostics; the last line is
"N passed, N failed" (cases; crashes, timeouts, missing results and failed
hooks count as failures). Exit status 1 if anything failed.

Environment: WHOLE_QEMU replaces the QEMU command (e.g. a script, for
testing this runner); WHOLE_TIMEOUT_SCALE multiplies every boot timeout.
"""

import fnmatch
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import traceback
import unittest
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent
sys.path.insert(0, str(TOOLS))
import boots  # noqa: E402
import ktap  # noqa: E402
from ext2img import CheckFailed  # noqa: E402

BUILD = ROOT / "build"
KERNEL = BUILD / "whole.elf"
LOGS = BUILD / "test-logs"
TAIL = 30        # console lines shown for a crash or timeout
KILL_GRACE = 5   # seconds between SIGTERM and SIGKILL


class Tally:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def fail(self, name, reason, context=()):
        self.failed += 1
        print(ktap.format_failure(ktap.Failure(name, reason, list(context))))

    def summary(self):
        return f"{self.passed} passed, {self.failed} failed"


class _HostResult(unittest.TestResult):
    def __init__(self, tally):
        super().__init__()
        self.tally = tally

    def addSuccess(self, test):
        self.tally.passed += 1

    def addSkip(self, test, reason):
        # A skipped test proved nothing: it counts as a failure.
        self.tally.fail(f"host.{test.id()}", f"skipped: {reason}")

    def addFailure(self, test, err):
        self.tally.fail(f"host.{test.id()}", "failed",
                        self._exc_info_to_string(err, test).splitlines())

    addError = addFailure

    def addExpectedFailure(self, test, err):
        self.tally.passed += 1

    def addUnexpectedSuccess(self, test):
        self.tally.fail(f"host.{test.id()}", "unexpected success")


def run_host_tests(tally, suite_glob):
    loader = unittest.TestLoader()
    tests = unittest.TestSuite(
        loader.loadTestsFromName(path.stem)
        for path in sorted(TOOLS.glob("test_*.py"))
        if fnmatch.fnmatchcase(path.stem, suite_glob))
    before = (tally.passed, tally.failed)
    print(f"== host: {tests.countTestCases()} unit tests", flush=True)
    tests.run(_HostResult(tally))
    print(f"host: {tally.passed - before[0]} passed, "
          f"{tally.failed - before[1]} failed", flush=True)


def filter_matches(ktest_filter, suite):
    """The kernel's ktest.filter rule (kernel/ktest.c): a comma-separated
    list of globs; a suite runs if it matches a plain glob and no -glob."""
    globs = ktest_filter.split(",")
    return (any(fnmatch.fnmatchcase(suite, g) for g in globs if not g.startswith("-"))
            and not any(fnmatch.fnmatchcase(suite, g[1:]) for g in globs if g.startswith("-")))


def kernel_suites():
    """Suite names linked into the kernel, or None if unknown."""
    try:
        out = subprocess.run(["riscv64-unknown-elf-nm", str(KERNEL)],
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    prefix = "__ktest_suite_"
    return {w[len(prefix):] for line in out.splitlines()
            for w in line.split()[-1:] if w.startswith(prefix)}


def qemu_command(boot, ktest_filter):
    qemu = shlex.split(os.environ.get("WHOLE_QEMU", "qemu-system-riscv64"))
    bootargs = " ".join(a for a in (boot.bootargs, f"ktest.filter={ktest_filter}") if a)
    return qemu + ["-machine", "virt", "-bios", "default", "-nographic",
                   "-no-reboot", "-smp", str(boot.smp), "-m", boot.mem,
                   "-kernel", str(KERNEL.relative_to(ROOT)),
                   "-append", bootargs, *boot.qemu_args]


def run_qemu(cmd, log_path, timeout):
    """Run cmd in its own process group; return (status or None on timeout)."""
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.DEVNULL,
                                stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            return proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return None
        finally:
            _kill_group(proc)


def _kill_group(proc):
    """End QEMU and anything it started; the group outlives a dead leader."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            break
        try:
            proc.wait(timeout=KILL_GRACE)
        except subprocess.TimeoutExpired:
            continue
        # The leader is gone; make sure no child is left in its group.
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        break


def run_hook(tally, boot, what, hook):
    try:
        hook(BUILD)
        return True
    except Exception as e:  # any hook error is a counted failure
        text = str(e) if isinstance(e, CheckFailed) else traceback.format_exc()
        tally.fail(f"{boot.name}.{what}", "failed", text.rstrip().splitlines())
        return False


def check_panic(tally, boot, status, console):
    """A boot that must panic: exit code 3, the panic line, and a
    symbolized backtrace naming boot.expect_panic."""
    lines = console.splitlines()
    frame = re.compile(rf"^\[[ \d.]+\]\s+{re.escape(boot.expect_panic)}\+0x[0-9a-f]+/0x")
    problems = []
    if status != 3:
        problems.append(f"QEMU exit status {status}, expected 3 (panic)")
    if not any("Kernel panic" in l for l in lines):
        problems.append("no 'Kernel panic' line")
    if not any(frame.search(l.rstrip("\r")) for l in lines):
        problems.append(f"no backtrace frame {boot.expect_panic}+0x.../0x...")
    if problems:
        tally.fail(boot.name, "; ".join(problems), lines[-TAIL:])
    else:
        tally.passed += 1


def count_ktap(tally, boot, status, console, end_reason):
    res = ktap.parse(console, end_reason)
    tail = res.lines[-TAIL:]
    for f in res.failures:
        tally.fail(f"{boot.name}.{f.name}", f.reason, f.context)
    tally.passed += len(res.passed)
    if end_reason and not res.ended_early:
        tally.fail(boot.name, end_reason, tail)
    elif status == 1 and not res.failures:
        tally.fail(boot.name, "QEMU exit status 1, yet KTAP shows no failure", tail)


def run_boot(tally, boot, ktest_filter):
    scale = float(os.environ.get("WHOLE_TIMEOUT_SCALE", "1"))
    timeout = max(1, round(boot.timeout * scale))
    cmd = qemu_command(boot, ktest_filter)
    log_path = LOGS / f"{boot.name}.log"
    print(f"== {boot.name}: smp {boot.smp}, {boot.mem}, ktest.filter={ktest_filter}, "
          f"timeout {timeout}s", flush=True)
    before = (tally.passed, tally.failed)
    start = time.monotonic()
    if boot.prepare and not run_hook(tally, boot, "prepare", boot.prepare):
        return
    status = run_qemu(cmd, log_path, timeout)
    elapsed = time.monotonic() - start

    if status is None:
        end_reason = f"timed out after {timeout}s"
    elif status not in (0, 1):
        end_reason = f"QEMU exit status {status}" + (" (kernel panic)" if status == 3 else "")
    else:
        end_reason = None
    console = log_path.read_bytes().decode("utf-8", errors="replace")
    if boot.expect_panic:
        check_panic(tally, boot, status, console)
    else:
        count_ktap(tally, boot, status, console, end_reason)
    if boot.post_check:
        run_hook(tally, boot, "post_check", boot.post_check)
    failed = tally.failed - before[1]
    if failed:
        print(f"   command: {shlex.join(cmd)}")
    print(f"{boot.name}: {tally.passed - before[0]} passed, {failed} failed "
          f"({elapsed:.1f}s, log {os.path.relpath(log_path, ROOT)})", flush=True)


def main(argv):
    if len(argv) > 3 or any(a.startswith("-") for a in argv[1:]):
        print("usage: tools/test [BOOT_GLOB [SUITE_GLOB]]", file=sys.stderr)
        print("0 passed, 1 failed")
        return 2
    boot_glob = argv[1] if len(argv) > 1 else "*"
    suite_glob = argv[2] if len(argv) > 2 else "*"
    # A CI job killed from outside must not leave QEMU behind.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    os.chdir(ROOT)
    LOGS.mkdir(parents=True, exist_ok=True)

    tally = Tally()
    if fnmatch.fnmatchcase("host", boot_glob):
        run_host_tests(tally, "test_*" if suite_glob == "*" else suite_glob)
    suites = kernel_suites() if suite_glob != "*" else None
    selected = [b for b in boots.BOOTS if fnmatch.fnmatchcase(b.name, boot_glob)]
    for boot in selected:
        ktest_filter = boot.filter
        if suite_glob != "*":
            ktest_filter = suite_glob
            if suites is not None:
                both = sorted(s for s in suites if filter_matches(boot.filter, s)
                              and filter_matches(suite_glob, s))
                if not both:
                    print(f"== {boot.name}: not run, no suite matches both "
                          f"{boot.filter!r} and {suite_glob!r}")
                    continue
                ktest_filter = ",".join(both)
        run_boot(tally, boot, ktest_filter)
    if not selected and not fnmatch.fnmatchcase("host", boot_glob):
        tally.fail(boot_glob, "no boot matches; boots: host, " +
                   ", ".join(b.name for b in boots.BOOTS))
    print(tally.summary())
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
