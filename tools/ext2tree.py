#!/usr/bin/env python3
"""tools/ext2tree.py: the known tree ext2's suites read, and what they write.

    python3 tools/ext2tree.py tree DIR          # build the host tree
    python3 tools/ext2tree.py check IMG         # after an ext2_write boot

File bytes follow fs/ext2/ext2_test.h's pattern: byte o of a file with seed
s is (o*131 + (o>>10) + s*17 + 1) & 0xff. make_tree() writes what
fs/ext2/ext2_read_test.c expects; check_written() compares, through
`debugfs -R 'dump ...'`, the files fs/ext2/ext2_write_test.c and
fs/ext2/ext2_tail_test.c leave (keep them in step) and runs
ext2img.check_image (e2fsck -fn).

make_image() makes a boot's image from the tree, then cuts tail/stale_*
to STALE_SIZE bytes with `debugfs sif`, which leaves their old bytes past
EOF on disk (what ext2_tail's extensions must never show).
"""

import os
import re
import subprocess
import sys
import tempfile

import ext2img

MiB = 1 << 20
KiB = 1 << 10
FILES = [("f0", 0, 0), ("f1", 1, 1), ("f4095", 2, 4095), ("f4096", 3, 4096),
         ("f4097", 4, 4097), ("f1m", 5, MiB)]
SPARSE = [(0, 4096), (MiB + 100, 5000), (50 * MiB, 8192), (100 * MiB - 10, 10)]
NPAR = 4
# tail/t<n>: TAIL_SIZE bytes of seed 40 + n; tail/stale_w and stale_t: 1024
# bytes of seeds 50 and 51, cut to STALE_SIZE on disk (fs/ext2/ext2_tail_test.c).
TAIL_SIZE = 9000
STALE = [("stale_w", 50), ("stale_t", 51)]
STALE_SIZE = 100
# links/: a file, a hard link to it, a fast and a slow symbolic link (a
# target in the inode, and one too long for it, in a block).
LINKS_SEED, LINKS_SIZE = 60, 5000
SLOW_TARGET = "l" * 80 + "/orig"


def pattern(seed, off, length):
    return bytes(((o * 131 + (o >> 10) + seed * 17 + 1) & 0xFF)
                 for o in range(off, off + length))


def make_tree(root):
    """Fill @root (created) with the files ext2_read expects."""
    os.makedirs(root, exist_ok=True)
    for name, seed, size in FILES:
        with open(os.path.join(root, name), "wb") as f:
            f.write(pattern(seed, 0, size))
    with open(os.path.join(root, "sparse"), "wb") as f:
        f.truncate(100 * MiB)
        for off, length in SPARSE:
            f.seek(off)
            f.write(pattern(6, off, length))
    deep = os.path.join(root, "deep", *[f"d{i}" for i in range(1, 21)])
    os.makedirs(deep, exist_ok=True)
    with open(os.path.join(deep, "leaf"), "wb") as f:
        f.write(pattern(7, 0, 100))
    os.makedirs(os.path.join(root, "tail"), exist_ok=True)
    for n in range(6):
        with open(os.path.join(root, "tail", f"t{n}"), "wb") as f:
            f.write(pattern(40 + n, 0, TAIL_SIZE))
    for name, seed in STALE:
        with open(os.path.join(root, "tail", name), "wb") as f:
            f.write(pattern(seed, 0, 1024))
    links = os.path.join(root, "links")
    os.makedirs(links, exist_ok=True)
    with open(os.path.join(links, "orig"), "wb") as f:
        f.write(pattern(LINKS_SEED, 0, LINKS_SIZE))
    for name, make in (("hard", lambda p: os.link(os.path.join(links, "orig"), p)),
                       ("fast", lambda p: os.symlink("orig", p)),
                       ("slow", lambda p: os.symlink(SLOW_TARGET, p))):
        if not os.path.lexists(os.path.join(links, name)):
            make(os.path.join(links, name))
    many = os.path.join(root, "many")
    os.makedirs(many, exist_ok=True)
    for i in range(1000):
        with open(os.path.join(many, f"e{i:04d}"), "wb") as f:
            f.write(pattern(i % 200, 0, i % 7))


def expected_after_write():
    """{path in the image: expected bytes} after suite ext2_write."""
    over = bytearray(pattern(2, 0, 8192))
    over[100:5100] = pattern(3, 100, 5000)
    same = b"".join(pattern(30 + n, n * 16 * KiB, 16 * KiB) for n in range(NPAR))
    exp = {
        "/w/created": pattern(1, 0, 10000),
        "/w/over": bytes(over),
        "/w/append": pattern(4, 0, 9000),
        "/w/trunc_down": pattern(5, 0, 5000),
        "/w/trunc_up": pattern(6, 0, 1000) + bytes(199000),
        "/w/sparse3": pattern(12, 0, 100) + bytes(8092),
        "/w/renamed": pattern(7, 0, 777),
        "/w/target": pattern(8, 0, 888),
        "/w/hard": pattern(9, 0, 500),
        "/w/hard2": pattern(9, 0, 500),
        "/w/c2/d/f": pattern(11, 0, 50000),
        "/w/same": same,
        "/w/regrow": pattern(13, 0, 200),
    }
    for i in range(0, 1000, 2):
        exp[f"/w/many/n{i:04d}"] = pattern(i & 0xFF, 0, 100)
    for n in range(NPAR):
        exp[f"/w/par/t{n}"] = pattern(20 + n, 0, 64 * KiB)
        for i in range(1, 50, 2):
            exp[f"/w/par/c{n}_{i}"] = pattern(i, 0, 10)
    exp.update({name: None for name in GONE})
    return exp


def expected_after_tail():
    """{path: expected bytes} after suite ext2_tail: what a file kept, then
    zeroes (POSIX: an extension reads as zeroes), then what it wrote."""
    def cut(seed, keep, size, write=None):
        data = bytearray(pattern(seed, 0, keep) + bytes(size - keep))
        if write:
            off, length = write
            data[off:off + length] = pattern(seed, off, length)
        return bytes(data)
    return {
        "/tail/t0": cut(40, 1500, TAIL_SIZE),
        "/tail/t1": cut(41, 2500, 7100, (7000, 100)),
        "/tail/t2": cut(42, 700, 5000),
        "/tail/t3": cut(43, 1500, 1610, (1600, 10)),
        "/tail/t4": cut(44, 4096, 8000),
        "/tail/t5": cut(45, 3000, 3000),
        "/tail/stale_w": cut(50, STALE_SIZE, 3010, (3000, 10)),
        "/tail/stale_t": cut(51, STALE_SIZE, 2000),
    }


def make_image(img, tree, block, features=ext2img.DEFAULT_FEATURES):
    """An image of the tree (made in folder @tree if missing or incomplete:
    make_tree writes many/e0999 last), tail/stale_* cut."""
    if not all(os.path.exists(os.path.join(tree, f))
               for f in ("tail/t5", "links/orig", "many/e0999")):
        make_tree(tree)
    ext2img.make_image(img, "64M", tree, block, features)
    for name, _ in STALE:
        path = f"/tail/{name}"
        subprocess.run(["debugfs", "-w", "-R", f"sif {path} size {STALE_SIZE}",
                        str(img)], env=ext2img._ENV, capture_output=True)
        _, out = debugfs(img, f"stat {path}")
        if not re.search(rf"\bSize: {STALE_SIZE}\b", out):
            raise ext2img.CheckFailed(f"debugfs sif {path} size {STALE_SIZE} "
                                      f"did not take:\n{out}")


GONE = ["/w/unlinked", "/w/torename", "/w/src", "/w/rmme", "/w/a/b",
        "/w/many/n0001", "/w/many/n0999", "/w/par/c0_0"]


def block_size(img):
    _, out = debugfs(img, "stats")
    return int(re.search(r"Block size:\s+(\d+)", out)[1])


def debugfs(img, request):
    run = subprocess.run(["debugfs", "-R", request, str(img)],
                         env=ext2img._ENV, capture_output=True, text=True)
    return run.returncode, run.stdout + run.stderr


def check_written(img, ran=None):
    """e2fsck -fn, then every expected file dumped and compared: those of
    ext2_write and ext2_tail, or of those of them in @ran, the set of
    suites that ran (if given)."""
    ext2img.check_image(img)
    expected = {}
    if ran is None or "ext2_write" in ran:
        expected.update(expected_after_write())
    if ran is None or "ext2_tail" in ran:
        expected.update(expected_after_tail())
    if ran is not None and "ext4_extent_write" in ran:
        check_ext4_write(img)
        expected.update(expected_after_ext4_write(block_size(img)))
    if ran is not None and "ext4_csum_write" in ran:
        check_hashed_dir(img, block_size(img))
        check_links(img)
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "dump")
        for path, want in expected.items():
            if want is None:
                _, text = debugfs(img, f"stat {path}")
                if "File not found" not in text:
                    bad.append(f"{path}: still exists")
                continue
            if os.path.exists(out):
                os.unlink(out)
            debugfs(img, f"dump {path} {out}")
            got = open(out, "rb").read() if os.path.exists(out) else None
            if got != want:
                bad.append(f"{path}: {'missing' if got is None else f'{len(got)} bytes differ from the expected {len(want)}'}")
    if bad:
        raise ext2img.CheckFailed("debugfs dump mismatches:\n" + "\n".join(bad))


def expected_after_ext4_write(bs):
    """The files fs/ext2/ext4_extent_write_test.c keeps: 300 blocks written in
    three writes; 40 blocks, one in every other (a depth-1 tree); two such
    files of 30 and 40 blocks swapped by swapext."""
    def sparse(n):
        return b"".join(pattern(7, 2 * j * bs, bs)
                        + (bytes(bs) if j < n - 1 else b"") for j in range(n))
    return {"/ext4w_seq": pattern(5, 0, 300 * bs), "/ext4w_sparse": sparse(40),
            "/ext4w_swap_a": sparse(30), "/ext4w_swap_b": sparse(40)}


def check_ext4_write(img):
    """debugfs's view of ext4_extent_write's files: extent-mapped (stat's Flags),
    the sparse one through a tree of depth 1 (ex), both with the bytes
    written (dump)."""
    bad = []
    for path in expected_after_ext4_write(1):
        _, out = debugfs(img, f"stat {path}")
        if not re.search(r"Flags: 0x80000\b", out):
            bad.append(f"{path}: not extent-mapped:\n{out[:300]}")
    _, out = debugfs(img, "ex /ext4w_sparse")
    if not re.search(r"^\s*0/\s*1\s", out, re.M):
        bad.append(f"/ext4w_sparse: not a depth-1 tree:\n{out[:500]}")
    if bad:
        raise ext2img.CheckFailed("\n".join(bad))


# Suite ext4_csum_write (fs/ext2/ext4_csum_write_test.c, same rule): /h, moved to
# /hp/h, holds these names, and at 1 KiB blocks its htree has two levels.
DX_NAMES = 5000
DX_DIR = "/hp/h"


def expected_dx_names():
    names = set()
    for i in range(DX_NAMES):
        if i % 7 == 0:
            continue
        names.add(f"renamed-hashed-dir-entry-{i:04d}" if i % 11 == 0
                  else f"a-hashed-directory-entry-{i:04d}")
    return names


# ext4_csum_write's links_read_and_written: links/hard written through, orig
# removed, two new symbolic links (their targets as the suite has them).
SLOW_TARGET2 = "m" * 90 + "/hard"


def check_links(img):
    bad = []
    want = bytearray(pattern(LINKS_SEED, 0, LINKS_SIZE))
    want[1000:1100] = pattern(61, 1000, 100)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "hard")
        debugfs(img, f"dump /links/hard {out}")
        if not os.path.exists(out) or open(out, "rb").read() != want:
            bad.append("/links/hard: contents differ")
    if "File not found" not in debugfs(img, "stat /links/orig")[1]:
        bad.append("/links/orig: still exists")
    if 'Fast link dest: "hard"' not in debugfs(img, "stat /links/fast2")[1]:
        bad.append("/links/fast2: not a fast link to hard")
    stat = debugfs(img, "stat /links/slow2")[1]
    if SLOW_TARGET2 not in debugfs(img, "cat /links/slow2")[1] \
            or "Fast link" in stat:
        bad.append("/links/slow2: not a slow link to SLOW_TARGET2")
    if bad:
        raise ext2img.CheckFailed("\n".join(bad))


def check_hashed_dir(img, block):
    """debugfs lists exactly the expected names of /h; `htree` walks its
    index (two levels at 1 KiB blocks) and finds every name too."""
    _, out = debugfs(img, f"ls {DX_DIR}")
    # a removed name that began a block stays there with inode 0
    got = {name for ino, name in re.findall(r"(\d+)\s+\(\d+\) (\S+)", out)
           if ino != "0"} - {".", ".."}
    want = expected_dx_names()
    bad = []
    if got != want:
        bad.append(f"debugfs ls {DX_DIR}: {len(want - got)} names missing "
                   f"({sorted(want - got)[:3]}), {len(got - want)} extra "
                   f"({sorted(got - want)[:3]})")
    _, tree = debugfs(img, f"htree {DX_DIR}")
    levels = re.search(r"Indirect levels: (\d+)", tree)
    if not levels or (block == 1024 and levels[1] != "1"):
        bad.append(f"debugfs htree {DX_DIR}: levels {levels[1] if levels else None}")
    in_tree = {name for ino, name in re.findall(
        r"(\d+) 0x[0-9a-f]+-[0-9a-f]+ \(\d+\) (\S+)", tree) if ino != "0"}
    if in_tree != want:
        bad.append(f"debugfs htree {DX_DIR}: {len(in_tree)} names in its leaves")
    if bad:
        raise ext2img.CheckFailed("\n".join(bad))


def check_inode_numbers(img, log):
    """Suite ext2_read logs "ino PATH N" for the directories it resolved
    through "." and ".."; each N must be debugfs's number for PATH."""
    text = log.read_text(errors="replace")
    if "# Subtest: ext2_read" not in text:
        return  # the suite was filtered out of this run
    seen = re.findall(r"^\s*# ino (\S+) (\d+)\r?$", text, re.M)
    if not seen:
        raise ext2img.CheckFailed("ext2_read ran but logged no inode numbers")
    bad = []
    for path, ino in seen:
        _, out = debugfs(img, f"stat {path}")
        m = re.search(r"Inode: (\d+)", out)
        if not m or m[1] != ino:
            bad.append(f"{path}: whole says {ino}, debugfs "
                       f"{m[1] if m else 'has none'}")
    if bad:
        raise ext2img.CheckFailed("inode numbers differ:\n" + "\n".join(bad))


def main(argv):
    if len(argv) == 3 and argv[1] == "tree":
        make_tree(argv[2])
        return 0
    if len(argv) == 3 and argv[1] == "check":
        try:
            check_written(argv[2])
        except ext2img.CheckFailed as e:
            print(e, file=sys.stderr)
            return 1
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
