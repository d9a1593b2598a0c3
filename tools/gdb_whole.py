"""tools/gdb_whole.py: gdb commands that read whole's own structures.

Loaded by tools/gdb into gdb-multiarch, attached to QEMU's gdb stub (each
hart is one gdb thread). The machine must be stopped; nothing is written.

    whole-tasks            every task: tid, name, state, hart, backtrace
    whole-pages INODE      the cached pages of a file, with their flags
    whole-locks [INODE]    who holds i_rwsem and invalidate_lock, who waits
                           (without INODE: every cached inode where one is
                           held or waited for)

INODE is an inode number of the root filesystem (found in the superblock's
list of cached inodes) or any expression that gives a `struct inode *`.

A task that is not running has its registers in task->ctx (saved by
arch_switch_context); its stack is walked by frame pointers (the kernel is
built with -fno-omit-frame-pointer: on riscv64 the return address sits at
fp-8 and the caller's fp at fp-16, ctx.s[0] is the fp; on aarch64 fp
points at the frame record, the caller's fp at fp and the return address
at fp+8, ctx.fp is the fp). The arch is told by struct task_context's
fields. A running task is unwound by gdb itself on its hart's thread
(QEMU's thread N is the CPU of index N-1: riscv64's hart id, aarch64's
MPIDR Aff0 on virt's first cluster).
"""

import re

import gdb

PAGE_FLAGS = ("locked", "uptodate", "dirty", "writeback", "error", "referenced",
              "lru", "readahead", "waiters", "lockdep")
PG_FIRST = 8          # enum pageflag in mm/filemap.h starts at PG_locked = 8
RADIX_SHIFT = 6       # mm/radix_tree.c
MAX_FRAMES = 32
LOCKDEP_MAX_HELD = 24  # kernel/lockdep.h


def value(expr):
    return gdb.parse_and_eval(expr)


def offset_of(struct, field):
    return int(value(f"(unsigned long)&((struct {struct} *)0)->{field}"))


def entries(head, struct, field):
    """The structs on the list_head @head, linked through @field."""
    off = offset_of(struct, field)
    ptype = gdb.lookup_type(f"struct {struct}").pointer()
    first = int(head.address)
    node = head["next"]
    seen = 0
    while int(node) != first and seen < 100000:
        yield gdb.Value(int(node) - off).cast(ptype)
        node = node["next"]
        seen += 1


def tasks():
    return list(entries(value("all_tasks"), "task", "all_node"))


def task_name(t):
    if int(t) == 0:
        return "-"
    return f"{t['name'].string()}({int(t['tid'])})"


def symbol(pc):
    """'function+off (file:line)' for a return address or pc."""
    block = None
    try:
        block = gdb.block_for_pc(pc)
    except RuntimeError:
        pass
    while block is not None and block.function is None:
        block = block.superblock
    if block is None:
        return f"0x{pc:x}"
    fn = block.function
    sal = gdb.find_pc_line(pc)
    where = f" ({sal.symtab.filename}:{sal.line})" if sal.symtab else ""
    return f"{fn.name}+0x{pc - block.start:x}{where}"


def read_u64(addr):
    return int(value(f"*(unsigned long *)0x{addr:x}"))


def is_aarch64():
    """aarch64's struct task_context has fp; riscv64's keeps it in s[0]."""
    ctx = gdb.lookup_type("struct task_context")
    return any(f.name == "fp" for f in ctx.fields())


def saved_fp(ctx):
    return int(ctx["fp"]) if is_aarch64() else int(ctx["s"][0])


def frame_walk(pc, fp, lo, hi):
    """Return addresses by frame pointers, starting at @pc, while @fp stays
    inside the stack [lo, hi)."""
    out = [pc]
    a64 = is_aarch64()
    while (lo <= fp < hi if a64 else lo < fp <= hi) and len(out) < MAX_FRAMES:
        try:
            if a64:  # the frame record {caller's fp, return address} at fp
                ra, fp = read_u64(fp + 8), read_u64(fp)
            else:
                ra, fp = read_u64(fp - 8), read_u64(fp - 16)
        except gdb.MemoryError:
            break
        if ra == 0:
            break
        out.append(ra - 4)  # the call, not the instruction after it
    return out


def hart_thread(cpu):
    """gdb's thread for the hart of `struct cpu *` @cpu (QEMU numbers its
    threads by CPU index, which is the hart id on virt)."""
    want = (int(cpu["hartid"]) & 0xff if is_aarch64() else int(cpu["hartid"])) + 1
    for th in gdb.selected_inferior().threads():
        if th.ptid[1] == want or th.num == want:
            return th
    return None


def running_backtrace(cpu, lo, hi):
    """Frames of the task running on @cpu (its stack [lo, hi)), by gdb's
    own unwinder on that hart's thread (inlined functions are frames of
    their own). On aarch64 gdb's unwinder gives up part-way up some
    stacks ("previous frame identical to this frame"): the frame records
    from its last frame's x29 on are walked then."""
    th = hart_thread(cpu)
    if th is None:
        return []
    old = gdb.selected_thread()
    th.switch()
    lines = []
    try:
        f = last = gdb.newest_frame()
        while f is not None and len(lines) < MAX_FRAMES:
            sal = f.find_sal()
            where = f" ({sal.symtab.filename}:{sal.line})" if sal.symtab else ""
            lines.append(f"{f.name() or hex(f.pc())}{where}")
            last = f
            try:
                f = f.older()
            except gdb.error:  # "previous frame identical to this frame"
                f = None
        if is_aarch64() and len(lines) < MAX_FRAMES:
            fp = int(last.read_register("x29")) & (2**64 - 1)
            rest = frame_walk(0, fp, lo, hi)[1:MAX_FRAMES - len(lines) + 1]
            # as gdb's frames: the function, no offset
            lines += [re.sub(r"\+0x[0-9a-f]+", "", symbol(pc), count=1)
                      for pc in rest]
    finally:
        old.switch()
    return lines


def running_on(t):
    """The `struct cpu *` whose current task is @t, or None."""
    for i in range(int(value("ncpus"))):
        cpu = value(f"&cpus[{i}]")
        if int(cpu["current"]) == int(t):
            return cpu
    return None


class Tasks(gdb.Command):
    """whole-tasks: every task with its hart, state and backtrace."""

    def __init__(self):
        super().__init__("whole-tasks", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        ts = tasks()
        print(f"{len(ts)} tasks")
        for t in ts:
            cpu = running_on(t)
            state = str(t["state"]).replace("TASK_", "").lower()
            last = t["cpu"]
            hart = (f"cpu {int(last['id'])} (hart {int(last['hartid'])})"
                    if int(last) else "no cpu yet")
            where = "running on " if cpu is not None else "last ran on "
            print(f"task {task_name(t)} {state}, {where}{hart}")
            lo = int(t["stack"])
            hi = lo + int(t["stack_size"])
            if cpu is not None:
                frames = running_backtrace(cpu, lo, hi)
            else:
                pcs = frame_walk(int(t["ctx"]["ra"]) - 4, saved_fp(t["ctx"]), lo, hi)
                frames = [symbol(pc) for pc in pcs]
            for i, frame in enumerate(frames):
                print(f"  #{i} {frame}")


def find_inode(arg):
    arg = arg.strip()
    if not arg:
        raise gdb.GdbError("usage: INODE (a number or a struct inode * expression)")
    if arg.isdigit():
        sb = value("root_sb")
        if int(sb) == 0:
            raise gdb.GdbError("no root filesystem mounted")
        for ino in entries(sb["s_inodes"], "inode", "i_sb_list"):
            if int(ino["i_ino"]) == int(arg):
                return ino
        raise gdb.GdbError(f"inode {arg} is not in the inode cache")
    return value(arg).cast(gdb.lookup_type("struct inode").pointer())


def radix_items(tree):
    """(index, item) of a struct radix_tree, in index order."""
    height = int(tree["height"])
    node_t = gdb.lookup_type("struct radix_node").pointer()

    def walk(node, level, base):
        if int(node) == 0:
            return
        if level == 0:
            yield base, node
            return
        n = node.cast(node_t)
        for i in range(1 << RADIX_SHIFT):
            slot = n["slots"][i]
            if int(slot):
                yield from walk(slot, level - 1, (base << RADIX_SHIFT) | i)

    if height:
        yield from walk(tree["root"], height, 0)


def page_flags(flags):
    names = [n for i, n in enumerate(PAGE_FLAGS) if flags & (1 << (PG_FIRST + i))]
    return ",".join(names) or "-"


class Pages(gdb.Command):
    """whole-pages INODE: the cached pages of a file with their flags."""

    def __init__(self):
        super().__init__("whole-pages", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        ino = find_inode(arg)
        m = ino["i_data"]
        print(f"inode {int(ino['i_ino'])}: size {int(ino['i_size'])}, "
              f"{int(m['nrpages'])} pages cached, {int(m['nrdirty'])} dirty")
        page_t = gdb.lookup_type("struct page").pointer()
        for index, item in radix_items(m["i_pages"]):
            p = item.cast(page_t)
            print(f"  page {index}: {page_flags(int(p['flags']))} "
                  f"refs {int(p['refcount'])} at 0x{int(p):x}")


def waiters(sem):
    """(task, mode) of the tasks queued on @sem."""
    return [(w["task"], "exclusive" if bool(w["writer"]) else "shared")
            for w in entries(sem["waiters"], "rwsem_waiter", "node")]


def holders(sem):
    """Tasks whose lockdep stack holds the lock @sem, with the mode. A
    waiter's stack has it too (lockdep records the attempt before the
    wait): the queued tasks are left out."""
    dep = int(sem["dep"].address)
    queued = {int(t) for t, _ in waiters(sem)}
    out = []
    for t in tasks() + [value(f"cpus[{i}].idle") for i in range(int(value("ncpus")))]:
        if int(t) in queued:
            continue
        ld = t["lockdep"]
        for i in range(min(int(ld["depth"]), LOCKDEP_MAX_HELD)):
            h = ld["held"][i]
            if int(h["map"]) == dep:
                mode = str(h["mode"]).replace("LOCK_MODE_", "").lower()
                out.append(f"{task_name(t)} {mode}")
    return out


# kernel/rwsem.h's count word: RWSEM_WRITER 1, RWSEM_WAITERS 2, and
# RWSEM_READER (4) per reader inside
RWSEM_READER = 4


def rwsem_readers(sem):
    return int(sem["count"]) // RWSEM_READER


def describe_rwsem(label, sem):
    writer = int(sem["writer"])
    readers = rwsem_readers(sem)
    state = (f"held exclusive by {task_name(sem['writer'])}" if writer
             else f"held shared by {readers} task(s)" if readers else "free")
    print(f"{label}: {state}")
    for h in holders(sem):
        print(f"  holder {h}")
    for t, mode in waiters(sem):
        print(f"  waiter {task_name(t)} {mode}")


def rwsem_busy(sem):
    return (int(sem["writer"]) or rwsem_readers(sem)
            or int(sem["waiters"]["next"]) != int(sem["waiters"].address))


class Locks(gdb.Command):
    """whole-locks [INODE]: holders and waiters of i_rwsem and invalidate_lock."""

    def __init__(self):
        super().__init__("whole-locks", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        if arg.strip():
            inodes = [find_inode(arg)]
        else:
            sb = value("root_sb")
            if int(sb) == 0:
                raise gdb.GdbError("no root filesystem mounted")
            inodes = [i for i in entries(sb["s_inodes"], "inode", "i_sb_list")
                      if rwsem_busy(i["i_rwsem"])
                      or rwsem_busy(i["i_data"]["invalidate_lock"])]
            if not inodes:
                print("no inode lock held or waited for")
        for ino in inodes:
            print(f"inode {int(ino['i_ino'])}")
            describe_rwsem("i_rwsem", ino["i_rwsem"])
            describe_rwsem("invalidate_lock", ino["i_data"]["invalidate_lock"])


Tasks()
Pages()
Locks()
