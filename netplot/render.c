/*
 * render.c — drawing a view with cairo: the view and its transforms, the
 * axes and legend, label placing, and the graph's list of layers, walked
 * to draw (np_render), to find what is under the pointer (np_hit_test)
 * and to say what it is (np_describe).  The layers themselves, each with
 * its drawing, hit test and description, are layer_NAME.c (layer.h).
 *
 * Every layer picks one of two ways by how many of its items are visible:
 * few enough to draw one by one (each segment with its bars, each ack
 * step), or else one aggregate per pixel column from the LOD index.  Both
 * cost O(pixels + visible items), so a redraw takes the same time on a
 * thousand packets as on ten million.
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layer.h"

const struct np_rgb NP_COL_ACK = { 0.0, 0.70, 0.0 };
const struct np_rgb NP_COL_WIN = { 0.85, 0.75, 0.0 };
const struct np_rgb NP_COL_DATA = { 0.0, 0.0, 0.0 };
const struct np_rgb NP_COL_RETRANS = { 0.90, 0.0, 0.0 };
const struct np_rgb NP_COL_SYNFIN = { 1.0, 0.50, 0.0 };
const struct np_rgb NP_COL_RST = { 0.85, 0.0, 0.85 };
const struct np_rgb NP_COL_ZEROWIN = { 0.50, 0.0, 0.75 };
const struct np_rgb NP_COL_GAP = { 0.80, 0.80, 0.80 };
const struct np_rgb NP_COL_MARK = { 0.60, 0.10, 0.70 };	/* purple: nothing else is */

/* Under LeakSanitizer: fontconfig, which cairo's text uses, keeps its
   configuration until exit by design; that is not a leak of ours.  (LSan
   calls this hook when it exists; elsewhere it is an unused function.) */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libfontconfig.so\n";
}

const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
	return "print_suppressions=0";
}

struct np_rgb np_state_colour(int state)
{
	switch (state) {
	case 1: return (struct np_rgb){ 1.0, 0.55, 0.0 };	/* Block Send: orange */
	case 2: return (struct np_rgb){ 0.55, 0.2, 0.8 };	/* Block Recv: violet */
	case 3: return (struct np_rgb){ 0.85, 0.1, 0.1 };	/* Block Reply: red */
	default: return (struct np_rgb){ 0.15, 0.35, 0.85 };	/* Idle: blue */
	}
}

/* ---- view and transforms ---- */

const struct np_conn *np_view_conn(const struct np_view *v)
{
	return v->conn < v->m->nconn ? &v->m->conn[v->conn] : NULL;
}

void np_view_set_size(struct np_view *v, int w, int h)
{
	v->width = w;
	v->height = h;
	v->px = NP_MARGIN_LEFT;
	v->py = NP_MARGIN_TOP;
	v->pw = w - NP_MARGIN_LEFT - NP_MARGIN_RIGHT;
	v->ph = h - NP_MARGIN_TOP - NP_MARGIN_BOTTOM;
	if (v->pw < 10)
		v->pw = 10;
	if (v->ph < 10)
		v->ph = 10;
}

void np_view_init(struct np_view *v, const struct np_model *m, size_t conn, int dir, int w,
		  int h)
{
	memset(v, 0, sizeof *v);
	v->m = m;
	v->conn = conn;
	v->dir = dir;
	np_view_set_size(v, w, h);
	np_view_fit(v);
}

/* The y range that shows the data, the acks and (when near) the window
   of packets [t0, t1]. */
/* The family's graphs: from 0 (or the least value) to the most of the
   series that set the scale, in the view's time; the lanes, one row each. */
static void fit_y_graph(struct np_view *v, const struct np_conn *c)
{
	if (v->graph == NP_GRAPH_LANES) {
		size_t nl;
		np_lanes(c, v->dir, &nl);
		v->y0 = -0.5;
		v->y1 = (double)(nl ? nl : 1) - 0.5;
		return;
	}
	size_t n;
	const struct np_series *s = np_graph_series(c, v->dir, v->graph, &n);
	uint64_t a = np_tkey(v->t0), b = np_tkey(v->t1);
	double lo = 0, hi = -INFINITY;
	for (size_t k = 0; k < n; k++) {
		double l, h;
		size_t i0 = np_series_lower(&s[k], 0, a), i1 = np_series_lower(&s[k], i0, b + 1);
		if (s[k].no_scale || !np_series_range(&s[k], i0, i1, &l, &h))
			continue;
		lo = fmin(lo, l);
		hi = fmax(hi, h);
	}
	if (!(hi > lo))
		hi = lo + 1;
	/* room below the least value for the state band along the bottom */
	double pad = (hi - lo) * 0.05;
	v->y0 = lo - 1.5 * pad;
	v->y1 = hi + pad;
}

void np_view_fit_y(struct np_view *v)
{
	const struct np_conn *c = np_view_conn(v);
	v->y0 = 0;
	v->y1 = 1;
	if (!c)
		return;
	if (v->graph != NP_GRAPH_TSG) {
		fit_y_graph(v, c);
		return;
	}
	const struct np_dir *d = &c->dir[v->dir], *peer = &c->dir[!v->dir];
	uint64_t a = np_tkey(v->t0), b = np_tkey(v->t1);
	b += b < UINT64_MAX;
	struct np_pagg da, pa;
	size_t p0 = np_pkt_lower(peer, a);
	np_pkt_range(d, np_pkt_lower(d, a), np_pkt_lower(d, b), &da);
	/* the ack in force when the range begins counts too */
	np_pkt_range(peer, p0 > 0 ? p0 - 1 : 0, np_pkt_lower(peer, b), &pa);
	double lo = INFINITY, hi = -INFINITY;
	if (da.dlo <= da.dhi) {
		lo = (double)da.dlo;
		hi = (double)da.dhi;
	}
	if (pa.alo <= pa.ahi) {
		lo = fmin(lo, (double)pa.alo);
		hi = fmax(hi, (double)pa.ahi);
	}
	size_t m0 = np_msg_lower(d, a), m1 = np_msg_lower(d, b);
	if (m1 > m0) {
		struct np_magg ma;
		np_msg_range(d, m0, m1, &ma);
		lo = fmin(lo, (double)ma.elo);
		hi = fmax(hi, (double)ma.ehi);
	}
	/* The window's edge never sets the scale: a window of hundreds of
	   kilobytes over a few kilobytes of data would press them into the
	   bottom of the plot.  Where it leaves the plot its value is written
	   (layer_acks.c). */
	if (!isfinite(lo)) {
		lo = 0;
		hi = 1;
	}
	double pad = fmax((hi - lo) * 0.04, 1);
	v->y0 = lo - pad;
	v->y1 = hi + pad;
}

uint64_t np_conn_data_end(const struct np_conn *c)
{
	uint64_t end = c->first;
	for (int k = 0; k < 2; k++) {
		const struct np_dir *d = &c->dir[k];
		/* backwards to the last segment with payload: the tail is a few
		   packets (FIN, the last acks), not the trace */
		for (size_t i = d->npkt; i-- > 0;)
			if (d->pkt[i].len) {
				if (d->pkt[i].t > end)
					end = d->pkt[i].t;
				break;
			}
		if (d->nmsg && d->msg[d->nmsg - 1].t > end)
			end = d->msg[d->nmsg - 1].t;
		if (d->ngap && d->gap[d->ngap - 1].t > end)
			end = d->gap[d->ngap - 1].t;
	}
	return end;
}

/* The handshake and the setup are a few packets: a pause after them is
   looked for among the first of the connection's packets only. */
#define NP_START_PACKETS 24

uint64_t np_conn_data_start(const struct np_conn *c)
{
	uint64_t end = np_conn_data_end(c), prev = c->first, gap = 0, after = c->first, most = 0;
	const struct np_dir *a = &c->dir[0], *b = &c->dir[1];
	size_t i = 0, j = 0, npk = a->npkt + b->npkt;
	size_t look = npk / 20 > NP_START_PACKETS ? npk / 20 : NP_START_PACKETS;
	/* both directions merged by time; a pause comes after a few packets
	   (a handshake at least) and dwarfs every gap before it, so that
	   steady traffic has none.  Either side may end it: a client that
	   waits before its first request, or a server slow to answer the
	   setup (xlogo's Xvfb, 53 ms): the note says which. */
	for (size_t k = 0; k < look && (i < a->npkt || j < b->npkt); k++) {
		uint64_t t = j >= b->npkt || (i < a->npkt && a->pkt[i].t <= b->pkt[j].t) ?
				     a->pkt[i++].t : b->pkt[j++].t;
		if (t >= end)
			break;
		uint64_t d = k ? t - prev : 0;
		if (k >= 3 && d > gap && d > 4 * most) {
			gap = d;
			after = t;
		}
		if (d > most)
			most = d;
		prev = t;
	}
	return end > c->first && (double)gap > 0.1 * (double)(end - c->first) ? after : c->first;
}

void np_view_fit(struct np_view *v)
{
	const struct np_conn *c = np_view_conn(v);
	v->t0 = 0;
	v->t1 = v->m->t_end ? (double)v->m->t_end : 1;
	if (c) {
		/* The connection from its first packet to its last data: an
		   idle tail (a client that waits a second before closing) would
		   take most of the width; the picture says it is there
		   (draw_tail). */
		double t0 = (double)np_conn_data_start(c), t1 = (double)np_conn_data_end(c);
		/* a short tail (the close just after the last data) is shown */
		if (t1 <= t0 || (double)c->last - t1 <= 0.1 * (t1 - t0))
			t1 = (double)c->last;
		if (t1 <= t0)
			t1 = t0 + 1000;
		double tp = (t1 - t0) * 0.02;
		v->t0 = t0 - tp;
		v->t1 = t1 + tp;
	}
	np_view_fit_y(v);
}

int np_view_open(struct np_view *v, const struct np_model *m, const struct np_open *at, int w,
		 int h, char *err, size_t errlen)
{
	size_t ci = np_model_busiest(m);
	if (at->conn > 0) {
		if ((size_t)at->conn > m->nconn) {
			snprintf(err, errlen, "no such connection in the trace: '%ld'", at->conn);
			return -1;
		}
		ci = (size_t)at->conn - 1;
	}
	if (at->r0 >= 0 && at->r0 > (double)m->t_end) {
		/* A blank picture would pass for one of a quiet moment. */
		snprintf(err, errlen, "nothing in the range %.6g:%.6g (the trace spans 0:%.6f s)",
			 at->r0 / 1e9, at->r1 / 1e9, (double)m->t_end / 1e9);
		return -1;
	}
	np_view_init(v, m, ci, at->dir, w, h);
	if (at->graph > 0 && at->graph < NP_GRAPH_N) {
		v->graph = at->graph;
		np_view_fit_y(v);
	}
	if (at->r0 >= 0) {
		v->t0 = at->r0;
		v->t1 = at->r1;
		np_view_fit_y(v);
	}
	return 0;
}

/* Smallest spans: a nanosecond of time or a byte across the whole plot
   is as far as zooming means anything. */
#define MIN_T_SPAN 10.0
#define MIN_Y_SPAN 4.0

static void clamp_spans(struct np_view *v)
{
	if (v->t1 - v->t0 < MIN_T_SPAN) {
		double c = (v->t0 + v->t1) / 2;
		v->t0 = c - MIN_T_SPAN / 2;
		v->t1 = c + MIN_T_SPAN / 2;
	}
	if (v->y1 - v->y0 < MIN_Y_SPAN) {
		double c = (v->y0 + v->y1) / 2;
		v->y0 = c - MIN_Y_SPAN / 2;
		v->y1 = c + MIN_Y_SPAN / 2;
	}
}

void np_view_zoom(struct np_view *v, double fx, double fy, double x, double y)
{
	double t = np_t_at(v, x), s = np_seq_at(v, y);
	v->t0 = t - (t - v->t0) * fx;
	v->t1 = t + (v->t1 - t) * fx;
	v->y0 = s - (s - v->y0) * fy;
	v->y1 = s + (v->y1 - s) * fy;
	clamp_spans(v);
}

void np_view_pan(struct np_view *v, double dx, double dy)
{
	double dt = dx / v->pw * (v->t1 - v->t0), ds = dy / v->ph * (v->y1 - v->y0);
	v->t0 -= dt;
	v->t1 -= dt;
	v->y0 += ds;
	v->y1 += ds;
}

void np_view_zoom_rect(struct np_view *v, double x0, double y0, double x1, double y1)
{
	double ta = np_t_at(v, fmin(x0, x1)), tb = np_t_at(v, fmax(x0, x1));
	double sa = np_seq_at(v, fmax(y0, y1)), sb = np_seq_at(v, fmin(y0, y1));
	v->t0 = ta;
	v->t1 = tb;
	v->y0 = sa;
	v->y1 = sb;
	clamp_spans(v);
}

/* ---- the graphs: each its list of layers ---- */

/* Bottom to top: each is drawn over those before it, and the pointer
   finds the topmost first.  Each layer's drawing, hit test and
   description are in its file, layer_NAME.c.  Every graph marks the
   trace's marks and the inputs with their responses. */
static const struct np_layer *const tsg_layers[] = {
	&np_layer_state, &np_layer_gaps, &np_layer_acks, &np_layer_data,
	&np_layer_messages, &np_layer_marks, &np_layer_inputs,
};
static const struct np_layer *const series_layers[] = {
	&np_layer_state, &np_layer_series, &np_layer_marks, &np_layer_inputs,
};
static const struct np_layer *const lanes_layers[] = {
	&np_layer_state, &np_layer_lanes, &np_layer_marks, &np_layer_inputs,
};

struct graph {
	const char *title;		/* after the connection's name */
	const char *ylabel;
	const struct np_layer *const *layers;
	size_t nlayers;
};
#define LAYERS(a) a, sizeof a / sizeof *a
static const struct graph graphs[NP_GRAPH_N] = {
	[NP_GRAPH_TSG] = { "", "relative sequence number (bytes)", LAYERS(tsg_layers) },
	[NP_GRAPH_RTT] = { "round-trip time", "round-trip time (ms)", LAYERS(series_layers) },
	[NP_GRAPH_TPUT] = { "throughput", "throughput (bytes/s)", LAYERS(series_layers) },
	[NP_GRAPH_OWIN] = { "outstanding data", "bytes outstanding", LAYERS(series_layers) },
	[NP_GRAPH_SSIZE] = { "segment sizes", "segment size (bytes)", LAYERS(series_layers) },
	[NP_GRAPH_LANES] = { "the protocol's lanes", "kind of message, most frequent on top",
			     LAYERS(lanes_layers) },
};

static const struct graph *graph_of(const struct np_view *v)
{
	return &graphs[v->graph > 0 && v->graph < NP_GRAPH_N ? v->graph : 0];
}

const char *np_graph_title(int g)
{
	return graphs[g > 0 && g < NP_GRAPH_N ? g : 0].title;
}

const char *np_graph_ylabel(int g)
{
	return graphs[g > 0 && g < NP_GRAPH_N ? g : 0].ylabel;
}

/* ---- axes ---- */

double np_num_step(double span, int want)
{
	if (!(span > 0) || want < 1)
		return 1;
	double raw = span / want, p = pow(10, floor(log10(raw))), f = raw / p;
	double step = f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10;
	return step * p;
}

double np_time_step(double span_ns, int want)
{
	static const double big[] = {
		1e9, 2e9, 5e9, 10e9, 15e9, 30e9,		/* seconds */
		60e9, 120e9, 300e9, 600e9, 900e9, 1800e9,	/* minutes */
		3600e9, 7200e9, 10800e9, 21600e9, 43200e9, 86400e9,
	};
	double raw = span_ns / (want < 1 ? 1 : want);
	if (raw < 0.75e9) {
		double s = np_num_step(span_ns, want);
		return s < 1 ? 1 : s;
	}
	for (size_t i = 0; i < sizeof big / sizeof *big; i++)
		if (big[i] >= raw * 0.75)
			return big[i];
	return np_num_step(span_ns / 86400e9, want) * 86400e9;
}

void np_format_time(double ns, double step_ns, char *buf, size_t len)
{
	int digits = 0;
	for (double s = 1e9; s > step_ns * 1.0001 && digits < 9; s /= 10)
		digits++;
	const char *sign = ns < 0 ? "-" : "";
	ns = fabs(ns);
	/* Integer arithmetic on rounded units, so 0.3 s never prints as
	   0:00:00.2999. */
	uint64_t unit = 1;
	for (int i = digits; i < 9; i++)
		unit *= 10;
	uint64_t units = (uint64_t)llround(ns / (double)unit);
	uint64_t per_s = 1000000000ull / unit;
	uint64_t secs = units / per_s, frac = units % per_s;
	uint64_t h = secs / 3600, mi = secs / 60 % 60, s = secs % 60;
	if (digits)
		snprintf(buf, len, "%s%" PRIu64 ":%02" PRIu64 ":%02" PRIu64 ".%0*" PRIu64, sign, h, mi,
			 s, digits, frac);
	else
		snprintf(buf, len, "%s%" PRIu64 ":%02" PRIu64 ":%02" PRIu64, sign, h, mi, s);
}

/* What the colours mean, right-aligned on the title line, so that a
   picture pasted into a bug report explains itself; dropped when the
   title leaves no room. */
static void draw_legend(cairo_t *cr, const struct np_view *v, double from)
{
	struct item { const char *name; struct np_rgb c; bool line; } items[8];
	size_t n = 0;
	if (v->graph == NP_GRAPH_TSG) {
		items[n++] = (struct item){ "ack", NP_COL_ACK, true };
		items[n++] = (struct item){ "window", NP_COL_WIN, true };
		items[n++] = (struct item){ "retransmitted", NP_COL_RETRANS, true };
	} else if (v->graph != NP_GRAPH_LANES && np_view_conn(v)) {
		size_t ns;
		const struct np_series *s = np_graph_series(np_view_conn(v), v->dir, v->graph, &ns);
		for (size_t i = 0; i < ns && n < 4; i++)
			items[n++] = (struct item){ s[i].name, np_series_colour(s[i].colour), true };
	}
	if (v->m->have_state) {
		static const char *const st[] = { "Idle", "Block Send", "Block Recv", "Block Reply" };
		for (int i = 0; i < 4; i++)
			items[n++] = (struct item){ st[i], np_state_colour(i), false };
	}
	double w = 0;
	cairo_text_extents_t te;
	for (size_t i = 0; i < n; i++) {
		cairo_text_extents(cr, items[i].name, &te);
		w += 14 + te.x_advance + 10;
	}
	double x = v->px + v->pw - w;
	if (x < from)
		return;
	for (size_t i = 0; i < n; i++) {
		np_set_rgb(cr, items[i].c);
		if (items[i].line) {
			cairo_set_line_width(cr, 2);
			cairo_move_to(cr, x, 13.5);
			cairo_line_to(cr, x + 10, 13.5);
			cairo_stroke(cr);
		} else {
			cairo_rectangle(cr, x, 9, 10, 8);
			cairo_fill(cr);
		}
		cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
		cairo_move_to(cr, x + 14, 17);
		cairo_show_text(cr, items[i].name);
		cairo_text_extents(cr, items[i].name, &te);
		x += 14 + te.x_advance + 10;
	}
	cairo_set_line_width(cr, 1);
}

static void draw_axes(cairo_t *cr, const struct np_view *v)
{
	char buf[64];
	cairo_text_extents_t te;
	cairo_set_line_width(cr, 1);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, 11);

	/* time: as many ticks as labels fit, measured with the decimals the
	   step itself needs (a finer step means longer labels) */
	int want = 12;
	double step;
	for (;;) {
		step = np_time_step(v->t1 - v->t0, want);
		np_format_time(fmax(fabs(v->t0), fabs(v->t1)), step, buf, sizeof buf);
		cairo_text_extents(cr, buf, &te);
		double n = (v->t1 - v->t0) / step;
		if (want <= 2 || n * (te.width + 20) <= v->pw)
			break;
		want--;
	}
	double last_right = -1e9;	/* right end of the last time label drawn */
	for (double t = ceil(v->t0 / step) * step; t <= v->t1; t += step) {
		double x = floor(np_x(v, t)) + 0.5;
		cairo_set_source_rgb(cr, 0.92, 0.92, 0.92);
		cairo_move_to(cr, x, v->py);
		cairo_line_to(cr, x, v->py + v->ph);
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		cairo_move_to(cr, x, v->py + v->ph);
		cairo_line_to(cr, x, v->py + v->ph + 5);
		cairo_stroke(cr);
		np_format_time(t, step, buf, sizeof buf);
		cairo_text_extents(cr, buf, &te);
		/* centred under its tick, but never off the picture */
		double lx = fmin(fmax(x - te.width / 2, 2), v->width - te.width - 2);
		if (lx < last_right + 6)
			continue;	/* pushed into its neighbour at the edge */
		last_right = lx + te.width;
		cairo_move_to(cr, lx - te.x_bearing, v->py + v->ph + 18);
		cairo_show_text(cr, buf);
	}
	double ystep = np_num_step(v->y1 - v->y0, (int)(v->ph / 40) < 2 ? 2 : (int)(v->ph / 40));
	/* as many decimals as the step needs (round-trip times in ms) */
	int ydigits = ystep >= 1 ? 0 : (int)ceil(-log10(ystep) - 1e-9);
	if (v->graph == NP_GRAPH_LANES)
		ystep = INFINITY;	/* the rows are named in the plot */
	for (double s = ceil(v->y0 / ystep) * ystep; isfinite(ystep) && s <= v->y1; s += ystep) {
		double y = floor(np_y(v, s)) + 0.5;
		cairo_set_source_rgb(cr, 0.92, 0.92, 0.92);
		cairo_move_to(cr, v->px, y);
		cairo_line_to(cr, v->px + v->pw, y);
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		cairo_move_to(cr, v->px - 5, y);
		cairo_line_to(cr, v->px, y);
		cairo_stroke(cr);
		snprintf(buf, sizeof buf, "%.*f", ydigits, fabs(s) < ystep / 2 ? 0.0 : s);	/* never "-0" */
		cairo_text_extents(cr, buf, &te);
		cairo_move_to(cr, v->px - 8 - te.width - te.x_bearing, y + 4);
		cairo_show_text(cr, buf);
	}
	cairo_rectangle(cr, v->px + 0.5, v->py + 0.5, v->pw - 1, v->ph - 1);
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_stroke(cr);

	const struct np_conn *c = np_view_conn(v);
	snprintf(buf, sizeof buf, "%s", "time (h:mm:ss since the trace began)");
	cairo_text_extents(cr, buf, &te);
	cairo_move_to(cr, v->px + v->pw - te.width - 2, v->py + v->ph + 34);
	cairo_show_text(cr, buf);
	if (c) {
		char title[256];
		const struct graph *gr = graph_of(v);
		snprintf(title, sizeof title, "#%" PRIu32 " %s — %s%s%s", c->id, c->label,
			 v->dir == XDIR_C2S ? "requests (client → server)" : "replies (server → client)",
			 *gr->title ? " — " : "", gr->title);
		cairo_set_font_size(cr, 13);
		cairo_move_to(cr, v->px, 17);
		cairo_show_text(cr, title);
		cairo_text_extents(cr, title, &te);
		cairo_set_font_size(cr, 10);
		draw_legend(cr, v, v->px + te.x_advance + 16);
		cairo_set_font_size(cr, 11);
		snprintf(buf, sizeof buf, "%s", graph_of(v)->ylabel);
		cairo_text_extents(cr, buf, &te);
		cairo_save(cr);
		cairo_move_to(cr, 13, v->py + v->ph / 2 + te.width / 2);
		cairo_rotate(cr, -M_PI / 2);
		cairo_show_text(cr, buf);
		cairo_restore(cr);
	}
}

/* The connection goes on after the view, idle: say so under the time
   axis, so that a picture ending with the data does not pass for the
   connection's end. */
static void draw_tail(cairo_t *cr, const struct np_view *v, const struct np_render_opts *o,
		      const struct np_conn *c, double x)
{
	uint64_t end = np_conn_data_end(c);
	if ((double)c->last <= v->t1 || (double)end > v->t1)
		return;
	bool fin = false;
	for (int k = 0; k < 2; k++)
		for (size_t i = c->dir[k].npkt, n = 0; i-- > 0 && n < 8; n++)
			fin |= (c->dir[k].pkt[i].flags & (XTCP_FIN | XTCP_RST)) != 0;
	char when[64], buf[200];
	np_format_time((double)c->last, 1e6, when, sizeof when);
	snprintf(buf, sizeof buf, "then idle %.3f s to its %s at %s (zoom out to see it) →",
		 (double)(c->last - end) / 1e9, fin ? "close" : "last packet", when);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_ITALIC, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, 11);
	np_show_text(cr, o, x, v->py + v->ph + 34, buf, (struct np_rgb){ 0.35, 0.35, 0.35 });
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
}

/* The connection began before the view and waited: say so under the
   time axis, as the tail is said (after it then).  Returns where the
   tail's note may begin. */
static double draw_head(cairo_t *cr, const struct np_view *v, const struct np_render_opts *o,
		      const struct np_conn *c)
{
	uint64_t start = np_conn_data_start(c);
	if ((double)c->first >= v->t0 || start == c->first || (double)start < v->t0)
		return v->px;
	/* the pause ends at start, with the side that sent then; it began
	   at the packet before it */
	uint64_t before = c->first;
	for (int k = 0; k < 2; k++) {
		size_t i = np_pkt_lower(&c->dir[k], start);
		if (i > 0 && c->dir[k].pkt[i - 1].t > before)
			before = c->dir[k].pkt[i - 1].t;
	}
	size_t i = np_pkt_lower(&c->dir[XDIR_C2S], start);
	bool client = i < c->dir[XDIR_C2S].npkt && c->dir[XDIR_C2S].pkt[i].t == start;
	char when[64], buf[200];
	np_format_time((double)c->first, 1e6, when, sizeof when);
	snprintf(buf, sizeof buf, "← opened at %s, then %s %.3f s (zoom out to see it)", when,
		 client ? "the client idle" : "waiting on the server", (double)(start - before) / 1e9);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_ITALIC, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, 11);
	np_show_text(cr, o, v->px, v->py + v->ph + 34, buf, (struct np_rgb){ 0.35, 0.35, 0.35 });
	cairo_text_extents_t te;
	cairo_text_extents(cr, buf, &te);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	return v->px + te.x_advance + 24;
}

/* ---- labels ---- */

static bool overlaps(double ax, double ay, double aw, double ah, double bx, double by, double bw,
		     double bh)
{
	return ax < bx + bw && bx < ax + aw && ay < by + bh && by < ay + ah;
}

static int cmp_label(const void *a, const void *b)
{
	const struct np_label *const *x = a, *const *y = b;
	if ((*x)->prio != (*y)->prio)
		return (*x)->prio < (*y)->prio ? 1 : -1;
	return ((*x)->order > (*y)->order) - ((*x)->order < (*y)->order);
}

/* Placed boxes are kept in a coarse grid of cells so each check looks only
   at the boxes near it.  The grid also holds a small square around every
   anchor: a label hides the point another arrow hits only when it has no
   other place. */
#define CELL 64.0
#define ANCHOR_R 3.0
#define ANCHOR_BIT (((size_t)-1 >> 1) + 1)	/* entry is an anchor, not a label */
#define LEADER_BIT (ANCHOR_BIT >> 1)		/* entry is a placed label's leader line */
#define BRACKET_BIT (LEADER_BIT >> 1)		/* entry is a run's bracket */
#define ENTRY_KIND (ANCHOR_BIT | LEADER_BIT | BRACKET_BIT)

struct grid {
	double x0, y0;
	size_t gw, gh;
	size_t **cell, *n, *cap;
	const struct np_label *c;
};

/* The leader's box: from the label's near corner to the anchor, less the
   few pixels round the anchor (its own point). */
static void leader_rect(const struct np_label *l, double bx, double by, double r[4])
{
	double fx = bx < l->ax ? bx + l->w : bx, fy = by < l->ay ? by + l->h : by;
	/* the anchor's end pulled towards the corner */
	double ax = fabs(fx - l->ax) > 2 * ANCHOR_R ? l->ax + copysign(ANCHOR_R, fx - l->ax) : l->ax;
	double ay = fabs(fy - l->ay) > 2 * ANCHOR_R ? l->ay + copysign(ANCHOR_R, fy - l->ay) : l->ay;
	double x0 = fmin(fx, ax), x1 = fmax(fx, ax), y0 = fmin(fy, ay), y1 = fmax(fy, ay);
	r[0] = x0;
	r[1] = y0;
	r[2] = fmax(x1 - x0, 0.5);
	r[3] = fmax(y1 - y0, 0.5);
}

/* Whether the segment from (x0, y0) to (x1, y1) meets the box: the part
   of it inside each slab (Liang-Barsky) is not empty. */
static bool segment_meets(double x0, double y0, double x1, double y1, double bx, double by, double bw,
			  double bh)
{
	double t0 = 0, t1 = 1, dx = x1 - x0, dy = y1 - y0;
	const double p[4] = { -dx, dx, -dy, dy };
	const double q[4] = { x0 - bx, bx + bw - x0, y0 - by, by + bh - y0 };
	for (int i = 0; i < 4; i++) {
		if (p[i] == 0) {
			if (q[i] < 0)
				return false;	/* parallel, outside */
			continue;
		}
		double t = q[i] / p[i];
		if (p[i] < 0)
			t0 = fmax(t0, t);
		else
			t1 = fmin(t1, t);
		if (t0 > t1)
			return false;
	}
	return true;
}

bool np_bracket_crosses(const struct np_label *l, double x, double y, double w, double h)
{
	return l->bracket && (segment_meets(l->xa, l->ya - 3, l->xa, l->ya - 6, x, y, w, h) ||
			      segment_meets(l->xa, l->ya - 6, l->xb, l->yb - 6, x, y, w, h) ||
			      segment_meets(l->xb, l->yb - 6, l->xb, l->yb - 3, x, y, w, h));
}

static void entry_rect(const struct grid *g, size_t e, double r[4])
{
	const struct np_label *l = &g->c[e & ~ENTRY_KIND];
	if (e & BRACKET_BIT) {
		r[0] = fmin(l->xa, l->xb);
		r[1] = fmin(l->ya, l->yb) - 6;
		r[2] = fabs(l->xb - l->xa);
		r[3] = fabs(l->yb - l->ya) + 3;
	} else if ((e & ANCHOR_BIT) && l->sw > 0) {
		r[0] = l->sx;
		r[1] = l->sy;
		r[2] = l->sw;
		r[3] = l->sh;
	} else if (e & ANCHOR_BIT) {
		r[0] = l->ax - ANCHOR_R;
		r[1] = l->ay - ANCHOR_R;
		r[2] = r[3] = 2 * ANCHOR_R;
	} else if (e & LEADER_BIT) {
		leader_rect(l, l->bx, l->by, r);
	} else {
		r[0] = l->bx;
		r[1] = l->by;
		r[2] = l->w;
		r[3] = l->h;
	}
}

static size_t cell_of(double v, double origin, size_t n)
{
	double k = floor((v - origin) / CELL);
	return k < 0 ? 0 : k >= (double)n ? n - 1 : (size_t)k;
}

/* Whether r overlaps an entry of a kind in `kinds` (0: labels,
   LEADER_BIT: and leaders, ANCHOR_BIT: and anchors, BRACKET_BIT: and
   the runs' brackets, crossed by r's box), other than those of label
   `self`. */
static bool grid_clash(const struct grid *g, const double r[4], size_t kinds, size_t self)
{
	size_t cx0 = cell_of(r[0], g->x0, g->gw), cx1 = cell_of(r[0] + r[2], g->x0, g->gw);
	size_t cy0 = cell_of(r[1], g->y0, g->gh), cy1 = cell_of(r[1] + r[3], g->y0, g->gh);
	for (size_t cy = cy0; cy <= cy1; cy++)
		for (size_t cx = cx0; cx <= cx1; cx++) {
			size_t k = cy * g->gw + cx;
			for (size_t j = 0; j < g->n[k]; j++) {
				double o[4];
				size_t e = g->cell[k][j];
				if ((e & ENTRY_KIND) & ~kinds || (e & ~ENTRY_KIND) == self)
					continue;
				if (e & BRACKET_BIT) {
					if (np_bracket_crosses(&g->c[e & ~ENTRY_KIND], r[0], r[1], r[2],
							       r[3]))
						return true;
					continue;
				}
				entry_rect(g, e, o);
				if (overlaps(r[0], r[1], r[2], r[3], o[0], o[1], o[2], o[3]))
					return true;
			}
		}
	return false;
}

static int grid_add(struct grid *g, size_t e)
{
	double r[4];
	entry_rect(g, e, r);
	size_t cx0 = cell_of(r[0], g->x0, g->gw), cx1 = cell_of(r[0] + r[2], g->x0, g->gw);
	size_t cy0 = cell_of(r[1], g->y0, g->gh), cy1 = cell_of(r[1] + r[3], g->y0, g->gh);
	for (size_t cy = cy0; cy <= cy1; cy++)
		for (size_t cx = cx0; cx <= cx1; cx++) {
			size_t k = cy * g->gw + cx;
			if (g->n[k] == g->cap[k]) {
				size_t nc = g->cap[k] ? g->cap[k] * 2 : 8;
				size_t *q = realloc(g->cell[k], nc * sizeof *q);
				if (!q)
					return -1;
				g->cell[k] = q;
				g->cap[k] = nc;
			}
			g->cell[k][g->n[k]++] = e;
		}
	return 0;
}

void np_place_labels(struct np_label *c, size_t n, double x0, double y0, double x1, double y1)
{
	struct grid g = { .x0 = x0, .y0 = y0, .c = c };
	g.gw = (size_t)fmax(1, ceil((x1 - x0) / CELL));
	g.gh = (size_t)fmax(1, ceil((y1 - y0) / CELL));
	g.cell = calloc(g.gw * g.gh, sizeof *g.cell);
	g.n = calloc(g.gw * g.gh, sizeof *g.n);
	g.cap = calloc(g.gw * g.gh, sizeof *g.cap);
	struct np_label **ord = malloc((n ? n : 1) * sizeof *ord);
	for (size_t i = 0; i < n; i++)
		c[i].placed = false;
	if (!ord || !g.cell || !g.n || !g.cap)
		goto out;	/* no labels rather than overlapping ones */
	for (size_t i = 0; i < n; i++) {
		ord[i] = &c[i];
		if (grid_add(&g, i | ANCHOR_BIT) < 0 ||
		    (c[i].bracket && grid_add(&g, i | BRACKET_BIT) < 0))
			goto out;
	}
	qsort(ord, n, sizeof *ord, cmp_label);
	for (size_t k = 0; k < n; k++) {
		struct np_label *l = ord[k];
		/* beside the anchor, then a little further out (a longer arrow
		   is better than no label): right above and below, left */
		const double pos[8][2] = {
			{ l->ax + 6, l->ay - 10 - l->h },
			{ l->ax + 6, l->ay + 10 },
			{ l->ax - 6 - l->w, l->ay - 10 - l->h },
			{ l->ax - 6 - l->w, l->ay + 10 },
			{ l->ax + 18, l->ay - 26 - l->h },
			{ l->ax + 18, l->ay + 26 },
			{ l->ax - 18 - l->w, l->ay - 26 - l->h },
			{ l->ax - 18 - l->w, l->ay + 26 },
		};
		/* first keeping off other messages' points, then not; never
		   on another label or across a run's bracket (its own too: a
		   bracket is drawn when its label is placed, and runs come
		   first), and the leader line across no label either */
		size_t self = (size_t)(l - c);
		for (int p = 0; p < 16 && !l->placed; p++) {
			double r[4] = { pos[p % 8][0], pos[p % 8][1], l->w, l->h }, lr[4];
			leader_rect(l, r[0], r[1], lr);
			if (r[0] < x0 || r[1] < y0 || r[0] + r[2] > x1 || r[1] + r[3] > y1 ||
			    grid_clash(&g, r, LEADER_BIT | BRACKET_BIT | (p < 8 ? ANCHOR_BIT : 0),
				       (size_t)-1) ||
			    grid_clash(&g, lr, 0, self))
				continue;
			l->bx = r[0];
			l->by = r[1];
			l->placed = true;
			if (grid_add(&g, self) < 0 || grid_add(&g, self | LEADER_BIT) < 0) {
				l->placed = false;	/* cannot record it: drop it */
				goto out;
			}
		}
	}
out:
	if (g.cell)
		for (size_t k = 0; k < g.gw * g.gh; k++)
			free(g.cell[k]);
	free(g.cell);
	free(g.n);
	free(g.cap);
	free(ord);
}

void np_render_prepare_text(cairo_t *cr)
{
	cairo_surface_t *s = cairo_surface_create_similar(cairo_get_target(cr),
							  CAIRO_CONTENT_COLOR, 1, 1);
	cairo_t *t = cairo_create(s);
	cairo_select_font_face(t, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	static const double sizes[] = { 10, 11, 13 };	/* labels, axes, title */
	char ascii[96];
	for (int i = 0; i < 95; i++)
		ascii[i] = (char)(' ' + i);
	ascii[95] = 0;
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		cairo_set_font_size(t, sizes[k]);
		cairo_move_to(t, 0, 0);
		cairo_show_text(t, ascii);
	}
	cairo_destroy(t);
	cairo_surface_destroy(s);
}

/* The selected item: a ring, and what it is written beside it in a box
   ("selected: request AllocColor"); a request answered later, a dashed
   line along its wait to the reply, with how long it took. */
static void draw_selection(cairo_t *cr, const struct np_view *v, const struct np_render_opts *o)
{
	const struct np_rgb sel = { 0.85, 0.0, 0.0 };
	double x = np_cx(np_x(v, o->mark_t)), y = np_cy(np_y(v, o->mark_seq));
	np_set_rgb(cr, sel);
	cairo_set_line_width(cr, 2);
	cairo_new_path(cr);
	cairo_arc(cr, x, y, 7, 0, 2 * M_PI);
	cairo_stroke(cr);
	cairo_set_line_width(cr, 1);
	if (o->mark_hit.kind == NP_HIT_NONE)
		return;
	char text[2048], caption[200];
	np_describe(v, &o->mark_hit, text, sizeof text);
	snprintf(caption, sizeof caption, "selected: %.*s", (int)strcspn(text, "\n"), text);
	const struct np_conn *c = np_view_conn(v);
	if (o->mark_hit.kind == NP_HIT_MSG && c) {
		const struct np_msg *g = &c->dir[o->mark_hit.dir].msg[o->mark_hit.index];
		if (g->kind == XMSG_REQUEST && g->reply_t > g->t) {
			double xr = np_cx(np_x(v, (double)g->reply_t));
			double dash[] = { 4, 3 };
			cairo_set_dash(cr, dash, 2, 0);
			cairo_move_to(cr, x + 7, y);
			cairo_line_to(cr, xr, y);
			cairo_stroke(cr);
			cairo_set_dash(cr, NULL, 0, 0);
			cairo_move_to(cr, xr, y - 5);
			cairo_line_to(cr, xr, y + 5);
			cairo_stroke(cr);
			size_t n = strlen(caption);
			snprintf(caption + n, sizeof caption - n, " — its reply %.3f ms later (dashed)",
				 (double)(g->reply_t - g->t) / 1e6);
		}
	}
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_BOLD);
	cairo_set_font_size(cr, 11);
	cairo_text_extents_t te;
	cairo_text_extents(cr, caption, &te);
	/* below right of the ring, kept inside the plot */
	double bx = fmin(fmax(x + 10, v->px + 2), v->px + v->pw - te.x_advance - 8);
	double by = y + 12 + 18 > v->py + v->ph ? y - 12 - 18 : y + 12;
	cairo_set_source_rgba(cr, 1, 1, 0.85, 0.95);
	cairo_rectangle(cr, bx, by, te.x_advance + 6, 16);
	cairo_fill_preserve(cr);
	np_set_rgb(cr, sel);
	cairo_stroke(cr);
	np_show_text(cr, o, bx + 3, by + 12, caption, sel);
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
}

void np_render_needs_packets(cairo_t *cr, const struct np_view *v, double cost_bytes)
{
	cairo_save(cr);
	cairo_rectangle(cr, v->px + 1, v->py + 1, v->pw - 2, v->ph - 2);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_fill(cr);
	char line[3][200];
	snprintf(line[0], sizeof line[0], "The %s graph is drawn from the trace's packets:",
		 np_graph_name(v->graph));
	snprintf(line[1], sizeof line[1],
		 "this span would read %.0f MB of the trace for one picture (its index holds",
		 cost_bytes / 1e6);
	snprintf(line[2], sizeof line[2],
		 "the time-sequence graph only).  Zoom in, or press 1 for the time-sequence graph.");
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, 13);
	cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
	for (int i = 0; i < 3; i++) {
		cairo_text_extents_t te;
		cairo_text_extents(cr, line[i], &te);
		cairo_move_to(cr, v->px + (v->pw - te.x_advance) / 2, v->py + v->ph / 2 + (i - 1) * 20);
		cairo_show_text(cr, line[i]);
	}
	cairo_restore(cr);
}

void np_render(cairo_t *cr, const struct np_view *v, const struct np_render_opts *o,
	       struct np_render_stats *st)
{
	struct np_render_opts none = { 0 };
	struct np_render_stats dummy;
	if (!o)
		o = &none;
	if (!st)
		st = &dummy;
	memset(st, 0, sizeof *st);
	cairo_save(cr);
	/* The same text wherever the picture is drawn: the window's screen
	   settings (subpixel order, hinting) are not the export's, and a
	   picture exported from the window is to be the one on the screen. */
	cairo_font_options_t *fo = cairo_font_options_create();
	cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
	cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_SLIGHT);
	cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_ON);
	cairo_set_font_options(cr, fo);
	cairo_font_options_destroy(fo);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	const struct np_conn *c = np_view_conn(v);
	if (!c) {
		cairo_set_source_rgb(cr, 0, 0, 0);
		cairo_move_to(cr, 20, 30);
		cairo_show_text(cr, "no connections in this trace");
		cairo_restore(cr);
		return;
	}
	draw_axes(cr, v);
	draw_tail(cr, v, o, c, draw_head(cr, v, o, c));	/* on one line */
	cairo_save(cr);
	cairo_rectangle(cr, v->px, v->py, v->pw, v->ph);
	cairo_clip(cr);
	if (o->have_sel) {
		double a = np_x(v, fmin(o->sel_t0, o->sel_t1)), b = np_x(v, fmax(o->sel_t0, o->sel_t1));
		cairo_set_source_rgba(cr, 0.3, 0.5, 1.0, 0.15);
		cairo_rectangle(cr, np_cx(a), v->py, np_cx(b) - np_cx(a) + 1, v->ph);
		cairo_fill(cr);
	}
	/* The pixel columns' scratch, shared by the layers (without it those
	   too many to draw one by one are left out). */
	size_t ncol = (size_t)v->pw;
	struct np_frame f = {
		.cr = cr, .v = v, .o = o, .st = st, .c = c,
		.d = &c->dir[v->dir], .peer = &c->dir[!v->dir],
		.col = malloc(ncol * sizeof *f.col), .ncol = ncol, .label_top = v->py,
	};
	const struct graph *gr = graph_of(v);
	for (size_t i = 0; i < gr->nlayers; i++)
		gr->layers[i]->draw(&f);
	free(f.col);
	if (o->have_mark)
		draw_selection(cr, v, o);
	cairo_restore(cr);
	cairo_restore(cr);
}

void np_hit_test(const struct np_view *v, double x, double y, struct np_hit *h)
{
	memset(h, 0, sizeof *h);
	const struct np_conn *c = np_view_conn(v);
	if (!c || x < v->px || x > v->px + v->pw || y < v->py || y > v->py + v->ph)
		return;
	struct np_probe p = {
		.x = x, .y = y,
		.a = np_tkey(np_t_at(v, x - NP_HIT_RADIUS)),
		.b = np_tkey(np_t_at(v, x + NP_HIT_RADIUS)),
		.seq = np_seq_at(v, y),
		.reach = NP_HIT_RADIUS * (v->y1 - v->y0) / v->ph,
		.best = NP_HIT_RADIUS * NP_HIT_RADIUS + 1,
	};
	p.b += p.b < UINT64_MAX;
	const struct graph *gr = graph_of(v);
	for (size_t i = gr->nlayers; i-- > 0;)
		if (gr->layers[i]->hit && gr->layers[i]->hit(v, &p, h))
			return;
	/* Nothing near enough, among items too many to tell apart: say so
	   only if the pointer is on what is drawn there, not beside it. */
	if (h->kind == NP_HIT_NONE && p.total > 0 && p.on_extent) {
		h->kind = NP_HIT_MANY;
		h->count = p.total;
		h->t = np_t_at(v, x);
		h->seq = p.seq;
	}
}

void np_describe(const struct np_view *v, const struct np_hit *h, char *buf, size_t len)
{
	const struct np_conn *c = np_view_conn(v);
	char when[64];
	buf[0] = '\0';
	if (!c || h->kind == NP_HIT_NONE)
		return;
	np_format_time(h->t, 1, when, sizeof when);
	if (h->kind == NP_HIT_MANY) {
		snprintf(buf, len, "%zu packets and messages here; zoom in\ntime %s", h->count, when);
		return;
	}
	const struct graph *gr = graph_of(v);
	for (size_t i = 0; i < gr->nlayers; i++)
		if (gr->layers[i]->kind == h->kind) {
			gr->layers[i]->describe(v, h, when, buf, len);
			return;
		}
}

void np_describe_region(const struct np_view *v, double t0, double t1, char *buf, size_t len)
{
	const struct np_conn *c = np_view_conn(v);
	struct np_region r;
	buf[0] = '\0';
	if (!c || np_region_stats(v->m, c, np_tkey(t0), np_tkey(t1), &r) < 0)
		return;
	char a[64], b[64];
	np_format_time(fmin(t0, t1), 1, a, sizeof a);
	np_format_time(fmax(t0, t1), 1, b, sizeof b);
	size_t o = (size_t)snprintf(buf, len,
		"Region %s – %s\nduration %.6f s\n"
		"client → server: %" PRIu64 " bytes in %" PRIu64 " packets, %.1f kB/s, %" PRIu64 " messages\n"
		"server → client: %" PRIu64 " bytes in %" PRIu64 " packets, %.1f kB/s, %" PRIu64 " messages\n",
		a, b, r.duration / 1e9, r.bytes[0], r.packets[0], r.bandwidth[0] / 1e3, r.messages[0],
		r.bytes[1], r.packets[1], r.bandwidth[1] / 1e3, r.messages[1]);
	if (o < len) {
		if (r.have_state) {
			double dur = r.duration ? (double)r.duration : 1;
			o += (size_t)snprintf(buf + o, len - o,
				"requests: Idle %.1f%%  Block Send %.1f%%  Block Recv %.1f%%  Block Reply %.1f%%\n"
				"replies:  Idle %.1f%%  Block Send %.1f%%  Block Recv %.1f%%\n",
				100 * r.state[0][0] / dur, 100 * r.state[0][1] / dur, 100 * r.state[0][2] / dur,
				100 * r.state[0][3] / dur, 100 * r.state[1][0] / dur, 100 * r.state[1][1] / dur,
				100 * r.state[1][2] / dur);
		} else {
			o += (size_t)snprintf(buf + o, len - o, "(no state model in this build)\n");
		}
	}
	if (o < len) {
		if (r.responded)
			o += (size_t)snprintf(buf + o, len - o,
				"inputs: %" PRIu64 " (%" PRIu64 " with a response), response p50 %.3f ms, "
				"p95 %.3f ms\n", r.inputs, r.responded, r.response_p50 / 1e6,
				r.response_p95 / 1e6);
		else if (r.inputs)
			o += (size_t)snprintf(buf + o, len - o,
				"inputs: %" PRIu64 " (none with a response)\n", r.inputs);
	}
	for (size_t i = 0; i < r.nrequests && i < 20 && o < len; i++) {
		const char *ext = np_str(v->m, r.requests[i].ext);
		o += (size_t)snprintf(buf + o, len - o, "%8" PRIu64 "  %s%s%s\n", r.requests[i].n, ext,
				      *ext ? ":" : "", np_str(v->m, r.requests[i].name));
	}
	if (r.nrequests > 20 && o < len)
		snprintf(buf + o, len - o, "   ... %zu more request names\n", r.nrequests - 20);
	np_region_free(&r);
}
