#!/usr/bin/env python3
"""Host test of `bench fs` (app/bench_fs.c) and `drop_caches`.

Boots the real kernel through tools/run on a small scratch ext2 image and
checks that the benchmark prints each of its lines and leaves the image
clean for e2fsck (tools/ext2img.py's strict check). Correctness only: the
figures themselves depend on the host and are not asserted.
"""
import re
import tempfile
import unittest
from pathlib import Path

import ext2img
import wholerun

LINES = ("write+fsync", "cold read 1M", "cached read 1M", "cached read 4K")


class BenchFsTest(unittest.TestCase):
    def test_bench_fs_prints_its_lines_and_leaves_image_clean(self):
        with tempfile.TemporaryDirectory() as tmp:
            img = Path(tmp) / "bench.img"
            ext2img.make_image(img, "100M")
            run = wholerun.run(["--smp", "1", "--mem", "256M", "--disk", img,
                                "-c", "bench fs; drop_caches; ls /"], timeout=300)
            out = run.stdout
            self.assertEqual(run.returncode, 0, out[-2000:])
            self.assertIn("bench fs /: 64 MiB file", out)
            for what in LINES:
                self.assertRegex(
                    out, rf"\n  {re.escape(what)} +\d+ ms +\d+\.\d MiB/s",
                    out[-2000:])
            self.assertRegex(out, r"\n  create\+unlink +\d+ ms +\d+ ops/s")
            self.assertRegex(out, r"dropped \d+ pages")
            self.assertNotIn("bench_fs", out.split("dropped")[-1])
            ext2img.check_image(img)

    def test_bench_l_lists_the_benchmarks(self):
        run = wholerun.run(["--smp", "2", "-c", "bench -l"])
        self.assertEqual(run.returncode, 0, run.stdout[-800:])
        self.assertIn("usage: bench blk [vdX]", run.stdout)
        self.assertIn("usage: bench fs [DIR]", run.stdout)
        self.assertIn("usage: bench cold_seq_read", run.stdout)


if __name__ == "__main__":
    unittest.main()
