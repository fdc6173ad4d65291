/*
 * index.c — TRACE.idx: building it from a trace, reading it back with
 * every offset checked, and drawing from it.
 *
 * Layout (little-endian; offsets from the start of the file):
 *   0  "XCAPIDX1"              8  version (u32), connections (u32)
 *  16  trace size (u64)       24  trace's time of change, ns (u64)
 *  32  hash of the trace's first 64 kB (u64, FNV-1a)
 *  40  t0: absolute ns of the trace's first record (u64)
 *  48  end: ns since t0 of its last record (u64)
 *  56  offset of the connection table (u64)
 * A connection, 128 bytes: id (u32), 0 (u32), first and last packet (ns
 * since t0, u64 each), then per direction (request, reply) 48 bytes:
 * packets (u64), messages (u64), the raw sequence number that is 0 on
 * the graph (u32), levels (u32), level-0 bucket width in ns (u64), offset
 * of the level table (u64), 0 (u64).  A level: number of its first bucket
 * counting from t0 (u64), buckets (u64), offset of its buckets (u64).
 * A bucket: struct np_ibucket, 80 bytes.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "index.h"
#include "model.h"
#include "render.h"
#include "state.h"
#include "trace.h"

enum { HEADER = 64, CONN = 128, DIR_AT = 24, DIR = 48, LEVEL = 24, BUCKET = 80, MAXLEVEL = 24 };
static const char magic[8] = "XCAPIDX1";

/* ---- checked little-endian reads: a read past the end gives 0 and
   marks the index bad ---- */

struct np_index {
	const uint8_t *p;
	size_t len;
	int bad;
	void *map;		/* from np_index_open: unmapped by np_index_free */
	size_t map_len;
	uint32_t nconn;
	uint64_t t0, t_end, npkt;
	uint64_t conn_off;
};

static uint64_t rd(struct np_index *ix, uint64_t off, int n)
{
	if (off > ix->len || (uint64_t)n > ix->len - off) {
		ix->bad = 1;
		return 0;
	}
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | ix->p[off + (uint64_t)i];
	return v;
}

/* Reads of a valid index never fail; a const view for the queries. */
static uint64_t rdc(const struct np_index *ix, uint64_t off, int n)
{
	return rd((struct np_index *)ix, off, n);
}

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

/* What the index records of its trace, to know it is still that trace. */
static int trace_stamp(const char *path, uint64_t *size, uint64_t *mtime, uint64_t *hash)
{
	struct stat sb;
	FILE *f = fopen(path, "rb");
	if (!f)
		return -1;
	if (fstat(fileno(f), &sb) < 0) {
		fclose(f);
		return -1;
	}
	uint8_t head[65536];
	size_t n = fread(head, 1, sizeof head, f);
	fclose(f);
	*size = (uint64_t)sb.st_size;
	*mtime = (uint64_t)sb.st_mtim.tv_sec * 1000000000u + (uint64_t)sb.st_mtim.tv_nsec;
	*hash = fnv(head, n);
	return 0;
}

/* ---- building ---- */

struct bdir {
	uint64_t npkt, nmsg;
	uint64_t first, last;	/* ns since t0 of its packets */
	bool have_base, have_seq, have_ack;
	uint32_t base, seq_raw, ack_raw;
	int64_t seq_w, ack_w;
	uint64_t w0, start;	/* level-0 bucket width, number of the first */
	size_t nb;
	struct np_ibucket *b;	/* level 0 */
};

struct bconn {
	uint32_t id;
	bool seen;
	uint64_t first, last;
	struct bdir d[2];
};

struct build {
	struct bconn *c;
	size_t n;		/* ids 1..n */
	uint64_t t0, t_end;
	bool have_t0;
	int pass;
	uint64_t block;		/* offset of the current record's block */
	int oom;
};

static struct bconn *bconn_get(struct build *b, uint32_t id)
{
	if (id == 0 || id > 100000000u)
		return NULL;
	if (id > b->n) {
		if (b->pass == 2)
			return NULL;
		size_t n = b->n ? b->n : 16;
		while (n < id)
			n *= 2;
		struct bconn *c = realloc(b->c, n * sizeof *c);
		if (!c) {
			b->oom = 1;
			return NULL;
		}
		memset(c + b->n, 0, (n - b->n) * sizeof *c);
		for (size_t i = b->n; i < n; i++)
			c[i].id = (uint32_t)i + 1;
		b->c = c;
		b->n = n;
	}
	return &b->c[id - 1];
}

static uint64_t brel(struct build *b, uint64_t ts)
{
	if (!b->have_t0) {
		b->have_t0 = true;
		b->t0 = ts;
	}
	uint64_t t = ts >= b->t0 ? ts - b->t0 : 0;
	if (t > b->t_end)
		b->t_end = t;
	return t;
}

static void bucket_empty(struct np_ibucket *k)
{
	memset(k, 0, sizeof *k);
	k->dlo = k->alo = INT64_MAX;
	k->dhi = k->ahi = INT64_MIN;
}

static void bucket_merge(struct np_ibucket *a, const struct np_ibucket *k)
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

static struct np_ibucket *bucket_at(struct bdir *d, uint64_t t)
{
	if (!d->b || !d->w0)
		return NULL;
	uint64_t k = t / d->w0;
	if (k < d->start || k - d->start >= d->nb)
		return NULL;
	return &d->b[k - d->start];
}

static int64_t unwrap(struct bdir *d, uint32_t raw, uint32_t *last_raw, int64_t *last_w, bool *have)
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

static void build_pkt(struct build *b, const struct xrec_pkt *p)
{
	struct bconn *c = bconn_get(b, p->conn);
	if (!c)
		return;
	uint64_t t = brel(b, p->ts);
	int dir = p->dir & 1;
	struct bdir *d = &c->d[dir], *peer = &c->d[!dir];
	if (b->pass == 1) {
		if (!c->seen || t < c->first)
			c->first = t;
		if (t > c->last)
			c->last = t;
		if (!d->npkt || t < d->first)
			d->first = t;
		if (t > d->last)
			d->last = t;
		c->seen = true;
		d->npkt++;
		return;
	}
	struct np_ibucket *k = bucket_at(d, t);
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
		if (!k->block)
			k->block = b->block;
	}
	/* Its acknowledgement is of the peer's data: drawn on the peer's graph. */
	if (p->tcp_flags & XTCP_ACK) {
		int64_t a = unwrap(peer, p->ack, &peer->ack_raw, &peer->ack_w, &peer->have_ack);
		struct np_ibucket *q = bucket_at(peer, t);
		if (q) {
			if (a < q->alo)
				q->alo = a;
			if (a > q->ahi)
				q->ahi = a;
		}
	}
}

static void build_msg(struct build *b, const struct xrec_msg *m)
{
	struct bconn *c = bconn_get(b, m->conn);
	uint64_t t = brel(b, m->ts);
	if (!c)
		return;
	struct bdir *d = &c->d[m->dir & 1];
	if (b->pass == 1) {
		d->nmsg++;
		return;
	}
	struct np_ibucket *k = bucket_at(d, t);
	if (k)
		k->nmsg++;
}

/* A blocked interval from the state model, spread over the buckets it
   crosses. */
static void on_interval(void *ctx, const struct xstate_interval *iv)
{
	struct build *b = ctx;
	struct bconn *c = bconn_get(b, iv->conn);
	if (!c || iv->state < 1 || iv->state > 3 || iv->end <= iv->start)
		return;
	struct bdir *d = &c->d[iv->dir & 1];
	if (!d->w0 || !d->b)
		return;
	uint64_t s = iv->start >= b->t0 ? iv->start - b->t0 : 0;
	uint64_t e = iv->end >= b->t0 ? iv->end - b->t0 : 0;
	uint64_t lo = d->start * d->w0, hi = (d->start + d->nb) * d->w0;
	if (s < lo)
		s = lo;
	if (e > hi)
		e = hi;
	while (s < e) {
		uint64_t k = s / d->w0, kend = (k + 1) * d->w0;
		uint64_t upto = e < kend ? e : kend;
		d->b[k - d->start].state[iv->state - 1] += upto - s;
		s = upto;
	}
}

/* One pass over the trace; the state model too on the second. */
static int build_pass(struct build *b, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return -1;
	}
	struct trace_reader *r = trace_reader_new(f, err, errlen);
	if (!r) {
		fclose(f);
		return -1;
	}
	trace_reader_on_warning(r, NULL, NULL);
	struct xstate_model *sm = NULL;
	if (b->pass == 2) {
		struct xstate_options so;
		xstate_options_default(&so);
		if (!(sm = xstate_new(&so)) || xstate_on_interval(sm, on_interval, b) < 0) {
			snprintf(err, errlen, "out of memory");
			xstate_free(sm);
			trace_reader_free(r);
			fclose(f);
			return -1;
		}
	}
	b->have_t0 = false;
	b->t_end = 0;
	struct xrec rec;
	while (trace_reader_next(r, &rec) == 1 && !b->oom) {
		b->block = trace_reader_block_offset(r);
		if (rec.type == XREC_PKT)
			build_pkt(b, &rec.u.pkt);
		else if (rec.type == XREC_MSG)
			build_msg(b, &rec.u.msg);
		else {
			uint64_t ts = rec.type == XREC_CONN ? rec.u.conn.ts : 0;
			if (ts)
				brel(b, ts);
		}
		if (sm && xstate_record(sm, &rec) < 0)
			b->oom = 1;
	}
	if (sm) {
		xstate_finish(sm);
		xstate_free(sm);
	}
	trace_reader_free(r);
	fclose(f);
	if (b->oom) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* Levels of a direction's buckets, level 0 first, each 16 times coarser;
   the last has one bucket. */
static size_t levels_of(const struct bdir *d, struct np_ibucket **lv, uint64_t *start, size_t *count)
{
	size_t n = 0;
	lv[0] = d->b;
	start[0] = d->start;
	count[0] = d->nb;
	n = 1;
	while (count[n - 1] > 1 && n < MAXLEVEL) {
		uint64_t s = start[n - 1] / NP_INDEX_FANOUT;
		uint64_t e = (start[n - 1] + count[n - 1] - 1) / NP_INDEX_FANOUT;
		size_t c = (size_t)(e - s + 1);
		struct np_ibucket *up = malloc(c * sizeof *up);
		if (!up)
			return 0;
		for (size_t i = 0; i < c; i++)
			bucket_empty(&up[i]);
		for (size_t i = 0; i < count[n - 1]; i++)
			bucket_merge(&up[(start[n - 1] + i) / NP_INDEX_FANOUT - s], &lv[n - 1][i]);
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

static void bucket_bytes(uint8_t *o, const struct np_ibucket *k)
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

int np_index_build(const char *path, const char *out_path, char *err, size_t errlen)
{
	uint64_t size, mtime, hash;
	if (trace_stamp(path, &size, &mtime, &hash) < 0) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return -1;
	}
	struct build b = { .pass = 1 };
	int ret = -1;
	FILE *f = NULL;
	char tmp[4096];
	tmp[0] = '\0';
	if (build_pass(&b, path, err, errlen) < 0)
		goto out;
	/* Level 0: about NP_INDEX_PER_BUCKET packets a bucket on average,
	   a power of two of ns wide, at least a microsecond. */
	for (size_t i = 0; i < b.n; i++)
		for (int k = 0; k < 2; k++) {
			struct bdir *d = &b.c[i].d[k];
			if (!d->npkt)
				continue;
			uint64_t span = d->last - d->first + 1;
			uint64_t want = span / (d->npkt / NP_INDEX_PER_BUCKET + 1) + 1;
			uint64_t w = 1024;
			while (w < want)
				w <<= 1;
			d->w0 = w;
			d->start = d->first / w;
			d->nb = (size_t)(d->last / w - d->start + 1);
			if (!(d->b = malloc(d->nb * sizeof *d->b))) {
				snprintf(err, errlen, "out of memory");
				goto out;
			}
			for (size_t j = 0; j < d->nb; j++)
				bucket_empty(&d->b[j]);
		}
	b.pass = 2;
	if (build_pass(&b, path, err, errlen) < 0)
		goto out;

	snprintf(tmp, sizeof tmp, "%s.tmp%ld", out_path, (long)getpid());
	if (!(f = fopen(tmp, "wb"))) {
		snprintf(err, errlen, "cannot write the index: %s", strerror(errno));
		goto out;
	}
	size_t nconn = 0;
	for (size_t i = 0; i < b.n; i++)
		nconn += b.c[i].seen;
	uint8_t h[HEADER] = { 0 };
	memcpy(h, magic, 8);
	wr(h + 8, NP_INDEX_VERSION, 4);
	wr(h + 12, nconn, 4);
	wr(h + 16, size, 8);
	wr(h + 24, mtime, 8);
	wr(h + 32, hash, 8);
	wr(h + 40, b.t0, 8);
	wr(h + 48, b.t_end, 8);
	wr(h + 56, HEADER, 8);
	int bad = put(f, h, sizeof h);
	/* The connection table, then each direction's level table and buckets. */
	uint64_t at = HEADER + (uint64_t)nconn * CONN;
	struct np_ibucket *lv[2][MAXLEVEL];
	uint64_t lstart[2][MAXLEVEL];
	size_t lcount[2][MAXLEVEL], nlv[2];
	/* First the tables (offsets computed from the level sizes), then the data. */
	for (int round = 0; round < 2 && !bad; round++) {
		uint64_t data = at;
		for (size_t i = 0; i < b.n && !bad; i++) {
			struct bconn *c = &b.c[i];
			if (!c->seen)
				continue;
			uint8_t ce[CONN] = { 0 };
			wr(ce, c->id, 4);
			wr(ce + 8, c->first, 8);
			wr(ce + 16, c->last, 8);
			for (int k = 0; k < 2; k++) {
				struct bdir *d = &c->d[k];
				nlv[k] = d->b ? levels_of(d, lv[k], lstart[k], lcount[k]) : 0;
				if (d->b && !nlv[k]) {
					snprintf(err, errlen, "out of memory");
					bad = 1;
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
				data = bat;
				for (size_t l = 1; l < nlv[k]; l++)
					free(lv[k][l]);
			}
			if (round == 0)
				bad |= put(f, ce, sizeof ce);
		}
	}
	if (bad || fclose(f) != 0) {
		f = NULL;
		if (!err[0] || strcmp(err, "out of memory") != 0)
			snprintf(err, errlen, "cannot write the index: %s", strerror(errno));
		goto out;
	}
	f = NULL;
	if (rename(tmp, out_path) < 0) {
		snprintf(err, errlen, "cannot write the index: %s", strerror(errno));
		goto out;
	}
	tmp[0] = '\0';
	ret = 0;
out:
	if (f)
		fclose(f);
	if (tmp[0])
		unlink(tmp);
	for (size_t i = 0; i < b.n; i++)
		for (int k = 0; k < 2; k++)
			free(b.c[i].d[k].b);
	free(b.c);
	return ret;
}

/* ---- reading ---- */

static uint64_t conn_at(const struct np_index *ix, size_t i)
{
	return ix->conn_off + (uint64_t)i * CONN;
}

struct np_index *np_index_from_bytes(const uint8_t *p, size_t len, char *err, size_t errlen)
{
	struct np_index *ix = calloc(1, sizeof *ix);
	if (!ix) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ix->p = p;
	ix->len = len;
	if (len < HEADER || memcmp(p, magic, 8) != 0) {
		snprintf(err, errlen, "not a trace index");
		goto bad;
	}
	if (rd(ix, 8, 4) != NP_INDEX_VERSION) {
		snprintf(err, errlen, "index version %u, not %u", (unsigned)rd(ix, 8, 4), NP_INDEX_VERSION);
		goto bad;
	}
	ix->nconn = (uint32_t)rd(ix, 12, 4);
	ix->t0 = rd(ix, 40, 8);
	ix->t_end = rd(ix, 48, 8);
	ix->conn_off = rd(ix, 56, 8);
	/* Every table must lie inside the file and every level be as long
	   as it says; after this, queries read only what was checked. */
	if (ix->conn_off > len || (uint64_t)ix->nconn * CONN > len - ix->conn_off) {
		snprintf(err, errlen, "index damaged: connection table past the end");
		goto bad;
	}
	for (size_t i = 0; i < ix->nconn; i++)
		for (int k = 0; k < 2; k++) {
			uint64_t de = conn_at(ix, i) + DIR_AT + (uint64_t)k * DIR;
			ix->npkt += rd(ix, de, 8);
			uint64_t nl = rd(ix, de + 20, 4), w0 = rd(ix, de + 24, 8), lt = rd(ix, de + 32, 8);
			if (nl > MAXLEVEL || (nl && (w0 == 0 || w0 > (UINT64_MAX >> 8)))) {
				snprintf(err, errlen, "index damaged: connection %zu", i + 1);
				goto bad;
			}
			for (uint64_t l = 0; l < nl; l++) {
				uint64_t cnt = rd(ix, lt + l * LEVEL + 8, 8), off = rd(ix, lt + l * LEVEL + 16, 8);
				if (ix->bad || cnt > len / BUCKET || off > len || cnt * BUCKET > len - off) {
					snprintf(err, errlen, "index damaged: connection %zu level %u", i + 1,
						 (unsigned)l);
					goto bad;
				}
			}
		}
	if (ix->bad) {
		snprintf(err, errlen, "index damaged: cut short");
		goto bad;
	}
	return ix;
bad:
	free(ix);
	return NULL;
}

void np_index_free(struct np_index *ix)
{
	if (!ix)
		return;
	if (ix->map)
		munmap(ix->map, ix->map_len);
	free(ix);
}

static struct np_index *map_index(const char *ipath, char *err, size_t errlen)
{
	int fd = open(ipath, O_RDONLY);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return NULL;
	}
	struct stat sb;
	if (fstat(fd, &sb) < 0 || sb.st_size < HEADER) {
		close(fd);
		snprintf(err, errlen, "not a trace index");
		return NULL;
	}
	void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		snprintf(err, errlen, "cannot map: %s", strerror(errno));
		return NULL;
	}
	struct np_index *ix = np_index_from_bytes(m, (size_t)sb.st_size, err, errlen);
	if (!ix) {
		munmap(m, (size_t)sb.st_size);
		return NULL;
	}
	ix->map = m;
	ix->map_len = (size_t)sb.st_size;
	return ix;
}

struct np_index *np_index_open(const char *path, bool *built, char *err, size_t errlen)
{
	char ipath[4096];
	snprintf(ipath, sizeof ipath, "%s.idx", path);
	*built = false;
	uint64_t size, mtime, hash;
	if (trace_stamp(path, &size, &mtime, &hash) < 0) {
		snprintf(err, errlen, "cannot open: %s", strerror(errno));
		return NULL;
	}
	char ierr[256];
	struct np_index *ix = map_index(ipath, ierr, sizeof ierr);
	if (ix && (rd(ix, 16, 8) != size || rd(ix, 24, 8) != mtime || rd(ix, 32, 8) != hash)) {
		np_index_free(ix);	/* stale: the trace changed since */
		ix = NULL;
	}
	if (ix)
		return ix;
	if (np_index_build(path, ipath, err, errlen) < 0)
		return NULL;
	*built = true;
	return map_index(ipath, err, errlen);
}

size_t np_index_conns(const struct np_index *ix)
{
	return ix->nconn;
}

uint64_t np_index_packets(const struct np_index *ix)
{
	return ix->npkt;
}

void np_index_conn(const struct np_index *ix, size_t i, uint32_t *id, uint64_t *first,
		   uint64_t *last, uint64_t npkt[2])
{
	uint64_t c = conn_at(ix, i);
	*id = (uint32_t)rdc(ix, c, 4);
	*first = rdc(ix, c + 8, 8);
	*last = rdc(ix, c + 16, 8);
	for (int k = 0; k < 2; k++)
		npkt[k] = rdc(ix, c + DIR_AT + (uint64_t)k * DIR, 8);
}

size_t np_index_busiest(const struct np_index *ix)
{
	size_t best = 0;
	uint64_t most = 0;
	for (size_t i = 0; i < np_index_conns(ix); i++) {
		uint32_t id;
		uint64_t a, b, n[2];
		np_index_conn(ix, i, &id, &a, &b, n);
		if (n[0] + n[1] > most) {
			most = n[0] + n[1];
			best = i;
		}
	}
	return best;
}

static void bucket_read(const struct np_index *ix, uint64_t off, struct np_ibucket *k)
{
	k->dlo = (int64_t)rdc(ix, off, 8);
	k->dhi = (int64_t)rdc(ix, off + 8, 8);
	k->alo = (int64_t)rdc(ix, off + 16, 8);
	k->ahi = (int64_t)rdc(ix, off + 24, 8);
	k->bytes = rdc(ix, off + 32, 8);
	k->npkt = (uint32_t)rdc(ix, off + 40, 4);
	k->nmsg = (uint32_t)rdc(ix, off + 44, 4);
	k->block = rdc(ix, off + 48, 8);
	for (int s = 0; s < 3; s++)
		k->state[s] = rdc(ix, off + 56 + 8 * (uint64_t)s, 8);
}

size_t np_index_range(const struct np_index *ix, size_t i, int dir, uint64_t t0, uint64_t t1,
		      uint64_t width, struct np_ibucket *out)
{
	bucket_empty(out);
	if (i >= ix->nconn || t1 <= t0)
		return 0;
	uint64_t de = conn_at(ix, i) + DIR_AT + (uint64_t)(dir & 1) * DIR;
	uint64_t nl = rdc(ix, de + 20, 4), w = rdc(ix, de + 24, 8), lt = rdc(ix, de + 32, 8);
	if (!nl)
		return 0;
	/* The coarsest level whose buckets are no wider than width. */
	uint64_t l = 0;
	while (l + 1 < nl && w * NP_INDEX_FANOUT <= width) {
		w *= NP_INDEX_FANOUT;
		l++;
	}
	uint64_t start = rdc(ix, lt + l * LEVEL, 8), cnt = rdc(ix, lt + l * LEVEL + 8, 8);
	uint64_t off = rdc(ix, lt + l * LEVEL + 16, 8);
	uint64_t a = t0 / w, b = (t1 - 1) / w;
	if (a < start)
		a = start;
	if (b >= start + cnt)
		b = start + cnt - 1;
	size_t n = 0;
	for (uint64_t k = a; k <= b && k >= start && k < start + cnt; k++, n++) {
		struct np_ibucket one;
		bucket_read(ix, off + (k - start) * BUCKET, &one);
		bucket_merge(out, &one);
	}
	return n;
}

size_t np_index_render(cairo_t *cr, const struct np_index *ix, size_t i, int dir, double t0,
		       double t1, double y0, double y1, int w, int h)
{
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	return np_index_draw(cr, ix, i, dir, t0, t1, y0, y1, 0, 0, w, h);
}

size_t np_index_draw(cairo_t *cr, const struct np_index *ix, size_t i, int dir, double t0,
		     double t1, double y0, double y1, double px, double py, double w, double h)
{
	if (t1 <= t0 || y1 <= y0 || w < 1 || h < 10)
		return 0;
	/* The graph's own mapping (np_y): the columns land where its
	   packets would. */
	double tpp = (t1 - t0) / w, ypp = (y1 - y0) / h;
	double base = py + h;
	size_t reads = 0;
	cairo_save(cr);
	cairo_rectangle(cr, px, py, w, h);
	cairo_clip(cr);
	for (int x = 0; x < (int)w; x++) {
		double a = t0 + x * tpp;
		if (a + tpp <= 0)
			continue;
		struct np_ibucket k;
		reads += np_index_range(ix, i, dir, a < 0 ? 0 : (uint64_t)a, (uint64_t)(a + tpp),
					(uint64_t)tpp, &k);
		if (!k.npkt && !k.state[0] && !k.state[1] && !k.state[2])
			continue;
		if (k.ahi >= k.alo) {	/* acknowledgements, green as in the graph */
			cairo_set_source_rgb(cr, 0.1, 0.6, 0.1);
			double ya = base - (k.ahi - y0) / ypp, yb = base - (k.alo - y0) / ypp;
			cairo_rectangle(cr, px + x, ya, 1, yb - ya + 1);
			cairo_fill(cr);
		}
		if (k.dhi >= k.dlo) {
			cairo_set_source_rgb(cr, 0, 0, 0);
			double ya = base - (k.dhi - y0) / ypp, yb = base - (k.dlo - y0) / ypp;
			cairo_rectangle(cr, px + x, ya, 1, yb - ya + 1);
			cairo_fill(cr);
		}
		/* The state band: the state that took most of the column. */
		int st = 0;
		uint64_t most = 0;
		for (int s = 0; s < 3; s++)
			if (k.state[s] > most) {
				most = k.state[s];
				st = s + 1;
			}
		if (st) {
			struct np_rgb c = np_state_colour(st);
			cairo_set_source_rgb(cr, c.r, c.g, c.b);
			cairo_rectangle(cr, px + x, py + h - 7, 1, 6);
			cairo_fill(cr);
		}
	}
	cairo_restore(cr);
	return reads;
}

/* The offset of the first block holding a packet of [t0, t1) of
   direction dir, from the level-0 buckets; 0 none. */
static uint64_t first_block(const struct np_index *ix, size_t i, int dir, uint64_t t0,
			    uint64_t t1, struct np_ibucket *first)
{
	uint64_t de = conn_at(ix, i) + DIR_AT + (uint64_t)dir * DIR;
	uint64_t nl = rdc(ix, de + 20, 4), w = rdc(ix, de + 24, 8), lt = rdc(ix, de + 32, 8);
	if (!nl)
		return 0;
	uint64_t start = rdc(ix, lt, 8), cnt = rdc(ix, lt + 8, 8), off = rdc(ix, lt + 16, 8);
	uint64_t a = t0 / w, b = t1 ? (t1 - 1) / w : 0;
	if (a < start)
		a = start;
	for (uint64_t k = a; k <= b && k < start + cnt; k++) {
		bucket_read(ix, off + (k - start) * BUCKET, first);
		if (first->block)
			return first->block;
	}
	return 0;
}

struct np_model *np_index_window(const struct np_index *ix, const char *trace, size_t i,
				 uint64_t t0, uint64_t t1, char *err, size_t errlen)
{
	if (i >= ix->nconn) {
		snprintf(err, errlen, "no such connection");
		return NULL;
	}
	uint64_t c = conn_at(ix, i);
	uint32_t id = (uint32_t)rdc(ix, c, 4);
	struct np_ibucket fb[2];
	uint64_t from = 0;
	for (int d = 0; d < 2; d++) {
		uint64_t o = first_block(ix, i, d, t0, t1, &fb[d]);
		if (o && (!from || o < from))
			from = o;
	}
	struct np_model *m = np_model_new();
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	m->t0 = ix->t0;
	/* The connection at its place (ids are dense from 1), with the
	   whole graph's zero of each direction and the unwrapping carried
	   on from the span's first bucket. */
	for (uint32_t k = 1; k <= id; k++) {
		struct xrec r = { .type = XREC_CONN };
		r.u.conn = (struct xrec_conn){ .ts = ix->t0 + t0, .id = k, .proto = "" };
		if (np_model_add(m, &r) < 0) {
			snprintf(err, errlen, "out of memory");
			np_model_free(m);
			return NULL;
		}
	}
	if (id == 0 || m->nconn < id) {
		snprintf(err, errlen, "connection id out of range");
		np_model_free(m);
		return NULL;
	}
	struct np_conn *nc = &m->conn[id - 1];
	for (int d = 0; d < 2; d++) {
		struct np_dir *nd = &nc->dir[d];
		uint64_t de = c + DIR_AT + (uint64_t)d * DIR;
		nd->have_base = true;
		nd->base = (uint32_t)rdc(ix, de + 16, 4);
		if (from && fb[d].dhi >= fb[d].dlo) {
			nd->have_seq = true;
			nd->seq_w = fb[d].dlo;
			nd->seq_raw = nd->base + (uint32_t)fb[d].dlo;
		}
		if (from && fb[d].ahi >= fb[d].alo) {
			nd->have_ack = true;
			nd->ack_w = fb[d].alo;
			nd->ack_raw = nd->base + (uint32_t)fb[d].alo;
		}
	}
	if (from) {
		FILE *f = fopen(trace, "rb");
		struct trace_reader *r = f ? trace_reader_new(f, err, errlen) : NULL;
		if (!r || trace_reader_seek(r, from) < 0) {
			if (!f)
				snprintf(err, errlen, "cannot open: %s", strerror(errno));
			else if (r)
				snprintf(err, errlen, "cannot seek in the trace");
			trace_reader_free(r);
			if (f)
				fclose(f);
			np_model_free(m);
			return NULL;
		}
		trace_reader_on_warning(r, NULL, NULL);
		struct xrec rec;
		/* Records come in capture order, a message a little after its
		   packet: a second past the span is enough to have them all. */
		uint64_t stop = ix->t0 + t1 + 1000000000u;
		int bad = 0;
		while (!bad && trace_reader_next(r, &rec) == 1) {
			uint64_t ts;
			uint32_t cid;
			switch (rec.type) {
			case XREC_PKT: ts = rec.u.pkt.ts; cid = rec.u.pkt.conn; break;
			case XREC_MSG: ts = rec.u.msg.ts; cid = rec.u.msg.conn; break;
			case XREC_GAP: ts = rec.u.gap.ts; cid = rec.u.gap.conn; break;
			default: continue;
			}
			if (ts > stop)
				break;
			if (cid != id || ts < ix->t0 + t0 || ts > ix->t0 + t1)
				continue;
			bad = np_model_add(m, &rec) < 0;
		}
		trace_reader_free(r);
		fclose(f);
		if (bad) {
			snprintf(err, errlen, "out of memory");
			np_model_free(m);
			return NULL;
		}
	}
	if (np_model_finish(m) < 0) {
		snprintf(err, errlen, "out of memory");
		np_model_free(m);
		return NULL;
	}
	return m;
}
