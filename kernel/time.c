/*
 * kernel/time.c: conversions between the time counter and nanoseconds,
 * and wall time.
 *
 * Locking: boot_wall_ns is set on the boot hart at init, then only moved
 * forward by time_wall_advance_to with compare-and-swap; read anywhere.
 */
#include <kernel/time.h>
#include <kernel/arch.h>
#include <kernel/init.h>
#include <kernel/platform.h>

static uint64_t boot_counter;
static uint64_t boot_wall_ns; /* wall time when time_ns() was 0 */
static bool wall_from_rtc;    /* then trusted: never advanced */

static uint64_t hz(void)
{
	return platform.timebase_hz ? platform.timebase_hz : 10000000;
}

uint64_t time_counter_to_ns(uint64_t c)
{
	return c / hz() * NSEC_PER_SEC + c % hz() * NSEC_PER_SEC / hz();
}

uint64_t time_ns_to_counter(uint64_t ns)
{
	return ns / NSEC_PER_SEC * hz() +
	       ns % NSEC_PER_SEC * hz() / NSEC_PER_SEC;
}

uint64_t time_ns(void)
{
	if (!boot_counter)
		boot_counter = arch_counter();
	return time_counter_to_ns(arch_counter() - boot_counter);
}

void time_delay_ns(uint64_t ns)
{
	uint64_t end = arch_counter() + time_ns_to_counter(ns);

	while (arch_counter() < end)
		arch_cpu_relax();
}

uint64_t time_wall_ns(void)
{
	return READ_ONCE(boot_wall_ns) + time_ns();
}

void time_wall_advance_to(uint64_t sec)
{
	uint64_t base = READ_ONCE(boot_wall_ns), now;

	if (READ_ONCE(wall_from_rtc))
		return;
	do {
		now = base + time_ns();
		if (now >= sec * NSEC_PER_SEC)
			return;
	} while (!__atomic_compare_exchange_n(&boot_wall_ns,
					      &base,
					      base + sec * NSEC_PER_SEC - now,
					      false,
					      __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
}

static int time_wall_init(void)
{
	uint64_t wall = platform_wall_ns();

	if (wall) {
		WRITE_ONCE(boot_wall_ns, wall - time_ns());
		WRITE_ONCE(wall_from_rtc, true);
	}
	return 0;
}
INIT_HOOK(time_wall, time_wall_init, INIT_LEVEL_ARCH);
