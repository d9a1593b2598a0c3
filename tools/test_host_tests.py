#!/usr/bin/env python3
"""tools/test_host_tests.py: how tools/host_tests.py counts host unit tests:
subtests one by one (a failing one fails the run), skips apart (and
failing the run), and no test lost uncounted."""

import contextlib
import io
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import host_tests  # noqa: E402
import ktest_runner  # noqa: E402


def fixtures():
    """Test cases to count, kept out of this module's namespace so that
    the loader does not run them as tests of their own."""

    class Subtests(unittest.TestCase):
        def test_three_one_fails(self):
            for i in range(3):
                with self.subTest(i=i):
                    self.assertNotEqual(i, 1)

        def test_two_pass(self):
            for i in range(2):
                with self.subTest(i=i):
                    self.assertLess(i, 2)

        def test_plain(self):
            pass

        def test_subtest_then_failure(self):
            with self.subTest(part="first"):
                pass
            self.fail("after the subtests")

    class Skips(unittest.TestCase):
        def test_skipped(self):
            self.skipTest("no tool")

        def test_subtest_skipped(self):
            with self.subTest(i=0):
                self.skipTest("no disk")

    return Subtests, Skips


def count(*classes):
    loader = unittest.TestLoader()
    tests = unittest.TestSuite(loader.loadTestsFromTestCase(c) for c in classes)
    tally = ktest_runner.Tally()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        host_tests.run(tally, "fixture", tests)
    return tally, out.getvalue()


class HostCountTest(unittest.TestCase):
    def test_subtests_count_one_by_one(self):
        subtests, _ = fixtures()
        tally, out = count(subtests)
        # 2 + 2 subtests passed, 1 plain test, 1 subtest passed + 1 failure after it.
        self.assertEqual(tally.mark(), (6, 2, 0), out)
        self.assertIn("subtest failed", out)
        self.assertIn("test_three_one_fails (i=1)", out)
        self.assertIn("after the subtests", out)
        self.assertTrue(out.rstrip().endswith("host: 6 passed, 2 failed, 0 skipped"), out)

    def test_skips_are_counted_apart_and_fail_once(self):
        subtests, skips = fixtures()
        tally, out = count(subtests, skips)
        self.assertEqual(tally.mark(), (6, 3, 2), out)
        self.assertIn("SKIP host.", out)
        self.assertIn("no disk", out)
        self.assertIn("FAIL host: required tests skipped (2): host.", out)

    def test_a_set_up_that_exits_fails_and_the_count_goes_on(self):
        class ExitingSetUp(unittest.TestCase):
            @classmethod
            def setUpClass(cls):
                raise SystemExit("fuzz: build failed")  # as tools/fuzzrun.py

            def test_never_runs(self):
                pass

        subtests, _ = fixtures()
        tally, out = count(ExitingSetUp, subtests)
        self.assertIn("the unit tests stopped: SystemExit: fuzz: build failed", out)
        self.assertIn("5 tests collected but 0 ran", out)  # none lost uncounted
        self.assertEqual(tally.mark(), (0, 2, 0), out)
        self.assertTrue(out.rstrip().endswith("host: 0 passed, 2 failed, 0 skipped"), out)

    def test_test_without_outcome_fails(self):
        class Silent(host_tests.HostResult):
            def addSuccess(self, test):
                pass  # a result class that loses a pass
        subtests, _ = fixtures()
        tally = ktest_runner.Tally()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            unittest.TestLoader().loadTestsFromTestCase(subtests).run(Silent(tally))
        self.assertIn("test_plain: ended with no result", out.getvalue())

    def test_no_test_collected_fails(self):
        tally, out = count()
        self.assertEqual(tally.mark(), (0, 1, 0), out)
        self.assertIn("no unit test matches 'fixture'", out)


if __name__ == "__main__":
    unittest.main()
