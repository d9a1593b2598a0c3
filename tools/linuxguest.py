#!/usr/bin/env python3
"""tools/linuxguest.py: Debian's Linux riscv64 on the QEMU machine whole
runs on, with workloads equivalent to whole's benchmarks (tools/bench.py
--linux).

    python3 tools/linuxguest.py fetch          # once: packages, Image, initramfs
    python3 tools/linuxguest.py run [--smp N] [--reps N]   # one boot, JSON figures

fetch keeps an apt state of its own in build/linux/apt (Debian trixie,
main, riscv64, from the host's own Debian mirror; the host's apt state is
untouched), downloads linux-image-riscv64 (the kernel package it depends
on) and busybox-static, and builds build/linux/Image (Debian's vmlinux is
already a RISC-V Image) and build/linux/initramfs.cpio.gz: busybox, the
modules the disk needs in dependency order (virtio_mmio, virtio_blk, ext4
for ext2, read from each module's .modinfo), and /init (INIT below).

run boots it once like tools/bench boots whole (same QEMU machine, -smp,
memory, modern virtio-mmio, cache=unsafe, a fresh 512M ext2 image made
by the same mke2fs command and a 128M scratch disk): /init runs
tools/linuxbench.c (whole's benchmarks as a Linux program, built static
with Debian's riscv64-linux-gnu-gcc), whose figures come back in
tools/bench.py's format with "kernel": "linux".
"""

import argparse
import gzip
import json
import lzma
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import ext2img  # noqa: E402
from qemu_smp import smp_arg  # noqa: E402

LINUX = ROOT / "build" / "linux"
IMAGE = LINUX / "Image"
INITRD = LINUX / "initramfs.cpio.gz"
# crc32c_generic: ext4 asks for "crc32c" by name at mount (no depends= line)
MODULES = ("virtio_mmio", "virtio_blk", "crc32c_generic", "ext4")
TIMEOUT = 900
BOOT_TIMEOUT = 180  # QEMU start to /init; usually ~3 s
BOOT_TRIES = 3
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
CROSS_GCC = "riscv64-linux-gnu-gcc"

# /init: mounts, loads the modules, finds the disks by size (the ext2 one
# is 512M, the scratch one 128M: QEMU's slot order and Linux's probe order
# need not agree with whole's names), then runs tools/linuxbench.c.
INIT = r"""#!/bin/busybox sh
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
read u rest < /proc/uptime; echo "@@ init $u"
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /lib/modules/order); do insmod /lib/modules/$m.ko || echo "## insmod $m failed"; done
n=0; while [ ! -b /dev/vdb ] && [ $n -lt 500 ]; do usleep 10000; n=$((n+1)); done
data=; scratch=
for d in /sys/block/vd*; do
  case $(cat $d/size) in
    1048576) data=/dev/${d##*/} ;;
    262144) scratch=/dev/${d##*/} ;;
  esac
done
mount -t ext2 $data /mnt || echo "## mount $data failed"
/linuxbench $(cat /reps) /mnt $data $scratch || echo "## linuxbench failed"
umount /mnt || echo "## umount failed"
echo "@@ done"
poweroff -f
"""


def _sources_uri():
    """The host's Debian mirror (deb822 or one-line sources)."""
    deb822 = Path("/etc/apt/sources.list.d/debian.sources")
    if deb822.exists():
        m = re.search(r"^URIs:\s*(\S+)", deb822.read_text(), re.M)
        if m:
            return m[1]
    legacy = Path("/etc/apt/sources.list")
    if legacy.exists():
        m = re.search(r"^deb\s+(?:\[[^]]*\]\s+)?(\S+)", legacy.read_text(), re.M)
        if m:
            return m[1]
    return "http://deb.debian.org/debian"


def _apt(state, *args, tool="apt-get"):
    opts = {"Dir::Etc::sourcelist": state / "sources.list",
            "Dir::Etc::sourceparts": "/dev/null",
            "Dir::Etc::preferencesparts": "/dev/null",
            "Dir::State::Lists": state / "lists",
            "Dir::State::status": state / "status",
            "Dir::Cache": state / "cache",
            "Dir::Cache::archives": state / "archives",
            "APT::Architecture": "riscv64", "APT::Architectures": "riscv64",
            "APT::Sandbox::User": "root"}
    cmd = [tool, "-q"] + [x for k, v in opts.items() for x in ("-o", f"{k}={v}")]
    run = subprocess.run(cmd + list(args), cwd=state / "debs", capture_output=True,
                         text=True, stdin=subprocess.DEVNULL)
    if run.returncode:
        raise SystemExit(f"linuxguest: {tool} {' '.join(args)}: {run.stdout}{run.stderr}")
    return run.stdout


def _modinfo(ko):
    """The .modinfo strings of a kernel module (ELF64, little-endian)."""
    data = ko.read_bytes()
    if ko.suffix == ".xz":
        data = lzma.decompress(data)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)

    def section(i):
        return struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
    names_off = section(shstrndx)[4]
    for i in range(shnum):
        name, _, _, _, off, size = section(i)
        end = data.index(b"\0", names_off + name)
        if data[names_off + name:end] == b".modinfo":
            return [s.decode() for s in data[off:off + size].split(b"\0") if s]
    return []


def _load_order(moddir, wanted):
    """Modules @wanted and what they depend on, each after its deps."""
    paths = {p.name.split(".ko")[0].replace("-", "_"): p
             for p in moddir.rglob("*.ko*")}
    order = []

    def visit(name, stack=()):
        name = name.replace("-", "_")
        if name in order or name in stack:
            return
        if name not in paths:
            raise SystemExit(f"linuxguest: module {name} not found")
        for info in _modinfo(paths[name]):
            if info.startswith("depends="):
                for dep in filter(None, info[len("depends="):].split(",")):
                    visit(dep, stack + (name,))
        order.append(name)
    for name in wanted:
        visit(name)
    return order, paths


def _cpio(files):
    """A newc cpio archive of (path, mode, data or None for a directory,
    (major, minor) for a character device)."""
    out = bytearray()
    for ino, (path, mode, data, rdev) in enumerate(files + [("TRAILER!!!", 0, b"", None)], 1):
        name = path.encode() + b"\0"
        body = data or b""
        maj, mnr = rdev or (0, 0)
        fields = [ino, mode, 0, 0, 1, 0, len(body), 0, 0, maj, mnr, len(name), 0]
        out += b"070701" + b"".join(f"{v:08x}".encode() for v in fields) + name
        out += b"\0" * (-len(out) % 4) + body
        out += b"\0" * (-len(out) % 4)
    return bytes(out)


def build_bench():
    """tools/linuxbench.c, static for riscv64 Linux."""
    out = LINUX / "linuxbench"
    src = ROOT / "tools" / "linuxbench.c"
    if not out.exists() or out.stat().st_mtime < src.stat().st_mtime:
        LINUX.mkdir(parents=True, exist_ok=True)
        subprocess.run([CROSS_GCC, "-O2", "-static", "-pthread", "-Wall", "-Wextra",
                        "-Werror", str(src), "-o", str(out)], check=True)
    return out


def _download():
    """The kernel's and busybox's .deb files, fetched once into the
    private apt state (again only if one is missing)."""
    state = LINUX / "apt"
    debs = state / "debs"
    have = (sorted(debs.glob("linux-image-[0-9]*_*.deb")),
            sorted(debs.glob("busybox-static_*.deb")))
    if all(have):
        return have[0][-1], have[1][-1]
    for d in ("lists/partial", "archives/partial", "cache", "debs"):
        (state / d).mkdir(parents=True, exist_ok=True)
    (state / "status").touch()
    (state / "sources.list").write_text(
        f"deb [arch=riscv64 signed-by={KEYRING}] {_sources_uri()} trixie main\n")
    print("linuxguest: fetching Debian trixie riscv64 packages", file=sys.stderr)
    _apt(state, "update")
    meta = _apt(state, "depends", "linux-image-riscv64", tool="apt-cache")
    kpkg = re.search(r"Depends:\s*(linux-image-\S+)", meta)[1]
    _apt(state, "download", kpkg, "busybox-static")
    return next(debs.glob(f"{kpkg}_*.deb")), next(debs.glob("busybox-static_*.deb"))


def fetch():
    """Download the packages (once) and build Image and the initramfs (again
    when tools/linuxbench.c or this file changed)."""
    bench = ROOT / "tools" / "linuxbench.c"
    if IMAGE.exists() and INITRD.exists() and \
            INITRD.stat().st_mtime > bench.stat().st_mtime and \
            INITRD.stat().st_mtime > Path(__file__).stat().st_mtime:
        return
    kdeb, bdeb = _download()
    x = LINUX / "x"
    shutil.rmtree(x, ignore_errors=True)
    for deb, into in ((kdeb, x / "kernel"), (bdeb, x / "busybox")):
        into.mkdir(parents=True)
        subprocess.run(["dpkg-deb", "-x", str(deb), str(into)], check=True)
    vmlinux = next((x / "kernel" / "boot").glob("vmlinux-*"))
    moddir = next((x / "kernel" / "usr" / "lib" / "modules").iterdir())
    order, paths = _load_order(moddir, MODULES)
    files = [(d, 0o40755, None, None) for d in
             ("bin", "sbin", "usr", "usr/bin", "usr/sbin", "dev", "proc",
              "sys", "mnt", "tmp", "lib", "lib/modules")]
    files.append(("dev/console", 0o20600, None, (5, 1)))
    busybox = (x / "busybox" / "usr" / "bin" / "busybox").read_bytes()
    files.append(("bin/busybox", 0o100755, busybox, None))
    files.append(("init", 0o100755, INIT.encode(), None))
    files.append(("linuxbench", 0o100755, build_bench().read_bytes(), None))
    for name in order:
        data = paths[name].read_bytes()
        if paths[name].suffix == ".xz":
            data = lzma.decompress(data)
        files.append((f"lib/modules/{name}.ko", 0o100644, data, None))
    files.append(("lib/modules/order", 0o100644, ("\n".join(order) + "\n").encode(), None))
    INITRD.write_bytes(gzip.compress(_cpio(files), 9, mtime=0))
    shutil.copy(vmlinux, IMAGE)
    shutil.rmtree(x)
    print(f"linuxguest: {IMAGE.relative_to(ROOT)} ({kdeb.name}), "
          f"{INITRD.relative_to(ROOT)} (modules: {' '.join(order)})", file=sys.stderr)


def qemu_cmd(smp, mem, vda, vdb, initrd):
    return ["qemu-system-riscv64", "-machine", "virt", "-bios", "default",
            "-nographic", "-no-reboot", "-smp", smp_arg(smp), "-m", mem,
            "-global", "virtio-mmio.force-legacy=false",
            "-kernel", str(IMAGE), "-initrd", str(initrd),
            "-append", "console=ttyS0 quiet",
            # the same disks whole's boots get: vdb has a queue per hart
            "-drive", f"file={vdb},if=none,format=raw,id=d1,cache=unsafe",
            "-device", "virtio-blk-device,drive=d1,"
            f"num-queues={max(1, min(int(smp), 8))}",
            "-drive", f"file={vda},if=none,format=raw,id=d0,cache=unsafe",
            "-device", "virtio-blk-device,drive=d0"]


def run(smp=4, mem="512M", reps=3):
    """One boot of Linux: its figures (tools/bench.py's format, with
    "kernel": "linux") and the host's time from QEMU's start to /init.
    A boot that never reaches /init (Linux under TCG now and then stops
    silently before its first line) is killed after BOOT_TIMEOUT s and
    made again, at most BOOT_TRIES times in all."""
    fetch()
    for attempt in range(1, BOOT_TRIES + 1):
        figs = _run_once(smp, mem, reps)
        if figs is not None:
            return figs
        sys.stderr.write(f"linuxguest: no /init after {BOOT_TIMEOUT} s "
                         f"(try {attempt} of {BOOT_TRIES}): killed\n")
    raise SystemExit("linuxguest: Linux never reached /init")


def _run_once(smp, mem, reps):
    """One boot, or None if it did not reach /init in time."""
    with tempfile.TemporaryDirectory() as tmp:
        vda, vdb = Path(tmp) / "vda.img", Path(tmp) / "vdb.img"
        ext2img.make_image(vda, "512M")
        with open(vdb, "wb") as f:
            f.truncate(128 << 20)
        # the repetition count goes in as a file appended to the initramfs
        initrd = Path(tmp) / "initrd.gz"
        initrd.write_bytes(INITRD.read_bytes() + gzip.compress(
            _cpio([("reps", 0o100644, f"{reps}\n".encode(), None)]), mtime=0))
        t0 = time.monotonic()
        proc = subprocess.Popen(qemu_cmd(smp, mem, vda, vdb, initrd),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, errors="replace")
        figs, host_ms, log, done = [], None, [], False
        reached_init = threading.Event()

        # A hung guest prints nothing: these end it, not the next line.
        def kill_if_no_init():
            if not reached_init.is_set():
                proc.kill()

        watchdogs = (threading.Timer(BOOT_TIMEOUT, kill_if_no_init),
                     threading.Timer(TIMEOUT, proc.kill))
        for w in watchdogs:
            w.start()
        try:
            for line in proc.stdout:
                log.append(line)
                if line.startswith("@@ init") and host_ms is None:
                    host_ms = (time.monotonic() - t0) * 1000
                    reached_init.set()
                elif line.startswith('{"bench"'):
                    figs.append(json.loads(line))
                elif line.startswith("@@ done"):
                    done = True
            proc.wait(timeout=60)
        finally:
            for w in watchdogs:
                w.cancel()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        if not reached_init.is_set():
            return None
        if time.monotonic() - t0 > TIMEOUT:
            sys.stderr.write("".join(log[-40:]))
            raise SystemExit(f"linuxguest: the Linux boot took over {TIMEOUT} s")
        if not done or any(l.startswith(("## ", "linuxbench:")) for l in log):
            sys.stderr.write("".join(log[-40:]))
            raise SystemExit("linuxguest: the Linux boot did not run every benchmark")
        ext2img.check_image(vda)
        if host_ms is not None:
            figs.append({"bench": "boot", "mode": None, "kernel": "linux",
                         "params": {"from": "QEMU start", "to": "/init"},
                         "metric": "host_ms", "unit": "ms", "median": host_ms,
                         "min": host_ms, "max": host_ms, "samples": 1})
        return figs


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("fetch", "run"))
    ap.add_argument("--smp", type=int, default=4)
    ap.add_argument("--mem", default="512M")
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args(argv)
    if args.what == "fetch":
        fetch()
    else:
        for fig in run(args.smp, args.mem, args.reps):
            print(json.dumps(fig))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
