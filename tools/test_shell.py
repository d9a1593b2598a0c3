#!/usr/bin/env python3
"""Host tests of tools/run and the kernel's shell on the serial console.

They boot the real kernel (build/whole.elf, built by tools/setup): -c runs
commands and exits with the last one's status; typed input reaches the
shell through the UART's receive interrupt and the line editor. Every
console is checked for kernel reports (tools/wholerun.py).
"""
import os
import re
import select
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import ext2img  # noqa: E402
import kconsole  # noqa: E402
import wholerun  # noqa: E402

ARGS = ["--smp", "2", "--mem", "128M"]


def run_c(commands, timeout=120, extra=(), allow=()):
    return wholerun.run([*ARGS, *extra, "-c", commands], timeout=timeout,
                        allow=allow)


def console(res):
    """The console lines after the kernel's bootargs line, "\r" removed."""
    lines = res.stdout.replace("\r", "").split("\n")
    for i, line in enumerate(lines):
        if re.match(r"^\[ *[0-9.]+\] whole: .*bootargs ", line):
            out = lines[i + 1:]
            while out and out[-1] == "":
                out.pop()
            return out
    raise AssertionError(f"no bootargs line; console:\n{res.stdout[-3000:]}")


def command_lines(res):
    """What the commands printed: console(res) without kernel log lines."""
    return [l for l in console(res) if not l.startswith("[")]


def posix_sh(line):
    """(status, output lines) of POSIX sh running @line: the oracle for how
    the shell splits a line, for the part of sh it takes."""
    res = subprocess.run(["sh", "-c", line], capture_output=True, text=True,
                         stdin=subprocess.DEVNULL)
    return res.returncode, res.stdout.splitlines()


class Interactive:
    """tools/run (with @args added, e.g. ["--disk", IMG]) with a pipe for
    stdin; read until a string shows up."""

    def __init__(self, args=()):
        self.proc = subprocess.Popen([wholerun.RUN, *ARGS, *args], cwd=ROOT,
                                     stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT,
                                     start_new_session=True)
        self.out = b""

    def expect(self, text, timeout=60):
        deadline = time.monotonic() + timeout
        while text.encode() not in self.out:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.proc.stdout], [], [], left)[0]:
                raise AssertionError(f"no {text!r} in {self.out[-1500:]!r}")
            chunk = os.read(self.proc.stdout.fileno(), 4096)
            if not chunk:
                raise AssertionError(f"EOF before {text!r}: {self.out[-1500:]!r}")
            self.out += chunk
        return self.out

    def wait(self, timeout=60, allow=()):
        """Wait for QEMU to exit; check the whole console for kernel
        reports (kconsole.check, @allow as there). Return: its status."""
        status = self.proc.wait(timeout=timeout)
        self.out += self.proc.stdout.read()
        self.check_console(allow)
        return status

    def check_console(self, allow=()):
        """Kernel reports in what the console printed so far fail."""
        kconsole.check(self.out.decode(errors="replace"), allow)

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
        out = command_lines(ok)
        self.assertEqual(out[0], "hello-from-c", out)
        self.assertRegex(out[1], r"^up \d+\.\d{3} s$")
        bad = run_c("echo first; no-such-command")
        self.assertEqual(bad.returncode, 127, bad.stdout[-800:])
        out = command_lines(bad)
        self.assertEqual(out[0], "first", out)
        self.assertTrue(
            out[1].startswith("no-such-command: command not found"), out)

    def test_c_longer_than_a_typed_line_runs_whole(self):
        # A typed line holds 1023 characters; -c is not cut there.
        res = run_c("echo " + "x" * 300 + "; echo long-c-end")
        self.assertEqual(res.returncode, 0, res.stdout[-800:])
        self.assertEqual(command_lines(res)[:2],
                         ["x" * 300, "long-c-end"])

    def test_quoting_matches_posix_sh(self):
        # ';' inside quotes or after a backslash does not end a command;
        # quotes anywhere in a word; "" is an empty word. (No backslash
        # reaches echo: dash's echo would interpret it.)
        line = ("echo \"a; b\" 'c;d' e\\;f \"x\"'y'z \"\" end; "
                "echo 'io -c \"pwrite 0 1; fsync\" f'; echo \"it's\" 'say \"hi\"'")
        want_status, want = posix_sh(line)
        res = run_c(line)
        self.assertEqual(console(res), want)
        self.assertEqual(res.returncode, want_status)

    def test_redirection_matches_posix_sh(self):
        # '>' and '>>' as sh takes them, with sh in a scratch folder as the
        # oracle: the files' contents, and what stays on the console.
        lines = ["echo one > f; echo two >> f; echo a>g b; >h; echo c >> h",
                 "cat f; cat g; cat h; echo '>' \">\" \\> i"]
        with tempfile.TemporaryDirectory() as tmp:
            sh = subprocess.run(["sh", "-c", "; ".join(lines)], cwd=tmp,
                                capture_output=True, text=True,
                                stdin=subprocess.DEVNULL)
            disk = Path(tmp) / "disk.img"
            ext2img.make_image(disk, "16M")
            res = wholerun.run([*ARGS, "--disk", disk, "-c",
                                "cd /; " + "; ".join(lines)])
            self.assertEqual(res.returncode, sh.returncode, res.stdout[-800:])
            self.assertEqual(console(res), sh.stdout.splitlines())
            ext2img.check_image(disk)

    def test_redirection_errors_run_nothing(self):
        res = run_c("echo a > ; echo ran")
        self.assertEqual(res.returncode, 2)
        self.assertEqual(console(res),
                         ["shell: '>' with no file name after it; "
                          "nothing was run"])

    def test_final_semicolon_keeps_the_status(self):
        # After a final ';' the status is the last command's, as sh's
        # (127: command not found).
        line = "echo a; no-such-command ;"
        want_status, _ = posix_sh(line)
        self.assertEqual(want_status, 127)
        self.assertEqual(run_c(line).returncode, want_status)

    def test_bad_quoting_runs_nothing(self):
        # sh refuses the whole line (status 2) before running its first
        # command; so does whole, and it says why.
        for line, why in (("echo first; echo \"abc", "unterminated \" quote"),
                          ("echo first; echo 'abc", "unterminated ' quote"),
                          ("echo first;; echo b", "';' with no command before it"),
                          ("; echo first", "';' with no command before it")):
            with self.subTest(line=line):
                want_status, want = posix_sh(line)
                self.assertEqual((want_status, want), (2, []))
                res = run_c(line)
                self.assertEqual(console(res), [f"shell: {why}; nothing was run"])
                self.assertEqual(res.returncode, want_status)

    def test_long_lines_and_many_words_run_whole(self):
        # 2000 words, then a word of 10,000 characters: no limit cuts them.
        line = ("echo " + " ".join(f"w{i}" for i in range(2000))
                + "; echo " + "x" * 10000 + "; echo end")
        want_status, want = posix_sh(line)
        res = run_c(line)
        self.assertEqual(console(res), want)
        self.assertEqual(res.returncode, want_status)

    def test_extra_words_are_refused(self):
        for line, usage in (("uptime now", "uptime"), ("test a b", "test [GLOB]"),
                            ("poweroff now", "poweroff"), ("disks vda", "disks"),
                            ("sync now", "sync [-f FILE]"), ("drop_caches 3", "drop_caches"),
                            ("bench blk vda vdb",
                             "bench blk [vdX]  (overwrites the first 64 MiB)"),
                            ("bench fs / /", "bench fs [DIR]  (a 64 MiB file and "
                             "1000 files in DIR)")):
            with self.subTest(line=line):
                res = run_c(line)
                self.assertEqual(console(res), [f"usage: {usage}"])
                self.assertEqual(res.returncode, 2)
        # poweroff with a word did not power off: the next command ran.
        res = run_c("poweroff now; echo still-here")
        self.assertEqual(console(res), ["usage: poweroff", "still-here"])

    def test_banner_says_what_booted(self):
        """Version from git, harts, memory, disks, root and mode, in both modes."""
        version = subprocess.run(["git", "describe", "--always", "--dirty"], cwd=ROOT,
                                 capture_output=True, text=True).stdout.strip() or "unknown"
        for extra, mode in (([], "fixed (fill paths take invalidate_lock shared)"),
                            (["--legacy"], "legacy (invalidate_lock=off: fill paths unlocked)")):
            res = run_c("uptime", extra=extra)
            self.assertEqual(res.returncode, 0, res.stdout[-800:])
            lines = [re.sub(r"^\[ *[0-9.]+\] ", "", l)
                     for l in res.stdout.replace("\r", "").split("\n")]
            start = next(i for i, l in enumerate(lines) if l.startswith("whole "))
            banner = lines[start:start + 6]
            self.assertRegex(banner[0], rf"^whole {re.escape(version)} \(\d{{4}}-\d\d-\d\d\), riscv64$")
            self.assertEqual(banner[1], "  harts: 2 of 2 online; memory: 128 MiB")
            self.assertRegex(banner[2], r"^  disk vda: 128 MiB, virtio-mmio (legacy|modern), \S*flush")
            self.assertEqual(banner[3], "  root: vda (ext2), 4096-byte blocks, read-write")
            self.assertEqual(banner[4], "  mode: " + mode)
            self.assertRegex(banner[5], r"^whole: 2 harts, 128 MiB RAM, bootargs ")

    def test_harts_past_the_table_are_reported(self):
        res = wholerun.run(["--smp", "10", "--mem", "128M", "-c", "uptime"],
                           timeout=240)
        self.assertEqual(res.returncode, 0, res.stdout[-800:])
        self.assertIn("platform: the device tree has 10 harts; whole runs on the "
                      "first 8 (MAX_CPUS), the other 2 stay stopped", res.stdout)
        self.assertIn("whole: 8 harts", res.stdout)

    def test_early_warning_reaches_the_console(self):
        """A malformed boot argument read before the UART is up (printk's
        loglevel=, at INIT_LEVEL_EARLY) is still reported, and ignored:
        the info lines after it are printed."""
        res = run_c("uptime", extra=["--append", "loglevel=abc"],
                    allow=(("bootargs", "*"),))
        self.assertEqual(res.returncode, 0, res.stdout[-800:])
        self.assertRegex(res.stdout, r"\] bootargs: ignoring malformed loglevel=abc\r?\n")
        self.assertIn("whole: 2 harts, 128 MiB RAM", res.stdout)

    def test_disks_lists_the_attached_disk(self):
        res = run_c("disks")
        self.assertEqual(res.returncode, 0, res.stdout[-800:])
        # One line per disk, "vda: N sectors (...)", as `disks` prints it.
        out = command_lines(res)
        self.assertRegex(out[0], r"^vda: \d+ sectors \(", out)

    def test_pci_disk_boots_to_the_shell(self):
        """--pci: the disk is a virtio-blk-pci function, root on it."""
        res = run_c("disks", extra=["--pci"])
        self.assertEqual(res.returncode, 0, res.stdout[-800:])
        self.assertRegex(res.stdout, r"\n(\[ *[0-9.]+\] )?  disk vda: 128 MiB, "
                                     r"virtio-pci modern, ")
        self.assertIn("  root: vda (ext2)", res.stdout)
        self.assertRegex(command_lines(res)[0], r"^vda: \d+ sectors \(")

    def test_aia_pci_disk_gets_msix_from_the_imsic(self):
        """--aia --pci: QEMU virt with the AIA; the disk's MSI-X vectors
        are IMSIC identities, the root mounts on it."""
        res = run_c("disks", extra=["--aia", "--pci"])
        self.assertEqual(res.returncode, 0, res.stdout[-800:])
        self.assertIn("aia: IMSIC files at ", res.stdout)
        self.assertRegex(res.stdout, r"virtio-pci@\S+: MSI-X, \d+ vectors "
                                     r"\(IMSIC identities \d+-\d+\)")
        self.assertIn("  root: vda (ext2)", res.stdout)

    def test_typed_line_is_edited_and_run(self):
        sh = Interactive()
        try:
            sh.expect("whole> ")
            # "ecx", Backspace, "ho", Home, End, then the words: "echo typed-ok"
            sh.type("ecx\x7fho\x1b[H\x1b[F typed-ok\r")
            sh.expect("typed-ok\r\nwhole> ")
            sh.type("poweroff\r")
            self.assertEqual(sh.wait(), 0)
        finally:
            sh.close()

    def test_typed_line_too_long_is_refused(self):
        # 1100 characters do not fit a typed line (1023): the line is
        # refused whole and the shell goes on. They arrive faster than the
        # shell reads them (more than the UART's 256-byte ring): none of
        # them, nor the Enter after them, may be lost.
        sh = Interactive()
        try:
            sh.expect("whole> ")
            sh.type("echo " + "y" * 1100 + "; poweroff\r")
            sh.expect("shell: line longer than 1023 characters; nothing was run\r\nwhole> ")
            sh.type("echo still-here\r")
            sh.expect("still-here\r\nwhole> ")
            sh.type("poweroff\r")
            self.assertEqual(sh.wait(), 0)
        finally:
            sh.close()


if __name__ == "__main__":
    unittest.main()
