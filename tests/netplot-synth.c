/*
 * netplot-synth.c — a large synthetic X11 trace for netplot's benchmark:
 * netplot-synth PACKETS OUT.xcap
 *
 * One connection: a client streaming 16 kB PolyFillRectangle requests in
 * 1448-byte segments, a GetInputFocus round trip after every eighth, the
 * server acknowledging every other segment and replying; a second, idle
 * connection beside it.  Written straight as trace records (no payload
 * bytes), so ten million packets take seconds and a few hundred MB.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

static struct trace_writer *w;

static void put(const struct xrec *r)
{
	if (trace_writer_put(w, r) < 0) {
		fprintf(stderr, "netplot-synth: cannot write: '%s'\n", trace_writer_error(w));
		exit(1);
	}
}

static void pkt(uint64_t ts, uint32_t conn, int dir, uint8_t flags, uint32_t seq, uint32_t ack,
		uint32_t len)
{
	struct xrec r = { .type = XREC_PKT };
	r.u.pkt = (struct xrec_pkt){ .ts = ts, .conn = conn, .dir = (uint8_t)dir, .tcp_flags = flags,
		.seq = seq, .ack = ack, .raw_win = 512, .win = 512u << 7, .len = len };
	put(&r);
}

static void msg(uint64_t ts, uint32_t conn, int dir, int kind, uint64_t seq, uint32_t end,
		uint32_t length, const char *name, uint8_t major, uint16_t flags)
{
	struct xrec r = { .type = XREC_MSG };
	r.u.msg = (struct xrec_msg){ .ts = ts, .conn = conn, .dir = (uint8_t)dir, .kind = (uint8_t)kind,
		.flags = flags, .major = major, .seq = seq, .length = length, .tcp_end = end,
		.name = name, .ext = "", .detail = "" };
	put(&r);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: netplot-synth PACKETS OUT.xcap\n");
		return 2;
	}
	char *end;
	unsigned long long want = strtoull(argv[1], &end, 10);
	if (*end || want < 10) {
		fprintf(stderr, "netplot-synth: bad packet count: '%s'\n", argv[1]);
		return 2;
	}
	FILE *f = fopen(argv[2], "wb");
	if (!f) {
		fprintf(stderr, "netplot-synth: cannot create: '%s'\n", argv[2]);
		return 1;
	}
	static char buf[1 << 20];
	setvbuf(f, buf, _IOFBF, sizeof buf);
	struct trace_info info = { .host = "synthetic", .iface = "netplot-synth", .tool = "netplot-synth",
				    .linktype = 1, .snaplen = 262144, .ts_precision = 9 };
	char err[256];
	w = trace_writer_new(f, &info, err, sizeof err);
	if (!w) {
		fprintf(stderr, "netplot-synth: %s: '%s'\n", err, argv[2]);
		return 1;
	}
	uint64_t ts = 1700000000000000000ull;
	for (uint32_t id = 1; id <= 2; id++) {
		struct xrec r = { .type = XREC_CONN };
		r.u.conn = (struct xrec_conn){ .ts = ts, .id = id, .flags = XCONN_SAW_SYN,
			.wscale = { 7, 7 }, .proto = "x11" };
		r.u.conn.client.family = r.u.conn.server.family = 4;
		memcpy(r.u.conn.client.addr, "\x7f\0\0\1", 4);
		memcpy(r.u.conn.server.addr, "\x7f\0\0\1", 4);
		r.u.conn.client.port = (uint16_t)(40000 + id);
		r.u.conn.server.port = 6000;
		put(&r);
		struct xrec n = { .type = XREC_NAME };
		n.u.name = (struct xrec_name){ .ts = ts, .conn = id, .source = "WM_CLASS",
			.text = id == 1 ? "synthetic painter" : "synthetic idler" };
		put(&n);
	}
	/* handshake and setup on both connections */
	uint32_t cseq[3] = { 0, 1000, 5000000 }, sseq[3] = { 0, 7000, 9000000 };
	unsigned long long n = 0;
	for (uint32_t id = 1; id <= 2; id++) {
		pkt(ts += 20000, id, 0, XTCP_SYN, cseq[id]++, 0, 0);
		pkt(ts += 20000, id, 1, XTCP_SYN | XTCP_ACK, sseq[id]++, cseq[id], 0);
		pkt(ts += 20000, id, 0, XTCP_ACK, cseq[id], sseq[id], 0);
		pkt(ts += 20000, id, 0, XTCP_ACK | XTCP_PSH, cseq[id], sseq[id], 12);
		cseq[id] += 12;
		msg(ts, id, 0, XMSG_SETUP, 0, cseq[id], 12, "SetupRequest", 0, 0);
		pkt(ts += 50000, id, 1, XTCP_ACK | XTCP_PSH, sseq[id], cseq[id], 44);
		sseq[id] += 44;
		msg(ts, id, 1, XMSG_SETUP, 0, sseq[id], 44, "Setup", 0, 0);
		n += 5;
	}
	/* the painter's stream */
	const uint32_t req = 16384, mss = 1448;
	uint64_t xseq = 0;
	uint32_t left = 0, unacked = 0;
	unsigned reqs = 0;
	while (n + 4 < want) {
		if (!left) {
			if (reqs && reqs % 8 == 0) {
				/* a round trip: GetInputFocus, its reply 200 us later */
				pkt(ts += 10000, 1, 0, XTCP_ACK | XTCP_PSH, cseq[1], sseq[1], 4);
				cseq[1] += 4;
				msg(ts, 1, 0, XMSG_REQUEST, ++xseq, cseq[1], 4, "GetInputFocus", 43, XMSG_F_WANTS_REPLY);
				pkt(ts += 200000, 1, 1, XTCP_ACK | XTCP_PSH, sseq[1], cseq[1], 32);
				sseq[1] += 32;
				msg(ts, 1, 1, XMSG_REPLY, xseq, sseq[1], 32, "GetInputFocus", 43, 0);
				n += 2;
				unacked = 0;
			}
			left = req;
			reqs++;
			xseq++;
		}
		uint32_t len = left < mss ? left : mss;
		pkt(ts += 10000, 1, 0, XTCP_ACK, cseq[1], sseq[1], len);
		cseq[1] += len;
		left -= len;
		n++;
		if (!left)
			msg(ts, 1, 0, XMSG_REQUEST, xseq, cseq[1], req, "PolyFillRectangle", 70, 0);
		if (++unacked == 2) {
			pkt(ts += 2000, 1, 1, XTCP_ACK, sseq[1], cseq[1], 0);
			unacked = 0;
			n++;
		}
	}
	for (uint32_t id = 1; id <= 2; id++) {
		pkt(ts += 20000, id, 0, XTCP_FIN | XTCP_ACK, cseq[id], sseq[id], 0);
		pkt(ts += 20000, id, 1, XTCP_FIN | XTCP_ACK, sseq[id], cseq[id] + 1, 0);
	}
	if (trace_writer_free(w) < 0 || fclose(f) != 0) {
		fprintf(stderr, "netplot-synth: cannot finish: '%s'\n", argv[2]);
		return 1;
	}
	return 0;
}
