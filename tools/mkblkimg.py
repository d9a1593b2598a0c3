#!/usr/bin/env python3
"""tools/mkblkimg.py: raw disk images whose every sector says where it is.

Sector LBA holds: LBA (u64 little-endian), b"WHOLEBLK", the image tag
(u32 little-endian), then bytes i = 20..511 equal to (LBA * 7 + i + tag) & 0xff.
drivers/block_testutil.c checks the same stamp in the guest.

  tools/mkblkimg.py IMG SIZE_MIB [--tag N]
"""
import argparse
import struct


def sector(lba: int, tag: int) -> bytes:
    head = struct.pack("<Q8sI", lba, b"WHOLEBLK", tag)
    tail = bytes((lba * 7 + i + tag) & 0xFF for i in range(len(head), 512))
    return head + tail


def make_image(path, size_mib: int, tag: int = 0) -> None:
    # The tail depends on (lba * 7 + tag) mod 256 only: build 256 tails once.
    tails = [bytes((k + i) & 0xFF for i in range(20, 512)) for k in range(256)]
    with open(path, "wb") as f:
        for lba in range(size_mib * 2048):
            f.write(struct.pack("<Q8sI", lba, b"WHOLEBLK", tag))
            f.write(tails[(lba * 7 + tag) & 0xFF])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("img")
    p.add_argument("size_mib", type=int)
    p.add_argument("--tag", type=int, default=0)
    a = p.parse_args()
    make_image(a.img, a.size_mib, a.tag)


if __name__ == "__main__":
    main()
