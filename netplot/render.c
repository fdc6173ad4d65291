/*
 * render.c — drawing a view with cairo.
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

#include "dump.h"
#include "render.h"
#include "responses.h"
#include "sites.h"

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

/* Items drawn one by one while there are at most this many per pixel
   column of the plot; beyond it, aggregates per column. */
#define ONE_BY_ONE_PER_COLUMN 1.0

static void set_rgb(cairo_t *cr, struct np_rgb c) { cairo_set_source_rgb(cr, c.r, c.g, c.b); }

struct np_rgb np_state_colour(int state)
{
	switch (state) {
	case 1: return (struct np_rgb){ 1.0, 0.55, 0.0 };	/* Block Send: orange */
	case 2: return (struct np_rgb){ 0.55, 0.2, 0.8 };	/* Block Recv: violet */
	case 3: return (struct np_rgb){ 0.85, 0.1, 0.1 };	/* Block Reply: red */
	default: return (struct np_rgb){ 0.15, 0.35, 0.85 };	/* Idle: blue */
	}
}

struct np_rgb np_msg_colour(const struct np_model *m, const struct np_dir *d,
			    const struct np_msg *g)
{
	/* By the state the sender was in when the message ended, when the
	   state model ran; else by kind. */
	if (m->have_state)
		return np_state_colour(np_state_at(d, g->t));
	switch (g->kind) {
	case XMSG_REQUEST: return (struct np_rgb){ 0.15, 0.35, 0.85 };
	case XMSG_REPLY: return (struct np_rgb){ 0.0, 0.45, 0.55 };
	case XMSG_EVENT: return (struct np_rgb){ 0.5, 0.3, 0.1 };
	case XMSG_ERROR: return (struct np_rgb){ 0.85, 0.1, 0.1 };
	default: return (struct np_rgb){ 0.3, 0.3, 0.3 };
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
void np_view_fit_y(struct np_view *v)
{
	const struct np_conn *c = np_view_conn(v);
	v->y0 = 0;
	v->y1 = 1;
	if (!c)
		return;
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
	/* The window's edge is shown when it is within ten times the data's
	   extent; a window of megabytes over a few hundred bytes of data would
	   flatten them into a line. */
	if (pa.wlo <= pa.whi && isfinite(hi) && (double)pa.whi - lo <= 10 * fmax(hi - lo, 1))
		hi = fmax(hi, (double)pa.whi);
	if (!isfinite(lo)) {
		lo = 0;
		hi = 1;
	}
	double pad = fmax((hi - lo) * 0.04, 1);
	v->y0 = lo - pad;
	v->y1 = hi + pad;
}

void np_view_fit(struct np_view *v)
{
	const struct np_conn *c = np_view_conn(v);
	v->t0 = 0;
	v->t1 = v->m->t_end ? (double)v->m->t_end : 1;
	if (c) {
		double t0 = (double)c->first, t1 = (double)c->last;
		if (t1 <= t0)
			t1 = t0 + 1000;
		double tp = (t1 - t0) * 0.02;
		v->t0 = t0 - tp;
		v->t1 = t1 + tp;
	}
	np_view_fit_y(v);
}

double np_x(const struct np_view *v, double t) { return v->px + (t - v->t0) / (v->t1 - v->t0) * v->pw; }
double np_y(const struct np_view *v, double s) { return v->py + v->ph - (s - v->y0) / (v->y1 - v->y0) * v->ph; }
double np_t_at(const struct np_view *v, double x) { return v->t0 + (x - v->px) / v->pw * (v->t1 - v->t0); }
double np_seq_at(const struct np_view *v, double y) { return v->y0 + (v->py + v->ph - y) / v->ph * (v->y1 - v->y0); }

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
	items[n++] = (struct item){ "ack", NP_COL_ACK, true };
	items[n++] = (struct item){ "window", NP_COL_WIN, true };
	items[n++] = (struct item){ "retransmitted", NP_COL_RETRANS, true };
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
		set_rgb(cr, items[i].c);
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
	for (double s = ceil(v->y0 / ystep) * ystep; s <= v->y1; s += ystep) {
		double y = floor(np_y(v, s)) + 0.5;
		cairo_set_source_rgb(cr, 0.92, 0.92, 0.92);
		cairo_move_to(cr, v->px, y);
		cairo_line_to(cr, v->px + v->pw, y);
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		cairo_move_to(cr, v->px - 5, y);
		cairo_line_to(cr, v->px, y);
		cairo_stroke(cr);
		snprintf(buf, sizeof buf, "%.0f", fabs(s) < ystep / 2 ? 0.0 : s);	/* never "-0" */
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
		snprintf(title, sizeof title, "#%" PRIu32 " %s — %s", c->id, c->label,
			 v->dir == XDIR_C2S ? "requests (client → server)" : "replies (server → client)");
		cairo_set_font_size(cr, 13);
		cairo_move_to(cr, v->px, 17);
		cairo_show_text(cr, title);
		cairo_text_extents(cr, title, &te);
		cairo_set_font_size(cr, 10);
		draw_legend(cr, v, v->px + te.x_advance + 16);
		cairo_set_font_size(cr, 11);
		snprintf(buf, sizeof buf, "relative sequence number (bytes)");
		cairo_text_extents(cr, buf, &te);
		cairo_save(cr);
		cairo_move_to(cr, 13, v->py + v->ph / 2 + te.width / 2);
		cairo_rotate(cr, -M_PI / 2);
		cairo_show_text(cr, buf);
		cairo_restore(cr);
	}
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

struct grid {
	double x0, y0;
	size_t gw, gh;
	size_t **cell, *n, *cap;
	const struct np_label *c;
};

static void entry_rect(const struct grid *g, size_t e, double r[4])
{
	const struct np_label *l = &g->c[e & ~ANCHOR_BIT];
	if (e & ANCHOR_BIT) {
		r[0] = l->ax - ANCHOR_R;
		r[1] = l->ay - ANCHOR_R;
		r[2] = r[3] = 2 * ANCHOR_R;
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

static bool grid_clash(const struct grid *g, const double r[4], bool anchors)
{
	size_t cx0 = cell_of(r[0], g->x0, g->gw), cx1 = cell_of(r[0] + r[2], g->x0, g->gw);
	size_t cy0 = cell_of(r[1], g->y0, g->gh), cy1 = cell_of(r[1] + r[3], g->y0, g->gh);
	for (size_t cy = cy0; cy <= cy1; cy++)
		for (size_t cx = cx0; cx <= cx1; cx++) {
			size_t k = cy * g->gw + cx;
			for (size_t j = 0; j < g->n[k]; j++) {
				double o[4];
				if (!anchors && (g->cell[k][j] & ANCHOR_BIT))
					continue;
				entry_rect(g, g->cell[k][j], o);
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
		if (grid_add(&g, i | ANCHOR_BIT) < 0)
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
		/* first keeping off other messages' points, then not */
		for (int p = 0; p < 16 && !l->placed; p++) {
			double r[4] = { pos[p % 8][0], pos[p % 8][1], l->w, l->h };
			if (r[0] < x0 || r[1] < y0 || r[0] + r[2] > x1 || r[1] + r[3] > y1 ||
			    grid_clash(&g, r, p < 8))
				continue;
			l->bx = r[0];
			l->by = r[1];
			l->placed = true;
			if (grid_add(&g, (size_t)(l - c)) < 0) {
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

/* ---- layers ---- */

/* One pixel column of the plot and the items that fall in it (not a
   table column: those are xcapanalyse's out_column). */
struct px_column {
	double x;		/* left edge of the pixel column */
	size_t i0, i1;		/* items in it */
};

/* Index range of each pixel column of the plot over an array of items
   sorted by time: one binary search per column. */
static size_t columns(const struct np_view *v,
		      size_t (*lower)(const struct np_dir *, size_t, uint64_t),
		      const struct np_dir *d, struct px_column *col, size_t ncol)
{
	double tpp = (v->t1 - v->t0) / v->pw;
	size_t prev = lower(d, 0, np_tkey(v->t0));
	for (size_t i = 0; i < ncol; i++) {
		double te = v->t0 + (i + 1) * tpp;
		/* each column's end from the previous one's: a few steps */
		size_t next = lower(d, prev, np_tkey(te));
		col[i] = (struct px_column){ .x = v->px + i, .i0 = prev, .i1 = next };
		prev = next;
	}
	return ncol;
}

static size_t visible(const struct np_view *v, size_t (*lower)(const struct np_dir *, uint64_t),
		      const struct np_dir *d, size_t *i0, size_t *i1)
{
	*i0 = lower(d, np_tkey(v->t0));
	*i1 = lower(d, np_tkey(v->t1));
	if (*i1 < *i0)
		*i1 = *i0;
	return *i1 - *i0;
}

/* Keep coordinates where cairo's fixed point cannot overflow when zoomed
   far in on a point. */
static double cy(double y) { return fmax(-1e5, fmin(1e5, y)); }
static double cx(double x) { return fmax(-1e5, fmin(1e5, x)); }

static void draw_state_band(cairo_t *cr, const struct np_view *v, const struct np_dir *d)
{
	/* A strip along the bottom of the plot: per column the most severe
	   state any interval in it has (looking at a few intervals at most). */
	double tpp = (v->t1 - v->t0) / v->pw;
	double yb = v->py + v->ph - 7;
	size_t ncol = (size_t)v->pw;
	int run_state = -1;
	double run_x = v->px;
	size_t from = 0;	/* the columns' first intervals only move on */
	for (size_t i = 0; i <= ncol; i++) {
		int st = -1;
		if (i < ncol) {
			double a = v->t0 + i * tpp, b = a + tpp;
			st = 0;
			size_t k = from = np_iv_lower_from(d, from, np_tkey(a));
			for (int n = 0; n < 8 && k < d->niv && (double)d->iv[k].start < b; n++, k++)
				if (d->iv[k].state > st)
					st = d->iv[k].state;
		}
		if (st != run_state) {
			if (run_state >= 0) {
				set_rgb(cr, np_state_colour(run_state));
				cairo_rectangle(cr, run_x, yb, v->px + i - run_x, 6);
				cairo_fill(cr);
			}
			run_state = st;
			run_x = v->px + i;
		}
	}
}

struct np_rgb np_input_colour(int kind)
{
	switch (kind) {
	case XINPUT_KEY_PRESS:
	case XINPUT_KEY_RELEASE:
		return (struct np_rgb){ 0.80, 0.15, 0.55 };	/* deep pink: not a state's purple */
	case XINPUT_BUTTON_PRESS:
	case XINPUT_BUTTON_RELEASE:
		return (struct np_rgb){ 0.00, 0.55, 0.55 };	/* teal */
	default:
		return (struct np_rgb){ 0.45, 0.45, 0.45 };	/* motion: grey */
	}
}

/* Each input of the connection as a small triangle at its time along the
   top of the plot, and its response as a bar from there to the
   response's last activity as captured; an input nothing answered is a
   hollow triangle.  Where several fall in one pixel column only the
   first is drawn, and a bar only when it reaches past the last one. */
static void draw_inputs(cairo_t *cr, const struct np_view *v, const struct np_conn *c)
{
	if (!c->ninput)
		return;
	size_t i0 = np_input_lower(c, np_tkey(v->t0));
	/* A response begun before the view may still reach into it. */
	while (i0 > 0 && (double)c->input[i0 - 1].end >= v->t0 && c->ninput - i0 < 1u << 20)
		i0--;
	double top = v->py + 1, last_x = -1e9, last_bar = -1e9;
	cairo_set_line_width(cr, 1);
	for (size_t i = i0; i < c->ninput && (double)c->input[i].t <= v->t1; i++) {
		const struct np_input *in = &c->input[i];
		double x = cx(np_x(v, (double)in->t)), xe = cx(np_x(v, (double)in->end));
		set_rgb(cr, np_input_colour(in->kind));
		bool none = in->flags & XRESP_F_NO_RESPONSE;
		if (!none && xe > last_bar) {
			double a = fmax(x, last_bar);
			cairo_rectangle(cr, a, top + 8, fmax(xe - a, 1), 3);
			cairo_fill(cr);
			cairo_move_to(cr, floor(xe) + 0.5, top + 6);	/* the end, a bracket */
			cairo_line_to(cr, floor(xe) + 0.5, top + 13);
			cairo_stroke(cr);
			last_bar = xe;
		}
		if (x - last_x < 1)
			continue;
		last_x = x;
		cairo_move_to(cr, x - 4, top);
		cairo_line_to(cr, x + 4, top);
		cairo_line_to(cr, x, top + 8);
		cairo_close_path(cr);
		if (none)
			cairo_stroke(cr);
		else
			cairo_fill(cr);
	}
}

static void draw_gaps(cairo_t *cr, const struct np_view *v, const struct np_dir *d)
{
	/* Gaps are rare (a lossy capture has few): all of them are looked at. */
	for (size_t i = 0; i < d->ngap; i++) {
		const struct np_gap *g = &d->gap[i];
		double x = np_x(v, (double)g->t);
		if (x < v->px - 3 || x > v->px + v->pw + 3)
			continue;
		set_rgb(cr, NP_COL_GAP);
		cairo_rectangle(cr, x - 2, v->py, 4, v->ph);
		cairo_fill(cr);
		double y0 = cy(np_y(v, (double)g->seq)), y1 = cy(np_y(v, (double)g->seq + (double)g->len));
		set_rgb(cr, NP_COL_RETRANS);
		cairo_set_line_width(cr, 3);
		cairo_move_to(cr, x, y0);
		cairo_line_to(cr, x, fmin(y1, y0 - 2));
		cairo_stroke(cr);
		cairo_set_line_width(cr, 1);
	}
}

/* The acknowledged-data line (green) and the window line (yellow): the
   peer's acks as connected steps. */
static void draw_acks(cairo_t *cr, const struct np_view *v, const struct np_dir *peer,
		      struct px_column *col, size_t ncol, struct np_render_stats *st)
{
	size_t i0, i1;
	size_t n = visible(v, np_pkt_lower, peer, &i0, &i1);
	/* The columns' aggregates serve both lines: made once. */
	struct np_pagg *agg = NULL;
	if (n > v->pw * ONE_BY_ONE_PER_COLUMN) {
		agg = malloc(ncol * sizeof *agg);
		if (!agg)
			return;
		for (size_t i = 0; i < ncol; i++)
			if (col[i].i1 != col[i].i0)
				np_pkt_range(peer, col[i].i0, col[i].i1, &agg[i]);
	}
	for (int win = 1; win >= 0; win--) {
		cairo_new_path(cr);
		if (n <= v->pw * ONE_BY_ONE_PER_COLUMN) {
			/* from the last ack before the view to the first after it */
			size_t a = i0;
			while (a > 0 && i0 - a < 4096 && !(peer->pkt[a - 1].flags & XTCP_ACK))
				a--;
			if (a > 0)
				a--;
			size_t b = i1;
			while (b < peer->npkt && b - i1 < 4096 && !(peer->pkt[b].flags & XTCP_ACK))
				b++;
			if (b < peer->npkt)
				b++;
			bool have = false;
			double px = 0, py = 0;
			for (size_t i = a; i < b; i++) {
				const struct np_pkt *p = &peer->pkt[i];
				if (!(p->flags & XTCP_ACK))
					continue;
				double x = cx(np_x(v, (double)p->t));
				double y = cy(np_y(v, (double)p->ack + (win ? (double)p->win : 0)));
				if (have) {
					cairo_move_to(cr, px, py);
					cairo_line_to(cr, x, py);
					cairo_line_to(cr, x, y);
				}
				if (win == 0)
					st->items++;
				have = true;
				px = x;
				py = y;
			}
		} else {
			/* Per column: the range of values in it, joined to the
			   previous column's last (= highest, acks only grow) value. */
			bool have = false;
			double py = 0, pxl = 0;
			if (i0 > 0) {
				size_t a = i0;
				while (a > 0 && i0 - a < 64 && !(peer->pkt[a - 1].flags & XTCP_ACK))
					a--;
				if (a > 0) {
					const struct np_pkt *p = &peer->pkt[a - 1];
					have = true;
					py = cy(np_y(v, (double)p->ack + (win ? (double)p->win : 0)));
					pxl = v->px;
				}
			}
			for (size_t i = 0; i < ncol; i++) {
				if (col[i].i1 == col[i].i0)
					continue;
				const struct np_pagg *g = &agg[i];
				if (g->alo > g->ahi)
					continue;
				double lo = win ? (double)g->wlo : (double)g->alo;
				double hi = win ? (double)g->whi : (double)g->ahi;
				double x = col[i].x + 0.5, ylo = cy(np_y(v, lo)), yhi = cy(np_y(v, hi));
				if (have) {
					cairo_move_to(cr, pxl, py);
					cairo_line_to(cr, x, py);
				}
				cairo_move_to(cr, x, fmax(ylo, have ? py : ylo) + 0.5);
				cairo_line_to(cr, x, yhi - 0.5);
				have = true;
				py = yhi;
				pxl = x;
			}
			if (have) {
				cairo_move_to(cr, pxl, py);
				cairo_line_to(cr, v->px + v->pw, py);
			}
		}
		set_rgb(cr, win ? NP_COL_WIN : NP_COL_ACK);
		cairo_set_line_width(cr, win ? 1.5 : 2);
		cairo_stroke(cr);
	}
	cairo_set_line_width(cr, 1);
	free(agg);
}

static void mark(cairo_t *cr, double x, double y, struct np_rgb c, int shape)
{
	set_rgb(cr, c);
	if (shape == 0) {	/* diamond */
		cairo_move_to(cr, x, y - 4);
		cairo_line_to(cr, x + 4, y);
		cairo_line_to(cr, x, y + 4);
		cairo_line_to(cr, x - 4, y);
		cairo_close_path(cr);
		cairo_fill(cr);
	} else {		/* box */
		cairo_rectangle(cr, x - 3, y - 3, 6, 6);
		cairo_stroke(cr);
	}
}

static void draw_marks(cairo_t *cr, double x, double y, uint32_t marks)
{
	uint8_t fl = (uint8_t)(marks >> 16);
	if (fl & (XTCP_SYN | XTCP_FIN))
		mark(cr, x, y, NP_COL_SYNFIN, 0);
	if (fl & XTCP_RST)
		mark(cr, x, y, NP_COL_RST, 0);
	if (marks & XPKT_ZEROWIN)
		mark(cr, x, y, NP_COL_ZEROWIN, 1);
}

static void draw_data(cairo_t *cr, const struct np_view *v, const struct np_dir *d,
		      const struct np_dir *peer, struct px_column *col, size_t ncol,
		      struct np_render_stats *st)
{
	size_t i0, i1;
	size_t n = visible(v, np_pkt_lower, d, &i0, &i1);
	cairo_set_line_width(cr, 1);
	if (n <= v->pw * ONE_BY_ONE_PER_COLUMN) {
		for (int pass = 0; pass < 2; pass++) {	/* normal, then retransmitted on top */
			cairo_new_path(cr);
			for (size_t i = i0; i < i1; i++) {
				const struct np_pkt *p = &d->pkt[i];
				bool re = p->events & (XPKT_RETRANS | XPKT_OVERLAP);
				if (re != (pass == 1))
					continue;
				uint32_t ext = p->len + !!(p->flags & XTCP_SYN) + !!(p->flags & XTCP_FIN);
				if (!ext)
					continue;
				double x = floor(np_x(v, (double)p->t)) + 0.5;
				double ya = cy(np_y(v, (double)p->seq)), yb = cy(np_y(v, (double)p->seq + ext));
				/* tcptrace's segment: a vertical line with bars at both ends */
				cairo_move_to(cr, x, ya);
				cairo_line_to(cr, x, fmin(yb, ya - 1));
				cairo_move_to(cr, x - 3, ya);
				cairo_line_to(cr, x + 3, ya);
				cairo_move_to(cr, x - 3, yb);
				cairo_line_to(cr, x + 3, yb);
				st->items++;
			}
			set_rgb(cr, pass ? NP_COL_RETRANS : NP_COL_DATA);
			cairo_stroke(cr);
		}
		/* flags of data and of pure acks alike, where they happen */
		for (size_t i = i0; i < i1; i++) {
			const struct np_pkt *p = &d->pkt[i];
			uint32_t mk = p->events | (uint32_t)p->flags << 16;
			if (mk & (XPKT_ZEROWIN | (XTCP_SYN | XTCP_FIN | XTCP_RST) << 16))
				draw_marks(cr, floor(np_x(v, (double)p->t)) + 0.5,
					   cy(np_y(v, (double)p->seq)), mk);
		}
		/* zero windows the peer advertised: on the ack line */
		size_t a0, a1;
		if (visible(v, np_pkt_lower, peer, &a0, &a1) <= v->pw)
			for (size_t i = a0; i < a1; i++)
				if (peer->pkt[i].events & XPKT_ZEROWIN)
					mark(cr, floor(np_x(v, (double)peer->pkt[i].t)) + 0.5,
					     cy(np_y(v, (double)peer->pkt[i].ack)), NP_COL_ZEROWIN, 1);
		return;
	}
	for (int pass = 0; pass < 2; pass++) {
		cairo_new_path(cr);
		for (size_t i = 0; i < ncol; i++) {
			if (col[i].i1 == col[i].i0)
				continue;
			struct np_pagg g;
			np_pkt_range(d, col[i].i0, col[i].i1, &g);
			st->columns += pass == 0;
			if (g.dlo > g.dhi)
				continue;
			bool re = g.marks & (XPKT_RETRANS | XPKT_OVERLAP);
			double x = col[i].x + 0.5, ya = cy(np_y(v, (double)g.dlo)), yb = cy(np_y(v, (double)g.dhi));
			if (pass == 0) {
				cairo_move_to(cr, x, ya + 0.5);
				cairo_line_to(cr, x, fmin(yb, ya - 1) - 0.5);
			} else if (re) {
				/* a column holding retransmissions gets a red tick */
				cairo_move_to(cr, x, ya + 3);
				cairo_line_to(cr, x, ya - 3);
			}
			if (pass == 1 && (g.marks & (XPKT_ZEROWIN | (XTCP_SYN | XTCP_FIN | XTCP_RST) << 16))) {
				cairo_stroke(cr);
				draw_marks(cr, x, ya, g.marks);
				cairo_new_path(cr);
			}
		}
		set_rgb(cr, pass ? NP_COL_RETRANS : NP_COL_DATA);
		cairo_set_line_width(cr, pass ? 2 : 1);
		cairo_stroke(cr);
	}
	cairo_set_line_width(cr, 1);
}

static void arrow(cairo_t *cr, double x, double y, double fx, double fy)
{
	/* a line from (fx, fy) with its head at (x, y) */
	double dx = x - fx, dy = y - fy, l = hypot(dx, dy);
	if (l < 1)
		return;
	dx /= l;
	dy /= l;
	cairo_move_to(cr, fx, fy);
	cairo_line_to(cr, x, y);
	cairo_stroke(cr);
	cairo_move_to(cr, x, y);
	cairo_line_to(cr, x - 7 * dx + 3 * dy, y - 7 * dy - 3 * dx);
	cairo_line_to(cr, x - 7 * dx - 3 * dy, y - 7 * dy + 3 * dx);
	cairo_close_path(cr);
	cairo_fill(cr);
}

static void draw_messages(cairo_t *cr, const struct np_view *v, const struct np_dir *d,
			  struct px_column *col, size_t ncol, const struct np_render_opts *o,
			  struct np_render_stats *st)
{
	size_t i0, i1;
	size_t n = visible(v, np_msg_lower, d, &i0, &i1);
	if (!n)
		return;
	/* Candidates for a label: every visible message when few, else the
	   highest-priority message of each slot of a few pixels. */
	const double slot = 4;
	size_t cap = n <= v->pw / 2 ? n : (size_t)(v->pw / slot) + 1;
	uint32_t *idx = malloc(cap * sizeof *idx);
	struct np_label *lab = malloc(cap * sizeof *lab);
	if (!idx || !lab) {
		free(idx);
		free(lab);
		return;
	}
	size_t nc = 0;
	if (n <= v->pw / 2) {
		for (size_t i = i0; i < i1; i++)
			idx[nc++] = (uint32_t)i;
	} else {
		/* the message ticks per column, in one colour (their extremes) */
		cairo_new_path(cr);
		for (size_t i = 0; i < ncol; i++) {
			if (col[i].i0 == col[i].i1)
				continue;
			struct np_magg g;
			np_msg_range(d, col[i].i0, col[i].i1, &g);
			double x = col[i].x + 0.5;
			cairo_move_to(cr, x + 3, cy(np_y(v, (double)g.ehi)) - 3);
			cairo_line_to(cr, x, cy(np_y(v, (double)g.ehi)));
		}
		cairo_set_source_rgba(cr, 0.15, 0.35, 0.85, 0.5);
		cairo_stroke(cr);
		for (size_t s = 0; s < ncol && nc < cap; s += (size_t)slot) {
			size_t e = s + (size_t)slot < ncol ? s + (size_t)slot : ncol;
			if (col[s].i0 == col[e - 1].i1)
				continue;
			struct np_magg g;
			np_msg_range(d, col[s].i0, col[e - 1].i1, &g);
			if (g.count)
				idx[nc++] = g.best;
		}
	}
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, 10);
	char title[160];
	for (size_t k = 0; k < nc; k++) {
		const struct np_msg *g = &d->msg[idx[k]];
		cairo_text_extents_t te;
		np_msg_title(v->m, g, title, sizeof title);
		cairo_text_extents(cr, title, &te);
		lab[k] = (struct np_label){
			.ax = np_x(v, (double)g->t), .ay = np_y(v, (double)g->end),
			.w = te.x_advance + 2, .h = 11, .prio = g->prio, .order = idx[k],
		};
	}
	if (!o->no_labels)
		np_place_labels(lab, nc, v->px, v->py, v->px + v->pw, v->py + v->ph - 8);
	else
		for (size_t k = 0; k < nc; k++)
			lab[k].placed = false;
	st->label_candidates += nc;
	for (size_t k = 0; k < nc; k++) {
		const struct np_msg *g = &d->msg[idx[k]];
		const struct np_label *l = &lab[k];
		if (l->ay < v->py - 20 || l->ay > v->py + v->ph + 20)
			continue;
		set_rgb(cr, np_msg_colour(v->m, d, g));
		cairo_set_line_width(cr, 1);
		if (l->placed) {
			/* the line runs from the label's near corner to the point */
			double fx = l->bx < l->ax ? l->bx + l->w : l->bx;
			double fy = l->by < l->ay ? l->by + l->h : l->by;
			arrow(cr, l->ax, l->ay, fx, fy);
			np_msg_title(v->m, g, title, sizeof title);
			if (o->label_fn) {
				o->label_fn(o->label_ctx, l->bx + 1, l->by + 9, title,
					    np_msg_colour(v->m, d, g));
			} else {
				cairo_move_to(cr, l->bx + 1, l->by + 9);
				cairo_show_text(cr, title);
			}
			st->labels++;
		} else if (n <= v->pw / 2) {
			arrow(cr, l->ax, l->ay, l->ax + 7, l->ay - 7);
		}
		st->items += n <= v->pw / 2;
	}
	free(idx);
	free(lab);
}

/* The trace's marks: a dashed vertical line across the plot at each, its
   text at the top (every connection's graph shows every mark: a mark is a
   moment of the whole session).  Marks closer than a label's width to the
   previous one drawn keep their line and lose their text. */
static void draw_trace_marks(cairo_t *cr, const struct np_view *v, const struct np_render_opts *o)
{
	const struct np_model *m = v->m;
	double last_text = -1e9;
	cairo_save(cr);
	cairo_set_line_width(cr, 1);
	static const double dash[] = { 4, 3 };
	cairo_set_dash(cr, dash, 2, 0);
	cairo_set_font_size(cr, 10);
	for (size_t i = 0; i < m->nmark; i++) {
		const struct np_mark *k = &m->mark[i];
		double x = np_x(v, (double)k->t);
		if (x < v->px - 1 || x > v->px + v->pw + 1)
			continue;
		x = floor(x) + 0.5;
		cairo_set_source_rgb(cr, NP_COL_MARK.r, NP_COL_MARK.g, NP_COL_MARK.b);
		cairo_move_to(cr, x, v->py);
		cairo_line_to(cr, x, v->py + v->ph);
		cairo_stroke(cr);
		if (o->no_labels || x - last_text < 60)
			continue;
		char text[320];
		snprintf(text, sizeof text, "%s %s", xmark_source_name(k->source), np_str(m, k->text));
		/* right of the line, or left of it where the plot ends */
		cairo_text_extents_t te;
		cairo_text_extents(cr, text, &te);
		double tx = x + 3 + te.x_advance > v->px + v->pw ? x - 3 - te.x_advance : x + 3;
		if (o->label_fn) {
			o->label_fn(o->label_ctx, tx, v->py + 11, text, NP_COL_MARK);
		} else {
			/* on a pale ground: the top of the plot may hold labels */
			cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
			cairo_rectangle(cr, tx - 1, v->py + 1, te.x_advance + 2, 13);
			cairo_fill(cr);
			cairo_set_source_rgb(cr, NP_COL_MARK.r, NP_COL_MARK.g, NP_COL_MARK.b);
			cairo_move_to(cr, tx, v->py + 11);
			cairo_show_text(cr, text);
		}
		last_text = x;
	}
	cairo_restore(cr);
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
	const struct np_dir *d = &c->dir[v->dir], *peer = &c->dir[!v->dir];
	draw_axes(cr, v);
	cairo_save(cr);
	cairo_rectangle(cr, v->px, v->py, v->pw, v->ph);
	cairo_clip(cr);
	if (o->have_sel) {
		double a = np_x(v, fmin(o->sel_t0, o->sel_t1)), b = np_x(v, fmax(o->sel_t0, o->sel_t1));
		cairo_set_source_rgba(cr, 0.3, 0.5, 1.0, 0.15);
		cairo_rectangle(cr, cx(a), v->py, cx(b) - cx(a) + 1, v->ph);
		cairo_fill(cr);
	}
	size_t ncol = (size_t)v->pw;
	struct px_column *col = malloc(ncol * sizeof *col);
	if (col) {
		if (v->m->have_state)
			draw_state_band(cr, v, &c->dir[XDIR_C2S]);
		draw_gaps(cr, v, d);
		columns(v, np_pkt_lower_from, peer, col, ncol);
		draw_acks(cr, v, peer, col, ncol, st);
		columns(v, np_pkt_lower_from, d, col, ncol);
		draw_data(cr, v, d, peer, col, ncol, st);
		columns(v, np_msg_lower_from, d, col, ncol);
		draw_messages(cr, v, d, col, ncol, o, st);
		free(col);
	}
	draw_trace_marks(cr, v, o);
	if (!o->no_inputs)
		draw_inputs(cr, v, c);
	if (o->have_mark) {
		cairo_set_source_rgb(cr, 1, 0, 0);
		cairo_set_line_width(cr, 2);
		cairo_arc(cr, cx(np_x(v, o->mark_t)), cy(np_y(v, o->mark_seq)), 7, 0, 2 * M_PI);
		cairo_stroke(cr);
	}
	cairo_restore(cr);
	cairo_restore(cr);
}

/* ---- hit testing ---- */

#define HIT_RADIUS 6.0
#define HIT_MAX_ITEMS 4096	/* more under the pointer: say how many, not which */

void np_hit_test(const struct np_view *v, double x, double y, struct np_hit *h)
{
	memset(h, 0, sizeof *h);
	const struct np_conn *c = np_view_conn(v);
	if (!c || x < v->px || x > v->px + v->pw || y < v->py || y > v->py + v->ph)
		return;
	double ta = np_t_at(v, x - HIT_RADIUS), tb = np_t_at(v, x + HIT_RADIUS);
	uint64_t a = np_tkey(ta), b = np_tkey(tb);
	b += b < UINT64_MAX;
	/* The inputs' strip along the top: a marker near the pointer, else
	   the response bar under it. */
	if (y <= v->py + NP_INPUT_STRIP && c->ninput) {
		size_t j0 = np_input_lower(c, a), j1 = np_input_lower(c, b);
		double near = HIT_RADIUS + 1;
		for (size_t j = j0; j < j1 && j < j0 + HIT_MAX_ITEMS; j++) {
			double dx = fabs(x - np_x(v, (double)c->input[j].t));
			if (dx < near) {
				near = dx;
				h->kind = NP_HIT_INPUT;
				h->index = j;
			}
		}
		if (h->kind == NP_HIT_NONE) {
			uint64_t t = np_tkey(np_t_at(v, x));
			/* The latest input begun before the pointer whose response
			   reaches it. */
			for (size_t j = np_input_lower(c, t), n = 0; j > 0 && n < HIT_MAX_ITEMS; j--, n++)
				if (c->input[j - 1].end >= t && !(c->input[j - 1].flags & XRESP_F_NO_RESPONSE)) {
					h->kind = NP_HIT_INPUT;
					h->index = j - 1;
					break;
				}
		}
		if (h->kind == NP_HIT_INPUT) {
			h->dir = v->dir;
			h->t = (double)c->input[h->index].t;
			h->seq = np_seq_at(v, v->py + 5);
			return;
		}
	}
	double best = HIT_RADIUS * HIT_RADIUS + 1;
	size_t total = 0;
	/* messages first: they are what a user points at */
	for (int pass = 0; pass < 3; pass++) {
		const struct np_dir *d = &c->dir[pass == 2 ? !v->dir : v->dir];
		size_t i0 = pass == 0 ? np_msg_lower(d, a) : np_pkt_lower(d, a);
		size_t i1 = pass == 0 ? np_msg_lower(d, b) : np_pkt_lower(d, b);
		total += i1 - i0;
		size_t j0 = i0, j1 = i1;
		if (i1 - i0 > HIT_MAX_ITEMS) {
			if (pass != 0)
				continue;
			/* too many messages: the most important one (the one
			   likely labelled) is the candidate */
			struct np_magg g;
			np_msg_range(d, i0, i1, &g);
			j0 = g.count ? g.best : 0;
			j1 = g.count ? j0 + 1 : 0;
		}
		for (size_t i = j0; i < j1; i++) {
			double px, py0, py1;
			if (pass == 0) {
				px = np_x(v, (double)d->msg[i].t);
				py0 = py1 = np_y(v, (double)d->msg[i].end);
			} else if (pass == 1) {
				const struct np_pkt *p = &d->pkt[i];
				uint32_t ext = p->len + !!(p->flags & XTCP_SYN) + !!(p->flags & XTCP_FIN);
				if (!ext)
					continue;
				px = np_x(v, (double)p->t);
				py0 = np_y(v, (double)p->seq + ext);
				py1 = np_y(v, (double)p->seq);
			} else {
				const struct np_pkt *p = &d->pkt[i];
				if (!(p->flags & XTCP_ACK))
					continue;
				px = np_x(v, (double)p->t);
				py0 = py1 = np_y(v, (double)p->ack);
			}
			double dy = y < py0 ? py0 - y : y > py1 ? y - py1 : 0, dx = x - px;
			double dd = dx * dx + dy * dy;
			/* messages win ties over the packet they ride in */
			if (dd < best - (pass == 0 ? 0.5 : 0)) {
				best = dd;
				h->kind = pass == 0 ? NP_HIT_MSG : pass == 1 ? NP_HIT_PKT : NP_HIT_ACK;
				h->dir = pass == 2 ? !v->dir : v->dir;
				h->index = i;
				if (pass == 0) {
					h->t = (double)d->msg[i].t;
					h->seq = (double)d->msg[i].end;
				} else {
					h->t = (double)d->pkt[i].t;
					h->seq = pass == 1 ? (double)d->pkt[i].seq : (double)d->pkt[i].ack;
				}
			}
		}
	}
	/* A mark's line, where nothing of the connection is nearer. */
	if (h->kind == NP_HIT_NONE) {
		double near = HIT_RADIUS;
		for (size_t i = 0; i < v->m->nmark; i++) {
			double dx = fabs(x - np_x(v, (double)v->m->mark[i].t));
			if (dx <= near) {
				near = dx;
				h->kind = NP_HIT_MARK;
				h->index = i;
				h->t = (double)v->m->mark[i].t;
				h->seq = np_seq_at(v, y);
			}
		}
		if (h->kind == NP_HIT_MARK)
			return;
	}
	if (h->kind == NP_HIT_NONE && total > 0) {
		/* Too many to tell apart: say so only if the pointer is on what
		   is drawn there (the extents the columns show), not beside it. */
		const struct np_dir *d = &c->dir[v->dir], *peer = &c->dir[!v->dir];
		struct np_pagg da, pa;
		struct np_magg ma;
		np_pkt_range(d, np_pkt_lower(d, a), np_pkt_lower(d, b), &da);
		np_pkt_range(peer, np_pkt_lower(peer, a), np_pkt_lower(peer, b), &pa);
		np_msg_range(d, np_msg_lower(d, a), np_msg_lower(d, b), &ma);
		double s = np_seq_at(v, y), r = HIT_RADIUS * (v->y1 - v->y0) / v->ph;
		bool on = (da.dlo <= da.dhi && s >= (double)da.dlo - r && s <= (double)da.dhi + r) ||
			  (pa.alo <= pa.ahi && s >= (double)pa.alo - r && s <= (double)pa.ahi + r) ||
			  (ma.count && s >= (double)ma.elo - r && s <= (double)ma.ehi + r);
		if (on) {
			h->kind = NP_HIT_MANY;
			h->count = total;
			h->t = np_t_at(v, x);
			h->seq = s;
		}
	}
}

static void flags_text(uint8_t f, uint16_t ev, char *buf, size_t len)
{
	static const char *const fn[] = { "FIN", "SYN", "RST", "PSH", "ACK", "URG", "ECE", "CWR" };
	static const char *const en[] = { "retransmission", "overlap", "out-of-order",
					  "truncated", "zero-window", "window-probe" };
	size_t o = 0;
	buf[0] = '\0';
	for (int i = 0; i < 8; i++)
		if (f & (1 << i) && o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "", fn[i]);
	for (int i = 0; i < 6; i++)
		if (ev & (1 << i) && o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "", en[i]);
}

void np_describe(const struct np_view *v, const struct np_hit *h, char *buf, size_t len)
{
	const struct np_conn *c = np_view_conn(v);
	char ts[64];
	buf[0] = '\0';
	if (!c || h->kind == NP_HIT_NONE)
		return;
	np_format_time(h->t, 1, ts, sizeof ts);
	if (h->kind == NP_HIT_MARK) {
		const struct np_mark *k = &v->m->mark[h->index];
		if (k->conn)
			snprintf(buf, len, "mark (%s): %s\ntime %s\nconnection %u",
				 xmark_source_name(k->source), np_str(v->m, k->text), ts, k->conn);
		else
			snprintf(buf, len, "mark (%s): %s\ntime %s", xmark_source_name(k->source),
				 np_str(v->m, k->text), ts);
		return;
	}
	const struct np_dir *d = &c->dir[h->dir];
	const char *dn = h->dir == XDIR_C2S ? "client → server" : "server → client";
	if (h->kind == NP_HIT_INPUT) {
		const struct np_input *in = &c->input[h->index];
		const char *what = np_str(v->m, in->what);
		int o = snprintf(buf, len, "input %s%s%s\ntime %s\n", xinput_kind_name(in->kind),
				 *what ? " " : "", what, ts);
		if (o < 0 || (size_t)o >= len)
			return;
		if (in->flags & XRESP_F_NO_RESPONSE)
			o += snprintf(buf + o, len - (size_t)o, "no visible response\n");
		else
			o += snprintf(buf + o, len - (size_t)o,
				      "response %.3f ms as the display saw it (%.3f ms of it added for "
				      "the capture point)\nends at %.6f s\n",
				      in->response / 1e6, in->added / 1e6, (double)in->end / 1e9);
		if ((size_t)o < len)
			o += snprintf(buf + o, len - (size_t)o,
				      "bytes %" PRIu64 " client → server, %" PRIu64 " server → client; "
				      "%" PRIu64 " round trips",
				      in->bytes[0], in->bytes[1], in->trips);
		if ((size_t)o < len && in->pixels)
			o += snprintf(buf + o, len - (size_t)o, "; %" PRIu64 " pixels", in->pixels);
		if ((size_t)o < len && (in->flags & ~XRESP_F_NO_RESPONSE))
			snprintf(buf + o, len - (size_t)o, "\n%s%s%s%s",
				 in->flags & XRESP_F_CUT ? "cut short by the next input " : "",
				 in->flags & XRESP_F_UNCERTAIN ? "uncertain (capture lost bytes) " : "",
				 in->flags & XRESP_F_SYNTHETIC ? "sent with SendEvent " : "",
				 in->flags & XRESP_F_NO_RTT ? "round trip unknown, nothing added" : "");
	} else if (h->kind == NP_HIT_MANY) {
		snprintf(buf, len, "%zu packets and messages here; zoom in\ntime %s", h->count, ts);
	} else if (h->kind == NP_HIT_MSG) {
		const struct np_msg *g = &d->msg[h->index];
		static const char *const kinds[] = { "?", "setup", "request", "reply", "event",
						     "error", "unknown" };
		char title[160], lat[64] = "";
		np_msg_title(v->m, g, title, sizeof title);
		if (g->kind == XMSG_REQUEST && g->reply_t)
			snprintf(lat, sizeof lat, "\nreply latency %.3f ms", (g->reply_t - g->t) / 1e6);
		/* The client blocked on it: the wait, and how much of it was its
		   own output still queued before the request left. */
		const struct np_wait *w = h->dir == XDIR_C2S ? np_conn_wait(c, g->seq) : NULL;
		char waited[224] = "";
		if (w) {
			double proper = (double)(w->reply - w->start) / 1e6, queued = (double)w->queued / 1e6;
			int o = snprintf(waited, sizeof waited, "\nclient waited %.3f ms", proper + queued);
			if (w->queued)
				o += snprintf(waited + o, sizeof waited - (size_t)o,
					      ", of which %.3f ms its own output was still queued", queued);
			if (w->burst_first != w->burst_last)
				snprintf(waited + o, sizeof waited - (size_t)o,
					 "\n(or on seq %" PRIu64 "..%" PRIu64 ": answered together)",
					 w->burst_first, w->burst_last);
		}
		/* The code that waited, when xcap-run recorded it (TRACE.sites). */
		char stack[1024] = "";
		const char *f = NULL;
		size_t nf = w && v->sites ? sites_stack_of(v->sites, c->client.port, w->seq,
							   w->burst_first, w->burst_last,
							   v->m->t0 + w->start, v->m->t0 + w->reply, &f)
					  : 0;
		for (size_t i = 0, o = 0; i < nf && i < 12 && o < sizeof stack; i++, f += strlen(f) + 1)
			o += (size_t)snprintf(stack + o, sizeof stack - o, "%s  %s",
					      i ? "\n" : "\nstack:\n", f);
		const char *detail = np_str(v->m, g->detail);
		snprintf(buf, len, "%s %s\nX seq %" PRIu64 ", %" PRIu32 " bytes, %s\ntime %s, ends at seq %" PRId64
			 "%s%s%s%s%s%s",
			 kinds[g->kind < 7 ? g->kind : 0], title, g->seq, g->length, dn, ts, g->end,
			 lat, waited, *detail ? "\n" : "", detail,
			 g->flags & XMSG_F_UNCERTAIN ? "\n(uncertain: after a gap)" : "", stack);
	} else {
		const struct np_pkt *p = &d->pkt[h->index];
		char fl[160];
		flags_text(p->flags, p->events, fl, sizeof fl);
		snprintf(buf, len, "%s, %s\ntime %s\nseq %" PRId64 " len %" PRIu32 "\nack %" PRId64
			 " win %" PRIu32 "\n%s",
			 h->kind == NP_HIT_ACK ? "acknowledgement" : "data segment", dn, ts, p->seq,
			 p->len, p->ack, p->win, fl);
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
