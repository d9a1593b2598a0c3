"""tools/boots.py: the QEMU boots that tools/test runs, one row each.

Each boot runs the in-kernel suites it lists on one QEMU machine and is
parsed as KTAP by tools/ktest_runner.py.

Fields:
  name       log goes to build/test-logs/<name>.log; BOOT_GLOB matches it
  smp, mem   -smp and -m
  suites     the suites the boot must run, by exact name: each must print
             a result, no other may run. Each suite runs in the boot that
             has what it needs (a disk, an image), never passing by having
             nothing to do; every suite linked into the kernel must be
             listed by some boot
  filter     ktest.filter, if not the list of suites: comma-separated
             globs, a leading - excludes ("*,-virtio_blk_*"). A filter of
             plain names stands for `suites` too; one with globs needs them
  allow      kernel reports (tools/kconsole.py) this boot expects, as
             (kind, glob over "suite.case"), besides EXPECTED_REPORTS
  may_skip   globs over "suite.case" of the cases that may skip here; any
             other skip fails the boot (it has what its suites need)
  timeout    seconds for the whole boot; then QEMU's process group is killed
  qemu_args  extra QEMU arguments, e.g. drives:
               ("-global", "virtio-mmio.force-legacy=false",
                "-drive", "file=build/t.img,if=none,format=raw,id=d0",
                "-device", "virtio-blk-device,drive=d0")
  bootargs   extra kernel arguments, before ktest.filter
  prepare    prepare(build) before QEMU starts, build = pathlib.Path of
             build/ (e.g. ext2img.make_image(build / "t.img", ...))
  post_check post_check(build) after QEMU exits (e.g. ext2img.check_image)
  expect_panic  the boot passes only if the kernel panics (exit 3) and the
             symbolized backtrace names this function
  arch       one of ARCHES: the kernel and QEMU machine (tools/ktest_runner.py
             machine_args); "riscv64" unless said
  machine    options added to -machine virt (",gic-version=3")
  build      "prod": the arch's production kernel, build/prod/whole.elf
             or build/aarch64/prod/Image (prod.ninja: no lockdep, no
             DEBUG_ASSERT), which the runner builds first (ninja), within
             the boot's time; "" the test kernel, every check on
A hook fails by raising (ext2img.CheckFailed carries the output to show);
a failed hook counts as one failure. Paths are relative to the repo root.
"""

import re
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import errimg
import ext2img
import ext2tree
import aiadtb
import ext4img
import itsdtb
import mkbadimg
import mkblkimg
import pcidtb
import spinmodel
import vfsimg


# virtio-blk boots: a fresh stamped image each (tools/mkblkimg.py); the
# errors image sits behind QEMU's blkdebug driver, which fails reads of
# sector 1000 and writes of sector 3000 (drivers/virtio_blk_test.c).
BLK_RULES = """[inject-error]
event = "read_aio"
errno = "5"
sector = "1000"

[inject-error]
event = "write_aio"
errno = "5"
sector = "3000"
"""


def blk_prepare(name):
    def prepare(build: Path) -> None:
        mkblkimg.make_image(build / f"{name}.img", 32)
        (build / "blk_rules.cfg").write_text(BLK_RULES)
    return prepare


# The disk's transport: virtio-mmio "modern" or "legacy", or "pci" (a
# virtio-blk-pci function behind virt's ECAM host bridge, virtio-pci modern).
def blk_device(transport):
    return "virtio-blk-pci" if transport == "pci" else "virtio-blk-device"


def blk_args(name, transport, drive_opts="", device_opts="", root_port=False,
             blkdebug=False):
    """QEMU's arguments for build/@name.img as the test disk; @blkdebug
    puts it behind BLK_RULES (the errors boots)."""
    img = f"build/{name}.img"
    if blkdebug:
        img = f"blkdebug:build/blk_rules.cfg:{img}"
    modern = (("-global", "virtio-mmio.force-legacy=false")
              if transport == "modern" else ())
    # behind a PCIe root port: bus 1, through a bridge (QEMU then makes
    # the function modern-only, device 0x1042)
    port = ("-device", "pcie-root-port,id=rp1,chassis=1") if root_port else ()
    return (*modern, *port,
            "-drive", f"file={img},if=none,format=raw,id=d0{drive_opts}",
            "-device", f"{blk_device(transport)},drive=d0,"
                       f"serial=whole-test-disk{device_opts}"
                       + (",bus=rp1" if root_port else ""))


# A board whose device tree says something wrong about its PCI host bridge
# (tools/pcidtb.py): the kernel says what, leaves the bridge and its disk
# out and boots on. The boot runs the PCI suites that need no bridge.
# @name is the boot's: its DTB is build/@name.dtb, its disk build/@name.img.
def pcidtb_prepare(edit, smp, mem, name, arch="riscv64"):
    def prepare(build: Path) -> None:
        pcidtb.make(build / f"{name}.dtb", smp, mem, edit, arch)
        mkblkimg.make_image(build / f"{name}.img", 1)
    return prepare


def pcidtb_check(edit, name, arch="riscv64"):
    def post_check(build: Path) -> None:
        log = (build / "test-logs" / f"{name}.log").read_text(errors="replace")
        for want in (pcidtb.MESSAGES[arch][edit], "  disks: none", "whole: "):
            if want not in log:
                raise ext2img.CheckFailed(f"no console line containing {want!r}")
    return post_check


def pcidtb_boot(edit, suites, smp=2, mem="128M", arch="riscv64", name=""):
    """pci_dtb_EDIT on riscv64 (@name for another arch's): the board's DTB
    spoiled by tools/pcidtb.py's @edit, a virtio-blk-pci disk behind the
    bridge the kernel must leave out."""
    name = name or f"pci_dtb_{edit.replace('-', '')}"
    return Boot(name, smp=smp, mem=mem, timeout=60, suites=suites, arch=arch,
                qemu_args=("-dtb", f"build/{name}.dtb", *blk_args(name, "pci")),
                prepare=pcidtb_prepare(edit, smp, mem, name, arch),
                post_check=pcidtb_check(edit, name, arch),
                allow=(("pci", "<boot>"),))


# The errseq boot: a root ext2 image behind blkdebug rules failing chosen
# blocks of its files (tools/errimg.py, fs/errseq_test.c); ext2 says what
# failed, as expected there. @name is the boot's and its image's.
def errseq_boot(arch="riscv64", name="errseq", smp=2, suites=()):
    """vfs_errseq (and @suites, which need no disk) on @arch."""
    rules = f"build/{name}_rules.cfg"
    return Boot(name, smp=smp, mem="256M", arch=arch, suites=("vfs_errseq",) + suites,
                qemu_args=("-drive", f"file=blkdebug:{rules}:build/{name}.img,"
                           "if=none,format=raw,id=d0",
                           "-device", "virtio-blk-device,drive=d0"),
                bootargs="root=vda",
                prepare=lambda build: errimg.make_image(build / f"{name}.img",
                                                        build / f"{name}_rules.cfg"),
                post_check=lambda build: errimg.check_image(build / f"{name}.img"),
                allow=(("ext2-error", "vfs_errseq.*"),))


# vfs boots: the root ext2 image of fs/vfs_test.c (tools/vfsimg.py), one
# per block size, checked by e2fsck and debugfs afterwards; @img names the
# image build/@img.img.
def vfs_prepare(img, block):
    return lambda build: vfsimg.make_image(build / f"{img}.img", block)


def suites_run(log_path):
    """The suites whose header is in a boot's console: a run of some
    suites only (./tools/test vfs_4k vfs_mmap) checks what those leave."""
    log = log_path.read_text(errors="replace") if log_path.exists() else ""
    return set(re.findall(r"^\s*# Subtest: (\S+)\s*$", log, re.M))


def vfs_check(name, img):
    def post_check(build: Path) -> None:
        vfsimg.check_image(build / f"{img}.img",
                           suites_run(build / "test-logs" / f"{name}.log"))
    return post_check


def vfs_args(img):
    return ("-drive", f"file=build/{img}.img,if=none,format=raw,id=d0",
            "-device", "virtio-blk-device,drive=d0")


# ext2 boots: images made by mke2fs -d from tools/ext2tree.py's known tree
# (two files then cut with debugfs sif, old bytes left past EOF); after the
# boot, e2fsck -fn and debugfs dumps of what ext2_write and ext2_tail left.
def printk_check(name):
    """Suite printk_lines, in boot @name: every task's every line arrived
    whole."""
    return lambda build: printk_lines_whole(build / "test-logs" / f"{name}.log")


def printk_lines_whole(log_path):
    log = log_path.read_text(errors="replace")
    tag = re.search(r"printk-test tasks=(\d+) lines=(\d+)", log)
    if not tag:
        raise ext2img.CheckFailed("the suite did not report its task count")
    tasks, lines = int(tag[1]), int(tag[2])
    line = re.compile(r"^\[\s*\d+\.\d{6}\] printk-test task=(\d+) seq=(\d+) "
                      r"[A-Za-z0-9]{62} end\r?$")
    seen, broken = set(), []
    for l in log.splitlines():
        if "printk-test task=" in l:
            m = line.match(l)
            if m:
                seen.add((int(m[1]), int(m[2])))
            else:
                broken.append(l)
    missing = tasks * lines - len(seen)
    if broken or missing:
        raise ext2img.CheckFailed("\n".join(
            [f"{len(broken)} mixed or cut lines, {missing} missing", *broken[:5]]))


def ext2_prepare(name, block, features):
    def prepare(build: Path) -> None:
        ext2tree.make_image(build / f"{name}.img", build / "ext2tree",
                            block, features)
    return prepare


def ext2_check(name):
    def post_check(build: Path) -> None:
        log = build / "test-logs" / f"{name}.log"
        ran = suites_run(log)
        ext2tree.check_written(build / f"{name}.img", ran)
        ext2tree.check_inode_numbers(build / f"{name}.img", log)
        # ext4_falloc's corrupt node: named by inode and block
        text = log.read_text(errors="replace")
        if "ext4_falloc" in ran and not re.search(
                r"# Subtest: ext4_falloc[\s\S]*ext4: inode \d+: extent block "
                r"\d+: bad magic \(4660\)", text):
            raise ext2img.CheckFailed("ext4_falloc: no console line naming "
                                      "the inode and block of the bad node")
    return post_check


# fs_pressure: big files on a fresh, empty ext2 with 64 MiB of RAM
# (tests/fs_pressure_test.c); e2fsck afterwards, and the file the suite
# keeps (KEPT_* there), written back by reclaim, dumped by debugfs.
KEPT_PATH, KEPT_SIZE, KEPT_SEED = "/kept", 8 << 20, 0x5eed00c0


def pressure_words(seed, size):
    """The bytes of word_at() in tests/fs_pressure_test.c: word i is
    x ^ (x >> 29) with x = i * 0x9e3779b97f4a7c15 + seed (mod 2^64)."""
    mask = (1 << 64) - 1
    out = bytearray()
    for i in range(size // 8):
        x = (i * 0x9e3779b97f4a7c15 + seed) & mask
        out += (x ^ (x >> 29)).to_bytes(8, "little")
    return bytes(out)


def pressure_prepare(name):
    return lambda build: ext2img.make_image(build / f"{name}.img", "200M")


def pressure_check(name):
    """e2fsck, and (if fs_pressure ran: a64_core runs it among others)
    the file it kept, as the host computes it."""
    def post_check(build: Path) -> None:
        img = build / f"{name}.img"
        ext2img.check_image(img)
        if "fs_pressure" not in suites_run(build / "test-logs" / f"{name}.log"):
            return
        dump = build / f"{name}.kept"
        dump.unlink(missing_ok=True)
        ext2tree.debugfs(img, f"dump {KEPT_PATH} {dump}")
        if not dump.exists():
            raise ext2img.CheckFailed(f"debugfs found no {KEPT_PATH}")
        got, want = dump.read_bytes(), pressure_words(KEPT_SEED, KEPT_SIZE)
        if got != want:
            first = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                         min(len(got), len(want)))
            raise ext2img.CheckFailed(f"{KEPT_PATH}: {len(got)} bytes, the "
                                      f"first wrong at {first} (want {len(want)})")
    return post_check


# race reproducers (tests/race_truncate_test.c): a fresh ext2 root per boot, in
# the fixed kernel and in legacy mode (invalidate_lock=off), where each
# reproducer must observe the bug; e2fsck afterwards either way.
def race_prepare(name, block, features=ext2img.DEFAULT_FEATURES):
    return lambda build: ext2img.make_image(build / f"{name}.img", "32M",
                                            block=block, features=features)


def race_check(name, legacy=False):
    def post_check(build: Path) -> None:
        ext2img.check_image(build / f"{name}.img")
        log = (build / "test-logs" / f"{name}.log").read_text(errors="replace")
        # A run of some suites only (./tools/test race_legacy race_punch)
        # has no schedules to compare; a full run must run race_enum (the
        # boot lists it), so this never skips the comparison there.
        if legacy and re.search(r"^\s*# Subtest: race_enum\s*$", log, re.M):
            enum_matches_spin(log)
    return post_check


ENUM_FAILS = re.compile(r"race_enum: (\w+) x (\w+): fails: ([^:]+): ")


def enum_matches_spin(log):
    """Legacy mode: the interleaving SPIN reports for a read miss against a
    punch (check legacy_leak's trail) must be among the schedules
    tests/race_enum.c found failing for that pair, each taken at the
    points the model has."""
    failing = {m.group(3).strip() for m in ENUM_FAILS.finditer(log)
               if m.group(1) == "punch" and m.group(2) == "read_miss"}
    check = next(c for c in spinmodel.CHECKS if c.name == "legacy_leak")
    with tempfile.TemporaryDirectory() as tmp:
        spinmodel.verify(check.defines, tmp)
        want = spinmodel.kernel_schedule(spinmodel.replay(check.defines, tmp))
    # The kernel stops at more points than the model has (the fill's
    # insertion, the operation's free and unlock): compare the schedules
    # on the model's points.
    seen = set(want.split())
    failing = {" ".join(e for e in f.split() if e in seen) for f in failing}
    if want not in failing:
        raise ext2img.CheckFailed(
            f"SPIN's interleaving {want!r} is not among the schedules the "
            f"kernel found failing for punch x read_miss: {sorted(failing)}")


def ext2_args(name, transport="legacy"):
    return ("-drive", f"file=build/{name}.img,if=none,format=raw,id=d0",
            "-device", f"{blk_device(transport)},drive=d0")


# Corrupt images (tools/mkbadimg.py): while its suite runs (not at the
# boot-time root mount, before it), the console must say why.
def ext2_bad_prepare(kind, name):
    def prepare(build: Path) -> None:
        mkbadimg.make_bad(kind, build / f"{name}.img")
    return prepare


def message_in_suite(log, suite, message):
    """Raise CheckFailed unless @message is on a console line after the
    line "# Subtest: @suite"."""
    lines = log.splitlines()
    header = next((i for i, l in enumerate(lines)
                   if l.strip() == f"# Subtest: {suite}"), None)
    if header is None:
        raise ext2img.CheckFailed(f"suite {suite} never began")
    if not any(message in l for l in lines[header + 1:]):
        raise ext2img.CheckFailed(
            f"no console message containing {message!r} after suite {suite} began")


def ext2_bad_check(kind, name):
    def post_check(build: Path) -> None:
        log = (build / "test-logs" / f"{name}.log").read_text(errors="replace")
        message_in_suite(log, mkbadimg.SUITES[kind], mkbadimg.MESSAGES[kind])
        if kind == "blocknr":
            mkbadimg.check_meta_untouched(build / f"{name}.img")
    return post_check


def ext2_bad_boot(kind, arch="riscv64", name=""):
    """ext2_bad_KIND on riscv64 (@name for another arch's): root on
    tools/mkbadimg.py's image with damage @kind, its suite run."""
    name = name or f"ext2_bad_{kind}"
    return Boot(name, smp=2, mem="128M", suites=(mkbadimg.SUITES[kind],), arch=arch,
                bootargs=f"ext2.bad={kind}", qemu_args=ext2_args(name),
                prepare=ext2_bad_prepare(kind, name),
                post_check=ext2_bad_check(kind, name))


# ext4 boots: the image of tools/ext4img.py (a known tree, then files under
# /bad damaged) as vda, read-only, and the mount cases' disks as vdb..vde
# (QEMU gives the first -device the highest address; whole names disks in
# address order). Afterwards every image must be as it was, and the
# console must name each damage while ext4_bad runs.
def ext4_images(build, name):
    return [build / f"{name}.img",
            *[build / name / f"ext4_{d}.img" for d in ext4img.DISKS]]


def ext4_prepare(name, block):
    def prepare(build: Path) -> None:
        ext4img.make_image(build / f"{name}.img", block)
        ext4img.disks(build / name)
        (build / f"{name}.sha256").write_text(
            ext4img.image_digest(ext4_images(build, name)))
    return prepare


def ext4_check(name):
    def post_check(build: Path) -> None:
        if ext4img.image_digest(ext4_images(build, name)) != \
                (build / f"{name}.sha256").read_text():
            raise ext2img.CheckFailed(f"{name}: a read-only mount wrote to "
                                      "its disks")
        log = (build / "test-logs" / f"{name}.log").read_text(errors="replace")
        if "ext4_bad" in suites_run(build / "test-logs" / f"{name}.log"):
            for message in (*ext4img.BAD.values(),
                            *ext4img.DISK_MESSAGES.values()):
                message_in_suite(log, "ext4_bad", message)
    return post_check


def ext4_boot(name, block, arch="riscv64", smp=2, mem="256M", suites=()):
    """The ext4 image of tools/ext4img.py with @block-byte blocks as the
    read-only root, the mount cases' disks beside it: ext4's read suites
    (and @suites, which need no disk of their own)."""
    return Boot(name, smp=smp, mem=mem, arch=arch,
                suites=("ext4_csum", "ext4_read", "ext4_bad") + suites,
                qemu_args=ext4_args(name), bootargs="root=vda rootfstype=ext4",
                prepare=ext4_prepare(name, block), post_check=ext4_check(name))


def ext4_args(name):
    disks = ext4_images(Path("build"), name)
    return tuple(a for img in reversed(disks) for a in (
        "-drive", f"file={img},if=none,format=raw,id={img.stem}",
        "-device", f"virtio-blk-device,drive={img.stem}"))


# Kernel reports (tools/kconsole.py) that cases provoke on purpose, in
# whichever boot runs them: (kind, glob over "suite.case"). Anywhere else
# such a report fails its boot.
EXPECTED_REPORTS = (
    ("bootargs", "bootargs.finds_the_test_filter"),
    ("lockdep", "locks_lockdep.inversion_is_reported_once"),
    ("lockdep", "locks_lockdep.same_class_needs_nesting"),
    ("lockdep", "locks_lockdep.release_unheld_is_reported"),
    ("lockdep", "locks_lockdep.top_rank_follows_releases"),
    ("io-timeout", "blk_sync.late_*_after_timeout"),
    ("lost-kick", "virtio_blk_read.lost_notification_is_sent_again"),
    ("device-status", "virtio_blk_read.bad_status_fails_request"),
    ("virtqueue", "virtio_ring.*"),
    ("pci", "pci_enum.*"),
    ("pci", "virtio_pci_caps.*"),
    ("warning", "mm_page_alloc.bad_free_is_ignored"),
    ("oops", "mm_vm.text_and_rodata_are_read_only"),
    ("oops", "mm_vm.data_is_not_executable"),
    ("oops", "mm_vm.stack_overflow_kills_task"),
    ("oops", "mm_vm.freed_stack_is_unmapped"),
    ("oops", "traps.faulting_task_is_killed"),
    ("oops", "traps.illegal_instruction_is_killed"),
    ("oops", "traps.unmapped_load_is_killed"),
    # a load wholly past EOF (SIGBUS), then one of an unmapped page (a
    # segmentation fault, an oops)
    ("sigbus", "vfs_mmap_unmap.bad_access_ends_task"),
    ("oops", "vfs_mmap_unmap.bad_access_ends_task"),
    ("sigbus", "vfs_mmap_unmap.truncate_unmaps_every_hart"),
    ("sigbus", "vfs_mmap_unmap.maker_end_unmaps"),
    ("lockdep", "vfs_mmap.fault_under_invalidate_lock_is_reported"),
    ("ext2-error", "ext2_bad_entries.broken_entry_fails"),
    ("ext2-error", "ext2_bad_blocks.block_*"),
    ("ext2-error", "ext2_falloc_nospc.falloc_write_page_hole"),
    ("ext2-error", "ext4_bad.*"),
    ("ext2-error", "ext4_csum_write.bad_csum_refused"),
    # mm/invalidate_test.c provokes each check of the invalidate_lock rules.
    ("lockdep", "pcache_invalidate.invalidate_lock_inside_page_lock_reported"),
    ("lockdep", "pcache_invalidate.invalidate_lock_across_fault_reported"),
    ("invalidate-leftover", "pcache_invalidate.invalidate_unlock_finds_leftover"),
)


@dataclass(frozen=True)
class Boot:
    name: str
    smp: int
    mem: str
    filter: str = ""
    timeout: int = 300
    qemu_args: tuple = ()
    bootargs: str = ""
    prepare: Callable | None = None
    post_check: Callable | None = None
    expect_panic: str | None = None  # the boot must panic, this in the backtrace
    suites: tuple = ()
    allow: tuple = ()
    may_skip: tuple = ()
    arch: str = "riscv64"
    machine: str = ""
    build: str = ""

    def ktest_filter(self):
        return self.filter or ",".join(self.suites)

    def required(self):
        """The suites the boot must run, or None if its filter has globs
        and the row does not list them."""
        if self.suites:
            return tuple(self.suites)
        names = tuple(self.filter.split(",")) if self.filter else ()
        if not names or any(n.startswith("-") or set(n) & set("*?[") for n in names):
            return None
        return names


ARCHES = ("riscv64", "aarch64")


def allowed_reports(boot):
    return EXPECTED_REPORTS + tuple(boot.allow)


MM_SUITES = ("mm_kmalloc", "mm_page_alloc", "mm_pgtable", "mm_vm")
PCACHE_SUITES = ("pcache_filemap", "pcache_invalidate", "pcache_radix",
                 "pcache_readahead", "pcache_reclaim", "pcache_writeback",
                 "pcache_truncate_flusher", "pcache_truncate_batch",
                 "pcache_zero_range")
VFS_SUITES = ("vfs_attr", "vfs_cache", "vfs_cksum", "vfs_copy_range", "vfs_cwd", "vfs_deaddir",
              "vfs_dir", "vfs_fd", "vfs_file", "vfs_icache", "vfs_mmap",
              "vfs_mmap_unmap", "vfs_mmap_write", "vfs_mmap_smp", "vfs_mmap_lockless", "vfs_mmap_inval", "vfs_namei", "vfs_ra_worker", "vfs_read_truncate", "vfs_persist", "vfs_rename_lock",
              "vfs_special", "vfs_symlink")
# tests/race*.c: one suite per invalidating operation.
RACE_SUITES = ("race_collapse", "race_enum", "race_enum_wb", "race_fill_scope", "race_hit",
               "race_insert", "race_prealloc", "race_punch", "race_trunc_hit",
               "race_truncate", "race_writeback", "race_zero")

CORE_SUITES = ("blk_sync", "bootargs", "errseq_cursor", "locks_completion", "locks_fastpath",
               "locks_lockdep", "locks_mutex", "locks_rcu", "locks_rwsem", "locks_spinlock",
               *MM_SUITES, *PCACHE_SUITES, "ktest_overlap", "printk_cut", "sched_basic",
               "sched_join", "sched_steal", "shell_parse", "shell_readline", "timers",
               "trace", "traps", "virtio_ring")
def overflow_check(name):
    """mm_vm's stack_overflow_kills_task: the task died of the overflow,
    reported from the emergency stack (the trap entry's check), not of a
    fault that pushed its frame below the guard page."""
    def post_check(build: Path) -> None:
        log = build / "test-logs" / f"{name}.log"
        if "mm_vm" in suites_run(log) and not re.search(
                r"Oops: stack overflow \(sp 0x[0-9a-f]+, stack bottom 0x[0-9a-f]+\)",
                log.read_text(errors="replace")):
            raise ext2img.CheckFailed("mm_vm ran, but no 'Oops: stack overflow' "
                                      "was reported")
    return post_check


# What proves the arch on a second machine: locks, scheduling, the timer,
# traps, SMP (the arch's hooks and barriers); with a disk, interrupts and
# virtio.
ARCH_SUITES = ("locks_completion", "locks_fastpath", "locks_mutex", "locks_rcu",
               "locks_rwsem", "locks_spinlock", "mm_vm", "sched_basic", "sched_join",
               "sched_steal", "timers", "traps")


def race_boot(name, block, extra, arch="riscv64", fs="ext2",
              features=ext2img.DEFAULT_FEATURES, suites=None):
    """A race-reproducer boot: every race suite (or @suites) on a fresh
    root of @block-byte blocks, an @fs ("ext2" or "ext4") image made with
    @features; @extra " invalidate_lock=off" for legacy mode."""
    if suites is None:
        # race_partial needs a page of several blocks; race_hold, a fill
        # that queues for invalidate_lock (not in legacy mode)
        suites = (RACE_SUITES + (("race_enum_partial", "race_partial")
                                 if block < 4096 else ())
                  + (() if extra else ("race_hold",)))
    return Boot(name, smp=4, mem="128M", timeout=300, arch=arch, suites=suites,
                qemu_args=ext2_args(name),
                prepare=race_prepare(name, block, features),
                bootargs="root=vda" + ("" if fs == "ext2" else f" rootfstype={fs}")
                + extra, post_check=race_check(name, bool(extra)),
                # legacy mode: what the races break is reported, as expected (a
                # page back in an invalidated range; race_enum's page_mkwrite
                # schedules leave dirty data over a punched hole)
                allow=((("invalidate-leftover", "race_*"),
                        ("ext2-error", "race_enum.race_enum_*")) if extra else ())
                # a load or store past the EOF truncate set ends the filler
                # with a bus error, in both modes; no other oops is expected
                + (("sigbus", "race_truncate.race_truncate_fault"),
                   ("sigbus", "race_truncate.race_truncate_page_mkwrite"),
                   ("sigbus", "race_enum.race_enum_truncate")))


def blk_rw_boot(transport, arch="riscv64", name="", machine=""):
    """The disk read and written through @transport's queues (blk_TRANSPORT
    on riscv64; @name and @machine for another arch's)."""
    name = name or f"blk_{transport}"
    img = "blk_rw" if arch == "riscv64" else name
    return Boot(name, smp=4, mem="256M", arch=arch, machine=machine,
                suites=("virtio_blk_queue", "virtio_blk_read", "virtio_blk_stress",
                        "virtio_blk_write"),
                qemu_args=blk_args(img, transport),
                bootargs="vblk.test=rw", prepare=blk_prepare(img))


def blk_mq_boot(transport, arch="riscv64", name="", machine=""):
    """Multi-queue: QEMU's num-queues, one queue per hart (on PCI, the
    disk behind a PCIe root port); blk_mq_TRANSPORT on riscv64."""
    name = name or f"blk_mq_{transport}"
    img = "blk_mq" if arch == "riscv64" else name
    return Boot(name, smp=4, mem="256M", arch=arch, machine=machine,
                suites=("virtio_blk_mq", "virtio_blk_read", "virtio_blk_stress",
                        "virtio_blk_write"),
                qemu_args=blk_args(img, transport, device_opts=",num-queues=4",
                                   root_port=transport == "pci"),
                bootargs="vblk.test=rw", prepare=blk_prepare(img))


def blk_ro_boot(transport, arch="riscv64", name="", machine=""):
    """A disk QEMU makes read-only (readonly=on); blk_ro_TRANSPORT."""
    name = name or f"blk_ro_{transport}"
    img = "blk_ro" if arch == "riscv64" else name
    return Boot(name, smp=2, mem="256M", arch=arch, machine=machine,
                suites=("virtio_blk_read", "virtio_blk_ro"), bootargs="vblk.test=ro",
                qemu_args=blk_args(img, transport, ",readonly=on"),
                prepare=blk_prepare(img))


def blk_errors_boot(transport, arch="riscv64", name="", machine=""):
    """A disk behind QEMU's blkdebug failing chosen sectors (BLK_RULES);
    blk_errors_TRANSPORT."""
    name = name or f"blk_errors_{transport}"
    img = "blk_errors" if arch == "riscv64" else name
    return Boot(name, smp=2, mem="256M", arch=arch, machine=machine,
                suites=("virtio_blk_errors",), bootargs="vblk.test=errors",
                qemu_args=blk_args(img, transport, blkdebug=True),
                prepare=blk_prepare(img))


def vfs_boot(block, arch="riscv64", name=""):
    """The vfs suites and ext2's fallocate suites on the root image of
    tools/vfsimg.py with @block-byte blocks (vfs_Nk on riscv64); e2fsck
    and debugfs afterwards."""
    name = name or f"vfs_{block // 1024}k"
    img = f"vfs{block}" if arch == "riscv64" else name
    return Boot(name, smp=2, mem="256M", arch=arch,
                suites=VFS_SUITES + ("ext2_falloc", "ext2_falloc_nospc"),
                qemu_args=vfs_args(img),
                # 1 KiB blocks: every readahead window in the reader
                bootargs="root=vda" + (" ra_worker=off" if block == 1024 else ""),
                prepare=vfs_prepare(img, block), post_check=vfs_check(name, img))


def ext2_boot(name, block, features, arch="riscv64"):
    """The ext2 suites on tools/ext2tree.py's image of @block-byte blocks
    and mke2fs @features, and the ext4 suites those features call for
    (ext4_extent_write and ext4_falloc with extents, ext4_csum_write with
    metadata_csum); mounted as ext4 if @name says so."""
    ext4 = features.startswith("ext4")
    ext4_suites = ((("ext4_extent_write", "ext4_falloc")
                    if ext4 and "^extent" not in features else ())
                   # fallocate by ext4's rules on extent-mapped files (the
                   # vfs_* boots run them on ext2). Not on indirect-mapped
                   # ext4 files: whole treats them as ext2's, where Linux's
                   # ext4 refuses all but punch (EOPNOTSUPP; docs/ext4.md)
                   + (("ext2_falloc", "ext2_falloc_nospc")
                      if ext4 and "^extent" not in features else ())
                   + (("ext4_csum_write",)
                      if ext4 and "^metadata_csum" not in features else ()))
    return Boot(name, smp=4, mem="256M", arch=arch,
                suites=("ext2_buffer", "ext2_read", "ext2_readpage", "ext2_tail",
                        "ext2_write") + ext4_suites,
                timeout=600, qemu_args=ext2_args(name),
                bootargs="root=vda rootfstype=ext4" if ext4 else "",
                allow=(("ext2-error", "ext4_falloc.bad_header_on_write"),)
                if "ext4_falloc" in ext4_suites else (),
                prepare=ext2_prepare(name, block, features),
                post_check=ext2_check(name))


def race_pci_boot(name, arch="riscv64", machine=""):
    """The filesystem on a virtio-pci disk: race reproducers with root on
    it (fixed mode), e2fsck afterwards."""
    return Boot(name, smp=4, mem="128M", timeout=300, arch=arch, machine=machine,
                suites=("race_collapse", "race_hold", "race_insert", "race_punch",
                        "race_truncate", "race_writeback", "race_zero"),
                qemu_args=ext2_args(name, "pci"),
                prepare=race_prepare(name, 4096), bootargs="root=vda",
                post_check=race_check(name),
                allow=(("sigbus", "race_truncate.race_truncate_fault"),
                       ("sigbus", "race_truncate.race_truncate_page_mkwrite")))


# The production kernel's banner says it is one (kernel/banner.c): a
# build.ninja that lost prod.ninja's flags boots the test kernel there.
PRODUCTION_BANNER = ", production build (no lockdep)"


def production_check(name, arch="riscv64"):
    def post_check(build: Path) -> None:
        log = (build / "test-logs" / f"{name}.log").read_text(errors="replace")
        if not re.search(r"\] whole \S+ \(.*\), " + arch + re.escape(PRODUCTION_BANNER),
                         log):
            raise ext2img.CheckFailed("the banner does not say "
                                      f"{arch + PRODUCTION_BANNER!r}")
    return post_check


def prod_boot(name, arch="riscv64"):
    """The production kernel (prod.ninja: no lockdep, no DEBUG_ASSERT;
    what tools/bench measures) of @arch on ext2_4k's image: the page
    cache, ext2's write and read paths and the locks, e2fsck and debugfs
    afterwards, and the banner's word that it is that kernel. Not here by
    design: the suites that provoke lockdep reports or ask lockdep who
    holds what (locks_lockdep, locks_mutex, locks_rwsem, pcache_invalidate,
    vfs_mmap: production cannot tell) and those that need another image or
    boot (the rest run on the test kernel)."""
    return replace(ext2_boot(name, 4096, ext2img.DEFAULT_FEATURES, arch), build="prod",
                   post_check=hooks(ext2_check(name), production_check(name, arch)),
                   suites=("ext2_buffer", "ext2_read", "ext2_readpage", "ext2_tail",
                           "ext2_write", "locks_completion", "locks_fastpath",
                           "locks_rcu", "locks_spinlock", "mm_kmalloc",
                           *(s for s in PCACHE_SUITES if s != "pcache_invalidate")))


def hooks(*each):
    """One prepare (or post_check) hook running each of @each in turn."""
    def hook(build: Path) -> None:
        for h in each:
            h(build)
    return hook


def aarch64_boots():
    """The aarch64 boots (kernel/arch/aarch64): the riscv64 boots' suites,
    shared among fewer boots where the arch is not the point. The core
    suites on GICv2; pcache64m's and fs_pressure's suites with 64 MiB,
    beside the read-only disk (virtio-mmio legacy); the arch's suites and
    the multi-queue disk on GICv3 over virtio-mmio modern; blk_pci's and
    blk_mq_pci's suites on a virtio-pci disk behind a root port (GICv3,
    highmem=on; MSI-X through the ITS), and the errors disk there (INTx:
    its device tree's ITS has no reg); race_pci's suites with root on
    a PCI disk; the race reproducers (fixed and legacy) on an ext2 root of
    1 KiB blocks (partial pages: race_partial, race_enum_partial); the vfs
    suites on tools/vfsimg.py's image of 2 KiB blocks and the ext2 suites
    on tools/ext2tree.py's of 1 KiB, each with its e2fsck and debugfs
    checks; the same for ext4 (one writable image, one race root, one
    read-only image, each riscv64's at one block size); errseq's and
    panic's boots; the two spoiled device trees, with the mm suites at
    128 MiB and 1 GiB and printk_lines; one ext2_bad_* boot per suite;
    prod's on aarch64's production kernel (a64_prod).
    tools/test_boots_arches.py checks that no riscv64 suite is left out."""
    gicv3, pci = ",gic-version=3", ",gic-version=3,highmem=on"
    mq_mmio = blk_mq_boot("modern", "aarch64", "a64_gicv3", gicv3)
    mq_pci = blk_mq_boot("pci", "aarch64", "a64_blk_pci", pci)
    a64_busrange = pcidtb_boot("bus-range", ("virtio_pci_caps", "printk_lines") + MM_SUITES,
                               smp=4, mem="1G", arch="aarch64",
                               name="a64_pci_dtb_busrange")
    return [
        Boot("a64_core", smp=4, mem="256M", suites=CORE_SUITES, arch="aarch64",
             post_check=overflow_check("a64_core")),
        # 64 MiB: the page cache and ext2 under reclaim (pcache64m's and
        # fs_pressure's suites, on fs_pressure's empty ext2 root, vdb), and
        # the read-only disk as vda (QEMU gives the first -device the
        # highest address; whole names disks in address order)
        Boot("a64_pressure", smp=4, mem="64M", arch="aarch64", timeout=600,
             suites=PCACHE_SUITES + ("fs_pressure", "virtio_blk_read", "virtio_blk_ro"),
             qemu_args=("-drive", "file=build/a64_pressure.img,if=none,format=raw,"
                        "id=root", "-device", "virtio-blk-device,drive=root",
                        *blk_args("a64_pressure_ro", "legacy", ",readonly=on")),
             bootargs="root=vdb vblk.test=ro",
             prepare=hooks(pressure_prepare("a64_pressure"),
                           blk_prepare("a64_pressure_ro")),
             post_check=pressure_check("a64_pressure")),
        # irq_route: GICv3 routes the disk's SPI to each hart in turn
        replace(mq_mmio, suites=ARCH_SUITES + ("irq_route", "virtio_blk_queue")
                + mq_mmio.suites),
        # virtio-pci: virt's ECAM bridge with highmem=on (at 0x4010000000,
        # past 256 GiB); the multi-queue disk's MSI-X vectors are LPIs of
        # GICv3's ITS (virt's default with gic-version=3), the line checked
        replace(mq_pci, suites=("virtio_blk_queue",) + mq_pci.suites,
                post_check=msi_check("a64_blk_pci", ITS_VECTORS)),
        # ... and the errors disk on a device tree whose ITS has no reg
        # (tools/itsdtb.py): the ITS said unusable, INTx through the
        # bridge's interrupt-map (GIC SPIs, 3 cells) on GICv3
        replace(blk_errors_boot("pci", "aarch64", "a64_blk_errors", pci),
                qemu_args=("-dtb", "build/a64_blk_errors.dtb",
                           *blk_args("a64_blk_errors", "pci", blkdebug=True)),
                prepare=hooks(itsdtb_prepare("a64_blk_errors", 2, "256M", pci),
                              blk_prepare("a64_blk_errors")),
                post_check=hooks(console_check("a64_blk_errors", itsdtb.MESSAGE),
                                 msi_check("a64_blk_errors",
                                           r"INTx, irq \d+ \(no MSI controller\)"))),
        race_pci_boot("a64_race_pci", "aarch64", pci),
        race_boot("a64_race", 1024, "", "aarch64"),
        race_boot("a64_race_legacy", 1024, " invalidate_lock=off", "aarch64"),
        vfs_boot(2048, "aarch64", "a64_vfs_2k"),
        ext2_boot("a64_ext2_1k", 1024, ext2img.DEFAULT_FEATURES, "aarch64"),
        # ext4: the writing suites on one image of 1 KiB blocks (ext4w_1k's),
        # the race reproducers on one (race_ext4_1k's, fixed mode), the
        # read-only images' suites on one of 4 KiB blocks
        ext2_boot("a64_ext4w_1k", 1024, ext2img.EXT4_DEFAULT, "aarch64"),
        race_boot("a64_race_ext4_1k", 1024, "", "aarch64", fs="ext4",
                  features=ext2img.EXT4_DEFAULT),
        ext4_boot("a64_ext4_4k", 4096, "aarch64"),
        errseq_boot("aarch64", "a64_errseq"),
        Boot("a64_panic", smp=2, mem="128M", suites=("selftest_panic",), arch="aarch64",
             expect_panic="panic_is_reported", timeout=60),
        # the bad DTBs of aarch64's virt (tools/pcidtb.py), boots with no
        # disk and no filesystem: the mm suites beside pci_enum with 128
        # MiB (mem128's machine) and beside virtio_pci_caps and
        # printk_lines with 1 GiB on 4 CPUs (mem1g's; printk's CPUs).
        # (mm_page_alloc's exhaustion case wants a quiet kernel: after the
        # ext4 suites, on either arch, 512 pages came free while it held
        # every page - page-cache pages freed late, by RCU callbacks, it
        # seems.)
        pcidtb_boot("ranges", ("pci_enum",) + MM_SUITES, arch="aarch64",
                    name="a64_pci_dtb_ranges"),
        replace(a64_busrange, post_check=hooks(a64_busrange.post_check,
                                               printk_check(a64_busrange.name))),
        # one image per suite of ext2_bad_* (the damage is parsed the same
        # on any arch; the arch's part is the path that reports it)
        *[ext2_bad_boot(kind, "aarch64", f"a64_ext2_bad_{kind}")
          for kind in ("rootfile", "rocompat", "reclen", "blocknr")],
        # aarch64's production kernel (what tools/bench --arch aarch64
        # measures), with prod's suites and checks
        prod_boot("a64_prod", "aarch64"),
    ]


def itsdtb_prepare(name, smp, mem, machine):
    """build/@name.dtb: aarch64 virt's device tree for -machine
    virt,highmem=off@machine (tools/ktest_runner.py's), its ITS without reg."""
    def prepare(build: Path) -> None:
        itsdtb.make(build / f"{name}.dtb", smp, mem, ",highmem=off" + machine)
    return prepare


def console_check(name, want):
    """The boot's console has the line @want (a plain string)."""
    def post_check(build: Path) -> None:
        log = (build / "test-logs" / f"{name}.log").read_text(errors="replace")
        if want not in log:
            raise ext2img.CheckFailed(f"no console line containing {want!r}")
    return post_check


def msi_check(name, want, *more):
    """The console line drivers/virtio_pci_irq.c prints for the disk says
    it got the interrupts @want (a regular expression): a disk that fell
    back to INTx passes the suites but fails this. @more: other console
    lines (regular expressions) the boot must print."""
    def post_check(build: Path) -> None:
        log = (build / "test-logs" / f"{name}.log").read_text(errors="replace")
        if not re.search(r"virtio-pci@\S+: " + want, log):
            raise ext2img.CheckFailed(f"no console line 'virtio-pci@...: {want}'")
        for line in more:
            if not re.search(line, log):
                raise ext2img.CheckFailed(f"no console line {line!r}")
    return post_check


# The disk's line on GICv3: 5 vectors (4 queues and the configuration),
# LPIs (the GIC's INTIDs from 8192 on; whole hands out 8192-8447).
ITS_VECTORS = r"MSI-X, 5 vectors \(GICv3 ITS LPIs (819[2-9]|8[2-4]\d\d)-(819[2-9]|8[2-4]\d\d)\)"


def msi_nointx_prepare(name):
    """a64_msi's board: virt's tree with no INTx for slot 1, the root port
    the disk sits behind (tools/pcidtb.py no-intx-slot1)."""
    def prepare(build: Path) -> None:
        pcidtb.make(build / f"{name}.dtb", 4, "256M", "no-intx-slot1", "aarch64")
    return prepare


def msi_boots():
    """virtio-pci with MSI-X through the GICv2m frame of aarch64's virt
    (GICv2, its default): a disk with num-queues=4 behind a PCIe root port
    gets a vector per queue and one for its configuration (SPIs from the
    frame's range, which MSI_TYPER gives: 80-143 on QEMU's virt), on a
    board whose interrupt-map gives that slot no INTx (it is probed all
    the same); the same disk with vectors=0 (no MSI-X capability) falls
    back to INTx; a disk with vectors=3 for its 4 queues shares two queue
    vectors among them, beside a disk whose probe fails on purpose
    (vblk.fail_probe=1) and gives its lines back (virtio_pci_irq)."""
    share = ("-drive", "file=build/a64_msi_share_b.img,if=none,format=raw,id=d1",
             "-device", "virtio-blk-pci,drive=d1,num-queues=4")
    return [
        Boot("a64_msi", smp=4, mem="256M", arch="aarch64",
             suites=("virtio_blk_mq", "virtio_blk_read", "virtio_blk_stress",
                     "virtio_blk_write"),
             qemu_args=("-dtb", "build/a64_msi.dtb",
                        *blk_args("a64_msi", "pci", device_opts=",num-queues=4",
                                  root_port=True)),
             bootargs="vblk.test=rw",
             prepare=hooks(blk_prepare("a64_msi"), msi_nointx_prepare("a64_msi")),
             post_check=msi_check("a64_msi", r"MSI-X, 5 vectors \(GICv2m SPIs "
                                             r"(8\d|9\d|1[0-4]\d)-(8\d|9\d|1[0-4]\d)\)",
                                  r"virtio-pci@01:00\.0: device 2, modern, no INTx "
                                  r"route in the interrupt-map: MSI-X only")),
        Boot("a64_msi_share", smp=4, mem="256M", arch="aarch64",
             suites=("virtio_pci_irq", "virtio_blk_mq", "virtio_blk_read"),
             qemu_args=(*blk_args("a64_msi_share", "pci",
                                  device_opts=",num-queues=4,vectors=3"), *share),
             bootargs="vblk.test=rw vblk.fail_probe=1",
             # the refusal vblk.fail_probe asks for, and the test's own
             allow=(("virtio", "<boot>"),
                    ("virtio", "virtio_pci_irq.failed_probe_frees_everything")),
             prepare=hooks(blk_prepare("a64_msi_share"), blk_prepare("a64_msi_share_b")),
             post_check=msi_check("a64_msi_share",
                                  r"MSI-X, 3 vectors \(GICv2m SPIs \d+-\d+\), "
                                  r"4 queues on 2",
                                  r"device 2 refused: probe failed on purpose")),
        Boot("a64_msi_intx", smp=2, mem="256M", arch="aarch64",
             suites=("virtio_blk_read",),
             qemu_args=blk_args("a64_msi_intx", "pci", device_opts=",vectors=0"),
             bootargs="vblk.test=rw", prepare=blk_prepare("a64_msi_intx"),
             post_check=msi_check("a64_msi_intx",
                                  r"INTx, irq \d+ \(no MSI-X capability\)")),
    ]


def console_check(name, *want):
    """The boot's console has a line containing each of @want."""
    def post_check(build: Path) -> None:
        log = (build / "test-logs" / f"{name}.log").read_text(errors="replace")
        for w in want:
            if w not in log:
                raise ext2img.CheckFailed(f"no console line containing {w!r}")
    return post_check


def aia_boots():
    """riscv64's virt with aia=aplic-imsic (kernel/arch/riscv64/aia.h): no
    PLIC; an IMSIC interrupt file per hart and the S-level APLIC in MSI
    mode. aia_pci: blk_mq_pci's suites with the disk's 4 queues and its
    configuration on 5 MSI-X vectors, IMSIC identities past the APLIC's
    96 sources (the console line is checked). aia_mmio: the AIA's rules
    (aia_irq) and a virtio-mmio disk, a wired source through the APLIC,
    with the timer and lock suites beside it, on a CPU without Sstc (the
    tick through SBI: riscv_timer)."""
    return [
        Boot("aia_pci", smp=4, mem="256M", machine=",aia=aplic-imsic",
             suites=("virtio_blk_mq", "virtio_blk_read", "virtio_blk_stress",
                     "virtio_blk_write"),
             qemu_args=blk_args("aia_pci", "pci", device_opts=",num-queues=4",
                                root_port=True),
             bootargs="vblk.test=rw", prepare=blk_prepare("aia_pci"),
             post_check=msi_check("aia_pci", r"MSI-X, 5 vectors \(IMSIC identities "
                                             r"(9[7-9]|[12]\d\d)-(9[7-9]|[12]\d\d)\)")),
        # a CPU without Sstc: the tick through SBI (riscv_timer)
        Boot("aia_mmio", smp=4, mem="256M", machine=",aia=aplic-imsic",
             suites=("aia_irq", "locks_completion", "locks_mutex", "locks_spinlock",
                     "riscv_timer", "timers", "virtio_blk_read", "virtio_blk_stress",
                     "virtio_blk_write"),
             qemu_args=("-cpu", "rv64,sstc=off", *blk_args("aia_mmio", "modern")),
             bootargs="vblk.test=rw riscv.timer=sbi", prepare=blk_prepare("aia_mmio")),
        # A device tree that says the AIA wrongly (tools/aiadtb.py): the
        # console says so and the boot goes on. One interrupt file for two
        # harts: no interrupts at all (no PLIC), the PCI disk is refused;
        # an APLIC without msi-parent: no wired interrupts, the PCI disk
        # still gets its MSI-X vectors.
        *[Boot(f"aia_dtb_{edit.replace('-', '')}", smp=2, mem="128M", timeout=60,
               machine=",aia=aplic-imsic", suites=suites,
               qemu_args=("-dtb", f"build/aia_{edit}.dtb", *blk_args("aia_dtb", "pci")),
               bootargs="vblk.test=rw",
               prepare=hooks(lambda build, edit=edit: aiadtb.make(
                   build / f"aia_{edit}.dtb", 2, "128M", edit), blk_prepare("aia_dtb")),
               post_check=console_check(f"aia_dtb_{edit.replace('-', '')}",
                                        aiadtb.MESSAGES[edit], want),
               # the UART without its interrupt (it polls); the PCI disk
               # without any (refused)
               allow=(("init", "<boot>"), ("virtio", "<boot>")))
          for edit, suites, want in (
              ("imsic-files", ("timers",), "  disks: none"),
              ("aplic-msi", ("virtio_blk_read",), "MSI-X, 3 vectors (IMSIC identities"))],
    ]


BOOTS = [
    # QEMU's default riscv64 CPU has Sstc: the tick through stimecmp
    Boot("core", smp=4, mem="256M", suites=CORE_SUITES + ("riscv_timer",),
         bootargs="riscv.timer=sstc", post_check=overflow_check("core")),
    Boot("printk", smp=4, mem="128M", suites=("printk_lines",),
         post_check=printk_check("printk")),
    Boot("panic", smp=2, mem="128M", suites=("selftest_panic",),
         expect_panic="panic_is_reported", timeout=60),
    Boot("mem128", smp=2, mem="128M", suites=MM_SUITES),
    Boot("mem1g", smp=4, mem="1G", suites=MM_SUITES),
    # A 128 MiB file written and read back through a cache that must
    # reclaim: the page cache's memory-pressure case.
    Boot("pcache64m", smp=4, mem="64M", suites=PCACHE_SUITES),
    *[b for transport in ("modern", "legacy", "pci") for b in (
        blk_rw_boot(transport), blk_mq_boot(transport), blk_ro_boot(transport),
        blk_errors_boot(transport))],
    *[vfs_boot(block) for block in (4096, 2048, 1024)],
    # Writeback errors from a failing device: each open file hears of
    # each once (errseq); ext2 says what failed, as expected here.
    errseq_boot(),
    # The same suites on writable ext4 images, mounted as ext4: the same
    # files written, the same e2fsck and debugfs checks, and the ext4
    # suites the image's features call for: ext4_extent_write and
    # ext4_falloc with extents, ext4_csum_write (checksums, htree) with
    # metadata_csum. ext4w_1k, ext4w_2k and ext4w_4k carry `mke2fs -t
    # ext4 -O ^has_journal`'s full default set; ext4w_indirect_2k its files
    # in indirect blocks (^extent,^64bit; docs/ext4.md).
    *[ext2_boot(name, block, features)
      for name, block, features in (
          ("ext2_4k", 4096, ext2img.DEFAULT_FEATURES),
          ("ext2_2k", 2048, ext2img.DEFAULT_FEATURES),
          ("ext2_1k", 1024, ext2img.DEFAULT_FEATURES),
          ("ext2_none", 1024, "none"),
          ("ext4w_4k", 4096, ext2img.EXT4_DEFAULT),
          ("ext4w_2k", 2048, ext2img.EXT4_DEFAULT),
          ("ext4w_indirect_2k", 2048, ext2img.EXT4_INDIRECT),
          ("ext4w_1k", 1024, ext2img.EXT4_DEFAULT))],
    # Files bigger than memory through the real filesystem: reclaim
    # writes back and drops ext2's pages.
    Boot("fs_pressure", smp=4, mem="64M", suites=("fs_pressure",),
         timeout=600, qemu_args=ext2_args("fs_pressure"), bootargs="root=vda",
         prepare=pressure_prepare("fs_pressure"),
         post_check=pressure_check("fs_pressure")),
    *[race_boot(name, block, extra)
      for name, block, extra in (
          ("race", 4096, ""),
          ("race_legacy", 4096, " invalidate_lock=off"),
          ("race_2k", 2048, ""),
          ("race_2k_legacy", 2048, " invalidate_lock=off"),
          ("race_1k", 1024, ""),
          ("race_1k_legacy", 1024, " invalidate_lock=off"))],
    *[pcidtb_boot(edit, (suite,))
      for edit, suite in (("ranges", "pci_enum"), ("bus-range", "virtio_pci_caps"))],
    race_pci_boot("race_pci"),
    # The race reproducers on a writable ext4 (extent trees, the default
    # `mke2fs -t ext4 -O ^has_journal` features), fixed and legacy, at 1 KiB
    # blocks (a page of four: race_partial, race_enum_partial).
    *[race_boot(name, block, extra, fs="ext4", features=ext2img.EXT4_DEFAULT)
      for name, block, extra in (
          ("race_ext4_1k", 1024, ""),
          ("race_ext4_1k_legacy", 1024, " invalidate_lock=off"))],
    # ext4 images (mke2fs -t ext4, a clean journal): read-only, read back
    # through extent trees; the damaged ones refused (docs/ext4.md).
    *[ext4_boot(name, block)
      for name, block in (("ext4_1k", 1024), ("ext4_2k", 2048), ("ext4_4k", 4096))],
    *[ext2_bad_boot(kind) for kind in mkbadimg.KINDS],
    prod_boot("prod"),
    *aarch64_boots(),
    *msi_boots(),
    *aia_boots(),
]
