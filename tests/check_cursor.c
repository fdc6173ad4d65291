/*
 * check_cursor.c — unit tests of protocols/cursor.h, the one way captured
 * bytes are read.  Every read is tried with exactly enough bytes left,
 * with one too few and with none, from buffers malloc'd to their exact
 * length (so that the sanitizer build sees any read past the end).  What
 * must hold: a read that fits returns the bytes in the order it names and
 * moves past them; one that does not returns 0, does not move, and sets
 * the overrun flag, which then stays set.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"

/* Bytes 0x11, 0x22, ... in a buffer of exactly n bytes. */
static uint8_t *pattern(size_t n)
{
	uint8_t *p = malloc(n ? n : 1);
	ck_assert_ptr_nonnull(p);
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(0x11 * (i + 1));
	return p;
}

/* The value of w bytes at p, most significant first or last: written out
   by hand rather than with the cursor's own helpers. */
static uint64_t expect(const uint8_t *p, unsigned w, bool big)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < w; i++)
		v |= (uint64_t)p[big ? i : w - 1 - i] << (8 * (w - 1 - i));
	return v;
}

/* Every sized read, by width and byte order. */
enum read_kind { U8, BE16, LE16, BE32, LE32, BE64, LE64, BE32S, NKINDS };
static const unsigned width[NKINDS] = { 1, 2, 2, 4, 4, 8, 8, 4 };
static const bool big[NKINDS] = { true, true, false, true, false, true, false, true };

static uint64_t do_read(struct cursor *c, enum read_kind k)
{
	switch (k) {
	case U8: return cursor_u8(c);
	case BE16: return cursor_be16(c);
	case LE16: return cursor_le16(c);
	case BE32: return cursor_be32(c);
	case LE32: return cursor_le32(c);
	case BE64: return cursor_be64(c);
	case LE64: return cursor_le64(c);
	case BE32S: return (uint32_t)cursor_be32s(c);
	default: return 0;
	}
}

static uint64_t do_peek(const struct cursor *c, enum read_kind k, size_t off, bool *ok)
{
	switch (k) {
	case U8: return cursor_peek_u8(c, off, ok);
	case BE16: return cursor_peek_be16(c, off, ok);
	case LE16: return cursor_peek_le16(c, off, ok);
	case BE32: case BE32S: return cursor_peek_be32(c, off, ok);
	case LE32: return cursor_peek_le32(c, off, ok);
	default: return 0;	/* no 64-bit peeks */
	}
}

/* Each read with left = w (fits), w - 1 and 0 (do not), at every start. */
START_TEST(reads_at_and_past_the_end)
{
	enum read_kind k = (enum read_kind)_i;
	unsigned w = width[k];
	for (size_t len = 0; len <= 2 * w + 1; len++) {
		uint8_t *p = pattern(len);
		for (size_t start = 0; start <= len; start++) {
			struct cursor c = cursor_init(p, len);
			ck_assert(cursor_skip(&c, start));
			ck_assert_uint_eq(cursor_left(&c), len - start);
			uint64_t v = do_read(&c, k);
			if (len - start >= w) {
				ck_assert_uint_eq(v, expect(p + start, w, big[k]));
				ck_assert_uint_eq(c.pos, start + w);
				ck_assert(!c.overrun);
			} else {
				ck_assert_uint_eq(v, 0);
				ck_assert_uint_eq(c.pos, start);
				ck_assert(c.overrun);
				/* sticky: a read that fits afterwards leaves it set */
				if (cursor_left(&c)) {
					ck_assert_uint_eq(cursor_u8(&c), p[start]);
					ck_assert(c.overrun);
				}
			}
		}
		free(p);
	}
}
END_TEST

/* Peeks read at absolute offsets and never move or mark the cursor; ok
   goes false only when the bytes are missing, and collects several. */
START_TEST(peeks_at_and_past_the_end)
{
	enum read_kind k = (enum read_kind)_i;
	if (k == BE64 || k == LE64)
		return;
	unsigned w = width[k];
	for (size_t len = 0; len <= 2 * w + 1; len++) {
		uint8_t *p = pattern(len);
		struct cursor c = cursor_init(p, len);
		cursor_skip(&c, len / 2);
		size_t pos = c.pos;
		for (size_t off = 0; off <= len + 1; off++) {
			bool ok = true;
			uint64_t v = do_peek(&c, k, off, &ok);
			if (off + w <= len) {
				ck_assert(ok);
				ck_assert_uint_eq(v, expect(p + off, w, big[k]));
			} else {
				ck_assert(!ok);
				ck_assert_uint_eq(v, 0);
			}
			/* a failed peek keeps ok false through a later good one */
			if (!ok && len >= 1) {
				cursor_peek_u8(&c, 0, &ok);
				ck_assert(!ok);
			}
			ck_assert_uint_eq(c.pos, pos);
			ck_assert(!c.overrun);
		}
		/* offsets near SIZE_MAX must not wrap into the buffer */
		bool ok = true;
		do_peek(&c, k, SIZE_MAX, &ok);
		ck_assert(!ok);
		ok = true;
		do_peek(&c, k, SIZE_MAX - (w - 1), &ok);	/* off + w wraps to 0 */
		ck_assert(!ok);
		ck_assert_ptr_null(cursor_peek_span(&c, 1, SIZE_MAX));
		ck_assert_ptr_null(cursor_peek_span(&c, len + 1, 0));
		if (len)
			ck_assert_ptr_eq(cursor_peek_span(&c, len - 1, 1), p + len - 1);
		ck_assert_ptr_eq(cursor_peek_span(&c, len, 0), p + len);
		/* ok may be NULL */
		do_peek(&c, k, len, NULL);
		free(p);
	}
}
END_TEST

START_TEST(skip_seek_span_sub)
{
	uint8_t *p = pattern(10);
	struct cursor c = cursor_init(p, 10);
	ck_assert(cursor_skip(&c, 0));
	ck_assert(cursor_skip(&c, 10));
	ck_assert(!c.overrun);
	ck_assert(!cursor_skip(&c, 1));
	ck_assert(c.overrun);
	ck_assert_uint_eq(c.pos, 10);

	c = cursor_init(p, 10);
	cursor_skip(&c, 3);
	ck_assert(!cursor_skip(&c, SIZE_MAX));	/* would wrap pos */
	ck_assert_uint_eq(c.pos, 3);
	ck_assert(!cursor_skip(&c, SIZE_MAX - 2));
	ck_assert_uint_eq(c.pos, 3);

	c = cursor_init(p, 10);
	ck_assert(cursor_seek(&c, 10));
	ck_assert_uint_eq(cursor_left(&c), 0);
	ck_assert(!cursor_seek(&c, 11));
	ck_assert(c.overrun);
	ck_assert_uint_eq(c.pos, 10);

	c = cursor_init(p, 10);
	ck_assert(cursor_has(&c, 10));
	ck_assert(!cursor_has(&c, 11));
	ck_assert(!c.overrun);	/* asking is not reading */
	ck_assert_ptr_eq(cursor_span(&c, 4), p);
	ck_assert_ptr_eq(cursor_span(&c, 6), p + 4);
	ck_assert_ptr_null(cursor_span(&c, 1));
	ck_assert(c.overrun);

	/* a sub-cursor sees only its bytes, and its overrun is its own */
	c = cursor_init(p, 10);
	cursor_skip(&c, 2);
	struct cursor s = cursor_sub(&c, 3);
	ck_assert_uint_eq(c.pos, 5);
	ck_assert_uint_eq(s.len, 3);
	ck_assert_uint_eq(cursor_be16(&s), 0x3344);
	ck_assert_uint_eq(cursor_be16(&s), 0);
	ck_assert(s.overrun);
	ck_assert(!c.overrun);
	struct cursor t = cursor_sub(&c, 6);	/* 5 left */
	ck_assert(t.overrun);
	ck_assert_uint_eq(cursor_left(&t), 0);
	ck_assert_uint_eq(cursor_u8(&t), 0);
	ck_assert(c.overrun);
	ck_assert_uint_eq(c.pos, 5);
	free(p);
}
END_TEST

START_TEST(bytes_leave_dst_alone_when_short)
{
	uint8_t *p = pattern(5);
	struct cursor c = cursor_init(p, 5);
	uint8_t dst[8];
	memset(dst, 0xee, sizeof dst);
	ck_assert(!cursor_bytes(&c, dst, 6));
	ck_assert(c.overrun);
	for (size_t i = 0; i < sizeof dst; i++)
		ck_assert_uint_eq(dst[i], 0xee);
	ck_assert(cursor_bytes(&c, dst, 5));
	ck_assert_mem_eq(dst, p, 5);
	ck_assert(cursor_bytes(&c, dst, 0));	/* nothing, at the end, is there */
	ck_assert(!cursor_bytes(&c, dst, 1));
	free(p);
}
END_TEST

START_TEST(empty_and_signed)
{
	struct cursor c = cursor_init(NULL, 0);
	ck_assert_uint_eq(cursor_left(&c), 0);
	ck_assert_uint_eq(cursor_u8(&c), 0);
	ck_assert(c.overrun);
	c = cursor_init(NULL, 5);	/* no bytes, whatever the length says */
	ck_assert_uint_eq(cursor_left(&c), 0);

	const uint8_t neg[] = { 0xff, 0xff, 0xff, 0xfe, 0x80, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff };
	c = cursor_init(neg, sizeof neg);
	ck_assert_int_eq(cursor_be32s(&c), -2);
	ck_assert_int_eq(cursor_be32s(&c), INT32_MIN);
	ck_assert_int_eq(cursor_be32s(&c), INT32_MAX);
	ck_assert_int_eq(cursor_be32s(&c), 0);
	ck_assert(c.overrun);

	/* byte order chosen at run time */
	const uint8_t two[] = { 1, 2, 3, 4, 1, 2, 3, 4 };
	c = cursor_init(two, sizeof two);
	ck_assert_uint_eq(cursor_u16(&c, true), 0x0102);
	ck_assert_uint_eq(cursor_u16(&c, false), 0x0403);
	ck_assert_uint_eq(cursor_u32(&c, false), 0x04030201);
	c = cursor_init(two, sizeof two);
	ck_assert_uint_eq(cursor_u64(&c, true), 0x0102030401020304ull);
	ck_assert_uint_eq(cursor_peek_u16(&c, 6, false, NULL), 0x0403);
	ck_assert_uint_eq(cursor_peek_u32(&c, 4, true, NULL), 0x01020304);
}
END_TEST

static Suite *cursor_suite(void)
{
	Suite *s = suite_create("cursor");
	TCase *tc = tcase_create("cursor");
	tcase_add_loop_test(tc, reads_at_and_past_the_end, 0, NKINDS);
	tcase_add_loop_test(tc, peeks_at_and_past_the_end, 0, NKINDS);
	tcase_add_test(tc, skip_seek_span_sub);
	tcase_add_test(tc, bytes_leave_dst_alone_when_short);
	tcase_add_test(tc, empty_and_signed);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(cursor_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
