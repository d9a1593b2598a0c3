"""Host tests of the JSON benchmark harness: app/bench.c's `bench`
command and its output format (one JSON object per figure), and
tools/bench.py's merging of boots and its ratios. Correctness only: no
figure is asserted (benchmarks are not timed tests)."""

import argparse
import json
import tempfile
import time
import unittest
from unittest import mock

import bench
import wholerun

KEYS = {"bench", "mode", "params", "metric", "unit", "median", "min", "max",
        "samples"}


def run_c(cmd, timeout=300, append=None):
    extra = ["--append", append] if append else []
    return wholerun.run(["--smp", "2", "--mem", "512M", *extra, "-c", cmd],
                        timeout=timeout)


def lockstat(out):
    """{lock: (shared, exclusive, contended)} of the last `lockstat`."""
    got = {}
    for ln in out.replace("\r", "").splitlines():
        w = ln.split()
        if len(w) == 4 and w[0] in ("invalidate_lock", "i_rwsem"):
            got[w[0]] = tuple(map(int, w[1:]))
    return got


def figures(out):
    return [json.loads(ln) for ln in out.splitlines() if ln.startswith('{"bench"')]


class GuestBenchTest(unittest.TestCase):
    def test_named_benchmarks_print_one_json_object_per_figure(self):
        res = run_c("bench -r 2 memcpy create_unlink boot rand_read_4k; ls /")
        self.assertEqual(res.returncode, 0, res.stdout[-1500:])
        figs = figures(res.stdout)
        self.assertEqual([(f["bench"], f["mode"]) for f in figs],
                         [("memcpy_4k", None), ("memcpy_1m", None),
                          ("create_unlink", None), ("boot", None),
                          ("rand_read_4k", "qd1"), ("rand_read_4k", "qd32"),
                          ("rand_read_4k", "qd32_1q")])
        # the multi-queue modes read the scratch disk vdb: tools/run has none
        self.assertEqual(figs.pop()["skipped"], "no scratch disk vdb")
        for f in figs:
            with self.subTest(bench=f["bench"], mode=f["mode"]):
                self.assertEqual(set(f), KEYS)
                self.assertLessEqual(f["min"], f["median"])
                self.assertLessEqual(f["median"], f["max"])
                self.assertGreater(f["min"], 0)
        self.assertEqual([f["samples"] for f in figs], [2, 2, 2, 1, 2, 2])
        self.assertNotIn("bench_cu", res.stdout.split("rand_read_4k")[-1])
        # the boot: rdtime at the shell's start, the clock Linux's reads
        self.assertEqual(figs[3]["params"], {"clock": "rdtime since the machine started",
                                             "to": "shell"})

    def test_scaling_rounds_are_a_time_of_reading(self):
        """scaling_cached_read reads for read_ms a round (app/bench_io.c),
        on as many harts as the boot has; the file is removed after."""
        res = run_c("uptime; bench -r 2 scaling_cached_read; uptime; ls /")
        self.assertEqual(res.returncode, 0, res.stdout[-1500:])
        figs = figures(res.stdout)
        self.assertEqual([(f["mode"], "skipped" in f) for f in figs],
                         [("1", False), ("2", False), ("4", True), ("8", True)])
        for f in figs[:2]:
            self.assertEqual(f["params"], {"file_mib": 64, "read_ms": 250})
            self.assertEqual(f["samples"], 2)
            self.assertGreater(f["min"], 0)
        # four rounds of 250 ms at least, between the two uptimes
        up = [float(l.split()[1]) for l in res.stdout.replace("\r", "").splitlines()
              if l.startswith("up ")]
        self.assertEqual(len(up), 2, res.stdout[-1500:])
        self.assertGreaterEqual(up[1] - up[0], 1.0)
        self.assertNotIn("bench.dat", res.stdout.split('"mode": "8"')[-1])

    def test_the_mmap_benchmark_runs_last(self):
        """Plain `bench` runs cached_hit_lock_acquisitions after every
        other JSON benchmark (it slows later copies in its boot: app/bench.c,
        run_all); `bench -l` lists them in that order."""
        res = run_c("bench -l")
        self.assertEqual(res.returncode, 0, res.stdout[-1500:])
        names = [ln.split()[2] for ln in res.stdout.splitlines()
                 if ln.startswith("usage: bench ")]
        self.assertIn("memcpy", names)
        self.assertEqual(names[-1], "cached_hit_lock_acquisitions", names)
        self.assertEqual(names.count("cached_hit_lock_acquisitions"), 1)

    def test_cold_reads_drop_every_page_of_the_file(self):
        """A cold round drops the file's pages with POSIX_FADV_DONTNEED,
        as Linux's figure does, and stops if one stays cached."""
        res = run_c("bench -r 1 cold_seq_read; ls /")
        self.assertEqual(res.returncode, 0, res.stdout[-1500:])
        self.assertNotIn("stayed cached", res.stdout)
        self.assertEqual([f["mode"] for f in figures(res.stdout)],
                         ["readahead", "no_readahead", "raw"])
        self.assertNotIn("bench.dat", res.stdout.split('"raw"')[-1])

    def test_file_size_cost_per_mib_and_what_memory_cannot_hold(self):
        """Write+fsync and cold read per MiB for each size that takes
        3/4 of the memory at most and fits on the disk (tools/run's: 16
        and 64 MiB), the rest skipped; the file is gone afterwards. The
        round of 16 MiB before them (the boot's one-time costs) is not
        among the samples."""
        res = run_c("bench -r 1 file_size_cost; ls /", timeout=600)
        self.assertEqual(res.returncode, 0, res.stdout[-1500:])
        figs = figures(res.stdout)
        self.assertEqual([(f["mode"], f.get("metric", f.get("skipped"))) for f in figs],
                         [("16", "write_fsync_us_per_mib"), ("16", "cold_read_us_per_mib"),
                          ("64", "write_fsync_us_per_mib"), ("64", "cold_read_us_per_mib"),
                          ("256", "no room on the disk"),
                          ("1024", "the file over 3/4 of the memory")])
        for f in figs[:4]:
            self.assertEqual(set(f), KEYS)
            self.assertEqual(f["params"]["file_mib"], int(f["mode"]))
            self.assertGreater(f["min"], 0)
            self.assertEqual(f["samples"], 1)  # the first, uncounted round apart
        self.assertNotIn("stayed cached", res.stdout)
        self.assertNotIn("bench_size.dat", res.stdout.split("1024")[-1])

    def test_without_a_scratch_disk_the_raw_write_is_skipped(self):
        res = run_c("bench -r 1 buffered_write; ls /")
        self.assertEqual(res.returncode, 0, res.stdout[-1500:])
        figs = figures(res.stdout)
        self.assertEqual([f["mode"] for f in figs],
                         ["cache", "write_fsync", "fsync", "reread", "raw"])
        self.assertEqual(figs[-1]["skipped"], "no writable scratch disk vdb")
        self.assertNotIn("bench.dat", res.stdout.split('"raw"')[-1])

    def test_bad_names_and_counts_are_refused_before_anything_runs(self):
        for cmd, msg in (("bench memcpy nosuch",
                          "bench: nosuch: no such JSON benchmark (bench -l lists them)"),
                         ("bench -r 0 memcpy", "bench: -r takes a count from 1 to 32"),
                         ("bench -r", "bench: -r takes a count from 1 to 32")):
            with self.subTest(cmd=cmd):
                res = run_c(cmd, timeout=120)
                self.assertEqual(res.returncode, 2, res.stdout[-800:])
                self.assertIn(msg, res.stdout)
                self.assertEqual(figures(res.stdout), [])


class FillLockModeTest(unittest.TestCase):
    """The three modes (mm/invalidate.c): a cold read takes invalidate_lock
    shared in the fixed kernel, nothing in legacy mode, and i_rwsem shared
    once per read() with fill_lock=i_rwsem; the boot argument sets every
    file's mode, and `mixed` runs its rounds in all three in one boot."""

    def test_modes_take_their_locks(self):
        cmd = "drop_caches; lockstat -z; cksum /README; lockstat"
        seen = {}
        for append, banner in ((None, "mode: fixed"), ("invalidate_lock=off", "mode: legacy"),
                               ("fill_lock=i_rwsem", "mode: fill_lock=i_rwsem")):
            with self.subTest(append=append):
                res = run_c(cmd + ("; bench -r 1 mixed" if append is None else ""),
                            append=append)
                self.assertEqual(res.returncode, 0, res.stdout[-1500:])
                self.assertIn(banner, res.stdout)
                seen[append] = lockstat(res.stdout)
                if append is None:
                    self.assertEqual(
                        sorted((f["mode"], f["metric"]) for f in figures(res.stdout)),
                        sorted((mode, metric)
                               for mode in ("invalidate_lock", "i_rwsem", "legacy")
                               for metric in ("punches_per_s", "reads_per_s",
                                              "writes_per_s")))
                    self.assertTrue(all(f["median"] > 0 for f in figures(res.stdout)))
        fixed, legacy, rwsem = (seen[None], seen["invalidate_lock=off"],
                                seen["fill_lock=i_rwsem"])
        self.assertGreater(fixed["invalidate_lock"][0], 0)
        self.assertEqual(legacy["invalidate_lock"][0], 0)
        self.assertEqual(rwsem["invalidate_lock"][0], 0)
        self.assertEqual(legacy["i_rwsem"], fixed["i_rwsem"])
        self.assertGreater(rwsem["i_rwsem"][0], fixed["i_rwsem"][0])  # each read()


class WatchdogTest(unittest.TestCase):
    def test_a_silent_guest_is_killed_at_the_timeout(self):
        """A hung guest prints nothing: the boot must still end, at
        TIMEOUT, with an error, not wait for a line forever."""
        args = argparse.Namespace(smp=1, mem="64M", reps=1, only=["boot"])
        with tempfile.TemporaryDirectory() as tmp, mock.patch.multiple(
                bench, qemu_cmd=lambda *a, **k: ["sleep", "600"], TIMEOUT=1):
            t0 = time.monotonic()
            with self.assertRaises(SystemExit) as cm:
                bench.boot_once(args, tmp)
        self.assertIn("took over 1 s", str(cm.exception))
        self.assertLess(time.monotonic() - t0, 60)


class BuildTest(unittest.TestCase):
    """The kernel measured: the production build unless --debug-build,
    on each arch, and the booted kernel's banner must agree."""

    def args(self, debug=False, arch="riscv64"):
        return argparse.Namespace(debug_build=debug, arch=arch)

    def test_production_unless_debug_build_on_every_arch(self):
        for arch in ("riscv64", "aarch64", "both"):
            with self.subTest(arch=arch):
                self.assertEqual(bench.arch_build(self.args(arch=arch)), "production")
                self.assertEqual(bench.arch_build(self.args(debug=True, arch=arch)),
                                 "debug")

    def test_use_build_picks_the_kernel(self):
        """Each arch's production kernel is prod.ninja's, in prod/ beside
        its test kernel; aarch64's QEMU boots the Image beside the ELF."""
        def rel(path):
            return path.relative_to(bench.ROOT).as_posix()
        try:
            bench.use_build("debug")
            self.assertEqual(rel(bench.ELF), "build/whole.elf")
            self.assertEqual(bench.KERNEL_FILE["riscv64"], bench.ELF)
            self.assertEqual(rel(bench.KERNEL_FILE["aarch64"]), "build/aarch64/Image")
            self.assertEqual(rel(bench.SIZE_ELF["aarch64"][1]), "build/aarch64/whole.elf")
            bench.use_build("production")
            self.assertEqual(rel(bench.ELF), "build/prod/whole.elf")
            self.assertEqual(bench.SIZE_ELF["riscv64"][1], bench.ELF)
            self.assertEqual(rel(bench.KERNEL_FILE["aarch64"]), "build/aarch64/prod/Image")
            self.assertEqual(rel(bench.SIZE_ELF["aarch64"][1]),
                             "build/aarch64/prod/whole.elf")
        finally:
            bench.use_build("production")

    def test_aarch64_boots_its_production_image(self):
        """--arch aarch64's QEMU line boots the production Image unless
        --debug-build."""
        def kernel(build):
            bench.use_build(build)
            cmd = bench.arch_qemu_cmd("aarch64", 4, "512M", "vda", "vdb", "true")
            return cmd[cmd.index("-kernel") + 1]
        try:
            self.assertEqual(kernel("production"),
                             str(bench.ROOT / "build" / "aarch64" / "prod" / "Image"))
            self.assertEqual(kernel("debug"), str(bench.ROOT / "build" / "aarch64" / "Image"))
        finally:
            bench.use_build("production")

    def test_the_banner_must_match_the_build(self):
        for arch in ("riscv64", "aarch64"):
            prod = [f"[    0.04] whole d8d2cdb (2026-12-06), {arch}, "
                    "production build (no lockdep)\n"]
            debug = [f"[    0.04] whole d8d2cdb (2026-12-06), {arch}\n"]
            with self.subTest(arch=arch):
                bench.check_build(self.args(arch=arch), arch, prod)
                bench.check_build(self.args(debug=True, arch=arch), arch, debug)
                with self.assertRaises(SystemExit) as cm:
                    bench.check_build(self.args(arch=arch), arch, debug)
                self.assertIn("booted as debug, not production", str(cm.exception))
                self.assertIn("prod/", str(cm.exception))  # the target to build
                with self.assertRaises(SystemExit):
                    bench.check_build(self.args(debug=True, arch=arch), arch, prod)


class MergeTest(unittest.TestCase):
    def fig(self, median, lo, hi, mode=None):
        return {"bench": "b", "mode": mode, "params": {}, "metric": "m",
                "unit": "u", "median": median, "min": lo, "max": hi,
                "samples": 3}

    def test_median_of_medians_and_the_extremes(self):
        merged = bench.merge([[self.fig(10, 8, 12)], [self.fig(20, 5, 21)],
                              [self.fig(14, 13, 30)]])
        self.assertEqual(len(merged), 1)
        self.assertEqual((merged[0]["median"], merged[0]["min"],
                          merged[0]["max"], merged[0]["boots"]), (14, 5, 30, 3))

    def test_modes_stay_apart_and_skips_are_kept(self):
        skip = {"bench": "b", "mode": "raw", "skipped": "why"}
        merged = bench.merge([[self.fig(1, 1, 1, "x"), self.fig(2, 2, 2, "y"),
                               skip]])
        self.assertEqual([m.get("median", m.get("skipped")) for m in merged],
                         [1, 2, "why"])

    def test_ratios(self):
        res = [{"bench": "cold_seq_read", "mode": "readahead", "median": 100.0},
               {"bench": "cold_seq_read", "mode": "raw", "median": 400.0},
               {"bench": "cached_read_1m", "mode": None, "median": 1048576.0},
               {"bench": "cached_read_4k", "mode": None, "median": 2048.0}]
        got = {what: value for what, value, _ in bench.ratios(res)}
        self.assertAlmostEqual(got["cold_seq_read readahead / raw"], 0.25)
        self.assertAlmostEqual(got["cached_read 4k / 1m per byte"], 2.0)
        # no copy figure, no ceiling; with one: a raw MiB's ns over the copy's
        self.assertNotIn("cold_seq_read raw MiB time / memcpy_1m (the ceiling above)", got)
        res.append({"bench": "memcpy_1m", "mode": None, "median": 2048.0 * 1024})
        got = {what: value for what, value, _ in bench.ratios(res)}
        self.assertAlmostEqual(
            got["cold_seq_read raw MiB time / memcpy_1m (the ceiling above)"],
            (1 << 20) * 1000 / 400.0 / (2048.0 * 1024))
        # The write against cached_read_1m's 1000 MB/s, or, once the
        # round's own reread is there, against that.
        res.append({"bench": "buffered_write", "mode": "cache", "median": 500.0})
        got = {what: value for what, value, _ in bench.ratios(res)}
        self.assertAlmostEqual(got["buffered_write cache / cached read"], 0.5)
        res.append({"bench": "buffered_write", "mode": "reread", "median": 2000.0})
        got = {what: value for what, value, _ in bench.ratios(res)}
        self.assertAlmostEqual(got["buffered_write cache / cached read"], 0.25)

    def test_kernels_stay_apart(self):
        e2 = dict(self.fig(50, 40, 60), kernel="linux-ext2")
        e4 = dict(self.fig(70, 65, 90), kernel="linux-ext4")
        merged = bench.merge([[self.fig(10, 8, 12), e2, e4],
                              [self.fig(20, 5, 21), dict(e2, median=30, min=20), e4]])
        self.assertEqual([(m["median"], m["min"], m["max"], m["boots"], m.get("kernel"))
                          for m in merged],
                         [(15.0, 5, 21, 2, None), (40.0, 20, 60, 2, "linux-ext2"),
                          (70, 65, 90, 2, "linux-ext4")])

    @staticmethod
    def row(bench, mode, metric, median, lo, hi, kernel=None):
        fig = {"bench": bench, "mode": mode, "metric": metric, "unit": "u",
               "median": median, "min": lo, "max": hi}
        if kernel:
            fig["kernel"] = kernel
        return fig

    def test_beside_linux_against_the_best_configuration(self):
        """Each row against the Linux configuration with the best median
        (lowest for times, highest for rates); the extremes: whole's
        worst sample against that configuration's best, and the reverse."""
        r = self.row
        res = [r("cached_read_4k", None, "ns_per_op", 500.0, 400.0, 800.0),
               r("cached_read_4k", None, "ns_per_op", 2000.0, 1600.0, 2400.0, "linux-ext2"),
               r("cached_read_4k", None, "ns_per_op", 1000.0, 900.0, 3000.0, "linux-ext4"),
               r("cold_seq_read", "readahead", "mb_per_s", 300.0, 200.0, 330.0),
               r("cold_seq_read", "readahead", "mb_per_s", 150.0, 100.0, 250.0, "linux-ext2"),
               r("cold_seq_read", "readahead", "mb_per_s", 120.0, 110.0, 130.0, "linux-ext4"),
               r("cached_read_4k", "preadv", "ns_per_op", 900.0, 800.0, 950.0, "linux-ext2"),
               r("mixed", "legacy", "reads_per_s", 9.0, 8.0, 10.0),
               {"bench": "run", "mode": None, "params": {"seed": 1}},
               {"bench": "goal", "mode": "x", "value": 1.0, "goal": 1.5, "met": False}]
        rows = {(x["bench"], x["mode"]): x for x in bench.beside_linux(res)}
        self.assertEqual(list(rows), [("cached_read_4k", None),
                                      ("cold_seq_read", "readahead"),
                                      ("cached_read_4k", "preadv")])
        c4k, cold, preadv = rows.values()
        self.assertEqual((c4k["best"], c4k["better"], c4k["better_lo"], c4k["better_hi"]),
                         ("linux-ext4", 2.0, 900 / 800, 3000 / 400))
        self.assertEqual((cold["best"], cold["better"], cold["better_lo"], cold["better_hi"]),
                         ("linux-ext2", 2.0, 200 / 250, 330 / 100))
        self.assertEqual(sorted(cold["linux"]), ["linux-ext2", "linux-ext4"])
        self.assertIsNone(preadv["whole"])  # Linux's alone: no ratio
        self.assertNotIn("better", preadv)
        self.assertIsNone(bench.find(res[1:2], "cached_read_4k"))
        lines = bench.beside_table(list(rows.values()), ["linux-ext2", "linux-ext4"])
        self.assertEqual(lines[0], "| bench | mode | unit | whole | linux-ext2 | linux-ext4 "
                                   "| best Linux | whole better: medians (extremes) |")
        self.assertEqual(lines[2], "| cached_read_4k |  | u | 500.0 (400.0-800.0) "
                                   "| 2000.0 (1600.0-2400.0) | 1000.0 (900.0-3000.0) "
                                   "| linux-ext4 | 2.00x (1.12-7.50) |")
        self.assertEqual(lines[4].split(" | ")[3:5], ["-", "900.0 (800.0-950.0)"])
        self.assertTrue(lines[4].endswith("| linux-ext2 | - |"))

    def test_goals_are_read_from_one_runs_figures(self):
        r = self.row
        res = [r("cached_read_4k", None, "ns_per_op", 500.0, 500.0, 500.0),
               r("cached_read_4k", None, "ns_per_op", 900.0, 900.0, 900.0, "linux-ext4"),
               r("cold_seq_read", "readahead", "mb_per_s", 900.0, 900.0, 900.0),
               r("cold_seq_read", "readahead", "mb_per_s", 450.0, 450.0, 450.0, "linux-ext2"),
               r("cold_seq_read", "raw", "mb_per_s", 1000.0, 1000.0, 1000.0),
               r("boot", None, "guest_ms", 100.0, 100.0, 100.0),
               r("boot", None, "guest_ms", 90.0, 90.0, 90.0, "linux-ext2"),
               r("buffered_write", "cache", "mb_per_s", 700.0, 700.0, 700.0),
               r("buffered_write", "reread", "mb_per_s", 1000.0, 1000.0, 1000.0)]
        got = {what: (round(value, 3), goal, met) for what, value, goal, met in bench.goals(res)}
        self.assertEqual(got, {
            "cached_read_4k vs linux-ext4": (1.8, 2.0, False),  # a call per 4 KiB
            "cold_seq_read readahead vs linux-ext2": (2.0, 1.5, True),
            "boot guest_ms vs linux-ext2": (0.9, 1.0, False),  # no row below 1
            "cold_seq_read readahead / raw": (0.9, 0.8, True),
            "buffered_write cache / reread": (0.7, 0.8, False)})

    def test_the_shuffled_order_comes_from_its_seed(self):
        kernels = ("linux-ext2", "linux-ext4")
        a = bench.schedule(7, 1234, linux=kernels)
        self.assertEqual(a, bench.schedule(7, 1234, linux=kernels))
        self.assertNotEqual(a, bench.schedule(7, 1235, linux=kernels))
        self.assertEqual(sorted(a), sorted(["whole"] * 7 + ["mixed"] * 7 * bench.MIXED_BOOTS
                                           + ["linux-ext2"] * 7 + ["linux-ext4"] * 7))
        # shuffled, not in rounds: not every boot of a kind before the next
        self.assertNotEqual(a, sorted(a))
        self.assertEqual(bench.schedule(3, 5, mixed=False), ["whole"] * 3)
        self.assertEqual(bench.schedule(2, 5, whole=False, mixed=True), ["mixed"] * 4)

    def test_mixed_ratios(self):
        res = [{"bench": "mixed", "mode": m, "metric": "reads_per_s", "median": v}
               for m, v in (("invalidate_lock", 900), ("i_rwsem", 300), ("legacy", 1000))]
        got = {what: value for what, value, _ in bench.ratios(res)}
        self.assertAlmostEqual(got["mixed reads_per_s invalidate_lock / i_rwsem"], 3.0)
        self.assertAlmostEqual(got["mixed reads_per_s invalidate_lock / legacy"], 0.9)


class ScalingTest(unittest.TestCase):
    """--scaling (issue #32): a boot per hart count, its figures named by
    it, and the goals read from them."""

    @staticmethod
    def fig(bench, mode, median, metric="m", **extra):
        return dict({"bench": bench, "mode": mode, "params": {"p": 1},
                     "metric": metric, "unit": "u", "median": median,
                     "min": median, "max": median, "samples": 1}, **extra)

    def test_a_boot_keeps_its_own_reader_count_and_marks_the_rest(self):
        f = self.fig
        boot = [f("scaling_cached_read", "1", 10.0), f("scaling_cached_read", "2", 19.0),
                f("scaling_cached_read", "4", 30.0),
                {"bench": "scaling_cached_read", "mode": "8", "skipped": "fewer harts"},
                f("mixed", "invalidate_lock", 5.0, "reads_per_s"),
                f("cold_seq_read", "readahead", 80.0), f("boot", None, 3.0)]
        got = bench.tag_scaling(boot, 2)
        self.assertEqual([(g["bench"], g["mode"], g["median"]) for g in got],
                         [("scaling_cached_read", "2", 19.0),
                          ("mixed", "invalidate_lock@2", 5.0),
                          ("cold_seq_read", "readahead@2", 80.0),
                          ("boot", "@2", 3.0)])
        self.assertEqual(got[1]["params"], {"p": 1, "smp": 2})
        self.assertEqual(boot[4]["mode"], "invalidate_lock")  # not changed in place
        # a boot whose own count was skipped (fewer harts came up) adds none
        self.assertEqual(bench.tag_scaling(boot, 8)[0]["bench"], "mixed")

    def test_schedule_has_every_kind_each_round_and_repeats_from_its_seed(self):
        order = bench.scaling_schedule(3, 7)
        self.assertEqual(sorted(order), sorted(["smp1", "smp2", "smp4", "smp8", "size"] * 3))
        self.assertEqual(order, bench.scaling_schedule(3, 7))

    def test_linux_gets_the_same_boots_in_the_one_order(self):
        order = bench.scaling_schedule(2, 7, ("linux-ext2", "linux-ext4"))
        kinds = ["smp1", "smp2", "smp4", "smp8", "size"]
        self.assertEqual(sorted(order), sorted(
            (kinds + [f"{k}:{x}" for k in ("linux-ext2", "linux-ext4") for x in kinds]) * 2))
        self.assertEqual(order, bench.scaling_schedule(2, 7, ("linux-ext2", "linux-ext4")))

    def test_a_linux_boot_runs_whole_s_work_and_is_tagged_as_whole_s(self):
        f = self.fig
        calls = []

        def run(smp, mem, reps, kernel, engine, only, image="512M", timeout=None):
            calls.append((smp, mem, reps, kernel, only, image, timeout))
            return [dict(g, kernel=kernel) for g in (
                f("boot", None, 1.0), f("scaling_cached_read", "1", 5.0),
                f("scaling_cached_read", str(smp), 9.0),
                f("cold_seq_read", "readahead", 80.0),
                f("file_size_cost", "16", 700.0, "cold_read_us_per_mib"))]

        args = argparse.Namespace(mem="512M", reps=3, engine=None)
        with mock.patch.object(bench.linuxguest, "run", run):
            smp = bench.linux_scaling_boot(args, "linux-ext4", "smp2")
            size = bench.linux_scaling_boot(args, "linux-ext2", "size")
        self.assertEqual(calls, [
            (2, "512M", 3, "linux-ext4", bench.LINUX_SCALING_BENCHES, "512M", None),
            (4, "2G", 3, "linux-ext2", ("file_size_cost",), "2G", 3 * bench.SIZE_TIMEOUT)])
        self.assertEqual([(g["bench"], g["mode"], g["kernel"]) for g in smp],
                         [("scaling_cached_read", "2", "linux-ext4"),
                          ("cold_seq_read", "readahead@2", "linux-ext4"),
                          ("file_size_cost", "16@2", "linux-ext4")])
        self.assertEqual([(g["bench"], g["mode"]) for g in size], [("file_size_cost", "16")])
        # beside whole's figures: one row each, the metric named for file sizes
        res = bench.merge([[f("cold_seq_read", "readahead@2", 160.0),
                            f("file_size_cost", "16", 350.0, "cold_read_us_per_mib")],
                           smp[1:2], size])
        rows = bench.beside_linux(res)
        self.assertEqual([(r["bench"], r["mode"], r["better"]) for r in rows],
                         [("cold_seq_read", "readahead@2", 2.0),
                          ("file_size_cost", "16", 2.0)])
        self.assertEqual(bench.label("file_size_cost", "16", "cold_read_us_per_mib"),
                         "file_size_cost 16 cold_read_us_per_mib")

    def test_a_linux_skip_stays_apart_from_whole_s(self):
        skip = {"bench": "file_size_cost", "mode": "1024", "skipped": "memory"}
        merged = bench.merge([[skip], [dict(skip, kernel="linux-ext2", skipped="disk")]])
        self.assertEqual([(m.get("kernel"), m["skipped"]) for m in merged],
                         [(None, "memory"), ("linux-ext2", "disk")])

    def test_linux_s_ratios_are_read_apart_from_whole_s(self):
        f = self.fig
        res = [f("scaling_cached_read", "1", 100.0, "reads_per_s"),
               f("scaling_cached_read", "2", 190.0, "reads_per_s"),
               f("scaling_cached_read", "1", 10.0, "reads_per_s", kernel="linux-ext4"),
               f("scaling_cached_read", "2", 12.0, "reads_per_s", kernel="linux-ext4")]
        self.assertEqual([v for _, v, _, _ in bench.scaling_goals(res)], [1.9])
        self.assertEqual([v for _, v, _, _ in bench.scaling_goals(res, "linux-ext4")], [1.2])

    def test_goals(self):
        f = self.fig
        res = [f("scaling_cached_read", "1", 100.0), f("scaling_cached_read", "2", 190.0),
               f("scaling_cached_read", "4", 170.0),
               f("mixed", "invalidate_lock@2", 50.0, "reads_per_s"),
               f("mixed", "invalidate_lock@4", 45.0, "reads_per_s"),
               f("mixed", "i_rwsem@4", 99.0, "reads_per_s")]
        for mib, w, r in ((16, 1000.0, 400.0), (64, 1050.0, 420.0), (256, 1080.0, 500.0),
                          (1024, 1100.0, 400.0)):
            res.append(f("file_size_cost", str(mib), w, "write_fsync_us_per_mib"))
            res.append(f("file_size_cost", str(mib), r, "cold_read_us_per_mib"))
        got = {what: (value, goal, met) for what, value, goal, met in bench.scaling_goals(res)}
        self.assertEqual(got["scaling_cached_read 2 / 1"], (1.9, 1.8, True))
        self.assertEqual(got["scaling_cached_read 4 / 1"], (1.7, 1.8, False))
        self.assertEqual(got["mixed reads_per_s @4 / @2"], (0.9, 1.0, False))
        w = got["file_size_cost write_fsync_us_per_mib min / max (16 MiB .. 1024 MiB)"]
        r = got["file_size_cost cold_read_us_per_mib min / max (16 MiB .. 1024 MiB)"]
        self.assertAlmostEqual(w[0], 1000 / 1100)
        self.assertEqual(w[1:], (0.909, True))   # 10% dearer at 1 GiB: within
        self.assertAlmostEqual(r[0], 0.8)
        self.assertEqual(r[1:], (0.909, False))  # 25% dearer at 256 MiB
        # a size that was skipped leaves that goal out, not met by default
        res = [x for x in res if x["mode"] != "1024"]
        self.assertEqual(len(bench.scaling_goals(res)), 3)


if __name__ == "__main__":
    unittest.main()
