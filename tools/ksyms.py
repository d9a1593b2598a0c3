#!/usr/bin/env python3
"""Emit the kernel symbol table for backtraces as assembly.

Usage: ksyms.py [NM] KERNEL.elf > ksyms.S
Reads the function symbols of the first link with NM (the arch's nm, by
default riscv64-unknown-elf-nm) and
writes ksyms_count, a sorted address array (ksyms_addrs) and a table of
offsets into a NUL-separated name string (ksyms_names).
"""
import subprocess
import sys


def nm(elf, prog="riscv64-unknown-elf-nm"):
    """[(address, type letter, name)] of @elf's symbols, by address."""
    out = subprocess.run([prog, "-n", str(elf)],
                         check=True, capture_output=True, text=True).stdout
    return [(int(p[0], 16), p[1], p[2]) for p in map(str.split, out.splitlines())
            if len(p) == 3]


def functions(symbols):
    """The function symbols of nm(): [(address, name)], sorted."""
    return sorted((addr, name) for addr, kind, name in symbols
                  if kind in "tTwW" and not name.startswith("."))


def main():
    syms = functions(nm(*reversed(sys.argv[1:3])))
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
