#!/usr/bin/env python3
"""tools/test_boottime.py: tools/boottime.py reads the two boot times
from a console: the guest's from the `boot` benchmark's JSON
(app/bench_io.c's format), the host's at the "@@ ready" line; a console
missing either gives no figure and a failing status."""
import io
import sys
import unittest
from contextlib import redirect_stdout
from pathlib import Path

import boottime

BOOT_JSON = ('{"bench": "boot", "mode": null, "params": {"clock": "rdtime since '
             'the machine started", "to": "shell"}, "metric": "guest_ms", '
             '"unit": "ms", "median": 1506.852, "min": 1506.852, '
             '"max": 1506.852, "samples": 1}\n')

BANNER = '[    0.222345] whole: 4 harts, 256 MiB RAM, bootargs "-- echo"\n'


def fake_qemu(*lines, status=0):
    """A command standing in for QEMU: prints @lines, exits @status."""
    text = "".join(lines)
    return [sys.executable, "-c",
            f"import sys; sys.stdout.write({text!r}); sys.exit({status})"]


class BootTimeTest(unittest.TestCase):
    def test_guest_time_is_the_boot_figure(self):
        self.assertEqual(boottime.guest_ms(BOOT_JSON), 1506.852)
        # a console line may carry the UART's leftovers before it
        self.assertEqual(boottime.guest_ms("\r" + BOOT_JSON), 1506.852)
        self.assertIsNone(boottime.guest_ms('{"bench": "boot", "mode": null, '
                                            '"skipped": "no sample"}\n'))
        self.assertIsNone(boottime.guest_ms('{"bench": "boot", "median": 3'))
        self.assertIsNone(boottime.guest_ms(BOOT_JSON.replace('"boot"', '"mmap"')))
        self.assertIsNone(boottime.guest_ms("[ 1.0] whole: 4 harts\n"))

    def test_host_time_is_taken_at_ready(self):
        ticks = iter([10.25, 11.0, 99.0])
        lines = ["[    0.222345] whole cb8554d (2026-12-06), riscv64\n",
                 "[    1.260000] whole: 4 harts, 256 MiB RAM\n", "@@ ready\r\n",
                 BOOT_JSON]

        def clock():
            return next(ticks)

        out = io.StringIO()
        with redirect_stdout(out):
            figures = boottime.measure(iter(lines), 10.0, clock)
        self.assertEqual(figures, (1506.852, 1260.0, 250.0))
        self.assertEqual(out.getvalue(), "".join(lines))  # passed on whole

    def test_summary_names_what_is_missing(self):
        self.assertEqual(boottime.summary(1506.852, 1260.0, 1819.4, 0),
                         "boottime: guest 1506.9 ms (kernel 1260.0 ms), host "
                         "1819 ms to the shell (exit 0)")
        self.assertIn("(the guest's missing)", boottime.summary(None, 1.0, 5.0, 3))
        self.assertIn("(exit 3)", boottime.summary(None, 1.0, 5.0, 3))
        self.assertIn("the kernel's and the host's missing",
                      boottime.summary(1.0, None, None, 0))

    def run_main(self, cmd):
        out = io.StringIO()
        with redirect_stdout(out):
            status = boottime.main(["boottime.py", *cmd])
        return status, out.getvalue().splitlines()[-1]

    def test_a_boot_to_the_shell_passes(self):
        status, last = self.run_main(fake_qemu(BANNER, "@@ ready\n", BOOT_JSON))
        self.assertEqual(status, 0)
        self.assertRegex(last, r"^boottime: guest 1506\.9 ms \(kernel 222\.3 ms\), "
                               r"host \d+ ms to the shell \(exit 0\)$")

    def test_a_boot_that_never_reaches_the_shell_fails(self):
        status, last = self.run_main(fake_qemu("[ 0.1] panic: no root\n", status=3))
        self.assertEqual(status, 3)
        self.assertIn("no figure", last)
        status, last = self.run_main(fake_qemu(BANNER, "@@ ready\n"))
        self.assertEqual(status, 1)  # QEMU's 0, but no guest figure

    def test_tools_run_sends_the_ready_command(self):
        run = (Path(__file__).resolve().parent / "run").read_text()
        self.assertIn(f"cmd='{boottime.READY_CMD}'", run)


if __name__ == "__main__":
    unittest.main()
