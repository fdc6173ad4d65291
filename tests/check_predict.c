/*
 * check_predict.c — the predictor and SLIM's added-delay replay on
 * hand-made traces whose answers are worked out by hand:
 *  - the added delay of each packet through a slower first-in first-out
 *    link, to the nanosecond, and all zeros at the trace's own rate;
 *  - the same per input's response (added_delay.h): the added delay of
 *    the packet carrying the input plus that of the packet carrying the
 *    response's end, found among another connection's packets;
 *  - N blocking round trips replayed over a link of rate W and delay L
 *    wait 2L, the serialisation of request and reply, and the server's
 *    think time each;
 *  - the rate and delay lists of the command line;
 *  - SSH packets' sizes, and the round trips through an ssh -C tunnel;
 *  - the receiver's delayed-ACK timer, which decides whether a slow
 *    link's bulk shows as Block Send;
 *  - waypipe's answers held behind a lone acknowledgement: a commit's
 *    always, another's counted half.
 */
#include "config.h"

#include <check.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "added_delay.h"
#include "predict.h"

#define US 1000ull
#define MS 1000000ull
#define T0 1000000000000ull

static void feed(struct predict_trace *t, const struct xrec *r)
{
	ck_assert_int_eq(predict_record(t, r), 0);
}

static void conn(struct predict_trace *t)
{
	struct xrec r = { .type = XREC_CONN };
	r.u.conn = (struct xrec_conn){ .ts = T0, .id = 1, .flags = XCONN_SAW_SYN,
				       .wscale = { 7, 7 }, .proto = "x11" };
	r.u.conn.client.family = r.u.conn.server.family = 4;
	r.u.conn.server.port = 6000;
	feed(t, &r);
}

/* zlen: the compressed size the pipeline measured, -1 none. */
static long zlen_next = -1;

static void pkt(struct predict_trace *t, uint64_t ts, int dir, uint8_t flags, uint32_t seq,
		uint32_t ack, uint32_t len)
{
	struct xrec r = { .type = XREC_PKT };
	r.u.pkt = (struct xrec_pkt){ .ts = ts, .conn = 1, .dir = (uint8_t)dir, .tcp_flags = flags,
				     .seq = seq, .ack = ack, .raw_win = 512, .win = 65536,
				     .len = len };
	if (len && zlen_next >= 0) {
		r.u.pkt.has_zlen = 1;
		r.u.pkt.zlen = (uint32_t)zlen_next;
	}
	feed(t, &r);
}

static void msg(struct predict_trace *t, uint64_t ts, int dir, uint8_t kind, uint16_t flags,
		uint64_t seq, uint32_t len, uint32_t tcp_end, uint64_t req_ts, uint32_t req_end)
{
	struct xrec r = { .type = XREC_MSG };
	r.u.msg = (struct xrec_msg){ .ts = ts, .conn = 1, .dir = (uint8_t)dir, .kind = kind,
				     .flags = flags, .seq = seq, .length = len, .tcp_end = tcp_end,
				     .name = "GetInputFocus", .ext = "", .detail = "",
				     .req_ts = req_ts, .req_end = req_end };
	feed(t, &r);
}

/* Four packets; overhead 52 bytes; at 8 Mbit/s a byte takes 1 us. */
static struct predict_trace *slim_trace(const uint64_t *ts)
{
	struct predict_options o;
	predict_options_default(&o);
	struct predict_trace *t = predict_new(&o);
	ck_assert_ptr_nonnull(t);
	conn(t);
	pkt(t, T0 + ts[0], 0, XTCP_ACK | XTCP_PSH, 1, 1, 948);		/* wire 1000 */
	pkt(t, T0 + ts[1], 1, XTCP_ACK | XTCP_PSH, 1, 949, 1948);	/* wire 2000, other way */
	pkt(t, T0 + ts[2], 0, XTCP_ACK | XTCP_PSH, 949, 1949, 448);	/* wire 500 */
	pkt(t, T0 + ts[3], 0, XTCP_ACK, 1397, 1949, 0);			/* wire 52 */
	ck_assert_int_eq(predict_finish(t), 0);
	ck_assert_uint_eq(predict_packets(t), 4);
	return t;
}

START_TEST(test_added_delay_by_hand)
{
	static const uint64_t ts[] = { 0, 100 * US, 200 * US, 5000 * US };
	struct predict_trace *t = slim_trace(ts);
	int64_t d[4];
	/* 8 Mbit/s from loopback: the first waits its own 1000 us; the
	   third starts when the first ends (1000 us) and ends 500 us later,
	   1300 us after it was sent; the other direction has its own queue. */
	ck_assert_int_eq(predict_added_delays(t, 8000000, 0, d), 0);
	ck_assert_int_eq(d[0], 1000 * US);
	ck_assert_int_eq(d[1], 2000 * US);
	ck_assert_int_eq(d[2], 1300 * US);
	ck_assert_int_eq(d[3], 52 * US);
	/* 4 Mbit/s, against a trace taken at 8 Mbit/s: 2 us a byte, less
	   the 1 us a byte the trace's own link took. */
	ck_assert_int_eq(predict_added_delays(t, 4000000, 8000000, d), 0);
	ck_assert_int_eq(d[0], 2000 * US - 1000 * US);
	ck_assert_int_eq(d[1], 4000 * US - 2000 * US);
	ck_assert_int_eq(d[2], (2000 + 1000 - 200) * US - 500 * US);
	ck_assert_int_eq(d[3], 104 * US - 52 * US);
	/* 3 Mbit/s: 8/3 us a byte, so 2666.667 us for the first: rounded
	   to the ns. */
	ck_assert_int_eq(predict_added_delays(t, 3000000, 0, d), 0);
	ck_assert_int_eq(d[0], 2666667);
	ck_assert_int_eq(d[2], 2666667 + 1333333 - 200000);
	ck_assert_int_eq(predict_added_delays(t, 0, 0, d), -1);
	predict_free(t);
}
END_TEST

START_TEST(test_added_delay_own_rate)
{
	/* Taken at 8 Mbit/s: each packet leaves when the one before it of
	   its direction has crossed.  Replayed at that rate, nothing is
	   added. */
	static const uint64_t ts[] = { 0, 0, 1000 * US, 1500 * US };
	struct predict_trace *t = slim_trace(ts);
	int64_t d[4];
	ck_assert_int_eq(predict_added_delays(t, 8000000, 8000000, d), 0);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(d[i], 0);
	predict_free(t);
}
END_TEST

/* ---- per input's response ---- */

static void afeed(struct added_delay *a, const struct xrec *r)
{
	ck_assert_int_eq(added_delay_record(a, r, true), 0);
}

static void aconn(struct added_delay *a, uint32_t id)
{
	struct xrec r = { .type = XREC_CONN };
	r.u.conn = (struct xrec_conn){ .ts = T0, .id = id, .flags = XCONN_SAW_SYN,
				       .wscale = { 7, 7 }, .proto = "x11" };
	r.u.conn.client.family = r.u.conn.server.family = 4;
	r.u.conn.server.port = 6000;
	r.u.conn.client.port = (uint16_t)(40000 + id);
	afeed(a, &r);
}

static void apkt(struct added_delay *a, uint64_t ts, uint32_t conn, int dir, uint32_t seq,
		 uint32_t len)
{
	struct xrec r = { .type = XREC_PKT };
	r.u.pkt = (struct xrec_pkt){ .ts = T0 + ts, .conn = conn, .dir = (uint8_t)dir,
				     .tcp_flags = XTCP_ACK | (len ? XTCP_PSH : 0), .seq = seq,
				     .ack = 1, .raw_win = 512, .win = 65536, .len = len };
	afeed(a, &r);
}

static void amsg(struct added_delay *a, uint64_t ts, int dir, uint8_t kind, uint64_t seq,
		 const char *name, const char *detail, uint32_t len, uint32_t tcp_end)
{
	struct xrec r = { .type = XREC_MSG };
	r.u.msg = (struct xrec_msg){ .ts = T0 + ts, .conn = 1, .dir = (uint8_t)dir, .kind = kind,
				     .seq = seq, .length = len, .tcp_end = tcp_end, .name = name,
				     .ext = "", .detail = detail };
	afeed(a, &r);
}

/* An added-delay run with every option at its default.  The options are
   static: nothing need be known of what added_delay_new keeps of them. */
static struct added_delay *default_added_delay(void)
{
	static struct predict_options po;
	static struct xresp_options ro;
	predict_options_default(&po);
	xresp_options_default(&ro);
	struct added_delay *a = added_delay_new(&po, &po.model, &ro);
	ck_assert_ptr_nonnull(a);
	return a;
}

/* An xterm's keystroke, by hand, on connection 1, with connection 2's
   acknowledgement sharing the link (overhead 52 bytes a packet):
     p0  t[0]  server to client  2000 bytes on the wire (an earlier burst)
     p1  t[1]  server to client    84  KeyPress: the input
     p2  t[2]  client to server  1000  ChangeProperty (draws nothing)
     p3  t[3]  client to server   100  PolyText8: the response's end
     p4  t[4]  client to server    52  connection 2's acknowledgement
     p5  500 ms server to client   84  KeyRelease: an input that draws nothing */
static struct added_delay *typed_trace(const uint64_t *t)
{
	struct added_delay *a = default_added_delay();
	aconn(a, 1);
	aconn(a, 2);
	apkt(a, t[0], 1, XDIR_S2C, 1, 1948);
	apkt(a, t[1], 1, XDIR_S2C, 1949, 32);
	amsg(a, t[1], XDIR_S2C, XMSG_EVENT, 10, "KeyPress", "key=38 keysym=0x61 event=0x200018",
	     32, 1981);
	apkt(a, t[2], 1, XDIR_C2S, 1, 948);
	amsg(a, t[2], XDIR_C2S, XMSG_REQUEST, 11, "ChangeProperty", "", 948, 949);
	apkt(a, t[3], 1, XDIR_C2S, 949, 48);
	amsg(a, t[3], XDIR_C2S, XMSG_REQUEST, 12, "PolyText8", "", 48, 997);
	apkt(a, t[4], 2, XDIR_C2S, 1, 0);
	apkt(a, 500 * MS, 1, XDIR_S2C, 1981, 32);
	amsg(a, 500 * MS, XDIR_S2C, XMSG_EVENT, 12, "KeyRelease",
	     "key=38 keysym=0x61 event=0x200018", 32, 2013);
	ck_assert_int_eq(added_delay_finish(a), 0);
	ck_assert_uint_eq(predict_packets(added_delay_trace(a)), 6);
	ck_assert_uint_eq(added_delay_inputs(a), 2);
	ck_assert_uint_eq(added_delay_responses(a), 1);
	const struct added_input *in = added_delay_input(a, 0);
	ck_assert_int_eq(in->r.kind, XINPUT_KEY_PRESS);
	ck_assert_uint_eq(in->r.end_ts, T0 + t[3]);
	ck_assert_uint_eq(in->in_pkt, 1);
	/* Not connection 2's packet, at the same time or later. */
	ck_assert_uint_eq(in->end_pkt, 3);
	return a;
}

START_TEST(test_added_delay_responses_by_hand)
{
	static const uint64_t t[] = { 0, 100 * US, 150 * US, 300 * US, 300 * US };
	struct added_delay *a = typed_trace(t);
	int64_t d[6];
	struct added_response r[2];
	/* 8 Mbit/s from loopback, 1 us a byte.  Server to client: p0 ends
	   at 2000, p1 waits for it and ends at 2084, 1984 after it was sent.
	   Client to server: p2 ends at 1150, p3 waits for it and ends at
	   1250, 950 after it was sent; p4 at 1302.  The response: 1984 + 950. */
	ck_assert_int_eq(added_delay_run(a, 8000000, 0, d, r), 0);
	ck_assert_int_eq(d[1], 1984 * US);
	ck_assert_int_eq(d[3], 950 * US);
	ck_assert_int_eq(d[4], 1002 * US);
	ck_assert(r[0].known);
	ck_assert_int_eq(r[0].input, 1984 * US);
	ck_assert_int_eq(r[0].end, 950 * US);
	ck_assert_int_eq(r[0].total, 2934 * US);
	/* The key's release drew nothing: no response to delay. */
	ck_assert(!r[1].known);
	ck_assert_int_eq(d[5], 84 * US);
	/* 4 Mbit/s against a trace taken at 8: p1 ends at 4168, less its
	   own 84; p3 ends at 150 + 2 * (1000 + 100) = 2350, less 100. */
	ck_assert_int_eq(added_delay_run(a, 4000000, 8000000, NULL, r), 0);
	ck_assert_int_eq(r[0].input, (4168 - 100 - 84) * US);
	ck_assert_int_eq(r[0].end, (2350 - 300 - 100) * US);
	ck_assert_int_eq(r[0].total, 5934 * US);
	/* 3 Mbit/s, 8/3 us a byte: p1 ends at 2084 * 8/3 = 5557.333 us,
	   5457.333 after it was sent; p3 at 150 + 1100 * 8/3 = 3083.333,
	   2783.333 after.  Each rounded to the ns, then added. */
	ck_assert_int_eq(added_delay_run(a, 3000000, 0, NULL, r), 0);
	ck_assert_int_eq(r[0].input, 5457333);
	ck_assert_int_eq(r[0].end, 2783333);
	ck_assert_int_eq(r[0].total, 8240666);
	ck_assert_int_eq(added_delay_run(a, 0, 0, NULL, r), -1);
	added_delay_free(a);
}
END_TEST

START_TEST(test_added_delay_responses_own_rate)
{
	/* Taken at 8 Mbit/s: each packet leaves after the one before it of
	   its direction has crossed (p1 after p0's 2000 us, p3 after p2's
	   1000, p4 after p3's 100).  Nothing is added, to any packet or to
	   the response. */
	static const uint64_t t[] = { 0, 2000 * US, 2050 * US, 3050 * US, 3150 * US };
	struct added_delay *a = typed_trace(t);
	int64_t d[6];
	struct added_response r[2];
	ck_assert_int_eq(added_delay_run(a, 8000000, 8000000, d, r), 0);
	for (int i = 0; i < 6; i++)
		ck_assert_int_eq(d[i], 0);
	ck_assert(r[0].known);
	ck_assert_int_eq(r[0].input, 0);
	ck_assert_int_eq(r[0].end, 0);
	ck_assert_int_eq(r[0].total, 0);
	/* Slower than it was taken at, the response gains delay. */
	ck_assert_int_eq(added_delay_run(a, 4000000, 8000000, d, r), 0);
	ck_assert_int_gt(r[0].total, 0);
	added_delay_free(a);
}
END_TEST

/* --predict-responses by hand, over a link of no rate limit and 10 ms
   one way, on connection 1:
     c0    0 us  client to server  48  NoOperation (the client's own pace)
     k   100 us  server to client  32  KeyPress: the input
     c1  150 us  client to server  48  ChangeProperty
     c2  300 us  client to server  48  PolyText8: the response's end
   The key is beside the client at 10.1 ms; c1 is tied to it and leaves
   its think time (50 us) after, at 10.15 ms; c2 its own 150 us later, at
   10.3 ms.  Beside the client 0.2 ms, and the display a round trip away:
   20.2 ms.  Untied, c1 and c2 would keep the client's pace from c0 and
   leave before the key came. */
START_TEST(test_predicted_responses_by_hand)
{
	struct added_delay *a = default_added_delay();
	aconn(a, 1);
	apkt(a, 0, 1, XDIR_C2S, 1, 48);
	amsg(a, 0, XDIR_C2S, XMSG_REQUEST, 9, "NoOperation", "", 48, 49);
	apkt(a, 100 * US, 1, XDIR_S2C, 1, 32);
	amsg(a, 100 * US, XDIR_S2C, XMSG_EVENT, 9, "KeyPress", "key=38 keysym=0x61 event=0x200018",
	     32, 33);
	apkt(a, 150 * US, 1, XDIR_C2S, 49, 48);
	amsg(a, 150 * US, XDIR_C2S, XMSG_REQUEST, 10, "ChangeProperty", "", 48, 97);
	apkt(a, 300 * US, 1, XDIR_C2S, 97, 48);
	amsg(a, 300 * US, XDIR_C2S, XMSG_REQUEST, 11, "PolyText8", "", 48, 145);
	ck_assert_int_eq(added_delay_finish(a), 0);
	ck_assert_uint_eq(added_delay_inputs(a), 1);
	int64_t r[1];
	struct predict_result res;
	struct predict_link link = { .rate = 0, .delay = 10 * MS };
	ck_assert_int_eq(added_delay_replay(a, &link, &res, r), 0);
	ck_assert_int_eq(r[0], 20200 * US);
	/* On the trace's own link (none): its own response. */
	link.delay = 0;
	ck_assert_int_eq(added_delay_replay(a, &link, &res, r), 0);
	ck_assert_int_eq(r[0], 200 * US);
	added_delay_free(a);
}
END_TEST

static unsigned waits_heard;
static void count_wait(void *ctx, const struct xstate_wait *w)
{
	(void)ctx;
	(void)w;
	waits_heard++;
}

/* On loopback: a handshake, then n GetInputFocus, each answered 50 us
   later, the client thinking 1 ms after each reply.  With ssh, for an
   ssh -C prediction, the requests measured 6 bytes compressed and the
   replies 100 (when zlen is set). */
/* The client's think time after each reply in round_trip_trace_via. */
static uint64_t rt_think = 1 * MS;

static struct predict_trace *round_trip_trace_via(int n, bool ssh, bool zlen, uint64_t wake)
{
	struct predict_options o;
	predict_options_default(&o);
	o.ssh_compression = ssh;
	o.wake = wake;
	struct predict_trace *t = predict_new(&o);
	ck_assert_ptr_nonnull(t);
	conn(t);
	uint32_t cs = 1000, ss = 5000;	/* initial sequence numbers */
	pkt(t, T0, 0, XTCP_SYN, cs, 0, 0);
	pkt(t, T0 + 10 * US, 1, XTCP_SYN | XTCP_ACK, ss, cs + 1, 0);
	pkt(t, T0 + 20 * US, 0, XTCP_ACK, cs + 1, ss + 1, 0);
	uint64_t now = T0 + 1 * MS;
	uint32_t c = cs + 1, s = ss + 1;
	for (int k = 0; k < n; k++) {
		zlen_next = zlen ? 6 : -1;
		pkt(t, now, 0, XTCP_ACK | XTCP_PSH, c, s, 4);
		msg(t, now, 0, XMSG_REQUEST, XMSG_F_WANTS_REPLY, (uint64_t)k + 1, 4, c + 4, 0, 0);
		uint64_t req = now;
		c += 4;
		now += 50 * US;
		zlen_next = zlen ? 100 : -1;
		pkt(t, now, 1, XTCP_ACK | XTCP_PSH, s, c, 32);
		zlen_next = -1;
		msg(t, now, 1, XMSG_REPLY, 0, (uint64_t)k + 1, 32, s + 32, req, c);
		s += 32;
		pkt(t, now + 5 * US, 0, XTCP_ACK, c, s, 0);
		now += rt_think;
	}
	ck_assert_int_eq(predict_finish(t), ssh && !zlen ? PREDICT_NO_ZLEN : 0);
	return t;
}

static struct predict_trace *round_trip_trace(int n)
{
	return round_trip_trace_via(n, false, false, 0);
}

START_TEST(test_round_trips_replayed)
{
	enum { N = 5 };
	struct predict_trace *t = round_trip_trace(N);
	ck_assert_uint_eq(predict_measured(t)->waits, N);
	ck_assert_uint_eq(predict_writes(t), 3 + 2 * N - 1);	/* SYN, SYN/ACK, data */

	/* 8 Mbit/s (1 us a byte), 10 ms each way: a wait is the request's
	   56 bytes, 10 ms, the server's 50 us, the reply's 84 bytes, 10 ms. */
	struct predict_link link = { .rate = 8000000, .delay = 10 * MS };
	struct predict_result r;
	waits_heard = 0;
	ck_assert_int_eq(predict_run(t, &link, &r, count_wait, NULL), 0);
	ck_assert_uint_eq(r.waits, N);
	ck_assert_uint_eq(waits_heard, N);
	uint64_t one = 56 * US + 10 * MS + 50 * US + 84 * US + 10 * MS;
	ck_assert_uint_eq(r.block_reply, N * one);
	ck_assert_uint_eq(r.block_send, 0);
	ck_assert_uint_eq(r.network_delay, N * one);
	ck_assert_uint_eq(r.segments, 2 * N);
	/* The span: the handshake (SYN 52 bytes and back, then 1 ms of the
	   client's think time, as in the trace, after the SYN/ACK came), the
	   waits and the client's 1 ms after each of the first N-1 replies;
	   the replay acknowledges the last reply as it comes. */
	uint64_t handshake = 52 * US + 10 * MS + 10 * US + 52 * US + 10 * MS;
	uint64_t span = handshake + (1 * MS - 10 * US) + N * one + (N - 1) * 1 * MS;
	ck_assert_uint_eq(r.span, span);
	predict_free(t);
}
END_TEST

/* SSH packets by hand: 4 bytes of length, 1 of padding length, the
   channel data's 9 bytes and the compressed data, padding to a multiple
   of 8 of all but the length (at least 4), a 16-byte tag; 16 KB of X
   data a packet. */
START_TEST(test_ssh_wire)
{
	/* 50 + 9 = 59; 1 + 59 = 60, padded by 4 to 64. */
	ck_assert_uint_eq(predict_ssh_wire(100, 50), 4 + 1 + 59 + 4 + 16);
	/* 6 + 9 = 15; 16 is a multiple already: 8 more. */
	ck_assert_uint_eq(predict_ssh_wire(4, 6), 4 + 1 + 15 + 8 + 16);
	/* 100 + 9 = 109; 110 needs 2, fewer than 4: 10. */
	ck_assert_uint_eq(predict_ssh_wire(32, 100), 4 + 1 + 109 + 10 + 16);
	/* 40000 bytes are three packets of 1000 compressed bytes each:
	   1009, padded by 6. */
	ck_assert_uint_eq(predict_ssh_wire(40000, 3000), 3 * (4 + 1 + 1009 + 6 + 16));
}
END_TEST

/* Through ssh -C: the round trips of round_trip_trace at their SSH
   packets' sizes; the handshake is with the local sshd, the SYN crossing
   the link as the channel's opening, and the first request leaving when
   the confirmation is back. */
START_TEST(test_ssh_round_trips)
{
	enum { N = 5 };
	struct predict_trace *bare = round_trip_trace_via(N, true, false, 0);
	predict_free(bare);	/* no compressed sizes: said, not guessed */
	struct predict_trace *t = round_trip_trace_via(N, true, true, 0);
	size_t with_data;
	ck_assert_uint_eq(predict_unmeasured(t, &with_data), 0);
	ck_assert_uint_eq(with_data, 2 * N);
	struct predict_link link = { .rate = 8000000, .delay = 10 * MS };
	struct predict_result r;
	ck_assert_int_eq(predict_run(t, &link, &r, NULL, NULL), 0);
	ck_assert_uint_eq(r.waits, N);
	/* A request is 44 bytes of SSH and 52 of headers, a reply 140 and
	   52 (test_ssh_wire); 1 us a byte. */
	uint64_t one = 96 * US + 10 * MS + 50 * US + 192 * US + 10 * MS;
	/* The channel's opening (the SYN, 52 bytes) and its confirmation
	   (after the server's 10 us) are back 20.114 ms after the SYN; the
	   client wrote its first request 1 ms after it, which waited for
	   that beside its round trip. */
	uint64_t gate = 52 * US + 10 * MS + 10 * US + 52 * US + 10 * MS;
	/* ssh and sshd add their forwarding time to every round trip, the
	   channel's opening and confirmation too: half of it each way. */
	uint64_t fwd = PREDICT_SSH_FORWARD;
	ck_assert_uint_eq(r.block_reply, N * (one + fwd) + gate + fwd - 1 * MS);
	ck_assert_uint_eq(r.block_send, 0);
	ck_assert_uint_eq(r.network_delay, r.block_reply);
	predict_free(t);
}
END_TEST

/* Waking (predict_options.wake).  In the trace the client waited 50 us
   for each reply, less than PREDICT_WAKE_AFTER, and the server 1.05 ms
   for each request, more: over 10 ms each way only the client now waits
   long enough to wake late, and that is its own time after the reply
   came, not the network's: the span grows by a wake a write (the N
   requests, the first after the SYN/ACK), the waits do not.  Through the
   tunnel the forwarders wake instead: ssh beside the server for each
   request and sshd beside the client for each reply, idle since the
   round trip before, and for the channel's opening and its confirmation:
   the waits grow by two wakes a round trip and two for the first
   request, which waited for the confirmation. */
START_TEST(test_wake)
{
	enum { N = 5 };
	const uint64_t W = 70 * US;
	struct predict_link link = { .rate = 8000000, .delay = 10 * MS };
	struct predict_result r0, r1;
	for (int ssh = 0; ssh <= 1; ssh++) {
		struct predict_trace *t0 = round_trip_trace_via(N, ssh, ssh, 0);
		struct predict_trace *t1 = round_trip_trace_via(N, ssh, ssh, W);
		ck_assert_int_eq(predict_run(t0, &link, &r0, NULL, NULL), 0);
		ck_assert_int_eq(predict_run(t1, &link, &r1, NULL, NULL), 0);
		ck_assert_uint_eq(r1.waits, N);
		if (!ssh) {
			ck_assert_uint_eq(r1.block_reply, r0.block_reply);
			ck_assert_uint_eq(r1.span, r0.span + N * W);
		} else {
			ck_assert_uint_eq(r1.block_reply, r0.block_reply + (2 * N + 2) * W);
		}
		ck_assert_uint_eq(r1.block_send, r0.block_send);
		predict_free(t0);
		predict_free(t1);
	}
	/* A client that thinks 20 us: in the trace the server waited 70 us
	   for each request but the first, and over the link long, so it
	   answers each a wake late.  Through the tunnel ssh beside it woke
	   instead, and the server finds the processor awake: the same two
	   wakes a round trip. */
	rt_think = 20 * US;
	for (int ssh = 0; ssh <= 1; ssh++) {
		struct predict_trace *t0 = round_trip_trace_via(N, ssh, ssh, 0);
		struct predict_trace *t1 = round_trip_trace_via(N, ssh, ssh, W);
		ck_assert_int_eq(predict_run(t0, &link, &r0, NULL, NULL), 0);
		ck_assert_int_eq(predict_run(t1, &link, &r1, NULL, NULL), 0);
		ck_assert_uint_eq(r1.block_reply, r0.block_reply + (ssh ? 2 * N + 2 : N - 1) * W);
		predict_free(t0);
		predict_free(t1);
	}
	rt_think = 1 * MS;
	/* Over a link as fast as loopback nobody waits long: nothing added. */
	struct predict_link lo = { .rate = 0, .delay = 1 * US };
	struct predict_trace *t0 = round_trip_trace_via(N, false, false, 0);
	struct predict_trace *t1 = round_trip_trace_via(N, false, false, W);
	ck_assert_int_eq(predict_run(t0, &lo, &r0, NULL, NULL), 0);
	ck_assert_int_eq(predict_run(t1, &lo, &r1, NULL, NULL), 0);
	ck_assert_uint_eq(r1.span, r0.span);
	ck_assert_uint_eq(r1.block_reply, r0.block_reply);
	predict_free(t0);
	predict_free(t1);
}
END_TEST

/* A reply of 24 full segments, at 100 kbit/s a segment every 120 ms:
   past the quick-ACK mode's 16, the receiver holds every second
   segment's acknowledgement for the next one, until its delayed-ACK
   timer runs out.  With 0.1 ms one way the timer (40 ms) runs out before
   the next segment comes, so no segment arrives with data unacknowledged
   and the state model counts no Block Send; with 100 ms (a timer of the
   round trip, 200 ms) and without the timer it does. */
static struct predict_trace *bulk_reply_trace(const struct predict_options *o)
{
	struct predict_trace *t = predict_new(o);
	ck_assert_ptr_nonnull(t);
	conn(t);
	uint32_t cs = 1000, ss = 5000, len = 24 * 1448;
	pkt(t, T0, 0, XTCP_SYN, cs, 0, 0);
	pkt(t, T0 + 10 * US, 1, XTCP_SYN | XTCP_ACK, ss, cs + 1, 0);
	pkt(t, T0 + 20 * US, 0, XTCP_ACK, cs + 1, ss + 1, 0);
	pkt(t, T0 + 1 * MS, 0, XTCP_ACK | XTCP_PSH, cs + 1, ss + 1, 4);
	msg(t, T0 + 1 * MS, 0, XMSG_REQUEST, XMSG_F_WANTS_REPLY, 1, 4, cs + 5, 0, 0);
	pkt(t, T0 + 1 * MS + 50 * US, 1, XTCP_ACK | XTCP_PSH, ss + 1, cs + 5, len);
	msg(t, T0 + 1 * MS + 50 * US, 1, XMSG_REPLY, 0, 1, len, ss + 1 + len, T0 + 1 * MS, cs + 5);
	pkt(t, T0 + 1 * MS + 60 * US, 0, XTCP_ACK, cs + 5, ss + 1 + len, 0);
	ck_assert_int_eq(predict_finish(t), 0);
	return t;
}

START_TEST(test_delack_timer)
{
	struct predict_options o;
	predict_options_default(&o);
	struct predict_trace *t = bulk_reply_trace(&o);
	struct predict_result r;
	struct predict_link fast_delay = { .rate = 100000, .delay = 100 * US },
			    long_delay = { .rate = 100000, .delay = 100 * MS };
	ck_assert_int_eq(predict_run(t, &fast_delay, &r, NULL, NULL), 0);
	ck_assert_uint_eq(r.waits, 1);
	ck_assert_uint_eq(r.block_send, 0);
	ck_assert_int_eq(predict_run(t, &long_delay, &r, NULL, NULL), 0);
	ck_assert_uint_gt(r.block_send, 0);
	predict_free(t);
	o.delack = 0;		/* no timer: every second acknowledgement held */
	t = bulk_reply_trace(&o);
	ck_assert_int_eq(predict_run(t, &fast_delay, &r, NULL, NULL), 0);
	ck_assert_uint_gt(r.block_send, 0);
	predict_free(t);
}
END_TEST

/* waypipe's held answers (predict.c, wp_alone): a request, the
   compositor's short answer 50 us later, and the application's short
   answer 1 ms after that, with or without a wl_shm commit in it (the
   relay's note).  Each answer waits behind its lone acknowledgement a
   round trip, the 8 bytes' and the ACK's serialisation (60 + 52 us at
   8 Mbit/s) and, for the application's (its peer has answered), the
   40 ms delayed ACK: 20.112 ms and 60.112 ms.  The compositor's counts
   half; the application's all when it commits, half when not. */
static struct predict_trace *waypipe_trace(bool commit)
{
	struct predict_options o;
	predict_options_default(&o);
	o.waypipe = true;
	struct predict_trace *t = predict_new(&o);
	ck_assert_ptr_nonnull(t);
	conn(t);
	uint32_t cs = 1000, ss = 5000;
	pkt(t, T0, 0, XTCP_SYN, cs, 0, 0);
	pkt(t, T0 + 10 * US, 1, XTCP_SYN | XTCP_ACK, ss, cs + 1, 0);
	pkt(t, T0 + 20 * US, 0, XTCP_ACK, cs + 1, ss + 1, 0);
	pkt(t, T0 + 1 * MS, 0, XTCP_ACK | XTCP_PSH, cs + 1, ss + 1, 12);
	pkt(t, T0 + 1 * MS + 50 * US, 1, XTCP_ACK | XTCP_PSH, ss + 1, cs + 13, 24);
	pkt(t, T0 + 2 * MS + 50 * US, 0, XTCP_ACK | XTCP_PSH, cs + 13, ss + 25, 20);
	if (commit) {
		struct xrec r = { .type = XREC_NOTE };
		r.u.note = (struct xrec_note){ .ts = T0 + 2 * MS + 50 * US, .conn = 1, .dir = 0,
					       .text = "shm read 400 of 400 bytes: wl_surface@3.commit "
						       "wl_buffer@4 10x10 stride 40 format 0 pool 400, "
						       "1 damage rect, waypipe 100 bytes" };
		feed(t, &r);
	}
	pkt(t, T0 + 3 * MS, 1, XTCP_ACK, ss + 25, cs + 33, 0);
	ck_assert_int_eq(predict_finish(t), 0);
	return t;
}

START_TEST(test_waypipe_held)
{
	uint64_t compositor = 2 * 10 * MS + 60 * US + 52 * US, application = compositor + 40 * MS;
	uint64_t span[2];
	for (int commit = 0; commit < 2; commit++) {
		struct predict_trace *t = waypipe_trace(commit);
		struct predict_link link = { .rate = 8000000, .delay = 10 * MS };
		struct predict_link none = link, all = link;
		none.wp_none = true;
		all.wp_all = true;
		struct predict_result r, rn, ra;
		ck_assert_int_eq(predict_run(t, &link, &r, NULL, NULL), 0);
		ck_assert_int_eq(predict_run(t, &none, &rn, NULL, NULL), 0);
		ck_assert_int_eq(predict_run(t, &all, &ra, NULL, NULL), 0);
		ck_assert_uint_eq(r.wp_held, 2);
		ck_assert_uint_eq(ra.wp_wait, compositor + application);
		ck_assert_uint_eq(rn.wp_wait, 0);
		uint64_t expected = compositor / 2 + (commit ? application : application / 2);
		ck_assert_uint_eq(r.wp_wait, expected);
		span[commit] = r.span;
		predict_free(t);
	}
	/* the commit's answer leaves the other half of its wait later, and
	   its 100 bytes of diff take 100 us more: so does the session's end */
	ck_assert_uint_eq(span[1] - span[0], application / 2 + 100 * US);
}
END_TEST

/* A reply written in n pieces of 352 bytes 5 us apart (as Xvfb writes
   GLX's GetFBConfigs), after a 4-byte request. */
static struct predict_trace *pieces_trace(const struct predict_options *o, int n)
{
	struct predict_trace *t = predict_new(o);
	ck_assert_ptr_nonnull(t);
	conn(t);
	uint32_t cs = 1000, ss = 5000, piece = 352;
	pkt(t, T0, 0, XTCP_SYN, cs, 0, 0);
	pkt(t, T0 + 10 * US, 1, XTCP_SYN | XTCP_ACK, ss, cs + 1, 0);
	pkt(t, T0 + 20 * US, 0, XTCP_ACK, cs + 1, ss + 1, 0);
	pkt(t, T0 + 1 * MS, 0, XTCP_ACK | XTCP_PSH, cs + 1, ss + 1, 4);
	msg(t, T0 + 1 * MS, 0, XMSG_REQUEST, XMSG_F_WANTS_REPLY, 1, 4, cs + 5, 0, 0);
	uint64_t at = T0 + 1 * MS + 50 * US;
	for (int k = 0; k < n; k++)
		pkt(t, at + (uint64_t)k * 5 * US, 1, XTCP_ACK | XTCP_PSH, ss + 1 + (uint32_t)k * piece,
		    cs + 5, piece);
	uint32_t len = (uint32_t)n * piece;
	uint64_t last = at + (uint64_t)(n - 1) * 5 * US;
	msg(t, last, 1, XMSG_REPLY, 0, 1, len, ss + 1 + len, T0 + 1 * MS, cs + 5);
	pkt(t, last + 10 * US, 0, XTCP_ACK, cs + 5, ss + 1 + len, 0);
	ck_assert_int_eq(predict_finish(t), 0);
	return t;
}

/* Coalescing, worked by hand at 8 Mbit/s (a byte a microsecond, 404 us
   a piece with its 52 bytes of headers) and 0.1 ms one way.  The
   counts are data segments, the request's one among them. */
START_TEST(test_coalescing)
{
	struct predict_options o;
	predict_options_default(&o);
	struct predict_link l = { .rate = 8000000, .delay = 100 * US };
	struct predict_result r;
	/* The first ten pieces go alone (the initial window of 10).  The
	   first acknowledgement is back 656 us after the reply began (404 +
	   100 out, 100 + 52 back); meanwhile pieces 10-13 and 40 bytes of 14
	   have made a full segment, which leaves then, and the rest of 14
	   (312 bytes), 15-17 and 80 bytes of 18 the next, for which the
	   window has room too.  Then it is full until the second
	   acknowledgement (1060 us), and all the others, written by 195 us,
	   wait with the 272 bytes left of 18: 7664 bytes, five full
	   segments and one of 424.  10 + 2 + 6. */
	struct predict_trace *t = pieces_trace(&o, 40);
	ck_assert_int_eq(predict_run(t, &l, &r, NULL, NULL), 0);
	ck_assert_uint_eq(r.segments, 1 + 18);
	ck_assert_uint_eq(r.waits, 1);
	predict_free(t);
	/* 200 pieces: the same up to the second full segment, then 272
	   bytes and 181 pieces, all written by 995 us, before the window
	   opens again: 63984 bytes, 44 full segments and one of 272.  Past
	   the 16 acknowledged at once the receiver acknowledges every second
	   full segment, so a capture beside the client sees full segments
	   arrive with data unacknowledged: the reply is held back (Block
	   Send), as on a real link.  With a window that never fills, the 200
	   pieces go alone, each acknowledged at once, and nothing is. */
	t = pieces_trace(&o, 200);
	ck_assert_int_eq(predict_run(t, &l, &r, NULL, NULL), 0);
	ck_assert_uint_eq(r.segments, 1 + 10 + 2 + 45);
	ck_assert_uint_gt(r.block_send, 10 * MS);
	predict_free(t);
	o.initial_window = 1000;
	t = pieces_trace(&o, 200);
	ck_assert_int_eq(predict_run(t, &l, &r, NULL, NULL), 0);
	ck_assert_uint_eq(r.segments, 1 + 200);
	ck_assert_uint_eq(r.block_send, 0);
	predict_free(t);
}
END_TEST

/* Many links on several threads give what they give one by one, in the
   order of the links, however many threads share them. */
START_TEST(test_run_all_threads)
{
	struct predict_trace *t = round_trip_trace(40);
	static const struct predict_link links[] = {
		{ .rate = 100000000, .delay = 100000 }, { .rate = 10000000, .delay = 1 * MS },
		{ .rate = 1000000, .delay = 10 * MS }, { .rate = 100000, .delay = 100 * MS },
		{ .rate = 10000, .delay = 0 }, { .rate = 0, .delay = 5 * MS },
		{ .rate = 64000, .delay = 1 * MS },
	};
	enum { NL = sizeof links / sizeof links[0] };
	struct predict_result one[NL], all[NL];
	for (size_t k = 0; k < NL; k++)
		ck_assert_int_eq(predict_run(t, &links[k], &one[k], NULL, NULL), 0);
	/* The links differ: a mix-up of results would show. */
	ck_assert_uint_ne(one[0].network_delay, one[3].network_delay);
	static const unsigned threads[] = { 0, 1, 2, 3, NL + 5 };
	for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
		memset(all, 0xa5, sizeof all);
		ck_assert_int_eq(predict_run_all(t, links, NL, all, threads[i]), 0);
		for (size_t k = 0; k < NL; k++) {
			ck_assert_uint_eq(all[k].span, one[k].span);
			ck_assert_uint_eq(all[k].network_delay, one[k].network_delay);
			ck_assert_uint_eq(all[k].block_send, one[k].block_send);
			ck_assert_uint_eq(all[k].block_reply, one[k].block_reply);
			ck_assert_uint_eq(all[k].waits, one[k].waits);
			ck_assert_uint_eq(all[k].segments, one[k].segments);
			ck_assert_uint_eq(all[k].max_queue, one[k].max_queue);
		}
	}
	predict_free(t);
}
END_TEST

START_TEST(test_lists)
{
	uint64_t v[8];
	ck_assert_int_eq(predict_parse_rates("100M,10M,1.5M,100k,64,1G", v, 8), 6);
	ck_assert_uint_eq(v[0], 100000000);
	ck_assert_uint_eq(v[2], 1500000);
	ck_assert_uint_eq(v[3], 100000);
	ck_assert_uint_eq(v[4], 64);
	ck_assert_uint_eq(v[5], 1000000000);
	ck_assert_int_eq(predict_parse_delays("0.1,0,50", v, 8), 3);
	ck_assert_uint_eq(v[0], 100000);
	ck_assert_uint_eq(v[1], 0);
	ck_assert_uint_eq(v[2], 50000000);
	static const char *const bad_rates[] = { "", ",", "10M,", "0", "10X", "-1M", "1e13", "M", "nan" };
	for (size_t i = 0; i < sizeof bad_rates / sizeof bad_rates[0]; i++)
		ck_assert_msg(predict_parse_rates(bad_rates[i], v, 8) < 0, "%s", bad_rates[i]);
	static const char *const bad_delays[] = { "", "1,,2", "-1", "fast", "1MS", "2e6", "17min" };
	for (size_t i = 0; i < sizeof bad_delays / sizeof bad_delays[0]; i++)
		ck_assert_msg(predict_parse_delays(bad_delays[i], v, 8) < 0, "%s", bad_delays[i]);
	ck_assert_int_eq(predict_parse_rates("1,2,3", v, 2), -1);
	char buf[32];
	predict_format_rate(buf, sizeof buf, 1500000);
	ck_assert_str_eq(buf, "1.5M");
	predict_format_rate(buf, sizeof buf, 100000);
	ck_assert_str_eq(buf, "100k");
	predict_format_rate(buf, sizeof buf, 64);
	ck_assert_str_eq(buf, "64");
}
END_TEST

int main(void)
{
	Suite *su = suite_create("predict");
	TCase *tc = tcase_create("predict");
	tcase_add_test(tc, test_added_delay_by_hand);
	tcase_add_test(tc, test_added_delay_own_rate);
	tcase_add_test(tc, test_added_delay_responses_by_hand);
	tcase_add_test(tc, test_added_delay_responses_own_rate);
	tcase_add_test(tc, test_predicted_responses_by_hand);
	tcase_add_test(tc, test_round_trips_replayed);
	tcase_add_test(tc, test_run_all_threads);
	tcase_add_test(tc, test_lists);
	tcase_add_test(tc, test_ssh_wire);
	tcase_add_test(tc, test_ssh_round_trips);
	tcase_add_test(tc, test_delack_timer);
	tcase_add_test(tc, test_wake);
	tcase_add_test(tc, test_coalescing);
	tcase_add_test(tc, test_waypipe_held);
	suite_add_tcase(su, tc);
	SRunner *sr = srunner_create(su);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
