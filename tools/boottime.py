#!/usr/bin/env python3
"""tools/boottime.py: how long whole takes to reach its shell, by the
guest's clock and by the host's (tools/run --time).

    python3 tools/boottime.py QEMU-COMMAND...

QEMU-COMMAND boots whole with the shell command READY_CMD (tools/run
--time builds it: every board option of tools/run applies). Each console
line is passed on to stdout as it comes; at the end one line:

    boottime: guest 312.5 ms, host 1490 ms to the shell (exit 0)

guest: the `boot` benchmark (app/bench_io.c): the time counter (riscv64
rdtime, aarch64 CNTVCT) when the shell started, counted from the
machine's start, so the firmware's time (OpenSBI on riscv64) is in it.
host: wall time from starting QEMU to the console line "@@ ready", the
shell's first command - the moment tools/bench.py's `boot`/`host_ms`
takes too. Exit status QEMU's; 1 as well if either figure is missing
(the boot did not reach the shell; the console says why).
"""

import json
import subprocess
import sys
import time

READY = "@@ ready"
READY_CMD = f"echo {READY}; bench boot"


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
    (guest ms or None, host ms to READY or None), the host's counted
    from @t0 (QEMU's start) on @clock."""
    guest = host = None
    for line in lines:
        sys.stdout.write(line)
        if host is None and line.rstrip("\r\n") == READY:
            host = (clock() - t0) * 1000
        if guest is None:
            guest = guest_ms(line)
    return guest, host


def summary(guest, host, status):
    if guest is None or host is None:
        missing = " and ".join(n for n, v in (("the guest's", guest),
                                                ("the host's", host)) if v is None)
        return f"boottime: no figure ({missing} missing): the shell never ran " \
               f"(exit {status})"
    return f"boottime: guest {guest:.1f} ms, host {host:.0f} ms to the shell " \
           f"(exit {status})"


def main(argv):
    if len(argv) < 2:
        print("usage: tools/boottime.py QEMU-COMMAND...", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    proc = subprocess.Popen(argv[1:], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, errors="replace")
    guest, host = measure(proc.stdout, t0)
    status = proc.wait()
    print(summary(guest, host, status))
    return status or (1 if guest is None or host is None else 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
