#!/usr/bin/env python3
"""tools/ext2img.py: make ext2 images and check them with e2fsck.

    python3 tools/ext2img.py make IMG SIZE [--from DIR] [--block 1024|2048|4096]
                                           [--features LIST]
    python3 tools/ext2img.py check IMG     # exit 0 only if e2fsck finds nothing

From Python (boot hooks in tools/boots.py): make_image(...), check_image(img),
which raises CheckFailed with e2fsck's output.

check_image is the oracle of docs/design.md: `e2fsck -fn` must exit 0 AND
print no declined prompt (a line containing "? no": "Fix? no", "Clear? no",
"Salvage? no", ...) and no "counted=", because e2fsck exits 0 on some of
what it would repair, such as wrong free counts in the superblock.
"""

import argparse
import os
import subprocess
import sys

DEFAULT_FEATURES = "filetype,sparse_super,large_file"
# mke2fs and e2fsck live in /sbin, which is not on every user's PATH.
_ENV = dict(os.environ, PATH=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")


class CheckFailed(Exception):
    """An image or boot check failed; str() is the output to show."""


def make_image(path, size, skel=None, block=4096, features=DEFAULT_FEATURES):
    """Create (or overwrite) an ext2 image of @size (mke2fs syntax, e.g. 128M)."""
    cmd = ["mke2fs", "-F", "-q", "-t", "ext2", "-r", "1", "-b", str(block),
           "-I", "128", "-m", "0", "-O", features, "-E", "nodiscard"]
    if skel:
        cmd += ["-d", str(skel)]
    cmd += [str(path), str(size)]
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    run = subprocess.run(cmd, env=_ENV, capture_output=True, text=True)
    if run.returncode:
        raise CheckFailed(f"{' '.join(cmd)}: exit {run.returncode}\n"
                          f"{run.stdout}{run.stderr}")


def unclean(e2fsck_output):
    """Does `e2fsck -n` output show something it would have repaired?"""
    return any("? no" in line or "counted=" in line
               for line in e2fsck_output.splitlines())


def check_image(path):
    """Raise CheckFailed unless `e2fsck -fn` finds @path entirely clean."""
    run = subprocess.run(["e2fsck", "-fn", str(path)], env=_ENV,
                         capture_output=True, text=True)
    out = run.stdout + run.stderr
    if run.returncode or unclean(out):
        raise CheckFailed(f"e2fsck -fn {path}: exit {run.returncode}\n{out}")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    mk = sub.add_parser("make", help="create an ext2 image")
    mk.add_argument("image")
    mk.add_argument("size")
    mk.add_argument("--from", dest="skel", help="folder copied into the image")
    mk.add_argument("--block", type=int, default=4096, choices=(1024, 2048, 4096))
    mk.add_argument("--features", default=DEFAULT_FEATURES)
    ck = sub.add_parser("check", help="e2fsck -fn, strictly")
    ck.add_argument("image")
    args = ap.parse_args(argv[1:])
    try:
        if args.cmd == "make":
            make_image(args.image, args.size, args.skel, args.block, args.features)
        else:
            check_image(args.image)
    except CheckFailed as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
