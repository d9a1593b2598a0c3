"""tools/qemu_smp.py: the -smp value every tool gives QEMU.

QEMU before 8.1 (Debian 12 has 7.2) drops the guest's memory barriers under
TCG when the machine has one possible CPU, although virtio-blk completions
are written by another host thread; a driver's smp_mb between writing
used_event (or avail->idx) and reading the other side's index then does
nothing, and an interrupt (or a notification) is lost. A second possible
CPU keeps the barriers: -smp 1 becomes -smp 1,maxcpus=2 (the second hart
is never started). tools/irqloss.py measures the difference.
"""


def smp_arg(n):
    n = int(n)
    return f"{n},maxcpus=2" if n < 2 else str(n)
