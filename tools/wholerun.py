"""tools/wholerun.py: boot whole through tools/run for a host test, its
console checked with tools/kconsole.py's rules.

    res = wholerun.run(["--disk", img, "-c", "ls /"])
    res.returncode, res.stdout (the console), res.stderr (tools/setup's)

A kernel report of a bug on the console (WARNING, lockdep, an oops, a
page left in an invalidated range, an ext2 error, ...; tools/kconsole.py)
fails the test with the report's lines (kconsole.Reported, an
AssertionError) before the test looks at anything else, unless @allow
expects it: (kind, glob) pairs as in tools/boots.py, the glob over where
the report fell ("<boot>" on a shell's console, which has no KTAP). A
test that provokes a report on purpose names it there, and why.
A test that reads the console itself (a pipe, a cut boot) calls
kconsole.check on what it read.
"""

import subprocess
from pathlib import Path

import kconsole

ROOT = Path(__file__).resolve().parent.parent
RUN = str(ROOT / "tools" / "run")


def run(args, timeout=120, allow=(), env=None):
    """tools/run @args (e.g. ["--smp", "2", "-c", "uptime"]), stdin
    /dev/null; return the CompletedProcess, its output text."""
    res = subprocess.run([RUN, *map(str, args)], cwd=ROOT, env=env,
                         capture_output=True, text=True, errors="replace",
                         timeout=timeout, stdin=subprocess.DEVNULL)
    kconsole.check(res.stdout, allow)
    return res
