/*
 * check_capture.c — unit tests of link/IP/TCP decoding and of TCP
 * reassembly.  Each reassembly case is a small synthetic capture built
 * here, fed through the real pipeline with a recording decoder that logs
 * exactly which bytes, gaps and ends the protocol layer was handed.
 */
#include "config.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/dlt.h>

#include "decode.h"
#include "pipeline.h"
#include "protocol.h"

#ifndef DLT_LINUX_SLL2
#define DLT_LINUX_SLL2 276
#endif

/* ---- building frames ---- */

struct frame {
	uint8_t b[70000];
	uint32_t len;
};

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

struct tcpspec {
	int v6;
	uint8_t src_last, dst_last;	/* last address byte: 127.0.0.X or ::X */
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t win;
	int wscale;			/* -1: no option */
	const char *payload;
	uint32_t plen;
};

/* An IP packet carrying one TCP segment, at f->b + off. Returns its length. */
static uint32_t build_ip(uint8_t *p, const struct tcpspec *t)
{
	uint32_t optlen = t->wscale >= 0 ? 4 : 0;
	uint32_t thl = 20 + optlen;
	uint32_t iphl = t->v6 ? 40 : 20;
	uint32_t total = iphl + thl + t->plen;
	memset(p, 0, iphl + thl);
	if (t->v6) {
		p[0] = 0x60;
		put16(p + 4, (uint16_t)(thl + t->plen));
		p[6] = 6;
		p[7] = 64;
		p[8 + 15] = t->src_last;
		p[24 + 15] = t->dst_last;
	} else {
		p[0] = 0x45;
		put16(p + 2, (uint16_t)total);
		p[8] = 64;
		p[9] = 6;
		p[12] = 127; p[15] = t->src_last;
		p[16] = 127; p[19] = t->dst_last;
	}
	uint8_t *tcp = p + iphl;
	put16(tcp, t->sport);
	put16(tcp + 2, t->dport);
	put32(tcp + 4, t->seq);
	put32(tcp + 8, t->ack);
	tcp[12] = (uint8_t)((thl / 4) << 4);
	tcp[13] = t->flags;
	put16(tcp + 14, t->win);
	if (optlen) {
		tcp[20] = 1;		/* NOP */
		tcp[21] = 3; tcp[22] = 3; tcp[23] = (uint8_t)t->wscale;
	}
	if (t->plen)
		memcpy(tcp + thl, t->payload, t->plen);
	return total;
}

/* ---- a decoder that records what it is handed ---- */

static char dlog[65536];

static void logf_(const char *fmt, ...)
{
	size_t n = strlen(dlog);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dlog + n, sizeof dlog - n, fmt, ap);
	va_end(ap);
}

static const char *dirname_(int d) { return d ? "s2c" : "c2s"; }

static struct proto_decoder *rec_create(const struct proto_sink *sink)
{
	(void)sink;
	static int dummy;
	return (struct proto_decoder *)&dummy;
}

static void rec_feed(struct proto_decoder *d, enum proto_dir dir, const uint8_t *data, size_t len)
{
	(void)d;
	logf_("%s:%.*s ", dirname_(dir), (int)len, (const char *)data);
}

static void rec_gap(struct proto_decoder *d, enum proto_dir dir, uint64_t len)
{
	(void)d;
	logf_("%s:gap%llu ", dirname_(dir), (unsigned long long)len);
}

static void rec_end(struct proto_decoder *d, enum proto_dir dir)
{
	(void)d;
	logf_("%s:end ", dirname_(dir));
}

static void rec_destroy(struct proto_decoder *d) { (void)d; }

static void rec_skip(struct proto_decoder *d, enum proto_dir dir, uint64_t len)
{
	(void)d;
	logf_("%s:skip%llu ", dirname_(dir), (unsigned long long)len);
}

static const struct proto_ops recorder = {
	.name = "recorder", .create = rec_create, .feed = rec_feed, .gap = rec_gap,
	.end = rec_end, .destroy = rec_destroy,
};

/* The same, for a decoder that tells skipped bytes from lost ones. */
static const struct proto_ops skip_recorder = {
	.name = "recorder", .create = rec_create, .feed = rec_feed, .gap = rec_gap,
	.end = rec_end, .destroy = rec_destroy, .skip = rec_skip,
};

/* ---- what the pipeline emitted ---- */

static char rlog[65536];
static struct xrec last_pkt, last_conn;
static int n_conn, n_pkt;

static void rlogf(const char *fmt, ...)
{
	size_t n = strlen(rlog);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(rlog + n, sizeof rlog - n, fmt, ap);
	va_end(ap);
}

static void collect(void *ctx, const struct xrec *r)
{
	(void)ctx;
	switch (r->type) {
	case XREC_CONN:
		n_conn++;
		last_conn = *r;
		rlogf("conn%u ", r->u.conn.id);
		break;
	case XREC_PKT:
		n_pkt++;
		last_pkt = *r;
		if (r->u.pkt.events) {
			rlogf("pkt%s", dirname_(r->u.pkt.dir));
			if (r->u.pkt.events & XPKT_RETRANS) rlogf("+retrans");
			if (r->u.pkt.events & XPKT_OVERLAP) rlogf("+overlap");
			if (r->u.pkt.events & XPKT_OOO) rlogf("+ooo");
			if (r->u.pkt.events & XPKT_TRUNC) rlogf("+trunc");
			if (r->u.pkt.events & XPKT_ZEROWIN) rlogf("+zerowin");
			if (r->u.pkt.events & XPKT_WINPROBE) rlogf("+winprobe");
			rlogf(" ");
		}
		break;
	case XREC_GAP: {
		static const char *why[] = { "?", "lost", "snaplen", "ooo-limit", "end", "midstream",
					     "skipped" };
		rlogf("gap:%s:%s:%u+%llu ", dirname_(r->u.gap.dir),
		      why[r->u.gap.reason <= 6 ? r->u.gap.reason : 0], r->u.gap.seq,
		      (unsigned long long)r->u.gap.len);
		break;
	}
	default:
		break;
	}
}

static struct pipeline *pl;
static struct pipeline_options popt;
static uint64_t now;

static void setup(void)
{
	dlog[0] = rlog[0] = '\0';
	n_conn = n_pkt = 0;
	now = 1000000000ull;
	pipeline_default_options(&popt);
	popt.decoder = &recorder;
	pl = pipeline_new(DLT_RAW, &popt, collect, NULL);
}

static void teardown(void)
{
	pipeline_free(pl);
	pl = NULL;
}

/* Client 127.0.0.1:40000, server 127.0.0.2:6000. */
static void send_(int from_server, uint32_t seq, uint32_t ack, uint8_t flags,
		  const char *payload, int wscale, uint32_t caplen_cut)
{
	static struct frame f;
	struct tcpspec t = {
		.src_last = from_server ? 2 : 1, .dst_last = from_server ? 1 : 2,
		.sport = from_server ? 6000 : 40000, .dport = from_server ? 40000 : 6000,
		.seq = seq, .ack = ack, .flags = flags, .win = 100, .wscale = wscale,
		.payload = payload, .plen = payload ? (uint32_t)strlen(payload) : 0,
	};
	f.len = build_ip(f.b, &t);
	now += 1000;
	uint32_t cap = caplen_cut ? f.len - caplen_cut : f.len;
	pipeline_packet(pl, now, f.b, cap, f.len);
}

#define C(seq, ack, fl, data) send_(0, seq, ack, fl, data, -1, 0)
#define S(seq, ack, fl, data) send_(1, seq, ack, fl, data, -1, 0)
#define SYN XTCP_SYN
#define ACK XTCP_ACK
#define PA (XTCP_PSH | XTCP_ACK)
#define FA (XTCP_FIN | XTCP_ACK)

static void handshake(uint32_t cisn, uint32_t sisn)
{
	send_(0, cisn, 0, SYN, NULL, 7, 0);
	send_(1, sisn, cisn + 1, SYN | ACK, NULL, 7, 0);
	C(cisn + 1, sisn + 1, ACK, NULL);
}

/* ---- reassembly cases ---- */

START_TEST(in_order)
{
	handshake(1000, 5000);
	C(1001, 5001, PA, "abc");
	S(5001, 1004, PA, "XY");
	C(1004, 5003, PA, "def");
	ck_assert_str_eq(dlog, "c2s:abc s2c:XY c2s:def ");
	ck_assert_int_eq(n_conn, 2);	/* first sight, then with both scales */
	ck_assert_uint_eq(last_conn.u.conn.flags & XCONN_SAW_SYN, XCONN_SAW_SYN);
	ck_assert_str_eq(rlog, "conn1 conn1 ");
}
END_TEST

START_TEST(sequence_wrap)
{
	handshake(0xfffffffcu, 5000);	/* data starts at 0xfffffffd */
	C(0xfffffffdu, 5001, PA, "abcdef");	/* crosses 2^32 */
	C(3, 5001, PA, "gh");
	C(0xfffffffdu, 5001, PA, "abcdef");	/* a retransmission across the wrap */
	ck_assert_str_eq(dlog, "c2s:abcdef c2s:gh ");
	ck_assert_str_eq(rlog, "conn1 conn1 pktc2s+retrans ");
}
END_TEST

START_TEST(midstream)
{
	/* No SYN: the X port tells the server even when the server speaks first. */
	S(7000, 3000, PA, "hello");
	C(3000, 7005, PA, "hi");
	ck_assert_str_eq(dlog, "s2c:hello c2s:hi ");
	ck_assert_uint_eq(last_conn.u.conn.flags, XCONN_GUESSED);
	ck_assert_uint_eq(last_conn.u.conn.server.port, 6000);
	ck_assert_int_eq(last_conn.u.conn.wscale[0], -1);
}
END_TEST

START_TEST(retransmission_keeps_first_copy)
{
	handshake(1000, 5000);
	C(1001, 5001, PA, "abc");
	C(1001, 5001, PA, "xyz");	/* same bytes again, different content */
	C(1004, 5001, PA, "d");
	ck_assert_str_eq(dlog, "c2s:abc c2s:d ");
	ck_assert(strstr(rlog, "pktc2s+retrans ") != NULL);
}
END_TEST

START_TEST(overlap)
{
	handshake(1000, 5000);
	C(1001, 5001, PA, "abc");
	C(1002, 5001, PA, "BCde");	/* two old bytes, two new */
	ck_assert_str_eq(dlog, "c2s:abc c2s:de ");
	ck_assert(strstr(rlog, "pktc2s+overlap ") != NULL);
}
END_TEST

START_TEST(out_of_order)
{
	handshake(1000, 5000);
	C(1004, 5001, PA, "def");	/* ahead of a hole */
	ck_assert_str_eq(dlog, "");
	C(1001, 5001, PA, "abc");	/* fills it */
	ck_assert_str_eq(dlog, "c2s:abc c2s:def ");
	ck_assert(strstr(rlog, "pktc2s+ooo ") != NULL);
	ck_assert(strstr(rlog, "gap") == NULL);
}
END_TEST

START_TEST(lost_segment)
{
	handshake(1000, 5000);
	C(1001, 5001, PA, "abc");
	/* "def" at 1004 never reaches the capture. */
	C(1007, 5001, PA, "ghi");
	ck_assert_str_eq(dlog, "c2s:abc ");
	S(5001, 1010, ACK, NULL);	/* the server had it all */
	ck_assert_str_eq(dlog, "c2s:abc c2s:gap3 c2s:ghi ");
	ck_assert(strstr(rlog, "gap:c2s:lost:1004+3 ") != NULL);
}
END_TEST

START_TEST(lost_segment_ack_first)
{
	handshake(1000, 5000);
	C(1001, 5001, PA, "abc");
	S(5001, 1007, ACK, NULL);	/* acks "def", which the capture missed */
	ck_assert_str_eq(dlog, "c2s:abc ");	/* not yet: the data may still come */
	C(1007, 5001, PA, "ghi");
	ck_assert_str_eq(dlog, "c2s:abc c2s:gap3 c2s:ghi ");
	ck_assert(strstr(rlog, "gap:c2s:lost:1004+3 ") != NULL);
}
END_TEST

START_TEST(ooo_limit)
{
	pipeline_free(pl);
	popt.ooo_limit_bytes = 5;
	pl = pipeline_new(DLT_RAW, &popt, collect, NULL);
	handshake(1000, 5000);
	C(1004, 5001, PA, "def");
	C(1007, 5001, PA, "ghi");	/* 6 bytes waiting > 5: give up on the hole */
	ck_assert_str_eq(dlog, "c2s:gap3 c2s:def c2s:ghi ");
	ck_assert(strstr(rlog, "gap:c2s:ooo-limit:1001+3 ") != NULL);
}
END_TEST

START_TEST(end_with_hole)
{
	handshake(1000, 5000);
	C(1004, 5001, PA, "def");
	pipeline_finish(pl, now);
	ck_assert_str_eq(dlog, "c2s:gap3 c2s:def c2s:end s2c:end ");
	ck_assert(strstr(rlog, "gap:c2s:end:1001+3 ") != NULL);
}
END_TEST

START_TEST(fin_mid_message)
{
	handshake(1000, 5000);
	C(1001, 5001, PA, "abc");
	C(1004, 5001, FA, "de");
	ck_assert_str_eq(dlog, "c2s:abc c2s:de c2s:end ");
	S(5001, 1007, FA, NULL);
	ck_assert_str_eq(dlog, "c2s:abc c2s:de c2s:end s2c:end ");
}
END_TEST

START_TEST(fin_before_hole_filled)
{
	handshake(1000, 5000);
	C(1004, 5001, FA, "de");	/* the FIN arrives ahead of "abc" */
	ck_assert_str_eq(dlog, "");
	C(1001, 5001, PA, "abc");
	ck_assert_str_eq(dlog, "c2s:abc c2s:de c2s:end ");
}
END_TEST

START_TEST(rst_mid_message)
{
	handshake(1000, 5000);
	C(1001, 5001, PA, "abc");
	C(1007, 5001, PA, "ghi");
	S(5001, 1004, XTCP_RST | ACK, NULL);
	ck_assert_str_eq(dlog, "c2s:abc c2s:gap3 c2s:ghi c2s:end s2c:end ");
	ck_assert(strstr(rlog, "gap:c2s:end:1004+3 ") != NULL);
	C(1010, 5001, PA, "late");	/* after the reset: recorded, not decoded */
	ck_assert_str_eq(dlog, "c2s:abc c2s:gap3 c2s:ghi c2s:end s2c:end ");
	ck_assert_uint_eq(last_pkt.u.pkt.len, 4);
}
END_TEST

START_TEST(snaplen_truncation)
{
	handshake(1000, 5000);
	send_(0, 1001, 5001, PA, "abcdefgh", -1, 5);	/* 3 bytes captured */
	C(1009, 5001, PA, "ij");
	ck_assert_str_eq(dlog, "c2s:abc c2s:gap5 c2s:ij ");
	ck_assert(strstr(rlog, "pktc2s+trunc ") != NULL);
	ck_assert(strstr(rlog, "gap:c2s:snaplen:1004+5 ") != NULL);
}
END_TEST

/* A frame shorter than the snaplen with its payload cut was cut by the
   capture's filter on purpose (xcap/cmd/xcap/cut.h): a gap of reason skipped,
   which a decoder that knows of skipping hears as such, also when the
   segment waited out of order first.  A run of them is one record. */
START_TEST(skipped_by_capture)
{
	for (int knows = 0; knows < 2; knows++) {
		pipeline_free(pl);
		dlog[0] = rlog[0] = '\0';
		popt.snaplen = 65535;
		popt.decoder = knows ? &skip_recorder : &recorder;
		pl = pipeline_new(DLT_RAW, &popt, collect, NULL);
		handshake(1000, 5000);
		C(1001, 5001, PA, "abc");
		send_(0, 1012, 5001, ACK, "12345678", -1, 8);	/* ahead, all cut */
		send_(0, 1004, 5001, ACK, "defghijk", -1, 8);	/* all cut */
		C(1020, 5001, PA, "xyz");
		ck_assert_str_eq(dlog, knows ? "c2s:abc c2s:skip8 c2s:skip8 c2s:xyz "
					     : "c2s:abc c2s:gap8 c2s:gap8 c2s:xyz ");
		/* one record for the run, when it ends */
		ck_assert_msg(strstr(rlog, "gap:c2s:skipped:1004+16 ") != NULL, "%s", rlog);
		ck_assert(strstr(rlog, "snaplen") == NULL);
	}
}
END_TEST

START_TEST(window_scaling)
{
	handshake(1000, 5000);
	ck_assert_int_eq(last_conn.u.conn.wscale[0], 7);
	ck_assert_int_eq(last_conn.u.conn.wscale[1], 7);
	C(1001, 5001, PA, "abc");
	ck_assert_uint_eq(last_pkt.u.pkt.raw_win, 100);
	ck_assert_uint_eq(last_pkt.u.pkt.win, 100u << 7);
}
END_TEST

START_TEST(window_scaling_one_sided)
{
	/* Only the client offers scaling: neither side scales. */
	send_(0, 1000, 0, SYN, NULL, 7, 0);
	send_(1, 5000, 1001, SYN | ACK, NULL, -1, 0);
	C(1001, 5001, PA, "abc");
	ck_assert_uint_eq(last_pkt.u.pkt.win, 100);
	ck_assert_int_eq(last_conn.u.conn.wscale[0], -1);
}
END_TEST

START_TEST(port_reuse_new_connection)
{
	handshake(1000, 5000);
	C(1001, 5001, FA, NULL);
	S(5001, 1002, FA, NULL);
	C(1002, 5002, ACK, NULL);
	handshake(90000, 70000);	/* same 4-tuple, new ISNs */
	C(90001, 70001, PA, "new");
	ck_assert_uint_eq(last_pkt.u.pkt.conn, 2);
	ck_assert_str_eq(dlog, "c2s:end s2c:end c2s:new ");
}
END_TEST

START_TEST(syn_retransmission_same_connection)
{
	send_(0, 1000, 0, SYN, NULL, 7, 0);
	send_(0, 1000, 0, SYN, NULL, 7, 0);
	send_(1, 5000, 1001, SYN | ACK, NULL, 7, 0);
	C(1001, 5001, PA, "abc");
	ck_assert_uint_eq(last_pkt.u.pkt.conn, 1);
	ck_assert_str_eq(dlog, "c2s:abc ");
}
END_TEST

START_TEST(zero_window)
{
	handshake(1000, 5000);
	static struct frame f;
	struct tcpspec t = { .src_last = 2, .dst_last = 1, .sport = 6000, .dport = 40000,
			     .seq = 5001, .ack = 1001, .flags = ACK, .win = 0, .wscale = -1 };
	f.len = build_ip(f.b, &t);
	pipeline_packet(pl, now += 1000, f.b, f.len, f.len);
	ck_assert_uint_eq(last_pkt.u.pkt.events & XPKT_ZEROWIN, XPKT_ZEROWIN);
	C(1001, 5001, PA, "a");		/* a one-byte probe into the closed window */
	ck_assert_uint_eq(last_pkt.u.pkt.events & XPKT_WINPROBE, XPKT_WINPROBE);
}
END_TEST

START_TEST(many_connections)
{
	/* The table grows past its first size and keeps every connection apart. */
	static struct frame f;
	for (int i = 0; i < 2000; i++) {
		struct tcpspec t = { .src_last = 1, .dst_last = 2, .sport = (uint16_t)(20000 + i),
				     .dport = 6000, .seq = 1, .flags = SYN, .win = 1, .wscale = -1 };
		f.len = build_ip(f.b, &t);
		pipeline_packet(pl, now += 1000, f.b, f.len, f.len);
	}
	struct tcpspec t = { .src_last = 1, .dst_last = 2, .sport = 20007, .dport = 6000,
			     .seq = 2, .ack = 1, .flags = PA, .win = 1, .wscale = -1,
			     .payload = "x", .plen = 1 };
	f.len = build_ip(f.b, &t);
	pipeline_packet(pl, now += 1000, f.b, f.len, f.len);
	ck_assert_uint_eq(last_pkt.u.pkt.conn, 8);
	ck_assert_int_eq(n_conn, 2000);
}
END_TEST

/* ---- link decoding ---- */

static struct tcp_seg seg;

static uint32_t v4_packet(uint8_t *p, const char *payload)
{
	struct tcpspec t = { .src_last = 1, .dst_last = 2, .sport = 40000, .dport = 6001,
			     .seq = 42, .ack = 7, .flags = PA, .win = 512, .wscale = -1,
			     .payload = payload, .plen = (uint32_t)strlen(payload) };
	return build_ip(p, &t);
}

static void check_seg(const char *payload)
{
	ck_assert_uint_eq(seg.src.port, 40000);
	ck_assert_uint_eq(seg.dst.port, 6001);
	ck_assert_uint_eq(seg.seq, 42);
	ck_assert_uint_eq(seg.ack, 7);
	ck_assert_uint_eq(seg.win, 512);
	ck_assert_uint_eq(seg.payload_len, strlen(payload));
	ck_assert_uint_eq(seg.payload_cap, strlen(payload));
	ck_assert(memcmp(seg.payload, payload, strlen(payload)) == 0);
}

START_TEST(link_ethernet_vlan)
{
	static uint8_t b[200];
	uint32_t n = 0;
	memset(b, 0xaa, 12);
	n = 12;
	put16(b + n, 0x88a8); n += 2;	/* 802.1ad outer tag */
	put16(b + n, 5); n += 2;
	put16(b + n, 0x8100); n += 2;	/* 802.1Q inner tag */
	put16(b + n, 7); n += 2;
	put16(b + n, 0x0800); n += 2;
	n += v4_packet(b + n, "vlan");
	ck_assert_int_eq(decode_frame(DLT_EN10MB, b, n, n, &seg), DECODE_TCP);
	check_seg("vlan");
	ck_assert_uint_eq(seg.src.family, 4);
	ck_assert_uint_eq(seg.src.addr[0], 127);
	/* Ethernet padding after a short frame is not payload. */
	ck_assert_int_eq(decode_frame(DLT_EN10MB, b, n + 6, n + 6, &seg), DECODE_TCP);
	check_seg("vlan");
}
END_TEST

START_TEST(link_sll_sll2)
{
	static uint8_t b[200];
	memset(b, 0, sizeof b);
	put16(b + 14, 0x0800);
	uint32_t n = 16 + v4_packet(b + 16, "sll");
	ck_assert_int_eq(decode_frame(DLT_LINUX_SLL, b, n, n, &seg), DECODE_TCP);
	check_seg("sll");
	memset(b, 0, sizeof b);
	put16(b, 0x0800);
	n = 20 + v4_packet(b + 20, "sll2");
	ck_assert_int_eq(decode_frame(DLT_LINUX_SLL2, b, n, n, &seg), DECODE_TCP);
	check_seg("sll2");
}
END_TEST

START_TEST(link_null_loop_raw)
{
	static uint8_t b[200];
	/* DLT_NULL in the capturing host's order: little endian AF_INET. */
	b[0] = 2; b[1] = 0; b[2] = 0; b[3] = 0;
	uint32_t n = 4 + v4_packet(b + 4, "null");
	ck_assert_int_eq(decode_frame(DLT_NULL, b, n, n, &seg), DECODE_TCP);
	check_seg("null");
	put32(b, 2);			/* big endian */
	ck_assert_int_eq(decode_frame(DLT_NULL, b, n, n, &seg), DECODE_TCP);
	put32(b, 2);			/* DLT_LOOP is always network order */
	ck_assert_int_eq(decode_frame(DLT_LOOP, b, n, n, &seg), DECODE_TCP);
	check_seg("null");
	n = v4_packet(b, "raw");
	ck_assert_int_eq(decode_frame(DLT_RAW, b, n, n, &seg), DECODE_TCP);
	check_seg("raw");
}
END_TEST

START_TEST(link_ipv6_with_extension_header)
{
	static uint8_t b[200];
	struct tcpspec t = { .v6 = 1, .src_last = 1, .dst_last = 2, .sport = 40000, .dport = 6001,
			     .seq = 42, .ack = 7, .flags = PA, .win = 512, .wscale = -1,
			     .payload = "six", .plen = 3 };
	uint32_t n = build_ip(b, &t);
	ck_assert_int_eq(decode_frame(DLT_RAW, b, n, n, &seg), DECODE_TCP);
	check_seg("six");
	ck_assert_uint_eq(seg.src.family, 6);
	ck_assert_uint_eq(seg.src.addr[15], 1);
	/* The same with an 8-byte destination-options header in front of TCP. */
	static uint8_t e[200];
	memcpy(e, b, 40);
	e[6] = 60;
	put16(e + 4, (uint16_t)(n - 40 + 8));
	memset(e + 40, 0, 8);
	e[40] = 6;
	memcpy(e + 48, b + 40, n - 40);
	ck_assert_int_eq(decode_frame(DLT_RAW, e, n + 8, n + 8, &seg), DECODE_TCP);
	check_seg("six");
}
END_TEST

START_TEST(link_not_tcp_and_bad)
{
	static uint8_t b[200];
	uint32_t n = v4_packet(b, "abc");
	b[9] = 17;			/* UDP */
	ck_assert_int_eq(decode_frame(DLT_RAW, b, n, n, &seg), DECODE_NOT_TCP);
	b[9] = 6;
	put16(b + 6, 100);		/* a later fragment */
	ck_assert_int_eq(decode_frame(DLT_RAW, b, n, n, &seg), DECODE_NOT_TCP);
	put16(b + 6, 0);
	/* Every truncation of the headers is bad, never read past the end. */
	for (uint32_t cut = 0; cut < 40; cut++)
		ck_assert_int_eq(decode_frame(DLT_RAW, b, cut, cut, &seg), DECODE_BAD);
	ck_assert_int_eq(decode_frame(147, b, n, n, &seg), DECODE_BAD);	/* user DLT */
	ck_assert(!decode_link_supported(147));
	b[0] = 0x44;			/* IHL below 5 */
	ck_assert_int_eq(decode_frame(DLT_RAW, b, n, n, &seg), DECODE_BAD);
}
END_TEST

START_TEST(link_snaplen_and_offload)
{
	static uint8_t b[200];
	uint32_t n = v4_packet(b, "abcdefgh");
	/* Captured up to 3 payload bytes of 8. */
	ck_assert_int_eq(decode_frame(DLT_RAW, b, n - 5, n, &seg), DECODE_TCP);
	ck_assert_uint_eq(seg.payload_len, 8);
	ck_assert_uint_eq(seg.payload_cap, 3);
	/* Segmentation offload: total length 0, the frame tells. */
	put16(b + 2, 0);
	ck_assert_int_eq(decode_frame(DLT_RAW, b, n, n, &seg), DECODE_TCP);
	ck_assert_uint_eq(seg.payload_len, 8);
}
END_TEST

static Suite *capture_suite(void)
{
	Suite *s = suite_create("capture");
	TCase *tc = tcase_create("reassembly");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, in_order);
	tcase_add_test(tc, sequence_wrap);
	tcase_add_test(tc, midstream);
	tcase_add_test(tc, retransmission_keeps_first_copy);
	tcase_add_test(tc, overlap);
	tcase_add_test(tc, out_of_order);
	tcase_add_test(tc, lost_segment);
	tcase_add_test(tc, lost_segment_ack_first);
	tcase_add_test(tc, ooo_limit);
	tcase_add_test(tc, end_with_hole);
	tcase_add_test(tc, fin_mid_message);
	tcase_add_test(tc, fin_before_hole_filled);
	tcase_add_test(tc, rst_mid_message);
	tcase_add_test(tc, snaplen_truncation);
	tcase_add_test(tc, skipped_by_capture);
	tcase_add_test(tc, window_scaling);
	tcase_add_test(tc, window_scaling_one_sided);
	tcase_add_test(tc, port_reuse_new_connection);
	tcase_add_test(tc, syn_retransmission_same_connection);
	tcase_add_test(tc, zero_window);
	tcase_add_test(tc, many_connections);
	suite_add_tcase(s, tc);

	tc = tcase_create("link");
	tcase_add_test(tc, link_ethernet_vlan);
	tcase_add_test(tc, link_sll_sll2);
	tcase_add_test(tc, link_null_loop_raw);
	tcase_add_test(tc, link_ipv6_with_extension_header);
	tcase_add_test(tc, link_not_tcp_and_bad);
	tcase_add_test(tc, link_snaplen_and_offload);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(capture_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
