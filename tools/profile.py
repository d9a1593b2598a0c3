#!/usr/bin/env python3
"""tools/profile.py: where whole's harts spend their time, by sampling.

    tools/profile [--smp N] [--mem SIZE] [--top N] [--idle] [--depth N] [--prod]
                  -c 'COMMANDS'

Boots whole on a fresh 512M ext2 image (as tools/bench does) with QEMU's
monitor on a socket, runs COMMANDS, and while they run asks the monitor
for each hart's registers (`cpu N`, `info registers`) over and over. Each
answer's pc is one sample (from the kernel's banner on: the firmware's
start-up and the boot are left out), named by the function of build/whole.elf that
holds it (from riscv64-unknown-elf-nm); for small leaf functions (lock
spinning, the doorbell, copies) the caller, from ra, is named too, so
"arch_cpu_relax <- __spin_lock" tells spinning on a spinlock from waiting
in raw_spin_lock; --depth N names N callers, walking the frame pointers
through the monitor's `x` (the kernel keeps them: -fno-omit-frame-pointer). Idle harts (arch_wait_for_interrupt) are left out
unless --idle. Prints the share of samples per function, most first.

The monitor reads a hart's state between translated blocks, so a sample
lands at the start of a block rather than the exact instruction: good for
functions, not lines. Samples cost the guest a little time each; figures
from a profiled run are not benchmark figures.
"""

import argparse
import bisect
import collections
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import ext2img  # noqa: E402
import ksyms  # noqa: E402
from qemu_smp import smp_arg  # noqa: E402

ELF = ROOT / "build" / "whole.elf"
# --prod: the production build tools/bench measures (prod.ninja)
PROD_ELF = ROOT / "build" / "prod" / "whole.elf"
IDLE = "arch_wait_for_interrupt"
# A pc below the kernel: the firmware (OpenSBI on riscv64), mostly inside
# the kernel's SBI calls (an IPI's ecall took about 20 us under TCG here,
# a timer's 3-12 us), or a secondary hart not started yet.
FIRMWARE = "(firmware, or a hart not started yet)"
# The line the kernel prints once its harts are up, before it runs the
# commands (kernel/banner.c): sampling starts there.
STARTED = "bootargs \""
# Functions whose callers matter more than they do.
LEAVES = {"arch_cpu_relax", "arch_irq_save", "arch_irq_restore",
          "virtio_queue_notify", "memcpy", "memset", "memmove",
          "arch_counter", "__spin_lock", "raw_spin_lock"}
TIMEOUT = 900


class Symbols:
    def __init__(self, elf):
        symbols = ksyms.nm(elf)
        self.syms = ksyms.functions(symbols)
        self.addrs = [a for a, _ in self.syms]
        etext = [a for a, _, name in symbols if name in ("__text_end", "_etext")]
        self.text_end = etext[0] if etext else (self.addrs[-1] + 4096 if self.addrs else 0)

    def in_text(self, addr):
        return bool(self.addrs) and self.addrs[0] <= addr < self.text_end

    def name(self, pc):
        i = bisect.bisect_right(self.addrs, pc) - 1
        return self.syms[i][1] if i >= 0 else FIRMWARE


class Monitor:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        for _ in range(100):
            try:
                self.s.connect(path)
                break
            except OSError:
                time.sleep(0.05)
        self.s.settimeout(10)
        self.cmd("")

    def cmd(self, line):
        self.s.sendall((line + "\n").encode())
        buf = b""
        while not buf.endswith(b"(qemu) "):
            chunk = self.s.recv(65536)
            if not chunk:
                raise ConnectionError("monitor closed")
            buf += chunk
        return buf.decode(errors="replace")


def sample(regs, syms, idle, read=None, depth=1):
    """One sample's name from `info registers` output, or None. For a
    leaf, its callers up to @depth, through read(addr) -> (8-byte words
    at addr - 16 and addr - 8): the frame record the callee pushed."""
    pc = re.search(r"\bpc\s+([0-9a-f]+)", regs)
    if not pc:
        return None
    name = syms.name(int(pc[1], 16))
    if name == IDLE and not idle:
        return None
    ra = re.search(r"\bra\s+([0-9a-f]+)", regs)
    fp = re.search(r"\bs0\s+([0-9a-f]+)", regs)
    if name in LEAVES and ra:
        name += " <- " + syms.name(int(ra[1], 16))
        frame = int(fp[1], 16) if fp else 0
        named, tries = 1, 0
        while named < depth and read and frame and tries < 2 * depth:
            tries += 1
            words = read(frame)
            if not words:
                break
            if not syms.in_text(words[1]):
                # a leaf that saved no ra keeps only its caller's frame
                # pointer, at -8: go on from that frame
                frame = words[1]
                continue
            frame, ret = words
            name += " <- " + syms.name(ret)
            named += 1
    return name


def profile(commands, smp=4, mem="512M", idle=False, depth=1, elf=ELF):
    """Counter of sample names, and the console output (kernel @elf)."""
    syms = Symbols(elf)
    counts = collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        img, mon = Path(tmp) / "vda.img", str(Path(tmp) / "mon.sock")
        ext2img.make_image(img, "512M")
        out = open(Path(tmp) / "console", "w+")
        q = subprocess.Popen(
            ["qemu-system-riscv64", "-machine", "virt", "-bios", "default",
             "-nographic", "-no-reboot", "-smp", smp_arg(smp), "-m", mem,
             "-global", "virtio-mmio.force-legacy=false",
             "-kernel", str(elf), "-append", f"-- {commands}",
             "-drive", f"file={img},if=none,format=raw,id=d0,cache=unsafe",
             "-device", "virtio-blk-device,drive=d0",
             "-monitor", f"unix:{mon},server,nowait"],
            stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        t0 = time.monotonic()
        try:
            m = Monitor(mon)

            def read(frame):  # the frame record below @frame
                out = m.cmd(f"x /2gx {frame - 16:#x}")
                w = re.findall(r"0x([0-9a-f]{16})", out.split(":", 1)[-1])
                return (int(w[0], 16), int(w[1], 16)) if len(w) >= 2 else None
            # The commands' time only: not OpenSBI's start-up and the
            # kernel's boot, when secondary harts wait in the firmware.
            while (q.poll() is None and time.monotonic() - t0 < TIMEOUT
                   and STARTED not in Path(out.name).read_text(errors="replace")):
                time.sleep(0.02)
            while q.poll() is None and time.monotonic() - t0 < TIMEOUT:
                for c in range(smp):
                    m.cmd(f"cpu {c}")
                    name = sample(m.cmd("info registers"), syms, idle,
                                  read, depth)
                    if name:
                        counts[name] += 1
        except (ConnectionError, OSError):
            pass  # QEMU exited between two questions
        finally:
            if q.poll() is None:
                q.kill()
            q.wait()
        out.seek(0)
        console = out.read()
    return counts, console


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-c", dest="commands", required=True)
    ap.add_argument("--smp", type=int, default=4)
    ap.add_argument("--mem", default="512M")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--idle", action="store_true", help="count idle harts too")
    ap.add_argument("--depth", type=int, default=1,
                    help="callers to name for a leaf (frame pointers)")
    ap.add_argument("--prod", action="store_true",
                    help="the production build, build/prod/whole.elf (no lockdep, "
                    "no DEBUG_ASSERT: what tools/bench measures)")
    args = ap.parse_args(argv)
    counts, console = profile(args.commands, args.smp, args.mem, args.idle,
                              args.depth, PROD_ELF if args.prod else ELF)
    total = sum(counts.values())
    print(console.rstrip()[-2000:])
    print(f"\nprofile: {total} samples ({'all' if args.idle else 'busy'} harts)")
    for name, n in counts.most_common(args.top):
        print(f"{100 * n / max(total, 1):6.1f}%  {name}")
    return 0 if total else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
