#!/usr/bin/env python3
"""Host tests of tools/run and the kernel's shell on the serial console.

They boot the real kernel (build/whole.elf, built by tools/setup): -c runs
commands and exits with the last one's status; typed input reaches the
shell through the UART's receive interrupt and the line editor.
"""
import os
import select
import subprocess
import time
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUN = [str(ROOT / "tools" / "run"), "--smp", "2", "--mem", "128M"]


def run_c(commands, timeout=120):
    return subprocess.run(RUN + ["-c", commands], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def command_lines(stdout):
    """The lines the commands printed: after the kernel's line that quotes
    the boot arguments (which echo the command), without log lines."""
    lines = stdout.replace("\r", "").split("\n")
    starts = [i for i, l in enumerate(lines) if "bootargs \"" in l]
    if not starts:
        raise AssertionError(f"no bootargs line in {stdout[-800:]!r}")
    return [l for l in lines[starts[0] + 1:] if not l.startswith("[")]


class Interactive:
    """tools/run with a pipe for stdin; read until a string shows up."""

    def __init__(self):
        self.proc = subprocess.Popen(RUN, cwd=ROOT, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self.out = b""

    def expect(self, text, timeout=60):
        deadline = time.monotonic() + timeout
        while text.encode() not in self.out:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.proc.stdout], [], [], left)[0]:
                raise AssertionError(f"no {text!r} in {self.out[-600:]!r}")
            chunk = os.read(self.proc.stdout.fileno(), 4096)
            if not chunk:
                raise AssertionError(f"EOF before {text!r}: {self.out[-600:]!r}")
            self.out += chunk
        return self.out

    def type(self, text):
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def close(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 9)
        self.proc.wait()
        self.proc.stdin.close()
        self.proc.stdout.close()


class ShellTest(unittest.TestCase):
    def test_c_runs_commands_and_exits_with_last_status(self):
        ok = run_c("echo hello-from-c; uptime")
        self.assertEqual(ok.returncode, 0, ok.stdout[-800:])
        out = command_lines(ok.stdout)
        self.assertEqual(out[0], "hello-from-c", out)
        self.assertRegex(out[1], r"^up \d+\.\d{3} s$")
        bad = run_c("echo first; no-such-command")
        self.assertEqual(bad.returncode, 127, bad.stdout[-800:])
        out = command_lines(bad.stdout)
        self.assertEqual(out[0], "first", out)
        self.assertTrue(
            out[1].startswith("no-such-command: command not found"), out)

    def test_c_longer_than_a_typed_line_runs_whole(self):
        # A typed line holds 255 characters; -c is not cut there.
        res = run_c("echo " + "x" * 300 + "; echo long-c-end")
        self.assertEqual(res.returncode, 0, res.stdout[-800:])
        self.assertEqual(command_lines(res.stdout)[:2],
                         ["x" * 300, "long-c-end"])

    def test_disks_lists_the_attached_disk(self):
        res = run_c("disks")
        self.assertEqual(res.returncode, 0, res.stdout[-800:])
        # One line per disk, "vda: N sectors (...)", as `disks` prints it.
        out = command_lines(res.stdout)
        self.assertRegex(out[0], r"^vda: \d+ sectors \(", out)

    def test_typed_line_is_edited_and_run(self):
        sh = Interactive()
        try:
            sh.expect("whole> ")
            # "ecx", Backspace, "ho", Home, End, then the words: "echo typed-ok"
            sh.type("ecx\x7fho\x1b[H\x1b[F typed-ok\r")
            sh.expect("typed-ok\r\nwhole> ")
            sh.type("poweroff\r")
            self.assertEqual(sh.proc.wait(timeout=60), 0)
        finally:
            sh.close()


if __name__ == "__main__":
    unittest.main()
