#!/usr/bin/env python3
"""Host tests of fallocate on whole's ext2, against outside oracles.

Built on tools/test_fs_shell.py's machinery (boot, debugfs, dump, ...):

- Linux: random seeded sequences of pwrite/fpunch/fzero/fcollapse/finsert/
  falloc/truncate run through whole's `io` and through host xfs_io on a
  file of the host's filesystem (ext4 here, which has every mode) print
  the same lines and leave the same bytes (debugfs dump, cksum).
- The block map: the logical blocks debugfs finds mapped are those ext2's
  rules give for the commands (Model below), and i_blocks counts them plus
  exactly the indirect blocks they need: punch frees the indirect blocks
  it empties. For punches, `debugfs -w -R 'punch F START END'` on a copy
  of the same image is the reference, in the ranges where e2fsprogs
  1.47.0 punches correctly (its ind_punch passes `count - offset` to the
  second and later children of a double or triple indirect block, so a
  punch starting inside one of them frees to that child's end; and it
  stops at a level boundary unless the count exceeds the level).
- Bad input changes nothing: same errors as xfs_io, same bytes, and a
  read-only disk is not written at all.

- ext4 (extent trees, writable images of ext2img.EXT4_DEFAULT): the same
  random sequences against xfs_io, with ext4's block rules (Model4:
  KEEP_SIZE preallocates past EOF, a truncate that does not grow frees
  what lies past EOF); the blocks debugfs's EXTENTS list maps, and
  i_blocks = those blocks plus the tree's blocks (its ETB entries).

Every image must pass e2fsck -fn strictly. FALLOC_SEED=N picks another
base seed; a failure names the seed of its sequence.
"""
import hashlib
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
from test_fs_shell import (ENV, boot, console, debugfs, dump,  # noqa: E402
                           inode_info, normalize, sections)

PAGE = 4096
BASE_SEED = int(os.environ.get("FALLOC_SEED", "20261203"))
MAX_CMDS = 12  # -c strings per io invocation


def num(s):
    m = re.fullmatch(r"(\d+)([kmg]?)", s)
    return int(m.group(1)) << {"": 0, "k": 10, "m": 20, "g": 30}[m.group(2)]


class Model:
    """The blocks ext2 maps after each command, by the rules of
    fs/ext2/falloc.c (ext4's for sizes and errors; with KEEP_SIZE nothing
    is allocated past EOF, which ext2's block map cannot hold)."""

    def __init__(self, bs):
        self.bs, self.size, self.mapped = bs, 0, set()

    def blocks(self, first, end):
        return set(range(first, end))

    def apply(self, cmd):
        w = cmd.split()
        op, keep = w[0], "-k" in w
        if op == "seek":
            return
        args = [num(a) for a in w[-1 if op == "truncate" else -2:]]
        bs = self.bs
        if op == "pwrite":
            off, n = args[-2], args[-1]
            if n:
                self.mapped |= self.blocks(off // bs, (off + n - 1) // bs + 1)
                self.size = max(self.size, off + n)
        elif op == "truncate":
            keep_blocks = -(-args[0] // bs)
            self.mapped = {b for b in self.mapped if b < keep_blocks}
            self.size = args[0]
        elif op == "fpunch":
            off, n = args
            if off < self.size:
                end = off + n
                if end > self.size:
                    end = self.size + PAGE - self.size % PAGE
                self.mapped -= self.blocks(-(-off // bs), end // bs)
        elif op in ("fzero", "falloc"):
            off, n = args
            end = off + n
            grow = not keep and end > self.size
            if not grow:
                end = min(end, self.size)
            if off < end:
                self.mapped |= self.blocks(off // bs, -(-end // bs))
            if grow:
                self.size = off + n
        elif op == "fcollapse":
            off, n = args
            if off + n < self.size:
                lo, k = off // bs, n // bs
                self.mapped = ({b for b in self.mapped if b < lo} |
                               {b - k for b in self.mapped if b >= lo + k})
                self.size -= n
        elif op == "finsert":
            off, n = args
            if off < self.size:
                lo, k = off // bs, n // bs
                self.mapped = {b + k if b >= lo else b for b in self.mapped}
                self.size += n

    def blockcount(self):
        """i_blocks: data blocks plus the indirect blocks they need."""
        apb, m = self.bs // 4, self.mapped
        meta = int(any(12 <= b < 12 + apb for b in m))
        base2 = 12 + apb
        d = {(b - base2) // apb for b in m if base2 <= b < base2 + apb * apb}
        meta += 1 + len(d) if d else 0
        t = [b - base2 - apb * apb for b in m if b >= base2 + apb * apb]
        if t:
            meta += 1 + len({x // (apb * apb) for x in t}) + len({x // apb for x in t})
        return (len(m) + meta) * self.bs // 512


class Model4(Model):
    """The blocks ext4 maps after each command (fs/ext2/extent*.c, as
    Linux's ext4): preallocation with KEEP_SIZE past EOF too (unwritten
    extents); truncate frees past EOF unless it grows the file."""

    def apply(self, cmd):
        w = cmd.split()
        op = w[0]
        if op == "truncate" and num(w[-1]) > self.size:
            self.size = num(w[-1])
        elif op in ("fzero", "falloc") and "-k" in w:
            off, n = (num(a) for a in w[-2:])
            self.mapped |= self.blocks(off // self.bs, -(-(off + n) // self.bs))
        else:
            super().apply(cmd)


def extent_info(img, path):
    """(i_blocks in 512-byte units, mapped logical blocks, tree blocks)
    of @path, from debugfs stat's EXTENTS list."""
    out, err = debugfs(img, f"stat {path}")
    count = int(re.search(r"Blockcount: (\d+)", out).group(1))
    tail = out.split("EXTENTS:", 1)[1] if "EXTENTS:" in out else ""
    mapped = set()
    for a, b in re.findall(r"\((\d+)(?:-(\d+))?(?:\[u\])?\):", tail):
        mapped.update(range(int(a), int(b or a) + 1))
    return count, mapped, len(re.findall(r"\(ETB\d+\):", tail))


def random_sequence(rnd, seek=False):
    """pwrite/fpunch/fzero/fcollapse/finsert/falloc/truncate commands; the
    offsets favour the direct/indirect boundaries of 1, 2 and 4 KiB
    blocks. Collapse and insert use 4 KiB multiples, which every block
    size here (and the host's) accepts."""
    # 12 blocks; single/double indirect at 1 KiB (268K), 2 KiB (1048K),
    # 4 KiB (4144K); triple at 1 KiB (65804K).
    hot = [0, 12 << 10, 24 << 10, 48 << 10, 268 << 10, 1048 << 10,
           4144 << 10, 65804 << 10]

    def off():
        if rnd.random() < 0.4:
            return max(0, rnd.choice(hot) + rnd.randint(-6000, 6000))
        return rnd.randint(0, 300 << 10)

    def length():
        return rnd.choice([1, 511, 1024, 3000, 4096, 8192, 20000,
                           rnd.randint(1, 70000)])

    ops = ["pwrite", "pwrite", "fpunch", "fpunch", "fcollapse", "finsert",
           "truncate"]
    if not seek:
        # ext4 reports its unwritten extents as holes to SEEK_DATA, ext2
        # has none: seek runs leave preallocation out.
        ops += ["fzero", "falloc"]
    cmds = [f"pwrite -q -S 0x{rnd.randint(1, 255):02x} 0 {rnd.randint(1, 200000)}"]
    for _ in range(rnd.randint(10, 20)):
        op = rnd.choice(ops)
        if op == "pwrite":
            cmds.append(f"pwrite -q -S 0x{rnd.randint(1, 255):02x} {off()} {length()}")
        elif op == "truncate":
            cmds.append(f"truncate {off()}")
        elif op in ("fcollapse", "finsert"):
            cmds.append(f"{op} {off() // 4096 * 4096} {rnd.randint(1, 16) * 4096}")
        elif op in ("fzero", "falloc"):
            k = "-k " if rnd.random() < 0.5 else ""
            cmds.append(f"{op} {k}{off()} {length()}")
        else:
            cmds.append(f"fpunch {off()} {length()}")
    for _ in range(6 if seek else 0):
        cmds.append(f"seek -{rnd.choice('dh')} {off()}")
    return cmds


def host_run(path, cmds, opts="-f"):
    """xfs_io's lines for @cmds on @path (errors in order, via stdout)."""
    res = subprocess.run(["stdbuf", "-o0", "xfs_io"] + opts.split()
                         + [a for c in cmds for a in ("-c", c)] + [str(path)],
                         env=ENV, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    out = res.stdout.replace(str(path.parent), "")
    return normalize([l for l in out.split("\n") if l])


def io_line(opts, cmds, name):
    return f"io {opts} " + " ".join(f'-c "{c}"' for c in cmds) + f" /{name}"


def host_cksum(path):
    out = subprocess.run(["cksum", str(path)], capture_output=True,
                         text=True, check=True).stdout.split()
    return f"{out[0]} {out[1]} /{path.name}"


def boundary_sequence(bs):
    """Data across the single/double and double/triple-indirect boundaries
    of @bs-byte blocks, shifted back and forth across them, punched,
    zeroed and cut. The triple level starts at 64 MiB with 1 KiB blocks,
    at 513 MiB and 4 GiB with 2 and 4 KiB: too big to dump and compare,
    so there a second double-indirect child stands in for it."""
    apb = bs // 4
    dind, tind = (12 + apb) * bs, (12 + apb + apb * apb) * bs
    if tind > 128 << 20:
        tind = dind + apb * bs
    return [f"pwrite -q -S 0x21 {dind - 3 * bs} {6 * bs}",
            f"pwrite -q -S 0x22 {tind - 5000} 20000",
            "finsert 4096 8192", "fcollapse 0 65536",
            f"fpunch {tind - 70000} 12000", f"fzero {tind - 60000} 3000",
            f"finsert {tind - 65536} 65536", f"fcollapse {dind} 65536",
            f"falloc -k {tind - 100000} 9000", f"truncate {tind + 65536}",
            "fcollapse 8192 4096", f"fpunch {dind - 4096} 8192",
            f"pwrite -q -S 0x23 {tind - 3000} 9000",
            f"finsert {tind - 8192} 8192", f"fcollapse {dind + 4096} 4096"]


class FallocMatchesLinux(unittest.TestCase):
    FILES = 6
    SEEK_FILES = 3  # with 4 KiB blocks, the host's block size

    def run_block(self, bs, ext4=False):
        tmp = Path(tempfile.mkdtemp(prefix="fs-falloc-"))
        self.addCleanup(shutil.rmtree, tmp)
        img, host = tmp / "img", tmp / "host"
        host.mkdir()
        ext2img.make_image(img, "32M", block=bs,
                           **({"features": ext2img.EXT4_DEFAULT} if ext4 else {}))
        print(f"\nFallocMatchesLinux {bs}{' ext4' if ext4 else ''}: "
              f"FALLOC_SEED={BASE_SEED}", file=sys.stderr)
        script, want, models, seeds = [], {}, {}, {}
        nseek = self.SEEK_FILES if bs == 4096 and not ext4 else 0
        for i in range(self.FILES + nseek + 1):
            seed = BASE_SEED + 1000 * bs + i
            rnd = random.Random(seed)
            name = f"f{i}"
            if i == self.FILES + nseek:
                cmds = boundary_sequence(bs)
            else:
                cmds = random_sequence(rnd, seek=i >= self.FILES)
            seeds[name], models[name] = seed, (Model4 if ext4 else Model)(bs)
            want[name] = []
            for k in range(0, len(cmds), MAX_CMDS):
                chunk = cmds[k:k + MAX_CMDS]
                want[name] += host_run(host / name, chunk)
                script.append(f"echo @@{name}.{k}")
                script.append(io_line("-f", chunk, name))
                if rnd.random() < 0.5:
                    script.append("drop_caches")
            for c in cmds:
                models[name].apply(c)
        script.append("echo @@cksum")
        script.append("cksum " + " ".join(f"/{n}" for n in models))
        status, lines = boot(img, "; ".join(script), timeout=300,
                             fs="ext4" if ext4 else "ext2")
        got = sections(lines)
        ext2img.check_image(img)
        for name, model in models.items():
            with self.subTest(block=bs, seed=seeds[name], file=name):
                out = [l for k, v in got.items() if k.startswith(name + ".")
                       for l in v if not l.startswith("dropped ")]
                self.assertEqual(normalize(out), want[name])
                data = dump(img, f"/{name}", tmp / "out")
                self.assertEqual(len(data), model.size, "size")
                self.assertEqual(data, (host / name).read_bytes(),
                                 "bytes on the image differ from Linux's")
                if ext4:
                    count, mapped, tree = extent_info(img, f"/{name}")
                    want_count = (len(model.mapped) + tree) * bs // 512
                else:
                    _, count, mapped = inode_info(img, f"/{name}")
                    want_count = model.blockcount()
                self.assertEqual(sorted(mapped), sorted(model.mapped),
                                 "mapped blocks")
                self.assertEqual(count, want_count, "i_blocks")
        self.assertEqual(got["cksum"], [host_cksum(host / n) for n in models])

    def test_falloc_1k_blocks(self):
        self.run_block(1024)

    def test_falloc_2k_blocks(self):
        self.run_block(2048)

    def test_falloc_4k_blocks(self):
        self.run_block(4096)

    def test_falloc_ext4_1k_blocks(self):
        self.run_block(1024, ext4=True)

    def test_falloc_ext4_4k_blocks(self):
        self.run_block(4096, ext4=True)


# Punches whose block map debugfs computes right (see the module's doc):
# (first block, last block) inclusive, on 1 KiB blocks of a 600-block
# file: direct 0-11, single-indirect 12-267, double-indirect children
# 268-523 and 524-599.
DEBUGFS_PUNCHES = [(3, 9), (5, 40), (12, 267), (100, 110), (268, 523),
                   (270, 280), (268, 599), (0, 599), (200, 599)]


class PunchMatchesDebugfs(unittest.TestCase):
    def test_punch_block_maps(self):
        bs, nblocks = 1024, 600
        tmp = Path(tempfile.mkdtemp(prefix="fs-falloc-punch-"))
        self.addCleanup(shutil.rmtree, tmp)
        skel, img, ref = tmp / "skel", tmp / "img", tmp / "ref"
        skel.mkdir()
        rnd = random.Random(BASE_SEED)
        data = rnd.randbytes(nblocks * bs)
        for i in range(len(DEBUGFS_PUNCHES)):
            (skel / f"p{i}").write_bytes(data)
        ext2img.make_image(img, "8M", skel=skel, block=bs)
        shutil.copy(img, ref)
        script = []
        for i, (a, b) in enumerate(DEBUGFS_PUNCHES):
            script.append(f'io -c "fpunch {a * bs} {(b - a + 1) * bs}" /p{i}')
            res = subprocess.run(["debugfs", "-w", "-R",
                                  f"punch /p{i} {a} {b}", str(ref)],
                                 env=ENV, capture_output=True, text=True)
            self.assertEqual(res.returncode, 0, res.stderr)
        status, lines = boot(img, "; ".join(script))
        self.assertEqual((status, lines), (0, []))
        ext2img.check_image(img)
        ext2img.check_image(ref)
        for i, (a, b) in enumerate(DEBUGFS_PUNCHES):
            with self.subTest(punch=(a, b)):
                _, count, mapped = inode_info(img, f"/p{i}")
                _, ref_count, ref_mapped = inode_info(ref, f"/p{i}")
                self.assertEqual(sorted(mapped), sorted(ref_mapped))
                self.assertEqual(count, ref_count, "i_blocks")
                self.assertEqual(dump(img, f"/p{i}", tmp / "out"),
                                 dump(ref, f"/p{i}", tmp / "out"))


def qemu_readonly(tmp):
    """A WHOLE_QEMU wrapper that attaches the disk with readonly=on."""
    wrapper = tmp / "qemu-ro"
    wrapper.write_text('#!/bin/sh\nfor a; do shift; case "$a" in '
                       'file=*,id=d0) a="$a,readonly=on";; esac; '
                       'set -- "$@" "$a"; done\n'
                       'exec qemu-system-riscv64 "$@"\n')
    wrapper.chmod(0o755)
    return str(wrapper)


class BadInputChangesNothing(unittest.TestCase):
    """Bad arguments, a read-only descriptor, a directory, a read-only
    disk: xfs_io's messages (Linux's errno), and nothing on disk moves."""

    CMDS = ["fpunch 0 0", "fpunch 4096 -1", "fzero 0 0", "falloc 0 0",
            "fcollapse 1000 4096", "fcollapse 4096 1000",
            "fcollapse 4096 36864", "fcollapse 0 40960", "finsert 40960 4096",
            "finsert 1 4096", "finsert 81920 4096"]
    RO_CMDS = ["fpunch 0 4k", "fzero 0 4k", "falloc 0 4k", "fcollapse 0 4k",
               "finsert 0 4k"]

    def test_bad_input(self):
        tmp = Path(tempfile.mkdtemp(prefix="fs-falloc-bad-"))
        self.addCleanup(shutil.rmtree, tmp)
        skel, img, host = tmp / "skel", tmp / "img", tmp / "host"
        (skel / "d").mkdir(parents=True)
        data = random.Random(BASE_SEED).randbytes(40960)
        (skel / "b").write_bytes(data)
        shutil.copytree(skel, host)
        ext2img.make_image(img, "8M", skel=skel, block=4096)
        before = inode_info(img, "/b")
        runs = [("-f", self.CMDS, "b"), ("-r", self.RO_CMDS, "b"),
                ("-r", self.RO_CMDS, "d")]
        script, want = [], []
        for opts, cmds, name in runs:
            script.append(io_line(opts, cmds, name))
            want += host_run(host / name, cmds, opts)
        status, lines = boot(img, "; ".join(script))
        self.assertEqual(normalize(lines), want)
        self.assertEqual(status, 1)
        ext2img.check_image(img)
        self.assertEqual(inode_info(img, "/b"), before)
        self.assertEqual(dump(img, "/b", tmp / "out"), data)

        # A read-only disk: opening for writing is EROFS (open(2)), a
        # read-only descriptor EBADF; QEMU must not write a byte.
        digest = hashlib.sha256(img.read_bytes()).hexdigest()
        env = dict(os.environ, WHOLE_QEMU=qemu_readonly(tmp))
        _, lines, _ = console(img, io_line("", ["fpunch 0 4k"], "b") + "; " +
                              io_line("-r", self.RO_CMDS, "b"), env=env)
        out = "\n".join(lines)
        self.assertIn("mounted read-only", out)
        tail = out[out.index('bootargs "'):].split("\n")[1:]
        self.assertEqual([l for l in tail if l][:1 + len(self.RO_CMDS)],
                         ["/b: Read-only file system"] +
                         ["fallocate: Bad file descriptor"] * len(self.RO_CMDS))
        self.assertEqual(hashlib.sha256(img.read_bytes()).hexdigest(), digest)


if __name__ == "__main__":
    unittest.main()
