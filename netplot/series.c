/*
 * series.c — deriving the family's graphs from a direction's packets and
 * messages (see series.h), each in one pass, as tcptrace derives them:
 *
 *   rtt    the acks' samples by tcptrace's rule with Karn's, as
 *          xcapanalyse --tcp-stats counts them (xcapanalyse/rtt.h); the
 *          SYN counts, so the handshake's is the first.  Beside them
 *          each request's wait for its answer (the protocol's own round
 *          trip), at the time the answer came.
 *   tput   per data segment, the bytes of the last ten segments over the
 *          time since the first of them (tcptrace's instantaneous
 *          throughput, its -T interval of 10), and the connection's
 *          average so far (all data bytes over the time since its first
 *          packet).
 *   owin   per segment sent, the bytes sent and not yet acknowledged
 *          (highest sequence sent less the peer's last ack), against the
 *          window the peer last advertised (tcptrace's owin graph).
 *   ssize  each data segment's size.
 *   lanes  the direction's messages grouped by kind, the most frequent
 *          first.
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rtt.h"
#include "series.h"

static const char *const graph_names[NP_GRAPH_N] = { "tsg", "rtt", "tput", "owin", "ssize",
						     "lanes" };

const char *np_graph_name(int g)
{
	return g >= 0 && g < NP_GRAPH_N ? graph_names[g] : "?";
}

int np_graph_parse(const char *name)
{
	for (int g = 0; g < NP_GRAPH_N; g++)
		if (strcmp(name, graph_names[g]) == 0)
			return g;
	return -1;
}

/* ---- a series and its pyramid ---- */

static int push(struct np_series *s, size_t *cap, uint64_t t, double y)
{
	if (s->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 256;
		uint64_t *tt = realloc(s->t, nc * sizeof *tt);
		if (!tt)
			return -1;
		s->t = tt;
		double *yy = realloc(s->y, nc * sizeof *yy);
		if (!yy)
			return -1;
		s->y = yy;
		*cap = nc;
	}
	s->t[s->n] = t;
	s->y[s->n++] = y;
	return 0;
}

static int pyramid(struct np_series *s)
{
	size_t n = s->n;
	const double *lo = s->y, *hi = s->y;
	for (size_t k = 0; k < NP_PYR_LEVELS && n > NP_PYR_FANOUT; k++) {
		size_t m = (n + NP_PYR_FANOUT - 1) / NP_PYR_FANOUT;
		s->lo[k] = malloc(m * sizeof(double));
		s->hi[k] = malloc(m * sizeof(double));
		if (!s->lo[k] || !s->hi[k])
			return -1;
		s->nlevel = k + 1;
		for (size_t j = 0; j < m; j++) {
			double a = INFINITY, b = -INFINITY;
			for (size_t i = j * NP_PYR_FANOUT; i < n && i < (j + 1) * NP_PYR_FANOUT; i++) {
				a = fmin(a, lo[i]);
				b = fmax(b, hi[i]);
			}
			s->lo[k][j] = a;
			s->hi[k][j] = b;
		}
		lo = s->lo[k];
		hi = s->hi[k];
		n = m;
	}
	return 0;
}

size_t np_series_lower(const struct np_series *s, size_t from, uint64_t t)
{
	size_t a = from, b = s->n;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (s->t[m] < t)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

bool np_series_range(const struct np_series *s, size_t i0, size_t i1, double *lo, double *hi)
{
	double a = INFINITY, b = -INFINITY;
	if (i1 > s->n)
		i1 = s->n;
	/* level by level: the ragged ends from the level below, the middle
	   from the coarsest level that covers it */
	size_t unit = 1;
	int level = -1;
	while (i0 < i1) {
		const double *l = level < 0 ? s->y : s->lo[level], *h = level < 0 ? s->y : s->hi[level];
		size_t j0 = i0 / unit, j1 = i1 / unit;	/* nodes of this level */
		if (level + 1 < (int)s->nlevel && j1 - j0 > 2 * NP_PYR_FANOUT) {
			size_t up = unit * NP_PYR_FANOUT;
			size_t m0 = (i0 + up - 1) / up * up, m1 = i1 / up * up;
			for (size_t i = i0; i < m0; i += unit) {
				a = fmin(a, l[i / unit]);
				b = fmax(b, h[i / unit]);
			}
			for (size_t i = m1; i < i1; i += unit) {
				a = fmin(a, l[i / unit]);
				b = fmax(b, h[i / unit]);
			}
			i0 = m0;
			i1 = m1;
			unit = up;
			level++;
			continue;
		}
		for (size_t i = i0; i < i1; i += unit) {
			a = fmin(a, l[i / unit]);
			b = fmax(b, h[i / unit]);
		}
		break;
	}
	*lo = a;
	*hi = b;
	return a <= b;
}

static void series_free(struct np_series *s)
{
	free(s->t);
	free(s->y);
	for (size_t k = 0; k < s->nlevel; k++) {
		free(s->lo[k]);
		free(s->hi[k]);
	}
	memset(s, 0, sizeof *s);
}

void np_derived_free(struct np_derived *d)
{
	if (!d)
		return;
	for (int g = 0; g < NP_GRAPH_N; g++)
		for (size_t i = 0; i < d->ns[g]; i++)
			series_free(&d->s[g][i]);
	for (size_t i = 0; i < d->nlane; i++)
		free(d->lane[i].msg);
	free(d);
}

/* ---- the graphs ---- */

static uint32_t extent(const struct np_pkt *p)
{
	return p->len + !!(p->flags & XTCP_SYN) + !!(p->flags & XTCP_FIN);
}

static int cmp_sample(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return (*x > *y) - (*x < *y);
}

static int build_rtt(const struct np_dir *d, const struct np_dir *peer, struct np_series *s)
{
	/* the acks' samples by the one rule (xcapanalyse/rtt.h), fed the
	   direction's segments and the peer's acks in time order; an ack at
	   the very time of a segment comes first, as it cannot answer it */
	size_t cap = 0, k = 0, j = 0;
	struct rtt_flight fl = { 0 };
	s[0] = (struct np_series){ .name = "ack round trip", .unit = "ms", .colour = 0 };
	while (j < peer->npkt) {
		if (k < d->npkt && d->pkt[k].t < peer->pkt[j].t) {
			const struct np_pkt *p = &d->pkt[k++];
			if (extent(p) &&
			    rtt_sent(&fl, (uint32_t)p->seq, extent(p), p->t,
				     p->events & (XPKT_RETRANS | XPKT_OVERLAP)) < 0)
				goto oom;
			continue;
		}
		const struct np_pkt *a = &peer->pkt[j++];
		uint64_t ns;
		if ((a->flags & XTCP_ACK) && rtt_acked(&fl, (uint32_t)a->ack, a->t, &ns) &&
		    push(&s[0], &cap, a->t, (double)ns / 1e6) < 0)
			goto oom;
	}
	rtt_free(&fl);
	/* the protocol's own: each request answered, at its answer */
	s[1] = (struct np_series){ .name = "request → answer", .unit = "ms", .colour = 1 };
	cap = 0;
	for (size_t i = 0; i < d->nmsg; i++) {
		const struct np_msg *g = &d->msg[i];
		if (g->kind == XMSG_REQUEST && g->reply_t > g->t &&
		    push(&s[1], &cap, g->reply_t, (double)(g->reply_t - g->t) / 1e6) < 0)
			return -1;
	}
	/* answers come in request order mostly, not always: sorted by time */
	if (s[1].n) {
		struct { uint64_t t; double y; } *pair = malloc(s[1].n * sizeof *pair);
		if (!pair)
			return -1;
		for (size_t i = 0; i < s[1].n; i++) {
			pair[i].t = s[1].t[i];
			pair[i].y = s[1].y[i];
		}
		qsort(pair, s[1].n, sizeof *pair, cmp_sample);
		for (size_t i = 0; i < s[1].n; i++) {
			s[1].t[i] = pair[i].t;
			s[1].y[i] = pair[i].y;
		}
		free(pair);
	}
	return 2;
oom:
	rtt_free(&fl);
	return -1;
}

#define THRU_INTERVAL 10	/* tcptrace's default -T interval, in segments */

static int build_tput(const struct np_conn *c, const struct np_dir *d, struct np_series *s)
{
	size_t cap0 = 0, cap1 = 0, in = 0;
	uint64_t first = 0, bytes = 0, all = 0;
	s[0] = (struct np_series){ .name = "instantaneous", .unit = "bytes/s", .colour = 2 };
	s[1] = (struct np_series){ .name = "average", .unit = "bytes/s", .colour = 0,
				   .line = true };
	for (size_t i = 0; i < d->npkt; i++) {
		const struct np_pkt *p = &d->pkt[i];
		if (!p->len)
			continue;
		all += p->len;
		if (in == 0) {
			first = p->t;
			bytes = p->len;
			in = 1;
			continue;
		}
		in++;
		bytes += p->len;
		double et = (double)(p->t - first) / 1e9;
		if (!(et > 0))
			et = 1e-3;	/* as tcptrace: "no time" counts a millisecond */
		if (push(&s[0], &cap0, p->t, (double)bytes / et) < 0)
			return -1;
		double at = (double)(p->t - c->first) / 1e9;
		if (at > 0 && push(&s[1], &cap1, p->t, (double)all / at) < 0)
			return -1;
		if (in > THRU_INTERVAL) {
			first = p->t;
			bytes = p->len;
			in = 1;
		}
	}
	return 2;
}

static int build_owin(const struct np_dir *d, const struct np_dir *peer, struct np_series *s)
{
	size_t cap0 = 0, cap1 = 0, j = 0;
	int64_t high = INT64_MIN, ack = 0;
	bool have_ack = false;
	uint32_t win = 0;
	s[0] = (struct np_series){ .name = "outstanding", .unit = "bytes", .colour = 3,
				   .line = true };
	s[1] = (struct np_series){ .name = "advertised window", .unit = "bytes", .colour = 4,
				   .line = true, .no_scale = true };
	for (size_t i = 0; i < d->npkt; i++) {
		const struct np_pkt *p = &d->pkt[i];
		for (; j < peer->npkt && peer->pkt[j].t <= p->t; j++)
			if (peer->pkt[j].flags & XTCP_ACK) {
				ack = peer->pkt[j].ack;
				win = peer->pkt[j].win;
				have_ack = true;
			}
		uint32_t ext = extent(p);
		if (!ext)
			continue;
		int64_t end = p->seq + (int64_t)ext;
		if (end > high)
			high = end;
		double out = have_ack ? (double)(high - ack) : (double)(high - d->pkt[0].seq);
		if (push(&s[0], &cap0, p->t, out > 0 ? out : 0) < 0 ||
		    (have_ack && push(&s[1], &cap1, p->t, (double)win) < 0))
			return -1;
	}
	return 2;
}

static int build_ssize(const struct np_dir *d, struct np_series *s)
{
	size_t cap = 0;
	s[0] = (struct np_series){ .name = "segment size", .unit = "bytes", .colour = 5 };
	for (size_t i = 0; i < d->npkt; i++)
		if (d->pkt[i].len && push(&s[0], &cap, d->pkt[i].t, (double)d->pkt[i].len) < 0)
			return -1;
	return 1;
}

struct kind_count { uint32_t name, ext; size_t n; };

static int cmp_kind(const void *a, const void *b)
{
	const struct kind_count *x = a, *y = b;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return (x->name > y->name) - (x->name < y->name);
}

static int build_lanes(const struct np_dir *d, struct np_derived *dv)
{
	/* the kinds and their counts: a small open table keyed by name */
	size_t cap = 1024, nk = 0;
	struct kind_count *k = calloc(cap, sizeof *k);
	if (!k)
		return -1;
	for (size_t i = 0; i < d->nmsg; i++) {
		const struct np_msg *g = &d->msg[i];
		size_t h = (g->name * 2654435761u ^ g->ext) & (cap - 1);
		while (k[h].n && (k[h].name != g->name || k[h].ext != g->ext))
			h = (h + 1) & (cap - 1);
		if (!k[h].n) {
			if (++nk > cap / 2) {
				free(k);
				return -1;	/* more kinds than any protocol has */
			}
			k[h].name = g->name;
			k[h].ext = g->ext;
		}
		k[h].n++;
	}
	qsort(k, cap, sizeof *k, cmp_kind);
	dv->nlane = nk < NP_LANES_MAX ? nk : NP_LANES_MAX;
	for (size_t l = 0; l < dv->nlane; l++) {
		dv->lane[l] = (struct np_lane){ .name = k[l].name, .ext = k[l].ext };
		dv->lane[l].msg = malloc((k[l].n ? k[l].n : 1) * sizeof(uint32_t));
		if (!dv->lane[l].msg) {
			free(k);
			return -1;
		}
	}
	free(k);
	for (size_t i = 0; i < d->nmsg; i++)
		for (size_t l = 0; l < dv->nlane; l++)
			if (dv->lane[l].name == d->msg[i].name && dv->lane[l].ext == d->msg[i].ext) {
				dv->lane[l].msg[dv->lane[l].n++] = (uint32_t)i;
				break;
			}
	return 0;
}

static struct np_derived *derived(const struct np_conn *c, int dir)
{
	/* A cache beside the direction's arrays, filled on first use: the
	   model is otherwise read-only to the renderer. */
	struct np_dir *d = (struct np_dir *)&c->dir[dir];
	if (!d->derived)
		d->derived = calloc(1, sizeof *d->derived);
	return d->derived;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

const struct np_series *np_graph_series(const struct np_conn *c, int dir, int g, size_t *n)
{
	*n = 0;
	struct np_derived *dv = derived(c, dir);
	if (!dv || g <= NP_GRAPH_TSG || g >= NP_GRAPH_N || g == NP_GRAPH_LANES)
		return NULL;
	if (!dv->done[g]) {
		double t = now_ms();
		const struct np_dir *d = &c->dir[dir], *peer = &c->dir[!dir];
		struct np_series *s = dv->s[g];
		int k = g == NP_GRAPH_RTT ? build_rtt(d, peer, s) :
			g == NP_GRAPH_TPUT ? build_tput(c, d, s) :
			g == NP_GRAPH_OWIN ? build_owin(d, peer, s) : build_ssize(d, s);
		for (int i = 0; k > 0 && i < k; i++)
			if (pyramid(&s[i]) < 0)
				k = -1;
		if (k < 0) {
			for (int i = 0; i < NP_SERIES_MAX; i++)
				series_free(&s[i]);
			return NULL;
		}
		dv->ns[g] = (size_t)k;
		dv->done[g] = true;
		dv->build_ms[g] = now_ms() - t;
	}
	*n = dv->ns[g];
	return dv->s[g];
}

const struct np_lane *np_lanes(const struct np_conn *c, int dir, size_t *n)
{
	*n = 0;
	struct np_derived *dv = derived(c, dir);
	if (!dv)
		return NULL;
	if (!dv->done[NP_GRAPH_LANES]) {
		double t = now_ms();
		if (build_lanes(&c->dir[dir], dv) < 0) {
			for (size_t i = 0; i < dv->nlane; i++)
				free(dv->lane[i].msg);
			dv->nlane = 0;
			return NULL;
		}
		dv->done[NP_GRAPH_LANES] = true;
		dv->build_ms[NP_GRAPH_LANES] = now_ms() - t;
	}
	*n = dv->nlane;
	return dv->lane;
}

double np_graph_build_ms(const struct np_conn *c, int dir, int g)
{
	const struct np_derived *dv = c->dir[dir].derived;
	return dv && g >= 0 && g < NP_GRAPH_N ? dv->build_ms[g] : 0;
}
