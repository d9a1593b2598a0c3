#!/usr/bin/env python3
"""tools/vfsimg.py: the root image of the vfs_* suites (fs/vfs_test.c).

    python3 tools/vfsimg.py make IMG --block 1024|2048|4096   # skeleton + mke2fs
    python3 tools/vfsimg.py check IMG                    # after the boot

make writes a known folder (build/vfs-skel-<block>/) and makes the image
from it. The folder holds cksums.txt: the host's own `cksum` output for its
files, named as the kernel names them (relative to "/"), which the
vfs_cksum suite compares byte for byte with the kernel's cksum lines.

The image also holds special files that mke2fs -d does not copy, added
with debugfs (SPECIAL_FILES): a character device whose device number, in
i_block[0], equals the block number of big.bin's fourth block (freeing a
"block map" of a device node would free big.bin's block, which e2fsck
reports), a FIFO, a fast and a slow symbolic link. vfs_special unlinks
them.

check is the boot's post-check: e2fsck must find the image clean, and the
file the vfs_persist suite wrote and fsynced (PERSIST_NAME) must hold the
bytes it wrote (read back with debugfs), and so must MMAP_PERSIST_NAME,
which the vfs_mmap suite (tests/mmap_test.c) wrote through a shared
mapping over a hole and msynced: page 1 of 3, pages 0 and 2 zero.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import ext2img

CKSUM_FILES = ["hello.txt", "empty", "dir/a.txt", "dir/sub/b.txt", "big.bin"]
PERSIST_NAME = "persist.bin"
PERSIST_SIZE = 20000
MMAP_PERSIST_NAME = "mmap_persist.bin"
PAGE = 4096
# Special files of the image root, made by debugfs (fs/vfs_special_test.c).
SPECIAL_FILES = ["chardev", "fifo", "fastlink", "slowlink"]
SLOW_TARGET = "dir/sub/" + "s" * 80  # over 60 bytes: kept in a block

# Symbolic links of the skeleton (name: target); fs/symlink_test.c reads
# them with the same targets. slow.lnk's target (89 bytes) does not fit in
# the inode: mke2fs writes it to a block.
SKEL_LINKS = {
    "hello.lnk": "hello.txt",
    "dir/up.lnk": "../hello.txt",
    "abs.lnk": "/dir/sub/b.txt",
    "dir.lnk": "dir/sub",
    "slow.lnk": "./" * 40 + "dir/a.txt",
    "dangling.lnk": "nowhere",
    "loop1": "loop2",
    "loop2": "loop1",
}
# Links the vfs_symlink suite leaves (name: target), read back on the host
# from debugfs's rdump of the image: one fast, one slow (the 1 KiB image's
# block holds at most 1023 bytes of target).
MADE_LINKS = {
    "made/fast.lnk": "../hello.txt",
    "made/slow.lnk": "/" + "d" * 98 + "/" + "x" * 900,
}
# The file vfs_attr leaves: its mode and times (seconds), checked with
# debugfs stat.
ATTR_NAME = "attr.bin"
ATTR_MODE = 0o640
ATTR_ATIME = 1000000000
ATTR_MTIME = 1234567890


def big_byte(i):
    """Byte i of big.bin; fs/vfs_test.c computes the same."""
    return (i * 7 + i // 4096) & 0xff


def persist_byte(i):
    """Byte i of persist.bin as vfs_persist writes it."""
    return (i * 13 + 5) & 0xff


def mmap_persist_byte(i):
    """Byte i of mmap_persist.bin's page 1 as vfs_mmap stores it."""
    return (i * 11 + 3) & 0xff


def mmap_persist_want():
    return (bytes(PAGE) + bytes(mmap_persist_byte(i)
                                for i in range(PAGE, 2 * PAGE)) + bytes(PAGE))


def make_skeleton(skel: Path):
    if skel.exists():
        subprocess.run(["rm", "-rf", str(skel)], check=True)
    (skel / "dir" / "sub").mkdir(parents=True)
    (skel / "hello.txt").write_bytes(b"hello, world\n")
    (skel / "empty").write_bytes(b"")
    (skel / "dir" / "a.txt").write_bytes(b"a\n")
    (skel / "dir" / "sub" / "b.txt").write_bytes(b"bee\n")
    (skel / "big.bin").write_bytes(bytes(big_byte(i) for i in range(300000)))
    for name, target in SKEL_LINKS.items():
        os.symlink(target, skel / name)
    run = subprocess.run(["cksum", *CKSUM_FILES], cwd=skel, check=True,
                         capture_output=True)
    (skel / "cksums.txt").write_bytes(run.stdout)


def debugfs(img: Path, *requests, write=False):
    """Run debugfs requests on @img; return stdout (CheckFailed on error)."""
    with tempfile.NamedTemporaryFile("w", suffix=".cmds") as cmds:
        cmds.write("\n".join(requests) + "\n")
        cmds.flush()
        run = subprocess.run(
            ["debugfs", *(["-w"] if write else []), "-f", cmds.name, str(img)],
            env=ext2img._ENV, capture_output=True, text=True)
    errors = [l for l in run.stderr.splitlines()
              if not l.startswith("debugfs ")]  # the version banner
    if run.returncode or errors:
        raise ext2img.CheckFailed(f"debugfs {requests}: {run.stderr}")
    return run.stdout


def add_special_files(img: Path):
    """SPECIAL_FILES; chardev's number names big.bin's fourth block."""
    blk = int(debugfs(img, "bmap /big.bin 3").split()[-1])
    if blk >= 65536:
        raise ext2img.CheckFailed(f"big.bin block {blk}: no old-style dev_t")
    debugfs(img, f"mknod chardev c {blk >> 8} {blk & 0xff}",
            "mknod fifo p", "symlink fastlink hello.txt",
            f"symlink slowlink {SLOW_TARGET}", write=True)


def make_image(img: Path, block: int):
    skel = img.parent / f"vfs-skel-{block}"
    make_skeleton(skel)
    ext2img.make_image(img, "32M", skel, block=block)
    add_special_files(img)


def check_links(img: Path):
    """The links vfs_symlink left, as the host reads them (readlink)."""
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run(["debugfs", "-R", f"rdump /made {tmp}", str(img)],
                             env=ext2img._ENV, capture_output=True, text=True)
        for name, target in MADE_LINKS.items():
            path = Path(tmp) / name
            if not path.is_symlink():
                raise ext2img.CheckFailed(
                    f"debugfs rdump: /{name} in {img} is not a symbolic "
                    f"link\n{run.stderr}")
            got = os.readlink(path)
            if got != target:
                raise ext2img.CheckFailed(
                    f"/{name} in {img}: readlink gives {got!r}, want "
                    f"{target!r}")


def check_attr(img: Path):
    """vfs_attr's chmod and utimensat, as debugfs reads the inode."""
    run = subprocess.run(["debugfs", "-R", f"stat /{ATTR_NAME}", str(img)],
                         env=ext2img._ENV, capture_output=True, text=True)
    mode = re.search(r"Mode:\s+0?([0-7]+)", run.stdout)
    times = {k: re.search(rf"{k}: (0x[0-9a-f]+)", run.stdout)
             for k in ("atime", "mtime")}
    if not mode or not all(times.values()):
        raise ext2img.CheckFailed(
            f"debugfs stat /{ATTR_NAME} in {img}:\n{run.stdout}{run.stderr}")
    got = (int(mode.group(1), 8), int(times["atime"].group(1), 16),
           int(times["mtime"].group(1), 16))
    want = (ATTR_MODE, ATTR_ATIME, ATTR_MTIME)
    if got != want:
        raise ext2img.CheckFailed(
            f"/{ATTR_NAME} in {img}: mode, atime, mtime {got}, want {want}")


def dump(img: Path, name: str) -> bytes:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        run = subprocess.run(
            ["debugfs", "-R", f"dump /{name} {out}", str(img)],
            env=ext2img._ENV, capture_output=True, text=True)
        if not out.exists():
            raise ext2img.CheckFailed(
                f"debugfs: no /{name} in {img}\n{run.stderr}")
        return out.read_bytes()


def compare(img: Path, name: str, data: bytes, want: bytes):
    if data != want:
        first = next((i for i in range(min(len(data), len(want)))
                      if data[i] != want[i]), min(len(data), len(want)))
        raise ext2img.CheckFailed(
            f"/{name} in {img}: {len(data)} bytes, want "
            f"{len(want)}; first difference at byte {first}")


def check_image(img: Path, ran=None):
    """e2fsck, then what each suite leaves on the image; @ran, if given,
    is the set of suites that ran (a run of some suites only checks
    theirs)."""
    def did(suite):
        return ran is None or suite in ran

    ext2img.check_image(img)
    if did("vfs_symlink"):
        check_links(img)
    if did("vfs_attr"):
        check_attr(img)
    if did("vfs_persist"):
        compare(img, PERSIST_NAME, dump(img, PERSIST_NAME),
                bytes(persist_byte(i) for i in range(PERSIST_SIZE)))
    if did("vfs_mmap"):
        compare(img, MMAP_PERSIST_NAME, dump(img, MMAP_PERSIST_NAME),
                mmap_persist_want())


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    mk = sub.add_parser("make")
    mk.add_argument("image")
    mk.add_argument("--block", type=int, default=4096, choices=(1024, 2048, 4096))
    ck = sub.add_parser("check")
    ck.add_argument("image")
    args = ap.parse_args(argv[1:])
    try:
        if args.cmd == "make":
            make_image(Path(args.image), args.block)
        else:
            check_image(Path(args.image))
    except ext2img.CheckFailed as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main(sys.argv))
