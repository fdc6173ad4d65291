/*
 * check_nomem.c — library code never ends the program.  The capture layer
 * (pipeline, source) once called exit(3) with an "xcap:" message when
 * malloc failed, even inside xcapanalyse and netplot.  Here every
 * allocation in turn fails while a real capture is read through xsource:
 * each run must end with either every record read, or xsource_next
 * returning -1 with a reason from xsource_error — never an exit (Check
 * runs each test in its own process and reports one as a failure).
 *
 * The allocator is wrapped at link time (-Wl,--wrap=malloc,...), so only
 * this program's calls, the libraries linked into it included, go through
 * the counter.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);

/* Allocations so far, and the one that fails (0: none). */
static unsigned long n_alloc, fail_at;

static int should_fail(void)
{
	return ++n_alloc == fail_at;
}

void *__wrap_malloc(size_t n) { return should_fail() ? NULL : __real_malloc(n); }
void *__wrap_calloc(size_t n, size_t size) { return should_fail() ? NULL : __real_calloc(n, size); }
void *__wrap_realloc(void *p, size_t n) { return should_fail() ? NULL : __real_realloc(p, n); }

static const char *capture(void)
{
	static char path[1024];
	const char *top = getenv("top_srcdir");
	snprintf(path, sizeof path, "%s/tests/captures/xdpyinfo-xlogo-lossy.pcap", top ? top : "..");
	return path;
}

static void quiet(void *ctx, const char *msg) { (void)ctx; (void)msg; }

/* Read the capture with allocation number k failing.  Returns the number
   of records read, and in *rc how reading ended: 0 the end, -1 failure,
   -2 the open failed. */
static unsigned long read_all(unsigned long k, int *rc, char *why, size_t whylen)
{
	char err[512];
	unsigned long n = 0;
	n_alloc = 0;
	fail_at = k;
	why[0] = '\0';
	struct xsource *s = xsource_open(capture(), NULL, NULL, err, sizeof err);
	if (!s) {
		*rc = -2;
		snprintf(why, whylen, "%s", err);
		fail_at = 0;
		return 0;
	}
	xsource_on_warning(s, quiet, NULL);
	struct xrec rec;
	while ((*rc = xsource_next(s, &rec)) == 1)
		n++;
	if (*rc < 0 && xsource_error(s))
		snprintf(why, whylen, "%s", xsource_error(s));
	xsource_close(s);
	fail_at = 0;
	return n;
}

START_TEST(every_allocation_may_fail)
{
	char why[1500];
	int rc;
	unsigned long full = read_all(0, &rc, why, sizeof why);
	ck_assert_int_eq(rc, 0);
	ck_assert_uint_gt(full, 100);
	unsigned long total = n_alloc;
	ck_assert_uint_gt(total, 3);

	unsigned failed = 0, open_failed = 0, complete = 0;
	for (unsigned long k = 1; k <= total; k++) {
		unsigned long n = read_all(k, &rc, why, sizeof why);
		if (rc == -2) {
			/* Failing to open says why, in words. */
			ck_assert_msg(strstr(why, "out of memory") || why[0], "open failed silently at %lu", k);
			open_failed++;
		} else if (rc < 0) {
			ck_assert_msg(strstr(why, "out of memory"),
				      "allocation %lu: xsource_next failed without a reason: '%s'", k, why);
			ck_assert_uint_le(n, full);
			failed++;
		} else {
			/* Some failures are absorbed (a hash table that does not
			   grow; a decoder not created, so messages are not
			   decoded): then reading ends normally. */
			ck_assert_int_eq(rc, 0);
			complete++;
		}
	}
	fprintf(stderr, "check_nomem: %lu allocations: %u failed with a reason, %u failed to open, "
		"%u absorbed\n", total, failed, open_failed, complete);
	ck_assert_uint_gt(failed, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("nomem");
	TCase *tc = tcase_create("source");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, every_allocation_may_fail);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
