/*
 * views.c — the delay table, the requests waited on and the round trips.
 *
 * Belongs to: the xcapanalyse command's room (xcapanalyse/cmd/xcapanalyse/).
 */
#include "config.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "grow.h"
#include "views.h"

enum { NOTES_MAX = 64, NOTE_LEN = 512 };

struct notes {
	char text[NOTES_MAX][NOTE_LEN];
	const char *ptr[NOTES_MAX];
	size_t n;
};

__attribute__((format(printf, 2, 3)))
static void note(struct notes *ns, const char *fmt, ...)
{
	if (ns->n == NOTES_MAX)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ns->text[ns->n], NOTE_LEN, fmt, ap);
	va_end(ap);
	ns->ptr[ns->n] = ns->text[ns->n];
	ns->n++;
}

/* What the trace cannot tell, said plainly. */
static void collect_notes(struct notes *ns, const struct xstate_model *m)
{
	uint64_t drops = xstate_capture_drops(m);
	if (drops)
		note(ns, "the capture lost %llu packets before they were recorded; "
		     "blocked and idle times around the losses are uncertain",
		     (unsigned long long)drops);
	size_t n = xstate_conn_count(m), told = 0;
	for (size_t i = 0; i < n; i++) {
		const struct xstate_conn *c = xstate_conn_at(m, i);
		if (ns->n >= NOTES_MAX - 1) {
			told++;
			continue;
		}
		if (c->gaps && c->undecoded)
			note(ns, "conn %u: %llu bytes of its streams are not in the capture (%llu %s); "
			     "%llu more were not decoded", c->id, (unsigned long long)c->gap_bytes,
			     (unsigned long long)c->gaps, c->gaps == 1 ? "hole" : "holes",
			     (unsigned long long)c->undecoded);
		else if (c->gaps)
			note(ns, "conn %u: %llu bytes of its streams are not in the capture (%llu %s)",
			     c->id, (unsigned long long)c->gap_bytes, (unsigned long long)c->gaps,
			     c->gaps == 1 ? "hole" : "holes");
		else if (c->undecoded)
			note(ns, "conn %u: %llu bytes of its streams were not decoded", c->id,
			     (unsigned long long)c->undecoded);
		if (c->midway)
			note(ns, "conn %u: the capture began mid-way through the session: its opening "
			     "is missing, so %s", c->id,
			     strcmp(c->proto, "rfb") == 0 ? "messages are decoded only from where their "
			     "boundaries were found again" : "request numbers are guessed");
		if (c->opaque[0])
			note(ns, "conn %u: %s (%llu bytes)", c->id, c->opaque,
			     (unsigned long long)c->opaque_bytes);
		if (c->unsure_waits)
			note(ns, "conn %u: %llu %s (%.3f ms) ended with an answer whose request "
			     "is a guess (request numbers not confirmed): not counted as Block Reply "
			     "or round trips, their time is in Idle",
			     c->id, (unsigned long long)c->unsure_waits,
			     c->unsure_waits == 1 ? "silence" : "silences", (double)c->unsure_time / 1e6);
		if (c->side == XSIDE_SERVER)
			note(ns, "conn %u: captured beside the server, not the client: data the "
			     "client's acknowledgements release is expected a round trip (%.3f ms) "
			     "after them, and request times are when they reached the server",
			     c->id, (double)c->rtt / 1e6);
		else if (!c->saw_handshake && c->first != c->last)
			note(ns, "conn %u: handshake not captured: capture point assumed beside the "
			     "client, round trip %s from data and acknowledgements",
			     c->id, c->rtt ? "estimated" : "unknown");
	}
	if (told)
		note(ns, "and more on %zu further connections", told);
}

static void client_label(char *buf, size_t size, const struct xstate_conn *c)
{
	if (c->name[0])
		snprintf(buf, size, "%s", c->name);
	else if (c->client.family)
		xaddr_format(buf, size, &c->client);
	else
		snprintf(buf, size, "-");
}

/* ---- the delay table ---- */

static const struct out_column delay_cols[] = {
	{ "conn", "Conn", OUT_COL_STR, -4, 0 },
	{ "client", "Client", OUT_COL_STR, -20, 0 },
	{ "direction", "Direction", OUT_COL_STR, -9, 0 },
	{ "idle", "Idle", OUT_COL_SECONDS, 11, 6 },
	{ "block_send", "Block Send", OUT_COL_SECONDS, 11, 6 },
	{ "block_recv", "Block Recv", OUT_COL_SECONDS, 11, 6 },
	{ "block_reply", "Block Reply", OUT_COL_SECONDS, 11, 6 },
	{ "total_network_delay", "Net Delay", OUT_COL_SECONDS, 11, 6 },
};
#define NCOLS(a) (sizeof (a) / sizeof (a)[0])

static void delay_rows(struct out_table *t, const char *conn, const char *client,
		       const struct xstate_conn *c)
{
	/* People see the connection once, on its first row; programs on every row. */
	bool repeat = out_for_programs(t->fmt);
	static const char *const dirs[] = { "request", "reply", "total" };
	for (int r = 0; r < 3; r++) {
		uint64_t v[XSTATE_N];
		if (r < 2) {
			memcpy(v, c->time[r], sizeof v);
		} else {
			for (int s = 1; s < XSTATE_N; s++)
				v[s] = c->time[0][s] + c->time[1][s];
			uint64_t busy = v[1] + v[2] + v[3];
			v[XSTATE_IDLE] = c->span > busy ? c->span - busy : 0;
		}
		struct out_cell cells[NCOLS(delay_cols)] = {
			{ .s = r == 0 || repeat ? conn : "" },
			{ .s = r == 0 || repeat ? client : "" },
			{ .s = dirs[r] },
			{ .ns = (int64_t)v[XSTATE_IDLE] },
			{ .ns = (int64_t)v[XSTATE_BLOCK_SEND] },
			{ .ns = (int64_t)v[XSTATE_BLOCK_RECV] },
			{ .ns = (int64_t)v[XSTATE_BLOCK_REPLY], .empty = r == 1 },
			{ .ns = (int64_t)(v[XSTATE_BLOCK_SEND] + v[XSTATE_BLOCK_RECV] +
					  v[XSTATE_BLOCK_REPLY]) },
		};
		out_table_row(t, cells);
	}
}

void delays_print(FILE *out, enum out_format fmt, const struct xstate_model *m)
{
	struct out_table t;
	char id[16], client[128];
	out_json_open(out, fmt);
	out_table_begin(&t, out, fmt, delay_cols, NCOLS(delay_cols), "delays");
	for (size_t i = 0; i < xstate_conn_count(m); i++) {
		const struct xstate_conn *c = xstate_conn_at(m, i);
		snprintf(id, sizeof id, "%u", c->id);
		client_label(client, sizeof client, c);
		delay_rows(&t, id, client, c);
	}
	const struct xstate_conn *all = xstate_all(m);
	delay_rows(&t, "all", "", all);
	out_table_end(&t);

	uint64_t tnd = xstate_network_delay(all);
	out_json_seconds(out, fmt, "total_network_delay", (int64_t)tnd);
	out_json_seconds(out, fmt, "span", (int64_t)all->span);
	char lead[64];
	snprintf(lead, sizeof lead, "Total network delay: %.3f ms", (double)tnd / 1e6);
	out_sentence(out, fmt, lead, " of %.3f ms (%llu round trips waited on)",
		     (double)all->span / 1e6, (unsigned long long)all->waits);
	struct notes ns = { .n = 0 };
	collect_notes(&ns, m);
	out_notes(out, fmt, ns.ptr, ns.n, "xcapanalyse");
	out_json_close(out, fmt);
}

/* ---- the requests waited on ---- */

/* What the Extension column says of a request: its extension, or "core"
   for X11's core protocol; a protocol without extensions (RFB) leaves it
   empty rather than borrow X11's word. */
static const char *ext_label(const struct xstate_wait *w)
{
	if (w->ext[0])
		return w->ext;
	return !w->proto || strcmp(w->proto, "x11") == 0 ? "core" : "";
}

struct req_stat {
	uint32_t conn;		/* 0 when all connections are taken together */
	char ext[32], name[64];
	uint64_t count, total;
};

struct requests_view {
	struct req_stat *v;
	size_t n, cap;
	bool per_conn;
	int oom;
};

static void requests_wait(void *ctx, const struct xstate_wait *w)
{
	struct requests_view *v = ctx;
	struct req_stat *r = NULL;
	uint32_t conn = v->per_conn ? w->conn : 0;
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].conn == conn && strcmp(v->v[i].name, w->name) == 0 &&
		    strcmp(v->v[i].ext, ext_label(w)) == 0) {
			r = &v->v[i];
			break;
		}
	if (!r) {
		if (GROW(v->v, v->cap, v->n + 1) < 0) {
			v->oom = 1;
			return;
		}
		r = &v->v[v->n++];
		memset(r, 0, sizeof *r);
		r->conn = conn;
		snprintf(r->ext, sizeof r->ext, "%s", ext_label(w));
		snprintf(r->name, sizeof r->name, "%s", w->name);
	}
	r->count++;
	r->total += w->end - w->start;
}

struct requests_view *requests_view_new(struct xstate_model *m, bool per_conn)
{
	struct requests_view *v = calloc(1, sizeof *v);
	if (v) {
		v->per_conn = per_conn;
		if (xstate_on_wait(m, requests_wait, v) < 0) {
			free(v);
			return NULL;
		}
	}
	return v;
}

static int by_total(const void *a, const void *b)
{
	const struct req_stat *x = a, *y = b;
	if (x->conn != y->conn)
		return x->conn < y->conn ? -1 : 1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->name, y->name);
}

static const struct out_column request_cols[] = {
	{ "conn", "Conn", OUT_COL_UINT, 4, 0 },
	{ "extension", "Extension", OUT_COL_STR, -14, 0 },
	{ "request", "Request", OUT_COL_STR, -28, 0 },
	{ "count", "Count", OUT_COL_UINT, 7, 0 },
	{ "wait", "Total Wait", OUT_COL_SECONDS, 11, 6 },
	{ "mean_wait", "Mean Wait", OUT_COL_SECONDS, 11, 6 },
};

static void request_total(struct out_table *t, bool per_conn, uint32_t conn, uint64_t count,
			  uint64_t total)
{
	const char *label = per_conn && conn ? "connection total" : "total";
	struct out_cell cells[] = {
		{ .u = conn, .empty = !conn }, { .s = "" }, { .s = label }, { .u = count },
		{ .ns = (int64_t)total },
		{ .ns = count ? (int64_t)(total / count) : 0, .empty = !count },
	};
	out_table_total_row(t, per_conn ? cells : cells + 1);
}

void requests_view_print(struct requests_view *v, FILE *out, enum out_format fmt,
			 const struct xstate_model *m)
{
	if (v->n > 1)	/* v->v is NULL when nothing was waited on */
		qsort(v->v, v->n, sizeof *v->v, by_total);
	/* Without --per-conn the conn column is left out. */
	bool pc = v->per_conn;
	const struct out_column *cols = pc ? request_cols : request_cols + 1;
	size_t ncols = NCOLS(request_cols) - (pc ? 0 : 1);
	bool people = out_for_people(fmt);
	struct out_table t;
	out_json_open(out, fmt);
	out_table_begin(&t, out, fmt, cols, ncols, "requests");
	out_table_ranks(&t);
	uint64_t count = 0, total = 0, ccount = 0, ctotal = 0;
	for (size_t i = 0; i < v->n; i++) {
		const struct req_stat *r = &v->v[i];
		struct out_cell cells[] = {
			{ .u = r->conn }, { .s = r->ext }, { .s = r->name },
			{ .u = r->count }, { .ns = (int64_t)r->total },
			{ .ns = (int64_t)(r->total / r->count) },
		};
		out_table_row(&t, pc ? cells : cells + 1);
		count += r->count;
		total += r->total;
		ccount += r->count;
		ctotal += r->total;
		/* People get a subtotal under each connection. */
		if (pc && people && (i + 1 == v->n || v->v[i + 1].conn != r->conn)) {
			request_total(&t, pc, r->conn, ccount, ctotal);
			ccount = ctotal = 0;
		}
	}
	if (people)
		request_total(&t, pc, 0, count, total);
	out_table_end(&t);
	out_json_count(out, fmt, "count", count);
	out_json_seconds(out, fmt, "wait", (int64_t)total);
	struct notes ns = { .n = 0 };
	collect_notes(&ns, m);
	out_notes(out, fmt, ns.ptr, ns.n, "xcapanalyse");
	out_json_close(out, fmt);
}

void requests_view_free(struct requests_view *v)
{
	if (v)
		free(v->v);
	free(v);
}

/* ---- the round trips ---- */

/* Wait is the reply wait proper (from the client's last data, or the
   reply before a gap, to the reply: what Block Reply counts); Queued is
   the time before it that the client's own earlier output was still held
   back (Block Send or Recv), which the client, waiting since it wrote the
   request, felt as part of the wait.  Checks names the void request a
   GetInputFocus in the same packet sync_after (xcb_request_check, XSync). */
static const struct out_column trip_cols[] = {
	{ "time", "Time", OUT_COL_TIME, 12, 6 },
	{ "conn", "Conn", OUT_COL_UINT, 4, 0 },
	{ "seq", "Seq", OUT_COL_UINT, 7, 0 },
	{ "extension", "Extension", OUT_COL_STR, -14, 0 },
	{ "request", "Request", OUT_COL_STR, -24, 0 },
	{ "answer", "Answer", OUT_COL_STR, -6, 0 },
	{ "wait", "Wait", OUT_COL_SECONDS, 10, 6 },
	{ "queued", "Queued", OUT_COL_SECONDS, 10, 6 },
	{ "sync_after", "After", OUT_COL_UINT, 7, 0 },
	/* People get the burst as one "first-last"; programs get two numbers. */
	{ "burst", "Burst", OUT_COL_STR, 13, 0 },
	{ "burst_first", "", OUT_COL_UINT, 0, 0 },
	{ "burst_last", "", OUT_COL_UINT, 0, 0 },
	/* Only when the call sites are known (xcap-run's side file). */
	{ "site", "Site", OUT_COL_STR, -40, 0 },
	{ "detail", "Detail", OUT_COL_STR, -1, 0 },
};
enum { TRIP_BURST = 9, TRIP_SITE = 12 };
static const struct out_note trip_notes[] = {
	{ "queued", "before the wait, the client's own earlier output still held back "
		    "(Block Send or Recv)" },
	{ "sync_after", "the void request a GetInputFocus after it checked (xcb_request_check, XSync)" },
	{ "burst", "the requests answered together at the end of the wait" },
};

struct trips_view {
	struct out_table t;
	FILE *out;
	enum out_format fmt;
	const struct xstate_model *m;
	struct out_column cols[NCOLS(trip_cols)];
	size_t shown[NCOLS(trip_cols)];	/* which of trip_cols each of cols is */
	size_t ncols;
	uint64_t total;		/* the waits listed, summed */
	uint64_t queued;	/* and their queued parts */
	struct sites *sites;	/* NULL: no site column */
};

static void trips_wait(void *ctx, const struct xstate_wait *w)
{
	struct trips_view *v = ctx;
	uint64_t t0 = xstate_all(v->m)->first;
	char detail[512], burst[48] = "";
	const char *d = w->detail;
	if (w->sync_after) {
		/* What people need to see of a checked void request: its name. */
		snprintf(detail, sizeof detail, "%s%ssync after %s%s%s", w->detail, w->detail[0] ? " " : "",
			 w->after_ext[0] ? w->after_ext : "", w->after_ext[0] ? ":" : "",
			 w->after_name);
		d = detail;
	}
	bool one = w->burst_first == w->burst_last;
	if (!one)
		snprintf(burst, sizeof burst, "%llu-%llu", (unsigned long long)w->burst_first,
			 (unsigned long long)w->burst_last);
	struct out_cell cells[] = {
		{ .ns = (int64_t)(w->request_ts - t0) }, { .u = w->conn }, { .u = w->seq },
		{ .s = ext_label(w) }, { .s = w->name },
		{ .s = w->error ? "error" : "reply" },
		{ .ns = (int64_t)(w->end - w->start) }, { .ns = (int64_t)w->queued },
		{ .u = w->after_seq, .empty = !w->sync_after },
		{ .s = burst }, { .u = w->burst_first }, { .u = w->burst_last },
		{ .s = "" }, { .s = d },
	};
	if (v->sites) {
		const char *site = sites_of_wait(v->sites, w);
		cells[TRIP_SITE].s = site ? site : out_for_people(v->fmt) ? "-" : "";
	}
	struct out_cell row[NCOLS(trip_cols)];
	for (size_t i = 0; i < v->ncols; i++)
		row[i] = cells[v->shown[i]];
	out_table_row(&v->t, row);
	v->total += w->end - w->start;
	v->queued += w->queued;
}

struct trips_view *trips_view_new(struct xstate_model *m, FILE *out, enum out_format fmt,
				  struct sites *sites)
{
	struct trips_view *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->out = out;
	v->fmt = fmt;
	v->m = m;
	v->sites = sites;
	/* The columns, decided once: without the burst's form the format does
	   not use, and without sites when none are known; each row takes the
	   same cells (trips_wait). */
	bool people = out_for_people(fmt);
	for (size_t i = 0; i < NCOLS(trip_cols); i++) {
		bool people_col = i == TRIP_BURST, program_col = i == TRIP_BURST + 1 || i == TRIP_BURST + 2;
		if ((people_col && !people) || (program_col && people) || (i == TRIP_SITE && !sites))
			continue;
		v->shown[v->ncols] = i;
		v->cols[v->ncols++] = trip_cols[i];
	}
	if (xstate_on_wait(m, trips_wait, v) < 0) {
		free(v);
		return NULL;
	}
	out_json_open(out, fmt);
	out_table_begin(&v->t, out, fmt, v->cols, v->ncols, "round_trips");
	out_table_ranks(&v->t);
	out_table_notes(&v->t, trip_notes, sizeof trip_notes / sizeof trip_notes[0]);
	return v;
}

void trips_view_finish(struct trips_view *v, const struct xstate_model *m)
{
	if (!v)
		return;
	out_table_end(&v->t);
	const struct xstate_conn *all = xstate_all(m);
	out_json_count(v->out, v->fmt, "count", all->waits);
	out_json_seconds(v->out, v->fmt, "wait", (int64_t)v->total);
	out_json_seconds(v->out, v->fmt, "queued", (int64_t)v->queued);
	char queued[96] = "";
	if (v->queued)
		snprintf(queued, sizeof queued, ", and %.3f ms before that with their own output still queued",
			 (double)v->queued / 1e6);
	out_sentence(v->out, v->fmt, "", "%llu round trips, %.3f ms waited%s",
		     (unsigned long long)all->waits, (double)v->total / 1e6, queued);
	struct notes ns = { .n = 0 };
	collect_notes(&ns, m);
	out_notes(v->out, v->fmt, ns.ptr, ns.n, "xcapanalyse");
	out_json_close(v->out, v->fmt);
	free(v);
}
