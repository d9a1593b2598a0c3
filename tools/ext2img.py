#!/usr/bin/env python3
"""tools/ext2img.py: make ext2 images and check them with e2fsck.

    python3 tools/ext2img.py make IMG SIZE [--from DIR] [--block 1024|2048|4096]
                                           [--features LIST]
    python3 tools/ext2img.py check IMG     # exit 0 only if e2fsck finds nothing
    python3 tools/ext2img.py uboot IMG KERNEL_IMAGE APPEND
                                           # make IMG bootable by U-Boot

From Python (boot hooks in tools/boots.py): make_image(...), check_image(img),
which raises CheckFailed with e2fsck's output.

check_image is the oracle of docs/design.md: `e2fsck -fn` must exit 0 AND
print no declined prompt (a line containing "? no": "Fix? no", "Clear? no",
"Salvage? no", ...) and no "counted=", because e2fsck exits 0 on some of
what it would repair, such as wrong free counts in the superblock.
"""

import argparse
import os
import struct
import subprocess
import sys
import tempfile

DEFAULT_FEATURES = "filetype,sparse_super,large_file"
# Writable ext4 images (docs/ext4.md). EXT4_DEFAULT: `mke2fs -t ext4`'s
# features but the journal (extents, 64bit, flex_bg, metadata_csum,
# dir_index, huge_file, dir_nlink, extra_isize, ...), the image issue #34
# is about. EXT4_FEATURES: extents without checksums or hashed
# directories.
EXT4_DEFAULT = "ext4:^has_journal"
EXT4_FEATURES = "ext4:^has_journal,^metadata_csum,^dir_index"
# ext4 whose files use indirect blocks (no extents, no 64bit), which whole
# mounts read-write as "ext4": metadata_csum, dir_index, flex_bg,
# huge_file, dir_nlink, extra_isize (256-byte inodes) and the rest of what
# `mke2fs -t ext4` turns on (docs/ext4.md).
EXT4_INDIRECT = "ext4:^has_journal,^extent,^64bit"
# mke2fs and e2fsck live in /sbin, which is not on every user's PATH.
_ENV = dict(os.environ, PATH=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")


class CheckFailed(Exception):
    """An image or boot check failed; str() is the output to show."""


def write_at(img, off, data):
    """Overwrite @img's bytes at @off with @data (damaging images on purpose)."""
    with open(img, "r+b") as f:
        f.seek(off)
        f.write(data)


def make_image(path, size, skel=None, block=4096, features=DEFAULT_FEATURES):
    """Create (or overwrite) an ext2 image of @size (mke2fs syntax, e.g. 128M);
    features "ext4:LIST" make an ext4 image of mke2fs's ext4 defaults -O LIST."""
    if features.startswith("ext4:"):
        cmd = ["mke2fs", "-F", "-q", "-t", "ext4", "-b", str(block), "-m", "0",
               "-O", features[5:], "-E", "nodiscard"]
    else:
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


# The MBR's partition table: four 16-byte entries at byte 446, then 55 AA.
MBR_TABLE, MBR_END = 446, 512


def make_uboot_disk(path, image, append):
    """Make the ext2 image @path bootable by U-Boot's distro boot, as a
    board's disk would be: /boot/Image (the kernel, Linux's Image format),
    /extlinux/extlinux.conf (kernel and command line) and an MBR whose
    partition 1 spans the whole disk, because U-Boot scans partitions only.
    The MBR lives in ext2's boot block (its first 1024 bytes are unused), so
    the same bytes are still one whole-disk ext2 for whole (root=vda) and
    e2fsck. Refuses a boot block that holds something else."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        boot = bytearray(f.read(512))
    table = bytes(boot[MBR_TABLE:MBR_END])
    entry = struct.pack("<B3sB3sII", 0x80, b"\xff\xff\xfe", 0x83,
                        b"\xff\xff\xfe", 0, size // 512)
    ours = entry + bytes(48) + b"\x55\xaa"
    if table not in (bytes(66), ours):
        raise CheckFailed(f"{path}: its boot block holds a partition table "
                          "already; not touching it")
    # An empty append line is a syntax error to U-Boot's extlinux parser
    # ("Expected string literal"), after which it jumps to a bad address.
    conf = ("# written by tools/run --uboot (tools/ext2img.py)\n"
            "default whole\nlabel whole\n  kernel /boot/Image\n"
            + (f"  append {append}\n" if append.strip() else ""))
    with tempfile.NamedTemporaryFile("w", suffix=".conf") as c:
        c.write(conf)
        c.flush()
        # debugfs's mkdir of a name that exists leaves an inode allocated
        # and unlinked: make only the folders that are missing.
        top = subprocess.run(["debugfs", "-R", "ls -p /", str(path)], env=_ENV,
                             capture_output=True, text=True).stdout
        names = {f.split("/")[5] for f in top.splitlines() if f.count("/") >= 6}
        lines = [f"mkdir /{d}" for d in ("boot", "extlinux") if d not in names]
        lines += ["rm /boot/Image", "rm /extlinux/extlinux.conf",
                  f"write {image} /boot/Image",
                  f"write {c.name} /extlinux/extlinux.conf"]
        script = "".join(f"{line}\n" for line in lines)
        run = subprocess.run(["debugfs", "-w", "-f", "-", str(path)], env=_ENV,
                             input=script, capture_output=True, text=True)
    if run.returncode:
        raise CheckFailed(f"debugfs -w {path}: exit {run.returncode}\n"
                          f"{run.stdout}{run.stderr}")
    boot[MBR_TABLE:MBR_END] = ours
    with open(path, "r+b") as f:
        f.write(boot)


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
    ub = sub.add_parser("uboot", help="add /boot/Image, extlinux.conf and an MBR")
    ub.add_argument("image")
    ub.add_argument("kernel")
    ub.add_argument("append")
    args = ap.parse_args(argv[1:])
    try:
        if args.cmd == "make":
            make_image(args.image, args.size, args.skel, args.block, args.features)
        elif args.cmd == "uboot":
            make_uboot_disk(args.image, args.kernel, args.append)
        else:
            check_image(args.image)
    except CheckFailed as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
