#!/usr/bin/env python3
"""tools/ktest_runner.py: run whole's tests and count them.

    python3 tools/ktest_runner.py [BOOT_GLOB [SUITE_GLOB]]   (via tools/test)

The host unit tests (tools/test_*.py, as the pseudo-boot "host", by
tools/host_tests.py) and each boot of tools/boots.py whose name matches
BOOT_GLOB; a full run (no globs) runs the host tests in a process of their
own beside the boots, its output in build/test-logs/host.log, printed
after the boots, and then host_tests.QUIET's, left for when the boots
are done (WHOLE_SERIAL=1: all first, in this process). A boot: QEMU runs build/whole.elf with ktest.filter= the boot's suites,
the console goes to build/test-logs/<boot>.log and is parsed by
tools/ktap.py. A
SUITE_GLOB narrows each boot to its suites that match it (host: the test
modules); boots left with none are not run.

Each failure is printed with its diagnostics, each skip with its reason;
the last line is "N passed, N failed, N skipped" (cases). Failures are
also: a crash, a timeout, a missing result, a failed hook; a boot or a
whole run with no result at all; a BOOT_GLOB or SUITE_GLOB that matches
nothing; a suite the boot lists (boots.py `suites`) that printed no
result or one that ran but is not listed; a skip the boot does not allow
(boots.py `may_skip`; host: none), one failure per boot naming them; a
suite linked into the kernel that no boot lists (full runs); a kernel
report of a bug on the console (tools/kconsole.py) the boot does not allow.
Exit status 1 if anything failed.

Environment: WHOLE_QEMU replaces the QEMU command (e.g. a script, for
testing this runner); WHOLE_TIMEOUT_SCALE multiplies every boot timeout;
WHOLE_SERIAL=1 runs a full run's host tests before the boots.
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
from pathlib import Path

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent
sys.path.insert(0, str(TOOLS))
import boots  # noqa: E402
import host_tests  # noqa: E402
import kconsole  # noqa: E402
import ktap  # noqa: E402
from ext2img import CheckFailed  # noqa: E402
from qemu_smp import smp_arg  # noqa: E402

BUILD = ROOT / "build"
KERNEL = BUILD / "whole.elf"
# The kernel QEMU boots for boots.py's (arch, build): each arch's test
# kernel and its production kernel (prod.ninja's, which the runner builds
# first); aarch64's as an arm64 Image
KERNELS = {("riscv64", ""): KERNEL,
           ("riscv64", "prod"): BUILD / "prod" / "whole.elf",
           ("aarch64", ""): BUILD / "aarch64" / "Image",
           ("aarch64", "prod"): BUILD / "aarch64" / "prod" / "Image"}
LOGS = BUILD / "test-logs"
TAIL = 30        # console lines shown for a crash or timeout
KILL_GRACE = 5   # seconds between SIGTERM and SIGKILL


class Tally:
    def __init__(self):
        self.passed = 0
        self.failed = 0
        self.skipped = 0

    def fail(self, name, reason, context=()):
        self.failed += 1
        print(ktap.format_failure(ktap.Failure(name, reason, list(context))))

    def skip(self, name, reason):
        self.skipped += 1
        print(f"SKIP {name}: {reason}")

    def fail_skips(self, name, skipped, may_skip=()):
        """Under tools/test every boot has what its suites need, so a skip
        is of a required test unless @may_skip (globs) lets it: one
        failure names them."""
        required = [n for n in skipped
                    if not any(fnmatch.fnmatchcase(n, g) for g in may_skip)]
        if required:
            self.fail(name, f"required tests skipped ({len(required)}): " +
                      ", ".join(required))

    def mark(self):
        return (self.passed, self.failed, self.skipped)

    def summary(self, since=(0, 0, 0)):
        return ktap.summary(*(now - then for now, then in zip(self.mark(), since)))


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


def machine_args(boot):
    """(QEMU and its machine, the kernel) for the boot's arch
    (boots.ARCHES): riscv64's virt under OpenSBI with build/whole.elf, or
    aarch64's virt with build/aarch64/Image (exit code by semihosting),
    highmem=off unless the boot's machine says highmem=on (QEMU takes the
    last); the boot's build's kernel instead if it names one (KERNELS)."""
    kernel = ["-kernel", str(KERNELS[boot.arch, boot.build].relative_to(ROOT))]
    if boot.arch == "aarch64":
        return (["qemu-system-aarch64", "-machine", "virt,highmem=off" + boot.machine,
                 "-cpu", "cortex-a57", "-net", "none",
                 "-semihosting-config", "enable=on,target=native"], kernel)
    qemu = shlex.split(os.environ.get("WHOLE_QEMU", "qemu-system-riscv64"))
    return (qemu + ["-machine", "virt" + boot.machine, "-bios", "default"], kernel)


def build_kernel(boot):
    """Build the kernel of @boot's build field (ninja, incremental);
    raise CheckFailed with ninja's output if that fails."""
    target = str(KERNELS[boot.arch, boot.build].relative_to(ROOT))
    proc = subprocess.run(["ninja", target], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode:
        raise CheckFailed(f"ninja {target} failed:\n{proc.stdout[-3000:]}{proc.stderr}")


def qemu_command(boot, ktest_filter):
    bootargs = " ".join(a for a in (boot.bootargs, f"ktest.filter={ktest_filter}") if a)
    machine, kernel = machine_args(boot)
    return machine + ["-nographic", "-no-reboot", "-smp", smp_arg(boot.smp),
                      "-m", boot.mem, *kernel, "-append", bootargs, *boot.qemu_args]


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


def check_panic(tally, boot, status, lines, required):
    """A boot that must panic: exit code 3, the panic line, and a
    symbolized backtrace naming boot.expect_panic, inside its suites."""
    frame = re.compile(rf"^\[[ \d.]+\]\s+{re.escape(boot.expect_panic)}\+0x[0-9a-f]+/0x")
    problems = []
    if status != 3:
        problems.append(f"QEMU exit status {status}, expected 3 (panic)")
    if not any("Kernel panic" in l for l in lines):
        problems.append("no 'Kernel panic' line")
    if not any(frame.search(l) for l in lines):
        problems.append(f"no backtrace frame {boot.expect_panic}+0x.../0x...")
    began = {l.strip()[len("# Subtest: "):] for l in lines
             if l.strip().startswith("# Subtest: ")}
    problems += [f"suite {name} never began" for name in required if name not in began]
    if problems:
        tally.fail(boot.name, "; ".join(problems), lines[-TAIL:])
    else:
        tally.passed += 1


def check_suites(tally, boot, res, required):
    """Each suite the boot lists printed a result; no suite ran that the
    boot does not list."""
    ran = res.suites()
    for name in required:
        suite = ran.get(name)
        if suite is None and not res.ended_early:
            linked = kernel_suites()
            hint = (": it is not linked into whole.elf (renamed or dropped?)"
                    if linked is not None and name not in linked else "")
            tally.fail(f"{boot.name}.{name}",
                       f"listed in tools/boots.py but printed no result{hint}")
    for name in sorted(set(ran) - set(required)):
        tally.fail(f"{boot.name}.{name}",
                   "ran, but the boot's suites in tools/boots.py do not list it")


def check_reports(tally, boot, lines):
    """Kernel reports of a bug fail the boot unless it expects them."""
    for report in kconsole.unexpected(kconsole.scan(lines), boots.allowed_reports(boot)):
        f = report.failure(boot.name)
        tally.fail(f.name, f.reason, f.context)


def count_ktap(tally, boot, status, console, end_reason, required):
    res = ktap.parse(console, end_reason)
    tail = res.lines[-TAIL:]
    for f in res.failures:
        tally.fail(f"{boot.name}.{f.name}", f.reason, f.context)
    for f in res.skipped:
        tally.skip(f"{boot.name}.{f.name}", f.reason)
    tally.fail_skips(boot.name, [f.name for f in res.skipped], boot.may_skip)
    tally.passed += len(res.passed)
    if end_reason and not res.ended_early:
        tally.fail(boot.name, end_reason, tail)
    elif status == 1 and not res.failures:
        tally.fail(boot.name, "QEMU exit status 1, yet KTAP shows no failure", tail)
    check_suites(tally, boot, res, required)
    return res.lines


def run_boot(tally, boot, ktest_filter, required):
    scale = float(os.environ.get("WHOLE_TIMEOUT_SCALE", "1"))
    timeout = max(1, round(boot.timeout * scale))
    cmd = qemu_command(boot, ktest_filter)
    log_path = LOGS / f"{boot.name}.log"
    print(f"== {boot.name}: smp {boot.smp}, {boot.mem}, ktest.filter={ktest_filter}, "
          f"timeout {timeout}s", flush=True)
    before = tally.mark()
    start = time.monotonic()
    if boot.build and not run_hook(tally, boot, "build", lambda _: build_kernel(boot)):
        return
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
        lines = [l.rstrip() for l in console.split("\n")]
        check_panic(tally, boot, status, lines, required)
    else:
        lines = count_ktap(tally, boot, status, console, end_reason, required)
    check_reports(tally, boot, lines)
    if boot.post_check:
        run_hook(tally, boot, "post_check", boot.post_check)
    if tally.mark() == before:
        tally.fail(boot.name, "no result at all", lines[-TAIL:])
    if tally.failed > before[1]:
        print(f"   command: {shlex.join(cmd)}")
    print(f"{boot.name}: {tally.summary(before)} "
          f"({elapsed:.1f}s, log {os.path.relpath(log_path, ROOT)})", flush=True)


def plan_boots(tally, boot_glob, suite_glob):
    """[(boot, ktest filter, suites it must run)] for the selected boots."""
    runs = []
    for boot in boots.BOOTS:
        if not fnmatch.fnmatchcase(boot.name, boot_glob):
            continue
        required = boot.required()
        if required is None:
            tally.fail(boot.name, f"filter {boot.filter!r} has globs, yet the row "
                       "lists no suites= (the suites the boot must run)")
            continue
        ktest_filter = boot.ktest_filter()
        if suite_glob != "*":
            required = tuple(s for s in required if filter_matches(suite_glob, s))
            if not required:
                print(f"== {boot.name}: not run, none of its suites matches {suite_glob!r}")
                continue
            ktest_filter = ",".join(required)
        runs.append((boot, ktest_filter, required))
    return runs


def run_boots(tally, boot_glob, suite_glob):
    """Run the boots BOOT_GLOB and SUITE_GLOB select; return their plan."""
    runs = plan_boots(tally, boot_glob, suite_glob)
    for boot, ktest_filter, required in runs:
        run_boot(tally, boot, ktest_filter, required)
    return runs


def check_linked(tally):
    """Full runs: every suite linked into the kernel is some boot's."""
    linked = kernel_suites()
    if linked is None:
        tally.fail("whole.elf", f"cannot list the suites linked into {KERNEL}")
        return
    listed = {s for b in boots.BOOTS for s in (b.required() or ())}
    for name in sorted(linked - listed):
        tally.fail(name, "linked into whole.elf, but no boot in tools/boots.py lists it")


def start_host_beside():
    """A full run's host tests, in a process of their own beside the boots
    (half of a run's time is host tests that leave a core idle); their
    output goes to build/test-logs/host.log. WHOLE_SERIAL=1: none."""
    if os.environ.get("WHOLE_SERIAL") == "1":
        return None
    log = open(LOGS / "host.log", "w")
    print("== host: in a process beside the boots (build/test-logs/host.log)",
          flush=True)
    return subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "host"],
                            stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, cwd=ROOT,
                            start_new_session=True,
                            env={**os.environ, "WHOLE_HOST_BESIDE": "1"})


HOST_SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped$")


def finish_host_beside(tally, proc):
    """Wait for start_host_beside's process, print its output and count
    its summary line; a missing line or an exit status that disagrees with
    it is a failure."""
    status = proc.wait()
    out = (LOGS / "host.log").read_text(errors="replace")
    print(out, end="" if out.endswith("\n") else "\n", flush=True)
    lines = out.rstrip("\n").split("\n")
    m = HOST_SUMMARY.match(lines[-1]) if lines else None
    if not m:
        tally.fail("host", f"the host tests' process ended (status {status}) "
                   "without its summary line", lines[-TAIL:])
        return
    passed, failed, skipped = map(int, m.groups())
    tally.passed += passed
    tally.failed += failed
    tally.skipped += skipped
    if (status != 0) != (failed > 0):
        tally.fail("host", f"exit status {status} with {failed} failed")


def run_all(tally, boot_glob, suite_glob):
    ran_host = False
    full = boot_glob == "*" and suite_glob == "*"
    beside = start_host_beside() if full else None
    if beside:
        try:
            run_boots(tally, boot_glob, suite_glob)
        except BaseException:  # SIGTERM's exit, ^C: the host tests end too
            _kill_group(beside)
            raise
        finish_host_beside(tally, beside)
        # the load-sensitive ones, with the boots done (host_tests.QUIET)
        for name in host_tests.QUIET:
            host_tests.run(tally, name)
        check_linked(tally)
        return
    if fnmatch.fnmatchcase("host", boot_glob):
        host_glob = "test_*" if suite_glob == "*" else suite_glob
        beside = os.environ.get("WHOLE_HOST_BESIDE") == "1"
        tests = host_tests.load(host_glob, host_tests.QUIET if beside else ())
        if tests.countTestCases() or suite_glob == "*":
            host_tests.run(tally, host_glob, tests)
            ran_host = True
    runs = run_boots(tally, boot_glob, suite_glob)
    if full:
        check_linked(tally)
    names = [b.name for b in boots.BOOTS if fnmatch.fnmatchcase(b.name, boot_glob)]
    if fnmatch.fnmatchcase("host", boot_glob):
        names.insert(0, "host")
    if not names:
        tally.fail(f"BOOT_GLOB {boot_glob!r}", "matched nothing; boots: host, " +
                   ", ".join(b.name for b in boots.BOOTS))
    elif not ran_host and not runs:
        tally.fail(f"SUITE_GLOB {suite_glob!r}",
                   f"matched nothing in the boots {', '.join(names)}")
    elif tally.mark() == (0, 0, 0):
        tally.fail("run", "nothing ran")


def list_boots():
    """What ./tools/test --list prints: the host tests, then each boot with
    its machine and the suites it runs (or its filter, if it has globs)."""
    host = sorted(p.stem for p in (ROOT / "tools").glob("test_*.py"))
    lines = [f"host: {' '.join(host)}"]
    for b in boots.BOOTS:
        suites = b.required()
        what = " ".join(suites) if suites else f"filter {b.ktest_filter()}"
        lines.append(f"{b.name} (smp {b.smp}, {b.mem}): {what}")
    return "\n".join(lines)


def main(argv):
    if argv[1:] == ["--list"]:
        print(list_boots())
        return 0
    if len(argv) > 3 or any(a.startswith("-") for a in argv[1:]):
        print("usage: tools/test [BOOT_GLOB [SUITE_GLOB]] | --list", file=sys.stderr)
        print(ktap.summary(0, 1, 0))
        return 2
    boot_glob = argv[1] if len(argv) > 1 else "*"
    suite_glob = argv[2] if len(argv) > 2 else "*"
    # A CI job killed from outside must not leave QEMU behind.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    os.chdir(ROOT)
    LOGS.mkdir(parents=True, exist_ok=True)

    tally = Tally()
    run_all(tally, boot_glob, suite_glob)
    print(tally.summary())
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
