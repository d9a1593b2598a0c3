#!/usr/bin/env python3
"""Host test: the memory barriers virtio needs are in the built kernel.

Under TCG on an x86 host the device sees the driver's stores in program
order, so no boot can show a missing barrier; the generated code can. The
rule (virtio 1.1, 2.6.13 "Supplying Buffers to The Device"): the driver
writes the avail ring entry, then a store barrier, then avail->idx. In
virtqueue_add (drivers/virtqueue.c) that is a store to avail->ring[]
(offset 4 + 2 * i: a halfword store at 4(reg) once the index is folded
into the register), a `fence w,w` (or stronger), then the halfword store
of avail->idx at 2(reg), all before the lock is released. The same in the
aarch64 kernel: `strh` to [reg, #4], a `dmb ishst` (or stronger), `strh`
to [reg, #2]. aarch64 also checks the lock word's release: spin_unlock's
store of 0 must be a store-release (`stlr`), or the critical section's
stores could be seen after the lock looks free (riscv64's release is a
fence before the store, `fence iorw,ow` + amoswap from gcc; both come
from __ATOMIC_RELEASE).
The barriers of the other lock-free paths, and what each arch makes of
them, are listed in docs/bringup.md ("Barriers on both arches").
"""
import re
import subprocess
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ELF = ROOT / "build" / "whole.elf"
OBJDUMP = "riscv64-unknown-elf-objdump"
STORE_FENCES = ("fence\tw,w", "fence\trw,w", "fence\trw,rw", "fence\tiorw,iorw")
A64_ELF = ROOT / "build" / "aarch64" / "whole.elf"
A64_OBJDUMP = "aarch64-linux-gnu-objdump"
# barriers that order stores before stores (not dmb ishld/oshld: loads only)
A64_STORE_FENCES = re.compile(r"^(dmb|dsb)\t(ishst|ish|oshst|osh|sy|st)$")


def disassemble(func, elf=ELF, objdump=OBJDUMP):
    out = subprocess.run([objdump, "-d", "--no-show-raw-insn",
                          f"--disassemble={func}", str(elf)],
                         capture_output=True, text=True, check=True).stdout
    insns = [l.split(":", 1)[1].strip() for l in out.splitlines()
             if re.match(r"^\s+[0-9a-f]+:\t", l)]
    if not insns:
        raise AssertionError(f"{func} not found in {elf}")
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


class Aarch64BarrierTest(unittest.TestCase):
    def test_avail_idx_published_after_a_store_barrier(self):
        insns = disassemble("virtqueue_add", A64_ELF, A64_OBJDUMP)
        unlock = max(i for i, s in enumerate(insns)
                     if "<spin_unlock_irqrestore>" in s)
        idx = max(i for i in range(unlock)
                  if re.match(r"strh\t\w+, \[\w+, #2\]", insns[i]))
        ring = max(i for i in range(idx)
                   if re.match(r"strh\t\w+, \[\w+, #4\]", insns[i]))
        between = insns[ring + 1:idx]
        self.assertTrue(any(A64_STORE_FENCES.match(s) for s in between),
                        "no store barrier between the avail ring entry and "
                        f"avail->idx in virtqueue_add (aarch64): {between}")

    def test_spin_unlock_is_a_store_release(self):
        insns = disassemble("__spin_unlock", A64_ELF, A64_OBJDUMP)
        releases = [s for s in insns if s.startswith("stlr")]
        self.assertTrue(releases, "__spin_unlock (aarch64) frees the lock word "
                        f"with no store-release: {insns}")


class Riscv64ReleaseTest(unittest.TestCase):
    def test_spin_unlock_fences_before_the_store(self):
        insns = disassemble("__spin_unlock")
        # gcc's release store: a fence, then an amoswap (or a plain sw)
        fenced = [i for i, s in enumerate(insns)
                  if s.startswith(("sw\tzero", "amoswap.w\tzero,zero"))
                  and any(p.startswith(("fence\trw,w", "fence\trw,rw", "fence\tiorw,ow",
                                        "fence\tiorw,iorw")) for p in insns[max(0, i - 2):i])]
        self.assertTrue(fenced, "__spin_unlock (riscv64) frees the lock word "
                        f"with no fence before the store: {insns}")

if __name__ == "__main__":
    unittest.main()
