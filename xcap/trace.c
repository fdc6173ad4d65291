/*
 * trace.c — the .xcap trace format (see man/xcap.5 for the layout).
 *
 * The writer packs records into blocks of about 64 KiB, each with a sync
 * marker, a length and a CRC-32, so that a reader can check every block,
 * skip a damaged one by searching for the next marker, and stop cleanly at
 * a tail cut short by a crash.  Inside a block every field is a varint, and
 * times are deltas from the previous record, which keeps a packet record
 * near 25 bytes.  A reader ignores record types and trailing fields it does
 * not know: that is how the format grows without breaking old readers.
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "conns.h"
#include "grow.h"
#include "pairing.h"
#include "trace.h"

/* ---- the layout ---- */

static const uint8_t file_magic[8] = { 0x89, 'X', 'C', 'A', 'P', '\r', '\n', 0x1a };
static const uint8_t block_magic[4] = { 'X', 'B', 'L', 'K' };

enum {
	TRACE_MAJOR = 1,
	/* 1.1: msg records end with the request a reply answers (req_ts,
	   req_end).  A 1.0 trace reads as before, its replies paired by the
	   reader as the pipeline pairs them (xcap/pairing.h).
	   1.2: mark records (type 9), which a 1.1 reader skips.
	   1.3: pkt records may end with the segment's compressed length
	   (1 + zlen, left out when not measured), which a 1.2 reader
	   ignores.
	   1.4: a pkt record whose payload the snaplen cut may end with
	   1 + the bytes captured before the cut, standing for the gap
	   record (reason snaplen) that followed it: the reader gives that
	   record back after the packet's.  A 1.3 reader ignores the field
	   and so reads the packet without its gap. */
	TRACE_MINOR = 4,
	BLOCK_HEADER = 16,		/* magic, type, flags, reserved, length, crc */
	BLOCK_RECORDS = 1,		/* the only block type so far */
	BLOCK_TARGET = 64 * 1024,	/* the writer closes a block past this */
	BLOCK_MAX = 16 * 1024 * 1024,	/* a reader refuses longer blocks */
	HEADER_MAX = 64 * 1024,
	STRING_MAX = 16 * 1024,		/* longer strings are cut by the writer */
	RECORD_MAX = 4 * STRING_MAX + 256,
};

/* File header tags */
enum { TAG_END = 0, TAG_HOST, TAG_IFACE, TAG_FILTER, TAG_TOOL, TAG_LINKTYPE,
       TAG_SNAPLEN, TAG_PRECISION };

/* ---- CRC-32 (IEEE 802.3, as zlib and PNG), slicing by eight ---- */

static uint32_t crc_table[8][256];

static void crc_init(void)
{
	static int done;
	if (done)
		return;
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^
					  crc_table[0][crc_table[t - 1][i] & 0xff];
	done = 1;
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* The same CRC by carry-less multiplication (PCLMULQDQ), 16 bytes a step:
   the state, a 128-bit remainder, is folded onto the next 16 bytes by
   multiplying its halves by x^(128+32) and x^(128-32) modulo the
   polynomial (bit-reflected, as the table's), then brought down to 64 and
   32 bits and reduced by Barrett's method.  A block's CRC cost the writer
   three instructions a byte with the tables, a fifth of its work on a
   capture cut to its snap length.  Takes and returns the inverted state;
   n is at least 16. */
__attribute__((target("pclmul,sse4.1")))
static uint32_t crc32_clmul(uint32_t state, const uint8_t *p, size_t n)
{
	const __m128i fold16 = _mm_set_epi64x(0x0ccaa009eLL, 0x1751997d0LL);	/* x^96, x^160 */
	const __m128i fold32 = _mm_set_epi64x(0, 0x163cd6124LL);			/* x^64 */
	const __m128i barrett = _mm_set_epi64x(0x1f7011641LL, 0x1db710641LL);	/* u', P' */
	const __m128i low32 = _mm_set_epi32(0, 0, 0, -1);
	__m128i x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)p),
				  _mm_cvtsi32_si128((int)state));
	p += 16;
	n -= 16;
	/* Four remainders side by side, each folded 64 bytes on: one chain
	   waited on each multiplication's latency, four keep the unit busy
	   (a block's CRC was 4 % of the capture's time).  Then folded into
	   one as 16-byte steps fold. */
	if (n >= 112) {
		const __m128i fold64 = _mm_set_epi64x(0x1c6e41596LL, 0x154442bd4LL);	/* x^480, x^544 */
		__m128i y = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i z = _mm_loadu_si128((const __m128i *)(const void *)(p + 16));
		__m128i u = _mm_loadu_si128((const __m128i *)(const void *)(p + 32));
		p += 48;
		n -= 48;
		while (n >= 64) {
#define FOLD64(r, at) r = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(r, fold64, 0x00), \
					_mm_clmulepi64_si128(r, fold64, 0x11)), \
			_mm_loadu_si128((const __m128i *)(const void *)(p + (at))))
			FOLD64(x, 0);
			FOLD64(y, 16);
			FOLD64(z, 32);
			FOLD64(u, 48);
#undef FOLD64
			p += 64;
			n -= 64;
		}
		x = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, fold16, 0x00),
						_mm_clmulepi64_si128(x, fold16, 0x11)), y);
		x = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, fold16, 0x00),
						_mm_clmulepi64_si128(x, fold16, 0x11)), z);
		x = _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, fold16, 0x00),
						_mm_clmulepi64_si128(x, fold16, 0x11)), u);
	}
	while (n >= 16) {
		__m128i lo = _mm_clmulepi64_si128(x, fold16, 0x00);
		__m128i hi = _mm_clmulepi64_si128(x, fold16, 0x11);
		x = _mm_xor_si128(_mm_xor_si128(lo, hi),
				  _mm_loadu_si128((const __m128i *)(const void *)p));
		p += 16;
		n -= 16;
	}
	/* 128 to 64 bits (with the 32 zero bits a CRC appends), then to 32 */
	x = _mm_xor_si128(_mm_clmulepi64_si128(x, fold16, 0x10), _mm_srli_si128(x, 8));
	x = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x, low32), fold32, 0x00),
			  _mm_srli_si128(x, 4));
	__m128i t = _mm_clmulepi64_si128(_mm_and_si128(x, low32), barrett, 0x10);
	t = _mm_clmulepi64_si128(_mm_and_si128(t, low32), barrett, 0x00);
	state = (uint32_t)_mm_extract_epi32(_mm_xor_si128(x, t), 1);
	/* the bytes short of a step, by the table */
	while (n--)
		state = crc_table[0][(state ^ *p++) & 0xff] ^ (state >> 8);
	return state;
}
#endif

static uint32_t crc32_update(uint32_t crc, const uint8_t *p, size_t n)
{
	crc = ~crc;
#if defined(__x86_64__) && defined(__GNUC__)
	static int clmul = -1;
	if (clmul < 0)
		clmul = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
	if (clmul && n >= 64)
		return ~crc32_clmul(crc, p, n);
#endif
	while (n >= 8) {
		uint32_t a = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
				    (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
		crc = crc_table[7][a & 0xff] ^ crc_table[6][(a >> 8) & 0xff] ^
		      crc_table[5][(a >> 16) & 0xff] ^ crc_table[4][a >> 24] ^
		      crc_table[3][p[4]] ^ crc_table[2][p[5]] ^
		      crc_table[1][p[6]] ^ crc_table[0][p[7]];
		p += 8;
		n -= 8;
	}
	while (n--)
		crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static void put_le16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
static uint16_t get_le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static int64_t unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* ---- the writer ---- */

struct trace_writer {
	FILE *f;
	uint8_t *buf;		/* the block being filled, header included */
	size_t len;
	uint64_t written;	/* bytes written: the offset of the block being filled */
	uint64_t last_ts;	/* for time deltas within the block */
	/* The record last put, when it is a pkt record of this block, not
	   all captured, that a snaplen gap may still be folded into
	   (put_cut), and that packet; else NULL. */
	uint8_t *last_pkt;
	struct xrec_pkt pkt;
	int failed;
	char error[256];
};

/* Encoding into a record buffer whose size RECORD_MAX bounds what one
   record can take. */
struct enc {
	uint8_t *p;
};

/* A varint.  The bytes go through a local pointer: stored through e->p,
   each byte could be e->p itself to the compiler, which then reloaded it
   after every store (a fifth of the writer's instructions on a capture
   cut to its snap length, whose records are mostly 5-byte seq and ack). */
static void enc_u(struct enc *e, uint64_t v)
{
	uint8_t *p = e->p;
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	e->p = p;
}

static void enc_str(struct enc *e, const char *s)
{
	size_t n = s ? strnlen(s, STRING_MAX) : 0;
	enc_u(e, n);
	memcpy(e->p, s ? s : "", n);
	e->p += n;
}

static void enc_addr(struct enc *e, const struct xaddr *a)
{
	size_t n = a->family == 6 ? 16 : 4;
	*e->p++ = a->family == 6 ? 6 : 4;
	memcpy(e->p, a->addr, n);
	e->p += n;
	enc_u(e, a->port);
}

static void set_error(struct trace_writer *w, const char *what)
{
	if (!w->failed)
		snprintf(w->error, sizeof w->error, "%s: %s", what, strerror(errno));
	w->failed = 1;
}

static int write_all(struct trace_writer *w, const void *p, size_t n)
{
	if (w->failed)
		return -1;
	if (n && fwrite(p, 1, n, w->f) != n) {
		set_error(w, "cannot write the trace");
		return -1;
	}
	w->written += n;
	return 0;
}

static void header_str(uint8_t *h, size_t *n, int tag, const char *s, size_t max)
{
	size_t len = strnlen(s, max);
	struct enc e = { h + *n };
	*e.p++ = (uint8_t)tag;
	enc_u(&e, len);
	memcpy(e.p, s, len);
	e.p += len;
	*n = (size_t)(e.p - h);
}

static void header_num(uint8_t *h, size_t *n, int tag, uint64_t v)
{
	uint8_t tmp[10];
	struct enc t = { tmp };
	enc_u(&t, v);
	struct enc e = { h + *n };
	*e.p++ = (uint8_t)tag;
	enc_u(&e, (uint64_t)(t.p - tmp));
	memcpy(e.p, tmp, (size_t)(t.p - tmp));
	e.p += t.p - tmp;
	*n = (size_t)(e.p - h);
}

struct trace_writer *trace_writer_new(FILE *f, const struct trace_info *info,
					char *err, size_t errlen)
{
	crc_init();
	struct trace_writer *w = calloc(1, sizeof *w);
	uint8_t *h = malloc(16 + sizeof *info + 64);
	if (w)
		w->buf = malloc(BLOCK_TARGET + RECORD_MAX + BLOCK_HEADER);
	if (!w || !h || !w->buf) {
		snprintf(err, errlen, "out of memory");
		free(h);
		if (w)
			free(w->buf);
		free(w);
		return NULL;
	}
	w->f = f;
	w->len = BLOCK_HEADER;

	/* magic, version, body length, body, CRC of version..body */
	size_t n = 16;
	header_str(h, &n, TAG_HOST, info->host, sizeof info->host);
	header_str(h, &n, TAG_IFACE, info->iface, sizeof info->iface);
	header_str(h, &n, TAG_FILTER, info->filter, sizeof info->filter);
	header_str(h, &n, TAG_TOOL, info->tool, sizeof info->tool);
	header_num(h, &n, TAG_LINKTYPE, info->linktype);
	header_num(h, &n, TAG_SNAPLEN, info->snaplen);
	header_num(h, &n, TAG_PRECISION, info->ts_precision);
	h[n++] = TAG_END;
	memcpy(h, file_magic, 8);
	put_le16(h + 8, TRACE_MAJOR);
	put_le16(h + 10, TRACE_MINOR);
	put_le32(h + 12, (uint32_t)(n - 16));
	put_le32(h + n, crc32_update(0, h + 8, n - 8));
	n += 4;
	int rc = write_all(w, h, n);
	free(h);
	if (rc < 0) {
		snprintf(err, errlen, "%s", w->error);
		free(w->buf);
		free(w);
		return NULL;
	}
	return w;
}

static int close_block(struct trace_writer *w)
{
	if (w->len == BLOCK_HEADER)
		return w->failed ? -1 : 0;
	uint8_t *b = w->buf;
	memcpy(b, block_magic, 4);
	b[4] = BLOCK_RECORDS;
	b[5] = 0;
	put_le16(b + 6, 0);
	put_le32(b + 8, (uint32_t)(w->len - BLOCK_HEADER));
	uint32_t crc = crc32_update(0, b + 4, 8);
	crc = crc32_update(crc, b + BLOCK_HEADER, w->len - BLOCK_HEADER);
	put_le32(b + 12, crc);
	int rc = write_all(w, b, w->len);
	w->len = BLOCK_HEADER;
	w->last_ts = 0;
	w->last_pkt = NULL;
	return rc;
}

/* The body of a record after its time, fields in the order of xcap(5). */
static void encode_body(struct enc *e, const struct xrec *r)
{
	switch (r->type) {
	case XREC_CONN: {
		const struct xrec_conn *c = &r->u.conn;
		enc_u(e, c->id);
		enc_u(e, c->flags);
		enc_u(e, zigzag(c->wscale[0]));
		enc_u(e, zigzag(c->wscale[1]));
		enc_addr(e, &c->client);
		enc_addr(e, &c->server);
		enc_str(e, c->proto);
		break;
	}
	case XREC_PKT:		/* put_pkt_or_gap writes these two */
	case XREC_GAP:
		break;
	case XREC_MSG: {
		const struct xrec_msg *m = &r->u.msg;
		enc_u(e, m->conn);
		enc_u(e, m->dir);
		enc_u(e, m->kind);
		enc_u(e, m->flags);
		enc_u(e, m->major);
		enc_u(e, m->minor);
		enc_u(e, m->seq);
		enc_u(e, m->length);
		enc_u(e, m->tcp_end);
		enc_str(e, m->name);
		enc_str(e, m->ext);
		enc_str(e, m->detail);
		/* 1.1: how long before this message its request ended (signed:
		   a capture's clock may step back), then where.  Left out when
		   it answers none: a field past a record's end reads as 0. */
		if (m->req_ts) {
			enc_u(e, 1 + zigzag((int64_t)(m->ts - m->req_ts)));
			enc_u(e, m->req_end);
		}
		break;
	}
	case XREC_EXT: {
		const struct xrec_ext *x = &r->u.ext;
		enc_u(e, x->conn);
		enc_u(e, x->major);
		enc_u(e, x->first_event);
		enc_u(e, x->first_error);
		enc_str(e, x->name);
		break;
	}
	case XREC_NAME:
		enc_u(e, r->u.name.conn);
		enc_str(e, r->u.name.source);
		enc_str(e, r->u.name.text);
		break;
	case XREC_STATS: {
		const struct xrec_stats *s = &r->u.stats;
		enc_u(e, s->packets);
		enc_u(e, s->bytes);
		enc_u(e, s->kernel_recv);
		enc_u(e, s->kernel_drop);
		enc_u(e, s->if_drop);
		enc_u(e, s->not_tcp);
		enc_u(e, s->bad_link);
		break;
	}
	case XREC_NOTE:
		enc_u(e, r->u.note.conn);
		enc_u(e, r->u.note.dir);
		enc_str(e, r->u.note.text);
		break;
	case XREC_MARK:
		enc_u(e, r->u.mark.conn);
		enc_u(e, r->u.mark.source);
		enc_str(e, r->u.mark.text);
		break;
	}
}

/* A varint at p.  Returns the byte after it. */
static inline uint8_t *put_u(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* A TCP sequence or acknowledgement number: random from its start, so
   15 times in 16 it takes all 5 bytes, written then without the loop. */
static inline uint8_t *put_u32(uint8_t *p, uint32_t v)
{
	if (v < (uint32_t)1 << 28)
		return put_u(p, v);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* the five 7-bit groups spread into one word and stored at once
	   (the record buffer has room past any record): 15 instructions
	   where the bytes one by one took 22 */
	uint64_t w = (v & 0x7f) | (v & 0x3f80) << 1 | (v & 0x1fc000) << 2 |
		     (v & 0xfe00000) << 3 | (uint64_t)(v >> 28) << 32 | 0x80808080u;
	memcpy(p, &w, sizeof w);
	return p + 5;
#endif
	p[0] = (uint8_t)(v | 0x80);
	p[1] = (uint8_t)(v >> 7 | 0x80);
	p[2] = (uint8_t)(v >> 14 | 0x80);
	p[3] = (uint8_t)(v >> 21 | 0x80);
	p[4] = (uint8_t)(v >> 28);
	return p + 5;
}

/* Packet and gap records, nearly all of a trace's (two for every packet
   of a capture cut to its snap length before 1.4), written without the
   general record's dispatch: the same bytes as encode_body's, whose
   bodies for these two are always shorter than 128 bytes, so one byte of
   length. */
static void put_pkt_or_gap(struct trace_writer *w, const struct xrec *rec)
{
	uint8_t *start = w->buf + w->len, *p = start + 2;
	uint64_t ts;
	if (rec->type == XREC_PKT) {
		const struct xrec_pkt *k = &rec->u.pkt;
		w->last_pkt = NULL;
		ts = k->ts;
		p = put_u(p, zigzag((int64_t)(ts - w->last_ts)));
		/* four fields nearly always one byte each: tested together,
		   stored as one word */
		if ((k->conn | k->dir | k->tcp_flags | k->events) < 0x80) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			uint32_t four = k->conn | (uint32_t)k->dir << 8 |
					(uint32_t)k->tcp_flags << 16 | (uint32_t)k->events << 24;
			memcpy(p, &four, sizeof four);
#else
			p[0] = (uint8_t)k->conn;
			p[1] = k->dir;
			p[2] = k->tcp_flags;
			p[3] = (uint8_t)k->events;
#endif
			p += 4;
		} else {
			p = put_u(p, k->conn);
			p = put_u(p, k->dir);
			p = put_u(p, k->tcp_flags);
			p = put_u(p, k->events);
		}
		p = put_u32(p, k->seq);
		p = put_u32(p, k->ack);
		p = put_u(p, k->raw_win);
		p = put_u(p, k->win);
		p = put_u(p, k->len);
		if (k->has_zlen)
			p = put_u(p, (uint64_t)k->zlen + 1);
		/* Only a packet not all captured has a gap to fold: handed
		   inside its record, written as put_cut writes it, or kept for
		   put_cut should it follow.  (A copy costs fewer instructions
		   than the fields put_cut reads, which a byte stored through p
		   would make the compiler read again.) */
		if (k->events & XPKT_TRUNC) {
			if (k->cut) {
				if (!k->has_zlen)
					*p++ = 0;
				p = put_u(p, k->cut);
			} else {
				w->pkt = *k;
				w->last_pkt = start;
			}
		}
	} else {
		const struct xrec_gap *g = &rec->u.gap;
		ts = g->ts;
		p = put_u(p, zigzag((int64_t)(ts - w->last_ts)));
		p = put_u(p, g->conn);
		p = put_u(p, g->dir);
		p = put_u(p, g->reason);
		p = put_u32(p, g->seq);
		p = put_u(p, g->len);
		w->last_pkt = NULL;
	}
	start[0] = (uint8_t)rec->type;
	start[1] = (uint8_t)(p - (start + 2));
	w->len = (size_t)(p - w->buf);
	w->last_ts = ts;
}

/* A gap right after the pkt record it cuts short: the tail of that
   packet's payload, which the snaplen left out (one after nearly every
   packet of a capture cut to its snap length: xcap's pipeline hands most
   inside the pkt record, xrec_pkt.cut, written the same way; the flight
   recorder's windows and traces read again hand them apart).  Said
   by the pkt record itself, 1 + the bytes captured before the cut after
   its compressed size (0 when not measured): 1 or 2 bytes where a gap
   record takes about 13, and the reader gives the gap record back.  Only
   a gap whose every field the packet gives back folds: the same time,
   connection and direction, reason snaplen, and the payload's last
   bytes, at least one, of a packet not all captured.  Returns 0 when it
   does not fold. */
static inline int put_cut(struct trace_writer *w, const struct xrec_gap *g)
{
	const struct xrec_pkt *k = &w->pkt;
	uint64_t kept;
	if (g->reason != XGAP_SNAPLEN || g->ts != k->ts ||
	    !xrec_is_cut_of(k, g->conn, g->dir, g->seq, g->len, &kept))
		return 0;
	uint8_t *end = w->buf + w->len, *p = end;
	if (!k->has_zlen)
		*p++ = 0;
	p = put_u(p, kept + 1);
	w->last_pkt[1] = (uint8_t)(w->last_pkt[1] + (p - end));
	w->len += (size_t)(p - end);
	w->last_pkt = NULL;
	return 1;
}

/* Any other record.  Out of line: inlined, its registers were saved and
   restored on every packet's record too. */
static __attribute__((noinline)) void put_general(struct trace_writer *w, const struct xrec *rec)
{
	w->last_pkt = NULL;
	/* type, body length, body (starting with the time delta).  The body
	   is encoded first, where a one-byte length leaves it (bodies are
	   shorter than 128 bytes but for long strings), and moved on when
	   its length takes more; the buffer has room for a length of 3. */
	uint8_t *start = w->buf + w->len;
	uint64_t ts = xrec_time(rec);
	struct enc e = { start + 2 };
	enc_u(&e, zigzag((int64_t)(ts - w->last_ts)));
	encode_body(&e, rec);
	size_t body = (size_t)(e.p - (start + 2));
	start[0] = (uint8_t)rec->type;
	if (body < 128) {
		start[1] = (uint8_t)body;
		w->len += 2 + body;
	} else {
		uint8_t len[4];
		struct enc l = { len };
		enc_u(&l, body);
		size_t n = (size_t)(l.p - len);
		memmove(start + 1 + n, start + 2, body);
		memcpy(start + 1, len, n);
		w->len += 1 + n + body;
	}
	w->last_ts = ts;
}

int trace_writer_put(struct trace_writer *w, const struct xrec *rec)
{
	if (w->failed)
		return -1;
	/* A packet tested first: every packet puts one record, and on a
	   capture of full-size packets nearly only that. */
	switch (rec->type) {
	case XREC_PKT:
		break;
	case XREC_GAP:
		/* Folded before a block may close: its packet's record is
		   this block's last. */
		if (w->last_pkt && put_cut(w, &rec->u.gap))
			return 0;
		break;
	default:
		if (w->len >= BLOCK_TARGET && close_block(w) < 0)
			return -1;
		put_general(w, rec);
		return 0;
	}
	if (w->len >= BLOCK_TARGET && close_block(w) < 0)
		return -1;
	put_pkt_or_gap(w, rec);
	return 0;
}

int trace_writer_flush(struct trace_writer *w)
{
	if (close_block(w) < 0)
		return -1;
	if (fflush(w->f) != 0) {
		set_error(w, "cannot write the trace");
		return -1;
	}
	return 0;
}

int trace_writer_free(struct trace_writer *w)
{
	if (!w)
		return 0;
	int rc = trace_writer_flush(w);
	free(w->buf);
	free(w);
	return rc;
}

uint64_t trace_writer_block_offset(const struct trace_writer *w)
{
	return w->written;
}

const char *trace_writer_error(const struct trace_writer *w)
{
	return w->failed ? w->error : NULL;
}

/* ---- the reader ---- */

struct trace_reader {
	FILE *f;
	struct trace_info info;
	/* input window: bytes [start, end) of buf are read but not consumed */
	uint8_t *buf;
	size_t cap, start, end;
	uint64_t offset;	/* file offset of buf[start] */
	int eof;
	/* the current block's records */
	const uint8_t *block;	/* points into buf */
	size_t block_len, pos;
	uint64_t block_offset;
	uint64_t last_ts;
	int done;
	/* The gap record a pkt record said it was cut by (1.4), given
	   back by the next call. */
	struct xrec cut;
	int cut_pending;
	/* strings of the current record, NUL-terminated */
	char *strs;
	size_t strs_cap;
	void (*warn)(void *ctx, const char *msg);
	void *warn_ctx;
	unsigned problems;
	/* A 1.0 trace has no pairing in its msg records: the reader pairs
	   them as the pipeline would, per connection. */
	struct xconns old;	/* of struct pairing */
};

static void pair_old(struct trace_reader *r, struct xrec_msg *m)
{
	struct pairing *p = xconns_add(&r->old, m->conn);
	if (p)		/* else unpaired, as a reply to an unseen request */
		(void)pairing_message(p, m);
}

static void default_reader_warning(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "%s\n", msg);
}

static void warnf(struct trace_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void warnf(struct trace_reader *r, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	r->problems++;
	r->warn(r->warn_ctx, msg);
}

/* Make n bytes available at buf[start]; returns the number available,
   less than n only at the end of the file. */
static size_t fill(struct trace_reader *r, size_t n)
{
	if (r->end - r->start >= n || r->eof)
		return r->end - r->start;
	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	if (GROW(r->buf, r->cap, n) < 0)
		return r->end - r->start;
	while (r->end < n) {
		size_t got = fread(r->buf + r->end, 1, r->cap - r->end, r->f);
		if (got == 0) {
			r->eof = 1;
			break;
		}
		r->end += got;
	}
	return r->end - r->start;
}

static void consume(struct trace_reader *r, size_t n)
{
	r->start += n;
	r->offset += n;
}

/* Decoding with bounds: reading past the end of a record yields zeros,
   which is what a field added by a later minor version reads as in an
   older record. */
struct dec {
	const uint8_t *p, *end;
	int bad;
};

static uint64_t dec_u(struct dec *d)
{
	uint64_t v = 0;
	for (int shift = 0; d->p < d->end; shift += 7) {
		uint8_t b = *d->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	return v;
}

static const char *dec_str(struct trace_reader *r, struct dec *d, size_t *used)
{
	uint64_t n = dec_u(d);
	if (n > (uint64_t)(d->end - d->p)) {
		d->bad = 1;
		n = (uint64_t)(d->end - d->p);
	}
	char *s = r->strs + *used;
	memcpy(s, d->p, n);
	s[n] = '\0';
	d->p += n;
	*used += n + 1;
	return s;
}

static void dec_addr(struct dec *d, struct xaddr *a)
{
	memset(a, 0, sizeof *a);
	if (d->p >= d->end)
		return;
	uint8_t fam = *d->p++;
	size_t n = fam == 6 ? 16 : 4;
	if ((size_t)(d->end - d->p) < n) {
		d->bad = 1;
		d->p = d->end;
		return;
	}
	a->family = fam == 6 ? 6 : 4;
	memcpy(a->addr, d->p, n);
	d->p += n;
	a->port = (uint16_t)dec_u(d);
}

struct trace_reader *trace_reader_new(FILE *f, char *err, size_t errlen)
{
	crc_init();
	struct trace_reader *r = calloc(1, sizeof *r);
	if (!r || !(r->buf = malloc(256 * 1024))) {
		free(r);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r->f = f;
	r->cap = 256 * 1024;
	xconns_init(&r->old, sizeof (struct pairing));
	r->warn = default_reader_warning;
	size_t have = fill(r, 16);
	if (have < 8 || memcmp(r->buf, file_magic, 8) != 0) {
		snprintf(err, errlen, "not an xcap trace");
		goto fail;
	}
	if (have < 16) {
		snprintf(err, errlen, "trace header cut short");
		goto fail;
	}
	r->info.version_major = get_le16(r->buf + 8);
	r->info.version_minor = get_le16(r->buf + 10);
	uint32_t hlen = get_le32(r->buf + 12);
	if (r->info.version_major != TRACE_MAJOR) {
		snprintf(err, errlen, "trace format version %u.%u, this reader knows %d.x",
			 r->info.version_major, r->info.version_minor, TRACE_MAJOR);
		goto fail;
	}
	if (hlen > HEADER_MAX) {
		snprintf(err, errlen, "trace header of %u bytes is too long", hlen);
		goto fail;
	}
	if (fill(r, 16 + hlen + 4) < 16 + hlen + 4) {
		snprintf(err, errlen, "trace header cut short");
		goto fail;
	}
	if (crc32_update(0, r->buf + 8, 8 + hlen) != get_le32(r->buf + 16 + hlen)) {
		snprintf(err, errlen, "trace header damaged (checksum mismatch)");
		goto fail;
	}
	struct dec d = { r->buf + 16, r->buf + 16 + hlen, 0 };
	while (d.p < d.end && *d.p != TAG_END) {
		uint8_t tag = *d.p++;
		uint64_t n = dec_u(&d);
		if (n > (uint64_t)(d.end - d.p))
			break;
		struct dec v = { d.p, d.p + n, 0 };
		char *dst = NULL;
		size_t dstlen = 0;
		switch (tag) {
		case TAG_HOST: dst = r->info.host; dstlen = sizeof r->info.host; break;
		case TAG_IFACE: dst = r->info.iface; dstlen = sizeof r->info.iface; break;
		case TAG_FILTER: dst = r->info.filter; dstlen = sizeof r->info.filter; break;
		case TAG_TOOL: dst = r->info.tool; dstlen = sizeof r->info.tool; break;
		case TAG_LINKTYPE: r->info.linktype = (uint32_t)dec_u(&v); break;
		case TAG_SNAPLEN: r->info.snaplen = (uint32_t)dec_u(&v); break;
		case TAG_PRECISION: r->info.ts_precision = (uint8_t)dec_u(&v); break;
		default: break;	/* a tag from a later version */
		}
		if (dst) {
			size_t k = n < dstlen - 1 ? (size_t)n : dstlen - 1;
			memcpy(dst, d.p, k);
			dst[k] = '\0';
		}
		d.p += n;
	}
	consume(r, 16 + hlen + 4);
	return r;
fail:
	free(r->buf);
	free(r);
	return NULL;
}

/* Find the next good block and make it current.  Returns 0 at the end. */
static int next_block(struct trace_reader *r)
{
	uint64_t skipped_from = 0, skipped = 0;
	for (;;) {
		size_t have = fill(r, BLOCK_HEADER);
		if (have == 0)
			break;
		const uint8_t *b = r->buf + r->start;
		if (have < 4 || memcmp(b, block_magic, 4) != 0) {
			/* Not at a block: search for the next marker. */
			if (!skipped)
				skipped_from = r->offset;
			const uint8_t *m = have >= 4 ? memmem(b + 1, have - 1, block_magic, 4) : NULL;
			size_t step = m ? (size_t)(m - b) : (have > 3 ? have - 3 : have);
			if (!m && r->eof)
				step = have;
			consume(r, step);
			skipped += step;
			continue;
		}
		if (have < BLOCK_HEADER) {
			warnf(r, "trace cut short: a block header at offset %llu is incomplete",
			      (unsigned long long)r->offset);
			consume(r, have);
			break;
		}
		uint32_t len = get_le32(b + 8);
		uint32_t crc = get_le32(b + 12);
		if (len > BLOCK_MAX) {
			if (!skipped)
				skipped_from = r->offset;
			consume(r, 1);
			skipped++;
			continue;
		}
		have = fill(r, BLOCK_HEADER + (size_t)len);
		b = r->buf + r->start;
		if (have < BLOCK_HEADER + (size_t)len) {
			if (skipped)
				warnf(r, "trace damaged: skipped %llu bytes at offset %llu",
				      (unsigned long long)skipped, (unsigned long long)skipped_from);
			/* A cut block may hide good blocks after a damaged length:
			   only call it a cut tail if no marker follows. */
			if (memmem(b + 1, have - 1, block_magic, 4)) {
				skipped_from = r->offset;
				skipped = 1;
				consume(r, 1);
				continue;
			}
			warnf(r, "trace cut short: the block at offset %llu has %zu of its %u bytes",
			      (unsigned long long)r->offset, have - BLOCK_HEADER, len);
			consume(r, have);
			skipped = 0;
			break;
		}
		uint32_t c = crc32_update(crc32_update(0, b + 4, 8), b + BLOCK_HEADER, len);
		if (c != crc) {
			if (!skipped)
				skipped_from = r->offset;
			consume(r, 1);
			skipped++;
			continue;
		}
		if (skipped)
			warnf(r, "trace damaged: skipped %llu bytes at offset %llu",
			      (unsigned long long)skipped, (unsigned long long)skipped_from);
		skipped = 0;
		if (b[4] != BLOCK_RECORDS) {	/* a block type from a later version */
			consume(r, BLOCK_HEADER + len);
			continue;
		}
		r->block = b + BLOCK_HEADER;	/* valid until the next fill() */
		r->block_len = len;
		r->pos = 0;
		r->block_offset = r->offset;
		r->last_ts = 0;
		consume(r, BLOCK_HEADER + len);
		return 1;
	}
	if (skipped)
		warnf(r, "trace cut short or damaged: the last %llu bytes, from offset %llu, "
		      "are not a complete block",
		      (unsigned long long)skipped, (unsigned long long)skipped_from);
	return 0;
}

/* A pkt record that says the snaplen cut its payload after kept bytes
   (1.4): the gap record the writer folded into it, for the next call to
   give back as it was put. */
static void cut_gap(struct trace_reader *r, const struct xrec_pkt *p, uint64_t kept)
{
	if (kept >= p->len) {
		warnf(r, "trace damaged: a packet record in the block at offset %llu says %llu "
		      "of its %u bytes were captured before a cut",
		      (unsigned long long)r->block_offset, (unsigned long long)kept, p->len);
		return;
	}
	r->cut.type = XREC_GAP;
	r->cut.u.gap = xrec_pkt_cut(p, (uint32_t)kept);
	r->cut_pending = 1;
}

static int decode_record(struct trace_reader *r, uint8_t type, struct dec *d, struct xrec *rec)
{
	size_t used = 0;
	size_t need = (size_t)(d->end - d->p) + 8;
	if (GROW(r->strs, r->strs_cap, need) < 0)
		return 0;
	memset(rec, 0, sizeof *rec);
	rec->type = (enum xrec_type)type;
	uint64_t ts = r->last_ts + (uint64_t)unzigzag(dec_u(d));
	r->last_ts = ts;
	switch (type) {
	case XREC_CONN: {
		struct xrec_conn *c = &rec->u.conn;
		c->ts = ts;
		c->id = (uint32_t)dec_u(d);
		c->flags = (uint16_t)dec_u(d);
		c->wscale[0] = (int8_t)unzigzag(dec_u(d));
		c->wscale[1] = (int8_t)unzigzag(dec_u(d));
		dec_addr(d, &c->client);
		dec_addr(d, &c->server);
		c->proto = dec_str(r, d, &used);
		break;
	}
	case XREC_PKT: {
		struct xrec_pkt *p = &rec->u.pkt;
		p->ts = ts;
		p->conn = (uint32_t)dec_u(d);
		p->dir = (uint8_t)dec_u(d);
		p->tcp_flags = (uint8_t)dec_u(d);
		p->events = (uint16_t)dec_u(d);
		p->seq = (uint32_t)dec_u(d);
		p->ack = (uint32_t)dec_u(d);
		p->raw_win = (uint16_t)dec_u(d);
		p->win = (uint32_t)dec_u(d);
		p->len = (uint32_t)dec_u(d);
		uint64_t zlen = dec_u(d);
		if (zlen && zlen - 1 <= UINT32_MAX) {
			p->has_zlen = 1;
			p->zlen = (uint32_t)(zlen - 1);
		}
		uint64_t kept = dec_u(d);
		if (kept)
			cut_gap(r, p, kept - 1);
		break;
	}
	case XREC_MSG: {
		struct xrec_msg *m = &rec->u.msg;
		m->ts = ts;
		m->conn = (uint32_t)dec_u(d);
		m->dir = (uint8_t)dec_u(d);
		m->kind = (uint8_t)dec_u(d);
		m->flags = (uint16_t)dec_u(d);
		m->major = (uint8_t)dec_u(d);
		m->minor = (uint16_t)dec_u(d);
		m->seq = dec_u(d);
		m->length = dec_u(d);
		m->tcp_end = (uint32_t)dec_u(d);
		m->name = dec_str(r, d, &used);
		m->ext = dec_str(r, d, &used);
		m->detail = dec_str(r, d, &used);
		uint64_t ago = dec_u(d);
		m->req_ts = ago ? m->ts - (uint64_t)unzigzag(ago - 1) : 0;
		m->req_end = (uint32_t)dec_u(d);
		if (!ago)
			m->req_end = 0;
		if (r->info.version_minor == 0)
			pair_old(r, m);
		break;
	}
	case XREC_EXT: {
		struct xrec_ext *x = &rec->u.ext;
		x->ts = ts;
		x->conn = (uint32_t)dec_u(d);
		x->major = (uint8_t)dec_u(d);
		x->first_event = (uint8_t)dec_u(d);
		x->first_error = (uint8_t)dec_u(d);
		x->name = dec_str(r, d, &used);
		break;
	}
	case XREC_NAME:
		rec->u.name.ts = ts;
		rec->u.name.conn = (uint32_t)dec_u(d);
		rec->u.name.source = dec_str(r, d, &used);
		rec->u.name.text = dec_str(r, d, &used);
		break;
	case XREC_GAP: {
		struct xrec_gap *g = &rec->u.gap;
		g->ts = ts;
		g->conn = (uint32_t)dec_u(d);
		g->dir = (uint8_t)dec_u(d);
		g->reason = (uint8_t)dec_u(d);
		g->seq = (uint32_t)dec_u(d);
		g->len = dec_u(d);
		break;
	}
	case XREC_STATS: {
		struct xrec_stats *s = &rec->u.stats;
		s->ts = ts;
		s->packets = dec_u(d);
		s->bytes = dec_u(d);
		s->kernel_recv = dec_u(d);
		s->kernel_drop = dec_u(d);
		s->if_drop = dec_u(d);
		s->not_tcp = dec_u(d);
		s->bad_link = dec_u(d);
		break;
	}
	case XREC_NOTE:
		rec->u.note.ts = ts;
		rec->u.note.conn = (uint32_t)dec_u(d);
		rec->u.note.dir = (uint8_t)dec_u(d);
		rec->u.note.text = dec_str(r, d, &used);
		break;
	case XREC_MARK:
		rec->u.mark.ts = ts;
		rec->u.mark.conn = (uint32_t)dec_u(d);
		rec->u.mark.source = (uint8_t)dec_u(d);
		rec->u.mark.text = dec_str(r, d, &used);
		break;
	default:
		return 0;	/* a record type from a later version: skip it */
	}
	return 1;
}

int trace_reader_next(struct trace_reader *r, struct xrec *rec)
{
	if (r->cut_pending) {
		r->cut_pending = 0;
		*rec = r->cut;
		return 1;
	}
	while (!r->done) {
		if (r->pos >= r->block_len) {
			if (!next_block(r)) {
				r->done = 1;
				break;
			}
			continue;
		}
		struct dec d = { r->block + r->pos, r->block + r->block_len, 0 };
		uint8_t type = *d.p++;
		uint64_t len = dec_u(&d);
		if (len > (uint64_t)(d.end - d.p)) {
			warnf(r, "trace damaged: a record overruns the block at offset %llu",
			      (unsigned long long)r->block_offset);
			r->pos = r->block_len;
			continue;
		}
		struct dec body = { d.p, d.p + len, 0 };
		r->pos = (size_t)(d.p + len - r->block);
		if (decode_record(r, type, &body, rec))
			return 1;
	}
	return 0;
}

uint64_t trace_reader_block_offset(const struct trace_reader *r)
{
	return r->block_offset;
}

int trace_reader_seek(struct trace_reader *r, uint64_t offset)
{
	if (offset > INT64_MAX || fseeko(r->f, (off_t)offset, SEEK_SET) != 0)
		return -1;
	r->start = r->end = 0;
	r->offset = offset;
	r->eof = 0;
	r->block = NULL;
	r->block_len = r->pos = 0;
	r->done = 0;
	r->cut_pending = 0;
	return 0;
}

const struct trace_info *trace_reader_info(const struct trace_reader *r) { return &r->info; }

void trace_reader_on_warning(struct trace_reader *r,
			      void (*fn)(void *ctx, const char *msg), void *ctx)
{
	r->warn = fn ? fn : default_reader_warning;
	r->warn_ctx = ctx;
}

unsigned trace_reader_problems(const struct trace_reader *r) { return r->problems; }

void trace_reader_free(struct trace_reader *r)
{
	if (!r)
		return;
	free(r->buf);
	free(r->strs);
	for (size_t i = 0; i < r->old.n; i++)
		pairing_free(xconns_at(&r->old, i));
	xconns_free(&r->old);
	free(r);
}

bool trace_looks_like(const uint8_t *head, size_t len)
{
	return len >= sizeof file_magic && memcmp(head, file_magic, sizeof file_magic) == 0;
}
