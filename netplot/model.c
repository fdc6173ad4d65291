/*
 * model.c — loading a trace into netplot's compact arrays, and what is
 * asked of them: time lookups, region statistics.  The level-of-detail
 * index is lod.c's.
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "model.h"
#include "series.h"

_Static_assert(sizeof(struct np_pkt) == 32, "a packet is 32 bytes");
_Static_assert(XPKT_WINPROBE < 0x40, "packet events fit in 6 bits");
#include "conns.h"
#include "grow.h"
#include "source.h"
#include "responses.h"
#include "state.h"

/* ---- string pool ---- */

static uint32_t hash_str(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static int pool_grow(struct np_model *m, size_t need)
{
	return GROW(m->pool, m->pool_cap, m->pool_len + need);
}

static int hash_grow(struct np_model *m)
{
	size_t cap = m->hash_cap ? m->hash_cap * 2 : 1024;
	uint32_t *h = calloc(cap, sizeof *h);
	if (!h)
		return -1;
	for (size_t i = 0; i < m->hash_cap; i++) {
		uint32_t off = m->hash[i];
		if (!off)
			continue;
		size_t j = hash_str(m->pool + off) & (cap - 1);
		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = off;
	}
	free(m->hash);
	m->hash = h;
	m->hash_cap = cap;
	return 0;
}

/* Strings repeat (request names, atom names): store each once. */
static int intern(struct np_model *m, const char *s, uint32_t *out)
{
	if (!s || !*s) {
		*out = 0;
		return 0;
	}
	if (2 * (m->hash_used + 1) > m->hash_cap && hash_grow(m) < 0)
		return -1;
	size_t j = hash_str(s) & (m->hash_cap - 1);
	while (m->hash[j]) {
		if (strcmp(m->pool + m->hash[j], s) == 0) {
			*out = m->hash[j];
			return 0;
		}
		j = (j + 1) & (m->hash_cap - 1);
	}
	size_t n = strlen(s) + 1;
	if (m->pool_len + n > UINT32_MAX || pool_grow(m, n) < 0)
		return -1;
	uint32_t off = (uint32_t)m->pool_len;
	memcpy(m->pool + off, s, n);
	m->pool_len += n;
	m->hash[j] = off;
	m->hash_used++;
	*out = off;
	return 0;
}

const char *np_str(const struct np_model *m, uint32_t off)
{
	return off < m->pool_len ? m->pool + off : "";
}

void np_msg_title(const struct np_model *m, const struct np_msg *g, char *buf, size_t len)
{
	if (g->ext)
		snprintf(buf, len, "%s:%s", np_str(m, g->ext), np_str(m, g->name));
	else
		snprintf(buf, len, "%s", np_str(m, g->name));
}

/* ---- growing arrays ---- */


/* The packet, message and interval arrays, which reach hundreds of MB, live in
   their own mappings grown with mremap and prefaulted in bulk: on a
   virtual machine taking the page faults one by one cost more than the
   rest of loading together (400 MB: 1.7 s faulted, 0.4 s prefaulted). */
#if defined(__linux__) && defined(MREMAP_MAYMOVE)
#define BIG_MAPPED 1
static size_t page_round(size_t n)
{
	size_t pg = 4096;
	return (n + pg - 1) / pg * pg;
}

/* As grow() (grow.h), which stands in for it where there is no mremap:
   room for at least need elements. */
static int big_grow(void **p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 4096 / size;
	while (c < need)
		c *= 2;
	size_t ob = page_round(*cap * size), nb = page_round(c * size);
	void *q;
	if (!*p) {
		q = mmap(NULL, nb, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	} else {
		q = mremap(*p, ob, nb, MREMAP_MAYMOVE);
#ifdef MADV_POPULATE_WRITE
		if (q != MAP_FAILED)
			madvise((char *)q + ob, nb - ob, MADV_POPULATE_WRITE);	/* advice: may fail */
#endif
	}
	if (q == MAP_FAILED)
		return -1;
	*p = q;
	*cap = c;
	return 0;
}

static void big_shrink(void **p, size_t *cap, size_t n, size_t size)
{
	size_t ob = page_round(*cap * size), nb = page_round(n * size);
	if (!*p || nb == ob || nb == 0)
		return;
	void *q = mremap(*p, ob, nb, 0);
	if (q != MAP_FAILED) {
		*p = q;
		*cap = nb / size;
	}
}

static void big_free(void *p, size_t cap, size_t size)
{
	if (p)
		munmap(p, page_round(cap * size));
}
#else
#define big_grow grow
#define big_shrink shrink
#define big_free(p, cap, size) free(p)
#endif

#ifndef BIG_MAPPED
/* Give back what doubling over-allocated: a 10 M packet trace must stay
   under 100 bytes a packet. */
static void shrink(void **p, size_t *cap, size_t n, size_t size)
{
	if (n == *cap || n == 0)
		return;
	void *q = realloc(*p, n * size);
	if (q) {
		*p = q;
		*cap = n;
	}
}
#endif

struct np_model *np_model_new(void)
{
	struct np_model *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	if (pool_grow(m, 1) < 0) {
		free(m);
		return NULL;
	}
	m->pool[0] = '\0';
	m->pool_len = 1;
	return m;
}

static void free_dir(struct np_dir *d)
{
	big_free(d->pkt, d->pkt_cap, sizeof *d->pkt);
	big_free(d->msg, d->msg_cap, sizeof *d->msg);
	free(d->gap);
	big_free(d->iv, d->iv_cap, sizeof *d->iv);
	free(d->l1);
	np_lod_free(d);
	np_derived_free(d->derived);
}

void np_model_free(struct np_model *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nconn; i++)
	{
		for (int d = 0; d < 2; d++)
			free_dir(&m->conn[i].dir[d]);
		free(m->conn[i].wait);
		free(m->conn[i].input);
	}
	free(m->conn);
	free(m->mark);
	free(m->pool);
	free(m->hash);
	free(m->path);
	free(m);
}

static void addr_text(const struct xaddr *a, char *buf, size_t len)
{
	if (a->family == 4)
		snprintf(buf, len, "%u.%u.%u.%u:%u", a->addr[0], a->addr[1], a->addr[2], a->addr[3],
			 a->port);
	else
		snprintf(buf, len, "[%x:%x:..:%x]:%u", a->addr[0] << 8 | a->addr[1],
			 a->addr[2] << 8 | a->addr[3], a->addr[14] << 8 | a->addr[15], a->port);
}

/* Connection ids run 1, 2, ... in order of first packet, so they index.
   An id far beyond the ones seen (a damaged or hostile trace) would make
   the array huge: such records are left out (NULL with *skip set). */
#define CONN_ID_SLACK 1024

static struct np_conn *conn_get_or_skip(struct np_model *m, uint32_t id, bool *skip)
{
	*skip = id == 0 || id > XCONNS_ID_MAX || id > m->nconn + CONN_ID_SLACK;
	if (*skip)
		return NULL;
	while (m->nconn < id) {
		if (GROW(m->conn, m->conn_cap, m->nconn + 1) < 0)
			return NULL;
		struct np_conn *c = &m->conn[m->nconn];
		memset(c, 0, sizeof *c);
		c->id = (uint32_t)++m->nconn;
		snprintf(c->label, sizeof c->label, "connection %u", c->id);
		c->first = UINT64_MAX;
	}
	return &m->conn[id - 1];
}

static struct np_conn *conn_get(struct np_model *m, uint32_t id)
{
	bool skip;
	return conn_get_or_skip(m, id, &skip);
}

static uint64_t rel(struct np_model *m, uint64_t ts)
{
	if (!m->t0)
		m->t0 = ts;
	/* Records may step back a little in time (capture order); clamp to 0
	   rather than wrap. */
	uint64_t t = ts >= m->t0 ? ts - m->t0 : 0;
	if (t > m->t_end)
		m->t_end = t;
	return t;
}

static void set_base(struct np_dir *d, uint32_t raw)
{
	if (!d->have_base) {
		d->have_base = true;
		d->base = raw;
	}
}

/* Widen a 32-bit sequence number against the last one of its kind; the
   first is taken relative to the base (it may lie a little before it). */
static int64_t tcp_unwrap(const struct np_dir *d, uint32_t raw, uint32_t *last_raw, int64_t *last_w,
		     bool *have)
{
	int64_t w;
	if (*have)
		w = *last_w + (int32_t)(raw - *last_raw);
	else
		w = (int32_t)(raw - d->base);
	*have = true;
	*last_raw = raw;
	*last_w = w;
	return w;
}

/* A sequence number near the direction's latest, without moving it. */
static int64_t tcp_unwrap_near(const struct np_dir *d, uint32_t raw)
{
	if (d->have_seq)
		return d->seq_w + (int32_t)(raw - d->seq_raw);
	if (d->have_ack)
		return d->ack_w + (int32_t)(raw - d->ack_raw);
	return d->have_base ? (int32_t)(raw - d->base) : 0;
}

static void stamp(struct np_conn *c, uint64_t t)
{
	if (t < c->first)
		c->first = t;
	if (t > c->last || c->last == 0)
		c->last = t;
}

static int add_pkt(struct np_model *m, const struct xrec_pkt *r)
{
	bool skip;
	struct np_conn *c = conn_get_or_skip(m, r->conn, &skip);
	if (!c || r->dir > 1)
		return c || skip ? 0 : -1;
	uint64_t t = rel(m, r->ts);
	stamp(c, t);
	struct np_dir *d = &c->dir[r->dir], *peer = &c->dir[!r->dir];
	if (big_grow((void **)&d->pkt, &d->pkt_cap, d->npkt + 1, sizeof *d->pkt) < 0)
		return -1;
	struct np_pkt *p = &d->pkt[d->npkt++];
	set_base(d, r->seq);
	if (d->npkt > 1 && t < p[-1].t)
		d->unsorted = true;
	p->t = t;
	p->seq = tcp_unwrap(d, r->seq, &d->seq_raw, &d->seq_w, &d->have_seq);
	/* The acknowledgement lives in the peer's sequence space. */
	if (r->tcp_flags & XTCP_ACK) {
		set_base(peer, r->ack);
		p->ack = tcp_unwrap(peer, r->ack, &peer->ack_raw, &peer->ack_w, &peer->have_ack);
	} else {
		p->ack = 0;
	}
	p->len = r->len < NP_PKT_LEN_MAX ? r->len : NP_PKT_LEN_MAX;
	p->win = r->win;
	p->events = r->events & 0x3f;
	p->flags = r->tcp_flags;
	m->npkt++;
	return np_lod_add_pkt(d);
}

/* The trace says which request a reply answers (xrec_msg.req_ts and
   req_end, paired once by the pipeline): the request that ended at that
   time and TCP position.  It came before the reply, so it is found by
   looking back from the latest request; requests sent in between (a
   client that pipelines) are all that is passed over.  The first answer
   is the one the client waited for. */
static void mark_answered(struct np_conn *c, uint64_t reply_t, uint64_t req_t, uint32_t req_end)
{
	struct np_dir *rq = &c->dir[XDIR_C2S];
	int64_t end = tcp_unwrap_near(rq, req_end);
	for (size_t i = rq->nmsg; i-- > 0;) {
		struct np_msg *q = &rq->msg[i];
		if (q->t < req_t)
			break;
		if (q->t == req_t && q->end == end && q->kind == XMSG_REQUEST) {
			if (!q->reply_t && reply_t >= q->t)
				q->reply_t = reply_t ? reply_t : 1;
			return;
		}
	}
}

static int add_msg(struct np_model *m, const struct xrec_msg *r)
{
	bool skip;
	struct np_conn *c = conn_get_or_skip(m, r->conn, &skip);
	if (!c || r->dir > 1)
		return c || skip ? 0 : -1;
	struct np_dir *d = &c->dir[r->dir];
	if (big_grow((void **)&d->msg, &d->msg_cap, d->nmsg + 1, sizeof *d->msg) < 0)
		return -1;
	struct np_msg *g = &d->msg[d->nmsg];
	memset(g, 0, sizeof *g);
	g->t = rel(m, r->ts);
	g->end = tcp_unwrap_near(d, r->tcp_end);
	g->seq = r->seq;
	g->length = r->length > UINT32_MAX ? UINT32_MAX : (uint32_t)r->length;
	g->flags = r->flags;
	g->kind = r->kind;
	if (intern(m, r->name, &g->name) < 0 || intern(m, r->ext, &g->ext) < 0 ||
	    intern(m, r->detail, &g->detail) < 0)
		return -1;
	d->nmsg++;
	m->nmsg++;
	if (r->dir == XDIR_S2C && (r->kind == XMSG_REPLY || r->kind == XMSG_ERROR) && r->req_ts)
		mark_answered(c, g->t, rel(m, r->req_ts), r->req_end);
	return 0;
}

static int add_gap(struct np_model *m, const struct xrec_gap *r)
{
	bool skip;
	struct np_conn *c = conn_get_or_skip(m, r->conn, &skip);
	if (!c || r->dir > 1)
		return c || skip ? 0 : -1;
	if (r->reason == XGAP_SKIPPED)
		return 0;	/* left out on purpose, not lost: nothing to mark */
	struct np_dir *d = &c->dir[r->dir];
	if (GROW(d->gap, d->gap_cap, d->ngap + 1) < 0)
		return -1;
	struct np_gap *g = &d->gap[d->ngap++];
	g->t = rel(m, r->ts);
	g->seq = tcp_unwrap_near(d, r->seq);
	g->len = r->len;
	g->reason = r->reason;
	return 0;
}

int np_model_add(struct np_model *m, const struct xrec *rec)
{
	switch (rec->type) {
	case XREC_CONN: {
		bool skip;
		struct np_conn *c = conn_get_or_skip(m, rec->u.conn.id, &skip);
		if (!c)
			return skip ? 0 : -1;
		c->client = rec->u.conn.client;
		c->server = rec->u.conn.server;
		stamp(c, rel(m, rec->u.conn.ts));
		if (!c->named) {
			char a[80];
			addr_text(&c->client, a, sizeof a);
			snprintf(c->label, sizeof c->label, "%s", a);
		}
		return 0;
	}
	case XREC_PKT:
		return add_pkt(m, &rec->u.pkt);
	case XREC_MSG:
		return add_msg(m, &rec->u.msg);
	case XREC_GAP:
		return add_gap(m, &rec->u.gap);
	case XREC_NAME: {
		bool skip;
		struct np_conn *c = conn_get_or_skip(m, rec->u.name.conn, &skip);
		if (!c)
			return skip ? 0 : -1;
		int rank = c->name_rank;
		if (xrec_name_takes(&rank, &rec->u.name)) {
			snprintf(c->label, sizeof c->label, "%s", rec->u.name.text);
			c->name_rank = (uint8_t)rank;
			c->named = true;
		}
		return 0;
	}
	case XREC_MARK: {
		if (GROW(m->mark, m->mark_cap, m->nmark + 1) < 0)
			return -1;
		struct np_mark *k = &m->mark[m->nmark];
		k->t = rel(m, rec->u.mark.ts);
		k->conn = rec->u.mark.conn;
		k->source = rec->u.mark.source;
		if (intern(m, rec->u.mark.text, &k->text) < 0)
			return -1;
		m->nmark++;
		return 0;
	}
	default:
		return 0;
	}
}

void np_model_add_interval(struct np_model *m, uint32_t conn, int dir, uint8_t state,
			   uint64_t abs_start, uint64_t abs_end)
{
	struct np_conn *c = conn_get(m, conn);
	if (!c || dir < 0 || dir > 1 || abs_end <= abs_start)
		return;
	struct np_dir *d = &c->dir[dir];
	uint64_t t0 = m->t0 ? m->t0 : abs_start;
	struct np_iv iv = {
		.start = abs_start > t0 ? abs_start - t0 : 0,
		.end = abs_end > t0 ? abs_end - t0 : 0,
		.state = state,
	};
	m->have_state = true;
	/* A sender blocked segment after segment gives one interval per
	   segment, end to start: keep them as one, or they would outweigh
	   the packets. */
	if (d->niv) {
		struct np_iv *last = &d->iv[d->niv - 1];
		if (last->state == iv.state && last->end == iv.start) {
			last->end = iv.end;
			return;
		}
	}
	if (big_grow((void **)&d->iv, &d->iv_cap, d->niv + 1, sizeof *d->iv) < 0)
		return;
	d->iv[d->niv++] = iv;
}

static int cmp_pkt(const void *a, const void *b)
{
	const struct np_pkt *x = a, *y = b;
	return (x->t > y->t) - (x->t < y->t);
}

static int cmp_msg(const void *a, const void *b)
{
	const struct np_msg *x = a, *y = b;
	if (x->t != y->t)
		return (x->t > y->t) - (x->t < y->t);
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_iv(const void *a, const void *b)
{
	const struct np_iv *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

/* Sorting is needed only when the capture stepped back in time; check
   first so the common case is one linear pass. */
#define SORT_IF_NEEDED(arr, n, field, cmp)                                   \
	do {                                                                  \
		for (size_t i_ = 1; i_ < (n); i_++)                           \
			if ((arr)[i_].field < (arr)[i_ - 1].field) {          \
				qsort((arr), (n), sizeof *(arr), cmp);        \
				break;                                        \
			}                                                     \
	} while (0)

uint8_t np_msg_priority(const struct np_msg *g)
{
	/* Errors and the setup are rare and always worth a label; then the
	   requests a client waited for, the longer the wait the more; then
	   other requests, replies and events. */
	switch (g->kind) {
	case XMSG_ERROR:
		return 250;
	case XMSG_SETUP:
		return 240;
	case XMSG_REQUEST:
		if (g->reply_t > g->t) {
			uint64_t us = (g->reply_t - g->t) / 1000;
			int bits = 0;
			while (us) {
				bits++;
				us >>= 1;
			}
			return (uint8_t)(120 + (bits > 26 ? 26 : bits) * 4);
		}
		return (g->flags & XMSG_F_WANTS_REPLY) ? 110 : 80;
	case XMSG_REPLY:
		return 60;
	case XMSG_EVENT:
		return 40;
	default:
		return 20;
	}
}

int np_model_finish(struct np_model *m)
{
	for (size_t i = 0; i < m->nconn; i++) {
		struct np_conn *c = &m->conn[i];
		if (c->first == UINT64_MAX)
			c->first = 0;
		for (int k = 0; k < 2; k++) {
			struct np_dir *d = &c->dir[k];
			if (d->unsorted)	/* the capture stepped back in time */
				qsort(d->pkt, d->npkt, sizeof *d->pkt, cmp_pkt);
			SORT_IF_NEEDED(d->msg, d->nmsg, t, cmp_msg);
			SORT_IF_NEEDED(d->iv, d->niv, start, cmp_iv);
			big_shrink((void **)&d->pkt, &d->pkt_cap, d->npkt, sizeof *d->pkt);
			big_shrink((void **)&d->msg, &d->msg_cap, d->nmsg, sizeof *d->msg);
			big_shrink((void **)&d->iv, &d->iv_cap, d->niv, sizeof *d->iv);
		}
		for (int k = 0; k < 2; k++) {
			struct np_dir *d = &c->dir[k];
			for (size_t j = 0; j < d->nmsg; j++)
				d->msg[j].prio = np_msg_priority(&d->msg[j]);
			if (np_lod_build(d) < 0)
				return -1;
		}
	}
	return 0;
}

static void on_interval(void *ctx, const struct xstate_interval *iv)
{
	np_model_add_interval(ctx, iv->conn, iv->dir, iv->state, iv->start, iv->end);
}

static void on_wait(void *ctx, const struct xstate_wait *w)
{
	struct np_model *m = ctx;
	struct np_conn *c = conn_get(m, w->conn);
	if (!c || GROW(c->wait, c->wait_cap, c->nwait + 1) < 0)
		return;
	uint64_t t0 = m->t0;
	c->wait[c->nwait++] = (struct np_wait){
		.seq = w->seq, .start = w->start > t0 ? w->start - t0 : 0,
		.reply = w->end > t0 ? w->end - t0 : 0, .queued = w->queued,
		.burst_first = w->burst_first, .burst_last = w->burst_last,
	};
}

static void on_response(void *ctx, const struct xresponse *r)
{
	struct np_model *m = ctx;
	struct np_conn *c = conn_get(m, r->conn);
	uint32_t what;
	if (!c || GROW(c->input, c->input_cap, c->ninput + 1) < 0 ||
	    intern(m, r->what, &what) < 0)
		return;
	uint64_t t0 = m->t0;
	c->input[c->ninput++] = (struct np_input){
		.t = r->input_ts > t0 ? r->input_ts - t0 : 0,
		.end = r->end_ts > t0 ? r->end_ts - t0 : 0,
		.response = r->response, .added = r->display_delay,
		.bytes = { r->bytes[0], r->bytes[1] }, .trips = r->trips, .pixels = r->pixels,
		.what = what, .kind = (uint8_t)r->kind, .flags = (uint8_t)r->flags,
	};
}

static int cmp_input(const void *a, const void *b)
{
	const struct np_input *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t;
}

static int cmp_wait(const void *a, const void *b)
{
	const struct np_wait *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

const struct np_wait *np_conn_wait(const struct np_conn *c, uint64_t seq)
{
	size_t lo = 0, hi = c->nwait;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->wait[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nwait && c->wait[lo].seq == seq ? &c->wait[lo] : NULL;
}

/* The reader's warnings (a damaged block, a cut-short tail) in the
   suite's form; everything before the damage still loads. */
struct load_watch {
	void (*progress)(void *ctx, long long done);	/* done -1: erase the meter */
	void *ctx;
};

static void warn_cb(void *ctx, const char *msg)
{
	struct load_watch *w = ctx;
	/* damaged is the reader's count of problems (xsource_problems): a
	   warning about an intact but undecodable file is not damage */
	if (w->progress)
		w->progress(w->ctx, -1);
	fprintf(stderr, "netplot: %s\n", msg);
}

struct np_model *np_model_load(const char *path, char *err, size_t errlen)
{
	return np_model_load_watched(path, err, errlen, NULL, NULL);
}

struct np_model *np_model_load_watched(const char *path, char *err, size_t errlen,
				       void (*progress)(void *ctx, long long done), void *ctx)
{
	return np_model_load_set(&path, 1, false, err, errlen, progress, ctx);
}

/* Several files are one session when they are the pieces of one capture
   (xcap's rotated files): their records go, in the order given, into one
   model and one state model, so connection ids and times carry on from
   piece to piece. */
struct np_model *np_model_load_set(const char *const *paths, size_t npaths, bool following,
				   char *err, size_t errlen,
				   void (*progress)(void *ctx, long long done), void *ctx)
{
	struct xsource *src = NULL;
	struct np_model *m = np_model_new();
	struct xstate_model *sm = NULL;
	if (!m || !npaths || !(m->path = strdup(paths[0]))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	struct load_watch watch = { progress, ctx };
	struct xstate_options so;
	xstate_options_default(&so);
	if (!(sm = xstate_new(&so))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	/* a new model: neither list of listeners can be full */
	if (xstate_on_interval(sm, on_interval, m) < 0 || xstate_on_wait(sm, on_wait, m) < 0) {
		snprintf(err, errlen, "cannot follow the state model");
		goto fail;
	}
	/* The inputs and their responses, for their marks on the graph. */
	struct xresp_options ro;
	xresp_options_default(&ro);
	struct xresp_model *rm = xresp_new(&ro, sm, on_response, m);
	if (!rm) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	int bad = 0;
	for (size_t f = 0; f < npaths && !bad; f++) {
		if (!(src = xsource_open(paths[f], NULL, NULL, err, errlen))) {
			xresp_free(rm);
			goto fail;
		}
		/* A trace still being written ends in a block not yet whole:
		   not damage, only the place to read on from next time. */
		if (!following)
			xsource_on_warning(src, warn_cb, &watch);
		struct xrec rec;
		int more;
		unsigned long nrec = 0;
		while ((more = xsource_next(src, &rec)) == 1) {
			if (progress && (++nrec & 1023) == 0)
				progress(ctx, xsource_offset(src));
			/* t0 is fixed by the first record, before any interval comes */
			if (np_model_add(m, &rec) < 0)
				bad = 1;
			if (xstate_record(sm, &rec) < 0 || xresp_record(rm, &rec) < 0)
				bad = 1;
			if (bad)
				break;
		}
		if (more < 0) {
			snprintf(err, errlen, "cannot read on: %s", xsource_error(src));
			xresp_free(rm);
			goto fail;
		}
		m->damaged += xsource_problems(src);
		xsource_close(src);
		src = NULL;
	}
	if (!bad) {
		xstate_finish(sm);
		xresp_finish(rm);
		m->have_state = true;	/* even when every moment was Idle */
		for (size_t i = 0; i < m->nconn; i++)
			if (m->conn[i].ninput > 1)	/* responses close in their own order */
				qsort(m->conn[i].input, m->conn[i].ninput, sizeof *m->conn[i].input,
				      cmp_input);
		for (size_t i = 0; i < m->nconn; i++)
			if (m->conn[i].nwait > 1)	/* no waits: no array to sort */
				qsort(m->conn[i].wait, m->conn[i].nwait, sizeof *m->conn[i].wait,
				      cmp_wait);
	}
	xresp_free(rm);
	xstate_free(sm);
	sm = NULL;
	if (bad || np_model_finish(m) < 0) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	return m;
fail:
	if (src)
		xsource_close(src);
	xstate_free(sm);
	np_model_free(m);
	return NULL;
}

size_t np_model_memory(const struct np_model *m)
{
	size_t n = sizeof *m + m->conn_cap * sizeof *m->conn + m->pool_cap +
		   m->hash_cap * sizeof *m->hash + m->mark_cap * sizeof *m->mark;
	for (size_t i = 0; i < m->nconn; i++)
		for (int k = 0; k < 2; k++) {
			const struct np_dir *d = &m->conn[i].dir[k];
			n += d->pkt_cap * sizeof *d->pkt + d->msg_cap * sizeof *d->msg +
			     d->gap_cap * sizeof *d->gap + d->iv_cap * sizeof *d->iv;
			for (size_t l = 1; l < d->plod.nlevel; l++)
				n += d->plod.count[l] * sizeof(struct np_pagg);
			for (size_t l = 1; l < d->mlod.nlevel; l++)
				n += d->mlod.count[l] * sizeof(struct np_magg);
		}
	return n;
}

/* ---- lookups ---- */

#define LOWER(arr, n, field, key)                                            \
	do {                                                                  \
		size_t lo_ = 0, hi_ = (n);                                    \
		while (lo_ < hi_) {                                           \
			size_t mid_ = lo_ + (hi_ - lo_) / 2;                  \
			if ((arr)[mid_].field < (key))                        \
				lo_ = mid_ + 1;                               \
			else                                                  \
				hi_ = mid_;                                   \
		}                                                             \
		return lo_;                                                   \
	} while (0)

size_t np_pkt_lower(const struct np_dir *d, uint64_t t) { LOWER(d->pkt, d->npkt, t, t); }
size_t np_msg_lower(const struct np_dir *d, uint64_t t) { LOWER(d->msg, d->nmsg, t, t); }
size_t np_iv_lower(const struct np_dir *d, uint64_t t) { LOWER(d->iv, d->niv, end, t + 1); }

/* The same, knowing the answer is at `from` or after it: steps of 1, 2,
   4 ... from there, then halving, so a run of close keys (a column's
   edge after the previous one's) costs the log of the distance, not of
   the array, and touches memory near the last answer. */
#define LOWER_FROM(arr, n, field, key, from)                                 \
	do {                                                                  \
		size_t lo_ = (from), hi_ = (from), step_ = 1;                 \
		while (hi_ < (n) && (arr)[hi_].field < (key)) {               \
			lo_ = hi_ + 1;                                        \
			hi_ = (n) - hi_ > step_ ? hi_ + step_ : (n);          \
			step_ *= 2;                                           \
		}                                                             \
		while (lo_ < hi_) {                                           \
			size_t mid_ = lo_ + (hi_ - lo_) / 2;                  \
			if ((arr)[mid_].field < (key))                        \
				lo_ = mid_ + 1;                               \
			else                                                  \
				hi_ = mid_;                                   \
		}                                                             \
		return lo_;                                                   \
	} while (0)

size_t np_pkt_lower_from(const struct np_dir *d, size_t from, uint64_t t)
{
	LOWER_FROM(d->pkt, d->npkt, t, t, from);
}
size_t np_msg_lower_from(const struct np_dir *d, size_t from, uint64_t t)
{
	LOWER_FROM(d->msg, d->nmsg, t, t, from);
}
size_t np_iv_lower_from(const struct np_dir *d, size_t from, uint64_t t)
{
	LOWER_FROM(d->iv, d->niv, end, t + 1, from);
}
size_t np_input_lower(const struct np_conn *c, uint64_t t) { LOWER(c->input, c->ninput, t, t); }

int np_state_at(const struct np_dir *d, uint64_t t)
{
	size_t i = np_iv_lower(d, t);	/* first interval ending after t */
	if (i < d->niv && d->iv[i].start <= t)
		return d->iv[i].state;
	return 0;	/* XSTATE_IDLE */
}

/* ---- region statistics ---- */

static int cmp_count(const void *a, const void *b)
{
	const struct np_count *x = a, *y = b;
	if (x->n != y->n)
		return (x->n < y->n) - (x->n > y->n);
	return (x->name > y->name) - (x->name < y->name);
}

static int cmp_u64(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return (*x > *y) - (*x < *y);
}

int np_region_stats(const struct np_model *m, const struct np_conn *c, uint64_t t0,
		    uint64_t t1, struct np_region *out)
{
	memset(out, 0, sizeof *out);
	if (t1 < t0) {
		uint64_t x = t0;
		t0 = t1;
		t1 = x;
	}
	out->duration = t1 - t0;
	out->have_state = m->have_state;
	for (int k = 0; k < 2; k++) {
		const struct np_dir *d = &c->dir[k];
		size_t i0 = np_pkt_lower(d, t0), i1 = np_pkt_lower(d, t1);
		struct np_pagg a;
		np_pkt_range(d, i0, i1, &a);
		out->bytes[k] = a.bytes;
		out->packets[k] = i1 - i0;
		out->bandwidth[k] = out->duration ? a.bytes * 1e9 / out->duration : 0;
		out->messages[k] = np_msg_lower(d, t1) - np_msg_lower(d, t0);
		/* time in each state, clipped to the span */
		uint64_t busy = 0;
		for (size_t i = np_iv_lower(d, t0); i < d->niv && d->iv[i].start < t1; i++) {
			uint64_t s = d->iv[i].start > t0 ? d->iv[i].start : t0;
			uint64_t e = d->iv[i].end < t1 ? d->iv[i].end : t1;
			if (e > s && d->iv[i].state < 4) {
				out->state[k][d->iv[i].state] += e - s;
				busy += e - s;
			}
		}
		out->state[k][0] = out->duration > busy ? out->duration - busy : 0;
	}
	/* requests by name: (name << 32 | ext) keys, sorted and counted */
	const struct np_dir *rq = &c->dir[XDIR_C2S];
	size_t i0 = np_msg_lower(rq, t0), i1 = np_msg_lower(rq, t1);
	if (i1 > i0) {
		uint64_t *keys = malloc((i1 - i0) * sizeof *keys);
		if (!keys)
			return -1;
		size_t n = 0;
		for (size_t i = i0; i < i1; i++)
			if (rq->msg[i].kind == XMSG_REQUEST)
				keys[n++] = (uint64_t)rq->msg[i].name << 32 | rq->msg[i].ext;
		qsort(keys, n, sizeof *keys, cmp_u64);
		out->requests = calloc(n ? n : 1, sizeof *out->requests);
		if (!out->requests) {
			free(keys);
			return -1;
		}
		for (size_t i = 0; i < n; i++) {
			if (!i || keys[i] != keys[i - 1]) {
				out->requests[out->nrequests++] = (struct np_count){
					.name = (uint32_t)(keys[i] >> 32), .ext = (uint32_t)keys[i] };
			}
			out->requests[out->nrequests - 1].n++;
		}
		free(keys);
		qsort(out->requests, out->nrequests, sizeof *out->requests, cmp_count);
	}
	/* The inputs made inside the span and their response times. */
	size_t j0 = np_input_lower(c, t0), j1 = np_input_lower(c, t1);
	out->inputs = j1 - j0;
	if (j1 > j0) {
		uint64_t *rt = malloc((j1 - j0) * sizeof *rt);
		if (!rt)
			return -1;
		size_t n = 0;
		for (size_t j = j0; j < j1; j++)
			if (!(c->input[j].flags & XRESP_F_NO_RESPONSE))
				rt[n++] = c->input[j].response;
		out->responded = n;
		if (n) {
			qsort(rt, n, sizeof *rt, cmp_u64);
			out->response_p50 = rt[(n * 50 + 99) / 100 - 1];
			out->response_p95 = rt[(n * 95 + 99) / 100 - 1];
		}
		free(rt);
	}
	return 0;
}

void np_region_free(struct np_region *r)
{
	free(r->requests);
	r->requests = NULL;
	r->nrequests = 0;
}

size_t np_model_busiest(const struct np_model *m)
{
	size_t best = 0, n = 0;
	for (size_t i = 0; i < m->nconn; i++) {
		size_t k = m->conn[i].dir[0].npkt + m->conn[i].dir[1].npkt;
		if (k > n) {
			n = k;
			best = i;
		}
	}
	return best;
}
