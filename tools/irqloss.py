#!/usr/bin/env python3
"""tools/irqloss.py: count lost virtio-blk interrupts, -smp 1 against
-smp 1,maxcpus=2 (issue: "lost interrupts explained").

    python3 tools/irqloss.py [--boots N] [--rounds R] [--scheme lazy|kernel]

The hypothesis: QEMU before 8.1 elides the guest's memory barriers under
TCG when the machine has one possible CPU (max_cpus == 1), although the
virtio-blk completions are written by another host thread (the iothread);
so a driver that relies on smp_mb between writing used_event and
re-reading used->idx can miss a completion and wait for an interrupt that
never comes. Declaring a second possible CPU keeps the barriers.

--scheme lazy builds a copy of the tree with the old used_event scheme
(written only when the ring looked empty, tools/irqloss.d/lazy.patch),
which made the loss frequent enough to count; --scheme kernel boots the
kernel as it is. Each boot runs `bench blk` R times on a scratch disk,
then `disks`, whose watchdog counters say how many periods found
completions without an interrupt. Prints a line per configuration:
boots, boots with a loss, watchdog ticks, completions collected.
"""

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import mutants  # noqa: E402  (copy_tree: the tree without build/)

ROOT = Path(__file__).resolve().parent.parent
WATCH = re.compile(r"(vd\w): watchdog: (\d+) ticks found lost completions, "
                   r"(\d+) completions collected")
CONFIGS = ("1", "1,maxcpus=2")


def qemu_cmd(elf, smp, disk, cmd):
    return ["qemu-system-riscv64", "-machine", "virt", "-bios", "default",
            "-nographic", "-no-reboot", "-smp", smp, "-m", "256M",
            "-global", "virtio-mmio.force-legacy=false",
            "-kernel", str(elf), "-append", f"-- {cmd}",
            "-drive", f"file={disk},if=none,format=raw,id=d0,cache=unsafe",
            "-device", "virtio-blk-device,drive=d0"]


def boot(elf, smp, disk, rounds):
    """One boot. Return: (watchdog ticks, completions collected)."""
    cmd = "; ".join(["bench blk vda"] * rounds + ["disks"])
    res = subprocess.run(qemu_cmd(elf, smp, disk, cmd), capture_output=True,
                         text=True, errors="replace", timeout=120 + 60 * rounds,
                         stdin=subprocess.DEVNULL)
    m = [m for m in map(WATCH.search, res.stdout.splitlines()) if m]
    if res.returncode != 0 or not m:
        raise SystemExit(f"irqloss: boot failed (status {res.returncode}):\n"
                         f"{res.stdout[-3000:]}")
    return int(m[-1].group(2)), int(m[-1].group(3))


def build_lazy(tmp):
    tree = Path(tmp) / "tree"
    tree.mkdir()
    mutants.copy_tree(tree)
    patch = (ROOT / "tools" / "irqloss.d" / "lazy.patch").read_text()
    subprocess.run(["git", "apply", "-p1", "-"], cwd=tree, input=patch,
                   text=True, check=True)
    subprocess.run(["ninja"], cwd=tree, check=True, capture_output=True)
    return tree / "build" / "whole.elf"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--boots", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--scheme", choices=("lazy", "kernel"), default="lazy")
    a = ap.parse_args(argv[1:])
    with tempfile.TemporaryDirectory() as tmp:
        if a.scheme == "lazy":
            elf = build_lazy(tmp)
        else:  # a copy: a rebuild meanwhile must not change the kernel measured
            elf = Path(tmp) / "whole.elf"
            shutil.copy2(ROOT / "build" / "whole.elf", elf)
        disk = Path(tmp) / "scratch.img"
        with open(disk, "wb") as f:
            f.truncate(128 << 20)
        tally = {c: [0, 0, 0] for c in CONFIGS}
        for i in range(a.boots):
            for smp in CONFIGS:  # interleaved: both see the same host load
                ticks, collected = boot(elf, smp, disk, a.rounds)
                t = tally[smp]
                t[0] += ticks > 0
                t[1] += ticks
                t[2] += collected
            print(f"boot {i + 1}/{a.boots}: " + ", ".join(
                f"-smp {c}: {tally[c][0]} with a loss" for c in CONFIGS), flush=True)
    for smp in CONFIGS:
        boots_lost, ticks, collected = tally[smp]
        print(f"irqloss: {a.scheme} scheme, -smp {smp}: {a.boots} boots x {a.rounds} "
              f"bench blk, {boots_lost} with a loss, {ticks} watchdog ticks, "
              f"{collected} completions collected")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
