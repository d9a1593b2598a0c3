#!/usr/bin/env python3
"""tools/itsdtb.py: aarch64 virt's GICv3 device tree with its ITS spoiled.

    python3 tools/itsdtb.py OUT.dtb --smp N --mem SIZE --machine ,gic-version=3

Dumps the device tree QEMU gives `-machine virtOPTS -smp N -m SIZE`
(`dumpdtb=`; OPTS must ask for GICv3), takes the `reg` out of the "arm,gic-v3-its" node
with dtc and writes OUT.dtb, for a boot that passes it back with `-dtb`
(the same machine options, so the tree still matches the board): the
kernel must say the ITS is unusable, give its PCI functions INTx and
boot on (kernel/arch/aarch64/gicv3_its.c).
"""

import argparse
import sys
from pathlib import Path

import pcidtb  # tools/pcidtb.py: edit_tree, qemu_command

MESSAGE = "its: its@8080000 has no reg, no phandle or no msi-controller"


def its_node(dts):
    """The span of the ITS's node in @dts."""
    start = dts.index('compatible = "arm,gic-v3-its"')
    return dts.rindex("{", 0, start), dts.index("};", start)


def make(out: Path, smp: int, mem: str, machine: str) -> None:
    qemu, _ = pcidtb.qemu_command("aarch64")
    pcidtb.edit_tree(out, qemu, f"virt{machine}", smp, mem, its_node,
                     r"^\s*reg = <[^>]*>;\n", "", "itsdtb: reg", "the ITS node")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--smp", type=int, required=True)
    ap.add_argument("--mem", required=True)
    ap.add_argument("--machine", default=",gic-version=3")
    args = ap.parse_args()
    make(args.out, args.smp, args.mem, args.machine)
    return 0


if __name__ == "__main__":
    sys.exit(main())
