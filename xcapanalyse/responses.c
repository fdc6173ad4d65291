/*
 * responses.c — the response model bound to the state model
 * (responses.h), and the summaries of its responses.
 *
 * Belongs to: libanalyse, the analysis layer's library, which netplot links too (xcapanalyse/).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "responses.h"

static bool state_where(void *ctx, uint32_t conn, bool *beside_server, uint64_t *rtt)
{
	const struct xstate_conn *sc = xstate_conn_find(ctx, conn);
	if (!sc)
		return false;
	*beside_server = sc->side == XSIDE_SERVER;
	*rtt = sc->rtt;
	return true;
}

static void state_wait(void *ctx, const struct xstate_wait *w)
{
	xresp_wait(ctx, w->conn, w->request_ts, w->end, w->start);
}

struct xresp_model *xresp_new(const struct xresp_options *opt, struct xstate_model *m,
			      xresp_emit_fn fn, void *ctx)
{
	struct xresp_where where = { m, state_where };
	struct xresp_model *r = xresp_model_new(opt, &where, fn, ctx);
	if (!r)
		return NULL;
	if (xstate_on_wait(m, state_wait, r) < 0) {
		xresp_free(r);
		return NULL;
	}
	return r;
}

/* ---- summaries ---- */

/* Buckets: 0.1 ms wide below 1 ms, then 1 % wide up to about 1000 s. */
enum { LIN_BUCKETS = 10, LOG_BUCKETS = 1400, BUCKETS = LIN_BUCKETS + LOG_BUCKETS };

struct xresp_summary {
	uint64_t count[BUCKETS];
	uint64_t max_in[BUCKETS];	/* the largest value that fell in each */
	struct xresp_stats st;
};

/* Lower edges of the 1 % buckets, from 1 ms: made once by multiplying
   (no libm for the library's users to link). */
static uint64_t log_edge[LOG_BUCKETS];

static void make_edges(void)
{
	if (log_edge[1])
		return;
	double e = 1e6;
	for (size_t i = 0; i < LOG_BUCKETS; i++, e *= 1.01)
		log_edge[i] = (uint64_t)e;
}

static size_t bucket_of(uint64_t ns)
{
	if (ns < 1000000)
		return (size_t)(ns / 100000);
	size_t lo = 0, hi = LOG_BUCKETS;	/* the last edge <= ns */
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (log_edge[mid] <= ns)
			lo = mid;
		else
			hi = mid;
	}
	return LIN_BUCKETS + lo;
}

struct xresp_summary *xresp_summary_new(void)
{
	make_edges();
	return calloc(1, sizeof(struct xresp_summary));
}

void xresp_summary_free(struct xresp_summary *s)
{
	free(s);
}

void xresp_summary_add(struct xresp_summary *s, const struct xresponse *r)
{
	struct xresp_stats *st = &s->st;
	if (!st->count || r->input_ts < st->first_ts)
		st->first_ts = r->input_ts;
	if (r->input_ts > st->last_ts)
		st->last_ts = r->input_ts;
	st->count++;
	st->bytes[0] += r->bytes[0];
	st->bytes[1] += r->bytes[1];
	st->pixels += r->pixels;
	if (r->flags & XRESP_F_CUT)
		st->cut++;
	/* A response the capture lost bytes of, or whose messages' framing
	   or numbers were a guess: its time is not a fact, so it is counted
	   here alone, not among the responses timed. */
	if (r->flags & XRESP_F_UNCERTAIN) {
		st->uncertain++;
		return;
	}
	if (r->flags & XRESP_F_NO_RESPONSE) {
		st->no_response++;
		return;
	}
	st->responded++;
	uint64_t v = r->response;
	if (v > 50000000)
		st->over50++;
	if (v > 100000000)
		st->over100++;
	if (v > 150000000)
		st->over150++;
	if (v > st->max)
		st->max = v;
	size_t b = bucket_of(v);
	s->count[b]++;
	if (v > s->max_in[b])
		s->max_in[b] = v;
}

/* The nearest-rank percentile p: the largest value of the bucket the
   rank falls in (exact when the bucket holds one value, else at most 1 %
   above). */
static uint64_t percentile(const struct xresp_summary *s, uint64_t n, unsigned p)
{
	if (!n)
		return 0;
	uint64_t rank = (p * n + 99) / 100;
	if (rank < 1)
		rank = 1;
	uint64_t seen = 0;
	for (size_t b = 0; b < BUCKETS; b++) {
		seen += s->count[b];
		if (seen >= rank)
			return s->max_in[b];
	}
	return s->st.max;
}

void xresp_summary_stats(const struct xresp_summary *s, struct xresp_stats *out)
{
	*out = s->st;
	out->p50 = percentile(s, s->st.responded, 50);
	out->p90 = percentile(s, s->st.responded, 90);
	out->p95 = percentile(s, s->st.responded, 95);
	out->p99 = percentile(s, s->st.responded, 99);
	uint64_t span = s->st.last_ts - s->st.first_ts;
	out->input_rate = span && s->st.count > 1 ? (double)(s->st.count - 1) / ((double)span / 1e9) : 0;
}
