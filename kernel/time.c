/*
 * kernel/time.c: conversions between the time counter and nanoseconds.
 */
#include <kernel/time.h>
#include <kernel/arch.h>
#include <kernel/platform.h>

static uint64_t boot_counter;

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
