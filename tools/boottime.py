#!/usr/bin/env python3
"""tools/boottime.py: how long whole takes to reach its shell, by the
guest's clock and by the host's (tools/run --time).

    python3 tools/boottime.py QEMU-COMMAND...

QEMU-COMMAND boots whole with the shell command READY_CMD (tools/run
--time builds it: every board option of tools/run applies). Each console
line is passed on to stdout as it comes; at the end one line:

    boottime: guest 312.5 ms (kernel 222.3 ms), host 1490 ms to the shell (exit 0)

guest: the `boot` benchmark (app/bench_io.c): the time counter (riscv64
rdtime, aarch64 CNTVCT) when the shell started, counted from the
machine's start, so the firmware's time (OpenSBI on riscv64) is in it.
kernel: the printk time of the banner's last line ("whole: N harts,"),
counted from the kernel's time 0 (kmain, once it has read the device
tree): the part of the guest's time that is the kernel's init.
host: wall time from starting QEMU to the console line "@@ ready", the
shell's first command - the moment tools/bench.py's `boot`/`host_ms`
takes too. Exit status QEMU's; 1 as well if either figure is missing
(the boot did not reach the shell; the console says why).
"""

import json
import re
import subprocess
import sys
import time

READY = "@@ ready"
READY_CMD = f"echo {READY}; bench boot"
BANNER = re.compile(r"^\[\s*(\d+\.\d+)\] whole: \d+ harts,")


def guest_ms(line):
    """The guest's boot time in ms if @line is the `boot` benchmark's
    JSON object, else None."""
    start = line.find('{"bench": "boot"')
    if start < 0:
        return None
    try:
        figure = json.loads(line[start:])
    except json.JSONDecodeError:
        return None
    if figure.get("metric") != "guest_ms" or "median" not in figure:
        return None
    return float(figure["median"])


def measure(lines, t0, clock=time.monotonic):
    """Read console @lines (an iterator), passing each to stdout; return
    (guest ms, kernel ms, host ms to READY), each None if not seen, the
    host's counted from @t0 (QEMU's start) on @clock."""
    guest = kernel = host = None
    for line in lines:
        sys.stdout.write(line)
        if host is None and line.rstrip("\r\n") == READY:
            host = (clock() - t0) * 1000
        if guest is None:
            guest = guest_ms(line)
        banner = BANNER.match(line)
        if banner and kernel is None:
            kernel = float(banner[1]) * 1000
    return guest, kernel, host


def summary(guest, kernel, host, status):
    missing = [n for n, v in (("the guest's", guest), ("the kernel's", kernel),
                              ("the host's", host)) if v is None]
    if missing:
        return f"boottime: no figure ({' and '.join(missing)} missing): the " \
               f"shell never ran (exit {status})"
    return f"boottime: guest {guest:.1f} ms (kernel {kernel:.1f} ms), host " \
           f"{host:.0f} ms to the shell (exit {status})"


def main(argv):
    if len(argv) < 2:
        print("usage: tools/boottime.py QEMU-COMMAND...", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    proc = subprocess.Popen(argv[1:], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, errors="replace")
    figures = measure(proc.stdout, t0)
    status = proc.wait()
    print(summary(*figures, status))
    return status or (1 if None in figures else 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
