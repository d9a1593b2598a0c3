"""tools/boots.py: the QEMU boots that tools/test runs, one row each.

Each boot runs the in-kernel suites matching `filter` (ktest.filter=GLOB) on
one QEMU machine and is parsed as KTAP by tools/ktest_runner.py.

Fields:
  name       log goes to build/test-logs/<name>.log; BOOT_GLOB matches it
  smp, mem   -smp and -m
  filter     ktest.filter over suite names: comma-separated globs, a
             leading - excludes ("*,-virtio_blk_*"); each suite runs in
             the boot that has what it needs (a disk, an image), never
             passing by having nothing to do
  timeout    seconds for the whole boot; then QEMU's process group is killed
  qemu_args  extra QEMU arguments, e.g. drives:
               ("-global", "virtio-mmio.force-legacy=false",
                "-drive", "file=build/t.img,if=none,format=raw,id=d0",
                "-device", "virtio-blk-device,drive=d0")
  bootargs   extra kernel arguments, before ktest.filter
  prepare    prepare(build) before QEMU starts, build = pathlib.Path of
             build/ (e.g. ext2img.make_image(build / "t.img", ...))
  post_check post_check(build) after QEMU exits (e.g. ext2img.check_image)
A hook fails by raising (ext2img.CheckFailed carries the output to show);
a failed hook counts as one failure. Paths are relative to the repo root.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import mkblkimg


# virtio-blk boots: a fresh stamped image each (tools/mkblkimg.py); the
# errors image sits behind QEMU's blkdebug driver, which fails reads of
# sector 1000 and writes of sector 3000 (drivers/virtio_blk_test.c).
BLK_RULES = """[inject-error]
event = "read_aio"
errno = "5"
sector = "1000"

[inject-error]
event = "write_aio"
errno = "5"
sector = "3000"
"""


def blk_prepare(name):
    def prepare(build: Path) -> None:
        mkblkimg.make_image(build / f"{name}.img", 32)
        (build / "blk_rules.cfg").write_text(BLK_RULES)
    return prepare


def blk_args(name, legacy, drive_opts=""):
    img = f"build/{name}.img"
    if name == "blk_errors":
        img = f"blkdebug:build/blk_rules.cfg:{img}"
    transport = () if legacy else ("-global", "virtio-mmio.force-legacy=false")
    return (*transport,
            "-drive", f"file={img},if=none,format=raw,id=d0{drive_opts}",
            "-device", "virtio-blk-device,drive=d0,serial=whole-test-disk")


@dataclass(frozen=True)
class Boot:
    name: str
    smp: int
    mem: str
    filter: str
    timeout: int = 300
    qemu_args: tuple = ()
    bootargs: str = ""
    prepare: Callable | None = None
    post_check: Callable | None = None


BOOTS = [
    Boot("core", smp=4, mem="256M", filter="*,-virtio_blk_*"),
    Boot("mem128", smp=2, mem="128M", filter="mm_*"),
    Boot("mem1g", smp=4, mem="1G", filter="mm_*"),
    *[b for legacy in (False, True) for b in (
        Boot(f"blk_{'legacy' if legacy else 'modern'}", smp=4, mem="256M",
             filter="virtio_blk_read,virtio_blk_write,virtio_blk_queue,"
                    "virtio_blk_stress",
             qemu_args=blk_args("blk_rw", legacy),
             bootargs="vblk.test=rw", prepare=blk_prepare("blk_rw")),
        Boot(f"blk_ro_{'legacy' if legacy else 'modern'}", smp=2, mem="256M",
             filter="virtio_blk_read,virtio_blk_ro", bootargs="vblk.test=ro",
             qemu_args=blk_args("blk_ro", legacy, ",readonly=on"),
             prepare=blk_prepare("blk_ro")),
        Boot(f"blk_errors_{'legacy' if legacy else 'modern'}", smp=2, mem="256M",
             filter="virtio_blk_errors", bootargs="vblk.test=errors",
             qemu_args=blk_args("blk_errors", legacy),
             prepare=blk_prepare("blk_errors")),
    )],
]
