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

/* Later versions add record types and fields: a reader skips both. */
START_TEST(unknown_records_and_fields_skipped)
{
	/* Hand-build a block: an unknown type 99, a pkt with two extra trailing
	   fields, and a conn with only its first fields. */
	uint8_t payload[] = {
		99, 3, 0, 0xaa, 0xbb,		/* type 99, body of 3 */
		XREC_PKT, 12, 2 /* ts +1 */, 1, 1, 0x10, 0, 5, 6, 7, 7, 9, 42, 43,
		XREC_CONN, 2, 2 /* ts +1 */, 5,	/* id only */
	};
	size_t size;
	char *hdr = write_trace(0, 0, &size);	/* just the header */
	uint8_t block[16 + sizeof payload];
	memcpy(block, "XBLK\1\0\0\0", 8);
	block[8] = sizeof payload;
	block[9] = block[10] = block[11] = 0;
	memcpy(block + 16, payload, sizeof payload);
	/* CRC over bytes 4..11 and the payload, as zlib's crc32 computes it */
	uint32_t crc = 0xffffffffu;
	for (size_t i = 4; i < sizeof block; i++) {
		if (i >= 12 && i < 16)
			continue;
		crc ^= block[i];
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? 0xedb88320u ^ (crc >> 1) : crc >> 1;
	}
	crc = ~crc;
	for (int i = 0; i < 4; i++)
		block[12 + i] = (uint8_t)(crc >> (8 * i));
	char *t = malloc(size + sizeof block);
	memcpy(t, hdr, size);
	memcpy(t + size, block, sizeof block);
	FILE *f = fmemopen(t, size + sizeof block, "rb");
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
	free(hdr);
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
