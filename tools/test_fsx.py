#!/usr/bin/env python3
"""tools/test_fsx.py: the kernel's concurrent fsx, fixed and legacy mode.

tools/fsxrun.py with fixed seeds on 4 harts: one mutator changes two
files with every operation while two readers per file read, fault,
NOWAIT-read and read ahead beside it, every byte checked against the
model. -w holds each invalidation open at the race point, so that the
readers meet it there. A third-party task flushes, fsyncs and reclaims
beside them all; each of the three must have run in every fixed-mode
run, and reclaim must have freed pages. Every boot's console must hold
no kernel report
(tools/kconsole.py; legacy mode's own excepted).
  - fixed mode: fsx passes, e2fsck -fn is strictly clean and every file's
    kernel cksum equals the host cksum of its debugfs dump (4, 2 and 1 KiB
    blocks);
  - held mappings (fsx -k): the same, with a shared writable mapping of
    each file held for the whole run, stored through by the mutator and by
    a storer task beside every change, so that page_mkwrite meets every
    invalidation; with every operation, and with a mix of stores and the
    operations that grow a file (truncate, write, zero, preallocate),
    after which the page that held EOF has blocks without disk space
    (4, 2 and 1 KiB blocks: HELD_BLOCKS; and on the writable ext4 image
    at 1 KiB blocks, extent trees under the held pages);
  - legacy mode (invalidate_lock=off): fsx must fail within the run, and
    the test reports after how many operations.
"""

import tempfile
import unittest
from pathlib import Path

import fsxrun

SEED = 20261204
OPS = 400
HELD_OPS = 300
EXT4_HELD_OPS = 150
# The block sizes fsx -k runs on. Before f648feb (pagecache_isize_extended)
# it lost stores on 1 and 2 KiB blocks: a store through an entry made
# writable when its page held EOF reached, after the file grew, a block
# page_mkwrite never gave disk space ("dirty data for logical block N,
# which has no disk block"); GROWTH_MIX found it in every run.
HELD_BLOCKS = (4096, 2048, 1024)
# Stores through the held mappings, the operations that grow a file, and
# fsync, which reports a store lost in writeback soon after its loss.
GROWTH_MIX = "MMMtwzaf"


def run(*extra):
    a = fsxrun.parser().parse_args(["--seed", str(SEED), "--ops", str(OPS), *extra])
    with tempfile.TemporaryDirectory() as tmp:
        return fsxrun.run(a, Path(tmp) / "fsx.img")


def failure(console):
    """The first line fsx printed after its seed line: what went wrong."""
    lines = [l for l in console.splitlines() if l.startswith("fsx: ")]
    return lines[1] if len(lines) > 1 else "(nothing)"


class FsxReportTest(unittest.TestCase):
    """No boot: what fsxrun.check makes of a console."""

    def test_a_fixed_mode_failure_is_told_before_the_cksums(self):
        a = fsxrun.parser().parse_args(["--seed", "1"])
        console = ("fsx: seed 1, 2 files, 2 readers each, fixed mode\n"
                   "fsx: /fsx/fsx1: byte 4096: expected 0x00, found 0xa5\n"
                   "fsx:   falloc keep_size /fsx/fsx1 [0, +8192)\n"
                   "fsx: FAILED after 12 operations\n"
                   "1 2 /fsx/fsx0\n3 4 /fsx/fsx1\n")
        with self.assertRaises(fsxrun.Failed) as e:
            fsxrun.check(a, None, console)  # the image is never looked at
        self.assertIn("fsx failed in fixed mode", str(e.exception))
        self.assertIn("expected 0x00, found 0xa5", str(e.exception))
        self.assertIn("falloc keep_size", str(e.exception))

    def test_a_kernel_report_fails_a_passed_run(self):
        a = fsxrun.parser().parse_args(["--seed", "1"])
        console = ("[    0.5] whole: 4 harts\n"
                   "fsx: seed 1, 2 files, 2 readers each, fixed mode\n"
                   "[    2.25] ext2: inode 12: dirty data for logical block 2, "
                   "which has no disk block: not written\n"
                   "fsx: passed, 12 operations\n")
        with self.assertRaises(fsxrun.Failed) as e:
            fsxrun.check(a, None, console)
        self.assertIn("kernel report 'ext2-error'", str(e.exception))
        self.assertIn("logical block 2", str(e.exception))

    def test_legacy_mode_allows_its_own_reports_only(self):
        lines = ["[    1.0] invalidate_lock: page 3 of inode 12 back in the "
                 "range [0, 4095] its holder invalidated",
                 "[    1.2] ext2: inode 12: dirty data for logical block 2, "
                 "which has no disk block: not written",
                 "[    1.5] WARNING: at mm/filemap.c:1 filemap_add_page"]
        self.assertEqual([r.kind for r in fsxrun.kernel_reports(lines, False)],
                         ["invalidate-leftover", "ext2-error", "warning"])
        self.assertEqual([r.kind for r in fsxrun.kernel_reports(lines, True)],
                         ["warning"])

    def test_legacy_unclean_unmount_fails_even_after_a_bus_error(self):
        """A reader killed by legacy mode's bus error leaves no mapping
        once joined, so nothing excuses a busy root at poweroff."""
        unmount = "[    2.0] poweroff: root not unmounted cleanly (-16)"
        sigbus = ("[    1.9] Oops: bus error (SIGBUS) at 0x80201140, address "
                  "0xffffffc040000845 in task fsx-reader on cpu 3")
        self.assertEqual([r.kind for r in fsxrun.kernel_reports([sigbus, unmount], True)],
                         ["unclean-unmount"])
        self.assertEqual([r.kind for r in fsxrun.kernel_reports([sigbus, unmount], False)],
                         ["sigbus", "unclean-unmount"])


    def test_free_blocks_hold_dirt_and_e2fsck_is_clean(self):
        with tempfile.TemporaryDirectory() as tmp:
            img = Path(tmp) / "d.img"
            fsxrun.make_dirty_image(img, 4096)
            data = img.read_bytes()
            fsxrun.ext2img.check_image(img)
        self.assertEqual(len(data), fsxrun.IMAGE_MIB << 20)
        self.assertGreater(data.count(fsxrun.DIRT), len(data) * 9 // 10)


class FsxTest(unittest.TestCase):
    def passes(self, ops, block, *extra):
        try:
            r = run("--ops", str(ops), "--block", str(block), "--window", "5",
                    *extra)
        except fsxrun.Failed as e:
            self.fail(f"seed {SEED}, {block}-byte blocks {' '.join(extra)}: {e}")
        self.assertTrue(r["passed"], failure(r["console"]) + "\n" +
                        r["console"][-3000:])
        self.assertEqual(r["ops"], ops)
        self.assertGreater(r["checks"], ops)  # the readers did read
        # the third parties ran: flushes, fsyncs, reclaim that freed pages
        self.assertIsNotNone(r["third"], r["console"][-3000:])
        self.assertTrue(all(n > 0 for n in r["third"]), r["third"])
        return r

    def test_fixed_mode_passes(self):
        for block in (4096, 2048, 1024):
            with self.subTest(block=block):
                r = self.passes(OPS, block)
                print(f"\n    fsx fixed, {block}-byte blocks: {r['ops']} operations, "
                      f"{r['checks']} concurrent reads checked, beside "
                      "{} flush rounds, {} fsyncs and {} reclaim calls ({} "
                      "pages freed)".format(*r["third"]))

    def test_fixed_mode_passes_ext4(self):
        """The same on writable ext4 images: extent trees, unwritten
        extents over free blocks that hold dirt."""
        for block in (4096, 1024):
            with self.subTest(block=block):
                r = self.passes(OPS, block, "--fs", "ext4")
                print(f"\n    fsx fixed, ext4, {block}-byte blocks: {r['ops']} "
                      f"operations, {r['checks']} concurrent reads checked")

    def held(self, ops, block, mix, *extra):
        r = self.passes(ops, block, "--keep", *(("--mix", mix) if mix else ()),
                        *extra)
        self.assertIsNotNone(r["stores"], r["console"][-3000:])
        mutator, storer, begun = r["stores"]
        self.assertGreater(mutator, 0)  # op M ran
        self.assertGreater(storer, ops // 2)  # beside most
        fs = ", ext4" if "ext4" in extra else ""
        print(f"\n    fsx fixed, held mappings{fs}, {block}-byte blocks, "
              f"mix {mix or 'all'}: {r['ops']} operations, "
              f"{r['checks']} concurrent reads checked, {mutator} "
              f"mapped stores by the mutator, {storer} by the storer "
              f"({begun} begun before the call beside them returned)")

    def test_held_mappings_pass(self):
        for block in HELD_BLOCKS:
            for mix in ("", GROWTH_MIX):
                with self.subTest(block=block, mix=mix or "all"):
                    self.held(HELD_OPS, block, mix)

    def test_held_mappings_pass_ext4(self):
        """Held mappings on the writable ext4 image at 1 KiB blocks: a
        page over four blocks, page_mkwrite reserving them in an extent
        tree (unwritten extents, splits, merges) beside every change."""
        for mix in ("", GROWTH_MIX):
            with self.subTest(block=1024, mix=mix or "all"):
                self.held(EXT4_HELD_OPS, 1024, mix, "--fs", "ext4")

    def test_aarch64_fixed_mode_passes(self):
        """The same fsx on the aarch64 kernel (kernel/arch/aarch64)."""
        r = self.passes(OPS, 4096, "--arch", "aarch64")
        print(f"\n    fsx fixed, aarch64, 4096-byte blocks: {r['ops']} operations, "
              f"{r['checks']} concurrent reads checked")

    def test_legacy_mode_fails(self):
        r = run("--legacy", "--window", "20")
        self.assertFalse(r["passed"], f"legacy mode ran {r['ops']} operations "
                         "cleanly: the readers never met an invalidation")
        print(f"\n    fsx legacy: failed after {r['ops']} operations: "
              f"{failure(r['console'])}", )


if __name__ == "__main__":
    unittest.main()
