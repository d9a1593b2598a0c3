/*
 * kernel/time.h: time since boot from the platform timer (rdtime).
 */
#pragma once

#include <kernel/compiler.h>

#define NSEC_PER_SEC  1000000000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_USEC 1000ULL

uint64_t time_ns(void);
uint64_t time_counter_to_ns(uint64_t counter);
uint64_t time_ns_to_counter(uint64_t ns);
/* Spin (no sleep) for @ns: early boot and drivers' short waits only. */
void time_delay_ns(uint64_t ns);
