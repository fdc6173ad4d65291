/*
 * traceidx.c — writing TRACE.idx in one pass (see traceidx.h).
 *
 * Layout (little-endian; offsets from the start of the file):
 *   0  "XCAPIDX1"              8  version (u32), connections (u32)
 *  16  trace size (u64)       24  trace's time of change, ns (u64)
 *  32  hash of the trace's first 64 kB (u64, FNV-1a)
 *  40  t0: absolute ns of the trace's first record (u64)
 *  48  end: ns since t0 of its last record (u64)
 *  56  offset of the connection table (u64)
 *  64  flags (u32; XIDX_HAS_STATE), 0 (u32)
 * A connection, 152 bytes: id (u32), 0 (u32), first and last packet (ns
 * since t0, u64 each), then per direction (request, reply) 64 bytes:
 * packets (u64), messages (u64), the raw sequence number that is 0 on
 * the graph (u32), levels (u32), level-0 bucket width in ns (u64), offset
 * of the level table (u64), state intervals (u64), offset of their table
 * (u64), 0 (u64); then the client's name (64 bytes, NUL-padded, empty
 * when it never said; WM_CLASS preferred over WM_NAME over a pid, as
 * netplot's whole-trace model chooses).  A level: number of its first bucket counting from t0
 * (u64), buckets (u64), offset of its buckets (u64).  A bucket, 80 bytes:
 * lowest and highest data sequence number, lowest and highest
 * acknowledgement (s64 each; lo > hi: none), bytes (u64), packets and
 * messages (u32 each), block offset (u64, 0 none), ns of Block Send, Recv
 * and Reply in it (u64 each).  A state interval, 16 bytes: start (u64, ns
 * since t0), end (u64, ns since t0, with the state 1..3 in its top two
 * bits); a direction's intervals are sorted and do not overlap.
 *
 * Belongs to: libxcap, the capture layer's library (xcap/).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conns.h"
#include "grow.h"
#include "traceidx.h"

enum { HEADER = 72, CONN = 216, NAME_AT = 152, NAME = 64, DIR_AT = 24, DIR = 64, LEVEL = 24, BUCKET = 80, IVAL = 16,
       MAXLEVEL = 24, MIN_BUCKETS = 64 };

struct ival {
	uint64_t start, end;
	uint8_t state;
};

struct idir {
	uint64_t npkt, nmsg;
	bool have_base, have_seq, have_ack;
	uint32_t base, seq_raw, ack_raw;
	int64_t seq_w, ack_w;
	uint64_t w0, start;	/* level-0 width; number of the first bucket */
	size_t nb, cap;
	struct xidx_bucket *b;
	struct ival *iv;
	size_t niv, ivcap;
};

struct iconn {
	bool seen;
	int name_rank;
	char name[NAME];
	uint64_t first, last;
	struct idir d[2];
};

struct xidx {
	/* Not the connection table (conns.h): the index is written in id order, so c[id - 1] is its own index. */
	struct iconn *c;
	size_t n;		/* ids 1..n */
	uint64_t t0, t_end;
	bool have_t0, states;
	int oom;
};

static void wr(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint64_t fnv(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211u;
	return h;
}

int xidx_stamp(const char *path, uint64_t *size, uint64_t *mtime, uint64_t *hash)
{
	struct stat sb;
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	if (fstat(fileno(f), &sb) < 0) {
		fclose(f);
		return -1;
	}
	uint8_t *h = malloc(65536);
	size_t n = h ? fread(h, 1, 65536, f) : 0;
	fclose(f);
	*size = (uint64_t)sb.st_size;
	*mtime = (uint64_t)sb.st_mtim.tv_sec * 1000000000u + (uint64_t)sb.st_mtim.tv_nsec;
	*hash = h ? fnv(h, n) : 0;
	free(h);
	return h ? 0 : -1;
}

struct xidx *xidx_new(void)
{
	return calloc(1, sizeof(struct xidx));
}

void xidx_free(struct xidx *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->n; i++)
		for (int k = 0; k < 2; k++) {
			free(x->c[i].d[k].b);
			free(x->c[i].d[k].iv);
		}
	free(x->c);
	free(x);
}

static struct iconn *conn_get(struct xidx *x, uint32_t id)
{
	if (id == 0 || id > XCONNS_ID_MAX)
		return NULL;
	if (id > x->n) {
		size_t old = x->n;
		if (GROW(x->c, x->n, id) < 0) {
			x->oom = 1;
			return NULL;
		}
		memset(x->c + old, 0, (x->n - old) * sizeof *x->c);
	}
	return &x->c[id - 1];
}

static uint64_t rel(struct xidx *x, uint64_t ts)
{
	if (!x->have_t0) {
		x->have_t0 = true;
		x->t0 = ts;
	}
	uint64_t t = ts >= x->t0 ? ts - x->t0 : 0;
	if (t > x->t_end)
		x->t_end = t;
	return t;
}

void xidx_bucket_empty(struct xidx_bucket *k)
{
	memset(k, 0, sizeof *k);
	k->dlo = k->alo = INT64_MAX;
	k->dhi = k->ahi = INT64_MIN;
}

void xidx_bucket_merge(struct xidx_bucket *a, const struct xidx_bucket *k)
{
	if (k->dlo < a->dlo) a->dlo = k->dlo;
	if (k->dhi > a->dhi) a->dhi = k->dhi;
	if (k->alo < a->alo) a->alo = k->alo;
	if (k->ahi > a->ahi) a->ahi = k->ahi;
	a->bytes += k->bytes;
	a->npkt += k->npkt;
	a->nmsg += k->nmsg;
	if (k->block && (!a->block || k->block < a->block))
		a->block = k->block;
	for (int s = 0; s < 3; s++)
		a->state[s] += k->state[s];
}

/* Halve the number of level-0 buckets: merge pairs, double the width. */
static void coarsen(struct idir *d)
{
	uint64_t s = d->start / 2, e = (d->start + d->nb - 1) / 2;
	size_t n = (size_t)(e - s + 1);
	for (size_t i = 0; i < n; i++) {
		struct xidx_bucket m;
		xidx_bucket_empty(&m);
		for (uint64_t k = 2 * (s + i); k < 2 * (s + i) + 2; k++)
			if (k >= d->start && k < d->start + d->nb)
				xidx_bucket_merge(&m, &d->b[k - d->start]);
		d->b[i] = m;	/* i <= the pair's first: read before written */
	}
	d->start = s;
	d->nb = n;
	d->w0 *= 2;
}

/* The level-0 bucket of time t, the array grown (and coarsened, so that
   its length stays bounded by the packets) to hold it. */
static struct xidx_bucket *bucket_for(struct xidx *x, struct idir *d, uint64_t t)
{
	uint64_t limit = 2 * (d->npkt / XIDX_PER_BUCKET) + MIN_BUCKETS;
	if (!d->b) {
		d->w0 = 1024;
		d->start = t / d->w0;
		d->nb = 0;
	}
	for (;;) {
		uint64_t k = t / d->w0;
		uint64_t lo = d->nb && d->start < k ? d->start : k;
		uint64_t hi = d->nb && d->start + d->nb - 1 > k ? d->start + d->nb - 1 : k;
		if (hi - lo + 1 <= limit)
			break;
		if (d->nb)
			coarsen(d);
		else
			d->w0 *= 2;
	}
	uint64_t k = t / d->w0;
	if (!d->nb)
		d->start = k;
	uint64_t lo = d->nb && d->start < k ? d->start : k;
	uint64_t hi = d->nb && d->start + d->nb - 1 > k ? d->start + d->nb - 1 : k;
	size_t want = (size_t)(hi - lo + 1);
	if (GROW(d->b, d->cap, want) < 0) {
		x->oom = 1;
		return NULL;
	}
	if (lo < d->start) {	/* a record earlier than the first: room in front */
		size_t shift = (size_t)(d->start - lo);
		memmove(d->b + shift, d->b, d->nb * sizeof *d->b);
		for (size_t i = 0; i < shift; i++)
			xidx_bucket_empty(&d->b[i]);
		d->nb += shift;
		d->start = lo;
	}
	while (d->nb < want)
		xidx_bucket_empty(&d->b[d->nb++]);
	return &d->b[k - d->start];
}

static int64_t unwrap(struct idir *d, uint32_t raw, uint32_t *last_raw, int64_t *last_w,
		      bool *have)
{
	if (!d->have_base) {
		d->have_base = true;
		d->base = raw;
	}
	int64_t w = *have ? *last_w + (int32_t)(raw - *last_raw) : (int32_t)(raw - d->base);
	*have = true;
	*last_raw = raw;
	*last_w = w;
	return w;
}

static void add_pkt(struct xidx *x, const struct xrec_pkt *p, uint64_t block)
{
	struct iconn *c = conn_get(x, p->conn);
	if (!c)
		return;
	uint64_t t = rel(x, p->ts);
	int dir = p->dir & 1;
	struct idir *d = &c->d[dir], *peer = &c->d[!dir];
	if (!c->seen || t < c->first)
		c->first = t;
	if (t > c->last)
		c->last = t;
	c->seen = true;
	d->npkt++;
	struct xidx_bucket *k = bucket_for(x, d, t);
	if (k) {
		uint32_t extent = p->len + !!(p->tcp_flags & XTCP_SYN) + !!(p->tcp_flags & XTCP_FIN);
		int64_t s = unwrap(d, p->seq, &d->seq_raw, &d->seq_w, &d->have_seq);
		if (extent) {
			if (s < k->dlo)
				k->dlo = s;
			if (s + (int64_t)extent > k->dhi)
				k->dhi = s + extent;
		}
		k->bytes += p->len;
		k->npkt++;
		if (!k->block || block < k->block)
			k->block = block;
	}
	/* Its acknowledgement is of the peer's data: drawn on the peer's
	   graph, in the peer's bucket of that time. */
	if (p->tcp_flags & XTCP_ACK) {
		int64_t a = unwrap(peer, p->ack, &peer->ack_raw, &peer->ack_w, &peer->have_ack);
		struct xidx_bucket *q = peer->b ? bucket_for(x, peer, t) : NULL;
		if (q) {
			if (a < q->alo)
				q->alo = a;
			if (a > q->ahi)
				q->ahi = a;
			if (!q->block || block < q->block)
				q->block = block;
		}
	}
}

int xidx_record(struct xidx *x, const struct xrec *rec, uint64_t block)
{
	if (x->oom)
		return -1;
	if (rec->type == XREC_PKT) {
		add_pkt(x, &rec->u.pkt, block);
	} else if (rec->type == XREC_MSG) {
		const struct xrec_msg *m = &rec->u.msg;
		struct iconn *c = conn_get(x, m->conn);
		uint64_t t = rel(x, m->ts);
		if (c) {
			struct idir *d = &c->d[m->dir & 1];
			d->nmsg++;
			if (d->b) {
				struct xidx_bucket *k = bucket_for(x, d, t);
				if (k)
					k->nmsg++;
			}
		}
	} else if (rec->type == XREC_NAME) {
		const struct xrec_name *n = &rec->u.name;
		struct iconn *c = conn_get(x, n->conn);
		if (c && xrec_name_takes(&c->name_rank, n))
			snprintf(c->name, sizeof c->name, "%s", n->text);
	} else if (rec->type == XREC_CONN && rec->u.conn.ts) {
		rel(x, rec->u.conn.ts);
	}
	return x->oom ? -1 : 0;
}

int xidx_interval(struct xidx *x, uint32_t conn, int dir, int state, uint64_t start, uint64_t end)
{
	x->states = true;
	struct iconn *c = conn_get(x, conn);
	if (!c || state < 1 || state > 3 || end <= start || !x->have_t0)
		return c || !x->oom ? 0 : -1;
	struct idir *d = &c->d[dir & 1];
	uint64_t s = start >= x->t0 ? start - x->t0 : 0, e = end >= x->t0 ? end - x->t0 : 0;
	if (e <= s)
		return 0;
	/* One blocked stretch often comes as one interval per segment, end
	   to start: one interval. */
	if (d->niv && d->iv[d->niv - 1].state == state && d->iv[d->niv - 1].end == s) {
		d->iv[d->niv - 1].end = e;
		return 0;
	}
	if (GROW(d->iv, d->ivcap, d->niv + 1) < 0) {
		x->oom = 1;
		return -1;
	}
	d->iv[d->niv++] = (struct ival){ s, e, (uint8_t)state };
	return 0;
}

void xidx_states(struct xidx *x)
{
	x->states = true;
}

static int cmp_ival(const void *a, const void *b)
{
	const struct ival *p = a, *q = b;
	return (p->start > q->start) - (p->start < q->start);
}

/* Each interval's time into the level-0 buckets it crosses. */
static void spread_states(struct idir *d)
{
	if (!d->b || !d->w0)
		return;
	uint64_t lo = d->start * d->w0, hi = (d->start + d->nb) * d->w0;
	for (size_t i = 0; i < d->niv; i++) {
		uint64_t s = d->iv[i].start < lo ? lo : d->iv[i].start;
		uint64_t e = d->iv[i].end > hi ? hi : d->iv[i].end;
		while (s < e) {
			uint64_t k = s / d->w0, kend = (k + 1) * d->w0;
			uint64_t upto = e < kend ? e : kend;
			d->b[k - d->start].state[d->iv[i].state - 1] += upto - s;
			s = upto;
		}
	}
}

/* Levels of a direction's buckets, level 0 first, each XIDX_FANOUT times
   coarser; the last has one bucket.  0 out of memory. */
static size_t levels_of(const struct idir *d, struct xidx_bucket **lv, uint64_t *start, size_t *count)
{
	lv[0] = d->b;
	start[0] = d->start;
	count[0] = d->nb;
	size_t n = 1;
	while (count[n - 1] > 1 && n < MAXLEVEL) {
		uint64_t s = start[n - 1] / XIDX_FANOUT;
		uint64_t e = (start[n - 1] + count[n - 1] - 1) / XIDX_FANOUT;
		size_t c = (size_t)(e - s + 1);
		struct xidx_bucket *up = malloc(c * sizeof *up);
		if (!up) {
			while (--n > 0)
				free(lv[n]);
			return 0;
		}
		for (size_t i = 0; i < c; i++)
			xidx_bucket_empty(&up[i]);
		for (size_t i = 0; i < count[n - 1]; i++)
			xidx_bucket_merge(&up[(start[n - 1] + i) / XIDX_FANOUT - s], &lv[n - 1][i]);
		lv[n] = up;
		start[n] = s;
		count[n] = c;
		n++;
	}
	return n;
}

static int put(FILE *f, const void *p, size_t n)
{
	return fwrite(p, 1, n, f) == n ? 0 : -1;
}

static void bucket_bytes(uint8_t *o, const struct xidx_bucket *k)
{
	wr(o, (uint64_t)k->dlo, 8);
	wr(o + 8, (uint64_t)k->dhi, 8);
	wr(o + 16, (uint64_t)k->alo, 8);
	wr(o + 24, (uint64_t)k->ahi, 8);
	wr(o + 32, k->bytes, 8);
	wr(o + 40, k->npkt, 4);
	wr(o + 44, k->nmsg, 4);
	wr(o + 48, k->block, 8);
	for (int s = 0; s < 3; s++)
		wr(o + 56 + 8 * s, k->state[s], 8);
}

int xidx_write(struct xidx *x, const char *trace_path, const char *out_path, char *err,
	       size_t errlen)
{
	if (x->oom) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	uint64_t size, mtime, hash;
	if (xidx_stamp(trace_path, &size, &mtime, &hash) < 0) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return -1;
	}
	for (size_t i = 0; i < x->n; i++)
		for (int k = 0; k < 2; k++) {
			struct idir *d = &x->c[i].d[k];
			if (d->niv > 1)	/* iv is NULL when there are none */
				qsort(d->iv, d->niv, sizeof *d->iv, cmp_ival);
			spread_states(d);
		}
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp%ld", out_path, (long)getpid());
	FILE *f = fopen(tmp, "wb");
	if (!f) {
		snprintf(err, errlen, "cannot write the index: %s", strerror(errno));
		return -1;
	}
	size_t nconn = 0;
	for (size_t i = 0; i < x->n; i++)
		nconn += x->c[i].seen;
	uint8_t h[HEADER] = { 0 };
	memcpy(h, "XCAPIDX1", 8);
	wr(h + 8, XIDX_VERSION, 4);
	wr(h + 12, nconn, 4);
	wr(h + 16, size, 8);
	wr(h + 24, mtime, 8);
	wr(h + 32, hash, 8);
	wr(h + 40, x->t0, 8);
	wr(h + 48, x->t_end, 8);
	wr(h + 56, HEADER, 8);
	wr(h + 64, x->states ? XIDX_HAS_STATE : 0, 4);
	int bad = put(f, h, sizeof h), oom = 0;
	uint64_t at = HEADER + (uint64_t)nconn * CONN;
	struct xidx_bucket *lv[2][MAXLEVEL];
	uint64_t lstart[2][MAXLEVEL];
	size_t lcount[2][MAXLEVEL], nlv[2];
	/* First the table of connections (offsets from the sizes of what
	   follows), then each direction's levels, buckets and intervals. */
	for (int round = 0; round < 2 && !bad; round++) {
		uint64_t data = at;
		for (size_t i = 0; i < x->n && !bad; i++) {
			struct iconn *c = &x->c[i];
			if (!c->seen)
				continue;
			uint8_t ce[CONN] = { 0 };
			wr(ce, i + 1, 4);
			wr(ce + 8, c->first, 8);
			wr(ce + 16, c->last, 8);
			memcpy(ce + NAME_AT, c->name, NAME);
			for (int k = 0; k < 2 && !bad; k++) {
				struct idir *d = &c->d[k];
				nlv[k] = d->b && d->nb ? levels_of(d, lv[k], lstart[k], lcount[k]) : 0;
				if (d->b && d->nb && !nlv[k]) {
					oom = bad = 1;
					break;
				}
				uint8_t *de = ce + DIR_AT + k * DIR;
				wr(de, d->npkt, 8);
				wr(de + 8, d->nmsg, 8);
				wr(de + 16, d->base, 4);
				wr(de + 20, nlv[k], 4);
				wr(de + 24, d->w0, 8);
				wr(de + 32, data, 8);
				uint64_t bat = data + nlv[k] * LEVEL;
				for (size_t l = 0; l < nlv[k]; l++) {
					if (round == 1) {
						uint8_t le[LEVEL];
						wr(le, lstart[k][l], 8);
						wr(le + 8, lcount[k][l], 8);
						wr(le + 16, bat, 8);
						bad |= put(f, le, sizeof le);
					}
					bat += lcount[k][l] * BUCKET;
				}
				if (round == 1)
					for (size_t l = 0; l < nlv[k] && !bad; l++)
						for (size_t j = 0; j < lcount[k][l] && !bad; j++) {
							uint8_t o[BUCKET];
							bucket_bytes(o, &lv[k][l][j]);
							bad |= put(f, o, sizeof o);
						}
				for (size_t l = 1; l < nlv[k]; l++)
					free(lv[k][l]);
				wr(de + 40, d->niv, 8);
				wr(de + 48, bat, 8);
				if (round == 1)
					for (size_t j = 0; j < d->niv && !bad; j++) {
						uint8_t o[IVAL];
						wr(o, d->iv[j].start, 8);
						wr(o + 8, d->iv[j].end | (uint64_t)d->iv[j].state << 62, 8);
						bad |= put(f, o, sizeof o);
					}
				data = bat + d->niv * IVAL;
			}
			if (round == 0 && !bad)
				bad |= put(f, ce, sizeof ce);
		}
	}
	int saved = errno;
	if (fclose(f) != 0)
		bad = 1;
	if (bad) {
		if (oom)
			snprintf(err, errlen, "out of memory");
		else
			snprintf(err, errlen, "cannot write the index: %s", strerror(saved));
		unlink(tmp);
		return -1;
	}
	if (rename(tmp, out_path) < 0) {
		snprintf(err, errlen, "cannot write the index: %s", strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}
