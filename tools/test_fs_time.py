#!/usr/bin/env python3
"""Host test: files whole creates carry wall time (kernel/time.c).

The kernel reads QEMU virt's Goldfish RTC at boot, so a file it creates
must have an mtime within a minute of the host's clock, by debugfs (the
outside oracle), even when the image's own times are years old (the
no-RTC floor must not win) or in the future (an RTC is never moved).
"""
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import ext2img  # noqa: E402
from test_fs_shell import boot, debugfs  # noqa: E402

SLACK = 60  # seconds: the brief's "within a minute"


def set_super_times(img, sec):
    for field in ("mkfs_time", "wtime", "mtime"):
        res = subprocess.run(["debugfs", "-w", "-R", f"ssv {field} @{sec}", str(img)],
                             env=ext2img._ENV, capture_output=True, text=True)
        if res.returncode:
            raise AssertionError(res.stderr)


def mtime(img, path):
    out = debugfs(img, f"stat {path}")[0]
    m = re.search(r"mtime: (0x[0-9a-f]+)", out)
    if not m:
        raise AssertionError(f"no mtime in debugfs stat:\n{out}")
    return int(m.group(1), 16)


class NewFileHasWallTime(unittest.TestCase):
    def check(self, image_time, fsck=True):
        tmp = Path(tempfile.mkdtemp(prefix="fs-time-"))
        self.addCleanup(shutil.rmtree, tmp)
        img = tmp / "img"
        ext2img.make_image(img, "8M", block=1024)
        set_super_times(img, image_time)
        status, lines = boot(img, "touch /new; mkdir /dir")
        self.assertEqual(status, 0, lines)
        now = time.time()
        for path in ("/new", "/dir"):
            self.assertLess(abs(mtime(img, path) - now), SLACK, path)
        if fsck:
            ext2img.check_image(img)

    def test_old_image(self):
        self.check(1_000_000_000)  # 2001

    def test_future_image(self):
        # e2fsck rightly calls a superblock time in the future a fault.
        self.check(int(time.time()) + 86400 * 365, fsck=False)


if __name__ == "__main__":
    unittest.main()
