#!/usr/bin/env python3
"""tools/test_ktest_runner.py: the runner's boot handling, with a shell script
standing in for QEMU (WHOLE_QEMU): results, crashes, timeouts, hooks, that a
timed-out boot leaves no process behind, and each way a run that tested
nothing, or saw a kernel bug report, must fail."""

import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
from pathlib import Path
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import boots  # noqa: E402
import host_tests  # noqa: E402
import ktest_runner  # noqa: E402
from ext2img import CheckFailed  # noqa: E402

FAKE_QEMU = r"""
mode=$1; shift
echo "OpenSBI v1.2"
echo "args: $*"
if [ "$mode" = console ]; then cat "$CONSOLE"; exit "${STATUS:-0}"; fi
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


GOOD = """\
KTAP version 1
1..1
    KTAP version 1
    # Subtest: mm_fake
    1..2
    ok 1 first
    ok 2 second
ok 1 mm_fake
"""


def boot(**kw):
    return boots.Boot(**dict(dict(name="fake", smp=2, mem="128M",
                                  suites=("mm_fake",), timeout=1), **kw))


class RunnerTest(unittest.TestCase):
    def setUp(self):
        self.dir = Path(tempfile.mkdtemp())
        (self.dir / "qemu.sh").write_text(FAKE_QEMU)
        self.pids = self.dir / "pids"
        self.console = self.dir / "console"
        patches = [mock.patch.object(ktest_runner, "LOGS", self.dir),
                   mock.patch.object(ktest_runner, "KILL_GRACE", 0.5),
                   mock.patch.object(ktest_runner, "kernel_suites",
                                     lambda: {"mm_fake"}),
                   mock.patch.dict(os.environ, {"PIDS": str(self.pids),
                                                "CONSOLE": str(self.console),
                                                "WHOLE_TIMEOUT_SCALE": "1"})]
        for p in patches:
            p.start()
            self.addCleanup(p.stop)
        self.addCleanup(shutil.rmtree, self.dir)

    def run_boot(self, mode, b=None, required=None):
        os.environ["WHOLE_QEMU"] = f"sh {self.dir / 'qemu.sh'} {mode}"
        tally = ktest_runner.Tally()
        out = io.StringIO()
        b = b or boot()
        with contextlib.redirect_stdout(out):
            ktest_runner.run_boot(tally, b, b.ktest_filter(),
                                  b.required() if required is None else required)
        return tally, out.getvalue()

    def run_console(self, text, status=0, **kw):
        self.console.write_text(textwrap.dedent(text).replace("\n", "\r\n"))
        os.environ["STATUS"] = str(status)
        return self.run_boot("console", boot(**kw))

    def test_list_names_every_boot_and_suite(self):
        root = Path(__file__).resolve().parent.parent
        out = subprocess.run([str(root / "tools" / "test"), "--list"],
                             capture_output=True, text=True, check=True).stdout
        lines = out.splitlines()
        self.assertTrue(lines[0].startswith("host: "))
        self.assertIn("test_ktest_runner", lines[0].split())
        self.assertEqual(len(lines), 1 + len(boots.BOOTS))
        race = next(l for l in lines if l.startswith("race_1k (smp 4, 128M): "))
        for suite in ("race_punch", "race_writeback", "race_partial"):
            self.assertIn(suite, race.split())

    def test_good_boot_and_log(self):
        tally, out = self.run_boot("good")
        self.assertEqual(tally.summary(), "2 passed, 0 failed, 0 skipped", out)
        log = (self.dir / "fake.log").read_text()
        self.assertIn("-smp 2 -m 128M -kernel build/whole.elf -append ktest.filter=mm_fake",
                      log)
        self.assertTrue(out.rstrip().splitlines()[-1].startswith(
            "fake: 2 passed, 0 failed, 0 skipped ("), out)

    def test_panic_shows_crash(self):
        tally, out = self.run_boot("panic")
        self.assertEqual(tally.summary(), "1 passed, 1 failed, 0 skipped", out)
        self.assertIn("FAIL fake.mm_fake.#2: no result: crashed:", out)
        self.assertIn("Kernel panic on cpu 0", out)

    def test_exit_status_disagreeing_with_ktap_fails(self):
        tally, out = self.run_boot("lying")
        self.assertEqual(tally.summary(), "2 passed, 1 failed, 0 skipped", out)
        self.assertIn("QEMU exit status 1, yet KTAP shows no failure", out)

    def test_timeout_kills_the_whole_group(self):
        start = time.monotonic()
        tally, out = self.run_boot("hang")
        self.assertLess(time.monotonic() - start, 10)
        self.assertEqual(tally.summary(), "1 passed, 1 failed, 0 skipped", out)
        self.assertIn("no result: timed out after 1s", out)
        self.assertIn("| args: -machine virt", out)  # the console tail
        for pid in map(int, self.pids.read_text().split()):
            with self.assertRaises(ProcessLookupError, msg=f"pid {pid} survived"):
                os.kill(pid, 0)

    def test_failed_hooks_count(self):
        def refuse(build):
            raise CheckFailed("e2fsck -fn build/t.img: exit 4\nFix? no")
        tally, out = self.run_boot("good", boot(prepare=refuse))
        self.assertEqual(tally.summary(), "0 passed, 1 failed, 0 skipped", out)
        self.assertFalse((self.dir / "fake.log").exists(), "QEMU ran anyway")
        tally, out = self.run_boot("good", boot(post_check=refuse))
        self.assertEqual(tally.summary(), "2 passed, 1 failed, 0 skipped", out)
        self.assertIn("FAIL fake.post_check: failed\n    | e2fsck", out)

    # Probe 1: nothing ran.
    def test_empty_plan_fails_the_boot(self):
        tally, out = self.run_console("KTAP version 1\n1..0\n")
        self.assertEqual(tally.mark(), (0, 2, 0), out)
        self.assertIn("FAIL fake.KTAP: plan 1..0: no suite ran", out)
        self.assertIn("FAIL fake.mm_fake: listed in tools/boots.py but printed no result",
                      out)

    def test_boot_without_any_result_fails(self):
        tally, out = self.run_console("whole: nothing to do\n", suites=(), filter="x")
        self.assertEqual(tally.summary(), "0 passed, 1 failed, 0 skipped", out)
        self.assertIn("FAIL fake.KTAP: no KTAP output", out)

    # Probe 3: each listed suite prints a result; no other runs.
    def test_dropped_suite_fails_and_says_so(self):
        tally, out = self.run_console(GOOD, suites=("mm_fake", "mm_gone"))
        self.assertEqual(tally.summary(), "2 passed, 1 failed, 0 skipped", out)
        self.assertIn("FAIL fake.mm_gone: listed in tools/boots.py but printed no "
                      "result: it is not linked into whole.elf (renamed or dropped?)", out)

    def test_unlisted_suite_fails(self):
        tally, out = self.run_console(GOOD, suites=("mm_other",), filter="mm_*")
        self.assertIn("FAIL fake.mm_fake: ran, but the boot's suites in "
                      "tools/boots.py do not list it", out)
        self.assertIn("FAIL fake.mm_other: listed", out)
        self.assertEqual(tally.mark(), (2, 2, 0), out)

    # Probe 6: a skip is a skip, and a required test skipped fails.
    def test_skipped_cases_are_counted_apart_and_fail_the_boot(self):
        text = GOOD.replace("ok 1 first", "ok 1 first # SKIP no disk")
        tally, out = self.run_console(text)
        self.assertEqual(tally.summary(), "1 passed, 1 failed, 1 skipped", out)
        self.assertIn("SKIP fake.mm_fake.first: no disk", out)
        self.assertIn("FAIL fake: required tests skipped (1): mm_fake.first", out)
        tally, out = self.run_console(text, may_skip=("mm_fake.f*",))
        self.assertEqual(tally.summary(), "1 passed, 0 failed, 1 skipped", out)

    def test_suite_skipped_whole_fails(self):
        tally, out = self.run_console(GOOD.replace(
            "    1..2\n    ok 1 first\n    ok 2 second\nok 1 mm_fake",
            "    1..0\nok 1 mm_fake # SKIP not here"))
        self.assertEqual(tally.summary(), "0 passed, 1 failed, 1 skipped", out)
        self.assertIn("FAIL fake: required tests skipped (1): mm_fake\n", out)

    # Probe 5: kernel reports on the console.
    def test_kernel_warning_fails_the_boot(self):
        warning = ("[    0.5] WARNING: x != y at mm/page_alloc.c:208 (cpu 1, task second)\n"
                   "[    0.5] Backtrace:\n[    0.5]   __warn+0x1/0x2\n")
        text = GOOD.replace("    ok 2 second", warning + "    ok 2 second")
        tally, out = self.run_console(text)
        self.assertEqual(tally.summary(), "2 passed, 1 failed, 0 skipped", out)
        self.assertIn("FAIL fake.mm_fake.second: kernel report 'warning' (line", out)
        self.assertIn("| [    0.5]   __warn+0x1/0x2", out)
        tally, out = self.run_console(text, allow=(("warning", "mm_fake.sec*"),))
        self.assertEqual(tally.summary(), "2 passed, 0 failed, 0 skipped", out)
        tally, out = self.run_console(text, allow=(("warning", "mm_fake.first"),))
        self.assertEqual(tally.summary(), "2 passed, 1 failed, 0 skipped", out)

    def test_unclean_unmount_at_poweroff_fails(self):
        tally, out = self.run_console(
            GOOD + "[    2.0] poweroff: root not unmounted cleanly (-5)\n")
        self.assertEqual(tally.summary(), "2 passed, 1 failed, 0 skipped", out)
        self.assertIn("FAIL fake.<shutdown>: kernel report 'unclean-unmount'", out)

    def test_panic_boot_checks_its_suite_and_reports(self):
        text = ("KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: mm_fake\n"
                "    1..1\n[ 1.0] Kernel panic on cpu 0 (task a): deliberate\n"
                "[ 1.0] Backtrace:\n[ 1.0]   panic+0x10/0x40\n[ 1.0]   a+0x10/0x40\n")
        tally, out = self.run_console(text, status=3, expect_panic="a")
        self.assertEqual(tally.summary(), "1 passed, 0 failed, 0 skipped", out)
        tally, out = self.run_console(text, status=3, expect_panic="a",
                                      suites=("mm_other",))
        self.assertIn("suite mm_other never began", out)
        tally, out = self.run_console(
            text.replace("[ 1.0] Kernel", "[ 0.9] lockdep: lock order violation\n"
                         "[ 1.0] Kernel"), status=3, expect_panic="a")
        self.assertIn("FAIL fake.mm_fake.#1: kernel report 'lockdep'", out)


class SelectionTest(unittest.TestCase):
    """Probe 2 and the global list: globs that select nothing fail."""

    def setUp(self):
        self.ran = []

    def run_all(self, boot_glob, suite_glob, table, linked=("mm_fake",)):
        tally = ktest_runner.Tally()
        out = io.StringIO()
        with mock.patch.object(boots, "BOOTS", table), \
                mock.patch.object(ktest_runner, "kernel_suites", lambda: set(linked)), \
                mock.patch.object(ktest_runner, "run_boot",
                                  lambda *a: self.ran.append(a[1:])), \
                contextlib.redirect_stdout(out):
            ktest_runner.run_all(tally, boot_glob, suite_glob)
        return tally, out.getvalue()

    def test_suite_glob_matching_nothing_fails(self):
        tally, out = self.run_all("core", "no_such_suite", [boot(name="core")])
        self.assertEqual(tally.summary(), "0 passed, 1 failed, 0 skipped", out)
        self.assertIn("FAIL SUITE_GLOB 'no_such_suite': matched nothing in the boots core",
                      out)
        self.assertEqual(self.ran, [])

    def test_suite_glob_narrows_the_boot(self):
        table = [boot(name="core", suites=("mm_a", "mm_b", "pcache_c"))]
        tally, out = self.run_all("core", "mm_*", table)
        self.assertEqual(self.ran, [(table[0], "mm_a,mm_b", ("mm_a", "mm_b"))])
        # The stand-in boot counted nothing, so the run as a whole fails.
        self.assertEqual(tally.summary(), "0 passed, 1 failed, 0 skipped", out)
        self.assertIn("FAIL run: nothing ran", out)

    def test_host_suite_glob_matching_nothing_fails(self):
        tally, out = self.run_all("host", "no_such_test", [boot()])
        self.assertIn("FAIL SUITE_GLOB 'no_such_test': matched nothing in the boots host",
                      out)

    def test_boot_glob_matching_nothing_fails(self):
        tally, out = self.run_all("nope*", "*", [boot()])
        self.assertEqual(tally.summary(), "0 passed, 1 failed, 0 skipped", out)
        self.assertIn("FAIL BOOT_GLOB 'nope*': matched nothing; boots: host, fake", out)

    def test_glob_filter_needs_its_suites_listed(self):
        tally, out = self.run_all("fake", "*", [boot(suites=(), filter="mm_*")])
        self.assertIn("FAIL fake: filter 'mm_*' has globs, yet the row lists no suites=",
                      out)
        self.assertEqual(self.ran, [])
        self.assertEqual(boot(suites=(), filter="a,b").required(), ("a", "b"))
        self.assertIsNone(boot(suites=(), filter="*,-b").required())

    def test_linked_suite_no_boot_lists_fails(self):
        tally = ktest_runner.Tally()
        out = io.StringIO()
        with mock.patch.object(boots, "BOOTS", [boot()]), \
                mock.patch.object(ktest_runner, "kernel_suites",
                                  lambda: {"mm_fake", "mm_orphan"}), \
                contextlib.redirect_stdout(out):
            ktest_runner.check_linked(tally)
        self.assertEqual(tally.summary(), "0 passed, 1 failed, 0 skipped", out.getvalue())
        self.assertIn("FAIL mm_orphan: linked into whole.elf, but no boot", out.getvalue())


class Ext2BadCheckTest(unittest.TestCase):
    """Probe 7: the message counts only once the suite has begun."""

    LOG = ("[    0.1] ext2: vda: no ext2 superblock (magic 0x1234)\n"
           "KTAP version 1\n1..1\n    KTAP version 1\n"
           "    # Subtest: ext2_bad_mount\n    1..1\n")

    def test_boot_time_message_is_not_enough(self):
        with self.assertRaisesRegex(CheckFailed, "after suite ext2_bad_mount began"):
            boots.message_in_suite(self.LOG, "ext2_bad_mount", "no ext2 superblock")

    def test_message_inside_the_suite(self):
        boots.message_in_suite(self.LOG + "[ 0.2] ext2: vda: no ext2 superblock (magic 0)\n",
                               "ext2_bad_mount", "no ext2 superblock")

    def test_suite_that_never_began(self):
        with self.assertRaisesRegex(CheckFailed, "suite ext2_bad_blocks never began"):
            boots.message_in_suite(self.LOG, "ext2_bad_blocks", "no ext2 superblock")


class HostBesideTest(unittest.TestCase):
    """A full run's host tests in a process beside the boots: its summary
    line is counted; a missing line, or an exit status that disagrees
    with it, is a failure."""

    def finish(self, text, status):
        with tempfile.TemporaryDirectory() as tmp, \
                mock.patch.object(ktest_runner, "LOGS", Path(tmp)):
            (Path(tmp) / "host.log").write_text(text)
            proc = subprocess.Popen(["sh", "-c", f"exit {status}"])
            tally = ktest_runner.Tally()
            with contextlib.redirect_stdout(io.StringIO()) as out:
                ktest_runner.finish_host_beside(tally, proc)
        return tally.mark(), out.getvalue()

    def test_the_summary_is_counted_and_the_output_shown(self):
        mark, out = self.finish("FAIL host.test_x: boom\n3 passed, 1 failed, 2 skipped\n", 1)
        self.assertEqual(mark, (3, 1, 2))
        self.assertIn("FAIL host.test_x: boom", out)

    def test_a_status_that_disagrees_fails(self):
        self.assertEqual(self.finish("3 passed, 0 failed, 0 skipped\n", 1)[0], (3, 1, 0))

    def test_no_summary_line_fails(self):
        mark, out = self.finish("Traceback (most recent call last):\n", 1)
        self.assertEqual(mark, (0, 1, 0))
        self.assertIn("without its summary line", out)

    def test_quiet_tests_are_left_for_after_the_boots(self):
        """The process beside the boots loads no host_tests.QUIET module;
        run_all runs each of them once the boots are done."""
        ids = lambda suite: {t.id().split(".")[0] for t in _flatten(suite)}
        self.assertTrue(set(host_tests.QUIET) <= ids(host_tests.load("test_p*")))
        self.assertFalse(set(host_tests.QUIET)
                         & ids(host_tests.load("test_p*", host_tests.QUIET)))
        ran = []
        with mock.patch.object(ktest_runner, "start_host_beside", lambda: object()), \
                mock.patch.object(ktest_runner, "run_boots", lambda *a: 0), \
                mock.patch.object(ktest_runner, "finish_host_beside",
                                  lambda tally, proc: ran.append("beside")), \
                mock.patch.object(ktest_runner, "check_linked", lambda tally: None), \
                mock.patch.object(host_tests, "run",
                                  lambda tally, glob, tests=None: ran.append(glob)):
            ktest_runner.run_all(ktest_runner.Tally(), "*", "*")
        self.assertEqual(ran, ["beside", *host_tests.QUIET])

    def test_serial_when_asked(self):
        with mock.patch.dict(os.environ, {"WHOLE_SERIAL": "1"}):
            self.assertIsNone(ktest_runner.start_host_beside())


def _flatten(suite):
    for t in suite:
        if isinstance(t, unittest.TestSuite):
            yield from _flatten(t)
        else:
            yield t


if __name__ == "__main__":
    unittest.main()
