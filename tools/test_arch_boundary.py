#!/usr/bin/env python3
"""tools/test_arch_boundary.py: riscv64 stays under kernel/arch/riscv64/.

Everything specific to the architecture lives under kernel/arch/riscv64/,
behind the arch_* hooks declared in kernel/arch.h. Outside that folder no
C file or header may use inline assembly or include an architecture header
(kernel/arch/..., or <arch/...>, which the include path resolves to the
architecture's folder) - except kernel/arch.h itself, the one header that
pulls in the architecture's inline hooks. Assembly sources live there too
(tools/ksyms_empty.S is data: the empty symbol table of the first link).
"""

import re
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARCH = ROOT / "kernel" / "arch"
SOURCES = ("kernel", "mm", "fs", "drivers", "tests", "app")
INLINE_ASM = re.compile(r"\b(__asm__|asm)\s*(__volatile__|volatile)?\s*(goto\s*)?\(")
ARCH_INCLUDE = re.compile(r'^\s*#\s*include\s*[<"](kernel/arch/|arch/)', re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def portable_files():
    for d in SOURCES:
        for p in sorted((ROOT / d).rglob("*")):
            if p.suffix in (".c", ".h", ".S") and ARCH not in p.parents:
                yield p


def check(path, text):
    """What in @text crosses the boundary (a list of reasons)."""
    rel = path.relative_to(ROOT).as_posix()
    code = COMMENT.sub("", text)
    found = []
    if path.suffix == ".S":
        found.append("assembly source outside kernel/arch/")
    if INLINE_ASM.search(code):
        found.append("inline assembly")
    if rel != "kernel/arch.h" and ARCH_INCLUDE.search(code):
        found.append("includes an architecture header")
    return found


class ArchBoundaryTest(unittest.TestCase):
    def test_no_portable_file_reaches_the_cpu(self):
        files = list(portable_files())
        self.assertGreater(len(files), 100)
        for p in files:
            with self.subTest(file=p.relative_to(ROOT).as_posix()):
                self.assertEqual(check(p, p.read_text()), [])

    def test_the_check_catches_each_kind(self):
        fake = ROOT / "mm" / "fake.c"
        self.assertEqual(check(fake, 'void f(void) { __asm__ __volatile__("wfi"); }'),
                         ["inline assembly"])
        self.assertEqual(check(fake, 'void f(void) { asm("nop"); }'), ["inline assembly"])
        self.assertEqual(check(fake, "#include <kernel/arch/riscv64/csr.h>\n"),
                         ["includes an architecture header"])
        self.assertEqual(check(fake, "#include <arch/inline.h>\n"),
                         ["includes an architecture header"])
        self.assertEqual(check(fake, "/* __asm__ volatile ( in a comment */\n"), [])
        self.assertEqual(check(ROOT / "kernel" / "arch.h", "#include <arch/inline.h>\n"), [])
        self.assertEqual(check(ROOT / "mm" / "fake.S", "nop\n"),
                         ["assembly source outside kernel/arch/"])

    def test_hooks_are_declared_in_one_header(self):
        arch_h = (ROOT / "kernel" / "arch.h").read_text()
        impl = "".join(p.read_text() for p in ARCH.rglob("*.c"))
        for name in set(re.findall(r"\b(arch_\w+)\s*\(", impl)):
            if re.search(rf"^\S.*\b{name}\s*\(", impl, re.M) and \
               not re.search(rf"^static\b.*\b{name}\s*\(", impl, re.M):
                with self.subTest(hook=name):
                    self.assertRegex(arch_h, rf"\b{name}\s*\(")


if __name__ == "__main__":
    unittest.main()
