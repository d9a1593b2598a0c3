#!/usr/bin/env python3
"""tools/linuxguest.py: Debian's Linux riscv64 on the QEMU machine whole
runs on, with workloads equivalent to whole's benchmarks (tools/bench.py
--linux).

    python3 tools/linuxguest.py fetch [--arch A]  # once: packages, Image, initramfs
    python3 tools/linuxguest.py run [--arch A] [--smp N] [--reps N]
                                    [--kernel linux-ext2|linux-ext4]

fetch keeps an apt state of its own in build/linux/apt (Debian trixie,
main, riscv64, from the host's own Debian mirror; the host's apt state is
untouched), downloads linux-image-riscv64 (the kernel package it depends
on) and busybox-static, and builds build/linux/Image (Debian's vmlinux is
already a RISC-V Image) and build/linux/initramfs.cpio (not compressed):
busybox, the modules the disk needs in dependency order (virtio_mmio,
virtio_blk, ext4 for ext2 and ext4, read from each module's .modinfo),
and /init (INIT below).

run boots it once like tools/bench boots whole (same QEMU machine, -smp,
memory, modern virtio-mmio, cache=unsafe, a fresh 512M image and a 128M
scratch disk) in one of two configurations, each its own "kernel" in the
figures:

  linux-ext2  the ext2 image whole gets (the same mke2fs command), which
              Debian's kernel mounts with its ext4 driver in ext2 mode
  linux-ext4  an ext4 image (mke2fs -t ext4, its defaults: extents,
              journal, delayed allocation), what a Linux user picks

Both get Linux at its best for these workloads (CMDLINE, QUEUE, SYSCTL
and MOUNT_OPTS below, each with its reason; /init applies them and prints
what is in effect as "@@ set" lines, which come back in the boot
figure's params): /init runs tools/linuxbench.c (whole's benchmarks as a Linux program, built
static with Debian's riscv64-linux-gnu-gcc), whose figures come back in
tools/bench.py's format.

--arch aarch64 (tools/bench --linux --arch aarch64) does the same with
Debian's arm64 packages (linux-image-arm64, busybox-static:arm64, an apt
state and files of their own in build/aarch64/linux; the kernel's
vmlinuz is gzip'd, unpacked into Image), linuxbench built with
aarch64-linux-gnu-gcc (package libc6-dev-arm64-cross: install_cross()
installs it when missing) and QEMU's aarch64 virt with the machine line
whole's aarch64 boots get (MACHINE), the console on the PL011 (ttyAMA0).
The default is riscv64, whose paths and command lines stay as they were.
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
# not compressed: Linux unpacks it at boot, and under TCG gunzip takes
# longer than QEMU's copy of the 4x larger archive
INITRD = LINUX / "initramfs.cpio"
# crc32c_generic: ext4 asks for "crc32c" by name at mount (no depends= line)
MODULES = ("virtio_mmio", "virtio_blk", "crc32c_generic", "ext4")
TIMEOUT = 900
BOOT_TIMEOUT = 180  # QEMU start to /init; usually ~3 s
BOOT_TRIES = 3
KEYRING = "/usr/share/keyrings/debian-archive-keyring.gpg"
CROSS_GCC = "riscv64-linux-gnu-gcc"

KERNELS = ("linux-ext2", "linux-ext4")

# Per arch (--arch): Debian's name for it, the cross compiler and the
# package that gives it a libc, ELF's machine number (linuxbench's check),
# the serial console, and QEMU's machine line, the one whole's boots of
# that arch get (tools/bench.py; aarch64's is tools/ktest_runner.py's:
# cortex-a57, highmem=off, GICv2 as tools/run's default, semihosting for
# whole's exit code, which Linux ignores).
ARCHES = ("riscv64", "aarch64")
DEB_ARCH = {"riscv64": "riscv64", "aarch64": "arm64"}
CROSS = {"riscv64": (CROSS_GCC, "libc6-dev-riscv64-cross"),
         "aarch64": ("aarch64-linux-gnu-gcc", "libc6-dev-arm64-cross")}
EM_MACHINE = {"riscv64": 243, "aarch64": 183}
CONSOLE = {"riscv64": "ttyS0", "aarch64": "ttyAMA0"}
MACHINE = {"riscv64": ["qemu-system-riscv64", "-machine", "virt", "-bios", "default"],
           "aarch64": ["qemu-system-aarch64", "-machine", "virt,highmem=off,gic-version=2",
                       "-cpu", "cortex-a57", "-net", "none",
                       "-semihosting-config", "enable=on,target=native"]}


def linux_dir(arch="riscv64"):
    """Where @arch's apt state, Image, initramfs and linuxbench go:
    build/linux for riscv64, build/ARCH/linux (the per-arch build
    folder) for the others."""
    return LINUX if arch == "riscv64" else ROOT / "build" / arch / "linux"


def image_path(arch="riscv64"):
    return IMAGE if arch == "riscv64" else linux_dir(arch) / "Image"


def initrd_path(arch="riscv64"):
    return INITRD if arch == "riscv64" else linux_dir(arch) / "initramfs.cpio"


def arch_cmdline(arch="riscv64"):
    """CMDLINE with @arch's serial console."""
    return CMDLINE.replace("console=ttyS0", f"console={CONSOLE[arch]}")

# Linux at its best for these workloads, each with its reason (the same
# words go beside the table in docs/benchmarks.md). The boot arguments:
CMDLINE = ("console=ttyS0 quiet"
           # Debian's kernel zeroes every page it allocates
           # (CONFIG_INIT_ON_ALLOC_DEFAULT_ON), page-cache pages a write
           # then fills whole too; whole's allocator zeroes only on
           # request (GFP_ZERO), and a write that covers a page asks none
           " init_on_alloc=0")
# The disks' queues (/sys/block/vdX/queue), set by /init before mounting:
QUEUE = (
    # no I/O scheduler: one device queue each, nothing to sort (Debian:
    # mq-deadline); whole has none
    ("scheduler", "none"),
    # readahead up to whole's window, 4 MiB (mm/readahead.c's
    # RA_DEFAULT_PAGES; Linux's default is 128 KiB)
    ("read_ahead_kb", "4096"),
    # no per-disk I/O accounting (whole keeps none)
    ("iostats", "0"),
    # a completion runs on the CPU that submitted the request (the
    # default, 1, lets the interrupted CPU of the submitter's cache group
    # run it): in trial boots 2 gave ~1.6x the IOPS at depth 32
    ("rq_affinity", "2"),
)
# /proc/sys, set by /init: no writeback starts while the 64 MiB file is
# written, so the fsync writes all of it, as whole's does (Debian's 10%
# of free memory starts the flusher at ~45 MiB, and the fsync figure then
# times only the rest); whole's flusher wakes every 500 ms and throttles
# at a quarter of memory (mm/writeback.c)
SYSCTL = (("vm/dirty_background_ratio", "20"), ("vm/dirty_ratio", "40"))
# The mount options: no atime writes (whole's ext2 never writes atime).
MOUNT_OPTS = "noatime"

# /init: mounts, loads the modules, finds the disks by size (the scratch
# one is 128M, the data one any other: 512M, or 2G for file_size_cost's
# boots; QEMU's slot order and Linux's probe order
# need not agree with whole's names), sets the queues, mounts the data
# disk as ext2 or ext4 (/kernel) and runs tools/linuxbench.c. "@@ set"
# lines say what is in effect.
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
    262144) scratch=/dev/${d##*/} ;;
    *) data=/dev/${d##*/} ;;
  esac
done
kernel=$(cat /kernel)
for q in /sys/block/vd*/queue; do
  while read key value; do
    echo $value > $q/$key || echo "## $q/$key: $value refused"
  done < /queue
  echo "@@ set ${q#/sys/block/} $(cd $q && for k in scheduler read_ahead_kb iostats rq_affinity nr_requests max_sectors_kb max_hw_sectors_kb; do echo -n "$k=$(cat $k) "; done)"
done
while read key value; do
  echo $value > /proc/sys/$key || echo "## /proc/sys/$key: $value refused"
  echo "@@ set sysctl $key=$(cat /proc/sys/$key)"
done < /sysctl
mount -t ${kernel#linux-} -o $(cat /mount_opts) $data /mnt || echo "## mount $data failed"
echo "@@ set cmdline $(cat /proc/cmdline)"
echo "@@ set mount $(grep ' /mnt ' /proc/mounts)"
LINUXBENCH_ONLY="$(cat /only)" /linuxbench $kernel $(cat /reps) /mnt $data $scratch $(cat /engine) || echo "## linuxbench failed"
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


def _apt(state, *args, tool="apt-get", arch="riscv64"):
    opts = {"Dir::Etc::sourcelist": state / "sources.list",
            "Dir::Etc::sourceparts": "/dev/null",
            "Dir::Etc::preferencesparts": "/dev/null",
            "Dir::State::Lists": state / "lists",
            "Dir::State::status": state / "status",
            "Dir::Cache": state / "cache",
            "Dir::Cache::archives": state / "archives",
            "APT::Architecture": DEB_ARCH[arch], "APT::Architectures": DEB_ARCH[arch],
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


# linuxbench.c and the headers it shares with whole (sizes, offsets)
BENCH_SOURCES = (ROOT / "tools" / "linuxbench.c", ROOT / "app" / "bench_file.h",
                 ROOT / "drivers" / "bench_rand.h")


def cross_cmd(arch, out):
    """The command that builds tools/linuxbench.c, static, for @arch's
    Linux into @out."""
    return [CROSS[arch][0], "-O2", "-static", "-pthread", "-Wall", "-Wextra",
            "-Werror", "-I", str(ROOT), str(BENCH_SOURCES[0]), "-o", str(out)]


def cross_libc(arch):
    """The static libc a -static build for @arch links, from CROSS's
    package."""
    gcc = CROSS[arch][0]
    return Path("/usr") / gcc[:-len("-gcc")] / "lib" / "libc.a"


def install_cross(arch):
    """The cross compiler's libc for @arch, installed with the host's apt
    when missing (a bench-only set-up: tools/setup installs riscv64's)."""
    pkg = CROSS[arch][1]
    if cross_libc(arch).exists():
        return
    if os.geteuid() != 0:
        raise SystemExit(f"linuxguest: {pkg} is missing: apt-get install {pkg}")
    print(f"linuxguest: installing {pkg}", file=sys.stderr)
    subprocess.run(["apt-get", "install", "-y", "-q", "--no-install-recommends", pkg],
                   check=True, stdin=subprocess.DEVNULL, stdout=sys.stderr,
                   env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"))


def build_bench(arch="riscv64"):
    """tools/linuxbench.c, static for @arch's Linux."""
    out = linux_dir(arch) / "linuxbench"
    newest = max(p.stat().st_mtime for p in BENCH_SOURCES)
    if not out.exists() or out.stat().st_mtime < newest:
        out.parent.mkdir(parents=True, exist_ok=True)
        if arch != "riscv64":
            install_cross(arch)
        subprocess.run(cross_cmd(arch, out), check=True)
    return out


def _download(arch="riscv64"):
    """The kernel's and busybox's .deb files, fetched once into the
    private apt state (again only if one is missing)."""
    state = linux_dir(arch) / "apt"
    debs = state / "debs"
    have = (sorted(debs.glob("linux-image-[0-9]*_*.deb")),
            sorted(debs.glob("busybox-static_*.deb")))
    if all(have):
        return have[0][-1], have[1][-1]
    for d in ("lists/partial", "archives/partial", "cache", "debs"):
        (state / d).mkdir(parents=True, exist_ok=True)
    (state / "status").touch()
    deb = DEB_ARCH[arch]
    (state / "sources.list").write_text(
        f"deb [arch={deb} signed-by={KEYRING}] {_sources_uri()} trixie main\n")
    print(f"linuxguest: fetching Debian trixie {deb} packages", file=sys.stderr)
    _apt(state, "update", arch=arch)
    meta = _apt(state, "depends", f"linux-image-{deb}", tool="apt-cache", arch=arch)
    kpkg = re.search(r"Depends:\s*(linux-image-\S+)", meta)[1]
    _apt(state, "download", kpkg, "busybox-static", arch=arch)
    return next(debs.glob(f"{kpkg}_*.deb")), next(debs.glob("busybox-static_*.deb"))


def kernel_image(boot):
    """The bytes QEMU's -kernel gets from the kernel package's /boot
    (@boot): riscv64's vmlinux-* is already an Image; arm64's vmlinuz-* is
    a gzip'd Image, unpacked here (QEMU's loader would too, into a buffer
    it sizes itself)."""
    found = sorted(boot.glob("vmlinux-*")) or sorted(boot.glob("vmlinuz-*"))
    if not found:
        raise SystemExit(f"linuxguest: no kernel in {boot}")
    data = found[-1].read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def fetch(arch="riscv64"):
    """Download the packages (once) and build Image and the initramfs (again
    when tools/linuxbench.c or this file changed)."""
    newest = max(p.stat().st_mtime for p in BENCH_SOURCES + (Path(__file__),))
    image, initrd = image_path(arch), initrd_path(arch)
    if image.exists() and initrd.exists() and initrd.stat().st_mtime > newest:
        return
    kdeb, bdeb = _download(arch)
    x = linux_dir(arch) / "x"
    shutil.rmtree(x, ignore_errors=True)
    for deb, into in ((kdeb, x / "kernel"), (bdeb, x / "busybox")):
        into.mkdir(parents=True)
        subprocess.run(["dpkg-deb", "-x", str(deb), str(into)], check=True)
    kimage = kernel_image(x / "kernel" / "boot")
    moddir = next((x / "kernel" / "usr" / "lib" / "modules").iterdir())
    order, paths = _load_order(moddir, MODULES)
    files = [(d, 0o40755, None, None) for d in
             ("bin", "sbin", "usr", "usr/bin", "usr/sbin", "dev", "proc",
              "sys", "mnt", "tmp", "lib", "lib/modules")]
    files.append(("dev/console", 0o20600, None, (5, 1)))
    busybox = (x / "busybox" / "usr" / "bin" / "busybox").read_bytes()
    files.append(("bin/busybox", 0o100755, busybox, None))
    files.append(("init", 0o100755, INIT.encode(), None))
    files.append(("linuxbench", 0o100755, build_bench(arch).read_bytes(), None))
    for name in order:
        data = paths[name].read_bytes()
        if paths[name].suffix == ".xz":
            data = lzma.decompress(data)
        files.append((f"lib/modules/{name}.ko", 0o100644, data, None))
    files.append(("lib/modules/order", 0o100644, ("\n".join(order) + "\n").encode(), None))
    initrd.write_bytes(_cpio(files))
    image.write_bytes(kimage)
    shutil.rmtree(x)
    print(f"linuxguest: {image.relative_to(ROOT)} ({kdeb.name}), "
          f"{initrd.relative_to(ROOT)} (modules: {' '.join(order)})", file=sys.stderr)


def qemu_cmd(smp, mem, vda, vdb, initrd, cmdline=None, arch="riscv64"):
    """QEMU's command line for one boot of @arch's Linux; @cmdline's
    default is CMDLINE with @arch's console (arch_cmdline)."""
    if cmdline is None:
        cmdline = arch_cmdline(arch)
    return MACHINE[arch] + [
            "-nographic", "-no-reboot", "-smp", smp_arg(smp), "-m", mem,
            "-global", "virtio-mmio.force-legacy=false",
            "-kernel", str(image_path(arch)), "-initrd", str(initrd),
            "-append", cmdline,
            # the same disks whole's boots get: vdb has a queue per hart
            "-drive", f"file={vdb},if=none,format=raw,id=d1,cache=unsafe",
            "-device", "virtio-blk-device,drive=d1,"
            f"num-queues={max(1, min(int(smp), 8))}",
            "-drive", f"file={vda},if=none,format=raw,id=d0,cache=unsafe",
            "-device", "virtio-blk-device,drive=d0"]


def make_image(path, kernel, size="512M"):
    """The fresh data disk of @kernel (@size): whole's ext2 image, or ext4
    with mke2fs's defaults, its inode tables and journal written now
    (lazy_itable_init=0, lazy_journal_init=0) so no kernel thread zeroes
    them behind the benchmarks."""
    if kernel == "linux-ext2":
        ext2img.make_image(path, size)
        return
    if kernel != "linux-ext4":
        raise ValueError(f"linuxguest: no such configuration {kernel}")
    cmd = ["mke2fs", "-F", "-q", "-t", "ext4", "-E",
           "lazy_itable_init=0,lazy_journal_init=0,nodiscard", str(path), size]
    subprocess.run(cmd, env=ext2img._ENV, check=True, capture_output=True)


def guest_files(kernel, reps, engine=None, only=()):
    """What /init reads, appended to the initramfs: the configuration, the
    repetitions, the queue settings and mount options, the I/O engine, the
    benchmarks to run (@only, linuxbench's names; empty: its default)."""
    return [("kernel", 0o100644, f"{kernel}\n".encode(), None),
            ("reps", 0o100644, f"{reps}\n".encode(), None),
            ("queue", 0o100644, "".join(f"{k} {v}\n" for k, v in QUEUE).encode(), None),
            ("sysctl", 0o100644, "".join(f"{k} {v}\n" for k, v in SYSCTL).encode(), None),
            ("mount_opts", 0o100644, f"{MOUNT_OPTS}\n".encode(), None),
            ("engine", 0o100644, f"{engine or ''}\n".encode(), None),
            ("only", 0o100644, f"{' '.join(only)}\n".encode(), None)]


def run(smp=4, mem="512M", reps=3, kernel="linux-ext2", engine=None, only=(),
        image="512M", timeout=TIMEOUT, arch="riscv64"):
    """One boot of Linux in configuration @kernel (KERNELS): its figures
    (tools/bench.py's format, with "kernel": @kernel) and the host's time
    from QEMU's start to linuxbench's start, the disk mounted. @only names
    linuxbench's benchmarks to run (default: all but file_size_cost), @image
    is the data disk's size, @timeout the boot's limit in seconds.
    A boot that never reaches /init (Linux under TCG now and then stops
    silently before its first line) is killed after BOOT_TIMEOUT s and
    made again, at most BOOT_TRIES times in all. @arch: ARCHES."""
    fetch(arch)
    for attempt in range(1, BOOT_TRIES + 1):
        figs = _run_once(smp, mem, reps, kernel, engine, only, image, timeout, arch)
        if figs is not None:
            return figs
        sys.stderr.write(f"linuxguest: no /init after {BOOT_TIMEOUT} s "
                         f"(try {attempt} of {BOOT_TRIES}): killed\n")
    raise SystemExit("linuxguest: Linux never reached /init")


def _run_once(smp, mem, reps, kernel, engine, only=(), image="512M", timeout=TIMEOUT,
              arch="riscv64"):
    """One boot, or None if it did not reach /init in time."""
    with tempfile.TemporaryDirectory() as tmp:
        vda, vdb = Path(tmp) / "vda.img", Path(tmp) / "vdb.img"
        make_image(vda, kernel, image)
        with open(vdb, "wb") as f:
            f.truncate(128 << 20)
        # what /init reads goes in as files appended to the initramfs
        initrd = Path(tmp) / "initrd.cpio"
        initrd.write_bytes(initrd_path(arch).read_bytes()
                           + _cpio(guest_files(kernel, reps, engine, only)))
        t0 = time.monotonic()
        proc = subprocess.Popen(qemu_cmd(smp, mem, vda, vdb, initrd, arch=arch),
                                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, errors="replace")
        figs, host_ms, log, done, settings = [], None, [], False, []
        reached_init = threading.Event()

        # A hung guest prints nothing: these end it, not the next line.
        def kill_if_no_init():
            if not reached_init.is_set():
                proc.kill()

        watchdogs = (threading.Timer(BOOT_TIMEOUT, kill_if_no_init),
                     threading.Timer(timeout, proc.kill))
        for w in watchdogs:
            w.start()
        try:
            for line in proc.stdout:
                log.append(line)
                if line.startswith("@@ init"):
                    reached_init.set()
                elif line.startswith("@@ ready") and host_ms is None:
                    host_ms = (time.monotonic() - t0) * 1000
                elif line.startswith("@@ set "):
                    settings.append(line[len("@@ set "):].strip())
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
        if time.monotonic() - t0 > timeout:
            sys.stderr.write("".join(log[-40:]))
            raise SystemExit(f"linuxguest: the Linux boot took over {timeout} s")
        if not done or any(l.startswith(("## ", "linuxbench:")) for l in log):
            sys.stderr.write("".join(log[-40:]))
            raise SystemExit("linuxguest: the Linux boot did not run every benchmark")
        ext2img.check_image(vda)
        if host_ms is not None:
            figs.append({"bench": "boot", "mode": None, "kernel": kernel,
                         "params": {"from": "QEMU start",
                                    "to": "linuxbench, the disk mounted",
                                    "settings": settings},
                         "metric": "host_ms", "unit": "ms", "median": host_ms,
                         "min": host_ms, "max": host_ms, "samples": 1})
        return figs


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("fetch", "run"))
    ap.add_argument("--arch", choices=ARCHES, default="riscv64")
    ap.add_argument("--smp", type=int, default=4)
    ap.add_argument("--mem", default="512M")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--kernel", choices=KERNELS, default=KERNELS[0])
    ap.add_argument("--engine", choices=("uring", "aio"), default=None,
                    help="raw I/O through io_uring (default) or Linux AIO")
    args = ap.parse_args(argv)
    if args.what == "fetch":
        fetch(args.arch)
    else:
        for fig in run(args.smp, args.mem, args.reps, args.kernel, args.engine,
                       arch=args.arch):
            print(json.dumps(fig))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
