#!/usr/bin/env python3
"""tools/test_spin.py: the SPIN model of invalidate_lock, verified.

    python3 -m unittest tools/test_spin.py   (./tools/test host runs it)

Each check of tools/spinmodel.py is one full search of the model
(docs/model/invalidate_lock.pml): the kernel's protocol must hold in every
reachable state, with writeback and another file as tasks of their own and
two blocks to a page; each fill path without its lock (legacy, and each
alone), each invalidating operation without its exclusive lock, a punch
that lets its partial edge page go before it frees the blocks under it and
a truncate up that leaves the old EOF page writable must each break it.
The trail of the legacy read miss against punch must be the race the lock
exists for (docs/locking.md): the punch passes the page, the fill maps the
old block, the punch frees it, another file reuses it, and the fill's read
brings the other file's data into the cache; under the gates of the
kernel's reproducers (tests/race.c) the trail is their schedule, race
point by race point. The edge-hold trail must show writeback's write
landing in file B's block, the grow trail a store's data with no block.
Also: the race point names of the kernel and of the model are one list
(tools/race_points.py).
"""

import os
import re
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import race_points  # noqa: E402
import spinmodel  # noqa: E402

CHECKS = {c.name: c for c in spinmodel.CHECKS}


class SpinModelTest(unittest.TestCase):
    def setUp(self):
        # No skip: tools/setup installs spin and gcc; without them the
        # proof is missing and that is a failure.
        for tool in ("spin", "gcc"):
            self.assertIsNotNone(shutil.which(tool),
                                 f"{tool} missing: run tools/setup")
        self.tmp = tempfile.TemporaryDirectory(prefix="whole-spin-")
        self.addCleanup(self.tmp.cleanup)

    def verify(self, name):
        res = spinmodel.verify(CHECKS[name].defines, self.tmp.name)
        print(f"    spin {name}: errors {res.errors}, {res.states} states "
              f"stored, depth {res.depth}", file=sys.stderr)
        return res

    def assertHolds(self, name):
        res = self.verify(name)
        self.assertEqual(res.errors, 0, res.output[-3000:])
        self.assertTrue(res.complete, res.output[-3000:])
        self.assertGreater(res.states, 0, "the search did not run")
        self.assertIsNone(res.trail)

    def assertBroken(self, name, deadlock=False):
        res = self.verify(name)
        self.assertGreater(res.errors, 0, f"{name}: no counterexample")
        self.assertIsNotNone(res.trail, f"{name}: no trail written")
        if deadlock:
            self.assertTrue(res.deadlock, res.output[-3000:])
        else:
            self.assertTrue(res.assertion, res.output[-3000:])
        return res

    def test_protocol_holds(self):
        for name in ("fixed", "fixed_no_hole", "readers",
                     "reread_edge_held"):
            with self.subTest(name):
                self.assertHolds(name)

    def test_every_check_is_run(self):
        # Each check of spinmodel.CHECKS is verified by a test here.
        with open(os.path.abspath(__file__)) as f:
            text = f.read()
        for name in CHECKS:
            if not name.startswith("no_excl_"):
                self.assertIn(f'"{name}"', text)

    def test_preallocation_holds_and_breaks_without_its_wait(self):
        self.assertHolds("prealloc")
        for name in ("prealloc_no_wait", "legacy_prealloc"):
            with self.subTest(name):
                self.assertBroken(name)
                story = "\n".join(spinmodel.replay(CHECKS[name].defines,
                                                    self.tmp.name))
                self.assertIn("not zeroed yet", story)
                self.assertIn("fill maps index 0 to block", story)

    def test_reclaim_holds_and_breaks_without_the_page_lock(self):
        # Reclaim as a third task: the protocol holds with it; a drop that
        # ignores the page lock loses what the operation put in the page.
        for name in ("reclaim", "reclaim_no_hole"):
            with self.subTest(name):
                self.assertHolds(name)
        self.assertBroken("no_reclaim_lock")
        story = "\n".join(spinmodel.replay(CHECKS["no_reclaim_lock"].defines,
                                            self.tmp.name))
        self.assertIn("reclaim drops index", story)
        self.assertIn("FILE: the file is neither wantE nor wantS", story)

    def test_each_fill_path_breaks_without_the_lock(self):
        for name in ("legacy_read_miss", "legacy_read_notuptodate",
                     "legacy_fault_mkwrite", "legacy_readahead",
                     "no_lock_read_miss", "no_lock_read_notuptodate",
                     "no_lock_readahead", "no_lock_mkwrite"):
            with self.subTest(name):
                self.assertBroken(name)

    def test_each_operation_breaks_without_its_lock(self):
        for op in ("punch", "zero", "collapse", "insert", "truncate"):
            with self.subTest(op):
                self.assertBroken("no_excl_" + op)

    def at(self, ev, pattern, after=-1):
        """Index of the first event after @after matching @pattern."""
        for i, line in enumerate(ev):
            if i > after and re.search(pattern, line):
                return i
        self.fail(f"no '{pattern}' after event {after} in:\n" +
                  "\n".join(ev))

    def test_legacy_trail_is_the_race(self):
        check = CHECKS["legacy_leak"]
        self.assertBroken("legacy_leak")
        ev = spinmodel.replay(check.defines, self.tmp.name)
        at = lambda pattern, after=-1: self.at(ev, pattern, after)  # noqa

        maps = [i for i, e in enumerate(ev)
                if re.match(r"fill maps index 0 to blocks \d+ \d+$", e)]
        self.assertTrue(maps, "\n".join(ev))
        mapped = re.search(r"blocks (\d+) (\d+)$", ev[maps[-1]]).groups()
        dropped = at(r"^inval (drops|zeroes part of) index 0$")
        self.assertGreater(maps[-1], dropped,
                           "the fill must map the blocks after the drop")
        at(r"race point at_RACE_FILL_MAPPED", maps[-1])
        inval_point = at(r"race point at_RACE_INVAL_DROPPED", dropped)
        freed = at(r"^A frees block \d+$", inval_point)
        block = re.search(r"(\d+)$", ev[freed]).group(1)
        self.assertIn(block, mapped, "the fill mapped the freed block")
        self.assertGreater(freed, maps[-1], "\n".join(ev))
        reused = at(rf"^B reuses block {block} ", freed)
        read = at(r"^read of index 0 from blocks \d+ \d+ done: data "
                  r"(4 \d+|\d+ 4)$", reused)
        at(r"^invariant broken", read)

    def test_edge_page_released_early_loses_b_data(self):
        # The punch zeroes its partial page and lets it go; writeback
        # locks it, maps the punched block (still A's), the punch frees
        # it, B is given it and writes, and writeback's write lands there.
        check = CHECKS["no_edge_hold"]
        self.assertBroken("no_edge_hold")
        ev = spinmodel.replay(check.defines, self.tmp.name)
        at = lambda pattern, after=-1: self.at(ev, pattern, after)  # noqa
        zeroed = at(r"^inval zeroes part of index 0$")
        wb_map = at(r"^writeback of index 0 maps blocks \d+ \d+$", zeroed)
        mapped = re.search(r"blocks (\d+) (\d+)$", ev[wb_map]).groups()
        freed = at(r"^A frees block \d+$", wb_map)
        block = re.search(r"(\d+)$", ev[freed]).group(1)
        self.assertIn(block, mapped, "\n".join(ev))
        reused = at(rf"^B reuses block {block} ", freed)
        write = at(r"^writeback of index 0 writes blocks", reused)
        at(rf"^WRITE: block {block} is not A's", write)
        at(r"^invariant broken", write)

    def test_reread_of_a_released_edge_page_caches_a_freed_block(self):
        # Without the edge hold, a page not uptodate at the punch's edge
        # stays cached and unlocked while its blocks are freed: a re-read
        # without invalidate_lock maps one of them and reads the poison.
        check = CHECKS["no_edge_hold_reread"]
        self.assertBroken("no_edge_hold_reread")
        ev = spinmodel.replay(check.defines, self.tmp.name)
        at = lambda pattern, after=-1: self.at(ev, pattern, after)  # noqa
        zeroed = at(r"^inval zeroes part of index 1$")
        mapped = at(r"^fill maps index 1 to blocks 3 0$", zeroed)
        freed = at(r"^A frees block 3$", mapped)
        read = at(r"^read of index 1 from blocks 3 0 done: data [45] 0$",
                  freed)
        at(r"^invariant broken", read)

    def test_grow_without_mkclean_loses_the_store(self):
        check = CHECKS["no_isize_extended_mkclean"]
        self.assertBroken("no_isize_extended_mkclean")
        ev = spinmodel.replay(check.defines, self.tmp.name)
        at = lambda pattern, after=-1: self.at(ev, pattern, after)  # noqa
        writable = at(r"^page_mkwrite: index 1 dirty, mapped writable$")
        grow = at(r"^inval sets size 8$", writable)
        store = at(r"^store to block 3 lands in the page$", grow)
        lost = at(r"^WRITE: dirty data for block 3, which has no disk "
                  r"block: not written$", store)
        at(r"^invariant broken", lost)
        self.assertNotIn("inval write-protects index 1", "\n".join(ev))

    def test_protocol_holds_under_the_reproducers_gates(self):
        self.assertHolds("reproducer")

    def test_reproducers_schedule_is_the_trail(self):
        # tests/race.c's order: the fill stops at RACE_FILL_START, the
        # punch truncates the cache (index 0 in part: it is not cached) and
        # stops at RACE_INVAL_DROPPED, the fill inserts the page, maps the
        # old blocks and stops at RACE_FILL_MAPPED, then the punch frees
        # block 2 (the file's block 1), B reuses it, and the fill's read
        # returns B's data there.
        check = CHECKS["legacy_reproducer"]
        self.assertBroken("legacy_reproducer")
        ev = spinmodel.replay(check.defines, self.tmp.name)
        order = [r"race point at_RACE_FILL_START by",
                 r"^inval PUNCH takes invalidate_lock exclusive$",
                 r"^inval zeroes part of index 0$",
                 r"race point at_RACE_INVAL_DROPPED by",
                 r"^fill maps index 0 to blocks 1 2$",
                 r"race point at_RACE_FILL_MAPPED by",
                 r"^A frees block 2$",
                 r"^B reuses block 2 ",
                 r"^read of index 0 from blocks 1 2 done: data 1 4$",
                 r"^invariant broken"]
        i = -1
        for pattern in order:
            nxt = [j for j in range(i + 1, len(ev))
                   if re.search(pattern, ev[j])]
            self.assertTrue(nxt, f"no '{pattern}' after event {i} in:\n" +
                            "\n".join(ev))
            i = nxt[0]

    def test_lock_two_no_deadlock(self):
        self.assertHolds("lock_two")

    def test_lock_two_unordered_deadlocks(self):
        # The check can fail: without the address order SPIN finds the
        # deadlock as an invalid end state.
        self.assertBroken("lock_two_unordered", deadlock=True)


class RacePointsTest(unittest.TestCase):
    DEF = ("RACE_POINT_DEF(RACE_A, KERNEL)\n"
           "/* a comment */\n"
           "RACE_POINT_DEF(RACE_B, MODEL)\n")

    def entries(self, text=None):
        entries, problems = race_points.parse_def(text or self.DEF)
        self.assertEqual(problems, [])
        return entries

    def test_tree_is_one_list(self):
        problems, notes = race_points.check_all()
        for n in notes:
            print(f"\n    race points: {n}", end="", file=sys.stderr)
        self.assertEqual(problems, [])

    def test_model_drift_found(self):
        inc = '#include "../../kernel/race_points.def"\n'
        ok = inc + "race_point(RACE_B);\n"
        self.assertEqual(race_points.check_model(self.entries(), ok), [])
        extra = ok + "race_point(RACE_C);\n"
        self.assertEqual(len(race_points.check_model(self.entries(), extra)),
                         1)
        self.assertEqual(len(race_points.check_model(self.entries(), inc)), 1)
        self.assertEqual(
            len(race_points.check_model(self.entries(),
                                        "race_point(RACE_B);\n")), 1)

    def test_kernel_drift_found(self):
        h = '#include <kernel/race_points.def>\n'
        check = race_points.check_kernel
        self.assertEqual(check(self.entries(), h, {"RACE_A", "RACE_B"}),
                         ([], []))
        self.assertEqual(len(check(self.entries(), h, {"RACE_A"})[0]), 1)
        self.assertEqual(
            len(check(self.entries(), h, {"RACE_A", "RACE_B", "X"})[0]), 1)
        own = "enum race_id {\n\tRACE_A, /* x */\n\tRACE_Z,\n\tNR_RACE_POINTS,\n};"
        problems, notes = check(self.entries(), own, set())
        self.assertEqual(problems,
                         [f"{race_points.RACE_H}: RACE_Z is not a point of "
                          f"{race_points.DEF}"])

    def test_def_format_checked(self):
        _, problems = race_points.parse_def(self.DEF + "RACE_C,\n")
        self.assertEqual(len(problems), 1)
        _, problems = race_points.parse_def(self.DEF + self.DEF)
        self.assertEqual(len(problems), 1)


if __name__ == "__main__":
    unittest.main()
