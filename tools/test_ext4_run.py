#!/usr/bin/env python3
"""Host test of `tools/run --fs ext4` (docs/ext4.md): one boot on an ext4
image of tools/disk-skel/ made as tools/run makes its default ext4 disk
(tools/ext4img.py default: `mke2fs -t ext4 -O ^has_journal`, every
default feature but the journal). The root mounts as ext4, read-write
(issue #34); `ls -l`, `cat`, `stat` (with the inode's flags, as debugfs
reads them: extents) and `df` work; a new file is written, and afterwards
e2fsck -fn finds the image clean and debugfs reads the file back.

df's figures follow Linux's ext4 (fs/ext4/super.c, ext4_statfs), from
the superblock as dumpe2fs prints it: total = blocks - overhead clusters,
used = total - free, available = free - reserved - min(blocks / 50,
4096) (the clusters ext4 keeps back for delayed allocation). They agreed
with a loop mount of the same image on Linux 6.x when this was written.
"""
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import ext2img  # noqa: E402
import ext4img  # noqa: E402
import wholerun  # noqa: E402

SKEL = ROOT / "tools" / "disk-skel"


def superblock(img):
    out = subprocess.run(["dumpe2fs", "-h", str(img)], env=ext2img._ENV,
                         capture_output=True, text=True).stdout
    field = lambda name: int(re.search(rf"^{name}:\s+(\d+)", out, re.M)[1])
    return {k: field(n) for k, n in (
        ("blocks", "Block count"), ("free", "Free blocks"),
        ("reserved", "Reserved block count"), ("bs", "Block size"),
        ("overhead", "Overhead clusters"))}


class RunExt4(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.img = Path(cls.tmp.name) / "ext4.img"
        ext4img.make_default(cls.img, "64M", SKEL)
        cls.before = Path(cls.tmp.name) / "before.img"
        cls.before.write_bytes(cls.img.read_bytes())
        cls.res = wholerun.run(["--fs", "ext4", "--smp", "2", "--mem", "128M",
                                "--disk", cls.img, "-c",
                                "ls -l /; cat /README; stat /README; df; "
                                "echo x > /new"])
        cls.out = cls.res.stdout.replace("\r", "")

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_mounts_read_write(self):
        self.assertRegex(self.out, r"root: vda \(ext4\), 4096-byte blocks, "
                                   r"read-write")
        self.assertNotIn("mounting read-only", self.out)
        self.assertNotIn("Read-only file system", self.out)
        self.assertEqual(self.res.returncode, 0)

    def test_reads_the_tree(self):
        readme = (SKEL / "README").read_text()
        self.assertIn(readme.rstrip("\n"), self.out)
        self.assertRegex(self.out, rf"-rw-r--r-- 1 \d+ \d+ +{len(readme)} "
                                   r"\w+ +\d+ \d\d:\d\d README")
        self.assertRegex(self.out, rf"Size: {len(readme)}\t")

    def test_stat_shows_flags(self):
        """stat's Flags line: the i_flags debugfs reads, extents among them."""
        out = subprocess.run(["debugfs", "-R", "stat /README", str(self.img)],
                             env=ext2img._ENV, capture_output=True,
                             text=True).stdout
        flags = int(re.search(r"Flags: (0x[0-9a-f]+)", out)[1], 16)
        self.assertTrue(flags & 0x80000)  # EXT4_EXTENTS_FL
        self.assertIn(f"Flags: {flags:#x} (extents)", self.out)

    def test_df_as_linux(self):
        sb = superblock(self.before)  # df ran before /new was written
        kib = sb["bs"] // 1024
        total = sb["blocks"] - sb["overhead"]
        avail = sb["free"] - sb["reserved"] - min(sb["blocks"] // 50, 4096)
        want = (f"vda {total * kib:>17} {(total - sb['free']) * kib:>9} "
                f"{avail * kib:>9}")
        line = next((l for l in self.out.splitlines() if l.startswith("vda ")),
                    "")
        self.assertEqual(" ".join(line.split()[:4]), " ".join(want.split()))

    def test_image_clean_and_new_file_read(self):
        fsck = subprocess.run(["e2fsck", "-fn", str(self.img)],
                              env=ext2img._ENV, capture_output=True, text=True)
        self.assertEqual(fsck.returncode, 0, fsck.stdout + fsck.stderr)
        out = subprocess.run(["debugfs", "-R", "cat /new", str(self.img)],
                             env=ext2img._ENV, capture_output=True,
                             text=True).stdout
        self.assertEqual(out, "x\n")


if __name__ == "__main__":
    unittest.main()
