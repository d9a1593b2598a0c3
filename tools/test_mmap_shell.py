#!/usr/bin/env python3
"""Host test: `io`'s mapping subcommands against xfs_io on Linux.

The same xfs_io command lines (mmap, mwrite, mread, msync, madvise,
munmap, mixed with pwrite/pread/truncate) run on a Linux file and, in one
boot, through whole's `io` on a fresh ext2 image (1 and 4 KiB blocks).
The printed lines must be xfs_io's (timings aside), the bytes left on the
image (debugfs dump) Linux's, and e2fsck -fn clean. None of the cases
touches a page past EOF: xfs_io would die of SIGBUS there (whole ends only
the access's task: tests/mmap_test.c checks that). The boot, dump and
xfs_io-output helpers are tools/test_fs_shell.py's.
"""
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ext2img  # noqa: E402
import test_fs_shell as shell  # noqa: E402

# (case, file, io options, commands)
CASES = [
    # Stores into a hole through a shared mapping, then back through read.
    ("hole", "hole", "-f",
     ["truncate 12k", "mmap -rw 0 12k", "mwrite -S 0x41 4096 100",
      "mread -v 4090 16", "msync -s", "munmap", "pread -v 4090 16"]),
    # Over written data, part of a page and across pages; the default seed.
    ("over", "over", "-f",
     ["pwrite -S 0x11 0 8k", "mmap 0 8k", "mwrite -S 0x22 100 5000",
      "mwrite 7000 10", "msync -s 0 8k", "mread -v 5090 20",
      "mread -v 6995 20", "munmap", "pread -v 5090 20"]),
    # A mapping from a file offset: file-relative and mapping-relative
    # dumps, ranges outside it refused, WILLNEED on it.
    ("offset", "offset", "-f",
     ["pwrite -S 0x33 0 16k", "mmap -rw 4k 8k", "mwrite -S 0x44 8k 10",
      "mread -f 8k 16", "mread -v 8k 16", "mread 0 1", "mread 20k 1",
      "msync -s", "madvise -w 4k 8k", "munmap", "pread -v 8k 16"]),
    # The last page of the file: bytes past EOF read as zeroes and a
    # store there never reaches the file.
    ("eof", "eof", "-f",
     ["pwrite -S 0x55 0 5000", "mmap -rw 0 8k", "mread -v 4990 20",
      "mwrite -S 0x66 4998 100", "msync -s", "munmap", "pread -v 4990 20",
      "truncate 6000", "pread -v 4990 20"]),
    # A second mapping becomes current; munmap drops the current one.
    ("two", "two", "-f",
     ["pwrite -S 0x77 0 8k", "mmap -r 0 4k", "mmap -rw 4k 4k",
      "mwrite -S 0x78 4k 1", "munmap", "mread -v 0 2", "munmap", "munmap",
      "pread -v 4096 2"]),
    # Bad arguments: Linux's errno and xfs_io's messages.
    ("errors", "eof", "",
     ["mmap 100 4k", "mmap 0 0", "munmap", "mread", "mwrite 0 1", "msync"]),
    ("readonly", "eof", "-r",
     ["mmap 0 4k", "mmap -rw 0 4k", "mmap -r 0 4k", "mread -v 0 4"]),
]


# "[000] 0x7f28e24c8000 - 0x7f28e24c9000 r--  %14s (0 : 4096)": the
# addresses differ, and so does the padding (xfs_io pads the host path).
ADDRS = re.compile(r"0x[0-9a-f]+ - 0x[0-9a-f]+ (\S+) +")


def normalize(lines):
    return [ADDRS.sub(r"ADDR - ADDR \1 ", line)
            for line in shell.normalize(lines)]


class MmapMatchesLinux(unittest.TestCase):
    def run_cases(self, block):
        tmp = Path(tempfile.mkdtemp(prefix="mmap-shell-"))
        self.addCleanup(shutil.rmtree, tmp)
        img, host = tmp / "img", tmp / "host"
        host.mkdir()
        ext2img.make_image(img, "8M", block=block)

        script, expect, files = [], {}, set()
        for name, file, opts, cmds in CASES:
            if opts == "-f":
                files.add(file)
            res = subprocess.run(["stdbuf", "-o0", "xfs_io"] + opts.split()
                                 + [a for c in cmds for a in ("-c", c)]
                                 + [str(host / file)], env=shell.ENV,
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True)
            self.assertGreaterEqual(res.returncode, 0, res.stdout)
            out = res.stdout.replace(str(host), "")
            expect[name] = normalize(out.rstrip("\n").split("\n"))
            script.append(f"echo @@{name}")
            script.append(f"io {opts} " + " ".join(f'-c "{c}"' for c in cmds)
                          + f" /{file}")
        status, lines = shell.boot(img, "; ".join(script))
        got = shell.sections(lines)
        self.assertEqual(list(got), [c[0] for c in CASES], "\n".join(lines))
        ext2img.check_image(img)
        for name, _, _, _ in CASES:
            with self.subTest(case=name, block=block):
                self.assertEqual(normalize(got[name]), expect[name])
        for file in sorted(files):
            with self.subTest(file=file, block=block):
                data = shell.dump(img, f"/{file}", tmp / "out")
                self.assertEqual(data, (host / file).read_bytes(),
                                 f"{file}: bytes on the image differ from Linux's")

    def test_mmap_4k_blocks(self):
        self.run_cases(4096)

    def test_mmap_1k_blocks(self):
        self.run_cases(1024)


if __name__ == "__main__":
    unittest.main()
