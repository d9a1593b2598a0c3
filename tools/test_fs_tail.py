#!/usr/bin/env python3
"""Host test: stale bytes never come back past a cut (issue 7, item 1).

Random pwrite/truncate sequences, seeded, on files that mke2fs -d wrote,
with the page cache dropped between steps, run through whole's `io` and
through xfs_io on Linux files; whole's cksum after every step (cached and
from disk) must be the host's, the io lines xfs_io's, the bytes left on
the image (debugfs dump) Linux's, and e2fsck -fn clean; on 1, 2 and 4 KiB
blocks. The seed is printed; TAIL_SEED=N repeats a run. The boot, dump
and xfs_io-output helpers are tools/test_fs_shell.py's.
"""
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ext2img  # noqa: E402
import test_fs_shell as shell  # noqa: E402


class TruncateExtendMatchesLinux(unittest.TestCase):
    """Random pwrite/truncate sequences on files that mke2fs -d wrote (so
    every block holds data that must not come back past a cut), the page
    cache dropped after every step. After each step whole's cksum of every
    file, cached and then read from disk, is the host's cksum of the same
    xfs_io commands run on Linux files; the io lines match xfs_io's; at the
    end debugfs dumps are Linux's bytes and e2fsck is clean. Seeded:
    TAIL_SEED=N repeats a run, and every failure names its seed."""

    NFILES, STEPS, SPAN = 6, 6, 40000

    @staticmethod
    def offset(rnd, bsize, span):
        """Anywhere, or on, just before or just inside a block boundary."""
        if rnd.random() < 0.5:
            return rnd.randrange(span)
        edge = rnd.randrange(span // bsize + 1) * bsize
        return max(0, edge + rnd.choice((-1, 0, 1, rnd.randrange(1, bsize))))

    def commands(self, rnd, bsize):
        cmds = []
        for _ in range(rnd.choice((1, 1, 2))):
            if rnd.random() < 0.5:
                cmds.append(f"truncate {self.offset(rnd, bsize, self.SPAN)}")
            else:
                cmds.append(f"pwrite -S 0x{rnd.randrange(1, 256):02x} "
                            f"{self.offset(rnd, bsize, self.SPAN)} "
                            f"{rnd.randrange(1, 6000)}")
        return cmds

    def run_sequence(self, bsize):
        seed = int(os.environ.get("TAIL_SEED", random.randrange(1 << 32)))
        print(f"\nTruncateExtendMatchesLinux {bsize}: seed {seed}",
              file=sys.stderr)
        rnd = random.Random(seed)
        tmp = Path(tempfile.mkdtemp(prefix="fs-shell-tail-"))
        self.addCleanup(shutil.rmtree, tmp)
        skel, host, img = tmp / "skel", tmp / "host", tmp / "img"
        skel.mkdir()
        names = [f"r{i}" for i in range(self.NFILES)]
        for name in names:
            data = bytes(rnd.randrange(1, 256) for _ in range(256))
            size = self.offset(rnd, bsize, self.SPAN)
            (skel / name).write_bytes((data * (size // 256 + 1))[:size])
        shutil.copytree(skel, host)
        ext2img.make_image(img, "8M", skel=skel, block=bsize)

        script, want = [], {}
        cksum_all = "cksum " + " ".join("/" + n for n in names)
        for step in range(self.STEPS):
            script.append(f"echo @@io{step}")
            want[f"io{step}"] = []
            for name in names:
                cmds = self.commands(rnd, bsize)
                script.append("io " + " ".join(f'-c "{c}"' for c in cmds)
                              + f" /{name}")
                res = subprocess.run(
                    ["stdbuf", "-o0", "xfs_io"]
                    + [a for c in cmds for a in ("-c", c)] + [str(host / name)],
                    env=shell.ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                    text=True)
                want[f"io{step}"] += shell.normalize(res.stdout.splitlines())
            res = subprocess.run(["cksum"] + names, cwd=host, check=True,
                                 capture_output=True, text=True)
            sums = [re.sub(r" (\S+)$", r" /\1", line)
                    for line in res.stdout.splitlines()]
            want[f"cached{step}"] = want[f"cold{step}"] = sums
            script += [f"echo @@cached{step}", cksum_all, "drop_caches",
                       f"echo @@cold{step}", cksum_all]
        status, lines = shell.boot(img, "; ".join(script))
        got = shell.sections(lines)
        got = {k: [l for l in v if not re.fullmatch(r"dropped \d+ pages", l)]
               for k, v in got.items()}
        self.assertEqual(status, 0, f"seed {seed}\n" + "\n".join(lines))
        for key in want:
            self.assertEqual(shell.normalize(got.get(key, [])), want[key],
                             f"seed {seed}, block {bsize}, section {key}")
        ext2img.check_image(img)
        for name in names:
            self.assertEqual(shell.dump(img, f"/{name}", tmp / "out"),
                             (host / name).read_bytes(),
                             f"seed {seed}, block {bsize}: /{name} on the image")

    def test_tail_1k_blocks(self):
        self.run_sequence(1024)

    def test_tail_2k_blocks(self):
        self.run_sequence(2048)

    def test_tail_4k_blocks(self):
        self.run_sequence(4096)


if __name__ == "__main__":
    unittest.main()
