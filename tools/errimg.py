#!/usr/bin/env python3
"""tools/errimg.py: the image of the vfs_errseq suite (fs/errseq_test.c),
and the blkdebug rules that make its device fail.

    python3 tools/errimg.py make IMG RULES   # image + QEMU blkdebug rules
    python3 tools/errimg.py check IMG        # after the boot

make builds a 16M ext2 image (4 KiB blocks) from a known folder with three
4-block files, asks debugfs where their blocks landed (`bmap`) and writes
blkdebug rules failing with EIO every write of the first block of
wfail.bin and evict.bin and every read of the second block of rfail.bin.

check is the boot's post-check: e2fsck -fn finds the image clean (the
failed writes lost data, never consistency); the failed blocks still hold
what mke2fs wrote; the block the suite wrote to rfail.bin beside the
unreadable one, and the new file good.bin, hold what the suite wrote.
"""

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import ext2img

BLOCK = 4096
FILES = {"wfail.bin": b"o", "evict.bin": b"v", "rfail.bin": b"r"}
BLOCKS_PER_FILE = 4
# (file, block of the file, blkdebug event)
FAILING = [("wfail.bin", 0, "write_aio"), ("evict.bin", 0, "write_aio"),
           ("rfail.bin", 1, "read_aio")]


def debugfs(img, request):
    run = subprocess.run(["debugfs", "-R", request, str(img)], env=ext2img._ENV,
                         capture_output=True)
    if run.returncode:
        raise ext2img.CheckFailed(f"debugfs -R '{request}': exit {run.returncode}\n"
                                  f"{run.stderr.decode(errors='replace')}")
    return run.stdout


def physical_block(img, name, lblk):
    out = debugfs(img, f"bmap /{name} {lblk}").decode().strip()
    if not out.isdigit() or int(out) == 0:
        raise ext2img.CheckFailed(f"{name} block {lblk}: debugfs bmap said {out!r}")
    return int(out)


def rules(img):
    """The blkdebug rules: each failing block's first sector."""
    text = []
    for name, lblk, event in FAILING:
        sector = physical_block(img, name, lblk) * (BLOCK // 512)
        text.append(f'[inject-error]\nevent = "{event}"\nerrno = "5"\n'
                    f'sector = "{sector}"\n')
    return "\n".join(text)


def make_image(img, rules_path):
    with tempfile.TemporaryDirectory() as skel:
        for name, byte in FILES.items():
            Path(skel, name).write_bytes(byte * (BLOCKS_PER_FILE * BLOCK))
        ext2img.make_image(img, "16M", skel=skel, block=BLOCK)
    Path(rules_path).write_text(rules(img))


def good_bytes():
    return bytes(ord("a") + i % 23 for i in range(3 * BLOCK))


def check_image(img):
    ext2img.check_image(img)
    want = {
        "wfail.bin": b"o" * (BLOCKS_PER_FILE * BLOCK),
        "evict.bin": b"v" * (BLOCKS_PER_FILE * BLOCK),
        "rfail.bin": b"r" * (2 * BLOCK) + b"W" * BLOCK + b"r" * BLOCK,
        "good.bin": good_bytes(),
    }
    for name, data in want.items():
        got = debugfs(img, f"cat /{name}")
        if got != data:
            first = next((i for i in range(min(len(got), len(data)))
                          if got[i] != data[i]), min(len(got), len(data)))
            raise ext2img.CheckFailed(
                f"{img}: /{name}: {len(got)} bytes, want {len(data)}; first "
                f"difference at byte {first}")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    m = sub.add_parser("make")
    m.add_argument("img")
    m.add_argument("rules")
    c = sub.add_parser("check")
    c.add_argument("img")
    a = p.parse_args(argv)
    try:
        if a.cmd == "make":
            make_image(a.img, a.rules)
        else:
            check_image(a.img)
    except ext2img.CheckFailed as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
