/*
 * predict_view.c — the tables of --predict and --added-delay
 * (predict_view.h).
 *
 * Belongs to: the xcapanalyse command's room (xcapanalyse/cmd/xcapanalyse/).
 */
#include "config.h"

#include "predict_view.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NCOLS(a) (sizeof (a) / sizeof (a)[0])

/* Bytes xcap-link (and so xcap-sweep) queues by default: 100 packets of
   1500 bytes. */
#define PREDICT_LINK_QUEUE 150000

static const struct out_column predict_cols[] = {
	{ "rate", "rate", OUT_COL_STR, -8, 0 },
	{ "rate_bps", "rate_bps", OUT_COL_UINT, 11, 0 },
	{ "delay_ms", "delay_ms", OUT_COL_STR, 9, 0 },
	{ "via", "via", OUT_COL_STR, -5, 0 },	/* raw, ssh-C */
	{ "span_s", "span_s", OUT_COL_TIME, 9, 3 },
	{ "total_network_delay_s", "net_delay_s", OUT_COL_TIME, 12, 6 },
	{ "block_send_s", "block_send_s", OUT_COL_TIME, 12, 6 },
	{ "block_reply_s", "block_reply_s", OUT_COL_TIME, 13, 6 },
	{ "round_trips", "trips", OUT_COL_UINT, 6, 0 },
	{ "relative", "relative", OUT_COL_STR, 9, 0 },
};

/* xcap-sweep's baseline: 10 Mbit/s and 0.1 ms when in the lists, else the
   highest rate and the shortest delay. */
static void baseline(const uint64_t *rates, size_t nr, const uint64_t *delays, size_t nd,
		     size_t *br, size_t *bd)
{
	size_t r = nr, d = nd;
	for (size_t i = 0; i < nr; i++)
		if (rates[i] == 10000000)
			r = i;
	for (size_t j = 0; j < nd; j++)
		if (delays[j] == 100000)
			d = j;
	if (r == nr || d == nd) {
		r = d = 0;
		for (size_t i = 1; i < nr; i++)
			if (rates[i] > rates[r])
				r = i;
		for (size_t j = 1; j < nd; j++)
			if (delays[j] < delays[d])
				d = j;
	}
	*br = r;
	*bd = d;
}

int predict_view_print(FILE *out, enum out_format fmt, const struct predict_trace *t,
		       const uint64_t *rates, size_t nrates, const uint64_t *delays, size_t ndelays)
{
	size_t n = nrates * ndelays;
	struct predict_result *res = calloc(n ? n : 1, sizeof *res);
	if (!res)
		return -1;
	struct predict_link *links = calloc(n ? n : 1, sizeof *links);
	if (!links) {
		free(res);
		return -1;
	}
	for (size_t i = 0; i < nrates; i++)
		for (size_t j = 0; j < ndelays; j++)
			links[i * ndelays + j] = (struct predict_link){ .rate = rates[i], .delay = delays[j] };
	int rc = predict_run_all(t, links, n, res, 0);
	free(links);
	if (rc < 0) {
		free(res);
		return -1;
	}
	size_t br, bd;
	baseline(rates, nrates, delays, ndelays, &br, &bd);
	uint64_t base = res[br * ndelays + bd].network_delay;
	char rel[32], rate[32], delay[32];

	out_json_open(out, fmt);
	struct out_table tab;
	out_table_begin(&tab, out, fmt, predict_cols, NCOLS(predict_cols), "prediction");
	for (size_t i = 0; i < nrates; i++)
		for (size_t j = 0; j < ndelays; j++) {
			const struct predict_result *r = &res[i * ndelays + j];
			predict_format_rate(rate, sizeof rate, rates[i]);
			snprintf(delay, sizeof delay, "%g", (double)delays[j] / 1e6);
			snprintf(rel, sizeof rel, "%.2f", base ? (double)r->network_delay / (double)base : 0);
			struct out_cell cells[] = {
				{ .s = rate }, { .u = rates[i] }, { .s = delay }, { .s = predict_options_of(t)->ssh_compression ? "ssh-C" : "raw" },
				{ .ns = (int64_t)r->span }, { .ns = (int64_t)r->network_delay },
				{ .ns = (int64_t)r->block_send }, { .ns = (int64_t)r->block_reply },
				{ .u = r->waits }, { .s = rel, .empty = !base },
			};
			out_table_row(&tab, cells);
		}
	out_table_end(&tab);

	const struct predict_result *m = predict_measured(t);
	predict_format_rate(rate, sizeof rate, rates[br]);
	out_json_seconds(out, fmt, "trace_span", (int64_t)m->span);
	out_json_seconds(out, fmt, "trace_total_network_delay", (int64_t)m->network_delay);
	if (out_for_people(fmt)) {
		fprintf(out, "\n%sThe trace: %.3f s, network delay %.6f s, %llu round trips; "
			"relative: to the %s / %g ms cell.%s\n",
			fmt == OUT_MARKDOWN ? "*" : "", (double)m->span / 1e9,
			(double)m->network_delay / 1e9, (unsigned long long)m->waits, rate,
			(double)delays[bd] / 1e6, fmt == OUT_MARKDOWN ? "*" : "");
		if (nrates > 1 && ndelays > 1) {
			/* The paper's Figures 6 and 7: a rate per row, a delay per column. */
			bool md = fmt == OUT_MARKDOWN;
			fprintf(out, "\n%srelative total network delay, one-way delay (ms) across\n%s",
				md ? "" : "# ", md ? "\n| rate |" : "rate    ");
			for (size_t j = 0; j < ndelays; j++)
				fprintf(out, md ? " %g |" : " %9g", (double)delays[j] / 1e6);
			fprintf(out, "\n");
			if (md) {
				fprintf(out, "|---|");
				for (size_t j = 0; j < ndelays; j++)
					fprintf(out, "---:|");
				fprintf(out, "\n");
			}
			for (size_t i = 0; i < nrates; i++) {
				predict_format_rate(rate, sizeof rate, rates[i]);
				fprintf(out, md ? "| %s |" : "%-8s", rate);
				for (size_t j = 0; j < ndelays; j++) {
					uint64_t v = res[i * ndelays + j].network_delay;
					fprintf(out, md ? " %.2f |" : " %9.2f", base ? (double)v / (double)base : 0);
				}
				fprintf(out, "\n");
			}
		}
	}
	const char *notes[5] = {
		"predicted: the trace's dependencies replayed over a modelled link "
		"(xcapanalyse(1), PREDICTION: what the model leaves out)",
	};
	size_t nnotes = 1;
	/* The forwarding time is a figure of some machine, not of the trace:
	   say which was taken. */
	char snote[256];
	if (predict_options_of(t)->ssh_compression) {
		snprintf(snote, sizeof snote,
			 "through an ssh -X -C tunnel: each write at its compressed size in SSH "
			 "packets, and %.3f ms of ssh's and sshd's forwarding a round trip "
			 "(--ssh-forward-time; measure your machine's: xcapanalyse(1), "
			 "PREDICTION: ssh -C)",
			 (double)predict_options_of(t)->ssh_forward / 1e6);
		notes[nnotes++] = snote;
	}
	/* Waking, too, is the machine's: say when it was modelled. */
	char wnote[192];
	if (predict_options_of(t)->wake) {
		snprintf(wnote, sizeof wnote,
			 "a process that waited %.2f ms or more for the network wakes %.3f ms late "
			 "(--wake-time; xcapanalyse(1), PREDICTION: Waking)",
			 PREDICT_WAKE_AFTER / 1e6, (double)predict_options_of(t)->wake / 1e6);
		notes[nnotes++] = wnote;
	}
	/* waypipe's wait behind its acknowledgements is a race's
	   expectation: say how much of the prediction it is. */
	char wpnote[384];
	struct predict_result none;
	struct predict_link best = { n ? rates[(n - 1) / ndelays] : 0, n ? delays[(n - 1) % ndelays] : 0,
				     true, false };
	if (predict_options_of(t)->waypipe && n && res[n - 1].wp_held) {
		/* and the last link's best case, for a run to set its own
		   count against (the prediction is linear in it) */
		if (predict_run(t, &best, &none, NULL, NULL) < 0) {
			free(res);
			return -1;
		}
		predict_format_rate(rate, sizeof rate, rates[(n - 1) / ndelays]);
		snprintf(wpnote, sizeof wpnote,
			 "waypipe: %llu answers may wait behind its acknowledgement (Nagle's "
			 "algorithm on socat's TCP), a commit's always, another's half: %.1f ms at %s, %g ms; with "
			 "none held: span %.6f s, network delay %.6f s "
			 "(xcapanalyse(1), PREDICTION: waypipe)",
			 (unsigned long long)res[n - 1].wp_held, (double)res[n - 1].wp_wait / 1e6,
			 rate, (double)delays[(n - 1) % ndelays] / 1e6, (double)none.span / 1e9,
			 (double)none.network_delay / 1e9);
		notes[nnotes++] = wpnote;
	}
	/* The replay never drops; say where a real link's queue would have. */
	char qnote[256];
	size_t worst = 0;
	for (size_t k = 1; k < n; k++)
		if (res[k].max_queue > res[worst].max_queue)
			worst = k;
	if (n && res[worst].max_queue > PREDICT_LINK_QUEUE) {
		predict_format_rate(rate, sizeof rate, rates[worst / ndelays]);
		snprintf(qnote, sizeof qnote,
			 "up to %llu bytes queued at the link (%s, %g ms), more than xcap-link's "
			 "default %d: a link that drops there is slower than predicted",
			 (unsigned long long)res[worst].max_queue, rate,
			 (double)delays[worst % ndelays] / 1e6, PREDICT_LINK_QUEUE);
		notes[nnotes++] = qnote;
	}
	out_notes(out, fmt, notes, nnotes, "xcapanalyse");
	out_json_close(out, fmt);
	free(res);
	return 0;
}

static const struct out_column trip_cols[] = {
	{ "rate", "rate", OUT_COL_STR, -8, 0 },
	{ "delay_ms", "delay_ms", OUT_COL_STR, 9, 0 },
	{ "time", "Time", OUT_COL_TIME, 12, 6 },
	{ "conn", "Conn", OUT_COL_UINT, 5, 0 },
	{ "seq", "Seq", OUT_COL_UINT, 8, 0 },
	{ "extension", "Extension", OUT_COL_STR, -14, 0 },
	{ "request", "Request", OUT_COL_STR, -24, 0 },
	{ "wait", "Wait", OUT_COL_SECONDS, 10, 6 },
};

struct trips_ctx {
	struct out_table *tab;
	const char *rate, *delay;
	uint64_t t0;
};

static void trip_row(void *ctx, const struct xstate_wait *w)
{
	struct trips_ctx *c = ctx;
	struct out_cell cells[] = {
		{ .s = c->rate }, { .s = c->delay },
		{ .ns = (int64_t)(w->start - c->t0) }, { .u = w->conn }, { .u = w->seq },
		{ .s = w->ext[0] ? w->ext : (!w->proto || strcmp(w->proto, "x11") == 0 ? "core" : "") },
		{ .s = w->name }, { .ns = (int64_t)(w->end - w->start) },
	};
	out_table_row(c->tab, cells);
}

int predict_trips_print(FILE *out, enum out_format fmt, const struct predict_trace *t,
			const uint64_t *rates, size_t nrates, const uint64_t *delays, size_t ndelays)
{
	char rate[32], delay[32];
	struct out_table tab;
	out_json_open(out, fmt);
	out_table_begin(&tab, out, fmt, trip_cols, NCOLS(trip_cols), "predicted_round_trips");
	for (size_t i = 0; i < nrates; i++)
		for (size_t j = 0; j < ndelays; j++) {
			struct predict_link link = { .rate = rates[i], .delay = delays[j] };
			struct predict_result res;
			predict_format_rate(rate, sizeof rate, rates[i]);
			snprintf(delay, sizeof delay, "%g", (double)delays[j] / 1e6);
			struct trips_ctx c = { &tab, rate, delay, predict_first_ts(t) };
			if (predict_run(t, &link, &res, trip_row, &c) < 0)
				return -1;
		}
	out_table_end(&tab);
	out_json_close(out, fmt);
	return 0;
}

static const struct out_column added_cols[] = {
	{ "rate", "rate", OUT_COL_STR, -8, 0 },
	{ "rate_bps", "rate_bps", OUT_COL_UINT, 11, 0 },
	{ "of", "of", OUT_COL_STR, -9, 0 },	/* packets, responses */
	{ "count", "count", OUT_COL_UINT, 7, 0 },
	{ "delayed", "delayed", OUT_COL_UINT, 8, 0 },
	{ "mean_s", "mean_s", OUT_COL_TIME, 10, 6 },
	{ "p50_s", "p50_s", OUT_COL_TIME, 10, 6 },
	{ "p90_s", "p90_s", OUT_COL_TIME, 10, 6 },
	{ "p95_s", "p95_s", OUT_COL_TIME, 10, 6 },
	{ "p99_s", "p99_s", OUT_COL_TIME, 10, 6 },
	{ "max_s", "max_s", OUT_COL_TIME, 10, 6 },
	{ "share_le_1ms", "<=1ms", OUT_COL_STR, 7, 0 },
	{ "share_le_10ms", "<=10ms", OUT_COL_STR, 7, 0 },
	{ "share_le_100ms", "<=100ms", OUT_COL_STR, 7, 0 },
};

/* How many of sorted v are at most x. */
static size_t count_at(const int64_t *v, size_t n, int64_t x)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The CDF at x: the share of sorted v at most x, as a fraction. */
static void share_at(char *buf, size_t len, const int64_t *v, size_t n, int64_t x)
{
	snprintf(buf, len, "%.3f", n ? (double)count_at(v, n, x) / (double)n : 0.0);
}

static int i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

/* The nearest-rank percentile of sorted v. */
static int64_t percentile(const int64_t *v, size_t n, unsigned pct)
{
	if (!n)
		return 0;
	size_t rank = (n * pct + 99) / 100;
	return v[rank ? rank - 1 : 0];
}

/* One row of the distribution of sorted d[0..n-1]. */
static void added_row(struct out_table *tab, const char *rate, uint64_t rate_bps, const char *of,
		      const int64_t *d, size_t n)
{
	uint64_t delayed = 0;
	double sum = 0;
	for (size_t k = 0; k < n; k++) {
		/* Less than a microsecond is rounding, not delay. */
		delayed += d[k] >= 1000;
		sum += (double)d[k];
	}
	char le1[16], le10[16], le100[16];
	share_at(le1, sizeof le1, d, n, 1000000);
	share_at(le10, sizeof le10, d, n, 10000000);
	share_at(le100, sizeof le100, d, n, 100000000);
	struct out_cell cells[] = {
		{ .s = rate }, { .u = rate_bps }, { .s = of }, { .u = n }, { .u = delayed },
		{ .ns = n ? (int64_t)(sum / (double)n) : 0, .empty = !n },
		{ .ns = percentile(d, n, 50), .empty = !n }, { .ns = percentile(d, n, 90), .empty = !n },
		{ .ns = percentile(d, n, 95), .empty = !n }, { .ns = percentile(d, n, 99), .empty = !n },
		{ .ns = n ? d[n - 1] : 0, .empty = !n },
		{ .s = le1, .empty = !n }, { .s = le10, .empty = !n }, { .s = le100, .empty = !n },
	};
	out_table_row(tab, cells);
}

/* The replay at one rate: the packets' added delays and the responses'
   totals (the known ones), each sorted.  0, or -1. */
struct added_at {
	int64_t *pkt, *resp;
	size_t np, nresp;
	struct added_response *each;
};

static int added_at_new(struct added_at *x, const struct added_delay *a)
{
	size_t ni = added_delay_inputs(a);
	x->np = predict_packets(added_delay_trace(a));
	x->pkt = malloc((x->np ? x->np : 1) * sizeof *x->pkt);
	x->resp = malloc((ni ? ni : 1) * sizeof *x->resp);
	x->each = malloc((ni ? ni : 1) * sizeof *x->each);
	return x->pkt && x->resp && x->each ? 0 : -1;
}

static void added_at_free(struct added_at *x)
{
	free(x->pkt);
	free(x->resp);
	free(x->each);
}

static int added_at_run(struct added_at *x, const struct added_delay *a, uint64_t rate,
			uint64_t trace_rate)
{
	if (added_delay_run(a, rate, trace_rate, x->pkt, x->each) < 0)
		return -1;
	if (x->np > 1)
		qsort(x->pkt, x->np, sizeof *x->pkt, i64_cmp);
	x->nresp = 0;
	for (size_t i = 0; i < added_delay_inputs(a); i++)
		if (x->each[i].known)
			x->resp[x->nresp++] = x->each[i].total;
	if (x->nresp > 1)
		qsort(x->resp, x->nresp, sizeof *x->resp, i64_cmp);
	return 0;
}

/* What a reader needs to know of the per-response rows. */
static void added_notes(FILE *out, enum out_format fmt, const struct added_delay *a)
{
	char why[256];
	const char *notes[2] = {
		"responses: the added delay of the packet carrying the input to the program "
		"plus that of the packet carrying the response's end to the display, from "
		"the same open-loop replay (xcapanalyse(1), PREDICTION: SLIM's experiment)",
	};
	size_t nn = 1;
	size_t ni = added_delay_inputs(a), known = added_delay_responses(a);
	if (!ni)
		notes[nn++] = "no inputs in the trace: per packet only";
	else if (known < ni) {
		snprintf(why, sizeof why, "%zu of %zu inputs left out of the responses: no "
			 "visible response, or a packet of it not in the trace", ni - known, ni);
		notes[nn++] = why;
	}
	out_notes(out, fmt, notes, nn, "xcapanalyse");
}

/* One of the added-delay tables: for each rate, row_fn writes its rows
   from the replay at that rate; the notes follow the table. */
typedef int (*added_rows_fn)(struct out_table *tab, struct added_at *x, const struct added_delay *a,
			     const char *rate, uint64_t rate_bps, uint64_t trace_rate);

static int added_table_print(FILE *out, enum out_format fmt, const struct added_delay *a,
			     const uint64_t *rates, size_t nrates, uint64_t trace_rate,
			     const struct out_column *cols, size_t ncols, const char *name,
			     added_rows_fn row_fn)
{
	struct added_at x;
	if (added_at_new(&x, a) < 0) {
		added_at_free(&x);
		return -1;
	}
	char rate[32];
	out_json_open(out, fmt);
	struct out_table tab;
	out_table_begin(&tab, out, fmt, cols, ncols, name);
	for (size_t i = 0; i < nrates; i++) {
		predict_format_rate(rate, sizeof rate, rates[i]);
		if (row_fn(&tab, &x, a, rate, rates[i], trace_rate) < 0) {
			added_at_free(&x);
			return -1;
		}
	}
	out_table_end(&tab);
	added_notes(out, fmt, a);
	out_json_close(out, fmt);
	added_at_free(&x);
	return 0;
}

static int summary_rows(struct out_table *tab, struct added_at *x, const struct added_delay *a,
			const char *rate, uint64_t rate_bps, uint64_t trace_rate)
{
	if (added_at_run(x, a, rate_bps, trace_rate) < 0)
		return -1;
	added_row(tab, rate, rate_bps, "packets", x->pkt, x->np);
	added_row(tab, rate, rate_bps, "responses", x->resp, x->nresp);
	return 0;
}

int added_delay_view_print(FILE *out, enum out_format fmt, const struct added_delay *a,
			   const uint64_t *rates, size_t nrates, uint64_t trace_rate)
{
	return added_table_print(out, fmt, a, rates, nrates, trace_rate, added_cols,
				 NCOLS(added_cols), "added_delay", summary_rows);
}

static const struct out_column each_cols[] = {
	{ "rate", "rate", OUT_COL_STR, -8, 0 },
	{ "time", "Time", OUT_COL_TIME, 10, 4 },
	{ "conn", "Conn", OUT_COL_UINT, 5, 0 },
	{ "input", "Input", OUT_COL_UINT, 6, 0 },
	{ "kind", "Kind", OUT_COL_STR, -15, 0 },
	{ "what", "What", OUT_COL_STR, -22, 0 },
	{ "response_s", "Response", OUT_COL_SECONDS, 10, 6 },
	{ "input_added_s", "InAdded", OUT_COL_SECONDS, 10, 6 },
	{ "end_added_s", "EndAdded", OUT_COL_SECONDS, 10, 6 },
	{ "added_s", "Added", OUT_COL_SECONDS, 10, 6 },
	{ "on_link_s", "OnLink", OUT_COL_SECONDS, 10, 6 },
};

static int each_rows(struct out_table *tab, struct added_at *x, const struct added_delay *a,
		     const char *rate, uint64_t rate_bps, uint64_t trace_rate)
{
	if (added_delay_run(a, rate_bps, trace_rate, x->pkt, x->each) < 0)
		return -1;
	uint64_t t0 = added_delay_first_ts(a);
	for (size_t k = 0; k < added_delay_inputs(a); k++) {
		const struct added_input *in = added_delay_input(a, k);
		const struct added_response *e = &x->each[k];
		bool none = in->r.flags & XRESP_F_NO_RESPONSE;
		struct out_cell cells[] = {
			{ .s = rate },
			{ .ns = (int64_t)(in->r.input_ts - (in->r.input_ts >= t0 ? t0 : in->r.input_ts)) },
			{ .u = in->r.conn }, { .u = in->r.index },
			{ .s = xinput_kind_name(in->r.kind) },
			{ .s = in->r.what[0] ? in->r.what : "-" },
			{ .ns = (int64_t)in->r.response, .empty = none },
			{ .ns = e->input, .empty = !e->known },
			{ .ns = e->end, .empty = !e->known },
			{ .ns = e->total, .empty = !e->known },
			{ .ns = (int64_t)in->r.response + e->total, .empty = !e->known },
		};
		out_table_row(tab, cells);
	}
	return 0;
}

int added_delay_responses_print(FILE *out, enum out_format fmt, const struct added_delay *a,
				const uint64_t *rates, size_t nrates, uint64_t trace_rate)
{
	return added_table_print(out, fmt, a, rates, nrates, trace_rate, each_cols,
				 NCOLS(each_cols), "added_delay_responses", each_rows);
}

static const struct out_column cdf_cols[] = {
	{ "rate", "rate", OUT_COL_STR, -8, 0 },
	{ "rate_bps", "rate_bps", OUT_COL_UINT, 11, 0 },
	{ "of", "of", OUT_COL_STR, -9, 0 },
	{ "delay_s", "delay_s", OUT_COL_TIME, 10, 6 },
	{ "count", "count", OUT_COL_UINT, 8, 0 },
	{ "share", "share", OUT_COL_NUMBER, 8, 0 },
};

/* The steps of the CDF of sorted d: each distinct value, with how many
   are at or below it. */
static void cdf_rows(struct out_table *tab, const char *rate, uint64_t rate_bps, const char *of,
		     const int64_t *d, size_t n)
{
	char share[32];
	for (size_t k = 0; k < n; k++) {
		if (k + 1 < n && d[k + 1] == d[k])
			continue;
		snprintf(share, sizeof share, "%.6f", (double)(k + 1) / (double)n);
		struct out_cell cells[] = {
			{ .s = rate }, { .u = rate_bps }, { .s = of }, { .ns = d[k] }, { .u = k + 1 },
			{ .s = share },
		};
		out_table_row(tab, cells);
	}
}

static int cdf_table_rows(struct out_table *tab, struct added_at *x, const struct added_delay *a,
			  const char *rate, uint64_t rate_bps, uint64_t trace_rate)
{
	if (added_at_run(x, a, rate_bps, trace_rate) < 0)
		return -1;
	cdf_rows(tab, rate, rate_bps, "packets", x->pkt, x->np);
	cdf_rows(tab, rate, rate_bps, "responses", x->resp, x->nresp);
	return 0;
}

int added_delay_cdf_print(FILE *out, enum out_format fmt, const struct added_delay *a,
			  const uint64_t *rates, size_t nrates, uint64_t trace_rate)
{
	return added_table_print(out, fmt, a, rates, nrates, trace_rate, cdf_cols,
				 NCOLS(cdf_cols), "added_delay_cdf", cdf_table_rows);
}

static const struct out_column replay_cols[] = {
	{ "rate", "rate", OUT_COL_STR, -8, 0 },
	{ "delay_ms", "delay_ms", OUT_COL_STR, 9, 0 },
	{ "via", "via", OUT_COL_STR, -8, 0 },	/* raw, ssh-C, waypipe */
	{ "time", "Time", OUT_COL_TIME, 10, 4 },
	{ "conn", "Conn", OUT_COL_UINT, 5, 0 },
	{ "input", "Input", OUT_COL_UINT, 6, 0 },
	{ "kind", "Kind", OUT_COL_STR, -15, 0 },
	{ "what", "What", OUT_COL_STR, -22, 0 },
	{ "response_s", "Response", OUT_COL_SECONDS, 10, 6 },
	{ "predicted_s", "Predicted", OUT_COL_SECONDS, 10, 6 },
	/* waypipe: the same with no answer, and with every answer, held
	   behind a lone acknowledgement (predict_link's wp_none, wp_all) */
	{ "none_held_s", "NoneHeld", OUT_COL_SECONDS, 10, 6 },
	{ "all_held_s", "AllHeld", OUT_COL_SECONDS, 10, 6 },
};

static const char *via_of(const struct predict_options *po)
{
	return po->ssh_compression ? "ssh-C" : po->waypipe ? "waypipe" : "raw";
}

int predict_responses_print(FILE *out, enum out_format fmt, const struct added_delay *a,
			    const uint64_t *rates, size_t nrates, const uint64_t *delays,
			    size_t ndelays)
{
	size_t ni = added_delay_inputs(a);
	int64_t *each = malloc((ni ? ni : 1) * 3 * sizeof *each);
	int64_t *known = malloc((ni ? ni : 1) * sizeof *known);
	/* per link: how many known, their median and 90th percentile */
	size_t nl = nrates * ndelays;
	int64_t *sum = malloc((nl ? nl : 1) * 3 * sizeof *sum);
	if (!each || !known || !sum) {
		free(each);
		free(known);
		free(sum);
		return -1;
	}
	const char *via = via_of(predict_options_of(added_delay_trace(a)));
	bool wp = predict_options_of(added_delay_trace(a))->waypipe;
	int64_t *held0 = each + ni, *held1 = each + 2 * ni;
	uint64_t t0 = added_delay_first_ts(a);
	char rate[32], delay[32];
	out_json_open(out, fmt);
	struct out_table tab;
	out_table_begin(&tab, out, fmt, replay_cols, NCOLS(replay_cols), "predicted_responses");
	for (size_t i = 0; i < nrates; i++)
		for (size_t j = 0; j < ndelays; j++) {
			struct predict_link link = { .rate = rates[i], .delay = delays[j] };
			struct predict_link best = { .rate = rates[i], .delay = delays[j], .wp_none = true };
			struct predict_link worst = { .rate = rates[i], .delay = delays[j], .wp_all = true };
			struct predict_result res;
			if (added_delay_replay(a, &link, &res, each) < 0 ||
			    (wp && (added_delay_replay(a, &best, &res, held0) < 0 ||
				    added_delay_replay(a, &worst, &res, held1) < 0))) {
				out_table_end(&tab);
				free(each);
				free(known);
				free(sum);
				return -1;
			}
			predict_format_rate(rate, sizeof rate, rates[i]);
			snprintf(delay, sizeof delay, "%g", (double)delays[j] / 1e6);
			size_t nk = 0;
			for (size_t k = 0; k < ni; k++) {
				const struct added_input *in = added_delay_input(a, k);
				bool none = in->r.flags & XRESP_F_NO_RESPONSE;
				struct out_cell cells[] = {
					{ .s = rate }, { .s = delay }, { .s = via },
					{ .ns = (int64_t)(in->r.input_ts -
							  (in->r.input_ts >= t0 ? t0 : in->r.input_ts)) },
					{ .u = in->r.conn }, { .u = in->r.index },
					{ .s = xinput_kind_name(in->r.kind) },
					{ .s = in->r.what[0] ? in->r.what : "-" },
					{ .ns = (int64_t)in->r.response, .empty = none },
					{ .ns = each[k], .empty = each[k] < 0 },
					{ .ns = wp ? held0[k] : 0, .empty = !wp || held0[k] < 0 },
					{ .ns = wp ? held1[k] : 0, .empty = !wp || held1[k] < 0 },
				};
				out_table_row(&tab, cells);
				if (each[k] >= 0)
					known[nk++] = each[k];
			}
			if (nk > 1)
				qsort(known, nk, sizeof *known, i64_cmp);
			int64_t *s = &sum[3 * (i * ndelays + j)];
			s[0] = (int64_t)nk;
			s[1] = percentile(known, nk, 50);
			s[2] = percentile(known, nk, 90);
		}
	out_table_end(&tab);
	if (out_for_people(fmt) && ni) {
		bool md = fmt == OUT_MARKDOWN;
		fprintf(out, "\n%spredicted responses per link: count, median, 90th percentile (ms)\n",
			md ? "" : "# ");
		for (size_t i = 0; i < nrates; i++)
			for (size_t j = 0; j < ndelays; j++) {
				const int64_t *s = &sum[3 * (i * ndelays + j)];
				predict_format_rate(rate, sizeof rate, rates[i]);
				fprintf(out, "%s%-8s %6g ms %5lld %10.3f %10.3f\n", md ? "    " : "",
					rate, (double)delays[j] / 1e6, (long long)s[0],
					s[0] ? (double)s[1] / 1e6 : 0, s[0] ? (double)s[2] / 1e6 : 0);
			}
	}
	char why[256];
	const char *notes[3] = {
		"predicted: the trace's dependencies replayed over each link, as for --predict, "
		"and each input's response in the replay as --responses measures it beside "
		"the client (xcapanalyse(1), PREDICTION: responses over a link)",
	};
	size_t nn = 1;
	if (predict_options_of(added_delay_trace(a))->waypipe)
		notes[nn++] = "waypipe: its framing, buffer diffs, token and acknowledgements, "
			      "as --predict --waypipe, an answer's wait behind a lone acknowledgement "
			      "counted always for a commit, half for another; NoneHeld and AllHeld: none or every one held "
			      "(xcapanalyse(1), PREDICTION: waypipe)";
	if (!ni)
		notes[nn++] = "no inputs in the trace";
	else if (nl && (size_t)sum[0] < ni) {
		snprintf(why, sizeof why, "%zu of %zu inputs without a predicted response: no "
			 "visible response, or a write of it not in the trace", ni - (size_t)sum[0], ni);
		notes[nn++] = why;
	}
	out_notes(out, fmt, notes, nn, "xcapanalyse");
	out_json_close(out, fmt);
	free(each);
	free(known);
	free(sum);
	return 0;
}
