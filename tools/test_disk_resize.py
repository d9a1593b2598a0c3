#!/usr/bin/env python3
"""tools/test_disk_resize.py: a disk whose configuration changes under the
driver (issue: a hostile or broken device).

whole is booted on a 64 MiB image and writes a 40 MiB file; then QEMU's
monitor (Ctrl-A c on the -nographic console) shrinks the disk to 16 MiB
with block_resize, which raises virtio's configuration-change interrupt.
The kernel must say so with the new capacity and keep its own; reading the
file cold then fails with EIO where its blocks are past the new end, and
the shell goes on: no panic, no hang, and no kernel report but ext2's of
the failed reads (tools/kconsole.py).
"""
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ext2img  # noqa: E402
from test_shell import Interactive  # noqa: E402

# The reads past the new end fail: ext2 says which (fs/ext2/read.c's
# "inode N: read error", buffer.c's "I/O error ... reading block").
READS_FAIL = (("ext2-error", "<boot>"),)


def text(out):
    return out.decode(errors="replace")


class DiskResizeTest(unittest.TestCase):
    def test_shrunk_disk_fails_reads_past_its_end(self):
        with tempfile.TemporaryDirectory() as tmp:
            disk = Path(tmp) / "d.img"
            ext2img.make_image(disk, "64M")
            c = Interactive(["--disk", str(disk)])
            try:
                c.expect("whole> ", timeout=120)
                c.type('io -f -c "pwrite -S 0x5a 0 40m" -c fsync /big; drop_caches; '
                       'echo written\n')
                c.expect("\nwritten", timeout=120)
                c.type("\x01c")  # the monitor
                c.expect("(qemu)", timeout=120)
                c.type("block_resize d0 16M\n")
                c.expect("(qemu)", timeout=120)
                c.type("\x01c")
                out = text(c.expect("capacity 32768 sectors, was 131072", timeout=120))
                c.type("cksum /big; echo after-read\n")
                out = text(c.expect("\nafter-read", timeout=120))
                self.assertIn("Input/output error", out[out.rfind("cksum /big"):])
                self.assertNotIn("panic", out)
                c.type("disks; echo still-here\n")
                out = text(c.expect("\nstill-here", timeout=120))
                self.assertIn("vda:", out)
                c.check_console(READS_FAIL)
            finally:
                c.close()


if __name__ == "__main__":
    unittest.main()
