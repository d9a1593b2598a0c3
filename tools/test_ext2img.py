#!/usr/bin/env python3
"""tools/test_ext2img.py: host unit tests for tools/ext2img.py (needs e2fsprogs)."""

import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ext2img  # noqa: E402

HAVE_E2FSPROGS = all(shutil.which(p, path=ext2img._ENV["PATH"])
                     for p in ("mke2fs", "e2fsck"))

SUPERBLOCK = 1024
S_FREE_BLOCKS_COUNT = SUPERBLOCK + 12  # struct ext2_super_block


@unittest.skipUnless(HAVE_E2FSPROGS, "e2fsprogs not installed")
class Ext2ImgTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.img = os.path.join(self.dir, "t.img")

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_make_from_folder_is_clean(self):
        skel = os.path.join(self.dir, "skel")
        os.makedirs(os.path.join(skel, "etc"))
        with open(os.path.join(skel, "etc", "motd"), "w") as f:
            f.write("hello\n")
        ext2img.make_image(self.img, "4M", skel, block=1024)
        ext2img.check_image(self.img)

    def test_wrong_free_count_fails_although_e2fsck_exits_0(self):
        ext2img.make_image(self.img, "4M", features="none")
        with open(self.img, "r+b") as f:
            f.seek(S_FREE_BLOCKS_COUNT)
            count = int.from_bytes(f.read(4), "little")
            f.seek(S_FREE_BLOCKS_COUNT)
            f.write((count - 1).to_bytes(4, "little"))
        with self.assertRaisesRegex(ext2img.CheckFailed, "counted="):
            ext2img.check_image(self.img)

    def test_any_declined_prompt_is_unclean(self):
        # e2fsck -n answers "no" to every question; any of them is a
        # repair it would have made, whatever its exit status.
        for line in ("Inode 12 has zero dtime.  Fix? no",
                     "Unattached inode 13\nConnect to /lost+found? no",
                     "Entry 'x' in / (2) has deleted/unused inode 14.  Clear? no",
                     "Free blocks count wrong (100, counted=99)."):
            with self.subTest(line=line):
                self.assertTrue(ext2img.unclean(line))
        self.assertFalse(ext2img.unclean(
            "Pass 1: Checking inodes, blocks, and sizes\n"
            "t.img: 11/1024 files (0.0% non-contiguous), 1100/4096 blocks\n"))

    def test_mke2fs_error_is_reported(self):
        with self.assertRaisesRegex(ext2img.CheckFailed, "mke2fs"):
            ext2img.make_image(self.img, "4M", os.path.join(self.dir, "absent"))


if __name__ == "__main__":
    unittest.main()
