#!/usr/bin/env python3
"""tools/test_fs_copy.py: io copy_range against host xfs_io, io swapext
against the exchange it must make.

copy_range: the same xfs_io command lines run on host files (Linux's
copy_file_range) and on whole's image (one boot) must print the same lines
and leave the same bytes (debugfs dump), on 1, 2 and 4 KiB blocks.
swapext: the host's xfs_io does it on XFS only, so the oracle is the
exchange itself - each file afterwards holds the other's bytes (debugfs
dump) and block count (debugfs stat), and e2fsck -fn is clean; a swapext of
a file with itself changes nothing.
"""
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

import ext2img
from test_fs_shell import boot, dump, inode_info, normalize, sections, ENV

SETUP = [("src", ["pwrite -S 0x41 0 20000", "pwrite -S 0x5a 9000 300"]),
         ("src2", ["pwrite -S 0x62 0 7000"]),
         ("dst", ["pwrite -S 0x30 0 1000"])]
# (name, file, commands); {D} is the folder holding the files.
CASES = [
    ("whole", "dst", ["copy_range {D}/src"]),
    ("ranges", "dst", ["copy_range -s 100 -d 30000 -l 5000 {D}/src2",
                       "copy_range -s 8192 -d 40000 -l 9000 {D}/src"]),
    ("same_file", "dst", ["copy_range -s 4096 -d 0 -l 4096 {D}/dst",
                          "copy_range -s 0 -d 10 -l 100 {D}/dst"]),
    ("past_eof", "dst", ["copy_range -s 99999 {D}/src", "copy_range -l 0 {D}/src",
                         "copy_range -s 19990 -d 50000 -l 100 {D}/src"]),
    ("bad", "dst", ["copy_range {D}/nosuch", "copy_range {D}/."]),
]


def host_run(folder, file, cmds, opts=()):
    res = subprocess.run(["stdbuf", "-o0", "xfs_io", *opts]
                         + [a for c in cmds for a in ("-c", c.format(D=folder))]
                         + [str(folder / file)], env=ENV, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    return normalize(res.stdout.replace(str(folder), "").rstrip("\n").split("\n"))


def whole_line(file, cmds, opts=""):
    return f"io {opts} " + " ".join(f'-c "{c.format(D="")}"' for c in cmds) + f" /{file}"


class CopyRangeMatchesLinux(unittest.TestCase):
    def run_block(self, block):
        tmp = Path(tempfile.mkdtemp(prefix="fs-copy-"))
        self.addCleanup(shutil.rmtree, tmp)
        img, host = tmp / "img", tmp / "host"
        host.mkdir()
        ext2img.make_image(img, "8M", block=block)
        script, expect = [], {}
        for file, cmds in SETUP:
            host_run(host, file, cmds, ("-f",))
            script.append(whole_line(file, cmds, "-f"))
        for name, file, cmds in CASES:
            expect[name] = host_run(host, file, cmds)
            script += [f"echo @@{name}", whole_line(file, cmds)]
        _, lines = boot(img, "; ".join(script))
        got = sections(lines)
        ext2img.check_image(img)
        for name, _, _ in CASES:
            with self.subTest(case=name, block=block):
                self.assertEqual(normalize(got.get(name, ["(no output)"])),
                                 [l for l in expect[name] if l], "\n".join(lines))
        for file, _ in SETUP:
            with self.subTest(file=file, block=block):
                self.assertEqual(dump(img, f"/{file}", tmp / "out"),
                                 (host / file).read_bytes())

    def test_copy_range_4k(self):
        self.run_block(4096)

    def test_copy_range_2k(self):
        self.run_block(2048)

    def test_copy_range_1k(self):
        self.run_block(1024)


class SwapextExchanges(unittest.TestCase):
    def test_swapext(self):
        tmp = Path(tempfile.mkdtemp(prefix="fs-swap-"))
        self.addCleanup(shutil.rmtree, tmp)
        img = tmp / "img"
        ext2img.make_image(img, "8M", block=1024)
        # a: three blocks and a hole, reaching into an indirect block; b: small
        script = "; ".join([
            whole_line("a", ["pwrite -S 0x61 0 5000", "pwrite -S 0x62 20000 3000"], "-f"),
            whole_line("b", ["pwrite -S 0x7a 0 1500"], "-f"),
            "sync"])
        boot(img, script)
        before = {f: (dump(img, f"/{f}", tmp / "o"), inode_info(img, f"/{f}"))
                  for f in ("a", "b")}
        status, lines = boot(img, 'io -c "swapext /b" /a; io -c "swapext /a" /a; '
                                  'io -c "swapext /nosuch" /a')
        self.assertEqual(lines[-2:], ["swap extents: Invalid argument",
                                      "/nosuch: No such file or directory"], lines)
        ext2img.check_image(img)
        for f, other in (("a", "b"), ("b", "a")):
            data, (ino, blocks, mapped) = dump(img, f"/{f}", tmp / "o"), inode_info(img, f"/{f}")
            self.assertEqual(data, before[other][0], f"/{f} holds /{other}'s bytes")
            self.assertEqual(ino, before[f][1][0], "names keep their inodes")
            self.assertEqual(blocks, before[other][1][1])
            self.assertEqual(mapped, before[other][1][2])


if __name__ == "__main__":
    unittest.main()
