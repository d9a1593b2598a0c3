"""Host tests of tools/bench's --fs (whole's boots on ext2 and ext4) and
its table "ext4 beside ext2", and a short run of the benchmark fs_cost
(app/bench_fscost.c) on the default ext4 image. Correctness only: no
figure is asserted (benchmarks are not timed tests)."""

import argparse
import json
import subprocess
import tempfile
import unittest
from pathlib import Path
from unittest import mock

import bench
import ext2img
import wholerun
from test_bench import KEYS, figures

ROWS = [(f"{what}_{sz}", metric)
        for sz in ("1m", "4k")
        for what, metric in (("write_fsync", "mb_per_s"), ("cold_read", "mb_per_s"),
                             ("punch", "holes_per_s"), ("punch", "mb_per_s"))]


class FsCostGuestTest(unittest.TestCase):
    def test_fs_cost_on_the_default_ext4_image(self):
        """Each row at 1 MiB and 4 KiB; punch's two figures come from one
        time (holes/s x hole size = MB/s); the file is gone afterwards
        and e2fsck finds the image clean."""
        with tempfile.TemporaryDirectory() as tmp:
            img = Path(tmp) / "ext4.img"
            ext2img.make_image(img, "128M", features=ext2img.EXT4_DEFAULT)
            res = wholerun.run(["--smp", "2", "--mem", "512M", "--fs", "ext4",
                                "--disk", img, "-c", "bench -r 1 fs_cost; ls /"],
                               timeout=300)
            self.assertEqual(res.returncode, 0, res.stdout[-1500:])
            ext2img.check_image(img)
        figs = figures(res.stdout)
        self.assertEqual([(f["mode"], f["metric"]) for f in figs], ROWS)
        for f in figs:
            with self.subTest(mode=f["mode"], metric=f["metric"]):
                self.assertEqual(set(f), KEYS)
                self.assertEqual(f["params"], {"file_mib": 64, "io_bytes":
                                               1 << 20 if "1m" in f["mode"] else 4096})
                self.assertGreater(f["min"], 0)
        holes = {f["mode"]: f["median"] for f in figs if f["metric"] == "holes_per_s"}
        for mode, io in (("punch_1m", 1 << 20), ("punch_4k", 4096)):
            mb = next(f["median"] for f in figs
                      if (f["mode"], f["metric"]) == (mode, "mb_per_s"))
            self.assertAlmostEqual(holes[mode] * io / 1e6, mb,
                                   delta=0.02 * mb + io / 1e6 + 0.1)
        self.assertNotIn("bench.dat", res.stdout.split('"punch_4k"')[-1])
        self.assertNotIn("punching", res.stdout)


class FsCostLinuxTest(unittest.TestCase):
    def test_linuxbench_prints_whole_s_rows(self):
        """tools/linuxbench.c's fs_cost, built for the host (its rdtime
        left out) and run on a host directory: whole's rows, in whole's
        order, and nothing left behind."""
        with tempfile.TemporaryDirectory() as tmp:
            exe, d = Path(tmp) / "linuxbench", Path(tmp) / "dir"
            d.mkdir()
            subprocess.run(["gcc", "-O2", "-pthread", "-Wall", "-Wextra", "-Werror",
                            "-I", str(bench.ROOT), str(bench.ROOT / "tools" / "linuxbench.c"),
                            "-o", str(exe)], check=True)
            out = subprocess.run([str(exe), "linux-host", "1", str(d), "/dev/null",
                                  "/dev/null"], env={"LINUXBENCH_ONLY": "fs_cost"},
                                 capture_output=True, text=True, timeout=300)
            self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
            self.assertEqual(list(d.iterdir()), [])
        figs = [json.loads(ln) for ln in out.stdout.splitlines() if ln.startswith("{")]
        figs = [f for f in figs if f["bench"] == "fs_cost"]
        self.assertEqual([(f["mode"], f["metric"]) for f in figs], ROWS)
        self.assertTrue(all(f["kernel"] == "linux-host" and f["min"] > 0 for f in figs))


def fig(bench_, mode, metric, median, lo, hi, kernel=None, unit="u"):
    f = {"bench": bench_, "mode": mode, "params": {}, "metric": metric, "unit": unit,
         "median": median, "min": lo, "max": hi}
    if kernel:
        f["kernel"] = kernel
    return f


class FsOptionTest(unittest.TestCase):
    def test_fs_list(self):
        self.assertEqual(bench.fs_list("ext2,ext4"), ["ext2", "ext4"])
        self.assertEqual(bench.fs_list("ext4"), ["ext4"])
        for bad in ("", "ext3", "ext2,ext2", "ext2,,xfs"):
            with self.subTest(bad=bad), self.assertRaises(argparse.ArgumentTypeError):
                bench.fs_list(bad)

    def test_ext4_boots_are_kinds_of_their_own_in_the_one_order(self):
        kinds = bench.fs_kinds(["ext2", "ext4"])
        self.assertEqual(kinds, ["whole-ext4"])
        self.assertEqual(bench.fs_kinds(["ext2"]), [])
        order = bench.schedule(5, 9, mixed=False, linux=kinds + ["linux-ext4"])
        self.assertEqual(sorted(order), sorted(["whole", "whole-ext4", "linux-ext4"] * 5))
        self.assertEqual(order, bench.schedule(5, 9, mixed=False,
                                               linux=kinds + ["linux-ext4"]))

    def test_an_ext4_boot_gets_its_image_and_its_kernel_value(self):
        """The image of mke2fs -t ext4 -O ^has_journal, rootfstype=ext4 on
        the command line, and every figure tagged whole-ext4 but mixed's."""
        seen = {}

        def make_image(path, size, skel=None, block=4096, features=None):
            seen["image"] = (size, features)

        def popen(cmd, **kw):
            seen["append"] = cmd[cmd.index("-append") + 1]
            raise RuntimeError("stop here")

        args = argparse.Namespace(smp=2, mem="512M", reps=1, only=[])
        with mock.patch.object(bench.ext2img, "make_image", make_image), \
                mock.patch.object(bench.subprocess, "Popen", popen), \
                tempfile.TemporaryDirectory() as tmp, self.assertRaises(RuntimeError):
            bench.boot_once(args, tmp, ["fs_cost"], fs="ext4")
        self.assertEqual(seen["image"], ("512M", ext2img.EXT4_DEFAULT))
        self.assertEqual(seen["append"], "rootfstype=ext4 -- echo @@ ready; bench -r 1 fs_cost")

        calls = []

        def boot_once(args_, tmp, only=None, fs="ext2", **kw):
            calls.append((only, fs))
            return [fig("fs_cost", "punch_4k", "mb_per_s", 5, 4, 6),
                    fig("mixed", "legacy", "reads_per_s", 1, 1, 1)], 100.0

        with mock.patch.object(bench, "boot_once", boot_once):
            got = bench.whole_fs_boot(args, "whole-ext4", ["fs_cost"])
        self.assertEqual(calls, [(["fs_cost"], "ext4")])
        self.assertEqual([(g["bench"], g["kernel"]) for g in got],
                         [("fs_cost", "whole-ext4")])

    def test_whole_ext4_rows_leave_whole_s_own_tables_alone(self):
        """Whole's ext4 figures carry a kernel value: the table of whole's
        figures, its ratios, goals and the Linux table read ext2's."""
        res = bench.merge([[fig("cold_seq_read", "raw", "mb_per_s", 100, 90, 110),
                            fig("cold_seq_read", "raw", "mb_per_s", 50, 40, 60,
                                "whole-ext4"),
                            fig("cold_seq_read", "raw", "mb_per_s", 70, 60, 80,
                                "linux-ext2")]])
        self.assertEqual(bench.find(res, "cold_seq_read", "raw"), 100)
        self.assertEqual(len(bench.table(res)), 2)  # the head and ext2's row
        rows = bench.beside_linux(res)
        self.assertEqual([(r["whole"]["median"], list(r["linux"])) for r in rows],
                         [(100, ["linux-ext2"])])


class BesideFsTest(unittest.TestCase):
    def test_rows_and_ratios_of_each_pair(self):
        """Rates: ext4's median over ext2's; the extremes: ext4's worst
        sample against ext2's best and the reverse. Times: the other way
        round. A figure on one filesystem alone has no row."""
        res = [fig("fs_cost", "cold_read_4k", "mb_per_s", 100.0, 80.0, 120.0),
               fig("fs_cost", "cold_read_4k", "mb_per_s", 50.0, 40.0, 60.0, "whole-ext4"),
               fig("boot", None, "guest_ms", 200.0, 200.0, 200.0),
               fig("boot", None, "guest_ms", 400.0, 300.0, 500.0, "whole-ext4"),
               fig("fs_cost", "punch_1m", "holes_per_s", 10.0, 10.0, 10.0,
                   "linux-ext2"),
               fig("fs_cost", "punch_1m", "holes_per_s", 30.0, 20.0, 40.0,
                   "linux-ext4"),
               fig("fs_cost", "punch_4k", "holes_per_s", 9.0, 9.0, 9.0),
               {"bench": "run", "mode": None, "params": {}},
               {"bench": "goal", "mode": "x", "value": 1.0, "goal": 1.5, "met": False}]
        rows = bench.beside_fs(res)
        self.assertEqual([(r["bench"], r["mode"]) for r in rows],
                         [("fs_cost", "cold_read_4k"), ("boot", None),
                          ("fs_cost", "punch_1m")])
        cold, boot, punch = rows
        self.assertEqual(cold["whole"][2], (0.5, 40 / 120, 60 / 80))
        self.assertEqual(boot["whole"][2], (0.5, 200 / 500, 200 / 300))
        self.assertNotIn("linux", cold)
        self.assertEqual(punch["linux"][2], (3.0, 2.0, 4.0))
        self.assertNotIn("whole", punch)
        lines = bench.beside_fs_table(rows, ("whole", "linux"))
        self.assertEqual(lines[0], "| bench | mode | metric | unit | whole ext2 | whole ext4 "
                                   "| whole ext4 vs ext2: medians (extremes) | linux ext2 "
                                   "| linux ext4 | linux ext4 vs ext2: medians (extremes) |")
        self.assertEqual(lines[2], "| fs_cost | cold_read_4k | mb_per_s | u "
                                   "| 100.0 (80.0-120.0) | 50.0 (40.0-60.0) "
                                   "| 0.50x (0.33-0.75) | - | - | - |")
        self.assertEqual(lines[3].split(" | ")[1], "")  # boot: no mode
        self.assertTrue(lines[4].endswith("| - | - | - | 10.0 (10.0-10.0) "
                                          "| 30.0 (20.0-40.0) | 3.00x (2.00-4.00) |"))

    def test_the_table_is_printed_only_with_ext4(self):
        res = [fig("fs_cost", "cold_read_1m", "mb_per_s", 100.0, 80.0, 120.0),
               fig("fs_cost", "cold_read_1m", "mb_per_s", 50.0, 40.0, 60.0, "whole-ext4")]
        args = argparse.Namespace(boots=3, smp=4, reps=5, fs=["ext2"])
        with mock.patch("builtins.print") as p:
            bench.print_beside_fs(res, args, 7)
        p.assert_not_called()
        args.fs = ["ext2", "ext4"]
        with mock.patch("builtins.print") as p:
            bench.print_beside_fs(res, args, 7)
        out = "\n".join(str(c.args[0]) for c in p.call_args_list)
        self.assertIn("ext4 beside ext2 (3 boots each, shuffled with seed 7", out)
        self.assertIn("| fs_cost | cold_read_1m | mb_per_s | u | 100.0 (80.0-120.0) "
                      "| 50.0 (40.0-60.0) | 0.50x (0.33-0.75) |", out)


if __name__ == "__main__":
    unittest.main()
