#!/usr/bin/env python3
"""tools/test_gdb.py: tools/run --gdb and tools/gdb's helpers, in batch mode.

Each case boots whole halted (`tools/run --gdb`), lets gdb-multiarch run it
to a breakpoint where the answer is known, and checks what whole-tasks,
whole-pages and whole-locks print there:
  - a cold `cat /README` stopped in ext2_read_pages: the reader holds the
    file's invalidate_lock shared, its one page is cached, locked and not
    yet uptodate, and its backtrace runs from cmd_cat down to the fill;
  - the punch race reproducer stopped where the filler is seen waiting:
    punch holds i_rwsem and invalidate_lock exclusive (it sleeps at its race
    point), the filler is queued for invalidate_lock shared.
Both run on riscv64 and on aarch64 (`tools/run --arch aarch64 --gdb`,
`tools/gdb --arch aarch64`: its frame records and MPIDR hart ids).
"""

import os
import re
import signal
import socket
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

import ext2img
import kconsole
import wholerun

ROOT = Path(__file__).resolve().parent.parent


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def debug_session(run_args, gdb_args, timeout=180, arch="riscv64"):
    """Boot @arch halted with @run_args, run tools/gdb -batch @gdb_args;
    return gdb's output. QEMU is killed afterwards whatever happened; the
    console up to then must hold no kernel report (kconsole.check)."""
    env = dict(os.environ, WHOLE_GDB_PORT=str(free_port()))
    qemu = subprocess.Popen([wholerun.RUN, "--arch", arch, "--gdb", "--smp", "2",
                             "--mem", "128M"] + run_args, cwd=ROOT, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        port = int(env["WHOLE_GDB_PORT"])
        while True:  # the stub listens once QEMU is up
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or qemu.poll() is not None:
                    raise AssertionError("QEMU's gdb stub never listened")
                time.sleep(0.2)
        args = []
        for a in gdb_args + ["kill"]:
            args += ["-ex", a]
        res = subprocess.run([str(ROOT / "tools" / "gdb"), "--arch", arch,
                              "-batch"] + args,
                             cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=timeout, stdin=subprocess.DEVNULL)
    finally:
        if qemu.poll() is None:
            os.killpg(qemu.pid, signal.SIGKILL)
        qemu.wait()
        console = qemu.stdout.read().decode(errors="replace")
        qemu.stdout.close()
    kconsole.check(console)
    return res.stdout + res.stderr


def task_block(out, name):
    """The lines of task @name in whole-tasks' output (header first)."""
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if re.match(rf"^task {re.escape(name)}\(\d+\) ", line):
            block = [line]
            for more in lines[i + 1:]:
                if not more.startswith("  #"):
                    break
                block.append(more)
            return block
    raise AssertionError(f"no task {name} in:\n{out}")


class GdbTest(unittest.TestCase):
    def test_cold_read_stopped_in_the_fill(self):
        self.cold_read("riscv64")

    def test_cold_read_stopped_in_the_fill_aarch64(self):
        self.cold_read("aarch64")

    def test_punch_race_shows_holder_and_waiter(self):
        self.punch_race("riscv64")

    def test_punch_race_shows_holder_and_waiter_aarch64(self):
        self.punch_race("aarch64")

    def cold_read(self, arch):
        with tempfile.TemporaryDirectory() as tmp:
            disk = Path(tmp) / "gdb.img"
            ext2img.make_image(disk, "32M", ROOT / "tools" / "disk-skel")
            ino = subprocess.run(["debugfs", "-R", "stat /README", str(disk)],
                                 env=ext2img._ENV, capture_output=True, text=True).stdout
            ino = re.search(r"Inode: (\d+)", ino).group(1)
            out = debug_session(["--disk", str(disk), "-c", "cat /README"],
                                ["break filemap_add_pages", "continue",
                                 f"whole-locks {ino}", "delete",
                                 "break ext2_read_pages", "continue", "whole-tasks",
                                 f"whole-pages {ino}", f"whole-locks {ino}"],
                                arch=arch)
        # Inserting the page: invalidate_lock held shared by the reader.
        self.assertIn("hit Breakpoint 1, filemap_add_pages", out)
        self.assertIn(f"inode {ino}\ni_rwsem: free\ninvalidate_lock: held shared "
                      "by 1 task(s)\n  holder main(", out)
        self.assertIn("hit Breakpoint 2, ext2_read_pages", out)
        main = task_block(out, "main")
        self.assertRegex(main[0], r"^task main\(\d+\) runnable, running on cpu \d \(hart \d\)$")
        frames = [re.sub(r"^  #\d+ (\S+).*", r"\1", l) for l in main[1:]]
        self.assertEqual(frames[0], "ext2_read_pages")
        self.assertIn("filemap_read", frames)
        self.assertIn("cmd_cat", frames)
        flusher = task_block(out, "flusher")
        self.assertRegex(flusher[0], r"sleeping, last ran on cpu")
        self.assertRegex(flusher[2], r"schedule\+0x[0-9a-f]+ \(kernel/sched\.c:\d+\)")
        self.assertRegex(out, rf"inode {ino}: size \d+, 1 pages cached, 0 dirty\n"
                              r"  page 0: locked,lru refs \d+ at 0x[0-9a-f]+\n")
        # The lock covered the insertion only: the page lock carries the
        # read (docs/locking.md).
        self.assertIn(f"inode {ino}\ni_rwsem: free\ninvalidate_lock: free\n", out)

    def punch_race(self, arch):
        with tempfile.TemporaryDirectory() as tmp:
            disk = Path(tmp) / "race.img"
            ext2img.make_image(disk, "32M")
            out = debug_session(
                ["--disk", str(disk), "--append", "ktest.filter=race_punch root=vda"],
                ['break ktest_log if $_streq(fmt, "filler waits for invalidate_lock '
                 'held by %s")', "continue", "whole-tasks", "whole-locks"],
                arch=arch)
        punch = task_block(out, "punch")
        self.assertRegex(punch[0], r"^task punch\(\d+\) sleeping")
        self.assertTrue(any("vfs_fallocate" in l for l in punch), punch)
        filler = task_block(out, "filler")
        self.assertRegex(filler[0], r"^task filler\(\d+\) sleeping")
        self.assertTrue(any("filemap_invalidate_lock_shared" in l for l in filler), filler)
        self.assertRegex(out, r"inode \d+\n"
                              r"i_rwsem: held exclusive by punch\(\d+\)\n"
                              r"  holder punch\(\d+\) exclusive\n"
                              r"invalidate_lock: held exclusive by punch\(\d+\)\n"
                              r"  holder punch\(\d+\) exclusive\n"
                              r"  waiter filler\(\d+\) shared\n")


if __name__ == "__main__":
    unittest.main()
