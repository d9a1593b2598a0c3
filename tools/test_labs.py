"""tools/test_labs.py: docs/labs.md stays true to the code it points at.

The labs name files, functions, suites and boots, and lab 2 starts from a
patch against the current mm/filemap_read.c: if the code moves on, these
fail before a student finds out. (The labs themselves were run as written:
the patch makes race_punch_read_miss fail; see docs/labs.md.)
"""

import re
import subprocess
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LABS = ROOT / "docs" / "labs.md"


class LabsTest(unittest.TestCase):
    def test_lab2_patch_applies_and_takes_out_the_lock(self):
        patch = ROOT / "docs" / "labs" / "lab2-read-miss.patch"
        subprocess.run(["git", "apply", "--check", str(patch)], cwd=ROOT,
                       check=True, capture_output=True)
        text = patch.read_text()
        self.assertIn("-\tfilemap_fill_end(m);", text)
        self.assertIn("filemap_fill_begin", text)

    def test_named_files_exist(self):
        text = LABS.read_text()
        for name in set(re.findall(r"\b((?:tests|mm|fs|kernel|tools|docs)/"
                                   r"[\w./-]+\.(?:c|h|py|patch|md))", text)):
            if name.startswith("tests/race_trunc_hit"):
                continue  # the file the student writes in lab 3
            with self.subTest(name=name):
                self.assertTrue((ROOT / name).exists(), name)

    def test_named_functions_exist(self):
        src = {p: p.read_text() for d in ("mm", "fs", "kernel", "tests")
               for p in (ROOT / d).rglob("*.c")}
        for fn in ("read_one_page", "filemap_fill_begin", "filemap_fill_end",
                   "filemap_assert_may_insert", "filemap_add_page",
                   "filemap_read_flags", "ext2_setattr", "race_arm",
                   "race_wait", "race_release"):
            with self.subTest(fn=fn):
                self.assertTrue(any(re.search(rf"\b{fn}\(", s)
                                    for s in src.values()), fn)

    def test_named_suites_and_boots_exist(self):
        import boots
        names = {b.name for b in boots.BOOTS}
        self.assertLessEqual({"race", "race_legacy"}, names)
        self.assertIn("race_punch", boots.RACE_SUITES)
        self.assertIn("race_hit", boots.RACE_SUITES)


class BringupDocTest(unittest.TestCase):
    """docs/bringup.md names files, device tree compatibles and log lines:
    each must still be what the code has."""

    def test_named_files_exist(self):
        text = (ROOT / "docs" / "bringup.md").read_text()
        for name in set(re.findall(r"\b((?:mm|fs|kernel|drivers|tools)/[\w./-]+"
                                   r"\.(?:c|h|py|S|ld))", text)):
            with self.subTest(name=name):
                self.assertTrue((ROOT / name).exists(), name)

    def test_compatibles_are_the_platform_files(self):
        text = (ROOT / "docs" / "bringup.md").read_text()
        platform = (ROOT / "kernel" / "platform.c").read_text()
        for compat in ("ns16550a", "riscv,plic0", "sifive,plic-1.0.0", "virtio,mmio",
                       "sifive,test0", "google,goldfish-rtc"):
            with self.subTest(compat=compat):
                self.assertIn(f"`{compat}`", text)
                self.assertIn(f'"{compat}"', platform)
        self.assertIn("0x80200000", (ROOT / "kernel/arch/riscv64/kernel.ld").read_text())

    def test_log_lines_are_printed_by_the_code(self):
        src = "".join(p.read_text() for d in ("kernel", "mm", "drivers")
                      for p in (ROOT / d).rglob("*.c"))
        for fmt in ("smp: %u of %u harts online", "vm: %s on", 'return "Sv39"',
                    "harts: %u of %u online", "completions collected",
                    "cannot register the interrupt"):
            with self.subTest(fmt=fmt):
                self.assertTrue(fmt in src, fmt)


if __name__ == "__main__":
    unittest.main()
