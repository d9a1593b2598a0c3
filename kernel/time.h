/*
 * kernel/time.h: time since boot from the platform timer (rdtime), and
 * wall time: the board's RTC read once at boot plus time since boot.
 * Without an RTC wall time starts at 1970 and the filesystem may move it
 * forward to the newest time its image holds (time_wall_advance_to).
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

/* Wall time, ns since 1970 (see above). */
uint64_t time_wall_ns(void);
/* Without an RTC, move wall time forward to @sec (seconds since 1970) if
 * it is behind: new files must not be dated before the image's own times.
 * Never moves it back; a no-op when the RTC gave the time. */
void time_wall_advance_to(uint64_t sec);
