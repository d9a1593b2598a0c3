#!/usr/bin/env python3
"""tools/test_ktap.py: host unit tests for tools/ktap.py.

    python3 -m unittest tools/test_ktap.py   (tools/test runs them too)
"""

import os
import sys
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktap  # noqa: E402

BANNER = """\
OpenSBI v1.2
   ____                    _____ ____ _____
  / __ \\                  / ____|  _ \\_   _|
Platform Name             : riscv-virtio,qemu
[    0.000000] whole: booting on 4 harts
"""

GOOD = """\
KTAP version 1
1..2
    KTAP version 1
    # Subtest: sched_basic
    1..3
    ok 1 many_tasks_finish
    ok 2 preempt_switches
    ok 3 other
ok 1 sched_basic
    KTAP version 1
    # Subtest: locks_rwsem
    1..1
    ok 1 readers_parallel
ok 2 locks_rwsem
"""


def run(text, end_reason=None):
    return ktap.parse(BANNER + textwrap.dedent(text), end_reason)


def reasons(res):
    return [(f.name, f.reason) for f in res.failures]


class KtapTest(unittest.TestCase):
    def assertCounts(self, res, passed, failed):
        self.assertEqual((len(res.passed), res.failed), (passed, failed),
                         reasons(res))

    def test_good_run(self):
        res = run(GOOD)
        self.assertCounts(res, 4, 0)
        self.assertEqual(res.passed[0], "sched_basic.many_tasks_finish")
        self.assertFalse(res.crashed or res.ended_early)
        self.assertEqual(res.summary(), "4 passed, 0 failed, 0 skipped")

    def test_crlf_and_banner_ignored(self):
        res = ktap.parse((BANNER + GOOD).replace("\n", "\r\n"))
        self.assertCounts(res, 4, 0)
        res = ktap.parse((BANNER + GOOD).replace("\n", "\r\r\n"))
        self.assertCounts(res, 4, 0)
        self.assertNotIn("", res.lines)

    def test_failed_case_keeps_diagnostics(self):
        res = run(GOOD.replace(
            "    ok 2 preempt_switches\n",
            "    # preempt_switches: EXPECTATION FAILED at kernel/sched_test.c:40\n"
            "    # expected a == b, but a == 1\n"
            "    not ok 2 preempt_switches\n").replace(
            "ok 1 sched_basic", "not ok 1 sched_basic"))
        self.assertCounts(res, 3, 1)
        f = res.failures[0]
        self.assertEqual((f.name, f.reason), ("sched_basic.preempt_switches", "not ok"))
        self.assertEqual(len(f.context), 2)
        self.assertIn("EXPECTATION FAILED", f.context[0])

    def test_suite_ok_with_failed_case_is_inconsistent(self):
        res = run(GOOD.replace("    ok 3 other", "    not ok 3 other"))
        self.assertCounts(res, 3, 2)
        self.assertIn("reported ok", res.failures[1].reason)

    def test_missing_case_counts_each(self):
        res = run(GOOD.replace("    1..3", "    1..5"))
        self.assertCounts(res, 4, 2)
        self.assertEqual([f.name for f in res.failures],
                         ["sched_basic.#4", "sched_basic.#5"])

    def test_plan_mismatch_extra_results(self):
        res = run(GOOD.replace("    1..3", "    1..2"))
        self.assertCounts(res, 4, 1)
        self.assertIn("plan 1..2 but 3 results", res.failures[0].reason)

    def test_missing_suite_and_top_plan(self):
        res = run(GOOD.replace("1..2\n", "1..3\n", 1))
        self.assertCounts(res, 4, 1)
        self.assertEqual(res.failures[0].name, "suite #3")
        self.assertTrue(res.ended_early)
        res = run(GOOD.replace("1..2\n", "", 1))
        self.assertCounts(res, 4, 1)
        self.assertIn("no plan printed", res.failures[0].reason)

    def test_suite_without_plan_counts_once(self):
        res = run("""\
            KTAP version 1
            1..1
                KTAP version 1
                # Subtest: mm_page_alloc
            """, end_reason="timed out after 5s")
        self.assertCounts(res, 0, 1)
        self.assertEqual(res.failures[0].name, "mm_page_alloc")
        self.assertIn("no plan printed: timed out after 5s", res.failures[0].reason)

    def test_crash_mid_suite(self):
        res = run("""\
            KTAP version 1
            1..2
                KTAP version 1
                # Subtest: sched_basic
                1..3
                ok 1 many_tasks_finish
            [    1.500000] Kernel panic on cpu 1 (task preempt_switches): oops
            [    1.500001] Backtrace:
            [    1.500002]   sched_switch+0x10/0x80
            """)
        self.assertTrue(res.crashed)
        self.assertCounts(res, 1, 3)
        first = res.failures[0]
        self.assertEqual(first.name, "sched_basic.#2")
        self.assertIn("crashed: [    1.500000] Kernel panic", first.reason)
        self.assertIn("Backtrace", "\n".join(first.context))
        self.assertIn("never ran", res.failures[1].reason)
        self.assertEqual(res.failures[2].name, "suite #2")

    def test_crash_after_all_results_still_fails(self):
        res = run(GOOD + "[    2.0] Kernel panic on cpu 0 (task idle): late\n")
        self.assertCounts(res, 4, 1)
        self.assertIn("crashed: [    2.0] Kernel panic", res.failures[0].reason)

    def test_output_truncated(self):
        res = run("\n".join(GOOD.splitlines()[:6]) + "\n")
        self.assertTrue(res.ended_early)
        self.assertCounts(res, 1, 3)  # 2 cases, suite 2
        self.assertIn("ended early", res.failures[0].reason)

    def test_no_ktap_at_all(self):
        res = ktap.parse(BANNER + "qemu-system-riscv64: could not load kernel\n")
        self.assertCounts(res, 0, 1)
        self.assertIn("no KTAP output", res.failures[0].reason)
        self.assertIn("could not load kernel", res.failures[0].context[-1])

    def test_panic_before_ktap(self):
        res = ktap.parse(BANNER + "[ 0.1] Kernel panic on cpu 0 (task boot): no memory\n"
                         + GOOD)
        self.assertCounts(res, 0, 1)
        self.assertTrue(res.crashed)

    def test_log_lines_interleaved(self):
        lines = []
        for i, ln in enumerate(GOOD.splitlines()):
            lines.append(ln)
            lines.append(f"[    0.{i:06d}] virtio: queue {i} ready")
            lines.append(f"   [    0.{i:06d}] indented log line")
        res = run("\n".join(lines) + "\n")
        self.assertCounts(res, 4, 0)

    def test_log_lines_are_failure_context(self):
        res = run(GOOD.replace("    ok 1 readers_parallel",
                               "[    0.5] rwsem: reader stalled\n"
                               "    not ok 1 readers_parallel").replace(
                                   "ok 2 locks_rwsem", "not ok 2 locks_rwsem"))
        self.assertCounts(res, 3, 1)
        self.assertEqual(res.failures[0].context, ["[    0.5] rwsem: reader stalled"])

    def test_nested_out_of_order_numbers(self):
        res = run(GOOD.replace("    ok 2 preempt_switches\n    ok 3 other",
                               "    ok 3 other\n    ok 2 preempt_switches"))
        self.assertCounts(res, 4, 2)
        self.assertIn("numbered 3, expected 2", res.failures[0].reason)
        self.assertIn("numbered 2, expected 3", res.failures[1].reason)

    def test_top_level_out_of_order_numbers(self):
        res = run(GOOD.replace("ok 2 locks_rwsem", "ok 1 locks_rwsem"))
        self.assertCounts(res, 4, 1)
        self.assertIn("numbered 1, expected 2", res.failures[0].reason)

    def test_suite_result_name_mismatch(self):
        res = run(GOOD.replace("ok 2 locks_rwsem", "ok 2 locks_mutex"))
        self.assertCounts(res, 4, 1)
        self.assertIn("subtest was 'locks_rwsem'", res.failures[0].reason)

    def test_bad_line_inside_block(self):
        res = run(GOOD.replace("    ok 3 other", "    garbage\n    ok 3 other"))
        self.assertCounts(res, 4, 1)
        self.assertIn("not a KTAP line", res.failures[0].reason)
        res = run(GOOD.replace("    ok 3 other", "  ok 3 other"))
        self.assertCounts(res, 3, 2)  # the bad line, and case 3 missing
        self.assertIn("unexpected indentation", res.failures[1].reason)

    def test_suite_not_ok_without_failed_case(self):
        res = run(GOOD.replace("ok 2 locks_rwsem", "not ok 2 locks_rwsem"))
        self.assertCounts(res, 4, 1)
        self.assertEqual(res.failures[0].name, "locks_rwsem")

    def test_skip_is_counted_apart(self):
        res = run(GOOD.replace("    ok 3 other", "    ok 3 other # SKIP no disk"))
        self.assertCounts(res, 3, 0)
        self.assertEqual([(f.name, f.reason) for f in res.skipped],
                         [("sched_basic.other", "no disk")])
        self.assertEqual(res.summary(), "3 passed, 0 failed, 1 skipped")

    def test_not_ok_skip_is_a_skip(self):
        res = run(GOOD.replace("    ok 3 other", "    not ok 3 other # SKIP")
                  .replace("ok 1 sched_basic", "not ok 1 sched_basic # SKIP"))
        self.assertCounts(res, 3, 0)
        self.assertEqual([(f.name, f.reason) for f in res.skipped],
                         [("sched_basic.other", "no reason given")])

    def test_suite_skipped_whole(self):
        res = run(GOOD.replace("    1..1\n    ok 1 readers_parallel",
                               "    1..1\n    ok 1 readers_parallel # SKIP one hart"))
        self.assertCounts(res, 3, 0)
        res = run(GOOD.replace("    1..1\n    ok 1 readers_parallel\nok 2 locks_rwsem",
                               "    1..0\nok 2 locks_rwsem # SKIP no harts"))
        self.assertCounts(res, 3, 0)
        self.assertEqual([(f.name, f.reason) for f in res.skipped],
                         [("locks_rwsem", "no harts")])

    def test_trailing_text_after_block_is_ignored(self):
        res = run(GOOD + "# totals: pass:4 fail:0\nwhole: powering off\n")
        self.assertCounts(res, 4, 0)
        res = run(GOOD + "ok 3 extra\n")
        self.assertCounts(res, 5, 1)

    def test_timeout_with_complete_output(self):
        res = run(GOOD, end_reason="timed out after 5s")
        self.assertCounts(res, 4, 0)  # the runner counts the timeout itself
        self.assertFalse(res.ended_early)

    def test_empty_plan_fails(self):
        res = run("KTAP version 1\n1..0\n")
        self.assertCounts(res, 0, 1)
        self.assertEqual(reasons(res), [("KTAP", "plan 1..0: no suite ran")])

    def test_suite_without_cases_fails(self):
        res = run(GOOD.replace("    1..1\n    ok 1 readers_parallel\n", "    1..0\n"))
        self.assertCounts(res, 3, 1)
        self.assertEqual(reasons(res),
                         [("locks_rwsem", "plan 1..0: the suite has no case")])


if __name__ == "__main__":
    unittest.main()
