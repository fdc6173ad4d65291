/*
 * check_flight.c — the flight recorder's ring (xcap/cmd/xcap/flight.h): its bounds,
 * eviction by time and by size, and what a window holds: the state of
 * connections whose records left the ring, then every record from the
 * window's start, and nothing before it.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flight.h"

#define S 1000000000ull		/* ns in a second */
#define T0 (1700000000ull * S)

/* What the output saw: the records of each window in order, as text. */
struct sink {
	int open, closed;
	uint64_t start;
	char log[1 << 16];
	size_t n_recs;
	int fail_open;
};

static int sink_open(void *ctx, uint64_t start)
{
	struct sink *s = ctx;
	if (s->fail_open)
		return -1;
	s->open++;
	s->start = start;
	return 0;
}

static void sink_put(void *ctx, const struct xrec *r)
{
	struct sink *s = ctx;
	char line[256];
	switch (r->type) {
	case XREC_CONN:
		snprintf(line, sizeof line, "conn %u t=%llu;", r->u.conn.id,
			 (unsigned long long)((r->u.conn.ts - T0) / 1000000u));
		break;
	case XREC_PKT:
		snprintf(line, sizeof line, "pkt %u/%u t=%llu;", r->u.pkt.conn, r->u.pkt.seq,
			 (unsigned long long)((r->u.pkt.ts - T0) / 1000000u));
		break;
	case XREC_EXT:
		snprintf(line, sizeof line, "ext %u %s;", r->u.ext.conn, r->u.ext.name);
		break;
	case XREC_NAME:
		snprintf(line, sizeof line, "name %u %s;", r->u.name.conn, r->u.name.text);
		break;
	case XREC_MARK:
		snprintf(line, sizeof line, "mark %u %s;", r->u.mark.source, r->u.mark.text);
		break;
	default:
		snprintf(line, sizeof line, "type %d;", (int)r->type);
		break;
	}
	strncat(s->log, line, sizeof s->log - strlen(s->log) - 1);
	s->n_recs++;
}

static int sink_close(void *ctx)
{
	struct sink *s = ctx;
	s->closed++;
	strncat(s->log, "|", sizeof s->log - strlen(s->log) - 1);
	return 0;
}

static struct flight *make(struct sink *s, uint64_t ring_ns, uint64_t ring_bytes,
			   uint64_t before_ns, uint64_t after_ns)
{
	memset(s, 0, sizeof *s);
	struct flight_options o = { ring_ns, ring_bytes, before_ns, after_ns };
	struct flight_output out = { s, sink_open, sink_put, sink_close };
	struct flight *f = flight_new(&o, &out);
	ck_assert_ptr_nonnull(f);
	return f;
}

static void put_conn(struct flight *f, uint32_t id, uint64_t ms)
{
	struct xrec r = { .type = XREC_CONN };
	r.u.conn.ts = T0 + ms * 1000000u;
	r.u.conn.id = id;
	r.u.conn.proto = "x11";
	ck_assert_int_eq(flight_put(f, &r), 0);
}

static void put_pkt(struct flight *f, uint32_t conn, uint32_t seq, uint64_t ms, uint8_t flags)
{
	struct xrec r = { .type = XREC_PKT };
	r.u.pkt.ts = T0 + ms * 1000000u;
	r.u.pkt.conn = conn;
	r.u.pkt.seq = seq;
	r.u.pkt.tcp_flags = flags;
	r.u.pkt.dir = (uint8_t)(seq & 1);
	ck_assert_int_eq(flight_put(f, &r), 0);
}

/* By time: the ring keeps what is at most ring_ns older than the newest
   record, whatever its count. */
START_TEST(evicts_by_time)
{
	struct sink s;
	struct flight *f = make(&s, 2 * S, 0, 2 * S, S);
	for (unsigned i = 0; i <= 10000; i++)
		put_pkt(f, 1, i, i, 0);		/* one a millisecond for 10 s */
	ck_assert_uint_eq(flight_ring_oldest(f), T0 + 8000 * 1000000ull);
	ck_assert_uint_eq(flight_ring_records(f), 2001);
	ck_assert_int_eq(s.open, 0);	/* nothing written without a trigger */
	ck_assert_uint_eq(s.n_recs, 0);
	flight_free(f);
}
END_TEST

/* By size: the ring's bytes stay under the bound, the newest records
   stay, and a record bigger than the bound alone is still kept. */
START_TEST(evicts_by_size)
{
	struct sink s;
	struct flight *f = make(&s, 0, 64 * 1024, 10 * S, S);
	for (unsigned i = 0; i < 50000; i++) {
		put_pkt(f, 1, i, i, 0);
		ck_assert_uint_le(flight_ring_bytes(f), 64 * 1024);
	}
	size_t n = flight_ring_records(f);
	ck_assert_uint_gt(n, 100);
	ck_assert_uint_eq(flight_ring_oldest(f), T0 + (50000 - n) * 1000000ull);

	struct flight *g = make(&s, 0, 100, 10 * S, S);
	struct xrec m = { .type = XREC_MARK };
	char big[1000];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	m.u.mark = (struct xrec_mark){ T0, 0, XMARK_ATOM, big };
	ck_assert_int_eq(flight_put(g, &m), 0);
	ck_assert_uint_eq(flight_ring_records(g), 1);
	ck_assert_uint_gt(flight_ring_bytes(g), 100);
	put_pkt(g, 1, 1, 1, 0);		/* pushes the big one out */
	ck_assert_uint_eq(flight_ring_records(g), 1);
	flight_free(f);
	flight_free(g);
}
END_TEST

/* A window holds the state of connections from before its start (conn,
   ext, name of open ones, not of closed ones), the window-start mark,
   every record from start on, records during `after`, and the end mark;
   nothing from before the start. */
START_TEST(window_contents)
{
	struct sink s;
	struct flight *f = make(&s, 10 * S, 0, 1 * S, 1 * S);
	put_conn(f, 1, 0);
	struct xrec e = { .type = XREC_EXT };
	e.u.ext = (struct xrec_ext){ T0 + 1000000, 1, 140, 89, 147, "RANDR" };
	ck_assert_int_eq(flight_put(f, &e), 0);
	struct xrec n = { .type = XREC_NAME };
	n.u.name = (struct xrec_name){ T0 + 2000000, 1, "WM_CLASS", "xterm" };
	ck_assert_int_eq(flight_put(f, &n), 0);
	put_conn(f, 2, 3);
	put_pkt(f, 2, 1, 4, XTCP_FIN);
	put_pkt(f, 2, 2, 5, XTCP_FIN);	/* connection 2 closed */
	put_pkt(f, 1, 7, 6000, 0);	/* before the window */
	put_pkt(f, 1, 9, 9500, 0);	/* inside it */
	ck_assert_int_eq(flight_trigger(f, T0 + 10 * S, "test"), 0);
	ck_assert_int_eq(s.open, 1);
	ck_assert_uint_eq(s.start, T0 + 9 * S);
	ck_assert_int_eq(flight_writing(f), 1);
	put_pkt(f, 1, 11, 10500, 0);	/* after, inside the window */
	put_pkt(f, 1, 13, 11500, 0);	/* after its end: closes it */
	ck_assert_int_eq(s.closed, 1);
	ck_assert_str_eq(s.log, "conn 1 t=9000;ext 1 RANDR;name 1 xterm;mark 7 test;"
				"pkt 1/9 t=9500;pkt 1/11 t=10500;mark 8 window 1 ends;|");
	flight_free(f);
}
END_TEST

/* A late segment of a connection closed before the window (the last
   ACK of its close) comes after its connection's record, once per
   window, in the ring's part and the live part alike; a closed
   connection with nothing in the window is not named. */
START_TEST(late_segment_of_closed)
{
	struct sink s;
	struct flight *f = make(&s, 10 * S, 0, 1 * S, 1 * S);
	put_conn(f, 1, 0);
	put_conn(f, 2, 1);
	put_conn(f, 3, 2);
	put_pkt(f, 2, 1, 4, XTCP_FIN);
	put_pkt(f, 2, 2, 5, XTCP_FIN);	/* connection 2 closed */
	put_pkt(f, 3, 1, 6, XTCP_RST);	/* connection 3 closed */
	put_pkt(f, 2, 4, 9200, 0);	/* its last ACK, inside the window */
	put_pkt(f, 1, 9, 9500, 0);
	ck_assert_int_eq(flight_trigger(f, T0 + 10 * S, "test"), 0);
	put_pkt(f, 2, 6, 10200, 0);	/* once more, live */
	put_pkt(f, 1, 13, 11500, 0);	/* closes the window */
	ck_assert_str_eq(s.log, "conn 1 t=9000;mark 7 test;conn 2 t=9200;pkt 2/4 t=9200;"
				"pkt 1/9 t=9500;pkt 2/6 t=10200;mark 8 window 1 ends;|");
	flight_free(f);
}
END_TEST

/* A trigger inside a window extends it; a record out of the window after
   it is not written; a tick past the end closes a window on a quiet link;
   the second window starts afresh with its own state. */
START_TEST(extend_and_tick)
{
	struct sink s;
	struct flight *f = make(&s, 5 * S, 0, 1 * S, 1 * S);
	put_conn(f, 1, 0);
	ck_assert_int_eq(flight_trigger(f, T0 + 100 * 1000000ull, "a"), 0);
	put_pkt(f, 1, 1, 900, 0);
	ck_assert_int_eq(flight_trigger(f, T0 + 900 * 1000000ull, "b"), 0);	/* end 1.9 s */
	put_pkt(f, 1, 3, 1800, 0);
	ck_assert_int_eq(s.closed, 0);
	ck_assert_int_eq(flight_tick(f, T0 + 1850 * 1000000ull), 0);
	ck_assert_int_eq(s.closed, 0);
	ck_assert_int_eq(flight_tick(f, T0 + 2000 * 1000000ull), 0);
	ck_assert_int_eq(s.closed, 1);
	put_pkt(f, 1, 5, 4000, 0);	/* between windows: not written */
	put_pkt(f, 1, 7, 8000, 0);
	ck_assert_int_eq(flight_trigger(f, T0 + 8500 * 1000000ull, "c"), 0);
	ck_assert_int_eq(flight_finish(f, T0 + 8600 * 1000000ull), 0);
	ck_assert_int_eq(s.open, 2);
	ck_assert_int_eq(s.closed, 2);
	ck_assert_str_eq(s.log, "mark 7 a;conn 1 t=0;pkt 1/1 t=900;pkt 1/3 t=1800;"
				"mark 8 window 1 ends;|"
				"conn 1 t=7500;mark 7 c;pkt 1/7 t=8000;mark 8 window 2 ends;|");
	ck_assert_uint_eq(flight_windows(f), 2);
	flight_free(f);
}
END_TEST

/* The size bound pushed out records younger than T - before: the window
   begins after the last of them, so nothing inside it is missing. */
START_TEST(start_after_size_eviction)
{
	struct sink s;
	struct flight *f = make(&s, 0, 4096, 100 * S, S);
	for (unsigned i = 0; i < 1000; i++)
		put_pkt(f, 1, i, i, 0);
	uint64_t oldest = flight_ring_oldest(f);
	ck_assert_uint_gt(oldest, T0);
	ck_assert_int_eq(flight_trigger(f, T0 + 1000 * 1000000ull, "x"), 0);
	ck_assert_uint_gt(s.start, oldest - 1000000u);
	ck_assert_uint_le(s.start, oldest);
	flight_free(f);
}
END_TEST

/* Known late (a slow response, known once it has ended): the window
   begins --before ahead of when it began, not of when it was known, and
   ends --after the moment it was known. */
START_TEST(trigger_from_earlier)
{
	struct sink s;
	struct flight *f = make(&s, 10 * S, 0, 1 * S, 1 * S);
	put_conn(f, 1, 0);
	for (unsigned i = 1; i <= 8; i++)
		put_pkt(f, 1, i, i * 1000, 0);	/* one a second */
	ck_assert_int_eq(flight_trigger_from(f, T0 + 5500 * 1000000ull, T0 + 8000 * 1000000ull,
					     "slow"), 0);
	ck_assert_uint_eq(s.start, T0 + 4500 * 1000000ull);
	put_pkt(f, 1, 9, 8900, 0);
	put_pkt(f, 1, 10, 9100, 0);	/* after 8 s + 1 s: closes the window */
	ck_assert_int_eq(s.closed, 1);
	ck_assert_str_eq(s.log, "conn 1 t=4500;mark 7 slow;pkt 1/5 t=5000;pkt 1/6 t=6000;"
				"pkt 1/7 t=7000;pkt 1/8 t=8000;pkt 1/9 t=8900;"
				"mark 8 window 1 ends;|");
	flight_free(f);
}
END_TEST

START_TEST(open_failure)
{
	struct sink s;
	struct flight *f = make(&s, S, 0, S, S);
	s.fail_open = 1;
	put_pkt(f, 1, 1, 1, 0);
	ck_assert_int_eq(flight_trigger(f, T0 + 1000000, "x"), -1);
	ck_assert_ptr_nonnull(flight_error(f));
	ck_assert_int_eq(flight_put(f, &(struct xrec){ .type = XREC_PKT }), -1);
	flight_free(f);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("flight");
	TCase *tc = tcase_create("ring");
	tcase_add_test(tc, evicts_by_time);
	tcase_add_test(tc, evicts_by_size);
	tcase_add_test(tc, window_contents);
	tcase_add_test(tc, late_segment_of_closed);
	tcase_add_test(tc, extend_and_tick);
	tcase_add_test(tc, start_after_size_eviction);
	tcase_add_test(tc, trigger_from_earlier);
	tcase_add_test(tc, open_failure);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
