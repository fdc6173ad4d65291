/*
 * pipeline.c — connection tracking and TCP reassembly.
 *
 * Each connection has two directions (client→server, server→client), each
 * with its struct reassembly.  A direction knows the next sequence number it expects; bytes at that number go to
 * the protocol decoder at once, bytes beyond it wait in a small sorted
 * out-of-order list, bytes before it are retransmissions (the first copy
 * wins).  A hole becomes a gap record when the capture proves it will not
 * be filled: the receiver acknowledged past it (the capture lost the
 * segment), the out-of-order list overflowed, the connection was reset,
 * or the capture ended.  Nothing is ever invented: decoders are told how
 * many bytes are missing and resynchronise themselves.
 *
 * All sequence arithmetic is modulo 2^32 (seq_diff), so the wrap of the
 * sequence space is not a case of its own.
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#include "config.h"

#include <stdio.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "decode.h"
#include "grow.h"
#include "pairing.h"
#include "pipeline.h"
#include "protocol.h"

/* Closed connections stay in the table this long (capture time) so that
   their last ACKs are not taken for a new connection. */
#define CLOSED_LINGER_NS (120ull * 1000000000ull)
#define SWEEP_EVERY 65536

static int32_t seq_diff(uint32_t a, uint32_t b) { return (int32_t)(a - b); }
static int seq_lt(uint32_t a, uint32_t b) { return seq_diff(a, b) < 0; }

/* A segment waiting for the hole before it: `len` captured bytes at `seq`,
   then `missing` bytes the snaplen cut off (or the capture left out on
   purpose: `skipped`). */
struct ooo_seg {
	struct ooo_seg *next;
	uint32_t seq, len, missing;
	bool skipped;
	uint32_t size;		/* room in data */
	uint8_t data[];
};

/* Freed segments kept for reuse, up to this many bytes: a lossy capture
   buffers and releases thousands of 64 KB segments a second, and handing
   each back to malloc made it grow and shrink the heap every time. */
#define SPARE_LIMIT (8u << 20)

/* The reassembly of one direction of a connection: where its byte stream
   stands and what arrived ahead of a hole. */
struct reassembly {
	int started;		/* next is known */
	int ended;		/* the decoder was told this direction ended */
	int fin_seen;
	int ack_seen;		/* the peer acknowledged something: ack_max is valid */
	uint32_t fin_seq;	/* sequence number of the FIN */
	uint32_t base;		/* sequence number of stream offset 0 */
	uint32_t next;		/* next sequence number expected */
	uint32_t ack_max;	/* highest ack the peer sent for this direction */
	uint64_t off;		/* stream offset of next */
	int8_t wscale;		/* window scale option of this side's SYN, -1 none */
	uint8_t win_shift;	/* how far its windows are scaled: wscale once both
				   sides offered scaling, else 0 (scales_agreed) */
	int syn_seen;
	uint32_t isn;
	uint16_t last_raw_win;
	struct ooo_seg *ooo;	/* sorted by seq */
	uint32_t ooo_bytes;
	/* A run of bytes the capture skipped (XGAP_SKIPPED), recorded as one
	   gap when the run ends: a cut packet in every other one of an image
	   transfer would otherwise cost a record each. */
	uint32_t skipped_seq;
	uint64_t skipped_len;
	/* The direction's bytes as an ssh -C tunnel would compress them
	   (options.compressed_sizes): made at its first payload. */
	z_stream *z;
	bool z_broken;		/* could not be made: sizes not measured */
};

struct saved_ext { char *name; uint8_t major, first_event, first_error; };
struct saved_name { char *source, *text; };

struct conn {
	struct conn *hnext;
	struct pipeline *p;
	struct xaddr client, server;
	uint32_t id;
	uint16_t flags;
	int closed;
	uint64_t closed_ts;
	uint32_t told_in;	/* the output file its last XREC_CONN went to */
	struct reassembly h[2];
	const struct proto_ops *ops;
	struct proto_decoder *dec;
	struct saved_ext *exts;
	size_t n_exts, cap_exts;
	struct saved_name *names;
	size_t n_names, cap_names;
	int cut_slot[2];	/* the kernel's state for each direction, -1 none */
	struct pairing pairing;	/* its requests not yet answered */
};

struct pipeline {
	int dlt;
	struct pipeline_options opt;
	xrec_emit_fn emit;
	void *emit_ctx;
	uint64_t ts;		/* time of the packet being processed */
	struct conn **table;
	size_t table_size;	/* power of two */
	size_t n_conns;
	struct conn *last;	/* most packets belong to the previous one's connection */
	uint32_t next_id;
	uint32_t file_no;	/* counts pipeline_replay_state's new files */
	uint64_t since_sweep;
	struct xrec_stats st;
	struct ooo_seg *spare;	/* freed segments, see SPARE_LIMIT */
	size_t spare_bytes;
	bool frame_short;	/* the frame being processed is shorter than the snaplen */
	/* With opt.cuts_in_pkt, the pkt record of the packet being processed
	   when the snaplen cut it, held until its gap shows whether it
	   comes right after it: sent before any other record, and at the
	   end of the packet. */
	bool holding;
	struct xrec held;
	/* The first failure (out of memory), "" while there is none.  Once
	   set, the pipeline takes no more packets: what it would emit after
	   losing a connection or a buffered segment would be invented. */
	char err[128];
};

void pipeline_default_options(struct pipeline_options *opt)
{
	/* Every option a caller does not set is zero (no decoder chosen by
	   port, no cutter, ...): an option added later is off by default. */
	memset(opt, 0, sizeof *opt);
	opt->ooo_limit_bytes = 4u << 20;
	opt->decode = true;
}

int pipeline_add_decode(struct pipeline_options *opt, const char *arg, char *err, size_t errlen)
{
	char name[16];
	unsigned port;
	char extra;
	if (sscanf(arg, "%15[a-z0-9]:%u%c", name, &port, &extra) != 2 || !port || port > 65535) {
		snprintf(err, errlen, "bad --decode, want NAME:PORT: '%s'", arg);
		return -1;
	}
	const struct proto_ops *ops = proto_by_name(name);
	if (!ops) {
		snprintf(err, errlen, "no decoder of that name (x11, rfb, wayland, waypipe): '%s'",
			 name);
		return -1;
	}
	if (opt->nports == sizeof opt->ports / sizeof opt->ports[0]) {
		snprintf(err, errlen, "too many --decode, at most %zu: '%s'",
			 sizeof opt->ports / sizeof opt->ports[0], arg);
		return -1;
	}
	opt->ports[opt->nports++] = (struct pipeline_port){ (uint16_t)port, ops };
	return 0;
}

/* Library code does not end the program: a failure is kept for the
   caller (pipeline_error), which decides what to say and whether to go on. */
static void fail(struct pipeline *p, const char *what)
{
	if (!p->err[0])
		snprintf(p->err, sizeof p->err, "out of memory: '%s'", what);
}

static void *pmalloc(struct pipeline *p, size_t n, const char *what)
{
	void *m = malloc(n);
	if (!m)
		fail(p, what);
	return m;
}

static char *pstrdup(struct pipeline *p, const char *s)
{
	size_t n = strlen(s) + 1;
	char *m = pmalloc(p, n, "saved strings");
	return m ? memcpy(m, s, n) : NULL;
}

/* ---- emitting records ---- */

static __attribute__((noinline)) void send_held(struct pipeline *p)
{
	p->holding = false;
	p->emit(p->emit_ctx, &p->held);
}

/* Every record goes out through here but a held pkt record's own. */
static inline void send(struct pipeline *p, const struct xrec *r)
{
	if (p->holding)
		send_held(p);
	p->emit(p->emit_ctx, r);
}

static void emit_conn(struct conn *c)
{
	struct xrec r = { .type = XREC_CONN };
	r.u.conn.ts = c->p->ts;
	r.u.conn.id = c->id;
	r.u.conn.flags = c->flags;
	r.u.conn.wscale[0] = c->h[0].wscale;
	r.u.conn.wscale[1] = c->h[1].wscale;
	r.u.conn.client = c->client;
	r.u.conn.server = c->server;
	r.u.conn.proto = c->ops ? c->ops->name : "";
	c->told_in = c->p->file_no;
	send(c->p, &r);
}

/* The snaplen gap of the packet whose pkt record is held, right after
   it: inside it.  False when the gap is not of that packet's payload's
   last bytes. */
static inline bool fold_cut(struct conn *c, int dir, uint32_t seq, uint64_t len)
{
	struct pipeline *p = c->p;
	struct xrec_pkt *k = &p->held.u.pkt;
	uint64_t kept;
	if (!xrec_is_cut_of(k, c->id, (uint8_t)dir, seq, len, &kept))
		return false;
	k->cut = (uint32_t)kept + 1;
	send_held(p);
	return true;
}

static void emit_gap(struct conn *c, int dir, int reason, uint32_t seq, uint64_t len)
{
	if (reason == XGAP_SNAPLEN && c->p->holding && fold_cut(c, dir, seq, len))
		return;

	/* Only the member used is cleared: an initializer of the whole
	   record cleared its largest member, the message, for every packet. */
	struct xrec r;
	r.type = XREC_GAP;
	r.u.gap = (struct xrec_gap){ 0 };
	r.u.gap.ts = c->p->ts;
	r.u.gap.conn = c->id;
	r.u.gap.dir = (uint8_t)dir;
	r.u.gap.reason = (uint8_t)reason;
	r.u.gap.seq = seq;
	r.u.gap.len = len;
	send(c->p, &r);
}

/* The record of a run of skipped bytes: out of line, so that its record
   on the stack is no part of the frame of deliver, which checks for one
   with every chunk. */
static __attribute__((noinline)) void flush_skipped_now(struct conn *c, int dir)
{
	struct reassembly *h = &c->h[dir];
	emit_gap(c, dir, XGAP_SKIPPED, h->skipped_seq, h->skipped_len);
	h->skipped_len = 0;
}

static inline void flush_skipped(struct conn *c, int dir)
{
	if (c->h[dir].skipped_len)
		flush_skipped_now(c, dir);
}

static void emit_note(struct conn *c, int dir, const char *text)
{
	flush_skipped(c, dir);
	struct xrec r = { .type = XREC_NOTE };
	r.u.note.ts = c->p->ts;
	r.u.note.conn = c->id;
	r.u.note.dir = (uint8_t)dir;
	r.u.note.text = text;
	send(c->p, &r);
}

/* ---- the decoder's sink ---- */

/* The one place where a decoder's vocabulary (protocols/protocol.h)
   becomes the trace's (record.h): an explicit table and map, so that
   neither side has to keep the other's numbers. */
static const uint8_t kind_map[] = {
	[PROTO_SETUP] = XMSG_SETUP,
	[PROTO_REQUEST] = XMSG_REQUEST,
	[PROTO_REPLY] = XMSG_REPLY,
	[PROTO_EVENT] = XMSG_EVENT,
	[PROTO_ERROR] = XMSG_ERROR,
	[PROTO_UNKNOWN] = XMSG_UNKNOWN,
};

_Static_assert(PROTO_DETAIL_MAX <= XMSG_DETAIL_MAX,
	       "a decoder's detail does not fit the trace's");

static uint8_t msg_kind(enum proto_kind k)
{
	unsigned i = (unsigned)k;
	return i < sizeof kind_map && kind_map[i] ? kind_map[i] : XMSG_UNKNOWN;
}

/* One line per flag; a flag the trace has no word for is dropped, not
   stored as a bit a reader would misread.  (While the bits agree, the
   compiler makes this one AND: it runs for every message.) */
#define FLAG(p, x) ((f & (p)) ? (x) : 0)
static uint16_t msg_flags(unsigned f)
{
	return (uint16_t)(FLAG(PROTO_F_UNCERTAIN, XMSG_F_UNCERTAIN) |
			  FLAG(PROTO_F_SEND_EVENT, XMSG_F_SYNTHETIC) |
			  FLAG(PROTO_F_AFTER_GAP, XMSG_F_AFTER_GAP) |
			  FLAG(PROTO_F_NO_BYTES, XMSG_F_NO_BYTES) |
			  FLAG(PROTO_F_WANTS_REPLY, XMSG_F_WANTS_REPLY) |
			  FLAG(PROTO_F_NO_PIXELS, XMSG_F_NO_PIXELS));
}
#undef FLAG

static void sink_message(void *ctx, const struct proto_msg *m)
{
	struct conn *c = ctx;
	flush_skipped(c, (int)m->dir);
	struct xrec r = { .type = XREC_MSG };
	r.u.msg.ts = c->p->ts;
	r.u.msg.conn = c->id;
	r.u.msg.dir = (uint8_t)m->dir;
	r.u.msg.kind = msg_kind(m->kind);
	r.u.msg.flags = msg_flags(m->flags);
	r.u.msg.major = m->major;
	r.u.msg.minor = m->minor;
	r.u.msg.seq = m->seq;
	r.u.msg.length = m->length;
	r.u.msg.tcp_end = c->h[m->dir & 1].base + (uint32_t)m->stream_end;
	r.u.msg.name = m->name ? m->name : "";
	r.u.msg.ext = m->ext ? m->ext : "";
	r.u.msg.detail = m->detail;
	/* Replies are paired with their requests here, once, for every
	   reader of the trace: the pipeline is the one place that sees every
	   message of a connection in order, live or from a file, and a trace
	   split in several files (xcap -G) keeps the pairing across them.
	   Without memory to keep a request, its answer goes unpaired. */
	(void)pairing_message(&c->pairing, &r.u.msg);
	send(c->p, &r);
}

static void sink_extension(void *ctx, const char *name, uint8_t major,
			   uint8_t first_event, uint8_t first_error)
{
	struct conn *c = ctx;
	char *kept = GROW(c->exts, c->cap_exts, c->n_exts + 1) == 0 ? pstrdup(c->p, name) : NULL;
	if (!kept) {
		fail(c->p, "extension map");
		return;
	}
	c->exts[c->n_exts++] = (struct saved_ext){ kept, major, first_event, first_error };

	struct xrec r = { .type = XREC_EXT };
	r.u.ext.ts = c->p->ts;
	r.u.ext.conn = c->id;
	r.u.ext.major = major;
	r.u.ext.first_event = first_event;
	r.u.ext.first_error = first_error;
	r.u.ext.name = name;
	send(c->p, &r);
}

static void sink_client_name(void *ctx, const char *source, const char *text)
{
	struct conn *c = ctx;
	char *src = GROW(c->names, c->cap_names, c->n_names + 1) == 0 ? pstrdup(c->p, source) : NULL;
	char *txt = src ? pstrdup(c->p, text) : NULL;
	if (!txt) {
		free(src);
		fail(c->p, "client names");
		return;
	}
	c->names[c->n_names++] = (struct saved_name){ src, txt };

	struct xrec r = { .type = XREC_NAME };
	r.u.name.ts = c->p->ts;
	r.u.name.conn = c->id;
	r.u.name.source = source;
	r.u.name.text = text;
	send(c->p, &r);
}

static void sink_note(void *ctx, enum proto_dir dir, const char *text)
{
	emit_note(ctx, (int)dir, text);
}

/* A mark the client sent on the wire (an atom or a property it set),
   written right after the request that carried it. */
static void sink_mark(void *ctx, enum proto_mark how, const char *text)
{
	struct conn *c = ctx;
	struct xrec r = { .type = XREC_MARK };
	r.u.mark.ts = c->p->ts;
	r.u.mark.conn = c->id;
	r.u.mark.source = how == PROTO_MARK_PROPERTY ? XMARK_PROPERTY : XMARK_ATOM;
	r.u.mark.text = text;
	send(c->p, &r);
}

/* ---- the connection table ---- */

static inline __attribute__((always_inline)) int addr_eq(const struct xaddr *a, const struct xaddr *b)
{
	/* Each memcmp of a constant size is a compare or two inline: with
	   the size chosen at run time it was a call into libc, made twice
	   for every packet. */
	if (a->port != b->port || a->family != b->family)
		return 0;
	return a->family == 4 ? memcmp(a->addr, b->addr, 4) == 0 : memcmp(a->addr, b->addr, 16) == 0;
}

static uint32_t addr_hash(const struct xaddr *a)
{
	/* FNV-1a over the address and port. */
	uint32_t h = 2166136261u;
	size_t n = a->family == 4 ? 4 : 16;
	for (size_t i = 0; i < n; i++)
		h = (h ^ a->addr[i]) * 16777619u;
	h = (h ^ (a->port & 0xff)) * 16777619u;
	h = (h ^ (a->port >> 8)) * 16777619u;
	return h;
}

/* Symmetric, so both directions of a connection land in the same slot. */
static size_t tuple_slot(const struct pipeline *p, const struct xaddr *a, const struct xaddr *b)
{
	uint32_t h = addr_hash(a) ^ addr_hash(b);
	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	h ^= h >> 12;
	return h & (p->table_size - 1);
}

/* The connection of (src → dst) and the direction of the segment. */
static struct conn *conn_find(struct pipeline *p, const struct xaddr *src,
			      const struct xaddr *dst, int *dir)
{
	struct conn *c = p->last;
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1)
			c = p->table[tuple_slot(p, src, dst)];
		for (; c; c = pass ? c->hnext : NULL) {
			if (addr_eq(&c->client, src) && addr_eq(&c->server, dst)) {
				*dir = XDIR_C2S;
				return p->last = c;
			}
			if (addr_eq(&c->server, src) && addr_eq(&c->client, dst)) {
				*dir = XDIR_S2C;
				return p->last = c;
			}
		}
	}
	return NULL;
}

/* Without memory for a larger table the old one stays: its chains grow
   longer, and nothing is lost. */
static void table_grow(struct pipeline *p)
{
	size_t old_size = p->table_size;
	struct conn **old = p->table;
	struct conn **table = calloc(old_size * 2, sizeof *table);
	if (!table)
		return;
	p->table = table;
	p->table_size = old_size * 2;
	for (size_t i = 0; i < old_size; i++) {
		struct conn *c = old[i], *n;
		for (; c; c = n) {
			n = c->hnext;
			size_t s = tuple_slot(p, &c->client, &c->server);
			c->hnext = p->table[s];
			p->table[s] = c;
		}
	}
	free(old);
}

static const struct proto_sink sink_template = {
	.message = sink_message,
	.extension = sink_extension,
	.client_name = sink_client_name,
	.mark = sink_mark,
	.note = sink_note,
};

/* The user's decoder for a server port, else the one that claims it. */
static const struct proto_ops *decoder_for_port(const struct pipeline_options *o, uint16_t port)
{
	for (size_t i = 0; i < o->nports; i++)
		if (o->ports[i].port == port)
			return o->ports[i].ops;
	return proto_for_port(port);
}

static struct conn *conn_new(struct pipeline *p, const struct xaddr *client,
			     const struct xaddr *server, uint16_t flags)
{
	if (p->n_conns + 1 > p->table_size)
		table_grow(p);
	struct conn *c = pmalloc(p, sizeof *c, "connection");
	if (!c)
		return NULL;
	memset(c, 0, sizeof *c);
	c->p = p;
	c->client = *client;
	c->server = *server;
	c->id = ++p->next_id;
	c->flags = flags;
	c->h[0].wscale = c->h[1].wscale = -1;
	c->ops = p->opt.decoder ? p->opt.decoder : decoder_for_port(&p->opt, server->port);
	if (c->ops && p->opt.decode && c->ops->create) {
		struct proto_sink sink = sink_template;
		sink.ctx = c;
		c->dec = c->ops->create(&sink);
	}
	c->cut_slot[0] = c->cut_slot[1] = -1;
	const struct pipeline_cutter *k = p->opt.cutter;
	if (k && c->dec && c->ops->framing && c->ops->skip) {
		c->cut_slot[0] = k->open(k->ctx, client, server, false);
		c->cut_slot[1] = k->open(k->ctx, server, client, true);
	}
	size_t s = tuple_slot(p, client, server);
	c->hnext = p->table[s];
	p->table[s] = c;
	p->n_conns++;
	return c;
}

static void conn_unlink(struct pipeline *p, struct conn *c)
{
	struct conn **pp = &p->table[tuple_slot(p, &c->client, &c->server)];
	for (; *pp; pp = &(*pp)->hnext)
		if (*pp == c) {
			*pp = c->hnext;
			break;
		}
	if (p->last == c)
		p->last = NULL;
	p->n_conns--;
}

/* A segment with room for n bytes: a spare one if one of the first few
   is large enough, else a new one. */
static struct ooo_seg *seg_get(struct pipeline *p, uint32_t n)
{
	struct ooo_seg **pp = &p->spare;
	for (int tries = 0; *pp && tries < 8; tries++, pp = &(*pp)->next)
		if ((*pp)->size >= n) {
			struct ooo_seg *s = *pp;
			*pp = s->next;
			p->spare_bytes -= s->size;
			return s;
		}
	struct ooo_seg *s = pmalloc(p, sizeof *s + n, "out-of-order segment");
	if (s)
		s->size = n;
	return s;
}

static void seg_put(struct pipeline *p, struct ooo_seg *s)
{
	if (p->spare_bytes + s->size > SPARE_LIMIT) {
		free(s);
		return;
	}
	s->next = p->spare;
	p->spare = s;
	p->spare_bytes += s->size;
}

static void reassembly_free_ooo(struct pipeline *p, struct reassembly *h)
{
	struct ooo_seg *s, *n;
	for (s = h->ooo; s; s = n) {
		n = s->next;
		seg_put(p, s);
	}
	h->ooo = NULL;
	h->ooo_bytes = 0;
}

static void cut_stop(struct conn *c)
{
	const struct pipeline_cutter *k = c->p->opt.cutter;
	for (int d = 0; d < 2; d++) {
		if (k)
			k->close(k->ctx, c->cut_slot[d]);
		c->cut_slot[d] = -1;
	}
}

/* What only an open connection needs: its unanswered requests, and the
   extensions and names a new file repeats for the connections still open. */
static void conn_free_open_state(struct conn *c)
{
	for (size_t i = 0; i < c->n_exts; i++)
		free(c->exts[i].name);
	for (size_t i = 0; i < c->n_names; i++) {
		free(c->names[i].source);
		free(c->names[i].text);
	}
	free(c->exts);
	free(c->names);
	c->exts = NULL;
	c->names = NULL;
	c->n_exts = c->n_names = 0;
	pairing_free(&c->pairing);
}

static void compressor_free(struct reassembly *h)
{
	if (h->z) {
		deflateEnd(h->z);
		free(h->z);
		h->z = NULL;
	}
}

static void conn_free(struct conn *c)
{
	compressor_free(&c->h[0]);
	compressor_free(&c->h[1]);
	cut_stop(c);
	if (c->dec)
		c->ops->destroy(c->dec);
	reassembly_free_ooo(c->p, &c->h[0]);
	reassembly_free_ooo(c->p, &c->h[1]);
	conn_free_open_state(c);
	free(c);
}

/* ---- reassembly ---- */

/* A connection on a port no decoder claims: a decoder that recognises the
   first bytes of a stream takes it (RFB's banner), provided the other
   direction has delivered nothing yet; the connection record is written
   again with the protocol's name. */
static void attach_by_banner(struct conn *c, const uint8_t *data, uint32_t n)
{
	if (c->h[0].off || c->h[1].off)
		return;
	const struct proto_ops *ops = proto_for_banner(data, n);
	if (!ops || !ops->create)
		return;
	struct proto_sink sink = sink_template;
	sink.ctx = c;
	c->ops = ops;
	c->dec = ops->create(&sink);
	emit_conn(c);
}

static void deliver(struct conn *c, int dir, const uint8_t *data, uint32_t n)
{
	struct reassembly *h = &c->h[dir];
	if (n == 0)
		return;
	flush_skipped(c, dir);
	if (!c->ops && c->p->opt.decode)
		attach_by_banner(c, data, n);
	if (c->dec && !h->ended)
		c->ops->feed(c->dec, (enum proto_dir)dir, data, n);
	h->off += n;
	h->next += n;
}

/* n bytes of the direction that the capture does not hold, at next:
   a gap record, and the decoder told.  Inline where a snap-length
   capture makes one a packet (deliver_segment_in); hole() elsewhere. */
static inline __attribute__((always_inline)) void hole_in(struct conn *c, int dir, int reason,
							  uint32_t n)
{
	struct reassembly *h = &c->h[dir];
	if (n == 0)
		return;
	if (reason == XGAP_SKIPPED) {
		if (!h->skipped_len || h->skipped_seq + (uint32_t)h->skipped_len != h->next) {
			flush_skipped(c, dir);
			h->skipped_seq = h->next;
		}
		h->skipped_len += n;
	} else {
		flush_skipped(c, dir);
		emit_gap(c, dir, reason, h->next, n);
	}
	if (c->dec && !h->ended) {
		if (reason == XGAP_SKIPPED && c->ops->skip)
			c->ops->skip(c->dec, (enum proto_dir)dir, n);
		else
			c->ops->gap(c->dec, (enum proto_dir)dir, n);
	}
	h->off += n;
	h->next += n;
}

static __attribute__((noinline)) void hole(struct conn *c, int dir, int reason, uint32_t n)
{
	hole_in(c, dir, reason, n);
}

/* n bytes at next, then the `missing` the snaplen cut off right after
   them, handed to a decoder that takes both at once when that tells
   nothing (ops->feed_cut: a snap-length capture's stream whose framing is
   lost); then only the gap record.  What deliver, then hole_in, would do;
   false, nothing done, when the decoder did not take them. */
static inline __attribute__((always_inline)) bool deliver_cut(struct conn *c, int dir,
							      const uint8_t *data, uint32_t n,
							      uint32_t missing, bool own)
{
	struct reassembly *h = &c->h[dir];
	if (!c->dec || h->ended || !c->ops->feed_cut || h->skipped_len ||
	    !c->ops->feed_cut(c->dec, (enum proto_dir)dir, data, n, missing))
		return false;
	uint32_t hole_at = h->next + n;
	h->off += (uint64_t)n + missing;
	h->next = hole_at + missing;
	/* The packet being processed, its pkt record still held: nothing
	   came between, and the gap is its payload's tail, which fold_cut
	   need not check. */
	if (own && c->p->holding) {
		struct xrec_pkt *k = &c->p->held.u.pkt;
		k->cut = k->len - missing + 1;
		send_held(c->p);
		return true;
	}
	emit_gap(c, dir, XGAP_SNAPLEN, hole_at, missing);
	return true;
}

/* Keep the kernel's cutting (struct pipeline_cutter) in step with the decoder, just
   before the bytes at h->next are fed: hand over a connection that began
   before the capture once its byte order is known, and judge the
   kernel's guess that a message begins at h->next. */
static void cut_follow(struct conn *c, int dir)
{
	struct reassembly *h = &c->h[dir];
	const struct pipeline_cutter *k = c->p->opt.cutter;
	int slot = c->cut_slot[dir];
	uint32_t guess = 0;
	enum pipeline_cut_view v = k->view(k->ctx, slot, &guess);
	if (v == PIPELINE_CUT_FOLLOWING || v == PIPELINE_CUT_OTHER)
		return;
	struct proto_framing f;
	bool sure = c->dec && !h->ended &&
		    c->ops->framing(c->dec, (enum proto_dir)dir, &f) && f.pos == h->off;
	if (v == PIPELINE_CUT_YOURS) {
		if (sure)
			k->hand_over(k->ctx, slot, f.big_endian != 0);
	} else if (guess == h->next) {
		k->judge(k->ctx, slot, guess, sure && f.next == f.pos);
	} else if (seq_lt(guess, h->next)) {
		k->judge(k->ctx, slot, guess, false);	/* passed without being judged */
	}
}

/* Hand over what of [seq, seq+len) lies at or beyond next: the captured
   bytes, then the bytes the snaplen cut off (or the capture skipped) as a
   gap.  Inline in tcp_segment's in-order path, which nearly every packet
   takes: a call of its own saved and restored six registers a packet
   that pipeline_packet's frame already holds.  own: the segment is the
   packet being processed's, not one buffered before. */
static inline __attribute__((always_inline)) void
deliver_segment_in(struct conn *c, int dir, uint32_t seq, const uint8_t *data,
		   uint32_t cap, uint32_t missing, bool skipped, bool own)
{
	struct reassembly *h = &c->h[dir];
	if (c->cut_slot[dir] >= 0)
		cut_follow(c, dir);
	uint32_t skip = seq_lt(seq, h->next) ? h->next - seq : 0;
	if (missing && !skipped && skip < cap &&
	    deliver_cut(c, dir, data + skip, cap - skip, missing, own))
		return;
	if (skip < cap)
		deliver(c, dir, data + skip, cap - skip);
	uint32_t end = seq + cap + missing;
	if (seq_lt(h->next, end))
		hole_in(c, dir, skipped ? XGAP_SKIPPED : XGAP_SNAPLEN, end - h->next);
}

/* The same, out of line, for the rarer callers (buffered segments). */
static __attribute__((noinline)) void deliver_segment(struct conn *c, int dir, uint32_t seq,
						      const uint8_t *data, uint32_t cap,
						      uint32_t missing, bool skipped)
{
	deliver_segment_in(c, dir, seq, data, cap, missing, skipped, false);
}

static void end_direction(struct conn *c, int dir)
{
	struct reassembly *h = &c->h[dir];
	flush_skipped(c, dir);
	if (h->ended)
		return;
	h->ended = 1;
	if (c->dec)
		c->ops->end(c->dec, (enum proto_dir)dir);
}

static void check_fin(struct conn *c, int dir)
{
	struct reassembly *h = &c->h[dir];
	if (h->fin_seen && !seq_lt(h->next, h->fin_seq))
		end_direction(c, dir);
}

/* Deliver buffered segments that the stream has reached. */
static void drain_ooo(struct conn *c, int dir)
{
	struct reassembly *h = &c->h[dir];
	while (h->ooo && !seq_lt(h->next, h->ooo->seq)) {
		struct ooo_seg *s = h->ooo;
		h->ooo = s->next;
		h->ooo_bytes -= s->len;
		deliver_segment(c, dir, s->seq, s->data, s->len, s->missing, s->skipped);
		seg_put(c->p, s);
	}
	check_fin(c, dir);
}

/* Nothing to do for nearly every segment, which comes in order before
   any FIN: that test in line, once a packet. */
static inline void drain(struct conn *c, int dir)
{
	if (c->h[dir].ooo || c->h[dir].fin_seen)
		drain_ooo(c, dir);
}

/* Give up on the bytes between next and target that no segment covers:
   each hole becomes a gap with this reason. */
static void fill_to(struct conn *c, int dir, uint32_t target, int reason)
{
	struct reassembly *h = &c->h[dir];
	while (seq_lt(h->next, target)) {
		drain(c, dir);
		if (!seq_lt(h->next, target))
			break;
		uint32_t hole_end = target;
		if (h->ooo && seq_lt(h->ooo->seq, target))
			hole_end = h->ooo->seq;
		hole(c, dir, reason, hole_end - h->next);
	}
	drain(c, dir);
}

/* Close every hole of a direction: up to what the peer acknowledged the bytes
   were lost by the capture; beyond that, the end came first. */
static void close_holes(struct conn *c, int dir, int reason)
{
	struct reassembly *h = &c->h[dir];
	if (!h->started)
		return;
	if (h->ack_seen && seq_lt(h->next, h->ack_max) && h->ooo)
		fill_to(c, dir, h->ack_max, XGAP_LOST);
	while (h->ooo) {
		struct ooo_seg *last = h->ooo;
		while (last->next)
			last = last->next;
		fill_to(c, dir, last->seq + last->len + last->missing, reason);
	}
}

static void buffer_segment(struct conn *c, int dir, uint32_t seq, const uint8_t *data,
			   uint32_t cap, uint32_t missing, bool skipped)
{
	struct reassembly *h = &c->h[dir];
	/* Over the limit: stop waiting for the first hole. */
	while (h->ooo && h->ooo_bytes + cap > c->p->opt.ooo_limit_bytes) {
		fill_to(c, dir, h->ooo->seq, XGAP_OOO_LIMIT);
		if (!seq_lt(h->next, seq))
			break;
	}
	if (!seq_lt(h->next, seq)) {	/* the stream reached it meanwhile */
		deliver_segment(c, dir, seq, data, cap, missing, skipped);
		drain(c, dir);
		return;
	}
	if (cap > c->p->opt.ooo_limit_bytes) {	/* cannot ever fit: drop the wait */
		hole(c, dir, XGAP_OOO_LIMIT, seq - h->next);
		deliver_segment(c, dir, seq, data, cap, missing, skipped);
		drain(c, dir);
		return;
	}
	struct ooo_seg *s = seg_get(c->p, cap);
	if (!s)
		return;		/* the pipeline failed: see pipeline_error */
	s->seq = seq;
	s->len = cap;
	s->missing = missing;
	s->skipped = skipped;
	if (cap)
		memcpy(s->data, data, cap);
	struct ooo_seg **pp = &h->ooo;
	while (*pp && !seq_lt(seq, (*pp)->seq))
		pp = &(*pp)->next;
	s->next = *pp;
	*pp = s;
	h->ooo_bytes += cap;
}

static void conn_close(struct conn *c, int reason)
{
	for (int d = 0; d < 2; d++) {
		close_holes(c, d, reason);
		end_direction(c, d);
	}
	if (c->dec) {
		c->ops->destroy(c->dec);
		c->dec = NULL;
	}
	compressor_free(&c->h[0]);
	compressor_free(&c->h[1]);
	cut_stop(c);
	/* A closed connection lingers (CLOSED_LINGER_NS) only to recognise
	   its late segments: a capture that opens and closes connections all
	   the time would otherwise hold every one's request ring that long
	   (tests/soak.sh saw the heap grow by 60 KiB a connection). */
	conn_free_open_state(c);
	c->closed = 1;
	c->closed_ts = c->p->ts;
}

/* Forget connections closed long ago, so memory follows the number of
   live connections, not the length of the capture. */
static void sweep(struct pipeline *p)
{
	for (size_t i = 0; i < p->table_size; i++) {
		struct conn **pp = &p->table[i];
		while (*pp) {
			struct conn *c = *pp;
			if (c->closed && p->ts - c->closed_ts > CLOSED_LINGER_NS) {
				*pp = c->hnext;
				if (p->last == c)
					p->last = NULL;
				p->n_conns--;
				conn_free(c);
			} else {
				pp = &c->hnext;
			}
		}
	}
}

/* Which side of a connection seen without its SYN is the server: the one
   on a port a decoder knows, else the lower port. */
static int src_is_server(const struct pipeline_options *o, const struct tcp_seg *s)
{
	if (s->flags & XTCP_SYN)
		return (s->flags & XTCP_ACK) != 0;
	int dst_known = decoder_for_port(o, s->dst.port) != NULL;
	int src_known = decoder_for_port(o, s->src.port) != NULL;
	if (dst_known != src_known)
		return src_known;
	return s->src.port < s->dst.port;
}

/* OpenSSH's compression (packet.c, start_compression_out): one zlib
   stream per direction of the ssh connection, deflateInit at level 6
   with zlib's default window and memory, and each packet's payload
   deflated with Z_PARTIAL_FLUSH, so that the peer can inflate it whole.
   Here one stream per direction of each X connection, and a segment for
   a packet: an X connection's bytes cross an ssh -X tunnel as channel
   data messages of what sshd read from the socket, which on a fast link
   is what the client wrote, a segment of the trace.  The deflated
   length of the segment's new bytes, in the order they arrive; false
   when it cannot be measured (bytes not all captured, no memory). */
static bool compressed_size(struct reassembly *h, const uint8_t *data, uint32_t n,
			    uint32_t *zlen)
{
	if (h->z_broken)
		return false;
	if (!h->z) {
		z_stream *z = calloc(1, sizeof *z);
		if (!z || deflateInit(z, 6) != Z_OK) {
			free(z);
			h->z_broken = true;
			return false;
		}
		h->z = z;
	}
	uint8_t out[16384];
	uint64_t total = 0;
	h->z->next_in = (Bytef *)(uintptr_t)data;
	h->z->avail_in = n;
	do {
		h->z->next_out = out;
		h->z->avail_out = sizeof out;
		int rc = deflate(h->z, Z_PARTIAL_FLUSH);
		if (rc != Z_OK && rc != Z_BUF_ERROR) {
			h->z_broken = true;
			return false;
		}
		total += sizeof out - h->z->avail_out;
	} while (h->z->avail_out == 0);
	if (total > UINT32_MAX)
		return false;
	*zlen = (uint32_t)total;
	return true;
}

static inline __attribute__((always_inline)) void
emit_pkt(struct pipeline *p, struct conn *c, int dir, const struct tcp_seg *s, uint16_t events)
{
	struct reassembly *h = &c->h[dir];
	/* A closed connection's late segment (the last ACK of its close) in
	   a file begun after the close: the file's reader must know the
	   connection it belongs to, as pipeline_replay_state tells only of
	   open ones. */
	if (c->told_in != p->file_no)
		emit_conn(c);
	/* A cut packet's record is held (opt.cuts_in_pkt).  Every packet's
	   is made where it would be held, rather than copied there: held is
	   free, the previous packet's having gone at its end, and a record
	   on the stack would be one more for tcp_segment's frame. */
	bool hold = (events & XPKT_TRUNC) && p->opt.cuts_in_pkt;
	struct xrec *r = &p->held;
	r->type = XREC_PKT;	/* the member used cleared, as in emit_gap */
	r->u.pkt = (struct xrec_pkt){ 0 };
	r->u.pkt.ts = p->ts;
	r->u.pkt.conn = c->id;
	r->u.pkt.dir = (uint8_t)dir;
	r->u.pkt.tcp_flags = s->flags;
	r->u.pkt.events = events;
	r->u.pkt.seq = s->seq;
	r->u.pkt.ack = s->ack;
	r->u.pkt.raw_win = s->win;
	/* SYN segments are never scaled; others by the sender's announced
	   scale once both sides agreed on scaling. */
	uint32_t win = s->win;
	if (!(s->flags & XTCP_SYN))
		win <<= h->win_shift;
	r->u.pkt.win = win;
	r->u.pkt.len = s->payload_len;
	if (p->opt.compressed_sizes && s->payload_len && !(events & XPKT_RETRANS) &&
	    s->payload_cap == s->payload_len && !c->closed) {
		/* Only the bytes not seen before, as the tunnel sends each
		   byte once. */
		uint32_t data_seq = s->seq + ((s->flags & XTCP_SYN) ? 1 : 0), skip = 0;
		if ((events & XPKT_OVERLAP) && h->started)
			skip = (uint32_t)seq_diff(h->next, data_seq);
		if (skip < s->payload_len &&
		    compressed_size(h, s->payload + skip, s->payload_len - skip, &r->u.pkt.zlen))
			r->u.pkt.has_zlen = 1;
	}
	if (hold)
		p->holding = true;
	else
		p->emit(p->emit_ctx, r);
}

/* The window shift of each direction, worked out whenever a scale is
   learned rather than tested with every packet: scaling applies only
   once both sides offered it. */
static void scales_agreed(struct conn *c)
{
	bool both = c->h[0].wscale >= 0 && c->h[1].wscale >= 0;
	for (int i = 0; i < 2; i++)
		c->h[i].win_shift = both ? (uint8_t)c->h[i].wscale : 0;
}

/* A segment of no connection known (or of one its SYN replaced): a new
   connection, its record written.  Out of line, as are the other rare
   paths of tcp_segment, so that the path of every packet keeps its state
   in registers.  NULL when the pipeline failed. */
static __attribute__((noinline)) struct conn *conn_start(struct pipeline *p,
							 const struct tcp_seg *s, int syn_only,
							 int *dirp)
{
	struct conn *c;
	int dir;
	if (src_is_server(&p->opt, s)) {
		c = conn_new(p, &s->dst, &s->src, syn_only ? 0 : XCONN_GUESSED);
		dir = XDIR_S2C;
	} else {
		c = conn_new(p, &s->src, &s->dst, syn_only ? XCONN_SAW_SYN : XCONN_GUESSED);
		dir = XDIR_C2S;
	}
	*dirp = dir;
	if (!c)
		return NULL;
	if (s->flags & XTCP_SYN) {
		/* The SYN of this side: scale known before the conn record. */
		c->h[dir].wscale = s->wscale;
		scales_agreed(c);
	}
	if (!(c->flags & XCONN_SAW_SYN) && (s->flags & XTCP_SYN))
		c->flags = (uint16_t)((c->flags & ~XCONN_GUESSED) | XCONN_SAW_SYN);
	emit_conn(c);
	return c;
}

/* The first SYN of this side fixes its ISN and scale. */
static __attribute__((noinline)) void handshake(struct conn *c, int dir, const struct tcp_seg *s)
{
	struct reassembly *h = &c->h[dir];
	h->syn_seen = 1;
	h->isn = s->seq;
	h->wscale = s->wscale;
	h->started = 1;
	h->base = h->next = s->seq + 1;
	if (dir == XDIR_S2C && c->h[XDIR_C2S].syn_seen) {
		/* Scaling applies only if both sides offered it. */
		if (h->wscale < 0 || c->h[XDIR_C2S].wscale < 0)
			h->wscale = c->h[XDIR_C2S].wscale = -1;
		emit_conn(c);	/* now with both scales */
	}
	scales_agreed(c);
}

/* Inline in take_frame, whose frame it shares: a call of its own saved
   and restored six registers a packet more. */
static inline __attribute__((always_inline)) void tcp_segment(struct pipeline *p,
							       const struct tcp_seg *s)
{
	int dir = 0;
	struct conn *c = conn_find(p, &s->src, &s->dst, &dir);
	int syn_only = (s->flags & (XTCP_SYN | XTCP_ACK)) == XTCP_SYN;

	/* A SYN on a known 4-tuple that is not the SYN we saw (or a closed
	   connection reused) starts a new connection. */
	if (c && syn_only && (c->closed || !c->h[dir].syn_seen || c->h[dir].isn != s->seq ||
			      dir != XDIR_C2S)) {
		if (!c->closed)
			conn_close(c, XGAP_END);
		conn_unlink(p, c);
		conn_free(c);
		c = NULL;
	}
	if (!c) {
		c = conn_start(p, s, syn_only, &dir);
		if (!c)
			return;		/* the pipeline failed: see pipeline_error */
	}
	struct reassembly *h = &c->h[dir];
	struct reassembly *peer = &c->h[!dir];

	if ((s->flags & XTCP_SYN) && !h->syn_seen)
		handshake(c, dir, s);

	uint32_t data_seq = s->seq + ((s->flags & XTCP_SYN) ? 1 : 0);
	uint32_t len = s->payload_len, cap = s->payload_cap;
	uint32_t missing = len - cap;
	uint16_t events = 0;

	if (len > 0 && !c->closed) {
		if (!h->started) {
			h->started = 1;
			h->base = h->next = data_seq;
		}
		int32_t from_start = seq_diff(data_seq, h->next);
		int32_t from_end = seq_diff(data_seq + len, h->next);
		if (from_end <= 0)
			events |= XPKT_RETRANS;
		else if (from_start < 0)
			events |= XPKT_OVERLAP;
		else if (from_start > 0)
			events |= XPKT_OOO;
	}
	if (cap < len)
		events |= XPKT_TRUNC;
	if (s->win == 0 && !(s->flags & (XTCP_RST | XTCP_SYN)))
		events |= XPKT_ZEROWIN;
	if (peer->last_raw_win == 0 && peer->started && len == 1 && (events & (XPKT_RETRANS | XPKT_OOO)) == 0)
		events |= XPKT_WINPROBE;
	h->last_raw_win = s->win;

	emit_pkt(p, c, dir, s, events);
	if (c->closed)
		return;

	/* The peer's acknowledgement tells what its receiver has: bytes of
	   the peer's direction below it that the capture never saw are lost
	   for good.  Decide only once later data is waiting behind the hole,
	   since a capture may show an ACK just before the data it covers. */
	if ((s->flags & XTCP_ACK) && peer->started) {
		if (!peer->ack_seen || seq_lt(peer->ack_max, s->ack)) {
			peer->ack_seen = 1;
			peer->ack_max = s->ack;
		}
		if (peer->ooo && seq_lt(peer->next, s->ack))
			fill_to(c, !dir, s->ack, XGAP_LOST);
	}

	if (len > 0) {
		if (events & XPKT_RETRANS) {
			/* nothing new */
		} else if (seq_diff(data_seq, h->next) <= 0) {
			bool skipped = missing && p->frame_short;
			deliver_segment_in(c, dir, data_seq, s->payload, cap, missing, skipped, true);
			drain(c, dir);
		} else {
			if (h->ack_seen && seq_lt(h->next, h->ack_max))
				fill_to(c, dir, seq_lt(h->ack_max, data_seq) ? h->ack_max : data_seq,
					XGAP_LOST);
			buffer_segment(c, dir, data_seq, s->payload, cap, missing,
				       missing && p->frame_short);
		}
	}

	if (s->flags & XTCP_FIN) {
		h->fin_seen = 1;
		h->fin_seq = data_seq + len;
		check_fin(c, dir);
	}
	if (s->flags & XTCP_RST)
		conn_close(c, XGAP_END);
	else if (c->h[0].ended && c->h[1].ended && !c->h[0].ooo && !c->h[1].ooo)
		conn_close(c, XGAP_END);
}

/* ---- the public face ---- */

struct pipeline *pipeline_new(int dlt, const struct pipeline_options *opt,
			      xrec_emit_fn emit, void *ctx)
{
	struct pipeline *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->dlt = dlt;
	if (opt)
		p->opt = *opt;
	else
		pipeline_default_options(&p->opt);
	p->emit = emit;
	p->emit_ctx = ctx;
	p->table_size = 256;
	p->table = calloc(p->table_size, sizeof *p->table);
	if (!p->table) {
		free(p);
		return NULL;
	}
	return p;
}

const char *pipeline_error(const struct pipeline *p)
{
	return p->err[0] ? p->err : NULL;
}

/* A frame and decode_frame's result for it: the rest of pipeline_packet
   and of pipeline_decoded (a jump there).  Out of line, so that
   tcp_segment, inline in it, is there once. */
static __attribute__((noinline)) int take_frame(struct pipeline *p, uint64_t ts, uint32_t caplen, uint32_t wirelen,
			     enum decode_result result, const struct tcp_seg *seg)
{
	p->ts = ts;
	p->st.ts = ts;
	p->st.packets++;
	p->st.bytes += wirelen;
	p->frame_short = p->opt.snaplen && caplen < p->opt.snaplen;
	switch (result) {
	case DECODE_TCP:
		tcp_segment(p, seg);
		if (p->holding)		/* its gap did not come right after it */
			send_held(p);
		break;
	case DECODE_NOT_TCP:
		p->st.not_tcp++;
		break;
	case DECODE_BAD:
		p->st.bad_link++;
		break;
	}
	if (++p->since_sweep >= SWEEP_EVERY) {
		p->since_sweep = 0;
		sweep(p);
	}
	return p->err[0] ? -1 : 0;
}

int pipeline_packet(struct pipeline *p, uint64_t ts, const uint8_t *frame,
		    uint32_t caplen, uint32_t wirelen)
{
	struct tcp_seg seg;
	if (p->err[0])
		return -1;
	return take_frame(p, ts, caplen, wirelen, decode_frame(p->dlt, frame, caplen, wirelen, &seg),
			  &seg);
}

int pipeline_decoded(struct pipeline *p, uint64_t ts, uint32_t caplen, uint32_t wirelen,
		     enum decode_result result, const struct tcp_seg *seg)
{
	if (p->err[0])
		return -1;
	return take_frame(p, ts, caplen, wirelen, result, seg);
}

static int by_id(const void *a, const void *b)
{
	uint32_t x = (*(struct conn *const *)a)->id, y = (*(struct conn *const *)b)->id;
	return x < y ? -1 : x > y;
}

/* The open connections in id order, so that what is emitted about all of
   them reads in the order they began.  Caller frees. */
static struct conn **open_conns(struct pipeline *p, size_t *n)
{
	struct conn **v = pmalloc(p, (p->n_conns + 1) * sizeof *v, "connection list");
	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < p->table_size; i++)
		for (struct conn *c = p->table[i]; c; c = c->hnext)
			if (!c->closed)
				v[(*n)++] = c;
	qsort(v, *n, sizeof *v, by_id);
	return v;
}

int pipeline_replay_state(struct pipeline *p, uint64_t ts)
{
	size_t n;
	struct conn **v = open_conns(p, &n);
	if (!v)
		return -1;
	p->ts = ts;
	p->file_no++;
	for (size_t i = 0; i < n; i++) {
		struct conn *c = v[i];
		emit_conn(c);
		for (size_t k = 0; k < c->n_exts; k++) {
			struct xrec r = { .type = XREC_EXT };
			r.u.ext = (struct xrec_ext){ ts, c->id, c->exts[k].major,
				c->exts[k].first_event, c->exts[k].first_error, c->exts[k].name };
			send(p, &r);
		}
		for (size_t k = 0; k < c->n_names; k++) {
			struct xrec r = { .type = XREC_NAME };
			r.u.name = (struct xrec_name){ ts, c->id, c->names[k].source,
				c->names[k].text };
			send(p, &r);
		}
	}
	free(v);
	return p->err[0] ? -1 : 0;
}

int pipeline_finish(struct pipeline *p, uint64_t ts)
{
	size_t n;
	if (p->err[0])
		return -1;
	struct conn **v = open_conns(p, &n);
	if (!v)
		return -1;
	if (ts)
		p->ts = ts;
	for (size_t i = 0; i < n; i++)
		conn_close(v[i], XGAP_END);
	free(v);
	return p->err[0] ? -1 : 0;
}

void pipeline_stats(const struct pipeline *p, struct xrec_stats *st)
{
	*st = p->st;
}

void pipeline_steady_heap(size_t reserve)
{
#ifdef M_TRIM_THRESHOLD
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
#endif
	/* Touch the reserve once and give it back: the heap keeps it (the
	   trim threshold is above it), so the first connections' decoders
	   and buffers land on pages already mapped.  A page fault costs a
	   live capture more than hundreds of packets on some machines. */
	enum { PIECE = 256 << 10 };
	size_t n = reserve / PIECE;
	void **v = n ? calloc(n, sizeof *v) : NULL;
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		if ((v[i] = malloc(PIECE)))
			memset(v[i], 0, PIECE);
	for (size_t i = n; i-- > 0;)
		free(v[i]);
	free(v);
}

void pipeline_free(struct pipeline *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->table_size; i++) {
		struct conn *c = p->table[i], *n;
		for (; c; c = n) {
			n = c->hnext;
			conn_free(c);
		}
	}
	free(p->table);
	for (struct ooo_seg *s = p->spare, *n; s; s = n) {
		n = s->next;
		free(s);
	}
	free(p);
}
