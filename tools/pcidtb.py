#!/usr/bin/env python3
"""tools/pcidtb.py: QEMU virt's device tree with its PCI host bridge spoiled.

    python3 tools/pcidtb.py OUT.dtb --smp N --mem SIZE [--edit ranges]
                            [--arch riscv64|aarch64]

Dumps the device tree QEMU gives `-machine virt -smp N -m SIZE`
(`-machine virt,dumpdtb=`; on aarch64 the machine tools/ktest_runner.py
boots: highmem=off, GICv2, cortex-a57), edits the `pci-host-ecam-generic`
node with dtc and writes OUT.dtb, for a boot that passes it back with
`-dtb`: the board then says something wrong about its PCI bridge, and the
kernel must say so, leave the bridge out and boot on (drivers/pci_host.c).
Edits:

  ranges     the node has no `ranges` (no window to place BARs in)
  bus-range  `bus-range` asks for more buses than `reg` holds (one): 256
             on riscv64's virt, 16 on aarch64's (highmem=off)
  no-intx-slot1  (aarch64) `interrupt-map` loses slot 1's four entries:
             what sits there (a root port and what is behind it) has no
             INTx, and must do with MSI-X (drivers/virtio_pci_irq.c)

MESSAGES[arch][edit] is the console line the kernel must print.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ARCHES = ("riscv64", "aarch64")
# The ECAM window's reg: riscv64's virt has 256 buses at 0x30000000;
# aarch64's (highmem=off) 16 at 0x3f000000. The bus-range edit shrinks it
# to one bus (1 MiB).
EDITS = {
    "riscv64": {
        "ranges": (r"^\s*ranges = <[^>]*>;\n", ""),
        "bus-range": (r"(\breg = <0x00 0x30000000 0x00) 0x10000000>",
                      r"\1 0x100000>"),
    },
    "aarch64": {
        "ranges": (r"^\s*ranges = <[^>]*>;\n", ""),
        "bus-range": (r"(\breg = <0x00 0x3f000000 0x00) 0x1000000>",
                      r"\1 0x100000>"),
        "no-intx-slot1": (r"^(\s*interrupt-map = <)([^>]*)(>;)$", None),
    },
}
# aarch64 virt's interrupt-map entry: child address (3 cells) and pin, the
# GIC's phandle, its address (2 cells) and a 3-cell interrupt.
MAP_ENTRY_CELLS = 10


def drop_slot1(m):
    """The interrupt-map of match @m without the entries of slot 1
    (phys.hi 0x800)."""
    cells = m.group(2).split()
    entries = [cells[i:i + MAP_ENTRY_CELLS]
               for i in range(0, len(cells), MAP_ENTRY_CELLS)]
    if len(cells) % MAP_ENTRY_CELLS or not entries:
        raise RuntimeError("pcidtb: interrupt-map is not of 10-cell entries")
    kept = [e for e in entries if int(e[0], 16) != 0x800]
    return m.group(1) + " ".join(c for e in kept for c in e) + m.group(3)
MESSAGES = {
    "riscv64": {
        "ranges": "pci@30000000: no usable ranges (missing); host bridge not used",
        "bus-range": "pci@30000000: bus-range 0-255 does not fit reg (0x100000 "
                     "bytes); host bridge not used",
    },
    "aarch64": {
        "ranges": "pcie@10000000: no usable ranges (missing); host bridge not used",
        "bus-range": "pcie@10000000: bus-range 0-15 does not fit reg (0x100000 "
                     "bytes); host bridge not used",
    },
}


def qemu_command(arch):
    """QEMU with the machine a boot of @arch runs (less -machine's
    dumpdtb=, which make() adds)."""
    if arch == "aarch64":
        return ["qemu-system-aarch64", "-cpu", "cortex-a57", "-net", "none"], \
            "virt,highmem=off"
    return shlex.split(os.environ.get("WHOLE_QEMU", "qemu-system-riscv64")), "virt"


def pci_node(dts):
    """The span of the pci host bridge's node in @dts."""
    start = dts.index('compatible = "pci-host-ecam-generic"')
    open_at = dts.rindex("{", 0, start)
    close_at = dts.index("};", start)
    return open_at, close_at


def edit_tree(out: Path, qemu, machine, smp, mem, span, pattern, repl, what, where):
    """Dump the device tree of @qemu with `-machine @machine,dumpdtb=`,
    replace @pattern by @repl (re.subn, multi-line) inside the node
    span(dts) finds, and write OUT.dtb. The edit must match exactly once:
    else RuntimeError "@what matched N times in @where". tools/aiadtb.py
    and tools/itsdtb.py spoil their nodes through it too."""
    with tempfile.TemporaryDirectory() as tmp:
        dtb = Path(tmp) / "virt.dtb"
        subprocess.run(qemu + ["-machine", f"{machine},dumpdtb={dtb}", "-smp", str(smp),
                               "-m", mem, "-nographic"],
                       check=True, capture_output=True, timeout=60)
        dts = subprocess.run(["dtc", "-q", "-I", "dtb", "-O", "dts", str(dtb)],
                             check=True, capture_output=True, text=True).stdout
        begin, end = span(dts)
        node, n = re.subn(pattern, repl, dts[begin:end], flags=re.M)
        if n != 1:
            raise RuntimeError(f"{what} matched {n} times in {where}")
        out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", str(out)],
                       input=dts[:begin] + node + dts[end:], check=True, text=True)


def make(out: Path, smp: int, mem: str, edit: str, arch: str = "riscv64") -> None:
    qemu, machine = qemu_command(arch)
    pattern, repl = EDITS[arch][edit]
    edit_tree(out, qemu, machine, smp, mem, pci_node, pattern,
              drop_slot1 if repl is None else repl,
              f"pcidtb: edit {edit!r}", f"the {arch} pci node")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--smp", type=int, required=True)
    ap.add_argument("--mem", required=True)
    ap.add_argument("--edit", choices=sorted(set(EDITS["riscv64"]) | set(EDITS["aarch64"])), default="ranges")
    ap.add_argument("--arch", choices=ARCHES, default="riscv64")
    args = ap.parse_args()
    if args.edit not in EDITS[args.arch]:
        ap.error(f"--edit {args.edit} is not an edit of {args.arch}'s tree "
                 f"({', '.join(sorted(EDITS[args.arch]))})")
    make(args.out, args.smp, args.mem, args.edit, args.arch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
