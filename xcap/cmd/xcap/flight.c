/*
 * flight.c — the flight recorder (see flight.h for the rule it keeps).
 *
 * The ring is a circular array of records, each with its strings copied
 * into one allocation (records without strings, the packets that make up
 * most of a capture, take none).  Its size in bytes counts each entry and
 * its strings, which is what the memory limit bounds.
 *
 * Belongs to: the xcap command's room (xcap/cmd/xcap/).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flight.h"
#include "grow.h"

/* A connection closed this long ago is forgotten: its last packets (the
   ACK of a FIN) may still come a little after the FIN. */
#define CLOSED_KEEP_NS (60ull * 1000000000u)

struct entry {
	struct xrec rec;
	char *strs;		/* the record's strings, NULL when it has none */
	size_t size;		/* what it counts for in the ring */
};

/* What a reader needs of a connection whose records left the ring. */
struct held_conn {
	struct xrec conn;	/* the latest conn record */
	char *conn_strs;
	struct entry *extra;	/* its ext and name records, in order */
	size_t n_extra, cap_extra;
	uint8_t fin;		/* bit per direction that sent a FIN */
	int closed;
	uint64_t closed_ts;
	unsigned told;		/* the window its records last went to, 0: none */
};

struct flight {
	struct flight_options opt;
	struct flight_output out;
	struct entry *ring;
	size_t cap, head, len;
	uint64_t bytes;
	uint64_t evicted_upto;	/* time of the last record that left the ring */
	int any_evicted;
	struct held_conn *held;	/* not the connection table (conns.h): let go when closed */
	size_t n_held, cap_held;
	size_t last_held;	/* where held_find found the previous one */
	uint64_t forgot_at;	/* when closed connections were last let go */
	int writing;
	uint64_t end;		/* of the open window */
	unsigned windows;
	uint64_t last_ts;
	char err[128];
};

static int fail(struct flight *f, const char *what)
{
	if (!f->err[0])
		snprintf(f->err, sizeof f->err, "%s", what);
	return -1;
}

/* ---- copying records ---- */

/* The string fields of a record, so that one loop copies them all. */
static size_t string_fields(struct xrec *r, const char ***v)
{
	switch (r->type) {
	case XREC_CONN: v[0] = &r->u.conn.proto; return 1;
	case XREC_MSG:
		v[0] = &r->u.msg.name;
		v[1] = &r->u.msg.ext;
		v[2] = &r->u.msg.detail;
		return 3;
	case XREC_EXT: v[0] = &r->u.ext.name; return 1;
	case XREC_NAME: v[0] = &r->u.name.source; v[1] = &r->u.name.text; return 2;
	case XREC_NOTE: v[0] = &r->u.note.text; return 1;
	case XREC_MARK: v[0] = &r->u.mark.text; return 1;
	default: return 0;
	}
}

/* A copy of rec whose strings live in *strs (to be freed).  -1 when out of
   memory. */
static int copy_record(struct xrec *dst, char **strs, size_t *strs_len, const struct xrec *src)
{
	const char **fields[3];
	*dst = *src;
	*strs = NULL;
	*strs_len = 0;
	size_t n = string_fields(dst, fields), total = 0;
	for (size_t i = 0; i < n; i++)
		total += (*fields[i] ? strlen(*fields[i]) : 0) + 1;
	if (!n)
		return 0;
	char *s = malloc(total);
	if (!s)
		return -1;
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		const char *from = *fields[i] ? *fields[i] : "";
		size_t k = strlen(from) + 1;
		memcpy(s + at, from, k);
		*fields[i] = s + at;
		at += k;
	}
	*strs = s;
	*strs_len = total;
	return 0;
}

static void set_ts(struct xrec *r, uint64_t ts)
{
	switch (r->type) {
	case XREC_CONN: r->u.conn.ts = ts; break;
	case XREC_EXT: r->u.ext.ts = ts; break;
	case XREC_NAME: r->u.name.ts = ts; break;
	default: break;
	}
}

/* ---- what left the ring ---- */

static struct held_conn *held_find(struct flight *f, uint32_t id)
{
	/* Records come in runs per connection: the previous one first. */
	if (f->last_held < f->n_held && f->held[f->last_held].conn.u.conn.id == id)
		return &f->held[f->last_held];
	for (size_t i = f->n_held; i-- > 0;)
		if (f->held[i].conn.u.conn.id == id) {
			f->last_held = i;
			return &f->held[i];
		}
	return NULL;
}

static void held_drop(struct flight *f, size_t i)
{
	struct held_conn *h = &f->held[i];
	free(h->conn_strs);
	for (size_t k = 0; k < h->n_extra; k++)
		free(h->extra[k].strs);
	free(h->extra);
	f->held[i] = f->held[--f->n_held];
}

/* A record leaves the ring: keep what a later window needs of it.  The
   entry's strings are taken over or freed. */
static int hold(struct flight *f, struct entry *e)
{
	const struct xrec *r = &e->rec;
	struct held_conn *h;
	switch (r->type) {
	case XREC_CONN:
		h = held_find(f, r->u.conn.id);
		if (!h) {
			if (GROW(f->held, f->cap_held, f->n_held + 1) < 0) {
				free(e->strs);
				return fail(f, "out of memory: 'flight recorder connections'");
			}
			h = &f->held[f->n_held++];
			memset(h, 0, sizeof *h);
		}
		free(h->conn_strs);	/* a later conn record supersedes */
		h->conn = e->rec;
		h->conn_strs = e->strs;
		return 0;
	case XREC_EXT:
	case XREC_NAME:
		h = held_find(f, r->type == XREC_EXT ? r->u.ext.conn : r->u.name.conn);
		if (h) {
			if (GROW(h->extra, h->cap_extra, h->n_extra + 1) < 0) {
				free(e->strs);
				return fail(f, "out of memory: 'flight recorder connections'");
			}
			h->extra[h->n_extra++] = *e;
			return 0;
		}
		break;
	case XREC_PKT:
		h = held_find(f, r->u.pkt.conn);
		if (h && !h->closed) {
			if (r->u.pkt.tcp_flags & XTCP_FIN)
				h->fin |= (uint8_t)(1u << (r->u.pkt.dir & 1));
			if ((r->u.pkt.tcp_flags & XTCP_RST) || h->fin == 3) {
				h->closed = 1;
				h->closed_ts = r->u.pkt.ts;
			}
		}
		break;
	default:
		break;
	}
	free(e->strs);
	return 0;
}

static void forget_closed(struct flight *f, uint64_t ts)
{
	/* once a second of capture time is enough, and keeps this off the
	   path of every record */
	if (ts < f->forgot_at + 1000000000u)
		return;
	f->forgot_at = ts;
	for (size_t i = f->n_held; i-- > 0;)
		if (f->held[i].closed && ts > f->held[i].closed_ts + CLOSED_KEEP_NS)
			held_drop(f, i);
}

/* ---- the ring ---- */

static struct entry *ring_at(const struct flight *f, size_t i)
{
	return &f->ring[(f->head + i) % f->cap];
}

static int evict_oldest(struct flight *f)
{
	struct entry e = f->ring[f->head];
	f->head = (f->head + 1) % f->cap;
	f->len--;
	f->bytes -= e.size;
	f->evicted_upto = xrec_time(&e.rec);
	f->any_evicted = 1;
	return hold(f, &e);
}

/* Push records out while the ring is over its limits (ts: the newest). */
static int trim(struct flight *f, uint64_t ts)
{
	while (f->len) {
		uint64_t oldest = xrec_time(&f->ring[f->head].rec);
		int too_old = f->opt.ring_ns && ts > oldest && ts - oldest > f->opt.ring_ns;
		/* keep the newest record even if it alone is over the size */
		int too_big = f->opt.ring_bytes && f->bytes > f->opt.ring_bytes && f->len > 1;
		if (!too_old && !too_big)
			break;
		if (evict_oldest(f) < 0)
			return -1;
	}
	forget_closed(f, ts);
	return 0;
}

static int ring_push(struct flight *f, const struct xrec *rec)
{
	if (f->len == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 1024;
		struct entry *v = malloc(cap * sizeof *v);
		if (!v)
			return fail(f, "out of memory: 'flight recorder ring'");
		for (size_t i = 0; i < f->len; i++)
			v[i] = *ring_at(f, i);
		free(f->ring);
		f->ring = v;
		f->cap = cap;
		f->head = 0;
	}
	struct entry *e = &f->ring[(f->head + f->len) % f->cap];
	size_t slen;
	if (copy_record(&e->rec, &e->strs, &slen, rec) < 0)
		return fail(f, "out of memory: 'flight recorder ring'");
	e->size = sizeof *e + slen;
	f->len++;
	f->bytes += e->size;
	return 0;
}

/* ---- windows ---- */

static void put_held(struct flight *f, struct held_conn *h, uint64_t ts)
{
	struct xrec r = h->conn;
	set_ts(&r, ts);
	f->out.put(f->out.ctx, &r);
	for (size_t k = 0; k < h->n_extra; k++) {
		r = h->extra[k].rec;
		set_ts(&r, ts);
		f->out.put(f->out.ctx, &r);
	}
	h->told = f->windows;
}

/* A record of the ring into the open window.  A window begins with the
   connections open at its start; a late segment of one closed before
   (the last ACK of its close) brings its connection's records first, so
   that the window reads on its own. */
static void put_record(struct flight *f, const struct xrec *rec)
{
	if (rec->type == XREC_PKT && f->n_held) {
		struct held_conn *h = held_find(f, rec->u.pkt.conn);
		if (h && h->closed && h->told != f->windows)
			put_held(f, h, rec->u.pkt.ts);
	}
	f->out.put(f->out.ctx, rec);
}

static void put_mark(struct flight *f, uint64_t ts, uint8_t source, const char *text)
{
	struct xrec m = { .type = XREC_MARK };
	m.u.mark.ts = ts;
	m.u.mark.source = source;
	m.u.mark.text = text;
	f->out.put(f->out.ctx, &m);
}

static int close_window(struct flight *f, uint64_t ts)
{
	char text[64];
	snprintf(text, sizeof text, "window %u ends", f->windows);
	put_mark(f, ts, XMARK_WINDOW_END, text);
	f->writing = 0;
	if (f->out.close(f->out.ctx) < 0)
		return fail(f, "cannot close a window's trace");
	return 0;
}

static int open_window(struct flight *f, uint64_t trigger_ts, const char *why)
{
	uint64_t start = trigger_ts > f->opt.before_ns ? trigger_ts - f->opt.before_ns : 0;
	/* What the size limit pushed out is not in memory: the window
	   begins after it. */
	if (f->any_evicted && start <= f->evicted_upto)
		start = f->evicted_upto + 1;
	while (f->len && xrec_time(&f->ring[f->head].rec) < start)
		if (evict_oldest(f) < 0)
			return -1;
	if (f->out.open(f->out.ctx, start) < 0)
		return fail(f, "cannot open a window's trace");
	f->writing = 1;
	f->windows++;
	/* What the window's records refer to: connections open at its start
	   with their extensions and names, in the order they were learned. */
	for (size_t i = 0; i < f->n_held; i++)
		if (!f->held[i].closed)
			put_held(f, &f->held[i], start);
	put_mark(f, start, XMARK_WINDOW_START, why);
	for (size_t i = 0; i < f->len; i++)
		put_record(f, &ring_at(f, i)->rec);
	return 0;
}

/* ---- the interface ---- */

struct flight *flight_new(const struct flight_options *opt, const struct flight_output *out)
{
	struct flight *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->opt = *opt;
	f->out = *out;
	return f;
}

int flight_put(struct flight *f, const struct xrec *rec)
{
	if (f->err[0])
		return -1;
	uint64_t ts = xrec_time(rec);
	if (f->writing && ts > f->end && close_window(f, f->end) < 0)
		return -1;
	if (ts > f->last_ts)
		f->last_ts = ts;
	if (ring_push(f, rec) < 0)
		return -1;
	if (f->writing)
		put_record(f, &ring_at(f, f->len - 1)->rec);
	return trim(f, ts);
}

int flight_trigger(struct flight *f, uint64_t ts, const char *why)
{
	return flight_trigger_from(f, ts, ts, why);
}

int flight_trigger_from(struct flight *f, uint64_t from, uint64_t ts, const char *why)
{
	if (f->err[0])
		return -1;
	if (from > ts)
		from = ts;
	int was_writing = f->writing;
	if (!was_writing && open_window(f, from, why) < 0)
		return -1;
	if (!was_writing || ts + f->opt.after_ns > f->end)
		f->end = ts + f->opt.after_ns;
	return 0;
}

int flight_tick(struct flight *f, uint64_t now)
{
	if (f->err[0])
		return -1;
	if (f->writing && now > f->end)
		return close_window(f, f->end);
	return 0;
}

int flight_finish(struct flight *f, uint64_t ts)
{
	if (f->err[0])
		return -1;
	if (f->writing)
		return close_window(f, ts < f->end ? (ts > f->last_ts ? ts : f->last_ts) : f->end);
	return 0;
}

size_t flight_ring_records(const struct flight *f) { return f->len; }
uint64_t flight_ring_bytes(const struct flight *f) { return f->bytes; }
uint64_t flight_ring_oldest(const struct flight *f)
{
	return f->len ? xrec_time(&f->ring[f->head].rec) : 0;
}
unsigned flight_windows(const struct flight *f) { return f->windows; }
int flight_writing(const struct flight *f) { return f->writing; }
const char *flight_error(const struct flight *f) { return f->err[0] ? f->err : NULL; }

void flight_free(struct flight *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->len; i++)
		free(ring_at(f, i)->strs);
	free(f->ring);
	while (f->n_held)
		held_drop(f, f->n_held - 1);
	free(f->held);
	free(f);
}
