#!/usr/bin/env python3
"""tools/test_fs_tree.py: the shell's tree commands against Linux.

ls, cat, mkdir, mv, rm, rmdir and stat, run as one script on a fresh image:
the tree left on the image (debugfs) must be the one the same calls leave
on a Linux directory, and each failing command must print the strerror of
the errno Linux gives for the same call. Helpers: tools/test_fs_shell.py.
"""
import errno
import os
import re
import shutil
import tempfile
import time
import unittest
from pathlib import Path

import ext2img
from test_fs_shell import boot, debugfs, dump, sections, SIX_MONTHS


class FileCommandsMatchLinux(unittest.TestCase):
    """A script of file commands, replayed with the same calls on a Linux
    directory: the image's tree must be the Linux one and each failing
    command must print the strerror of the errno Linux returned."""

    # (shell command, the call Linux makes for it, paths)
    SCRIPT = [
        ("mkdir", "/new"), ("mkdir", "/new/sub"), ("mkdir", "/old/deeper"),
        ("mv", "/hello.txt", "/new/greeting"), ("mv", "/old", "/renamed"),
        ("rm", "/renamed/a.txt"), ("rmdir", "/renamed/deeper"),
        ("mv", "/keep.txt", "/new/sub/keep.txt"), ("mv", "/new/sub/keep.txt", "/keep.txt"),
        ("mv", "/renamed/b.txt", "/new/b.txt"),
        ("rmdir", "/renamed"),
        ("mkdir", "/gone"), ("mv", "/gone", "/new/sub/gone"), ("rmdir", "/new/sub/gone"),
        # Each of these fails on Linux.
        ("cat", "/nonexistent"), ("cat", "/new"), ("cat", "/keep.txt/x"),
        ("mkdir", "/new"), ("mkdir", "/nope/x"), ("rmdir", "/new"),
        ("rmdir", "/keep.txt"), ("rm", "/new"), ("rm", "/nope"),
        ("mv", "/nope", "/x"), ("mv", "/new", "/new/sub/x"),
        ("mv", "/keep.txt", "/new"), ("mv", "/new", "/keep.txt"),
        ("ls", "/nope"), ("stat", "/nope"),
    ]
    SKEL = {"hello.txt": b"hello world\n", "keep.txt": b"keep me\n" * 700,
            "old/a.txt": b"a\n", "old/b.txt": b"bee\n" * 5}

    @staticmethod
    def linux(root, cmd, args):
        """Do what @cmd does with Linux's calls under @root; return the errno or 0."""
        p = [str(root) + a for a in args]
        try:
            if cmd == "mkdir":
                os.mkdir(p[0], 0o755)
            elif cmd == "rmdir":
                os.rmdir(p[0])
            elif cmd == "rm":
                os.unlink(p[0])
            elif cmd == "mv":
                os.rename(p[0], p[1])
            elif cmd in ("ls", "stat"):
                os.stat(p[0])
            elif cmd == "cat":
                with open(p[0], "rb") as f:
                    f.read()
        except OSError as e:
            return e.errno
        return 0

    def image_tree(self, img, scratch, path="/"):
        """{relative path: None for a directory, bytes for a file}, via debugfs."""
        out, _ = debugfs(img, f"ls -p {path}")
        tree = {}
        for line in out.splitlines():
            f = line.strip().split("/")
            if len(f) < 6 or f[5] in (".", "..", "lost+found"):
                continue
            child = path.rstrip("/") + "/" + f[5]
            if int(f[2], 8) & 0o170000 == 0o040000:
                tree[child] = None
                tree.update(self.image_tree(img, scratch, child))
            else:
                tree[child] = dump(img, child, scratch)
        return tree

    @staticmethod
    def host_tree(root):
        tree = {}
        for dirpath, dirs, files in os.walk(root):
            rel = "/" + os.path.relpath(dirpath, root)
            rel = "" if rel == "/." else rel
            for d in dirs:
                tree[f"{rel}/{d}"] = None
            for f in files:
                tree[f"{rel}/{f}"] = Path(dirpath, f).read_bytes()
        return tree

    def test_script(self):
        tmp = Path(tempfile.mkdtemp(prefix="fs-shell-cmds-"))
        self.addCleanup(shutil.rmtree, tmp)
        skel, host, img = tmp / "skel", tmp / "host", tmp / "img"
        for name, data in self.SKEL.items():
            (skel / name).parent.mkdir(parents=True, exist_ok=True)
            (skel / name).write_bytes(data)
        shutil.copytree(skel, host)
        ext2img.make_image(img, "8M", skel=skel, block=1024)

        script, want = [], []
        for cmd, *args in self.SCRIPT:
            err = self.linux(host, cmd, args)
            script.append(f"{cmd} {' '.join(args)}")
            if err:
                want.append(f"{cmd}: {args[0]}: {os.strerror(err)}")
        # Reading commands after the changes; the last one fails, so -c
        # exits non-zero (cat's status).
        script += ["echo @@cat", "cat /new/greeting /new/b.txt",
                   "echo @@ls", "ls /", "echo @@ls-l", "ls -l /new",
                   "echo @@stat", "stat /new/greeting /new", "echo @@end",
                   "cat /nonexistent"]
        status, lines = boot(img, "; ".join(script))
        self.assertNotEqual(status, 0)
        self.assertEqual(status, 1)
        head = lines[:lines.index("@@cat")] if "@@cat" in lines else lines
        self.assertEqual(head, want)
        got = sections(lines)
        self.assertEqual(got["end"], ["cat: /nonexistent: " + os.strerror(errno.ENOENT)])
        self.assertEqual("\n".join(got["cat"]) + "\n",
                         (host / "new/greeting").read_text() + (host / "new/b.txt").read_text())
        self.assertEqual(got["ls"], sorted(os.listdir(host) + ["lost+found"]))

        ext2img.check_image(img)
        self.assertEqual(self.image_tree(img, tmp / "out"), self.host_tree(host))

        # ls -l and stat against debugfs's view of the same inodes. ls -l
        # is GNU ls -ln's format (app/shell_ls.c): an mtime in the six months
        # before the listing shows the time, any other the year. The guest's
        # clock is the host's (Goldfish RTC), so everything here is recent.
        entries = [(name, self.debugfs_stat(img, f"/new/{name}"))
                   for name in sorted(os.listdir(host / "new"))]
        width = {k: max(len(str(st[k])) for _, st in entries)
                 for k in ("links", "uid", "gid", "size")}
        ls_l = [f"total {-(-sum(st['blocks'] for _, st in entries) // 2)}"]
        for name, st in entries:
            recent = time.time() - SIX_MONTHS < st["mtime"] <= time.time()
            fmt = "%b %e %H:%M" if recent else "%b %e  %Y"
            date = time.strftime(fmt, time.gmtime(st["mtime"]))
            ls_l.append(" ".join([st["mode"]] + [
                f"{st[k]:>{width[k]}}" for k in ("links", "uid", "gid", "size")]
                + [date, name]))
        self.assertEqual(got["ls-l"], ls_l)
        stat_want = []
        for path, kind in (("/new/greeting", "regular file"), ("/new", "directory")):
            st = self.debugfs_stat(img, path)
            stat_want += [f"  File: {path}",
                          f"  Size: {st['size']}\tBlocks: {st['blocks']}\tIO Block: 1024\t{kind}",
                          f"Inode: {st['ino']}\tLinks: {st['links']}",
                          f"Access: ({st['perm']:04o}/{st['mode']})  Uid: {st['uid']}  Gid: {st['gid']}"]
        self.assertEqual(got["stat"], stat_want)

    @staticmethod
    def debugfs_stat(img, path):
        out, _ = debugfs(img, f"stat {path}")
        f = dict(ino=int(re.search(r"Inode: (\d+)", out).group(1)),
                 type=re.search(r"Type: (\w+)", out).group(1),
                 perm=int(re.search(r"Mode: +(\d+)", out).group(1), 8),
                 uid=int(re.search(r"User: +(\d+)", out).group(1)),
                 gid=int(re.search(r"Group: +(\d+)", out).group(1)),
                 size=int(re.search(r"Size: (\d+)", out).group(1)),
                 links=int(re.search(r"Links: (\d+)", out).group(1)),
                 blocks=int(re.search(r"Blockcount: (\d+)", out).group(1)),
                 mtime=int(re.search(r"mtime: (0x[0-9a-f]+)", out).group(1), 16))
        bits = "rwxrwxrwx"
        f["mode"] = ("d" if f["type"] == "directory" else "-") + "".join(
            bits[i] if f["perm"] & (0o400 >> i) else "-" for i in range(9))
        return f



if __name__ == "__main__":
    unittest.main()
