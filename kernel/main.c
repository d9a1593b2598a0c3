/*
 * kernel/main.c: from the firmware's jump to the first task.
 *
 * kmain runs on the boot hart: it reads the platform, runs the init hooks in
 * their declared order (see kernel/init.h), starts the main task and turns
 * itself into cpu 0's idle task. The main task either runs the test suites
 * (bootarg ktest.filter=FILTER, see ktest_run) and powers off with their
 * verdict, or runs the shell.
 */
#include <kernel/arch.h>
#include <kernel/banner.h>
#include <kernel/bootargs.h>
#include <kernel/cpu.h>
#include <kernel/err.h>
#include <kernel/init.h>
#include <kernel/irq.h>
#include <kernel/ktest.h>
#include <kernel/panic.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/sched.h>
#include <kernel/shell.h>
#include <kernel/time.h>
#include <kernel/timer.h>
#include <fs/vfs.h>

extern char boot_stack[];
extern const struct init_hook __init_hooks_start[], __init_hooks_end[];
void cpu_init_data(struct cpu *c, unsigned int id, unsigned long hartid);

#define BOOT_STACK_SIZE 16384

void init_run_hooks(void)
{
	for (const struct init_hook *h = __init_hooks_start;
	     h < __init_hooks_end;
	     h++) {
		int err = h->fn();
		if (err)
			pr_warn("init: %s failed (%d)\n", h->name, err);
	}
}

/* The disk must hold what the caches hold before the machine stops. */
static __noreturn void poweroff(int code)
{
	int err = vfs_unmount_root();

	if (err && err != -EINVAL)
		pr_warn("poweroff: root not unmounted cleanly (%d)\n", err);
	arch_poweroff(code);
}

static int main_task(void *arg)
{
	char filter[512];

	(void)arg;
	if (bootarg_get("ktest.filter", filter, sizeof(filter))) {
		int failed = ktest_run(filter);
		poweroff(failed ? 1 : 0);
	}
	poweroff(shell_main(bootarg_command()));
}

static int sched_boot_init(void)
{
	sched_start_cpu();
	timer_init_hart();
	this_cpu()->online = true;
	arch_irq_enable();
	return 0;
}
INIT_HOOK(sched_boot, sched_boot_init, INIT_LEVEL_SCHED);

static int arch_boot_init(void)
{
	arch_init_cpu();
	irq_init_hart();
	return 0;
}
INIT_HOOK(arch_boot, arch_boot_init, INIT_LEVEL_ARCH);

__noreturn void kmain(unsigned long hartid, const void *dtb)
{
	struct cpu *c = &cpus[0];

	cpu_init_data(c, 0, hartid);
	sched_prepare_cpu(c, boot_stack, BOOT_STACK_SIZE);
	arch_set_current_task(c->idle);
	if (platform_init(hartid, dtb))
		arch_poweroff(4); /* no device tree: nothing to print on */
	time_ns();		  /* time 0 is now */
	init_run_hooks();
	boot_banner();
	if (IS_ERR(task_create("main", main_task, NULL)))
		panic("cannot start the main task");
	sched_idle_loop();
}
