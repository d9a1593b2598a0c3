#!/usr/bin/env python3
"""tools/bench.py: boot whole several times and collect its benchmarks.

    tools/bench [--boots N] [--smp N] [--reps N] [--only NAME...] [--linux]

Each boot gets a fresh 512M ext2 image (vda, as the Linux anchor's) and a
fresh 128M scratch disk (vdb, which only the raw write figure writes),
with QEMU's modern virtio-mmio transport and cache=unsafe, the set-up of
../shared/anchors/linux-guest. The guest runs `bench -r REPS [NAME...]`
and prints one JSON object per figure (kernel/bench.h); the host adds the
boot's wall time to the shell (`boot`/`host_ms`) and the kernel's text
size (`image`/`text_bytes`). The benchmark `mixed` runs in boots of its
own, twice after each boot of the rest; each runs its three modes (the
kernel's, as fill_lock=i_rwsem, as invalidate_lock=off) round by round. Across boots, a figure's median is the
median of the boots' medians, its min and max the extremes. Written to
build/bench.json; a table and the ratios the issues set goals for follow.

--linux also boots Debian's Linux riscv64 (tools/linuxguest.py: the same
QEMU machine, disks and mke2fs image; tools/linuxbench.c: the same
workloads as a Linux program) after each of whole's boots, so both are
measured in one sitting; its figures join build/bench.json with
"kernel": "linux", and a table sets each figure of whole beside Linux's
with how many times better whole is (lower is better for times, higher
for rates).
Benchmarks, not tests: nothing here passes or fails on a figure.
"""

import argparse
import json
import os
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
ELF = ROOT / "build" / "whole.elf"
OUT = ROOT / "build" / "bench.json"
READY = re.compile(r"\] whole: \d+ harts")
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


def boot_once(args, tmp, only=None, bootargs=""):
    """One boot: its JSON figures, and the host's time to the shell."""
    vda, vdb = Path(tmp) / "vda.img", Path(tmp) / "vdb.img"
    ext2img.make_image(vda, "512M")
    with open(vdb, "wb") as f:
        f.truncate(128 << 20)
    only = args.only if only is None else only
    cmd = f"bench -r {args.reps}" + "".join(f" {n}" for n in only)
    t0 = time.monotonic()
    proc = subprocess.Popen(qemu_cmd(args.smp, args.mem, vda, vdb, cmd, bootargs),
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
            if host_ms is None and READY.search(line):
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
                by_key.setdefault((fig["bench"], fig["mode"], None), fig)
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
LOWER_IS_BETTER = {"ns_per_op", "us_per_op", "guest_ms", "host_ms"}


def beside_linux(results):
    """(bench, mode, metric, unit, whole, linux, times better) for each
    figure both kernels have."""
    rows = []
    for r in results:
        if "kernel" in r or "median" not in r:
            continue
        lx = find_metric(results, r["bench"], r["mode"], r["metric"], "linux")
        if lx is None or not r["median"] or not lx:
            continue
        better = lx / r["median"] if r["metric"] in LOWER_IS_BETTER \
            else r["median"] / lx
        rows.append((r["bench"], r["mode"], r["metric"], r["unit"],
                     r["median"], lx, better))
    return rows


# The benchmark `mixed` runs in boots of its own, MIXED_BOOTS after each
# boot of the rest, so it starts from the same fresh set-up every time.
# Each of its boots runs the three modes round by round on one file
# (fs/bench_mixed.c): a mode per boot (boot arguments) left the ratios to
# the host's speed from one boot to the next, and kernel/legacy came out
# anywhere from 0.65 to 1.05 for one code (2026-12-05).
MIXED_BOOTS = 2


def ratios(results):
    """The ratios the performance issue sets goals for: (what, value, goal)."""
    out = []

    def add(what, num, den, goal, invert=False):
        if num and den:
            out.append((what, den / num if invert else num / den, goal))

    mib = 1 << 20
    cached_1m = find(results, "cached_read_1m")
    cached_mb_s = mib / cached_1m * 1000 if cached_1m else None  # MB/s
    add("cold_seq_read readahead / raw", find(results, "cold_seq_read", "readahead"),
        find(results, "cold_seq_read", "raw"), ">= 0.5")
    # The written file read back in the same rounds (mode reread); runs
    # from before it had that figure: cached_read_1m, another stretch.
    add("buffered_write cache / cached read", find(results, "buffered_write", "cache"),
        find(results, "buffered_write", "reread") or cached_mb_s, ">= 0.5")
    add("buffered_write fsync / raw", find(results, "buffered_write", "fsync"),
        find(results, "buffered_write", "raw"), ">= 0.5")
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


def num(v):
    return f"{v:.1f}" if isinstance(v, float) else str(v)


def table(results):
    lines = [f"{'bench':30} {'mode':13} {'metric':20} {'median':>12} "
             f"{'min':>12} {'max':>12}  unit"]
    for r in results:
        mode = "-" if r["mode"] is None else r["mode"]
        if "kernel" in r:
            continue  # Linux's figures: in the table beside whole's
        if "skipped" in r:
            lines.append(f"{r['bench']:30} {mode:13} skipped: {r['skipped']}")
            continue
        lines.append(f"{r['bench']:30} {mode:13} {r['metric']:20} "
                     f"{num(r['median']):>12} {num(r['min']):>12} "
                     f"{num(r['max']):>12}  {r['unit']}")
    return lines


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--boots", type=int, default=3)
    ap.add_argument("--smp", type=int, default=4)
    ap.add_argument("--mem", default="512M")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--only", nargs="*", default=[],
                    help="guest benchmark names (bench -l), default all")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--linux", action="store_true",
                    help="also boot Debian's Linux after each boot, same workloads")
    args = ap.parse_args(argv)
    if args.linux:
        linuxguest.fetch()
    boots, host_ms = [], []
    mixed = not args.only or "mixed" in args.only
    rest = [name for name in args.only if name != "mixed"]
    for k in range(args.boots):
        figures = []
        if not args.only or rest:
            with tempfile.TemporaryDirectory() as tmp:
                figures, ms = boot_once(args, tmp, rest)
            # `mixed` of this boot is left out: its own boots below
            figures = [f for f in figures if f["bench"] != "mixed"]
            boots.append(figures)
            if ms is not None:
                host_ms.append(round(ms, 1))
        for _ in range(MIXED_BOOTS if mixed else 0):
            with tempfile.TemporaryDirectory() as tmp:
                boots.append(boot_once(args, tmp, ["mixed"])[0])
        if args.linux:
            boots.append(linuxguest.run(args.smp, args.mem, args.reps))
        print(f"bench: boot {k + 1} of {args.boots}: {len(figures)} figures",
              file=sys.stderr)
    results = merge(boots)
    if host_ms:
        results.append(host_figure("boot", "host_ms", "ms", host_ms,
                                   {"from": "QEMU start", "to": "shell"}))
    size = text_bytes()
    results.append(host_figure("image", "text_bytes", "bytes", [size],
                               {"file": "build/whole.elf"}))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1) + "\n")
    print("\n".join(table(results)))
    print(f"\nratios ({args.boots} boots, -smp {args.smp}):")
    for what, value, goal in ratios(results):
        print(f"  {what:42} {value:8.2f}   goal {goal}")
    rows = beside_linux(results)
    if rows:
        print(f"\nwhole beside Linux ({args.boots} boots each, interleaved, "
              f"-smp {args.smp}):")
        print(f"{'bench':22} {'mode':13} {'unit':8} {'whole':>12} {'linux':>12} "
              f"{'whole better':>13}")
        for bench, mode, _, unit, w, lx, better in rows:
            print(f"{bench:22} {'-' if mode is None else mode:13} {unit:8} "
                  f"{num(w):>12} {num(lx):>12} {better:12.2f}x")
    print(f"\nwritten: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
