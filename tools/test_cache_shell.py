#!/usr/bin/env python3
"""Host tests of the page-cache commands of the shell: io's fadvise,
readahead and pread -N (RWF_NOWAIT), and lockstat.

The expected results are Linux's rules, not the kernel's earlier output:
- preadv2(RWF_NOWAIT) of a range that is not cached fails with EAGAIN
  ("Resource temporarily unavailable", as xfs_io prints it) and of a cached
  range returns the bytes; posix_fadvise(WILLNEED) and readahead(2) cache
  the range, fadvise(DONTNEED) drops clean pages; bad advice is EINVAL.
- reading a file that is wholly cached takes invalidate_lock zero times
  (the reason the lock exists without slowing the cached read).
The image is created fresh and must pass e2fsck -fn afterwards.
"""
import re
import shutil
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ext2img  # noqa: E402
from test_fs_shell import boot  # noqa: E402

EAGAIN = "pread: Resource temporarily unavailable"
EINVAL = "readahead: Invalid argument"


def lockstat_rows(lines):
    """{lock: (shared, exclusive, contended)} of each lockstat table."""
    tables, cur = [], None
    for line in lines:
        if line.split()[:1] == ["lock"]:
            cur = {}
            tables.append(cur)
        elif cur is not None and re.fullmatch(r"\S+( +\d+){3}", line.strip()):
            name, *nums = line.split()
            cur[name] = tuple(map(int, nums))
    return tables


class CacheCommands(unittest.TestCase):
    def test_nowait_fadvise_readahead_lockstat(self):
        tmp = Path(tempfile.mkdtemp(prefix="cache-shell-"))
        self.addCleanup(shutil.rmtree, tmp)
        img = tmp / "img"
        ext2img.make_image(img, "16M")
        # WILLNEED and readahead(2) start reads and return: a NOWAIT read
        # right after may meet a page still being read (EAGAIN, as in
        # Linux). That they cached the range shows as a plain read of it
        # taking invalidate_lock zero times; NOWAIT past the range fails.
        script = [
            'io -f -c "pwrite -q -S 0x61 0 64k" -c fsync /f',
            "drop_caches",
            "echo @cold",
            'io -r -c "pread -N 0 4k" /f',
            "echo @willneed",
            'io -r -c "fadvise -w 0 16k" /f',
            "lockstat -z",
            'io -r -c "pread -q 0 16k" -c "pread -N 16k 4k" /f',
            "lockstat",
            "echo @readahead",
            'io -r -c "readahead 32k 8k" /f',
            "lockstat -z",
            'io -r -c "pread -q 32k 8k" -c "pread -N -v 32k 16" /f',
            "lockstat",
            "echo @dontneed",
            'io -r -c "fadvise -d" -c "pread -N 0 4k" /f',
            "echo @cached",
            'io -r -c "pread -q 0 64k" /f',
            "lockstat -z",
            'io -r -c "pread -q 0 64k" -c "pread -q -b 1000 0 64k" /f',
            "lockstat",
            "echo @bad",
            'io -r -c "readahead 0 4k" /',
        ]
        status, lines = boot(img, "; ".join(script))
        text = "\n".join(lines)
        sec, cur = {}, None
        for line in lines:
            if line.startswith("@"):
                cur = sec.setdefault(line[1:], [])
            elif cur is not None:
                cur.append(line)
        self.assertEqual(sec["cold"], [EAGAIN], text)
        # 16k came in with WILLNEED; the page after it did not.
        self.assertIn(EAGAIN, sec["willneed"], text)
        self.assertEqual(lockstat_rows(sec["willneed"])[1]["invalidate_lock"],
                         (0, 0, 0), text)
        self.assertNotIn(EAGAIN, sec["readahead"], text)
        self.assertIn("00008000:  61 61 61 61 61 61 61 61 61 61 61 61 "
                      "61 61 61 61  aaaaaaaaaaaaaaaa", sec["readahead"], text)
        self.assertEqual(lockstat_rows(sec["readahead"])[1]["invalidate_lock"],
                         (0, 0, 0), text)
        self.assertEqual(sec["dontneed"], [EAGAIN], text)
        tables = lockstat_rows(sec["cached"])
        self.assertEqual(len(tables), 2, text)
        self.assertEqual(tables[1]["invalidate_lock"], (0, 0, 0), text)
        self.assertIn("i_rwsem", tables[1], text)
        self.assertGreater(tables[0]["invalidate_lock"][0], 0, text)
        self.assertIn(EINVAL, sec["bad"], text)
        self.assertEqual(status, 1, text)  # the directory's readahead fails
        ext2img.check_image(img)


if __name__ == "__main__":
    unittest.main()
