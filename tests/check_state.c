/*
 * check_state.c — the state model on hand-made records whose answer is
 * known to the nanosecond: Block Reply from request to reply, Block Send
 * from ACK-elicited and backlogged data, Block Recv behind a closed
 * window, precedence, the range, the capture side from the handshake, the
 * All rows, and the partition of every span.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"

#define MS 1000000ull
#define T0 1000000000000ull	/* the first packet */

/* A little builder: one connection, sequence numbers kept per direction. */
struct sim {
	struct xstate_model *m;
	uint32_t seq[2];
	uint64_t now;
	uint64_t req;			/* requests sent */
	unsigned waits;
	uint64_t waited;
	struct xstate_wait w[16];	/* the first waits, as reported */
};

static void on_wait(void *ctx, const struct xstate_wait *w)
{
	struct sim *s = ctx;
	if (s->waits < sizeof s->w / sizeof s->w[0])
		s->w[s->waits] = *w;
	s->waits++;
	s->waited += w->reply_ts - w->request_ts;
}

static void sim_init(struct sim *s, const struct xstate_options *opt)
{
	memset(s, 0, sizeof *s);
	s->m = xstate_new(opt);
	ck_assert_ptr_nonnull(s->m);
	ck_assert_int_eq(xstate_on_wait(s->m, on_wait, s), 0);
	s->seq[0] = 1000;
	s->seq[1] = 5000;
	struct xrec r = { .type = XREC_CONN };
	r.u.conn.id = 1;
	r.u.conn.proto = "x11";
	ck_assert_int_eq(xstate_record(s->m, &r), 0);
}

/* A packet at T0 + t_ns acknowledging ack, or everything the peer sent
   when ack is 0. */
static void pkt_ack(struct sim *s, uint64_t t_ns, int dir, uint8_t flags, uint32_t len,
		    uint32_t win, uint32_t ack)
{
	struct xrec r = { .type = XREC_PKT };
	r.u.pkt.ts = T0 + t_ns;
	r.u.pkt.conn = 1;
	r.u.pkt.dir = (uint8_t)dir;
	r.u.pkt.tcp_flags = flags;
	r.u.pkt.seq = s->seq[dir];
	r.u.pkt.ack = ack ? ack : s->seq[!dir];
	r.u.pkt.win = win;
	r.u.pkt.len = len;
	s->seq[dir] += len + ((flags & (XTCP_SYN | XTCP_FIN)) ? 1 : 0);
	s->now = r.u.pkt.ts;
	ck_assert_int_eq(xstate_record(s->m, &r), 0);
}

static void pkt(struct sim *s, uint64_t t_ns, int dir, uint8_t flags, uint32_t len, uint32_t win)
{
	pkt_ack(s, t_ns, dir, flags, len, win, 0);
}

static void msg_named(struct sim *s, int dir, enum xmsg_kind kind, uint64_t seq, unsigned flags,
		      const char *ext, const char *name)
{
	struct xrec r = { .type = XREC_MSG };
	r.u.msg.ts = s->now;
	r.u.msg.conn = 1;
	r.u.msg.dir = (uint8_t)dir;
	r.u.msg.kind = (uint8_t)kind;
	r.u.msg.flags = (uint16_t)flags;
	r.u.msg.seq = seq;
	r.u.msg.name = name;
	r.u.msg.ext = ext;
	r.u.msg.detail = "";
	ck_assert_int_eq(xstate_record(s->m, &r), 0);
}

static void msg(struct sim *s, int dir, enum xmsg_kind kind, uint64_t seq, unsigned flags)
{
	struct xrec r = { .type = XREC_MSG };
	r.u.msg.ts = s->now;
	r.u.msg.conn = 1;
	r.u.msg.dir = (uint8_t)dir;
	r.u.msg.kind = (uint8_t)kind;
	r.u.msg.flags = (uint16_t)flags;
	r.u.msg.seq = seq;
	r.u.msg.name = "GetInputFocus";
	r.u.msg.ext = "";
	r.u.msg.detail = "";
	ck_assert_int_eq(xstate_record(s->m, &r), 0);
}

/* A handshake at 0 with the given round trip seen from the client side. */
static void handshake_client_side(struct sim *s, uint64_t rtt)
{
	pkt(s, 0, XDIR_C2S, XTCP_SYN, 0, 65535);
	pkt(s, rtt, XDIR_S2C, XTCP_SYN | XTCP_ACK, 0, 65535);
	pkt(s, rtt + 10000, XDIR_C2S, XTCP_ACK, 0, 65535);
}

/* A blocking round trip: request at t, reply at t + wait. */
static void round_trip(struct sim *s, uint64_t t, uint64_t wait)
{
	pkt(s, t, XDIR_C2S, XTCP_ACK | XTCP_PSH, 4, 65535);
	msg(s, XDIR_C2S, XMSG_REQUEST, ++s->req, XMSG_F_WANTS_REPLY);
	pkt(s, t + wait, XDIR_S2C, XTCP_ACK | XTCP_PSH, 32, 65535);
	msg(s, XDIR_S2C, XMSG_REPLY, s->req, 0);
}

static const struct xstate_conn *finish(struct sim *s)
{
	xstate_finish(s->m);
	ck_assert_uint_eq(xstate_conn_count(s->m), 1);
	const struct xstate_conn *c = xstate_conn_at(s->m, 0);
	/* Every direction's states partition the span. */
	for (int d = 0; d < 2; d++) {
		uint64_t sum = 0;
		for (int st = 0; st < XSTATE_N; st++)
			sum += c->time[d][st];
		ck_assert_uint_eq(sum, c->span);
	}
	return c;
}

START_TEST(test_round_trips)
{
	struct sim s;
	sim_init(&s, NULL);
	handshake_client_side(&s, 40 * MS);
	for (int i = 0; i < 10; i++)
		round_trip(&s, 100 * MS + i * 100 * MS, 40 * MS + i * MS);
	/* A request without a reply is no wait.  One whose reply comes
	   after the client sent more (a void request) is waited on from the
	   client's last data, when it fell silent with it outstanding. */
	pkt(&s, 2000 * MS, XDIR_C2S, XTCP_ACK, 8, 65535);
	msg(&s, XDIR_C2S, XMSG_REQUEST, ++s.req, 0);
	pkt(&s, 2100 * MS, XDIR_C2S, XTCP_ACK, 4, 65535);
	msg(&s, XDIR_C2S, XMSG_REQUEST, ++s.req, XMSG_F_WANTS_REPLY);
	pkt(&s, 2110 * MS, XDIR_C2S, XTCP_ACK, 4, 65535);
	msg(&s, XDIR_C2S, XMSG_REQUEST, ++s.req, 0);
	pkt(&s, 2200 * MS, XDIR_S2C, XTCP_ACK, 32, 65535);
	msg(&s, XDIR_S2C, XMSG_REPLY, s.req - 1, 0);
	const struct xstate_conn *c = finish(&s);
	uint64_t want = 0;
	for (int i = 0; i < 10; i++)
		want += 40 * MS + i * MS;
	ck_assert_uint_eq(s.waited, want + 100 * MS);	/* from its request */
	want += 90 * MS;				/* from the silence */
	ck_assert_uint_eq(c->time[XDIR_C2S][XSTATE_BLOCK_REPLY], want);
	ck_assert_uint_eq(c->waits, 11);
	ck_assert_uint_eq(s.waits, 11);
	ck_assert_uint_eq(c->time[XDIR_S2C][XSTATE_BLOCK_REPLY], 0);
	ck_assert(c->saw_handshake);
	ck_assert_int_eq(c->side, XSIDE_CLIENT);
	ck_assert_uint_eq(c->rtt, 40 * MS + 10000);
	ck_assert_uint_eq(c->span, 2200 * MS);
	ck_assert_uint_eq(xstate_network_delay(c), want);
	xstate_free(s.m);
}
END_TEST

/* The short segment that ends a backlog is held back with it when it
   follows at the backlog's pace; a quarter of a round trip later it is
   the client's new output, and idle time is not made blocked. */
START_TEST(test_backlog_tail)
{
	for (int late = 0; late < 2; late++) {
		struct sim s;
		sim_init(&s, NULL);
		handshake_client_side(&s, 20 * MS);
		uint64_t t = 100 * MS;
		for (int i = 0; i < 4; i++)
			pkt(&s, t + i * MS, XDIR_C2S, XTCP_ACK, 1000, 65535);
		pkt(&s, t + 3 * MS + (late ? 15 : 1) * MS, XDIR_C2S, XTCP_ACK, 300, 65535);
		const struct xstate_conn *c = finish(&s);
		ck_assert_uint_eq(c->time[XDIR_C2S][XSTATE_BLOCK_SEND], late ? 3 * MS : 4 * MS);
		xstate_free(s.m);
	}
}
END_TEST

/* Beside the sender: each pure ACK elicits the next segment at once. */
START_TEST(test_ack_elicited)
{
	struct sim s;
	sim_init(&s, NULL);
	handshake_client_side(&s, 20 * MS);
	uint64_t t = 100 * MS;
	/* Four segments in flight; each ACK takes one and releases one. */
	uint32_t acked = s.seq[XDIR_C2S];
	for (int i = 0; i < 4; i++)
		pkt(&s, t + i * 1000, XDIR_C2S, XTCP_ACK, 1000, 65535);
	t += 3000;
	for (int i = 0; i < 20; i++) {
		/* The ACK 10 ms later releases the next segment 50 us after. */
		t += 10 * MS;
		acked += 1000;
		pkt_ack(&s, t, XDIR_S2C, XTCP_ACK, 0, 65535, acked);
		pkt(&s, t + 50000, XDIR_C2S, XTCP_ACK, 1000, 65535);
		t += 50000;
	}
	/* Data 5 ms after an ACK was not released by it: idle. */
	acked += 1000;
	pkt_ack(&s, t + 10 * MS, XDIR_S2C, XTCP_ACK, 0, 65535, acked);
	pkt(&s, t + 15 * MS, XDIR_C2S, XTCP_ACK, 100, 65535);
	/* Nor is data after an ACK that found little in flight. */
	pkt(&s, t + 100 * MS, XDIR_S2C, XTCP_ACK, 0, 65535);
	pkt(&s, t + 200 * MS, XDIR_C2S, XTCP_ACK, 100, 65535);
	pkt(&s, t + 210 * MS, XDIR_S2C, XTCP_ACK, 0, 65535);
	pkt(&s, t + 210 * MS + 10000, XDIR_C2S, XTCP_ACK, 100, 65535);
	const struct xstate_conn *c = finish(&s);
	/* The backlog rule adds the burst's gaps: 3 x 1 us. */
	ck_assert_uint_eq(c->time[XDIR_C2S][XSTATE_BLOCK_SEND], 20 * (10 * MS + 50000) + 3000);
	ck_assert_uint_eq(c->time[XDIR_C2S][XSTATE_BLOCK_RECV], 0);
	ck_assert_uint_eq(c->time[XDIR_S2C][XSTATE_BLOCK_SEND], 0);
	xstate_free(s.m);
}
END_TEST

/* Beside the receiver: data comes a round trip after the ACK that released it. */
START_TEST(test_receiver_side)
{
	struct sim s;
	sim_init(&s, NULL);
	handshake_client_side(&s, 30 * MS);
	uint64_t t = 100 * MS;
	uint32_t acked = s.seq[XDIR_S2C];
	for (int i = 0; i < 4; i++)
		pkt(&s, t + i * 1000, XDIR_S2C, XTCP_ACK, 1000, 65535);
	t += 3000;
	for (int i = 0; i < 5; i++) {
		acked += 1000;
		pkt_ack(&s, t + 1 * MS, XDIR_C2S, XTCP_ACK, 0, 65535, acked);
		t += 1 * MS + 30 * MS;	/* one RTT later */
		pkt(&s, t, XDIR_S2C, XTCP_ACK, 1000, 65535);
	}
	const struct xstate_conn *c = finish(&s);
	ck_assert_uint_eq(c->time[XDIR_S2C][XSTATE_BLOCK_SEND], 5 * 31 * MS + 3000);
	xstate_free(s.m);
}
END_TEST

/* A full window: the window update releases data, and the time is the
   receiver's. */
START_TEST(test_closed_window)
{
	struct sim s;
	sim_init(&s, NULL);
	handshake_client_side(&s, 1 * MS);
	uint64_t t = 10 * MS;
	/* 4 segments fill a 4000-byte window. */
	for (int i = 0; i < 4; i++)
		pkt(&s, t + i * 10000, XDIR_C2S, XTCP_ACK, 1000, 65535);
	/* The server acknowledges all with a zero window, then opens it 500 ms later. */
	pkt(&s, t + 2 * MS, XDIR_S2C, XTCP_ACK, 0, 0);
	pkt(&s, t + 502 * MS, XDIR_S2C, XTCP_ACK, 0, 4000);
	pkt(&s, t + 502 * MS + 20000, XDIR_C2S, XTCP_ACK, 1000, 65535);
	const struct xstate_conn *c = finish(&s);
	ck_assert_uint_eq(c->time[XDIR_C2S][XSTATE_BLOCK_RECV], 502 * MS + 20000 - 30000);
	/* The burst itself is a backlog of full segments: 3 x 10 us. */
	ck_assert_uint_eq(c->time[XDIR_C2S][XSTATE_BLOCK_SEND], 30000);
	xstate_free(s.m);
}
END_TEST

/* A paced backlog: full segments every 2 ms with data unacknowledged. */
START_TEST(test_backlog)
{
	for (int on = 0; on < 2; on++) {
		struct xstate_options o;
		xstate_options_default(&o);
		o.backlog = on;
		struct sim s;
		sim_init(&s, &o);
		handshake_client_side(&s, 1 * MS);
		for (int i = 0; i < 11; i++)
			pkt(&s, 10 * MS + i * 2 * MS, XDIR_C2S, XTCP_ACK, 1448, 65535);
		const struct xstate_conn *c = finish(&s);
		ck_assert_uint_eq(c->time[XDIR_C2S][XSTATE_BLOCK_SEND], (on ? 20 * MS : 0));
		xstate_free(s.m);
	}
}
END_TEST

/* Block Reply wins over Block Send where they overlap, and the range
   clips everything. */
START_TEST(test_precedence_and_range)
{
	struct xstate_options o;
	xstate_options_default(&o);
	o.range_start = 150 * MS;
	o.range_end = 400 * MS;
	struct sim s;
	sim_init(&s, &o);
	handshake_client_side(&s, 1 * MS);
	/* 100..300: Block Reply, the reply not yet acknowledging the request
	   (a large one, so that its acknowledgement finds enough in flight). */
	uint32_t before = s.seq[XDIR_C2S];
	pkt(&s, 100 * MS, XDIR_C2S, XTCP_ACK | XTCP_PSH, 4000, 65535);
	msg(&s, XDIR_C2S, XMSG_REQUEST, ++s.req, XMSG_F_WANTS_REPLY);
	pkt_ack(&s, 300 * MS, XDIR_S2C, XTCP_ACK | XTCP_PSH, 32, 65535, before);
	msg(&s, XDIR_S2C, XMSG_REPLY, s.req, 0);
	/* An ACK at 300.1 ms elicits data at 300.15: the interval back to the
	   request (100 ms) is Block Send only where it is not Block Reply. */
	pkt(&s, 300 * MS + 100000, XDIR_S2C, XTCP_ACK, 0, 65535);
	pkt(&s, 300 * MS + 150000, XDIR_C2S, XTCP_ACK, 100, 65535);
	pkt(&s, 500 * MS, XDIR_C2S, XTCP_ACK, 0, 65535);
	const struct xstate_conn *c = finish(&s);
	ck_assert_uint_eq(c->span, 250 * MS);
	ck_assert_uint_eq(c->time[XDIR_C2S][XSTATE_BLOCK_REPLY], 150 * MS);
	ck_assert_uint_eq(c->time[XDIR_C2S][XSTATE_BLOCK_SEND], 150000);
	ck_assert_uint_eq(c->time[XDIR_C2S][XSTATE_IDLE], 250 * MS - 150 * MS - 150000);
	xstate_free(s.m);
}
END_TEST

/* Beside the server, the SYN/ACK follows the SYN at once. */
START_TEST(test_server_side)
{
	struct sim s;
	sim_init(&s, NULL);
	pkt(&s, 0, XDIR_C2S, XTCP_SYN, 0, 65535);
	pkt(&s, 50000, XDIR_S2C, XTCP_SYN | XTCP_ACK, 0, 65535);
	pkt(&s, 40 * MS, XDIR_C2S, XTCP_ACK, 0, 65535);
	const struct xstate_conn *c = finish(&s);
	ck_assert_int_eq(c->side, XSIDE_SERVER);
	ck_assert_uint_eq(c->rtt, 40 * MS);
	xstate_free(s.m);
}
END_TEST

/* All: the union over connections, in order of precedence. */
START_TEST(test_all)
{
	struct xstate_model *m = xstate_new(NULL);
	for (uint32_t id = 1; id <= 2; id++) {
		struct xrec r = { .type = XREC_CONN };
		r.u.conn.id = id;
		r.u.conn.proto = "x11";
		xstate_record(m, &r);
	}
	/* Conn 1 waits 100..300, conn 2 waits 200..400: All waits 100..400. */
	uint64_t reqs[2][2] = { { 100, 300 }, { 200, 400 } };
	for (uint32_t id = 1; id <= 2; id++) {
		struct xrec p = { .type = XREC_PKT };
		p.u.pkt = (struct xrec_pkt){ .ts = T0 + (id - 1) * MS, .conn = id, .dir = 0,
					     .tcp_flags = XTCP_ACK, .seq = 1, .ack = 1, .win = 65535 };
		xstate_record(m, &p);
	}
	for (int step = 0; step < 4; step++) {
		/* requests at 100 and 200, replies at 300 and 400 */
		uint32_t id = (uint32_t)(step % 2) + 1;
		int reply = step >= 2;
		struct xrec p = { .type = XREC_PKT };
		p.u.pkt = (struct xrec_pkt){ .ts = T0 + reqs[id - 1][reply] * MS, .conn = id,
					     .dir = (uint8_t)reply, .tcp_flags = XTCP_ACK,
					     .seq = 1, .ack = 1, .win = 65535, .len = reply ? 32 : 4 };
		xstate_record(m, &p);
		struct xrec g = { .type = XREC_MSG };
		g.u.msg = (struct xrec_msg){ .ts = p.u.pkt.ts, .conn = id, .dir = (uint8_t)reply,
					     .kind = reply ? XMSG_REPLY : XMSG_REQUEST,
					     .flags = reply ? 0 : XMSG_F_WANTS_REPLY, .seq = 1,
					     .name = "InternAtom", .ext = "", .detail = "" };
		xstate_record(m, &g);
	}
	xstate_finish(m);
	const struct xstate_conn *all = xstate_all(m);
	ck_assert_uint_eq(all->span, 400 * MS);
	ck_assert_uint_eq(all->time[0][XSTATE_BLOCK_REPLY], 300 * MS);
	ck_assert_uint_eq(all->time[0][XSTATE_IDLE], 100 * MS);
	ck_assert_uint_eq(all->waits, 2);
	ck_assert_uint_eq(xstate_conn_at(m, 0)->time[0][XSTATE_BLOCK_REPLY], 200 * MS);
	ck_assert_uint_eq(xstate_conn_at(m, 1)->time[0][XSTATE_BLOCK_REPLY], 200 * MS);
	xstate_free(m);
}
END_TEST

/* Many intervals: memory stays bounded and nothing is lost in folding. */
/* Requests 1..n (wanting replies) in one packet at t. */
static void batch(struct sim *s, uint64_t t, uint64_t n)
{
	pkt(s, t, XDIR_C2S, XTCP_ACK | XTCP_PSH, (uint32_t)(20 * n), 65535);
	for (uint64_t i = 0; i < n; i++)
		msg(s, XDIR_C2S, XMSG_REQUEST, ++s->req, XMSG_F_WANTS_REPLY);
}

/* Replies to requests a..b in one packet at t, acknowledging ack (0: all
   the client sent). */
static void replies_ack(struct sim *s, uint64_t t, uint64_t a, uint64_t b, uint32_t ack)
{
	pkt_ack(s, t, XDIR_S2C, XTCP_ACK | XTCP_PSH, (uint32_t)(32 * (b - a + 1)), 65535, ack);
	for (uint64_t q = a; q <= b; q++)
		msg(s, XDIR_S2C, XMSG_REPLY, q, 0);
}

static void replies(struct sim *s, uint64_t t, uint64_t a, uint64_t b)
{
	replies_ack(s, t, a, b, 0);
}

static void assert_wait(const struct sim *s, unsigned i, uint64_t seq, uint64_t start,
			uint64_t reply, bool split)
{
	ck_assert_uint_gt(s->waits, i);
	ck_assert_uint_eq(s->w[i].seq, seq);
	ck_assert_uint_eq(s->w[i].start, T0 + start);
	ck_assert_uint_eq(s->w[i].reply_ts, T0 + reply);
	ck_assert_int_eq(s->w[i].split, split);
}

/* A client flushes three QueryExtensions and waits on the first: the
   wait is the first's, not the last's (the original rule, kept as
   XWAIT_LAST, names the last). */
START_TEST(test_pipelined_earliest)
{
	for (int rule = 0; rule < 2; rule++) {
		struct xstate_options o;
		xstate_options_default(&o);
		o.wait_rule = rule ? XWAIT_LAST : XWAIT_EARLIEST;
		struct sim s;
		sim_init(&s, &o);
		handshake_client_side(&s, 40 * MS);
		batch(&s, 100 * MS, 3);
		replies(&s, 140 * MS, 1, 3);
		pkt(&s, 141 * MS, XDIR_C2S, XTCP_ACK | XTCP_PSH, 8, 65535);
		msg(&s, XDIR_C2S, XMSG_REQUEST, ++s.req, 0);
		const struct xstate_conn *c = finish(&s);
		ck_assert_uint_eq(s.waits, 1);
		assert_wait(&s, 0, rule ? 3 : 1, 100 * MS, 140 * MS, false);
		ck_assert_uint_eq(c->time[XDIR_C2S][XSTATE_BLOCK_REPLY], 40 * MS);
		xstate_free(s.m);
	}
}
END_TEST

/* xwininfo -root -tree: the client goes on after the reply it needed;
   the replies to the rest of its flush come after its next request.  No
   wait is lost: the next silence waits on the earliest still unanswered,
   and when those replies take a while (here 4 ms of trickle, then a gap
   of an RTT) the reply to the new request is a wait of its own.  When
   they come at once, too soon to show the client blocked, the wait is
   the new request's, from the start of the silence. */
START_TEST(test_lost_waits)
{
	struct sim s;
	sim_init(&s, NULL);
	handshake_client_side(&s, 40 * MS);
	batch(&s, 100 * MS, 5);
	replies(&s, 140 * MS, 1, 1);
	/* The server acknowledges request 6 with its reply, a round trip
	   after it left, not with the replies sent before it came. */
	uint32_t before = s.seq[XDIR_C2S];
	batch(&s, 141 * MS, 1);		/* request 6 */
	for (uint64_t q = 2; q <= 5; q++)
		replies_ack(&s, 140 * MS + q * 8 * MS, q, q, before);
	replies(&s, 210 * MS, 6, 6);
	pkt(&s, 211 * MS, XDIR_C2S, XTCP_ACK | XTCP_PSH, 8, 65535);
	batch(&s, 212 * MS, 3);		/* 7, 8, 9 */
	replies(&s, 252 * MS, 7, 7);
	pkt(&s, 253 * MS, XDIR_C2S, XTCP_ACK | XTCP_PSH, 8, 65535);
	before = s.seq[XDIR_C2S];
	batch(&s, 254 * MS, 1);		/* 10 */
	replies_ack(&s, 254 * MS + 100000, 8, 9, before);
	replies(&s, 294 * MS, 10, 10);
	pkt(&s, 295 * MS, XDIR_C2S, XTCP_ACK | XTCP_PSH, 8, 65535);
	const struct xstate_conn *c = finish(&s);
	ck_assert_uint_eq(s.waits, 5);
	assert_wait(&s, 0, 1, 100 * MS, 140 * MS, false);
	assert_wait(&s, 1, 2, 141 * MS, 180 * MS, false);
	ck_assert_uint_eq(s.w[1].burst_first, 2);
	ck_assert_uint_eq(s.w[1].burst_last, 5);
	assert_wait(&s, 2, 6, 180 * MS, 210 * MS, true);
	assert_wait(&s, 3, 7, 212 * MS, 252 * MS, false);
	assert_wait(&s, 4, 10, 254 * MS, 294 * MS, false);
	ck_assert_uint_eq(c->time[XDIR_C2S][XSTATE_BLOCK_REPLY], 189 * MS);
	xstate_free(s.m);
}
END_TEST

/* 147 InternAtoms whose replies the server's window splits over two
   round trips: two waits, not one; with splitting off, one. */
START_TEST(test_split)
{
	for (int off = 0; off < 2; off++) {
		struct xstate_options o;
		xstate_options_default(&o);
		if (off)
			o.split_fraction = 0;
		struct sim s;
		sim_init(&s, &o);
		handshake_client_side(&s, 40 * MS);
		batch(&s, 100 * MS, 147);
		replies(&s, 140 * MS, 1, 100);
		replies(&s, 180 * MS, 101, 147);
		/* Replies closer than the gap (half the RTT) do not split. */
		pkt(&s, 181 * MS, XDIR_C2S, XTCP_ACK | XTCP_PSH, 8, 65535);
		batch(&s, 182 * MS, 2);
		replies(&s, 222 * MS, 148, 148);
		replies(&s, 232 * MS, 149, 149);
		pkt(&s, 233 * MS, XDIR_C2S, XTCP_ACK | XTCP_PSH, 8, 65535);
		const struct xstate_conn *c = finish(&s);
		ck_assert_uint_eq(s.waits, off ? 2 : 3);
		if (off) {
			assert_wait(&s, 0, 1, 100 * MS, 180 * MS, false);
		} else {
			assert_wait(&s, 0, 1, 100 * MS, 140 * MS, false);
			assert_wait(&s, 1, 101, 140 * MS, 180 * MS, true);
		}
		assert_wait(&s, off ? 1 : 2, 148, 182 * MS, 232 * MS, false);
		ck_assert_uint_eq(c->time[XDIR_C2S][XSTATE_BLOCK_REPLY], 130 * MS);
		xstate_free(s.m);
	}
}
END_TEST

/* The client's own output still queued before its request left (a
   backlog of full segments) is the wait's queued part; a void request
   checked with a GetInputFocus in its packet is named. */
START_TEST(test_queued_and_sync_after)
{
	struct sim s;
	sim_init(&s, NULL);
	handshake_client_side(&s, 40 * MS);
	for (int i = 0; i <= 10; i++)
		pkt(&s, (100 + (uint64_t)i) * MS, XDIR_C2S, XTCP_ACK, 1448, 65535);
	msg(&s, XDIR_C2S, XMSG_REQUEST, ++s.req, XMSG_F_WANTS_REPLY);
	replies(&s, 150 * MS, s.req, s.req);
	pkt(&s, 200 * MS, XDIR_C2S, XTCP_ACK | XTCP_PSH, 8, 65535);
	msg_named(&s, XDIR_C2S, XMSG_REQUEST, ++s.req, 0, "MIT-SHM", "Attach");
	msg(&s, XDIR_C2S, XMSG_REQUEST, ++s.req, XMSG_F_WANTS_REPLY);
	replies(&s, 240 * MS, s.req, s.req);
	pkt(&s, 241 * MS, XDIR_C2S, XTCP_ACK | XTCP_PSH, 8, 65535);
	const struct xstate_conn *c = finish(&s);
	ck_assert_uint_eq(s.waits, 2);
	assert_wait(&s, 0, 1, 110 * MS, 150 * MS, false);
	ck_assert_uint_eq(s.w[0].queued, 10 * MS);
	ck_assert(!s.w[0].sync_after);
	ck_assert_uint_eq(c->time[XDIR_C2S][XSTATE_BLOCK_SEND], 10 * MS);
	assert_wait(&s, 1, 3, 200 * MS, 240 * MS, false);
	ck_assert_uint_eq(s.w[1].queued, 0);
	ck_assert(s.w[1].sync_after);
	ck_assert_uint_eq(s.w[1].after_seq, 2);
	ck_assert_str_eq(s.w[1].after_name, "Attach");
	ck_assert_str_eq(s.w[1].after_ext, "MIT-SHM");
	xstate_free(s.m);
}
END_TEST

/* A reply to an early request that comes while the client's later output
   (void requests) is still being let out by the network is no wait: the
   client may have been writing all along. */
START_TEST(test_released)
{
	struct sim s;
	sim_init(&s, NULL);
	handshake_client_side(&s, 40 * MS);
	uint32_t acked = s.seq[XDIR_C2S];	/* nothing of what follows */
	pkt(&s, 100 * MS, XDIR_C2S, XTCP_ACK, 1448, 65535);
	msg(&s, XDIR_C2S, XMSG_REQUEST, ++s.req, XMSG_F_WANTS_REPLY);
	for (int i = 1; i <= 100; i++) {
		if (i == 41) {
			/* the reply, acknowledging nothing new */
			pkt_ack(&s, 140 * MS + 500000, XDIR_S2C, XTCP_ACK | XTCP_PSH, 32, 65535, acked);
			msg(&s, XDIR_S2C, XMSG_REPLY, 1, 0);
		}
		pkt(&s, (100 + (uint64_t)i) * MS, XDIR_C2S, XTCP_ACK, 1448, 65535);
		msg(&s, XDIR_C2S, XMSG_REQUEST, ++s.req, 0);
	}
	const struct xstate_conn *c = finish(&s);
	ck_assert_uint_eq(s.waits, 0);
	ck_assert_uint_eq(c->time[XDIR_C2S][XSTATE_BLOCK_REPLY], 0);
	/* Held back all along (by the window, once it filled). */
	ck_assert_uint_eq(c->time[XDIR_C2S][XSTATE_BLOCK_SEND] + c->time[XDIR_C2S][XSTATE_BLOCK_RECV],
			  100 * MS);
	xstate_free(s.m);
}
END_TEST

START_TEST(test_long)
{
	struct sim s;
	sim_init(&s, NULL);
	handshake_client_side(&s, 1 * MS);
	uint64_t want = 0;
	for (int i = 0; i < 200000; i++) {
		round_trip(&s, 10 * MS + (uint64_t)i * 3 * MS, 1 * MS + (uint64_t)(i % 7) * 100000);
		want += 1 * MS + (uint64_t)(i % 7) * 100000;
	}
	const struct xstate_conn *c = finish(&s);
	ck_assert_uint_eq(c->time[XDIR_C2S][XSTATE_BLOCK_REPLY], want);
	ck_assert_uint_eq(c->waits, 200000);
	xstate_free(s.m);
}
END_TEST

/* A second listener does not silently replace the first: every one added
   hears every wait, and past XSTATE_LISTENERS_MAX the model says no. */
static void count_wait(void *ctx, const struct xstate_wait *w)
{
	(void)w;
	++*(unsigned *)ctx;
}

static void count_interval(void *ctx, const struct xstate_interval *iv)
{
	(void)iv;
	++*(unsigned *)ctx;
}

START_TEST(test_listeners)
{
	struct sim s;
	sim_init(&s, NULL);		/* its own on_wait is the first */
	unsigned heard[XSTATE_LISTENERS_MAX] = { 0 }, intervals[2] = { 0 };
	for (int i = 1; i < XSTATE_LISTENERS_MAX; i++)
		ck_assert_int_eq(xstate_on_wait(s.m, count_wait, &heard[i]), 0);
	ck_assert_int_eq(xstate_on_wait(s.m, count_wait, &heard[0]), -1);
	ck_assert_int_eq(xstate_on_wait(s.m, NULL, NULL), -1);
	ck_assert_int_eq(xstate_on_interval(s.m, count_interval, &intervals[0]), 0);
	ck_assert_int_eq(xstate_on_interval(s.m, count_interval, &intervals[1]), 0);
	handshake_client_side(&s, 10 * MS);
	for (int i = 0; i < 3; i++)
		round_trip(&s, 100 * MS + (uint64_t)i * 100 * MS, 20 * MS);
	finish(&s);
	ck_assert_uint_eq(s.waits, 3);
	ck_assert_uint_eq(heard[0], 0);		/* refused: never called */
	for (int i = 1; i < XSTATE_LISTENERS_MAX; i++)
		ck_assert_uint_eq(heard[i], 3);
	ck_assert_uint_gt(intervals[0], 0);
	ck_assert_uint_eq(intervals[0], intervals[1]);
	xstate_free(s.m);
}
END_TEST

int main(void)
{
	Suite *su = suite_create("state");
	TCase *tc = tcase_create("model");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_round_trips);
	tcase_add_test(tc, test_ack_elicited);
	tcase_add_test(tc, test_backlog_tail);
	tcase_add_test(tc, test_receiver_side);
	tcase_add_test(tc, test_closed_window);
	tcase_add_test(tc, test_backlog);
	tcase_add_test(tc, test_precedence_and_range);
	tcase_add_test(tc, test_server_side);
	tcase_add_test(tc, test_all);
	tcase_add_test(tc, test_pipelined_earliest);
	tcase_add_test(tc, test_lost_waits);
	tcase_add_test(tc, test_split);
	tcase_add_test(tc, test_queued_and_sync_after);
	tcase_add_test(tc, test_released);
	tcase_add_test(tc, test_long);
	tcase_add_test(tc, test_listeners);
	suite_add_tcase(su, tc);
	SRunner *sr = srunner_create(su);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
