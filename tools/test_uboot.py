#!/usr/bin/env python3
"""tools/test_uboot.py: whole boots through U-Boot as a board would.

`tools/run --uboot` hands QEMU Debian's S-mode U-Boot instead of the kernel;
U-Boot's distro boot must find /extlinux/extlinux.conf on the virtio disk,
load /boot/Image, start it with booti and its own device tree, and whole
must come up on that tree with the arguments extlinux.conf carried, run the
commands, and leave a disk e2fsck finds clean. The Image header booti reads
is checked against the linked kernel's symbols.
"""

import os
import re
import struct
import select
import subprocess
import tempfile
import time
import unittest
from pathlib import Path

import ext2img
import kconsole
import wholerun

ROOT = Path(__file__).resolve().parent.parent


def kernel_symbol(name, nm="riscv64-unknown-elf-nm", elf=ROOT / "build" / "whole.elf"):
    out = subprocess.run([nm, str(elf)],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        addr, _, sym = line.split()
        if sym == name:
            return int(addr, 16)
    raise AssertionError(f"no symbol {name}")


class UBootTest(unittest.TestCase):
    def test_image_header_is_what_booti_reads(self):
        head = (ROOT / "build" / "Image").read_bytes()[:64]
        (code0, _, text_offset, image_size, flags, version, _, _, magic,
         magic2, _) = struct.unpack("<IIQQQIIQ8sII", head)
        self.assertEqual(magic2, 0x05435352)          # "RSC\x05"
        self.assertEqual(magic, b"RISCV\0\0\0")
        self.assertEqual(version, 2)
        self.assertEqual(flags, 0)                     # little-endian
        start, end = kernel_symbol("__kernel_start"), kernel_symbol("__kernel_end")
        self.assertEqual(start, 0x80000000 + text_offset)  # where booti puts it
        self.assertEqual(image_size, end - start)      # bss included
        self.assertEqual(code0 & 0x7f, 0x6f)           # jal: jumps over the header
        self.assertEqual(head, (ROOT / "build" / "Image").read_bytes()[:64])

    def test_aarch64_image_header_is_what_booti_reads(self):
        """The arm64 Image header (kernel/arch/aarch64/entry.S)."""
        image = ROOT / "build" / "aarch64" / "Image"
        head = image.read_bytes()[:64]
        (code0, _, text_offset, image_size, flags, _, _, _, magic, _) = \
            struct.unpack("<IIQQQQQQII", head)
        self.assertEqual(magic, 0x644d5241)            # "ARM\x64"
        self.assertEqual(flags, 2)                     # little-endian, 4 KiB pages
        sym = lambda n: kernel_symbol(n, "aarch64-linux-gnu-nm",
                                      ROOT / "build" / "aarch64" / "whole.elf")
        start, end = sym("__kernel_start"), sym("__kernel_end")
        self.assertEqual(start, 0x40000000 + text_offset)  # virt's RAM + offset
        self.assertEqual(image_size, end - start)
        self.assertEqual(code0 >> 26, 0b000101)        # b: jumps over the header

    def test_aarch64_boots_through_uboot(self):
        """Debian's qemu_arm64 U-Boot as QEMU's -bios starts the arm64 Image
        with booti, on U-Boot's device tree, with extlinux.conf's arguments."""
        with tempfile.TemporaryDirectory() as tmp:
            disk = Path(tmp) / "board.img"
            ext2img.make_image(disk, "64M", ROOT / "tools" / "disk-skel")
            res = wholerun.run(
                ["--arch", "aarch64", "--uboot", "--disk", disk, "--smp", "2", "--mem",
                 "256M", "-c", "echo arm64-booted; ls /boot"], timeout=240)
            out = res.stdout.replace("\r", "")
            self.assertEqual(res.returncode, 0, out[-2000:])
            for seen in ("U-Boot 20", "Found /extlinux/extlinux.conf",
                         "Retrieving file: /boot/Image", "Starting kernel ...",
                         "), aarch64", "  root: vda (ext2), 4096-byte blocks, read-write"):
                self.assertIn(seen, out)
            after = out.split("Starting kernel ...", 1)[1]
            lines = [l for l in after.split("\n") if l and not l.startswith("[")]
            self.assertEqual(lines[-2:], ["arm64-booted", "Image"], after[-1500:])
            ext2img.check_image(disk)

    def test_boots_through_uboot_from_the_virtio_disk(self):
        with tempfile.TemporaryDirectory() as tmp:
            disk = Path(tmp) / "board.img"
            ext2img.make_image(disk, "64M", ROOT / "tools" / "disk-skel")
            res = wholerun.run(
                ["--uboot", "--disk", disk, "--smp", "2", "--mem", "256M", "-c",
                 'io -f -c "pwrite -S 0x75 0 5" /proof; cat /proof; echo; ls /boot'],
                timeout=240)
            out = res.stdout.replace("\r", "")
            self.assertEqual(res.returncode, 0, out[-2000:])
            for seen in ("U-Boot 20", "Found /extlinux/extlinux.conf",
                         "Retrieving file: /boot/Image",
                         "Moving Image from", "Starting kernel ...",
                         "  root: vda (ext2), 4096-byte blocks, read-write"):
                self.assertIn(seen, out)
            # whole ran on U-Boot's device tree, with extlinux.conf's arguments.
            self.assertRegex(out, r"Booting using the fdt blob at 0x[0-9a-f]+")
            self.assertRegex(out, r'whole: 2 harts, 256 MiB RAM, bootargs "-- io -f')
            after = out.split("Starting kernel ...", 1)[1]
            lines = [l for l in after.split("\n") if l and not l.startswith("[")]
            self.assertEqual(lines[-2:], ["uuuuu", "Image"], after[-1500:])
            self.assertRegex(lines[0], r"^wrote 5/5 bytes at offset 0")
            ext2img.check_image(disk)
            dumped = subprocess.run(["debugfs", "-R", "cat /proof", str(disk)],
                                    env=ext2img._ENV, capture_output=True, text=True)
            self.assertEqual(dumped.stdout, "uuuuu")

    def test_interactive_boot_without_arguments(self):
        """./tools/run --uboot with no -c: no kernel arguments, so no
        append line (U-Boot's parser refused an empty one and crashed);
        the shell starts and poweroff ends the run."""
        with tempfile.TemporaryDirectory() as tmp:
            disk = Path(tmp) / "board.img"
            ext2img.make_image(disk, "64M", ROOT / "tools" / "disk-skel")
            proc = subprocess.Popen(
                [str(ROOT / "tools" / "run"), "--uboot", "--disk", str(disk),
                 "--smp", "2", "--mem", "256M"], cwd=ROOT,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT)
            seen, deadline = b"", time.monotonic() + 240
            try:
                # The shell's prompt first: what is typed before it is lost.
                while b"whole> " not in seen and time.monotonic() < deadline:
                    if select.select([proc.stdout], [], [], 1)[0]:
                        chunk = os.read(proc.stdout.fileno(), 4096)
                        if not chunk:
                            break
                        seen += chunk
                rest = proc.communicate(b"poweroff\n", timeout=60)[0]
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
            out = (seen + rest).decode(errors="replace")
            out = out.replace("\r", "")
            kconsole.check(out)
            self.assertEqual(proc.returncode, 0, out[-2000:])
            self.assertNotIn("Expected string literal", out)
            self.assertIn("Starting kernel ...", out)
            self.assertIn('bootargs ""', out)
            conf = subprocess.run(
                ["debugfs", "-R", "cat /extlinux/extlinux.conf", str(disk)],
                env=ext2img._ENV, capture_output=True, text=True).stdout
            self.assertNotIn("append", conf)

    def test_uboot_that_never_starts_whole_fails_the_run(self):
        """U-Boot in 64 MiB faults while it loads the files and resets;
        QEMU's -no-reboot then exits 0. tools/run must not: whole's banner
        never came, so the status is 1 and the reason is printed."""
        with tempfile.TemporaryDirectory() as tmp:
            disk = Path(tmp) / "board.img"
            ext2img.make_image(disk, "64M", ROOT / "tools" / "disk-skel")
            res = subprocess.run(
                [str(ROOT / "tools" / "run"), "--uboot", "--disk", str(disk),
                 "--smp", "2", "--mem", "64M", "-c", "echo never"], cwd=ROOT,
                stdin=subprocess.DEVNULL, capture_output=True, text=True,
                timeout=300)
            out = res.stdout.replace("\r", "") + res.stderr
            self.assertIn("resetting", out)
            self.assertNotIn("never\n", res.stdout.replace("\r", ""))
            self.assertEqual(res.returncode, 1, out[-2000:])
            self.assertIn("run: U-Boot did not start whole", res.stderr)


if __name__ == "__main__":
    unittest.main()
