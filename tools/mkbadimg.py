#!/usr/bin/env python3
"""tools/mkbadimg.py: corrupt ext2 images for the suites ext2_bad_*.

    python3 tools/mkbadimg.py KIND IMG [--block 1024|4096]

Each image starts as a small good one (f4097, bad/victim, bad/other,
loop/self, far, meta; contents by tools/ext2tree.py's pattern) and then gets one fault:
  trunc     the image cut to half its size        -> mount fails
  magic     a wrong superblock magic               -> mount fails
  zero      the whole superblock zeroed            -> mount fails
  incompat  an unknown incompat feature bit        -> mount refused
  rootfile  the root inode is a regular file       -> mount refused, and
            the root inode it read is not left in the inode cache
  rocompat  an unknown ro_compat feature bit       -> mounted read-only
  reclen    bad/victim's rec_len runs past its block  -> -EUCLEAN
  ino       bad/victim names inode 0x7fffffff         -> -EUCLEAN
            (both: loop/self names loop itself -> -ELOOP, and unlink or
            rename of it takes no lock twice)
  blocknr   far's block[0] past the device, meta's on the inode table
            -> reads and writes -EUCLEAN; the inode table is untouched
SUITES[KIND] is the suite (fs/ext2/ext2_bad_test.c) that runs on it, and
MESSAGES[KIND] what the kernel must print about it while that suite runs;
for blocknr, IMG.meta keeps the inode-table block to compare after the boot.
"""

import argparse
import os
import re
import struct
import subprocess
import sys
import tempfile

import ext2img
import ext2tree

KINDS = ["trunc", "magic", "zero", "incompat", "rootfile", "rocompat", "reclen", "ino",
         "blocknr"]
MESSAGES = {
    "trunc": "larger than the device",
    "magic": "no ext2 superblock",
    "zero": "no ext2 superblock",
    "incompat": "unsupported incompat features",
    "rootfile": "root inode is not a directory",
    "rocompat": "mounting read-only",
    "reclen": "bad entry in block",
    "ino": "bad entry in block",
    "blocknr": "is outside the data area",
}
SUITES = {
    "trunc": "ext2_bad_mount",
    "magic": "ext2_bad_mount",
    "zero": "ext2_bad_mount",
    "incompat": "ext2_bad_mount",
    "rootfile": "ext2_bad_mount",
    "rocompat": "ext2_bad_rocompat",
    "reclen": "ext2_bad_entries",
    "ino": "ext2_bad_entries",
    "blocknr": "ext2_bad_blocks",
}
SB = 1024
S_MAGIC, S_INCOMPAT, S_RO_COMPAT = 0x38, 0x60, 0x64


def _debugfs(img, request, write=False):
    cmd = ["debugfs"] + (["-w"] if write else []) + ["-R", request, str(img)]
    run = subprocess.run(cmd, env=ext2img._ENV, capture_output=True, text=True)
    if run.returncode:
        raise ext2img.CheckFailed(f"{' '.join(cmd)}: {run.stdout}{run.stderr}")
    return run.stdout


def _or32(img, off, bits):
    with open(img, "r+b") as f:
        f.seek(off)
        v = struct.unpack("<I", f.read(4))[0] | bits
        f.seek(off)
        f.write(struct.pack("<I", v))


def _first_block(img, path):
    return int(_debugfs(img, f"blocks {path}").split()[0])


def _ino(img, path):
    return int(re.search(r"Inode: (\d+)", _debugfs(img, f"stat {path}")).group(1))


def _entry(img, block, dirpath, name):
    """Offset of DIRPATH/NAME's record in the image, and the block's end."""
    start = _first_block(img, dirpath) * block
    with open(img, "rb") as f:
        f.seek(start)
        data = f.read(block)
    off = 0
    while off < block:
        ino, rec_len, name_len = struct.unpack_from("<IHB", data, off)
        if data[off + 8:off + 8 + name_len] == name:
            return start + off, block - off
        off += rec_len
    raise ext2img.CheckFailed(f"{dirpath}/{name.decode()} not found")


def _inode_table(img):
    out = subprocess.run(["dumpe2fs", str(img)], env=ext2img._ENV,
                         capture_output=True, text=True).stdout
    return int(re.search(r"Inode table at (\d+)", out).group(1))


def make_bad(kind, img, block=1024):
    img = str(img)
    with tempfile.TemporaryDirectory() as tree:
        with open(os.path.join(tree, "f4097"), "wb") as f:
            f.write(ext2tree.pattern(4, 0, 4097))
        os.mkdir(os.path.join(tree, "bad"))
        for name in ("victim", "other"):
            with open(os.path.join(tree, "bad", name), "wb") as f:
                f.write(ext2tree.pattern(1, 0, 10))
        os.mkdir(os.path.join(tree, "loop"))
        with open(os.path.join(tree, "loop", "self"), "wb") as f:
            f.write(ext2tree.pattern(1, 0, 10))
        for name in ("far", "meta"):
            with open(os.path.join(tree, name), "wb") as f:
                f.write(ext2tree.pattern(2, 0, 100))
        ext2img.make_image(img, "8M", tree, block)
    if kind == "trunc":
        os.truncate(img, os.path.getsize(img) // 2)
    elif kind == "magic":
        ext2img.write_at(img, SB + S_MAGIC, struct.pack("<H", 0x1234))
    elif kind == "zero":
        ext2img.write_at(img, SB, bytes(1024))
    elif kind == "incompat":
        _or32(img, SB + S_INCOMPAT, 0x80000000)
    elif kind == "rootfile":
        _debugfs(img, "sif <2> mode 0100644", write=True)
    elif kind == "rocompat":
        _or32(img, SB + S_RO_COMPAT, 0x80000000)
    elif kind in ("reclen", "ino"):
        off, left = _entry(img, block, "/bad", b"victim")
        if kind == "reclen":
            ext2img.write_at(img, off + 4, struct.pack("<H", left + 4))
        else:
            ext2img.write_at(img, off, struct.pack("<I", 0x7FFFFFFF))
        # both: loop/self names loop itself, a loop rather than a wild number
        off, _ = _entry(img, block, "/loop", b"self")
        ext2img.write_at(img, off, struct.pack("<I", _ino(img, "/loop")))
    elif kind == "blocknr":
        itable = _inode_table(img)
        _debugfs(img, "sif /far block[0] 0x7ffffff0", write=True)
        _debugfs(img, f"sif /meta block[0] {itable}", write=True)
        with open(img, "rb") as f:
            f.seek(itable * block)
            meta = f.read(block)
        with open(img + ".meta", "wb") as f:
            f.write(struct.pack("<Q", itable * block) + meta)
    else:
        raise ValueError(kind)


def check_meta_untouched(img):
    """blocknr: the inode-table block /meta pointed at is as it was."""
    with open(str(img) + ".meta", "rb") as f:
        off = struct.unpack("<Q", f.read(8))[0]
        want = f.read()
    with open(img, "rb") as f:
        f.seek(off)
        got = f.read(len(want))
    if got != want:
        raise ext2img.CheckFailed(
            f"{img}: the inode table block at byte {off} was written")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("kind", choices=KINDS)
    ap.add_argument("image")
    ap.add_argument("--block", type=int, default=1024, choices=(1024, 4096))
    args = ap.parse_args(argv[1:])
    try:
        make_bad(args.kind, args.image, args.block)
    except ext2img.CheckFailed as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
