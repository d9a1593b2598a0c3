#!/usr/bin/env python3
"""Emit the kernel symbol table for backtraces as assembly.

Usage: ksyms.py KERNEL.elf > ksyms.S
Reads the function symbols of the first link with riscv64-unknown-elf-nm and
writes ksyms_count, a sorted address array (ksyms_addrs) and a table of
offsets into a NUL-separated name string (ksyms_names).
"""
import subprocess
import sys


def main():
    out = subprocess.run(["riscv64-unknown-elf-nm", "-n", sys.argv[1]],
                         check=True, capture_output=True, text=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW" and not parts[2].startswith("."):
            syms.append((int(parts[0], 16), parts[2]))
    syms.sort()
    print('\t.section .ksyms, "a"\n\t.balign 8')
    print(f"\t.globl ksyms_count\nksyms_count:\n\t.quad {len(syms)}")
    print("\t.globl ksyms_addrs\nksyms_addrs:")
    for addr, _ in syms:
        print(f"\t.quad {addr:#x}")
    print("\t.globl ksyms_offsets\nksyms_offsets:")
    off = 0
    for _, name in syms:
        print(f"\t.long {off}")
        off += len(name) + 1
    print("\t.globl ksyms_names\nksyms_names:")
    for _, name in syms:
        print(f'\t.asciz "{name}"')


if __name__ == "__main__":
    main()
