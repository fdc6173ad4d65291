/*
 * layer_lanes.c — the protocol's own lanes: one row per kind of message
 * (series.h, np_lanes; the most frequent at the top), each message a bar
 * from when it went to when its answer came (a tick when none), coloured
 * by the sender's state as the time-sequence graph colours its arrows;
 * like a profiler's flame chart laid on the connection's time.  The
 * message under the pointer is described as on the time-sequence graph.
 *
 * Belongs to: libnetplot, the renderer, usable headless (netplot/).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "layer.h"
#include "series.h"

static size_t lane_lower(const struct np_dir *d, const struct np_lane *l, size_t from, uint64_t t)
{
	size_t a = from, b = l->n;
	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (d->msg[l->msg[m]].t < t)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* Row r's centre: rows are y = nlane - 1 - r, so the first is on top. */
static double row_y(const struct np_view *v, size_t nlane, size_t r)
{
	return np_y(v, (double)(nlane - 1 - r));
}

static void draw(struct np_frame *f)
{
	const struct np_view *v = f->v;
	const struct np_dir *d = f->d;
	cairo_t *cr = f->cr;
	size_t nl;
	const struct np_lane *lane = np_lanes(f->c, v->dir, &nl);
	if (!nl)
		return;
	double rh = fabs(np_y(v, 0) - np_y(v, 1)), bh = fmax(fmin(rh * 0.7, 18), 1);
	uint64_t a = np_tkey(v->t0), b = np_tkey(v->t1);
	/* a request's bar may begin before the view: look back a little */
	for (size_t r = 0; r < nl; r++) {
		const struct np_lane *l = &lane[r];
		double yc = row_y(v, nl, r);
		if (yc < v->py - rh || yc > v->py + v->ph + rh)
			continue;
		size_t i0 = lane_lower(d, l, 0, a), i1 = lane_lower(d, l, i0, b + (b < UINT64_MAX));
		if (i0 > 0)
			i0--;
		if (i1 - i0 <= (size_t)v->pw) {
			for (size_t i = i0; i < i1; i++) {
				const struct np_msg *g = &d->msg[l->msg[i]];
				double x0 = np_cx(np_x(v, (double)g->t));
				double x1 = g->reply_t > g->t ? np_cx(np_x(v, (double)g->reply_t)) : x0;
				np_set_rgb(cr, np_msg_colour(v->m, d, g));
				cairo_rectangle(cr, x0, yc - bh / 2, fmax(x1 - x0, 1.5), bh);
				cairo_fill(cr);
				f->st->items++;
			}
		} else {
			/* per pixel column, its first message's colour */
			size_t from = i0;
			for (size_t k = 0; k < (size_t)v->pw; k++) {
				double x = v->px + (double)k;
				size_t e = lane_lower(d, l, from, np_tkey(np_t_at(v, x + 1)));
				if (e > from) {
					np_set_rgb(cr, np_msg_colour(v->m, d, &d->msg[l->msg[from]]));
					cairo_rectangle(cr, x, yc - bh / 2, 1, bh);
					cairo_fill(cr);
					f->st->columns++;
				}
				from = e;
			}
		}
	}
	/* the rows' names, over the bars at the left */
	cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, 10);
	if (rh < 11)
		return;	/* too many rows for their names: the tooltip says */
	for (size_t r = 0; r < nl; r++) {
		double yc = row_y(v, nl, r);
		if (yc < v->py || yc > v->py + v->ph)
			continue;
		char title[160], text[200];
		struct np_msg g = { .name = lane[r].name, .ext = lane[r].ext };
		np_msg_title(v->m, &g, title, sizeof title);
		snprintf(text, sizeof text, "%s ×%zu", title, lane[r].n);
		cairo_text_extents_t te;
		cairo_text_extents(cr, text, &te);
		cairo_set_source_rgba(cr, 1, 1, 1, 0.75);
		cairo_rectangle(cr, v->px + 2, yc - 6, te.x_advance + 4, 12);
		cairo_fill(cr);
		np_show_text(cr, f->o, v->px + 4, yc + 3.5, text, (struct np_rgb){ 0.1, 0.1, 0.1 });
	}
}

static bool hit(const struct np_view *v, struct np_probe *p, struct np_hit *h)
{
	const struct np_conn *c = np_view_conn(v);
	const struct np_dir *d = &c->dir[v->dir];
	size_t nl;
	const struct np_lane *lane = np_lanes(c, v->dir, &nl);
	if (!nl)
		return false;
	double row = (double)(nl - 1) - np_seq_at(v, p->y);
	if (row < -0.5 || row > (double)nl - 0.5)
		return false;
	const struct np_lane *l = &lane[(size_t)(row + 0.5)];
	double t = np_t_at(v, p->x);
	/* the bar under the pointer, else the nearest start */
	size_t i = lane_lower(d, l, 0, np_tkey(t));
	size_t lo = i > 64 ? i - 64 : 0, hi = i + 1 < l->n ? i + 1 : l->n;
	for (size_t k = lo; k < hi; k++) {
		const struct np_msg *g = &d->msg[l->msg[k]];
		double x0 = np_x(v, (double)g->t);
		double x1 = g->reply_t > g->t ? np_x(v, (double)g->reply_t) : x0;
		double dx = p->x < x0 ? x0 - p->x : p->x > x1 ? p->x - x1 : 0;
		double dd = dx * dx;
		if (dd < p->best) {
			p->best = dd;
			*h = (struct np_hit){ .kind = NP_HIT_MSG, .dir = v->dir, .index = l->msg[k],
					      .t = (double)g->t, .seq = np_seq_at(v, p->y) };
		}
	}
	p->total += hi - lo;
	return h->kind != NP_HIT_NONE;
}

static void describe(const struct np_view *v, const struct np_hit *h, const char *when, char *buf,
		     size_t len)
{
	np_layer_messages.describe(v, h, when, buf, len);
}

const struct np_layer np_layer_lanes = {
	.name = "lanes",
	.kind = NP_HIT_MSG,
	.draw = draw,
	.hit = hit,
	.describe = describe,
};
