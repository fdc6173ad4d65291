/*
 * responses-synth.c — a long synthetic interactive X11 session for
 * make bench-responses: responses-synth INPUTS OUT.xcap
 *
 * One connection over a link of 20 ms RTT: the server delivers a key
 * press or release every 50 ms (pointer motion, a press and a release
 * now and then), and the client answers most with a GetInputFocus round
 * trip and a few drawing requests, the server acknowledging.  Written
 * straight as trace records, so a million inputs take seconds.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

static struct trace_writer *w;
static uint32_t cseq = 1000, sseq = 7000;
static uint64_t xseq, ts = 1700000000000000000ull;

static void put(const struct xrec *r)
{
	if (trace_writer_put(w, r) < 0) {
		fprintf(stderr, "responses-synth: cannot write: '%s'\n", trace_writer_error(w));
		exit(1);
	}
}

static void pkt(int dir, uint8_t flags, uint32_t len)
{
	struct xrec r = { .type = XREC_PKT };
	r.u.pkt = (struct xrec_pkt){ .ts = ts, .conn = 1, .dir = (uint8_t)dir, .tcp_flags = flags,
		.seq = dir ? sseq : cseq, .ack = dir ? cseq : sseq, .raw_win = 512,
		.win = 512u << 7, .len = len };
	put(&r);
	if (dir)
		sseq += len;
	else
		cseq += len;
}

static void msg(int dir, int kind, uint32_t length, const char *name, uint8_t major,
		uint16_t flags, const char *detail, uint64_t req_ts)
{
	pkt(dir, XTCP_ACK | XTCP_PSH, length);
	struct xrec r = { .type = XREC_MSG };
	r.u.msg = (struct xrec_msg){ .ts = ts, .conn = 1, .dir = (uint8_t)dir, .kind = (uint8_t)kind,
		.flags = flags, .major = major, .seq = xseq, .length = length,
		.tcp_end = dir ? sseq : cseq, .name = name, .ext = "", .detail = detail,
		.req_ts = req_ts, .req_end = req_ts ? cseq : 0 };
	put(&r);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: responses-synth INPUTS OUT.xcap\n");
		return 2;
	}
	char *end;
	unsigned long long inputs = strtoull(argv[1], &end, 10);
	if (*end || !inputs) {
		fprintf(stderr, "responses-synth: bad input count: '%s'\n", argv[1]);
		return 2;
	}
	FILE *f = fopen(argv[2], "wb");
	if (!f) {
		fprintf(stderr, "responses-synth: cannot create: '%s'\n", argv[2]);
		return 1;
	}
	static char buf[1 << 20];
	setvbuf(f, buf, _IOFBF, sizeof buf);
	struct trace_info info = { .host = "synthetic", .iface = "responses-synth",
				   .tool = "responses-synth", .linktype = 1, .snaplen = 262144,
				   .ts_precision = 9 };
	char err[256];
	if (!(w = trace_writer_new(f, &info, err, sizeof err))) {
		fprintf(stderr, "responses-synth: %s: '%s'\n", err, argv[2]);
		return 1;
	}
	const uint64_t half_rtt = 10000000, ms = 1000000;
	struct xrec r = { .type = XREC_CONN };
	r.u.conn = (struct xrec_conn){ .ts = ts, .id = 1, .flags = XCONN_SAW_SYN,
		.wscale = { 7, 7 }, .proto = "x11" };
	r.u.conn.client.family = r.u.conn.server.family = 4;
	memcpy(r.u.conn.client.addr, "\x0a\0\0\1", 4);
	memcpy(r.u.conn.server.addr, "\x0a\0\0\2", 4);
	r.u.conn.client.port = 40001;
	r.u.conn.server.port = 6000;
	put(&r);
	/* the handshake, beside the client */
	pkt(0, XTCP_SYN, 0);
	cseq++;
	ts += 2 * half_rtt;
	pkt(1, XTCP_SYN | XTCP_ACK, 0);
	sseq++;
	pkt(0, XTCP_ACK, 0);
	msg(0, XMSG_SETUP, 12, "SetupRequest", 0, 0, "", 0);
	ts += 2 * half_rtt;
	msg(1, XMSG_SETUP, 44, "Setup", 0, 0, "", ts - 2 * half_rtt);
	static const char *const names[] = { "KeyPress", "KeyRelease", "MotionNotify",
					     "ButtonPress", "ButtonRelease" };
	char detail[200];
	for (unsigned long long i = 0; i < inputs; i++) {
		ts += 200 * ms;
		unsigned k = i % 16 < 12 ? (unsigned)(i % 2) : i % 16 < 14 ? 2u : 3u + (unsigned)(i % 2);
		snprintf(detail, sizeof detail, "%s=%u time=%llu root=0x1d5 event=0x200001 "
			 "root_xy=%u,%u event_xy=%u,%u state=0x0", k < 2 ? "key" : "button",
			 k < 2 ? 38 + (unsigned)(i % 20) : 1, (i * 50) & 0xffffffffu,
			 (unsigned)(i % 640), (unsigned)(i % 480), (unsigned)(i % 640), (unsigned)(i % 480));
		msg(1, XMSG_EVENT, 32, names[k], (uint8_t)(2 + k), 0,
		    k == 2 ? detail + strlen("button=1 ") : detail, 0);
		if (i % 4 == 3)
			continue;	/* no response */
		ts += 1 * ms;
		xseq++;
		msg(0, XMSG_REQUEST, 4, "GetInputFocus", 43, XMSG_F_WANTS_REPLY, "", 0);
		uint64_t req = ts;
		ts += 2 * half_rtt + (i % 7) * 100000;
		msg(1, XMSG_REPLY, 32, "GetInputFocus", 43, 0, "", req);
		for (int d = 0; d < 3; d++) {
			ts += 300000;
			xseq++;
			msg(0, XMSG_REQUEST, 20, "PolyFillRectangle", 70, 0, "", 0);
		}
		ts += half_rtt;
		pkt(1, XTCP_ACK, 0);
	}
	if (trace_writer_free(w) < 0 || fclose(f) != 0) {
		fprintf(stderr, "responses-synth: cannot finish: '%s'\n", argv[2]);
		return 1;
	}
	return 0;
}
