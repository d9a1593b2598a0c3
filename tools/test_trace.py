#!/usr/bin/env python3
"""tools/test_trace.py: the event trace, from the shell and as race pictures.

- A cold `cat` traced from the shell: the reader takes the file's
  invalidate_lock shared, inserts the page and submits its read under it,
  the read completes, then it drops the lock; the dump parses, and
  tools/trace turns it into Chrome trace JSON and a well-formed SVG.
- tools/trace race race_punch_fault, in both modes, must tell the story the
  pictures in docs/trace/ show: in legacy mode the fault maps the block
  after punch dropped the cache and before it frees the block, then reads
  the freed block; in the fixed kernel the fault waits for invalidate_lock
  until punch has freed the block and let go.
"""

import json
import re
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from pathlib import Path

import boots
import ext2img
import kconsole
import tracefmt
import wholerun

ROOT = Path(__file__).resolve().parent.parent


def story(legacy):
    cmd = [sys.executable, str(ROOT / "tools" / "trace"), "race", "race_punch_fault"]
    with tempfile.TemporaryDirectory() as tmp:
        res = subprocess.run(cmd + ["-o", tmp] + (["--legacy"] if legacy else []),
                             cwd=ROOT, capture_output=True, text=True, timeout=600,
                             stdin=subprocess.DEVNULL)
        assert res.returncode == 0, res.stdout + res.stderr
        name = "race_punch_fault" + ("-legacy" if legacy else "")
        ET.parse(Path(tmp) / f"{name}.svg")
        json.loads((Path(tmp) / f"{name}.json").read_text())
        log = (Path(tmp) / f"{name}.log").read_text()
    # The race boot's rules: in legacy mode the page the punch left behind
    # is reported, as there.
    race_boot = next(b for b in boots.BOOTS
                     if b.name == ("race_legacy" if legacy else "race"))
    kconsole.check(log, boots.allowed_reports(race_boot))
    lines = [re.sub(r"^\s*[0-9.]+ ms\s+hart \d+\s+", "", l)
             for l in res.stdout.splitlines() if " ms  hart " in l]
    return lines, log


def first(lines, pattern):
    for i, line in enumerate(lines):
        if re.search(pattern, line):
            return i
    raise AssertionError(f"no {pattern!r} in:\n" + "\n".join(lines))


class TraceShellTest(unittest.TestCase):
    def test_cold_read_under_invalidate_lock(self):
        with tempfile.TemporaryDirectory() as tmp:
            disk = Path(tmp) / "t.img"
            ext2img.make_image(disk, "32M", ROOT / "tools" / "disk-skel")
            stat = subprocess.run(["debugfs", "-R", "stat /README", str(disk)],
                                  env=ext2img._ENV, capture_output=True, text=True).stdout
            ino = int(re.search(r"Inode: (\d+)", stat).group(1))
            res = wholerun.run(
                ["--smp", "2", "--mem", "128M", "--disk", disk,
                 "-c", "trace start; cat /README; trace stop; trace dump"])
            self.assertEqual(res.returncode, 0, res.stdout[-1500:])
            log = Path(tmp) / "console.log"
            log.write_text(res.stdout)
            t = tracefmt.parse(res.stdout)
            ev = [e for e in t.events if t.names.get(e.tid) == "main"]
            take = next(i for i, e in enumerate(ev) if e.type == tracefmt.LOCK_TAKE
                        and e.a == ino and e.b == (2 << 8 | 2))
            add = next(i for i, e in enumerate(ev) if e.type == tracefmt.PAGE_ADD
                       and e.a == ino and e.b == 0)
            submit = next(i for i, e in enumerate(ev) if e.type == tracefmt.BIO_SUBMIT
                          and e.b >> 32 == 0 and i > add)
            drop = next(i for i, e in enumerate(ev) if e.type == tracefmt.LOCK_DROP
                        and e.a == ino and e.b == (2 << 8 | 2))
            # The lock covers the insertion; the new page's lock covers
            # its read, submitted after the lock is dropped.
            self.assertLess(take, add)
            self.assertLess(add, drop)
            self.assertLess(drop, submit)
            sector = ev[submit].a
            self.assertTrue(any(e.type == tracefmt.BIO_DONE and e.a == sector
                                and e.b == 0 for e in t.events))
            self.assertEqual(sum(t.dropped.values()), 0)
            for kind in ("json", "svg"):
                out = subprocess.run([sys.executable, str(ROOT / "tools" / "trace"), kind,
                                      str(log)], capture_output=True, text=True, check=True)
                if kind == "json":
                    doc = json.loads(out.stdout)
                    names = {e["name"] for e in doc["traceEvents"]}
                    self.assertIn(f"holds invalidate_lock ino {ino} shared", names)
                else:
                    ET.fromstring(out.stdout)
                    self.assertIn(f"page 0 of ino {ino} inserted", out.stdout)

    def test_race_names_are_listed(self):
        """--list names every reproducer; a name that is not one is
        answered with that list (not with the suites), and no boot."""
        trace = [sys.executable, str(ROOT / "tools" / "trace"), "race"]
        names = subprocess.run(trace + ["--list"], capture_output=True,
                               text=True, check=True).stdout.split()
        self.assertIn("race_punch_fault", names)
        self.assertIn("race_truncate_page_mkwrite", names)
        self.assertEqual(len(names), 5 * 11)   # operations x fill paths
        bad = subprocess.run(trace + ["punch-vs-fault"], capture_output=True,
                             text=True)
        self.assertNotEqual(bad.returncode, 0)
        self.assertIn("race_punch_fault", bad.stderr)
        self.assertNotIn("race_enum", bad.stderr)

    def test_bad_dump_is_refused(self):
        with self.assertRaises(tracefmt.BadDump):
            tracefmt.parse("trace: begin 1 128\ntrace: e 1 0 1 10 0 0\n")
        with self.assertRaises(tracefmt.BadDump):
            tracefmt.parse("trace: begin 1 128\ntrace: e 1 0 1 10 0 0\ntrace: end 2\n")


class TraceRaceTest(unittest.TestCase):
    def test_legacy_fault_maps_the_block_between_eviction_and_free(self):
        lines, _ = story(legacy=True)
        dropped = first(lines, r"punch\(\d+\)\s+RACE_INVAL_DROPPED")
        inserted = first(lines, r"filler\(\d+\)\s+page 2 of ino \d+ inserted")
        mapped = first(lines, r"filler\(\d+\)\s+RACE_FILL_MAPPED")
        freed = first(lines, r"punch\(\d+\)\s+ino \d+ frees blocks")
        sector = re.search(r"\(sector (\d+)\)", lines[freed]).group(1)
        read = first(lines, rf"filler\(\d+\)\s+bio read sector {sector} ")
        self.assertLess(dropped, inserted)
        self.assertLess(inserted, mapped)
        self.assertLess(mapped, freed)
        self.assertLess(freed, read)
        self.assertFalse(any(re.search(r"filler.*invalidate_lock", l) for l in lines))

    def test_fixed_fault_waits_for_the_punch(self):
        lines, _ = story(legacy=False)
        dropped = first(lines, r"punch\(\d+\)\s+RACE_INVAL_DROPPED")
        waits = first(lines, r"filler\(\d+\)\s+waits invalidate_lock shared")
        freed = first(lines, r"punch\(\d+\)\s+ino \d+ frees blocks")
        let_go = first(lines, r"punch\(\d+\)\s+drops invalidate_lock exclusive")
        takes = first(lines, r"filler\(\d+\)\s+takes invalidate_lock shared")
        inserted = first(lines, r"filler\(\d+\)\s+page 2 of ino \d+ inserted")
        self.assertLess(dropped, waits)
        self.assertLess(waits, freed)
        self.assertLess(freed, let_go)
        self.assertLess(let_go, takes)
        self.assertLess(takes, inserted)
        # the hole reads as zeroes: the fault reads no block at all
        self.assertFalse(any(re.search(r"filler.*bio read", l) for l in lines))


if __name__ == "__main__":
    unittest.main()
