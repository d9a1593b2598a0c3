#!/usr/bin/env python3
"""tools/test_irqloss.py: what tools/irqloss.py and the -smp rule rest on.

The old used_event scheme still applies to drivers/virtqueue.c (else the
experiment measures nothing), and every tool gives QEMU at least two
possible CPUs (tools/qemu_smp.py; tools/run the same in bash): a boot at
--smp 1 shows one hart online, and QEMU was told maxcpus=2.
"""
import os
import subprocess
import unittest
from pathlib import Path

import wholerun
from qemu_smp import smp_arg

ROOT = Path(__file__).resolve().parent.parent


class IrqLossTest(unittest.TestCase):
    def test_lazy_patch_applies(self):
        res = subprocess.run(["git", "apply", "--check",
                              str(ROOT / "tools" / "irqloss.d" / "lazy.patch")],
                             cwd=ROOT, capture_output=True, text=True)
        self.assertEqual(res.returncode, 0, res.stderr)

    def test_two_possible_cpus(self):
        self.assertEqual(smp_arg(1), "1,maxcpus=2")
        self.assertEqual(smp_arg("1"), "1,maxcpus=2")
        self.assertEqual(smp_arg(4), "4")

    def test_run_at_smp_1(self):
        run = ["--smp", "1", "-c", "echo up"]
        # WHOLE_QEMU=echo: tools/run prints the QEMU command it would run.
        res = wholerun.run(run, timeout=60, env=dict(os.environ, WHOLE_QEMU="echo"))
        self.assertEqual(res.returncode, 0, res.stderr[-2000:])
        self.assertIn("-smp 1,maxcpus=2 ", res.stdout)
        res = wholerun.run(run)
        self.assertEqual(res.returncode, 0, res.stdout[-2000:])
        self.assertIn("smp: 1 of 1 harts online", res.stdout)


if __name__ == "__main__":
    unittest.main()
