#!/usr/bin/env python3
"""Host test: a write that runs out of space exposes no other file's bytes.

A 2 MiB image with 1 KiB blocks is filled by mke2fs -d with a file of
0xdd bytes (the largest that fits), plus /f: 4 KiB of data, a 4 KiB hole,
4 KiB of data. The guest punches one block of the filler (a free block
that holds 0xdd), then writes 4 KiB into /f's hole: the page needs four
blocks and at most two are free, so the write fails with ENOSPC after
allocating some of them. Linux's rule: a failed write leaves no block it
allocated mapped over unwritten bytes. debugfs (the oracle) must show
/f's hole still a hole, reading as zeroes, and e2fsck the image clean.
"""
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import ext2img  # noqa: E402
from test_fs_shell import boot, dump, inode_info  # noqa: E402

K = 1024


def make_full_image(img, skel):
    """mke2fs -d with the largest 0xdd filler that fits (bisection)."""
    lo, hi = 0, 2048  # KiB of filler: lo fits, hi does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        (skel / "fill").write_bytes(b"\xdd" * (mid * K))
        try:
            ext2img.make_image(img, "2M", skel=skel, block=1024)
            lo = mid
        except Exception:  # mke2fs -d: no space for the filler
            hi = mid
    (skel / "fill").write_bytes(b"\xdd" * (lo * K))
    ext2img.make_image(img, "2M", skel=skel, block=1024)
    return lo


class FailedWriteExposesNothing(unittest.TestCase):
    def test_enospc_in_hole(self):
        tmp = Path(tempfile.mkdtemp(prefix="fs-nospc-"))
        self.addCleanup(shutil.rmtree, tmp)
        skel, img = tmp / "skel", tmp / "img"
        skel.mkdir()
        with open(skel / "f", "wb") as f:
            f.write(b"\x11" * 4 * K)
            f.seek(8 * K)
            f.write(b"\x22" * 4 * K)
        filled = make_full_image(img, skel)
        self.assertGreater(filled, 1000)

        status, lines = boot(img, 'io -c "fpunch 0 1k" /fill; '
                                  'io -c "pwrite -S 0x77 4096 4096" /f; '
                                  'drop_caches; cksum /f')
        out = "\n".join(lines)
        self.assertIn("No space left on device", out)
        ext2img.check_image(img)
        data = dump(img, "/f", tmp / "f.out")
        self.assertEqual(len(data), 12 * K)
        self.assertEqual(data[:4 * K], b"\x11" * 4 * K)
        self.assertEqual(data[4 * K:8 * K], bytes(4 * K), "hole shows stale bytes")
        self.assertEqual(data[8 * K:], b"\x22" * 4 * K)
        _, iblocks, mapped = inode_info(img, "/f")
        self.assertEqual(mapped, set(range(4)) | set(range(8, 12)))
        self.assertEqual(iblocks, 8 * 2)


if __name__ == "__main__":
    unittest.main()
