"""tools/test_labs.py: the labs (docs/labs.md, tools/lab) work, and their
grades can fail.

GraderTest grades every lab in one scratch copy of the tree (tools/mutants.py's
copy_tree, with what ninja built, so each variant's build is incremental),
in one pass: the tree as it is, the solution, must get full points; the
tree with docs/labs/labN-start.patch, the starting point, must not; nor
may the tree with any docs/labs/labN-wrong-*.patch, a wrong answer a
student would plausibly write. Each grade boots only the few suites and
cases its lab names (tools/lab.py), so the pass takes about a minute.

The other tests keep docs/labs.md true to the code and the tool.
"""

import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import lab  # noqa: E402
import mutants  # noqa: E402

ANSWERS_MD = ROOT / "docs" / "labs" / "answers.md"
LABS_MD = ROOT / "docs" / "labs.md"
LABS_DIR = ROOT / "docs" / "labs"
LAST = re.compile(r"^lab (\d+): (\d+)/(\d+) points$")


def wrong_patches(n):
    return sorted(LABS_DIR.glob(f"lab{n}-wrong-*.patch"))


def grade_in(tree, n):
    """Grade lab @n in @tree (already built). Return: (points, total, output)."""
    res = subprocess.run([sys.executable, "tools/lab.py", "grade", str(n), "--no-build"],
                         cwd=tree, capture_output=True, text=True, timeout=600)
    last = res.stdout.strip().splitlines()[-1] if res.stdout.strip() else ""
    m = LAST.match(last)
    if not m or int(m[1]) != n:
        raise AssertionError(f"lab {n}: no points line:\n{res.stdout[-2000:]}{res.stderr[-2000:]}")
    return int(m[2]), int(m[3]), res.stdout


def apply(tree, patch, reverse=False):
    rc, out = mutants.run(["git", "apply", "-p1"] + (["-R"] if reverse else [])
                          + [str(patch)], tree)
    if rc:
        raise AssertionError(f"{patch.name} does not {'undo' if reverse else 'apply'}: {out}")


class GraderTest(unittest.TestCase):
    def test_full_on_the_solution_not_on_the_start_nor_a_wrong_answer(self):
        started = time.monotonic()
        tree = Path(tempfile.mkdtemp(prefix="whole-labs-"))
        table = []
        try:
            mutants.copy_tree(tree, objects=True)
            ok, out = lab.build(tree)
            self.assertTrue(ok, out[-3000:])
            for l in lab.LABS:
                points, total, out = grade_in(tree, l.number)
                table.append(f"lab {l.number} solution: {points}/{total}")
                with self.subTest(lab=l.number, tree="solution"):
                    self.assertEqual(points, total, out)
            for l in lab.LABS:
                for patch in [l.start_patch] + wrong_patches(l.number):
                    variant = patch.stem.split("-", 1)[1]
                    apply(tree, patch)
                    try:
                        ok, built = lab.build(tree)
                        with self.subTest(lab=l.number, tree=variant):
                            self.assertTrue(ok, built[-3000:])
                            points, total, out = grade_in(tree, l.number)
                            table.append(f"lab {l.number} {variant}: {points}/{total}")
                            self.assertLess(points, total, out)
                    finally:
                        apply(tree, patch, reverse=True)
        finally:
            shutil.rmtree(tree, ignore_errors=True)
        print(f"\n{'; '.join(table)}\n(grades in {time.monotonic() - started:.0f}s)",
              file=sys.stderr)


class LabFilesTest(unittest.TestCase):
    def test_every_lab_has_a_start_and_a_wrong_answer_that_apply(self):
        for l in lab.LABS:
            for patch in [l.start_patch] + wrong_patches(l.number):
                with self.subTest(patch=patch.name):
                    res = subprocess.run(["git", "apply", "--check", str(patch)],
                                         cwd=ROOT, capture_output=True, text=True)
                    self.assertEqual(res.returncode, 0, res.stderr)
            with self.subTest(lab=l.number):
                self.assertTrue(wrong_patches(l.number), f"lab {l.number}: no wrong answer")
        for patch in LABS_DIR.glob("*.patch"):
            with self.subTest(patch=patch.name):
                self.assertRegex(patch.name, r"^lab(\d+)-(start|wrong-[\w-]+|mutant-[\w-]+)\.patch$")

    def test_mutants_named_by_the_grades_exist(self):
        for l in lab.LABS:
            for run in l.runs.values():
                if run.mutant:
                    with self.subTest(mutant=run.mutant):
                        self.assertTrue((LABS_DIR / run.mutant).exists())

    def test_runs_name_boots_and_their_suites(self):
        import boots
        rows = {b.name: b for b in boots.BOOTS}
        for l in lab.LABS:
            for run in l.runs.values():
                with self.subTest(lab=l.number, boot=run.boot):
                    self.assertIn(run.boot, rows)
                    self.assertLessEqual(set(run.suites), set(rows[run.boot].required()))

    def test_checks_name_their_runs(self):
        # a check on a run the lab does not have would raise KeyError at grade time
        for l in lab.LABS:
            out = {k: lab.Outcome(r, ROOT, why="not run") for k, r in l.runs.items()}
            for c in l.checks:
                with self.subTest(lab=l.number, check=c.what):
                    ok, why = c.test(out)
                    self.assertFalse(ok)
            self.assertEqual(l.total(), 10)


class StartResetTest(unittest.TestCase):
    """tools/lab start and reset, in a throwaway clone."""

    def run_lab(self, clone, *args):
        return subprocess.run([sys.executable, "tools/lab.py", *args], cwd=clone,
                              capture_output=True, text=True)

    def test_start_then_reset_gives_the_solution_back(self):
        with tempfile.TemporaryDirectory() as tmp:
            clone = Path(tmp) / "clone"
            subprocess.run(["git", "clone", "-q", "--shared", str(ROOT), str(clone)],
                           check=True)
            # the clone committed as the working tree is: the solution the
            # patches are against, uncommitted changes included
            for f in mutants.tree_files(ROOT):
                if (ROOT / f).is_file():
                    (clone / f).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(ROOT / f, clone / f)
            for cmd in (["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t",
                                        "commit", "-qm", "as the tree is",
                                        "--allow-empty"]):
                subprocess.run(["git", *cmd], cwd=clone, check=True, capture_output=True)
            target = clone / "mm" / "filemap_read.c"
            solution = target.read_text()
            res = self.run_lab(clone, "start", "2")
            self.assertEqual(res.returncode, 0, res.stderr)
            self.assertNotEqual(target.read_text(), solution)
            self.assertIn("lab 2", res.stdout)
            # a second start is refused while one is started
            self.assertEqual(self.run_lab(clone, "start", "4").returncode, 1)
            # work outside the lab's files stops a reset, unless --force
            other = clone / "kernel" / "sched.c"
            other.write_text(other.read_text() + "\n/* mine */\n")
            res = self.run_lab(clone, "reset")
            self.assertEqual(res.returncode, 1)
            self.assertIn("kernel/sched.c", res.stderr)
            self.assertNotEqual(target.read_text(), solution)
            res = self.run_lab(clone, "reset", "--force")
            self.assertEqual(res.returncode, 0, res.stderr)
            self.assertEqual(target.read_text(), solution)
            self.assertNotIn("/* mine */", other.read_text())
            # uncommitted work in a lab's file stops its start
            target.write_text(solution + "\n/* mine */\n")
            res = self.run_lab(clone, "start", "2")
            self.assertEqual(res.returncode, 1)
            self.assertIn("mm/filemap_read.c", res.stderr)


class LabsDocTest(unittest.TestCase):
    """docs/labs.md names files, functions, suites, commands: each must
    still be what the code has."""

    def test_each_lab_has_its_section(self):
        text = LABS_MD.read_text()
        for l in lab.LABS:
            with self.subTest(lab=l.number):
                head = re.search(rf"^## Lab {l.number}: (.*)$", text, re.M)
                self.assertIsNotNone(head, f"no '## Lab {l.number}:' heading")
                self.assertIn(l.tag, head[1])
                body = text[head.end():]
                nxt = re.search(r"^## ", body, re.M)
                body = body[:nxt.start()] if nxt else body
                self.assertIn(f"./tools/lab start {l.number}", body)
                self.assertIn(f"./tools/lab grade {l.number}", body)
                self.assertRegex(body, r"(?i)hints?")
                # The answer is apart: a student reading labs.md in a
                # terminal, where <details> does not fold, must not meet it.
                self.assertNotIn("<summary>Answer", body)
                self.assertIn(f"labs/answers.md#lab-{l.number}", body)
                self.assertRegex(ANSWERS_MD.read_text(),
                                 rf"(?m)^## Lab {l.number}\n\n\*\S")

    def test_named_files_exist(self):
        text = LABS_MD.read_text()
        for name in set(re.findall(r"\b((?:tests|mm|fs|kernel|drivers|app|tools|docs)/"
                                   r"[\w./-]+\.(?:c|h|py|patch|md|S))", text)):
            if "labN" in name:
                continue  # docs/labs/labN-start.patch: a placeholder
            with self.subTest(name=name):
                self.assertTrue((ROOT / name).exists(), name)

    def test_named_functions_exist(self):
        text = LABS_MD.read_text()
        src = "".join(p.read_text() for d in ("mm", "fs", "kernel", "tests", "drivers", "app")
                      for p in (ROOT / d).rglob("*.[ch]"))
        for fn in set(re.findall(r"`(\w+)\(\)`", text)):
            with self.subTest(fn=fn):
                self.assertRegex(src, rf"\b{fn}\(", fn)

    def test_named_suites_and_boots_exist(self):
        import boots
        text = LABS_MD.read_text()
        names = {b.name for b in boots.BOOTS}
        suites = {s for b in boots.BOOTS for s in (b.required() or ())}
        for boot, suite in re.findall(r"\./tools/test ([a-z]\w*) ([a-z][\w,*]*)", text):
            with self.subTest(boot=boot, suite=suite):
                self.assertIn(boot, names)
                for s in suite.split(","):
                    self.assertTrue(any(re.fullmatch(s.replace("*", ".*"), x)
                                        for x in suites), s)


class BringupDocTest(unittest.TestCase):
    """docs/bringup.md names files, device tree compatibles and log lines:
    each must still be what the code has."""

    def test_named_files_exist(self):
        text = (ROOT / "docs" / "bringup.md").read_text()
        for name in set(re.findall(r"\b((?:mm|fs|kernel|drivers|app|tools)/[\w./-]+"
                                   r"\.(?:c|h|py|S|ld))", text)):
            with self.subTest(name=name):
                self.assertTrue((ROOT / name).exists(), name)

    def test_compatibles_are_the_platform_files(self):
        text = (ROOT / "docs" / "bringup.md").read_text()
        platform = (ROOT / "kernel" / "platform.c").read_text()
        for compat in ("ns16550a", "riscv,plic0", "sifive,plic-1.0.0", "virtio,mmio",
                       "sifive,test0", "google,goldfish-rtc"):
            with self.subTest(compat=compat):
                self.assertIn(f"`{compat}`", text)
                self.assertIn(f'"{compat}"', platform)
        self.assertIn("0x80200000", (ROOT / "kernel/arch/riscv64/kernel.ld").read_text())

    def test_log_lines_are_printed_by_the_code(self):
        src = "".join(p.read_text() for d in ("kernel", "mm", "drivers")
                      for p in (ROOT / d).rglob("*.c"))
        for fmt in ("smp: %u of %u harts online", "vm: %s on", 'return "Sv39"',
                    "harts: %u of %u online", "completions collected",
                    "cannot register the interrupt"):
            with self.subTest(fmt=fmt):
                self.assertTrue(fmt in src, fmt)


if __name__ == "__main__":
    unittest.main()
