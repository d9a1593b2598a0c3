"""tools/host_tests.py: run the host unit tests (tools/test_*.py) into a Tally.

    host_tests.run(tally, glob)   # from tools/ktest_runner.py, as boot "host"

Counting: a test method is one case, unless it has subtests (subTest), then
each subtest is one case and the method adds only what failed outside them.
A failing subtest is a failure; a skip (of a method, class or subtest) is a
skip, counted apart, and since tools/setup installs everything the tests
need, a run with skips fails once, naming them. Every test that started
must end with at least one recorded outcome, and every collected test
must have run: otherwise the runner lost a result, which is a failure.
"""

import collections
import fnmatch
import unittest
from pathlib import Path

TOOLS = Path(__file__).resolve().parent


class HostResult(unittest.TestResult):
    def __init__(self, tally):
        super().__init__()
        self.tally = tally
        self.outcomes = collections.Counter()   # test id -> outcomes recorded
        self.with_subtests = set()              # ids of tests that had subtests
        self.skipped = []                       # ids of the skipped cases

    def _count(self, test):
        self.outcomes[test.id()] += 1

    def stopTest(self, test):
        super().stopTest(test)
        if not self.outcomes[test.id()]:
            self.tally.fail(f"host.{test.id()}",
                            "ended with no result (neither pass, failure nor skip)")

    def addSuccess(self, test):
        if test.id() in self.with_subtests:
            return  # its subtests were counted, each one
        self._count(test)
        self.tally.passed += 1

    def addSubTest(self, test, subtest, err):
        self.with_subtests.add(test.id())
        self._count(test)
        if err is None:
            self.tally.passed += 1
        else:
            self.tally.fail(f"host.{subtest.id()}", "subtest failed",
                            self._exc_info_to_string(err, test).splitlines())

    def addSkip(self, test, reason):
        self._count(getattr(test, "test_case", test))  # a subtest's parent
        self.skipped.append(f"host.{test.id()}")
        self.tally.skip(f"host.{test.id()}", reason)

    def addFailure(self, test, err):
        self._count(test)
        self.tally.fail(f"host.{test.id()}", "failed",
                        self._exc_info_to_string(err, test).splitlines())

    addError = addFailure

    def addExpectedFailure(self, test, err):
        self._count(test)
        self.tally.passed += 1

    def addUnexpectedSuccess(self, test):
        self._count(test)
        self.tally.fail(f"host.{test.id()}", "unexpected success")


# Host tests that compare shares of a guest's time (tools/profile.py's
# samples): the boots' load beside them skews those shares (firmware
# samples outnumbered the copy's once, 229 to 153), so a full run keeps
# them for after the boots (tools/ktest_runner.py, run_all).
QUIET = ("test_profile",)


def load(glob, exclude=()):
    """The tests of tools/test_*.py whose module name matches glob, but
    those named in @exclude."""
    loader = unittest.TestLoader()
    return unittest.TestSuite(
        loader.loadTestsFromName(path.stem)
        for path in sorted(TOOLS.glob("test_*.py"))
        if fnmatch.fnmatchcase(path.stem, glob) and path.stem not in exclude)


def run(tally, glob, tests=None):
    """Run the host tests matching @glob (or @tests, loaded from it);
    return how many were collected."""
    tests = load(glob) if tests is None else tests
    collected = tests.countTestCases()
    before = (tally.passed, tally.failed, tally.skipped)
    print(f"== host: {collected} unit tests", flush=True)
    result = HostResult(tally)
    try:
        tests.run(result)
    except KeyboardInterrupt:
        raise
    except BaseException as e:  # SystemExit from a set-up: unittest lets it by
        tally.fail("host", f"the unit tests stopped: {type(e).__name__}: {e}")
    if not collected:
        tally.fail("host", f"no unit test matches {glob!r}")
    if result.testsRun != collected:
        tally.fail("host", f"{collected} tests collected but {result.testsRun} ran")
    tally.fail_skips("host", result.skipped)
    print("host: " + tally.summary(before), flush=True)
    return collected
