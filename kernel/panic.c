/*
 * kernel/panic.c: panic, warnings, frame-pointer backtraces and the
 * kernel symbol table (generated at link time by tools/ksyms.py).
 */
#include <stdarg.h>
#include <stdio.h>
#include <kernel/panic.h>
#include <kernel/printk.h>
#include <kernel/platform.h>
#include <kernel/cpu.h>
#include <kernel/sched.h>

extern const uint64_t ksyms_count;
extern const uint64_t ksyms_addrs[];
extern const uint32_t ksyms_offsets[];
extern const char ksyms_names[];
extern const char __kernel_start[], __text_end[];

volatile int panic_in_progress;

const char *ksym_format(uintptr_t addr, char *buf, size_t len)
{
	uint64_t lo = 0, hi = ksyms_count;

	if (!ksyms_count || addr < ksyms_addrs[0] ||
	    addr >= (uintptr_t)__text_end) {
		snprintf(buf, len, "%#lx", (unsigned long)addr);
		return buf;
	}
	while (hi - lo > 1) {
		uint64_t mid = (lo + hi) / 2;
		if (ksyms_addrs[mid] <= addr)
			lo = mid;
		else
			hi = mid;
	}
	uint64_t end =
	    lo + 1 < ksyms_count ? ksyms_addrs[lo + 1] : (uintptr_t)__text_end;
	snprintf(buf,
		 len,
		 "%s+%#lx/%#lx",
		 ksyms_names + ksyms_offsets[lo],
		 (unsigned long)(addr - ksyms_addrs[lo]),
		 (unsigned long)(end - ksyms_addrs[lo]));
	return buf;
}

static bool plausible_frame(uintptr_t fp)
{
	return fp && IS_ALIGNED(fp, 8) &&
	       ((fp >= platform.mem_base &&
		 fp < platform.mem_base + platform.mem_size) ||
		task_stack_contains(fp));
}

/*
 * With frame pointers, each frame has a record {caller's fp, return
 * address}; where it sits relative to fp is the arch's
 * (arch_frame_record: riscv64 just below fp, aarch64 at fp).
 */
void backtrace_from(uintptr_t fp, uintptr_t pc)
{
	char buf[96];

	printk(LOGLEVEL_EMERG, "Backtrace:\n");
	if (pc)
		printk(LOGLEVEL_EMERG,
		       "  %s\n",
		       ksym_format(pc, buf, sizeof(buf)));
	for (int depth = 0;
	     depth < 32 && plausible_frame((uintptr_t)arch_frame_record(fp));
	     depth++) {
		uintptr_t ra = arch_frame_record(fp)[1];
		uintptr_t next = arch_frame_record(fp)[0];
		/* the outermost frame (task entry, kmain) has no caller */
		if (ra < (uintptr_t)__kernel_start ||
		    ra >= (uintptr_t)__text_end || next == 0)
			break;
		printk(LOGLEVEL_EMERG,
		       "  %s\n",
		       ksym_format(ra - 4, buf, sizeof(buf)));
		if (next <= fp)
			break;
		fp = next;
	}
}

void dump_stack(void)
{
	backtrace_from((uintptr_t)__builtin_frame_address(0), 0);
}

static unsigned long nr_warnings;

unsigned long warn_count(void)
{
	return __atomic_load_n(&nr_warnings, __ATOMIC_RELAXED);
}

void __warn(const char *file, int line, const char *cond)
{
	__atomic_fetch_add(&nr_warnings, 1, __ATOMIC_RELAXED);
	pr_warn("WARNING: %s at %s:%d (cpu %u, task %s)\n",
		cond,
		file,
		line,
		cpu_id(),
		current_task_name());
	dump_stack();
}

void panic(const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	arch_irq_disable();
	if (__atomic_exchange_n(&panic_in_progress, 1, __ATOMIC_SEQ_CST)) {
		for (;;) /* another hart is reporting */
			arch_wait_for_interrupt();
	}
	console_force_unlock();
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printk(LOGLEVEL_EMERG,
	       "Kernel panic on cpu %u (task %s): %s\n",
	       cpu_id(),
	       current_task_name(),
	       buf);
	dump_stack();
	platform_poweroff(PANIC_EXIT_CODE);
}
