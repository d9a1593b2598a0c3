"""tools/kconsole.py: the kernel's bug reports in a console, and where they fell.

    reports = kconsole.scan(lines)          # [Report(kind, where, line, context)]
    bad = kconsole.unexpected(reports, allow)

The KTAP parser (tools/ktap.py) skips log lines; this module reads them.
A log line (after its "[ seconds]" stamp) that matches one of REPORTS is a
kernel report of a bug: a WARNING, a lock-order violation, an oops (trap in
a task; a bus error past a mapped file's EOF, "sigbus", is a kind of its
own), a task ending with locks held, an unclean root unmount at
poweroff, completions found without an interrupt, ... Each is a failure of
its boot unless an allow-list entry (kind, glob over `where`) expects it.

`where` names the case the line appeared in, "suite.case" (the case
whose result line follows it; "suite.#N" if it never printed one),
"suite" between its last case and its result, "<boot>" before the KTAP
block, "<ktest>" between suites and "<shutdown>" after the last suite.
"""

import fnmatch
import re
from dataclasses import dataclass, field

import ktap

# (kind, pattern on the message after the time stamp), from the kernel's
# own texts: kernel/panic.c, lockdep.c, sched.c, main.c, smp.c, irq.c,
# bootargs.c, arch/riscv64/trap.c, mm/vm.c, drivers/, fs/ext2/.
REPORTS = [
    ("warning", r"WARNING: "),
    ("lockdep", r"lockdep: "),
    # A task ended by a bus error: a load or store in a file mapping past
    # the file's EOF (arch/riscv64/trap.c mmap_fault, Linux's SIGBUS), the
    # whole line as it prints it, nothing else. A truncate racing a
    # mapping's user provokes it on purpose; any other oops (a segfault,
    # a fault in the kernel's own code, an illegal instruction, a stack
    # overflow) is "oops", never this.
    ("sigbus", r"Oops: bus error \(SIGBUS\) at (0x[0-9a-f]+|0), address "
               r"(0x[0-9a-f]+|0) in task \S+ on cpu \d+$"),
    ("oops", r"Oops: "),
    ("locks-at-exit", r"task \S+ exits holding \d+ locks"),
    ("unclean-unmount", r"poweroff: root not unmounted cleanly"),
    ("lost-interrupt", r"\S+: \d+ completions without an interrupt"),
    ("lost-kick", r"\S+: \d+ requests the device was never told of"),
    ("io-timeout", r"blk: \S+ request timed out"),
    ("virtqueue", r"virtqueue \d+: device (used id \d+, not a buffer in "
                  r"flight|wrote \d+ bytes into buffer|used index is)"),
    ("virtio", r"virtio-(mmio|pci)@\S+: (device \d+ refused|bad magic|"
               r"device does not finish|queue \d+ notifies)"),
    # The PCI host bridge, enumeration and virtio-pci capabilities
    # (drivers/pci*.c, virtio_pci.c): something on the board is wrong
    # and was left out. The bridge is pci@ on riscv64's virt, pcie@ on
    # aarch64's.
    ("pci", r"pcie?@\S+( \S+)?: .*(skipped|not used|ignored|no INTx)"),
    ("device-status", r"\S+: device returned status"),
    ("double-map", r"vm: \S+ already mapped"),
    ("interrupt", r"(trap: unexpected|irq: spurious) interrupt"),
    ("init", r"init: \S+ failed"),
    ("smp", r"smp: (no memory for hart|hart \d+ did not)"),
    ("bootargs", r"bootargs: ignoring"),  # e.g. a ktest.filter too long
    # A page back in a range its invalidate_lock holder dropped: a fill
    # without the lock (mm/invalidate.c); legacy mode's race boots allow it.
    ("invalidate-leftover", r"invalidate_lock: page \d+ of inode \d+ back in"),
    # A mounted ext2 (or ext4: the same driver) finding itself inconsistent
    # (the mount-time refusals of a disk that holds no good ext2 are not
    # reports).
    ("ext2-error", r"ext[24]: (directory )?inode \d+|ext2: (\S+: )?I/O error|"
                   r"ext2: (not )?freeing"),
]
_REPORTS = [(kind, re.compile(pat)) for kind, pat in REPORTS]
KINDS = {kind for kind, _ in REPORTS}
_STAMP = re.compile(r"^\s*\[\s*[\d.]+\] ?")
CONTEXT = 24   # lines of a report kept: its register dump and backtrace


@dataclass
class Report:
    kind: str
    where: str
    line: int                 # 1-based console line
    context: list = field(default_factory=list)

    def failure(self, boot):
        return ktap.Failure(f"{boot}.{self.where}",
                            f"kernel report '{self.kind}' (line {self.line})",
                            self.context)


def _message(raw):
    m = _STAMP.match(raw)
    return raw[m.end():] if m else None


def _kind(raw):
    msg = _message(raw)
    if msg is None:
        return None
    msg = msg.rstrip()
    return next((kind for kind, pat in _REPORTS if pat.match(msg)), None)


def _context(lines, i):
    """The report line and the indented lines of the same report after it."""
    out = [lines[i]]
    for raw in lines[i + 1:i + CONTEXT]:
        msg = _message(raw)
        if msg is None or not (msg.startswith(" ") or msg.startswith("Backtrace:")):
            break
        out.append(raw)
    return out


def _ktap_line(raw, indent):
    """The Subtest name or result match of a KTAP line at @indent, or None."""
    if ktap._is_log(raw) or len(raw) - len(raw.lstrip(" ")) != indent:
        return None, None
    body = raw.strip()
    return ktap._SUBTEST.match(body), ktap._RESULT.match(body)


def locations(lines):
    """For each console line, the `where` it belongs to (see above)."""
    where = ["<boot>"] * len(lines)
    start = next((i for i, raw in enumerate(lines)
                  if raw.rstrip() == "KTAP version 1"), len(lines))
    suite, done, pending, last_suite_end = None, 0, [], None
    for i in range(start + 1, len(lines)):
        header, case = _ktap_line(lines[i], ktap.INDENT)
        _, suite_end = _ktap_line(lines[i], 0)
        if header:
            suite, done, pending = header.group(1).strip(), 0, []
            where[i] = suite
        elif case and suite:
            for j in pending + [i]:
                where[j] = f"{suite}.{(case.group(3) or '').strip()}"
            done, pending = done + 1, []
        elif suite_end:
            for j in pending + [i]:
                where[j] = suite or "<ktest>"
            suite, pending, last_suite_end = None, [], i
        elif suite:
            pending.append(i)
        else:
            where[i] = "<ktest>"
    for j in pending:  # a case cut short: no result line
        where[j] = f"{suite}.#{done + 1}"
    if last_suite_end is not None and suite is None:
        for j in range(last_suite_end + 1, len(lines)):
            where[j] = "<shutdown>"
    return where


def scan(lines):
    """Every kernel report in the console, with where it fell."""
    where = None
    reports = []
    for i, raw in enumerate(lines):
        kind = _kind(raw)
        if kind is None:
            continue
        if where is None:
            where = locations(lines)
        reports.append(Report(kind, where[i], i + 1, _context(lines, i)))
    return reports


def allowed(report, allow):
    """allow: (kind, glob over where) pairs."""
    return any(kind == report.kind and fnmatch.fnmatchcase(report.where, glob)
               for kind, glob in allow)


def unexpected(reports, allow):
    return [r for r in reports if not allowed(r, allow)]


class Reported(AssertionError):
    """Kernel reports on a console that its test does not expect."""


def check(console, allow=()):
    """Raise Reported, with each report's lines, if @console (text or
    lines, "\\r" dropped) holds a kernel report of a bug that @allow, the
    (kind, glob over `where`) pairs of tools/boots.py, does not expect.
    A console with no KTAP block (a shell's, tools/run -c) is all
    "<boot>". Return the reports that were allowed."""
    if isinstance(console, str):
        console = console.split("\n")
    lines = [raw.replace("\r", "") for raw in console]
    reports = scan(lines)
    bad = unexpected(reports, allow)
    if bad:
        raise Reported("\n".join(
            f"kernel report '{r.kind}' in {r.where} (console line {r.line}):\n"
            + "\n".join(r.context) for r in bad))
    return reports
