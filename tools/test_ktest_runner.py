#!/usr/bin/env python3
"""tools/test_ktest_runner.py: the runner's boot handling, with a shell script
standing in for QEMU (WHOLE_QEMU): results, crashes, timeouts, hooks, and
that a timed-out boot leaves no process behind."""

import contextlib
import io
import os
import shutil
import sys
import tempfile
import textwrap
import time
import unittest
from pathlib import Path
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import boots  # noqa: E402
import ktest_runner  # noqa: E402
from ext2img import CheckFailed  # noqa: E402

FAKE_QEMU = r"""
mode=$1; shift
echo "OpenSBI v1.2"
echo "args: $*"
printf 'KTAP version 1\r\n1..1\r\n    KTAP version 1\r\n    # Subtest: mm_fake\r\n'
printf '    1..2\r\n    ok 1 first\r\n'
case $mode in
good)  printf '    ok 2 second\r\nok 1 mm_fake\r\n'; exit 0 ;;
lying) printf '    ok 2 second\r\nok 1 mm_fake\r\n'; exit 1 ;;
panic) echo "[    1.000000] Kernel panic on cpu 0 (task second): oops"; exit 3 ;;
hang)  sleep 60 & echo $! > "$PIDS"; echo $$ >> "$PIDS"
       trap '' TERM      # only SIGKILL ends it, as for a wedged QEMU
       wait; sleep 60 ;;
esac
"""


def boot(**kw):
    return boots.Boot(**dict(dict(name="fake", smp=2, mem="128M", filter="mm_*",
                                  timeout=1), **kw))


class RunnerTest(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp())
        (self.dir / "qemu.sh").write_text(FAKE_QEMU)
        self.pids = self.dir / "pids"
        patches = [mock.patch.object(ktest_runner, "LOGS", self.dir),
                   mock.patch.object(ktest_runner, "KILL_GRACE", 0.5),
                   mock.patch.dict(os.environ, {"PIDS": str(self.pids),
                                                "WHOLE_TIMEOUT_SCALE": "1"})]
        for p in patches:
            p.start()
            self.addCleanup(p.stop)
        self.addCleanup(shutil.rmtree, self.dir)

    def run_boot(self, mode, b=None):
        os.environ["WHOLE_QEMU"] = f"sh {self.dir / 'qemu.sh'} {mode}"
        tally = ktest_runner.Tally()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            ktest_runner.run_boot(tally, b or boot(), "mm_*")
        return tally, out.getvalue()

    def test_good_boot_and_log(self):
        tally, out = self.run_boot("good")
        self.assertEqual(tally.summary(), "2 passed, 0 failed", out)
        log = (self.dir / "fake.log").read_text()
        self.assertIn("-smp 2 -m 128M -kernel build/whole.elf -append ktest.filter=mm_*", log)

    def test_panic_shows_crash(self):
        tally, out = self.run_boot("panic")
        self.assertEqual(tally.summary(), "1 passed, 1 failed", out)
        self.assertIn("FAIL fake.mm_fake.#2: no result: crashed:", out)
        self.assertIn("Kernel panic on cpu 0", out)

    def test_exit_status_disagreeing_with_ktap_fails(self):
        tally, out = self.run_boot("lying")
        self.assertEqual(tally.summary(), "2 passed, 1 failed", out)
        self.assertIn("QEMU exit status 1, yet KTAP shows no failure", out)

    def test_timeout_kills_the_whole_group(self):
        start = time.monotonic()
        tally, out = self.run_boot("hang")
        self.assertLess(time.monotonic() - start, 10)
        self.assertEqual(tally.summary(), "1 passed, 1 failed", out)
        self.assertIn("no result: timed out after 1s", out)
        self.assertIn("| args: -machine virt", out)  # the console tail
        for pid in map(int, self.pids.read_text().split()):
            with self.assertRaises(ProcessLookupError, msg=f"pid {pid} survived"):
                os.kill(pid, 0)

    def test_failed_hooks_count(self):
        def refuse(build):
            raise CheckFailed("e2fsck -fn build/t.img: exit 4\nFix? no")
        tally, out = self.run_boot("good", boot(prepare=refuse))
        self.assertEqual(tally.summary(), "0 passed, 1 failed", out)
        self.assertFalse((self.dir / "fake.log").exists(), "QEMU ran anyway")
        tally, out = self.run_boot("good", boot(post_check=refuse))
        self.assertEqual(tally.summary(), "2 passed, 1 failed", out)
        self.assertIn("FAIL fake.post_check: failed\n    | e2fsck", out)


if __name__ == "__main__":
    unittest.main()
