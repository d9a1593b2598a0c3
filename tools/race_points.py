#!/usr/bin/env python3
"""tools/race_points.py: the race point names are one list.

kernel/race_points.def lists them, RACE_POINT_DEF(name, KERNEL | MODEL).
kernel/race.h makes enum race_id from it and the kernel places each point
with race_point(name, obj). The SPIN model (docs/model/invalidate_lock.pml)
includes the same file for the names marked MODEL and places each with
race_point(name). This checks that each side uses the list, and every
name it should and no other:

    python3 tools/race_points.py      # the problems; exit status 1 if any
"""

import os
import re
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEF = "kernel/race_points.def"
MODEL = "docs/model/invalidate_lock.pml"
RACE_H = "kernel/race.h"
KERNEL_DIRS = ("kernel", "mm", "fs", "drivers", "app")

DEF_RE = re.compile(r"^RACE_POINT_DEF\((\w+),\s*(KERNEL|MODEL)\)\s*$", re.M)
USE_RE = re.compile(r"\brace_point\((\w+)\s*[,)]")
ENUM_RE = re.compile(r"enum race_id\s*\{(.*?)\}", re.S)


def read(rel):
    with open(os.path.join(REPO, rel)) as f:
        return f.read()


def strip_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)


def parse_def(text):
    """[(name, where)] in order; problems with lines that are not entries."""
    body = strip_comments(text)
    entries = DEF_RE.findall(body)
    problems = []
    for line in body.splitlines():
        if line.strip() and not DEF_RE.match(line.strip()):
            problems.append(f"{DEF}: not an entry: {line.strip()}")
    names = [n for n, _ in entries]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        problems.append(f"{DEF}: listed twice: {', '.join(dup)}")
    return entries, problems


def uses(text):
    """Names placed with race_point(name...), comments and the
    definitions of race_point itself apart."""
    text = strip_comments(text)
    text = re.sub(r"^#define race_point\(.*$|\brace_point\(enum race_id",
                  "", text, flags=re.M)
    return set(USE_RE.findall(text))


def compare(want, used, where):
    problems = [f"{where}: no race_point({n})"
                for n in sorted(set(want) - used)]
    problems += [f"{where}: race_point({n}) is not a point of {DEF}"
                 for n in sorted(used - set(want))]
    return problems


def check_model(entries, text):
    problems = []
    if not re.search(r'#include\s+"[./]*kernel/race_points\.def"', text):
        problems.append(f"{MODEL}: does not include {DEF}")
    want = [n for n, where in entries if where == "MODEL"]
    return problems + compare(want, uses(text), MODEL)


def race_h_enum(text):
    m = ENUM_RE.search(text)
    if not m:
        return None
    body = strip_comments(m.group(1))
    return [n for n in re.findall(r"\b([A-Z_][A-Z0-9_]*)\b", body)
            if n != "NR_RACE_POINTS"]


def check_kernel(entries, race_h, placed):
    """(problems, notes). kernel/race.h must make its enum from the list and
    the kernel place every point; a race.h with an enum of its own (before
    the ilock branch's points arrive) must at least name nothing else."""
    names = [n for n, _ in entries]
    if "race_points.def" in race_h:
        return compare(names, placed, "the kernel (tests apart)"), []
    enum = race_h_enum(race_h)
    if enum is None:
        return [f"{RACE_H}: neither includes {DEF} nor has enum race_id"], []
    problems = [f"{RACE_H}: {n} is not a point of {DEF}"
                for n in enum if n not in names]
    missing = [n for n in names if n not in enum]
    notes = [f"{RACE_H} has its own enum, not {DEF}'s"]
    if missing:
        notes.append(f"{RACE_H} lacks {', '.join(missing)} (not placed in "
                     "the kernel on this branch)")
    return problems, notes


def kernel_placed():
    used = set()
    for d in KERNEL_DIRS:
        for root, _, files in os.walk(os.path.join(REPO, d)):
            for fn in files:
                if fn.endswith((".c", ".h")) and "_test" not in fn:
                    with open(os.path.join(root, fn)) as f:
                        used |= uses(f.read())
    return used


def check_all():
    entries, problems = parse_def(read(DEF))
    problems += check_model(entries, read(MODEL))
    kproblems, notes = check_kernel(entries, read(RACE_H), kernel_placed())
    return problems + kproblems, notes


def main():
    problems, notes = check_all()
    for n in notes:
        print("note: " + n)
    for p in problems:
        print(p)
    print(f"race points: {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
