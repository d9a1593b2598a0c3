#!/usr/bin/env python3
"""Host tests of the shell's file commands against external oracles.

Each test boots the real kernel (tools/run -c) once on a fresh small ext2
image and checks what it printed and what it left on the image with tools
that are not ours (docs/design.md, "Correctness oracles"):

- io: the same xfs_io commands run on a Linux file print the same lines
  (timings aside) and leave the same bytes (debugfs dump); the blocks the
  image maps are the ones the writes touched (debugfs stat), holes stay holes.
- cksum: the host's POSIX cksum, byte for byte.
- ls, cat, mkdir, mv, rm, rmdir, stat: tools/test_fs_tree.py.

Every image must pass e2fsck -fn strictly (tools/ext2img.py's check), and
every console must hold no kernel report (tools/wholerun.py).
tools/test_fs_tail.py reuses these helpers for random truncate/extend runs.
"""
import errno
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import ext2img  # noqa: E402
import wholerun  # noqa: E402

ARGS = ["--smp", "2", "--mem", "128M"]
SIX_MONTHS = 31556952 // 2  # GNU ls's, as app/shell_ls.c
ENV = ext2img._ENV
# "5 KiB, 2 ops; 0.0028 sec (1.721 MiB/sec and 721.7871 ops/sec)"; the rates
# differ, and xfs_io prints -nan for them after 0 ops.
TIMING = re.compile(r"^(.*, \d+ ops); [0-9.]+ sec \(\S+ \S+/sec and \S+ ops/sec\)$")


def console(img, commands, timeout=120, allow=(), env=None, fs="ext2"):
    """Run @commands on @img mounted as @fs; return (status, every console
    line, and tools/run's stderr: tools/setup's build messages). A kernel
    report on the console fails, unless @allow expects it
    (tools/wholerun.py)."""
    res = wholerun.run([*ARGS, "--fs", fs, "--disk", img, "-c", commands],
                       timeout=timeout, allow=allow, env=env)
    # The console is QEMU's stdout; stderr has tools/setup's build messages.
    return res.returncode, res.stdout.replace("\r", "").split("\n"), res.stderr


def boot(img, commands, timeout=120, allow=(), fs="ext2"):
    """Run @commands on @img; return (status, console lines after the bootargs line)."""
    status, lines, stderr = console(img, commands, timeout, allow, fs=fs)
    for i, line in enumerate(lines):
        if re.match(r"^\[ *[0-9.]+\] whole: .*bootargs ", line):
            out = lines[i + 1:]
            while out and out[-1] == "":
                out.pop()
            return status, out
    text = "\n".join(lines)
    raise AssertionError(f"no bootargs line; console:\n{text[-3000:]}\n{stderr[-1000:]}")


def debugfs(img, request):
    res = subprocess.run(["debugfs", "-R", request, str(img)], env=ENV,
                         capture_output=True, text=True)
    if res.returncode:
        raise AssertionError(f"debugfs -R {request!r}: {res.stderr}")
    return res.stdout, res.stderr


def dump(img, path, out):
    if os.path.exists(out):
        os.unlink(out)
    _, err = debugfs(img, f"dump {path} {out}")
    if not os.path.exists(out):
        raise AssertionError(f"debugfs dump {path}: {err}")
    return Path(out).read_bytes()


def inode_info(img, path):
    """(inode number, i_blocks in 512-byte units, mapped logical blocks) of @path."""
    out, err = debugfs(img, f"stat {path}")
    m = re.search(r"^Inode: (\d+) ", out, re.M)
    if not m:
        raise AssertionError(f"debugfs stat {path}: {out}{err}")
    count = int(re.search(r"Blockcount: (\d+)", out).group(1))
    mapped = set()
    tail = out.split("BLOCKS:", 1)[1] if "BLOCKS:" in out else ""
    for a, b in re.findall(r"\((\d+)(?:-(\d+))?\):", tail):
        mapped.update(range(int(a), int(b or a) + 1))
    return int(m.group(1)), count, mapped


def normalize(lines):
    """xfs_io's lines with the timing part (after "N ops") cut off."""
    return [TIMING.sub(r"\1", line) for line in lines]


def sections(lines, marker="@@"):
    """Split console lines at `echo @@NAME` markers: {NAME: lines}."""
    out, cur = {}, None
    for line in lines:
        if line.startswith(marker):
            cur = line[len(marker):]
            out[cur] = []
        elif cur is not None:
            out[cur].append(line)
    return out


def cvtnum(s):
    m = re.fullmatch(r"(\d+)([kmg]?)", s)
    return int(m.group(1)) << {"": 0, "k": 10, "m": 20, "g": 30}[m.group(2)]


def expected_mapped(cmds, bsize):
    """Logical blocks ext2 maps after @cmds: those a pwrite covered, less
    those a truncate cut off (truncate up and pread allocate nothing)."""
    mapped = set()
    for cmd in cmds:
        words = cmd.split()
        if words[0] == "pwrite":
            off, length = cvtnum(words[-2]), cvtnum(words[-1])
            if length:
                mapped.update(range(off // bsize, (off + length - 1) // bsize + 1))
        elif words[0] == "truncate":
            keep = -(-cvtnum(words[1]) // bsize)
            mapped = {b for b in mapped if b < keep}
    return mapped


# xfs_io runs: (case name, file, io options, commands). Runs with -f end
# with stat; the others (read-only, missing file) check error messages.
IO_CASES = [
    ("fill", "fill", "-f", ["pwrite -S 0xab 0 8k", "pread -v 4080 40"]),
    ("overlap", "overlap", "-f",
     ["pwrite -S 0xab 0 8k", "pwrite -S 0x12 3000 5000",
      "pread -v 0 64", "pread -v 2990 32", "pread -v 7990 32"]),
    ("shrink", "shrink", "-f",
     ["pwrite -S 0x12 3000 5000", "truncate 5000", "pread -v 4990 32", "pread 0 8k"]),
    ("hole", "hole", "-f",
     ["pwrite -S 0x5a 0 100", "pwrite -S 0x41 20000 100", "pread -v 90 32",
      "pread -v 4090 16", "pread -v 19990 40", "pread 0 30000"]),
    ("grow", "grow", "-f",
     ["pwrite 0 10", "truncate 12k", "pread -v 4094 4",
      "pwrite -S 0x7e -b 1000 5000 9000", "fsync", "pread -v 4990 20",
      "pread -v 12280 16"]),
    ("cut", "cut", "-f",
     ["pwrite -S 0x33 0 70k", "truncate 13k", "pwrite -S 0x44 20k 1",
      "truncate 0", "pwrite -S 0x55 1000 1", "pread -v 990 16"]),
    ("eof", "eof", "-f",
     ["pwrite -S 0x61 0 4097", "pread -v 4090 100", "pread 5000 10", "pwrite 0 0"]),
    # Buffers that are not a multiple of 16 bytes: the dump restarts its
    # lines at each buffer's offset, as xfs_io's does.
    ("bsize", "bsize", "-f",
     ["pwrite -S 0x31 -b 1000 10 3000", "pread -v -b 1000 0 2100",
      "pread -b 1000 -v 990 40", "pread -v 3000 100"]),
    # Across the single/double indirect boundary of 1 KiB blocks (268 KiB),
    # then a block far out that needs a new double-indirect chain.
    ("big", "big", "-f",
     ["pwrite -S 0x77 100000 300k", "pread -v 274420 32", "truncate 200000",
      "pread -v 199990 20", "pwrite -S 0x10 16m 1", "pread -v 16777200 32"]),
    ("readonly", "eof", "-r", ["pwrite 0 1", "pread -v 0 2", "truncate 0", "fsync"]),
    ("missing", "missing", "", ["pread 0 1"]),
]


class IoMatchesLinux(unittest.TestCase):
    def run_cases(self, block):
        tmp = Path(tempfile.mkdtemp(prefix="fs-shell-io-"))
        self.addCleanup(shutil.rmtree, tmp)
        img, host = tmp / "img", tmp / "host"
        host.mkdir()
        ext2img.make_image(img, "8M", block=block)

        script, expect, writes = [], {}, {}
        for name, file, opts, cmds in IO_CASES:
            if opts == "-f":
                cmds = cmds + ["stat"]
                writes[file] = writes.get(file, []) + cmds
            # xfs_io says what failed on stderr; unbuffered stdout keeps
            # the lines in the order the console shows them.
            res = subprocess.run(["stdbuf", "-o0", "xfs_io"] + opts.split()
                                 + [a for c in cmds for a in ("-c", c)]
                                 + [str(host / file)], env=ENV,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 text=True)
            out = res.stdout.replace(str(host), "")
            expect[name] = normalize(out.rstrip("\n").split("\n"))
            script.append(f"echo @@{name}")
            script.append(f"io {opts} " + " ".join(f'-c "{c}"' for c in cmds) + f" /{file}")
        status, lines = boot(img, "; ".join(script))
        got = sections(lines)
        self.assertEqual(list(got), [c[0] for c in IO_CASES], "\n".join(lines))
        # The last run (a missing file without -f) fails.
        self.assertEqual(status, 1, "\n".join(lines))
        ext2img.check_image(img)

        inodes = {file: inode_info(img, f"/{file}") for file in writes}
        for name, file, opts, cmds in IO_CASES:
            with self.subTest(case=name, block=block):
                want = []
                for line in expect[name]:
                    if line.startswith("stat.ino = "):
                        line = f"stat.ino = {inodes[file][0]}"
                    elif line.startswith("stat.blocks = "):
                        line = f"stat.blocks = {inodes[file][1]}"
                    want.append(line)
                self.assertEqual(normalize(got[name]), want)
        for file, cmds in writes.items():
            with self.subTest(file=file, block=block):
                data = dump(img, f"/{file}", tmp / "out")
                self.assertEqual(data, (host / file).read_bytes(),
                                 f"{file}: bytes on the image differ from Linux's")
                self.assertEqual(inodes[file][2], expected_mapped(cmds, block),
                                 f"{file}: mapped blocks")
        out, _ = debugfs(img, "ls -p /")
        self.assertNotIn("/missing/", out)

    def test_io_4k_blocks(self):
        self.run_cases(4096)

    def test_io_2k_blocks(self):
        self.run_cases(2048)

    def test_io_1k_blocks(self):
        self.run_cases(1024)


class CksumMatchesPosix(unittest.TestCase):
    def test_cksum_sizes(self):
        tmp = Path(tempfile.mkdtemp(prefix="fs-shell-cksum-"))
        self.addCleanup(shutil.rmtree, tmp)
        skel, img = tmp / "skel", tmp / "img"
        (skel / "d").mkdir(parents=True)
        rnd = random.Random(1234)
        names = []
        for size in (0, 1, 4095, 4096, 4097, 1 << 20):
            names.append(f"s{size}")
            (skel / names[-1]).write_bytes(rnd.randbytes(size))
        names.append("d/text")
        (skel / "d/text").write_bytes(b"The quick brown fox\n" * 1000)
        # A 3 MiB file that is mostly hole (mke2fs -d keeps holes).
        with open(skel / "sparse", "wb") as f:
            f.seek(2 << 20)
            f.write(rnd.randbytes(5000))
            f.truncate(3 << 20)
        names.append("sparse")
        ext2img.make_image(img, "16M", skel=skel, block=1024)

        host = subprocess.run(["cksum"] + names + ["nope"], cwd=skel,
                              capture_output=True, text=True)
        self.assertEqual(host.returncode, 1)
        want = [re.sub(r" (\S+)$", r" /\1", line) for line in host.stdout.splitlines()]
        want.append("cksum: /nope: " + os.strerror(errno.ENOENT))

        status, lines = boot(img, "cksum " + " ".join("/" + n for n in names) + " /nope")
        self.assertEqual(lines, want)
        self.assertEqual(status, 1)
        ext2img.check_image(img)


    def test_many_names(self):
        # More names than any fixed table would hold: every one is checked.
        tmp = Path(tempfile.mkdtemp(prefix="fs-shell-cksum-"))
        self.addCleanup(shutil.rmtree, tmp)
        skel, img = tmp / "skel", tmp / "img"
        skel.mkdir()
        names = [f"f{i:03}" for i in range(100)]
        for i, name in enumerate(names):
            (skel / name).write_bytes(bytes([i]) * (i * 37))
        ext2img.make_image(img, "8M", skel=skel, block=1024)
        host = subprocess.run(["cksum"] + names, cwd=skel, capture_output=True,
                              text=True, check=True)
        want = [re.sub(r" (\S+)$", r" /\1", line) for line in host.stdout.splitlines()]
        status, lines = boot(img, "cksum " + " ".join("/" + n for n in names))
        self.assertEqual(lines, want)
        self.assertEqual(status, 0)


class IoCommandLine(unittest.TestCase):
    """io takes its command line as xfs_io does: options anywhere, every
    -c in order, one FILE; a line it cannot take runs nothing."""

    def test_matches_xfs_io(self):
        tmp = Path(tempfile.mkdtemp(prefix="fs-shell-iocl-"))
        self.addCleanup(shutil.rmtree, tmp)
        img, host = tmp / "img", tmp / "host"
        host.mkdir()
        (host / "kept").write_bytes(b"k" * 3000)
        ext2img.make_image(img, "8M", skel=host, block=1024)
        # (io's words after "io", file): 20 -c options (more than any
        # fixed table held), FILE before the options, blanks in a -c.
        runs = [(["-f"] + [w for i in range(20)
                           for w in ("-c", f"pwrite -S {0x40 + i:#x} {i * 100} 100")]
                 + ["-c", "pread -v 1990 20", "-c", "stat"], "twenty"),
                (["-c", "pread -v 0 16", "-c", "  stat  "], "kept"),
                (["FILE", "-c", "pwrite -S 0x31 10 5", "-c", "pread -v 0 32"], "kept")]
        script, expect = [], []
        for n, (words, file) in enumerate(runs):
            argv = [str(host / file) if w == "FILE" else w for w in words]
            if "FILE" not in words:
                argv.append(str(host / file))
            res = subprocess.run(["stdbuf", "-o0", "xfs_io"] + argv, env=ENV,
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                 text=True)
            self.assertEqual(res.returncode, 0, res.stdout)
            expect.append(normalize(res.stdout.replace(str(host), "").rstrip("\n").split("\n")))
            quoted = " ".join(f'"{w}"' if " " in w else ("/" + file if w == "FILE" else w)
                              for w in words)
            script += [f"echo @@{n}", f"io {quoted}" + ("" if "FILE" in words else f" /{file}")]
        status, lines = boot(img, "; ".join(script))
        self.assertEqual(status, 0, "\n".join(lines))
        got = sections(lines)
        ext2img.check_image(img)
        for n, (words, file) in enumerate(runs):
            with self.subTest(run=n):
                want = [re.sub(r"^stat\.(ino|blocks) = .*", r"stat.\1", line)
                        for line in expect[n]]
                have = [re.sub(r"^stat\.(ino|blocks) = .*", r"stat.\1", line)
                        for line in normalize(got[str(n)])]
                self.assertEqual(have, want)
        for file in ("twenty", "kept"):
            self.assertEqual(dump(img, f"/{file}", tmp / "out"), (host / file).read_bytes())

    def test_bad_lines_change_nothing(self):
        tmp = Path(tempfile.mkdtemp(prefix="fs-shell-iobad-"))
        self.addCleanup(shutil.rmtree, tmp)
        img, skel = tmp / "img", tmp / "skel"
        skel.mkdir()
        (skel / "f").write_bytes(b"f" * 100)
        ext2img.make_image(img, "8M", skel=skel, block=1024)
        # (line, the message, status): each fails before touching /f.
        cases = [('io -c "pwrite 0 1; fsync" -c', "io: -c needs a command", 2),
                 ("io -c stat", "io: no FILE", 2),
                 ("io -c stat /f /g", "io: one FILE, not both /f and /g", 2),
                 ("io -x -c stat /f", "io: unknown option -x", 2),
                 ('io -c "pwrite 0 1; fsync" /f', "bad argument count 3 to pwrite, "
                  "expected 2 arguments", 1),
                 ('io -t -c "pwrite 0 1 /f', 'shell: unterminated " quote; nothing was run', 2)]
        for line, message, status in cases:
            with self.subTest(line=line):
                got_status, lines = boot(img, line)
                self.assertEqual(lines[0] if lines else "", message, "\n".join(lines))
                self.assertEqual(got_status, status)
        self.assertEqual(dump(img, "/f", tmp / "out"), b"f" * 100)
        ext2img.check_image(img)


if __name__ == "__main__":
    unittest.main()
