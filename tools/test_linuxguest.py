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

        def silent_guest(*args):
            boots.append(args)
            return ["sleep", "600"]

        with tempfile.NamedTemporaryFile() as initrd, mock.patch.multiple(
                linuxguest, qemu_cmd=silent_guest, fetch=lambda: None,
                INITRD=Path(initrd.name), BOOT_TIMEOUT=1):
            t0 = time.monotonic()
            with self.assertRaises(SystemExit) as cm:
                linuxguest.run(reps=1)
        self.assertIn("never reached /init", str(cm.exception))
        self.assertEqual(len(boots), linuxguest.BOOT_TRIES)
        self.assertLess(time.monotonic() - t0, 60)


if __name__ == "__main__":
    unittest.main()
