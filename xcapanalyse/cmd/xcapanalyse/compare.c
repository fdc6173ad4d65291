/*
 * compare.c — several runs side by side (xcapanalyse --compare) and the
 * gate on them (--fail-if-worse).
 *
 * Every view is turned into rows of (view, row, metric) with one value
 * per run; a run that has no such row (a connection it never made) has
 * an empty cell, never a zero it did not measure.  Runs are matched row
 * by row: the All row with the All row, a connection with the
 * connection of the same client name and the same rank among that
 * name's connections (the second xterm with the second xterm), a
 * request name with the same name (a run that waited on none has a
 * count of 0: that was measured), an input kind with the same kind.
 * Inputs themselves are matched in order and by kind (see match_inputs).
 *
 * Belongs to: the xcapanalyse command's room (xcapanalyse/cmd/xcapanalyse/).
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "grow.h"
#include "responses.h"
#include "units.h"

/* ---- what a run keeps ---- */

struct cmp_totals {
	uint64_t time[2][XSTATE_N];
	uint64_t span, waits;
};

struct cmp_conn {
	char key[160];		/* name and rank: "xterm\0002" */
	char label[160];	/* for people: "xterm", "xterm #2" */
	struct cmp_totals t;
};

struct cmp_req {
	char ext[32], name[64];
	uint64_t count, total;
};

/* What matching needs of an input: a few bytes each (the summaries
   themselves are the response model's, in constant memory). */
struct cmp_input {
	uint64_t ts;
	uint64_t response;	/* ns */
	uint8_t kind;		/* enum xinput_kind */
	bool responded;		/* a visible response, not uncertain: its time counts */
};

struct compare_run {
	char *name;
	const struct xstate_model *m;
	struct xresp_model *resp;
	/* All inputs, and those of each kind. */
	struct xresp_summary *sum_all, *sum_kind[XINPUT_KIND_N];
	uint64_t kind_count[XINPUT_KIND_N];
	struct cmp_input *inputs;
	size_t ninputs, capinputs;
	struct cmp_totals all;
	struct cmp_conn *conns;
	size_t nconns;
	struct cmp_req *reqs;
	size_t nreqs, capreqs;
	uint64_t drops, gaps;
	bool worse;		/* the gate found it worse than the first run */
	int oom;
};

/* The Extension of a wait as the --requests view names it: "core" for
   X11's core requests, nothing for a protocol without extensions. */
static const char *ext_of(const struct xstate_wait *w)
{
	if (w->ext[0])
		return w->ext;
	return !w->proto || strcmp(w->proto, "x11") == 0 ? "core" : "";
}

static void run_wait(void *ctx, const struct xstate_wait *w)
{
	struct compare_run *r = ctx;
	const char *ext = ext_of(w);
	for (size_t i = 0; i < r->nreqs; i++)
		if (strcmp(r->reqs[i].name, w->name) == 0 && strcmp(r->reqs[i].ext, ext) == 0) {
			r->reqs[i].count++;
			r->reqs[i].total += w->end - w->start;
			return;
		}
	if (GROW(r->reqs, r->capreqs, r->nreqs + 1) < 0) {
		r->oom = 1;
		return;
	}
	struct cmp_req *q = &r->reqs[r->nreqs++];
	memset(q, 0, sizeof *q);
	snprintf(q->ext, sizeof q->ext, "%s", ext);
	snprintf(q->name, sizeof q->name, "%s", w->name);
	q->count = 1;
	q->total = w->end - w->start;
}

static void run_response(void *ctx, const struct xresponse *x)
{
	struct compare_run *r = ctx;
	/* --range: an input counts when it falls inside, as in --responses. */
	if (!xstate_in_range(r->m, x->input_ts))
		return;
	xresp_summary_add(r->sum_all, x);
	if (x->kind < XINPUT_KIND_N) {
		xresp_summary_add(r->sum_kind[x->kind], x);
		r->kind_count[x->kind]++;
	}
	if (GROW(r->inputs, r->capinputs, r->ninputs + 1) < 0) {
		r->oom = 1;
		return;
	}
	r->inputs[r->ninputs++] = (struct cmp_input){
		.ts = x->input_ts, .response = x->response, .kind = (uint8_t)x->kind,
		.responded = !(x->flags & (XRESP_F_NO_RESPONSE | XRESP_F_UNCERTAIN)),
	};
}

struct compare_run *compare_run_new(const char *name, struct xstate_model *m,
				    const struct xresp_options *ropt)
{
	struct compare_run *r = calloc(1, sizeof *r);
	if (!r || !(r->name = strdup(name)) || xstate_on_wait(m, run_wait, r) < 0 ||
	    !(r->sum_all = xresp_summary_new()))
		goto fail;
	for (int k = 0; k < XINPUT_KIND_N; k++)
		if (!(r->sum_kind[k] = xresp_summary_new()))
			goto fail;
	r->m = m;
	if (!(r->resp = xresp_new(ropt, m, run_response, r)))
		goto fail;
	return r;
fail:
	compare_run_free(r);
	return NULL;
}

int compare_run_record(struct compare_run *r, const struct xrec *rec)
{
	if (xresp_record(r->resp, rec) < 0)
		return -1;
	return r->oom ? -1 : 0;
}

static int by_input_ts(const void *a, const void *b)
{
	const struct cmp_input *x = a, *y = b;
	return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static void totals_of(struct cmp_totals *t, const struct xstate_conn *c)
{
	memcpy(t->time, c->time, sizeof t->time);
	t->span = c->span;
	t->waits = c->waits;
}

int compare_run_finish(struct compare_run *r, const struct xstate_model *m)
{
	xresp_finish(r->resp);
	/* Responses close in their own order, per connection: inputs are
	   matched in the order they were made. */
	if (r->ninputs)
		qsort(r->inputs, r->ninputs, sizeof *r->inputs, by_input_ts);
	size_t n = xstate_conn_count(m);
	totals_of(&r->all, xstate_all(m));
	r->drops = xstate_capture_drops(m);
	if (n && !(r->conns = calloc(n, sizeof *r->conns)))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct xstate_conn *c = xstate_conn_at(m, i);
		struct cmp_conn *k = &r->conns[i];
		const char *name = c->name[0] ? c->name : "(unnamed)";
		unsigned rank = 1;
		for (size_t j = 0; j < i; j++)
			if (strcmp(r->conns[j].key, name) == 0)
				rank++;
		/* The key is the name, a NUL, and the rank: compared as bytes. */
		size_t len = strlen(name);
		if (len > 100)
			len = 100;
		memcpy(k->key, name, len);
		snprintf(k->key + len + 1, sizeof k->key - len - 1, "%u", rank);
		if (rank > 1)
			snprintf(k->label, sizeof k->label, "%.*s #%u", (int)len, name, rank);
		else
			snprintf(k->label, sizeof k->label, "%.*s", (int)len, name);
		totals_of(&k->t, c);
		r->gaps += c->gaps;
	}
	r->nconns = n;
	return r->oom ? -1 : 0;
}

bool compare_run_worse(const struct compare_run *r)
{
	return r->worse;
}

const char *compare_run_name(const struct compare_run *r)
{
	return r->name;
}

void compare_run_free(struct compare_run *r)
{
	if (!r)
		return;
	free(r->name);
	xresp_free(r->resp);
	xresp_summary_free(r->sum_all);
	for (int k = 0; k < XINPUT_KIND_N; k++)
		xresp_summary_free(r->sum_kind[k]);
	free(r->inputs);
	free(r->conns);
	free(r->reqs);
	free(r);
}

static bool same_key(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	return la == lb && memcmp(a, b, la) == 0 && strcmp(a + la + 1, b + lb + 1) == 0;
}

/* ---- metrics and rows ---- */

enum unit { U_SECONDS, U_COUNT, U_FRACTION, U_RATE };

struct metric {
	const char *name;	/* CSV/JSON */
	const char *title;	/* people */
	enum unit unit;
};

enum {
	M_IDLE, M_BLOCK_SEND, M_BLOCK_RECV, M_BLOCK_REPLY, M_NETWORK_DELAY, M_SPAN, M_ROUND_TRIPS,
	M_COUNT, M_WAIT,
	M_INPUTS, M_RESPONDED, M_P50, M_P90, M_P95, M_P99, M_OVER50, M_OVER100, M_OVER150, M_RATE,
	M_MATCHED, M_UNMATCHED_HERE, M_UNMATCHED_A, M_SHIFT_P50, M_SHIFT_P95,
	M_N
};

static const struct metric metrics[M_N] = {
	[M_IDLE] = { "idle", "Idle", U_SECONDS },
	[M_BLOCK_SEND] = { "block_send", "Block Send", U_SECONDS },
	[M_BLOCK_RECV] = { "block_recv", "Block Recv", U_SECONDS },
	[M_BLOCK_REPLY] = { "block_reply", "Block Reply", U_SECONDS },
	[M_NETWORK_DELAY] = { "network_delay", "Net Delay", U_SECONDS },
	[M_SPAN] = { "span", "Span", U_SECONDS },
	[M_ROUND_TRIPS] = { "round_trips", "Round Trips", U_COUNT },
	[M_COUNT] = { "count", "Count", U_COUNT },
	[M_WAIT] = { "wait", "Total Wait", U_SECONDS },
	[M_INPUTS] = { "inputs", "Inputs", U_COUNT },
	[M_RESPONDED] = { "responded", "Responded", U_COUNT },
	[M_P50] = { "p50", "p50", U_SECONDS },
	[M_P90] = { "p90", "p90", U_SECONDS },
	[M_P95] = { "p95", "p95", U_SECONDS },
	[M_P99] = { "p99", "p99", U_SECONDS },
	[M_OVER50] = { "over_50ms", "Over 50 ms", U_FRACTION },
	[M_OVER100] = { "over_100ms", "Over 100 ms", U_FRACTION },
	[M_OVER150] = { "over_150ms", "Over 150 ms", U_FRACTION },
	[M_RATE] = { "input_rate", "Inputs/s", U_RATE },
	[M_MATCHED] = { "matched", "Matched", U_COUNT },
	[M_UNMATCHED_HERE] = { "unmatched_here", "Only here", U_COUNT },
	[M_UNMATCHED_A] = { "unmatched_in_a", "Only in A", U_COUNT },
	[M_SHIFT_P50] = { "shift_p50", "Shift p50", U_SECONDS },
	[M_SHIFT_P95] = { "shift_p95", "Shift p95", U_SECONDS },
};

enum view { V_DELAYS, V_REQUESTS, V_RESPONSES, V_MATCHING, V_N };
static const char *const view_names[V_N] = { "delays", "requests", "responses", "matching" };
static const char *const view_titles[V_N] = {
	"Delays (both directions)", "Round trips by request", "Response times",
	"Inputs matched with A's (in order, by kind)",
};

struct row {
	enum view view;
	char label[160];
	int metric;
	double v[COMPARE_RUNS_MAX];
	bool have[COMPARE_RUNS_MAX];
};

struct rows {
	struct row *r;
	size_t n, cap;
	size_t nruns;
	int oom;
};

static struct row *add_row(struct rows *rs, enum view view, const char *label, int metric)
{
	if (GROW(rs->r, rs->cap, rs->n + 1) < 0) {
		rs->oom = 1;
		return NULL;
	}
	struct row *r = &rs->r[rs->n++];
	memset(r, 0, sizeof *r);
	r->view = view;
	snprintf(r->label, sizeof r->label, "%s", label);
	r->metric = metric;
	return r;
}

static void set(struct row *r, size_t run, double v)
{
	if (r) {
		r->v[run] = v;
		r->have[run] = true;
	}
}

static const int delay_metrics[] = {
	M_NETWORK_DELAY, M_BLOCK_REPLY, M_BLOCK_SEND, M_BLOCK_RECV, M_IDLE, M_SPAN, M_ROUND_TRIPS,
};

/* The delay rows of one row label; t[k] NULL where run k lacks it.  Both
   directions together, as the delay table's "total" row. */
static void delay_rows(struct rows *rs, const char *label, const struct cmp_totals *const *t)
{
	for (size_t mi = 0; mi < sizeof delay_metrics / sizeof delay_metrics[0]; mi++) {
		int m = delay_metrics[mi];
		struct row *r = add_row(rs, V_DELAYS, label, m);
		if (!r)
			return;
		for (size_t k = 0; k < rs->nruns; k++) {
			if (!t[k])
				continue;
			const struct cmp_totals *c = t[k];
			uint64_t send = c->time[0][XSTATE_BLOCK_SEND] + c->time[1][XSTATE_BLOCK_SEND];
			uint64_t recv = c->time[0][XSTATE_BLOCK_RECV] + c->time[1][XSTATE_BLOCK_RECV];
			uint64_t reply = c->time[0][XSTATE_BLOCK_REPLY];
			uint64_t busy = send + recv + reply;
			double v = 0;
			switch (m) {
			case M_NETWORK_DELAY: v = (double)busy; break;
			case M_BLOCK_REPLY: v = (double)reply; break;
			case M_BLOCK_SEND: v = (double)send; break;
			case M_BLOCK_RECV: v = (double)recv; break;
			case M_IDLE: v = c->span > busy ? (double)(c->span - busy) : 0; break;
			case M_SPAN: v = (double)c->span; break;
			case M_ROUND_TRIPS: v = (double)c->waits; break;
			}
			set(r, k, v);
		}
	}
}

static void build_delays(struct rows *rs, struct compare_run *const *runs)
{
	const struct cmp_totals *t[COMPARE_RUNS_MAX];
	for (size_t k = 0; k < rs->nruns; k++)
		t[k] = &runs[k]->all;
	delay_rows(rs, "all", t);
	/* Connections in the order the runs first show them. */
	for (size_t k = 0; k < rs->nruns; k++)
		for (size_t i = 0; i < runs[k]->nconns; i++) {
			const struct cmp_conn *c = &runs[k]->conns[i];
			bool seen = false;
			for (size_t e = 0; e < k && !seen; e++)
				for (size_t j = 0; j < runs[e]->nconns && !seen; j++)
					seen = same_key(runs[e]->conns[j].key, c->key);
			if (seen)
				continue;
			for (size_t e = 0; e < rs->nruns; e++) {
				t[e] = NULL;
				for (size_t j = 0; j < runs[e]->nconns; j++)
					if (same_key(runs[e]->conns[j].key, c->key)) {
						t[e] = &runs[e]->conns[j].t;
						break;
					}
			}
			delay_rows(rs, c->label, t);
		}
}

struct req_key {
	char label[100];
	double order;		/* the first run's total wait, then the others' */
	size_t first_run;
};

static int by_order(const void *a, const void *b)
{
	const struct req_key *x = a, *y = b;
	if (x->first_run != y->first_run)
		return x->first_run < y->first_run ? -1 : 1;
	if (x->order != y->order)
		return x->order > y->order ? -1 : 1;
	return strcmp(x->label, y->label);
}

static void req_label(char *buf, size_t size, const struct cmp_req *q)
{
	snprintf(buf, size, "%s%s%s", q->ext, q->ext[0] ? ":" : "", q->name);
}

static const struct cmp_req *find_req(const struct compare_run *r, const char *label)
{
	char l[100];
	for (size_t i = 0; i < r->nreqs; i++) {
		req_label(l, sizeof l, &r->reqs[i]);
		if (strcmp(l, label) == 0)
			return &r->reqs[i];
	}
	return NULL;
}

static void build_requests(struct rows *rs, struct compare_run *const *runs)
{
	struct req_key *keys = NULL;
	size_t n = 0, cap = 0;
	for (size_t k = 0; k < rs->nruns; k++)
		for (size_t i = 0; i < runs[k]->nreqs; i++) {
			char l[100];
			req_label(l, sizeof l, &runs[k]->reqs[i]);
			bool seen = false;
			for (size_t j = 0; j < n && !seen; j++)
				seen = strcmp(keys[j].label, l) == 0;
			if (seen)
				continue;
			if (GROW(keys, cap, n + 1) < 0) {
				rs->oom = 1;
				free(keys);
				return;
			}
			snprintf(keys[n].label, sizeof keys[n].label, "%s", l);
			keys[n].order = (double)runs[k]->reqs[i].total;
			keys[n].first_run = k;
			n++;
		}
	qsort(keys, n, sizeof *keys, by_order);
	for (size_t i = 0; i < n; i++) {
		/* Add both before taking their addresses: adding moves the rows. */
		if (!add_row(rs, V_REQUESTS, keys[i].label, M_COUNT) ||
		    !add_row(rs, V_REQUESTS, keys[i].label, M_WAIT))
			break;
		struct row *c = &rs->r[rs->n - 2], *w = &rs->r[rs->n - 1];
		for (size_t k = 0; k < rs->nruns; k++) {
			/* A run that never waited on it waited on it 0 times. */
			const struct cmp_req *q = find_req(runs[k], keys[i].label);
			set(c, k, q ? (double)q->count : 0);
			set(w, k, q ? (double)q->total : 0);
		}
	}
	free(keys);
}

/* ---- responses ---- */

static bool any_inputs(struct compare_run *const *runs, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (runs[k]->ninputs)
			return true;
	return false;
}

static void response_rows(struct rows *rs, const char *label, struct xresp_summary *const *sum,
			  bool rate)
{
	static const int ms[] = { M_INPUTS, M_RESPONDED, M_P50, M_P90, M_P95, M_P99, M_OVER50,
				  M_OVER100, M_OVER150, M_RATE };
	struct xresp_stats st[COMPARE_RUNS_MAX];
	for (size_t k = 0; k < rs->nruns; k++)
		xresp_summary_stats(sum[k], &st[k]);
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
		if (ms[i] == M_RATE && !rate)
			continue;
		struct row *r = add_row(rs, V_RESPONSES, label, ms[i]);
		if (!r)
			return;
		for (size_t k = 0; k < rs->nruns; k++) {
			const struct xresp_stats *t = &st[k];
			double resp = (double)t->responded;
			/* Times and shares are of the inputs that had a response:
			   none, none to show. */
			switch (ms[i]) {
			case M_INPUTS: set(r, k, (double)t->count); break;
			case M_RESPONDED: set(r, k, resp); break;
			case M_P50: if (resp) set(r, k, (double)t->p50); break;
			case M_P90: if (resp) set(r, k, (double)t->p90); break;
			case M_P95: if (resp) set(r, k, (double)t->p95); break;
			case M_P99: if (resp) set(r, k, (double)t->p99); break;
			case M_OVER50: if (resp) set(r, k, (double)t->over50 / resp); break;
			case M_OVER100: if (resp) set(r, k, (double)t->over100 / resp); break;
			case M_OVER150: if (resp) set(r, k, (double)t->over150 / resp); break;
			case M_RATE: if (t->count > 1) set(r, k, t->input_rate); break;
			}
		}
	}
}

static void build_responses(struct rows *rs, struct compare_run *const *runs)
{
	struct xresp_summary *sum[COMPARE_RUNS_MAX];
	for (size_t k = 0; k < rs->nruns; k++)
		sum[k] = runs[k]->sum_all;
	response_rows(rs, "all", sum, true);
	for (int kind = 0; kind < XINPUT_KIND_N; kind++) {
		bool seen = false;
		for (size_t k = 0; k < rs->nruns; k++) {
			seen |= runs[k]->kind_count[kind] > 0;
			sum[k] = runs[k]->sum_kind[kind];
		}
		if (seen)
			response_rows(rs, xinput_kind_name((enum xinput_kind)kind), sum, false);
	}
}

/* How far ahead matching looks for the kind it needs: an input one run
   has and the other lacks (a click lost at a slow link, a key repeat)
   is passed over when the two runs agree again within this many. */
enum { MATCH_LOOKAHEAD = 16 };

struct match {
	size_t matched, only_b, only_a;
	double *shift;		/* b - a of pairs where both responded, ns */
	size_t nshift;
};

/* Inputs of a and b matched in order and by kind: equal kinds pair;
   otherwise the shorter skip (in either run) to the next agreeing kind
   within MATCH_LOOKAHEAD, or both are passed over when there is none. */
static int match_inputs(const struct compare_run *a, const struct compare_run *b, struct match *m)
{
	memset(m, 0, sizeof *m);
	size_t na = a->ninputs, nb = b->ninputs, i = 0, j = 0;
	size_t cap = na < nb ? na : nb;
	if (cap && !(m->shift = malloc(cap * sizeof *m->shift)))
		return -1;
	while (i < na && j < nb) {
		if (a->inputs[i].kind == b->inputs[j].kind) {
			const struct cmp_input *x = &a->inputs[i], *y = &b->inputs[j];
			if (x->responded && y->responded)
				m->shift[m->nshift++] = (double)y->response - (double)x->response;
			m->matched++;
			i++;
			j++;
			continue;
		}
		size_t skip_a = 0, skip_b = 0;
		for (size_t d = 1; d <= MATCH_LOOKAHEAD && !skip_a && !skip_b; d++) {
			if (i + d < na && a->inputs[i + d].kind == b->inputs[j].kind)
				skip_a = d;
			else if (j + d < nb && a->inputs[i].kind == b->inputs[j + d].kind)
				skip_b = d;
		}
		if (skip_a) {
			i += skip_a;
			m->only_a += skip_a;
		} else if (skip_b) {
			j += skip_b;
			m->only_b += skip_b;
		} else {
			i++;
			j++;
			m->only_a++;
			m->only_b++;
		}
	}
	m->only_a += na - i;
	m->only_b += nb - j;
	return 0;
}

static int by_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

static double nearest_rank(const double *v, size_t n, double p)
{
	size_t k = (size_t)ceil(p / 100 * (double)n);
	return v[k ? k - 1 : 0];
}

static void build_matching(struct rows *rs, struct compare_run *const *runs)
{
	static const int ms[] = { M_MATCHED, M_UNMATCHED_HERE, M_UNMATCHED_A, M_SHIFT_P50, M_SHIFT_P95 };
	size_t first = rs->n;
	for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++)
		if (!add_row(rs, V_MATCHING, "inputs", ms[i]))
			return;
	struct row *r = &rs->r[first];
	/* A with itself: every input matched, nothing shifted. */
	set(&r[0], 0, (double)runs[0]->ninputs);
	set(&r[1], 0, 0);
	set(&r[2], 0, 0);
	set(&r[3], 0, 0);
	set(&r[4], 0, 0);
	for (size_t k = 1; k < rs->nruns; k++) {
		struct match m;
		if (match_inputs(runs[0], runs[k], &m) < 0) {
			rs->oom = 1;
			return;
		}
		set(&r[0], k, (double)m.matched);
		set(&r[1], k, (double)m.only_b);
		set(&r[2], k, (double)m.only_a);
		if (m.nshift) {
			qsort(m.shift, m.nshift, sizeof *m.shift, by_double);
			set(&r[3], k, nearest_rank(m.shift, m.nshift, 50));
			set(&r[4], k, nearest_rank(m.shift, m.nshift, 95));
		}
		free(m.shift);
	}
}

/* ---- printing ---- */

/* A value in its unit, by the one rule of output.h: a duration in ms for
   people and seconds for programs (from ns), a count, a share in percent
   for people and a fraction for programs. */
static void fmt_value(char *buf, size_t size, enum unit u, double v, bool people, bool sign)
{
	/* JSON numbers take no plus sign: only people get one. */
	const char *s = sign && people && v > 0 ? "+" : "";
	switch (u) {
	case U_SECONDS:
		if (people)
			snprintf(buf, size, "%s%.3f", s, v / 1e6);
		else
			snprintf(buf, size, "%s%.9f", s, v / 1e9);
		break;
	case U_COUNT:
		snprintf(buf, size, "%s%.0f", s, v);
		break;
	case U_FRACTION:
		if (people)
			snprintf(buf, size, "%s%.1f", s, v * 100);
		else
			snprintf(buf, size, "%s%.6f", s, v);
		break;
	case U_RATE:
		snprintf(buf, size, "%s%.*f", s, people ? 2 : 6, v);
		break;
	}
}

struct table_shape {
	struct out_column cols[3 + 3 * COMPARE_RUNS_MAX];
	char names[3 * COMPARE_RUNS_MAX][24], titles[3 * COMPARE_RUNS_MAX][8];
	size_t ncols;
	bool with_view;
};

/* View (programs only), Row, Metric, A, then B, B-A, B/A for each
   further run. */
static void shape(struct table_shape *s, size_t nruns, bool programs)
{
	size_t c = 0, x = 0;
	s->with_view = programs;
	if (programs)
		s->cols[c++] = (struct out_column){ "view", "View", OUT_COL_STR, -9, 0 };
	s->cols[c++] = (struct out_column){ "row", "Row", OUT_COL_STR, -24, 0 };
	s->cols[c++] = (struct out_column){ "metric", "Metric", OUT_COL_STR, -12, 0 };
	for (size_t k = 0; k < nruns; k++) {
		char L = (char)('A' + k), l = (char)('a' + k);
		snprintf(s->names[x], sizeof s->names[x], "%c", l);
		snprintf(s->titles[x], sizeof s->titles[x], "%c", L);
		s->cols[c++] = (struct out_column){ s->names[x], s->titles[x], OUT_COL_NUMBER, 12, 0 };
		x++;
		if (k == 0)
			continue;
		snprintf(s->names[x], sizeof s->names[x], "%c_minus_a", l);
		snprintf(s->titles[x], sizeof s->titles[x], "%c-A", L);
		s->cols[c++] = (struct out_column){ s->names[x], s->titles[x], OUT_COL_NUMBER, 12, 0 };
		x++;
		snprintf(s->names[x], sizeof s->names[x], "%c_over_a", l);
		snprintf(s->titles[x], sizeof s->titles[x], "%c/A", L);
		s->cols[c++] = (struct out_column){ s->names[x], s->titles[x], OUT_COL_NUMBER, 7, 0 };
		x++;
	}
	s->ncols = c;
}

static void print_row(struct out_table *t, const struct table_shape *s, const struct row *r,
		      size_t nruns, bool people)
{
	char bufs[3 * COMPARE_RUNS_MAX][32];
	struct out_cell cells[3 + 3 * COMPARE_RUNS_MAX];
	const struct metric *m = &metrics[r->metric];
	size_t c = 0, x = 0;
	memset(cells, 0, sizeof cells);
	if (s->with_view)
		cells[c++].s = view_names[r->view];
	cells[c++].s = r->label;
	/* People's metric says its unit, as a column's title would. */
	char title[64];
	snprintf(title, sizeof title, "%s%s", m->title,
		 m->unit == U_SECONDS ? " ms" : m->unit == U_FRACTION ? " %" : "");
	cells[c++].s = people ? title : m->name;
	for (size_t k = 0; k < nruns; k++) {
		bufs[x][0] = '\0';
		if (r->have[k])
			fmt_value(bufs[x], sizeof bufs[x], m->unit, r->v[k], people, false);
		cells[c++].s = bufs[x++];
		if (k == 0)
			continue;
		bool both = r->have[0] && r->have[k];
		bufs[x][0] = '\0';
		if (both)
			fmt_value(bufs[x], sizeof bufs[x], m->unit, r->v[k] - r->v[0], people, true);
		cells[c++].s = bufs[x++];
		bufs[x][0] = '\0';
		/* No ratio to nothing. */
		if (both && r->v[0] > 0)
			snprintf(bufs[x], sizeof bufs[x], "%.*f", people ? 2 : 6, r->v[k] / r->v[0]);
		cells[c++].s = bufs[x++];
	}
	out_table_row(t, cells);
}

/* ---- the gate ---- */

struct gate_metric {
	const char *name;	/* on the command line */
	enum view view;
	const char *row;
	int metric;
	bool by_default;
};

static const struct gate_metric gate_metrics[] = {
	{ "network-delay", V_DELAYS, "all", M_NETWORK_DELAY, true },
	{ "block-reply", V_DELAYS, "all", M_BLOCK_REPLY, true },
	{ "block-send", V_DELAYS, "all", M_BLOCK_SEND, false },
	{ "block-recv", V_DELAYS, "all", M_BLOCK_RECV, false },
	{ "span", V_DELAYS, "all", M_SPAN, false },
	{ "round-trips", V_DELAYS, "all", M_ROUND_TRIPS, false },
	{ "response-p50", V_RESPONSES, "all", M_P50, true },
	{ "response-p90", V_RESPONSES, "all", M_P90, false },
	{ "response-p95", V_RESPONSES, "all", M_P95, true },
	{ "response-p99", V_RESPONSES, "all", M_P99, false },
	{ "over-100ms", V_RESPONSES, "all", M_OVER100, false },
};
enum { N_GATE_METRICS = sizeof gate_metrics / sizeof gate_metrics[0] };

const char *compare_gate_metric_names(void)
{
	static char names[256];
	if (!names[0]) {
		size_t len = 0;
		for (size_t i = 0; i < N_GATE_METRICS && len < sizeof names; i++)
			len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", i ? ", " : "",
						gate_metrics[i].name);
	}
	return names;
}

/* One term of a limit: "10%", "5ms", "0.2s", "3".  Slack in ns for
   times. */
static int parse_term(const char *s, size_t len, struct compare_gate *g, char *err, size_t errlen)
{
	char buf[64], *end;
	if (len == 0 || len >= sizeof buf) {
		snprintf(err, errlen, "bad limit, want P%%, Nms, Ns or N: '%.*s'", (int)len, s);
		return -1;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	double v = strtod(buf, &end);
	if (end == buf || !(v >= 0) || v > 1e12) {
		snprintf(err, errlen, "bad limit, want P%%, Nms, Ns or N: '%s'", buf);
		return -1;
	}
	if (strcmp(end, "%") == 0) {
		if (g->have_percent)
			goto twice;
		g->percent = v;
		g->have_percent = true;
		return 0;
	}
	if (g->have_slack)
		goto twice;
	g->have_slack = true;
	uint64_t ns;	/* a time: a duration of units.h, which needs its unit here */
	if (!*end)
		g->slack = v;
	else if (units_duration(buf, 0, &ns) == 0)
		g->slack = (double)ns;
	else {
		snprintf(err, errlen, "bad limit, want P%%, Nms, Ns or N: '%s'", buf);
		return -1;
	}
	/* A time's slack says its unit; a count's or a share's has none. */
	if ((metrics[gate_metrics[g->metric].metric].unit == U_SECONDS) != (*end != '\0')) {
		snprintf(err, errlen, "%s is %s: '%s'", gate_metrics[g->metric].name,
			 *end ? "not a time, its slack has no unit" : "a time, its slack wants ms or s",
			 buf);
		return -1;
	}
	return 0;
twice:
	snprintf(err, errlen, "a limit has at most one percentage and one slack: '%s'", buf);
	return -1;
}

static int parse_limit(const char *lim, struct compare_gate *g, char *err, size_t errlen)
{
	const char *plus = strchr(lim, '+');
	g->have_percent = g->have_slack = false;
	g->percent = g->slack = 0;
	if (parse_term(lim, plus ? (size_t)(plus - lim) : strlen(lim), g, err, errlen) < 0)
		return -1;
	if (plus && parse_term(plus + 1, strlen(plus + 1), g, err, errlen) < 0)
		return -1;
	return 0;
}

int compare_gate_parse(const char *spec, struct compare_gate *g, size_t max, size_t *n_out,
		       char *err, size_t errlen)
{
	const char *eq = strchr(spec, '=');
	*n_out = 0;
	if (eq) {
		size_t len = (size_t)(eq - spec);
		for (size_t i = 0; i < N_GATE_METRICS; i++)
			if (strlen(gate_metrics[i].name) == len &&
			    strncmp(gate_metrics[i].name, spec, len) == 0) {
				if (!max) {
					snprintf(err, errlen, "too many thresholds: '%s'", spec);
					return -1;
				}
				g[0].metric = (int)i;
				g[0].implicit = false;
				if (parse_limit(eq + 1, &g[0], err, errlen) < 0)
					return -1;
				*n_out = 1;
				return 0;
			}
		snprintf(err, errlen, "unknown metric, want one of %s: '%.*s'",
			 compare_gate_metric_names(), (int)len, spec);
		return -1;
	}
	for (size_t i = 0; i < N_GATE_METRICS; i++) {
		if (!gate_metrics[i].by_default)
			continue;
		if (*n_out == max) {
			snprintf(err, errlen, "too many thresholds: '%s'", spec);
			return -1;
		}
		g[*n_out].metric = (int)i;
		g[*n_out].implicit = true;
		if (parse_limit(spec, &g[*n_out], err, errlen) < 0)
			return -1;
		(*n_out)++;
	}
	return 0;
}

static const struct row *find_row(const struct rows *rs, enum view view, const char *label,
				  int metric)
{
	for (size_t i = 0; i < rs->n; i++)
		if (rs->r[i].view == view && rs->r[i].metric == metric &&
		    strcmp(rs->r[i].label, label) == 0)
			return &rs->r[i];
	return NULL;
}

static const struct out_column gate_cols[] = {
	{ "metric", "Metric", OUT_COL_STR, -14, 0 },
	{ "run", "Run", OUT_COL_STR, -3, 0 },
	{ "a", "A", OUT_COL_NUMBER, 12, 0 },
	{ "value", "Value", OUT_COL_NUMBER, 12, 0 },
	{ "limit", "Limit", OUT_COL_NUMBER, 12, 0 },
	{ "verdict", "Verdict", OUT_COL_STR, -7, 0 },
};

/* Each threshold against each run but the first: worse when the value
   is over the limit; a value either run lacks cannot pass.  The
   verdicts go to t, or nowhere when NULL. */
static int gate_check(struct out_table *t, const struct rows *rs, struct compare_run *const *runs,
		      const struct compare_gate *gates, size_t n_gates, bool people)
{
	int broken = 0;
	for (size_t i = 0; i < n_gates; i++) {
		const struct gate_metric *gm = &gate_metrics[gates[i].metric];
		const struct row *r = find_row(rs, gm->view, gm->row, gm->metric);
		enum unit u = metrics[gm->metric].unit;
		/* The default thresholds on response times apply where A had
		   inputs that responded; asked for by name, they must. */
		if (gates[i].implicit && gm->view == V_RESPONSES && (!r || !r->have[0]))
			continue;
		for (size_t k = 1; k < rs->nruns; k++) {
			char run[2] = { (char)('A' + k), 0 }, a[32] = "", v[32] = "", l[32] = "";
			const char *verdict;
			if (!r || !r->have[0] || !r->have[k]) {
				verdict = "unknown";
				broken++;
				runs[k]->worse = true;
			} else {
				double limit = r->v[0] * (1 + (gates[i].have_percent ? gates[i].percent : 0) / 100) +
					       gates[i].slack;
				fmt_value(a, sizeof a, u, r->v[0], people, false);
				fmt_value(v, sizeof v, u, r->v[k], people, false);
				fmt_value(l, sizeof l, u, limit, people, false);
				verdict = r->v[k] > limit ? "worse" : "ok";
				if (r->v[k] > limit) {
					broken++;
					runs[k]->worse = true;
				}
			}
			struct out_cell cells[] = {
				{ .s = gm->name }, { .s = run }, { .s = a }, { .s = v }, { .s = l },
				{ .s = verdict },
			};
			if (t)
				out_table_row(t, cells);
		}
	}
	return broken;
}

/* ---- the whole comparison ---- */

static const struct out_column run_cols[] = {
	{ "run", "Run", OUT_COL_STR, -3, 0 },
	{ "file", "File", OUT_COL_STR, -40, 0 },
	{ "connections", "Conns", OUT_COL_UINT, 5, 0 },
	{ "round_trips", "Round Trips", OUT_COL_UINT, 11, 0 },
};
static const struct out_column ndjson_run_cols[] = {
	{ "run", "Run", OUT_COL_STR, -3, 0 },
	{ "connections", "Conns", OUT_COL_UINT, 5, 0 },
	{ "round_trips", "Round Trips", OUT_COL_UINT, 11, 0 },
};

int compare_print(FILE *out, enum out_format fmt, struct compare_run *const *runs, size_t n,
		  const struct compare_gate *gates, size_t n_gates)
{
	struct rows rs = { .nruns = n };
	bool people = out_for_people(fmt);
	build_delays(&rs, runs);
	build_requests(&rs, runs);
	bool inputs = any_inputs(runs, n);
	if (inputs) {
		build_responses(&rs, runs);
		build_matching(&rs, runs);
	}
	if (rs.oom) {
		free(rs.r);
		return -1;
	}
	static struct table_shape s;
	shape(&s, n, !people);
	struct out_table t;
	out_json_open(out, fmt);

	/* Which file is which letter. */
	char notes_text[COMPARE_RUNS_MAX * 3][320];
	const char *notes[COMPARE_RUNS_MAX * 3];
	size_t nn = 0;
	if (fmt == OUT_NDJSON) {
		/* Every NDJSON row begins with its file: here the run's own,
		   not a second "file" member. */
		out_table_begin(&t, out, fmt, ndjson_run_cols, sizeof ndjson_run_cols / sizeof ndjson_run_cols[0],
				"runs");
		for (size_t k = 0; k < n; k++) {
			char run[2] = { (char)('A' + k), 0 };
			struct out_cell cells[] = {
				{ .s = run }, { .u = runs[k]->nconns }, { .u = runs[k]->all.waits },
			};
			out_set_source(runs[k]->name, 1, 0);
			out_table_row(&t, cells);
		}
		out_set_source("", 1, 0);
		out_table_end(&t);
	} else if (!out_one_table(fmt)) {
		out_table_begin(&t, out, fmt, run_cols, sizeof run_cols / sizeof run_cols[0], "runs");
		for (size_t k = 0; k < n; k++) {
			char run[2] = { (char)('A' + k), 0 };
			struct out_cell cells[] = {
				{ .s = run }, { .s = runs[k]->name }, { .u = runs[k]->nconns },
				{ .u = runs[k]->all.waits },
			};
			out_table_row(&t, cells);
		}
		out_table_end(&t);
	} else {
		for (size_t k = 0; k < n; k++) {
			snprintf(notes_text[nn], sizeof notes_text[nn], "run %c is '%s'", 'A' + (int)k,
				 runs[k]->name);
			notes[nn] = notes_text[nn];
			nn++;
		}
	}

	if (people) {
		for (int v = 0; v < V_N; v++) {
			/* No inputs in any run: no response views, rather than
			   empty ones. */
			bool some = false;
			for (size_t i = 0; i < rs.n && !some; i++)
				some = rs.r[i].view == (enum view)v;
			if (!some && v >= V_RESPONSES)
				continue;
			out_heading(out, fmt, view_titles[v]);
			out_table_begin(&t, out, fmt, s.cols, s.ncols, view_names[v]);
			for (size_t i = 0; i < rs.n; i++)
				if (rs.r[i].view == (enum view)v)
					print_row(&t, &s, &rs.r[i], n, people);
			out_table_end(&t);
		}
	} else {
		out_table_begin(&t, out, fmt, s.cols, s.ncols, "rows");
		for (size_t i = 0; i < rs.n; i++)
			print_row(&t, &s, &rs.r[i], n, people);
		out_table_end(&t);
	}

	int broken = 0;
	if (n_gates && !out_one_table(fmt)) {
		out_heading(out, fmt, "Gate");
		out_table_begin(&t, out, fmt, gate_cols, sizeof gate_cols / sizeof gate_cols[0], "gate");
		broken = gate_check(&t, &rs, runs, gates, n_gates, people);
		out_table_end(&t);
		out_json_bool(out, fmt, "gate_passed", !broken);
	} else if (n_gates) {
		/* CSV stays one table: the verdicts go with the notes. */
		broken = gate_check(NULL, &rs, runs, gates, n_gates, people);
		if (nn < sizeof notes / sizeof notes[0]) {
			snprintf(notes_text[nn], sizeof notes_text[nn], "gate: %d thresholds broken%s",
				 broken, broken ? " (--format text shows which)" : "");
			notes[nn] = notes_text[nn];
			nn++;
		}
	}
	if (n_gates)
		out_sentence(out, fmt, "", "%s", broken ? "Gate: FAILED, a run is worse than A by more "
			     "than allowed" : "Gate: passed");

	for (size_t k = 0; k < n && nn + 1 < sizeof notes / sizeof notes[0]; k++) {
		if (runs[k]->drops) {
			snprintf(notes_text[nn], sizeof notes_text[nn],
				 "run %c: the capture lost %llu packets; its blocked and idle times "
				 "around them are uncertain", 'A' + (int)k, (unsigned long long)runs[k]->drops);
			notes[nn] = notes_text[nn];
			nn++;
		}
		if (runs[k]->gaps) {
			snprintf(notes_text[nn], sizeof notes_text[nn],
				 "run %c: %llu %s in the captured streams", 'A' + (int)k,
				 (unsigned long long)runs[k]->gaps, runs[k]->gaps == 1 ? "hole" : "holes");
			notes[nn] = notes_text[nn];
			nn++;
		}
	}
	out_notes(out, fmt, notes, nn, "xcapanalyse");
	out_json_close(out, fmt);
	free(rs.r);
	return broken;
}
