#!/usr/bin/env python3
"""tools/test_arch_boundary.py: each arch stays under kernel/arch/<arch>/.

Everything specific to an architecture (riscv64, aarch64) lives under
kernel/arch/<arch>/, behind the arch_* hooks declared in kernel/arch.h and
the irqchip_* hooks of kernel/irq.h and the msi_* hooks of kernel/msi.h;
every arch implements every hook. Outside that folder no
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


ARCHES = ("riscv64", "aarch64")
# The interrupt controller's hooks (kernel/irq.h), also each arch's.
IRQCHIP_HOOKS = {"irqchip_valid", "irqchip_enable", "irqchip_pending",
                 "irqchip_init_hart", "irqchip_set_affinity", "irq_dispatch"}
# The MSI controller's (kernel/msi.h): an arch without one says so.
MSI_HOOKS = {"msi_alloc", "msi_free", "msi_compose", "msi_controller_name"}
# What each arch's <arch/inline.h> must define (kernel/arch.h's list).
INLINE_NAMES = {"ARCH_NAME", "arch_current_task", "arch_set_current_task",
                "arch_frame_record", "smp_mb", "smp_rmb", "smp_wmb", "io_wmb",
                "io_rmb", "io_mb"}


def declared_hooks():
    """The functions kernel/arch.h declares (not its inline helpers)."""
    code = COMMENT.sub("", (ROOT / "kernel" / "arch.h").read_text())
    return set(re.findall(r"^[\w ]*?\b(arch_\w+)\(", code, re.M)) - {"arch_frame_record"}


def defined_in(arch):
    """Names an arch's folder defines: C functions not static, assembly
    .globl symbols, and macros and inline functions of its headers."""
    names = set()
    for p in (ARCH / arch).rglob("*"):
        if p.suffix == ".c":
            code = COMMENT.sub("", p.read_text())
            names |= {m for m in re.findall(r"^(?!static)[\w \*]*?\b(\w+)\([^;]*$", code, re.M)}
        elif p.suffix == ".S":
            names |= set(re.findall(r"\.globl\s+(\w+)", p.read_text()))
        elif p.suffix == ".h":
            code = COMMENT.sub("", p.read_text())
            names |= set(re.findall(r"#define\s+(\w+)", code))
            names |= set(re.findall(r"static inline [\w \*]*?\b(\w+)\(", code))
    return names


class EveryArchTest(unittest.TestCase):
    def test_each_arch_implements_every_hook(self):
        hooks = declared_hooks()
        self.assertIn("arch_switch_context", hooks)  # the parse finds them
        self.assertIn("arch_pte_leaf", hooks)
        for arch in ARCHES:
            have = defined_in(arch)
            for name in sorted(hooks | IRQCHIP_HOOKS | MSI_HOOKS | INLINE_NAMES):
                with self.subTest(arch=arch, hook=name):
                    self.assertIn(name, have)

    def test_each_arch_builds_its_own_folder(self):
        """kernel/arch/<arch>/build.ninja compiles only its own folder's
        sources, into its own output folder."""
        outs = set()
        for arch in ARCHES:
            text = (ARCH / arch / "build.ninja").read_text()
            srcs = re.findall(r"^build \S+: (?:cc|as) (\S+)", text, re.M)
            self.assertTrue(srcs, arch)
            self.assertEqual([s for s in srcs if not s.startswith(f"kernel/arch/{arch}/")], [])
            outs.add(re.search(r"^b = (\S+)", text, re.M).group(1))
        self.assertEqual(len(outs), len(ARCHES), "two arches share an output folder")

    def test_module_builds_use_the_arch_output_folder(self):
        """Every output of a folder's build.ninja is under $b (a literal
        build/ would make both arches write the same file)."""
        for p in ROOT.glob("*/build.ninja"):
            for line in p.read_text().splitlines():
                with self.subTest(file=p.name, line=line):
                    self.assertNotRegex(line, r"^build build/")


if __name__ == "__main__":
    unittest.main()
