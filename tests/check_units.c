/*
 * check_units.c — the grammar of rates, durations and sizes (xcap/units.h)
 * as one table: each spelling, what it means or that it is refused.  The
 * same spellings go through every command in tests/units.sh.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "units.h"

#define BAD UINT64_MAX	/* refused */

enum kind { RATE, DURATION_MS, DURATION_S, SIZE };

static const struct {
	enum kind kind;
	const char *text;
	uint64_t want;	/* bit/s, ns or bytes; BAD when refused */
} cases[] = {
	/* rates: bit/s, SI prefixes as written, K taken for k */
	{ RATE, "64", 64 },
	{ RATE, "0", 0 },
	{ RATE, "10M", 10000000 },
	{ RATE, "100k", 100000 },
	{ RATE, "100K", 100000 },
	{ RATE, "1.5M", 1500000 },
	{ RATE, "1.5Mbit", 1500000 },
	{ RATE, "250kbit/s", 250000 },
	{ RATE, "2Mbps", 2000000 },
	{ RATE, "1G", 1000000000 },
	{ RATE, "1T", 1000000000000 },
	{ RATE, ".5k", 500 },
	{ RATE, "10.", 10 },
	{ RATE, "0.4", BAD },		/* above zero, rounds to zero */
	{ RATE, "10m", BAD },		/* m is milli, never mega */
	{ RATE, "10mbit", BAD },
	{ RATE, "10g", BAD },
	{ RATE, "10X", BAD },
	{ RATE, "10 M", BAD },
	{ RATE, " 10M", BAD },
	{ RATE, "-1M", BAD },
	{ RATE, "+1M", BAD },
	{ RATE, "1e6", BAD },
	{ RATE, "0x10", BAD },
	{ RATE, "nan", BAD },
	{ RATE, "inf", BAD },
	{ RATE, "M", BAD },
	{ RATE, ".", BAD },
	{ RATE, "", BAD },
	{ RATE, "1.2.3", BAD },
	{ RATE, "10Mbit/", BAD },
	{ RATE, "10MB", BAD },		/* bytes are a size, not a rate */
	{ RATE, "99999999999999999999", BAD },	/* beyond 64 bits */
	{ RATE, "18446744073709551614", UINT64_MAX - 1 },
	{ RATE, "18446744073709551616", BAD },
	{ RATE, "20000000T", BAD },

	/* durations whose bare number is milliseconds (latencies, waits) */
	{ DURATION_MS, "40", 40000000 },
	{ DURATION_MS, "0.1", 100000 },
	{ DURATION_MS, "0", 0 },
	{ DURATION_MS, "40ms", 40000000 },
	{ DURATION_MS, "1.5s", 1500000000 },
	{ DURATION_MS, "100us", 100000 },
	{ DURATION_MS, "250ns", 250 },
	{ DURATION_MS, "2m", 120000000000 },
	{ DURATION_MS, "2min", 120000000000 },
	{ DURATION_MS, "1h", 3600000000000 },
	{ DURATION_MS, "0.0000001", BAD },	/* 0.1 ns: rounds to zero */
	{ DURATION_MS, "0.0000005", 1 },
	{ DURATION_MS, "40MS", BAD },	/* unit names are lowercase */
	{ DURATION_MS, "40 ms", BAD },
	{ DURATION_MS, "1ks", BAD },	/* no prefixes on durations */
	{ DURATION_MS, "1sec", BAD },
	{ DURATION_MS, "-5", BAD },
	{ DURATION_MS, "2e6", BAD },
	{ DURATION_MS, "fast", BAD },
	{ DURATION_MS, "", BAD },

	/* durations whose bare number is seconds (rings, ranges) */
	{ DURATION_S, "30", 30000000000 },
	{ DURATION_S, "500ms", 500000000 },
	{ DURATION_S, "2m", 120000000000 },
	{ DURATION_S, "1.25", 1250000000 },

	/* sizes: bytes, powers of 1024 */
	{ SIZE, "100", 100 },
	{ SIZE, "100B", 100 },
	{ SIZE, "64M", 67108864 },
	{ SIZE, "64MB", 67108864 },
	{ SIZE, "64MiB", 67108864 },
	{ SIZE, "512k", 524288 },
	{ SIZE, "512K", 524288 },
	{ SIZE, "1GiB", 1073741824 },
	{ SIZE, "1.5k", 1536 },
	{ SIZE, "64m", BAD },
	{ SIZE, "64iB", BAD },
	{ SIZE, "64Mb", BAD },
	{ SIZE, "64 M", BAD },
};

START_TEST(test_grammar)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint64_t v = 0;
		int r = -1;
		switch (cases[i].kind) {
		case RATE: r = units_rate(cases[i].text, &v); break;
		case DURATION_MS: r = units_duration(cases[i].text, UNITS_MS, &v); break;
		case DURATION_S: r = units_duration(cases[i].text, UNITS_S, &v); break;
		case SIZE: r = units_size(cases[i].text, &v); break;
		}
		if (cases[i].want == BAD)
			ck_assert_msg(r < 0, "'%s' taken as %llu", cases[i].text,
				      (unsigned long long)v);
		else {
			ck_assert_msg(r == 0, "'%s' refused", cases[i].text);
			ck_assert_msg(v == cases[i].want, "'%s' read %llu, want %llu", cases[i].text,
				      (unsigned long long)v, (unsigned long long)cases[i].want);
		}
	}
}
END_TEST

START_TEST(test_lists)
{
	uint64_t v[8];
	ck_assert_int_eq(units_rate_list("100M,10M,1.5M,100k,64,1G", v, 8), 6);
	ck_assert_uint_eq(v[0], 100000000);
	ck_assert_uint_eq(v[2], 1500000);
	ck_assert_uint_eq(v[4], 64);
	ck_assert_int_eq(units_duration_list("0.1,0,50,40ms,1s", UNITS_MS, v, 8), 5);
	ck_assert_uint_eq(v[0], 100000);
	ck_assert_uint_eq(v[1], 0);
	ck_assert_uint_eq(v[2], 50000000);
	ck_assert_uint_eq(v[3], 40000000);
	ck_assert_uint_eq(v[4], 1000000000);
	static const char *const bad[] = { "", ",", "10M,", ",10M", "1,,2", "10X,1M" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ck_assert_msg(units_rate_list(bad[i], v, 8) < 0, "rates '%s'", bad[i]);
		ck_assert_msg(units_duration_list(bad[i], UNITS_MS, v, 8) < 0, "durations '%s'", bad[i]);
	}
	ck_assert_int_eq(units_rate_list("1,2,3", v, 2), -1);
	ck_assert_int_eq(units_rate_list("1,2", v, 2), 2);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("units");
	TCase *tc = tcase_create("units");
	tcase_add_test(tc, test_grammar);
	tcase_add_test(tc, test_lists);
	suite_add_tcase(su, tc);
	SRunner *sr = srunner_create(su);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
