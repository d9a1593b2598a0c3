#!/usr/bin/env python3
"""tools/test_boots_arches.py: the aarch64 boots of tools/boots.py run the
same suites as the riscv64 boots, not a subset (issue #35): every suite a
riscv64 boot lists is listed by some aarch64 boot, but for those of
RISCV64_ONLY, each with its reason. The machines that are the point of
a suite (the mm suites' memory sizes, a panicking boot, a board with a
spoiled device tree, the production kernel) have their aarch64 boot too;
tools/pcidtb.py spoils aarch64's virt as it does riscv64's (dtc reads
back what it wrote)."""

import os
import re
import subprocess
import sys
import tempfile
import unittest
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import boots  # noqa: E402
import ext2img  # noqa: E402
import ktest_runner  # noqa: E402
import pcidtb  # noqa: E402

# Suites only riscv64 boots run, and why. Every other suite linked into
# the kernel is built for both arches, and the PLIC, SBI and the riscv64
# trap causes are reached through arch-neutral suites (timers, traps,
# virtio_blk_*).
RISCV64_ONLY = {
    "aia_irq": "riscv64's AIA (APLIC and IMSIC, kernel/arch/riscv64/aia_test.c); "
               "aarch64's interrupt controllers have their own boots "
               "(a64_gicv3's irq_route, a64_blk_pci's ITS, a64_msi's GICv2m)",
    "riscv_timer": "riscv64's tick through Sstc or SBI (kernel/arch/riscv64/"
                   "timer_test.c); aarch64's generic timer is the timers suite's",
}


def suites_of(arch, pred=lambda b: True):
    return {s for b in boots.BOOTS if b.arch == arch and pred(b)
            for s in (b.required() or ())}


class SameSuites(unittest.TestCase):
    def test_every_riscv64_suite_runs_on_aarch64(self):
        missing = suites_of("riscv64") - suites_of("aarch64") - set(RISCV64_ONLY)
        self.assertEqual(sorted(missing), [],
                         "suites that only riscv64 boots run (add an aarch64 "
                         "boot, or a reason to RISCV64_ONLY)")

    def test_allow_list_is_riscv64_only(self):
        """Each RISCV64_ONLY entry is a riscv64 suite aarch64 does not run
        (no stale entry hides a suite)."""
        for suite in RISCV64_ONLY:
            with self.subTest(suite=suite):
                self.assertIn(suite, suites_of("riscv64"))
                self.assertNotIn(suite, suites_of("aarch64"))

    def test_mm_suites_at_every_memory_size(self):
        """mem128 and mem1g are about the memory size: each size the mm
        suites run at on riscv64, they run at on aarch64."""
        def sizes(arch):
            return {b.mem for b in boots.BOOTS
                    if b.arch == arch and set(boots.MM_SUITES) <= set(b.required() or ())}
        self.assertLessEqual(sizes("riscv64"), sizes("aarch64"))

    def test_each_arch_panics(self):
        for arch in boots.ARCHES:
            with self.subTest(arch=arch):
                self.assertTrue([b for b in boots.BOOTS if b.arch == arch
                                 and b.expect_panic == "panic_is_reported"])

    def test_each_dtb_edit_boots_on_each_arch(self):
        """A boot per tools/pcidtb.py edit that spoils the bridge (those
        with a MESSAGES line) and arch, passing its DTB."""
        for arch in boots.ARCHES:
            prefix = "" if arch == "riscv64" else "a64_"
            for edit in pcidtb.MESSAGES[arch]:
                name = f"{prefix}pci_dtb_{edit.replace('-', '')}"
                with self.subTest(arch=arch, edit=edit):
                    found = [b for b in boots.BOOTS if b.name == name and b.arch == arch]
                    self.assertEqual(len(found), 1, name)
                    self.assertIn(f"build/{name}.dtb", found[0].qemu_args)


class ProductionBoots(unittest.TestCase):
    """tools/bench measures each arch's production kernel (prod.ninja):
    each arch boots it once (riscv64's prod, aarch64's a64_prod), with the
    same suites, and its banner must say so."""

    def prod_boots(self, arch):
        return [b for b in boots.BOOTS if b.arch == arch and b.build == "prod"]

    def test_each_arch_boots_its_production_kernel(self):
        """One boot per arch; its kernel is the test kernel's file in a
        prod/ folder beside it (build/prod/whole.elf,
        build/aarch64/prod/Image)."""
        for arch in boots.ARCHES:
            with self.subTest(arch=arch):
                found = self.prod_boots(arch)
                self.assertEqual(len(found), 1, [b.name for b in found])
                test = Path(ktest_runner.machine_args(
                    replace(found[0], build=""))[1][1])
                self.assertEqual(ktest_runner.machine_args(found[0])[1],
                                 ["-kernel", str(test.parent / "prod" / test.name)])

    def test_same_suites_on_each_arch(self):
        self.assertEqual(*[{s for b in self.prod_boots(arch) for s in b.required()}
                           for arch in ("aarch64", "riscv64")])

    def test_banner_names_the_arch_and_the_build(self):
        """The check passes only on the production banner of its own arch."""
        prod = ", production build (no lockdep)"
        banner = "[    0.06] whole df661a2 (2026-12-07), {}{}\n"
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "test-logs").mkdir()
            log = Path(tmp) / "test-logs" / "p.log"
            for arch, text, ok in (("aarch64", banner.format("aarch64", prod), True),
                                   ("aarch64", banner.format("aarch64", ""), False),
                                   ("aarch64", banner.format("riscv64", prod), False),
                                   ("riscv64", banner.format("riscv64", prod), True)):
                with self.subTest(arch=arch, banner=text):
                    log.write_text(text)
                    check = boots.production_check("p", arch)
                    if ok:
                        check(Path(tmp))
                    else:
                        self.assertRaises(ext2img.CheckFailed, check, Path(tmp))


class AarchDtb(unittest.TestCase):
    def node(self, edit):
        """The pci host bridge node of tools/pcidtb.py's aarch64 DTB."""
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "virt.dtb"
            pcidtb.make(out, 2, "128M", edit, "aarch64")
            dts = subprocess.run(["dtc", "-q", "-I", "dtb", "-O", "dts", str(out)],
                                 check=True, capture_output=True, text=True).stdout
        begin, end = pcidtb.pci_node(dts)
        return dts[begin:end]

    def test_ranges_edit_drops_ranges(self):
        node = self.node("ranges")
        self.assertNotRegex(node, r"\branges = ")
        self.assertIn("reg = <0x00 0x3f000000 0x00 0x1000000>", node)

    def test_bus_range_edit_shrinks_reg(self):
        """bus-range 0-15 (16 MiB of ECAM) over a reg of one bus (1 MiB),
        as the kernel's message says."""
        node = self.node("bus-range")
        self.assertIn("bus-range = <0x00 0x0f>", node)
        self.assertIn("reg = <0x00 0x3f000000 0x00 0x100000>", node)
        self.assertRegex(pcidtb.MESSAGES["aarch64"]["bus-range"],
                         r"bus-range 0-15 does not fit reg \(0x100000 bytes\)")
        self.assertTrue(re.search(r"\branges = ", node))


if __name__ == "__main__":
    unittest.main()
