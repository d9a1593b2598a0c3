#!/usr/bin/env python3
"""tools/vfsimg.py: the root image of the vfs_* suites (fs/vfs_test.c).

    python3 tools/vfsimg.py make IMG --block 1024|2048|4096   # skeleton + mke2fs
    python3 tools/vfsimg.py check IMG                    # after the boot

make writes a known folder (build/vfs-skel-<block>/) and makes the image
from it. The folder holds cksums.txt: the host's own `cksum` output for its
files, named as the kernel names them (relative to "/"), which the
vfs_cksum suite compares byte for byte with the kernel's cksum lines.

check is the boot's post-check: e2fsck must find the image clean, and the
file the vfs_persist suite wrote and fsynced (PERSIST_NAME) must hold the
bytes it wrote (read back with debugfs).
"""

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import ext2img

CKSUM_FILES = ["hello.txt", "empty", "dir/a.txt", "dir/sub/b.txt", "big.bin"]
PERSIST_NAME = "persist.bin"
PERSIST_SIZE = 20000


def big_byte(i):
    """Byte i of big.bin; fs/vfs_test.c computes the same."""
    return (i * 7 + i // 4096) & 0xff


def persist_byte(i):
    """Byte i of persist.bin as vfs_persist writes it."""
    return (i * 13 + 5) & 0xff


def make_skeleton(skel: Path):
    if skel.exists():
        subprocess.run(["rm", "-rf", str(skel)], check=True)
    (skel / "dir" / "sub").mkdir(parents=True)
    (skel / "hello.txt").write_bytes(b"hello, world\n")
    (skel / "empty").write_bytes(b"")
    (skel / "dir" / "a.txt").write_bytes(b"a\n")
    (skel / "dir" / "sub" / "b.txt").write_bytes(b"bee\n")
    (skel / "big.bin").write_bytes(bytes(big_byte(i) for i in range(300000)))
    run = subprocess.run(["cksum", *CKSUM_FILES], cwd=skel, check=True,
                         capture_output=True)
    (skel / "cksums.txt").write_bytes(run.stdout)


def make_image(img: Path, block: int):
    skel = img.parent / f"vfs-skel-{block}"
    make_skeleton(skel)
    ext2img.make_image(img, "32M", skel, block=block)


def check_image(img: Path):
    ext2img.check_image(img)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "persist"
        run = subprocess.run(
            ["debugfs", "-R", f"dump /{PERSIST_NAME} {out}", str(img)],
            env=ext2img._ENV, capture_output=True, text=True)
        if not out.exists():
            raise ext2img.CheckFailed(
                f"debugfs: no /{PERSIST_NAME} in {img}\n{run.stderr}")
        data = out.read_bytes()
    want = bytes(persist_byte(i) for i in range(PERSIST_SIZE))
    if data != want:
        first = next((i for i in range(min(len(data), len(want)))
                      if data[i] != want[i]), min(len(data), len(want)))
        raise ext2img.CheckFailed(
            f"/{PERSIST_NAME} in {img}: {len(data)} bytes, want "
            f"{len(want)}; first difference at byte {first}")


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
