/*
 * responses_view.c — xcapanalyse --responses (one row per input, as the
 * response model emits them) and --responses-summary (per connection and
 * All: count, percentiles, the share a person notices, input rate).
 *
 * Two views rather than rows and a summary in one output: CSV holds one
 * table, and the summary of a long session is read without its rows.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "responses.h"
#include "views.h"

static const struct out_column row_cols[] = {
	{ "time", "Time", OUT_COL_SECONDS, 10, 4 },
	{ "conn", "Conn", OUT_COL_UINT, 4, 0 },
	{ "input", "Input", OUT_COL_UINT, 5, 0 },
	{ "kind", "Kind", OUT_COL_STR, -14, 0 },
	{ "what", "What", OUT_COL_STR, -22, 0 },
	{ "window", "Window", OUT_COL_STR, -10, 0 },
	{ "x", "X", OUT_COL_STR, 5, 0 },
	{ "y", "Y", OUT_COL_STR, 5, 0 },
	{ "response", "Response", OUT_COL_SECONDS, 9, 4 },
	{ "added", "Added", OUT_COL_SECONDS, 7, 4 },
	{ "messages_c2s", "Msgs>", OUT_COL_UINT, 5, 0 },
	{ "messages_s2c", "Msgs<", OUT_COL_UINT, 5, 0 },
	{ "bytes_c2s", "Bytes>", OUT_COL_UINT, 7, 0 },
	{ "bytes_s2c", "Bytes<", OUT_COL_UINT, 8, 0 },
	{ "trips", "Trips", OUT_COL_UINT, 5, 0 },
	{ "trip_wait", "Trip Wait", OUT_COL_SECONDS, 9, 4 },
	{ "motions", "Motions", OUT_COL_UINT, 7, 0 },
	{ "updates", "Updates", OUT_COL_UINT, 7, 0 },
	{ "rects", "Rects", OUT_COL_UINT, 5, 0 },
	{ "pixels", "Pixels", OUT_COL_UINT, 8, 0 },
	{ "flags", "Flags", OUT_COL_STR, -12, 0 },
};

/* Shares and rates are printed through the seconds column type: a value
   v is the cell ns = v * 1e9, so that JSON gets a number and people a
   fixed number of decimals. */
static const struct out_column sum_cols[] = {
	{ "conn", "Conn", OUT_COL_STR, -4, 0 },
	{ "proto", "Proto", OUT_COL_STR, -5, 0 },
	{ "inputs", "Inputs", OUT_COL_UINT, 7, 0 },
	{ "responded", "Responded", OUT_COL_UINT, 9, 0 },
	{ "no_response", "None", OUT_COL_UINT, 5, 0 },
	{ "cut", "Cut", OUT_COL_UINT, 5, 0 },
	{ "uncertain", "Uncertain", OUT_COL_UINT, 9, 0 },
	{ "p50", "p50", OUT_COL_SECONDS, 8, 4 },
	{ "p90", "p90", OUT_COL_SECONDS, 8, 4 },
	{ "p95", "p95", OUT_COL_SECONDS, 8, 4 },
	{ "p99", "p99", OUT_COL_SECONDS, 8, 4 },
	{ "max", "Max", OUT_COL_SECONDS, 8, 4 },
	{ "over_50ms", ">50ms", OUT_COL_SECONDS, 6, 3 },
	{ "over_100ms", ">100ms", OUT_COL_SECONDS, 6, 3 },
	{ "over_150ms", ">150ms", OUT_COL_SECONDS, 6, 3 },
	{ "input_rate", "Inputs/s", OUT_COL_SECONDS, 8, 2 },
	{ "bytes_c2s", "Bytes>", OUT_COL_UINT, 9, 0 },
	{ "bytes_s2c", "Bytes<", OUT_COL_UINT, 10, 0 },
	{ "pixels", "Pixels", OUT_COL_UINT, 10, 0 },
};

struct sum_conn {
	uint32_t id;
	const char *proto;
	struct xresp_summary *s;
};

struct responses_view {
	struct xstate_model *m;
	struct xresp_model *r;
	FILE *out;
	enum out_format fmt;
	bool summary;
	bool oom;
	struct out_table t;
	struct sum_conn *conns;
	size_t n, cap;
	struct xresp_summary *all;
};

static void flags_text(char *buf, size_t size, unsigned f)
{
	static const struct { unsigned bit; const char *name; } names[] = {
		{ XRESP_F_NO_RESPONSE, "none" }, { XRESP_F_CUT, "cut" },
		{ XRESP_F_UNCERTAIN, "uncertain" }, { XRESP_F_SYNTHETIC, "send-event" },
		{ XRESP_F_NO_RTT, "no-rtt" },
	};
	size_t n = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (f & names[i].bit)
			n += (size_t)snprintf(buf + n, n < size ? size - n : 0, "%s%s", n ? "," : "",
					      names[i].name);
}

static struct xresp_summary *summary_for(struct responses_view *v, const struct xresponse *x)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->conns[i].id == x->conn)
			return v->conns[i].s;
	if (v->n == v->cap) {
		size_t cap = v->cap ? v->cap * 2 : 8;
		struct sum_conn *c = realloc(v->conns, cap * sizeof *c);
		if (!c)
			return NULL;
		v->conns = c;
		v->cap = cap;
	}
	struct xresp_summary *s = xresp_summary_new();
	if (!s)
		return NULL;
	v->conns[v->n++] = (struct sum_conn){ x->conn, x->proto, s };
	return s;
}

static void on_response(void *ctx, const struct xresponse *x)
{
	struct responses_view *v = ctx;
	if (v->summary) {
		struct xresp_summary *s = summary_for(v, x);
		if (!s) {
			v->oom = true;
			return;
		}
		xresp_summary_add(s, x);
		xresp_summary_add(v->all, x);
		return;
	}
	bool people = v->fmt == OUT_TEXT || v->fmt == OUT_MARKDOWN;
	uint64_t t0 = xstate_all(v->m)->first;
	char win[16] = "", xs[16] = "", ys[16] = "", flags[64];
	if (x->window)
		snprintf(win, sizeof win, "0x%x", x->window);
	if (x->has_pos) {
		snprintf(xs, sizeof xs, "%d", x->x);
		snprintf(ys, sizeof ys, "%d", x->y);
	}
	flags_text(flags, sizeof flags, x->flags);
	bool none = x->flags & XRESP_F_NO_RESPONSE;
	struct out_cell cells[] = {
		{ .ns = (int64_t)(x->input_ts - t0) }, { .u = x->conn }, { .u = x->index },
		{ .s = xinput_kind_name(x->kind) },
		{ .s = x->what[0] || !people ? x->what : "-" },
		{ .s = win, .empty = !x->window && !people },
		{ .s = xs, .empty = !x->has_pos && !people },
		{ .s = ys, .empty = !x->has_pos && !people },
		{ .ns = (int64_t)x->response, .empty = none },
		{ .ns = (int64_t)x->display_delay },
		{ .u = x->msgs[0] }, { .u = x->msgs[1] }, { .u = x->bytes[0] }, { .u = x->bytes[1] },
		{ .u = x->trips }, { .ns = (int64_t)x->trip_wait }, { .u = x->motions },
		{ .u = x->updates }, { .u = x->rects }, { .u = x->pixels },
		{ .s = flags[0] || !people ? flags : "-" },
	};
	out_table_row(&v->t, cells);
}

struct responses_view *responses_view_new(struct xstate_model *m, FILE *out, enum out_format fmt,
					  const struct xresp_options *opt, bool summary)
{
	struct responses_view *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->m = m;
	v->out = out;
	v->fmt = fmt;
	v->summary = summary;
	if ((summary && !(v->all = xresp_summary_new())) ||
	    !(v->r = xresp_new(opt, m, on_response, v))) {
		xresp_summary_free(v->all);
		free(v);
		return NULL;
	}
	if (!summary) {
		out_json_open(out, fmt);
		out_table_begin(&v->t, out, fmt, row_cols, sizeof row_cols / sizeof row_cols[0],
				"responses");
	}
	return v;
}

int responses_view_record(struct responses_view *v, const struct xrec *rec)
{
	if (xresp_record(v->r, rec) < 0 || v->oom)
		return -1;
	return 0;
}

static void summary_row(struct out_table *t, const char *conn, const char *proto,
			const struct xresp_summary *s)
{
	struct xresp_stats st;
	xresp_summary_stats(s, &st);
	double n = st.responded ? (double)st.responded : 1;
	bool any = st.responded > 0;
	struct out_cell cells[] = {
		{ .s = conn }, { .s = proto }, { .u = st.count }, { .u = st.responded },
		{ .u = st.no_response }, { .u = st.cut }, { .u = st.uncertain },
		{ .ns = (int64_t)st.p50, .empty = !any }, { .ns = (int64_t)st.p90, .empty = !any },
		{ .ns = (int64_t)st.p95, .empty = !any }, { .ns = (int64_t)st.p99, .empty = !any },
		{ .ns = (int64_t)st.max, .empty = !any },
		{ .ns = (int64_t)(1e9 * (double)st.over50 / n), .empty = !any },
		{ .ns = (int64_t)(1e9 * (double)st.over100 / n), .empty = !any },
		{ .ns = (int64_t)(1e9 * (double)st.over150 / n), .empty = !any },
		{ .ns = (int64_t)(1e9 * st.input_rate), .empty = st.count < 2 },
		{ .u = st.bytes[0] }, { .u = st.bytes[1] }, { .u = st.pixels },
	};
	out_table_row(t, cells);
}

int responses_view_finish(struct responses_view *v)
{
	if (!v)
		return 0;
	xresp_finish(v->r);
	int ret = v->oom ? -1 : 0;
	if (!v->summary) {
		out_table_end(&v->t);
		out_json_close(v->out, v->fmt);
	} else {
		struct out_table t;
		out_json_open(v->out, v->fmt);
		out_table_begin(&t, v->out, v->fmt, sum_cols, sizeof sum_cols / sizeof sum_cols[0],
				"responses_summary");
		char id[16];
		for (size_t i = 0; i < v->n; i++) {
			snprintf(id, sizeof id, "%u", v->conns[i].id);
			summary_row(&t, id, v->conns[i].proto, v->conns[i].s);
		}
		if (v->n != 1)
			summary_row(&t, "All", "", v->all);
		out_table_end(&t);
		out_json_close(v->out, v->fmt);
	}
	for (size_t i = 0; i < v->n; i++)
		xresp_summary_free(v->conns[i].s);
	free(v->conns);
	xresp_summary_free(v->all);
	xresp_free(v->r);
	free(v);
	return ret;
}

/* ---- --updates: continuous updates (video, animation, scrolling) ---- */

static const struct out_column upd_cols[] = {
	{ "conn", "Conn", OUT_COL_UINT, 4, 0 },
	{ "proto", "Proto", OUT_COL_STR, -5, 0 },
	{ "span", "Span", OUT_COL_SECONDS, 8, 3 },
	{ "updates", "Updates", OUT_COL_UINT, 7, 0 },
	{ "updates_per_s", "Updates/s", OUT_COL_SECONDS, 9, 2 },
	{ "rects", "Rects", OUT_COL_UINT, 7, 0 },
	{ "pixels", "Pixels", OUT_COL_UINT, 10, 0 },
	{ "pixels_per_s", "Pixels/s", OUT_COL_UINT, 10, 0 },
	{ "bytes_s2c", "Bytes<", OUT_COL_UINT, 10, 0 },
	{ "bytes_per_s", "Bytes</s", OUT_COL_UINT, 10, 0 },
	{ "messages_c2s", "Msgs>", OUT_COL_UINT, 7, 0 },
	{ "longest_gap", "Longest Gap", OUT_COL_SECONDS, 11, 4 },
};

struct upd_conn {
	uint32_t id;
	char proto[8];
	uint64_t updates, rects, pixels, bytes_s2c, msgs_c2s;
	uint64_t last_update, longest_gap;
};

struct updates_view {
	struct xstate_model *m;
	uint64_t from, to;		/* ns since the first packet */
	struct upd_conn *conns;
	size_t n, cap;
};

struct updates_view *updates_view_new(struct xstate_model *m, uint64_t from, uint64_t to)
{
	struct updates_view *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->m = m;
	v->from = from;
	v->to = to;
	return v;
}

static struct upd_conn *upd_conn_of(struct updates_view *v, uint32_t id)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->conns[i].id == id)
			return &v->conns[i];
	return NULL;
}

int updates_view_record(struct updates_view *v, const struct xrec *rec)
{
	if (rec->type == XREC_CONN) {
		if (upd_conn_of(v, rec->u.conn.id))
			return 0;
		if (v->n == v->cap) {
			size_t cap = v->cap ? v->cap * 2 : 8;
			struct upd_conn *c = realloc(v->conns, cap * sizeof *c);
			if (!c)
				return -1;
			v->conns = c;
			v->cap = cap;
		}
		struct upd_conn *c = &v->conns[v->n++];
		memset(c, 0, sizeof *c);
		c->id = rec->u.conn.id;
		snprintf(c->proto, sizeof c->proto, "%s", rec->u.conn.proto);
		return 0;
	}
	if (rec->type != XREC_MSG)
		return 0;
	const struct xrec_msg *g = &rec->u.msg;
	uint64_t t0 = xstate_all(v->m)->first;
	uint64_t t = g->ts - t0;
	struct upd_conn *c;
	if (g->ts < t0 || t < v->from || t >= v->to || !(c = upd_conn_of(v, g->conn)))
		return 0;
	if (g->dir == XDIR_C2S) {
		c->msgs_c2s++;
		return 0;
	}
	c->bytes_s2c += g->length;
	if (strcmp(c->proto, "rfb") != 0 || !g->name || strcmp(g->name, "FramebufferUpdate") != 0)
		return 0;
	/* From the span's start to the first update is a gap too: a stall at
	   the start of the span shows. */
	uint64_t prev = c->updates ? c->last_update : v->from;
	if (t - prev > c->longest_gap)
		c->longest_gap = t - prev;
	c->last_update = t;
	c->updates++;
	xresp_update_counts(g->detail ? g->detail : "", &c->rects, &c->pixels);
	return 0;
}

void updates_view_finish(struct updates_view *v, FILE *out, enum out_format fmt)
{
	if (!v)
		return;
	const struct xstate_conn *all = xstate_all(v->m);
	uint64_t end = all->last > all->first ? all->last - all->first : 0;
	uint64_t to = v->to < end ? v->to : end;
	uint64_t span = to > v->from ? to - v->from : 0;
	double secs = (double)span / 1e9;
	struct out_table t;
	out_json_open(out, fmt);
	out_table_begin(&t, out, fmt, upd_cols, sizeof upd_cols / sizeof upd_cols[0], "updates");
	bool any_x11 = false;
	for (size_t i = 0; i < v->n; i++) {
		struct upd_conn *c = &v->conns[i];
		bool rfb = strcmp(c->proto, "rfb") == 0;
		any_x11 |= !rfb && c->proto[0];
		if (rfb && c->updates && to > c->last_update && to - c->last_update > c->longest_gap)
			c->longest_gap = to - c->last_update;
		struct out_cell cells[] = {
			{ .u = c->id }, { .s = c->proto }, { .ns = (int64_t)span },
			{ .u = c->updates, .empty = !rfb },
			{ .ns = secs > 0 ? (int64_t)(1e9 * (double)c->updates / secs) : 0,
			  .empty = !rfb || secs <= 0 },
			{ .u = c->rects, .empty = !rfb }, { .u = c->pixels, .empty = !rfb },
			{ .u = secs > 0 ? (uint64_t)((double)c->pixels / secs) : 0,
			  .empty = !rfb || secs <= 0 },
			{ .u = c->bytes_s2c },
			{ .u = secs > 0 ? (uint64_t)((double)c->bytes_s2c / secs) : 0, .empty = secs <= 0 },
			{ .u = c->msgs_c2s },
			{ .ns = (int64_t)c->longest_gap, .empty = !rfb || !c->updates },
		};
		out_table_row(&t, cells);
	}
	out_table_end(&t);
	if (any_x11) {
		static const char *const notes[] = {
			"X11 has no frames: its connections show bytes and requests, not updates",
		};
		out_notes(out, fmt, notes, 1, "xcapanalyse");
	}
	out_json_close(out, fmt);
	free(v->conns);
	free(v);
}
