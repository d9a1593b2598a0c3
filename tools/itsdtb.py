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
import re
import subprocess
import sys
import tempfile
from pathlib import Path

MESSAGE = "its: its@8080000 has no reg, no phandle or no msi-controller"


def its_node(dts):
    """The span of the ITS's node in @dts."""
    start = dts.index('compatible = "arm,gic-v3-its"')
    return dts.rindex("{", 0, start), dts.index("};", start)


def make(out: Path, smp: int, mem: str, machine: str) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        dtb = Path(tmp) / "virt.dtb"
        subprocess.run(["qemu-system-aarch64", "-machine",
                        f"virt{machine},dumpdtb={dtb}",
                        "-cpu", "cortex-a57", "-smp", str(smp), "-m", mem,
                        "-nographic", "-net", "none"],
                       check=True, capture_output=True, timeout=60)
        dts = subprocess.run(["dtc", "-q", "-I", "dtb", "-O", "dts", str(dtb)],
                             check=True, capture_output=True, text=True).stdout
        begin, end = its_node(dts)
        node, n = re.subn(r"^\s*reg = <[^>]*>;\n", "", dts[begin:end], flags=re.M)
        if n != 1:
            raise RuntimeError(f"itsdtb: reg matched {n} times in the ITS node")
        out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", str(out)],
                       input=dts[:begin] + node + dts[end:], check=True, text=True)


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
