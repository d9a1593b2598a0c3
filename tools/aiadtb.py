#!/usr/bin/env python3
"""tools/aiadtb.py: QEMU virt's AIA device tree (aia=aplic-imsic) spoiled.

    python3 tools/aiadtb.py OUT.dtb --smp N --mem SIZE --edit EDIT

Dumps the device tree QEMU gives `-machine virt,aia=aplic-imsic -smp N -m
SIZE`, edits the S-level IMSIC's or APLIC's node with dtc and writes
OUT.dtb, for a boot that passes it back with `-dtb`: the kernel must say
what is wrong, leave that part out and boot on
(kernel/arch/riscv64/irqchip.c). Edits:

  imsic-files  the S-level IMSIC's reg holds one interrupt file (4 KiB)
               for N harts: no MSIs, and (no PLIC) no interrupts at all
  aplic-msi    the S-level APLIC has no msi-parent (direct mode, not
               supported): wired devices get no interrupts, MSIs still go

(An IMSIC without reg is not among them: OpenSBI v1.1 stops on it itself,
`init_coldboot: irqchip init failed (error -3)`, before the kernel runs.)
"""

import argparse
import os
import shlex
import sys
from pathlib import Path

import pcidtb  # tools/pcidtb.py: edit_tree

# (the node's name, the pattern in it, its replacement)
EDITS = {
    "imsic-files": ("imsics@28000000", r"(\breg = <0x00 0x28000000 0x00) 0x[0-9a-f]+>",
                    r"\1 0x1000>"),
    "aplic-msi": ("aplic@d000000", r"^\s*msi-parent = <[^>]*>;\n", ""),
}
MESSAGES = {
    "imsic-files": "aia: the S-level IMSIC at 0x28000000 (0x1000 bytes) has "
                   "interrupt files for 1 of",
    "aplic-msi": "aplic: 0xd000000 has no msi-parent (direct delivery mode is "
                 "not supported): wired devices get no interrupts",
}


def node_span(dts, name):
    """The span of node @name's body in @dts."""
    start = dts.index(name + " {")
    return start, dts.index("};", start)


def make(out: Path, smp: int, mem: str, edit: str) -> None:
    qemu = shlex.split(os.environ.get("WHOLE_QEMU", "qemu-system-riscv64"))
    name, pattern, repl = EDITS[edit]
    pcidtb.edit_tree(out, qemu, "virt,aia=aplic-imsic", smp, mem,
                     lambda dts: node_span(dts, name), pattern, repl,
                     f"aiadtb: edit {edit!r}", name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--smp", type=int, required=True)
    ap.add_argument("--mem", required=True)
    ap.add_argument("--edit", choices=sorted(EDITS), required=True)
    args = ap.parse_args()
    make(args.out, args.smp, args.mem, args.edit)
    return 0


if __name__ == "__main__":
    sys.exit(main())
