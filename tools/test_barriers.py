#!/usr/bin/env python3
"""Host test: the memory barriers virtio needs are in the built kernel.

Under TCG on an x86 host the device sees the driver's stores in program
order, so no boot can show a missing barrier; the generated code can. The
rule (virtio 1.1, 2.6.13 "Supplying Buffers to The Device"): the driver
writes the avail ring entry, then a store barrier, then avail->idx. In
virtqueue_add (drivers/virtqueue.c) that is a store to avail->ring[]
(offset 4 + 2 * i: a halfword store at 4(reg) once the index is folded
into the register), a `fence w,w` (or stronger), then the halfword store
of avail->idx at 2(reg), all before the lock is released.
"""
import re
import subprocess
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ELF = ROOT / "build" / "whole.elf"
OBJDUMP = "riscv64-unknown-elf-objdump"
STORE_FENCES = ("fence\tw,w", "fence\trw,w", "fence\trw,rw", "fence\tiorw,iorw")


def disassemble(func):
    out = subprocess.run([OBJDUMP, "-d", "--no-show-raw-insn",
                          f"--disassemble={func}", str(ELF)],
                         capture_output=True, text=True, check=True).stdout
    insns = [l.split(":", 1)[1].strip() for l in out.splitlines()
             if re.match(r"^\s+[0-9a-f]+:\t", l)]
    if not insns:
        raise AssertionError(f"{func} not found in {ELF}")
    return insns


class BarrierTest(unittest.TestCase):
    def test_avail_idx_published_after_a_store_fence(self):
        insns = disassemble("virtqueue_add")
        # The publication: the last avail->idx store before the unlock.
        unlock = max(i for i, s in enumerate(insns)
                     if "<spin_unlock_irqrestore>" in s)
        idx = max(i for i in range(unlock) if re.match(r"sh\t\w+,2\(\w+\)", insns[i]))
        ring = max(i for i in range(idx) if re.match(r"sh\t\w+,4\(\w+\)", insns[i]))
        between = insns[ring + 1:idx]
        self.assertTrue(any(s.startswith(STORE_FENCES) for s in between),
                        "no store fence between the avail ring entry and "
                        f"avail->idx in virtqueue_add: {between}")


if __name__ == "__main__":
    unittest.main()
