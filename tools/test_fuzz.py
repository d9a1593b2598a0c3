#!/usr/bin/env python3
"""tools/test_fuzz.py: the ext2 fuzz target (tools/fuzzrun.py) and its
regression images.

- The target mounts and walks every seed image: each mounts, every inode of
  the seed tree is reached, no error is reported (a target that reads
  nothing would fuzz nothing).
- The write phase on every seed (each mounts read-write): every step
  succeeds but the one that must fail (a mkdir of a name that exists:
  EEXIST), and the image it leaves is strictly clean to `e2fsck -fn`.
- A short fixed run (seed 1, FIXED_RUNS executions) ends with no crash and
  does exactly that many executions.
- Every regression image (tests/fuzz/regress/, crashes the fuzzer found)
  runs through the target cleanly now, and the kernel booted on it
  (tools/run -c, 2 harts) walks what the target reached (ls -l, cksum,
  readlink, stat), makes a directory and powers off: no panic, oops, WARNING or lock report
  on its console, and if the target reported the image's damage, the
  kernel's console reports it too (an "ext2:" line).
"""
import re
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzzrun  # noqa: E402
from test_fs_shell import console  # noqa: E402

# The regression images are damaged: ext2 saying so is what the kernel must
# do; any other kernel report fails (tools/wholerun.py).
DAMAGE_REPORTED = (("ext2-error", "*"),)

FIXED_RUNS = 3000
WRITE_STEPS_MIN = 38  # the write phase's steps on a seed (40-42 with fallocate)
SEED_INODES = 52  # the seed tree's inodes and lost+found, root excluded
SAFE_PATH = re.compile(r"/[A-Za-z0-9_.+/-]*")
BOOT_PATHS = 30
CKSUM_MAX = 1 << 20


def setUpModule():
    fuzzrun.build()
    fuzzrun.make_seeds()


class SeedsAreWalked(unittest.TestCase):
    def test_each_seed_mounts_and_is_walked(self):
        seeds = sorted(fuzzrun.SEEDS.glob("*.img"))
        self.assertEqual(len(seeds), len(fuzzrun.SEED_IMAGES))
        for img in seeds:
            with self.subTest(seed=img.name):
                rc, err = fuzzrun.replay(img)
                self.assertEqual(rc, 0, err[-2000:])
                self.assertEqual(fuzzrun.summary(err), (0, SEED_INODES, 0), err[-2000:])
                self.assertIn("ext2_fuzz: path f 1500 /d1/d2/d3/deep", err)
                self.assertIn("ext2_fuzz: path l 80 /slow", err)


class SeedsAreWritten(unittest.TestCase):
    def test_write_phase_leaves_each_seed_clean(self):
        for img in sorted(fuzzrun.SEEDS.glob("*.img")):
            with self.subTest(seed=img.name), tempfile.TemporaryDirectory() as tmp:
                out = Path(tmp) / "written.img"
                rc, err = fuzzrun.replay(img, out=out)
                self.assertEqual(rc, 0, err[-2000:])
                s = fuzzrun.write_summary(err)
                self.assertIsNotNone(s, err[-2000:])
                mount, mode, done, failed = s
                self.assertEqual((mount, mode, failed), (0, "read-write", 1),
                                 err[-3000:])
                self.assertGreaterEqual(done, WRITE_STEPS_MIN, err[-3000:])
                self.assertIn("ext2_fuzz: write mkdir: -17", err)
                try:
                    fuzzrun.ext2img.check_image(out)
                except fuzzrun.ext2img.CheckFailed as e:
                    self.fail(f"{img.name} after the write phase: {e}")


class ShortRun(unittest.TestCase):
    def test_fixed_run_finds_no_crash(self):
        rc, out, execs, crashes = fuzzrun.fuzz(runs=FIXED_RUNS, seed=1)
        self.assertEqual(crashes, [], out[-3000:])
        self.assertEqual(rc, 0, out[-3000:])
        self.assertEqual(execs, FIXED_RUNS, out[-3000:])


def kernel_commands(host_stderr):
    """Shell commands that reach what the target reached."""
    cmds = ["ls -l /"]
    for kind, size, path in re.findall(r"ext2_fuzz: path (\w) (-?\d+) (.*)",
                                       host_stderr)[:BOOT_PATHS]:
        if not SAFE_PATH.fullmatch(path):
            continue
        if kind == "d":
            cmds.append(f"ls -l {path}")
        elif kind == "f" and int(size) <= CKSUM_MAX:
            cmds.append(f"cksum {path}")
        elif kind == "l":
            cmds.append(f"readlink {path}")
        else:
            cmds.append(f"stat {path}")
    # a name made: the write side meets the damage too (a bitmap that
    # frees an inode in use must be refused, reported, never a WARNING)
    return cmds + ["mkdir /fuzz_written", "echo @@done"]


class RegressionImages(unittest.TestCase):
    def test_there_are_regression_images(self):
        self.assertGreater(len(fuzzrun.regress_images()), 0)

    def test_each_image_is_handled_by_target_and_kernel(self):
        for gz in fuzzrun.regress_images():
            with self.subTest(image=gz.name), tempfile.TemporaryDirectory() as tmp:
                img = fuzzrun.unpack(gz, tmp)
                rc, err = fuzzrun.replay(img)
                self.assertEqual(rc, 0, err[-3000:])
                s = fuzzrun.summary(err)
                self.assertIsNotNone(s, err[-3000:])
                disk = Path(tmp) / "disk.img"
                shutil.copy(img, disk)
                status, lines, _ = console(disk, "; ".join(kernel_commands(err)),
                                           timeout=300, allow=DAMAGE_REPORTED)
                text = "\n".join(lines)
                self.assertEqual(status, 0, text[-3000:])
                self.assertIn("@@done", lines, text[-3000:])
                if s[2]:
                    self.assertRegex(text, r"\] (ext2|vfs): ",
                                     "the target reported errors; the kernel none")


if __name__ == "__main__":
    unittest.main()
