#!/usr/bin/env python3
"""tools/test_kconsole.py: host unit tests for tools/kconsole.py: each kind of
kernel report is found (lines written as the kernel's format strings print
them), and each is placed in the case, suite or boot phase it fell in;
kconsole.check and tools/wholerun.py, which check the console of every
host test's boot, fail on a report and name its line."""

import os
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import boots  # noqa: E402
import kconsole  # noqa: E402
import wholerun  # noqa: E402

# One line per kind, as the kernel's printk format makes it.
SAMPLES = {
    "warning": "WARNING: !page at mm/page_alloc.c:208 (cpu 1, task t)",  # kernel/panic.c
    "lockdep": "lockdep: lock order violation in task t",               # kernel/lockdep.c
    "oops": "Oops: load page fault at 0x80, address 0x10 in task t on cpu 0",
    # kernel/arch/riscv64/trap.c oops() of mmap_fault's -EIO
    "sigbus": "Oops: bus error (SIGBUS) at 0x80267a9c, address 0xffffffd000003000 "
              "in task filler on cpu 2",
    "locks-at-exit": "task reader exits holding 1 locks",               # kernel/sched.c
    "unclean-unmount": "poweroff: root not unmounted cleanly (-5)",     # kernel/main.c
    "lost-interrupt": "vda: 2 completions without an interrupt (isr 0, plic pending 0);"
                      " collected by the watchdog",                     # drivers/virtio_blk.c
    "lost-kick": "vda: 1 requests the device was never told of; notified it again",
    "io-timeout": "blk: vda: request timed out after 30000 ms, abandoned",  # drivers/block_sync.c
    "virtqueue": "virtqueue 0: device used id 7, not a buffer in flight; ignored",
    "virtio": "virtio-mmio@10008000: device 2 refused: no features",
    "pci": "pci@30000000 00:01.0: BAR 4 (0x4000 bytes) fits in no window; "
           "device skipped",                                            # drivers/pci.c
    "device-status": "vda: device returned status 7",
    "double-map": "vm: 0x1000-0x3000 already mapped otherwise",
    "interrupt": "irq: spurious interrupt 9",
    "init": "init: virtio failed (-12)",
    "smp": "smp: hart 3 did not come online",
    "bootargs": "bootargs: ignoring ktest.filter: value longer than 511",
    "ext2-error": "ext2: inode 12: freeing block 40, already free",
    "invalidate-leftover": "invalidate_lock: page 2 of inode 12 back in the range "
                           "[4096, 9223372036854775807] its holder invalidated",
}

CONSOLE = """\
OpenSBI v1.2
[    0.000100] WARNING: early at kernel/main.c:1 (cpu 0, task boot)
KTAP version 1
1..2
    KTAP version 1
    # Subtest: mm_a
    1..2
[    0.100000] Oops: load page fault at 0x80, address 0 in task victim on cpu 0
[    0.100001]  sepc: 0000000080210818 touch+0x8/0x10
[    0.100002] Backtrace:
[    0.100003]   touch+0x8/0x10
[    0.100004] task victim (tid 5) killed: load page fault at 0x80, address 0
    ok 1 fault_is_reported
    ok 2 quiet
[    0.200000] lockdep: lock order violation in task teardown
ok 1 mm_a
[    0.250000] vda: 1 completions without an interrupt (isr 0, plic pending 0)
    KTAP version 1
    # Subtest: mm_b
    1..2
    ok 1 first
[    0.300000] WARNING: cut short at mm/vm.c:2 (cpu 0, task second)
"""


def scan(text):
    return kconsole.scan(textwrap.dedent(text).splitlines())


class KconsoleTest(unittest.TestCase):
    def test_each_kind_is_found(self):
        self.assertEqual(set(SAMPLES), kconsole.KINDS)
        for kind, msg in SAMPLES.items():
            with self.subTest(kind=kind):
                reports = scan(f"[    1.234567] {msg}\n")
                self.assertEqual([r.kind for r in reports], [kind])

    def test_ext2_errors_of_each_shape(self):
        for msg in ("ext2: directory inode 12: bad entry in block 306 at offset 40",
                    "ext2: I/O error -5 writing block 77",           # fs/ext2/buffer.c
                    "ext2: vda: I/O error -5 reading the superblock",  # fs/ext2/super.c
                    "ext2: not freeing reserved or invalid inode 1"):  # fs/ext2/ialloc.c
            with self.subTest(msg=msg):
                self.assertEqual([r.kind for r in scan(f"[ 1.0] {msg}\n")], ["ext2-error"])

    def test_pci_lines_of_each_board(self):
        """aarch64's virt names its bridge pcie@, riscv64's pci@."""
        for msg in ("pcie@10000000 00:01.0: no INTx route in the interrupt-map; skipped",
                    "pcie@10000000: cannot map the ECAM window (-34); host bridge not used",
                    "pcie@10000000: interrupt-map entry 0: a 4-cell interrupt (first "
                    "cell 0) whole cannot read; the rest ignored"):
            with self.subTest(msg=msg):
                self.assertEqual([r.kind for r in scan(f"[ 1.0] {msg}\n")], ["pci"])

    def test_only_the_bus_error_line_is_sigbus(self):
        """Every other oops trap.c prints, and a bus error line with
        anything changed, is an "oops"."""
        for msg in ("Oops: segmentation fault (SIGSEGV) at 0x80265a36, address "
                    "0xffffffd000002000 in task mmap-touch on cpu 0",
                    "Oops: segmentation fault (SIGSEGV: no execute) at 0x1, "
                    "address 0x2 in task t on cpu 0",
                    "Oops: file-mapping fault where the task cannot sleep at "
                    "0x1, address 0x2 in task t on cpu 0",
                    "Oops: load page fault at 0x8020efb0, address 0x0 in task "
                    "victim on cpu 1",
                    "Oops: illegal instruction at 0x80200aee, address 0 in task "
                    "victim on cpu 1",
                    "Oops: stack overflow (sp 0xffffffc00011bdd0, stack bottom "
                    "0xffffffc00011c000) in task victim on cpu 0",
                    "Oops: bus error (SIGBUS) at 0x1, address 0x2 in task t on cpu 0 "
                    "and more",
                    "Oops: bus error (SIGBUS)"):
            with self.subTest(msg=msg):
                self.assertEqual([r.kind for r in scan(f"[ 1.0] {msg}\n")], ["oops"])
        self.assertEqual([r.kind for r in scan(f"[ 1.0] {SAMPLES['sigbus']}\r\n")],
                         ["sigbus"])

    def test_ordinary_lines_are_not_reports(self):
        lines = ["[    0.1] ext2: vda: no ext2 superblock (magic 0x4746)",
                 "[    0.1] vfs: cannot mount vda (ext2) as root: Invalid argument",
                 "    # case: WARNING: in a KTAP diagnostic, not the kernel log",
                 "WARNING: without a time stamp (QEMU, OpenSBI)",
                 "[    0.1] printk-test task=1 seq=2 Oops: inside a message"]
        self.assertEqual(kconsole.scan(lines), [])

    def test_reports_are_placed(self):
        got = [(r.kind, r.where, r.line) for r in scan(CONSOLE)]
        self.assertEqual(got, [("warning", "<boot>", 2),
                               ("oops", "mm_a.fault_is_reported", 8),
                               ("lockdep", "mm_a", 15),
                               ("lost-interrupt", "<ktest>", 17),
                               ("warning", "mm_b.#2", 22)])

    def test_report_keeps_its_dump_not_the_next_message(self):
        oops = scan(CONSOLE)[1]
        self.assertEqual(len(oops.context), 4)
        self.assertIn("touch+0x8/0x10", oops.context[-1])

    def test_shutdown_follows_the_last_suite(self):
        text = CONSOLE.replace("    ok 1 first\n", "    ok 1 first\n    ok 2 second\n"
                               "ok 2 mm_b\n").replace("WARNING: cut short",
                                                      "foo: quiet")
        text += "[    0.4] poweroff: root not unmounted cleanly (-5)\n"
        self.assertEqual(scan(text)[-1].where, "<shutdown>")

    def test_allow_list(self):
        reports = scan(CONSOLE)
        allow = (("oops", "mm_a.*"), ("warning", "<boot>"), ("lockdep", "mm_a"))
        left = kconsole.unexpected(reports, allow)
        self.assertEqual([(r.kind, r.where) for r in left],
                         [("lost-interrupt", "<ktest>"), ("warning", "mm_b.#2")])
        self.assertEqual(left[1].failure("core").name, "core.mm_b.#2")

    def test_an_allowed_bus_error_allows_no_other_oops(self):
        """The race boots expect a filler's bus error in the truncate
        cases, and nothing else: a segmentation fault or a fault in the
        kernel in the same case fails the boot."""
        case = "race_truncate.race_truncate_fault"
        text = f"""\
            KTAP version 1
            1..1
                KTAP version 1
                # Subtest: race_truncate
                1..1
            [    1.0] {SAMPLES['sigbus']}
            [    1.1] Oops: segmentation fault (SIGSEGV) at 0x1, address 0x2 in task filler on cpu 1
            [    1.2] Oops: store page fault at 0x3, address 0x4 in task filler on cpu 1
                ok 1 race_truncate_fault
            ok 1 race_truncate
            """
        reports = scan(text)
        self.assertEqual([(r.kind, r.where) for r in reports],
                         [("sigbus", case), ("oops", case), ("oops", case)])
        for name in ("race", "race_1k", "race_legacy", "race_1k_legacy"):
            with self.subTest(boot=name):
                boot = next(b for b in boots.BOOTS if b.name == name)
                left = kconsole.unexpected(reports, boots.allowed_reports(boot))
                self.assertEqual([r.line for r in left], [7, 8])



SHELL_CONSOLE = """\
OpenSBI v1.2\r
[    0.010000] whole: 2 harts, 128 MiB RAM, bootargs "-- uptime"\r
[    0.020000] ext2: inode 12: read error -5 at block 40\r
[    0.030000] WARNING: cond at mm/vm.c:3 (cpu 1, task main)\r
[    0.030001]  sepc: 0000000080210818 f+0x8/0x10\r
up 0.100 s\r
"""


class CheckTest(unittest.TestCase):
    def test_a_report_fails_with_its_lines(self):
        with self.assertRaises(AssertionError) as cm:
            kconsole.check(SHELL_CONSOLE, (("ext2-error", "<boot>"),))
        msg = str(cm.exception)
        self.assertIn("kernel report 'warning' in <boot> (console line 4)", msg)
        self.assertIn("WARNING: cond at mm/vm.c:3", msg)
        self.assertIn(" sepc: 0000000080210818", msg)
        self.assertNotIn("\r", msg)
        self.assertNotIn("ext2", msg)

    def test_allowed_reports_pass(self):
        allow = (("ext2-error", "<boot>"), ("warning", "*"))
        got = kconsole.check(SHELL_CONSOLE.split("\n"), allow)
        self.assertEqual([r.kind for r in got], ["ext2-error", "warning"])
        self.assertEqual(kconsole.check("[ 0.1] all well\n"), [])


class WholeRunTest(unittest.TestCase):
    """tools/run with WHOLE_QEMU standing in for QEMU: the console it
    prints is checked."""

    def run_fake(self, console, allow=()):
        with tempfile.TemporaryDirectory() as tmp:
            fake, disk = Path(tmp) / "qemu", Path(tmp) / "disk.img"
            (Path(tmp) / "console").write_text(console)
            fake.write_text(f"#!/bin/sh\ncat {tmp}/console\n")
            fake.chmod(0o755)
            disk.write_bytes(b"")
            return wholerun.run(["--disk", disk, "-c", "uptime"], allow=allow,
                                env=dict(os.environ, WHOLE_QEMU=str(fake)))

    def test_a_report_on_the_console_fails(self):
        with self.assertRaises(kconsole.Reported) as cm:
            self.run_fake(SHELL_CONSOLE, (("ext2-error", "<boot>"),))
        self.assertIn("WARNING: cond at mm/vm.c:3", str(cm.exception))

    def test_expected_reports_pass(self):
        res = self.run_fake(SHELL_CONSOLE, (("ext2-error", "*"), ("warning", "*")))
        self.assertEqual(res.returncode, 0)
        self.assertIn("up 0.100 s", res.stdout)


if __name__ == "__main__":
    unittest.main()
