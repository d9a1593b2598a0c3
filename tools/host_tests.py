"""tools/host_tests.py: run the host unit tests (tools/test_*.py) into a Tally.

    host_tests.run(tally, glob)   # from tools/ktest_runner.py, as boot "host"

Counting: a test method is one case, unless it has subtests (subTest), then
each subtest is one case and the method adds only what failed outside them.
A failing subtest is a failure; a skip (of a method, class or subtest) is a
skip, counted apart. Every test that started must end with at least one
recorded outcome, and every collected test must have run: otherwise the
runner lost a result, which is a failure. A test module (a suite) whose
every case was skipped proved nothing: that is a failure too.
"""

import collections
import fnmatch
import unittest
from pathlib import Path

TOOLS = Path(__file__).resolve().parent


def _module(test):
    return test.id().split(".")[0]


class HostResult(unittest.TestResult):
    def __init__(self, tally):
        super().__init__()
        self.tally = tally
        self.outcomes = collections.Counter()   # test id -> outcomes recorded
        self.with_subtests = set()              # ids of tests that had subtests
        self.cases = collections.Counter()      # module -> cases counted
        self.skips = collections.Counter()      # module -> cases skipped

    def _count(self, test):
        self.outcomes[test.id()] += 1
        self.cases[_module(test)] += 1

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
        parent = getattr(test, "test_case", test)  # a skipped subtest
        self._count(parent)
        self.skips[_module(parent)] += 1
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


def load(glob):
    """The tests of tools/test_*.py whose module name matches glob."""
    loader = unittest.TestLoader()
    return unittest.TestSuite(
        loader.loadTestsFromName(path.stem)
        for path in sorted(TOOLS.glob("test_*.py"))
        if fnmatch.fnmatchcase(path.stem, glob))


def run(tally, glob, tests=None):
    """Run the host tests matching @glob (or @tests, loaded from it);
    return how many were collected."""
    tests = load(glob) if tests is None else tests
    collected = tests.countTestCases()
    before = (tally.passed, tally.failed, tally.skipped)
    print(f"== host: {collected} unit tests", flush=True)
    result = HostResult(tally)
    tests.run(result)
    if not collected:
        tally.fail("host", f"no unit test matches {glob!r}")
    if result.testsRun != collected:
        tally.fail("host", f"{collected} tests collected but {result.testsRun} ran")
    for module, skipped in sorted(result.skips.items()):
        if skipped == result.cases[module]:
            tally.fail(f"host.{module}", f"every case of the suite was skipped "
                       f"({skipped}): it tested nothing")
    print("host: " + tally.summary(before), flush=True)
    return collected
