/*
 * units.c — see units.h.
 *
 * Numbers are read digit by digit, not with strtod: no locale's decimal
 * comma (netplot runs under GTK's locale), no "inf", "0x10" or "1e3", and
 * the value is exact: 0.1 ms is 100000 ns, not a double's neighbour of it.
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "units.h"

struct suffix {
	const char *name;
	uint64_t mult;
};

static const struct suffix rate_prefixes[] = {
	{ "k", 1000ull }, { "K", 1000ull }, { "M", 1000000ull }, { "G", 1000000000ull },
	{ "T", 1000000000000ull }, { "", 1 },
};
static const struct suffix rate_units[] = {
	{ "bit/s", 1 }, { "bit", 1 }, { "bps", 1 }, { "", 1 },
};
static const struct suffix size_prefixes[] = {
	{ "k", 1ull << 10 }, { "K", 1ull << 10 }, { "M", 1ull << 20 }, { "G", 1ull << 30 },
	{ "T", 1ull << 40 }, { "", 1 },
};
static const struct suffix size_units[] = {
	{ "B", 1 }, { "iB", 1 }, { "", 1 },
};
static const struct suffix duration_units[] = {
	{ "ns", 1ull }, { "us", 1000ull }, { "ms", 1000000ull }, { "s", 1000000000ull },
	{ "min", 60000000000ull }, { "m", 60000000000ull }, { "h", 3600000000000ull },
};

/* The number at the start of s[0..len): its digits as an integer and how
   many of them follow the point.  The number of bytes read, 0 if none. */
static size_t number(const char *s, size_t len, uint64_t *mant, unsigned *frac)
{
	size_t i = 0, digits = 0;
	bool point = false;
	*mant = 0;
	*frac = 0;
	for (; i < len; i++) {
		if (s[i] == '.' && !point) {
			point = true;
			continue;
		}
		if (s[i] < '0' || s[i] > '9')
			break;
		uint64_t d = (uint64_t)(s[i] - '0');
		if (*mant > (UINT64_MAX - d) / 10 || (point && *frac == 18))
			return 0;	/* more digits than a value needs */
		*mant = *mant * 10 + d;
		digits++;
		if (point)
			(*frac)++;
	}
	return digits ? i : 0;
}

/* Which of the table's names s[0..len) begins with (the longest first:
   tables list "ms" before "m"), or NULL.  *used is its length. */
static const struct suffix *suffix_at(const struct suffix *t, size_t n, const char *s, size_t len,
				      size_t *used)
{
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(t[i].name);
		if (l <= len && memcmp(s, t[i].name, l) == 0) {
			*used = l;
			return &t[i];
		}
	}
	return NULL;
}

/* mant / 10^frac * mult, rounded to the nearest; -1 beyond 64 bits or
   when a value above zero would round to zero. */
static int scale(uint64_t mant, unsigned frac, uint64_t mult, uint64_t *out)
{
	unsigned __int128 p10 = 1;
	for (unsigned i = 0; i < frac; i++)
		p10 *= 10;
	unsigned __int128 v = ((unsigned __int128)mant * mult + p10 / 2) / p10;
	if (v > UINT64_MAX || (mant && !v))
		return -1;
	*out = (uint64_t)v;
	return 0;
}

#define N(t) (sizeof t / sizeof t[0])

/* NUMBER PREFIX UNIT over all of s[0..len): rates and sizes. */
static int prefixed(const char *s, size_t len, const struct suffix *pre, size_t npre,
		    const struct suffix *unit, size_t nunit, uint64_t *out)
{
	uint64_t mant;
	unsigned frac;
	size_t used = 0, at = number(s, len, &mant, &frac);
	if (!at)
		return -1;
	const struct suffix *p = suffix_at(pre, npre, s + at, len - at, &used);
	if (!p)		/* the tables end with "", which matches */
		return -1;
	at += used;
	const struct suffix *u = suffix_at(unit, nunit, s + at, len - at, &used);
	if (!u || at + used != len)
		return -1;
	/* "iB" names a binary multiple: not without one. */
	if (strcmp(u->name, "iB") == 0 && !*p->name)
		return -1;
	return scale(mant, frac, p->mult * u->mult, out);
}

int units_rate_n(const char *s, size_t len, uint64_t *bit_per_s)
{
	return prefixed(s, len, rate_prefixes, N(rate_prefixes), rate_units, N(rate_units),
			bit_per_s);
}

int units_size_n(const char *s, size_t len, uint64_t *bytes)
{
	return prefixed(s, len, size_prefixes, N(size_prefixes), size_units, N(size_units), bytes);
}

int units_duration_n(const char *s, size_t len, uint64_t bare_ns, uint64_t *ns)
{
	uint64_t mant;
	unsigned frac;
	size_t used = 0, at = number(s, len, &mant, &frac);
	if (!at)
		return -1;
	uint64_t mult = bare_ns;
	if (at < len) {
		const struct suffix *u = suffix_at(duration_units, N(duration_units), s + at,
						   len - at, &used);
		if (!u || at + used != len)
			return -1;
		mult = u->mult;
	}
	return scale(mant, frac, mult, ns);
}

int units_rate(const char *s, uint64_t *bit_per_s)
{
	return units_rate_n(s, strlen(s), bit_per_s);
}

int units_size(const char *s, uint64_t *bytes)
{
	return units_size_n(s, strlen(s), bytes);
}

int units_duration(const char *s, uint64_t bare_ns, uint64_t *ns)
{
	return units_duration_n(s, strlen(s), bare_ns, ns);
}

/* Each comma-separated item of s through one(): the count, or -1. */
static int list(const char *s, uint64_t *out, size_t max, uint64_t bare_ns,
		int (*one)(const char *, size_t, uint64_t, uint64_t *))
{
	size_t n = 0;
	for (;;) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		if (n == max || one(s, len, bare_ns, &out[n]) < 0)
			return -1;
		n++;
		if (!comma)
			return (int)n;
		s = comma + 1;
	}
}

static int rate_item(const char *s, size_t len, uint64_t unused, uint64_t *out)
{
	(void)unused;
	return units_rate_n(s, len, out);
}

int units_rate_list(const char *s, uint64_t *out, size_t max)
{
	return list(s, out, max, 0, rate_item);
}

int units_duration_list(const char *s, uint64_t bare_ns, uint64_t *out, size_t max)
{
	return list(s, out, max, bare_ns, units_duration_n);
}
