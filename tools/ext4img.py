#!/usr/bin/env python3
"""tools/ext4img.py: the ext4 images of the ext4_* boots (docs/ext4.md).

    python3 tools/ext4img.py make IMG --block 1024|2048|4096
    python3 tools/ext4img.py disks DIR    # the mount-refusal disks
    python3 tools/ext4img.py default IMG SIZE --from DIR   # tools/run --fs ext4

make_image() builds a host tree (contents by fs/ext2/ext2_test.h's pattern,
tools/ext2tree.py), then an image with `mke2fs -t ext4 -d` (the features
it turns on by default, a clean journal among them: whole mounts it
read-only, which is what these boots test; without the journal it would
mount read-write, see tools/ext2img.py EXT4_DEFAULT), has `e2fsck -fyD` index its
directories (dir_index: the htree), preallocates part of /prealloc with
`debugfs fallocate` (unwritten extents, whose blocks are then filled with
0xA5 on disk: they must still read as zeroes), checks the image with
`e2fsck -fn`, and only then damages the files under /bad (BAD below) with
`debugfs sif` and byte patches. The files the suites read:

  hello        11 bytes, seed 1
  big          3 MiB + 123 bytes, seed 2 (long extents)
  frag         FRAG_EXTENTS blocks of seed 3 at every other block, holes
               between: a tree of depth 2 at 4 KiB blocks (1 at 1 KiB... see
               FRAG_EXTENTS), several extent blocks
  sparse       SPARSE runs of seed 6 in a 20 MiB file
  prealloc     block 0 of seed 9, blocks 1-15 unwritten, size 16 blocks
  fast, slow   symbolic links (target in the inode; in a block)
  dir5000      f0000 (100 bytes, seed 8) and 4999 hard links to it,
               hashed by e2fsck -D
and under /bad, the damaged ones (BAD; bad/dxbad: a hashed directory
whose root names an unknown hash version, its checksum made right again).
fs/ext2/ext4_read_test.c holds the same table.

disks() makes the small images of ext4_bad's mount cases, attached as
vdb..vde: a bad superblock checksum, a bad group-descriptor checksum, a
clean journal, a journal that needs recovery.

image_digest() is what the post-check compares: nothing may be written.
"""

import argparse
import hashlib
import os
import re
import struct
import subprocess
import sys
import tempfile

import ext2img

MiB = 1 << 20
FRAG_EXTENTS = 1500
SPARSE = [(0, 4096), (MiB + 100, 5000), (20 * MiB - 10, 10)]
SPARSE_SIZE = 20 * MiB
DIR_ENTRIES = 5000
PREALLOC_BLOCKS = 16
SLOW_TARGET = "s" * 100 + "/target-of-a-slow-link"
# The damage of each file under /bad (fs/ext2/ext4_bad_test.c), and the
# console message that must name it.
BAD = {
    "magic": "bad magic",
    "entries": "eh_entries above eh_max",
    "depth": "unexpected depth",
    "far": "extent outside the data area",
    "overlap": "extents overlap or are out of order",
    "leafmagic": "bad magic",
    "leafcsum": "checksum does not match",
    "inodecsum": "checksum does not match (inode table block",
    "dcsum": "checksum does not match",
    "dxbad": "bad root info: searching it linearly",
}
DXBAD_ENTRIES = 600  # bad/dxbad: n000.. hard links, more than a block
DISKS = ("sbcsum", "gdcsum", "journal", "recover")
DISK_MESSAGES = {
    "sbcsum": "superblock checksum does not match",
    "gdcsum": "descriptor checksum does not match",
    "journal": "has a journal, which whole does not write through",
    "recover": "the journal needs recovery",
}


def pattern(seed, off, length):
    """ext2tree.pattern, fast: the bytes of a 1 KiB-aligned KiB differ from
    the first KiB's by the KiB's number, a rotation of every byte."""
    base = bytes((o * 131) & 0xFF for o in range(1024))
    out = bytearray()
    first, last = off >> 10, (off + length + 1023) >> 10
    for k in range(first, last):
        rot = bytes((i + k + seed * 17 + 1) & 0xFF for i in range(256))
        out += base.translate(rot)
    skip = off - (first << 10)
    return bytes(out[skip:skip + length])


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def make_tree(root, block):
    """The host tree of the image of @block-byte blocks."""
    os.makedirs(root, exist_ok=True)
    _write(os.path.join(root, "hello"), pattern(1, 0, 11))
    _write(os.path.join(root, "big"), pattern(2, 0, 3 * MiB + 123))
    with open(os.path.join(root, "frag"), "wb") as f:
        f.truncate(2 * FRAG_EXTENTS * block)
        for i in range(FRAG_EXTENTS):
            f.seek(2 * i * block)
            f.write(pattern(3, 2 * i * block, block))
    with open(os.path.join(root, "sparse"), "wb") as f:
        f.truncate(SPARSE_SIZE)
        for off, length in SPARSE:
            f.seek(off)
            f.write(pattern(6, off, length))
    _write(os.path.join(root, "prealloc"), pattern(9, 0, block))
    for name, target in (("fast", "hello"), ("slow", SLOW_TARGET)):
        if not os.path.lexists(os.path.join(root, name)):
            os.symlink(target, os.path.join(root, name))
    d = os.path.join(root, "dir5000")
    os.makedirs(d, exist_ok=True)
    _write(os.path.join(d, "f0000"), pattern(8, 0, 100))
    for i in range(1, DIR_ENTRIES):
        name = os.path.join(d, f"f{i:04d}")
        if not os.path.exists(name):
            os.link(os.path.join(d, "f0000"), name)
    bad = os.path.join(root, "bad")
    os.makedirs(os.path.join(bad, "dcsum"), exist_ok=True)
    os.makedirs(os.path.join(bad, "dxbad"), exist_ok=True)
    _write(os.path.join(bad, "dxbad", "n000"), pattern(1, 0, 10))
    for i in range(1, DXBAD_ENTRIES):
        name = os.path.join(bad, "dxbad", f"n{i:03d}")
        if not os.path.exists(name):
            os.link(os.path.join(bad, "dxbad", "n000"), name)
    _write(os.path.join(bad, "dcsum", "x"), pattern(1, 0, 10))
    for name in ("magic", "entries", "depth", "far", "inodecsum"):
        _write(os.path.join(bad, name), pattern(1, 0, 10))
    # two extents (blocks 0 and 2), and trees of depth 1 (10 extents)
    for name, extents in (("overlap", 2), ("leafmagic", 10), ("leafcsum", 10)):
        with open(os.path.join(bad, name), "wb") as f:
            for i in range(extents):
                f.seek(2 * i * block)
                f.write(pattern(1, 2 * i * block, block))


def run(cmd, ok=(0,), stdin=None):
    """@cmd's standard output; CheckFailed with both outputs on an exit
    status not in @ok."""
    r = subprocess.run(cmd, env=ext2img._ENV, capture_output=True, text=True,
                       input=stdin)
    if r.returncode not in ok:
        raise ext2img.CheckFailed(f"{' '.join(map(str, cmd))}: exit "
                                  f"{r.returncode}\n{r.stdout}{r.stderr}")
    return r.stdout


def debugfs(img, *requests, write=False):
    """The output of debugfs's @requests (one -R, or several through -f,
    which also echoes each as "debugfs: REQUEST")."""
    opts = ["-w"] if write else []
    if len(requests) == 1:
        return run(["debugfs", *opts, "-R", requests[0], str(img)])
    return run(["debugfs", *opts, "-f", "-", str(img)],
               stdin="".join(f"{r}\n" for r in requests))


# A fixed UUID and hash seed: the same checksums every time.
UUID = "6b2f5c4e-0d1a-4c3e-9f00-000000000034"


def mke2fs(img, size, block=None, tree=None, journal=False):
    cmd = ["mke2fs", "-F", "-q", "-t", "ext4", "-U", UUID,
           "-E", f"nodiscard,hash_seed={UUID}"]
    if not journal:
        cmd += ["-O", "^has_journal"]
    if block:
        cmd += ["-b", str(block)]
    if tree:
        cmd += ["-d", str(tree)]
    run(cmd + [str(img), str(size)])


def extents(img, path):
    """debugfs `ex`: (level, logical, physical, length, unwritten) rows."""
    rows = []
    for line in debugfs(img, f"ex {path}").splitlines():
        m = re.match(r"\s*(\d+)/\s*\d+\s+\d+/\s*\d+\s+(\d+) -\s*(\d+)\s+(\d+)"
                     r"(?: -\s*\d+)?\s+(\d+)\s*(Uninit)?", line)
        if m:
            rows.append((int(m[1]), int(m[2]), int(m[4]), int(m[5]),
                         bool(m[6])))
    return rows


def _read(img, off, n):
    with open(img, "rb") as f:
        f.seek(off)
        return f.read(n)


def _sif_block(img, path, index, value):
    debugfs(img, f"sif {path} block[{index}] {value:#x}", write=True)


def _inode_offset(img, path):
    m = re.search(r"located at block (\d+), offset (0x[0-9a-f]+)",
                  debugfs(img, f"imap {path}"))
    bs = int(re.search(r"Block size:\s+(\d+)",
                       run(["dumpe2fs", "-h", str(img)]))[1])
    return int(m[1]) * bs + int(m[2], 16), bs


def _i_block(img, path):
    """The inode's i_block[] (60 bytes at 0x28 of its slot) as 15 u32."""
    ino, _ = _inode_offset(img, path)
    return struct.unpack("<15I", _read(img, ino + 0x28, 60))


def crc32c(crc, data):
    """ext4's CRC32C (no inversions), bit by bit: for a few small blocks."""
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc


def _dx_root_rewrite(img, path, off, value):
    """Set byte @off of @path's htree root to @value, and the root's
    checksum again (docs/ext4.md: the CRC of the block up to the used
    entries, then the 8-byte tail with its checksum read as zero), so
    that only the index is wrong."""
    _, bs = _inode_offset(img, "/")
    stat = debugfs(img, f"stat {path}")
    ino = int(re.search(r"Inode: (\d+)", stat)[1])
    gen = int(re.search(r"Generation: (\d+)", stat)[1])
    blk = int(debugfs(img, f"bmap {path} 0").split()[0])
    sb = _read(img, 1024, 1024)
    seed = crc32c(0xFFFFFFFF, sb[0x68:0x78])
    seed = crc32c(crc32c(seed, struct.pack("<I", ino)), struct.pack("<I", gen))
    data = bytearray(_read(img, blk * bs, bs))
    data[off] = value
    limit, count = struct.unpack_from("<HH", data, 32)
    tail = 32 + 8 * limit
    crc = crc32c(seed, bytes(data[:32 + 8 * count]))
    crc = crc32c(crc, bytes(data[tail:tail + 4]) + bytes(4))
    struct.pack_into("<I", data, tail + 4, crc)
    ext2img.write_at(img, blk * bs, bytes(data))


def damage(img):
    """The faults of BAD, each in its own file under /bad."""
    blk = _i_block(img, "/bad/magic")
    _sif_block(img, "/bad/magic", 0, (blk[0] & 0xFFFF0000) | 0xBEEF)
    _sif_block(img, "/bad/entries", 0, (5 << 16) | 0xF30A)   # max is 4
    blk = _i_block(img, "/bad/depth")
    _sif_block(img, "/bad/depth", 1, (blk[1] & 0xFFFF) | (6 << 16))
    _sif_block(img, "/bad/far", 5, 0x7FFFFFF0)                # ee_start
    _sif_block(img, "/bad/overlap", 6, 0)       # 2nd extent's ee_block: 0
    _, bs = _inode_offset(img, "/")
    for name, off in (("leafmagic", 0), ("leafcsum", None)):
        # the root's index row names the leaf block
        idx = next(r for r in extents(img, f"/bad/{name}") if r[0] == 0)
        where = idx[2] * bs
        if off is None:   # the tail after eh_max entries
            eh_max = struct.unpack("<H", _read(img, where + 4, 2))[0]
            off = 12 + 12 * eh_max
        old = _read(img, where + off, 1)[0]
        ext2img.write_at(img, where + off, bytes([old ^ 0x5A]))
    ino, _ = _inode_offset(img, "/bad/inodecsum")
    old = _read(img, ino + 0x7C, 1)[0]            # l_i_checksum_lo
    ext2img.write_at(img, ino + 0x7C, bytes([old ^ 0xFF]))
    _dx_root_rewrite(img, "/bad/dxbad", 28, 7)   # an unknown hash version
    dblk = int(debugfs(img, "blocks /bad/dcsum").split()[-1])
    old = _read(img, dblk * bs + bs - 1, 1)[0]     # the tail's checksum
    ext2img.write_at(img, dblk * bs + bs - 1, bytes([old ^ 0xFF]))


def preallocate(img, block):
    debugfs(img, f"sif /prealloc size {PREALLOC_BLOCKS * block}",
            f"fallocate /prealloc 1 {PREALLOC_BLOCKS - 1}", write=True)
    rows = [r for r in extents(img, "/prealloc") if r[0] == 0]
    unwritten = [r for r in rows if r[4]]
    if sum(r[3] for r in unwritten) != PREALLOC_BLOCKS - 1:
        raise ext2img.CheckFailed(f"/prealloc: extents {rows}")
    for _, _, pblk, length, _ in unwritten:
        ext2img.write_at(img, pblk * block, b"\xa5" * (length * block))


def make_image(img, block, tree=None):
    """The image of the ext4_* boots (see the module's docstring)."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = tree or os.path.join(tmp, "tree")
        make_tree(tree, block)
        mke2fs(img, "64M", block, tree, journal=True)
    run(["e2fsck", "-fyD", str(img)], ok=(0, 1))
    preallocate(img, block)
    ext2img.check_image(img)
    depth = max(r[0] for r in extents(img, "/frag"))
    if depth < 1:
        raise ext2img.CheckFailed(f"/frag has a tree of depth {depth}")
    for d in ("/dir5000", "/bad/dxbad"):
        if "Hash Version" not in debugfs(img, f"htree {d}"):
            raise ext2img.CheckFailed(f"{d} is not hashed")
    damage(img)


def disks(folder):
    """The disks of ext4_bad's mount cases, in @folder: DISKS."""
    os.makedirs(folder, exist_ok=True)
    for name in DISKS:
        img = os.path.join(folder, f"ext4_{name}.img")
        mke2fs(img, "4M", 1024, journal=name in ("journal", "recover"))
        if name == "sbcsum":
            ext2img.write_at(img, 1024 + 0x78, b"X")       # s_volume_name[0]
        elif name == "gdcsum":
            old = _read(img, 2048 + 0x1E, 1)[0]  # group 0's bg_checksum
            ext2img.write_at(img, 2048 + 0x1E, bytes([old ^ 0xFF]))
        elif name == "recover":
            debugfs(img, "feature needs_recovery", write=True)


def image_digest(paths):
    h = hashlib.sha256()
    for p in paths:
        with open(p, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    return h.hexdigest()


def make_default(img, size, skel):
    """tools/run --fs ext4's disk: an ext4 image of @skel."""
    mke2fs(img, size, 4096, skel)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    mk = sub.add_parser("make")
    mk.add_argument("image")
    mk.add_argument("--block", type=int, default=4096, choices=(1024, 2048, 4096))
    dk = sub.add_parser("disks")
    dk.add_argument("folder")
    df = sub.add_parser("default")
    df.add_argument("image")
    df.add_argument("size")
    df.add_argument("--from", dest="skel", required=True)
    args = ap.parse_args(argv[1:])
    try:
        if args.cmd == "make":
            make_image(args.image, args.block)
        elif args.cmd == "disks":
            disks(args.folder)
        else:
            make_default(args.image, args.size, args.skel)
    except ext2img.CheckFailed as e:
        print(e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
