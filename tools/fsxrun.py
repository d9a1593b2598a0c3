#!/usr/bin/env python3
"""tools/fsxrun.py: run the kernel's fsx on a fresh image, then check it.

    python3 tools/fsxrun.py [--ops N | --secs T] [--seed S] [--block B]
                            [--smp N] [--files F] [--readers P] [--mix M]
                            [--window MS] [--keep] [--legacy] [--image IMG]

Makes an ext2 image (tools/ext2img.py) over a file full of 0xA5 (free
blocks hold old bytes, as on a used disk), boots whole on it with
`fsx ... /fsx; cksum /fsx/fsx*` (app/fsx_cmd.c; --keep: fsx -k, a
shared writable mapping of each file held for the whole run, stored
through by the mutator and by a storer task beside every change; a
third-party task flushes, fsyncs and reclaims throughout), and:
  - the console must hold no kernel report of a bug (tools/kconsole.py:
    WARNING, lockdep, an oops, a page left in an invalidated range, an
    ext2 inconsistency, ...); legacy mode allows the last two, which are
    how its bug shows;
  - `e2fsck -fn` must find the image strictly clean (docs/design.md);
  - each file's cksum from the kernel must equal the host's cksum of its
    `debugfs dump`: what the kernel read back is what reached the disk.
In legacy mode (--legacy: invalidate_lock=off) fsx is expected to fail;
the report says after how many operations. Exit status: 0 if fsx passed
and the checks held (legacy: if fsx failed), 1 otherwise.
"""

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ext2img  # noqa: E402
import kconsole  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RESULT = re.compile(r"^fsx: (passed|FAILED)(?:,| after) (\d+) operations?")
RATE = re.compile(r"^fsx: (\d+) operations in (\d+) ms \((\d+)/s\), (\d+) reads "
                  r"checked by (\d+) readers")
CKSUM = re.compile(r"^(\d+) (\d+) (/fsx/fsx\d+)$")
THIRD = re.compile(r"^fsx: third parties: (\d+) flush rounds, (\d+) fsyncs, "
                   r"(\d+) reclaim calls \((\d+) pages freed\)")
HELD = re.compile(r"^fsx: held mappings: (\d+) stores by the mutator, (\d+) by "
                  r"the storer \((\d+) begun before")
# Kernel reports legacy mode's bug may make (tools/kconsole.py kinds): a
# fill's page back in an invalidated range, ext2 finding what it cached
# or wrote inconsistent, and a reader's bus error: a fault that takes no
# invalidate_lock runs beside a collapse or truncate and can find the
# size or the page mid-change (seen once in about thirty legacy runs).
LEGACY_REPORTS = [("invalidate-leftover", "*"), ("ext2-error", "*"),
                  ("sigbus", "*")]
# A reader that bus error killed leaves no mapping behind (its join
# unmaps it: vm_release_task), so the root still unmounts cleanly at
# poweroff: an unclean unmount fails legacy runs too.


class Failed(Exception):
    pass


def fsx_command(a):
    args = [f"-S {a.seed}", f"-f {a.files}", f"-p {a.readers}"]
    args.append(f"-t {a.secs}" if a.secs else f"-N {a.ops}")
    if a.mix:
        args.append(f"-m {a.mix}")
    if a.window:
        args.append(f"-w {a.window}")
    if a.keep:
        args.append("-k")
    names = " ".join(f"/fsx/fsx{i}" for i in range(a.files))
    return f"fsx {' '.join(args)} /fsx; cksum {names}"


def boot(a, image):
    cmd = [str(ROOT / "tools" / "run"), "--arch", a.arch, "--smp", str(a.smp),
           "--mem", "256M", "--fs", a.fs, "--disk", str(image), "-c",
           fsx_command(a)]
    if a.legacy:
        cmd.insert(1, "--legacy")
    limit = (a.secs or 0) + 60 + (a.ops or 0) // 10
    env = dict(os.environ, WHOLE_RUN_TIMEOUT=str(limit))  # tools/run's timeout
    try:
        res = subprocess.run(cmd, cwd=ROOT, stdin=subprocess.DEVNULL, env=env,
                             capture_output=True, text=True, timeout=limit + 30)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if e.stdout else ""
        raise Failed(f"no end within {limit + 30} s (a hang):\n{out[-3000:]}")
    if res.returncode == 124:  # tools/run's timeout killed QEMU
        raise Failed(f"no end within {limit} s (a hang):\n{res.stdout[-3000:]}")
    return res.stdout.replace("\r", "")


def host_cksums(image, paths):
    with tempfile.TemporaryDirectory() as tmp:
        script = "".join(f"dump {p} {tmp}/f{i}\n" for i, p in enumerate(paths))
        subprocess.run(["debugfs", "-f", "-", str(image)], env=ext2img._ENV,
                       input=script, capture_output=True, text=True, check=True)
        got = {}
        for i, p in enumerate(paths):
            f = Path(tmp) / f"f{i}"
            if f.exists():
                crc, size = subprocess.run(["cksum", str(f)], capture_output=True,
                                           text=True, check=True).stdout.split()[:2]
                got[p] = (int(crc), int(size))
        return got


IMAGE_MIB = 64
DIRT = 0xA5  # what the free blocks hold: never a byte a hole reads as


def make_dirty_image(image, block, fs="ext2"):
    """A fresh ext2 image whose free blocks hold DIRT, as a used disk's do,
    not zeroes: a read of a block that was never written (or was
    preallocated and not yet zeroed) then differs from the hole the model
    expects. mke2fs writes its metadata only (-E nodiscard)."""
    with open(image, "wb") as f:
        chunk = bytes([DIRT]) * (1 << 20)
        for _ in range(IMAGE_MIB):
            f.write(chunk)
    ext2img.make_image(image, f"{IMAGE_MIB}M", block=block,
                       features=ext2img.EXT4_DEFAULT if fs == "ext4"
                       else ext2img.DEFAULT_FEATURES)


def run(a, image):
    """Boot, check. Return a dict: passed, ops, rate, checks, console."""
    make_dirty_image(image, a.block, a.fs)
    return check(a, image, boot(a, image))


def fsx_story(text):
    """What fsx said: its own lines (on a failure, the mismatch and the
    last operations)."""
    return "\n".join(l for l in text.splitlines() if l.startswith("fsx:"))


def kernel_reports(lines, legacy):
    """The kernel's reports of a bug on the console (tools/kconsole.py),
    but those legacy mode's bug makes when @legacy."""
    return kconsole.unexpected(kconsole.scan(lines),
                               LEGACY_REPORTS if legacy else [])


def check(a, image, text):
    """The checks of run() on the console @text of a boot on @image. In
    fixed mode fsx's own failure comes first: a file stopped mid-sequence
    also leaves its cache and disk apart, which says less."""
    lines = text.splitlines()
    result = [m for m in map(RESULT.match, lines) if m]
    reports = kernel_reports(lines, a.legacy)
    if not result:
        raise Failed(f"fsx printed no result:\n{text[-3000:]}")
    if not a.legacy and result[-1].group(1) != "passed":
        told = "".join(f"\n{r.context[0]}" for r in reports[:3])
        raise Failed(f"fsx failed in fixed mode:\n{fsx_story(text)[-3000:]}{told}")
    try:
        kconsole.check(lines, LEGACY_REPORTS if a.legacy else ())
    except kconsole.Reported as e:
        raise Failed(str(e))
    rate = [m for m in map(RATE.match, lines) if m]
    kernel = {m.group(3): (int(m.group(1)), int(m.group(2)))
              for m in map(CKSUM.match, lines) if m}
    held = [m for m in map(HELD.match, lines) if m]
    third = [m for m in map(THIRD.match, lines) if m]
    out = {"passed": result[-1].group(1) == "passed",
           "ops": int(result[-1].group(2)),
           "rate": int(rate[-1].group(3)) if rate else 0,
           "checks": int(rate[-1].group(4)) if rate else 0,
           "stores": tuple(map(int, held[-1].groups())) if held else None,
           "third": tuple(map(int, third[-1].groups())) if third else None,
           "console": text}
    try:
        ext2img.check_image(image)
        out["fsck"] = "clean"
    except ext2img.CheckFailed as e:
        if not a.legacy:
            raise Failed(f"e2fsck -fn after fsx:\n{e}")
        out["fsck"] = "not clean"
    if len(kernel) != a.files:
        raise Failed(f"kernel cksum lines for {sorted(kernel)} only:\n{text[-3000:]}")
    host = host_cksums(image, sorted(kernel))
    for path, want in sorted(kernel.items()):
        if host.get(path) != want:
            msg = f"{path}: kernel cksum {want}, debugfs dump {host.get(path)}"
            if not a.legacy:
                raise Failed(msg)
            out.setdefault("differ", []).append(msg)
    return out


def parser():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ops", type=int, default=2000)
    ap.add_argument("--secs", type=int, default=0, help="run this long instead")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--block", type=int, default=4096, choices=(1024, 2048, 4096))
    ap.add_argument("--smp", type=int, default=4)
    ap.add_argument("--files", type=int, default=2)
    ap.add_argument("--readers", type=int, default=2, help="per file")
    ap.add_argument("--mix", default="", help="fsx -m: operation letters")
    ap.add_argument("--window", type=int, default=0, help="fsx -w MS")
    ap.add_argument("--keep", action="store_true",
                    help="fsx -k: held mappings, stored through beside every change")
    ap.add_argument("--legacy", action="store_true")
    ap.add_argument("--arch", default="riscv64", choices=("riscv64", "aarch64"))
    ap.add_argument("--fs", default="ext2", choices=("ext2", "ext4"),
                    help="ext4: a writable ext4 image (extent trees)")
    ap.add_argument("--image", default=None, help="default: a temporary file")
    return ap


def main(argv):
    a = parser().parse_args(argv[1:])
    if a.seed is None:
        a.seed = random.SystemRandom().randrange(1, 1 << 32)
    mode = "legacy" if a.legacy else "fixed"
    held = ", held mappings" if a.keep else ""
    print(f"fsxrun: seed {a.seed}, {mode} mode, {a.smp} harts, {a.block}-byte "
          f"blocks{held}")
    with tempfile.TemporaryDirectory() as tmp:
        image = Path(a.image) if a.image else Path(tmp) / "fsx.img"
        try:
            r = run(a, image)
        except (Failed, ext2img.CheckFailed) as e:
            print(f"fsxrun: FAILED (seed {a.seed}): {e}")
            return 1
    if not r["passed"]:
        print("\n".join(l for l in r["console"].splitlines() if l.startswith("fsx:")))
    print(f"fsxrun: fsx {'passed' if r['passed'] else 'failed'} after {r['ops']} "
          f"operations ({r['rate']}/s, {r['checks']} reads checked"
          + (", beside {} flush rounds, {} fsyncs and {} reclaim calls "
             "({} pages freed)".format(*r["third"]) if r["third"] else "")
          + (", {} mapped stores by the mutator, {} by the storer ({} begun "
             "before the call beside them returned)".format(*r["stores"])
             if r["stores"] else "") + "); e2fsck -fn "
          f"{r['fsck']}; kernel and debugfs cksums "
          f"{'differ' if r.get('differ') else 'agree'}")
    return 0 if r["passed"] != a.legacy else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
