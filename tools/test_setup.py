#!/usr/bin/env python3
"""tools/test_setup.py: tools/setup knows every program the tools call.

A fresh minimal Debian lacked xz, make and gcc although tools/setup had run
(issue 7, item 3). tools/setup now checks a list of programs after
installing its packages; this test keeps that list true: every program the
Python tools start (subprocess.run/Popen, the command lists they build) and
every program a build.ninja rule runs must be on it.
"""
import re
import shutil
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# A program named first in a command list: subprocess.run(["x", ...]),
# cmd = ["x", ...], or what stdbuf runs; and QEMU wherever it is named.
STARTS = [re.compile(r'(?:subprocess\.(?:run|Popen)\(|cmd\s*=)\s*\[\s*"([\w.+-]+)"'),
          re.compile(r'"stdbuf",\s*"-o0",\s*"([\w.+-]+)"'),
          re.compile(r'"(qemu-system-[\w-]+)"')]


def setup_programs():
    text = (ROOT / "tools" / "setup").read_text()
    m = re.search(r"^programs=\(([^)]*)\)", text, re.M)
    if not m:
        raise AssertionError("tools/setup has no programs=(...) list")
    return set(m.group(1).split())


def python_programs():
    found = {}
    for path in sorted((ROOT / "tools").glob("*.py")):
        if path.name == "test_setup.py":
            continue
        text = path.read_text()
        for pattern in STARTS:
            for name in pattern.findall(text):
                found.setdefault(name, path.name)
    return found


def ninja_programs():
    """Programs the rules run, ${cross} expanded with each arch's value
    (kernel/arch/<arch>/build.ninja sets it; the rules are in the root)."""
    crosses = [m for path in sorted(ROOT.glob("kernel/arch/*/build.ninja"))
               for m in re.findall(r"^cross = (\S+)", path.read_text(), re.M)]
    found = {}
    for path in [ROOT / "build.ninja", *sorted(ROOT.glob("*/build.ninja")),
                 *sorted(ROOT.glob("kernel/arch/*/build.ninja"))]:
        text = path.read_text()
        for cmd in re.findall(r"^\s+command = (.*)$", text, re.M):
            for part in re.split(r"&&|\|", cmd):
                for cross in crosses:
                    words = part.split()
                    for word in [words[0], *(w for w in words[1:] if "${cross}" in w)]:
                        found.setdefault(word.replace("${cross}", cross),
                                         str(path.relative_to(ROOT)))
    return found


class SetupKnowsEveryProgram(unittest.TestCase):
    def test_python_tools(self):
        programs = setup_programs()
        found = python_programs()
        self.assertIn("xfs_io", found)  # the patterns do find programs
        missing = {p: f for p, f in found.items() if p not in programs}
        self.assertEqual(missing, {}, "called by tools but not in tools/setup's programs")

    def test_build_rules(self):
        programs = setup_programs()
        found = ninja_programs()
        self.assertIn("riscv64-unknown-elf-gcc", found)
        missing = {p: f for p, f in found.items() if p not in programs}
        self.assertEqual(missing, {}, "run by build rules but not in tools/setup's programs")

    def test_listed_programs_are_installed(self):
        # tools/test runs tools/setup first, which fails if one is missing.
        self.assertEqual([p for p in sorted(setup_programs()) if not shutil.which(p)], [])


if __name__ == "__main__":
    unittest.main()
