#!/usr/bin/env python3
"""tools/test_layering.py: the kernel does not depend on its programs.

app/ holds the programs the kernel runs (the shell, its commands, the
benchmarks); they call the kernel through its headers. The other way is
closed: no C file or header in kernel/, mm/, fs/ or drivers/ includes a
header from app/. A program registers itself (kernel/shell.h's
SHELL_COMMAND) and the kernel finds it through a linker section, so the
kernel never names one.

It also measures the include cycles. A module is a .c file and the header
of the same name (kernel/sched.c and kernel/sched.h are one); module A
depends on B when a file of A includes a header of B. The largest set of
modules that all reach each other through such includes (a strongly
connected component) may hold no module of app/ or tests/, and may not
grow past MAX_CYCLE modules. What is left in it is the kernel's core
(scheduler, locks, printk, the page cache, the block layer) calling each
other; the shell was in it before it moved to app/.

    python3 tools/test_layering.py      # prints the largest cycle, then tests
"""

import re
import sys
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNEL_DIRS = ("kernel", "mm", "fs", "drivers")
SOURCE_DIRS = KERNEL_DIRS + ("tests", "app")
PROGRAM_DIRS = ("tests", "app")
# build.ninja's -I order after the root: <arch/...> and libc's own headers
INCLUDE_PATH = (ROOT, ROOT / "kernel" / "arch" / "riscv64" / "include",
                ROOT / "kernel" / "libc" / "include")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
# The largest include cycle, in modules: 25 when app/ took the shell out
# of it (28 before). Lower it when a change breaks the cycle further.
MAX_CYCLE = 25


def source_files(dirs=SOURCE_DIRS):
    for d in dirs:
        for p in sorted((ROOT / d).rglob("*")):
            if p.suffix in (".c", ".h"):
                yield p


def includes(text):
    """The (quote, name) pairs of @text's #include lines, comments apart."""
    return INCLUDE.findall(COMMENT.sub("", text))


def resolve(path, quote, name):
    """The file that #include @name in @path reads, or None (a libc or
    newlib header: outside the tree)."""
    dirs = ((path.parent,) if quote == '"' else ()) + INCLUDE_PATH
    for d in dirs:
        f = (d / name).resolve()
        if f.is_file():
            return f
    return None


def program_includes(path, text):
    """The headers of app/ that @path includes (a list of their paths)."""
    found = []
    for quote, name in includes(text):
        f = resolve(path, quote, name)
        if f is None and name.startswith("app/"):
            f = ROOT / name  # a header app/ does not have (yet) is still its
        if f is not None and ROOT / "app" in f.parents:
            found.append(f.relative_to(ROOT).as_posix())
    return found


def module(path):
    return path.relative_to(ROOT).with_suffix("").as_posix()


def module_graph():
    """{module: set of the modules its files include}."""
    graph = {}
    for p in source_files():
        deps = graph.setdefault(module(p), set())
        for quote, name in includes(p.read_text(errors="replace")):
            f = resolve(p, quote, name)
            if f is not None and ROOT in f.parents and f.suffix in (".c", ".h"):
                dep = module(f)
                if dep != module(p):
                    deps.add(dep)
    return graph


def components(graph):
    """The strongly connected components of @graph (Tarjan's algorithm,
    without recursion), each a sorted list, largest first."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            v, edges = work[-1]
            for w in edges:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    found.append(sorted(comp))
    return sorted(found, key=lambda c: (-len(c), c))


def largest_cycle(graph=None):
    """The largest component with more than one module, or []."""
    comps = components(module_graph() if graph is None else graph)
    return comps[0] if comps and len(comps[0]) > 1 else []


def files_of(modules):
    return sum(1 for m in modules for s in (".c", ".h") if (ROOT / (m + s)).is_file())


class LayeringTest(unittest.TestCase):
    def test_the_kernel_includes_no_program(self):
        files = list(source_files(KERNEL_DIRS))
        self.assertGreater(len(files), 150)
        for p in files:
            with self.subTest(file=p.relative_to(ROOT).as_posix()):
                self.assertEqual(program_includes(p, p.read_text()), [])

    def test_the_check_catches_each_kind(self):
        fake = ROOT / "kernel" / "fake.c"
        self.assertEqual(program_includes(fake, "#include <app/shell_parse.h>\n"),
                         ["app/shell_parse.h"])
        self.assertEqual(program_includes(fake, '#include "app/bench.h"\n'),
                         ["app/bench.h"])
        self.assertEqual(program_includes(fake, '#include "../app/readline.h"\n'),
                         ["app/readline.h"])
        self.assertEqual(program_includes(fake, "#include <app/nosuch.h>\n"),
                         ["app/nosuch.h"])
        self.assertEqual(program_includes(fake, "/* #include <app/bench.h> */\n"), [])
        self.assertEqual(program_includes(fake, "#include <kernel/shell.h>\n"), [])

    def test_programs_include_the_kernel(self):
        """The graph sees app/'s includes: were they not resolved, the
        checks above would pass on nothing."""
        graph = module_graph()
        self.assertIn("kernel/shell", graph["app/shell"])
        self.assertIn("app/shell_parse", graph["app/shell"])
        self.assertGreater(sum(1 for m in graph if m.startswith("app/")), 20)

    def test_the_cycle_finder(self):
        graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(),
                 "e": {"a", "f"}, "f": {"e"}}
        self.assertEqual(components(graph)[:2], [["a", "b", "c"], ["e", "f"]])
        self.assertEqual(largest_cycle(graph), ["a", "b", "c"])
        self.assertEqual(largest_cycle({"a": {"b"}, "b": set()}), [])
        # a long chain closed at its end: no recursion limit to hit
        chain = {str(i): {str(i + 1)} for i in range(5000)}
        chain["5000"] = {"0"}
        self.assertEqual(len(largest_cycle(chain)), 5001)

    def test_no_program_is_in_a_cycle_with_the_kernel(self):
        for comp in components(module_graph()):
            if len(comp) > 1 and any(m.split("/")[0] in KERNEL_DIRS for m in comp):
                with self.subTest(cycle=comp[0]):
                    self.assertEqual(
                        [m for m in comp if m.split("/")[0] in PROGRAM_DIRS], [])

    def test_the_largest_cycle_is_bounded(self):
        cycle = largest_cycle()
        self.assertLessEqual(len(cycle), MAX_CYCLE,
                             f"the largest include cycle grew: {cycle}")


if __name__ == "__main__":
    cycle = largest_cycle()
    print(f"largest include cycle: {len(cycle)} modules ({files_of(cycle)} files), "
          f"bound {MAX_CYCLE}: {' '.join(cycle)}", file=sys.stderr)
    unittest.main()
