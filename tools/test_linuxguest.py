#!/usr/bin/env python3
"""Host tests of tools/linuxguest.py and tools/linuxbench.c, the Linux side
of tools/bench --linux, without fetching or booting Linux (that is the
benchmark's job, not the test suite's): the benchmark program builds for
riscv64 Linux with -Werror, the headers it shares with whole build outside
the kernel and give the offsets of the one generator, module load order
follows each module's .modinfo depends= (real ELF objects made here by the
host's gcc), the initramfs writer produces well-formed newc archives,
/init parses and applies the settings, and each configuration gets its
image."""

import argparse
import gzip
import json
import os
import re
import subprocess
import tempfile
import time
import unittest
from unittest import mock
from pathlib import Path

import linuxguest


def parse_newc(data):
    """[(name, mode, rdev major, minor, body)] of a newc archive."""
    out, off = [], 0
    while True:
        assert data[off:off + 6] == b"070701", f"bad magic at {off}"
        f = [int(data[off + 6 + 8 * i:off + 14 + 8 * i], 16) for i in range(13)]
        namesize, filesize = f[11], f[6]
        name = data[off + 110:off + 110 + namesize - 1].decode()
        assert data[off + 110 + namesize - 1] == 0
        body_at = (off + 110 + namesize + 3) & ~3
        body = data[body_at:body_at + filesize]
        off = (body_at + filesize + 3) & ~3
        if name == "TRAILER!!!":
            assert off == len(data)
            return out
        out.append((name, f[1], f[9], f[10], body))


class LinuxBench(unittest.TestCase):
    def test_builds_for_riscv64_linux(self):
        out = linuxguest.build_bench()
        head = out.read_bytes()[:20]
        self.assertEqual(head[:4], b"\x7fELF")
        self.assertEqual(int.from_bytes(head[18:20], "little"), 243)  # EM_RISCV

    def test_shared_headers_give_the_same_offsets_outside_the_kernel(self):
        """drivers/bench_rand.h and app/bench_file.h build in a plain C program
        (as tools/linuxbench.c includes them); the offsets are xorshift64
        (13, 7, 17) over the first 64 MiB, 4 KiB-aligned."""
        src = ('#include <stdio.h>\n#include "drivers/bench_rand.h"\n'
               '#include "app/bench_file.h"\nint main(void) { uint64_t s = 0x9e3779b97f4a7c15ull;'
               ' for (int i = 0; i < 5; i++) printf("%llu\\n", (unsigned long long)'
               'bench_rand_offset(&s, 512ull << 20)); return RAND_IOS != 2000u; }\n')
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "t.c").write_text(src)
            subprocess.run(["gcc", "-Wall", "-Wextra", "-Werror", "-I", str(linuxguest.ROOT),
                            str(Path(tmp) / "t.c"), "-o", str(Path(tmp) / "t")], check=True)
            got = [int(x) for x in subprocess.run([str(Path(tmp) / "t")], check=True,
                                                  capture_output=True, text=True).stdout.split()]
        want, x = [], 0x9e3779b97f4a7c15
        for _ in range(5):
            x ^= (x << 13) & (2**64 - 1)
            x ^= x >> 7
            x ^= (x << 17) & (2**64 - 1)
            want.append(x % ((64 << 20) // 4096) * 4096)
        self.assertEqual(got, want)


class ModuleOrder(unittest.TestCase):
    def test_dependencies_load_first(self):
        with tempfile.TemporaryDirectory() as tmp:
            mods = {"a": "b,c", "b": "c", "c": "", "d": ""}
            for name, deps in mods.items():
                src = Path(tmp) / f"{name}.c"
                src.write_text('__attribute__((section(".modinfo"), used)) static const '
                               f'char info[] = "license=GPL\\0depends={deps}";\n')
                (Path(tmp) / "kernel").mkdir(exist_ok=True)
                subprocess.run(["gcc", "-c", str(src), "-o",
                                str(Path(tmp) / "kernel" / f"{name}.ko")], check=True)
            order, paths = linuxguest._load_order(Path(tmp) / "kernel", ["a", "d"])
            self.assertEqual(order, ["c", "b", "a", "d"])
            self.assertIn("depends=b,c", linuxguest._modinfo(paths["a"]))
            with self.assertRaises(SystemExit):
                linuxguest._load_order(Path(tmp) / "kernel", ["nosuch"])


class Initramfs(unittest.TestCase):
    def test_newc_archive(self):
        files = [("bin", 0o40755, None, None), ("dev/console", 0o20600, None, (5, 1)),
                 ("init", 0o100755, b"#!/bin/sh\n", None), ("odd", 0o100644, b"x" * 5, None)]
        got = parse_newc(linuxguest._cpio(files))
        self.assertEqual(got, [("bin", 0o40755, 0, 0, b""), ("dev/console", 0o20600, 5, 1, b""),
                               ("init", 0o100755, 0, 0, b"#!/bin/sh\n"),
                               ("odd", 0o100644, 0, 0, b"xxxxx")])

    def test_init_is_a_shell_script(self):
        with tempfile.NamedTemporaryFile("w", suffix=".sh") as f:
            f.write(linuxguest.INIT)
            f.flush()
            res = subprocess.run(["sh", "-n", f.name], capture_output=True, text=True)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("/linuxbench $kernel $(cat /reps) /mnt $data $scratch $(cat /engine)",
                      linuxguest.INIT)

    def test_init_reads_every_file_it_is_given(self):
        files = linuxguest.guest_files("linux-ext4", 7, "aio")
        got = {name: body.decode() for name, _, body, _ in files}
        self.assertEqual(got["kernel"], "linux-ext4\n")
        self.assertEqual(got["reps"], "7\n")
        self.assertEqual(got["engine"], "aio\n")
        self.assertEqual(got["mount_opts"], "noatime\n")
        self.assertIn("scheduler none\n", got["queue"])
        self.assertEqual(got["sysctl"], "vm/dirty_background_ratio 20\nvm/dirty_ratio 40\n")
        for name in got:
            self.assertIn(f"/{name}", linuxguest.INIT)
        got = {name: body for name, _, body, _ in linuxguest.guest_files("linux-ext2", 1)}
        self.assertEqual((got["engine"], got["only"]), (b"\n", b"\n"))


class Settings(unittest.TestCase):
    """Linux at its best: the settings the table states."""

    def test_readahead_is_whole_s_window(self):
        """read_ahead_kb is whole's readahead cap (mm/readahead.c)."""
        src = (linuxguest.ROOT / "mm" / "readahead.c").read_text()
        pages = int(re.search(r"#define RA_DEFAULT_PAGES (\d+)", src)[1])
        self.assertEqual(dict(linuxguest.QUEUE)["read_ahead_kb"], str(pages * 4))

    def test_no_scheduler_and_no_zeroing_of_allocations(self):
        self.assertEqual(dict(linuxguest.QUEUE)["scheduler"], "none")
        self.assertIn("init_on_alloc=0", linuxguest.CMDLINE.split())
        self.assertEqual(linuxguest.qemu_cmd(4, "512M", "a", "b", "i")[
            linuxguest.qemu_cmd(4, "512M", "a", "b", "i").index("-append") + 1],
            linuxguest.CMDLINE)

    def test_each_configuration_gets_its_image(self):
        with tempfile.TemporaryDirectory() as tmp:
            for kernel, feature, absent in (("linux-ext2", "filetype", "has_journal"),
                                            ("linux-ext4", "extent", None)):
                img = Path(tmp) / f"{kernel}.img"
                linuxguest.make_image(img, kernel)
                linuxguest.ext2img.check_image(img)
                feats = subprocess.run(["dumpe2fs", "-h", str(img)], capture_output=True,
                                       text=True, env=linuxguest.ext2img._ENV).stdout
                feats = re.search(r"Filesystem features:\s*(.*)", feats)[1].split()
                self.assertIn(feature, feats)
                if absent:
                    self.assertNotIn(absent, feats)
                else:  # its inode tables zeroed now, not by a kernel thread
                    self.assertIn("has_journal", feats)
                    groups = subprocess.run(["dumpe2fs", str(img)], capture_output=True,
                                            text=True, env=linuxguest.ext2img._ENV).stdout
                    groups = re.findall(r"^Group \d+:.*$", groups, re.M)
                    self.assertTrue(groups)
                    self.assertTrue(all("ITABLE_ZEROED" in g for g in groups), groups)
            with self.assertRaises(ValueError):
                linuxguest.make_image(Path(tmp) / "x.img", "linux-xfs")


class Selection(unittest.TestCase):
    """linuxbench built for the host (its rdtime left out) runs what
    LINUXBENCH_ONLY names, whole words only, and the scaling row has
    whole's hart counts: 1, 2, 4 and 8 readers, a count above the CPUs
    online skipped as whole's bench does."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.exe = Path(cls.tmp.name) / "linuxbench"
        subprocess.run(["gcc", "-O2", "-pthread", "-Wall", "-Wextra", "-Werror", "-I",
                        str(linuxguest.ROOT), str(linuxguest.ROOT / "tools" / "linuxbench.c"),
                        "-o", str(cls.exe)], check=True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def figures(self, only):
        with tempfile.TemporaryDirectory() as d:
            out = subprocess.run([str(self.exe), "linux-host", "1", d, "/dev/null",
                                  "/dev/null"], env={"LINUXBENCH_ONLY": only},
                                 capture_output=True, text=True, timeout=300)
            self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
            self.assertEqual(list(Path(d).iterdir()), [])  # it cleans up
        return [json.loads(ln) for ln in out.stdout.splitlines() if ln.startswith("{")]

    def test_only_the_named_benchmarks_run(self):
        got = self.figures("create_unlink")
        self.assertEqual([f["bench"] for f in got], ["boot", "create_unlink"])
        # parts of names and names it does not have select nothing
        self.assertEqual([f["bench"] for f in self.figures("unlink,cached xyz")], ["boot"])

    def test_the_scaling_row_has_eight_readers(self):
        got = [f for f in self.figures("scaling_cached_read")
               if f["bench"] == "scaling_cached_read"]
        self.assertEqual([f["mode"] for f in got], ["1", "2", "4", "8"])
        cpus = os.cpu_count()
        for f in got:
            if int(f["mode"]) <= cpus:
                self.assertEqual(f["samples"], 1)
                self.assertGreater(f["median"], 0)
                # a round is a time of reading, as whole's (app/bench_io.c)
                self.assertEqual(f["params"]["read_ms"], 250)
            else:
                self.assertEqual(f["skipped"], "fewer harts online")
            self.assertEqual(f["kernel"], "linux-host")

    def test_guest_files_name_the_benchmarks_and_any_data_disk_size(self):
        files = linuxguest.guest_files("linux-ext2", 1, None,
                                       ("scaling_cached_read", "cold_seq_read"))
        got = {name: body.decode() for name, _, body, _ in files}
        self.assertEqual(got["only"], "scaling_cached_read cold_seq_read\n")
        self.assertIn('LINUXBENCH_ONLY="$(cat /only)" /linuxbench', linuxguest.INIT)
        # the scratch disk is told by its size; the data disk may be 512M or 2G
        self.assertIn("262144) scratch=", linuxguest.INIT)
        self.assertIn("*) data=", linuxguest.INIT)
        with tempfile.TemporaryDirectory() as tmp:
            img = Path(tmp) / "big.img"
            linuxguest.make_image(img, "linux-ext4", "2G")
            self.assertEqual(img.stat().st_size, 2 << 30)


class SilentBoot(unittest.TestCase):
    def test_a_boot_that_never_reaches_init_is_killed_and_made_again(self):
        """Linux under TCG now and then stops before its first line: the
        watchdog kills QEMU (it would wait for a line forever), boots
        again, and gives up after BOOT_TRIES boots."""
        boots = []

        def silent_guest(*args, **kwargs):
            boots.append(args)
            return ["sleep", "600"]

        with tempfile.NamedTemporaryFile() as initrd, mock.patch.multiple(
                linuxguest, qemu_cmd=silent_guest, fetch=lambda arch="riscv64": None,
                INITRD=Path(initrd.name), BOOT_TIMEOUT=1):
            t0 = time.monotonic()
            with self.assertRaises(SystemExit) as cm:
                linuxguest.run(reps=1)
        self.assertIn("never reached /init", str(cm.exception))
        self.assertEqual(len(boots), linuxguest.BOOT_TRIES)
        self.assertLess(time.monotonic() - t0, 60)


class Aarch64(unittest.TestCase):
    """--arch aarch64 (tools/bench --linux --arch aarch64): Debian's arm64
    Linux on the machine line whole's aarch64 boots get, linuxbench built
    for it; riscv64's paths and command lines stay as they were. Nothing
    is fetched or booted here."""

    def args(self, arch):
        return (4, "512M", "/t/vda.img", "/t/vdb.img", "/t/initrd.cpio")

    def test_riscv64_is_as_it_was(self):
        cmd = linuxguest.qemu_cmd(*self.args("riscv64"))
        self.assertEqual(cmd[:5], ["qemu-system-riscv64", "-machine", "virt", "-bios",
                                   "default"])
        self.assertEqual(cmd[cmd.index("-kernel") + 1], str(linuxguest.IMAGE))
        self.assertEqual(cmd[cmd.index("-append") + 1], linuxguest.CMDLINE)
        self.assertEqual(linuxguest.initrd_path(), linuxguest.INITRD)
        self.assertEqual(linuxguest.linux_dir(), linuxguest.ROOT / "build" / "linux")

    def test_aarch64_gets_its_machine_kernel_and_console_and_the_same_disks(self):
        rv = linuxguest.qemu_cmd(*self.args("riscv64"))
        a64 = linuxguest.qemu_cmd(*self.args("aarch64"), arch="aarch64")
        machine = linuxguest.MACHINE["aarch64"]
        self.assertEqual(a64[:len(machine)], machine)
        self.assertEqual(machine[:2], ["qemu-system-aarch64", "-machine"])
        self.assertTrue(machine[2].startswith("virt,highmem=off"))
        self.assertEqual(machine[machine.index("-cpu") + 1], "cortex-a57")
        # the aarch64 machine of tools/ktest_runner.py's boots (GICv2, QEMU's default)
        import boots
        import ktest_runner
        boot = next(b for b in boots.BOOTS if b.arch == "aarch64" and not b.machine)
        kt = ktest_runner.machine_args(boot)[0]
        self.assertEqual(kt[0], machine[0])
        self.assertEqual(kt[3:], machine[3:])
        self.assertEqual(machine[2], kt[2] + ",gic-version=2")
        kernel = Path(a64[a64.index("-kernel") + 1])
        self.assertEqual(kernel, linuxguest.ROOT / "build" / "aarch64" / "linux" / "Image")
        append = a64[a64.index("-append") + 1].split()
        self.assertIn("console=ttyAMA0", append)
        self.assertNotIn("console=ttyS0", append)
        self.assertEqual(append[1:], linuxguest.CMDLINE.split()[1:])
        # from -nographic on, the same line but the kernel and its arguments
        tail = lambda c: [x for x in c[c.index("-nographic"):]
                          if x not in (str(kernel), str(linuxguest.IMAGE))
                          and "console=" not in x]
        self.assertEqual(tail(a64), tail(rv))
        self.assertIn("virtio-mmio.force-legacy=false", a64)
        self.assertIn("file=/t/vda.img,if=none,format=raw,id=d0,cache=unsafe", a64)

    def test_apt_state_and_packages_are_arm64(self):
        calls = []

        def fake_run(cmd, **kw):
            calls.append(cmd)
            return subprocess.CompletedProcess(cmd, 0, "Depends: linux-image-x-arm64\n", "")

        with tempfile.TemporaryDirectory() as tmp, mock.patch.object(
                linuxguest.subprocess, "run", fake_run):
            (Path(tmp) / "debs").mkdir()
            linuxguest._apt(Path(tmp), "update", arch="aarch64")
            linuxguest._apt(Path(tmp), "update")
        self.assertIn("APT::Architecture=arm64", calls[0])
        self.assertIn("APT::Architectures=arm64", calls[0])
        self.assertIn("APT::Architecture=riscv64", calls[1])
        self.assertEqual(linuxguest.linux_dir("aarch64"),
                         linuxguest.ROOT / "build" / "aarch64" / "linux")

    def test_the_arm64_kernel_is_unpacked_and_riscv64_s_taken_as_it_is(self):
        with tempfile.TemporaryDirectory() as tmp:
            boot = Path(tmp)
            (boot / "vmlinuz-6.12.0-arm64").write_bytes(gzip.compress(b"ARM\x64" * 100))
            self.assertEqual(linuxguest.kernel_image(boot), b"ARM\x64" * 100)
            (boot / "vmlinux-6.12.0-riscv64").write_bytes(b"RISCV" * 10)
            self.assertEqual(linuxguest.kernel_image(boot), b"RISCV" * 10)
            with self.assertRaises(SystemExit):
                linuxguest.kernel_image(boot / "nothing")

    def test_linuxbench_builds_for_aarch64_linux(self):
        """tools/setup installs libc6-dev-arm64-cross for this."""
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "linuxbench"
            subprocess.run(linuxguest.cross_cmd("aarch64", out), check=True)
            head = out.read_bytes()[:20]
        self.assertEqual(head[:4], b"\x7fELF")
        self.assertEqual(int.from_bytes(head[18:20], "little"),
                         linuxguest.EM_MACHINE["aarch64"])
        self.assertEqual(linuxguest.EM_MACHINE["aarch64"], 183)  # EM_AARCH64

    def test_the_cross_libc_is_where_the_packages_put_it(self):
        self.assertEqual(linuxguest.cross_libc("aarch64"),
                         Path("/usr/aarch64-linux-gnu/lib/libc.a"))
        self.assertTrue(linuxguest.cross_libc("riscv64").exists())  # tools/setup's


class BenchArch(unittest.TestCase):
    """tools/bench.py --arch: the option, whole's QEMU line on aarch64, and
    the arch on every object written; main() runs with the boots mocked
    (nothing boots; no figure is asserted, only where each goes)."""

    def test_whole_s_aarch64_line_is_riscv64_s_with_the_machine_and_kernel(self):
        import bench
        a = (4, "512M", "/t/vda.img", "/t/vdb.img", "echo hi", "x=1")
        rv = bench.qemu_cmd(*a)
        self.assertEqual(bench.arch_qemu_cmd("riscv64", *a), rv)
        a64 = bench.arch_qemu_cmd("aarch64", *a)
        machine = linuxguest.MACHINE["aarch64"]
        self.assertEqual(a64[:len(machine)], machine)
        # the production build, as riscv64's (BuildTest in test_bench.py)
        self.assertEqual(a64[a64.index("-kernel") + 1],
                         str(linuxguest.ROOT / "build" / "aarch64" / "prod" / "Image"))
        strip = lambda c, m: [x for x in c[len(m):] if not x.endswith(("whole.elf", "Image"))]
        self.assertEqual(strip(a64, machine), strip(rv, linuxguest.MACHINE["riscv64"]))
        self.assertEqual(a64[a64.index("-append") + 1], "x=1 -- echo hi")

    def test_bad_arch_and_scaling_on_aarch64_are_refused(self):
        import bench
        for argv in (["--arch", "mips"], ["--arch", "aarch64", "--scaling"]):
            with mock.patch("sys.stderr"), self.assertRaises(SystemExit) as cm:
                bench.main(argv)
            self.assertEqual(cm.exception.code, 2)

    def test_linux_runs_the_rows_of_only_by_linuxbench_s_names(self):
        import bench
        self.assertEqual(bench.linux_only([]), ())
        self.assertEqual(bench.linux_only(["cold_seq_read", "buffered_write"]),
                         ("cold_seq_read", "buffered_write"))
        self.assertEqual(bench.linux_only(["cached_read_4k", "memcpy_1m", "cached_read_1m"]),
                         ("cached_read",))
        # every name given is one linuxbench has (its benches[])
        src = (linuxguest.ROOT / "tools" / "linuxbench.c").read_text()
        table = src[src.index("benches[] = {"):]
        table = table[:table.index("};")]
        self.assertLessEqual(set(bench.LINUX_NAMES.values()),
                             set(re.findall(r'\{ "(\w+)",', table)))

    def test_out_file_and_tags(self):
        import bench
        self.assertEqual(bench.arch_out(bench.OUT, "riscv64"), bench.OUT)
        self.assertEqual(bench.arch_out(bench.OUT, "aarch64").name, "bench_aarch64.json")
        self.assertEqual(bench.arch_out(Path("/x.json"), "aarch64"), Path("/x.json"))
        figs = [{"bench": "a"}, {"bench": "run"}]
        self.assertEqual(bench.tag_arch([dict(f) for f in figs], "riscv64"), figs)
        self.assertEqual([f["arch"] for f in bench.tag_arch(figs, "aarch64")],
                         ["aarch64", "aarch64"])

    def run_main(self, argv):
        """bench.main(@argv) with its boots mocked: [(what, arch)] of the
        calls, and the JSON written."""
        import bench
        calls = []
        fig = {"bench": "cold_seq_read", "mode": "raw", "params": {}, "metric": "mb_per_s",
               "unit": "MB/s", "median": 2.0, "min": 1.0, "max": 3.0, "samples": 3}

        def boot_once(args, tmp, only=None, **kw):
            calls.append(("whole", args.arch, tuple(only or ())))
            return [dict(fig)], 10.0

        def run(smp, mem, reps, kernel, engine, only=(), image="512M", timeout=None,
                arch="riscv64"):
            calls.append((kernel, arch, tuple(only)))
            return [dict(fig, kernel=kernel)]

        with tempfile.TemporaryDirectory() as tmp, mock.patch.multiple(
                bench, boot_once=boot_once, arch_text_bytes=lambda a: (1, f"{a}.elf"),
                git_commit=lambda: "c0ffee"), mock.patch.multiple(
                bench.linuxguest, run=run,
                fetch=lambda arch="riscv64": calls.append(("fetch", arch))), \
                mock.patch("sys.stdout"), mock.patch("sys.stderr"):
            out = Path(tmp) / "b.json"
            bench.main(argv + ["--out", str(out), "--boots", "2", "--only", "cold_seq_read"])
            return calls, json.loads(out.read_text())

    def test_main_on_aarch64_boots_both_kernels_there_and_tags_every_object(self):
        calls, res = self.run_main(["--linux", "--arch", "aarch64"])
        self.assertEqual(calls[0], ("fetch", "aarch64"))
        self.assertEqual(sorted(calls[1:]), sorted(
            [("whole", "aarch64", ("cold_seq_read",)),
             ("linux-ext2", "aarch64", ("cold_seq_read",)),
             ("linux-ext4", "aarch64", ("cold_seq_read",))] * 2))
        self.assertTrue(all(r.get("arch") == "aarch64" for r in res), res)
        self.assertEqual({r.get("kernel") for r in res if r["bench"] == "cold_seq_read"},
                         {None, "linux-ext2", "linux-ext4"})
        image = next(r for r in res if r["bench"] == "image")
        self.assertEqual(image["params"]["file"], "aarch64.elf")

    def test_both_arches_in_one_order_each_merged_apart(self):
        import bench
        order = bench.arch_schedule(2, 5, ("riscv64", "aarch64"), mixed=False,
                                    linux=("linux-ext2",))
        self.assertEqual(order, bench.arch_schedule(2, 5, ("riscv64", "aarch64"),
                                                    mixed=False, linux=("linux-ext2",)))
        self.assertEqual(sorted(order), sorted(
            [f"{a}:{k}" for a in ("riscv64", "aarch64") for k in ("whole", "linux-ext2")] * 2))
        calls, res = self.run_main(["--linux", "--arch", "both"])
        self.assertEqual(calls[:2], [("fetch", "riscv64"), ("fetch", "aarch64")])
        self.assertEqual(sorted(calls[2:]), sorted(
            [(k, a, ("cold_seq_read",)) for a in ("riscv64", "aarch64")
             for k in ("whole", "linux-ext2", "linux-ext4")] * 2))
        self.assertEqual({r.get("arch") for r in res}, {"riscv64", "aarch64"})
        for arch in ("riscv64", "aarch64"):
            mine = [r for r in res if r["arch"] == arch]
            self.assertEqual(sum(r["bench"] == "run" for r in mine), 1)
            self.assertEqual([r["boots"] for r in mine if r["bench"] == "cold_seq_read"],
                             [2, 2, 2])
            image = next(r for r in mine if r["bench"] == "image")
            self.assertEqual(image["params"]["file"], f"{arch}.elf")
        rows = bench.arches_table(res)[2:]
        self.assertEqual(len(rows), 4)  # whole, linux-ext2, linux-ext4, boot host_ms
        self.assertTrue(rows[0].startswith("| whole | cold_seq_read | raw | MB/s |"))
        self.assertTrue(rows[0].endswith("| 1.00x |"))

    def test_arches_table_says_which_arch_is_ahead(self):
        import bench
        f = lambda arch, metric, median: {"bench": "b", "mode": None, "metric": metric,
                                          "unit": "u", "median": median, "min": median,
                                          "max": median, "arch": arch}
        rate = bench.arches_table([f("riscv64", "mb_per_s", 100.0),
                                   f("aarch64", "mb_per_s", 50.0)])
        cost = bench.arches_table([f("riscv64", "us_per_op", 100.0),
                                   f("aarch64", "us_per_op", 50.0)])
        self.assertTrue(rate[2].endswith("| 0.50x |"), rate)
        self.assertTrue(cost[2].endswith("| 2.00x |"), cost)

    def test_main_on_riscv64_writes_no_arch(self):
        calls, res = self.run_main(["--linux"])
        self.assertEqual(calls[0], ("fetch", "riscv64"))
        self.assertEqual({c[1] for c in calls}, {"riscv64"})
        self.assertFalse([r for r in res if "arch" in r])


if __name__ == "__main__":
    unittest.main()
