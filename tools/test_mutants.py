#!/usr/bin/env python3
"""Host tests of tools/mutants.py: the quick mutants are killed, and a bug
no test can see is reported as a survivor with a failing exit status.

The quick ones (header "quick: yes") are a few whose boots take seconds;
`tools/mutants` runs the whole list.
"""
import os
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MUTANTS = [sys.executable, str(ROOT / "tools" / "mutants.py")]


def run(args, env=None):
    return subprocess.run(MUTANTS + args, cwd=ROOT, capture_output=True,
                          text=True, timeout=900, env=env)


class MutantsTest(unittest.TestCase):
    def test_quick_mutants_are_killed(self):
        res = run(["--quick"])
        last = res.stdout.strip().splitlines()[-1]
        self.assertEqual(res.returncode, 0, res.stdout[-2000:])
        killed = int(last.split()[0])
        self.assertGreaterEqual(killed, 2, res.stdout[-2000:])
        self.assertEqual(last, f"{killed} killed, 0 survived")

    def test_every_patch_applies(self):
        # A patch that no longer applies is not a mutant: the full run would
        # report it as a survivor only when someone runs it.
        for patch in sorted((ROOT / "tools" / "mutants.d").glob("*.patch")):
            with self.subTest(patch=patch.name):
                res = subprocess.run(["git", "apply", "--check", str(patch)],
                                     cwd=ROOT, capture_output=True, text=True)
                self.assertEqual(res.returncode, 0, res.stderr)

    def test_invisible_bug_survives(self):
        # A change no test can see (a comment) must be reported, and fail.
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "01-comment.patch").write_text(
                "invariant: none, a comment changes\n"
                "boot: host test_barriers\n"
                "--- a/tools/test_barriers.py\n"
                "+++ b/tools/test_barriers.py\n"
                "@@ -1,3 +1,3 @@\n"
                " #!/usr/bin/env python3\n"
                "-\"\"\"Host test: the memory barriers virtio needs are in the built kernel.\n"
                "+\"\"\"Host test: the memory barriers virtio needs are in the kernel.\n"
                " \n")
            res = run([], dict(os.environ, WHOLE_MUTANTS_DIR=tmp))
        self.assertEqual(res.returncode, 1, res.stdout[-2000:])
        self.assertIn("01-comment: SURVIVED", res.stdout)
        self.assertEqual(res.stdout.strip().splitlines()[-1],
                         "0 killed, 1 survived")


if __name__ == "__main__":
    unittest.main()
