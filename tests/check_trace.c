/*
 * check_trace.c — the trace format: every record type survives a round
 * trip; damage is reported and read past; a truncated file reads up to its
 * last complete block; unknown record types and fields are skipped; the
 * dump text quotes what needs quoting.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "trace.h"

static const struct trace_info info = {
	.host = "testhost", .iface = "lo", .filter = "tcp port 6000", .tool = "xcap test",
	.linktype = 1, .snaplen = 262144, .ts_precision = 9,
};

/* One record of every type, with awkward values. */
static struct xrec sample(unsigned i)
{
	struct xrec r;
	memset(&r, 0, sizeof r);
	uint64_t ts = 1700000000000000000ull + i * 1000ull;
	switch (i % 9) {
	case 0:
		r.type = XREC_CONN;
		r.u.conn = (struct xrec_conn){ .ts = ts, .id = i + 1, .flags = XCONN_SAW_SYN,
			.wscale = { 7, -1 }, .proto = "x11" };
		r.u.conn.client.family = 6;
		r.u.conn.client.addr[15] = 1;
		r.u.conn.client.port = 45678;
		r.u.conn.server.family = 4;
		memcpy(r.u.conn.server.addr, "\x7f\0\0\1", 4);
		r.u.conn.server.port = 6000;
		break;
	case 1:
		r.type = XREC_PKT;
		r.u.pkt = (struct xrec_pkt){ .ts = ts - 5000, /* time goes back */
			.conn = 1, .dir = XDIR_S2C, .tcp_flags = XTCP_ACK | XTCP_PSH,
			.events = XPKT_RETRANS | XPKT_ZEROWIN, .seq = 0xffffffffu, .ack = i,
			.raw_win = 65535, .win = 65535u << 7, .len = 1448,
			/* format 1.3: a compressed size on some, 0 among them */
			.has_zlen = (uint8_t)((i / 9) & 1), .zlen = (i / 9) & 1 ? i % 5 : 0 };
		break;
	case 2:
		r.type = XREC_MSG;
		r.u.msg = (struct xrec_msg){ .ts = ts, .conn = 1, .dir = XDIR_C2S,
			.kind = XMSG_REQUEST, .flags = 1, .major = 16, .minor = 0,
			.seq = 0x100000001ull, .length = 28, .tcp_end = 41,
			.name = "InternAtom", .ext = "", .detail = "WM \"PROTOCOLS\"\n" };
		break;
	case 3:
		r.type = XREC_EXT;
		r.u.ext = (struct xrec_ext){ .ts = ts, .conn = 2, .major = 140,
			.first_event = 89, .first_error = 147, .name = "RANDR" };
		break;
	case 4:
		r.type = XREC_NAME;
		r.u.name = (struct xrec_name){ .ts = ts, .conn = 2, .source = "WM_CLASS",
			.text = "xterm XTerm" };
		break;
	case 5:
		r.type = XREC_GAP;
		r.u.gap = (struct xrec_gap){ .ts = ts, .conn = 3, .dir = XDIR_S2C,
			.reason = XGAP_LOST, .seq = 1000, .len = 1ull << 40 };
		break;
	case 6:
		r.type = XREC_STATS;
		r.u.stats = (struct xrec_stats){ .ts = ts, .packets = i, .bytes = UINT64_MAX,
			.kernel_recv = 3, .kernel_drop = 4, .if_drop = 5, .not_tcp = 6,
			.bad_link = 7 };
		break;
	case 7:
		r.type = XREC_NOTE;
		r.u.note = (struct xrec_note){ .ts = ts, .conn = 0, .dir = 0, .text = "" };
		break;
	default:	/* format 1.2 */
		r.type = XREC_MARK;
		r.u.mark = (struct xrec_mark){ .ts = ts, .conn = i % 2, .source = XMARK_ATOM,
			.text = "a mark \"quoted\"" };
		break;
	}
	return r;
}

/* The dump line of a record: comparing these compares every field. */
static char *line_of(const struct xrec *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	xrec_dump(f, r);
	fclose(f);
	return buf;
}

/* Write n sample records, flushing every flush_every (0: never). */
static char *write_trace(unsigned n, unsigned flush_every, size_t *size)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, size);
	char err[256];
	struct trace_writer *w = trace_writer_new(f, &info, err, sizeof err);
	ck_assert_ptr_nonnull(w);
	for (unsigned i = 0; i < n; i++) {
		struct xrec r = sample(i);
		ck_assert_int_eq(trace_writer_put(w, &r), 0);
		if (flush_every && (i + 1) % flush_every == 0)
			ck_assert_int_eq(trace_writer_flush(w), 0);
	}
	ck_assert_int_eq(trace_writer_free(w), 0);
	fclose(f);
	return buf;
}

struct readout {
	unsigned records, problems, mismatches;
	unsigned first_index;	/* sample index of the first record read */
	char warnings[2048];
};

static void collect_warning(void *ctx, const char *msg)
{
	struct readout *o = ctx;
	size_t n = strlen(o->warnings);
	snprintf(o->warnings + n, sizeof o->warnings - n, "%s\n", msg);
}

/* Read a trace, checking that records are consecutive samples.  Returns
   0 if the header was refused. */
static int read_trace(const void *data, size_t size, struct readout *o)
{
	memset(o, 0, sizeof *o);
	FILE *f = fmemopen((void *)data, size, "rb");
	char err[256];
	struct trace_reader *r = trace_reader_new(f, err, sizeof err);
	if (!r) {
		fclose(f);
		snprintf(o->warnings, sizeof o->warnings, "%s", err);
		return 0;
	}
	trace_reader_on_warning(r, collect_warning, o);
	struct xrec rec;
	long expect = -1;
	while (trace_reader_next(r, &rec) == 1) {
		/* Find which sample this is from its time (and its type). */
		char *got = line_of(&rec);
		long idx = -1;
		for (unsigned i = expect < 0 ? 0 : (unsigned)expect; i < 100000; i++) {
			struct xrec s = sample(i);
			char *want = line_of(&s);
			int same = strcmp(got, want) == 0;
			free(want);
			if (same) {
				idx = i;
				break;
			}
			if (expect >= 0)
				break;	/* after the first, records must be consecutive
					   unless a block was lost */
		}
		if (idx < 0 && expect >= 0) {
			/* a lost block: search from further on */
			for (unsigned i = (unsigned)expect; i < 100000 && idx < 0; i++) {
				struct xrec s = sample(i);
				char *want = line_of(&s);
				if (strcmp(got, want) == 0)
					idx = i;
				free(want);
			}
		}
		free(got);
		if (idx < 0)
			o->mismatches++;
		else if (o->records == 0)
			o->first_index = (unsigned)idx;
		expect = idx + 1;
		o->records++;
	}
	o->problems = trace_reader_problems(r);
	trace_reader_free(r);
	fclose(f);
	return 1;
}

START_TEST(round_trip_every_type)
{
	size_t size;
	char *t = write_trace(64, 0, &size);
	FILE *f = fmemopen(t, size, "rb");
	char err[256];
	struct trace_reader *r = trace_reader_new(f, err, sizeof err);
	ck_assert_ptr_nonnull(r);
	const struct trace_info *in = trace_reader_info(r);
	ck_assert_str_eq(in->host, "testhost");
	ck_assert_str_eq(in->iface, "lo");
	ck_assert_str_eq(in->filter, "tcp port 6000");
	ck_assert_str_eq(in->tool, "xcap test");
	ck_assert_uint_eq(in->linktype, 1);
	ck_assert_uint_eq(in->snaplen, 262144);
	ck_assert_uint_eq(in->ts_precision, 9);
	ck_assert_uint_eq(in->version_major, 1);
	struct xrec rec;
	for (unsigned i = 0; i < 64; i++) {
		ck_assert_int_eq(trace_reader_next(r, &rec), 1);
		struct xrec want = sample(i);
		char *a = line_of(&rec), *b = line_of(&want);
		ck_assert_str_eq(a, b);
		free(a);
		free(b);
	}
	/* A few fields the dump does not show byte for byte. */
	ck_assert_int_eq(trace_reader_next(r, &rec), 0);
	ck_assert_uint_eq(trace_reader_problems(r), 0);
	trace_reader_free(r);
	fclose(f);
	free(t);
}
END_TEST

START_TEST(many_blocks)
{
	size_t size;
	char *t = write_trace(20000, 0, &size);	/* several 64 KiB blocks */
	ck_assert_uint_gt(size, 3 * 65536);
	struct readout o;
	ck_assert(read_trace(t, size, &o));
	ck_assert_uint_eq(o.records, 20000);
	ck_assert_uint_eq(o.mismatches, 0);
	ck_assert_uint_eq(o.problems, 0);
	free(t);
}
END_TEST

/* Cut the file at every length inside the last blocks: the reader keeps
   every complete block, says the tail is cut, never more. */
START_TEST(truncated_mid_block)
{
	size_t size;
	char *t = write_trace(200, 10, &size);	/* blocks of 10 records */
	struct readout full;
	ck_assert(read_trace(t, size, &full));
	ck_assert_uint_eq(full.records, 200);
	unsigned last = 200;
	for (size_t cut = size - 1; cut > size - 600; cut--) {
		struct readout o;
		ck_assert(read_trace(t, cut, &o));
		ck_assert_uint_eq(o.mismatches, 0);
		ck_assert_uint_eq(o.records % 10, 0);	/* whole blocks only */
		ck_assert_uint_lt(o.records, 200);
		ck_assert_uint_le(o.records, last);
		last = o.records;
		if (o.problems == 0)	/* only a cut exactly between blocks */
			ck_assert_ptr_null(strstr(o.warnings, "cut short"));
		else
			ck_assert_ptr_nonnull(strstr(o.warnings, "cut short"));
	}
	ck_assert_uint_lt(last, 190);
	free(t);
}
END_TEST

START_TEST(damaged_block_is_skipped)
{
	size_t size;
	char *t = write_trace(100, 10, &size);
	/* Flip a byte in the middle: one block is lost, the rest read. */
	t[size / 2] ^= 0x55;
	struct readout o;
	ck_assert(read_trace(t, size, &o));
	ck_assert_uint_eq(o.records, 90);
	ck_assert_uint_eq(o.mismatches, 0);
	ck_assert_uint_eq(o.problems, 1);
	ck_assert_ptr_nonnull(strstr(o.warnings, "damaged"));
	free(t);
}
END_TEST

START_TEST(garbage_between_blocks)
{
	size_t size;
	char *t = write_trace(30, 10, &size);
	/* Insert 1000 bytes of junk holding false markers after the header. */
	struct readout ref;
	ck_assert(read_trace(t, size, &ref));
	FILE *probe = fmemopen(t, size, "rb");
	char err[256];
	struct trace_reader *r = trace_reader_new(probe, err, sizeof err);
	trace_reader_free(r);
	fclose(probe);
	/* the first block marker follows the header */
	char *first = memmem(t, size, "XBLK", 4);
	ck_assert_ptr_nonnull(first);
	size_t at = (size_t)(first - t);
	char *u = malloc(size + 1000);
	memcpy(u, t, at);
	for (int i = 0; i < 1000; i++)
		u[at + i] = (char)(i * 37);
	memcpy(u + at + 100, "XBLK\1\0\0\0\4\0\0\0\0\0\0\0", 16);	/* bad CRC */
	memcpy(u + at + 500, "XBLK\1\0\0\0\377\377\377\377", 12);	/* absurd length */
	memcpy(u + at + 1000, t + at, size - at);
	struct readout o;
	ck_assert(read_trace(u, size + 1000, &o));
	ck_assert_uint_eq(o.records, 30);
	ck_assert_uint_eq(o.mismatches, 0);
	ck_assert_uint_eq(o.problems, 1);
	ck_assert_ptr_nonnull(strstr(o.warnings, "skipped 1000 bytes"));
	free(u);
	free(t);
}
END_TEST

static uint32_t crc32_of(const uint8_t *p, size_t n)
{
	uint32_t crc = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		crc ^= p[i];
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? 0xedb88320u ^ (crc >> 1) : crc >> 1;
	}
	return ~crc;
}

/* A trace of the writer's header and one records block holding the
   payload given (shorter than 256 bytes), its checksum right. */
static char *block_trace(const uint8_t *payload, size_t n, size_t *size)
{
	size_t hsize;
	char *hdr = write_trace(0, 0, &hsize);	/* just the header */
	uint8_t block[16 + 256];
	ck_assert_uint_lt(n, 256);
	memcpy(block, "XBLK\1\0\0\0", 8);
	block[8] = (uint8_t)n;
	block[9] = block[10] = block[11] = 0;
	memcpy(block + 16, payload, n);
	/* CRC over bytes 4..11 and the payload */
	uint8_t covered[8 + 256];
	memcpy(covered, block + 4, 8);
	memcpy(covered + 8, payload, n);
	uint32_t crc = crc32_of(covered, 8 + n);
	for (int i = 0; i < 4; i++)
		block[12 + i] = (uint8_t)(crc >> (8 * i));
	char *t = malloc(hsize + 16 + n);
	memcpy(t, hdr, hsize);
	memcpy(t + hsize, block, 16 + n);
	free(hdr);
	*size = hsize + 16 + n;
	return t;
}

/* Later versions add record types and fields: a reader skips both. */
START_TEST(unknown_records_and_fields_skipped)
{
	/* Hand-build a block: an unknown type 99, a pkt with an extra field
	   after those of 1.4 (compressed size, cut), and a conn with only its
	   first fields. */
	uint8_t payload[] = {
		99, 3, 0, 0xaa, 0xbb,		/* type 99, body of 3 */
		XREC_PKT, 13, 2 /* ts +1 */, 1, 1, 0x10, 0, 5, 6, 7, 7, 9, 42, 0, 43,
		XREC_CONN, 2, 2 /* ts +1 */, 5,	/* id only */
	};
	size_t size;
	char *t = block_trace(payload, sizeof payload, &size);
	FILE *f = fmemopen(t, size, "rb");
	char err[256];
	struct trace_reader *r = trace_reader_new(f, err, sizeof err);
	ck_assert_ptr_nonnull(r);
	struct xrec rec;
	ck_assert_int_eq(trace_reader_next(r, &rec), 1);
	ck_assert_int_eq(rec.type, XREC_PKT);
	ck_assert_uint_eq(rec.u.pkt.ts, 1);
	ck_assert_uint_eq(rec.u.pkt.conn, 1);
	ck_assert_uint_eq(rec.u.pkt.dir, 1);
	ck_assert_uint_eq(rec.u.pkt.seq, 5);
	ck_assert_uint_eq(rec.u.pkt.len, 9);
	ck_assert_int_eq(trace_reader_next(r, &rec), 1);
	ck_assert_int_eq(rec.type, XREC_CONN);
	ck_assert_uint_eq(rec.u.conn.ts, 2);
	ck_assert_uint_eq(rec.u.conn.id, 5);
	ck_assert_uint_eq(rec.u.conn.client.family, 0);
	ck_assert_str_eq(rec.u.conn.proto, "");
	ck_assert_int_eq(trace_reader_next(r, &rec), 0);
	ck_assert_uint_eq(trace_reader_problems(r), 0);
	trace_reader_free(r);
	fclose(f);
	free(t);
}
END_TEST

/* ---- packets cut by the snaplen (format 1.4) ---- */

static struct xrec cut_pkt(uint64_t ts, uint32_t conn, uint8_t dir, uint8_t flags, uint32_t seq,
			   uint32_t len, int zlen)
{
	struct xrec r = { .type = XREC_PKT };
	r.u.pkt = (struct xrec_pkt){ .ts = ts, .conn = conn, .dir = dir, .tcp_flags = flags,
		.events = XPKT_TRUNC, .seq = seq, .ack = 77, .raw_win = 512, .win = 512 << 7,
		.len = len, .has_zlen = zlen >= 0, .zlen = zlen >= 0 ? (uint32_t)zlen : 0 };
	return r;
}

static struct xrec cut_gap_rec(uint64_t ts, uint32_t conn, uint8_t dir, uint8_t reason,
			       uint32_t seq, uint64_t len)
{
	struct xrec r = { .type = XREC_GAP };
	r.u.gap = (struct xrec_gap){ .ts = ts, .conn = conn, .dir = dir, .reason = reason,
		.seq = seq, .len = len };
	return r;
}

/* Packets and the gaps after them, those that fold into their packet and
   those that may not, as the pipeline could write them. */
static size_t cut_records(struct xrec *v)
{
	size_t n = 0;
	/* folds: the payload's tail, with and without a compressed size */
	v[n++] = cut_pkt(1000, 1, XDIR_S2C, XTCP_ACK, 100, 1448, -1);
	v[n++] = cut_gap_rec(1000, 1, XDIR_S2C, XGAP_SNAPLEN, 130, 1418);
	v[n++] = cut_pkt(2000, 1, XDIR_C2S, XTCP_ACK | XTCP_PSH, 0xfffffff0u, 300, 0);
	v[n++] = cut_gap_rec(2000, 1, XDIR_C2S, XGAP_SNAPLEN, 0xfffffff0u + 200, 100);	/* wraps */
	v[n++] = cut_pkt(3000, 2, XDIR_C2S, XTCP_SYN, 5000, 40, 17);	/* data after a SYN */
	v[n++] = cut_gap_rec(3000, 2, XDIR_C2S, XGAP_SNAPLEN, 5001 + 1, 39);
	v[n++] = cut_pkt(3500, 2, XDIR_S2C, XTCP_ACK, 10, 1, -1);		/* all of it cut */
	v[n++] = cut_gap_rec(3500, 2, XDIR_S2C, XGAP_SNAPLEN, 10, 1);
	/* do not fold: a message between, another reason, another time,
	   connection, direction, a gap short of the payload's end, longer
	   than the payload, a second gap after a folded one */
	v[n++] = cut_pkt(4000, 1, XDIR_S2C, XTCP_ACK, 2000, 1000, -1);
	v[n] = (struct xrec){ .type = XREC_NOTE };
	v[n++].u.note = (struct xrec_note){ .ts = 4000, .conn = 1, .text = "between" };
	v[n++] = cut_gap_rec(4000, 1, XDIR_S2C, XGAP_SNAPLEN, 2030, 970);
	v[n++] = cut_pkt(5000, 1, XDIR_S2C, XTCP_ACK, 3000, 1000, -1);
	v[n++] = cut_gap_rec(5000, 1, XDIR_S2C, XGAP_SKIPPED, 3030, 970);
	v[n++] = cut_pkt(6000, 1, XDIR_S2C, XTCP_ACK, 4000, 1000, -1);
	v[n++] = cut_gap_rec(6001, 1, XDIR_S2C, XGAP_SNAPLEN, 4030, 970);
	v[n++] = cut_pkt(7000, 1, XDIR_S2C, XTCP_ACK, 5000, 1000, -1);
	v[n++] = cut_gap_rec(7000, 2, XDIR_S2C, XGAP_SNAPLEN, 5030, 970);
	v[n++] = cut_pkt(8000, 1, XDIR_S2C, XTCP_ACK, 6000, 1000, -1);
	v[n++] = cut_gap_rec(8000, 1, XDIR_C2S, XGAP_SNAPLEN, 6030, 970);
	v[n++] = cut_pkt(9000, 1, XDIR_S2C, XTCP_ACK, 7000, 1000, -1);
	v[n++] = cut_gap_rec(9000, 1, XDIR_S2C, XGAP_SNAPLEN, 7030, 900);
	v[n++] = cut_pkt(10000, 1, XDIR_S2C, XTCP_ACK, 8000, 1000, -1);
	v[n++] = cut_gap_rec(10000, 1, XDIR_S2C, XGAP_SNAPLEN, 7990, 1010);
	v[n++] = cut_pkt(11000, 1, XDIR_S2C, XTCP_ACK, 9000, 1000, -1);
	v[n++] = cut_gap_rec(11000, 1, XDIR_S2C, XGAP_SNAPLEN, 9030, 970);
	v[n++] = cut_gap_rec(11000, 1, XDIR_S2C, XGAP_SNAPLEN, 9030, 970);
	return n;
}

/* Write records, flushing after the one at flush_after (SIZE_MAX: never,
   FLUSH_EACH: after every one); read them back and compare each with what
   was put.  Returns the trace's size. */
#define FLUSH_EACH (SIZE_MAX - 1)
static size_t cut_round_trip(const struct xrec *v, size_t n, size_t flush_after)
{
	char *buf = NULL;
	size_t size;
	FILE *f = open_memstream(&buf, &size);
	char err[256];
	struct trace_writer *w = trace_writer_new(f, &info, err, sizeof err);
	ck_assert_ptr_nonnull(w);
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(trace_writer_put(w, &v[i]), 0);
		if (i == flush_after || flush_after == FLUSH_EACH)
			ck_assert_int_eq(trace_writer_flush(w), 0);
	}
	ck_assert_int_eq(trace_writer_free(w), 0);
	fclose(f);
	f = fmemopen(buf, size, "rb");
	struct trace_reader *r = trace_reader_new(f, err, sizeof err);
	ck_assert_ptr_nonnull(r);
	struct xrec rec;
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_eq(trace_reader_next(r, &rec), 1);
		char *a = line_of(&rec), *b = line_of(&v[i]);
		ck_assert_str_eq(a, b);
		free(a);
		free(b);
		ck_assert_uint_eq(rec.type == XREC_PKT ? rec.u.pkt.has_zlen : 0,
				  v[i].type == XREC_PKT ? v[i].u.pkt.has_zlen : 0);
		ck_assert_uint_eq(rec.type == XREC_PKT ? rec.u.pkt.zlen : 0,
				  v[i].type == XREC_PKT ? v[i].u.pkt.zlen : 0);
	}
	ck_assert_int_eq(trace_reader_next(r, &rec), 0);
	ck_assert_uint_eq(trace_reader_problems(r), 0);
	trace_reader_free(r);
	fclose(f);
	free(buf);
	return size;
}

START_TEST(cut_packet_round_trip)
{
	struct xrec v[64];
	size_t n = cut_records(v);
	size_t folded = cut_round_trip(v, n, SIZE_MAX);
	/* A flush between a packet and its gap: the gap is a record of the
	   next block, read back the same. */
	cut_round_trip(v, n, 0);
	/* Where none folds, a block for each record: the four that fold take
	   2 or 1 bytes each where a gap record takes 13 or more (and a block
	   header 16). */
	size_t apart = cut_round_trip(v, n, FLUSH_EACH);
	ck_assert_uint_ge(apart, folded + 4 * (10 + 16) + (n - 4) * 16);

	/* A packet closing a full block: its gap still folds into it, and
	   the block and the next read back whole. */
	static struct xrec many[12000];
	size_t m = 0;
	for (uint32_t i = 0; m + 2 <= 12000; i++) {
		many[m++] = cut_pkt(1000 + i, 1, XDIR_S2C, XTCP_ACK, i * 1448, 1448, -1);
		many[m++] = cut_gap_rec(1000 + i, 1, XDIR_S2C, XGAP_SNAPLEN, i * 1448 + 42, 1406);
	}
	ck_assert_uint_lt(cut_round_trip(many, m, SIZE_MAX), 6000 * 30);
}
END_TEST

/* The bytes a writer makes of n records. */
static char *written(const struct xrec *v, size_t n, size_t *size)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, size);
	char err[256];
	struct trace_writer *w = trace_writer_new(f, &info, err, sizeof err);
	ck_assert_ptr_nonnull(w);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(trace_writer_put(w, &v[i]), 0);
	ck_assert_int_eq(trace_writer_free(w), 0);
	fclose(f);
	return buf;
}

/* Records as a pipeline asked for cuts inside pkt records hands them
   (xrec_pkt.cut): each gap that follows its packet's record and is its
   payload's tail goes into that record. */
static size_t cuts_inside(const struct xrec *v, size_t n, struct xrec *out)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		out[m] = v[i];
		if (v[i].type == XREC_PKT && i + 1 < n && v[i + 1].type == XREC_GAP) {
			const struct xrec_pkt *k = &v[i].u.pkt;
			const struct xrec_gap *g = &v[i + 1].u.gap;
			if (g->len && g->len <= k->len) {
				struct xrec_gap back = xrec_pkt_cut(k, (uint32_t)(k->len - g->len));
				if (back.ts == g->ts && back.conn == g->conn && back.dir == g->dir &&
				    back.reason == g->reason && back.seq == g->seq && back.len == g->len) {
					out[m].u.pkt.cut = (uint32_t)(k->len - g->len) + 1;
					i++;
				}
			}
		}
		m++;
	}
	return m;
}

/* A pkt record with its cut inside is written as the writer folds the
   gap put after it: the same bytes, a full block's last packet too. */
START_TEST(cut_inside_pkt_same_bytes)
{
	static struct xrec v[12000], in[12000];
	size_t n = cut_records(v);
	size_t m = cuts_inside(v, n, in);
	ck_assert_uint_eq(m, n - 5);	/* the four that fold, and the first of two gaps */
	size_t a_size, b_size;
	char *a = written(v, n, &a_size), *b = written(in, m, &b_size);
	ck_assert_uint_eq(a_size, b_size);
	ck_assert(memcmp(a, b, a_size) == 0);
	free(a);
	free(b);

	n = 0;
	for (uint32_t i = 0; n + 2 <= 12000; i++) {
		v[n++] = cut_pkt(1000 + i, 1, XDIR_S2C, XTCP_ACK, i * 1448, 1448, -1);
		v[n++] = cut_gap_rec(1000 + i, 1, XDIR_S2C, XGAP_SNAPLEN, i * 1448 + 42, 1406);
	}
	m = cuts_inside(v, n, in);
	ck_assert_uint_eq(m, n / 2);
	a = written(v, n, &a_size);
	b = written(in, m, &b_size);
	ck_assert_uint_eq(a_size, b_size);
	ck_assert(memcmp(a, b, a_size) == 0);
	free(a);
	free(b);
}
END_TEST

/* A pkt record whose cut does not fit its payload: the packet is read,
   the trace said to be damaged, no gap made up. */
START_TEST(cut_packet_damaged)
{
	static const struct {
		uint8_t kept[6];	/* the field after the compressed size */
		size_t n;
		int damaged;
	} cases[] = {
		{ { 10 }, 1, 1 },			/* 9 bytes of 9 captured: nothing cut */
		{ { 200, 1 }, 2, 1 },			/* more than the payload */
		{ { 0xff, 0xff, 0xff, 0xff, 0x7f }, 5, 1 },	/* past 32 bits */
		{ { 0x80 }, 1, 0 },			/* cut short by the record's end: 0 */
	};
	for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		uint8_t payload[64];
		static const uint8_t pkt[] = { 2 /* ts +1 */, 1, 1, 0x10, XPKT_TRUNC, 5, 6, 7, 7, 9,
					       0 /* no compressed size */ };
		static const uint8_t gap[] = { XREC_GAP, 6, 0, 1, 1, XGAP_LOST, 14, 3 };
		size_t n = 0;
		payload[n++] = XREC_PKT;
		payload[n++] = (uint8_t)(sizeof pkt + cases[k].n);
		memcpy(payload + n, pkt, sizeof pkt);
		n += sizeof pkt;
		memcpy(payload + n, cases[k].kept, cases[k].n);
		n += cases[k].n;
		memcpy(payload + n, gap, sizeof gap);
		n += sizeof gap;
		size_t size;
		char *t = block_trace(payload, n, &size);
		FILE *f = fmemopen(t, size, "rb");
		char err[256];
		struct trace_reader *r = trace_reader_new(f, err, sizeof err);
		ck_assert_ptr_nonnull(r);
		struct readout o;
		memset(&o, 0, sizeof o);
		trace_reader_on_warning(r, collect_warning, &o);
		struct xrec rec;
		ck_assert_int_eq(trace_reader_next(r, &rec), 1);
		ck_assert_int_eq(rec.type, XREC_PKT);
		ck_assert_uint_eq(rec.u.pkt.len, 9);
		ck_assert_int_eq(trace_reader_next(r, &rec), 1);
		ck_assert_int_eq(rec.type, XREC_GAP);	/* the one written, none made up */
		ck_assert_uint_eq(rec.u.gap.reason, XGAP_LOST);
		ck_assert_int_eq(trace_reader_next(r, &rec), 0);
		ck_assert_uint_eq(trace_reader_problems(r), (unsigned)cases[k].damaged);
		if (cases[k].damaged)
			ck_assert_ptr_nonnull(strstr(o.warnings, "damaged"));
		trace_reader_free(r);
		fclose(f);
		free(t);
	}
}
END_TEST

START_TEST(not_a_trace)
{
	struct readout o;
	ck_assert(!read_trace("hello, world, this is not a trace", 33, &o));
	ck_assert_ptr_nonnull(strstr(o.warnings, "not an xcap trace"));
	size_t size;
	char *t = write_trace(0, 0, &size);
	ck_assert(trace_looks_like((uint8_t *)t, size));
	ck_assert(!read_trace(t, 12, &o));	/* header cut */
	ck_assert_ptr_nonnull(strstr(o.warnings, "cut short"));
	t[20] ^= 1;				/* header damaged */
	ck_assert(!read_trace(t, size, &o));
	ck_assert_ptr_nonnull(strstr(o.warnings, "damaged"));
	t[20] ^= 1;
	t[8] = 2;				/* a future major version */
	ck_assert(!read_trace(t, size, &o));
	ck_assert_ptr_nonnull(strstr(o.warnings, "version 2."));
	free(t);
}
END_TEST

/* A request, its two replies, an error for a request never seen, and a
   reply whose request came later by the capture's clock. */
static char *pairing_trace(int paired, size_t *size)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, size);
	char err[256];
	struct trace_writer *w = trace_writer_new(f, &info, err, sizeof err);
	ck_assert_ptr_nonnull(w);
	struct xrec r = { .type = XREC_MSG };
	r.u.msg = (struct xrec_msg){ .ts = 1000, .conn = 3, .dir = XDIR_C2S, .kind = XMSG_REQUEST,
		.flags = XMSG_F_WANTS_REPLY, .seq = 5, .length = 8, .tcp_end = 0xfffffff0u,
		.name = "ListFontsWithInfo", .ext = "", .detail = "" };
	ck_assert_int_eq(trace_writer_put(w, &r), 0);
	for (int i = 0; i < 2; i++) {
		r.u.msg = (struct xrec_msg){ .ts = 3000 + (uint64_t)i, .conn = 3, .dir = XDIR_S2C,
			.kind = XMSG_REPLY, .seq = 5, .length = 64, .tcp_end = 77,
			.name = "ListFontsWithInfo", .ext = "", .detail = "" };
		if (paired) {
			r.u.msg.req_ts = 1000;
			r.u.msg.req_end = 0xfffffff0u;
		}
		ck_assert_int_eq(trace_writer_put(w, &r), 0);
	}
	r.u.msg = (struct xrec_msg){ .ts = 4000, .conn = 3, .dir = XDIR_S2C, .kind = XMSG_ERROR,
		.seq = 9, .length = 32, .tcp_end = 109, .name = "BadWindow", .ext = "", .detail = "" };
	ck_assert_int_eq(trace_writer_put(w, &r), 0);
	if (paired) {
		r.u.msg = (struct xrec_msg){ .ts = 5000, .conn = 4, .dir = XDIR_S2C,
			.kind = XMSG_REPLY, .seq = 1, .length = 32, .tcp_end = 32, .name = "GetInputFocus",
			.ext = "", .detail = "", .req_ts = 5300, .req_end = 12 };
		ck_assert_int_eq(trace_writer_put(w, &r), 0);
	}
	ck_assert_int_eq(trace_writer_free(w), 0);
	fclose(f);
	return buf;
}

static void expect_pairing(const char *t, size_t size, int with_step_back)
{
	FILE *f = fmemopen((void *)t, size, "rb");
	char err[256];
	struct trace_reader *r = trace_reader_new(f, err, sizeof err);
	ck_assert_ptr_nonnull(r);
	struct xrec rec;
	ck_assert_int_eq(trace_reader_next(r, &rec), 1);
	ck_assert_uint_eq(rec.u.msg.req_ts, 0);		/* a request answers nothing */
	for (int i = 0; i < 2; i++) {			/* both replies name it */
		ck_assert_int_eq(trace_reader_next(r, &rec), 1);
		ck_assert_uint_eq(rec.u.msg.req_ts, 1000);
		ck_assert_uint_eq(rec.u.msg.req_end, 0xfffffff0u);
	}
	ck_assert_int_eq(trace_reader_next(r, &rec), 1);
	ck_assert_uint_eq(rec.u.msg.req_ts, 0);		/* its request was not seen */
	ck_assert_uint_eq(rec.u.msg.req_end, 0);
	if (with_step_back) {
		ck_assert_int_eq(trace_reader_next(r, &rec), 1);
		ck_assert_uint_eq(rec.u.msg.req_ts, 5300);
		ck_assert_uint_eq(rec.u.msg.req_end, 12);
	}
	ck_assert_int_eq(trace_reader_next(r, &rec), 0);
	ck_assert_uint_eq(trace_reader_problems(r), 0);
	trace_reader_free(r);
	fclose(f);
}

/* The pairing of replies with requests (format 1.1) survives the round
   trip, and a 1.0 trace, which has none, is paired by the reader. */
START_TEST(reply_pairing)
{
	size_t size;
	char *t = pairing_trace(1, &size);
	ck_assert_uint_ge(((uint8_t *)t)[10], 1);	/* written as 1.1 or later */
	expect_pairing(t, size, 1);
	free(t);

	t = pairing_trace(0, &size);
	uint8_t *u = (uint8_t *)t;
	u[10] = 0;					/* make it 1.0 */
	uint32_t hlen = (uint32_t)u[12] | (uint32_t)u[13] << 8 | (uint32_t)u[14] << 16 |
			(uint32_t)u[15] << 24;
	uint32_t crc = crc32_of(u + 8, 8 + hlen);
	for (int i = 0; i < 4; i++)
		u[16 + hlen + (uint32_t)i] = (uint8_t)(crc >> (8 * i));
	expect_pairing(t, size, 0);
	free(t);
}
END_TEST

START_TEST(dump_text)
{
	struct xrec r = sample(0);
	char *s = line_of(&r);
	ck_assert_str_eq(s, "conn t=1700000000.000000000 id=1 client=[::1]:45678 "
			    "server=127.0.0.1:6000 proto=x11 wscale=7/- flags=syn\n");
	free(s);
	r = sample(1);
	s = line_of(&r);
	ck_assert_str_eq(s, "pkt t=1699999999.999996000 conn=1 dir=s2c seq=4294967295 ack=1 "
			    "win=8388480 rawwin=65535 len=1448 flags=P. events=retrans,zerowin\n");
	free(s);
	r = sample(2);
	s = line_of(&r);
	ck_assert_str_eq(s, "msg t=1700000000.000002000 conn=1 dir=c2s kind=request "
			    "seq=4294967297 name=InternAtom ext=- major=16 minor=0 length=28 "
			    "end=41 flags=uncertain detail=\"WM \\\"PROTOCOLS\\\"\\n\"\n");
	free(s);
	r = sample(5);
	s = line_of(&r);
	ck_assert_str_eq(s, "gap t=1700000000.000005000 conn=3 dir=s2c reason=lost seq=1000 "
			    "len=1099511627776\n");
	free(s);
	r = sample(7);
	s = line_of(&r);
	ck_assert_str_eq(s, "note t=1700000000.000007000 conn=0 dir=c2s text=-\n");
	free(s);
}
END_TEST

static Suite *trace_suite(void)
{
	Suite *s = suite_create("trace");
	TCase *tc = tcase_create("format");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, round_trip_every_type);
	tcase_add_test(tc, many_blocks);
	tcase_add_test(tc, truncated_mid_block);
	tcase_add_test(tc, damaged_block_is_skipped);
	tcase_add_test(tc, garbage_between_blocks);
	tcase_add_test(tc, unknown_records_and_fields_skipped);
	tcase_add_test(tc, cut_packet_round_trip);
	tcase_add_test(tc, cut_inside_pkt_same_bytes);
	tcase_add_test(tc, cut_packet_damaged);
	tcase_add_test(tc, not_a_trace);
	tcase_add_test(tc, reply_pairing);
	tcase_add_test(tc, dump_text);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(trace_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
