#!/usr/bin/env python3
"""tools/bench.py: boot whole several times and collect its benchmarks.

    tools/bench [--boots N] [--seed S] [--smp N] [--reps N] [--only NAME...]
                [--linux] [--engine uring|aio]
    tools/bench --scaling [--boots N] [--seed S] [--reps N] [--linux]
    tools/bench --arch aarch64|both [the first form's options]

Each boot gets a fresh 512M ext2 image (vda, as the Linux anchor's) and a
fresh 128M scratch disk (vdb, which only the raw write figure writes),
with QEMU's modern virtio-mmio transport and cache=unsafe, the set-up of
../shared/anchors/linux-guest. The guest runs `echo @@ ready; bench -r
REPS [NAME...]` and prints one JSON object per figure (app/bench.h);
the host adds the boot's wall time from QEMU's start to "@@ ready", the
shell's first command (`boot`/`host_ms`), and the kernel's text size
(`image`/`text_bytes`). The benchmark `mixed` runs in boots of its own,
MIXED_BOOTS for each boot of the rest; each runs its three modes (the
kernel's, as fill_lock=i_rwsem, as invalidate_lock=off) round by round.

--linux also boots Debian's Linux riscv64 in each configuration of
tools/linuxguest.py (linux-ext2: whole's ext2 image; linux-ext4: an ext4
image; the same QEMU machine and disks; tools/linuxbench.c: the same
workloads as a Linux program, with --only those of them Linux has:
linux_only), as many times as whole, so all are
measured in one sitting. All the boots of a run (whole's, mixed's, each
Linux configuration's) go in one shuffled order, from a seed that is
printed and kept (--seed repeats the order), so a host that slows down
weighs on every kernel alike.

--fs ext2,ext4 (default ext2) names the filesystems whole's boots run on:
ext2 is the image above; ext4 is `mke2fs -t ext4 -O ^has_journal`
(tools/ext2img.py EXT4_DEFAULT, 512M) mounted with rootfstype=ext4. Each
round gets a boot of each, in the same shuffled order; whole's ext4
figures carry "kernel": "whole-ext4" (ext2's none, as before), and `mixed`
stays on ext2. With ext4 a table "ext4 beside ext2" follows: whole's two
and, with --linux, Linux's two, each pair's ratio (benchmark fs_cost,
app/bench_fscost.c: write+fsync, cold read and punch at 1 MiB and 4 KiB).

Across boots, a figure's median is the median of the boots' medians, its
min and max the extremes of every sample. Written to build/bench.json,
one object per figure; Linux's carry "kernel": the configuration (every
value begins with "linux"), whole's none. One object {"bench": "run"}
keeps the seed, the order and the host's load, and one {"bench": "goal"}
per goal its verdict. Then a table of whole's figures, the ratios
issue #10 set goals for, the table of whole beside each Linux
configuration (medians, min-max, how many times better whole is than the
best Linux configuration of the row: the ratio of the medians and of the
extremes) and the goals of issue #32, met or not.
--scaling runs issue #32's scaling rows instead, into
build/bench_scaling.json: per round a boot at each of 1, 2, 4 and 8 harts
running scaling_cached_read (readers on every hart: the row of that hart
count), mixed and cold_seq_read (their modes marked "@N"), and a boot with
2 GiB of memory and a 2 GiB disk running file_size_cost (write+fsync and
cold read of 16 MiB to 1 GiB, per MiB); then scaling_goals' verdicts.
With --linux, each Linux configuration gets the same boots in the same
shuffled order (scaling_cached_read and cold_seq_read at each hart count,
file_size_cost with the same memory and disk; no mixed: its modes are
whole's), and the table of whole beside them follows, with Linux's own
ratios for comparison.
--arch aarch64 boots whole's aarch64 kernel instead (its Image, below), on
qemu-system-aarch64's virt (linuxguest.MACHINE: cortex-a57, GICv2,
highmem=off) with the same disks, and with --linux Debian's arm64 Linux
on that machine line (tools/linuxguest.py --arch); every object written
then carries "arch": "aarch64" (riscv64's carry none, as before), into
build/bench_aarch64.json unless --out says otherwise. --arch both
runs riscv64's and aarch64's boots in one shuffled order (main_arches),
every object with its arch, into build/bench_arches.json, and ends with
a table of each kernel on aarch64 beside riscv64. Not with --scaling.
Benchmarks, not tests: nothing here passes or fails on a figure; the
goals are read from one run's figures and printed.

The kernel measured is the production build by default, on either arch:
build/prod/whole.elf, build/aarch64/prod/Image (prod.ninja: no lockdep,
no DEBUG_ASSERT, as Linux's distribution kernel has no lock debugging),
whose banner must say so; --debug-build measures the test kernel,
build/whole.elf or build/aarch64/Image, with every check on. Every "run"
object says which ("build": "production" or "debug").
"""

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ext2img  # noqa: E402
import linuxguest  # noqa: E402
from qemu_smp import smp_arg  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
# Each arch's kernels: the production build (prod.ninja) and the test kernel
BUILD_ELF = {"riscv64": {"production": ROOT / "build" / "prod" / "whole.elf",
                         "debug": ROOT / "build" / "whole.elf"},
             "aarch64": {"production": ROOT / "build" / "aarch64" / "prod" / "whole.elf",
                         "debug": ROOT / "build" / "aarch64" / "whole.elf"}}
ELF = BUILD_ELF["riscv64"]["production"]  # use_build() sets it from --debug-build
# the production kernel's banner ends its first line so (kernel/banner.c)
PRODUCTION_BANNER = ", production build (no lockdep)"
OUT = ROOT / "build" / "bench.json"
# The shell's first command prints it: the end of the boot, as Linux's
# "@@ ready" once its disk is mounted (tools/linuxbench.c)
READY = "@@ ready"
TIMEOUT = 900


def qemu_cmd(smp, mem, vda, vdb, cmd, bootargs=""):
    return ["qemu-system-riscv64", "-machine", "virt", "-bios", "default",
            "-nographic", "-no-reboot", "-smp", smp_arg(smp), "-m", mem,
            "-global", "virtio-mmio.force-legacy=false",
            "-kernel", str(ELF), "-append", f"{bootargs} -- {cmd}".strip(),
            # QEMU gives the first device the highest virtio-mmio slot and
            # whole names disks in address order: vdb goes first.
            # the scratch disk has a queue per hart (VIRTIO_BLK_F_MQ) for
            # rand_read_4k's multi-queue modes; Linux's guest gets the same
            "-drive", f"file={vdb},if=none,format=raw,id=d1,cache=unsafe",
            "-device", f"virtio-blk-device,drive=d1,num-queues={mq_queues(smp)}",
            "-drive", f"file={vda},if=none,format=raw,id=d0,cache=unsafe",
            "-device", "virtio-blk-device,drive=d0"]


def mq_queues(smp):
    return max(1, min(int(smp), 8))


# --arch: whole's kernel for QEMU's -kernel (aarch64's: the Image beside
# its ELF), and its ELF with the tool that sizes its text, per arch; the
# machine line is linuxguest.MACHINE's, which Linux's boots of that arch
# get too. use_build() sets both from --debug-build.
SIZE_TOOL = {"riscv64": "riscv64-unknown-elf-size", "aarch64": "aarch64-linux-gnu-size"}
KERNEL_FILE, SIZE_ELF = {}, {}


def use_build(build):
    """Measure each arch's kernel of @build ("production" or "debug")."""
    global ELF
    ELF = BUILD_ELF["riscv64"][build]
    for arch, elfs in BUILD_ELF.items():
        elf = elfs[build]
        KERNEL_FILE[arch] = elf if arch == "riscv64" else elf.with_name("Image")
        SIZE_ELF[arch] = (SIZE_TOOL[arch], elf)


use_build("production")


def arch_build(args):
    """The build every arch's boots run ("production" or "debug")."""
    return "debug" if args.debug_build else "production"


def check_build(args, arch, log):
    """Raise SystemExit unless the console @log (lines) is the banner of
    the build arch_build names: a production kernel says so."""
    production = any(PRODUCTION_BANNER in line for line in log)
    if production != (arch_build(args) == "production"):
        raise SystemExit(f"bench: {arch}'s kernel booted as "
                         f"{'production' if production else 'debug'}, not "
                         f"{arch_build(args)} "
                         f"(ninja {KERNEL_FILE[arch].relative_to(ROOT)}?)")


def arch_qemu_cmd(arch, *args, **kwargs):
    """qemu_cmd(*@args, **@kwargs) for @arch: riscv64's as it is, another
    arch's with its machine line (linuxguest.MACHINE) and kernel
    (KERNEL_FILE) in place of riscv64's; the rest (memory, harts, the
    modern virtio-mmio disks, the boot arguments) the same."""
    cmd = qemu_cmd(*args, **kwargs)
    if arch == "riscv64":
        return cmd
    rv = linuxguest.MACHINE["riscv64"]
    if cmd[:len(rv)] != rv:
        raise ValueError(f"bench: qemu_cmd does not begin with {' '.join(rv)}")
    cmd = linuxguest.MACHINE[arch] + cmd[len(rv):]
    cmd[cmd.index("-kernel") + 1] = str(KERNEL_FILE[arch])
    return cmd


def arch_text_bytes(arch):
    """whole's text size for @arch and the ELF's path, as the image
    figure's params name it."""
    tool, elf = SIZE_ELF[arch]
    size = text_bytes() if arch == "riscv64" else int(subprocess.run(
        [tool, str(elf)], capture_output=True, text=True,
        check=True).stdout.splitlines()[1].split()[0])
    return size, str(elf.relative_to(ROOT))


def arch_out(out, arch):
    """Where a run of @arch writes: @out, but aarch64's default is
    build/bench_aarch64.json, so a riscv64 run's file stays beside it."""
    return out if arch == "riscv64" or out != OUT else OUT.with_name(f"bench_{arch}.json")


# linuxbench's names (tools/linuxbench.c's benches[]) for whole's: with
# --only, Linux's boots run the same rows (linux_only), not all of them.
LINUX_NAMES = {"cached_read_4k": "cached_read", "cached_read_1m": "cached_read",
               "cold_seq_read": "cold_seq_read", "buffered_write": "buffered_write",
               "rand_read_4k": "rand_read_4k", "create_unlink": "create_unlink",
               "scaling_cached_read": "scaling_cached_read"}


def linux_only(only):
    """linuxbench's names for whole's @only (--only), each once; () (all
    of linuxbench's default) when @only names none Linux has."""
    return tuple(dict.fromkeys(LINUX_NAMES[n] for n in only if n in LINUX_NAMES))


def tag_arch(results, arch):
    """Every object of @results says "arch": @arch, riscv64's excepted
    (their format is as it was before --arch: no field means riscv64)."""
    if arch != "riscv64":
        for r in results:
            r["arch"] = arch
    return results


def boot_once(args, tmp, only=None, bootargs="", smp=None, mem=None, image="512M",
              fs="ext2"):
    """One boot: its JSON figures, and the host's time to the shell;
    @smp and @mem replace args' for this boot, @image is vda's size, @fs
    its filesystem (FS_IMAGES)."""
    vda, vdb = Path(tmp) / "vda.img", Path(tmp) / "vdb.img"
    features, fs_args = FS_IMAGES[fs]
    ext2img.make_image(vda, image, features=features)
    bootargs = " ".join(a for a in (fs_args, bootargs) if a)
    with open(vdb, "wb") as f:
        f.truncate(128 << 20)
    only = args.only if only is None else only
    cmd = f"echo {READY}; bench -r {args.reps}" + "".join(f" {n}" for n in only)
    t0 = time.monotonic()
    proc = subprocess.Popen(arch_qemu_cmd(getattr(args, "arch", "riscv64"),
                                          smp or args.smp, mem or args.mem, vda, vdb, cmd,
                                          bootargs),
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, errors="replace")
    figures, host_ms, log = [], None, []
    # A guest that hangs prints nothing: the watchdog, not the next line,
    # ends it.
    watchdog = threading.Timer(TIMEOUT, proc.kill)
    watchdog.start()
    try:
        for line in proc.stdout:
            log.append(line)
            if host_ms is None and line.startswith(READY):
                host_ms = (time.monotonic() - t0) * 1000
            if line.startswith('{"bench"'):
                figures.append(json.loads(line))
        rc = proc.wait(timeout=60)
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if time.monotonic() - t0 > TIMEOUT:
        sys.stderr.write("".join(log[-40:]))
        raise SystemExit(f"bench: the boot took over {TIMEOUT} s; killed")
    if rc != 0:
        sys.stderr.write("".join(log[-40:]))
        raise SystemExit(f"bench: the guest ended with status {rc}")
    ext2img.check_image(vda)  # the benchmarks must leave the disk clean
    check_build(args, getattr(args, "arch", "riscv64"), log)
    return figures, host_ms


def text_bytes():
    out = subprocess.run(["riscv64-unknown-elf-size", str(ELF)],
                         capture_output=True, text=True, check=True).stdout
    return int(out.splitlines()[1].split()[0])


def merge(boots):
    """Figures of several boots, keyed by (bench, mode, metric): one each."""
    by_key = {}
    for figures in boots:
        for fig in figures:
            if "skipped" in fig:
                by_key.setdefault((fig["bench"], fig["mode"], None, fig.get("kernel")),
                                  fig)
                continue
            key = (fig["bench"], fig["mode"], fig["metric"], fig.get("kernel"))
            by_key.setdefault(key, []).append(fig)
    merged = []
    for key, figs in by_key.items():
        if isinstance(figs, dict):
            merged.append(figs)
            continue
        first = figs[0]
        fig = {"bench": first["bench"], "mode": first["mode"],
               "params": first["params"], "metric": first["metric"],
               "unit": first["unit"],
               "median": statistics.median(f["median"] for f in figs),
               "min": min(f["min"] for f in figs),
               "max": max(f["max"] for f in figs),
               "boots": len(figs)}
        if "kernel" in first:
            fig["kernel"] = first["kernel"]
        merged.append(fig)
    return merged


def host_figure(bench, metric, unit, values, params):
    return {"bench": bench, "mode": None, "params": params, "metric": metric,
            "unit": unit, "median": statistics.median(values),
            "min": min(values), "max": max(values), "boots": len(values)}


def find(results, bench, mode=None):
    for r in results:
        if r["bench"] == bench and r["mode"] == mode and "median" in r \
                and "kernel" not in r:
            return r["median"]
    return None


def find_metric(results, bench, mode, metric, kernel=None):
    for r in results:
        if (r["bench"], r["mode"], r.get("metric"), r.get("kernel")) == \
                (bench, mode, metric, kernel) and "median" in r:
            return r["median"]
    return None


# Metrics where less is better; for the others (rates) more is.
LOWER_IS_BETTER = {"ns_per_op", "us_per_op", "guest_ms", "host_ms",
                   "write_fsync_us_per_mib", "cold_read_us_per_mib"}


def is_linux(fig):
    return str(fig.get("kernel", "")).startswith("linux")


def times_better(metric, whole, linux):
    """How many times better @whole is than @linux (> 1: whole ahead)."""
    return linux / whole if metric in LOWER_IS_BETTER else whole / linux


def beside_linux(results):
    """A row for each figure some Linux configuration has, in the order
    the figures first come: {bench, mode, metric, unit, whole (the merged
    figure or None), linux ({configuration: figure}), best (the Linux
    configuration with the best median), better (whole's median against
    the best's), better_lo and better_hi (the extremes: whole's worst
    sample against the best's best, and whole's best against its worst)}.
    The better* keys are there only when whole has the figure."""
    keys, whole, linux = [], {}, {}
    for r in results:
        if "median" not in r or not r["median"] or r["bench"] in ("run", "goal"):
            continue
        key = (r["bench"], r["mode"], r["metric"])
        if key not in keys:
            keys.append(key)
        if is_linux(r):
            linux.setdefault(key, {})[r["kernel"]] = r
        elif "kernel" not in r:
            whole[key] = r
    rows = []
    for key in keys:
        if key not in linux:
            continue
        bench, mode, metric = key
        lx = dict(sorted(linux[key].items()))
        # the best configuration is the one whole is least better than
        best = min(lx, key=lambda k: times_better(metric, 1.0, lx[k]["median"]))
        row = {"bench": bench, "mode": mode, "metric": metric,
               "unit": lx[best]["unit"], "whole": whole.get(key), "linux": lx,
               "best": best}
        w, b = whole.get(key), lx[best]
        if w:
            lo_better = metric in LOWER_IS_BETTER
            row["better"] = times_better(metric, w["median"], b["median"])
            row["better_lo"] = times_better(
                metric, w["max"] if lo_better else w["min"],
                b["min"] if lo_better else b["max"])
            row["better_hi"] = times_better(
                metric, w["min"] if lo_better else w["max"],
                b["max"] if lo_better else b["min"])
        rows.append(row)
    return rows


# Issue #32's goals for whole against the best Linux configuration of each
# row: 2x where Linux makes a system call per small operation (a 4 KiB
# read, a create+unlink, a random 4 KiB device read at depth 1: one
# io_uring_enter each), 1.5x where it does not (1 MiB calls, fsync, the
# device at depth 32), and no row below 1.
PER_SMALL_CALL = {("cached_read_4k", None), ("create_unlink", None),
                  ("scaling_cached_read", "1"), ("scaling_cached_read", "2"),
                  ("scaling_cached_read", "4"), ("rand_read_4k", "qd1")}
NO_SMALL_CALL = {("cold_seq_read", "readahead"), ("cold_seq_read", "no_readahead"),
                 ("cold_seq_read", "raw"), ("cached_read_1m", None),
                 ("buffered_write", "cache"), ("buffered_write", "write_fsync"),
                 ("buffered_write", "fsync"), ("buffered_write", "reread"),
                 ("buffered_write", "raw"), ("rand_read_4k", "qd32")}


def row_goal(bench, mode):
    if (bench, mode) in PER_SMALL_CALL:
        return 2.0
    if (bench, mode) in NO_SMALL_CALL:
        return 1.5
    return 1.0


def label(bench, mode, metric=None):
    """A row's name: the bench, its mode, and the metric where the bench
    has two (boot: guest_ms, host_ms; file_size_cost: write+fsync and cold
    read)."""
    words = [bench] + ([mode] if mode is not None else [])
    two = bench in ("boot", "file_size_cost")
    return " ".join(words + ([metric] if two and metric else []))


def goals(results):
    """Issue #32's goals, read from one run's figures: [(what, value,
    goal, met)]. Each row against the best Linux configuration (the ratio
    of the medians, row_goal), then whole's own: a cold read and an fsync
    at 0.8 of the raw device, a buffered write into the cache at 0.8 of
    the cached read at 1 MiB I/O (the file read back in the same rounds)."""
    out = []
    for row in beside_linux(results):
        if "better" in row:
            goal = row_goal(row["bench"], row["mode"])
            out.append((f"{label(row['bench'], row['mode'], row['metric'])} "
                        f"vs {row['best']}",
                        row["better"], goal, row["better"] >= goal))
    for what, num, den in (
            ("cold_seq_read readahead / raw", ("cold_seq_read", "readahead"),
             ("cold_seq_read", "raw")),
            ("buffered_write fsync / raw", ("buffered_write", "fsync"),
             ("buffered_write", "raw")),
            ("buffered_write cache / reread", ("buffered_write", "cache"),
             ("buffered_write", "reread"))):
        n, d = find(results, *num), find(results, *den)
        if n and d:
            out.append((what, n / d, 0.8, n / d >= 0.8))
    return out


def schedule(boots, seed, whole=True, mixed=True, linux=()):
    """The boots of a run in one shuffled order: for each of @boots
    rounds, whole's boot (if @whole), MIXED_BOOTS of `mixed` (if @mixed)
    and one of each Linux configuration in @linux; the same @seed gives
    the same order."""
    order = []
    for _ in range(boots):
        order += ["whole"] * bool(whole) + ["mixed"] * (MIXED_BOOTS if mixed else 0)
        order += list(linux)
    random.Random(seed).shuffle(order)
    return order


# The benchmark `mixed` runs in boots of its own, MIXED_BOOTS for each
# boot of the rest, so it starts from the same fresh set-up every time.
# Each of its boots runs the three modes round by round on one file
# (app/bench_mixed.c): a mode per boot (boot arguments) left the ratios to
# the host's speed from one boot to the next, and kernel/legacy came out
# anywhere from 0.65 to 1.05 for one code (2026-12-05).
MIXED_BOOTS = 2


def ratios(results):
    """The ratios issue #10 set goals for: (what, value, goal); issue #32
    raised the first three to 0.8 (goals())."""
    out = []

    def add(what, num, den, goal, invert=False):
        if num and den:
            out.append((what, den / num if invert else num / den, goal))

    mib = 1 << 20
    cached_1m = find(results, "cached_read_1m")
    cached_mb_s = mib / cached_1m * 1000 if cached_1m else None  # MB/s
    add("cold_seq_read readahead / raw", find(results, "cold_seq_read", "readahead"),
        find(results, "cold_seq_read", "raw"), ">= 0.8")
    # The most that ratio can be on this host: read() copies every byte, so
    # a cold read takes at least memcpy_1m a MiB, however well the device's
    # reads overlap the copies; the raw read takes 2^20 B / its MB/s.
    raw = find(results, "cold_seq_read", "raw")
    copy = find(results, "memcpy_1m")
    if raw and copy:
        out.append(("cold_seq_read raw MiB time / memcpy_1m (the ceiling above)",
                    mib * 1000 / raw / copy, "-"))
    # The written file read back in the same rounds (mode reread); runs
    # from before it had that figure: cached_read_1m, another stretch.
    add("buffered_write cache / cached read", find(results, "buffered_write", "cache"),
        find(results, "buffered_write", "reread") or cached_mb_s, ">= 0.8")
    add("buffered_write fsync / raw", find(results, "buffered_write", "fsync"),
        find(results, "buffered_write", "raw"), ">= 0.8")
    c4k = find(results, "cached_read_4k")
    if c4k and cached_1m:  # per byte: (1m ns / 256) / 4k ns
        out.append(("cached_read 4k / 1m per byte", cached_1m / 256 / c4k, ">= 0.8"))
    add("cached_read_1m / memcpy_1m (cost)", cached_1m, find(results, "memcpy_1m"),
        "near 1")
    add("scaling_cached_read 4 / 1", find(results, "scaling_cached_read", "4"),
        find(results, "scaling_cached_read", "1"), "grows")
    for queues in ("4q", "2q", "8q"):
        add(f"rand_read_4k qd32 from 4 harts, {queues} / 1q",
            find(results, "rand_read_4k", f"qd32_{queues}"),
            find(results, "rand_read_4k", "qd32_1q"), "-")
    for metric in ("reads_per_s", "writes_per_s", "punches_per_s"):
        fixed = find_metric(results, "mixed", "invalidate_lock", metric)
        add(f"mixed {metric} invalidate_lock / i_rwsem", fixed,
            find_metric(results, "mixed", "i_rwsem", metric),
            ">= 3" if metric == "reads_per_s" else "-")
        add(f"mixed {metric} invalidate_lock / legacy", fixed,
            find_metric(results, "mixed", "legacy", metric),
            ">= 0.95" if metric == "reads_per_s" else "-")
    return out


# --scaling (issue #32): boots at each hart count, each running the
# benchmarks that should grow with the harts, and boots with 2 GiB of
# memory and a 2 GiB disk for the file-size rows.
SCALING_SMPS = (1, 2, 4, 8)
SCALING_BENCHES = ("scaling_cached_read", "mixed", "cold_seq_read")
SIZE_BENCH = "file_size_cost"
SIZE_MIBS = (16, 64, 256, 1024)
SIZE_MEM = SIZE_IMAGE = "2G"
SIZE_SMP = 4
# A Linux file-size boot's limit per round, in seconds (linuxguest.run)
SIZE_TIMEOUT = 600


# What each Linux configuration runs in those boots: the same work but
# mixed (whole's invalidate_lock modes have no Linux counterpart).
LINUX_SCALING_BENCHES = ("scaling_cached_read", "cold_seq_read")


def scaling_schedule(boots, seed, linux=()):
    """For each of @boots rounds a boot at each hart count ("smpN") and a
    file-size boot ("size"), and the same of each Linux configuration in
    @linux ("linux-ext4:smp4", "linux-ext4:size"), in one shuffled order
    from @seed."""
    kinds = [f"smp{n}" for n in SCALING_SMPS] + ["size"]
    order = []
    for _ in range(boots):
        order += kinds + [f"{k}:{kind}" for k in linux for kind in kinds]
    random.Random(seed).shuffle(order)
    return order


def tag_scaling(figures, smp):
    """A boot at @smp harts: its scaling_cached_read figure for readers on
    every hart (mode "N", the others dropped: each hart count is its own
    boot), every other figure's mode marked "@N" ("invalidate_lock@4";
    "@4" for a figure without a mode) and smp added to its params."""
    out = []
    for fig in figures:
        if fig["bench"] == "scaling_cached_read":
            if fig["mode"] == str(smp) and "skipped" not in fig:
                out.append(fig)
            continue
        fig = dict(fig)
        fig["mode"] = f"{fig['mode'] or ''}@{smp}"
        if "params" in fig:
            fig["params"] = dict(fig["params"] or {}, smp=smp)
        out.append(fig)
    return out


def scaling_goals(results, kernel=None):
    """Issue #32's scaling goals, read from one --scaling run's figures:
    [(what, value, goal, met)]. Cached reads on 2 and on 4 harts at 1.8x
    of one hart or more; mixed's reads on 4 harts not below 2 harts';
    write+fsync and cold read per MiB within 10% from 16 MiB to 1 GiB
    (the cheapest size's cost over the dearest's >= 1/1.1). Whole's
    figures, or with @kernel that Linux configuration's (the same
    arithmetic, for comparison: the goals are whole's)."""
    def reads(n):
        for r in results:
            if (r["bench"], r["mode"], r.get("kernel")) == \
                    ("scaling_cached_read", str(n), kernel) and "median" in r:
                return r["median"]
        return None

    out = []
    one = reads(1)
    for n in (2, 4):
        v = reads(n)
        if one and v:
            out.append((f"scaling_cached_read {n} / 1", v / one, 1.8, v / one >= 1.8))
    m2, m4 = (find_metric(results, "mixed", f"invalidate_lock@{n}", "reads_per_s",
                          kernel) for n in (2, 4))
    if m2 and m4:
        out.append(("mixed reads_per_s @4 / @2", m4 / m2, 1.0, m4 / m2 >= 1.0))
    for metric in ("write_fsync_us_per_mib", "cold_read_us_per_mib"):
        costs = [find_metric(results, SIZE_BENCH, str(m), metric, kernel)
                 for m in SIZE_MIBS]
        if all(costs):
            value = min(costs) / max(costs)
            out.append((f"{SIZE_BENCH} {metric} min / max "
                        f"({SIZE_MIBS[0]} MiB .. {SIZE_MIBS[-1]} MiB)",
                        value, round(1 / 1.1, 3), value >= round(1 / 1.1, 3)))
    return out


def run_scaling(args, seed):
    """The boots of --scaling: their figures, merged, and the order."""
    order = scaling_schedule(args.boots, seed,
                             linuxguest.KERNELS if args.linux else ())
    print(f"bench: {len(order)} boots in the order of seed {seed} "
          f"(--seed {seed} repeats it): {' '.join(order)}", file=sys.stderr)
    boots = []
    for i, kind in enumerate(order):
        kernel, _, what = kind.rpartition(":")
        if kernel:
            figures = linux_scaling_boot(args, kernel, what)
        else:
            figures = whole_scaling_boot(args, kind)
        boots.append(figures)
        print(f"bench: boot {i + 1} of {len(order)} ({kind}): {len(figures)} figures",
              file=sys.stderr)
    return merge(boots), order


def whole_scaling_boot(args, kind):
    """One of whole's --scaling boots: "size" or "smpN"; its figures."""
    with tempfile.TemporaryDirectory() as tmp:
        if kind == "size":
            return boot_once(args, tmp, [SIZE_BENCH], smp=SIZE_SMP, mem=SIZE_MEM,
                             image=SIZE_IMAGE)[0]
        n = int(kind[3:])
        return tag_scaling(boot_once(args, tmp, list(SCALING_BENCHES), smp=n)[0], n)


def linux_scaling_boot(args, kernel, kind):
    """One --scaling boot of Linux in configuration @kernel: the file sizes
    with the memory and disk whole's size boots get, or @kind "smpN" at N
    harts; its figures, tagged as whole's (the boot figure left out)."""
    if kind == "size":  # 1.3 GiB written per round: ~20 MB/s on ext2 under load
        return [f for f in linuxguest.run(SIZE_SMP, SIZE_MEM, args.reps, kernel,
                                          args.engine, (SIZE_BENCH,), SIZE_IMAGE,
                                          SIZE_TIMEOUT * args.reps)
                if f["bench"] == SIZE_BENCH]
    n = int(kind[3:])
    figures = linuxguest.run(n, args.mem, args.reps, kernel, args.engine,
                             LINUX_SCALING_BENCHES)
    return tag_scaling([f for f in figures if f["bench"] != "boot"], n)


def num(v):
    if isinstance(v, float):
        return f"{v:.1f}" if v < 100000 else f"{v:.0f}"
    return str(v)


def table(results):
    lines = [f"{'bench':30} {'mode':13} {'metric':20} {'median':>12} "
             f"{'min':>12} {'max':>12}  unit"]
    for r in results:
        mode = "-" if r["mode"] is None else r["mode"]
        if "kernel" in r or r["bench"] in ("run", "goal"):
            continue  # Linux's figures: in the table beside whole's
        if "skipped" in r:
            lines.append(f"{r['bench']:30} {mode:13} skipped: {r['skipped']}")
            continue
        lines.append(f"{r['bench']:30} {mode:13} {r['metric']:20} "
                     f"{num(r['median']):>12} {num(r['min']):>12} "
                     f"{num(r['max']):>12}  {r['unit']}")
    return lines


def spread(fig):
    """'median (min-max)' of a merged figure, or a dash."""
    if fig is None:
        return "-"
    return f"{num(fig['median'])} ({num(fig['min'])}-{num(fig['max'])})"


def beside_table(rows, kernels):
    """The rows of beside_linux as a Markdown table: whole and each Linux
    configuration, median (min-max), and how many times better whole is
    than the best configuration: medians (extremes)."""
    head = ["bench", "mode", "unit", "whole"] + list(kernels) + [
        "best Linux", "whole better: medians (extremes)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        mode = label(row["bench"], row["mode"], row["metric"])[len(row["bench"]) + 1:]
        cells = [row["bench"], mode, row["unit"], spread(row["whole"])]
        cells += [spread(row["linux"].get(k)) for k in kernels]
        cells.append(row["best"])
        cells.append(f"{row['better']:.2f}x ({row['better_lo']:.2f}-"
                     f"{row['better_hi']:.2f})" if "better" in row else "-")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


# --fs: the filesystems whole's boots run on; each: (ext2img features,
# boot arguments). Whole's boots on a filesystem other than ext2 are kinds
# "whole-FS" in the order, and their figures carry "kernel": "whole-FS".
FS_IMAGES = {"ext2": (ext2img.DEFAULT_FEATURES, ""),
             "ext4": (ext2img.EXT4_DEFAULT, "rootfstype=ext4")}


def fs_list(text):
    """--fs's value: "ext2,ext4" -> ["ext2", "ext4"], each once, known."""
    names = [w for w in text.split(",") if w]
    bad = [w for w in names if w not in FS_IMAGES]
    if bad or not names or len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(
            f"{text!r}: a comma-separated list of {', '.join(FS_IMAGES)}, each once")
    return names


def fs_kinds(fs):
    """The order's kinds of whole's boots on filesystems other than ext2."""
    return [f"whole-{name}" for name in fs if name != "ext2"]


def whole_fs_boot(args, kind, only):
    """One of whole's boots of kind "whole-FS": the benchmarks @only (all
    if empty) on an FS image, their figures tagged "kernel": kind (the
    boot's `mixed` left out: it runs on ext2, in boots of its own)."""
    with tempfile.TemporaryDirectory() as tmp:
        figures, _ = boot_once(args, tmp, only, fs=kind.split("-", 1)[1])
    return [dict(f, kernel=kind) for f in figures if f["bench"] != "mixed"]


def beside_fs(results, pairs=(("whole", None, "whole-ext4"),
                              ("linux", "linux-ext2", "linux-ext4"))):
    """A row for each figure that whole or Linux has on both ext2 and
    ext4, in the order the figures first come: {bench, mode, metric,
    unit, and for each pair (name, ext2's kernel value, ext4's) that has
    the figure: name: (ext2's figure, ext4's figure, ratios)}; ratios:
    how many times better ext4 is than ext2 (times_better: > 1 ext4
    ahead), the medians', then ext4's worst sample against ext2's best
    and its best against ext2's worst."""
    keys, by = [], {}
    for r in results:
        if "median" not in r or not r["median"] or r["bench"] in ("run", "goal"):
            continue
        key = (r["bench"], r["mode"], r["metric"])
        if key not in keys:
            keys.append(key)
        by[key + (r.get("kernel"),)] = r
    rows = []
    for key in keys:
        bench, mode, metric = key
        row = {"bench": bench, "mode": mode, "metric": metric}
        for name, k2, k4 in pairs:
            e2, e4 = by.get(key + (k2,)), by.get(key + (k4,))
            if not e2 or not e4:
                continue
            lo = metric in LOWER_IS_BETTER
            row["unit"] = e2["unit"]
            row[name] = (e2, e4, (
                times_better(metric, e4["median"], e2["median"]),
                times_better(metric, e4["max"] if lo else e4["min"],
                             e2["min"] if lo else e2["max"]),
                times_better(metric, e4["min"] if lo else e4["max"],
                             e2["max"] if lo else e2["min"])))
        if any(name in row for name, *_ in pairs):
            rows.append(row)
    return rows


def beside_fs_table(rows, names=("whole", "linux")):
    """The rows of beside_fs as a Markdown table: for each of @names,
    ext2's and ext4's median (min-max) and ext4 against ext2."""
    head = ["bench", "mode", "metric", "unit"]
    for name in names:
        head += [f"{name} ext2", f"{name} ext4",
                 f"{name} ext4 vs ext2: medians (extremes)"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [row["bench"], row["mode"] or "", row["metric"], row["unit"]]
        for name in names:
            if name not in row:
                cells += ["-", "-", "-"]
                continue
            e2, e4, (med, lo, hi) = row[name]
            cells += [spread(e2), spread(e4), f"{med:.2f}x ({lo:.2f}-{hi:.2f})"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def print_beside_fs(results, args, seed):
    """tools/bench's table "ext4 beside ext2", if a run has one."""
    rows = beside_fs(results) if "ext4" in args.fs else []
    if not rows:
        return
    names = [n for n in ("whole", "linux") if any(n in r for r in rows)]
    print(f"\next4 beside ext2 ({args.boots} boots each, shuffled with seed {seed}, "
          f"-smp {args.smp}, -r {args.reps}; ext4 vs ext2 > 1: ext4 better):")
    print("\n".join(beside_fs_table(rows, names)))


def git_commit():
    run = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain",
                            "--untracked-files=no"], capture_output=True, text=True)
    return run.stdout.strip() + ("+" if dirty.stdout.strip() else "")


def main_scaling(args):
    if args.linux:
        linuxguest.fetch()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    load_before, t_start, commit = os.getloadavg(), time.time(), git_commit()
    results, order = run_scaling(args, seed)
    load_after = os.getloadavg()
    checks = scaling_goals(results)
    kernels = linuxguest.KERNELS if args.linux else ()
    results.append({"bench": "run", "mode": None, "params": {
        "seed": seed, "order": order, "boots": args.boots, "reps": args.reps,
        "scaling": True, "linux": list(kernels), "commit": commit,
        "build": arch_build(args),
        "start": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(t_start)),
        "end": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in load_after]}})
    results += [{"bench": "goal", "mode": what, "value": round(value, 3),
                 "goal": goal, "met": met} for what, value, goal, met in checks]
    out = args.out if args.out != OUT else OUT.with_name("bench_scaling.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n")
    print("\n".join(table(results)))
    print(f"\ngoals (issue #32, scaling; {sum(m for *_, m in checks)} of "
          f"{len(checks)} met; {args.boots} boots of each kind, -r {args.reps}):")
    for what, value, goal, met in checks:
        print(f"  {what:64} {value:8.3f}   goal >= {goal:<5} "
              f"{'met' if met else 'NOT MET'}")
    rows = beside_linux(results)
    if rows:
        print(f"\nwhole beside Linux ({args.boots} boots each, shuffled with seed "
              f"{seed}, -r {args.reps}; mode @N: N harts):")
        print("\n".join(beside_table(rows, sorted({k for r in rows for k in r["linux"]}))))
    for kernel in kernels:
        print(f"\nthe same ratios of {kernel} (for comparison; the goals are whole's):")
        for what, value, goal, _ in scaling_goals(results, kernel):
            print(f"  {what:64} {value:8.3f}")
    print(f"\nload average {' '.join(f'{x:.2f}' for x in load_before)} before, "
          f"{' '.join(f'{x:.2f}' for x in load_after)} after")
    print(f"written: {out}")
    return 0


# --arch both: every arch's boots (whole's, mixed's, each Linux
# configuration's) in one shuffled order, so a host that slows down weighs
# on both arches alike; each arch's figures merged apart, then a table of
# each kernel's figures on aarch64 beside riscv64.
BOTH_ARCHES = ("riscv64", "aarch64")


def arch_schedule(boots, seed, arches, whole=True, mixed=True, linux=()):
    """schedule()'s boots for each of @arches, "ARCH:KIND", in one order
    shuffled from @seed."""
    order = [f"{arch}:{kind}" for arch in arches
             for kind in schedule(boots, seed, whole, mixed, linux)]
    random.Random(seed).shuffle(order)
    return order


def arch_boot(args, arch, kind, rest):
    """One boot of main_arches' order on @arch: @kind "whole" (the rows of
    @rest, `mixed` left out), "mixed" or a Linux configuration, as main()
    runs them; (its figures, the host's ms to the shell or None)."""
    one = argparse.Namespace(**dict(vars(args), arch=arch))
    with tempfile.TemporaryDirectory() as tmp:
        if kind == "whole":
            figures, ms = boot_once(one, tmp, rest)
            return [f for f in figures if f["bench"] != "mixed"], ms
        if kind == "mixed":
            return boot_once(one, tmp, ["mixed"])[0], None
    return linuxguest.run(args.smp, args.mem, args.reps, kind, args.engine,
                          linux_only(rest), arch=arch), None


def arches_table(results, arches=BOTH_ARCHES):
    """Each kernel's figures (whole's, each Linux configuration's) on the
    second of @arches beside the first, as Markdown, a row's kernels
    together (whole first): median (min-max) of each, and how many times
    better the second's median is (> 1: the second arch ahead)."""
    a, b = arches
    figs = {}
    for r in results:
        if "median" in r and r["median"] and r["bench"] not in ("run", "goal", "image"):
            key = (r.get("kernel") or "whole", r["bench"], r["mode"], r["metric"])
            figs.setdefault(key, {})[r.get("arch", "riscv64")] = r
    head = ["kernel", "bench", "mode", "unit", a, b, f"{b} / {a}"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    rows = list(dict.fromkeys(k[1:] for k in figs))  # in the order they first come
    keys = sorted(figs, key=lambda k: (rows.index(k[1:]), k[0] != "whole", k[0]))
    for (kernel, bench, mode, metric) in keys:
        by = figs[(kernel, bench, mode, metric)]
        if a not in by or b not in by:
            continue
        mode = label(bench, mode, metric)[len(bench) + 1:]
        ratio = times_better(metric, by[b]["median"], by[a]["median"])
        lines.append("| " + " | ".join([kernel, bench, mode, by[a]["unit"],
                                         spread(by[a]), spread(by[b]),
                                         f"{ratio:.2f}x"]) + " |")
    return lines


def main_arches(args):
    """tools/bench --arch both: main()'s run on every arch of BOTH_ARCHES
    in one shuffled order; one file (every object with its "arch"),
    build/bench_arches.json unless --out says otherwise."""
    arches = BOTH_ARCHES
    if args.linux:
        for arch in arches:
            linuxguest.fetch(arch)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    mixed = not args.only or "mixed" in args.only
    rest = [name for name in args.only if name != "mixed"]
    order = arch_schedule(args.boots, seed, arches, whole=not args.only or bool(rest),
                          mixed=mixed, linux=linuxguest.KERNELS if args.linux else ())
    print(f"bench: {len(order)} boots in the order of seed {seed} "
          f"(--seed {seed} repeats it): {' '.join(order)}", file=sys.stderr)
    load_before, t_start, commit = os.getloadavg(), time.time(), git_commit()
    boots = {arch: [] for arch in arches}
    host_ms = {arch: [] for arch in arches}
    for i, item in enumerate(order):
        arch, kind = item.split(":", 1)
        figures, ms = arch_boot(args, arch, kind, rest)
        boots[arch].append(figures)
        if ms is not None:
            host_ms[arch].append(round(ms, 1))
        print(f"bench: boot {i + 1} of {len(order)} ({item}): {len(figures)} figures",
              file=sys.stderr)
    load_after = os.getloadavg()
    end = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    results, per_arch = [], {}
    for arch in arches:
        res = merge(boots[arch])
        if host_ms[arch]:
            res.append(host_figure("boot", "host_ms", "ms", host_ms[arch],
                                   {"from": "QEMU start", "to": "shell (@@ ready)"}))
        size, elf = arch_text_bytes(arch)
        res.append(host_figure("image", "text_bytes", "bytes", [size], {"file": elf}))
        checks = goals(res)
        res.append({"bench": "run", "mode": None, "params": {
            "seed": seed, "order": order, "boots": args.boots, "reps": args.reps,
            "smp": args.smp, "mem": args.mem, "commit": commit,
            "machine": linuxguest.MACHINE[arch], "build": arch_build(args),
            "start": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(t_start)),
            "end": end, "loadavg_before": [round(x, 2) for x in load_before],
            "loadavg_after": [round(x, 2) for x in load_after]}})
        res += [{"bench": "goal", "mode": what, "value": round(value, 3),
                 "goal": goal, "met": met} for what, value, goal, met in checks]
        for r in res:
            r["arch"] = arch
        per_arch[arch] = res
        results += res
    out = args.out if args.out != OUT else OUT.with_name("bench_arches.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n")
    for arch in arches:
        print(f"\n{arch} ({' '.join(linuxguest.MACHINE[arch])}):")
        print("\n".join(table(per_arch[arch])))
        rows = beside_linux(per_arch[arch])
        if rows:
            print(f"\nwhole beside Linux on {arch} ({args.boots} boots each, -smp "
                  f"{args.smp}, -r {args.reps}):")
            print("\n".join(beside_table(rows, sorted({k for row in rows
                                                       for k in row["linux"]}))))
    print(f"\n{arches[1]} beside {arches[0]} ({args.boots} boots each, shuffled with seed "
          f"{seed}, -smp {args.smp}, -r {args.reps}):")
    print("\n".join(arches_table(results, arches)))
    print(f"\nload average {' '.join(f'{x:.2f}' for x in load_before)} before, "
          f"{' '.join(f'{x:.2f}' for x in load_after)} after")
    print(f"written: {out}")
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boots", type=int, default=7,
                    help="boots of whole and of each Linux configuration")
    ap.add_argument("--seed", type=int, default=None,
                    help="the shuffled order's seed (default: a new one, printed)")
    ap.add_argument("--smp", type=int, default=4)
    ap.add_argument("--mem", default="512M")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", nargs="*", default=[],
                    help="guest benchmark names (bench -l), default all")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--linux", action="store_true",
                    help="also boot Debian's Linux in each configuration, same workloads")
    ap.add_argument("--engine", choices=("uring", "aio"), default=None,
                    help="Linux's raw I/O: io_uring (default) or Linux AIO")
    ap.add_argument("--fs", type=fs_list, default=["ext2"],
                    help="whole's filesystems, comma-separated: ext2 (default), ext4")
    ap.add_argument("--scaling", action="store_true",
                    help="issue #32's scaling rows instead: boots at 1, 2, 4 and 8 "
                    "harts, and file sizes 16 MiB to 1 GiB with 2 GiB of memory")
    ap.add_argument("--debug-build", action="store_true",
                    help="measure the test kernel (build/whole.elf, build/aarch64/Image: "
                    "lockdep and DEBUG_ASSERT on), not the production build (prod.ninja's)")
    ap.add_argument("--arch", choices=linuxguest.ARCHES + ("both",), default="riscv64",
                    help="whole's (and with --linux, Debian's Linux's) arch, on "
                    "that arch's QEMU virt (default riscv64); both: riscv64's and "
                    "aarch64's boots in one shuffled order")
    args = ap.parse_args(argv)
    use_build(arch_build(args))
    arches = BOTH_ARCHES if args.arch == "both" else (args.arch,)
    print(f"bench: {arch_build(args)} build ("
          + ", ".join(str(KERNEL_FILE[a].relative_to(ROOT)) for a in arches)
          + ("" if args.debug_build else "; --debug-build for the test kernel") + ")",
          file=sys.stderr)
    if args.scaling and args.arch != "riscv64":
        ap.error("--scaling runs on riscv64 only")
    if args.scaling:
        return main_scaling(args)
    if args.arch == "both":
        return main_arches(args)
    args.out = arch_out(args.out, args.arch)
    if args.linux:
        linuxguest.fetch(args.arch)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    mixed = not args.only or "mixed" in args.only
    rest = [name for name in args.only if name != "mixed"]
    ext2 = "ext2" in args.fs
    order = schedule(args.boots, seed, whole=(not args.only or bool(rest)) and ext2,
                     mixed=mixed and ext2,
                     linux=(fs_kinds(args.fs) if not args.only or rest else [])
                     + list(linuxguest.KERNELS if args.linux else ()))
    print(f"bench: {len(order)} boots in the order of seed {seed} "
          f"(--seed {seed} repeats it): {' '.join(order)}", file=sys.stderr)
    load_before, t_start, commit = os.getloadavg(), time.time(), git_commit()
    boots, host_ms = [], []
    for i, kind in enumerate(order):
        figures = []
        if kind == "whole":
            with tempfile.TemporaryDirectory() as tmp:
                figures, ms = boot_once(args, tmp, rest)
            # `mixed` of this boot is left out: its own boots
            figures = [f for f in figures if f["bench"] != "mixed"]
            if ms is not None:
                host_ms.append(round(ms, 1))
        elif kind == "mixed":
            with tempfile.TemporaryDirectory() as tmp:
                figures = boot_once(args, tmp, ["mixed"])[0]
        elif kind.startswith("whole-"):
            figures = whole_fs_boot(args, kind, rest)
        else:
            figures = linuxguest.run(args.smp, args.mem, args.reps, kind, args.engine,
                                     linux_only(rest), arch=args.arch)
        boots.append(figures)
        print(f"bench: boot {i + 1} of {len(order)} ({kind}): {len(figures)} figures",
              file=sys.stderr)
    load_after = os.getloadavg()
    results = merge(boots)
    if host_ms:
        results.append(host_figure("boot", "host_ms", "ms", host_ms,
                                   {"from": "QEMU start", "to": "shell (@@ ready)"}))
    size, elf = arch_text_bytes(args.arch)
    results.append(host_figure("image", "text_bytes", "bytes", [size],
                               {"file": elf}))
    checks = goals(results)
    results.append({"bench": "run", "mode": None, "params": {
        "seed": seed, "order": order, "boots": args.boots, "reps": args.reps,
        "smp": args.smp, "mem": args.mem, "commit": commit, "fs": args.fs,
        "build": arch_build(args),
        "start": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(t_start)),
        "end": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "loadavg_before": [round(x, 2) for x in load_before],
        "loadavg_after": [round(x, 2) for x in load_after]}})
    results += [{"bench": "goal", "mode": what, "value": round(value, 3),
                 "goal": goal, "met": met} for what, value, goal, met in checks]
    tag_arch(results, args.arch)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    if args.arch != "riscv64":
        print(f"arch: {args.arch} ({' '.join(linuxguest.MACHINE[args.arch])})")
    print("\n".join(table(results)))
    print(f"\nratios ({args.boots} boots, -smp {args.smp}):")
    for what, value, goal in ratios(results):
        print(f"  {what:42} {value:8.2f}   goal {goal}")
    rows = beside_linux(results)
    if rows:
        kernels = sorted({k for row in rows for k in row["linux"]})
        print(f"\nwhole beside Linux ({args.boots} boots each, shuffled with seed "
              f"{seed}, -smp {args.smp}, -r {args.reps}):")
        print("\n".join(beside_table(rows, kernels)))
    print_beside_fs(results, args, seed)
    if checks:
        print(f"\ngoals (issue #32; {sum(m for *_, m in checks)} of {len(checks)} met):")
        for what, value, goal, met in checks:
            print(f"  {what:52} {value:8.2f}   goal >= {goal:<4} "
                  f"{'met' if met else 'NOT MET'}")
    print(f"\nload average {' '.join(f'{x:.2f}' for x in load_before)} before, "
          f"{' '.join(f'{x:.2f}' for x in load_after)} after")
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
