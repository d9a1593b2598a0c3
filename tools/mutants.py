#!/usr/bin/env python3
"""tools/mutants.py: deliberate bugs that the tests must notice.

    tools/mutants [--quick] [NAME_GLOB ...]

Each tools/mutants.d/NN-name.patch is one small bug. Its header (the lines
before the diff, which git apply skips) says what it breaks and where the
tests should see it:

    invariant: the rule of the code the bug breaks
    boot: BOOT_GLOB [SUITE_GLOB]     one or more; as for tools/test
    scale: 0.2                       optional: WHOLE_TIMEOUT_SCALE for them
    quick: yes                       optional: also run by tools/test

The tree is copied (tracked and untracked files, build/newlib,
build/aarch64/newlib and build/sysinc linked, and what ninja built for both
arches, so builds are incremental) to a scratch directory, which is the
only place a patch is ever applied; it is removed on any exit, Ctrl-C
included. Each mutant builds only the arches its boot lines need. The
unmutated copy is built and each boot line is run on it first (a line
that fails there could not tell a mutant from noise). Then, one mutant at
a time: apply, build, run its boot lines until one fails (killed), undo.
A mutant no boot line notices survived: a test is missing. A patch that
no longer applies or builds is broken and counts as a survivor.

Prints one line per mutant and then "N killed, N survived"; exit status 1
if any survived. WHOLE_MUTANTS_DIR replaces tools/mutants.d (for testing
this tool).
"""

import fnmatch
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = Path(os.environ.get("WHOLE_MUTANTS_DIR", ROOT / "tools" / "mutants.d"))
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed(, \d+ skipped)?$")


@dataclass
class Mutant:
    name: str
    path: Path
    invariant: str = ""
    boots: list = field(default_factory=list)  # [[boot_glob, suite_glob?]]
    scale: str = "1"
    quick: bool = False
    text: str = ""  # the patch, read once: the list is fixed at the start


def load(path):
    m = Mutant(path.stem, path, text=path.read_text())
    for line in m.text.splitlines():
        if line.startswith(("--- ", "diff ")):
            break
        key, _, value = line.partition(":")
        value = value.strip()
        if key == "invariant":
            m.invariant = value
        elif key == "boot":
            m.boots.append(value.split())
        elif key == "scale":
            m.scale = value
        elif key == "quick":
            m.quick = value == "yes"
    if not m.invariant or not m.boots or any(not 1 <= len(b) <= 2 for b in m.boots):
        raise SystemExit(f"{path}: needs 'invariant:' and 'boot: BOOT [SUITE]' lines")
    return m


# What ninja builds into build/ (build.ninja and its folders' files): with
# copy_tree(objects=True) the copy's first build is incremental.
BUILD_DIRS = ("kernel", "mm", "fs", "drivers", "tests", "app")
BUILD_FILES = (".ninja_log", ".ninja_deps", "version.h", "ksyms.S", "Image",
               "whole.size")
BUILD_SUFFIXES = (".a", ".o", ".elf")


def tree_files(src):
    """The files of the tree at @src, relative: git's tracked and untracked
    ones (not ignored) if it is a checkout, else every file outside
    build/ (a copy made by copy_tree has no .git)."""
    if (src / ".git").exists():
        files = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=src, check=True, capture_output=True).stdout.split(b"\0")
        return [f.decode() for f in files if f]
    return [str(p.relative_to(src)) for p in sorted(src.rglob("*"))
            if p.is_file() and p.relative_to(src).parts[0] not in ("build", ".git")
            and "__pycache__" not in p.parts]


def copy_tree(dest, src=ROOT, objects=False):
    """The working tree as it is, without build/, plus the prebuilt libc;
    with @objects, also what ninja built there (times kept, so that only
    what a patch then touches is built again)."""
    for name in tree_files(src):
        if (src / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src / name, dest / name)
    (dest / "build" / "aarch64").mkdir(parents=True)
    for prebuilt in ("newlib", "sysinc", "aarch64/newlib"):
        os.symlink((src / "build" / prebuilt).resolve(), dest / "build" / prebuilt)
    if not objects:
        return
    for sub in ("", "aarch64"):  # each arch's output folder
        built, out = src / "build" / sub, dest / "build" / sub
        for d in BUILD_DIRS:
            if (built / d).is_dir():
                shutil.copytree(built / d, out / d)
        for f in built.iterdir() if built.is_dir() else ():
            if f.is_file() and (f.name in BUILD_FILES or f.name.endswith(BUILD_SUFFIXES)):
                shutil.copy2(f, out / f.name)


def run(cmd, cwd, env=None, stdin=None):
    """Run @cmd in its own process group; kill the group if we are stopped."""
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            stdin=subprocess.PIPE if stdin else None,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(stdin)
    except BaseException:
        # SIGTERM first: the runner then stops its QEMU (own group) itself.
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        raise
    return proc.returncode, out


# The kernels a boot line needs: its boots' arches (tools/boots.py); host
# tests read both (tools/test_barriers.py disassembles each).
ARCH_TARGETS = {"riscv64": ["build/whole.size", "build/Image"],
                "aarch64": ["build/aarch64/whole.size", "build/aarch64/Image"]}


def targets(mutants):
    import boots  # tools/ is this script's folder
    arches = set()
    for m in mutants:
        for line in m.boots:
            if line[0] == "host":
                arches |= set(ARCH_TARGETS)
            arches |= {b.arch for b in boots.BOOTS if fnmatch.fnmatchcase(b.name, line[0])}
    return [t for a in sorted(arches) for t in ARCH_TARGETS[a]]


def build(tree, what=()):
    rc, out = run(["ninja", *what], tree)
    return rc == 0, out


def run_boot(tree, line, scale):
    """Return: (failed, last line) of tools/test's runner for @line."""
    env = dict(os.environ, WHOLE_TIMEOUT_SCALE=scale)
    rc, out = run([sys.executable, "tools/ktest_runner.py", *line], tree, env)
    last = out.strip().splitlines()[-1] if out.strip() else "(no output)"
    m = SUMMARY.match(last)
    # Killed only by a counted failure, not by a runner that could not run.
    return rc != 0 and bool(m) and int(m[2]) > 0, last


def apply(tree, mutant, reverse=False):
    cmd = ["git", "apply", "-p1"] + (["-R"] if reverse else [])
    rc, out = run(cmd + ["-"], tree, stdin=mutant.text)
    return rc == 0, out


def baseline(tree, mutants):
    ok, out = build(tree, targets(mutants))
    if not ok:
        print(out[-3000:])
        raise SystemExit("mutants: the unmutated tree does not build")
    lines = {tuple(b) for m in mutants for b in m.boots}
    for line in sorted(lines):
        failed, last = run_boot(tree, list(line), "1")
        if failed or not SUMMARY.match(last):
            raise SystemExit(f"mutants: unmutated tree fails {' '.join(line)}: {last}")
        print(f"baseline {' '.join(line)}: {last}", flush=True)


def try_mutant(tree, m):
    """Return: 'killed by ...' or 'SURVIVED ...' / 'BROKEN ...'."""
    ok, out = apply(tree, m)
    if not ok:
        return False, f"BROKEN: does not apply: {out.strip()[:300]}"
    try:
        ok, out = build(tree, targets([m]))
        if not ok:
            return False, "BROKEN: does not build:\n" + out[-1500:]
        for line in m.boots:
            failed, last = run_boot(tree, line, m.scale)
            if failed:
                return True, f"killed by {' '.join(line)} ({last})"
        return False, f"SURVIVED {', '.join(' '.join(b) for b in m.boots)}"
    finally:
        ok, out = apply(tree, m, reverse=True)
        if not ok:
            raise SystemExit(f"mutants: cannot undo {m.name}: {out}")


def main(argv):
    quick = "--quick" in argv
    globs = [a for a in argv[1:] if a != "--quick"] or ["*"]
    if any(g.startswith("-") for g in globs):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    mutants = [load(p) for p in sorted(MUTANTS.glob("*.patch"))
               if any(fnmatch.fnmatchcase(p.stem, g) for g in globs)]
    if quick:
        mutants = [m for m in mutants if m.quick]
    if not mutants:
        print("mutants: no mutant matches", " ".join(globs))
        print("0 killed, 1 survived")
        return 1
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tree = Path(tempfile.mkdtemp(prefix="whole-mutants-"))
    killed = survived = 0
    try:
        copy_tree(tree, objects=True)  # both arches built: incremental
        baseline(tree, mutants)
        for m in mutants:
            dead, what = try_mutant(tree, m)
            killed += dead
            survived += not dead
            print(f"{m.name}: {what}\n    ({m.invariant})", flush=True)
    finally:
        shutil.rmtree(tree, ignore_errors=True)
    print(f"{killed} killed, {survived} survived")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
