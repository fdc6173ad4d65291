/*
 * responses_view.c — xcapanalyse --responses (one row per input, as the
 * response model emits them) and --responses-summary (per connection and
 * All: count, percentiles, the share a person notices, input rate).
 *
 * Two views rather than rows and a summary in one output: CSV holds one
 * table, and the summary of a long session is read without its rows.
 *
 * Belongs to: the xcapanalyse command's room (xcapanalyse/cmd/xcapanalyse/).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "conns.h"
#include "grow.h"
#include "responses.h"
#include "source.h"
#include "views.h"

static const struct out_column row_cols[] = {
	{ "time", "Time", OUT_COL_TIME, 10, 4 },
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
	{ "over_50ms", ">50ms", OUT_COL_PERCENT, 6, 3 },
	{ "over_100ms", ">100ms", OUT_COL_PERCENT, 6, 3 },
	{ "over_150ms", ">150ms", OUT_COL_PERCENT, 6, 3 },
	{ "input_rate", "Inputs/s", OUT_COL_FIXED, 8, 2 },
	{ "bytes_c2s", "Bytes>", OUT_COL_UINT, 9, 0 },
	{ "bytes_s2c", "Bytes<", OUT_COL_UINT, 10, 0 },
	{ "pixels", "Pixels", OUT_COL_UINT, 10, 0 },
};

/* What the abbreviations and flags mean, under the tables. */
static const struct out_note row_notes[] = {
	{ "added", "a round trip added when the capture was beside the client, not the display "
		   "(--capture-side)" },
	{ "messages_c2s", "> toward the server, < toward the client (so are Bytes)" },
	{ "flags", "none: nothing visible followed before the quiet or the next input; cut: the "
		   "next input came before the connection went quiet; uncertain: bytes lost or "
		   "framing unsure inside the response; send-event: an X11 event sent with "
		   "SendEvent; no-rtt: no round trip known to add" },
};
static const struct out_note sum_notes[] = {
	{ "no_response", "inputs with nothing visible before the quiet or the next input" },
	{ "cut", "inputs whose response the next input cut short (faster than --quiet-ms)" },
	{ "uncertain", "inputs with bytes lost or framing unsure inside their response" },
	{ "over_50ms", "the share of responses slower than 50 ms (and 100, 150 ms)" },
	{ "bytes_c2s", "> toward the server, < toward the client" },
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
	struct xconns conns;	/* of struct sum_conn */
	struct xresp_summary *all;
	/* Rows ended but not yet listed: the model emits a connection's
	   responses when that connection goes on, so with several
	   connections they come out of the order they end.  A heap by end;
	   a row leaves once no response still open can end before it. */
	struct xresponse *held;
	size_t nheld, capheld;
};

static void flags_text(char *buf, size_t size, unsigned f)
{
	static const struct { unsigned bit; const char *name; } names[] = {
		{ XRESP_F_NO_RESPONSE, "none" }, { XRESP_F_CUT, "cut" },
		{ XRESP_F_UNCERTAIN, "uncertain" }, { XRESP_F_SYNTHETIC, "send-event" },
		{ XRESP_F_NO_RTT, "no-rtt" }, { XRESP_F_DISCARDED, "discarded" },
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
	struct sum_conn *c = xconns_get(&v->conns, x->conn);
	if (c)
		return c->s;
	struct xresp_summary *s = xresp_summary_new();
	if (!s || !(c = xconns_add(&v->conns, x->conn))) {
		xresp_summary_free(s);
		return NULL;
	}
	*c = (struct sum_conn){ x->conn, x->proto, s };
	return s;
}

/* The order rows are listed in: by end, then connection and input. */
static bool row_before(const struct xresponse *a, const struct xresponse *b)
{
	if (a->end_ts != b->end_ts)
		return a->end_ts < b->end_ts;
	if (a->conn != b->conn)
		return a->conn < b->conn;
	return a->index < b->index;
}

static void row_print(struct responses_view *v, const struct xresponse *x);

static void held_push(struct responses_view *v, const struct xresponse *x)
{
	if (GROW(v->held, v->capheld, v->nheld + 1) < 0) {
		v->oom = true;
		return;
	}
	size_t i = v->nheld++;
	while (i > 0 && row_before(x, &v->held[(i - 1) / 2])) {
		v->held[i] = v->held[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	v->held[i] = *x;
}

/* List the held rows that end before upto, in order. */
static void held_release(struct responses_view *v, uint64_t upto)
{
	while (v->nheld && (upto == UINT64_MAX || v->held[0].end_ts < upto)) {
		row_print(v, &v->held[0]);
		struct xresponse last = v->held[--v->nheld];
		size_t i = 0;
		for (;;) {
			size_t k = 2 * i + 1;
			if (k >= v->nheld)
				break;
			if (k + 1 < v->nheld && row_before(&v->held[k + 1], &v->held[k]))
				k++;
			if (!row_before(&v->held[k], &last))
				break;
			v->held[i] = v->held[k];
			i = k;
		}
		if (v->nheld)
			v->held[i] = last;
	}
}

static void on_response(void *ctx, const struct xresponse *x)
{
	struct responses_view *v = ctx;
	if (!xstate_in_range(v->m, x->input_ts))	/* --range: by its input */
		return;
	if (!v->summary) {
		held_push(v, x);
		return;
	}
	struct xresp_summary *s = summary_for(v, x);
	if (!s) {
		v->oom = true;
		return;
	}
	xresp_summary_add(s, x);
	xresp_summary_add(v->all, x);
}

static void row_print(struct responses_view *v, const struct xresponse *x)
{
	bool people = out_for_people(v->fmt);
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
	xconns_init(&v->conns, sizeof (struct sum_conn));
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
		out_table_ranks(&v->t);
		out_table_notes(&v->t, row_notes, sizeof row_notes / sizeof row_notes[0]);
	}
	return v;
}

int responses_view_record(struct responses_view *v, const struct xrec *rec)
{
	if (xresp_record(v->r, rec) < 0 || v->oom)
		return -1;
	if (v->nheld) {
		/* Listed once no response still open (nor one to come) can end
		   before them.  A response the model has not closed yet (its
		   connection has not gone on) holds the rows of the others: it
		   is not closed here, since the round trips its client ends
		   later still belong to it. */
		uint64_t now = xrec_time(rec), floor = xresp_open_floor(v->r);
		held_release(v, now < floor ? now : floor);
	}
	return v->oom ? -1 : 0;
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

/* A capture begun mid-session finds inputs only where the decoder found
   its footing again: said in the view, not only in --dump. */
static void midway_notes(const struct responses_view *v)
{
	char midway[256];
	const char *note = midway;
	for (size_t i = 0; i < xstate_conn_count(v->m); i++) {
		const struct xstate_conn *c = xstate_conn_at(v->m, i);
		if (c->midway) {
			snprintf(midway, sizeof midway, "conn %u: the capture began mid-way through the "
				 "session: inputs and updates before the decoder found the messages' "
				 "boundaries again are not seen", c->id);
			out_notes(v->out, v->fmt, &note, 1, "xcapanalyse");
		}
	}
}

int responses_view_finish(struct responses_view *v)
{
	if (!v)
		return 0;
	xresp_finish(v->r);
	held_release(v, UINT64_MAX);
	free(v->held);
	int ret = v->oom ? -1 : 0;
	if (!v->summary) {
		out_table_end(&v->t);
		midway_notes(v);
		out_json_close(v->out, v->fmt);
	} else {
		struct out_table t;
		out_json_open(v->out, v->fmt);
		out_table_begin(&t, v->out, v->fmt, sum_cols, sizeof sum_cols / sizeof sum_cols[0],
				"responses_summary");
		out_table_notes(&t, sum_notes, sizeof sum_notes / sizeof sum_notes[0]);
		char id[16];
		for (size_t i = 0; i < v->conns.n; i++) {
			const struct sum_conn *c = xconns_at(&v->conns, i);
			snprintf(id, sizeof id, "%u", c->id);
			summary_row(&t, id, c->proto, c->s);
		}
		if (v->conns.n != 1)
			summary_row(&t, "All", "", v->all);
		out_table_end(&t);
		midway_notes(v);
		out_json_close(v->out, v->fmt);
	}
	for (size_t i = 0; i < v->conns.n; i++)
		xresp_summary_free(((struct sum_conn *)xconns_at(&v->conns, i))->s);
	xconns_free(&v->conns);
	xresp_summary_free(v->all);
	xresp_free(v->r);
	free(v);
	return ret;
}

/* ---- --updates: continuous updates (video, animation, scrolling) ---- */

/* The columns --updates always has, then those of video quality (asked
   with --ideal-fps: without it the table is as it always was). */
static const struct out_column upd_cols[] = {
	{ "conn", "Conn", OUT_COL_UINT, 4, 0 },
	{ "proto", "Proto", OUT_COL_STR, -5, 0 },
	{ "span", "Span", OUT_COL_SECONDS, 8, 3 },
	{ "updates", "Updates", OUT_COL_UINT, 7, 0 },
	{ "updates_per_s", "Updates/s", OUT_COL_FIXED, 9, 2 },
	{ "rects", "Rects", OUT_COL_UINT, 7, 0 },
	{ "pixels", "Pixels", OUT_COL_UINT, 10, 0 },
	{ "pixels_per_s", "Pixels/s", OUT_COL_UINT, 10, 0 },
	{ "bytes_s2c", "Bytes<", OUT_COL_UINT, 10, 0 },
	{ "bytes_per_s", "Bytes</s", OUT_COL_UINT, 10, 0 },
	{ "messages_c2s", "Msgs>", OUT_COL_UINT, 7, 0 },
	{ "longest_gap", "Longest Gap", OUT_COL_SECONDS, 11, 4 },
	/* video quality */
	{ "ideal_fps", "Ideal FPS", OUT_COL_FIXED, 9, 2 },
	{ "update_quality", "Upd Quality", OUT_COL_FIXED, 11, 3 },
	{ "display_bytes", "To Display", OUT_COL_UINT, 10, 0 },
	{ "bytes_per_frame", "Bytes/Frame", OUT_COL_UINT, 11, 0 },
	{ "reference_bytes_per_frame", "Slow-Mo B/F", OUT_COL_UINT, 11, 0 },
	{ "video_quality", "Video Quality", OUT_COL_FIXED, 13, 3 },
};
enum { UPD_PLAIN_COLS = 12 };

struct upd_conn {
	uint32_t id;
	char proto[8];
	uint64_t updates, rects, pixels, bytes_s2c, msgs_c2s;
	uint64_t last_update, longest_gap;
	/* Message bytes toward the display (X11: from the client, the
	   drawing; RFB: from the server, the updates), and the first and
	   last of those messages (ns after the first packet). */
	uint64_t display_bytes, first_display, last_display;
};

struct updates_view {
	struct xstate_model *m;		/* NULL: reading a reference alone */
	struct updates_options o;
	uint64_t t0;			/* the trace's first record, without m */
	bool have_t0;
	/* The span by marks: not begun, inside, over. */
	enum { SPAN_BEFORE, SPAN_IN, SPAN_AFTER } state;
	uint64_t mark_from, mark_to;	/* when they came, ns after the first packet */
	struct xconns conns;		/* of struct upd_conn */
	/* The slow-motion run's bytes toward the display per frame, by
	   protocol (0 x11, 1 rfb); 0 where it had none. */
	double ref_bpf[2];
	double ref_span[2];
};

static int proto_slot(const char *proto)
{
	return strcmp(proto, "rfb") == 0 ? 1 : 0;
}

static struct updates_view *updates_alloc(struct xstate_model *m, const struct updates_options *o)
{
	struct updates_view *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->m = m;
	v->o = *o;
	v->state = o->from_mark ? SPAN_BEFORE : SPAN_IN;
	xconns_init(&v->conns, sizeof (struct upd_conn));
	return v;
}

static uint64_t updates_first(const struct updates_view *v)
{
	return v->m ? xstate_all(v->m)->first : v->t0;
}

static struct upd_conn *upd_conn_of(struct updates_view *v, uint32_t id)
{
	return xconns_get(&v->conns, id);
}

int updates_view_record(struct updates_view *v, const struct xrec *rec)
{
	if (!v->have_t0) {
		v->t0 = xrec_time(rec);
		v->have_t0 = true;
	}
	if (rec->type == XREC_MARK && v->o.from_mark) {
		uint64_t t0 = updates_first(v);
		uint64_t t = rec->u.mark.ts > t0 ? rec->u.mark.ts - t0 : 0;
		const char *text = rec->u.mark.text ? rec->u.mark.text : "";
		if (v->state == SPAN_BEFORE && strcmp(text, v->o.from_mark) == 0) {
			v->state = SPAN_IN;
			v->mark_from = t;
		} else if (v->state == SPAN_IN && strcmp(text, v->o.to_mark) == 0) {
			v->state = SPAN_AFTER;
			v->mark_to = t;
		}
		return 0;
	}
	if (rec->type == XREC_CONN) {
		uint32_t id = rec->u.conn.id;
		if (upd_conn_of(v, id) || id == 0 || id > XCONNS_ID_MAX)
			return 0;
		struct upd_conn *c = xconns_add(&v->conns, id);
		if (!c)
			return -1;
		c->id = id;
		snprintf(c->proto, sizeof c->proto, "%s", rec->u.conn.proto);
		return 0;
	}
	if (rec->type != XREC_MSG || v->state == SPAN_BEFORE)
		return 0;
	const struct xrec_msg *g = &rec->u.msg;
	uint64_t t0 = updates_first(v);
	uint64_t t = g->ts - t0;
	struct upd_conn *c;
	if (g->ts < t0 || t < v->o.from || t >= v->o.to || !(c = upd_conn_of(v, g->conn)))
		return 0;
	/* A mark is written when the capture handles it, a message when its
	   last segment is reassembled: either may come first in the trace.
	   The span is by their times. */
	if (v->o.from_mark && (t < v->mark_from || (v->state == SPAN_AFTER && t >= v->mark_to)))
		return 0;
	bool rfb = strcmp(c->proto, "rfb") == 0;
	if (g->dir == (rfb ? XDIR_S2C : XDIR_C2S)) {
		if (!c->display_bytes || t < c->first_display)
			c->first_display = t;
		if (t > c->last_display)
			c->last_display = t;
		c->display_bytes += g->length;
	}
	if (g->dir == XDIR_C2S) {
		c->msgs_c2s++;
		return 0;
	}
	c->bytes_s2c += g->length;
	if (!rfb || !g->name || strcmp(g->name, "FramebufferUpdate") != 0)
		return 0;
	/* From the span's start to the first update is a gap too: a stall at
	   the start of the span shows. */
	uint64_t from = v->o.from > v->mark_from ? v->o.from : v->mark_from;
	uint64_t prev = c->updates ? c->last_update : from;
	if (t > prev && t - prev > c->longest_gap)
		c->longest_gap = t - prev;
	if (t > c->last_update)
		c->last_update = t;
	c->updates++;
	xresp_update_counts(g->detail ? g->detail : "", &c->rects, &c->pixels);
	return 0;
}

/* The span the view counted: --range, narrowed by the marks; ends at the
   trace's end when nothing ended it sooner. */
static void updates_span(const struct updates_view *v, uint64_t end, uint64_t *from, uint64_t *to)
{
	uint64_t f = v->o.from, t = v->o.to < end ? v->o.to : end;
	if (v->o.from_mark && v->state == SPAN_BEFORE) {
		*from = *to = 0;	/* it never began */
		return;
	}
	if (v->o.from_mark) {
		if (v->mark_from > f)
			f = v->mark_from;
		if (v->state == SPAN_AFTER && v->mark_to < t)
			t = v->mark_to;
	}
	*from = f;
	*to = t;
}

/* Read the slow-motion run: its bytes toward the display per frame, by
   protocol, over its playback time: the span by marks when they were
   named (the same marks), otherwise from its first message toward the
   display to its last plus one frame at its rate (the last frame is on
   the screen for a frame's time too). */
static int updates_reference(struct updates_view *v, char *err, size_t errsize)
{
	struct xsource *src = xsource_open(v->o.reference, NULL, NULL, err, errsize);
	if (!src)
		return -1;
	struct updates_options ro = v->o;
	ro.from = 0;
	ro.to = UINT64_MAX;
	struct updates_view *r = updates_alloc(NULL, &ro);
	if (!r) {
		xsource_close(src);
		snprintf(err, errsize, "out of memory: '%s'", v->o.reference);
		return -1;
	}
	struct xrec rec;
	int more;
	while ((more = xsource_next(src, &rec)) == 1)
		if (updates_view_record(r, &rec) < 0)
			break;
	int ret = 0;
	if (more != 0) {
		snprintf(err, errsize, "%s", more < 0 ? xsource_error(src) : "out of memory: '--slow-motion'");
		ret = -1;
	} else if (ro.from_mark && r->state != SPAN_AFTER) {
		snprintf(err, errsize, "the marks %s and %s do not both come, in order: '%s'",
			 ro.from_mark, ro.to_mark, v->o.reference);
		ret = -1;
	}
	double bytes[2] = { 0, 0 };
	uint64_t first[2] = { UINT64_MAX, UINT64_MAX }, last[2] = { 0, 0 };
	for (size_t i = 0; ret == 0 && i < r->conns.n; i++) {
		struct upd_conn *c = xconns_at(&r->conns, i);
		int k = proto_slot(c->proto);
		if (!c->display_bytes)
			continue;
		bytes[k] += (double)c->display_bytes;
		if (c->first_display < first[k])
			first[k] = c->first_display;
		if (c->last_display > last[k])
			last[k] = c->last_display;
	}
	for (int k = 0; ret == 0 && k < 2; k++) {
		if (bytes[k] <= 0)
			continue;
		double secs = ro.from_mark ? (double)(r->mark_to - r->mark_from) / 1e9
					   : (double)(last[k] - first[k]) / 1e9 + 1 / ro.reference_fps;
		if (secs > 0) {
			v->ref_span[k] = secs;
			v->ref_bpf[k] = bytes[k] / secs / ro.reference_fps;
		}
	}
	xconns_free(&r->conns);
	free(r);
	xsource_close(src);
	return ret;
}

struct updates_view *updates_view_new(struct xstate_model *m, const struct updates_options *o,
				      char *err, size_t errsize)
{
	struct updates_view *v = updates_alloc(m, o);
	if (!v) {
		snprintf(err, errsize, "out of memory: '%s'", "--updates");
		return NULL;
	}
	if (o->reference && updates_reference(v, err, errsize) < 0) {
		free(v);
		return NULL;
	}
	return v;
}

void updates_view_finish(struct updates_view *v, FILE *out, enum out_format fmt)
{
	if (!v)
		return;
	const struct xstate_conn *all = xstate_all(v->m);
	uint64_t end = all->last > all->first ? all->last - all->first : 0;
	uint64_t from, to;
	updates_span(v, end, &from, &to);
	uint64_t span = to > from ? to - from : 0;
	double secs = (double)span / 1e9;
	bool vq = v->o.ideal_fps > 0;
	double fps = v->o.ideal_fps;
	struct out_table t;
	out_json_open(out, fmt);
	out_table_begin(&t, out, fmt, upd_cols,
			vq ? sizeof upd_cols / sizeof upd_cols[0] : UPD_PLAIN_COLS, "updates");
	bool any_x11 = false, no_ref = false, marks_missing = v->o.from_mark && v->state != SPAN_AFTER;
	for (size_t i = 0; i < v->conns.n; i++) {
		struct upd_conn *c = xconns_at(&v->conns, i);
		bool rfb = strcmp(c->proto, "rfb") == 0;
		any_x11 |= !rfb && c->proto[0];
		if (rfb && c->updates && to > c->last_update && to - c->last_update > c->longest_gap)
			c->longest_gap = to - c->last_update;
		/* Slow-motion benchmarking's video quality: the data toward the
		   display per frame of real-time playback, against the same in
		   the slow-motion run, where every frame was delivered. */
		double bpf = secs > 0 && fps > 0 ? (double)c->display_bytes / secs / fps : 0;
		double ref = v->ref_bpf[proto_slot(c->proto)];
		no_ref |= vq && v->o.reference && ref <= 0;
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
			{ .ns = (int64_t)(1e9 * fps) },
			{ .ns = secs > 0 ? (int64_t)(1e9 * (double)c->updates / secs / fps) : 0,
			  .empty = !rfb || secs <= 0 },
			{ .u = c->display_bytes },
			{ .u = (uint64_t)(bpf + 0.5), .empty = secs <= 0 },
			{ .u = (uint64_t)(ref + 0.5), .empty = ref <= 0 },
			{ .ns = ref > 0 ? (int64_t)(1e9 * bpf / ref) : 0, .empty = ref <= 0 || secs <= 0 },
		};
		out_table_row(&t, cells);
	}
	out_table_end(&t);
	const char *notes[4];
	size_t nn = 0;
	if (any_x11)
		notes[nn++] = vq ? "X11 has no frames: its connections show bytes and requests, not "
				   "updates, and video quality only against a slow-motion run"
				 : "X11 has no frames: its connections show bytes and requests, not updates";
	if (marks_missing)
		notes[nn++] = v->state == SPAN_BEFORE
				      ? "the first mark of --mark-span never came: nothing was counted"
				      : "the second mark of --mark-span never came: the span runs to "
					"the trace's end";
	if (no_ref)
		notes[nn++] = "the slow-motion run had no data toward the display of this "
			      "protocol: no video quality";
	if (nn)
		out_notes(out, fmt, notes, nn, "xcapanalyse");
	out_json_close(out, fmt);
	xconns_free(&v->conns);
	free(v);
}
