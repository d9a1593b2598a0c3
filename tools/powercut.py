#!/usr/bin/env python3
"""tools/powercut.py: cut the power under whole and check what fsync promised.

    python3 tools/powercut.py [--cuts N] [--seed S] [--image IMG]
                              [--arch riscv64|aarch64] [--fs ext2|ext4]

One image, N boots: ext2 of 4 KiB blocks (--block 1024 or 2048: a page
of several blocks), or with --fs ext4 the writable
ext4 of `mke2fs -t ext4 -O ^has_journal` (tools/ext2img.EXT4_DEFAULT:
extent trees, metadata_csum, dir_index, flex_bg, 64bit) at 1 KiB blocks,
so that a page holds four blocks and a cut can come between them. Each boot runs `powercut SEED /pcI` (app/powercut.c)
and is killed (SIGKILL to QEMU: the disk keeps what reached it, nothing
else) at a random moment after the workload starts; the seeds and moments
come from --seed, so a run can be repeated. After each cut:
  - `e2fsck -fy` must leave the image consistent: exit 0 or 1 (errors
    fixed), then the strict `e2fsck -fn` of tools/ext2img.py is clean;
  - every file sealed so far and not dropped since (this boot's and
    earlier boots', which lived through the later cuts and repairs too) must have exactly the size and
    POSIX cksum the kernel printed after its fsync returned (debugfs dump,
    host cksum).
Each boot's console, up to the cut, must hold no kernel report of a bug
(tools/kconsole.py: WARNING, lockdep, oops, ext2 error, ...): the image
the kernel mounts has been repaired, and the cut itself says nothing.
Prints one line per cut and a summary; exit status 1 on the first failure.
"""

import argparse
import os
import random
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ext2img  # noqa: E402
import kconsole  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SEALED = re.compile(r"^powercut: sealed (\S+) (\d+) (\d+)\r?$")
DROPPED = re.compile(r"^powercut: dropped (\S+)\r?$")


class Failed(Exception):
    pass


def boot_and_cut(image, seed, directory, delay, arch="riscv64", fs="ext2"):
    """Boot, start the workload, kill QEMU @delay s after it started.
    Return: (console text, whether the workload was still running)."""
    proc = subprocess.Popen(
        [str(ROOT / "tools" / "run"), "--arch", arch, "--smp", "2", "--mem", "128M",
         "--fs", fs, "--disk", str(image), "-c", f"powercut {seed} {directory}"],
        cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, start_new_session=True)
    out = b""
    deadline = time.monotonic() + 120
    cut_at = None
    try:
        while True:
            now = time.monotonic()
            if cut_at is None and b"powercut: start" in out:
                cut_at = now + delay
            until = cut_at if cut_at is not None else deadline
            if now >= until:
                break
            ready = select.select([proc.stdout], [], [], until - now)[0]
            if ready:
                chunk = os.read(proc.stdout.fileno(), 65536)
                if not chunk:
                    break  # it ended by itself (an error or "done")
                out += chunk
        running = proc.poll() is None
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        out += proc.stdout.read()
        proc.stdout.close()
    text = out.decode(errors="replace")
    if cut_at is None:
        raise Failed(f"the workload never started:\n{text[-2000:]}")
    if not running:
        raise Failed(f"the workload ended before the cut:\n{text[-2000:]}")
    try:
        kconsole.check(text)
    except kconsole.Reported as e:
        raise Failed(str(e))
    return text


def repair(image):
    run = subprocess.run(["e2fsck", "-fy", str(image)], env=ext2img._ENV,
                         capture_output=True, text=True)
    if run.returncode not in (0, 1):
        raise Failed(f"e2fsck -fy: exit {run.returncode}\n{run.stdout}{run.stderr}")
    try:
        ext2img.check_image(image)
    except ext2img.CheckFailed as e:
        raise Failed(f"not clean after e2fsck -fy:\n{e}")
    return run.returncode


def verify(image, sealed):
    """Dump every sealed file with debugfs and compare size and cksum."""
    with tempfile.TemporaryDirectory() as tmp:
        names = {}
        script = []
        for i, path in enumerate(sorted(sealed)):
            names[path] = Path(tmp) / f"f{i}"
            script.append(f"dump {path} {names[path]}")
        subprocess.run(["debugfs", "-f", "-", str(image)], env=ext2img._ENV,
                       input="\n".join(script) + "\n", capture_output=True,
                       text=True, check=True)
        present = [p for p in sorted(sealed) if names[p].exists()]
        got = {}
        if present:  # one host cksum for all: "CRC SIZE NAME" per file
            out = subprocess.run(["cksum"] + [str(names[p]) for p in present],
                                 capture_output=True, text=True, check=True).stdout
            by_name = {l.split()[2]: l.split() for l in out.splitlines()}
            got = {p: (int(by_name[str(names[p])][0]), int(by_name[str(names[p])][1]))
                   for p in present}
        for path, (size, crc) in sorted(sealed.items()):
            if path not in got:
                raise Failed(f"{path}: sealed ({size} bytes, cksum {crc}) but "
                             "gone after the cut")
            if got[path] != (crc, size):
                raise Failed(f"{path}: sealed as cksum {crc} size {size}, "
                             f"found cksum {got[path][0]} size {got[path][1]}")


def whole_lines(text):
    """The lines of @text up to its last newline (a cut boot's console may
    stop inside its last line)."""
    return text[:text.rfind("\n") + 1].splitlines()


def sealed_files(text, sealed=None):
    """Apply a cut boot's console to @sealed, {path: (size, cksum)}, and
    return it: a "sealed" line adds a file, a "dropped" line (printed before
    the unlink) takes one out. Only whole lines count: the cut may stop the
    console in the middle of one, and "sealed F 159745 15076" cut from
    "... 150765984" is no record of what the kernel printed."""
    sealed = {} if sealed is None else sealed
    for line in whole_lines(text):
        if m := SEALED.match(line):
            sealed[m.group(1)] = (int(m.group(2)), int(m.group(3)))
        elif m := DROPPED.match(line):
            sealed.pop(m.group(1), None)
    return sealed


def make_image(image, fs, block=4096):
    if fs == "ext4":
        ext2img.make_image(image, "128M", block=1024,
                           features=ext2img.EXT4_DEFAULT)
    else:
        ext2img.make_image(image, "128M", block=block)


def run(cuts, seed, image, log=print, arch="riscv64", fs="ext2", block=4096):
    rng = random.Random(seed)
    make_image(image, fs, block)
    sealed = {}
    ever = 0
    repaired = 0
    for i in range(cuts):
        boot_seed = rng.getrandbits(32)
        delay = rng.uniform(0.02, 1.0)
        text = boot_and_cut(image, boot_seed, f"/pc{i}", delay, arch, fs)
        new = sum(1 for l in whole_lines(text) if SEALED.match(l))
        sealed_files(text, sealed)
        ever += new
        rc = repair(image)
        repaired += rc == 1
        verify(image, sealed)
        log(f"cut {i + 1}/{cuts}: seed {boot_seed}, after {delay:.3f} s, "
            f"{new} files sealed, e2fsck -fy exit {rc}, "
            f"{len(sealed)} sealed files intact")
    return {"cuts": cuts, "sealed": ever, "kept": len(sealed), "repaired": repaired}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cuts", type=int, default=20)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--image", default=None, help="default: a temporary file")
    ap.add_argument("--arch", default="riscv64", choices=("riscv64", "aarch64"))
    ap.add_argument("--fs", default="ext2", choices=("ext2", "ext4"),
                    help="ext4: the writable ext4 image, 1 KiB blocks")
    ap.add_argument("--block", type=int, default=4096, choices=(1024, 2048, 4096),
                    help="ext2's block size (a page of several blocks below 4096)")
    args = ap.parse_args(argv[1:])
    seed = args.seed if args.seed is not None else random.SystemRandom().getrandbits(32)
    print(f"powercut: seed {seed}, {args.cuts} cuts, {args.fs}"
          + (f", {args.block}-byte blocks" if args.fs == "ext2" else ""))
    with tempfile.TemporaryDirectory() as tmp:
        image = Path(args.image) if args.image else Path(tmp) / "powercut.img"
        try:
            s = run(args.cuts, seed, image, arch=args.arch, fs=args.fs,
                    block=args.block)
        except (Failed, ext2img.CheckFailed) as e:
            print(f"powercut: FAILED (seed {seed}): {e}")
            return 1
    print(f"powercut: {s['cuts']} power cuts survived, {s['sealed']} files fsynced, "
          f"the {s['kept']} kept intact, e2fsck repaired the image after {s['repaired']} of them")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
