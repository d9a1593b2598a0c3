"""tools/boots.py: the QEMU boots that tools/test runs, one row each.

Each boot runs the in-kernel suites matching `filter` (ktest.filter=GLOB) on
one QEMU machine and is parsed as KTAP by tools/ktest_runner.py.

Fields:
  name       log goes to build/test-logs/<name>.log; BOOT_GLOB matches it
  smp, mem   -smp and -m
  filter     ktest.filter glob over suite names
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
from typing import Callable


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
    Boot("core", smp=4, mem="256M", filter="*"),
    Boot("mem128", smp=2, mem="128M", filter="mm_*"),
    Boot("mem1g", smp=4, mem="1G", filter="mm_*"),
]
