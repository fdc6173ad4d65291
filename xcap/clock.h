/*
 * clock.h — the time now, in nanoseconds, from one of clock_gettime's
 * clocks: CLOCK_MONOTONIC to measure a wait or pace a link, which no
 * change of the wall clock moves; CLOCK_REALTIME for times that go into
 * a trace or a log beside a capture's packets, which are wall-clock
 * times.  Every command's "now" in ns is this one.
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#ifndef XCAP_CLOCK_H
#define XCAP_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t which)
{
	struct timespec t;
	clock_gettime(which, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

#endif
