#!/usr/bin/env python3
"""Host tests of tools/linuxguest.py and tools/linuxbench.c, the Linux side
of tools/bench --linux, without fetching or booting Linux (that is the
benchmark's job, not the test suite's): the benchmark program builds for
riscv64 Linux with -Werror, module load order follows each module's
.modinfo depends= (real ELF objects made here by the host's gcc), the
initramfs writer produces well-formed newc archives, and /init parses."""

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
        self.assertIn("/linuxbench $(cat /reps) /mnt $data $scratch", linuxguest.INIT)


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
