/*
 * units.h — the one grammar of rates, durations and sizes that every
 * command of the suite reads (xcap, xcap-link, xcap-run, xcap-replay,
 * xcap-sweep through xcap-link, xcapanalyse, netplot).  man/xcap.1,
 * "UNITS", says it to users; tests/check_units.c holds it as a table.
 *
 *   NUMBER    digits with an optional decimal point: 10, 1.5, .5
 *             (no sign, exponent, hex or blanks)
 *   rate      NUMBER [k|K|M|G|T] [bit/s|bit|bps]  bits per second,
 *             powers of 1000: 10M, 250k, 1.5Mbit/s, 64
 *   duration  NUMBER [ns|us|ms|s|m|min|h]         a bare number is in the
 *             option's own unit (milliseconds for latencies and waits,
 *             seconds for ring lengths and ranges): 40, 40ms, 1.5s, 100us
 *   size      NUMBER [k|K|M|G|T] [B|iB]            bytes, powers of 1024
 *
 * Case: a multiplier is an SI prefix as written (M mega, G giga, T tera;
 * k kilo, K taken for it), so a lowercase m is never mega: in a duration
 * it is the minute (and ms the millisecond), in a rate and a size it is
 * refused.  Unit names are lowercase.  Values are rounded to the nearest
 * whole bit/s, nanosecond or byte; a value above zero that rounds to zero,
 * or one beyond 2^64 - 1, is refused.  Each option keeps its own range.
 *
 * Functions return 0 (lists: the count) or -1 for a malformed value;
 * they never print or end the program.
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#ifndef XCAP_UNITS_H
#define XCAP_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* What a command puts in its "bad ..." message after the subject. */
#define UNITS_RATE_HINT "a rate in bit/s such as 10M, 250k or 1.5Mbit/s"
#define UNITS_DURATION_HINT "a duration such as 40ms, 1.5s or 100us"
#define UNITS_SIZE_HINT "a size in bytes such as 64M, 512k or 1GiB"

/* Bare-number units of durations, in ns. */
#define UNITS_NS 1ull
#define UNITS_US 1000ull
#define UNITS_MS 1000000ull
#define UNITS_S 1000000000ull

/* One value: all of s (a NUL-terminated string). */
int units_rate(const char *s, uint64_t *bit_per_s);
int units_duration(const char *s, uint64_t bare_ns, uint64_t *ns);
int units_size(const char *s, uint64_t *bytes);

/* The same over the first len bytes of s (a span of a longer argument). */
int units_rate_n(const char *s, size_t len, uint64_t *bit_per_s);
int units_duration_n(const char *s, size_t len, uint64_t bare_ns, uint64_t *ns);
int units_size_n(const char *s, size_t len, uint64_t *bytes);

/* Comma-separated lists ("10M,1M,100k", "0.1,40ms"): the number of values
   (1 to max), or -1 for an empty list, an empty item, a bad value or more
   than max values. */
int units_rate_list(const char *s, uint64_t *out, size_t max);
int units_duration_list(const char *s, uint64_t bare_ns, uint64_t *out, size_t max);

#endif
