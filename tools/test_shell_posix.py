#!/usr/bin/env python3
"""Host tests of the shell's cd, pwd, ln, readlink, df, touch, chmod and
ls -l against outside oracles.

- ls -l: GNU ls -ln (LC_ALL=C, TZ=UTC) on the host folder that mke2fs -d
  copied into the image, line for line; "total" against the blocks debugfs
  counts.
- cd, pwd, ln, readlink, chmod, touch: the same operations done on a Linux
  folder with Linux's calls (and GNU chmod for the modes); the image's
  tree afterwards (debugfs rdump: types, modes, link targets, contents)
  must be the Linux one, and each failing command prints the strerror of
  the errno Linux gave.
- df: the numbers dumpe2fs gives for the image afterwards, with f_blocks
  counted as Linux's ext2 statfs does (stated in fs/ext2/statfs.c).

Every image must pass e2fsck -fn strictly (tools/ext2img.py's check).
"""
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ext2img  # noqa: E402
from test_fs_shell import boot, debugfs, sections  # noqa: E402

OLD = 1577934245  # 2020-01-02 03:04:05 UTC: "Jan  2  2020" for both clocks
C_UTC = dict(os.environ, LC_ALL="C", TZ="UTC")


def make_tree(root: Path):
    """The ls folder: files of several sizes and modes, a hard link, fast
    and slow symbolic links, a dangling one; all with old times."""
    d = root / "lsdir"
    d.mkdir(parents=True)
    files = {"a.txt": (b"a\n", 0o644), "big": (b"x" * 123456, 0o600),
             "run": (b"#!/bin/sh\n", 0o4755), "sticky": (b"", 0o1770),
             "sgid": (b"s", 0o2710)}
    for name, (data, mode) in files.items():
        (d / name).write_bytes(data)
        os.chmod(d / name, mode)
    os.link(d / "a.txt", d / "hard")
    os.symlink("a.txt", d / "fast.lnk")
    os.symlink("../" * 30 + "lsdir/big", d / "slow.lnk")
    os.symlink("nowhere", d / "dangling")
    for p in d.iterdir():
        os.utime(p, (OLD, OLD), follow_symlinks=False)
    (root / "file").write_bytes(b"f\n")
    (root / "dir" / "sub").mkdir(parents=True)


def rdump_tree(img, scratch: Path):
    """{path: (kind, mode, data or target)} of the image's /work: debugfs
    rdump for the tree, contents and link targets, debugfs stat for the
    modes (rdump drops a directory's sticky bit)."""
    if scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir()
    debugfs(img, f"rdump /work {scratch}")
    tree = host_tree(scratch / "work")
    for rel, (kind, mode, data) in tree.items():
        if kind != "link":
            out, _ = debugfs(img, f"stat /work/{rel}")
            mode = int(re.search(r"Mode: +(\d+)", out).group(1), 8)
            tree[rel] = (kind, mode, data)
    return tree


def host_tree(root: Path):
    tree = {}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            p = Path(dirpath, name)
            rel = str(p.relative_to(root))
            st = p.lstat()
            if stat.S_ISLNK(st.st_mode):
                tree[rel] = ("link", None, os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                tree[rel] = ("dir", stat.S_IMODE(st.st_mode), None)
            else:
                tree[rel] = ("file", stat.S_IMODE(st.st_mode), p.read_bytes())
    return tree


def dumpe2fs(img):
    run = subprocess.run(["dumpe2fs", "-h", str(img)], env=ext2img._ENV,
                         capture_output=True, text=True, check=True)
    return {k.strip(): v.strip() for k, v in
            (line.split(":", 1) for line in run.stdout.splitlines() if ":" in line)}


def linux_statfs_blocks(h):
    """f_blocks as Linux's ext2_statfs counts it: the block count less the
    first data block, each group's bitmaps and inode table, and the
    superblock and descriptors of the groups that hold a copy."""
    bs, count = int(h["Block size"]), int(h["Block count"])
    first, per = int(h["First block"]), int(h["Blocks per group"])
    groups = -(-(count - first) // per)
    desc = -(-groups * 32 // bs)
    sparse = "sparse_super" in h.get("Filesystem features", "")

    def has_super(g):
        if not sparse or g <= 1:
            return True
        for p in (3, 5, 7):
            n = p
            while n < g:
                n *= p
            if n == g:
                return True
        return False
    overhead = first + sum(1 + desc for g in range(groups) if has_super(g))
    overhead += groups * (2 + int(h["Inode blocks per group"]))
    return count - overhead


class LsMatchesGnu(unittest.TestCase):
    def test_ls_l(self):
        tmp = Path(tempfile.mkdtemp(prefix="shell-ls-"))
        self.addCleanup(shutil.rmtree, tmp)
        skel, img = tmp / "skel", tmp / "img"
        make_tree(skel)
        ext2img.make_image(img, "8M", skel=skel, block=1024)
        operands = ["lsdir/slow.lnk", "lsdir/run", "lsdir/dangling"]
        status, lines = boot(img, "echo @@dir; ls -l /lsdir; echo @@one; "
                             f"cd /; ls -l {' '.join(operands)}; echo @@end")
        self.assertEqual(status, 0, lines)
        got = sections(lines)
        gnu = subprocess.run(["ls", "-ln", str(skel / "lsdir")], env=C_UTC,
                             capture_output=True, text=True, check=True)
        want = gnu.stdout.splitlines()
        # "total": 1 KiB blocks of the image's inodes, not the host's.
        blocks = 0
        for name in os.listdir(skel / "lsdir"):
            out, _ = debugfs(img, f"stat /lsdir/{name}")
            blocks += int(re.search(r"Blockcount: (\d+)", out).group(1))
        self.assertEqual(got["dir"][0], f"total {-(-blocks // 2)}")
        self.assertEqual(got["dir"][1:], want[1:])
        self.assertEqual(len(want), 10)
        gnu = subprocess.run(["ls", "-ln", *operands], env=C_UTC, cwd=skel,
                             capture_output=True, text=True, check=True)
        self.assertEqual(got["one"], gnu.stdout.splitlines())
        ext2img.check_image(img)


class PathCommandsMatchLinux(unittest.TestCase):
    def linux(self, root: Path, cmd, args):
        """Do @cmd with Linux's calls (cwd-relative paths under @root);
        return the errno or 0."""
        try:
            if cmd == "cd":
                target = args[0] if args else "/"
                new = Path(os.path.normpath(
                    root / target.lstrip("/") if target.startswith("/")
                    else Path(os.getcwd()) / target))
                os.chdir(new)
            elif cmd == "ln":
                soft = args[0] == "-s"
                target, name = args[1:] if soft else args
                name = self.at(root, name)
                if os.path.isdir(name):
                    name = os.path.join(name, os.path.basename(target))
                if soft:
                    os.symlink(target, name)
                else:
                    os.link(self.at(root, target), name, follow_symlinks=False)
            elif cmd == "readlink":
                os.readlink(self.at(root, args[0]))
            elif cmd == "touch":
                with open(self.at(root, args[0]), "ab"):
                    pass
            elif cmd == "chmod":
                os.stat(self.at(root, args[1]))
                run = subprocess.run(
                    ["sh", "-c", 'umask 0; chmod "$@"', "chmod", *args[:1],
                     self.at(root, args[1])], capture_output=True, text=True,
                    env=C_UTC)
                if run.returncode:
                    return run.stderr
            elif cmd == "mkdir":
                os.mkdir(self.at(root, args[0]), 0o755)
        except OSError as e:
            return e.errno
        return 0

    @staticmethod
    def at(root: Path, path):
        return str(root / path.lstrip("/")) if path.startswith("/") else path

    SCRIPT = [
        ("mkdir", "/work"), ("cd", "/work"), ("pwd",), ("mkdir", "d"),
        ("cd", "d"), ("pwd",), ("touch", "t1"), ("cd", ".."), ("pwd",),
        ("touch", "d/t2"), ("ln", "-s", "d/t2", "l2"), ("ln", "-s", "d", "dl"),
        ("ln", "-s", "../file", "up"), ("ln", "-s", "/" + "p" * 200, "slow"),
        ("ln", "d/t1", "hard"), ("ln", "-s", "t2", "d"),
        ("chmod", "640", "d/t1"), ("chmod", "u+x,g-r,o=rw", "d/t2"),
        ("chmod", "a-x,u+s", "hard"), ("chmod", "+t", "d"),
        ("chmod", "go=", "l2"), ("cd", "dl"), ("pwd",), ("cd", "/work"),
        ("readlink", "l2"), ("readlink", "slow"),
        # Each of these fails on Linux.
        ("cd", "/file"), ("cd", "/nope"), ("ln", "-s", "x", "l2"),
        ("ln", "nope", "n2"), ("ln", "d", "dir-hard"), ("readlink", "d/t1"),
        ("readlink", "nope"), ("touch", "nope/x"), ("chmod", "600", "nope"),
        ("chmod", "xyz", "d/t1"),
    ]

    def test_script(self):
        tmp = Path(tempfile.mkdtemp(prefix="shell-path-"))
        self.addCleanup(shutil.rmtree, tmp)
        skel, host, img = tmp / "skel", tmp / "host", tmp / "img"
        make_tree(skel)
        shutil.copytree(skel, host, symlinks=True)
        ext2img.make_image(img, "8M", skel=skel, block=1024)

        here = os.getcwd()
        self.addCleanup(os.chdir, here)
        self.addCleanup(os.umask, os.umask(0o022))  # touch and mkdir: 0644, 0755
        os.chdir(host)
        script, want = [], []
        for cmd, *args in self.SCRIPT:
            script.append(" ".join([cmd, *args]))
            if cmd == "pwd":
                want.append("/" + os.path.relpath(os.getcwd(), host))
                continue
            if cmd == "readlink":
                path = self.at(host, args[0])
                if os.path.islink(path):
                    want.append(os.readlink(path))
            name = args[-1] if args else "/"
            if cmd == "ln" and os.path.isdir(self.at(host, name)):
                name = f"{name}/{os.path.basename(args[-2])}"
            err = self.linux(host, cmd, args)
            if isinstance(err, str):  # GNU chmod's own complaint
                want.append(err.splitlines()[0])
            elif err:
                want.append(f"{cmd}: {name}: {os.strerror(err)}")
        os.chdir(here)
        script += ["echo @@df", "df", "echo @@end"]
        status, lines = boot(img, "; ".join(script))
        self.assertEqual(status, 0, lines)
        head = lines[:lines.index("@@df")]
        self.assertEqual(head, want)
        ext2img.check_image(img)
        self.assertEqual(rdump_tree(img, tmp / "out"), host_tree(host / "work"))

        h = dumpe2fs(img)
        k = int(h["Block size"]) // 1024
        size = linux_statfs_blocks(h) * k
        free = int(h["Free blocks"]) * k
        df = sections(lines)["df"]
        self.assertEqual(df[0].split(), ["Filesystem", "1K-blocks", "Used",
                                         "Available", "Use%", "Mounted", "on"])
        used = size - free
        pct = -(-used * 100 // (used + free))
        self.assertEqual(df[1].split(), ["vda", str(size), str(used),
                                         str(free), f"{pct}%", "/"])


if __name__ == "__main__":
    unittest.main()
