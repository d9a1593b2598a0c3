#!/usr/bin/env python3
"""tools/fuzzrun.py: the ext2 fuzz target - build, seeds, runs, regressions.

    python3 tools/fuzzrun.py [--secs S | --runs N] [--seed N] [--jobs J]
    python3 tools/fuzzrun.py --regress        # the regression images only
    python3 tools/fuzzrun.py --add CRASH NAME  # keep a crash as a regression

The ext2 code (fs/ext2/*.c, the kernel's own files) is built on the host
with clang as a library, build/fuzz/libwhole_ext2.a, instrumented for
libFuzzer, ASan and UBSan, with the kernel services it calls
(tests/fuzz/host.c); the target (tests/fuzz/ext2_fuzz.c) links it and
mounts each input image read-only and walks it (as "ext4" when its
superblock has a feature only that type reads, else as "ext2"); an image
it mounts read-write is then changed on a copy (tests/fuzz/
ext2_fuzz_write.c: files written, every fallocate mode, truncates,
names made, renamed and removed in its biggest directory). Inputs
are whole images; the seeds are small mke2fs images made here
from a fixed tree (every block size, with and without filetype and sparse
superblocks, revision 0 and 1; files with holes, indirect and double-
indirect blocks, fast and slow symbolic links, a directory of many blocks;
and two ext4 images, with extent trees, with and without metadata_csum),
so mutations land on metadata. A run prints libFuzzer's figures, the
executions done, and the crashes found (saved in build/fuzz/crashes/).

A crash becomes a regression image (--add): tests/fuzz/regress/NAME.img.gz.
tools/test_fuzz.py runs the target on each one and boots the kernel on it
(tools/run -c): it must report the image's damage, never crash.
"""

import argparse
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import ext2img  # noqa: E402

BUILD = ROOT / "build" / "fuzz"
TARGET = BUILD / "ext2_fuzz"
LIB = BUILD / "libwhole_ext2.a"
SEEDS = BUILD / "seeds"
CRASHES = BUILD / "crashes"
REGRESS = ROOT / "tests" / "fuzz" / "regress"
MAX_LEN = 256 * 1024
CFLAGS = ["-std=gnu11", "-g", "-O1", "-Wall", "-Wextra", "-Werror",
          "-fsanitize=fuzzer,address,undefined",
          "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer",
          "-Itests/fuzz/include", "-I."]
# (name, size, block size, mke2fs -t, features, revision); the ext4 ones
# as `mke2fs -t ext4` makes them (extent trees, 64bit, flex_bg, and
# directories of more than a block hashed by e2fsck -D), one with
# metadata_csum and one without, whose metadata a mutation can change
# without failing a checksum first; and a writable ext4 of 1 KiB blocks
# (`mke2fs -t ext4 -O ^has_journal`'s full default set) for the write
# phase. 96 inodes: the tree's 52 and room for the write phase's names.
SEED_IMAGES = [
    ("1k", "128K", 1024, "ext2", "filetype,sparse_super", 1),
    ("2k", "256K", 2048, "ext2", "filetype,sparse_super,large_file", 1),
    ("4k", "256K", 4096, "ext2", "filetype", 1),
    ("1k_none", "128K", 1024, "ext2", "none", 1),
    ("1k_rev0", "128K", 1024, "ext2", None, 0),
    ("4k_ext4", "512K", 4096, "ext4", "^has_journal", 1),
    ("1k_ext4_nocsum", "256K", 1024, "ext4", "^has_journal,^metadata_csum", 1),
    # writable: the write phase runs on it (the full default set)
    ("1k_ext4", "256K", 1024, "ext4", "^has_journal", 1),
]
FIXED_TIME = 1700000000
ENV = dict(ext2img._ENV, E2FSPROGS_FAKE_TIME=str(FIXED_TIME))


def library_sources():
    """The library: ext2's own files and the kernel services they call."""
    ext2 = sorted(p for p in (ROOT / "fs" / "ext2").glob("*.c")
                  if not p.name.endswith("_test.c") and "test_util" not in p.name)
    return ext2 + [ROOT / "tests" / "fuzz" / "host.c",
                   ROOT / "tests" / "fuzz" / "host_write.c"]


TARGET_SOURCES = ["tests/fuzz/ext2_fuzz.c", "tests/fuzz/ext2_fuzz_write.c"]


def sources():
    return library_sources() + [ROOT / p for p in TARGET_SOURCES]


def _run(cmd):
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    if run.returncode:
        raise SystemExit(f"fuzz: build failed:\n{' '.join(cmd)}\n{run.stderr}")


def build():
    """Build build/fuzz/libwhole_ext2.a (instrumented for libFuzzer, ASan
    and UBSan) and the target linked with all of it, if any source or
    header changed; return the target's path."""
    deps = sources() + list((ROOT / "tests" / "fuzz").rglob("*.h")) + \
        list((ROOT / "fs").rglob("*.h")) + list((ROOT / "kernel").glob("*.h")) + \
        list((ROOT / "mm").glob("*.h")) + list((ROOT / "drivers").glob("*.h"))
    if TARGET.exists() and all(p.stat().st_mtime < TARGET.stat().st_mtime
                               for p in deps):
        return TARGET
    objdir = BUILD / "obj"
    objdir.mkdir(parents=True, exist_ok=True)
    lib_flags = [f.replace("fuzzer,", "fuzzer-no-link,") for f in CFLAGS]
    objs = []
    for src in library_sources():
        obj = objdir / (src.stem + ".o")
        _run(["clang", *lib_flags, "-c", str(src.relative_to(ROOT)), "-o", str(obj)])
        objs.append(str(obj))
    LIB.unlink(missing_ok=True)
    _run(["ar", "rcs", str(LIB), *objs])
    # --whole-archive: ext2 registers itself through an init hook that
    # nothing references by name
    _run(["clang", *CFLAGS, *TARGET_SOURCES, "-Wl,--whole-archive",
          str(LIB), "-Wl,--no-whole-archive", "-o", str(TARGET) + ".tmp"])
    os.replace(str(TARGET) + ".tmp", TARGET)
    return TARGET


def _tree(top):
    """The seed tree: every kind of inode and block-map shape a small
    image can hold, with fixed contents and times."""
    top = Path(top)
    (top / "d1" / "d2" / "d3").mkdir(parents=True)
    (top / "a").write_bytes(b"hello\n")
    (top / "empty").write_bytes(b"")
    (top / "d1" / "mid").write_bytes(bytes((i * 7 + 3) & 0xFF for i in range(13000)))
    with open(top / "d1" / "sparse", "wb") as f:   # double-indirect at 1 KiB
        f.seek(290000)
        f.write(b"X" * 10)
        f.truncate(300 * 1024)
    for i in range(40):
        (top / "d1" / "d2" / f"name_with_some_length_{i}").write_bytes(b"")
    (top / "d1" / "d2" / "d3" / "deep").write_bytes(b"deep\n" * 300)
    os.symlink("a", top / "fast")
    os.symlink("p" * 80, top / "slow")
    os.link(top / "a", top / "d1" / "hard")
    for p in sorted(top.rglob("*"), reverse=True):
        os.utime(p, (FIXED_TIME, FIXED_TIME), follow_symlinks=False)


def make_seeds():
    """Seed images in build/fuzz/seeds (remade each run: cheap, fixed)."""
    shutil.rmtree(SEEDS, ignore_errors=True)
    SEEDS.mkdir(parents=True)
    with tempfile.TemporaryDirectory() as tree:
        _tree(tree)
        for name, size, block, fstype, features, rev in SEED_IMAGES:
            cmd = ["mke2fs", "-F", "-q", "-t", fstype, "-r", str(rev),
                   "-b", str(block), "-N", "96", "-m", "0",
                   "-U", "5eed5eed-0000-4000-8000-000000000000",
                   "-E", "nodiscard,hash_seed=5eed5eed-0000-4000-8000-000000000001"]
            if features:
                cmd += ["-O", features]
            cmd += ["-d", tree, str(SEEDS / f"{name}.img"), size]
            run = subprocess.run(cmd, env=ENV, capture_output=True, text=True)
            if run.returncode:
                raise SystemExit(f"fuzz: {' '.join(cmd)}: {run.stdout}{run.stderr}")
            if fstype == "ext4":   # index the directories: an htree to fuzz
                cmd = ["e2fsck", "-fyD", str(SEEDS / f"{name}.img")]
                run = subprocess.run(cmd, env=ENV, capture_output=True, text=True)
                if run.returncode not in (0, 1):
                    raise SystemExit(f"fuzz: {' '.join(cmd)}: {run.stdout}")
    return SEEDS


def regress_images():
    return sorted(REGRESS.glob("*.img.gz"))


def unpack(gz, out_dir):
    """A regression image, ungzipped into @out_dir; return its path."""
    out = Path(out_dir) / gz.name[:-len(".gz")]
    out.write_bytes(gzip.decompress(gz.read_bytes()))
    return out


def replay(image, verbose=True, out=None):
    """Run the target once on @image: (exit status, its stderr). With
    @out, the image as the write phase left it is written there."""
    env = dict(os.environ, WHOLE_FUZZ_VERBOSE="1") if verbose else dict(os.environ)
    if out:
        env["WHOLE_FUZZ_OUT"] = str(out)
    run = subprocess.run([str(TARGET), str(image)], env=env,
                         capture_output=True, text=True, errors="replace",
                         timeout=120)
    return run.returncode, run.stderr


def summary(stderr):
    """The target's verbose summary: (mount errno, inodes, errors)."""
    m = re.findall(r"ext2_fuzz: mount (-?\d+), (\d+) inodes read, \d+ bytes "
                   r"read, (\d+) errors reported", stderr)
    if not m:
        return None
    return tuple(int(x) for x in m[-1])


def write_summary(stderr):
    """The write phase's verbose summary: (mount errno, "read-write",
    steps done, steps failed), or None if it did not run."""
    m = re.findall(r"ext2_fuzz: write phase: mount (-?\d+), (\S+), (\d+) steps "
                   r"done, (\d+) failed", stderr)
    if not m:
        return None
    return (int(m[-1][0]), m[-1][1], int(m[-1][2]), int(m[-1][3]))


def fuzz(runs=None, secs=None, seed=0, jobs=1, corpus=None):
    """A libFuzzer run over the seeds (and @corpus, kept between runs):
    (exit status, its output, executions, crash files)."""
    CRASHES.mkdir(parents=True, exist_ok=True)
    before = set(CRASHES.iterdir())
    dirs = [str(corpus)] if corpus else []
    args = [str(TARGET), f"-max_len={MAX_LEN}", "-timeout=20",
            f"-seed={seed}", f"-artifact_prefix={CRASHES}/",
            "-print_final_stats=1"]
    if runs is not None:
        args.append(f"-runs={runs}")
    if secs is not None:
        args.append(f"-max_total_time={secs}")
    if jobs > 1:
        args += [f"-fork={jobs}", "-ignore_crashes=1", "-ignore_timeouts=1",
                 "-ignore_ooms=1"]
    run = subprocess.run(args + dirs + [str(SEEDS)], capture_output=True,
                         text=True, errors="replace")
    execs = sum(int(x) for x in re.findall(r"stat::number_of_executed_units:\s+(\d+)",
                                            run.stderr))
    if jobs > 1:  # fork mode: the last status line carries the total
        m = re.findall(r"#(\d+): cov: .* exec/s", run.stderr)
        execs = int(m[-1]) if m else execs
    return run.returncode, run.stderr, execs, sorted(set(CRASHES.iterdir()) - before)


def add(crash, name):
    if not re.fullmatch(r"[a-z0-9_]+", name):
        raise SystemExit("fuzz: NAME: lower-case letters, digits and _")
    REGRESS.mkdir(parents=True, exist_ok=True)
    out = REGRESS / f"{name}.img.gz"
    out.write_bytes(gzip.compress(Path(crash).read_bytes(), 9, mtime=0))
    print(f"fuzz: {out.relative_to(ROOT)}")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--secs", type=int, help="fuzz this long")
    ap.add_argument("--runs", type=int, help="fuzz this many executions")
    ap.add_argument("--seed", type=int, default=0, help="libFuzzer's seed (0: random)")
    ap.add_argument("--jobs", type=int, default=1, help="processes (fork mode)")
    ap.add_argument("--regress", action="store_true",
                    help="only replay the regression images")
    ap.add_argument("--add", nargs=2, metavar=("CRASH", "NAME"),
                    help="keep a crash input as tests/fuzz/regress/NAME.img.gz")
    args = ap.parse_args(argv[1:])
    if args.add:
        add(*args.add)
        return 0
    build()
    status = 0
    with tempfile.TemporaryDirectory() as tmp:
        for gz in regress_images():
            rc, err = replay(unpack(gz, tmp))
            s = summary(err)
            print(f"regression {gz.name}: exit {rc}, "
                  + (f"mount {s[0]}, {s[1]} inodes, {s[2]} errors reported"
                     if s else "no summary"))
            if rc or not s:
                print(err[-3000:])
                status = 1
    if args.regress:
        return status
    make_seeds()
    # a fixed run starts from the seeds alone (replayable: same seed, same
    # executions); a long one also keeps what it finds for the next
    corpus = None if args.runs is not None else BUILD / "corpus"
    if corpus:
        corpus.mkdir(exist_ok=True)
    rc, out, execs, crashes = fuzz(args.runs, args.secs, args.seed, args.jobs,
                                   corpus)
    for line in out.splitlines():
        if line.startswith(("stat::", "INFO: Seed", "SUMMARY")) or "ERROR" in line:
            print(line)
    print(f"fuzz: {execs} executions, {len(crashes)} crashes")
    for c in crashes:
        print(f"  {c.relative_to(ROOT)}  (keep: tools/fuzz --add {c.relative_to(ROOT)} NAME)")
    return 1 if rc or crashes or status else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
