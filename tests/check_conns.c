/*
 * check_conns.c — the one connection table (xcap/conns.h) and the one
 * growable array (xcap/grow.h): entries kept in order of first sight and
 * found by id, ids 0 and above XCONNS_ID_MAX never taken; doubling from
 * 16, and a size past size_t refused with the array left as it was.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "conns.h"
#include "grow.h"

struct entry {
	uint32_t id;
	int x;
};

START_TEST(test_table)
{
	struct xconns t;
	xconns_init(&t, sizeof (struct entry));
	ck_assert_ptr_null(xconns_add(&t, 0));
	ck_assert_ptr_null(xconns_add(&t, XCONNS_ID_MAX + 1));
	for (int i = 1000; i >= 1; i -= 3) {
		struct entry *e = xconns_add(&t, (uint32_t)i);
		ck_assert_ptr_nonnull(e);
		ck_assert_uint_eq(e->id, 0);	/* new entries are zeroed */
		e->id = (uint32_t)i;
	}
	ck_assert_uint_eq(t.n, 334);
	for (int i = 1000; i >= 1; i -= 3) {
		struct entry *e = xconns_get(&t, (uint32_t)i);
		ck_assert_ptr_nonnull(e);
		ck_assert_uint_eq(e->id, (uint32_t)i);
		ck_assert_ptr_eq(xconns_add(&t, (uint32_t)i), e);	/* found, not added */
	}
	ck_assert_uint_eq(t.n, 334);
	/* In order of first sight, not of id. */
	ck_assert_uint_eq(((struct entry *)xconns_at(&t, 0))->id, 1000);
	ck_assert_uint_eq(((struct entry *)xconns_at(&t, 333))->id, 1);
	ck_assert_ptr_null(xconns_get(&t, 999));
	ck_assert_ptr_null(xconns_get(&t, 5000));
	ck_assert_ptr_nonnull(xconns_add(&t, XCONNS_ID_MAX));
	xconns_free(&t);
	ck_assert_uint_eq(t.n, 0);
	ck_assert_ptr_null(xconns_get(&t, 1000));
}
END_TEST

START_TEST(test_grow)
{
	int *v = NULL;
	size_t cap = 0;
	size_t none = 0;	/* a variable: GROW of a constant 0 is a comparison always true */
	ck_assert_int_eq(GROW(v, cap, none), 0);
	ck_assert_ptr_null(v);
	ck_assert_int_eq(GROW(v, cap, 1), 0);
	ck_assert_uint_eq(cap, 16);
	ck_assert_int_eq(GROW(v, cap, 17), 0);
	ck_assert_uint_eq(cap, 32);
	ck_assert_int_eq(GROW(v, cap, 100), 0);
	ck_assert_uint_eq(cap, 128);
	int *was = v;
	ck_assert_int_eq(GROW(v, cap, SIZE_MAX / 2), -1);
	ck_assert_int_eq(GROW(v, cap, SIZE_MAX), -1);
	ck_assert_ptr_eq(v, was);
	ck_assert_uint_eq(cap, 128);
	free(v);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("conns");
	TCase *tc = tcase_create("conns");
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_grow);
	suite_add_tcase(su, tc);
	SRunner *sr = srunner_create(su);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
