#!/usr/bin/env python3
"""tools/test_powercut.py: 20 power cuts under app/powercut.c's workload
(ext2; 8 more on ext2 at 1 KiB blocks, 8 on the writable ext4 image,
6 on the aarch64 kernel).

tools/powercut.py with a fixed seed: QEMU is killed 20 times at seeded
moments during writes, punches, renames and fsyncs on one image; after
each cut e2fsck -fy must repair it (exit 0 or 1) to a strictly clean
image, and every file whose fsync (and its directory's) returned before
any of the cuts so far, and that the workload has not dropped since, must
have exactly the size and cksum the kernel printed. A failure names the file and the seed to repeat it with.
"""

import tempfile
import unittest
from pathlib import Path

import powercut

SEED = 20261203
CUTS = 20
A64_CUTS = 6  # the aarch64 kernel: fewer, the workload is the same
EXT4_CUTS = 8  # the writable ext4 image at 1 KiB blocks: extent trees
EXT2_1K_CUTS = 8  # ext2 at 1 KiB blocks: a page over four blocks


class SealedLinesTest(unittest.TestCase):
    def test_a_line_the_cut_stopped_is_no_record(self):
        text = ("powercut: sealed /pc1/f1 10 123\r\n"
                "other output\n"
                "powercut: sealed /pc1/f2 159745 15076")  # "...5984" never came
        self.assertEqual(powercut.sealed_files(text), {"/pc1/f1": (10, 123)})
        self.assertEqual(powercut.sealed_files(text + "5984\r\n"),
                         {"/pc1/f1": (10, 123), "/pc1/f2": (159745, 150765984)})

    def test_a_dropped_file_is_checked_no_more(self):
        # "dropped" comes before the unlink: after it the file may be gone.
        sealed = {"/pc0/f3": (1, 2)}
        text = ("powercut: sealed /pc1/f1 10 123\r\n"
                "powercut: dropped /pc0/f3\r\n"
                "powercut: dropped /pc1/f1\r\n"
                "powercut: sealed /pc1/f2 7 8\r\n"
                "powercut: dropped /pc1/f2")  # the cut came in the line
        self.assertIs(powercut.sealed_files(text, sealed), sealed)
        self.assertEqual(sealed, {"/pc1/f2": (7, 8)})


class PowerCutTest(unittest.TestCase):
    def cut(self, cuts, label, **kw):
        """powercut.run with @cuts cuts on a fresh image (@kw: arch, fs);
        a failure shows its seed, @label and the run's lines. Return: its
        summary, whose cut count is checked."""
        lines = []
        with tempfile.TemporaryDirectory() as tmp:
            try:
                s = powercut.run(cuts, SEED, Path(tmp) / "powercut.img",
                                 lines.append, **kw)
            except powercut.Failed as e:
                self.fail(f"seed {SEED}{label}: {e}\n" + "\n".join(lines))
        self.assertEqual(s["cuts"], cuts)
        return s

    def test_aarch64_fsynced_files_survive_power_cuts(self):
        """Fewer cuts on the aarch64 kernel: its disk path and exits."""
        s = self.cut(A64_CUTS, ", aarch64", arch="aarch64")
        self.assertGreater(s["kept"], 0)
        print(f"\n    powercut aarch64: {s['cuts']} cuts, {s['sealed']} fsynced "
              f"files, {s['kept']} kept and intact")

    def test_ext4_fsynced_files_survive_power_cuts(self):
        """The same on `mke2fs -t ext4 -O ^has_journal` at 1 KiB blocks:
        extent trees, metadata_csum, a page over four blocks; e2fsck -fy
        (which also checks every checksum and extent tree) must leave it
        strictly clean, and no fsynced file may be lost."""
        s = self.cut(EXT4_CUTS, ", ext4", fs="ext4")
        self.assertGreaterEqual(s["sealed"], EXT4_CUTS)
        self.assertGreater(s["kept"], 0)
        print(f"\n    powercut ext4: {s['cuts']} cuts, {s['sealed']} fsynced "
              f"files, {s['kept']} kept and intact, "
              f"{s['repaired']} repaired by e2fsck -fy")

    def test_ext2_1k_fsynced_files_survive_power_cuts(self):
        """ext2 at 1 KiB blocks: a page holds four blocks, so a cut can
        come between the blocks of one page, and a punch or a truncate
        inside a page frees blocks under a page that stays cached."""
        s = self.cut(EXT2_1K_CUTS, ", ext2 1 KiB blocks", block=1024)
        self.assertGreaterEqual(s["sealed"], EXT2_1K_CUTS)
        self.assertGreater(s["kept"], 0)
        print(f"\n    powercut ext2 1 KiB: {s['cuts']} cuts, {s['sealed']} "
              f"fsynced files, {s['kept']} kept and intact, "
              f"{s['repaired']} repaired by e2fsck -fy")

    def test_fsynced_files_survive_power_cuts(self):
        s = self.cut(CUTS, "")
        # The cuts came while files were being sealed: there is something
        # to lose (a cut before the first seal would prove nothing).
        self.assertGreaterEqual(s["sealed"], CUTS)
        self.assertGreater(s["kept"], 0)
        print(f"\n    powercut: {s['cuts']} cuts, {s['sealed']} fsynced files, "
              f"{s['kept']} kept and intact, "
              f"{s['repaired']} repaired by e2fsck -fy")

if __name__ == "__main__":
    unittest.main()
