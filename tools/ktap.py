#!/usr/bin/env python3
"""tools/ktap.py: a strict KTAP v1 parser for whole's serial console.

    result = ktap.parse(console_text_or_lines, end_reason=None)
    result.passed    -> names of passed cases ("suite.case")
    result.failures  -> [Failure(name, reason, context)], one per counted failure
    result.skipped   -> [Failure(name, reason)] of the cases marked "# SKIP"
    result.suites()  -> {suite name: Test} of the top-level suites that began
    python3 tools/ktap.py [LOG]   # failures, then "N passed, N failed, N skipped"

The console holds OpenSBI's banner, kernel log lines (starting with "[" after
optional blanks) and, raw, the KTAP block. Everything before the first
unindented "KTAP version 1" is preamble. Log lines inside the block are
skipped by the grammar but kept as context of the case they appeared in.

Strictness: each test has a version line and a plan, its children are
numbered 1, 2, ... and there are exactly as many as planned, each nested
test ends with a result line at its parent's indentation, carrying its
number and name. Counting: each case result is one pass or one failure;
each planned case without a result is one failure (the first one of a
crashed or truncated run carries the reason); a suite that never printed
its plan is one failure; every malformed, misnumbered or misplaced line is
one failure. A "Kernel panic" line ends the parse: it is a crash.

Nothing run is a failure: a top-level plan 1..0 (no suite), and a suite
whose plan is 1..0 (no case) unless its result says "# SKIP". A result
marked "# SKIP" counts as skipped, apart from passes and failures; whether
a skip fails the run is the runner's rule (tools/ktest_runner.py).
"""

import re
import sys
from dataclasses import dataclass, field

INDENT = 4
CRASH_MARK = "Kernel panic"
# Lines of console kept after a crash line as its context (the backtrace).
CRASH_CONTEXT = 30

_RESULT = re.compile(r"^(ok|not ok) (\d+)(?: (?:- )?([^#]*?))?\s*(?:#\s*(.*))?$")
_PLAN = re.compile(r"^1\.\.(\d+)$")
_VERSION = re.compile(r"^K?TAP version (\d+)$")
_SUBTEST = re.compile(r"^# Subtest: (.*)$")


@dataclass
class Line:
    no: int            # 1-based console line number
    text: str          # without indentation
    indent: int
    kind: str          # version, plan, result, diag, crash, other


@dataclass
class Failure:
    name: str
    reason: str
    context: list = field(default_factory=list)   # console lines, raw


@dataclass
class Test:
    name: str = ""
    number: int = 0
    ok: bool | None = None       # None: no result line
    directive: str = ""
    plan: int | None = None
    subtests: list = field(default_factory=list)
    is_suite: bool = False
    context: list = field(default_factory=list)   # diag/log lines before result


@dataclass
class Result:
    root: Test | None
    passed: list = field(default_factory=list)
    failures: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    crashed: bool = False
    ended_early: bool = False    # crash, truncation or no KTAP at all
    lines: list = field(default_factory=list)   # the whole console

    @property
    def failed(self):
        return len(self.failures)

    def summary(self):
        return summary(len(self.passed), self.failed, len(self.skipped))

    def suites(self):
        """The top-level suites that printed their header or result."""
        if self.root is None:
            return {}
        return {t.name: t for t in self.root.subtests if t.is_suite and t.name}


def summary(passed, failed, skipped):
    """The closing line of every count: it starts "N passed, N failed"."""
    return f"{passed} passed, {failed} failed, {skipped} skipped"


def _crash_context(lines, idx):
    """CRASH_CONTEXT lines from the crash on, or the console's tail if the
    crash is near the end (then the lines leading to it show too)."""
    start = max(0, min(idx, len(lines) - CRASH_CONTEXT))
    return lines[start:start + CRASH_CONTEXT]


def _is_log(raw):
    """Kernel log lines, and QEMU's own messages on the same stream."""
    body = raw.lstrip()
    return body.startswith("[") or body.startswith("qemu-system-")


def _classify(no, raw):
    body = raw.lstrip(" ")
    indent = len(raw) - len(body)
    if CRASH_MARK in raw:
        kind = "crash"
    elif _VERSION.match(body):
        kind = "version"
    elif _PLAN.match(body):
        kind = "plan"
    elif _RESULT.match(body):
        kind = "result"
    elif body.startswith("#"):
        kind = "diag"
    else:
        kind = "other"
    return Line(no, body, indent, kind)


class _Parser:
    def __init__(self, lines):
        self.raw = lines
        self.tokens = []     # KTAP-block lines, log lines left out
        self.logs_before = {}  # token index -> log lines seen just before it
        self.problems = []   # Failure, in console order

    def tokenize(self, start):
        pending = []
        for i in range(start, len(self.raw)):
            raw = self.raw[i]
            if not raw.strip():
                continue
            if _is_log(raw) and CRASH_MARK not in raw:
                pending.append(raw)
                continue
            self.logs_before[len(self.tokens)] = pending
            pending = []
            self.tokens.append(_classify(i + 1, raw))
        self.logs_before[len(self.tokens)] = pending
        self.pos = 0

    def peek(self):
        if self.pos < len(self.tokens):
            return self.tokens[self.pos]
        return None

    def take(self, context=None):
        tok = self.tokens[self.pos]
        if context is not None:
            context.extend(self.logs_before.get(self.pos, []))
        self.pos += 1
        return tok

    def problem(self, name, tok, why):
        self.problems.append(Failure(name, f"line {tok.no}: {why}: {tok.text!r}",
                                     [self.raw[tok.no - 1]]))

    def parse_test(self, test, indent, path):
        """Version line already taken. Parse header, plan and children."""
        tok = self.peek()
        while tok and tok.indent == indent and tok.kind == "diag":
            self.take(test.context)
            m = _SUBTEST.match(tok.text)
            if m:
                test.name = m.group(1).strip()
            else:
                test.context.append(self.raw[tok.no - 1])
            tok = self.peek()
        if tok and tok.indent == indent and tok.kind == "plan":
            test.plan = int(_PLAN.match(tok.text).group(1))
            self.take(test.context)
        self.parse_children(test, indent, path)

    def parse_children(self, test, indent, path):
        context = []
        while True:
            tok = self.peek()
            if tok is None or tok.kind == "crash":
                return
            if tok.indent < indent and tok.indent % INDENT:
                self.problem(path or "KTAP", self.take(context), "unexpected indentation")
                continue
            if tok.indent < indent:
                return
            expected = len(test.subtests) + 1
            if (not path and test.plan is not None and expected > test.plan
                    and tok.kind in ("diag", "other")):
                return  # the top-level block is complete
            if tok.indent == indent + INDENT and tok.kind == "version":
                self.take(context)
                if tok.text != "KTAP version 1":
                    self.problem(path or "KTAP", tok, "unsupported version")
                child = Test(is_suite=True, context=context)
                context = []
                self.parse_test(child, indent + INDENT, path)
                self.close_subtest(test, child, indent, expected, path)
            elif tok.indent != indent:
                self.problem(path or "KTAP", self.take(context), "unexpected indentation")
            elif tok.kind == "diag":
                self.take(context)
                context.append(self.raw[tok.no - 1])
            elif tok.kind == "result":
                self.take(context)
                child = self.result_test(tok, path, expected)
                child.context = context
                context = []
                test.subtests.append(child)
            else:
                self.problem(path or "KTAP", self.take(context), "not a KTAP line here")

    def result_test(self, tok, path, expected):
        m = _RESULT.match(tok.text)
        child = Test(name=(m.group(3) or "").strip(), number=int(m.group(2)),
                     ok=m.group(1) == "ok", directive=(m.group(4) or "").strip())
        if child.number != expected:
            self.problem(_join(path, child.name), tok,
                         f"numbered {child.number}, expected {expected}")
        return child

    def close_subtest(self, parent, child, indent, expected, path):
        tok = self.peek()
        if tok and tok.indent == indent and tok.kind == "result":
            self.take(child.context)
            res = self.result_test(tok, path, expected)
            if child.name and res.name != child.name:
                self.problem(_join(path, child.name), tok,
                             f"result names {res.name!r}, subtest was {child.name!r}")
            child.name = child.name or res.name
            child.number, child.ok, child.directive = res.number, res.ok, res.directive
        parent.subtests.append(child)


def _join(path, name):
    return f"{path}.{name}" if path else name


def _skipped(test):
    return test.directive.upper().startswith("SKIP")


def _skip_reason(test):
    return test.directive[4:].strip() or "no reason given"


class _Counter:
    """Walks the parsed tree and turns it into passes and failures."""

    def __init__(self, result, end_reason, end_context):
        self.result = result
        self.end_reason = end_reason      # reason for the first missing case
        self.end_context = end_context
        self.used = False                 # was end_reason given to a case?
        self.missed = 0                   # planned tests without a result

    def missing(self, name, what):
        self.missed += 1
        if self.end_reason:
            reason, ctx = f"{what}: {self.end_reason}", self.end_context
            self.end_reason, self.end_context, self.used = None, [], True
        else:
            reason, ctx = f"{what}: never ran", []
        self.result.failures.append(Failure(name, reason, ctx))

    def count(self, test, path):
        res = self.result
        before, missed_before = res.failed, self.missed
        if test.plan is None:
            self.missing(path or "KTAP", "no plan printed")
        elif test.plan == 0 and not path:
            res.failures.append(Failure("KTAP", "plan 1..0: no suite ran"))
        elif test.plan == 0 and not _skipped(test):
            res.failures.append(Failure(path, "plan 1..0: the suite has no case",
                                        test.context))
        elif test.plan == 0:
            res.skipped.append(Failure(path, _skip_reason(test)))
        for child in test.subtests:
            name = _join(path, child.name or f"#{child.number}")
            if child.is_suite:
                self.count(child, name)
            elif _skipped(child):
                res.skipped.append(Failure(name, _skip_reason(child), child.context))
            elif child.ok:
                res.passed.append(name)
            else:
                res.failures.append(Failure(name, "not ok", child.context))
        if test.plan is not None:
            for n in range(len(test.subtests) + 1, test.plan + 1):
                self.missing(_join(path, f"#{n}") if path else f"suite #{n}",
                             "no result")
            if len(test.subtests) > test.plan:
                res.failures.append(Failure(path or "KTAP",
                    f"plan 1..{test.plan} but {len(test.subtests)} results"))
        if path and test.ok is None and self.missed == missed_before:
            self.missing(path, "no result line")
        elif test.ok is False and res.failed == before and not _skipped(test):
            res.failures.append(Failure(path, "reported not ok, though no case failed",
                                        test.context))
        elif test.ok and any(c.ok is False and not _skipped(c) for c in test.subtests):
            res.failures.append(Failure(path, "reported ok, though a case failed"))


def parse(console, end_reason=None):
    """Parse a console (str or list of lines). end_reason says why the run
    ended abnormally (e.g. "timed out after 300s"), or None."""
    if isinstance(console, str):
        # Only "\n" ends a line: SBI consoles turn "\r\n" into "\r\r\n".
        console = console.split("\n")
        if console[-1] == "":
            console.pop()
    lines = [ln.rstrip() for ln in console]
    start = next((i for i, ln in enumerate(lines) if ln == "KTAP version 1"), None)
    crash_before = next((i for i, ln in enumerate(lines[:start])
                         if CRASH_MARK in ln), None)
    if start is None or crash_before is not None:
        why = end_reason or "no KTAP version line"
        if crash_before is not None:
            why = lines[crash_before].strip()
        res = Result(None, crashed=crash_before is not None, ended_early=True,
                     lines=lines)
        res.failures.append(Failure("KTAP", f"no KTAP output: {why}",
                                    lines[-CRASH_CONTEXT:]))
        return res

    p = _Parser(lines)
    p.tokenize(start + 1)
    root = Test(name="", plan=None)
    p.parse_test(root, 0, "")
    res = Result(root, lines=lines)
    tok = p.peek()
    end_context = []
    if tok is not None and tok.kind == "crash":
        res.crashed = True
        end_reason = f"crashed: {tok.text.strip()}"
        end_context = _crash_context(lines, tok.no - 1)
    elif tok is not None:
        # Past the top-level block only log-like text may follow; a crash
        # there (e.g. while powering off) still fails the run.
        crash = next((t for t in p.tokens[p.pos:] if t.kind == "crash"), None)
        if crash is not None:
            res.crashed = True
            end_reason = f"crashed: {crash.text.strip()}"
            end_context = _crash_context(lines, crash.no - 1)
    elif end_reason is None:
        end_reason = "console output ended early"
    if end_reason and not end_context:
        end_context = lines[-CRASH_CONTEXT:]

    counter = _Counter(res, end_reason, end_context)
    counter.count(root, "")
    res.ended_early = res.crashed or counter.used
    if res.crashed and not counter.used:
        # Crash after every planned result: still a failure.
        res.failures.append(Failure("KTAP", end_reason, end_context))
    res.failures.extend(p.problems)
    return res


def format_failure(f):
    out = [f"FAIL {f.name}: {f.reason}"]
    out += [f"    | {ln}" for ln in f.context]
    return "\n".join(out)


def main(argv):
    path = argv[1] if len(argv) > 1 else "-"
    with (sys.stdin if path == "-" else open(path, errors="replace")) as f:
        res = parse(f.read())
    for f in res.failures:
        print(format_failure(f))
    for f in res.skipped:
        print(f"SKIP {f.name}: {f.reason}")
    print(res.summary())
    return 1 if res.failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
