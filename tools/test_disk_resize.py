#!/usr/bin/env python3
"""tools/test_disk_resize.py: a disk whose configuration changes under the
driver (issue: a hostile or broken device).

whole is booted on a 64 MiB image and writes a 40 MiB file; then QEMU's
monitor (Ctrl-A c on the -nographic console) shrinks the disk to 16 MiB
with block_resize, which raises virtio's configuration-change interrupt.
The kernel must say so with the new capacity and keep its own; reading the
file cold then fails with EIO where its blocks are past the new end, and
the shell goes on: no panic, no hang.
"""
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ext2img  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


class Console:
    def __init__(self, disk):
        self.proc = subprocess.Popen(
            [str(ROOT / "tools" / "run"), "--smp", "2", "--mem", "128M", "--disk", str(disk)],
            cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True)
        self.out = b""

    def expect(self, text, timeout=120):
        deadline = time.monotonic() + timeout
        while text.encode() not in self.out:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.proc.stdout], [], [], left)[0]:
                raise AssertionError(f"no {text!r} in {self.out[-1500:]!r}")
            chunk = os.read(self.proc.stdout.fileno(), 4096)
            if not chunk:
                raise AssertionError(f"EOF before {text!r}: {self.out[-1500:]!r}")
            self.out += chunk
        return self.out.decode(errors="replace")

    def type(self, text):
        self.proc.stdin.write(text.encode())
        self.proc.stdin.flush()

    def close(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        self.proc.stdin.close()
        self.proc.stdout.close()


class DiskResizeTest(unittest.TestCase):
    def test_shrunk_disk_fails_reads_past_its_end(self):
        with tempfile.TemporaryDirectory() as tmp:
            disk = Path(tmp) / "d.img"
            ext2img.make_image(disk, "64M")
            c = Console(disk)
            try:
                c.expect("whole> ")
                c.type('io -f -c "pwrite -S 0x5a 0 40m" -c fsync /big; drop_caches; '
                       'echo written\n')
                c.expect("\nwritten")
                c.type("\x01c")  # the monitor
                c.expect("(qemu)")
                c.type("block_resize d0 16M\n")
                c.expect("(qemu)")
                c.type("\x01c")
                out = c.expect("capacity 32768 sectors, was 131072")
                c.type("cksum /big; echo after-read\n")
                out = c.expect("\nafter-read")
                self.assertIn("Input/output error", out[out.rfind("cksum /big"):])
                self.assertNotIn("Oops", out)
                self.assertNotIn("panic", out)
                c.type("disks; echo still-here\n")
                out = c.expect("\nstill-here")
                self.assertIn("vda:", out)
            finally:
                c.close()


if __name__ == "__main__":
    unittest.main()
