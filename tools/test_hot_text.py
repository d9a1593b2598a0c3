#!/usr/bin/env python3
"""tools/test_hot_text.py: the copy loops sit in one page of their own.

Under QEMU's TCG a jump from one translated block to a block on another
guest page is not chained; it is looked up each time it is taken. A copy
loop that straddles a 4 KiB boundary therefore runs far slower than the
same loop inside one page, and where it falls depends on every byte of
code linked before it: a change anywhere could move memcpy across a
boundary and halve a cold read (it did: docs/benchmarks.md, "Hot text").
Both arches' linker scripts put newlib's mem* objects and the .text.hot
section (arch_copy_nofault) in one page, right after the entry code, and
fail the link if they outgrow it.

These tests read each kernel's symbols (the test and production builds
of both arches, built first) and check that the page is page-aligned and
at most a page long, and that every copy routine the kernel calls lies
wholly inside it. A newlib whose objects are named otherwise would leave
memcpy outside the page with the link still passing; this notices.

    python3 tools/test_hot_text.py
"""

import subprocess
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = 4096
# (elf, nm) for the four kernels tools/test boots
KERNELS = (
    ("build/whole.elf", "riscv64-unknown-elf-nm"),
    ("build/prod/whole.elf", "riscv64-unknown-elf-nm"),
    ("build/aarch64/whole.elf", "aarch64-linux-gnu-nm"),
    ("build/aarch64/prod/whole.elf", "aarch64-linux-gnu-nm"),
)
# routines with a size in the symbol table (newlib's C and asm objects)
SIZED = ("memcpy", "memset", "memmove", "memcmp")


def symbols(elf, prog):
    """{name: (address, size or None)} of @elf's symbols."""
    out = subprocess.run([prog, "-S", str(ROOT / elf)], capture_output=True,
                         text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4:
            syms[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
        elif len(parts) == 3:
            syms[parts[2]] = (int(parts[0], 16), None)
    return syms


def hot_range(syms):
    """The copy routines' [start, end) ranges: name -> (start, end)."""
    ranges = {name: (syms[name][0], syms[name][0] + syms[name][1])
              for name in SIZED}
    ranges["arch_copy_nofault"] = (syms["arch_copy_nofault"][0],
                                   syms["copy_nofault_end"][0])
    return ranges


class HotText(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        proc = subprocess.run(["ninja"] + [elf for elf, _ in KERNELS],
                              cwd=ROOT, capture_output=True, text=True)
        if proc.returncode:
            raise AssertionError("ninja failed:\n" + proc.stdout[-2000:])

    def check_kernel(self, elf, prog):
        self.check_symbols(elf, symbols(elf, prog))

    def check_symbols(self, elf, syms):
        start = syms["__hot_text_start"][0]
        end = syms["__hot_text_end"][0]
        self.assertEqual(start % PAGE, 0, f"{elf}: hot text not page-aligned")
        self.assertLessEqual(end - start, PAGE, f"{elf}: hot text over a page")
        for name, (lo, hi) in hot_range(syms).items():
            self.assertGreater(hi, lo, f"{elf}: {name} has no size")
            self.assertTrue(start <= lo and hi <= end,
                            f"{elf}: {name} [{lo:#x}, {hi:#x}) is outside the "
                            f"hot page [{start:#x}, {end:#x})")

    def test_riscv64(self):
        self.check_kernel(*KERNELS[0])

    def test_riscv64_prod(self):
        self.check_kernel(*KERNELS[1])

    def test_aarch64(self):
        self.check_kernel(*KERNELS[2])

    def test_aarch64_prod(self):
        self.check_kernel(*KERNELS[3])

    def test_check_notices_a_routine_outside(self):
        """The check itself: memcpy moved to straddle the page's end, or
        the page moved off its alignment, fails it."""
        syms = symbols(*KERNELS[0])
        end = syms["__hot_text_end"][0]
        moved = dict(syms, memcpy=(end - 8, syms["memcpy"][1]))
        with self.assertRaises(AssertionError):
            self.check_symbols("moved memcpy", moved)
        start = syms["__hot_text_start"][0]
        unaligned = dict(syms, __hot_text_start=(start + 2, None))
        with self.assertRaises(AssertionError):
            self.check_symbols("unaligned", unaligned)


if __name__ == "__main__":
    unittest.main()
