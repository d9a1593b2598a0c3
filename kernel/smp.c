/*
 * kernel/smp.c: per-hart data and starting the other harts.
 *
 * The boot hart is cpu 0. Every other hart the platform lists is started
 * through SBI HSM on a fresh guarded stack, which becomes its idle task's
 * stack, and joins the scheduler. A hart that fails to start is reported
 * and left out.
 */
#include <kernel/cpu.h>
#include <kernel/init.h>
#include <kernel/irq.h>
#include <kernel/platform.h>
#include <kernel/printk.h>
#include <kernel/sched.h>
#include <kernel/time.h>
#include <kernel/timer.h>
#include <mm/vm.h>

#define EMERGENCY_STACK_SIZE 4096
/* How long a started hart may take to come online. Under TCG each hart
 * is a host thread: on a loaded host one waited over a second for a core
 * (a CI run beside other QEMU boots). arm64 Linux waits 5 s too. */
#define ONLINE_TIMEOUT_MS 5000

struct cpu cpus[MAX_CPUS];
unsigned int ncpus = 1;
/* The idle task of the hart being started, for a hart the firmware sends
 * to _start instead (see kernel/arch/riscv64/entry.S). */
struct task *volatile smp_starting_idle;
extern volatile int smp_stray_harts; /* counted by entry.S */
static char emergency_stacks[MAX_CPUS][EMERGENCY_STACK_SIZE] __aligned(16);

void cpu_init_data(struct cpu *c, unsigned int id, unsigned long hartid)
{
	c->id = id;
	c->hartid = hartid;
	c->emergency_sp =
	    (uintptr_t)emergency_stacks[id + 1 > MAX_CPUS ? 0 : id] +
	    EMERGENCY_STACK_SIZE;
}

/* Runs on each secondary hart, entered from secondary_entry. */
__noreturn void secondary_main(void)
{
	struct cpu *c = this_cpu();

	vm_init_hart();
	arch_init_cpu();
	irq_init_hart();
	sched_start_cpu();
	timer_init_hart();
	__atomic_store_n(&c->online, true, __ATOMIC_RELEASE);
	arch_irq_enable();
	sched_idle_loop();
}

static int smp_init(void)
{
	for (unsigned int i = 1; i < platform.nharts; i++) {
		struct cpu *c = &cpus[ncpus];
		void *stack = vm_alloc_stack(TASK_STACK_SIZE);
		uint64_t deadline;

		if (!stack) {
			pr_err("smp: no memory for hart %lu\n",
			       platform.hartids[i]);
			break;
		}
		cpu_init_data(c, ncpus, platform.hartids[i]);
		c->boot_sp = (uintptr_t)stack + TASK_STACK_SIZE;
		sched_prepare_cpu(c, stack, TASK_STACK_SIZE);
		smp_starting_idle = c->idle;
		smp_mb();
		if (arch_start_cpu(c)) {
			smp_starting_idle = NULL;
			pr_err("smp: hart %lu did not start\n", c->hartid);
			vm_free_stack(stack, TASK_STACK_SIZE);
			continue;
		}
		ncpus++; /* before it runs: for_each_cpu must see it */
		deadline = time_ns() + ONLINE_TIMEOUT_MS * NSEC_PER_MSEC;
		while (!__atomic_load_n(&c->online, __ATOMIC_ACQUIRE) &&
		       time_ns() < deadline)
			arch_cpu_relax();
		if (!c->online)
			pr_err("smp: hart %lu did not come online\n",
			       c->hartid);
		smp_starting_idle = NULL;
	}
	if (smp_stray_harts)
		pr_info("smp: firmware sent %d starting harts to _start\n",
			smp_stray_harts);
	pr_info("smp: %u of %u harts online\n", ncpus, platform.nharts);
	return 0;
}
INIT_HOOK(smp, smp_init, INIT_LEVEL_SCHED);
