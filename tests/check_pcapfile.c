/*
 * check_pcapfile.c — unit tests of the .pcap/.pcapng reader.  Every
 * capture is built here byte by byte, in either byte order, and read
 * through pcapfile_open on an fmemopen() stream, and the tests of large
 * and truncated captures again from a regular file (which pcapfile reads
 * in a thread of its own, through a ring of buffers).  Wherever libpcap reads
 * the same bytes it is the oracle: same packets, timestamps (in ns),
 * lengths and bytes.  Where it cannot (sections of two byte orders,
 * interfaces of two link types, records beyond its snapshot limit), the
 * expected values are written out here.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "pcapfile.h"

#define CHUNK (256u << 10)	/* pcapfile.c's read size: records around it matter */

/* ---- building captures ---- */

struct buf {
	uint8_t *b;
	size_t len, cap;
	int be;			/* numbers are written big endian */
};

static void reserve(struct buf *c, size_t n)
{
	if (c->len + n <= c->cap)
		return;
	size_t cap = c->cap ? c->cap : 4096;
	while (cap < c->len + n)
		cap *= 2;
	c->b = realloc(c->b, cap);
	ck_assert_ptr_nonnull(c->b);
	c->cap = cap;
}

static void buf_free(struct buf *c)
{
	free(c->b);
	memset(c, 0, sizeof *c);
}

static void put_bytes(struct buf *c, const void *p, size_t n)
{
	reserve(c, n);
	memcpy(c->b + c->len, p, n);
	c->len += n;
}

static void set16(struct buf *c, size_t off, uint16_t v)
{
	c->b[off + (c->be ? 0 : 1)] = (uint8_t)(v >> 8);
	c->b[off + (c->be ? 1 : 0)] = (uint8_t)v;
}

static void set32(struct buf *c, size_t off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		c->b[off + (size_t)(c->be ? i : 3 - i)] = (uint8_t)(v >> (24 - 8 * i));
}

static void put16(struct buf *c, uint16_t v)
{
	reserve(c, 2);
	set16(c, c->len, v);
	c->len += 2;
}

static void put32(struct buf *c, uint32_t v)
{
	reserve(c, 4);
	set32(c, c->len, v);
	c->len += 4;
}

/* One 64-bit number in the file's order (pcapng options), not two halves. */
static void put64(struct buf *c, uint64_t v)
{
	reserve(c, 8);
	for (int i = 0; i < 8; i++)
		c->b[c->len + (size_t)(c->be ? i : 7 - i)] = (uint8_t)(v >> (56 - 8 * i));
	c->len += 8;
}

static void pad4(struct buf *c)
{
	while (c->len % 4) {
		reserve(c, 1);
		c->b[c->len++] = 0;
	}
}

/* Packet bytes: a pattern of the packet's seed, so that a packet read
   from the wrong place, or a buffer moved under it, shows. */
static uint8_t pat(uint32_t seed, uint32_t i)
{
	return (uint8_t)(seed * 131u + i * 7u + (i >> 8) + (i >> 16));
}

static void put_pat(struct buf *c, uint32_t n, uint32_t seed)
{
	reserve(c, n);
	for (uint32_t i = 0; i < n; i++)
		c->b[c->len + i] = pat(seed, i);
	c->len += n;
}

static int pat_ok(const uint8_t *d, uint32_t n, uint32_t seed)
{
	for (uint32_t i = 0; i < n; i++)
		if (d[i] != pat(seed, i))
			return 0;
	return 1;
}

/* classic pcap */

static void pcap_header(struct buf *c, int be, int nano, uint32_t snaplen, uint32_t linktype)
{
	c->be = be;
	put32(c, nano ? 0xa1b23c4du : 0xa1b2c3d4u);
	put16(c, 2);
	put16(c, 4);
	put32(c, 0);		/* thiszone */
	put32(c, 0);		/* sigfigs */
	put32(c, snaplen);
	put32(c, linktype);
}

static void pcap_record_hdr(struct buf *c, uint32_t sec, uint32_t frac, uint32_t caplen, uint32_t len)
{
	put32(c, sec);
	put32(c, frac);
	put32(c, caplen);
	put32(c, len);
}

static void pcap_record(struct buf *c, uint32_t sec, uint32_t frac, uint32_t caplen, uint32_t len,
			uint32_t seed)
{
	pcap_record_hdr(c, sec, frac, caplen, len);
	put_pat(c, caplen, seed);
}

/* pcapng: a block is opened, filled, then closed, which pads it and
   writes its length at both ends. */

static size_t ng_begin(struct buf *c, uint32_t type)
{
	size_t start = c->len;
	put32(c, type);
	put32(c, 0);
	return start;
}

static void ng_end(struct buf *c, size_t start)
{
	pad4(c);
	uint32_t total = (uint32_t)(c->len - start + 4);
	put32(c, total);
	set32(c, start + 4, total);
}

static void ng_opt(struct buf *c, uint16_t code, const void *v, uint16_t len)
{
	put16(c, code);
	put16(c, len);
	put_bytes(c, v, len);
	pad4(c);
}

static void ng_shb(struct buf *c, int be)
{
	c->be = be;
	size_t s = ng_begin(c, 0x0a0d0d0au);
	put32(c, 0x1a2b3c4du);
	put16(c, 1);
	put16(c, 0);
	put64(c, UINT64_MAX);	/* section length unknown */
	ng_opt(c, 4, "check_pcapfile", 14);	/* shb_userappl */
	put32(c, 0);		/* opt_endofopt */
	ng_end(c, s);
}

#define NO_TSRESOL (-1)

/* An interface; tsresol NO_TSRESOL leaves the default (10^-6), and a
   zero tsoffset writes no if_tsoffset option. */
static void ng_idb(struct buf *c, uint16_t linktype, uint32_t snaplen, int tsresol, int64_t tsoffset)
{
	size_t s = ng_begin(c, 1);
	put16(c, linktype);
	put16(c, 0);
	put32(c, snaplen);
	/* An option of odd length first: the ones after it are found only
	   if its padding is skipped. */
	ng_opt(c, 2, "xcap0", 5);	/* if_name */
	if (tsresol != NO_TSRESOL) {
		uint8_t r = (uint8_t)tsresol;
		ng_opt(c, 9, &r, 1);
	}
	if (tsoffset) {
		put16(c, 14);
		put16(c, 8);
		put64(c, (uint64_t)tsoffset);
	}
	put32(c, 0);
	ng_end(c, s);
}

static void ng_epb(struct buf *c, uint32_t ifid, uint64_t ts, uint32_t caplen, uint32_t len,
		   uint32_t seed, int with_option)
{
	size_t s = ng_begin(c, 6);
	put32(c, ifid);
	put32(c, (uint32_t)(ts >> 32));
	put32(c, (uint32_t)ts);
	put32(c, caplen);
	put32(c, len);
	put_pat(c, caplen, seed);
	pad4(c);
	if (with_option) {
		/* Options after the data: not part of the packet. */
		uint32_t flags = 1;
		ng_opt(c, 2, &flags, 4);	/* epb_flags */
		put32(c, 0);
	}
	ng_end(c, s);
}

/* The obsolete packet block: a 16-bit interface id and a drop count. */
static void ng_pb(struct buf *c, uint16_t ifid, uint64_t ts, uint32_t caplen, uint32_t len,
		  uint32_t seed)
{
	size_t s = ng_begin(c, 2);
	put16(c, ifid);
	put16(c, 0);
	put32(c, (uint32_t)(ts >> 32));
	put32(c, (uint32_t)ts);
	put32(c, caplen);
	put32(c, len);
	put_pat(c, caplen, seed);
	ng_end(c, s);
}

/* A simple packet block: the original length and as much of the packet
   as interface 0's snaplen let through. */
static void ng_spb(struct buf *c, uint32_t len, uint32_t datalen, uint32_t seed)
{
	size_t s = ng_begin(c, 3);
	put32(c, len);
	put_pat(c, datalen, seed);
	ng_end(c, s);
}

static void ng_other(struct buf *c, uint32_t type, uint32_t bodylen)
{
	size_t s = ng_begin(c, type);
	reserve(c, bodylen);
	memset(c->b + c->len, 0xee, bodylen);
	c->len += bodylen;
	ng_end(c, s);
}

/* ---- reading ---- */

struct pkt {
	uint64_t ts;
	uint32_t caplen, len;
	uint8_t *data;
};

struct run {
	int opened;
	int rc;			/* what ended the reading: 0 or -1 */
	char err[512];
	int linktype;
	uint32_t snaplen;
	uint64_t skipped;
	struct pkt *p;
	size_t n, cap;
};

static void run_add(struct run *r, uint64_t ts, uint32_t caplen, uint32_t len, const uint8_t *data)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 16;
		r->p = realloc(r->p, r->cap * sizeof *r->p);
		ck_assert_ptr_nonnull(r->p);
	}
	struct pkt *k = &r->p[r->n++];
	k->ts = ts;
	k->caplen = caplen;
	k->len = len;
	k->data = malloc(caplen ? caplen : 1);
	ck_assert_ptr_nonnull(k->data);
	memcpy(k->data, data, caplen);
}

static void run_free(struct run *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->p[i].data);
	free(r->p);
	memset(r, 0, sizeof *r);
}

/* Streams are regular files in the tcases "... from a file". */
static int via_file;
static void from_a_file(void) { via_file = 1; }

/* An input stream of the first n bytes (an empty one has no fmemopen:
   glibc refuses a zero size on some versions). */
static FILE *mem(const struct buf *c, size_t n)
{
	FILE *f = n && !via_file ? fmemopen(c->b, n, "r") : tmpfile();
	ck_assert_ptr_nonnull(f);
	if (via_file && n) {
		ck_assert_uint_eq(fwrite(c->b, 1, n, f), n);
		ck_assert_int_eq(fseek(f, 0, SEEK_SET), 0);
	}
	return f;
}

static void read_stream(FILE *f, const char *filter, struct run *r)
{
	memset(r, 0, sizeof *r);
	struct pcapfile *p = pcapfile_open(f, r->err, sizeof r->err);
	if (!p) {
		r->rc = -1;
		return;
	}
	r->opened = 1;
	r->linktype = pcapfile_linktype(p);
	r->snaplen = pcapfile_snaplen(p);
	if (filter)
		ck_assert_msg(pcapfile_set_filter(p, filter, r->err, sizeof r->err) == 0, "filter: %s",
			      r->err);
	struct pcapfile_packet k;
	int rc;
	while ((rc = pcapfile_next(p, &k)) == 1)
		run_add(r, k.ts, k.caplen, k.len, k.data);
	r->rc = rc;
	snprintf(r->err, sizeof r->err, "%s", pcapfile_error(p));
	r->skipped = pcapfile_skipped(p);
	pcapfile_close(p);
}

static void read_ours(const struct buf *c, size_t n, const char *filter, struct run *r)
{
	FILE *f = mem(c, n);
	read_stream(f, filter, r);
	fclose(f);
}

static void read_libpcap(const struct buf *c, size_t n, const char *filter, struct run *r)
{
	memset(r, 0, sizeof *r);
	char ebuf[PCAP_ERRBUF_SIZE];
	FILE *f = mem(c, n);
	pcap_t *pc = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (!pc) {
		fclose(f);
		snprintf(r->err, sizeof r->err, "%s", ebuf);
		r->rc = -1;
		return;
	}
	r->opened = 1;
	r->linktype = pcap_datalink(pc);
	r->snaplen = (uint32_t)pcap_snapshot(pc);
	if (filter) {
		struct bpf_program prog;
		ck_assert_int_eq(pcap_compile(pc, &prog, filter, 1, PCAP_NETMASK_UNKNOWN), 0);
		ck_assert_int_eq(pcap_setfilter(pc, &prog), 0);
		pcap_freecode(&prog);
	}
	struct pcap_pkthdr *h;
	const u_char *d;
	int rc;
	while ((rc = pcap_next_ex(pc, &h, &d)) == 1)
		run_add(r, (uint64_t)h->ts.tv_sec * 1000000000u + (uint64_t)h->ts.tv_usec, h->caplen,
			h->len, d);
	r->rc = rc == PCAP_ERROR_BREAK ? 0 : -1;
	if (rc != PCAP_ERROR_BREAK)
		snprintf(r->err, sizeof r->err, "%s", pcap_geterr(pc));
	pcap_close(pc);		/* closes f */
}

static void same_packet(const struct pkt *a, const struct pkt *b, size_t i)
{
	ck_assert_msg(a->ts == b->ts, "packet %zu: ts %llu, libpcap %llu", i,
		      (unsigned long long)a->ts, (unsigned long long)b->ts);
	ck_assert_msg(a->caplen == b->caplen, "packet %zu: caplen %u, libpcap %u", i, a->caplen,
		      b->caplen);
	ck_assert_msg(a->len == b->len, "packet %zu: len %u, libpcap %u", i, a->len, b->len);
	ck_assert_msg(memcmp(a->data, b->data, a->caplen) == 0, "packet %zu: bytes differ", i);
}

/* Ours against libpcap's, packet for packet. */
static void same_as_libpcap(const struct run *ours, const struct run *lib)
{
	ck_assert_msg(ours->opened && lib->opened, "ours: %s; libpcap: %s", ours->err, lib->err);
	ck_assert_msg(lib->rc == 0, "libpcap: %s", lib->err);
	ck_assert_msg(ours->rc == 0, "ours: %s", ours->err);
	ck_assert_uint_eq(ours->n, lib->n);
	ck_assert_int_eq(ours->linktype, lib->linktype);
	for (size_t i = 0; i < ours->n; i++)
		same_packet(&ours->p[i], &lib->p[i], i);
}

static void check_pkt(const struct run *r, size_t i, uint64_t ts, uint32_t caplen, uint32_t len,
		      uint32_t seed)
{
	ck_assert_msg(i < r->n, "packet %zu missing (%zu read)", i, r->n);
	const struct pkt *k = &r->p[i];
	ck_assert_msg(k->ts == ts, "packet %zu: ts %llu, want %llu", i, (unsigned long long)k->ts,
		      (unsigned long long)ts);
	ck_assert_msg(k->caplen == caplen, "packet %zu: caplen %u, want %u", i, k->caplen, caplen);
	ck_assert_msg(k->len == len, "packet %zu: len %u, want %u", i, k->len, len);
	ck_assert_msg(pat_ok(k->data, caplen, seed), "packet %zu: wrong bytes", i);
}

#define NS 1000000000ull

/* ---- classic pcap ---- */

/* _i: bit 0 big endian, bit 1 nanoseconds. */
START_TEST(pcap_orders_and_precisions)
{
	int be = _i & 1, nano = _i >> 1;
	uint32_t top = nano ? 999999999u : 999999u;
	struct { uint32_t sec, frac, caplen, len; } r[] = {
		{ 1700000000u, 0, 60, 60 },
		{ 1700000000u, top, 1514, 1514 },
		{ 1700000001u, 1, 60, 1514 },	/* cut by the snaplen */
		{ 1, 500, 0, 0 },		/* time going back; an empty record */
		{ 0xfffffff0u, top / 2, 42, 42 },	/* past 2038 */
		{ 1700000002u, 123, 3, 3 },	/* the next record is not aligned */
		{ 1700000003u, 7, 64, 64 },
	};
	struct buf c = { 0 };
	pcap_header(&c, be, nano, 65535, 1);
	for (uint32_t i = 0; i < sizeof r / sizeof r[0]; i++)
		pcap_record(&c, r[i].sec, r[i].frac, r[i].caplen, r[i].len, i);
	/* The magic really is in the order asked for. */
	ck_assert_uint_eq(c.b[0], be ? 0xa1 : (nano ? 0x4d : 0xd4));

	struct run ours, lib;
	read_ours(&c, c.len, NULL, &ours);
	read_libpcap(&c, c.len, NULL, &lib);
	/* The seconds are unsigned 32 bits (the format's definition); libpcap
	   makes them signed in files of its own byte order, 1902 instead of
	   2106.  Record 4 is checked against its written value below. */
	ck_assert_uint_eq(lib.n, sizeof r / sizeof r[0]);
	uint64_t frac4 = (uint64_t)r[4].frac * (nano ? 1u : 1000u);
	ck_assert(lib.p[4].ts == (uint64_t)r[4].sec * NS + frac4 ||
		  lib.p[4].ts == (uint64_t)(int64_t)(int32_t)r[4].sec * NS + frac4);
	lib.p[4].ts = (uint64_t)r[4].sec * NS + frac4;
	same_as_libpcap(&ours, &lib);
	ck_assert_int_eq(ours.linktype, DLT_EN10MB);
	ck_assert_uint_eq(ours.snaplen, 65535);
	ck_assert_str_eq(ours.err, "");
	ck_assert_uint_eq(ours.n, sizeof r / sizeof r[0]);
	for (uint32_t i = 0; i < sizeof r / sizeof r[0]; i++)
		check_pkt(&ours, i, (uint64_t)r[i].sec * NS + r[i].frac * (nano ? 1u : 1000u),
			  r[i].caplen, r[i].len, i);
	run_free(&ours);
	run_free(&lib);
	buf_free(&c);
}
END_TEST

START_TEST(pcap_linktype_raw)
{
	/* LINKTYPE_RAW (101) in the file is DLT_RAW, whose number differs
	   between systems; the pipeline only knows DLT_RAW. */
	for (int be = 0; be < 2; be++) {
		struct buf c = { 0 };
		pcap_header(&c, be, 0, 1500, 101);
		pcap_record(&c, 1700000000u, 5, 40, 40, 9);
		struct run ours, lib;
		read_ours(&c, c.len, NULL, &ours);
		read_libpcap(&c, c.len, NULL, &lib);
		same_as_libpcap(&ours, &lib);
		ck_assert_int_eq(ours.linktype, DLT_RAW);
		ck_assert_uint_eq(ours.snaplen, 1500);
		ck_assert_uint_eq(ours.n, 1);
		run_free(&ours);
		run_free(&lib);
		buf_free(&c);
	}
}
END_TEST

START_TEST(pcap_linktype_fcs_bits)
{
	/* The upper bits of the link type say how many FCS bytes frames
	   carry; the link type is still Ethernet. */
	struct buf c = { 0 };
	pcap_header(&c, 0, 0, 1500, 0x14000000u | 1);
	pcap_record(&c, 1700000000u, 5, 64, 64, 3);
	struct run ours;
	read_ours(&c, c.len, NULL, &ours);
	ck_assert_msg(ours.opened, "%s", ours.err);
	ck_assert_int_eq(ours.linktype, DLT_EN10MB);
	ck_assert_uint_eq(ours.n, 1);
	check_pkt(&ours, 0, 1700000000u * NS + 5000, 64, 64, 3);
	run_free(&ours);
	buf_free(&c);
}
END_TEST

START_TEST(pcap_from_current_position)
{
	/* The capture starts where the stream stands: after bytes the
	   caller consumed, or a byte it peeked at and pushed back. */
	struct buf c = { 0 };
	put_pat(&c, 100, 77);
	pcap_header(&c, 0, 1, 65535, 1);
	pcap_record(&c, 10, 20, 30, 30, 1);
	pcap_record(&c, 11, 21, 31, 31, 2);

	FILE *f = mem(&c, c.len);
	ck_assert_int_eq(fseek(f, 100, SEEK_SET), 0);
	int ch = getc(f);
	ck_assert_int_eq(ch, 0x4d);
	ck_assert_int_eq(ungetc(ch, f), ch);
	struct run ours;
	read_stream(f, NULL, &ours);
	fclose(f);
	ck_assert_msg(ours.opened, "%s", ours.err);
	ck_assert_int_eq(ours.rc, 0);
	ck_assert_uint_eq(ours.n, 2);
	check_pkt(&ours, 0, 10 * NS + 20, 30, 30, 1);
	check_pkt(&ours, 1, 11 * NS + 21, 31, 31, 2);
	run_free(&ours);
	buf_free(&c);
}
END_TEST

/* ---- pcapng ---- */

/* Interfaces of every time resolution, packets of every kind, and blocks
   to skip between them; mixed_want[] is what must come out. */
static void pcapng_mixed(struct buf *c, int be)
{
	ng_shb(c, be);
	/* Interface 0's snaplen is not a multiple of 4: a simple packet
	   block cut by it carries padding that is not packet.  (All share
	   it: libpcap refuses interfaces of different snaplens.) */
	ng_idb(c, 1, 198, 9, 0);			/* if 0: ns */
	ng_epb(c, 0, 1700000000123456789ull, 60, 60, 0, 0);
	ng_other(c, 0x00000badu, 24);			/* unknown: skipped */
	ng_idb(c, 1, 198, 0x94, 0);			/* if 1: 2^-20 s */
	ng_idb(c, 1, 198, NO_TSRESOL, 1000);		/* if 2: us, +1000 s */
	ng_idb(c, 1, 198, 3, -100);			/* if 3: ms, -100 s */
	ng_idb(c, 1, 198, 12, 0);			/* if 4: ps */
	ng_epb(c, 1, (1700000001ull << 20) | 0x80000u, 100, 1500, 1, 1);
	ng_other(c, 5, 40);				/* interface statistics */
	ng_epb(c, 2, 1700000002000001ull, 54, 54, 2, 0);
	ng_spb(c, 70, 70, 3);
	ng_epb(c, 3, 1700000003004ull, 0, 0, 4, 0);
	ng_pb(c, 1, (1700000004ull << 20) + 1, 42, 42, 5);
	ng_spb(c, 300, 198, 6);				/* cut by if 0's snaplen */
	ng_epb(c, 4, 12345678901234567ull, 33, 33, 7, 1);
	ng_other(c, 0x40000bcdu, 8);			/* a custom block */
	ng_epb(c, 0, 1700000009000000001ull, 197, 1000, 8, 0);
}

static const struct { uint64_t ts; uint32_t caplen, len; int spb; } mixed_want[] = {
	{ 1700000000123456789ull, 60, 60, 0 },
	{ 1700000001500000000ull, 100, 1500, 0 },
	{ 1700001002000001000ull, 54, 54, 0 },
	{ 1700001002000001000ull, 70, 70, 1 },		/* the previous packet's */
	{ 1699999903004000000ull, 0, 0, 0 },
	{ 1700000004000000953ull, 42, 42, 0 },		/* 10^9 / 2^20, rounded down */
	{ 1700000004000000953ull, 198, 300, 1 },
	{ 12345678901234ull, 33, 33, 0 },
	{ 1700000009000000001ull, 197, 1000, 0 },
};

START_TEST(pcapng_interfaces_and_blocks)
{
	int be = _i;
	struct buf c = { 0 };
	pcapng_mixed(&c, be);
	ck_assert_uint_eq(c.b[8], be ? 0x1a : 0x4d);	/* the byte-order magic */

	struct run ours, lib;
	read_ours(&c, c.len, NULL, &ours);
	read_libpcap(&c, c.len, NULL, &lib);
	ck_assert_msg(ours.opened, "%s", ours.err);
	ck_assert_msg(ours.rc == 0, "%s", ours.err);
	ck_assert_int_eq(ours.linktype, DLT_EN10MB);
	ck_assert_uint_eq(ours.snaplen, 198);
	ck_assert_uint_eq(ours.skipped, 0);
	size_t n = sizeof mixed_want / sizeof mixed_want[0];
	ck_assert_uint_eq(ours.n, n);
	for (size_t i = 0; i < n; i++)
		check_pkt(&ours, i, mixed_want[i].ts, mixed_want[i].caplen, mixed_want[i].len,
			  (uint32_t)i);

	ck_assert_msg(lib.rc == 0, "libpcap: %s", lib.err);
	ck_assert_uint_eq(lib.n, n);
	ck_assert_int_eq(lib.linktype, ours.linktype);
	for (size_t i = 0; i < n; i++) {
		if (mixed_want[i].spb) {
			/* libpcap gives a simple packet block the time 0; we
			   give it the previous packet's (checked above), so
			   that time does not jump back to 1970. */
			ck_assert_uint_eq(lib.p[i].ts, 0);
			struct pkt k = lib.p[i];
			k.ts = ours.p[i].ts;
			same_packet(&ours.p[i], &k, i);
		} else {
			same_packet(&ours.p[i], &lib.p[i], i);
		}
	}
	run_free(&ours);
	run_free(&lib);
	buf_free(&c);
}
END_TEST

START_TEST(pcapng_spb_first_and_filtered)
{
	/* A simple packet block before any timed packet has nothing to
	   borrow: time 0. */
	struct buf c = { 0 };
	ng_shb(&c, 0);
	ng_idb(&c, 1, 0, 9, 0);		/* snaplen 0: no limit */
	ng_spb(&c, 20, 20, 0);
	ng_epb(&c, 0, 5 * NS + 1, 20, 20, 1, 0);
	ng_spb(&c, 1000, 1000, 2);
	struct run ours;
	read_ours(&c, c.len, NULL, &ours);
	ck_assert_msg(ours.rc == 0, "%s", ours.err);
	ck_assert_uint_eq(ours.snaplen, 0);
	ck_assert_uint_eq(ours.n, 3);
	check_pkt(&ours, 0, 0, 20, 20, 0);
	check_pkt(&ours, 1, 5 * NS + 1, 20, 20, 1);
	check_pkt(&ours, 2, 5 * NS + 1, 1000, 1000, 2);
	run_free(&ours);

	/* A filter must not change the time of a packet it keeps: the
	   block after a packet it dropped still borrows that packet's. */
	read_ours(&c, c.len, "greater 500", &ours);
	ck_assert_msg(ours.rc == 0, "%s", ours.err);
	ck_assert_uint_eq(ours.n, 1);
	check_pkt(&ours, 0, 5 * NS + 1, 1000, 1000, 2);
	run_free(&ours);
	buf_free(&c);
}
END_TEST

/* A second section in the other byte order: the interfaces start over,
   and so do the numbers. */
START_TEST(pcapng_second_section_other_order)
{
	int be = _i;
	struct buf c = { 0 };
	ng_shb(&c, be);
	ng_idb(&c, 1, 1500, 9, 0);
	ng_epb(&c, 0, 1700000000000000001ull, 50, 50, 0, 0);
	ng_epb(&c, 0, 1700000000000000002ull, 51, 51, 1, 1);
	ng_shb(&c, !be);
	ng_idb(&c, 1, 9000, NO_TSRESOL, 0);	/* interface 0 again, in us */
	ng_idb(&c, 1, 9000, 0x94, 60);
	ng_epb(&c, 0, 1700000005000007ull, 52, 52, 2, 0);
	ng_epb(&c, 1, (1700000006ull << 20) | 0x40000u, 53, 53, 3, 0);
	ng_spb(&c, 54, 54, 4);

	struct run ours;
	read_ours(&c, c.len, NULL, &ours);
	ck_assert_msg(ours.rc == 0, "%s", ours.err);
	ck_assert_int_eq(ours.linktype, DLT_EN10MB);
	ck_assert_uint_eq(ours.snaplen, 1500);	/* the first interface's */
	ck_assert_uint_eq(ours.n, 5);
	check_pkt(&ours, 0, 1700000000000000001ull, 50, 50, 0);
	check_pkt(&ours, 1, 1700000000000000002ull, 51, 51, 1);
	check_pkt(&ours, 2, 1700000005000007000ull, 52, 52, 2);
	check_pkt(&ours, 3, 1700000066250000000ull, 53, 53, 3);
	check_pkt(&ours, 4, 1700000066250000000ull, 54, 54, 4);

	/* libpcap refuses sections of different byte orders, but reads the
	   first section like us. */
	struct run lib;
	read_libpcap(&c, c.len, NULL, &lib);
	ck_assert_uint_ge(lib.n, 2);
	for (size_t i = 0; i < 2; i++)
		same_packet(&ours.p[i], &lib.p[i], i);
	run_free(&lib);
	run_free(&ours);
	buf_free(&c);
}
END_TEST

START_TEST(pcapng_second_section_same_order)
{
	/* With one byte order libpcap reads both sections: the oracle for
	   the interfaces starting over. */
	struct buf c = { 0 };
	ng_shb(&c, 1);
	ng_idb(&c, 1, 1500, 9, 0);
	ng_epb(&c, 0, 1700000000000000001ull, 50, 50, 0, 0);
	ng_shb(&c, 1);
	ng_idb(&c, 1, 1500, NO_TSRESOL, 0);
	ng_epb(&c, 0, 1700000005000007ull, 52, 52, 1, 0);
	struct run ours, lib;
	read_ours(&c, c.len, NULL, &ours);
	read_libpcap(&c, c.len, NULL, &lib);
	same_as_libpcap(&ours, &lib);
	ck_assert_uint_eq(ours.n, 2);
	check_pkt(&ours, 1, 1700000005000007000ull, 52, 52, 1);
	run_free(&ours);
	run_free(&lib);
	buf_free(&c);
}
END_TEST

START_TEST(pcapng_other_linktype_skipped)
{
	/* Interface 0 Ethernet, interface 1 raw IP (libpcap refuses such a
	   file): the pipeline decodes one link type, so interface 1's
	   packets are counted, not delivered. */
	struct buf c = { 0 };
	ng_shb(&c, _i);
	ng_idb(&c, 1, 1500, 9, 0);
	ng_idb(&c, 101, 1500, 9, 0);
	ng_epb(&c, 0, 100, 40, 40, 0, 0);
	ng_epb(&c, 1, 101, 41, 41, 50, 0);
	ng_epb(&c, 1, 102, 42, 42, 51, 0);
	ng_epb(&c, 0, 103, 43, 43, 1, 0);
	ng_spb(&c, 45, 45, 2);		/* always interface 0 */
	ng_pb(&c, 1, 104, 44, 44, 52);
	ng_epb(&c, 1, 106, 46, 46, 53, 0);
	struct run ours;
	read_ours(&c, c.len, NULL, &ours);
	ck_assert_msg(ours.rc == 0, "%s", ours.err);
	ck_assert_int_eq(ours.linktype, DLT_EN10MB);
	ck_assert_uint_eq(ours.n, 3);
	ck_assert_uint_eq(ours.skipped, 4);
	check_pkt(&ours, 0, 100, 40, 40, 0);
	check_pkt(&ours, 1, 103, 43, 43, 1);
	check_pkt(&ours, 2, 103, 45, 45, 2);
	run_free(&ours);
	buf_free(&c);

	/* The other way round: raw IP first, so Ethernet is the stranger. */
	ng_shb(&c, _i);
	ng_idb(&c, 101, 1500, 9, 0);
	ng_idb(&c, 1, 1500, 9, 0);
	ng_epb(&c, 1, 200, 40, 40, 50, 0);
	ng_epb(&c, 0, 201, 41, 41, 0, 0);
	read_ours(&c, c.len, NULL, &ours);
	ck_assert_msg(ours.rc == 0, "%s", ours.err);
	ck_assert_int_eq(ours.linktype, DLT_RAW);
	ck_assert_uint_eq(ours.n, 1);
	ck_assert_uint_eq(ours.skipped, 1);
	check_pkt(&ours, 0, 201, 41, 41, 0);
	run_free(&ours);
	buf_free(&c);
}
END_TEST

/* ---- truncation ---- */

/* Read every prefix of c from `from` bytes on.  ends[] are the offsets
   where records end, packet[] says which of them are packets delivered
   in that order (their seeds 0, 1, ...).  Shorter prefixes than the
   header must not open. */
static void cut_everywhere(const struct buf *c, size_t header, const size_t *ends, const int *packet,
			   size_t nends, const uint64_t *ts, const uint32_t *caplen)
{
	for (size_t cut = 0; cut <= c->len; cut++) {
		struct run r;
		read_ours(c, cut, NULL, &r);
		if (cut < header) {
			ck_assert_msg(!r.opened, "cut at %zu of a %zu-byte header opened", cut, header);
			ck_assert_msg(r.err[0], "cut at %zu: no message", cut);
			continue;
		}
		ck_assert_msg(r.opened, "cut at %zu: %s", cut, r.err);
		size_t want = 0;
		int boundary = cut == header;
		for (size_t i = 0; i < nends; i++) {
			if (ends[i] <= cut && packet[i])
				want++;
			if (ends[i] == cut)
				boundary = 1;
		}
		ck_assert_msg(r.n == want, "cut at %zu: %zu packets, want %zu (%s)", cut, r.n, want,
			      r.err);
		for (size_t i = 0; i < r.n; i++)
			check_pkt(&r, i, ts[i], caplen[i], caplen[i], (uint32_t)i);
		if (boundary) {
			ck_assert_msg(r.rc == 0, "cut at %zu, a record boundary: %d %s", cut, r.rc, r.err);
			ck_assert_str_eq(r.err, "");
		} else {
			ck_assert_msg(r.rc == -1, "cut at %zu, inside a record: %d", cut, r.rc);
			ck_assert_msg(strstr(r.err, "truncated") != NULL, "cut at %zu: '%s'", cut, r.err);
		}
		run_free(&r);
	}
}

START_TEST(pcap_truncated_everywhere)
{
	struct buf c = { 0 };
	size_t ends[4];
	int packet[4] = { 1, 1, 1, 1 };
	uint64_t ts[4];
	uint32_t caplen[4] = { 20, 0, 33, 7 };
	pcap_header(&c, _i, 0, 65535, 1);
	size_t header = c.len;
	for (int i = 0; i < 4; i++) {
		pcap_record(&c, 1000u + (uint32_t)i, 999u, caplen[i], caplen[i], (uint32_t)i);
		ends[i] = c.len;
		ts[i] = (1000u + (uint64_t)i) * NS + 999000u;
	}
	ck_assert_uint_eq(header, 24);
	cut_everywhere(&c, header, ends, packet, 4, ts, caplen);
	buf_free(&c);
}
END_TEST

START_TEST(pcapng_truncated_everywhere)
{
	struct buf c = { 0 };
	size_t ends[6];
	int packet[6] = { 1, 0, 0, 1, 1, 1 };
	uint64_t ts[4] = { 1000 * NS + 1, 1001 * NS + 2, 1001 * NS + 2, 1002 * NS + 3 };
	uint32_t caplen[4] = { 20, 10, 33, 1 };
	ng_shb(&c, _i);
	ng_idb(&c, 1, 65535, 9, 0);
	size_t header = c.len;
	ng_epb(&c, 0, ts[0], caplen[0], caplen[0], 0, 1);
	ends[0] = c.len;
	ng_other(&c, 0x00000badu, 12);
	ends[1] = c.len;
	ng_idb(&c, 1, 65535, 9, 0);
	ends[2] = c.len;
	ng_epb(&c, 1, ts[1], caplen[1], caplen[1], 1, 0);
	ends[3] = c.len;
	ng_spb(&c, caplen[2], caplen[2], 2);
	ends[4] = c.len;
	ng_pb(&c, 0, ts[3], caplen[3], caplen[3], 3);
	ends[5] = c.len;
	cut_everywhere(&c, header, ends, packet, 6, ts, caplen);
	buf_free(&c);
}
END_TEST

START_TEST(pcap_header_only)
{
	/* A capture of no packets: it opens, and ends at once without error. */
	struct buf c = { 0 };
	pcap_header(&c, 1, 1, 262144, 101);
	struct run ours;
	read_ours(&c, c.len, NULL, &ours);
	ck_assert(ours.opened);
	ck_assert_int_eq(ours.rc, 0);
	ck_assert_uint_eq(ours.n, 0);
	ck_assert_uint_eq(ours.snaplen, 262144);
	run_free(&ours);
	buf_free(&c);
}
END_TEST

/* ---- damage ---- */

/* Read a damaged capture: `good` packets first, then -1 with `msg` in the
   message.  Another call after the failure must not crash either. */
static void damaged(const struct buf *c, size_t good, const char *msg)
{
	FILE *f = mem(c, c->len);
	char err[320];
	struct pcapfile *p = pcapfile_open(f, err, sizeof err);
	ck_assert_msg(p != NULL, "%s", err);
	struct pcapfile_packet k;
	size_t n = 0;
	int rc;
	while ((rc = pcapfile_next(p, &k)) == 1) {
		ck_assert_msg(pat_ok(k.data, k.caplen, (uint32_t)n), "packet %zu: wrong bytes", n);
		n++;
	}
	ck_assert_msg(rc == -1, "damage not seen: rc %d after %zu packets", rc, n);
	ck_assert_uint_eq(n, good);
	ck_assert_msg(strstr(pcapfile_error(p), msg) != NULL, "'%s' does not say '%s'",
		      pcapfile_error(p), msg);
	(void)pcapfile_next(p, &k);
	pcapfile_close(p);
	fclose(f);
}

static void not_opened(const struct buf *c, size_t n, const char *msg)
{
	FILE *f = mem(c, n);
	char err[320] = "";
	struct pcapfile *p = pcapfile_open(f, err, sizeof err);
	ck_assert_msg(p == NULL, "opened");
	ck_assert_msg(strstr(err, msg) != NULL, "'%s' does not say '%s'", err, msg);
	fclose(f);
}

START_TEST(pcap_huge_caplen)
{
	struct buf c = { 0 };
	pcap_header(&c, _i, 0, 65535, 1);
	pcap_record(&c, 1, 1, 60, 60, 0);
	pcap_record(&c, 2, 2, 61, 61, 1);
	pcap_record_hdr(&c, 3, 3, 0x7fffffffu, 60);
	put_pat(&c, 200, 2);
	damaged(&c, 2, "damaged");
	buf_free(&c);
}
END_TEST

START_TEST(pcap_large_caplen_short_file)
{
	/* A length that could be real (40 MB) in a file that ends first:
	   the buffer grows for it, then the reading ends with a message. */
	struct buf c = { 0 };
	pcap_header(&c, _i, 0, 65535, 1);
	pcap_record(&c, 1, 1, 60, 60, 0);
	pcap_record_hdr(&c, 3, 3, 40u << 20, 40u << 20);
	put_pat(&c, 1000, 1);
	damaged(&c, 1, "truncated");
	buf_free(&c);
}
END_TEST

START_TEST(pcap_bad_version)
{
	struct buf c = { 0 };
	pcap_header(&c, _i, 0, 65535, 1);
	set16(&c, 4, 3);
	pcap_record(&c, 1, 1, 60, 60, 0);
	not_opened(&c, c.len, "version");
	buf_free(&c);
}
END_TEST

/* A pcapng cut, or damaged, before its first interface is whole says so,
   not that it has no interface. */
START_TEST(pcapng_first_interface_cut)
{
	struct buf c = { 0 };
	ng_shb(&c, _i);
	size_t idb = c.len;
	ng_idb(&c, 1, 65535, 9, 0);
	for (size_t cut = idb + 1; cut < c.len; cut++)
		not_opened(&c, cut, "truncated");
	set32(&c, idb + 4, 94);
	not_opened(&c, c.len, "length 94");
	buf_free(&c);
}
END_TEST

static void two_good_epbs(struct buf *c, int be)
{
	ng_shb(c, be);
	ng_idb(c, 1, 65535, 9, 0);
	ng_epb(c, 0, 1, 60, 60, 0, 0);
	ng_epb(c, 0, 2, 61, 61, 1, 0);
}

START_TEST(pcapng_lengths_differ)
{
	struct buf c = { 0 };
	two_good_epbs(&c, _i);
	ng_epb(&c, 0, 3, 62, 62, 2, 0);
	ng_epb(&c, 0, 4, 63, 63, 3, 0);
	/* The third block's trailing length, 4 more than its leading one. */
	size_t third = c.len - 2 * (28 + 64 + 4);
	ck_assert_uint_eq(c.b[third + (_i ? 3 : 0)], 6);
	set32(&c, third + 28 + 64, 28 + 64 + 4 + 4);
	damaged(&c, 2, "differ");
	buf_free(&c);
}
END_TEST

START_TEST(pcapng_length_not_multiple_of_4)
{
	struct buf c = { 0 };
	two_good_epbs(&c, _i);
	size_t s = c.len;
	ng_epb(&c, 0, 3, 62, 62, 2, 0);
	set32(&c, s + 4, 94);
	put_pat(&c, 100, 9);
	/* The length itself is wrong, not the copy at the end. */
	damaged(&c, 2, "length 94");
	buf_free(&c);
}
END_TEST

START_TEST(pcapng_length_too_small_or_huge)
{
	uint32_t bad[] = { 0, 8, 0xfffffffcu };
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
		struct buf c = { 0 };
		two_good_epbs(&c, _i);
		size_t s = c.len;
		ng_epb(&c, 0, 3, 62, 62, 2, 0);
		set32(&c, s + 4, bad[k]);
		char msg[32];
		snprintf(msg, sizeof msg, "length %u", bad[k]);
		damaged(&c, 2, msg);
		buf_free(&c);
	}
}
END_TEST

START_TEST(pcapng_undescribed_interface)
{
	struct buf c = { 0 };
	two_good_epbs(&c, _i);
	ng_epb(&c, 7, 3, 62, 62, 2, 0);
	ng_epb(&c, 0, 4, 63, 63, 3, 0);
	damaged(&c, 2, "damaged packet block");
	buf_free(&c);

	/* Interface 1 of the first section is gone in the second. */
	two_good_epbs(&c, _i);
	ng_idb(&c, 1, 65535, 9, 0);
	ng_epb(&c, 1, 3, 62, 62, 2, 0);
	ng_shb(&c, !_i);
	ng_idb(&c, 1, 65535, 9, 0);
	ng_epb(&c, 1, 4, 63, 63, 3, 0);
	damaged(&c, 3, "damaged packet block");
	buf_free(&c);

	/* A simple packet block needs interface 0 of its section too. */
	two_good_epbs(&c, _i);
	ng_shb(&c, _i);
	ng_spb(&c, 10, 10, 2);
	damaged(&c, 2, "damaged packet block");
	buf_free(&c);
}
END_TEST

START_TEST(pcapng_caplen_beyond_block)
{
	struct buf c = { 0 };
	two_good_epbs(&c, _i);
	size_t s = c.len;
	ng_epb(&c, 0, 3, 62, 62, 2, 0);
	set32(&c, s + 20, 1000);	/* caplen */
	damaged(&c, 2, "damaged packet block");
	buf_free(&c);

	/* An enhanced packet block too short for its own header. */
	two_good_epbs(&c, _i);
	ng_other(&c, 6, 16);
	damaged(&c, 2, "damaged packet block");
	buf_free(&c);
}
END_TEST

START_TEST(pcapng_bad_section_headers)
{
	struct buf c = { 0 };
	two_good_epbs(&c, _i);
	c.b[8] ^= 0xff;
	not_opened(&c, c.len, "byte-order");
	buf_free(&c);

	/* The same damage in a later section header: what came before is
	   delivered. */
	two_good_epbs(&c, _i);
	size_t s = c.len;
	ng_shb(&c, _i);
	ng_idb(&c, 1, 65535, 9, 0);
	ng_epb(&c, 0, 3, 62, 62, 2, 0);
	c.b[s + 8] ^= 0xff;
	damaged(&c, 2, "byte-order");
	buf_free(&c);
}
END_TEST

START_TEST(pcapng_no_interface)
{
	struct buf c = { 0 };
	ng_shb(&c, _i);
	ng_epb(&c, 0, 1, 60, 60, 0, 0);
	not_opened(&c, c.len, "interface");
	buf_free(&c);
}
END_TEST

/* A stream that fails with EIO after n bytes, as a disk or a network
   file system may. */
struct failing {
	const uint8_t *b;
	size_t n, pos;
};

static ssize_t failing_read(void *cookie, char *out, size_t size)
{
	struct failing *fl = cookie;
	if (fl->pos >= fl->n) {
		errno = EIO;
		return -1;
	}
	size_t k = fl->n - fl->pos < size ? fl->n - fl->pos : size;
	memcpy(out, fl->b + fl->pos, k);
	fl->pos += k;
	return (ssize_t)k;
}

START_TEST(read_error)
{
	struct buf c = { 0 };
	pcap_header(&c, 0, 0, 65535, 1);
	pcap_record(&c, 1, 1, 60, 60, 0);
	pcap_record(&c, 2, 2, 61, 61, 1);
	size_t n = c.len + 30;		/* inside the third record */
	pcap_record(&c, 3, 3, 62, 62, 2);
	struct failing fl = { c.b, n, 0 };
	cookie_io_functions_t io = { .read = failing_read };
	FILE *f = fopencookie(&fl, "r", io);
	ck_assert_ptr_nonnull(f);
	struct run r;
	read_stream(f, NULL, &r);
	fclose(f);
	ck_assert(r.opened);
	ck_assert_int_eq(r.rc, -1);
	ck_assert_uint_eq(r.n, 2);
	/* Not "truncated": the file may be whole, the reading failed. */
	ck_assert_msg(strstr(r.err, "read error") != NULL, "'%s'", r.err);
	check_pkt(&r, 1, 2 * NS + 2000, 61, 61, 1);
	run_free(&r);
	buf_free(&c);
}
END_TEST

/* ---- records and files larger than the read chunk ---- */

START_TEST(record_larger_than_chunk)
{
	/* Around and beyond the chunk: exactly one chunk with its header,
	   one byte more, one chunk of data, and 600 KB, which makes the
	   buffer grow twice; small records between them must survive each
	   move of the window. */
	uint32_t sizes[] = { 100, CHUNK - 16 - 24 - 116, CHUNK - 16, CHUNK - 15, 10, CHUNK,
			     CHUNK + 1, 600u << 10, 3, 600u << 10, 50 };
	size_t n = sizeof sizes / sizeof sizes[0];
	for (int ng = 0; ng < 2; ng++) {
		struct buf c = { 0 };
		if (ng) {
			ng_shb(&c, 1);
			ng_idb(&c, 1, 1u << 20, 9, 0);
			for (uint32_t i = 0; i < n; i++)
				ng_epb(&c, 0, 1000 + i, sizes[i], sizes[i], i, i & 1);
		} else {
			pcap_header(&c, 1, 1, 1u << 20, 1);
			for (uint32_t i = 0; i < n; i++)
				pcap_record(&c, 1, 1000 + i, sizes[i], sizes[i], i);
		}
		struct run r;
		read_ours(&c, c.len, NULL, &r);
		ck_assert_msg(r.rc == 0, "%s", r.err);
		ck_assert_uint_eq(r.n, n);
		for (uint32_t i = 0; i < n; i++)
			check_pkt(&r, i, (ng ? 0 : NS) + 1000 + i, sizes[i], sizes[i], i);
		run_free(&r);
		buf_free(&c);
	}
}
END_TEST

static void many_packets(struct buf *c, int ng, uint32_t count, uint32_t size)
{
	if (ng) {
		ng_shb(c, 0);
		ng_idb(c, 1, 65535, NO_TSRESOL, 0);
	} else {
		pcap_header(c, 1, 0, 65535, 1);
	}
	for (uint32_t i = 0; i < count; i++) {
		if (ng)
			ng_epb(c, 0, 1700000000000000ull + i * 1001ull, size, size + 10, i, i % 3 == 0);
		else
			pcap_record(c, 1700000000u + i / 1000, i * 7919u % 1000000u, size, size + 10, i);
	}
}

START_TEST(many_records_across_chunks)
{
	/* 5 MB of records whose ends fall everywhere in the chunks. */
	for (int ng = 0; ng < 2; ng++) {
		struct buf c = { 0 };
		uint32_t size = ng ? 999 : 1000;
		many_packets(&c, ng, 5000, size);
		ck_assert_uint_gt(c.len, 16 * CHUNK);
		struct run ours, lib;
		read_ours(&c, c.len, NULL, &ours);
		read_libpcap(&c, c.len, NULL, &lib);
		same_as_libpcap(&ours, &lib);
		ck_assert_uint_eq(ours.n, 5000);
		for (uint32_t i = 0; i < 5000; i++)
			ck_assert_msg(pat_ok(ours.p[i].data, size, i), "packet %u: wrong bytes", i);
		run_free(&ours);
		run_free(&lib);
		buf_free(&c);
	}
}
END_TEST

START_TEST(records_around_the_headroom)
{
	/* Records of 60-70 KB: the tail a buffer's end cuts from one is
	   sometimes within the room in front of the next buffer (64 KB in
	   pcapfile.c), sometimes more, and then they are joined by copying. */
	struct buf c = { 0 };
	pcap_header(&c, 0, 0, 262144, 1);
	uint32_t count = 200;
	for (uint32_t i = 0; i < count; i++)
		pcap_record(&c, 1700000000u, i, 60000 + i * 50, 60000 + i * 50, i);
	struct run ours, lib;
	read_ours(&c, c.len, NULL, &ours);
	read_libpcap(&c, c.len, NULL, &lib);
	same_as_libpcap(&ours, &lib);
	ck_assert_uint_eq(ours.n, count);
	for (uint32_t i = 0; i < count; i++)
		ck_assert_msg(pat_ok(ours.p[i].data, 60000 + i * 50, i), "packet %u: wrong bytes", i);
	run_free(&ours);
	run_free(&lib);
	buf_free(&c);
}
END_TEST

START_TEST(from_a_pipe)
{
	/* A pipe gives what the writer has written so far; the writer here
	   writes in pieces of a prime size. */
	struct buf c = { 0 };
	many_packets(&c, _i, 5000, 1000);
	int fd[2];
	ck_assert_int_eq(pipe(fd), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(fd[0]);
		for (size_t off = 0; off < c.len;) {
			size_t k = c.len - off < 4093 ? c.len - off : 4093;
			ssize_t w = write(fd[1], c.b + off, k);
			if (w <= 0)
				_exit(1);
			off += (size_t)w;
		}
		_exit(0);
	}
	close(fd[1]);
	FILE *f = fdopen(fd[0], "r");
	ck_assert_ptr_nonnull(f);
	struct run r;
	read_stream(f, NULL, &r);
	fclose(f);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_msg(r.rc == 0, "%s", r.err);
	ck_assert_uint_eq(r.n, 5000);
	struct run lib;
	read_libpcap(&c, c.len, NULL, &lib);
	same_as_libpcap(&r, &lib);
	run_free(&r);
	run_free(&lib);
	buf_free(&c);
}
END_TEST

/* A packet that has come down a pipe is handed over at once, not when
   a large read fills: the writer sends three packets and then waits for
   the reader to say it has them before it sends the rest.  A reader that
   waited for more bytes would wait for ever (and Check's timeout fails
   the test). */
START_TEST(pipe_delivers_at_once)
{
	struct buf c = { 0 };
	many_packets(&c, 0, 10, 100);	/* pcap: a 24-byte header, 16 a record */
	size_t first3 = 24 + 3 * (16 + 100);
	ck_assert_uint_le(first3, c.len);
	int data[2], go[2];
	ck_assert_int_eq(pipe(data), 0);
	ck_assert_int_eq(pipe(go), 0);
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(data[0]);
		close(go[1]);
		char ok;
		if (write(data[1], c.b, first3) != (ssize_t)first3 || read(go[0], &ok, 1) != 1 ||
		    write(data[1], c.b + first3, c.len - first3) != (ssize_t)(c.len - first3))
			_exit(1);
		_exit(0);
	}
	close(data[1]);
	close(go[0]);
	FILE *f = fdopen(data[0], "r");
	ck_assert_ptr_nonnull(f);
	char err[320];
	struct pcapfile *p = pcapfile_open(f, err, sizeof err);
	ck_assert_msg(p != NULL, "%s", err);
	struct pcapfile_packet pkt;
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(pcapfile_next(p, &pkt), 1);
	ck_assert_int_eq(write(go[1], "g", 1), 1);
	int n = 3;
	while (pcapfile_next(p, &pkt) == 1)
		n++;
	ck_assert_int_eq(n, 10);
	pcapfile_close(p);
	fclose(f);
	close(go[1]);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	buf_free(&c);
}
END_TEST

/* ---- filters ---- */

/* Ethernet, IPv4, then TCP or UDP with the given ports and 4 bytes. */
static void put_frame(struct buf *c, uint32_t sec, int tcp, uint16_t sport, uint16_t dport)
{
	uint8_t f[80];
	uint32_t l4 = tcp ? 20 : 8, total = 20 + l4 + 4;
	memset(f, 0, sizeof f);
	memset(f, 0x02, 6);
	memset(f + 6, 0x04, 6);
	f[12] = 0x08;
	uint8_t *ip = f + 14;
	ip[0] = 0x45;
	ip[2] = (uint8_t)(total >> 8);
	ip[3] = (uint8_t)total;
	ip[8] = 64;
	ip[9] = tcp ? 6 : 17;
	ip[12] = 10; ip[15] = 1;
	ip[16] = 10; ip[19] = 2;
	uint8_t *t = ip + 20;
	t[0] = (uint8_t)(sport >> 8); t[1] = (uint8_t)sport;
	t[2] = (uint8_t)(dport >> 8); t[3] = (uint8_t)dport;
	if (tcp) {
		t[12] = 0x50;
		t[13] = 0x18;
	} else {
		t[5] = (uint8_t)(8 + 4);
	}
	memcpy(t + l4, "xcap", 4);
	uint32_t n = 14 + total;
	pcap_record_hdr(c, sec, 0, n, n);
	put_bytes(c, f, n);
}

START_TEST(filter_tcp_port)
{
	struct buf c = { 0 };
	pcap_header(&c, _i, 0, 65535, 1);
	put_frame(&c, 0, 1, 40000, 6001);	/* kept */
	put_frame(&c, 1, 1, 40001, 6002);
	put_frame(&c, 2, 1, 6001, 40000);	/* kept: the server's side */
	put_frame(&c, 3, 0, 40000, 6001);	/* UDP */
	put_frame(&c, 4, 1, 6002, 40001);
	put_frame(&c, 5, 1, 40000, 6001);	/* kept */
	struct run ours, lib;
	read_ours(&c, c.len, "tcp port 6001", &ours);
	read_libpcap(&c, c.len, "tcp port 6001", &lib);
	same_as_libpcap(&ours, &lib);
	ck_assert_uint_eq(ours.n, 3);
	ck_assert_uint_eq(ours.p[0].ts, 0);
	ck_assert_uint_eq(ours.p[1].ts, 2 * NS);
	ck_assert_uint_eq(ours.p[2].ts, 5 * NS);
	run_free(&ours);
	/* No filter, or an empty one: everything. */
	read_ours(&c, c.len, "", &ours);
	ck_assert_uint_eq(ours.n, 6);
	run_free(&ours);
	run_free(&lib);
	buf_free(&c);
}
END_TEST

START_TEST(filter_bad_expression)
{
	struct buf c = { 0 };
	pcap_header(&c, 0, 0, 65535, 1);
	put_frame(&c, 0, 1, 40000, 6001);
	FILE *f = mem(&c, c.len);
	char err[320];
	struct pcapfile *p = pcapfile_open(f, err, sizeof err);
	ck_assert_ptr_nonnull(p);
	err[0] = '\0';
	ck_assert_int_eq(pcapfile_set_filter(p, "tcp port sixthousand and (", err, sizeof err), -1);
	ck_assert_msg(strlen(err) > 5, "no message: '%s'", err);
	pcapfile_close(p);
	fclose(f);
	buf_free(&c);
}
END_TEST

/* ---- not a capture ---- */

START_TEST(not_a_capture)
{
	struct buf c = { 0 };
	/* Random bytes (fixed seed), starting with none of the magics. */
	uint32_t x = 2463534242u;
	for (int i = 0; i < 4096; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		uint8_t v = (uint8_t)x;
		put_bytes(&c, &v, 1);
	}
	c.b[0] = 0x42;
	not_opened(&c, c.len, "not a pcap");
	buf_free(&c);

	put_bytes(&c, "hello, this is text\n", 20);
	not_opened(&c, c.len, "not a pcap");
	/* Empty, or shorter than any magic. */
	not_opened(&c, 0, "empty file");	/* as every reader says it */
	buf_free(&c);
	pcap_header(&c, 0, 0, 65535, 1);
	not_opened(&c, 3, "not a pcap");
	/* A magic with nothing after it. */
	not_opened(&c, 4, "truncated");
	buf_free(&c);
	ng_shb(&c, 0);
	not_opened(&c, 10, "truncated");
	buf_free(&c);
}
END_TEST

static Suite *pcapfile_suite(void)
{
	Suite *s = suite_create("pcapfile");
	TCase *tc = tcase_create("pcap");
	tcase_add_loop_test(tc, pcap_orders_and_precisions, 0, 4);
	tcase_add_test(tc, pcap_linktype_raw);
	tcase_add_test(tc, pcap_linktype_fcs_bits);
	tcase_add_test(tc, pcap_from_current_position);
	tcase_add_test(tc, pcap_header_only);
	suite_add_tcase(s, tc);

	tc = tcase_create("pcapng");
	tcase_add_loop_test(tc, pcapng_interfaces_and_blocks, 0, 2);
	tcase_add_test(tc, pcapng_spb_first_and_filtered);
	tcase_add_loop_test(tc, pcapng_second_section_other_order, 0, 2);
	tcase_add_test(tc, pcapng_second_section_same_order);
	tcase_add_loop_test(tc, pcapng_other_linktype_skipped, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("truncation");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, pcap_truncated_everywhere, 0, 2);
	tcase_add_loop_test(tc, pcapng_truncated_everywhere, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("truncation from a file");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, from_a_file, NULL);
	tcase_add_loop_test(tc, pcap_truncated_everywhere, 0, 2);
	tcase_add_loop_test(tc, pcapng_truncated_everywhere, 0, 2);
	suite_add_tcase(s, tc);

	tc = tcase_create("damage");
	tcase_add_loop_test(tc, pcap_huge_caplen, 0, 2);
	tcase_add_loop_test(tc, pcap_large_caplen_short_file, 0, 2);
	tcase_add_loop_test(tc, pcap_bad_version, 0, 2);
	tcase_add_loop_test(tc, pcapng_lengths_differ, 0, 2);
	tcase_add_loop_test(tc, pcapng_length_not_multiple_of_4, 0, 2);
	tcase_add_loop_test(tc, pcapng_length_too_small_or_huge, 0, 2);
	tcase_add_loop_test(tc, pcapng_undescribed_interface, 0, 2);
	tcase_add_loop_test(tc, pcapng_caplen_beyond_block, 0, 2);
	tcase_add_loop_test(tc, pcapng_bad_section_headers, 0, 2);
	tcase_add_loop_test(tc, pcapng_no_interface, 0, 2);
	tcase_add_test(tc, read_error);
	suite_add_tcase(s, tc);

	tc = tcase_create("large");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, record_larger_than_chunk);
	tcase_add_test(tc, many_records_across_chunks);
	tcase_add_loop_test(tc, from_a_pipe, 0, 2);
	tcase_add_loop_test(tc, pcapng_first_interface_cut, 0, 2);
	tcase_add_test(tc, pipe_delivers_at_once);
	suite_add_tcase(s, tc);

	tc = tcase_create("large from a file");
	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, from_a_file, NULL);
	tcase_add_test(tc, record_larger_than_chunk);
	tcase_add_test(tc, many_records_across_chunks);
	tcase_add_test(tc, records_around_the_headroom);
	tcase_add_test(tc, pcap_from_current_position);
	suite_add_tcase(s, tc);

	tc = tcase_create("filter");
	tcase_add_loop_test(tc, filter_tcp_port, 0, 2);
	tcase_add_test(tc, filter_bad_expression);
	suite_add_tcase(s, tc);

	tc = tcase_create("not a capture");
	tcase_add_test(tc, not_a_capture);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(pcapfile_suite());
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
